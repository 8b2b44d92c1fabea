/* tools.h: what the file tools (read, write, edit, glob, grep) share:
 * running one of their constant scripts in the workspace through the
 * exec path, splitting its answer line from its data, turning its
 * refusals into messages, and showing paths safely (tool_text.h, the
 * pure part, which the readers of their answers use too). */
#ifndef SANDBOX_TOOLS_H
#define SANDBOX_TOOLS_H

#include <stdbool.h>
#include <stddef.h>

#include "app.h"
#include "err.h"
#include "feed.h"
#include "json.h"
#include "proto.h"
#include "tool_text.h"
#include "util.h"
#include "workspace.h"

struct tool_out {
	struct sbuf head; /* the script's first line, without "\n" */
	bool have_head;
	/* The rest of stdout; returning -1 stops the script (we have seen
	 * enough), which tool_run then does not count as a failure. */
	int (*body)(void *ctx, const char *buf, size_t n);
	void *ctx;
	bool stopped;
	struct sbuf err;  /* the start of its stderr, for messages */
	/* How it runs: 0 for the step timeout (ws_step_timeout); NULL for
	 * the workdir. */
	double timeout;
	const char *cwd;
	bool own_exec;    /* never on the channel (exec.h) */
	bool secrets;     /* the command gets the secrets (a job's) */
	bool lone;        /* PROTO_READ: may go lone (exec.h); head "S -" */
	bool timed_out;   /* set: the call failed for its timeout */
};

/* Runs one of our scripts (proto.h), sh -c SCRIPT sh ARGS..., in ws, with the feed on its stdin, or
 * (direct) our own stdin, or nothing. Returns 0 when the script ran to
 * its end (or body stopped it), -1 with e set otherwise. */
int tool_run(struct app *a, struct ws *ws, enum proto_script script, char *const *args,
	     size_t nargs, struct feed *feed, bool direct, struct tool_out *out, struct err *e);
void tool_out_free(struct tool_out *out);

/* If head is a refusal ("E WHY"), sets e to "PATH: reason" and returns -1. */
int tool_refusal(const char *head, const char *path, struct err *e);

/* A path as the scripts get it: "./" before a leading '-'. Refuses an
 * empty one. Caller frees. */
char *tool_arg_path(const char *path, struct err *e);

/* edit's line for a diff too large to show: where the file changed. */
void edit_omitted_note(struct sbuf *out, long long line, long long old_lines,
		       long long new_lines);

/* The one PATH argument of read, write and edit. */
int tool_one_path(struct app *a, const char **path, struct err *e);

/* Streams the feed into path, atomically (SCRIPT_WRITE); with no feed,
 * our stdin as it is: a regular file of direct bytes. With expect_sha,
 * refuses when the file no longer has that hash. sha gets the new
 * content's hash (with a feed that keeps one). */
int tool_write(struct app *a, struct ws *ws, const char *path, struct feed *feed,
	       unsigned long long direct, const char *expect_sha, char sha[65],
	       bool *created, struct err *e);

#endif
