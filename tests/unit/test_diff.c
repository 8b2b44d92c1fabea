/* test_diff.c: diff_unified against GNU `diff -U N --label L1 --label L2`
 * on hand-picked and generated inputs: the output must be the same,
 * byte for byte. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "diff.h"
#include "patch_apply.h"
#include "tap.h"
#include "util.h"

static char dir[] = "/tmp/test_diff.XXXXXX";

static int write_file(const char *path, const char *s, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	int rc = write_all(fd, s, n);
	close(fd);
	return rc;
}

/* What GNU diff prints for a against b, with labels L1 and L2. */
static int gnu_diff(const char *a, size_t alen, const char *b, size_t blen, int context,
		    struct sbuf *out)
{
	char *pa = xasprintf("%s/a", dir), *pb = xasprintf("%s/b", dir);
	char *uarg = xasprintf("-U%d", context);
	int rc = -1;
	int fds[2] = {-1, -1};
	if (write_file(pa, a, alen) < 0 || write_file(pb, b, blen) < 0 || pipe(fds) < 0)
		goto done;
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		dup2(fds[1], 1);
		close(fds[0]);
		close(fds[1]);
		char *argv[] = {"diff", uarg, "--label", "L1", "--label", "L2", "--", pa, pb, NULL};
		execvp("diff", argv);
		_exit(127);
	}
	close(fds[1]);
	sbuf_add(out, "", 0);
	char buf[8192];
	ssize_t r;
	while ((r = read(fds[0], buf, sizeof(buf))) > 0 || (r < 0 && errno == EINTR))
		if (r > 0)
			sbuf_add(out, buf, (size_t)r);
	close(fds[0]);
	int status;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	/* 0: same, 1: different; 2 is trouble. */
	rc = WIFEXITED(status) && WEXITSTATUS(status) < 2 ? 0 : -1;
done:
	free(pa);
	free(pb);
	free(uarg);
	return rc;
}

/* True if diff_unified prints what GNU diff does; shows both if not. */
static bool same_as_gnu(const char *a, size_t alen, const char *b, size_t blen, int context,
			bool quiet)
{
	struct sbuf want = {0}, got = {0};
	sbuf_add(&got, "", 0);
	bool ran = gnu_diff(a, alen, b, blen, context, &want) == 0;
	diff_unified(&got, "L1", "L2", a, alen, b, blen, context, NULL, NULL);
	bool same = ran && got.len == want.len && memcmp(got.buf, want.buf, got.len) == 0;
	if (!same && !quiet) {
		tap_diag_bytes("old", a, alen);
		tap_diag_bytes("new", b, blen);
		tap_diag_bytes("     got", got.buf, got.len);
		tap_diag_bytes("GNU diff", want.buf, want.len);
	}
	sbuf_free(&want);
	sbuf_free(&got);
	return same;
}

static void check(const char *a, const char *b, const char *title)
{
	ok(same_as_gnu(a, strlen(a), b, strlen(b), 3, false), "%s", title);
}

static void test_golden(void)
{
	struct sbuf out = {0};
	diff_unified(&out, "a/x", "b/x", "1\n2\n3\n", 6, "1\n2\n3\n", 6, 3, NULL, NULL);
	ok(out.len == 0, "identical inputs: no output at all");
	diff_unified(&out, "a/x", "b/x", "", 0, "", 0, 3, NULL, NULL);
	ok(out.len == 0, "two empty inputs: no output");
	diff_unified(&out, "old", "new", "a\nb\nc\n", 6, "a\nB\nc\n", 6, 3, NULL, NULL);
	is_str(out.buf, "--- old\n+++ new\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n",
	       "a replaced middle line, written out");
	sbuf_reset(&out);
	diff_unified(&out, "old", "new", "a\nb\nc\nd\ne\n", 10, "a\nb\nX\nd\ne\n", 10, 0, NULL, NULL);
	is_str(out.buf, "--- old\n+++ new\n@@ -3 +3 @@\n-c\n+X\n", "context 0: a count of 1 is left out");
	sbuf_reset(&out);
	diff_unified(&out, "old", "new", "a\nb\n", 4, "a\nx\nb\n", 6, 0, NULL, NULL);
	is_str(out.buf, "--- old\n+++ new\n@@ -1,0 +2 @@\n+x\n", "context 0: an empty range is 'line before,0'");
	sbuf_reset(&out);
	diff_unified(&out, "o", "n", "a", 1, "a\n", 2, 3, NULL, NULL);
	is_str(out.buf, "--- o\n+++ n\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+a\n",
	       "a newline added at the end");
	sbuf_reset(&out);
	diff_unified(&out, "o", "n", "x\n", 2, "y\n", 2, -5, NULL, NULL);
	is_str(out.buf, "--- o\n+++ n\n@@ -1 +1 @@\n-x\n+y\n", "a negative context counts as 0");
	sbuf_free(&out);
}

static void test_cases(void)
{
	check("", "a\n", "empty to one line");
	check("a\n", "", "one line to empty");
	check("", "a", "empty to one line without newline");
	check("a", "", "one line without newline to empty");
	check("a\nb\nc\n", "x\na\nb\nc\n", "insertion at start");
	check("a\nb\nc\n", "a\nx\nb\nc\n", "insertion in the middle");
	check("a\nb\nc\n", "a\nb\nc\nx\n", "insertion at end");
	check("a\nb\nc\n", "b\nc\n", "deletion at start");
	check("a\nb\nc\n", "a\nc\n", "deletion in the middle");
	check("a\nb\nc\n", "a\nb\n", "deletion at end");
	check("a\nb\nc\n", "x\nb\nc\n", "replacement at start");
	check("a\nb\nc\n", "a\nb\nx\n", "replacement at end");
	check("a\nb\nc", "a\nb\nc\n", "newline added at end");
	check("a\nb\nc\n", "a\nb\nc", "newline removed at end");
	check("a\nb\nc", "a\nb\nd", "last line changed, neither has a newline");
	check("a\nb\nc", "a\nx\nc", "middle changed, last line without newline is context");
	check("a\nb\nc", "a\nb\nc\nd", "line appended after a line without newline");
	check("1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n17\n18\n19\n20\n",
	      "1\n2\nX\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n17\nY\n19\n20\n",
	      "two distant changes: two hunks");
	check("1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n17\n18\n19\n20\n",
	      "1\n2\nX\n4\n5\n6\n7\n8\n9\nY\n11\n12\n13\n14\n15\n16\n17\n18\n19\n20\n",
	      "changes 6 lines apart: one hunk");
	check("1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n17\n18\n19\n20\n",
	      "1\n2\nX\n4\n5\n6\n7\n8\n9\n10\nY\n12\n13\n14\n15\n16\n17\n18\n19\n20\n",
	      "changes 7 lines apart: two hunks");
	check("a\r\nb\r\n", "a\nb\r\n", "CR is part of the line");
	check("a\n\n\nb\n", "a\n\nb\n", "blank lines");
	check("a\na\na\n", "a\na\n", "one of repeated lines removed");
	check("a\n", "a\na\na\n", "repeated lines added");
	check("p\nq\n", "q\np\n", "two lines swapped");
	check("x\ny\nx\ny\n", "y\nx\ny\nx\n", "alternating lines shifted");
	check("{\n}\n{\n}\n", "{\n}\n{\nnew\n}\n{\n}\n", "insertion between repeated braces");
	check("caf\xc3\xa9\n\xff\xfe\n", "caf\xc3\xa9\n\xfe\xff\n", "non-UTF-8 bytes");
	check("a\n", "\n", "a line becomes blank");
}

/* ---- generated ---- */

static unsigned long rng = 0x853c49e6748fea9bUL;

static unsigned long next_rand(void)
{
	rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
	return rng;
}

static int fresh;

/* A line from a small pool (repeats, like code's braces and blanks) or
 * a fresh one. */
static void add_line(struct strvec *v, unsigned pool)
{
	static const char *const common[] = {"", "}", "{", "return 0;", "\tbreak;", "x", "y", "z"};
	if (pool && next_rand() % 3 != 0)
		strvec_push(v, common[next_rand() % (pool < ARRAY_LEN(common) ? pool : ARRAY_LEN(common))]);
	else
		strvec_pushf(v, "line %d", fresh++);
}

static void join(const struct strvec *v, bool final_newline, struct sbuf *out)
{
	sbuf_reset(out);
	sbuf_add(out, "", 0);
	for (size_t i = 0; i < v->n; i++) {
		sbuf_adds(out, v->v[i]);
		if (i + 1 < v->n || final_newline)
			sbuf_addc(out, '\n');
	}
}

/* Random edits of a random file: inserts, deletions and replacements of
 * 1 to 4 lines, anywhere. */
static void make_case(unsigned pool, size_t lines, int edits, struct sbuf *a, struct sbuf *b)
{
	struct strvec va = {0}, vb = {0};
	for (size_t i = 0; i < lines; i++)
		add_line(&va, pool);
	strvec_push_all(&vb, va.v, va.n);
	for (int e = 0; e < edits; e++) {
		size_t at = vb.n ? next_rand() % (vb.n + 1) : 0, k = 1 + next_rand() % 4;
		int kind = (int)(next_rand() % 3);
		struct strvec nv = {0};
		strvec_push_all(&nv, vb.v, at);
		size_t skip = kind == 0 ? 0 : k; /* 0: insert, 1: delete, 2: replace */
		if (kind != 1)
			for (size_t i = 0; i < k; i++)
				add_line(&nv, pool);
		if (at + skip > vb.n)
			skip = vb.n - at;
		strvec_push_all(&nv, vb.v + at + skip, vb.n - at - skip);
		strvec_clear(&vb);
		vb = nv;
	}
	unsigned long nl = next_rand();
	join(&va, va.n == 0 || nl % 5 != 0, a);
	join(&vb, vb.n == 0 || (nl >> 8) % 5 != 0, b);
	strvec_clear(&va);
	strvec_clear(&vb);
}

static void test_generated(void)
{
	static const struct {
		unsigned pool;
		size_t lines;
		int edits, cases, context;
		const char *what;
	} kinds[] = {
		{0, 20, 1, 60, 3, "one edit, unique lines"},
		{0, 60, 4, 60, 3, "four edits, unique lines"},
		{3, 30, 2, 80, 3, "two edits, lines from a pool of 3"},
		{8, 50, 5, 80, 3, "five edits, pool of 8"},
		{2, 80, 10, 60, 3, "ten edits, pool of 2"},
		{5, 200, 20, 40, 3, "twenty edits in 200 lines, pool of 5"},
		{4, 40, 3, 40, 0, "context 0"},
		{4, 40, 3, 40, 1, "context 1"},
		{4, 60, 6, 40, 7, "context 7"},
		{6, 0, 3, 20, 3, "from an empty file"},
		{6, 5, 8, 20, 3, "many edits of a short file"},
	};
	for (size_t k = 0; k < ARRAY_LEN(kinds); k++) {
		int bad = 0;
		for (int i = 0; i < kinds[k].cases; i++) {
			struct sbuf a = {0}, b = {0};
			make_case(kinds[k].pool, kinds[k].lines, kinds[k].edits, &a, &b);
			if (!same_as_gnu(a.buf, a.len, b.buf, b.len, kinds[k].context, bad > 0))
				bad++;
			sbuf_free(&a);
			sbuf_free(&b);
		}
		is_int(bad, 0, "%d random cases, %s: same as GNU diff", kinds[k].cases, kinds[k].what);
	}
}

/* Many lines whose only matches are frequent ones, to exercise the
 * setting aside of "confusing" lines. */
static void test_frequent(void)
{
	int bad = 0, cases = 0;
	for (int round = 0; round < 60; round++) {
		struct sbuf a = {0}, b = {0};
		sbuf_add(&a, "", 0);
		sbuf_add(&b, "", 0);
		int n = 40 + (int)(next_rand() % 200);
		for (int i = 0; i < n; i++) {
			unsigned long r = next_rand();
			const char *s = r % 4 == 0 ? "" : r % 4 == 1 ? "}" : NULL;
			if (s)
				sbuf_addf(&a, "%s\n", s);
			else
				sbuf_addf(&a, "a%lu\n", (r >> 8) % 1000);
			r = next_rand();
			s = r % 4 == 0 ? "" : r % 4 == 1 ? "}" : NULL;
			if (s)
				sbuf_addf(&b, "%s\n", s);
			else
				sbuf_addf(&b, "b%lu\n", (r >> 8) % 1000);
		}
		cases++;
		if (!same_as_gnu(a.buf, a.len, b.buf, b.len, 3, bad > 0))
			bad++;
		sbuf_free(&a);
		sbuf_free(&b);
	}
	is_int(bad, 0, "%d files of frequent and unmatched lines: same as GNU diff", cases);
}

/* Whether the diff turns a into b, as patch(1) would apply it. */
static bool applies(const struct sbuf *a, const struct sbuf *diff, const struct sbuf *b)
{
	struct sbuf got = {0};
	bool yes = patch_apply(a->buf ? a->buf : "", a->len, diff->buf ? diff->buf : "", diff->len,
			       &got) &&
		   got.len == b->len && memcmp(got.buf, b->buf ? b->buf : "", b->len) == 0;
	sbuf_free(&got);
	return yes;
}

/* Past the exact search's cost limit: a replacement, quickly, and still
 * a diff that turns one text into the other. */
static void test_limit(void)
{
	struct sbuf a = {0}, b = {0}, out = {0};
	int n = 20000;
	sbuf_adds(&a, "same start\n");
	sbuf_adds(&b, "same start\n");
	for (int i = 0; i < n; i++) {
		sbuf_addf(&a, "%d\n", i);
		sbuf_addf(&b, "%d\n", n - 1 - i);
	}
	sbuf_adds(&a, "same end\n");
	sbuf_adds(&b, "same end\n");
	long long t0 = now_ms();
	diff_unified(&out, "L1", "L2", a.buf, a.len, b.buf, b.len, 3, NULL, NULL);
	long long ms = now_ms() - t0;
	ok(out.len > 0 && strstr(out.buf, "@@ -1,20002 +1,20002 @@\n same start\n-0\n"),
	   "20000 lines against their reverse: one replacement hunk (%lld ms)", ms);
	ok(applies(&a, &out, &b), "and it applies: old text plus hunks is the new text");
	sbuf_free(&a);
	sbuf_free(&b);
	sbuf_free(&out);

	/* Large, similar files take the exact path and match GNU diff. */
	for (int i = 0; i < 5000; i++) {
		sbuf_addf(&a, "row %d\n", i);
		sbuf_addf(&b, "row %d\n", i % 97 ? i : -i);
	}
	ok(same_as_gnu(a.buf, a.len, b.buf, b.len, 3, false), "5000 lines, 52 changes: same as GNU diff");
	diff_unified(&out, "L1", "L2", a.buf, a.len, b.buf, b.len, 3, NULL, NULL);
	ok(applies(&a, &out, &b), "and it applies");
	sbuf_free(&out);
	sbuf_free(&a);
	sbuf_free(&b);
}

/* The diff with limits: its kind, its text (appended to "keep:"), where
 * the texts differ. */
static enum diff_kind limited(const char *a, const char *b, int context, size_t lines,
			      size_t bytes, struct sbuf *out, struct diff_span *span)
{
	struct diff_limits lim = {lines, bytes};
	sbuf_reset(out);
	sbuf_adds(out, "keep:");
	return diff_unified(out, "o", "n", a, strlen(a), b, strlen(b), context, &lim, span);
}

static void test_one_hunk(void)
{
	struct sbuf out = {0};
	struct diff_span sp;
	const char *a = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n";
	const char *b = "1\n2\nX\n4\n5\n6\n7\nY\n9\n10\n";
	is_int(limited(a, b, 1, 100, 0, &out, &sp), DIFF_SHOWN, "within the lines limit: the exact diff");
	is_str(out.buf, "keep:--- o\n+++ n\n@@ -2,3 +2,3 @@\n 2\n-3\n+X\n 4\n@@ -7,3 +7,3 @@\n 7\n-8\n+Y\n 9\n",
	       "two hunks, appended to what out held");
	is_int(limited(a, b, 1, 2, 0, &out, &sp), DIFF_ONE_HUNK, "past the lines limit: one hunk");
	is_str(out.buf, "keep:--- o\n+++ n\n@@ -2,8 +2,8 @@\n 2\n-3\n-4\n-5\n-6\n-7\n-8\n+X\n+4\n+5\n+6\n+7\n+Y\n 9\n",
	       "it replaces every line from the first change to the last, context around");
	ok(sp.line == 3 && sp.old_lines == 6 && sp.new_lines == 6, "the span: from line 3, 6 lines became 6");

	is_int(limited("a\nb", "a\nc", 3, 0, 0, &out, &sp), DIFF_ONE_HUNK, "a lines limit of 0: always one hunk");
	is_str(out.buf, "keep:--- o\n+++ n\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n",
	       "one hunk keeps the marks of a last line without newline");
	is_int(limited("a\nb\n", "a\nx\nb\n", 0, 0, 0, &out, &sp), DIFF_ONE_HUNK, "an insertion");
	is_str(out.buf, "keep:--- o\n+++ n\n@@ -1,0 +2 @@\n+x\n", "one hunk names an empty range as diff -u does");
	ok(sp.line == 2 && sp.old_lines == 0 && sp.new_lines == 1, "the span of an insertion: line 2, 0 lines became 1");
	is_int(limited("a\nb\nc\n", "a\nc\n", 3, 0, 0, &out, &sp), DIFF_ONE_HUNK, "a deletion");
	is_str(out.buf, "keep:--- o\n+++ n\n@@ -1,3 +1,2 @@\n a\n-b\n c\n", "one hunk of a deletion, with its context");
	is_int(limited("x\n", "x\n", 3, 0, 1, &out, &sp), DIFF_SAME, "the same texts: DIFF_SAME, whatever the limits");
	is_str(out.buf, "keep:", "and nothing appended");
	sbuf_free(&out);
}

static void test_omitted(void)
{
	struct sbuf out = {0}, a = {0}, b = {0};
	struct diff_span sp;
	for (int i = 0; i < 5000; i++) {
		sbuf_addf(&a, "row %d\n", i);
		sbuf_addf(&b, "row %d\n", i % 97 ? i : -i);
	}
	is_int(limited(a.buf, b.buf, 3, DIFF_LINES_MAX, 100, &out, &sp), DIFF_OMITTED,
	       "past the bytes limit: omitted");
	is_str(out.buf, "keep:", "and nothing appended");
	ok(sp.line == 98 && sp.old_lines == 4851 && sp.new_lines == 4851, "the span: lines 98 to 4948, the first and the last change");
	is_int(limited(a.buf, b.buf, 3, DIFF_LINES_MAX, 8000, &out, &sp), DIFF_SHOWN,
	       "the same diff within 8000 bytes: shown");
	ok(out.len - 5 <= 8000, "in at most 8000 bytes (%zu)", out.len - 5);
	is_int(limited(a.buf, b.buf, 3, 10, 100, &out, &sp), DIFF_OMITTED, "one hunk past the bytes limit: omitted too");
	is_str(out.buf, "keep:", "and nothing appended");

	/* The case of the issue: 8 MiB, 4 Mi lines, each of them changed. */
	sbuf_reset(&a);
	sbuf_reset(&b);
	for (int i = 0; i < 4 << 20; i++) {
		sbuf_add(&a, "a\n", 2);
		sbuf_add(&b, "b\n", 2);
	}
	struct diff_limits lim = {DIFF_LINES_MAX, 1 << 20};
	sbuf_reset(&out);
	is_int(diff_unified(&out, "o", "n", a.buf, a.len, b.buf, b.len, 3, &lim, &sp), DIFF_OMITTED,
	       "4 Mi changed lines, 1 MiB of diff at most: omitted");
	ok(out.len == 0 && sp.line == 1 && sp.old_lines == 4 << 20 && sp.new_lines == 4 << 20,
	   "nothing written; the span: all 4194304 lines");
	lim.bytes = 0;
	is_int(diff_unified(&out, "o", "n", a.buf, a.len, b.buf, b.len, 3, &lim, &sp), DIFF_ONE_HUNK,
	       "without a bytes limit: one hunk, not searched");
	ok(applies(&a, &out, &b), "and it applies");
	sbuf_free(&a);
	sbuf_free(&b);
	sbuf_free(&out);
}

/* Generated cases under every small limit: each diff applies, or is
 * omitted only when the whole one is too long. */
static void test_limits_generated(void)
{
	int bad = 0, cases = 0, kinds[4] = {0};
	for (int i = 0; i < 400; i++) {
		struct sbuf a = {0}, b = {0}, out = {0}, full = {0};
		make_case((unsigned)(next_rand() % 6), 5 + next_rand() % 60, 1 + (int)(next_rand() % 6), &a, &b);
		int context = (int)(next_rand() % 5);
		struct diff_limits lim = {next_rand() % 40, next_rand() % 3 ? 0 : next_rand() % 600};
		enum diff_kind k = diff_unified(&out, "o", "n", a.buf, a.len, b.buf, b.len, context, &lim, NULL);
		struct diff_limits nolim = {lim.lines, 0};
		diff_unified(&full, "o", "n", a.buf, a.len, b.buf, b.len, context, &nolim, NULL);
		bool good = k == DIFF_OMITTED ? out.len == 0 && full.len + 30 > lim.bytes
					      : applies(&a, &out, &b) && (!lim.bytes || out.len <= lim.bytes);
		kinds[k]++;
		cases++;
		if (!good && bad++ == 0) {
			tap_diag_bytes("old", a.buf, a.len);
			tap_diag_bytes("new", b.buf, b.len);
			tap_diag_bytes("diff", out.buf, out.len);
		}
		sbuf_free(&a);
		sbuf_free(&b);
		sbuf_free(&out);
		sbuf_free(&full);
	}
	is_int(bad, 0, "%d random cases under small limits (%d exact, %d one hunk, %d omitted): each applies",
	       cases, kinds[DIFF_SHOWN], kinds[DIFF_ONE_HUNK], kinds[DIFF_OMITTED]);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		ok(false, "mkdtemp");
		return done_testing();
	}
	test_golden();
	test_cases();
	test_generated();
	test_frequent();
	test_limit();
	test_one_hunk();
	test_omitted();
	test_limits_generated();
	char *pa = xasprintf("%s/a", dir), *pb = xasprintf("%s/b", dir);
	unlink(pa);
	unlink(pb);
	rmdir(dir);
	free(pa);
	free(pb);
	return done_testing();
}
