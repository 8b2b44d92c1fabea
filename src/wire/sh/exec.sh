# exec.sh: SCRIPT_EXEC, the wrapper of every command (scripts.h says its
# arguments and answers; proto.h the host's side).
# The call's TAG comes as the first line of stdin, never as an argument:
# another process of the workspace can read any command line
# (/proc/PID/cmdline), and with the tag it could forge this call's
# markers. With INPUT 1 the rest of stdin is the command's; else it gets
# /dev/null. t is unset first: an exported t would carry the tag into
# the command's environment. A variable of the caller's (-e, [env], the
# image's) may bear a name the script uses: when one does, `export -p`
# keeps them all first (but PWD, which the cd sets, and bash's
# read-only ones), and eval puts them back in the command's subshell.
# With MODE 1, CWD and every argument come encoded (a byte as \0ooo, see
# exec.c) and are decoded here: the engines carry arguments as JSON, which
# cannot hold bytes that are not UTF-8. The "x" keeps a trailing newline
# from being eaten by the command substitution. Our own work runs with
# LC_ALL=C (bash in a UTF-8 locale mangles ${a%x} of a value that is
# not UTF-8); the command gets the LC_ALL it came with, as with PATH.
# MODE 2 and 3 are for a channel's calls; with 3 the
# command is one of our constant scripts with its arguments, run by eval
# in the subshell (under the safe PATH) rather than by a new sh. Else the
# command gets the PATH it came with.
# The command runs in a subshell, so that a special builtin (`exit 3`,
# `cd`) acts there and the wrapper always reaches its done marker.
# `docker exec` (or the channel's setsid) makes the wrapper a process
# group leader; its children stay in that group unless they call
# setsid: "pid" says which group.
# "oom" says that the kernel killed a process of the container for lack
# of memory while the command ran (the cgroup's oom_kill count, v2 or
# v1, went up).
[ -z "${t+1}${w+1}${d+1}${x+1}${i+1}${o+1}${u+1}${l+1}${v+1}${e+1}${m+1}${K+1}${n+1}${a+1}${f+1}${b+1}${s+1}${c+1}${E+1}" ] ||
  E=$(unset -v PWD; [ -z "${BASH_VERSION-}" ] ||
    export -n UID EUID PPID BASHOPTS SHELLOPTS 2>/dev/null; export -p)
unset t
[ -e @KEEPALIVE_PID@ ] && true 2>/dev/null <>@KEEPALIVE_USED@
IFS= read -r t || exit 125
w=$1 d=$2 x=$3 i=$4 o=${PATH-} u=${PATH+1} l=${LC_ALL-} v=${LC_ALL+1}
LC_ALL=C
shift 4
#. _safe_path.sh
[ "$i" = 1 ] || exec </dev/null
printf '\036%s:pid:%d\036' "$t" $$ >&2
if [ "$x" = 1 ]; then
  d=$(printf '%bx' "$d"); d=${d%x}
  n=$#
  while [ "$n" -gt 0 ]; do
    a=$(printf '%bx' "$1"); shift; set -- "$@" "${a%x}"; n=$((n - 1))
  done
fi
e=
if [ -n "$w" ] && ! cd "$w" 2>/dev/null &&
   ! { mkdir -p "$w" && cd "$w"; } 2>/dev/null; then e=1
elif [ -n "$d" ] && ! cd "$d" 2>/dev/null; then e=1
fi
if [ -n "$e" ]; then printf '\036%s:nocwd\036' "$t" >&2; exit 1; fi
k() {
  K=
  for f in /sys/fs/cgroup/memory.events /sys/fs/cgroup/memory/memory.oom_control; do
    [ -r "$f" ] || continue
    while read -r a b; do [ "$a" = oom_kill ] && K=$b; done <"$f"
  done
}
k; m=$K
printf '\036%s:ready\036' "$t" >&2
if [ "$x" = 3 ]; then (c=$1; shift; unset t w d x i o u l v e m K n a f b s; eval "$c")
else (if [ -n "$u" ]; then PATH=$o; else unset PATH; fi
  if [ -n "$v" ]; then LC_ALL=$l; else unset LC_ALL; fi
  unset t w d x i o u l v e m K n a f b s c; eval "${E-}"; "$@")
fi
s=$?
k; [ "$K" = "$m" ] || printf '\036%s:oom\036' "$t" >&2
printf '\036%s:done:%d\036' "$t" "$s"
printf '\036%s:done:%d\036' "$t" "$s" >&2
exit "$s"
