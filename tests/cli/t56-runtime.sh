#!/bin/bash
# The OCI runtime (man sandbox, GVISOR): runtime = NAME and create
# --runtime are recorded on the workspace (a label) and shown by list and
# --json; a bad name is refused (2), an unknown runtime is one line with
# the fix, exit 255, and nothing left; doctor tries the runtime with a
# throwaway container. On gVisor (runsc: Podman with its path, Docker
# through a daemon that has it registered, as the tests' second dockerd
# does) the workspace answers with gVisor's kernel, and exec (status,
# stdin, the timeout's kill), the file tools, jobs, cp, MCP, a stop and a
# start, snapshot and fork, a pool, and the hostile output of
# tests/cli/t36 (forged markers, floods, a holder of the pipes) all work;
# what gVisor cannot do as runc does (its memory and pids limits stop the
# whole workspace) is tested as the man page says it.
. "$(dirname "$0")/../lib.sh"
image_independent
need_engine

CLIENT=$TEST_LIB_DIR/mcp-client
# logs_say JOB TEXT: the job's log holds TEXT.
logs_say() { sb -w "$GV" logs "$1" 2>/dev/null | grep -q "$2"; }

if [ "$ENGINE" = podman ] && [ -x /usr/bin/runsc ]; then
	test_set_prereq RUNSC
	test_set_prereq RUNSC_ENDS
elif [ "$ENGINE" = docker ] && eng info --format '{{json .Runtimes}}' 2>/dev/null | grep -q '"runsc"'; then
	test_set_prereq RUNSC
else
	test_skip_reason[RUNSC]="runsc is not there for $ENGINE (scripts/setup-test-env installs it and registers it with the second dockerd)"
fi
# Docker keeps an exec's streams open when a gVisor container dies under
# it (man sandbox, GVISOR): a command whose workspace its limit stopped
# is not seen to end there.
[ "$ENGINE" = podman ] || test_skip_reason[RUNSC_ENDS]="Docker does not end an exec whose gVisor container died (man sandbox, GVISOR)"


test_expect_success 'a runtime that is no name nor path is refused: exit 2, nothing made' '
	before=$(our_workspaces | wc -l) &&
	expect_status 2 sb create --image "$IMAGE" --runtime "run sc" 2>err &&
	grep_file "runtime .run sc.: expected a runtime.s name" err &&
	expect_status 2 sb create --image "$IMAGE" -- --runtime=runc 2>err &&
	grep_file "engine run argument .--runtime. is not allowed: use sandbox.s --runtime" err &&
	test "$(our_workspaces | wc -l)" = "$before"
'

test_expect_success 'an unknown runtime: one line that says how to register it, exit 255, nothing left' '
	before=$(our_workspaces | wc -l) &&
	expect_status 255 sb create --image "$IMAGE" --runtime "$PFX-nosuch" 2>err &&
	line_count 1 err &&
	grep_file "^sandbox: create: runtime $PFX-nosuch: cannot create the workspace: .*; .*sandbox doctor --runtime $PFX-nosuch checks it$" err &&
	if [ "$ENGINE" = docker ]; then grep_file "daemon.json" err; else grep_file "give its path" err; fi &&
	test "$(our_workspaces | wc -l)" = "$before" &&
	eng ps -a --filter status=created --format "{{.Image}}" >created &&
	no_grep_file "$IMAGE" created
'

test_expect_success 'doctor tries the runtime asked for, and says what to do when it does not run' '
	expect_status 1 sb doctor --image "$IMAGE" --runtime "$PFX-nosuch" >out &&
	grep_file "^FAIL  runtime: $PFX-nosuch: a throwaway container: .*; .*checks it$" out &&
	sb doctor --image "$IMAGE" >out &&
	grep_file "^ok    runtime: the engine.s own" out
'

# Debian's runsc (20221219) fails the statx of coreutils 9: the Debian
# image's ls fails on it, and doctor must say so, as it must say ok where
# a newer runsc lists / (the truth: the same ls, run by the engine itself).
if test_have_prereq RUNSC && [ "$ENGINE" = podman ] && eng image inspect sandbox-test/debian:1 >/dev/null 2>&1; then
	test_set_prereq RUNSC_DEBIAN
else
	test_skip_reason[RUNSC_DEBIAN]="needs Podman with runsc and the image sandbox-test/debian:1"
fi
test_expect_success RUNSC_DEBIAN 'doctor: on runsc, the Debian image.s ls fails or not as doctor says' '
	if eng --runtime /usr/bin/runsc --runtime-flag network=none run --rm --network=none \
		--label sandbox.workspace=false --entrypoint ls sandbox-test/debian:1 / >/dev/null 2>truth; then
		sb doctor --image sandbox-test/debian:1 --runtime runsc >out &&
		grep_file "^ok    runtime: runsc: a throwaway container ran with it" out
	else
		grep_file "Invalid argument" truth &&
		expect_status 1 sb doctor --image sandbox-test/debian:1 --runtime runsc >out &&
		grep_file "^FAIL  runtime: runsc: a throwaway container ran with it (kernel 4\.4\.0, gVisor.s), but the image.s tools fail on it: ls /: ls: cannot access .*Invalid argument; use a newer runtime (gVisor.s own releases of runsc), or an image whose ls and stat do not use statx (BusyBox)" out
	fi
'

test_expect_success 'the engine.s own runtime by name: recorded, listed, in --json' '
	new_ws RC --runtime runc &&
	sb -w "$RC" exec -- echo runc >out && cmp_text runc out &&
	test "$(eng inspect --format "{{index .Config.Labels \"sandbox.runtime\"}}" "$RC")" = runc &&
	sb list >list &&
	grep_file "^REF .* EXPIRES  *RUNTIME$" list &&
	grep_file "^$RC .* runc$" list &&
	sb list --json >list.json &&
	json_check list.json "[w[\"runtime\"] for w in d[\"workspaces\"] if w[\"workspace\"] == \"$RC\"] == [\"runc\"]" &&
	sb destroy "$RC" >/dev/null
'

test_expect_success RUNSC 'doctor: runsc runs, with gVisor.s kernel' '
	sb doctor --image "$IMAGE" --runtime runsc >out &&
	grep_file "^ok    runtime: runsc: a throwaway container ran with it (kernel 4\.4\.0, gVisor.s)$" out
'

test_expect_success RUNSC 'a workspace on gVisor: its kernel, its label, list and --json' '
	new_ws GV --runtime runsc --name "$(new_name gv)" &&
	sb -w "$GV" exec -- uname -r >out && cmp_text 4.4.0 out &&
	sb list --json >list.json &&
	json_check list.json "[w[\"runtime\"] for w in d[\"workspaces\"] if w[\"workspace\"] == \"$GV\"] == [\"runsc\"]" &&
	sb list >list && grep_file "^$GV .* runsc$" list
'

test_expect_success RUNSC 'exec: its status, stdin, --json, and a timeout that kills it (124)' '
	expect_status 3 sb -w "$GV" exec -- sh -c "exit 3" &&
	echo fed | sb -w "$GV" exec -i -- cat >out && cmp_text fed out &&
	sb --json -w "$GV" exec -- sh -c "echo o; echo e >&2" >out.json &&
	json_check out.json "d[\"stdout\"] == \"o\\n\" and d[\"stderr\"] == \"e\\n\" and d[\"exit_code\"] == 0" &&
	expect_status 124 sb -w "$GV" exec --timeout 1 -- sh -c "echo \$\$ >/tmp/pid; exec sleep 600" 2>err &&
	grep_file "the command was killed in the workspace" err &&
	sb -w "$GV" exec -- sh -c "! kill -0 \$(cat /tmp/pid) 2>/dev/null"
'

test_expect_success RUNSC 'the file tools' '
	sb -w "$GV" write notes.txt --content "alpha
beta" >/dev/null &&
	sb -w "$GV" edit notes.txt --old beta --new gamma >/dev/null &&
	sb -w "$GV" read --raw notes.txt >out &&
	printf "alpha\ngamma" | cmp - out &&
	sb -w "$GV" glob "*.txt" >out && cmp_text notes.txt out &&
	sb -w "$GV" grep gamma >out && cmp_text notes.txt out
'

test_expect_success RUNSC 'a background job: its log, its kill' '
	sb -w "$GV" exec --background -- sh -c "echo started; exec sleep 600" >job &&
	job=$(cat job) &&
	wait_until 60 logs_say "$job" started &&
	sb -w "$GV" kill "$job" >/dev/null &&
	sb -w "$GV" jobs >jobs &&
	no_grep_file " running " jobs
'

test_expect_success RUNSC 'cp in and out' '
	head -c 300000 /dev/urandom >blob &&
	sb cp blob "$GV:/workspace/blob" >/dev/null &&
	sb cp "$GV:/workspace/blob" back >/dev/null &&
	cmp blob back
'

test_expect_success RUNSC 'MCP: exec in its session, read' '
	printf "%s\n" init "call 1 exec {\"command\":\"cd /tmp && export K=v\"}" "<" \
		"call 2 exec {\"command\":\"echo \$K \$(pwd); uname -r\"}" "<" \
		"call 3 read {\"path\":\"notes.txt\"}" "<" close |
		python3 "$CLIENT" "$SANDBOX" --engine "$ENGINE" -w "$GV" mcp >mcp.out 2>mcp.err &&
	sed -n 3p mcp.out >a2 && json_check a2 "\"v /tmp\\n4.4.0\" in d[\"result\"][\"content\"][0][\"text\"]" &&
	sed -n 4p mcp.out >a3 && json_check a3 "\"gamma\" in d[\"result\"][\"content\"][0][\"text\"]"
'

test_expect_success RUNSC 'hostile output: a forged done marker, a flood, a holder of the pipes' '
	expect_status 7 sb -w "$GV" exec -- sh -c "printf \"\\036deadbeefdeadbeef:done:0\\036\\n\"; exit 7" >out &&
	grep_file "deadbeef" out &&
	sb --json -w "$GV" exec --max-output 1000 -- sh -c "head -c 5000000 /dev/zero" >flood.json &&
	json_check flood.json "d[\"stdout_truncated\"] and d[\"stdout_bytes\"] == 5000000" &&
	sb -w "$GV" exec --timeout 60 -- sh -c "sleep 600 & echo held" >out &&
	cmp_text held out
'

test_expect_success RUNSC 'stopped, then started again by the next command, still on gVisor' '
	sb stop "$GV" >/dev/null &&
	sb -w "$GV" exec -- uname -r >out && cmp_text 4.4.0 out
'

test_expect_success RUNSC 'snapshot and fork: the fork runs on gVisor too, taking its runtime' '
	sb snapshot "$GV" --name "$PFX-gv" >/dev/null &&
	sb fork "$GV" --name "$(new_name fork)" >fork &&
	test "$(eng inspect --format "{{index .Config.Labels \"sandbox.runtime\"}}" "$(cat fork)")" = runsc &&
	sb -w "$(cat fork)" exec -- sh -c "uname -r; cat notes.txt" >out &&
	printf "4.4.0\nalpha\ngamma" | cmp - out &&
	sb destroy "$(cat fork)" >/dev/null &&
	sb destroy --snapshot "$PFX-gv" >/dev/null
'

test_expect_success RUNSC 'a warm pool on gVisor: run takes one of its spec, and removes it' '
	sb pool fill 1 --image "$IMAGE" --runtime runsc >/dev/null &&
	sb pool list --json >before.json &&
	json_check before.json "sum(p[\"ready\"] for p in d[\"pools\"]) == 1" &&
	sb run --image "$IMAGE" --runtime runsc -- uname -r >out &&
	cmp_text 4.4.0 out &&
	sb pool list --json >after.json &&
	json_check after.json "sum(p[\"ready\"] for p in d[\"pools\"]) == 0" &&
	sb pool drain >/dev/null
'

test_expect_success RUNSC,RUNSC_ENDS 'its memory limit stops the whole workspace, as the man page says' '
	new_ws GM --runtime runsc --memory 256m &&
	expect_status 255 sb -w "$GM" exec -- sh -c "x=a; while :; do x=\$x\$x; done" 2>err &&
	grep_file "the workspace stopped while the command ran" err &&
	sb -w "$GM" exec -- echo back >out && cmp_text back out &&
	sb destroy "$GM" >/dev/null
'

test_expect_success RUNSC 'cleanup' '
	sb destroy "$GV" >/dev/null
'

test_done
