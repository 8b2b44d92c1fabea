/* fuzz_egress.c: a libFuzzer target for the proxy's reading of request
 * heads and patterns (src/codec/egress.c): the head comes from the
 * workspace, as it likes.
 *
 * The input is read as a head whole and, cut at every 7th byte, as a
 * prefix. It aborts when a prefix of a head read OK is anything but
 * "more" or OK, when OK claims more bytes than it was given, when the
 * head sent on is not one line of origin form and header lines ending
 * in one blank line with no control character, or when the host read
 * is not allowed by a pattern made of itself. The first line of the
 * input is also read as a pattern: one taken must be written back in a
 * form that reads as itself. The input is also read as a tunnel's first
 * bytes: a server name found must be a name, in its one form. */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

#include "egress.h"
#include "fuzz.h"

static void check_fwd(const struct egress_req *r)
{
	const char *f = r->fwd.buf;
	size_t n = r->fwd.len;
	CHECK(f && n >= 4 && memcmp(f + n - 4, "\r\n\r\n", 4) == 0);
	const char *sp = memchr(f, ' ', n);
	CHECK(sp && sp[1] == '/');
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)f[i];
		if (c == '\r')
			CHECK(i + 1 < n && f[i + 1] == '\n');
		else if (c == '\n')
			CHECK(i > 0 && f[i - 1] == '\r');
		else
			CHECK(c >= 0x20 || c == '\t');
	}
	CHECK(strstr(f, "\r\n\r\n") == f + n - 4);
}

static void check_pattern(const uint8_t *data, size_t size)
{
	const uint8_t *nl = memchr(data, '\n', size);
	size_t n = nl ? (size_t)(nl - data) : size;
	if (n > EGRESS_PATTERN_MAX + 8)
		return;
	char s[EGRESS_PATTERN_MAX + 9], out[EGRESS_PATTERN_MAX + 16], why[200];
	memcpy(s, data, n);
	s[n] = '\0';
	struct egress_pat p, q;
	if (strlen(s) != n || egress_pat_parse(s, &p, why, sizeof(why)) < 0)
		return;
	egress_pat_format(&p, out, sizeof(out));
	CHECK(egress_pat_parse(out, &q, why, sizeof(why)) == 0);
	CHECK(strcmp(p.host, q.host) == 0 && p.port == q.port && p.wild == q.wild && p.family == q.family);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	struct egress_req r;
	int status;
	char why[200];
	check_pattern(data, size);
	char sni[256];
	if (egress_tls_name(data, size, sni) == EGRESS_TLS_NAME) {
		struct egress_pat sp;
		char w[200];
		CHECK(egress_pat_parse(sni, &sp, w, sizeof(w)) == 0 && strcmp(sp.host, sni) == 0);
	}
	enum egress_head h = egress_head_parse(buf, size, &r, &status, why, sizeof(why));
	if (h == EGRESS_BAD)
		CHECK(status >= 400 && status < 600 && why[0]);
	if (h != EGRESS_OK) {
		egress_req_free(&r);
		return 0;
	}
	CHECK(r.head_len <= size && r.head_len <= EGRESS_HEAD_MAX);
	CHECK(r.host[0] && r.port >= 1 && r.port <= 65535);
	if (r.kind == EGRESS_HTTP)
		check_fwd(&r);
	struct egress_pat p;
	char pat[300];
	unsigned char a[16];
	int fam = egress_literal(r.host, a);
	snprintf(pat, sizeof(pat), "%s%s%s:%d", fam == AF_INET6 ? "[" : "", r.host,
		 fam == AF_INET6 ? "]" : "", r.port);
	CHECK(egress_pat_parse(pat, &p, why, sizeof(why)) == 0);
	CHECK(egress_allows_host(&p, 1, r.host, r.port));
	size_t head_len = r.head_len;
	egress_req_free(&r);
	for (size_t k = 0; k < head_len; k += 7) {
		struct egress_req q;
		enum egress_head g = egress_head_parse(buf, k, &q, &status, why, sizeof(why));
		CHECK(g == EGRESS_MORE);
		egress_req_free(&q);
	}
	return 0;
}
