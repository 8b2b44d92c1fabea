#!/bin/bash
# sandbox run: create, exec, destroy. The workspace is removed whatever
# happens: success, failure, timeout, an interrupt.
. "$(dirname "$0")/../lib.sh"
image_independent
need_engine

marker() { echo $((40000 + RANDOM)); }

test_expect_success 'run: the command'"'"'s output and status; the workspace is removed' '
	N=$(new_name ok) &&
	sb run --image "$IMAGE" --name "$N" -- sh -c "echo hi; echo err >&2" >out 2>err &&
	cmp_text hi out &&
	cmp_text err err &&
	ctr_gone "$N"
'

test_expect_success 'run: a failing command; its status; removed' '
	N=$(new_name fail) &&
	expect_status 3 sb run --image "$IMAGE" --name "$N" -- sh -c "exit 3" >out 2>err &&
	must_be_empty out &&
	must_be_empty err &&
	ctr_gone "$N"
'

test_expect_success 'run: exit 125 and 127 are the command'"'"'s' '
	expect_status 125 sb run --image "$IMAGE" -- sh -c "exit 125" &&
	expect_status 127 sb run --image "$IMAGE" -- no-such-command 2>/dev/null
'

# The command would run for an hour: a run not cut by its timeout meets
# the KILL (status 137) first, however slow the machine.
test_expect_success 'run: timeout: exit 124, a message; removed' '
	N=$(new_name timeout) &&
	expect_status 124 timeout -s KILL 300 "$SANDBOX" --engine "$ENGINE" run --image "$IMAGE" --name "$N" \
		--timeout 1 -- sleep 3600 >out 2>err &&
	cmp_text "sandbox: run: timed out after 1s; the command was killed in the workspace" err &&
	ctr_gone "$N"
'

# interrupt SIG STATUS: run is sent SIG while its command runs.
interrupt() {
	local m
	m=$(marker)
	N=$(new_name "sig$1")
	set -m
	{ "$SANDBOX" --engine "$ENGINE" run --image "$IMAGE" --name "$N" -- sleep "$m" >out 2>err & pid=$!; }
	set +m
	wait_until 60 eval 'ctr_exists "$N" && has_proc "$N" "^sleep $m"' &&
	kill "-$1" "$pid" &&
	expect_status "$2" wait_exit 60 "$pid" &&
	ctr_gone "$N"
}

test_expect_success 'run: SIGINT while the command runs: exit 130, a message; removed' '
	interrupt INT 130 &&
	cmp_text "sandbox: run: interrupted; the command was killed in the workspace" err
'

test_expect_success 'run: SIGTERM while the command runs: exit 143; removed' '
	interrupt TERM 143
'

test_expect_success 'run: SIGINT during --setup: exit 130; removed' '
	N=$(new_name early) &&
	set -m &&
	{ "$SANDBOX" --engine "$ENGINE" run --image "$IMAGE" --name "$N" --setup "sleep 30" -- true >out 2>err & pid=$!; } &&
	set +m &&
	wait_until 60 eval "ctr_exists $N && has_proc $N \"^sleep 30\"" &&
	kill -INT "$pid" &&
	expect_status 130 wait_exit 60 "$pid" &&
	ctr_gone "$N"
'

test_expect_success 'run: a failing --setup: exit 255, a message, the command not run; removed' '
	N=$(new_name setup) &&
	expect_status 255 sb run --image "$IMAGE" --name "$N" --setup "exit 4" -- echo never >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: run: the setup command failed with status 4" err &&
	ctr_gone "$N"
'

test_expect_success 'run -c: shell text' '
	sb run --image "$IMAGE" -c "echo \$((1 + 2))" >out &&
	cmp_text 3 out
'

test_expect_success 'run: create and exec options together' '
	mkdir host &&
	sb run --image "$IMAGE" --mount "$TRASH/host" --env A=1 --timeout 30 --cwd /tmp -- sh -c "pwd; echo \$A >/workspace/from-run" >out &&
	cmp_text /tmp out &&
	cmp_text 1 host/from-run
'

test_expect_success 'run -i forwards stdin' '
	echo input | sb run --image "$IMAGE" -i -- cat >out &&
	cmp_text input out
'

test_expect_success 'run without a command: exit 2, nothing created' '
	N=$(new_name nocmd) &&
	expect_status 2 sb run --image "$IMAGE" --name "$N" >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: run: no command: give one after --, or shell text with -c" err &&
	ctr_gone "$N"
'

test_expect_success 'run leaves no workspace behind' '
	no_workspace_left
'

test_done
