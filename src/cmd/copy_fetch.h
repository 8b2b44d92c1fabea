/* copy_fetch.h: what diff and apply (cmd_diff.c, cmd_apply.c) both
 * work from: a copy workspace's baseline, the workspace's copy as it is
 * now, fetched as hostile input, and DIR as it is now, read without
 * following a link.
 *
 * What the workspace holds now comes in two calls: SCRIPT_MANIFEST lists
 * every path with its mode, size and (for files) SHA-256; the paths
 * whose hash differs from the baseline's, every link, and every path
 * the listing was unsure of, then travel whole as a tar stream
 * (SCRIPT_PACK), read with tar.h and hashed here. */
#ifndef SANDBOX_COPY_FETCH_H
#define SANDBOX_COPY_FETCH_H

#include <stdbool.h>
#include <stddef.h>

#include "app.h"
#include "copy.h"
#include "err.h"
#include "sha256.h"
#include "tar.h"
#include "util.h"
#include "workspace.h"

struct feed;
struct tool_out;

/* A file's bytes kept to show its diff; a larger one is "too large". */
#define SHOW_MAX ((size_t)4 << 20)
/* All the workspace's bytes kept at once to show diffs: past them, a
 * change is named, not shown; its hash is kept. */
#define SHOW_TOTAL_MAX ((size_t)4 << 20)

/* What a copy command works from. */
struct copy_ctx {
	struct app *a;
	struct ws ws;
	bool have_ws;
	char *base_path;
	struct copy_base base;
	struct copy_excl excl;
	struct copy_tree now;
	/* Per path of now: what its tar entry brought. */
	struct copy_got {
		bool fetched;
		struct sbuf data;   /* diff: the bytes kept */
		bool cut;           /* more than SHOW_MAX, or past SHOW_TOTAL_MAX */
		bool full;          /* cut for the second: the diff's room was used */
		bool want, staged;  /* apply: to stage; staged */
		char stage[24];     /* apply: its staged file's name */
	} *got;
	size_t kept;            /* bytes in every data */
	size_t text;            /* diff: bytes of every change's text */
	size_t room;            /* what is left of the listing's budget, for
				 * the links' targets the stream brings */
	int stage_fd;           /* apply: DIR/.sandbox-apply-HEX, or -1 */
	char stage_name[40];
	int root;               /* DIR, or -1 */
	const struct strvec *only; /* PATH arguments: only these, and what is under them */
	bool keep;              /* diff: keep the bytes that travel, to show them */
	/* How the workspace's scripts run: tool_run in ws. The workspace's
	 * answers are all this context reads of it, so a test or a fuzz
	 * target can forge them here. */
	int (*run)(struct copy_ctx *c, char *const *args, size_t nargs, struct feed *feed,
		   struct tool_out *out, struct err *e);
};

/* Opens everything a copy command needs, the workspace's listing
 * included. copy_ctx_free after it, whatever it returned. */
int copy_ctx_open(struct copy_ctx *c, struct app *a, struct err *e);
/* What copy_ctx_open does first: a context that holds nothing yet. */
void copy_ctx_init(struct copy_ctx *c, struct app *a);
/* What it does last, once the baseline, DIR and the patterns are in
 * place: the workspace's listing, into c->now. */
int copy_ctx_list(struct copy_ctx *c, struct err *e);
/* Removes what apply staged, too. */
void copy_ctx_free(struct copy_ctx *c);

/* The first pass: what must travel, fetched, each path's type, mode,
 * target, size and SHA-256 taken from the stream (and, c->keep, its
 * bytes); then what did not come (gone since the listing, or of a kind
 * left out) dropped. */
int copy_fetch_now(struct copy_ctx *c, struct err *e);

/* A pass over the tar stream of some paths of now (SCRIPT_PACK): what
 * every pass keeps. A pass's tar sink gets it as its ctx, first in a
 * struct of its own when it keeps more. */
struct copy_pass {
	struct copy_ctx *c;
	struct tar_reader *tr;    /* the entry's mode and link are here */
	struct copy_entry *cur;   /* the file being read, or NULL: skipped */
	struct copy_got *g;       /* cur's */
	struct sha256 h;          /* of cur's bytes so far */
	unsigned long long size;  /* how many */
	unsigned long long read;  /* bytes of files the stream brought */
	char msg[300];            /* why it stopped */
	bool stopped;             /* by the command (exit 1), not by a bad stream */
};
/* The path of now a tar entry's name stands for ("./" before it, and a
 * directory's trailing '/', dropped), or NULL: not asked for. */
struct copy_entry *copy_pass_find(const struct copy_pass *p, const char *name);
/* The path of now the entry's link names, or NULL. */
struct copy_entry *copy_pass_link(const struct copy_pass *p);
/* n's bytes come: cur, its hash begun. */
void copy_pass_begin(struct copy_pass *p, struct copy_entry *n);
/* n more of them, hashed and counted, the stream's under max_size: -1
 * with msg set past it. */
int copy_pass_data(struct copy_pass *p, const char *buf, size_t n);
/* The whole file: its SHA-256 in hex, into sha; cur, now NULL,
 * returned. */
struct copy_entry *copy_pass_end(struct copy_pass *p, char sha[65]);
/* Appends path to a pass's names, as SCRIPT_PACK reads them. */
void copy_pass_name(struct sbuf *names, const char *path);
/* Runs SCRIPT_PACK on names (each "./PATH" NUL-ended) with the stream
 * into sink; p->c set, the rest zero. -1 with e set: ERR_FAILED when
 * the sink stopped it (p->stopped), ERR_WORKSPACE when the stream or
 * the script failed. */
int copy_pass_run(struct copy_pass *p, const struct sbuf *names, const struct tar_sink *sink,
		  struct err *e);

/* Whether rel is one of the PATH arguments or under one. */
bool copy_wanted(const struct copy_ctx *c, const char *rel);
/* Whether rel is a directory on the way to a PATH argument: a new one
 * there is made (and shown), since what goes in it needs it; no other
 * change of it is taken. */
bool copy_on_way(const struct copy_ctx *c, const char *rel);

/* What DIR holds at rel now: *st->type 0 when nothing. A file's bytes
 * go into keep (at most SHOW_MAX; *cut when there were more) when keep
 * is not NULL. -1 with errno when it cannot be read; ELOOP/ENOTDIR
 * when the way to it is not plain directories. */
int copy_dir_state(int root, const char *rel, struct copy_entry *st, struct sbuf *keep, bool *cut);
/* Whether two entries are the same path's same state. */
bool copy_same(const struct copy_entry *x, const struct copy_entry *y);

#endif
