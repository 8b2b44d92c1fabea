/* mcp_result.c: see mcp_result.h. */
#include "mcp_result.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "jvb.h"
#include "utf8.h"
#include "util.h"

/* Keeps the first and last limit/2 characters of text (UTF-8 already),
 * and says how many were cut between them. */
static void cap_text(struct sbuf *text, long limit)
{
	size_t chars = utf8_chars(text->buf, text->len);
	if (chars <= (size_t)limit)
		return;
	size_t keep = (size_t)limit / 2, tail = text->len;
	size_t head = utf8_prefix(text->buf, text->len, keep);
	for (size_t n = 0; tail > 0;)
		if (!utf8_cont(text->buf[--tail]) && ++n == keep)
			break;
	struct sbuf out = {0};
	sbuf_add(&out, text->buf, head);
	sbuf_addf(&out, "\n[... %zu characters cut ...]\n", chars - 2 * keep);
	sbuf_add(&out, text->buf + tail, text->len - tail);
	sbuf_free(text);
	*text = out;
}

/* The result of a call: text for the model, the CLI's JSON object as
 * structuredContent, and isError. */
static void tool_result(struct sbuf *res, const struct sbuf *text, const char *structured,
			size_t slen, bool is_error)
{
	sbuf_adds(res, "{\"content\":[{\"type\":\"text\",\"text\":");
	json_quote(res, text->buf ? text->buf : "", text->len);
	sbuf_adds(res, "}],\"structuredContent\":");
	sbuf_add(res, structured, slen);
	sbuf_addf(res, ",\"isError\":%s}", is_error ? "true" : "false");
}

void mcp_error_result(struct sbuf *res, const struct err *e, const char *ref)
{
	struct json j = {0};
	json_err(&j, e, ref);
	struct sbuf text = {0};
	sbuf_addf(&text, "error: %s", e->msg);
	tool_result(res, &text, j.out.buf, j.out.len, true);
	sbuf_free(&text);
	sbuf_free(&j.out);
}

/* Each byte of a string that is not UTF-8 as U+FFFD itself: what a
 * client reads where json.h writes \\ufffd. The text and the tree get it
 * before they are capped, so that the cap counts what the client gets
 * (as it did when the result was read back from the --json object).
 * False, with out untouched, when s is UTF-8 already. */
static bool fix_utf8(struct sbuf *out, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, len;
	while (i < n && (len = utf8_len(p + i, n - i)))
		i += len;
	if (i == n)
		return false;
	sbuf_add(out, s, i);
	while (i < n) {
		len = utf8_len(p + i, n - i);
		if (len)
			sbuf_add(out, s + i, len);
		else
			sbuf_adds(out, "\xef\xbf\xbd");
		i += len ? len : 1;
	}
	return true;
}

/* The strings of v so fixed; the new ones kept in *kept. */
static void fix_tree(struct jv *v, struct sbuf **kept, size_t *n)
{
	struct sbuf s = {0};
	if (v->type == JV_STRING && fix_utf8(&s, v->str.s, v->str.len)) {
		*kept = xrealloc(*kept, (*n + 1) * sizeof(**kept));
		(*kept)[(*n)++] = s;
		v->str.s = s.buf;
		v->str.len = s.len;
	} else if (v->type == JV_ARRAY) {
		for (size_t i = 0; i < v->arr.count; i++)
			fix_tree(&v->arr.items[i], kept, n);
	} else if (v->type == JV_OBJECT) {
		for (size_t i = 0; i < v->obj.count; i++)
			fix_tree(&v->obj.members[i].value, kept, n);
	}
}

void mcp_result(struct sbuf *res, const struct sbuf *text, struct jv *tree, long output_limit,
		bool is_error)
{
	struct sbuf t = {0}, *kept = NULL;
	size_t nkept = 0;
	if (!fix_utf8(&t, text->buf ? text->buf : "", text->len))
		sbuf_add(&t, text->buf ? text->buf : "", text->len);
	cap_text(&t, output_limit);
	fix_tree(tree, &kept, &nkept);
	struct json capped = {0};
	json_jv(&capped, tree, (size_t)output_limit);
	tool_result(res, &t, capped.out.buf, capped.out.len, is_error);
	for (size_t i = 0; i < nkept; i++)
		sbuf_free(&kept[i]);
	free(kept);
	sbuf_free(&capped.out);
	sbuf_free(&t);
}
