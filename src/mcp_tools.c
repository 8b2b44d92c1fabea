/* mcp_tools.c: see mcp_tools.h. */
#include "mcp_tools.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "jvb.h"
#include "opts.h"
#include "results.h"
#include "tools.h"
#include "utf8.h"
#include "util.h"

struct mcp_tool {
	enum cmd_id id;
	/* A tool that has a typed result: its do-function and presenters
	 * make the whole result. */
	int (*call)(struct app *call, struct err *e);
	/* One that has not yet: the text, from the JSON its command prints. */
	void (*text)(struct sbuf *out, const struct jv *res, const struct app *call);
};

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

/* What the cancel did, as exec_kill_says() says it: never "killed"
 * unless the result says so. */
static const char *kill_says(const struct jv *res)
{
	const char *word = jv_str(jv_get(res, "kill"));
	for (int k = KILL_NONE; word && k <= KILL_FAILED; k++)
		if (strcmp(word, exec_kill_word((enum exec_kill)k)) == 0)
			return exec_kill_says((enum exec_kill)k);
	return exec_kill_says(KILL_FAILED);
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
		sbuf_addf(out, "[timed out after %gs; %s]", call->cfg.timeout, kill_says(res));
	else
		sbuf_addf(out, "[exit code %lld]", status);
}

static int call_read(struct app *call, struct err *e);
static int call_write(struct app *call, struct err *e);
static int call_edit(struct app *call, struct err *e);
static int call_glob(struct app *call, struct err *e);
static int call_grep(struct app *call, struct err *e);

static const struct mcp_tool tools[] = {
	{C_EXEC, NULL, text_exec}, {C_READ, call_read, NULL}, {C_WRITE, call_write, NULL},
	{C_EDIT, call_edit, NULL}, {C_GLOB, call_glob, NULL}, {C_GREP, call_grep, NULL},
};

static const struct command *tool_cmd(const struct mcp_tool *t)
{
	return cmd_of(t->id);
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

/* A typed tool's result goes whole on call->out, for mcp_tool_result. */
static void call_done(struct app *call, struct sbuf *text, struct jv *tree)
{
	struct sbuf res = {0};
	mcp_result(&res, text, tree, call->output_limit, false);
	fwrite(res.buf, 1, res.len, call->out);
	sbuf_free(&res);
	sbuf_free(text);
	jvb_free(tree);
}

/* A typed tool's call: its do-function, then the model's text and the
 * tree, whole onto call->out. No match (glob and grep: 1) is an answer,
 * as in the CLI's JSON. */
#define TYPED_CALL(name)                                        \
	static int call_##name(struct app *call, struct err *e) \
	{                                                       \
		struct name##_result r;                         \
		int rc = do_##name(call, &r, e);                \
		if (rc < 0)                                     \
			return -1;                              \
		struct sbuf text = {0};                         \
		struct jv tree = {0};                           \
		name##_model(&text, &r);                        \
		name##_tree(&tree, &r);                         \
		call_done(call, &text, &tree);                  \
		name##_result_free(&r);                         \
		return rc;                                      \
	}

TYPED_CALL(read)
TYPED_CALL(write)
TYPED_CALL(edit)
TYPED_CALL(glob)
TYPED_CALL(grep)

void mcp_tool_result(struct sbuf *res, const struct mcp_tool *t, const struct app *call,
		     const char *json, size_t len)
{
	if (t->call) {
		sbuf_add(res, json, len); /* made whole by mcp_tool_run */
		return;
	}
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
		if (strcmp(tool_cmd(&tools[i])->name, name) == 0)
			return &tools[i];
	return NULL;
}

const char *mcp_tool_name(const struct mcp_tool *t)
{
	return tool_cmd(t)->name;
}

int mcp_tool_run(const struct mcp_tool *t, struct app *call, struct err *e)
{
	return t->call ? t->call(call, e) : tool_cmd(t)->fn(call, e);
}

void mcp_tools_list(struct json *j, double timeout)
{
	opts_tools_list(j, timeout);
}
