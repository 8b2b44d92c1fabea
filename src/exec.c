/* exec.c: see exec.h. */
/* F_SETPIPE_SZ is Linux's; elsewhere the pipes keep their size. */
#define _GNU_SOURCE
#include "exec.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine.h"
#include "proto.h"
#include "spawn.h"

/* After both done markers, how long the engine client gets to close its
 * pipes before we stop waiting: only a background process that holds
 * them (Docker waits for it) makes us wait this long. */
#define GRACE_MS 250
/* What we keep of the engine's own words when the command never started. */
#define ENGINE_ERR_MAX 4096
/* On a channel, after a cancel: how long the server gets to say the call
 * ended before we give the channel up. */
#define CHAN_END_MS 5000
/* After a cancel that came before the wrapper said its process group:
 * how long it gets to say it (it does so first thing). */
#define PID_WAIT_MS 2000
/* The kill exec (SCRIPT_KILL): TERM, a second, KILL, a second to see it
 * gone, and the engine's own start-up. */
#define KILL_MS 6000

/* fired stays set until the next exec_watch: a cancellation that came
 * during one command of a tool also stops its next ones. */
static struct {
	int fd;
	bool (*check)(void *ctx);
	void *ctx;
	bool fired;
} watch = {-1, NULL, NULL, false};

void exec_watch(int fd, bool (*check)(void *ctx), void *ctx)
{
	watch.fd = fd;
	watch.check = check;
	watch.ctx = ctx;
	watch.fired = false;
}

/* Per-stream state: the output of one read, passed on in one piece. */
struct stream {
	struct exec_state *st;
	int num; /* 1 or 2 */
	struct sbuf out;
};

struct exec_state {
	const struct exec_req *rq;
	struct exec_res *res;
	struct stream s[2];
	struct proto_reader rd; /* the markers, and what they said */
	bool broken_pipe, cancelled;
	int fds[2];         /* the engine's stdout and stderr */
	int win;            /* its stdin */
	struct feed *feed;  /* what goes on it after the request, or NULL */
	long long deadline; /* -1: none */
	long long start_deadline; /* for the ready marker; -1: none */
	/* On a channel: the fds are the channel's, never closed here; the
	 * request goes out before the feed. */
	bool chan_dead;
	struct sbuf req;
	size_t reqoff;
};

static void on_data(void *ctx, int stream, enum proto_data whose, const char *buf, size_t n)
{
	struct exec_state *st = ctx;
	if (st->broken_pipe)
		return;
	if (whose == PROTO_DATA_ENGINE) {
		struct sbuf *eb = &st->res->engine_err;
		if (eb->len < ENGINE_ERR_MAX)
			sbuf_add(eb, buf, n < ENGINE_ERR_MAX - eb->len ? n : ENGINE_ERR_MAX - eb->len);
	} else if (whose == PROTO_DATA_OUT) {
		/* Gathered: binary output breaks at every \036 into small pieces. */
		sbuf_add(&st->s[stream - 1].out, buf, n);
	}
}

static void flush(struct stream *s)
{
	struct exec_state *st = s->st;
	if (s->out.len && !st->broken_pipe &&
	    st->rq->sink.write(st->rq->sink.ctx, s->num, s->out.buf, s->out.len) < 0)
		st->broken_pipe = true;
	sbuf_reset(&s->out);
}

/* Reads one chunk of stream s from fd; false at EOF. */
static bool pump(struct stream *s, int fd)
{
	char buf[65536];
	ssize_t r = read(fd, buf, sizeof(buf));
	if (r < 0)
		return errno == EINTR;
	if (r == 0)
		return false;
	proto_reader_feed(&s->st->rd, s->num, buf, (size_t)r);
	flush(s);
	return true;
}

const char *exec_kill_says(enum exec_kill k)
{
	switch (k) {
	case KILL_KILLED:
		return "the command was killed in the workspace";
	case KILL_NOT_STARTED:
		return "the command had not started";
	case KILL_WS_STOPPED:
		return "the command did not stop when killed, so the workspace was stopped";
	case KILL_FAILED:
		return "the command could not be killed and may still be running in the workspace";
	default:
		return "the command had ended";
	}
}

bool exec_oom_killed(const struct exec_res *res, int status)
{
	return res->outcome == EXEC_DONE && res->oom && status == 128 + SIGKILL;
}

const char *exec_kill_word(enum exec_kill k)
{
	static const char *const words[] = {"none", "killed", "not_started", "workspace_stopped",
					     "failed"};
	return words[k];
}

/* Runs argv, an engine call of our own, even when we were interrupted;
 * its status, or -1. A second signal cuts it short and sets *again. */
static int run_anyway(struct strvec *argv, const struct exec_req *rq, struct sbuf *out,
		      long timeout_ms, bool *again)
{
	sig_atomic_t saved = spawn_interrupted;
	spawn_interrupted = 0;
	int status = proc_run(strvec_argv(argv), rq->envp, out, NULL, timeout_ms, NULL);
	*again = spawn_interrupted != 0;
	if (!*again)
		spawn_interrupted = saved;
	strvec_clear(argv);
	return status;
}

/* Kills the command's process group pgid in the container, and says
 * what became of it. Whatever the workspace does to the kill (a
 * shadowed sleep, a command that outlives KILL, a container that does
 * not answer), the host bounds it, and stops the whole container when
 * the group is not seen gone. */
static enum exec_kill stop_in_container(const struct exec_req *rq, long pgid)
{
	if (pgid <= 0)
		return KILL_NOT_STARTED;
	struct strvec argv = {0}, cmd = {0};
	proto_kill_argv(&cmd, pgid);
	engine_exec_argv(&argv, rq->engine, rq->ctr, NULL, 0, false, cmd.v, cmd.n);
	strvec_clear(&cmd);
	struct sbuf out = {0};
	bool again;
	int status = run_anyway(&argv, rq, &out, KILL_MS, &again);
	bool gone = status == 0 && proto_kill_gone(out.buf, out.len);
	sbuf_free(&out);
	if (gone)
		return KILL_KILLED;
	if (again)
		return KILL_FAILED; /* a second signal: give up, as asked */
	engine_stop_argv(&argv, rq->engine, rq->ctr);
	return run_anyway(&argv, rq, NULL, rq->engine_ms, &again) == 0 ? KILL_WS_STOPPED
									: KILL_FAILED;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* Done with one of the engine's fds: closed, or on a channel, let go. */
static void drop_fd(struct exec_state *st, int *fd, bool failed)
{
	if (!st->rq->chan)
		close_fd(fd);
	*fd = -1;
	if (st->rq->chan && failed)
		st->chan_dead = true;
}

/* The call as the wrapper gets it. */
static struct proto_call call_of(const struct exec_req *rq)
{
	return (struct proto_call){
		.workdir = rq->workdir, .cwd = rq->cwd,
		.input = rq->feed || rq->interactive,
		.script = rq->script, .args = rq->cmd, .nargs = rq->ncmd,
		.env = rq->chan ? rq->env : NULL, .nenv = rq->chan ? rq->nenv : 0,
	};
}

/* The engine client always gets a pipe for stdin: the tag goes first. */
static void build_argv(const struct exec_req *rq, struct strvec *argv)
{
	struct strvec cmd = {0};
	struct proto_call c = call_of(rq);
	proto_exec_argv(&cmd, &c);
	engine_exec_argv(argv, rq->engine, rq->ctr, rq->env, rq->nenv, true, cmd.v, cmd.n);
	strvec_clear(&cmd);
}

static void setup_pipes(struct exec_state *st, struct proc *p)
{
	st->fds[0] = p->out;
	st->fds[1] = p->err;
	st->win = p->in;
	p->in = p->out = p->err = -1;
	fcntl(st->win, F_SETFL, fcntl(st->win, F_GETFL) | O_NONBLOCK);
#ifdef F_SETPIPE_SZ
	/* Bigger pipes to and from the engine client: fewer wake-ups per
	 * mebibyte on bulk transfers (write, read --raw). */
	if (st->feed)
		fcntl(st->win, F_SETPIPE_SZ, 1 << 20);
	fcntl(st->fds[0], F_SETPIPE_SZ, 1 << 20);
#endif
}

/* Why the loop must stop now, or EXEC_DONE to go on. */
static enum exec_outcome must_stop(const struct exec_state *st, long long now)
{
	if (spawn_interrupted)
		return EXEC_INTERRUPTED;
	if (st->broken_pipe)
		return EXEC_PIPE;
	if (st->cancelled)
		return EXEC_CANCELLED;
	if (st->deadline >= 0 && now >= st->deadline)
		return EXEC_TIMED_OUT;
	if (!st->rd.reply.ready && st->start_deadline >= 0 && now >= st->start_deadline)
		return EXEC_START_LATE;
	return EXEC_DONE;
}

/* The nearer of two deadlines (-1: none). */
static long long nearer(long long a, long long b)
{
	return a < 0 ? b : b < 0 ? a : a < b ? a : b;
}

/* Writes the request, then the feed; false when the reader is gone. */
static bool write_input(struct exec_state *st, struct feed *in)
{
	if (!write_some(st->win, st->req.buf, st->req.len, &st->reqoff))
		return false;
	if (st->reqoff < st->req.len)
		return true;
	return !in || feed_write(in, st->win);
}

static bool input_done(struct exec_state *st)
{
	struct feed *in = st->feed;
	return st->reqoff == st->req.len && (!in || feed_done(in));
}

/* One round of poll: output in, input out. */
static void io_round(struct exec_state *st, int wait)
{
	struct feed *in = st->win >= 0 ? st->feed : NULL;
	bool out_ready = st->win >= 0 && (st->reqoff < st->req.len || (in && feed_ready(in)));
	/* A raw feed ends with nothing left to write: no POLLOUT tells. */
	if (st->win >= 0 && !out_ready && input_done(st)) {
		drop_fd(st, &st->win, false);
		in = NULL;
	}
	bool src_wanted = in && !out_ready && feed_wants_src(in);
	struct pollfd pfd[6] = {
		{st->fds[0], POLLIN, 0}, {st->fds[1], POLLIN, 0},
		{out_ready ? st->win : -1, POLLOUT, 0},
		{src_wanted ? in->src_fd : -1, POLLIN, 0},
		{st->cancelled ? -1 : watch.fd, POLLIN, 0},
		{spawn_signal_fd(), POLLIN, 0},
	};
	if (poll(pfd, 6, wait) < 0)
		return; /* EINTR: the caller looks at the signal flag */
	if (pfd[5].revents) {
		spawn_signal_drain();
		return; /* so does it here */
	}
	if (pfd[4].revents && watch.check(watch.ctx))
		watch.fired = true;
	if (watch.fired)
		st->cancelled = true;
	for (int i = 0; i < 2; i++)
		if (st->fds[i] >= 0 && pfd[i].revents && !pump(&st->s[i], st->fds[i]))
			drop_fd(st, &st->fds[i], true);
	if (pfd[3].revents)
		feed_read_src(in);
	/* The end of the input, a failed source (no end frame: the script
	 * throws the partial file away) or a reader that went away. */
	if (pfd[2].revents && !write_input(st, in))
		drop_fd(st, &st->win, true);
	else if (st->win >= 0 && (input_done(st) || (in && in->src_errno)))
		drop_fd(st, &st->win, false);
}

static bool call_ended(const struct exec_state *st)
{
	return proto_reply_ended(&st->rd.reply);
}

/* Runs until the engine closes its output, both done markers are in
 * (and the grace time is over), or a reason to cancel comes. */
static enum exec_outcome io_loop(struct exec_state *st)
{
	long long grace_end = -1;
	while ((st->fds[0] >= 0 || st->fds[1] >= 0) && !call_ended(st) && !st->chan_dead) {
		long long now = now_ms();
		if (proto_reply_done(&st->rd.reply) && grace_end < 0)
			grace_end = now + GRACE_MS;
		if (grace_end >= 0 && now >= grace_end)
			break;
		enum exec_outcome stop = must_stop(st, now);
		if (stop != EXEC_DONE)
			return stop;
		long long until = grace_end >= 0 ? grace_end : nearer(st->deadline,
			st->rd.reply.ready ? -1 : st->start_deadline);
		io_round(st, until < 0 ? -1 : (int)(until - now));
	}
	/* A client sharing our terminal dies of the same Ctrl-C, closing the
	 * pipes before the loop saw the signal. */
	if (spawn_interrupted && !proto_reply_done(&st->rd.reply))
		return EXEC_INTERRUPTED;
	return EXEC_DONE;
}

static void classify(struct exec_state *st, enum exec_outcome cancelled, int engine_status)
{
	struct exec_res *res = st->res;
	const struct proto_reply *r = &st->rd.reply;
	res->oom = r->oom;
	if (proto_reply_done(r)) {
		res->outcome = EXEC_DONE;
		res->status = r->s[1].status;
	} else if (cancelled != EXEC_DONE) {
		res->outcome = cancelled;
	} else if (r->nocwd) {
		res->outcome = EXEC_NO_CWD;
	} else if (!r->ready) {
		res->outcome = EXEC_NOT_STARTED;
		res->status = engine_status;
		sbuf_rtrim(&res->engine_err);
		/* A call the channel's server began can't go again: if the
		 * server said it ended, it could not start (its words are in
		 * engine_err); else the channel died under it. */
		if (st->rq->chan && r->s[1].begun && !r->s[1].ended)
			res->outcome = EXEC_LOST;
	} else {
		res->outcome = EXEC_LOST;
		res->status = engine_status;
	}
}

/* Held-back bytes that turned out not to be a marker are output. */
static void flush_all(struct exec_state *st)
{
	proto_reader_flush(&st->rd);
	for (int i = 0; i < 2; i++) {
		flush(&st->s[i]);
		sbuf_free(&st->s[i].out);
	}
}

/* One call over the open channel rq->chan. After a cancel, the call is
 * killed in the container as always, and the channel goes on once its
 * server says the call ended; a channel that cannot say so, or that was
 * cut in the middle of a request, is closed (the next call opens a new
 * one). */
static void run_on_chan(struct exec_state *st, const char *tag)
{
	const struct exec_req *rq = st->rq;
	struct chan *c = rq->chan;
	struct proto_call call = call_of(rq);
	proto_request(&st->req, tag, &call);
	st->fds[0] = c->p.out;
	st->fds[1] = c->p.err;
	st->win = c->p.in; /* non-blocking since chan_open */

	long long start = now_ms();
	if (rq->timeout > 0)
		st->deadline = start + (long long)(rq->timeout * 1000);
	if (watch.fired)
		st->cancelled = true; /* before it starts: it will not */
	enum exec_outcome cancelled = io_loop(st);
	bool both_done = proto_reply_done(&st->rd.reply);
	if (cancelled != EXEC_DONE && !both_done) {
		st->res->kill = stop_in_container(rq, st->rd.reply.pgid);
		if (!input_done(st))
			st->chan_dead = true;
		long long limit = now_ms() + CHAN_END_MS;
		for (long long left; !st->chan_dead && !call_ended(st) && (left = limit - now_ms()) > 0;)
			io_round(st, (int)left);
	}
	/* A call not seen to end (or whose input was not all sent, which the
	 * server would read as the next request) leaves the channel unusable. */
	if (!call_ended(st) && (!both_done || !input_done(st)))
		st->chan_dead = true;
	/* The channel died under a call that had begun: nobody waits for it
	 * any more, so it must not run on. */
	if (st->chan_dead && cancelled == EXEC_DONE && st->rd.reply.s[1].begun && !both_done)
		st->res->kill = stop_in_container(rq, st->rd.reply.pgid);
	st->res->duration_ms = now_ms() - start;
	flush_all(st);
	sbuf_free(&st->req);
	if (st->chan_dead) {
		chan_close(c);
		st->res->chan_lost = true;
	}
	const struct proto_reply_stream *err = &st->rd.reply.s[1];
	classify(st, cancelled, err->ended ? err->end_status : 255);
}

/* After a cancel: the wrapper says its process group first thing, so a
 * client still running gets a moment to say it before it is killed. */
static void await_pgid(struct exec_state *st)
{
	long long end = now_ms() + PID_WAIT_MS;
	for (long long left; !st->rd.reply.pgid && st->fds[1] >= 0 && (left = end - now_ms()) > 0;)
		io_round(st, (int)left);
}

/* One call as an engine exec of its own. The tag goes as the first line
 * of its stdin, then the feed, or our own stdin (interactive). */
static int run_alone(struct exec_state *st, const char *tag, struct err *e)
{
	const struct exec_req *rq = st->rq;
	struct feed raw;
	bool own_raw = rq->interactive && !rq->feed;
	if (own_raw)
		feed_init_raw(&raw, 0);
	st->feed = own_raw ? &raw : rq->feed;
	sbuf_addf(&st->req, "%s\n", tag);

	struct strvec argv = {0};
	build_argv(rq, &argv);
	long long start = now_ms();
	struct proc p;
	int rc = proc_spawn(&p, strvec_argv(&argv), rq->envp, IO_PIPE, IO_PIPE, IO_PIPE, e);
	strvec_clear(&argv);
	if (rc < 0)
		goto out;
	setup_pipes(st, &p);
	if (rq->timeout > 0)
		st->deadline = start + (long long)(rq->timeout * 1000);
	if (rq->engine_ms > 0)
		st->start_deadline = start + rq->engine_ms;

	enum exec_outcome cancelled = io_loop(st);
	bool both_done = proto_reply_done(&st->rd.reply);
	if (cancelled != EXEC_DONE && !both_done)
		await_pgid(st);
	close_fd(&st->win);
	/* Still open: a background process holds the pipes, or we cancel. The
	 * local client goes first: left with full pipes nobody reads, it
	 * stalls the daemon, and the kill exec below would hang behind it. */
	bool killed = st->fds[0] >= 0 || st->fds[1] >= 0;
	if (killed) {
		kill(-p.pid, SIGKILL);
		kill(p.pid, SIGKILL);
	}
	close_fd(&st->fds[0]);
	close_fd(&st->fds[1]);
	int engine_status = proc_wait_for(&p, PROC_TERM_MS);
	if (cancelled != EXEC_DONE && !both_done)
		st->res->kill = stop_in_container(rq, st->rd.reply.pgid);
	st->res->duration_ms = now_ms() - start;
	flush_all(st);
	classify(st, cancelled, engine_status);
	/* The wrapper exits with the status it reports: a client that ended
	 * on its own with another one did not run the wrapper that spoke. */
	if (st->res->outcome == EXEC_DONE && !killed && engine_status != st->res->status) {
		st->res->outcome = EXEC_UNTRUSTED;
		st->res->engine_status = engine_status;
	}
out:
	sbuf_free(&st->req);
	if (own_raw)
		feed_free(&raw);
	return rc;
}

int exec_run(const struct exec_req *rq, struct exec_res *res, struct err *e)
{
	char tag[MARKER_TAG_LEN + 1];
	if (random_hex(tag, MARKER_TAG_LEN) < 0)
		return err_set(e, ERR_ENGINE, "cannot read /dev/urandom");
	memset(res, 0, sizeof(*res));
	struct exec_state st = {.rq = rq, .res = res, .deadline = -1, .start_deadline = -1};
	for (int i = 0; i < 2; i++) {
		st.s[i].st = &st;
		st.s[i].num = i + 1;
	}
	proto_reader_init(&st.rd, tag, rq->chan != NULL, on_data, &st);
	if (!rq->chan)
		return run_alone(&st, tag, e);
	st.feed = rq->feed;
	run_on_chan(&st, tag);
	return 0;
}
