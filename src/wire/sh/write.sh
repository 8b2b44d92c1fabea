# write.sh: SCRIPT_WRITE, a file's new content, whole or not at all
# (scripts.h says its arguments and answer).
# With SIZE, the content is stdin as it is (a regular file of that size
# on the host, read by the engine client itself), and the file must end
# up that long. With SIZE t (a pipe on the host), it is stdin as it is
# and then TAG and the count of the bytes before it in 20 digits (feed.h's
# tail), taken off the end once checked: one cat, where frames cost a
# dd each and the host a copy of every byte. Else it comes in frames,
# "N\n" and N bytes, ended by "0\n"; dd with iflag=fullblock reads
# exactly what it is asked from the pipe (head -c of BusyBox reads
# ahead): whole 64 KiB blocks, then the rest. A stream cut short never
# reaches "0", and the temporary file goes away: the old file stays as it
# was. A refusal (no) reads the rest of stdin before it exits: Podman,
# when its stdin copy fails, can drop the command's last output, and with
# it the answer and the done markers.
#. _safe_path.sh
f=$1 t=$2 x=$3 z=$4 p=
no() { [ -z "$p" ] || rm -f "$p"; echo "E $1"; cat >/dev/null 2>&1; exit 0; }
if [ -n "$x" ] && ! command -v sha256sum >/dev/null 2>&1; then no nosha; fi
if [ -L "$f" ]; then
  r=$(readlink -f -- "$f" 2>/dev/null) && [ -n "$r" ] || no badlink
  f=$r
fi
if [ -d "$f" ]; then no isdir; fi
if [ -e "$f" ] && [ ! -f "$f" ]; then no notfile; fi
case $f in */*) d=${f%/*}; d=${d:-/} ;; *) d=. ;; esac
if [ ! -d "$d" ] && ! mkdir -p -- "$d" 2>/dev/null; then no mkdir; fi
c=1
if [ -e "$f" ]; then c=0; fi
if ! { true >"$d/.sandbox-write-$t"; } 2>/dev/null; then no denied; fi
p=$d/.sandbox-write-$t
n=x
if [ "$z" = t ]; then
  if ! cat >"$p" 2>/dev/null; then n=w
  elif s=$(stat -c %s -- "$p") && [ "$s" -ge 36 ] 2>/dev/null &&
    [ "$(tail -c 36 "$p")" = "$t$(printf %020d $((s - 36)))" ] &&
    dd if=/dev/null of="$p" bs=1 seek=$((s - 36)) 2>/dev/null; then n=0
  fi
elif [ -n "$z" ]; then
  if ! cat >"$p" 2>/dev/null; then n=w
  elif [ "$(stat -c %s -- "$p")" = "$z" ]; then n=0
  fi
else
  while IFS= read -r n && [ "$n" != 0 ]; do
    q=$((n / 65536)) r=$((n % 65536))
    { [ $q = 0 ] || dd bs=65536 count=$q iflag=fullblock 2>/dev/null; } >>"$p" &&
    { [ $r = 0 ] || dd bs=$r count=1 iflag=fullblock 2>/dev/null; } >>"$p" ||
    { n=w; break; }
  done
fi
if [ "$n" = w ]; then no nospace; fi
if [ "$n" != 0 ]; then no input; fi
if [ -n "$x" ]; then
  set -- $(sha256sum <"$f" 2>/dev/null)
  if [ "$1" != "$x" ]; then no changed; fi
fi
if [ $c = 0 ]; then
  chmod "$(stat -c %a -- "$f")" "$p" 2>/dev/null
  chown "$(stat -c %u:%g -- "$f")" "$p" 2>/dev/null
fi
if ! mv -f -- "$p" "$f" 2>/dev/null; then no rename; fi
echo "OK $c"
