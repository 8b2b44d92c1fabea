#!/bin/bash
# sandbox doctor: one line per check (the config files and the trust of
# ./sandbox.ini, the engine, its daemon, rootless, cgroups, the limits,
# the image), a failed one with what to do, what depends on it skipped;
# exit 0 only when every check passes; --json for scripts.
#
# And the README's first command (scripts/first-run), taken from
# README.md as it is written there: with Docker and busybox, it runs in a
# network namespace of this file's own with no network (so no pull can
# leave the machine), pointed at a socket where no daemon answers yet. It
# must start a dockerd there (data, exec root and pidfile of its own:
# the machine's daemon is untouched), fail to pull debian:bookworm,
# build sandbox-local/busybox:1 offline and print hello; a second run
# only checks.
. "$(dirname "$0")/../lib.sh"
image_independent
need_engine

if [ "$ENGINE" = podman ]; then
	HOST_VAR=CONTAINER_HOST
	DAEMON_FIX="start the Podman service there (podman system service), or unset CONTAINER_HOST"
else
	HOST_VAR=DOCKER_HOST
	DAEMON_FIX="start it: systemctl start docker, or as root where no service manager runs: dockerd >/var/log/dockerd.log 2>&1 &"
fi
NOSUCH=$PFX-nosuch:1
TRUST_FIX="check it, then run ${SQ}sandbox trust${SQ} (or name it with --config)"

test_expect_success 'doctor passes on a healthy engine with the image: exit 0, every line ok' '
	sb doctor --image "$IMAGE" >out 2>err &&
	must_be_empty err &&
	line_count 11 out &&
	no_grep_file -v "^ok    " out &&
	cut -d: -f1 out >names &&
	printf "%s\n" "ok    user config" "ok    project config" "ok    engine" "ok    daemon" \
		"ok    rootless" "ok    cgroups" "ok    limits" "ok    image" "ok    runtime" "ok    resident" "ok    network" >expect &&
	cmp_file expect names &&
	grep_file "^ok    engine: /.*$ENGINE" out &&
	grep_file "^ok    cgroups: v[12]$" out &&
	grep_file "^ok    image: $IMAGE ([0-9a-f]\{12\})$" out
'

test_expect_success 'the image missing: exit 1, the image line fails and says to pull it' '
	expect_status 1 sb doctor --image "$NOSUCH" >out 2>err &&
	must_be_empty err &&
	grep -v "^ok    " out >bad &&
	cmp_text "FAIL  image: $NOSUCH is not here (the engine would try to pull it); pull it ($ENGINE pull $NOSUCH), build it, or pass --image with one of $ENGINE images" bad
'

test_expect_success 'no image configured: the image line fails and says how to give one' '
	expect_status 1 sb doctor >out 2>err &&
	grep -v "^ok    " out >bad &&
	cmp_text "FAIL  image: none configured; pass --image IMG, or set image in sandbox.ini" bad
'

test_expect_success 'the daemon unreachable: its line fails with the fix, what depends on it is skipped' '
	expect_status 1 env "$HOST_VAR=unix:///nonexistent" "$SANDBOX" --engine "$ENGINE" \
		doctor --image "$IMAGE" >out 2>err &&
	must_be_empty err &&
	grep_file "^FAIL  daemon: no answer at unix:///nonexistent (.*$HOST_VAR): info: " out &&
	grep -F "$DAEMON_FIX" out &&
	grep -v "^ok    " out | sed 1d >bad &&
	printf "skip  %s: not checked: the daemon did not answer\n" rootless cgroups limits image runtime >expect &&
	cmp_file expect bad &&
	test "$(grep -c "^FAIL  " out)" = 1
'

if [ "$ENGINE" = docker ]; then
	test_set_prereq DOCKER
fi

test_expect_success DOCKER 'every docker client here (20.10 answers 0 with ServerErrors) says the same of a daemon down' '
	n=0 &&
	for c in /usr/bin/docker /usr/local/bin/docker; do
		[ -x "$c" ] || continue
		n=$((n + 1))
		expect_status 1 env DOCKER_HOST=unix:///nonexistent "$SANDBOX" --engine "$c" \
			doctor --image "$IMAGE" >out 2>err &&
		grep_file "^FAIL  daemon: no answer at unix:///nonexistent (local: DOCKER_HOST): info: .*Cannot connect" out || return 1
	done &&
	test "$n" -ge 1
'

# DOCKER_HOST would win over the context (the sanitizer leg sets it).
test_expect_success DOCKER 'a docker context that does not exist: a line fails and says to check it' '
	expect_status 1 env -u DOCKER_HOST DOCKER_CONTEXT="$PFX-nope" "$SANDBOX" --engine docker doctor --image "$IMAGE" >out 2>err &&
	grep_file "^FAIL  \(engine\|daemon\): .*$PFX-nope.*; check DOCKER_CONTEXT and docker context ls$" out
'

test_expect_success 'the engine missing: its line fails with the fix, the rest is skipped' '
	expect_status 1 "$SANDBOX" --engine "$PFX-noengine" doctor --image "$IMAGE" >out 2>err &&
	must_be_empty err &&
	grep_file "^FAIL  engine: ${SQ}$PFX-noengine${SQ} not found in PATH; install Docker" out &&
	grep_file "^skip  daemon: not checked: no engine to ask$" out &&
	grep_file "^skip  image: not checked: no engine to ask$" out &&
	grep_file "^skip  resident: not checked: no engine to ask$" out &&
	test "$(grep -c "^skip  " out)" = 7
'

test_expect_success 'an untrusted ./sandbox.ini: the project config line fails and says to trust it' '
	mkdir proj &&
	printf "[sandbox]\nimage = %s\n" "$IMAGE" >proj/sandbox.ini &&
	(cd proj && expect_status 1 "$SANDBOX" --engine "$ENGINE" doctor >../out 2>../err) &&
	must_be_empty err &&
	grep_file "^FAIL  project config: ./sandbox.ini is not trusted; $TRUST_FIX$" out &&
	check "its image is not used either" grep -q "^FAIL  image: none configured" out
'

test_expect_success 'trusted, it passes, and its image is the one checked' '
	(cd proj && "$SANDBOX" trust >/dev/null && "$SANDBOX" --engine "$ENGINE" doctor >../out 2>../err) &&
	must_be_empty err &&
	grep_file "^ok    project config: ./sandbox.ini (trusted)$" out &&
	grep_file "^ok    image: $IMAGE (" out
'

test_expect_success 'changed since it was trusted: the line fails and says so' '
	echo "timeout = 5" >>proj/sandbox.ini &&
	(cd proj && expect_status 1 "$SANDBOX" --engine "$ENGINE" doctor --image "$IMAGE" >../out) &&
	grep -v "^ok    " out >bad &&
	cmp_text "FAIL  project config: ./sandbox.ini changed since ${SQ}sandbox trust${SQ}; $TRUST_FIX" bad
'

test_expect_success 'a file named with --config must be readable; SANDBOX_CONFIG is named as such' '
	expect_status 1 sb --config "$TRASH/none.ini" doctor --image "$IMAGE" >out &&
	grep_file "^FAIL  project config: $TRASH/none.ini: .*; fix the file, or the name --config gives$" out &&
	printf "[sandbox]\nimage = %s\n" "$IMAGE" >named.ini &&
	SANDBOX_CONFIG=$TRASH/named.ini sb doctor >out &&
	grep_file "^ok    project config: $TRASH/named.ini (named by SANDBOX_CONFIG)$" out
'

test_expect_success 'a broken user config: its line fails with the file and line' '
	mkdir -p "$XDG_CONFIG_HOME/sandbox" &&
	printf "[sandbox]\nnosuchkey = 1\n" >"$XDG_CONFIG_HOME/sandbox/sandbox.ini" &&
	expect_status 1 sb doctor --image "$IMAGE" >out &&
	rm "$XDG_CONFIG_HOME/sandbox/sandbox.ini" &&
	grep -v "^ok    " out >bad &&
	cmp_text "FAIL  user config: $XDG_CONFIG_HOME/sandbox/sandbox.ini:2: unknown key ${SQ}nosuchkey${SQ}; fix it or remove it" bad
'

test_expect_success PYTHON '--json: one object, a check per line of the text, ok only when all are' '
	sb --json doctor --image "$IMAGE" >out 2>err &&
	must_be_empty err &&
	json_check out "d[\"ok\"] is True and [c[\"check\"] for c in d[\"checks\"]] == [\"user config\", \"project config\", \"engine\", \"daemon\", \"rootless\", \"cgroups\", \"limits\", \"image\", \"runtime\", \"resident\", \"network\"] and all(c[\"ok\"] and not c[\"skipped\"] and c[\"fix\"] is None and c[\"detail\"] for c in d[\"checks\"])" &&
	expect_status 1 env "$HOST_VAR=unix:///nonexistent" "$SANDBOX" --engine "$ENGINE" --json \
		doctor --image "$IMAGE" >out 2>err &&
	must_be_empty err &&
	json_check out "d[\"ok\"] is False and [(c[\"check\"], c[\"ok\"], c[\"skipped\"]) for c in d[\"checks\"][3:]] == [(\"daemon\", False, False), (\"rootless\", False, True), (\"cgroups\", False, True), (\"limits\", False, True), (\"image\", False, True), (\"runtime\", False, True), (\"resident\", True, False), (\"network\", True, False)] and \"unix:///nonexistent\" in d[\"checks\"][3][\"detail\"] and d[\"checks\"][3][\"fix\"]"
'

test_expect_success 'doctor takes no argument (exit 2), and has its help' '
	expect_status 2 sb doctor extra >out 2>err &&
	cmp_text "sandbox: doctor: unexpected argument ${SQ}extra${SQ}" err &&
	sb help doctor >out &&
	grep_file "^usage: sandbox doctor \[--image IMG\]$" out
'

# ---- rootless Podman: a user of this file's own ---------------------------

if [ "$ENGINE" = podman ] && command -v useradd >/dev/null 2>&1; then
	case $BASE_IMAGE in *busybox*) test_set_prereq ROOTLESS ;; esac
fi
if test_have_prereq ROOTLESS; then
	RL_USER=$PFX
	RL_RUN=/tmp/$PFX-run
	# The user, its runtime directory, and the pause process its Podman
	# left (by the pid Podman recorded).
	rl_cleanup() {
		id "$RL_USER" >/dev/null 2>&1 || return 0
		local p
		p=$(cat "$RL_RUN/libpod/tmp/pause.pid" 2>/dev/null) && kill "$p" 2>/dev/null
		userdel -r "$RL_USER" >/dev/null 2>&1
		rm -rf "$RL_RUN"
		return 0
	}
	trap 's=$?; rl_cleanup; (exit $s); on_exit_' EXIT
	# rl_doctor ARGS...: sandbox doctor as that user, from /tmp.
	rl_doctor() {
		XDG_RUNTIME_DIR=$RL_RUN SANDBOX=$SANDBOX ARGS="$*" \
			su -w XDG_RUNTIME_DIR,SANDBOX,ARGS - "$RL_USER" \
			-c 'cd /tmp && "$SANDBOX" --engine podman doctor $ARGS'
	}
fi

test_expect_success ROOTLESS 'setup: a user with rootless Podman' '
	useradd -m "$RL_USER" &&
	mkdir -p "$RL_RUN" "/home/$RL_USER/.config/containers" &&
	cp "$CONTAINERS_CONF" "/home/$RL_USER/.config/containers/containers.conf" &&
	chown -R "$RL_USER:" "$RL_RUN" "/home/$RL_USER/.config" &&
	chmod 700 "$RL_RUN" &&
	printf "[sandbox]\npids_limit = -1\n" >"$RL_RUN/nopids.ini" &&
	chmod 644 "$RL_RUN/nopids.ini"
'

test_expect_success ROOTLESS 'rootless: said so; a limit the engine cannot enforce fails only when asked for' '
	{ rl_doctor --image none:1 >out 2>err; test $? = 1; } &&
	grep_file "^ok    rootless: yes$" out &&
	cg=$(sed -n "s/^ok    cgroups: //p" out) &&
	if [ "$cg" = v1 ]; then
		grep_file "^FAIL  limits: the engine cannot enforce pids (pids_limit 2048), which the config asks for, nor memory, cpu; set pids_limit = -1 in the config; or rootless containers need cgroup v2, with the controllers delegated$" out &&
		{ rl_doctor --config "$RL_RUN/nopids.ini" --image none:1 >out 2>err; test $? = 1; } &&
		grep_file "^ok    limits: none enforced; not memory, pids, cpu, which the config does not ask for$" out
	else
		grep_file "^ok    limits: " out
	fi
'

# ---- the README's first command ----------------------------------------

first_run_leg=1
[ "$ENGINE" = docker ] || first_run_leg=
case $BASE_IMAGE in *busybox*) ;; *) first_run_leg= ;; esac
# It runs build/sandbox, whatever the leg's binary: the sanitizer leg
# (docker + busybox in a full run) runs it too.

if [ -n "$first_run_leg" ]; then
	D2=$TRASH/d2
	NS=$PFX-fr
	SOCK=unix://$D2/docker.sock

	# Everything the daemon started here left (t39-daemon.sh's way): the
	# daemon, its containerd and shims (their paths name $D2), mounts, the
	# namespace.
	d2_cleanup() {
		[ -d "$D2" ] || return 0
		docker -H "$SOCK" rm -f $(docker -H "$SOCK" ps -aq 2>/dev/null) >/dev/null 2>&1
		local p
		p=$(cat "$D2/docker.pid" 2>/dev/null) && kill -TERM "$p" 2>/dev/null &&
			wait_until 30 sh -c '! kill -0 "$1" 2>/dev/null' sh "$p" 2>/dev/null
		kill -9 $(ps -eo pid=,args= | awk -v d="$D2/" 'index($0, d) { print $1 }') 2>/dev/null
		findmnt -rn -o TARGET | grep -F "$D2/" | sort -r |
			while read -r mnt; do umount "$mnt" 2>/dev/null || umount -l "$mnt" 2>/dev/null; done
		wait_until 30 rm -rf --one-file-system "$D2" 2>/dev/null
		ip netns del "$NS" 2>/dev/null
		return 0
	}
	trap 's=$?; d2_cleanup; (exit $s); on_exit_' EXIT

	# first_run: the README's first command, as written, in the namespace,
	# pointed at the socket of $D2.
	first_run() {
		(cd "$REPO_DIR" && nsenter --net="/var/run/netns/$NS" env DOCKER_HOST="$SOCK" \
			SANDBOX_DOCKERD_LOG="$D2/log" \
			SANDBOX_DOCKERD_ARGS="--data-root $D2/data --exec-root $D2/exec --pidfile $D2/docker.pid --iptables=false --bridge=none" \
			sh -c "$FIRST")
	}

	test_expect_success 'setup: the README names one first command; a namespace without network' '
		FIRST=$(awk "/^## First run/ { f = 1; next } /^## / { f = 0 } f && /^    / { sub(/^    /, \"\"); print; exit }" \
			"$REPO_DIR/README.md") &&
		test -n "$FIRST" &&
		echo "README: $FIRST" &&
		mkdir -p "$D2" &&
		ip netns add "$NS" &&
		check "no daemon answers at the socket yet" eval "! docker -H $SOCK info >/dev/null 2>&1"
	'

	test_expect_success 'the first command starts dockerd, cannot pull, builds an image offline and prints hello' '
		first_run >out 2>err &&
		cmp_text hello out &&
		grep_file "^first-run: starting dockerd on $SOCK " err &&
		grep_file "^first-run: cannot pull debian:bookworm (no registry?): building sandbox-local/busybox:1" err &&
		check "the daemon runs, from its pidfile" kill -0 "$(cat "$D2/docker.pid")" &&
		docker -H "$SOCK" image inspect sandbox-local/busybox:1 >/dev/null &&
		check "run left no container" test -z "$(docker -H "$SOCK" ps -aq)"
	'

	test_expect_success 'a second run starts, pulls and builds nothing, and prints hello again, fast' '
		pid=$(cat "$D2/docker.pid") &&
		t0=$(now_s) &&
		first_run >out 2>err &&
		elapsed_below "$t0" 20 &&
		cmp_text hello out &&
		cmp_text "first-run: ready: build/sandbox run --image sandbox-local/busybox:1 -- sh (or sandbox doctor, sandbox help)" err &&
		test "$(cat "$D2/docker.pid")" = "$pid"
	'

	test_expect_success 'doctor on that daemon (DOCKER_HOST) passes with that image' '
		DOCKER_HOST=$SOCK sb doctor --image sandbox-local/busybox:1 >out &&
		grep_file "^ok    daemon: Docker .* at $SOCK (local: DOCKER_HOST)$" out &&
		grep_file "^ok    image: sandbox-local/busybox:1 (" out
	'

	if id nobody >/dev/null 2>&1 && ! command -v sudo >/dev/null 2>&1; then
		test_set_prereq NOBODY_NO_SUDO
	fi
	test_expect_success NOBODY_NO_SUDO 'neither root nor sudo: the first command says what to do, for a socket of root and for no daemon' '
		chmod 711 "$TRASH" &&
		expect_status 1 env REPO="$REPO_DIR" DOCKER_HOST="$SOCK" FIRST="$FIRST" \
			su -s /bin/sh nobody -c "cd \"\$REPO\" && sh -c \"\$FIRST\"" >out 2>err &&
		must_be_empty out &&
		grep_file "^first-run: error: the Docker socket $D2/docker.sock is root${SQ}s, and you are neither root nor have sudo: run this as root" err &&
		expect_status 1 env REPO="$REPO_DIR" DOCKER_HOST="unix://$TRASH/nodaemon.sock" FIRST="$FIRST" \
			su -s /bin/sh nobody -c "cd \"\$REPO\" && sh -c \"\$FIRST\"" >out 2>err &&
		grep_file "^first-run: error: to start dockerd, this needs root, and you are neither root nor have sudo: run it as root" err
	'

	# Before test_done, which removes $TRASH: the daemon holds mounts in it.
	d2_cleanup
fi
test_have_prereq ROOTLESS && rl_cleanup

test_done
