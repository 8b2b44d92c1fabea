# read.sh: SCRIPT_READ, a file's size and bytes (scripts.h says its
# arguments and answer).
#. _safe_path.sh
f=$1
#. _check_readable.sh
n=$(stat -c %s -- "$f") || exit 1
echo "S $n"
exec cat -- "$f"
