#!/bin/bash
# Bad input: each mistake is a usage error (exit 2) told in one line on
# stderr, before any engine command runs (-v would show one) and before
# anything is created. Refs are container names: one that could be read as
# an option, or is not a name at all, is refused the same way.
. "$(dirname "$0")/../lib.sh"
only_once
need_engine

# refused MESSAGE ARGS...: `sandbox -v ARGS` exits 2 with MESSAGE alone on
# stderr (no "+ " engine line) and nothing on stdout.
refused() {
	local msg=$1
	shift
	expect_status 2 sb -v "$@" >out 2>err &&
	must_be_empty out &&
	cmp_text "$msg" err
}

N=$(new_name bad)
N2=$(new_name bad2)
NOTREF="is not a workspace ref: expected a container name like sandbox-0123456789ab"

test_expect_success 'create: an unknown option' '
	refused "sandbox: create: unknown option ${SQ}--frobnicate${SQ} for create; see ${SQ}sandbox help create${SQ}" \
		create --image "$IMAGE" --name "$N" --frobnicate &&
	ctr_gone "$N"
'

test_expect_success 'create: --pids-limit abc and --pids-limit 0' '
	refused "sandbox: create: pids_limit ${SQ}abc${SQ}: expected a positive number, or -1 for no limit" \
		create --image "$IMAGE" --name "$N" --pids-limit abc &&
	refused "sandbox: create: pids_limit ${SQ}0${SQ}: expected a positive number, or -1 for no limit" \
		create --image "$IMAGE" --name "$N" --pids-limit 0 &&
	ctr_gone "$N"
'

test_expect_success 'run: --timeout -1' '
	refused "sandbox: run: timeout ${SQ}-1${SQ}: expected seconds, like 30 or 0.5 (0: none)" \
		run --image "$IMAGE" --name "$N" --timeout -1 -- true &&
	ctr_gone "$N"
'

test_expect_success 'exec (creating its workspace): --timeout -1' '
	printf "[sandbox]\nimage = %s\nname = %s\n" "$IMAGE" "$N" >sandbox.ini &&
	sb trust >/dev/null &&
	refused "sandbox: exec: timeout ${SQ}-1${SQ}: expected seconds, like 30 or 0.5 (0: none)" \
		exec --timeout -1 -- true &&
	refused "sandbox: exec: timeout ${SQ}soon${SQ}: expected seconds, like 30 or 0.5 (0: none)" \
		exec --timeout soon -- true &&
	rm sandbox.ini &&
	ctr_gone "$N"
'

test_expect_success 'create: --cpus 0' '
	refused "sandbox: create: cpus ${SQ}0${SQ}: expected a positive number like 1.5" \
		create --image "$IMAGE" --name "$N" --cpus 0 &&
	ctr_gone "$N"
'

test_expect_success 'create: --memory 12q' '
	refused "sandbox: create: memory ${SQ}12q${SQ}: expected a size like 512m or 2g" \
		create --image "$IMAGE" --name "$N" --memory 12q &&
	ctr_gone "$N"
'

test_expect_success 'create: a relative --workdir' '
	refused "sandbox: create: workdir ${SQ}rel${SQ} must be an absolute path in the container, without commas or control characters" \
		create --image "$IMAGE" --name "$N" --workdir rel &&
	ctr_gone "$N"
'

test_expect_success 'create: --mount with a relative container directory, or a mode other than ro' '
	refused "sandbox: create: mount ${SQ}/tmp:rel${SQ}: the container directory must be absolute" \
		create --image "$IMAGE" --name "$N" --mount /tmp:rel &&
	refused "sandbox: create: mount ${SQ}/tmp:/x:rw${SQ}: the only mode is ${SQ}ro${SQ}" \
		create --image "$IMAGE" --name "$N" --mount /tmp:/x:rw &&
	ctr_gone "$N"
'

test_expect_success 'create and exec: an env name that is not a name (1BAD=x)' '
	refused "sandbox: create: env: ${SQ}1BAD${SQ} is not a variable name ([A-Za-z_][A-Za-z0-9_]*)" \
		create --image "$IMAGE" --name "$N" --env 1BAD=x &&
	refused "sandbox: run: env: ${SQ}1BAD${SQ} is not a variable name ([A-Za-z_][A-Za-z0-9_]*)" \
		run --image "$IMAGE" --name "$N" --env 1BAD=x -- true &&
	refused "sandbox: create: env ${SQ}NOVALUE${SQ}: expected NAME=VALUE" \
		create --image "$IMAGE" --name "$N" --env NOVALUE &&
	ctr_gone "$N"
'

test_expect_success 'create: an image that starts with -' '
	refused "sandbox: create: image ${SQ}-x${SQ}: an image name cannot be empty, start with ${SQ}-${SQ} or hold spaces or control characters" \
		create --name "$N" --image -x &&
	refused "sandbox: create: image ${SQ}--privileged${SQ}: an image name cannot be empty, start with ${SQ}-${SQ} or hold spaces or control characters" \
		create --name "$N" --image=--privileged &&
	ctr_gone "$N"
'

test_expect_success 'create: a name that starts with -' '
	refused "sandbox: create: name ${SQ}-x${SQ}: expected [a-zA-Z0-9][a-zA-Z0-9_.-]*, at most 128 characters" \
		create --image "$IMAGE" --name -x
'

test_expect_success 'create: a network that starts with -' '
	refused "sandbox: create: network ${SQ}-x${SQ}: expected none, bridge, allow or a network name" \
		create --image "$IMAGE" --name "$N" --network -x &&
	ctr_gone "$N"
'

test_expect_success 'run: --max-output 0' '
	refused "sandbox: run: max_output ${SQ}0${SQ}: expected a number of bytes from 1 to 1073741824" \
		run --image "$IMAGE" --name "$N" --max-output 0 -- true &&
	ctr_gone "$N"
'

test_expect_success 'create: no image anywhere' '
	refused "sandbox: create: no image: pass --image IMG or set image in sandbox.ini" \
		create --name "$N" &&
	ctr_gone "$N"
'

test_expect_success 'an option without its value' '
	refused "sandbox: create: option ${SQ}--image${SQ} needs a value" create --image
'

test_expect_success 'a flag given a value' '
	refused "sandbox: option --json takes no value" --json=yes list
'

test_expect_success 'create: an argument before --' '
	refused "sandbox: create: unexpected argument ${SQ}foo${SQ}; engine run arguments go after --" \
		create --image "$IMAGE" --name "$N" foo &&
	ctr_gone "$N"
'

test_expect_success 'exec: a create option' '
	refused "sandbox: exec: unknown option ${SQ}--image${SQ} for exec; see ${SQ}sandbox help exec${SQ}" \
		-w sandbox-000000000000 exec --image "$IMAGE" -- true
'

test_expect_success 'exec: no command' '
	refused "sandbox: exec: no command: give one after --, or shell text with -c" \
		-w sandbox-000000000000 exec &&
	refused "sandbox: exec: no command: give one after --, or shell text with -c" \
		-w sandbox-000000000000 exec --
'

test_expect_success 'exec: both -c and a command' '
	refused "sandbox: exec: give either -c TEXT or a command after --, not both" \
		-w sandbox-000000000000 exec -c "echo a" -- echo b
'

test_expect_success 'an engine given as a relative path' '
	refused "sandbox: create: engine ${SQ}./docker${SQ}: expected docker, podman or an absolute path" \
		create --image "$IMAGE" --name "$N" --engine ./docker &&
	ctr_gone "$N"
'

test_expect_success 'an unknown key in the config file: FILE:LINE in the message' '
	printf "# settings\n[sandbox]\nimage = %s\nfrobnicate = 1\n" "$IMAGE" >bad.ini &&
	refused "sandbox: create: $TRASH/bad.ini:4: unknown key ${SQ}frobnicate${SQ}" \
		--config "$TRASH/bad.ini" create --name "$N" &&
	mkdir proj &&
	cp bad.ini proj/sandbox.ini &&
	(
		cd proj &&
		sb trust >/dev/null &&
		refused "sandbox: create: ./sandbox.ini:4: unknown key ${SQ}frobnicate${SQ}" create --name "$N"
	) &&
	ctr_gone "$N"
'

test_expect_success 'create: engine run arguments that sandbox owns are refused' '
	msg="is not allowed: sandbox sets the name, labels and entrypoint (use --name for the name)" &&
	refused "sandbox: create: engine run argument ${SQ}--name${SQ} $msg" \
		create --image "$IMAGE" --name "$N" -- --name "$N2" &&
	refused "sandbox: create: engine run argument ${SQ}--name${SQ} $msg" \
		create --image "$IMAGE" --name "$N" -- --name="$N2" &&
	refused "sandbox: create: engine run argument ${SQ}--label${SQ} $msg" \
		create --image "$IMAGE" --name "$N" -- --label a=b &&
	refused "sandbox: create: engine run argument ${SQ}--label${SQ} $msg" \
		create --image "$IMAGE" --name "$N" -- --label=sandbox.workspace=false &&
	refused "sandbox: create: engine run argument ${SQ}--label-file${SQ} $msg" \
		create --image "$IMAGE" --name "$N" -- --label-file /dev/null &&
	refused "sandbox: create: engine run argument ${SQ}--entrypoint${SQ} $msg" \
		create --image "$IMAGE" --name "$N" -- --entrypoint x &&
	refused "sandbox: create: engine run argument ${SQ}-l${SQ} is not allowed: sandbox sets the labels" \
		create --image "$IMAGE" --name "$N" -- -l a=b &&
	ctr_gone "$N" &&
	ctr_gone "$N2"
'

test_expect_success 'create: --network bridge conflicts with -- --network bridge' '
	refused "sandbox: create: --network bridge conflicts with a --network in the engine run arguments; give only one" \
		create --image "$IMAGE" --name "$N" --network bridge -- --network bridge &&
	ctr_gone "$N"
'

test_expect_success 'a ref with a newline' '
	refused "sandbox: exec: ${SQ}a?b${SQ} $NOTREF" -w "a
b" exec -- true
'

for ref in -rm "a b" ../x "" "x/y"; do
	test_expect_success "a ref like '$ref' is refused by exec, start, stop and destroy" '
		refused "sandbox: exec: ${SQ}$ref${SQ} $NOTREF" -w "$ref" exec -- true &&
		refused "sandbox: start: ${SQ}$ref${SQ} $NOTREF" start -- "$ref" &&
		refused "sandbox: stop: ${SQ}$ref${SQ} $NOTREF" stop -- "$ref" &&
		refused "sandbox: destroy: ${SQ}$ref${SQ} $NOTREF" destroy -- "$ref"
	'
done

test_expect_success 'a bad ref in SANDBOX_WORKSPACE is refused the same way' '
	SANDBOX_WORKSPACE=-rm refused "sandbox: exec: ${SQ}-rm${SQ} $NOTREF" exec -- true
'

test_expect_success 'destroy: one bad ref among good ones removes nothing' '
	new_ws W &&
	refused "sandbox: destroy: ${SQ}-rm${SQ} $NOTREF" destroy "$W" -- -rm &&
	check "$W still exists" ctr_exists "$W"
'

test_expect_success 'destroy: refs and --all together, or neither' '
	refused "sandbox: destroy: give refs or --all, not both" destroy --all sandbox-000000000000 &&
	refused "sandbox: destroy: which workspaces? give their refs, or --all" destroy
'

test_expect_success 'start and stop: two refs, or none' '
	refused "sandbox: start: give one workspace ref" start sandbox-000000000000 sandbox-000000000001 &&
	refused "sandbox: stop: which workspace? give its ref, or -w REF" stop
'

test_expect_success 'prune: a bad --older-than' '
	refused "sandbox: prune: --older-than ${SQ}5x${SQ}: expected a duration like 90s, 15m, 2h or 7d" \
		prune --older-than 5x
'

test_expect_success 'exec: an empty --cwd' '
	refused "sandbox: exec: --cwd: expected a directory, without control characters" \
		-w sandbox-000000000000 exec --cwd "" -- true
'

test_expect_success 'none of the above created a workspace' '
	sb destroy "$W" >/dev/null &&
	no_workspace_left &&
	ctr_gone "$N" &&
	ctr_gone "$N2"
'

test_done
