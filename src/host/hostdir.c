/* hostdir.c: see hostdir.h. */
#include "hostdir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tool_text.h"
#include "util.h"

/* ---- the way down ---- */

/* Why path's first len bytes are no path under a directory: an empty,
 * "." or ".." component (EINVAL), or one over NAME_MAX; 0 when fine. */
static int path_bad(const char *path, size_t len)
{
	for (size_t i = 0; i < len;) {
		size_t n = 0;
		while (i + n < len && path[i + n] != '/')
			n++;
		if (n > NAME_MAX)
			return ENAMETOOLONG;
		if (n == 0 || (path[i] == '.' && (n == 1 || (n == 2 && path[i + 1] == '.'))))
			return EINVAL;
		i += n + 1;
	}
	return len && path[len - 1] == '/' ? EINVAL : 0;
}

int hostdir_open(int root, const char *path, size_t len, bool make, unsigned mode)
{
	/* All of it first: nothing is made for a path refused. */
	int bad = path_bad(path, len);
	if (bad) {
		errno = bad;
		return -1;
	}
	int cur = dup(root);
	char comp[NAME_MAX + 1];
	for (size_t i = 0; cur >= 0 && i < len;) {
		size_t n = strcspn(path + i, "/");
		if (n > len - i)
			n = len - i;
		memcpy(comp, path + i, n);
		comp[n] = '\0';
		int next = openat(cur, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0 && errno == ENOENT && make && mkdirat(cur, comp, (mode_t)mode) == 0)
			next = openat(cur, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		int saved = errno;
		close(cur);
		errno = saved;
		cur = next;
		i += n + 1;
	}
	return cur;
}

int hostdir_parent(int root, const char *rel, bool make, unsigned mode, const char **leaf)
{
	const char *slash = strrchr(rel, '/');
	*leaf = slash ? slash + 1 : rel;
	/* The leaf too: "a/" or "a/.." would name no entry of a's. */
	int bad = path_bad(rel, strlen(rel));
	if (bad) {
		errno = bad;
		return -1;
	}
	return hostdir_open(root, rel, slash ? (size_t)(slash - rel) : 0, make, mode);
}

/* ---- names of our own ---- */

int hostdir_name(char *buf, size_t size, const char *prefix)
{
	size_t n = strlen(prefix);
	if (size >= n + 17) {
		memcpy(buf, prefix, n);
		if (random_hex(buf + n, 16) == 0)
			return 0;
	}
	if (size)
		buf[0] = '\0';
	errno = EIO;
	return -1;
}

int hostdir_stage(int dirfd, const char *name)
{
	if (mkdirat(dirfd, name, 0700) < 0)
		return -1;
	int fd = hostdir_opendir(dirfd, name);
	if (fd < 0) {
		int saved = errno;
		unlinkat(dirfd, name, AT_REMOVEDIR);
		errno = saved;
	}
	return fd;
}

/* ---- files, links, directories ---- */

int hostdir_create(int dirfd, const char *name)
{
	return openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
}

int hostdir_meta(int fd, unsigned mode, const long long *mtime)
{
	if (fchmod(fd, mode & 0777) < 0)
		return -1;
	if (!mtime)
		return 0;
	struct timespec t[2] = {{(time_t)*mtime, 0}, {(time_t)*mtime, 0}};
	return futimens(fd, t);
}

int hostdir_place(int fromfd, const char *from, int dirfd, const char *leaf)
{
	return renameat(fromfd, from, dirfd, leaf);
}

bool hostdir_dir_there(int errnum)
{
	return errnum == EISDIR || errnum == ENOTEMPTY || errnum == EEXIST;
}

int hostdir_symlink(int dirfd, const char *leaf, const char *target, const char *prefix,
		    const long long *mtime, enum hostdir_step *step)
{
	char tmp[NAME_MAX + 1];
	*step = HOSTDIR_NAME;
	if (hostdir_name(tmp, sizeof(tmp), prefix) < 0)
		return -1;
	*step = HOSTDIR_MAKE;
	if (symlinkat(target, dirfd, tmp) < 0)
		return -1;
	if (mtime) {
		struct timespec t[2] = {{(time_t)*mtime, 0}, {(time_t)*mtime, 0}};
		utimensat(dirfd, tmp, t, AT_SYMLINK_NOFOLLOW); /* not everywhere: no error */
	}
	*step = HOSTDIR_PLACE;
	if (hostdir_place(dirfd, tmp, dirfd, leaf) < 0) {
		int saved = errno;
		unlinkat(dirfd, tmp, 0);
		errno = saved;
		return -1;
	}
	return 0;
}

int hostdir_mkdir(int dirfd, const char *leaf)
{
	return mkdirat(dirfd, leaf, 0700) < 0 && errno != EEXIST ? -1 : 0;
}

int hostdir_opendir(int dirfd, const char *leaf)
{
	return openat(dirfd, leaf, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

int hostdir_chmod(int dirfd, const char *leaf, unsigned mode)
{
	struct stat sb;
	if (fstatat(dirfd, leaf, &sb, AT_SYMLINK_NOFOLLOW) < 0)
		return -1;
	if (!S_ISREG(sb.st_mode)) {
		errno = S_ISDIR(sb.st_mode) ? EISDIR : S_ISLNK(sb.st_mode) ? ELOOP : EPERM;
		return -1;
	}
	return fchmodat(dirfd, leaf, mode & 0777, 0);
}

/* ---- a staged tree: into place, or away ---- */

/* The entries of the directory at path under root (names, and a 'd'
 * or '-' for each in kinds); made writable first when ours (a staged
 * one, whose entries move out). No descriptor stays open, so that no
 * depth of tree runs out of them. */
static int list_dir(int root, const char *path, bool ours, struct strvec *names, struct sbuf *kinds)
{
	int fd = hostdir_open(root, path, strlen(path), false, 0);
	if (fd < 0)
		return -1;
	if (ours)
		fchmod(fd, 0700);
	DIR *d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -1;
	}
	/* A dup of root shares its offset with every other. */
	rewinddir(d);
	struct dirent *de;
	struct stat st;
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		bool dir = fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
		strvec_push(names, de->d_name);
		sbuf_addc(kinds, dir ? 'd' : '-');
	}
	closedir(d);
	return 0;
}

static void path_join(struct sbuf *out, const char *path, const char *name)
{
	sbuf_reset(out);
	sbuf_adds(out, path);
	if (*path)
		sbuf_addc(out, '/');
	sbuf_adds(out, name);
}

/* What `to` has at rel: 'd' a directory, '-' something else, 0 nothing,
 * -1 when it cannot be seen. */
static int kind_at(int root, const char *rel)
{
	const char *slash = strrchr(rel, '/');
	int pfd = hostdir_open(root, rel, slash ? (size_t)(slash - rel) : 0, false, 0);
	if (pfd < 0)
		return errno == ENOENT ? 0 : -1;
	struct stat st;
	int rc = fstatat(pfd, slash ? slash + 1 : rel, &st, AT_SYMLINK_NOFOLLOW);
	int saved = errno;
	close(pfd);
	if (rc < 0)
		return saved == ENOENT ? 0 : -1;
	return S_ISDIR(st.st_mode) ? 'd' : '-';
}

static int move_one(int from, int to, const char *rel)
{
	const char *slash = strrchr(rel, '/'), *leaf = slash ? slash + 1 : rel;
	size_t plen = slash ? (size_t)(slash - rel) : 0;
	int f = hostdir_open(from, rel, plen, false, 0), t = hostdir_open(to, rel, plen, false, 0);
	int rc = f >= 0 && t >= 0 ? renameat(f, leaf, t, leaf) : -1;
	int saved = errno;
	if (f >= 0)
		close(f);
	if (t >= 0)
		close(t);
	errno = saved;
	return rc;
}

/* Whether to's directory at path is on from's filesystem, where a rename
 * into it can go (a mount point in DEST is not): -1 with errno if not. */
static int same_fs(int from, int to, const char *path)
{
	struct stat a, b;
	int fd = hostdir_open(to, path, strlen(path), false, 0);
	if (fd < 0)
		return -1;
	int rc = fstat(from, &a) == 0 && fstat(fd, &b) == 0 ? 0 : -1;
	close(fd);
	if (rc == 0 && a.st_dev != b.st_dev) {
		errno = EXDEV;
		rc = -1;
	}
	return rc;
}

/* One directory of the staging tree into its place: check (nothing
 * moves, a clash is named) or move. */
static int merge(int from, int to, const char *path, bool check, struct sbuf *clash)
{
	struct strvec names = {0};
	struct sbuf kinds = {0}, rel = {0};
	if (check && same_fs(from, to, path) < 0) {
		tool_show_path(clash, *path ? path : ".", false);
		return -1;
	}
	int rc = list_dir(from, path, !check, &names, &kinds);
	for (size_t i = 0; rc == 0 && i < names.n; i++) {
		path_join(&rel, path, names.v[i]);
		int there = kind_at(to, rel.buf);
		bool dir = kinds.buf[i] == 'd';
		if (there < 0 || (there && (there == 'd') != dir)) {
			if (!clash->len)
				tool_show_path(clash, rel.buf, false);
			rc = -1;
			errno = there < 0 ? errno : dir ? ENOTDIR : EISDIR;
		} else if (dir && there == 'd') {
			rc = merge(from, to, rel.buf, check, clash);
		} else if (!check) {
			rc = move_one(from, to, rel.buf);
			if (rc < 0 && !clash->len)
				tool_show_path(clash, rel.buf, false);
		}
	}
	strvec_clear(&names);
	sbuf_free(&kinds);
	sbuf_free(&rel);
	return rc;
}

int hostdir_move(int from, int to, struct err *e)
{
	struct sbuf clash = {0};
	int rc = merge(from, to, "", true, &clash);
	const char *what = errno == ENOTDIR ? "a file or a link is where a directory comes"
			 : errno == EISDIR ? "a directory is where a file or a link comes"
			 : errno == EXDEV ? "another filesystem is mounted there: copy into it alone"
					  : strerror(errno);
	if (rc < 0)
		err_set(e, ERR_FAILED, "%s: %s; nothing was written", clash.len ? clash.buf : ".", what);
	else if ((rc = merge(from, to, "", false, &clash)) < 0)
		err_set(e, ERR_FAILED, "%s: cannot put it in place: %s; what came before it was written",
			clash.len ? clash.buf : ".", strerror(errno));
	sbuf_free(&clash);
	return rc;
}

static void remove_in(int root, const char *path)
{
	struct strvec names = {0};
	struct sbuf kinds = {0}, rel = {0};
	if (list_dir(root, path, true, &names, &kinds) == 0)
		for (size_t i = 0; i < names.n; i++) {
			path_join(&rel, path, names.v[i]);
			if (kinds.buf[i] == 'd')
				remove_in(root, rel.buf);
			int fd = hostdir_open(root, path, strlen(path), false, 0);
			if (fd >= 0) {
				unlinkat(fd, names.v[i], kinds.buf[i] == 'd' ? AT_REMOVEDIR : 0);
				close(fd);
			}
		}
	strvec_clear(&names);
	sbuf_free(&kinds);
	sbuf_free(&rel);
}

void hostdir_remove(int dirfd, const char *name)
{
	int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	remove_in(fd, "");
	close(fd);
	unlinkat(dirfd, name, AT_REMOVEDIR);
}
