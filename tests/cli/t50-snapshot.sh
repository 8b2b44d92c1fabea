#!/bin/bash
# Snapshots: snapshot, snapshots, create --from (run, the from key),
# fork, destroy --snapshot.
#
# Every snapshot made here is named $PFX-... (a default name starts with
# its workspace's name, so those workspaces are named $PFX-... too): the
# cleanup of lib.sh removes them, and the runner checks none is left.
. "$(dirname "$0")/../lib.sh"
image_independent
need_engine

# label IMAGE KEY: the value of a label of an image ("" when none).
label() {
	eng image inspect --format "{{with .Config.Labels}}{{index . \"$2\"}}{{end}}" "$1" 2>/dev/null |
		sed "s/<no value>//"
}
# snap_exists NAME: the image sandbox-snapshot:NAME is there.
snap_exists() { eng image inspect "sandbox-snapshot:$1" >/dev/null 2>&1; }

test_expect_success 'setup: a workspace with a workdir of its own, a file, and a bind mount' '
	SRC=$(new_name src) &&
	mkdir mnt &&
	echo on-host >mnt/h &&
	new_ws SRC_REF --name "$SRC" --workdir /src --mount "$TRASH/mnt:/mnt" &&
	check "ref $SRC_REF" test "$SRC_REF" = "$SRC" &&
	sb -w "$SRC" exec -c "echo hello >f && mkdir -p /opt/deep && echo deep >/opt/deep/g"
'

test_expect_success 'snapshot --name: prints NAME; stderr names the bind mount' '
	S1=$(new_name s1) &&
	sb snapshot "$SRC" --name "$S1" >out 2>err &&
	cmp_text "$S1" out &&
	cmp_text "sandbox: snapshot: not in the snapshot: the bind mount $TRASH/mnt at /mnt (its files are not in the image)" err &&
	snap_exists "$S1"
'

test_expect_success 'the snapshot carries our labels, not those of a workspace' '
	check "snapshot: $(label "sandbox-snapshot:$S1" sandbox.snapshot)" \
		test "$(label "sandbox-snapshot:$S1" sandbox.snapshot)" = true &&
	check "of" test "$(label "sandbox-snapshot:$S1" sandbox.snapshot.of)" = "$SRC" &&
	check "workdir" test "$(label "sandbox-snapshot:$S1" sandbox.workdir)" = /src &&
	check "workspace label empty" test -z "$(label "sandbox-snapshot:$S1" sandbox.workspace)" &&
	check "nonce empty" test -z "$(label "sandbox-snapshot:$S1" sandbox.nonce)" &&
	created=$(label "sandbox-snapshot:$S1" sandbox.snapshot.created) &&
	now=$(now_s) &&
	check "created $created" test "$created" -le "$now" -a "$created" -gt $((now - 600))
'

test_expect_success 'a container run from the snapshot by hand runs its arguments, and is no workspace' '
	H=$(new_name byhand) &&
	eng run --rm "sandbox-snapshot:$S1" cat /src/f >out &&
	cmp_text hello out &&
	eng run -d --name "$H" "sandbox-snapshot:$S1" sleep 100000 >/dev/null &&
	expect_status 255 sb -w "$H" exec -- true 2>err &&
	cmp_text "sandbox: exec: container $H has no label sandbox.workspace=true; refusing to touch it" err &&
	eng_rm "$H"
'

test_expect_success PYTHON 'snapshot --json: the snapshot, its image and what it leaves out' '
	S2=$(new_name s2) &&
	sb --json snapshot "$SRC" --name "$S2" >out 2>err &&
	must_be_empty err &&
	json_check out "d[\"workspace\"] == \"$SRC\" and d[\"snapshot\"] == \"$S2\" and d[\"image\"] == \"sandbox-snapshot:$S2\"" &&
	json_check out "len(d[\"image_id\"]) >= 12 and d[\"not_in_snapshot\"] == [{\"type\": \"bind\", \"source\": \"$TRASH/mnt\", \"destination\": \"/mnt\"}]"
'

test_expect_success 'snapshot: a name taken is refused, and the snapshot stays as it was' '
	id=$(eng image inspect --format "{{.Id}}" "sandbox-snapshot:$S1") &&
	expect_status 1 sb snapshot "$SRC" --name "$S1" >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: snapshot: snapshot $S1 exists already; pick another --name, or remove it with ${SQ}sandbox destroy --snapshot $S1${SQ}" err &&
	check "same image" test "$(eng image inspect --format "{{.Id}}" "sandbox-snapshot:$S1")" = "$id"
'

test_expect_success 'snapshot --name: only a name of letters, digits, _ . - is taken' '
	for bad in -x "a b" a:b a/b .a "$(printf "%0129d" 0)"; do
		expect_status 2 sb snapshot "$SRC" --name "$bad" >out 2>err &&
		grep_file "expected a snapshot${SQ}s name" err &&
		must_be_empty out || return 1
	done
'

test_expect_success 'snapshot without --name: REF-DATE-TIME-XXXX, from -w' '
	sb -w "$SRC" snapshot >out 2>err &&
	grep_file -E "^$SRC-[0-9]{8}-[0-9]{6}-[0-9a-f]{4}\$" out &&
	line_count 1 out &&
	line_count 1 err &&
	snap_exists "$(cat out)"
'

test_expect_success 'snapshot of a container that is no workspace, or of none: refused' '
	F=$(new_name foreign) &&
	foreign_ctr "$F" &&
	expect_status 255 sb snapshot "$F" --name "$(new_name f)" >out 2>err &&
	cmp_text "sandbox: snapshot: container $F has no label sandbox.workspace=true; refusing to touch it" err &&
	expect_status 255 sb snapshot "$(new_name none)" --name "$(new_name n)" 2>err &&
	cmp_text "sandbox: snapshot: workspace $(new_name none) does not exist" err &&
	check "no snapshot made" eval "! snap_exists $(new_name f)" &&
	expect_status 2 sb snapshot 2>err &&
	cmp_text "sandbox: snapshot: which workspace? give its ref, or -w REF" err
'

test_expect_success 'snapshot of a stopped workspace: it stays stopped' '
	ST=$(new_name stopped) &&
	new_ws ST_REF --name "$ST" &&
	sb -w "$ST" exec -c "echo was-here >/tmp/x" &&
	sb stop "$ST" >/dev/null &&
	sb snapshot "$ST" --name "$(new_name s3)" >out 2>err &&
	must_be_empty err &&
	check "exited: $(ctr_state "$ST")" test "$(ctr_state "$ST")" = exited &&
	eng run --rm "sandbox-snapshot:$(new_name s3)" cat /tmp/x >out &&
	cmp_text was-here out
'

test_expect_success 'snapshots: a header, then ours with the workspace it came from' '
	sb snapshots >out 2>err &&
	must_be_empty err &&
	head -n 1 out >first &&
	printf "%-40s %-24s %-6s %s\n" NAME WORKSPACE AGE SIZE >expect &&
	cmp_file expect first &&
	awk -v n="$S1" "\$1 == n" out >line &&
	line_count 1 line &&
	read -r name of age size <line &&
	check "of $of" test "$of" = "$SRC" &&
	check "age $age" eval "echo \"\$age\" | grep -Eq \"^[0-9]+[smhd]$\"" &&
	check "size $size" eval "echo \"\$size\" | grep -Eq \"^[0-9.]+[KMG]$\""
'

test_expect_success 'snapshots: an image of our repository without the label is not one' '
	FI=$(new_name foreign-image) &&
	names_locked_ eng tag "$IMAGE" "sandbox-snapshot:$FI" &&
	sb snapshots >out &&
	no_grep_file "^$FI " out
'

test_expect_success PYTHON 'snapshots --json: name, image, workspace, workdir, created, size' '
	sb --json snapshots >out &&
	json_check out "[(s[\"image\"], s[\"workspace\"], s[\"workdir\"]) for s in d[\"snapshots\"] if s[\"snapshot\"] == \"$S1\"] == [(\"sandbox-snapshot:$S1\", \"$SRC\", \"/src\")]" &&
	json_check out "all(s[\"size\"] > 0 and s[\"age_s\"] >= 0 and len(s[\"id\"]) >= 12 for s in d[\"snapshots\"] if s[\"snapshot\"] == \"$S1\")" &&
	json_check out "not [s for s in d[\"snapshots\"] if s[\"snapshot\"] == \"$FI\"]"
'

test_expect_success 'create --from: the files and the workdir of the snapshot, not the mount' '
	new_ws C1 --from "$S1" --name "$(new_name c1)" &&
	sb -w "$C1" exec -c "pwd; cat f /opt/deep/g; ls -A /mnt" >out &&
	printf "%s\n" /src hello deep >expect &&
	cmp_file expect out &&
	sb list >out &&
	awk -v r="$C1" "\$1 == r { print \$3 }" out >image &&
	grep_file -E "^(localhost/)?sandbox-snapshot:$S1\$" image
'

test_expect_success 'create --from --workdir: the workdir given wins' '
	new_ws C2 --from "$S1" --workdir /other --name "$(new_name c2)" &&
	sb -w "$C2" exec -c "pwd; cat /src/f" >out &&
	printf "%s\n" /other hello >expect &&
	cmp_file expect out
'

test_expect_success 'run --from: one command in a workspace of the snapshot' '
	sb run --from "$S1" --name "$(new_name r1)" -- cat f >out 2>err &&
	cmp_text hello out &&
	ctr_gone "$(new_name r1)"
'

test_expect_success 'create --from a name that is no snapshot: one line, nothing created' '
	expect_status 1 sb create --from "$(new_name nothing)" --name "$(new_name c3)" >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: create: no snapshot $(new_name nothing); ${SQ}sandbox snapshots${SQ} lists them" err &&
	ctr_gone "$(new_name c3)" &&
	expect_status 2 sb create --from "a:b" 2>err &&
	grep_file "expected a snapshot${SQ}s name" err
'

test_expect_success 'create --from an image of our repository without the label: refused' '
	expect_status 1 sb create --from "$FI" --name "$(new_name c4)" >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: create: image sandbox-snapshot:$FI has no label sandbox.snapshot=true; refusing to use it as a snapshot" err &&
	ctr_gone "$(new_name c4)"
'

test_expect_success 'destroy --snapshot of an image without the label: refused, it stays' '
	expect_status 1 sb destroy --snapshot "$FI" >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: destroy: image sandbox-snapshot:$FI has no label sandbox.snapshot=true; refusing to remove it" err &&
	check "still there" snap_exists "$FI" &&
	names_locked_ eng image rm "sandbox-snapshot:$FI" >/dev/null
'

test_expect_success 'the config key from; --image on the command line replaces it' '
	printf "[sandbox]\nfrom = %s\n" "$S1" >from.ini &&
	C5=$(sb --config from.ini create --name "$(new_name c5)") &&
	sb -w "$C5" exec -- cat f >out &&
	cmp_text hello out &&
	C6=$(sb --config from.ini create --image "$IMAGE" --name "$(new_name c6)") &&
	expect_status 1 sb -w "$C6" exec -- cat /src/f 2>/dev/null
'

test_expect_success 'exec without a workspace creates one from the config key from' '
	sb --config from.ini exec -- cat f >out 2>err &&
	cmp_text hello out &&
	grep_file -E "^sandbox: created workspace sandbox-[0-9a-f]{12} " err &&
	C7=$(sed -n "s/^sandbox: created workspace \([^ ]*\) .*/\1/p" err) &&
	sb destroy "$C7" >/dev/null
'

test_expect_success 'fork: prints the new ref; the new workspace has the files; the mount is named' '
	FK=$(new_name fork1) &&
	sb fork "$SRC" --name "$FK" >out 2>err &&
	cmp_text "$FK" out &&
	cmp_text "sandbox: fork: not in the snapshot: the bind mount $TRASH/mnt at /mnt (its files are not in the image)" err &&
	sb -w "$FK" exec -c "pwd; cat f" >out &&
	printf "%s\n" /src hello >expect &&
	cmp_file expect out &&
	sb -w "$SRC" exec -c "echo changed >f" &&
	sb -w "$FK" exec -- cat f >out &&
	cmp_text hello out
'

test_expect_success PYTHON 'fork --json: the new workspace, its source and the snapshot' '
	FK2=$(new_name fork2) &&
	sb --json fork "$SRC" --name "$FK2" >out 2>err &&
	must_be_empty err &&
	json_check out "d[\"workspace\"] == \"$FK2\" and d[\"source\"] == \"$SRC\" and len(d[\"id\"]) >= 12" &&
	json_check out "d[\"snapshot\"].startswith(\"$SRC-\") and d[\"image\"] == \"sandbox-snapshot:\" + d[\"snapshot\"]" &&
	json_check out "[m[\"destination\"] for m in d[\"not_in_snapshot\"]] == [\"/mnt\"]" &&
	sb -w "$FK2" exec -- cat f >out &&
	cmp_text changed out
'

test_expect_success 'fork takes no --image, --from or --copy' '
	for opt in --image --from --copy --workdir; do
		expect_status 2 sb fork "$SRC" "$opt" x >out 2>err &&
		grep_file "unknown option ${SQ}$opt${SQ} for fork" err || return 1
	done
'

test_expect_success 'fork whose create fails: the snapshot stays, and the message says so' '
	expect_status 1 sb fork "$SRC" --name "$SRC" >out 2>err &&
	must_be_empty out &&
	grep_file "; the snapshot $SRC-[0-9-]*[0-9a-f]* stays (${SQ}sandbox destroy --snapshot $SRC-" err &&
	line_count 1 err
'

test_expect_success 'destroy --snapshot of a snapshot in use: refused, it stays' '
	expect_status 1 sb destroy --snapshot "$S1" >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: destroy: snapshot $S1 is in use by a container (a workspace created from it?); destroy that first" err &&
	snap_exists "$S1"
'

test_expect_success 'destroy --snapshot: removed once its workspaces are gone' '
	sb destroy "$C1" "$C2" "$C5" >/dev/null &&
	sb destroy --snapshot "$S1" >out 2>err &&
	cmp_text "removed snapshot $S1" out &&
	must_be_empty err &&
	check "gone" eval "! snap_exists $S1"
'

test_expect_success 'destroy --snapshot of one that is not there: exit 1' '
	expect_status 1 sb destroy --snapshot "$S1" >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: destroy: no snapshot $S1; ${SQ}sandbox snapshots${SQ} lists them" err
'

test_expect_success PYTHON 'destroy --snapshot --json' '
	sb --json destroy --snapshot "$S2" >out &&
	json_check out "d == {\"removed_snapshot\": \"$S2\"}"
'

test_expect_success 'destroy --snapshot with refs or --all: a usage error, nothing removed' '
	expect_status 2 sb destroy --snapshot "$(new_name s3)" "$SRC" 2>err &&
	grep_file "removes a snapshot alone" err &&
	expect_status 2 sb destroy --snapshot "$(new_name s3)" --all 2>err &&
	grep_file "removes a snapshot alone" err &&
	snap_exists "$(new_name s3)" &&
	ctr_exists "$SRC"
'

test_expect_success 'a workspace without mounts: nothing on stderr' '
	sb snapshot "$ST" --name "$(new_name s4)" >out 2>err &&
	must_be_empty err
'

test_expect_success 'a sparse file over snapshot_max: refused in one line, nothing committed, the workspace runs on' '
	BIG=$(new_name big) &&
	new_ws BIG_REF --name "$BIG" &&
	sb -w "$BIG" exec -c "dd if=/dev/zero of=/sparse bs=1 count=0 seek=1G 2>/dev/null" &&
	expect_status 1 sb snapshot "$BIG" --name "$(new_name big1)" --snapshot-max 100m >out 2>err &&
	must_be_empty out &&
	line_count 1 err &&
	grep_file -E "^sandbox: snapshot: workspace $BIG: its changed files come to [0-9]{10} bytes \(a sparse file counts in full\), more than snapshot_max, 104857600; nothing committed: remove files, or pass --snapshot-max\$" err &&
	check "no snapshot" eval "! snap_exists $(new_name big1)" &&
	check "no image of it" test -z "$(eng images -q --filter label=sandbox.snapshot.of="$BIG")" &&
	check "running: $(ctr_state "$BIG")" test "$(ctr_state "$BIG")" = running &&
	sb -w "$BIG" exec -- true
'

test_expect_success 'snapshot_max from the config; fork is refused the same, and creates nothing' '
	printf "[sandbox]\nsnapshot_max = 1m\n" >max.ini &&
	expect_status 1 sb --config max.ini fork "$BIG" --name "$(new_name big2)" >out 2>err &&
	line_count 1 err &&
	grep_file "more than snapshot_max, 1048576; nothing committed" err &&
	ctr_gone "$(new_name big2)" &&
	check "no image of it" test -z "$(eng images -q --filter label=sandbox.snapshot.of="$BIG")" &&
	check "running: $(ctr_state "$BIG")" test "$(ctr_state "$BIG")" = running &&
	expect_status 2 sb snapshot "$BIG" --snapshot-max 1x 2>err &&
	grep_file "snapshot_max ${SQ}1x${SQ}: expected a size like 500m or 4g (0: no limit)" err
'

test_expect_success 'snapshot of a paused workspace: refused, it stays paused' '
	eng pause "$BIG" >/dev/null &&
	expect_status 1 sb snapshot "$BIG" --name "$(new_name p1)" >out 2>err &&
	line_count 1 err &&
	grep_file -E "^sandbox: snapshot: workspace $BIG is paused \(by a snapshot under way\?\); try again when it is done, or ${SQ}[^ ]*$ENGINE unpause $BIG${SQ} first\$" err &&
	check "paused: $(ctr_state "$BIG")" test "$(ctr_state "$BIG")" = paused &&
	eng unpause "$BIG" >/dev/null
'

# An engine whose commit waits for the file go (a minute at most), and
# says it is under way by the file committing: an interrupt then comes
# during the commit, not by luck.
commit_gate() {
	mkdir -p gated && rm -f gated/committing gated/go &&
	printf "#!/bin/sh\nif [ \"\$1\" = commit ]; then : >%s/gated/committing; i=0; while [ ! -e %s/gated/go ] && [ \$i -lt 600 ]; do sleep 0.1; i=\$((i + 1)); done; fi\nexec %s \"\$@\"\n" \
		"$PWD" "$PWD" "$(command -v "$ENGINE")" >"gated/$ENGINE" &&
	chmod +x "gated/$ENGINE"
}

test_expect_success 'snapshot interrupted during its commit: the workspace is unpaused, exit 130' '
	sb -w "$BIG" exec -c "rm -f /sparse" &&
	commit_gate &&
	set -m &&
	{ PATH=$PWD/gated:$PATH "$SANDBOX" --engine "$ENGINE" snapshot "$BIG" --name "$(new_name int1)" >out 2>err & pid=$!; } &&
	set +m &&
	wait_until 60 test -e gated/committing &&
	check "paused: $(ctr_state "$BIG")" test "$(ctr_state "$BIG")" = paused &&
	kill -INT $pid &&
	expect_status 130 wait_exit 60 $pid &&
	cat err &&
	check "running: $(ctr_state "$BIG")" test "$(ctr_state "$BIG")" = running &&
	sb -w "$BIG" exec -- true &&
	check "no snapshot" eval "! snap_exists $(new_name int1)"
'

test_expect_success 'setup: an image REGISTRY/PATH/sandbox-snapshot:NAME with our labels, not ours' '
	T2=$(new_name t2) &&
	EVIL=localhost/${PFX}x/sandbox-snapshot:$T2 &&
	eng commit --change "LABEL sandbox.snapshot=true" --change "LABEL sandbox.workdir=/etc" "$SRC" "$EVIL" >/dev/null
'

test_expect_success 'create --from and destroy --snapshot do not take it for snapshot NAME' '
	expect_status 1 sb create --from "$T2" --name "$(new_name c8)" >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: create: no snapshot $T2; ${SQ}sandbox snapshots${SQ} lists them" err &&
	ctr_gone "$(new_name c8)" &&
	expect_status 1 sb destroy --snapshot "$T2" >out 2>err &&
	cmp_text "sandbox: destroy: no snapshot $T2; ${SQ}sandbox snapshots${SQ} lists them" err &&
	eng image inspect "$EVIL" >/dev/null &&
	sb snapshots >out &&
	no_grep_file "^$T2 " out
'

if [ "$ENGINE" = podman ]; then test_set_prereq PODMAN; fi
test_expect_success PODMAN 'podman under another name: the short name finds it, and the name check refuses it' '
	mkdir -p other-bin &&
	ln -sf "$(command -v podman)" other-bin/engine &&
	expect_status 1 "$SANDBOX" --engine "$TRASH/other-bin/engine" create --from "$T2" >out 2>err &&
	cmp_text "sandbox: create: no snapshot $T2: the image the engine found is not named sandbox-snapshot:$T2; refusing to use it" err &&
	expect_status 1 "$SANDBOX" --engine "$TRASH/other-bin/engine" destroy --snapshot "$T2" >out 2>err &&
	cmp_text "sandbox: destroy: no snapshot $T2: the image the engine found is not named sandbox-snapshot:$T2; refusing to remove it" err &&
	eng image inspect "$EVIL" >/dev/null
'

test_expect_success 'cleanup: the image of another repository' '
	eng image rm "$EVIL" >/dev/null
'

test_expect_success 'an image of ours without a name is listed by its short ID; destroy --snapshot ID removes it' '
	LOST=$(eng commit --change "LABEL sandbox.snapshot=true" --change "LABEL sandbox.snapshot.of=$SRC" "$SRC") &&
	LOST=${LOST#sha256:} &&
	echo "$LOST" >>"$TRASH/lost-ids" &&
	sb snapshots >out &&
	grep_file "^${LOST:0:12} *$SRC " out &&
	sb destroy --snapshot "${LOST:0:12}" >out &&
	cmp_text "removed snapshot ${LOST:0:12}" out &&
	check "gone" eval "! eng image inspect $LOST >/dev/null 2>&1"
'

test_expect_success PYTHON 'two snapshots given one name at once: each image is listed, none is lost' '
	CC=$(new_name cc) &&
	{ sb snapshot "$SRC" --name "$CC" >out1 2>err1 & } &&
	{ sb snapshot "$ST" --name "$CC" >out2 2>err2; echo $? >st2; } &&
	wait &&
	cat err1 err2 &&
	snap_exists "$CC" &&
	for f in err1 err2; do
		grep -v "^sandbox: snapshot: not in the snapshot: " "$f" >"$f.rest"
		test ! -s "$f.rest" ||
		grep -Eqx "sandbox: snapshot: snapshot $CC( exists already; pick another --name, or remove it .*| exists already \(made meanwhile\); pick another --name|: another snapshot took the name at the same time; pick another --name)" "$f.rest" || return 1
	done &&
	check "no tmp- name left" test -z "$({ eng images --format "{{.Tag}}" --filter label=sandbox.snapshot.of="$SRC" &&
		eng images --format "{{.Tag}}" --filter label=sandbox.snapshot.of="$ST"; } | grep "^tmp-")" &&
	{ eng images -q --no-trunc --filter label=sandbox.snapshot.of="$SRC" &&
	  eng images -q --no-trunc --filter label=sandbox.snapshot.of="$ST"; } | sed "s/^sha256://" | sort -u >made &&
	sb --json snapshots >list &&
	python3 -c "import json, sys
listed = {s[\"id\"] for s in json.load(open(\"list\"))[\"snapshots\"]}
made = open(\"made\").read().split()
unlisted = [i for i in made if i not in listed]
sys.exit(\"not listed: %s\" % unlisted if unlisted else 0)"
'

# The images of this file's workspaces that lib.sh's cleanup does not
# find by name: those of no name, and any left under a tmp- name.
test_expect_success 'cleanup: the images of no name, or a tmp- name' '
	for ws in "$SRC" "$ST" "$BIG"; do
		eng images --no-trunc --filter label=sandbox.snapshot.of="$ws" --format "{{.ID}} {{.Repository}}:{{.Tag}}"
	done | while read -r id ref; do
		case $ref in
		"<none>:<none>") eng image rm "$id" ;;
		*:tmp-*) eng image rm "$ref" ;;
		esac >/dev/null 2>&1
	done
	sort -u "$TRASH/lost-ids" 2>/dev/null | while read -r id; do
		eng image rm "$id" >/dev/null 2>&1
	done
	true
'

test_done
