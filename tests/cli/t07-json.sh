#!/bin/bash
# --json: exactly one JSON object on stdout, whatever the command printed
# (any bytes), with the documented fields; errors as {"error": {...}}.
. "$(dirname "$0")/../lib.sh"
image_independent
need_engine
test_have_prereq PYTHON || skip_all "python3 is needed to check JSON"

FIELDS='{"workspace", "exit_code", "stdout", "stderr", "timed_out", "duration_ms", "stdout_truncated", "stderr_truncated"}'

test_expect_success 'setup: a workspace' '
	new_ws REF
'

test_expect_success 'exec --json: one object with the documented fields' '
	expect_status 3 sb --json -w "$REF" exec -- sh -c "echo out; echo err >&2; exit 3" >out 2>err &&
	must_be_empty err &&
	json_check out "set(d) >= $FIELDS" &&
	json_check out "d[\"workspace\"] == \"$REF\" and d[\"exit_code\"] == 3" &&
	json_check out "d[\"stdout\"] == \"out\\n\" and d[\"stderr\"] == \"err\\n\"" &&
	json_check out "d[\"timed_out\"] is False and d[\"stdout_truncated\"] is False and d[\"stderr_truncated\"] is False" &&
	json_check out "isinstance(d[\"duration_ms\"], int) and 0 <= d[\"duration_ms\"] < 60000"
'

test_expect_success 'exec --json -w REF: the same with the options after the command' '
	sb exec --json -w "$REF" -- true >out &&
	json_check out "d[\"exit_code\"] == 0 and d[\"stdout\"] == \"\" and d[\"stderr\"] == \"\""
'

test_expect_success 'duration_ms measures the command' '
	sb --json -w "$REF" exec -- sleep 1 >out &&
	json_check out "1000 <= d[\"duration_ms\"] < 30000"
'

test_expect_success 'quotes, backslashes and control characters are escaped' '
	sb --json -w "$REF" exec -- printf "\"q\" \\\\ \t\001\r\n" >out &&
	json_check out "d[\"stdout\"] == \"\\\"q\\\" \\\\ \\t\\x01\\r\\n\""
'

test_expect_success 'output that is not UTF-8 still gives valid JSON' '
	sb --json -w "$REF" exec -- printf "ok\377\376end \303\251" >out &&
	json_check out "d[\"stdout\"].startswith(\"ok\") and d[\"stdout\"].endswith(\"end \\u00e9\") and \"\\ufffd\" in d[\"stdout\"]"
'

test_expect_success 'UTF-8 output is kept as it is' '
	sb --json -w "$REF" exec -- printf "h\303\251llo \342\202\254 \360\237\230\200" >out &&
	json_check out "d[\"stdout\"] == \"h\\u00e9llo \\u20ac \\U0001F600\""
'

test_expect_success '--max-output: a stream over the bound is cut and flagged' '
	sb -w "$REF" exec -- seq 1 1000 >full &&
	sb --json -w "$REF" exec --max-output 100 -- sh -c "seq 1 1000; echo small >&2" >out &&
	size=$(wc -c <full) &&
	json_check out "d[\"stdout_truncated\"] is True and len(d[\"stdout\"].encode()) <= 100 and len(d[\"stdout\"]) > 0" &&
	json_check out "d[\"stderr_truncated\"] is False and d[\"stderr\"] == \"small\\n\"" &&
	json_check out "d.get(\"stdout_bytes\", $size) == $size and d[\"exit_code\"] == 0"
'

test_expect_success '--max-output keeps the first half and the last half' '
	sb --json -w "$REF" exec --max-output 100 -- seq 1 1000 >out &&
	json_check out "d[\"stdout\"] == open(\"full\").read()[:50] + open(\"full\").read()[-50:]"
'

test_expect_success '--max-output: a stream of exactly the bound is whole' '
	sb --json -w "$REF" exec --max-output 10 -- printf 0123456789 >out &&
	json_check out "d[\"stdout\"] == \"0123456789\" and d[\"stdout_truncated\"] is False"
'

test_expect_success '--max-output applies to stderr too' '
	sb --json -w "$REF" exec --max-output 50 -- sh -c "seq 1 1000 >&2" >out &&
	json_check out "d[\"stderr_truncated\"] is True and len(d[\"stderr\"]) <= 50 and d[\"stdout_truncated\"] is False"
'

test_expect_success 'exec --json --timeout: timed_out, exit 124, nothing on stderr' '
	expect_status 124 sb --json -w "$REF" exec --timeout 2 -- sh -c "echo partial; sleep 30" >out 2>err &&
	must_be_empty err &&
	json_check out "d[\"timed_out\"] is True and d[\"exit_code\"] == 124 and d[\"stdout\"] == \"partial\\n\""
'

test_expect_success 'a usage error with --json: {"error": {"kind": "usage"}}, exit 2' '
	expect_status 2 sb --json -w "$REF" exec --timeout soon -- true >out 2>err &&
	must_be_empty err &&
	json_check out "set(d) == {\"error\"} and d[\"error\"][\"kind\"] == \"usage\" and \"soon\" in d[\"error\"][\"message\"]"
'

test_expect_success 'a config error with --json: kind "config", exit 2' '
	printf "[sandbox]\nbogus = 1\n" >bad.ini &&
	expect_status 2 sb --json --config bad.ini list >out 2>err &&
	must_be_empty err &&
	json_check out "d[\"error\"][\"kind\"] == \"config\" and d[\"error\"][\"message\"] == \"bad.ini:2: unknown key ${SQ}bogus${SQ}\""
'

test_expect_success 'a missing workspace with --json: kind "workspace", exit 255' '
	expect_status 255 sb --json -w sandbox-000000000000 exec -- true >out 2>err &&
	must_be_empty err &&
	json_check out "d[\"error\"][\"kind\"] == \"workspace\""
'

test_expect_success 'no engine with --json: an error object, exit 255' '
	expect_status 255 "$SANDBOX" --json --engine /nonexistent -w "$REF" exec -- true >out 2>err &&
	must_be_empty err &&
	json_check out "d[\"error\"][\"kind\"] in (\"engine\", \"workspace\")"
'

test_expect_success 'run --json: one object; the workspace is gone after' '
	N=$(new_name jrun) &&
	sb --json run --image "$IMAGE" --name "$N" -- echo hi >out 2>err &&
	must_be_empty err &&
	json_check out "d[\"workspace\"] == \"$N\" and d[\"stdout\"] == \"hi\\n\" and d[\"exit_code\"] == 0" &&
	ctr_gone "$N"
'

test_expect_success 'destroy --json: {"removed": [REF]}' '
	new_ws D &&
	sb --json destroy "$D" >out &&
	json_check out "d == {\"removed\": [\"$D\"]}" &&
	sb --json destroy "$D" >out &&
	json_check out "d == {\"removed\": []}"
'

test_expect_success 'start and stop --json: {"workspace": REF, "id": ID}' '
	id=$(eng inspect --format "{{.Id}}" "$REF") &&
	sb --json stop "$REF" >out &&
	json_check out "d == {\"workspace\": \"$REF\", \"id\": \"$id\"}" &&
	sb --json start "$REF" >out &&
	json_check out "d == {\"workspace\": \"$REF\", \"id\": \"$id\"}"
'

test_expect_success 'stdout_bytes and stderr_bytes count every byte written' '
	sb --json -w "$REF" exec --max-output 8 -- sh -c "printf 0123456789; printf abc >&2" >out &&
	json_check out "d[\"stdout_bytes\"] == 10 and d[\"stderr_bytes\"] == 3 and d[\"stdout\"] == \"01236789\""
'

test_done
