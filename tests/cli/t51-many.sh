#!/bin/bash
# Many at once: 100 workspaces alive together, made by 10 processes at
# once (10 each). Every create succeeds with a ref of its own; list (and
# list --json) shows all 100 in at most two engine calls; each one runs
# a command of its own; destroy --all removes them all, in three engine
# calls (ps, inspect, one rm). The engine calls are counted by a wrapper
# engine: a script that appends its subcommand to a log, then runs the
# real engine.
#
# On Podman the 10 processes make 4 each (40): the same races, the same
# engine calls, at less than half the CPU: a Podman client costs about
# twice a Docker one, and its 100 were one in seven of the suite's
# container lifecycles. The 100 are shown on Docker; scripts/bench-scale
# measures 100 on both.
#
# destroy --all acts on every workspace of the engine: that test runs
# only when the engine has no workspace but this file's (as in t09); else
# the 100 are destroyed by ref, and lib.sh's cleanup removes whatever a
# failed test left. It takes about 40 s on Docker and 40 to 60 s on
# Podman here (2 cores, with other runs going).
. "$(dirname "$0")/../lib.sh"
image_independent
need_engine

N=10 # processes
EACH=10 # workspaces each
if [ "$ENGINE" = podman ]; then EACH=4; fi
TOTAL=$((N * EACH))

alone_prereq

# The counting engine: an absolute path (as --engine takes one), which
# logs its first argument (the subcommand) and runs the real engine. The
# log's path is written into the script: sandbox passes the engine an
# allow-list of variables only.
REAL_ENGINE=$(command -v "$ENGINE")
WRAP=$TRASH/counting/$ENGINE
CALLS=$TRASH/counting/calls
mkdir -p "$TRASH/counting"
cat >"$WRAP" <<EOF
#!/bin/sh
printf '%s\\n' "\$1" >>'$CALLS'
exec '$REAL_ENGINE' "\$@"
EOF
chmod 755 "$WRAP"

# cb ARGS...: sandbox through the counting engine.
cb() { "$SANDBOX" --engine "$WRAP" "$@"; }

# calls_were LIST: the engine calls since the log was emptied, one
# subcommand a line, are LIST (a space-separated list).
calls_were() {
	# shellcheck disable=SC2086 # one subcommand a word
	printf '%s\n' $1 >calls.expect
	cmp_file calls.expect "$CALLS"
}

# took START: seconds since START (an $EPOCHREALTIME), for the log.
took() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'; }

test_expect_success "$TOTAL workspaces created by $N processes at once: each create succeeds, $TOTAL refs" '
	: >"$CALLS" &&
	t0=$EPOCHREALTIME &&
	pids=() &&
	for p in $(seq 1 $N); do
		{
			for i in $(seq 1 $EACH); do
				cb create --image "$IMAGE" >>"ref.$p" 2>>"cerr.$p" ||
					echo "create $i failed: $?" >>"cerr.$p"
			done &
		} &&
		pids+=($!) || return 1
	done &&
	for p in "${pids[@]}"; do
		wait_exit 240 "$p" || return 1
	done &&
	echo "$TOTAL creates by $N processes: $(took "$t0") s" &&
	cat cerr.* >cerr &&
	must_be_empty cerr &&
	cat ref.* >all &&
	line_count $TOTAL all &&
	sort -u all >refs &&
	line_count $TOTAL refs &&
	no_grep_file -v -E "^sandbox-[0-9a-f]{12}$" refs &&
	grep -c "^run$" "$CALLS" >n &&
	cmp_text $TOTAL n
'

test_expect_success "list shows all $TOTAL, running, in two engine calls" '
	: >"$CALLS" &&
	t0=$EPOCHREALTIME &&
	cb list >out 2>err &&
	echo "list: $(took "$t0") s" &&
	must_be_empty err &&
	calls_were "ps inspect" &&
	awk "NR > 1 { print \$1 }" out | sort >listed &&
	comm -23 refs listed >missing &&
	must_be_empty missing &&
	grep -F -f refs out | awk "\$2 != \"running\"" >notrunning &&
	must_be_empty notrunning
'

test_expect_success PYTHON "list --json shows all $TOTAL, in two engine calls" '
	: >"$CALLS" &&
	cb --json list >out &&
	calls_were "ps inspect" &&
	json_check out "set(open(\"refs\").read().split()) <= {w[\"workspace\"] for w in d[\"workspaces\"] if w[\"state\"] == \"running\"}"
'

test_expect_success "each is usable: an exec in each, $N at once, each with its own output" '
	t0=$EPOCHREALTIME &&
	pids=() &&
	for p in $(seq 1 $N); do
		{
			for r in $(cat "ref.$p"); do
				cb -w "$r" exec -- sh -c "echo \"\$1 \$(hostname)\"" sh "$r" >>"got.$p" 2>>"xerr.$p" ||
					echo "exec in $r failed: $?" >>"xerr.$p"
			done &
		} &&
		pids+=($!) || return 1
	done &&
	for p in "${pids[@]}"; do
		wait_exit 240 "$p" || return 1
	done &&
	echo "$TOTAL exec by $N processes: $(took "$t0") s" &&
	cat xerr.* >xerr &&
	must_be_empty xerr &&
	for p in $(seq 1 $N); do
		awk "{ print \$1 }" "got.$p" >said &&
		cmp_file "ref.$p" said || return 1
	done &&
	cat got.* | awk "{ print \$2 }" | sort -u >hosts &&
	line_count $TOTAL hosts
'

test_expect_success ALONE "destroy --all removes all $TOTAL in three engine calls: ps, inspect, rm" '
	alone &&
	: >"$CALLS" &&
	t0=$EPOCHREALTIME &&
	cb destroy --all >out 2>err &&
	echo "destroy --all: $(took "$t0") s" &&
	must_be_empty err &&
	calls_were "ps inspect rm" &&
	sed "s/^/removed /" refs >expect &&
	sort out >sorted &&
	cmp_file expect sorted &&
	no_workspace_left
'

test_expect_success "destroy by ref removes what is left of the $TOTAL, in two engine calls at most: inspect, rm" '
	: >"$CALLS" &&
	t0=$EPOCHREALTIME &&
	cb destroy $(cat refs) >out 2>err &&
	echo "destroy of $(wc -l <out) by ref: $(took "$t0") s" &&
	must_be_empty err &&
	no_workspace_left &&
	sed -n "1p; 2p" "$CALLS" >first &&
	cmp_file "$CALLS" first &&
	no_grep_file -v -x -e inspect -e rm "$CALLS"
'

test_done
