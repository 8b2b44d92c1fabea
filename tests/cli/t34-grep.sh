#!/bin/bash
# sandbox grep: an ERE (or -F, a fixed string) over the files under --path
# (a file or a directory; default: the workdir), three kinds of output
# (files, content with GNU-style context, count), .git and binary files
# skipped, --glob on names, sorted by path, --limit, exit 1 when nothing
# matches. Matching happens on the host: the same answers on every image.
. "$(dirname "$0")/../lib.sh"
pairwise
need_engine

TREE='
mkdir -p r/d r/.git r/sub/deep r2 empty
printf "foo\nbar\nbaz\nfoo bar\nqux\n1\n2\n3\n4\nfoo\n" >r/a.txt
printf "Foo\nxfoox\n" >r/d/b.c
printf "foo\000bin\n" >r/bin.dat
printf "foo\n" >r/.git/c
printf "a.b*c\nabbc\n(x|y)[z]{2}\\\\1^\$\ncolor colour\n" >r/meta.txt
printf "foo\r\nend\r\n" >r/crlf.txt
printf "last foo" >r/nonl.txt
printf "FOO deep\n" >r/sub/deep/z.md
for n in a:b.txt "$(printf "new\nline.txt")" "\"q.txt" plain.txt "$(printf "tab\there.txt")"; do
	printf "foo\n" >"r2/$n"
done
'

test_expect_success 'setup: a workspace and a tree' '
	new_ws REF &&
	sb -w "$REF" exec -c "$TREE" &&
	sb -w "$REF" exec -- cat r/meta.txt >got &&
	printf "a.b*c\nabbc\n(x|y)[z]{2}\\\\1^\$\ncolor colour\n" >expect &&
	cmp_file expect got
'

test_expect_success 'files (the default): the files that match, sorted; .git and binary files skipped' '
	sb -w "$REF" grep foo --path r >out 2>err &&
	must_be_empty err &&
	printf "r/a.txt\nr/crlf.txt\nr/d/b.c\nr/nonl.txt\n" >expect &&
	cmp_file expect out &&
	sb -w "$REF" grep foo --path r --output files >out &&
	cmp_file expect out
'

test_expect_success 'content: path:line:text; a CRLF line without its CR; a last line without newline' '
	sb -w "$REF" grep foo --path r --output content >out &&
	cat >expect <<-\EOF &&
	r/a.txt:1:foo
	r/a.txt:4:foo bar
	r/a.txt:10:foo
	r/crlf.txt:1:foo
	r/d/b.c:2:xfoox
	r/nonl.txt:1:last foo
	EOF
	cmp_file expect out
'

test_expect_success 'count: path:N' '
	sb -w "$REF" grep foo --path r --output count >out &&
	printf "r/a.txt:3\nr/crlf.txt:1\nr/d/b.c:1\nr/nonl.txt:1\n" >expect &&
	cmp_file expect out
'

test_expect_success '-i: any case' '
	sb -w "$REF" grep -i foo --path r --output count >out &&
	printf "r/a.txt:3\nr/crlf.txt:1\nr/d/b.c:2\nr/nonl.txt:1\nr/sub/deep/z.md:1\n" >expect &&
	cmp_file expect out &&
	sb -w "$REF" grep --ignore-case FOO --path r/d >out &&
	cmp_text r/d/b.c out
'

test_expect_success 'ERE: alternation, anchors, +, ?, {n}, classes' '
	sb -w "$REF" grep "ba(r|z)\$" --path r --output content >out &&
	printf "r/a.txt:2:bar\nr/a.txt:3:baz\nr/a.txt:4:foo bar\n" >expect &&
	cmp_file expect out &&
	sb -w "$REF" grep "^ab+c\$" --path r --output content >out &&
	cmp_text "r/meta.txt:2:abbc" out &&
	sb -w "$REF" grep "colou?r colou?r" --path r --output content >out &&
	cmp_text "r/meta.txt:4:color colour" out &&
	sb -w "$REF" grep "^a?b{2}c" --path r --output content >out &&
	cmp_text "r/meta.txt:2:abbc" out &&
	sb -w "$REF" grep "^[[:digit:]]\$" --path r --output count >out &&
	cmp_text "r/a.txt:4" out &&
	sb -w "$REF" grep "^[^a-z0-9(]+ " --path r --output content >out &&
	cmp_text "r/sub/deep/z.md:1:FOO deep" out
'

test_expect_success '-F: a pattern full of regex characters is a plain string' '
	sb -w "$REF" grep -F "(x|y)[z]{2}\\1^\$" --path r --output content >out &&
	printf "r/meta.txt:3:(x|y)[z]{2}\\\\1^\$\n" >expect &&
	cmp_file expect out &&
	sb -w "$REF" grep -F "a.b*c" --path r --output content >out &&
	cmp_text "r/meta.txt:1:a.b*c" out &&
	sb -w "$REF" grep "a.b*c" --path r --output content >out &&
	cmp_text "r/meta.txt:2:abbc" out &&
	sb -w "$REF" grep --fixed-strings -i "FOO B" --path r --output content >out &&
	cmp_text "r/a.txt:4:foo bar" out
'

test_expect_success '-C: context lines path-line-text, -- between groups and between files' '
	sb -w "$REF" grep foo --path r --output content -C 1 >out &&
	cat >expect <<-\EOF &&
	r/a.txt:1:foo
	r/a.txt-2-bar
	r/a.txt-3-baz
	r/a.txt:4:foo bar
	r/a.txt-5-qux
	--
	r/a.txt-9-4
	r/a.txt:10:foo
	--
	r/crlf.txt:1:foo
	r/crlf.txt-2-end
	--
	r/d/b.c-1-Foo
	r/d/b.c:2:xfoox
	--
	r/nonl.txt:1:last foo
	EOF
	cmp_file expect out
'

test_expect_success '-A and -B alone' '
	sb -w "$REF" grep foo --path r/a.txt --output content -A 1 >out &&
	cat >expect <<-\EOF &&
	r/a.txt:1:foo
	r/a.txt-2-bar
	--
	r/a.txt:4:foo bar
	r/a.txt-5-qux
	--
	r/a.txt:10:foo
	EOF
	cmp_file expect out &&
	sb -w "$REF" grep foo --path r/a.txt --output content -B 1 >out &&
	cat >expect <<-\EOF &&
	r/a.txt:1:foo
	--
	r/a.txt-3-baz
	r/a.txt:4:foo bar
	--
	r/a.txt-9-4
	r/a.txt:10:foo
	EOF
	cmp_file expect out &&
	sb -w "$REF" grep "^(2|3)\$" --path r/a.txt --output content -B 2 -A 0 >out &&
	printf "r/a.txt-5-qux\nr/a.txt-6-1\nr/a.txt:7:2\nr/a.txt:8:3\n" >expect &&
	cmp_file expect out
'

test_expect_success '--glob: names, or paths with a /, relative to --path' '
	sb -w "$REF" grep -i foo --path r --glob "*.c" >out &&
	cmp_text r/d/b.c out &&
	sb -w "$REF" grep -i foo --path r --glob "{*.md,*.c}" >out &&
	printf "r/d/b.c\nr/sub/deep/z.md\n" >expect &&
	cmp_file expect out &&
	sb -w "$REF" grep -i foo --path r --glob "sub/**" >out &&
	cmp_text r/sub/deep/z.md out &&
	expect_status 1 sb -w "$REF" grep -i foo --path r --glob "deep/*" >out 2>err &&
	must_be_empty out
'

test_expect_success '--path: one file (shown as given), a directory with a /, the default workdir' '
	sb -w "$REF" grep foo --path r/a.txt --output count >out &&
	cmp_text r/a.txt:3 out &&
	sb -w "$REF" grep foo --path /workspace/r/d >out &&
	cmp_text /workspace/r/d/b.c out &&
	sb -w "$REF" grep foo --path r/ --glob "*.c" >out &&
	cmp_text r/d/b.c out &&
	sb -w "$REF" grep -i "foo deep" >out &&
	cmp_text r/sub/deep/z.md out
'

test_expect_success 'binary files and .git: skipped even when named' '
	expect_status 1 sb -w "$REF" grep bin --path r/bin.dat >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: grep: no match" err &&
	expect_status 1 sb -w "$REF" grep bin --path r >out &&
	must_be_empty out
'

test_expect_success '--limit: at most N lines, then how many more' '
	sb -w "$REF" grep foo --path r --limit 2 >out &&
	printf "r/a.txt\nr/crlf.txt\n(2 more lines; raise --limit or narrow the search)\n" >expect &&
	cmp_file expect out &&
	sb -w "$REF" grep foo --path r --output content --limit 5 >out &&
	cat >expect <<-\EOF &&
	r/a.txt:1:foo
	r/a.txt:4:foo bar
	r/a.txt:10:foo
	r/crlf.txt:1:foo
	r/d/b.c:2:xfoox
	(1 more line; raise --limit or narrow the search)
	EOF
	cmp_file expect out &&
	sb -w "$REF" grep foo --path r --output count --limit 4 >out &&
	printf "r/a.txt:3\nr/crlf.txt:1\nr/d/b.c:1\nr/nonl.txt:1\n" >expect &&
	cmp_file expect out
'

test_expect_success 'no match: exit 1, nothing on stdout, a message' '
	expect_status 1 sb -w "$REF" grep "no such text" --path r >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: grep: no match" err &&
	expect_status 1 sb -w "$REF" grep foo --path empty >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: grep: no match" err
'

test_expect_success 'a line over 2000 characters is cut in the output, matched whole' '
	python3 -c "import sys; sys.stdout.write(\"foo\" + \"x\" * 2100 + \"END\\n\")" >long.txt &&
	sb -w "$REF" exec -i -- sh -c "cat >long.txt" <long.txt &&
	sb -w "$REF" grep "xEND\$" --path long.txt --output content >out &&
	{ printf "long.txt:1:foo"; python3 -c "import sys; sys.stdout.write(\"x\" * 1997)"; echo " [... line cut]"; } >expect &&
	cmp_file expect out
'

test_expect_success 'names with a colon, a quote, a newline, a tab: quoted C-style where needed' '
	sb -w "$REF" grep foo --path r2 >out &&
	cat >expect <<-\EOF &&
	r2/"q.txt
	r2/a:b.txt
	"r2/new\nline.txt"
	r2/plain.txt
	"r2/tab\there.txt"
	EOF
	cmp_file expect out &&
	sb -w "$REF" grep foo --path r2 --output content >out &&
	cat >expect <<-\EOF &&
	r2/"q.txt:1:foo
	"r2/a:b.txt":1:foo
	"r2/new\nline.txt":1:foo
	r2/plain.txt:1:foo
	"r2/tab\there.txt":1:foo
	EOF
	cmp_file expect out &&
	sb -w "$REF" grep foo --path r2 --output count >out &&
	cat >expect <<-\EOF &&
	r2/"q.txt:1
	"r2/a:b.txt":1
	"r2/new\nline.txt":1
	r2/plain.txt:1
	"r2/tab\there.txt":1
	EOF
	cmp_file expect out &&
	sb -w "$REF" grep foo --path r2/a:b.txt --output content -C 1 >out &&
	cmp_text "\"r2/a:b.txt\":1:foo" out
'

test_expect_success 'only the files that hold the bytes every match holds are sent: all the matches still, a name with a newline too' '
	sb -w "$REF" exec -c "mkdir -p r3 r4 && printf \"say HELLO wOrLd\\n\" >r3/x.txt &&
		printf \"hello world\\n\" >\"r3/\$(printf \"n\\nl.txt\")\" && printf \"hell world\\n\" >r3/no.txt &&
		cp r3/x.txt r3/no.txt r4/ && printf \"hel\\000lo world\\n\" >r4/bin.txt &&
		i=0 && while [ \$i -lt 300 ]; do echo filler >r4/f\$i.txt; i=\$((i + 1)); done" &&
	sb -w "$REF" grep -i "hel+o w[o]rld" --path r3 --output content >out &&
	cat >expect <<-\EOF &&
	"r3/n\nl.txt":1:hello world
	r3/x.txt:1:say HELLO wOrLd
	EOF
	cmp_file expect out &&
	sb -w "$REF" grep "LO w" --path r4 --output count >out &&
	printf "r4/x.txt:1\n" >expect &&
	cmp_file expect out &&
	sb -w "$REF" grep -i "lo W" --path r4 --output count >out &&
	cmp_file expect out &&
	expect_status 1 sb -w "$REF" grep "lo w" --path r4 >out 2>/dev/null
'

# BusyBox grep stops reading a line at a NUL; past the first 8 KiB a NUL
# leaves a file text, and the host reads on.
test_expect_success 'a match after a NUL on its line, past the first 8 KiB, is found; in a file over a MiB too' '
	sb -w "$REF" exec -c "mkdir -p r6 && cd r6 &&
		{ yes filler | head -c 9000; printf \"abc\\000 needle here\\n\"; } >late.txt &&
		{ yes filler | head -c 1100000; printf \"x\\000needle\\n\"; } >big.txt &&
		{ yes filler | head -c 9000; printf \"abc\\000 hay\\n\"; } >none.txt" &&
	sb -w "$REF" grep needle --path r6 --output count >out &&
	printf "r6/big.txt:1\nr6/late.txt:1\n" >expect &&
	cmp_file expect out
'

# An awk that cannot print a NUL (BusyBox before 1.33) would run the names
# together. (BusyBox sh runs its own applet, whatever PATH holds: NULAWK
# then is not set.)
test_expect_success 'setup: an awk that drops the NULs it prints' '
	cat >awk.sh <<-\EOF &&
	#!/bin/sh
	for a in /usr/bin/awk /bin/awk; do [ -x "$a" ] && break; done
	"$a" "$@" | tr -d "\000"
	EOF
	sb -w "$REF" write /usr/sbin/awk <awk.sh >/dev/null &&
	sb -w "$REF" exec -c "chmod 755 /usr/sbin/awk && PATH=/usr/sbin:/usr/bin:/sbin:/bin &&
		awk ${SQ}BEGIN { printf \"%c%s\", 0, \"x\" }${SQ} | od -An -c | tr -d \" \"" >probe &&
	if test "$(cat probe)" = x; then test_set_prereq NULAWK; fi
'

test_expect_success NULAWK 'with that awk: every file goes, the matches are all found' '
	sb -w "$REF" grep "LO w" --path r4 --output count >out &&
	printf "r4/x.txt:1\n" >expect &&
	cmp_file expect out &&
	sb -w "$REF" grep -i "hel+o w[o]rld" --path r3 --output content >out &&
	cat >expect <<-\EOF &&
	"r3/n\nl.txt":1:hello world
	r3/x.txt:1:say HELLO wOrLd
	EOF
	cmp_file expect out
'

test_expect_success 'the stand-in awk is gone' '
	sb -w "$REF" exec -- rm -f /usr/sbin/awk
'

test_expect_success 'newlines that cut a name where a path could start: the whole name is sent, no other file' '
	sb -w "$REF" exec -c "mkdir -p r5 && cd r5 && printf \"hello\\n\" >\"\$(printf \"a\\nb.txt\")\" &&
		printf \"quiet\\n\" >b.txt && mkdir \"\$(printf \"x\\n.\")\" && printf \"hello\\n\" >\"\$(printf \"x\\n.\")/y.txt\" &&
		printf \"hello\\n\" >\"\$(printf \"two\\n\\nlines\\nx\")\" && printf \"hello\\n\" >\"\$(printf \"\\nb.txt\")\"" &&
	sb -w "$REF" grep -i "hel+o" --path r5 --output content >out &&
	cat >expect <<-\EOF &&
	"r5/\nb.txt":1:hello
	"r5/a\nb.txt":1:hello
	"r5/two\n\nlines\nx":1:hello
	"r5/x\n./y.txt":1:hello
	EOF
	cmp_file expect out
'

test_expect_success PYTHON 'names with a newline in --json: the exact name' '
	sb -w "$REF" --json grep foo --path r2 --output count >out &&
	json_check out "[m[\"path\"] for m in d[\"matches\"]] == [\"r2/\\\"q.txt\", \"r2/a:b.txt\", \"r2/new\\nline.txt\", \"r2/plain.txt\", \"r2/tab\\there.txt\"]"
'

test_expect_success PYTHON '--json files: workspace, pattern, path, output, matches, total_lines, truncated' '
	sb -w "$REF" --json grep foo --path r --limit 3 >out 2>err &&
	must_be_empty err &&
	json_check out "d == {\"workspace\": \"$REF\", \"pattern\": \"foo\", \"path\": \"r\", \"output\": \"files\", \"matches\": [\"r/a.txt\", \"r/crlf.txt\", \"r/d/b.c\"], \"total_lines\": 4, \"truncated\": True}"
'

test_expect_success PYTHON '--json content: path, line, text, match for each line' '
	sb -w "$REF" --json grep "^foo\$" --path r/a.txt --output content -A 1 >out &&
	json_check out "d[\"output\"] == \"content\" and d[\"truncated\"] is False and d[\"total_lines\"] == 3" &&
	json_check out "d[\"matches\"] == [{\"path\": \"r/a.txt\", \"line\": 1, \"text\": \"foo\", \"match\": True}, {\"path\": \"r/a.txt\", \"line\": 2, \"text\": \"bar\", \"match\": False}, {\"path\": \"r/a.txt\", \"line\": 10, \"text\": \"foo\", \"match\": True}]"
'

test_expect_success PYTHON '--json count, and no match (exit 1, empty list, nothing on stderr)' '
	sb -w "$REF" --json grep -i foo --path r/d --output count >out &&
	json_check out "d[\"matches\"] == [{\"path\": \"r/d/b.c\", \"count\": 2}] and d[\"output\"] == \"count\"" &&
	expect_status 1 sb -w "$REF" --json grep nothing-like-this --path r >out 2>err &&
	must_be_empty err &&
	json_check out "d[\"matches\"] == [] and d[\"total_lines\"] == 0 and d[\"truncated\"] is False"
'

test_expect_success 'a pattern that starts with -, after --' '
	sb -w "$REF" exec -c "printf \"x\n-v here\n\" >dash.txt" &&
	sb -w "$REF" grep --output content --path dash.txt -- -v >out &&
	cmp_text "dash.txt:2:-v here" out
'

test_expect_success 'usage errors: exit 2 and why, nothing run' '
	expect_status 2 sb -w "$REF" grep "(" --path r >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: grep: regex ${SQ}(${SQ}: Unmatched ( or \\(" err &&
	expect_status 2 sb -w "$REF" grep foo --output lines 2>err &&
	cmp_text "sandbox: grep: --output ${SQ}lines${SQ}: expected files, content or count" err &&
	expect_status 2 sb -w "$REF" grep foo -A 1 2>err &&
	cmp_text "sandbox: grep: -A, -B and -C go with --output content" err &&
	expect_status 2 sb -w "$REF" grep foo --output count -C 2 2>err &&
	cmp_text "sandbox: grep: -A, -B and -C go with --output content" err &&
	expect_status 2 sb -w "$REF" grep foo --output content -A x 2>err &&
	cmp_text "sandbox: grep: -A ${SQ}x${SQ}: expected a number from 0" err &&
	expect_status 2 sb -w "$REF" grep foo --glob "{a" 2>err &&
	cmp_text "sandbox: grep: --glob ${SQ}{a${SQ}: unbalanced ${SQ}{${SQ} at byte 1: close it with ${SQ}}${SQ} or write ${SQ}\\{${SQ}" err &&
	expect_status 2 sb -w "$REF" grep 2>err &&
	cmp_text "sandbox: grep: which pattern?" err &&
	expect_status 2 sb -w "$REF" grep a b 2>err &&
	cmp_text "sandbox: grep: give one pattern (quote it, so that your shell does not expand it)" err
'

test_expect_success 'refused, exit 2: back-references, a pattern too large, groups nested too deep' '
	expect_status 2 sb -w "$REF" grep "(a)\\1" --path r >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: grep: regex ${SQ}(a)\\1${SQ}: back-references (\\1 to \\9) are not supported: they cannot be matched in time linear in the line${SQ}s length" err &&
	expect_status 2 sb -w "$REF" grep "a{1000}{1000}" --path r >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: grep: regex ${SQ}a{1000}{1000}${SQ}: too large: more than 10000 instructions once its intervals are written out; use smaller counts in {m,n}" err &&
	p=$(printf "%0257d" 0 | tr 0 "(") &&
	expect_status 2 sb -w "$REF" grep "${p}a" --path r >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: grep: regex ${SQ}${p}a${SQ}: groups nested more than 256 deep" err &&
	expect_status 2 sb -w "$REF" grep "\\1" --path r 2>err &&
	cmp_text "sandbox: grep: regex ${SQ}\\1${SQ}: Invalid back reference" err
'

# glibc's regcomp wrote x+ out as x x* and so doubled the pattern at
# each '+' of these: 24 of them took 52 s and 12 GB.
test_expect_success 'repeats of repeats compile at once: o and 40 +' '
	p=xfo$(printf "%040d" 0 | tr 0 +)x &&
	timeout -s KILL 60 "$SANDBOX" --engine "$ENGINE" -w "$REF" grep "$p" --path r --output count >out 2>err &&
	must_be_empty err &&
	cmp_text "r/d/b.c:1" out
'

test_expect_success '--path not found, unreadable, closed (user 65534): exit 1 with the reason' '
	expect_status 1 sb -w "$REF" grep foo --path nope >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: grep: nope: no such file or directory" err &&
	new_ws U --user 65534 --workdir /tmp &&
	eng exec -u 0 "$U" sh -c "mkdir /tmp/closed && echo foo >/tmp/closed/f && chmod 700 /tmp/closed && echo foo >/tmp/r600 && chmod 600 /tmp/r600" &&
	expect_status 1 sb -w "$U" grep foo --path /tmp/closed >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: grep: /tmp/closed: permission denied" err &&
	expect_status 1 sb -w "$U" grep foo --path /tmp/r600 2>err &&
	cmp_text "sandbox: grep: /tmp/r600: permission denied" err
'

test_expect_success 'SANDBOX_WORKSPACE names the workspace; -w wins over it' '
	SANDBOX_WORKSPACE=$REF sb grep xfoox --path r >out 2>err &&
	must_be_empty err &&
	cmp_text r/d/b.c out &&
	SANDBOX_WORKSPACE=sandbox-000000000000 sb -w "$REF" grep xfoox --path r >out &&
	cmp_text r/d/b.c out
'

test_expect_success 'without a workspace, grep creates one and says so on stderr' '
	printf "[sandbox]\nimage = %s\n" "$IMAGE" >sandbox.ini &&
	sb trust >/dev/null &&
	{ sb grep "^root:" --path /etc/passwd --output count >out 2>err; st=$?; rm sandbox.ini; test $st = 0; } &&
	cmp_text /etc/passwd:1 out &&
	line_count 1 err &&
	LAZY=$(sed -n "s/^sandbox: created workspace \(sandbox-[0-9a-f]\{12\}\) (pass -w .*/\1/p" err) &&
	check "a ref in: $(cat err)" test -n "$LAZY" &&
	cmp_text "sandbox: created workspace $LAZY (pass -w $LAZY to reuse it)" err &&
	check "$LAZY exists" ctr_exists "$LAZY"
'

test_expect_success PYTHON 'without a workspace, grep --json names the new one' '
	printf "[sandbox]\nimage = %s\n" "$IMAGE" >sandbox.ini &&
	sb trust >/dev/null &&
	{ sb --json grep "^root:" --path /etc/passwd >out 2>err; st=$?; rm sandbox.ini; test $st = 0; } &&
	must_be_empty err &&
	json_check out "d[\"matches\"] == [\"/etc/passwd\"] and d.get(\"workspace\", \"\").startswith(\"sandbox-\")"
'

test_expect_success 'a destroyed workspace: exit 255' '
	new_ws G &&
	sb destroy "$G" >/dev/null &&
	expect_status 255 sb -w "$G" grep foo >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: grep: workspace $G does not exist (destroyed?); create one with ${SQ}sandbox create${SQ}" err &&
	expect_status 255 sb --json -w "$G" grep foo >out 2>err &&
	must_be_empty err &&
	cmp_text "{\"error\":{\"kind\":\"workspace\",\"message\":\"workspace $G does not exist (destroyed?); create one with ${SQ}sandbox create${SQ}\"}}" out
'

test_done
