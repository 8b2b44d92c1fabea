/* exec.c: see exec.h. */
/* F_SETPIPE_SZ is Linux's; elsewhere the pipes keep their size. */
#define _GNU_SOURCE
#include "exec.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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

/* After both done markers, how long the engine client gets at least to
 * close its pipes before we stop waiting: only a background process that
 * holds them (Docker waits for it) makes us wait this long. An engine
 * that was slow to start the command (ssh, a loaded Podman) is as slow to
 * end it: it gets twice what the start took (grace_ms). */
#define GRACE_MS 250
/* What we keep of the engine's own words when the command never started. */
#define ENGINE_ERR_MAX 4096
/* On a channel, after a cancel: how long the server gets to say the call
 * ended before we give the channel up. */
#define CHAN_END_MS 5000
/* After a cancel that came before the wrapper (or the channel's server)
 * said the call's process group: how long it gets to say it (it does so
 * first thing). */
#define PID_WAIT_MS 2000
/* The kill exec (SCRIPT_KILL) once it said it started: TERM, a second,
 * KILL, a second to see it gone, and room for a loaded machine. Its start
 * (an engine over ssh, or a loaded one, is slow) has engine_ms, as the
 * call's own had. */
#define KILL_MS 6000

/* Where a call is: running, or after a cancel, waiting for what the
 * kill needs (its process group) or for the channel to be usable again. */
enum phase {
	PHASE_IO,       /* the call runs */
	PHASE_PGID,     /* cancelled: a moment for the wrapper or server to say its group */
	PHASE_KILL,     /* the kill in the container runs (x->kill), then x->after_kill */
	PHASE_CHAN_END, /* cancelled on a channel, killed: the server says the end */
	PHASE_DONE,     /* res is filled */
};

/* The kill of a stopped call in the container, an engine call the
 * caller's loop waits on like the call's own fds: the kill exec
 * (SCRIPT_KILL); when the group is not seen gone, the engine's stop of
 * the whole container. Both run even when we were interrupted: only a
 * signal that comes after the kill began cuts them short. */
struct killer {
	struct proc_call call;
	struct strvec argv;
	struct sbuf out;      /* the kill exec's answer */
	bool started;         /* the kill exec said it started: KILL_MS from then */
	bool stopping;        /* the second step runs */
	bool on_chan;         /* a call the channel's server began */
	int grace;            /* spawn_grace_begin's */
};

/* Per-stream state: the output of one read, passed on in one piece. */
struct stream {
	struct exec *st;
	int num; /* 1 or 2 */
	struct sbuf out;
};

struct exec {
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
	char tag[MARKER_TAG_LEN + 1];
	enum phase phase;
	enum exec_outcome stop; /* why the call was stopped; EXEC_DONE: it was not */
	bool cut;             /* stopped before it said done */
	long long start;
	long long ready_at;   /* when the ready marker came; -1: not yet */
	bool lingered;        /* both done, the grace passed, the pipes open */
	long long grace_end;  /* after both done markers; -1: not yet */
	long long phase_end;  /* the end of a wait after a cancel */
	long long wake;       /* when the next step is due without any I/O; -1: never */
	struct proc p;        /* alone: the engine client */
	int engine_status;    /* alone: its status, once it ended */
	bool client_killed;   /* alone: it was killed, its status says nothing */
	struct killer kill;
	void (*after_kill)(struct exec *x); /* what follows PHASE_KILL */
	struct feed raw;      /* alone, interactive: our own stdin */
	bool own_raw;
	struct strvec env;    /* the call's env and secrets, as it passes them */
	struct strvec envp;   /* alone, with secrets: the engine's, and them */
};

struct exec_bytes exec_bytes;

static void on_data(void *ctx, int stream, enum proto_data whose, const char *buf, size_t n)
{
	struct exec *st = ctx;
	if (st->broken_pipe)
		return;
	if (whose == PROTO_DATA_ENGINE) {
		struct sbuf *eb = &st->res->engine_err;
		if (eb->len < ENGINE_ERR_MAX)
			sbuf_add(eb, buf, n < ENGINE_ERR_MAX - eb->len ? n : ENGINE_ERR_MAX - eb->len);
	} else if (whose == PROTO_DATA_OUT) {
		exec_bytes.out += n;
		/* Gathered: binary output breaks at every \036 into small pieces. */
		sbuf_add(&st->s[stream - 1].out, buf, n);
	}
}

static void flush(struct stream *s)
{
	struct exec *st = s->st;
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

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* Done with one of the engine's fds: closed, or on a channel, let go. */
static void drop_fd(struct exec *st, int *fd, bool failed)
{
	if (!st->rq->chan)
		close_fd(fd);
	*fd = -1;
	if (st->rq->chan && failed)
		st->chan_dead = true;
}

/* The call's variables as it passes them: on a channel, env and secrets
 * as K=V in the request; alone, env as K=V and each secret by its name
 * alone, with K=V in the engine's environment. */
static void env_of(struct exec *x)
{
	const struct exec_req *rq = x->rq;
	/* A variable named as a secret is the secret (an MCP client's env
	 * cannot stand for it). */
	for (size_t i = 0; i < rq->nenv; i++) {
		size_t n = strcspn(rq->env[i], "=");
		bool secret = false;
		for (size_t k = 0; k < rq->nsecrets && !secret; k++)
			secret = strncmp(rq->secrets[k], rq->env[i], n + 1) == 0;
		if (!secret)
			strvec_push(&x->env, rq->env[i]);
	}
	/* Never on a channel (workspace.c's channel_for): a request's
	 * values end on a command line in the workspace. */
	if (rq->chan)
		return;
	if (rq->nsecrets)
		exec_secrets_by_name(rq->envp, rq->secrets, rq->nsecrets, &x->env, &x->envp);
}

void exec_secrets_by_name(char *const *envp, char *const *secrets, size_t n,
			  struct strvec *names, struct strvec *envp_out)
{
	for (size_t i = 0; envp[i]; i++)
		strvec_push(envp_out, envp[i]);
	for (size_t i = 0; i < n; i++) {
		strvec_push(envp_out, secrets[i]);
		char *name = xstrndup(secrets[i], strcspn(secrets[i], "="));
		strvec_push(names, name);
		free(name);
	}
}

/* The engine's environment for a call of its own. */
static char *const *envp_of(struct exec *x)
{
	return x->envp.n ? strvec_argv(&x->envp) : x->rq->envp;
}

/* The call as the wrapper gets it. */
static struct proto_call call_of(struct exec *x)
{
	const struct exec_req *rq = x->rq;
	return (struct proto_call){
		.workdir = rq->workdir, .cwd = rq->cwd,
		.input = rq->feed || rq->interactive,
		.script = rq->script, .args = rq->cmd, .nargs = rq->ncmd,
		.env = rq->chan ? x->env.v : NULL, .nenv = rq->chan ? x->env.n : 0,
		.lone = rq->chan && rq->lone,
	};
}

/* The engine client always gets a pipe for stdin: the tag goes first. */
static void build_argv(struct exec *x, struct strvec *argv)
{
	struct strvec cmd = {0};
	struct proto_call c = call_of(x);
	proto_exec_argv(&cmd, &c);
	engine_exec_argv(argv, x->rq->engine, x->rq->ctr, x->env.v, x->env.n, true, cmd.v, cmd.n);
	strvec_clear(&cmd);
}

static void setup_pipes(struct exec *st, struct proc *p)
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
static enum exec_outcome must_stop(const struct exec *st, long long now)
{
	if (spawn_stopping())
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

/* The feed, when it may go now. One from a descriptor (stdin) cannot be
 * sent twice: it waits for the command's start, so that a call the
 * engine could not start (a stopped workspace, started and tried again)
 * took none of it. */
static struct feed *feed_now(const struct exec *x)
{
	struct feed *in = x->win >= 0 ? x->feed : NULL;
	return in && in->src_fd >= 0 && !x->rd.reply.ready ? NULL : in;
}

/* Writes the request, then the feed; false when the reader is gone. */
static bool write_input(struct exec *st, struct feed *in)
{
	if (!write_some(st->win, st->req.buf, st->req.len, &st->reqoff))
		return false;
	if (st->reqoff < st->req.len)
		return true;
	return !in || feed_write(in, st->win);
}

static bool input_done(struct exec *st)
{
	struct feed *in = st->feed;
	return st->reqoff == st->req.len && (!in || feed_done(in));
}

/* What to wait on in the call's I/O: pfd[0..EXEC_NFDS), -1 for none. */
static void io_prepare(struct exec *x, struct pollfd *pfd)
{
	struct feed *in = feed_now(x);
	bool out_ready = x->win >= 0 && (x->reqoff < x->req.len || (in && feed_ready(in)));
	/* A raw feed ends with nothing left to write: no POLLOUT tells. */
	if (x->win >= 0 && !out_ready && input_done(x)) {
		drop_fd(x, &x->win, false);
		in = NULL;
	}
	bool src_wanted = in && feed_wants_src(in);
	pfd[0] = (struct pollfd){x->fds[0], POLLIN, 0};
	pfd[1] = (struct pollfd){x->fds[1], POLLIN, 0};
	pfd[2] = (struct pollfd){out_ready ? x->win : -1, POLLOUT, 0};
	pfd[3] = (struct pollfd){src_wanted ? in->src_fd : -1, POLLIN, 0};
}

void exec_step(struct exec *x, const struct pollfd *pfd)
{
	if (x->phase == PHASE_DONE)
		return;
	if (x->phase == PHASE_KILL) {
		struct killer *kl = &x->kill;
		proc_call_step(&kl->call, pfd);
		if (!kl->stopping && !kl->started && kl->out.len) {
			kl->started = true;
			proc_call_extend(&kl->call, KILL_MS);
		}
		return;
	}
	struct feed *in = feed_now(x);
	for (int i = 0; i < 2; i++)
		if (x->fds[i] >= 0 && pfd[i].fd == x->fds[i] && pfd[i].revents &&
		    !pump(&x->s[i], x->fds[i]))
			drop_fd(x, &x->fds[i], true);
	if (in && pfd[3].fd == in->src_fd && pfd[3].revents)
		feed_read_src(in);
	/* The end of the input, a failed source (no end frame: the script
	 * throws the partial file away) or a reader that went away. */
	if (x->win >= 0 && pfd[2].fd == x->win && pfd[2].revents && !write_input(x, in))
		drop_fd(x, &x->win, true);
	else if (x->win >= 0 && (input_done(x) || (in && in->src_errno)))
		drop_fd(x, &x->win, false);
}

static bool call_ended(const struct exec *x)
{
	return proto_reply_ended(&x->rd.reply);
}

static void classify(struct exec *x, int engine_status)
{
	struct exec_res *res = x->res;
	const struct proto_reply *r = &x->rd.reply;
	res->oom = r->oom;
	/* A lone call's done markers are the server's, which says them
	 * however the call ended: also when it could not enter its
	 * directory (nocwd first), or after we killed it (its stop). */
	if (r->nocwd && !r->ready && x->stop == EXEC_DONE) {
		res->outcome = EXEC_NO_CWD;
	} else if (proto_reply_done(r) && !(r->lone && x->cut)) {
		res->outcome = EXEC_DONE;
		res->status = r->s[1].status;
	} else if (x->stop != EXEC_DONE) {
		res->outcome = x->stop;
	} else if (!r->ready) {
		res->outcome = EXEC_NOT_STARTED;
		res->status = engine_status;
		sbuf_rtrim(&res->engine_err);
		/* A call the channel's server began can't go again: if the
		 * server said it ended, it could not start (its words are in
		 * engine_err); else the channel died under it. */
		if (x->rq->chan && r->s[1].begun && !r->s[1].ended)
			res->outcome = EXEC_LOST;
	} else {
		res->outcome = EXEC_LOST;
		res->status = engine_status;
	}
}

/* Held-back bytes that turned out not to be a marker are output. */
static void flush_all(struct exec *x)
{
	proto_reader_flush(&x->rd);
	for (int i = 0; i < 2; i++) {
		flush(&x->s[i]);
		sbuf_free(&x->s[i].out);
	}
}

/* The kill is over: what became of the command is said, and the call
 * goes on. */
/* What the kill holds, let go: its words and its grace. */
static void kill_release(struct killer *kl)
{
	strvec_clear(&kl->argv);
	sbuf_free(&kl->out);
	spawn_grace_end(kl->grace);
}

static void kill_end(struct exec *x, enum exec_kill k)
{
	struct killer *kl = &x->kill;
	/* A call the channel's server began has started, whether or not it
	 * said its process group yet (it says it just after it starts it):
	 * without the group, it may still run, and that is what is said,
	 * never that it had not started. */
	if (k == KILL_NOT_STARTED && kl->on_chan)
		k = KILL_FAILED;
	x->res->kill = k;
	kill_release(kl);
	x->after_kill(x);
}

/* The second step: the engine stops the whole container. */
static void kill_stop_begin(struct exec *x)
{
	struct killer *kl = &x->kill;
	const struct exec_req *rq = x->rq;
	strvec_clear(&kl->argv);
	kl->stopping = true;
	engine_stop_argv(&kl->argv, rq->engine, rq->ctr);
	if (proc_call_start(&kl->call, strvec_argv(&kl->argv), rq->envp, NULL, NULL,
			    rq->engine_ms, NULL) < 0)
		kill_end(x, KILL_FAILED);
}

/* The group was not seen gone: the whole container is stopped, unless a
 * second signal came meanwhile, which gives up, as asked. */
static void kill_not_gone(struct exec *x)
{
	if (spawn_stopping())
		kill_end(x, KILL_FAILED);
	else
		kill_stop_begin(x);
}

/* Kills the command's process group in the container, then goes on with
 * then. Whatever the workspace does to the kill (a shadowed sleep, a
 * command that outlives KILL, a container that does not answer), the
 * host bounds it, and stops the whole container when the group is not
 * seen gone. */
static void kill_begin(struct exec *x, void (*then)(struct exec *x))
{
	struct killer *kl = &x->kill;
	const struct exec_req *rq = x->rq;
	long pgid = x->rd.reply.pgid;
	*kl = (struct killer){0};
	x->after_kill = then;
	kl->on_chan = rq->chan && x->rd.reply.s[1].begun;
	kl->grace = spawn_grace_begin();
	if (pgid <= 0) {
		kill_end(x, KILL_NOT_STARTED);
		return;
	}
	x->phase = PHASE_KILL;
	struct strvec cmd = {0};
	proto_kill_argv(&cmd, pgid, x->rd.reply.lone);
	engine_exec_argv(&kl->argv, rq->engine, rq->ctr, NULL, 0, false, cmd.v, cmd.n);
	strvec_clear(&cmd);
	if (proc_call_start(&kl->call, strvec_argv(&kl->argv), rq->envp, &kl->out, NULL,
			    rq->engine_ms > 0 ? rq->engine_ms : KILL_MS, NULL) < 0)
		kill_not_gone(x);
}

/* The step of the kill that just ended decides what comes next. */
static void kill_step_over(struct exec *x)
{
	struct killer *kl = &x->kill;
	int status = proc_call_end(&kl->call, NULL);
	if (kl->stopping) {
		kill_end(x, status == 0 ? KILL_WS_STOPPED : KILL_FAILED);
	} else if (status == 0 && proto_kill_gone(kl->out.buf, kl->out.len)) {
		kill_end(x, KILL_KILLED);
	} else {
		kill_not_gone(x);
	}
}

_Static_assert(PROC_CALL_NFDS <= EXEC_NFDS, "the kill's fds fit in the call's");

/* PHASE_KILL: what to wait on, once the steps that are over moved on. */
static void kill_prepare(struct exec *x, struct pollfd *pfd, int *timeout_ms)
{
	for (int i = 0; i < EXEC_NFDS; i++)
		pfd[i] = (struct pollfd){-1, 0, 0};
	*timeout_ms = -1;
	while (x->phase == PHASE_KILL && !proc_call_next(&x->kill.call, pfd, timeout_ms))
		kill_step_over(x);
}

static void kill_abandon(struct exec *x)
{
	if (x->phase != PHASE_KILL)
		return;
	proc_call_abandon(&x->kill.call);
	kill_release(&x->kill);
}

/* After the kill, if one was needed: what the call came to. */
static void finish_on_chan_end(struct exec *x)
{
	x->res->duration_ms = now_ms() - x->start;
	flush_all(x);
	if (x->chan_dead) {
		chan_close(x->rq->chan);
		x->res->chan_lost = true;
	}
	const struct proto_reply_stream *err = &x->rd.reply.s[1];
	classify(x, err->ended ? err->end_status : 255);
	/* The server's end says what the wrapper exited with, as the engine
	 * does for a call of its own: a wrapper that reported another status,
	 * or that said it was done and then held the channel past the grace
	 * (its input all sent: the server was not still passing it on), was
	 * not ours. A channel that died under the call (its server killed)
	 * says nothing: the call ends as itself, as the engine carried it. */
	if (x->res->outcome == EXEC_DONE && !x->rd.reply.lone &&
	    (err->ended ? err->end_status != x->res->status : x->lingered && input_done(x))) {
		x->res->outcome = EXEC_UNTRUSTED;
		x->res->engine_status = err->ended ? err->end_status : -1;
	}
	x->phase = PHASE_DONE;
}

/* The end of a call over the open channel rq->chan. After a cancel, the
 * call was killed in the container as always, and the channel goes on
 * once its server said the call ended; a channel that cannot say so, or
 * that was cut in the middle of a request, is closed (the next call
 * opens a new one). */
static void finish_on_chan(struct exec *x)
{
	bool both_done = proto_reply_done(&x->rd.reply);
	/* A call not seen to end leaves the channel unusable: its server is
	 * still in it (a wrapper that said done and lingers is none of ours),
	 * or would read what is left of its input as the next request. */
	if (!call_ended(x))
		x->chan_dead = true;
	/* The channel died under a call that had begun: nobody waits for it
	 * any more, so it must not run on. */
	if (x->chan_dead && x->stop == EXEC_DONE && x->rd.reply.s[1].begun && !both_done)
		kill_begin(x, finish_on_chan_end);
	else
		finish_on_chan_end(x);
}

static void finish_alone_end(struct exec *x)
{
	x->res->duration_ms = now_ms() - x->start;
	flush_all(x);
	classify(x, x->engine_status);
	/* The wrapper exits with the status it reports: a client that ended
	 * on its own with another one did not run the wrapper that spoke. */
	if (x->res->outcome == EXEC_DONE && !x->client_killed &&
	    x->engine_status != x->res->status) {
		x->res->outcome = EXEC_UNTRUSTED;
		x->res->engine_status = x->engine_status;
	}
	x->phase = PHASE_DONE;
}

/* The end of a call as an engine exec of its own. */
static void finish_alone(struct exec *x)
{
	bool both_done = proto_reply_done(&x->rd.reply);
	close_fd(&x->win);
	/* Still open: a background process holds the pipes, or we cancel. The
	 * local client goes first: left with full pipes nobody reads, it
	 * stalls the daemon, and the kill exec would hang behind it. */
	x->client_killed = x->fds[0] >= 0 || x->fds[1] >= 0;
	if (x->client_killed) {
		kill(-x->p.pid, SIGKILL);
		kill(x->p.pid, SIGKILL);
	}
	close_fd(&x->fds[0]);
	close_fd(&x->fds[1]);
	x->engine_status = proc_wait_for(&x->p, PROC_TERM_MS);
	x->p.pid = -1; /* reaped, or lost track of: never signalled again */
	if (x->stop != EXEC_DONE && !both_done)
		kill_begin(x, finish_alone_end);
	else
		finish_alone_end(x);
}

/* Ends the call: at once, or through PHASE_KILL. */
static void finish(struct exec *x)
{
	if (x->rq->chan)
		finish_on_chan(x);
	else
		finish_alone(x);
}

/* On a channel, after the kill: the server gets a moment to say the call
 * ended. */
static void chan_end_wait(struct exec *x)
{
	if (!input_done(x))
		x->chan_dead = true;
	x->phase = PHASE_CHAN_END;
	x->phase_end = now_ms() + CHAN_END_MS;
}

/* The call's I/O is over: it ended, or stop says why it must. Unless
 * both done markers came, a stopped call is killed in the container:
 * alone, once the wrapper said its process group (it does so first
 * thing), or it had a moment to; on a channel at once, and then the
 * server gets a moment to say the call ended. */
static void end_io(struct exec *x, enum exec_outcome stop, long long now)
{
	x->stop = stop;
	x->cut = stop != EXEC_DONE && !proto_reply_done(&x->rd.reply);
	if (stop == EXEC_DONE || proto_reply_done(&x->rd.reply)) {
		finish(x);
	} else if (!x->rq->chan || (!x->rd.reply.pgid && !x->chan_dead)) {
		/* On a channel too: a cancel can come before the server said
		 * the call's process group (a loaded engine), and the call must
		 * not run on for want of it. */
		x->phase = PHASE_PGID;
		x->phase_end = now + PID_WAIT_MS;
	} else {
		kill_begin(x, chan_end_wait);
	}
}

/* The command has started: its timeout counts from now. */
static void mark_ready(struct exec *x, long long now)
{
	x->ready_at = now;
	if (x->rq->timeout > 0)
		x->deadline = now + (long long)(x->rq->timeout * 1000);
}

/* The client's time to end after both done markers (on a channel: the
 * server's time to say the call ended): its engine's own pace, as the
 * start showed it, so that a client that is merely slow to say the
 * status it ended with is heard (the status is the engine's word against
 * the markers), and a background process that holds the pipes costs a
 * quarter of a second on a quick engine. */
static long long grace_ms(const struct exec *x)
{
	/* On a channel the end comes from its server as soon as the wrapper
	 * exits, whatever a background process holds: only a wrapper that is
	 * none of ours keeps it waiting, so it may wait long. */
	if (x->rq->chan)
		return KILL_MS;
	long long start = x->ready_at >= 0 ? x->ready_at - x->start : 0;
	long long g = 2 * start;
	return g < GRACE_MS ? GRACE_MS : g > KILL_MS ? KILL_MS : g;
}

/* Moves the call on by what came and by the clock; sets x->wake. */
static void advance(struct exec *x)
{
	long long now = now_ms();
	x->wake = -1;
	if (x->phase == PHASE_IO) {
		const struct proto_reply *r = &x->rd.reply;
		if (r->ready && x->ready_at < 0)
			mark_ready(x, now);
		if ((x->fds[0] < 0 && x->fds[1] < 0) || call_ended(x) || x->chan_dead) {
			/* A client sharing our terminal dies of the same Ctrl-C,
			 * closing the pipes before we saw the signal. */
			end_io(x, spawn_stopping() && !proto_reply_done(r) ? EXEC_INTERRUPTED
									      : EXEC_DONE, now);
		} else {
			if (proto_reply_done(r) && x->grace_end < 0)
				x->grace_end = now + grace_ms(x);
			enum exec_outcome stop = must_stop(x, now);
			if (x->grace_end >= 0 && now >= x->grace_end) {
				x->lingered = true;
				end_io(x, EXEC_DONE, now);
			}
			else if (stop != EXEC_DONE)
				end_io(x, stop, now);
			else
				x->wake = x->grace_end >= 0 ? x->grace_end
					  : nearer(x->deadline, r->ready ? -1 : x->start_deadline);
		}
	}
	if (x->phase == PHASE_PGID) {
		if (x->rd.reply.pgid || x->fds[1] < 0 || x->chan_dead || now_ms() >= x->phase_end) {
			if (x->rq->chan)
				kill_begin(x, chan_end_wait);
			else
				finish(x);
		} else {
			x->wake = x->phase_end;
		}
	} else if (x->phase == PHASE_CHAN_END) {
		if (x->chan_dead || call_ended(x) || now_ms() >= x->phase_end)
			finish(x);
		else
			x->wake = x->phase_end;
	}
}

int exec_next(struct exec *x, struct pollfd *pfd, int *timeout_ms)
{
	for (;;) {
		advance(x);
		if (x->phase == PHASE_DONE)
			return 0;
		if (x->phase != PHASE_KILL)
			break;
		kill_prepare(x, pfd, timeout_ms);
		if (x->phase == PHASE_KILL)
			return EXEC_NFDS;
		/* The kill is over: the call goes on from where it left. */
	}
	io_prepare(x, pfd);
	long long left = x->wake < 0 ? -1 : x->wake - now_ms();
	*timeout_ms = left < 0 ? (x->wake < 0 ? -1 : 0) : left > INT_MAX ? INT_MAX : (int)left;
	return EXEC_NFDS;
}

void exec_cancel(struct exec *x)
{
	x->cancelled = true;
}

/* The call begins: the engine has engine_ms to start the command, whose
 * timeout counts from its ready marker (mark_ready), so that a slow engine
 * (ssh, a loaded machine) takes nothing of the command's time. Without
 * a start bound, the timeout counts from now. */
static void start_clock(struct exec *x)
{
	const struct exec_req *rq = x->rq;
	x->start = now_ms();
	if (rq->engine_ms > 0)
		x->start_deadline = x->start + rq->engine_ms;
	else if (rq->timeout > 0)
		x->deadline = x->start + (long long)(rq->timeout * 1000);
}

/* One call over the open channel rq->chan: the request, then the feed. */
static void start_on_chan(struct exec *x)
{
	const struct exec_req *rq = x->rq;
	struct chan *c = rq->chan;
	struct proto_call call = call_of(x);
	x->feed = rq->feed;
	proto_request(&x->req, x->tag, &call);
	x->fds[0] = c->p.out;
	x->fds[1] = c->p.err;
	x->win = c->p.in; /* non-blocking since chan_open */
	start_clock(x);
}

/* One call as an engine exec of its own. The tag goes as the first line
 * of its stdin, then the feed, or our own stdin (interactive). */
static int start_alone(struct exec *x, struct err *e)
{
	const struct exec_req *rq = x->rq;
	x->own_raw = rq->interactive && !rq->feed;
	if (x->own_raw)
		feed_init_raw(&x->raw, 0);
	x->feed = x->own_raw ? &x->raw : rq->feed;
	sbuf_addf(&x->req, "%s\n", x->tag);
	struct strvec argv = {0};
	build_argv(x, &argv);
	start_clock(x);
	int rc = proc_spawn(&x->p, strvec_argv(&argv), envp_of(x), IO_PIPE, IO_PIPE, IO_PIPE, e);
	strvec_clear(&argv);
	if (rc < 0)
		return -1;
	setup_pipes(x, &x->p);
	return 0;
}

void exec_free(struct exec *x)
{
	if (!x)
		return;
	kill_abandon(x);
	if (x->feed)
		exec_bytes.in += x->feed->sent;
	if (x->phase != PHASE_DONE && x->rq->chan) {
		chan_close(x->rq->chan); /* in the middle of a call: unusable */
	} else if (x->phase != PHASE_DONE && x->p.pid > 0) {
		kill(-x->p.pid, SIGKILL);
		kill(x->p.pid, SIGKILL);
		close_fd(&x->win);
		close_fd(&x->fds[0]);
		close_fd(&x->fds[1]);
		proc_wait_for(&x->p, PROC_TERM_MS);
	}
	sbuf_free(&x->req);
	strvec_clear(&x->env);
	strvec_clear(&x->envp);
	if (x->own_raw)
		feed_free(&x->raw);
	for (int i = 0; i < 2; i++)
		sbuf_free(&x->s[i].out);
	free(x);
}

struct exec *exec_start(const struct exec_req *rq, struct exec_res *res, struct err *e)
{
	memset(res, 0, sizeof(*res));
	struct exec *x = xmalloc(sizeof(*x));
	memset(x, 0, sizeof(*x));
	if (random_hex(x->tag, MARKER_TAG_LEN) < 0) {
		free(x);
		err_set(e, ERR_ENGINE, "cannot read /dev/urandom");
		return NULL;
	}
	x->tag[MARKER_TAG_LEN] = '\0';
	x->rq = rq;
	x->res = res;
	x->fds[0] = x->fds[1] = x->win = -1;
	x->deadline = x->start_deadline = x->ready_at = x->grace_end = x->wake = -1;
	x->phase = PHASE_IO;
	x->stop = EXEC_DONE;
	for (int i = 0; i < 2; i++) {
		x->s[i].st = x;
		x->s[i].num = i + 1;
	}
	proto_reader_init(&x->rd, x->tag, rq->chan != NULL, on_data, x);
	env_of(x);
	if (rq->chan) {
		start_on_chan(x);
	} else if (start_alone(x, e) < 0) {
		exec_free(x);
		return NULL;
	}
	return x;
}

/* The simple driver: the call's fds and the signal fd, nothing else. */
static void drive(void *ctx, struct exec *x)
{
	(void)ctx;
	struct pollfd pfd[EXEC_NFDS + 1];
	int wait;
	while (exec_next(x, pfd, &wait)) {
		pfd[EXEC_NFDS] = (struct pollfd){spawn_signal_fd(), POLLIN, 0};
		if (poll(pfd, EXEC_NFDS + 1, wait) < 0)
			continue; /* EINTR: the next step looks at the signal flag */
		if (pfd[EXEC_NFDS].revents) {
			spawn_signal_drain();
			continue; /* so does it here */
		}
		exec_step(x, pfd);
	}
}

int exec_run(const struct exec_req *rq, struct exec_res *res, struct err *e)
{
	struct exec *x = exec_start(rq, res, e);
	if (!x)
		return -1;
	if (rq->loop)
		rq->loop->drive(rq->loop->ctx, x);
	else
		drive(NULL, x);
	exec_free(x);
	return 0;
}
