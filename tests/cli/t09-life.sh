#!/bin/bash
# The life of a workspace: stop, start, destroy, list, prune.
#
# destroy --all and prune act on every workspace of the engine: those
# tests run only when the engine has no workspace but this file's (they are
# skipped, not failed, on a machine where other workspaces exist).
. "$(dirname "$0")/../lib.sh"
image_independent
need_engine

alone_prereq

test_expect_success 'setup: a workspace with a file in it' '
	new_ws REF &&
	sb -w "$REF" exec -c "echo kept >file"
'

# Quick because the workspace ends on the TERM of the stop, with status
# 0: had the engine to wait out its grace and kill it, it would be 137.
test_expect_success 'stop: prints the ref; the workspace ends on the TERM (0, not killed), stopped' '
	sb stop "$REF" >out 2>err &&
	cmp_text "$REF" out &&
	must_be_empty err &&
	check "exited: $(ctr_state "$REF")" test "$(ctr_state "$REF")" = exited &&
	eng container inspect --format "{{.State.ExitCode}}" "$REF" >code &&
	cmp_text 0 code
'

test_expect_success 'stop of a stopped workspace: exit 0' '
	sb stop "$REF" >out &&
	cmp_text "$REF" out
'

test_expect_success 'start: prints the ref; the files survived' '
	sb start "$REF" >out 2>err &&
	cmp_text "$REF" out &&
	must_be_empty err &&
	check running test "$(ctr_state "$REF")" = running &&
	sb -w "$REF" exec -- cat file >out &&
	cmp_text kept out
'

test_expect_success 'start of a running workspace: exit 0' '
	sb start "$REF" >out &&
	cmp_text "$REF" out
'

test_expect_success 'exec in a stopped workspace starts it; the files survived' '
	sb stop "$REF" >/dev/null &&
	sb -w "$REF" exec -- cat file >out &&
	cmp_text kept out &&
	check running test "$(ctr_state "$REF")" = running
'

test_expect_success 'stop and start take the ref from -w and SANDBOX_WORKSPACE' '
	sb -w "$REF" stop >out &&
	cmp_text "$REF" out &&
	SANDBOX_WORKSPACE=$REF sb start >out &&
	cmp_text "$REF" out &&
	check running test "$(ctr_state "$REF")" = running
'

test_expect_success 'stop of a workspace that does not exist: exit 255' '
	expect_status 255 sb stop sandbox-000000000000 >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: stop: workspace sandbox-000000000000 does not exist" err
'

test_expect_success 'start of a workspace that does not exist: exit 255' '
	expect_status 255 sb start sandbox-000000000000 >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: start: workspace sandbox-000000000000 does not exist (destroyed?); create one with ${SQ}sandbox create${SQ}" err
'

test_expect_success 'list: a header, then ref, state, image, age and expiry' '
	sb list >out 2>err &&
	must_be_empty err &&
	head -n 1 out >first &&
	printf "%-24s %-10s %-32s %-5s %s\n" REF STATE IMAGE AGE EXPIRES >expect &&
	cmp_file expect first &&
	awk -v r="$REF" "\$1 == r" out >line &&
	line_count 1 line &&
	read -r ref state image age expires <line &&
	check "expires $expires" test "$expires" = - &&
	check "state $state" test "$state" = running &&
	check "image $image" test "$image" = "$IMAGE" -o "$image" = "localhost/$IMAGE" &&
	check "age $age" eval "echo \"\$age\" | grep -Eq \"^[0-9]+[smhd]$\""
'

test_expect_success 'list: a stopped workspace shows as such' '
	new_ws S &&
	sb stop "$S" >/dev/null &&
	sb list >out &&
	awk -v r="$S" "\$1 == r { print \$2 }" out >state &&
	cmp_text exited state
'

test_expect_success PYTHON 'list --json: the workspaces with state, image, created, age' '
	sb --json list >out &&
	now=$(now_s) &&
	json_check out "[w[\"state\"] for w in d[\"workspaces\"] if w[\"workspace\"] == \"$REF\"] == [\"running\"]" &&
	json_check out "[w[\"state\"] for w in d[\"workspaces\"] if w[\"workspace\"] == \"$S\"] == [\"exited\"]" &&
	json_check out "all(w[\"image\"] in (\"$IMAGE\", \"localhost/$IMAGE\") for w in d[\"workspaces\"] if w[\"workspace\"] in (\"$REF\", \"$S\"))" &&
	json_check out "all(isinstance(w[\"created\"], int) and $now - 600 < w[\"created\"] <= $now and 0 <= w[\"age_s\"] < 600 for w in d[\"workspaces\"] if w[\"workspace\"] == \"$REF\")"
'

test_expect_success 'list does not show containers without the label' '
	F=$(new_name foreign) &&
	foreign_ctr "$F" &&
	sb list >out &&
	no_grep_file "$F" out
'

test_expect_success 'destroy: "removed REF", the workspace is gone' '
	new_ws D &&
	sb destroy "$D" >out 2>err &&
	cmp_text "removed $D" out &&
	must_be_empty err &&
	ctr_gone "$D"
'

test_expect_success 'destroy again: exit 0, nothing printed' '
	sb destroy "$D" >out 2>err &&
	must_be_empty out &&
	must_be_empty err
'

test_expect_success 'destroy of several refs, one of them gone already' '
	new_ws D1 &&
	new_ws D2 &&
	sb destroy "$D1" "$D" "$D2" >out &&
	printf "removed %s\n" "$D1" "$D2" >expect &&
	cmp_file expect out &&
	ctr_gone "$D1" &&
	ctr_gone "$D2"
'

# The racing engine: the real one, but before an rm, the container whose
# ID is in the file "victim" is removed behind the back of sandbox, as
# another process would.
RACER=$TRASH/racing/$ENGINE
mkdir -p "$TRASH/racing"
cat >"$RACER" <<EOF
#!/bin/sh
if [ "\$1" = rm ] && [ -s '$TRASH/victim' ]; then
	'$(command -v "$ENGINE")' rm --force -- "\$(cat '$TRASH/victim')" >/dev/null 2>&1
fi
exec '$(command -v "$ENGINE")' "\$@"
EOF
chmod 755 "$RACER"

test_expect_success 'destroy of refs, one removed by another process just before the rm: the others go, it is not named' '
	new_ws R1 &&
	new_ws R2 &&
	new_ws R3 &&
	eng container inspect --format "{{.Id}}" "$R2" >victim &&
	"$SANDBOX" --engine "$RACER" destroy "$R1" "$R2" "$R3" >out 2>err &&
	rm victim &&
	must_be_empty err &&
	printf "removed %s\n" "$R1" "$R3" >expect &&
	cmp_file expect out &&
	ctr_gone "$R1" &&
	ctr_gone "$R2" &&
	ctr_gone "$R3"
'

test_expect_success 'destroy of a stopped workspace' '
	sb destroy "$S" >out &&
	cmp_text "removed $S" out &&
	ctr_gone "$S"
'


# Docker 20.10 kills a paused container by a kill and a resume, which once
# left its rm and every later call about it hanging: a paused workspace
# the inspect finds is unpaused first. (One known from the cache is not
# inspected: its rm goes alone.)
test_expect_success 'destroy of a paused workspace: unpaused first, then removed' '
	new_ws P &&
	eng pause "$P" >/dev/null &&
	XDG_CACHE_HOME=$TRASH/no-cache sb -v destroy "$P" >out 2>err &&
	cmp_text "removed $P" out &&
	grep -E "^\+ [^ ]+ (unpause|rm) " err | cut -d " " -f 3 >calls &&
	printf "%s\n" unpause rm >expect &&
	cmp_file expect calls &&
	ctr_gone "$P"
'
test_expect_success 'destroy takes the ref from -w' '
	new_ws D3 &&
	sb -w "$D3" destroy >out &&
	cmp_text "removed $D3" out &&
	ctr_gone "$D3"
'

test_expect_success 'SANDBOX_WORKSPACE alone does not name a workspace to destroy' '
	new_ws KEEP &&
	SANDBOX_WORKSPACE=$KEEP expect_status 2 sb destroy >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: destroy: which workspaces? give their refs, or --all" err &&
	check "$KEEP still exists" ctr_exists "$KEEP" &&
	sb destroy "$KEEP" >/dev/null
'

test_expect_success ALONE 'prune --stopped removes the stopped workspaces only' '
	new_ws A &&
	new_ws B &&
	sb stop "$B" >/dev/null &&
	alone &&
	sb prune --stopped >out 2>err &&
	cmp_text "removed $B" out &&
	must_be_empty err &&
	ctr_gone "$B" &&
	check "$A still exists" ctr_exists "$A" &&
	check "$REF still exists" ctr_exists "$REF"
'

test_expect_success ALONE 'prune --older-than 1d removes nothing new' '
	alone &&
	sb prune --older-than 1d >out &&
	must_be_empty out &&
	ctr_exists "$A"
'

test_expect_success ALONE,PYTHON 'prune --older-than 0s --json removes them all' '
	alone &&
	sb --json prune --older-than 0s >out &&
	json_check out "sorted(d[\"removed\"]) == sorted([\"$A\", \"$REF\"])" &&
	ctr_gone "$A" &&
	ctr_gone "$REF"
'

test_expect_success ALONE 'destroy --all removes every workspace, running or stopped' '
	new_ws A &&
	new_ws B &&
	sb stop "$B" >/dev/null &&
	alone &&
	sb destroy --all >out 2>err &&
	must_be_empty err &&
	printf "removed %s\n" "$A" "$B" | sort >expect &&
	sort out >sorted &&
	cmp_file expect sorted &&
	ctr_gone "$A" &&
	ctr_gone "$B"
'

test_expect_success ALONE 'destroy --all and prune leave containers without the label alone' '
	check "$F still exists" ctr_exists "$F" &&
	check "$F still running" test "$(ctr_state "$F")" = running
'

test_expect_success ALONE 'destroy --all with no workspace: exit 0, nothing printed' '
	alone &&
	sb destroy --all >out 2>err &&
	must_be_empty out &&
	must_be_empty err
'

test_expect_success ALONE 'list with no workspace: the header only' '
	alone &&
	sb list >out &&
	printf "%-24s %-10s %-32s %-5s %s\n" REF STATE IMAGE AGE EXPIRES >expect &&
	cmp_file expect out
'

test_expect_success 'destroy: a name given to another container since it was cached goes too' '
	N=$(new_name stale) &&
	new_ws OLD --name "$N" &&
	eng rm -f "$N" >/dev/null &&
	NEW=$(XDG_CACHE_HOME=$TRASH/other-cache sb create --image "$IMAGE" --name "$N") &&
	new_id=$(eng container inspect --format "{{.Id}}" "$N") &&
	sb destroy "$N" >out &&
	cmp_text "removed $N" out &&
	ctr_gone "$new_id"
'

test_done
