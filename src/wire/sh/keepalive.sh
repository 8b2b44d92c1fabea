# keepalive.sh: SCRIPT_KEEPALIVE, the container's entrypoint (scripts.h
# says its arguments).
# With expiry: n is now, l the last sign of use, a set once the idle
# clock runs (at once, or for a pool's workspace once KEEPALIVE_ARMED is
# there: it stays across a stop and a start). Each round looks for
# KEEPALIVE_USED (removed as seen) or a process besides pid 1, itself and
# the resident's channels waiting for a request (KEEPALIVE_SERVERS),
# then sleeps until the next check: a quarter of the idle time (1 to 60
# s), a minute while the clock waits, or until the deadline. A USR1 ends
# the sleep early (its sleep is killed, not left as a process).
trap 'exit 0' TERM INT HUP
x=${1:-0} i=${2:-0}
if [ "$x" = 0 ] && [ "$i" = 0 ]; then
  while :; do sleep 3600 & wait $!; done
fi
#. _safe_path.sh
a=1 g= h=
read -r h </etc/hostname 2>/dev/null
armed() { q=; read -r q <@KEEPALIVE_ARMED@ 2>/dev/null && [ "$q" = "$h" ]; }
[ "${3-}" = 1 ] && ! armed && a=
trap 'g=1' USR1
echo $$ 2>/dev/null >@KEEPALIVE_PID@
n=$(date +%s) l=$n
while :; do
  if [ -z "$a" ] && { [ -n "$g" ] || armed; }; then a=1 l=$n; fi
  g=
  if [ -e @KEEPALIVE_USED@ ]; then rm -f @KEEPALIVE_USED@; l=$n
  else
    w=" 1 $$ "
    while IFS= read -r q; do w="$w$q "; done 2>/dev/null <@KEEPALIVE_SERVERS@
    for p in /proc/[0-9]*; do
      case $w in *" ${p#/proc/} "*) ;; *) l=$n; break ;; esac
    done
  fi
  [ "$x" -gt 0 ] && [ "$n" -ge "$x" ] && exit @KEEPALIVE_TTL_STATUS@
  s=3600
  if [ "$i" -gt 0 ] && [ -n "$a" ]; then
    [ $((n - l)) -ge "$i" ] && exit @KEEPALIVE_IDLE_STATUS@
    s=$((i / 4)); [ "$s" -ge 1 ] || s=1; [ "$s" -le 60 ] || s=60
  elif [ "$i" -gt 0 ]; then s=60
  fi
  [ "$x" -gt 0 ] && [ $((x - n)) -lt "$s" ] && s=$((x - n))
  sleep "$s" & k=$!
  wait $k || { kill $k 2>/dev/null; wait $k; }
  n=$(date +%s)
done
