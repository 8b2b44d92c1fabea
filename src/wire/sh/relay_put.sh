# relay_put.sh: SCRIPT_RELAY_PUT, sandbox-relay of build ID into the
# workspace: its SIZE bytes from stdin into a temporary name, then
# renamed to RELAY_DIR's .sandbox-relay-ID, mode 0555. Answers "K", or
# "E put" (nothing left behind). Arguments: ID SIZE.
#. _safe_path.sh
p=@RELAY_DIR@/.sandbox-relay-$1
t=$p.$$
rm -f "$t"
if cat >"$t" && n=$(wc -c <"$t") && [ $((n)) -eq "$2" ] && chmod 0555 "$t" && mv -f "$t" "$p"; then
  echo K
else
  rm -f "$t"
  echo 'E put'
fi
