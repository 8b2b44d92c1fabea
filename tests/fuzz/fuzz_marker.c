/* fuzz_marker.c: a libFuzzer target for the marker scanner (src/wire/marker.c),
 * which reads the output of every call in a workspace: hostile bytes
 * that may imitate a marker, or cut one anywhere.
 *
 * `make fuzz` builds it as build/fuzz/fuzz_marker; to run it longer than
 * `make fuzz-check` does:
 *   build/fuzz/fuzz_marker -max_total_time=600 build/fuzz/corpus_marker tests/fuzz/corpus_marker
 *
 * An input is 4 bytes that seed the chunking, 16 bytes of tag (a \036
 * in it is read as 'x': the scanner relies on a tag without one, and
 * real tags are hex), then the stream. The seeds (tests/fuzz/corpus_marker)
 * were written by hand with printf: exec output with its begin, pid and
 * end markers, markers cut short, with a wrong tag, an upper-case or
 * too long word, stray \036 bytes, and markers back to back.
 *
 * The stream goes through the scanner in chunks whose sizes come from
 * the seed, and through a plain reference scanner written here from
 * marker.h (a marker is \036 TAG ':' WORD \036, WORD at most
 * MARKER_WORD_MAX - 1 of [a-z0-9:]; everything else is data). It aborts
 * when the data bytes or the markers differ, or come in another order,
 * when data comes in an empty call, or a word is not a word. */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "fuzz.h"
#include "marker.h"
#include "util.h"

/* Data and markers as one sequence: data bytes as they are (0xff
 * doubled), a marker as 0xff 'M' WORD 0xff 'E'. */
static void fz_marker_data(void *ctx, const char *buf, size_t n)
{
	struct sbuf *log = ctx;
	CHECK(n > 0);
	for (size_t i = 0; i < n; i++) {
		if ((unsigned char)buf[i] == 0xff)
			sbuf_addc(log, (char)0xff);
		sbuf_addc(log, buf[i]);
	}
}

static bool fz_marker_word_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == ':';
}

static void fz_marker_marker(void *ctx, const char *word)
{
	struct sbuf *log = ctx;
	size_t n = strlen(word);
	CHECK(n < MARKER_WORD_MAX);
	for (size_t i = 0; i < n; i++)
		CHECK(fz_marker_word_char((unsigned char)word[i]));
	sbuf_adds(log, "\xffM");
	sbuf_adds(log, word);
	sbuf_adds(log, "\xff" "E");
}

/* The length of the marker at s[0, n), or 0 if there is none there. */
static size_t fz_marker_at(const char *tag, const char *s, size_t n)
{
	size_t i = 0;
	if (n < MARKER_TAG_LEN + 3 || s[i++] != '\036')
		return 0;
	if (memcmp(s + i, tag, MARKER_TAG_LEN) != 0)
		return 0;
	i += MARKER_TAG_LEN;
	if (s[i++] != ':')
		return 0;
	for (size_t w = 0; i < n && w < MARKER_WORD_MAX - 1 && fz_marker_word_char((unsigned char)s[i]); w++)
		i++;
	return i < n && s[i] == '\036' ? i + 1 : 0;
}

/* The reference: at each \036, a whole marker or one byte of data. */
static void fz_marker_reference(struct sbuf *log, const char *tag, const char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		size_t m = fz_marker_at(tag, s + i, n - i);
		if (m == 0) {
			fz_marker_data(log, s + i, 1);
			i++;
			continue;
		}
		char word[MARKER_WORD_MAX + 1];
		size_t wlen = m - (MARKER_TAG_LEN + 3);
		memcpy(word, s + i + MARKER_TAG_LEN + 2, wlen);
		word[wlen] = '\0';
		fz_marker_marker(log, word);
		i += m;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 4 + MARKER_TAG_LEN)
		return 0;
	char tag[MARKER_TAG_LEN + 1];
	for (size_t i = 0; i < MARKER_TAG_LEN; i++)
		tag[i] = data[4 + i] == '\036' ? 'x' : (char)data[4 + i];
	tag[MARKER_TAG_LEN] = '\0';
	size_t n = size - 4 - MARKER_TAG_LEN;
	char *s = malloc(n ? n : 1);
	if (!s)
		return 0;
	memcpy(s, data + 4 + MARKER_TAG_LEN, n);

	struct sbuf want = {0}, got = {0};
	sbuf_add(&want, "", 0);
	sbuf_add(&got, "", 0);
	fz_marker_reference(&want, tag, s, n);

	struct marker_scan scan;
	struct marker_sink sink = {fz_marker_data, fz_marker_marker, &got};
	struct fuzz_chunks chunks;
	marker_init(&scan, tag);
	fuzz_chunks_init(&chunks, data);
	for (size_t at = 0; at < n;) {
		size_t k = fuzz_chunk_next(&chunks, n - at);
		marker_feed(&scan, s + at, k, &sink);
		at += k;
	}
	marker_flush(&scan, &sink);
	CHECK(scan.npend == 0);

	if (got.len != want.len || memcmp(got.buf, want.buf, want.len) != 0) {
		fprintf(stderr, "scanner and reference differ: %zu and %zu bytes of log\n", got.len,
			want.len);
		abort();
	}
	sbuf_free(&want);
	sbuf_free(&got);
	free(s);
	return 0;
}
