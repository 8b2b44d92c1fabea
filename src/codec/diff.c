/* diff.c: see diff.h. To print what GNU diff prints, this follows the
 * same published methods in the same order, so that the same lines come
 * out as changed where several edit scripts are equally short:
 *
 *  0. Identical leading and trailing lines are set aside, all but
 *     `context` of them at each end: this decides, among equal choices,
 *     which of several equal lines counts as the changed one.
 *  1. Lines become numbers: equal lines, equal numbers.
 *  2. Lines that cannot match (absent from the other file) are set aside
 *     as changed before the search, as are lines that occur very often
 *     in the other file when they sit inside a run of such lines.
 *  3. Myers' O((N+M)D) search, bidirectional ("An O(ND) Difference
 *     Algorithm and Its Variations", 1986, section 4b): find the middle
 *     snake of a shortest edit script, then solve both halves.
 *  4. Runs of changed lines slide to a canonical place: as far down as
 *     they go within the middle part, merging with their neighbours,
 *     then back up to line up with a run of changes in the other file.
 *  5. Hunks: changes at most 2 * context unchanged lines apart share one.
 *
 * What it may cost is bounded: only the differing middle, and `context`
 * lines around it, is ever split into lines; past lim->lines lines it is
 * not searched but replaced as a whole, in one hunk; and the output stops
 * at lim->bytes. */
#include "diff.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Steps 1 to 4 see only the middle part of each file, lines [base,
 * base + n) of its window, and number them from 0. The window is the
 * middle and the context lines around it: the only lines ever split. */
struct diff_file {
	const char *buf;     /* the window */
	ptrdiff_t lines;     /* the lines of the window */
	size_t *start;       /* lines + 1 offsets: line i is [start[i], start[i+1]) */
	long long skip;      /* lines of the file before the window */
	ptrdiff_t base, n;   /* the middle part */
	size_t *cls;         /* equivalence class of each line of the middle */
	char *flags;         /* n + 2, for a sentinel on each side */
	char *changed;       /* flags + 1: changed[-1] and changed[n] are 0 */
	ptrdiff_t nu;        /* lines kept for the search */
	size_t *ucls;        /* their classes */
	ptrdiff_t *real;     /* their line numbers */
};

struct diff_ctx {
	struct diff_file f[2];
	size_t nclasses;
	ptrdiff_t *fd, *bd;  /* furthest x per diagonal, forward and backward */
	long long limit;     /* search cost at which the first search gives up */
};

/* Where output goes: at most max bytes after start (0: no limit); past
 * that, nothing more, and over is set. */
struct diff_out {
	struct sbuf *sb;
	size_t start, max;
	bool over;
};

/* ---- 0. the middle, on bytes ---- */

/* The lines of buf, a last one without newline included. */
static long long diff_count(const char *buf, size_t len)
{
	long long n = 0;
	for (const char *p = buf, *end = buf + len; (p = memchr(p, '\n', (size_t)(end - p))); p++)
		n++;
	return n + (len && buf[len - 1] != '\n');
}

/* From a line start, k lines back, or to the start. */
static size_t diff_back(const char *buf, size_t at, long long k)
{
	for (; k > 0 && at > 0; k--)
		for (at--; at > 0 && buf[at - 1] != '\n'; at--)
			;
	return at;
}

/* From a line start, k lines on, or to the end. */
static size_t diff_on(const char *buf, size_t len, size_t at, long long k)
{
	for (; k > 0 && at < len; k--) {
		const char *nl = memchr(buf + at, '\n', len - at);
		at = nl ? (size_t)(nl - buf) + 1 : len;
	}
	return at;
}

/* Step 0, as GNU diff does it on bytes: the common prefix, back to a
 * line start and `horizon` lines more, ends at *p; then the common suffix
 * (only when both files end alike, with a newline or without), not into
 * the prefix, forward to a line start and `horizon` lines more, starts at
 * *s0 in a and *s1 in b. */
static void diff_bounds(const char *a, size_t alen, const char *b, size_t blen,
			ptrdiff_t horizon, size_t *pp, size_t *ps0, size_t *ps1)
{
	size_t m = alen < blen ? alen : blen, p = 0;
	while (p < m && a[p] == b[p])
		p++;
	for (ptrdiff_t h = horizon; p > 0 && (a[p - 1] != '\n' || h-- > 0);)
		p--;
	size_t s0 = alen, s1 = blen;
	bool a_nl = alen == 0 || a[alen - 1] == '\n', b_nl = blen == 0 || b[blen - 1] == '\n';
	if (a_nl == b_nl) {
		size_t beg0 = p + (alen < blen ? 0 : alen - blen);
		while (s0 != beg0) {
			if (a[--s0] != b[--s1]) {
				beg0 = ++s0;
				s1++;
				break;
			}
		}
		bool at_line = (s0 == 0 || a[s0 - 1] == '\n') && (s1 == 0 || b[s1 - 1] == '\n');
		for (ptrdiff_t i = horizon + !at_line; i-- > 0 && s0 != alen;)
			while (s0 < alen && a[s0++] != '\n')
				;
		s1 += s0 - beg0;
	}
	*pp = p, *ps0 = s0, *ps1 = s1;
}

/* ---- 1. lines and classes ---- */

static void diff_split(struct diff_file *f, const char *buf, size_t len)
{
	size_t n = (size_t)diff_count(buf, len);
	f->buf = buf;
	f->lines = (ptrdiff_t)n;
	f->start = xmalloc((n + 1) * sizeof(*f->start));
	size_t line = 0;
	f->start[0] = 0;
	for (size_t i = 0; i < len; i++)
		if (buf[i] == '\n')
			f->start[++line] = i + 1;
	f->start[n] = len;
}

/* Splits the windows: the middle [p, s) of each text and `context` lines
 * around it, which are the same in both. */
static void diff_windows(struct diff_ctx *c, const char *a, size_t alen, const char *b,
			 size_t p, size_t s0, size_t s1, ptrdiff_t context)
{
	size_t w = diff_back(a, p, context), e0 = diff_on(a, alen, s0, context);
	size_t e1 = s1 + (e0 - s0);
	long long skip = diff_count(a, w);
	diff_split(&c->f[0], a + w, e0 - w);
	diff_split(&c->f[1], b + w, e1 - w);
	for (int k = 0; k < 2; k++) {
		struct diff_file *f = &c->f[k];
		f->skip = skip;
		f->base = (ptrdiff_t)diff_count(a + w, p - w);
		f->n = (ptrdiff_t)diff_count((k ? b : a) + p, (k ? s1 : s0) - p);
		f->flags = xmalloc((size_t)f->n + 2);
		memset(f->flags, 0, (size_t)f->n + 2);
		f->changed = f->flags + 1;
		f->cls = xmalloc(((size_t)f->n ? (size_t)f->n : 1) * sizeof(*f->cls));
	}
}

/* Line i of the window. */
static const char *diff_line(const struct diff_file *f, ptrdiff_t i, size_t *len)
{
	*len = f->start[i + 1] - f->start[i];
	return f->buf + f->start[i];
}

static bool diff_changed(const struct diff_file *f, ptrdiff_t i)
{
	return i >= f->base && i < f->base + f->n && f->changed[i - f->base];
}

static uint64_t diff_hash(const char *s, size_t n)
{
	uint64_t h = 14695981039346656037ULL;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
	return h;
}

/* Numbers the lines of both files so that equal lines get equal numbers,
 * with an open-addressing table of the first line seen of each class. */
static void diff_classify(struct diff_ctx *c)
{
	size_t total = (size_t)(c->f[0].n + c->f[1].n), cap = 16;
	/* Only the middle parts are numbered: all that steps 2 to 4 see. */
	while (cap < 2 * total + 1)
		cap *= 2;
	/* A slot: the hash, and which line (1 + its index over both files;
	 * 0: free); its class is that line's. */
	struct diff_slot {
		uint64_t hash;
		size_t at;
	} *slots = xmalloc(cap * sizeof(*slots));
	memset(slots, 0, cap * sizeof(*slots));
	c->nclasses = 0;
	for (int k = 0; k < 2; k++) {
		struct diff_file *f = &c->f[k];
		for (ptrdiff_t i = 0; i < f->n; i++) {
			size_t len, olen;
			const char *s = diff_line(f, f->base + i, &len);
			uint64_t h = diff_hash(s, len);
			size_t at = (size_t)h & (cap - 1);
			for (;; at = (at + 1) & (cap - 1)) {
				struct diff_slot *sl = &slots[at];
				if (!sl->at) {
					sl->hash = h;
					sl->at = (size_t)(k ? c->f[0].n : 0) + (size_t)i + 1;
					f->cls[i] = c->nclasses++;
					break;
				}
				bool in0 = sl->at <= (size_t)c->f[0].n;
				const struct diff_file *of = &c->f[in0 ? 0 : 1];
				ptrdiff_t oi = (ptrdiff_t)sl->at - 1 - (in0 ? 0 : c->f[0].n);
				const char *o = diff_line(of, of->base + oi, &olen);
				if (sl->hash == h && olen == len && memcmp(o, s, len) == 0) {
					f->cls[i] = of->cls[oi];
					break;
				}
			}
		}
	}
	free(slots);
}

/* ---- 2. setting aside lines that cannot match ---- */

enum { DIFF_KEEP = 0, DIFF_DROP = 1, DIFF_MAYBE = 2 };

/* Within one run of droppable lines (it starts and ends with a DROP):
 * keep the MAYBE lines unless they are few and deep inside the run. */
static void diff_settle_run(char *d, ptrdiff_t len, ptrdiff_t maybes)
{
	if (maybes * 4 > len) {
		for (ptrdiff_t j = 0; j < len; j++)
			if (d[j] == DIFF_MAYBE)
				d[j] = DIFF_KEEP;
		return;
	}
	/* A stretch of sqrt(len / 4) + 1 or more MAYBE lines together is kept. */
	ptrdiff_t stretch = 1;
	for (ptrdiff_t t = len >> 2; (t >>= 2) > 0;)
		stretch <<= 1;
	stretch++;
	for (ptrdiff_t j = 0; j < len;) {
		ptrdiff_t k = j;
		while (k < len && d[k] == DIFF_MAYBE)
			k++;
		if (k - j >= stretch)
			memset(d + j, DIFF_KEEP, (size_t)(k - j));
		j = k > j ? k : j + 1;
	}
	/* Near either end of the run, until three DROP lines in a row (or a
	 * DROP line 8 or more lines in), MAYBE lines are kept. */
	for (int side = 0; side < 2; side++) {
		int drops = 0;
		for (ptrdiff_t j = 0; j < len; j++) {
			char *p = side ? &d[len - 1 - j] : &d[j];
			if (j >= 8 && *p == DIFF_DROP)
				break;
			if (*p == DIFF_MAYBE)
				*p = DIFF_KEEP, drops = 0;
			else if (*p == DIFF_KEEP)
				drops = 0;
			else if (++drops == 3)
				break;
		}
	}
}

static void diff_mark_droppable(const struct diff_file *f, const size_t *other_count, char *d)
{
	/* "Very often": more than 5 times, times about sqrt(n) / 8. */
	ptrdiff_t many = 5;
	for (ptrdiff_t t = f->n / 64; (t >>= 2) > 0;)
		many *= 2;
	for (ptrdiff_t i = 0; i < f->n; i++) {
		size_t m = other_count[f->cls[i]];
		d[i] = m == 0 ? DIFF_DROP : (ptrdiff_t)m > many ? DIFF_MAYBE : DIFF_KEEP;
	}
	for (ptrdiff_t i = 0; i < f->n; i++) {
		if (d[i] == DIFF_MAYBE) {
			d[i] = DIFF_KEEP; /* not inside a run that a DROP began */
			continue;
		}
		if (d[i] != DIFF_DROP)
			continue;
		ptrdiff_t j = i, maybes = 0;
		for (; j < f->n && d[j] != DIFF_KEEP; j++)
			maybes += d[j] == DIFF_MAYBE;
		for (; d[j - 1] == DIFF_MAYBE; j--)
			d[j - 1] = DIFF_KEEP, maybes--;
		diff_settle_run(d + i, j - i, maybes);
		i = j - 1;
	}
}

static void diff_discard(struct diff_ctx *c)
{
	size_t *count[2];
	char *drop[2];
	for (int k = 0; k < 2; k++) {
		count[k] = xmalloc((c->nclasses ? c->nclasses : 1) * sizeof(size_t));
		memset(count[k], 0, c->nclasses * sizeof(size_t));
		for (ptrdiff_t i = 0; i < c->f[k].n; i++)
			count[k][c->f[k].cls[i]]++;
	}
	for (int k = 0; k < 2; k++) {
		drop[k] = xmalloc((size_t)c->f[k].n + 1);
		diff_mark_droppable(&c->f[k], count[1 - k], drop[k]);
	}
	for (int k = 0; k < 2; k++) {
		struct diff_file *f = &c->f[k];
		size_t n = (size_t)f->n ? (size_t)f->n : 1;
		f->ucls = xmalloc(n * sizeof(*f->ucls));
		f->real = xmalloc(n * sizeof(*f->real));
		f->nu = 0;
		for (ptrdiff_t i = 0; i < f->n; i++) {
			if (drop[k][i]) {
				f->changed[i] = 1;
				continue;
			}
			f->ucls[f->nu] = f->cls[i];
			f->real[f->nu++] = i;
		}
		free(drop[k]);
		free(count[k]);
	}
}

/* ---- 3. the search ---- */

/* Finds the middle snake of the shortest edit script of x[xoff, xlim)
 * into y[yoff, ylim), both non-empty and differing at both ends: the
 * point where it crosses, in *xmid and *ymid. False when limited and the
 * cost reached c->limit first. */
static bool diff_middle(struct diff_ctx *c, ptrdiff_t xoff, ptrdiff_t xlim, ptrdiff_t yoff,
			ptrdiff_t ylim, bool limited, ptrdiff_t *xmid, ptrdiff_t *ymid)
{
	const size_t *xv = c->f[0].ucls, *yv = c->f[1].ucls;
	ptrdiff_t *fd = c->fd, *bd = c->bd;
	const ptrdiff_t dmin = xoff - ylim, dmax = xlim - yoff;
	const ptrdiff_t fmid = xoff - yoff, bmid = xlim - ylim;
	ptrdiff_t fmin = fmid, fmax = fmid, bmin = bmid, bmax = bmid;
	const bool odd = (fmid - bmid) & 1;
	fd[fmid] = xoff;
	bd[bmid] = xlim;
	for (long long cost = 1;; cost++) {
		/* One more edit forward on each diagonal; a diagonal outside the
		 * last round's range reads as unreachable. Ties go to the
		 * deletion. */
		if (fmin > dmin)
			fd[--fmin - 1] = -1;
		else
			fmin++;
		if (fmax < dmax)
			fd[++fmax + 1] = -1;
		else
			fmax--;
		for (ptrdiff_t d = fmax; d >= fmin; d -= 2) {
			ptrdiff_t lo = fd[d - 1], hi = fd[d + 1];
			ptrdiff_t x = lo < hi ? hi : lo + 1, y = x - d;
			while (x < xlim && y < ylim && xv[x] == yv[y])
				x++, y++;
			fd[d] = x;
			if (odd && bmin <= d && d <= bmax && bd[d] <= x) {
				*xmid = x, *ymid = y;
				return true;
			}
		}
		/* The same backward, from the end. */
		if (bmin > dmin)
			bd[--bmin - 1] = PTRDIFF_MAX;
		else
			bmin++;
		if (bmax < dmax)
			bd[++bmax + 1] = PTRDIFF_MAX;
		else
			bmax--;
		for (ptrdiff_t d = bmax; d >= bmin; d -= 2) {
			ptrdiff_t lo = bd[d - 1], hi = bd[d + 1];
			ptrdiff_t x = lo < hi ? lo : hi - 1, y = x - d;
			while (x > xoff && y > yoff && xv[x - 1] == yv[y - 1])
				x--, y--;
			bd[d] = x;
			if (!odd && fmin <= d && d <= fmax && x <= fd[d]) {
				*xmid = x, *ymid = y;
				return true;
			}
		}
		if (limited && cost >= c->limit)
			return false;
	}
}

static void diff_mark(struct diff_file *f, ptrdiff_t from, ptrdiff_t to)
{
	for (ptrdiff_t i = from; i < to; i++)
		f->changed[f->real[i]] = 1;
}

/* Marks the lines of a shortest edit script of the two ranges. Only the
 * first, outermost search is limited: the halves of a split cost at
 * most what the whole did. */
static void diff_compare(struct diff_ctx *c, ptrdiff_t xoff, ptrdiff_t xlim, ptrdiff_t yoff,
			 ptrdiff_t ylim, bool limited)
{
	const size_t *xv = c->f[0].ucls, *yv = c->f[1].ucls;
	while (xoff < xlim && yoff < ylim && xv[xoff] == yv[yoff])
		xoff++, yoff++;
	while (xlim > xoff && ylim > yoff && xv[xlim - 1] == yv[ylim - 1])
		xlim--, ylim--;
	ptrdiff_t xmid, ymid;
	if (xoff == xlim) {
		diff_mark(&c->f[1], yoff, ylim);
	} else if (yoff == ylim) {
		diff_mark(&c->f[0], xoff, xlim);
	} else if (!diff_middle(c, xoff, xlim, yoff, ylim, limited, &xmid, &ymid)) {
		/* Too costly: all of the middle as one replacement. */
		diff_mark(&c->f[0], xoff, xlim);
		diff_mark(&c->f[1], yoff, ylim);
	} else {
		diff_compare(c, xoff, xmid, yoff, ymid, false);
		diff_compare(c, xmid, xlim, ymid, ylim, false);
	}
}

/* ---- 4. canonical places for runs of changes ---- */

/* Slides the runs of changes of file k. j follows, in the other file,
 * the unchanged line that pairs with line i of this one. */
static void diff_slide(struct diff_file *f, const struct diff_file *other)
{
	char *ch = f->changed;
	const char *och = other->changed;
	const size_t *cls = f->cls;
	ptrdiff_t i = 0, j = 0, n = f->n;
	for (;;) {
		for (; i < n && !ch[i]; i++)
			while (och[j++])
				;
		if (i == n)
			return;
		ptrdiff_t start = i, len, along;
		while (ch[++i])
			;
		while (och[j])
			j++;
		do {
			len = i - start;
			/* Up, while the line above equals the run's last line. */
			while (start > 0 && cls[start - 1] == cls[i - 1]) {
				ch[--start] = 1;
				ch[--i] = 0;
				while (ch[start - 1])
					start--;
				while (och[--j])
					;
			}
			/* The lowest place where the run's end meets a run of
			 * changes in the other file; n: none. */
			along = och[j - 1] ? i : n;
			/* Down, while the run's first line equals the line below. */
			while (i < n && cls[start] == cls[i]) {
				ch[start++] = 0;
				ch[i++] = 1;
				while (ch[i])
					i++;
				while (och[++j])
					along = i;
			}
		} while (len != i - start);
		/* Back up to meet the other file's changes, when it can. */
		while (along < i) {
			ch[--start] = 1;
			ch[--i] = 0;
			while (och[--j])
				;
		}
	}
}

/* ---- 5. output ---- */

struct diff_change {
	ptrdiff_t line0, line1, del, ins;
};

static struct diff_change *diff_script(const struct diff_ctx *c, size_t *count)
{
	const struct diff_file *f0 = &c->f[0], *f1 = &c->f[1];
	ptrdiff_t i0 = 0, i1 = 0;
	size_t n = 0, cap = 16;
	struct diff_change *v = xmalloc(cap * sizeof(*v));
	/* Unchanged lines pair up in order, so i0 and i1 move together. */
	while (i0 < f0->lines || i1 < f1->lines) {
		if (diff_changed(f0, i0) || diff_changed(f1, i1)) {
			struct diff_change ch = {i0, i1, 0, 0};
			while (diff_changed(f0, i0))
				i0++;
			while (diff_changed(f1, i1))
				i1++;
			ch.del = i0 - ch.line0;
			ch.ins = i1 - ch.line1;
			if (n == cap)
				v = xrealloc(v, (cap *= 2) * sizeof(*v));
			v[n++] = ch;
		}
		i0++, i1++;
	}
	*count = n;
	return v;
}

/* Appends one line with its mark, and the note for a last line without
 * newline; or, when that would pass the limit, nothing from now on. */
static void diff_emit_bytes(struct diff_out *o, char mark, const char *s, size_t len)
{
	static const char no_nl[] = "\n\\ No newline at end of file\n";
	if (o->over)
		return;
	if (o->max && o->sb->len - o->start + len + sizeof(no_nl) > o->max) {
		o->over = true;
		return;
	}
	sbuf_addc(o->sb, mark);
	sbuf_add(o->sb, s, len);
	if (len == 0 || s[len - 1] != '\n')
		sbuf_adds(o->sb, no_nl);
}

static void diff_emit(struct diff_out *o, char mark, const struct diff_file *f, ptrdiff_t i)
{
	size_t len;
	const char *s = diff_line(f, i, &len);
	diff_emit_bytes(o, mark, s, len);
}

/* Lines first..last (0-based, inclusive), as diff -u numbers them: a
 * count of 1 is left out, and an empty range names the line before it. */
static void diff_range(struct sbuf *out, long long first, long long last)
{
	long long a = first + 1, b = last + 1;
	if (b < a)
		sbuf_addf(out, "%lld,0", b);
	else if (b == a)
		sbuf_addf(out, "%lld", b);
	else
		sbuf_addf(out, "%lld,%lld", a, b - a + 1);
}

/* "@@ -A,B +C,D @@": lines of each file, 0-based, inclusive. */
static void diff_header(struct diff_out *o, long long first0, long long last0,
			long long first1, long long last1)
{
	if (o->over)
		return;
	sbuf_adds(o->sb, "@@ -");
	diff_range(o->sb, first0, last0);
	sbuf_adds(o->sb, " +");
	diff_range(o->sb, first1, last1);
	sbuf_adds(o->sb, " @@\n");
}

static void diff_hunk(struct diff_out *o, const struct diff_ctx *c, const struct diff_change *v,
		      size_t n, ptrdiff_t context)
{
	const struct diff_file *f0 = &c->f[0], *f1 = &c->f[1];
	const struct diff_change *last = &v[n - 1];
	ptrdiff_t first0 = v[0].line0 - context, first1 = v[0].line1 - context;
	ptrdiff_t last0 = last->line0 + last->del - 1 + context;
	ptrdiff_t last1 = last->line1 + last->ins - 1 + context;
	first0 = first0 < 0 ? 0 : first0;
	first1 = first1 < 0 ? 0 : first1;
	last0 = last0 > f0->lines - 1 ? f0->lines - 1 : last0;
	last1 = last1 > f1->lines - 1 ? f1->lines - 1 : last1;
	diff_header(o, f0->skip + first0, f0->skip + last0, f1->skip + first1, f1->skip + last1);
	ptrdiff_t i = first0;
	for (size_t k = 0; k < n; k++) {
		for (; i < v[k].line0; i++)
			diff_emit(o, ' ', f0, i);
		for (ptrdiff_t d = 0; d < v[k].del; d++)
			diff_emit(o, '-', f0, i++);
		for (ptrdiff_t a = 0; a < v[k].ins; a++)
			diff_emit(o, '+', f1, v[k].line1 + a);
	}
	for (; i <= last0; i++)
		diff_emit(o, ' ', f0, i);
}

static void diff_print(struct diff_out *o, const struct diff_ctx *c, const char *old_label,
		       const char *new_label, ptrdiff_t context)
{
	size_t n;
	struct diff_change *v = diff_script(c, &n);
	if (n) {
		sbuf_addf(o->sb, "--- %s\n+++ %s\n", old_label, new_label);
		/* A change within 2 * context lines of the last joins its hunk. */
		for (size_t h = 0, e; h < n && !o->over; h = e) {
			for (e = h + 1; e < n; e++)
				if (v[e].line0 - (v[e - 1].line0 + v[e - 1].del) > 2 * context)
					break;
			diff_hunk(o, c, v + h, e - h, context);
		}
	}
	free(v);
}

/* Steps 1 to 5 on the middle [p, s0) of a and [p, s1) of b. */
static void diff_exact(struct diff_out *o, const char *old_label, const char *new_label,
		       const char *a, size_t alen, const char *b, size_t p, size_t s0, size_t s1,
		       ptrdiff_t context)
{
	struct diff_ctx c;
	memset(&c, 0, sizeof(c));
	diff_windows(&c, a, alen, b, p, s0, s1, context);
	diff_classify(&c);
	diff_discard(&c);

	ptrdiff_t nu0 = c.f[0].nu, nu1 = c.f[1].nu;
	size_t diags = (size_t)(nu0 + nu1 + 3);
	/* GNU diff's point for giving up exactness: about 2^(log4 diags),
	 * and never under 4096 rounds (an edit distance of about 8192). */
	c.limit = 1;
	for (size_t t = diags; t; t >>= 2)
		c.limit <<= 1;
	if (c.limit < 4096)
		c.limit = 4096;
	ptrdiff_t *fdv = xmalloc(diags * sizeof(*fdv)), *bdv = xmalloc(diags * sizeof(*bdv));
	c.fd = fdv + nu1 + 1;
	c.bd = bdv + nu1 + 1;
	diff_compare(&c, 0, nu0, 0, nu1, true);
	free(fdv);
	free(bdv);

	diff_slide(&c.f[0], &c.f[1]);
	diff_slide(&c.f[1], &c.f[0]);
	diff_print(o, &c, old_label, new_label, context);

	for (int k = 0; k < 2; k++) {
		free(c.f[k].start);
		free(c.f[k].cls);
		free(c.f[k].flags);
		free(c.f[k].ucls);
		free(c.f[k].real);
	}
}

/* Each line of buf[from, to) with its mark. */
static void diff_emit_range(struct diff_out *o, char mark, const char *buf, size_t from,
			    size_t to)
{
	while (from < to && !o->over) {
		const char *nl = memchr(buf + from, '\n', to - from);
		size_t end = nl ? (size_t)(nl - buf) + 1 : to;
		diff_emit_bytes(o, mark, buf + from, end - from);
		from = end;
	}
}

/* Too many lines to search: one hunk that replaces every line from the
 * first that differs, q, to the last (up to e0 in a, e1 in b), with the
 * context around it. Nothing is split into lines. */
static void diff_one_hunk(struct diff_out *o, const char *old_label, const char *new_label,
			  const char *a, size_t alen, const char *b, size_t q, size_t e0,
			  size_t e1, ptrdiff_t context)
{
	size_t w = diff_back(a, q, context), end0 = diff_on(a, alen, e0, context);
	long long first = diff_count(a, w), before = diff_count(a + w, q - w);
	long long after = diff_count(a + e0, end0 - e0);
	long long n0 = diff_count(a + q, e0 - q), n1 = diff_count(b + q, e1 - q);
	sbuf_addf(o->sb, "--- %s\n+++ %s\n", old_label, new_label);
	diff_header(o, first, first + before + n0 + after - 1, first, first + before + n1 + after - 1);
	diff_emit_range(o, ' ', a, w, q);
	diff_emit_range(o, '-', a, q, e0);
	diff_emit_range(o, '+', b, q, e1);
	diff_emit_range(o, ' ', a, e0, end0);
}

enum diff_kind diff_unified(struct sbuf *out, const char *old_label, const char *new_label,
			    const char *a, size_t alen, const char *b, size_t blen, int context,
			    const struct diff_limits *lim, struct diff_span *span)
{
	static const struct diff_limits dflt = {DIFF_LINES_MAX, 0};
	if (!lim)
		lim = &dflt;
	if (context < 0)
		context = 0;
	size_t q, e0, e1;
	diff_bounds(a, alen, b, blen, 0, &q, &e0, &e1);
	if (span) {
		span->line = diff_count(a, q) + 1;
		span->old_lines = diff_count(a + q, e0 - q);
		span->new_lines = diff_count(b + q, e1 - q);
	}
	if (alen == blen && (alen == 0 || memcmp(a, b, alen) == 0))
		return DIFF_SAME;
	struct diff_out o = {.sb = out, .start = out->len, .max = lim->bytes};
	size_t p, s0, s1;
	diff_bounds(a, alen, b, blen, context, &p, &s0, &s1);
	/* The middle and its context, as diff_windows would split them. */
	long long lines = diff_count(a + p, s0 - p) + diff_count(b + p, s1 - p) + 4LL * context;
	enum diff_kind kind = DIFF_SHOWN;
	if ((unsigned long long)lines <= lim->lines) {
		diff_exact(&o, old_label, new_label, a, alen, b, p, s0, s1, context);
	} else {
		kind = DIFF_ONE_HUNK;
		diff_one_hunk(&o, old_label, new_label, a, alen, b, q, e0, e1, context);
	}
	if (!o.over)
		return kind;
	out->len = o.start;
	if (out->buf)
		out->buf[out->len] = '\0';
	return DIFF_OMITTED;
}
