/* app.h: what every command gets: the merged config, the resolved engine
 * and its environment, the global options, and its own arguments. */
#ifndef SANDBOX_APP_H
#define SANDBOX_APP_H

#include <stdbool.h>
#include <stdio.h>

#include "chan.h"
#include "config.h"
#include "err.h"
#include "util.h"

struct ws;

struct app {
	const char *cmd;       /* the command's name, for messages */
	bool mcp;              /* an MCP tool call: messages name its arguments */
	struct cfg cfg;
	char *engine;          /* absolute path, resolved once */
	struct strvec envp;    /* the engine's environment */
	char *cache_dir;       /* verified container IDs; NULL: no cache */
	bool json;
	const char *ref;       /* -w, --workspace or SANDBOX_WORKSPACE */
	bool ref_from_env;     /* ref came from SANDBOX_WORKSPACE */
	char ws_name[160];     /* the workspace acted on, once chosen */
	bool ws_created;       /* made by this call: errors must name it */
	/* Command options that are not config keys. */
	const char *shell;     /* exec/run -c TEXT */
	const char *cwd;
	bool interactive;
	bool all, stopped;
	long older_than;       /* seconds; -1: any age */
	/* File tools. */
	long offset, limit;    /* read: lines; glob, grep: results */
	bool raw;
	const char *content;   /* write --content */
	struct sbuf old_text, new_text; /* edit: --old/--new, or their files */
	bool old_set, new_set;
	const char *expect_sha;
	const char *path;      /* glob, grep: --path */
	const char *glob;      /* grep --glob */
	bool icase, fixed;
	const char *output;    /* grep: files, content or count */
	long after, before;    /* grep context lines */
	struct strvec args;    /* positional arguments, or the command */
	struct strvec extra;   /* create/run: engine run arguments after -- */
	FILE *out;             /* where results go: stdout, or mcp's buffer */
	struct chan *chan;     /* mcp: calls go through it (chan.h); else NULL */
	const struct exec_loop *loop; /* mcp: its poll loop drives the calls (exec.h) */
	struct ws *ws_pin;     /* mcp: the workspace of every call, once known;
				* ws_exec renews it when it finds it replaced */
	bool rm;               /* mcp --rm */
	long output_limit;     /* mcp: characters of a result's text */
	bool revoke;           /* trust --revoke */
};

/* The largest --offset, --limit, -A, -B and -C, and the MCP arguments
 * that stand for them: counts of lines or results, which size nothing. */
#define APP_COUNT_MAX 100000000L
/* The largest --limit of glob and grep: the results shown are kept. */
#define APP_SEARCH_MAX 10000L
/* The largest mcp --output-limit: a result's memory grows with it (its
 * text and its structuredContent, up to 6 bytes a character in JSON). */
#define APP_OUTPUT_LIMIT_MAX 1000000L

int cmd_create(struct app *a, struct err *e);
int cmd_exec(struct app *a, struct err *e);
int cmd_run(struct app *a, struct err *e);
int cmd_start(struct app *a, struct err *e);
int cmd_stop(struct app *a, struct err *e);
int cmd_destroy(struct app *a, struct err *e);
int cmd_list(struct app *a, struct err *e);
int cmd_prune(struct app *a, struct err *e);
int cmd_read(struct app *a, struct err *e);
int cmd_write(struct app *a, struct err *e);
int cmd_edit(struct app *a, struct err *e);
int cmd_glob(struct app *a, struct err *e);
int cmd_grep(struct app *a, struct err *e);
int cmd_mcp(struct app *a, struct err *e);
int cmd_trust(struct app *a, struct err *e);

#endif
