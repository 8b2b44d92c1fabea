# tar.sh: SCRIPT_TAR, a tar stream of a file or of the files under a
# directory (scripts.h says its arguments and answer).
# Several tar archives, one after the other, when xargs splits the list:
# the host reads them as one stream. dd gathers tar's small writes into
# 64 KiB ones, which the engine carries much faster.
# With LIT (the bytes every match holds, printable ASCII; CASE i: either
# case of a letter), only the files that hold LIT go, as grep -F finds
# them: all that can match, and a tar of 20,000 files weighs 20 MiB where
# grep reads them in half the time. One pipeline, its stages at work at
# once: find walks while grep reads the batches xargs gives it, and one
# tar takes what grep names. grep -l names a file a line, and BusyBox's
# has no -Z: awk makes the list NUL-separated again, a line that does
# not start with ".//" (what find starts every path with, and no path
# holds elsewhere) being the rest of a name with a newline. An awk that
# cannot write a NUL (BusyBox's before 1.33, or built without its GNU
# extensions) would run the names together, and no file would go: then
# every file goes. BusyBox's grep stops reading a line at a NUL, where
# the host reads on (a NUL past TOOL_PROBE bytes leaves a file text):
# there grep -z, whose lines end at NULs, narrows the files up to a MiB
# (it holds a whole line in memory, and a text file has no NUL to
# end it), and bigger ones go whole (BIG_C), where find has ! and -size;
# a grep that can do neither goes unused. What grep says only narrows
# the stream; the host matches every line it gets.
#. _safe_path.sh
d=$1 l=$2 c=$3
if [ ! -e "$d" ]; then echo 'E notfound'; exit 0; fi
if [ -f "$d" ]; then
  if [ ! -r "$d" ]; then echo 'E denied'; exit 0; fi
  echo 'OK F'; #. _tar_literal.sh
  exec tar -chf - ${q:+"$q"} "$d" 2>/dev/null
fi
if [ ! -d "$d" ]; then echo 'E notfile'; exit 0; fi
cd "$d" 2>/dev/null || { echo 'E denied'; exit 0; }
echo 'OK D'
#. _tar_literal.sh
n= z=
if [ -n "$l" ] && command -v grep >/dev/null 2>&1 && command -v awk >/dev/null 2>&1 &&
   [ "$(awk 'BEGIN { printf "%c%s", 0, "x" }' 2>/dev/null | tr '\000' y 2>/dev/null)" = yx ]; then
  if printf 'a\000b\n' | grep -q -F b 2>/dev/null; then n=1
  elif printf 'a\000b\n' | grep -q -z -F b 2>/dev/null &&
     [ "$(find . -maxdepth 0 ! -size @BIG_C@ 2>/dev/null)" = . ]; then n=1 z=-z
  fi
fi
if [ -n "$n" ]; then
  if [ "$c" = i ]; then c=-i; else c=-F; fi
  LC_ALL=C; export LC_ALL
  set --
  [ -z "$z" ] || set -- ! -size @BIG_C@
  { find .// -name .git -prune -o -type f "$@" -print0 |
    xargs -0 -r grep -l $z -F $c -e "$l" -- |
    awk '{ s = substr($0, 1, 3) == ".//"
      if (NR > 1) { if (s) printf "%c", 0; else printf "\n" }
      if (s) printf "./%s", substr($0, 4); else printf "%s", $0 }
      END { if (NR) printf "%c", 0 }' |
    xargs -0 -r tar -cf - ${q:+"$q"} --no-recursion
    [ $# = 0 ] || find . -name .git -prune -o -type f -size @BIG_C@ -print0 |
      xargs -0 -r tar -cf - ${q:+"$q"} --no-recursion
  } 2>/dev/null | dd bs=65536 iflag=fullblock 2>/dev/null
  exit 0
fi
find . -name .git -prune -o -type f -print0 2>/dev/null |
  xargs -0 -r tar -cf - ${q:+"$q"} --no-recursion 2>/dev/null |
  dd bs=65536 iflag=fullblock 2>/dev/null
exit 0
