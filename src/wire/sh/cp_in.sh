# cp_in.sh: SCRIPT_CP_IN, cp into the workspace (scripts.h says its
# arguments, its stream and its answer).
# KIND s is c into a new workspace's workdir (create --copy), where
# nothing has run yet: when it is empty, it is replaced by the stream's
# tree in one rename rather than merged file by file.
# A merge checks every incoming name against what is there: a link
# where a directory comes is refused (the files would go through it); a
# link where a file comes is removed first (cp would write through it);
# a directory and a file never replace each other. Then cp -a. The first
# refusal is named, its control characters as '?'.
#. _safe_path.sh
D=$1 k=$2 b=$3 s=$4 t= z=
if [ "$k" = s ]; then k=c z=1; fi
no() { [ -z "$t" ] || rm -rf "$t"; echo "E $1"; cat >/dev/null 2>&1; exit 0; }
if [ -d "$D" ]; then
  if [ "$k" = c ]; then f=$D; else f=${D%/}/$b; fi
else
  case $D in */) no notfound ;; esac
  if [ "$k" != f ] && { [ -e "$D" ] || [ -L "$D" ]; }; then no notdir; fi
  f=$D
fi
case $f in */*) p=${f%/*}; p=${p:-/} ;; *) p=. ;; esac
[ -d "$p" ] || no notfound
t=$p/.sandbox-cp-$s
mkdir "$t" 2>/dev/null || { t=; no denied; }
tar -xf - -C "$t" 2>/dev/null || [ -z "$z" ] || no input
[ -f "$t/end" ] || no input
if [ -f "$t/times" ]; then
  (cd "$t" && xargs -0 sh -c 'for r; do touch -d "@${r%% *}" "${r#* }"; done' sh <times)
fi
if [ "$k" = f ]; then
  if [ -d "$f" ] && [ ! -L "$f" ]; then no isdir; fi
  if [ -L "$f" ]; then rm -f "$f"; fi
  mv -f "$t/x" "$f" 2>/dev/null || no rename
elif [ ! -e "$f" ] && [ ! -L "$f" ]; then
  mv "$t/x" "$f" 2>/dev/null || no rename
elif [ -n "$z" ] && [ -d "$f" ] && [ ! -L "$f" ] && rmdir "$f" 2>/dev/null; then
  mv "$t/x" "$f" 2>/dev/null || { mkdir "$f"; no rename; }
else
  [ -d "$f" ] || no notdir
  case $f in /*) ;; *) f=$PWD/$f ;; esac
  r=$(cd "$t/x" && find . ! -name . -exec sh -c '
    g=$1; shift
    for e; do
      if [ -d "$e" ] && [ ! -L "$e" ]; then
        if [ -L "$g/$e" ]; then w=inlink
        elif [ -e "$g/$e" ] && [ ! -d "$g/$e" ]; then w=notdir
        else continue; fi
      elif [ -L "$g/$e" ]; then rm -f "$g/$e"; continue
      elif [ -d "$g/$e" ]; then w=isdir
      else continue; fi
      printf "%s %s" "$w" "${e#./}" | tr "\\n\\r" "??"; echo; exit 0
    done' sh "$f" {} + | head -n 1)
  [ -z "$r" ] || no "$r"
  cp -a "$t/x/." "$f/" 2>/dev/null || no copy
fi
rm -rf "$t"
echo OK
