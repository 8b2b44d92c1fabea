/* calls.c: every command as the command line and the MCP server call
 * it: its do-function, then the presenters of its result (results.h).
 * The command line shows the --json tree or the text; an MCP call gets
 * the model's text and the tree, capped (mcp_result). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "calls.h"
#include "jvb.h"
#include "mcp_result.h"
#include "present.h"
#include "results.h"

/* present_cli_TYPE: a result on the command line, as its --json tree or
 * its text. */
#define PRESENT_CLI(type)                                                            \
	static void present_cli_##type(const struct app *a, const struct type##_result *r)  \
	{                                                                            \
		if (a->json) {                                                       \
			struct jv t = {0};                                           \
			type##_tree(&t, r);                                          \
			present_json(stdout, &t);                                    \
			jvb_free(&t);                                                \
		} else {                                                             \
			type##_text(stdout, stderr, r);                              \
		}                                                                    \
	}

/* present_mcp_TYPE: a tool's result, as the text for the model and the
 * tree, capped. */
#define PRESENT_MCP(type, is_error)                                                  \
	static void present_mcp_##type(const struct app *a, const struct type##_result *r, \
				       struct sbuf *res)                             \
	{                                                                            \
		struct sbuf text = {0};                                              \
		struct jv t = {0};                                                   \
		type##_model(&text, r);                                              \
		type##_tree(&t, r);                                                  \
		mcp_result(res, &text, &t, a->output_limit, is_error);               \
		jvb_free(&t);                                                        \
		sbuf_free(&text);                                                    \
	}

/* cmd_NAME: the do-function, then the command line's presenter. */
#define CLI_CALL(name, type)                                      \
	int cmd_##name(struct app *a, struct err *e)              \
	{                                                         \
		struct type##_result r;                           \
		int rc = do_##name(a, &r, e);                     \
		if (rc < 0)                                       \
			return -1;                                \
		present_cli_##type(a, &r);                        \
		type##_result_free(&r);                           \
		return rc;                                        \
	}

/* answer_NAME: the do-function, then the MCP presenter. */
#define MCP_CALL(name)                                                    \
	int answer_##name(struct app *a, struct sbuf *res, struct err *e) \
	{                                                                 \
		struct name##_result r;                                   \
		int rc = do_##name(a, &r, e);                             \
		if (rc < 0)                                               \
			return -1;                                        \
		present_mcp_##name(a, &r, res);                           \
		name##_result_free(&r);                                   \
		return rc;                                                \
	}

PRESENT_CLI(ref)
PRESENT_CLI(list)
PRESENT_CLI(removed)
PRESENT_CLI(pool)
PRESENT_CLI(trust)
PRESENT_CLI(exec)
PRESENT_CLI(read)
PRESENT_CLI(write)
PRESENT_CLI(edit)
PRESENT_CLI(glob)
PRESENT_CLI(grep)
PRESENT_CLI(jobs)
PRESENT_CLI(logs)
PRESENT_CLI(kill)
PRESENT_CLI(wait)
PRESENT_CLI(cp)
PRESENT_CLI(diff)
PRESENT_CLI(apply)
PRESENT_CLI(doctor)
PRESENT_CLI(snapshot)
PRESENT_CLI(snapshots)

PRESENT_MCP(exec, exec_is_error(r))
PRESENT_MCP(read, false)
PRESENT_MCP(write, false)
PRESENT_MCP(edit, false)
PRESENT_MCP(glob, false)
PRESENT_MCP(grep, false)
PRESENT_MCP(jobs, false)
PRESENT_MCP(logs, false)
PRESENT_MCP(kill, strcmp(r->outcome, "alive") == 0)
PRESENT_MCP(diff, false)

CLI_CALL(create, ref)
CLI_CALL(start, ref)
CLI_CALL(stop, ref)
CLI_CALL(list, list)
CLI_CALL(destroy, removed)
CLI_CALL(prune, removed)
CLI_CALL(trust, trust)
CLI_CALL(read, read)
CLI_CALL(write, write)
CLI_CALL(edit, edit)
CLI_CALL(glob, glob)
CLI_CALL(grep, grep)
CLI_CALL(jobs, jobs)
CLI_CALL(logs, logs)
CLI_CALL(kill, kill)
CLI_CALL(wait, wait)
CLI_CALL(cp, cp)
CLI_CALL(diff, diff)
CLI_CALL(apply, apply)
CLI_CALL(doctor, doctor)
CLI_CALL(pool, pool)
CLI_CALL(snapshot, snapshot)
CLI_CALL(snapshots, snapshots)
CLI_CALL(fork, snapshot)

MCP_CALL(exec)
MCP_CALL(read)
MCP_CALL(write)
MCP_CALL(edit)
MCP_CALL(glob)
MCP_CALL(grep)
MCP_CALL(jobs)
MCP_CALL(logs)
MCP_CALL(kill)
MCP_CALL(diff)

/* exec -t has no result to show: the command had the terminal. */
int cmd_exec(struct app *a, struct err *e)
{
	if (a->o.exec.tty)
		return exec_tty(a, e);
	struct exec_result r;
	int rc = do_exec(a, &r, e);
	if (rc < 0)
		return -1;
	present_cli_exec(a, &r);
	exec_result_free(&r);
	return rc;
}

/* run's workspace is removed whatever happened: when it could not be,
 * stderr says so, after the result or the error. */
int cmd_run(struct app *a, struct err *e)
{
	struct exec_result r;
	int rc = do_run(a, &r, e);
	if (rc >= 0) {
		present_cli_exec(a, &r);
		exec_result_free(&r);
	}
	run_left(stderr, &r);
	return rc;
}
