# serve.sh: SCRIPT_SERVE, the persistent channel's server (chan.h;
# scripts.h says its arguments and requests, proto.h the host's side).
# The channel's frames (feed.h) are copied into the call's stdin by the
# server itself, one dd per frame: a frame is read whole before it is
# written, so when the call stops reading early the rest is still
# consumed, and the next request starts where it should. The call runs
# in the foreground, the last of a pipeline: as an asynchronous list it
# would ignore SIGINT and SIGQUIT for good. setsid makes it a process
# group, which the wrapper says (pid): the host kills by it. The
# requests' stdin is kept as fd 3 for frames, which may still be
# draining when the call stopped reading: the pipeline waits for both.
# Each call gets the environment the server came with (E), its own
# variables put back, and PATH and LC_ALL as they came. The
# requests are decoded with LC_ALL=C (bash, in a UTF-8 locale, reads a
# line ending in a cut multibyte sequence, or expands ${a#=} of one,
# wrongly).
# The channel's stderr is fd 4 from the greeting on, and the server's own
# is /dev/null: a shell says "Terminated" there when a call is killed,
# which is no output of the call's.
# The resident's server (named sandbox-kept) writes its pid into
# KEEPALIVE_SERVERS: waiting there for a request is no use of the
# workspace, and keepalive.sh does not count it.
# With no input the tag comes in a here-document: the shells write a
# small one into the pipe themselves, where an echo stage is one process
# more.
# A lone call (STDIN r; its values WORKDIR CWD PATH) is a read the server
# runs itself, the wrapper's and read.sh's work done by builtins in a
# subshell that then becomes cat: a process started in a container costs
# milliseconds, and the usual way starts five (the pipeline's two, setsid,
# sh, stat). So it says no size ("S -": the host counts the bytes), it has
# no process group (cat starts none; "proc" says the pid, which the host
# kills alone: it runs in the background, for $!) and no setsid, and the
# server says its done markers. A
# cat of the workspace's making that starts processes leaves them
# running, as a command's setsid would: the host still bounds the call.
# t is unset first: one exported by the image would carry the tag into
# the environment of every call, where the workspace could read it.
# The slots S0, S1, ... (a request's "@N") are as many as PROTO_NSLOTS
# says (proto.h): embed-sh writes their lines.
E=$(unset -v PWD; [ -z "${BASH_VERSION-}" ] ||
  export -n UID EUID PPID BASHOPTS SHELLOPTS 2>/dev/null; export -p)
#. _safe_path.sh
unset t
T=$1 @PROTO_SLOT_VARS@ z=
LC_ALL=C
# run: a call's command, with the image's environment, in place of the
# subshell it is called in: always ( run ... ), since a shell may run a
# pipeline's last stage in itself (ksh; bash with lastpipe), and the exec
# would then end the server.
run() { unset -v PATH LC_ALL; eval "$E"; exec "$z" "$@"; }
lone() {
  [ -e @KEEPALIVE_PID@ ] && true 2>/dev/null <>@KEEPALIVE_USED@
  e=
  if [ -n "$1" ] && ! cd "$1" 2>/dev/null &&
     ! { mkdir -p "$1" && cd "$1"; } 2>/dev/null; then e=1
  elif [ -n "$2" ] && ! cd "$2" 2>/dev/null; then e=1
  fi
  if [ -n "$e" ]; then printf '\036%s:nocwd\036' "$t" >&4; exit 1; fi
  printf '\036%s:ready\036' "$t" >&4
  f=$3
  #. _check_readable.sh
  echo 'S -'
  exec cat -- "$f" 2>&4 4>&-
}
z=$(command -v setsid) || { printf '\036%s:nosetsid\036' "$T"; exit 0; }
printf '\036%s:ok\036' "$T"
exec 4>&2 2>/dev/null
[ "$0" != sandbox-kept ] || echo $$ 2>/dev/null >>@KEEPALIVE_SERVERS@
exec 3<&0
frames() {
  trap '' PIPE
  while IFS= read -r n; do
    echo "$n" 2>/dev/null
    [ "$n" = 0 ] && return 0
    dd bs="$n" count=1 iflag=fullblock 2>/dev/null
  done
}
while IFS= read -r t; do
  IFS= read -r i && IFS= read -r n || exit 0
  set --
  while [ "$n" -gt 0 ]; do
    IFS= read -r a || exit 0
    case $a in
    =*) a=${a#=} ;;
    @PROTO_SLOT_CASES@
    *) a=$(printf '%bx' "${a#?}"); a=${a%x} ;;
    esac
    set -- "$@" "$a"; n=$((n - 1))
  done
  printf '\036%s:begin\036' "$t"; printf '\036%s:begin\036' "$t" >&4
  k=
  if [ "$i" = r ]; then
    k=proc; lone "$@" 3<&- &
    printf '\036%s:proc:%d\036' "$t" "$!" >&4
    wait "$!"; s=$?
  elif [ "$i" = 1 ]; then { echo "$t"; frames <&3; } | ( run "$@" ) 3<&- 2>&4 4>&-; s=$?
  else ( run "$@" ) 3<&- 2>&4 4>&- <<EOF
$t
EOF
    s=$?
  fi
  if [ "$k" = proc ]; then
    printf '\036%s:done:%d\036' "$t" "$s"; printf '\036%s:done:%d\036' "$t" "$s" >&4
  fi
  printf '\036%s:end:%d\036' "$t" "$s"; printf '\036%s:end:%d\036' "$t" "$s" >&4
done
