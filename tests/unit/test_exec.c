/* test_exec.c: exec's state machine (exec.h), with an "engine" that runs
 * the command right here: a script that drops `exec --interactive
 * [--env=K=V]... -- CTR` and runs the rest, so that the real wrapper
 * (SCRIPT_EXEC) and the real kill (SCRIPT_KILL) run in a local sh. A
 * call's status and output; a timeout and a cancel that kill it; a
 * caller's own loop that serves its own fd while it drives the call and
 * cancels it from there; a timeout that counts from the command's start;
 * a missing working directory. */
#include <fcntl.h>
#include <sys/stat.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exec.h"
#include "spawn.h"
#include "tap.h"
#include "util.h"

static const char engine_text[] =
	"#!/bin/sh\n"
	"[ \"$1\" = exec ] || exit 125\n"
	"shift\n"
	"while [ \"$1\" != -- ]; do shift; done\n"
	"shift 2\n"
	"exec \"$@\"\n";

struct out {
	struct sbuf s[2];
	int writes;
};

static int sink_write(void *ctx, int stream, const char *buf, size_t n)
{
	struct out *o = ctx;
	sbuf_add(&o->s[stream - 1], buf, n);
	o->writes++;
	return 0;
}

static char *envp[] = {"PATH=/usr/bin:/bin", NULL};

static void req_init(struct exec_req *rq, const char *engine, char **cmd, size_t n,
		     struct out *o)
{
	*rq = (struct exec_req){
		.engine = engine, .envp = envp, .ctr = "local", .cmd = cmd, .ncmd = n,
		.engine_ms = 10000, .sink = {sink_write, o},
	};
}

static void out_free(struct out *o)
{
	sbuf_free(&o->s[0]);
	sbuf_free(&o->s[1]);
}

/* An engine whose kill exec (the one exec without --interactive) first
 * writes a byte to the FIFO %s/kill, then never answers; its stop
 * works. */
static const char hang_kill_text[] =
	"#!/bin/sh\n"
	"[ \"$1\" = stop ] && exit 0\n"
	"[ \"$1\" = exec ] || exit 125\n"
	"case \" $* \" in *\" --interactive \"*) ;; *) echo k >%s/kill; exec sleep 30 ;; esac\n"
	"shift\n"
	"while [ \"$1\" != -- ]; do shift; done\n"
	"shift 2\n"
	"exec \"$@\"\n";

/* An engine that first runs the first %s before the call (the exec with
 * --interactive), the second before the kill exec (the one without). */
static const char slow_engine_text[] =
	"#!/bin/sh\n"
	"[ \"$1\" = exec ] || exit 125\n"
	"case \" $* \" in *\" --interactive \"*) %s ;; *) %s ;; esac\n"
	"shift\n"
	"while [ \"$1\" != -- ]; do shift; done\n"
	"shift 2\n"
	"exec \"$@\"\n";

static char *engine_file(const char *dir, const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", dir, name);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0755);
	if (fd < 0 || write_all(fd, text, strlen(text)) < 0)
		exit(1);
	close(fd);
	return path;
}

/* A caller's loop: the call's fds, and a pipe of its own; a byte on the
 * pipe cancels the call. It counts its rounds and the bytes it read. */
struct own_loop {
	int fd;
	int rounds, got;
	bool cancelled_it;
};

static void own_drive(void *ctx, struct exec *x)
{
	struct own_loop *l = ctx;
	struct pollfd pfd[EXEC_NFDS + 1];
	int wait;
	while (exec_next(x, pfd, &wait)) {
		l->rounds++;
		pfd[EXEC_NFDS] = (struct pollfd){l->cancelled_it ? -1 : l->fd, POLLIN, 0};
		if (poll(pfd, EXEC_NFDS + 1, wait) < 0)
			continue;
		if (pfd[EXEC_NFDS].revents) {
			char c;
			if (read(l->fd, &c, 1) == 1)
				l->got++;
			exec_cancel(x);
			l->cancelled_it = true;
		}
		exec_step(x, pfd);
	}
}

int main(void)
{
	char dir[] = "/tmp/test_exec.XXXXXX";
	if (!mkdtemp(dir))
		return 1;
	char *engine = xasprintf("%s/engine", dir);
	int fd = open(engine, O_WRONLY | O_CREAT | O_EXCL, 0755);
	if (fd < 0 || write_all(fd, engine_text, sizeof(engine_text) - 1) < 0)
		return 1;
	close(fd);

	struct out o = {0};
	struct exec_req rq;
	struct exec_res res;
	struct err e = {0};
	char *three[] = {"/bin/sh", "-c", "echo out; echo err >&2; exit 3"};
	req_init(&rq, engine, three, 3, &o);
	int rc = exec_run(&rq, &res, &e);
	ok(rc == 0 && res.outcome == EXEC_DONE && res.status == 3 && res.kill == KILL_NONE,
	   "a command's own status (3)");
	ok(o.s[0].len == 4 && memcmp(o.s[0].buf, "out\n", 4) == 0 && o.s[1].len == 4 &&
	   memcmp(o.s[1].buf, "err\n", 4) == 0, "its stdout and stderr, markers taken out");
	sbuf_free(&res.engine_err);
	out_free(&o);

	/* A timeout kills it in the "container" (here). */
	char *sleeper[] = {"/bin/sh", "-c", "echo started; sleep 30"};
	req_init(&rq, engine, sleeper, 3, &o);
	rq.timeout = 0.5;
	long long t0 = now_ms();
	rc = exec_run(&rq, &res, &e);
	long long took = now_ms() - t0;
	ok(rc == 0 && res.outcome == EXEC_TIMED_OUT && res.kill == KILL_KILLED && took < 8000,
	   "a timeout: timed out, killed where it ran, in %lld ms", took);
	sbuf_free(&res.engine_err);
	out_free(&o);

	/* Driven by hand: cancelled once it said something. */
	req_init(&rq, engine, sleeper, 3, &o);
	struct exec *x = exec_start(&rq, &res, &e);
	ok(x != NULL, "exec_start");
	struct pollfd pfd[EXEC_NFDS];
	int wait, steps = 0;
	t0 = now_ms();
	while (x && exec_next(x, pfd, &wait)) {
		if (poll(pfd, EXEC_NFDS, wait) >= 0)
			exec_step(x, pfd);
		if (++steps < 100000 && o.s[0].len && now_ms() - t0 < 20000)
			exec_cancel(x);
	}
	exec_free(x);
	ok(res.outcome == EXEC_CANCELLED && res.kill == KILL_KILLED && o.s[0].len == 8,
	   "exec_cancel: cancelled, killed where it ran, its output so far passed on");
	sbuf_free(&res.engine_err);
	out_free(&o);

	/* A caller's own loop drives it, and cancels it from its own fd. */
	int p[2];
	if (pipe(p) < 0)
		return 1;
	struct own_loop l = {.fd = p[0]};
	struct exec_loop loop = {own_drive, &l};
	req_init(&rq, engine, sleeper, 3, &o);
	rq.loop = &loop;
	t0 = now_ms();
	x = exec_start(&rq, &res, &e);
	/* The byte is there before the first round: the loop cancels the
	 * call as soon as it starts to drive it. */
	(void)!write(p[1], "c", 1);
	if (x) {
		rq.loop->drive(rq.loop->ctx, x);
		exec_free(x);
	}
	took = now_ms() - t0;
	ok(res.outcome == EXEC_CANCELLED && l.got == 1 && l.rounds > 0 && took < 8000,
	   "a caller's loop serves its own fd and cancels the call from it (%d rounds)", l.rounds);
	sbuf_free(&res.engine_err);
	out_free(&o);

	/* exec_run hands the call to the request's loop. */
	struct own_loop idle = {.fd = p[0]};
	struct exec_loop loop2 = {own_drive, &idle};
	req_init(&rq, engine, three, 3, &o);
	rq.loop = &loop2;
	rc = exec_run(&rq, &res, &e);
	ok(rc == 0 && res.outcome == EXEC_DONE && res.status == 3 && idle.rounds > 0 && !idle.got,
	   "exec_run: the request's loop drives the call to its end");
	sbuf_free(&res.engine_err);
	out_free(&o);
	close(p[0]);
	close(p[1]);

	/* A kill that does not answer runs in the caller's loop: the byte the
	 * kill exec writes is read by that loop while the kill still runs
	 * (after it, the loop would end without reading it). The kill, which
	 * never says it started, gets engine_ms, then the "container" is
	 * stopped. */
	char *hang_engine = xasprintf("%s/hang-engine", dir);
	char *fifo = xasprintf("%s/kill", dir);
	char *text = xasprintf(hang_kill_text, dir);
	fd = open(hang_engine, O_WRONLY | O_CREAT | O_EXCL, 0755);
	if (fd < 0 || write_all(fd, text, strlen(text)) < 0 || mkfifo(fifo, 0600) < 0)
		return 1;
	close(fd);
	struct own_loop k = {.fd = open(fifo, O_RDONLY | O_NONBLOCK)};
	int keep = open(fifo, O_WRONLY | O_NONBLOCK); /* a writer: no POLLHUP */
	struct exec_loop kloop = {own_drive, &k};
	req_init(&rq, hang_engine, sleeper, 3, &o);
	rq.loop = &kloop;
	rq.timeout = 0.5;
	rc = exec_run(&rq, &res, &e);
	ok(rc == 0 && res.outcome == EXEC_TIMED_OUT && res.kill == KILL_WS_STOPPED && k.got == 1,
	   "a kill that never answers: the caller's loop is served while it runs, then the "
	   "workspace is stopped (kill %d, read %d)", (int)res.kill, k.got);
	sbuf_free(&res.engine_err);
	out_free(&o);
	close(k.fd);
	close(keep);
	unlink(fifo);
	unlink(hang_engine);
	free(fifo);
	free(hang_engine);
	free(text);

	/* The timeout counts from the command's start: an engine that takes
	 * 2 s to start it takes none of its 1.5 s. */
	char *slow_text = xasprintf(slow_engine_text, "sleep 2", "true");
	char *slow = engine_file(dir, "slow-engine", slow_text);
	req_init(&rq, slow, sleeper, 3, &o);
	rq.timeout = 1.5;
	t0 = now_ms();
	rc = exec_run(&rq, &res, &e);
	took = now_ms() - t0;
	ok(rc == 0 && res.outcome == EXEC_TIMED_OUT && res.kill == KILL_KILLED &&
	   o.s[0].len == 8 && took >= 3500,
	   "a slow engine: the timeout counts from the command's start (%lld ms)", took);
	sbuf_free(&res.engine_err);
	out_free(&o);

	/* The kill exec's start has engine_ms too: one that takes 7 s to
	 * start still kills, and the "container" is not stopped. */
	char *slow_kill_text = xasprintf(slow_engine_text, "true", "sleep 7");
	char *slow_kill = engine_file(dir, "slow-kill-engine", slow_kill_text);
	req_init(&rq, slow_kill, sleeper, 3, &o);
	rq.timeout = 0.5;
	t0 = now_ms();
	rc = exec_run(&rq, &res, &e);
	took = now_ms() - t0;
	ok(rc == 0 && res.outcome == EXEC_TIMED_OUT && res.kill == KILL_KILLED && took >= 7000,
	   "a kill exec slow to start (7 s): still the kill's, not a stop (%lld ms, kill %d)", took,
	   (int)res.kill);
	sbuf_free(&res.engine_err);
	out_free(&o);
	unlink(slow_kill);
	free(slow_kill);
	free(slow_kill_text);

	/* Before it starts, engine_ms bounds the call, not the timeout. */
	char *never_text = xasprintf(slow_engine_text, "exec sleep 30", "true");
	char *never = engine_file(dir, "never-engine", never_text);
	req_init(&rq, never, sleeper, 3, &o);
	rq.timeout = 0.2;
	rq.engine_ms = 1500;
	t0 = now_ms();
	rc = exec_run(&rq, &res, &e);
	took = now_ms() - t0;
	ok(rc == 0 && res.outcome == EXEC_START_LATE && res.kill == KILL_NOT_STARTED &&
	   took >= 1500 && took < 8000,
	   "an engine that never starts it: START_LATE after engine_ms (%lld ms)", took);
	sbuf_free(&res.engine_err);
	out_free(&o);
	unlink(slow);
	unlink(never);
	free(slow);
	free(never);
	free(slow_text);
	free(never_text);

	/* A missing working directory. */
	char *t[] = {"true"};
	req_init(&rq, engine, t, 1, &o);
	rq.workdir = dir;
	rq.cwd = "nonesuch";
	rc = exec_run(&rq, &res, &e);
	ok(rc == 0 && res.outcome == EXEC_NO_CWD, "a missing cwd: EXEC_NO_CWD");
	sbuf_free(&res.engine_err);
	out_free(&o);

	/* An engine that is not there. */
	req_init(&rq, "/nonexistent/engine", t, 1, &o);
	rc = exec_run(&rq, &res, &e);
	ok(rc == -1 || res.outcome == EXEC_NOT_STARTED, "an engine that cannot run: not started");
	sbuf_free(&res.engine_err);
	out_free(&o);

	unlink(engine);
	rmdir(dir);
	free(engine);
	return done_testing();
}
