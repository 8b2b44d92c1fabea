#!/bin/bash
# sandbox create: what the new workspace is (labels, no network, a pids
# limit, an init, the workdir) and what the create options do.
. "$(dirname "$0")/../lib.sh"
image_independent
need_engine

test_expect_success 'create prints the new ref, sandbox- and 12 hex digits, and nothing else' '
	sb create --image "$IMAGE" >out 2>err &&
	must_be_empty err &&
	line_count 1 out &&
	grep_file -E "^sandbox-[0-9a-f]{12}$" out &&
	REF=$(cat out) &&
	check "$REF exists" ctr_exists "$REF"
'

test_expect_success 'the workspace is running and carries the sandbox labels' '
	check "running" test "$(ctr_state "$REF")" = running &&
	eng inspect --format "{{index .Config.Labels \"sandbox.workspace\"}}" "$REF" >out &&
	cmp_text true out &&
	eng inspect --format "{{index .Config.Labels \"sandbox.version\"}}" "$REF" >out &&
	"$SANDBOX" --version | sed "s/^sandbox //" >expect &&
	cmp_file expect out &&
	created=$(eng inspect --format "{{index .Config.Labels \"sandbox.created\"}}" "$REF") &&
	now=$(now_s) &&
	check "sandbox.created ($created) is the creation time ($now)" \
		test "$created" -le "$now" -a "$created" -gt $((now - 300))
'

test_expect_success 'no network by default: only lo in the workspace' '
	sb -w "$REF" exec -- ls /sys/class/net >out &&
	cmp_text lo out &&
	eng inspect --format "{{.HostConfig.NetworkMode}}" "$REF" >out &&
	cmp_text none out
'

test_expect_success 'the pids limit is 2048 by default' '
	eng inspect --format "{{.HostConfig.PidsLimit}}" "$REF" >out &&
	cmp_text 2048 out
'

test_expect_success 'PID 1 is an init (--init), the keep-alive its child' '
	sb -w "$REF" exec -- cat /proc/1/cmdline | tr "\0" " " >out &&
	grep_file -E "^[^ ]*init[^ ]* " out &&
	eng inspect --format "{{.HostConfig.Init}}" "$REF" >out &&
	cmp_text true out
'

test_expect_success 'commands start in /workspace, created for them' '
	sb -w "$REF" exec -- pwd >out &&
	cmp_text /workspace out &&
	sb -w "$REF" exec -- sh -c "test -d /workspace && echo dir" >out &&
	cmp_text dir out
'

test_expect_success 'create --json prints {"workspace", "id"}' '
	sb --json create --image "$IMAGE" >out 2>err &&
	must_be_empty err &&
	if test_have_prereq PYTHON; then
		J=$(python3 -c "import json,sys; print(json.load(open(\"out\"))[\"workspace\"])") &&
		id=$(eng inspect --format "{{.Id}}" "$J") &&
		json_check out "set(d) == {\"workspace\", \"id\"} and d[\"workspace\"].startswith(\"sandbox-\") and d[\"id\"] == \"$id\""
	else
		grep_file -E "^\{\"workspace\":\"sandbox-[0-9a-f]{12}\",\"id\":\"[0-9a-f]{64}\"\}$" out
	fi
'

test_expect_success 'create --name: the workspace has that name' '
	N=$(new_name named) &&
	sb create --image "$IMAGE" --name "$N" >out &&
	cmp_text "$N" out &&
	eng inspect --format "{{index .Config.Labels \"sandbox.workspace\"}}" "$N" >out &&
	cmp_text true out &&
	sb -w "$N" exec -- echo hi >out &&
	cmp_text hi out
'

test_expect_success 'create --name of a name in use fails (exit 1) and leaves the other alone' '
	before=$(ctr_info "$N") &&
	expect_status 1 sb create --image "$IMAGE" --name "$N" >out 2>err &&
	check "$N unchanged" test "$(ctr_info "$N")" = "$before" &&
	must_be_empty out &&
	line_count 1 err &&
	grep_file "^sandbox: create: cannot create the workspace: " err
'

test_expect_success 'create --pids-limit N' '
	new_ws P --pids-limit 100 &&
	eng inspect --format "{{.HostConfig.PidsLimit}}" "$P" >out &&
	cmp_text 100 out
'

test_expect_success 'create --memory and --cpus' '
	new_ws M --memory 256m --cpus 1.5 &&
	eng inspect --format "{{.HostConfig.Memory}} {{.HostConfig.NanoCpus}}" "$M" >out &&
	cmp_text "268435456 1500000000" out
'

test_expect_success 'create --workdir DIR: commands start there, created for them' '
	new_ws D --workdir /srv/deep/work &&
	sb -w "$D" exec -- pwd >out &&
	cmp_text /srv/deep/work out
'

test_expect_success 'create --mount HOST_DIR: the directory appears at the workdir, read-write' '
	mkdir host &&
	echo from-host >host/hello &&
	new_ws MT --mount "$TRASH/host" &&
	sb -w "$MT" exec -- cat hello >out &&
	cmp_text from-host out &&
	sb -w "$MT" exec -- sh -c "echo from-ctr >made" &&
	cmp_text from-ctr host/made
'

test_expect_success 'create --mount HOST_DIR:CTR_DIR:ro is read-only' '
	new_ws RO --mount "$TRASH/host:/data:ro" &&
	sb -w "$RO" exec -- cat /data/hello >out &&
	cmp_text from-host out &&
	expect_status 1 sb -w "$RO" exec -- touch /data/new 2>err &&
	grep_file -i "read-only" err &&
	check "nothing written on the host" test ! -e host/new
'

test_expect_success 'create --mount with a relative host directory' '
	mkdir -p sub/rel &&
	echo relative >sub/rel/f &&
	(cd sub && sb create --image "$IMAGE" --mount rel:/rel) >out &&
	R=$(cat out) &&
	sb -w "$R" exec -- cat /rel/f >out &&
	cmp_text relative out
'

test_expect_success 'create --env K=V: every command sees it' '
	new_ws E --env "GREETING=hello world" --env "EMPTY=" &&
	sb -w "$E" exec -- sh -c "printf \"%s|%s\n\" \"\$GREETING\" \"\${EMPTY-unset}\"" >out &&
	cmp_text "hello world|" out
'

test_expect_success 'create --setup runs once, its output on stderr, stdout only the ref' '
	new_name setup >/dev/null &&
	sb create --image "$IMAGE" --setup "echo ran >>/tmp/setup-runs; echo setup-says-hi" >out 2>err &&
	grep_file -E "^sandbox-[0-9a-f]{12}$" out &&
	line_count 1 out &&
	grep_file setup-says-hi err &&
	S=$(cat out) &&
	sb -w "$S" exec -- true &&
	sb -w "$S" exec -- cat /tmp/setup-runs >out &&
	cmp_text ran out
'

test_expect_success 'a failing --setup: create fails (exit 1) and removes the workspace' '
	N=$(new_name badsetup) &&
	expect_status 1 sb create --image "$IMAGE" --name "$N" --setup "echo broken >&2; exit 3" >out 2>err &&
	must_be_empty out &&
	grep_file broken err &&
	tail -n 1 err >last &&
	cmp_text "sandbox: create: the setup command failed with status 3" last &&
	ctr_gone "$N"
'

test_expect_success 'create interrupted (SIGINT) during --setup: fails, and removes the workspace' '
	N=$(new_name intsetup) &&
	set -m &&
	{ "$SANDBOX" --engine "$ENGINE" create --image "$IMAGE" --name "$N" --setup "sleep 30" >out 2>err & pid=$!; } &&
	set +m &&
	wait_until 60 eval "ctr_exists $N && has_proc $N \"^sleep 30\"" &&
	kill -INT "$pid" &&
	{ wait_exit 60 "$pid"; st=$?; } &&
	check "exit status $st is not 0" test "$st" != 0 &&
	must_be_empty out &&
	ctr_gone "$N"
'

test_expect_success 'create -- --hostname foo: the engine run arguments pass through' '
	new_ws H -- --hostname foo &&
	sb -w "$H" exec -- hostname >out &&
	cmp_text foo out
'

test_expect_success 'create --network bridge gives an interface besides lo (no traffic sent)' '
	new_ws B --network bridge &&
	sb -w "$B" exec -- ls /sys/class/net >out &&
	check "more than lo" test "$(grep -vc "^lo$" out)" -ge 1
'

test_expect_success 'create -- --network bridge alone is taken (no conflict with the default)' '
	new_ws B2 -- --network bridge &&
	eng inspect --format "{{.HostConfig.NetworkMode}}" "$B2" >out &&
	grep_file bridge out
'

test_expect_success 'create --user: commands run as that user' '
	new_ws U --user 65534 --workdir /tmp &&
	sb -w "$U" exec -- id -u >out &&
	cmp_text 65534 out
'

test_done
