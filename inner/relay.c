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

int main(int argc, char **argv)
{
	int port;
	if (argc != 3 || strcmp(argv[1], "connect") != 0 || (port = parse_port(argv[2])) < 0) {
		fputs("usage: sandbox-relay connect PORT\n", stderr);
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
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
