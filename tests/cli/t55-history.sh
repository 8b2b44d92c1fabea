#!/bin/bash
# The history of calls and the secrets (man sandbox, CALL HISTORY and
# SECRETS): every kind of call leaves one record, from the command line
# and from an MCP client by its name, that the workspace cannot forge nor
# reach; history shows it as a table, --json, --since and --follow, and
# it outlives the workspace until --prune. A secret reaches the command's
# environment and no argument vector; every output has it replaced,
# whole, split across writes, in base64, inside 10 MB; a secret that
# cannot be read starts nothing.
. "$(dirname "$0")/../lib.sh"
image_independent
need_engine
need_peak_rss

CLIENT=$TEST_LIB_DIR/mcp-client
HIST=$XDG_STATE_HOME/sandbox/history

# The secrets: one from the environment, one from a file; the config
# names them, never their values.
export TOKEN_SRC=tok-9f8e7d6c5b4a3210
printf '%s\n' 'file-s3cret-Zq81xW' >secret.txt
printf '[secrets]\nTOKEN = env:TOKEN_SRC\nFILED = file:%s\n' "$TRASH/secret.txt" >secrets.ini

# sbs ARGS: sb with the secrets' config.
sbs() { SANDBOX_CONFIG=$TRASH/secrets.ini sb "$@"; }
# no_secret FILE: neither value, nor its base64, is anywhere in FILE.
no_secret() {
	no_grep_file -e tok-9f8e7d6c5b4a3210 -e file-s3cret-Zq81xW \
		-e "$(printf %s tok-9f8e7d6c5b4a3210 | base64 | cut -c1-16)" "$1"
}
# records REF: REF's history, one record a line, in recs.
records() { sb history "$1" --json >recs; }
# record_of COMMAND: the first record of COMMAND in recs, in rec.
record_of() { grep -m1 "\"command\":\"$1\"" recs >rec; }

test_expect_success 'setup: a workspace' '
	new_ws REF &&
	test -n "$REF"
'

test_expect_success 'the command gets the secrets in its environment; the output has their names' '
	sbs -w "$REF" exec -- sh -c "echo \"t=\$TOKEN f=\$FILED\"" >out &&
	cmp_text "t=[secret TOKEN] f=[secret FILED]" out
'

test_expect_success 'the value is the secret: the command sees it whole' '
	sbs -w "$REF" exec -- sh -c "test \"\$TOKEN\" = tok-9f8e7d6c5b4a3210 && test \"\$FILED\" = file-s3cret-Zq81xW && echo same" >out &&
	cmp_text same out
'

test_expect_success 'split across two writes, it is still replaced' '
	sbs -w "$REF" exec -- sh -c "printf %s \"\${TOKEN%????????}\"; printf \"%s\\n\" \"\${TOKEN#????????????}\"" >out &&
	cmp_text "[secret TOKEN]" out
'

test_expect_success 'split across two reads (the second written once the first is gone), too' '
	sbs -w "$REF" exec -- rm -f /tmp/go /tmp/half &&
	{ sbs -w "$REF" exec -- sh -c "printf %s \"\${TOKEN%????????}\"; : >/tmp/half; while [ ! -e /tmp/go ]; do sleep 0.05; done; printf \"%s\\n\" \"\${TOKEN#????????????}\"" >out & } &&
	pid=$! &&
	wait_until 60 sbs -w "$REF" exec -- test -e /tmp/half &&
	sbs -w "$REF" exec -- touch /tmp/go &&
	wait_exit 60 $pid &&
	cmp_text "[secret TOKEN]" out
'

test_expect_success 'its base64, at every alignment, is replaced' '
	sbs -w "$REF" exec -- sh -c "for p in \"\" x xy; do printf %s%s \"\$p\" \"\$TOKEN\" | base64; done" >out &&
	no_secret out &&
	test "$(grep -c "\[secret TOKEN\]" out)" = 3
'

test_expect_success 'inside 10 MB of output, live: replaced, and the memory bounded' '
	peak_kib peak sbs -w "$REF" exec -- sh -c "head -c 5000000 /dev/zero | tr \"\\000\" a; echo \$TOKEN; head -c 5000000 /dev/zero | tr \"\\000\" b" >big &&
	no_secret big &&
	test "$(grep -c "\[secret TOKEN\]" big)" = 1 &&
	test "$(wc -c <big)" = $((10000000 + 15)) &&
	below_kib peak 32768
'

test_expect_success '--json, stderr and a job log have them replaced too' '
	sbs --json -w "$REF" exec -- sh -c "echo \$TOKEN; echo \$FILED >&2" >out.json &&
	no_secret out.json &&
	json_check out.json "d[\"stdout\"] == \"[secret TOKEN]\\n\" and d[\"stderr\"] == \"[secret FILED]\\n\"" &&
	sbs -w "$REF" exec --background -- sh -c "echo job \$TOKEN" >job &&
	job=$(cat job) &&
	sbs -w "$REF" wait "$job" >/dev/null &&
	sbs -w "$REF" logs "$job" >log &&
	cmp_text "job [secret TOKEN]" log
'

test_expect_success 'a file of the workspace that holds one is read with it replaced' '
	sbs -w "$REF" exec -- sh -c "echo \$FILED >/tmp/leak" &&
	sbs -w "$REF" read --raw /tmp/leak >out &&
	cmp_text "[secret FILED]" out
'

test_expect_success 'no argument vector holds a value: not the engine call (-v), not the engine exec of its own' '
	SANDBOX_KEEP=no sbs -v -w "$REF" exec -- sh -c "echo \$TOKEN" >out 2>err &&
	cmp_text "[secret TOKEN]" out &&
	grep_file -e "--env=TOKEN " err &&
	no_secret err
'

test_expect_success 'while a command with secrets runs, no process of this machine holds one on its command line' '
	printf "%s\n" tok-9f8e7d6c5b4a3210 file-s3cret-Zq81xW >values &&
	sbs -w "$REF" exec -- rm -f /tmp/up /tmp/go2 &&
	{ sbs -w "$REF" exec -- sh -c "touch /tmp/up; while [ ! -e /tmp/go2 ]; do sleep 0.05; done; echo \$TOKEN" >out & } &&
	pid=$! &&
	wait_until 60 sb -w "$REF" exec -- test -e /tmp/up &&
	{ grep -F -l -a -f values /proc/[0-9]*/cmdline 2>/dev/null >held || true; } &&
	sb -w "$REF" exec -- touch /tmp/go2 &&
	wait_exit 60 $pid &&
	cmp_text "[secret TOKEN]" out &&
	must_be_empty held
'

test_expect_success 'the engine takes each by name from its environment (fake engine)' '
	fake_engine docker &&
	SANDBOX_CONFIG=$TRASH/secrets.ini SANDBOX_KEEP=no "$SANDBOX" --engine "$FAKE" -w fake exec -- true >/dev/null 2>&1
	n=$(fake_calls | grep -n "^exec" | head -1 | cut -d: -f1) &&
	test -n "$n" &&
	fake_argv "$n" >argv &&
	grep_file -x -e "--env=TOKEN" argv &&
	grep_file -x -e "--env=FILED" argv &&
	no_secret argv &&
	fake_env "$n" >env &&
	grep_file -x "TOKEN=tok-9f8e7d6c5b4a3210" env &&
	grep_file -x "FILED=file-s3cret-Zq81xW" env
'

test_expect_success 'a secret that cannot be read: a clear error, nothing started' '
	printf "[secrets]\nGONE = file:%s\n" "$TRASH/missing" >bad.ini &&
	before=$(our_workspaces | wc -l) &&
	expect_status 2 env SANDBOX_CONFIG=$TRASH/bad.ini "$SANDBOX" --engine "$ENGINE" run -- true 2>err &&
	grep_file "^sandbox: run: secret GONE: cannot read $TRASH/missing: No such file or directory" err &&
	test "$(our_workspaces | wc -l)" = "$before" &&
	mkdir -p adir &&
	expect_status 2 sb -w "$REF" exec --secret "D=file:$TRASH/adir" -- true 2>err &&
	grep_file "secret D: $TRASH/adir is not a regular file" err &&
	printf "[secrets]\nSHORT = env:SHORT_SRC\n" >short.ini &&
	SHORT_SRC=abc expect_status 2 env SANDBOX_CONFIG=$TRASH/short.ini "$SANDBOX" --engine "$ENGINE" -w "$REF" exec -- true 2>err &&
	grep_file "secret SHORT: 3 bytes; a secret must have 8" err &&
	expect_status 2 sb -w "$REF" exec --secret NOT_SET_ANYWHERE -- true 2>err &&
	grep_file "secret NOT_SET_ANYWHERE: the variable NOT_SET_ANYWHERE is not set" err &&
	printf "[secrets]\nLIT = hunter2hunter2\n" >lit.ini &&
	expect_status 2 env SANDBOX_CONFIG=$TRASH/lit.ini "$SANDBOX" --engine "$ENGINE" list 2>err &&
	grep_file "expected env:VARIABLE or file:PATH" err
'

test_expect_success 'an MCP client cannot name one, and its results have them replaced' '
	printf "%s\n" init "call 1 exec {\"command\":\"echo \$TOKEN\"}" "<" \
		"call 2 exec {\"command\":\"echo \$TOKEN\",\"env\":{\"TOKEN\":\"mine\"}}" "<" \
		"> {\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\"}" "<" close |
		SANDBOX_CONFIG=$TRASH/secrets.ini python3 "$CLIENT" "$SANDBOX" --engine "$ENGINE" -w "$REF" mcp >mcp.out 2>mcp.err &&
	no_secret mcp.out &&
	sed -n 2p mcp.out >a1 && json_check a1 "\"[secret TOKEN]\" in d[\"result\"][\"content\"][0][\"text\"]" &&
	sed -n 3p mcp.out >a2 && json_check a2 "\"[secret TOKEN]\" in d[\"result\"][\"content\"][0][\"text\"]" &&
	sed -n 4p mcp.out >tools && json_check tools "all(\"secret\" not in json.dumps(t[\"inputSchema\"]) and t[\"name\"] != \"history\" for t in d[\"result\"][\"tools\"])" 2>/dev/null ||
	{ sed -n 4p mcp.out >tools && python3 -c "import json,sys; d=json.load(open(\"tools\")); sys.exit(any(\"secret\" in json.dumps(t[\"inputSchema\"]) or t[\"name\"]==\"history\" for t in d[\"result\"][\"tools\"]))"; }
'

test_expect_success 'every kind of call leaves its record: time, who, what, how it ended, bytes' '
	mkdir -p proj && echo one >proj/a.txt &&
	new_ws CP --copy "$TRASH/proj" --name "$(new_name cp)" &&
	sb -w "$CP" exec -- sh -c "echo two >a.txt" &&
	sb -w "$CP" read a.txt >/dev/null &&
	sb -w "$CP" write b.txt --content hello >/dev/null &&
	sb -w "$CP" edit b.txt --old hello --new bye >/dev/null &&
	sb -w "$CP" glob "*.txt" >/dev/null &&
	sb -w "$CP" grep bye >/dev/null &&
	sb -w "$CP" exec --timeout 1 -- sleep 30 2>/dev/null; test $? = 124 &&
	sb -w "$CP" exec --background -- sleep 60 >job &&
	sb -w "$CP" jobs >/dev/null &&
	sb -w "$CP" kill "$(cat job)" >/dev/null &&
	sb -w "$CP" cp "$CP:/workspace/b.txt" got.txt &&
	sb -w "$CP" diff >/dev/null; test $? = 1 &&
	sb -w "$CP" apply >/dev/null &&
	sb snapshot "$CP" --name "$PFX-snap" >/dev/null &&
	sb fork "$CP" --name "$(new_name fork)" >forked &&
	sb destroy "$(cat forked)" >/dev/null &&
	sb destroy --snapshot "$PFX-snap" >/dev/null &&
	printf "%s\n" init "call 1 read {\"path\":\"b.txt\"}" "<" close |
		python3 "$CLIENT" "$SANDBOX" --engine "$ENGINE" -w "$CP" mcp >mcp.out 2>mcp.err &&
	records "$CP" &&
	for c in create exec read write edit glob grep jobs kill cp diff apply snapshot fork; do
		grep -q "\"command\":\"$c\"" recs || { echo "no record of $c" >&4; return 1; }
	done &&
	record_of write && json_check rec "d[\"via\"] == \"cli\" and d[\"ok\"] and d[\"bytes_in\"] == 5 and d[\"argv\"][-3:] == [\"b.txt\", \"--content\", \"hello\"] and \"user\" in d and d[\"uid\"] == $(id -u) and d[\"time\"].endswith(\"Z\") and d[\"duration_ms\"] >= 0 and d[\"workspace\"] == \"$CP\"" &&
	grep "\"exit_code\":124" recs >rec && json_check rec "d[\"timed_out\"] is True and d[\"command\"] == \"exec\"" &&
	grep "\"via\":\"mcp\"" recs >rec && json_check rec "d[\"client\"] == \"mcp-client\" and d[\"command\"] == \"read\" and d[\"arguments\"] == {\"path\": \"b.txt\"} and d[\"bytes_out\"] > 0" &&
	grep -c . recs >n && test "$(cat n)" -ge 15
'

test_expect_success 'history shows a table; --since leaves the old out' '
	sb history "$CP" >table &&
	head -n 1 table >head && grep_file "^TIME  *WORKSPACE  *VIA  *COMMAND  *OUTCOME  *DURATION  *ASKED" head &&
	grep_file " timeout " table &&
	grep_file "mcp:mcp-client  *read " table &&
	records "$CP" &&
	sb history "$CP" --since 1h --json >recent &&
	line_count "$(wc -l <recs)" recent &&
	python3 -c "
import json
rows = [json.loads(l) for l in open(\"recs\")]
old = dict(rows[0]); old[\"time\"] = \"2001-01-01T00:00:00.000Z\"
print(json.dumps(old))" >"$HIST/$CP.jsonl.1" &&
	sb history "$CP" --json >all &&
	line_count $(( $(wc -l <recs) + 1 )) all &&
	sb history "$CP" --since 1d --json >recent &&
	line_count "$(wc -l <recs)" recent
'

test_expect_success '--follow shows a call as it is made' '
	{ sb history "$CP" --follow --json >follow & } &&
	pid=$! &&
	sb -w "$CP" exec -- echo followed >/dev/null &&
	wait_until 60 grep -q "\"followed\"" follow &&
	kill -TERM $pid && wait_exit 30 $pid; true
'

test_expect_success 'a hostile workspace writes forged records wherever it can: none appears' '
	mkdir -p shared &&
	new_ws HOST --mount "$TRASH/shared:/shared" &&
	forged="{\"time\":\"2030-01-01T00:00:00.000Z\",\"workspace\":\"$HOST\",\"via\":\"cli\",\"command\":\"forged\"}" &&
	sb -w "$HOST" exec -- sh -c "for d in / /tmp /workspace /shared /root /var /run /dev/shm; do for f in \$d/*.jsonl \$d/.local/state/sandbox/history/$HOST.jsonl; do mkdir -p \"\${f%/*}\" 2>/dev/null; echo \"\$1\" >>\"\$f\" 2>/dev/null; done; done; printf \"\\n%s\\n\" \"\$1\"; printf \"%s\\n\" \"\$1\" >&2" sh "$forged" >out 2>&1 &&
	grep_file forged out &&
	records "$HOST" &&
	no_grep_file "\"command\":\"forged\"" recs &&
	test "$(wc -l <recs)" = 2 &&
	python3 -c "import json; [json.loads(l) for l in open(\"recs\")]"
'

test_expect_success 'the history outlives its workspace, until --prune' '
	sb destroy "$HOST" >/dev/null &&
	records "$HOST" &&
	grep_file "\"command\":\"destroy\"" recs &&
	sb history --prune >out &&
	grep_file "^removed the history of [1-9][0-9]* workspace" out &&
	test ! -e "$HIST/$HOST.jsonl" &&
	test -e "$HIST/$CP.jsonl"
'

test_expect_success 'history = no keeps none; a name that is not a workspace is refused' '
	printf "[sandbox]\nhistory = no\n" >off.ini &&
	before=$(wc -l <"$HIST/$CP.jsonl") &&
	SANDBOX_CONFIG=$TRASH/off.ini sb -w "$CP" exec -- true &&
	test "$(wc -l <"$HIST/$CP.jsonl")" = "$before" &&
	expect_status 2 sb history "../etc" 2>err &&
	grep_file "is not a workspace.s name" err
'

test_expect_success 'cleanup' '
	sb destroy "$REF" "$CP" >/dev/null
'

test_done
