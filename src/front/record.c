/* record.c: see record.h. */
#include "record.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "history.h"
#include "json.h"
#include "jvb.h"
#include "opts.h"
#include "results.h"
#include "spawn.h"

void record_begin(struct record_start *s)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	s->wall_ms = (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
	s->ms = now_ms();
	s->bytes = exec_bytes;
}

static void put_time(struct json *j, long long ms)
{
	time_t t = (time_t)(ms / 1000);
	struct tm tm;
	char buf[40];
	gmtime_r(&t, &tm);
	size_t n = strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + n, sizeof(buf) - n, ".%03dZ", (int)(ms % 1000));
	json_key(j, "time");
	json_str(j, buf);
}

/* The uid is the kernel's word; the name the login's ($USER, else
 * $LOGNAME): asking the passwd database would cost every call NSS's
 * start, a tenth of a millisecond and more. */
static void put_user(struct json *j)
{
	uid_t uid = geteuid();
	const char *name = getenv("USER");
	if (!name || !*name)
		name = getenv("LOGNAME");
	json_key(j, "user");
	if (name && *name)
		json_strn(j, name, strnlen(name, RECORD_VALUE_MAX));
	else
		json_null(j);
	json_key(j, "uid");
	json_int(j, (long long)uid);
}

/* What was asked: the command line's words, each cut; or the tool's
 * arguments, capped. */
static void put_asked(struct json *j, const struct app *a)
{
	if (a->mcp) {
		/* json_jv's room is characters, and one takes six bytes as
		 * \u0001: smaller rooms until the bytes fit, else none. */
		json_key(j, "arguments");
		for (size_t room = RECORD_ARGUMENTS_MAX; a->tool_args; room /= 4) {
			struct json t = {0};
			json_jv(&t, a->tool_args, room);
			bool fits = t.out.len <= RECORD_ARGUMENTS_MAX;
			if (fits)
				json_jv(j, a->tool_args, room);
			sbuf_free(&t.out);
			if (fits)
				return;
			if (room < 16)
				break;
		}
		json_null(j);
		if (a->tool_args) {
			json_key(j, "arguments_cut");
			json_bool(j, true);
		}
		return;
	}
	json_key(j, "argv");
	json_arr_open(j);
	size_t start = j->out.len;
	int i = 0;
	for (; i < a->argc && i < RECORD_ARGS_MAX && j->out.len - start < RECORD_ARGV_MAX; i++) {
		size_t n = strlen(a->argv[i]);
		json_strn(j, a->argv[i], n < RECORD_VALUE_MAX ? n : RECORD_VALUE_MAX);
	}
	json_arr_close(j);
	if (i < a->argc) {
		json_key(j, "argv_cut");
		json_int(j, a->argc - i);
	}
}

/* The result's words of an outcome, where it has them. */
static void put_outcome(struct json *j, const struct jv *tree)
{
	static const char *const keys[] = {"exit_code", "timed_out", "oom_killed", "kill",
					   "job", "status", "changed", "applied", "review"};
	for (size_t i = 0; i < ARRAY_LEN(keys); i++) {
		const struct jv *v = jv_get(tree, keys[i]);
		if (!v || v->type == JV_ARRAY || v->type == JV_OBJECT)
			continue;
		json_key(j, keys[i]);
		json_jv(j, v, RECORD_VALUE_MAX);
	}
}

void record_format(struct sbuf *out, const struct app *a, const char *ws,
		   const struct command *c, const struct jv *tree, int rc, const struct err *e,
		   const struct record_start *s, long long now)
{
	struct json j = {0};
	json_obj_open(&j);
	put_time(&j, s->wall_ms);
	json_key(&j, "workspace");
	json_str(&j, ws);
	json_key(&j, "via");
	json_str(&j, a->mcp ? "mcp" : "cli");
	if (a->mcp) {
		json_key(&j, "client");
		if (a->client && *a->client)
			json_str(&j, a->client);
		else
			json_null(&j);
	}
	put_user(&j);
	json_key(&j, "command");
	json_str(&j, a->mcp ? cmd_tool_name(c) : c->name);
	put_asked(&j, a);
	json_key(&j, "cwd");
	if (a->o.exec.cwd)
		json_strn(&j, a->o.exec.cwd, strnlen(a->o.exec.cwd, RECORD_VALUE_MAX));
	else
		json_null(&j);
	json_key(&j, "ok");
	json_bool(&j, rc >= 0);
	if (rc >= 0 && tree) {
		put_outcome(&j, tree);
	} else if (e) {
		json_key(&j, "error");
		json_str(&j, err_kind_name(e->kind));
		json_key(&j, "message");
		json_strn(&j, e->msg, strnlen(e->msg, RECORD_VALUE_MAX));
	}
	json_key(&j, "duration_ms");
	json_int(&j, now - s->ms);
	json_key(&j, "bytes_in");
	json_int(&j, (long long)(exec_bytes.in - s->bytes.in));
	json_key(&j, "bytes_out");
	json_int(&j, (long long)(exec_bytes.out - s->bytes.out));
	json_obj_close(&j);
	sbuf_add(out, j.out.buf, j.out.len);
	sbuf_free(&j.out);
}

/* The workspaces a call was about: the one it chose; else the one its
 * result names (create; fork's new one, and its source), or those it
 * removed (destroy, prune). */
static void names_of(const struct app *a, const struct command *c, const struct jv *tree,
		     struct strvec *names)
{
	if (a->ws_name[0]) {
		strvec_push(names, a->ws_name);
		return;
	}
	if (c->id == C_FORK && (a->o.args.n || a->ref))
		strvec_push(names, a->o.args.n ? a->o.args.v[0] : a->ref);
	if (!tree)
		return;
	const char *one = jv_str(jv_get(tree, "workspace"));
	const struct jv *removed = jv_get(tree, "removed");
	if (one)
		strvec_push(names, one);
	for (size_t i = 0; jv_is(removed, JV_ARRAY) && i < jv_count(removed); i++)
		if (jv_str(jv_at(removed, i)))
			strvec_push(names, jv_str(jv_at(removed, i)));
}

void record_call(const struct app *a, const struct command *c, const struct result_type *t,
		 const void *r, int rc, const struct err *e, const struct record_start *s)
{
	if (!a->cfg.history)
		return;
	/* The result's tree, made once: the names and every record read it. */
	struct jv tree = {0};
	bool have = rc >= 0 && t && r;
	if (have)
		t->tree(&tree, r);
	struct strvec names = {0};
	names_of(a, c, have ? &tree : NULL, &names);
	struct err why = {0};
	char *dir = names.n ? history_dir_new(&why) : NULL;
	long long now = now_ms();
	for (size_t i = 0; dir && i < names.n; i++) {
		if (!history_name_ok(names.v[i]))
			continue;
		struct sbuf line = {0};
		record_format(&line, a, names.v[i], c, have ? &tree : NULL, rc, e, s, now);
		if (line.len > HISTORY_RECORD_MAX) {
			/* Never none: the record without what was asked. */
			struct app lean = *a;
			lean.argc = 0;
			lean.tool_args = NULL;
			sbuf_reset(&line);
			record_format(&line, &lean, names.v[i], c, have ? &tree : NULL, rc, e, s, now);
		}
		if (line.len <= HISTORY_RECORD_MAX)
			history_append(dir, names.v[i], line.buf, line.len, &why);
		else
			err_set(&why, ERR_FAILED, "a record of %zu bytes, over %d: not written", line.len,
				HISTORY_RECORD_MAX);
		sbuf_free(&line);
	}
	if (why.msg[0] && spawn_verbose)
		fprintf(stderr, "sandbox: %s: the history: %s\n", c->name, why.msg);
	strvec_clear(&names);
	if (have)
		jvb_free(&tree);
	free(dir);
}
