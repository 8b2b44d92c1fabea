/* relay.c: sandbox-relay, the one program of ours that runs inside a
 * workspace (inner/README). `sandbox-relay connect PORT` connects to the
 * workspace's own 127.0.0.1:PORT and relays between it and its stdin and
 * stdout, the streams of the engine exec that `sandbox forward` started
 * for one connection on the user's side. Once connected it writes one
 * byte, RELAY_READY, before any byte of the connection: the host waits
 * for it (within the engine's deadline) before it relays a byte. Each
 * way holds one buffer: it reads again only when what it read is
 * written, so a side that does not read stops the other side's flow
 * rather than filling memory. An end of stdin is a half close of the
 * connection (shutdown SHUT_WR) once all before it is written: the
 * server may still answer; a server that reads no more takes nothing
 * more, but what it sends still comes. The server's end is the
 * connection's: once
 * what it sent is written, the relay exits, as a forwarder does (the
 * host then closes its client). Exit 0 then, 1 on a failed connect (one
 * line on stderr), 2 on usage, 3 on a broken way.
 *
 * `sandbox-relay listen PORT` is the workspace's end of network = allow
 * (man sandbox, NETWORK BY ALLOW-LIST): it listens on the workspace's
 * 127.0.0.1:PORT and carries every connection made there, multiplexed
 * in frames over its stdin and stdout, to the proxy on the user's side,
 * which decides. It says 'L' once listening (or 'E' and why). A frame is
 * a type byte, a connection's id (4 bytes) and a length (2 bytes, big
 * endian), then that many bytes: 'O' a new connection, 'D' its bytes
 * (at most MUX_DATA_MAX), 'A' a count of them delivered (4 bytes), 'F'
 * its sender's end of sending, 'X' its end. The host sends a connection
 * at most MUX_WINDOW bytes the relay has not acknowledged, the relay at
 * most MUX_UP_WINDOW (mux.h), so a connection whose reader is slow stops
 * only itself, and what each side holds is bounded by its window a
 * connection, for at most MUX_MAX_CONNS connections. A frame against these
 * rules ends the relay (exit 3); the end of stdin ends it (exit 0).
 * Static, libc only: the image needs nothing. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "mux.h"

#define RELAY_READY 'R'
#define RELAY_BUF 65536

struct way {
	int in, out;      /* -1 once closed */
	char buf[RELAY_BUF];
	size_t len, off;
	int eof;          /* in ended: close or half close out once drained */
};

static int parse_port(const char *s)
{
	long v = 0;
	if (!*s || strlen(s) > 5)
		return -1;
	for (const char *p = s; *p; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		v = v * 10 + (*p - '0');
	}
	return v >= 1 && v <= 65535 ? (int)v : -1;
}

static int connect_to(int family, const struct sockaddr *sa, socklen_t len)
{
	int s = socket(family, SOCK_STREAM, 0);
	if (s < 0)
		return -1;
	while (connect(s, sa, len) < 0) {
		if (errno == EINTR)
			continue;
		int saved = errno;
		close(s);
		errno = saved;
		return -1;
	}
	return s;
}

/* 127.0.0.1:PORT, else [::1]:PORT (a server on "localhost" may listen
 * there alone); the first one's error when neither takes it. */
static int connect_port(int port)
{
	struct sockaddr_in s4 = {.sin_family = AF_INET, .sin_port = htons((unsigned short)port)};
	s4.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	int s = connect_to(AF_INET, (struct sockaddr *)&s4, sizeof(s4));
	if (s >= 0 || errno != ECONNREFUSED)
		return s;
	struct sockaddr_in6 s6 = {.sin6_family = AF_INET6, .sin6_port = htons((unsigned short)port)};
	s6.sin6_addr = in6addr_loopback;
	s = connect_to(AF_INET6, (struct sockaddr *)&s6, sizeof(s6));
	if (s < 0)
		errno = ECONNREFUSED;
	return s;
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}


/* The end of a way's input, once all it read is written: the socket is
 * half closed, stdout closed. */
static void finish(struct way *w, int sock)
{
	if (w->out == sock)
		shutdown(sock, SHUT_WR);
	else
		close(w->out);
	w->out = -1;
}

/* One step of a way after poll: read when empty, write when not. */
static int step(struct way *w, short rev_in, short rev_out, int sock)
{
	if (w->len == 0 && !w->eof && (rev_in & (POLLIN | POLLHUP | POLLERR))) {
		ssize_t r = read(w->in, w->buf, sizeof(w->buf));
		if (r < 0 && (errno == EINTR || errno == EAGAIN))
			return 0;
		if (r <= 0) {
			w->eof = 1;
		} else {
			w->len = (size_t)r;
			w->off = 0;
		}
	}
	if ((rev_in | rev_out) & POLLNVAL)
		return -1;
	if (w->len && (rev_out & (POLLOUT | POLLERR | POLLHUP))) {
		ssize_t n = write(w->out, w->buf + w->off, w->len);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			return 0;
		/* The server reads no more: what it sends still comes. */
		if (n <= 0 && w->out == sock) {
			w->len = 0;
			w->eof = 1;
			w->out = -1;
			return 0;
		}
		if (n <= 0)
			return -1;
		w->off += (size_t)n;
		w->len -= (size_t)n;
	}
	if (w->eof && w->len == 0 && w->out >= 0)
		finish(w, sock);
	return 0;
}

static int relay_connect(int port)
{
	int sock = connect_port(port);
	if (sock < 0) {
		fprintf(stderr, "127.0.0.1:%d: %s\n", port, strerror(errno));
		return 1;
	}
	char ready = RELAY_READY;
	if (write_all(1, &ready, 1) < 0)
		return 3;
	static struct way up, down;   /* up: stdin to the socket; down: back */
	up.in = 0, up.out = sock;
	down.in = sock, down.out = 1;
	int nb = O_NONBLOCK;
	fcntl(0, F_SETFL, fcntl(0, F_GETFL) | nb);
	fcntl(1, F_SETFL, fcntl(1, F_GETFL) | nb);
	fcntl(sock, F_SETFL, fcntl(sock, F_GETFL) | nb);
	while (down.out >= 0) {
		struct pollfd p[4] = {{.fd = -1}, {.fd = -1}, {.fd = -1}, {.fd = -1}};
		if (up.out >= 0 && up.len == 0 && !up.eof)
			p[0] = (struct pollfd){.fd = up.in, .events = POLLIN};
		if (up.out >= 0 && up.len)
			p[1] = (struct pollfd){.fd = up.out, .events = POLLOUT};
		if (down.out >= 0 && down.len == 0 && !down.eof)
			p[2] = (struct pollfd){.fd = down.in, .events = POLLIN};
		if (down.out >= 0 && down.len)
			p[3] = (struct pollfd){.fd = down.out, .events = POLLOUT};
		if (poll(p, 4, -1) < 0) {
			if (errno == EINTR)
				continue;
			return 3;
		}
		if (up.out >= 0 && step(&up, p[0].revents, p[1].revents, sock) < 0)
			return 3;
		if (down.out >= 0 && step(&down, p[2].revents, p[3].revents, sock) < 0)
			return 3;
	}
	return 0;
}

/* ---- listen: many connections over one stream ---- */

/* Frames waiting for stdout past this: no socket is read. */
#define MUX_OUT_SOFT (512 * 1024)

struct mconn {
	int fd;              /* -1: a free slot */
	unsigned id;
	char *in;            /* from the host, for the socket: MUX_WINDOW */
	size_t inlen, inoff;
	size_t credit;       /* what the host may still be sent */
	size_t unacked;      /* written to the socket, not yet acknowledged */
	int host_fin, fd_eof, shut;
};

static struct mconn mc[MUX_MAX_CONNS];
static char *mout;
static size_t moutlen, moutcap;
static unsigned next_id = 1;

static void put_frame(char type, unsigned id, const void *p, size_t n)
{
	if (moutlen + MUX_HDR + n > moutcap) {
		size_t cap = moutcap ? moutcap : 65536;
		while (cap < moutlen + MUX_HDR + n)
			cap *= 2;
		char *m = realloc(mout, cap);
		if (!m)
			exit(3);
		mout = m;
		moutcap = cap;
	}
	unsigned char *h = (unsigned char *)mout + moutlen;
	h[0] = (unsigned char)type;
	h[1] = (unsigned char)(id >> 24), h[2] = (unsigned char)(id >> 16);
	h[3] = (unsigned char)(id >> 8), h[4] = (unsigned char)id;
	h[5] = (unsigned char)(n >> 8), h[6] = (unsigned char)n;
	if (n)
		memcpy(h + MUX_HDR, p, n);
	moutlen += MUX_HDR + n;
}

static void put_ack(struct mconn *c)
{
	unsigned char b[4] = {(unsigned char)(c->unacked >> 24), (unsigned char)(c->unacked >> 16),
			      (unsigned char)(c->unacked >> 8), (unsigned char)c->unacked};
	put_frame('A', c->id, b, 4);
	c->unacked = 0;
}

/* Out of descriptors: no accept until a connection ends (it would
 * spin). */
static int accept_stalled;

static void conn_close(struct mconn *c, int tell)
{
	accept_stalled = 0;
	if (tell)
		put_frame('X', c->id, NULL, 0);
	close(c->fd);
	free(c->in);
	*c = (struct mconn){.fd = -1};
}

static struct mconn *conn_of(unsigned id)
{
	for (int i = 0; i < MUX_MAX_CONNS; i++)
		if (mc[i].fd >= 0 && mc[i].id == id)
			return &mc[i];
	return NULL;
}

/* One frame from the host; -1 for one against the rules. */
static int frame_in(char type, unsigned id, const unsigned char *p, size_t n)
{
	struct mconn *c = conn_of(id);
	if (type == 'D') {
		if (n == 0 || n > MUX_DATA_MAX)
			return -1;
		if (!c)
			return 0;    /* it ended here meanwhile */
		if (c->host_fin || c->inlen + n > MUX_WINDOW)
			return -1;
		/* Moved to the front only when the end has no room left. */
		if (c->inoff + c->inlen + n > MUX_WINDOW) {
			memmove(c->in, c->in + c->inoff, c->inlen);
			c->inoff = 0;
		}
		memcpy(c->in + c->inoff + c->inlen, p, n);
		c->inlen += n;
	} else if (type == 'A') {
		if (n != 4)
			return -1;
		size_t k = (size_t)p[0] << 24 | (size_t)p[1] << 16 | (size_t)p[2] << 8 | p[3];
		if (c && (c->credit += k) > MUX_UP_WINDOW)
			return -1;
	} else if (type == 'F') {
		if (c)
			c->host_fin = 1;
	} else if (type == 'X') {
		if (c)
			conn_close(c, 0);
	} else {
		return -1;
	}
	return 0;
}

/* Frames read from stdin, whole ones taken: -1 against the rules. */
static int frames_in(unsigned char *b, size_t *len)
{
	size_t off = 0;
	while (*len - off >= MUX_HDR) {
		unsigned char *h = b + off;
		size_t n = (size_t)h[5] << 8 | h[6];
		if (n > MUX_DATA_MAX)
			return -1;
		if (*len - off < MUX_HDR + n)
			break;
		unsigned id = (unsigned)h[1] << 24 | (unsigned)h[2] << 16 | (unsigned)h[3] << 8 | h[4];
		if (frame_in((char)h[0], id, h + MUX_HDR, n) < 0)
			return -1;
		off += MUX_HDR + n;
	}
	memmove(b, b + off, *len - off);
	*len -= off;
	return 0;
}


/* Every connection waiting, while a slot is free: 0 when none is left
 * to take. */
static int conn_accept(int lfd)
{
	struct mconn *c = NULL;
	for (int i = 0; i < MUX_MAX_CONNS && !c; i++)
		if (mc[i].fd < 0)
			c = &mc[i];
	if (!c)
		return 0;
	int fd = accept(lfd, NULL, NULL);
	if (fd < 0) {
		accept_stalled = errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM;
		return 0;
	}
	char *in = malloc(MUX_WINDOW);
	if (!in) {
		close(fd);
		return 0;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	*c = (struct mconn){.fd = fd, .id = next_id++, .in = in, .credit = MUX_UP_WINDOW};
	put_frame('O', c->id, NULL, 0);
	return 1;
}

/* One connection after poll. */
static void conn_step(struct mconn *c, short rev)
{
	if (rev & POLLNVAL) {
		conn_close(c, 1);
		return;
	}
	if (!c->fd_eof && c->credit && moutlen < MUX_OUT_SOFT && (rev & (POLLIN | POLLHUP | POLLERR))) {
		static char buf[4 * MUX_DATA_MAX];
		size_t room = MUX_OUT_SOFT - moutlen;
		size_t want = c->credit < sizeof(buf) ? c->credit : sizeof(buf);
		ssize_t r = read(c->fd, buf, want < room ? want : room);
		if (r > 0) {
			for (size_t off = 0; off < (size_t)r; off += MUX_DATA_MAX)
				put_frame('D', c->id, buf + off,
					  (size_t)r - off < MUX_DATA_MAX ? (size_t)r - off : MUX_DATA_MAX);
			c->credit -= (size_t)r;
		} else if (r == 0) {
			c->fd_eof = 1;
			put_frame('F', c->id, NULL, 0);
		} else if (errno != EAGAIN && errno != EINTR) {
			conn_close(c, 1);
			return;
		}
	}
	if (c->inlen && (rev & (POLLOUT | POLLERR | POLLHUP))) {
		ssize_t w = write(c->fd, c->in + c->inoff, c->inlen);
		if (w < 0 && errno != EAGAIN && errno != EINTR) {
			conn_close(c, 1);
			return;
		}
		if (w > 0) {
			c->inoff += (size_t)w;
			c->inlen -= (size_t)w;
			c->unacked += (size_t)w;
			if (c->inlen == 0)
				c->inoff = 0;
		}
		if (c->unacked >= MUX_WINDOW / 4 || (c->inlen == 0 && c->unacked))
			put_ack(c);
	}
	if (c->host_fin && c->inlen == 0 && !c->shut) {
		shutdown(c->fd, SHUT_WR);
		c->shut = 1;
	}
	if (c->shut && c->fd_eof)
		conn_close(c, 0);
}

/* The port in use: the listener of a proxy that was killed may still be
 * ending (its stdin's end reaches it through the engine): tried again
 * for LISTEN_WAIT_MS. */
#define LISTEN_WAIT_MS 5000

static int listen_on(int port)
{
	struct sockaddr_in s4 = {.sin_family = AF_INET, .sin_port = htons((unsigned short)port)};
	s4.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	int one = 1, s = socket(AF_INET, SOCK_STREAM, 0);
	if (s < 0 || setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0)
		return -1;
	int b, waited = 0;
	while ((b = bind(s, (struct sockaddr *)&s4, sizeof(s4))) < 0 && errno == EADDRINUSE &&
	       waited < LISTEN_WAIT_MS) {
		poll(NULL, 0, 100);
		waited += 100;
	}
	if (b < 0 || listen(s, MUX_MAX_CONNS) < 0)
		return -1;
	fcntl(s, F_SETFL, fcntl(s, F_GETFL) | O_NONBLOCK);
	return s;
}

static int relay_listen(int port)
{
	int lfd = listen_on(port);
	if (lfd < 0) {
		char why[200];
		int n = snprintf(why, sizeof(why), "127.0.0.1:%d: %s", port, strerror(errno));
		put_frame('E', 0, why, (size_t)n);
		write_all(1, mout, moutlen);
		return 1;
	}
	for (int i = 0; i < MUX_MAX_CONNS; i++)
		mc[i].fd = -1;
	put_frame('L', 0, NULL, 0);
	fcntl(0, F_SETFL, fcntl(0, F_GETFL) | O_NONBLOCK);
	fcntl(1, F_SETFL, fcntl(1, F_GETFL) | O_NONBLOCK);
	static unsigned char rb[65536 + MUX_HDR + MUX_DATA_MAX];
	size_t rlen = 0, moff = 0;
	for (;;) {
		struct pollfd p[3 + MUX_MAX_CONNS];
		int nconn = 0;
		for (int i = 0; i < MUX_MAX_CONNS; i++)
			nconn += mc[i].fd >= 0;
		p[0] = (struct pollfd){.fd = 0, .events = POLLIN};
		p[1] = (struct pollfd){.fd = moutlen > moff ? 1 : -1, .events = POLLOUT};
		p[2] = (struct pollfd){.fd = nconn < MUX_MAX_CONNS && !accept_stalled ? lfd : -1, .events = POLLIN};
		for (int i = 0; i < MUX_MAX_CONNS; i++) {
			struct mconn *c = &mc[i];
			short ev = 0;
			if (c->fd >= 0 && !c->fd_eof && c->credit && moutlen < MUX_OUT_SOFT)
				ev |= POLLIN;
			if (c->fd >= 0 && c->inlen)
				ev |= POLLOUT;
			p[3 + i] = (struct pollfd){.fd = ev ? c->fd : -1, .events = ev};
		}
		/* Out of descriptors: the listener is tried again in a second. */
		int ready = poll(p, 3 + MUX_MAX_CONNS, accept_stalled ? 1000 : -1);
		if (ready < 0) {
			if (errno == EINTR)
				continue;
			return 3;
		}
		if (ready == 0)
			accept_stalled = 0;
		if (p[0].revents) {
			ssize_t r = read(0, rb + rlen, sizeof(rb) - rlen);
			if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR))
				return 0;
			if (r > 0) {
				rlen += (size_t)r;
				if (frames_in(rb, &rlen) < 0)
					return 3;
			}
			/* An end from the host after the last bytes were written
			 * wakes no poll of the socket: pass it on now. */
			for (int i = 0; i < MUX_MAX_CONNS; i++) {
				struct mconn *c = &mc[i];
				if (c->fd >= 0 && ((c->host_fin && c->inlen == 0 && !c->shut) || (c->shut && c->fd_eof)))
					conn_step(c, 0);
			}
		}
		/* Each turn starts at another slot: the room under
		 * MUX_OUT_SOFT goes round. */
		static unsigned turn;
		unsigned first = turn++ % MUX_MAX_CONNS;
		for (int k = 0; k < MUX_MAX_CONNS; k++) {
			int i = (int)((first + (unsigned)k) % MUX_MAX_CONNS);
			if (mc[i].fd >= 0 && p[3 + i].revents)
				conn_step(&mc[i], p[3 + i].revents);
		}
		if (p[2].revents & POLLIN)
			while (conn_accept(lfd))
				;
		if (moutlen > moff) {
			ssize_t w = write(1, mout + moff, moutlen - moff);
			if (w < 0 && errno != EAGAIN && errno != EINTR)
				return 0;
			if (w > 0)
				moff += (size_t)w;
			if (moff == moutlen)
				moutlen = moff = 0;
			else if (moff > moutcap / 2) {
				memmove(mout, mout + moff, moutlen - moff);
				moutlen -= moff;
				moff = 0;
			}
		}
	}
}

int main(int argc, char **argv)
{
	int port;
	if (argc != 3 || (strcmp(argv[1], "connect") != 0 && strcmp(argv[1], "listen") != 0) ||
	    (port = parse_port(argv[2])) < 0) {
		fputs("usage: sandbox-relay connect PORT | listen PORT\n", stderr);
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	return argv[1][0] == 'c' ? relay_connect(port) : relay_listen(port);
}
