# kill.sh: SCRIPT_KILL, stops a command run by exec.sh (scripts.h says
# its arguments).
# Says "k" (it started), then TERM to the process group PGID (with p
# after it: to the process PGID alone, a channel's lone call, which leads
# no group), KILL when it is still there a second later, then says
# whether it is gone: "gone" or "alive" on stdout. Only
# builtins but sleep, which comes from the safe PATH; whatever the
# workspace does to it, the host bounds this call and treats any other
# answer as "alive". BusyBox's kill takes no `--`: a negative pid goes
# right after the signal. Fractional sleep is not everywhere, hence the
# fallback.
#. _safe_path.sh
g=-$1
[ "${2-}" != p ] || g=$1
echo k
kill -15 "$g" 2>/dev/null || { echo gone; exit 0; }
w() {
  i=0
  while [ $i -lt 10 ] && kill -0 "$g" 2>/dev/null; do
    sleep 0.1 2>/dev/null || sleep 1; i=$((i+1))
  done
}
w
kill -9 "$g" 2>/dev/null && w
if kill -0 "$g" 2>/dev/null; then echo alive; else echo gone; fi
