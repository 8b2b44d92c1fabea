/* cmd_life.c: the life cycle of workspaces: create, start, stop,
 * destroy, list, prune, as do-functions (results.h). Each acts only on containers that carry the
 * label sandbox.workspace=true. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "app.h"
#include "engine.h"
#include "netproxy.h"
#include "pool.h"
#include "results.h"
#include "scripts.h"
#include "spawn.h"
#include "utf8.h"
#include "workspace.h"

const struct ws_origin app_origin = {.take = pool_take, .prepare = snap_use};

/* The workspace acted on, into r. */
static void ref_fill(struct ref_result *r, const struct ws *ws)
{
	r->workspace = xstrdup(ws->name);
	r->id = xstrdup(ws->id);
}

int do_create(struct app *a, struct ref_result *r, struct err *e)
{
	*r = (struct ref_result){0};
	if (a->o.args.n)
		return err_set(e, ERR_USAGE, "unexpected argument '%s'; engine run arguments go after --", a->o.args.v[0]);
	struct ws ws;
	if (ws_create(a, &ws, WS_KEEP, e) < 0)
		return -1;
	ref_fill(r, &ws);
	ws_free(&ws);
	return 0;
}

/* The one ref start and stop act on: an argument, or -w. */
static int one_ref(struct app *a, const char **ref, struct err *e)
{
	if (a->o.args.n > 1)
		return err_set(e, ERR_USAGE, "give one workspace ref");
	*ref = a->o.args.n ? a->o.args.v[0] : a->ref;
	if (!*ref)
		return err_set(e, ERR_USAGE, "which workspace? give its ref, or -w REF");
	return ws_check_ref(*ref, e);
}

int do_start(struct app *a, struct ref_result *r, struct err *e)
{
	*r = (struct ref_result){0};
	const char *ref;
	struct ws ws;
	if (one_ref(a, &ref, e) < 0 || ws_attach(a, ref, false, &ws, e) < 0)
		return -1;
	/* Running now, or why not (ws_attach goes on without it). */
	if (netproxy_start(a, &ws, e) < 0) {
		ws_free(&ws);
		return -1;
	}
	ref_fill(r, &ws);
	ws_free(&ws);
	return 0;
}

/* Inspects ref and refuses anything that is not a workspace. */
static int checked(struct app *a, const char *ref, enum ws_state *state,
		   struct ws *ws, struct err *e)
{
	memset(ws, 0, sizeof(*ws));
	if (ws_check_ref(ref, e) < 0 || ws_inspect(a, ref, state, ws, e) < 0)
		return -1;
	ws->name = xstrdup(ref);
	if (*state == WS_FOREIGN) {
		ws_free(ws);
		return err_set(e, ERR_WORKSPACE, "container %s has no label sandbox.workspace=true; refusing to touch it", ref);
	}
	return 0;
}

int do_stop(struct app *a, struct ref_result *r, struct err *e)
{
	*r = (struct ref_result){0};
	const char *ref;
	enum ws_state state;
	struct ws ws;
	if (one_ref(a, &ref, e) < 0 || checked(a, ref, &state, &ws, e) < 0)
		return -1;
	int rc = 0;
	if (state == WS_MISSING) {
		rc = err_set(e, ERR_WORKSPACE, "workspace %s does not exist", ref);
	} else if (state == WS_RUNNING) {
		struct strvec argv = {0};
		engine_stop_argv(&argv, a->engine, ws.id);
		rc = ws_engine_call(a, &argv, NULL, "cannot stop the workspace", ERR_FAILED, NULL, e);
		/* Its proxy ends with it: stop returns when it did. */
		if (rc == 0 && ws.allow)
			netproxy_gone(ws.id, false);
	}
	if (rc == 0)
		ref_fill(r, &ws);
	ws_free(&ws);
	return rc;
}

/* The IDs of every workspace of this engine, as ps gives them. */
static int ps_ids(struct app *a, struct strvec *ids, struct err *e)
{
	struct strvec argv = {0};
	struct sbuf sb = {0};
	engine_ps_argv(&argv, a->engine);
	int rc = ws_engine_call(a, &argv, &sb, "cannot list containers", ERR_ENGINE, NULL, e);
	for (char *line = rc == 0 && sb.buf ? strtok(sb.buf, "\n") : NULL; line;
	     line = strtok(NULL, "\n"))
		if (strlen(line) == 64 && strspn(line, "0123456789abcdef") == 64)
			strvec_push(ids, line);
	sbuf_free(&sb);
	return rc;
}

static bool holds(const struct strvec *v, const char *s)
{
	for (size_t i = 0; i < v->n; i++)
		if (strcmp(v->v[i], s) == 0)
			return true;
	return false;
}

/* A number of a label: digits, at most 12 (seconds past the year
 * 33000); anything else is 0, none. */
static long long label_num(const char *f)
{
	size_t n = strspn(f, "0123456789");
	return n && n <= 12 && !f[n] ? strtoll(f, NULL, 10) : 0;
}

/* A value the describe format prints as JSON: a string without escapes
 * is its text (in place); null, and anything else, is "". */
static const char *unjson(char *f)
{
	size_t n = strlen(f);
	if (n < 2 || f[0] != '"' || f[n - 1] != '"' || memchr(f + 1, '\\', n - 2) ||
	    memchr(f + 1, '"', n - 2))
		return "";
	f[n - 1] = '\0';
	return f + 1;
}

/* One line of the describe format into w: false when it is not one (a
 * field too many or too few (the runtime's may be missing), an ID the
 * ps did not give). The labels and
 * the image come as JSON, so that none can add a field or a line: a
 * container's labels are anybody's who can make one. */
static bool parse_row(char *line, const struct strvec *ids, struct ws_row *w)
{
	char *f[10] = {line};
	int n = 1;
	for (char *t = strchr(line, '\t'); t; t = strchr(t + 1, '\t')) {
		if (n == 10)
			return false;
		*t = '\0';
		f[n++] = t + 1;
	}
	/* The runtime's field last, which an engine of before it lacks. */
	if (n < 9 || !holds(ids, f[0]))
		return false;
	char none[] = "\"\"";
	if (n == 9)
		f[9] = none;
	const char *name = f[1][0] == '/' ? f[1] + 1 : f[1]; /* Docker says "/name" */
	if (!cfg_valid_container_name(name) || has_control(f[2]) || has_control(f[3]))
		return false;
	const char *spec = unjson(f[8]), *runtime = unjson(f[9]);
	*w = (struct ws_row){
		.id = xstrdup(f[0]), .name = xstrdup(name), .state = xstrdup(f[2]),
		.image = xstrdup(unjson(f[3])), .created = label_num(unjson(f[4])),
		.exit = (int)label_num(f[5]), .expires = label_num(unjson(f[6])),
		.idle = (long)label_num(unjson(f[7])),
		.spec = xstrdup(strspn(spec, "0123456789abcdef") == strlen(spec) ? spec : ""),
		.runtime = xstrdup(cfg_valid_runtime(runtime) ? runtime : ""),
	};
	return true;
}

/* Every workspace of this engine: one ps for the IDs, one inspect for
 * the details. */
int life_list(struct app *a, struct list_result *r, enum life_which which, struct err *e)
{
	struct strvec argv = {0}, ids = {0};
	struct sbuf sb = {0};
	*r = (struct list_result){.now = (long long)time(NULL)};
	if (ps_ids(a, &ids, e) < 0)
		return -1;
	int rc = 0;
	if (ids.n) {
		/* One removed since the ps is no error: the others are listed. */
		bool gone = false;
		engine_describe_argv(&argv, a->engine, ids.v, ids.n);
		rc = ws_engine_call(a, &argv, &sb, "cannot inspect containers", ERR_ENGINE, &gone, e);
	}
	for (char *line = rc == 0 && sb.buf ? strtok(sb.buf, "\n") : NULL; line;
	     line = strtok(NULL, "\n")) {
		struct ws_row w;
		if (!parse_row(line, &ids, &w))
			continue;
		bool pooled = engine_pool_name(w.name);
		if ((which == LIFE_WORKSPACES && pooled) || (which == LIFE_POOLS && !pooled)) {
			ws_row_free(&w);
			continue;
		}
		r->rows = xrealloc(r->rows, (r->n + 1) * sizeof(*r->rows));
		r->rows[r->n++] = w;
	}
	strvec_clear(&ids);
	sbuf_free(&sb);
	if (rc < 0)
		list_result_free(r);
	return rc;
}

int do_list(struct app *a, struct list_result *r, struct err *e)
{
	*r = (struct list_result){0};
	if (a->o.args.n)
		return err_set(e, ERR_USAGE, "unexpected argument '%s'", a->o.args.v[0]);
	return life_list(a, r, LIFE_WORKSPACES, e);
}

#define RM_ROUNDS 3

/* Removes the chosen workspaces (ids, and r->names beside them); r->names
 * keeps those this call removed: the ones an rm named. One rm for all of
 * them; when it does not name them all, one ps says which still exist,
 * and those go in another rm (RM_ROUNDS in all). Podman 4.3's rm --force
 * removes nothing, says nothing and exits 0 when one of its arguments is
 * gone already, as one is when another process removed it since we
 * listed it; Docker's fails for one that another rm is removing. One
 * that is gone without being named was removed by someone else. */
int life_remove(struct app *a, const struct strvec *ids, const struct strvec *paused,
		struct removed_result *r, struct err *e)
{
	size_t n = ids->n;
	if (!n)
		return 0;
	/* Paused ones are unpaused first (all in one call; one that is not
	 * paused any more is no error): Docker 20.10 kills a paused container
	 * by a kill and a resume, which can leave its rm, and every later
	 * call about it, hanging for good. */
	if (paused && paused->n) {
		struct strvec argv = {0};
		struct err ignored = {0};
		engine_unpause_all_argv(&argv, a->engine, paused->v, paused->n);
		ws_engine_call(a, &argv, NULL, "cannot unpause", ERR_ENGINE, NULL, &ignored);
	}
	enum fate { LEFT, REMOVED, GONE } *fate = xmalloc(n * sizeof(*fate));
	for (size_t i = 0; i < n; i++)
		fate[i] = LEFT;
	struct err rm_err = {0};
	size_t left = n;
	int rc = 0;
	for (int round = 0; round < RM_ROUNDS && left && rc == 0; round++) {
		struct strvec argv = {0}, these = {0}, named = {0}, still = {0};
		struct sbuf out = {0};
		for (size_t i = 0; i < n; i++)
			if (fate[i] == LEFT)
				strvec_push(&these, ids->v[i]);
		engine_rm_argv(&argv, a->engine, these.v, these.n);
		rm_err = (struct err){0};
		ws_engine_call(a, &argv, &out, "cannot remove", ERR_ENGINE, NULL, &rm_err);
		for (char *line = out.buf ? strtok(out.buf, "\n") : NULL; line; line = strtok(NULL, "\n"))
			strvec_push(&named, line);
		for (size_t i = 0; i < n; i++)
			if (fate[i] == LEFT && holds(&named, ids->v[i])) {
				fate[i] = REMOVED;
				left--;
			}
		if (left && ps_ids(a, &still, e) < 0)
			rc = rm_err.msg[0] ? err_set(e, rm_err.kind, "%s", rm_err.msg) : -1;
		for (size_t i = 0; rc == 0 && left && i < n; i++)
			if (fate[i] == LEFT && !holds(&still, ids->v[i])) {
				fate[i] = GONE;
				left--;
			}
		sbuf_free(&out);
		strvec_clear(&these);
		strvec_clear(&named);
		strvec_clear(&still);
	}
	struct strvec removed = {0};
	for (size_t i = 0; i < n; i++) {
		if (fate[i] == LEFT)
			continue;
		ws_forget(a, r->names.v[i]);
		copy_forget(ids->v[i]);
		netproxy_gone(ids->v[i], true);
		if (fate[i] == REMOVED)
			strvec_push(&removed, r->names.v[i]);
	}
	if (rc == 0 && left)
		rc = rm_err.msg[0] ? err_set(e, rm_err.kind, "%s", rm_err.msg)
				   : err_set(e, ERR_ENGINE, "cannot remove %zu of the workspaces: the engine did not say why", left);
	strvec_clear(&r->names);
	r->names = removed;
	free(fate);
	return rc;
}

bool life_expired(const struct ws_row *w, long long now)
{
	if (w->expires > 0 && now >= w->expires)
		return true;
	return strcmp(w->state, "running") != 0 && w->exit != 0 &&
	       ((w->exit == KEEPALIVE_TTL_STATUS && w->expires > 0) ||
		(w->exit == KEEPALIVE_IDLE_STATUS && w->idle > 0));
}

int do_prune(struct app *a, struct removed_result *r, struct err *e)
{
	*r = (struct removed_result){0};
	if (a->o.args.n)
		return err_set(e, ERR_USAGE, "unexpected argument '%s'", a->o.args.v[0]);
	int held = ws_removals_hold(a);
	struct list_result l;
	if (life_list(a, &l, LIFE_ALL, e) < 0) {
		if (held >= 0)
			close(held);
		return -1;
	}
	struct ws_row *w = l.rows;
	struct strvec ids = {0}, paused = {0};
	for (size_t i = 0; i < l.n; i++) {
		if (a->o.life.stopped && strcmp(w[i].state, "running") == 0)
			continue;
		if (a->o.life.older_than > 0 && l.now - w[i].created < a->o.life.older_than)
			continue;
		if (a->o.life.expired && !life_expired(&w[i], l.now))
			continue;
		strvec_push(&ids, w[i].id);
		strvec_push(&r->names, w[i].name);
		if (strcmp(w[i].state, "paused") == 0)
			strvec_push(&paused, w[i].id);
	}
	int rc = life_remove(a, &ids, &paused, r, e);
	strvec_clear(&ids);
	strvec_clear(&paused);
	list_result_free(&l);
	if (held >= 0)
		close(held);
	if (rc < 0)
		removed_result_free(r);
	return rc;
}

/* The line of an inspect by engine_check_argv that is ref's: its name,
 * else its ID or an ID's prefix, as the engine resolves it; NULL when
 * the engine found no such container. */
static char **line_of(char **lines, size_t n, const char *ref)
{
	for (size_t i = 0; i < n; i++) {
		const char *name = strchr(lines[i], '\t');
		if (!name)
			continue;
		name += name[1] == '/' ? 2 : 1; /* Docker says "/name" */
		size_t len = strcspn(name, "\t");
		if (strlen(ref) == len && strncmp(name, ref, len) == 0)
			return &lines[i];
	}
	for (size_t i = 0; i < n; i++)
		if (strncmp(lines[i], ref, strlen(ref)) == 0 && lines[i][strlen(ref)] != '\0')
			return &lines[i];
	return NULL;
}

/* Checks refs (each a valid ref already) in one inspect: their IDs into
 * ids and their names into names, the same order, and the IDs of the
 * paused ones into paused too; a missing one is forgotten and skipped;
 * one without the workspace label refuses all. */
static int check_refs(struct app *a, const struct strvec *refs, struct strvec *ids,
		      struct strvec *names, struct strvec *paused, struct err *e)
{
	struct strvec argv = {0}, lines = {0};
	struct sbuf out = {0};
	bool missing = false;
	engine_check_argv(&argv, a->engine, refs->v, refs->n);
	int rc = ws_engine_call(a, &argv, &out, "inspect", ERR_ENGINE, &missing, e);
	for (char *line = rc == 0 && out.buf ? strtok(out.buf, "\n") : NULL; line;
	     line = strtok(NULL, "\n"))
		strvec_push(&lines, line);
	for (size_t i = 0; rc == 0 && i < refs->n; i++) {
		const char *ref = refs->v[i];
		char **line = line_of(lines.v, lines.n, ref);
		if (!line) {
			ws_forget(a, ref);
			continue;
		}
		/* ID, name, state, the label as JSON: a label cannot add a
		 * field or a line. */
		char *f[4] = {*line}, *t = *line;
		int nf = 1;
		while (nf < 4 && (t = strchr(t, '\t'))) {
			*t++ = '\0';
			f[nf++] = t;
		}
		const char *id = f[0];
		if (nf != 4 || strchr(f[3], '\t') || strlen(id) != 64 ||
		    strspn(id, "0123456789abcdef") != 64)
			rc = err_set(e, ERR_ENGINE, "inspect %s: unexpected answer from the engine", ref);
		else if (strcmp(f[3], "\"true\"") != 0)
			rc = err_set(e, ERR_WORKSPACE, "container %s has no label sandbox.workspace=true; refusing to touch it", ref);
		if (rc < 0)
			break;
		strvec_push(ids, id);
		strvec_push(names, ref);
		if (strcmp(f[2], "paused") == 0)
			strvec_push(paused, id);
	}
	strvec_clear(&lines);
	sbuf_free(&out);
	return rc;
}

int do_destroy(struct app *a, struct removed_result *r, struct err *e)
{
	*r = (struct removed_result){0};
	if (a->o.life.snapshot) {
		if (a->o.life.all || a->o.args.n)
			return err_set(e, ERR_USAGE, "--snapshot NAME removes a snapshot alone; workspaces go in a destroy of their own");
		return snap_destroy(a, a->o.life.snapshot, r, e);
	}
	if (a->o.life.all) {
		if (a->o.args.n)
			return err_set(e, ERR_USAGE, "give refs or --all, not both");
		a->o.life.stopped = a->o.life.expired = false;
		a->o.life.older_than = 0;
		return do_prune(a, r, e);
	}
	/* Removal is not implied by the environment: -w, or refs, say it. */
	if (!a->o.args.n && a->ref && !a->ref_from_env)
		strvec_push(&a->o.args, a->ref);
	if (!a->o.args.n)
		return err_set(e, ERR_USAGE, "which workspaces? give their refs, or --all");
	for (size_t i = 0; i < a->o.args.n; i++)
		if (ws_check_ref(a->o.args.v[i], e) < 0)
			return -1;
	/* Check every ref first, in one inspect: a refused one means nothing
	 * is removed. An ID verified before (ws_cached) needs no inspect: IDs
	 * are never reused, so it can only be that workspace. */
	struct strvec ids = {0}, unknown = {0}, cached = {0}, paused = {0};
	for (size_t i = 0; i < a->o.args.n; i++) {
		struct ws ws;
		if (ws_cached(a, a->o.args.v[i], &ws)) {
			strvec_push(&ids, ws.id);
			strvec_push(&r->names, ws.name);
			strvec_push(&cached, ws.name);
		} else {
			strvec_push(&unknown, a->o.args.v[i]);
		}
		ws_free(&ws);
	}
	int rc = unknown.n ? check_refs(a, &unknown, &ids, &r->names, &paused, e) : 0;
	if (rc == 0)
		rc = life_remove(a, &ids, &paused, r, e);
	/* A cached ID the engine did not remove was gone already: the cache
	 * was stale, and the name may be another container's now. */
	struct strvec stale = {0}, again = {0};
	for (size_t i = 0; rc == 0 && i < cached.n; i++)
		if (!holds(&r->names, cached.v[i]))
			strvec_push(&stale, cached.v[i]);
	if (rc == 0 && stale.n) {
		struct removed_result more = {0};
		strvec_clear(&paused);
		rc = check_refs(a, &stale, &again, &more.names, &paused, e);
		if (rc == 0)
			rc = life_remove(a, &again, &paused, &more, e);
		for (size_t i = 0; i < more.names.n; i++)
			strvec_push(&r->names, more.names.v[i]);
		removed_result_free(&more);
	}
	strvec_clear(&stale);
	strvec_clear(&again);
	strvec_clear(&unknown);
	strvec_clear(&cached);
	strvec_clear(&ids);
	strvec_clear(&paused);
	if (rc < 0)
		removed_result_free(r);
	return rc;
}
