/* grep.h: what `sandbox grep` does with SCRIPT_TAR's stream (scripts.h):
 * the files chosen by name, their lines matched, and the output lines
 * kept for showing, sorted by path. The workspace writes that stream:
 * whatever it holds, the time is linear in its size (for a given
 * pattern) and the memory is bounded by constants and by the limit and
 * max_bytes the caller gives, never by what the stream says.
 *
 * Only what can still be shown is kept: the lines of a file up to
 * limit and max_bytes, and, across files, those that sort first, as
 * many as fill limit and max_bytes; the others are only counted. */
#ifndef SANDBOX_GREP_H
#define SANDBOX_GREP_H

#include <stdbool.h>
#include <stddef.h>

#include "glob.h"
#include "rx.h"
#include "tar.h"
#include "util.h"

#define GREP_LINE_MAX 2000          /* characters shown of a line */
#define GREP_MATCH_MAX (1024 * 1024) /* bytes of a line matched */
#define GREP_CONTEXT_MAX 100        /* lines of -A and -B */
#define GREP_NAME_MAX 4096          /* bytes of a name under the directory */

enum grep_mode { GREP_FILES, GREP_CONTENT, GREP_COUNT };

/* One line of output with content. */
struct grep_line {
	long no;
	char *text; /* as shown: cut after GREP_LINE_MAX characters */
	bool match;
	bool sep;   /* a "--" goes before it */
};

struct grep_file {
	char *path;              /* as shown */
	long count;              /* matching lines */
	struct grep_line *lines; /* content: the first of its output lines */
	size_t nlines, cap;
	unsigned long long out;  /* its output lines, kept or not */
	size_t path_bytes;       /* its path, as JSON writes it */
	size_t bytes;            /* of its kept output lines, as JSON writes them */
	bool full;               /* keeps no more lines */
	unsigned long long seq;  /* its place in the stream: ties of path */
};

struct grep_spec {
	enum grep_mode mode;
	struct rx *rx;                 /* the pattern; matching fills its cache */
	const struct glob_pat *filter; /* NULL: every file */
	long before, after;            /* 0 to GREP_CONTEXT_MAX */
	size_t limit;                  /* output lines kept, at least 1 */
	size_t max_bytes;              /* and bytes of them: path and text,
					* as JSON writes them (json_quoted_len) */
	const char *base;              /* the directory the names are under */
	const char *single;            /* not NULL: the stream is this file */
};

struct grep {
	struct grep_spec o;
	struct tar_reader tar;
	/* The file being read. */
	bool active, done, judged, line_open, line_long;
	struct grep_file cur;
	struct sbuf probe, line;
	long lineno, last_shown, after_left;
	struct grep_line ring[GREP_CONTEXT_MAX]; /* the last -B lines */
	size_t ring_first, nring;
	/* What was found: after grep_finish, what is shown, sorted. */
	struct grep_file *files;
	size_t nfiles, cap;
	size_t held_lines, held_bytes;
	char *edge; /* no file after it (path, then seq) can be shown */
	unsigned long long edge_seq;
	unsigned long long produced; /* output lines found, kept or not */
	unsigned long long entries;  /* files seen */
};

/* o is copied; what it points to must outlive g. */
void grep_init(struct grep *g, const struct grep_spec *o);
/* Reads n more bytes of the tar stream; -1 with a message on a bad one. */
int grep_feed(struct grep *g, const char *buf, size_t n, char *errbuf, size_t errlen);
/* At the end of the stream: -1 with a message if it was cut short.
 * Then files[0..nfiles) are the files shown, in order, with their lines,
 * held_lines of them, and produced says how many there were in all. */
int grep_finish(struct grep *g, char *errbuf, size_t errlen);
void grep_free(struct grep *g);

#endif
