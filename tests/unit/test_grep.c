/* test_grep.c: grep's reading of SCRIPT_TAR's stream (grep.h): the
 * three outputs, context, CRLF, binary files, long lines, one file, and
 * what a hostile workspace could send: a huge file of matching lines,
 * many matching files, lines of continuation bytes, overlong names.
 * What is held stays bounded while the stream is read, and what is
 * shown is what keeping everything and cutting at the end would show,
 * however the stream is chunked. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grep.h"
#include "tap.h"
#include "tar_make.h"
#include "tool_text.h"
#include "util.h"

static struct rx *rx;

static struct grep_spec opts(enum grep_mode mode, const char *pattern)
{
	static char compiled[256];
	if (!rx || strcmp(compiled, pattern) != 0) {
		rx_free(rx);
		snprintf(compiled, sizeof(compiled), "%s", pattern);
		if (rx_compile(pattern, 0, &rx, NULL, NULL, 0) != RX_OK)
			abort();
	}
	return (struct grep_spec){.mode = mode, .rx = rx, .limit = 1000, .max_bytes = 1 << 20, .base = "."};
}

/* What is shown, in the form of the text output. */
static void render(const struct grep *g, struct sbuf *out)
{
	bool context = g->o.after || g->o.before;
	size_t shown = 0;
	for (size_t i = 0; i < g->nfiles; i++) {
		const struct grep_file *f = &g->files[i];
		if (g->o.mode != GREP_CONTENT) {
			sbuf_adds(out, f->path);
			if (g->o.mode == GREP_COUNT)
				sbuf_addf(out, ":%ld", f->count);
			sbuf_addc(out, '\n');
			shown++;
			continue;
		}
		for (size_t k = 0; k < f->nlines; k++) {
			const struct grep_line *l = &f->lines[k];
			if (l->sep || (k == 0 && i > 0 && context))
				sbuf_adds(out, "--\n");
			sbuf_addf(out, "%s%c%ld%c%s\n", f->path, l->match ? ':' : '-', l->no,
				  l->match ? ':' : '-', l->text);
			shown++;
		}
	}
	if (g->produced > shown)
		sbuf_addf(out, "(%llu more)\n", g->produced - shown);
}

/* Reads archive in chunks of `chunk` bytes (0: random sizes), checking
 * the bounds after each; renders what is shown into out. */
static int run(const struct grep_spec *o, const struct sbuf *archive, size_t chunk, struct sbuf *out,
	       bool *bounded)
{
	struct grep *g = xmalloc(sizeof(*g));
	char err[200] = "";
	int rc = 0;
	grep_init(g, o);
	*bounded = true;
	for (size_t off = 0; off < archive->len && rc == 0;) {
		size_t k = chunk ? chunk : (size_t)(rand() % 9000) + 1;
		if (k > archive->len - off)
			k = archive->len - off;
		rc = grep_feed(g, archive->buf + off, k, err, sizeof(err));
		off += k;
		if (g->held_lines > 2 * o->limit + 1024 || g->held_bytes > 2 * o->max_bytes ||
		    g->cur.nlines > o->limit || g->cur.bytes > o->max_bytes || g->line.len > GREP_MATCH_MAX ||
		    g->probe.len > TOOL_PROBE)
			*bounded = false;
	}
	if (rc == 0)
		rc = grep_finish(g, err, sizeof(err));
	if (rc == 0)
		render(g, out);
	else
		sbuf_addf(out, "error: %s\n", err);
	grep_free(g);
	free(g);
	return rc;
}

/* Whole, a byte at a time (for small archives) and in random chunks:
 * the same output, want. */
static void check(const char *title, const struct grep_spec *o, const struct sbuf *archive, const char *want)
{
	struct sbuf a = {0}, b = {0}, c = {0};
	bool ba, bb = true, bc;
	run(o, archive, archive->len, &a, &ba);
	if (archive->len < 200000)
		run(o, archive, 1, &b, &bb);
	else
		sbuf_add(&b, a.buf, a.len);
	run(o, archive, 0, &c, &bc);
	bool same = strcmp(a.buf ? a.buf : "", b.buf ? b.buf : "") == 0 &&
		    strcmp(a.buf ? a.buf : "", c.buf ? c.buf : "") == 0;
	ok(same && ba && bb && bc && strcmp(a.buf ? a.buf : "", want) == 0, "%s", title);
	if (strcmp(a.buf ? a.buf : "", want) != 0) {
		tap_diag_bytes("want", want, strlen(want));
		tap_diag_bytes("got", a.buf, a.len);
	}
	if (!same)
		tap_diag_bytes("in other chunks", c.buf, c.len);
	if (!(ba && bb && bc))
		diag("more was held than the bounds allow");
	sbuf_free(&a);
	sbuf_free(&b);
	sbuf_free(&c);
}

static void file(struct sbuf *a, const char *name, const char *text)
{
	tar_make_file(a, name, text, strlen(text));
}

static void test_outputs(void)
{
	struct sbuf a = {0};
	file(&a, "./r/b.txt", "x\nfoo 2\n");
	file(&a, "./r/a.txt", "foo\nbar\nbaz\nfoo bar\nqux\n1\n2\n3\n4\nfoo\n");
	tar_make_header(&a, "./r/dir", '5', 0);
	tar_make_header(&a, "./r/link", '2', 0);
	tar_make_file(&a, "./r/bin.dat", "foo\0bin\n", 8);
	file(&a, "./r/crlf.txt", "foo\r\nend\r\n");
	file(&a, "./r/nonl.txt", "last foo");
	file(&a, "./r/none.txt", "nothing\n");
	tar_make_end(&a);

	struct grep_spec o = opts(GREP_FILES, "foo");
	check("files: those that match, sorted by path; binary files, links, directories skipped", &o, &a,
	      "r/a.txt\nr/b.txt\nr/crlf.txt\nr/nonl.txt\n");
	o = opts(GREP_COUNT, "foo");
	check("count: path and number", &o, &a, "r/a.txt:3\nr/b.txt:1\nr/crlf.txt:1\nr/nonl.txt:1\n");
	o = opts(GREP_CONTENT, "foo");
	check("content: CRLF lines without their CR, a last line without newline", &o, &a,
	      "r/a.txt:1:foo\nr/a.txt:4:foo bar\nr/a.txt:10:foo\nr/b.txt:2:foo 2\n"
	      "r/crlf.txt:1:foo\nr/nonl.txt:1:last foo\n");
	o.before = o.after = 1;
	check("context: lines around, -- between groups and files", &o, &a,
	      "r/a.txt:1:foo\nr/a.txt-2-bar\nr/a.txt-3-baz\nr/a.txt:4:foo bar\nr/a.txt-5-qux\n--\n"
	      "r/a.txt-9-4\nr/a.txt:10:foo\n--\nr/b.txt-1-x\nr/b.txt:2:foo 2\n--\n"
	      "r/crlf.txt:1:foo\nr/crlf.txt-2-end\n--\nr/nonl.txt:1:last foo\n");
	o = opts(GREP_CONTENT, "foo");
	o.limit = 4;
	check("limit: the first lines in path order, then how many more", &o, &a,
	      "r/a.txt:1:foo\nr/a.txt:4:foo bar\nr/a.txt:10:foo\nr/b.txt:2:foo 2\n(2 more)\n");
	o = opts(GREP_FILES, "foo");
	o.base = "/w/";
	o.limit = 1;
	check("paths under the directory given; limit on files", &o, &a, "/w/r/a.txt\n(3 more)\n");

	sbuf_reset(&a);
	file(&a, "x", "a foo\nb\n");
	file(&a, "y", "foo again\n");
	tar_make_end(&a);
	o = opts(GREP_CONTENT, "foo");
	o.single = "given/path.txt";
	check("one file: shown as given, whatever the archive calls it", &o, &a,
	      "given/path.txt:1:a foo\ngiven/path.txt:1:foo again\n");
	sbuf_free(&a);
}

/* Past the first 8 KiB, a NUL byte does not make a file binary: it is
 * a byte of its line, which it does not end. */
static void test_nul_bytes(void)
{
	struct sbuf a = {0}, text = {0};
	for (int i = 0; i < 5000; i++)
		sbuf_adds(&text, "x\n");
	sbuf_add(&text, "foo\0bar\n", 8);
	tar_make_file(&a, "n", text.buf, text.len);
	tar_make_end(&a);
	struct grep_spec o = opts(GREP_COUNT, "bar$");
	check("a NUL byte in a line: what follows it is matched too", &o, &a, "n:1\n");
	o = opts(GREP_COUNT, "foo$");
	check("a NUL byte in a line does not end it", &o, &a, "");
	o = opts(GREP_COUNT, "foo[^a]bar");
	check("a NUL byte is a byte that [^a] takes", &o, &a, "n:1\n");
	o = opts(GREP_COUNT, "foo.bar");
	check("a NUL byte is not one that '.' takes, as in glibc", &o, &a, "");
	sbuf_free(&a);
	sbuf_free(&text);
}

static void test_long_lines(void)
{
	struct sbuf a = {0}, text = {0}, want = {0};
	struct grep_spec o = opts(GREP_CONTENT, "^foo");

	sbuf_adds(&text, "foo");
	for (int i = 0; i < 2500; i++)
		sbuf_adds(&text, "\xc3\xa9");
	sbuf_addc(&text, '\n');
	file(&a, "u", text.buf);
	tar_make_end(&a);
	sbuf_adds(&want, "u:1:foo");
	for (int i = 0; i < 1997; i++)
		sbuf_adds(&want, "\xc3\xa9");
	sbuf_adds(&want, " [... line cut]\n");
	check("a long line is cut after 2000 characters, UTF-8 ones whole", &o, &a, want.buf);

	/* Continuation bytes only: no character has more than three. */
	sbuf_reset(&a);
	sbuf_reset(&text);
	sbuf_reset(&want);
	sbuf_adds(&text, "foo");
	for (int i = 0; i < 100000; i++)
		sbuf_addc(&text, (char)0x80);
	sbuf_addc(&text, '\n');
	file(&a, "c", text.buf);
	tar_make_end(&a);
	sbuf_adds(&want, "c:1:foo");
	for (int i = 0; i < 7991; i++)
		sbuf_addc(&want, (char)0x80);
	sbuf_adds(&want, " [... line cut]\n");
	check("a line of 100000 continuation bytes is cut after 8000 bytes", &o, &a, want.buf);

	/* Over a mebibyte: matched on its first. */
	sbuf_reset(&a);
	sbuf_reset(&text);
	for (int i = 0; i < GREP_MATCH_MAX; i++)
		sbuf_addc(&text, 'x');
	sbuf_adds(&text, "foo\nfoo\n");
	file(&a, "big", text.buf);
	tar_make_end(&a);
	o = opts(GREP_CONTENT, "foo");
	check("a line over 1 MiB is matched on its first MiB only", &o, &a, "big:2:foo\n");
	sbuf_free(&a);
	sbuf_free(&text);
	sbuf_free(&want);
}

static void test_hostile(void)
{
	struct sbuf a = {0}, text = {0};
	struct grep_spec o;

	/* 4 MB of matching lines in one file, limit 5. */
	for (int i = 0; i < 1000000; i++)
		sbuf_adds(&text, "foo\n");
	file(&a, "big.txt", text.buf);
	tar_make_end(&a);
	o = opts(GREP_CONTENT, "foo");
	o.limit = 5;
	check("4 MB of matching lines, limit 5: five kept, the rest counted", &o, &a,
	      "big.txt:1:foo\nbig.txt:2:foo\nbig.txt:3:foo\nbig.txt:4:foo\nbig.txt:5:foo\n(999995 more)\n");
	o.before = o.after = GREP_CONTEXT_MAX;
	o.limit = 2;
	check("with the most context, too", &o, &a, "big.txt:1:foo\nbig.txt:2:foo\n(999998 more)\n");

	/* 30000 matching files in reverse order: the first in path order. */
	sbuf_reset(&a);
	for (int i = 30000; i > 0; i--) {
		char name[32];
		snprintf(name, sizeof(name), "f%05d", i);
		file(&a, name, "foo\n");
	}
	tar_make_end(&a);
	o = opts(GREP_FILES, "foo");
	o.limit = 3;
	check("30000 matching files, from the last: the first three, the rest counted", &o, &a,
	      "f00001\nf00002\nf00003\n(29997 more)\n");

	/* Lines of 8000 bytes: max_bytes holds the output before limit does. */
	sbuf_reset(&a);
	sbuf_reset(&text);
	for (int i = 0; i < 1000; i++) {
		sbuf_adds(&text, "foo");
		for (int k = 0; k < 8000; k++)
			sbuf_addc(&text, (char)0x80);
		sbuf_addc(&text, '\n');
	}
	file(&a, "wide", text.buf);
	tar_make_end(&a);
	o = opts(GREP_CONTENT, "foo");
	o.max_bytes = 100000;
	struct sbuf out = {0};
	bool bounded;
	run(&o, &a, 65536, &out, &bounded);
	ok(bounded && strstr(out.buf, "wide:2:") && !strstr(out.buf, "wide:3:") && strstr(out.buf, "(998 more)\n"),
	   "long lines: no more than max_bytes of them kept, as JSON writes them (2 of 47972 bytes in 100000)");
	sbuf_free(&out);

	/* Names no directory listing has. */
	sbuf_reset(&a);
	sbuf_reset(&text);
	for (int i = 0; i < GREP_NAME_MAX + 1; i++)
		sbuf_addc(&text, 'n');
	file(&a, text.buf, "foo\n");
	file(&a, "./", "foo\n");
	file(&a, "ok", "foo\n");
	tar_make_end(&a);
	o = opts(GREP_FILES, "foo");
	check("a name over 4096 bytes and an empty one are skipped", &o, &a, "ok\n");
	o.single = "one";
	check("unless the stream is one file: then its name does not matter", &o, &a, "one\none\none\n");

	sbuf_reset(&a);
	sbuf_adds(&a, "OK F\n");
	for (int i = 0; i < 600; i++)
		sbuf_addc(&a, 'x');
	o = opts(GREP_FILES, "foo");
	check("not a tar stream: an error, no crash", &o, &a,
	      "error: bad header checksum at byte 0: not a tar archive, or a damaged one\n");
	sbuf_free(&a);
	sbuf_free(&text);
}

/* What is shown must be what keeping everything and cutting at the end
 * shows: random trees, options, limits and chunks. */
static void test_trim_agrees(void)
{
	static const char *const pats[] = {"a", "b|c", "^a", "x"};
	int bad = 0;
	srand(11);
	for (int round = 0; round < 400 && !bad; round++) {
		struct sbuf a = {0};
		int nfiles = rand() % 40;
		for (int i = 0; i < nfiles; i++) {
			char name[32], text[400];
			size_t n = 0;
			snprintf(name, sizeof(name), "d%d/f%02d", rand() % 3, rand() % 60);
			int lines = rand() % 30;
			for (int k = 0; k < lines && n + 12 < sizeof(text); k++)
				for (int c = rand() % 8; c >= 0; c--)
					text[n++] = c ? "abcx"[rand() % 4] : '\n';
			tar_make_file(&a, name, text, n);
		}
		tar_make_end(&a);
		struct grep_spec o = opts((enum grep_mode)(rand() % 3), pats[rand() % 4]);
		if (o.mode == GREP_CONTENT)
			o.before = rand() % 3, o.after = rand() % 3;
		struct grep_spec all = o;
		all.limit = 1000000;
		all.max_bytes = (size_t)1 << 40;
		o.limit = (size_t)(rand() % 20) + 1;
		o.max_bytes = rand() % 2 ? (size_t)(rand() % 300) + 20 : (size_t)1 << 20;
		struct sbuf full = {0}, got = {0}, want = {0};
		bool bounded;
		run(&all, &a, 0, &full, &bounded);
		run(&o, &a, 0, &got, &bounded);
		/* Cut the full output as the bounded run must have. */
		size_t lines = 0, bytes = 0, total = 0;
		bool cut = false;
		for (const char *p = full.buf ? full.buf : ""; *p;) {
			const char *nl = strchr(p, '\n');
			size_t len = (size_t)(nl - p) + 1;
			if (*p == '(')
				break;
			bool is_sep = strncmp(p, "--\n", 3) == 0;
			if (!is_sep) {
				total++;
				/* the cost grep counts: path and text as JSON
				 * writes them (plain letters here: quoted) */
				const char *sepc = o.mode == GREP_CONTENT ? strpbrk(p, ":-") : NULL;
				size_t cost = len - 1 + 2;
				if (sepc) {
					const char *t = strpbrk(sepc + 1, ":-");
					cost = (size_t)(sepc - p) + 2 + (size_t)(nl - t - 1) + 2;
				} else if (o.mode == GREP_COUNT) {
					cost = (size_t)(strchr(p, ':') - p) + 2;
				}
				if (!cut && (lines == o.limit || bytes + cost > o.max_bytes))
					cut = true;
				if (!cut)
					lines++, bytes += cost;
			}
			if (!cut)
				sbuf_add(&want, p, len);
			p = nl + 1;
		}
		/* A "--" after the last line shown is not shown. */
		if (want.len >= 3 && strcmp(want.buf + want.len - 3, "--\n") == 0)
			want.len -= 3, want.buf[want.len] = '\0';
		if (total > lines)
			sbuf_addf(&want, "(%zu more)\n", total - lines);
		bad = !bounded || strcmp(want.buf ? want.buf : "", got.buf ? got.buf : "") != 0;
		if (bad) {
			diag("round %d: mode %d, limit %zu, max_bytes %zu", round, o.mode, o.limit, o.max_bytes);
			tap_diag_bytes("want", want.buf, want.len);
			tap_diag_bytes("got", got.buf, got.len);
		}
		sbuf_free(&a);
		sbuf_free(&full);
		sbuf_free(&got);
		sbuf_free(&want);
	}
	ok(!bad, "what is shown is the full output cut at limit and max_bytes (400 random trees)");
}

int main(void)
{
	test_outputs();
	test_nul_bytes();
	test_long_lines();
	test_hostile();
	test_trim_agrees();
	rx_free(rx);
	return done_testing();
}
