#!/bin/bash
# Hostile values through every file tool: names with spaces, quotes,
# $(...), backticks, ;, glob characters, newlines and other control
# bytes (C1 too: U+009B, or a stray 0x9B, is CSI to many terminals), a
# leading -, UTF-8 and bytes that are not UTF-8 pass literally;
# no value ever becomes shell source (the /tmp/pwned* files never
# appear); a path over Linux's 4095 bytes gives a clear error, a long
# valid one (4000 bytes) works; a NUL in a value is refused. The same
# answers on every image.
. "$(dirname "$0")/../lib.sh"
pairwise
also_on_gvisor both
need_engine
test_have_prereq PYTHON || skip_all "python3 is needed for the byte-exact checks"

# The corpus: each name, and how a line of text output shows it (as it
# is, or in double quotes with C escapes when it holds a control byte or
# starts with a double quote). SHOWNC: the same where a ':' also needs
# the quotes (grep's content and count lines).
NAMES=(
	"sp ace"
	"it's \"quoted\""
	'$(touch /tmp/pwned)'
	'`touch /tmp/pwned-bt`'
	'a;touch /tmp/pwned-semi;b'
	'x && touch /tmp/pwned-and | cat > /tmp/pwned-redir'
	'star*'
	'?[x]{a,b}'
	$'new\nline'
	'-leading'
	'--json'
	$'h\xc3\xa9llo \xe6\x97\xa5\xe6\x9c\xac'
	$'tab\there'
	$'cr\rname'
	$'ctl\001x'
	'back\slash'
	'\'
	'a:b'
	'"starts-quote'
	'~tilde #hash !bang $HOME'
	'esc\tab'
	'two\\back'
	'oct\101'
	$'csi\xc2\x9b31m'
	$'raw\x9b31m'
	$'\xc4\x9bcaron'
)
SHOWN=(
	"sp ace"
	"it's \"quoted\""
	'$(touch /tmp/pwned)'
	'`touch /tmp/pwned-bt`'
	'a;touch /tmp/pwned-semi;b'
	'x && touch /tmp/pwned-and | cat > /tmp/pwned-redir'
	'star*'
	'?[x]{a,b}'
	'"new\nline"'
	'-leading'
	'--json'
	$'h\xc3\xa9llo \xe6\x97\xa5\xe6\x9c\xac'
	'"tab\there"'
	'"cr\rname"'
	'"ctl\001x"'
	'back\slash'
	'\'
	'a:b'
	'"\"starts-quote"'
	'~tilde #hash !bang $HOME'
	'esc\tab'
	'two\\back'
	'oct\101'
	'"csi\302\23331m"'
	'"raw\23331m"'
	$'\xc4\x9bcaron'
)
SHOWNC=("${SHOWN[@]}")
SHOWNC[17]='"a:b"'

# glob_escape NAME: NAME as a glob pattern that matches only itself, in
# the variable PAT (kept exact: a name may end with a newline).
glob_escape() {
	local c i
	PAT=
	for ((i = 0; i < ${#1}; i++)); do
		c=${1:i:1}
		case $c in
		[][*?{}\\]) PAT+=\\$c ;;
		*) PAT+=$c ;;
		esac
	done
}

# sorted_shown ARRAY: the shown forms of ARRAY (SHOWN or SHOWNC), one a
# line, in the byte order of the names.
sorted_shown() {
	local -n shown=$1
	python3 -c 'import os, sys
n = len(sys.argv) // 2
names, shown = sys.argv[1:n + 1], sys.argv[n + 1:]
for k in sorted(range(n), key=lambda k: os.fsencode(names[k])):
    sys.stdout.buffer.write(os.fsencode(shown[k]) + b"\n")' "${NAMES[@]}" "${shown[@]}"
}

# no_pwned REF: none of the files an injection would make exists.
no_pwned() {
	eng exec "$1" sh -c 'ls -d /tmp/pwned* /workspace/pwned* 2>/dev/null; true' >.pwned &&
	if [ -s .pwned ]; then
		echo "error: injected commands ran; they made:" >&4
		cat .pwned >&4
		return 1
	fi
}

# exists_exactly REF DIR NAME: a file of exactly that name (bytes) is in
# DIR, as the container's own find lists it (on stdout: no engine
# touches the bytes).
exists_exactly() {
	eng exec "$1" find "$2" -type f -print0 >.found &&
	python3 - "$2/$3" .found >&4 2>&1 <<-\EOF
	import os, sys
	want = os.fsencode(sys.argv[1])
	found = open(sys.argv[2], "rb").read().split(b"\0")[:-1]
	if want not in found:
	    print("error: no file named %r; found: %r" % (want, found))
	    sys.exit(1)
	EOF
}

test_expect_success 'setup: a workspace' '
	new_ws REF &&
	check "the corpus is consistent" test ${#NAMES[@]} = ${#SHOWN[@]}
'

for i in "${!NAMES[@]}"; do
	test_expect_success "name #$i ($(printf "%s" "${SHOWN[$i]}" | tr -c "[:print:]" "?")): write, read, edit, glob, grep take it literally" '
		n=${NAMES[$i]} s=${SHOWN[$i]} sc=${SHOWNC[$i]} &&
		sb -w "$REF" write --content "content of #$i
" -- "$n" >out 2>err &&
		must_be_empty err &&
		cmp_text "wrote $((${#i} + 13)) bytes to $s (new file)" out &&
		sb -w "$REF" read -- "$n" >out &&
		printf "     1\tcontent of #%s\n" "$i" >expect &&
		cmp_file expect out &&
		sb -w "$REF" edit --old "of #$i" --new "of #$i, edited" -- "$n" >out &&
		printf -- "--- %s\n+++ %s\n@@ -1 +1 @@\n-content of #%s\n+content of #%s, edited\n" "$s" "$s" "$i" "$i" >expect &&
		cmp_file expect out &&
		glob_escape "$n" &&
		sb -w "$REF" glob -- "$PAT" >out &&
		cmp_text "$s" out &&
		sb -w "$REF" grep -F --path "$n" --output count -- ", edited" >out &&
		cmp_text "$sc:1" out &&
		sb -w "$REF" read --raw -- "$n" >out &&
		printf "content of #%s, edited\n" "$i" >expect &&
		cmp_file expect out
	'
done

test_expect_success 'every name, in one listing: glob ** and grep, sorted, nothing else in the workdir' '
	eng exec "$REF" find /workspace -type f -print0 >found &&
	python3 - found "${NAMES[@]}" >&4 2>&1 <<-\EOF &&
	import os, sys
	found = sorted(open(sys.argv[1], "rb").read().split(b"\0")[:-1])
	want = sorted(b"/workspace/" + os.fsencode(n) for n in sys.argv[2:])
	if found != want:
	    print("error: the files are %r, expected %r" % (found, want))
	    sys.exit(1)
	EOF
	sb -w "$REF" exec -c "find . -type f -exec touch -d @1000000000 {} +" &&
	sb -w "$REF" glob "**" >out &&
	sorted_shown SHOWN >expect &&
	cmp_file expect out &&
	sb -w "$REF" grep -F ", edited" >out &&
	cmp_file expect out &&
	sb -w "$REF" grep -F ", edited" --output count >out &&
	sorted_shown SHOWNC | sed "s/\$/:1/" >expect &&
	cmp_file expect out &&
	sb -w "$REF" grep "of #[0-9]+, edited\$" --output content >out &&
	python3 -c "import os, sys
n = len(sys.argv) // 2
names, shown = sys.argv[1:n + 1], sys.argv[n + 1:]
for k in sorted(range(n), key=lambda k: os.fsencode(names[k])):
    sys.stdout.buffer.write(os.fsencode(shown[k]) + b\":1:content of #%d, edited\\n\" % k)" "${NAMES[@]}" "${SHOWNC[@]}" >expect &&
	cmp_file expect out
'

test_expect_success 'every name in --json: exact (bytes that are not UTF-8 become U+FFFD)' '
	sb -w "$REF" --json glob "**" >globbed &&
	sb -w "$REF" --json grep -F ", edited" >grepped &&
	python3 -c "import json, os, sys
want = sorted((os.fsencode(a) for a in sys.argv[1:]))
want = [w.decode(\"utf-8\", \"replace\") for w in want]
for f in (\"globbed\", \"grepped\"):
    got = json.load(open(f))[\"matches\"]
    if got != want:
        print(\"error: %s: %r, expected %r\" % (f, got, want))
        sys.exit(1)" "${NAMES[@]}" &&
	for i in 8 17 18; do
		sb -w "$REF" --json read -- "${NAMES[$i]}" >out &&
		python3 -c "import json, os, sys
d = json.load(open(\"out\"))
sys.exit(0 if d[\"path\"] == os.fsencode(sys.argv[1]).decode(\"utf-8\", \"replace\") else 1)" "${NAMES[$i]}" ||
		return 1
	done
'

# Docker and Podman pass a command's arguments through JSON, where bytes
# that are not UTF-8 become U+FFFD: such a name must still reach the file
# of that name (or be refused), never another file.
test_expect_success 'a name that is not UTF-8 (made in the container): every tool reaches that file' '
	sb -w "$REF" exec -c "mkdir -p nu && printf \"data\\n\" >\"\$(printf \"nu/bad\\377\\376.txt\")\"" &&
	n=$(printf "nu/bad\377\376.txt") &&
	exists_exactly "$REF" /workspace "$n" &&
	sb -w "$REF" glob "*" --path nu >out &&
	printf "nu/bad\377\376.txt\n" >expect &&
	cmp_file expect out &&
	sb -w "$REF" read "$n" >out &&
	printf "     1\tdata\n" >expect &&
	cmp_file expect out &&
	sb -w "$REF" grep data --path "$n" >out &&
	printf "nu/bad\377\376.txt\n" >expect &&
	cmp_file expect out &&
	sb -w "$REF" edit "$n" --old data --new DATA >/dev/null &&
	sb -w "$REF" write "$n" --content "DATA, again" >out &&
	printf "wrote 11 bytes to nu/bad\377\376.txt\n" >expect &&
	cmp_file expect out &&
	eng exec "$REF" find /workspace/nu -type f -exec cat {} + >out &&
	printf "DATA, again" >expect &&
	cmp_file expect out
'

test_expect_success 'a new name that is not UTF-8: written under exactly that name' '
	n=$(printf "nu/new\377.txt") &&
	sb -w "$REF" write "$n" --content x >out &&
	printf "wrote 1 byte to nu/new\377.txt (new file)\n" >expect &&
	cmp_file expect out &&
	exists_exactly "$REF" /workspace "$n"
'

test_expect_success 'not UTF-8 in --json: U+FFFD for each bad byte' '
	sb -w "$REF" --json glob "bad*" --path nu >out &&
	json_check out "d[\"matches\"] == [\"nu/bad\\ufffd\\ufffd.txt\"]"
'

test_expect_success 'no injection so far' '
	no_pwned "$REF" &&
	sb -w "$REF" exec -c "ls -a | grep -c ^.sandbox-write-; true" >out &&
	cmp_text 0 out
'

test_expect_success 'hostile patterns, texts and --path values stay data' '
	expect_status 1 sb -w "$REF" grep ";touch /tmp/pwned2;" >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: grep: no match" err &&
	expect_status 1 sb -w "$REF" grep -F "\$(touch /tmp/pwned3)\`touch /tmp/pwned3b\`" 2>err &&
	cmp_text "sandbox: grep: no match" err &&
	expect_status 1 sb -w "$REF" grep x --glob "\$(touch /tmp/pwned4)" 2>err &&
	cmp_text "sandbox: grep: no match" err &&
	expect_status 1 sb -w "$REF" glob "\$(touch /tmp/pwned5)*;touch /tmp/pwned5b" 2>err &&
	cmp_text "sandbox: glob: no file matches" err &&
	expect_status 1 sb -w "$REF" glob "*" --path "\$(touch /tmp/pwned6)" 2>err &&
	cmp_text "sandbox: glob: \$(touch /tmp/pwned6): no such file or directory" err &&
	expect_status 1 sb -w "$REF" grep x --path "x;touch /tmp/pwned7" 2>err &&
	cmp_text "sandbox: grep: x;touch /tmp/pwned7: no such file or directory" err &&
	expect_status 1 sb -w "$REF" edit "sp ace" --old "\$(touch /tmp/pwned8)" --new "\`touch /tmp/pwned9\`" 2>err &&
	cmp_text "sandbox: edit: sp ace: the old text is not in the file; read the file and copy the text exactly" err &&
	sb -w "$REF" write /tmp/w.txt --content "\$(touch /tmp/pwned10) \`touch /tmp/pwned11\`" >/dev/null &&
	sb -w "$REF" exec -- cat /tmp/w.txt >out &&
	printf "%s" "\$(touch /tmp/pwned10) \`touch /tmp/pwned11\`" >expect &&
	cmp_file expect out &&
	no_pwned "$REF"
'

test_expect_success 'hostile directory names: created by write, searched by glob and grep --path' '
	d="\$(touch /tmp/pwned12);\`touch /tmp/pwned13\`" &&
	sb -w "$REF" write "/tmp/hd/$d/sub dir/f.txt" --content "needle
" >out &&
	cmp_text "wrote 7 bytes to /tmp/hd/$d/sub dir/f.txt (new file)" out &&
	sb -w "$REF" glob "**/*.txt" --path "/tmp/hd/$d" >out &&
	cmp_text "/tmp/hd/$d/sub dir/f.txt" out &&
	sb -w "$REF" grep needle --path "/tmp/hd/$d" --output content >out &&
	cmp_text "/tmp/hd/$d/sub dir/f.txt:1:needle" out &&
	sb -w "$REF" glob "{\$(touch /tmp/pwned14),**}/f.txt" --path /tmp/hd >out &&
	cmp_text "/tmp/hd/$d/sub dir/f.txt" out &&
	no_pwned "$REF"
'

# The workspace lists files as stat writes them, "MTIME .//NAME" and a
# newline (listing.h): names that hold a newline, then what looks like
# the start or the end of a record, or a directory named so with a file
# in it, must come back whole, and no other name with them.
test_expect_success 'names that look like the records of the listing after a newline: each read whole, none forged' '
	sb -w "$REF" exec -c "mkdir -p /tmp/fg/\"\$(printf \"d\\n1 .\")\" && cd /tmp/fg &&
		for n in \"a\\n1234567890 .\" \"b\\n7 .\\nc\" \"\\n5 .\" \"e\\n\" \"\\n\" \"d\\n1 ./f\" \"g\\n-1 .\\n\"; do
			f=\$(printf \"\${n}x\") && : >\"\${f%x}\" || exit 1
		done &&
		find . -type f -exec touch -d @1000000000 {} +" &&
	eng exec "$REF" find /tmp/fg -type f -print0 >found &&
	check "seven files made" test "$(tr -cd "\\000" <found | wc -c)" = 7 &&
	sb -w "$REF" --json glob "**" --path /tmp/fg >out &&
	python3 -c "import json, sys
got = json.load(open(\"out\"))[\"matches\"]
want = sorted(open(\"found\", \"rb\").read().split(b\"\\0\")[:-1])
want = [w.decode(\"utf-8\", \"replace\") for w in want]
if got != want:
    print(\"error: %r, expected %r\" % (got, want))
    sys.exit(1)" >&4 2>&1 &&
	sb -w "$REF" --json glob "**/f" --path /tmp/fg >out &&
	json_check out "d[\"matches\"] == [\"/tmp/fg/d\\n1 ./f\"]" &&
	expect_status 1 sb -w "$REF" glob "f" --path /tmp/fg >out 2>err &&
	must_be_empty out
'

test_expect_success 'a NUL in a value (only a file can carry one): refused, exit 2' '
	sb -w "$REF" write nul-target --content "plain text
" >/dev/null &&
	printf "plain\000text" >nul.txt &&
	expect_status 2 sb -w "$REF" edit nul-target --old-file nul.txt --new x >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: edit: the old or the new text holds a NUL byte; edit only edits text" err &&
	expect_status 2 sb -w "$REF" edit nul-target --old plain --new-file nul.txt 2>err &&
	cmp_text "sandbox: edit: the old or the new text holds a NUL byte; edit only edits text" err &&
	sb -w "$REF" read --raw nul-target >out &&
	cmp_text "plain text" out
'

# A path of LEN bytes: /tmp/ then components of 200 bytes, the last one
# shorter; CH is the character of the directories.
long_path() {
	python3 -c 'import sys
n, ch = int(sys.argv[1]), sys.argv[2]
comps, left = [], n - len("/tmp/")
while left > 201:
    comps.append(ch * 200); left -= 201
comps.append("f" * left)
print("/tmp/" + "/".join(comps))' "$1" "$2"
}

# clear_error TOOL FILE: FILE is one line, "sandbox: TOOL: ", the path
# and a reason, not cut short.
clear_error() {
	line_count 1 "$2" &&
	grep_file "^sandbox: $1: /tmp/" "$2" &&
	grep_file -E ": (no such file or directory|not a directory|[Ff]ile name too long|[Nn]ame too long|the path is too long.*|cannot create its directory|cannot replace it; the file is unchanged)\$" "$2"
}

test_expect_success 'a 4096-byte path (over the limit): a clear error from every tool, no crash' '
	P=$(long_path 4096 d) &&
	check "4096 bytes" test ${#P} = 4096 &&
	expect_status 1 sb -w "$REF" write "$P" --content x >out 2>err &&
	must_be_empty out &&
	clear_error write err &&
	expect_status 1 sb -w "$REF" read "$P" >out 2>err &&
	must_be_empty out &&
	clear_error read err &&
	expect_status 1 sb -w "$REF" edit "$P" --old x --new y >out 2>err &&
	must_be_empty out &&
	clear_error edit err &&
	expect_status 1 sb -w "$REF" glob "*" --path "$P" >out 2>err &&
	must_be_empty out &&
	clear_error glob err &&
	expect_status 1 sb -w "$REF" grep x --path "$P" >out 2>err &&
	must_be_empty out &&
	clear_error grep err
'

test_expect_success 'a name of 256 bytes (over NAME_MAX): a clear error' '
	N=/tmp/$(python3 -c "print(\"n\" * 256)") &&
	expect_status 1 sb -w "$REF" write "$N" --content x >out 2>err &&
	must_be_empty out &&
	clear_error write err &&
	expect_status 1 sb -w "$REF" read "$N" >out 2>err &&
	must_be_empty out &&
	clear_error read err
'

test_expect_success 'a 4000-byte path that does not exist: the error still gives the reason' '
	P=$(long_path 4000 z) &&
	expect_status 1 sb -w "$REF" read "$P" >out 2>err &&
	must_be_empty out &&
	clear_error read err
'

test_expect_success 'a long valid path (4000 bytes, 20 levels): every tool works' '
	P=$(long_path 4000 e) &&
	check "4000 bytes" test ${#P} = 4000 &&
	top=/tmp/$(python3 -c "print(\"e\" * 200)") &&
	sb -w "$REF" write "$P" --content "deep
" >out &&
	cmp_text "wrote 5 bytes to $P (new file)" out &&
	sb -w "$REF" read "$P" >out &&
	printf "     1\tdeep\n" >expect &&
	cmp_file expect out &&
	sb -w "$REF" edit "$P" --old deep --new DEEP >out &&
	printf -- "--- %s\n+++ %s\n@@ -1 +1 @@\n-deep\n+DEEP\n" "$P" "$P" >expect &&
	cmp_file expect out &&
	sb -w "$REF" glob "**/f*" --path "$top" >out &&
	cmp_text "$P" out &&
	sb -w "$REF" grep DEEP --path "$top" --output content >out &&
	cmp_text "$P:1:DEEP" out &&
	sb -w "$REF" grep DEEP --path "$P" --output count >out &&
	cmp_text "$P:1" out &&
	sb -w "$REF" read --raw "$P" >out &&
	cmp_text DEEP out
'

test_expect_success 'in the end: no injected command ever ran, no temporary file left' '
	no_pwned "$REF" &&
	eng exec "$REF" sh -c "find / -xdev -name \".sandbox-write-*\" 2>/dev/null" >out &&
	must_be_empty out
'

test_done
