#!/bin/bash
# A remote daemon: DOCKER_HOST=ssh://, through the tests' own sshd on
# 127.0.0.1:2222 (scripts/setup-test-env) back to this machine's dockerd.
# exec, the timeout's kill, write and read, mcp, and --mount, which names
# a directory of the daemon's machine; and an ssh host that never answers
# costs at most engine_timeout.
. "$(dirname "$0")/../lib.sh"
image_independent
[ "$ENGINE" = docker ] || skip_all "DOCKER_HOST=ssh:// is Docker's"
# ssh reaches this machine's own daemon, so the file's workspaces live
# there, whatever daemon the leg's DOCKER_HOST names (the sanitizer leg's
# is the tests' second one).
if [ -n "${DOCKER_HOST-}" ]; then
	env -u DOCKER_HOST docker info >/dev/null 2>&1 ||
		skip_all "DOCKER_HOST is set, and this machine's own dockerd does not answer"
	unset DOCKER_HOST
fi
need_engine

SSH_DIR=/var/cache/sandbox-test/ssh
CLIENT=$(cd "$(dirname "$0")/.." && pwd)/mcp-client

# ssh reads ~/.ssh/config from the password database, not from $HOME: an
# ssh of our own, first in PATH, names the config of this file.
mkdir -p "$TRASH/bin" &&
cat >"$TRASH/ssh_config" <<EOF
Host sandbox-test-remote
	HostName 127.0.0.1
	Port 2222
	User root
	IdentityFile $SSH_DIR/id_ed25519
	IdentitiesOnly yes
	StrictHostKeyChecking no
	UserKnownHostsFile /dev/null
	LogLevel ERROR
Host sandbox-test-silent
	HostName 127.0.0.1
	User root
	IdentityFile $SSH_DIR/id_ed25519
	StrictHostKeyChecking no
	UserKnownHostsFile /dev/null
	LogLevel ERROR
EOF
printf '#!/bin/sh\nexec /usr/bin/ssh -F %s "$@"\n' "$TRASH/ssh_config" >"$TRASH/bin/ssh" &&
chmod +x "$TRASH/bin/ssh"

# remote CMD...: CMD with the daemon over ssh.
remote() { PATH="$TRASH/bin:$PATH" DOCKER_HOST=ssh://sandbox-test-remote "$@"; }
rsb() { remote "$SANDBOX" --engine docker "$@"; }

test_expect_success 'setup: the test sshd answers (scripts/setup-test-env starts it)' '
	test -r "$SSH_DIR/id_ed25519" &&
	remote docker version --format "{{.Server.Version}}" >out &&
	test -s out
'

test_expect_success 'create and exec over ssh: output, status' '
	RREF=$(rsb create --image "$IMAGE") &&
	expect_status 3 rsb -w "$RREF" exec -- sh -c "echo out; echo err >&2; exit 3" >out 2>err &&
	cmp_text out out &&
	cmp_text err err
'

# The timeout counts from the command's start, not from the call over ssh
# (a connection a call): the test is of the kill, which over ssh gets the
# time the call took to start on top of its own.
test_expect_success 'a timeout over ssh: the command is killed in the workspace' '
	expect_status 124 rsb -w "$RREF" exec --timeout 2 -- sh -c "trap \"\" TERM; sleep 100" 2>err &&
	cmp_text "sandbox: exec: timed out after 2s; the command was killed in the workspace" err &&
	! has_proc "$RREF" "^sleep 100"
'

test_expect_success 'write and read over ssh: every byte' '
	printf "a\000b\377\nline 2\n" >bytes &&
	rsb -w "$RREF" write /tmp/bytes <bytes >/dev/null &&
	rsb -w "$RREF" read --raw /tmp/bytes >got &&
	cmp_file bytes got &&
	rsb -w "$RREF" write /tmp/t.txt --content "one
two" >/dev/null &&
	rsb -w "$RREF" read /tmp/t.txt >got &&
	printf "     1\tone\n     2\ttwo\n" >expect &&
	cmp_file expect got
'

test_expect_success 'mcp over ssh: one channel carries exec, write and read' '
	printf "%s\n" "init" \
		"call 1 exec {\"command\":\"echo remote; exit 2\"}" "<" \
		"call 2 write {\"path\":\"/tmp/m.txt\",\"content\":\"via mcp\"}" "<" \
		"call 3 read {\"path\":\"/tmp/m.txt\"}" "<" |
		remote "$CLIENT" "$SANDBOX" --engine docker mcp -w "$RREF" >out 2>out.err &&
	sed -n 2p out >a1 && json_check a1 "d[\"result\"][\"structuredContent\"][\"exit_code\"] == 2 and d[\"result\"][\"structuredContent\"][\"stdout\"] == \"remote\\n\"" &&
	sed -n 3p out >a2 && json_check a2 "not d[\"result\"].get(\"isError\")" &&
	sed -n 4p out >a3 && json_check a3 "\"via mcp\" in d[\"result\"][\"content\"][0][\"text\"]" &&
	grep_file "^exit 0$" out
'

test_expect_success 'forward over ssh: the workspace.s web server here, 5 clients at once, every byte' '
	rsb -w "$RREF" exec -c "mkdir -p /www && head -c 3000000 /dev/urandom >/www/f && httpd -p 127.0.0.1:8080 -h /www" &&
	S=$(rsb -w "$RREF" exec -c "sha256sum /www/f" | cut -d" " -f1) &&
	{ PATH="$TRASH/bin:$PATH" DOCKER_HOST=ssh://sandbox-test-remote "$SANDBOX" --engine docker \
		forward "$RREF" 0:8080 >fwd.out 2>fwd.err & } &&
	F=$! &&
	bg_track "$F" &&
	wait_until 60 test -s fwd.out &&
	P=$(sed "s/^forwarding 127\.0\.0\.1:\([0-9]*\) to .*/\1/" fwd.out) &&
	"$TEST_LIB_DIR/fwd-client" get 127.0.0.1 "$P" /f 5 >out &&
	test "$(sort -u out)" = "200 $S" && line_count 5 out &&
	kill -TERM "$F" && { wait_exit 60 "$F"; test $? = 143; }
'

# The proxy of network allow runs where sandbox does, its listener's
# exec goes over ssh: the upstream is this file's own, on loopback, and
# its name is mapped to it in the proxy's resolution.
test_expect_success PYTHON 'network allow over ssh: through the proxy here, and nothing else' '
	mkdir -p www && echo via-ssh >www/f &&
	{ "$TEST_LIB_DIR/net-upstream" www "$TRASH/up-port" & } && bg_track $! &&
	wait_until 30 test -s "$TRASH/up-port" && P=$(cat "$TRASH/up-port") &&
	AREF=$(SANDBOX_RESOLVE=up.test=127.0.0.1 rsb create --image "$IMAGE" --allow "up.test:$P 127.0.0.1:$P") &&
	rsb -w "$AREF" exec -- wget -q -O - "http://up.test:$P/f" >got &&
	cmp_text via-ssh got &&
	! rsb -w "$AREF" exec -- wget -q -O - "http://other.test:$P/f" 2>err &&
	grep_file "403" err &&
	rsb net "$AREF" --json | tail -n 1 >rec &&
	json_check rec "d[\"verdict\"] == \"refused\" and d[\"host\"] == \"other.test\"" &&
	rsb destroy "$AREF"
'

test_expect_success '--mount names a directory of the daemon'"'"'s machine (here the same one), made absolute first' '
	mkdir -p shared &&
	MREF=$(rsb create --image "$IMAGE" --mount shared:/shared) &&
	rsb -w "$MREF" exec -- sh -c "echo from-ws >/shared/f" &&
	cmp_text from-ws shared/f &&
	remote docker container inspect --format "{{range .Mounts}}{{.Source}}{{end}}" "$MREF" >src &&
	cmp_text "$TRASH/shared" src
'

test_expect_success PYTHON 'an ssh host that never answers: a clear error within engine_timeout' '
	silent_port &&
	printf "\tPort %s\n" "$(cat port)" >>"$TRASH/ssh_config" &&
	printf "[sandbox]\nengine_timeout = 3\n" >quick.ini &&
	{ PATH="$TRASH/bin:$PATH" DOCKER_HOST=ssh://sandbox-test-silent SANDBOX_CONFIG=$TRASH/quick.ini \
		"$SANDBOX" --engine docker list >out 2>err & } &&
	expect_status 255 wait_exit 60 $! &&
	grep_file "^sandbox: list: docker did not answer within 3s (engine_timeout); is the engine reachable?" err &&
	kill $SILENT_PID
'

test_expect_success 'doctor over ssh: the daemon is said to be remote, every check passes' '
	rsb doctor --image "$IMAGE" >out 2>err &&
	must_be_empty err &&
	grep_file "^ok    daemon: Docker .* at ssh://sandbox-test-remote (remote: DOCKER_HOST)$" out &&
	grep_file "^ok    image: $IMAGE (" out &&
	no_grep_file -v "^ok    " out
'

test_expect_success 'destroy over ssh' '
	rsb destroy "$RREF" "$MREF" >/dev/null &&
	ctr_gone "$RREF" &&
	ctr_gone "$MREF"
'

test_done
