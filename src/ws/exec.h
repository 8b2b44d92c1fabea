/* exec.h: runs one command in a workspace through `engine exec` and the
 * SCRIPT_EXEC wrapper, and tells the command's own fate apart from the
 * engine's: did it start, did it finish and with what status, did it time
 * out. On a timeout or an interrupt the command's process group is killed
 * inside the container, not only our local engine client. What goes
 * over the wire, and what the answers mean, is proto.h's. */
#ifndef SANDBOX_EXEC_H
#define SANDBOX_EXEC_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>

#include "chan.h"
#include "err.h"
#include "feed.h"
#include "proto.h"
#include "util.h"

/* Where the command's output goes: stream 1 or 2. Returns -1 when the
 * reader went away (a closed pipe), which stops the command. */
struct exec_sink {
	int (*write)(void *ctx, int stream, const char *buf, size_t n);
	void *ctx;
};

struct exec_req {
	const char *engine;    /* absolute path */
	char *const *envp;     /* the engine's environment */
	const char *ctr;       /* container ID or name */
	char *const *env;      /* K=V for this command */
	size_t nenv;
	/* K=V too, kept off every argument vector: never on a channel
	 * (workspace.c: its server would pass them on a command line); the
	 * engine gets --env=K and takes V from its own environment (docker
	 * and podman both do). */
	char *const *secrets;
	size_t nsecrets;
	const char *workdir;   /* the workspace's; NULL: the container's own */
	const char *cwd;       /* NULL: the workdir; relative: under it */
	char *const *cmd;
	size_t ncmd;
	enum proto_script script; /* one of our scripts, cmd its arguments */
	bool interactive;      /* the command reads our stdin */
	struct feed *feed;     /* or: the command's stdin, framed (feed.h) */
	double timeout;        /* seconds; 0: none */
	long engine_ms;        /* the engine's time to start it, and to kill it */
	struct exec_sink sink;
	/* Run through this open channel instead of an engine exec of its
	 * own; then a feed must be a buffer, and interactive is false. */
	struct chan *chan;
	/* Never on a channel: its calls run as asynchronous lists, which
	 * ignore SIGINT and SIGQUIT, and so would all that they start. */
	bool own_exec;
	/* A read that may go lone on a channel (proto_call's lone): its
	 * head may say "S -"; env does not reach it. */
	bool lone;
	/* Who drives the call (exec_run): NULL, exec_run itself. */
	const struct exec_loop *loop;
};

/* Secrets (K=V) as an engine exec of its own takes them: each K onto
 * names (for --env=K), and envp with every K=V onto envp_out, the
 * engine client's environment. */
void exec_secrets_by_name(char *const *envp, char *const *secrets, size_t n,
			  struct strvec *names, struct strvec *envp_out);

/* The bytes the calls of this process carried: the commands' input
 * (what their feeds sent) and their output (stdout and stderr, markers
 * aside), for the history. */
struct exec_bytes {
	unsigned long long in, out;
};
extern struct exec_bytes exec_bytes;

/* A caller's own poll loop, which drives a call with exec_next and
 * exec_step until it is over, serving its own fds meanwhile. */
struct exec;
struct exec_loop {
	void (*drive)(void *ctx, struct exec *x);
	void *ctx;
};

enum exec_outcome {
	EXEC_DONE,        /* the command ran; status is its own */
	EXEC_NOT_STARTED, /* the engine failed before the command started */
	EXEC_NO_CWD,      /* the working directory does not exist */
	EXEC_LOST,        /* started, then the container went away */
	EXEC_TIMED_OUT,   /* killed in the container after the timeout */
	EXEC_INTERRUPTED, /* killed in the container on a signal to us */
	EXEC_PIPE,        /* killed in the container: our stdout was closed */
	EXEC_CANCELLED,   /* killed in the container: exec_cancel */
	EXEC_START_LATE,  /* the engine did not start it within engine_ms */
	EXEC_UNTRUSTED,   /* the markers and the engine disagree on its status */
};

/* What a cancel (timeout, signal, cancellation) did in the container. */
enum exec_kill {
	KILL_NONE,        /* nothing to do: the command had ended */
	KILL_KILLED,      /* its process group is gone */
	KILL_NOT_STARTED, /* it had not said its process group: not started */
	KILL_WS_STOPPED,  /* the group was not seen gone: the container stopped */
	KILL_FAILED,      /* neither worked: it may still run */
};

struct exec_res {
	enum exec_outcome outcome;
	int status;             /* with EXEC_DONE */
	int engine_status;      /* with EXEC_UNTRUSTED: the engine client's, or
				 * the channel's end (-1: it never came) */
	enum exec_kill kill;    /* after a cancel */
	bool oom;               /* the kernel killed a process of the container
				 * for lack of memory while it ran */
	struct sbuf engine_err; /* what the engine said, when not started */
	long long duration_ms;
	bool chan_lost;         /* the channel died (and is closed now) */
};

/* What became of a cancelled command, for a message: "the command was
 * killed in the workspace", ... */
const char *exec_kill_says(enum exec_kill k);
/* The same as one word for --json: "killed", "not_started",
 * "workspace_stopped", "failed" (or "none"). */
const char *exec_kill_word(enum exec_kill k);

/* A status of 137 (SIGKILL) that came with an out-of-memory kill. */
bool exec_oom_killed(const struct exec_res *res, int status);

/* Runs the call to its end, driven by rq->loop or by itself. Returns 0
 * when the outcome is known (see res), or -1 with e set when the engine
 * could not even be run. */
int exec_run(const struct exec_req *rq, struct exec_res *res, struct err *e);

/* A call in progress, as a state machine its caller drives: exec_start,
 * then as long as exec_next gives fds to wait on, poll them (with any of
 * the caller's own, spawn_signal_fd among them: a signal stops the call)
 * and hand the result to exec_step; then exec_free. The engine's
 * failure to run is exec_start's (NULL, e set); everything after is in
 * res once exec_next says 0. After a cancel, the kill in the container
 * is an engine call whose fds exec_next gives like the call's own: the
 * caller's loop goes on serving its other fds meanwhile. Only an engine
 * client of a call of its own that closed its pipes but lives on holds
 * exec_next, for at most PROC_TERM_MS. */
#define EXEC_NFDS 4
struct exec *exec_start(const struct exec_req *rq, struct exec_res *res, struct err *e);
/* Moves the call on by the clock and by what came; fills pfd[0,
 * EXEC_NFDS) (unused ones -1) and the poll timeout (-1: none); 0 when
 * the call is over. */
int exec_next(struct exec *x, struct pollfd *pfd, int *timeout_ms);
/* What poll said about the fds exec_next gave. */
void exec_step(struct exec *x, const struct pollfd *pfd);
/* Stops the call (EXEC_CANCELLED): killed in the container. */
void exec_cancel(struct exec *x);
/* Before the end, this abandons the call: the local client is killed
 * (or the channel closed), and the command may run on in the container. */
void exec_free(struct exec *x);

#endif
