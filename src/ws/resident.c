/* resident.c: see resident.h. The command's side: where the socket is,
 * the greeting that says whose and which build it is, taking and giving
 * back channels, starting a resident, asking one what it holds. */
#include "resident.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "chan.h"
#include "envp.h"
#include "resident_wire.h"
#include "sha256.h"
#include "spawn.h"
#include "usock.h"
#include "util.h"

/* How long a resident gets to greet us or answer: it waits on nothing,
 * so only a machine stalled for seconds reaches this; then the command
 * goes on without it. */
#define ANSWER_MS 5000
/* How long a command waits for another's start of the resident. */
#define LOCK_MS 5000
/* How long stop waits for the resident to end. */
#define STOP_MS 10000

struct resident {
	char *engine;
	char *const *envp;
	long keep;
	bool tried;       /* the door was tried: fd says how it went */
	int fd;           /* the connection, our lease; -1: none */
	struct sockaddr_un addr;
	char *dir;
	struct err why;   /* why there is none, for -v */
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The endpoint's name: the engine and its whole environment, sorted, so
 * that commands that reach the same daemon the same way share one. */
static void endpoint_hash(const char *engine, char *const *envp, char out[17])
{
	size_t n = 0;
	while (envp && envp[n])
		n++;
	char **v = xmalloc((n + 1) * sizeof(*v));
	memcpy(v, envp, n * sizeof(*v));
	qsort(v, n, sizeof(*v), cmp_str);
	struct sha256 s;
	sha256_init(&s);
	sha256_update(&s, engine, strlen(engine) + 1);
	for (size_t i = 0; i < n; i++)
		sha256_update(&s, v[i], strlen(v[i]) + 1);
	free(v);
	unsigned char d[32];
	char hex[65];
	sha256_final(&s, d);
	sha256_hex(d, hex);
	memcpy(out, hex, 16);
	out[16] = '\0';
}

/* DIR: made 0700 when missing; used only as a directory of ours that
 * nobody else can enter, reached without a link. */
char *resident_dir_new(struct err *e)
{
	const char *own = getenv("SANDBOX_RUNTIME_DIR");
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	char *dir;
	if (own && *own)
		dir = xstrdup(own);
	else if (xdg && xdg[0] == '/')
		dir = xasprintf("%s/sandbox", xdg);
	else
		dir = xasprintf("/tmp/sandbox-%lu", (unsigned long)geteuid());
	if (dir[0] != '/') {
		err_set(e, ERR_CONFIG, "SANDBOX_RUNTIME_DIR %s: not an absolute path", dir);
		free(dir);
		return NULL;
	}
	struct stat st;
	if (make_dirs(dir) < 0 || lstat(dir, &st) < 0) {
		err_set(e, ERR_CONFIG, "cannot make %s: %s", dir, strerror(errno));
		free(dir);
		return NULL;
	}
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077)) {
		err_set(e, ERR_CONFIG, "%s is not a directory of mode 0700 of ours: no resident is used; "
			"remove it, or set SANDBOX_RUNTIME_DIR", dir);
		free(dir);
		return NULL;
	}
	return dir;
}

static int socket_path(struct resident *r, struct err *e)
{
	if (!(r->dir = resident_dir_new(e)))
		return -1;
	char key[17];
	endpoint_hash(r->engine, r->envp, key);
	memset(&r->addr, 0, sizeof(r->addr));
	r->addr.sun_family = AF_UNIX;
	int n = snprintf(r->addr.sun_path, sizeof(r->addr.sun_path), "%s/%s.sock", r->dir, key);
	if (n < 0 || (size_t)n >= sizeof(r->addr.sun_path))
		return err_set(e, ERR_CONFIG, "%s: too long a path for a socket; set SANDBOX_RUNTIME_DIR to a shorter one",
			       r->dir);
	return 0;
}

struct resident *resident_new(const char *engine, char *const *envp, long keep)
{
	if (keep <= 0 || !engine)
		return NULL;
	struct resident *r = xmalloc(sizeof(*r));
	*r = (struct resident){.engine = xstrdup(engine), .envp = envp, .keep = keep, .fd = -1};
	return r;
}

void resident_free(struct resident *r)
{
	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	free(r->engine);
	free(r->dir);
	free(r);
}

/* Connects to path: the fd, or -1 with errno (ENOENT, ECONNREFUSED: none
 * there; EPERM: not ours). */
static int dial(const struct sockaddr_un *addr)
{
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	uid_t uid;
	if (connect(fd, (const struct sockaddr *)addr, sizeof(*addr)) < 0 ||
	    usock_peer_uid(fd, &uid) < 0) {
		int saved = errno;
		close(fd);
		errno = saved;
		return -1;
	}
	if (uid != geteuid()) {
		close(fd);
		errno = EPERM;
		return -1;
	}
	return fd;
}

/* Reads the resident's next message within ANSWER_MS: its length, or -1
 * (it went away, or was silent). */
static ssize_t answer(int fd, char *buf, size_t cap, int fds[USOCK_MAX_FDS], int *nfds)
{
	*nfds = 0;
	if (!usock_wait(fd, ANSWER_MS))
		return -1;
	ssize_t n = usock_recv(fd, buf, cap, fds, nfds, true);
	return n > 0 ? n : -1;
}

/* What a connection to the socket found. */
struct found {
	int fd;                  /* a resident of our build: the lease; else -1 */
	bool busy;               /* ours, serving as many commands as it may */
	bool other;              /* one of another build answered */
	int pidfd;               /* the one that answered: its pidfd, or -1 */
	struct resident_hello h; /* what it said it is */
};

static void found_free(struct found *f)
{
	if (f->fd >= 0)
		close(f->fd);
	if (f->pidfd >= 0)
		close(f->pidfd);
	f->fd = f->pidfd = -1;
	f->other = false;
}

/* Connects and reads the greeting, which comes with the resident's pidfd:
 * how it is told to end, whatever became of its pid meanwhile. */
static void greet(const struct sockaddr_un *addr, struct found *f)
{
	*f = (struct found){.fd = -1, .pidfd = -1};
	int fd = dial(addr);
	if (fd < 0)
		return;
	char buf[USOCK_MAX_MSG];
	int fds[USOCK_MAX_FDS], nfds = 0;
	ssize_t n = answer(fd, buf, sizeof(buf), fds, &nfds);
	int pidfd = nfds == 1 ? fds[0] : -1;
	for (int i = pidfd >= 0; i < nfds; i++)
		close(fds[i]);
	f->busy = n > 0 && nfds == 0 && strcmp(buf, "busy") == 0;
	if (n < 0 || nfds > 1 || !resident_hello_parse(buf, &f->h)) {
		if (pidfd >= 0)
			close(pidfd);
		close(fd);
		return;
	}
	f->pidfd = pidfd;
	f->other = !resident_hello_ours(&f->h);
	if (f->other)
		close(fd);
	else
		f->fd = fd;
}

/* Holds DIR/ENDPOINT.lock while a resident is started: the fd, or -1. */
static int lock_dir(const struct resident *r)
{
	char *path = xasprintf("%s.lock", r->addr.sun_path);
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	free(path);
	if (fd < 0)
		return -1;
	long long end = now_ms() + LOCK_MS;
	while (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		if ((errno != EWOULDBLOCK && errno != EINTR) || now_ms() >= end ||
		    spawn_stopping()) {
			close(fd);
			return -1;
		}
		struct timespec ts = {0, 5 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	return fd;
}

/* A listening socket bound at r's path, made under a temporary name
 * with no window in which anyone else could reach it (umask 077), then
 * renamed over whatever was there (a stale socket: the lock is held). */
static int listen_at(const struct resident *r, struct err *e)
{
	struct sockaddr_un tmp = r->addr;
	int n = snprintf(tmp.sun_path, sizeof(tmp.sun_path), "%s.%ld", r->addr.sun_path,
			 (long)getpid());
	if (n < 0 || (size_t)n >= sizeof(tmp.sun_path))
		return err_set(e, ERR_CONFIG, "%s: too long a path for a socket", r->dir);
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return err_set(e, ERR_ENGINE, "cannot make a socket: %s", strerror(errno));
	unlink(tmp.sun_path);
	mode_t old = umask(077);
	int rc = bind(fd, (struct sockaddr *)&tmp, sizeof(tmp));
	umask(old);
	if (rc < 0 || listen(fd, RESIDENT_MAX_CLIENTS) < 0 ||
	    rename(tmp.sun_path, r->addr.sun_path) < 0) {
		err_set(e, ERR_ENGINE, "cannot listen at %s: %s", r->addr.sun_path, strerror(errno));
		unlink(tmp.sun_path);
		close(fd);
		return -1;
	}
	return fd;
}

/* The resident: this very binary, in a session of its own, in /, with
 * the listening socket as fd 3 and nothing else of ours. */
static int spawn_resident(const struct resident *r, int lfd, struct err *e)
{
	char keep[32];
	snprintf(keep, sizeof(keep), "%ld", r->keep);
	char *argv[] = {"sandbox", "resident", "serve", r->engine, keep,
			(char *)r->addr.sun_path, NULL};
	int rc = spawn_self_detached(argv, r->envp, lfd);
	if (rc != 0)
		return err_set(e, ERR_ENGINE, "cannot start the resident process: %s", strerror(rc));
	return 0;
}

/* The lease of what greet found (-1: none), the rest let go. */
static int lease_of(struct found *f)
{
	int fd = f->fd;
	f->fd = -1;
	found_free(f);
	return fd;
}

/* Tells a resident of another build to end (SIGTERM, through the pidfd
 * it sent), and waits a moment until it did: it removes its socket as it
 * ends (the channels it lent go on), which must not be ours by then. */
static void end_other(struct found *f)
{
	if (f->other && f->pidfd >= 0 && usock_pidfd_kill(f->pidfd, SIGTERM) == 0)
		usock_wait(f->pidfd, ANSWER_MS);
	found_free(f);
}

/* One that another command started meanwhile, or a new one (one of
 * another build told to end first), under the lock. */
static int start(struct resident *r, struct found *f, struct err *e)
{
	end_other(f);
	int lock = lock_dir(r);
	if (lock < 0)
		return err_set(e, ERR_ENGINE, "cannot lock %s.lock", r->addr.sun_path);
	greet(&r->addr, f);
	if (f->fd < 0 && !f->busy) {
		end_other(f);
		int lfd = listen_at(r, e);
		if (lfd >= 0 && spawn_resident(r, lfd, e) == 0)
			greet(&r->addr, f);
		if (lfd >= 0)
			close(lfd);
	}
	close(lock);
	if (f->busy)
		err_set(e, ERR_ENGINE, "the resident process serves %d commands already",
			RESIDENT_MAX_CLIENTS);
	else if (f->fd < 0 && e->kind == ERR_NONE)
		err_set(e, ERR_ENGINE, "the resident process did not answer at %s", r->addr.sun_path);
	return lease_of(f);
}

/* The lease: a connection to a resident of our build, made (and the
 * resident started) on first use. One that is busy is left alone. */
static int door(struct resident *r, struct err *e)
{
	if (r->tried) {
		if (r->fd < 0)
			*e = r->why;
		return r->fd;
	}
	r->tried = true;
	struct found f;
	if (socket_path(r, &r->why) == 0) {
		greet(&r->addr, &f);
		if (f.busy)
			err_set(&r->why, ERR_ENGINE, "the resident process serves %d commands already",
				RESIDENT_MAX_CLIENTS);
		else if (f.fd >= 0)
			r->fd = lease_of(&f);
		else
			r->fd = start(r, &f, &r->why);
	}
	if (r->fd < 0)
		*e = r->why;
	return r->fd;
}

/* The lease failed mid-way: nothing more is asked of this resident. */
static void door_lost(struct resident *r)
{
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
	err_set(&r->why, ERR_ENGINE, "the resident process stopped answering");
}

int resident_take(struct resident *r, const char *ctr, struct chan *c, struct err *e)
{
	memset(c, 0, sizeof(*c));
	if (door(r, e) < 0)
		return -1;
	char msg[USOCK_MAX_MSG];
	int n = snprintf(msg, sizeof(msg), "take %s", ctr);
	if (n < 0 || (size_t)n >= sizeof(msg))
		return err_set(e, ERR_USAGE, "a container ID too long");
	int fds[USOCK_MAX_FDS], nfds = 0;
	char buf[USOCK_MAX_MSG];
	if (usock_send(r->fd, msg, (size_t)n, NULL, 0) < 0 ||
	    answer(r->fd, buf, sizeof(buf), fds, &nfds) < 0) {
		door_lost(r);
		*e = r->why;
		return -1;
	}
	struct resident_lent l;
	if (!resident_lent_parse(buf, nfds, &l)) {
		for (int i = 0; i < nfds; i++)
			close(fds[i]);
		if (strcmp(buf, "full") == 0)
			return err_set(e, ERR_ENGINE, "the resident holds %d channels already",
				       RESIDENT_MAX_CHANNELS);
		if (strcmp(buf, "nosetsid") == 0) {
			/* Said before: the image cannot give a call its own
			 * process group; calls go one engine exec each. */
			c->ctr = xstrdup(ctr);
			c->nosetsid = true;
			return 0;
		}
		door_lost(r);
		*e = r->why;
		return -1;
	}
	c->p = (struct proc){l.pid, fds[0], fds[1], fds[2]};
	c->ctr = xstrdup(ctr);
	c->lender = r;
	if (spawn_verbose)
		fprintf(stderr, "sandbox: calls go through the resident process's %s channel (client pid %ld)\n",
			l.fresh ? "new" : "held", (long)l.pid);
	if (l.fresh && chan_greet(c, l.tag, e) < 0)
		return -1; /* chan_greet closed it: the resident kills it */
	return 0;
}

static void tell(struct chan *c, const char *word, bool with_fds)
{
	struct resident *r = c->lender;
	char msg[64];
	int n = snprintf(msg, sizeof(msg), "%s %ld", word, (long)c->p.pid);
	int fds[3] = {c->p.in, c->p.out, c->p.err};
	if (r->fd >= 0 && usock_send(r->fd, msg, (size_t)n, fds, with_fds ? 3 : 0) < 0)
		door_lost(r);
	proc_close(&c->p);
	c->p.pid = 0;
	c->lender = NULL;
}

void resident_back(struct chan *c)
{
	tell(c, "back", true);
}

void resident_kill(struct chan *c)
{
	/* One whose image lacks setsid is remembered, and not tried again. */
	tell(c, c->nosetsid ? "nosetsid" : "kill", false);
}

void resident_say(const struct resident *r, const struct err *why)
{
	(void)r;
	if (spawn_verbose && why->kind != ERR_NONE)
		fprintf(stderr, "sandbox: no resident channel: %s\n", why->msg);
}

char *resident_endpoint_new(const char *engine, char *const *envp)
{
	static const char *const choosers[] = {"DOCKER_HOST", "DOCKER_CONTEXT", "CONTAINER_HOST",
					       "CONTAINER_CONNECTION"};
	const char *slash = strrchr(engine, '/');
	struct sbuf sb = {0};
	sbuf_adds(&sb, slash ? slash + 1 : engine);
	for (size_t i = 0; i < ARRAY_LEN(choosers); i++) {
		const char *v = envp_get(envp, choosers[i]);
		if (v && *v)
			sbuf_addf(&sb, ", %s=%.200s", choosers[i], v);
	}
	return sb.buf;
}

void resident_info_free(struct resident_info *i)
{
	free(i->path);
	free(i->version);
	*i = (struct resident_info){0};
}

/* Finds the resident (without starting one) for query and stop: -1
 * with e set when its socket's path is refused. */
static int find(const char *engine, char *const *envp, struct resident_info *i,
		struct resident *r, struct found *f, struct err *e)
{
	memset(i, 0, sizeof(*i));
	*r = (struct resident){.engine = (char *)engine, .envp = envp, .fd = -1};
	*f = (struct found){.fd = -1, .pidfd = -1};
	int rc = socket_path(r, e);
	free(r->dir);
	if (rc < 0)
		return -1;
	i->path = xstrdup(r->addr.sun_path);
	greet(&r->addr, f);
	i->running = f->fd >= 0 || f->other || f->busy;
	if (f->fd >= 0 || f->other) {
		i->pid = f->h.pid;
		i->keep = f->h.keep;
		i->version = xstrdup(f->fd >= 0 ? f->h.build : "another build");
	}
	return 0;
}

int resident_query(const char *engine, char *const *envp, struct resident_info *i,
		   struct err *e)
{
	struct resident r;
	struct found f;
	if (find(engine, envp, i, &r, &f, e) < 0)
		return -1;
	int fd = lease_of(&f);
	if (fd < 0)
		return 0;
	char buf[USOCK_MAX_MSG];
	int fds[USOCK_MAX_FDS], nfds = 0;
	long idle, out, clients;
	if (usock_send(fd, "info", 4, NULL, 0) == 0 &&
	    answer(fd, buf, sizeof(buf), fds, &nfds) > 0 && nfds == 0 &&
	    sscanf(buf, "info %ld %ld %ld", &idle, &out, &clients) == 3) {
		i->idle = idle;
		i->out = out;
		i->clients = clients > 0 ? clients - 1 : 0;
	}
	for (int k = 0; k < nfds; k++)
		close(fds[k]);
	close(fd);
	return 0;
}

/* Stops the resident greet found (f let go): 1 when one was there
 * (*pid), 0 when none was, -1 when it did not end in time. */
static int stop_found(struct found *f, long *pid, struct err *e)
{
	*pid = f->h.pid;
	if (f->other) {
		end_other(f);
		return 1;
	}
	if (f->fd < 0) {
		found_free(f);
		return 0;
	}
	/* Its pidfd says when it ended (its channels killed and reaped). */
	bool gone = usock_send(f->fd, "stop", 4, NULL, 0) == 0 && f->pidfd >= 0 &&
		    usock_wait(f->pidfd, STOP_MS);
	found_free(f);
	if (!gone)
		return err_set(e, ERR_ENGINE, "the resident process (pid %ld) did not end within %ds",
			       *pid, STOP_MS / 1000);
	return 1;
}

int resident_stop(const char *engine, char *const *envp, struct resident_info *i,
		  struct err *e)
{
	struct resident r;
	struct found f;
	if (find(engine, envp, i, &r, &f, e) < 0)
		return -1;
	int rc = stop_found(&f, &i->pid, e);
	i->running = rc > 0;
	return rc < 0 ? -1 : 0;
}

int resident_stop_all(long *stopped, struct err *e)
{
	*stopped = 0;
	char *dir = resident_dir_new(e);
	DIR *d = dir ? opendir(dir) : NULL;
	if (!d) {
		if (dir)
			err_set(e, ERR_CONFIG, "cannot read %s: %s", dir, strerror(errno));
		free(dir);
		return -1;
	}
	int rc = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name);
		struct sockaddr_un addr = {.sun_family = AF_UNIX};
		if (n != 16 + 5 || strcmp(de->d_name + 16, ".sock") != 0 ||
		    (size_t)snprintf(addr.sun_path, sizeof(addr.sun_path), "%s/%s", dir,
				     de->d_name) >= sizeof(addr.sun_path))
			continue;
		long pid;
		struct found f;
		greet(&addr, &f);
		int one = stop_found(&f, &pid, e);
		*stopped += one > 0;
		rc = one < 0 ? -1 : rc;
	}
	closedir(d);
	free(dir);
	return rc;
}
