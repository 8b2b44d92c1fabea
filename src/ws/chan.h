/* chan.h: one long-lived `engine exec -i CTR sh` in a workspace that
 * runs calls sent to it as framed requests (SCRIPT_SERVE), so that a call
 * costs a few milliseconds instead of a whole engine exec. Requests carry
 * constant scripts and their arguments as data, never as shell text.
 * exec.c runs calls over it; this file opens, describes and closes it;
 * the requests and the words are proto.h's. */
#ifndef SANDBOX_CHAN_H
#define SANDBOX_CHAN_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"
#include "spawn.h"
#include "util.h"

struct resident;

struct chan {
	struct proc p;    /* the engine client; p.pid 0 when closed */
	char *ctr;        /* the container it runs in */
	bool nosetsid;    /* the image cannot give a call its own process group */
	struct resident *lender; /* lent by the resident (resident.h): its
			   * client is not our child, and goes back to it */
};

/* Starts the server in ctr and waits for its greeting (then its stdin
 * is non-blocking, for exec.c). With
 * chan->nosetsid set on return (and 0), the image lacks setsid: calls
 * must go one engine exec each; c->ctr stays set to say for which
 * container, and chan_is_open is false. */
int chan_open(struct chan *c, const char *engine, char *const *envp, const char *ctr,
	      struct err *e);
/* The second half of chan_open, for a client started elsewhere (the
 * resident's): waits for the greeting that carries tag. On failure, c
 * is closed. */
int chan_greet(struct chan *c, const char *tag, struct err *e);
bool chan_is_open(const struct chan *c);
/* Kills the client (the server in the container then reads EOF and
 * ends) and forgets it, and what chan_open learnt. */
void chan_close(struct chan *c);
/* Done with c, which is clean (no call in it): a lent one goes back to
 * the resident, our own is closed. */
void chan_release(struct chan *c);

#endif
