#!/bin/bash
# Many at once: 50 exec into one workspace, 20 workspaces created from 20
# processes. Every result is its own, the ID cache stays whole (each
# entry is replaced atomically), and nothing is left behind. On Podman,
# half as many (25 and 10): what is tested is sandbox's own part, the
# results and the cache, and a Podman exec costs two Podman processes
# (its client, and the cleanup conmon starts after it) where Docker's
# costs one client.
. "$(dirname "$0")/../lib.sh"
image_independent
need_engine

# cache_entry REF: the ID cache's file for REF.
cache_entry() { printf '%s/.cache/sandbox/ids/%s-%s\n' "$HOME" "$ENGINE" "$1"; }

# cache_whole REF: the cache entry is the container's full ID, then its
# workdir: nothing torn, nothing mixed.
cache_whole() {
	local f id
	f=$(cache_entry "$1")
	id=$(eng container inspect --format '{{.Id}}' "$1") || return 1
	printf '%s\n/workspace\n' "$id" >cache.expect &&
	cmp_file cache.expect "$f"
}

test_expect_success 'setup: a workspace, not yet in the cache' '
	new_ws REF &&
	rm -f "$(cache_entry "$REF")"
'

# What is tested is that no result is mixed with another's, not the
# engine's pace: 50 engine processes at once on a loaded 2-core machine
# can take longer to start than the default engine_timeout (60 s), so
# the deadline here is far away; t36 tests it.
printf '[sandbox]\nengine_timeout = 600\n' >"$TRASH/slow.ini"

EXECS=50 CREATES=20
if [ "$ENGINE" = podman ]; then EXECS=25 CREATES=10; fi

test_expect_success "$EXECS exec at once into one workspace: each gets its own output and status" '
	pids=() &&
	for i in $(seq 1 $EXECS); do
		{ SANDBOX_CONFIG=$TRASH/slow.ini sb -w "$REF" exec -- sh -c "echo out-$i; echo err-$i >&2; exit $((i % 7))" \
			>"out.$i" 2>"err.$i" & } &&
		pids+=($!) || return 1
	done &&
	for i in $(seq 1 $EXECS); do
		{ expect_status $((i % 7)) wait_exit 700 "${pids[$((i - 1))]}" || { cat "err.$i" >&4; false; }; } &&
		cmp_text "out-$i" "out.$i" &&
		cmp_text "err-$i" "err.$i" || return 1
	done &&
	cache_whole "$REF"
'

test_expect_success 'no wrapper of theirs is left running in the workspace' '
	! has_proc "$REF" "echo out-[0-9]"
'

test_expect_success "$CREATES workspaces created at once from $CREATES processes: $CREATES refs, each works, each cached whole" '
	pids=() &&
	for i in $(seq 1 $CREATES); do
		{ sb create --image "$IMAGE" >"ref.$i" 2>"cerr.$i" & } &&
		pids+=($!) || return 1
	done &&
	for i in $(seq 1 $CREATES); do
		wait_exit 180 "${pids[$((i - 1))]}" || { cat "cerr.$i" >&4; return 1; }
	done &&
	cat ref.* | sort -u >refs &&
	line_count $CREATES refs &&
	while read -r r; do
		sb -w "$r" exec -- echo "in $r" >got &&
		cmp_text "in $r" got &&
		cache_whole "$r" || return 1
	done <refs
'

test_expect_success "and all $CREATES destroyed at once: none left, no cache entry left" '
	pids=() &&
	while read -r r; do
		{ sb destroy "$r" >/dev/null & } &&
		pids+=($!) || return 1
	done <refs &&
	for p in "${pids[@]}"; do
		wait_exit 120 "$p" || return 1
	done &&
	while read -r r; do
		ctr_gone "$r" &&
		test ! -e "$(cache_entry "$r")" || return 1
	done <refs
'

test_done
