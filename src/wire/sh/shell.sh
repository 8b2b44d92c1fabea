# shell.sh: SCRIPT_SHELL, the shell of `sandbox shell`.
if [ -x /bin/bash ]; then exec /bin/bash; fi
exec /bin/sh
