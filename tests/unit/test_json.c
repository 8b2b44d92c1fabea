/* test_json.c: the JSON writer: escapes, control characters, invalid
 * UTF-8 turned into U+FFFD one byte at a time, valid UTF-8 kept, and the
 * commas between members and elements. */
#include <limits.h>
#include <string.h>

#include "json.h"
#include "tap.h"
#include "util.h"

#define FFFD "\\ufffd"

/* json_quote of n bytes of in equals the literal exp (quotes included). */
static void quotes(const char *in, size_t n, const char *exp, const char *title)
{
	struct sbuf out = {0};
	json_quote(&out, in, n);
	is_str(out.buf, exp, "%s", title);
	sbuf_free(&out);
}

#define Q(lit, exp, title) quotes(lit, sizeof(lit) - 1, exp, title)

static void test_escapes(void)
{
	Q("", "\"\"", "empty string");
	Q("plain text", "\"plain text\"", "plain ASCII is kept");
	Q("a\"b", "\"a\\\"b\"", "a quote is escaped");
	Q("a\\b", "\"a\\\\b\"", "a backslash is escaped");
	Q("\\\"", "\"\\\\\\\"\"", "backslash then quote");
	Q("a/b", "\"a/b\"", "a slash is kept");
	Q("\n", "\"\\n\"", "newline is \\n");
	Q("\t", "\"\\t\"", "tab is \\t");
	Q("\r", "\"\\r\"", "carriage return is \\r");
	Q("\b\f", "\"\\u0008\\u000c\"", "backspace and form feed as \\u00XX");
	Q("\x01", "\"\\u0001\"", "0x01 is \\u0001");
	Q("\x1b[31m", "\"\\u001b[31m\"", "ESC is \\u001b");
	Q("\x1f", "\"\\u001f\"", "0x1f is \\u001f");
	Q("\x7f", "\"\\u007f\"", "DEL is \\u007f");
	Q(" ~", "\" ~\"", "0x20 and 0x7e are kept");
	Q("a\0b", "\"a\\u0000b\"", "an embedded NUL is \\u0000");

	/* Every byte below 0x20 is escaped, so the output has no raw control byte. */
	char all[32];
	for (int i = 0; i < 32; i++)
		all[i] = (char)i;
	struct sbuf out = {0};
	json_quote(&out, all, sizeof(all));
	bool raw = false;
	for (size_t i = 0; i < out.len; i++)
		if ((unsigned char)out.buf[i] < 0x20)
			raw = true;
	ok(!raw, "no raw control byte survives");
	ok(out.len == 2 + 3 * 2 + 29 * 6, "3 short escapes and 29 \\u00XX escapes");
	sbuf_free(&out);
}

static void test_utf8(void)
{
	/* Kept: every boundary of the well-formed ranges (RFC 3629). */
	Q("\xc2\x80", "\"\xc2\x80\"", "U+0080 (C2 80) kept");
	Q("\xc3\xa9t\xc3\xa9", "\"\xc3\xa9t\xc3\xa9\"", "U+00E9 kept");
	Q("\xdf\xbf", "\"\xdf\xbf\"", "U+07FF (DF BF) kept");
	Q("\xe0\xa0\x80", "\"\xe0\xa0\x80\"", "U+0800 (E0 A0 80) kept");
	Q("\xe2\x82\xac", "\"\xe2\x82\xac\"", "U+20AC euro sign kept");
	Q("\xed\x9f\xbf", "\"\xed\x9f\xbf\"", "U+D7FF (ED 9F BF) kept");
	Q("\xee\x80\x80", "\"\xee\x80\x80\"", "U+E000 (EE 80 80) kept");
	Q("\xef\xbf\xbf", "\"\xef\xbf\xbf\"", "U+FFFF (EF BF BF) kept");
	Q("\xf0\x90\x80\x80", "\"\xf0\x90\x80\x80\"", "U+10000 (F0 90 80 80) kept");
	Q("\xf0\x9f\x98\x80", "\"\xf0\x9f\x98\x80\"", "U+1F600 emoji kept");
	Q("\xf4\x8f\xbf\xbf", "\"\xf4\x8f\xbf\xbf\"", "U+10FFFF (F4 8F BF BF) kept");
	Q("a\xe2\x82\xac\"\xc3\xa9\n", "\"a\xe2\x82\xac\\\"\xc3\xa9\\n\"",
	  "multibyte mixed with escapes");

	/* Replaced, one U+FFFD per byte that starts no well-formed sequence. */
	Q("\x80", "\"" FFFD "\"", "a lone continuation byte");
	Q("a\xbf" "b", "\"a" FFFD "b\"", "a lone continuation between ASCII");
	Q("\x80\x80\x80", "\"" FFFD FFFD FFFD "\"", "three continuation bytes");
	Q("\xc0\x80", "\"" FFFD FFFD "\"", "overlong NUL (C0 80)");
	Q("\xc1\xbf", "\"" FFFD FFFD "\"", "overlong (C1 BF)");
	Q("\xc0\xaf", "\"" FFFD FFFD "\"", "overlong slash (C0 AF)");
	Q("\xe0\x80\xaf", "\"" FFFD FFFD FFFD "\"", "overlong slash (E0 80 AF)");
	Q("\xe0\x9f\xbf", "\"" FFFD FFFD FFFD "\"", "overlong U+07FF (E0 9F BF)");
	Q("\xf0\x80\x80\xaf", "\"" FFFD FFFD FFFD FFFD "\"", "overlong slash (F0 80 80 AF)");
	Q("\xf0\x8f\xbf\xbf", "\"" FFFD FFFD FFFD FFFD "\"", "overlong U+FFFF (F0 8F BF BF)");
	Q("\xed\xa0\x80", "\"" FFFD FFFD FFFD "\"", "surrogate U+D800 (ED A0 80)");
	Q("\xed\xbf\xbf", "\"" FFFD FFFD FFFD "\"", "surrogate U+DFFF (ED BF BF)");
	Q("\xed\xa0\xbd\xed\xb8\x80", "\"" FFFD FFFD FFFD FFFD FFFD FFFD "\"",
	  "a CESU-8 surrogate pair");
	Q("\xf4\x90\x80\x80", "\"" FFFD FFFD FFFD FFFD "\"", "U+110000 (F4 90 80 80), above U+10FFFF");
	Q("\xf5\x80\x80\x80", "\"" FFFD FFFD FFFD FFFD "\"", "F5 lead byte");
	Q("\xf7\xbf\xbf\xbf", "\"" FFFD FFFD FFFD FFFD "\"", "F7 lead byte");
	Q("\xf8\x88\x80\x80\x80", "\"" FFFD FFFD FFFD FFFD FFFD "\"", "5-byte form");
	Q("\xfe\xff", "\"" FFFD FFFD "\"", "FE and FF");
	Q("\xc3", "\"" FFFD "\"", "truncated 2-byte sequence at the end");
	Q("\xe2\x82", "\"" FFFD FFFD "\"", "truncated 3-byte sequence at the end");
	Q("\xf0\x9f\x98", "\"" FFFD FFFD FFFD "\"", "truncated 4-byte sequence at the end");
	Q("\xc3x", "\"" FFFD "x\"", "2-byte lead followed by ASCII");
	Q("\xe2\x82x", "\"" FFFD FFFD "x\"", "3-byte sequence cut by ASCII");
	Q("\xe2\x82\"", "\"" FFFD FFFD "\\\"\"", "3-byte sequence cut by a quote, still escaped");
	Q("\xf0\x9f\x98\n", "\"" FFFD FFFD FFFD "\\n\"", "4-byte sequence cut by a newline");
	Q("\xe2\xe2\x82\xac", "\"" FFFD "\xe2\x82\xac\"", "a bad lead, then a good sequence");
	Q("\xc3\xc3\xa9", "\"" FFFD "\xc3\xa9\"", "a 2-byte lead, then a good 2-byte sequence");

	/* n bounds the read: a sequence cut by n is invalid. */
	const char euro[] = "\xe2\x82\xac";
	quotes(euro, 2, "\"" FFFD FFFD "\"", "a sequence cut by the length is replaced");
	quotes(euro, 3, "\"\xe2\x82\xac\"", "the whole sequence within the length is kept");
	quotes("abc", 0, "\"\"", "length 0 gives an empty string");
}

/* An independent check that out is one valid JSON string literal in
 * well-formed UTF-8: decodes each code point and checks its range. */
static bool valid_literal(const unsigned char *s, size_t n)
{
	if (n < 2 || s[0] != '"' || s[n - 1] != '"')
		return false;
	for (size_t i = 1; i < n - 1;) {
		unsigned char c = s[i];
		if (c == '"' || c < 0x20)
			return false;
		if (c == '\\') {
			if (i + 1 >= n - 1)
				return false;
			unsigned char x = s[i + 1];
			if (x == 'u') {
				if (i + 6 > n - 1)
					return false;
				for (size_t k = i + 2; k < i + 6; k++)
					if (!strchr("0123456789abcdefABCDEF", s[k]) || !s[k])
						return false;
				i += 6;
			} else if (x && strchr("\"\\/bfnrt", x)) {
				i += 2;
			} else {
				return false;
			}
			continue;
		}
		size_t len = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3
			   : (c & 0xf8) == 0xf0 ? 4 : 0;
		if (len == 0 || i + len > n - 1)
			return false;
		unsigned long cp = len == 1 ? c : len == 2 ? c & 0x1f : len == 3 ? c & 0x0f : c & 0x07;
		for (size_t k = 1; k < len; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (s[i + k] & 0x3f);
		}
		static const unsigned long min[] = {0, 0, 0x80, 0x800, 0x10000};
		if (cp < min[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return false;
		i += len;
	}
	return true;
}

/* Random bytes, biased towards UTF-8 lead and continuation bytes: the
 * output is always a valid literal, and ASCII letters pass unchanged. */
static void test_random(void)
{
	unsigned long x = 88172645463325252UL;
	int bad = 0, lost = 0;
	for (int round = 0; round < 20000; round++) {
		unsigned char in[24];
		size_t n = (size_t)(round % 24);
		size_t letters = 0;
		for (size_t i = 0; i < n; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			unsigned r = (unsigned)(x >> 11);
			static const unsigned char pick[] = {0x80, 0xbf, 0xc2, 0xdf, 0xe0, 0xed,
							     0xef, 0xf0, 0xf4, 0xa0, 0x9f, 0x8f, 0x90};
			in[i] = r % 3 == 0 ? pick[(r >> 2) % sizeof(pick)] : (unsigned char)(r >> 4);
			if (in[i] == 'q')
				letters++;
		}
		struct sbuf out = {0};
		json_quote(&out, (const char *)in, n);
		if (!valid_literal((const unsigned char *)out.buf, out.len))
			bad++;
		size_t seen = 0;
		for (size_t i = 0; i < out.len; i++)
			if (out.buf[i] == 'q')
				seen++;
		if (seen != letters)
			lost++;
		sbuf_free(&out);
	}
	is_int(bad, 0, "20000 random byte strings: every output is a valid JSON literal in well-formed UTF-8");
	is_int(lost, 0, "20000 random byte strings: ASCII bytes are never swallowed");
}

/* json_quoted_len says how long json_quote's literal is, without it. */
static void test_quoted_len(void)
{
	unsigned long x = 2463534242UL;
	int bad = 0;
	for (int round = 0; round < 20000; round++) {
		unsigned char in[40];
		size_t n = (size_t)(round % 40);
		for (size_t i = 0; i < n; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			static const unsigned char pick[] = {'"', '\\', '\n', '\t', '\r', 0x01, 0x7f, 0x80,
							     0xc3, 0xa9, 0xe6, 0x97, 0xa5, 0xf0, 0x9f, 'a'};
			in[i] = x % 2 ? pick[(x >> 3) % sizeof(pick)] : (unsigned char)(x >> 5);
		}
		struct sbuf out = {0};
		json_quote(&out, (const char *)in, n);
		if (json_quoted_len((const char *)in, n) != out.len)
			bad++;
		sbuf_free(&out);
	}
	is_int(bad, 0, "json_quoted_len: the length of json_quote's literal, for 20000 random byte strings");
}

static void test_structure(void)
{
	struct json j = {0};
	json_obj_open(&j);
	json_key(&j, "a");
	json_int(&j, 1);
	json_key(&j, "b");
	json_arr_open(&j);
	json_str(&j, "x");
	json_int(&j, -2);
	json_bool(&j, true);
	json_bool(&j, false);
	json_null(&j);
	json_obj_open(&j);
	json_obj_close(&j);
	json_arr_open(&j);
	json_arr_close(&j);
	json_obj_open(&j);
	json_key(&j, "k");
	json_str(&j, "v");
	json_obj_close(&j);
	json_arr_close(&j);
	json_key(&j, "c\"d");
	json_strn(&j, "a\0b", 3);
	json_key(&j, "e");
	json_obj_open(&j);
	json_key(&j, "f");
	json_null(&j);
	json_key(&j, "g");
	json_int(&j, LLONG_MIN);
	json_obj_close(&j);
	json_key(&j, "h");
	json_int(&j, LLONG_MAX);
	json_obj_close(&j);
	is_str(j.out.buf,
	       "{\"a\":1,\"b\":[\"x\",-2,true,false,null,{},[],{\"k\":\"v\"}],"
	       "\"c\\\"d\":\"a\\u0000b\",\"e\":{\"f\":null,\"g\":-9223372036854775808},"
	       "\"h\":9223372036854775807}",
	       "nested objects and arrays: commas between members and elements only");
	sbuf_free(&j.out);

	struct json d = {0};
	json_arr_open(&d);
	json_double(&d, 0.5);
	json_double(&d, 120);
	json_double(&d, 0.1);
	json_double(&d, 1.0 / 0.0);
	json_double(&d, 0.0 / 0.0);
	json_arr_close(&d);
	is_str(d.out.buf, "[0.5,120,0.10000000000000001,null,null]",
	       "json_double: exact, and null for what JSON cannot hold");
	sbuf_free(&d.out);

	j = (struct json){0};
	json_obj_open(&j);
	json_obj_close(&j);
	is_str(j.out.buf, "{}", "an empty object");
	sbuf_free(&j.out);

	j = (struct json){0};
	json_arr_open(&j);
	json_obj_open(&j);
	json_key(&j, "n");
	json_int(&j, 0);
	json_obj_close(&j);
	json_obj_open(&j);
	json_key(&j, "n");
	json_int(&j, 1);
	json_obj_close(&j);
	json_arr_close(&j);
	is_str(j.out.buf, "[{\"n\":0},{\"n\":1}]", "an array of objects");
	sbuf_free(&j.out);

	j = (struct json){0};
	json_obj_open(&j);
	json_key(&j, "workspace");
	json_str(&j, "sandbox-0123456789ab");
	json_key(&j, "stdout");
	json_strn(&j, "\xff\n", 2);
	json_key(&j, "timed_out");
	json_bool(&j, false);
	json_obj_close(&j);
	is_str(j.out.buf,
	       "{\"workspace\":\"sandbox-0123456789ab\",\"stdout\":\"" FFFD "\\n\",\"timed_out\":false}",
	       "an exec-like object");
	sbuf_free(&j.out);
}

int main(void)
{
	test_escapes();
	test_utf8();
	test_random();
	test_quoted_len();
	test_structure();
	return done_testing();
}
