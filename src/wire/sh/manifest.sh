# manifest.sh: SCRIPT_MANIFEST, what is under a directory, for diff and
# apply (scripts.h says its arguments and answer).
# The names to prune become find's ( -name A -o -name B ) -prune -o.
#. _safe_path.sh
cd "$1" 2>/dev/null || { echo 'E denied'; exit 0; }
shift; n=$#
for p; do
  if [ $n -eq $# ]; then set -- "$@" '('; else set -- "$@" -o; fi
  set -- "$@" -name "$p"
done
if [ $n -gt 0 ]; then set -- "$@" ')' -prune -o; fi
shift $n
echo OK
find . -mindepth 1 "$@" -print0 2>/dev/null
printf '\000'
find . -mindepth 1 "$@" -print0 2>/dev/null | xargs -0 -r stat -c '%f %s %n' 2>/dev/null
echo --
find . -mindepth 1 "$@" -type f -print0 2>/dev/null | xargs -0 -r sha256sum 2>/dev/null
exit 0
