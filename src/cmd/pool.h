/* pool.h: warm pools. A pool is a set of workspaces made ahead of time
 * (sandbox pool fill), each ready for a create of the same spec: the hash
 * of everything that makes a workspace what it is (engine_spec), a label of
 * every workspace. A pool's workspaces wait paused, named
 * POOL_NAME_PREFIX SPEC "-" HEX (12 digits); taking one unpauses it, which
 * the engine lets only one taker do, so no two get the same one; then
 * renames it to sandbox-HEX (or the name asked for). */
#ifndef SANDBOX_POOL_H
#define SANDBOX_POOL_H

#include <stddef.h>

#include "app.h"
#include "config.h"
#include "err.h"

struct ws;

/* The names of workspaces a pool fill is making: not yet ready. */
#define POOL_MAKING_PREFIX "sandbox-poolmk-"
/* The most a pool fill makes. */
#define POOL_FILL_MAX 200L

/* Takes a ready workspace of a->cfg's spec into ws, named a->cfg.name or
 * sandbox- and 12 hex digits: 1 when taken, 0 when there is none or the
 * engine would not (nothing changed: a new one is made, which says best
 * what is wrong). Looks only when this user filled a pool of the spec (a
 * file in the cache directory says so), so a create without pools costs
 * no engine call more. The workspaces this user's fills made are in that
 * file, and tried first without a ps. keep_name (a run's, removed when
 * its command ends): it keeps its pool name, one engine call less, and
 * ws->pooled is set. */
int pool_take(struct app *a, long idle, bool keep_name, struct ws *ws);

#endif
