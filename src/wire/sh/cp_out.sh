# cp_out.sh: SCRIPT_CP_OUT, cp out of the workspace (scripts.h says its
# arguments and answer).
# tar's status goes to stderr: a pipe into dd (which gathers tar's small
# writes, as in tar.sh) would lose it.
#. _safe_path.sh
p=$1 m=$2
if [ ! -e "$p" ] && [ ! -L "$p" ]; then echo 'E notfound'; exit 0; fi
if [ "$m" = c ]; then
  [ -d "$p" ] || { echo 'E notdir'; exit 0; }
  cd "$p" 2>/dev/null || { echo 'E denied'; exit 0; }
  k=D; set -- .
else
  case $p in */*) d=${p%/*}; d=${d:-/}; b=${p##*/} ;; *) d=. b=$p ;; esac
  if [ -L "$p" ]; then k=L; elif [ -d "$p" ]; then k=D; elif [ -f "$p" ]; then k=F
  else echo 'E notfile'; exit 0; fi
  cd "$d" 2>/dev/null || { echo 'E denied'; exit 0; }
  set -- "./$b"
fi
echo "OK $k"
#. _tar_literal.sh
{ tar -cf - ${q:+"$q"} "$@" 2>/dev/null; echo "tar:$?" >&2; } | dd bs=65536 iflag=fullblock 2>/dev/null
exit 0
