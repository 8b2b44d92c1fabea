/* cmd_snap.c: snapshots of workspaces, as do-functions (results.h):
 * snapshot (ENGINE commit of a workspace to SNAPSHOT_REPO:NAME), the list
 * of them, fork (a snapshot and a workspace from it), destroy --snapshot,
 * and create --from's check (snap_use). A snapshot is an image that
 * carries the label sandbox.snapshot=true under our repository's name:
 * nothing else is listed, used or removed as one. What the engine says
 * of an image or a container is read as fields, bounded, and checked
 * before it is believed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app.h"
#include "engine.h"
#include "results.h"
#include "workspace.h"

/* The longest field kept of what the engine says (a path, a label). */
#define SNAP_FIELD_MAX 4096

/* Splits line at tabs into at most n fields; the count found. */
static size_t fields(char *line, char **f, size_t n)
{
	size_t k = 0;
	f[k++] = line;
	while (k < n) {
		char *tab = strchr(f[k - 1], '\t');
		if (!tab)
			break;
		*tab = '\0';
		f[k++] = tab + 1;
	}
	return k;
}

/* A field of the engine's, cut at SNAP_FIELD_MAX; Docker's "<no value>"
 * for a missing label is none. */
static char *field_new(const char *s)
{
	if (strcmp(s, "<no value>") == 0)
		s = "";
	return xstrndup(s, strnlen(s, SNAP_FIELD_MAX));
}

/* An image ID without its "sha256:" (Podman's inspect has none). */
static const char *bare_id(const char *id)
{
	return strncmp(id, "sha256:", 7) == 0 ? id + 7 : id;
}

static bool is_id(const char *id)
{
	const char *h = bare_id(id);
	size_t n = strlen(h);
	return n >= 12 && n <= 128 && strspn(h, "0123456789abcdef") == n;
}

static void row_free(struct snap_row *w)
{
	free(w->name);
	free(w->image);
	free(w->id);
	free(w->of);
	free(w->workdir);
	memset(w, 0, sizeof(*w));
}

/* Fills w from a line of engine_snap_image_argv; *ours: it carries our
 * label. -1 when the line is not what was asked for. */
static int image_line(char *line, struct snap_row *w, bool *ours)
{
	char *f[6];
	if (fields(line, f, 6) != 6 || !is_id(f[0]))
		return -1;
	*ours = strcmp(f[1], "true") == 0;
	w->id = xstrdup(bare_id(f[0]));
	w->workdir = field_new(f[2]);
	w->of = field_new(f[3]);
	long v;
	w->created = parse_long(f[4], 0, 0x7fffffffL, &v) ? v : 0;
	w->size = parse_long(f[5], 0, 0x7fffffffffffffffL, &v) ? v : 0;
	return 0;
}

/* The image SNAPSHOT_REPO:name: *missing, or w filled and *ours. */
static int snap_image(struct app *a, const char *name, struct snap_row *w, bool *missing,
		      bool *ours, struct err *e)
{
	memset(w, 0, sizeof(*w));
	*missing = *ours = false;
	char *ref = xasprintf("%s:%s", SNAPSHOT_REPO, name);
	char *refs[] = {ref};
	struct strvec argv = {0};
	struct sbuf out = {0};
	engine_snap_image_argv(&argv, a->engine, refs, 1);
	int rc = ws_engine_call(a, &argv, &out, "image inspect", ERR_ENGINE, missing, e);
	if (rc == 0 && !*missing) {
		sbuf_rtrim(&out);
		if (!out.buf || strchr(out.buf, '\n') || image_line(out.buf, w, ours) < 0) {
			row_free(w);
			rc = err_set(e, ERR_ENGINE, "image inspect %s: unexpected answer from the engine", ref);
		} else {
			w->name = xstrdup(name);
			w->image = ref;
			ref = NULL;
		}
	}
	free(ref);
	sbuf_free(&out);
	return rc;
}

int snap_use(struct app *a, struct err *e)
{
	const char *name = a->cfg.from;
	struct snap_row w;
	bool missing, ours;
	if (snap_image(a, name, &w, &missing, &ours, e) < 0)
		return -1;
	int rc = 0;
	if (missing)
		rc = err_set(e, ERR_FAILED, "no snapshot %s; 'sandbox snapshots' lists them", name);
	else if (!ours)
		rc = err_set(e, ERR_FAILED, "image %s has no label " LABEL_SNAPSHOT "=true; refusing to use it as a snapshot",
			     w.image);
	else if (!a->cfg.workdir_set && w.workdir[0]) {
		/* Its files are where its workspace's workdir was. */
		struct err bad = {0};
		if (cfg_set(&a->cfg, "workdir", w.workdir, &bad) < 0)
			rc = err_set(e, ERR_FAILED, "snapshot %s: its label " LABEL_WORKDIR " is no directory to use; pass --workdir",
				     name);
	}
	row_free(&w);
	return rc;
}

/* The workspace a snapshot is of: an argument, else -w or
 * SANDBOX_WORKSPACE. */
static int source_ref(struct app *a, const char **ref, struct err *e)
{
	if (a->o.args.n > 1)
		return err_set(e, ERR_USAGE, "give one workspace ref");
	*ref = a->o.args.n ? a->o.args.v[0] : a->ref;
	if (!*ref)
		return err_set(e, ERR_USAGE, "which workspace? give its ref, or -w REF");
	return ws_check_ref(*ref, e);
}

/* REF-YYYYMMDD-HHMMSS-XXXX (UTC), within the 128 characters of a name. */
static int default_name(const char *ref, char **name, struct err *e)
{
	char hex[5], when[32];
	time_t now = time(NULL);
	struct tm tm;
	if (random_hex(hex, 4) < 0)
		return err_set(e, ERR_ENGINE, "cannot read /dev/urandom");
	if (!gmtime_r(&now, &tm) || !strftime(when, sizeof(when), "%Y%m%d-%H%M%S", &tm))
		return err_set(e, ERR_FAILED, "cannot tell the time");
	*name = xasprintf("%.*s-%s-%s", 128 - 1 - (int)strlen(when) - 1 - 4, ref, when, hex);
	return 0;
}

/* Reads the container's inspect for a snapshot: its ID, that it is a
 * workspace, and the mounts the commit leaves out, into r. */
static int source_check(struct app *a, const char *ref, char **id, struct snapshot_result *r,
			struct err *e)
{
	struct strvec argv = {0};
	struct sbuf out = {0};
	bool missing = false;
	engine_snap_ctr_argv(&argv, a->engine, ref);
	int rc = ws_engine_call(a, &argv, &out, "inspect", ERR_ENGINE, &missing, e);
	if (rc < 0)
		goto done;
	rc = -1;
	if (missing) {
		err_set(e, ERR_WORKSPACE, "workspace %s does not exist", ref);
		goto done;
	}
	sbuf_rtrim(&out);
	char *line = out.buf ? out.buf : "";
	char *next = strchr(line, '\n');
	if (next)
		*next++ = '\0';
	char *f[3];
	if (fields(line, f, 3) != 3 || !is_id(f[0])) {
		err_set(e, ERR_ENGINE, "inspect %s: unexpected answer from the engine", ref);
		goto done;
	}
	if (strcmp(f[1], "true") != 0) {
		err_set(e, ERR_WORKSPACE, "container %s has no label " LABEL_WORKSPACE "=true; refusing to touch it", ref);
		goto done;
	}
	*id = xstrdup(f[0]);
	for (line = next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (r->nmounts == SNAP_MOUNTS_MAX) {
			r->mounts_cut = true;
			break;
		}
		char *m[3];
		if (fields(line, m, 3) != 3)
			continue;
		r->mounts = xrealloc(r->mounts, (r->nmounts + 1) * sizeof(*r->mounts));
		r->mounts[r->nmounts++] = (struct snap_mount){field_new(m[0]), field_new(m[1]),
							      field_new(m[2])};
	}
	rc = 0;
done:
	sbuf_free(&out);
	return rc;
}

/* snapshot and fork's first half: the commit, into r. */
static int snap_make(struct app *a, struct snapshot_result *r, struct err *e)
{
	const char *ref = NULL;
	if (source_ref(a, &ref, e) < 0)
		return -1;
	char *name = NULL, *id = NULL;
	if (a->o.snap.name)
		name = xstrdup(a->o.snap.name);
	else if (default_name(ref, &name, e) < 0)
		return -1;
	r->source = xstrdup(ref);
	r->name = name;
	r->image = xasprintf("%s:%s", SNAPSHOT_REPO, name);
	if (source_check(a, ref, &id, r, e) < 0)
		return -1;
	/* A commit to a name taken would move it away from its image. */
	struct snap_row w;
	bool missing, ours;
	int rc = snap_image(a, name, &w, &missing, &ours, e);
	row_free(&w);
	if (rc == 0 && !missing)
		rc = err_set(e, ERR_FAILED, "snapshot %s exists already; pick another --name, or remove it with 'sandbox destroy --snapshot %s'",
			     name, name);
	if (rc < 0) {
		free(id);
		return -1;
	}
	struct strvec argv = {0};
	struct sbuf out = {0};
	engine_commit_argv(&argv, a->engine, id, name, ref, (long long)time(NULL));
	free(id);
	/* Copying the files can take longer than a call of ours: the
	 * longer of engine_timeout and a step's. */
	double secs = ws_step_timeout(a);
	if (secs < a->cfg.engine_timeout)
		secs = a->cfg.engine_timeout;
	rc = ws_engine_call_within(a, &argv, &out, "cannot commit the workspace", ERR_FAILED, NULL,
				   secs, e);
	if (rc == 0) {
		sbuf_rtrim(&out);
		const char *last = out.buf ? strrchr(out.buf, '\n') : NULL;
		last = last ? last + 1 : out.buf ? out.buf : "";
		if (is_id(last))
			r->image_id = xstrdup(bare_id(last));
		else
			rc = err_set(e, ERR_ENGINE, "commit: unexpected answer from the engine; see '%s images %s'",
				     a->engine, r->image);
	}
	sbuf_free(&out);
	return rc;
}

int do_snapshot(struct app *a, struct snapshot_result *r, struct err *e)
{
	*r = (struct snapshot_result){.cmd = "snapshot"};
	if (snap_make(a, r, e) < 0) {
		snapshot_result_free(r);
		return -1;
	}
	return 0;
}

int do_fork(struct app *a, struct snapshot_result *r, struct err *e)
{
	*r = (struct snapshot_result){.cmd = "fork"};
	if (snap_make(a, r, e) < 0) {
		snapshot_result_free(r);
		return -1;
	}
	/* The new workspace is the snapshot's: its image, its files, its
	 * workdir; the configuration's image and copy do not apply. */
	free(a->cfg.image);
	a->cfg.image = NULL;
	free(a->cfg.from);
	a->cfg.from = xstrdup(r->name);
	free(a->cfg.copy);
	a->cfg.copy = NULL;
	a->cfg.workdir_set = false;
	struct ws ws;
	if (ws_create(a, &ws, false, e) < 0) {
		char why[sizeof(e->msg)];
		snprintf(why, sizeof(why), "%s", e->msg);
		err_set(e, e->kind, "%s; the snapshot %s stays ('sandbox destroy --snapshot %s' removes it)",
			why, r->name, r->name);
		snapshot_result_free(r);
		return -1;
	}
	r->workspace = xstrdup(ws.name);
	r->id = xstrdup(ws.id);
	ws_free(&ws);
	return 0;
}

static int by_name(const void *x, const void *y)
{
	const struct snap_row *p = x, *q = y;
	return strcmp(p->name, q->name);
}

/* Our repository, as each engine spells it. */
static bool our_repo(const char *repo)
{
	return strcmp(repo, SNAPSHOT_REPO) == 0 || strcmp(repo, "localhost/" SNAPSHOT_REPO) == 0 ||
	       strcmp(repo, "docker.io/library/" SNAPSHOT_REPO) == 0;
}

int do_snapshots(struct app *a, struct snapshots_result *r, struct err *e)
{
	*r = (struct snapshots_result){.now = (long long)time(NULL)};
	if (a->o.args.n)
		return err_set(e, ERR_USAGE, "unexpected argument '%s'", a->o.args.v[0]);
	struct strvec argv = {0}, ids = {0};
	struct sbuf out = {0};
	engine_snap_list_argv(&argv, a->engine);
	if (ws_engine_call(a, &argv, &out, "cannot list images", ERR_ENGINE, NULL, e) < 0) {
		sbuf_free(&out);
		return -1;
	}
	char *save = NULL;
	for (char *line = strtok_r(out.buf ? out.buf : "", "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *f[3];
		if (fields(line, f, 3) != 3 || !is_id(f[0]) || !our_repo(f[1]) ||
		    !cfg_valid_container_name(f[2]))
			continue;
		if (r->n == SNAP_LIST_MAX) {
			r->more = true;
			break;
		}
		r->rows = xrealloc(r->rows, (r->n + 1) * sizeof(*r->rows));
		r->rows[r->n++] = (struct snap_row){.name = xstrdup(f[2]),
						    .image = xasprintf("%s:%s", SNAPSHOT_REPO, f[2])};
		strvec_push(&ids, f[0]);
	}
	sbuf_reset(&out);
	int rc = 0;
	if (ids.n) {
		engine_snap_image_argv(&argv, a->engine, ids.v, ids.n);
		rc = ws_engine_call(a, &argv, &out, "image inspect", ERR_ENGINE, NULL, e);
	}
	/* One line an ID, in their order; each must be the image asked
	 * for, and ours. */
	size_t i = 0, kept = 0;
	save = NULL;
	for (char *line = rc == 0 && out.buf ? strtok_r(out.buf, "\n", &save) : NULL;
	     rc == 0 && line; line = strtok_r(NULL, "\n", &save), i++) {
		if (i >= ids.n) {
			rc = err_set(e, ERR_ENGINE, "image inspect: unexpected answer from the engine");
			break;
		}
		struct snap_row *w = &r->rows[i];
		bool ours;
		char *name = w->name, *image = w->image;
		w->name = w->image = NULL;
		if (image_line(line, w, &ours) < 0 || strcmp(w->id, bare_id(ids.v[i])) != 0) {
			free(name);
			free(image);
			rc = err_set(e, ERR_ENGINE, "image inspect: unexpected answer from the engine");
			break;
		}
		w->name = name;
		w->image = image;
		if (!ours)
			row_free(w); /* its name NULL: left out below */
	}
	if (rc == 0 && i != ids.n)
		rc = err_set(e, ERR_ENGINE, "image inspect: unexpected answer from the engine");
	if (rc == 0) {
		for (i = 0; i < r->n; i++)
			if (r->rows[i].name)
				r->rows[kept++] = r->rows[i];
		r->n = kept;
		qsort(r->rows, r->n, sizeof(*r->rows), by_name);
	}
	strvec_clear(&ids);
	sbuf_free(&out);
	if (rc < 0)
		snapshots_result_free(r);
	return rc;
}

int snap_destroy(struct app *a, const char *name, struct removed_result *r, struct err *e)
{
	struct snap_row w;
	bool missing, ours;
	if (snap_image(a, name, &w, &missing, &ours, e) < 0)
		return -1;
	int rc = 0;
	if (missing)
		rc = err_set(e, ERR_FAILED, "no snapshot %s; 'sandbox snapshots' lists them", name);
	else if (!ours)
		rc = err_set(e, ERR_FAILED, "image %s has no label " LABEL_SNAPSHOT "=true; refusing to remove it",
			     w.image);
	if (rc == 0) {
		struct strvec argv = {0};
		engine_image_rm_argv(&argv, a->engine, w.image);
		rc = ws_engine_call(a, &argv, NULL, "cannot remove the snapshot", ERR_FAILED, NULL, e);
		if (rc < 0 && (strstr(e->msg, "in use") || strstr(e->msg, "is using")))
			err_set(e, ERR_FAILED, "snapshot %s is in use by a container (a workspace created from it?); destroy that first",
				name);
	}
	if (rc == 0)
		r->snapshot = xstrdup(name);
	row_free(&w);
	return rc;
}

void snapshot_result_free(struct snapshot_result *r)
{
	free(r->source);
	free(r->name);
	free(r->image);
	free(r->image_id);
	for (size_t i = 0; i < r->nmounts; i++) {
		free(r->mounts[i].type);
		free(r->mounts[i].source);
		free(r->mounts[i].dest);
	}
	free(r->mounts);
	free(r->workspace);
	free(r->id);
	*r = (struct snapshot_result){0};
}

void snapshots_result_free(struct snapshots_result *r)
{
	for (size_t i = 0; i < r->n; i++)
		row_free(&r->rows[i]);
	free(r->rows);
	*r = (struct snapshots_result){0};
}
