#!/bin/bash
# Snapshots: snapshot, snapshots, create --from (run, the from key),
# fork, destroy --snapshot.
#
# Every snapshot made here is named $PFX-... (a default name starts with
# its workspace's name, so those workspaces are named $PFX-... too): the
# cleanup of lib.sh removes them, and the runner checks none is left.
. "$(dirname "$0")/../lib.sh"
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
	eng tag "$IMAGE" "sandbox-snapshot:$FI" &&
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
	eng image rm "sandbox-snapshot:$FI" >/dev/null
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

test_done
