/* cmd_forward.c: forward, ports in (man sandbox, PORTS IN). Each
 * [HOSTPORT:]PORT listens on the user's ADDRESS:HOSTPORT (127.0.0.1
 * unless --address), and each connection there becomes one engine exec of
 * sandbox-relay (relay_bin.h) in the workspace, which connects to the
 * workspace's own 127.0.0.1:PORT: the engine carries the bytes, so it
 * works with network none and with a daemon over ssh, as kubectl
 * port-forward does. One poll loop holds every connection. Each way of
 * each holds one buffer of FWD_BUF and reads again only once it is
 * written: a side that does not read stops the other's flow, and memory
 * stays under FWD_MAX_CONNS of them whatever the workspace sends. Until
 * the relay says it is connected (RELAY_READY), within engine_timeout,
 * no byte of its goes to the client. It runs until a signal: then every
 * connection is closed and every engine client ended. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "engine.h"
#include "json.h"
#include "opt_id.h"
#include "relay.h"
#include "relay_bin.h"
#include "results.h"
#include "scripts.h"
#include "spawn.h"
#include "tools.h"
#include "utf8.h"
#include "workspace.h"

#define FWD_MAX_SPECS 16
#define FWD_MAX_CONNS 64
#define FWD_BUF 65536
#define FWD_ERR_MAX 400
#define FWD_BACKLOG 64
/* A connection whose client ended its sending, with no byte either way
 * for this long, is ended: a client that closed is not told from one
 * that half closed, and a server that ignores the end would hold the
 * slot for ever. */
#define FWD_HALF_IDLE_MS 60000
/* Descriptors a connection holds here: the client, the relay's three. */
#define FWD_CONN_FDS 4

struct fwd_spec {
	int host_port, port;
	int fd;                /* the listener */
};

struct way {
	char *buf;             /* FWD_BUF, made on first use */
	size_t len, off;
	bool eof;              /* its source ended */
};

struct conn {
	bool used;
	int client;            /* -1 once closed */
	struct proc p;         /* the relay's engine client: in, out, err */
	int port;
	bool ready;            /* RELAY_READY came */
	long long deadline;    /* until ready */
	struct way up, down;   /* client to relay; relay to client */
	char err[FWD_ERR_MAX];
	size_t errlen;
	long long idle_end;    /* its client ended sending: ended then (FWD_HALF_IDLE_MS) */
	long long reap_end;    /* ended: its client is killed after this */
	bool ended;
};

struct fwd {
	struct app *a;
	struct ws ws;
	char relay[128];       /* the relay's path in the workspace */
	struct fwd_spec spec[FWD_MAX_SPECS];
	size_t nspec;
	struct conn conn[FWD_MAX_CONNS];
	size_t nconn;          /* slots in use, ended ones among them */
	size_t max_conns;      /* FWD_MAX_CONNS, or fewer: the open files allowed */
	long long engine_ms;
};

static void set_nonblock(int fd)
{
	if (fd >= 0)
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* ---- the arguments ---- */

/* A port of digits alone, from lo to 65535; -1 otherwise. */
static int port_of(const char *s, size_t n, int lo)
{
	if (n == 0 || n > 5)
		return -1;
	long v = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v >= lo && v <= 65535 ? (int)v : -1;
}

/* [HOSTPORT:]PORT into sp; false when s is none. */
static bool spec_of(const char *s, struct fwd_spec *sp)
{
	const char *colon = strchr(s, ':');
	if (!colon) {
		sp->port = sp->host_port = port_of(s, strlen(s), 1);
		return sp->port > 0;
	}
	sp->host_port = port_of(s, (size_t)(colon - s), 0);
	sp->port = port_of(colon + 1, strlen(colon + 1), 1);
	return sp->host_port >= 0 && sp->port > 0;
}

static int parse_args(struct fwd *f, struct err *e)
{
	struct app *a = f->a;
	size_t i = 0, n = a->o.args.n;
	char *const *v = a->o.args.v;
	struct fwd_spec sp;
	/* A first word of more than digits and colons is the workspace. */
	if (n && strspn(v[0], "0123456789:") != strlen(v[0])) {
		if (a->ref && !a->ref_from_env)
			return err_set(e, ERR_USAGE, "'%.40s' is no port: give [HOSTPORT:]PORT, as 8080 or 0:8080",
				       v[0]);
		a->ref = v[0];
		a->ref_from_env = false;
		i = 1;
	}
	if (i == n)
		return err_set(e, ERR_USAGE, "which port? give [HOSTPORT:]PORT, as 8080 (the workspace's "
			       "127.0.0.1:8080 at this side's 127.0.0.1:8080) or 0:8080 (any free port here)");
	if (!a->ref && !a->ws_pin)
		return err_set(e, ERR_USAGE, "which workspace? give REF, -w REF or set SANDBOX_WORKSPACE");
	for (; i < n; i++) {
		if (f->nspec == FWD_MAX_SPECS)
			return err_set(e, ERR_USAGE, "at most %d ports at once", FWD_MAX_SPECS);
		if (!spec_of(v[i], &sp))
			return err_set(e, ERR_USAGE, "'%.40s' is no port: give [HOSTPORT:]PORT, each from 1 to "
				       "65535 (HOSTPORT 0: any free one)", v[i]);
		for (size_t k = 0; k < f->nspec && sp.host_port; k++)
			if (f->spec[k].host_port == sp.host_port)
				return err_set(e, ERR_USAGE, "port %d here is given twice", sp.host_port);
		sp.fd = -1;
		f->spec[f->nspec++] = sp;
	}
	return 0;
}

/* ---- listening ---- */

static int listen_all(struct fwd *f, const char *addr, struct err *e)
{
	struct sockaddr_storage ss = {0};
	socklen_t len;
	struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
	if (inet_pton(AF_INET, addr, &s4->sin_addr) == 1) {
		s4->sin_family = AF_INET;
		len = sizeof(*s4);
	} else if (inet_pton(AF_INET6, addr, &s6->sin6_addr) == 1) {
		s6->sin6_family = AF_INET6;
		len = sizeof(*s6);
	} else {
		return err_set(e, ERR_USAGE, "%s '%.60s': not an address; give one as 127.0.0.1 or ::1",
			       opt_say(f->a, O_ADDRESS), addr);
	}
	for (size_t i = 0; i < f->nspec; i++) {
		struct fwd_spec *sp = &f->spec[i];
		unsigned short port = htons((unsigned short)sp->host_port);
		if (ss.ss_family == AF_INET)
			s4->sin_port = port;
		else
			s6->sin6_port = port;
		sp->fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		int one = 1;
		if (sp->fd < 0 || setsockopt(sp->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
		    bind(sp->fd, (struct sockaddr *)&ss, len) < 0 || listen(sp->fd, FWD_BACKLOG) < 0) {
			int err = errno;
			if (err == EADDRINUSE)
				return err_set(e, ERR_FAILED, "%s port %d is in use: pick another HOSTPORT, or 0 "
					       "for any free one", addr, sp->host_port);
			return err_set(e, ERR_FAILED, "cannot listen on %s port %d: %s", addr, sp->host_port,
				       strerror(err));
		}
		struct sockaddr_storage got;
		socklen_t glen = sizeof(got);
		if (getsockname(sp->fd, (struct sockaddr *)&got, &glen) == 0)
			sp->host_port = ntohs(got.ss_family == AF_INET ? ((struct sockaddr_in *)&got)->sin_port
						 : ((struct sockaddr_in6 *)&got)->sin6_port);
	}
	return 0;
}

/* ---- one connection ---- */

static void say(const struct fwd *f, const struct conn *c, const char *what)
{
	fprintf(stderr, "sandbox: forward: %s's 127.0.0.1:%d: %s\n", f->ws.name, c->port, what);
	fflush(stderr);
}

/* Ends it: every descriptor closed; its engine client gets TERM unless it
 * ends by itself, and KILL at reap_end. */
static void conn_end(struct fwd *f, struct conn *c, bool clean)
{
	(void)f;
	close_fd(&c->client);
	close_fd(&c->p.in);
	close_fd(&c->p.out);
	close_fd(&c->p.err);
	free(c->up.buf);
	free(c->down.buf);
	c->up = c->down = (struct way){0};
	if (!clean && c->p.pid > 0)
		kill(-c->p.pid, SIGTERM);
	c->ended = true;
	c->reap_end = now_ms() + PROC_TERM_MS;
}

static void conn_start(struct fwd *f, int client, int port)
{
	struct conn *c = NULL;
	for (size_t i = 0; i < f->max_conns && !c; i++)
		if (!f->conn[i].used)
			c = &f->conn[i];
	if (!c) {
		close(client);
		return;
	}
	*c = (struct conn){.used = true, .client = client, .port = port,
			   .p = {.pid = -1, .in = -1, .out = -1, .err = -1}};
	char pstr[8];
	snprintf(pstr, sizeof(pstr), "%d", port);
	char *cmd[] = {f->relay, "connect", pstr};
	struct strvec argv = {0};
	engine_exec_argv(&argv, f->a->engine, f->ws.id, NULL, 0, true, cmd, ARRAY_LEN(cmd));
	struct err e = {0};
	int rc = proc_spawn(&c->p, strvec_argv(&argv), f->a->envp.v, IO_PIPE, IO_PIPE, IO_PIPE, &e);
	strvec_clear(&argv);
	f->nconn++;
	if (rc < 0) {
		say(f, c, e.msg);
		c->p.pid = -1;
		conn_end(f, c, true);
		return;
	}
	set_nonblock(c->client);
	set_nonblock(c->p.in);
	set_nonblock(c->p.out);
	set_nonblock(c->p.err);
	c->deadline = now_ms() + f->engine_ms;
}

/* What a relay that ended before it was connected said. */
static void say_refused(struct fwd *f, struct conn *c)
{
	char what[FWD_ERR_MAX + 80];
	size_t n = c->errlen;
	while (n && (c->err[n - 1] == '\n' || c->err[n - 1] == '\r'))
		n--;
	struct sbuf vis = {0};
	const unsigned char *p = (const unsigned char *)c->err;
	for (size_t i = 0, k; i < n; i += k) {
		if ((k = utf8_control(p + i, n - i))) {
			sbuf_addc(&vis, '?');
		} else {
			k = utf8_len(p + i, n - i);
			k = k ? k : 1;
			sbuf_add(&vis, p + i, k);
		}
	}
	if (n)
		snprintf(what, sizeof(what), "cannot connect: %s", vis.buf);
	else
		snprintf(what, sizeof(what), "the workspace's relay ended before it connected");
	sbuf_free(&vis);
	say(f, c, what);
}

/* Reads into a way's buffer when it is empty: the bytes read, 0 at the
 * end, -1 on an error (EAGAIN: -2). */
static ssize_t way_read(struct way *w, int fd)
{
	if (!w->buf)
		w->buf = xmalloc(FWD_BUF);
	ssize_t r = read(fd, w->buf, FWD_BUF);
	if (r < 0)
		return errno == EAGAIN || errno == EINTR ? -2 : -1;
	w->len = (size_t)r;
	w->off = 0;
	return r;
}

/* Writes what a way holds: 0, or -1 when the reader is gone. */
static int way_write(struct way *w, int fd)
{
	ssize_t n = write(fd, w->buf + w->off, w->len);
	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -1;
	w->off += (size_t)n;
	w->len -= (size_t)n;
	return 0;
}

/* The relay's stderr, while it may say why it did not connect: up to a
 * cap, and then no more reads, so that a relay that floods it stalls
 * itself, not us. */
static void read_err(struct conn *c, short rev)
{
	if (c->p.err < 0 || !(rev & (POLLIN | POLLHUP | POLLERR)))
		return;
	ssize_t r = read(c->p.err, c->err + c->errlen, sizeof(c->err) - c->errlen);
	if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR))
		close_fd(&c->p.err);
	else if (r > 0)
		c->errlen += (size_t)r;
}

static bool err_wanted(const struct conn *c)
{
	return c->p.err >= 0 && !c->ready && c->errlen < sizeof(c->err);
}

/* The client to the relay. Returns false when the connection ended. */
static bool step_up(struct fwd *f, struct conn *c, short rc, short rin)
{
	const short rd = POLLIN | POLLHUP | POLLERR;
	if (c->client >= 0 && !c->up.eof && c->up.len == 0 && (rc & rd)) {
		ssize_t r = way_read(&c->up, c->client);
		if (r == 0) {
			c->up.eof = true;
			c->idle_end = now_ms() + FWD_HALF_IDLE_MS;
		} else if (r == -1) {
			conn_end(f, c, false);
			return false;
		}
	}
	/* A relay that reads no more (its server ended) takes nothing
	 * more: what the server sent is still passed on. */
	if (c->up.len && (rin & (POLLOUT | POLLERR | POLLHUP)) && way_write(&c->up, c->p.in) < 0) {
		c->up.len = 0;
		c->up.eof = true;
	}
	if (c->up.eof && c->up.len == 0)
		close_fd(&c->p.in);
	return true;
}

/* The relay to the client: its first byte says it connected. Returns
 * false when the connection ended. */
static bool step_down(struct fwd *f, struct conn *c, short rc, short rout)
{
	const short rd = POLLIN | POLLHUP | POLLERR;
	if (c->p.out >= 0 && !c->down.eof && c->down.len == 0 && (rout & rd)) {
		ssize_t r = way_read(&c->down, c->p.out);
		if (r == 0) {
			c->down.eof = true;
			if (!c->ready) {
				say_refused(f, c);
				conn_end(f, c, true);
				return false;
			}
		} else if (r == -1) {
			conn_end(f, c, false);
			return false;
		} else if (r > 0 && !c->ready) {
			if (c->down.buf[0] != RELAY_READY) {
				say(f, c, "the workspace's relay answered with no relay's word");
				conn_end(f, c, false);
				return false;
			}
			c->ready = true;
			c->down.off = 1;
			c->down.len--;
		}
		if (r > 0 && c->up.eof)
			c->idle_end = now_ms() + FWD_HALF_IDLE_MS;
	}
	if (c->down.len && (rc & (POLLOUT | POLLERR | POLLHUP)) && way_write(&c->down, c->client) < 0) {
		conn_end(f, c, false);
		return false;
	}
	/* The server's end, all of it written: the connection's. */
	if (c->down.eof && c->down.len == 0) {
		conn_end(f, c, true);
		return false;
	}
	return true;
}

/* One connection after poll: rev holds the revents of its client, the
 * relay's stdin, stdout and stderr. */
static void conn_step(struct fwd *f, struct conn *c, const short rev[FWD_CONN_FDS])
{
	read_err(c, rev[3]);
	if (!step_up(f, c, rev[0], rev[1]) || !step_down(f, c, rev[0], rev[2]))
		return;
	long long now = now_ms();
	if (!c->ready && now > c->deadline) {
		say(f, c, "no answer from the workspace's relay in time (engine_timeout)");
		conn_end(f, c, false);
	} else if (c->up.eof && c->down.len == 0 && now > c->idle_end) {
		conn_end(f, c, false);
	}
}

/* Reaps the ended ones' engine clients; KILL for one past its time. */
static void reap(struct fwd *f, bool all_now)
{
	for (size_t i = 0; i < FWD_MAX_CONNS; i++) {
		struct conn *c = &f->conn[i];
		if (!c->used || !c->ended)
			continue;
		if (c->p.pid > 0) {
			int st;
			pid_t w = waitpid(c->p.pid, &st, WNOHANG);
			if (w == 0 && (all_now || now_ms() > c->reap_end)) {
				kill(-c->p.pid, SIGKILL);
				while (waitpid(c->p.pid, &st, 0) < 0 && errno == EINTR)
					;
				w = c->p.pid;
			}
			if (w == 0)
				continue;
		}
		c->used = false;
		f->nconn--;
	}
}

/* ---- the loop ---- */

/* The descriptors to poll, the live ones only (poll refuses more than
 * the open files allowed); who[k] says whose p[k] is: -1 the signal fd,
 * -2-i listener i, else FWD_CONN_FDS * conn + role. */
static size_t fill_poll(struct fwd *f, struct pollfd *p, int *who)
{
	size_t n = 0;
	p[n] = (struct pollfd){.fd = spawn_signal_fd(), .events = POLLIN};
	who[n++] = -1;
	for (size_t i = 0; i < f->nspec && f->nconn < f->max_conns; i++) {
		p[n] = (struct pollfd){.fd = f->spec[i].fd, .events = POLLIN};
		who[n++] = -2 - (int)i;
	}
	for (size_t i = 0; i < FWD_MAX_CONNS; i++) {
		struct conn *c = &f->conn[i];
		if (!c->used || c->ended)
			continue;
		struct pollfd want[FWD_CONN_FDS] = {
			{c->client, (short)((!c->up.eof && c->up.len == 0 ? POLLIN : 0) | (c->down.len ? POLLOUT : 0)), 0},
			{c->up.len ? c->p.in : -1, POLLOUT, 0},
			{!c->down.eof && c->down.len == 0 ? c->p.out : -1, POLLIN, 0},
			{err_wanted(c) ? c->p.err : -1, POLLIN, 0},
		};
		for (int r = 0; r < FWD_CONN_FDS; r++) {
			if (want[r].fd < 0 || !want[r].events)
				continue;
			p[n] = want[r];
			who[n++] = (int)i * FWD_CONN_FDS + r;
		}
	}
	return n;
}

/* Until the next deadline: a relay's word, a half closed client's idle
 * time, an ended one's reaping; -1: none. */
static int next_timeout(const struct fwd *f)
{
	long long t = -1, now = now_ms();
	for (size_t i = 0; i < FWD_MAX_CONNS; i++) {
		const struct conn *c = &f->conn[i];
		long long until;
		if (!c->used)
			continue;
		if (c->ended)
			until = 50;
		else if (!c->ready)
			until = c->deadline - now;
		else if (c->up.eof)
			until = c->idle_end - now;
		else
			continue;
		if (until < 0)
			until = 0;
		if (t < 0 || until < t)
			t = until;
	}
	return t < 0 ? -1 : (int)(t + 1);
}

static void accept_one(struct fwd *f, struct fwd_spec *sp)
{
	int fd = accept(sp->fd, NULL, NULL);
	if (fd < 0)
		return;
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	if (spawn_verbose)
		fprintf(stderr, "sandbox: forward: a connection to port %d\n", sp->host_port);
	conn_start(f, fd, sp->port);
}

/* How many connections the open files allowed hold (raised to the hard
 * limit first, as far as FWD_MAX_CONNS needs). */
static size_t conns_allowed(void)
{
	struct rlimit rl;
	rlim_t want = 64 + FWD_CONN_FDS * FWD_MAX_CONNS;
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return FWD_MAX_CONNS;
	if (rl.rlim_cur < want) {
		rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > want ? want : rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
		getrlimit(RLIMIT_NOFILE, &rl);
	}
	if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= want)
		return FWD_MAX_CONNS;
	/* Some for the listeners, stdio, the spawns' own pipes. */
	return rl.rlim_cur > 64 + FWD_CONN_FDS ? (size_t)((rl.rlim_cur - 64) / FWD_CONN_FDS) : 1;
}

static int run_loop(struct fwd *f, struct err *e)
{
	size_t cap = 1 + FWD_MAX_SPECS + FWD_CONN_FDS * FWD_MAX_CONNS;
	struct pollfd *p = xmalloc(cap * sizeof(*p));
	int *who = xmalloc(cap * sizeof(*who));
	int rc = 0;
	while (!spawn_stopping()) {
		size_t n = fill_poll(f, p, who);
		if (poll(p, n, next_timeout(f)) < 0 && errno != EINTR) {
			rc = err_set(e, ERR_FAILED, "cannot wait for the connections: %s", strerror(errno));
			break;
		}
		if (spawn_stopping())
			break;
		spawn_signal_drain();
		static short rev[FWD_MAX_CONNS][FWD_CONN_FDS];
		memset(rev, 0, sizeof(rev));
		for (size_t k = 1; k < n; k++)
			if (who[k] >= 0)
				rev[who[k] / FWD_CONN_FDS][who[k] % FWD_CONN_FDS] = p[k].revents;
		for (size_t i = 0; i < FWD_MAX_CONNS; i++)
			if (f->conn[i].used && !f->conn[i].ended)
				conn_step(f, &f->conn[i], rev[i]);
		for (size_t k = 1; k < n; k++)
			if (who[k] <= -2 && (p[k].revents & POLLIN) && f->nconn < f->max_conns)
				accept_one(f, &f->spec[-2 - who[k]]);
		reap(f, false);
	}
	free(p);
	free(who);
	return rc;
}

static void say_listening(const struct fwd *f, const char *addr)
{
	bool v6 = strchr(addr, ':') != NULL;
	if (f->a->json) {
		struct json j = {0};
		json_obj_open(&j);
		json_key(&j, "workspace");
		json_str(&j, f->ws.name);
		json_key(&j, "forwards");
		json_arr_open(&j);
		for (size_t i = 0; i < f->nspec; i++) {
			json_obj_open(&j);
			json_key(&j, "address");
			json_str(&j, addr);
			json_key(&j, "host_port");
			json_int(&j, f->spec[i].host_port);
			json_key(&j, "port");
			json_int(&j, f->spec[i].port);
			json_obj_close(&j);
		}
		json_arr_close(&j);
		json_obj_close(&j);
		json_print(&j, stdout);
		sbuf_free(&j.out);
	} else {
		for (size_t i = 0; i < f->nspec; i++)
			printf("forwarding %s%s%s:%d to %s's 127.0.0.1:%d\n", v6 ? "[" : "", addr, v6 ? "]" : "",
			       f->spec[i].host_port, f->ws.name, f->spec[i].port);
	}
	fflush(stdout);
}

int cmd_forward(struct app *a, struct err *e)
{
	struct fwd *f = xmalloc(sizeof(*f));
	memset(f, 0, sizeof(*f));
	f->a = a;
	f->engine_ms = (long long)(a->cfg.engine_timeout * 1000);
	f->max_conns = conns_allowed();
	const char *addr = a->o.forward.address ? a->o.forward.address : "127.0.0.1";
	int rc = parse_args(f, e);
	if (rc == 0)
		rc = listen_all(f, addr, e);
	if (rc == 0)
		rc = ws_select(a, &f->ws, e);
	if (rc == 0)
		rc = relay_install(a, &f->ws, f->relay, sizeof(f->relay), e);
	if (rc == 0) {
		struct in_addr lo4;
		if (inet_pton(AF_INET, addr, &lo4) == 1 ? (ntohl(lo4.s_addr) >> 24) != 127 : strcmp(addr, "::1") != 0)
			fprintf(stderr, "sandbox: forward: listening on %s: other machines may reach it\n", addr);
		say_listening(f, addr);
		rc = run_loop(f, e);
		if (rc == 0)
			rc = spawn_interrupted_status();
	}
	for (size_t i = 0; i < FWD_MAX_CONNS; i++)
		if (f->conn[i].used && !f->conn[i].ended)
			conn_end(f, &f->conn[i], false);
	/* Their clients get their time to end, then KILL. */
	long long until = now_ms() + PROC_TERM_MS;
	while (f->nconn && now_ms() < until) {
		reap(f, false);
		if (f->nconn)
			poll(NULL, 0, 20);
	}
	reap(f, true);
	for (size_t i = 0; i < f->nspec; i++)
		close_fd(&f->spec[i].fd);
	ws_free(&f->ws);
	free(f);
	return rc;
}
