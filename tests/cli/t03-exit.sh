#!/bin/bash
# The exit status of exec: the command's own, whatever it is (even 124 to
# 127), 128+N for a signal, 124 when --timeout kills it (and everything it
# started), and 255 only when sandbox itself failed: no engine, a workspace
# gone, refused, or stopped under the command.
. "$(dirname "$0")/../lib.sh"
pairwise
also_on_gvisor
need_engine

# A number for a marker process: `sleep $(marker)` is easy to find in /proc.
marker() { echo $((40000 + RANDOM)); }

test_expect_success 'setup: a workspace' '
	new_ws REF
'

for st in 0 1 2 3 42 100 124 125 254; do
	test_expect_success "exec exits $st when the command does" '
		expect_status '$st' sb -w "$REF" exec -- sh -c "exit '$st'" >out 2>err &&
		must_be_empty out &&
		must_be_empty err
	'
done

test_expect_success 'exec exits 126 when the file is not executable' '
	sb -w "$REF" exec -- sh -c "printf \"#!/bin/sh\necho hi\n\" >/tmp/noexec; chmod 644 /tmp/noexec" &&
	expect_status 126 sb -w "$REF" exec -- /tmp/noexec >out 2>err &&
	must_be_empty out &&
	grep_file -i "permission denied" err &&
	no_grep_file "^sandbox:" err
'

test_expect_success 'exec exits 127 when the command does not exist' '
	expect_status 127 sb -w "$REF" exec -- no-such-command-here >out 2>err &&
	must_be_empty out &&
	grep_file "no-such-command-here" err &&
	no_grep_file "^sandbox:" err
'

test_expect_success 'exec exit 3: a builtin as the command, in its own subshell' '
	expect_status 3 sb -w "$REF" exec exit 3
'

test_expect_success 'exec -c: the status of the shell text' '
	expect_status 7 sb -w "$REF" exec -c "true; exit 7"
'

test_expect_success 'killed by SIGKILL: exit 137' '
	expect_status 137 sb -w "$REF" exec -- sh -c "kill -9 \$\$" >out 2>err &&
	no_grep_file "^sandbox:" err
'

test_expect_success 'killed by SIGTERM: exit 143' '
	expect_status 143 sb -w "$REF" exec -- sh -c "kill -15 \$\$"
'

# The timeout counts from the command's start, however slow the engine:
# the command says started first.
test_expect_success '--timeout: exit 124, a message, and the command and its children are gone' '
	m1=$(marker) && m2=$((m1 + 1)) &&
	start=$(now_s) &&
	expect_status 124 sb -w "$REF" exec --timeout 2 -- sh -c "sleep $m1 & echo started; sleep $m2" >out 2>err &&
	elapsed_below "$start" 30 &&
	cmp_text started out &&
	cmp_text "sandbox: exec: timed out after 2s; the command was killed in the workspace" err &&
	procs "$REF" >ps &&
	no_grep_file -E "sleep ($m1|$m2)" ps
'

test_expect_success '--timeout with a fraction of a second' '
	expect_status 124 sb -w "$REF" exec --timeout 0.5 -- sleep 30 2>err &&
	cmp_text "sandbox: exec: timed out after 0.5s; the command was killed in the workspace" err
'

test_expect_success '--timeout kills a process group that ignores SIGTERM' '
	m=$(marker) &&
	expect_status 124 sb -w "$REF" exec --timeout 1 -- sh -c "trap \"\" TERM; sleep $m" 2>err &&
	procs "$REF" >ps &&
	no_grep_file -E "sleep $m" ps
'

test_expect_success '--timeout not reached: the command'"'"'s status' '
	expect_status 5 sb -w "$REF" exec --timeout 30 -- sh -c "exit 5" 2>err &&
	must_be_empty err
'

test_expect_success '--timeout: a process that left with setsid survives' '
	m1=$(marker) && m2=$((m1 + 1)) &&
	expect_status 124 sb -w "$REF" exec --timeout 2 -- sh -c "setsid sleep $m1 </dev/null >/dev/null 2>&1 & sleep $m2" 2>err &&
	procs "$REF" >ps &&
	grep_file -E "sleep $m1" ps &&
	no_grep_file -E "sleep $m2" ps
'

test_expect_success 'the next exec after a timeout runs normally' '
	sb -w "$REF" exec -- echo fine >out &&
	cmp_text fine out
'

test_expect_success 'no engine (--engine /nonexistent): exit 255' '
	expect_status 255 "$SANDBOX" --engine /nonexistent -w "$REF" exec -- true >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: exec: engine /nonexistent: No such file or directory" err
'

test_expect_success 'no engine by that name in PATH: exit 255' '
	expect_status 255 "$SANDBOX" --engine no-such-engine -w "$REF" exec -- true >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: exec: engine ${SQ}no-such-engine${SQ} not found in PATH; install Docker or Podman, or pass --engine" err
'

test_expect_success 'a destroyed workspace: exit 255' '
	new_ws G &&
	sb destroy "$G" >/dev/null &&
	expect_status 255 sb -w "$G" exec -- true >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: exec: workspace $G does not exist (destroyed?); create one with ${SQ}sandbox create${SQ}" err
'

test_expect_success 'a workspace removed behind sandbox'"'"'s back (cached ref): exit 255' '
	new_ws G2 &&
	sb -w "$G2" exec -- true &&
	eng_rm "$G2" &&
	expect_status 255 sb -w "$G2" exec -- true >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: exec: workspace $G2 does not exist (destroyed?); create one with ${SQ}sandbox create${SQ}" err
'

test_expect_success 'a container without the label: exit 255, and nothing runs in it' '
	F=$(new_name foreign) &&
	foreign_ctr "$F" &&
	before=$(ctr_info "$F") &&
	expect_status 255 sb -w "$F" exec -- touch /tmp/ran >out 2>err &&
	check "$F unchanged" test "$(ctr_info "$F")" = "$before" &&
	check "nothing ran in $F" eng exec "$F" test ! -e /tmp/ran -a ! -e /workspace &&
	must_be_empty out &&
	cmp_text "sandbox: exec: container $F has no label sandbox.workspace=true; refusing to touch it" err
'

# kill_mid_command HOW: a command runs; the workspace is stopped under it.
kill_mid_command() {
	local m
	m=$(marker)
	"$SANDBOX" --engine "$ENGINE" -w "$K" exec -- sleep "$m" >out 2>err &
	pid=$!
	wait_until 60 has_proc "$K" "^sleep $m" &&
	eng "$@" "$K" >/dev/null &&
	expect_status 255 wait_exit 60 "$pid" &&
	must_be_empty out &&
	tail -n 1 err >last &&
	cmp_text "sandbox: exec: the workspace stopped while the command ran" last
}

test_expect_success 'the workspace killed under a running command: exit 255, not the command'"'"'s 137' '
	new_ws K &&
	kill_mid_command kill
'

test_expect_success 'exec in a killed workspace starts it again' '
	sb -w "$K" exec -- echo back >out &&
	cmp_text back out &&
	check running test "$(ctr_state "$K")" = running
'

test_expect_success 'the workspace stopped under a running command: exit 255' '
	kill_mid_command stop -t 1
'

test_expect_success 'a workdir that cannot be created: exit 255, the command not run' '
	new_ws BADWD --workdir /proc/sandbox-test &&
	expect_status 255 sb -w "$BADWD" exec -- touch /tmp/ran >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: exec: cannot enter or create the workdir /proc/sandbox-test in the workspace" err &&
	check "the command did not run" eng exec "$BADWD" test ! -e /tmp/ran
'

test_expect_success 'a workspace failure in --json mode: the error object, exit 255' '
	expect_status 255 sb --json -w "$G" exec -- true >out 2>err &&
	must_be_empty err &&
	cmp_text "{\"error\":{\"kind\":\"workspace\",\"message\":\"workspace $G does not exist (destroyed?); create one with ${SQ}sandbox create${SQ}\"}}" out
'

test_done
