/* cmd_edit.c: `edit`, an exact replacement of text in a file of the
 * workspace. The file is read, the match found here (bytes, exactly),
 * and the result written back atomically, refused if the file changed in
 * between: one match unless --all, never a guess. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "diff.h"
#include "feed.h"
#include "opt_id.h"
#include "results.h"
#include "sha256.h"
#include "scripts.h"
#include "tools.h"

/* Bytes of a file edit holds, before and after. The file, its new
 * content and the diff are all in memory at once: at 8 MiB the peak
 * stays under 32 MiB whatever the workspace's file holds. */
#define EDIT_MAX (8 * 1024 * 1024)
#define EDIT_LINES_SHOWN 20
#define EDIT_DIFF_MAX (1024 * 1024)  /* bytes of diff shown; past them, a summary */

struct slurp {
	struct sbuf data;
	bool too_big;
};

static int slurp_body(void *ctx, const char *buf, size_t n)
{
	struct slurp *s = ctx;
	if (s->data.len + n > EDIT_MAX) {
		s->too_big = true;
		return -1;
	}
	sbuf_add(&s->data, buf, n);
	return 0;
}

static const char *find(const char *hay, size_t hn, const char *needle, size_t nn)
{
	if (nn == 0 || nn > hn)
		return NULL;
	const char *last = hay + (hn - nn); /* the last place a match can start */
	for (const char *p = hay; p <= last; p++) {
		p = memchr(p, needle[0], (size_t)(last - p) + 1);
		if (!p)
			return NULL;
		if (memcmp(p, needle, nn) == 0)
			return p;
	}
	return NULL;
}

static long line_of(const char *buf, size_t off)
{
	long line = 1;
	for (size_t i = 0; i < off; i++)
		line += buf[i] == '\n';
	return line;
}

/* LF into CRLF, for a file that uses CRLF. */
static void to_crlf(struct sbuf *t)
{
	struct sbuf out = {0};
	for (size_t i = 0; i < t->len; i++) {
		if (t->buf[i] == '\n' && (i == 0 || t->buf[i - 1] != '\r'))
			sbuf_addc(&out, '\r');
		sbuf_addc(&out, t->buf[i]);
	}
	sbuf_free(t);
	*t = out;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}

/* When there is no exact match: the line where the old text starts if
 * white space and line endings are ignored, or 0. */
static long near_miss(const struct sbuf *file, const struct sbuf *old)
{
	struct sbuf f = {0}, o = {0};
	for (size_t i = 0; i < file->len; i++)
		if (!is_space(file->buf[i]))
			sbuf_addc(&f, file->buf[i]);
	for (size_t i = 0; i < old->len; i++)
		if (!is_space(old->buf[i]))
			sbuf_addc(&o, old->buf[i]);
	const char *hit = o.len ? find(f.buf ? f.buf : "", f.len, o.buf, o.len) : NULL;
	long at = 0;
	/* The line of the file that holds the hit's first byte: counted
	 * again, rather than kept for each byte (8 times the file). */
	size_t k = hit ? (size_t)(hit - f.buf) : 0;
	for (size_t i = 0, line = 1; hit && i < file->len; i++) {
		if (!is_space(file->buf[i]) && k-- == 0) {
			at = (long)line;
			break;
		}
		line += file->buf[i] == '\n';
	}
	sbuf_free(&f);
	sbuf_free(&o);
	return at;
}

static int no_match(const char *shown, const struct sbuf *file, const struct sbuf *old,
		    struct err *e)
{
	long near = near_miss(file, old);
	if (near)
		return err_set(e, ERR_FAILED, "%s: the old text is not in the file; it matches at line %ld if white space and line endings are ignored: copy it exactly",
			       shown, near);
	return err_set(e, ERR_FAILED, "%s: the old text is not in the file; read the file and copy the text exactly", shown);
}

static int many_matches(const struct app *a, const char *shown, const struct sbuf *file,
			const char **hits, size_t n, struct err *e)
{
	struct sbuf lines = {0};
	for (size_t i = 0; i < n && i < EDIT_LINES_SHOWN; i++)
		sbuf_addf(&lines, "%s%ld", i ? ", " : "", line_of(file->buf, (size_t)(hits[i] - file->buf)));
	if (n > EDIT_LINES_SHOWN)
		sbuf_adds(&lines, ", ...");
	err_set(e, ERR_FAILED, "%s: %zu matches of the old text (lines %s); %s %s or add context to make it unique",
		shown, n, lines.buf, a->mcp ? "set" : "pass", opt_say(a, O_ALL));
	sbuf_free(&lines);
	return -1;
}

void edit_omitted_note(struct sbuf *out, long long line, long long old_lines,
		       long long new_lines)
{
	sbuf_addf(out, "(diff omitted: over %d MiB; from line %lld, %lld line%s became %lld)\n",
		  EDIT_DIFF_MAX >> 20, line, old_lines, old_lines == 1 ? "" : "s", new_lines);
}

/* Finds the matches and builds the new content; -1 with e set unless
 * there is exactly one, or --all. The file decides how many matches
 * there are: the new content, like the file, must stay within EDIT_MAX. */
static int replace(struct app *a, const char *shown, const struct sbuf *file,
		   const struct sbuf *old, const struct sbuf *new, struct sbuf *out,
		   size_t *count, struct err *e)
{
	const char *hits[EDIT_LINES_SHOWN];
	size_t n = 0;
	const char *begin = file->buf ? file->buf : "", *end = begin + file->len, *p;
	for (p = begin; (p = find(p, (size_t)(end - p), old->buf, old->len)); p += old->len)
		if (n++ < EDIT_LINES_SHOWN)
			hits[n - 1] = p;
	if (n == 0)
		return no_match(shown, file, old, e);
	if (n > 1 && !a->o.edit.all)
		return many_matches(a, shown, file, hits, n, e);
	if (new->len > old->len && (new->len - old->len) > (EDIT_MAX - file->len) / n)
		return err_set(e, ERR_FAILED, "%s: the new content would be larger than %d MiB (%zu replacements); too large to edit here",
			       shown, EDIT_MAX >> 20, n);
	const char *from = begin;
	for (p = begin; (p = find(p, (size_t)(end - p), old->buf, old->len)); p += old->len) {
		sbuf_add(out, from, (size_t)(p - from));
		sbuf_add(out, new->buf ? new->buf : "", new->len);
		from = p + old->len;
	}
	sbuf_add(out, from, (size_t)(end - from));
	*count = n;
	return 0;
}

static int check_texts(struct app *a, struct err *e)
{
	if (!a->o.edit.old.set || !a->o.edit.new.set)
		return err_set(e, ERR_USAGE, "give the old text (--old or --old-file) and the new (--new or --new-file)");
	if (a->o.edit.old.text.len == 0)
		return err_set(e, ERR_USAGE, "the old text is empty; to write a whole file use 'sandbox write'");
	if (memchr(a->o.edit.old.text.buf, '\0', a->o.edit.old.text.len) ||
	    memchr(a->o.edit.new.text.buf ? a->o.edit.new.text.buf : "", '\0', a->o.edit.new.text.len))
		return err_set(e, ERR_USAGE, "the old or the new text holds a NUL byte; edit only edits text");
	if (a->o.edit.old.text.len == a->o.edit.new.text.len &&
	    memcmp(a->o.edit.old.text.buf, a->o.edit.new.text.buf ? a->o.edit.new.text.buf : "", a->o.edit.new.text.len) == 0)
		return err_set(e, ERR_USAGE, "the old and the new text are the same: nothing to do");
	return 0;
}

static int edit_in(struct app *a, struct ws *ws, const char *path, const char *shown,
		   struct edit_result *res, struct err *e)
{
	char *arg = tool_arg_path(path, e);
	if (!arg)
		return -1;
	struct slurp s = {0};
	struct tool_out out = {.body = slurp_body, .ctx = &s};
	int rc = tool_run(a, ws, PROTO_READ, &arg, 1, NULL, false, &out, e);
	free(arg);
	if (rc == 0)
		rc = tool_refusal(out.head.buf ? out.head.buf : "", path, e);
	tool_out_free(&out);
	char sha[65];
	if (rc == 0 && s.too_big)
		rc = err_set(e, ERR_FAILED, "%s: larger than %d MiB; too large to edit here", shown, EDIT_MAX >> 20);
	if (rc == 0 && tool_is_binary(s.data.buf, s.data.len))
		rc = err_set(e, ERR_FAILED, "%s: binary file; edit only edits text", shown);
	if (rc == 0) {
		sha256_buf_hex(s.data.buf ? s.data.buf : "", s.data.len, sha);
		if (a->o.edit.expect_sha && strcmp(a->o.edit.expect_sha, sha) != 0)
			rc = err_set(e, ERR_FAILED, "%s: the file changed since it was read (its sha256 is now %s); read it again",
				     shown, sha);
	}
	struct sbuf old = {0}, new = {0}, result = {0};
	size_t n = 0;
	if (rc == 0) {
		sbuf_add(&old, a->o.edit.old.text.buf, a->o.edit.old.text.len);
		sbuf_add(&new, a->o.edit.new.text.buf ? a->o.edit.new.text.buf : "", a->o.edit.new.text.len);
		/* An old text written with LF finds its place in a CRLF file,
		 * and the new one is written with the file's endings. */
		if (find(s.data.buf ? s.data.buf : "", s.data.len, "\r\n", 2) &&
		    !memchr(old.buf, '\r', old.len)) {
			to_crlf(&old);
			to_crlf(&new);
		}
		rc = replace(a, shown, &s.data, &old, &new, &result, &n, e);
	}
	if (rc == 0) {
		struct feed feed;
		bool created;
		feed_init_buf(&feed, result.buf ? result.buf : "", result.len);
		rc = tool_write(a, ws, path, &feed, 0, sha, res->sha256, &created, e);
		feed_free(&feed);
	}
	if (rc == 0) {
		/* The file decides how large the diff is: past a size, where
		 * the texts differ is said instead. */
		struct diff_limits lim = {DIFF_LINES_MAX, EDIT_DIFF_MAX};
		struct diff_span span;
		enum diff_kind kind = diff_unified(&res->diff, shown, shown,
						   s.data.buf ? s.data.buf : "", s.data.len,
						   result.buf ? result.buf : "", result.len, 3, &lim,
						   &span);
		res->replacements = (long long)n;
		res->omitted = kind == DIFF_OMITTED;
		if (res->omitted) {
			res->omitted_line = span.line;
			res->omitted_old = span.old_lines;
			res->omitted_new = span.new_lines;
		}
	}
	sbuf_free(&s.data);
	sbuf_free(&old);
	sbuf_free(&new);
	sbuf_free(&result);
	return rc;
}

int do_edit(struct app *a, struct edit_result *res, struct err *e)
{
	*res = (struct edit_result){0};
	const char *path = NULL;
	if (tool_one_path(a, &path, e) < 0 || check_texts(a, e) < 0)
		return -1;
	if (a->o.edit.expect_sha && !sha256_hex_ok(a->o.edit.expect_sha))
		return err_set(e, ERR_USAGE, "%s: expected 64 lowercase hex digits", opt_say(a, O_EXPECT));
	struct ws ws;
	if (ws_select(a, &ws, e) < 0)
		return -1;
	struct sbuf shown = {0};
	tool_show_path(&shown, path, false);
	int rc = edit_in(a, &ws, path, shown.buf, res, e);
	sbuf_free(&shown);
	ws_free(&ws);
	res->workspace = a->ws_name;
	res->path = path;
	if (rc < 0)
		edit_result_free(res);
	return rc;
}
