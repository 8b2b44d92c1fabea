# job_kill.sh: SCRIPT_JOB_KILL, a signal to a job.
# sh -c SCRIPT_JOB_KILL sh ID SIG: SIG (a number) to the job's process
# group, once; with SIG empty, TERM, and KILL when it is still there a
# second later. Only a group that is the job's: its leader has the
# start time it had, or is gone while the job's runner lives (after a
# restart, a pid of the job's means another process; pid 1 is never
# one). Answers "K sent", "K gone" (none of it is left), "K ended" (it
# had ended, and nothing of it was left) or "K alive", then the job's
# state as job_poll.sh says it, once the runner saw it end (a second at
# most).
#. _safe_path.sh
#. _job_dir.sh
#. _job_state.sh
g=$2
case $g in *[!0-9]*) echo 'E args'; exit 0 ;; esac
p= q= i=0
while ! { read -r p q <"$d/pid"; } 2>/dev/null; do
  state
  [ $a = 1 ] && [ $i -lt 10 ] || break
  #. _job_nap.sh
  i=$((i + 1))
done
case $p in ''|0*|1|*[!0-9]*|??????????*) p= ;; esac
u=$q
state
if [ -z "$p" ]; then :
elif [ -e "/proc/$p" ]; then
  { st "$p" && [ "$s" = "$u" ]; } || p=
elif [ $a = 0 ]; then p=
fi
w() {
  i=0
  while [ $i -lt 5 ] && kill -0 -"$p" 2>/dev/null; do
    #. _job_nap.sh
    i=$((i + 1))
  done
}
if [ -z "$p" ] || ! kill -0 -"$p" 2>/dev/null; then
  k=gone; state; [ "$x" = - ] || k=ended
elif [ -n "$g" ]; then
  if kill -"$g" -"$p" 2>/dev/null; then k=sent; else k=gone; fi
else
  kill -15 -"$p" 2>/dev/null; w
  kill -9 -"$p" 2>/dev/null && w
  if kill -0 -"$p" 2>/dev/null; then k=alive; else k=gone; fi
fi
i=0
while state; [ "$x" = - ] && [ $a = 1 ] && [ $k = gone ] && [ $i -lt 5 ]; do
  #. _job_nap.sh
  i=$((i + 1))
done
echo "K $k"
echo "J $x $a $z"
