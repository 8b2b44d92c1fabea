/* diff.h: a unified diff of two byte buffers, line by line, written to be
 * byte-for-byte what GNU `diff -U N --label OLD --label NEW` prints for
 * the same text: the same choice of changed lines where several edit
 * scripts are as short, the same hunk splitting and headers, and the
 * "\ No newline at end of file" markers. Lines are compared as bytes,
 * newline included (so a CR is part of a line, and a last line without
 * newline differs from the same line with one). Pure: no I/O. */
#ifndef SANDBOX_DIFF_H
#define SANDBOX_DIFF_H

#include <stddef.h>

#include "util.h"

/* What a diff may cost. */
struct diff_limits {
	/* Lines of the differing middle of both texts together, context
	 * included, up to which the diff is the exact one above; past them,
	 * one hunk replaces every line from the first that differs to the
	 * last (DIFF_ONE_HUNK). The search's memory grows with them. */
	size_t lines;
	/* Bytes of output; when the diff would be longer, nothing is
	 * appended (DIFF_OMITTED). 0: no limit. */
	size_t bytes;
};
#define DIFF_LINES_MAX 200000 /* the default of lines */

enum diff_kind { DIFF_SAME, DIFF_SHOWN, DIFF_ONE_HUNK, DIFF_OMITTED };

/* Where the texts differ, as one stretch of lines: from line `line`
 * (counted from 1, the same in both), old_lines lines of a became
 * new_lines lines of b. */
struct diff_span {
	long long line, old_lines, new_lines;
};

/* Appends the diff of a (alen bytes) against b (blen bytes) to out, with
 * context lines of unchanged text around each change (negative: 0), and
 * says which kind it is. Identical inputs append nothing (DIFF_SAME).
 * Where GNU diff would fall back on its speed heuristic (an edit distance
 * of more than about 8000 lines), this reports the differing middle of
 * the files as one replacement instead: still a correct diff, never a
 * slow one. Text with NUL bytes is diffed as text too (GNU diff would
 * call it binary). lim NULL: DIFF_LINES_MAX lines, no limit of bytes.
 * span, if not NULL, gets where the texts differ, whatever the kind.
 * Time and memory grow with alen + blen, and with lim's lines. */
enum diff_kind diff_unified(struct sbuf *out, const char *old_label, const char *new_label,
			    const char *a, size_t alen, const char *b, size_t blen, int context,
			    const struct diff_limits *lim, struct diff_span *span);

#endif
