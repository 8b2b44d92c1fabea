# session.sh: SCRIPT_SESSION, a command of a session (exec --session;
# scripts.h says its arguments).
# Our names start with _sandbox_, and are set after the saved variables
# come back: the command's shell text runs in this shell. The saved
# directory is one of them (_sandbox_c), so that one file, written
# through a temporary name, holds it all; the last cd sets PWD, and
# OLDPWD is put back after it (cd -). The tools the saving needs come by
# `command -p`, whatever PATH, functions or aliases the command left.
# Saved after the command, or at its exit (unless it set an EXIT trap of
# its own, which then runs as it would); a signal saves nothing (bash
# would run the EXIT trap). Bash's readonly variables a command exported
# are not saved: they could not come back. One line, no newline: on a
# channel it goes as it is (proto.h). So every line here ends its
# command with ";" (or goes on with the next), and no line is a comment
# after code.
#oneline
_sandbox_d=$PWD;
if [ "$1" = 1 ]; then \command -p rm -rf "/tmp/.sandbox-sessions/$4"; fi;
if [ -r "/tmp/.sandbox-sessions/$4/env" ]; then . "/tmp/.sandbox-sessions/$4/env"; fi;
_sandbox_s=/tmp/.sandbox-sessions/$4 _sandbox_k=$3 _sandbox_n=$5 _sandbox_w=${_sandbox_c-}
  _sandbox_o=${OLDPWD-} _sandbox_p=${OLDPWD+1};
unset -v _sandbox_c;
if [ "$2" = 1 ] && [ -n "$_sandbox_w" ] && cd "$_sandbox_w" 2>/dev/null; then :;
else cd "$_sandbox_d"; fi;
if [ -n "$_sandbox_p" ]; then OLDPWD=$_sandbox_o; else unset -v OLDPWD; fi;
shift 5;
while [ "$_sandbox_n" -gt 0 ]; do export "$1"; shift; _sandbox_n=$((_sandbox_n - 1)); done;
_sandbox_save() {
  set +e; umask 077; export _sandbox_c="$PWD"; unset -v SANDBOX_TTY;
  [ -z "${BASH_VERSION-}" ] || export -n UID EUID PPID BASHOPTS SHELLOPTS 2>/dev/null;
  { [ -d "$_sandbox_s" ] || \command -p mkdir -p "$_sandbox_s"; } &&
  export -p >"$_sandbox_s/env.$$" &&
  \command -p mv -f "$_sandbox_s/env.$$" "$_sandbox_s/env"; };
trap '[ -n "${_sandbox_z-}" ] || _sandbox_save' EXIT;
trap 'trap - EXIT; exit 129' HUP; trap 'trap - EXIT; exit 130' INT;
trap 'trap - EXIT; exit 143' TERM;
unset -v _sandbox_d _sandbox_n _sandbox_w _sandbox_o _sandbox_p;
if [ "$_sandbox_k" = b ]; then exec "$@"; fi;
if [ "$_sandbox_k" = c ]; then _sandbox_k=$1; shift; eval "$_sandbox_k"; else "$@"; fi;
_sandbox_k=$?; _sandbox_save; _sandbox_z=1; exit "$_sandbox_k"
