/* proxy.h: the proxy of network = allow (man sandbox, NETWORK BY
 * ALLOW-LIST), the user's side of it: one process a workspace, started
 * by netproxy.h as `sandbox net serve`. It runs sandbox-relay listen in
 * the workspace (one engine exec: the engine carries every connection,
 * so there is no route out of the workspace, no resolver in it, and it
 * works the same with rootless Podman and a daemon over ssh) and takes
 * each connection made there as an HTTP proxy would: CONNECT to a
 * listed port, or plain HTTP with an absolute URI. It decides on the
 * name (egress.h), resolves it itself, refuses loopback, private,
 * link-local and the like unless that address is listed, connects to
 * what it resolved, and relays. Every connection's fate goes to the
 * log, DIR/NAME.jsonl in ~/.local/state/sandbox/net (history.h's way:
 * one JSON object a line, where no workspace can write). Bounded in
 * everything: MUX_MAX_CONNS (256) at once, EGRESS_HEAD_MAX of request head
 * read within PROXY_HEAD_MS, PROXY_IDLE_MS without a byte either way,
 * a window per connection each way; a workspace that floods or stalls
 * it slows only its own connections. */
#ifndef SANDBOX_PROXY_H
#define SANDBOX_PROXY_H

#include "app.h"
#include "err.h"
#include "workspace.h"

#define PROXY_HEAD_MS 30000
#define PROXY_CONNECT_MS 10000
#define PROXY_IDLE_MS 300000
/* The most names SANDBOX_RESOLVE maps. */
#define PROXY_MAX_RESOLVE 32

struct proxy_conf {
	struct app *a;
	struct ws *ws;            /* id and name */
	const char *lock;         /* held while it runs */
	const char *logdir;
	const char *resolve;      /* SANDBOX_RESOLVE's NAME=ADDR,...; NULL: none */
	char *const *patterns;
	size_t npatterns;
	int report;               /* where it says it is ready, or -1 */
};

/* Serves until the workspace's relay ends (the workspace stopped) or a
 * signal: 0, or -1 with e set (and said on report) when it could not
 * start. */
int proxy_serve(const struct proxy_conf *pc, struct err *e);

/* For tests/fuzz/fuzz_proxy.c: b, as frames from a relay, fed in pieces
 * (each piece's length drawn from its first byte) to a proxy with no
 * pattern (so every request is refused, and nothing is resolved or
 * connected to), no relay and no log, whose frames for the relay are
 * taken whenever they pass OUT_HARD. NULL when every bound held after
 * every piece (what waits for the relay, each connection's window and
 * buffers), else the one that did not. */
const char *proxy_fuzz_feed(const unsigned char *b, size_t n);

#endif
