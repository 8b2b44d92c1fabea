/* relay.h: sandbox-relay (relay_bin.h, inner/relay.c) put in a
 * workspace, for forward's connections and network = allow's listener.
 * It goes to RELAY_DIR under a name that holds its build's ID, mode
 * 0555, once per build: a workspace that replaces it breaks only its
 * own connections, since the user's side decides everything. */
#ifndef SANDBOX_RELAY_H
#define SANDBOX_RELAY_H

#include <stddef.h>

#include "app.h"
#include "err.h"
#include "workspace.h"

/* Puts this build's relay in ws unless it is there: its path into
 * path, 0, or -1 with e set (a workspace on another CPU, a full or
 * read-only RELAY_DIR). */
int relay_install(struct app *a, struct ws *ws, char *path, size_t cap, struct err *e);

#endif
