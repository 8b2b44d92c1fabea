/* netproxy.h: the proxy of a workspace of network = allow (man sandbox,
 * NETWORK BY ALLOW-LIST), as commands start it and ask after it. It is
 * this binary's `net serve` (cmd_net.c), one a workspace, in a session
 * of its own with stdin, stdout and stderr on /dev/null, in /, holding
 * DIR/net-ID.lock (resident.h's DIR) while it runs; it ends when its
 * workspace stops. A create of such a workspace, and a start of one,
 * start it and wait until its listener in the workspace listens, so
 * that the first command finds it; the setup command too. */
#ifndef SANDBOX_NETPROXY_H
#define SANDBOX_NETPROXY_H

#include <stdbool.h>

#include "app.h"
#include "err.h"
#include "workspace.h"

/* The workspace's proxy, started unless one runs, ready: 0, or -1 with
 * e saying why (its words when it could not listen). */
int netproxy_start(struct app *a, const struct ws *ws, struct err *e);
/* DIR/net-ID.lock for the container id (its first 16 hex digits): new,
 * or NULL with e set. */
char *netproxy_lock_new(const char *id, struct err *e);
/* Whether a proxy holds the lock at path. */
bool netproxy_holds(const char *path);
/* Whether the container id had a proxy that served and runs no more
 * (killed, or its workspace stopped): its lock is there, held by nobody,
 * and says whose it was (one that never served, or whose listener broke
 * the rules, empties it: no command starts such a one again but a start).
 * No engine call: what a command that trusts its cache asks first. */
bool netproxy_lost(const char *id);
/* The workspaces whose proxies run (as each wrote in its lock: "PID
 * NAME"), into names: 0, or -1 with e set (no directory to look in). */
int netproxy_running(struct strvec *names, struct err *e);
/* After the container id stopped, or went: waits (PROC_TERM_MS at most)
 * for its proxy, if one ran, to end; removed: its lock files go too. */
void netproxy_gone(const char *id, bool removed);
/* The proxy's words to the command that started it, on its fd 3:
 * NETPROXY_READY, or NETPROXY_FAILED and one line. */
#define NETPROXY_READY 'R'
#define NETPROXY_FAILED 'E'

#endif
