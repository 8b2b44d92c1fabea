#!/bin/bash
# glob and grep against a hostile workspace: its root replaces /bin/sh
# with one that rewrites the file tools' scripts before running them, so
# that the answers are whatever it likes (whatever PATH the scripts set).
# An answer the script never writes is an error, never a crash; a
# listing with a long run of spaces is read in linear time; 300 MB of
# NULs, a file of 20 MB of matching lines, one of 300 lines of 1 MiB
# each, and output past the 4 MiB it stops at leave sandbox's own peak
# RSS (VmHWM, measured by tests/peak-rss.c; not on the sanitizer leg)
# under 32 MiB; a line of 1 MiB that a.*b does not match is matched in
# linear time; -A/-B/-C and --limit have caps, in the CLI and in MCP.
. "$(dirname "$0")/../lib.sh"
pairwise
need_engine
# Each call's scripts start afresh, an engine exec each: the rewriting sh
# here would bake the rule in place when a channel's server starts into
# that server's scripts, and this file changes the rule call by call to
# check each forged answer. (Through the resident, a forged answer is
# refused the same; which one it is would depend on when the channel
# started.)
export SANDBOX_KEEP=no

CLIENT=$(cd "$(dirname "$0")/.." && pwd)/mcp-client

# The peak RSS of sandbox itself (lib.sh's peak_kib); not on the
# sanitizer leg.
need_peak_rss

# peak_kib_of CMD...: runs CMD (its status kept in $st) and puts sandbox's
# peak RSS in KiB in $peak (empty without PEAK_RSS).
peak_kib_of() {
	peak_kib "$TRASH/.peak" "$@"
	st=$?
	peak=
	if test_have_prereq PEAK_RSS; then
		peak=$(cat "$TRASH/.peak")
		[ "$peak" -gt 0 ] 2>/dev/null || {
			echo "error: no peak RSS was written" >&4
			return 1
		}
	fi
	return 0
}

# peak_below KIB: the last peak_kib_of stayed under KIB (or was not
# measured).
peak_below() {
	[ -z "$peak" ] && return 0
	if [ "$peak" -ge "$1" ]; then
		echo "error: peak RSS $peak KiB, expected under $1 KiB" >&4
		return 1
	fi
	echo "peak RSS: $peak KiB" >&4
}

mcp() {
	local out=$1
	shift
	"$CLIENT" "$SANDBOX" --engine "$ENGINE" mcp "$@" >"$out" 2>"$out.err"
}

test_expect_success 'setup: a workspace whose sh rewrites the scripts it runs' '
	new_ws REF &&
	sb -w "$REF" exec -c "mkdir -p r && echo foo >r/a.txt" &&
	rewriting_sh "$REF" &&
	answer_with "nothing to find" "" &&
	sb -w "$REF" grep foo >out &&
	cmp_text r/a.txt out
'

test_expect_success 'grep answered as if the workdir were a file: an error, no crash; with --path, the path as given' '
	answer_with "echo ${SQ}OK D${SQ}" "echo ${SQ}OK F${SQ}" &&
	expect_status 255 sb -w "$REF" grep foo >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: grep: unexpected answer from the workspace: OK F" err &&
	expect_status 255 sb -w "$REF" --json grep foo --output content >out 2>err &&
	must_be_empty err &&
	cmp_text "{\"error\":{\"kind\":\"workspace\",\"message\":\"unexpected answer from the workspace: OK F\"}}" out &&
	sb -w "$REF" grep foo --path r >out &&
	cmp_text r out
'

test_expect_success PYTHON 'the same through MCP: an error result, and the server goes on' '
	printf "%s\n" init "call 1 grep {\"pattern\": \"foo\"}" "<" \
		"> {\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}" "<" close |
		mcp out -w "$REF" &&
	sed -n 2p out >res &&
	json_check res "d[\"id\"] == 1 and d[\"result\"][\"isError\"] is True and d[\"result\"][\"content\"][0][\"text\"] == \"error: unexpected answer from the workspace: OK F\"" &&
	sed -n 3p out >res &&
	json_check res "d == {\"jsonrpc\": \"2.0\", \"id\": 2, \"result\": {}}" &&
	grep_file "^exit 0$" out
'

test_expect_success 'glob and grep: any other answer is an error that shows it, escaped and cut' '
	answer_with "echo OK" "printf \"NOPE\\033[2J%070d\\n\" 0" &&
	expect_status 255 sb -w "$REF" glob "*" >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: glob: unexpected answer from the workspace: \"NOPE\\033[2J$(printf %052d 0)\"..." err &&
	answer_with "echo ${SQ}OK D${SQ}" "echo OKAY" &&
	expect_status 255 sb -w "$REF" grep foo --path r >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: grep: unexpected answer from the workspace: OKAY" err
'

# An old parser looked at a run of spaces again for each name, and
# SIGTERM could not stop it (a signal only sets a flag): KILL after 60 s.
test_expect_success 'glob: 40000 records, then 10 MB of spaces and one more: read in linear time' '
	eng exec "$REF" sh -c "i=0; while [ \$i -lt 40000 ]; do printf \"7 .//n%d\\\\n\" \$i; i=\$((i + 1)); done >/tmp/listing
		printf \"8 .//x\" >>/tmp/listing
		head -c 10000000 /dev/zero | tr \"\\\\000\" \" \" >>/tmp/listing
		printf \"\\\\n9 .//n40000\\\\n//\" >>/tmp/listing" &&
	answer_with "echo OK" "echo OK; cat /tmp/listing; exit 0" &&
	timeout -s KILL 60 "$SANDBOX" --engine "$ENGINE" -w "$REF" glob "n40000" >out 2>err &&
	must_be_empty err &&
	cmp_text n40000 out
'

test_expect_success 'glob: 100 MB of NULs as the listing: nothing matches, and the peak RSS stays under 32 MiB' '
	answer_with "echo OK" "echo OK; head -c 100000000 /dev/zero; exit 0" &&
	peak_kib_of sb -w "$REF" glob "*" >out 2>err &&
	check "exit 1, not $st" test "$st" = 1 &&
	must_be_empty out &&
	cmp_text "sandbox: glob: no file matches" err &&
	peak_below 32768
'

test_expect_success 'setup: the scripts answer as they should again; two big files' '
	answer_with "nothing to find" "" &&
	sb -w "$REF" exec -c "mkdir -p wide && yes foo | head -c 20000000 >r/big.txt &&
		{ printf f; head -c 1048576 /dev/zero | tr \"\\\\000\" \"\\\\200\"; echo; } >/tmp/line &&
		i=0 && while [ \$i -lt 100 ]; do cat /tmp/line; i=\$((i + 1)); done >wide/w.txt" &&
	sb -w "$REF" exec -c "wc -c r/big.txt wide/w.txt" >out &&
	grep_file "20000000 r/big.txt" out &&
	grep_file "104857800 wide/w.txt" out
'

test_expect_success 'grep --output content --limit 5 over 20 MB of matching lines: five lines, the peak RSS under 32 MiB' '
	peak_kib_of sb -w "$REF" grep foo --path r/big.txt --output content --limit 5 >out &&
	check "exit 0, not $st" test "$st" = 0 &&
	printf "r/big.txt:%d:foo\n" 1 2 3 4 5 >expect &&
	echo "(4999995 more lines; raise --limit or narrow the search)" >>expect &&
	cmp_file expect out &&
	peak_below 32768 &&
	peak_kib_of sb -w "$REF" --json grep foo --path r --output content --limit 5 >out &&
	check "exit 0, not $st" test "$st" = 0 &&
	grep_file "\"total_lines\":5000001,\"truncated\":true}" out &&
	peak_below 32768
'

# A line's text is cut at 8000 bytes; the output stops at 4 MiB counted
# as JSON writes it, where each of those bytes takes 6 (\ufffd).
test_expect_success 'grep over 100 lines of 1 MiB of continuation bytes (100 MB): each cut at 8000 bytes, the peak RSS under 32 MiB' '
	peak_kib_of sb -w "$REF" grep "^f" --path wide --output content >out &&
	check "exit 0, not $st" test "$st" = 0 &&
	line_count 88 out &&
	check "at most 8000 bytes of a line: $(wc -c <out)" test "$(wc -c <out)" -le $((88 * (8000 + 40))) &&
	grep_file -a "^wide/w.txt:87:f" out &&
	tail -n 1 out >last &&
	cmp_text "(13 more lines; the output stops at 4 MiB: narrow the search)" last &&
	peak_below 32768 &&
	peak_kib_of sb -w "$REF" --json grep "^f" --path wide --output content >out &&
	check "exit 0, not $st" test "$st" = 0 &&
	check "at most 4 MiB of JSON and its keys: $(wc -c <out)" test "$(wc -c <out)" -le $((4194304 + 88 * 60 + 200)) &&
	peak_below 32768
'

test_expect_success 'grep: the output stops at 4 MiB, and says so; the peak RSS under 32 MiB' '
	sb -w "$REF" exec -c "x=\$(printf %01999d 0); i=0; while [ \$i -lt 3000 ]; do echo f\$x; i=\$((i + 1)); done >wide/v.txt" &&
	peak_kib_of sb -w "$REF" grep "^f" --path wide/v.txt --output content --limit 10000 >out &&
	check "exit 0, not $st" test "$st" = 0 &&
	peak_below 32768 &&
	line_count 2083 out &&
	tail -n 1 out >last &&
	cmp_text "(918 more lines; the output stops at 4 MiB: narrow the search)" last &&
	sb -w "$REF" --json grep "^f" --path wide/v.txt --output content --limit 10000 >out &&
	grep_file "\"total_lines\":3000,\"truncated\":true}" out
'

# glibc's regexec took time quadratic in the length of a line without a
# match: 21 s for a.*b on one line of 64 KiB of a, hours on 1 MiB, and
# neither the timeout nor an interrupt acted inside it. Now linear: well
# under a second, so that the KILL after 120 s can only catch a hang.
test_expect_success 'grep a.*b over a 1 MiB line of a and 21 lines of 64 KiB: done at once (glibc took hours)' '
	sb -w "$REF" exec -c "mkdir -p long && head -c 65536 /dev/zero | tr \"\\\\000\" a >/tmp/a64 &&
		{ head -c 1048576 /dev/zero | tr \"\\\\000\" a; echo; i=0;
		while [ \$i -lt 20 ]; do cat /tmp/a64; echo; i=\$((i + 1)); done;
		cat /tmp/a64; echo b; } >long/a.txt" &&
	sb -w "$REF" exec -c "wc -lc long/a.txt" >out &&
	grep_file -E "(^| )22 +2424855 long/a.txt" out &&
	timeout -s KILL 120 "$SANDBOX" --engine "$ENGINE" -w "$REF" grep "a.*b" --path long --output count >out 2>err &&
	must_be_empty err &&
	cmp_text long/a.txt:1 out &&
	expect_status 1 timeout -s KILL 120 "$SANDBOX" --engine "$ENGINE" -w "$REF" grep "(a|aa)*[cd]" --path long >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: grep: no match" err
'

test_expect_success 'a pattern that costs some 1000 steps a byte on these lines: the step timeout stops the matching, and says so' '
	sb -w "$REF" exec -c "mkdir -p thrash && awk \"BEGIN { srand(7); for (l = 0; l < 4; l++) {
		for (i = 0; i < 1048000; i++) printf(rand() < 0.5 ? \\\"a\\\" : \\\"b\\\"); print \\\"c\\\" } }\" >thrash/ab.txt" &&
	sb -w "$REF" exec -c "wc -lc thrash/ab.txt" >out &&
	grep_file -E "(^| )4 +4192008 thrash/ab.txt" out &&
	printf "[sandbox]\ntimeout = 2\n" >t2.ini &&
	expect_status 1 timeout -s KILL 100 "$SANDBOX" --engine "$ENGINE" --config t2.ini -w "$REF" \
		grep "[ab]*a[ab]{2490}c" --path thrash >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: grep: timed out after 2s matching the lines; narrow the pattern or the path" err &&
	sb -w "$REF" grep "^[ab]*c$" --path thrash --output count >out &&
	cmp_text thrash/ab.txt:4 out
'

test_expect_success 'glob: the output stops at 4 MiB, and says so; the peak RSS under 32 MiB' '
	eng exec "$REF" sh -c "i=0; while [ \$i -lt 5000 ]; do printf \"7 .//%01000d\\\\n\" \$i; i=\$((i + 1)); done >/tmp/listing
		printf // >>/tmp/listing" &&
	answer_with "echo OK" "echo OK; cat /tmp/listing; exit 0" &&
	peak_kib_of sb -w "$REF" glob "*" --limit 10000 >out &&
	check "exit 0, not $st" test "$st" = 0 &&
	peak_below 32768 &&
	line_count 4186 out &&
	head -n 1 out >first &&
	cmp_text "$(printf %01000d 0)" first &&
	tail -n 1 out >last &&
	cmp_text "(815 more matches; the output stops at 4 MiB: narrow the pattern)" last &&
	answer_with "nothing to find" ""
'

test_expect_success '-A, -B, -C up to 100 and --limit up to 10000: beyond, a usage error before anything runs' '
	sb -w "$REF" grep foo --path r/a.txt --output content -C 100 --limit 10000 >out &&
	cmp_text r/a.txt:1:foo out &&
	for opt in "-A 101" "-B 101" "-C 101" "-C 100000000"; do
		expect_status 2 sb -w "$REF" grep foo --output content $opt >out 2>err || return 1
		must_be_empty out || return 1
		cmp_text "sandbox: grep: ${opt% *} ${SQ}${opt#-? }${SQ}: at most 100" err || return 1
	done &&
	expect_status 2 sb -w "$REF" grep foo --limit 10001 >out 2>err &&
	cmp_text "sandbox: grep: --limit ${SQ}10001${SQ}: at most 10000" err &&
	expect_status 2 sb -w "$REF" glob "*" --limit 100000000 >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: glob: --limit ${SQ}100000000${SQ}: at most 10000" err
'

test_expect_success PYTHON 'MCP: context 1000000000 and limit 10001 are refused (no 22 GiB ring), and the server goes on' '
	printf "%s\n" init \
		"call 1 grep {\"pattern\": \"foo\", \"path\": \"r/a.txt\", \"output_mode\": \"content\", \"context\": 1000000000}" "<" \
		"call 2 glob {\"pattern\": \"*\", \"limit\": 10001}" "<" \
		"call 3 grep {\"pattern\": \"foo\", \"path\": \"r/a.txt\", \"output_mode\": \"content\", \"context\": 100}" "<" close |
		mcp out -w "$REF" &&
	sed -n 2p out >res &&
	json_check res "d[\"result\"][\"isError\"] is True and d[\"result\"][\"structuredContent\"][\"error\"][\"message\"] == \"argument context must be at most 100\"" &&
	sed -n 3p out >res &&
	json_check res "d[\"result\"][\"isError\"] is True and d[\"result\"][\"structuredContent\"][\"error\"][\"message\"] == \"argument limit must be at most 10000\"" &&
	sed -n 4p out >res &&
	json_check res "d[\"result\"][\"isError\"] is False and d[\"result\"][\"structuredContent\"][\"matches\"] == [{\"path\": \"r/a.txt\", \"line\": 1, \"text\": \"foo\", \"match\": True}]" &&
	grep_file "^exit 0$" out
'

test_done
