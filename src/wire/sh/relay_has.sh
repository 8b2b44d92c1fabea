# relay_has.sh: SCRIPT_RELAY_HAS, whether sandbox-relay of build ID
# (relay_bin.h) is in the workspace: "K ARCH" when RELAY_DIR's
# .sandbox-relay-ID is an executable regular file, else "N ARCH"; ARCH
# as uname -m says it. Argument: ID.
#. _safe_path.sh
p=@RELAY_DIR@/.sandbox-relay-$1
m=$(uname -m 2>/dev/null) || m=unknown
if [ -f "$p" ] && [ ! -L "$p" ] && [ -x "$p" ]; then echo "K $m"; else echo "N $m"; fi
