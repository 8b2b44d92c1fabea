#!/bin/bash
# The ID cache: once a ref is known (created here, or checked by a first
# exec), exec is one engine call. The cache never lets sandbox into a
# container that is not a workspace: one put in place under the same name
# is refused.
. "$(dirname "$0")/../lib.sh"
image_independent
need_engine

ENGINE_PATH=$(command -v "$ENGINE")
# The engine calls counted here are the direct path's: with the resident
# process (t54), a call is none.
export SANDBOX_KEEP=no

# engine_lines FILE: how many engine commands -v printed to FILE.
engine_lines() { grep -c "^+ $ENGINE_PATH " "$1"; }

# calls N FILE: -v showed exactly N engine commands in FILE.
calls() {
	local n
	n=$(engine_lines "$2")
	if [ "$n" != "$1" ]; then
		echo "error: expected $1 engine commands, -v showed $n:" >&4
		grep "^+ " "$2" >&4
		return 1
	fi
}

test_expect_success 'after create, exec is one engine call (exec)' '
	new_ws REF &&
	sb -v -w "$REF" exec -- true 2>err &&
	calls 1 err &&
	grep_file "^+ $ENGINE_PATH exec " err
'

test_expect_success 'and stays one call' '
	sb -v -w "$REF" exec -- echo hi >out 2>err &&
	cmp_text hi out &&
	calls 1 err
'

test_expect_success 'a ref not in the cache: checked once (inspect), then one call' '
	mkdir other-cache &&
	R2=$(XDG_CACHE_HOME=$TRASH/other-cache sb create --image "$IMAGE") &&
	sb -v -w "$R2" exec -- true 2>err &&
	calls 2 err &&
	grep_file "^+ $ENGINE_PATH inspect " err &&
	sb -v -w "$R2" exec -- true 2>err &&
	calls 1 err
'

test_expect_success '-v prints each engine command shell-quoted' '
	sb -v -w "$REF" exec -- printf "%s\n" "a b" "it${SQ}s" "" >out 2>err &&
	printf "%s\n" "a b" "it${SQ}s" "" >expect &&
	cmp_file expect out &&
	grep_file -F " /workspace ${SQ}${SQ} 0 0 printf ${SQ}%s" err &&
	grep_file -F "${SQ} ${SQ}a b${SQ} ${SQ}it${SQ}\\${SQ}${SQ}s${SQ} ${SQ}${SQ}" err
'

test_expect_success 'a container put in place under a cached name is refused (exit 255)' '
	N=$(new_name swapped) &&
	new_ws W --name "$N" &&
	sb -v -w "$N" exec -- true 2>err &&
	calls 1 err &&
	eng_rm "$N" &&
	foreign_ctr "$N" &&
	before=$(ctr_info "$N") &&
	expect_status 255 sb -w "$N" exec -- touch /tmp/ran >out 2>err &&
	check "$N unchanged" test "$(ctr_info "$N")" = "$before" &&
	check "nothing ran in it" eng exec "$N" test ! -e /tmp/ran -a ! -e /workspace &&
	must_be_empty out &&
	cmp_text "sandbox: exec: container $N has no label sandbox.workspace=true; refusing to touch it" err
'

test_expect_success 'and refused again on the next try' '
	expect_status 255 sb -w "$N" exec -- true 2>err &&
	check "$N unchanged" test "$(ctr_info "$N")" = "$before" &&
	cmp_text "sandbox: exec: container $N has no label sandbox.workspace=true; refusing to touch it" err &&
	eng_rm "$N"
'

test_expect_success 'destroy, then an unlabelled container of the same name: refused (exit 255)' '
	N2=$(new_name redone) &&
	new_ws W2 --name "$N2" &&
	sb -w "$N2" exec -- true &&
	sb destroy "$N2" >/dev/null &&
	foreign_ctr "$N2" &&
	before=$(ctr_info "$N2") &&
	expect_status 255 sb -v -w "$N2" exec -- touch /tmp/ran >out 2>err &&
	check "$N2 unchanged" test "$(ctr_info "$N2")" = "$before" &&
	check "nothing ran in it" eng exec "$N2" test ! -e /tmp/ran &&
	no_grep_file "^+ $ENGINE_PATH \(exec\|start\|stop\|rm\|kill\) " err &&
	must_be_empty out &&
	tail -n 1 err >last &&
	cmp_text "sandbox: exec: container $N2 has no label sandbox.workspace=true; refusing to touch it" last
'

test_expect_success 'a workspace replaced by another workspace of the same name: exec finds the new one' '
	N3=$(new_name again) &&
	new_ws W3 --name "$N3" &&
	sb -w "$N3" exec -- true &&
	eng_rm "$N3" &&
	XDG_CACHE_HOME=$TRASH/other-cache sb create --image "$IMAGE" --name "$N3" >/dev/null &&
	sb -w "$N3" exec -- sh -c "echo new >/tmp/which" &&
	eng exec "$N3" cat /tmp/which >out &&
	cmp_text new out
'

test_expect_success 'a cached workspace stopped from outside: exec starts it (inspect, start, exec)' '
	sb -w "$REF" exec -- true &&
	eng stop -t 1 "$REF" >/dev/null &&
	sb -v -w "$REF" exec -- echo up >out 2>err &&
	cmp_text up out &&
	grep_file "^+ $ENGINE_PATH start " err &&
	check running test "$(ctr_state "$REF")" = running
'

# The first call finds the workspace stopped, which it is started for,
# and the call goes again: the input, which cannot go twice, waits for
# the command to start.
test_expect_success 'stopped from outside: write from a file and a pipe, exec -i, cp -: every byte of stdin goes' '
	printf "a\000b\377\nline 2\n" >bytes &&
	eng stop -t 1 "$REF" >/dev/null &&
	sb -w "$REF" write /tmp/from-file <bytes >/dev/null &&
	eng stop -t 1 "$REF" >/dev/null &&
	cat bytes | sb -w "$REF" write /tmp/from-pipe >/dev/null &&
	eng stop -t 1 "$REF" >/dev/null &&
	cat bytes | sb -w "$REF" exec -i -- sh -c "cat >/tmp/from-exec" &&
	mkdir -p dir && cp bytes dir/f && tar -cf dir.tar -C dir f &&
	eng stop -t 1 "$REF" >/dev/null &&
	cat dir.tar | sb -w "$REF" cp - :/tmp/from-cp >/dev/null &&
	for f in from-file from-pipe from-exec from-cp/f; do
		sb -w "$REF" read --raw "/tmp/$f" >got &&
		cmp_file bytes got || return 1
	done
'

test_done
