#!/bin/bash
# Copy workspaces: create --copy DIR puts a real source tree (this
# project's own, its src/ flattened into one folder as the tests below
# name its files) in the workdir, less what --exclude and .sandboxignore
# leave out; the workspace changes it with edit, write and exec (new,
# changed, deleted, chmod, symlink, binary); diff says what changed, hunk
# for hunk what diff -ruN says of the same two trees; apply writes it
# into DIR, after which DIR is the workspace's tree byte for byte; a path
# DIR changed too is a conflict; a workspace that forges its listing,
# and a link in DIR on the way, never get a byte written outside DIR.
. "$(dirname "$0")/../lib.sh"
pairwise
also_on_gvisor
need_engine

CLIENT=$(cd "$(dirname "$0")/.." && pwd)/mcp-client

# in_ws REF SCRIPT: runs SCRIPT as root in REF's /workspace, behind
# sandbox's back.
in_ws() { eng exec -u 0 -w /workspace "$1" sh -c "$2"; }

# hunks FILE: the lines of a unified diff that say what changed, in
# order (no headers, whose labels and times differ between diff tools);
# "Binary files X and Y differ" as "Binary".
hunks() {
	grep -E '^(@@|[-+ ]|\\|Binary files)' "$1" | grep -Ev '^(---|\+\+\+) ' |
		sed 's/^Binary files .*/Binary/'
}

# listing DIR: every entry with its type, mode, size (files) and link
# target, sorted.
listing() {
	(cd "$1" && find . -mindepth 1 -printf "%p %y %m %s %l\n" | LC_ALL=C sort |
		awk "{ if (\$2 == \"d\" || \$2 == \"l\") \$4 = \"-\"; print }")
}

# ws_tree REF DEST: the workspace's workdir, copied out to DEST.
ws_tree() { rm -rf "$2" && sb -w "$1" cp :/workspace/. "$2" >/dev/null; }

# forge REF NAME: from now on, the listing script of REF (whose /bin/sh
# is rewriting_sh) names NAME first.
forge() {
	REF=$1 answer_with "$(printf 'echo OK\nfind')" "$(printf 'echo OK; printf "%s\\000"\nfind' "$2")"
}

baselines() { ls "$XDG_STATE_HOME/sandbox/copies" 2>/dev/null | grep -vc "\.review$"; }

test_expect_success 'setup: a real source tree, with a binary file, a link, an exec bit and things to leave out' '
	mkdir proj &&
	mkdir proj/src && cp "$REPO_DIR"/src/*/*.[ch] proj/src/ &&
	cp -R "$REPO_DIR/man" proj/ &&
	mkdir -p proj/tests && cp -R "$REPO_DIR/tests/unit" proj/tests/ &&
	head -c 5000 /dev/urandom >proj/blob.bin &&
	printf "#!/bin/sh\necho hi\n" >proj/run.sh && chmod 755 proj/run.sh &&
	ln -s src/main.c proj/main-link &&
	printf "no newline at the end" >proj/last.txt &&
	mkdir -p proj/build proj/old && echo junk >proj/build/out.o && echo old >proj/old/gone.txt &&
	echo tmp >proj/src/scratch.o &&
	printf "# build output\n*.o\n\n/build/\n" >proj/.sandboxignore &&
	mkdir proj/.git && echo "ref: refs/heads/main" >proj/.git/HEAD &&
	cp -R proj pristine
'

test_expect_success 'create --copy: the tree is in the workdir, less what the patterns leave out; nothing changed yet' '
	new_ws REF --copy proj --exclude "old/gone.txt" &&
	test "$(baselines)" = 1 &&
	ws_tree "$REF" first &&
	(cd pristine && rm -rf build src/scratch.o old/gone.txt) &&
	listing pristine >expect && listing first >actual &&
	cmp_file expect actual &&
	diff -r pristine first &&
	sb -w "$REF" diff >out 2>err &&
	must_be_empty out && must_be_empty err &&
	sb -w "$REF" diff --json >out &&
	json_check out "d[\"changed\"] is False and d[\"changes\"] == [] and d[\"dir\"].endswith(\"/proj\")"
'
# pristine is now what the workspace got: the "before" of the diffs.

test_expect_success 'the workspace changes its copy: edit, write and exec' '
	sb -w "$REF" edit src/main.c --old "int main(" --new "int main2(" >/dev/null &&
	printf "new file\nline 2\n" | sb -w "$REF" write src/new.c >/dev/null &&
	sb -w "$REF" exec -- sh -c "rm man/sandbox.ini.5 && chmod +x src/util.c && chmod -x run.sh &&
		ln -sf src/util.c main-link && head -c 100 /dev/zero >>blob.bin &&
		mkdir -p newdir/deep && echo deep >newdir/deep/f.txt && printf \"x\" >>last.txt &&
		rm -r tests/unit/golden && mv src/json.h src/json2.h && mkdir build && echo again >build/out.o &&
		: >empty.txt"
'

test_expect_success 'diff: exit 1, and hunk for hunk what diff -ruN says of the two trees' '
	expect_status 1 sb -w "$REF" diff >ours 2>err &&
	grep -c . err >n && cmp_text 1 n &&
	grep_file -E "^sandbox: diff: review [0-9a-f]{64}: to write exactly these changes, sandbox apply -w $REF --expect [0-9a-f]{64}$" err &&
	ws_tree "$REF" after &&
	rm -r after/build &&
	for t in pristine after; do
		l=$(readlink $t/main-link) && rm $t/main-link && printf %s "$l" >$t/main-link || return 1
	done &&
	(diff -ruN pristine after >theirs; test $? = 1) &&
	hunks theirs >want && hunks ours >got &&
	test -s want &&
	cmp_file want got
'

test_expect_success 'diff: git-style headers for new, deleted, mode, link and binary changes' '
	expect_status 1 sb -w "$REF" diff >d &&
	grep_file -x "diff --git a/src/new.c b/src/new.c" d &&
	grep_file -A1 -x "diff --git a/src/new.c b/src/new.c" d &&
	grep -A2 -x "diff --git a/src/new.c b/src/new.c" d >part &&
	cmp_text "diff --git a/src/new.c b/src/new.c
new file mode 100644
--- /dev/null" part &&
	grep -A1 -x "diff --git a/man/sandbox.ini.5 b/man/sandbox.ini.5" d >part &&
	grep_file -x "deleted file mode 100644" part &&
	grep -A2 -x "diff --git a/run.sh b/run.sh" d >part &&
	cmp_text "diff --git a/run.sh b/run.sh
old mode 100755
new mode 100644" part &&
	grep_file -x "Binary files a/blob.bin and b/blob.bin differ" d &&
	grep -A7 -x "diff --git a/main-link b/main-link" d >part &&
	cmp_text "diff --git a/main-link b/main-link
--- a/main-link
+++ b/main-link
@@ -1 +1 @@
-src/main.c
\\ No newline at end of file
+src/util.c
\\ No newline at end of file" part &&
	no_grep_file "build/out.o" d
'

test_expect_success 'diff --name-only, --stat, a PATH, and --json' '
	expect_status 1 sb -w "$REF" diff --name-only >names &&
	grep_file -x "src/new.c" names && grep_file -x "newdir" names && grep_file -x "newdir/deep/f.txt" names &&
	grep_file -x "tests/unit/golden" names && grep_file -x "src/json.h" names && grep_file -x "src/json2.h" names &&
	no_grep_file "build" names &&
	expect_status 1 sb -w "$REF" diff --stat >stat &&
	grep_file -E "^ src/new.c +\| 2 \+\+$" stat &&
	grep_file -E "^ blob.bin +\| Bin$" stat &&
	grep_file -E "^ [0-9]+ paths changed, [0-9]+ insertions\(\+\), [0-9]+ deletions\(-\)$" stat &&
	expect_status 1 sb -w "$REF" diff src/new.c ./newdir/ >two &&
	grep -c "^diff --git" two >count && cmp_text 4 count &&
	grep -A1 -x "diff --git a/newdir/deep b/newdir/deep" two >part &&
	cmp_text "diff --git a/newdir/deep b/newdir/deep
new directory mode 040755" part &&
	expect_status 0 sb -w "$REF" diff src/main.h >none && must_be_empty none &&
	expect_status 1 sb -w "$REF" diff --json src >j &&
	json_check j "d[\"changed\"] and {c[\"path\"]: c[\"kind\"] for c in d[\"changes\"]} == {\"src/json.h\": \"deleted\", \"src/json2.h\": \"added\", \"src/main.c\": \"modified\", \"src/new.c\": \"added\", \"src/util.c\": \"mode\"} and all(\"@@\" in c[\"diff\"] or c[\"kind\"] == \"mode\" for c in d[\"changes\"])"
'

test_expect_success 'diff refuses a path out of the tree, and a workspace that is not a copy (status 2)' '
	expect_status 2 sb -w "$REF" diff ../x 2>err &&
	grep_file "give paths relative to the copy" err &&
	new_ws PLAIN &&
	expect_status 2 sb -w "$PLAIN" diff 2>err &&
	grep_file "is not a copy (create one with --copy DIR)" err &&
	expect_status 2 sb -w "$PLAIN" apply 2>err &&
	grep_file "is not a copy" err
'

test_expect_success 'apply --check says what it would do and writes nothing' '
	cp -R proj proj.before &&
	sb -w "$REF" apply --check >out 2>err &&
	grep_file -x "A src/new.c" out && grep_file -x "D man/sandbox.ini.5" out &&
	grep_file -x "M run.sh" out && grep_file -x "M main-link" out &&
	grep_file "would be written to" err &&
	diff -r --no-dereference proj.before proj
'

test_expect_success 'apply: DIR becomes the workspace tree byte for byte; what was left out stays; diff is empty after' '
	sb -w "$REF" apply >out 2>err &&
	grep_file "changes written to" err &&
	ws_tree "$REF" now &&
	rm -rf expect_tree && cp -R now expect_tree && rm -r expect_tree/build &&
	rm -rf proj.cmp && cp -R proj proj.cmp &&
	rm -rf proj.cmp/build proj.cmp/src/scratch.o proj.cmp/old/gone.txt &&
	listing expect_tree >want && listing proj.cmp >got &&
	cmp_file want got &&
	diff -r --no-dereference expect_tree proj.cmp &&
	test "$(cat proj/build/out.o)" = junk &&
	test -f proj/src/scratch.o && test -f proj/old/gone.txt &&
	test "$(readlink proj/main-link)" = src/util.c &&
	! ls -a proj | grep -q "^.sandbox-" &&
	sb -w "$REF" diff >out &&
	must_be_empty out
'

test_expect_success 'a path changed in DIR too is a conflict: nothing is written; --force writes it' '
	echo ours >>proj/src/util.h &&
	sb -w "$REF" exec -- sh -c "echo theirs >>src/util.h && echo fine >>src/util.c" &&
	cp proj/src/util.c util.c.before &&
	expect_status 1 sb -w "$REF" apply --check 2>err &&
	grep_file "src/util.h: changed in DIR since the copy" err &&
	expect_status 1 sb -w "$REF" apply >out 2>err &&
	must_be_empty out &&
	grep_file "src/util.h: changed in DIR since the copy" err &&
	grep_file "nothing was written" err &&
	cmp util.c.before proj/src/util.c &&
	tail -n 1 proj/src/util.h >last && cmp_text ours last &&
	expect_status 1 sb -w "$REF" diff src/util.h >d 2>err &&
	grep_file "src/util.h: changed in DIR since the copy (apply needs --force)" err &&
	sb -w "$REF" apply --force >out 2>err &&
	tail -n 1 proj/src/util.h >last && cmp_text theirs last &&
	tail -n 1 proj/src/util.c >last && cmp_text fine last
'

test_expect_success 'apply PATH writes only that path, and only it joins the baseline' '
	sb -w "$REF" exec -- sh -c "echo a >one.txt && echo b >two.txt" &&
	sb -w "$REF" apply one.txt >out &&
	cmp_text "A one.txt" out &&
	test -f proj/one.txt && ! test -e proj/two.txt &&
	expect_status 1 sb -w "$REF" diff --name-only >names &&
	cmp_text "two.txt" names &&
	sb -w "$REF" exec -- sh -c "mkdir -p pa/pb && echo f >pa/pb/f && chmod 700 src && echo n >src/n2.c" &&
	sb -w "$REF" apply pa/pb/f src/n2.c >out &&
	cmp_text "A pa
A pa/pb
A pa/pb/f
A src/n2.c" out &&
	test "$(stat -c %a proj/src)" = 755 &&
	expect_status 1 sb -w "$REF" diff --name-only src >names &&
	cmp_text src names
'

test_expect_success 'a name with a newline: quoted in the diff and the lines, written as it is by apply' '
	nl=$(printf "nl\nname") &&
	sb -w "$REF" exec -- sh -c "printf x >\"\$1\"" sh "$nl" &&
	expect_status 1 sb -w "$REF" diff "$nl" >d &&
	grep_file -x -F "diff --git \"a/nl\\nname\" \"b/nl\\nname\"" d &&
	expect_status 1 sb -w "$REF" diff --name-only "$nl" >names &&
	cmp_text "\"nl\\nname\"" names &&
	sb -w "$REF" apply "$nl" >out &&
	cmp_text "A \"nl\\nname\"" out &&
	test "$(cat "proj/$nl")" = x
'

test_expect_success 'a name GNU tar would unquote (p\t: a backslash and a t): diffed and applied as it is' '
	n="p\\t" &&
	sb -w "$REF" exec -- sh -c "printf x >\"\$1\"" sh "$n" &&
	expect_status 1 sb -w "$REF" diff "$n" >d &&
	grep_file -x "+x" d &&
	sb -w "$REF" apply "$n" >out &&
	test "$(cat "proj/$n")" = x &&
	test ! -e "proj/$(printf "p\t")"
'

test_expect_success 'hard links of the workspace are diffed and applied as files of their own' '
	sb -w "$REF" exec -- sh -c "echo more >>run.sh && ln run.sh hard1 && echo h >hard2 && ln hard2 hard3" &&
	expect_status 1 sb -w "$REF" diff --name-only run.sh hard1 hard2 hard3 >names &&
	cmp_text "hard1
hard2
hard3
run.sh" names &&
	expect_status 1 sb -w "$REF" diff hard3 >d &&
	grep_file -x "+h" d &&
	sb -w "$REF" apply run.sh hard1 hard2 hard3 >out &&
	tail -n 1 proj/hard1 >last && cmp_text more last &&
	cmp proj/run.sh proj/hard1 && cmp_text h proj/hard3 &&
	test "$(stat -c %i proj/hard2)" != "$(stat -c %i proj/hard3)" &&
	test "$(stat -c %i proj/run.sh)" != "$(stat -c %i proj/hard1)"
'

test_expect_success 'exact modes are shown, a directory'"'"'s too, and applied after what goes in it' '
	sb -w "$REF" exec -- sh -c "echo k >key && chmod 600 key && mkdir -p ro/sub && echo f >ro/sub/f && chmod 555 ro/sub && chmod 750 newdir" &&
	sb -w "$REF" apply key >/dev/null &&
	sb -w "$REF" exec -- chmod 644 key &&
	expect_status 1 sb -w "$REF" diff key newdir ro >d &&
	grep -A2 -x "diff --git a/key b/key" d >part &&
	cmp_text "diff --git a/key b/key
old mode 100600
new mode 100644" part &&
	grep -A2 -x "diff --git a/newdir b/newdir" d >part &&
	cmp_text "diff --git a/newdir b/newdir
old mode 040755
new mode 040750" part &&
	grep_file -x "new directory mode 040555" d &&
	sb -w "$REF" apply key newdir ro >/dev/null &&
	test "$(stat -c %a proj/key proj/newdir proj/ro/sub)" = "644
750
555" &&
	cmp_text f proj/ro/sub/f
'

test_expect_success 'apply never writes version-control metadata, --force or not; diff shows it refused' '
	sb -w "$REF" exec -- sh -c "mkdir -p .git/hooks sub/.hg && printf \"#!/bin/sh\\n\" >.git/hooks/post-checkout &&
		echo \"[core]\" >>.git/config && echo more >>.git/HEAD && echo x >sub/.hg/hgrc && echo gitdir: /x >sub/.git &&
		mkdir .GIT. && echo y >.GIT./config && echo fine >vcs-ok.txt" &&
	expect_status 1 sb -w "$REF" diff --name-only .git >names &&
	grep_file -x ".git/hooks/post-checkout" names &&
	expect_status 1 sb -w "$REF" diff --json >d &&
	json_check d "sorted(c[\"path\"] for c in d[\"changes\"] if c[\"refused\"]) == [\".GIT.\", \".GIT./config\", \".git/HEAD\", \".git/config\", \".git/hooks\", \".git/hooks/post-checkout\", \"sub/.git\", \"sub/.hg\", \"sub/.hg/hgrc\"]" &&
	json_check d "[c[\"refused\"] for c in d[\"changes\"] if c[\"path\"] in (\"sub\", \"vcs-ok.txt\")] == [False, False]" &&
	json_check d "[c for c in d[\"changes\"] if c[\"path\"] == \".git/HEAD\"][0][\"why\"].startswith(\"version-control metadata\")" &&
	cp -R proj proj.vcs &&
	expect_status 1 sb -w "$REF" apply 2>err &&
	grep_file ".git/config: version-control metadata" err &&
	grep_file ".git/hooks/post-checkout: version-control metadata" err &&
	grep_file "sub/.hg/hgrc: version-control metadata" err &&
	grep_file "nothing was written" err &&
	diff -r --no-dereference proj.vcs proj &&
	expect_status 1 sb -w "$REF" apply --force >out 2>err &&
	grep_file -x "A vcs-ok.txt" out && no_grep_file ".git" out && no_grep_file ".hg" out &&
	grep_file "the refused were not" err &&
	! test -e proj/.git/hooks && ! test -e proj/.git/config && ! test -e proj/sub/.hg &&
	! test -e proj/sub/.git && ! test -e proj/.GIT. &&
	cmp pristine/.git/HEAD proj/.git/HEAD &&
	sb -w "$REF" cp :/workspace/.git/config proj/.git/config >/dev/null &&
	sb -w "$REF" cp :/workspace/.git/hooks proj/.git/hooks >/dev/null &&
	sb -w "$REF" cp :/workspace/.git/HEAD proj/.git/HEAD >/dev/null &&
	sb -w "$REF" exec -- rm -r sub/.hg sub/.git .GIT. &&
	sb -w "$REF" apply .git sub .GIT. >out 2>err &&
	cmp_text "sandbox: apply: nothing to apply" err &&
	sb -w "$REF" diff .git >out &&
	must_be_empty out
'

test_expect_success 'a directory of DIR with files the copy did not have cannot become a file' '
	mkdir -p proj/tobe && echo mine >proj/tobe/mine && echo x >proj/tobe/known &&
	sb -w "$REF" exec -- sh -c "mkdir tobe && echo x >tobe/known" &&
	sb -w "$REF" apply tobe >/dev/null 2>&1 &&
	sb -w "$REF" exec -- sh -c "rm -r tobe && echo file >tobe" &&
	expect_status 1 sb -w "$REF" apply tobe 2>err &&
	grep_file "tobe: DIR${SQ}s directory holds files the copy did not" err &&
	cmp_text mine proj/tobe/mine
'

test_expect_success 'patterns that find cannot match as the host does prune nothing else' '
	mkdir p2 && echo keep >p2/main.c && echo r >p2/README && echo j >p2/.env && printf "%s\n" ".*" "?" >p2/.sandboxignore &&
	new_ws P2 --copy p2 --exclude "??" &&
	sb -w "$P2" diff >out 2>err &&
	must_be_empty out && must_be_empty err &&
	sb -w "$P2" exec -- ls -a >ls &&
	grep_file -x README ls && grep_file -x main.c ls && no_grep_file -x .env ls
'

test_expect_success 'on a terminal, control characters of a file show as ^X' '
	sb -w "$REF" exec -- sh -c "printf \"safe\\033[2J\\rhidden\\n\" >ctl.txt" &&
	script -qec "$SANDBOX --engine $ENGINE -w $REF diff ctl.txt" /dev/null >tty.out;
	grep_file -F "+safe^[[2J^Mhidden" tty.out &&
	expect_status 1 sb -w "$REF" diff ctl.txt >plain &&
	grep_file -F "$(printf "+safe\033[2J\rhidden")" plain
'

test_expect_success 'a link in DIR on the way is refused, --force or not, and nothing lands outside DIR' '
	mkdir outside &&
	sb -w "$REF" exec -- sh -c "echo x >newdir/deep/evil.txt" &&
	rm -rf proj/newdir/deep && ln -s "$TRASH/outside" proj/newdir/deep &&
	expect_status 1 sb -w "$REF" apply newdir 2>err &&
	grep_file "newdir/deep/evil.txt: a link or a file of DIR lies on its way" err &&
	expect_status 1 sb -w "$REF" apply --force newdir 2>err &&
	test -z "$(ls outside)" &&
	rm proj/newdir/deep && mkdir proj/newdir/deep && echo deep >proj/newdir/deep/f.txt
'

test_expect_success 'a workspace that forges its listing gets nothing written (a name with .., a file under a link)' '
	new_ws EVIL --copy proj &&
	rewriting_sh "$EVIL" &&
	sb -w "$EVIL" exec -- sh -c "ln -s /etc lnk" &&
	forge "$EVIL" ./a/../../../escape &&
	expect_status 255 sb -w "$EVIL" apply 2>err &&
	grep_file "which is no path|a name with a" -E err &&
	! test -e escape && ! test -e "$TRASH/escape" &&
	forge "$EVIL" ./lnk/passwd &&
	expect_status 255 sb -w "$EVIL" apply 2>err &&
	grep_file "not in a directory of it" err &&
	! test -e proj/lnk
'

test_expect_success 'the MCP diff tool: the diff for the model, the changes as structuredContent' '
	sb -w "$REF" exec -- sh -c "echo c >>two.txt" &&
	cat >steps <<-\STEPS &&
	init
	> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"diff","arguments":{"path":"two.txt"}}}
	<
	> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"diff","arguments":{"path":"src/main.h"}}}
	<
	STEPS
	"$CLIENT" "$SANDBOX" --engine "$ENGINE" mcp -w "$REF" <steps >out 2>out.err &&
	sed -n 2p out >a1 && sed -n 3p out >a2 &&
	json_check a1 "d[\"result\"][\"isError\"] is False and \"+c\" in d[\"result\"][\"content\"][0][\"text\"] and d[\"result\"][\"structuredContent\"][\"changes\"][0][\"path\"] == \"two.txt\"" &&
	json_check a2 "d[\"result\"][\"content\"][0][\"text\"] == \"No changes since the copy.\\n\" and d[\"result\"][\"structuredContent\"][\"changed\"] is False"
'

test_expect_success 'copy and exclude from a config file; bad values are refused before anything is made' '
	mkdir cfgproj && echo hello >cfgproj/a.txt && echo skip >cfgproj/b.log &&
	printf "[sandbox]\nimage = %s\ncopy = cfgproj\nexclude = *.log\n" "$IMAGE" >c.ini &&
	ref=$(sb --config c.ini create) &&
	sb -w "$ref" exec -- ls >ls && cmp_text a.txt ls &&
	sb destroy "$ref" >/dev/null &&
	before=$(our_workspaces | wc -l) &&
	expect_status 2 sb create --image "$IMAGE" --copy nosuch 2>err &&
	grep_file "copy .nosuch.: No such file or directory" err &&
	echo "!keep" >cfgproj/.sandboxignore &&
	expect_status 2 sb create --image "$IMAGE" --copy cfgproj 2>err &&
	grep_file "not supported" err &&
	rm cfgproj/.sandboxignore &&
	test "$(our_workspaces | wc -l)" = "$before"
'

test_expect_success 'destroy and run --copy leave no baseline behind' '
	n=$(baselines) &&
	sb destroy "$EVIL" "$PLAIN" >/dev/null &&
	test "$(baselines)" = $((n - 1)) &&
	sb run --image "$IMAGE" --copy cfgproj -- cat a.txt >out &&
	cmp_text hello out &&
	test "$(baselines)" = $((n - 1)) &&
	sb destroy "$REF" >/dev/null &&
	test "$(baselines)" = $((n - 2))
'

test_done
