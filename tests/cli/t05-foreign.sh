#!/bin/bash
# Containers without the label sandbox.workspace=true are never touched:
# no exec in them, no start, stop or removal, whatever the command.
. "$(dirname "$0")/../lib.sh"
image_independent
need_engine

# unchanged NAME BEFORE: the container's ID, state and start time are as before.
unchanged() {
	local now
	now=$(ctr_info "$1")
	if [ "$now" != "$2" ]; then
		echo "error: $1 changed: was '$2', now '$now'" >&4
		return 1
	fi
}

# refuses CMD NAME BEFORE SANDBOX-ARGS...: sandbox SANDBOX-ARGS exits 255,
# container NAME is as BEFORE, and the one line on stderr is the refusal of
# CMD (checked last: what happened to the container matters most).
refuses() {
	local cmd=$1 name=$2 before=$3
	shift 3
	expect_status 255 sb "$@" >out 2>err &&
	unchanged "$name" "$before" &&
	must_be_empty out &&
	cmp_text "sandbox: $cmd: container $name has no label sandbox.workspace=true; refusing to touch it" err
}

test_expect_success 'setup: a running and a never-started container without the label' '
	F=$(new_name running) &&
	foreign_ctr "$F" &&
	C=$(new_name created) &&
	eng create --name "$C" "$IMAGE" sleep 100000 >/dev/null &&
	L=$(new_name labelfalse) &&
	eng run -d --name "$L" --label sandbox.workspace=false "$IMAGE" sleep 100000 >/dev/null &&
	F0=$(ctr_info "$F") && C0=$(ctr_info "$C") && L0=$(ctr_info "$L") &&
	check "created state" test "$(ctr_state "$C")" = created
'

test_expect_success 'stop refuses (exit 255); the container keeps running' '
	refuses stop "$F" "$F0" stop "$F"
'

test_expect_success 'start refuses (exit 255); the container is not started' '
	refuses start "$C" "$C0" start "$C"
'

test_expect_success 'exec refuses a never-started container (exit 255) and does not start it' '
	refuses exec "$C" "$C0" -w "$C" exec -- true
'

test_expect_success 'exec refuses a running one (exit 255); nothing runs in it' '
	refuses exec "$F" "$F0" -w "$F" exec -- touch /tmp/ran &&
	check "nothing ran in it" eng exec "$F" test ! -e /tmp/ran -a ! -e /workspace
'

test_expect_success 'destroy refuses (exit 255); the container stays' '
	refuses destroy "$F" "$F0" destroy "$F"
'

test_expect_success 'destroy of a workspace and a foreign container removes neither' '
	new_ws W &&
	refuses destroy "$F" "$F0" destroy "$W" "$F" &&
	check "$W still exists" ctr_exists "$W"
'

test_expect_success 'a label sandbox.workspace=false is no label: exec, stop, destroy refuse' '
	refuses exec "$L" "$L0" -w "$L" exec -- true &&
	refuses stop "$L" "$L0" stop "$L" &&
	refuses destroy "$L" "$L0" destroy "$L"
'

test_expect_success 'SANDBOX_WORKSPACE naming a foreign container is refused the same way' '
	SANDBOX_WORKSPACE=$F refuses exec "$F" "$F0" exec -- true &&
	SANDBOX_WORKSPACE=$F refuses stop "$F" "$F0" stop
'

test_expect_success 'a stopped foreign container: start and exec refuse, it stays stopped' '
	eng stop -t 0 "$F" >/dev/null &&
	F1=$(ctr_info "$F") &&
	refuses start "$F" "$F1" start "$F" &&
	refuses exec "$F" "$F1" -w "$F" exec -- true
'

test_expect_success 'create --name of a foreign container fails (exit 1) and leaves it alone' '
	expect_status 1 sb create --image "$IMAGE" --name "$L" >out 2>err &&
	unchanged "$L" "$L0" &&
	must_be_empty out &&
	grep_file "^sandbox: create: cannot create the workspace: " err
'

test_expect_success 'run --name of a foreign container fails (exit 255) and leaves it alone' '
	R=$(new_name forrun) &&
	foreign_ctr "$R" &&
	R0=$(ctr_info "$R") &&
	expect_status 255 sb run --image "$IMAGE" --name "$R" -- touch /tmp/ran >out 2>err &&
	unchanged "$R" "$R0" &&
	check "nothing ran in it" eng exec "$R" test ! -e /tmp/ran &&
	must_be_empty out &&
	grep_file "^sandbox: run: cannot create the workspace: " err
'

test_expect_success 'the other foreign containers all still exist, unchanged' '
	unchanged "$F" "$F1" && unchanged "$C" "$C0"
'

test_done
