/* mcp.c: `sandbox mcp`, the six tools as a Model Context Protocol server:
 * newline-delimited JSON-RPC 2.0 on stdin and stdout, logs on stderr.
 * A tools/call runs the same command function as the CLI, in JSON mode,
 * into a buffer: structuredContent is exactly the CLI's --json object, and
 * the text for the model is made from it. Calls are served one after the
 * other, over one persistent channel into the workspace (chan.h); while a
 * call runs, the input is still read, for its cancellation. */
/* memmem: POSIX only since 2024. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app.h"
#include "chan.h"
#include "exec.h"
#include "json.h"
#include "jsonr.h"
#include "spawn.h"
#include "version.h"
#include "workspace.h"

#define MCP_LINE_MAX JV_DEFAULT_MAX_SIZE
#define MCP_DEFAULT_TIMEOUT 120.0
#define MCP_DEFAULT_OUTPUT_LIMIT 30000

/* JSON-RPC 2.0 error codes. */
enum { RPC_PARSE = -32700, RPC_INVALID = -32600, RPC_NO_METHOD = -32601, RPC_PARAMS = -32602 };

/* Newest first: the answer when the client asks for one we do not know. */
static const char *const versions[] = {"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"};

enum ptype { P_STR, P_INT, P_NUM, P_BOOL, P_ENV };

struct param {
	const char *name;
	enum ptype type;
	bool required;
	long long min;             /* P_INT; P_STR: 1 for not empty */
	const char *const *choices; /* P_STR: NULL-ended, or NULL for any */
	const char *desc;
};

struct tool {
	const char *name;
	int (*fn)(struct app *, struct err *);
	const char *desc;
	const struct param *params;
	size_t nparams;
	void (*text)(struct sbuf *out, const struct jv *res, const struct app *call);
};

/* The server's state: its input, the call in progress, the workspace. */
struct server {
	struct app *base;
	struct sbuf in;     /* bytes read and not yet taken as lines */
	size_t in_off;      /* the start of the next line in it */
	size_t scan_off;    /* how far the watch looked for a cancel */
	bool eof, skipping;
	struct sbuf call_id; /* the running call's id, as JSON */
	bool cancelled;
	struct ws pin;
	bool pinned;
	char *ref;          /* the workspace, once known (owned) */
	struct chan chan;
};

/* ---- output ---- */

static bool send_line(struct sbuf *msg)
{
	sbuf_addc(msg, '\n');
	return write_all(1, msg->buf, msg->len) == 0;
}

static void reply(const char *id, const struct sbuf *result)
{
	struct sbuf m = {0};
	sbuf_addf(&m, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":%.*s}", id, (int)result->len,
		  result->buf);
	send_line(&m);
	sbuf_free(&m);
}

static void reply_error(const char *id, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void reply_error(const char *id, int code, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	struct sbuf m = {0};
	sbuf_addf(&m, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"error\":{\"code\":%d,\"message\":",
		  id ? id : "null", code);
	json_quote(&m, msg, strlen(msg));
	sbuf_adds(&m, "}}");
	send_line(&m);
	sbuf_free(&m);
}

static void log_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void log_msg(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("sandbox mcp: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/* ---- the tools ---- */

static const char *const output_modes[] = {"files", "content", "count", NULL};

static const struct param exec_params[] = {
	{"command", P_STR, true, 1, NULL, "Shell text, run with sh -c in the workspace."},
	{"timeout", P_NUM, false, 0, NULL,
	 "Seconds before the command and everything it started are killed (default 120)."},
	{"cwd", P_STR, false, 0, NULL, "Directory to run in; relative to the workspace directory."},
	{"env", P_ENV, false, 0, NULL, "Environment variables for this command."},
};
static const struct param read_params[] = {
	{"path", P_STR, true, 1, NULL, "File to read; relative to the workspace directory."},
	{"offset", P_INT, false, 1, NULL, "First line to show, 1-based (default 1)."},
	{"limit", P_INT, false, 1, NULL, "Most lines to show (default 2000)."},
};
static const struct param write_params[] = {
	{"path", P_STR, true, 1, NULL, "File to write; missing directories are created."},
	{"content", P_STR, true, 0, NULL, "The whole new content of the file."},
};
static const struct param edit_params[] = {
	{"path", P_STR, true, 1, NULL, "File to edit."},
	{"old_text", P_STR, true, 0, NULL,
	 "Exact text to replace, whitespace included; it must occur exactly once unless replace_all."},
	{"new_text", P_STR, true, 0, NULL, "Text to put in its place."},
	{"replace_all", P_BOOL, false, 0, NULL, "Replace every occurrence (default false)."},
	{"expect_sha256", P_STR, false, 0, NULL,
	 "Refuse the edit unless the file still has this SHA-256 (from read)."},
};
static const struct param glob_params[] = {
	{"pattern", P_STR, true, 1, NULL,
	 "Glob: * and ? within a name, [...], {a,b}, ** for any depth (src/**/*.c)."},
	{"path", P_STR, false, 1, NULL, "Directory to search (default: the workspace directory)."},
	{"limit", P_INT, false, 1, NULL, "Most paths to return (default 1000)."},
};
static const struct param grep_params[] = {
	{"pattern", P_STR, true, 1, NULL, "POSIX extended regular expression (grep -E)."},
	{"path", P_STR, false, 1, NULL,
	 "File or directory to search (default: the workspace directory)."},
	{"glob", P_STR, false, 0, NULL, "Only files whose name matches this glob (*.c)."},
	{"output_mode", P_STR, false, 0, output_modes,
	 "files: matching paths (default); content: path:line:text; count: path:N."},
	{"case_insensitive", P_BOOL, false, 0, NULL, "Ignore case (default false)."},
	{"context", P_INT, false, 0, NULL, "Lines of context around each match, with content."},
	{"limit", P_INT, false, 1, NULL, "Most output lines (default 1000)."},
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
	while (half < len && ((unsigned char)text[half] & 0xc0) == 0x80)
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
	sbuf_addf(out, "wrote %lld bytes to %s%s", bytes, jv_str(jv_get(res, "path")),
		  created ? " (new file)" : "");
}

static void text_edit(struct sbuf *out, const struct jv *res, const struct app *call)
{
	(void)call;
	long long n = 0;
	size_t len = 0;
	jv_int(jv_get(res, "replacements"), &n);
	const char *diff = jv_strn(jv_get(res, "diff"), &len);
	sbuf_addf(out, "replaced %lld occurrence%s in %s\n", n, n == 1 ? "" : "s",
		  jv_str(jv_get(res, "path")));
	if (diff)
		sbuf_add(out, diff, len);
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

#define TOOL(n, fn, desc, text) {#n, fn, desc, n##_params, ARRAY_LEN(n##_params), text}

static const struct tool tools[] = {
	TOOL(exec, cmd_exec,
	     "Run shell text (sh -c) in the sandbox container's workspace directory and return "
	     "its stdout, stderr and exit code. The command is killed, with everything it started, "
	     "after timeout seconds (default 120). Long output keeps its head and tail. There is "
	     "no network unless the sandbox was started with one. Use the read, write, edit, glob "
	     "and grep tools for files rather than cat, sed or find.",
	     text_exec),
	TOOL(read, cmd_read,
	     "Read a text file of the workspace. Lines come numbered like cat -n, from offset "
	     "(1-based) for at most limit lines (default 2000); longer lines are cut at 2000 "
	     "characters. When lines remain, the result says so: call again with the offset it "
	     "gives. Binary files are refused. structuredContent.sha256 is the file's hash, for "
	     "edit's expect_sha256.",
	     text_read),
	TOOL(write, cmd_write,
	     "Create or replace a file in the workspace with the given content, atomically; "
	     "missing directories are created, an existing file keeps its mode. Prefer edit for "
	     "changing part of a file.",
	     text_write),
	TOOL(edit, cmd_edit,
	     "Replace old_text with new_text in a file. old_text must match exactly (whitespace "
	     "and indentation included) and occur exactly once; when it occurs several times the "
	     "error gives their lines: add surrounding text to make it unique, or set "
	     "replace_all. A file with CRLF line endings keeps them. Returns a unified diff.",
	     text_edit),
	TOOL(glob, cmd_glob,
	     "Find files by name pattern under path (default: the workspace directory): * and ? "
	     "within one name, [...], {a,b}, and ** across directories (src/**/*.c). Newest "
	     "first, at most limit (default 1000); .git is skipped.",
	     text_glob),
	TOOL(grep, cmd_grep,
	     "Search file contents with a POSIX extended regular expression, recursively from "
	     "path (default: the workspace directory). output_mode files (default) lists matching "
	     "files, content gives path:line:text (with context lines around), count gives "
	     "path:N. Sorted by path; binary files and .git are skipped; at most limit lines.",
	     text_grep),
};

static const char *ptype_name(enum ptype t)
{
	static const char *const names[] = {"string", "integer", "number", "boolean", "object"};
	return names[t];
}

static void schema(struct json *j, const struct tool *t)
{
	json_obj_open(j);
	json_key(j, "type");
	json_str(j, "object");
	json_key(j, "properties");
	json_obj_open(j);
	for (size_t i = 0; i < t->nparams; i++) {
		const struct param *p = &t->params[i];
		json_key(j, p->name);
		json_obj_open(j);
		json_key(j, "type");
		json_str(j, ptype_name(p->type));
		json_key(j, "description");
		json_str(j, p->desc);
		if (p->type == P_INT) {
			json_key(j, "minimum");
			json_int(j, p->min);
		} else if (p->type == P_NUM) {
			json_key(j, "exclusiveMinimum");
			json_int(j, 0);
		} else if (p->type == P_ENV) {
			json_key(j, "additionalProperties");
			json_obj_open(j);
			json_key(j, "type");
			json_str(j, "string");
			json_obj_close(j);
		}
		if (p->choices) {
			json_key(j, "enum");
			json_arr_open(j);
			for (const char *const *c = p->choices; *c; c++)
				json_str(j, *c);
			json_arr_close(j);
		}
		json_obj_close(j);
	}
	json_obj_close(j);
	json_key(j, "required");
	json_arr_open(j);
	for (size_t i = 0; i < t->nparams; i++)
		if (t->params[i].required)
			json_str(j, t->params[i].name);
	json_arr_close(j);
	json_key(j, "additionalProperties");
	json_bool(j, false);
	json_obj_close(j);
}

static const struct param *find_param(const struct tool *t, const char *name)
{
	for (size_t i = 0; i < t->nparams; i++)
		if (strcmp(t->params[i].name, name) == 0)
			return &t->params[i];
	return NULL;
}

static bool in_choices(const char *const *choices, const char *s)
{
	for (; *choices; choices++)
		if (strcmp(*choices, s) == 0)
			return true;
	return false;
}

/* Checks one argument against its parameter; a message in e if not. */
static int check_arg(const struct param *p, const struct jv *v, struct err *e)
{
	long long i;
	double d;
	switch (p->type) {
	case P_STR:
		if (!jv_is(v, JV_STRING))
			break;
		if (!jv_str(v))
			return err_set(e, ERR_USAGE, "argument %s holds a NUL character", p->name);
		if (p->min && !*jv_str(v))
			return err_set(e, ERR_USAGE, "argument %s is empty", p->name);
		if (p->choices && !in_choices(p->choices, jv_str(v)))
			return err_set(e, ERR_USAGE, "argument %s: '%s' is not one of files, content, count",
				       p->name, jv_str(v));
		return 0;
	case P_INT:
		if (!jv_int(v, &i))
			break;
		if (i < p->min)
			return err_set(e, ERR_USAGE, "argument %s must be at least %lld", p->name, p->min);
		return 0;
	case P_NUM:
		if (!jv_double(v, &d))
			break;
		if (!(d > 0) || d > 1e9)
			return err_set(e, ERR_USAGE, "argument %s must be a number of seconds above 0", p->name);
		return 0;
	case P_BOOL:
		if (!jv_is(v, JV_BOOL))
			break;
		return 0;
	case P_ENV:
		if (!jv_is(v, JV_OBJECT))
			break;
		for (size_t k = 0; k < v->obj.count; k++) {
			const struct jv_member *m = &v->obj.members[k];
			if (!jv_str(&m->value))
				return err_set(e, ERR_USAGE, "argument %s: the value of %s must be a string without NUL",
					       p->name, m->key);
			if (!cfg_valid_env_name(m->key, m->key_len))
				return err_set(e, ERR_USAGE, "argument %s: '%s' is not a variable name", p->name, m->key);
		}
		return 0;
	}
	return err_set(e, ERR_USAGE, "argument %s must be %s %s", p->name,
		       p->type == P_INT ? "an" : "a", ptype_name(p->type));
}

static int check_args(const struct tool *t, const struct jv *args, struct err *e)
{
	if (!jv_is(args, JV_OBJECT))
		return err_set(e, ERR_USAGE, "arguments must be an object");
	for (size_t i = 0; i < args->obj.count; i++) {
		const struct jv_member *m = &args->obj.members[i];
		const struct param *p = strlen(m->key) == m->key_len ? find_param(t, m->key) : NULL;
		if (!p)
			return err_set(e, ERR_USAGE, "tool %s has no argument '%s'", t->name, m->key);
		if (check_arg(p, &m->value, e) < 0)
			return -1;
	}
	for (size_t i = 0; i < t->nparams; i++)
		if (t->params[i].required && !jv_get(args, t->params[i].name))
			return err_set(e, ERR_USAGE, "tool %s needs the argument %s", t->name, t->params[i].name);
	return 0;
}

static long arg_long(const struct jv *args, const char *name, long dflt)
{
	long long v;
	return jv_int(jv_get(args, name), &v) ? (long)(v > 1000000000 ? 1000000000 : v) : dflt;
}

static bool arg_bool(const struct jv *args, const char *name)
{
	bool v = false;
	jv_bool(jv_get(args, name), &v);
	return v;
}

/* Sets the call's options from checked arguments, as the CLI's would. */
static void apply_args(struct app *call, const struct tool *t, const struct jv *args)
{
	const char *first = jv_str(jv_get(args, t->params[0].name));
	if (t->fn != cmd_exec)
		strvec_push(&call->args, first);
	call->offset = arg_long(args, "offset", 1);
	call->limit = arg_long(args, "limit", t->fn == cmd_read ? 2000 : 1000);
	call->path = t->fn == cmd_glob || t->fn == cmd_grep ? jv_str(jv_get(args, "path")) : NULL;
	if (t->fn == cmd_exec) {
		call->shell = first;
		call->cwd = jv_str(jv_get(args, "cwd"));
		jv_double(jv_get(args, "timeout"), &call->cfg.timeout);
		const struct jv *env = jv_get(args, "env");
		for (size_t i = 0; i < jv_count(env); i++)
			cfg_set_env(&call->cfg, env->obj.members[i].key,
				    jv_str(&env->obj.members[i].value), NULL);
	} else if (t->fn == cmd_write) {
		call->content = jv_str(jv_get(args, "content"));
	} else if (t->fn == cmd_edit) {
		size_t n;
		const char *s = jv_strn(jv_get(args, "old_text"), &n);
		sbuf_add(&call->old_text, s, n);
		s = jv_strn(jv_get(args, "new_text"), &n);
		sbuf_add(&call->new_text, s, n);
		call->old_set = call->new_set = true;
		call->all = arg_bool(args, "replace_all");
		call->expect_sha = jv_str(jv_get(args, "expect_sha256"));
	} else if (t->fn == cmd_grep) {
		call->glob = jv_str(jv_get(args, "glob"));
		call->output = jv_str(jv_get(args, "output_mode"));
		call->icase = arg_bool(args, "case_insensitive");
		call->after = call->before = arg_long(args, "context", 0);
	}
}

/* Keeps the first and last limit/2 characters of text, and says how many
 * were cut between them. */
static void cap_text(struct sbuf *text, long limit)
{
	size_t chars = 0;
	for (size_t i = 0; i < text->len; i++)
		chars += ((unsigned char)text->buf[i] & 0xc0) != 0x80;
	if (chars <= (size_t)limit)
		return;
	size_t keep = (size_t)limit / 2, head = 0, tail = text->len;
	for (size_t n = 0; head < text->len; head++)
		if (((unsigned char)text->buf[head] & 0xc0) != 0x80 && n++ == keep)
			break;
	for (size_t n = 0; tail > 0;)
		if (((unsigned char)text->buf[--tail] & 0xc0) != 0x80 && ++n == keep)
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

static void error_result(struct sbuf *res, const struct err *e, const char *ref)
{
	struct json j = {0};
	json_obj_open(&j);
	json_key(&j, "error");
	json_obj_open(&j);
	json_key(&j, "kind");
	json_str(&j, err_kind_name(e->kind));
	json_key(&j, "message");
	json_str(&j, e->msg);
	json_obj_close(&j);
	if (ref) {
		json_key(&j, "workspace");
		json_str(&j, ref);
	}
	json_obj_close(&j);
	struct sbuf text = {0};
	sbuf_addf(&text, "error: %s", e->msg);
	tool_result(res, &text, j.out.buf, j.out.len, true);
	sbuf_free(&text);
	sbuf_free(&j.out);
}

static void ok_result(struct sbuf *res, const struct tool *t, const struct app *call, int rc,
		      const char *json, size_t len)
{
	while (len && json[len - 1] == '\n')
		len--;
	struct jv *v = jv_parse(json, len, NULL, NULL, 0);
	struct sbuf text = {0};
	t->text(&text, v, call);
	cap_text(&text, call->output_limit);
	long long status = 0;
	bool timed_out = false;
	jv_int(jv_get(v, "exit_code"), &status);
	jv_bool(jv_get(v, "timed_out"), &timed_out);
	/* No match is an answer, not a failure; a command's failure is. */
	bool is_error = t->fn == cmd_exec ? status != 0 || timed_out : rc > 1;
	tool_result(res, &text, json, len, is_error);
	sbuf_free(&text);
	jv_free(v);
}

/* ---- input ---- */

/* One read from stdin into the buffer. */
static void fill(struct server *s)
{
	char buf[65536];
	ssize_t r = read(0, buf, sizeof(buf));
	if (r == 0 || (r < 0 && errno != EINTR && errno != EAGAIN))
		s->eof = true;
	else if (r > 0)
		sbuf_add(&s->in, buf, (size_t)r);
}

/* The next whole line, copied into line; false when none is complete. A
 * line over MCP_LINE_MAX is skipped, and answered as such. */
static bool next_line(struct server *s, struct sbuf *line)
{
	for (;;) {
		const char *start = s->in.buf + s->in_off;
		size_t avail = s->in.len - s->in_off;
		const char *nl = avail ? memchr(start, '\n', avail) : NULL;
		if (!nl) {
			if (avail > MCP_LINE_MAX) {
				s->skipping = true;
				s->in_off = s->in.len;
			}
			if (s->in_off > 0) {
				memmove(s->in.buf, s->in.buf + s->in_off, s->in.len - s->in_off);
				s->in.len -= s->in_off;
				s->scan_off = s->scan_off > s->in_off ? s->scan_off - s->in_off : 0;
				s->in_off = 0;
			}
			return false;
		}
		size_t n = (size_t)(nl - start);
		s->in_off += n + 1;
		if (s->skipping) {
			s->skipping = false;
			reply_error(NULL, RPC_PARSE, "message over %zu bytes", (size_t)MCP_LINE_MAX);
			continue;
		}
		sbuf_reset(line);
		sbuf_add(line, start, n);
		return true;
	}
}

/* The id of a request as JSON, for the answer; false when it is not a
 * string or an integer. */
static bool id_json(const struct jv *id, struct sbuf *out)
{
	size_t len;
	const char *s = jv_strn(id, &len);
	if (s) {
		json_quote(out, s, len);
		return true;
	}
	long long i;
	if (jv_int(id, &i)) {
		sbuf_addf(out, "%lld", i);
		return true;
	}
	return false;
}

/* Is this line a cancellation of the request with this id (as JSON)? */
static bool cancels(const char *line, size_t len, const char *id)
{
	if (!memmem(line, len, "notifications/cancelled", 23))
		return false;
	struct jv *v = jv_parse(line, len, NULL, NULL, 0);
	const char *method = jv_str(jv_get(v, "method"));
	struct sbuf rid = {0};
	bool yes = method && strcmp(method, "notifications/cancelled") == 0 &&
		   id_json(jv_get(jv_get(v, "params"), "requestId"), &rid) && strcmp(rid.buf, id) == 0;
	sbuf_free(&rid);
	jv_free(v);
	return yes;
}

/* Calls fn on each whole line not yet handled, from *off on, until it
 * returns true; the line's bytes may be changed. */
static bool each_line(struct server *s, size_t *off, bool (*fn)(struct server *, char *, size_t))
{
	for (;;) {
		char *start = s->in.buf + *off;
		char *nl = memchr(start, '\n', s->in.len - *off);
		if (!nl)
			return false;
		*off += (size_t)(nl - start) + 1;
		if (fn(s, start, (size_t)(nl - start)))
			return true;
	}
}

static bool cancels_call(struct server *s, char *line, size_t len)
{
	return cancels(line, len, s->call_id.buf);
}

/* Whether a request is cancelled by a line that came after it. */
static bool cancelled_ahead(struct server *s, const char *id)
{
	sbuf_reset(&s->call_id);
	sbuf_adds(&s->call_id, id);
	size_t off = s->in_off;
	return each_line(s, &off, cancels_call);
}

/* While a call runs: a ping is answered at once (MCP wants it prompt),
 * and its line blanked, so that the main loop passes over it; the call's
 * cancellation cancels it. Other lines wait their turn. */
static bool early_line(struct server *s, char *line, size_t len)
{
	if (cancels(line, len, s->call_id.buf))
		return true;
	if (!memmem(line, len, "\"ping\"", 6))
		return false;
	struct jv *v = jv_parse(line, len, NULL, NULL, 0);
	const char *method = jv_str(jv_get(v, "method"));
	const char *version = jv_str(jv_get(v, "jsonrpc"));
	struct sbuf id = {0};
	if (method && strcmp(method, "ping") == 0 && version && strcmp(version, "2.0") == 0 &&
	    id_json(jv_get(v, "id"), &id)) {
		struct sbuf empty = {0};
		sbuf_adds(&empty, "{}");
		reply(id.buf, &empty);
		sbuf_free(&empty);
		memset(line, ' ', len);
	}
	sbuf_free(&id);
	jv_free(v);
	return false;
}

/* exec_watch's check, while a call runs: reads what came, and looks at
 * the new whole lines. The end of input cancels nothing: what came
 * before it is still served. */
static bool watch_input(void *ctx)
{
	struct server *s = ctx;
	fill(s);
	if (s->eof) {
		exec_watch(-1, NULL, NULL);
		return false;
	}
	if (s->scan_off < s->in_off)
		s->scan_off = s->in_off;
	return s->cancelled = each_line(s, &s->scan_off, early_line);
}

/* ---- the workspace ---- */

/* The workspace of the calls: attached (-w) or made on the first call,
 * with the server's own settings (not a call's timeout: the setup
 * command runs under the server's). Kept as s->pin, so that a call costs
 * no inspect. */
static int pin_workspace(struct server *s, struct err *e)
{
	if (s->pinned)
		return 0;
	struct app *a = s->base;
	if (a->ref) {
		if (ws_attach(a, a->ref, true, &s->pin, e) < 0)
			return -1;
	} else {
		if (ws_create(a, &s->pin, e) < 0) {
			if (e->kind == ERR_FAILED)
				e->kind = ERR_WORKSPACE;
			return -1;
		}
		a->ref = s->ref = xstrdup(s->pin.name);
		log_msg("workspace %s (created)", s->ref);
	}
	if (!s->ref) {
		s->ref = xstrdup(s->pin.name);
		log_msg("workspace %s", s->ref);
	}
	s->pinned = true;
	a->ws_pin = &s->pin;
	return 0;
}

/* After a call that found the workspace gone or replaced: look it up by
 * name again next time. */
static void unpin_if_lost(struct server *s, const struct err *e, int rc)
{
	if (rc < 0 && e->kind == ERR_WORKSPACE && s->pinned) {
		ws_free(&s->pin);
		s->pinned = false;
		s->base->ws_pin = NULL;
	}
}

static void finish(struct server *s)
{
	chan_close(&s->chan);
	if (!s->ref)
		return;
	if (!s->base->rm) {
		log_msg("workspace %s kept; remove it with 'sandbox destroy %s'", s->ref, s->ref);
		return;
	}
	sig_atomic_t saved = spawn_interrupted;
	spawn_interrupted = 0;
	struct err e = {0};
	if (ws_remove(s->base, s->pinned ? s->pin.id : s->ref, &e) < 0)
		log_msg("%s; remove it with 'sandbox destroy %s'", e.msg, s->ref);
	else
		log_msg("removed workspace %s", s->ref);
	ws_forget(s->base, s->ref);
	spawn_interrupted = saved;
}

/* ---- requests ---- */

static void call_tool(struct server *s, const char *id, const struct jv *params)
{
	/* Cancelled before its turn came: no work, no answer. */
	if (cancelled_ahead(s, id))
		return;
	const char *name = jv_str(jv_get(params, "name"));
	const struct tool *t = NULL;
	for (size_t i = 0; name && i < ARRAY_LEN(tools); i++)
		if (strcmp(tools[i].name, name) == 0)
			t = &tools[i];
	if (!t) {
		reply_error(id, RPC_PARAMS, "unknown tool%s%s", name ? " " : "", name ? name : "");
		return;
	}
	const struct jv *args = jv_get(params, "arguments");
	struct jv empty = {.type = JV_OBJECT};
	struct err e = {0};
	if (check_args(t, args ? args : &empty, &e) < 0) {
		reply_error(id, RPC_PARAMS, "%s", e.msg);
		return;
	}

	if (pin_workspace(s, &e) < 0) {
		struct sbuf res = {0};
		error_result(&res, &e, s->ref);
		reply(id, &res);
		sbuf_free(&res);
		return;
	}

	struct app call = *s->base;
	call.cmd = t->name;
	call.json = true;
	call.args = (struct strvec){0};
	call.old_text = call.new_text = (struct sbuf){0};
	call.cfg.env = (struct strvec){0};
	strvec_push_all(&call.cfg.env, s->base->cfg.env.v, s->base->cfg.env.n);
	call.ws_name[0] = '\0';
	apply_args(&call, t, args ? args : &empty);
	char *out = NULL;
	size_t outlen = 0;
	call.out = open_memstream(&out, &outlen);

	s->cancelled = false;
	s->scan_off = s->in_off;
	if (!s->eof)
		exec_watch(0, watch_input, s);
	int rc = t->fn(&call, &e);
	exec_watch(-1, NULL, NULL);
	fclose(call.out);

	unpin_if_lost(s, &e, rc);
	/* A cancelled request gets no answer (MCP: cancellation). */
	if (!s->cancelled) {
		struct sbuf res = {0};
		if (rc < 0)
			error_result(&res, &e, s->ref);
		else
			ok_result(&res, t, &call, rc, out, outlen);
		reply(id, &res);
		sbuf_free(&res);
	}
	free(out);
	strvec_clear(&call.args);
	strvec_clear(&call.cfg.env);
	sbuf_free(&call.old_text);
	sbuf_free(&call.new_text);
}

static void initialize(const char *id, const struct jv *params)
{
	const char *asked = jv_str(jv_get(params, "protocolVersion"));
	const char *version = versions[0];
	for (size_t i = 0; asked && i < ARRAY_LEN(versions); i++)
		if (strcmp(asked, versions[i]) == 0)
			version = versions[i];
	struct json j = {0};
	json_obj_open(&j);
	json_key(&j, "protocolVersion");
	json_str(&j, version);
	json_key(&j, "capabilities");
	json_obj_open(&j);
	json_key(&j, "tools");
	json_obj_open(&j);
	json_key(&j, "listChanged");
	json_bool(&j, false);
	json_obj_close(&j);
	json_obj_close(&j);
	json_key(&j, "serverInfo");
	json_obj_open(&j);
	json_key(&j, "name");
	json_str(&j, "sandbox");
	json_key(&j, "version");
	json_str(&j, SANDBOX_VERSION);
	json_obj_close(&j);
	json_key(&j, "instructions");
	json_str(&j, "An isolated container to work in. exec runs shell commands; read, write, "
		     "edit, glob and grep work on its files. Paths are container paths; relative "
		     "ones start at the workspace directory.");
	json_obj_close(&j);
	reply(id, &j.out);
	sbuf_free(&j.out);
}

static void list_tools(const char *id)
{
	struct json j = {0};
	json_obj_open(&j);
	json_key(&j, "tools");
	json_arr_open(&j);
	for (size_t i = 0; i < ARRAY_LEN(tools); i++) {
		json_obj_open(&j);
		json_key(&j, "name");
		json_str(&j, tools[i].name);
		json_key(&j, "description");
		json_str(&j, tools[i].desc);
		json_key(&j, "inputSchema");
		schema(&j, &tools[i]);
		json_obj_close(&j);
	}
	json_arr_close(&j);
	json_obj_close(&j);
	reply(id, &j.out);
	sbuf_free(&j.out);
}

static void request(struct server *s, const char *id, const char *method, const struct jv *params)
{
	if (params && !jv_is(params, JV_OBJECT)) {
		reply_error(id, RPC_PARAMS, "params must be an object");
	} else if (strcmp(method, "initialize") == 0) {
		initialize(id, params);
	} else if (strcmp(method, "ping") == 0) {
		struct sbuf empty = {0};
		sbuf_adds(&empty, "{}");
		reply(id, &empty);
		sbuf_free(&empty);
	} else if (strcmp(method, "tools/list") == 0) {
		list_tools(id);
	} else if (strcmp(method, "tools/call") == 0) {
		call_tool(s, id, params);
	} else {
		reply_error(id, RPC_NO_METHOD, "method not found: %s", method);
	}
}

static void handle(struct server *s, const struct sbuf *line)
{
	size_t i = 0;
	while (i < line->len && strchr(" \t\r", line->buf[i]))
		i++;
	if (i == line->len)
		return; /* an empty line is no message */
	char why[160];
	struct jv *msg = jv_parse(line->buf, line->len, NULL, why, sizeof(why));
	if (!msg) {
		reply_error(NULL, RPC_PARSE, "parse error: %s", why);
		return;
	}
	const struct jv *idv = jv_get(msg, "id");
	const char *method = jv_str(jv_get(msg, "method"));
	const char *version = jv_str(jv_get(msg, "jsonrpc"));
	struct sbuf id = {0};
	bool id_ok = idv && id_json(idv, &id);
	if (jv_is(msg, JV_ARRAY)) {
		reply_error(NULL, RPC_INVALID, "batches are not supported");
	} else if (!method && (jv_get(msg, "result") || jv_get(msg, "error"))) {
		/* An answer: we send no requests, so there is nothing to do. */
	} else if (!jv_is(msg, JV_OBJECT) || !version || strcmp(version, "2.0") != 0 || !method ||
		   (idv && !id_ok)) {
		reply_error(id_ok ? id.buf : NULL, RPC_INVALID,
			    "not a JSON-RPC 2.0 request: it needs \"jsonrpc\": \"2.0\", a method, and an id that is a string or an integer");
	} else if (id_ok) {
		request(s, id.buf, method, jv_get(msg, "params"));
	}
	/* Notifications (initialized, a late cancellation, ...) need nothing. */
	sbuf_free(&id);
	jv_free(msg);
}

int cmd_mcp(struct app *a, struct err *e)
{
	if (a->args.n)
		return err_set(e, ERR_USAGE, "mcp takes no arguments; it reads JSON-RPC on stdin");
	if (a->cfg.timeout == 0)
		a->cfg.timeout = MCP_DEFAULT_TIMEOUT;
	if (!a->output_limit)
		a->output_limit = MCP_DEFAULT_OUTPUT_LIMIT;
	/* Each exec stream keeps under half the text's room, so that both
	 * fit with their markers and the cut of a stream is what shows. */
	a->cfg.max_output = (a->output_limit - 100) / 2;
	struct server s = {.base = a};
	a->chan = &s.chan;
	if (isatty(0))
		log_msg("reading MCP messages (JSON-RPC) on stdin; this is for an agent's MCP config, see man sandbox");
	struct sbuf line = {0};
	while (!spawn_interrupted) {
		if (next_line(&s, &line)) {
			handle(&s, &line);
			continue;
		}
		if (s.eof)
			break;
		struct pollfd pfd = {0, POLLIN, 0};
		if (poll(&pfd, 1, -1) > 0)
			fill(&s);
	}
	finish(&s);
	a->chan = NULL;
	a->ws_pin = NULL;
	if (s.pinned)
		ws_free(&s.pin);
	free(s.ref);
	sbuf_free(&line);
	sbuf_free(&s.in);
	sbuf_free(&s.call_id);
	if (spawn_interrupted)
		return err_set(e, ERR_INTERRUPTED, "interrupted");
	return 0;
}
