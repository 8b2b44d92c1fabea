/* opts.c: see opts.h. */
#include "opts.h"
#include "record.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "engine.h"
#include "grep.h"
#include "results.h"
#include "utf8.h"
#include "util.h"

/* A row's do-function, do_NAME, and its result's type, TYPE_result_type:
 * do_NAME must have TYPE's signature (else no _Generic association
 * matches: a compile error). The row keeps it as a plain function
 * pointer, which TYPE's run converts back (results.h). */
#define DOES(name, type)                                                                   \
	.run = _Generic(do_##name,                                                         \
			int (*)(struct app *, struct type##_result *, struct err *):       \
				(void (*)(void))do_##name),                                 \
	.result = &type##_result_type

/* The rows in the order of the usage lines. */
static const struct command commands[] = {
	{C_CREATE, "create", DOES(create, ref),
	 .usage = "create [options] [-- ENGINE_RUN_ARGS...]",
	 .help = "Create a workspace and print its ref.\n",
	 .flags = CF_ENGINE_ARGS},
	{C_EXEC, "exec", DOES(exec, exec),
	 .usage = "exec [options] [--] CMD [ARG...] | exec [options] -c TEXT",
	 .help = "Run a command in the workspace named by -w or SANDBOX_WORKSPACE, or in a\n"
		 "new one. Exits with the command's status; 124 on timeout; 255 when the\n"
		 "sandbox itself failed.\n",
	 .mcp_desc = "Run shell text (sh -c) in the sandbox container (the first call in its workspace directory) and return "
		     "its stdout, stderr and exit code. The command is killed, with everything it started, "
		     "after its timeout (see the timeout argument). Long output keeps its head and tail. Calls "
		     "share a session, as in a terminal: each starts in the directory and with the exported "
		     "variables the previous one left (cd and export carry over; shell functions and "
		     "unexported variables do not); reset starts afresh. There is "
		     "no network unless the sandbox was started with one. Use the read, write, edit, glob "
		     "and grep tools for files rather than cat, sed or find.",
	 .flags = CF_TAKES_COMMAND},
	{C_SHELL, "shell", .plain = cmd_shell,
	 .usage = "shell [--cwd DIR] [--session NAME]",
	 .help = "Open an interactive shell (bash if the image has it, else sh) with a\n"
		 "terminal in the workspace named by -w or SANDBOX_WORKSPACE, or in a new\n"
		 "one. Needs a terminal on stdin. Exits with the shell's status.\n"},
	{C_RUN, "run", DOES(run, exec), .finish = run_finish,
	 .usage = "run [options] [--] CMD [ARG...] | run [options] -c TEXT",
	 .help = "Create a workspace, run one command in it, remove it whatever happens.\n"
		 "One taken from a pool goes in the background, once the command ended.\n",
	 .flags = CF_TAKES_COMMAND | CF_NO_RESIDENT},
	{C_START, "start", DOES(start, ref),
	 .usage = "start [REF]",
	 .help = "Start a stopped workspace.\n"},
	{C_STOP, "stop", DOES(stop, ref),
	 .usage = "stop [REF]",
	 .help = "Stop a workspace; its files stay.\n"},
	{C_DESTROY, "destroy", DOES(destroy, removed),
	 .usage = "destroy REF... | destroy --all | destroy --snapshot NAME",
	 .help = "Remove workspaces and their anonymous volumes; a gone one is no error.\n"
		 "-w REF names one too; SANDBOX_WORKSPACE alone does not. --snapshot NAME\n"
		 "removes a snapshot instead.\n"},
	{C_LIST, "list", DOES(list, list),
	 .usage = "list",
	 .help = "List the workspaces: ref, state, image, age, and when each expires (a\n"
		 "ttl's deadline, an idle time). A pool's ready ones are not listed.\n"},
	{C_PRUNE, "prune", DOES(prune, removed),
	 .usage = "prune [--older-than DURATION] [--stopped] [--expired]",
	 .help = "Remove workspaces in bulk.\n"},
	{C_POOL, "pool", DOES(pool, pool),
	 .usage = "pool fill N [create options] [-- ENGINE_RUN_ARGS...] | pool list | pool drain [--spec SPEC]",
	 .help = "Keep workspaces ready ahead of time. fill makes the pool of these create\n"
		 "options hold N ready workspaces (setup run); a create, run, exec or mcp\n"
		 "with the same options then takes one, renamed (a run's keeps its pool\n"
		 "name), in place of a new container. list shows the pools (SPEC, READY,\n"
		 "STOPPED, IMAGE); drain removes them, or the one of --spec.\n",
	 .flags = CF_ENGINE_ARGS},
	{C_READ, "read", DOES(read, read),
	 .usage = "read PATH [--offset N] [--limit N] [--raw]",
	 .help = "Print a file of the workspace with numbered lines (cat -n style); a line\n"
		 "over 2000 characters is cut. A binary file is refused unless --raw.\n",
	 .mcp_desc = "Read a text file of the workspace. Lines come numbered like cat -n, from offset "
		     "(1-based) for at most limit lines (default 2000); longer lines are cut at 2000 "
		     "characters. When lines remain, the result says so: call again with the offset it "
		     "gives. Binary files are refused. structuredContent.sha256 is the file's hash, for "
		     "edit's expect_sha256."},
	{C_WRITE, "write", DOES(write, write),
	 .usage = "write PATH [--content TEXT]",
	 .help = "Write a file of the workspace atomically, from --content or from stdin\n"
		 "(any bytes, any size); missing directories are created, an existing\n"
		 "file keeps its mode and owner.\n",
	 .mcp_desc = "Create or replace a file in the workspace with the given content, atomically; "
		     "missing directories are created, an existing file keeps its mode. Prefer edit for "
		     "changing part of a file."},
	{C_EDIT, "edit", DOES(edit, edit),
	 .usage = "edit PATH --old TEXT|--old-file F --new TEXT|--new-file F [--all] [--expect-sha256 HASH]",
	 .help = "Replace the exact old text with the new one and print the diff. The old\n"
		 "text must occur once, unless --all.\n",
	 .mcp_desc = "Replace old_text with new_text in a file. old_text must match exactly (whitespace "
		     "and indentation included) and occur exactly once; when it occurs several times the "
		     "error gives their lines: add surrounding text to make it unique, or set "
		     "replace_all. A file with CRLF line endings keeps them. Returns a unified diff."},
	{C_GLOB, "glob", DOES(glob, glob),
	 .usage = "glob PATTERN [--path DIR] [--limit N]",
	 .help = "List the files under --path that match PATTERN, newest first: * and ?\n"
		 "within a name, [...], {a,b}, ** for any depth. Exit 1 when none matches.\n",
	 .mcp_desc = "Find files by name pattern under path (default: the workspace directory): * and ? "
		     "within one name, [...], {a,b}, and ** across directories (src/**/*.c). Newest "
		     "first, at most limit (default 1000); .git is skipped."},
	{C_GREP, "grep", DOES(grep, grep),
	 .usage = "grep REGEX [--path PATH] [--glob PATTERN] [-i] [-F] [--output files|content|count] [-A N] [-B N] [-C N] [--limit N]",
	 .help = "Search the files under --path (a file or a directory) for an extended\n"
		 "regular expression. Binary files and .git are skipped; output is sorted\n"
		 "by path. Exit 1 when nothing matches.\n",
	 .mcp_desc = "Search file contents with a POSIX extended regular expression, recursively from "
		     "path (default: the workspace directory). output_mode files (default) lists matching "
		     "files, content gives path:line:text (with context lines around), count gives "
		     "path:N. Sorted by path; binary files and .git are skipped; at most limit lines."},
	{C_MCP, "mcp", .plain = cmd_mcp,
	 .usage = "mcp [create options] [--timeout SECONDS] [--output-limit CHARS] [--rm]",
	 .flags = CF_NO_RESIDENT,
	 .help = "Serve the tools (exec, read, write, edit, glob, grep, and job_output,\n"
		 "job_kill, job_list for background jobs) to an agent as a Model Context\n"
		 "Protocol server: JSON-RPC on stdin and stdout, logs on\n"
		 "stderr. The workspace is -w REF, or one created on the first call from\n"
		 "the config and the create options; its ref goes to stderr. At the end of\n"
		 "input the server exits and keeps the workspace, unless --rm.\n"},
	{C_TRUST, "trust", DOES(trust, trust),
	 .usage = "trust [--revoke] [FILE]",
	 .help = "Trust the config file FILE (default ./sandbox.ini) as it is now: record\n"
		 "its SHA-256 under its real path in ~/.config/sandbox/trusted. A\n"
		 "./sandbox.ini is used only while it is trusted and unchanged, since a\n"
		 "workspace with the directory mounted can write it; read it first. A file\n"
		 "named with --config or SANDBOX_CONFIG needs no trust.\n",
	 .flags = CF_NO_CONFIG},
	{C_JOBS, "jobs", DOES(jobs, jobs),
	 .usage = "jobs",
	 .help = "List the background jobs of the workspace: JOB, STATE (running, exited N,\n"
		 "killed SIG, lost), AGE, COMMAND.\n",
	 .mcp_desc = "List the background jobs of the workspace (exec with background: true): their "
		     "numbers, states (running, exited N, killed SIG, lost: the sandbox restarted), "
		     "ages and commands.",
	 .tool = "job_list"},
	{C_LOGS, "logs", DOES(logs, logs),
	 .usage = "logs JOB [--stderr] [--offset N] [--follow]",
	 .help = "Print a background job's output (stdout, or --stderr), from byte --offset\n"
		 "on. A job keeps the first and the last MiB of each stream. --follow\n"
		 "prints it as it comes until the job ends, then exits with its status.\n",
	 .mcp_desc = "Read a background job's output: its stdout from byte offset and its stderr from "
		     "byte stderr_offset (both 0 at first), with its state. The result gives the offsets "
		     "to pass next. With wait, waits that many seconds at most for new output or the "
		     "job's end first: poll a server until it is ready, or a build until it ends. A job "
		     "keeps the first and the last MiB of each stream.",
	 .tool = "job_output"},
	{C_KILL, "kill", DOES(kill, kill),
	 .usage = "kill JOB [--signal SIG]",
	 .help = "Stop a background job and everything it started: TERM, then KILL a\n"
		 "second later; or send only --signal SIG (a name or a number).\n",
	 .mcp_desc = "Stop a background job and every process it started (TERM, then KILL a second "
		     "later), or send it only the signal given (INT, HUP, ...).",
	 .tool = "job_kill"},
	{C_WAIT, "wait", DOES(wait, wait),
	 .usage = "wait JOB [--timeout SECONDS]",
	 .help = "Wait for a background job to end and exit with its status (128+N when\n"
		 "signal N killed it; 124 when --timeout passed first: the job goes on).\n"},
	{C_CP, "cp", DOES(cp, cp),
	 .usage = "cp [--timeout SECONDS] [--max-size SIZE] SRC... DEST",
	 .help = "Copy files and directory trees between the host and the workspace, both\n"
		 "ways; the workspace's side is written :PATH (or REF:PATH). As docker cp:\n"
		 "a directory lands in DEST/NAME when DEST is a directory, else becomes\n"
		 "DEST; SRC/. copies its contents; '-' is a tar stream on stdin or stdout.\n"
		 "Modes, mtimes and symlinks (as links) are kept; out of the workspace, no\n"
		 "entry is written outside DEST, and nothing at all unless the whole stream\n"
		 "came, within --max-size and a twentieth of the disk left free.\n"},
	{C_DIFF, "diff", DOES(diff, diff),
	 .usage = "diff [PATH...] [--stat] [--name-only] [--max-size SIZE]",
	 .help = "Show what changed in a copy workspace (create --copy DIR) since the copy,\n"
		 "or since the last apply: unified diffs of text files, as git diff prints\n"
		 "them, and added, deleted, binary, mode and link changes; what apply would\n"
		 "refuse, and the review's ID for apply --expect, on stderr. Exit 0 when\n"
		 "nothing changed, 1 when something did, 2 or 255 on trouble.\n",
	 .mcp_desc = "Show what changed in the workspace since its copy was made (or since the last "
		     "apply): a unified diff per changed file (git style: new, deleted, mode and "
		     "symlink changes; binary files named), limited to path when given. Review your "
		     "own work with it before you say you are done.",
	 .flags = CF_DIFF_STATUS},
	{C_APPLY, "apply", DOES(apply, apply),
	 .usage = "apply [PATH...] [--check] [--force] [--expect ID] [--max-size SIZE]",
	 .help = "Write a copy workspace's changes into DIR, the directory it was copied\n"
		 "from: each file through a temporary name renamed into place, deletions,\n"
		 "modes, links. A path that changed in DIR since the copy is a conflict:\n"
		 "nothing is written unless --force. Version-control metadata (.git, .hg,\n"
		 ".svn, .jj, _darcs, .bzr) is never written. Then diff starts from here.\n"},
	{C_DOCTOR, "doctor", DOES(doctor, doctor),
	 .usage = "doctor [--image IMG]",
	 .help = "Check what sandbox needs, one line each: the config files and the trust\n"
		 "of ./sandbox.ini, the engine's client, its daemon (local or remote),\n"
		 "rootless or not, cgroups, the limits the engine can enforce, and the\n"
		 "image (the configured one, or --image). A failed check says what to do;\n"
		 "one that depends on it is skipped. Exit 0 when every check passes, 1\n"
		 "when one does not.\n",
	 .flags = CF_LENIENT},
	{C_SNAPSHOT, "snapshot", DOES(snapshot, snapshot),
	 .usage = "snapshot [REF] [--name NAME] [--snapshot-max SIZE]",
	 .help = "Commit the files of the workspace (REF, -w or SANDBOX_WORKSPACE) to an\n"
		 "image, " SNAPSHOT_REPO ":NAME, and print NAME. A bind mount or volume is\n"
		 "not part of it: a line on stderr says so. Default NAME: REF-DATE-TIME-XXXX.\n"},
	{C_SNAPSHOTS, "snapshots", DOES(snapshots, snapshots),
	 .usage = "snapshots",
	 .help = "List the snapshots: name, the workspace it came from, age, size.\n"},
	{C_FORK, "fork", DOES(fork, snapshot),
	 .usage = "fork [REF] [create options]",
	 .help = "Snapshot the workspace and create a new one from the snapshot (create\n"
		 "--from NAME), in one; print the new workspace's ref.\n"},
	{C_RESIDENT, "resident", DOES(resident, resident),
	 .usage = "resident [stop [--all]]",
	 .help = "Show the resident process that keeps channels into workspaces between\n"
		 "commands for this engine endpoint (its pid, socket and channels), or\n"
		 "stop it. One starts on the first command that needs a channel and ends\n"
		 "after keep (default 5m) without a command; keep = no or SANDBOX_KEEP=no\n"
		 "turns it off.\n",
	 .flags = CF_LENIENT | CF_NO_RESIDENT},
	{C_HISTORY, "history", .plain = cmd_history,
	 .usage = "history [REF] [--since DURATION] [--follow] | history --prune",
	 .help = "Show the record of every call made in REF's workspace (all of them when\n"
		 "none is named): when, from where (the command line, or an MCP client by\n"
		 "its name), who, what was asked, how it ended, how long it took, the bytes\n"
		 "in and out. It is kept on this side, under ~/.local/state/sandbox/history,\n"
		 "where no workspace can write; it outlives its workspace until --prune.\n"
		 "--json prints the records, one object a line. No MCP tool shows it.\n",
	 .flags = CF_LENIENT | CF_NO_RESIDENT},
	{C_FORWARD, "forward", .plain = cmd_forward,
	 .usage = "forward [REF] [HOSTPORT:]PORT... [--address ADDR]",
	 .help = "Make the workspace's 127.0.0.1:PORT reachable at this side's\n"
		 "127.0.0.1:HOSTPORT (HOSTPORT 0: any free port; none: PORT), until\n"
		 "interrupted: each connection is carried by the engine (an exec of a\n"
		 "small relay of ours in the workspace), so it works with network none\n"
		 "and over ssh. It prints where it listens first (--json: one object).\n",
	 .flags = CF_NO_RESIDENT},
	{C_NET, "net", .plain = cmd_net,
	 .usage = "net [REF] [--since DURATION] [--follow]",
	 .help = "Show the connections that the workspaces of network allow made (REF's\n"
		 "only, when named), as their proxies decided them: when, the host and\n"
		 "port asked for, allowed or refused and why, the address reached, the\n"
		 "bytes each way, how long it lasted. A line is written as a connection\n"
		 "ends, under ~/.local/state/sandbox/net, where no workspace can write.\n"
		 "--json prints the records, one object a line.\n",
	 .flags = CF_LENIENT | CF_NO_RESIDENT},
	{C_HELP, "help",
	 .usage = "help [COMMAND]",
	 .help = "Show help.\n"},
};

_Static_assert(ARRAY_LEN(commands) == C_COUNT, "a row for every command, and no more");

#define C_NEW (CMD(C_CREATE) | CMD(C_RUN) | CMD(C_MCP) | CMD(C_POOL))
/* The create options a fork takes too: not those of its image and files. */
#define C_NEWF (C_NEW | CMD(C_FORK))
#define C_CMDS (CMD(C_EXEC) | CMD(C_RUN))
#define C_SEARCH (CMD(C_GLOB) | CMD(C_GREP))

static const char *const output_modes[] = {"files", "content", "count", NULL};

static const struct opt opts[] = {
	/* Global: every command takes them, before or after its name. */
	{O_WS, "workspace", 'w', NULL, CMD_ALL, 0, OT_TEXT, .metavar = "REF",
	 .help = "the workspace (default: $SANDBOX_WORKSPACE)"},
	{O_KEY, "engine", 0, NULL, CMD_ALL, 0, OT_TEXT, .key = "engine", .metavar = "ENGINE",
	 .help = "docker, podman or a path (default docker)"},
	{O_JSON, "json", 0, NULL, CMD_ALL, 0, OT_FLAG, .help = "print one JSON object on stdout"},
	{O_CONFIG, "config", 0, NULL, CMD_ALL, 0, OT_TEXT, .metavar = "FILE",
	 .help = "the project's config file (default: $SANDBOX_CONFIG,\n"
		 "else ./sandbox.ini once trusted: 'sandbox help trust');\n"
		 "~/.config/sandbox/sandbox.ini is read before it"},
	{O_VERBOSE, "verbose", 'v', NULL, CMD_ALL, 0, OT_FLAG,
	 .help = "print each engine command before it runs"},
	{O_HELP, "help", 'h', NULL, CMD_ALL, 0, OT_FLAG, .help = "print this help"},
	{O_VERSION, "version", 0, NULL, CMD_ALL, 0, OT_FLAG, .help = "print the version"},

	/* A new workspace: config keys. */
	{O_KEY, "image", 0, NULL, C_NEW, 0, OT_TEXT, .key = "image", .metavar = "IMG",
	 .help = "image of the new workspace"},
	{O_KEY, "image", 0, NULL, CMD(C_DOCTOR), 0, OT_TEXT, .key = "image", .metavar = "IMG",
	 .help = "the image to check (default: the configured one)"},
	{O_KEY, "from", 0, NULL, C_NEW, 0, OT_TEXT, .key = "from", .metavar = "SNAPSHOT",
	 .help = "a snapshot of a workspace, in place of --image"},
	{O_KEY, "workdir", 0, NULL, C_NEW, 0, OT_TEXT, .key = "workdir", .metavar = "DIR",
	 .help = "where commands start (default /workspace; created)"},
	{O_KEY, "network", 0, NULL, C_NEWF, 0, OT_TEXT, .key = "network",
	 .metavar = "none|allow|bridge|NAME", .help = "network (default none)"},
	{O_KEY, "allow", 0, NULL, C_NEWF, 0, OT_TEXT, .key = "allow", .metavar = "PATTERN",
	 .help = "network allow: let this host through its proxy, as\n"
		 "pypi.org, *.npmjs.org or github.com:22 (repeatable)"},
	{O_KEY, "mount", 0, NULL, C_NEWF, 0, OT_TEXT, .key = "mount", .metavar = "HOST[:CTR[:ro]]",
	 .help = "bind mount (CTR defaults to the workdir)"},
	{O_KEY, "memory", 0, NULL, C_NEWF, 0, OT_TEXT, .key = "memory", .metavar = "SIZE",
	 .help = "memory limit (as docker run --memory)"},
	{O_KEY, "cpus", 0, NULL, C_NEWF, 0, OT_TEXT, .key = "cpus", .metavar = "N",
	 .help = "CPUs (as docker run --cpus)"},
	{O_KEY, "pids-limit", 0, NULL, C_NEWF, 0, OT_TEXT, .key = "pids_limit", .metavar = "N",
	 .help = "processes at most (default 2048; -1: none)"},
	{O_KEY, "user", 0, NULL, C_NEWF, 0, OT_TEXT, .key = "user", .metavar = "USER",
	 .help = "user commands run as"},
	{O_KEY, "runtime", 0, NULL, C_NEWF | CMD(C_DOCTOR), 0, OT_TEXT, .key = "runtime", .metavar = "NAME",
	 .help = "the OCI runtime: runsc (gVisor), crun, runc, or a path"},
	{O_KEY, "setup", 0, NULL, C_NEWF, 0, OT_TEXT, .key = "setup", .metavar = "CMD",
	 .help = "run once after creation; failure removes it"},
	{O_KEY, "name", 0, NULL, C_NEWF, 0, OT_TEXT, .key = "name", .metavar = "NAME",
	 .help = "the new workspace's name"},
	{O_KEY, "copy", 0, NULL, C_NEW, 0, OT_TEXT, .key = "copy", .metavar = "DIR",
	 .help = "copy DIR's tree into the workdir, for diff and apply"},
	{O_KEY, "exclude", 0, NULL, C_NEW, 0, OT_TEXT, .key = "exclude", .metavar = "PATTERN",
	 .help = "with --copy, leave out what matches (repeatable)"},
	{O_KEY, "ttl", 0, NULL, C_NEWF, 0, OT_TEXT, .key = "ttl", .metavar = "DURATION",
	 .help = "stop it this long after it was made: 90s, 15m, 2h, 7d"},
	{O_KEY, "idle", 0, NULL, C_NEWF, 0, OT_TEXT, .key = "idle", .metavar = "DURATION",
	 .help = "stop it after this long without a command (0: never;\n"
		 "default 30m for mcp and exec's new ones, else never)"},
	{O_KEY, "env", 'e', "env", C_NEWF | C_CMDS, CMD(C_EXEC), OT_ENV, .key = "env",
	 .metavar = "K=V", .help = "an environment variable (repeatable)",
	 .desc = "Environment variables for this command; like an export, the session keeps them."},
	{O_KEY, "secret", 0, NULL, C_CMDS | CMD(C_SHELL) | CMD(C_MCP), 0, OT_TEXT, .key = "secret",
	 .metavar = "NAME[=SOURCE]",
	 .help = "a secret for the command's environment, kept out of output\n"
		 "(SOURCE env:VAR or file:PATH; NAME alone: env:NAME; repeatable)"},

	/* Commands in a workspace. */
	{O_SHELL, "command", 'c', "command", C_CMDS, CMD(C_EXEC), OT_TEXT, 1, 0, .metavar = "TEXT",
	 .help = "shell text, run with sh -c", .desc = "Shell text, run with sh -c in the workspace.",
	 .required = true, .at = OPT_AT(exec.shell)},
	{O_KEY, "timeout", 0, "timeout", C_CMDS, CMD(C_EXEC), OT_SECONDS, .key = "timeout",
	 .metavar = "SECONDS", .help = "kill the command in the workspace once it ran this long",
	 .desc = "Seconds from the command's start before it and everything it started are killed (default: the server's)."},
	{O_CWD, "cwd", 0, "cwd", C_CMDS | CMD(C_SHELL), CMD(C_EXEC), OT_TEXT, .metavar = "DIR",
	 .help = "directory to run in (relative: under the workdir)",
	 .desc = "Directory to run in, relative to the workspace directory; like a cd, the "
		 "session keeps it.",
	 .at = OPT_AT(exec.cwd)},
	{O_INTERACTIVE, "interactive", 'i', NULL, C_CMDS, 0, OT_FLAG,
	 .help = "forward stdin to the command", .at = OPT_AT(exec.interactive)},
	{O_TTY, "tty", 't', NULL, CMD(C_EXEC), 0, OT_FLAG,
	 .help = "run it with a terminal (top, vi, a REPL): needs one\n"
		 "on stdin; no timeout", .at = OPT_AT(exec.tty)},
	{O_SESSION, "session", 0, "session", CMD(C_EXEC), CMD(C_EXEC), OT_TEXT, 1, 0,
	 .metavar = "NAME", .help = "start in the directory and with the exported variables\n"
				    "the session's last command left; keep what this one leaves",
	 .desc = "Session to run in: the command starts in the directory and with the exported "
		 "variables the session's previous command left, and leaves its own (default: this "
		 "server's session).",
	 .at = OPT_AT(exec.session)},
	{O_SESSION, "session", 0, NULL, CMD(C_SHELL), 0, OT_TEXT, 1, 0, .metavar = "NAME",
	 .help = "start in the directory and with the exported variables\n"
		 "exec --session NAME left; the shell keeps nothing there",
	 .at = OPT_AT(exec.session)},
	{O_RESET, "reset", 0, "reset", CMD(C_EXEC), CMD(C_EXEC), OT_FLAG,
	 .help = "start the session afresh", .desc = "Start the session afresh (default false).",
	 .at = OPT_AT(exec.reset)},
	{O_BACKGROUND, "background", 0, "background", CMD(C_EXEC), CMD(C_EXEC), OT_FLAG,
	 .help = "start it as a background job; print its number",
	 .desc = "Start the command as a background job and return its number at once (for "
		 "servers, watchers, long builds): read its output with job_output, stop it with "
		 "job_kill. It starts in the session's directory and variables; timeout does "
		 "not apply to it.",
	 .at = OPT_AT(exec.background)},
	{O_KEY, "max-output", 0, NULL, C_CMDS | CMD(C_LOGS), 0, OT_TEXT, .key = "max_output",
	 .metavar = "BYTES", .help = "with --json, bytes kept per stream (default 1 MiB)"},

	{O_ALL, "all", 0, NULL, CMD(C_DESTROY), 0, OT_FLAG, .help = "every workspace", .at = OPT_AT(life.all)},
	{O_ALL, "all", 0, NULL, CMD(C_RESIDENT), 0, OT_FLAG,
	 .help = "with stop: every resident process of yours, of any endpoint", .at = OPT_AT(life.all)},
	{O_OLDER, "older-than", 0, NULL, CMD(C_PRUNE), 0, OT_TEXT, .metavar = "DURATION",
	 .help = "only those older than this: 90s, 15m, 2h, 7d", .at = OPT_AT(life.older_than)},
	{O_STOPPED, "stopped", 0, NULL, CMD(C_PRUNE), 0, OT_FLAG, .help = "only stopped ones", .at = OPT_AT(life.stopped)},
	{O_EXPIRED, "expired", 0, NULL, CMD(C_PRUNE), 0, OT_FLAG,
	 .help = "only expired ones: past their ttl, or stopped by\ntheir ttl or idle time", .at = OPT_AT(life.expired)},
	{O_SPEC, "spec", 0, NULL, CMD(C_POOL), 0, OT_TEXT, .metavar = "SPEC",
	 .help = "drain: only this pool (as pool list shows it)", .at = OPT_AT(pool.spec)},
	{O_SNAPSHOT, "snapshot", 0, NULL, CMD(C_DESTROY), 0, OT_TEXT, .metavar = "NAME",
	 .help = "remove the snapshot NAME, not a workspace", .at = OPT_AT(life.snapshot)},

	/* Snapshots. */
	{O_SNAP_NAME, "name", 0, NULL, CMD(C_SNAPSHOT), 0, OT_TEXT, .metavar = "NAME",
	 .help = "the snapshot's name (default: REF-DATE-TIME-XXXX)", .at = OPT_AT(snap.name)},
	{O_KEY, "snapshot-max", 0, NULL, CMD(C_SNAPSHOT) | CMD(C_FORK), 0, OT_TEXT,
	 .key = "snapshot_max", .metavar = "SIZE",
	 .help = "refuse it when its changed files come to more than\n"
		 "SIZE, a sparse file in full (default 4g; 0: no limit)"},

	/* The file tools. */
	{O_ARG, NULL, 0, "path", CMD(C_READ), CMD(C_READ), OT_TEXT, 1, 0, .metavar = "PATH",
	 .desc = "File to read; relative to the workspace directory.", .required = true},
	{O_OFFSET, "offset", 0, "offset", CMD(C_READ), CMD(C_READ), OT_COUNT, 1, APP_COUNT_MAX, 1,
	 .metavar = "N", .help = "the first line to show",
	 .desc = "First line to show, 1-based (default 1).", .at = OPT_AT(read.offset)},
	{O_LIMIT, "limit", 0, "limit", CMD(C_READ), CMD(C_READ), OT_COUNT, 1, APP_COUNT_MAX, 2000,
	 .metavar = "N", .help = "lines to show at most", .desc = "Most lines to show (default 2000).", .at = OPT_AT(read.limit)},
	{O_RAW, "raw", 0, NULL, CMD(C_READ), 0, OT_FLAG,
	 .help = "write the file's exact bytes, a binary one too", .at = OPT_AT(read.raw)},

	{O_ARG, NULL, 0, "path", CMD(C_WRITE), CMD(C_WRITE), OT_TEXT, 1, 0, .metavar = "PATH",
	 .desc = "File to write; missing directories are created.", .required = true},
	{O_CONTENT, "content", 0, "content", CMD(C_WRITE), CMD(C_WRITE), OT_TEXT, .metavar = "TEXT",
	 .help = "the new content (default: standard input)",
	 .desc = "The whole new content of the file.", .required = true, .at = OPT_AT(write.content)},

	{O_ARG, NULL, 0, "path", CMD(C_EDIT), CMD(C_EDIT), OT_TEXT, 1, 0, .metavar = "PATH",
	 .desc = "File to edit.", .required = true},
	{O_OLD, "old", 0, "old_text", CMD(C_EDIT), CMD(C_EDIT), OT_TEXT, .metavar = "TEXT",
	 .help = "the exact text to replace",
	 .desc = "Exact text to replace, whitespace included; it must occur exactly once unless replace_all.",
	 .required = true, .at = OPT_AT(edit.old)},
	{O_NEW, "new", 0, "new_text", CMD(C_EDIT), CMD(C_EDIT), OT_TEXT, .metavar = "TEXT",
	 .help = "the text to put in its place", .desc = "Text to put in its place.",
	 .required = true, .at = OPT_AT(edit.new)},
	{O_OLD_FILE, "old-file", 0, NULL, CMD(C_EDIT), 0, OT_TEXT, .metavar = "F",
	 .help = "the old text, from a local file", .at = OPT_AT(edit.old)},
	{O_NEW_FILE, "new-file", 0, NULL, CMD(C_EDIT), 0, OT_TEXT, .metavar = "F",
	 .help = "the new text, from a local file", .at = OPT_AT(edit.new)},
	{O_ALL, "all", 0, "replace_all", CMD(C_EDIT), CMD(C_EDIT), OT_FLAG,
	 .help = "replace every occurrence", .desc = "Replace every occurrence (default false).", .at = OPT_AT(edit.all)},
	{O_EXPECT, "expect-sha256", 0, "expect_sha256", CMD(C_EDIT), CMD(C_EDIT), OT_TEXT,
	 .metavar = "HASH", .help = "refuse unless the file still has this SHA-256",
	 .desc = "Refuse the edit unless the file still has this SHA-256 (from read).", .at = OPT_AT(edit.expect_sha)},

	{O_ARG, NULL, 0, "pattern", CMD(C_GLOB), CMD(C_GLOB), OT_TEXT, 1, 0, .metavar = "PATTERN",
	 .desc = "Glob: * and ? within a name, [...], {a,b}, ** for any depth (src/**/*.c).",
	 .required = true},
	{O_PATH, "path", 0, "path", CMD(C_GLOB), CMD(C_GLOB), OT_TEXT, 1, 0, .metavar = "DIR",
	 .help = "the directory to search (default: the workdir)",
	 .desc = "Directory to search (default: the workspace directory).", .at = OPT_AT(glob.path)},
	{O_LIMIT, "limit", 0, "limit", CMD(C_GLOB), CMD(C_GLOB), OT_COUNT, 1, APP_SEARCH_MAX, 1000,
	 .metavar = "N", .help = "paths to list at most",
	 .desc = "Most paths to return, 1 to 10000 (default 1000).", .at = OPT_AT(glob.limit)},

	{O_ARG, NULL, 0, "pattern", CMD(C_GREP), CMD(C_GREP), OT_TEXT, 1, 0, .metavar = "REGEX",
	 .desc = "POSIX extended regular expression (grep -E).", .required = true},
	{O_PATH, "path", 0, "path", CMD(C_GREP), CMD(C_GREP), OT_TEXT, 1, 0, .metavar = "PATH",
	 .help = "the file or directory to search (default: the workdir)",
	 .desc = "File or directory to search (default: the workspace directory).", .at = OPT_AT(grep.path)},
	{O_GLOB, "glob", 0, "glob", CMD(C_GREP), CMD(C_GREP), OT_TEXT, .metavar = "PATTERN",
	 .help = "only the files whose name (or path, with a /) matches",
	 .desc = "Only files whose name matches this glob (*.c).", .at = OPT_AT(grep.glob)},
	{O_OUTPUT, "output", 0, "output_mode", CMD(C_GREP), CMD(C_GREP), OT_CHOICE,
	 .choices = output_modes, .metavar = "files|content|count",
	 .help = "paths (the default), matching lines, or counts",
	 .desc = "files: matching paths (default); content: path:line:text; count: path:N.", .at = OPT_AT(grep.output)},
	{O_ICASE, "ignore-case", 'i', "case_insensitive", CMD(C_GREP), CMD(C_GREP), OT_FLAG,
	 .help = "ignore the case of ASCII letters", .desc = "Ignore case (default false).", .at = OPT_AT(grep.icase)},
	{O_FIXED, "fixed-strings", 'F', NULL, CMD(C_GREP), 0, OT_FLAG,
	 .help = "REGEX is a plain string", .at = OPT_AT(grep.fixed)},
	{O_AFTER, "after-context", 'A', NULL, CMD(C_GREP), 0, OT_COUNT, 0, GREP_CONTEXT_MAX,
	 .metavar = "N", .help = "lines of context after each match", .at = OPT_AT(grep.after)},
	{O_BEFORE, "before-context", 'B', NULL, CMD(C_GREP), 0, OT_COUNT, 0, GREP_CONTEXT_MAX,
	 .metavar = "N", .help = "lines of context before each match", .at = OPT_AT(grep.before)},
	{O_CONTEXT, "context", 'C', "context", CMD(C_GREP), CMD(C_GREP), OT_COUNT, 0,
	 GREP_CONTEXT_MAX, .metavar = "N", .help = "lines of context around each match",
	 .desc = "Lines of context around each match, with content: 0 to 100.", .at = OPT_AT(grep.after)},
	{O_LIMIT, "limit", 0, "limit", CMD(C_GREP), CMD(C_GREP), OT_COUNT, 1, APP_SEARCH_MAX, 1000,
	 .metavar = "N", .help = "output lines at most",
	 .desc = "Most output lines, 1 to 10000 (default 1000).", .at = OPT_AT(grep.limit)},

	{O_KEY, "timeout", 0, NULL, CMD(C_CP), 0, OT_TEXT, .key = "timeout", .metavar = "SECONDS",
	 .help = "give up after this (default 600)"},

	/* The MCP server. */
	{O_KEY, "timeout", 0, NULL, CMD(C_MCP), 0, OT_TEXT, .key = "timeout", .metavar = "SECONDS",
	 .help = "exec's default timeout (default 120)"},
	{O_OUTPUT_LIMIT, "output-limit", 0, NULL, CMD(C_MCP), 0, OT_COUNT, 1000,
	 APP_OUTPUT_LIMIT_MAX, 30000, .metavar = "CHARS",
	 .help = "characters of a result's text kept, head and tail", .at = OPT_AT(mcp.output_limit)},
	{O_RM, "rm", 0, NULL, CMD(C_MCP), 0, OT_FLAG,
	 .help = "remove the workspace when the server ends", .at = OPT_AT(mcp.rm)},

	{O_REVOKE, "revoke", 0, NULL, CMD(C_TRUST), 0, OT_FLAG,
	 .help = "forget FILE: it is no longer trusted", .at = OPT_AT(trust.revoke)},

	/* Background jobs. */
	{O_ARG, NULL, 0, "job", CMD(C_LOGS) | CMD(C_KILL) | CMD(C_WAIT), CMD(C_LOGS) | CMD(C_KILL),
	 OT_TEXT, 1, 0, .metavar = "JOB",
	 .desc = "The job's number, as exec returned it.", .required = true},
	{O_STDERR, "stderr", 0, NULL, CMD(C_LOGS), 0, OT_FLAG,
	 .help = "the job's stderr rather than its stdout", .at = OPT_AT(logs.stderr_only)},
	{O_OFFSET, "offset", 0, "offset", CMD(C_LOGS), CMD(C_LOGS), OT_COUNT, 0, JOB_OFFSET_MAX,
	 .metavar = "N", .help = "the bytes already read: print from there",
	 .desc = "Bytes of stdout already read: the output from there (default 0).",
	 .at = OPT_AT(logs.offset)},
	{O_ERR_OFFSET, NULL, 0, "stderr_offset", 0, CMD(C_LOGS), OT_COUNT, 0, JOB_OFFSET_MAX,
	 .desc = "Bytes of stderr already read (default 0).", .at = OPT_AT(logs.err_offset)},
	{O_FOLLOW, "follow", 'f', NULL, CMD(C_LOGS), 0, OT_FLAG,
	 .help = "print the output as it comes until the job ends", .at = OPT_AT(logs.follow)},
	{O_FOLLOW, "follow", 'f', NULL, CMD(C_HISTORY), 0, OT_FLAG,
	 .help = "print new calls as they are made, until interrupted", .at = OPT_AT(history.follow)},
	{O_FOLLOW, "follow", 'f', NULL, CMD(C_NET), 0, OT_FLAG,
	 .help = "print connections as they end, until interrupted", .at = OPT_AT(history.follow)},
	{O_SINCE, "since", 0, NULL, CMD(C_NET), 0, OT_TEXT, .metavar = "DURATION",
	 .help = "only the connections of the last DURATION: 90s, 15m, 2h", .at = OPT_AT(history.since)},
	{O_SINCE, "since", 0, NULL, CMD(C_HISTORY), 0, OT_TEXT, .metavar = "DURATION",
	 .help = "only the calls of the last DURATION: 90s, 15m, 2h, 7d", .at = OPT_AT(history.since)},
	{O_ADDRESS, "address", 0, NULL, CMD(C_FORWARD), 0, OT_TEXT, 1, 0, .metavar = "ADDR",
	 .help = "listen on ADDR (default 127.0.0.1)",
	 .at = OPT_AT(forward.address)},
	{O_PRUNE, "prune", 0, NULL, CMD(C_HISTORY), 0, OT_FLAG,
	 .help = "remove the history of every workspace that is gone", .at = OPT_AT(history.prune)},
	{O_WAIT, NULL, 0, "wait", 0, CMD(C_LOGS), OT_COUNT, 0, JOB_WAIT_MAX,
	 .desc = "Seconds to wait at most for new output or the job's end (default 0: none).",
	 .at = OPT_AT(logs.wait)},
	{O_SIGNAL, "signal", 's', "signal", CMD(C_KILL), CMD(C_KILL), OT_TEXT, 1, 0,
	 .metavar = "SIG", .help = "send only SIG (TERM, INT, HUP, KILL, ... or a number)",
	 .desc = "Send only this signal (INT, HUP, TERM, KILL, USR1, ...), once (default: TERM, "
		 "then KILL).",
	 .at = OPT_AT(kill.signal)},
	{O_WAIT_TIMEOUT, "timeout", 0, NULL, CMD(C_WAIT), 0, OT_TEXT, .metavar = "SECONDS",
	 .help = "give up after this (exit 124); the job goes on", .at = OPT_AT(wait.timeout)},

	/* Copy workspaces. */
	{O_ARG, NULL, 0, "path", CMD(C_DIFF) | CMD(C_APPLY), CMD(C_DIFF), OT_TEXT, 1, 0, .metavar = "PATH",
	 .desc = "Only this file or directory, relative to the workspace directory (default: all)."},
	{O_STAT, "stat", 0, NULL, CMD(C_DIFF), 0, OT_FLAG,
	 .help = "a line per changed path and its counts, not the diff", .at = OPT_AT(diff.stat)},
	{O_NAME_ONLY, "name-only", 0, NULL, CMD(C_DIFF), 0, OT_FLAG,
	 .help = "the changed paths only", .at = OPT_AT(diff.name_only)},
	{O_CHECK, "check", 0, NULL, CMD(C_APPLY), 0, OT_FLAG,
	 .help = "say what would be done and exit 1 on conflicts; write nothing",
	 .at = OPT_AT(apply.check)},
	{O_FORCE, "force", 0, NULL, CMD(C_APPLY), 0, OT_FLAG,
	 .help = "write over conflicts too (never over a refusal)", .at = OPT_AT(apply.force)},
	{O_EXPECT_ID, "expect", 0, NULL, CMD(C_APPLY), 0, OT_TEXT, .metavar = "ID",
	 .help = "write nothing unless the changes are still exactly\nthose of the diff that printed ID",
	 .at = OPT_AT(apply.expect)},
	{O_KEY, "max-size", 0, NULL, CMD(C_APPLY) | CMD(C_CP), 0, OT_TEXT, .key = "max_size",
	 .metavar = "SIZE",
	 .help = "refuse to write more than SIZE on the host (default\n8g; 0: no limit)"},
	{O_KEY, "max-size", 0, NULL, CMD(C_DIFF), 0, OT_TEXT, .key = "max_size", .metavar = "SIZE",
	 .help = "refuse when the changed files come to more than SIZE\n(default 8g; 0: no limit)"},
};

const struct command *cmd_table(size_t *n)
{
	*n = ARRAY_LEN(commands);
	return commands;
}

const struct command *cmd_find(const char *name)
{
	for (size_t i = 0; i < ARRAY_LEN(commands); i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

const char *cmd_tool_name(const struct command *c)
{
	return c->tool ? c->tool : c->name;
}

const struct command *cmd_find_tool(const char *name)
{
	for (size_t i = 0; i < ARRAY_LEN(commands); i++)
		if (commands[i].mcp_desc && strcmp(cmd_tool_name(&commands[i]), name) == 0)
			return &commands[i];
	return NULL;
}

const struct command *cmd_of(enum cmd_id id)
{
	for (size_t i = 0; i < ARRAY_LEN(commands); i++)
		if (commands[i].id == id)
			return &commands[i];
	abort(); /* every id has its row */
}

int cmd_call(const struct command *c, struct app *a,
	     void (*use)(void *ctx, const struct result_type *t, const void *r), void *ctx,
	     struct err *e)
{
	const struct result_type *t = c->result;
	void *r = xmalloc(t->size);
	struct record_start start;
	record_begin(&start);
	int rc = t->run(c->run, a, r, e);
	if (rc >= 0)
		use(ctx, t, r);
	record_call(a, c, t, r, rc, e, &start);
	if (rc >= 0)
		t->free(r);
	if (c->finish)
		c->finish(r);
	free(r);
	return rc;
}

const struct opt *opt_table(size_t *n)
{
	*n = ARRAY_LEN(opts);
	return opts;
}

bool opt_global(const struct opt *o)
{
	return o->cmds == CMD_ALL;
}

static bool takes(const struct command *c, const struct opt *o)
{
	return opt_global(o) || (c && (o->cmds & CMD(c->id)));
}

/* The same letter can mean different things to different commands (-i:
 * exec's stdin, grep's case): the one the command takes wins. */
const struct opt *opt_find_long(const struct command *c, const char *name, size_t len)
{
	for (size_t i = 0; i < ARRAY_LEN(opts); i++)
		if (opts[i].lng && strlen(opts[i].lng) == len &&
		    strncmp(opts[i].lng, name, len) == 0 && takes(c, &opts[i]))
			return &opts[i];
	return NULL;
}

const struct opt *opt_find_short(const struct command *c, char x)
{
	for (size_t i = 0; i < ARRAY_LEN(opts); i++)
		if (opts[i].shrt == x && takes(c, &opts[i]))
			return &opts[i];
	return NULL;
}

const char *opt_spelling(const struct opt *o, char *buf, size_t len)
{
	if (!o->lng)
		snprintf(buf, len, "%s", o->metavar);
	else if (o->shrt)
		snprintf(buf, len, "-%c", o->shrt);
	else
		snprintf(buf, len, "--%s", o->lng);
	return buf;
}

const char *opt_say(const struct app *a, enum opt_id id)
{
	static char said[ARRAY_LEN(opts)][48];
	const struct command *c = a->cmd ? cmd_find(a->cmd) : NULL;
	for (size_t i = 0; c && i < ARRAY_LEN(opts); i++) {
		const struct opt *o = &opts[i];
		if (o->id != id || !((a->mcp ? o->tools : o->cmds) & CMD(c->id)))
			continue;
		if (a->mcp)
			return o->mcp;
		return opt_spelling(o, said[i], sizeof(said[i]));
	}
	return NULL;
}

int opt_count(const struct opt *o, const char *spelled, const char *val, long *out,
	      struct err *e)
{
	long v;
	if (!parse_long(val, (long)o->min, LONG_MAX, &v))
		return err_set(e, ERR_USAGE, "%s '%s': expected a number from %lld", spelled, val,
			       o->min);
	if (v > o->max)
		return err_set(e, ERR_USAGE, "%s '%s': at most %lld", spelled, val, o->max);
	*out = v;
	return 0;
}

void opt_defaults(struct opts *v, enum cmd_id c)
{
	for (size_t i = 0; i < ARRAY_LEN(opts); i++)
		if (opts[i].type == OT_COUNT && opts[i].dflt && (opts[i].cmds & CMD(c)))
			*(long *)((char *)v + opts[i].at - 1) = (long)opts[i].dflt;
}

/* --old-file, --new-file: the bytes of a local file. */
static int read_local(const char *path, struct text_opt *t, struct err *e)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return err_set(e, ERR_USAGE, "%s: %s", path, strerror(errno));
	char buf[65536];
	size_t n;
	sbuf_reset(&t->text);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		sbuf_add(&t->text, buf, n);
	int bad = ferror(f);
	fclose(f);
	if (bad)
		return err_set(e, ERR_USAGE, "%s: cannot read it", path);
	t->set = true;
	return 0;
}

/* A session's name is a directory's in the workspace. */
static bool session_name_ok(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n > 64 || !isalnum((unsigned char)s[0]))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("._-", s[i]))
			return false;
	return true;
}

/* The options whose value needs more than storing. */
static int store_special(struct app *a, const struct opt *o, void *at, const char *s, long i,
			 struct err *e)
{
	struct text_opt *t = at;
	switch (o->id) {
	case O_CWD:
		if (!*s || has_control(s))
			return err_set(e, ERR_USAGE, "%s: expected a directory, without control characters",
				       opt_say(a, O_CWD));
		a->o.exec.cwd = s;
		return 0;
	case O_OLDER:
		if (!parse_duration(s, &a->o.life.older_than))
			return err_set(e, ERR_USAGE, "--older-than '%s': expected a duration like 90s, 15m, 2h or 7d", s);
		return 0;
	case O_SINCE:
		if (!parse_duration(s, &a->o.history.since) || a->o.history.since > CFG_EXPIRY_MAX)
			return err_set(e, ERR_USAGE, "--since '%s': expected a duration like 90s, 15m, 2h or 7d", s);
		return 0;
	case O_CONTEXT: a->o.grep.after = a->o.grep.before = i; return 0;
	case O_SNAP_NAME:
	case O_SNAPSHOT:
		if (!cfg_valid_container_name(s))
			return err_set(e, ERR_USAGE, "%s '%s': expected a snapshot's name, [a-zA-Z0-9][a-zA-Z0-9_.-]*, at most 128 characters",
				       o->id == O_SNAPSHOT ? "--snapshot" : "--name", s);
		*(const char **)at = s;
		return 0;
	case O_SESSION:
		if (!session_name_ok(s))
			return err_set(e, ERR_USAGE, "%s '%s': expected a name of letters, digits, '.', '_' and '-', "
				       "at most 64, that starts with a letter or a digit",
				       opt_say(a, O_SESSION), s);
		a->o.exec.session = s;
		return 0;
	case O_OLD:
	case O_NEW:
		sbuf_reset(&t->text);
		sbuf_adds(&t->text, s);
		t->set = true;
		return 0;
	case O_OLD_FILE:
	case O_NEW_FILE: return read_local(s, t, e);
	case O_PATH:
		if (!*s)
			return err_set(e, ERR_USAGE, "--path is empty");
		*(const char **)at = s;
		return 0;
	default: return 1;
	}
}

int opt_store(struct app *a, const struct opt *o, const char *s, long i, struct err *e)
{
	switch (o->id) {
	case O_WS: a->ref = s; return 0;
	case O_JSON: a->json = true; return 0;
	case O_ARG: strvec_push(&a->o.args, s); return 0;
	default: break;
	}
	if (!o->at)
		return 0; /* O_KEY, O_CONFIG, ...: the parser's own */
	void *at = (char *)&a->o + o->at - 1;
	int rc = store_special(a, o, at, s, i, e);
	if (rc <= 0)
		return rc;
	if (o->type == OT_FLAG)
		*(bool *)at = true;
	else if (o->type == OT_COUNT)
		*(long *)at = i;
	else
		*(const char **)at = s; /* OT_TEXT, OT_CHOICE */
	return 0;
}

void opts_free(struct opts *o)
{
	strvec_clear(&o->args);
	strvec_clear(&o->extra);
	sbuf_free(&o->edit.old.text);
	sbuf_free(&o->edit.new.text);
}

/* ---- --help ---- */

void opts_usage(FILE *f)
{
	fprintf(f, "usage: sandbox [global options] COMMAND [options]\n");
	for (size_t i = 0; i < ARRAY_LEN(commands); i++)
		fprintf(f, "       sandbox %s\n", commands[i].usage);
}

/* "  -i, --interactive      forward stdin ...", each line of its help
 * from the same column. */
static void help_line(FILE *f, const struct opt *o)
{
	char left[80], flag[8] = "";
	if (o->shrt)
		snprintf(flag, sizeof(flag), "-%c, ", o->shrt);
	snprintf(left, sizeof(left), "%s--%s%s%s", flag, o->lng, o->metavar ? " " : "",
		 o->metavar ? o->metavar : "");
	const char *h = o->help;
	fprintf(f, "  %-22s%s", left, strlen(left) > 22 ? "\n" : " ");
	if (strlen(left) > 22)
		fprintf(f, "%25s", "");
	for (;;) {
		size_t len = strcspn(h, "\n");
		fprintf(f, "%.*s", (int)len, h);
		if (!h[len])
			break;
		fprintf(f, "\n%25s", "");
		h += len + 1;
	}
	if (o->type == OT_COUNT && o->dflt)
		fprintf(f, " (default %lld)", o->dflt);
	fputc('\n', f);
}

void opts_help(FILE *f, const struct command *c)
{
	if (!c) {
		opts_usage(f);
		fprintf(f, "\nAn isolated Docker or Podman container to work in.\n");
	} else {
		fprintf(f, "usage: sandbox %s\n\n%s", c->usage, c->help);
		bool any = false;
		for (size_t i = 0; i < ARRAY_LEN(opts); i++) {
			if (opt_global(&opts[i]) || !(opts[i].cmds & CMD(c->id)) || !opts[i].help)
				continue;
			if (!any)
				fprintf(f, "\nOptions:\n");
			any = true;
			help_line(f, &opts[i]);
		}
	}
	fprintf(f, "\nGlobal options (before or after the command):\n");
	for (size_t i = 0; i < ARRAY_LEN(opts); i++)
		if (opt_global(&opts[i]))
			help_line(f, &opts[i]);
	if (!c)
		fprintf(f, "\nRun 'sandbox help COMMAND' for a command's options; man sandbox for all.\n");
}

/* ---- MCP: the tools' arguments ---- */

static const char *type_name(enum opt_type t)
{
	switch (t) {
	case OT_FLAG: return "boolean";
	case OT_COUNT: return "integer";
	case OT_SECONDS: return "number";
	case OT_ENV: return "object";
	default: return "string";
	}
}

static void schema_prop(struct json *j, const struct opt *o, double timeout)
{
	json_key(j, o->mcp);
	json_obj_open(j);
	json_key(j, "type");
	json_str(j, type_name(o->type));
	json_key(j, "description");
	json_str(j, o->desc);
	if (o->type == OT_COUNT) {
		json_key(j, "minimum");
		json_int(j, o->min);
		json_key(j, "maximum");
		json_int(j, o->max);
	} else if (o->type == OT_SECONDS) {
		json_key(j, "exclusiveMinimum");
		json_int(j, 0);
		json_key(j, "maximum");
		json_int(j, SECONDS_MAX);
		json_key(j, "default");
		json_double(j, timeout);
	} else if (o->type == OT_ENV) {
		json_key(j, "additionalProperties");
		json_obj_open(j);
		json_key(j, "type");
		json_str(j, "string");
		json_obj_close(j);
	} else if (o->type == OT_CHOICE) {
		json_key(j, "enum");
		json_arr_open(j);
		for (const char *const *ch = o->choices; *ch; ch++)
			json_str(j, *ch);
		json_arr_close(j);
	}
	json_obj_close(j);
}

static bool is_arg(const struct opt *o, const struct command *c)
{
	return o->mcp && (o->tools & CMD(c->id));
}

static void schema(struct json *j, const struct command *c, double timeout)
{
	json_obj_open(j);
	json_key(j, "type");
	json_str(j, "object");
	json_key(j, "properties");
	json_obj_open(j);
	for (size_t i = 0; i < ARRAY_LEN(opts); i++)
		if (is_arg(&opts[i], c))
			schema_prop(j, &opts[i], timeout);
	json_obj_close(j);
	json_key(j, "required");
	json_arr_open(j);
	for (size_t i = 0; i < ARRAY_LEN(opts); i++)
		if (is_arg(&opts[i], c) && opts[i].required)
			json_str(j, opts[i].mcp);
	json_arr_close(j);
	json_key(j, "additionalProperties");
	json_bool(j, false);
	json_obj_close(j);
}

void opts_tools_list(struct json *j, double timeout)
{
	json_arr_open(j);
	for (size_t i = 0; i < ARRAY_LEN(commands); i++) {
		if (!commands[i].mcp_desc)
			continue;
		json_obj_open(j);
		json_key(j, "name");
		json_str(j, cmd_tool_name(&commands[i]));
		json_key(j, "description");
		json_str(j, commands[i].mcp_desc);
		json_key(j, "inputSchema");
		schema(j, &commands[i], timeout);
		json_obj_close(j);
	}
	json_arr_close(j);
}

static const struct opt *find_arg(const struct command *c, const char *name, size_t len)
{
	for (size_t i = 0; i < ARRAY_LEN(opts); i++)
		if (is_arg(&opts[i], c) && strlen(opts[i].mcp) == len &&
		    memcmp(opts[i].mcp, name, len) == 0)
			return &opts[i];
	return NULL;
}

static bool in_choices(const char *const *choices, const char *s)
{
	for (; *choices; choices++)
		if (strcmp(*choices, s) == 0)
			return true;
	return false;
}

static int check_env(const struct opt *o, const struct jv *v, struct err *e)
{
	for (size_t k = 0; k < v->obj.count; k++) {
		const struct jv_member *m = &v->obj.members[k];
		if (!jv_str(&m->value))
			return err_set(e, ERR_USAGE, "argument %s: the value of %s must be a string without NUL",
				       o->mcp, m->key);
		if (!cfg_valid_env_name(m->key, m->key_len))
			return err_set(e, ERR_USAGE, "argument %s: '%s' is not a variable name", o->mcp, m->key);
	}
	return 0;
}

/* Checks one argument against its row; a message in e if not. */
static int check_arg(const struct opt *o, const struct jv *v, struct err *e)
{
	long long i;
	double d;
	switch (o->type) {
	case OT_TEXT:
	case OT_CHOICE:
		if (!jv_is(v, JV_STRING))
			break;
		if (!jv_str(v))
			return err_set(e, ERR_USAGE, "argument %s holds a NUL character", o->mcp);
		if (o->min && !*jv_str(v))
			return err_set(e, ERR_USAGE, "argument %s is empty", o->mcp);
		if (o->choices && !in_choices(o->choices, jv_str(v)))
			return err_set(e, ERR_USAGE, "argument %s: '%s' is not one of its values (see the schema)",
				       o->mcp, jv_str(v));
		return 0;
	case OT_COUNT:
		if (!jv_int(v, &i))
			break;
		if (i < o->min)
			return err_set(e, ERR_USAGE, "argument %s must be at least %lld", o->mcp, o->min);
		if (i > o->max)
			return err_set(e, ERR_USAGE, "argument %s must be at most %lld", o->mcp, o->max);
		return 0;
	case OT_SECONDS:
		if (!jv_double(v, &d))
			break;
		if (!(d > 0))
			return err_set(e, ERR_USAGE, "argument %s must be a number of seconds above 0", o->mcp);
		if (d > (double)SECONDS_MAX)
			return err_set(e, ERR_USAGE, "argument %s must be at most %d seconds", o->mcp,
				       SECONDS_MAX);
		return 0;
	case OT_FLAG:
		if (!jv_is(v, JV_BOOL))
			break;
		return 0;
	case OT_ENV:
		if (!jv_is(v, JV_OBJECT))
			break;
		return check_env(o, v, e);
	}
	return err_set(e, ERR_USAGE, "argument %s must be %s %s", o->mcp,
		       o->type == OT_COUNT || o->type == OT_ENV ? "an" : "a", type_name(o->type));
}

int opts_tool_check(const struct command *c, const struct jv *args, struct err *e)
{
	if (!jv_is(args, JV_OBJECT))
		return err_set(e, ERR_USAGE, "arguments must be an object");
	for (size_t i = 0; i < args->obj.count; i++) {
		const struct jv_member *m = &args->obj.members[i];
		const struct opt *o = strlen(m->key) == m->key_len ? find_arg(c, m->key, m->key_len) : NULL;
		if (!o)
			return err_set(e, ERR_USAGE, "tool %s has no argument '%s'", cmd_tool_name(c), m->key);
		if (check_arg(o, &m->value, e) < 0)
			return -1;
	}
	for (size_t i = 0; i < ARRAY_LEN(opts); i++)
		if (is_arg(&opts[i], c) && opts[i].required && !jv_get(args, opts[i].mcp))
			return err_set(e, ERR_USAGE, "tool %s needs the argument %s", cmd_tool_name(c),
				       opts[i].mcp);
	return 0;
}

static int apply_arg(struct app *call, const struct opt *o, const struct jv *v,
		     struct err *e)
{
	long long i = 0;
	bool b = false;
	switch (o->type) {
	case OT_FLAG:
		return jv_bool(v, &b) && b ? opt_store(call, o, NULL, 0, e) : 0;
	case OT_COUNT:
		jv_int(v, &i);
		return opt_store(call, o, NULL, (long)i, e);
	case OT_SECONDS:
		jv_double(v, &call->cfg.timeout);
		return 0;
	case OT_ENV:
		for (size_t k = 0; k < jv_count(v); k++)
			if (cfg_set_env(&call->cfg, v->obj.members[k].key,
					jv_str(&v->obj.members[k].value), e) < 0)
				return -1;
		return 0;
	default:
		return opt_store(call, o, jv_str(v), 0, e);
	}
}

int opts_tool_apply(const struct command *c, struct app *call, const struct jv *args,
		    struct err *e)
{
	opt_defaults(&call->o, c->id);
	/* In the rows' order: positional arguments first, as on the command line. */
	for (size_t i = 0; i < ARRAY_LEN(opts); i++) {
		const struct jv *v = is_arg(&opts[i], c) ? jv_get(args, opts[i].mcp) : NULL;
		if (v && apply_arg(call, &opts[i], v, e) < 0)
			return -1;
	}
	return 0;
}
