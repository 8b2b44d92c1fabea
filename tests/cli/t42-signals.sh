#!/bin/bash
# SIGINT, SIGTERM and SIGHUP to the file tools mid-call: exit 128+N, the
# in-container part killed, nothing left behind (no process of the call,
# no temporary file). exec, run, create --setup, write and mcp have theirs
# in t06, t08, t02, t31 and t40.
# The call is held mid-way without timing luck: read --raw writes into a
# FIFO that nobody reads, so sandbox blocks there and the cat behind it on
# its full pipe; for grep, glob and edit the tool their script runs (tar,
# find, cat) is replaced by one that waits, which needs an image whose sh
# runs /usr/bin's programs (BusyBox's runs its own applets).
. "$(dirname "$0")/../lib.sh"
pairwise
need_engine

# no_call_left ERE: nothing matching ERE runs in the workspace any more.
no_call_left() {
	if has_proc "$REF" "$1"; then
		echo "error: still running in the workspace:" >&4
		procs "$REF" | grep -E -- "$1" >&4
		return 1
	fi
}

test_expect_success 'setup: a workspace with a big file' '
	new_ws REF &&
	sb -w "$REF" exec -c "mkdir -p /data/tree/d && head -c 30000000 /dev/zero | tr \"\\000\" x >/data/big &&
		echo int >/data/tree/d/a.c"
'

# stalled_read SIGNAL STATUS: read --raw into a FIFO nobody reads; once its
# cat is seen in the workspace (blocked behind the full pipes), SIGNAL.
stalled_read() {
	local pid
	rm -f stall && mkfifo stall &&
	exec 7<>stall &&
	{ "$SANDBOX" --engine "$ENGINE" -w "$REF" read --raw /data/big >stall 2>err & } &&
	pid=$! &&
	wait_until 60 has_proc "$REF" "^cat -- /data/big" &&
	kill -"$1" "$pid" &&
	expect_status "$2" wait_exit 60 "$pid"
	local rc=$?
	exec 7>&-
	return $rc
}

test_expect_success 'read --raw, SIGINT mid-call: exit 130, its cat killed in the workspace' '
	stalled_read INT 130 &&
	cmp_text "sandbox: read: interrupted; the command was killed in the workspace" err &&
	no_call_left "^cat -- /data/big"
'

test_expect_success 'read --raw, SIGTERM mid-call: exit 143, its cat killed' '
	stalled_read TERM 143 &&
	no_call_left "^cat -- /data/big"
'

test_expect_success 'read --raw, SIGHUP mid-call: exit 129, its cat killed' '
	stalled_read HUP 129 &&
	no_call_left "^cat -- /data/big"
'

case $BASE_IMAGE in
*busybox*) test_skip_reason[GNU]="BusyBox's sh runs its applets, not a replaced /usr/bin tool" ;;
*) test_set_prereq GNU ;;
esac

# held TOOL: /usr/bin/TOOL waits for /tmp/go before it runs (as TOOL.real).
held() {
	sb -w "$REF" exec -c "rm -f /tmp/go && mv /usr/bin/$1 /usr/bin/$1.real &&
		printf \"#!/bin/sh\\nwhile [ ! -e /tmp/go ]; do sleep 0.1; done\\nexec /usr/bin/$1.real \\\"\\\$@\\\"\\n\" >/usr/bin/$1 &&
		chmod 755 /usr/bin/$1"
}
# released TOOL: TOOL as it was.
released() { eng exec "$REF" /bin/sh -c "mv -f /usr/bin/$1.real /usr/bin/$1"; }

# held_call SIGNAL STATUS ERE CMD...: sandbox CMD, SIGNAL once a held
# process matching ERE runs in the workspace.
held_call() {
	local sig=$1 want=$2 ere=$3 pid
	shift 3
	{ "$SANDBOX" --engine "$ENGINE" -w "$REF" "$@" >out 2>err & } &&
	pid=$! &&
	wait_until 60 has_proc "$REF" "$ere" &&
	kill -"$sig" "$pid" &&
	expect_status "$want" wait_exit 60 "$pid"
}

test_expect_success GNU 'grep, SIGTERM while the grep of the workspace runs: exit 143, killed in the workspace' '
	held grep &&
	# The first grep the script runs may be its probe (grep -q) or the
	# search (grep -l): either is the grep of the workspace.
	held_call TERM 143 "/usr/bin/grep -[lq]" grep --path /data zzz &&
	cmp_text "sandbox: grep: interrupted; the command was killed in the workspace" err &&
	no_call_left "/usr/bin/grep -[lq]" &&
	released grep
'

test_expect_success GNU 'glob, SIGHUP while its find runs: exit 129, killed in the workspace' '
	held find &&
	held_call HUP 129 "/usr/bin/find \\." glob "**/*.c" --path /data/tree &&
	cmp_text "sandbox: glob: interrupted; the command was killed in the workspace" err &&
	no_call_left "/usr/bin/find \\." &&
	released find
'

test_expect_success GNU 'edit, SIGINT while it reads: exit 130, the file as it was, no temporary file' '
	held cat &&
	held_call INT 130 "/usr/bin/cat -- /data/big" edit /data/big --old xxxx --new yyyy &&
	no_call_left "/usr/bin/cat -- /data/big" &&
	released cat &&
	sb -w "$REF" exec -c "ls -a /data; head -c 4 /data/big" >got &&
	printf ".\n..\nbig\ntree\nxxxx" >expect &&
	cmp_file expect got
'

test_done
