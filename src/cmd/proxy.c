/* proxy.c: see proxy.h. The frames are sandbox-relay's (inner/relay.c,
 * relay_bin.h): a type, a connection's id, a length, the bytes. */
#define _GNU_SOURCE /* strcasecmp, getaddrinfo's flags */
#include "proxy.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "egress.h"
#include "engine.h"
#include "history.h"
#include "json.h"
#include "netproxy.h"
#include "relay.h"
#include "relay_bin.h"
#include "spawn.h"

/* The relay's slots, and some: one it let go may still be ending here
 * (an upstream still taking what it was sent). */
#define PROXY_MAX_CONNS (MUX_MAX_CONNS + MUX_MAX_CONNS / 8)
/* Frames past this wait for the relay: no upstream is read meanwhile,
 * and no read takes more than fits under it; past OUT_HARD no frame of
 * the relay's is taken either (a relay that sends and never reads what
 * it is sent grows nothing: each frame taken makes at most a refusal's
 * worth of answer). */
#define OUT_SOFT (1024 * 1024)
#define OUT_HARD (OUT_SOFT + 256 * 1024)
/* Frames waiting that long for a relay that takes none: it is gone (its
 * exec client, which cannot flush, would never end). */
#define STALL_MS 30000
/* A connection's bytes for its upstream: a window, and our own head. */
#define UP_CAP (MUX_UP_WINDOW + EGRESS_HEAD_MAX + 256)
#define MAX_ADDRS 8
/* A refused connection's client gets this long to read why. */
#define CLOSE_MS 10000
#define ERR_CAP 400

enum pstate { PS_HEAD, PS_CONNECTING, PS_RELAY, PS_CLOSING };

struct pconn {
	bool used;
	unsigned id;
	enum pstate st;
	struct sbuf head;          /* PS_HEAD: what came so far */
	size_t scan;               /* where to look for its end next */
	char *up;                  /* for the upstream: UP_CAP */
	size_t uplen, upoff, up_own; /* up_own: our head's bytes, first */
	size_t credit;             /* what the workspace may still be sent */
	size_t unacked;            /* of its bytes, taken but not acknowledged */
	size_t inflight;           /* sent us and not acknowledged: its window */
	int fd;                    /* the upstream, or -1 */
	bool ws_fin, up_eof, up_shut;
	bool tls_check;            /* a tunnel: its first bytes not yet seen */
	size_t tls_seen;           /* how many of them were looked at */
	struct sockaddr_storage addr[MAX_ADDRS];
	socklen_t alen[MAX_ADDRS];
	int naddr, next;
	long long t0, deadline, last;
	/* The record. */
	char method[16];
	char host[256];
	int port;
	bool allowed;
	char why[300];
	char where[64];            /* the address connected to */
	unsigned long long sent, received;
};

struct resolve_entry {
	char name[256];
	int family;
	unsigned char addr[16];
};

struct proxy {
	const struct proxy_conf *pc;
	struct egress_pat pat[EGRESS_MAX_PATTERNS];
	size_t npat;
	struct resolve_entry res[PROXY_MAX_RESOLVE];
	size_t nres;
	struct proc relay;
	struct sbuf out;           /* frames for the relay */
	size_t outoff;
	unsigned char *in;         /* frames from it */
	size_t inlen;
	struct pconn conn[PROXY_MAX_CONNS];
	size_t hint;               /* conn_of's first look */
	size_t turn;               /* the loop's turns: whose upstream goes first */
	bool broken;               /* the relay broke the rules: the end */
	char errbuf[ERR_CAP];
	size_t errlen;
	/* Refusals are recorded one by one up to LOG_BURST a LOG_WINDOW_MS,
	 * then counted: a workspace that refuses itself in a loop cannot
	 * push the allowed ones out of the log. */
	long long window_start;
	long refused_in_window, folded;
	long long progress;        /* when the relay last took a frame */
};

#define LOG_BURST 20
#define LOG_WINDOW_MS 10000

#define IN_CAP (65536 + MUX_HDR + MUX_DATA_MAX)

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static void set_nonblock(int fd)
{
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

/* ---- frames ---- */

static void put_frame(struct proxy *px, char type, unsigned id, const void *p, size_t n)
{
	unsigned char h[MUX_HDR] = {(unsigned char)type, (unsigned char)(id >> 24),
				    (unsigned char)(id >> 16), (unsigned char)(id >> 8),
				    (unsigned char)id, (unsigned char)(n >> 8), (unsigned char)n};
	sbuf_add(&px->out, h, sizeof(h));
	if (n)
		sbuf_add(&px->out, p, n);
}

/* Data for the workspace, within its credit (the caller checked). */
static void put_data(struct proxy *px, struct pconn *c, const char *p, size_t n)
{
	while (n) {
		size_t k = n < MUX_DATA_MAX ? n : MUX_DATA_MAX;
		put_frame(px, 'D', c->id, p, k);
		c->credit -= k;
		c->received += k;
		p += k;
		n -= k;
	}
}

/* An acknowledgement of k bytes of connection id. */
static void put_count(struct proxy *px, unsigned id, size_t k)
{
	unsigned char b[4] = {(unsigned char)(k >> 24), (unsigned char)(k >> 16),
			      (unsigned char)(k >> 8), (unsigned char)k};
	put_frame(px, 'A', id, b, 4);
}

static void put_ack(struct proxy *px, struct pconn *c)
{
	put_count(px, c->id, c->unacked);
	c->inflight -= c->unacked < c->inflight ? c->unacked : c->inflight;
	c->unacked = 0;
}

/* ---- the record ---- */

static void put_record(struct proxy *px, const struct pconn *c, long folded);

/* A connection's record, or a count of those folded (see struct proxy);
 * none for one that ended before it sent a byte: it asked nothing. */
static void log_conn(struct proxy *px, const struct pconn *c)
{
	long long now = now_ms();
	if (now - px->window_start >= LOG_WINDOW_MS) {
		if (px->folded)
			put_record(px, NULL, px->folded);
		px->window_start = now;
		px->refused_in_window = px->folded = 0;
	}
	if (!c)
		return;
	if (!c->allowed && c->head.len == 0 && !c->method[0])
		return;
	if (!c->allowed && ++px->refused_in_window > LOG_BURST) {
		px->folded++;
		return;
	}
	put_record(px, c, 0);
}

static void put_record(struct proxy *px, const struct pconn *c, long folded)
{
	static const struct pconn none = {.port = 0};
	if (!px->pc->logdir)
		return;    /* proxy_fuzz_feed's: no log */
	char why[120];
	if (!c) {
		snprintf(why, sizeof(why), "%ld more refused in %d s, not recorded one by one", folded,
			 LOG_WINDOW_MS / 1000);
		c = &none;
	}
	struct json j = {0};
	long long ms = 0;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	time_t t = ts.tv_sec;
	struct tm tm;
	char when[40];
	gmtime_r(&t, &tm);
	size_t n = strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(when + n, sizeof(when) - n, ".%03dZ", (int)(ts.tv_nsec / 1000000));
	ms = c->t0 ? now_ms() - c->t0 : 0;
	json_obj_open(&j);
	json_key(&j, "time");
	json_str(&j, when);
	json_key(&j, "workspace");
	json_str(&j, px->pc->ws->name);
	json_key(&j, "method");
	json_str(&j, c->method);
	json_key(&j, "host");
	json_str(&j, c->host);
	json_key(&j, "port");
	json_int(&j, c->port);
	json_key(&j, "verdict");
	json_str(&j, c->allowed ? "allowed" : "refused");
	json_key(&j, "why");
	json_str(&j, folded ? why : c->why);
	json_key(&j, "address");
	json_str(&j, c->where);
	json_key(&j, "sent");
	json_int(&j, (long long)c->sent);
	json_key(&j, "received");
	json_int(&j, (long long)c->received);
	json_key(&j, "ms");
	json_int(&j, ms);
	json_obj_close(&j);
	struct err e = {0};
	if (j.out.len <= HISTORY_RECORD_MAX)
		history_append(px->pc->logdir, px->pc->ws->name, j.out.buf, j.out.len, &e);
	sbuf_free(&j.out);
}

/* ---- a connection's end ---- */

static void conn_free(struct proxy *px, struct pconn *c, bool tell)
{
	if (tell)
		put_frame(px, 'X', c->id, NULL, 0);
	log_conn(px, c);
	close_fd(&c->fd);
	sbuf_free(&c->head);
	free(c->up);
	*c = (struct pconn){.fd = -1};
}

/* Refused: the client is told why (status, one line), then the end. */
static void refuse(struct proxy *px, struct pconn *c, int status, const char *why)
{
	static const struct {
		int code;
		const char *text;
	} reasons[] = {{400, "Bad Request"}, {403, "Forbidden"}, {405, "Method Not Allowed"},
		       {408, "Request Timeout"}, {431, "Request Header Fields Too Large"},
		       {502, "Bad Gateway"}, {504, "Gateway Timeout"}};
	const char *text = "Error";
	for (size_t i = 0; i < ARRAY_LEN(reasons); i++)
		if (reasons[i].code == status)
			text = reasons[i].text;
	snprintf(c->why, sizeof(c->why), "%s", why);
	c->allowed = false;
	char body[300], resp[800];
	int bn = snprintf(body, sizeof(body), "sandbox: %s\n", why);
	int rn = snprintf(resp, sizeof(resp), "HTTP/1.1 %d %s\r\nContent-Type: text/plain\r\n"
			  "Content-Length: %d\r\nConnection: close\r\n\r\n%s", status, text, bn, body);
	size_t len = (size_t)rn < sizeof(resp) ? (size_t)rn : sizeof(resp) - 1;
	if (len > c->credit)
		len = c->credit;
	put_data(px, c, resp, len);
	c->received = 0;
	put_frame(px, 'F', c->id, NULL, 0);
	c->unacked += c->head.len;
	sbuf_free(&c->head);
	c->head = (struct sbuf){0};
	/* What it sent after its head, waiting for an upstream, is dropped
	 * and acknowledged: its window stays open until the end. */
	if (c->up) {
		c->unacked += c->uplen - c->up_own;
		c->uplen = c->upoff = c->up_own = 0;
	}
	if (c->unacked)
		put_ack(px, c);
	close_fd(&c->fd);
	c->st = PS_CLOSING;
	c->deadline = now_ms() + CLOSE_MS;
}

/* ---- deciding ---- */

static void addr_text(const struct sockaddr_storage *ss, char *out, size_t cap)
{
	const void *p = ss->ss_family == AF_INET ? (const void *)&((const struct sockaddr_in *)ss)->sin_addr
						: (const void *)&((const struct sockaddr_in6 *)ss)->sin6_addr;
	if (!inet_ntop(ss->ss_family, p, out, (socklen_t)cap))
		snprintf(out, cap, "?");
}

/* An address to try, unless it is of those never reached unless listed
 * (then why says so, for when none is left). */
static void add_addr(struct proxy *px, struct pconn *c, int family, const unsigned char *bytes,
		     char *why, size_t cap)
{
	if (c->naddr == MAX_ADDRS)
		return;
	const char *no = egress_addr_refusal(family, bytes);
	if (no && !egress_allows_addr(px->pat, px->npat, family, bytes, c->port)) {
		char text[64];
		inet_ntop(family, bytes, text, sizeof(text));
		snprintf(why, cap, "%s is at %s, %s, which is not on the allow-list", c->host, text, no);
		return;
	}
	struct sockaddr_storage *ss = &c->addr[c->naddr];
	memset(ss, 0, sizeof(*ss));
	if (family == AF_INET) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
		s4->sin_family = AF_INET;
		s4->sin_port = htons((unsigned short)c->port);
		memcpy(&s4->sin_addr, bytes, 4);
		c->alen[c->naddr] = sizeof(*s4);
	} else {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((unsigned short)c->port);
		memcpy(&s6->sin6_addr, bytes, 16);
		c->alen[c->naddr] = sizeof(*s6);
	}
	c->naddr++;
}

/* The addresses of c->host: the literal, SANDBOX_RESOLVE's, or the
 * resolver's, those never reached unless listed left out. 0, or -1 after
 * refusing. */
static int resolve(struct proxy *px, struct pconn *c)
{
	char why[640] = "";
	unsigned char bytes[16];
	int family = egress_literal(c->host, bytes);
	bool mapped = false;
	if (family) {
		add_addr(px, c, family, bytes, why, sizeof(why));
	} else {
		for (size_t i = 0; i < px->nres; i++) {
			if (strcasecmp(px->res[i].name, c->host) == 0) {
				mapped = true;
				add_addr(px, c, px->res[i].family, px->res[i].addr, why, sizeof(why));
			}
		}
	}
	if (!family && !mapped) {
		/* Blocking, and only for a name on the list: a slow resolver
		 * slows this workspace's proxy alone. */
		struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
					 .ai_flags = AI_ADDRCONFIG}, *res = NULL;
		/* As an absolute name: no search domain of this side's is tried. */
		char absolute[260];
		snprintf(absolute, sizeof(absolute), "%s.", c->host);
		int rc = getaddrinfo(absolute, NULL, &hints, &res);
		if (rc != 0) {
			char msg[300];
			snprintf(msg, sizeof(msg), "cannot resolve %s: %s", c->host, gai_strerror(rc));
			refuse(px, c, 502, msg);
			return -1;
		}
		for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
			if (ai->ai_family == AF_INET)
				add_addr(px, c, AF_INET, (unsigned char *)&((struct sockaddr_in *)ai->ai_addr)->sin_addr, why, sizeof(why));
			else if (ai->ai_family == AF_INET6)
				add_addr(px, c, AF_INET6, (unsigned char *)&((struct sockaddr_in6 *)ai->ai_addr)->sin6_addr, why, sizeof(why));
		}
		freeaddrinfo(res);
	}
	if (c->naddr == 0) {
		refuse(px, c, 403, why[0] ? why : "no address to connect to");
		return -1;
	}
	return 0;
}

static void connected(struct proxy *px, struct pconn *c)
{
	addr_text(&c->addr[c->next - 1], c->where, sizeof(c->where));
	c->allowed = true;
	snprintf(c->why, sizeof(c->why), "on the allow-list");
	c->st = PS_RELAY;
	c->last = now_ms();
	if (strcmp(c->method, "CONNECT") == 0) {
		static const char ok[] = "HTTP/1.1 200 Connection established\r\n\r\n";
		put_data(px, c, ok, sizeof(ok) - 1);
		c->received = 0;
		c->tls_check = true;
		c->deadline = c->last + PROXY_HEAD_MS;
	}
}

/* The next address, connecting; when none is left, refused with what
 * the last one said. */
static void connect_next(struct proxy *px, struct pconn *c, int last_err)
{
	close_fd(&c->fd);
	while (c->next < c->naddr) {
		int i = c->next++;
		int fd = socket(c->addr[i].ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (fd < 0) {
			last_err = errno;
			continue;
		}
		if (connect(fd, (struct sockaddr *)&c->addr[i], c->alen[i]) == 0) {
			c->fd = fd;
			connected(px, c);
			return;
		}
		if (errno == EINPROGRESS) {
			c->fd = fd;
			c->st = PS_CONNECTING;
			c->deadline = now_ms() + PROXY_CONNECT_MS;
			return;
		}
		last_err = errno;
		close(fd);
	}
	char msg[400];
	snprintf(msg, sizeof(msg), "cannot connect to %s port %d: %s", c->host, c->port,
		 last_err ? strerror(last_err) : "no answer in time");
	refuse(px, c, last_err ? 502 : 504, msg);
}

/* A whole head: decided on, then connected, or refused. */
static void decide(struct proxy *px, struct pconn *c, struct egress_req *r)
{
	const char *sp = memchr(c->head.buf, ' ', c->head.len);
	size_t mn = sp ? (size_t)(sp - c->head.buf) : 0;
	snprintf(c->method, sizeof(c->method), "%.*s", (int)(mn < 15 ? mn : 15), c->head.buf);
	snprintf(c->host, sizeof(c->host), "%s", r->host);
	c->port = r->port;
	if (!egress_allows_host(px->pat, px->npat, r->host, r->port)) {
		char why[400];
		snprintf(why, sizeof(why), "%s%s%s:%d is not on the allow-list", strchr(r->host, ':') ? "[" : "",
			 r->host, strchr(r->host, ':') ? "]" : "", r->port);
		refuse(px, c, 403, why);
		return;
	}
	size_t body = c->head.len - r->head_len;
	c->up = xmalloc(UP_CAP);
	c->uplen = c->up_own = 0;
	if (r->kind == EGRESS_HTTP) {
		memcpy(c->up, r->fwd.buf, r->fwd.len);
		c->uplen = c->up_own = r->fwd.len;
	}
	memcpy(c->up + c->uplen, c->head.buf + r->head_len, body);
	c->uplen += body;
	c->unacked += r->head_len;
	sbuf_free(&c->head);
	c->head = (struct sbuf){0};
	if (resolve(px, c) < 0)
		return;
	connect_next(px, c, 0);
}

/* ---- frames from the workspace ---- */

/* The frames of one connection come in runs: its slot is looked at
 * first. */
static struct pconn *conn_of(struct proxy *px, unsigned id)
{
	struct pconn *h = &px->conn[px->hint];
	if (h->used && h->id == id)
		return h;
	for (size_t i = 0; i < PROXY_MAX_CONNS; i++)
		if (px->conn[i].used && px->conn[i].id == id) {
			px->hint = i;
			return &px->conn[i];
		}
	return NULL;
}

static void conn_open(struct proxy *px, unsigned id)
{
	struct pconn *c = NULL;
	for (size_t i = 0; i < PROXY_MAX_CONNS && !c; i++)
		if (!px->conn[i].used)
			c = &px->conn[i];
	if (conn_of(px, id)) {
		put_frame(px, 'X', id, NULL, 0);
		return;
	}
	if (!c) {
		/* Told why, within the window every new one has, then our end
		 * of sending: the relay writes it before it closes. What the
		 * client sends meanwhile is dropped here as any frame of a
		 * connection unknown. */
		static const char busy[] = "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\n"
					   "Content-Length: 43\r\nConnection: close\r\n\r\n"
					   "sandbox: too many connections at once here\n";
		put_frame(px, 'D', id, busy, sizeof(busy) - 1);
		put_frame(px, 'F', id, NULL, 0);
		struct pconn t = {.id = id, .fd = -1, .t0 = now_ms()};
		snprintf(t.method, sizeof(t.method), "?");
		snprintf(t.why, sizeof(t.why), "too many connections at once (503)");
		log_conn(px, &t);
		return;
	}
	*c = (struct pconn){.used = true, .id = id, .st = PS_HEAD, .fd = -1, .credit = MUX_WINDOW,
			    .t0 = now_ms()};
	c->deadline = c->t0 + PROXY_HEAD_MS;
	c->last = c->t0;
}

static bool head_ended(struct pconn *c)
{
	const char *b = c->head.buf;
	for (size_t i = c->scan; i < c->head.len; i++) {
		if (b[i] != '\n')
			continue;
		if ((i >= 1 && b[i - 1] == '\n') || (i >= 2 && b[i - 1] == '\r' && b[i - 2] == '\n'))
			return true;
	}
	c->scan = c->head.len;
	return false;
}

static void head_data(struct proxy *px, struct pconn *c, const unsigned char *p, size_t n)
{
	sbuf_add(&c->head, p, n);
	/* It is read once, when its end (an empty line) has come, or
	 * EGRESS_HEAD_MAX of it: each byte is looked at once until then. */
	if (c->head.len < EGRESS_HEAD_MAX && !head_ended(c))
		return;
	struct egress_req r;
	int status;
	char why[200];
	switch (egress_head_parse(c->head.buf, c->head.len, &r, &status, why, sizeof(why))) {
	case EGRESS_MORE:
		break;
	case EGRESS_BAD:
		snprintf(c->method, sizeof(c->method), "?");
		refuse(px, c, status, why);
		break;
	case EGRESS_OK:
		decide(px, c, &r);
		egress_req_free(&r);
		break;
	}
}

/* One frame; false for one against the rules. */
static bool frame_in(struct proxy *px, char type, unsigned id, const unsigned char *p, size_t n)
{
	struct pconn *c = conn_of(px, id);
	switch (type) {
	case 'O':
		conn_open(px, id);
		return n == 0;
	case 'D':
		if (n == 0 || n > MUX_DATA_MAX)
			return false;
		if (!c) {
			/* Of one ended here (or never taken: 503): taken and
			 * dropped, so that its sender's window stays open until
			 * its client's end. */
			put_count(px, id, n);
			return true;
		}
		if (c->ws_fin || c->inflight + n > MUX_UP_WINDOW)
			return false;
		c->inflight += n;
		c->last = now_ms();
		if (c->st == PS_HEAD) {
			if (c->head.len + n > MUX_UP_WINDOW)
				return false;
			head_data(px, c, p, n);
		} else if (c->st == PS_CLOSING) {
			c->unacked += n;
			if (c->unacked >= MUX_UP_WINDOW / 4)
				put_ack(px, c);
		} else {
			if (c->uplen + n > UP_CAP)
				return false;
			/* Moved to the front only when the end has no room left. */
			if (c->upoff + c->uplen + n > UP_CAP) {
				memmove(c->up, c->up + c->upoff, c->uplen);
				c->upoff = 0;
			}
			memcpy(c->up + c->upoff + c->uplen, p, n);
			/* A tunnel's first bytes have PROXY_HEAD_MS to be a whole
			 * ClientHello (or plainly none). */
			if (c->tls_check && c->uplen == 0)
				c->deadline = c->last + PROXY_HEAD_MS;
			c->uplen += n;
		}
		return true;
	case 'A': {
		if (n != 4)
			return false;
		size_t k = (size_t)p[0] << 24 | (size_t)p[1] << 16 | (size_t)p[2] << 8 | p[3];
		if (c && (c->credit += k) > MUX_WINDOW)
			return false;
		return true;
	}
	case 'F':
		if (!c)
			return true;
		c->ws_fin = true;
		/* Its first bytes, cut short by its end: looked at once more. */
		c->tls_seen = 0;
		if (c->st == PS_HEAD && c->head.len) {
			/* It may still read: it is told why. */
			snprintf(c->method, sizeof(c->method), "?");
			refuse(px, c, 400, "the request ended before its head did (no empty line)");
			conn_free(px, c, false);
		} else if (c->st == PS_HEAD) {
			conn_free(px, c, true);
		} else if (c->st == PS_CLOSING) {
			conn_free(px, c, false);
		}
		return true;
	case 'X':
		if (c)
			conn_free(px, c, false);
		return true;
	default:
		return false;
	}
}

/* Whole frames taken, while what waits for the relay is under OUT_HARD:
 * the rest waits in px->in. False for one against the rules. */
static bool frames_in(struct proxy *px)
{
	size_t off = 0;
	while (px->inlen - off >= MUX_HDR && px->out.len - px->outoff < OUT_HARD) {
		const unsigned char *h = px->in + off;
		size_t n = (size_t)h[5] << 8 | h[6];
		if (n > MUX_DATA_MAX)
			return false;
		if (px->inlen - off < MUX_HDR + n)
			break;
		unsigned id = (unsigned)h[1] << 24 | (unsigned)h[2] << 16 | (unsigned)h[3] << 8 | h[4];
		if (!frame_in(px, (char)h[0], id, h + MUX_HDR, n))
			return false;
		off += MUX_HDR + n;
	}
	memmove(px->in, px->in + off, px->inlen - off);
	px->inlen -= off;
	return true;
}

/* ---- the upstream ---- */

/* A tunnel's first bytes, before any goes on: a TLS ClientHello must
 * name the host the CONNECT did (or none), so that a name listed is not
 * a way to another site behind the same addresses. False when refused
 * (the connection is ended). */
static bool tls_check(struct proxy *px, struct pconn *c)
{
	if (!c->tls_check || c->uplen == 0 || c->uplen == c->tls_seen)
		return true;
	c->tls_seen = c->uplen;
	char name[256];
	enum egress_tls t = egress_tls_name((unsigned char *)c->up + c->upoff, c->uplen, name);
	if (t == EGRESS_TLS_MORE && !c->ws_fin)
		return true;
	if (t == EGRESS_TLS_NOT || t == EGRESS_TLS_NO_NAME ||
	    (t == EGRESS_TLS_NAME && strcmp(name, c->host) == 0)) {
		c->tls_check = false;
		return true;
	}
	if (t == EGRESS_TLS_NAME)
		snprintf(c->why, sizeof(c->why), "the tunnel's TLS asks for %.120s, not %.120s", name, c->host);
	else
		snprintf(c->why, sizeof(c->why), "the tunnel's first bytes are a broken TLS ClientHello");
	c->allowed = false;
	conn_free(px, c, true);
	return false;
}

static void up_step(struct proxy *px, struct pconn *c, short rev)
{
	if (c->st == PS_CONNECTING) {
		if (!(rev & (POLLOUT | POLLERR | POLLHUP)))
			return;
		int err = 0;
		socklen_t len = sizeof(err);
		getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len);
		if (err)
			connect_next(px, c, err);
		else
			connected(px, c);
		return;
	}
	if (c->st != PS_RELAY || !tls_check(px, c))
		return;
	if (c->uplen && !c->tls_check && (rev & (POLLOUT | POLLERR | POLLHUP))) {
		ssize_t w = write(c->fd, c->up + c->upoff, c->uplen);
		if (w < 0 && errno != EAGAIN && errno != EINTR) {
			snprintf(c->why, sizeof(c->why), "on the allow-list; the upstream ended: %s", strerror(errno));
			conn_free(px, c, true);
			return;
		}
		if (w > 0) {
			size_t own = (size_t)w < c->up_own ? (size_t)w : c->up_own;
			c->up_own -= own;
			c->unacked += (size_t)w - own;
			c->sent += (size_t)w;
			c->upoff += (size_t)w;
			c->uplen -= (size_t)w;
			c->last = now_ms();
			if (c->uplen == 0)
				c->upoff = 0;
		}
		if (c->unacked >= MUX_UP_WINDOW / 4 || (c->uplen == 0 && c->unacked))
			put_ack(px, c);
	}
	if (!c->up_eof && c->credit && px->out.len - px->outoff < OUT_SOFT &&
	    (rev & (POLLIN | POLLHUP | POLLERR))) {
		static char buf[4 * MUX_DATA_MAX];
		size_t room = OUT_SOFT - (px->out.len - px->outoff);
		size_t want = c->credit < sizeof(buf) ? c->credit : sizeof(buf);
		ssize_t r = read(c->fd, buf, want < room ? want : room);
		if (r > 0) {
			put_data(px, c, buf, (size_t)r);
			c->last = now_ms();
		} else if (r == 0) {
			c->up_eof = true;
			put_frame(px, 'F', c->id, NULL, 0);
		} else if (errno != EAGAIN && errno != EINTR) {
			snprintf(c->why, sizeof(c->why), "on the allow-list; the upstream broke off: %s", strerror(errno));
			conn_free(px, c, true);
			return;
		}
	}
	if (c->ws_fin && c->uplen == 0 && !c->up_shut) {
		shutdown(c->fd, SHUT_WR);
		c->up_shut = true;
	}
	if (c->up_eof && c->up_shut)
		conn_free(px, c, false);
}

static void check_times(struct proxy *px)
{
	long long now = now_ms();
	for (size_t i = 0; i < PROXY_MAX_CONNS; i++) {
		struct pconn *c = &px->conn[i];
		if (!c->used)
			continue;
		if (c->st == PS_HEAD && now >= c->deadline) {
			if (c->head.len)
				snprintf(c->method, sizeof(c->method), "?");
			refuse(px, c, 408, "no whole request in time");
		} else if (c->st == PS_CONNECTING && now >= c->deadline) {
			connect_next(px, c, 0);
		} else if (c->st == PS_CLOSING && now >= c->deadline) {
			conn_free(px, c, true);
		} else if (c->st == PS_RELAY && c->tls_check && c->uplen && now >= c->deadline) {
			snprintf(c->why, sizeof(c->why), "the tunnel's first bytes were no whole TLS ClientHello in time");
			c->allowed = false;
			conn_free(px, c, true);
		} else if (c->st == PS_RELAY && now - c->last >= PROXY_IDLE_MS) {
			snprintf(c->why, sizeof(c->why), "on the allow-list; ended idle");
			conn_free(px, c, true);
		}
	}
}

static int next_timeout(const struct proxy *px)
{
	long long t = -1, now = now_ms();
	for (size_t i = 0; i < PROXY_MAX_CONNS; i++) {
		const struct pconn *c = &px->conn[i];
		if (!c->used)
			continue;
		long long until = (c->st == PS_RELAY ? c->last + PROXY_IDLE_MS : c->deadline) - now;
		if (c->st == PS_RELAY && c->tls_check && c->uplen && c->deadline - now < until)
			until = c->deadline - now;
		if (until < 0)
			until = 0;
		if (t < 0 || until < t)
			t = until;
	}
	return t < 0 ? -1 : (int)(t + 1);
}

/* ---- the relay ---- */

/* Reads what the relay sent: false at its end, or when it broke the
 * rules. */
static bool relay_read(struct proxy *px)
{
	ssize_t r = read(px->relay.out, px->in + px->inlen, IN_CAP - px->inlen);
	if (r < 0)
		return errno == EAGAIN || errno == EINTR;
	if (r == 0)
		return false;
	px->inlen += (size_t)r;
	if (!frames_in(px)) {
		px->broken = true;
		return false;
	}
	return true;
}

static bool relay_write(struct proxy *px)
{
	size_t left = px->out.len - px->outoff;
	ssize_t w = write(px->relay.in, px->out.buf + px->outoff, left);
	if (w < 0)
		return errno == EAGAIN || errno == EINTR;
	px->outoff += (size_t)w;
	if (w > 0)
		px->progress = now_ms();
	if (px->outoff == px->out.len) {
		sbuf_reset(&px->out);
		px->outoff = 0;
	} else if (px->outoff > (1u << 20)) {
		memmove(px->out.buf, px->out.buf + px->outoff, px->out.len - px->outoff);
		px->out.len -= px->outoff;
		px->outoff = 0;
	}
	return true;
}

static void relay_err(struct proxy *px)
{
	char buf[512];
	ssize_t r = read(px->relay.err, buf, sizeof(buf));
	if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR)) {
		close_fd(&px->relay.err);
		return;
	}
	size_t k = r > 0 ? (size_t)r : 0;
	if (k > ERR_CAP - 1 - px->errlen)
		k = ERR_CAP - 1 - px->errlen;
	memcpy(px->errbuf + px->errlen, buf, k);
	px->errlen += k;
}

/* Until the relay says 'L' (listening) or 'E' (why not), within the
 * engine's deadline. */
static int relay_ready(struct proxy *px, struct err *e)
{
	long long end = now_ms() + (long long)(px->pc->a->cfg.engine_timeout * 1000);
	while (px->inlen < MUX_HDR || px->inlen < MUX_HDR + ((size_t)px->in[5] << 8 | px->in[6])) {
		long long left = end - now_ms();
		if (left <= 0)
			return err_set(e, ERR_WORKSPACE, "its listener did not answer in time (engine_timeout)");
		struct pollfd p[2] = {{px->relay.out, POLLIN, 0}, {px->relay.err, POLLIN, 0}};
		if (poll(p, 2, (int)(left > 1000 ? 1000 : left)) < 0 && errno != EINTR)
			return err_set(e, ERR_ENGINE, "cannot wait for the listener: %s", strerror(errno));
		if (spawn_stopping())
			return err_set(e, ERR_INTERRUPTED, "interrupted");
		if (p[1].revents && px->relay.err >= 0)
			relay_err(px);
		if (!p[0].revents)
			continue;
		ssize_t r = read(px->relay.out, px->in + px->inlen, IN_CAP - px->inlen);
		if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR)) {
			px->errbuf[px->errlen] = '\0';
			px->errbuf[strcspn(px->errbuf, "\r\n")] = '\0';
			return err_set(e, ERR_WORKSPACE, "its listener ended before it listened%s%s",
				       px->errlen ? ": " : "", px->errbuf);
		}
		if (r > 0)
			px->inlen += (size_t)r;
	}
	size_t n = (size_t)px->in[5] << 8 | px->in[6];
	if (px->in[0] == 'E') {
		char why[300];
		size_t k = n < sizeof(why) - 1 ? n : sizeof(why) - 1;
		for (size_t i = 0; i < k; i++)
			why[i] = px->in[MUX_HDR + i] >= 0x20 && px->in[MUX_HDR + i] < 0x7f ? (char)px->in[MUX_HDR + i] : '?';
		why[k] = '\0';
		return err_set(e, ERR_WORKSPACE, "cannot listen in the workspace: %s", why);
	}
	if (px->in[0] != 'L' || n != 0)
		return err_set(e, ERR_WORKSPACE, "its listener answered with no listener's word");
	memmove(px->in, px->in + MUX_HDR, px->inlen - MUX_HDR);
	px->inlen -= MUX_HDR;
	return frames_in(px) ? 0 : err_set(e, ERR_WORKSPACE, "its listener broke the frames' rules");
}

static int relay_start(struct proxy *px, struct err *e)
{
	char path[128];
	struct app *a = px->pc->a;
	if (relay_install(a, px->pc->ws, path, sizeof(path), e) < 0)
		return -1;
	char port[8];
	snprintf(port, sizeof(port), "%d", ENGINE_PROXY_PORT);
	char *cmd[] = {path, "listen", port};
	struct strvec argv = {0};
	engine_exec_argv(&argv, a->engine, px->pc->ws->id, NULL, 0, true, cmd, ARRAY_LEN(cmd));
	int rc = proc_spawn(&px->relay, strvec_argv(&argv), a->envp.v, IO_PIPE, IO_PIPE, IO_PIPE, e);
	strvec_clear(&argv);
	if (rc < 0)
		return -1;
	set_nonblock(px->relay.in);
	set_nonblock(px->relay.out);
	set_nonblock(px->relay.err);
	return relay_ready(px, e);
}

static void relay_stop(struct proxy *px)
{
	close_fd(&px->relay.in);
	close_fd(&px->relay.out);
	close_fd(&px->relay.err);
	if (px->relay.pid <= 0)
		return;
	kill(-px->relay.pid, SIGTERM);
	long long end = now_ms() + PROC_TERM_MS;
	int st;
	while (waitpid(px->relay.pid, &st, WNOHANG) == 0) {
		if (now_ms() >= end) {
			kill(-px->relay.pid, SIGKILL);
			waitpid(px->relay.pid, &st, 0);
			break;
		}
		poll(NULL, 0, 20);
	}
}

/* ---- the loop ---- */

static void run(struct proxy *px)
{
	struct pollfd p[4 + PROXY_MAX_CONNS];
	px->progress = now_ms();
	while (!spawn_stopping()) {
		if (px->out.len == px->outoff)
			px->progress = now_ms();
		else if (now_ms() - px->progress >= STALL_MS)
			break;
		size_t n = 0;
		p[n++] = (struct pollfd){spawn_signal_fd(), POLLIN, 0};
		p[n++] = (struct pollfd){px->inlen < IN_CAP && px->out.len - px->outoff < OUT_HARD
					 ? px->relay.out : -1, POLLIN, 0};
		p[n++] = (struct pollfd){px->out.len > px->outoff ? px->relay.in : -1, POLLOUT, 0};
		p[n++] = (struct pollfd){px->relay.err, POLLIN, 0};
		for (size_t i = 0; i < PROXY_MAX_CONNS; i++) {
			const struct pconn *c = &px->conn[i];
			short ev = 0;
			if (c->used && c->st == PS_CONNECTING)
				ev = POLLOUT;
			if (c->used && c->st == PS_RELAY) {
				if (!c->up_eof && c->credit && px->out.len - px->outoff < OUT_SOFT)
					ev |= POLLIN;
				if (c->uplen && !c->tls_check)
					ev |= POLLOUT;
			}
			p[n++] = (struct pollfd){ev ? c->fd : -1, ev, 0};
		}
		int wait = next_timeout(px);
		if (px->out.len > px->outoff && (wait < 0 || wait > STALL_MS))
			wait = STALL_MS;
		if (poll(p, n, wait) < 0 && errno != EINTR)
			break;
		spawn_signal_drain();
		if (p[3].revents && px->relay.err >= 0)
			relay_err(px);
		/* The upstreams' events first: a frame read after them may free
		 * a slot and open another connection in it, which the events
		 * of the last one's descriptor are not for. Each turn starts
		 * at another slot: the room under OUT_SOFT goes round. */
		size_t first = px->turn++ % PROXY_MAX_CONNS;
		for (size_t k = 0; k < PROXY_MAX_CONNS; k++) {
			size_t i = (first + k) % PROXY_MAX_CONNS;
			if (px->conn[i].used && p[4 + i].revents)
				up_step(px, &px->conn[i], p[4 + i].revents);
		}
		if (p[1].revents && !relay_read(px))
			break;
		/* What no poll event reports: a client's end to pass on, a
		 * tunnel's first bytes to look at (no POLLOUT is asked for
		 * until they are seen: it would spin). */
		for (size_t i = 0; i < PROXY_MAX_CONNS; i++) {
			struct pconn *c = &px->conn[i];
			if (c->used && c->st == PS_RELAY && c->ws_fin && c->uplen == 0 && !c->up_shut)
				up_step(px, c, 0);
			else if (c->used && c->st == PS_RELAY && c->tls_check && c->uplen)
				up_step(px, c, POLLOUT);
		}
		check_times(px);
		if (px->out.len > px->outoff && !relay_write(px))
			break;
		/* Frames left waiting for room (frames_in), now there is some. */
		if (px->inlen >= MUX_HDR && px->out.len - px->outoff < OUT_HARD && !frames_in(px)) {
			px->broken = true;
			break;
		}
	}
}

/* SANDBOX_RESOLVE: NAME=ADDR, comma-separated, as curl's --resolve. */
static int read_resolve(struct proxy *px, const char *s, struct err *e)
{
	while (s && *s) {
		size_t n = strcspn(s, ",");
		char item[320], name[256];
		if (n >= sizeof(item))
			return err_set(e, ERR_USAGE, "SANDBOX_RESOLVE: too long an entry");
		memcpy(item, s, n);
		item[n] = '\0';
		s += n + (s[n] == ',');
		char *eq = strchr(item, '=');
		struct egress_pat p;
		char why[200];
		if (!eq || px->nres == PROXY_MAX_RESOLVE)
			return err_set(e, ERR_USAGE, "SANDBOX_RESOLVE: expected NAME=ADDR,... (at most %d)",
				       PROXY_MAX_RESOLVE);
		*eq = '\0';
		struct resolve_entry *r = &px->res[px->nres];
		if (egress_pat_parse(item, &p, why, sizeof(why)) < 0 || p.family || p.wild || p.port ||
		    !(r->family = egress_literal(eq + 1, r->addr)))
			return err_set(e, ERR_USAGE, "SANDBOX_RESOLVE: '%s=%s': expected NAME=ADDR", item, eq + 1);
		snprintf(name, sizeof(name), "%s", p.host);
		memcpy(r->name, name, sizeof(r->name));
		px->nres++;
	}
	return 0;
}

static void report(const struct proxy_conf *pc, const struct err *e)
{
	if (pc->report < 0)
		return;
	char buf[1100];
	int n = e ? snprintf(buf, sizeof(buf), "%c%s\n", NETPROXY_FAILED, e->msg)
		  : snprintf(buf, sizeof(buf), "%c", NETPROXY_READY);
	write_all(pc->report, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
	close(pc->report);
}

static struct proxy *proxy_new(const struct proxy_conf *pc)
{
	struct proxy *px = xmalloc(sizeof(*px));
	memset(px, 0, sizeof(*px));
	px->pc = pc;
	px->relay = (struct proc){.pid = -1, .in = -1, .out = -1, .err = -1};
	for (size_t i = 0; i < PROXY_MAX_CONNS; i++)
		px->conn[i].fd = -1;
	px->in = xmalloc(IN_CAP);
	return px;
}

/* Every connection ended, each on record, the relay told nothing. */
static void conns_end(struct proxy *px)
{
	for (size_t i = 0; i < PROXY_MAX_CONNS; i++)
		if (px->conn[i].used)
			conn_free(px, &px->conn[i], false);
}

static void proxy_free(struct proxy *px)
{
	sbuf_free(&px->out);
	free(px->in);
	free(px);
}

int proxy_serve(const struct proxy_conf *pc, struct err *e)
{
	signal(SIGPIPE, SIG_IGN);
	struct proxy *px = proxy_new(pc);
	int rc = 0, lock = open(pc->lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	/* A command's look at the lock (netproxy_holds) takes it for a
	 * moment: tried again a while before another is taken to run. */
	int tries = 0;
	while (lock >= 0 && flock(lock, LOCK_EX | LOCK_NB) < 0 && errno == EWOULDBLOCK && ++tries < 20)
		poll(NULL, 0, 10);
	if (lock < 0 || tries == 20) {
		/* Another runs for it (started meanwhile): that one serves. */
		report(pc, NULL);
		goto done;
	}
	/* Empty until it serves: one that never did, or whose relay broke
	 * the rules, is no proxy lost (netproxy_lost) for every next
	 * command to start again. */
	if (ftruncate(lock, 0) < 0)
		rc = err_set(e, ERR_ENGINE, "cannot write %s: %s", pc->lock, strerror(errno));
	char why[200];
	for (size_t i = 0; i < pc->npatterns && rc == 0; i++) {
		if (px->npat == EGRESS_MAX_PATTERNS ||
		    egress_pat_parse(pc->patterns[i], &px->pat[px->npat++], why, sizeof(why)) < 0)
			rc = err_set(e, ERR_USAGE, "allow '%s': not a pattern", pc->patterns[i]);
	}
	if (rc == 0)
		rc = read_resolve(px, pc->resolve, e);
	if (rc == 0)
		rc = relay_start(px, e);
	if (rc == 0) {
		/* Whose it is, for doctor; and that it served. */
		char who[200];
		int wn = snprintf(who, sizeof(who), "%ld %s\n", (long)getpid(), pc->ws->name);
		if (wn > 0)
			write_all(lock, who, (size_t)wn < sizeof(who) ? (size_t)wn : sizeof(who) - 1);
	}
	/* One that failed lets go of the lock before it says so: the next
	 * command must find none running. */
	if (rc < 0) {
		close(lock);
		lock = -1;
	}
	report(pc, rc == 0 ? NULL : e);
	if (rc == 0)
		run(px);
	conns_end(px);
	px->window_start = 0;
	log_conn(px, NULL);
	relay_stop(px);
	/* A relay that broke the rules: no proxy lost (see above). */
	if (px->broken && lock >= 0 && ftruncate(lock, 0) < 0)
		rc = err_set(e, ERR_ENGINE, "cannot write %s: %s", pc->lock, strerror(errno));
done:
	if (lock >= 0)
		close(lock);
	proxy_free(px);
	return rc;
}

/* ---- for the fuzzer ---- */

/* The most one frame taken makes us answer: a refusal (its text, F, A). */
#define ANSWER_MAX (2 * 1024)

static const char *fuzz_bounds(const struct proxy *px)
{
	if (px->out.len - px->outoff >= OUT_HARD + ANSWER_MAX)
		return "the frames for the relay passed OUT_HARD";
	if (px->inlen > IN_CAP)
		return "the frames from the relay passed IN_CAP";
	for (size_t i = 0; i < PROXY_MAX_CONNS; i++) {
		const struct pconn *c = &px->conn[i];
		if (!c->used)
			continue;
		if (c->inflight > MUX_UP_WINDOW)
			return "a connection's bytes in flight passed its window";
		if (c->credit > MUX_WINDOW)
			return "a connection's credit passed the relay's window";
		if (c->head.len > MUX_UP_WINDOW || c->uplen + c->upoff > UP_CAP)
			return "a connection's buffer passed its cap";
	}
	return NULL;
}

const char *proxy_fuzz_feed(const unsigned char *b, size_t n)
{
	static struct ws ws = {.name = "fuzz"};
	static const struct proxy_conf pc = {.ws = &ws, .report = -1};
	struct proxy *px = proxy_new(&pc);
	const char *broke = NULL;
	size_t off = 0;
	bool ok = true;
	while (ok && !broke && (off < n || px->inlen >= MUX_HDR)) {
		size_t k = off < n ? (size_t)b[off++] * 97 + 1 : 0;
		if (k > n - off)
			k = n - off;
		if (k > IN_CAP - px->inlen)
			k = IN_CAP - px->inlen;
		memcpy(px->in + px->inlen, b + off, k);
		px->inlen += k;
		off += k;
		size_t before = px->inlen;
		ok = frames_in(px);
		/* One against the rules ends the proxy: what it left is let go. */
		broke = ok ? fuzz_bounds(px) : NULL;
		/* The relay read it all. */
		bool full = px->out.len - px->outoff >= OUT_HARD;
		sbuf_reset(&px->out);
		px->outoff = 0;
		if (k == 0 && px->inlen == before && !full)
			break;    /* what is left is no whole frame */
	}
	conns_end(px);
	proxy_free(px);
	return broke;
}
