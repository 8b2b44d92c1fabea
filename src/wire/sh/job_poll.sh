# job_poll.sh: SCRIPT_JOB_POLL, a job's state and output.
# sh -c SCRIPT_JOB_POLL sh ID WAIT UNTIL OFF_O MAX_O OFF_E MAX_E: waits
# up to WAIT seconds (whole) for the job to end (UNTIL "end"), or for
# that or output past OFF_O or OFF_E (UNTIL "out", the streams whose MAX
# is not 0) with its output all kept; then "J EXIT ALIVE DONE" (the
# state, taken before the output so that no output of an ended job is
# missed), and for each stream asked for, "S START LEN MORE END" and LEN
# bytes: from the chunk that holds OFF (or the first after it, when
# OFF's is gone: START says where the bytes begin), from OFF, and from
# the chunk right after it, at most MAX bytes; END is the stream's end
# as seen then (never short of the bytes sent: the chunks grow between
# one stat and the next), MORE 1 when more follows the bytes. A chunk is
# held open while it is read: the capper may remove it meanwhile. Only a
# regular file is read (one that the workspace made a FIFO would never
# end; swapped in between the check and the open, the call's deadline
# ends it).
#. _safe_path.sh
#. _job_dir.sh
#. _job_state.sh
w=$2 u=$3 oo=$4 mo=$5 oe=$6 me=$7
case $w$oo$mo$oe$me in *[!0-9]*) echo 'E args'; exit 0 ;; esac
# find STREAM OFF: c the start of the chunk that holds OFF, or of
# the first after it ("": none), n its size when known; en the end of
# the stream (the last chunk's start and size). Its names, and the
# other functions', are not state's: the J line comes after them.
find() {
  b= c= n= lx= en=0
  for f in "$d/$1".*; do
    t=${f##*.}
    case $t in ''|*[!0-9]*|????????????????*) continue ;; esac
    if [ $t -le $2 ]; then
      if [ -z "$b" ] || [ $t -gt $b ]; then b=$t; fi
    elif [ -z "$c" ] || [ $t -lt $c ]; then c=$t
    fi
    if [ -z "$lx" ] || [ $t -gt $lx ]; then lx=$t; fi
  done
  [ -n "$lx" ] || return 0
  en=$(stat -c %s "$d/$1.$lx" 2>/dev/null) || en=0
  case $en in ''|*[!0-9]*) en=0 ;; esac
  en=$((lx + en))
  [ -n "$b" ] || return 0
  n=$(stat -c %s "$d/$1.$b" 2>/dev/null) || n=0
  case $n in ''|*[!0-9]*) n=0 ;; esac
  if [ $((b + n)) -gt $2 ]; then c=$b; else n=; fi
}
grown() {
  find "$1" "$2"
  [ -n "$c" ]
}
# size F: n its size, 0 when it cannot be had
size() {
  n=$(stat -c %s "$1" 2>/dev/null) || n=0
  case $n in ''|*[!0-9]*) n=0 ;; esac
}
# frame STREAM OFF MAX: from the chunk c (held open as fd 3) and the
# one right after it, if it is there (fd 4)
frame() {
  o=$2
  [ $c -le $o ] || o=$c
  l=$((c + n - o)) v=0
  [ $l -ge 0 ] || l=0
  [ $l -le $3 ] || l=$3
  nx=$((c + n))
  if [ $l -lt $3 ] && [ $((o + l)) = $nx ] && [ -f "$d/$1.$nx" ]; then
    {
      size "$d/$1.$nx"
      [ $n -le $(($3 - l)) ] || n=$(($3 - l))
      [ $((o + l + n)) -le $en ] || en=$((o + l + n))
      m=0; [ $((o + l + n)) -ge $en ] || m=1
      echo "S $o $((l + n)) $m $en"
      [ $l = 0 ] || tail -c +$((o - c + 1)) <&3 | head -c $l
      [ $n = 0 ] || head -c $n <&4
      v=1
    } 4<"$d/$1.$nx"
  fi
  [ $v = 0 ] || return 0
  [ $((o + l)) -le $en ] || en=$((o + l))
  m=0; [ $((o + l)) -ge $en ] || m=1
  echo "S $o $l $m $en"
  [ $l = 0 ] || tail -c +$((o - c + 1)) <&3 | head -c $l
}
# emit STREAM OFF MAX; a chunk that went between find and its open
# (the capper dropped it) is looked for again
emit() {
  i=0 r=0
  while [ $r = 0 ] && [ $i -lt 3 ]; do
    find "$1" "$2"
    [ -n "$c" ] || break
    [ -f "$d/$1.$c" ] || { i=$((i + 1)); continue; }
    {
      [ -n "$n" ] || size "$d/$1.$c"
      frame "$1" "$2" "$3"
      r=1
    } 3<"$d/$1.$c" 2>/dev/null
    i=$((i + 1))
  done
  [ $r = 1 ] && return 0
  m=0; [ $2 -ge $en ] || m=1
  echo "S $2 0 $m $en"
}
i=0
while :; do
  state
  [ $a = 1 ] || break
  if [ "$x" != - ]; then [ "$u" = out ] && [ $z = 0 ] || break; fi
  if [ "$u" = out ]; then
    [ $mo = 0 ] || ! grown o $oo || break
    [ $me = 0 ] || ! grown e $oe || break
  fi
  [ $i -lt $((w * 5)) ] || break
  #. _job_nap.sh
  i=$((i + 1))
done
echo "J $x $a $z"
[ $mo = 0 ] || emit o $oo $mo
[ $me = 0 ] || emit e $oe $me
