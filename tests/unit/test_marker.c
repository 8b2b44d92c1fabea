/* test_marker.c: the marker scanner on every way of cutting its input
 * into chunks. Whatever the cuts, the data must come out byte for byte,
 * each marker must be reported once, in order, and nothing may be held
 * back except the bytes of a marker that may still be completed. */
#include <stdlib.h>
#include <string.h>

#include "marker.h"
#include "tap.h"
#include "util.h"

#define TAG "0123456789abcdef"
#define M(word) "\036" TAG ":" word "\036"

struct rec {
	struct sbuf data;
	struct strvec markers;
	size_t marker_bytes; /* bytes the markers took from the stream */
	int empty_calls;     /* data callbacks with n == 0 */
};

static void on_data(void *ctx, const char *buf, size_t n)
{
	struct rec *r = ctx;
	if (n == 0)
		r->empty_calls++;
	sbuf_add(&r->data, buf, n);
}

static void on_marker(void *ctx, const char *word)
{
	struct rec *r = ctx;
	strvec_push(&r->markers, word);
	r->marker_bytes += 1 + MARKER_TAG_LEN + 1 + strlen(word) + 1;
}

struct scase {
	const char *title;
	const char *in;
	size_t n;
	const char *data;  /* expected data */
	size_t ndata;
	const char *const *markers; /* expected words, NULL-terminated */
};

/* Feeds in cut at the offsets cuts[0..ncuts) (ascending). Returns true if
 * the result is right; on the first wrong one, says why in diag. */
static bool run_cuts(const struct scase *c, const size_t *cuts, size_t ncuts, bool report)
{
	struct marker_scan m;
	marker_init(&m, TAG);
	struct rec r = {0};
	struct marker_sink sink = {on_data, on_marker, &r};
	size_t at = 0;
	bool held_ok = true;
	for (size_t k = 0; k <= ncuts; k++) {
		size_t end = k < ncuts ? cuts[k] : c->n;
		marker_feed(&m, c->in + at, end - at, &sink);
		at = end;
		/* Everything fed is delivered, taken by a marker, or held as a
		 * possible marker that starts with \036. */
		if (r.data.len + r.marker_bytes + m.npend != at ||
		    (m.npend && m.pend[0] != '\036') || m.npend > sizeof(m.pend))
			held_ok = false;
	}
	marker_flush(&m, &sink);
	size_t nm = 0;
	while (c->markers[nm])
		nm++;
	bool same = r.data.len == c->ndata && memcmp(r.data.buf ? r.data.buf : "", c->data, c->ndata) == 0;
	bool marks = r.markers.n == nm;
	for (size_t i = 0; marks && i < nm; i++)
		marks = strcmp(r.markers.v[i], c->markers[i]) == 0;
	bool good = same && marks && held_ok && r.empty_calls == 0 && m.npend == 0;
	if (!good && report) {
		char cutlist[256] = "";
		size_t used = 0;
		for (size_t k = 0; k < ncuts && used < sizeof(cutlist) - 24; k++)
			used += (size_t)snprintf(cutlist + used, sizeof(cutlist) - used, " %zu", cuts[k]);
		diag("%s: first failure with cuts at [%s ] (of %zu bytes)", c->title, cutlist, c->n);
		if (!same) {
			tap_diag_bytes("data     got", r.data.buf ? r.data.buf : "", r.data.len);
			tap_diag_bytes("data expected", c->data, c->ndata);
		}
		if (!marks) {
			diag("markers: got %zu, expected %zu", r.markers.n, nm);
			for (size_t i = 0; i < r.markers.n; i++)
				diag("  got marker '%s'", r.markers.v[i]);
		}
		if (!held_ok)
			diag("bytes were lost or held back that cannot start a marker");
		if (r.empty_calls)
			diag("%d data callbacks with no bytes", r.empty_calls);
	}
	sbuf_free(&r.data);
	strvec_clear(&r.markers);
	return good;
}

static void check_case(const struct scase *c)
{
	size_t cuts[3] = {0};
	bool good = run_cuts(c, cuts, 0, true);
	ok(good, "%s: in one chunk", c->title);

	good = true;
	for (size_t i = 0; good && i <= c->n; i++) {
		cuts[0] = i;
		good = run_cuts(c, cuts, 1, true);
	}
	ok(good, "%s: in two chunks, cut at every offset", c->title);

	/* Every pair of cuts is quadratic: for the long inputs, a stride. */
	size_t step = c->n <= 160 ? 1 : 7;
	good = true;
	for (size_t i = 0; good && i <= c->n; i += step)
		for (size_t j = i; good && j <= c->n; j += step) {
			cuts[0] = i;
			cuts[1] = j;
			good = run_cuts(c, cuts, 2, true);
		}
	ok(good, "%s: in three chunks, cut at every pair of offsets%s", c->title,
	   step > 1 ? " (stride 7)" : "");

	size_t *all = xmalloc((c->n + 1) * sizeof(*all));
	for (size_t i = 0; i < c->n; i++)
		all[i] = i + 1;
	good = run_cuts(c, all, c->n ? c->n - 1 : 0, true);
	ok(good, "%s: one byte at a time", c->title);
	free(all);
}

#define CASE(t, input, expdata, ...)                                          \
	do {                                                                  \
		static const char in_[] = input;                              \
		static const char d_[] = expdata;                             \
		static const char *const mk_[] = {__VA_ARGS__};               \
		struct scase c_ = {t, in_, sizeof(in_) - 1, d_, sizeof(d_) - 1, mk_}; \
		check_case(&c_);                                              \
	} while (0)

#define W23 "abcdefghijklmnopqrstu:9"  /* 23 bytes: the longest word */
#define W24 "abcdefghijklmnopqrstuv:9" /* 24 bytes: one too many */

static void test_cases(void)
{
	CASE("empty input", "", "", NULL);
	CASE("plain data", "hello, world\n", "hello, world\n", NULL);
	CASE("a marker alone", M("ready"), "", "ready", NULL);
	CASE("data, marker, data", "data one\n" M("ready") "data two\n",
	     "data one\ndata two\n", "ready", NULL);
	CASE("data then a done marker", "output" M("done:0"), "output", "done:0", NULL);
	CASE("two markers back to back", M("ready") M("done:127"), "", "ready", "done:127", NULL);
	CASE("markers between data", "a" M("ready") "b" M("done:3") "c",
	     "abc", "ready", "done:3", NULL);
	CASE("\\036 in data", "a\036b\036\036c", "a\036b\036\036c", NULL);
	CASE("\\036 at the very end", "abc\036", "abc\036", NULL);
	CASE("\\036 right before a marker", "x\036" M("ready") "y",
	     "x\036y", "ready", NULL);
	CASE("\\036\\036 before a marker", "\036\036" M("ready"), "\036\036", "ready", NULL);
	CASE("a marker's prefix, then a marker", "\036" TAG M("ok") "z",
	     "\036" TAG "z", "ok", NULL);
	CASE("near miss: the tag's last digit differs", "\036" "0123456789abcdeX:ready\036",
	     "\036" "0123456789abcdeX:ready\036", NULL);
	CASE("near miss: another tag", "\036fedcba9876543210:ready\036 tail",
	     "\036fedcba9876543210:ready\036 tail", NULL);
	CASE("near miss: no colon", "\036" TAG "ready\036", "\036" TAG "ready\036", NULL);
	CASE("near miss: prefix, then the end of input", "\036" TAG ":ready",
	     "\036" TAG ":ready", NULL);
	CASE("near miss: prefix, then the end of input, mid-tag", "\036" "01234567",
	     "\036" "01234567", NULL);
	CASE("near miss: upper case word", "\036" TAG ":READY\036" "b",
	     "\036" TAG ":READY\036" "b", NULL);
	CASE("near miss: a space in the word, then a marker",
	     "\036" TAG ":re dy\036" M("ok"), "\036" TAG ":re dy\036", "ok", NULL);
	CASE("near miss: a newline in the word", "\036" TAG ":done:\n1\036",
	     "\036" TAG ":done:\n1\036", NULL);
	CASE("a word of the longest length (23)", "<" M(W23) ">", "<>", W23, NULL);
	CASE("a word one longer than the max (24) is data",
	     "<\036" TAG ":" W24 "\036>", "<\036" TAG ":" W24 "\036>", NULL);
	CASE("a too long word, then a marker",
	     "\036" TAG ":" W24 W24 "\036" M("done:1"),
	     "\036" TAG ":" W24 W24 "\036", "done:1", NULL);
	CASE("NULs around a marker", "\0\0" M("ready") "\0", "\0\0\0", "ready", NULL);
	CASE("a marker's text without its \\036", TAG ":ready", TAG ":ready", NULL);
	CASE("marker, near miss, marker",
	     M("ready") "\036" TAG ";" M("done:0"),
	     "\036" TAG ";", "ready", "done:0", NULL);
	CASE("ready on stderr then long output then done",
	     M("ready") "line 1\nline 2\nline 3 with \036 and \x1f bytes\n" M("done:255"),
	     "line 1\nline 2\nline 3 with \036 and \x1f bytes\n", "ready", "done:255", NULL);
}

/* Every byte value, twice, around a marker and a near miss. */
static void test_binary(void)
{
	struct sbuf in = {0}, data = {0};
	char all[256];
	for (int i = 0; i < 256; i++)
		all[i] = (char)i;
	sbuf_add(&in, all, sizeof(all));
	sbuf_add(&data, all, sizeof(all));
	sbuf_adds(&in, M("ready"));
	sbuf_add(&in, all, sizeof(all));
	sbuf_add(&data, all, sizeof(all));
	sbuf_adds(&in, "\036" TAG ":x");
	sbuf_adds(&data, "\036" TAG ":x");
	sbuf_add(&in, all, sizeof(all));
	sbuf_add(&data, all, sizeof(all));
	sbuf_adds(&in, M("done:0"));
	static const char *const marks[] = {"ready", "done:0", NULL};
	struct scase c = {"binary data, every byte value", in.buf, in.len, data.buf, data.len, marks};
	check_case(&c);
	sbuf_free(&in);
	sbuf_free(&data);
}

/* Long random streams: random data (with many \036 and tag bytes) and
 * real markers, fed in random chunks. */
static void test_random(void)
{
	unsigned long x = 0x9e3779b97f4a7c15UL;
#define NEXT() (x ^= x << 13, x ^= x >> 7, x ^= x << 17, (unsigned)(x >> 20))
	int failures = 0;
	for (int round = 0; round < 300; round++) {
		struct sbuf in = {0}, data = {0};
		struct strvec marks = {0};
		int parts = (int)(NEXT() % 20);
		for (int p = 0; p < parts; p++) {
			unsigned kind = NEXT() % 4;
			if (kind == 0) {
				char word[16];
				snprintf(word, sizeof(word), "done:%u", NEXT() % 256);
				sbuf_addf(&in, "\036" TAG ":%s\036", word);
				strvec_push(&marks, word);
			} else {
				/* Data: letters, \036 and pieces of the tag, but a
				 * \036 is never followed by the whole prefix. */
				int len = (int)(NEXT() % 40);
				for (int i = 0; i < len; i++) {
					static const char pool[] = "\036" TAG ":xyz\n\0";
					char ch = pool[NEXT() % (sizeof(pool) - 1)];
					sbuf_addc(&in, ch);
					sbuf_addc(&data, ch);
				}
				/* Ending in a half marker would join the next part. */
				if (in.len && in.buf[in.len - 1] != '\n') {
					sbuf_addc(&in, '\n');
					sbuf_addc(&data, '\n');
				}
			}
		}
		struct scase c = {"random", in.buf ? in.buf : "", in.len,
				  data.buf ? data.buf : "", data.len,
				  (const char *const *)strvec_argv(&marks)};
		size_t cuts[8] = {0};
		size_t ncuts = in.len ? NEXT() % 8 : 0;
		for (size_t k = 0; k < ncuts; k++)
			cuts[k] = NEXT() % (in.len + 1);
		for (size_t a = 0; a < ncuts; a++) /* sort */
			for (size_t b = a + 1; b < ncuts; b++)
				if (cuts[b] < cuts[a]) {
					size_t t = cuts[a];
					cuts[a] = cuts[b];
					cuts[b] = t;
				}
		if (!run_cuts(&c, cuts, ncuts, failures == 0))
			failures++;
		sbuf_free(&in);
		sbuf_free(&data);
		strvec_clear(&marks);
	}
#undef NEXT
	is_int(failures, 0, "300 random streams in random chunks");
}

int main(void)
{
	test_cases();
	test_binary();
	test_random();
	return done_testing();
}
