/* app.h: what every command gets: the merged config, the resolved engine
 * and its environment, the global options, and its own arguments. */
#ifndef SANDBOX_APP_H
#define SANDBOX_APP_H

#include <stdbool.h>
#include <stdio.h>

#include "chan.h"
#include "config.h"
#include "err.h"
#include "redact.h"
#include "util.h"

struct jv;
struct resident;
struct ws;
struct ws_origin;

/* Each command's own options, filled by the rows of opts.c (each row
 * names its field); a command reads only its own. */
struct text_opt {
	struct sbuf text;      /* edit --old/--new, or their files' bytes */
	bool set;
};
struct exec_opts {             /* exec and run */
	const char *shell;     /* -c TEXT */
	const char *cwd;
	bool interactive;
	const char *session;   /* exec --session NAME (an MCP server's own) */
	bool reset;            /* --reset: the session starts afresh */
	bool background;       /* --background: a job; its id is the result */
	bool tty;              /* exec -t: with a terminal, ours */
};
struct life_opts {             /* destroy and prune */
	bool all, stopped, expired;
	const char *snapshot;  /* destroy --snapshot NAME */
	long older_than;       /* seconds; 0: any age */
};
struct read_opts {
	long offset, limit;
	bool raw;
};
struct write_opts {
	const char *content;
};
struct edit_opts {
	struct text_opt old, new;
	bool all;
	const char *expect_sha;
};
struct glob_opts {
	const char *path;
	long limit;
};
struct grep_opts {
	const char *path, *glob;
	bool icase, fixed;
	const char *output;    /* files, content or count */
	long after, before, limit;
};
struct mcp_opts {
	bool rm;
	long output_limit;
};
struct trust_opts {
	bool revoke;
};
struct logs_opts {             /* logs, and MCP's job_output */
	bool stderr_only;      /* --stderr */
	bool follow;
	long offset, err_offset; /* bytes of stdout, stderr already read */
	long wait;             /* MCP: seconds to wait for output or the end */
};
struct kill_opts {
	const char *signal;    /* NULL: TERM, then KILL */
};
struct wait_opts {
	const char *timeout;   /* seconds; NULL: none */
};
struct diff_opts {
	bool stat, name_only;
};
struct apply_opts {
	bool check, force;
	const char *expect;    /* --expect ID: the review it must be */
};
struct pool_opts {
	const char *spec;      /* drain --spec */
};
struct snap_opts {
	const char *name;      /* snapshot --name NAME */
};

/* A command's options as given: made zero, given their defaults
 * (opt_defaults), filled, and freed with opts_free. */
struct history_opts {
	bool follow, prune;
	long since;            /* seconds back; 0: all */
};

struct forward_opts {
	const char *address;   /* where to listen; NULL: 127.0.0.1 */
};

struct opts {
	struct strvec args;    /* positional arguments, or the command */
	struct strvec extra;   /* create, run: engine run arguments after -- */
	bool timeout_given;    /* --timeout was on the command line */
	struct exec_opts exec;
	struct life_opts life;
	struct read_opts read;
	struct write_opts write;
	struct edit_opts edit;
	struct glob_opts glob;
	struct grep_opts grep;
	struct mcp_opts mcp;
	struct trust_opts trust;
	struct logs_opts logs;
	struct kill_opts kill;
	struct wait_opts wait;
	struct diff_opts diff;
	struct apply_opts apply;
	struct pool_opts pool;
	struct snap_opts snap;
	struct history_opts history;
	struct forward_opts forward;
};
void opts_free(struct opts *o);

/* What a command runs with: the context (config, engine, the workspace)
 * and its options. */
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
	void (*created)(const char *ref); /* says so as it happens, before the
				* command's output; NULL: its result says it */
	struct opts o;         /* the command's options */
	struct chan *chan;     /* calls go through it (chan.h): mcp's own, or
				* one the resident lends; NULL: none */
	struct resident *resident; /* lends a->chan (resident.h); NULL: none */
	const struct exec_loop *loop; /* mcp: its poll loop drives the calls (exec.h) */
	struct ws *ws_pin;     /* mcp: the workspace of every call, once known;
				* ws_exec renews it when it finds it replaced */
	long output_limit;     /* mcp: characters of a tool result's text */
	const char *config;    /* the project's file named (--config, else
				* SANDBOX_CONFIG), or NULL: ./sandbox.ini */
	bool config_from_env;  /* config came from SANDBOX_CONFIG */
	struct err engine_err; /* a lenient command's (doctor): why the engine
				* was not found (a->engine NULL then) */
	const struct ws_origin *origin; /* where a new workspace comes from
					 * (workspace.h): app_origin */
	struct strvec secrets; /* NAME=VALUE, read (secret.h): what a command
				* in the workspace gets, off every argv */
	struct redact_set redact; /* their forms, kept out of all output */
	/* For the history (record.h): what was asked, and by whom. */
	char **argv;           /* the command line's words, after ours */
	int argc;
	const char *client;    /* mcp: the client's name, as it said it */
	const struct jv *tool_args; /* mcp: the call's arguments */
};

/* Where a new workspace comes from, as the commands decide it: a pool's
 * ready one of the spec (pool_take), else a new container, of a
 * snapshot's image when create --from names one (snap_use). */
extern const struct ws_origin app_origin;
/* create --from (cmd_snap.c): a->cfg.from, when set, must name a
 * snapshot, an image of ours (its label); its workdir becomes the new
 * workspace's unless one was given. */
int snap_use(struct app *a, struct err *e);

/* The largest --offset, --limit, -A, -B and -C, and the MCP arguments
 * that stand for them: counts of lines or results, which size nothing. */
#define APP_COUNT_MAX 100000000L
/* The largest --limit of glob and grep: the results shown are kept. */
#define APP_SEARCH_MAX 10000L
/* The largest mcp --output-limit: a result's memory grows with it (its
 * text and its structuredContent, up to 6 bytes a character in JSON). */
#define APP_OUTPUT_LIMIT_MAX 1000000L
/* The largest logs --offset (a job's stream is no longer), and the most
 * seconds job_output waits. */
#define JOB_OFFSET_MAX 1000000000000000L
#define JOB_WAIT_MAX 300L

#endif
