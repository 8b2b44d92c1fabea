/* resident.h: the resident process, which holds channels (chan.h) into
 * workspaces between commands, as ssh's ControlPersist holds a
 * connection, so that a command's call costs a request over a pipe
 * instead of an engine exec.
 *
 * One runs per user and engine endpoint: its socket is
 * DIR/ENDPOINT.sock, where DIR is $SANDBOX_RUNTIME_DIR, else
 * $XDG_RUNTIME_DIR/sandbox, else /tmp/sandbox-UID (mode 0700, ours, no
 * link: else none is used), and ENDPOINT hashes the engine's path and
 * its whole environment (envp.h: DOCKER_HOST, the context, ...). It is a
 * Unix SOCK_SEQPACKET socket; each side checks the other's uid.
 *
 * The resident only keeps channels while no command uses them: a
 * command takes one (the resident starts the engine client when it has
 * none idle for that container, and the command waits for its greeting),
 * runs its calls on it itself, and gives it back when it ends, clean;
 * one it saw go wrong is killed. Its connection is the lease: when it
 * closes with a channel still out, the resident kills that channel. So
 * the resident runs no call, waits on no engine, and its death costs no
 * call anything but the next command's speed.
 *
 * It starts on the first command that wants a channel (in a session of
 * its own, stdin, stdout and stderr on /dev/null, in /), and exits after
 * keep seconds with no command and no channel out, killing the channels
 * it holds. A channel that says anything while it is held, or whose
 * client ends, is dropped. A resident of another version or build found
 * on the socket is told to end (SIGTERM) and replaced, never asked
 * anything. */
#ifndef SANDBOX_RESIDENT_H
#define SANDBOX_RESIDENT_H

#include <stdbool.h>
#include <sys/types.h>

#include "err.h"

struct chan;
struct resident;

/* The most channels a resident holds, idle or out. */
#define RESIDENT_MAX_CHANNELS 32
/* The most commands connected at once. */
#define RESIDENT_MAX_CLIENTS 64

/* The resident for engine (an absolute path) and envp, the engine's
 * environment: its door, not yet opened (nothing happens until a
 * channel is asked for); NULL when keep is 0 (off). */
struct resident *resident_new(const char *engine, char *const *envp, long keep);
void resident_free(struct resident *r);
/* A channel into the container ctr (its full ID), lent: 0 with c open
 * and c->lender set, or -1 with e saying why not (its directory is
 * unsafe, it did not answer in time, the channel did not greet us), for
 * -v; the caller goes on without it. */
int resident_take(struct resident *r, const char *ctr, struct chan *c, struct err *e);
/* c, lent and clean (no call in it), goes back; c is closed. */
void resident_back(struct chan *c);
/* c, lent, must die: the resident kills its client; c is closed. */
void resident_kill(struct chan *c);
/* Says on stderr (-v) how the last take went, when it went wrong. */
void resident_say(const struct resident *r, const struct err *why);

/* DIR, made 0700 when missing: NULL with e set when it is not a
 * directory of ours that nobody else can enter. */
char *resident_dir_new(struct err *e);

/* The endpoint as a reader knows it: the engine's name and what in its
 * environment chooses the daemon ("docker, DOCKER_HOST=ssh://h"). */
char *resident_endpoint_new(const char *engine, char *const *envp);

/* What `sandbox resident` shows. */
struct resident_info {
	bool running;
	char *path;        /* the socket */
	char *version;     /* the resident's, when running */
	long pid;
	long idle, out;    /* channels held idle, and lent */
	long clients;      /* commands connected, this one aside */
	long keep;         /* its keep, in seconds */
};
void resident_info_free(struct resident_info *i);
/* Asks the resident of engine and envp (none running: i->running false). */
int resident_query(const char *engine, char *const *envp, struct resident_info *i,
		   struct err *e);
/* Tells it to end (killing its channels) and waits until it did. */
int resident_stop(const char *engine, char *const *envp, struct resident_info *i,
		  struct err *e);

/* Stops every resident of this user (every endpoint's): how many in
 * *stopped. */
int resident_stop_all(long *stopped, struct err *e);

/* The resident itself (sandbox resident serve): listens on lfd (fd 3,
 * made by the command that started it), bound at path, until keep
 * seconds pass with nothing to do or a SIGTERM comes. Starts engine
 * clients with envp, its environment. Returns its exit status. */
int resident_serve(int lfd, const char *path, const char *engine, char *const *envp,
		   long keep);

#endif
