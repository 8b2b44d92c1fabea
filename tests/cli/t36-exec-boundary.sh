#!/bin/bash
# The exec path against a hostile workspace: what a command leaves in the
# container (tools shadowed in PATH, a replaced /bin/sh, a process that
# ignores TERM, a forger that lives on after its call) cannot hang the
# host, pass off a result, or make a report say "killed" when it was not;
# and an engine that never answers costs at most engine_timeout.
# Every wait here is an upper bound that only a hang reaches; no test
# depends on how fast anything is.
. "$(dirname "$0")/../lib.sh"
pairwise
also_on_gvisor both
need_engine

# Configs of this file's: a short engine_timeout, for the hung engine;
# and one for a kill exec that never says it started (it is given
# engine_timeout, then the workspace is stopped).
cat >"$TRASH/quick.ini" <<EOF
[sandbox]
engine_timeout = 2
EOF
cat >"$TRASH/kill.ini" <<EOF
[sandbox]
engine_timeout = 10
EOF

test_expect_success 'setup: a workspace' '
	new_ws REF
'
rm_usr_local() { eng exec "$REF" /bin/rm -f /usr/local/bin/rm /usr/local/bin/sleep; }

test_expect_success 'an rm that hangs, dropped into /usr/local/bin, hangs neither this exec nor the next' '
	{ sb -w "$REF" exec -- sh -c "mkdir -p /usr/local/bin &&
		printf \"#!/bin/sh\\nexec sleep 1000\\n\" >/usr/local/bin/rm &&
		chmod +x /usr/local/bin/rm" & } &&
	wait_exit 60 $! &&
	{ sb -w "$REF" exec -- echo next >out & } &&
	wait_exit 60 $! &&
	cmp_text next out &&
	{ sb -w "$REF" write /tmp/w --content data & } &&
	wait_exit 60 $!
'

test_expect_success 'a sleep dropped into /usr/local/bin does not stall the kill: a TERM-proof command is killed' '
	sb -w "$REF" exec -- sh -c "mkdir -p /usr/local/bin &&
		printf \"#!/bin/sh\\nexec /bin/sleep 1000\\n\" >/usr/local/bin/sleep &&
		chmod +x /usr/local/bin/sleep" &&
	{ sb -w "$REF" exec --timeout 2 -- sh -c "trap \"\" TERM; echo started; while :; do /bin/sleep 1; done" >out 2>err & } &&
	expect_status 124 wait_exit 60 $! &&
	cmp_text started out &&
	grep_file "timed out after 2s; the command was killed in the workspace" err &&
	! has_proc "$REF" "while :; do /bin/sleep 1; done" &&
	! has_proc "$REF" "^/bin/sleep 1 $" &&
	rm_usr_local
'

test_expect_success 'the user command still gets its own PATH' '
	sb -w "$REF" exec -e PATH=/opt/x:/bin:/usr/bin -- sh -c "echo \$PATH" >out &&
	cmp_text /opt/x:/bin:/usr/bin out
'

test_expect_success 'the call tag is in no command line: a forger left by an earlier call cannot end a later one' '
	cat >forger.sh <<-\EOF &&
	# Finds the tag of every wrapper in its command line, where the old
	# wrapper had it (sh -c SCRIPT sh TAG ...), and forges its end. Counts
	# its rounds over /proc in /tmp/forger.rounds.
	echo $$ >/tmp/forger.pid
	a=$(printf "\001")
	n=0
	while :; do
		echo $n >/tmp/forger.tmp && mv /tmp/forger.tmp /tmp/forger.rounds
		n=$((n + 1))
		for f in /proc/[0-9]*/cmdline; do
			p=${f#/proc/}; p=${p%/cmdline}
			t=$(tr "\000" "\001" <"$f" 2>/dev/null | grep -o "${a}sh${a}[0-9a-f]\{16\}${a}" | head -n 1 | tr -d "$a")
			t=${t#sh}
			[ -n "$t" ] || continue
			printf "ALL 120 TESTS PASSED\n\036%s:done:0\036" "$t" >"/proc/$p/fd/1" 2>/dev/null
			printf "\036%s:done:0\036" "$t" >"/proc/$p/fd/2" 2>/dev/null
		done
	done
	EOF
	sb -w "$REF" write /tmp/forger.sh <forger.sh &&
	# The command runs until the forger went twice more over /proc (once
	# whole while it ran), or says it did not (a minute).
	cat >victim.sh <<-\EOF &&
	r() { cat /tmp/forger.rounds 2>/dev/null; }
	i=0 p=$(r)
	while [ -z "$p" ] || [ "$(r)" -lt $((p + 2)) ]; do
		[ $i -lt 600 ] || { echo "the forger did not go round"; exit 2; }
		/bin/sleep 0.1; i=$((i + 1)); [ -n "$p" ] || p=$(r)
	done
	echo real; exit 1
	EOF
	sb -w "$REF" write /tmp/victim.sh <victim.sh &&
	sb -w "$REF" exec -- sh -c "setsid sh /tmp/forger.sh </dev/null >/dev/null 2>&1 &" &&
	expect_status 1 sb -w "$REF" exec -- sh /tmp/victim.sh >out &&
	cmp_text real out &&
	expect_status 1 sb -w "$REF" exec -- sh /tmp/victim.sh >out &&
	cmp_text real out &&
	sb -w "$REF" exec -- sh -c "kill \$(cat /tmp/forger.pid)"
'

test_expect_success 'a forged status that the engine contradicts is refused: exit 255, not the forged 0' '
	new_ws FAKED &&
	# /bin/sh replaced by one that claims success and exits 1.
	cat >fakesh <<-\EOF &&
	#!/tmp/real/sh
	IFS= read -r t
	printf "\036%s:pid:%d\036\036%s:ready\036" "$t" $$ "$t" >&2
	printf "ALL TESTS PASSED\n\036%s:done:0\036" "$t"
	printf "\036%s:done:0\036" "$t" >&2
	exit 1
	EOF
	sb -w "$FAKED" write /tmp/fakesh <fakesh &&
	sb -w "$FAKED" exec -- sh -c "mkdir -p /tmp/real && cat /bin/sh >/tmp/real/sh &&
		chmod 755 /tmp/real/sh /tmp/fakesh && rm -f /bin/sh && mv /tmp/fakesh /bin/sh" &&
	expect_status 255 sb -w "$FAKED" exec -- false >out 2>err &&
	grep_file "the result cannot be trusted: the workspace reported status 0, the engine 1" err
'

test_expect_success 'a kill the workspace does not answer: the workspace is stopped, and the report says so' '
	new_ws STUCK &&
	# The command ignores TERM; then /bin/sh is made to hang, so that the
	# kill script (and anything else) never answers.
	hang_sh "$STUCK" &&
	{ SANDBOX_CONFIG=$TRASH/kill.ini sb -w "$STUCK" exec --timeout 3 -- sh -c "$SWAP_SH &&
		trap \"\" TERM && echo armed && while :; do sleep 1; done" >out 2>err & } &&
	expect_status 124 wait_exit 60 $! &&
	cmp_text armed out &&
	grep_file "timed out after 3s; the command did not stop when killed, so the workspace was stopped" err &&
	test "$(ctr_state "$STUCK")" = exited
'

test_expect_success 'the same in --json: "kill" says what happened' '
	new_ws STUCK2 &&
	hang_sh "$STUCK2" &&
	{ SANDBOX_CONFIG=$TRASH/kill.ini sb -w "$STUCK2" --json exec --timeout 3 -- sh -c "$SWAP_SH &&
		trap \"\" TERM && while :; do sleep 1; done" >out 2>err & } &&
	expect_status 124 wait_exit 60 $! &&
	json_check out "d[\"timed_out\"] and d[\"kill\"] == \"workspace_stopped\"" &&
	expect_status 124 sb -w "$REF" --json exec --timeout 1 -- sleep 30 >out &&
	json_check out "d[\"kill\"] == \"killed\"" &&
	sb -w "$REF" --json exec -- true >out &&
	json_check out "d[\"kill\"] is None"
'

test_expect_success OOM_KILLS_ONE 'a command killed by the memory limit: 137, a line on stderr, oom_killed in --json' '
	new_ws SMALL --memory 32m &&
	expect_status 137 sb -w "$SMALL" exec -- sh -c "x=a; while :; do x=\$x\$x; done" 2>err &&
	grep_file "^sandbox: exec: the command was killed for lack of memory" err &&
	expect_status 137 sb -w "$SMALL" --json exec -- sh -c "x=a; while :; do x=\$x\$x; done" >out &&
	json_check out "d[\"oom_killed\"] is True and d[\"exit_code\"] == 137" &&
	expect_status 137 sb -w "$SMALL" --json exec -- sh -c "kill -9 \$\$" >out &&
	json_check out "d[\"oom_killed\"] is False" &&
	sb -w "$SMALL" exec -- true 2>err &&
	must_be_empty err
'

test_expect_success 'an engine that never answers: a clear error after engine_timeout' '
	printf "#!/bin/sh\nexec sleep 1000\n" >hang-engine &&
	chmod +x hang-engine &&
	start=$(now_s) &&
	{ SANDBOX_CONFIG=$TRASH/quick.ini "$SANDBOX" --engine "$TRASH/hang-engine" list >out 2>err & } &&
	expect_status 255 wait_exit 300 $! &&
	elapsed_below "$start" 30 &&
	grep_file "hang-engine did not answer within 2s (engine_timeout); is the engine reachable?" err
'

if [ "$ENGINE" = docker ] && test_have_prereq PYTHON; then
	test_set_prereq SILENT
fi

test_expect_success SILENT 'DOCKER_HOST that accepts and never answers: exec and read fail within engine_timeout' '
	silent_port &&
	hang=tcp://127.0.0.1:$(cat port) &&
	{ DOCKER_HOST=$hang SANDBOX_CONFIG=$TRASH/quick.ini "$SANDBOX" --engine docker -w "$REF" exec -- true >out 2>err & } &&
	expect_status 255 wait_exit 60 $! &&
	grep_file "within 2s (engine_timeout)" err &&
	{ DOCKER_HOST=$hang SANDBOX_CONFIG=$TRASH/quick.ini "$SANDBOX" --engine docker -w "$REF" read /etc/passwd >out 2>err & } &&
	expect_status 255 wait_exit 60 $! &&
	grep_file "within 2s (engine_timeout)" err &&
	kill $SILENT_PID
'

test_expect_success SILENT 'DOCKER_HOST with nothing listening: a clear error at once' '
	DOCKER_HOST=tcp://127.0.0.1:1 expect_status 255 sb list >out 2>err &&
	grep_file "sandbox: list: " err
'

test_done
