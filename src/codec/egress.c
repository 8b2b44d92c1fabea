/* egress.c: see egress.h. */
#include "egress.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

static int say(char *why, size_t cap, const char *what)
{
	snprintf(why, cap, "%s", what);
	return -1;
}

/* A port of 1 to 65535 in s[0..n), digits alone; -1 otherwise. */
static int port_of(const char *s, size_t n)
{
	long v = 0;
	if (n == 0 || n > 5)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v >= 1 && v <= 65535 ? (int)v : -1;
}

int egress_literal(const char *s, unsigned char addr[16])
{
	char buf[64];
	size_t n = strlen(s);
	if (n >= 2 && s[0] == '[' && s[n - 1] == ']') {
		if (n - 2 >= sizeof(buf))
			return 0;
		memcpy(buf, s + 1, n - 2);
		buf[n - 2] = '\0';
		return inet_pton(AF_INET6, buf, addr) == 1 ? AF_INET6 : 0;
	}
	if (inet_pton(AF_INET, s, addr) == 1)
		return AF_INET;
	return strchr(s, ':') && inet_pton(AF_INET6, s, addr) == 1 ? AF_INET6 : 0;
}

/* A host name of DNS's letters, digits, '-' and '_' in labels of 1 to
 * 63, into out in lower case without a trailing dot; false otherwise,
 * and for one of digits and dots alone (an address written oddly,
 * which a resolver would take as one). */
static bool name_of(const char *s, size_t n, char out[256])
{
	if (n && s[n - 1] == '.')
		n--;
	if (n == 0 || n > 253)
		return false;
	size_t label = 0;
	bool alpha = false;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '.') {
			if (label == 0 || s[i - 1] == '-')
				return false;
			label = 0;
		} else if (isalnum(c) || c == '-' || c == '_') {
			if ((label == 0 && c == '-') || ++label > 63)
				return false;
			alpha |= !isdigit(c);
		} else {
			return false;
		}
		out[i] = (char)tolower(c);
	}
	out[n] = '\0';
	return label > 0 && s[n - 1] != '-' && alpha;
}

/* host[:port] or [v6][:port], the host into p (a name or an address),
 * the port or -1 when none is given; false for one that is neither. */
static bool authority_of(const char *s, size_t n, struct egress_pat *p, int *port)
{
	const char *end = s + n, *colon = NULL;
	size_t hn;
	*port = -1;
	if (n && s[0] == '[') {
		const char *close = memchr(s, ']', n);
		if (!close)
			return false;
		hn = (size_t)(close - s) + 1;
		if (close + 1 < end) {
			if (close[1] != ':')
				return false;
			colon = close + 1;
		}
	} else {
		colon = memchr(s, ':', n);
		if (colon && memchr(colon + 1, ':', (size_t)(end - colon - 1)))
			return false;      /* IPv6 with no brackets */
		hn = colon ? (size_t)(colon - s) : n;
	}
	if (colon && (*port = port_of(colon + 1, (size_t)(end - colon - 1))) < 0)
		return false;
	char host[256];
	if (hn == 0 || hn >= sizeof(host))
		return false;
	memcpy(host, s, hn);
	host[hn] = '\0';
	memset(p, 0, sizeof(*p));
	if ((p->family = egress_literal(host, p->addr)) != 0) {
		if (host[0] == '[' && p->family != AF_INET6)
			return false;
		if (host[0] != '[' && p->family == AF_INET6)
			return false;
		inet_ntop(p->family, p->addr, p->host, sizeof(p->host));
		return true;
	}
	return name_of(host, hn, p->host);
}

int egress_pat_parse(const char *s, struct egress_pat *p, char *why, size_t whylen)
{
	size_t n = strlen(s);
	if (n == 0)
		return say(why, whylen, "an empty pattern: give a host, as pypi.org, *.npmjs.org or github.com:22");
	if (n > EGRESS_PATTERN_MAX)
		return say(why, whylen, "too long a pattern");
	bool wild = n > 2 && s[0] == '*' && s[1] == '.';
	const char *h = wild ? s + 2 : s;
	size_t colons = 0;
	for (const char *c = h; *c; c++)
		colons += *c == ':';
	if (h[0] != '[' && colons > 1)
		return say(why, whylen, "an IPv6 address goes in brackets, with its port after: [fd00::1]:8080");
	int port;
	if (!authority_of(h, strlen(h), p, &port)) {
		if (strchr(h, '*'))
			return say(why, whylen, "a '*' may only lead a pattern, as *.npmjs.org (every name under npmjs.org)");
		return say(why, whylen, "not a host name or address, with an optional :PORT (1 to 65535)");
	}
	if (wild && p->family)
		return say(why, whylen, "'*.' goes before a name, not an address");
	p->wild = wild;
	p->port = port < 0 ? 0 : port;
	return 0;
}

void egress_pat_format(const struct egress_pat *p, char *out, size_t cap)
{
	const char *l = p->family == AF_INET6 ? "[" : "", *r = p->family == AF_INET6 ? "]" : "";
	if (p->port)
		snprintf(out, cap, "%s%s%s%s:%d", p->wild ? "*." : "", l, p->host, r, p->port);
	else
		snprintf(out, cap, "%s%s%s%s", p->wild ? "*." : "", l, p->host, r);
}

static bool port_ok(const struct egress_pat *p, int port)
{
	return p->port ? port == p->port : port == 80 || port == 443;
}

bool egress_allows_addr(const struct egress_pat *v, size_t n, int family,
			const unsigned char *addr, int port)
{
	size_t len = family == AF_INET ? 4 : 16;
	for (size_t i = 0; i < n; i++)
		if (v[i].family == family && memcmp(v[i].addr, addr, len) == 0 && port_ok(&v[i], port))
			return true;
	return false;
}

bool egress_allows_host(const struct egress_pat *v, size_t n, const char *host, int port)
{
	unsigned char addr[16];
	int family = egress_literal(host, addr);
	if (family)
		return egress_allows_addr(v, n, family, addr, port);
	char name[256];
	if (!name_of(host, strlen(host), name))
		return false;
	size_t hl = strlen(name);
	for (size_t i = 0; i < n; i++) {
		const struct egress_pat *p = &v[i];
		if (p->family || !port_ok(p, port))
			continue;
		size_t pl = strlen(p->host);
		if (!p->wild && strcmp(name, p->host) == 0)
			return true;
		if (p->wild && hl > pl + 1 && name[hl - pl - 1] == '.' && strcmp(name + hl - pl, p->host) == 0)
			return true;
	}
	return false;
}

/* ---- addresses never reached unless listed ---- */

struct net4 {
	unsigned int base;
	int bits;
	const char *why;
};

static const struct net4 blocked4[] = {
	{0x00000000, 8, "this network (0.0.0.0/8)"},
	{0x0a000000, 8, "private"},
	{0x64400000, 10, "shared (carrier NAT)"},
	{0x7f000000, 8, "loopback"},
	{0xa9fe0000, 16, "link-local (cloud metadata lives here)"},
	{0xac100000, 12, "private"},
	{0xc0000000, 24, "reserved (IETF)"},
	{0xc0000200, 24, "documentation"},
	{0xc0a80000, 16, "private"},
	{0xc6120000, 15, "reserved (benchmarking)"},
	{0xc6336400, 24, "documentation"},
	{0xcb007100, 24, "documentation"},
	{0xe0000000, 4, "multicast"},
	{0xf0000000, 4, "reserved"},
};

static const char *refusal4(const unsigned char *a)
{
	unsigned int v = (unsigned int)a[0] << 24 | (unsigned int)a[1] << 16 |
			 (unsigned int)a[2] << 8 | a[3];
	for (size_t i = 0; i < ARRAY_LEN(blocked4); i++) {
		unsigned int mask = 0xffffffffu << (32 - blocked4[i].bits);
		if ((v & mask) == blocked4[i].base)
			return blocked4[i].why;
	}
	return NULL;
}

static bool prefix6(const unsigned char *a, const unsigned char *p, int bits)
{
	int bytes = bits / 8, rest = bits % 8;
	if (memcmp(a, p, (size_t)bytes) != 0)
		return false;
	return rest == 0 || ((a[bytes] ^ p[bytes]) & (0xff << (8 - rest))) == 0;
}

const char *egress_addr_refusal(int family, const unsigned char *a)
{
	if (family == AF_INET)
		return refusal4(a);
	static const unsigned char zero[16], loop[16] = {[15] = 1};
	static const unsigned char mapped[12] = {[10] = 0xff, [11] = 0xff};
	static const unsigned char nat64[12] = {0x00, 0x64, 0xff, 0x9b};
	static const unsigned char nat64_local[6] = {0x00, 0x64, 0xff, 0x9b, 0x00, 0x01};
	static const unsigned char sixto4[2] = {0x20, 0x02};
	static const unsigned char teredo[4] = {0x20, 0x01, 0x00, 0x00};
	static const unsigned char doc[4] = {0x20, 0x01, 0x0d, 0xb8};
	static const unsigned char discard[8] = {0x01, 0x00};
	if (memcmp(a, zero, 16) == 0)
		return "unspecified";
	if (memcmp(a, loop, 16) == 0)
		return "loopback";
	if (memcmp(a, mapped, 12) == 0 || memcmp(a, nat64, 12) == 0)
		return refusal4(a + 12);
	if (prefix6(a, nat64_local, 48))
		return "reserved (local-use NAT64, 64:ff9b:1::/48)";
	if (prefix6(a, zero, 96))
		return "reserved (IPv4-compatible)";
	if (prefix6(a, sixto4, 16))
		return refusal4(a + 2);
	if (prefix6(a, teredo, 32))
		return "reserved (Teredo)";
	if (prefix6(a, doc, 32))
		return "documentation";
	if (prefix6(a, discard, 64))
		return "reserved (discard)";
	if ((a[0] & 0xfe) == 0xfc)
		return "private (unique local, fc00::/7)";
	if (a[0] == 0xfe && (a[1] & 0xc0) == 0x80)
		return "link-local";
	if (a[0] == 0xfe && (a[1] & 0xc0) == 0xc0)
		return "reserved (site-local)";
	if (a[0] == 0xff)
		return "multicast";
	return NULL;
}

/* ---- the request head ---- */

static bool tchar(unsigned char c)
{
	return isalnum(c) || (c && strchr("!#$%&'*+-.^_`|~", c));
}

/* A line of the head: [p, p+n), without its CR LF or LF. */
struct line {
	const char *p;
	size_t n;
};

static bool line_clean(const struct line *l)
{
	for (size_t i = 0; i < l->n; i++) {
		unsigned char c = (unsigned char)l->p[i];
		if ((c < 0x20 && c != '\t') || c == 0x7f)
			return false;
	}
	return true;
}

static int bad(int *status, int code, char *why, size_t cap, const char *what)
{
	*status = code;
	snprintf(why, cap, "%s", what);
	return EGRESS_BAD;
}

static bool starts_nocase(const char *p, size_t n, const char *word)
{
	size_t w = strlen(word);
	return n >= w && strncasecmp(p, word, w) == 0;
}

/* The request line: METHOD SP TARGET SP HTTP/1.x, into r (and the path
 * for plain HTTP into *path). */
static int request_line(const struct line *l, struct egress_req *r, struct line *method,
			struct line *path, struct line *version, int *status, char *why, size_t cap)
{
	const char *sp1 = memchr(l->p, ' ', l->n);
	const char *sp2 = sp1 ? memchr(sp1 + 1, ' ', (size_t)(l->p + l->n - sp1 - 1)) : NULL;
	if (!sp2 || memchr(sp2 + 1, ' ', (size_t)(l->p + l->n - sp2 - 1)))
		return bad(status, 400, why, cap, "not a request line (METHOD TARGET HTTP/1.1)");
	*method = (struct line){l->p, (size_t)(sp1 - l->p)};
	struct line target = {sp1 + 1, (size_t)(sp2 - sp1 - 1)};
	*version = (struct line){sp2 + 1, (size_t)(l->p + l->n - sp2 - 1)};
	if (method->n == 0 || method->n > 32)
		return bad(status, 400, why, cap, "not a request method");
	for (size_t i = 0; i < method->n; i++)
		if (!tchar((unsigned char)method->p[i]))
			return bad(status, 400, why, cap, "not a request method");
	if (version->n != 8 || (memcmp(version->p, "HTTP/1.1", 8) != 0 && memcmp(version->p, "HTTP/1.0", 8) != 0))
		return bad(status, 400, why, cap, "HTTP/1.0 and HTTP/1.1 only");
	struct egress_pat h;
	int port;
	if (method->n == 7 && memcmp(method->p, "CONNECT", 7) == 0) {
		if (!authority_of(target.p, target.n, &h, &port) || port < 0)
			return bad(status, 400, why, cap, "CONNECT wants HOST:PORT");
		r->kind = EGRESS_CONNECT;
	} else {
		if (starts_nocase(target.p, target.n, "https://"))
			return bad(status, 400, why, cap, "https goes through CONNECT, not as a URI");
		if (!starts_nocase(target.p, target.n, "http://"))
			return bad(status, 400, why, cap, "this is a proxy: give an absolute http:// URI, or CONNECT");
		const char *a = target.p + 7, *end = target.p + target.n, *q = a;
		while (q < end && *q != '/' && *q != '?' && *q != '#')
			q++;
		if (memchr(a, '@', (size_t)(q - a)))
			return bad(status, 400, why, cap, "no user name or password in the URI");
		if (memchr(target.p, '#', target.n))
			return bad(status, 400, why, cap, "no fragment (#) in a request");
		if (!authority_of(a, (size_t)(q - a), &h, &port))
			return bad(status, 400, why, cap, "not a host in the URI");
		if (port < 0)
			port = 80;
		*path = (struct line){q, (size_t)(end - q)};
		r->kind = EGRESS_HTTP;
	}
	snprintf(r->host, sizeof(r->host), "%s", h.host);
	r->port = port;
	return EGRESS_OK;
}

static bool same_host(const struct egress_req *r, const char *v, size_t n)
{
	struct egress_pat h;
	int port;
	if (!authority_of(v, n, &h, &port))
		return false;
	return strcmp(h.host, r->host) == 0 && (port < 0 ? 80 : port) == r->port;
}

static bool hop_by_hop(const char *name, size_t n)
{
	static const char *const hop[] = {"connection", "proxy-connection", "keep-alive",
					  "proxy-authorization", "te", "upgrade"};
	for (size_t i = 0; i < ARRAY_LEN(hop); i++)
		if (strlen(hop[i]) == n && strncasecmp(name, hop[i], n) == 0)
			return true;
	return false;
}

/* One header line: checked; Host compared; kept in r->fwd unless a hop
 * of its own. */
static int header(const struct line *l, struct egress_req *r, int *hosts, int *status,
		  char *why, size_t cap)
{
	const char *colon = memchr(l->p, ':', l->n);
	if (l->p[0] == ' ' || l->p[0] == '\t')
		return bad(status, 400, why, cap, "folded header lines are not taken");
	if (!colon || colon == l->p)
		return bad(status, 400, why, cap, "a header line with no name");
	size_t nn = (size_t)(colon - l->p);
	for (size_t i = 0; i < nn; i++)
		if (!tchar((unsigned char)l->p[i]))
			return bad(status, 400, why, cap, "a header name that is not a token");
	const char *v = colon + 1, *end = l->p + l->n;
	while (v < end && (*v == ' ' || *v == '\t'))
		v++;
	while (end > v && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	if (nn == 4 && strncasecmp(l->p, "host", 4) == 0) {
		if (++*hosts > 1)
			return bad(status, 400, why, cap, "more than one Host header");
		if (r->kind == EGRESS_HTTP && !same_host(r, v, (size_t)(end - v)))
			return bad(status, 400, why, cap, "the Host header names another host than the URI");
	}
	if (r->kind == EGRESS_HTTP && !hop_by_hop(l->p, nn)) {
		sbuf_add(&r->fwd, l->p, l->n);
		sbuf_adds(&r->fwd, "\r\n");
	}
	return EGRESS_OK;
}

enum egress_head egress_head_parse(const char *buf, size_t len, struct egress_req *r,
				   int *status, char *why, size_t whylen)
{
	memset(r, 0, sizeof(*r));
	*status = 0;
	if (why && whylen)
		why[0] = '\0';
	size_t lim = len < EGRESS_HEAD_MAX ? len : EGRESS_HEAD_MAX;
	/* The end first: nothing is judged on a part of a head. */
	size_t pos = 0, end = 0;
	for (;;) {
		const char *nl = memchr(buf + pos, '\n', lim - pos);
		if (!nl)
			return len >= EGRESS_HEAD_MAX
				       ? (enum egress_head)bad(status, 431, why, whylen, "the request head is too long")
				       : EGRESS_MORE;
		size_t n = (size_t)(nl - (buf + pos));
		if (n == 0 || (n == 1 && buf[pos] == '\r')) {
			end = (size_t)(nl - buf) + 1;
			break;
		}
		pos = (size_t)(nl - buf) + 1;
	}
	struct line method, path = {0}, version;
	int hosts = 0, rc = EGRESS_OK;
	pos = 0;
	for (bool first = true; rc == EGRESS_OK; first = false) {
		const char *nl = memchr(buf + pos, '\n', end - pos);
		struct line l = {buf + pos, (size_t)(nl - (buf + pos))};
		pos = (size_t)(nl - buf) + 1;
		if (l.n && l.p[l.n - 1] == '\r')
			l.n--;
		if (l.n == 0) {
			if (first)
				rc = bad(status, 400, why, whylen, "an empty request line");
			break;
		}
		if (!line_clean(&l)) {
			rc = bad(status, 400, why, whylen, "control characters in the request head");
		} else if (first) {
			rc = request_line(&l, r, &method, &path, &version, status, why, whylen);
			if (rc == EGRESS_OK && r->kind == EGRESS_HTTP) {
				sbuf_add(&r->fwd, method.p, method.n);
				sbuf_adds(&r->fwd, " ");
				if (path.n == 0 || path.p[0] == '?')
					sbuf_adds(&r->fwd, "/");
				sbuf_add(&r->fwd, path.p, path.n);
				sbuf_adds(&r->fwd, " ");
				sbuf_add(&r->fwd, version.p, version.n);
				sbuf_adds(&r->fwd, "\r\n");
			}
		} else {
			rc = header(&l, r, &hosts, status, why, whylen);
		}
	}
	if (rc != EGRESS_OK) {
		egress_req_free(r);
		return EGRESS_BAD;
	}
	if (r->kind == EGRESS_HTTP) {
		if (!hosts) {
			bool v6 = strchr(r->host, ':') != NULL;
			sbuf_addf(&r->fwd, "Host: %s%s%s", v6 ? "[" : "", r->host, v6 ? "]" : "");
			if (r->port != 80)
				sbuf_addf(&r->fwd, ":%d", r->port);
			sbuf_adds(&r->fwd, "\r\n");
		}
		sbuf_adds(&r->fwd, "Connection: close\r\n\r\n");
	}
	r->head_len = end;
	return EGRESS_OK;
}

void egress_req_free(struct egress_req *r)
{
	sbuf_free(&r->fwd);
	r->fwd = (struct sbuf){0};
}

/* ---- a TLS ClientHello's server name ---- */

static size_t be(const unsigned char *p, int n)
{
	size_t v = 0;
	for (int i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

/* The server_name extension's host_name, from the ClientHello's body. */
static enum egress_tls hello_name(const unsigned char *h, size_t n, char name[256])
{
	size_t off = 2 + 32;                          /* version, random */
	if (off + 1 > n)
		return EGRESS_TLS_BAD;
	off += 1 + h[off];                            /* session id */
	if (off + 2 > n)
		return EGRESS_TLS_BAD;
	off += 2 + be(h + off, 2);                    /* cipher suites */
	if (off + 1 > n)
		return EGRESS_TLS_BAD;
	off += 1 + h[off];                            /* compression */
	if (off == n)
		return EGRESS_TLS_NO_NAME;            /* no extensions */
	if (off + 2 > n || off + 2 + be(h + off, 2) > n)
		return EGRESS_TLS_BAD;
	size_t end = off + 2 + be(h + off, 2);
	for (off += 2; off + 4 <= end;) {
		size_t type = be(h + off, 2), len = be(h + off + 2, 2);
		off += 4;
		if (off + len > end)
			return EGRESS_TLS_BAD;
		if (type == 0) {
			/* server_name_list: name_type 0 (host_name), length, name */
			if (len < 5 || be(h + off, 2) != len - 2 || h[off + 2] != 0)
				return EGRESS_TLS_BAD;
			size_t nl = be(h + off + 3, 2);
			if (nl + 5 > len || nl == 0 || nl > 253 + 1)
				return EGRESS_TLS_BAD;
			char raw[256];
			memcpy(raw, h + off + 5, nl);
			raw[nl] = '\0';
			if (strlen(raw) != nl || !name_of(raw, nl, name))
				return EGRESS_TLS_BAD;
			return EGRESS_TLS_NAME;
		}
		off += len;
	}
	return off == end ? EGRESS_TLS_NO_NAME : EGRESS_TLS_BAD;
}

enum egress_tls egress_tls_name(const unsigned char *buf, size_t len, char name[256])
{
	if (len == 0)
		return EGRESS_TLS_MORE;
	if (buf[0] != 0x16)
		return EGRESS_TLS_NOT;
	/* The handshake's bytes, gathered from its records in order. */
	unsigned char hs[EGRESS_TLS_MAX];
	size_t hn = 0, off = 0;
	for (;;) {
		if (off + 5 > len)
			return len >= EGRESS_TLS_MAX ? EGRESS_TLS_BAD : EGRESS_TLS_MORE;
		if (buf[off] != 0x16 || buf[off + 1] != 3)
			return EGRESS_TLS_BAD;
		size_t rl = be(buf + off + 3, 2);
		if (rl == 0 || rl > 16384 + 256)
			return EGRESS_TLS_BAD;
		if (off + 5 + rl > EGRESS_TLS_MAX)
			return EGRESS_TLS_BAD;
		if (off + 5 + rl > len)
			return EGRESS_TLS_MORE;
		memcpy(hs + hn, buf + off + 5, rl);
		hn += rl;
		off += 5 + rl;
		if (hn >= 4) {
			if (hs[0] != 1)
				return EGRESS_TLS_BAD;   /* the first must be a ClientHello */
			size_t want = 4 + be(hs + 1, 3);
			if (want > EGRESS_TLS_MAX)
				return EGRESS_TLS_BAD;
			if (hn >= want)
				return hello_name(hs + 4, want - 4, name);
		}
	}
}
