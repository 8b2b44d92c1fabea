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

/* Appends the diff of a (alen bytes) against b (blen bytes) to out, with
 * context lines of unchanged text around each change (negative: 0).
 * Identical inputs append nothing. Where GNU diff would fall back on its
 * speed heuristic (an edit distance of more than about 8000 lines), this
 * reports the differing middle of the files as one replacement instead:
 * still a correct diff, never a slow one. Text with NUL bytes is diffed
 * as text too (GNU diff would call it binary). */
void diff_unified(struct sbuf *out, const char *old_label, const char *new_label,
		  const char *a, size_t alen, const char *b, size_t blen, int context);

#endif
