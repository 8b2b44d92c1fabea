/* test_listing.c: glob's listing (listing.h) as SCRIPT_LIST writes it,
 * names with newlines and odd bytes, files gone in between, and what a
 * hostile workspace could send instead: NULs, garbage, runs of spaces,
 * overlong names and numbers, lines that pretend to be other names.
 * Every input is also fed a byte at a time and in random chunks, which
 * must not change what is read. And the newest-N heap against a full
 * sort. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "listing.h"
#include "tap.h"
#include "util.h"

/* What the parser reported: "MTIME NAME\n" each, names escaped. */
struct got {
	struct sbuf log;
	size_t n;
};

static void got_entry(void *ctx, const char *rel, size_t len, long long mtime)
{
	struct got *g = ctx;
	g->n++;
	if (strlen(rel) != len)
		sbuf_adds(&g->log, "(LENGTH WRONG) ");
	sbuf_addf(&g->log, "%lld ", mtime);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)rel[i];
		if (c == '\n')
			sbuf_adds(&g->log, "\\n");
		else if (c < 0x20 || c >= 0x7f || c == '\\')
			sbuf_addf(&g->log, "\\x%02x", c);
		else
			sbuf_addc(&g->log, (char)c);
	}
	sbuf_addc(&g->log, '\n');
}

/* Feeds in chunks of `chunk` bytes (0: random sizes from seed). */
static void parse(const char *buf, size_t n, size_t chunk, unsigned seed, struct got *g)
{
	struct listing *l = xmalloc(sizeof(*l));
	memset(g, 0, sizeof(*g));
	listing_init(l, got_entry, g);
	srand(seed);
	for (size_t off = 0; off < n;) {
		size_t k = chunk ? chunk : (size_t)(rand() % 700) + 1;
		if (k > n - off)
			k = n - off;
		listing_feed(l, buf + off, k);
		off += k;
	}
	listing_finish(l);
	listing_free(l);
	free(l);
}

/* Reads input whole, a byte at a time, and in random chunks; all three
 * must give want (one "MTIME NAME" a line). */
static void check(const char *title, const char *buf, size_t n, const char *want)
{
	struct got whole, bytes, chunks;
	parse(buf, n, n ? n : 1, 0, &whole);
	parse(buf, n, 1, 0, &bytes);
	parse(buf, n, 0, 7, &chunks);
	const char *w = whole.log.buf ? whole.log.buf : "";
	bool same = strcmp(w, bytes.log.buf ? bytes.log.buf : "") == 0 &&
		    strcmp(w, chunks.log.buf ? chunks.log.buf : "") == 0;
	ok(same && strcmp(w, want) == 0, "%s", title);
	if (strcmp(w, want) != 0) {
		tap_diag_bytes("want", want, strlen(want));
		tap_diag_bytes("got", w, strlen(w));
	}
	if (!same) {
		tap_diag_bytes("a byte at a time", bytes.log.buf, bytes.log.len);
		tap_diag_bytes("in chunks", chunks.log.buf, chunks.log.len);
	}
	sbuf_free(&whole.log);
	sbuf_free(&bytes.log);
	sbuf_free(&chunks.log);
}

#define CHECK(title, lit, want) check(title, lit, sizeof(lit) - 1, want)

static void test_honest(void)
{
	CHECK("names, an empty one, then their stat lines: each name with its time",
	      "./a.c\0./src/b.h\0\0" "1000 ./a.c\n2000 ./src/b.h\n",
	      "1000 a.c\n2000 src/b.h\n");
	CHECK("an empty directory: nothing", "\0", "");
	CHECK("no answer at all: nothing", "", "");
	CHECK("a name with a newline is read whole, not as two lines",
	      "./a\nb\0./c\0\0" "5 ./a\nb\n6 ./c\n", "5 a\\nb\n6 c\n");
	CHECK("a name made to look like a stat line after its newline is one name",
	      "./x\n7 ./y\0./z\0\0" "5 ./x\n7 ./y\n6 ./z\n", "5 x\\n7 ./y\n6 z\n");
	CHECK("a name that ends with a newline, then one that is only one",
	      "./e\n\0./\n\0./f\0\0" "1 ./e\n\n2 ./\n\n3 ./f\n", "1 e\\n\n2 \\n\n3 f\n");
	CHECK("spaces, quotes, backslashes, UTF-8 and invalid bytes pass as they are",
	      "./s p\0./q\"'\\\0./h\xc3\xa9\xff\0\0" "1 ./s p\n2 ./q\"'\\\n3 ./h\xc3\xa9\xff\n",
	      "1 s p\n2 q\"'\\x5c\n3 h\\xc3\\xa9\\xff\n");
	CHECK("a time before 1970 is negative", "./old\0\0" "-86400 ./old\n", "-86400 old\n");
	CHECK("a file gone between the two finds: no stat line, not listed; the others are",
	      "./a\0./gone\0./b\0\0" "1 ./a\n3 ./b\n", "1 a\n3 b\n");
	CHECK("a file with a newline gone in between: the next such name is still read whole",
	      "./a\0./g\none\0./b\nc\0\0" "1 ./a\n3 ./b\nc\n", "1 a\n3 b\\nc\n");
	CHECK("a file that came in between: listed too, and a name with a newline after it read whole",
	      "./a\0./b\nc\0\0" "1 ./a\n2 ./new\n3 ./b\nc\n", "1 a\n2 new\n3 b\\nc\n");
	CHECK("a last line without its newline is dropped",
	      "./a\0./b\0\0" "1 ./a\n2 ./b", "1 a\n");
	CHECK("names without \"./\" in the first part still have their lines read",
	      "a\nb\0\0" "1 ./a\nb\n", "1 a\\nb\n");
}

static void test_hostile(void)
{
	CHECK("the answer starts with OK F or OK D (as grep's would): nothing, no crash",
	      "OK F\n\0" "OK D\n", "");
	CHECK("lines that are no stat lines are skipped",
	      "./a\0\0" "garbage\n\n ./x\n1 /x\n1 .x\n1./x\n12 ./a\n", "12 a\n");
	CHECK("an empty name in a stat line is skipped", "\0" "1 ./\n2 ./b\n", "2 b\n");
	CHECK("a NUL in a stat line's name: skipped", "\0" "1 ./a\0b\n2 ./c\n", "2 c\n");
	CHECK("more than 18 digits: not a time, the line is skipped",
	      "\0" "1234567890123456789 ./a\n123456789012345678 ./b\n-5 ./c\n--5 ./d\n- ./e\n",
	      "123456789012345678 b\n-5 c\n");
	CHECK("stat lines and no names: read all the same", "\0" "1 ./a\n", "1 a\n");
	CHECK("no empty name ever: nothing", "./a\0./b\0" "1 ./a\n", "");

	struct sbuf in = {0};
	sbuf_add(&in, "\0", 1);
	for (int i = 0; i < 300000; i++)
		sbuf_addc(&in, '\0');
	check("300 KB of NULs: nothing", in.buf, in.len, "");

	/* A name over LISTING_NAME_MAX: skipped, in both parts; the next
	 * lines are read. */
	sbuf_reset(&in);
	struct sbuf long_name = {0};
	for (int i = 0; i < LISTING_NAME_MAX + 1; i++)
		sbuf_addc(&long_name, 'n');
	sbuf_addf(&in, "./%s", long_name.buf);
	sbuf_add(&in, "\0./ok\0\0", 7);
	sbuf_addf(&in, "1 ./%s\n2 ./ok\n", long_name.buf);
	check("a name over 4096 bytes is skipped, the next one read", in.buf, in.len, "2 ok\n");

	/* The longest name taken, with a newline in it. */
	sbuf_reset(&in);
	sbuf_reset(&long_name);
	sbuf_addc(&long_name, '\n');
	for (int i = 1; i < LISTING_NAME_MAX; i++)
		sbuf_addc(&long_name, 'm');
	sbuf_addf(&in, "./%s", long_name.buf);
	sbuf_add(&in, "\0\0", 2);
	sbuf_addf(&in, "-123456789012345678 ./%s\n", long_name.buf);
	struct got g;
	parse(in.buf, in.len, 0, 3, &g);
	ok(g.n == 1 && g.log.len == 20 + 2 + LISTING_NAME_MAX && strncmp(g.log.buf, "-123456789012345678 \\n", 22) == 0,
	   "a name of 4096 bytes with a newline first, after the longest time: read whole");
	sbuf_free(&g.log);
	sbuf_free(&long_name);

	/* The quadratic case of the old parser: a run of spaces that every
	 * name looked at again. */
	sbuf_reset(&in);
	for (int i = 0; i < 40000; i++) {
		sbuf_addf(&in, "./n%d", i);
		sbuf_addc(&in, '\0');
	}
	sbuf_addc(&in, '\0');
	for (int i = 0; i < 4000000; i++)
		sbuf_addc(&in, ' ');
	sbuf_adds(&in, "\n7 ./n1\n");
	parse(in.buf, in.len, 65536, 0, &g);
	ok(g.n == 1 && strcmp(g.log.buf, "7 n1\n") == 0,
	   "40000 names, then 4 MB of spaces: read once, the line after them too");
	sbuf_free(&g.log);

	/* Names with newlines beyond what is kept: the parser keeps at most
	 * LISTING_NL_MAX bytes of them; the lines of the others are read up
	 * to their first newline. */
	sbuf_reset(&in);
	struct listing *l = xmalloc(sizeof(*l));
	memset(&g, 0, sizeof(g));
	listing_init(l, got_entry, &g);
	for (int i = 0; i < 200000; i++) {
		sbuf_addf(&in, "./%d\nxxxxxxxx", i);
		sbuf_addc(&in, '\0');
	}
	listing_feed(l, in.buf, in.len);
	ok(l->nl_text.len + l->nl_n * sizeof(*l->nl) <= LISTING_NL_MAX && l->nl_n > 1000,
	   "names with newlines are kept up to 1 MiB (%zu of them)", l->nl_n);
	listing_feed(l, "\0" "1 ./0\nxxxxxxxx\n", 16);
	listing_finish(l);
	ok(g.n == 1 && strcmp(g.log.buf, "1 0\\nxxxxxxxx\n") == 0, "and read as such");
	listing_free(l);
	free(l);
	sbuf_free(&g.log);

	/* A kept name with a newline, and a line of the same length that
	 * holds other lines: those are read again, as lines. */
	CHECK("bytes read ahead for a name with a newline are read again when it is not there",
	      "./ab\ncdefghijk\0\0" "1 ./x\n2 ./y\n3 ./z\n", "1 x\n2 y\n3 z\n");
	CHECK("and again, for the next such name, inside them",
	      "./a\nbbbbbbbbbbbbbbbbbbbb\0./c\nd\0\0" "1 ./q\n2 ./c\nd\n3 ./r\n4 ./s\n",
	      "1 q\n2 c\\nd\n3 r\n4 s\n");
	CHECK("a cut short name with a newline at the end: its lines still read",
	      "./a\nbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb\0\0" "1 ./q\n2 ./r\n3 ./s", "1 q\n2 r\n");
	sbuf_free(&in);
}

/* ---- the newest names ---- */

struct ent {
	char name[16];
	long long mtime;
};

static int ent_order(const void *x, const void *y)
{
	const struct ent *a = x, *b = y;
	if (a->mtime != b->mtime)
		return a->mtime > b->mtime ? -1 : 1;
	return strcmp(a->name, b->name);
}

static void test_newest(void)
{
	srand(42);
	int bad = 0;
	for (int round = 0; round < 300 && !bad; round++) {
		size_t n = (size_t)(rand() % 400), max = (size_t)(rand() % 50) + 1;
		size_t max_bytes = rand() % 3 ? SIZE_MAX / 2 : (size_t)(rand() % 200) + 16;
		struct ent *e = xmalloc((n + 1) * sizeof(*e));
		struct listing_newest t;
		listing_newest_init(&t, max, max_bytes);
		for (size_t i = 0; i < n; i++) {
			snprintf(e[i].name, sizeof(e[i].name), "f%d", rand() % 300);
			e[i].mtime = rand() % 20 - 5;
			listing_newest_add(&t, e[i].name, strlen(e[i].name), e[i].mtime);
		}
		listing_newest_sort(&t);
		if (n > 1)
			qsort(e, n, sizeof(*e), ent_order);
		/* What must be kept: the first of the order, while they fit. */
		size_t want = 0, bytes = 0;
		while (want < n && want < max && bytes + strlen(e[want].name) + 2 <= max_bytes)
			bytes += strlen(e[want++].name) + 2; /* as JSON writes them: quoted */
		bad = t.total != n || t.n != want;
		for (size_t i = 0; !bad && i < want; i++)
			bad = strcmp(t.v[i].rel, e[i].name) != 0 || t.v[i].mtime != e[i].mtime;
		if (bad)
			diag("round %d: %zu names, max %zu, %zu bytes: kept %zu, want %zu", round, n, max,
			     max_bytes, t.n, want);
		listing_newest_free(&t);
		free(e);
	}
	ok(!bad, "the newest N, at most so many bytes: the first of a full sort, in its order");

	struct listing_newest t;
	listing_newest_init(&t, 2, 1000);
	listing_newest_add(&t, "b", 1, 5);
	listing_newest_add(&t, "a", 1, 5);
	listing_newest_add(&t, "c", 1, 9);
	listing_newest_add(&t, "a", 1, 5);
	listing_newest_sort(&t);
	ok(t.n == 2 && t.total == 4 && strcmp(t.v[0].rel, "c") == 0 && strcmp(t.v[1].rel, "a") == 0,
	   "ties by name; the same name twice is counted twice");
	listing_newest_free(&t);
}

int main(void)
{
	test_honest();
	test_hostile();
	test_newest();
	return done_testing();
}
