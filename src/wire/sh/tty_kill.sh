# tty_kill.sh: SCRIPT_TTY_KILL, the end of the commands of a terminal
# whose sandbox was stopped (scripts.h says its arguments).
# A process's environment as it was when it started (/proc/PID/environ):
# a process that dropped the variable, or the workspace itself, can hide
# from it; it is a terminal's clean-up, not a fence.
#. _safe_path.sh
t=SANDBOX_TTY=$1
case $1 in ''|*[!0-9a-f]*) exit 2 ;; esac
f() {
  n=0
  for e in /proc/[0-9]*/environ; do
    p=${e#/proc/}; p=${p%/environ}
    if tr '\000' '\n' <"$e" 2>/dev/null | grep -qxF "$t"; then
      kill -$1 "$p" 2>/dev/null && n=1
    fi
  done
}
f TERM
[ $n = 0 ] || { sleep 1; f KILL; }
exit 0
