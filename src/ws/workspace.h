/* workspace.h: finding, checking, creating and removing workspaces.
 * A ref is a container name; it is trusted but checked: it must be a
 * valid name, and a container without the label sandbox.workspace=true is
 * never touched. A name verified once is remembered with the container's
 * full ID, so later calls address the container by ID with no inspect:
 * a container replaced under the same name has another ID, and the first
 * failed exec sends us back to a full check. */
#ifndef SANDBOX_WORKSPACE_H
#define SANDBOX_WORKSPACE_H

#include <stdbool.h>

#include "app.h"
#include "err.h"
#include "exec.h"

struct ws {
	char *name;
	char *id;
	char *workdir; /* from the label; NULL when there is none */
	char *nonce;   /* from the label, after an inspect */
	long long expires; /* ttl's deadline, after an inspect; 0: none */
	char *runtime; /* from the label, after an inspect; NULL: the engine's */
	char *network; /* its network mode, after an inspect */
	char *allow;   /* network = allow's patterns, space-separated, after an
			* inspect or a create; NULL: another network */
	bool cached;  /* id came from the cache, not from an inspect now */
	bool pooled;  /* taken from a pool for a run, under its pool name */
};

void ws_free(struct ws *ws);
int ws_check_ref(const char *ref, struct err *e);
/* The refusal of a pool's workspace as a ref: -1, e set. */
int ws_refuse_pool(const char *ref, struct err *e);
/* The engine's name, the last component of its path: in cache files'. */
const char *ws_engine_name(const struct app *a);

enum ws_state { WS_MISSING, WS_FOREIGN, WS_STOPPED, WS_RUNNING };
/* One inspect: whether the container exists, has the label, runs; its
 * ID and workdir go into ws (when not NULL). */
int ws_inspect(struct app *a, const char *ref, enum ws_state *state, struct ws *ws,
	       struct err *e);

/* Attaches to ref: checked by inspect (or taken from the cache when
 * trust_cache), started if stopped. */
int ws_attach(struct app *a, const char *ref, bool trust_cache, struct ws *ws,
	      struct err *e);
/* What a new workspace is for. */
enum ws_use {
	WS_KEEP,       /* create, fork: the user's until destroyed */
	WS_BY_THE_WAY, /* for a command that needed one (exec without -w,
			* mcp): CFG_DEFAULT_IDLE unless idle is set */
	WS_BRIEF,      /* run's, removed when its command ends: one from a
			* pool keeps the pool's name (ws->pooled), which
			* saves the rename */
};
/* Where a new workspace comes from is decided above this layer, and
 * handed down as a->origin (NULL: always a new container). take: a ready
 * workspace of a->cfg's spec into ws, named a->cfg.name or sandbox- and
 * 12 hex digits, 1 when taken, 0 when none was (nothing changed);
 * keep_name: it keeps its name (a run's, removed when its command ends).
 * prepare: readies a->cfg for a new one (create --from: the snapshot's
 * image and workdir), 0, or -1 with e set. Either may be NULL. */
struct ws_origin {
	int (*take)(struct app *a, long idle, bool keep_name, struct ws *ws);
	int (*prepare)(struct app *a, struct err *e);
};
/* A new workspace from a->cfg and a->o.extra: one taken (a->origin's
 * take) when there is one, else one made (ws_make). */
int ws_create(struct app *a, struct ws *ws, enum ws_use use, struct err *e);
/* Makes a new workspace named name (a->origin's prepare first): the
 * container, the copy (create --copy), the setup command (its output to
 * stderr: stdout is for results); removes it again if a step fails.
 * pooled: for a pool, whose idle clock waits for a taker. */
int ws_make(struct app *a, struct ws *ws, const char *name, long idle, bool pooled,
	    struct err *e);
/* Runs one of our constant scripts (scripts.h) in ws, its output to
 * stderr: its exit status, or -1 with e set. */
int ws_script(struct app *a, struct ws *ws, const char *script, struct err *e);
/* The idle time of a new workspace (ws_create's by_the_way). */
long ws_idle(const struct app *a, bool by_the_way);
/* Removes by name or ID; a container that is already gone is fine. */
int ws_remove(struct app *a, const char *ref, struct err *e);
/* The same by a full ID, in a process of ours that outlives us
 * (spawn_fork_detached), the engine call under its usual deadline. 0
 * when it is on its way; -1 when it is not (no cache directory for its
 * lock and record, a drain or prune holds the lock, no fork, a signal
 * came): nothing was started then, and the caller removes it. */
int ws_remove_detached(struct app *a, const char *id);
/* For a destroy --all, prune or pool drain: waits, up to the engine's
 * deadline and 5 s (then says so), for this user's detached removals to
 * end, and holds them off until the returned fd is closed (runs then
 * remove their workspace themselves); removes the workspaces of those
 * whose process died or failed. -1: nothing to hold. */
int ws_removals_hold(struct app *a);

/* create --copy (cmd_copy.c): copies a->cfg.copy into the new
 * workspace's workdir and keeps its baseline; copy_forget drops the
 * baseline of a container ID. */
int copy_seed(struct app *a, struct ws *ws, struct err *e);
void copy_forget(const char *id);
void ws_forget(struct app *a, const char *name);
/* The workspace name was verified as before, from the cache alone; false
 * when the cache does not know it. */
bool ws_cached(struct app *a, const char *name, struct ws *ws);

/* The workspace a command acts on: a->ws_pin, -w or SANDBOX_WORKSPACE, or
 * else a new one from the config, announced on stderr (text mode). */
int ws_select(struct app *a, struct ws *ws, struct err *e);

/* Runs a command in ws; if the engine could not start it in a container
 * found through the cache, checks the ref again and retries once. */
int ws_exec(struct app *a, struct ws *ws, struct exec_req *rq,
	    struct exec_res *res, struct err *e);

/* Runs one engine command of our own (inspect, run, start, stop, rm,
 * ps) under the engine_timeout deadline, and clears argv; its stdout
 * goes into out when not NULL. 0 when it succeeded; when the engine says
 * "no such" and missing is not NULL, *missing is set and 0; else -1 with
 * e set: it could not run, or what failed, in the engine's words
 * (ws_engine_error). The one place an engine call of ours is made. */
int ws_engine_call(const struct app *a, struct strvec *argv, struct sbuf *out,
		   const char *what, enum err_kind kind, bool *missing, struct err *e);
/* What to do when a->cfg.runtime does not run, into buf: how the engine
 * is told of it (Docker: the daemon's runtimes; Podman: its path). */
int ws_runtime_advice(const struct app *a, char *buf, size_t cap);
/* The same with a deadline of its own, in seconds (snapshot's commit). */
int ws_engine_call_within(const struct app *a, struct strvec *argv, struct sbuf *out,
			  const char *what, enum err_kind kind, bool *missing, double seconds,
			  struct err *e);
/* The deadline of a step of ours that runs in the workspace (a file
 * tool's script, setup): timeout, or WS_STEP_TIMEOUT when that is 0. */
#define WS_STEP_TIMEOUT 600.0
double ws_step_timeout(const struct app *a);
/* Sets e from an engine failure: ERR_ENGINE when the daemon could not be
 * reached, else kind; the engine's own words follow what. */
int ws_engine_error(const char *what, const struct sbuf *engine_err,
		    enum err_kind kind, struct err *e);

#endif
