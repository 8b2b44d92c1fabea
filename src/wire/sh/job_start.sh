# job_start.sh: SCRIPT_JOB_START, a new background job.
# sh -c SCRIPT_JOB_START sh RUNNER WRAPPER NOW SHOWN CMD [ARG...], run
# as a command (PATH, cwd and environment the caller's): makes the job's
# directory under the next free number and starts RUNNER there, and
# answers "J N" once the runner said who it is (so that a job is never
# "lost" for want of it), or "E WHY". The caller's exported variables
# (`export -p`, bash's read-only ones left out) are kept in the job's
# file env, to be put back before the command starts: the scripts' own
# variables must not change the command's environment. (A file, not an
# argument: an argument is at most 128 KiB, and anyone may read it.)
# `setsid setsid` starts it without
# an asynchronous list, which would have it ignore SIGINT and SIGQUIT
# for good (a shell cannot trap them then): the first setsid leads a
# new session, so the second one forks, and its parent returns.
[ -z "${BASH_VERSION-}" ] || export -n UID EUID PPID BASHOPTS SHELLOPTS 2>/dev/null
_sandbox_e=$(export -p)
P=${PATH-} Q=${PATH+1}
#. _safe_path.sh
b=@JOB_BASE@
no() { echo "E $1"; exit 0; }
for t in setsid mkfifo dd stat; do
  command -v $t >/dev/null 2>&1 || no "no$t"
done
[ -d "$b" ] || mkdir -p -m 700 "$b" 2>/dev/null || [ -d "$b" ] || no mkdir
n=
{ read -r n <"$b/next"; } 2>/dev/null
case $n in ''|0*|*[!0-9]*|?????????*) n=1 ;; esac
i=0
while [ -e "$b/$n" ] || ! mkdir -m 700 "$b/$n" 2>/dev/null; do
  i=$((i + 1)) n=$((n + 1))
  [ $i -lt 100000 ] && [ $n -lt 999999999 ] || no mkdir
done
d=$b/$n
echo $((n + 1)) >"$b/next" 2>/dev/null
r=$1 w=$2
printf '%s\n' "$3" >"$d/start" && printf '%s\n' "$4" >"$d/cmd" &&
  printf '%s\n' "$_sandbox_e" >"$d/env" &&
  mkfifo "$d/o.p" "$d/e.p" 2>/dev/null || { rm -rf "$d"; no mkdir; }
shift 4
setsid setsid sh -c "$r" sandbox-job "$d" "$w" "$P" "$Q" "$@" </dev/null >/dev/null 2>&1
i=0
while ! { read -r p q <"$d/runner"; } 2>/dev/null || [ -z "$q" ]; do
  i=$((i + 1))
  [ $i -le 100 ] || no norunner
  sleep 0.05 2>/dev/null || sleep 1
done
echo "J $n"
