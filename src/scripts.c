/* scripts.c: see scripts.h. */
#include "scripts.h"


/* The PATH of our own scripts: the system's directories only, so that
 * nothing a command drops into /usr/local/bin (or a PATH of its
 * environment) runs in their place. */
#define SAFE_PATH "PATH=/usr/sbin:/usr/bin:/sbin:/bin\n"

/* With expiry: n is now, l the last sign of use, a set once the idle
 * clock runs (at once, or for a pool's workspace once KEEPALIVE_ARMED is
 * there: it stays across a stop and a start). Each round looks for
 * KEEPALIVE_USED (removed as seen) or a process besides pid 1 and itself,
 * then sleeps until the next check: a quarter of the idle time (1 to 60
 * s), a minute while the clock waits, or until the deadline. A USR1 ends
 * the sleep early (its sleep is killed, not left as a process). */
const char SCRIPT_KEEPALIVE[] =
	"trap 'exit 0' TERM INT HUP\n"
	"x=${1:-0} i=${2:-0}\n"
	"if [ \"$x\" = 0 ] && [ \"$i\" = 0 ]; then\n"
	"  while :; do sleep 3600 & wait $!; done\n"
	"fi\n"
	SAFE_PATH
	"a=1 g= h=\n"
	"read -r h </etc/hostname 2>/dev/null\n"
	"armed() { q=; read -r q <" KEEPALIVE_ARMED " 2>/dev/null && [ \"$q\" = \"$h\" ]; }\n"
	"[ \"${3-}\" = 1 ] && ! armed && a=\n"
	"trap 'g=1' USR1\n"
	"echo $$ 2>/dev/null >" KEEPALIVE_PID "\n"
	"n=$(date +%s) l=$n\n"
	"while :; do\n"
	"  if [ -z \"$a\" ] && { [ -n \"$g\" ] || armed; }; then a=1 l=$n; fi\n"
	"  g=\n"
	"  if [ -e " KEEPALIVE_USED " ]; then rm -f " KEEPALIVE_USED "; l=$n\n"
	"  else\n"
	"    for p in /proc/[0-9]*; do\n"
	"      case ${p#/proc/} in 1|$$) ;; *) l=$n; break ;; esac\n"
	"    done\n"
	"  fi\n"
	"  [ \"$x\" -gt 0 ] && [ \"$n\" -ge \"$x\" ] && exit 3\n"
	"  s=3600\n"
	"  if [ \"$i\" -gt 0 ] && [ -n \"$a\" ]; then\n"
	"    [ $((n - l)) -ge \"$i\" ] && exit 4\n"
	"    s=$((i / 4)); [ \"$s\" -ge 1 ] || s=1; [ \"$s\" -le 60 ] || s=60\n"
	"  elif [ \"$i\" -gt 0 ]; then s=60\n"
	"  fi\n"
	"  [ \"$x\" -gt 0 ] && [ $((x - n)) -lt \"$s\" ] && s=$((x - n))\n"
	"  sleep \"$s\" & k=$!\n"
	"  wait $k || { kill $k 2>/dev/null; wait $k; }\n"
	"  n=$(date +%s)\n"
	"done\n";

/* The armed file holds the container's hostname: one that came with the
 * image (committed from a taken workspace) arms no other container. */
const char SCRIPT_ARM[] =
	"h=; read -r h </etc/hostname 2>/dev/null\n"
	"printf '%s\\n' \"$h\" >" KEEPALIVE_ARMED " && read -r p <" KEEPALIVE_PID " && kill -USR1 \"$p\"\n";

/* The pid file must name a live process of ours: one that came with the
 * image names none, or another. */
const char SCRIPT_ARMABLE[] =
	"for i in 1 2 3 4 5 6 7 8 9 10; do\n"
	"  p=; read -r p <" KEEPALIVE_PID " 2>/dev/null\n"
	"  if [ -n \"$p\" ] && [ -w /tmp ] && kill -0 \"$p\" 2>/dev/null; then\n"
	"    case $(tr '\\000' ' ' </proc/\"$p\"/cmdline 2>/dev/null) in *' keepalive '*) exit 0 ;; esac\n"
	"  fi\n"
	"  sleep 1\n"
	"done\n"
	"exit 1\n";

/* The call's TAG comes as the first line of stdin, never as an argument:
 * another process of the workspace can read any command line
 * (/proc/PID/cmdline), and with the tag it could forge this call's
 * markers. With INPUT 1 the rest of stdin is the command's; else it gets
 * /dev/null. t is unset first: an exported t would carry the tag into
 * the command's environment. A variable of the caller's (-e, [env], the
 * image's) may bear a name the script uses: when one does, `export -p`
 * keeps them all first (but PWD, which the cd sets, and bash's
 * read-only ones), and eval puts them back in the command's subshell.
 * With MODE 1, CWD and every argument come encoded (a byte as \\0ooo, see
 * exec.c) and are decoded here: the engines carry arguments as JSON, which
 * cannot hold bytes that are not UTF-8. The "x" keeps a trailing newline
 * from being eaten by the command substitution. Our own work runs with
 * LC_ALL=C (bash in a UTF-8 locale mangles ${a%x} of a value that is
 * not UTF-8); the command gets the LC_ALL it came with, as with PATH.
 * MODE 2 and 3 are for a channel's calls; with 3 the
 * command is one of our constant scripts with its arguments, run by eval
 * in the subshell (under SAFE_PATH) rather than by a new sh. Else the
 * command gets the PATH it came with.
 * The command runs in a subshell, so that a special builtin (`exit 3`,
 * `cd`) acts there and the wrapper always reaches its done marker.
 * `docker exec` (or the channel's setsid) makes the wrapper a process
 * group leader; its children stay in that group unless they call
 * setsid: "pid" says which group.
 * "oom" says that the kernel killed a process of the container for lack
 * of memory while the command ran (the cgroup's oom_kill count, v2 or
 * v1, went up). */
const char SCRIPT_EXEC[] =
	"[ -z \"${t+1}${w+1}${d+1}${x+1}${i+1}${o+1}${u+1}${l+1}${v+1}${e+1}${m+1}${K+1}${n+1}${a+1}${f+1}${b+1}${s+1}${c+1}${E+1}\" ] ||\n"
	"  E=$(unset -v PWD; [ -z \"${BASH_VERSION-}\" ] ||\n"
	"    export -n UID EUID PPID BASHOPTS SHELLOPTS 2>/dev/null; export -p)\n"
	"unset t\n"
	"[ -e " KEEPALIVE_PID " ] && true 2>/dev/null <>" KEEPALIVE_USED "\n"
	"IFS= read -r t || exit 125\n"
	"w=$1 d=$2 x=$3 i=$4 o=${PATH-} u=${PATH+1} l=${LC_ALL-} v=${LC_ALL+1}\n"
	"LC_ALL=C\n"
	"shift 4\n"
	SAFE_PATH
	"[ \"$i\" = 1 ] || exec </dev/null\n"
	"printf '\\036%s:pid:%d\\036' \"$t\" $$ >&2\n"
	"if [ \"$x\" = 1 ]; then\n"
	"  d=$(printf '%bx' \"$d\"); d=${d%x}\n"
	"  n=$#\n"
	"  while [ \"$n\" -gt 0 ]; do\n"
	"    a=$(printf '%bx' \"$1\"); shift; set -- \"$@\" \"${a%x}\"; n=$((n - 1))\n"
	"  done\n"
	"fi\n"
	"e=\n"
	"if [ -n \"$w\" ] && ! cd \"$w\" 2>/dev/null &&\n"
	"   ! { mkdir -p \"$w\" && cd \"$w\"; } 2>/dev/null; then e=1\n"
	"elif [ -n \"$d\" ] && ! cd \"$d\" 2>/dev/null; then e=1\n"
	"fi\n"
	"if [ -n \"$e\" ]; then printf '\\036%s:nocwd\\036' \"$t\" >&2; exit 1; fi\n"
	"k() {\n"
	"  K=\n"
	"  for f in /sys/fs/cgroup/memory.events /sys/fs/cgroup/memory/memory.oom_control; do\n"
	"    [ -r \"$f\" ] || continue\n"
	"    while read -r a b; do [ \"$a\" = oom_kill ] && K=$b; done <\"$f\"\n"
	"  done\n"
	"}\n"
	"k; m=$K\n"
	"printf '\\036%s:ready\\036' \"$t\" >&2\n"
	"if [ \"$x\" = 3 ]; then (c=$1; shift; unset t w d x i o u l v e m K n a f b s; eval \"$c\")\n"
	"else (if [ -n \"$u\" ]; then PATH=$o; else unset PATH; fi\n"
	"  if [ -n \"$v\" ]; then LC_ALL=$l; else unset LC_ALL; fi\n"
	"  unset t w d x i o u l v e m K n a f b s c; eval \"${E-}\"; \"$@\")\n"
	"fi\n"
	"s=$?\n"
	"k; [ \"$K\" = \"$m\" ] || printf '\\036%s:oom\\036' \"$t\" >&2\n"
	"printf '\\036%s:done:%d\\036' \"$t\" \"$s\"\n"
	"printf '\\036%s:done:%d\\036' \"$t\" \"$s\" >&2\n"
	"exit \"$s\"\n";

/* Our names start with _sandbox_, and are set after the saved variables
 * come back: the command's shell text runs in this shell. The saved
 * directory is one of them (_sandbox_c), so that one file, written
 * through a temporary name, holds it all; the last cd sets PWD, and
 * OLDPWD is put back after it (cd -). The tools the saving needs come by
 * `command -p`, whatever PATH, functions or aliases the command left.
 * Saved after the command, or at its exit (unless it set an EXIT trap of
 * its own, which then runs as it would); a signal saves nothing (bash
 * would run the EXIT trap). Bash's readonly variables a command exported
 * are not saved: they could not come back. One line, no newline: on a
 * channel it goes as it is (proto.h). */
const char SCRIPT_SESSION[] =
	"_sandbox_d=$PWD; "
	"if [ \"$1\" = 1 ]; then \\command -p rm -rf \"/tmp/.sandbox-sessions/$4\"; fi; "
	"if [ -r \"/tmp/.sandbox-sessions/$4/env\" ]; then . \"/tmp/.sandbox-sessions/$4/env\"; fi; "
	"_sandbox_s=/tmp/.sandbox-sessions/$4 _sandbox_k=$3 _sandbox_n=$5 _sandbox_w=${_sandbox_c-} "
	"_sandbox_o=${OLDPWD-} _sandbox_p=${OLDPWD+1}; "
	"unset -v _sandbox_c; "
	"if [ \"$2\" = 1 ] && [ -n \"$_sandbox_w\" ] && cd \"$_sandbox_w\" 2>/dev/null; then :; "
	"else cd \"$_sandbox_d\"; fi; "
	"if [ -n \"$_sandbox_p\" ]; then OLDPWD=$_sandbox_o; else unset -v OLDPWD; fi; "
	"shift 5; "
	"while [ \"$_sandbox_n\" -gt 0 ]; do export \"$1\"; shift; _sandbox_n=$((_sandbox_n - 1)); done; "
	"_sandbox_save() { "
	"set +e; umask 077; export _sandbox_c=\"$PWD\"; unset -v SANDBOX_TTY; "
	"[ -z \"${BASH_VERSION-}\" ] || export -n UID EUID PPID BASHOPTS SHELLOPTS 2>/dev/null; "
	"{ [ -d \"$_sandbox_s\" ] || \\command -p mkdir -p \"$_sandbox_s\"; } && "
	"export -p >\"$_sandbox_s/env.$$\" && "
	"\\command -p mv -f \"$_sandbox_s/env.$$\" \"$_sandbox_s/env\"; }; "
	"trap '[ -n \"${_sandbox_z-}\" ] || _sandbox_save' EXIT; "
	"trap 'trap - EXIT; exit 129' HUP; trap 'trap - EXIT; exit 130' INT; "
	"trap 'trap - EXIT; exit 143' TERM; "
	"unset -v _sandbox_d _sandbox_n _sandbox_w _sandbox_o _sandbox_p; "
	"if [ \"$_sandbox_k\" = b ]; then exec \"$@\"; fi; "
	"if [ \"$_sandbox_k\" = c ]; then _sandbox_k=$1; shift; eval \"$_sandbox_k\"; else \"$@\"; fi; "
	"_sandbox_k=$?; _sandbox_save; _sandbox_z=1; exit \"$_sandbox_k\"";

/* No variables of its own but SANDBOX_TTY: one would take the place of
 * the command's. */
const char SCRIPT_TTY[] =
	"if [ -n \"$1\" ] && ! cd \"$1\" 2>/dev/null; then\n"
	"  printf 'sandbox: cannot enter the workdir %s\\n' \"$1\" >&2; exit 1\n"
	"fi\n"
	"if [ -n \"$2\" ] && ! cd \"$2\" 2>/dev/null; then\n"
	"  printf 'sandbox: %s: no such directory in the workspace\\n' \"$2\" >&2; exit 1\n"
	"fi\n"
	"SANDBOX_TTY=$3\n"
	"export SANDBOX_TTY\n"
	"shift 3\n"
	"exec \"$@\"\n";

/* A process's environment as it was when it started (/proc/PID/environ):
 * a process that dropped the variable, or the workspace itself, can hide
 * from it; it is a terminal's clean-up, not a fence. */
const char SCRIPT_TTY_KILL[] =
	SAFE_PATH
	"t=SANDBOX_TTY=$1\n"
	"case $1 in ''|*[!0-9a-f]*) exit 2 ;; esac\n"
	"f() {\n"
	"  n=0\n"
	"  for e in /proc/[0-9]*/environ; do\n"
	"    p=${e#/proc/}; p=${p%/environ}\n"
	"    if tr '\\000' '\\n' <\"$e\" 2>/dev/null | grep -qxF \"$t\"; then\n"
	"      kill -$1 \"$p\" 2>/dev/null && n=1\n"
	"    fi\n"
	"  done\n"
	"}\n"
	"f TERM\n"
	"[ $n = 0 ] || { sleep 1; f KILL; }\n"
	"exit 0\n";

const char SCRIPT_SHELL[] =
	"if [ -x /bin/bash ]; then exec /bin/bash; fi\n"
	"exec /bin/sh\n";

/* Says "k" (it started), then TERM to the process group PGID (with p
 * after it: to the process PGID alone, a channel's lone call, which leads
 * no group), KILL when it is still there a second later, then says
 * whether it is gone: "gone" or "alive" on stdout. Only
 * builtins but sleep, which comes from SAFE_PATH; whatever the
 * workspace does to it, the host bounds this call and treats any other
 * answer as "alive". BusyBox's kill takes no `--`: a negative pid goes
 * right after the signal. Fractional sleep is not everywhere, hence the
 * fallback. */
const char SCRIPT_KILL[] =
	SAFE_PATH
	"g=-$1\n"
	"[ \"${2-}\" != p ] || g=$1\n"
	"echo k\n"
	"kill -15 \"$g\" 2>/dev/null || { echo gone; exit 0; }\n"
	"w() {\n"
	"  i=0\n"
	"  while [ $i -lt 10 ] && kill -0 \"$g\" 2>/dev/null; do\n"
	"    sleep 0.1 2>/dev/null || sleep 1; i=$((i+1))\n"
	"  done\n"
	"}\n"
	"w\n"
	"kill -9 \"$g\" 2>/dev/null && w\n"
	"if kill -0 \"$g\" 2>/dev/null; then echo alive; else echo gone; fi\n";

/* Refusals first, so that the host can name the reason; [ -f ] last, so
 * that a FIFO or a device is refused rather than read forever. */
#define CHECK_READABLE_IN(v, in)                                            \
	"if [ -d \"$" v "\" ]; then echo 'E isdir'; exit 0; fi\n"           \
	in "if [ ! -e \"$" v "\" ]; then echo 'E notfound'; exit 0; fi\n"   \
	in "if [ ! -f \"$" v "\" ]; then echo 'E notfile'; exit 0; fi\n"    \
	in "if [ ! -r \"$" v "\" ]; then echo 'E denied'; exit 0; fi\n"
#define CHECK_READABLE(v) CHECK_READABLE_IN(v, "")

/* GNU tar unquotes the names it is given (a file named p\t would be
 * taken for p and a tab) unless told --no-unquote, which BusyBox's tar
 * refuses: q says it where tar takes it, as ${q:+"$q"}. */
#define TAR_LITERAL \
	"q=; tar --no-unquote -cf /dev/null -T /dev/null 2>/dev/null && q=--no-unquote\n"

const char SCRIPT_READ[] =
	SAFE_PATH
	"f=$1\n"
	CHECK_READABLE("f")
	"n=$(stat -c %s -- \"$f\") || exit 1\n"
	"echo \"S $n\"\n"
	"exec cat -- \"$f\"\n";

/* With SIZE, the content is stdin as it is (a regular file of that size
 * on the host, read by the engine client itself), and the file must end
 * up that long. With SIZE t (a pipe on the host), it is stdin as it is
 * and then TAG and the count of the bytes before it in 20 digits (feed.h's
 * tail), taken off the end once checked: one cat, where frames cost a
 * dd each and the host a copy of every byte. Else it comes in frames, "N\n" and N bytes, ended by
 * "0\n"; dd with iflag=fullblock reads exactly what it is asked from the
 * pipe (head -c of BusyBox reads ahead): whole 64 KiB blocks, then the
 * rest. A stream cut short never reaches "0", and the temporary file goes
 * away: the old file stays as it was. A refusal (no) reads the rest of
 * stdin before it exits: Podman, when its stdin copy fails, can drop the
 * command's last output, and with it the answer and the done markers. */
const char SCRIPT_WRITE[] =
	SAFE_PATH
	"f=$1 t=$2 x=$3 z=$4 p=\n"
	"no() { [ -z \"$p\" ] || rm -f \"$p\"; echo \"E $1\"; cat >/dev/null 2>&1; exit 0; }\n"
	"if [ -n \"$x\" ] && ! command -v sha256sum >/dev/null 2>&1; then no nosha; fi\n"
	"if [ -L \"$f\" ]; then\n"
	"  r=$(readlink -f -- \"$f\" 2>/dev/null) && [ -n \"$r\" ] || no badlink\n"
	"  f=$r\n"
	"fi\n"
	"if [ -d \"$f\" ]; then no isdir; fi\n"
	"if [ -e \"$f\" ] && [ ! -f \"$f\" ]; then no notfile; fi\n"
	"case $f in */*) d=${f%/*}; d=${d:-/} ;; *) d=. ;; esac\n"
	"if [ ! -d \"$d\" ] && ! mkdir -p -- \"$d\" 2>/dev/null; then no mkdir; fi\n"
	"c=1\n"
	"if [ -e \"$f\" ]; then c=0; fi\n"
	"if ! { true >\"$d/.sandbox-write-$t\"; } 2>/dev/null; then no denied; fi\n"
	"p=$d/.sandbox-write-$t\n"
	"n=x\n"
	"if [ \"$z\" = t ]; then\n"
	"  if ! cat >\"$p\" 2>/dev/null; then n=w\n"
	"  elif s=$(stat -c %s -- \"$p\") && [ \"$s\" -ge 36 ] 2>/dev/null &&\n"
	"    [ \"$(tail -c 36 \"$p\")\" = \"$t$(printf %020d $((s - 36)))\" ] &&\n"
	"    dd if=/dev/null of=\"$p\" bs=1 seek=$((s - 36)) 2>/dev/null; then n=0\n"
	"  fi\n"
	"elif [ -n \"$z\" ]; then\n"
	"  if ! cat >\"$p\" 2>/dev/null; then n=w\n"
	"  elif [ \"$(stat -c %s -- \"$p\")\" = \"$z\" ]; then n=0\n"
	"  fi\n"
	"else\n"
	"  while IFS= read -r n && [ \"$n\" != 0 ]; do\n"
	"    q=$((n / 65536)) r=$((n % 65536))\n"
	"    { [ $q = 0 ] || dd bs=65536 count=$q iflag=fullblock 2>/dev/null; } >>\"$p\" &&\n"
	"    { [ $r = 0 ] || dd bs=$r count=1 iflag=fullblock 2>/dev/null; } >>\"$p\" ||\n"
	"    { n=w; break; }\n"
	"  done\n"
	"fi\n"
	"if [ \"$n\" = w ]; then no nospace; fi\n"
	"if [ \"$n\" != 0 ]; then no input; fi\n"
	"if [ -n \"$x\" ]; then\n"
	"  set -- $(sha256sum <\"$f\" 2>/dev/null)\n"
	"  if [ \"$1\" != \"$x\" ]; then no changed; fi\n"
	"fi\n"
	"if [ $c = 0 ]; then\n"
	"  chmod \"$(stat -c %a -- \"$f\")\" \"$p\" 2>/dev/null\n"
	"  chown \"$(stat -c %u:%g -- \"$f\")\" \"$p\" 2>/dev/null\n"
	"fi\n"
	"if ! mv -f -- \"$p\" \"$f\" 2>/dev/null; then no rename; fi\n"
	"echo \"OK $c\"\n";

/* With END, only the names that end with it (the bytes that every match
 * of the pattern ends with, none of them special to find's -name): the
 * others cannot match, and their stat is most of the work. LC_ALL=C: in
 * another locale, -name's '*' may not match a name that is not UTF-8.
 * One walk: find hands the names to stat in batches, through xargs so
 * that stat's second lstat of each name runs while find walks on (on a
 * second core: a third off the time), or by -exec without xargs.
 * Neither find nor stat has a way to end a name with a NUL in BusyBox
 * (no -printf, no --printf); the ".//" that every path starts with, and
 * no name can hold, is what tells the records apart (listing.h), and
 * the "//" at the end says the answer is whole. */
const char SCRIPT_LIST[] =
	SAFE_PATH
	"d=$1 s=$2\n"
	"if [ ! -e \"$d\" ]; then echo 'E notfound'; exit 0; fi\n"
	"if [ ! -d \"$d\" ]; then echo 'E notdir'; exit 0; fi\n"
	"cd \"$d\" 2>/dev/null || { echo 'E denied'; exit 0; }\n"
	"echo OK\n"
	"LC_ALL=C; export LC_ALL\n"
	"if [ -n \"$s\" ]; then set -- -type f -name \"*$s\"; else set -- -type f; fi\n"
	"if command -v xargs >/dev/null 2>&1; then\n"
	"  find .// -name .git -prune -o \"$@\" -print0 2>/dev/null |\n"
	"    xargs -0 -r stat -c '%Y %n' 2>/dev/null\n"
	"else\n"
	"  find .// -name .git -prune -o \"$@\" -exec stat -c '%Y %n' {} + 2>/dev/null\n"
	"fi\n"
	"printf //\n"
	"exit 0\n";

/* Several tar archives, one after the other, when xargs splits the list:
 * the host reads them as one stream. dd gathers tar's small writes into
 * 64 KiB ones, which the engine carries much faster.
 * With LIT (the bytes every match holds, printable ASCII; CASE i: either
 * case of a letter), only the files that hold LIT go, as grep -F finds
 * them: all that can match, and a tar of 20,000 files weighs 20 MiB where
 * grep reads them in half the time. One pipeline, its stages at work at
 * once: find walks while grep reads the batches xargs gives it, and one
 * tar takes what grep names. grep -l names a file a line, and BusyBox's
 * has no -Z: awk makes the list NUL-separated again, a line that does
 * not start with ".//" (what find starts every path with, and no path
 * holds elsewhere) being the rest of a name with a newline. An awk that
 * cannot write a NUL (BusyBox's before 1.33, or built without its GNU
 * extensions) would run the names together, and no file would go: then
 * every file goes. BusyBox's grep stops reading a line at a NUL, where
 * the host reads on (a NUL past TOOL_PROBE bytes leaves a file text):
 * there grep -z, whose lines end at NULs, narrows the files up to a MiB
 * (it holds a whole line in memory, and a text file has no NUL to
 * end it), and bigger ones go whole, where find has ! and -size; a
 * grep that can do neither goes unused. What grep says only narrows the
 * stream; the host matches every line it gets. */
#define BIG_C "+1048576c"
const char SCRIPT_TAR[] =
	SAFE_PATH
	"d=$1 l=$2 c=$3\n"
	"if [ ! -e \"$d\" ]; then echo 'E notfound'; exit 0; fi\n"
	"if [ -f \"$d\" ]; then\n"
	"  if [ ! -r \"$d\" ]; then echo 'E denied'; exit 0; fi\n"
	"  echo 'OK F'; " TAR_LITERAL "  exec tar -chf - ${q:+\"$q\"} \"$d\" 2>/dev/null\n"
	"fi\n"
	"if [ ! -d \"$d\" ]; then echo 'E notfile'; exit 0; fi\n"
	"cd \"$d\" 2>/dev/null || { echo 'E denied'; exit 0; }\n"
	"echo 'OK D'\n"
	TAR_LITERAL
	"n= z=\n"
	"if [ -n \"$l\" ] && command -v grep >/dev/null 2>&1 && command -v awk >/dev/null 2>&1 &&\n"
	"   [ \"$(awk 'BEGIN { printf \"%c%s\", 0, \"x\" }' 2>/dev/null | tr '\\000' y 2>/dev/null)\" = yx ]; then\n"
	"  if printf 'a\\000b\\n' | grep -q -F b 2>/dev/null; then n=1\n"
	"  elif printf 'a\\000b\\n' | grep -q -z -F b 2>/dev/null &&\n"
	"     [ \"$(find . -maxdepth 0 ! -size " BIG_C " 2>/dev/null)\" = . ]; then n=1 z=-z\n"
	"  fi\n"
	"fi\n"
	"if [ -n \"$n\" ]; then\n"
	"  if [ \"$c\" = i ]; then c=-i; else c=-F; fi\n"
	"  LC_ALL=C; export LC_ALL\n"
	"  set --\n"
	"  [ -z \"$z\" ] || set -- ! -size " BIG_C "\n"
	"  { find .// -name .git -prune -o -type f \"$@\" -print0 |\n"
	"    xargs -0 -r grep -l $z -F $c -e \"$l\" -- |\n"
	"    awk '{ s = substr($0, 1, 3) == \".//\"\n"
	"      if (NR > 1) { if (s) printf \"%c\", 0; else printf \"\\n\" }\n"
	"      if (s) printf \"./%s\", substr($0, 4); else printf \"%s\", $0 }\n"
	"      END { if (NR) printf \"%c\", 0 }' |\n"
	"    xargs -0 -r tar -cf - ${q:+\"$q\"} --no-recursion\n"
	"    [ $# = 0 ] || find . -name .git -prune -o -type f -size " BIG_C " -print0 |\n"
	"      xargs -0 -r tar -cf - ${q:+\"$q\"} --no-recursion\n"
	"  } 2>/dev/null | dd bs=65536 iflag=fullblock 2>/dev/null\n"
	"  exit 0\n"
	"fi\n"
	"find . -name .git -prune -o -type f -print0 2>/dev/null |\n"
	"  xargs -0 -r tar -cf - ${q:+\"$q\"} --no-recursion 2>/dev/null |\n"
	"  dd bs=65536 iflag=fullblock 2>/dev/null\n"
	"exit 0\n";

/* The channel's frames (feed.h) are copied into the call's stdin by the
 * server itself, one dd per frame: a frame is read whole before it is
 * written, so when the call stops reading early the rest is still
 * consumed, and the next request starts where it should. The call runs
 * in the foreground, the last of a pipeline: as an asynchronous list it
 * would ignore SIGINT and SIGQUIT for good. setsid makes it a process
 * group, which the wrapper says (pid): the host kills by it. The
 * requests' stdin is kept as fd 3 for frames, which may still be
 * draining when the call stopped reading: the pipeline waits for both.
 * Each call gets the environment the server came with (E), its own
 * variables put back, and PATH and LC_ALL as they came. The
 * requests are decoded with LC_ALL=C (bash, in a UTF-8 locale, reads a
 * line ending in a cut multibyte sequence, or expands ${a#=} of one,
 * wrongly).
 * A lone call (STDIN r; its values WORKDIR CWD PATH) is a read the server
 * runs itself, the wrapper's and SCRIPT_READ's work done by builtins in a
 * subshell that then becomes cat: a process started in a container costs
 * milliseconds, and the usual way starts five (the pipeline's two, setsid,
 * sh, stat). So it says no size ("S -": the host counts the bytes), it has
 * no process group (cat starts none; "proc" says the pid, which the host
 * kills alone: it runs in the background, for $!) and no setsid, and the
 * server says its done markers. A
 * cat of the workspace's making that starts processes leaves them
 * running, as a command's setsid would: the host still bounds the call.
 * t is unset first: one exported by the image would carry the tag into
 * the environment of every call, where the workspace could read it. */
const char SCRIPT_SERVE[] =
	"E=$(unset -v PWD; [ -z \"${BASH_VERSION-}\" ] ||\n"
	"  export -n UID EUID PPID BASHOPTS SHELLOPTS 2>/dev/null; export -p)\n"
	SAFE_PATH
	"unset t\n"
	"T=$1 S0=$2 S1=$3 S2=$4 S3=$5 S4=$6 z=\n"
	"LC_ALL=C\n"
	"run() { unset -v PATH LC_ALL; eval \"$E\"; exec \"$z\" \"$@\"; }\n"
	"lone() {\n"
	"  [ -e " KEEPALIVE_PID " ] && true 2>/dev/null <>" KEEPALIVE_USED "\n"
	"  e=\n"
	"  if [ -n \"$1\" ] && ! cd \"$1\" 2>/dev/null &&\n"
	"     ! { mkdir -p \"$1\" && cd \"$1\"; } 2>/dev/null; then e=1\n"
	"  elif [ -n \"$2\" ] && ! cd \"$2\" 2>/dev/null; then e=1\n"
	"  fi\n"
	"  if [ -n \"$e\" ]; then printf '\\036%s:nocwd\\036' \"$t\" >&2; exit 1; fi\n"
	"  printf '\\036%s:ready\\036' \"$t\" >&2\n"
	"  f=$3\n"
	"  " CHECK_READABLE_IN("f", "  ")
	"  echo 'S -'\n"
	"  exec cat -- \"$f\"\n"
	"}\n"
	"z=$(command -v setsid) || { printf '\\036%s:nosetsid\\036' \"$T\"; exit 0; }\n"
	"printf '\\036%s:ok\\036' \"$T\"\n"
	"exec 3<&0\n"
	"frames() {\n"
	"  trap '' PIPE\n"
	"  while IFS= read -r n; do\n"
	"    echo \"$n\" 2>/dev/null\n"
	"    [ \"$n\" = 0 ] && return 0\n"
	"    dd bs=\"$n\" count=1 iflag=fullblock 2>/dev/null\n"
	"  done\n"
	"}\n"
	"while IFS= read -r t; do\n"
	"  IFS= read -r i && IFS= read -r n || exit 0\n"
	"  set --\n"
	"  while [ \"$n\" -gt 0 ]; do\n"
	"    IFS= read -r a || exit 0\n"
	"    case $a in\n"
	"    =*) a=${a#=} ;;\n"
	"    @0) a=$S0 ;; @1) a=$S1 ;; @2) a=$S2 ;; @3) a=$S3 ;; @4) a=$S4 ;;\n"
	"    *) a=$(printf '%bx' \"${a#?}\"); a=${a%x} ;;\n"
	"    esac\n"
	"    set -- \"$@\" \"$a\"; n=$((n - 1))\n"
	"  done\n"
	"  printf '\\036%s:begin\\036' \"$t\"; printf '\\036%s:begin\\036' \"$t\" >&2\n"
	"  k=\n"
	"  if [ \"$i\" = r ]; then\n"
	"    k=proc; lone \"$@\" 3<&- &\n"
	"    printf '\\036%s:proc:%d\\036' \"$t\" \"$!\" >&2\n"
	"    wait \"$!\"; s=$?\n"
	"  elif [ \"$i\" = 1 ]; then { echo \"$t\"; frames <&3; } | run \"$@\" 3<&-; s=$?\n"
	"  else echo \"$t\" | run \"$@\" 3<&-; s=$?\n"
	"  fi\n"
	"  if [ \"$k\" = proc ]; then\n"
	"    printf '\\036%s:done:%d\\036' \"$t\" \"$s\"; printf '\\036%s:done:%d\\036' \"$t\" \"$s\" >&2\n"
	"  fi\n"
	"  printf '\\036%s:end:%d\\036' \"$t\" \"$s\"; printf '\\036%s:end:%d\\036' \"$t\" \"$s\" >&2\n"
	"done\n";

/* ---- background jobs ---- */

/* A job lives in /tmp/.sandbox-jobs/N (0700): start (the host's clock
 * when it began), cmd (one line, as the host showed it), runner ("PID
 * STARTTIME" of the runner), pid (the same of the command, whose process
 * group it leads), exit (its status, once it ended), done (its output
 * all kept), and its output: chunks o.START and e.START, files of at
 * most 1 MiB named by the offset of their first byte in the stream.
 * STARTTIME (field 22 of /proc/PID/stat) tells a process from a later one
 * with its pid: after a restart, a pid means nothing. */
#define JOB_BASE "/tmp/.sandbox-jobs"

/* st PID: s=its start time, or fails. The name in parentheses may hold
 * spaces and parentheses: the fields are those after the last ") ". */
#define JOB_ST                                                                  \
	"st() {\n"                                                              \
	"  s= l=\n"                                                             \
	"  { IFS= read -r l <\"/proc/$1/stat\"; } 2>/dev/null || return 1\n"    \
	"  l=${l##*) }\n"                                                       \
	"  set -- $l\n"                                                         \
	"  [ $# -ge 20 ] || return 1\n"                                         \
	"  shift 19; s=$1\n"                                                    \
	"}\n"

/* state: for the job in $d, x its exit status ("-" while none), a 1 while
 * its runner lives, z 1 once its output is all kept. */
#define JOB_STATE                                                               \
	JOB_ST                                                                  \
	"state() {\n"                                                           \
	"  x=- a=0 z=0 r= q=\n"                                                 \
	"  { read -r x <\"$d/exit\"; } 2>/dev/null\n"                          \
	"  case $x in ''|*[!0-9]*|????*) x=- ;; esac\n"                        \
	"  [ ! -e \"$d/done\" ] || z=1\n"                                       \
	"  { read -r r q <\"$d/runner\"; } 2>/dev/null || return 0\n"          \
	"  case $r in ''|*[!0-9]*) return 0 ;; esac\n"                          \
	"  if st \"$r\" && [ \"$s\" = \"$q\" ]; then a=1; fi\n"                 \
	"}\n"

/* Fractional sleep is not everywhere. */
#define JOB_NAP "sleep 0.2 2>/dev/null || sleep 1\n"

/* sh -c SCRIPT_JOB_START sh RUNNER WRAPPER NOW SHOWN CMD [ARG...], run
 * as a command (PATH, cwd and environment the caller's): makes the job's
 * directory under the next free number and starts RUNNER there, and
 * answers "J N" once the runner said who it is (so that a job is never
 * "lost" for want of it), or "E WHY". The caller's exported variables
 * (`export -p`, bash's read-only ones left out) are kept in the job's
 * file env, to be put back before the command starts: the scripts' own
 * variables must not change the command's environment. (A file, not an
 * argument: an argument is at most 128 KiB, and anyone may read it.)
 * `setsid setsid` starts it without
 * an asynchronous list, which would have it ignore SIGINT and SIGQUIT
 * for good (a shell cannot trap them then): the first setsid leads a
 * new session, so the second one forks, and its parent returns. */
const char SCRIPT_JOB_START[] =
	"[ -z \"${BASH_VERSION-}\" ] || export -n UID EUID PPID BASHOPTS SHELLOPTS 2>/dev/null\n"
	"_sandbox_e=$(export -p)\n"
	"P=${PATH-} Q=${PATH+1}\n"
	SAFE_PATH
	"b=" JOB_BASE "\n"
	"no() { echo \"E $1\"; exit 0; }\n"
	"for t in setsid mkfifo dd stat; do\n"
	"  command -v $t >/dev/null 2>&1 || no \"no$t\"\n"
	"done\n"
	"[ -d \"$b\" ] || mkdir -p -m 700 \"$b\" 2>/dev/null || [ -d \"$b\" ] || no mkdir\n"
	"n=\n"
	"{ read -r n <\"$b/next\"; } 2>/dev/null\n"
	"case $n in ''|0*|*[!0-9]*|?????????*) n=1 ;; esac\n"
	"i=0\n"
	"while [ -e \"$b/$n\" ] || ! mkdir -m 700 \"$b/$n\" 2>/dev/null; do\n"
	"  i=$((i + 1)) n=$((n + 1))\n"
	"  [ $i -lt 100000 ] && [ $n -lt 999999999 ] || no mkdir\n"
	"done\n"
	"d=$b/$n\n"
	"echo $((n + 1)) >\"$b/next\" 2>/dev/null\n"
	"r=$1 w=$2\n"
	"printf '%s\\n' \"$3\" >\"$d/start\" && printf '%s\\n' \"$4\" >\"$d/cmd\" &&\n"
	"  printf '%s\\n' \"$_sandbox_e\" >\"$d/env\" &&\n"
	"  mkfifo \"$d/o.p\" \"$d/e.p\" 2>/dev/null || { rm -rf \"$d\"; no mkdir; }\n"
	"shift 4\n"
	"setsid setsid sh -c \"$r\" sandbox-job \"$d\" \"$w\" \"$P\" \"$Q\" \"$@\" </dev/null >/dev/null 2>&1\n"
	"i=0\n"
	"while ! { read -r p q <\"$d/runner\"; } 2>/dev/null || [ -z \"$q\" ]; do\n"
	"  i=$((i + 1))\n"
	"  [ $i -le 100 ] || no norunner\n"
	"  sleep 0.05 2>/dev/null || sleep 1\n"
	"done\n"
	"echo \"J $n\"\n";

/* The runner: sh -c SCRIPT_JOB_RUN sandbox-job DIR WRAPPER PATH HASPATH
 * CMD..., in a session of its own. Two cappers copy the
 * command's stdout and stderr (FIFOs) into chunks: dd reads at most 16
 * times 64 KiB, appending each read as it comes (the log is live, and
 * nothing is read ahead, as BusyBox's head would), again and again, until
 * the chunk holds a MiB; the next is named by the offset it starts at.
 * The first chunk and those that hold the last MiB are kept: a chunk
 * goes once the next one starts at least a MiB before the end. The
 * command runs in the foreground under setsid, through WRAPPER: its
 * process group is its own, the cappers are not in it (kill stops the
 * command, and its output is still all kept), and its signals are as the
 * caller's were. */
const char SCRIPT_JOB_RUN[] =
	"d=$1 w=$2 P=$3 Q=$4\n"
	"shift 4\n"
	SAFE_PATH
	JOB_ST
	"st $$ || s=0\n"
	"echo \"$$ $s\" >\"$d/runner\"\n"
	"cap() {\n"
	"  c=$1 t=0 s0=0 k=\n"
	"  while :; do\n"
	"    f=$d/$c.$s0\n"
	"    dd bs=65536 count=16 2>/dev/null >>\"$f\" && n=$(stat -c %s \"$f\") ||\n"
	"      exec cat >/dev/null\n"
	"    case $n in ''|*[!0-9]*) n=0 ;; esac\n"
	"    if [ $((s0 + n)) -le $t ]; then\n"
	"      [ \"$n\" != 0 ] || rm -f \"$f\"\n"
	"      return 0\n"
	"    fi\n"
	"    t=$((s0 + n)) g=\n"
	"    if [ $n -ge 1048576 ]; then\n"
	"      [ $s0 = 0 ] || k=\"$k $s0\"\n"
	"      s0=$t\n"
	"    fi\n"
	"    while :; do\n"
	"      set -- $k $s0\n"
	"      [ $# -ge 2 ] && [ \"$2\" -le $((t - 1048576)) ] || break\n"
	"      g=\"$g $d/$c.$1\"\n"
	"      set -- $k; shift; k=$*\n"
	"    done\n"
	"    [ -z \"$g\" ] || rm -f $g\n"
	"  done\n"
	"}\n"
	"cap o <\"$d/o.p\" &\n"
	"j=$!\n"
	"cap e <\"$d/e.p\" &\n"
	"h=$!\n"
	"setsid sh -c \"$w\" sandbox-job \"$d\" \"$P\" \"$Q\" \"$@\" >\"$d/o.p\" 2>\"$d/e.p\"\n"
	"echo $? >\"$d/exit\"\n"
	"wait $j $h\n"
	": >\"$d/done\"\n";

/* The command's wrapper: sh -c SCRIPT_JOB_CMD sandbox-job DIR PATH
 * HASPATH CMD...: says who it is (it leads the job's process group),
 * puts the caller's exported variables (DIR/env) and PATH back, and
 * becomes the command. */
const char SCRIPT_JOB_CMD[] =
	JOB_ST
	"st $$ || s=0\n"
	"echo \"$$ $s\" >\"$1/pid\"\n"
	". \"$1/env\"\n"
	"if [ \"$3\" = 1 ]; then PATH=$2; else unset PATH; fi\n"
	"shift 3\n"
	"exec \"$@\"\n";

/* What is known of job $1: refuses an unknown one. */
#define JOB_DIR                                                                 \
	"d=" JOB_BASE "/$1\n"                                                   \
	"[ -d \"$d\" ] || { echo 'E nojob'; exit 0; }\n"

/* sh -c SCRIPT_JOB_POLL sh ID WAIT UNTIL OFF_O MAX_O OFF_E MAX_E: waits
 * up to WAIT seconds (whole) for the job to end (UNTIL "end"), or for
 * that or output past OFF_O or OFF_E (UNTIL "out", the streams whose MAX
 * is not 0) with its output all kept; then "J EXIT ALIVE DONE" (the
 * state, taken before the output so that no output of an ended job is
 * missed), and for each stream asked for, "S START LEN MORE END" and LEN
 * bytes: from the chunk that holds OFF (or the first after it, when
 * OFF's is gone: START says where the bytes begin), from OFF, and from
 * the chunk right after it, at most MAX bytes; END is the stream's end
 * as seen then (never short of the bytes sent: the chunks grow between
 * one stat and the next), MORE 1 when more follows the bytes. A chunk is held open
 * while it is read: the capper may remove it meanwhile. Only a regular
 * file is read (one that the workspace made a FIFO would never end;
 * swapped in between the check and the open, the call's deadline ends
 * it). */
const char SCRIPT_JOB_POLL[] =
	SAFE_PATH
	JOB_DIR
	JOB_STATE
	"w=$2 u=$3 oo=$4 mo=$5 oe=$6 me=$7\n"
	"case $w$oo$mo$oe$me in *[!0-9]*) echo 'E args'; exit 0 ;; esac\n"
	/* find STREAM OFF: c the start of the chunk that holds OFF, or of
	 * the first after it ("": none), n its size when known; en the end of
	 * the stream (the last chunk's start and size). Its names, and the
	 * other functions', are not state's: the J line comes after them. */
	"find() {\n"
	"  b= c= n= lx= en=0\n"
	"  for f in \"$d/$1\".*; do\n"
	"    t=${f##*.}\n"
	"    case $t in ''|*[!0-9]*|????????????????*) continue ;; esac\n"
	"    if [ $t -le $2 ]; then\n"
	"      if [ -z \"$b\" ] || [ $t -gt $b ]; then b=$t; fi\n"
	"    elif [ -z \"$c\" ] || [ $t -lt $c ]; then c=$t\n"
	"    fi\n"
	"    if [ -z \"$lx\" ] || [ $t -gt $lx ]; then lx=$t; fi\n"
	"  done\n"
	"  [ -n \"$lx\" ] || return 0\n"
	"  en=$(stat -c %s \"$d/$1.$lx\" 2>/dev/null) || en=0\n"
	"  case $en in ''|*[!0-9]*) en=0 ;; esac\n"
	"  en=$((lx + en))\n"
	"  [ -n \"$b\" ] || return 0\n"
	"  n=$(stat -c %s \"$d/$1.$b\" 2>/dev/null) || n=0\n"
	"  case $n in ''|*[!0-9]*) n=0 ;; esac\n"
	"  if [ $((b + n)) -gt $2 ]; then c=$b; else n=; fi\n"
	"}\n"
	"grown() {\n"
	"  find \"$1\" \"$2\"\n"
	"  [ -n \"$c\" ]\n"
	"}\n"
	/* size F: n its size, 0 when it cannot be had */
	"size() {\n"
	"  n=$(stat -c %s \"$1\" 2>/dev/null) || n=0\n"
	"  case $n in ''|*[!0-9]*) n=0 ;; esac\n"
	"}\n"
	/* frame STREAM OFF MAX: from the chunk c (held open as fd 3) and the
	 * one right after it, if it is there (fd 4) */
	"frame() {\n"
	"  o=$2\n"
	"  [ $c -le $o ] || o=$c\n"
	"  l=$((c + n - o)) v=0\n"
	"  [ $l -ge 0 ] || l=0\n"
	"  [ $l -le $3 ] || l=$3\n"
	"  nx=$((c + n))\n"
	"  if [ $l -lt $3 ] && [ $((o + l)) = $nx ] && [ -f \"$d/$1.$nx\" ]; then\n"
	"    {\n"
	"      size \"$d/$1.$nx\"\n"
	"      [ $n -le $(($3 - l)) ] || n=$(($3 - l))\n"
	"      [ $((o + l + n)) -le $en ] || en=$((o + l + n))\n"
	"      m=0; [ $((o + l + n)) -ge $en ] || m=1\n"
	"      echo \"S $o $((l + n)) $m $en\"\n"
	"      [ $l = 0 ] || tail -c +$((o - c + 1)) <&3 | head -c $l\n"
	"      [ $n = 0 ] || head -c $n <&4\n"
	"      v=1\n"
	"    } 4<\"$d/$1.$nx\"\n"
	"  fi\n"
	"  [ $v = 0 ] || return 0\n"
	"  [ $((o + l)) -le $en ] || en=$((o + l))\n"
	"  m=0; [ $((o + l)) -ge $en ] || m=1\n"
	"  echo \"S $o $l $m $en\"\n"
	"  [ $l = 0 ] || tail -c +$((o - c + 1)) <&3 | head -c $l\n"
	"}\n"
	/* emit STREAM OFF MAX; a chunk that went between find and its open
	 * (the capper dropped it) is looked for again */
	"emit() {\n"
	"  i=0 r=0\n"
	"  while [ $r = 0 ] && [ $i -lt 3 ]; do\n"
	"    find \"$1\" \"$2\"\n"
	"    [ -n \"$c\" ] || break\n"
	"    [ -f \"$d/$1.$c\" ] || { i=$((i + 1)); continue; }\n"
	"    {\n"
	"      [ -n \"$n\" ] || size \"$d/$1.$c\"\n"
	"      frame \"$1\" \"$2\" \"$3\"\n"
	"      r=1\n"
	"    } 3<\"$d/$1.$c\" 2>/dev/null\n"
	"    i=$((i + 1))\n"
	"  done\n"
	"  [ $r = 1 ] && return 0\n"
	"  m=0; [ $2 -ge $en ] || m=1\n"
	"  echo \"S $2 0 $m $en\"\n"
	"}\n"
	"i=0\n"
	"while :; do\n"
	"  state\n"
	"  [ $a = 1 ] || break\n"
	"  if [ \"$x\" != - ]; then [ \"$u\" = out ] && [ $z = 0 ] || break; fi\n"
	"  if [ \"$u\" = out ]; then\n"
	"    [ $mo = 0 ] || ! grown o $oo || break\n"
	"    [ $me = 0 ] || ! grown e $oe || break\n"
	"  fi\n"
	"  [ $i -lt $((w * 5)) ] || break\n"
	"  " JOB_NAP
	"  i=$((i + 1))\n"
	"done\n"
	"echo \"J $x $a $z\"\n"
	"[ $mo = 0 ] || emit o $oo $mo\n"
	"[ $me = 0 ] || emit e $oe $me\n";

/* sh -c SCRIPT_JOBS sh: "OK", then a line for each job, "N START EXIT
 * ALIVE DONE CMD", in no order. */
const char SCRIPT_JOBS[] =
	SAFE_PATH
	JOB_STATE
	"echo OK\n"
	"for d in " JOB_BASE "/*; do\n"
	"  n=${d##*/}\n"
	"  case $n in ''|*[!0-9]*) continue ;; esac\n"
	"  state\n"
	"  t= c=\n"
	"  { read -r t <\"$d/start\"; } 2>/dev/null\n"
	"  { IFS= read -r c <\"$d/cmd\"; } 2>/dev/null\n"
	"  printf '%s %s %s %s %s %s\\n' \"$n\" \"${t:--}\" \"$x\" $a $z \"$c\"\n"
	"done\n";

/* sh -c SCRIPT_JOB_KILL sh ID SIG: SIG (a number) to the job's process
 * group, once; with SIG empty, TERM, and KILL when it is still there a
 * second later. Only a group that is the job's: its leader has the
 * start time it had, or is gone while the job's runner lives (after a
 * restart, a pid of the job's means another process; pid 1 is never
 * one). Answers "K sent", "K gone" (none of it is left), "K
 * ended" (it had ended, and nothing of it was left) or "K alive", then the job's state as SCRIPT_JOB_POLL says it, once the
 * runner saw it end (a second at most). */
const char SCRIPT_JOB_KILL[] =
	SAFE_PATH
	JOB_DIR
	JOB_STATE
	"g=$2\n"
	"case $g in *[!0-9]*) echo 'E args'; exit 0 ;; esac\n"
	"p= q= i=0\n"
	"while ! { read -r p q <\"$d/pid\"; } 2>/dev/null; do\n"
	"  state\n"
	"  [ $a = 1 ] && [ $i -lt 10 ] || break\n"
	"  " JOB_NAP
	"  i=$((i + 1))\n"
	"done\n"
	"case $p in ''|0*|1|*[!0-9]*|??????????*) p= ;; esac\n"
	"u=$q\n"
	"state\n"
	"if [ -z \"$p\" ]; then :\n"
	"elif [ -e \"/proc/$p\" ]; then\n"
	"  { st \"$p\" && [ \"$s\" = \"$u\" ]; } || p=\n"
	"elif [ $a = 0 ]; then p=\n"
	"fi\n"
	"w() {\n"
	"  i=0\n"
	"  while [ $i -lt 5 ] && kill -0 -\"$p\" 2>/dev/null; do\n"
	"    " JOB_NAP
	"    i=$((i + 1))\n"
	"  done\n"
	"}\n"
	"if [ -z \"$p\" ] || ! kill -0 -\"$p\" 2>/dev/null; then\n"
	"  k=gone; state; [ \"$x\" = - ] || k=ended\n"
	"elif [ -n \"$g\" ]; then\n"
	"  if kill -\"$g\" -\"$p\" 2>/dev/null; then k=sent; else k=gone; fi\n"
	"else\n"
	"  kill -15 -\"$p\" 2>/dev/null; w\n"
	"  kill -9 -\"$p\" 2>/dev/null && w\n"
	"  if kill -0 -\"$p\" 2>/dev/null; then k=alive; else k=gone; fi\n"
	"fi\n"
	"i=0\n"
	"while state; [ \"$x\" = - ] && [ $a = 1 ] && [ $k = gone ] && [ $i -lt 5 ]; do\n"
	"  " JOB_NAP
	"  i=$((i + 1))\n"
	"done\n"
	"echo \"K $k\"\n"
	"echo \"J $x $a $z\"\n";
/* tar's status goes to stderr: a pipe into dd (which gathers tar's small
 * writes, as in SCRIPT_TAR) would lose it. */
const char SCRIPT_CP_OUT[] =
	SAFE_PATH
	"p=$1 m=$2\n"
	"if [ ! -e \"$p\" ] && [ ! -L \"$p\" ]; then echo 'E notfound'; exit 0; fi\n"
	"if [ \"$m\" = c ]; then\n"
	"  [ -d \"$p\" ] || { echo 'E notdir'; exit 0; }\n"
	"  cd \"$p\" 2>/dev/null || { echo 'E denied'; exit 0; }\n"
	"  k=D; set -- .\n"
	"else\n"
	"  case $p in */*) d=${p%/*}; d=${d:-/}; b=${p##*/} ;; *) d=. b=$p ;; esac\n"
	"  if [ -L \"$p\" ]; then k=L; elif [ -d \"$p\" ]; then k=D; elif [ -f \"$p\" ]; then k=F\n"
	"  else echo 'E notfile'; exit 0; fi\n"
	"  cd \"$d\" 2>/dev/null || { echo 'E denied'; exit 0; }\n"
	"  set -- \"./$b\"\n"
	"fi\n"
	"echo \"OK $k\"\n"
	TAR_LITERAL
	"{ tar -cf - ${q:+\"$q\"} \"$@\" 2>/dev/null; echo \"tar:$?\" >&2; } | dd bs=65536 iflag=fullblock 2>/dev/null\n"
	"exit 0\n";

/* KIND s is c into a new workspace's workdir (create --copy), where
 * nothing has run yet: when it is empty, it is replaced by the stream's
 * tree in one rename rather than merged file by file.
 * A merge checks every incoming name against what is there: a link
 * where a directory comes is refused (the files would go through it); a
 * link where a file comes is removed first (cp would write through it);
 * a directory and a file never replace each other. Then cp -a. The first
 * refusal is named, its control characters as '?'. */
const char SCRIPT_CP_IN[] =
	SAFE_PATH
	"D=$1 k=$2 b=$3 s=$4 t= z=\n"
	"if [ \"$k\" = s ]; then k=c z=1; fi\n"
	"no() { [ -z \"$t\" ] || rm -rf \"$t\"; echo \"E $1\"; cat >/dev/null 2>&1; exit 0; }\n"
	"if [ -d \"$D\" ]; then\n"
	"  if [ \"$k\" = c ]; then f=$D; else f=${D%/}/$b; fi\n"
	"else\n"
	"  case $D in */) no notfound ;; esac\n"
	"  if [ \"$k\" != f ] && { [ -e \"$D\" ] || [ -L \"$D\" ]; }; then no notdir; fi\n"
	"  f=$D\n"
	"fi\n"
	"case $f in */*) p=${f%/*}; p=${p:-/} ;; *) p=. ;; esac\n"
	"[ -d \"$p\" ] || no notfound\n"
	"t=$p/.sandbox-cp-$s\n"
	"mkdir \"$t\" 2>/dev/null || { t=; no denied; }\n"
	"tar -xf - -C \"$t\" 2>/dev/null || [ -z \"$z\" ] || no input\n"
	"[ -f \"$t/end\" ] || no input\n"
	"if [ -f \"$t/times\" ]; then\n"
	"  (cd \"$t\" && xargs -0 sh -c 'for r; do touch -d \"@${r%% *}\" \"${r#* }\"; done' sh <times)\n"
	"fi\n"
	"if [ \"$k\" = f ]; then\n"
	"  if [ -d \"$f\" ] && [ ! -L \"$f\" ]; then no isdir; fi\n"
	"  if [ -L \"$f\" ]; then rm -f \"$f\"; fi\n"
	"  mv -f \"$t/x\" \"$f\" 2>/dev/null || no rename\n"
	"elif [ ! -e \"$f\" ] && [ ! -L \"$f\" ]; then\n"
	"  mv \"$t/x\" \"$f\" 2>/dev/null || no rename\n"
	"elif [ -n \"$z\" ] && [ -d \"$f\" ] && [ ! -L \"$f\" ] && rmdir \"$f\" 2>/dev/null; then\n"
	"  mv \"$t/x\" \"$f\" 2>/dev/null || { mkdir \"$f\"; no rename; }\n"
	"else\n"
	"  [ -d \"$f\" ] || no notdir\n"
	"  case $f in /*) ;; *) f=$PWD/$f ;; esac\n"
	"  r=$(cd \"$t/x\" && find . ! -name . -exec sh -c '\n"
	"    g=$1; shift\n"
	"    for e; do\n"
	"      if [ -d \"$e\" ] && [ ! -L \"$e\" ]; then\n"
	"        if [ -L \"$g/$e\" ]; then w=inlink\n"
	"        elif [ -e \"$g/$e\" ] && [ ! -d \"$g/$e\" ]; then w=notdir\n"
	"        else continue; fi\n"
	"      elif [ -L \"$g/$e\" ]; then rm -f \"$g/$e\"; continue\n"
	"      elif [ -d \"$g/$e\" ]; then w=isdir\n"
	"      else continue; fi\n"
	"      printf \"%s %s\" \"$w\" \"${e#./}\" | tr \"\\\\n\\\\r\" \"??\"; echo; exit 0\n"
	"    done' sh \"$f\" {} + | head -n 1)\n"
	"  [ -z \"$r\" ] || no \"$r\"\n"
	"  cp -a \"$t/x/.\" \"$f/\" 2>/dev/null || no copy\n"
	"fi\n"
	"rm -rf \"$t\"\n"
	"echo OK\n";

/* The names to prune become find's ( -name A -o -name B ) -prune -o. */
const char SCRIPT_MANIFEST[] =
	SAFE_PATH
	"cd \"$1\" 2>/dev/null || { echo 'E denied'; exit 0; }\n"
	"shift; n=$#\n"
	"for p; do\n"
	"  if [ $n -eq $# ]; then set -- \"$@\" '('; else set -- \"$@\" -o; fi\n"
	"  set -- \"$@\" -name \"$p\"\n"
	"done\n"
	"if [ $n -gt 0 ]; then set -- \"$@\" ')' -prune -o; fi\n"
	"shift $n\n"
	"echo OK\n"
	"find . -mindepth 1 \"$@\" -print0 2>/dev/null\n"
	"printf '\\000'\n"
	"find . -mindepth 1 \"$@\" -print0 2>/dev/null | xargs -0 -r stat -c '%f %s %n' 2>/dev/null\n"
	"echo --\n"
	"find . -mindepth 1 \"$@\" -type f -print0 2>/dev/null | xargs -0 -r sha256sum 2>/dev/null\n"
	"exit 0\n";

const char SCRIPT_PACK[] =
	SAFE_PATH
	"cd \"$1\" 2>/dev/null || { echo 'E denied'; cat >/dev/null; exit 0; }\n"
	"echo OK\n"
	TAR_LITERAL
	"xargs -0 -r tar -cf - ${q:+\"$q\"} --no-recursion 2>/dev/null | dd bs=65536 iflag=fullblock 2>/dev/null\n"
	"exit 0\n";
