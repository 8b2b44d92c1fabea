/* mcp_tools.h: the six tools as an MCP client sees them. Their
 * descriptions and arguments are rows of opts.c's tables (the JSON
 * Schemas of tools/list, the check of a call's arguments, the options
 * they set on the call). A call's result is a text for the model and
 * the tree of the CLI's JSON object as structuredContent, both capped.
 * read, write, edit and glob make them from their typed results
 * (results.h); exec and grep still from the JSON their command prints. */
#ifndef SANDBOX_MCP_TOOLS_H
#define SANDBOX_MCP_TOOLS_H

#include <stddef.h>

#include "app.h"
#include "err.h"
#include "json.h"
#include "jsonr.h"
#include "util.h"

struct mcp_tool;

/* NULL when there is no tool of that name. */
const struct mcp_tool *mcp_tool_find(const char *name);
const char *mcp_tool_name(const struct mcp_tool *t);

/* The array of tools/list; timeout is exec's default, for its schema. */
void mcp_tools_list(struct json *j, double timeout);

/* Checks a call's arguments against the tool's: types, limits, required,
 * nothing unknown. A message in e (to answer with -32602) if not. */
int mcp_tool_check(const struct mcp_tool *t, const struct jv *args, struct err *e);
/* Sets call's options from checked arguments, as the CLI's would be;
 * -1 with e set for a value the command line refuses too. */
int mcp_tool_apply(const struct mcp_tool *t, struct app *call, const struct jv *args,
		   struct err *e);
/* Runs the tool: a typed one writes its whole tools/call result on
 * call->out; the others their command's JSON object. */
int mcp_tool_run(const struct mcp_tool *t, struct app *call, struct err *e);

/* Appends the tools/call result for what mcp_tool_run wrote (json, len):
 * as it is for a typed tool, else made from the JSON object. Or for an
 * error; ref is the workspace, or NULL. */
void mcp_tool_result(struct sbuf *res, const struct mcp_tool *t, const struct app *call,
		     const char *json, size_t len);
void mcp_error_result(struct sbuf *res, const struct err *e, const char *ref);

/* A tools/call result: text for the model and tree as structuredContent,
 * each byte that is not UTF-8 in either as U+FFFD, both capped at
 * output_limit characters (the tree's strings may be replaced). */
void mcp_result(struct sbuf *res, const struct sbuf *text, struct jv *tree, long output_limit,
		bool is_error);

#endif
