# tests/lib.sh: a small TAP library for the sandbox CLI tests, in the style
# of git's test-lib.sh. A test file looks like this:
#
#	#!/bin/bash
#	. "$(dirname "$0")/../lib.sh"
#
#	need_engine
#
#	test_expect_success 'exec exits with the status of the command' '
#		new_ws REF &&
#		expect_status 3 sb -w "$REF" exec -- sh -c "exit 3" 2>err &&
#		must_be_empty err
#	'
#	test_done
#
# (Inside a body, "${SQ}" is a single quote.)
# Each body is eval'd in the file's shell (variables it sets stay for the
# next tests), with stdout and stderr going to a log that is shown when the
# test fails; steps are chained with &&. The current directory is the file's
# own scratch directory, $TRASH, at the start of every test.
#
# Environment, set by tests/run-cli-tests (defaults are for running one file
# by hand: `tests/cli/t06-exec.sh`, or `ENGINE=podman IMAGE=... bash FILE`):
#   SANDBOX_BIN   absolute path of the binary (default: build/sandbox)
#   ENGINE        docker or podman (default docker)
#   IMAGE         image of the workspaces (default sandbox-test/busybox:1)
#   TEST_VERBOSE  1: show every test's output, not only a failure's
#   TEST_KEEP     1: keep $TRASH (the workspaces are removed all the same)
# XDG_CONFIG_HOME is set to $TRASH/.config, empty: sandbox's user defaults
# and trust store are the file's own.
#
# At the end (test_done, or any exit) every container the file made is
# removed: each workspace (label sandbox.workspace=true) of $IMAGE, and each
# container whose name starts with $PFX (see new_name).
#
# Sanitizers: ASAN_OPTIONS/UBSAN_OPTIONS send reports to files; a test after
# which a report appeared fails, with the report in its output.

TEST_LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_DIR=$(dirname "$TEST_LIB_DIR")
TEST_FILE=$(basename "$0" .sh)

: "${ENGINE:=docker}"
: "${IMAGE:=sandbox-test/busybox:1}"
: "${SANDBOX_BIN:=$REPO_DIR/build/sandbox}"
case $SANDBOX_BIN in /*) ;; *) SANDBOX_BIN=$PWD/$SANDBOX_BIN ;; esac
SANDBOX=$SANDBOX_BIN
if [ "$ENGINE" = podman ]; then
	: "${CONTAINERS_CONF:=$REPO_DIR/tests/containers.conf}"
	export CONTAINERS_CONF
fi
# Nothing of the caller's may choose a workspace or a config for us.
unset SANDBOX_WORKSPACE SANDBOX_CONFIG XDG_CACHE_HOME XDG_CONFIG_HOME XDG_STATE_HOME
export LC_ALL=C
export ENGINE IMAGE SANDBOX_BIN

TRASH=$(mktemp -d "${TMPDIR:-/tmp}/sandbox-test.$TEST_FILE.XXXXXX") || exit 1
mkdir -p "$TRASH/.logs" "$TRASH/.sanitizer" "$TRASH/.sanitizer-seen"
ASAN_OPTIONS="log_path=$TRASH/.sanitizer/asan:detect_leaks=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
UBSAN_OPTIONS="log_path=$TRASH/.sanitizer/ubsan:print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
export ASAN_OPTIONS UBSAN_OPTIONS
cd "$TRASH" || exit 1
# The user's config directory (defaults, trust store) is the file's own:
# nothing of the caller's applies, and `sandbox trust` in a test never
# writes the caller's store, however the file is run.
XDG_CONFIG_HOME=$TRASH/.config
export XDG_CONFIG_HOME
# The resident process's socket (man sandbox, RESIDENT): the file's own,
# so that its residents are its alone, and stopped at its end.
SANDBOX_RUNTIME_DIR=$TRASH/.run
export SANDBOX_RUNTIME_DIR
# The gVisor leg (tests/run-cli-tests) names the OCI runtime every
# workspace of the file runs on: the user's defaults say it, as a user's
# would, so that a file's own --runtime or config still wins.
if [ -n "${TEST_RUNTIME-}" ]; then
	mkdir -p "$XDG_CONFIG_HOME/sandbox" &&
		printf '[sandbox]\nruntime = %s\n' "$TEST_RUNTIME" >"$XDG_CONFIG_HOME/sandbox/sandbox.ini" || exit 1
fi
# Where copy workspaces keep their baselines: the file's own too.
XDG_STATE_HOME=$TRASH/.state
export XDG_STATE_HOME

# Prefix of the names the file gives containers: unique, and the cleanup's
# handle on containers without our label.
PFX=sbt$(od -An -N4 -tx1 /dev/urandom | tr -d ' \n')

# The workspaces use the test image under a name of this file's own
# ($PFX/busybox:1, a second tag of the same image): cleanup and the
# lifecycle tests can then tell them from any other workspace on the
# machine, by image. BASE_IMAGE is the name the runner gave.
BASE_IMAGE=$IMAGE
IMAGE=$PFX/${BASE_IMAGE##*/}
image_tagged_=

# names_locked_ CMD...: CMD, while no other test file changes an image's
# names. Podman before 4.8 tags and untags by reading an image's names
# and writing them back whole: two files tagging the one base image at
# once could lose a tag (podman issue 17515), and with it every create.
names_locked_() {
	if [ "$ENGINE" = podman ]; then
		( flock -w 300 9 && "$@" ) 9>>"${TMPDIR:-/tmp}/sandbox-test-image-names.lock"
	else
		"$@"
	fi
}

test_count=0
test_failed=0
test_done_called=
declare -A test_prereqs=() test_skip_reason=()
# OOM_KILLS_ONE: the kernel's OOM killer takes one process of the
# workspace. gVisor's limit stops the whole sandbox instead (man sandbox,
# GVISOR; t56 tests what a workspace on it does then).
if [ -z "${TEST_RUNTIME-}" ]; then
	test_prereqs[OOM_KILLS_ONE]=1
else
	test_skip_reason[OOM_KILLS_ONE]="on $TEST_RUNTIME the memory limit stops the whole workspace, not one process (t56 tests that)"
fi
# TMP_KEPT: the workspace's /tmp, where jobs keep their records and
# logs, outlives a stop. gVisor mounts a tmpfs of its own there.
if [ -z "${TEST_RUNTIME-}" ]; then
	test_prereqs[TMP_KEPT]=1
else
	test_skip_reason[TMP_KEPT]="on $TEST_RUNTIME /tmp is a tmpfs of its own, gone with a stop (man sandbox, GVISOR)"
fi

say_() { printf '%s\n' "$*"; }

# A single quote, for messages inside test bodies (themselves in '...').
# shellcheck disable=SC2034
SQ="'"

test_set_prereq() { test_prereqs[$1]=1; }
test_have_prereq() {
	local p
	for p in ${1//,/ }; do
		[ -n "${test_prereqs[$p]-}" ] || return 1
	done
}

# Shows a file as TAP diagnostics ("# " lines), at most 400 lines.
diag_file_() {
	local n
	n=$(wc -l <"$1")
	sed -e 's/^/#	/' -e '400q' "$1"
	[ "$n" -le 400 ] || say_ "#	... ($((n - 400)) more lines)"
}

# Sanitizer reports that appeared since the last check: shown, then moved
# aside so that only the test that caused them fails.
sanitizer_reports_() {
	local f found=1
	for f in "$TRASH"/.sanitizer/*; do
		[ -e "$f" ] || continue
		echo "--- sanitizer report $(basename "$f"):"
		cat "$f"
		mv "$f" "$TRASH/.sanitizer-seen/"
		found=0
	done
	return $found
}

# The body runs in a function of its own: `return 1` (in a loop) ends it.
test_eval_() {
	eval "$1"
}

test_run_() {
	local log=$1 body=$2 status
	exec 4>"$log"
	test_eval_ "$body" </dev/null >&4 2>&4
	status=$?
	if sanitizer_reports_ >&4 2>&1; then
		echo "error: the sanitizer reported a problem (above)" >&4
		status=99
	fi
	exec 4>&-
	cd "$TRASH" || exit 1
	return $status
}

# test_expect_success [PREREQ,...] TITLE BODY
test_expect_success() {
	local prereq=
	if [ $# = 3 ]; then prereq=$1; shift; fi
	[ $# = 2 ] || { echo "bug in the test script: test_expect_success needs 2 or 3 arguments" >&2; exit 1; }
	test_count=$((test_count + 1))
	if [ -n "$prereq" ] && ! test_have_prereq "$prereq"; then
		local p missing=
		for p in ${prereq//,/ }; do
			test_have_prereq "$p" && continue
			missing=$p
			break
		done
		say_ "ok $test_count - $1 # SKIP missing $missing${test_skip_reason[$missing]+: ${test_skip_reason[$missing]}}"
		return 0
	fi
	local log="$TRASH/.logs/$test_count.log"
	if test_run_ "$log" "$2"; then
		say_ "ok $test_count - $1"
		if [ "${TEST_VERBOSE-}" = 1 ] && [ -s "$log" ]; then diag_file_ "$log"; fi
	else
		test_failed=$((test_failed + 1))
		say_ "not ok $test_count - $1"
		say_ "#	--- test body:"
		printf '%s\n' "$2" | sed -e '/^[[:space:]]*$/d' -e 's/^/#	/'
		say_ "#	--- output:"
		diag_file_ "$log"
	fi
}

# skip_all REASON: the whole file does not apply here.
skip_all() {
	say_ "1..0 # SKIP $*"
	test_done_called=1
	cleanup_
	exit 0
}

test_done() {
	test_done_called=1
	cleanup_
	say_ "1..$test_count"
	[ "$test_failed" = 0 ]
	exit
}

# --- Helpers for test bodies --------------------------------------------

# sb ARGS...: sandbox with this run's engine. Tests that must control the
# engine option themselves call "$SANDBOX" directly.
sb() { "$SANDBOX" --engine "$ENGINE" "$@"; }

# eng ARGS...: the engine itself, behind sandbox's back.
eng() { "$ENGINE" "$@"; }

# eng_rm NAME...: force-removes containers (no stop timeout), quietly.
eng_rm() {
	if [ "$ENGINE" = podman ]; then
		podman rm -f -t 0 "$@" >/dev/null 2>&1
	else
		docker rm -f "$@" >/dev/null 2>&1
	fi
	return 0
}

# expect_status N CMD...: runs CMD and checks its exit status.
expect_status() {
	local want=$1 got
	shift
	"$@"
	got=$?
	if [ "$got" != "$want" ]; then
		echo "error: expected exit status $want, got $got from: $*" >&4
		return 1
	fi
}

# cmp_file EXPECTED ACTUAL: the two files are the same, byte for byte.
cmp_file() {
	if ! cmp -s "$1" "$2"; then
		echo "error: $2 differs from what was expected ($1):" >&4
		diff -u "$1" "$2" >&4 2>&1 || true
		if [ "$(wc -l <"$2")" -lt 3 ]; then
			echo "(actual, escaped:)" >&4
			od -c "$2" | head -n 20 >&4
		fi
		return 1
	fi
}

# cmp_text TEXT FILE: FILE holds exactly TEXT and a newline (TEXT may span
# lines).
cmp_text() {
	printf '%s\n' "$1" >"$TRASH/.expect.$test_count"
	cmp_file "$TRASH/.expect.$test_count" "$2"
}

must_be_empty() {
	if [ -s "$1" ]; then
		echo "error: $1 should be empty, but holds:" >&4
		cat "$1" >&4
		return 1
	fi
}

# grep_file [GREP OPTIONS] PATTERN FILE: a line of FILE matches.
grep_file() {
	local f=${*: -1}
	if ! grep -q "${@:1:$#-1}" "$f"; then
		echo "error: no line of $f matches: ${*:1:$#-1}" >&4
		echo "--- $f:" >&4
		cat "$f" >&4
		return 1
	fi
}

# no_grep_file [GREP OPTIONS] PATTERN FILE: no line of FILE matches.
no_grep_file() {
	local f=${*: -1}
	if grep -q "${@:1:$#-1}" "$f"; then
		echo "error: a line of $f matches what it must not: ${*:1:$#-1}" >&4
		grep "${@:1:$#-1}" "$f" >&4
		return 1
	fi
}

# line_count N FILE
line_count() {
	local n
	n=$(wc -l <"$2")
	if [ "$n" != "$1" ]; then
		echo "error: $2 has $n lines, expected $1:" >&4
		cat "$2" >&4
		return 1
	fi
}

# check 'DESCRIPTION' CMD...: an assertion that says what failed.
check() {
	local what=$1
	shift
	if ! "$@"; then
		echo "error: check failed: $what" >&4
		return 1
	fi
}

# rewriting_sh REF: puts in workspace REF, as root, a /bin/sh that in
# every argument turns the text of /tmp/rw-from into that of /tmp/rw-to,
# then runs the real sh; answer_with sets the two. A hostile workspace
# that forges what our scripts answer, whatever they run (BusyBox sh runs
# its own applets whatever PATH says: rewriting the script is the way to
# put another command in their place in every image).
REWRITING_SH='f=$(cat /tmp/rw-from 2>/dev/null) t=$(cat /tmp/rw-to 2>/dev/null)
n=$#
while [ -n "$f" ] && [ "$n" -gt 0 ]; do
	a=$1; shift; n=$((n - 1))
	case $a in *"$f"*) a="${a%%"$f"*}$t${a#*"$f"}" ;; esac
	set -- "$@" "$a"
done
exec REAL "$@"'
rewriting_sh() {
	# Installed by the real sh, before it is replaced.
	printf '%s\n' "$REWRITING_SH" | eng exec -i -u 0 "$1" sh -c 'r=$(readlink -f /bin/sh)
case $r in */busybox) real="$r sh" ;; *) real=$r ;; esac
{ echo "#!$real"; sed "s|REAL|$real|"; } >/tmp/fake-sh &&
chmod 755 /tmp/fake-sh && rm -f /bin/sh && cp /tmp/fake-sh /bin/sh'
}
# answer_with FROM TO: from now on the scripts that workspace $REF runs
# say TO where they said FROM (written by dd, which no sh runs).
answer_with() {
	printf %s "$1" | eng exec -i -u 0 "$REF" dd of=/tmp/rw-from 2>/dev/null &&
	printf %s "$2" | eng exec -i -u 0 "$REF" dd of=/tmp/rw-to 2>/dev/null
}

# hang_sh REF: puts /tmp/hangsh in workspace REF, a /bin/sh that hangs;
# $SWAP_SH is shell text, for a command in REF, that copies the real sh
# to /tmp/real/sh and puts /tmp/hangsh in its place: from then on the
# workspace answers nothing that starts sh (a kill exec among them).
hang_sh() {
	printf '%s\n' '#!/tmp/real/sh' 'exec /tmp/real/sh -c "while :; do sleep 1; done"' >hangsh &&
	sb -w "$1" write /tmp/hangsh <hangsh
}
SWAP_SH='mkdir -p /tmp/real && cat /bin/sh >/tmp/real/sh && chmod 755 /tmp/real/sh /tmp/hangsh && rm -f /bin/sh && mv /tmp/hangsh /bin/sh'

# new_name SUFFIX: a container name of this file (removed at the end).
new_name() { printf '%s-%s\n' "$PFX" "$1"; }

# new_ws VAR [CREATE OPTIONS] [-- RUN ARGS]: creates a workspace of $IMAGE
# and stores its ref in VAR.
new_ws() {
	local var=$1 out
	shift
	out=$(sb create --image "$IMAGE" "$@") || {
		echo "error: sandbox create failed" >&4
		return 1
	}
	case $out in
	*[!a-zA-Z0-9_.-]* | "") echo "error: create printed '$out'" >&4; return 1 ;;
	esac
	printf -v "$var" '%s' "$out"
}

# foreign_ctr NAME: a running container that is not a workspace (no label).
foreign_ctr() {
	eng run -d --name "$1" "$IMAGE" sleep 100000 >/dev/null || {
		echo "error: cannot start the container $1" >&4
		return 1
	}
}

# our_workspaces: the IDs of this file's workspaces (label and image).
our_workspaces() {
	eng ps -a --filter label=sandbox.workspace=true --format '{{.ID}} {{.Image}}' |
		awk -v img="$IMAGE" '$2 == img || $2 == "localhost/" img || $2 == "docker.io/" img { print $1 }'
}

# no_workspace_left: none of this file's workspaces exists.
no_workspace_left() {
	local left
	left=$(our_workspaces)
	if [ -n "$left" ]; then
		echo "error: workspaces left: $left" >&4
		eng ps -a --filter label=sandbox.workspace=true >&4 2>&1
		return 1
	fi
}

# others: workspaces of the engine that are not this file's.
others() {
	eng ps -a --filter label=sandbox.workspace=true --format '{{.Names}} {{.Image}}' |
		awk -v img="$IMAGE" '$2 != img && $2 != "localhost/" img && $2 != "docker.io/" img'
}
# alone_prereq: ALONE when the engine has no workspace but this file's,
# for the tests that act on every workspace of the engine (skipped, not
# failed, on a machine where others exist).
alone_prereq() {
	if [ -z "$(others)" ]; then
		test_set_prereq ALONE
	else
		test_skip_reason[ALONE]="$ENGINE has workspaces this test did not make: $(others | head -n 3 | awk '{print $1}' | tr '\n' ' ')"
	fi
}
# alone: checked again right before a command that acts on all of them.
alone() {
	local o
	o=$(others)
	if [ -n "$o" ]; then
		echo "error: other workspaces appeared, not running it: $o" >&4
		return 1
	fi
}

ctr_exists() { eng container inspect "$1" >/dev/null 2>&1; }
ctr_gone() {
	if ctr_exists "$1"; then
		echo "error: container $1 still exists ($(ctr_state "$1"))" >&4
		return 1
	fi
}
# ctr_state NAME: created, running, exited...
ctr_state() { eng container inspect --format '{{.State.Status}}' "$1" 2>/dev/null; }
# ctr_info NAME: ID and state, to check that something did not change.
ctr_info() { eng container inspect --format '{{.Id}} {{.State.Status}} {{.State.StartedAt}}' "$1" 2>/dev/null; }

# procs NAME: the command lines of every process in container NAME, one a
# line with spaces between arguments (/proc: the Debian image has no ps).
procs() {
	eng exec "$1" sh -c 'for f in /proc/[0-9]*/cmdline; do tr "\0" " " <"$f" 2>/dev/null; echo; done'
}
# has_proc NAME ERE: a process whose command line matches ERE runs in NAME.
has_proc() { procs "$1" | grep -Eq -- "$2"; }

# wait_until SECONDS CMD...: polls CMD until it succeeds, or until it has
# slept SECONDS between the polls (the polls' own time not counted: a slow
# machine makes the wait longer, never shorter). The pause grows from 0.2 s
# to 1 s: a poll is often an engine call, and those cost the machine's CPU.
wait_until() {
	local limit=$1 slept=0 step=2
	shift
	while ! "$@"; do
		if [ "$slept" -ge $((limit * 10)) ]; then
			echo "error: gave up after ${limit}s waiting for: $*" >&4
			return 1
		fi
		sleep "$((step / 10)).$((step % 10))"
		slept=$((slept + step))
		step=$((step * 3 / 2 < 10 ? step * 3 / 2 : 10))
	done
}

# wait_exit SECONDS PID: waits for the background job PID and returns its
# exit status; one still running after SECONDS is killed (status 1, and a
# message), so that a hang fails the test instead of the whole run.
wait_exit() {
	local limit=$1 pid=$2 i=0
	while kill -0 "$pid" 2>/dev/null; do
		i=$((i + 1))
		if [ $((i * 2)) -ge $((limit * 10)) ]; then
			echo "error: process $pid still running after ${limit}s; killed" >&4
			kill -9 "$pid" 2>/dev/null
			wait "$pid" 2>/dev/null
			return 1
		fi
		sleep 0.2
	done
	wait "$pid"
}

# silent_port: a port on 127.0.0.1 that takes connections and then says
# nothing, as a hung daemon or ssh server would; its number in the file
# "port", the listener's pid in $SILENT_PID (python3: the PYTHON prereq).
silent_port() {
	python3 -c 'import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(16)
print(s.getsockname()[1], flush=True)
conns = []
while True:
    c, _ = s.accept(); conns.append(c)' >port &
	SILENT_PID=$!
	wait_until 10 test -s port
}

# now_s: seconds since the epoch.
now_s() { date +%s; }

# elapsed_below START SECONDS: a hang guard, not a stopwatch. SECONDS is
# about what the step takes on an idle machine; it fails only past four
# times that and a minute more, which a loaded machine does not reach
# (t49's apply took 33 s of its 30 beside two busy processes). What a
# test claims about time it shows by the outcome (a status, a kill, a
# message); this tells a bounded wait from the one that never ends, the
# alternative of every caller (a sleep of 300 s or more, an endless
# stream, a hung engine).
elapsed_below() {
	local took=$(($(now_s) - $1)) limit=$(($2 * 4 + 60))
	if [ "$took" -ge "$limit" ]; then
		echo "error: took ${took}s, expected about $2 s (at most $limit s)" >&4
		return 1
	fi
}

# json_check FILE PYTHON-EXPR: FILE is one JSON value (and only that, on
# one line), and EXPR holds of it as d.
json_check() {
	python3 - "$1" "$2" >&4 2>&1 <<'EOF'
import json, sys
raw = open(sys.argv[1], "rb").read()
try:
    text = raw.decode("utf-8")
    d = json.loads(text)
except Exception as e:
    print("error: not valid JSON (%s): %r" % (e, raw[:2000]))
    sys.exit(1)
if text.count("\n") != 1 or not text.endswith("\n"):
    print("error: expected one line, got %r" % raw[:2000])
    sys.exit(1)
if not eval(sys.argv[2], {"d": d}):
    print("error: check failed: %s" % sys.argv[2])
    print("on: %s" % json.dumps(d, indent=1)[:4000])
    sys.exit(1)
EOF
}

# --- Peak memory ----------------------------------------------------------

# need_peak_rss: sets the prerequisite PEAK_RSS when the peak memory of
# $SANDBOX can be measured: a C compiler for tests/peak-rss.c, and a build
# without sanitizers (whose shadow memory makes the figure meaningless).
need_peak_rss() {
	if grep -q __asan_init "$SANDBOX" 2>/dev/null; then
		test_skip_reason[PEAK_RSS]="a sanitizer build: its memory is not the program's"
	elif ! "${CC:-cc}" -shared -fPIC -O1 -o "$TRASH/.peak-rss.so" "$TEST_LIB_DIR/peak-rss.c" 2>/dev/null; then
		test_skip_reason[PEAK_RSS]="cannot build tests/peak-rss.c"
	else
		test_set_prereq PEAK_RSS
	fi
}

# peak_kib OUT CMD...: runs CMD, which runs $SANDBOX (sb, or timeout N
# "$SANDBOX" ...), with tests/peak-rss.c preloaded (prerequisite PEAK_RSS;
# without it, CMD runs as it is); OUT then holds the peak resident set of
# $SANDBOX in KiB, without its children's (the engine's client), or "0".
# Returns CMD's status.
peak_kib() {
	local out=$1
	shift
	echo 0 >"$out"
	if test_have_prereq PEAK_RSS; then
		PEAK_RSS_FILE=$out PEAK_RSS_EXE=$(readlink -f "$SANDBOX") \
			LD_PRELOAD=$TRASH/.peak-rss.so "$@"
	else
		"$@"
	fi
}

# below_kib FILE MAX: the figure in FILE (from peak_kib) is under MAX KiB.
below_kib() {
	local kib
	kib=$(cat "$1")
	echo "peak: $kib KiB (at most $2)" >&4
	if ! [ "$kib" -lt "$2" ] 2>/dev/null; then
		echo "error: peak memory $kib KiB, expected under $2 KiB" >&4
		return 1
	fi
}

# --- The fake engine ---------------------------------------------------

# fake_engine NAME: a fresh fake engine NAME in $TRASH/fake-bin, with an
# empty log and an empty ID cache (XDG_CACHE_HOME); sets FAKE (its path)
# and FAKE_LOG (its log directory).
fake_engine() {
	export XDG_CACHE_HOME=$TRASH/fake-cache &&
	rm -rf "$XDG_CACHE_HOME" &&
	mkdir -p "$TRASH/fake-bin" &&
	ln -sf "$TEST_LIB_DIR/fake-engine" "$TRASH/fake-bin/$1" &&
	FAKE=$TRASH/fake-bin/$1 &&
	FAKE_LOG=$TRASH/fake-bin/fake-engine.log &&
	rm -rf "$FAKE_LOG" &&
	mkdir "$FAKE_LOG"
}
# fake_calls: the subcommands of the calls so far, one a line (nothing
# when there was no call).
fake_calls() { cat "$FAKE_LOG/calls" 2>/dev/null; }
# fake_argv N: call N's arguments one a line (newlines in one shown as \n).
fake_argv() {
	python3 -c 'import sys
for a in open(sys.argv[1], "rb").read().split(b"\0")[:-1]:
    sys.stdout.write(a.decode("utf-8", "replace").replace("\n", "\\n") + "\n")' "$FAKE_LOG/$1.argv"
}
# fake_env N: call N's environment, sorted, one variable a line.
fake_env() { tr '\0' '\n' <"$FAKE_LOG/$1.env" | LC_ALL=C sort; }

# --- Prerequisites --------------------------------------------------------

# python3 without a version manager's shim: where python3 is pyenv's (a
# script that runs pyenv, which runs Python) each start costs half a second
# of CPU, and a file starts it hundreds of times (json_check, the MCP
# client). The distribution's /usr/bin/python3 when there is one (a
# pyenv build starts in twice its CPU), else the Python that python3
# runs: linked as python3 in a directory first on PATH.
if [ -x /usr/bin/python3 ]; then
	py=/usr/bin/python3
else
	py=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null)
fi
if [ -n "$py" ] && [ -x "$py" ] && mkdir -p "$TRASH/.bin" && ln -sf "$py" "$TRASH/.bin/python3"; then
	PATH=$TRASH/.bin:$PATH
fi
if command -v python3 >/dev/null 2>&1; then
	test_set_prereq PYTHON
else
	test_skip_reason[PYTHON]="python3 is not installed"
fi

# --- Cleanup --------------------------------------------------------------

# The workspaces of our image (the label filter) and the containers named
# with our prefix, or made from a snapshot of ours. Other workspaces of
# the engine are not ours to remove.
our_containers_() {
	eng ps -a --filter label=sandbox.workspace=true --format '{{.ID}} {{.Image}}' 2>/dev/null |
		awk -v img="$IMAGE" '$2 == img || $2 == "localhost/" img || $2 == "docker.io/" img { print $1 }'
	eng ps -a --format '{{.ID}} {{.Names}} {{.Image}}' 2>/dev/null |
		awk -v pfx="$PFX-" -v snap="sandbox-snapshot:$PFX-" 'index($2, pfx) == 1 ||
			index($3, snap) == 1 || index($3, "localhost/" snap) == 1 { print $1 }'
}

# The snapshots the file made: sandbox-snapshot:$PFX-... (name them so;
# a default name starts with the workspace's, so name that so too).
our_snapshots_() {
	eng images --format '{{.Repository}}:{{.Tag}}' 2>/dev/null |
		awk -v pfx="sandbox-snapshot:$PFX-" 'index($1, pfx) == 1 || index($1, "localhost/" pfx) == 1 { print $1 }'
}

# bg_track PID: a process the file started in the background (a
# forward), killed at the file's end whatever its tests did, so that none
# outlives the file holding the runner's pipes.
test_bg_pids_=()
bg_track() { test_bg_pids_+=("$1"); }

cleanup_() {
	[ -n "${cleanup_done_-}" ] && return 0
	cleanup_done_=1
	local ids p
	for p in "${test_bg_pids_[@]}"; do kill -9 "$p" 2>/dev/null; done
	# Every resident of the file's, whatever endpoint it served: the
	# channels it holds end with it.
	"$SANDBOX" resident stop --all >/dev/null 2>&1
	ids=$(our_containers_ | sort -u)
	if [ -n "$ids" ]; then
		# shellcheck disable=SC2086
		eng_rm $ids
	fi
	ids=$(our_snapshots_ | sort -u)
	if [ -n "$ids" ]; then
		# shellcheck disable=SC2086
		names_locked_ eng image rm $ids >/dev/null 2>&1
	fi
	if [ -n "$image_tagged_" ]; then
		if [ "$ENGINE" = podman ]; then
			names_locked_ podman untag "$IMAGE" "$IMAGE" >/dev/null 2>&1
		else
			docker image rm "$IMAGE" >/dev/null 2>&1
		fi
	fi
	cd / || true
	if [ "${TEST_KEEP-}" != 1 ]; then
		rm -rf "$TRASH"
	fi
}

on_exit_() {
	local status=$?
	cleanup_
	if [ -z "$test_done_called" ]; then
		say_ "# $TEST_FILE exited before test_done (status $status)"
		[ "$status" = 0 ] && status=1
	fi
	exit "$status"
}
trap on_exit_ EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# only_once: the file tests sandbox alone, not the engine or the image
# (no engine call, or the fake engine's): it runs in the docker + busybox
# leg only (the sanitizer build's), and is skipped in the others.
only_once() {
	[ -z "${TEST_RUNTIME-}" ] || return 0
	case $ENGINE/$BASE_IMAGE in
	docker/*busybox*) ;;
	*) skip_all "nothing here depends on the engine or the image; runs with docker and busybox" ;;
	esac
}

# pairwise: the image matters to what this file tests (its scripts run the
# image's tools) and so does the engine (it carries their input and
# output), but not the two together: Docker with busybox and Podman with
# the other image cover each once, and the two other legs skip it.
pairwise() {
	[ -z "${TEST_RUNTIME-}" ] || return 0
	case $ENGINE/$BASE_IMAGE in
	docker/*busybox*) return ;;
	podman/*busybox*) ;;
	podman/*) return ;;
	esac
	skip_all "the image and the engine meet nowhere here; runs with docker on busybox, podman on the other image"
}

# image_independent: what this file tests does not depend on the image's
# tools, and it runs with busybox only: the legs of other images skip it.
image_independent() {
	[ -z "${TEST_RUNTIME-}" ] || return 0
	case $BASE_IMAGE in
	*busybox*) ;;
	*) skip_all "nothing here depends on the image; runs with busybox" ;;
	esac
}

# also_on_gvisor: the file runs in the gVisor leg too (tests/run-cli-tests:
# Podman with busybox, every workspace on runsc), whatever rule above it
# follows in the other legs: the runner reads the line off the file.
also_on_gvisor() { :; }

# need_engine: the file uses the real engine: checks it answers and tags
# the image for this file.
need_engine() {
	if ! "$ENGINE" image inspect "$BASE_IMAGE" >/dev/null 2>&1; then
		say_ "Bail out! $ENGINE has no image $BASE_IMAGE: run scripts/setup-test-env"
		exit 1
	fi
	names_locked_ "$ENGINE" tag "$BASE_IMAGE" "$IMAGE" >/dev/null || {
		say_ "Bail out! cannot tag $BASE_IMAGE as $IMAGE"
		exit 1
	}
	image_tagged_=1
}
