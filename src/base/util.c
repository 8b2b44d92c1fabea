/* util.c: see util.h. */
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

static void oom(void)
{
	static const char msg[] = "sandbox: out of memory\n";
	(void)!write(2, msg, sizeof(msg) - 1);
	_exit(255);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom();
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		oom();
	return p;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

__attribute__((format(printf, 1, 0)))
static char *xvasprintf(const char *fmt, va_list ap)
{
	va_list ap2;
	va_copy(ap2, ap);
/* GCC 12 with -fsanitize=undefined sees a NULL fmt that cannot be
 * (clang has no such warning, and would warn of the unknown name). */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif
	int n = vsnprintf(NULL, 0, fmt, ap2);
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
	va_end(ap2);
	if (n < 0)
		oom();
	char *p = xmalloc((size_t)n + 1);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *p = xvasprintf(fmt, ap);
	va_end(ap);
	return p;
}

static void strvec_grow(struct strvec *sv)
{
	if (sv->n + 2 > sv->cap) {
		sv->cap = sv->cap ? sv->cap * 2 : 16;
		sv->v = xrealloc(sv->v, sv->cap * sizeof(*sv->v));
	}
}

static void strvec_push_owned(struct strvec *sv, char *s)
{
	strvec_grow(sv);
	sv->v[sv->n++] = s;
	sv->v[sv->n] = NULL;
}

void strvec_push(struct strvec *sv, const char *s)
{
	strvec_push_owned(sv, xstrdup(s));
}

void strvec_pushf(struct strvec *sv, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	strvec_push_owned(sv, xvasprintf(fmt, ap));
	va_end(ap);
}

void strvec_push_all(struct strvec *sv, char *const *items, size_t n)
{
	for (size_t i = 0; i < n; i++)
		strvec_push(sv, items[i]);
}

void strvec_clear(struct strvec *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	sv->v = NULL;
	sv->n = sv->cap = 0;
}

char **strvec_argv(struct strvec *sv)
{
	strvec_grow(sv);
	sv->v[sv->n] = NULL;
	return sv->v;
}

static void sbuf_grow(struct sbuf *sb, size_t extra)
{
	if (sb->len + extra + 1 > sb->cap) {
		size_t cap = sb->cap ? sb->cap : 64;
		while (cap < sb->len + extra + 1)
			cap *= 2;
		sb->buf = xrealloc(sb->buf, cap);
		sb->cap = cap;
	}
}

void sbuf_add(struct sbuf *sb, const void *data, size_t n)
{
	sbuf_grow(sb, n);
	if (n)
		memcpy(sb->buf + sb->len, data, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

void sbuf_addc(struct sbuf *sb, char c)
{
	sbuf_add(sb, &c, 1);
}

void sbuf_adds(struct sbuf *sb, const char *s)
{
	sbuf_add(sb, s, strlen(s));
}

void sbuf_addf(struct sbuf *sb, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *p = xvasprintf(fmt, ap);
	va_end(ap);
	sbuf_adds(sb, p);
	free(p);
}

void sbuf_reset(struct sbuf *sb)
{
	sb->len = 0;
	if (sb->buf)
		sb->buf[0] = '\0';
}

void sbuf_free(struct sbuf *sb)
{
	free(sb->buf);
	sb->buf = NULL;
	sb->len = sb->cap = 0;
}

void sbuf_add_printf_b(struct sbuf *sb, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p >= 0x20 && *p < 0x7f && *p != '\\')
			sbuf_addc(sb, (char)*p);
		else
			sbuf_addf(sb, "\\0%03o", *p);
	}
}

void sbuf_rtrim(struct sbuf *sb)
{
	while (sb->len && strchr(" \t\r\n", sb->buf[sb->len - 1]))
		sb->len--;
	if (sb->buf)
		sb->buf[sb->len] = '\0';
}

bool parse_long(const char *s, long min, long max, long *out)
{
	/* strtol would skip leading white space and take a '+'. */
	if (!s || !(*s == '-' || (*s >= '0' && *s <= '9')))
		return false;
	errno = 0;
	char *end;
	long v = strtol(s, &end, 10);
	if (errno || *end || end == s || v < min || v > max)
		return false;
	*out = v;
	return true;
}

bool parse_seconds(const char *s, double *out)
{
	if (!s || !*s || !strchr("0123456789.", *s))
		return false;
	for (const char *p = s; *p; p++)
		if (!strchr("0123456789.", *p))
			return false;
	errno = 0;
	char *end;
	double v = strtod(s, &end);
	if (errno || *end || end == s || !isfinite(v) || v < 0 || v > SECONDS_MAX)
		return false;
	*out = v;
	return true;
}

bool parse_duration(const char *s, long *out)
{
	if (!s || !*s)
		return false;
	size_t n = strlen(s);
	long unit = 1;
	switch (s[n - 1]) {
	case 's': unit = 1; n--; break;
	case 'm': unit = 60; n--; break;
	case 'h': unit = 3600; n--; break;
	case 'd': unit = 86400; n--; break;
	default: break;
	}
	if (n == 0 || n > 18)
		return false;
	char num[20];
	memcpy(num, s, n);
	num[n] = '\0';
	long v;
	if (!parse_long(num, 0, LONG_MAX / 86400, &v))
		return false;
	*out = v * unit;
	return true;
}

int random_hex(char *buf, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char raw[64];
	if (n > sizeof(raw))
		return -1;
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	size_t got = 0;
	while (got < n) {
		ssize_t r = read(fd, raw + got, n - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			close(fd);
			return -1;
		}
		got += (size_t)r;
	}
	close(fd);
	for (size_t i = 0; i < n; i++)
		buf[i] = hex[raw[i] & 15];
	buf[n] = '\0';
	return 0;
}

bool write_some(int fd, const char *buf, size_t len, size_t *off)
{
	while (*off < len) {
		ssize_t w = write(fd, buf + *off, len - *off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EAGAIN)
			return true;
		if (w <= 0)
			return false;
		*off += (size_t)w;
	}
	return true;
}

int write_all(int fd, const void *buf, size_t n)
{
	const char *p = buf;
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int make_dirs(const char *dir)
{
	char *p = xstrdup(dir);
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		mkdir(p, 0700);
		*s = '/';
	}
	int rc = mkdir(p, 0700) == 0 || errno == EEXIST ? 0 : -1;
	free(p);
	return rc;
}

int disk_room(int fd, unsigned long long more, unsigned long long *avail,
	      unsigned long long *reserve)
{
	struct statvfs fs;
	if (fstatvfs(fd, &fs) < 0)
		return -1;
	unsigned long long unit = fs.f_frsize ? fs.f_frsize : fs.f_bsize;
	*avail = (unsigned long long)fs.f_bavail * unit;
	*reserve = (unsigned long long)fs.f_blocks * unit / DISK_RESERVE_SHARE;
	/* Its inodes keep the same share, where it counts them. */
	if (fs.f_files && fs.f_favail < fs.f_files / DISK_RESERVE_SHARE)
		return 1;
	return *avail >= *reserve && *avail - *reserve >= more ? 0 : 1;
}
