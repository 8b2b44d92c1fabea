/* listing.h: what `sandbox glob` reads from the workspace, SCRIPT_LIST's
 * answer (scripts.h), parsed as it streams in, and the newest of the
 * names it gives, kept for showing. The workspace writes that answer:
 * whatever it holds, the parser takes linear time and constant memory.
 *
 * The answer is one record "MTIME .//NAME\n" a file, as stat writes
 * them for the paths that `find .//` gives, then an end mark "//". A
 * path that find gives holds "//" only where it starts: its names are
 * never empty and never hold a '/'. So the answer is cut at each "//",
 * and between two of them is the end of one record and the start of
 * the next: "NAME\nMTIME .", split at its last newline. A name may
 * hold newlines, or look like a record after one: it cannot hold "//",
 * so it is always read whole and never taken for another. A record
 * that is not of that form is skipped, as is one cut short (no "//"
 * after it), a name longer than LISTING_NAME_MAX bytes (no Linux path
 * is that long) or one that holds a NUL. */
#ifndef SANDBOX_LISTING_H
#define SANDBOX_LISTING_H

#include <stdbool.h>
#include <stddef.h>

#define LISTING_NAME_MAX 4096
/* What a record's start can be: an optional '-', at most 18 digits,
 * " ." (the "//" after it is the cut). */
#define LISTING_HEAD_MAX 21

struct listing {
	/* Called for each record read: rel is the name without its ".//",
	 * NUL-ended, borrowed until the callback returns; never empty,
	 * never longer than LISTING_NAME_MAX. */
	void (*entry)(void *ctx, const char *rel, size_t len, long long mtime);
	void *ctx;
	/* The record whose start was read, and its time. */
	bool open;
	long long mtime;
	/* Between two cuts: its first bytes (the name, if its newline comes
	 * in time), where its last newline is and what follows it. */
	char seg[LISTING_NAME_MAX + 1];
	size_t seg_len;     /* bytes seen, at most LISTING_NAME_MAX + 1 */
	bool has_nl;        /* a newline was seen */
	size_t name_len;    /* the bytes before the last newline, if in seg */
	bool name_long;     /* the last newline came too late for a name */
	char head[LISTING_HEAD_MAX];
	size_t head_len;    /* the bytes after the last newline, so far */
	bool head_ok;       /* they come after a newline (or the start) and fit */
	bool slash;         /* the last byte was a '/', held back */
};

void listing_init(struct listing *l,
		  void (*entry)(void *ctx, const char *rel, size_t len, long long mtime), void *ctx);
/* Reads the next n bytes of the answer (after its first line). */
void listing_feed(struct listing *l, const char *buf, size_t n);
/* At the end of the answer: a record without its end is dropped. */
void listing_finish(struct listing *l);

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
