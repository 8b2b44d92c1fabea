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
#include "spawn.h"
#include "workspace.h"

/* A snapshot's name while it is committed: "tmp-" and 16 hex digits. */
#define SNAP_TMP_PREFIX "tmp-"
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
 * label; names: its names, " NAME" each (in the line). -1 when the line
 * is not what was asked for. */
static int image_line(char *line, struct snap_row *w, bool *ours, const char **names)
{
	char *f[7];
	if (fields(line, f, 7) != 7 || !is_id(f[0]))
		return -1;
	*ours = strcmp(f[2], "true") == 0;
	if (names)
		*names = f[1];
	w->id = xstrdup(bare_id(f[0]));
	w->workdir = field_new(f[3]);
	w->of = field_new(f[4]);
	long v;
	w->created = parse_long(f[5], 0, 0x7fffffffL, &v) ? v : 0;
	w->size = parse_long(f[6], 0, 0x7fffffffffffffffL, &v) ? v : 0;
	return 0;
}

/* Whether names (" NAME" each) hold ref exactly, and how many they are. */
static bool has_name(const char *names, const char *ref, size_t *count)
{
	bool found = false;
	size_t n = strlen(ref);
	*count = 0;
	for (const char *p = names; (p = strchr(p, ' ')); ) {
		p++;
		size_t len = strcspn(p, " ");
		(*count)++;
		found |= len == n && strncmp(p, ref, n) == 0;
		p += len;
	}
	return found;
}

/* Our name of a snapshot, as the engine lists it: Docker's short form, or
 * Podman's fully qualified one. */
static bool our_name(const char *names, const char *name, size_t *count)
{
	char *short_ref = xasprintf("%s:%s", SNAPSHOT_REPO, name);
	char *long_ref = xasprintf("localhost/%s:%s", SNAPSHOT_REPO, name);
	size_t k;
	bool found = has_name(names, short_ref, count) || has_name(names, long_ref, &k);
	free(short_ref);
	free(long_ref);
	return found;
}

/* The image engine_snap_repo():name (or, by_id, the image of that ID):
 * *missing, or w filled; *ours: it carries our label;
 * *named: it has that name of ours, as the engine says (by_id: always);
 * *names: how many names it has. The
 * engine is given the name fully qualified, and what it found must say it
 * has that name: a short name could find an image of another registry. */
static int snap_image(struct app *a, const char *name, bool by_id, struct snap_row *w,
		      bool *missing, bool *ours, bool *named, size_t *names, struct err *e)
{
	memset(w, 0, sizeof(*w));
	*missing = *ours = *named = false;
	*names = 0;
	char *ref = by_id ? xstrdup(name) : xasprintf("%s:%s", engine_snap_repo(a->engine), name);
	char *refs[] = {ref};
	struct strvec argv = {0};
	struct sbuf out = {0};
	engine_snap_image_argv(&argv, a->engine, refs, 1);
	int rc = ws_engine_call(a, &argv, &out, "image inspect", ERR_ENGINE, missing, e);
	const char *said = NULL;
	if (rc == 0 && !*missing) {
		sbuf_rtrim(&out);
		if (!out.buf || strchr(out.buf, '\n') || image_line(out.buf, w, ours, &said) < 0) {
			row_free(w);
			rc = err_set(e, ERR_ENGINE, "image inspect %s: unexpected answer from the engine", ref);
		} else {
			if (by_id)
				has_name(said, "", names);
			*named = by_id || our_name(said, name, names);
			w->name = xstrdup(name);
			w->image = by_id ? xstrdup(name) : xasprintf("%s:%s", SNAPSHOT_REPO, name);
		}
	}
	free(ref);
	sbuf_free(&out);
	return rc;
}

/* The message for an image of that name that is not ours by name: the
 * engine found it under another (Podman's short names search every
 * registry's). */
#define SNAP_NOT_NAMED "no snapshot %s: the image the engine found is not named %s; refusing to %s it"

int snap_use(struct app *a, struct err *e)
{
	const char *name = a->cfg.from;
	if (!name)
		return 0;
	struct snap_row w;
	bool missing, ours, named;
	size_t names;
	if (snap_image(a, name, false, &w, &missing, &ours, &named, &names, e) < 0)
		return -1;
	int rc = 0;
	if (missing)
		rc = err_set(e, ERR_FAILED, "no snapshot %s; 'sandbox snapshots' lists them", name);
	else if (!named)
		rc = err_set(e, ERR_FAILED, SNAP_NOT_NAMED, name, w.image, "use");
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
 * workspace, its state (running, paused, exited, ...), and the mounts the
 * commit leaves out, into r. */
static int source_check(struct app *a, const char *ref, char **id, char **state,
			struct snapshot_result *r, struct err *e)
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
	char *f[4];
	if (fields(line, f, 4) != 4 || !is_id(f[0])) {
		err_set(e, ERR_ENGINE, "inspect %s: unexpected answer from the engine", ref);
		goto done;
	}
	if (strcmp(f[1], "true") != 0) {
		err_set(e, ERR_WORKSPACE, "container %s has no label " LABEL_WORKSPACE "=true; refusing to touch it", ref);
		goto done;
	}
	/* A pool's, by its ID: the commit would pause it, and a paused one
	 * of a pool is ready for any taker. */
	if (engine_pool_name(f[3])) {
		ws_refuse_pool(ref, e);
		goto done;
	}
	*id = xstrdup(f[0]);
	*state = xstrndup(f[2], 32);
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

/* The size check, with the workspace paused (we paused it: *paused) or
 * stopped, so that it cannot grow before the commit: the bytes of the
 * files it changed, at their apparent size, which is what a commit
 * writes (a sparse file of 100T would be written out in full). */
static int size_check(struct app *a, const char *ref, const char *id, const char *state,
		      bool *paused, struct err *e)
{
	struct strvec argv = {0};
	struct sbuf out = {0};
	*paused = false;
	if (strcmp(state, "paused") == 0)
		return err_set(e, ERR_FAILED, "workspace %s is paused (by a snapshot under way?); try again when it is done, or '%s unpause %s' first",
			       ref, a->engine, ref);
	if (strcmp(state, "running") == 0) {
		engine_pause_argv(&argv, a->engine, id, true);
		int rc = ws_engine_call(a, &argv, NULL, "cannot pause the workspace", ERR_FAILED, NULL, e);
		/* Refused by the engine (stopped, or paused by another since),
		 * it is not ours to unpause; cut short, the pause may have
		 * happened all the same. */
		*paused = rc == 0 || e->kind != ERR_FAILED;
		if (rc < 0)
			return -1;
	}
	engine_snap_size_argv(&argv, a->engine, id);
	int rc = ws_engine_call(a, &argv, &out, "inspect --size", ERR_ENGINE, NULL, e);
	if (rc < 0)
		goto done;
	sbuf_rtrim(&out);
	char *f[3];
	long long size;
	char *end;
	rc = -1;
	if (!out.buf || strchr(out.buf, '\n') || fields(out.buf, f, 3) != 3 ||
	    strcmp(f[0], id) != 0 || !*f[2] || strspn(f[2], "0123456789") != strlen(f[2]) ||
	    strlen(f[2]) > 18 || (size = strtoll(f[2], &end, 10)) < 0) {
		err_set(e, ERR_ENGINE, "inspect --size %s: unexpected answer from the engine", ref);
		goto done;
	}
	/* Started by another command since, it could grow again. */
	if (strcmp(f[1], *paused ? "paused" : state) != 0) {
		err_set(e, ERR_FAILED, "workspace %s changed state during the snapshot (%s); try again",
			ref, *paused ? "unpaused" : "started");
		goto done;
	}
	if (a->cfg.snapshot_max > 0 && size > a->cfg.snapshot_max) {
		err_set(e, ERR_FAILED, "workspace %s: its changed files come to %lld bytes (a sparse file counts in full), more than snapshot_max, %lld; nothing committed: remove files, or pass --snapshot-max",
			ref, size, a->cfg.snapshot_max);
		goto done;
	}
	rc = 0;
done:
	sbuf_free(&out);
	return rc;
}

/* Unpauses the workspace we paused, also after an error or a signal; an
 * error of its own is reported unless there was one already. */
static int unpause(struct app *a, const char *ref, const char *id, int rc, struct err *e)
{
	int outer = spawn_grace_begin();
	struct strvec argv = {0};
	struct err ue = {0};
	engine_pause_argv(&argv, a->engine, id, false);
	if (ws_engine_call(a, &argv, NULL, "cannot unpause the workspace", ERR_FAILED, NULL, &ue) < 0 &&
	    !strstr(ue.msg, "not paused")) {
		if (rc == 0) {
			*e = ue;
			rc = -1;
		} else {
			fprintf(stderr, "sandbox: %s stays paused: %s; '%s unpause %s' unpauses it\n", ref,
				ue.msg, a->engine, ref);
		}
	}
	spawn_grace_end(outer);
	return rc;
}

/* The commit of workspace id as ref: the new image's ID into r. */
static int commit(struct app *a, const char *src, const char *id, const char *ref,
		  struct snapshot_result *r, struct err *e)
{
	struct strvec argv = {0};
	struct sbuf out = {0};
	engine_commit_argv(&argv, a->engine, id, ref, src, (long long)time(NULL));
	/* Copying the files can take longer than a call of ours: the
	 * longer of engine_timeout and a step's. */
	double secs = ws_step_timeout(a);
	if (secs < a->cfg.engine_timeout)
		secs = a->cfg.engine_timeout;
	int rc = ws_engine_call_within(a, &argv, &out, "cannot commit the workspace", ERR_FAILED,
				       NULL, secs, e);
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

/* Removes the name ref; the image goes with its last name. */
static int untag(struct app *a, const char *ref, struct err *e)
{
	struct strvec argv = {0};
	engine_image_rm_argv(&argv, a->engine, ref);
	return ws_engine_call(a, &argv, NULL, "cannot remove a name of the snapshot", ERR_FAILED, NULL, e);
}

/* Gives the image committed as tmp the name name, unless it is taken;
 * then drops tmp. The engine moves a name without a word: the check
 * before the tag and the one after leave a snapshot of the same name
 * made meanwhile its image, or say that it took the name. */
static int claim(struct app *a, const char *name, const char *tmp, struct snapshot_result *r,
		 struct err *e)
{
	struct snap_row w;
	bool missing, ours, named;
	size_t names;
	struct strvec argv = {0};
	struct err ignored = {0};
	int rc = snap_image(a, name, false, &w, &missing, &ours, &named, &names, e);
	row_free(&w);
	if (rc == 0 && !missing) {
		untag(a, tmp, &ignored);
		return err_set(e, ERR_FAILED, "snapshot %s exists already (made meanwhile); pick another --name", name);
	}
	char *full = xasprintf("%s:%s", engine_snap_repo(a->engine), name);
	if (rc == 0) {
		engine_tag_argv(&argv, a->engine, r->image_id, full);
		rc = ws_engine_call(a, &argv, NULL, "cannot name the snapshot", ERR_FAILED, NULL, e);
	}
	if (rc == 0)
		rc = snap_image(a, name, false, &w, &missing, &ours, &named, &names, e);
	if (rc == 0 && (missing || !w.id || strcmp(w.id, r->image_id) != 0)) {
		untag(a, tmp, &ignored);
		rc = err_set(e, ERR_FAILED, "snapshot %s: another snapshot took the name at the same time; pick another --name",
			     name);
	} else if (rc == 0) {
		untag(a, tmp, &ignored);
	}
	row_free(&w);
	free(full);
	return rc;
}

/* snapshot and fork's first half: the commit, into r. */
static int snap_make(struct app *a, struct snapshot_result *r, struct err *e)
{
	const char *ref = NULL;
	if (source_ref(a, &ref, e) < 0)
		return -1;
	char *name = NULL, *id = NULL, *state = NULL;
	if (a->o.snap.name)
		name = xstrdup(a->o.snap.name);
	else if (default_name(ref, &name, e) < 0)
		return -1;
	r->source = xstrdup(ref);
	r->name = name;
	r->image = xasprintf("%s:%s", SNAPSHOT_REPO, name);
	if (source_check(a, ref, &id, &state, r, e) < 0)
		return -1;
	/* A commit to a name taken would move it away from its image. */
	struct snap_row w;
	bool missing, ours, named, paused = false;
	size_t names;
	int rc = snap_image(a, name, false, &w, &missing, &ours, &named, &names, e);
	row_free(&w);
	if (rc == 0 && !missing)
		rc = err_set(e, ERR_FAILED, "snapshot %s exists already; pick another --name, or remove it with 'sandbox destroy --snapshot %s'",
			     name, name);
	if (rc == 0)
		rc = size_check(a, ref, id, state, &paused, e);
	/* The commit takes a while: under a name of its own, so that a
	 * snapshot given the same name meanwhile is not moved away from its
	 * image; the name is given after (claim). */
	char hex[17];
	char *tmp = NULL;
	if (rc == 0 && random_hex(hex, 16) < 0)
		rc = err_set(e, ERR_ENGINE, "cannot read /dev/urandom");
	if (rc == 0) {
		tmp = xasprintf("%s:" SNAP_TMP_PREFIX "%s", engine_snap_repo(a->engine), hex);
		rc = commit(a, ref, id, tmp, r, e);
	}
	if (paused)
		rc = unpause(a, ref, id, rc, e);
	if (rc == 0)
		rc = claim(a, name, tmp, r, e);
	free(tmp);
	free(id);
	free(state);
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

/* A fork that failed after its snapshot was made: e says so, and how to
 * remove it; r is freed. */
static int snapshot_stays(struct snapshot_result *r, struct err *e)
{
	char why[sizeof(e->msg)];
	snprintf(why, sizeof(why), "%s", e->msg);
	err_set(e, e->kind, "%s; the snapshot %s stays ('sandbox destroy --snapshot %s' removes it)",
		why, r->name, r->name);
	snapshot_result_free(r);
	return -1;
}

/* What the workspace snapshotted (source) was made with, by its labels:
 * its runtime, unless one is given; its network allow and patterns,
 * unless the network is another than none or patterns are given. */
static int inherit_source(struct app *a, const char *source, struct err *e)
{
	enum ws_state st;
	struct ws src = {0};
	if (ws_inspect(a, source, &st, &src, e) < 0)
		return -1;
	int rc = 0;
	if (st != WS_MISSING && !a->cfg.runtime && src.runtime && *src.runtime)
		a->cfg.runtime = xstrdup(src.runtime);
	if (st != WS_MISSING && src.allow && a->cfg.allow.n == 0 &&
	    strcmp(a->cfg.network, CFG_DEFAULT_NETWORK) == 0)
		rc = cfg_set(&a->cfg, "allow", src.allow, e);
	ws_free(&src);
	return rc;
}

int do_fork(struct app *a, struct snapshot_result *r, struct err *e)
{
	*r = (struct snapshot_result){.cmd = "fork"};
	if (snap_make(a, r, e) < 0) {
		snapshot_result_free(r);
		return -1;
	}
	/* The new workspace is the snapshot's: its image, its files, its
	 * workdir, and the runtime and network allow of the workspace it
	 * came from unless others are given (a gVisor workspace's fork is
	 * no runc one by surprise, an allow one's keeps its list); the
	 * configuration's image and copy do not apply. */
	if (r->source && inherit_source(a, r->source, e) < 0) {
		return snapshot_stays(r, e);
	}
	free(a->cfg.image);
	a->cfg.image = NULL;
	free(a->cfg.from);
	a->cfg.from = xstrdup(r->name);
	free(a->cfg.copy);
	a->cfg.copy = NULL;
	a->cfg.workdir_set = false;
	struct ws ws;
	if (ws_create(a, &ws, WS_KEEP, e) < 0) {
		return snapshot_stays(r, e);
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

/* The rows of engine_snap_list_argv's answer: ours by repository, and
 * those of no name at all (a snapshot that lost its name to another of
 * the same name, made at the same time), by short ID. */
static void list_rows(char *text, struct snapshots_result *r, struct strvec *ids)
{
	char *save = NULL;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *f[3];
		if (fields(line, f, 3) != 3 || !is_id(f[0]))
			continue;
		bool none = strcmp(f[1], "<none>") == 0 && strcmp(f[2], "<none>") == 0;
		if (!none && (!our_repo(f[1]) || !cfg_valid_container_name(f[2])))
			continue;
		if (r->n == SNAP_LIST_MAX) {
			r->more = true;
			break;
		}
		char *name = none ? xstrndup(bare_id(f[0]), 12) : xstrdup(f[2]);
		r->rows = xrealloc(r->rows, (r->n + 1) * sizeof(*r->rows));
		r->rows[r->n++] = (struct snap_row){
			.name = name, .image = none ? xstrdup(name) : xasprintf("%s:%s", SNAPSHOT_REPO, name)};
		strvec_push(ids, f[0]);
	}
}

/* One listing: *gone when an image went between the list and the
 * inspect (a destroy --snapshot at the same time), its row left out. */
static int list_once(struct app *a, struct snapshots_result *r, bool *gone, struct err *e)
{
	struct strvec argv = {0}, ids = {0};
	struct sbuf out = {0};
	*gone = false;
	engine_snap_list_argv(&argv, a->engine);
	if (ws_engine_call(a, &argv, &out, "cannot list images", ERR_ENGINE, NULL, e) < 0) {
		sbuf_free(&out);
		return -1;
	}
	list_rows(out.buf ? out.buf : "", r, &ids);
	sbuf_reset(&out);
	int rc = 0;
	if (ids.n) {
		engine_snap_image_argv(&argv, a->engine, ids.v, ids.n);
		rc = ws_engine_call(a, &argv, &out, "image inspect", ERR_ENGINE, gone, e);
	}
	/* A line an image found; each must be one asked for (the first row
	 * of its ID not yet filled), and ours. */
	bool *filled = xmalloc((ids.n + 1) * sizeof(*filled));
	memset(filled, 0, (ids.n + 1) * sizeof(*filled));
	char *save = NULL;
	for (char *line = rc == 0 && out.buf ? strtok_r(out.buf, "\n", &save) : NULL;
	     rc == 0 && line; line = strtok_r(NULL, "\n", &save)) {
		struct snap_row got = {0};
		bool ours;
		const char *names;
		size_t i = ids.n, count;
		if (image_line(line, &got, &ours, &names) == 0)
			for (i = 0; i < ids.n; i++)
				if (!filled[i] && strcmp(got.id, bare_id(ids.v[i])) == 0)
					break;
		if (i == ids.n) {
			row_free(&got);
			rc = err_set(e, ERR_ENGINE, "image inspect: unexpected answer from the engine");
			break;
		}
		struct snap_row *w = &r->rows[i];
		bool none = strcmp(w->name, w->image) == 0;
		if (none)
			has_name(names, "", &count);
		filled[i] = ours && (none ? count == 0 : our_name(names, w->name, &count));
		got.name = w->name;
		got.image = w->image;
		*w = got;
		if (!filled[i])
			row_free(w);
		filled[i] = true;
	}
	/* The rows of images not found, and those not ours: left out. */
	size_t kept = 0;
	for (size_t i = 0; rc == 0 && i < r->n; i++) {
		if (r->rows[i].name && r->rows[i].id)
			r->rows[kept++] = r->rows[i];
		else if (r->rows[i].name && !*gone)
			rc = err_set(e, ERR_ENGINE, "image inspect: unexpected answer from the engine");
		else
			row_free(&r->rows[i]);
	}
	if (rc == 0)
		r->n = kept;
	free(filled);
	strvec_clear(&ids);
	sbuf_free(&out);
	return rc;
}

int do_snapshots(struct app *a, struct snapshots_result *r, struct err *e)
{
	*r = (struct snapshots_result){.now = (long long)time(NULL)};
	if (a->o.args.n)
		return err_set(e, ERR_USAGE, "unexpected argument '%s'", a->o.args.v[0]);
	bool gone;
	int rc = list_once(a, r, &gone, e);
	/* One gone: the engine may not have said all it found (Podman may
	 * say nothing of the others); once more, from a new list. */
	if (rc == 0 && gone) {
		snapshots_result_free(r);
		*r = (struct snapshots_result){.now = (long long)time(NULL)};
		rc = list_once(a, r, &gone, e);
	}
	if (rc < 0) {
		snapshots_result_free(r);
		return -1;
	}
	qsort(r->rows, r->n, sizeof(*r->rows), by_name);
	return 0;
}

/* A snapshot's image ID, short or full, as snapshots lists one of no
 * name. */
static bool id_like(const char *s)
{
	size_t n = strlen(s);
	return n >= 12 && n <= 64 && strspn(s, "0123456789abcdef") == n;
}

int snap_destroy(struct app *a, const char *name, struct removed_result *r, struct err *e)
{
	struct snap_row w;
	bool missing, ours, named, by_id = false;
	size_t names;
	if (snap_image(a, name, false, &w, &missing, &ours, &named, &names, e) < 0)
		return -1;
	/* Not a name: the ID of one that has none. */
	if (missing && id_like(name)) {
		row_free(&w);
		by_id = true;
		if (snap_image(a, name, true, &w, &missing, &ours, &named, &names, e) < 0)
			return -1;
		if (!missing && (!ours || names))
			missing = true;
	}
	int rc = 0;
	if (missing)
		rc = err_set(e, ERR_FAILED, "no snapshot %s; 'sandbox snapshots' lists them", name);
	else if (!named)
		rc = err_set(e, ERR_FAILED, SNAP_NOT_NAMED, name, w.image, "remove");
	else if (!ours)
		rc = err_set(e, ERR_FAILED, "image %s has no label " LABEL_SNAPSHOT "=true; refusing to remove it",
			     w.image);
	if (rc == 0) {
		/* One of no name: the image checked, by its ID. Else the name,
		 * fully qualified: the image goes with its last name, but stays
		 * under its others, and as the parent of a snapshot made from a
		 * workspace made from it (Docker refuses to remove that by ID). */
		struct strvec argv = {0};
		char *ref = by_id ? xstrdup(w.id) : xasprintf("%s:%s", engine_snap_repo(a->engine), name);
		engine_image_rm_argv(&argv, a->engine, ref);
		free(ref);
		rc = ws_engine_call(a, &argv, NULL, "cannot remove the snapshot", ERR_FAILED, NULL, e);
		if (rc < 0 && (strstr(e->msg, "in use") || strstr(e->msg, "is using") ||
			       strstr(e->msg, "being used")))
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
