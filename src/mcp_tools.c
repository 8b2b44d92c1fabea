/* mcp_tools.c: see mcp_tools.h. */
#include "mcp_tools.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "jvb.h"
#include "opts.h"
#include "tools.h"
#include "utf8.h"
#include "util.h"

struct mcp_tool {
	enum cmd_id id;
	void (*text)(struct sbuf *out, const struct jv *res, const struct app *call);
};

/* A string of the result, or "?" (never NULL for a %s). */
static const char *str_or(const struct jv *v)
{
	return jv_str(v) ? jv_str(v) : "?";
}

/* The kept text of a stream, with a marker where its middle was cut. */
static void add_stream(struct sbuf *out, const struct jv *res, const char *name, long kept)
{
	char key[32];
	size_t len;
	const char *text = jv_strn(jv_get(res, name), &len);
	bool cut = false;
	long long total = 0;
	snprintf(key, sizeof(key), "%s_truncated", name);
	jv_bool(jv_get(res, key), &cut);
	snprintf(key, sizeof(key), "%s_bytes", name);
	jv_int(jv_get(res, key), &total);
	if (!text)
		return;
	if (!cut) {
		sbuf_add(out, text, len);
		return;
	}
	size_t half = len / 2;
	while (half < len && utf8_cont(text[half]))
		half++;
	sbuf_add(out, text, half);
	sbuf_addf(out, "\n[... %lld bytes cut ...]\n", total - kept);
	sbuf_add(out, text + half, len - half);
}

static void text_exec(struct sbuf *out, const struct jv *res, const struct app *call)
{
	long long status = 0;
	bool timed_out = false;
	jv_int(jv_get(res, "exit_code"), &status);
	jv_bool(jv_get(res, "timed_out"), &timed_out);
	add_stream(out, res, "stdout", call->cfg.max_output);
	size_t errlen = 0;
	jv_strn(jv_get(res, "stderr"), &errlen);
	if (errlen) {
		if (out->len && out->buf[out->len - 1] != '\n')
			sbuf_addc(out, '\n');
		sbuf_adds(out, "[stderr]\n");
		add_stream(out, res, "stderr", call->cfg.max_output);
	}
	if (out->len && out->buf[out->len - 1] != '\n')
		sbuf_addc(out, '\n');
	if (timed_out)
		sbuf_addf(out, "[timed out after %gs; the command was killed]", call->cfg.timeout);
	else
		sbuf_addf(out, "[exit code %lld]", status);
}

static void text_read(struct sbuf *out, const struct jv *res, const struct app *call)
{
	(void)call;
	long long start = 1, lines = 0, total = 0;
	size_t len = 0;
	const char *content = jv_strn(jv_get(res, "content"), &len);
	jv_int(jv_get(res, "start_line"), &start);
	jv_int(jv_get(res, "lines"), &lines);
	jv_int(jv_get(res, "total_lines"), &total);
	if (total == 0)
		sbuf_adds(out, "(empty file)\n");
	if (content)
		sbuf_add(out, content, len);
	long long next = start + lines;
	if (total >= next)
		sbuf_addf(out, "(%lld more lines; continue with offset %lld)\n", total - next + 1, next);
}

static void text_write(struct sbuf *out, const struct jv *res, const struct app *call)
{
	(void)call;
	long long bytes = 0;
	bool created = false;
	jv_int(jv_get(res, "bytes"), &bytes);
	jv_bool(jv_get(res, "created"), &created);
	sbuf_addf(out, "wrote %lld bytes to %s%s", bytes, str_or(jv_get(res, "path")),
		  created ? " (new file)" : "");
}

static void text_edit(struct sbuf *out, const struct jv *res, const struct app *call)
{
	(void)call;
	long long n = 0;
	size_t len = 0;
	jv_int(jv_get(res, "replacements"), &n);
	const char *diff = jv_strn(jv_get(res, "diff"), &len);
	const struct jv *omitted = jv_get(res, "diff_omitted");
	sbuf_addf(out, "replaced %lld occurrence%s in %s\n", n, n == 1 ? "" : "s",
		  str_or(jv_get(res, "path")));
	if (diff)
		sbuf_add(out, diff, len);
	if (omitted) {
		long long line = 0, old_lines = 0, new_lines = 0;
		jv_int(jv_get(omitted, "line"), &line);
		jv_int(jv_get(omitted, "old_lines"), &old_lines);
		jv_int(jv_get(omitted, "new_lines"), &new_lines);
		edit_omitted_note(out, line, old_lines, new_lines);
	}
}

/* glob and grep: the lines, and how to get the rest. */
static void text_matches(struct sbuf *out, const struct jv *res, const char *none, bool grep)
{
	const struct jv *m = jv_get(res, "matches");
	long long total = 0;
	jv_int(jv_get(res, grep ? "total_lines" : "total"), &total);
	for (size_t i = 0; i < jv_count(m); i++) {
		const struct jv *v = jv_at(m, i);
		const char *path = jv_str(v) ? jv_str(v) : jv_str(jv_get(v, "path"));
		long long line = 0, count = 0;
		bool match = true;
		if (jv_int(jv_get(v, "count"), &count)) {
			sbuf_addf(out, "%s:%lld\n", path, count);
		} else if (jv_int(jv_get(v, "line"), &line)) {
			jv_bool(jv_get(v, "match"), &match);
			char sep = match ? ':' : '-';
			sbuf_addf(out, "%s%c%lld%c%s\n", path, sep, line, sep, jv_str(jv_get(v, "text")));
		} else {
			sbuf_addf(out, "%s\n", path);
		}
	}
	if (jv_count(m) == 0)
		sbuf_addf(out, "%s\n", none);
	else if ((size_t)total > jv_count(m))
		sbuf_addf(out, "(%lld more; raise limit or narrow the search)\n",
			  total - (long long)jv_count(m));
}

static void text_glob(struct sbuf *out, const struct jv *res, const struct app *call)
{
	(void)call;
	text_matches(out, res, "no file matches", false);
}

static void text_grep(struct sbuf *out, const struct jv *res, const struct app *call)
{
	(void)call;
	text_matches(out, res, "no match", true);
}

static const struct mcp_tool tools[] = {
	{C_EXEC, text_exec}, {C_READ, text_read}, {C_WRITE, text_write},
	{C_EDIT, text_edit}, {C_GLOB, text_glob}, {C_GREP, text_grep},
};

static const struct command *tool_cmd(const struct mcp_tool *t)
{
	return cmd_find(cmd_name(t->id));
}

int mcp_tool_check(const struct mcp_tool *t, const struct jv *args, struct err *e)
{
	return opts_tool_check(tool_cmd(t), args, e);
}

int mcp_tool_apply(const struct mcp_tool *t, struct app *call, const struct jv *args,
		   struct err *e)
{
	return opts_tool_apply(tool_cmd(t), call, args, e);
}

/* Keeps the first and last limit/2 characters of text, and says how many
 * were cut between them. */
static void cap_text(struct sbuf *text, long limit)
{
	size_t chars = 0;
	for (size_t i = 0; i < text->len; i++)
		chars += !utf8_cont(text->buf[i]);
	if (chars <= (size_t)limit)
		return;
	size_t keep = (size_t)limit / 2, head = 0, tail = text->len;
	for (size_t n = 0; head < text->len; head++)
		if (!utf8_cont(text->buf[head]) && n++ == keep)
			break;
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
	err_json(&j, e, ref);
	struct sbuf text = {0};
	sbuf_addf(&text, "error: %s", e->msg);
	tool_result(res, &text, j.out.buf, j.out.len, true);
	sbuf_free(&text);
	sbuf_free(&j.out);
}

void mcp_tool_result(struct sbuf *res, const struct mcp_tool *t, const struct app *call,
		     const char *json, size_t len)
{
	while (len && json[len - 1] == '\n')
		len--;
	/* Our own JSON, which each command keeps small: no reader's limit. */
	struct jv_limits lim = {.max_size = len + 1, .max_members = len + 1};
	struct jv *v = jv_parse(json, len, &lim, NULL, 0);
	struct sbuf text = {0};
	if (v)
		t->text(&text, v, call);
	else
		sbuf_adds(&text, "(the result could not be read)");
	cap_text(&text, call->output_limit);
	long long status = 0;
	bool timed_out = false;
	jv_int(jv_get(v, "exit_code"), &status);
	jv_bool(jv_get(v, "timed_out"), &timed_out);
	/* No match is an answer, not a failure; a command's failure is. */
	bool is_error = t->id == C_EXEC && (status != 0 || timed_out);
	struct json capped = {0};
	if (v) {
		json_jv(&capped, v, (size_t)call->output_limit);
	} else {
		sbuf_adds(&capped.out, "{}");
	}
	tool_result(res, &text, capped.out.buf, capped.out.len, is_error);
	sbuf_free(&capped.out);
	sbuf_free(&text);
	jv_free(v);
}

const struct mcp_tool *mcp_tool_find(const char *name)
{
	for (size_t i = 0; i < ARRAY_LEN(tools); i++)
		if (strcmp(cmd_name(tools[i].id), name) == 0)
			return &tools[i];
	return NULL;
}

const char *mcp_tool_name(const struct mcp_tool *t)
{
	return cmd_name(t->id);
}

int mcp_tool_run(const struct mcp_tool *t, struct app *call, struct err *e)
{
	return tool_cmd(t)->fn(call, e);
}

void mcp_tools_list(struct json *j, double timeout)
{
	opts_tools_list(j, timeout);
}
