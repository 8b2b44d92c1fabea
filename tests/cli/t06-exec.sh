#!/bin/bash
# sandbox exec: the command, its arguments, input and output, where it
# runs, its environment, and how the workspace is chosen (-w,
# SANDBOX_WORKSPACE, or a new one).
. "$(dirname "$0")/../lib.sh"
pairwise
need_engine

marker() { echo $((40000 + RANDOM)); }
# kill_sleep REF N: ends the processes "sleep N" of workspace REF.
kill_sleep() {
	eng exec "$1" sh -c 'for f in /proc/[0-9]*/cmdline; do
		[ "$(tr "\0" " " <"$f" 2>/dev/null)" = "sleep $1 " ] || continue
		p=${f#/proc/}; kill "${p%/cmdline}"
	done' sh "$2"
}

test_expect_success 'setup: a workspace' '
	new_ws REF
'

test_expect_success 'the arguments reach the command exactly, one by one' '
	sb -w "$REF" exec -- printf "[%s]\n" "a b" "it${SQ}s" "\$HOME" "" "*" "x
y" "-c" "--" >out &&
	printf "[%s]\n" "a b" "it${SQ}s" "\$HOME" "" "*" "x
y" "-c" "--" >expect &&
	cmp_file expect out
'

test_expect_success 'the first argument starts the command: its options are not sandbox'"'"'s' '
	sb -w "$REF" exec echo -v --json -w x -- y >out &&
	cmp_text "-v --json -w x -- y" out
'

test_expect_success 'stdout and stderr stay apart' '
	sb -w "$REF" exec -- sh -c "echo to-out; echo to-err >&2" >out 2>err &&
	cmp_text to-out out &&
	cmp_text to-err err
'

test_expect_success 'output without a final newline, and bytes like the markers, pass as they are' '
	sb -w "$REF" exec -- printf "a\036b\036:done:0\036" >out &&
	printf "a\036b\036:done:0\036" >expect &&
	cmp_file expect out &&
	sb -w "$REF" exec -- printf "no newline" >out &&
	printf "no newline" >expect &&
	cmp_file expect out
'

test_expect_success 'a lot of output comes through whole' '
	sb -w "$REF" exec -- sh -c "i=0; while [ \$i -lt 20000 ]; do echo line \$i; i=\$((i+1)); done" >out &&
	i=0 && while [ $i -lt 20000 ]; do echo line $i; i=$((i+1)); done >expect &&
	cmp_file expect out
'

test_expect_success 'exec -c runs shell text' '
	sb -w "$REF" exec -c "echo \$((6 * 7)); echo err >&2" >out 2>err &&
	cmp_text 42 out &&
	cmp_text err err
'

# "At once": exec has returned while the background process still runs
# in the workspace (it would for half a day: exec waiting for it would
# meet timeout 60 first, which fails the test).
test_expect_success 'exec returns at once when a background process holds its output' '
	m=$(marker) &&
	timeout 60 "$SANDBOX" --engine "$ENGINE" -w "$REF" exec -- sh -c "echo before; sleep $m & echo after" >out 2>err &&
	wait_until 30 has_proc "$REF" "^sleep $m" &&
	printf "before\nafter\n" >expect &&
	cmp_file expect out &&
	must_be_empty err &&
	kill_sleep "$REF" "$m"
'

test_expect_success 'and with its status' '
	m=$(marker) &&
	expect_status 3 timeout 60 "$SANDBOX" --engine "$ENGINE" -w "$REF" exec -- sh -c "sleep $m & exit 3" &&
	wait_until 30 has_proc "$REF" "^sleep $m" &&
	kill_sleep "$REF" "$m"
'

test_expect_success 'exec -i forwards stdin' '
	printf "line1\nline2\n" | sb -w "$REF" exec -i -- cat >out &&
	printf "line1\nline2\n" >expect &&
	cmp_file expect out
'

test_expect_success 'exec -i with a lot of binary input' '
	head -c 300000 /dev/urandom >in &&
	sb -w "$REF" exec -i -- cat <in >out &&
	cmp_file in out
'

test_expect_success 'without -i the command gets no stdin' '
	echo data | sb -w "$REF" exec -- cat >out &&
	must_be_empty out
'

test_expect_success '--env K=V is for this command only' '
	sb -w "$REF" exec --env "FOO=a b" -e BAR=2 -- sh -c "printf \"%s|%s\n\" \"\$FOO\" \"\$BAR\"" >out &&
	cmp_text "a b|2" out &&
	sb -w "$REF" exec -- sh -c "printf \"%s\n\" \"\${FOO-unset}\"" >out &&
	cmp_text unset out
'

# The names the exec wrapper (and the channel's server) use for their
# own work: a caller's variable of one of them reaches the command all
# the same, with a value that needs quoting.
WNAMES="t w d x i o u l v e m K n a f b s c E T S0 z"
wrap_env() { local n; for n in $WNAMES; do printf -- "-e\n%s=<%s>\n" "$n" "$n"; done; }
wrap_expect() { local n; for n in $WNAMES; do printf "%s=<%s>\n" "$n" "$n"; done; }
wrap_show='for _v in $WNAMES; do eval "printf \"%s=%s\\n\" \$_v \"\${$_v-unset}\""; done'

test_expect_success '-e with the wrapper'"'"'s own names: each reaches the command' '
	mapfile -t args < <(wrap_env) &&
	sb -w "$REF" exec "${args[@]}" -e WNAMES="$WNAMES" -- sh -c "$wrap_show" >out &&
	wrap_expect >expect &&
	cmp_file expect out &&
	arg=$(printf "a\377b") &&
	sb -w "$REF" exec "${args[@]}" -e WNAMES="$WNAMES" -- sh -c "$wrap_show; printf \"%s\\n\" \"\$1\"" sh "$arg" >out &&
	{ wrap_expect && printf "%s\n" "$arg"; } >expect &&
	cmp_file expect out &&
	sb -w "$REF" exec -e "d=it'"'"'s \"\$(id)\"
two" -- sh -c "printf \"%s\\n\" \"\$d\"" >out &&
	printf "it'"'"'s \"\$(id)\"\ntwo\n" >expect &&
	cmp_file expect out
'

test_expect_success 'the wrapper'"'"'s names that the caller did not set stay unset' '
	sb -w "$REF" exec -e WNAMES="$WNAMES" -- sh -c "$wrap_show" >out &&
	for n in $WNAMES; do echo "$n=unset"; done >expect &&
	cmp_file expect out
'

test_expect_success '-e with the wrapper'"'"'s names: a background job and a session get them too' '
	mapfile -t args < <(wrap_env) &&
	j=$(sb -w "$REF" exec --background "${args[@]}" -e WNAMES="$WNAMES" -- sh -c "$wrap_show") &&
	sb -w "$REF" wait "$j" >/dev/null &&
	sb -w "$REF" logs "$j" >out &&
	wrap_expect >expect &&
	cmp_file expect out &&
	sb -w "$REF" exec --session wn "${args[@]}" -e WNAMES="$WNAMES" -- sh -c "$wrap_show" >out &&
	cmp_file expect out
'

# sig_default FILE: the SigIgn line of /proc/PID/status in FILE ignores
# neither SIGINT nor SIGQUIT (bits 1 and 2).
sig_default() {
	local m
	m=$(sed -n "s/^SigIgn:[[:space:]]*//p" "$1") && [ -n "$m" ] && (( (0x$m & 6) == 0 )) || {
		echo "SigIgn: ${m-none} (SIGINT and SIGQUIT must not be ignored)" >&4
		return 1
	}
}

test_expect_success 'a command, a job and a session'"'"'s command do not ignore SIGINT or SIGQUIT' '
	sb -w "$REF" exec -- cat /proc/self/status >out &&
	sig_default out &&
	j=$(sb -w "$REF" exec --background -- cat /proc/self/status) &&
	sb -w "$REF" wait "$j" >/dev/null &&
	sb -w "$REF" logs "$j" >out &&
	sig_default out &&
	sb -w "$REF" exec --session sq -- cat /proc/self/status >out &&
	sig_default out
'

test_expect_success 'the caller'"'"'s environment does not reach the command' '
	SECRET_TOKEN=hunter2 AWS_SECRET_ACCESS_KEY=y sb -w "$REF" exec -- env >out &&
	no_grep_file -e SECRET_TOKEN -e hunter2 -e AWS_SECRET out
'

test_expect_success '--cwd relative: under the workdir' '
	sb -w "$REF" exec -- mkdir -p sub/dir &&
	sb -w "$REF" exec --cwd sub/dir -- pwd >out &&
	cmp_text /workspace/sub/dir out
'

test_expect_success '--cwd absolute' '
	sb -w "$REF" exec --cwd /tmp -- pwd >out &&
	cmp_text /tmp out
'

test_expect_success '--cwd that does not exist: exit 2, a message, nothing run' '
	expect_status 2 sb -w "$REF" exec --cwd /nope -- touch /tmp/ran-nope >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: exec: --cwd /nope: no such directory in the workspace" err &&
	expect_status 2 sb -w "$REF" exec --cwd nope -- touch /tmp/ran-nope 2>err &&
	cmp_text "sandbox: exec: --cwd nope: no such directory in the workspace" err &&
	check "the command did not run" sb -w "$REF" exec -- test ! -e /tmp/ran-nope
'

test_expect_success 'a cd in one command does not move the next' '
	sb -w "$REF" exec -c "cd /tmp" &&
	sb -w "$REF" exec -- pwd >out &&
	cmp_text /workspace out
'

test_expect_success 'files stay in the workspace from one exec to the next' '
	sb -w "$REF" exec -c "echo kept >file" &&
	sb -w "$REF" exec -- cat file >out &&
	cmp_text kept out
'

test_expect_success 'global options after the command name' '
	sb exec -w "$REF" -v -- echo hi >out 2>err &&
	cmp_text hi out &&
	# An engine argv, or the resident channel the call went through.
	grep_file -E "^(\+ |sandbox: calls go through the resident process)" err &&
	"$SANDBOX" exec --engine "$ENGINE" --workspace="$REF" -- echo hi >out &&
	cmp_text hi out
'

test_expect_success PYTHON 'exec --json -w REF after the command name' '
	sb exec --json -w "$REF" -- true >out 2>err &&
	must_be_empty err &&
	json_check out "d[\"workspace\"] == \"$REF\" and d[\"exit_code\"] == 0"
'

test_expect_success 'SANDBOX_WORKSPACE names the workspace' '
	SANDBOX_WORKSPACE=$REF sb exec -- cat file >out &&
	cmp_text kept out
'

test_expect_success '-w wins over SANDBOX_WORKSPACE' '
	SANDBOX_WORKSPACE=sandbox-000000000000 sb -w "$REF" exec -- cat file >out &&
	cmp_text kept out
'

test_expect_success 'without a workspace, exec creates one and says so on stderr' '
	printf "[sandbox]\nimage = %s\n" "$IMAGE" >sandbox.ini &&
	sb trust >/dev/null &&
	sb exec -- sh -c "echo lazy >made; echo hi" >out 2>err &&
	cmp_text hi out &&
	line_count 1 err &&
	LAZY=$(sed -n "s/^sandbox: created workspace \(sandbox-[0-9a-f]\{12\}\) (pass -w .*/\1/p" err) &&
	check "a ref in: $(cat err)" test -n "$LAZY" &&
	cmp_text "sandbox: created workspace $LAZY (pass -w $LAZY to reuse it)" err &&
	eng inspect --format "{{index .Config.Labels \"sandbox.workspace\"}}" "$LAZY" >out &&
	cmp_text true out &&
	sb -w "$LAZY" exec -- cat made >out &&
	cmp_text lazy out
'

test_expect_success PYTHON 'without a workspace, exec --json names the new one in "workspace"' '
	sb --json exec -- true >out 2>err &&
	must_be_empty err &&
	json_check out "d[\"workspace\"].startswith(\"sandbox-\") and d[\"exit_code\"] == 0" &&
	J=$(python3 -c "import json; print(json.load(open(\"out\"))[\"workspace\"])") &&
	check "$J exists" ctr_exists "$J"
'

test_expect_success PYTHON 'a new workspace, then a failure: the error object names it in "workspace"' '
	expect_status 2 sb --json exec --cwd /nope -- true >out 2>err &&
	json_check out "d[\"error\"][\"kind\"] == \"usage\" and d[\"workspace\"].startswith(\"sandbox-\")" &&
	J=$(python3 -c "import json; print(json.load(open(\"out\"))[\"workspace\"])") &&
	check "$J exists" ctr_exists "$J" &&
	rm sandbox.ini
'

test_expect_success 'a closed stdout: exec stops the command (exit 141)' '
	m=$(marker) &&
	{ sb -w "$REF" exec -- sh -c "while :; do echo y; done" "yes-$m" 2>err; echo $? >status; } | head -n 1 >out &&
	cmp_text y out &&
	cmp_text 141 status &&
	procs "$REF" >ps &&
	no_grep_file "yes-$m" ps
'

test_expect_success 'SIGINT to exec: the command is killed in the workspace, exit 130' '
	m=$(marker) &&
	set -m &&
	{ "$SANDBOX" --engine "$ENGINE" -w "$REF" exec -- sleep "$m" >out 2>err & pid=$!; } &&
	set +m &&
	wait_until 60 has_proc "$REF" "^sleep $m" &&
	kill -INT "$pid" &&
	expect_status 130 wait_exit 60 "$pid" &&
	cmp_text "sandbox: exec: interrupted; the command was killed in the workspace" err &&
	procs "$REF" >ps &&
	no_grep_file -E "^sleep $m" ps
'

test_expect_success 'SIGTERM to exec: the command is killed in the workspace, exit 143' '
	m=$(marker) &&
	{ "$SANDBOX" --engine "$ENGINE" -w "$REF" exec -- sleep "$m" >out 2>err & pid=$!; } &&
	wait_until 60 has_proc "$REF" "^sleep $m" &&
	kill -TERM "$pid" &&
	expect_status 143 wait_exit 60 "$pid" &&
	procs "$REF" >ps &&
	no_grep_file -E "^sleep $m" ps
'

test_expect_success 'SIGHUP to exec: the command is killed in the workspace, exit 129' '
	m=$(marker) &&
	{ "$SANDBOX" --engine "$ENGINE" -w "$REF" exec -- sleep "$m" >out 2>err & pid=$!; } &&
	wait_until 60 has_proc "$REF" "^sleep $m" &&
	kill -HUP "$pid" &&
	expect_status 129 wait_exit 60 "$pid" &&
	procs "$REF" >ps &&
	no_grep_file -E "^sleep $m" ps
'

test_expect_success 'arguments that are not UTF-8 reach the command byte for byte' '
	arg=$(printf "a\\377b\\\\0101\\nend\\n") &&
	sb -w "$REF" exec -- printf "%s|" "$arg" "" "x" >out &&
	printf "%s|" "$arg" "" "x" >expect &&
	cmp_file expect out
'

test_expect_success '--cwd that is not UTF-8 is entered, not mangled' '
	dir=$(printf "d\\377") &&
	sb -w "$REF" exec -- mkdir -p "$dir" &&
	sb -w "$REF" exec --cwd "$dir" -- pwd >out &&
	printf "/workspace/%s\\n" "$dir" >expect &&
	cmp_file expect out
'

test_done
