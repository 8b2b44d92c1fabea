# jobs.sh: SCRIPT_JOBS, every job.
# sh -c SCRIPT_JOBS sh: "OK", then a line for each job, "N START EXIT
# ALIVE DONE CMD", in no order.
#. _safe_path.sh
#. _job_state.sh
echo OK
for d in @JOB_BASE@/*; do
  n=${d##*/}
  case $n in ''|*[!0-9]*) continue ;; esac
  state
  t= c=
  { read -r t <"$d/start"; } 2>/dev/null
  { IFS= read -r c <"$d/cmd"; } 2>/dev/null
  printf '%s %s %s %s %s %s\n' "$n" "${t:--}" "$x" $a $z "$c"
done
