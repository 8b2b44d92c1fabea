/* fuzz_rx.c: a libFuzzer target for `sandbox grep`'s matcher (src/rx.c),
 * held to glibc's regcomp and regexec, whose syntax and answers it
 * promises.
 *
 * `make fuzz` builds it as build/fuzz/fuzz_rx; to run it longer than
 * `make fuzz-check` does:
 *   build/fuzz/fuzz_rx -max_total_time=600 -timeout=10 build/fuzz/corpus_rx tests/fuzz/corpus_rx
 *
 * An input is a flags byte (bit 0: REG_ICASE), the pattern, a NUL byte,
 * then the subject (no NUL: the subject is empty), cut at each newline
 * into lines matched one after another with the same compiled pattern,
 * so that the DFA states one line built serve the next. A line may hold
 * NUL bytes: glibc reads them too, with REG_STARTEND. The seeds
 * (tests/fuzz/corpus_rx) were written by hand with printf: every
 * construct of rx.h and of the man page, the quirks of glibc found by
 * experiment, errors of each kind, and patterns that make a
 * backtracking matcher, or glibc's, take long.
 *
 * It aborts when glibc and rx differ: on whether the pattern is valid,
 * on glibc's error code, or on whether a line matches, with and without
 * the prefilter and the DFA (but where glibc may lose an assertion, see
 * rx_copied_assert(), only when rx matches and glibc does not); or when
 * rx does more work than its bound says. Not compared: patterns over rx's caps (RX_EBIG, RX_EDEEP) and
 * those glibc would take long to compile (see fz_glibc_nodes), and
 * lines over FZ_LINE_MAX bytes (glibc's regexec takes quadratic time). */
#include <regex.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "fuzz.h"
#include "rx.h"
#include "util.h"

#define FZ_PATTERN_MAX 1024
#define FZ_LINE_MAX 512

/* glibc's regcomp is not linear either: it writes x+ as x x* and
 * x{m,n} as n copies of x, so that each '+' of "a+++...+" doubles the
 * tree (24 of them take 12 GB); it builds epsilon closures in time and
 * memory quadratic in the tree, so that "(a?){5000}" takes 200 MB; and
 * its time grows fast with how deep repeats nest: "a*{1,22}*{1,22}"
 * takes seconds, "\ba+*+*+*+*+*+*" minutes. glibc is only asked about
 * patterns whose tree, by a rough upper bound of its size read here
 * (brackets are not understood, which only makes it larger), has at
 * most FZ_GLIBC_NODES nodes, and whose repeats nest at most
 * FZ_GLIBC_NEST deep. */
#define FZ_GLIBC_NODES 4000
#define FZ_GLIBC_NEST 3
#define FZ_SAT(n) ((n) > 1000000 ? 1000000 : (n))

struct fz_level {
	size_t alts, cat, last;
	int nest, last_nest; /* repeats in one another: deepest, and in the last atom */
};

/* An interval "{m}", "{m,}", "{,n}" or "{m,n}" at p: its largest
 * count, and its length in *len; 0 if it is not one. */
static size_t fz_interval(const char *p, size_t *len)
{
	size_t i = 1, m = 0, n = 0;
	bool comma = false, digits = false;
	for (; p[i] && p[i] != '}'; i++) {
		if (p[i] == ',' && !comma) {
			comma = true;
		} else if (p[i] >= '0' && p[i] <= '9') {
			size_t *v = comma ? &n : &m;
			*v = FZ_SAT(*v * 10 + (size_t)(p[i] - '0'));
			digits = true;
		} else {
			return 0;
		}
	}
	if (p[i] != '}' || !digits)
		return 0;
	*len = i + 1;
	return comma && n == 0 ? m + 1 : (n > m ? n : m);
}

static size_t fz_glibc_nodes(const char *p)
{
	struct fz_level st[64], *top = st;
	memset(top, 0, sizeof(*top));
	for (; *p; p++) {
		size_t k = 0, len = 1;
		if (*p == '(' && top < st + 63) {
			memset(++top, 0, sizeof(*top));
		} else if (*p == ')' && top > st) {
			size_t g = FZ_SAT(top->alts + top->cat + 1);
			int nest = top->nest;
			top--;
			top->cat = FZ_SAT(top->cat + g);
			top->last = g;
			top->last_nest = nest;
		} else if (*p == '|') {
			top->alts = FZ_SAT(top->alts + top->cat + 1);
			top->cat = top->last = 0;
			top->last_nest = 0;
		} else if (*p == '*' || *p == '?' || *p == '+' ||
			   (*p == '{' && (k = fz_interval(p, &len)) > 0)) {
			if (*p != '{') {
				k = *p == '+' ? 2 : 1;
				len = 1;
			}
			top->cat = FZ_SAT(top->cat + k * top->last + k);
			top->last = FZ_SAT(k * top->last + k);
			top->last_nest++;
			p += len - 1;
		} else {
			p += p[0] == '\\' && p[1];
			top->cat = FZ_SAT(top->cat + 1);
			top->last = 1;
			top->last_nest = 0;
		}
		if (top->last_nest > top->nest)
			top->nest = top->last_nest;
		if (top->nest > FZ_GLIBC_NEST)
			return SIZE_MAX;
	}
	size_t total = top->alts + top->cat;
	while (top > st) {
		top--;
		total = FZ_SAT(total + top->alts + top->cat);
	}
	return total;
}

static bool fz_has_backref(const char *p)
{
	for (; *p; p++) {
		if (*p != '\\' || !p[1])
			continue;
		if (p[1] >= '1' && p[1] <= '9')
			return true;
		p++;
	}
	return false;
}

/* The compile: glibc's verdict and rx's agree. True if both took it. */
static bool fz_rx_compile(const char *pattern, bool icase, regex_t *re, struct rx *rx[3])
{
	static const int variants[3] = {0, RX_NO_PREFILTER, RX_NO_CACHE | RX_NO_PREFILTER};
	int flags = icase ? RX_ICASE : 0, code = 0;
	char msg[256] = "";
	enum rx_status st = rx_compile(pattern, flags, &rx[0], &code, msg, sizeof(msg));
	if (st == RX_EBIG || st == RX_EDEEP) {
		CHECK(rx[0] == NULL && msg[0] != '\0');
		return false;
	}
	if (fz_glibc_nodes(pattern) > FZ_GLIBC_NODES) {
		rx_free(rx[0]);
		rx[0] = NULL;
		return false;
	}
	int rc = regcomp(re, pattern, REG_EXTENDED | REG_NOSUB | (icase ? REG_ICASE : 0));
	if (rc != 0) {
		if (st != RX_EBAD || code != rc) {
			fprintf(stderr, "glibc refuses with %d, rx says %d (code %d: %s)\n", rc, st,
				code, msg);
			abort();
		}
		char want[256];
		regerror(rc, NULL, want, sizeof(want));
		CHECK(strcmp(want, msg) == 0);
		return false;
	}
	if (st == RX_EBACKREF) {
		CHECK(fz_has_backref(pattern));
	} else if (st != RX_OK) {
		fprintf(stderr, "glibc takes it, rx says %d (code %d: %s)\n", st, code, msg);
		abort();
	}
	if (st != RX_OK) {
		regfree(re);
		return false;
	}
	for (int i = 1; i < 3; i++)
		CHECK(rx_compile(pattern, flags | variants[i], &rx[i], NULL, NULL, 0) == RX_OK);
	return true;
}

static void fz_rx_line(regex_t *re, struct rx *rx[3], const char *s, size_t n)
{
	/* ASan's regexec reads up to a NUL, REG_STARTEND or not: a copy
	 * with one after, which xstrndup makes (it copies NUL bytes too). */
	char *z = xstrndup(s, n);
	regmatch_t m[1] = {{0, (regoff_t)n}};
	bool want = regexec(re, z, 1, m, REG_STARTEND) == 0;
	free(z);
	for (int i = 0; i < 3; i++) {
		unsigned long long before = rx_steps(rx[i]);
		bool got = rx_match(rx[i], s, n);
		/* Where glibc may lose an assertion (rx.h) it matches more. */
		if (rx_copied_assert(rx[i]) ? got && !want : got != want) {
			fprintf(stderr, "glibc says %d, rx (variant %d) %d, on %zu bytes\n", want, i,
				got, n);
			abort();
		}
		/* Linear: a closure per byte and one at the end, each at
		 * most the program's size. */
		CHECK(rx_steps(rx[i]) - before <= (n + 1) * (rx_size(rx[i]) + 1));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	bool icase = data[0] & 1;
	const char *in = (const char *)data + 1;
	size_t len = size - 1;
	const char *nul = memchr(in, 0, len);
	size_t plen = nul ? (size_t)(nul - in) : len;
	if (plen > FZ_PATTERN_MAX)
		return 0;
	char *pattern = xstrndup(in, plen);
	regex_t re;
	struct rx *rx[3] = {NULL, NULL, NULL};
	if (fz_rx_compile(pattern, icase, &re, rx)) {
		const char *s = nul ? nul + 1 : in + len, *end = in + len;
		for (;;) {
			const char *nl = memchr(s, '\n', (size_t)(end - s));
			size_t n = nl ? (size_t)(nl - s) : (size_t)(end - s);
			if (n <= FZ_LINE_MAX)
				fz_rx_line(&re, rx, s, n);
			if (!nl)
				break;
			s = nl + 1;
		}
		regfree(&re);
	}
	for (int i = 0; i < 3; i++)
		rx_free(rx[i]);
	free(pattern);
	return 0;
}
