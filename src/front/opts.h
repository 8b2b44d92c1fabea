/* opts.h: every command and every option, each in one table. The command
 * line's parser, --help and the usage lines, the MCP tools' input schemas
 * and the check of their arguments, and every option's default are made
 * from these rows: a new option is a row, a new command a row (its
 * do-function, its result's type, its flags) and what the row names
 * (README, Layout). An option that differs between commands (read's
 * --limit and grep's) is one row per meaning. */
#ifndef SANDBOX_OPTS_H
#define SANDBOX_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "app.h"
#include "err.h"
#include "json.h"
#include "jsonr.h"
#include "opt_id.h"

enum cmd_id {
	C_CREATE, C_EXEC, C_RUN, C_START, C_STOP, C_DESTROY, C_LIST, C_PRUNE,
	C_READ, C_WRITE, C_EDIT, C_GLOB, C_GREP, C_MCP, C_TRUST,
	C_JOBS, C_LOGS, C_KILL, C_WAIT, C_CP, C_DIFF, C_APPLY, C_DOCTOR, C_SHELL, C_POOL,
	C_SNAPSHOT, C_SNAPSHOTS, C_FORK, C_RESIDENT, C_HISTORY, C_FORWARD, C_NET, C_HELP,
	C_COUNT                /* how many: not a command */
};
/* A set of commands: an option's, a tool's. One bit a command. */
#define CMD(c) ((uint64_t)1 << (c))
#define CMD_ALL UINT64_MAX
_Static_assert(C_COUNT <= 64, "a set of commands is 64 bits: widen CMD and struct opt's sets");

/* What sets a command apart, for the command line (main.c). */
enum cmd_flag {
	CF_TAKES_COMMAND = 1 << 0, /* the first non-option starts the command line */
	CF_NO_CONFIG = 1 << 1,     /* reads no config file and needs no engine */
	CF_LENIENT = 1 << 2,       /* runs when the config or the engine is wrong,
				    * and says so itself (doctor) */
	CF_ENGINE_ARGS = 1 << 3,   /* what follows -- is the engine run's arguments */
	CF_DIFF_STATUS = 1 << 4,   /* as diff(1): 1 says it found something, so
				    * trouble is 2, not 1 */
	CF_NO_RESIDENT = 1 << 5,   /* takes no channel from the resident process:
				    * mcp holds its own; run's workspace lives
				    * for one command, and run, the one-shot for
				    * CI, leaves no process behind */
};

struct result_type;

/* A command: all that the command line and the MCP server need of it. */
struct command {
	enum cmd_id id;
	const char *name;
	/* What it does: its do-function (results.h), which fills a result of
	 * type result, kept as a plain pointer that only result->run calls,
	 * as the function it is; the front end that called it shows the
	 * result (cmd_call). */
	void (*run)(void);
	const struct result_type *result;
	/* Or, for a command with no result (shell, mcp), all it does; what
	 * it shows is its own. help has neither: main.c's. */
	int (*plain)(struct app *, struct err *);
	/* After the result was shown, or the do-function failed: what the
	 * result says whatever happened (run's workspace left). */
	void (*finish)(const void *result);
	const char *usage;    /* after "sandbox " */
	const char *help;     /* what it does, for --help */
	const char *mcp_desc; /* not NULL: an MCP tool, described so */
	const char *tool;     /* the MCP tool's name, when not the command's */
	unsigned flags;       /* enum cmd_flag */
};
/* Runs c, a command with a result, for a front end: its do-function
 * fills the result, use shows it (with ctx, use's own), and it is
 * freed; then c's finish, if any. The do-function's status, or -1 with
 * e set. */
int cmd_call(const struct command *c, struct app *a,
	     void (*use)(void *ctx, const struct result_type *t, const void *r), void *ctx,
	     struct err *e);
/* The MCP tool's name of c. */
const char *cmd_tool_name(const struct command *c);
/* The command whose MCP tool is name; NULL if none. */
const struct command *cmd_find_tool(const char *name);

enum opt_type {
	OT_FLAG,     /* no value: true */
	OT_TEXT,     /* a string; min 1: not empty */
	OT_COUNT,    /* an integer from min to max */
	OT_SECONDS,  /* a number of seconds above 0 (MCP), or as the key says */
	OT_CHOICE,   /* one of choices */
	OT_ENV,      /* K=V, repeatable (an object of strings in MCP) */
};

struct opt {
	enum opt_id id;
	const char *lng;      /* --NAME; NULL: a positional argument */
	char shrt;            /* -X, or 0 */
	const char *mcp;      /* the MCP argument's name; NULL: none */
	uint64_t cmds;        /* the commands that take it on the command line */
	uint64_t tools;       /* the tools that take it as an argument */
	enum opt_type type;
	long long min, max;   /* OT_COUNT; OT_TEXT: min 1 for not empty */
	long long dflt;       /* OT_COUNT: its value when not given */
	const char *key;      /* a config key it sets, or NULL */
	const char *const *choices; /* OT_CHOICE: NULL-ended */
	const char *metavar;  /* the value's name in help, or NULL */
	const char *help;     /* one line for --help; NULL: not listed there */
	const char *desc;     /* for the model, in the tool's schema */
	bool required;        /* a required argument of the tool */
	size_t at;            /* OPT_AT(field): where struct opts keeps it;
			       * 0: the parser's own (O_KEY, O_CONFIG, ...) */
};
#define OPT_AT(field) (offsetof(struct opts, field) + 1)

const struct command *cmd_find(const char *name);
const struct command *cmd_table(size_t *n);
const struct command *cmd_of(enum cmd_id id);

/* The option -X or --NAME (len bytes of name) that command c takes;
 * NULL if none. c NULL: before the command, only the global ones. */
const struct opt *opt_find_long(const struct command *c, const char *name, size_t len);
const struct opt *opt_find_short(const struct command *c, char x);
/* All the rows, for tests. */
const struct opt *opt_table(size_t *n);
/* Whether row o is a global option (every command takes it). */
bool opt_global(const struct opt *o);
/* How the command line spells o: "--limit", "-A", "PATH". */
const char *opt_spelling(const struct opt *o, char *buf, size_t len);

/* Checks a command line's value for OT_COUNT o; -1 with e set. */
int opt_count(const struct opt *o, const char *spelled, const char *val, long *out,
	      struct err *e);
/* Sets every option of command c that has a default to it. */
void opt_defaults(struct opts *o, enum cmd_id c);
/* Stores a checked value of o in a (a->o, or a->ref, a->json): the
 * command line's (s for a value, i for a count) or a tool argument's. */
int opt_store(struct app *a, const struct opt *o, const char *s, long i, struct err *e);

/* The usage lines, as --help and a bad command line print them. */
void opts_usage(FILE *f);
/* sandbox help [COMMAND]: c NULL for the general help. */
void opts_help(FILE *f, const struct command *c);

/* The MCP side: tools/list's array (timeout: exec's default, for its
 * schema), a call's arguments checked against its tool's rows (types,
 * limits, required, nothing unknown), and stored into call (-1 with e
 * set for a value the command line would refuse too). */
void opts_tools_list(struct json *j, double timeout);
int opts_tool_check(const struct command *c, const struct jv *args, struct err *e);
int opts_tool_apply(const struct command *c, struct app *call, const struct jv *args,
		    struct err *e);

#endif
