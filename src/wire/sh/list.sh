# list.sh: SCRIPT_LIST, the regular files under a directory and their
# mtimes (scripts.h says its arguments and answer).
# With END, only the names that end with it (the bytes that every match
# of the pattern ends with, none of them special to find's -name): the
# others cannot match, and their stat is most of the work. LC_ALL=C: in
# another locale, -name's '*' may not match a name that is not UTF-8.
# One walk: find hands the names to stat in batches, through xargs so
# that stat's second lstat of each name runs while find walks on (on a
# second core: a third off the time), or by -exec without xargs.
# Neither find nor stat has a way to end a name with a NUL in BusyBox
# (no -printf, no --printf); the ".//" that every path starts with, and
# no name can hold, is what tells the records apart (listing.h), and
# the "//" at the end says the answer is whole.
#. _safe_path.sh
d=$1 s=$2
if [ ! -e "$d" ]; then echo 'E notfound'; exit 0; fi
if [ ! -d "$d" ]; then echo 'E notdir'; exit 0; fi
cd "$d" 2>/dev/null || { echo 'E denied'; exit 0; }
echo OK
LC_ALL=C; export LC_ALL
if [ -n "$s" ]; then set -- -type f -name "*$s"; else set -- -type f; fi
if command -v xargs >/dev/null 2>&1; then
  find .// -name .git -prune -o "$@" -print0 2>/dev/null |
    xargs -0 -r stat -c '%Y %n' 2>/dev/null
else
  find .// -name .git -prune -o "$@" -exec stat -c '%Y %n' {} + 2>/dev/null
fi
printf //
exit 0
