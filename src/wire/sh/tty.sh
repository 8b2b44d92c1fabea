# tty.sh: SCRIPT_TTY, a command with our terminal (exec -t, shell;
# scripts.h says its arguments).
# No variables of its own but SANDBOX_TTY: one would take the place of
# the command's.
if [ -n "$1" ] && ! cd "$1" 2>/dev/null; then
  printf 'sandbox: cannot enter the workdir %s\n' "$1" >&2; exit 1
fi
if [ -n "$2" ] && ! cd "$2" 2>/dev/null; then
  printf 'sandbox: %s: no such directory in the workspace\n' "$2" >&2; exit 1
fi
SANDBOX_TTY=$3
export SANDBOX_TTY
shift 3
exec "$@"
