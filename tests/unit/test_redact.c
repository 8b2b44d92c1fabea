/* test_redact.c: the redactor against a naive reference (every
 * position, the longest form there, left to right), over random texts
 * built from pieces of the secrets; a stream cut at random gives what
 * the whole buffer gives; each base64 form is found in a real base64
 * encoding whatever precedes and follows the secret. */
#include <stdlib.h>
#include <string.h>

#include "redact.h"
#include "tap.h"

static const char b64chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static void base64(struct sbuf *out, const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned)p[i] << 16 | (i + 1 < n ? p[i + 1] << 8 : 0) |
			     (i + 2 < n ? p[i + 2] : 0);
		sbuf_addc(out, b64chars[v >> 18 & 63]);
		sbuf_addc(out, b64chars[v >> 12 & 63]);
		sbuf_addc(out, i + 1 < n ? b64chars[v >> 6 & 63] : '=');
		sbuf_addc(out, i + 2 < n ? b64chars[v & 63] : '=');
	}
}

static void reference(const struct redact_set *s, const char *in, size_t n, struct sbuf *out)
{
	size_t i = 0;
	while (i < n) {
		const struct redact_form *best = NULL;
		for (size_t f = 0; f < s->nforms; f++) {
			const struct redact_form *c = &s->forms[f];
			if (c->len <= n - i && memcmp(in + i, c->bytes, c->len) == 0 &&
			    (!best || c->len > best->len))
				best = c;
		}
		if (best) {
			sbuf_adds(out, s->marks[best->name]);
			i += best->len;
		} else {
			sbuf_addc(out, in[i++]);
		}
	}
}

/* Whether a form is a prefix of another: then a stream may take the
 * shorter one where the whole buffer takes the longer. */
static bool nested(const struct redact_set *s)
{
	for (size_t i = 0; i < s->nforms; i++)
		for (size_t j = 0; j < s->nforms; j++)
			if (i != j && s->forms[i].len < s->forms[j].len &&
			    memcmp(s->forms[i].bytes, s->forms[j].bytes, s->forms[i].len) == 0)
				return true;
	return false;
}

static void random_secret(char *buf, size_t n, const char *alpha)
{
	size_t na = strlen(alpha);
	for (size_t i = 0; i < n; i++)
		buf[i] = alpha[rand() % (int)na];
}

static void random_text(struct sbuf *t, const struct redact_set *s, const char *alpha)
{
	size_t parts = (size_t)(rand() % 12);
	size_t na = strlen(alpha);
	for (size_t p = 0; p < parts; p++) {
		int kind = rand() % 4;
		if (kind == 0 && s->nforms) {
			const struct redact_form *f = &s->forms[rand() % (int)s->nforms];
			size_t a = (size_t)rand() % f->len, b = a + (size_t)rand() % (f->len - a + 1);
			if (rand() % 2) {
				a = 0;
				b = f->len;
			}
			sbuf_add(t, f->bytes + a, b - a);
		} else {
			size_t len = (size_t)(rand() % 6);
			for (size_t i = 0; i < len; i++)
				sbuf_addc(t, alpha[rand() % (int)na]);
		}
	}
}

static void test_against_reference(void)
{
	int mismatches = 0, stream_mismatches = 0, left = 0, rounds = 4000;
	const char *alphas[] = {"ab", "abc", "aAb+/=%", "xyz0123456789"};
	for (int r = 0; r < rounds; r++) {
		struct redact_set s = {0};
		const char *alpha = alphas[r % 4];
		int nsec = 1 + rand() % 3;
		for (int k = 0; k < nsec; k++) {
			char sec[32];
			size_t len = REDACT_MIN_LEN + (size_t)(rand() % 10);
			random_secret(sec, len, alpha);
			char name[16];
			snprintf(name, sizeof(name), "S%d", k);
			redact_add(&s, name, sec, len);
		}
		struct sbuf text = {0}, want = {0}, got = {0};
		random_text(&text, &s, alpha);
		reference(&s, text.buf ? text.buf : "", text.len, &want);
		redact_buf(&s, text.buf ? text.buf : "", text.len, false, &got);
		if (want.len != got.len || (want.len && memcmp(want.buf, got.buf, want.len) != 0)) {
			if (mismatches++ < 3)
				diag("buf: '%s' gave '%s', not '%s'", text.buf, got.buf, want.buf);
		}
		if (redact_found(&s, got.buf ? got.buf : "", got.len))
			left++;
		if (!nested(&s)) {
			struct redact_stream st = {.set = &s};
			struct sbuf out = {0};
			size_t i = 0;
			while (i < text.len) {
				size_t step = 1 + (size_t)(rand() % 7);
				if (step > text.len - i)
					step = text.len - i;
				redact_stream_feed(&st, text.buf + i, step, &out);
				i += step;
			}
			bool cut = st.held.len >= REDACT_EDGE_MIN;
			redact_stream_end(&st, &out);
			if (!cut && (out.len != want.len || (want.len && memcmp(out.buf, want.buf, want.len) != 0))) {
				if (stream_mismatches++ < 3)
					diag("stream: '%s' gave '%s', not '%s'", text.buf, out.buf, want.buf);
			}
			sbuf_free(&out);
		}
		sbuf_free(&text);
		sbuf_free(&want);
		sbuf_free(&got);
		redact_set_free(&s);
	}
	ok(mismatches == 0, "%d random texts: redact_buf gives what the reference gives", rounds);
	ok(stream_mismatches == 0, "and a stream cut at random gives the same");
	ok(left == 0, "no form is left in what comes out");
}

static void test_base64_alignments(void)
{
	const char *secret = "s3cr3t-t0ken-\xff\x01value";
	size_t n = strlen(secret);
	struct redact_set s = {0};
	ok(redact_add(&s, "TOKEN", secret, n), "a secret of %zu bytes is taken", n);
	bool all = true;
	for (size_t pre = 0; pre < 6; pre++) {
		for (size_t post = 0; post < 4; post++) {
			struct sbuf raw = {0}, enc = {0};
			for (size_t i = 0; i < pre; i++)
				sbuf_addc(&raw, (char)('A' + i));
			sbuf_add(&raw, secret, n);
			for (size_t i = 0; i < post; i++)
				sbuf_addc(&raw, (char)('z' - i));
			base64(&enc, (const unsigned char *)raw.buf, raw.len);
			if (!redact_found(&s, enc.buf, enc.len)) {
				diag("not found in base64 of %zu bytes before and %zu after: %s", pre, post,
				     enc.buf);
				all = false;
			}
			/* At the end of the encoding, nothing of it is left. */
			struct sbuf red = {0};
			redact_buf(&s, enc.buf, enc.len, false, &red);
			if (post == 0 && (red.len < 14 || strcmp(red.buf + red.len - 14, "[secret TOKEN]") != 0)) {
				diag("base64 of %zu bytes and the secret: '%s' left", pre, red.buf);
				all = false;
			}
			sbuf_free(&red);
			sbuf_free(&raw);
			sbuf_free(&enc);
		}
	}
	ok(all, "found in base64 whatever comes before and after it");
	struct sbuf out = {0};
	const char *url = "GET /?t=s3cr3t-t0ken-%FF%01value HTTP/1.1";
	redact_buf(&s, url, strlen(url), false, &out);
	is_str(out.buf, "GET /?t=[secret TOKEN] HTTP/1.1", "its URL-encoded form is replaced");
	sbuf_free(&out);
	redact_set_free(&s);
}

static void test_bounds(void)
{
	struct redact_set s = {0};
	ok(!redact_add(&s, "A", "short", 5), "a secret under %d bytes is refused", REDACT_MIN_LEN);
	char *big = malloc(REDACT_MAX_LEN + 1);
	memset(big, 'x', REDACT_MAX_LEN + 1);
	ok(!redact_add(&s, "B", big, REDACT_MAX_LEN + 1), "one over %d bytes is refused",
	   REDACT_MAX_LEN);
	free(big);
	ok(redact_empty(&s), "and nothing was added");
	redact_add(&s, "K", "0123456789abcdef", 16);
	struct sbuf out = {0};
	const char *cut = "head 0123456789ab";
	redact_buf(&s, cut, strlen(cut), true, &out);
	is_str(out.buf, "head [secret K]", "with edges, a secret cut at the end is replaced");
	sbuf_reset(&out);
	const char *rest = "89abcdef tail";
	redact_buf(&s, rest, strlen(rest), true, &out);
	is_str(out.buf, "[secret K] tail", "and its rest at the start of the next piece");
	sbuf_reset(&out);
	redact_buf(&s, "abc", 3, true, &out);
	is_str(out.buf, "abc", "a piece under %d bytes is left", REDACT_EDGE_MIN);
	sbuf_reset(&out);
	redact_buf(&s, "0123", 4, false, &out);
	is_str(out.buf, "0123", "without edges, a text that is only a piece is left (a key, a word)");
	sbuf_free(&out);

	/* A whole form first, then the edges of what is left: a form that
	 * ends in another's start is replaced whole, not cut by the edge. */
	struct redact_set two = {0};
	redact_add(&two, "A", "QQQQQQQQabcd", 12);
	redact_add(&two, "B", "abcdZZZZZZZZ", 12);
	struct sbuf o2 = {0};
	const char *t2 = "out: QQQQQQQQabcd";
	redact_buf(&two, t2, strlen(t2), true, &o2);
	is_str(o2.buf, "out: [secret A]", "a whole form wins over another's piece at the edge");
	sbuf_free(&o2);
	redact_set_free(&two);

	/* A stream passes on at once what cannot start a secret. */
	struct redact_stream st = {.set = &s};
	redact_stream_feed(&st, "prompt> ", 8, &out);
	is_str(out.buf, "prompt> ", "a stream holds nothing that cannot start a secret");
	redact_stream_feed(&st, "x 01234", 7, &out);
	is_str(out.buf, "prompt> x ", "and holds what may");
	redact_stream_feed(&st, "56789abcdef!", 12, &out);
	is_str(out.buf, "prompt> x [secret K]!", "which is replaced once whole");
	redact_stream_end(&st, &out);
	sbuf_reset(&out);
	struct redact_stream cut_st = {.set = &s};
	redact_stream_feed(&cut_st, "end 012345", 10, &out);
	redact_stream_end(&cut_st, &out);
	is_str(out.buf, "end [secret K]", "a stream that ends in a piece of one has it replaced");

	/* 10 MB with the secret in it: the held part stays small. */
	sbuf_reset(&out);
	struct redact_stream big_st = {.set = &s};
	char chunk[4096];
	size_t most = 0, found = 0;
	for (int i = 0; i < 2560; i++) {
		memset(chunk, 'y', sizeof(chunk));
		memcpy(chunk + sizeof(chunk) - 8, "01234567", 8);
		memcpy(chunk, "89abcdef", 8);
		redact_stream_feed(&big_st, chunk, sizeof(chunk), &out);
		if (big_st.held.len > most)
			most = big_st.held.len;
		found += out.len;
		sbuf_reset(&out);
	}
	redact_stream_end(&big_st, &out);
	ok(most < 16, "10 MB cut across chunks: at most %zu bytes held", most);
	sbuf_free(&out);
	redact_set_free(&s);
	(void)found;
}

int main(void)
{
	srand(7);
	test_against_reference();
	test_base64_alignments();
	test_bounds();
	return done_testing();
}
