#!/bin/bash
# sandbox glob: *, ?, [...], {a,b} and ** over the files under --path
# (default: the workdir), files only, .git not descended, newest first
# (ties by name), at most --limit, exit 1 when nothing matches. Matching
# happens on the host: the same answers on every image.
. "$(dirname "$0")/../lib.sh"
pairwise
need_engine

# The tree, with fixed modification times (seconds since the Epoch).
TREE='
mk() { mkdir -p "$(dirname "$2")" && echo "$2" >"$2" && touch -d "@$1" "$2"; }
mk 1000000500 src/a.c
mk 1000000400 src/x/y/b.c
mk 1000000300 src/x/c.c
mk 1000000200 src/a.h
mk 1000000100 top.c
mk 1000000100 .hidden.c
mk 1000000100 "sp ace.c"
mk 1000000900 .git/config
mk 1000000900 .git/h.c
mk 1000000900 src/.git/inner.c
mk 1000000000 sub/one.txt
mk 1000000000 sub/two.txt
mk 1000000000 sub/deeper/three.txt
mk 1000000050 "$(printf "h\303\251llo.txt")"
mk 1000000050 "[lit].txt"
mk 1000000050 l.txt
mk 1000000050 n1.txt
mk 1000000050 n2.txt
mkdir -p emptydir src/emptysub
'

test_expect_success 'setup: a workspace and a tree with known times' '
	new_ws REF &&
	sb -w "$REF" exec -c "$TREE"
'

test_expect_success 'src/**/*.c: files at any depth under src, src/a.c too; newest first' '
	sb -w "$REF" glob "src/**/*.c" >out 2>err &&
	must_be_empty err &&
	printf "src/a.c\nsrc/x/y/b.c\nsrc/x/c.c\n" >expect &&
	cmp_file expect out
'

test_expect_success '* stays within a name, and matches names starting with a dot; ties by name' '
	sb -w "$REF" glob "*.c" >out &&
	printf ".hidden.c\nsp ace.c\ntop.c\n" >expect &&
	cmp_file expect out
'

test_expect_success '**/*.c: every .c file, none from .git' '
	sb -w "$REF" glob "**/*.c" >out &&
	printf "src/a.c\nsrc/x/y/b.c\nsrc/x/c.c\n.hidden.c\nsp ace.c\ntop.c\n" >expect &&
	cmp_file expect out
'

test_expect_success 'a final ** is everything under the directory; .git is not descended' '
	sb -w "$REF" glob "src/**" >out &&
	printf "src/a.c\nsrc/x/y/b.c\nsrc/x/c.c\nsrc/a.h\n" >expect &&
	cmp_file expect out &&
	expect_status 1 sb -w "$REF" glob ".git/*" >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: glob: no file matches" err
'

test_expect_success 'files only: no directories' '
	sb -w "$REF" glob "src/*" >out &&
	printf "src/a.c\nsrc/a.h\n" >expect &&
	cmp_file expect out &&
	expect_status 1 sb -w "$REF" glob "src/x" >out 2>err &&
	must_be_empty out &&
	expect_status 1 sb -w "$REF" glob "*dir" >out 2>err &&
	must_be_empty out
'

test_expect_success '? is one character, a UTF-8 one included' '
	sb -w "$REF" glob "?op.c" >out &&
	cmp_text top.c out &&
	sb -w "$REF" glob "h?llo.txt" >out &&
	printf "h\303\251llo.txt\n" >expect &&
	cmp_file expect out &&
	expect_status 1 sb -w "$REF" glob "h??llo.txt" >out &&
	must_be_empty out
'

test_expect_success '[...]: sets, ranges, negation, classes; \ makes a bracket literal' '
	sb -w "$REF" glob "src/[ab].[ch]" >out &&
	printf "src/a.c\nsrc/a.h\n" >expect &&
	cmp_file expect out &&
	sb -w "$REF" glob "src/a.[!c]" >out &&
	cmp_text src/a.h out &&
	sb -w "$REF" glob "n[0-9].txt" >out &&
	printf "n1.txt\nn2.txt\n" >expect &&
	cmp_file expect out &&
	sb -w "$REF" glob "n[[:digit:]].txt" >out &&
	cmp_file expect out &&
	sb -w "$REF" glob "[lit].txt" >out &&
	cmp_text l.txt out &&
	sb -w "$REF" glob "\\[lit\\].txt" >out &&
	cmp_text "[lit].txt" out
'

test_expect_success '{a,b}: alternatives, nested in a path' '
	sb -w "$REF" glob "{top,sub/*}.{c,txt}" >out &&
	printf "top.c\nsub/one.txt\nsub/two.txt\n" >expect &&
	cmp_file expect out &&
	sb -w "$REF" glob "src/{a.h,x/{c,y/b}.c}" >out &&
	printf "src/x/y/b.c\nsrc/x/c.c\nsrc/a.h\n" >expect &&
	cmp_file expect out
'

test_expect_success 'the workspace lists only names that end as the pattern ends: escaped, braced, odd names still match' '
	sb -w "$REF" exec -c "mkdir -p /tmp/ends && cd /tmp/ends && for n in a.c .c x.C b.cc \"\$(printf \"n\\nl.c\")\" \"\$(printf \"b\\303.c\")\"; do
		echo \"\$n\" >\"\$n\" && touch -d @1000000000 \"\$n\"; done" &&
	sb -w "$REF" glob "*.c" --path /tmp/ends >out &&
	printf "/tmp/ends/.c\n/tmp/ends/a.c\n/tmp/ends/b\303.c\n\"/tmp/ends/n\\\\nl.c\"\n" >expect &&
	cmp_file expect out &&
	sb -w "$REF" glob "a\\.c" --path /tmp/ends >out &&
	printf "/tmp/ends/a.c\n" >expect &&
	cmp_file expect out &&
	sb -w "$REF" glob "{a,x,b}.c" --path /tmp/ends >out &&
	cmp_file expect out &&
	sb -w "$REF" glob "*.C" --path /tmp/ends >out &&
	printf "/tmp/ends/x.C\n" >expect &&
	cmp_file expect out
'

test_expect_success '--path: the pattern is relative to it, the paths shown under it' '
	sb -w "$REF" glob "*.c" --path src >out &&
	cmp_text src/a.c out &&
	sb -w "$REF" glob "**/*.c" --path src >out &&
	printf "src/a.c\nsrc/x/y/b.c\nsrc/x/c.c\n" >expect &&
	cmp_file expect out &&
	sb -w "$REF" glob "**/*.c" --path src/ >out &&
	cmp_file expect out &&
	sb -w "$REF" glob "*" --path /workspace/sub >out &&
	printf "/workspace/sub/one.txt\n/workspace/sub/two.txt\n" >expect &&
	cmp_file expect out &&
	sb -w "$REF" glob "**" --path sub/deeper >out &&
	cmp_text sub/deeper/three.txt out &&
	sb -w "$REF" glob "src/*.c" --path . >out &&
	cmp_text src/a.c out
'

test_expect_success '--limit: at most N, then how many more' '
	sb -w "$REF" glob "**/*.c" --limit 2 >out &&
	printf "src/a.c\nsrc/x/y/b.c\n(4 more matches; raise --limit or narrow the pattern)\n" >expect &&
	cmp_file expect out &&
	sb -w "$REF" glob "sub/*" --limit 1 >out &&
	printf "sub/one.txt\n(1 more match; raise --limit or narrow the pattern)\n" >expect &&
	cmp_file expect out &&
	sb -w "$REF" glob "sub/*" --limit 2 >out &&
	printf "sub/one.txt\nsub/two.txt\n" >expect &&
	cmp_file expect out
'

test_expect_success 'no match: exit 1, nothing on stdout, a message' '
	expect_status 1 sb -w "$REF" glob "*.rs" >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: glob: no file matches" err &&
	expect_status 1 sb -w "$REF" glob "*" --path emptydir >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: glob: no file matches" err
'

test_expect_success PYTHON '--json: workspace, pattern, path, matches, total, truncated' '
	sb -w "$REF" --json glob "**/*.c" --path src --limit 2 >out 2>err &&
	must_be_empty err &&
	json_check out "d == {\"workspace\": \"$REF\", \"pattern\": \"**/*.c\", \"path\": \"src\", \"matches\": [\"src/a.c\", \"src/x/y/b.c\"], \"total\": 3, \"truncated\": True}" &&
	sb -w "$REF" --json glob "sub/*" >out &&
	json_check out "d[\"matches\"] == [\"sub/one.txt\", \"sub/two.txt\"] and d[\"total\"] == 2 and d[\"truncated\"] is False and d[\"path\"] == \".\""
'

test_expect_success PYTHON '--json, no match: exit 1, an empty list, nothing on stderr' '
	expect_status 1 sb -w "$REF" --json glob "*.rs" >out 2>err &&
	must_be_empty err &&
	json_check out "d[\"matches\"] == [] and d[\"total\"] == 0 and d[\"truncated\"] is False"
'

test_expect_success 'a newer file comes first' '
	sb -w "$REF" exec -c "touch -d @1000000600 src/x/c.c" &&
	sb -w "$REF" glob "src/**/*.c" >out &&
	printf "src/x/c.c\nsrc/a.c\nsrc/x/y/b.c\n" >expect &&
	cmp_file expect out
'

# Without xargs the listing goes by find -exec: the same answer. (BusyBox
# sh runs its own applet, whatever PATH holds: NOXARGS then is not set.)
test_expect_success 'setup: xargs moved out of PATH' '
	sb -w "$REF" exec -c "for d in /usr/sbin /usr/bin /sbin /bin; do
		if [ -f \$d/xargs ]; then mv \$d/xargs /tmp/xargs.away; echo \$d >/tmp/xargs.dir; fi
	done; PATH=/usr/sbin:/usr/bin:/sbin:/bin; command -v xargs || echo none" >probe &&
	if test "$(cat probe)" = none; then test_set_prereq NOXARGS; fi
'

test_expect_success NOXARGS,PYTHON 'without xargs: the same files, newest first, odd names whole' '
	sb -w "$REF" exec -c "mkdir -p /tmp/nx && cd /tmp/nx && touch -d @1000000100 \"a
b.c\" && touch -d @1000000200 \"x.c
1000000300 y.c\"" &&
	sb -w "$REF" glob "**/*.c" >out &&
	printf "src/x/c.c\nsrc/a.c\nsrc/x/y/b.c\n.hidden.c\nsp ace.c\ntop.c\n" >expect &&
	cmp_file expect out &&
	sb --json -w "$REF" glob "*.c" --path /tmp/nx >out &&
	json_check out "d[\"matches\"] == [\"/tmp/nx/x.c\\n1000000300 y.c\", \"/tmp/nx/a\\nb.c\"]"
'

test_expect_success 'xargs is back' '
	sb -w "$REF" exec -c "if [ -f /tmp/xargs.dir ]; then mv /tmp/xargs.away \$(cat /tmp/xargs.dir)/xargs; fi; rm -rf /tmp/nx"
'

test_expect_success 'bad patterns: exit 2 and why, nothing run' '
	expect_status 2 sb -w "$REF" glob "{a" >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: glob: pattern ${SQ}{a${SQ}: unbalanced ${SQ}{${SQ} at byte 1: close it with ${SQ}}${SQ} or write ${SQ}\\{${SQ}" err &&
	expect_status 2 sb -w "$REF" glob "" 2>err &&
	cmp_text "sandbox: glob: pattern ${SQ}${SQ}: empty pattern: use ${SQ}*${SQ} to match every name" err &&
	expect_status 2 sb -w "$REF" glob "a\\" 2>err &&
	cmp_text "sandbox: glob: pattern ${SQ}a\\${SQ}: the pattern ends with a lone ${SQ}\\${SQ}" err &&
	expect_status 2 sb -w "$REF" glob a.c b.c 2>err &&
	cmp_text "sandbox: glob: give one pattern (quote it, so that your shell does not expand it)" err &&
	expect_status 2 sb -w "$REF" glob 2>err &&
	cmp_text "sandbox: glob: which pattern?" err &&
	expect_status 2 sb -w "$REF" glob "*" --path "" 2>err &&
	cmp_text "sandbox: glob: --path is empty" err &&
	expect_status 2 sb -w "$REF" glob "*" --limit 0 2>err &&
	cmp_text "sandbox: glob: --limit ${SQ}0${SQ}: expected a number from 1" err
'

test_expect_success '--path not found, not a directory: exit 1 with the reason' '
	expect_status 1 sb -w "$REF" glob "*" --path nope >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: glob: nope: no such file or directory" err &&
	expect_status 1 sb -w "$REF" glob "*" --path top.c 2>err &&
	cmp_text "sandbox: glob: top.c: not a directory" err
'

test_expect_success '--path that cannot be entered (user 65534): permission denied' '
	new_ws U --user 65534 --workdir /tmp &&
	eng exec -u 0 "$U" sh -c "mkdir /tmp/closed && touch /tmp/closed/f && chmod 700 /tmp/closed" &&
	expect_status 1 sb -w "$U" glob "*" --path /tmp/closed >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: glob: /tmp/closed: permission denied" err
'

test_expect_success 'SANDBOX_WORKSPACE names the workspace; -w wins over it' '
	SANDBOX_WORKSPACE=$REF sb glob "sub/*" >out 2>err &&
	must_be_empty err &&
	printf "sub/one.txt\nsub/two.txt\n" >expect &&
	cmp_file expect out &&
	SANDBOX_WORKSPACE=sandbox-000000000000 sb -w "$REF" glob "sub/*" >out &&
	cmp_file expect out
'

test_expect_success 'without a workspace, glob creates one and says so on stderr' '
	printf "[sandbox]\nimage = %s\n" "$IMAGE" >sandbox.ini &&
	sb trust >/dev/null &&
	{ sb glob passwd --path /etc >out 2>err; st=$?; rm sandbox.ini; test $st = 0; } &&
	cmp_text /etc/passwd out &&
	line_count 1 err &&
	LAZY=$(sed -n "s/^sandbox: created workspace \(sandbox-[0-9a-f]\{12\}\) (pass -w .*/\1/p" err) &&
	check "a ref in: $(cat err)" test -n "$LAZY" &&
	cmp_text "sandbox: created workspace $LAZY (pass -w $LAZY to reuse it)" err &&
	check "$LAZY exists" ctr_exists "$LAZY"
'

test_expect_success PYTHON 'without a workspace, glob --json names the new one' '
	printf "[sandbox]\nimage = %s\n" "$IMAGE" >sandbox.ini &&
	sb trust >/dev/null &&
	{ sb --json glob passwd --path /etc >out 2>err; st=$?; rm sandbox.ini; test $st = 0; } &&
	must_be_empty err &&
	json_check out "d[\"matches\"] == [\"/etc/passwd\"] and d.get(\"workspace\", \"\").startswith(\"sandbox-\")"
'

test_expect_success 'a destroyed workspace: exit 255' '
	new_ws G &&
	sb destroy "$G" >/dev/null &&
	expect_status 255 sb -w "$G" glob "*" >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: glob: workspace $G does not exist (destroyed?); create one with ${SQ}sandbox create${SQ}" err &&
	expect_status 255 sb --json -w "$G" glob "*" >out 2>err &&
	must_be_empty err &&
	cmp_text "{\"error\":{\"kind\":\"workspace\",\"message\":\"workspace $G does not exist (destroyed?); create one with ${SQ}sandbox create${SQ}\"}}" out
'

test_done
