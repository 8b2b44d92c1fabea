# st PID: s=its start time, or fails. The name in parentheses may hold
# spaces and parentheses: the fields are those after the last ") ".
st() {
  s= l=
  { IFS= read -r l <"/proc/$1/stat"; } 2>/dev/null || return 1
  l=${l##*) }
  set -- $l
  [ $# -ge 20 ] || return 1
  shift 19; s=$1
}
