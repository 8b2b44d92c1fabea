/* mcp_tools.c: see mcp_tools.h. */
#include "mcp_tools.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
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

/* ---- structuredContent, capped as the text is ----
 *
 * The object a command prints, written again with at most output_limit
 * characters: what its strings hold, and all of each element of its
 * arrays (keys, numbers and punctuation too). The members of an object
 * share its room fairly: the smaller ones are kept whole, the larger
 * ones get equal parts of the rest. A string cut keeps its first
 * characters, and its object gets KEY_truncated: true and KEY_bytes, the
 * bytes of the whole string (an object that has them already, as exec's
 * does, keeps its KEY_bytes); an array keeps the elements that fit whole,
 * and its object gets KEY_truncated: true and KEY_count, the elements it
 * had. So its JSON stays within about 6 bytes a character of the limit,
 * whatever the command put in it. */

/* What a value costs as an element of an array: all of it. */
static size_t cap_whole(const struct jv *v)
{
	size_t cost = 1;
	switch (v->type) {
	case JV_STRING:
		return 2 + utf8_chars(v->str.s, v->str.len);
	case JV_NUMBER:
		return v->num.text_len;
	case JV_ARRAY:
		for (size_t i = 0; i < v->arr.count; i++)
			cost += 1 + cap_whole(&v->arr.items[i]);
		return cost;
	case JV_OBJECT:
		for (size_t i = 0; i < v->obj.count; i++)
			cost += v->obj.members[i].key_len + 4 + cap_whole(&v->obj.members[i].value);
		return cost;
	default:
		return 5;
	}
}

/* The room a value needs to be kept whole. */
static size_t cap_need(const struct jv *v)
{
	size_t need = 0;
	switch (v->type) {
	case JV_STRING:
		return utf8_chars(v->str.s, v->str.len);
	case JV_ARRAY:
		for (size_t i = 0; i < v->arr.count; i++)
			need += 1 + cap_whole(&v->arr.items[i]);
		return need;
	case JV_OBJECT:
		for (size_t i = 0; i < v->obj.count; i++)
			need += cap_need(&v->obj.members[i].value);
		return need;
	default:
		return 0;
	}
}

static void cap_value(struct json *j, const struct jv *v, size_t room);

static void cap_string(struct json *j, const struct jv *v, size_t room)
{
	json_strn(j, v->str.s, utf8_prefix(v->str.s, v->str.len, room));
}

static void cap_array(struct json *j, const struct jv *v, size_t room)
{
	json_arr_open(j);
	for (size_t i = 0; i < v->arr.count; i++) {
		size_t cost = 1 + cap_whole(&v->arr.items[i]);
		if (cost > room)
			break;
		room -= cost;
		cap_value(j, &v->arr.items[i], SIZE_MAX);
	}
	json_arr_close(j);
}

/* null, a boolean or a number, as it was. */
static void cap_plain(struct json *j, const struct jv *v)
{
	if (v->type == JV_BOOL) {
		json_bool(j, v->b);
	} else if (v->type == JV_NUMBER) {
		if (j->need_comma)
			sbuf_addc(&j->out, ',');
		sbuf_add(&j->out, v->num.text, v->num.text_len);
		j->need_comma = true;
	} else {
		json_null(j);
	}
}

/* Whether key is NAME + suffix for a member NAME that is cut. */
static bool cap_marks(const struct jv *obj, const bool *cut, const char *key, size_t len,
		      const char *suffix)
{
	size_t sl = strlen(suffix);
	if (len <= sl || memcmp(key + len - sl, suffix, sl) != 0)
		return false;
	for (size_t i = 0; i < obj->obj.count; i++) {
		const struct jv_member *m = &obj->obj.members[i];
		if (cut[i] && m->key_len == len - sl && memcmp(m->key, key, m->key_len) == 0)
			return true;
	}
	return false;
}

/* NAME_truncated and NAME_bytes (or NAME_count) of a cut string or
 * array NAME, where the object lacks them. */
static void cap_add_marks(struct json *j, const struct jv *obj, const struct jv_member *m)
{
	bool is_str = m->value.type == JV_STRING;
	char *t = xasprintf("%.*s_truncated", (int)m->key_len, m->key);
	char *n = xasprintf("%.*s_%s", (int)m->key_len, m->key, is_str ? "bytes" : "count");
	if (!jv_get(obj, t)) {
		json_key(j, t);
		json_bool(j, true);
	}
	if (!jv_get(obj, n)) {
		json_key(j, n);
		json_int(j, (long long)(is_str ? m->value.str.len : m->value.arr.count));
	}
	free(t);
	free(n);
}

/* Each member's share of the room: smallest need first, each gets what
 * it needs up to an equal part of what is left. */
static void cap_shares(const struct jv *v, size_t room, size_t *need, size_t *share)
{
	size_t count = v->obj.count;
	size_t *order = xmalloc((count ? count : 1) * sizeof(*order));
	for (size_t i = 0; i < count; i++) {
		need[i] = cap_need(&v->obj.members[i].value);
		size_t k = i;
		for (; k > 0 && need[order[k - 1]] > need[i]; k--)
			order[k] = order[k - 1];
		order[k] = i;
	}
	for (size_t k = 0; k < count; k++) {
		size_t i = order[k], part = room / (count - k);
		share[i] = need[i] < part ? need[i] : part;
		room -= share[i];
	}
	free(order);
}

static void cap_object(struct json *j, const struct jv *v, size_t room)
{
	size_t count = v->obj.count, n = count ? count : 1;
	size_t *need = xmalloc(n * sizeof(*need)), *share = xmalloc(n * sizeof(*share));
	bool *cut = xmalloc(n * sizeof(*cut));
	cap_shares(v, room, need, share);
	for (size_t i = 0; i < count; i++) {
		enum jv_type t = v->obj.members[i].value.type;
		cut[i] = need[i] > share[i] && (t == JV_STRING || t == JV_ARRAY);
	}
	json_obj_open(j);
	for (size_t i = 0; i < count; i++) {
		const struct jv_member *m = &v->obj.members[i];
		json_keyn(j, m->key, m->key_len);
		if (cap_marks(v, cut, m->key, m->key_len, "_truncated"))
			json_bool(j, true);
		else
			cap_value(j, &m->value, share[i]);
	}
	for (size_t i = 0; i < count; i++)
		if (cut[i])
			cap_add_marks(j, v, &v->obj.members[i]);
	json_obj_close(j);
	free(need);
	free(share);
	free(cut);
}

/* Writes v into j within `room` characters. */
static void cap_value(struct json *j, const struct jv *v, size_t room)
{
	switch (v->type) {
	case JV_STRING: cap_string(j, v, room); break;
	case JV_ARRAY: cap_array(j, v, room); break;
	case JV_OBJECT: cap_object(j, v, room); break;
	default: cap_plain(j, v); break;
	}
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
		cap_value(&capped, v, (size_t)call->output_limit);
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
