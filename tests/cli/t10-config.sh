#!/bin/bash
# sandbox.ini: the [sandbox] keys (the create and exec options' names with
# - as _), the [env] section, where the file is found (--config,
# SANDBOX_CONFIG, ./sandbox.ini once trusted), and the command line winning
# over it. The trust itself, and the user's defaults: t11-trust.sh.
. "$(dirname "$0")/../lib.sh"
only_once
need_engine

CLIENT=$(cd "$(dirname "$0")/.." && pwd)/mcp-client

test_expect_success 'setup: a project directory with a sandbox.ini' '
	mkdir proj &&
	cat >proj/sandbox.ini <<-EOF
	# the test project
	[sandbox]
	image = $IMAGE
	workdir = /project
	pids_limit = 300

	[env]
	FOO = from ini
	BAR = bar
	t = T ini
	n = N ini
	d = D ini
	E = E ini
	EOF
	chmod 644 proj/sandbox.ini &&
	(cd proj && sb trust >/dev/null)
'

test_expect_success './sandbox.ini: create takes the image, workdir and pids limit from it' '
	R=$(cd proj && sb create) &&
	eng inspect --format "{{.HostConfig.PidsLimit}}" "$R" >out &&
	cmp_text 300 out &&
	sb -w "$R" exec -- pwd >out &&
	cmp_text /project out
'

test_expect_success '[env]: every command of the workspace sees the variables' '
	(cd proj && sb -w "$R" exec -- sh -c "echo \"\$FOO|\$BAR\"") >out &&
	cmp_text "from ini|bar" out
'

# Names the exec wrapper and the channel's server use for their own
# work (t n d E): variables of the workspace all the same, for exec and
# for an MCP exec (which runs on the channel). An MCP command also gets
# the PATH an exec gets, and ignores neither SIGINT nor SIGQUIT.
test_expect_success '[env] with the names our scripts use: exec and MCP exec see them' '
	(cd proj && sb -w "$R" exec -- sh -c "echo \"\$t|\$n|\$d|\$E\"") >out &&
	cmp_text "T ini|N ini|D ini|E ini" out &&
	sb -w "$R" exec -- sh -c "echo \"\$PATH\"" >path &&
	cat >steps <<-\STEPS &&
	init
	call 1 exec {"command":"echo \"$t|$n|$d|$E|$PATH\"; grep SigIgn /proc/self/status"}
	<
	close
	STEPS
	python3 "$CLIENT" "$SANDBOX" --engine "$ENGINE" -w "$R" mcp <steps >mout 2>mout.err &&
	sed -n 2p mout >answer &&
	json_check answer "d[\"result\"][\"structuredContent\"][\"stdout\"].split(\"\\n\")[0] == \"T ini|N ini|D ini|E ini|$(cat path)\"" &&
	python3 -c "import json, sys; print(json.load(open(\"answer\"))[\"result\"][\"structuredContent\"][\"stdout\"], end=\"\")" >status &&
	grep SigIgn status >sigign &&
	m=$(sed -n "s/^SigIgn:[[:space:]]*//p" sigign) &&
	test $(( 0x$m & 6 )) = 0
'

test_expect_success 'the command line wins over the file' '
	(cd proj && sb -w "$R" exec --env FOO=cli -- sh -c "echo \"\$FOO|\$BAR\"") >out &&
	cmp_text "cli|bar" out &&
	R2=$(cd proj && sb create --pids-limit 400 --workdir /cli) &&
	eng inspect --format "{{.HostConfig.PidsLimit}}" "$R2" >out &&
	cmp_text 400 out &&
	sb -w "$R2" exec -- pwd >out &&
	cmp_text /cli out
'

test_expect_success '--config FILE, from anywhere' '
	R3=$(sb --config proj/sandbox.ini create) &&
	sb -w "$R3" exec -- pwd >out &&
	cmp_text /project out
'

test_expect_success 'SANDBOX_CONFIG names the file' '
	R4=$(SANDBOX_CONFIG=$TRASH/proj/sandbox.ini sb create) &&
	sb -w "$R4" exec -- pwd >out &&
	cmp_text /project out
'

test_expect_success '--config wins over SANDBOX_CONFIG' '
	printf "[sandbox]\nimage = %s\nworkdir = /other\n" "$IMAGE" >other.ini &&
	R5=$(SANDBOX_CONFIG=$TRASH/proj/sandbox.ini sb --config other.ini create) &&
	sb -w "$R5" exec -- pwd >out &&
	cmp_text /other out
'

test_expect_success '-c is only shell text: as a config file it is refused, and says to use --config' '
	for at in before after; do
		if [ $at = before ]; then
			expect_status 2 sb -c proj/sandbox.ini create >out 2>err
		else
			expect_status 2 sb create -c proj/sandbox.ini >out 2>err
		fi &&
		must_be_empty out &&
		grep_file "^sandbox: .*-c is the shell text of exec and run; for a config file, use --config FILE$" err ||
		return 1
	done &&
	R6=$(sb --config proj/sandbox.ini create) &&
	sb -w "$R6" exec -- pwd >out &&
	cmp_text /project out &&
	sb -w "$R6" exec -c "echo shell" >out &&
	cmp_text shell out &&
	sb -w "$R6" exec --command "echo long" >out &&
	cmp_text long out
'

test_expect_success 'exec without a workspace creates one from the config' '
	(cd proj && sb exec -- sh -c "pwd; echo \$FOO") >out 2>err &&
	printf "/project\nfrom ini\n" >expect &&
	cmp_file expect out &&
	LAZY=$(sed -n "s/^sandbox: created workspace \(sandbox-[0-9a-f]*\) .*/\1/p" err) &&
	check "a ref in: $(cat err)" test -n "$LAZY"
'

test_expect_success 'timeout and max_output from the config' '
	printf "[sandbox]\ntimeout = 2\nmax_output = 10\n" >limits.ini &&
	expect_status 124 sb --config limits.ini -w "$R" exec -- sleep 30 2>err &&
	cmp_text "sandbox: exec: timed out after 2s; the command was killed in the workspace" err &&
	sb --config limits.ini -w "$R" exec --timeout 0 -- sleep 3 &&
	if test_have_prereq PYTHON; then
		sb --config limits.ini --json -w "$R" exec -- seq 1 100 >out &&
		json_check out "d[\"stdout_truncated\"] is True and len(d[\"stdout\"]) <= 10"
	fi
'

test_expect_success 'name and setup from the config' '
	N=$(new_name fromini) &&
	printf "[sandbox]\nimage = %s\nname = %s\nsetup = echo set >/tmp/setup-done\n" "$IMAGE" "$N" >named.ini &&
	sb --config named.ini create >out &&
	cmp_text "$N" out &&
	sb -w "$N" exec -- cat /tmp/setup-done >out &&
	cmp_text set out
'

test_expect_success 'mount from the config, relative to the current directory' '
	mkdir -p proj/src &&
	echo source >proj/src/main.c &&
	printf "[sandbox]\nimage = %s\nmount = src:/src:ro\n" "$IMAGE" >proj/mount.ini &&
	M=$(cd proj && sb --config mount.ini create) &&
	sb -w "$M" exec -- cat /src/main.c >out &&
	cmp_text source out
'

test_expect_success 'engine from the config; --engine wins over it' '
	printf "[sandbox]\nengine = /nonexistent\n" >engine.ini &&
	expect_status 255 "$SANDBOX" --config engine.ini -w "$R" exec -- true 2>err &&
	cmp_text "sandbox: exec: engine /nonexistent: No such file or directory" err &&
	"$SANDBOX" --config engine.ini --engine "$ENGINE" -w "$R" exec -- echo ok >out &&
	cmp_text ok out
'

test_expect_success 'an unknown key: exit 2, FILE:LINE and the key' '
	printf "[sandbox]\nimage = %s\n\nfrobnicate = yes\n" "$IMAGE" >bad.ini &&
	expect_status 2 sb -v --config bad.ini -w "$R" exec -- true >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: exec: bad.ini:4: unknown key ${SQ}frobnicate${SQ}" err
'

test_expect_success 'a bad value in the file: exit 2, FILE:LINE' '
	printf "[sandbox]\npids_limit = many\n" >bad.ini &&
	expect_status 2 sb --config bad.ini create >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: create: bad.ini:2: pids_limit ${SQ}many${SQ}: expected a positive number, or -1 for no limit" err
'

test_expect_success 'an unknown section: exit 2' '
	printf "[sandbox]\n[extras]\nx = 1\n" >bad.ini &&
	expect_status 2 sb --config bad.ini list >out 2>err &&
	cmp_text "sandbox: list: bad.ini:3: unknown section [extras]; expected [sandbox], [env] or [secrets]" err
'

test_expect_success 'env in [sandbox]: exit 2, pointing at [env]' '
	printf "[sandbox]\nenv = A=1\n" >bad.ini &&
	expect_status 2 sb --config bad.ini list >out 2>err &&
	cmp_text "sandbox: list: bad.ini:2: put variables in the [env] section" err
'

test_expect_success 'a bad variable name in [env]: exit 2' '
	printf "[env]\n1BAD = x\n" >bad.ini &&
	expect_status 2 sb --config bad.ini list >out 2>err &&
	cmp_text "sandbox: list: bad.ini:2: env: ${SQ}1BAD${SQ} is not a variable name ([A-Za-z_][A-Za-z0-9_]*)" err
'

test_expect_success 'a line that is not key = value: exit 2' '
	printf "[sandbox]\njust words\n" >bad.ini &&
	expect_status 2 sb --config bad.ini list >out 2>err &&
	cmp_text "sandbox: list: bad.ini:2: syntax error; expected ${SQ}key = value${SQ} or ${SQ}[section]${SQ}" err
'

test_expect_success 'a config file anybody can write is refused: exit 2' '
	printf "[sandbox]\nimage = %s\n" "$IMAGE" >open.ini &&
	chmod 666 open.ini &&
	expect_status 2 sb --config open.ini create >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: create: open.ini: writable by everyone; run chmod o-w on it" err
'

test_expect_success 'a missing --config file: exit 2' '
	expect_status 2 sb --config nope.ini list >out 2>err &&
	cmp_text "sandbox: list: nope.ini: No such file or directory" err
'

test_expect_success 'a missing ./sandbox.ini is no error' '
	mkdir empty &&
	(cd empty && sb -w "$R" exec -- echo fine) >out &&
	cmp_text fine out
'

test_expect_success 'no workspace was made by the failed commands' '
	sb destroy "$R" "$R2" "$R3" "$R4" "$R5" "$R6" "$M" "$N" "$LAZY" >/dev/null &&
	no_workspace_left
'

test_done
