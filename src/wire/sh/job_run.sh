# job_run.sh: SCRIPT_JOB_RUN, a job's runner.
# sh -c SCRIPT_JOB_RUN sandbox-job DIR WRAPPER PATH HASPATH
# CMD..., in a session of its own. Two cappers copy the
# command's stdout and stderr (FIFOs) into chunks: dd reads at most 16
# times 64 KiB, appending each read as it comes (the log is live, and
# nothing is read ahead, as BusyBox's head would), again and again, until
# the chunk holds a MiB; the next is named by the offset it starts at.
# The first chunk and those that hold the last MiB are kept: a chunk
# goes once the next one starts at least a MiB before the end. The
# command runs in the foreground under setsid, through WRAPPER: its
# process group is its own, the cappers are not in it (kill stops the
# command, and its output is still all kept), and its signals are as the
# caller's were.
d=$1 w=$2 P=$3 Q=$4
shift 4
#. _safe_path.sh
#. _job_st.sh
st $$ || s=0
echo "$$ $s" >"$d/runner"
cap() {
  c=$1 t=0 s0=0 k=
  while :; do
    f=$d/$c.$s0
    dd bs=65536 count=16 2>/dev/null >>"$f" && n=$(stat -c %s "$f") ||
      exec cat >/dev/null
    case $n in ''|*[!0-9]*) n=0 ;; esac
    if [ $((s0 + n)) -le $t ]; then
      [ "$n" != 0 ] || rm -f "$f"
      return 0
    fi
    t=$((s0 + n)) g=
    if [ $n -ge 1048576 ]; then
      [ $s0 = 0 ] || k="$k $s0"
      s0=$t
    fi
    while :; do
      set -- $k $s0
      [ $# -ge 2 ] && [ "$2" -le $((t - 1048576)) ] || break
      g="$g $d/$c.$1"
      set -- $k; shift; k=$*
    done
    [ -z "$g" ] || rm -f $g
  done
}
cap o <"$d/o.p" &
j=$!
cap e <"$d/e.p" &
h=$!
setsid sh -c "$w" sandbox-job "$d" "$P" "$Q" "$@" >"$d/o.p" 2>"$d/e.p"
echo $? >"$d/exit"
wait $j $h
: >"$d/done"
