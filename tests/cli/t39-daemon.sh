#!/bin/bash
# The engine dies under a running command: a second dockerd of this
# file's own (in a network namespace of its own, so that the machine's
# daemon and the other tests are untouched) is killed while sandbox exec
# runs in it, or restarted (TERM, then started again) as an init system
# does; with Podman, the conmons of the workspace are killed. Either way:
# exit 255 within a bounded time and a message, and then the next command
# works again (after a restart, the workspace started), or (the daemon
# gone) fails at once.
. "$(dirname "$0")/../lib.sh"
image_independent
need_engine

# A command of this file's: sleep with a number of its own, to find it.
m=$((50000 + RANDOM))

if [ "$ENGINE" = docker ]; then
	D2=$TRASH/d2
	NS=$PFX-d2
	SOCK=unix://$D2/docker.sock

	d2_start() {
		nsenter --net="/var/run/netns/$NS" dockerd -H "$SOCK" --data-root "$D2/data" \
			--exec-root "$D2/exec" --pidfile "$D2/docker.pid" --iptables=false \
			--bridge=none </dev/null >>"$D2/log" 2>&1 &
		wait_until 60 docker -H "$SOCK" info
	}

	d2_kill() {
		local p
		p=$(cat "$D2/docker.pid" 2>/dev/null) && kill -9 "$p" 2>/dev/null
		wait_until 30 sh -c '! kill -0 "$1" 2>/dev/null' sh "$p"
		rm -f "$D2/docker.pid"
	}

	# A restart, as an init system does it: TERM, and the daemon stops its
	# containers and its containerd before it exits; then it starts again.
	d2_restart() {
		local p
		p=$(cat "$D2/docker.pid") && kill -TERM "$p" &&
			wait_until 60 sh -c '! kill -0 "$1" 2>/dev/null' sh "$p" &&
			wait_until 60 sh -c '! pgrep -f -- "$1/exec/containerd" >/dev/null' sh "$D2" &&
			d2_start
	}

	# Everything the second daemon left: its containerd and shims (found by
	# their socket paths, which name $D2), mounts, the namespace.
	d2_cleanup() {
		[ -d "$D2" ] || return 0
		docker -H "$SOCK" rm -f $(docker -H "$SOCK" ps -aq 2>/dev/null) >/dev/null 2>&1
		d2_kill 2>/dev/null
		# The daemon, its containerd, the shims, and the containers' own
		# processes, which are the shims' descendants.
		kill -9 $(ps -eo pid=,ppid=,args= | awk -v d="$D2/" '
			index($0, d) { keep[$1] = 1 }
			{ parent[$1] = $2 }
			END {
				do {
					more = 0
					for (p in parent)
						if (!(p in keep) && (parent[p] in keep)) { keep[p] = 1; more = 1 }
				} while (more)
				for (p in keep) print p
			}') 2>/dev/null
		wait_until 30 sh -c '! pgrep -f -- "$1/" >/dev/null' sh "$D2" 2>/dev/null
		findmnt -rn -o TARGET | grep -F "$D2/" | sort -r |
			while read -r mnt; do umount "$mnt" 2>/dev/null || umount -l "$mnt" 2>/dev/null; done
		# The kernel lets go of a dead container's mounts a moment later.
		wait_until 30 rm -rf --one-file-system "$D2" 2>/dev/null
		ip netns del "$NS" 2>/dev/null
		return 0
	}
	trap 's=$?; d2_cleanup; (exit $s); on_exit_' EXIT

	d2() { DOCKER_HOST=$SOCK "$@"; }

	test_expect_success 'setup: a second dockerd, with the test image' '
		mkdir -p "$D2" &&
		ip netns add "$NS" &&
		d2_start &&
		docker save "$BASE_IMAGE" | docker -H "$SOCK" load >/dev/null &&
		DREF=$(d2 sb create --image "$BASE_IMAGE")
	'

	test_expect_success 'the daemon restarted under a running exec: exit 255, the workspace stopped' '
		{ d2 "$SANDBOX" --engine docker -w "$DREF" exec -- sleep $m >out 2>err & } &&
		pid=$! &&
		wait_until 60 sh -c "docker -H \"$SOCK\" exec \"$DREF\" ps | grep -q \"sleep $m\"" &&
		d2_restart &&
		expect_status 255 wait_exit 60 "$pid" &&
		must_be_empty out &&
		cmp_text "sandbox: exec: the workspace stopped while the command ran" err
	'

	test_expect_success 'after the restart, the workspace starts and runs commands again' '
		d2 sb start "$DREF" &&
		d2 sb -w "$DREF" exec -- echo back >out &&
		cmp_text back out &&
		! d2 sb -w "$DREF" exec -c "ps | grep -v grep | grep -q \"sleep $m\""
	'

	test_expect_success 'the daemon killed under a running exec: exit 255, the workspace stopped' '
		{ d2 "$SANDBOX" --engine docker -w "$DREF" exec -- sleep $m >out 2>err & } &&
		pid=$! &&
		wait_until 60 sh -c "docker -H \"$SOCK\" exec \"$DREF\" ps | grep -q \"sleep $m\"" &&
		d2_kill &&
		expect_status 255 wait_exit 60 "$pid" &&
		must_be_empty out &&
		grep_file "^sandbox: exec: " err
	'

	test_expect_success 'the daemon gone: exec fails at once with the engine'"'"'s words, exit 255' '
		expect_status 255 d2 sb -w "$DREF" exec -- true 2>err &&
		grep_file "^sandbox: exec: " err
	'
else
	test_expect_success 'setup: a workspace' '
		new_ws REF
	'

	# conmons: the pids of the conmon processes of the container REF.
	conmons() {
		local id
		id=$(eng inspect --format '{{.Id}}' "$1") &&
		ps -eo pid=,args= | awk -v id="$id" '$2 ~ /conmon$/ && index($0, id) { print $1 }'
	}

	test_expect_success 'the conmons of the workspace killed under a running exec: exit 255, bounded' '
		{ sb -w "$REF" exec -- sleep $m >out 2>err & } &&
		pid=$! &&
		wait_until 60 has_proc "$REF" "^sleep $m" &&
		kill -9 $(conmons "$REF") &&
		expect_status 255 wait_exit 60 "$pid" &&
		must_be_empty out &&
		grep_file "^sandbox: exec: " err
	'

	test_expect_success 'the next exec works' '
		sb -w "$REF" exec -- echo back >out &&
		cmp_text back out
	'
fi

# Before test_done, which removes $TRASH: the daemon's mounts are in it.
[ "$ENGINE" = docker ] && d2_cleanup
test_done
