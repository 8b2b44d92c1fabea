/* extract.c: see extract.h. */
#include "extract.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hostdir.h"
#include "tool_text.h"

const char *extract_name(const char *name, struct sbuf *out)
{
	sbuf_reset(out);
	sbuf_adds(out, "");
	if (!*name)
		return "an empty name";
	if (name[0] == '/')
		return "an absolute name";
	/* Longer than any path: a tree that deep would cost the host time
	 * and stack for each level. */
	if (strlen(name) > EXTRACT_NAME_MAX)
		return "a name longer than a path can be";
	for (const char *p = name; *p;) {
		size_t len = strcspn(p, "/");
		if (len == 2 && p[0] == '.' && p[1] == '.')
			return "a name with a '..' component";
		if (len && !(len == 1 && p[0] == '.')) {
			if (out->len)
				sbuf_addc(out, '/');
			sbuf_add(out, p, len);
		}
		p += len;
		while (*p == '/')
			p++;
	}
	return NULL;
}

const char *extract_map(const char *clean, const char *top, const char *top_as, struct sbuf *out)
{
	sbuf_reset(out);
	sbuf_adds(out, "");
	if (!top) {
		sbuf_adds(out, clean);
		return NULL;
	}
	size_t n = strlen(top);
	if (strncmp(clean, top, n) != 0 || (clean[n] && clean[n] != '/'))
		return "not under the path copied";
	const char *rest = clean + n + (clean[n] == '/');
	if (top_as) {
		sbuf_adds(out, top_as);
		if (*rest)
			sbuf_addc(out, '/');
	}
	sbuf_adds(out, rest);
	return NULL;
}

void extract_init(struct extract *x, int root, const char *top, const char *top_as)
{
	memset(x, 0, sizeof(*x));
	x->root = root;
	x->top = top;
	x->top_as = top_as;
	x->fd = x->dirfd = x->cache_fd = -1;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* Drops the entry being written: its temporary goes. */
static void drop(struct extract *x)
{
	close_fd(&x->fd);
	if (x->open && x->dirfd >= 0 && x->tmp[0])
		unlinkat(x->dirfd, x->tmp, 0);
	close_fd(&x->dirfd);
	x->tmp[0] = '\0';
	free(x->leaf);
	x->leaf = NULL;
	x->open = false;
}

void extract_free(struct extract *x)
{
	drop(x);
	close_fd(&x->cache_fd);
	sbuf_free(&x->cache_path);
	sbuf_free(&x->dirs);
	sbuf_free(&x->shown);
	free(x->inos);
	free(x->first_skipped);
	x->inos = NULL;
	x->first_skipped = NULL;
}

static int refuse(struct extract *x, struct err *e, const char *why)
{
	err_set(e, ERR_FAILED, "%s: %s; nothing of it was written", x->shown.len ? x->shown.buf : "\"\"", why);
	drop(x);
	return -1;
}

static int failed(struct extract *x, struct err *e, const char *what)
{
	int saved = errno;
	err_set(e, ERR_FAILED, "%s: %s: %s", x->shown.len ? x->shown.buf : "\"\"", what, strerror(saved));
	drop(x);
	return -1;
}

/* The directory at path under root (hostdir_open); missing ones made,
 * as tar does, with the default mode, when make. */
static int open_dir(struct extract *x, const char *path, bool make)
{
	return hostdir_open(x->root, path, strlen(path), make, 0777);
}

/* The parent directory of rel (an owned fd) and its leaf name. */
static int walk(struct extract *x, const char *rel, int *dirfd, char **leaf, struct err *e)
{
	const char *slash = strrchr(rel, '/');
	size_t plen = slash ? (size_t)(slash - rel) : 0;
	const char *name = slash ? slash + 1 : rel;
	if (strlen(name) > NAME_MAX) {
		errno = ENAMETOOLONG;
		return failed(x, e, "cannot create it");
	}
	if (!(x->cache_fd >= 0 && x->cache_path.len == plen &&
	      memcmp(x->cache_path.buf ? x->cache_path.buf : "", rel, plen) == 0)) {
		char *parent = xstrndup(rel, plen);
		int fd = open_dir(x, parent, true);
		free(parent);
		if (fd < 0 && (errno == ELOOP || errno == ENOTDIR))
			return refuse(x, e, "its path goes through a symbolic link or a file");
		if (fd < 0)
			return failed(x, e, "cannot open its directory");
		close_fd(&x->cache_fd);
		x->cache_fd = fd;
		sbuf_reset(&x->cache_path);
		sbuf_add(&x->cache_path, rel, plen);
	}
	*dirfd = dup(x->cache_fd);
	if (*dirfd < 0)
		return failed(x, e, "cannot open its directory");
	*leaf = xstrdup(name);
	return 0;
}

static bool ino_known(const struct extract *x, dev_t dev, ino_t ino)
{
	if (!x->inos_cap)
		return false;
	for (size_t i = (size_t)(ino * 2654435761u) & (x->inos_cap - 1);; i = (i + 1) & (x->inos_cap - 1)) {
		if (x->inos[i].ino == 0)
			return false;
		if (x->inos[i].ino == ino && x->inos[i].dev == dev)
			return true;
	}
}

/* Remembers a file written, for hard links to it; past
 * EXTRACT_INODES_MAX, links to later ones are refused. */
static void ino_add(struct extract *x, dev_t dev, ino_t ino)
{
	if (ino == 0 || ino_known(x, dev, ino) || x->ninos >= EXTRACT_INODES_MAX)
		return;
	if ((x->ninos + 1) * 2 > x->inos_cap) {
		struct extract_ino *old = x->inos;
		size_t oldcap = x->inos_cap;
		x->inos_cap = oldcap ? oldcap * 2 : 1024;
		x->inos = calloc(x->inos_cap, sizeof(*x->inos));
		if (!x->inos)
			abort();
		x->ninos = 0;
		for (size_t i = 0; i < oldcap; i++)
			if (old[i].ino)
				ino_add(x, old[i].dev, old[i].ino);
		free(old);
	}
	size_t i = (size_t)(ino * 2654435761u) & (x->inos_cap - 1);
	while (x->inos[i].ino)
		i = (i + 1) & (x->inos_cap - 1);
	x->inos[i] = (struct extract_ino){dev, ino};
	x->ninos++;
}

static int tmp_name(struct extract *x, struct err *e)
{
	if (hostdir_name(x->tmp, sizeof(x->tmp), EXTRACT_TMP) < 0)
		return refuse(x, e, "cannot read /dev/urandom");
	return 0;
}

/* Puts the temporary in place of the entry's name: a file or a link
 * there is replaced, a directory is not. */
static int place(struct extract *x, struct err *e)
{
	if (hostdir_place(x->dirfd, x->tmp, x->dirfd, x->leaf) < 0) {
		if (hostdir_dir_there(errno))
			return refuse(x, e, "a directory is in its place");
		return failed(x, e, "cannot put it in place");
	}
	x->tmp[0] = '\0';
	x->open = false;
	drop(x);
	return 0;
}

static void put_u32(struct sbuf *b, uint32_t v)
{
	sbuf_add(b, &v, sizeof(v));
}

/* A directory's mode and mtime: now, or at the end. */
static int dir_meta(struct extract *x, int fd, const char *rel, unsigned mode, long long mtime,
		    struct err *e)
{
	size_t n = strlen(rel);
	if (x->dirs.len + n + 16 <= EXTRACT_DIRS_MAX) {
		put_u32(&x->dirs, mode);
		sbuf_add(&x->dirs, &mtime, sizeof(mtime));
		put_u32(&x->dirs, (uint32_t)n);
		sbuf_add(&x->dirs, rel, n);
		return 0;
	}
	if (hostdir_meta(fd, (mode & 0777) | 0700, &mtime) < 0)
		return failed(x, e, "cannot set its mode or time");
	return 0;
}

static int entry_dir(struct extract *x, const char *rel, unsigned mode, long long mtime,
		     struct err *e)
{
	int fd = -1;
	if (!*rel) {
		fd = dup(x->root);
	} else {
		if (walk(x, rel, &x->dirfd, &x->leaf, e) < 0)
			return -1;
		if (hostdir_mkdir(x->dirfd, x->leaf) < 0)
			return failed(x, e, "cannot create it");
		fd = hostdir_opendir(x->dirfd, x->leaf);
		if (fd < 0 && (errno == ELOOP || errno == ENOTDIR))
			return refuse(x, e, "a file or a symbolic link is in its place");
	}
	if (fd < 0)
		return failed(x, e, "cannot open it");
	int rc = dir_meta(x, fd, rel, mode, mtime, e);
	close(fd);
	if (rc == 0)
		x->ndirs++;
	drop(x);
	return rc;
}

static int entry_symlink(struct extract *x, const char *rel, const char *link, long long mtime,
			 struct err *e)
{
	if (!*link)
		return refuse(x, e, "a symbolic link to nothing");
	if (walk(x, rel, &x->dirfd, &x->leaf, e) < 0)
		return -1;
	enum hostdir_step step;
	if (hostdir_symlink(x->dirfd, x->leaf, link, EXTRACT_TMP, &mtime, &step) < 0) {
		if (step == HOSTDIR_NAME)
			return refuse(x, e, "cannot read /dev/urandom");
		if (step == HOSTDIR_MAKE)
			return failed(x, e, "cannot create the link");
		if (hostdir_dir_there(errno))
			return refuse(x, e, "a directory is in its place");
		return failed(x, e, "cannot put it in place");
	}
	drop(x);
	x->links++;
	return 0;
}

static int entry_hardlink(struct extract *x, const char *link, const char *rel, struct err *e)
{
	struct sbuf clean = {0}, mapped = {0};
	const char *why = extract_name(link, &clean);
	if (!why)
		why = extract_map(clean.buf, x->top, x->top_as, &mapped);
	sbuf_free(&clean);
	if (why || !*mapped.buf) {
		sbuf_free(&mapped);
		return refuse(x, e, "a hard link to a file outside the copy");
	}
	int tdir = -1;
	char *tleaf = NULL;
	int rc = walk(x, mapped.buf, &tdir, &tleaf, e);
	sbuf_free(&mapped);
	if (rc < 0)
		return -1;
	struct stat st;
	if (fstatat(tdir, tleaf, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode) ||
	    !ino_known(x, st.st_dev, st.st_ino)) {
		close(tdir);
		free(tleaf);
		return refuse(x, e, "a hard link to a file this copy did not write");
	}
	if (walk(x, rel, &x->dirfd, &x->leaf, e) < 0 || tmp_name(x, e) < 0) {
		close(tdir);
		free(tleaf);
		return -1;
	}
	rc = linkat(tdir, tleaf, x->dirfd, x->tmp, 0);
	int saved = errno;
	close(tdir);
	free(tleaf);
	if (rc < 0) {
		x->tmp[0] = '\0';
		errno = saved;
		return failed(x, e, "cannot create the hard link");
	}
	x->open = true;
	if (place(x, e) < 0)
		return -1;
	x->links++;
	return 0;
}

static int entry_file(struct extract *x, const char *rel, unsigned mode, struct err *e)
{
	if (walk(x, rel, &x->dirfd, &x->leaf, e) < 0 || tmp_name(x, e) < 0)
		return -1;
	x->fd = hostdir_create(x->dirfd, x->tmp);
	if (x->fd < 0) {
		x->tmp[0] = '\0';
		return failed(x, e, "cannot create it");
	}
	x->open = true;
	(void)mode;
	return 0;
}

int extract_entry(struct extract *x, const char *name, char type, unsigned mode,
		  long long mtime, const char *link, struct err *e)
{
	drop(x);
	sbuf_reset(&x->shown);
	tool_show_path(&x->shown, name, false);
	x->entries++;
	x->mode_pending = mode;
	x->mtime_pending = mtime;
	struct sbuf clean = {0}, rel = {0};
	const char *why = extract_name(name, &clean);
	if (!why)
		why = extract_map(clean.buf, x->top, x->top_as, &rel);
	bool is_top = !why && (x->top ? strcmp(clean.buf, x->top) == 0 : !*clean.buf);
	sbuf_free(&clean);
	if (why) {
		sbuf_free(&rel);
		return refuse(x, e, why);
	}
	int rc;
	bool is_dir = type == '5';
	if (x->top_only && (x->entries > 1 || is_dir || !*rel.buf)) {
		rc = refuse(x, e, x->entries > 1 ? "more than the one file asked for" : "not a file");
	} else if (is_top && !x->top_only && !is_dir) {
		rc = refuse(x, e, "not a directory, where the directory copied should be");
	} else {
		switch (type) {
		case '5': rc = entry_dir(x, rel.buf, mode, mtime, e); break;
		case '0':
		case '\0':
		case '7': rc = entry_file(x, rel.buf, mode, e); break;
		case '2': rc = entry_symlink(x, rel.buf, link, mtime, e); break;
		case '1': rc = entry_hardlink(x, link, rel.buf, e); break;
		case '3':
		case '4':
		case '6':
			x->skipped++;
			if (!x->first_skipped)
				x->first_skipped = xstrdup(x->shown.buf);
			rc = 0;
			break;
		default: {
			char why_type[64];
			snprintf(why_type, sizeof(why_type), "an entry of a type cp does not know ('%c')",
				 type >= 0x20 && type < 0x7f ? type : '?');
			rc = refuse(x, e, why_type);
		}
		}
	}
	sbuf_free(&rel);
	return rc;
}

int extract_data(struct extract *x, const char *buf, size_t n, struct err *e)
{
	if (x->fd < 0)
		return 0;
	if (write_all(x->fd, buf, n) < 0)
		return failed(x, e, "cannot write it");
	x->bytes += n;
	return 0;
}

int extract_end(struct extract *x, struct err *e)
{
	if (x->fd < 0)
		return 0;
	struct stat st;
	if (hostdir_meta(x->fd, x->mode_pending, &x->mtime_pending) < 0 || fstat(x->fd, &st) < 0)
		return failed(x, e, "cannot set its mode or time");
	if (close(x->fd) < 0) {
		x->fd = -1;
		return failed(x, e, "cannot write it");
	}
	x->fd = -1;
	if (place(x, e) < 0)
		return -1;
	ino_add(x, st.st_dev, st.st_ino);
	x->files++;
	return 0;
}

int extract_finish(struct extract *x, struct err *e)
{
	drop(x);
	close_fd(&x->cache_fd);
	/* Records from the last: a directory's contents before it. */
	size_t nrec = 0, *at = NULL;
	for (size_t off = 0; off + 16 <= x->dirs.len; nrec++) {
		uint32_t len;
		memcpy(&len, x->dirs.buf + off + 12, 4);
		at = xrealloc(at, (nrec + 1) * sizeof(*at));
		at[nrec] = off;
		off += 16 + len;
	}
	int rc = 0;
	struct sbuf path = {0};
	for (size_t i = nrec; i-- > 0 && rc == 0;) {
		const char *r = x->dirs.buf + at[i];
		uint32_t mode, len;
		long long mtime;
		memcpy(&mode, r, 4);
		memcpy(&mtime, r + 4, 8);
		memcpy(&len, r + 12, 4);
		sbuf_reset(&path);
		sbuf_add(&path, r + 16, len);
		sbuf_adds(&path, "");
		int fd = open_dir(x, path.buf, false);
		if (fd < 0 || hostdir_meta(fd, mode, &mtime) < 0) {
			int saved = errno;
			sbuf_reset(&x->shown);
			tool_show_path(&x->shown, *path.buf ? path.buf : ".", false);
			errno = saved;
			rc = failed(x, e, "cannot set its mode or time");
		}
		if (fd >= 0)
			close(fd);
	}
	sbuf_free(&path);
	free(at);
	return rc;
}
