/* calls.h: the MCP side of the commands that are tools (calls.c): each
 * runs its do-function with the call's options and appends the whole
 * tools/call result to res; -1 with e set when it failed. Their command
 * line side is app.h's cmd_NAME. */
#ifndef SANDBOX_CALLS_H
#define SANDBOX_CALLS_H

#include "app.h"
#include "err.h"
#include "util.h"

int answer_exec(struct app *a, struct sbuf *res, struct err *e);
int answer_read(struct app *a, struct sbuf *res, struct err *e);
int answer_write(struct app *a, struct sbuf *res, struct err *e);
int answer_edit(struct app *a, struct sbuf *res, struct err *e);
int answer_glob(struct app *a, struct sbuf *res, struct err *e);
int answer_grep(struct app *a, struct sbuf *res, struct err *e);
int answer_jobs(struct app *a, struct sbuf *res, struct err *e);
int answer_logs(struct app *a, struct sbuf *res, struct err *e);
int answer_kill(struct app *a, struct sbuf *res, struct err *e);
int answer_diff(struct app *a, struct sbuf *res, struct err *e);

#endif
