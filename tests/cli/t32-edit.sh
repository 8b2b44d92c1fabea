#!/bin/bash
# sandbox edit: an exact replacement, once unless --all, never a guess;
# the file unchanged on every refusal; CRLF files; --expect-sha256; the
# unified diff it prints, in bounded time and memory whatever the file
# (one hunk, or a summary, past a size); --old-file and --new-file for
# texts of several lines.
. "$(dirname "$0")/../lib.sh"
pairwise
also_on_gvisor
need_engine
need_peak_rss

sha() { sha256sum "$1" | cut -d" " -f1; }
in_ws() { eng exec -u 0 -w /workspace "$1" sh -c "$2"; }

# put FILE CONTENT: sets a file of the workspace behind sandbox's back.
put() { sb -w "$REF" exec -i -- sh -c "cat >\"\$1\"" sh "$1" <<<"$2"; }
# fingerprint FILE: what must not change when an edit is refused.
fingerprint() { in_ws "$REF" "stat -c \"%i %a %u %g %s %Y\" \"$1\"; sha256sum <\"$1\""; }

test_expect_success 'setup: a workspace and a file' '
	new_ws REF &&
	put e.txt "alpha
beta
gamma
beta
  delta  x"
'

test_expect_success 'one exact match: replaced, the unified diff printed' '
	sb -w "$REF" edit e.txt --old alpha --new ALPHA >out 2>err &&
	must_be_empty err &&
	cat >expect <<-\EOF &&
	--- e.txt
	+++ e.txt
	@@ -1,4 +1,4 @@
	-alpha
	+ALPHA
	 beta
	 gamma
	 beta
	EOF
	cmp_file expect out &&
	sb -w "$REF" exec -- cat e.txt >got &&
	printf "ALPHA\nbeta\ngamma\nbeta\n  delta  x\n" >expect &&
	cmp_file expect got
'

test_expect_success 'several matches without --all: exit 1, the count and the line of each, unchanged' '
	before=$(fingerprint e.txt) &&
	expect_status 1 sb -w "$REF" edit e.txt --old beta --new B >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: edit: e.txt: 2 matches of the old text (lines 2, 4); pass --all or add context to make it unique" err &&
	check unchanged test "$(fingerprint e.txt)" = "$before"
'

test_expect_success '--all: every match replaced' '
	sb -w "$REF" edit e.txt --old beta --new B --all >out &&
	cat >expect <<-\EOF &&
	--- e.txt
	+++ e.txt
	@@ -1,5 +1,5 @@
	 ALPHA
	-beta
	+B
	 gamma
	-beta
	+B
	   delta  x
	EOF
	cmp_file expect out &&
	sb -w "$REF" exec -- cat e.txt >got &&
	printf "ALPHA\nB\ngamma\nB\n  delta  x\n" >expect &&
	cmp_file expect got
'

test_expect_success 'no match: exit 1, a message, the file unchanged' '
	before=$(fingerprint e.txt) &&
	expect_status 1 sb -w "$REF" edit e.txt --old "not there" --new x >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: edit: e.txt: the old text is not in the file; read the file and copy the text exactly" err &&
	check unchanged test "$(fingerprint e.txt)" = "$before"
'

test_expect_success 'a near miss in white space or line endings: the hint names the line' '
	before=$(fingerprint e.txt) &&
	expect_status 1 sb -w "$REF" edit e.txt --old "delta x" --new x >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: edit: e.txt: the old text is not in the file; it matches at line 5 if white space and line endings are ignored: copy it exactly" err &&
	expect_status 1 sb -w "$REF" edit e.txt --old "gamma
    B" --new x 2>err &&
	cmp_text "sandbox: edit: e.txt: the old text is not in the file; it matches at line 3 if white space and line endings are ignored: copy it exactly" err &&
	check unchanged test "$(fingerprint e.txt)" = "$before"
'

test_expect_success 'over 20 matches: the first 20 lines, then ...' '
	seq 1 25 | sed "s/.*/same/" >many.txt &&
	sb -w "$REF" exec -i -- sh -c "cat >many.txt" <many.txt &&
	expect_status 1 sb -w "$REF" edit many.txt --old same --new other 2>err &&
	cmp_text "sandbox: edit: many.txt: 25 matches of the old text (lines 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, ...); pass --all or add context to make it unique" err
'

test_expect_success 'matches do not overlap: "aa" is once in "aaa"' '
	put aaa.txt "aaa" &&
	sb -w "$REF" edit aaa.txt --old aa --new b >/dev/null &&
	sb -w "$REF" exec -- cat aaa.txt >got &&
	cmp_text ba got
'

test_expect_success 'usage: the same old and new, an empty old, a missing text: exit 2, unchanged' '
	before=$(fingerprint e.txt) &&
	expect_status 2 sb -w "$REF" edit e.txt --old B --new B >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: edit: the old and the new text are the same: nothing to do" err &&
	expect_status 2 sb -w "$REF" edit e.txt --old "" --new x 2>err &&
	cmp_text "sandbox: edit: the old text is empty; to write a whole file use ${SQ}sandbox write${SQ}" err &&
	expect_status 2 sb -w "$REF" edit e.txt --old B 2>err &&
	cmp_text "sandbox: edit: give the old text (--old or --old-file) and the new (--new or --new-file)" err &&
	expect_status 2 sb -w "$REF" edit e.txt --new B 2>err &&
	cmp_text "sandbox: edit: give the old text (--old or --old-file) and the new (--new or --new-file)" err &&
	expect_status 2 sb -w "$REF" edit --old B --new C 2>err &&
	cmp_text "sandbox: edit: which file? give its path" err &&
	check unchanged test "$(fingerprint e.txt)" = "$before"
'

test_expect_success 'the new text may be empty: a deletion' '
	sb -w "$REF" edit e.txt --old "gamma
" --new "" >out &&
	cat >expect <<-\EOF &&
	--- e.txt
	+++ e.txt
	@@ -1,5 +1,4 @@
	 ALPHA
	 B
	-gamma
	 B
	   delta  x
	EOF
	cmp_file expect out
'

test_expect_success 'a CRLF file: an LF old text matches, the new text is written with CRLF' '
	printf "one\r\ntwo\r\nthree\r\n" >crlf.txt &&
	sb -w "$REF" exec -i -- sh -c "cat >crlf.txt" <crlf.txt &&
	sb -w "$REF" edit crlf.txt --old "one
two" --new "1
2
2b" >out &&
	printf -- "--- crlf.txt\n+++ crlf.txt\n@@ -1,3 +1,4 @@\n-one\r\n-two\r\n+1\r\n+2\r\n+2b\r\n three\r\n" >expect &&
	cmp_file expect out &&
	sb -w "$REF" exec -- cat crlf.txt >got &&
	printf "1\r\n2\r\n2b\r\nthree\r\n" >expect &&
	cmp_file expect got
'

test_expect_success 'a CRLF file: an old text written with CRLF matches as it is' '
	sb -w "$REF" edit crlf.txt --old "$(printf "2b\r\nthree")" --new "3" >/dev/null &&
	sb -w "$REF" exec -- cat crlf.txt >got &&
	printf "1\r\n2\r\n3\r\n" >expect &&
	cmp_file expect got
'

test_expect_success 'a file without a final newline: the diff says so' '
	printf "a\nb" >nonl.txt &&
	sb -w "$REF" exec -i -- sh -c "cat >nonl.txt" <nonl.txt &&
	sb -w "$REF" edit nonl.txt --old b --new c >out &&
	printf -- "--- nonl.txt\n+++ nonl.txt\n@@ -1,2 +1,2 @@\n a\n-b\n\\\\ No newline at end of file\n+c\n\\\\ No newline at end of file\n" >expect &&
	cmp_file expect out &&
	sb -w "$REF" exec -- cat nonl.txt >got &&
	printf "a\nc" >expect &&
	cmp_file expect got
'

test_expect_success 'several hunks: the same diff as GNU diff -u' '
	seq 1 40 | sed "s/^\(3\|25\|28\)$/x/" >hunks.txt &&
	sb -w "$REF" exec -i -- sh -c "cat >hunks.txt" <hunks.txt &&
	sb -w "$REF" edit hunks.txt --old "x
" --new "y
z
" --all >out &&
	sed "s/^x$/y\nz/" hunks.txt >hunks.new &&
	{ diff -u --label hunks.txt --label hunks.txt hunks.txt hunks.new >expect; test $? = 1; } &&
	cmp_file expect out &&
	sb -w "$REF" exec -- cat hunks.txt >got &&
	cmp_file hunks.new got
'

test_expect_success 'shell and regex characters in the texts are plain text' '
	put meta.txt "a \$(touch /tmp/pwned-edit) \`id\` .* [x] \\\\1 ; | & end" &&
	sb -w "$REF" edit meta.txt --old "\$(touch /tmp/pwned-edit) \`id\` .* [x] \\\\1 ; | &" --new "<\$HOME \"q\" ${SQ}s${SQ}>" >/dev/null &&
	sb -w "$REF" exec -- cat meta.txt >got &&
	cmp_text "a <\$HOME \"q\" ${SQ}s${SQ}> end" got &&
	sb -w "$REF" exec -- test ! -e /tmp/pwned-edit
'

test_expect_success '--expect-sha256: the right hash edits; a stale one is refused, unchanged' '
	sb -w "$REF" read --raw e.txt >cur &&
	sb -w "$REF" edit e.txt --old ALPHA --new Alpha --expect-sha256 "$(sha cur)" >/dev/null &&
	before=$(fingerprint e.txt) &&
	sb -w "$REF" read --raw e.txt >now &&
	expect_status 1 sb -w "$REF" edit e.txt --old Alpha --new alpha --expect-sha256 "$(sha cur)" >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: edit: e.txt: the file changed since it was read (its sha256 is now $(sha now)); read it again" err &&
	check unchanged test "$(fingerprint e.txt)" = "$before"
'

test_expect_success '--expect-sha256 that is not a sha256: exit 2' '
	expect_status 2 sb -w "$REF" edit e.txt --old Alpha --new alpha --expect-sha256 abc >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: edit: --expect-sha256: expected 64 lowercase hex digits" err &&
	expect_status 2 sb -w "$REF" edit e.txt --old Alpha --new alpha --expect-sha256 "$(sha cur | tr a-f A-F)" 2>err &&
	cmp_text "sandbox: edit: --expect-sha256: expected 64 lowercase hex digits" err
'

test_expect_success PYTHON '--json: workspace, path, replacements, diff and the new sha256' '
	put j.txt "k=1
k=1
end" &&
	sb -w "$REF" --json edit j.txt --old "k=1" --new "k=2" --all >out 2>err &&
	must_be_empty err &&
	sb -w "$REF" read --raw j.txt >now &&
	printf "k=2\nk=2\nend\n" >expect &&
	cmp_file expect now &&
	json_check out "d[\"workspace\"] == \"$REF\" and d[\"path\"] == \"j.txt\" and d[\"replacements\"] == 2" &&
	json_check out "d[\"diff\"] == \"--- j.txt\\n+++ j.txt\\n@@ -1,3 +1,3 @@\\n-k=1\\n-k=1\\n+k=2\\n+k=2\\n end\\n\"" &&
	json_check out "d[\"sha256\"] == \"$(sha now)\""
'

test_expect_success '--old-file and --new-file: texts of several lines, byte for byte' '
	put f.txt "head
	indented line
	second line
tail" &&
	printf "\tindented line\n\tsecond line\n" >old.txt &&
	printf "  spaces now\n\n  and a blank line above\n" >new.txt &&
	sb -w "$REF" edit f.txt --old-file old.txt --new-file new.txt >/dev/null &&
	sb -w "$REF" exec -- cat f.txt >got &&
	printf "head\n  spaces now\n\n  and a blank line above\ntail\n" >expect &&
	cmp_file expect got &&
	sb -w "$REF" edit f.txt --old-file new.txt --new "x
" >/dev/null &&
	sb -w "$REF" exec -- cat f.txt >got &&
	printf "head\nx\ntail\n" >expect &&
	cmp_file expect got
'

test_expect_success '--old-file that cannot be read: exit 2' '
	expect_status 2 sb -w "$REF" edit f.txt --old-file no-such-file --new x >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: edit: no-such-file: No such file or directory" err
'

test_expect_success 'a NUL in --old-file or --new-file: refused (exit 2), the file unchanged' '
	before=$(fingerprint f.txt) &&
	printf "x\000y" >nul.txt &&
	expect_status 2 sb -w "$REF" edit f.txt --old x --new-file nul.txt >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: edit: the old or the new text holds a NUL byte; edit only edits text" err &&
	expect_status 2 sb -w "$REF" edit f.txt --old-file nul.txt --new y 2>err &&
	cmp_text "sandbox: edit: the old or the new text holds a NUL byte; edit only edits text" err &&
	check unchanged test "$(fingerprint f.txt)" = "$before"
'

test_expect_success 'mode and owner kept' '
	in_ws "$REF" "printf \"v=1\n\" >m.txt && chmod 640 m.txt && chown 1234:5678 m.txt" &&
	sb -w "$REF" edit m.txt --old v=1 --new v=2 >/dev/null &&
	in_ws "$REF" "stat -c \"%a %u:%g\" m.txt; cat m.txt" >got &&
	printf "640 1234:5678\nv=2\n" >expect &&
	cmp_file expect got
'

test_expect_success 'not found, a directory, a binary file: exit 1 with the reason' '
	expect_status 1 sb -w "$REF" edit nope.txt --old a --new b >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: edit: nope.txt: no such file or directory" err &&
	sb -w "$REF" exec -c "mkdir -p adir && printf \"a\000b\" >bin.dat" &&
	expect_status 1 sb -w "$REF" edit adir --old a --new b 2>err &&
	cmp_text "sandbox: edit: adir: is a directory" err &&
	before=$(fingerprint bin.dat) &&
	expect_status 1 sb -w "$REF" edit bin.dat --old a --new b 2>err &&
	cmp_text "sandbox: edit: bin.dat: binary file; edit only edits text" err &&
	check unchanged test "$(fingerprint bin.dat)" = "$before"
'

test_expect_success 'edit --all of 4 Mi lines (8 MiB), each changed: written; the diff omitted, where it changed said' '
	sb -w "$REF" exec -c "yes a | head -n 4194304 >big8.txt" &&
	peak_kib rss timeout 120 "$SANDBOX" --engine "$ENGINE" -w "$REF" edit big8.txt --old a --new b --all >out 2>err &&
	must_be_empty err &&
	cmp_text "(diff omitted: over 1 MiB; from line 1, 4194304 lines became 4194304)" out &&
	below_kib rss 32768 &&
	sb -w "$REF" exec -c "sort -u big8.txt; wc -l <big8.txt" >got &&
	printf "b\n4194304\n" >expect &&
	cmp_file expect got
'

test_expect_success PYTHON 'edit --all --json of 4 Mi lines: diff empty, diff_omitted says where' '
	peak_kib rss timeout 120 "$SANDBOX" --engine "$ENGINE" -w "$REF" --json edit big8.txt --old b --new a --all >out &&
	json_check out "d[\"replacements\"] == 4194304 and d[\"diff\"] == \"\" and d[\"diff_omitted\"] == {\"line\": 1, \"old_lines\": 4194304, \"new_lines\": 4194304}" &&
	below_kib rss 32768 &&
	sb -w "$REF" exec -- rm big8.txt
'

test_expect_success PYTHON 'changes more than 200000 lines apart, both files counted: one hunk, which patch applies' '
	python3 -c "import sys; sys.stdout.write(\"A\\n\" + \"x\\n\" * 100008 + \"A\\n\")" >far.txt &&
	sb -w "$REF" exec -i -- sh -c "cat >far.txt" <far.txt &&
	sb -w "$REF" edit far.txt --old A --new B --all >out &&
	head -n 5 out >head &&
	printf -- "--- far.txt\n+++ far.txt\n@@ -1,100010 +1,100010 @@\n-A\n-x\n" >expect &&
	cmp_file expect head &&
	test "$(grep -c "^@@" out)" = 1 &&
	patch -s -o patched far.txt <out &&
	sb -w "$REF" read --raw far.txt >got &&
	cmp_file got patched
'

test_expect_success 'a file of 8 MiB and one byte: refused, unchanged, in little memory' '
	sb -w "$REF" exec -c "yes a | head -n 4194304 >over8.txt && printf b >>over8.txt" &&
	before=$(fingerprint over8.txt) &&
	peak_kib rss expect_status 1 "$SANDBOX" --engine "$ENGINE" -w "$REF" edit over8.txt --old b --new c >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: edit: over8.txt: larger than 8 MiB; too large to edit here" err &&
	below_kib rss 32768 &&
	check unchanged test "$(fingerprint over8.txt)" = "$before" &&
	sb -w "$REF" exec -- rm over8.txt
'

test_expect_success 'a new content over 8 MiB, however many matches make it: refused, the file unchanged' '
	sb -w "$REF" exec -c "head -c 1048576 /dev/zero | tr \"\\000\" a >many.txt" &&
	before=$(fingerprint many.txt) &&
	long=$(printf "%0100d" 0) &&
	expect_status 1 sb -w "$REF" edit many.txt --old a --new "$long" --all >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: edit: many.txt: the new content would be larger than 8 MiB (1048576 replacements); too large to edit here" err &&
	check unchanged test "$(fingerprint many.txt)" = "$before"
'

test_expect_success 'permission denied (user 65534): unreadable, and readable but in a root directory' '
	new_ws U --user 65534 --workdir /tmp &&
	eng exec -u 0 "$U" sh -c "echo s >/tmp/r600 && chmod 600 /tmp/r600 && mkdir /tmp/rodir && echo old >/tmp/rodir/f && chmod 666 /tmp/rodir/f" &&
	expect_status 1 sb -w "$U" edit /tmp/r600 --old s --new t >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: edit: /tmp/r600: permission denied" err &&
	expect_status 1 sb -w "$U" edit /tmp/rodir/f --old old --new new >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: edit: /tmp/rodir/f: permission denied" err &&
	eng exec "$U" sh -c "cat /tmp/rodir/f; ls -a /tmp/rodir" >got &&
	printf "old\n.\n..\nf\n" >expect &&
	cmp_file expect got
'

test_expect_success 'SANDBOX_WORKSPACE names the workspace; -w wins over it' '
	put w.txt "w=0" &&
	SANDBOX_WORKSPACE=$REF sb edit w.txt --old w=0 --new w=1 >/dev/null 2>err &&
	must_be_empty err &&
	SANDBOX_WORKSPACE=sandbox-000000000000 sb -w "$REF" edit w.txt --old w=1 --new w=2 >/dev/null &&
	sb -w "$REF" exec -- cat w.txt >got &&
	cmp_text w=2 got
'

test_expect_success 'without a workspace, edit creates one and says so on stderr' '
	printf "[sandbox]\nimage = %s\n" "$IMAGE" >sandbox.ini &&
	sb trust >/dev/null &&
	{ sb edit /etc/passwd --old "root:x:0:0:root:" --new "root:x:0:0:admin:" >out 2>err; st=$?; rm sandbox.ini; test $st = 0; } &&
	line_count 1 err &&
	LAZY=$(sed -n "s/^sandbox: created workspace \(sandbox-[0-9a-f]\{12\}\) (pass -w .*/\1/p" err) &&
	check "a ref in: $(cat err)" test -n "$LAZY" &&
	cmp_text "sandbox: created workspace $LAZY (pass -w $LAZY to reuse it)" err &&
	grep_file "^+root:x:0:0:admin:/root:" out &&
	sb -w "$LAZY" exec -- head -n 1 /etc/passwd >got &&
	grep_file "^root:x:0:0:admin:" got
'

test_expect_success PYTHON 'without a workspace, edit --json names the new one' '
	printf "[sandbox]\nimage = %s\n" "$IMAGE" >sandbox.ini &&
	sb trust >/dev/null &&
	{ sb --json edit /etc/passwd --old "root:x:0:0:root:" --new "root:x:0:0:admin:" >out 2>err; st=$?; rm sandbox.ini; test $st = 0; } &&
	must_be_empty err &&
	json_check out "d[\"replacements\"] == 1 and d.get(\"workspace\", \"\").startswith(\"sandbox-\")"
'

test_expect_success 'a destroyed workspace: exit 255' '
	new_ws G &&
	sb destroy "$G" >/dev/null &&
	expect_status 255 sb -w "$G" edit e.txt --old a --new b >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: edit: workspace $G does not exist (destroyed?); create one with ${SQ}sandbox create${SQ}" err &&
	expect_status 255 sb --json -w "$G" edit e.txt --old a --new b >out 2>err &&
	must_be_empty err &&
	cmp_text "{\"error\":{\"kind\":\"workspace\",\"message\":\"workspace $G does not exist (destroyed?); create one with ${SQ}sandbox create${SQ}\"}}" out
'

test_done
