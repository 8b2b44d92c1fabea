/* record.h: a call's record in its workspace's history (history.h):
 * what the front ends (the command line, the MCP server) ran, for whom,
 * and how it ended. cmd_call writes one for every command with a result
 * about a workspace: the one it chose, made or removed. */
#ifndef SANDBOX_RECORD_H
#define SANDBOX_RECORD_H

#include "app.h"
#include "err.h"
#include "exec.h"

struct command;
struct result_type;

/* How much of what was asked a record keeps: each value cut to
 * RECORD_VALUE_MAX bytes, RECORD_ARGS_MAX of them while their JSON is
 * under RECORD_ARGV_MAX bytes (the rest counted in argv_cut), an MCP
 * call's arguments to RECORD_ARGUMENTS_MAX characters of JSON: a record
 * stays under HISTORY_RECORD_MAX whatever was asked. */
#define RECORD_VALUE_MAX 256
#define RECORD_ARGS_MAX 64
#define RECORD_ARGV_MAX 8192
#define RECORD_ARGUMENTS_MAX 4096

/* When a call began, and what the calls had carried by then. */
struct record_start {
	long long wall_ms; /* since the epoch */
	long long ms;      /* now_ms's */
	struct exec_bytes bytes;
};
void record_begin(struct record_start *s);
/* The record of command c, which a ran from s on: r its result when rc
 * is 0 (of type t), else e says why it failed. Nothing when the history
 * is off or no workspace was chosen; a history that cannot be written
 * is said with -v only: the call's own outcome stands. */
void record_call(const struct app *a, const struct command *c, const struct result_type *t,
		 const void *r, int rc, const struct err *e, const struct record_start *s);
/* The record's text, for workspace ws (what record_call writes; and
 * the tests): tree is the result's --json tree, NULL when it failed. */
void record_format(struct sbuf *out, const struct app *a, const char *ws,
		   const struct command *c, const struct jv *tree, int rc, const struct err *e,
		   const struct record_start *s, long long now_ms);

#endif
