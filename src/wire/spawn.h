/* spawn.h: starting the engine CLI. posix_spawn with an absolute path and
 * an explicit envp, signal mask and dispositions reset, its own process
 * group (so a terminal's Ctrl-C reaches only us, and we decide what the
 * engine should do about it) unless it reads our stdin, every other
 * descriptor closed on exec. */
#ifndef SANDBOX_SPAWN_H
#define SANDBOX_SPAWN_H

#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "err.h"
#include "redact.h"
#include "util.h"

enum spawn_io { IO_NULL, IO_INHERIT, IO_PIPE };

struct proc {
	pid_t pid;
	int in, out, err; /* our ends of the pipes, or -1 */
};

/* The status of a process killed by signal sig, as shells say it: the
 * one place that computes 128+N. */
static inline int spawn_signal_status(int sig)
{
	return 128 + sig;
}

/* The last signal (SIGINT, SIGTERM, SIGHUP) that came, or 0: set by the
 * handler, never cleared; what we exit with (128+N). */
extern volatile sig_atomic_t spawn_interrupted;
void spawn_install_signals(void);
/* Our own status after the signal that interrupted us (SIGINT if none
 * was recorded). */
static inline int spawn_interrupted_status(void)
{
	return spawn_signal_status(spawn_interrupted ? (int)spawn_interrupted : SIGINT);
}
/* Whether the work at hand must stop for a signal: one came since the
 * innermost spawn_grace_begin (or at all, outside any). Every wait loop
 * polls it. */
bool spawn_stopping(void);
/* Work that must be done even when we were interrupted (the kill of a
 * command in the container, the removal of a workspace) runs between
 * these two: in it, only a signal that comes after it began stops
 * anything. begin returns what end takes back. */
int spawn_grace_begin(void);
void spawn_grace_end(int outer);
/* A process of ours that goes on after we end (a fork, no exec): in a
 * session of its own, deaf to SIGHUP, SIGINT, SIGTERM, SIGQUIT and
 * SIGPIPE, no signal counted, stdin, stdout and stderr /dev/null, and
 * every other descriptor closed but keep and our own. The child's pid in
 * the parent, 0 in the child; -1 when none was made (no /dev/null, no
 * fork, or a signal came already). */
pid_t spawn_fork_detached(int keep);
/* Readable once a signal came (-1 before spawn_install_signals): every
 * poll() that waits for long includes it, so that a signal between the
 * check of spawn_stopping and the poll still wakes it up. The flags
 * say what happened; drain the fd when it woke a poll. */
int spawn_signal_fd(void);
void spawn_signal_drain(void);
/* Writes all of buf to fd (our stdout or stderr), but gives up (-1) as
 * soon as a signal came, also when the reader has stopped reading. */
int spawn_write_out(int fd, const void *buf, size_t n);
/* From now on, what spawn_write_out writes on 1 and 2 has set's
 * secrets replaced, found also across writes (redact.h): the bytes that
 * may begin one wait for the next write, or for spawn_write_end. */
void spawn_redact(const struct redact_set *set);
/* The same, for our own text (messages, -v, what stdio writes): also
 * once a signal came, which must not lose the message that says so. */
int spawn_write_text(int fd, const void *buf, size_t n);
/* Writes what is held back; at the end of the command. */
int spawn_write_end(void);

/* When true, every argv is printed on stderr before it runs (-v). */
extern bool spawn_verbose;

/* A spawn's attributes as every child of ours starts: no signal blocked,
 * every disposition the default, and flags (POSIX_SPAWN_SETPGROUP: a
 * process group of its own; POSIX_SPAWN_SETSID: a session). */
void spawn_attr_init(posix_spawnattr_t *attr, short flags);

/* This very binary (/proc/self/exe) with argv, as a daemon of ours: a
 * session of its own, in /, stdin, stdout and stderr on /dev/null, fd3
 * as its fd 3 and nothing else of ours: 0, or an errno. */
int spawn_self_detached(char *const argv[], char *const envp[], int fd3);

int proc_spawn(struct proc *p, char *const argv[], char *const envp[],
	       enum spawn_io in, enum spawn_io out, enum spawn_io err,
	       struct err *e);
/* Waits for the child; returns its status as a shell would: the exit
 * code, or 128+N for a signal. */
int proc_wait(struct proc *p);
/* The same, but after ms the child (and its process group) is killed. */
int proc_wait_for(struct proc *p, long long ms);
void proc_close(struct proc *p);

/* Runs argv on our own terminal: stdin, stdout and stderr inherited, in
 * our process group (the terminal's foreground one), so that the client
 * reads the keyboard and gets the window's size changes (SIGWINCH) from
 * the terminal itself. Meanwhile a SIGINT or SIGQUIT typed there reaches
 * the client, and we neither die nor act on it; the first SIGTERM or
 * SIGHUP sent to us is passed on to it (KILL after PROC_TERM_MS), and
 * said in *stopped_by (else 0). The terminal's settings are put back
 * after it. Returns its status as proc_wait does, or -1 with e set when
 * it could not be started. */
int proc_run_tty(char *const argv[], char *const envp[], int *stopped_by, struct err *e);

/* What proc_run keeps of each stream: an engine's answers are small. */
#define PROC_OUT_MAX (4 * 1024 * 1024)
/* How long a client gets to end after SIGTERM or after closing its output. */
#define PROC_TERM_MS 3000

/* An engine call as a state machine its caller's poll loop drives:
 * proc_call_start, then as long as proc_call_next gives fds (our signal
 * fd among them) poll them and hand the result to proc_call_step; then
 * proc_call_end says the status (or -1 with e set) as proc_run does.
 * Nothing in it waits: a client that closed its output but lives on is
 * looked at every 10 ms until its deadline.
 * proc_call_abandon instead kills it, for a caller that gives up. */
#define PROC_CALL_NFDS 3
struct proc_call {
	struct proc p;
	struct sbuf *out, *errout;
	long timeout_ms;
	long long deadline;   /* -1: none */
	bool interrupted, late;
	const char *name;     /* argv[0]'s base name, for messages */
	long long reap_end;   /* its output closed: when it is made to end */
	int status;           /* once reaped */
};
int proc_call_start(struct proc_call *c, char *const argv[], char *const envp[],
		    struct sbuf *out, struct sbuf *errout, long timeout_ms, struct err *e);
int proc_call_next(struct proc_call *c, struct pollfd pfd[PROC_CALL_NFDS], int *timeout);
void proc_call_step(struct proc_call *c, const struct pollfd pfd[PROC_CALL_NFDS]);
/* Its deadline becomes ms from now. */
void proc_call_extend(struct proc_call *c, long ms);
int proc_call_end(struct proc_call *c, struct err *e);
void proc_call_abandon(struct proc_call *c);

/* Runs argv to completion (a proc_call driven by itself), collecting stdout and stderr (either may be
 * NULL to discard; at most PROC_OUT_MAX bytes each). After timeout_ms
 * (<= 0: none) the client is killed. Returns the exit status, or -1 with
 * e set when it could not be started, was interrupted or was late. */
int proc_run(char *const argv[], char *const envp[], struct sbuf *out,
	     struct sbuf *errout, long timeout_ms, struct err *e);

#endif
