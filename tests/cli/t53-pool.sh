#!/bin/bash
# Warm pools: pool fill makes ready workspaces of a spec; a create, run,
# exec or mcp of the same spec takes one by unpause (one taker wins), and a
# taken one is a workspace like a fresh one; pool list counts them, pool
# drain removes them.
. "$(dirname "$0")/../lib.sh"
image_independent
need_engine

# The pool notes (pool-ENGINE-SPEC) and the ID cache: this file's own.
XDG_CACHE_HOME=$TRASH/.cache
export XDG_CACHE_HOME

SETUP="echo once >>/tmp/setup-ran"

# pool_ids SPEC: the IDs of the pool's ready workspaces, sorted.
pool_ids() {
	eng ps -a --no-trunc --filter label=sandbox.spec="$1" --filter status=paused --format '{{.ID}} {{.Names}}' |
		awk '$2 ~ /^sandbox-pool-/ { print $1 }' | sort
}
# ready SPEC: its ready count (0 when pool list has no line for it).
ready() { sb pool list | awk -v s="$1" '$1 == s { n = $2 } END { print n + 0 }'; }
id_of() { eng container inspect --format '{{.Id}}' "$1"; }

alone_prereq

test_expect_success 'pool fill N: N ready workspaces, setup run; prints the spec' '
	sb pool fill 3 --image "$IMAGE" --setup "$SETUP" >out 2>err &&
	SPEC=$(cat out) &&
	grep_file -x -E "[0-9a-f]{16}" out &&
	grep_file -x -F "sandbox: pool $SPEC: 3 ready (3 made)" err &&
	pool_ids "$SPEC" >ids &&
	line_count 3 ids &&
	for id in $(cat ids); do
		eng container inspect --format "{{.Name}} {{.State.Status}}" "$id" | sed "s,^/,," >st &&
		grep_file -x -E "sandbox-pool-$SPEC-[0-9a-f]{12} paused" st || return 1
	done
'

test_expect_success 'a pool${SQ}s workspace is nobody${SQ}s: not a ref' '
	name=$(eng container inspect --format "{{.Name}}" "$(head -n 1 ids)" | sed "s,^/,,") &&
	expect_status 2 sb -w "$name" exec -- true 2>err &&
	grep_file -F "sandbox: exec: $name is a pool${SQ}s workspace: create one from the pool, or remove the pool with ${SQ}sandbox pool drain${SQ}" err &&
	expect_status 2 sb destroy "$name" 2>err &&
	test "$(ctr_state "$name")" = paused
'

test_expect_success 'pool list: the pool and its counts; list does not show them' '
	sb pool list >out &&
	head -n 1 out >first &&
	printf "%-16s %5s %7s  %s\n" SPEC READY STOPPED IMAGE >expect &&
	cmp_file expect first &&
	awk -v s="$SPEC" "\$1 == s" out >line &&
	read -r spec n stopped image <line &&
	check "ready $n" test "$n" = 3 &&
	check "stopped $stopped" test "$stopped" = 0 &&
	check "image $image" test "$image" = "$IMAGE" -o "$image" = "localhost/$IMAGE" &&
	sb list >out &&
	no_grep_file -F sandbox-pool- out &&
	sb --json pool list >out &&
	json_check out "[p for p in d[\"pools\"] if p[\"spec\"] == \"$SPEC\"][0][\"ready\"] == 3"
'

test_expect_success 'pool fill again: tops up only' '
	sb pool fill 3 --image "$IMAGE" --setup "$SETUP" >out 2>err &&
	cmp_text "$SPEC" out &&
	grep_file -x -F "sandbox: pool $SPEC: 3 ready (0 made)" err
'

test_expect_success 'create of the same spec takes one: a new name, no container made' '
	pool_ids "$SPEC" >before &&
	start=$(now_s) &&
	new_ws TAKEN --setup "$SETUP" &&
	id_of "$TAKEN" >id &&
	grep_file -x -f id before &&
	check "taken as $TAKEN" test "${TAKEN#sandbox-}" != "$TAKEN" &&
	eng container inspect --format "{{.Name}}" "$(cat id)" | sed "s,^/,," >name &&
	cmp_text "$TAKEN" name &&
	cmp_text 2 <(ready "$SPEC") &&
	sb -w "$TAKEN" exec -- cat /tmp/setup-ran >ran &&
	cmp_text once ran &&
	sb list >out &&
	grep_file -F "$TAKEN" out &&
	label=$(eng container inspect --format "{{index .Config.Labels \"sandbox.workspace\"}}" "$TAKEN") &&
	cmp_text true <(echo "$label")
'

test_expect_success 'a create of another spec does not take one' '
	new_ws OTHER --setup "$SETUP" --env X=1 &&
	id_of "$OTHER" >id &&
	no_grep_file -x -f id before &&
	cmp_text 2 <(ready "$SPEC")
'

test_expect_success 'create --name takes one under that name' '
	name=$(new_name named) &&
	new_ws NAMED --setup "$SETUP" --name "$name" &&
	test "$NAMED" = "$name" &&
	id_of "$name" >id &&
	grep_file -x -f id before &&
	cmp_text 1 <(ready "$SPEC")
'

test_expect_success 'create --name of a name in use fails as without a pool, and the pool keeps its workspace' '
	expect_status 1 sb create --image "$IMAGE" --setup "$SETUP" --name "$name" 2>err &&
	grep_file -F "sandbox: create: cannot create the workspace:" err &&
	cmp_text 1 <(ready "$SPEC")
'

test_expect_success 'run takes one under its pool name, and removes it once the command ended' '
	id=$(pool_ids "$SPEC") &&
	name=$(eng container inspect --format "{{.Name}}" "$id" | sed "s,^/,,") &&
	sb -v --json run --image "$IMAGE" --setup "$SETUP" -- cat /tmp/setup-ran >out 2>err &&
	json_check out "d[\"stdout\"] == \"once\\n\" and d[\"exit_code\"] == 0 and d[\"workspace\"] == \"$name\"" &&
	line_count 1 <(grep -E "^\+ [^ ]+ unpause " err) &&
	no_grep_file -E "^\+ [^ ]+ (rename|ps) " err &&
	cmp_text 0 <(ready "$SPEC") &&
	wait_until 30 ctr_gone "$id"
'

test_expect_success 'an empty pool: a new workspace, made as without one' '
	new_ws COLD --setup "$SETUP" &&
	sb -w "$COLD" exec -- cat /tmp/setup-ran >ran &&
	cmp_text once ran &&
	test ! -e "$XDG_CACHE_HOME/sandbox/ids/pool-$ENGINE-$SPEC"
'

test_expect_success 'many takers at once: each gets its own, the pool goes to those who ask first' '
	sb pool fill 2 --image "$IMAGE" --setup "$SETUP" >/dev/null 2>&1 &&
	pool_ids "$SPEC" >before &&
	line_count 2 before &&
	for i in 1 2 3 4 5; do
		sb create --image "$IMAGE" --setup "$SETUP" >ref.$i 2>err.$i &
	done &&
	wait &&
	cat ref.? >refs &&
	line_count 5 refs &&
	sort -u refs >uniq && line_count 5 uniq &&
	: >ids &&
	for r in $(cat refs); do id_of "$r" >>ids || return 1; done &&
	sort -u ids >uniq && line_count 5 uniq &&
	grep -x -f before ids >taken &&
	line_count 2 taken &&
	cmp_text 0 <(ready "$SPEC") &&
	for r in $(cat refs); do
		sb -w "$r" exec -- cat /tmp/setup-ran >ran || return 1
		cmp_text once ran || return 1
	done
'

test_expect_success 'a pool with an idle time: the clock waits in the pool and starts when taken' '
	sb pool fill 1 --image "$IMAGE" --idle 3s >out 2>/dev/null &&
	ISPEC=$(cat out) &&
	test "$ISPEC" != "$SPEC" &&
	# A workspace of the same idle time, made after, ends by itself: that
	# much time went by for the pool${SQ}s too, which waits on, ready.
	new_ws CLOCK --idle 3s --env CLOCK=1 &&
	check "not from the pool" test "$(id_of "$CLOCK")" != "$(pool_ids "$ISPEC")" &&
	wait_until 90 eval "test \"\$(ctr_state \"\$CLOCK\")\" = exited" &&
	cmp_text 4 <(eng container inspect --format "{{.State.ExitCode}}" "$CLOCK") &&
	cmp_text 1 <(ready "$ISPEC") &&
	id=$(pool_ids "$ISPEC") &&
	new_ws IDLER --idle 3s &&
	id_of "$IDLER" >got && cmp_text "$id" got &&
	cmp_text 0 <(ready "$ISPEC") &&
	wait_until 90 eval "test \"\$(ctr_state \"\$IDLER\")\" = exited" &&
	cmp_text 4 <(eng container inspect --format "{{.State.ExitCode}}" "$IDLER")
'

test_expect_success 'a taken workspace keeps its idle time across a stop and a start' '
	sb -w "$IDLER" exec -- echo again >out &&
	cmp_text again out &&
	test "$(ctr_state "$IDLER")" = running &&
	wait_until 90 eval "test \"\$(ctr_state \"\$IDLER\")\" = exited" &&
	cmp_text 4 <(eng container inspect --format "{{.State.ExitCode}}" "$IDLER")
'

test_expect_success 'pool fill --idle refuses a workspace whose /tmp cannot be written' '
	ro="--read-only --tmpfs /workspace" &&
	if [ "$ENGINE" = podman ]; then ro="$ro --read-only-tmpfs=false"; fi &&
	expect_status 1 sb pool fill 1 --image "$IMAGE" --idle 1h -- $ro 2>err &&
	grep_file -F "an idle time cannot work in this workspace" err &&
	sb pool list >out &&
	line_count 1 out &&
	test -z "$(eng ps -a --filter label=sandbox.idle=3600 --format "{{.Names}} {{.Image}}" | grep -F "$IMAGE")"
'

test_expect_success 'exec without a workspace takes from a pool filled with the 30-minute idle time' '
	printf "[sandbox]\nimage = %s\n" "$IMAGE" >img.ini &&
	sb --config img.ini pool fill 1 --idle 30m >out 2>/dev/null &&
	LSPEC=$(cat out) &&
	id=$(pool_ids "$LSPEC") &&
	sb --config img.ini exec -- echo hi >out 2>err &&
	cmp_text hi out &&
	ref=$(sed -n "s/^sandbox: created workspace \([^ ]*\) .*/\1/p" err) &&
	id_of "$ref" >got && cmp_text "$id" got
'

test_expect_success 'mcp takes one for its first call, with the 30-minute idle time' '
	sb pool fill 1 --image "$IMAGE" --idle 30m >out 2>/dev/null &&
	MSPEC=$(cat out) &&
	id=$(pool_ids "$MSPEC") &&
	printf "%s\n" init "call 1 exec {\"command\":\"echo from-pool\"}" "<" >steps &&
	"$(cd "$TEST_LIB_DIR" && pwd)/mcp-client" "$SANDBOX" --engine "$ENGINE" mcp --image "$IMAGE" <steps >out 2>out.err &&
	grep_file -F "from-pool" out &&
	ref=$(sed -n "s/^sandbox mcp: workspace \([^ ]*\) (created)$/\1/p" out.err) &&
	test -n "$ref" &&
	id_of "$ref" >got && cmp_text "$id" got &&
	cmp_text 0 <(ready "$MSPEC")
'

test_expect_success 'pool fill refuses --copy, --ttl, --name and a bad N; nothing is made' '
	pool_ids "$SPEC" >before &&
	mkdir -p src &&
	expect_status 2 sb pool fill 2 --image "$IMAGE" --copy src 2>err &&
	grep_file -F "sandbox: pool: a pool cannot hold copy workspaces" err &&
	expect_status 2 sb pool fill 2 --image "$IMAGE" --ttl 1h 2>err &&
	grep_file -F "ttl" err &&
	expect_status 2 sb pool fill 2 --image "$IMAGE" --name x 2>err &&
	grep_file -F "name" err &&
	expect_status 2 sb create --image "$IMAGE" --name sandbox-pool-x 2>err &&
	grep_file -F "names that start with sandbox-pool are a pool${SQ}s" err &&
	for n in 0 201 x ""; do
		expect_status 2 sb pool fill $n --image "$IMAGE" 2>err || return 1
		grep_file -F "pool fill N: give how many" err || return 1
	done &&
	expect_status 2 sb pool frob 2>err &&
	grep_file -F "sandbox: pool: pool frob: expected fill N, list or drain" err &&
	pool_ids "$SPEC" >after &&
	cmp_file before after
'

test_expect_success 'a create without a pool makes no engine call to look for one' '
	sb -v create --image "$IMAGE" --env Y=2 >ref 2>err &&
	no_grep_file -E "^\+ [^ ]+ (ps|rename) " err
'

test_expect_success 'pool drain --spec: that pool only' '
	sb pool fill 2 --image "$IMAGE" --setup "$SETUP" >/dev/null 2>&1 &&
	sb pool fill 1 --image "$IMAGE" --env Z=1 >out 2>/dev/null &&
	ZSPEC=$(cat out) &&
	pool_ids "$SPEC" >ids &&
	line_count 2 ids &&
	sb pool drain --spec "$SPEC" >out &&
	line_count 2 out &&
	grep_file -E "^removed sandbox-pool-$SPEC-[0-9a-f]{12}$" out &&
	for id in $(cat ids); do ctr_gone "$id" || return 1; done &&
	cmp_text 1 <(ready "$ZSPEC") &&
	sb pool drain --spec "$ZSPEC" >out &&
	line_count 1 out &&
	cmp_text 0 <(ready "$ZSPEC") &&
	expect_status 2 sb pool drain --spec nothex 2>err &&
	grep_file -F "expected a pool${SQ}s spec" err
'

test_expect_success 'a take of a pool this user filled asks for no list: one unpause, one rename' '
	sb pool fill 2 --image "$IMAGE" --env W=1 >out 2>/dev/null &&
	WSPEC=$(cat out) &&
	note=$XDG_CACHE_HOME/sandbox/ids/pool-$ENGINE-$WSPEC &&
	line_count 2 "$note" &&
	head -n 1 "$note" | cut -c 1-64 >first &&
	sb -v create --image "$IMAGE" --env W=1 >ref 2>err &&
	no_grep_file -E "^\+ [^ ]+ ps " err &&
	line_count 1 <(grep -E "^\+ [^ ]+ unpause " err) &&
	line_count 1 <(grep -E "^\+ [^ ]+ rename " err) &&
	id_of "$(cat ref)" >id &&
	cmp_file first id &&
	line_count 1 "$note" &&
	sb destroy "$(cat ref)" >/dev/null
'

test_expect_success 'a noted workspace that is gone: the take tries the next, then the engine list' '
	eng rm -f "$(cut -c 1-64 "$note")" >/dev/null &&
	sb pool fill 2 --image "$IMAGE" --env W=1 >/dev/null 2>&1 &&
	line_count 3 "$note" &&
	sed -n 2p "$note" | cut -c 1-64 >second &&
	sb -v create --image "$IMAGE" --env W=1 >ref 2>err &&
	line_count 2 <(grep -E "^\+ [^ ]+ unpause " err) &&
	no_grep_file -E "^\+ [^ ]+ ps " err &&
	id_of "$(cat ref)" >id &&
	cmp_file second id &&
	sb destroy "$(cat ref)" >/dev/null &&
	: >"$note" &&
	sb -v create --image "$IMAGE" --env W=1 >ref 2>err &&
	grep_file -E "^\+ [^ ]+ ps " err &&
	grep_file -E "^\+ [^ ]+ rename " err &&
	sb destroy "$(cat ref)" >/dev/null &&
	cmp_text 0 <(ready "$WSPEC") &&
	sb -v create --image "$IMAGE" --env W=1 >ref 2>err &&
	test ! -e "$note" &&
	no_grep_file -E "^\+ [^ ]+ (unpause|rename) " err &&
	sb destroy "$(cat ref)" >/dev/null
'

# A line of the note outlives the workspace it names when another user's
# take gets it by a list (that take cannot strike out our line). Once that
# user's workspace is paused (a snapshot pauses it for its size check and
# commit; or the user pauses it), the line's unpause succeeds: it must not
# make the workspace ours, nor rename it away from its owner.
test_expect_success 'a noted workspace another user took, paused: not taken from its owner' '
	sb pool fill 1 --image "$IMAGE" --env W=3 >out 2>/dev/null &&
	SSPEC=$(cat out) &&
	note=$XDG_CACHE_HOME/sandbox/ids/pool-$ENGINE-$SSPEC &&
	line_count 1 "$note" &&
	other=$TRASH/.cache-other &&
	mkdir -p "$other/sandbox/ids" &&
	XDG_CACHE_HOME=$other sb pool fill 1 --image "$IMAGE" --env W=3 >/dev/null 2>&1 &&
	XDG_CACHE_HOME=$other sb create --image "$IMAGE" --env W=3 >ref 2>/dev/null &&
	victim=$(id_of "$(cat ref)") &&
	cmp_text "$victim" <(cut -c 1-64 "$note") &&
	eng pause "$victim" >/dev/null &&
	thief=$(new_name thief) &&
	sb create --image "$IMAGE" --env W=3 --name "$thief" >/dev/null 2>&1;
	got=$(id_of "$thief" 2>/dev/null);
	now=$(eng container inspect --format "{{.Name}}" "$victim" | sed "s,^/,,");
	eng unpause "$victim" >/dev/null 2>&1;
	check "the thief got $got, the victim $victim" test "$got" != "$victim" &&
	check "the victim is now named $now" test "$now" = "$(cat ref)"
'

# Lines go stale without a take of this user: destroy --all, a drain by
# another user, another user's takes by a list. A take must not try them
# all, one engine call each, before it lists the pool (200 took 75 s).
test_expect_success 'a note of many stale lines: a take tries a few, then lists the pool' '
	sb pool fill 1 --image "$IMAGE" --env W=4 >out 2>/dev/null &&
	TSPEC=$(cat out) &&
	note=$XDG_CACHE_HOME/sandbox/ids/pool-$ENGINE-$TSPEC &&
	live=$(cat "$note") &&
	for i in $(seq 1 40); do
		printf "%064x sandbox-pool-%s-%012x\n" "$i" "$TSPEC" "$i" || return 1
	done >"$note" &&
	printf "%s\n" "$live" >>"$note" &&
	sb -v create --image "$IMAGE" --env W=4 >ref 2>err &&
	grep -c -E "^\+ [^ ]+ unpause " err >n || : &&
	check "unpause calls: $(cat n)" test "$(cat n)" -le 8 &&
	sb destroy "$(cat ref)" >/dev/null
'

# An engine whose rm waits for the file go (a minute at most): a run
# from a pool is over before its removal is, and what comes next must not
# trip over that removal.
gated_engine() {
	mkdir -p gated &&
	printf "#!/bin/sh\nif [ \"\$1\" = rm ]; then i=0; while [ ! -e %s/go ] && [ \$i -lt 600 ]; do sleep 0.1; i=\$((i + 1)); done; fi\nexec %s \"\$@\"\n" "$PWD" "$(command -v "$ENGINE")" >"gated/$ENGINE" &&
	chmod +x "gated/$ENGINE"
}
# at_removals PID: sandbox PID has the lock of the removals in the
# background open: it waits there for them to end, or went past.
at_removals() { ls -l "/proc/$1/fd" 2>/dev/null | grep -q "/removing-$ENGINE\$"; }
# waits_for_removal PID ERR: sandbox -v PID (its stderr in the file ERR)
# got to the removals and waits there: no engine call yet while one is
# held; then the removal may go on (the file go).
waits_for_removal() {
	wait_until 60 at_removals "$1" &&
	check "$1 waits: no engine call yet" eval "! grep -q \"^+ \" $2" &&
	check "$1 waits: still at the removals" at_removals "$1" &&
	touch go
}

test_expect_success 'a run from a pool keeps its status and output; pool drain waits for its removal' '
	sb pool fill 1 --image "$IMAGE" --env W=5 >out 2>/dev/null &&
	RSPEC=$(cat out) &&
	gated_engine && rm -f go &&
	expect_status 3 env PATH="$PWD/gated:$PATH" "$SANDBOX" --engine "$ENGINE" --json run --image "$IMAGE" --env W=5 -c "echo out; echo err >&2; exit 3" >out &&
	json_check out "d[\"stdout\"] == \"out\\n\" and d[\"stderr\"] == \"err\\n\" and d[\"exit_code\"] == 3" &&
	name=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[\"workspace\"])" out) &&
	case $name in "sandbox-pool-$RSPEC-"*) ;; *) false ;; esac &&
	check "its removal is held: $name is there" ctr_exists "$name" &&
	{ "$SANDBOX" --engine "$ENGINE" -v pool drain --spec "$RSPEC" >drained 2>drain.err & pid=$!; } &&
	waits_for_removal "$pid" drain.err &&
	wait_exit 60 "$pid" &&
	no_grep_file -F "$name" drained &&
	ctr_gone "$name"
'

test_expect_success 'prune waits for a removal on its way too' '
	sb pool fill 1 --image "$IMAGE" --env W=6 >out 2>/dev/null &&
	PSPEC=$(cat out) &&
	gated_engine && rm -f go &&
	env PATH="$PWD/gated:$PATH" "$SANDBOX" --engine "$ENGINE" --json run --image "$IMAGE" --env W=6 -- true >out &&
	name=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[\"workspace\"])" out) &&
	check "its removal is held: $name is there" ctr_exists "$name" &&
	{ "$SANDBOX" --engine "$ENGINE" -v prune --older-than 3650d >pruned 2>prune.err & pid=$!; } &&
	waits_for_removal "$pid" prune.err &&
	wait_exit 60 "$pid" &&
	ctr_gone "$name" &&
	no_grep_file -F "$name" pruned &&
	sb pool drain --spec "$PSPEC" >/dev/null
'

test_expect_success 'a run whose removal in the background failed: the next drain removes it, and says so' '
	sb pool fill 1 --image "$IMAGE" --env W=10 >out 2>/dev/null &&
	FSPEC=$(cat out) &&
	id=$(pool_ids "$FSPEC") &&
	mkdir -p failing &&
	printf "#!/bin/sh\n[ \"\$1\" = rm ] && exit 1\nexec %s \"\$@\"\n" "$(command -v "$ENGINE")" >"failing/$ENGINE" &&
	chmod +x "failing/$ENGINE" &&
	env PATH="$PWD/failing:$PATH" "$SANDBOX" --engine "$ENGINE" run --image "$IMAGE" --env W=10 -- true &&
	sb pool drain --spec "$FSPEC" >drained 2>err &&
	grep_file -x -F "sandbox: removed $(echo "$id" | cut -c 1-12), a run${SQ}s workspace whose removal in the background did not finish" err &&
	ctr_gone "$id" &&
	sb pool drain --spec "$FSPEC" >/dev/null 2>err &&
	must_be_empty err
'

test_expect_success 'a run from a pool: its caller waits for neither the removal nor its own descriptors' '
	sb pool fill 1 --image "$IMAGE" --env W=9 >out 2>/dev/null &&
	GSPEC=$(cat out) &&
	id=$(pool_ids "$GSPEC") &&
	gated_engine &&
	rm -f fifo go &&
	mkfifo fifo &&
	{ cat fifo >fd3.out & } &&
	reader=$! &&
	out=$(env PATH="$PWD/gated:$PATH" "$SANDBOX" --engine "$ENGINE" run --image "$IMAGE" --env W=9 -- echo hi 3>fifo) &&
	test "$out" = hi &&
	wait_exit 30 "$reader" &&
	ctr_exists "$id" &&
	touch go &&
	wait_until 60 ctr_gone "$id"
'

test_expect_success 'a pool${SQ}s workspace by its ID is nobody${SQ}s too: refused, left paused' '
	sb pool fill 1 --image "$IMAGE" --env W=11 >out 2>/dev/null &&
	DSPEC=$(cat out) &&
	id=$(pool_ids "$DSPEC") &&
	expect_status 2 sb -w "$id" exec -- true 2>err &&
	grep_file -F "is a pool${SQ}s workspace" err &&
	expect_status 2 sb snapshot "$id" --name "$(new_name poolsnap)" 2>err &&
	grep_file -F "is a pool${SQ}s workspace" err &&
	test "$(ctr_state "$id")" = paused &&
	sb pool drain --spec "$DSPEC" >/dev/null
'

test_expect_success 'run --name from a pool: taken under that name, and removed' '
	sb pool fill 1 --image "$IMAGE" --env W=7 >out 2>/dev/null &&
	NSPEC=$(cat out) &&
	id=$(pool_ids "$NSPEC") &&
	name=$(new_name prun) &&
	sb --json run --image "$IMAGE" --env W=7 --name "$name" -- true >out &&
	json_check out "d[\"workspace\"] == \"$name\"" &&
	wait_until 30 ctr_gone "$id" &&
	cmp_text 0 <(ready "$NSPEC")
'

test_expect_success 'an interrupted run from a pool: removed before it exits' '
	sb pool fill 1 --image "$IMAGE" --env W=8 >out 2>/dev/null &&
	ISPEC=$(cat out) &&
	id=$(pool_ids "$ISPEC") &&
	set -m &&
	{ "$SANDBOX" --engine "$ENGINE" run --image "$IMAGE" --env W=8 -- sleep 607 >out 2>err & pid=$!; } &&
	set +m &&
	wait_until 60 has_proc "$id" "^sleep 607" &&
	kill -INT "$pid" &&
	expect_status 130 wait_exit 60 "$pid" &&
	ctr_gone "$id"
'

test_expect_success ALONE 'destroy --all removes the pools too' '
	alone &&
	sb pool fill 1 --image "$IMAGE" >/dev/null 2>&1 &&
	sb -v destroy --all >out 2>err &&
	grep_file -E "^removed sandbox-pool-" out &&
	grep -E "^\+ [^ ]+ (unpause|rm) " err | cut -d " " -f 3 >calls &&
	printf "%s\n" unpause rm >expect &&
	cmp_file expect calls &&
	sb pool list >out &&
	line_count 1 out
'

test_done
