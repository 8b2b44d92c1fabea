/* engine.h: every argument vector given to docker or podman is built
 * here, and only here. Pure functions: no I/O, so each one is unit-tested
 * against golden vectors. Values from the user go after `--` or as
 * --flag=value, so none of them can be read as an option. */
#ifndef SANDBOX_ENGINE_H
#define SANDBOX_ENGINE_H

#include <stdbool.h>
#include <stddef.h>

#include "config.h"
#include "err.h"
#include "util.h"

#define LABEL_WORKSPACE "sandbox.workspace"
#define LABEL_CREATED "sandbox.created"
#define LABEL_VERSION "sandbox.version"
#define LABEL_WORKDIR "sandbox.workdir"
#define LABEL_NONCE "sandbox.nonce"
/* Expiry (create --ttl, --idle): the deadline, seconds since the epoch;
 * the idle time, seconds. The keep-alive carries them out (SCRIPT_KEEPALIVE). */
#define LABEL_EXPIRES "sandbox.expires"
#define LABEL_IDLE "sandbox.idle"
/* The OCI runtime the workspace was made with ("" for the engine's). */
#define LABEL_RUNTIME "sandbox.runtime"
/* network = allow's patterns, space-separated after a seal ("" for any
 * other network): what the workspace's proxy lets through. The seal
 * hashes them with the workspace's nonce, so that an image's label of
 * that name, which shows through on a workspace made before there was
 * one, opens nothing. */
#define LABEL_ALLOW "sandbox.allow"
#define ENGINE_SEAL_LEN 16
void engine_allow_seal(const char *nonce, const char *patterns, char out[ENGINE_SEAL_LEN + 1]);
/* The patterns of a label sealed for nonce, or NULL. */
const char *engine_allow_open(const char *nonce, const char *label);
/* Where a workspace of network = allow finds its proxy: its own
 * 127.0.0.1:ENGINE_PROXY_PORT, named in every form tools read. */
#define ENGINE_PROXY_PORT 3128
/* What a workspace was made from, as a hash (engine_spec): a pool's
 * ready workspaces and the creates they serve share it. */
#define LABEL_SPEC "sandbox.spec"
/* The names of a pool's ready workspaces start with this; taking one
 * renames it. */
#define POOL_NAME_PREFIX "sandbox-pool-"
/* Whether a container's name (with Docker's leading '/' or without) is a
 * pool's ready workspace's. */
bool engine_pool_name(const char *name);
/* A snapshot: an image committed from a workspace, named
 * SNAPSHOT_REPO:NAME, with these labels of its own. */
#define LABEL_SNAPSHOT "sandbox.snapshot"
#define LABEL_SNAPSHOT_OF "sandbox.snapshot.of"
#define LABEL_SNAPSHOT_CREATED "sandbox.snapshot.created"
#define SNAPSHOT_REPO "sandbox-snapshot"

/* What makes one new workspace's container its own. */
struct run_ids {
	const char *name;
	long long created;     /* seconds since the epoch */
	const char *nonce;     /* random: tells this create's container from
				* any other of the same name */
	const char *spec;      /* engine_spec() of the config */
	long long expires;     /* ttl's deadline; 0: none */
	long idle;             /* seconds; 0: none */
	bool pooled;           /* for a pool: the idle clock waits for a taker */
};

/* Whether engine is Podman (its name), which takes the runtime as a
 * global option, before the command; Docker as run's. */
bool engine_is_podman(const char *engine);
/* Whether runtime is gVisor's runsc (by its name or its path's). */
bool engine_runtime_is_runsc(const char *runtime);
/* The options that give a container runtime (NULL: the engine's own),
 * appended to out: with global, those that go before the command (for
 * Podman: --runtime, and network=none for runsc with network none),
 * else those after run (for Docker: --runtime). */
void engine_runtime_args(struct strvec *out, const char *engine, const char *runtime,
			 const char *network, bool global);
/* `run --detach` for a new workspace. extra are the user's own engine run
 * arguments: refused when they would change the name, the labels or the
 * entrypoint, or bring a --network next to a non-default one. When
 * cfg->from names a snapshot, the image is engine_snap_repo():from, never
 * pulled. */
int engine_run_argv(struct strvec *out, const char *engine, const struct cfg *cfg,
		    const struct run_ids *ids, char *const *extra, size_t nextra,
		    struct err *e);

/* Our repository as the engine is given it: fully qualified on Podman
 * (localhost/SNAPSHOT_REPO), whose short names would match the same
 * repository under any registry; SNAPSHOT_REPO for Docker, which takes a
 * name as it is. */
const char *engine_snap_repo(const char *engine);
/* `commit` of workspace ctr (an ID) as ref (engine_snap_repo():NAME),
 * paused while it is copied. The image keeps the workspace's files, user,
 * environment and workdir label; it loses what made the container a
 * workspace (the labels sandbox.workspace, nonce and created are made
 * empty: a container run from it by hand is no workspace) and the
 * keep-alive as its command (an entrypoint that runs its arguments, and
 * sh); it gains the snapshot labels: of (the workspace's name), created. */
void engine_commit_argv(struct strvec *out, const char *engine, const char *ctr,
			const char *ref, const char *of, long long created);
/* `tag -- IMAGE REF`: REF names IMAGE too, taken from any other. */
void engine_tag_argv(struct strvec *out, const char *engine, const char *image, const char *ref);
/* `inspect --size` of one container: "ID\tSTATUS\tSIZE_RW", the bytes of
 * the files it changed, at their apparent size (a sparse file counts in
 * full, as a commit writes it). */
void engine_snap_size_argv(struct strvec *out, const char *engine, const char *ctr);
/* `inspect` of one container for a snapshot: "ID\tLABEL\tSTATUS" on
 * the first line, then "TYPE\tSOURCE\tDESTINATION" for each mount. */
void engine_snap_ctr_argv(struct strvec *out, const char *engine, const char *ctr);
/* `image inspect` of one image: "ID\tNAMES\tSNAPSHOT\tWORKDIR\tOF\tCREATED\tSIZE"
 * (NAMES: " NAME" for each of its names; the
 * labels sandbox.snapshot, sandbox.workdir, sandbox.snapshot.of and
 * created); of several, one such line each. */
void engine_snap_image_argv(struct strvec *out, const char *engine, char *const *refs,
			    size_t n);
/* `images` of every image labelled sandbox.snapshot=true:
 * "ID\tREPOSITORY\tTAG" per line, full IDs. */
void engine_snap_list_argv(struct strvec *out, const char *engine);
/* `image rm` of one image (no --force: one in use stays). */
void engine_image_rm_argv(struct strvec *out, const char *engine, const char *ref);

/* `exec [-i] --env=K=V... -- CTR CMD...`. */
void engine_exec_argv(struct strvec *out, const char *engine, const char *ctr,
		      char *const *env, size_t nenv, bool interactive,
		      char *const *cmd, size_t ncmd);

/* `exec --interactive --tty --env=K=V... -- CTR CMD...`: the command
 * gets a terminal of the engine's, joined to the client's own. */
void engine_exec_tty_argv(struct strvec *out, const char *engine, const char *ctr,
			  char *const *env, size_t nenv, char *const *cmd, size_t ncmd);

/* `inspect` of one container:
 * "ID\tRUNNING\tLABEL\tWORKDIR\tNONCE\tEXPIRES". */
void engine_inspect_argv(struct strvec *out, const char *engine, const char *ctr);
/* `inspect` of several, a line each:
 * "ID\tNAME\tSTATE\tIMAGE\tCREATED\tEXIT\tEXPIRES\tIDLE\tSPEC". */
void engine_describe_argv(struct strvec *out, const char *engine,
			  char *const *ids, size_t n);
/* `inspect` of several refs at once: "ID\tNAME\tLABEL" per container
 * found (LABEL: the value of sandbox.workspace); the engine says "no
 * such" on stderr for the others. */
void engine_check_argv(struct strvec *out, const char *engine,
		       char *const *refs, size_t n);
/* `ps` listing the full IDs of every workspace, by label. */
void engine_ps_argv(struct strvec *out, const char *engine);
/* `ps` of a pool's ready (paused) workspaces: "ID\tNAMES" per line. */
void engine_pool_ps_argv(struct strvec *out, const char *engine, const char *spec);
/* `pause -- CTR`, or `unpause`: the engine checks the state under the
 * container's lock, so of two unpauses one fails. */
void engine_pause_argv(struct strvec *out, const char *engine, const char *ctr, bool pause);
/* `rename -- FROM TO`. */
void engine_rename_argv(struct strvec *out, const char *engine, const char *from,
			const char *to);
/* runtime and network: the workspace's (NULL: the engine's own), which
 * Podman must be told again (engine_runtime_args). */
void engine_start_argv(struct strvec *out, const char *engine, const char *ctr,
		       const char *runtime, const char *network);
void engine_stop_argv(struct strvec *out, const char *engine, const char *ctr);
/* ENGINE unpause -- ID...: before a removal, which Docker 20.10 can hang
 * on for good when it must kill a paused container. */
void engine_unpause_all_argv(struct strvec *out, const char *engine, char *const *ids,
			     size_t n);
/* `rm --force --volumes`: also the container's anonymous volumes. */
void engine_rm_argv(struct strvec *out, const char *engine, char *const *ids,
		    size_t n);

/* What sandbox doctor asks. The client's own `--version`, which needs
 * no daemon; `info` as one JSON object (the daemon's version, cgroups,
 * the limits it can enforce, rootless); Docker's `context inspect` of the
 * current context, "NAME\tHOST"; `image inspect` of one image, its ID. */
void engine_version_argv(struct strvec *out, const char *engine);
void engine_info_argv(struct strvec *out, const char *engine);
void engine_context_argv(struct strvec *out, const char *engine);
void engine_image_argv(struct strvec *out, const char *engine, const char *image);

/* The spec of a new workspace of cfg, the engine run arguments extra and
 * the idle time, as ENGINE_SPEC_LEN hex digits of a hash: image, workdir,
 * network, limits, user, environment, mounts, setup, extra, idle; not
 * its name, copy, ttl or timeouts (LABEL_SPEC; pools, pool.h). */
#define ENGINE_SPEC_LEN 16
void engine_spec(const struct cfg *cfg, char *const *extra, size_t nextra, long idle,
		 char out[ENGINE_SPEC_LEN + 1]);

#endif
