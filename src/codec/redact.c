/* redact.c: see redact.h. Whole forms are found with memmem (linear);
 * a form's piece at an edge with the form's KMP table, run over no more
 * bytes than the form is long, so the cost per call is the text's
 * length plus the forms' for each form. */
#define _GNU_SOURCE /* memmem */
#include "redact.h"

#include <stdlib.h>
#include <string.h>

/* fail[i]: the longest proper border of p[0, i]. */
static size_t *kmp_table(const char *p, size_t len)
{
	size_t *fail = xmalloc(len * sizeof(*fail));
	fail[0] = 0;
	for (size_t i = 1, b = 0; i < len; i++) {
		while (b && p[i] != p[b])
			b = fail[b - 1];
		if (p[i] == p[b])
			b++;
		fail[i] = b;
	}
	return fail;
}

/* The longest prefix of p, shorter than it, that ends s[0, n). */
static size_t kmp_tail(const char *p, size_t len, const size_t *fail, const char *s, size_t n)
{
	size_t from = n > len - 1 ? n - (len - 1) : 0, b = 0;
	for (size_t i = from; i < n; i++) {
		while (b && (b == len || s[i] != p[b]))
			b = fail[b - 1];
		if (s[i] == p[b])
			b++;
	}
	return b == len ? fail[b - 1] : b;
}

void redact_set_free(struct redact_set *s)
{
	for (size_t i = 0; i < s->nforms; i++) {
		free(s->forms[i].bytes);
		free(s->forms[i].fail);
		free(s->forms[i].rev);
		free(s->forms[i].rfail);
	}
	free(s->forms);
	for (size_t i = 0; i < s->names.n; i++)
		free(s->marks[i]);
	free(s->marks);
	strvec_clear(&s->names);
	*s = (struct redact_set){0};
}

bool redact_empty(const struct redact_set *s)
{
	return s->nforms == 0;
}

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void redact_base64_form(struct sbuf *out, const unsigned char *value, size_t n, int k)
{
	/* k zero bytes, the value, and zeros to a whole group. */
	size_t len = (size_t)k + n, padded = (len + 2) / 3 * 3;
	unsigned char *b = calloc(padded ? padded : 1, 1);
	if (!b)
		abort();
	memcpy(b + k, value, n);
	/* Character j holds bits [6j, 6j + 6): it is the value's alone when
	 * they lie in [8k, 8(k + n)). */
	size_t first = ((size_t)k * 8 + 5) / 6, end = len * 8 / 6;
	for (size_t j = first; j < end; j++) {
		size_t bit = j * 6, byte = bit / 8, shift = bit % 8;
		unsigned v = (unsigned)b[byte] << 8 | (byte + 1 < padded ? b[byte + 1] : 0);
		sbuf_addc(out, b64[(v >> (10 - shift)) & 63]);
	}
	free(b);
}

/* The base64 of value at alignment k when it ends the encoding: its
 * characters through the padding, which then depend on it alone. */
static void base64_end_form(struct sbuf *out, const unsigned char *value, size_t n, int k)
{
	size_t len = (size_t)k + n;
	struct sbuf all = {0};
	redact_base64_form(&all, value, n, k);
	sbuf_add(out, all.buf, all.len);
	sbuf_free(&all);
	if (len % 3 == 0)
		return;
	/* The last group's characters: its bits, then '=' for each byte
	 * short of three. */
	unsigned char last[3] = {0, 0, 0};
	size_t have = len % 3, start = len - have;
	for (size_t i = 0; i < have; i++)
		last[i] = start + i >= (size_t)k ? value[start + i - (size_t)k] : 0;
	unsigned v = (unsigned)last[0] << 16 | (unsigned)last[1] << 8;
	/* The group's chars so far (2 with one byte, 3 with two): the last
	 * one holds the padding's zero bits, and is not in all yet. */
	sbuf_addc(out, b64[(v >> (have == 1 ? 12 : 6)) & 63]);
	sbuf_adds(out, have == 1 ? "==" : "=");
}

void redact_url_form(struct sbuf *out, const unsigned char *value, size_t n)
{
	static const char hex[] = "0123456789ABCDEF";
	for (size_t i = 0; i < n; i++) {
		unsigned char c = value[i];
		if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		    c == '-' || c == '.' || c == '_' || c == '~') {
			sbuf_addc(out, (char)c);
		} else {
			sbuf_addc(out, '%');
			sbuf_addc(out, hex[c >> 4]);
			sbuf_addc(out, hex[c & 15]);
		}
	}
}

static void add_form(struct redact_set *s, struct sbuf *f, size_t name)
{
	for (size_t i = 0; i < s->nforms; i++)
		if (s->forms[i].len == f->len && memcmp(s->forms[i].bytes, f->buf, f->len) == 0) {
			sbuf_free(f);
			return;
		}
	if (f->len < REDACT_EDGE_MIN) {
		sbuf_free(f);
		return;
	}
	char *rev = xmalloc(f->len);
	for (size_t j = 0; j < f->len; j++)
		rev[j] = f->buf[f->len - 1 - j];
	s->forms = xrealloc(s->forms, (s->nforms + 1) * sizeof(*s->forms));
	s->forms[s->nforms++] = (struct redact_form){
		f->buf, f->len, name, kmp_table(f->buf, f->len), rev, kmp_table(rev, f->len)};
	if (f->len > s->maxlen)
		s->maxlen = f->len;
	*f = (struct sbuf){0};
}

bool redact_add(struct redact_set *s, const char *name, const char *value, size_t n)
{
	if (n < REDACT_MIN_LEN || n > REDACT_MAX_LEN)
		return false;
	size_t id = s->names.n;
	strvec_push(&s->names, name);
	s->marks = xrealloc(s->marks, s->names.n * sizeof(*s->marks));
	s->marks[id] = xasprintf("[secret %s]", name);
	struct sbuf f = {0};
	sbuf_add(&f, value, n);
	add_form(s, &f, id);
	for (int k = 0; k < 3; k++) {
		redact_base64_form(&f, (const unsigned char *)value, n, k);
		add_form(s, &f, id);
		base64_end_form(&f, (const unsigned char *)value, n, k);
		add_form(s, &f, id);
	}
	redact_url_form(&f, (const unsigned char *)value, n);
	add_form(s, &f, id);
	return true;
}

/* The whole forms of a text, found left to right: each form's next
 * occurrence is looked for once, and again only when a replacement went
 * past it, so every form's search moves forward only and the whole scan
 * is linear in the text for each form (a text that repeats one form
 * does not make the others search it again from each replacement). */
struct finder {
	const struct redact_set *s;
	const char *in;
	size_t n;
	size_t *next; /* each form's next start at or after the last from; n: none */
	bool *known;
};

static void finder_init(struct finder *fd, const struct redact_set *s, const char *in, size_t n)
{
	*fd = (struct finder){s, in, n, xmalloc((s->nforms ? s->nforms : 1) * sizeof(size_t)),
			      xmalloc((s->nforms ? s->nforms : 1) * sizeof(bool))};
	memset(fd->known, 0, (s->nforms ? s->nforms : 1) * sizeof(bool));
}

static void finder_free(struct finder *fd)
{
	free(fd->next);
	free(fd->known);
}

/* The first whole form at or after from (leftmost, then longest): its
 * start in *at, or NULL. */
static const struct redact_form *finder_next(struct finder *fd, size_t from, size_t *at)
{
	const struct redact_form *best = NULL;
	for (size_t i = 0; i < fd->s->nforms; i++) {
		const struct redact_form *f = &fd->s->forms[i];
		if (!fd->known[i] || (fd->next[i] < fd->n && fd->next[i] < from)) {
			const char *p = from < fd->n ? memmem(fd->in + from, fd->n - from, f->bytes, f->len)
						     : NULL;
			fd->next[i] = p ? (size_t)(p - fd->in) : fd->n;
			fd->known[i] = true;
		}
		size_t pos = fd->next[i];
		if (pos >= fd->n)
			continue;
		if (!best || pos < *at || (pos == *at && f->len > best->len)) {
			best = f;
			*at = pos;
		}
	}
	return best;
}

bool redact_found(const struct redact_set *s, const char *in, size_t n)
{
	struct finder fd;
	size_t at;
	finder_init(&fd, s, in, n);
	bool found = finder_next(&fd, 0, &at) != NULL;
	finder_free(&fd);
	return found;
}

/* in[0, n) with its whole forms replaced, onto out; *first and *last say
 * where the text before the first replacement ends and where the text
 * after the last begins (0 and n when there was none). */
static void replace_whole(const struct redact_set *s, const char *in, size_t n, struct sbuf *out,
			  size_t *first, size_t *last)
{
	struct finder fd;
	size_t at, from = 0;
	const struct redact_form *f;
	finder_init(&fd, s, in, n);
	*first = n;
	while ((f = finder_next(&fd, from, &at))) {
		if (*first == n)
			*first = at;
		sbuf_add(out, in + from, at - from);
		sbuf_adds(out, s->marks[f->name]);
		from = at + f->len;
	}
	sbuf_add(out, in + from, n - from);
	*last = from;
	finder_free(&fd);
}

/* The longest piece of a form's start ending in[0, n): its length, and
 * the form's name in *name. */
static size_t tail_piece(const struct redact_set *s, const char *in, size_t n, size_t *name)
{
	size_t best = 0;
	for (size_t i = 0; i < s->nforms; i++) {
		const struct redact_form *f = &s->forms[i];
		size_t t = kmp_tail(f->bytes, f->len, f->fail, in, n);
		if (t > best) {
			best = t;
			*name = s->forms[i].name;
		}
	}
	return best;
}

/* The longest piece of a form's end starting in[0, n): reversed, it is
 * tail_piece's case, over no more bytes than the form is long. */
static size_t head_piece(const struct redact_set *s, const char *in, size_t n, size_t *name)
{
	size_t best = 0;
	for (size_t i = 0; i < s->nforms; i++) {
		const struct redact_form *f = &s->forms[i];
		size_t m = f->len - 1 < n ? f->len - 1 : n;
		char *rt = xmalloc(m ? m : 1);
		for (size_t j = 0; j < m; j++)
			rt[j] = in[m - 1 - j];
		size_t t = kmp_tail(f->rev, f->len, f->rfail, rt, m);
		free(rt);
		if (t > best) {
			best = t;
			*name = f->name;
		}
	}
	return best;
}

void redact_buf(const struct redact_set *s, const char *in, size_t n, bool edges,
		struct sbuf *out)
{
	if (!s || !s->nforms) {
		sbuf_add(out, in, n);
		return;
	}
	struct sbuf whole = {0};
	size_t first, last;
	replace_whole(s, in, n, &whole, &first, &last);
	if (!edges) {
		sbuf_add(out, whole.buf ? whole.buf : "", whole.len);
		sbuf_free(&whole);
		return;
	}
	/* The pieces at the edges, looked for once the whole forms are out:
	 * in the text before the first replacement, and after the last. */
	size_t head = 0, tail = 0, hname = 0, tname = 0;
	head = head_piece(s, in, first, &hname);
	if (head < REDACT_EDGE_MIN)
		head = 0;
	tail = tail_piece(s, in + last, n - last, &tname);
	if (tail < REDACT_EDGE_MIN || (first == n && head + tail > n))
		tail = 0;
	if (head)
		sbuf_adds(out, s->marks[hname]);
	/* whole holds in[0, first) as it was, then the rest: the head piece
	 * is its start, the tail piece its end. */
	sbuf_add(out, whole.buf + head, whole.len - head - tail);
	if (tail)
		sbuf_adds(out, s->marks[tname]);
	sbuf_free(&whole);
}

void redact_stream_feed(struct redact_stream *st, const char *in, size_t n, struct sbuf *out)
{
	if (!st->set || !st->set->nforms) {
		sbuf_add(out, in, n);
		return;
	}
	struct sbuf *h = &st->held;
	sbuf_add(h, in, n);
	/* Whole forms first; what follows the last may start one. */
	struct finder fd;
	size_t from = 0, at, name;
	const struct redact_form *f;
	finder_init(&fd, st->set, h->buf, h->len);
	while ((f = finder_next(&fd, from, &at))) {
		sbuf_add(out, h->buf + from, at - from);
		sbuf_adds(out, st->set->marks[f->name]);
		from = at + f->len;
	}
	finder_free(&fd);
	size_t keep = tail_piece(st->set, h->buf + from, h->len - from, &name);
	sbuf_add(out, h->buf + from, h->len - from - keep);
	memmove(h->buf, h->buf + h->len - keep, keep);
	h->len = keep;
	h->buf[keep] = '\0';
}

void redact_stream_end(struct redact_stream *st, struct sbuf *out)
{
	size_t name = 0;
	if (st->set && st->held.len >= REDACT_EDGE_MIN &&
	    tail_piece(st->set, st->held.buf, st->held.len, &name) == st->held.len)
		sbuf_adds(out, st->set->marks[name]);
	else
		sbuf_add(out, st->held.buf ? st->held.buf : "", st->held.len);
	sbuf_free(&st->held);
}
