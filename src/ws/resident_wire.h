/* resident_wire.h: the words between a command and the resident
 * (resident.h), each one message on the socket:
 *   resident -> command, on connect: "sandbox-resident 1 BUILD PID KEEP"
 *                     with its pidfd, or "busy" (it serves as many as it
 *                     may: the command goes on without it)
 *   take CTR       -> "held PID" or "new PID TAG", with the channel's
 *                     stdin, stdout and stderr; or "full" or "nosetsid"
 *   back PID       (with the three descriptors: the channel, clean)
 *   kill PID       (the channel must die)
 *   nosetsid PID   (the same, and its container's image lacks setsid: take
 *                  answers "nosetsid" for it from then on)
 *   info           -> "info IDLE OUT CLIENTS"
 *   stop           (the resident ends; the connection closes)
 * BUILD is the version and the binary's identity: a rebuilt sandbox
 * replaces the resident of the old one. */
#ifndef SANDBOX_RESIDENT_WIRE_H
#define SANDBOX_RESIDENT_WIRE_H

#include <stdbool.h>
#include <sys/types.h>

#include "marker.h"

#define RESIDENT_PROTO 1

struct resident_hello {
	int proto;
	char build[128];
	pid_t pid;
	long keep;
};
/* This binary's BUILD. */
const char *resident_build(void);
/* The greeting as this binary says it. */
int resident_hello_format(char *buf, size_t cap, long keep);
bool resident_hello_parse(const char *s, struct resident_hello *h);
/* Whether it is a resident of this very build. */
bool resident_hello_ours(const struct resident_hello *h);

struct resident_lent {
	pid_t pid;
	bool fresh;                    /* "new": the command awaits its greeting */
	char tag[MARKER_TAG_LEN + 1];  /* with fresh */
};
/* The answer to take, with the nfds descriptors that came with it. */
bool resident_lent_parse(const char *s, int nfds, struct resident_lent *l);
/* "WORD PID", with PID a positive number: the pid, or 0. */
pid_t resident_word_pid(const char *s, const char *word);

#endif
