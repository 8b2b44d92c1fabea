/* util.h: allocation that cannot fail, growable argv and byte buffers,
 * strict number parsing, randomness. Everything here is pure or
 * exits on out-of-memory; nothing prints except xalloc failures. */
#ifndef SANDBOX_UTIL_H
#define SANDBOX_UTIL_H

#include <stdbool.h>
#include <stddef.h>

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

void *xmalloc(size_t n);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A growable, always NULL-terminated vector of owned strings. */
struct strvec {
	char **v;
	size_t n, cap;
};
void strvec_push(struct strvec *sv, const char *s);
void strvec_pushf(struct strvec *sv, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void strvec_push_all(struct strvec *sv, char *const *items, size_t n);
void strvec_clear(struct strvec *sv);
/* The vector as argv; never NULL, even when empty. */
char **strvec_argv(struct strvec *sv);

/* A growable byte buffer, always NUL-terminated after len bytes. */
struct sbuf {
	char *buf;
	size_t len, cap;
};
void sbuf_add(struct sbuf *sb, const void *data, size_t n);
void sbuf_addc(struct sbuf *sb, char c);
void sbuf_adds(struct sbuf *sb, const char *s);
void sbuf_addf(struct sbuf *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void sbuf_reset(struct sbuf *sb);
void sbuf_free(struct sbuf *sb);
/* Drop trailing whitespace (newlines of engine output). */
void sbuf_rtrim(struct sbuf *sb);
/* Appends s with every byte that is not printable ASCII, and the
 * backslash, as \0ooo: what printf %b turns back into those bytes in any
 * sh. For values that must cross a channel of text: a JSON argv (not
 * UTF-8), a line (a newline). */
void sbuf_add_printf_b(struct sbuf *sb, const char *s);

/* Strict parsers: the whole string must be a number in range. */
bool parse_long(const char *s, long min, long max, long *out);
/* Seconds with an optional fraction, "1.5"; from 0 to SECONDS_MAX (a
 * day in seconds times 10000: beyond that a timeout is a typo). */
#define SECONDS_MAX 864000000
bool parse_seconds(const char *s, double *out);
/* "90", "90s", "15m", "2h", "7d" into seconds. */
bool parse_duration(const char *s, long *out);

/* Fill buf with n random lowercase hex digits and a NUL; -1 on failure. */
int random_hex(char *buf, size_t n);

/* Write all of buf to fd, retrying on EINTR and short writes. */
int write_all(int fd, const void *buf, size_t n);
/* Writes buf[*off..len) to a non-blocking fd as far as it takes now,
 * moving *off; false when the reader is gone (or another error). */
bool write_some(int fd, const char *buf, size_t len, size_t *off);

/* Monotonic clock in milliseconds. */
long long now_ms(void);

/* mkdir -p, mode 0700 for each directory it makes: 0, or -1 when dir is
 * not there at the end. */
int make_dirs(const char *dir);

/* The share of a filesystem that what sandbox writes on the host (apply,
 * cp out) leaves free: a twentieth of its size. */
#define DISK_RESERVE_SHARE 20
/* Whether more bytes still fit on fd's filesystem above its reserve (and
 * a twentieth of its inodes stays free too):
 * 0 when they do, 1 when not (*avail and *reserve then say why), -1
 * with errno when the filesystem cannot be asked. */
int disk_room(int fd, unsigned long long more, unsigned long long *avail,
	      unsigned long long *reserve);

#endif
