/* utf8.c: see utf8.h. */
#include "utf8.h"

#include <string.h>

size_t utf8_len(const unsigned char *p, size_t n)
{
	unsigned char c = p[0];
	size_t len;
	unsigned char lo = 0x80, hi = 0xbf;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		if (c == 0xe0)
			lo = 0xa0;
		if (c == 0xed)
			hi = 0x9f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		if (c == 0xf0)
			lo = 0x90;
		if (c == 0xf4)
			hi = 0x8f;
	} else
		return 0;
	if (n < len || p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return len;
}

bool utf8_valid(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s);
	for (size_t i = 0, len; i < n; i += len)
		if (!(len = utf8_len(p + i, n - i)))
			return false;
	return true;
}

size_t utf8_control(const unsigned char *p, size_t n)
{
	if (p[0] < 0x20 || p[0] == 0x7f)
		return 1;
	size_t len = utf8_len(p, n);
	if (len == 0)
		return p[0] >= 0x80 && p[0] <= 0x9f;
	return len == 2 && p[0] == 0xc2 && p[1] <= 0x9f ? 2 : 0;
}

bool has_control(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s);
	for (size_t i = 0, len; i < n; i += len ? len : 1) {
		if (utf8_control(p + i, n - i))
			return true;
		len = utf8_len(p + i, n - i);
	}
	return false;
}

size_t utf8_decode(const unsigned char *s, size_t n, uint32_t *cp, uint32_t bad)
{
	size_t len = utf8_len(s, n);
	if (!len) {
		*cp = bad + s[0];
		return 1;
	}
	static const unsigned char lead_mask[] = {0, 0x7f, 0x1f, 0x0f, 0x07};
	uint32_t v = s[0] & lead_mask[len];
	for (size_t i = 1; i < len; i++)
		v = v << 6 | (s[i] & 0x3f);
	*cp = v;
	return len;
}

void utf8_put(struct sbuf *sb, uint32_t cp)
{
	char b[4];
	size_t n;
	if (cp < 0x80) {
		b[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		b[0] = (char)(0xc0 | cp >> 6);
		b[1] = (char)(0x80 | (cp & 0x3f));
		n = 2;
	} else if (cp < 0x10000) {
		b[0] = (char)(0xe0 | cp >> 12);
		b[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		b[2] = (char)(0x80 | (cp & 0x3f));
		n = 3;
	} else {
		b[0] = (char)(0xf0 | cp >> 18);
		b[1] = (char)(0x80 | (cp >> 12 & 0x3f));
		b[2] = (char)(0x80 | (cp >> 6 & 0x3f));
		b[3] = (char)(0x80 | (cp & 0x3f));
		n = 4;
	}
	sbuf_add(sb, b, n);
}

size_t utf8_count(struct utf8_count *c, const char *s, size_t n, size_t max)
{
	size_t keep = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char b = (unsigned char)s[i];
		if ((b & 0xc0) == 0x80 && c->follow > 0) {
			c->follow--;
		} else {
			c->chars++;
			c->follow = b >= 0xc2 && b <= 0xdf ? 1 : b >= 0xe0 && b <= 0xef ? 2
				  : b >= 0xf0 && b <= 0xf4 ? 3 : 0;
		}
		if (c->chars <= max)
			keep = i + 1;
	}
	return keep;
}

size_t utf8_chars(const char *s, size_t n)
{
	struct utf8_count c = {0};
	utf8_count(&c, s, n, 0);
	return c.chars;
}

size_t utf8_prefix(const char *s, size_t n, size_t chars)
{
	struct utf8_count c = {0};
	return utf8_count(&c, s, n, chars);
}
