/* trust.c: see trust.h. */
/* O_PATH is Linux's (elsewhere a file is checked by name, then opened);
 * realpath(3) is XSI. */
#define _GNU_SOURCE
#include "trust.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sha256.h"
#include "utf8.h"

#define TRUST_STORE "trusted"
#define TRUST_LOCK "trusted.lock"
/* How long trust_update waits for another writer, in 10 ms steps. */
#define TRUST_LOCK_TRIES 1000

static int check_stat(const struct stat *st, const char *name, struct err *e)
{
	if (!S_ISREG(st->st_mode))
		return err_set(e, ERR_CONFIG, "%s: not a regular file", name);
	/* The file chooses the image, mounts and engine: one anybody can
	 * write is a way into the caller's account. */
	if (st->st_mode & S_IWOTH)
		return err_set(e, ERR_CONFIG, "%s: writable by everyone; run chmod o-w on it", name);
	if (st->st_uid != 0 && st->st_uid != geteuid())
		return err_set(e, ERR_CONFIG, "%s: owned by another user (uid %ld); refusing to read it",
			       name, (long)st->st_uid);
	if (st->st_size > TRUST_MAX_FILE)
		return err_set(e, ERR_CONFIG, "%s: %lld bytes; the limit is %d (1 MiB)",
			       name, (long long)st->st_size, TRUST_MAX_FILE);
	return 0;
}

/* An fd open for reading on what was checked; -1 and errno otherwise. On
 * Linux, the inode checked through an O_PATH fd is the one reopened;
 * elsewhere the name is opened again, and open_checked compares. */
static int reopen(const char *name, int pfd)
{
	int flags = O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
#ifdef O_PATH
	char proc[64];
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", pfd);
	int fd = open(proc, flags);
	if (fd >= 0 || errno != ENOENT)
		return fd;
	/* No /proc: by name, as elsewhere. */
#else
	(void)pfd;
#endif
	return open(name, flags);
}

/* What name is, without opening it: on Linux through an O_PATH fd, kept
 * in *pfd for reopen (else -1). -1 and errno when it cannot be had. */
static int stat_name(const char *name, struct stat *st, int *pfd)
{
	*pfd = -1;
#ifdef O_PATH
	int fd = open(name, O_PATH | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, st) < 0) {
		int saved = errno;
		close(fd);
		errno = saved;
		return -1;
	}
	*pfd = fd;
	return 0;
#else
	return stat(name, st);
#endif
}

/* Opens name for reading only when it is a regular file that passes
 * check_stat, without opening anything else: a device's open can act (a
 * tape rewinds, a watchdog starts) and a FIFO's would wait; a workspace
 * can plant either, or a symbolic link to one, in a mounted directory.
 * Returns the fd, -2 when name does not exist, or -1. */
static int open_checked(const char *name, struct stat *st, struct err *e)
{
	int pfd;
	if (stat_name(name, st, &pfd) < 0) {
		if (errno == ENOENT)
			return -2;
		return err_set(e, ERR_CONFIG, "%s: %s", name, strerror(errno));
	}
	int fd = -1;
	if (check_stat(st, name, e) == 0 && (fd = reopen(name, pfd)) < 0)
		err_set(e, ERR_CONFIG, "%s: %s", name, strerror(errno));
	if (pfd >= 0)
		close(pfd);
	/* Without O_PATH the name may have been pointed elsewhere meanwhile. */
	struct stat now;
	if (fd >= 0 && (fstat(fd, &now) < 0 || !S_ISREG(now.st_mode) ||
			now.st_dev != st->st_dev || now.st_ino != st->st_ino)) {
		close(fd);
		return err_set(e, ERR_CONFIG, "%s: changed while it was read; run the command again", name);
	}
	return fd;
}

/* Reads fd to its end, at most TRUST_MAX_FILE bytes: the size seen by
 * fstat is no promise, the file may grow meanwhile. */
static int read_bounded(int fd, const char *name, struct sbuf *out, struct err *e)
{
	char buf[65536];
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return err_set(e, ERR_CONFIG, "%s: %s", name, strerror(errno));
		if (n == 0)
			return 0;
		if (out->len + (size_t)n > TRUST_MAX_FILE)
			return err_set(e, ERR_CONFIG, "%s: more than %d bytes (1 MiB); refusing to read it",
				       name, TRUST_MAX_FILE);
		sbuf_add(out, buf, (size_t)n);
	}
}

int trust_file_read(const char *name, bool must_exist, struct trust_file *f,
		    struct err *e)
{
	memset(f, 0, sizeof(*f));
	f->name = name;
	struct stat st;
	f->link = lstat(name, &st) == 0 && S_ISLNK(st.st_mode);
	int fd = open_checked(name, &st, e);
	if (fd == -2 && !must_exist)
		return 0;
	if (fd == -2)
		return err_set(e, ERR_CONFIG, "%s: %s", name, strerror(ENOENT));
	if (fd < 0)
		return -1;
	struct sbuf data = {0};
	int rc = read_bounded(fd, name, &data, e);
	close(fd);
	if (rc < 0) {
		sbuf_free(&data);
		return -1;
	}
	if (!data.buf)
		sbuf_add(&data, "", 0);
	f->data = data.buf;
	f->len = data.len;
	f->dev = st.st_dev;
	f->ino = st.st_ino;
	return 1;
}

void trust_file_free(struct trust_file *f)
{
	free(f->data);
	memset(f, 0, sizeof(*f));
}

/* Where the link name stands: its directory's real path, then its own
 * name. */
static char *link_path(const char *name)
{
	const char *slash = strrchr(name, '/');
	char *dir = slash ? xstrndup(name, (size_t)(slash - name) + (slash == name)) : xstrdup(".");
	char *real = realpath(dir, NULL);
	char *path = real ? xasprintf("%s%s%s", real, strcmp(real, "/") ? "/" : "", slash ? slash + 1 : name)
			  : NULL;
	free(real);
	free(dir);
	return path;
}

char *trust_file_realpath_new(const struct trust_file *f, struct err *e)
{
	struct stat lst;
	if (lstat(f->name, &lst) < 0 || S_ISLNK(lst.st_mode) != f->link) {
		err_set(e, ERR_CONFIG, "%s: changed while it was read; run the command again", f->name);
		return NULL;
	}
	char *real = f->link ? link_path(f->name) : realpath(f->name, NULL);
	if (!real) {
		err_set(e, ERR_CONFIG, "%s: %s", f->name, strerror(errno));
		return NULL;
	}
	/* The name may have been pointed elsewhere since it was opened: the
	 * key must be the path of the bytes we hold. */
	struct stat st;
	if (stat(real, &st) < 0 || st.st_dev != f->dev || st.st_ino != f->ino) {
		err_set(e, ERR_CONFIG, "%s: changed while it was read; run the command again", f->name);
		free(real);
		return NULL;
	}
	if (!trust_path_ok(real)) {
		err_set(e, ERR_CONFIG, "%s: its real path holds control characters or is over %d bytes: it cannot be trusted; name it with --config",
			f->name, TRUST_MAX_PATH);
		free(real);
		return NULL;
	}
	return real;
}

/* --- the store's text --- */

bool trust_path_ok(const char *path)
{
	return path[0] == '/' && strlen(path) <= TRUST_MAX_PATH && !has_control(path);
}

static bool is_hex64(const char *s, size_t n)
{
	if (n != 64)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

static int bad_line(struct trust_store *ts, const char *name, int line, const char *what,
		    struct err *e)
{
	trust_store_free(ts);
	return err_set(e, ERR_CONFIG, "%s:%d: %s; fix or delete the line (or the file), then run 'sandbox trust' again",
		       name, line, what);
}

/* A new entry at the end, uninitialized. */
static struct trust_entry *store_grow(struct trust_store *ts)
{
	if (ts->n == ts->cap) {
		ts->cap = ts->cap ? ts->cap * 2 : 16;
		ts->v = xrealloc(ts->v, ts->cap * sizeof(*ts->v));
	}
	return &ts->v[ts->n++];
}

/* One line without its newline: an entry, appended, or a comment. */
static int parse_line(struct trust_store *ts, const char *name, int line, const char *s,
		      size_t n, struct err *e)
{
	if (n && s[0] == '#')
		return 0;
	if (n < 66 || s[64] != ' ' || !is_hex64(s, 64))
		return bad_line(ts, name, line, "expected 'SHA256 PATH' (64 lowercase hex digits, a space, an absolute path)", e);
	char *path = xstrndup(s + 65, n - 65);
	if (!trust_path_ok(path)) {
		free(path);
		return bad_line(ts, name, line, "the path must be absolute, without control characters, at most 4095 bytes", e);
	}
	struct trust_entry *t = store_grow(ts);
	memcpy(t->sha256, s, 64);
	t->sha256[64] = '\0';
	t->path = path;
	return 0;
}

struct path_at {
	const char *path;
	size_t i;
};

static int by_path_then_index(const void *a, const void *b)
{
	const struct path_at *x = a, *y = b;
	int c = strcmp(x->path, y->path);
	return c ? c : (x->i > y->i) - (x->i < y->i);
}

/* The index of the first entry whose path an earlier one has, or ts->n.
 * Sorted, not pairwise: a full store holds some 15000 entries. */
static size_t first_repeat(const struct trust_store *ts)
{
	struct path_at *order = xmalloc(ts->n * sizeof(*order));
	for (size_t i = 0; i < ts->n; i++)
		order[i] = (struct path_at){ts->v[i].path, i};
	qsort(order, ts->n, sizeof(*order), by_path_then_index);
	size_t first = ts->n;
	for (size_t i = 1; i < ts->n; i++)
		if (strcmp(order[i].path, order[i - 1].path) == 0 && order[i].i < first)
			first = order[i].i;
	free(order);
	return first;
}

int trust_parse(struct trust_store *ts, const char *name, const char *data,
		size_t len, struct err *e)
{
	memset(ts, 0, sizeof(*ts));
	int line = 0;
	size_t nl_count = 0;
	for (const char *p = data; len && (p = memchr(p, '\n', len - (size_t)(p - data))); p++)
		nl_count++;
	/* The line of each entry, for a repeat: at most one per newline. */
	int *lines = xmalloc(nl_count * sizeof(*lines));
	for (size_t at = 0; at < len;) {
		line++;
		const char *s = data + at;
		const char *nl = memchr(s, '\n', len - at);
		size_t n = nl ? (size_t)(nl - s) : len - at;
		size_t before = ts->n;
		int rc;
		if (!nl)
			rc = bad_line(ts, name, line, "the last line has no newline", e);
		else if (memchr(s, '\0', n))
			rc = bad_line(ts, name, line, "a NUL byte", e);
		else
			rc = parse_line(ts, name, line, s, n, e);
		if (rc < 0) {
			free(lines);
			return -1;
		}
		if (ts->n > before)
			lines[before] = line;
		at += n + 1;
	}
	size_t rep = first_repeat(ts);
	int rc = 0;
	if (rep < ts->n)
		rc = bad_line(ts, name, lines[rep], "the path is already on an earlier line", e);
	free(lines);
	return rc;
}

void trust_format(const struct trust_store *ts, struct sbuf *out)
{
	sbuf_adds(out, "# sandbox: the config files trusted by 'sandbox trust': SHA-256 and real path.\n"
		       "# Change it with 'sandbox trust [--revoke] FILE'; comments are not kept.\n");
	for (size_t i = 0; i < ts->n; i++)
		sbuf_addf(out, "%s %s\n", ts->v[i].sha256, ts->v[i].path);
}

const struct trust_entry *trust_find(const struct trust_store *ts, const char *path)
{
	for (size_t i = 0; i < ts->n; i++)
		if (strcmp(ts->v[i].path, path) == 0)
			return &ts->v[i];
	return NULL;
}

int trust_put(struct trust_store *ts, const char *path, const char *sha256,
	      struct err *e)
{
	if (!trust_path_ok(path))
		return err_set(e, ERR_USAGE, "%s: a path with control characters, or over %d bytes, cannot be trusted",
			       path, TRUST_MAX_PATH);
	if (!is_hex64(sha256, strlen(sha256)))
		return err_set(e, ERR_USAGE, "'%s' is not a SHA-256 in lowercase hex", sha256);
	struct trust_entry *t = (struct trust_entry *)trust_find(ts, path);
	if (!t) {
		t = store_grow(ts);
		t->path = xstrdup(path);
	}
	memcpy(t->sha256, sha256, 65);
	return 0;
}

bool trust_drop(struct trust_store *ts, const char *path)
{
	for (size_t i = 0; i < ts->n; i++) {
		if (strcmp(ts->v[i].path, path) != 0)
			continue;
		free(ts->v[i].path);
		memmove(&ts->v[i], &ts->v[i + 1], (ts->n - i - 1) * sizeof(*ts->v));
		ts->n--;
		return true;
	}
	return false;
}

void trust_store_free(struct trust_store *ts)
{
	for (size_t i = 0; i < ts->n; i++)
		free(ts->v[i].path);
	free(ts->v);
	memset(ts, 0, sizeof(*ts));
}

/* --- the store on disk --- */

char *trust_dir_new(void)
{
	/* The XDG base directory spec: a relative value is to be ignored. */
	const char *xdg = getenv("XDG_CONFIG_HOME");
	if (xdg && xdg[0] == '/')
		return xasprintf("%s/sandbox", xdg);
	const char *home = getenv("HOME");
	if (home && home[0] == '/')
		return xasprintf("%s/.config/sandbox", home);
	return NULL;
}

/* The store in dir; a missing one is empty. */
static int store_load(const char *dir, struct trust_store *ts, struct err *e)
{
	memset(ts, 0, sizeof(*ts));
	char *path = xasprintf("%s/" TRUST_STORE, dir);
	struct trust_file f;
	int rc = trust_file_read(path, false, &f, e);
	if (rc > 0)
		rc = trust_parse(ts, path, f.data, f.len, e);
	trust_file_free(&f);
	free(path);
	return rc < 0 ? -1 : 0;
}

int trust_lookup(const char *dir, const struct trust_file *f, struct err *e)
{
	char *real = trust_file_realpath_new(f, e);
	if (!real)
		return -1;
	struct trust_store ts;
	int rc = store_load(dir, &ts, e);
	if (rc == 0) {
		char sha[65];
		sha256_buf_hex(f->data, f->len, sha);
		const struct trust_entry *t = trust_find(&ts, real);
		rc = !t ? TRUST_UNKNOWN : strcmp(t->sha256, sha) != 0 ? TRUST_CHANGED : TRUST_OK;
	}
	trust_store_free(&ts);
	free(real);
	return rc;
}

int trust_check(const char *dir, const struct trust_file *f, struct err *e)
{
	if (!dir)
		return err_set(e, ERR_CONFIG, "%s is not trusted, and without HOME or XDG_CONFIG_HOME there is no trust store; name it with --config",
			       f->name);
	switch (trust_lookup(dir, f, e)) {
	case TRUST_OK: return 0;
	case TRUST_UNKNOWN:
		if (f->link)
			return err_set(e, ERR_CONFIG, "%s is a symbolic link, and a link is trusted only where it "
				       "stands, whatever it points to; check it, then run 'sandbox trust %s' here "
				       "(or name the file with --config)", f->name, f->name);
		return err_set(e, ERR_CONFIG, "%s is not trusted; " TRUST_FIX, f->name);
	case TRUST_CHANGED:
		return err_set(e, ERR_CONFIG, "%s changed since 'sandbox trust'; " TRUST_FIX, f->name);
	default: return -1;
	}
}

static int mkdir_p(const char *dir, struct err *e)
{
	char *p = xstrdup(dir);
	int rc = 0;
	for (char *s = p + 1;; s++) {
		if (*s && *s != '/')
			continue;
		char c = *s;
		*s = '\0';
		struct stat st;
		int saved = mkdir(p, 0700) < 0 ? errno : 0;
		if (saved && (stat(p, &st) < 0 || !S_ISDIR(st.st_mode))) {
			rc = err_set(e, ERR_FAILED, "cannot create the directory %s: %s", p,
				     strerror(saved == EEXIST ? ENOTDIR : saved));
			break;
		}
		*s = c;
		if (!c)
			break;
	}
	free(p);
	return rc;
}

/* A write lock on dir's lock file, waited for at most 10 s; the fd
 * holds it until closed. POSIX record locks: no flock(2) needed. */
static int lock_store(const char *dir, struct err *e)
{
	char *path = xasprintf("%s/" TRUST_LOCK, dir);
	int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
	if (fd < 0) {
		err_set(e, ERR_FAILED, "%s: %s", path, strerror(errno));
		free(path);
		return -1;
	}
	struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
	for (int i = 0; fcntl(fd, F_SETLK, &fl) < 0; i++) {
		if ((errno != EACCES && errno != EAGAIN && errno != EINTR) || i >= TRUST_LOCK_TRIES) {
			err_set(e, ERR_FAILED, "%s: %s", path,
				i >= TRUST_LOCK_TRIES ? "held by another sandbox for 10 s; try again"
						      : strerror(errno));
			close(fd);
			free(path);
			return -1;
		}
		nanosleep(&(struct timespec){.tv_nsec = 10 * 1000 * 1000}, NULL);
	}
	free(path);
	return fd;
}

/* Writes text to dir's store through a temporary file renamed over it:
 * a reader sees the old store or the new one, never a part. */
static int store_write(const char *dir, const struct sbuf *text, struct err *e)
{
	char *path = xasprintf("%s/" TRUST_STORE, dir);
	char *tmp = xasprintf("%s/" TRUST_STORE ".XXXXXX", dir);
	int rc = -1;
	int fd = mkstemp(tmp);
	if (fd < 0) {
		err_set(e, ERR_FAILED, "cannot create a file in %s: %s", dir, strerror(errno));
		goto out;
	}
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	if (write_all(fd, text->buf, text->len) < 0 || fsync(fd) < 0) {
		err_set(e, ERR_FAILED, "%s: %s", tmp, strerror(errno));
		close(fd);
	} else if (close(fd) < 0 || rename(tmp, path) < 0) {
		err_set(e, ERR_FAILED, "%s: %s", path, strerror(errno));
	} else {
		rc = 0;
	}
	if (rc < 0)
		unlink(tmp);
out:
	free(tmp);
	free(path);
	return rc;
}

int trust_update(const char *dir, const char *path, const char *sha256,
		 bool *changed, struct err *e)
{
	*changed = false;
	if (mkdir_p(dir, e) < 0)
		return -1;
	int lock = lock_store(dir, e);
	if (lock < 0)
		return -1;
	struct trust_store ts;
	struct sbuf text = {0};
	int rc = store_load(dir, &ts, e);
	if (rc == 0 && sha256) {
		const struct trust_entry *t = trust_find(&ts, path);
		*changed = !t || strcmp(t->sha256, sha256) != 0;
		rc = trust_put(&ts, path, sha256, e);
	} else if (rc == 0) {
		*changed = trust_drop(&ts, path);
	}
	if (rc == 0 && *changed) {
		trust_format(&ts, &text);
		if (text.len > TRUST_MAX_FILE)
			rc = err_set(e, ERR_FAILED, "the trust store would pass 1 MiB; revoke the files no longer used");
		else
			rc = store_write(dir, &text, e);
	}
	sbuf_free(&text);
	trust_store_free(&ts);
	close(lock);
	return rc;
}
