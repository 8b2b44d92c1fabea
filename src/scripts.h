/* scripts.h: the shell scripts that run inside the container. Each is a
 * constant: user values reach them only as positional parameters. They
 * need nothing but a POSIX sh and BusyBox-level utilities. */
#ifndef SANDBOX_SCRIPTS_H
#define SANDBOX_SCRIPTS_H

/* The container's entrypoint, under --init: idles, and exits at once on
 * SIGTERM, so `stop` takes no time. */
extern const char SCRIPT_KEEPALIVE[];

/* Runs one command: sh -c SCRIPT_EXEC sh TAG WORKDIR CWD CMD [ARG...].
 * Enters WORKDIR (creating it if missing), then CWD (relative to it).
 * Its $0 must be "sh": SCRIPT_KILL finds it by "sh TAG" when /tmp is
 * read-only. Records its process group in /tmp for SCRIPT_KILL, writes a ready marker
 * on stderr, runs the command, then a done marker carrying the status on
 * stdout and on stderr. Markers are "\036TAG:WORD\036". */
extern const char SCRIPT_EXEC[];

/* Stops a command run by SCRIPT_EXEC: sh -c SCRIPT_KILL sandbox-kill TAG. TERM to
 * its process group, KILL a second later; and a stop file for a wrapper
 * that has not started yet. */
extern const char SCRIPT_KILL[];

#endif
