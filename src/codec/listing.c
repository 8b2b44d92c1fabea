/* listing.c: see listing.h. Each byte of the answer is looked at once,
 * as it comes; nothing is kept but the bytes between two cuts that can
 * still be a name, and the few after the last newline that can still
 * be the start of a record. */
#include "listing.h"

#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "util.h"

/* The state between two cuts, as at the start of one. */
static void listing_seg_reset(struct listing *l)
{
	l->seg_len = l->name_len = l->head_len = 0;
	l->has_nl = l->name_long = l->head_ok = false;
}

void listing_init(struct listing *l,
		  void (*entry)(void *ctx, const char *rel, size_t len, long long mtime), void *ctx)
{
	memset(l, 0, sizeof(*l));
	l->entry = entry;
	l->ctx = ctx;
	l->head_ok = true; /* the answer's start is a record's start */
}

/* The start of a record: an optional '-', 1 to 18 digits, " .", all of
 * s[0..n); its number in *mtime. */
static bool listing_head(const char *s, size_t n, long long *mtime)
{
	size_t i = n > 0 && s[0] == '-' ? 1 : 0, digits = i;
	long long v = 0;
	for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
		if (i - digits == 18)
			return false;
		v = v * 10 + (s[i] - '0');
	}
	if (i == digits || n - i != 2 || s[i] != ' ' || s[i + 1] != '.')
		return false;
	*mtime = s[0] == '-' ? -v : v;
	return true;
}

/* A "//": the open record ends at the last newline before it, and the
 * bytes after that newline start the next one. */
static void listing_cut(struct listing *l)
{
	size_t len = l->name_len;
	if (l->open && l->has_nl && !l->name_long && len > 0 && !memchr(l->seg, '\0', len)) {
		l->seg[len] = '\0';
		l->entry(l->ctx, l->seg, len, l->mtime);
	}
	l->open = l->head_ok && listing_head(l->head, l->head_len, &l->mtime);
	listing_seg_reset(l);
}

/* One byte between two cuts. */
static void listing_byte(struct listing *l, char c)
{
	if (c == '\n') {
		l->has_nl = true;
		l->name_long = l->seg_len > LISTING_NAME_MAX;
		l->name_len = l->name_long ? 0 : l->seg_len;
		l->head_len = 0;
		l->head_ok = true;
	} else if (l->head_len < LISTING_HEAD_MAX) {
		l->head[l->head_len++] = c;
	} else {
		l->head_ok = false; /* too long for a record's start */
	}
	if (l->seg_len <= LISTING_NAME_MAX)
		l->seg[l->seg_len++] = c;
}

void listing_feed(struct listing *l, const char *buf, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char c = buf[i];
		if (c == '/' && l->slash) {
			l->slash = false;
			listing_cut(l);
			continue;
		}
		if (l->slash)
			listing_byte(l, '/');
		l->slash = c == '/';
		if (!l->slash)
			listing_byte(l, c);
	}
}

void listing_finish(struct listing *l)
{
	void (*entry)(void *, const char *, size_t, long long) = l->entry;
	void *ctx = l->ctx;
	listing_init(l, entry, ctx);
}

/* ---- the newest names ---- */

/* Glob's order: newer first, then by name. */
static int listing_order(const struct listing_found *a, const struct listing_found *b)
{
	if (a->mtime != b->mtime)
		return a->mtime > b->mtime ? -1 : 1;
	return strcmp(a->rel, b->rel);
}

static int listing_order_cb(const void *a, const void *b)
{
	return listing_order(a, b);
}

void listing_newest_init(struct listing_newest *t, size_t max, size_t max_bytes)
{
	memset(t, 0, sizeof(*t));
	t->max = max;
	t->max_bytes = max_bytes;
}

static void listing_swap(struct listing_found *a, struct listing_found *b)
{
	struct listing_found x = *a;
	*a = *b;
	*b = x;
}

/* The heap keeps the last in glob's order on top. */
static void listing_sift_up(struct listing_newest *t, size_t i)
{
	while (i > 0 && listing_order(&t->v[(i - 1) / 2], &t->v[i]) < 0) {
		listing_swap(&t->v[(i - 1) / 2], &t->v[i]);
		i = (i - 1) / 2;
	}
}

static void listing_sift_down(struct listing_newest *t, size_t i)
{
	for (;;) {
		size_t c = 2 * i + 1, top = i;
		if (c < t->n && listing_order(&t->v[top], &t->v[c]) < 0)
			top = c;
		if (c + 1 < t->n && listing_order(&t->v[top], &t->v[c + 1]) < 0)
			top = c + 1;
		if (top == i)
			return;
		listing_swap(&t->v[top], &t->v[i]);
		i = top;
	}
}

/* Leaves out the last kept; it becomes the edge, since everything left
 * out before it comes after it. */
static void listing_leave_out(struct listing_newest *t)
{
	struct listing_found last = t->v[0];
	t->v[0] = t->v[--t->n];
	listing_sift_down(t, 0);
	t->bytes -= json_quoted_len(last.rel, strlen(last.rel));
	free(t->edge.rel);
	t->edge = last;
	t->left_out = true;
}

void listing_newest_add(struct listing_newest *t, const char *rel, size_t len, long long mtime)
{
	struct listing_found f = {.rel = (char *)rel, .mtime = mtime};
	t->total++;
	/* Everything kept comes before everything left out: what comes
	 * after the edge can never be shown. */
	if (t->left_out && listing_order(&f, &t->edge) >= 0)
		return;
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 64;
		t->v = xrealloc(t->v, t->cap * sizeof(*t->v));
	}
	f.rel = xstrndup(rel, len);
	t->v[t->n++] = f;
	t->bytes += json_quoted_len(rel, len);
	listing_sift_up(t, t->n - 1);
	while (t->n > t->max || t->bytes > t->max_bytes)
		listing_leave_out(t);
}

void listing_newest_sort(struct listing_newest *t)
{
	if (t->n > 1) /* qsort's pointer must not be NULL, even for 0 */
		qsort(t->v, t->n, sizeof(*t->v), listing_order_cb);
}

void listing_newest_free(struct listing_newest *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i].rel);
	free(t->v);
	free(t->edge.rel);
	memset(t, 0, sizeof(*t));
}
