/* listing.c: see listing.h. Every byte of the answer is looked at a
 * bounded number of times: once as it comes, and again when it was read
 * ahead for a kept name with a newline that was not there; each kept
 * name is tried on 2 * LISTING_NL_SLACK + 1 lines at most, and reads
 * ahead its own length, so those bytes read again are at most that
 * factor times the kept names' bytes. */
#include "listing.h"

#include <stdlib.h>
#include <string.h>

#include "json.h"

void listing_init(struct listing *l,
		  void (*entry)(void *ctx, const char *rel, size_t len, long long mtime), void *ctx)
{
	memset(l, 0, sizeof(*l));
	l->entry = entry;
	l->ctx = ctx;
}

void listing_free(struct listing *l)
{
	free(l->nl);
	sbuf_free(&l->nl_text);
	l->nl = NULL;
	l->nl_n = l->nl_head = l->nl_cap = 0;
}

/* ---- the names ---- */

/* A name of the first part: kept when it holds a newline, so that its
 * stat line can be read whole. */
static void listing_name(struct listing *l)
{
	const char *rel = l->name;
	size_t len = l->name_len;
	if (len >= 2 && memcmp(rel, "./", 2) == 0) {
		rel += 2;
		len -= 2;
	}
	if (l->name_long || len == 0 || len > LISTING_NAME_MAX || !memchr(rel, '\n', len))
		return;
	if (l->nl_text.len + len + (l->nl_n + 1) * sizeof(*l->nl) > LISTING_NL_MAX)
		return; /* its line will be read up to its first newline */
	if (l->nl_n == l->nl_cap) {
		l->nl_cap = l->nl_cap ? 2 * l->nl_cap : 16;
		l->nl = xrealloc(l->nl, l->nl_cap * sizeof(*l->nl));
	}
	l->nl[l->nl_n++] = (struct listing_nl){.index = l->names, .off = l->nl_text.len, .len = len};
	sbuf_add(&l->nl_text, rel, len);
}

/* Reads names up to the empty one; returns the bytes taken. */
static size_t listing_names(struct listing *l, const char *buf, size_t n)
{
	size_t used = 0;
	while (used < n) {
		const char *p = buf + used, *z = memchr(p, '\0', n - used);
		size_t take = z ? (size_t)(z - p) : n - used;
		if (l->name_len + take <= LISTING_NAME_MAX + 2) {
			memcpy(l->name + l->name_len, p, take);
			l->name_len += take;
		} else {
			l->name_long = true;
		}
		used += take;
		if (!z)
			break;
		used++;
		if (l->name_len == 0 && !l->name_long) {
			l->in_stats = true;
			break;
		}
		listing_name(l);
		l->names++;
		l->name_len = 0;
		l->name_long = false;
	}
	return used;
}

/* ---- the stat lines ---- */

/* The length of the "MTIME ./" that starts s[0..n), its number in
 * *mtime; 0 while s may still become one, -1 when it cannot. */
static int listing_prefix(const char *s, size_t n, long long *mtime)
{
	static const char sep[] = " ./";
	size_t i = n > 0 && s[0] == '-' ? 1 : 0, digits = i;
	long long v = 0;
	for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
		if (i - digits == 18)
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	if (i == n)
		return 0;
	if (i == digits)
		return -1;
	for (size_t k = 0; k < 3; k++, i++) {
		if (i == n)
			return 0;
		if (s[i] != sep[k])
			return -1;
	}
	*mtime = s[0] == '-' ? -v : v;
	return (int)i;
}

static void listing_entry(struct listing *l, char *rel, size_t len, long long mtime)
{
	l->records++;
	if (len == 0 || len > LISTING_NAME_MAX || memchr(rel, '\0', len))
		return;
	char after = rel[len];
	rel[len] = '\0';
	l->entry(l->ctx, rel, len, mtime);
	rel[len] = after;
}

static void listing_next(struct listing *l)
{
	l->rec_len = l->pfx = l->want = 0;
	l->as_nl = false;
}

/* A line is whole (it ends with its newline): a stat line, or skipped. */
static void listing_line(struct listing *l)
{
	long long t = 0;
	int p = listing_prefix(l->rec, l->rec_len, &t);
	if (p > 0)
		listing_entry(l, l->rec + p, l->rec_len - 1 - (size_t)p, t);
	listing_next(l);
}

/* The line read as a kept name is not that name: the next one is tried
 * on the same bytes, read again, and then the line as any other. */
static void listing_not_nl(struct listing *l)
{
	l->try_next++;
	memcpy(l->pend, l->rec, l->rec_len);
	l->pend_len = l->rec_len;
	listing_next(l);
}

/* The line read as a kept name has its length: is it that name? */
static void listing_judge(struct listing *l)
{
	const struct listing_nl *h = &l->nl[l->try_next];
	if (l->rec[l->want - 1] != '\n' || memcmp(l->rec + l->pfx, l->nl_text.buf + h->off, h->len) != 0) {
		listing_not_nl(l);
		return;
	}
	/* The kept names before it did not come: their files went. */
	l->nl_head = l->try_next + 1;
	listing_entry(l, l->rec + l->pfx, h->len, l->mtime);
	listing_next(l);
}

/* A line begins: is it one of the kept names with a newline, whose
 * place is near? Each kept name is tried on at most 2 * SLACK + 1
 * lines, so the bytes read again stay a constant factor. */
static void listing_start(struct listing *l)
{
	while (l->nl_head < l->nl_n && l->nl[l->nl_head].index + LISTING_NL_SLACK < l->records)
		l->nl_head++; /* its line never came */
	if (l->try_rec != l->records || l->try_next < l->nl_head) {
		l->try_rec = l->records;
		l->try_next = l->nl_head;
	}
	l->as_nl = l->try_next < l->nl_n && l->nl[l->try_next].index <= l->records + LISTING_NL_SLACK;
}

/* Takes one step of a line read as a kept name: the prefix a byte at a
 * time (it never takes a byte of the name), then the name. */
static size_t listing_step_nl(struct listing *l, const char *p, size_t left)
{
	if (!l->want) {
		l->rec[l->rec_len++] = *p;
		int r = listing_prefix(l->rec, l->rec_len, &l->mtime);
		if (r > 0) {
			l->pfx = (size_t)r;
			l->want = l->pfx + l->nl[l->try_next].len + 1;
		} else if (r < 0) {
			l->as_nl = false; /* not a stat line: read as any other */
			if (*p == '\n')
				listing_line(l);
		}
		return 1;
	}
	size_t take = l->want - l->rec_len < left ? l->want - l->rec_len : left;
	memcpy(l->rec + l->rec_len, p, take);
	l->rec_len += take;
	if (l->rec_len == l->want)
		listing_judge(l);
	return take;
}

/* Takes one step of any other line: up to its newline. */
static size_t listing_step_line(struct listing *l, const char *p, size_t left)
{
	size_t room = LISTING_REC_MAX - l->rec_len, span = left < room ? left : room;
	const char *nl = memchr(p, '\n', span);
	size_t take = nl ? (size_t)(nl - p) + 1 : span;
	memcpy(l->rec + l->rec_len, p, take);
	l->rec_len += take;
	if (nl) {
		listing_line(l);
	} else if (l->rec_len == LISTING_REC_MAX) {
		/* Too long for a name: a stat line still counts, for the order. */
		long long t;
		if (listing_prefix(l->rec, l->rec_len, &t) > 0)
			l->records++;
		listing_next(l);
		l->skipping = true;
	}
	return take;
}

/* Reads stat lines; returns the bytes taken, fewer than n only when
 * bytes read ahead wait in pend, to be read first. */
static size_t listing_stats(struct listing *l, const char *buf, size_t n)
{
	size_t used = 0;
	while (used < n && !l->pend_len) {
		const char *p = buf + used;
		size_t left = n - used;
		if (l->skipping) {
			const char *nl = memchr(p, '\n', left);
			used += nl ? (size_t)(nl - p) + 1 : left;
			l->skipping = !nl;
			continue;
		}
		if (l->rec_len == 0)
			listing_start(l);
		used += l->as_nl ? listing_step_nl(l, p, left) : listing_step_line(l, p, left);
	}
	return used;
}

/* Reads what waits in pend, then buf. What pend holds was read from
 * fewer bytes than it replaces, so it always fits. */
static void listing_drain(struct listing *l, const char *buf, size_t n)
{
	for (;;) {
		if (l->pend_len) {
			char tmp[LISTING_REC_MAX];
			size_t tn = l->pend_len, used;
			memcpy(tmp, l->pend, tn);
			l->pend_len = 0;
			used = listing_stats(l, tmp, tn);
			memcpy(l->pend + l->pend_len, tmp + used, tn - used);
			l->pend_len += tn - used;
			continue;
		}
		if (!n)
			return;
		size_t used = listing_stats(l, buf, n);
		buf += used;
		n -= used;
	}
}

void listing_feed(struct listing *l, const char *buf, size_t n)
{
	if (!l->in_stats) {
		size_t used = listing_names(l, buf, n);
		buf += used;
		n -= used;
	}
	if (l->in_stats)
		listing_drain(l, buf, n);
}

void listing_finish(struct listing *l)
{
	/* A line read as a kept name, cut short: it is not that name. A
	 * last line without its newline is dropped. */
	while (l->in_stats && l->as_nl && l->want) {
		listing_not_nl(l);
		listing_drain(l, "", 0);
	}
	listing_next(l);
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
