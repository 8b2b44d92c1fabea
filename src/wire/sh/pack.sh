# pack.sh: SCRIPT_PACK, a tar stream of the paths stdin names, for
# apply (scripts.h says its arguments and answer).
#. _safe_path.sh
cd "$1" 2>/dev/null || { echo 'E denied'; cat >/dev/null; exit 0; }
echo OK
#. _tar_literal.sh
xargs -0 -r tar -cf - ${q:+"$q"} --no-recursion 2>/dev/null | dd bs=65536 iflag=fullblock 2>/dev/null
exit 0
