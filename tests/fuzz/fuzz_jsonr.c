/* fuzz_jsonr.c: a libFuzzer target for the JSON reader (src/codec/jsonr.c).
 *
 * `make fuzz` builds it as build/fuzz/fuzz_jsonr (with clang; on Debian
 * the fuzzer runtime comes with clang, or libclang-rt-14-dev); `make
 * fuzz-check` runs it briefly, `make unit` replays its corpus. To run it
 * longer:
 *   build/fuzz/fuzz_jsonr -max_total_time=600 build/fuzz/corpus_jsonr tests/fuzz/corpus_jsonr
 *
 * (The first corpus directory receives new inputs; the seeds in
 * tests/fuzz/corpus_jsonr stay as they are.)
 *
 * Besides crashes and sanitizer reports, it aborts when:
 * - the reader and an independent grammar check written here disagree,
 *   except where the reader refuses on purpose what the grammar allows
 *   (duplicate keys, numbers beyond a double);
 * - an accepted tree breaks an invariant (strings NUL-ended and valid
 *   UTF-8, finite numbers, is_int agreeing with the double, no equal
 *   keys in an object);
 * - an accepted tree, written back with json.h, does not parse back to
 *   the same tree;
 * - tight limits accept what the defaults refuse, or read it otherwise. */
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "json.h"
#include "jsonr.h"
#include "../unit/jv_equal.h"

/* --- an independent grammar check: recursive, by code point --- */

struct g {
	const uint8_t *s;
	size_t n, i;
	int depth;
};

static int g_peek(struct g *g)
{
	return g->i < g->n ? g->s[g->i] : -1;
}

static void g_ws(struct g *g)
{
	while (g->i < g->n && strchr(" \t\n\r", g->s[g->i]) && g->s[g->i])
		g->i++;
}

/* Decodes one code point from well-formed UTF-8, or returns -1. */
static long g_utf8(struct g *g)
{
	uint8_t c = g->s[g->i];
	int need;
	long cp;
	if (c < 0x80) {
		g->i++;
		return c;
	} else if ((c & 0xe0) == 0xc0) {
		need = 1, cp = c & 0x1f;
	} else if ((c & 0xf0) == 0xe0) {
		need = 2, cp = c & 0x0f;
	} else if ((c & 0xf8) == 0xf0) {
		need = 3, cp = c & 0x07;
	} else {
		return -1;
	}
	if (g->n - g->i <= (size_t)need)
		return -1;
	for (int k = 1; k <= need; k++) {
		uint8_t x = g->s[g->i + (size_t)k];
		if ((x & 0xc0) != 0x80)
			return -1;
		cp = cp << 6 | (x & 0x3f);
	}
	static const long min[] = {0, 0x80, 0x800, 0x10000};
	if (cp < min[need] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return -1;
	g->i += (size_t)need + 1;
	return cp;
}

static long g_hex4(struct g *g)
{
	if (g->n - g->i < 4)
		return -1;
	char buf[5];
	memcpy(buf, g->s + g->i, 4);
	buf[4] = '\0';
	for (int k = 0; k < 4; k++)
		if (!strchr("0123456789abcdefABCDEF", buf[k]) || !buf[k])
			return -1;
	g->i += 4;
	return strtol(buf, NULL, 16);
}

static bool g_string(struct g *g)
{
	g->i++; /* the quote */
	for (;;) {
		if (g->i >= g->n)
			return false;
		uint8_t c = g->s[g->i];
		if (c == '"') {
			g->i++;
			return true;
		}
		if (c < 0x20)
			return false;
		if (c != '\\') {
			if (g_utf8(g) < 0)
				return false;
			continue;
		}
		g->i++;
		if (g->i >= g->n)
			return false;
		c = g->s[g->i++];
		if (c == 'u') {
			long u = g_hex4(g);
			if (u < 0 || (u >= 0xdc00 && u <= 0xdfff))
				return false;
			if (u >= 0xd800 && u <= 0xdbff) {
				if (g->n - g->i < 2 || g->s[g->i] != '\\' || g->s[g->i + 1] != 'u')
					return false;
				g->i += 2;
				long lo = g_hex4(g);
				if (lo < 0xdc00 || lo > 0xdfff)
					return false;
			}
		} else if (!c || !strchr("\"\\/bfnrt", c)) {
			return false;
		}
	}
}

static bool g_digits(struct g *g)
{
	size_t from = g->i;
	while (g_peek(g) >= '0' && g_peek(g) <= '9')
		g->i++;
	return g->i > from;
}

static bool g_number(struct g *g)
{
	if (g_peek(g) == '-')
		g->i++;
	if (g_peek(g) == '0')
		g->i++;
	else if (!g_digits(g))
		return false;
	if (g_peek(g) == '.') {
		g->i++;
		if (!g_digits(g))
			return false;
	}
	if (g_peek(g) == 'e' || g_peek(g) == 'E') {
		g->i++;
		if (g_peek(g) == '+' || g_peek(g) == '-')
			g->i++;
		if (!g_digits(g))
			return false;
	}
	return true;
}

static bool g_word(struct g *g, const char *w)
{
	size_t n = strlen(w);
	if (g->n - g->i < n || memcmp(g->s + g->i, w, n) != 0)
		return false;
	g->i += n;
	return true;
}

static bool g_value(struct g *g)
{
	g_ws(g);
	int c = g_peek(g);
	if (c == '[' || c == '{') {
		if (++g->depth > JV_DEFAULT_MAX_DEPTH)
			return false;
		g->i++;
		g_ws(g);
		int close = c == '[' ? ']' : '}';
		if (g_peek(g) == close) {
			g->i++;
			g->depth--;
			return true;
		}
		for (;;) {
			if (c == '{') {
				g_ws(g);
				if (g_peek(g) != '"' || !g_string(g))
					return false;
				g_ws(g);
				if (g_peek(g) != ':')
					return false;
				g->i++;
			}
			if (!g_value(g))
				return false;
			g_ws(g);
			if (g_peek(g) == ',') {
				g->i++;
				continue;
			}
			if (g_peek(g) != close)
				return false;
			g->i++;
			g->depth--;
			return true;
		}
	}
	if (c == '"')
		return g_string(g);
	if (c == '-' || (c >= '0' && c <= '9'))
		return g_number(g);
	return g_word(g, "true") || g_word(g, "false") || g_word(g, "null");
}

static bool grammar_ok(const uint8_t *s, size_t n)
{
	struct g g = {s, n, 0, 0};
	if (!g_value(&g))
		return false;
	g_ws(&g);
	return g.i == n;
}

/* --- invariants of an accepted tree --- */

static bool valid_utf8(const uint8_t *s, size_t n)
{
	struct g g = {s, n, 0, 0};
	while (g.i < n)
		if (g_utf8(&g) < 0)
			return false;
	return true;
}

static void check_tree(const struct jv *v)
{
	switch (v->type) {
	case JV_NULL:
	case JV_BOOL:
		break;
	case JV_NUMBER:
		CHECK(v->num.text[v->num.text_len] == '\0');
		CHECK(strlen(v->num.text) == v->num.text_len);
		CHECK(isfinite(v->num.d));
		if (v->num.is_int)
			CHECK(v->num.d == (double)v->num.i);
		break;
	case JV_STRING:
		CHECK(v->str.s[v->str.len] == '\0');
		CHECK(valid_utf8((const uint8_t *)v->str.s, v->str.len));
		CHECK((jv_str(v) != NULL) == (memchr(v->str.s, 0, v->str.len) == NULL));
		break;
	case JV_ARRAY:
		CHECK(jv_count(v) == v->arr.count);
		for (size_t i = 0; i < v->arr.count; i++) {
			CHECK(jv_at(v, i) == &v->arr.items[i]);
			check_tree(&v->arr.items[i]);
		}
		break;
	case JV_OBJECT:
		for (size_t i = 0; i < v->obj.count; i++) {
			const struct jv_member *m = &v->obj.members[i];
			CHECK(m->key[m->key_len] == '\0');
			CHECK(valid_utf8((const uint8_t *)m->key, m->key_len));
			CHECK(jv_getn(v, m->key, m->key_len) == &m->value);
			check_tree(&m->value);
		}
		break;
	}
}

static void emit(struct json *j, const struct jv *v)
{
	switch (v->type) {
	case JV_NULL:
		json_null(j);
		break;
	case JV_BOOL:
		json_bool(j, v->b);
		break;
	case JV_NUMBER:
		if (j->need_comma)
			sbuf_addc(&j->out, ',');
		j->need_comma = true;
		sbuf_add(&j->out, v->num.text, v->num.text_len);
		break;
	case JV_STRING:
		json_strn(j, v->str.s, v->str.len);
		break;
	case JV_ARRAY:
		json_arr_open(j);
		for (size_t i = 0; i < v->arr.count; i++)
			emit(j, &v->arr.items[i]);
		json_arr_close(j);
		break;
	case JV_OBJECT:
		json_obj_open(j);
		for (size_t i = 0; i < v->obj.count; i++) {
			const struct jv_member *m = &v->obj.members[i];
			json_keyn(j, m->key, m->key_len);
			emit(j, &m->value);
		}
		json_obj_close(j);
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[256];
	/* A copy of exactly size bytes: no NUL after it to lean on. */
	char *text = malloc(size ? size : 1);
	if (!text)
		return 0;
	memcpy(text, data, size);

	struct jv *v = jv_parse(text, size, NULL, err, sizeof(err));
	bool grammar = grammar_ok(data, size);
	if (v) {
		CHECK(grammar);
		CHECK(valid_utf8(data, size));
		check_tree(v);
		struct json j = {0};
		emit(&j, v);
		char err2[256];
		struct jv *w = jv_parse(j.out.buf, j.out.len, NULL, err2, sizeof(err2));
		if (!w)
			fprintf(stderr, "written back: %s\n", err2);
		CHECK(w && jv_equal(v, w));
		jv_free(w);
		sbuf_free(&j.out);
	} else {
		CHECK(strncmp(err, "at byte ", 8) == 0);
		CHECK(strtoull(err + 8, NULL, 10) <= size);
		/* The grammar allows these two; the reader refuses them on purpose. */
		if (grammar && !strstr(err, "duplicate key") && !strstr(err, "out of the range of a double")) {
			fprintf(stderr, "reader refused valid JSON: %s\n", err);
			abort();
		}
	}

	struct jv_limits tight = {.max_depth = 2, .max_string = 4, .max_members = 3};
	struct jv *t = jv_parse(text, size, &tight, err, sizeof(err));
	if (t) {
		CHECK(v && jv_equal(v, t));
		check_tree(t);
	}
	jv_free(t);
	jv_free(v);
	free(text);
	return 0;
}
