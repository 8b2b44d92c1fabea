/* fuzz_rx.c: a libFuzzer target for `sandbox grep`'s matcher (src/codec/rx.c),
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
 * rx does more work than its bound says.
 *
 * glibc is asked in a child process, which is killed when it takes
 * over FZ_GLIBC_MS: its regcomp is neither linear nor always quick (see
 * fz_glibc_nodes), and an input it cannot compile in time is not
 * compared. Nor are patterns over rx's caps (RX_EBIG, RX_EDEEP), and
 * lines over FZ_LINE_MAX bytes (glibc's regexec is quadratic). */
#include <errno.h>
#include <poll.h>
#include <regex.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fuzz.h"
#include "rx.h"
#include "util.h"

#define FZ_PATTERN_MAX 1024
#define FZ_LINE_MAX 512

/* glibc's regcomp is not linear either: it writes x+ as x x* and
 * x{m,n} as n copies of x, so that each '+' of "a+++...+" doubles the
 * tree (24 of them take 12 GB); it builds epsilon closures in time and
 * memory quadratic in the tree, so that "(a?){5000}" takes 200 MB; and
 * its time grows fast, at times exponentially, with repeats of repeats:
 * "a*{1,22}*{1,22}" takes seconds, "(a|||(b)b){12}+" 14 s where {8}
 * takes 0.07 s, "\ba+*+*+*+*+*+*" minutes. The time is bounded by
 * FZ_GLIBC_MS; the memory by asking only about patterns whose tree, by
 * a rough upper bound of its size read here (brackets are not
 * understood, which only makes it larger), has at most FZ_GLIBC_NODES
 * nodes, and whose repeats nest at most FZ_GLIBC_NEST deep. */
#define FZ_GLIBC_NODES 4000
#define FZ_GLIBC_NEST 4
#define FZ_GLIBC_MS 2000
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

/* ---- glibc, in a child process ----
 * A request: the REG_ICASE flag, the pattern, and the lines, each a
 * length then its bytes. The answer: regcomp's code, then for each line
 * whether regexec (REG_STARTEND) matches it. */

struct fz_oracle {
	pid_t pid;
	int to, from;
};

static struct fz_oracle oracle = {-1, -1, -1};

/* Reads n bytes; false at the end of the input, or when none came for
 * timeout_ms (unless it is -1). */
static bool fz_read_all(int fd, void *buf, size_t n, int timeout_ms)
{
	char *p = buf;
	while (n > 0) {
		struct pollfd pfd = {fd, POLLIN, 0};
		if (timeout_ms >= 0 && poll(&pfd, 1, timeout_ms) <= 0)
			return false;
		ssize_t r = read(fd, p, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return false;
		p += r;
		n -= (size_t)r;
	}
	return true;
}

static bool fz_write_all(int fd, const void *buf, size_t n)
{
	const char *p = buf;
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		p += w;
		n -= (size_t)w;
	}
	return true;
}

/* The child: answers requests until its input ends. */
static void fz_oracle_serve(int in, int out)
{
	uint32_t head[2], n;
	while (fz_read_all(in, head, sizeof(head), -1)) {
		char *pattern = xmalloc(head[1] + 1);
		regex_t re;
		if (!fz_read_all(in, pattern, head[1], -1) || !fz_read_all(in, &n, sizeof(n), -1))
			_exit(1);
		pattern[head[1]] = '\0';
		int32_t rc = regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB | (head[0] ? REG_ICASE : 0));
		struct sbuf answer = {0};
		sbuf_add(&answer, &rc, sizeof(rc));
		for (uint32_t i = 0; i < n; i++) {
			uint32_t len;
			if (!fz_read_all(in, &len, sizeof(len), -1))
				_exit(1);
			/* ASan's regexec reads up to a NUL, REG_STARTEND or
			 * not: one goes after the line. */
			char *line = xmalloc(len + 1);
			if (!fz_read_all(in, line, len, -1))
				_exit(1);
			line[len] = '\0';
			regmatch_t m[1] = {{0, (regoff_t)len}};
			sbuf_addc(&answer, rc == 0 && regexec(&re, line, 1, m, REG_STARTEND) == 0);
			free(line);
		}
		if (rc == 0)
			regfree(&re);
		free(pattern);
		if (!fz_write_all(out, answer.buf, answer.len))
			_exit(1);
		sbuf_free(&answer);
	}
	_exit(0);
}

/* Kills the child that took too long. One that died of itself is a bug
 * here, or glibc running out of memory: a crash either way. */
static void fz_oracle_stop(void)
{
	int status;
	bool dead = waitpid(oracle.pid, &status, WNOHANG) == oracle.pid;
	if (dead) {
		fprintf(stderr, "glibc's process died: status %d\n", status);
		abort();
	}
	kill(oracle.pid, SIGKILL);
	close(oracle.to);
	close(oracle.from);
	waitpid(oracle.pid, NULL, 0);
	oracle.pid = -1;
}

static bool fz_oracle_start(void)
{
	int to[2], from[2];
	signal(SIGPIPE, SIG_IGN); /* a child killed is an answer not had */
	if (pipe(to) < 0 || pipe(from) < 0)
		abort();
	pid_t pid = fork();
	if (pid < 0)
		abort();
	if (pid == 0) {
		close(to[1]);
		close(from[0]);
		fz_oracle_serve(to[0], from[1]);
	}
	close(to[0]);
	close(from[1]);
	oracle = (struct fz_oracle){pid, to[1], from[0]};
	return true;
}

/* glibc's code for pattern and, when it took it, its answers for the
 * lines; false when it did not answer within FZ_GLIBC_MS. */
static bool fz_glibc(const char *pattern, bool icase, const char *const *lines,
		     const size_t *lens, uint32_t n, int32_t *rc, bool *answers)
{
	struct sbuf req = {0};
	uint32_t head[2] = {icase, (uint32_t)strlen(pattern)};
	sbuf_add(&req, head, sizeof(head));
	sbuf_add(&req, pattern, head[1]);
	sbuf_add(&req, &n, sizeof(n));
	for (uint32_t i = 0; i < n; i++) {
		uint32_t len = (uint32_t)lens[i];
		sbuf_add(&req, &len, sizeof(len));
		sbuf_add(&req, lines[i], len);
	}
	if (oracle.pid < 0)
		fz_oracle_start();
	bool ok = fz_write_all(oracle.to, req.buf, req.len) &&
		  fz_read_all(oracle.from, rc, sizeof(*rc), FZ_GLIBC_MS);
	for (uint32_t i = 0; ok && i < n; i++) {
		char c;
		ok = fz_read_all(oracle.from, &c, 1, FZ_GLIBC_MS);
		answers[i] = c;
	}
	sbuf_free(&req);
	if (!ok)
		fz_oracle_stop(); /* a fresh one next time */
	return ok;
}

/* ---- the checks ---- */

/* rx's verdict on the pattern agrees with glibc's code. True if both
 * took it: then rx[0..3) are its three variants. */
static bool fz_rx_compile(const char *pattern, bool icase, int32_t rc, struct rx *rx[3])
{
	static const int variants[3] = {0, RX_NO_PREFILTER, RX_NO_CACHE | RX_NO_PREFILTER};
	int flags = icase ? RX_ICASE : 0, code = 0;
	char msg[256] = "";
	enum rx_status st = rx_compile(pattern, flags, &rx[0], &code, msg, sizeof(msg));
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
		return false;
	}
	if (st != RX_OK) {
		fprintf(stderr, "glibc takes it, rx says %d (code %d: %s)\n", st, code, msg);
		abort();
	}
	for (int i = 1; i < 3; i++)
		CHECK(rx_compile(pattern, flags | variants[i], &rx[i], NULL, NULL, 0) == RX_OK);
	return true;
}

static void fz_rx_line(struct rx *rx[3], const char *s, size_t n, bool want)
{
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

/* The lines of s[0..n), cut at each newline, up to FZ_LINE_MAX bytes. */
static uint32_t fz_lines(const char *s, size_t n, const char **lines, size_t *lens)
{
	uint32_t k = 0;
	for (const char *end = s + n;;) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t len = nl ? (size_t)(nl - s) : (size_t)(end - s);
		if (len <= FZ_LINE_MAX) {
			lines[k] = s;
			lens[k++] = len;
		}
		if (!nl)
			return k;
		s = nl + 1;
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
	struct rx *rx[3] = {NULL, NULL, NULL};
	char msg[256];
	enum rx_status st = rx_compile(pattern, icase ? RX_ICASE : 0, &rx[0], NULL, msg, sizeof(msg));
	rx_free(rx[0]);
	rx[0] = NULL;
	if (st == RX_EBIG || st == RX_EDEEP) {
		CHECK(msg[0] != '\0');
	} else if (fz_glibc_nodes(pattern) <= FZ_GLIBC_NODES) {
		const char *s = nul ? nul + 1 : in + len;
		size_t n = (size_t)(in + len - s);
		const char **lines = xmalloc((n + 1) * sizeof(*lines));
		size_t *lens = xmalloc((n + 1) * sizeof(*lens));
		bool *answers = xmalloc(n + 1);
		uint32_t k = fz_lines(s, n, lines, lens);
		int32_t rc;
		if (fz_glibc(pattern, icase, lines, lens, k, &rc, answers) &&
		    fz_rx_compile(pattern, icase, rc, rx))
			for (uint32_t i = 0; i < k; i++)
				fz_rx_line(rx, lines[i], lens[i], answers[i]);
		free(lines);
		free(lens);
		free(answers);
	}
	for (int i = 0; i < 3; i++)
		rx_free(rx[i]);
	free(pattern);
	return 0;
}
