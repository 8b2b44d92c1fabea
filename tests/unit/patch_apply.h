/* patch_apply.h: applies a unified diff of one file, as diff_unified
 * writes it, to the old text, strictly: the two label lines, then hunks
 * in order whose context and removed lines must be those of the old text
 * at the lines the header names, and whose line counts must be the
 * header's; "\ No newline at end of file" takes the newline off the line
 * before it. For the diff's unit tests and its fuzz target: a diff is
 * correct when applying it to the old text gives the new one. */
#ifndef SANDBOX_TEST_PATCH_APPLY_H
#define SANDBOX_TEST_PATCH_APPLY_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "util.h"

struct patch_text {
	const char *p, *end;
};

/* The next line of t, its newline included (if it has one); false at the end. */
static bool patch_line(struct patch_text *t, const char **s, size_t *len)
{
	if (t->p >= t->end)
		return false;
	const char *nl = memchr(t->p, '\n', (size_t)(t->end - t->p));
	*s = t->p;
	*len = nl ? (size_t)(nl + 1 - t->p) : (size_t)(t->end - t->p);
	t->p += *len;
	return true;
}

/* "@@ -A[,B] +C[,D] @@\n" */
static bool patch_header(const char *s, size_t len, long long *a, long long *b, long long *c,
			 long long *d)
{
	char buf[128];
	if (len >= sizeof(buf) || len < 2 || s[len - 1] != '\n')
		return false;
	memcpy(buf, s, len);
	buf[len] = '\0';
	int end = 0;
	*b = *d = 1;
	if (sscanf(buf, "@@ -%lld,%lld +%lld,%lld @@\n%n", a, b, c, d, &end) == 4 && end == (int)len)
		return true;
	*b = *d = 1, end = 0;
	if (sscanf(buf, "@@ -%lld +%lld,%lld @@\n%n", a, c, d, &end) == 3 && end == (int)len)
		return true;
	*b = *d = 1, end = 0;
	if (sscanf(buf, "@@ -%lld,%lld +%lld @@\n%n", a, b, c, &end) == 3 && end == (int)len)
		return true;
	*b = *d = 1, end = 0;
	return sscanf(buf, "@@ -%lld +%lld @@\n%n", a, c, &end) == 2 && end == (int)len;
}

/* Copies old lines to out until `upto` of them are used. */
static bool patch_copy(struct patch_text *old, long long *used, long long upto, struct sbuf *out)
{
	const char *s;
	size_t len;
	for (; *used < upto; (*used)++) {
		if (!patch_line(old, &s, &len))
			return false;
		sbuf_add(out, s, len);
	}
	return true;
}

/* One hunk's body, after its header: counts of old and new lines. */
static bool patch_body(struct patch_text *d, struct patch_text *old, long long *used,
		       long long *made, long long b, long long dd, struct sbuf *out)
{
	long long nold = 0, nnew = 0;
	while (nold < b || nnew < dd) {
		const char *s, *o;
		size_t len, olen;
		if (!patch_line(d, &s, &len) || len < 2 || s[len - 1] != '\n' || !strchr(" -+", s[0]))
			return false;
		size_t keep = len - 1; /* without the mark */
		const char *q = d->p;
		if (d->end - q >= 2 && q[0] == '\\' && q[1] == ' ') {
			const char *x;
			size_t xl;
			patch_line(d, &x, &xl);
			static const char note[] = "\\ No newline at end of file\n";
			if (xl != sizeof(note) - 1 || memcmp(x, note, xl) != 0)
				return false;
			keep--; /* the line had no newline */
		}
		if (s[0] != '+') {
			if (!patch_line(old, &o, &olen) || olen != keep || memcmp(o, s + 1, keep) != 0)
				return false;
			nold++, (*used)++;
		}
		if (s[0] != '-') {
			sbuf_add(out, s + 1, keep);
			nnew++, (*made)++;
		}
	}
	return nold == b && nnew == dd;
}

/* out gets old with the diff applied; false when the diff is malformed
 * or does not fit the old text. An empty diff leaves the text as it is. */
static bool patch_apply(const char *old, size_t oldlen, const char *diff, size_t dlen,
			struct sbuf *out)
{
	struct patch_text o = {old, old + oldlen}, d = {diff, diff + dlen};
	const char *s;
	size_t len;
	long long used = 0, made = 0;
	sbuf_add(out, "", 0);
	if (dlen) {
		if (!patch_line(&d, &s, &len) || len < 4 || memcmp(s, "--- ", 4) != 0)
			return false;
		if (!patch_line(&d, &s, &len) || len < 4 || memcmp(s, "+++ ", 4) != 0)
			return false;
		if (d.p >= d.end)
			return false; /* labels and no hunk */
	}
	while (patch_line(&d, &s, &len)) {
		long long a, b, c, dd;
		if (!patch_header(s, len, &a, &b, &c, &dd))
			return false;
		/* An empty range names the line before it. */
		long long from = b ? a - 1 : a, to = dd ? c - 1 : c;
		if (from < used || made + (from - used) != to || !patch_copy(&o, &used, from, out))
			return false;
		made = to;
		if (!patch_body(&d, &o, &used, &made, b, dd, out))
			return false;
	}
	sbuf_add(out, o.p, (size_t)(o.end - o.p));
	return true;
}

#endif
