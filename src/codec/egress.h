/* egress.h: the pure half of network = allow (man sandbox, NETWORK BY
 * ALLOW-LIST): the allow-list's patterns, the proxy's reading of a
 * request head, and which addresses are never reached unless listed.
 * The request head comes from the workspace: hostile, read within
 * EGRESS_HEAD_MAX bytes, never trusted past what is checked here. */
#ifndef SANDBOX_EGRESS_H
#define SANDBOX_EGRESS_H

#include <stdbool.h>
#include <stddef.h>

#include "util.h"

/* The longest request head the proxy reads (the request line and every
 * header): a longer one is refused with 431. */
#define EGRESS_HEAD_MAX 16384
/* The most patterns in a workspace's list. */
#define EGRESS_MAX_PATTERNS 64
/* A pattern's longest text, as a label carries it. */
#define EGRESS_PATTERN_MAX 300

/* One pattern: a name (pypi.org), every name under one (*.npmjs.org:
 * not npmjs.org itself), or an address (10.0.0.5, [fd00::1]); with a
 * port, or none for 80 and 443. */
struct egress_pat {
	char host[256];        /* lower case, no trailing dot, no brackets */
	bool wild;             /* *.host */
	int family;            /* AF_INET or AF_INET6 for an address; 0: a name */
	unsigned char addr[16];
	int port;              /* 0: 80 and 443 */
};

/* Reads one pattern: 0, or -1 with why (one line: what is wrong). */
int egress_pat_parse(const char *s, struct egress_pat *p, char *why, size_t whylen);
/* The pattern written back in its one form, as labels and logs hold it. */
void egress_pat_format(const struct egress_pat *p, char *out, size_t cap);

/* Whether host (a name as a request gives it: any case, a trailing dot,
 * an address in brackets) and port are on the list, as a name or as an
 * address literal. */
bool egress_allows_host(const struct egress_pat *v, size_t n, const char *host, int port);
/* Whether the address (family, its 4 or 16 bytes) and port are on the
 * list as an address. */
bool egress_allows_addr(const struct egress_pat *v, size_t n, int family,
			const unsigned char *addr, int port);
/* Why the address is never reached unless listed ("loopback",
 * "private", "link-local", ...), NULL for one that may be. An IPv6 one
 * that carries an IPv4 one (mapped, NAT64, 6to4) is judged by it. */
const char *egress_addr_refusal(int family, const unsigned char *addr);
/* Whether s is an address literal (dotted IPv4 or IPv6, brackets
 * allowed): its family, and its bytes into addr; 0 for a name. */
int egress_literal(const char *s, unsigned char addr[16]);

/* A request head, as the proxy reads it. */
enum egress_kind { EGRESS_CONNECT, EGRESS_HTTP };
struct egress_req {
	enum egress_kind kind;
	char host[256];        /* as the target gave it, lower case, no brackets */
	int port;
	size_t head_len;       /* the bytes of the head, its blank line too */
	struct sbuf fwd;       /* EGRESS_HTTP: the head to send on (origin form) */
};
/* What egress_head_parse found. */
enum egress_head {
	EGRESS_MORE = 0,       /* no end of head yet: read more */
	EGRESS_OK,
	EGRESS_BAD,            /* refused: status and why say how */
};
/* Reads buf[0..len) as a request head. EGRESS_OK fills r (free with
 * egress_req_free); EGRESS_BAD sets *status (400, 405, 431, 501) and
 * why. A head of EGRESS_HEAD_MAX bytes with no end is EGRESS_BAD. */
enum egress_head egress_head_parse(const char *buf, size_t len, struct egress_req *r,
				   int *status, char *why, size_t whylen);
void egress_req_free(struct egress_req *r);

/* What a tunnel's first bytes from the client say of TLS: a ClientHello
 * names the server it wants (SNI); a tunnel to a listed name that asks
 * for another is refused, so that a CDN's other sites stay out. */
enum egress_tls {
	EGRESS_TLS_MORE = 0,   /* a ClientHello, not whole yet */
	EGRESS_TLS_NOT,        /* not TLS: the bytes go on as they are */
	EGRESS_TLS_NO_NAME,    /* a ClientHello that names no server */
	EGRESS_TLS_NAME,       /* one that names name */
	EGRESS_TLS_BAD,        /* a broken one, or longer than EGRESS_TLS_MAX */
};
/* The longest ClientHello read, its records' headers in: two full
 * records. */
#define EGRESS_TLS_MAX (2 * (16384 + 5))
/* Reads buf[0..len) as the start of a TLS stream; EGRESS_TLS_NAME puts
 * the name, lower case, without a trailing dot, into name (256). */
enum egress_tls egress_tls_name(const unsigned char *buf, size_t len, char name[256]);

#endif
