/* test_spawn.c: an engine call as proc_run makes it and as a caller's
 * loop drives it (proc_call): status and output, the deadline, and a
 * child that closed its output but lives on, which is looked at without
 * holding the loop. */
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "spawn.h"
#include "tap.h"
#include "util.h"

static char *envp[] = {"PATH=/usr/bin:/bin", NULL};

/* Drives c to its end; the rounds after its output closed, and whether
 * each of them waited on nothing but the clock, for at most 10 ms. */
static int drive(struct proc_call *c, int *reap_rounds, bool *reap_ok, struct err *e)
{
	struct pollfd pfd[PROC_CALL_NFDS];
	int timeout;
	*reap_rounds = 0;
	*reap_ok = true;
	while (proc_call_next(c, pfd, &timeout)) {
		if (pfd[0].fd < 0 && pfd[1].fd < 0) {
			++*reap_rounds;
			*reap_ok = *reap_ok && timeout >= 0 && timeout <= 10;
		}
		poll(pfd, PROC_CALL_NFDS, timeout);
		proc_call_step(c, pfd);
	}
	return proc_call_end(c, e);
}

int main(void)
{
	struct sbuf out = {0};
	struct err e = {0};
	char *three[] = {"/bin/sh", "-c", "echo hi; echo no >&2; exit 3", NULL};
	ok(proc_run(three, envp, &out, NULL, 5000, &e) == 3 && out.len == 3 &&
		   memcmp(out.buf, "hi\n", 3) == 0,
	   "proc_run: the status, and stdout");
	sbuf_free(&out);

	char *slow[] = {"/bin/sleep", "5", NULL};
	ok(proc_run(slow, envp, NULL, NULL, 300, &e) == -1 && e.kind == ERR_ENGINE &&
		   strstr(e.msg, "sleep did not answer within 0.3s"),
	   "proc_run: late, killed, and said so: %s", e.msg);

	/* Its output closed, it ends a moment later: reaped in the loop. */
	char *quiet[] = {"/bin/sh", "-c", "exec >/dev/null 2>&1; sleep 0.3; exit 4", NULL};
	struct proc_call c;
	int rounds;
	bool reap_ok;
	ok(proc_call_start(&c, quiet, envp, &out, NULL, 5000, &e) == 0, "proc_call_start");
	int st = drive(&c, &rounds, &reap_ok, &e);
	ok(st == 4 && rounds > 0 && reap_ok,
	   "a child that closed its output is looked at every 10 ms, not waited for (%d rounds), "
	   "and its status kept", rounds);

	/* It lives past the deadline: killed. */
	char *stays[] = {"/bin/sh", "-c", "exec >/dev/null 2>&1; exec sleep 30", NULL};
	ok(proc_call_start(&c, stays, envp, &out, NULL, 300, &e) == 0, "proc_call_start");
	st = drive(&c, &rounds, &reap_ok, &e);
	ok(st == spawn_signal_status(SIGKILL) && reap_ok,
	   "one that lives past its deadline is killed (status %d)", st);
	sbuf_free(&out);
	return done_testing();
}
