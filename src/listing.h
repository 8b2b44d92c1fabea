/* listing.h: what `sandbox glob` reads from the workspace, SCRIPT_LIST's
 * answer (scripts.h), parsed as it streams in, and the newest of the
 * names it gives, kept for showing. The workspace writes that answer:
 * whatever it holds, the parser takes linear time and bounded memory,
 * and keeps nothing but the few names it cannot read otherwise.
 *
 * The answer is every name ("./NAME\0"), an empty name, then a stat
 * line "MTIME ./NAME\n" for each, in the same order. A line is read up
 * to its newline, except for a name that holds a newline itself: such
 * names are kept from the first part (LISTING_NL_MAX bytes of them at
 * most), and the Nth line, when the Nth name is one of them, is read as
 * that name if it is there. Files may come and go between the two
 * parts: such a name is looked for from LISTING_NL_SLACK lines before
 * its place to as many after it. Names longer than LISTING_NAME_MAX
 * bytes are skipped: no Linux path is that long. Lines that are not
 * stat lines are skipped, as are names without a stat line (a file
 * gone in between). */
#ifndef SANDBOX_LISTING_H
#define SANDBOX_LISTING_H

#include <stdbool.h>
#include <stddef.h>

#include "util.h"

#define LISTING_NAME_MAX 4096
#define LISTING_NL_MAX ((size_t)1 << 20)
#define LISTING_NL_SLACK 8
/* A stat line: an optional '-', at most 18 digits, " ./", the name, "\n". */
#define LISTING_PFX_MAX 22
#define LISTING_REC_MAX (LISTING_PFX_MAX + LISTING_NAME_MAX + 1)

/* A name of the first part that holds a newline: its place there, and
 * where its bytes are in the listing's nl_text. */
struct listing_nl {
	unsigned long long index;
	size_t off, len;
};

struct listing {
	/* Called for each stat line read: rel is the name without its "./",
	 * NUL-ended, borrowed until the callback returns; never empty, never
	 * longer than LISTING_NAME_MAX. */
	void (*entry)(void *ctx, const char *rel, size_t len, long long mtime);
	void *ctx;
	bool in_stats;          /* past the empty name */
	/* The first part: the name being read. */
	char name[LISTING_NAME_MAX + 3];
	size_t name_len;
	bool name_long;
	unsigned long long names;
	/* Its names with a newline, oldest first from nl_head. */
	struct listing_nl *nl;
	size_t nl_head, nl_n, nl_cap;
	struct sbuf nl_text;
	/* The second part: the line being read, and what it is. */
	char rec[LISTING_REC_MAX + 1];
	size_t rec_len;
	bool skipping;          /* an overlong line, until its newline */
	bool as_nl;             /* this line is read as nl[try_next] */
	size_t pfx, want;       /* its "MTIME ./" length; the bytes it needs */
	long long mtime;
	unsigned long long records; /* stat lines read */
	/* The kept names tried for the line of stat line number try_rec:
	 * those before try_next were not it. */
	unsigned long long try_rec;
	size_t try_next;
	/* Bytes read ahead for a name with a newline that was not there:
	 * read again. */
	char pend[LISTING_REC_MAX];
	size_t pend_len;
};

void listing_init(struct listing *l,
		  void (*entry)(void *ctx, const char *rel, size_t len, long long mtime), void *ctx);
/* Reads the next n bytes of the answer (after its first line). */
void listing_feed(struct listing *l, const char *buf, size_t n);
/* At the end of the answer: reads what is left. */
void listing_finish(struct listing *l);
void listing_free(struct listing *l);

/* The newest names given to it, at most max of them and max_bytes of
 * names (each counted as JSON writes it, json_quoted_len), newest first
 * and ties by name, the order glob shows them in. Memory is bounded by
 * those two numbers, whatever the number of names. */
struct listing_found {
	char *rel;
	long long mtime;
};

struct listing_newest {
	struct listing_found *v; /* a heap, the oldest on top; sorted at the end */
	size_t n, cap, max;
	size_t bytes, max_bytes;
	struct listing_found edge; /* the newest of those left out */
	bool left_out;
	unsigned long long total;  /* every name given */
};

void listing_newest_init(struct listing_newest *t, size_t max, size_t max_bytes);
void listing_newest_add(struct listing_newest *t, const char *rel, size_t len, long long mtime);
/* Sorts the names kept, newest first: v[0..n). */
void listing_newest_sort(struct listing_newest *t);
void listing_newest_free(struct listing_newest *t);

#endif
