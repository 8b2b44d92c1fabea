/* mcp_result.h: a tools/call result as an MCP client gets it: the text
 * for the model, and the tree of the command's --json object as
 * structuredContent, both capped at the server's --output-limit. */
#ifndef SANDBOX_MCP_RESULT_H
#define SANDBOX_MCP_RESULT_H

#include <stdbool.h>

#include "err.h"
#include "jsonr.h"
#include "util.h"

/* Appends the result: text and tree, each byte that is not UTF-8 in
 * either as U+FFFD, both capped at output_limit characters (the tree's
 * strings may be replaced). */
void mcp_result(struct sbuf *res, const struct sbuf *text, struct jv *tree, long output_limit,
		bool is_error);
/* Appends the result for an error (isError): its message for the model,
 * and the --json error object; ref is the workspace, or NULL. */
void mcp_error_result(struct sbuf *res, const struct err *e, const char *ref);

#endif
