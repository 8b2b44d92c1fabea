/* scripts.h: the shell scripts that run inside the container. Each is a
 * constant: user values reach them only as positional parameters. They
 * need nothing but a POSIX sh and BusyBox-level utilities.
 *
 * SCRIPT_NAME is the file src/wire/sh/name.sh, made a string at build time
 * by scripts/embed-sh (build/gen/scripts.c), which also fills in the
 * #defines here that a script names as @NAME@: one definition for the C
 * code and the scripts. Each file's comments say how it works; here is
 * how it is called and what it answers. */
#ifndef SANDBOX_SCRIPTS_H
#define SANDBOX_SCRIPTS_H

/* The container's entrypoint, under --init: idles, and exits at once on
 * SIGTERM, so `stop` takes no time. With arguments keepalive EXPIRES IDLE
 * POOLED it also ends the workspace: with status 3 at EXPIRES (seconds
 * since the epoch; 0: never), with 4 once IDLE seconds (0: never) went
 * by without a command beginning (SCRIPT_EXEC leaves KEEPALIVE_USED) and
 * without any process but its own. POOLED 1: the idle clock waits for
 * KEEPALIVE_ARMED and SIGUSR1 (SCRIPT_ARM), from whoever takes it from
 * its pool. Its pid is in KEEPALIVE_PID. */
/* sandbox-relay (relay_bin.h) in the workspace: where it goes, whether
 * this build of it is there ("K ARCH" or "N ARCH"; argument: its ID),
 * and putting it there (arguments: ID SIZE; its bytes on stdin; "K" or
 * "E put"). */
#define RELAY_DIR "/tmp"
extern const char SCRIPT_RELAY_HAS[];
extern const char SCRIPT_RELAY_PUT[];
/* doctor's try of a runtime (sh -c in a throwaway container of the
 * image): prints the kernel (uname -r) and, when the image's ls fails on
 * that runtime, a second line "ls /: ERROR". Status 1 if uname fails. */
extern const char SCRIPT_RUNTIME_PROBE[];
extern const char SCRIPT_KEEPALIVE[];
#define KEEPALIVE_USED "/tmp/.sandbox-used"
#define KEEPALIVE_PID "/tmp/.sandbox-keepalive"
#define KEEPALIVE_ARMED "/tmp/.sandbox-armed"
/* The pids of the resident's channels' servers (SCRIPT_SERVE), one a line. */
#define KEEPALIVE_SERVERS "/tmp/.sandbox-servers"
#define KEEPALIVE_TTL_STATUS 3
#define KEEPALIVE_IDLE_STATUS 4
/* Starts the idle clock of a workspace taken from a pool, for good. */
extern const char SCRIPT_ARM[];
/* Exits 0 once the keep-alive wrote its pid and /tmp is writable (within
 * 10 s): the idle time can work in the workspace. */
extern const char SCRIPT_ARMABLE[];

/* Runs one command: /bin/sh -c SCRIPT_EXEC sh WORKDIR CWD MODE INPUT CMD
 * [ARG...], with the call's TAG as the first line of stdin (INPUT 1: the
 * rest is the command's stdin). MODE "0": as it is; "1": CWD and the
 * command line are encoded (exec.c) and decoded first; "2": on a
 * channel; "3": as 2, and CMD is the text of one of our scripts, ARGs its
 * arguments. Says its process group ("pid:PGID", modes 0 and 1) and
 * then, once it entered WORKDIR (created if missing) and CWD (relative
 * to it), "ready" on stderr (or "nocwd" and exit 1); runs the command,
 * then a done marker carrying the status on stdout and on stderr, and
 * exits with that status. Markers are "\036TAG:WORD\036". The host's
 * side of all this (modes, words, the request) is proto.h. */
extern const char SCRIPT_EXEC[];

/* A command of a session (exec --session): sh -c SCRIPT_SESSION
 * sh RESET CWD KIND NAME NENV K=V... then the shell text
 * (KIND c) or the command line (KIND a). The session's exported
 * variables and directory, kept in /tmp/.sandbox-sessions/NAME, are
 * restored (the directory when CWD is 1; 0: --cwd was given), then
 * the call's own K=V exported over them; shell text runs in this shell
 * (eval), so that its cd and export count. At its exit, the directory
 * and `export -p` are saved, in one file through a temporary name. KIND
 * b, a background job's command line, starts from the session and
 * saves nothing: it replaces this shell.
 * RESET 1 starts from nothing. A command killed (timeout, cancel) saves
 * nothing. */
extern const char SCRIPT_SESSION[];

/* A command with our terminal (exec -t, shell): /bin/sh -c SCRIPT_TTY
 * sh WORKDIR CWD TAG CMD [ARG...] enters WORKDIR, then CWD (relative to
 * it), and becomes CMD with SANDBOX_TTY=TAG exported, which every
 * process it starts inherits; it says why on stderr and exits 1 when it
 * cannot. No markers: the output goes to the terminal, and nobody reads
 * it but the person there; the engine client's status is the command's.
 * A session does not keep SANDBOX_TTY (SCRIPT_SESSION). */
extern const char SCRIPT_TTY[];

/* sh -c SCRIPT_TTY_KILL sh TAG: TERM to every process of the workspace
 * that started with SANDBOX_TTY=TAG, KILL a second later to those still
 * there; for when sandbox is stopped while the engine client runs (the
 * engines leave the command running when their client goes). */
extern const char SCRIPT_TTY_KILL[];

/* The shell of `sandbox shell`: /bin/sh -c SCRIPT_SHELL sh becomes
 * /bin/bash when the image has it, else /bin/sh. */
extern const char SCRIPT_SHELL[];

/* Stops a command run by SCRIPT_EXEC: /bin/sh -c SCRIPT_KILL sandbox-kill
 * PGID [p]. TERM to its process group (with p: to that process alone),
 * KILL a second later; answers "gone" or "alive" on stdout. */
extern const char SCRIPT_KILL[];

/* The persistent channel (chan.h): sh -c SCRIPT_SERVE sandbox-chan TAG
 * S0..S4, where S0..S4 are scripts a request names as "@N". Says
 * "\036TAG:ok\036" on stdout, or "nosetsid" when the image has no setsid
 * (every call needs a process group of its own), then serves requests
 * from stdin, one after the other:
 *   TAG \n  STDIN (0 or 1) \n  NARGS \n  then NARGS lines, each "=VALUE",
 *   "\\ENCODED" (printf %b: a value holding a newline, or ending in
 *   a byte over 0x7f, which bash's read may join to the newline) or "@N"
 * and with STDIN 1, frames (feed.h) that become the call's stdin. Each
 * call runs under setsid, its TAG as the first line of its stdin (as
 * SCRIPT_EXEC wants it), between "begin" and "end:STATUS" markers on
 * both streams, with "pid:PGID" on stderr once it started; output outside
 * them belongs to no call. With STDIN r, a lone read: NARGS 3, the
 * values WORKDIR CWD PATH; SCRIPT_READ's answer with "S -" for the size,
 * by the server and one cat, with "proc:PID" instead of "pid" (no group:
 * kill the process alone) and the server's own "ready" and "done". */
extern const char SCRIPT_SERVE[];


/* The file tools' scripts. Each answers on stdout with a first line,
 * "E WHY" for a refusal (notfound, isdir, notfile, denied, ...), or its
 * result header, then data. Paths reach them as arguments, never as text.
 * A path starting with '-' gets a "./" in front before it comes here. */

/* sh -c SCRIPT_READ sh PATH: "S SIZE" then the file's bytes. */
extern const char SCRIPT_READ[];

/* sh -c SCRIPT_WRITE sh PATH SUFFIX SHA256 SIZE: reads the framed content
 * (feed.h), or with SIZE exactly SIZE plain bytes, from stdin into PATH's
 * directory as .sandbox-write-SUFFIX,
 * then renames it over PATH, keeping an existing file's mode and owner.
 * With SHA256, refuses ("E changed") when PATH's content no longer has
 * that hash. "OK CREATED" (1 or 0) at the end. */
extern const char SCRIPT_WRITE[];

/* sh -c SCRIPT_LIST sh DIR END: "OK", then "MTIME .//NAME\n" for every
 * regular file under DIR whose name ends with END (.git not descended),
 * from stat, then "//" (listing.h). */
extern const char SCRIPT_LIST[];

/* sh -c SCRIPT_TAR sh PATH: "OK D" and a tar stream of every regular
 * file under the directory PATH (.git not descended, links not
 * followed), or "OK F" and a tar stream of the one file PATH (a link to a
 * file followed, as read does). */
extern const char SCRIPT_TAR[];
/* tar.sh's "big": a file over a MiB (find -size) goes whole where grep
 * -z would hold it in memory to look into it. */
#define BIG_C "+1048576c"

/* Background jobs (exec --background; jobs, logs, kill, wait): each
 * script's file (src/wire/sh/job_*.sh, jobs.sh) says its arguments and
 * answer.
 * A job lives in JOB_BASE/N (0700): start (the host's clock
 * when it began), cmd (one line, as the host showed it), runner ("PID
 * STARTTIME" of the runner), pid (the same of the command, whose process
 * group it leads), exit (its status, once it ended), done (its output
 * all kept), and its output: chunks o.START and e.START, files of at
 * most 1 MiB named by the offset of their first byte in the stream.
 * STARTTIME (field 22 of /proc/PID/stat) tells a process from a later one
 * with its pid: after a restart, a pid means nothing. */
#define JOB_BASE "/tmp/.sandbox-jobs"
extern const char SCRIPT_JOB_START[];
extern const char SCRIPT_JOB_RUN[];
extern const char SCRIPT_JOB_CMD[];
extern const char SCRIPT_JOB_POLL[];
extern const char SCRIPT_JOBS[];
extern const char SCRIPT_JOB_KILL[];

/* cp, out of the workspace: sh -c SCRIPT_CP_OUT sh PATH MODE. MODE p:
 * PATH itself, as "./BASENAME" from its directory ("OK F" a file, "OK L"
 * a symlink, not followed, "OK D" a directory); MODE c: the contents
 * of the directory PATH, as "." ("OK D"). Then the tar stream, and on
 * stderr "tar:STATUS", tar's exit status. */
extern const char SCRIPT_CP_OUT[];

/* cp, into the workspace: sh -c SCRIPT_CP_IN sh DEST KIND BASE SUFFIX,
 * the stream on stdin: its top "x" (a file or link, KIND f; a directory,
 * KIND d; a directory whose contents go, KIND c), then an empty file
 * "end", which tells a whole stream from one cut short; before it, maybe
 * "times": "SECONDS NAME\0" records of directories whose mtime to set
 * again (BusyBox tar makes some links last, in directories it has set). It is extracted
 * into DEST's directory as .sandbox-cp-SUFFIX, then renamed into place
 * (DEST/BASE when DEST is a directory, or DEST itself; KIND c: DEST),
 * or merged into an existing directory there, where no link may stand
 * for one of its directories; KIND s is c into a new workspace, whose
 * empty DEST the tree replaces in one rename. "OK", or "E WHY [NAME]". */
extern const char SCRIPT_CP_IN[];

/* diff and apply (copy.h): sh -c SCRIPT_MANIFEST sh DIR [NAME...]:
 * "OK", then every path under DIR (but the names NAME, which find
 * prunes) NUL-ended, an empty one, "MODE SIZE ./PATH" lines (stat %f
 * %s %n), a line "--", and "SHA256  ./PATH" lines for regular files. */
extern const char SCRIPT_MANIFEST[];
/* sh -c SCRIPT_PACK sh DIR: "OK", then a tar stream of the paths that
 * stdin names ("./PATH", NUL-ended), each without what is in it. */
extern const char SCRIPT_PACK[];

#endif
