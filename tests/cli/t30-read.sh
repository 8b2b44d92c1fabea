#!/bin/bash
# sandbox read: numbered lines (cat -n style), --offset and --limit, long
# lines cut, empty and binary files, --raw for the exact bytes, --json
# with the content's sha256, and the errors: each names the path and the
# reason. The same answers on every image. Whatever the file holds, the
# host's memory stays small (measured with tests/peak-rss.c).
. "$(dirname "$0")/../lib.sh"
pairwise
also_on_gvisor
need_engine
need_peak_rss

# rep N TEXT: TEXT N times, on one line (no newline).
rep() { python3 -c 'import sys; sys.stdout.write(sys.argv[2] * int(sys.argv[1]))' "$1" "$2"; }
# sha FILE: the SHA-256 of FILE, in hex.
sha() { sha256sum "$1" | cut -d" " -f1; }

test_expect_success 'setup: a workspace and files made with the image'"'"'s own tools' '
	new_ws REF &&
	sb -w "$REF" exec -c "
		printf \"one\ntwo\nthree\n\" >three.txt &&
		printf \"first\nlast, without a newline\" >nonl.txt &&
		: >empty.txt &&
		seq 1 2500 >big.txt &&
		printf \"ab\000cd\" >nul.bin &&
		mkdir -p sub/dir && printf \"x\n\" >-dash.txt &&
		mkfifo fifo
	"
'

test_expect_success 'numbered lines: the number right-aligned in 6, a tab, the line' '
	sb -w "$REF" read three.txt >out 2>err &&
	must_be_empty err &&
	printf "     1\tone\n     2\ttwo\n     3\tthree\n" >expect &&
	cmp_file expect out
'

test_expect_success 'a last line without a newline is shown like the others' '
	sb -w "$REF" read nonl.txt >out &&
	printf "     1\tfirst\n     2\tlast, without a newline\n" >expect &&
	cmp_file expect out
'

test_expect_success 'an empty file says so' '
	sb -w "$REF" read empty.txt >out 2>err &&
	must_be_empty err &&
	cmp_text "(empty file)" out
'

test_expect_success '--offset and --limit: a window, and how to go on' '
	sb -w "$REF" read three.txt --offset 2 --limit 1 >out &&
	printf "     2\ttwo\n(1 more line; continue with --offset 3)\n" >expect &&
	cmp_file expect out &&
	sb -w "$REF" read --limit 2 three.txt >out &&
	printf "     1\tone\n     2\ttwo\n(1 more line; continue with --offset 3)\n" >expect &&
	cmp_file expect out &&
	sb -w "$REF" read three.txt --offset 3 >out &&
	printf "     3\tthree\n" >expect &&
	cmp_file expect out &&
	sb -w "$REF" read three.txt --offset=2 --limit=2 >out &&
	printf "     2\ttwo\n     3\tthree\n" >expect &&
	cmp_file expect out
'

test_expect_success 'at most 2000 lines by default, then the line to continue' '
	sb -w "$REF" read big.txt >out &&
	line_count 2001 out &&
	head -n 1 out >first && printf "     1\t1\n" >expect && cmp_file expect first &&
	sed -n 2000p out >l2000 && printf "  2000\t2000\n" >expect && cmp_file expect l2000 &&
	tail -n 1 out >last &&
	cmp_text "(500 more lines; continue with --offset 2001)" last &&
	sb -w "$REF" read big.txt --offset 2001 >out &&
	seq 2001 2500 | awk "{ printf \"%6d\\t%s\\n\", \$1, \$1 }" >expect &&
	cmp_file expect out
'

test_expect_success '--offset past the end: exit 2 and a message' '
	expect_status 2 sb -w "$REF" read three.txt --offset 4 >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: read: three.txt: --offset 4 is past the end (3 lines)" err &&
	expect_status 2 sb -w "$REF" read empty.txt --offset 2 >out 2>err &&
	cmp_text "sandbox: read: empty.txt: --offset 2 is past the end (0 lines)" err
'

test_expect_success 'bad --offset and --limit values: exit 2, nothing run' '
	expect_status 2 sb -w "$REF" read three.txt --offset 0 >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: read: --offset ${SQ}0${SQ}: expected a number from 1" err &&
	expect_status 2 sb -w "$REF" read three.txt --limit 0 2>err &&
	cmp_text "sandbox: read: --limit ${SQ}0${SQ}: expected a number from 1" err &&
	expect_status 2 sb -w "$REF" read three.txt --limit ten 2>err &&
	cmp_text "sandbox: read: --limit ${SQ}ten${SQ}: expected a number from 1" err &&
	expect_status 2 sb -w "$REF" read three.txt --offset -3 2>err &&
	cmp_text "sandbox: read: --offset ${SQ}-3${SQ}: expected a number from 1" err &&
	expect_status 2 sb -w "$REF" read three.txt --limit 100000001 2>err &&
	cmp_text "sandbox: read: --limit ${SQ}100000001${SQ}: at most 100000000" err &&
	expect_status 2 sb -w "$REF" read three.txt --offset 99999999999999999999 2>err &&
	cmp_text "sandbox: read: --offset ${SQ}99999999999999999999${SQ}: expected a number from 1" err &&
	sb -w "$REF" read three.txt --limit 100000000 >out &&
	line_count 3 out
'

test_expect_success 'usage: one path, exactly' '
	expect_status 2 sb -w "$REF" read >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: read: which file? give its path" err &&
	expect_status 2 sb -w "$REF" read a b 2>err &&
	cmp_text "sandbox: read: give one path" err &&
	expect_status 2 sb -w "$REF" read "" 2>err &&
	cmp_text "sandbox: read: the path is empty" err
'

test_expect_success PYTHON 'a line over 2000 characters is cut with a visible marker; 2000 is not' '
	{ rep 2000 a; echo; rep 2001 b; echo; rep 2005 c; echo; rep 2001 "é"; echo; rep 3000 "日"; } >long.txt &&
	sb -w "$REF" exec -i -- sh -c "cat >long.txt" <long.txt &&
	sb -w "$REF" read long.txt >out &&
	{
		printf "     1\t"; rep 2000 a; echo
		printf "     2\t"; rep 2000 b; echo " [... line cut: 1 more character]"
		printf "     3\t"; rep 2000 c; echo " [... line cut: 5 more characters]"
		printf "     4\t"; rep 2000 "é"; echo " [... line cut: 1 more character]"
		printf "     5\t"; rep 2000 "日"; echo " [... line cut: 1000 more characters]"
	} >expect &&
	cmp_file expect out
'

test_expect_success PYTHON 'stray continuation bytes count one character each; a cut never splits a character' '
	{ rep 1998 a; printf "\200\200\200\n"; rep 1999 a; printf "\360\237\230\200z\n"; rep 1999 a; printf "\303\251\200\n"; } >cont.txt &&
	sb -w "$REF" exec -i -- sh -c "cat >cont.txt" <cont.txt &&
	sb -w "$REF" read cont.txt >out &&
	{
		printf "     1\t"; rep 1998 a; printf "\200\200 [... line cut: 1 more character]\n"
		printf "     2\t"; rep 1999 a; printf "\360\237\230\200 [... line cut: 1 more character]\n"
		printf "     3\t"; rep 1999 a; printf "\303\251 [... line cut: 1 more character]\n"
	} >expect &&
	cmp_file expect out
'

test_expect_success PYTHON 'a line of 50 MiB of continuation bytes: cut at 2000, in text and --json, in little memory' '
	sb -w "$REF" exec -c "head -c 52428800 /dev/zero | tr \"\\000\" \"\\200\" >c50.txt" &&
	peak_kib rss sb -w "$REF" read c50.txt >out &&
	{ printf "     1\t"; head -c 2000 /dev/zero | tr "\000" "\200"; echo " [... line cut: 52426800 more characters]"; } >expect &&
	cmp_file expect out &&
	below_kib rss 32768 &&
	peak_kib rss sb -w "$REF" --json read c50.txt >out &&
	json_check out "d[\"content\"] == \"     1\\t\" + \"\\ufffd\" * 2000 + \" [... line cut: 52426800 more characters]\\n\" and d[\"size\"] == 52428800" &&
	below_kib rss 32768 &&
	peak_kib rss sb -w "$REF" read --raw c50.txt | wc -c >size &&
	cmp_text 52428800 size &&
	below_kib rss 32768 &&
	sb -w "$REF" exec -- rm c50.txt
'

test_expect_success PYTHON 'at most 1 MiB of lines shown, whatever --limit says: whole lines, then where to go on' '
	python3 -c "import sys; sys.stdout.write((\"日\" * 2000 + \"\\n\") * 2000)" >wide.txt &&
	sb -w "$REF" exec -i -- sh -c "cat >wide.txt" <wide.txt &&
	peak_kib rss sb -w "$REF" read wide.txt --limit 100000 >out &&
	line_count 176 out &&
	sed -n 175p out >l175 && { printf "   175\t"; rep 2000 "日"; echo; } >expect && cmp_file expect l175 &&
	tail -n 1 out >last &&
	cmp_text "(1825 more lines; continue with --offset 176)" last &&
	below_kib rss 32768 &&
	sb -w "$REF" --json read wide.txt --offset 1990 >out &&
	json_check out "d[\"lines\"] == 11 and d[\"truncated\"] is False and d[\"total_lines\"] == 2000" &&
	sb -w "$REF" --json read wide.txt >out &&
	json_check out "d[\"lines\"] == 175 and d[\"truncated\"] is True and len(d[\"content\"].encode()) == 175 * 6008"
'

test_expect_success 'a NUL in the first 8 KiB: binary, refused with its size' '
	expect_status 1 sb -w "$REF" read nul.bin >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: read: nul.bin: binary file (5 bytes); use --raw for its bytes" err &&
	sb -w "$REF" exec -c "{ head -c 8191 /dev/zero | tr \"\\000\" a; printf \"\\000\"; seq 1 100000; } >late-nul.bin" &&
	expect_status 1 sb -w "$REF" read late-nul.bin >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: read: late-nul.bin: binary file (597087 bytes); use --raw for its bytes" err
'

test_expect_success '--raw: the exact bytes of a binary file' '
	head -c 1048576 /dev/urandom >rnd.bin &&
	printf "\000\377\r\n" >>rnd.bin &&
	sb -w "$REF" exec -i -- sh -c "cat >rnd.bin" <rnd.bin &&
	sb -w "$REF" read --raw rnd.bin >out 2>err &&
	must_be_empty err &&
	cmp_file rnd.bin out &&
	sb -w "$REF" read nul.bin --raw >out &&
	printf "ab\000cd" >expect &&
	cmp_file expect out
'

test_expect_success '--raw: a text file as it is, no numbers, no final newline added' '
	sb -w "$REF" read --raw nonl.txt >out &&
	printf "first\nlast, without a newline" >expect &&
	cmp_file expect out &&
	sb -w "$REF" read --raw empty.txt >out 2>err &&
	must_be_empty out &&
	must_be_empty err
'

test_expect_success '--raw: a large file (20 MiB) streams whole' '
	head -c 20971520 /dev/urandom >large.bin &&
	sb -w "$REF" exec -i -- sh -c "cat >large.bin" <large.bin &&
	sb -w "$REF" read --raw large.bin >out &&
	cmp_file large.bin out &&
	rm -f large.bin out
'

test_expect_success '--raw does not go with --json: exit 2' '
	expect_status 2 sb -w "$REF" --json read --raw rnd.bin >out 2>err &&
	must_be_empty err &&
	cmp_text "{\"error\":{\"kind\":\"usage\",\"message\":\"--raw writes the file${SQ}s bytes; it does not go with --json\"}}" out
'

test_expect_success PYTHON '--json: path, content, lines, total, truncated and the sha256 of the bytes' '
	sb -w "$REF" read --raw three.txt >bytes &&
	h=$(sha bytes) &&
	sb -w "$REF" --json read three.txt >out 2>err &&
	must_be_empty err &&
	json_check out "d[\"path\"] == \"three.txt\" and d[\"content\"] == \"     1\\tone\\n     2\\ttwo\\n     3\\tthree\\n\"" &&
	json_check out "d[\"start_line\"] == 1 and d[\"lines\"] == 3 and d[\"total_lines\"] == 3 and d[\"truncated\"] is False" &&
	json_check out "d[\"sha256\"] == \"$h\" and d[\"size\"] == 14 and d[\"workspace\"] == \"$REF\""
'

test_expect_success PYTHON '--json with a window: truncated, and the sha256 is still of the whole file' '
	h=$(sb -w "$REF" read --raw big.txt | sha256sum | cut -d" " -f1) &&
	sb -w "$REF" --json read big.txt --offset 10 --limit 2 >out &&
	json_check out "d[\"content\"] == \"    10\\t10\\n    11\\t11\\n\" and d[\"start_line\"] == 10 and d[\"lines\"] == 2" &&
	json_check out "d[\"total_lines\"] == 2500 and d[\"truncated\"] is True and d[\"sha256\"] == \"$h\"" &&
	sb -w "$REF" --json read big.txt --offset 2500 >out &&
	json_check out "d[\"content\"] == \"  2500\\t2500\\n\" and d[\"truncated\"] is False"
'

test_expect_success PYTHON '--json: the sha256 of a file that is not UTF-8, against sha256sum of the same bytes' '
	printf "caf\303\251 \377\376 end\n" >latin.txt &&
	sb -w "$REF" exec -i -- sh -c "cat >latin.txt" <latin.txt &&
	sb -w "$REF" --json read latin.txt >out &&
	json_check out "d[\"sha256\"] == \"$(sha latin.txt)\" and d[\"content\"] == \"     1\\tcaf\\u00e9 \\ufffd\\ufffd end\\n\""
'

test_expect_success PYTHON '--json: an empty file' '
	sb -w "$REF" --json read empty.txt >out &&
	json_check out "d[\"content\"] == \"\" and d[\"lines\"] == 0 and d[\"total_lines\"] == 0 and d[\"truncated\"] is False" &&
	json_check out "d[\"sha256\"] == \"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\""
'

test_expect_success 'not found: exit 1, the path and the reason' '
	expect_status 1 sb -w "$REF" read no/such.txt >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: read: no/such.txt: no such file or directory" err &&
	expect_status 1 sb -w "$REF" read /etc/no-such-file 2>err &&
	cmp_text "sandbox: read: /etc/no-such-file: no such file or directory" err
'

test_expect_success 'a directory, a FIFO: refused' '
	expect_status 1 sb -w "$REF" read sub/dir >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: read: sub/dir: is a directory" err &&
	expect_status 1 sb -w "$REF" read / 2>err &&
	cmp_text "sandbox: read: /: is a directory" err &&
	expect_status 1 timeout 60 "$SANDBOX" --engine "$ENGINE" -w "$REF" read fifo 2>err &&
	cmp_text "sandbox: read: fifo: not a regular file" err
'

test_expect_success 'an absolute path, and a relative one from the workdir' '
	sb -w "$REF" read /workspace/three.txt >out &&
	printf "     1\tone\n     2\ttwo\n     3\tthree\n" >expect &&
	cmp_file expect out &&
	sb -w "$REF" read sub/../three.txt >out &&
	cmp_file expect out
'

test_expect_success 'a path that starts with -, after --' '
	sb -w "$REF" read -- -dash.txt >out &&
	printf "     1\tx\n" >expect &&
	cmp_file expect out &&
	expect_status 1 sb -w "$REF" read -- -nope 2>err &&
	cmp_text "sandbox: read: -nope: no such file or directory" err
'

test_expect_success 'permission denied: a 0600 root file, read as user 65534' '
	new_ws U --user 65534 --workdir /tmp &&
	eng exec -u 0 "$U" sh -c "echo secret >/tmp/root600 && chmod 600 /tmp/root600 && echo open >/tmp/open && chmod 644 /tmp/open" &&
	expect_status 1 sb -w "$U" read /tmp/root600 >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: read: /tmp/root600: permission denied" err &&
	expect_status 1 sb -w "$U" read --raw /tmp/root600 >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: read: /tmp/root600: permission denied" err &&
	sb -w "$U" read /tmp/open >out &&
	printf "     1\topen\n" >expect &&
	cmp_file expect out
'

test_expect_success PYTHON 'an error with --json: the error object on stdout, nothing on stderr' '
	expect_status 1 sb -w "$REF" --json read no-such >out 2>err &&
	must_be_empty err &&
	cmp_text "{\"error\":{\"kind\":\"failed\",\"message\":\"no-such: no such file or directory\"}}" out &&
	expect_status 1 sb -w "$REF" --json read nul.bin >out 2>err &&
	cmp_text "{\"error\":{\"kind\":\"failed\",\"message\":\"nul.bin: binary file (5 bytes); use --raw for its bytes\"}}" out
'

test_expect_success 'SANDBOX_WORKSPACE names the workspace; -w wins over it' '
	SANDBOX_WORKSPACE=$REF sb read three.txt --limit 1 >out 2>err &&
	must_be_empty err &&
	printf "     1\tone\n(2 more lines; continue with --offset 2)\n" >expect &&
	cmp_file expect out &&
	SANDBOX_WORKSPACE=sandbox-000000000000 sb -w "$REF" read three.txt --limit 1 >out &&
	cmp_file expect out
'

test_expect_success 'without a workspace, read creates one and says so on stderr' '
	printf "[sandbox]\nimage = %s\n" "$IMAGE" >sandbox.ini &&
	sb trust >/dev/null &&
	{ sb read /etc/passwd --limit 1 >out 2>err; st=$?; rm sandbox.ini; test $st = 0; } &&
	line_count 1 err &&
	LAZY=$(sed -n "s/^sandbox: created workspace \(sandbox-[0-9a-f]\{12\}\) (pass -w .*/\1/p" err) &&
	check "a ref in: $(cat err)" test -n "$LAZY" &&
	cmp_text "sandbox: created workspace $LAZY (pass -w $LAZY to reuse it)" err &&
	check "$LAZY exists" ctr_exists "$LAZY" &&
	grep_file "^     1	root:" out
'

test_expect_success PYTHON 'without a workspace, read --json names the new one' '
	printf "[sandbox]\nimage = %s\n" "$IMAGE" >sandbox.ini &&
	sb trust >/dev/null &&
	{ sb --json read /etc/passwd --limit 1 >out 2>err; st=$?; rm sandbox.ini; test $st = 0; } &&
	must_be_empty err &&
	json_check out "d[\"path\"] == \"/etc/passwd\" and d[\"lines\"] == 1" &&
	json_check out "d.get(\"workspace\", \"\").startswith(\"sandbox-\")"
'

test_expect_success 'a destroyed workspace: exit 255, nothing on stdout' '
	new_ws G &&
	sb destroy "$G" >/dev/null &&
	expect_status 255 sb -w "$G" read three.txt >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: read: workspace $G does not exist (destroyed?); create one with ${SQ}sandbox create${SQ}" err &&
	expect_status 255 sb -w "$G" read --raw three.txt >out 2>err &&
	must_be_empty out &&
	expect_status 255 sb --json -w "$G" read three.txt >out 2>err &&
	must_be_empty err &&
	cmp_text "{\"error\":{\"kind\":\"workspace\",\"message\":\"workspace $G does not exist (destroyed?); create one with ${SQ}sandbox create${SQ}\"}}" out
'

test_done
