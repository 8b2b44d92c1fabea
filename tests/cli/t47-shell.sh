#!/bin/bash
# sandbox shell and exec -t, through a real terminal: a tmux of the file's
# own (a private socket in $TRASH) runs them in a window of 100x30; keys
# are typed into it and its screen is read back. The shell starts in the
# workdir, --cwd or a session's directory, takes the window's size and
# follows it, survives a Ctrl-C, and its exit status is sandbox's; exec -t
# gives the command a terminal and its status. Without a terminal on stdin
# both refuse (status 2) before anything starts.
. "$(dirname "$0")/../lib.sh"
pairwise
need_engine
command -v tmux >/dev/null 2>&1 || skip_all "no tmux (scripts/setup-test-env installs it)"

# Each terminal has a server of its own: a new one on the socket of one
# being killed could meet it still going away.
terms=0
SOCK=$TRASH/tmux.0
tm() { tmux -S "$SOCK" "$@"; }
# The tmux server goes with the file, whatever ends it.
trap 'rc_=$?; tmux -S "$SOCK" kill-server >/dev/null 2>&1; (exit $rc_); on_exit_' EXIT

# A command line for the terminal: sandbox with this run's engine.
SBT="\"\$SANDBOX_BIN\" --engine $ENGINE"

# term CMD: runs shell text CMD alone in a new terminal of 100x30 (the
# last one is gone first); once it ends, "status=N" goes to the file
# status, and the window stays for its screen to be read.
term() {
	tm kill-server >/dev/null 2>&1
	terms=$((terms + 1))
	SOCK=$TRASH/tmux.$terms
	rm -f status status.tmp
	tm -f /dev/null new-session -d -x 100 -y 30 \
		"$1; echo status=\$? >$TRASH/status.tmp; mv $TRASH/status.tmp $TRASH/status; exec sleep 3600"
}

# screen_has SECONDS ERE: the screen shows a line matching ERE within
# SECONDS; else the screen goes to the log.
screen_has() {
	local limit=$1 i=0
	while :; do
		tm capture-pane -p -J >screen 2>/dev/null && grep -Eq -- "$2" screen && return 0
		i=$((i + 1))
		if [ $((i * 2)) -ge $((limit * 10)) ]; then
			echo "error: after ${limit}s, no line of the screen matches: $2" >&4
			echo "--- screen:" >&4
			sed "/^$/d" screen >&4
			return 1
		fi
		sleep 0.2
	done
}

# type_until SECONDS TEXT ERE: types TEXT and Enter, again every 2 s,
# until the screen shows ERE (what a command prints after a resize can
# come before the engine passed the new size on).
type_until() {
	local limit=$1 i=0
	while :; do
		tm send-keys -l "$2" && tm send-keys Enter &&
		screen_has 2 "$3" 2>/dev/null 4>/dev/null && return 0
		i=$((i + 2))
		if [ "$i" -ge "$limit" ]; then
			screen_has 1 "$3"
			return 1
		fi
	done
}

# prompt: the shell in the terminal shows its prompt (root's: "# "),
# and so reads what is typed from now on (BusyBox's sh asks the terminal
# where the cursor is first: the answer would mix with keys typed before).
prompt() { screen_has 60 "# *$"; }

# say TEXT: types TEXT and Enter.
say() { tm send-keys -l "$1" && tm send-keys Enter; }

# ended N: the command in the terminal ended with status N (within 60 s).
ended() {
	wait_until 60 test -f status &&
	cmp_text "status=$1" status
}

test_expect_success 'setup: a workspace' '
	new_ws REF &&
	sb -w "$REF" exec -c "mkdir -p sub && if [ -x /bin/bash ]; then echo bash; else echo sh; fi" >which-sh
'

test_expect_success 'shell: a terminal of the window'"'"'s size, in the workdir; bash when there, else sh' '
	term "$SBT -w $REF shell" &&
	prompt &&
	say "echo \"at=\$(pwd)=\$(tty)=\${BASH_VERSION:+bash}=\"" &&
	screen_has 60 "^at=/workspace=/dev/pts/[0-9]+=" &&
	if [ "$(cat which-sh)" = bash ]; then
		screen_has 5 "^at=/workspace=/dev/pts/[0-9]+=bash=$"
	else
		screen_has 5 "^at=/workspace=/dev/pts/[0-9]+==$"
	fi &&
	say "echo \"size=\$(stty size)=\"" &&
	screen_has 60 "^size=30 100=$"
'

test_expect_success 'shell: the terminal follows the window when it is resized' '
	tm resize-window -x 120 -y 40 &&
	type_until 30 "echo \"size=\$(stty size)=\"" "^size=40 120=$"
'

test_expect_success 'shell: a Ctrl-C stops what runs in the shell, not the shell nor sandbox' '
	m=$((20000 + RANDOM)) &&
	say "sleep $m" &&
	wait_until 30 has_proc "$REF" "^sleep $m" &&
	tm send-keys C-c &&
	type_until 30 "echo \"alive=\$((40 + 2))=\"" "^alive=42=$" &&
	check "sleep $m is gone" eval "! has_proc \"\$REF\" \"^sleep \$m\"" &&
	test ! -f status
'

# sandbox in the terminal: the child of the window's shell.
sandbox_pid() {
	local sh
	sh=$(tm list-panes -F "#{pane_pid}") && pgrep -P "$sh" | head -n 1
}

test_expect_success 'shell: SIGINT, SIGQUIT and SIGWINCH sent to sandbox itself do not end it' '
	pid=$(sandbox_pid) &&
	test -n "$pid" &&
	kill -INT "$pid" && kill -QUIT "$pid" && kill -WINCH "$pid" &&
	type_until 30 "echo \"alive=\$((40 + 3))=\"" "^alive=43=$" &&
	test ! -f status
'

test_expect_success 'shell: its exit status is sandbox'"'"'s' '
	say "exit 7" &&
	ended 7
'

test_expect_success 'shell --cwd: relative under the workdir, or absolute' '
	term "$SBT -w $REF shell --cwd sub" &&
	prompt &&
	say "echo \"at=\$(pwd)=\"" &&
	screen_has 60 "^at=/workspace/sub=$" &&
	say "exit" &&
	ended 0 &&
	term "$SBT -w $REF shell --cwd /tmp" &&
	prompt &&
	say "echo \"at=\$(pwd)=\"" &&
	screen_has 60 "^at=/tmp=$" &&
	say "exit 0" &&
	ended 0
'

test_expect_success 'shell --cwd: a missing directory is refused, status 2' '
	term "$SBT -w $REF shell --cwd nosuch 2>$TRASH/err" &&
	ended 2 &&
	cmp_text "sandbox: shell: --cwd nosuch: no such directory in the workspace" err
'

test_expect_success 'shell --session: starts in the directory and with the exports the session left' '
	sb -w "$REF" exec --session s -c "cd /tmp; export V=1" &&
	term "$SBT -w $REF shell --session s" &&
	prompt &&
	say "echo \"at=\$(pwd)=\$V=\"" &&
	screen_has 60 "^at=/tmp=1=$" &&
	say "cd /; export V=2; exit 3" &&
	ended 3
'

test_expect_success 'shell --session: the shell keeps nothing in the session' '
	sb -w "$REF" exec --session s -c "echo \"\$(pwd) \$V\"" >out &&
	cmp_text "/tmp 1" out
'

test_expect_success 'shell --session --cwd: the directory given wins, the exports stay' '
	term "$SBT -w $REF shell --session s --cwd sub" &&
	prompt &&
	say "echo \"at=\$(pwd)=\$V=\"" &&
	screen_has 60 "^at=/workspace/sub=1=$" &&
	say "exit" &&
	ended 0
'

test_expect_success 'shell: SIGTERM to sandbox: 143, and what the terminal started is stopped in the workspace' '
	term "$SBT -w $REF shell" &&
	prompt &&
	say "sleep 1234 & echo \"bg=\$((6 * 7))=\"" &&
	screen_has 60 "^bg=42=$" &&
	wait_until 30 has_proc "$REF" "^sleep 1234" &&
	kill -TERM "$(sandbox_pid)" &&
	ended 143 &&
	screen_has 60 "sandbox: shell: interrupted; what the terminal ran in the workspace was stopped" &&
	! has_proc "$REF" "^sleep 1234" &&
	sb -w "$REF" exec -c "grep -l SANDBOX_TTY= /proc/[0-9]*/environ || :" >out &&
	must_be_empty out
'

test_expect_success 'shell: stdin not a terminal is refused, status 2, and nothing runs' '
	expect_status 2 sb -v -w "$REF" shell </dev/null >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: shell: stdin is not a terminal; run sandbox shell from one, or give the commands to sandbox exec" err
'

test_expect_success 'shell: a workspace that does not exist: 255 and a message' '
	term "$SBT -w $PFX-nosuch shell 2>$TRASH/err" &&
	ended 255 &&
	cmp_text "sandbox: shell: workspace $PFX-nosuch does not exist (destroyed?); create one with ${SQ}sandbox create${SQ}" err
'

test_expect_success 'shell: --json is refused, status 2' '
	expect_status 2 sb -w "$REF" --json shell </dev/null >out 2>err &&
	grep_file "\"kind\":\"usage\"" out &&
	grep_file "a shell has no JSON result" out
'

test_expect_success 'exec -t: the command has a terminal, and its status is returned' '
	term "$SBT -w $REF exec -t -- sh -c ${SQ}echo \"tty=\$(tty)=\"; exit 5${SQ}" &&
	screen_has 60 "^tty=/dev/pts/[0-9]+=$" &&
	ended 5
'

test_expect_success 'exec -t -c: shell text, in --cwd, reading the keyboard' '
	term "$SBT -w $REF exec -t --cwd sub -c ${SQ}echo ready; read -r l; echo \"got=\$l=\$(pwd)=\"${SQ}" &&
	screen_has 60 "^ready$" &&
	say "hello" &&
	screen_has 60 "^got=hello=/workspace/sub=$" &&
	ended 0
'

test_expect_success 'exec -t: a command that is not there: 127' '
	term "$SBT -w $REF exec -t -- no-such-command-here" &&
	ended 127
'

test_expect_success 'exec -t: stdout need not be a terminal; it gets the terminal'"'"'s line ends' '
	term "$SBT -w $REF exec -t -- echo hi >$TRASH/out" &&
	ended 0 &&
	printf "hi\r\n" >expect &&
	cmp_file expect out
'

test_expect_success 'exec -t --session: the command starts from the session and what it leaves is kept' '
	term "$SBT -w $REF exec -t --session t -c ${SQ}cd /tmp; export W=3${SQ}" &&
	ended 0 &&
	sb -w "$REF" exec --session t -c "echo \"\$(pwd) \$W\"" >out &&
	cmp_text "/tmp 3" out
'

test_expect_success 'exec -t: stdin not a terminal is refused, status 2, and nothing runs' '
	expect_status 2 sb -v -w "$REF" exec -t -- true </dev/null >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: exec: -t needs a terminal on stdin, and stdin is not one; run it from a terminal, or without -t" err
'

test_expect_success 'exec -t: a value not UTF-8, and a variable SANDBOX_TTY, are refused, status 2' '
	expect_status 2 sb -w "$REF" exec -t -- echo "$(printf "a\377")" </dev/null >out 2>err &&
	cmp_text "sandbox: exec: with a terminal, the command line, --cwd and the variables must be UTF-8 text; run it without one" err &&
	expect_status 2 sb -w "$REF" exec -t -e SANDBOX_TTY=1 -- true </dev/null >out 2>err &&
	cmp_text "sandbox: exec: variable SANDBOX_TTY: with a terminal, it is sandbox${SQ}s own; choose another name" err
'

test_expect_success 'exec -t refuses --json, --background and --timeout, status 2' '
	expect_status 2 sb -w "$REF" --json exec -t -- true </dev/null >out 2>err &&
	grep_file "\"kind\":\"usage\"" out &&
	grep_file "does not go with --json" out &&
	expect_status 2 sb -w "$REF" exec -t --background -- true </dev/null >out 2>err &&
	cmp_text "sandbox: exec: -t does not go with --background: a background job has no terminal" err &&
	expect_status 2 sb -w "$REF" exec -t --timeout 5 -- true </dev/null >out 2>err &&
	grep_file "^sandbox: exec: -t does not go with --timeout" err
'

test_expect_success 'cleanup: the terminal and the workspace go' '
	tm kill-server &&
	sb destroy "$REF" &&
	no_workspace_left
'

test_done
