/* cmd_life.c: the life cycle of workspaces: create, start, stop,
 * destroy, list, prune, as do-functions (results.h). Each acts only on containers that carry the
 * label sandbox.workspace=true. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app.h"
#include "engine.h"
#include "results.h"
#include "scripts.h"
#include "spawn.h"
#include "workspace.h"

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
	if (ws_create(a, &ws, false, e) < 0)
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
	}
	if (rc == 0)
		ref_fill(r, &ws);
	ws_free(&ws);
	return rc;
}

/* A number of a label: digits, at most 12 (seconds past the year
 * 33000); anything else is 0, none. */
static long long label_num(const char *f)
{
	size_t n = strspn(f, "0123456789");
	return n && n <= 12 && !f[n] ? strtoll(f, NULL, 10) : 0;
}

static bool listed(const struct strvec *ids, const char *id)
{
	for (size_t i = 0; i < ids->n; i++)
		if (strcmp(ids->v[i], id) == 0)
			return true;
	return false;
}

/* One line of the describe format into w: false when it is not one (a
 * field too many or too few, an ID the ps did not give). The values are
 * the engine's and our labels', but a container's labels are anybody's
 * who can make one: a row stands only for the container of its ID. */
static bool parse_row(char *line, const struct strvec *ids, struct ws_row *w)
{
	char *f[9] = {line};
	int n = 1;
	for (char *t = strchr(line, '\t'); t; t = strchr(t + 1, '\t')) {
		if (n == 9)
			return false;
		*t = '\0';
		f[n++] = t + 1;
	}
	if (n != 9 || !listed(ids, f[0]))
		return false;
	const char *name = f[1][0] == '/' ? f[1] + 1 : f[1]; /* Docker says "/name" */
	if (!cfg_valid_container_name(name) || has_control(f[2]) || has_control(f[3]))
		return false;
	*w = (struct ws_row){
		.id = xstrdup(f[0]), .name = xstrdup(name), .state = xstrdup(f[2]),
		.image = xstrdup(f[3]), .created = label_num(f[4]), .exit = (int)label_num(f[5]),
		.expires = label_num(f[6]), .idle = (long)label_num(f[7]),
		.spec = xstrdup(strspn(f[8], "0123456789abcdef") == strlen(f[8]) ? f[8] : ""),
	};
	return true;
}

static bool pool_member(const char *name)
{
	return strncmp(name, POOL_NAME_PREFIX, strlen(POOL_NAME_PREFIX)) == 0;
}

/* Every workspace of this engine: one ps for the IDs, one inspect for
 * the details. */
int life_list(struct app *a, struct list_result *r, enum life_which which, struct err *e)
{
	struct strvec argv = {0}, ids = {0};
	struct sbuf sb = {0};
	*r = (struct list_result){.now = (long long)time(NULL)};
	engine_ps_argv(&argv, a->engine);
	if (ws_engine_call(a, &argv, &sb, "cannot list containers", ERR_ENGINE, NULL, e) < 0) {
		sbuf_free(&sb);
		return -1;
	}
	for (char *line = strtok(sb.buf ? sb.buf : "", "\n"); line; line = strtok(NULL, "\n"))
		if (strlen(line) == 64 && strspn(line, "0123456789abcdef") == 64)
			strvec_push(&ids, line);
	sbuf_reset(&sb);
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
		bool pooled = pool_member(w.name);
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

/* life_remove, with what the engine printed into out: the refs it
 * removed, a line each (a missing one is not printed, and with --force
 * no error). */
static int remove_saying(struct app *a, const struct strvec *ids, struct removed_result *r,
			 struct sbuf *said, struct err *e)
{
	if (!ids->n)
		return 0;
	struct strvec argv = {0};
	struct sbuf out = {0};
	engine_rm_argv(&argv, a->engine, ids->v, ids->n);
	int rc = ws_engine_call(a, &argv, &out, "cannot remove", ERR_ENGINE, NULL, e);
	if (said)
		sbuf_add(said, out.buf ? out.buf : "", out.len);
	sbuf_free(&out);
	for (size_t i = 0; i < r->names.n; i++)
		ws_forget(a, r->names.v[i]);
	for (size_t i = 0; rc == 0 && i < ids->n; i++)
		copy_forget(ids->v[i]);
	return rc;
}

int life_remove(struct app *a, const struct strvec *ids, struct removed_result *r,
		struct err *e)
{
	return remove_saying(a, ids, r, NULL, e);
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
	struct list_result l;
	if (life_list(a, &l, LIFE_ALL, e) < 0)
		return -1;
	struct ws_row *w = l.rows;
	struct strvec ids = {0};
	for (size_t i = 0; i < l.n; i++) {
		if (a->o.life.stopped && strcmp(w[i].state, "running") == 0)
			continue;
		if (a->o.life.older_than > 0 && l.now - w[i].created < a->o.life.older_than)
			continue;
		if (a->o.life.expired && !life_expired(&w[i], l.now))
			continue;
		strvec_push(&ids, w[i].id);
		strvec_push(&r->names, w[i].name);
	}
	int rc = life_remove(a, &ids, r, e);
	strvec_clear(&ids);
	list_result_free(&l);
	if (rc < 0)
		removed_result_free(r);
	return rc;
}

static bool said_id(const struct sbuf *said, const char *id)
{
	size_t n = strlen(id);
	for (const char *p = said->buf; p && (p = strstr(p, id)); p += n)
		if ((p == said->buf || p[-1] == '\n') && (p[n] == '\n' || p[n] == '\0'))
			return true;
	return false;
}

/* The cached refs whose ID the engine did not say it removed: the cache
 * was stale (the container went some other way, and the name may be
 * another's now). Checked as without a cache, and removed. */
static int destroy_stale(struct app *a, const struct strvec *ids, const struct strvec *cached,
			 const struct sbuf *said, struct removed_result *r, struct err *e)
{
	struct strvec again = {0};
	int rc = 0;
	for (size_t i = 0; i < ids->n && rc == 0; i++) {
		const char *name = r->names.v[i];
		bool was_cached = false;
		for (size_t k = 0; k < cached->n; k++)
			was_cached |= strcmp(cached->v[k], name) == 0;
		if (!was_cached || said_id(said, ids->v[i]))
			continue;
		ws_forget(a, name);
		enum ws_state state;
		struct ws ws;
		rc = checked(a, name, &state, &ws, e);
		if (rc == 0 && state != WS_MISSING)
			strvec_push(&again, ws.id);
		ws_free(&ws);
	}
	struct removed_result more = {0};
	if (rc == 0)
		rc = life_remove(a, &again, &more, e);
	strvec_clear(&again);
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
	/* Check every ref first: a refused one means nothing is removed. */
	struct strvec ids = {0}, cached = {0};
	int rc = 0;
	for (size_t i = 0; i < a->o.args.n && rc == 0; i++) {
		enum ws_state state = WS_RUNNING;
		struct ws ws;
		/* An ID verified before (ws_cached) needs no inspect: IDs are
		 * never reused, so it can only be that workspace. */
		if (ws_cached(a, a->o.args.v[i], &ws))
			strvec_push(&cached, a->o.args.v[i]);
		else
			rc = checked(a, a->o.args.v[i], &state, &ws, e);
		if (rc == 0 && state != WS_MISSING) {
			strvec_push(&ids, ws.id);
			strvec_push(&r->names, ws.name);
		} else if (rc == 0) {
			ws_forget(a, a->o.args.v[i]);
		}
		ws_free(&ws);
	}
	struct sbuf said = {0};
	if (rc == 0)
		rc = remove_saying(a, &ids, r, &said, e);
	if (rc == 0 && cached.n)
		rc = destroy_stale(a, &ids, &cached, &said, r, e);
	sbuf_free(&said);
	strvec_clear(&cached);
	strvec_clear(&ids);
	if (rc < 0)
		removed_result_free(r);
	return rc;
}
