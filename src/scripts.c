/* scripts.c: see scripts.h. */
#include "scripts.h"

const char SCRIPT_KEEPALIVE[] =
	"trap 'exit 0' TERM INT HUP\n"
	"while :; do sleep 3600 & wait $!; done\n";

/* The command runs in a subshell, so that a special builtin (`exit 3`,
 * `cd`) acts there and the wrapper always reaches its done marker.
 * `docker exec` makes the wrapper a process-group leader; its children
 * stay in that group unless they call setsid. */
const char SCRIPT_EXEC[] =
	"t=$1 w=$2 d=$3\n"
	"shift 3\n"
	"p=/tmp/.sandbox-exec-$t\n"
	"{ echo $$ >\"$p.pid\"; } 2>/dev/null\n"
	"if [ -e \"$p.stop\" ]; then rm -f \"$p.pid\" \"$p.stop\"; exit 124; fi\n"
	"e=\n"
	"if [ -n \"$w\" ] && ! cd \"$w\" 2>/dev/null &&\n"
	"   ! { mkdir -p \"$w\" && cd \"$w\"; } 2>/dev/null; then e=1\n"
	"elif [ -n \"$d\" ] && ! cd \"$d\" 2>/dev/null; then e=1\n"
	"fi\n"
	"if [ -n \"$e\" ]; then\n"
	"  rm -f \"$p.pid\"; printf '\\036%s:nocwd\\036' \"$t\" >&2; exit 1\n"
	"fi\n"
	"printf '\\036%s:ready\\036' \"$t\" >&2\n"
	"(\"$@\")\n"
	"s=$?\n"
	"rm -f \"$p.pid\"\n"
	"printf '\\036%s:done:%d\\036' \"$t\" \"$s\"\n"
	"printf '\\036%s:done:%d\\036' \"$t\" \"$s\" >&2\n"
	"exit \"$s\"\n";

/* BusyBox's kill takes no `--`: a negative pid goes right after the
 * signal. Fractional sleep is not everywhere, hence the fallback. When
 * /tmp could not hold the pid file (a read-only root), the wrapper is
 * found by its arguments, "sh TAG ...", in /proc; this script runs as
 * $0 = sandbox-kill so that it never finds itself. Not `: >file`: a
 * redirection error on a special builtin would end the script. */
const char SCRIPT_KILL[] =
	"p=/tmp/.sandbox-exec-$1 g=\n"
	"{ true >\"$p.stop\"; } 2>/dev/null\n"
	"{ read -r g <\"$p.pid\"; } 2>/dev/null\n"
	"if [ -z \"$g\" ]; then\n"
	"  for f in /proc/[0-9]*/cmdline; do\n"
	"    case $(tr '\\000' ' ' <\"$f\" 2>/dev/null) in\n"
	"    *\" sh $1 \"*) g=${f#/proc/}; g=${g%/cmdline}; break ;;\n"
	"    esac\n"
	"  done\n"
	"fi\n"
	"if [ -n \"$g\" ]; then\n"
	"  kill -15 -\"$g\" 2>/dev/null\n"
	"  i=0\n"
	"  while [ $i -lt 10 ] && kill -0 -\"$g\" 2>/dev/null; do\n"
	"    sleep 0.1 2>/dev/null || sleep 1; i=$((i+1))\n"
	"  done\n"
	"  kill -9 -\"$g\" 2>/dev/null\n"
	"  rm -f \"$p.pid\" \"$p.stop\"\n"
	"fi\n"
	"exit 0\n";
