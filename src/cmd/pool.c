/* pool.c: see pool.h; and sandbox pool, its do-function. */
#include "pool.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine.h"
#include "results.h"
#include "scripts.h"
#include "workspace.h"

/* ---- the note of a user's pools ----
 * A file per engine and spec in the cache directory, which the fills of
 * this user write: that the pool was filled (so a create without one
 * asks the engine nothing), and a line "ID NAME" per workspace it made,
 * which a take hands out once (so it needs no ps). Writers hold a POSIX
 * record lock on it. A line may be stale (taken by somebody else's take,
 * drained): the unpause that claims it then fails and the next is tried. */

#define HINT_MAX (256 * 1024)
/* The most lines of the note one take tries before it lists the pool. */
#define HINT_TRIES 3

static char *hint_path(const struct app *a, const char *spec)
{
	if (!a->cache_dir)
		return NULL;
	return xasprintf("%s/pool-%s-%s", a->cache_dir, ws_engine_name(a), spec);
}

/* Without a cache directory there is no note: always look. */
static bool hint_says(const struct app *a, const char *spec)
{
	char *p = hint_path(a, spec);
	bool yes = !p || access(p, F_OK) == 0;
	free(p);
	return yes;
}

/* The note, opened and locked; -1 when it cannot be. */
static int hint_open(const struct app *a, const char *spec, int flags)
{
	char *p = hint_path(a, spec);
	if (!p)
		return -1;
	if (flags & O_CREAT)
		make_dirs(a->cache_dir);
	int fd = open(p, flags | O_RDWR | O_CLOEXEC | O_NOFOLLOW, 0600);
	free(p);
	struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
	if (fd >= 0 && fcntl(fd, F_SETLKW, &fl) < 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* Forgets the pool of spec: under the lock, so that no take is handed a
 * line from a file on its way out. */
static void hint_drop(const struct app *a, const char *spec)
{
	int fd = hint_open(a, spec, 0);
	char *p = hint_path(a, spec);
	if (fd >= 0 && p)
		unlink(p);
	free(p);
	if (fd >= 0)
		close(fd);
}

/* Notes that the pool of spec was filled, with the workspace id, name
 * when not NULL. */
static void hint_add(const struct app *a, const char *spec, const char *id, const char *name)
{
	int fd = hint_open(a, spec, O_CREAT | O_APPEND);
	if (fd < 0)
		return;
	struct stat st;
	if (id && fstat(fd, &st) == 0 && st.st_size < HINT_MAX) {
		char *line = xasprintf("%s %s\n", id, name);
		if (write(fd, line, strlen(line)) < 0) {
			/* A lost line costs a ps, no more. */
		}
		free(line);
	}
	close(fd);
}

/* Rewrites the note of spec to the pool's ready workspaces, ids and
 * names as a ps gave them, but the one at skip (ids->n: none); drops it
 * when there are none. */
static void hint_reset(const struct app *a, const char *spec, const struct strvec *ids,
		       const struct strvec *names, size_t skip)
{
	if (ids->n == (skip < ids->n ? 1u : 0u)) {
		hint_drop(a, spec);
		return;
	}
	int fd = hint_open(a, spec, 0);
	if (fd < 0)
		return;
	struct sbuf sb = {0};
	for (size_t i = 0; i < ids->n && sb.len < HINT_MAX - 256; i++) {
		if (i == skip)
			continue;
		sbuf_add(&sb, ids->v[i], strlen(ids->v[i]));
		sbuf_add(&sb, " ", 1);
		sbuf_add(&sb, names->v[i], strlen(names->v[i]));
		sbuf_add(&sb, "\n", 1);
	}
	if (ftruncate(fd, 0) == 0 && pwrite(fd, sb.buf, sb.len, 0) < 0) {
		/* Lost lines cost a ps, no more. */
	}
	sbuf_free(&sb);
	close(fd);
}

/* A pool workspace's ID and name, as ps or the note gives them. */
static bool pool_ctr_ok(const char *spec, const char *id, const char *name)
{
	char prefix[64];
	snprintf(prefix, sizeof(prefix), POOL_NAME_PREFIX "%s-", spec);
	size_t plen = strlen(prefix);
	return strspn(id, "0123456789abcdef") == 64 && !id[64] &&
	       strncmp(name, prefix, plen) == 0 && strlen(name) == plen + 12 &&
	       strspn(name + plen, "0123456789abcdef") == 12;
}

/* Hands out the first line of the note: its ID and name in id and name
 * (their sizes 65 and 64), and takes it out. False when it has none. */
static bool hint_pop(const struct app *a, const char *spec, char *id, char *name)
{
	int fd = hint_open(a, spec, 0);
	if (fd < 0)
		return false;
	char *buf = xmalloc(HINT_MAX + 1);
	ssize_t n = pread(fd, buf, HINT_MAX, 0);
	bool got = false;
	size_t at = 0;
	while (!got && n > 0 && at < (size_t)n) {
		char *line = buf + at, *nl = memchr(line, '\n', (size_t)n - at);
		if (!nl)
			break;
		*nl = '\0';
		at = (size_t)(nl - buf) + 1;
		char *sp = strchr(line, ' ');
		if (sp && sp - line == 64 && strlen(sp + 1) < 64) {
			*sp = '\0';
			if (pool_ctr_ok(spec, line, sp + 1)) {
				snprintf(id, 65, "%s", line);
				snprintf(name, 64, "%s", sp + 1);
				got = true;
			}
		}
	}
	/* A file of HINT_MAX bytes without a line end is no note. */
	if (n == HINT_MAX && at == 0 && ftruncate(fd, 0) < 0) {
		/* Then every take lists the pool, no more. */
	}
	/* The rest stays, the lines handed out (or unreadable) go. */
	if (n > 0 && at > 0 && ftruncate(fd, 0) == 0 && at < (size_t)n &&
	    pwrite(fd, buf + at, (size_t)n - at, 0) < 0) {
		/* Lost lines cost a ps, no more. */
	}
	free(buf);
	close(fd);
	return got;
}

/* ---- taking ---- */

/* The pool's ready (paused) workspaces: IDs and names, as the engine says. A
 * line that is not ID TAB NAME of the pool is skipped. */
static int ready_ones(struct app *a, const char *spec, struct strvec *ids,
		      struct strvec *names, struct err *e)
{
	struct strvec argv = {0};
	struct sbuf out = {0};
	engine_pool_ps_argv(&argv, a->engine, spec);
	if (ws_engine_call(a, &argv, &out, "cannot list the pool", ERR_ENGINE, NULL, e) < 0) {
		sbuf_free(&out);
		return -1;
	}
	for (char *line = strtok(out.buf ? out.buf : "", "\n"); line; line = strtok(NULL, "\n")) {
		char *tab = strchr(line, '\t');
		if (!tab)
			continue;
		*tab = '\0';
		if (!pool_ctr_ok(spec, line, tab + 1))
			continue;
		strvec_push(ids, line);
		strvec_push(names, tab + 1);
	}
	sbuf_free(&out);
	return 0;
}

/* The name a pool's workspace is taken under: sandbox- and the 12 hex
 * digits its pool name ends with. */
static void taken_name(const char *pool_name, char out[32])
{
	snprintf(out, 32, "sandbox-%s", pool_name + strlen(pool_name) - 12);
}

static int pause_ctr(struct app *a, const char *ctr, bool pause, struct err *e)
{
	struct strvec argv = {0};
	engine_pause_argv(&argv, a->engine, ctr, pause);
	return ws_engine_call(a, &argv, NULL, pause ? "cannot pause a pool's workspace"
						   : "cannot take a workspace from the pool",
			      ERR_FAILED, NULL, e);
}

static int rename_ctr(struct app *a, const char *from, const char *to, struct err *e)
{
	struct strvec argv = {0};
	engine_rename_argv(&argv, a->engine, from, to);
	return ws_engine_call(a, &argv, NULL, "cannot rename a pool's workspace", ERR_FAILED,
			      NULL, e);
}

/* Claims the pool's workspace id, name into ws: 1 when it is ours, 0
 * when another took it first or it is gone, -1 when it is ours but its
 * name would not do (it is back in the pool: a new one would fail too).
 * keep_name: as pool_take's. */
static int claim(struct app *a, const char *spec, const char *id, const char *name,
		 bool keep_name, struct ws *ws)
{
	struct err lost = {0}, *e = &lost;
	/* The claim: of two takers, one unpauses it; the other is told it
	 * is not paused. (A rename is no claim: Docker finds the container
	 * by its old name before it locks it, Podman renames a container to
	 * the name it has.) By its pool name, never by its ID: once taken
	 * it has that name no more, so a stale line of a note cannot unpause
	 * somebody's workspace that is paused for a while (a snapshot).
	 * A run's keeps that name (keep_name), but no taker unpauses it:
	 * it is not paused, and cannot pause itself. */
	if (pause_ctr(a, name, false, e) < 0)
		return 0;
	if (keep_name) {
		/* Unpaused, it is no taker's: they claim only paused ones. */
		*ws = (struct ws){.name = xstrdup(name), .id = xstrdup(id),
				  .workdir = xstrdup(a->cfg.workdir), .pooled = true,
				  .runtime = a->cfg.runtime ? xstrdup(a->cfg.runtime) : NULL};
		return 1;
	}
	char mine[32];
	taken_name(name, mine);
	const char *want = a->cfg.name ? a->cfg.name : mine;
	if (rename_ctr(a, name, want, e) < 0) {
		/* The name is taken: back to the pool it goes. */
		if (pause_ctr(a, name, true, e) < 0)
			ws_remove(a, id, NULL);
		else
			hint_add(a, spec, id, name);
		return -1;
	}
	/* Ours: made from this spec, so with its workdir. */
	*ws = (struct ws){.name = xstrdup(want), .id = xstrdup(id),
			  .workdir = xstrdup(a->cfg.workdir),
			  .runtime = a->cfg.runtime ? xstrdup(a->cfg.runtime) : NULL};
	return 1;
}

int pool_take(struct app *a, long idle, bool keep_name, struct ws *ws)
{
	char spec[ENGINE_SPEC_LEN + 1];
	engine_spec(&a->cfg, a->o.extra.v, a->o.extra.n, idle, spec);
	if (!hint_says(a, spec))
		return 0;
	/* First a few of the ones this user's fills made, without a ps: a
	 * line goes stale when another user takes its workspace, or it is
	 * removed, and each costs an engine call. */
	char id[65], name[64];
	int got = 0;
	for (int k = 0; k < HINT_TRIES && got == 0 && hint_pop(a, spec, id, name); k++)
		got = claim(a, spec, id, name, keep_name, ws);
	if (got)
		return got > 0;
	struct err ignored = {0};
	struct strvec ids = {0}, names = {0};
	if (ready_ones(a, spec, &ids, &names, &ignored) < 0)
		return 0;
	/* From a random one on: concurrent takers seldom try the same. */
	unsigned char r = 0;
	char hex[3];
	if (random_hex(hex, 2) == 0)
		r = (unsigned char)strtoul(hex, NULL, 16);
	size_t took = ids.n;
	for (size_t k = 0; k < ids.n && got == 0; k++) {
		size_t i = (k + r) % ids.n;
		got = claim(a, spec, ids.v[i], names.v[i], keep_name, ws);
		if (got > 0)
			took = i;
	}
	/* The note says from now on what the engine said, but the one
	 * taken. */
	hint_reset(a, spec, &ids, &names, took);
	strvec_clear(&ids);
	strvec_clear(&names);
	return got > 0;
}

/* ---- sandbox pool ---- */

static struct pool_row *row_of(struct pool_result *r, const char *spec, const char *image)
{
	for (size_t i = 0; i < r->n; i++)
		if (strcmp(r->rows[i].spec, spec) == 0)
			return &r->rows[i];
	r->rows = xrealloc(r->rows, (r->n + 1) * sizeof(*r->rows));
	struct pool_row *p = &r->rows[r->n++];
	*p = (struct pool_row){.spec = xstrdup(spec), .image = xstrdup(image)};
	return p;
}

/* The pools, from every pool workspace of the engine; only spec's when
 * not NULL. */
static int pools(struct app *a, struct pool_result *r, const char *spec, struct err *e)
{
	struct list_result l;
	if (life_list(a, &l, LIFE_POOLS, e) < 0)
		return -1;
	for (size_t i = 0; i < l.n; i++) {
		const struct ws_row *w = &l.rows[i];
		if (spec && strcmp(w->spec, spec) != 0)
			continue;
		struct pool_row *p = row_of(r, w->spec, w->image);
		if (strcmp(w->state, "paused") == 0)
			p->ready++;
		else
			p->stopped++;
	}
	list_result_free(&l);
	return 0;
}

/* One more ready workspace for the pool of spec: made and set up under a
 * name no taker looks for, then renamed into the pool. */
static int fill_one(struct app *a, const char *spec, long idle, struct err *e)
{
	char hex[13], making[64], name[64];
	struct ws ws;
	if (random_hex(hex, 12) < 0)
		return err_set(e, ERR_ENGINE, "cannot read /dev/urandom");
	snprintf(making, sizeof(making), POOL_MAKING_PREFIX "%s-%s", spec, hex);
	snprintf(name, sizeof(name), POOL_NAME_PREFIX "%s-%s", spec, hex);
	if (ws_make(a, &ws, making, idle, true, e) < 0)
		return -1;
	ws_forget(a, making);
	int rc = 0;
	if (idle > 0 && ws_script(a, &ws, SCRIPT_ARMABLE, e) != 0)
		rc = e->kind ? -1 : err_set(e, ERR_FAILED, "an idle time cannot work in this workspace: its keep-alive cannot write /tmp (read-only, missing, or not the user's); fill the pool without --idle");
	if (rc == 0)
		rc = pause_ctr(a, ws.id, true, e);
	if (rc == 0)
		rc = rename_ctr(a, ws.id, name, e);
	if (rc < 0)
		ws_remove(a, ws.id, NULL);
	else
		hint_add(a, spec, ws.id, name);
	ws_free(&ws);
	return rc;
}

static int pool_fill(struct app *a, struct pool_result *r, struct err *e)
{
	long n;
	if (a->o.args.n != 2 || !parse_long(a->o.args.v[1], 1, POOL_FILL_MAX, &n))
		return err_set(e, ERR_USAGE, "pool fill N: give how many ready workspaces the pool should have, 1 to %ld", POOL_FILL_MAX);
	if (a->cfg.copy)
		return err_set(e, ERR_USAGE, "a pool cannot hold copy workspaces: create --copy makes its own");
	if (a->cfg.ttl)
		return err_set(e, ERR_USAGE, "a pool cannot hold workspaces with a ttl: it would run out while they wait");
	if (a->cfg.from)
		return err_set(e, ERR_USAGE, "a pool cannot hold workspaces of a snapshot: create --from makes its own");
	if (a->cfg.name)
		return err_set(e, ERR_USAGE, "a pool names its workspaces itself; --name is for create");
	if (!a->cfg.image)
		return err_set(e, ERR_USAGE, "no image: pass --image IMG or set image in sandbox.ini");
	long idle = ws_idle(a, false);
	char spec[ENGINE_SPEC_LEN + 1];
	engine_spec(&a->cfg, a->o.extra.v, a->o.extra.n, idle, spec);
	if (pools(a, r, spec, e) < 0)
		return -1;
	struct pool_row *p = row_of(r, spec, a->cfg.image);
	while (p->ready < n) {
		if (fill_one(a, spec, idle, e) < 0)
			return -1;
		p->ready++;
		r->made++;
	}
	hint_add(a, spec, NULL, NULL);
	return 0;
}

static int pool_drain(struct app *a, struct pool_result *r, struct err *e)
{
	const char *spec = a->o.pool.spec;
	if (a->o.args.n > 1)
		return err_set(e, ERR_USAGE, "unexpected argument '%s'", a->o.args.v[1]);
	if (spec && (strlen(spec) != ENGINE_SPEC_LEN || strspn(spec, "0123456789abcdef") != ENGINE_SPEC_LEN))
		return err_set(e, ERR_USAGE, "--spec '%s': expected a pool's spec, %d hex digits as pool list shows it", spec, ENGINE_SPEC_LEN);
	int held = ws_removals_hold(a);
	struct list_result l;
	if (life_list(a, &l, LIFE_POOLS, e) < 0) {
		if (held >= 0)
			close(held);
		return -1;
	}
	struct strvec ids = {0}, paused = {0};
	for (size_t i = 0; i < l.n; i++) {
		if (spec && strcmp(l.rows[i].spec, spec) != 0)
			continue;
		strvec_push(&ids, l.rows[i].id);
		strvec_push(&r->removed.names, l.rows[i].name);
		if (strcmp(l.rows[i].state, "paused") == 0)
			strvec_push(&paused, l.rows[i].id);
		hint_drop(a, l.rows[i].spec);
	}
	int rc = life_remove(a, &ids, &paused, &r->removed, e);
	strvec_clear(&ids);
	strvec_clear(&paused);
	list_result_free(&l);
	if (held >= 0)
		close(held);
	return rc;
}

int do_pool(struct app *a, struct pool_result *r, struct err *e)
{
	*r = (struct pool_result){0};
	const char *what = a->o.args.n ? a->o.args.v[0] : "";
	int rc;
	if (strcmp(what, "fill") == 0) {
		r->action = POOL_FILL;
		rc = pool_fill(a, r, e);
	} else if (strcmp(what, "list") == 0) {
		r->action = POOL_LIST;
		rc = a->o.args.n > 1 ? err_set(e, ERR_USAGE, "unexpected argument '%s'", a->o.args.v[1])
				     : pools(a, r, NULL, e);
	} else if (strcmp(what, "drain") == 0) {
		r->action = POOL_DRAIN;
		rc = pool_drain(a, r, e);
	} else {
		rc = err_set(e, ERR_USAGE, "pool %s: expected fill N, list or drain", *what ? what : "what?");
	}
	if (rc < 0)
		pool_result_free(r);
	return rc;
}
