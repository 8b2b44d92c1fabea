/* fuzz_redact.c: a libFuzzer target for the redactor (src/codec/redact.c),
 * which reads the output of every call when secrets are set: bytes that
 * a workspace that holds the secrets writes as it likes, pieces of them
 * cut anywhere.
 *
 * An input is 4 bytes that seed the chunking, a byte n (the secret's
 * length, REDACT_MIN_LEN and up), n bytes of secret, then the text. The
 * text goes through redact_buf whole and through a redact_stream in
 * chunks. It aborts when a form is left in either output (between the
 * marks: a mark's ']' and what follows may spell a secret that starts
 * with one), when the
 * stream holds back more than the longest form, or when the stream's
 * output is not the whole buffer's (the forms of one secret are never
 * a prefix of one another but when the value's form is its URL form,
 * which is then one form). */
#define _GNU_SOURCE /* memmem */
#include <string.h>

#include "fuzz.h"
#include "redact.h"

/* Whether a form is in out's text between the marks: the marks' own
 * bytes may spell one with their neighbours (a secret that starts with
 * ']'), which is no secret shown. */
static bool found_outside_marks(const struct redact_set *s, const struct sbuf *out)
{
	const char *p = out->buf ? out->buf : "", *end = p + out->len;
	const char *mark = s->marks[0];
	size_t ml = strlen(mark);
	while (p < end) {
		const char *m = memmem(p, (size_t)(end - p), mark, ml);
		size_t n = m ? (size_t)(m - p) : (size_t)(end - p);
		if (redact_found(s, p, n))
			return true;
		p += n + (m ? ml : 0);
	}
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 5)
		return 0;
	struct fuzz_chunks ch;
	fuzz_chunks_init(&ch, data);
	size_t n = REDACT_MIN_LEN + data[4] % 24;
	if (size < 5 + n)
		return 0;
	const char *secret = (const char *)data + 5, *text = secret + n;
	size_t len = size - 5 - n;
	struct redact_set s = {0};
	CHECK(redact_add(&s, "S", secret, n));
	bool nested = false;
	for (size_t i = 0; i < s.nforms; i++)
		for (size_t j = 0; j < s.nforms; j++)
			nested |= i != j && s.forms[i].len < s.forms[j].len &&
				  memcmp(s.forms[i].bytes, s.forms[j].bytes, s.forms[i].len) == 0;
	struct sbuf whole = {0}, streamed = {0};
	redact_buf(&s, text, len, false, &whole);
	CHECK(!found_outside_marks(&s, &whole));
	struct redact_stream st = {.set = &s};
	size_t off = 0;
	while (off < len) {
		size_t k = fuzz_chunk_next(&ch, len - off);
		redact_stream_feed(&st, text + off, k, &streamed);
		CHECK(st.held.len < s.maxlen);
		off += k;
	}
	bool cut = st.held.len >= REDACT_EDGE_MIN;
	redact_stream_end(&st, &streamed);
	CHECK(!found_outside_marks(&s, &streamed));
	if (!nested && !cut)
		CHECK(whole.len == streamed.len &&
		      (!whole.len || memcmp(whole.buf, streamed.buf, whole.len) == 0));
	struct sbuf edged = {0};
	redact_buf(&s, text, len, true, &edged);
	CHECK(!found_outside_marks(&s, &edged));
	sbuf_free(&whole);
	sbuf_free(&streamed);
	sbuf_free(&edged);
	redact_set_free(&s);
	return 0;
}
