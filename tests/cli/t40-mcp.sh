#!/bin/bash
# sandbox mcp, driven with hand-written JSON-RPC lines (tests/mcp-client):
# version negotiation, the JSON-RPC errors (and serving on after them),
# the workspace's life (lazy, -w, kept at the end of input, --rm, a
# signal), the channel (a timeout kills in the container and the channel
# goes on; a dead channel is opened again; an image without setsid), and
# values that would break shell text. tests/cli/t41-mcp-sdk.sh drives the
# same server with the official TypeScript client.
. "$(dirname "$0")/../lib.sh"
pairwise
need_engine
need_peak_rss

CLIENT=$(cd "$(dirname "$0")/.." && pwd)/mcp-client

# In -v's lines: an engine exec that starts the channel's server, or the
# exec wrapper, known by the first line of its script.
OPEN_SERVER='exec --interactive -- [^ ]* /bin/sh -c .E=[$][(]unset -v PWD;'
OPEN_WRAPPER='exec --interactive -- [^ ]* /bin/sh -c .[[] -z .[$][{]t+1[}]'

# mcp OUT ARGS...: runs "sandbox mcp ARGS" with the steps on stdin (see
# tests/mcp-client); its answers in OUT, its stderr in OUT.err.
mcp() {
	local out=$1
	shift
	python3 "$CLIENT" "$SANDBOX" --engine "$ENGINE" mcp "$@" >"$out" 2>"$out.err"
}

# answer OUT N EXPR: line N of OUT is one JSON value for which the Python
# expression EXPR (over d) holds. If not, OUT's lines (cut) and the end of
# OUT.err show what happened.
answer() {
	sed -n "$2p" "$1" >"$1.$2" &&
	json_check "$1.$2" "$3" || {
		echo "--- $1 (each line cut at 300 bytes):" >&4
		cut -c1-300 "$1" >&4
		echo "--- the end of $1.err:" >&4
		tail -n 20 "$1.err" >&4
		return 1
	}
}

# text_of OUT N: the text content of the tools/call answer on line N.
text_of() {
	sed -n "$2p" "$1" | python3 -c 'import json,sys; sys.stdout.write(json.load(sys.stdin)["result"]["content"][0]["text"])'
}

# Shell text that kills the channel's server (its $0 is sandbox-chan).
KILL_CHAN='s=$(printf "\001"); for p in /proc/[0-9]*; do
	case $(tr "\000" "\001" <$p/cmdline 2>/dev/null) in *"${s}sandbox-chan$s"*) kill -9 ${p#/proc/} ;; esac
done; true'

# Shell scripts for a workspace's /tmp, so that a command waits for what
# it waits for, not for a number of seconds. "sh /tmp/gone FILE" waits
# until the process whose pid FILE holds is gone, then says gone (alive
# after some 40 s, nopid without a pid); "sh /tmp/waitfor FILE" waits
# until FILE exists (at most some 30 s; its status says whether it does).
# Their bounds are for a hang: each is under the 60 s tests/mcp-client
# waits for an answer.
GONE='p=$(cat "$1" 2>/dev/null); i=0
[ -n "$p" ] || { echo nopid; exit 0; }
while kill -0 "$p" 2>/dev/null && [ $i -lt 400 ]; do sleep 0.1; i=$((i + 1)); done
if kill -0 "$p" 2>/dev/null; then echo alive; else echo gone; fi'
WAITFOR='i=0
while [ ! -e "$1" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
[ -e "$1" ]'

# put_helpers REF: /tmp/gone and /tmp/waitfor in workspace REF.
put_helpers() {
	printf "%s\n" "$GONE" >gone && sb -w "$1" write /tmp/gone <gone >/dev/null &&
	printf "%s\n" "$WAITFOR" >waitfor && sb -w "$1" write /tmp/waitfor <waitfor >/dev/null
}

# replace_ws NAME: removes the workspace NAME and makes a new one so named.
replace_ws() { eng_rm "$1" && sb create --image "$IMAGE" --name "$1" >/dev/null; }

# ws_of OUT.err: the ref the server announced.
ws_of() { sed -n 's/^sandbox mcp: workspace \([^ ]*\).*/\1/p' "$1" | head -n 1; }

test_expect_success 'initialize: each known version is answered as asked, an unknown one with the newest' '
	for v in 2025-11-25 2025-06-18 2025-03-26 2024-11-05 1999-01-01; do
		echo "init $v" | mcp out --image "$IMAGE" --rm || return 1
		want=$v; [ $v = 1999-01-01 ] && want=2025-11-25
		answer out 1 "d[\"id\"] == 0 and d[\"result\"][\"protocolVersion\"] == \"$want\" and d[\"result\"][\"serverInfo\"][\"name\"] == \"sandbox\" and \"tools\" in d[\"result\"][\"capabilities\"]" || return 1
		grep_file "^exit 0$" out || return 1
	done
'

test_expect_success 'no tool call: no workspace is made, and the end of input ends the server (exit 0)' '
	before=$(our_workspaces | wc -l) &&
	printf "init\n> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n<\n" | mcp out --image "$IMAGE" &&
	answer out 2 "d == {\"jsonrpc\": \"2.0\", \"id\": 1, \"result\": {}}" &&
	grep_file "^exit 0$" out &&
	test "$(our_workspaces | wc -l)" = "$before" &&
	must_be_empty out.err
'

test_expect_success 'tools/list: the ten tools, each with a description and a strict schema' '
	printf "init\n> {\"jsonrpc\":\"2.0\",\"id\":\"l\",\"method\":\"tools/list\"}\n<\n" | mcp out --image "$IMAGE" &&
	answer out 2 "[t[\"name\"] for t in d[\"result\"][\"tools\"]] == [\"exec\", \"read\", \"write\", \"edit\", \"glob\", \"grep\", \"job_list\", \"job_output\", \"job_kill\", \"diff\"]" &&
	answer out 2 "all(len(t[\"description\"]) > 80 and t[\"inputSchema\"][\"type\"] == \"object\" and t[\"inputSchema\"][\"additionalProperties\"] is False for t in d[\"result\"][\"tools\"])" &&
	answer out 2 "{t[\"name\"]: t[\"inputSchema\"][\"required\"] for t in d[\"result\"][\"tools\"]} == {\"exec\": [\"command\"], \"read\": [\"path\"], \"write\": [\"path\", \"content\"], \"edit\": [\"path\", \"old_text\", \"new_text\"], \"glob\": [\"pattern\"], \"grep\": [\"pattern\"], \"job_list\": [], \"job_output\": [\"job\"], \"job_kill\": [\"job\"], \"diff\": []}" &&
	answer out 2 "{t[\"name\"]: sorted(t[\"inputSchema\"][\"properties\"]) for t in d[\"result\"][\"tools\"]} == {\"diff\": [\"path\"], \"job_list\": [], \"job_output\": [\"job\", \"offset\", \"stderr_offset\", \"wait\"], \"job_kill\": [\"job\", \"signal\"], \"exec\": [\"background\", \"command\", \"cwd\", \"env\", \"reset\", \"session\", \"timeout\"], \"read\": [\"limit\", \"offset\", \"path\"], \"write\": [\"content\", \"path\"], \"edit\": [\"expect_sha256\", \"new_text\", \"old_text\", \"path\", \"replace_all\"], \"glob\": [\"limit\", \"path\", \"pattern\"], \"grep\": [\"case_insensitive\", \"context\", \"glob\", \"limit\", \"output_mode\", \"path\", \"pattern\"]}" &&
	answer out 2 "[t for t in d[\"result\"][\"tools\"] if t[\"name\"] == \"grep\"][0][\"inputSchema\"][\"properties\"][\"output_mode\"][\"enum\"] == [\"files\", \"content\", \"count\"]"
'

test_expect_success 'JSON-RPC errors get their codes, and the server keeps serving' '
	cat >steps <<-\STEPS &&
	init
	> {bad json
	<
	> [{"jsonrpc":"2.0","id":1,"method":"ping"}]
	<
	> {"id":2,"method":"ping"}
	<
	> {"jsonrpc":"2.0","id":{"x":1},"method":"ping"}
	<
	> {"jsonrpc":"2.0","id":3,"method":"resources/list"}
	<
	> {"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"nope","arguments":{}}}
	<
	call 5 read {"path":1}
	<
	call 6 read {}
	<
	call 7 read {"path":"x","colour":"red"}
	<
	call 8 read {"path":""}
	<
	call 9 read {"path":"x","offset":0}
	<
	call 10 grep {"pattern":"x","output_mode":"lines"}
	<
	call 11 write {"path":"x","content":"a\u0000b"}
	<
	call 12 exec {"command":"true","timeout":-1}
	<
	call 13 exec {"command":"true","env":{"1BAD":"x"}}
	<
	> {"jsonrpc":"2.0","id":14,"method":"tools/call","params":[]}
	<
	> {"jsonrpc":"2.0","method":"notifications/whatever"}
	> {"jsonrpc":"2.0","id":99,"result":{}}
	> {"jsonrpc":"2.0","id":15,"method":"ping"}
	<
	STEPS
	mcp out --image "$IMAGE" --rm <steps &&
	answer out 2 "d[\"id\"] is None and d[\"error\"][\"code\"] == -32700" &&
	answer out 3 "d[\"id\"] is None and d[\"error\"][\"code\"] == -32600" &&
	answer out 4 "d[\"id\"] == 2 and d[\"error\"][\"code\"] == -32600" &&
	answer out 5 "d[\"id\"] is None and d[\"error\"][\"code\"] == -32600" &&
	answer out 6 "d[\"id\"] == 3 and d[\"error\"][\"code\"] == -32601" &&
	for n in 7 17; do
		answer out $n "d[\"id\"] == $((n - 3)) and d[\"error\"][\"code\"] == -32602" || return 1
	done &&
	for n in 8 9 10 11 12 13 14 15 16; do
		answer out $n "d[\"id\"] == $((n - 3)) and d[\"result\"][\"isError\"] is True and d[\"result\"][\"structuredContent\"][\"error\"][\"kind\"] == \"usage\" and d[\"result\"][\"content\"][0][\"text\"] == \"error: \" + d[\"result\"][\"structuredContent\"][\"error\"][\"message\"]" || return 1
	done &&
	answer out 8 "\"must be a string\" in d[\"result\"][\"content\"][0][\"text\"]" &&
	answer out 9 "\"needs the argument path\" in d[\"result\"][\"content\"][0][\"text\"]" &&
	answer out 10 "\"colour\" in d[\"result\"][\"content\"][0][\"text\"]" &&
	answer out 18 "d == {\"jsonrpc\": \"2.0\", \"id\": 15, \"result\": {}}" &&
	test "$(wc -l <out)" = 19 &&
	grep_file "^exit 0$" out &&
	must_be_empty out.err
'

test_expect_success 'a workspace is made on the first call; its ref on stderr and in every result; kept at the end' '
	cat >steps <<-\STEPS &&
	init
	call 1 write {"path":"f.txt","content":"one\ntwo\n"}
	<
	call 2 read {"path":"f.txt"}
	<
	call 3 read {"path":"missing.txt"}
	<
	STEPS
	mcp out --image "$IMAGE" <steps &&
	REF=$(ws_of out.err) && test -n "$REF" &&
	grep_file "^sandbox mcp: workspace $REF (created)$" out.err &&
	grep_file "^sandbox mcp: workspace $REF kept; remove it with .sandbox destroy $REF.$" out.err &&
	for n in 2 3 4; do
		answer out $n "d[\"result\"][\"structuredContent\"][\"workspace\"] == \"$REF\"" || return 1
	done &&
	answer out 2 "d[\"result\"][\"isError\"] is False and d[\"result\"][\"structuredContent\"][\"created\"] is True" &&
	answer out 4 "d[\"result\"][\"isError\"] is True and d[\"result\"][\"structuredContent\"][\"error\"][\"kind\"] == \"failed\"" &&
	text_of out 4 >got && printf "error: missing.txt: no such file or directory" >expect && cmp_file expect got &&
	text_of out 3 >got && printf "     1\tone\n     2\ttwo\n" >expect && cmp_file expect got &&
	sb -w "$REF" read f.txt >got && cmp_file expect got
'

test_expect_success '-w attaches: the same files; --rm then removes that workspace' '
	printf "init\ncall 1 read {\"path\":\"f.txt\"}\n<\n" | mcp out -w "$REF" --rm &&
	answer out 2 "d[\"result\"][\"structuredContent\"][\"workspace\"] == \"$REF\" and d[\"result\"][\"structuredContent\"][\"lines\"] == 2" &&
	grep_file "^sandbox mcp: removed workspace $REF$" out.err &&
	ctr_gone "$REF"
'

# The tests of a tool, of the channel or of the loop need a workspace but
# nothing of its own: they share this one (each with files and markers of
# its own names), which the tests of reads through the channel then use
# as LREF, and destroy. Exported: the steps' "until" and "run" name it.
test_expect_success 'setup: one workspace for the tests that need none of their own' '
	new_ws SHARED &&
	export SHARED &&
	put_helpers "$SHARED"
'

test_expect_success 'tool errors name the tool'"'"'s arguments, in the text and in structuredContent' '
	cat >steps <<-\STEPS &&
	init
	call 1 write {"path":"two.txt","content":"a\nb\na\n"}
	<
	call 2 edit {"path":"two.txt","old_text":"a","new_text":"c"}
	<
	call 3 read {"path":"two.txt","offset":9}
	<
	call 4 grep {"pattern":"a","context":2}
	<
	call 5 edit {"path":"two.txt","old_text":"a","new_text":"c","expect_sha256":"x"}
	<
	call 6 exec {"command":"printf \"\\000\\001\" >bin.dat"}
	<
	call 7 read {"path":"bin.dat"}
	<
	call 8 exec {"command":"true","cwd":"nope"}
	<
	STEPS
	mcp out -w "$SHARED" <steps &&
	says() {
		answer out "$1" "d[\"result\"][\"isError\"] is True and d[\"result\"][\"content\"][0][\"text\"] == \"error: $2\" and d[\"result\"][\"structuredContent\"][\"error\"][\"message\"] == \"$2\""
	} &&
	says 3 "two.txt: 2 matches of the old text (lines 1, 3); set replace_all or add context to make it unique" &&
	says 4 "two.txt: offset 9 is past the end (3 lines)" &&
	says 5 "context goes with output_mode content" &&
	says 6 "expect_sha256: expected 64 lowercase hex digits" &&
	says 8 "bin.dat: binary file (2 bytes); use exec to look at it (od, base64)" &&
	says 9 "cwd nope: no such directory in the workspace"
'

test_expect_success 'exec: the status, stdout and stderr apart, 125-127 as the command'"'"'s own; cwd and env, kept by the session like an export until reset' '
	cat >steps <<-\STEPS &&
	init
	call 1 exec {"command":"echo out; echo err >&2; exit 3"}
	<
	call 2 exec {"command":"exit 125"}
	<
	call 3 exec {"command":"exit 126"}
	<
	call 4 exec {"command":"no-such-command-here"}
	<
	call 5 exec {"command":"mkdir -p d/e && cd d/e && pwd"}
	<
	call 6 exec {"command":"pwd; echo \"$A|$B\"","cwd":"d/e","env":{"A":"x y","B":"$(id)"}}
	<
	call 7 exec {"command":"echo \"$A\""}
	<
	call 8 exec {"command":"echo \"$A\"","reset":true}
	<
	STEPS
	mcp out -w "$SHARED" <steps &&
	answer out 2 "d[\"result\"][\"isError\"] is True and d[\"result\"][\"structuredContent\"][\"exit_code\"] == 3 and d[\"result\"][\"structuredContent\"][\"stdout\"] == \"out\\n\" and d[\"result\"][\"structuredContent\"][\"stderr\"] == \"err\\n\"" &&
	text_of out 2 >got && printf "out\n[stderr]\nerr\n[exit code 3]" >expect && cmp_file expect got &&
	answer out 3 "d[\"result\"][\"structuredContent\"][\"exit_code\"] == 125" &&
	answer out 4 "d[\"result\"][\"structuredContent\"][\"exit_code\"] == 126" &&
	answer out 5 "d[\"result\"][\"structuredContent\"][\"exit_code\"] == 127" &&
	answer out 6 "d[\"result\"][\"isError\"] is False and d[\"result\"][\"structuredContent\"][\"stdout\"] == \"/workspace/d/e\\n\"" &&
	answer out 7 "d[\"result\"][\"structuredContent\"][\"stdout\"] == \"/workspace/d/e\\nx y|\$(id)\\n\"" &&
	answer out 8 "d[\"result\"][\"structuredContent\"][\"stdout\"] == \"x y\\n\"" &&
	answer out 9 "d[\"result\"][\"structuredContent\"][\"stdout\"] == \"\\n\""
'

test_expect_success 'a timeout kills the command and what it started, in the container; the channel goes on' '
	cat >steps <<-\STEPS &&
	init
	call 1 exec {"command":"sleep 300 & echo $! >/tmp/bg; sleep 300","timeout":1}
	<
	call 2 exec {"command":"sh /tmp/gone /tmp/bg"}
	<
	STEPS
	start=$(now_s) &&
	mcp out -w "$SHARED" <steps &&
	elapsed_below "$start" 30 &&
	answer out 2 "d[\"result\"][\"isError\"] is True and d[\"result\"][\"structuredContent\"][\"timed_out\"] is True" &&
	text_of out 2 >got && grep_file "^\[timed out after 1s; the command was killed in the workspace\]$" got &&
	answer out 3 "d[\"result\"][\"structuredContent\"][\"stdout\"] == \"gone\\n\""
'

test_expect_success 'notifications/cancelled kills the running call in the container; no answer for it' '
	cat >steps <<-\STEPS &&
	init
	call 1 exec {"command":"sleep 300 & echo $! >/tmp/bg2; sleep 300"}
	until [ -n "$("$ENGINE" exec "$SHARED" cat /tmp/bg2)" ]
	> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"test"}}
	call 2 exec {"command":"sh /tmp/gone /tmp/bg2"}
	<
	STEPS
	mcp out -w "$SHARED" <steps &&
	answer out 2 "d[\"id\"] == 2 and d[\"result\"][\"structuredContent\"][\"stdout\"] == \"gone\\n\"" &&
	test "$(wc -l <out)" = 3
'

test_expect_success 'output to the model is capped: head and tail kept, the cut said' '
	printf "init\ncall 1 exec {\"command\":\"i=0; while [ \$i -lt 3000 ]; do echo line-\$i; i=\$((i+1)); done\"}\n<\n" |
		mcp out -w "$SHARED" --output-limit 1000 &&
	text_of out 2 >got &&
	grep_file "^line-0$" got && grep_file "^line-2999$" got &&
	grep_file "bytes cut" got &&
	test "$(wc -c <got)" -lt 1300 &&
	answer out 2 "d[\"result\"][\"structuredContent\"][\"stdout_truncated\"] is True and d[\"result\"][\"structuredContent\"][\"stdout_bytes\"] == 28890"
'

test_expect_success 'every number has a maximum, in the schema; a larger one is refused (a tool error)' '
	before=$(our_workspaces | wc -l) &&
	cat >steps <<-\STEPS &&
	init
	> {"jsonrpc":"2.0","id":"l","method":"tools/list"}
	<
	call 1 read {"path":"x","limit":100000001}
	<
	call 2 read {"path":"x","offset":100000001}
	<
	call 3 exec {"command":"true","timeout":864000001}
	<
	call 4 grep {"pattern":"x","context":101}
	<
	call 5 glob {"pattern":"x","limit":10001}
	<
	STEPS
	mcp out --image "$IMAGE" --rm <steps &&
	answer out 2 "all(\"maximum\" in p for t in d[\"result\"][\"tools\"] for p in t[\"inputSchema\"][\"properties\"].values() if p[\"type\"] in (\"integer\", \"number\"))" &&
	answer out 2 "{(t[\"name\"], k): p[\"maximum\"] for t in d[\"result\"][\"tools\"] for k, p in t[\"inputSchema\"][\"properties\"].items() if \"maximum\" in p} == {(\"exec\", \"timeout\"): 864000000, (\"read\", \"offset\"): 100000000, (\"read\", \"limit\"): 100000000, (\"glob\", \"limit\"): 10000, (\"grep\", \"context\"): 100, (\"grep\", \"limit\"): 10000, (\"job_output\", \"offset\"): 1000000000000000, (\"job_output\", \"stderr_offset\"): 1000000000000000, (\"job_output\", \"wait\"): 300}" &&
	answer out 3 "d[\"id\"] == 1 and d[\"result\"][\"isError\"] is True and d[\"result\"][\"structuredContent\"][\"error\"][\"message\"] == \"argument limit must be at most 100000000\"" &&
	answer out 4 "d[\"id\"] == 2 and d[\"result\"][\"structuredContent\"][\"error\"][\"message\"] == \"argument offset must be at most 100000000\"" &&
	answer out 5 "d[\"id\"] == 3 and d[\"result\"][\"structuredContent\"][\"error\"][\"message\"] == \"argument timeout must be at most 864000000 seconds\"" &&
	answer out 6 "d[\"id\"] == 4 and d[\"result\"][\"structuredContent\"][\"error\"][\"message\"] == \"argument context must be at most 100\"" &&
	answer out 7 "d[\"id\"] == 5 and d[\"result\"][\"content\"][0][\"text\"] == \"error: argument limit must be at most 10000\"" &&
	test "$(our_workspaces | wc -l)" = "$before" &&
	no_grep_file "(created)" out.err
'

test_expect_success '--output-limit: from 1000 to 1000000' '
	expect_status 2 sb mcp --output-limit 1000001 </dev/null >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: mcp: --output-limit ${SQ}1000001${SQ}: at most 1000000" err &&
	expect_status 2 sb mcp --output-limit 999 </dev/null >out 2>err &&
	cmp_text "sandbox: mcp: --output-limit ${SQ}999${SQ}: expected a number from 1000" err
'

test_expect_success 'structuredContent is capped like the text: a cut string says its bytes, an array its count' '
	cat >steps <<-\STEPS &&
	init
	call 1 exec {"command":"seq 1 3000 >n.txt; mkdir many && cd many && for i in $(seq 1 100); do : >a-rather-long-file-name-$i.txt; done"}
	<
	call 2 read {"path":"n.txt"}
	<
	call 3 glob {"pattern":"many/*"}
	<
	STEPS
	mcp out -w "$SHARED" --output-limit 1000 <steps &&
	full=$(python3 -c "print(repr(\"\".join(\"%6d\\t%d\\n\" % (i, i) for i in range(1, 2001))))") &&
	answer out 3 "(lambda c: c[\"content\"] == $full[:len(c[\"content\"])] and 900 < len(c[\"content\"]) <= 1000 and c[\"content_truncated\"] is True and c[\"content_bytes\"] == len($full))(d[\"result\"][\"structuredContent\"])" &&
	answer out 3 "(lambda c: len(c[\"sha256\"]) == 64 and c[\"path\"] == \"n.txt\" and c[\"lines\"] == 2000 and c[\"truncated\"] is True)(d[\"result\"][\"structuredContent\"])" &&
	answer out 3 "len(d[\"result\"][\"content\"][0][\"text\"]) < 1100" &&
	answer out 4 "(lambda c: 0 < len(c[\"matches\"]) < 100 and c[\"matches_truncated\"] is True and c[\"matches_count\"] == 100 and c[\"total\"] == 100)(d[\"result\"][\"structuredContent\"])" &&
	answer out 4 "all(m.startswith(\"many/a-rather-long-file-name-\") and m.endswith(\".txt\") for m in d[\"result\"][\"structuredContent\"][\"matches\"])"
'

test_expect_success 'what the workspace sends does not grow the server: 50 MiB of 0x80 read and printed, 20 MiB read, 4096 such lines' '
	cat >steps <<-\STEPS &&
	init
	call 1 exec {"command":"head -c 52428800 /dev/zero | tr \"\\000\" \"\\200\" >c50.txt && head -c 20971520 c50.txt >c20.txt && { head -c 2000 c50.txt; echo; } >l.txt && for i in 1 2 3 4 5 6 7 8 9 10 11 12; do cat l.txt l.txt >l2.txt && mv l2.txt l.txt; done"}
	<
	call 2 read {"path":"c50.txt"}
	<
	call 3 read {"path":"c20.txt"}
	<
	call 4 exec {"command":"cat c50.txt; cat c20.txt >&2"}
	<
	call 5 read {"path":"l.txt","limit":100000}
	<
	peak
	call 6 exec {"command":"rm c50.txt c20.txt l.txt"}
	<
	STEPS
	mcp out -w "$SHARED" <steps &&
	answer out 2 "d[\"result\"][\"isError\"] is False" &&
	for n in 3 4; do
		size=$((n == 3 ? 52428800 : 20971520)) &&
		sha=$(python3 -c "import hashlib; print(hashlib.sha256(b\"\\x80\" * $size).hexdigest())") &&
		answer out $n "(lambda c: c[\"content\"] == \"     1\\t\" + \"\\ufffd\" * 2000 + \" [... line cut: %d more characters]\\n\" % ($size - 2000) and c[\"size\"] == $size and c[\"sha256\"] == \"$sha\")(d[\"result\"][\"structuredContent\"])" || return 1
	done &&
	answer out 5 "(lambda c: c[\"stdout_bytes\"] == 52428800 and c[\"stderr_bytes\"] == 20971520 and c[\"stdout_truncated\"] is True and len(c[\"stdout\"]) <= 14950)(d[\"result\"][\"structuredContent\"])" &&
	answer out 6 "(lambda c: c[\"lines\"] == 523 and c[\"total_lines\"] == 4096 and c[\"content_truncated\"] is True and len(c[\"content\"]) <= 30000)(d[\"result\"][\"structuredContent\"])" &&
	sed -n 7p out >peak &&
	grep_file "^peak [0-9][0-9]*$" peak &&
	sed "s/^peak //" peak >rss &&
	{ ! test_have_prereq PEAK_RSS || below_kib rss 32768; }
'

test_expect_success 'hostile values stay data through the channel: names, patterns, texts' '
	cat >steps <<-\STEPS &&
	init
	call 1 write {"path":"d/$(touch INJ) `touch INJ` ;touch INJ\n* -x \\ \"q\" '"'"'s'"'"'.txt","content":"a\\b $(x)\n\u00e9\u0001\n"}
	<
	call 2 glob {"pattern":"d/*"}
	<
	call 3 grep {"pattern":"\\$\\(x\\)","output_mode":"content"}
	<
	call 4 edit {"path":"d/$(touch INJ) `touch INJ` ;touch INJ\n* -x \\ \"q\" '"'"'s'"'"'.txt","old_text":"a\\b","new_text":"$(touch INJ)\n"}
	<
	call 5 exec {"command":"ls -A; find d -mindepth 1 | tr -cd / | wc -c"}
	<
	STEPS
	mcp out --image "$IMAGE" --rm <steps &&
	answer out 2 "d[\"result\"][\"structuredContent\"][\"bytes\"] == len(\"a\\\\b \$(x)\\n\\u00e9\\u0001\\n\".encode())" &&
	answer out 3 "d[\"result\"][\"structuredContent\"][\"matches\"] == [\"d/\$(touch INJ) \`touch INJ\` ;touch INJ\\n* -x \\\\ \\\"q\\\" '"'"'s'"'"'.txt\"]" &&
	answer out 4 "[m[\"line\"] for m in d[\"result\"][\"structuredContent\"][\"matches\"]] == [1]" &&
	answer out 5 "d[\"result\"][\"structuredContent\"][\"replacements\"] == 1" &&
	answer out 6 "d[\"result\"][\"structuredContent\"][\"stdout\"].split() == [\"d\", \"1\"]"
'

test_expect_success 'the channel is binary-safe: every byte value out of exec; a 6 MiB write, read back' '
	python3 -c "import sys; sys.stdout.buffer.write(bytes(range(256)))" >all.bin &&
	sb -w "$SHARED" write /tmp/all.bin <all.bin >/dev/null &&
	python3 -c "import json; print(\"call 2 write \" + json.dumps({\"path\": \"big.txt\", \"content\": (\"0123456789abcdef\" * 64 + \"\\n\") * 6000}))" >bigcall &&
	{
		echo init
		echo "call 1 exec {\"command\":\"cat /tmp/all.bin; wc -c </tmp/all.bin\"}"
		echo "<"
		cat bigcall
		echo "<"
		echo "call 3 exec {\"command\":\"sha256sum big.txt | cut -c1-64\"}"
		echo "<"
	} >steps &&
	mcp out -w "$SHARED" <steps &&
	answer out 2 "d[\"result\"][\"structuredContent\"][\"stdout_bytes\"] == 256 + 4 and d[\"result\"][\"structuredContent\"][\"stdout\"].startswith(\"\".join(map(chr, range(128)))) and d[\"result\"][\"structuredContent\"][\"stdout\"].endswith(\"256\\n\")" &&
	answer out 3 "d[\"result\"][\"structuredContent\"][\"bytes\"] == 1025 * 6000" &&
	want=$(python3 -c "import hashlib; print(hashlib.sha256(((\"0123456789abcdef\" * 64 + \"\\n\") * 6000).encode()).hexdigest())") &&
	answer out 3 "d[\"result\"][\"structuredContent\"][\"sha256\"] == \"$want\"" &&
	answer out 4 "d[\"result\"][\"structuredContent\"][\"stdout\"] == \"$want\\n\""
'

# The call runs until the test lets it end (/tmp/go18), after the answers
# to the ping sent with it and to those sent once it runs (/tmp/run18).
test_expect_success 'a ping or tools/list is answered at once, also when it came with a call, and while it runs' '
	cat >steps <<-\STEPS &&
	init
	call 1 exec {"command":"touch /tmp/run18; sh /tmp/waitfor /tmp/go18"}
	> {"jsonrpc":"2.0","id":"p1","method":"ping"}
	<
	until "$ENGINE" exec "$SHARED" cat /tmp/run18
	> {"jsonrpc":"2.0","id":"p2","method":"ping"}
	<
	> {"jsonrpc":"2.0","id":"l","method":"tools/list"}
	<
	run "$ENGINE" exec "$SHARED" touch /tmp/go18 && echo let go
	<
	STEPS
	mcp out -w "$SHARED" <steps &&
	answer out 2 "d == {\"jsonrpc\": \"2.0\", \"id\": \"p1\", \"result\": {}}" &&
	answer out 3 "d == {\"jsonrpc\": \"2.0\", \"id\": \"p2\", \"result\": {}}" &&
	answer out 4 "d[\"id\"] == \"l\" and len(d[\"result\"][\"tools\"]) == 10" &&
	cmp_text "run: let go" <(sed -n 5p out) &&
	answer out 6 "d[\"id\"] == 1 and d[\"result\"][\"structuredContent\"][\"exit_code\"] == 0" &&
	test "$(wc -l <out)" = 7
'

test_expect_success 'a kill the workspace does not answer is waited for in the loop: pings are answered meanwhile' '
	new_ws HREF &&
	# /bin/sh is made to hang, then the command ignores TERM, so that the
	# kill exec never says it started: the host gives it engine_timeout
	# (10 s here), then stops the workspace. A ping sent once the kill
	# exec is seen to start (-v) is answered before the call.
	hang_sh "$HREF" &&
	printf "[sandbox]\nengine_timeout = 10\n" >short.ini &&
	cat >steps <<-STEPS &&
	init
	call 1 exec {"command":"$SWAP_SH && trap \\"\\" TERM && while :; do sleep 1; done","timeout":2}
	until grep -q "sandbox-kill [0-9]" out.err
	> {"jsonrpc":"2.0","id":"p","method":"ping"}
	<
	<
	STEPS
	SANDBOX_CONFIG=short.ini mcp out -v -w "$HREF" --rm <steps &&
	answer out 2 "d == {\"jsonrpc\": \"2.0\", \"id\": \"p\", \"result\": {}}" &&
	answer out 3 "d[\"id\"] == 1 and d[\"result\"][\"structuredContent\"][\"timed_out\"] and d[\"result\"][\"structuredContent\"][\"kill\"] == \"workspace_stopped\""
'

test_expect_success 'a cancelled call whose kill the workspace does not answer: a ping is answered while the kill runs' '
	new_ws CREF &&
	hang_sh "$CREF" &&
	# The call is cancelled once it made /bin/sh hang (/tmp/swapped), the
	# ping sent once the kill exec is seen to start (-v), and the status
	# looked at as soon as the ping is answered: still running, the
	# workspace is being killed (the kill exec never says it started:
	# after engine_timeout, 10 s here, it is stopped); and the cancelled
	# call gets no answer.
	printf "[sandbox]\nengine_timeout = 10\n" >short.ini &&
	cat >steps <<-STEPS &&
	init
	call 1 exec {"command":"$SWAP_SH && touch /tmp/swapped && trap \\"\\" TERM && while :; do sleep 1; done"}
	until $ENGINE exec $CREF cat /tmp/swapped
	> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}
	until grep -q "sandbox-kill [0-9]" out.err
	> {"jsonrpc":"2.0","id":"p","method":"ping"}
	<
	run $ENGINE container inspect --format "{{.State.Status}}" $CREF
	STEPS
	SANDBOX_CONFIG=short.ini mcp out -v -w "$CREF" --rm <steps &&
	answer out 2 "d == {\"jsonrpc\": \"2.0\", \"id\": \"p\", \"result\": {}}" &&
	sed -n 3p out >status &&
	cmp_text "run: running" status &&
	sed -n 4p out >end &&
	cmp_text "exit 0" end
'

test_expect_success 'the workspace replaced under the same name: the server finds the new one, and stays on it' '
	name=$(new_name repl) &&
	new_ws RREF --name "$name" &&
	{ printf "SANDBOX=%q ENGINE=%q IMAGE=%q\n" "$SANDBOX" "$ENGINE" "$IMAGE"
	  declare -f eng eng_rm sb replace_ws; printf "replace_ws %q\n" "$name"; } >replace.sh &&
	cat >steps <<-\STEPS &&
	init
	call 1 exec {"command":"echo old >/tmp/which"}
	<
	run bash replace.sh && echo replaced
	call 2 exec {"command":"cat /tmp/which 2>/dev/null || echo new"}
	<
	call 3 exec {"command":"true"}
	<
	call 4 exec {"command":"true"}
	<
	call 5 exec {"command":"true"}
	<
	STEPS
	mcp out -v -w "$name" --rm <steps &&
	cmp_text "run: replaced" <(sed -n 3p out) &&
	answer out 4 "d[\"result\"][\"structuredContent\"][\"stdout\"] == \"new\\n\"" &&
	answer out 7 "d[\"result\"][\"isError\"] is False" &&
	test "$(grep -c "$OPEN_SERVER" out.err)" -le 3
'

test_expect_success 'a dead channel is opened again: the next call works' '
	printf "%q exec %q sh -c %q\n" "$ENGINE" "$SHARED" "$KILL_CHAN" >killchan.sh &&
	cat >s12 <<-\STEPS &&
	init
	call 1 exec {"command":"echo first"}
	<
	run bash killchan.sh && echo killed
	call 2 exec {"command":"echo second"}
	<
	STEPS
	mcp o12 -v -w "$SHARED" <s12 &&
	test "$(grep -c "exec --interactive" o12.err)" = 2 &&
	answer o12 2 "d[\"result\"][\"structuredContent\"][\"stdout\"] == \"first\\n\"" &&
	cmp_text "run: killed" <(sed -n 3p o12) &&
	answer o12 4 "d[\"result\"][\"structuredContent\"][\"stdout\"] == \"second\\n\""
'

# Docker keeps the streams open while the call holds them, and the call
# ends as itself; Podman ends the session with its main process, and the
# call is killed in the container. Either way it does not run twice. After
# the kill of the channel's server, the call waits for /tmp/go23: made at
# once with Docker, where nothing else would end the call; with Podman
# only after the answer, by when the call must have been killed (if it was
# not, it writes "after"). Call 2 looks once call 1's shell is gone.
test_expect_success 'the channel'"'"'s server killed during a call: the call ends as itself or is killed; never run twice; the next works' '
	printf "%s\n" "$KILL_CHAN" >killchan && sb -w "$SHARED" write /tmp/killchan <killchan >/dev/null &&
	cat >steps <<-\STEPS &&
	init
	call 1 exec {"command":"echo $$ >/tmp/c23; sh /tmp/killchan; sh /tmp/waitfor /tmp/go23; echo after >>/tmp/count; exit 7"}
	run { test "$ENGINE" = podman || "$ENGINE" exec "$SHARED" touch /tmp/go23; } && echo ok
	<
	run "$ENGINE" exec "$SHARED" touch /tmp/go23 && echo ok
	call 2 exec {"command":"sh /tmp/gone /tmp/c23; cat /tmp/count 2>/dev/null; true"}
	<
	STEPS
	mcp out -w "$SHARED" <steps &&
	cmp_text "run: ok" <(sed -n 2p out) &&
	cmp_text "run: ok" <(sed -n 4p out) &&
	answer out 3 "d[\"result\"][\"structuredContent\"].get(\"exit_code\") == 7 or d[\"result\"][\"structuredContent\"][\"error\"][\"kind\"] == \"workspace\"" &&
	if sed -n 3p out | grep -q "\"exit_code\":7"; then want="after\n"; else want=""; fi &&
	answer out 5 "d[\"result\"][\"structuredContent\"][\"stdout\"] == \"gone\\n$want\""
'

# A read on the channel goes lone: the server and one cat, which leads no
# process group of its own (SCRIPT_SERVE). FAKE_CAT stands in for the
# cat of SAFE_PATH as the workspace can make it behave (what /tmp/catmode
# says): blocked in the open of a FIFO swapped in after the checks, an
# endless /dev/zero, endless text; else the real cat (BusyBox: its applet).
# BusyBox's sh runs its own cat applet whatever /bin/cat is: there, the
# FIFO is swapped in for real, against the clock.
FAKE_CAT='#!/bin/sh
m=; read -r m </tmp/catmode 2>/dev/null
case $m in
probe) echo PROBE; exit 0 ;;
fifo) exec </tmp/fifo ;;
zero) exec dd if=/dev/zero bs=65536 2>/dev/null ;;
text) exec yes endless-line ;;
esac
if [ -x /bin/cat.real ]; then exec /bin/cat.real "$@"; fi
exec /bin/busybox cat "$@"'
test_skip_reason[EXECCAT]="this image's sh runs its own cat, whatever /bin/cat is"

test_expect_success 'a read through the channel: a cat earlier in PATH is not run; bytes like markers are data; sizes as ever' '
	LREF=$SHARED &&
	printf "S 3\nabc\036%s:done:0\036\036%s:end:0\036\036%s:proc:2\036x\n" 0123456789abcdef 0123456789abcdef 0123456789abcdef >m.txt &&
	sb -w "$LREF" write m.txt <m.txt >/dev/null &&
	sb -w "$LREF" exec -c "mkdir -p /usr/local/bin && printf \"#!/bin/sh\\necho FORGED\\n\" >/usr/local/bin/cat && chmod +x /usr/local/bin/cat && /usr/local/bin/cat && case :\$PATH: in *:/usr/local/bin:*:/bin:*) echo first ;; esac" >forged &&
	printf "FORGED\nfirst\n" >expect && cmp_file expect forged &&
	head -c 20000 /dev/zero >z.bin && sb -w "$LREF" write z.bin <z.bin >/dev/null &&
	cat >steps <<-\STEPS &&
	init
	call 1 read {"path":"m.txt"}
	<
	call 2 read {"path":"z.bin"}
	<
	call 3 read {"path":"/"}
	<
	call 4 read {"path":"nonesuch"}
	<
	call 5 read {"path":"/dev/null"}
	<
	STEPS
	mcp out -w "$LREF" <steps &&
	sum=$(sha256sum <m.txt | cut -c1-64) &&
	answer out 2 "d[\"result\"][\"isError\"] is False and d[\"result\"][\"structuredContent\"][\"sha256\"] == \"$sum\" and d[\"result\"][\"structuredContent\"][\"size\"] == $(wc -c <m.txt) and d[\"result\"][\"structuredContent\"][\"total_lines\"] == 2" &&
	text_of out 3 >got && printf "error: z.bin: binary file (20000 bytes); use exec to look at it (od, base64)" >expect && cmp_file expect got &&
	text_of out 4 >got && printf "error: /: is a directory" >expect && cmp_file expect got &&
	text_of out 5 >got && printf "error: nonesuch: no such file or directory" >expect && cmp_file expect got &&
	text_of out 6 >got && printf "error: /dev/null: not a regular file" >expect && cmp_file expect got
'

test_expect_success 'setup: a stand-in for /bin/cat' '
	printf "%s\n" "$FAKE_CAT" >fakecat &&
	sb -w "$LREF" write /tmp/fakecat <fakecat >/dev/null &&
	sb -w "$LREF" exec -c "mkfifo /tmp/fifo && if [ -L /bin/cat ]; then rm /bin/cat; else mv /bin/cat /bin/cat.real; fi && cp /tmp/fakecat /bin/cat && chmod 755 /bin/cat && echo probe >/tmp/catmode" &&
	sb -w "$LREF" read --raw m.txt >probe &&
	sb -w "$LREF" exec -c "rm /tmp/catmode" &&
	if test "$(cat probe)" = PROBE; then test_set_prereq EXECCAT; else cmp_file m.txt probe; fi
'

test_expect_success EXECCAT 'a lone read that never ends (a FIFO swapped in, /dev/zero, endless text): bounded, killed, the next call works' '
	cat >steps <<-\STEPS &&
	init
	call 1 exec {"command":"echo fifo >/tmp/catmode"}
	<
	call 2 read {"path":"m.txt"}
	<
	call 3 exec {"command":"echo zero >/tmp/catmode"}
	<
	call 4 read {"path":"m.txt"}
	<
	call 5 exec {"command":"echo text >/tmp/catmode"}
	<
	call 6 read {"path":"m.txt"}
	<
	call 7 exec {"command":"rm /tmp/catmode"}
	<
	call 8 read {"path":"m.txt"}
	<
	STEPS
	start=$(now_s) &&
	mcp out -v -w "$LREF" --timeout 3 <steps &&
	elapsed_below "$start" 60 &&
	grep "exec --interactive" out.err >opens &&
	line_count 1 opens &&
	text_of out 3 >got && grep_file "^error: timed out after 3s; the command was killed in the workspace" got &&
	text_of out 5 >got && grep_file "^error: m.txt: binary file ($(wc -c <m.txt) bytes)" got &&
	text_of out 7 >got && grep_file "^error: timed out after 3s; the command was killed in the workspace" got &&
	answer out 9 "d[\"result\"][\"isError\"] is False and d[\"result\"][\"structuredContent\"][\"size\"] == $(wc -c <m.txt)" &&
	procs "$LREF" >left &&
	no_grep_file "^(/bin/sh /bin/cat|dd if=/dev/zero|yes endless)" left
'

# ln -sfn makes a new link and renames it over the old one (GNU), or
# removes the old one first (BusyBox): a check may find no file, or none
# to read.
test_expect_success 'a path flipped between a file and a FIFO under lone reads: each read ends in its time, the channel stays, the next read works' '
	sb -w "$LREF" exec -c "mkfifo /tmp/ff && echo a >/tmp/reg && { while :; do ln -sfn /tmp/ff /tmp/flip; ln -sfn /tmp/reg /tmp/flip; done >/dev/null 2>&1 </dev/null & echo \$! >/tmp/flipper; }" &&
	{
		echo init
		for i in 1 2 3 4 5 6 7 8 9 10 11 12; do echo "call $i read {\"path\":\"/tmp/flip\"}"; echo "<"; done
		echo "call 13 exec {\"command\":\"read -r p </tmp/flipper && kill \$p\"}"
		echo "<"
		echo "call 14 read {\"path\":\"m.txt\"}"
		echo "<"
	} >steps &&
	start=$(now_s) &&
	mcp out -v -w "$LREF" --timeout 2 <steps &&
	elapsed_below "$start" 90 &&
	grep "exec --interactive" out.err >opens &&
	line_count 1 opens &&
	for n in 2 3 4 5 6 7 8 9 10 11 12 13; do
		text_of out $n >got &&
		case $(cat got) in
		"     1	a") ;;
		"error: /tmp/flip: not a regular file" | "error: /tmp/flip: no such file or directory" | "error: /tmp/flip: permission denied") ;;
		# BusyBox ln -sfn unlinks, then links: cat may find no file.
		"error: the in-container script failed (status 1): cat: "*) ;;
		"error: timed out after 2s; the command was killed in the workspace"*) ;;
		*) echo "call $((n - 1)): unexpected answer:" >&4; cat got >&4; return 1 ;;
		esac || return 1
	done &&
	answer out 15 "d[\"result\"][\"isError\"] is False and d[\"result\"][\"structuredContent\"][\"size\"] == $(wc -c <m.txt)"
'

test_expect_success 'in the end: /bin/cat as it was' '
	sb -w "$LREF" exec -c "rm /bin/cat /usr/local/bin/cat && if [ -e /bin/cat.real ]; then mv /bin/cat.real /bin/cat; else ln -s busybox /bin/cat; fi" &&
	sb -w "$LREF" read m.txt >/dev/null &&
	sb destroy "$LREF" >/dev/null
'

# BusyBox's sh runs its own setsid applet even with no link to it: there,
# this shows the channel; on Debian, the fallback.
test_expect_success 'an image without setsid: every call goes as an engine exec of its own, same answers' '
	new_ws NREF &&
	sb -w "$NREF" exec -c "for d in /bin /usr/bin /sbin /usr/sbin; do rm -f \$d/setsid; done; command -v setsid || true" >where &&
	printf "%s\n" "$GONE" >gone && sb -w "$NREF" write /tmp/gone <gone >/dev/null &&
	cat >steps <<-\STEPS &&
	init
	call 1 write {"path":"f.txt","content":"x\n"}
	<
	call 2 exec {"command":"cat f.txt; sleep 300 & echo $! >/tmp/bg3; sleep 300","timeout":2}
	<
	call 3 exec {"command":"sh /tmp/gone /tmp/bg3"}
	<
	STEPS
	mcp out -v -w "$NREF" --rm <steps &&
	opens=$(grep -c "$OPEN_SERVER" out.err) &&
	if test -s where; then test "$opens" = 1; else test "$opens" = 1 && grep_file "^+ .* $OPEN_WRAPPER" out.err; fi &&
	answer out 2 "d[\"result\"][\"structuredContent\"][\"created\"] is True" &&
	answer out 3 "d[\"result\"][\"structuredContent\"][\"timed_out\"] is True and d[\"result\"][\"structuredContent\"][\"stdout\"] == \"x\\n\"" &&
	answer out 4 "d[\"result\"][\"structuredContent\"][\"stdout\"] == \"gone\\n\""
'

# The signal comes once call 2 runs (/tmp/run30, in the workspace that
# the server named on stderr when it made it).
test_expect_success 'SIGTERM: the running call is killed in the container, --rm removes the workspace, exit 143' '
	cat >steps <<-\STEPS &&
	init
	call 1 exec {"command":"echo started"}
	<
	call 2 exec {"command":"touch /tmp/run30; sleep 300"}
	until "$ENGINE" exec "$(sed -n "s/^sandbox mcp: workspace \([^ ]*\) (created)$/\1/p" out.err)" cat /tmp/run30
	signal TERM
	STEPS
	mcp out --image "$IMAGE" --rm <steps &&
	REF=$(ws_of out.err) && test -n "$REF" &&
	grep_file "^exit 143$" out &&
	grep_file "^sandbox mcp: removed workspace $REF$" out.err &&
	ctr_gone "$REF"
'

test_expect_success PYTHON 'input flooded during a call is not all held: the server stops reading, and stays small' '
	python3 "$TEST_LIB_DIR/mcp/flood.py" "$SANDBOX" "$ENGINE" "$IMAGE" >out &&
	read -r mib kib <out &&
	echo "took $mib MiB, peak $kib KiB" &&
	test "$mib" -le 20 &&
	if grep -q __asan_init "$SANDBOX"; then :; else test "$kib" -lt 32768; fi
'

test_expect_success 'in the end: no workspace of these tests is left' '
	no_workspace_left
'

test_done
