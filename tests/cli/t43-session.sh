#!/bin/bash
# exec --session NAME: a shell that remembers. Each command of a session
# starts in the directory and with the exported variables its previous
# one left; other sessions and plain calls do not see them; --reset,
# --cwd, -e, a timeout, names, and values that are not shell text.
. "$(dirname "$0")/../lib.sh"
pairwise
also_on_gvisor
need_engine

test_expect_success 'setup: a workspace' '
	new_ws REF
'

test_expect_success 'cd and export are seen by the next command of the session' '
	sb -w "$REF" exec --session a -c "mkdir -p /tmp/s1 && cd /tmp/s1 && export FOO=\"b a r\" && BAR=local" &&
	sb -w "$REF" exec --session a -c "pwd; echo \"\$FOO|\${BAR-unset}\"" >out &&
	cmp_text "/tmp/s1
b a r|unset" out
'

test_expect_success 'a command line (not shell text) starts there too' '
	sb -w "$REF" exec --session a -- pwd >out &&
	cmp_text /tmp/s1 out &&
	sb -w "$REF" exec --session a -- sh -c "echo \"\$FOO\"" >out &&
	cmp_text "b a r" out
'

test_expect_success 'another session, and a call without one, start afresh' '
	sb -w "$REF" exec --session b -c "pwd; echo \${FOO-unset}" >out &&
	cmp_text "/workspace
unset" out &&
	sb -w "$REF" exec -c "pwd; echo \${FOO-unset}" >out &&
	cmp_text "/workspace
unset" out
'

test_expect_success '--reset starts the session afresh' '
	sb -w "$REF" exec --session a --reset -c "pwd; echo \${FOO-unset}" >out &&
	cmp_text "/workspace
unset" out
'

test_expect_success 'exit N: the status is the command'"'"'s, and what it left is kept' '
	expect_status 3 sb -w "$REF" exec --session c -c "cd /tmp; export N=1; exit 3" &&
	sb -w "$REF" exec --session c -c "pwd; echo \$N" >out &&
	cmp_text "/tmp
1" out
'

test_expect_success '--cwd wins over the session'"'"'s directory, and is kept' '
	sb -w "$REF" exec --session c --cwd / -- pwd >out &&
	cmp_text / out &&
	sb -w "$REF" exec --session c -- pwd >out &&
	cmp_text / out
'

test_expect_success '-e is exported over the session'"'"'s value, and kept like an export' '
	sb -w "$REF" exec --session d -c "export V=old" &&
	sb -w "$REF" exec --session d -e V=new -c "echo \$V" >out &&
	cmp_text new out &&
	sb -w "$REF" exec --session d -c "echo \$V" >out &&
	cmp_text new out
'

test_expect_success 'values come back byte for byte: quotes, newlines, $, a byte not UTF-8, and a directory so named' '
	cat >setv.sh <<-\EOF &&
	d=$(printf "/tmp/a b\$c\nd\377") && mkdir -p "$d" && cd "$d" &&
	V=$(printf "x'"'"'y\"z\n\$w \\\\ end\377") && export V
	EOF
	sb -w "$REF" write /tmp/setv.sh <setv.sh &&
	sb -w "$REF" exec --session q -c ". /tmp/setv.sh" &&
	sb -w "$REF" exec --session q -c "pwd; printf \"%s|\" \"\$V\"" >out &&
	printf "/tmp/a b\$c\nd\377\nx${SQ}y\"z\n\$w \\\\ end\377|" >expect &&
	cmp_file expect out
'

test_expect_success 'cd - goes back across calls; a builtin as the command acts on the session' '
	sb -w "$REF" exec --session o -c "cd /tmp; cd /etc" &&
	sb -w "$REF" exec --session o -c "cd - >/dev/null; pwd" >out &&
	cmp_text /tmp out &&
	sb -w "$REF" exec --session o -- cd /usr &&
	sb -w "$REF" exec --session o -- pwd >out &&
	cmp_text /usr out
'

test_expect_success 'a command'"'"'s own EXIT trap runs, and what it left is kept; set -e keeps its status' '
	sb -w "$REF" exec --session x -c "trap \"echo bye\" EXIT; cd /tmp; export T=1" >out &&
	cmp_text bye out &&
	sb -w "$REF" exec --session x -c "pwd; echo \$T" >out &&
	cmp_text "/tmp
1" out &&
	expect_status 1 sb -w "$REF" exec --session x -c "set -e; cd /; false; echo no" >out &&
	must_be_empty out &&
	sb -w "$REF" exec --session x -- pwd >out &&
	cmp_text / out
'

test_expect_success 'functions and aliases named mv, mkdir or pwd do not stop the saving' '
	sb -w "$REF" exec --session m -c "mv() { echo MV; }; mkdir() { echo MK; }; alias mv=\"echo AL\"; cd /tmp" >out &&
	must_be_empty out &&
	sb -w "$REF" exec --session m -- pwd >out &&
	cmp_text /tmp out
'

test_expect_success 'the session is readable by its owner alone' '
	sb -w "$REF" exec --session a -c "export SECRET=1" &&
	sb -w "$REF" exec -- ls -ld /tmp/.sandbox-sessions/a /tmp/.sandbox-sessions/a/env >out &&
	test "$(cut -c1-10 out | sort -u | tr "\n" " ")" = "-rw------- drwx------ "
'

test_expect_success 'shell functions and unexported variables are not kept' '
	sb -w "$REF" exec --session f -c "f() { echo f; }; U=1; export E=1" &&
	sb -w "$REF" exec --session f -c "type f >/dev/null 2>&1 && echo has-f; echo \${U-nou} \$E" >out &&
	cmp_text "nou 1" out
'

test_expect_success 'a command killed by its timeout leaves the session as it was' '
	sb -w "$REF" exec --session t -c "cd /tmp" &&
	expect_status 124 sb -w "$REF" exec --session t --timeout 1 -c "cd /; export X=1; sleep 30" 2>err &&
	sb -w "$REF" exec --session t -c "pwd; echo \${X-unset}" >out &&
	cmp_text "/tmp
unset" out
'

test_expect_success 'a PATH without the system directories: the session is still saved' '
	sb -w "$REF" exec --session p -c "cd /tmp; export PATH=/nonexistent" &&
	sb -w "$REF" exec --session p -c "echo \$PATH; cd /" &&
	sb -w "$REF" exec --session p -c "pwd" >out &&
	cmp_text / out
'

test_expect_success 'a bad name, and --reset alone, are usage errors that run nothing' '
	for n in "" ../x .x -x "a b" a/b "$(printf "%065d" 0)"; do
		expect_status 2 sb -w "$REF" exec --session "$n" -- true 2>err || return 1
		grep_file "session" err || return 1
	done &&
	expect_status 2 sb -w "$REF" exec --reset -- true 2>err &&
	grep_file "^sandbox: exec: --reset goes with --session NAME" err &&
	expect_status 2 sb -w "$REF" exec --session a -e _sandbox_k=c -- true 2>err &&
	grep_file "variable _sandbox_k: a name that starts with _sandbox_ is the session" err
'

test_expect_success 'in --json, a session call is an exec like any other' '
	sb -w "$REF" --json exec --session j -c "cd /tmp; echo hi" >out &&
	json_check out "d[\"exit_code\"] == 0 and d[\"stdout\"] == \"hi\\n\""
'

test_done
