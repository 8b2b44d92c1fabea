#!/bin/bash
# The resident process (man sandbox, RESIDENT): the first command that
# needs a channel starts it, later ones take its held channel; it holds
# nothing of its caller's (a captured output returns at once; no
# terminal, a session of its own, /dev/null, /); keep = no, run and a
# directory that is not private keep it out; a stale socket or another
# build's resident is replaced; its death under a call costs the call
# nothing; a channel that speaks while held is dropped; a workspace
# restarted or destroyed under it; its channels do not keep a workspace
# from going idle; resident shows it, stop stops it, keep ends it. The
# rest of the suite runs through it too (except the sanitizer leg, which
# keeps the direct path's coverage: tests/run-cli-tests).
. "$(dirname "$0")/../lib.sh"
image_independent
need_engine

# On here, whatever the leg says.
export SANDBOX_KEEP=5m

# res_json: `resident --json`, into res.json.
res_json() { sb resident --json >res.json; }
# res_field KEY: a number or true/false of res.json.
res_field() { sed -n "s/.*\"$1\":\([a-z0-9]*\).*/\1/p" res.json; }
res_pid() { res_json && res_field pid; }
# idle_is N: the resident holds N idle channels.
idle_is() { res_json && [ "$(res_field channels_idle)" = "$1" ]; }
none_runs() { res_json && [ "$(res_field running)" = false ]; }
# dead PID: the process ended (gone, or a zombie its new parent, init,
# has not reaped yet).
dead() { ! kill -0 "$1" 2>/dev/null || [ "$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d" " -f1)" = Z ]; }

test_expect_success 'setup: a workspace, and no resident yet' '
	new_ws REF &&
	none_runs
'

test_expect_success 'the first exec starts one and leaves its channel with it; the next takes it' '
	sb -w "$REF" exec -- echo one >out &&
	cmp_text one out &&
	idle_is 1 &&
	pid=$(res_field pid) &&
	kill -0 "$pid" &&
	sb -w "$REF" -v exec -- echo two >out 2>err &&
	cmp_text two out &&
	grep_file "^sandbox: calls go through the resident process.s held channel" err &&
	no_grep_file "^+ " err &&
	idle_is 1
'

test_expect_success 'resident says it in text too; --json has its fields' '
	sb resident >out &&
	grep_file "^resident process [0-9]* for $ENGINE${DOCKER_HOST:+, DOCKER_HOST=$DOCKER_HOST} at $SANDBOX_RUNTIME_DIR/[0-9a-f]*\.sock: 1 channel idle, 0 in use" out &&
	json_check res.json "d[\"running\"] is True and d[\"channels_idle\"] == 1 and d[\"channels_in_use\"] == 0 and d[\"commands\"] == 0 and d[\"keep\"] == 300 and d[\"endpoint\"].startswith(\"$ENGINE\") and d[\"socket\"].endswith(\".sock\") and d[\"pid\"] > 1 and d[\"version\"]"
'

test_expect_success 'it holds nothing of its caller: a session of its own, no terminal, /dev/null, /' '
	pid=$(res_pid) &&
	stat=$(cat /proc/$pid/stat) && stat=${stat##*) } &&
	set -- $stat &&
	test "$4" = "$pid" && test "$5" = 0 &&
	test "$(readlink /proc/$pid/cwd)" = / &&
	for fd in 0 1 2; do test "$(readlink /proc/$pid/fd/$fd)" = /dev/null || return 1; done &&
	ls -l /proc/$pid/fd/ >fds &&
	no_grep_file -E "$TRASH/(out|err|res)" fds
'

test_expect_success 'a captured output ends with the command, not with the resident' '
	sb resident stop >/dev/null &&
	none_runs &&
	{ ( out=$(sb -w "$REF" exec -- echo captured) && test "$out" = captured ) & } &&
	wait_exit 60 $! &&
	{ sb -w "$REF" exec -- echo piped | cat >out & } &&
	wait_exit 60 $! &&
	cmp_text piped out &&
	idle_is 1
'

test_expect_success 'keep = no and SANDBOX_KEEP=no: no resident, each call an engine exec' '
	sb resident stop >/dev/null &&
	SANDBOX_KEEP=no sb -w "$REF" -v exec -- echo direct >out 2>err &&
	cmp_text direct out &&
	grep_file "^+ .* exec " err &&
	none_runs &&
	printf "[sandbox]\nkeep = no\n" >user.ini &&
	mkdir -p "$XDG_CONFIG_HOME/sandbox" && cp user.ini "$XDG_CONFIG_HOME/sandbox/sandbox.ini" &&
	SANDBOX_KEEP= sb -w "$REF" exec -- true &&
	rm "$XDG_CONFIG_HOME/sandbox/sandbox.ini" &&
	none_runs &&
	expect_status 2 env SANDBOX_KEEP=soon "$SANDBOX" --engine "$ENGINE" -w "$REF" exec -- true 2>err &&
	grep_file "^sandbox: exec: SANDBOX_KEEP: keep .soon.: expected no, or a duration" err
'

test_expect_success 'run, the one-shot for CI, starts none' '
	none_runs &&
	sb run --image "$IMAGE" -- echo ran >out &&
	cmp_text ran out &&
	none_runs
'

test_expect_success 'a socket left by a resident that died is replaced' '
	sb -w "$REF" exec -- true &&
	old=$(res_pid) &&
	kill -9 "$old" &&
	wait_until 30 dead "$old" &&
	sb -w "$REF" exec -- echo again >out &&
	cmp_text again out &&
	new=$(res_pid) &&
	test -n "$new" && test "$new" != "$old"
'

test_expect_success 'the resident of another build is told to end, never asked, and replaced' '
	old=$(res_pid) &&
	cp "$SANDBOX" "$TRASH/sandbox-other" &&
	"$TRASH/sandbox-other" --engine "$ENGINE" -w "$REF" exec -- echo other >out &&
	cmp_text other out &&
	wait_until 30 dead "$old" &&
	"$TRASH/sandbox-other" --engine "$ENGINE" resident --json >res.json &&
	other=$(res_field pid) && test "$other" != "$old" &&
	sb -w "$REF" exec -- true &&
	wait_until 30 dead "$other"
'

test_expect_success 'a runtime directory that others can enter is not used: exec goes direct' '
	mkdir -m 0755 "$TRASH/open" &&
	SANDBOX_RUNTIME_DIR=$TRASH/open sb -w "$REF" -v exec -- echo fine >out 2>err &&
	cmp_text fine out &&
	grep_file "no resident channel: $TRASH/open is not a directory of mode 0700 of ours" err &&
	test -z "$(ls "$TRASH/open")"
'

[ "$(id -u)" = 0 ] && test_set_prereq ROOT
test_skip_reason[ROOT]="not root: no other uid to connect as"
test_expect_success ROOT 'another uid that reaches the socket is refused before a word' '
	sb -w "$REF" exec -- true &&
	sock=$(sed -n "s/.*\"socket\":\"\([^\"]*\)\".*/\1/p" res.json) &&
	chmod 0711 "$TRASH" "$SANDBOX_RUNTIME_DIR" && chmod 0777 "$sock" &&
	python3 - "$sock" >got <<-\EOF &&
	import os, socket, sys
	os.setgid(65534); os.setuid(65534)
	s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
	s.settimeout(30)
	s.connect(sys.argv[1])
	print(len(s.recv(100)))
	EOF
	chmod 0700 "$TRASH" "$SANDBOX_RUNTIME_DIR" &&
	cmp_text 0 got &&
	idle_is 1
'

test_expect_success 'the resident killed under a call: the call goes on, once, whole' '
	sb -w "$REF" exec -- true &&
	pid=$(res_pid) &&
	{ sb -w "$REF" exec -- sh -c "echo ran >>/tmp/runs; echo started; while [ ! -e /tmp/go ]; do sleep 0.1; done; echo ended" >out & } &&
	job=$! &&
	wait_until 60 grep -q started out &&
	kill -9 "$pid" &&
	eng exec "$REF" touch /tmp/go &&
	wait_exit 60 $job &&
	printf "started\nended\n" >expect && cmp_file expect out &&
	sb -w "$REF" exec -- cat /tmp/runs >out &&
	cmp_text ran out
'

test_expect_success 'a held channel that speaks between calls is dropped, and its words shown nowhere' '
	sb -w "$REF" exec -- rm -f /tmp/go &&
	idle_is 1 &&
	sb -w "$REF" exec -- sh -c "(while [ ! -e /tmp/go ]; do sleep 0.1; done; echo LATE; echo LATE >&2) &" >out 2>err &&
	must_be_empty out &&
	idle_is 1 &&
	eng exec "$REF" touch /tmp/go &&
	wait_until 60 idle_is 0 &&
	sb -w "$REF" exec -- echo after >out 2>err &&
	cmp_text after out && no_grep_file LATE err
'

test_expect_success 'a flood from a held channel: dropped, the resident unharmed' '
	sb -w "$REF" exec -- rm -f /tmp/go &&
	sb -w "$REF" exec -- sh -c "(while [ ! -e /tmp/go ]; do sleep 0.1; done; yes) &" >/dev/null &&
	pid=$(res_pid) &&
	eng exec "$REF" touch /tmp/go &&
	wait_until 60 idle_is 0 &&
	test "$(res_pid)" = "$pid" &&
	sb -w "$REF" exec -- echo calm >out &&
	cmp_text calm out
'

test_expect_success 'a workspace restarted under it: the next call takes a new channel' '
	sb -w "$REF" exec -- true &&
	idle_is 1 &&
	sb stop "$REF" >/dev/null &&
	wait_until 60 idle_is 0 &&
	sb start "$REF" >/dev/null &&
	sb -w "$REF" exec -- echo restarted >out &&
	cmp_text restarted out &&
	idle_is 1
'

test_expect_success 'a workspace destroyed under it: its channel goes' '
	new_ws GONE &&
	sb -w "$GONE" exec -- true &&
	idle_is 2 &&
	sb destroy "$GONE" >/dev/null &&
	wait_until 60 idle_is 1
'

test_expect_success 'a held channel is no use of the workspace: idle still stops it' '
	new_ws IDLE --idle 4s &&
	sb -w "$IDLE" exec -- true &&
	res_json && test "$(res_field channels_idle)" -ge 1 &&
	wait_until 120 sh -c "test \"\$(\"$ENGINE\" container inspect --format \"{{.State.Status}}\" $IDLE)\" = exited"
'

test_expect_success 'resident stop, and another build, under a call: the call goes on' '
	sb -w "$REF" exec -- rm -f /tmp/go &&
	{ sb -w "$REF" exec -- sh -c "echo started; while [ ! -e /tmp/go ]; do sleep 0.1; done; echo ended; exit 3" >out & } &&
	job=$! &&
	wait_until 60 grep -q started out &&
	"$TRASH/sandbox-other" --engine "$ENGINE" -w "$REF" exec -- true &&
	sb resident stop >stopped &&
	grep_file "^stopped the resident process" stopped &&
	eng exec "$REF" touch /tmp/go &&
	{ wait_exit 60 $job; test $? = 3; } &&
	printf "started\nended\n" >expect && cmp_file expect out
'

test_expect_success 'a wrapper that says it is done and never ends: untrusted, and its channel not kept' '
	new_ws FAKED &&
	cat >fakesh <<-\EOF &&
	#!/tmp/real/sh
	IFS= read -r t
	printf "\036%s:pid:%d\036\036%s:ready\036" "$t" $$ "$t" >&2
	printf "\036%s:done:0\036" "$t"
	printf "\036%s:done:0\036" "$t" >&2
	exec /tmp/real/sh -c "sleep 1000"
	EOF
	sb -w "$FAKED" write /tmp/fakesh <fakesh &&
	sb -w "$FAKED" exec -- true &&
	eng exec "$FAKED" sh -c "mkdir -p /tmp/real && cat /bin/sh >/tmp/real/sh &&
		chmod 755 /tmp/real/sh /tmp/fakesh && cp /tmp/fakesh /tmp/sh.new && mv /tmp/sh.new /bin/sh" &&
	expect_status 255 sb -w "$FAKED" exec -- false >out 2>err &&
	grep_file "the result cannot be trusted: the workspace reported status 0, and the call never ended" err &&
	res_json && test "$(res_field channels_in_use)" = 0 &&
	sb destroy "$FAKED" >/dev/null
'

test_expect_success 'resident stop: it ends, with its channels' '
	sb -w "$REF" exec -- true &&
	pid=$(res_pid) &&
	eng exec "$REF" sh -c "grep -l sandbox-kep[t] /proc/[0-9]*/cmdline" >/dev/null &&
	sb resident stop >out &&
	grep_file "^stopped the resident process $pid for $ENGINE" out &&
	dead "$pid" &&
	none_runs &&
	wait_until 60 sh -c "! \"$ENGINE\" exec $REF sh -c \"grep -l sandbox-kep[t] /proc/[0-9]*/cmdline\" >/dev/null 2>&1" &&
	sb resident stop >out &&
	grep_file "^no resident process runs for $ENGINE" out
'

test_expect_success 'keep: it ends by itself once keep passed with no command' '
	SANDBOX_KEEP=1s sb -w "$REF" exec -- true &&
	pid=$(res_pid) &&
	wait_until 60 dead "$pid" &&
	none_runs
'

test_expect_success 'resident: bad words are refused, and change nothing' '
	expect_status 2 sb resident start 2>err &&
	grep_file "expected .sandbox resident. or .sandbox resident stop." err &&
	expect_status 2 sb resident --all 2>err &&
	grep_file "all goes with stop" err &&
	expect_status 2 sb resident serve 2>err &&
	grep_file "resident serve is how sandbox starts it" err &&
	none_runs
'

test_done
