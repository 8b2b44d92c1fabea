#!/bin/bash
# sandbox write: content from --content or stdin, byte for byte and of any
# size, written atomically (a temporary file in the same directory,
# renamed over the target) so that a failed or interrupted write leaves
# the old file exactly as it was; an existing file keeps its mode and
# owner; missing directories are created.
. "$(dirname "$0")/../lib.sh"
pairwise
also_on_gvisor
need_engine

sha() { sha256sum "$1" | cut -d" " -f1; }

# in_ws REF SCRIPT: runs SCRIPT as root in REF's /workspace, behind
# sandbox's back.
in_ws() { eng exec -u 0 -w /workspace "$1" sh -c "$2"; }

# no_temp REF DIR: no .sandbox-write-* file is left in DIR.
no_temp() {
	in_ws "$1" "ls -a \"$2\"" >.listing || return 1
	if grep -q "^\.sandbox-write-" .listing; then
		echo "error: a temporary file is left in $2:" >&4
		cat .listing >&4
		return 1
	fi
}

# temp_growing REF DIR: a non-empty .sandbox-write-* file is in DIR.
temp_growing() {
	in_ws "$1" "for f in \"$2\"/.sandbox-write-*; do [ -s \"\$f\" ] && exit 0; done; exit 1"
}

test_expect_success 'setup: a workspace' '
	new_ws REF
'

test_expect_success '--content: a new file, its size and path printed' '
	sb -w "$REF" write new.txt --content "hello
world" >out 2>err &&
	must_be_empty err &&
	cmp_text "wrote 11 bytes to new.txt (new file)" out &&
	sb -w "$REF" exec -- cat new.txt >got &&
	printf "hello\nworld" >expect &&
	cmp_file expect got
'

test_expect_success 'an existing file is replaced; no "(new file)"' '
	sb -w "$REF" write new.txt --content "second
" >out &&
	cmp_text "wrote 7 bytes to new.txt" out &&
	sb -w "$REF" exec -- cat new.txt >got &&
	printf "second\n" >expect &&
	cmp_file expect got
'

test_expect_success 'the content from stdin, byte for byte: every byte value, no final newline' '
	python3 -c "import sys; sys.stdout.buffer.write(bytes(range(256)) * 3 + b\"\\r\\n\\0end\")" >bytes.bin &&
	sb -w "$REF" write bytes.bin <bytes.bin >out &&
	cmp_text "wrote 774 bytes to bytes.bin (new file)" out &&
	sb -w "$REF" exec -- cat bytes.bin >got &&
	cmp_file bytes.bin got
'

test_expect_success 'a large binary stdin (20 MiB), from a file and from a pipe' '
	head -c 20971520 /dev/urandom >large.bin &&
	sb -w "$REF" write large.bin <large.bin >out &&
	cmp_text "wrote 20971520 bytes to large.bin (new file)" out &&
	sb -w "$REF" exec -- sha256sum large.bin >got &&
	cmp_text "$(sha large.bin)  large.bin" got &&
	cat large.bin | sb -w "$REF" write piped.bin >out &&
	cmp_text "wrote 20971520 bytes to piped.bin (new file)" out &&
	sb -w "$REF" exec -- cat piped.bin >got &&
	cmp_file large.bin got &&
	rm -f large.bin got &&
	sb -w "$REF" exec -- rm large.bin piped.bin
'

test_expect_success 'empty content: --content "", an empty stdin, and an existing file emptied' '
	sb -w "$REF" write e1 --content "" >out &&
	cmp_text "wrote 0 bytes to e1 (new file)" out &&
	sb -w "$REF" write e2 </dev/null >out &&
	cmp_text "wrote 0 bytes to e2 (new file)" out &&
	sb -w "$REF" write new.txt --content "" >out &&
	cmp_text "wrote 0 bytes to new.txt" out &&
	sb -w "$REF" exec -c "wc -c <e1; wc -c <e2; wc -c <new.txt" >got &&
	printf "0\n0\n0\n" >expect &&
	cmp_file expect got
'

test_expect_success '--content wins over stdin' '
	echo from-stdin | sb -w "$REF" write which --content from-option >out &&
	cmp_text "wrote 11 bytes to which (new file)" out &&
	sb -w "$REF" exec -- cat which >got &&
	printf "from-option" >expect &&
	cmp_file expect got
'

test_expect_success 'missing parent directories are created, relative and absolute' '
	sb -w "$REF" write a/b/c/deep.txt --content x >out &&
	cmp_text "wrote 1 byte to a/b/c/deep.txt (new file)" out &&
	sb -w "$REF" write /tmp/x/y/abs.txt --content y >out &&
	cmp_text "wrote 1 byte to /tmp/x/y/abs.txt (new file)" out &&
	sb -w "$REF" exec -c "cat a/b/c/deep.txt /tmp/x/y/abs.txt" >got &&
	printf "xy" >expect &&
	cmp_file expect got
'

test_expect_success 'atomic: a new inode renamed over the old; mode and owner kept; no temporary file left' '
	in_ws "$REF" "echo old >kept.txt && chmod 751 kept.txt && chown 1234:5678 kept.txt" &&
	before=$(in_ws "$REF" "stat -c %i kept.txt") &&
	sb -w "$REF" write kept.txt --content "new content" >out &&
	cmp_text "wrote 11 bytes to kept.txt" out &&
	in_ws "$REF" "stat -c \"%a %u:%g\" kept.txt; cat kept.txt" >got &&
	printf "751 1234:5678\nnew content" >expect &&
	cmp_file expect got &&
	after=$(in_ws "$REF" "stat -c %i kept.txt") &&
	check "a new inode ($before, then $after)" test "$before" != "$after" &&
	no_temp "$REF" /workspace
'

test_expect_success 'modes 0444 and 0600 are kept too' '
	in_ws "$REF" "echo a >ro.txt && chmod 444 ro.txt && echo b >priv.txt && chmod 600 priv.txt" &&
	sb -w "$REF" write ro.txt --content A >/dev/null &&
	sb -w "$REF" write priv.txt --content B >/dev/null &&
	in_ws "$REF" "stat -c %a ro.txt priv.txt; cat ro.txt priv.txt" >got &&
	printf "444\n600\nAB" >expect &&
	cmp_file expect got
'

test_expect_success 'through a symlink: the target is written, the link stays' '
	in_ws "$REF" "echo old >target.txt && ln -s target.txt link.txt" &&
	sb -w "$REF" write link.txt --content via-link >out &&
	cmp_text "wrote 8 bytes to link.txt" out &&
	in_ws "$REF" "readlink link.txt; cat target.txt" >got &&
	printf "target.txt\nvia-link" >expect &&
	cmp_file expect got
'

test_expect_success PYTHON '--json: path, bytes, sha256 and created' '
	printf "json content\n\000\377" >j.bin &&
	sb -w "$REF" --json write j.bin <j.bin >out 2>err &&
	must_be_empty err &&
	json_check out "d == {\"workspace\": \"$REF\", \"path\": \"j.bin\", \"bytes\": 15, \"sha256\": \"$(sha j.bin)\", \"created\": True}" &&
	sb -w "$REF" --json write j.bin --content "" >out &&
	json_check out "d == {\"workspace\": \"$REF\", \"path\": \"j.bin\", \"bytes\": 0, \"sha256\": \"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\", \"created\": False}"
'

test_expect_success 'a directory: refused, exit 1' '
	sb -w "$REF" exec -- mkdir -p adir &&
	expect_status 1 sb -w "$REF" write adir --content x >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: write: adir: is a directory" err &&
	expect_status 1 sb -w "$REF" write adir/ --content x 2>err &&
	cmp_text "sandbox: write: adir/: is a directory" err &&
	expect_status 1 sb -w "$REF" write . --content x 2>err &&
	cmp_text "sandbox: write: .: is a directory" err
'

test_expect_success 'a FIFO: refused, not written into' '
	sb -w "$REF" exec -- mkfifo fifo &&
	expect_status 1 timeout 60 "$SANDBOX" --engine "$ENGINE" -w "$REF" write fifo --content x >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: write: fifo: not a regular file" err
'

test_expect_success 'a parent that is a file: cannot create its directory' '
	expect_status 1 sb -w "$REF" write new.txt/under --content x >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: write: new.txt/under: cannot create its directory" err
'

test_expect_success 'a path ending in / that does not exist: refused the same way on every image, nothing left' '
	expect_status 1 sb -w "$REF" write slashdir/ --content x >out 2>err &&
	must_be_empty out &&
	grep_file "^sandbox: write: slashdir/: " err &&
	in_ws "$REF" "ls -a slashdir 2>/dev/null; true" >got &&
	no_grep_file "^\.sandbox-write-" got
'

test_expect_success 'usage: one path, not empty' '
	expect_status 2 sb -w "$REF" write --content x >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: write: which file? give its path" err &&
	expect_status 2 sb -w "$REF" write a b --content x 2>err &&
	cmp_text "sandbox: write: give one path" err &&
	expect_status 2 sb -w "$REF" write "" --content x 2>err &&
	cmp_text "sandbox: write: the path is empty" err
'

test_expect_success 'a path that starts with -, after --' '
	sb -w "$REF" write --content dash -- -dash.txt >out &&
	cmp_text "wrote 4 bytes to -dash.txt (new file)" out &&
	sb -w "$REF" exec -- cat ./-dash.txt >got &&
	printf dash >expect &&
	cmp_file expect got
'

test_expect_success 'permission denied (user 65534, a root directory): the old file exactly as it was' '
	new_ws U --user 65534 --workdir /tmp &&
	eng exec -u 0 "$U" sh -c "mkdir /tmp/rodir && echo old >/tmp/rodir/f && chmod 644 /tmp/rodir/f" &&
	before=$(eng exec "$U" stat -c "%i %a %u %s %Y" /tmp/rodir/f) &&
	expect_status 1 sb -w "$U" write /tmp/rodir/f --content new >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: write: /tmp/rodir/f: permission denied" err &&
	expect_status 1 sb -w "$U" write /tmp/rodir/g <bytes.bin 2>err &&
	cmp_text "sandbox: write: /tmp/rodir/g: permission denied" err &&
	expect_status 1 sb -w "$U" write /tmp/rodir/sub/h --content new 2>err &&
	cmp_text "sandbox: write: /tmp/rodir/sub/h: cannot create its directory" err &&
	eng exec "$U" sh -c "stat -c \"%i %a %u %s %Y\" /tmp/rodir/f; cat /tmp/rodir/f; ls -a /tmp/rodir" >got &&
	printf "%s\nold\n.\n..\nf\n" "$before" >expect &&
	cmp_file expect got
'

test_expect_success 'a read-only mount: refused, the host file untouched' '
	mkdir rohost && echo host-old >rohost/f &&
	new_ws RO --mount "$TRASH/rohost:/ro:ro" &&
	expect_status 1 sb -w "$RO" write /ro/f --content new >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: write: /ro/f: permission denied" err &&
	expect_status 1 sb -w "$RO" write /ro/new --content new 2>err &&
	cmp_text "sandbox: write: /ro/new: permission denied" err &&
	cmp_text host-old rohost/f &&
	ls -A rohost >got &&
	cmp_text f got
'

test_expect_success 'the disk full half-way: refused, the old file kept, no temporary file left' '
	new_ws SMALL -- --tmpfs /small:size=64k &&
	sb -w "$SMALL" write /small/f --content old >/dev/null &&
	head -c 200000 /dev/urandom >big200k &&
	expect_status 1 sb -w "$SMALL" write /small/f <big200k >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: write: /small/f: the write failed (is the disk full?); the file is unchanged" err &&
	cat big200k | expect_status 1 sb -w "$SMALL" write /small/f >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: write: /small/f: the write failed (is the disk full?); the file is unchanged" err &&
	in_ws "$SMALL" "cat /small/f; echo; ls -a /small" >got &&
	printf "old\n.\n..\nf\n" >expect &&
	cmp_file expect got
'

# interrupted_write SIGNAL: a write of a long stdin is under way (the
# temporary file grows) when sandbox gets SIGNAL.
interrupted_write() {
	rm -f in.fifo && mkfifo in.fifo &&
	sb -w "$REF" write keep.txt --content "the old content" >/dev/null || return 1
	"$SANDBOX" --engine "$ENGINE" -w "$REF" write keep.txt <in.fifo >out 2>err &
	pid=$!
	exec 5>in.fifo
	head -c 9000000 /dev/urandom >&5 &&
	wait_until 60 temp_growing "$REF" /workspace &&
	kill -"$1" "$pid"
	local rc=$?
	exec 5>&-
	[ $rc = 0 ] || { wait_exit 60 "$pid"; return 1; }
}

test_expect_success 'SIGTERM in the middle of stdin: exit 143, the old file intact, no temporary file' '
	interrupted_write TERM &&
	expect_status 143 wait_exit 60 "$pid" &&
	must_be_empty out &&
	cmp_text "sandbox: write: interrupted; the command was killed in the workspace" err &&
	sb -w "$REF" exec -- cat keep.txt >got &&
	printf "the old content" >expect &&
	cmp_file expect got &&
	no_temp "$REF" /workspace
'

test_expect_success 'SIGKILL in the middle of stdin: the old file intact' '
	interrupted_write KILL &&
	expect_status 137 wait_exit 60 "$pid" &&
	must_be_empty out &&
	{ wait_until 10 no_temp "$REF" /workspace || true; } &&
	sb -w "$REF" exec -- cat keep.txt >got &&
	printf "the old content" >expect &&
	cmp_file expect got
'

test_expect_success 'from a pipe, bytes that end as the stream does (a tag and a count): written as they are' '
	{ printf "data"; printf "0123456789abcdef%020d" 4; } >fake &&
	cat fake | sb -w "$REF" write fake.txt >out &&
	sb -w "$REF" exec -- cat fake.txt >got &&
	cmp_file fake got
'

test_expect_success 'SANDBOX_WORKSPACE names the workspace; -w wins over it' '
	SANDBOX_WORKSPACE=$REF sb write env.txt --content e >out 2>err &&
	must_be_empty err &&
	cmp_text "wrote 1 byte to env.txt (new file)" out &&
	SANDBOX_WORKSPACE=sandbox-000000000000 sb -w "$REF" write env.txt --content f >out &&
	cmp_text "wrote 1 byte to env.txt" out &&
	sb -w "$REF" exec -- cat env.txt >got &&
	printf f >expect &&
	cmp_file expect got
'

test_expect_success 'without a workspace, write creates one and says so on stderr' '
	printf "[sandbox]\nimage = %s\n" "$IMAGE" >sandbox.ini &&
	sb trust >/dev/null &&
	{ sb write lazy.txt --content lazy >out 2>err; st=$?; rm sandbox.ini; test $st = 0; } &&
	cmp_text "wrote 4 bytes to lazy.txt (new file)" out &&
	line_count 1 err &&
	LAZY=$(sed -n "s/^sandbox: created workspace \(sandbox-[0-9a-f]\{12\}\) (pass -w .*/\1/p" err) &&
	check "a ref in: $(cat err)" test -n "$LAZY" &&
	cmp_text "sandbox: created workspace $LAZY (pass -w $LAZY to reuse it)" err &&
	sb -w "$LAZY" exec -- cat lazy.txt >got &&
	printf lazy >expect &&
	cmp_file expect got
'

test_expect_success PYTHON 'without a workspace, write --json names the new one' '
	printf "[sandbox]\nimage = %s\n" "$IMAGE" >sandbox.ini &&
	sb trust >/dev/null &&
	{ sb --json write lazy.txt --content lazy >out 2>err; st=$?; rm sandbox.ini; test $st = 0; } &&
	must_be_empty err &&
	json_check out "d[\"path\"] == \"lazy.txt\" and d[\"bytes\"] == 4 and d[\"created\"] is True" &&
	json_check out "d.get(\"workspace\", \"\").startswith(\"sandbox-\")"
'

test_expect_success 'a destroyed workspace: exit 255' '
	new_ws G &&
	sb destroy "$G" >/dev/null &&
	expect_status 255 sb -w "$G" write x --content x >out 2>err &&
	must_be_empty out &&
	cmp_text "sandbox: write: workspace $G does not exist (destroyed?); create one with ${SQ}sandbox create${SQ}" err &&
	expect_status 255 sb -w "$G" write x <bytes.bin >out 2>err &&
	must_be_empty out &&
	expect_status 255 sb --json -w "$G" write x --content x >out 2>err &&
	must_be_empty err &&
	cmp_text "{\"error\":{\"kind\":\"workspace\",\"message\":\"workspace $G does not exist (destroyed?); create one with ${SQ}sandbox create${SQ}\"}}" out
'

test_done
