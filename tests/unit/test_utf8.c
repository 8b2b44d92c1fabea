/* test_utf8.c: the UTF-8 module: decode and put round-trip every code
 * point; every malformed form is refused as RFC 3629 says; characters
 * are counted and cut as utf8.h says. */
#include <string.h>

#include "tap.h"
#include "utf8.h"

#define BAD 0x110000u

static void test_round_trip(void)
{
	bool good = true;
	for (uint32_t cp = 0; cp <= 0x10ffff && good; cp++) {
		if (cp >= 0xd800 && cp <= 0xdfff)
			continue;
		struct sbuf b = {0};
		utf8_put(&b, cp);
		uint32_t got;
		size_t len = utf8_decode((const unsigned char *)b.buf, b.len, &got, BAD);
		size_t want = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
		if (len != b.len || b.len != want || got != cp ||
		    utf8_len((const unsigned char *)b.buf, b.len) != want) {
			diag("U+%04X: %zu bytes, decoded %zu bytes as U+%04X", (unsigned)cp, b.len, len,
			     (unsigned)got);
			good = false;
		}
		sbuf_free(&b);
	}
	ok(good, "every code point but the surrogates: put, then decoded back, in its length");
}

static void bad(const char *s, size_t n, const char *what)
{
	uint32_t cp;
	size_t len = utf8_decode((const unsigned char *)s, n, &cp, BAD);
	ok(len == 1 && cp == BAD + (unsigned char)s[0] && utf8_len((const unsigned char *)s, n) == 0,
	   "refused, one byte: %s", what);
}

static void test_malformed(void)
{
	bad("\xc0\x80", 2, "overlong NUL");
	bad("\xc1\xbf", 2, "overlong 2 bytes");
	bad("\xe0\x9f\xbf", 3, "overlong 3 bytes");
	bad("\xf0\x8f\xbf\xbf", 4, "overlong 4 bytes");
	bad("\xed\xa0\x80", 3, "a surrogate, U+D800");
	bad("\xed\xbf\xbf", 3, "a surrogate, U+DFFF");
	bad("\xf4\x90\x80\x80", 4, "past U+10FFFF");
	bad("\xf5\x80\x80\x80", 4, "lead byte F5");
	bad("\xff", 1, "byte FF");
	bad("\x80", 1, "a stray continuation byte");
	bad("\xe2\x82", 2, "cut short");
	bad("\xe2\x28\xa1", 3, "a continuation byte missing");
	ok(utf8_valid("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80") && utf8_valid(""),
	   "utf8_valid: text, and nothing");
	ok(!utf8_valid("caf\xc3") && !utf8_valid("\xed\xa0\x80"), "utf8_valid: cut short, a surrogate");
}

static void test_chars(void)
{
	const char *s = "a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80z"; /* a é € 😀 z */
	size_t n = strlen(s);
	ok(utf8_chars(s, n) == 5, "five characters in 1+2+3+4+1 bytes");
	ok(utf8_prefix(s, n, 0) == 0 && utf8_prefix(s, n, 1) == 1 && utf8_prefix(s, n, 2) == 3 &&
		   utf8_prefix(s, n, 3) == 6 && utf8_prefix(s, n, 4) == 10 && utf8_prefix(s, n, 9) == n,
	   "a prefix ends between characters");
	ok(utf8_chars("\x80\x80\x80", 3) == 3 && utf8_prefix("\x80\x80\x80", 3, 2) == 2,
	   "stray continuation bytes are a character each");
	ok(utf8_chars("\xe2\x82", 2) == 1 && utf8_prefix("\xe2\x82\x80\x80", 4, 1) == 3,
	   "a lead byte takes the continuation bytes it calls for, no more");
}

static void test_control(void)
{
	ok(!has_control(""), "has_control: empty");
	ok(!has_control("plain text ~"), "has_control: printable ASCII");
	ok(!has_control("\xc3\xa9\xe2\x82\xac"), "has_control: UTF-8 is not control");
	ok(has_control("a\tb"), "has_control: tab");
	ok(has_control("a\n"), "has_control: newline");
	ok(has_control("\x1b[0m"), "has_control: ESC");
	ok(has_control("\x7f"), "has_control: DEL");
	ok(has_control("a\xc2\x9b" "31m") && has_control("\xc2\x80") && has_control("\xc2\x9f"),
	   "has_control: C1 in UTF-8 (U+0080-U+009F; U+009B is CSI)");
	ok(!has_control("\xc2\xa0\xc4\x81\xc4\x9b\xe2\x80\x9c"),
	   "has_control: 0x80-0x9F continuing a sequence is not C1 (NBSP, a with macron, e with caron, a quote)");
	ok(has_control("a\x9b" "31m") && has_control("\xe2\x82\x9b\x9b"),
	   "has_control: a stray 0x80-0x9F byte, an 8-bit terminal's C1");
	ok(!has_control("\xa0\xff\xe9"), "has_control: other stray bytes are not control");
	const unsigned char c1[] = {0xc2, 0x9b, 'x'}, stray[] = {0x9b}, cont[] = {0xc4, 0x9b};
	ok(utf8_control(c1, 3) == 2 && utf8_control(stray, 1) == 1 && utf8_control(cont, 2) == 0 &&
		   utf8_control(c1, 1) == 0 && utf8_control((const unsigned char *)"\t", 1) == 1,
	   "utf8_control: the length of the control character, C1 two bytes");
}

int main(void)
{
	test_round_trip();
	test_malformed();
	test_chars();
	test_control();
	return done_testing();
}
