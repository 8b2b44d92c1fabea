/* history.c: see history.h. */
#define _GNU_SOURCE /* O_NOFOLLOW, O_DIRECTORY under C17 */
#include "history.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define SUFFIX ".jsonl"

char *history_dir_new(struct err *e)
{
	return history_dir_of_new("history", e);
}

char *history_dir_of_new(const char *what, struct err *e)
{
	const char *state = getenv("XDG_STATE_HOME");
	const char *home = getenv("HOME");
	char *dir;
	if (state && state[0] == '/')
		dir = xasprintf("%s/sandbox/%s", state, what);
	else if (home && home[0] == '/')
		dir = xasprintf("%s/.local/state/sandbox/%s", home, what);
	else {
		err_set(e, ERR_CONFIG, "no place for the %s: set HOME or XDG_STATE_HOME", what);
		return NULL;
	}
	struct stat st;
	if (lstat(dir, &st) < 0 && (make_dirs(dir) < 0 || lstat(dir, &st) < 0)) {
		err_set(e, ERR_CONFIG, "cannot make %s: %s", dir, strerror(errno));
		free(dir);
		return NULL;
	}
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid()) {
		err_set(e, ERR_CONFIG, "%s is not a directory of ours: nothing is kept there; remove it", dir);
		free(dir);
		return NULL;
	}
	if ((st.st_mode & 077) && chmod(dir, 0700) < 0) {
		err_set(e, ERR_CONFIG, "cannot make %s private: %s", dir, strerror(errno));
		free(dir);
		return NULL;
	}
	return dir;
}

bool history_name_ok(const char *name)
{
	size_t n = strlen(name);
	if (n == 0 || n > 128 || !((name[0] >= 'a' && name[0] <= 'z') ||
				   (name[0] >= 'A' && name[0] <= 'Z') || (name[0] >= '0' && name[0] <= '9')))
		return false;
	return strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") == n;
}

static char *path_of(const char *dir, const char *name, bool rotated)
{
	return xasprintf("%s/%s" SUFFIX "%s", dir, name, rotated ? ".1" : "");
}

static int open_file(const char *path, int flags)
{
	int fd = open(path, flags | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, 0600);
	struct stat st;
	if (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid())) {
		close(fd);
		errno = EPERM;
		return -1;
	}
	return fd;
}

int history_append(const char *dir, const char *name, const char *line, size_t n,
		   struct err *e)
{
	if (!history_name_ok(name) || n == 0 || n > HISTORY_RECORD_MAX || memchr(line, '\n', n))
		return err_set(e, ERR_USAGE, "not a history record");
	char *path = path_of(dir, name, false);
	int fd = -1, rc = 0;
	for (int tries = 0; tries < 3; tries++) {
		fd = open_file(path, O_WRONLY | O_APPEND | O_CREAT);
		if (fd < 0)
			break;
		struct stat st, now;
		if (flock(fd, LOCK_EX) < 0 || fstat(fd, &st) < 0) {
			close(fd);
			fd = -1;
			break;
		}
		/* Another rotated it while we waited: the one at path is new. */
		if (stat(path, &now) < 0 || now.st_ino != st.st_ino) {
			close(fd);
			fd = -1;
			continue;
		}
		if (st.st_size < HISTORY_ROTATE)
			break;
		char *old = path_of(dir, name, true);
		int moved = rename(path, old);
		free(old);
		close(fd);
		fd = -1;
		if (moved < 0)
			break;
	}
	if (fd < 0) {
		rc = err_set(e, ERR_FAILED, "cannot write the history %s: %s", path, strerror(errno));
	} else {
		char *buf = xmalloc(n + 1);
		memcpy(buf, line, n);
		buf[n] = '\n';
		struct stat st;
		off_t was = fstat(fd, &st) == 0 ? st.st_size : -1;
		if (write_all(fd, buf, n + 1) < 0) {
			rc = err_set(e, ERR_FAILED, "cannot write the history %s: %s", path, strerror(errno));
			/* No torn record that would swallow the next one. */
			if (was >= 0 && ftruncate(fd, was) < 0)
				rc = err_set(e, ERR_FAILED, "cannot write the history %s: %s", path, strerror(errno));
		}
		free(buf);
		close(fd);
	}
	free(path);
	return rc;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int history_names(const char *dir, struct strvec *names, struct err *e)
{
	DIR *d = opendir(dir);
	if (!d)
		return err_set(e, ERR_FAILED, "cannot read %s: %s", dir, strerror(errno));
	struct dirent *de;
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name), s = strlen(SUFFIX);
		if (n <= s || strcmp(de->d_name + n - s, SUFFIX) != 0)
			continue;
		char *name = xstrndup(de->d_name, n - s);
		if (history_name_ok(name))
			strvec_push(names, name);
		free(name);
	}
	closedir(d);
	if (names->n)
		qsort(names->v, names->n, sizeof(*names->v), cmp_str);
	return 0;
}

/* The whole lines of path from *from on (at most the last HISTORY_ROTATE
 * bytes and a record), onto lines; *from moves past the last whole one.
 * A missing file has none. */
static int read_lines(const char *path, struct strvec *lines, long long *from, struct err *e)
{
	int fd = open_file(path, O_RDONLY);
	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		return err_set(e, ERR_FAILED, "cannot read the history %s: %s", path, strerror(errno));
	}
	struct stat st;
	if (fstat(fd, &st) < 0) {
		close(fd);
		return err_set(e, ERR_FAILED, "cannot read the history %s: %s", path, strerror(errno));
	}
	long long most = HISTORY_ROTATE + HISTORY_RECORD_MAX;
	long long at = *from;
	bool cut = false;
	if (st.st_size - at > most) {
		at = st.st_size - most;
		cut = true;
	}
	struct sbuf b = {0};
	char buf[65536];
	ssize_t r;
	while (b.len < (size_t)most &&
	       (r = pread(fd, buf, sizeof(buf), at + (long long)b.len)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			break;
		sbuf_add(&b, buf, (size_t)r);
	}
	close(fd);
	size_t i = 0;
	if (cut) { /* the first line is a piece */
		char *nl = b.len ? memchr(b.buf, '\n', b.len) : NULL;
		i = nl ? (size_t)(nl - b.buf) + 1 : b.len;
	}
	while (i < b.len) {
		char *nl = memchr(b.buf + i, '\n', b.len - i);
		if (!nl)
			break; /* being written: next time */
		size_t len = (size_t)(nl - b.buf) - i;
		*nl = '\0';
		if (len)
			strvec_push(lines, b.buf + i);
		i += len + 1;
	}
	*from = at + (long long)i;
	sbuf_free(&b);
	return 0;
}

int history_lines(const char *dir, const char *name, struct strvec *lines, long long *size,
		  struct err *e)
{
	char *old = path_of(dir, name, true), *cur = path_of(dir, name, false);
	long long from = 0;
	*size = 0;
	int rc = read_lines(old, lines, &from, e);
	if (rc == 0)
		rc = read_lines(cur, lines, size, e);
	free(old);
	free(cur);
	return rc;
}

int history_more(const char *dir, const char *name, struct strvec *lines, long long *size,
		 struct err *e)
{
	char *cur = path_of(dir, name, false);
	struct stat st;
	int rc = 0;
	if (stat(cur, &st) == 0 && st.st_size < *size) {
		/* Rotated: what the old file got since is in the rotated one,
		 * then the new file from its start. */
		char *old = path_of(dir, name, true);
		rc = read_lines(old, lines, size, e);
		free(old);
		*size = 0;
	}
	if (rc == 0)
		rc = read_lines(cur, lines, size, e);
	free(cur);
	return rc;
}

int history_remove(const char *dir, const char *name, struct err *e)
{
	int rc = 0;
	for (int rot = 0; rot < 2; rot++) {
		char *p = path_of(dir, name, rot);
		if (unlink(p) < 0 && errno != ENOENT)
			rc = err_set(e, ERR_FAILED, "cannot remove %s: %s", p, strerror(errno));
		free(p);
	}
	return rc;
}
