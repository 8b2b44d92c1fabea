/* test_listing.c: glob's listing (listing.h) as SCRIPT_LIST writes it,
 * names with newlines and odd bytes, an answer cut short, and what a
 * hostile workspace could send instead: NULs, garbage, runs of spaces
 * and slashes, overlong names and numbers, names that pretend to be
 * records; random names that must come back as they are.
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
	CHECK("one record a file, then the end: each name with its time",
	      "1000 .//a.c\n2000 .//src/b.h\n//", "1000 a.c\n2000 src/b.h\n");
	CHECK("an empty directory: only the end, nothing", "//", "");
	CHECK("no answer at all: nothing", "", "");
	CHECK("a name with a newline is read whole, not as two records",
	      "5 .//a\nb\n6 .//c\n//", "5 a\\nb\n6 c\n");
	CHECK("a name made to look like a record after its newline is one name",
	      "5 .//x\n7 ./y\n6 .//z\n//", "5 x\\n7 ./y\n6 z\n");
	CHECK("and one that looks like the end of the answer too",
	      "5 .//x\n7 .\n//", "5 x\\n7 .\n");
	CHECK("a directory named so, and a file in it: one name",
	      "5 .//d\n7 ./f\n//", "5 d\\n7 ./f\n");
	CHECK("a name that ends with a newline, then one that is only one",
	      "1 .//e\n\n2 .//\n\n3 .//f\n//", "1 e\\n\n2 \\n\n3 f\n");
	CHECK("spaces, quotes, backslashes, UTF-8 and invalid bytes pass as they are",
	      "1 .//s p\n2 .//q\"'\\\n3 .//h\xc3\xa9\xff\n//",
	      "1 s p\n2 q\"'\\x5c\n3 h\\xc3\\xa9\\xff\n");
	CHECK("a time before 1970 is negative", "-86400 .//old\n//", "-86400 old\n");
	CHECK("a last record without the end is dropped: the answer was cut",
	      "1 .//a\n2 .//b\n", "1 a\n");
	CHECK("cut inside a name with a newline: not taken for a shorter name",
	      "1 .//a\n2 .//b\n3 ", "1 a\n");
}

static void test_hostile(void)
{
	CHECK("the answer starts with OK F or OK D (as grep's would): nothing, no crash",
	      "OK F\n\0" "OK D\n", "");
	CHECK("what is not a record's start is skipped, with its record",
	      "garbage\n//x\n ./x\n1 //x\n1 .x\n1./x//1 .x\n1 ..//a\n12 .//b\n//", "12 b\n");
	CHECK("garbage after a record: the record is read, the garbage skipped with what follows",
	      "1 .//a\n2 .//b\nxx//c\n3 .//d\n//", "1 a\n2 b\n3 d\n");
	CHECK("a record without a newline before the next: skipped, and the next",
	      "1 .//a2 .//b\n3 .//c\n//", "3 c\n");
	CHECK("an empty name is skipped", "1 .//\n2 .//b\n//", "2 b\n");
	CHECK("a NUL in a name: skipped", "1 .//a\0b\n2 .//c\n//", "2 c\n");
	CHECK("more than 18 digits: not a time, the record is skipped",
	      "1234567890123456789 .//a\n123456789012345678 .//b\n-5 .//c\n--5 .//d\n- .//e\n//",
	      "123456789012345678 b\n-5 c\n");
	CHECK("runs of slashes: cut at each pair, never a crash",
	      "1 .//a\n2 .///b\n3 .////c\n4 .//d\n//", "1 a\n2 /b\n4 d\n");
	CHECK("bytes after the end: dropped", "1 .//a\n//" "2 .//b\n", "1 a\n");

	struct sbuf in = {0};
	for (int i = 0; i < 300000; i++)
		sbuf_addc(&in, '\0');
	sbuf_adds(&in, "\n1 .//a\n//");
	check("300 KB of NULs, then a record: that record", in.buf, in.len, "1 a\n");

	/* A name over LISTING_NAME_MAX: skipped; the next one is read. */
	sbuf_reset(&in);
	struct sbuf long_name = {0};
	for (int i = 0; i < LISTING_NAME_MAX + 1; i++)
		sbuf_addc(&long_name, i % 100 ? 'n' : '\n');
	sbuf_addf(&in, "1 .//%s\n2 .//ok\n//", long_name.buf);
	check("a name over 4096 bytes is skipped, the next one read", in.buf, in.len, "2 ok\n");

	/* The longest name taken, with a newline in it. */
	sbuf_reset(&in);
	sbuf_reset(&long_name);
	sbuf_addc(&long_name, '\n');
	for (int i = 1; i < LISTING_NAME_MAX; i++)
		sbuf_addc(&long_name, 'm');
	sbuf_addf(&in, "-123456789012345678 .//%s\n//", long_name.buf);
	struct got g;
	parse(in.buf, in.len, 0, 3, &g);
	ok(g.n == 1 && g.log.len == 20 + 2 + LISTING_NAME_MAX && strncmp(g.log.buf, "-123456789012345678 \\n", 22) == 0,
	   "a name of 4096 bytes with a newline first, after the longest time: read whole");
	sbuf_free(&g.log);
	sbuf_free(&long_name);

	/* A record's start too long to be one, a byte at a time or not. */
	sbuf_reset(&in);
	sbuf_adds(&in, "1 .//a\n");
	for (int i = 0; i < 1000; i++)
		sbuf_addc(&in, '7');
	sbuf_adds(&in, " .//b\n3 .//c\n//");
	check("a run of 1000 digits: not a time, its record skipped", in.buf, in.len, "1 a\n3 c\n");

	/* Linear time, whatever the bytes: 4 MB of spaces and of newlines
	 * in one record, then 40000 records. */
	sbuf_reset(&in);
	sbuf_adds(&in, "1 .//x");
	for (int i = 0; i < 4000000; i++)
		sbuf_addc(&in, i % 2 ? ' ' : '\n');
	for (int i = 0; i < 40000; i++)
		sbuf_addf(&in, "\n7 .//n%d", i);
	sbuf_adds(&in, "\n//");
	parse(in.buf, in.len, 65536, 0, &g);
	ok(g.n == 40000 && strncmp(g.log.buf, "7 n0\n7 n1\n", 10) == 0,
	   "4 MB of spaces and newlines, then 40000 records: all of them read");
	sbuf_free(&g.log);
	sbuf_free(&in);
}

/* What a hostile name cannot do: every name of a tree, written as find
 * and stat write it, is read back whole and alone, whatever bytes it
 * holds (but '/' and NUL, which no name holds). */
static void test_forge(void)
{
	static const char bytes[] = "\n .0123456789-/\xff";
	srand(11);
	int bad = 0;
	for (int round = 0; round < 2000 && !bad; round++) {
		struct sbuf in = {0}, want = {0};
		int n = rand() % 6;
		for (int i = 0; i < n; i++) {
			struct sbuf name = {0};
			int len = rand() % 12 + 1;
			for (int k = 0; k < len; k++) {
				char c = bytes[rand() % (sizeof(bytes) - 1)];
				/* A path: no empty component, no '/' at its ends. */
				if (c == '/' && (k == 0 || k == len - 1 || name.buf[name.len - 1] == '/'))
					c = 'x';
				sbuf_addc(&name, c);
			}
			long long t = rand() % 200 - 20;
			sbuf_addf(&in, "%lld .//%s\n", t, name.buf);
			struct got one;
			memset(&one, 0, sizeof(one));
			got_entry(&one, name.buf, name.len, t);
			sbuf_add(&want, one.log.buf, one.log.len);
			sbuf_free(&one.log);
			sbuf_free(&name);
		}
		sbuf_adds(&in, "//");
		struct got g;
		parse(in.buf, in.len, 0, (unsigned)round, &g);
		bad = strcmp(g.log.buf ? g.log.buf : "", want.buf ? want.buf : "") != 0;
		if (bad) {
			tap_diag_bytes("input", in.buf, in.len);
			tap_diag_bytes("got", g.log.buf, g.log.len);
		}
		sbuf_free(&g.log);
		sbuf_free(&in);
		sbuf_free(&want);
	}
	ok(!bad, "names of newlines, digits, spaces, dots and slashes: each read as it is, none forged");
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
	test_forge();
	test_newest();
	return done_testing();
}
