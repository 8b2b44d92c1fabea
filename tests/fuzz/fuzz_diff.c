/* fuzz_diff.c: a libFuzzer target for the unified diff (src/codec/diff.c).
 *
 * `make fuzz` builds it as build/fuzz/fuzz_diff; to run it longer than
 * `make fuzz-check` does:
 *   build/fuzz/fuzz_diff -max_total_time=120 build/fuzz/corpus_diff tests/fuzz/corpus_diff
 *
 * An input is two header bytes and two texts:
 *   byte 0: bits 0-2: the context (0 to 7); bits 3-4: the lines limit
 *           (the default, 0, 4 or 24: the last three force the one-hunk
 *           fallback on most changes); bits 5-7: the bytes limit (none,
 *           or 40, 100, 200, 400, 800, 1600, 3200);
 *   byte 1: the old text's share of the rest, in 256ths;
 *   then the old text, then the new.
 *
 * Besides crashes and sanitizer reports, it aborts when:
 * - a diff, exact or one hunk, applied to the old text as patch(1) would
 *   (tests/unit/patch_apply.h), does not give the new text, or is longer
 *   than the bytes limit;
 * - the same texts get anything but DIFF_SAME and no output, or
 *   different texts DIFF_SAME;
 * - a diff is omitted, or written in part, when the whole of it fits;
 * - a one-hunk diff has more than one hunk;
 * - the span is not where the texts differ: the lines before it and
 *   after it must be the same in both. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "diff.h"
#include "util.h"
#include "../unit/patch_apply.h"



/* The offset where line n (from 0) starts, or len. */
static size_t line_start(const char *s, size_t len, long long n)
{
	size_t at = 0;
	for (; n > 0 && at < len; n--) {
		const char *nl = memchr(s + at, '\n', len - at);
		at = nl ? (size_t)(nl - s) + 1 : len;
	}
	return at;
}

static long long count_lines(const char *s, size_t len)
{
	long long n = 0;
	for (size_t i = 0; i < len; i++)
		n += s[i] == '\n';
	return n + (len && s[len - 1] != '\n');
}

/* The lines before the span, and after it, are the same in a and b. */
static void check_span(const char *a, size_t alen, const char *b, size_t blen,
		       const struct diff_span *sp)
{
	CHECK(sp->line >= 1 && sp->old_lines >= 0 && sp->new_lines >= 0);
	CHECK(sp->line - 1 + sp->old_lines <= count_lines(a, alen));
	CHECK(sp->line - 1 + sp->new_lines <= count_lines(b, blen));
	size_t pa = line_start(a, alen, sp->line - 1), pb = line_start(b, blen, sp->line - 1);
	CHECK(pa == pb && memcmp(a, b, pa) == 0);
	size_t ea = line_start(a, alen, sp->line - 1 + sp->old_lines);
	size_t eb = line_start(b, blen, sp->line - 1 + sp->new_lines);
	CHECK(alen - ea == blen - eb && memcmp(a + ea, b + eb, alen - ea) == 0);
}

static size_t count_hunks(const struct sbuf *out)
{
	size_t n = 0;
	for (size_t i = 0; i + 3 <= out->len; i++)
		if ((i == 0 || out->buf[i - 1] == '\n') && memcmp(out->buf + i, "@@ ", 3) == 0)
			n++;
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const size_t lines_limits[] = {DIFF_LINES_MAX, 0, 4, 24};
	static const size_t bytes_limits[] = {0, 40, 100, 200, 400, 800, 1600, 3200};
	if (size < 2)
		return 0;
	int context = data[0] & 7;
	struct diff_limits lim = {lines_limits[(data[0] >> 3) & 3], bytes_limits[data[0] >> 5]};
	size_t rest = size - 2, alen = rest * data[1] / 256, blen = rest - alen;
	/* Copies of exactly their size: no NUL after them to lean on. */
	char *a = malloc(alen ? alen : 1), *b = malloc(blen ? blen : 1);
	if (!a || !b)
		abort();
	memcpy(a, data + 2, alen);
	memcpy(b, data + 2 + alen, blen);

	struct sbuf out = {0}, whole = {0}, got = {0};
	struct diff_span sp;
	enum diff_kind kind = diff_unified(&out, "old", "new", a, alen, b, blen, context, &lim, &sp);
	bool same = alen == blen && memcmp(a, b, alen) == 0;
	CHECK((kind == DIFF_SAME) == same);
	check_span(a, alen, b, blen, &sp);
	struct diff_limits unbounded = {lim.lines, 0};
	enum diff_kind wkind = diff_unified(&whole, "old", "new", a, alen, b, blen, context,
					    &unbounded, NULL);
	switch (kind) {
	case DIFF_SAME:
		CHECK(out.len == 0 && whole.len == 0 && sp.old_lines == 0 && sp.new_lines == 0);
		break;
	case DIFF_OMITTED:
		/* Only what does not fit, and then nothing of it. */
		CHECK(lim.bytes && out.len == 0 && whole.len + 30 > lim.bytes);
		break;
	case DIFF_SHOWN:
	case DIFF_ONE_HUNK:
		CHECK(wkind == kind);
		CHECK(out.len == whole.len && memcmp(out.buf, whole.buf, out.len) == 0);
		CHECK(!lim.bytes || out.len <= lim.bytes);
		CHECK(patch_apply(a, alen, out.buf, out.len, &got));
		CHECK(got.len == blen && memcmp(got.buf, b, blen) == 0);
		if (kind == DIFF_ONE_HUNK)
			CHECK(count_hunks(&out) == 1);
		break;
	}
	sbuf_free(&out);
	sbuf_free(&whole);
	sbuf_free(&got);
	free(a);
	free(b);
	return 0;
}
