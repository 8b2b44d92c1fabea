#!/bin/bash
# Expiry: create --ttl and --idle. The keep-alive ends the workspace (status
# 3 at the ttl, 4 after the idle time); list shows it, prune --expired
# removes it, a workspace past its ttl is not used again.
#
# The waits poll with a deadline far above the times asked for: a slow
# machine makes a test slower, never wrong. What must happen before a short
# deadline is either given a deadline far away, or tried again with a
# longer one when the machine was too slow to show it.
. "$(dirname "$0")/../lib.sh"
image_independent
need_engine

XDG_CACHE_HOME=$TRASH/.cache
export XDG_CACHE_HOME

# exit_code REF: the container's exit status.
exit_code() { eng container inspect --format '{{.State.ExitCode}}' "$1"; }
stopped() { [ "$(ctr_state "$1")" = exited ]; }
# list_expires REF: the EXPIRES column of REF's line. A list without
# that line goes whole to stderr (the test's log), to be read there.
list_expires() {
	sb list >.list || return 1
	awk -v r="$1" '$1 == r { $1 = $2 = $3 = $4 = ""; sub(/^ +/, ""); print; found = 1 }
		END { exit !found }' .list || {
		echo "error: no line for $1 in the list:" >&2
		cat .list >&2
		return 1
	}
}

alone_prereq

test_expect_success 'a bad --ttl or --idle is a usage error, and nothing is made' '
	before=$(our_workspaces | wc -l) &&
	expect_status 2 sb create --image "$IMAGE" --ttl 5x 2>err &&
	grep_file -F "sandbox: create: ttl ${SQ}5x${SQ}: expected a duration like 90s, 15m, 2h or 7d (0: none)" err &&
	expect_status 2 sb create --image "$IMAGE" --idle -1 2>err &&
	grep_file -F "idle ${SQ}-1${SQ}" err &&
	expect_status 2 sb create --image "$IMAGE" --ttl 4000d 2>err &&
	test "$(our_workspaces | wc -l)" = "$before"
'

test_expect_success 'without --ttl or --idle: no expiry, no marker left by commands' '
	new_ws PLAIN &&
	cmp_text - <(list_expires "$PLAIN") &&
	sb -w "$PLAIN" exec -c "test ! -e /tmp/.sandbox-keepalive && test ! -e /tmp/.sandbox-used" &&
	sb --json list >out &&
	json_check out "[w for w in d[\"workspaces\"] if w[\"workspace\"] == \"$PLAIN\"][0][\"expires\"] is None" &&
	json_check out "[w for w in d[\"workspaces\"] if w[\"workspace\"] == \"$PLAIN\"][0][\"idle_s\"] is None" &&
	json_check out "[w for w in d[\"workspaces\"] if w[\"workspace\"] == \"$PLAIN\"][0][\"expired\"] is False"
'

# expires_label REF: the deadline its label says.
expires_label() { eng container inspect --format "{{index .Config.Labels \"sandbox.expires\"}}" "$1"; }

test_expect_success 'ttl: the label, list shows the deadline, --json the epoch' '
	start=$(now_s) &&
	new_ws LONG --ttl 1h &&
	exp=$(expires_label "$LONG") &&
	check "expires $exp" test "$exp" -ge $((start + 3600)) -a "$exp" -le $(($(now_s) + 3600)) &&
	list_expires "$LONG" >got &&
	grep_file -E "^in (59m|60m|1h)$" got &&
	sb --json list >out &&
	json_check out "[w for w in d[\"workspaces\"] if w[\"workspace\"] == \"$LONG\"][0][\"expires\"] == $exp" &&
	sb destroy "$LONG" >/dev/null
'

test_expect_success 'ttl: the workspace stops itself at its deadline, with status 3' '
	start=$(now_s) &&
	new_ws TTL --ttl 4s &&
	exp=$(expires_label "$TTL") &&
	check "expires $exp" test "$exp" -ge $((start + 4)) -a "$exp" -le $(($(now_s) + 4)) &&
	wait_until 60 stopped "$TTL" &&
	check "stopped at $(now_s), deadline $exp" test "$(now_s)" -ge "$exp" &&
	cmp_text 3 <(exit_code "$TTL") &&
	cmp_text expired <(list_expires "$TTL")
'

test_expect_success 'ttl: an expired workspace is not started again' '
	expect_status 255 sb -w "$TTL" exec -- true 2>err &&
	grep_file -F "sandbox: exec: workspace $TTL expired (its ttl ran out); remove it with ${SQ}sandbox prune --expired${SQ} and create another" err &&
	stopped "$TTL" &&
	expect_status 255 sb start "$TTL" 2>err &&
	grep_file -F "expired" err &&
	stopped "$TTL"
'

# held_ws TTL: HELD is a new workspace of that ttl whose keep-alive was
# stopped before its deadline: false when it took too long to tell.
held_ws() {
	local t0=$(now_s)
	new_ws HELD --ttl "$1s" &&
	sb -w "$HELD" exec -c "kill -STOP \$(cat /tmp/.sandbox-keepalive)" &&
	test $(($(now_s) - t0)) -lt "$1" || {
		sb destroy "$HELD" >/dev/null 2>&1
		return 1
	}
}

test_expect_success 'ttl: past its deadline a running workspace is expired too (its keep-alive held up)' '
	{ held_ws 3 || held_ws 15 || held_ws 60; } &&
	wait_until 90 eval "test \"\$(list_expires \"\$HELD\")\" = expired" &&
	test "$(ctr_state "$HELD")" = running &&
	expect_status 255 sb -w "$HELD" exec -- true 2>err &&
	grep_file -F "expired" err
'

test_expect_success ALONE 'prune --expired: the expired ones only, running or not' '
	alone &&
	new_ws LIVE --ttl 1h --idle 1h &&
	sb prune --expired >out &&
	sort out >got &&
	printf "removed %s\n" "$HELD" "$TTL" | sort >expect &&
	cmp_file expect got &&
	ctr_gone "$TTL" && ctr_gone "$HELD" &&
	ctr_exists "$LIVE" && ctr_exists "$PLAIN"
'

# The clocks: a workspace made after the last command to another, with a
# longer idle time, stops by itself only after that other one's idle time
# has run out, and a check or more of its keep-alive has passed. Order, not
# seconds: a slow machine makes a test slower, never wrong.
test_expect_success 'idle: list shows the idle time; a running process keeps it alive' '
	new_ws IDLE --idle 3s &&
	cmp_text "idle 3s" <(list_expires "$IDLE") &&
	J=$(sb -w "$IDLE" exec --background -- sleep 300) &&
	new_ws CLOCK1 --idle 6s &&
	wait_until 90 stopped "$CLOCK1" &&
	test "$(ctr_state "$IDLE")" = running &&
	sb -w "$IDLE" kill "$J"
'

test_expect_success 'idle: once nothing runs, it stops itself, with status 4' '
	wait_until 90 stopped "$IDLE" &&
	cmp_text 4 <(exit_code "$IDLE") &&
	cmp_text expired <(list_expires "$IDLE")
'

test_expect_success 'idle: the next command starts it again, with its files' '
	sb -w "$IDLE" exec -c "echo back" >out &&
	cmp_text back out &&
	test "$(ctr_state "$IDLE")" = running &&
	cmp_text "idle 3s" <(list_expires "$IDLE")
'

# renew_until CLOCK CMD...: runs CMD (a command to the workspace W) again
# and again, W running after each, until CLOCK has stopped by itself. Each
# round comes well within W's idle time of the last (a command takes a
# fraction of a second, a few on a loaded machine); the pause between
# rounds only spares the engine, it waits for nothing.
renew_until() {
	local clock=$1 i=0
	shift
	while ! stopped "$clock"; do
		"$@" || return 1
		test "$(ctr_state "$W")" = running || return 1
		i=$((i + 1))
		test "$i" -lt 600 || return 1
		sleep 0.5
	done
}

test_expect_success 'idle: each command renews the idle time' '
	new_ws BUSY --idle 8s &&
	new_ws CLOCK2 --idle 12s &&
	W=$BUSY renew_until "$CLOCK2" sb -w "$BUSY" exec -- true &&
	wait_until 90 stopped "$BUSY" &&
	cmp_text 4 <(exit_code "$BUSY")
'

tools_round() {
	sb -w "$TOOLS" write f --content x && sb -w "$TOOLS" read f >/dev/null
}

test_expect_success 'idle: the file tools count as commands too' '
	new_ws TOOLS --idle 8s &&
	new_ws CLOCK3 --idle 12s &&
	W=$TOOLS renew_until "$CLOCK3" tools_round
'

test_expect_success 'a FIFO the workspace plants at the use mark holds up no call' '
	new_ws FIFO --idle 1h &&
	sb -w "$FIFO" exec -c "rm -f /tmp/.sandbox-used && mkfifo /tmp/.sandbox-used" &&
	timeout 30 "$SANDBOX" --engine "$ENGINE" -w "$FIFO" exec -- echo through >out &&
	cmp_text through out
'

test_expect_success 'ttl and idle together: list shows both' '
	new_ws BOTH --ttl 2h --idle 45m &&
	list_expires "$BOTH" >got &&
	grep_file -E "^in (119m|120m|2h), idle 45m$" got
'

test_expect_success 'a workspace exec makes on its own idles after 30 minutes' '
	printf "[sandbox]\nimage = %s\n" "$IMAGE" >img.ini &&
	sb --config img.ini exec -- true 2>err &&
	ref=$(sed -n "s/^sandbox: created workspace \([^ ]*\) .*/\1/p" err) &&
	test -n "$ref" &&
	cmp_text "idle 30m" <(list_expires "$ref") &&
	printf "[sandbox]\nimage = %s\nidle = 0\n" "$IMAGE" >noidle.ini &&
	sb --config noidle.ini exec -- true 2>err &&
	ref=$(sed -n "s/^sandbox: created workspace \([^ ]*\) .*/\1/p" err) &&
	test -n "$ref" &&
	cmp_text - <(list_expires "$ref")
'

test_expect_success 'the ttl and idle keys of sandbox.ini' '
	printf "[sandbox]\nimage = %s\nidle = 2h\nttl = 1d\n" "$IMAGE" >exp.ini &&
	ref=$(sb --config exp.ini create) &&
	list_expires "$ref" >got &&
	grep_file -E "^in (23h|24h), idle 2h$" got
'

test_expect_success 'labels of the image forge neither expiry nor rows of list nor pools' '
	evil=$PFX/evil:1 &&
	victim=$(new_name victim) &&
	foreign_ctr "$victim" &&
	mkdir -p ctx && echo "FROM $IMAGE" >ctx/Dockerfile &&
	row=$(printf "0\t0000000000000000000000000000000000000000000000000000000000000000\n%s\tsandbox-pool-deadbeefdeadbeef-000000000001\trunning\timg\t0\t0\t0\t0\tdeadbeefdeadbeef" "$victim") &&
	eng build -q -t "$evil" --label sandbox.expires=1 --label "sandbox.idle=$row" \
		--label sandbox.spec=deadbeefdeadbeef ctx >/dev/null 2>&1 &&
	ref=$(sb create --image "$evil") &&
	cmp_text - <(list_expires "$ref") &&
	sb -w "$ref" exec -- true &&
	sb list >out &&
	no_grep_file -e "$victim" out &&
	no_grep_file -e deadbeef out &&
	sb pool list >out &&
	no_grep_file -e deadbeef out &&
	sb pool drain --spec deadbeefdeadbeef >out &&
	must_be_empty out &&
	ctr_exists "$victim"
'

test_expect_success 'remove the image of the test above' '
	sb destroy "$ref" >/dev/null;
	eng rm -f "$victim" >/dev/null 2>&1;
	eng rmi -f "$PFX/evil:1" >/dev/null 2>&1;
	! eng image inspect "$PFX/evil:1" >/dev/null 2>&1
'

test_done
