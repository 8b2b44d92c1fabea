#!/bin/bash
# sandbox trust: a ./sandbox.ini, which a workspace can write through a
# mount of the current directory, is used only as the user trusted it
# (its SHA-256 under its real path); a file named with --config or
# SANDBOX_CONFIG needs no trust; the user's defaults
# ($XDG_CONFIG_HOME/sandbox/sandbox.ini) come first, the project's file
# over them, the command line over both; the store is strict and safe
# with concurrent writers.
. "$(dirname "$0")/../lib.sh"
only_once
need_engine

STORE=$XDG_CONFIG_HOME/sandbox/trusted
NOT_TRUSTED="./sandbox.ini is not trusted; check it, then run ${SQ}sandbox trust${SQ} (or name it with --config)"
CHANGED="./sandbox.ini changed since ${SQ}sandbox trust${SQ}; check it, then run ${SQ}sandbox trust${SQ} (or name it with --config)"

# plant: what the workspace W writes into the mounted directory: a
# sandbox.ini that makes the next sandbox command run pwn.sh, beside it,
# on the host, and pwn.sh, which would leave $TRASH/pwned there.
plant() {
	sb -w "$W" exec -- sh -c '
		printf "[sandbox]\nengine = /proc/self/cwd/pwn.sh\n" >sandbox.ini &&
		printf "#!/bin/sh\ntouch \"%s\"\necho pwned\n" "$1" >pwn.sh &&
		chmod 755 pwn.sh' sh "$TRASH/pwned"
}

# env_of [EXEC OPTIONS...]: the values of U and P in the workspace W, as
# an exec there sees them with the config files in force here.
env_of() {
	sb -w "$W" exec "$@" -- sh -c "echo \"\${U-unset}|\${P-unset}\""
}

test_expect_success 'setup: a workspace with the project directory mounted' '
	mkdir proj &&
	new_ws W --mount "$TRASH/proj" &&
	RT=$(pwd -P) &&
	REAL=$RT/proj/sandbox.ini
'

test_expect_success 'the workspace plants ./sandbox.ini: the next sandbox list refuses it (exit 2) and runs nothing' '
	plant &&
	test -f proj/sandbox.ini && test -x proj/pwn.sh &&
	(cd proj && expect_status 2 "$SANDBOX" list >../out 2>../err) &&
	must_be_empty out &&
	cmp_text "sandbox: list: $NOT_TRUSTED" err &&
	check "pwn.sh did not run on the host" test ! -e pwned
'

test_expect_success 'every command refuses it, also --json (a config error) and a command that creates' '
	(cd proj && expect_status 2 "$SANDBOX" exec -- true >../out 2>../err) &&
	cmp_text "sandbox: exec: $NOT_TRUSTED" err &&
	(cd proj && expect_status 2 "$SANDBOX" mcp </dev/null >../out 2>../err) &&
	cmp_text "sandbox: mcp: $NOT_TRUSTED" err &&
	if test_have_prereq PYTHON; then
		(cd proj && expect_status 2 "$SANDBOX" --json list >../out 2>../err) &&
		must_be_empty err &&
		json_check out "d[\"error\"][\"kind\"] == \"config\" and \"not trusted\" in d[\"error\"][\"message\"]"
	fi &&
	check "pwn.sh did not run on the host" test ! -e pwned
'

test_expect_success 'mount = / and network = bridge from the workspace make no workspace' '
	sb -w "$W" exec -- sh -c "printf \"[sandbox]\nimage = %s\nmount = /:/host\nnetwork = bridge\n\" \"\$1\" >sandbox.ini" sh "$IMAGE" &&
	our_workspaces >before &&
	(cd proj && expect_status 2 sb create >../out 2>../err) &&
	must_be_empty out &&
	cmp_text "sandbox: create: $NOT_TRUSTED" err &&
	our_workspaces >after &&
	cmp_file before after
'

test_expect_success 'sandbox trust records the file: it prints the real path and the SHA-256' '
	printf "[env]\nP = honest\n" >proj/sandbox.ini &&
	SHA=$(sha256sum proj/sandbox.ini | cut -d" " -f1) &&
	(cd proj && sb trust) >out 2>err &&
	must_be_empty err &&
	cmp_text "trusted $REAL (sha256 $SHA)" out &&
	grep_file -x "$SHA $REAL" "$STORE"
'

test_expect_success 'a trusted ./sandbox.ini is used' '
	(cd proj && env_of) >out &&
	cmp_text "unset|honest" out
'

test_expect_success 'a change made by the workspace after the trust: refused again, nothing of it applied' '
	sb -w "$W" exec -- sh -c "printf \"U = changed\n\" >>sandbox.ini" &&
	(cd proj && expect_status 2 env_of >../out 2>../err) &&
	must_be_empty out &&
	cmp_text "sandbox: exec: $CHANGED" err &&
	plant &&
	(cd proj && expect_status 2 "$SANDBOX" list >../out 2>../err) &&
	cmp_text "sandbox: list: $CHANGED" err &&
	check "pwn.sh did not run on the host" test ! -e pwned
'

test_expect_success 'the trust is for one path: the same text in another directory is not trusted' '
	printf "[env]\nP = honest\n" >proj/sandbox.ini &&
	(cd proj && env_of) >out &&
	cmp_text "unset|honest" out &&
	mkdir other &&
	cp proj/sandbox.ini other/ &&
	(cd other && expect_status 2 env_of >../out 2>../err) &&
	cmp_text "sandbox: exec: $NOT_TRUSTED" err
'

test_expect_success 'a file named with --config or SANDBOX_CONFIG needs no trust' '
	printf "[env]\nP = named\n" >named.ini &&
	env_of --config named.ini >out &&
	cmp_text "unset|named" out &&
	SANDBOX_CONFIG=$TRASH/named.ini env_of >out &&
	cmp_text "unset|named" out &&
	(cd other && env_of --config sandbox.ini) >out &&
	cmp_text "unset|honest" out &&
	(cd other && SANDBOX_CONFIG=sandbox.ini env_of) >out &&
	cmp_text "unset|honest" out
'

test_expect_success 'a named file replaces ./sandbox.ini: an untrusted one there does not matter' '
	plant &&
	(cd proj && env_of --config ../named.ini) >out &&
	cmp_text "unset|named" out &&
	check "pwn.sh did not run on the host" test ! -e pwned
'

test_expect_success 'the user defaults apply, the project file over them, the command line over both' '
	mkdir -p "$XDG_CONFIG_HOME/sandbox" &&
	printf "[env]\nU = user\nP = user\n" >"$XDG_CONFIG_HOME/sandbox/sandbox.ini" &&
	mkdir empty &&
	(cd empty && env_of) >out &&
	cmp_text "user|user" out &&
	printf "[env]\nP = project\n" >proj/sandbox.ini &&
	(cd proj && sb trust >/dev/null && env_of) >out &&
	cmp_text "user|project" out &&
	env_of --config named.ini >out &&
	cmp_text "user|named" out &&
	(cd proj && env_of -e P=cli -e U=cli2) >out &&
	cmp_text "cli2|cli" out
'

test_expect_success 'the user defaults make a workspace: workdir from there, pids limit from the project' '
	printf "[sandbox]\nimage = %s\nworkdir = /from-user\npids_limit = 300\n" "$IMAGE" \
		>"$XDG_CONFIG_HOME/sandbox/sandbox.ini" &&
	mkdir proj2 &&
	printf "[sandbox]\npids_limit = 400\n" >proj2/sandbox.ini &&
	R=$(cd proj2 && sb trust >/dev/null && sb create) &&
	sb -w "$R" exec -- pwd >out &&
	cmp_text /from-user out &&
	eng inspect --format "{{.HostConfig.PidsLimit}}" "$R" >out &&
	cmp_text 400 out &&
	R2=$(cd proj2 && sb create --workdir /from-cli) &&
	sb -w "$R2" exec -- pwd >out &&
	cmp_text /from-cli out &&
	sb destroy "$R" "$R2" >/dev/null &&
	rm "$XDG_CONFIG_HOME/sandbox/sandbox.ini"
'

test_expect_success 'an error in the user defaults: exit 2, its path and line' '
	printf "[sandbox]\nbogus = 1\n" >"$XDG_CONFIG_HOME/sandbox/sandbox.ini" &&
	(cd empty && expect_status 2 sb list >../out 2>../err) &&
	cmp_text "sandbox: list: $XDG_CONFIG_HOME/sandbox/sandbox.ini:2: unknown key ${SQ}bogus${SQ}" err &&
	rm "$XDG_CONFIG_HOME/sandbox/sandbox.ini"
'

test_expect_success 'trust --revoke forgets the file; the next command refuses it again' '
	(cd proj && sb trust --revoke) >out 2>err &&
	must_be_empty err &&
	cmp_text "revoked $REAL" out &&
	no_grep_file -F " $REAL" "$STORE" &&
	(cd proj && expect_status 2 env_of >../out 2>../err) &&
	cmp_text "sandbox: exec: $NOT_TRUSTED" err &&
	(cd proj && sb trust --revoke "$REAL") >out &&
	cmp_text "$REAL was not trusted" out
'

test_expect_success 'a file that is gone can be revoked by its name' '
	(cd proj && sb trust >/dev/null) &&
	grep_file -F " $REAL" "$STORE" &&
	mv proj/sandbox.ini proj/moved.ini &&
	sb trust --revoke proj/sandbox.ini >out &&
	cmp_text "revoked $REAL" out &&
	mv proj/moved.ini proj/sandbox.ini
'

test_expect_success PYTHON 'trust and trust --revoke with --json' '
	(cd proj && sb --json trust) >out &&
	json_check out "d == {\"path\": \"$REAL\", \"sha256\": \"$(sha256sum proj/sandbox.ini | cut -d" " -f1)\", \"trusted\": True}" &&
	(cd proj && sb --json trust --revoke) >out &&
	json_check out "d == {\"path\": \"$REAL\", \"revoked\": True, \"trusted\": False}" &&
	(cd proj && sb --json trust --revoke) >out &&
	json_check out "d == {\"path\": \"$REAL\", \"revoked\": False, \"trusted\": False}"
'

test_expect_success 'trust refuses what it cannot read or what anybody can write' '
	expect_status 2 sb trust nope.ini >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: trust: nope.ini: No such file or directory" err &&
	(cd empty && expect_status 2 sb trust >../out 2>../err) &&
	cmp_text "sandbox: trust: ./sandbox.ini: No such file or directory" err &&
	printf "[env]\n" >open.ini && chmod 666 open.ini &&
	expect_status 2 sb trust open.ini >out 2>err &&
	cmp_text "sandbox: trust: open.ini: writable by everyone; run chmod o-w on it" err &&
	expect_status 2 sb trust a.ini b.ini >out 2>err &&
	cmp_text "sandbox: trust: give one FILE (default ./sandbox.ini)" err
'

test_expect_success 'a FIFO named sandbox.ini is refused at once, not waited on' '
	mkdir fifo && mkfifo fifo/sandbox.ini &&
	(cd fifo && expect_status 2 timeout 20 "$SANDBOX" list >../out 2>../err) &&
	cmp_text "sandbox: list: ./sandbox.ini: not a regular file" err &&
	expect_status 2 timeout 20 "$SANDBOX" --config fifo/sandbox.ini list >out 2>err &&
	cmp_text "sandbox: list: fifo/sandbox.ini: not a regular file" err &&
	expect_status 2 timeout 20 "$SANDBOX" trust fifo/sandbox.ini >out 2>err &&
	cmp_text "sandbox: trust: fifo/sandbox.ini: not a regular file" err
'

test_expect_success 'a link to a device named sandbox.ini is refused' '
	mkdir dev && ln -s /dev/null dev/sandbox.ini &&
	(cd dev && expect_status 2 "$SANDBOX" list >../out 2>../err) &&
	cmp_text "sandbox: list: ./sandbox.ini: not a regular file" err
'

test_expect_success 'a config file over 1 MiB is refused, trusted or named' '
	{ printf "[env]\n"; head -c 1048576 /dev/zero | tr "\0" ";"; } >big.ini &&
	expect_status 2 sb --config big.ini list >out 2>err &&
	cmp_text "sandbox: list: big.ini: 1048582 bytes; the limit is 1048576 (1 MiB)" err &&
	expect_status 2 sb trust big.ini >out 2>err &&
	cmp_text "sandbox: trust: big.ini: 1048582 bytes; the limit is 1048576 (1 MiB)" err
'

test_expect_success 'without XDG_CONFIG_HOME the store is ~/.config/sandbox/trusted (mode 0600, no temporary file left)' '
	mkdir home &&
	(cd proj && env -u XDG_CONFIG_HOME HOME="$TRASH/home" "$SANDBOX" trust >/dev/null) &&
	grep_file -F " $REAL" home/.config/sandbox/trusted &&
	ls -a home/.config/sandbox >out &&
	printf "%s\n" . .. trusted trusted.lock >expect &&
	cmp_file expect out &&
	stat -c %a home/.config/sandbox/trusted home/.config/sandbox >out &&
	printf "600\n700\n" >expect &&
	cmp_file expect out &&
	(cd proj && env -u XDG_CONFIG_HOME HOME="$TRASH/home" "$SANDBOX" --engine "$ENGINE" list >/dev/null) &&
	(cd proj && XDG_CONFIG_HOME=relative/dir HOME="$TRASH/home" "$SANDBOX" --engine "$ENGINE" list >/dev/null)
'

test_expect_success 'a malformed store is an error that says what to do; trust leaves it as it is' '
	cp "$STORE" store.good &&
	printf "# comment\n%s %s\nnot a line\n" "$(printf %064d 0)" /x >"$STORE" &&
	cp "$STORE" store.bad &&
	(cd proj && expect_status 2 sb list >../out 2>../err) &&
	msg="$STORE:3: expected ${SQ}SHA256 PATH${SQ} (64 lowercase hex digits, a space, an absolute path); fix or delete the line (or the file), then run ${SQ}sandbox trust${SQ} again" &&
	cmp_text "sandbox: list: $msg" err &&
	(cd proj && expect_status 2 sb trust >../out 2>../err) &&
	cmp_text "sandbox: trust: $msg" err &&
	cmp_file store.bad "$STORE" &&
	printf "%s /x\n%s /x\n" "$(printf %064d 0)" "$(printf %064d 1)" >"$STORE" &&
	(cd proj && expect_status 2 sb list >../out 2>../err) &&
	grep_file -F "$STORE:2: the path is already on an earlier line" err &&
	printf "%s /x" "$(printf %064d 0)" >"$STORE" &&
	(cd proj && expect_status 2 sb list >../out 2>../err) &&
	grep_file -F "$STORE:1: the last line has no newline" err &&
	(cd empty && sb list >/dev/null) &&
	cp store.good "$STORE"
'

test_expect_success 'concurrent trusts: every one is recorded, and the entries before them kept' '
	mkdir many &&
	for i in $(seq 1 16); do
		printf "[env]\nN = %s\n" "$i" >many/$i.ini || return 1
	done &&
	pids= &&
	for i in $(seq 1 16); do
		sb trust many/$i.ini >/dev/null 2>many/$i.err &
		pids="$pids $!"
	done &&
	for p in $pids; do wait $p || return 1; done &&
	for i in $(seq 1 16); do
		grep_file -x -F "$(sha256sum <many/$i.ini | cut -d" " -f1) $RT/many/$i.ini" "$STORE" || return 1
	done &&
	grep_file -F " $RT/proj2/sandbox.ini" "$STORE"
'

test_expect_success 'no workspace is left but the first' '
	sb destroy "$W" >/dev/null &&
	no_workspace_left
'

test_done
