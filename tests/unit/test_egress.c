/* test_egress.c: the allow-list's patterns, matching and refused
 * addresses against tables written from the man page (NETWORK BY
 * ALLOW-LIST) and RFC 6890's special-purpose registries; the proxy's
 * reading of request heads: each good head read whole, and as every
 * prefix of it (more is wanted until its end), and the bad ones refused
 * with the status the man page gives. */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "egress.h"
#include "slurp.h"
#include "tap.h"

static const struct {
	const char *in, *out; /* out NULL: refused */
} pats[] = {
	{"pypi.org", "pypi.org"},
	{"PyPI.Org.", "pypi.org"},
	{"*.npmjs.org", "*.npmjs.org"},
	{"github.com:22", "github.com:22"},
	{"10.0.0.5", "10.0.0.5"},
	{"10.0.0.5:8080", "10.0.0.5:8080"},
	{"[fd00::1]", "[fd00::1]"},
	{"[FD00:0::1]:443", "[fd00::1]:443"},
	{"a_b.example", "a_b.example"},
	{"localhost", "localhost"},
	{"", NULL}, {"*", NULL}, {"*.", NULL}, {"*.*.x", NULL}, {"a.*.x", NULL},
	{"fd00::1", NULL}, {"[10.0.0.1]", NULL}, {"*.10.0.0.1", NULL},
	{"x:0", NULL}, {"x:65536", NULL}, {"x:", NULL}, {"x:8a", NULL},
	{"-x.org", NULL}, {"x-.org", NULL}, {"a..b", NULL}, {".a", NULL},
	{"1.2.3", NULL}, {"010.0.0.1", NULL}, {"a b", NULL}, {"a/b", NULL},
	{"http://x", NULL}, {"[fd00::1", NULL}, {"[fd00::1]x", NULL},
	{"x\n.org", NULL}, {"user@x.org", NULL},
};

static void test_patterns(void)
{
	for (size_t i = 0; i < ARRAY_LEN(pats); i++) {
		struct egress_pat p;
		char why[200], out[400];
		int rc = egress_pat_parse(pats[i].in, &p, why, sizeof(why));
		if (!pats[i].out) {
			ok(rc < 0 && why[0], "pattern '%s' refused (%s)", pats[i].in, rc < 0 ? why : "taken");
			continue;
		}
		egress_pat_format(&p, out, sizeof(out));
		ok(rc == 0 && strcmp(out, pats[i].out) == 0, "pattern '%s' is %s (got %s)", pats[i].in,
		   pats[i].out, rc == 0 ? out : why);
	}
	char longname[400];
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	struct egress_pat p;
	char why[200];
	ok(egress_pat_parse(longname, &p, why, sizeof(why)) < 0, "a 399-byte pattern is refused");
	memset(longname, 'a', 64);
	strcpy(longname + 64, ".org");
	ok(egress_pat_parse(longname, &p, why, sizeof(why)) < 0, "a 64-byte label is refused");
}

static void test_matching(void)
{
	const char *list[] = {"pypi.org", "*.npmjs.org", "github.com:22", "10.0.0.5", "[fd00::7]:8443"};
	struct egress_pat v[ARRAY_LEN(list)];
	char why[200];
	for (size_t i = 0; i < ARRAY_LEN(list); i++)
		if (egress_pat_parse(list[i], &v[i], why, sizeof(why)) < 0)
			diag("bad pattern %s", list[i]);
	size_t n = ARRAY_LEN(list);
	static const struct {
		const char *host;
		int port;
		bool yes;
	} cases[] = {
		{"pypi.org", 443, true}, {"pypi.org", 80, true}, {"PYPI.ORG.", 443, true},
		{"pypi.org", 8080, false}, {"files.pypi.org", 443, false}, {"pypi.org.evil", 443, false},
		{"xpypi.org", 443, false}, {"registry.npmjs.org", 443, true}, {"a.b.npmjs.org", 80, true},
		{"npmjs.org", 443, false}, {"evilnpmjs.org", 443, false}, {"github.com", 22, true},
		{"github.com", 443, false}, {"10.0.0.5", 80, true}, {"10.0.0.5", 22, false},
		{"[fd00::7]", 8443, true}, {"fd00::7", 8443, true}, {"[fd00::7]", 443, false},
		{"10.0.0.6", 80, false}, {"", 80, false}, {"pypi.org\n", 443, false},
	};
	for (size_t i = 0; i < ARRAY_LEN(cases); i++)
		ok(egress_allows_host(v, n, cases[i].host, cases[i].port) == cases[i].yes, "%s:%d %s",
		   cases[i].host, cases[i].port, cases[i].yes ? "allowed" : "refused");
	unsigned char a[16];
	inet_pton(AF_INET, "10.0.0.5", a);
	ok(egress_allows_addr(v, n, AF_INET, a, 443), "10.0.0.5:443 listed as an address");
	inet_pton(AF_INET, "10.0.0.4", a);
	ok(!egress_allows_addr(v, n, AF_INET, a, 443), "10.0.0.4 is not");
}

static void test_addresses(void)
{
	static const struct {
		const char *addr;
		bool refused;
	} cases[] = {
		{"127.0.0.1", true}, {"127.255.0.9", true}, {"10.1.2.3", true}, {"172.16.0.1", true},
		{"172.31.255.255", true}, {"172.32.0.1", false}, {"192.168.1.1", true},
		{"169.254.169.254", true}, {"100.64.0.1", true}, {"100.128.0.1", false},
		{"0.0.0.0", true}, {"224.0.0.1", true}, {"255.255.255.255", true}, {"192.0.2.1", true},
		{"198.18.0.1", true}, {"198.20.0.1", false}, {"8.8.8.8", false}, {"151.101.0.223", false},
		{"::", true}, {"::1", true}, {"::ffff:127.0.0.1", true}, {"::ffff:8.8.8.8", false},
		{"64:ff9b::a9fe:a9fe", true}, {"64:ff9b::808:808", false}, {"2002:7f00:1::", true},
		{"2002:808:808::", false}, {"fd00::1", true}, {"fd00:ec2::254", true}, {"fc00::1", true},
		{"fe80::1", true}, {"febf::1", true}, {"fec0::1", true}, {"ff02::1", true},
		{"2001:db8::1", true}, {"2001::1", true}, {"::127.0.0.1", true}, {"100::1", true},
		{"64:ff9b:1::a9fe:a9fe", true}, {"64:ff9b:1:ffff::1", true},
		{"2606:4700::6810:84e5", false}, {"2a00:1450:4001::200e", false},
	};
	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		unsigned char a[16];
		int fam = strchr(cases[i].addr, ':') ? AF_INET6 : AF_INET;
		inet_pton(fam, cases[i].addr, a);
		const char *why = egress_addr_refusal(fam, a);
		ok((why != NULL) == cases[i].refused, "%s %s (%s)", cases[i].addr,
		   cases[i].refused ? "refused" : "reached", why ? why : "public");
	}
}

/* A good head, read whole and in every prefix. */
static void good(const char *head, enum egress_kind kind, const char *host, int port,
		 const char *fwd)
{
	size_t n = strlen(head);
	struct egress_req r;
	int status;
	char why[200];
	bool more = true;
	for (size_t k = 0; k < n && more; k++) {
		more = egress_head_parse(head, k, &r, &status, why, sizeof(why)) == EGRESS_MORE;
		egress_req_free(&r);
	}
	ok(more, "every prefix of a head wants more");
	enum egress_head h = egress_head_parse(head, n, &r, &status, why, sizeof(why));
	ok(h == EGRESS_OK && r.kind == kind && strcmp(r.host, host) == 0 && r.port == port &&
	   r.head_len == n, "read: %s:%d (%s)", host, port, h == EGRESS_OK ? r.host : why);
	if (fwd)
		is_str(r.fwd.buf ? r.fwd.buf : "", fwd, "sent on as");
	egress_req_free(&r);
}

static void refused(const char *head, int want)
{
	struct egress_req r;
	int status;
	char why[200];
	enum egress_head h = egress_head_parse(head, strlen(head), &r, &status, why, sizeof(why));
	ok(h == EGRESS_BAD && status == want && why[0], "refused with %d: %.40s (%s)", want, head, why);
	egress_req_free(&r);
}

static void test_heads(void)
{
	good("CONNECT pypi.org:443 HTTP/1.1\r\nHost: pypi.org:443\r\n\r\n", EGRESS_CONNECT, "pypi.org", 443, NULL);
	good("CONNECT [FD00::1]:22 HTTP/1.0\r\n\r\n", EGRESS_CONNECT, "fd00::1", 22, NULL);
	good("GET http://Pypi.org/simple/?q=1 HTTP/1.1\r\nHost: pypi.org\r\nProxy-Connection: keep-alive\r\n"
	     "User-Agent: x\r\nConnection: keep-alive\r\n\r\n", EGRESS_HTTP, "pypi.org", 80,
	     "GET /simple/?q=1 HTTP/1.1\r\nHost: pypi.org\r\nUser-Agent: x\r\nConnection: close\r\n\r\n");
	good("GET http://a.example:8080 HTTP/1.0\n\n", EGRESS_HTTP, "a.example", 8080,
	     "GET / HTTP/1.0\r\nHost: a.example:8080\r\nConnection: close\r\n\r\n");
	good("POST http://a.example?x HTTP/1.1\r\nhost: A.EXAMPLE:80\r\nContent-Length: 3\r\n\r\n",
	     EGRESS_HTTP, "a.example", 80,
	     "POST /?x HTTP/1.1\r\nhost: A.EXAMPLE:80\r\nContent-Length: 3\r\nConnection: close\r\n\r\n");
	good("GET http://[::1]:81/ HTTP/1.1\r\n\r\n", EGRESS_HTTP, "::1", 81,
	     "GET / HTTP/1.1\r\nHost: [::1]:81\r\nConnection: close\r\n\r\n");
	refused("GET / HTTP/1.1\r\nHost: pypi.org\r\n\r\n", 400);
	refused("GET https://pypi.org/ HTTP/1.1\r\n\r\n", 400);
	refused("GET http://pypi.org/ HTTP/1.1\r\nHost: evil.org\r\n\r\n", 400);
	refused("GET http://pypi.org/ HTTP/1.1\r\nHost: pypi.org:8080\r\n\r\n", 400);
	refused("GET http://pypi.org/ HTTP/1.1\r\nHost: pypi.org\r\nHost: pypi.org\r\n\r\n", 400);
	refused("GET http://u:p@pypi.org/ HTTP/1.1\r\n\r\n", 400);
	refused("GET http://pypi.org/#x HTTP/1.1\r\n\r\n", 400);
	refused("GET http://pypi.org/ HTTP/2\r\n\r\n", 400);
	refused("GET  http://pypi.org/ HTTP/1.1\r\n\r\n", 400);
	refused("GET http://pypi.org/ HTTP/1.1\r\n folded\r\n\r\n", 400);
	refused("GET http://pypi.org/ HTTP/1.1\r\nX\r\n\r\n", 400);
	refused("GET http://pypi.org/ HTTP/1.1\r\nX-A\rB: 1\r\n\r\n", 400);
	refused("CONNECT pypi.org HTTP/1.1\r\n\r\n", 400);
	refused("CONNECT pypi.org:0 HTTP/1.1\r\n\r\n", 400);
	refused("CONNECT fd00::1:443 HTTP/1.1\r\n\r\n", 400);
	refused("\r\nGET http://a/ HTTP/1.1\r\n\r\n", 400);
	refused("G(T http://a/ HTTP/1.1\r\n\r\n", 400);
	refused("\x16\x03\x01\x02\x05\x01\xfc\x03\x03\n\n", 400);
	char *big = malloc(EGRESS_HEAD_MAX + 10);
	memset(big, 'a', EGRESS_HEAD_MAX + 9);
	big[EGRESS_HEAD_MAX + 9] = '\0';
	refused(big, 431);
	free(big);
}

/* A real ClientHello (Python's ssl made them: tests/unit/golden/tls*),
 * whole, in every prefix, split into two records; bytes that are no TLS;
 * broken ones. */
static void tls_file(const char *path, enum egress_tls want, const char *name)
{
	size_t n;
	char *raw = slurp(path, &n);
	if (!raw) {
		ok(false, "read %s", path);
		return;
	}
	const unsigned char *b = (const unsigned char *)raw;
	char got[256] = "";
	bool more = true;
	for (size_t k = 0; k < n && more; k++)
		more = egress_tls_name(b, k, got) == EGRESS_TLS_MORE;
	ok(more, "%s: every prefix wants more", path);
	enum egress_tls t = egress_tls_name(b, n, got);
	ok(t == want && (!name || strcmp(got, name) == 0), "%s: %s (%d %s)", path, name ? name : "no name", t, got);
	/* The same handshake in two records, cut after its 50th byte. */
	size_t hl = n - 5, cut = 50;
	unsigned char *two = malloc(n + 5);
	memcpy(two, b, 5 + cut);
	two[3] = (unsigned char)(cut >> 8), two[4] = (unsigned char)cut;
	memcpy(two + 5 + cut, b, 5);
	two[5 + cut + 3] = (unsigned char)((hl - cut) >> 8), two[5 + cut + 4] = (unsigned char)(hl - cut);
	memcpy(two + 10 + cut, b + 5 + cut, hl - cut);
	t = egress_tls_name(two, n + 5, got);
	ok(t == want && (!name || strcmp(got, name) == 0), "%s in two records: the same", path);
	/* A length that claims more than there is, in the handshake. */
	memcpy(two, b, n);
	two[5 + 1] = 0x7f;
	ok(egress_tls_name(two, n, got) == EGRESS_TLS_BAD, "%s with a handshake too long: bad", path);
	free(two);
	free(raw);
}

static void test_tls(void)
{
	tls_file("tests/unit/golden/tls-pypi.bin", EGRESS_TLS_NAME, "pypi.org");
	tls_file("tests/unit/golden/tls-upper.bin", EGRESS_TLS_NAME, "files.example.com");
	tls_file("tests/unit/golden/tls12.bin", EGRESS_TLS_NAME, "a.example");
	tls_file("tests/unit/golden/tls-noname.bin", EGRESS_TLS_NO_NAME, NULL);
	char got[256];
	ok(egress_tls_name((const unsigned char *)"SSH-2.0-x\r\n", 11, got) == EGRESS_TLS_NOT, "ssh: not TLS");
	ok(egress_tls_name((const unsigned char *)"\x16\x03\x01\x00\x00", 5, got) == EGRESS_TLS_BAD,
	   "an empty record: bad");
	ok(egress_tls_name((const unsigned char *)"\x16\x03\x01\x00\x04\x02\x00\x00\x00", 9, got) ==
	   EGRESS_TLS_BAD, "a first handshake that is no ClientHello: bad");
	static unsigned char big[EGRESS_TLS_MAX + 20] = {0x16, 3, 1, 0x40, 0x00, 0x01, 0x7f, 0xff, 0xff};
	ok(egress_tls_name(big, sizeof(big), got) == EGRESS_TLS_BAD, "a ClientHello past EGRESS_TLS_MAX: bad");
	big[6] = 0x00, big[7] = 0x80, big[8] = 0x00;   /* a ClientHello of 32 KiB */
	ok(egress_tls_name(big, 16389, got) == EGRESS_TLS_MORE, "a first record of 16 KiB, whole: more wanted");
}

int main(void)
{
	test_tls();
	test_patterns();
	test_matching();
	test_addresses();
	test_heads();
	return done_testing();
}
