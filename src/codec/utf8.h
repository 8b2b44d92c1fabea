/* utf8.h: the one place that knows UTF-8 (RFC 3629). What a character
 * is, for cutting text: a lead byte with the continuation bytes it calls
 * for, or any other byte alone, a stray continuation byte too. So bytes
 * that are not text are cut like text, and a cut never splits a
 * sequence. Pure functions, unit-tested. */
#ifndef SANDBOX_UTF8_H
#define SANDBOX_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util.h"

/* Length of the well-formed UTF-8 sequence at p (no overlongs, no
 * surrogates, nothing above U+10FFFF), or 0 if there is none. */
size_t utf8_len(const unsigned char *p, size_t n);
/* Whether every byte of s (NUL-ended) is in a well-formed sequence. */
bool utf8_valid(const char *s);
/* A continuation byte: never where a character starts. */
static inline bool utf8_cont(char c)
{
	return ((unsigned char)c & 0xc0) == 0x80;
}

/* The bytes of the control character at p (n > 0 bytes left), or 0 when
 * none starts there: C0 and DEL (1), C1 in UTF-8 (U+0080-U+009F, 2), or
 * a byte 0x80-0x9F in no well-formed sequence (1), which a terminal in
 * an 8-bit mode takes for C1 (0x9B: CSI). */
size_t utf8_control(const unsigned char *p, size_t n);
/* Whether s (NUL-ended) holds a control character (utf8_control). */
bool has_control(const char *s);

/* Decodes the sequence at s (n > 0 bytes left) into *cp and returns its
 * length; a byte that starts no well-formed sequence is 1 byte, and *cp
 * is then bad + the byte (bad: a value past U+10FFFF the caller picks). */
size_t utf8_decode(const unsigned char *s, size_t n, uint32_t *cp, uint32_t bad);
/* Appends code point cp (at most U+10FFFF) to sb. */
void utf8_put(struct sbuf *sb, uint32_t cp);

/* Characters counted as text comes, in pieces. */
struct utf8_count {
	size_t chars;   /* characters counted so far */
	int follow;     /* continuation bytes the last lead still calls for */
};
/* Counts the characters of s[0..n), after those already counted in c;
 * returns how many of its first bytes belong to the first max
 * characters (counted from the first piece). */
size_t utf8_count(struct utf8_count *c, const char *s, size_t n, size_t max);
/* The characters of s[0..n). */
size_t utf8_chars(const char *s, size_t n);
/* The bytes of the first `chars` characters of s[0..n). */
size_t utf8_prefix(const char *s, size_t n, size_t chars);

#endif
