/* resident_serve.c: the resident process itself (resident.h). One poll
 * loop over its socket, its commands' connections, and the channels it
 * holds: each held channel's client process (a pidfd: its end) and,
 * while idle, its stdout and stderr (a byte there, or their end, and the
 * channel is dropped: nothing may speak between calls). Nothing in the
 * loop waits: a command that does not read its answers is dropped, a
 * channel is started and handed over at once (the command awaits its
 * greeting), and no call ever runs here. */
#define _GNU_SOURCE
#include "resident.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine.h"
#include "marker.h"
#include "proto.h"
#include "resident_wire.h"
#include "spawn.h"
#include "usock.h"
#include "util.h"

struct held {
	pid_t pid;        /* 0: a free slot */
	int pidfd;
	int fd[3];        /* its stdin, stdout, stderr while idle; -1 lent */
	char *ctr;
	int lease;        /* the client it is lent to; -1: idle */
	bool dying;       /* killed, not yet reaped */
	long long since;  /* idle since */
};

/* Room for as many channels again, dying: one killed to make room is
 * reaped once its pidfd says it ended, and its slot is not waited for. */
#define NSLOTS (2 * RESIDENT_MAX_CHANNELS)
/* The containers whose image lacks setsid, remembered: no channel is
 * started into them again. */
#define NOSETSID_MAX 32

struct server {
	int lfd;
	bool lfd_paused;  /* out of descriptors: accept waits for a close */
	const char *path;
	struct stat at;   /* the socket's file as we made it */
	int self_pidfd;   /* sent with the greeting: how we are signalled */
	const char *engine;
	char *const *envp;
	long keep;
	struct held h[NSLOTS];
	int client[RESIDENT_MAX_CLIENTS]; /* -1: a free slot */
	char *nosetsid[NOSETSID_MAX];
	int nosetsid_next;
	long long last;   /* the last sign of use */
	bool stop;
};

/* What a pollfd stands for. */
enum what { W_LISTEN, W_SIGNAL, W_CLIENT, W_PIDFD, W_OUT };
struct slot {
	enum what what;
	int i;
};
#define NPOLL (2 + RESIDENT_MAX_CLIENTS + 3 * NSLOTS)

static void close_fds(struct held *h)
{
	for (int k = 0; k < 3; k++) {
		if (h->fd[k] >= 0)
			close(h->fd[k]);
		h->fd[k] = -1;
	}
}

/* Kills a held channel's client (and what it started: it leads its own
 * process group, which stays its own until it is reaped); it is reaped
 * when its pidfd says it ended. */
static void drop(struct held *h)
{
	if (!h->pid || h->dying)
		return;
	kill(-h->pid, SIGKILL);
	usock_pidfd_kill(h->pidfd, SIGKILL);
	close_fds(h);
	free(h->ctr);
	h->ctr = NULL;
	h->lease = -1;
	h->dying = true;
}

static void reap(struct held *h)
{
	drop(h);
	if (waitpid(h->pid, NULL, WNOHANG) == 0)
		return; /* not yet: the pidfd says so again */
	close(h->pidfd);
	*h = (struct held){.lease = -1, .fd = {-1, -1, -1}};
}

static void count(const struct server *s, long *idle, long *out)
{
	*idle = *out = 0;
	for (int i = 0; i < NSLOTS; i++)
		if (s->h[i].pid && !s->h[i].dying)
			++*(s->h[i].lease < 0 ? idle : out);
}

static long clients(const struct server *s)
{
	long n = 0;
	for (int i = 0; i < RESIDENT_MAX_CLIENTS; i++)
		n += s->client[i] >= 0;
	return n;
}

static void client_close(struct server *s, int c)
{
	s->lfd_paused = false; /* a descriptor is free again */
	for (int i = 0; i < NSLOTS; i++)
		if (s->h[i].pid && s->h[i].lease == c)
			drop(&s->h[i]); /* out with a command that went away */
	close(s->client[c]);
	s->client[c] = -1;
	s->last = now_ms();
}

static bool send_to(struct server *s, int c, const char *msg, const int *fds, int nfds)
{
	if (usock_send(s->client[c], msg, strlen(msg), fds, nfds) == 0)
		return true;
	client_close(s, c);
	return false;
}

/* A slot for a new channel, with room made when RESIDENT_MAX_CHANNELS
 * live: the idle one unused the longest is dropped. -1: all are out (or
 * dying). */
static int free_slot(struct server *s)
{
	int lru = -1, live = 0, free = -1;
	for (int i = 0; i < NSLOTS; i++) {
		const struct held *h = &s->h[i];
		if (!h->pid && free < 0)
			free = i;
		live += h->pid && !h->dying;
		if (h->pid && !h->dying && h->lease < 0 && (lru < 0 || h->since < s->h[lru].since))
			lru = i;
	}
	if (live >= RESIDENT_MAX_CHANNELS) {
		if (lru < 0)
			return -1;
		drop(&s->h[lru]);
	}
	return free;
}

static bool nosetsid(const struct server *s, const char *ctr)
{
	for (int i = 0; i < NOSETSID_MAX; i++)
		if (s->nosetsid[i] && strcmp(s->nosetsid[i], ctr) == 0)
			return true;
	return false;
}

/* A container's ID or name: what an engine argv takes as it is. */
static bool ctr_ok(const char *ctr)
{
	size_t n = strlen(ctr);
	return n > 0 && n <= 128 && ctr[0] != '-' &&
	       strspn(ctr, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") == n;
}

/* A new channel into ctr, lent to client c at once: its greeting is the
 * command's to wait for. */
static void lend_new(struct server *s, int c, const char *ctr)
{
	int i = free_slot(s);
	if (i < 0) {
		send_to(s, c, "full", NULL, 0);
		return;
	}
	char tag[MARKER_TAG_LEN + 1];
	struct strvec cmd = {0}, argv = {0};
	struct proc p;
	struct err e = {0};
	int pidfd = -1;
	if (random_hex(tag, MARKER_TAG_LEN) == 0) {
		proto_serve_argv(&cmd, tag, true);
		engine_exec_argv(&argv, s->engine, ctr, NULL, 0, true, cmd.v, cmd.n);
		if (proc_spawn(&p, strvec_argv(&argv), s->envp, IO_PIPE, IO_PIPE, IO_PIPE, &e) == 0 &&
		    (pidfd = usock_pidfd_open(p.pid)) < 0) {
			kill(-p.pid, SIGKILL);
			proc_close(&p);
			proc_wait(&p);
		}
	}
	strvec_clear(&cmd);
	strvec_clear(&argv);
	if (pidfd < 0) {
		send_to(s, c, "full", NULL, 0);
		return;
	}
	s->h[i] = (struct held){.pid = p.pid, .pidfd = pidfd, .fd = {p.in, p.out, p.err},
				.ctr = xstrdup(ctr), .lease = c};
	char msg[64];
	snprintf(msg, sizeof(msg), "new %ld %s", (long)p.pid, tag);
	if (send_to(s, c, msg, s->h[i].fd, 3))
		close_fds(&s->h[i]);
	else
		drop(&s->h[i]);
}

static void take(struct server *s, int c, const char *ctr)
{
	if (!ctr_ok(ctr)) {
		client_close(s, c);
		return;
	}
	if (nosetsid(s, ctr)) {
		send_to(s, c, "nosetsid", NULL, 0);
		return;
	}
	for (int i = 0; i < NSLOTS; i++) {
		struct held *h = &s->h[i];
		if (!h->pid || h->dying || h->lease >= 0 || strcmp(h->ctr, ctr) != 0)
			continue;
		char msg[32];
		snprintf(msg, sizeof(msg), "held %ld", (long)h->pid);
		h->lease = c;
		if (send_to(s, c, msg, h->fd, 3))
			close_fds(h);
		return;
	}
	lend_new(s, c, ctr);
}

/* The lent channel pid of client c, or NULL. */
static struct held *lent(struct server *s, int c, pid_t pid)
{
	for (int i = 0; i < NSLOTS; i++)
		if (s->h[i].pid == pid && !s->h[i].dying && s->h[i].lease == c)
			return &s->h[i];
	return NULL;
}

static void on_message(struct server *s, int c, const char *msg, int *fds, int nfds)
{
	pid_t pid;
	struct held *h;
	long idle, out;
	if (strncmp(msg, "take ", 5) == 0 && nfds == 0) {
		take(s, c, msg + 5);
	} else if ((pid = resident_word_pid(msg, "back")) > 0 && nfds == 3 &&
		   (h = lent(s, c, pid))) {
		memcpy(h->fd, fds, sizeof(h->fd));
		h->lease = -1;
		h->since = now_ms();
		return; /* its descriptors are held now */
	} else if (strncmp(msg, "back ", 5) == 0 && nfds == 3) {
		/* Its client ended meanwhile, and was reaped: nothing to keep. */
	} else if ((pid = resident_word_pid(msg, "kill")) > 0 && nfds == 0) {
		if ((h = lent(s, c, pid)))
			drop(h);
	} else if ((pid = resident_word_pid(msg, "nosetsid")) > 0 && nfds == 0) {
		if ((h = lent(s, c, pid))) {
			free(s->nosetsid[s->nosetsid_next]);
			s->nosetsid[s->nosetsid_next] = xstrdup(h->ctr);
			s->nosetsid_next = (s->nosetsid_next + 1) % NOSETSID_MAX;
			drop(h);
		}
	} else if (strcmp(msg, "info") == 0 && nfds == 0) {
		char buf[96];
		count(s, &idle, &out);
		snprintf(buf, sizeof(buf), "info %ld %ld %ld", idle, out, clients(s));
		send_to(s, c, buf, NULL, 0);
	} else if (strcmp(msg, "stop") == 0 && nfds == 0) {
		s->stop = true;
	} else {
		client_close(s, c); /* not a word of ours: that command is done */
	}
	for (int k = 0; k < nfds; k++)
		close(fds[k]);
}

static void on_client(struct server *s, int c)
{
	char buf[USOCK_MAX_MSG];
	int fds[USOCK_MAX_FDS], nfds;
	ssize_t n = usock_recv(s->client[c], buf, sizeof(buf), fds, &nfds, true);
	if (n < 0 && errno == EAGAIN)
		return;
	if (n <= 0) {
		client_close(s, c);
		return;
	}
	s->last = now_ms();
	on_message(s, c, buf, fds, nfds);
}

static void on_listen(struct server *s)
{
	int fd = accept4(s->lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (fd < 0) {
		/* Out of descriptors: the socket stays readable, so it is left
		 * out of the poll until a connection closes. */
		s->lfd_paused = errno == EMFILE || errno == ENFILE;
		return;
	}
	uid_t uid;
	int c = 0;
	while (c < RESIDENT_MAX_CLIENTS && s->client[c] >= 0)
		c++;
	if (usock_peer_uid(fd, &uid) < 0 || uid != geteuid()) {
		close(fd); /* not a word to another uid */
		return;
	}
	if (c == RESIDENT_MAX_CLIENTS) {
		/* Said, so that the command goes on without us and does not
		 * take us for dead. */
		usock_send(fd, "busy", 4, NULL, 0);
		close(fd);
		return;
	}
	s->client[c] = fd;
	s->last = now_ms();
	char hello[USOCK_MAX_MSG];
	resident_hello_format(hello, sizeof(hello), s->keep);
	send_to(s, c, hello, &s->self_pidfd, s->self_pidfd >= 0);
}

/* Whether the socket's name is still ours: a resident of another build
 * takes it over by a rename. */
static bool owned(const struct server *s)
{
	struct stat st;
	return stat(s->path, &st) == 0 && st.st_ino == s->at.st_ino && st.st_dev == s->at.st_dev;
}

static int fill(struct server *s, struct pollfd *p, struct slot *w)
{
	int n = 0;
	p[n] = (struct pollfd){s->lfd_paused ? -1 : s->lfd, POLLIN, 0};
	w[n++] = (struct slot){W_LISTEN, 0};
	p[n] = (struct pollfd){spawn_signal_fd(), POLLIN, 0};
	w[n++] = (struct slot){W_SIGNAL, 0};
	for (int c = 0; c < RESIDENT_MAX_CLIENTS; c++) {
		if (s->client[c] < 0)
			continue;
		p[n] = (struct pollfd){s->client[c], POLLIN, 0};
		w[n++] = (struct slot){W_CLIENT, c};
	}
	for (int i = 0; i < NSLOTS; i++) {
		const struct held *h = &s->h[i];
		if (!h->pid)
			continue;
		p[n] = (struct pollfd){h->pidfd, POLLIN, 0};
		w[n++] = (struct slot){W_PIDFD, i};
		for (int k = 1; k < 3 && h->fd[k] >= 0; k++) {
			p[n] = (struct pollfd){h->fd[k], POLLIN, 0};
			w[n++] = (struct slot){W_OUT, i};
		}
	}
	return n;
}

/* How long to sleep: until keep has passed with nobody connected and
 * nothing lent (at once when our name was taken over), else until
 * something happens. 0: time to end. */
static int sleep_ms(const struct server *s)
{
	long idle, out;
	count(s, &idle, &out);
	if (clients(s) || out)
		return -1;
	if (!owned(s))
		return 0;
	long long left = s->last + s->keep * 1000 - now_ms();
	return left <= 0 ? 0 : left > 60000 ? 60000 : (int)left;
}

static void serve_loop(struct server *s)
{
	struct pollfd p[NPOLL];
	struct slot w[NPOLL];
	while (!s->stop && !spawn_stopping()) {
		int timeout = sleep_ms(s);
		if (timeout == 0)
			break;
		int n = fill(s, p, w);
		if (poll(p, (nfds_t)n, timeout) < 0) {
			if (errno != EINTR)
				break;
			continue;
		}
		for (int k = 0; k < n; k++) {
			if (!p[k].revents)
				continue;
			struct held *h = &s->h[w[k].i];
			if (w[k].what == W_SIGNAL)
				spawn_signal_drain();
			else if (w[k].what == W_LISTEN)
				on_listen(s);
			else if (w[k].what == W_CLIENT && s->client[w[k].i] == p[k].fd)
				on_client(s, w[k].i);
			else if (w[k].what == W_PIDFD && h->pid && h->pidfd == p[k].fd)
				reap(h);
			else if (w[k].what == W_OUT && h->pid && h->lease < 0 && !h->dying)
				drop(h); /* it spoke, or ended, between calls */
		}
	}
}

/* Our socket's name goes, unless another resident took it over: under
 * the lock a starting command holds while it renames its own in place. */
static void unname(const struct server *s)
{
	char *lock = xasprintf("%s.lock", s->path);
	int fd = open(lock, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
	free(lock);
	long long end = now_ms() + 2000;
	while (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) < 0 && errno != EBADF && now_ms() < end) {
		struct timespec ts = {0, 5 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	if (owned(s))
		unlink(s->path);
	if (fd >= 0)
		close(fd);
}

/* A resident out of descriptors serves nobody: as many as it may have. */
static void raise_nofile(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

static void end(struct server *s)
{
	unname(s);
	close(s->lfd);
	/* A channel out is its command's: it goes on, ours no longer. */
	for (int i = 0; i < NSLOTS; i++) {
		struct held *h = &s->h[i];
		if (h->pid && !h->dying && h->lease >= 0) {
			close(h->pidfd);
			free(h->ctr);
			*h = (struct held){.lease = -1, .fd = {-1, -1, -1}};
		}
	}
	for (int c = 0; c < RESIDENT_MAX_CLIENTS; c++)
		if (s->client[c] >= 0)
			client_close(s, c);
	for (int i = 0; i < NSLOTS; i++) {
		struct held *h = &s->h[i];
		if (!h->pid)
			continue;
		drop(h);
		waitpid(h->pid, NULL, 0);
		close(h->pidfd);
	}
	for (int i = 0; i < NOSETSID_MAX; i++)
		free(s->nosetsid[i]);
	if (s->self_pidfd >= 0)
		close(s->self_pidfd);
}

int resident_serve(int lfd, const char *path, const char *engine, char *const *envp,
		   long keep)
{
	struct server s = {.lfd = lfd, .path = path, .engine = engine, .envp = envp,
			   .keep = keep, .last = now_ms()};
	if (fcntl(lfd, F_SETFD, FD_CLOEXEC) < 0 || stat(path, &s.at) < 0)
		return 1;
	raise_nofile();
	s.self_pidfd = usock_pidfd_open(getpid());
	for (int c = 0; c < RESIDENT_MAX_CLIENTS; c++)
		s.client[c] = -1;
	for (int i = 0; i < NSLOTS; i++)
		s.h[i] = (struct held){.lease = -1, .fd = {-1, -1, -1}};
	serve_loop(&s);
	end(&s);
	return 0;
}
