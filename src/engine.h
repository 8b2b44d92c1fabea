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

/* `run --detach` for a new workspace. nonce, a random label value, tells
 * this create's container from any other of the same name. extra are the user's own engine run
 * arguments: refused when they would change the name, the labels or the
 * entrypoint, or bring a --network next to a non-default one. */
int engine_run_argv(struct strvec *out, const char *engine, const struct cfg *cfg,
		    const char *name, long long created, const char *nonce,
		    char *const *extra, size_t nextra, struct err *e);

/* `exec [-i] --env=K=V... -- CTR CMD...`. */
void engine_exec_argv(struct strvec *out, const char *engine, const char *ctr,
		      char *const *env, size_t nenv, bool interactive,
		      char *const *cmd, size_t ncmd);

/* `exec --interactive --tty --env=K=V... -- CTR CMD...`: the command
 * gets a terminal of the engine's, joined to the client's own. */
void engine_exec_tty_argv(struct strvec *out, const char *engine, const char *ctr,
			  char *const *env, size_t nenv, char *const *cmd, size_t ncmd);

/* `inspect` of one container: "ID\tRUNNING\tLABEL\tWORKDIR\tNONCE". */
void engine_inspect_argv(struct strvec *out, const char *engine, const char *ctr);
/* `inspect` of several: "ID\tNAME\tSTATE\tIMAGE\tCREATED" per line. */
void engine_describe_argv(struct strvec *out, const char *engine,
			  char *const *ids, size_t n);
/* `inspect` of several refs at once: "ID\tNAME\tLABEL" per container
 * found (LABEL: the value of sandbox.workspace); the engine says "no
 * such" on stderr for the others. */
void engine_check_argv(struct strvec *out, const char *engine,
		       char *const *refs, size_t n);
/* `ps` listing the full IDs of every workspace, by label. */
void engine_ps_argv(struct strvec *out, const char *engine);
void engine_start_argv(struct strvec *out, const char *engine, const char *ctr);
void engine_stop_argv(struct strvec *out, const char *engine, const char *ctr);
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

#endif
