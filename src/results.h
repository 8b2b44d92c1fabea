/* results.h: what read, write, edit, glob and grep do, as typed results, and
 * the presenters that show them. A do-function checks its command's
 * options, acts in the workspace and fills its result, printing nothing;
 * three presenters render a result: the CLI's text (on f), the tree of
 * its --json object (which MCP's structuredContent is too, capped), and
 * the text an MCP client's model reads. Strings of a result are borrowed
 * from the app (its options) or owned by the result (freed with it); the
 * tree borrows them all, so it goes before the result does. */
#ifndef SANDBOX_RESULTS_H
#define SANDBOX_RESULTS_H

#include <stdbool.h>
#include <stdio.h>

#include "app.h"
#include "err.h"
#include "jsonr.h"
#include "util.h"

struct read_result {
	const char *workspace;
	const char *path;
	struct sbuf content;     /* the numbered lines shown; owned */
	long start_line, lines, total_lines;
	unsigned long long size;
	char sha256[65];
};

struct write_result {
	const char *workspace;
	const char *path;
	unsigned long long bytes;
	char sha256[65];         /* "" when nothing asked for it (the CLI's text) */
	bool created;
};

struct edit_result {
	const char *workspace;
	const char *path;
	long long replacements;
	struct sbuf diff;        /* owned */
	bool omitted;            /* the diff was too large: where it changed */
	long long omitted_line, omitted_old, omitted_new;
	char sha256[65];
};

struct glob_result {
	const char *workspace;
	const char *pattern;
	const char *path;        /* the base directory, "." for none */
	struct strvec matches;   /* newest first, joined to path; owned */
	unsigned long long total;
	long limit;              /* the --limit they were kept within */
	size_t max_bytes;        /* and the bytes */
};

struct grep;
struct grep_result {
	const char *workspace;
	const char *pattern;
	const char *path;        /* the base directory, "." for none */
	struct grep *g;          /* after grep_finish: files and lines; owned */
	long limit;              /* the --limit they were kept within */
	size_t max_bytes;        /* and the bytes */
};

/* The do-functions: 0 with res filled (to free with its _free), or -1
 * with e set and nothing to free. glob and grep return 1, with res
 * filled, when nothing matches. read --raw streams the file to stdout and fills
 * nothing to present. */
int do_read(struct app *a, struct read_result *res, struct err *e);
int do_write(struct app *a, struct write_result *res, struct err *e);
int do_edit(struct app *a, struct edit_result *res, struct err *e);
int do_glob(struct app *a, struct glob_result *res, struct err *e);
int do_grep(struct app *a, struct grep_result *res, struct err *e);

void read_result_free(struct read_result *r);
void write_result_free(struct write_result *r); /* owns nothing: for symmetry */
void edit_result_free(struct edit_result *r);
void glob_result_free(struct glob_result *r);
void grep_result_free(struct grep_result *r);

/* The CLI's text. */
void read_text(FILE *f, const struct read_result *r);
void write_text(FILE *f, const struct write_result *r);
void edit_text(FILE *f, const struct edit_result *r);
void glob_text(FILE *f, const struct glob_result *r);
void grep_text(FILE *f, const struct grep_result *r);

/* The --json object, into *t (zeroed; jvb_free it). */
void read_tree(struct jv *t, const struct read_result *r);
void write_tree(struct jv *t, const struct write_result *r);
void edit_tree(struct jv *t, const struct edit_result *r);
void glob_tree(struct jv *t, const struct glob_result *r);
void grep_tree(struct jv *t, const struct grep_result *r);

/* The text for the model, appended to out. */
void read_model(struct sbuf *out, const struct read_result *r);
void write_model(struct sbuf *out, const struct write_result *r);
void edit_model(struct sbuf *out, const struct edit_result *r);
void glob_model(struct sbuf *out, const struct glob_result *r);
void grep_model(struct sbuf *out, const struct grep_result *r);

/* Prints a --json object: t whole, and a newline. */
void present_json(FILE *f, const struct jv *t);

#endif
