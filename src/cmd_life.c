/* cmd_life.c: the life cycle of workspaces: create, start, stop,
 * destroy, list, prune. Each acts only on containers that carry the
 * label sandbox.workspace=true. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app.h"
#include "engine.h"
#include "json.h"
#include "spawn.h"
#include "workspace.h"

static void print_ref(struct app *a, const char *key, const struct ws *ws)
{
	if (!a->json) {
		printf("%s\n", ws->name);
		return;
	}
	struct json j = {0};
	json_obj_open(&j);
	json_key(&j, key);
	json_str(&j, ws->name);
	json_key(&j, "id");
	json_str(&j, ws->id);
	json_obj_close(&j);
	json_print(&j, stdout);
	sbuf_free(&j.out);
}

int cmd_create(struct app *a, struct err *e)
{
	if (a->args.n)
		return err_set(e, ERR_USAGE, "unexpected argument '%s'; engine run arguments go after --", a->args.v[0]);
	struct ws ws;
	if (ws_create(a, &ws, e) < 0)
		return -1;
	print_ref(a, "workspace", &ws);
	ws_free(&ws);
	return 0;
}

/* The one ref start and stop act on: an argument, or -w. */
static int one_ref(struct app *a, const char **ref, struct err *e)
{
	if (a->args.n > 1)
		return err_set(e, ERR_USAGE, "give one workspace ref");
	*ref = a->args.n ? a->args.v[0] : a->ref;
	if (!*ref)
		return err_set(e, ERR_USAGE, "which workspace? give its ref, or -w REF");
	return ws_check_ref(*ref, e);
}

int cmd_start(struct app *a, struct err *e)
{
	const char *ref;
	struct ws ws;
	if (one_ref(a, &ref, e) < 0 || ws_attach(a, ref, false, &ws, e) < 0)
		return -1;
	print_ref(a, "workspace", &ws);
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

int cmd_stop(struct app *a, struct err *e)
{
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
		print_ref(a, "workspace", &ws);
	ws_free(&ws);
	return rc;
}

/* A workspace as list shows it. */
struct wsinfo {
	char *id, *name, *state, *image;
	long long created;
};

static void wsinfo_free(struct wsinfo *w, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(w[i].id);
		free(w[i].name);
		free(w[i].state);
		free(w[i].image);
	}
	free(w);
}

static char *next_field(char **p)
{
	char *s = *p;
	char *tab = strchr(s, '\t');
	if (tab) {
		*tab = '\0';
		*p = tab + 1;
	} else {
		*p = s + strlen(s);
	}
	return xstrdup(s);
}

/* Every workspace of this engine: one ps for the IDs, one inspect for
 * the details. */
static int list_all(struct app *a, struct wsinfo **out, size_t *n, struct err *e)
{
	struct strvec argv = {0}, ids = {0};
	struct sbuf sb = {0};
	*out = NULL;
	*n = 0;
	engine_ps_argv(&argv, a->engine);
	if (ws_engine_call(a, &argv, &sb, "cannot list containers", ERR_ENGINE, NULL, e) < 0) {
		sbuf_free(&sb);
		return -1;
	}
	for (char *line = strtok(sb.buf ? sb.buf : "", "\n"); line; line = strtok(NULL, "\n"))
		strvec_push(&ids, line);
	sbuf_reset(&sb);
	int rc = 0;
	if (ids.n) {
		engine_describe_argv(&argv, a->engine, ids.v, ids.n);
		rc = ws_engine_call(a, &argv, &sb, "cannot inspect containers", ERR_ENGINE, NULL, e);
	}
	for (char *line = rc == 0 && sb.buf ? strtok(sb.buf, "\n") : NULL; line;
	     line = strtok(NULL, "\n")) {
		*out = xrealloc(*out, (*n + 1) * sizeof(**out));
		struct wsinfo *w = &(*out)[(*n)++];
		char *p = line;
		w->id = next_field(&p);
		char *name = next_field(&p);
		/* Docker says "/name", Podman "name". */
		w->name = xstrdup(name[0] == '/' ? name + 1 : name);
		free(name);
		w->state = next_field(&p);
		w->image = next_field(&p);
		w->created = strtoll(p, NULL, 10);
	}
	strvec_clear(&ids);
	sbuf_free(&sb);
	return rc;
}

static void format_age(char *buf, size_t cap, long long s)
{
	if (s < 0)
		s = 0;
	if (s < 120)
		snprintf(buf, cap, "%llds", s);
	else if (s < 7200)
		snprintf(buf, cap, "%lldm", s / 60);
	else if (s < 172800)
		snprintf(buf, cap, "%lldh", s / 3600);
	else
		snprintf(buf, cap, "%lldd", s / 86400);
}

int cmd_list(struct app *a, struct err *e)
{
	if (a->args.n)
		return err_set(e, ERR_USAGE, "unexpected argument '%s'", a->args.v[0]);
	struct wsinfo *w;
	size_t n;
	if (list_all(a, &w, &n, e) < 0)
		return -1;
	long long now = (long long)time(NULL);
	if (a->json) {
		struct json j = {0};
		json_obj_open(&j);
		json_key(&j, "workspaces");
		json_arr_open(&j);
		for (size_t i = 0; i < n; i++) {
			json_obj_open(&j);
			json_key(&j, "workspace");
			json_str(&j, w[i].name);
			json_key(&j, "id");
			json_str(&j, w[i].id);
			json_key(&j, "state");
			json_str(&j, w[i].state);
			json_key(&j, "image");
			json_str(&j, w[i].image);
			json_key(&j, "created");
			json_int(&j, w[i].created);
			json_key(&j, "age_s");
			json_int(&j, now - w[i].created);
			json_obj_close(&j);
		}
		json_arr_close(&j);
		json_obj_close(&j);
		json_print(&j, stdout);
		sbuf_free(&j.out);
	} else {
		printf("%-24s %-10s %-32s %s\n", "REF", "STATE", "IMAGE", "AGE");
		for (size_t i = 0; i < n; i++) {
			char age[32];
			format_age(age, sizeof(age), now - w[i].created);
			printf("%-24s %-10s %-32s %s\n", w[i].name, w[i].state, w[i].image, age);
		}
	}
	wsinfo_free(w, n);
	return 0;
}

/* Removes the chosen workspaces in one engine call and says which. */
static int remove_listed(struct app *a, struct strvec *ids, struct strvec *names,
			 const char *key, struct err *e)
{
	int rc = 0;
	if (ids->n) {
		struct strvec argv = {0};
		struct sbuf out = {0};
		engine_rm_argv(&argv, a->engine, ids->v, ids->n);
		rc = ws_engine_call(a, &argv, &out, "cannot remove", ERR_ENGINE, NULL, e);
		sbuf_free(&out);
		for (size_t i = 0; i < names->n; i++)
			ws_forget(a, names->v[i]);
	}
	if (rc < 0)
		return -1;
	if (a->json) {
		struct json j = {0};
		json_obj_open(&j);
		json_key(&j, key);
		json_arr_open(&j);
		for (size_t i = 0; i < names->n; i++)
			json_str(&j, names->v[i]);
		json_arr_close(&j);
		json_obj_close(&j);
		json_print(&j, stdout);
		sbuf_free(&j.out);
	} else {
		for (size_t i = 0; i < names->n; i++)
			printf("removed %s\n", names->v[i]);
	}
	return 0;
}

int cmd_prune(struct app *a, struct err *e)
{
	if (a->args.n)
		return err_set(e, ERR_USAGE, "unexpected argument '%s'", a->args.v[0]);
	struct wsinfo *w;
	size_t n;
	if (list_all(a, &w, &n, e) < 0)
		return -1;
	long long now = (long long)time(NULL);
	struct strvec ids = {0}, names = {0};
	for (size_t i = 0; i < n; i++) {
		if (a->stopped && strcmp(w[i].state, "running") == 0)
			continue;
		if (a->older_than >= 0 && now - w[i].created < a->older_than)
			continue;
		strvec_push(&ids, w[i].id);
		strvec_push(&names, w[i].name);
	}
	int rc = remove_listed(a, &ids, &names, "removed", e);
	strvec_clear(&ids);
	strvec_clear(&names);
	wsinfo_free(w, n);
	return rc;
}

int cmd_destroy(struct app *a, struct err *e)
{
	if (a->all) {
		if (a->args.n)
			return err_set(e, ERR_USAGE, "give refs or --all, not both");
		a->stopped = false;
		a->older_than = -1;
		return cmd_prune(a, e);
	}
	/* Removal is not implied by the environment: -w, or refs, say it. */
	if (!a->args.n && a->ref && !a->ref_from_env)
		strvec_push(&a->args, a->ref);
	if (!a->args.n)
		return err_set(e, ERR_USAGE, "which workspaces? give their refs, or --all");
	for (size_t i = 0; i < a->args.n; i++)
		if (ws_check_ref(a->args.v[i], e) < 0)
			return -1;
	/* Check every ref first: a refused one means nothing is removed. */
	struct strvec ids = {0}, names = {0};
	int rc = 0;
	for (size_t i = 0; i < a->args.n && rc == 0; i++) {
		enum ws_state state;
		struct ws ws;
		rc = checked(a, a->args.v[i], &state, &ws, e);
		if (rc == 0 && state != WS_MISSING) {
			strvec_push(&ids, ws.id);
			strvec_push(&names, ws.name);
		} else if (rc == 0) {
			ws_forget(a, a->args.v[i]);
		}
		ws_free(&ws);
	}
	if (rc == 0)
		rc = remove_listed(a, &ids, &names, "removed", e);
	strvec_clear(&ids);
	strvec_clear(&names);
	return rc;
}
