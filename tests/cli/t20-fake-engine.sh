#!/bin/bash
# What sandbox hands its engine, seen through tests/fake-engine: the argv
# (argument by argument), the environment (an allow-list: nothing else of
# the caller's gets through), the engine's path, and the calls it makes.
. "$(dirname "$0")/../lib.sh"
only_once
# The argv and environment of each engine call of the direct path: with
# the resident process a call makes none (t54 tests that one).
export SANDBOX_KEEP=no
test_have_prereq PYTHON || skip_all "python3 is needed to read the fake engine's log"

REF=sandbox-0123456789ab

test_expect_success 'create: the run command line' '
	fake_engine fakedock &&
	"$SANDBOX" --engine "$FAKE" create --image img:1 >out &&
	R=$(cat out) &&
	fake_calls >calls &&
	cmp_text run calls &&
	fake_argv 1 >argv &&
	head -n 2 argv >first &&
	printf "%s\n" "$FAKE" run >expect &&
	cmp_file expect first &&
	for a in --detach "--name=$R" --label=sandbox.workspace=true --init \
		--network=none --pids-limit=2048 --label=sandbox.workdir=/workspace; do
		grep_file -x -e "$a" argv || return 1
	done &&
	grep_file -E "^--label=sandbox.created=[0-9]+$" argv &&
	grep_file -E "^--label=sandbox.version=[0-9]" argv &&
	grep_file -E "^--label=sandbox.nonce=[0-9a-f]{16}$" argv &&
	sed -n "/^--$/,\$p" argv | head -n 2 >tail &&
	printf "%s\n" -- img:1 >expect &&
	cmp_file expect tail
'

test_expect_success 'create: options become single arguments, whatever they hold' '
	fake_engine fakedock &&
	"$SANDBOX" --engine "$FAKE" create --image img:1 --env "K=a b
c" --env "Q=it${SQ}s \$x" --mount "$TRASH:/m:ro" --memory 1g --cpus 0.5 \
		--pids-limit -1 --user 1000:1000 --network bridge >/dev/null &&
	fake_argv 1 >argv &&
	for a in "--env=K=a b\\nc" "--env=Q=it${SQ}s \$x" \
		"--mount=type=bind,source=$TRASH,target=/m,readonly" \
		--memory=1g --cpus=0.5 --pids-limit=-1 --user=1000:1000 --network=bridge; do
		grep_file -x -F -e "$a" argv || return 1
	done
'

test_expect_success 'create -- ARGS: they go to the engine as they are, before the image' '
	fake_engine fakedock &&
	"$SANDBOX" --engine "$FAKE" create --image img:1 -- --hostname "a b" --cap-drop=ALL >/dev/null &&
	fake_argv 1 >argv &&
	sed -n "/^--$/q;p" argv | tail -n 3 >extra &&
	printf "%s\n" --hostname "a b" --cap-drop=ALL >expect &&
	cmp_file expect extra
'

test_expect_success 'create -- --network X replaces the default --network=none' '
	fake_engine fakedock &&
	"$SANDBOX" --engine "$FAKE" create --image img:1 -- --network=host >/dev/null &&
	fake_argv 1 >argv &&
	grep_file -x -e --network=host argv &&
	no_grep_file -x -e --network=none argv
'

test_expect_success 'the engine gets only the allowed variables of the environment' '
	fake_engine fakedock &&
	mkdir -p home &&
	env -i SECRET_TOKEN=x AWS_SECRET_ACCESS_KEY=y LD_PRELOAD=/nonexistent/lib.so \
		LD_LIBRARY_PATH=/nonexistent DOCKER_HOST=unix:///x LC_ALL=C \
		PATH="$TRASH/fake-bin:/usr/bin:/bin" HOME="$TRASH/home" FOO=bar \
		SANDBOX_WORKSPACE= BASH_ENV=/nonexistent ENV=/nonexistent \
		ASAN_OPTIONS="$ASAN_OPTIONS" UBSAN_OPTIONS="$UBSAN_OPTIONS" \
		"$SANDBOX" --engine fakedock create --image img:1 >out 2>err &&
	fake_env 1 >env &&
	printf "%s\n" DOCKER_HOST=unix:///x "HOME=$TRASH/home" LC_ALL=C \
		"PATH=$TRASH/fake-bin:/usr/bin:/bin" | LC_ALL=C sort >expect &&
	cmp_file expect env
'

test_expect_success 'without a PATH, or with an empty one, the engine gets the default PATH' '
	fake_engine fakedock &&
	env -i HOME="$TRASH" ASAN_OPTIONS="$ASAN_OPTIONS" UBSAN_OPTIONS="$UBSAN_OPTIONS" \
		"$SANDBOX" --engine "$FAKE" create --image img:1 >/dev/null &&
	env -i PATH= HOME="$TRASH" ASAN_OPTIONS="$ASAN_OPTIONS" UBSAN_OPTIONS="$UBSAN_OPTIONS" \
		"$SANDBOX" --engine "$FAKE" create --image img:1 >/dev/null &&
	printf "%s\n" "HOME=$TRASH" PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin >expect &&
	fake_env 1 >env &&
	cmp_file expect env &&
	fake_env 2 >env &&
	cmp_file expect env
'

test_expect_success 'every variable of the allow-list gets through' '
	fake_engine fakedock &&
	allowed="PATH HOME USER LOGNAME LANG LANGUAGE TZ TMPDIR LC_CTYPE LC_MESSAGES
		DOCKER_HOST DOCKER_CONTEXT DOCKER_CONFIG DOCKER_CERT_PATH DOCKER_TLS_VERIFY
		CONTAINER_HOST CONTAINER_CONNECTION CONTAINERS_CONF CONTAINERS_STORAGE_CONF
		CONTAINERS_REGISTRIES_CONF XDG_RUNTIME_DIR XDG_CONFIG_HOME XDG_DATA_HOME
		SSH_AUTH_SOCK DBUS_SESSION_BUS_ADDRESS CONTAINER_SSHKEY" &&
	vars=() &&
	for v in $allowed; do
		case $v in
		PATH) vars+=("PATH=$TRASH/fake-bin:/usr/bin:/bin") ;;
		*) vars+=("$v=value-of-$v") ;;
		esac
	done &&
	env -i "${vars[@]}" NOT_ALLOWED=1 ASAN_OPTIONS="$ASAN_OPTIONS" UBSAN_OPTIONS="$UBSAN_OPTIONS" \
		"$SANDBOX" --engine "$FAKE" create --image img:1 >/dev/null &&
	fake_env 1 >env &&
	printf "%s\n" "${vars[@]}" | LC_ALL=C sort >expect &&
	cmp_file expect env
'

test_expect_success 'the engine named without a path is found in PATH and run by its absolute path' '
	fake_engine fakedock &&
	PATH="$TRASH/fake-bin:$PATH" "$SANDBOX" --engine fakedock -w "$REF" exec -- true &&
	for n in $(seq 1 "$(fake_calls | wc -l)"); do
		fake_argv "$n" | head -n 1 >argv0 &&
		cmp_text "$TRASH/fake-bin/fakedock" argv0 || return 1
	done
'

test_expect_success 'a relative PATH entry is not searched' '
	fake_engine fakedock &&
	expect_status 255 env PATH="fake-bin:/usr/bin:/bin" "$SANDBOX" --engine fakedock -w "$REF" exec -- true 2>err &&
	cmp_text "sandbox: exec: engine ${SQ}fakedock${SQ} not found in PATH; install Docker or Podman, or pass --engine" err &&
	must_be_empty "$FAKE_LOG/calls"
'

test_expect_success 'exec: the command line, the wrapper, the command last' '
	fake_engine fakedock &&
	"$SANDBOX" --engine "$FAKE" -w "$REF" exec --env "A=1 2" -i -- echo "x y" "" &&
	fake_calls >calls &&
	printf "%s\n" inspect exec >expect &&
	cmp_file expect calls &&
	fake_argv 2 >argv &&
	sed -n "/^--$/q;p" argv >opts &&
	printf "%s\n" "$FAKE" exec --interactive "--env=A=1 2" >expect &&
	cmp_file expect opts &&
	tail -n 7 argv >tail &&
	printf "%s\n" /workspace "" 0 1 echo "x y" "" >expect &&
	cmp_file expect tail
'

test_expect_success 'exec --cwd: a leading - cannot become an option of cd' '
	fake_engine fakedock &&
	"$SANDBOX" --engine "$FAKE" -w "$REF" exec --cwd -P -- true &&
	fake_argv 2 | tail -n 4 >tail &&
	printf "%s\n" ./-P 0 0 true >expect &&
	cmp_file expect tail
'

test_expect_success 'exec after create: one engine call, no inspect' '
	fake_engine fakedock &&
	R=$("$SANDBOX" --engine "$FAKE" create --image img:1) &&
	"$SANDBOX" --engine "$FAKE" -w "$R" exec -- true &&
	"$SANDBOX" --engine "$FAKE" -w "$R" exec -- true &&
	fake_calls >calls &&
	printf "%s\n" run exec exec >expect &&
	cmp_file expect calls
'

test_expect_success 'exec: the command'"'"'s status comes through (125)' '
	fake_engine fakedock &&
	echo 125 >"$FAKE_LOG/exec-status" &&
	expect_status 125 "$SANDBOX" --engine "$FAKE" -w "$REF" exec -- true
'

test_expect_success 'exec: an engine that cannot exec is exit 255, never its 126' '
	fake_engine fakedock &&
	echo "Error: cannot exec in a stopped container" >"$FAKE_LOG/exec-fail" &&
	expect_status 255 "$SANDBOX" --engine "$FAKE" -w "$REF" exec -- true >out 2>err &&
	must_be_empty out &&
	grep_file "^sandbox: exec: " err &&
	grep_file "cannot exec in a stopped container" err &&
	line_count 1 err
'

test_expect_success 'a bad ref: no engine call at all' '
	fake_engine fakedock &&
	for ref in -rm "a b" ../x "a
b" ""; do
		expect_status 2 "$SANDBOX" --engine "$FAKE" -w "$ref" exec -- true 2>/dev/null &&
		expect_status 2 "$SANDBOX" --engine "$FAKE" start -- "$ref" 2>/dev/null &&
		expect_status 2 "$SANDBOX" --engine "$FAKE" stop -- "$ref" 2>/dev/null &&
		expect_status 2 "$SANDBOX" --engine "$FAKE" destroy -- "$ref" 2>/dev/null || return 1
	done &&
	check "no engine call" test ! -e "$FAKE_LOG/calls"
'

test_expect_success 'refused engine run arguments: no engine call' '
	fake_engine fakedock &&
	for a in --name=x --label=a=b "--entrypoint x" "-l a=b" -dl; do
		expect_status 2 "$SANDBOX" --engine "$FAKE" create --image img:1 -- $a 2>/dev/null || return 1
	done &&
	check "no engine call" test ! -e "$FAKE_LOG/calls"
'

test_expect_success 'destroy removes with the volumes, by ID, after checking the label' '
	fake_engine fakedock &&
	"$SANDBOX" --engine "$FAKE" destroy sandbox-0123456789ac >out &&
	cmp_text "removed sandbox-0123456789ac" out &&
	fake_calls >calls &&
	printf "%s\n" inspect rm >expect &&
	cmp_file expect calls &&
	fake_argv 2 >argv &&
	grep_file -x -e --volumes argv &&
	grep_file -x -e --force argv
'

test_expect_success 'destroy: a workspace checked before goes by its cached ID, in one rm' '
	fake_engine fakedock &&
	"$SANDBOX" --engine "$FAKE" -w sandbox-0123456789ad exec -- true &&
	"$SANDBOX" --engine "$FAKE" destroy sandbox-0123456789ad >out &&
	cmp_text "removed sandbox-0123456789ad" out &&
	fake_calls >calls &&
	printf "%s\n" inspect exec rm >expect &&
	cmp_file expect calls &&
	fake_argv 1 | tail -n 1 >checked &&
	fake_argv 3 | tail -n 1 >removed &&
	cmp_text sandbox-0123456789ad checked &&
	printf "%s" sandbox-0123456789ad | sha256sum | cut -d" " -f1 >id &&
	cmp_file id removed
'

# The fake engine'"'"'s containers: ID NAME STATE CREATED (epoch).
containers() {
	local now
	now=$(now_s)
	printf "%s\n" \
		"aaaa000000000000000000000000000000000000000000000000000000000001 sandbox-aaaaaaaaaaa1 running $((now - 10))" \
		"aaaa000000000000000000000000000000000000000000000000000000000002 sandbox-aaaaaaaaaaa2 exited $((now - 10))" \
		"aaaa000000000000000000000000000000000000000000000000000000000003 sandbox-aaaaaaaaaaa3 running $((now - 3 * 86400))" \
		"aaaa000000000000000000000000000000000000000000000000000000000004 sandbox-aaaaaaaaaaa4 exited $((now - 3 * 86400))" \
		>"$FAKE_LOG/containers"
}

test_expect_success 'prune --stopped: the stopped ones' '
	fake_engine fakedock && containers &&
	"$SANDBOX" --engine "$FAKE" prune --stopped >out &&
	printf "removed %s\n" sandbox-aaaaaaaaaaa2 sandbox-aaaaaaaaaaa4 >expect &&
	cmp_file expect out
'

test_expect_success 'prune --older-than 2d: the old ones' '
	fake_engine fakedock && containers &&
	"$SANDBOX" --engine "$FAKE" prune --older-than 2d >out &&
	printf "removed %s\n" sandbox-aaaaaaaaaaa3 sandbox-aaaaaaaaaaa4 >expect &&
	cmp_file expect out
'

test_expect_success 'prune --older-than 2d --stopped: old and stopped' '
	fake_engine fakedock && containers &&
	"$SANDBOX" --engine "$FAKE" prune --older-than 2d --stopped >out &&
	cmp_text "removed sandbox-aaaaaaaaaaa4" out
'

test_expect_success 'prune: all of them' '
	fake_engine fakedock && containers &&
	"$SANDBOX" --engine "$FAKE" prune >out &&
	printf "removed sandbox-aaaaaaaaaaa%s\n" 1 2 3 4 >expect &&
	cmp_file expect out
'

test_expect_success 'destroy --all: all of them, in one rm' '
	fake_engine fakedock && containers &&
	"$SANDBOX" --engine "$FAKE" destroy --all >out &&
	printf "removed sandbox-aaaaaaaaaaa%s\n" 1 2 3 4 >expect &&
	cmp_file expect out &&
	grep -c "^rm$" "$FAKE_LOG/calls" >n &&
	cmp_text 1 n
'

test_expect_success 'destroy of several refs: one inspect of them all, one rm; by name or ID; a missing one skipped' '
	fake_engine fakedock && containers &&
	"$SANDBOX" --engine "$FAKE" destroy sandbox-aaaaaaaaaaa3 sandbox-000000000000 aaaa000000000000000000000000000000000000000000000000000000000001 sandbox-aaaaaaaaaaa2 >out 2>err &&
	must_be_empty err &&
	printf "removed %s\n" sandbox-aaaaaaaaaaa3 aaaa000000000000000000000000000000000000000000000000000000000001 sandbox-aaaaaaaaaaa2 >expect &&
	cmp_file expect out &&
	fake_calls >calls &&
	printf "%s\n" inspect rm >expect &&
	cmp_file expect calls &&
	fake_argv 2 | sed -n "/^--$/,\$p" >ids &&
	printf "%s\n" -- aaaa000000000000000000000000000000000000000000000000000000000003 aaaa000000000000000000000000000000000000000000000000000000000001 aaaa000000000000000000000000000000000000000000000000000000000002 >expect &&
	cmp_file expect ids
'

test_expect_success 'list: one removed by somebody else between ps and inspect is left out' '
	fake_engine fakedock && containers &&
	echo aaaa000000000000000000000000000000000000000000000000000000000009 >"$FAKE_LOG/vanished" &&
	"$SANDBOX" --engine "$FAKE" list >out 2>err &&
	must_be_empty err &&
	awk "NR > 1 { print \$1 }" out >refs &&
	printf "sandbox-aaaaaaaaaaa%s\n" 1 2 3 4 >expect &&
	cmp_file expect refs &&
	fake_calls >calls &&
	printf "%s\n" ps inspect >expect &&
	cmp_file expect calls
'

test_expect_success 'destroy --all: one removed by somebody else before the rm (Docker): not named, no error' '
	fake_engine fakedock && containers &&
	echo aaaa000000000000000000000000000000000000000000000000000000000002 >"$FAKE_LOG/vanish-on-rm" &&
	"$SANDBOX" --engine "$FAKE" destroy --all >out 2>err &&
	must_be_empty err &&
	printf "removed sandbox-aaaaaaaaaaa%s\n" 1 3 4 >expect &&
	cmp_file expect out &&
	fake_calls >calls &&
	printf "%s\n" ps inspect rm ps >expect &&
	cmp_file expect calls
'

test_expect_success 'destroy --all: an rm that removes nothing when one is gone (Podman 4.3): the others in a second rm' '
	fake_engine fakedock && containers &&
	: >"$FAKE_LOG/rm-all-or-nothing" &&
	echo aaaa000000000000000000000000000000000000000000000000000000000002 >"$FAKE_LOG/vanish-on-rm" &&
	"$SANDBOX" --engine "$FAKE" destroy --all >out 2>err &&
	must_be_empty err &&
	printf "removed sandbox-aaaaaaaaaaa%s\n" 1 3 4 >expect &&
	cmp_file expect out &&
	must_be_empty "$FAKE_LOG/containers" &&
	fake_calls >calls &&
	printf "%s\n" ps inspect rm ps rm >expect &&
	cmp_file expect calls &&
	fake_argv 5 | sed -n "/^--$/,\$p" >ids &&
	printf "%s\n" -- aaaa000000000000000000000000000000000000000000000000000000000001 aaaa000000000000000000000000000000000000000000000000000000000003 aaaa000000000000000000000000000000000000000000000000000000000004 >expect &&
	cmp_file expect ids
'

test_expect_success 'destroy of refs: the same, after the check of each' '
	fake_engine fakedock && containers &&
	: >"$FAKE_LOG/rm-all-or-nothing" &&
	echo aaaa000000000000000000000000000000000000000000000000000000000002 >"$FAKE_LOG/vanish-on-rm" &&
	"$SANDBOX" --engine "$FAKE" destroy sandbox-aaaaaaaaaaa1 sandbox-aaaaaaaaaaa2 >out 2>err &&
	must_be_empty err &&
	cmp_text "removed sandbox-aaaaaaaaaaa1" out &&
	fake_calls >calls &&
	printf "%s\n" inspect rm ps rm >expect &&
	cmp_file expect calls
'

test_expect_success 'destroy --all: an rm that keeps failing: its message after three tries, exit 255' '
	fake_engine fakedock && containers &&
	echo "Error: container is busy" >"$FAKE_LOG/rm-stuck" &&
	expect_status 255 "$SANDBOX" --engine "$FAKE" destroy --all >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: destroy: cannot remove: Error: container is busy" err &&
	fake_calls >calls &&
	printf "%s\n" ps inspect rm ps rm ps rm ps >expect &&
	cmp_file expect calls
'

test_expect_success 'list: ref, state, image, age (s below 2m, then m, h from 2h, d from 2d)' '
	fake_engine fakedock &&
	now=$(now_s) &&
	printf "%s\n" \
		"bbbb000000000000000000000000000000000000000000000000000000000001 sandbox-bbbbbbbbbbb1 running $((now - 10))" \
		"bbbb000000000000000000000000000000000000000000000000000000000002 sandbox-bbbbbbbbbbb2 exited $((now - 150))" \
		"bbbb000000000000000000000000000000000000000000000000000000000003 sandbox-bbbbbbbbbbb3 created $((now - 3 * 3600 - 100))" \
		"bbbb000000000000000000000000000000000000000000000000000000000004 sandbox-bbbbbbbbbbb4 paused $((now - 3 * 86400 - 100))" \
		>"$FAKE_LOG/containers" &&
	"$SANDBOX" --engine "$FAKE" list >out &&
	{
		printf "%-24s %-10s %-32s %-5s %s\n" REF STATE IMAGE AGE EXPIRES &&
		printf "%-24s %-10s %-32s %-5s %s\n" sandbox-bbbbbbbbbbb1 running fake/image:1 10s - &&
		printf "%-24s %-10s %-32s %-5s %s\n" sandbox-bbbbbbbbbbb2 exited fake/image:1 2m - &&
		printf "%-24s %-10s %-32s %-5s %s\n" sandbox-bbbbbbbbbbb3 created fake/image:1 3h - &&
		printf "%-24s %-10s %-32s %-5s %s\n" sandbox-bbbbbbbbbbb4 paused fake/image:1 3d -
	} >expect &&
	sed "s/ 1[0-2]s   -$/ 10s   -/" out >got &&
	cmp_file expect got
'

test_expect_success 'stop, start: by ID after the label check' '
	fake_engine fakedock && containers &&
	"$SANDBOX" --engine "$FAKE" stop sandbox-aaaaaaaaaaa1 >out &&
	cmp_text sandbox-aaaaaaaaaaa1 out &&
	"$SANDBOX" --engine "$FAKE" start sandbox-aaaaaaaaaaa2 >out &&
	cmp_text sandbox-aaaaaaaaaaa2 out &&
	fake_calls >calls &&
	printf "%s\n" inspect stop inspect start >expect &&
	cmp_file expect calls &&
	fake_argv 2 | tail -n 1 >id &&
	cmp_text aaaa000000000000000000000000000000000000000000000000000000000001 id
'

test_expect_success '-v: each engine command on stderr, "+ " and shell-quoted' '
	fake_engine fakedock &&
	"$SANDBOX" -v --engine "$FAKE" -w "$REF" exec -- echo "it${SQ}s" 2>err &&
	grep_file -x -F "+ $FAKE inspect --type=container ${SQ}--format={{.Id}}	{{.State.Running}}	{{index .Config.Labels \"sandbox.workspace\"}}	{{index .Config.Labels \"sandbox.workdir\"}}	{{index .Config.Labels \"sandbox.nonce\"}}	{{index .Config.Labels \"sandbox.expires\"}}	{{.Name}}	{{index .Config.Labels \"sandbox.runtime\"}}	{{.HostConfig.NetworkMode}}	{{index .Config.Labels \"sandbox.allow\"}}${SQ} -- $REF" err &&
	grep_file -F "+ $FAKE exec --interactive -- " err &&
	grep_file -F " /workspace ${SQ}${SQ} 0 0 echo ${SQ}it${SQ}\\${SQ}${SQ}s${SQ}" err
'

# The snapshots of a fake engine: ID, repository, tag per line of
# "images"; the answer of image inspect in "image-inspect": ID, names
# (" NAME" each), the labels snapshot, workdir, of, created, and size.
H1=$(printf "%064d" 1)
H2=$(printf "%064d" 2)
test_expect_success 'snapshots: only rows of our repository with a name and an ID are asked about' '
	fake_engine fakedock &&
	printf "sha256:%s\t%s\t%s\n" "$H1" sandbox-snapshot good "$H2" other/sandbox-snapshot x \
		"$H2" sandbox-snapshot "<none>" nothex sandbox-snapshot bad "$H2" sandbox-snapshot -x \
		>"$FAKE_LOG/images" &&
	printf "sha256:%s\t sandbox-snapshot:good\ttrue\t/src\tws\033[31m\t1700000000\t2048\n" "$H1" >"$FAKE_LOG/image-inspect" &&
	"$SANDBOX" --engine "$FAKE" snapshots >out 2>err &&
	must_be_empty err &&
	fake_calls >calls &&
	printf "%s\n" images image >expect &&
	cmp_file expect calls &&
	fake_argv 2 >argv &&
	sed -n "/^--$/,\$p" argv >asked &&
	printf "%s\n" -- "sha256:$H1" >expect &&
	cmp_file expect asked &&
	tail -n +2 out >rows &&
	line_count 1 rows &&
	read -r name of age size <rows &&
	check "name $name" test "$name" = good &&
	check "of $of: control characters shown as ?" test "$of" = "ws?[31m" &&
	check "size $size" test "$size" = 2K
'

test_expect_success 'snapshots: an image without our label is not listed' '
	printf "sha256:%s\t sandbox-snapshot:good\tfalse\t/src\tws\t1700000000\t2048\n" "$H1" >"$FAKE_LOG/image-inspect" &&
	"$SANDBOX" --engine "$FAKE" snapshots >out &&
	line_count 1 out
'

test_expect_success 'snapshots: an answer about another image than the one asked: refused' '
	printf "sha256:%s\t sandbox-snapshot:good\ttrue\t/src\tws\t1700000000\t2048\n" "$H2" >"$FAKE_LOG/image-inspect" &&
	expect_status 255 "$SANDBOX" --engine "$FAKE" snapshots >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: snapshots: image inspect: unexpected answer from the engine" err &&
	printf "sha256:%s\t sandbox-snapshot:good\ttrue\t/src\tws\t1700000000\t2048\nsha256:%s\t sandbox-snapshot:good\ttrue\t/src\tws\t1\t2\n" "$H1" "$H1" \
		>"$FAKE_LOG/image-inspect" &&
	expect_status 255 "$SANDBOX" --engine "$FAKE" snapshots >out 2>err &&
	cmp_text "sandbox: snapshots: image inspect: unexpected answer from the engine" err
'

test_expect_success 'create --from: the label is asked for, and the image is never pulled' '
	fake_engine fakedock &&
	printf "sha256:%s\t sandbox-snapshot:snap-1\ttrue\t/src\tws\t1700000000\t2048\n" "$H1" >"$FAKE_LOG/image-inspect" &&
	"$SANDBOX" --engine "$FAKE" create --from snap-1 >/dev/null &&
	fake_calls >calls &&
	printf "%s\n" image run >expect &&
	cmp_file expect calls &&
	fake_argv 1 >argv &&
	tail -n 2 argv >asked &&
	printf "%s\n" -- sandbox-snapshot:snap-1 >expect &&
	cmp_file expect asked &&
	fake_argv 2 >argv &&
	grep_file -x -e --pull=never argv &&
	grep_file -x -e --label=sandbox.workdir=/src argv &&
	sed -n "/^--$/,\$p" argv | head -n 2 >tail &&
	printf "%s\n" -- sandbox-snapshot:snap-1 >expect &&
	cmp_file expect tail
'

test_expect_success 'create --from: a workdir label that is no directory to use: refused' '
	fake_engine fakedock &&
	printf "sha256:%s\t sandbox-snapshot:snap-1\ttrue\trelative,dir\tws\t1700000000\t2048\n" "$H1" >"$FAKE_LOG/image-inspect" &&
	expect_status 1 "$SANDBOX" --engine "$FAKE" create --from snap-1 >out 2>err &&
	cmp_text "sandbox: create: snapshot snap-1: its label sandbox.workdir is no directory to use; pass --workdir" err &&
	fake_calls >calls &&
	cmp_text image calls
'

test_expect_success 'snapshots: an image gone since the list is left out; the list is taken once more' '
	fake_engine fakedock &&
	printf "sha256:%s\t%s\t%s\n" "$H1" sandbox-snapshot one "$H2" sandbox-snapshot two >"$FAKE_LOG/images" &&
	printf "sha256:%s\t%s\t%s\n" "$H1" sandbox-snapshot one >"$FAKE_LOG/images.next" &&
	printf "sha256:%s\t sandbox-snapshot:one\ttrue\t/src\tws\t1700000000\t2048\n" "$H1" >"$FAKE_LOG/image-inspect" &&
	: >"$FAKE_LOG/image-inspect-gone" &&
	"$SANDBOX" --engine "$FAKE" snapshots >out 2>err &&
	must_be_empty err &&
	fake_calls >calls &&
	printf "%s\n" images image images image >expect &&
	cmp_file expect calls &&
	tail -n +2 out | awk "{ print \$1 }" >names &&
	cmp_text one names
'

test_expect_success 'snapshots: gone again on the second try: the others are listed' '
	fake_engine fakedock &&
	printf "sha256:%s\t%s\t%s\n" "$H1" sandbox-snapshot one "$H2" sandbox-snapshot two >"$FAKE_LOG/images" &&
	printf "sha256:%s\t sandbox-snapshot:one\ttrue\t/src\tws\t1700000000\t2048\n" "$H1" >"$FAKE_LOG/image-inspect-gone" &&
	: >"$FAKE_LOG/gone-keep" &&
	"$SANDBOX" --engine "$FAKE" snapshots >out 2>err &&
	must_be_empty err &&
	tail -n +2 out | awk "{ print \$1 }" >names &&
	cmp_text one names
'

test_expect_success 'snapshots: an image of no name with our label is listed by its short ID' '
	fake_engine fakedock &&
	printf "sha256:%s\t%s\t%s\n" "$H1" "<none>" "<none>" "$H2" "<none>" "<none>" >"$FAKE_LOG/images" &&
	printf "sha256:%s\t\ttrue\t/src\tws\t1700000000\t2048\nsha256:%s\t other:x\ttrue\t/src\tws\t1700000000\t2048\n" \
		"$H1" "$H2" >"$FAKE_LOG/image-inspect" &&
	"$SANDBOX" --engine "$FAKE" snapshots >out 2>err &&
	must_be_empty err &&
	tail -n +2 out | awk "{ print \$1 }" >names &&
	cmp_text "${H1:0:12}" names
'

test_expect_success 'snapshots: an image that does not carry the name listed is left out' '
	fake_engine fakedock &&
	printf "sha256:%s\t%s\t%s\n" "$H1" sandbox-snapshot one >"$FAKE_LOG/images" &&
	printf "sha256:%s\t quay.io/x/sandbox-snapshot:one\ttrue\t/src\tws\t1700000000\t2048\n" "$H1" >"$FAKE_LOG/image-inspect" &&
	"$SANDBOX" --engine "$FAKE" snapshots >out 2>err &&
	line_count 1 out
'

test_expect_success 'podman: a snapshot is asked for and run fully qualified; another name found is refused' '
	fake_engine podman &&
	printf "sha256:%s\t localhost/sandbox-snapshot:snap-1\ttrue\t/src\tws\t1700000000\t2048\n" "$H1" >"$FAKE_LOG/image-inspect" &&
	"$SANDBOX" --engine "$FAKE" create --from snap-1 >/dev/null &&
	fake_argv 1 | tail -n 2 >asked &&
	printf "%s\n" -- localhost/sandbox-snapshot:snap-1 >expect &&
	cmp_file expect asked &&
	fake_argv 2 | sed -n "/^--$/,\$p" | head -n 2 >tail &&
	cmp_file expect tail &&
	printf "sha256:%s\t quay.io/evil/sandbox-snapshot:snap-1\ttrue\t/etc\tws\t1700000000\t2048\n" "$H1" >"$FAKE_LOG/image-inspect" &&
	expect_status 1 "$SANDBOX" --engine "$FAKE" create --from snap-1 >out 2>err &&
	cmp_text "sandbox: create: no snapshot snap-1: the image the engine found is not named sandbox-snapshot:snap-1; refusing to use it" err &&
	expect_status 1 "$SANDBOX" --engine "$FAKE" destroy --snapshot snap-1 >out 2>err &&
	cmp_text "sandbox: destroy: no snapshot snap-1: the image the engine found is not named sandbox-snapshot:snap-1; refusing to remove it" err
'

test_done
