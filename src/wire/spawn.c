/* spawn.c: see spawn.h. */
/* posix_spawn_file_actions_addchdir_np and _addclosefrom_np, and
 * POSIX_SPAWN_SETSID, are glibc's under _GNU_SOURCE. */
#define _GNU_SOURCE
#include "spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "quote.h"

volatile sig_atomic_t spawn_interrupted;
/* Signals counted by the handler, and their count when the innermost
 * grace began. */
static volatile sig_atomic_t signals;
static int grace_floor;
bool spawn_verbose;
/* The self-pipe: a signal that comes between a check of the flag and a
 * poll() would not interrupt that poll; its byte here wakes it. */
static int sig_pipe[2] = {-1, -1};

static void on_signal(int sig)
{
	int saved = errno;
	spawn_interrupted = sig;
	signals = signals + 1;
	if (sig_pipe[1] >= 0 && write(sig_pipe[1], "", 1) < 0) {
		/* Full: a wake-up is pending already. */
	}
	errno = saved;
}

bool spawn_stopping(void)
{
	return signals != grace_floor;
}

int spawn_grace_begin(void)
{
	int outer = grace_floor;
	grace_floor = signals;
	return outer;
}

void spawn_grace_end(int outer)
{
	grace_floor = outer;
}

int spawn_signal_fd(void)
{
	return sig_pipe[0];
}

void spawn_signal_drain(void)
{
	char buf[64];
	while (sig_pipe[0] >= 0 && read(sig_pipe[0], buf, sizeof(buf)) > 0)
		;
}

void spawn_install_signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	if (pipe(sig_pipe) == 0) {
		for (int i = 0; i < 2; i++) {
			fcntl(sig_pipe[i], F_SETFD, FD_CLOEXEC);
			fcntl(sig_pipe[i], F_SETFL, O_NONBLOCK);
		}
	} else {
		sig_pipe[0] = sig_pipe[1] = -1;
	}
	/* No SA_RESTART: poll() must return EINTR so the loop sees the flag. */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	/* A closed stdout shows up as EPIPE from write(), not as a death. */
	signal(SIGPIPE, SIG_IGN);
}

pid_t spawn_fork_detached(int keep)
{
	static const int deaf[] = {SIGHUP, SIGINT, SIGTERM, SIGQUIT, SIGPIPE};
	sigset_t set, old;
	sigemptyset(&set);
	for (size_t i = 0; i < ARRAY_LEN(deaf); i++)
		sigaddset(&set, deaf[i]);
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null < 0)
		return -1;
	/* Blocked from here: a signal that comes now is the parent's (it
	 * stays pending there), never the child's. */
	sigprocmask(SIG_BLOCK, &set, &old);
	pid_t pid = -1;
	if (!spawn_interrupted) {
		fflush(NULL);
		pid = fork();
	}
	if (pid == 0) {
		for (size_t i = 0; i < ARRAY_LEN(deaf); i++)
			signal(deaf[i], SIG_IGN); /* and the pending ones go */
		spawn_interrupted = 0;
		signals = grace_floor = 0;
		spawn_signal_drain();
		setsid();
		for (int fd = 0; fd < 3; fd++)
			dup2(null, fd);
		long max = sysconf(_SC_OPEN_MAX);
		if (max < 0 || max > (1L << 20))
			max = 1L << 20;
		for (int fd = 3; fd < max; fd++)
			if (fd != keep && fd != sig_pipe[0] && fd != sig_pipe[1])
				close(fd);
	} else {
		close(null);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	return pid;
}

static int cloexec_pipe(int fds[2])
{
	if (pipe(fds) < 0)
		return -1;
	fcntl(fds[0], F_SETFD, FD_CLOEXEC);
	fcntl(fds[1], F_SETFD, FD_CLOEXEC);
	return 0;
}

/* Sets up one of the child's standard descriptors. parent_end gets our
 * end of a pipe; child_end is closed by the caller after spawning. */
static int plan_fd(posix_spawn_file_actions_t *fa, int target, enum spawn_io io,
		   int *parent_end, int *child_end)
{
	*parent_end = *child_end = -1;
	if (io == IO_INHERIT)
		return 0;
	if (io == IO_NULL)
		return posix_spawn_file_actions_addopen(fa, target, "/dev/null",
							target == 0 ? O_RDONLY : O_WRONLY, 0);
	int fds[2];
	if (cloexec_pipe(fds) < 0)
		return -1;
	*parent_end = target == 0 ? fds[1] : fds[0];
	*child_end = target == 0 ? fds[0] : fds[1];
	return posix_spawn_file_actions_adddup2(fa, *child_end, target);
}

static void print_argv(char *const argv[])
{
	struct sbuf sb = {0};
	sbuf_adds(&sb, "+ ");
	sq_quote_argv(&sb, argv);
	sbuf_addc(&sb, '\n');
	spawn_write_text(2, sb.buf, sb.len);
	sbuf_free(&sb);
}

void spawn_attr_init(posix_spawnattr_t *attr, short flags)
{
	sigset_t none, all;
	sigemptyset(&none);
	sigfillset(&all);
	posix_spawnattr_init(attr);
	posix_spawnattr_setsigmask(attr, &none);
	posix_spawnattr_setsigdefault(attr, &all);
	posix_spawnattr_setpgroup(attr, 0);
	posix_spawnattr_setflags(attr, flags | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
}

int spawn_self_detached(char *const argv[], char *const envp[], int fd3)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	posix_spawn_file_actions_init(&fa);
	spawn_attr_init(&attr, POSIX_SPAWN_SETSID);
	posix_spawn_file_actions_adddup2(&fa, fd3, 3);
	for (int i = 0; i < 3; i++)
		posix_spawn_file_actions_addopen(&fa, i, "/dev/null", i ? O_WRONLY : O_RDONLY, 0);
	posix_spawn_file_actions_addclosefrom_np(&fa, 4);
	posix_spawn_file_actions_addchdir_np(&fa, "/");
	pid_t pid;
	int rc = posix_spawn(&pid, "/proc/self/exe", &fa, &attr, argv, envp);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	return rc;
}

int proc_spawn(struct proc *p, char *const argv[], char *const envp[],
	       enum spawn_io in, enum spawn_io out, enum spawn_io err,
	       struct err *e)
{
	if (spawn_verbose)
		print_argv(argv);
	p->pid = -1;
	p->in = p->out = p->err = -1;
	int child[3] = {-1, -1, -1};
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	posix_spawn_file_actions_init(&fa);
	/* A group of its own keeps a terminal's Ctrl-C from killing the client
	 * behind our back, but a client that reads the terminal must stay in
	 * the foreground group, or SIGTTIN stops it. */
	spawn_attr_init(&attr, in != IO_INHERIT ? POSIX_SPAWN_SETPGROUP : 0);

	int rc = -1;
	if (plan_fd(&fa, 0, in, &p->in, &child[0]) < 0 ||
	    plan_fd(&fa, 1, out, &p->out, &child[1]) < 0 ||
	    plan_fd(&fa, 2, err, &p->err, &child[2]) < 0) {
		err_set(e, ERR_ENGINE, "cannot set up pipes: %s", strerror(errno));
		goto out;
	}
	int serr = posix_spawn(&p->pid, argv[0], &fa, &attr, argv, envp);
	if (serr != 0) {
		p->pid = -1;
		err_set(e, ERR_ENGINE, "cannot run %s: %s", argv[0], strerror(serr));
		goto out;
	}
	rc = 0;
out:
	for (int i = 0; i < 3; i++)
		if (child[i] >= 0)
			close(child[i]);
	if (rc < 0)
		proc_close(p);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	return rc;
}

/* The client and whatever it started (ssh, for a remote daemon): it
 * leads a process group of its own (proc_spawn). */
static void kill_client(pid_t pid)
{
	kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
}

static int wait_status(int st)
{
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	if (WIFSIGNALED(st))
		return spawn_signal_status(WTERMSIG(st));
	return -1;
}

int proc_wait_for(struct proc *p, long long ms)
{
	if (p->pid < 0)
		return -1;
	long long end = now_ms() + (ms > 0 ? ms : 0);
	for (;;) {
		int st;
		pid_t r = waitpid(p->pid, &st, WNOHANG);
		if (r == p->pid) {
			p->pid = -1;
			return wait_status(st);
		}
		if (r < 0 && errno != EINTR)
			return -1;
		if (now_ms() >= end)
			break;
		struct timespec ts = {0, 10 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	kill_client(p->pid);
	return proc_wait(p);
}

int proc_wait(struct proc *p)
{
	int st;
	if (p->pid < 0)
		return -1;
	while (waitpid(p->pid, &st, 0) < 0) {
		if (errno != EINTR)
			return -1;
	}
	p->pid = -1;
	return wait_status(st);
}

void proc_close(struct proc *p)
{
	int *fds[] = {&p->in, &p->out, &p->err};
	for (size_t i = 0; i < ARRAY_LEN(fds); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
}

/* Reads what is there on fd into sb (or discards it), keeping at most
 * PROC_OUT_MAX bytes; false at EOF or on an error that will not go away. */
static bool drain(int fd, struct sbuf *sb)
{
	char buf[16384];
	ssize_t r = read(fd, buf, sizeof(buf));
	if (r > 0 && sb && sb->len < PROC_OUT_MAX) {
		size_t room = PROC_OUT_MAX - sb->len;
		sbuf_add(sb, buf, (size_t)r < room ? (size_t)r : room);
	}
	return r > 0 || (r < 0 && errno == EINTR);
}

/* Whether a write to fd can wait on a reader: a pipe, a socket, a
 * terminal. A file or /dev/null never does. */
static bool may_block(int fd)
{
	struct stat st;
	return fstat(fd, &st) < 0 || S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode) ||
	       isatty(fd);
}

/* The secrets kept out of our stdout and stderr: a stream each. */
static struct redact_stream out_redact[3];

void spawn_redact(const struct redact_set *set)
{
	for (int fd = 1; fd <= 2; fd++)
		out_redact[fd].set = set && !redact_empty(set) ? set : NULL;
}

static int write_plain(int fd, const char *p, size_t n, bool stop);

static int write_redacted(int fd, const void *buf, size_t n, bool stop)
{
	if ((fd != 1 && fd != 2) || !out_redact[fd].set)
		return write_plain(fd, buf, n, stop);
	struct sbuf out = {0};
	redact_stream_feed(&out_redact[fd], buf, n, &out);
	int rc = out.len ? write_plain(fd, out.buf, out.len, stop) : 0;
	sbuf_free(&out);
	return rc;
}

int spawn_write_out(int fd, const void *buf, size_t n)
{
	return write_redacted(fd, buf, n, true);
}

int spawn_write_text(int fd, const void *buf, size_t n)
{
	return write_redacted(fd, buf, n, false);
}

int spawn_write_end(void)
{
	int rc = 0;
	for (int fd = 1; fd <= 2; fd++) {
		if (!out_redact[fd].set)
			continue;
		struct sbuf out = {0};
		redact_stream_end(&out_redact[fd], &out);
		if (out.len && write_plain(fd, out.buf, out.len, false) < 0)
			rc = -1;
		sbuf_free(&out);
	}
	return rc;
}

static int write_plain(int fd, const char *p, size_t n, bool stop)
{
	bool wait = may_block(fd);
	while (n) {
		if (stop && spawn_stopping())
			return -1;
		if (wait) {
			struct pollfd pfd[2] = {{fd, POLLOUT, 0}, {sig_pipe[0], POLLIN, 0}};
			if (poll(pfd, 2, -1) < 0) {
				if (errno == EINTR)
					continue;
				return -1;
			}
			if (pfd[1].revents)
				spawn_signal_drain();
			if (!pfd[0].revents)
				continue;
		}
		/* Writable means room for PIPE_BUF bytes at least: no more, so
		 * that this write cannot block past a signal. */
		ssize_t w = write(fd, p, wait && n > PIPE_BUF ? PIPE_BUF : n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* The terminal as it was, put back after a client that could not
 * (killed) left it raw; only from the foreground, where it is ours. */
static void tty_restore(const struct termios *t)
{
	if (tcgetpgrp(0) == getpgrp())
		tcsetattr(0, TCSADRAIN, t);
}

int proc_run_tty(char *const argv[], char *const envp[], int *stopped_by, struct err *e)
{
	/* Ctrl-\ before the client made the terminal raw must not kill us
	 * and leave it behind. The child gets every default back. */
	struct sigaction ign, quit;
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigemptyset(&ign.sa_mask);
	sigaction(SIGQUIT, &ign, &quit);
	struct termios tio;
	bool saved = tcgetattr(0, &tio) == 0;
	*stopped_by = 0;
	struct proc p;
	int status = -1;
	if (proc_spawn(&p, argv, envp, IO_INHERIT, IO_INHERIT, IO_INHERIT, e) < 0)
		goto out;
	int seen = signals;
	long long kill_at = -1;
	for (;;) {
		int st;
		pid_t r = waitpid(p.pid, &st, WNOHANG);
		if (r == p.pid) {
			status = wait_status(st);
			break;
		}
		if (r < 0 && errno != EINTR) {
			err_set(e, ERR_ENGINE, "lost track of %s: %s", argv[0], strerror(errno));
			break;
		}
		if (signals != seen) {
			seen = signals;
			int sig = spawn_interrupted;
			if ((sig == SIGTERM || sig == SIGHUP) && !*stopped_by) {
				*stopped_by = sig;
				kill(p.pid, sig);
				kill_at = now_ms() + PROC_TERM_MS;
			}
		}
		if (kill_at >= 0 && now_ms() >= kill_at) {
			kill(p.pid, SIGKILL);
			kill_at = -1;
		}
		/* No SIGCHLD handler to wake us: a look every 50 ms, or at once
		 * when a signal came. */
		struct pollfd pfd = {sig_pipe[0], POLLIN, 0};
		if (poll(&pfd, 1, 50) > 0)
			spawn_signal_drain();
	}
	if (saved)
		tty_restore(&tio);
out:
	sigaction(SIGQUIT, &quit, NULL);
	return status;
}

int proc_call_start(struct proc_call *c, char *const argv[], char *const envp[],
		    struct sbuf *out, struct sbuf *errout, long timeout_ms, struct err *e)
{
	*c = (struct proc_call){.out = out, .errout = errout, .timeout_ms = timeout_ms,
				.name = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0],
				.reap_end = -1, .status = -1};
	if (proc_spawn(&c->p, argv, envp, IO_NULL, IO_PIPE, IO_PIPE, e) < 0)
		return -1;
	c->deadline = timeout_ms > 0 ? now_ms() + timeout_ms : -1;
	return 0;
}

/* Its output closed: it ends now, or by the deadline is made to. The
 * loop is not held meanwhile: the child is looked at every 10 ms. */
static int reap_next(struct proc_call *c, struct pollfd pfd[PROC_CALL_NFDS], int *timeout,
		     long long now)
{
	if (c->reap_end < 0)
		c->reap_end = c->deadline >= 0 ? c->deadline : now + PROC_TERM_MS;
	int st;
	pid_t r = waitpid(c->p.pid, &st, WNOHANG);
	if (r == c->p.pid || (r < 0 && errno != EINTR)) {
		c->status = r == c->p.pid ? wait_status(st) : -1;
		c->p.pid = -1;
		return 0;
	}
	if (now >= c->reap_end) {
		kill_client(c->p.pid);
		c->status = proc_wait(&c->p);
		return 0;
	}
	pfd[0] = pfd[1] = (struct pollfd){-1, 0, 0};
	pfd[2] = (struct pollfd){c->interrupted ? -1 : sig_pipe[0], POLLIN, 0};
	*timeout = c->reap_end - now < 10 ? (int)(c->reap_end - now) : 10;
	return PROC_CALL_NFDS;
}

int proc_call_next(struct proc_call *c, struct pollfd pfd[PROC_CALL_NFDS], int *timeout)
{
	bool open = c->p.out >= 0 || c->p.err >= 0;
	if (!open && c->p.pid < 0)
		return 0;
	long long now = now_ms();
	if (spawn_stopping() && !c->interrupted) {
		/* It gets a moment to end on its own, no more. */
		kill(c->p.pid, SIGTERM);
		c->interrupted = true;
		if (c->deadline < 0 || c->deadline > now + PROC_TERM_MS)
			c->deadline = now + PROC_TERM_MS;
	}
	if (open && c->deadline >= 0 && now >= c->deadline) {
		c->late = !c->interrupted;
		kill_client(c->p.pid);
		proc_close(&c->p);
		open = false;
	}
	if (!open)
		return reap_next(c, pfd, timeout, now);
	pfd[0] = (struct pollfd){c->p.out, POLLIN, 0};
	pfd[1] = (struct pollfd){c->p.err, POLLIN, 0};
	pfd[2] = (struct pollfd){c->interrupted ? -1 : sig_pipe[0], POLLIN, 0};
	*timeout = c->deadline < 0 ? -1 : (int)(c->deadline - now);
	return PROC_CALL_NFDS;
}

void proc_call_extend(struct proc_call *c, long ms)
{
	if (!c->interrupted)
		c->deadline = now_ms() + ms;
}

void proc_call_step(struct proc_call *c, const struct pollfd pfd[PROC_CALL_NFDS])
{
	if (pfd[2].revents)
		spawn_signal_drain();
	if (pfd[0].revents && !drain(c->p.out, c->out)) {
		close(c->p.out);
		c->p.out = -1;
	}
	if (pfd[1].revents && !drain(c->p.err, c->errout)) {
		close(c->p.err);
		c->p.err = -1;
	}
}

int proc_call_end(struct proc_call *c, struct err *e)
{
	proc_close(&c->p);
	/* Reaped by proc_call_next; a caller that stopped early waits here. */
	int status = c->p.pid > 0 ? proc_wait_for(&c->p, PROC_TERM_MS) : c->status;
	if (c->interrupted)
		return err_set(e, ERR_INTERRUPTED, "interrupted");
	if (c->late)
		return err_set(e, ERR_ENGINE, "%s did not answer within %gs (engine_timeout); is the engine reachable?",
			       c->name, (double)c->timeout_ms / 1000);
	if (status < 0)
		return err_set(e, ERR_ENGINE, "lost track of %s", c->name);
	return status;
}

void proc_call_abandon(struct proc_call *c)
{
	if (c->p.pid <= 0)
		return;
	kill_client(c->p.pid);
	proc_close(&c->p);
	proc_wait(&c->p);
}

int proc_run(char *const argv[], char *const envp[], struct sbuf *out,
	     struct sbuf *errout, long timeout_ms, struct err *e)
{
	struct proc_call c;
	if (proc_call_start(&c, argv, envp, out, errout, timeout_ms, e) < 0)
		return -1;
	struct pollfd pfd[PROC_CALL_NFDS];
	int timeout;
	while (proc_call_next(&c, pfd, &timeout)) {
		if (poll(pfd, PROC_CALL_NFDS, timeout) < 0 && errno != EINTR)
			break;
		proc_call_step(&c, pfd);
	}
	return proc_call_end(&c, e);
}
