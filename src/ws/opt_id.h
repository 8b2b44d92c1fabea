/* opt_id.h: every option by the id of its row in opts.c, and opt_say,
 * with which a command names one of its own options in a message. The
 * commands need these names, not opts.h's tables, which sit above them;
 * nor are they in app.h, which many files include: O_PATH would clash
 * with <fcntl.h>'s under _GNU_SOURCE. */
#ifndef SANDBOX_OPT_ID_H
#define SANDBOX_OPT_ID_H

struct app;

enum opt_id {
	O_WS, O_KEY, O_JSON, O_CONFIG, O_VERBOSE, O_HELP, O_VERSION,
	O_SHELL, O_CWD, O_INTERACTIVE, O_SESSION, O_RESET, O_ALL, O_STOPPED, O_OLDER,
	O_ARG, O_OFFSET, O_LIMIT, O_RAW, O_CONTENT, O_OLD, O_NEW, O_OLD_FILE, O_NEW_FILE,
	O_EXPECT, O_PATH, O_GLOB, O_ICASE, O_FIXED, O_OUTPUT, O_AFTER, O_BEFORE,
	O_CONTEXT, O_RM, O_OUTPUT_LIMIT, O_REVOKE,
	O_BACKGROUND, O_TTY, O_STDERR, O_FOLLOW, O_ERR_OFFSET, O_WAIT, O_SIGNAL, O_WAIT_TIMEOUT,
	O_STAT, O_NAME_ONLY, O_CHECK, O_FORCE, O_EXPECT_ID, O_EXPIRED, O_SPEC, O_SNAP_NAME, O_SNAPSHOT,
	O_SINCE, O_PRUNE, O_ADDRESS,
};

/* How a message names option id of a's command to whoever called it:
 * "--offset" on the command line, "offset" to an MCP client; NULL when
 * that caller has no such option. The string lives until the next call
 * for the same row. Defined by opts.c, from its rows. */
const char *opt_say(const struct app *a, enum opt_id id);

#endif
