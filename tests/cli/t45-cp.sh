#!/bin/bash
# sandbox cp: files and trees both ways as tar streams through the exec,
# with docker cp's rules for where things land; modes, mtimes and links
# kept; names of any bytes. Out of a hostile workspace (its root puts a
# /bin/sh of its own that runs something else for the script's tar), every
# entry that would land outside DEST is refused and named, nothing is
# left half-written, a cut stream is an error, an endless one ends at the
# deadline, and the memory stays flat. Into the workspace, a link there
# that stands for a directory is never written through.
. "$(dirname "$0")/../lib.sh"
pairwise
also_on_gvisor
need_engine
need_peak_rss

# in_ws REF SCRIPT: runs SCRIPT as root in REF's /workspace, behind
# sandbox's back.
in_ws() { eng exec -u 0 -w /workspace "$1" sh -c "$2"; }

# A tree with modes, old mtimes, links pointing out and a nested dir.
mk_tree() {
	rm -rf "$1" && mkdir -p "$1/sub/deep" &&
	printf "hello\n" >"$1/a.txt" &&
	head -c 300000 /dev/urandom >"$1/sub/big.bin" &&
	printf "#!/bin/sh\n" >"$1/sub/run.sh" && chmod 751 "$1/sub/run.sh" &&
	printf "deep\n" >"$1/sub/deep/d.txt" &&
	ln -s ../a.txt "$1/sub/rel" &&
	ln -s /etc/passwd "$1/sub/abs" &&
	chmod 750 "$1/sub" &&
	touch -h -d 2001-02-03T04:05:06 "$1/a.txt" "$1/sub/run.sh" "$1/sub/deep/d.txt" "$1/sub/big.bin" &&
	touch -d 2002-03-04T05:06:07 "$1/sub/deep" "$1/sub" "$1"
}

# listing DIR: every entry with its type, mode, mtime, size (files) and
# link target, sorted; names as bytes escaped by find.
listing() {
	(cd "$1" && find . -mindepth 1 -printf "%p %y %m %s %l\n" -o -true | LC_ALL=C sort |
		awk "{ if (\$2 == \"d\" || \$2 == \"l\") \$4 = \"-\"; print }") &&
	(cd "$1" && find . -mindepth 1 ! -type l -printf "%p %TY-%Tm-%Td %TH:%TM:%.2TS\n" | LC_ALL=C sort)
}

test_expect_success 'setup: a workspace and a tree' '
	new_ws REF &&
	mk_tree tree
'

test_expect_success 'a directory in, to a new name, then out again: modes, mtimes and links kept' '
	sb -w "$REF" cp tree :copy >out 2>err &&
	must_be_empty err &&
	cmp_text "copied 4 files, 3 directories, 2 links (300021 bytes) to :copy" out &&
	in_ws "$REF" "ls -l copy/sub/rel copy/sub/abs" >links &&
	grep_file "rel -> ../a.txt" links &&
	grep_file "abs -> /etc/passwd" links &&
	sb -w "$REF" cp :copy back >out &&
	cmp_text "copied 4 files, 3 directories, 2 links (300021 bytes) to back" out &&
	listing tree >expect && listing back >got &&
	cmp_file expect got &&
	cmp tree/sub/big.bin back/sub/big.bin
'

test_expect_success 'a directory to an existing directory lands in it under its name' '
	in_ws "$REF" "mkdir -p into" &&
	sb -w "$REF" cp tree :into >/dev/null &&
	in_ws "$REF" "test -f into/tree/sub/deep/d.txt" &&
	mkdir host-into &&
	sb -w "$REF" cp :copy host-into >/dev/null &&
	test -f host-into/copy/sub/deep/d.txt
'

test_expect_success 'SRC/. copies the contents, into an existing directory or a new one' '
	sb -w "$REF" cp tree/. :into >/dev/null &&
	in_ws "$REF" "test -f into/a.txt && test -d into/sub/deep" &&
	sb -w "$REF" cp :copy/. contents >/dev/null &&
	test -f contents/a.txt && test -f contents/sub/deep/d.txt &&
	sb -w "$REF" cp :copy/. contents >/dev/null &&
	test ! -e contents/copy
'

test_expect_success 'a file: to a new name, into a directory, over a file' '
	sb -w "$REF" cp tree/a.txt :one.txt >out &&
	cmp_text "copied 1 file (6 bytes) to :one.txt" out &&
	sb -w "$REF" cp tree/sub/run.sh :into >/dev/null &&
	in_ws "$REF" "stat -c %a into/run.sh" >mode &&
	cmp_text 751 mode &&
	printf "old\n" >f.txt &&
	sb -w "$REF" cp :one.txt f.txt >/dev/null &&
	cmp tree/a.txt f.txt &&
	mkdir fdir && sb -w "$REF" cp :one.txt fdir >/dev/null &&
	cmp tree/a.txt fdir/one.txt &&
	test "$(stat -c %Y fdir/one.txt)" = "$(stat -c %Y tree/a.txt)"
'

test_expect_success 'a symlink is copied as a link, both ways' '
	sb -w "$REF" cp tree/sub/abs :alink >/dev/null &&
	in_ws "$REF" "readlink alink" >t && cmp_text /etc/passwd t &&
	sb -w "$REF" cp :alink hlink >/dev/null &&
	test -L hlink && test "$(readlink hlink)" = /etc/passwd
'

test_expect_success 'several sources need an existing directory' '
	mkdir multi &&
	sb -w "$REF" cp :one.txt :alink multi >/dev/null &&
	test -f multi/one.txt && test -L multi/alink &&
	expect_status 2 sb -w "$REF" cp :one.txt :alink nowhere 2>err &&
	grep_file "several sources need an existing directory" err
'

test_expect_success 'a tar stream: - as DEST writes one, - as SRC reads one' '
	sb -w "$REF" cp :copy - >s.tar &&
	tar -tf s.tar >names &&
	grep_file "^copy/sub/deep/d.txt$" names &&
	mkdir fromtar && tar -C fromtar -xf s.tar && cmp tree/sub/big.bin fromtar/copy/sub/big.bin &&
	tar -C tree -cf in.tar a.txt sub &&
	in_ws "$REF" "mkdir -p streamed" &&
	sb -w "$REF" cp - :streamed <in.tar >/dev/null &&
	sb -w "$REF" cp :streamed/sub/big.bin big.out >/dev/null &&
	cmp tree/sub/big.bin big.out
'

test_expect_success 'bad command lines change nothing (exit 2)' '
	expect_status 2 sb -w "$REF" cp tree 2>err &&
	expect_status 2 sb -w "$REF" cp tree other 2>err &&
	grep_file "workspace" err &&
	expect_status 2 sb -w "$REF" cp :a :b 2>err &&
	expect_status 2 sb -w "$REF" cp - - 2>err
'

test_expect_success 'a missing source, or a directory onto a file, is an error' '
	expect_status 1 sb -w "$REF" cp :nope x 2>err &&
	grep_file ":nope: no such file or directory" err &&
	test ! -e x &&
	expect_status 1 sb -w "$REF" cp nope :x 2>err &&
	grep_file "nope: No such file" err &&
	expect_status 1 sb -w "$REF" cp :copy f.txt 2>err &&
	grep_file "not a directory" err &&
	expect_status 1 sb -w "$REF" cp tree :one.txt 2>err &&
	grep_file "not a directory" err
'

test_expect_success 'hostile names round trip: newlines, leading dash, spaces, bytes not UTF-8' '
	rm -rf names && mkdir names &&
	printf x >"names/new
line" &&
	printf x >names/-rf &&
	printf x >"names/with  spaces " &&
	printf x >"names/$(printf "\\377\\376bin")" &&
	mkdir "names/-dir
x" && printf y >"names/-dir
x/--" &&
	ln -s -- "-dir
x" "names/ln
k" &&
	sb -w "$REF" cp names :-names >/dev/null &&
	sb -w "$REF" cp :-names names-back >/dev/null &&
	listing names >expect && listing names-back >got &&
	cmp_file expect got
'

# Names that GNU tar, given them, would unquote (a tab, one backslash, A).
ESC_NAMES=('p\t' 'b\\s' 'o\101')

test_expect_success 'names tar would unquote (p\t, b\\s, o\101): each out of the workspace alone, exact' '
	mkdir esc-out &&
	for n in "${ESC_NAMES[@]}"; do
		sb -w "$REF" write --content "$n
" -- "$n" >/dev/null &&
		sb -w "$REF" cp ":$n" esc-out >/dev/null &&
		cmp_text "$n" "esc-out/$n" || return 1
	done &&
	LC_ALL=C ls esc-out >got &&
	printf "%s\n" "${ESC_NAMES[@]}" | LC_ALL=C sort >expect &&
	cmp_file expect got
'

test_expect_success 'into the workspace, a link there standing for a directory is not written through' '
	in_ws "$REF" "mkdir -p /tmp/elsewhere merge && ln -s /tmp/elsewhere merge/sub" &&
	expect_status 1 sb -w "$REF" cp tree/. :merge 2>err &&
	grep_file "sub: a symbolic link in the workspace" err &&
	in_ws "$REF" "ls -A /tmp/elsewhere" >left &&
	must_be_empty left &&
	in_ws "$REF" "ls -A merge" >left &&
	cmp_text sub left
'

test_expect_success 'into the workspace, nothing half-made is left when the input is bad' '
	printf "not a tar archive at all, but long enough to fill a block" >bad.tar &&
	head -c 2000 /dev/zero >>bad.tar &&
	expect_status 1 sb -w "$REF" cp - :badin <bad.tar 2>err &&
	grep_file "the input" err &&
	in_ws "$REF" "ls -A" >all &&
	no_grep_file "sandbox-cp" all &&
	no_grep_file "badin" all
'

# --- a hostile workspace: its own tar ------------------------------------

# The hostile sh (tests/lib.sh, rewriting_sh) rewrites the cp script's
# tar command.
# tar_says TEXT: from now on the cp script runs TEXT for its tar -c.
tar_says() { answer_with "tar -cf - \${q:+\"\$q\"} \"\$@\"" "$1"; }

# evil_tar FILE: from now on the workspace tar answers any -c with FILE.
evil_tar() {
	eng exec -i -u 0 "$REF" dd of=/tmp/evil.tar 2>/dev/null <"$1" &&
	tar_says "cat /tmp/evil.tar"
}

# mk_evil FILE PYTHON: a tar made by python3 tarfile; t is the open
# archive, add(name, type, data, link) adds an entry.
mk_evil() {
	python3 - "$1" "$2" <<-\PY
	import io, sys, tarfile
	out, code = sys.argv[1], sys.argv[2]
	t = tarfile.open(out, "w", format=tarfile.GNU_FORMAT)
	def add(name, kind=tarfile.REGTYPE, data=b"", link=""):
	    i = tarfile.TarInfo(name)
	    i.type = kind
	    i.size = len(data) if kind == tarfile.REGTYPE else 0
	    i.linkname = link
	    i.mode = 0o755 if kind == tarfile.DIRTYPE else 0o644
	    t.addfile(i, io.BytesIO(data) if kind == tarfile.REGTYPE else None)
	exec(code)
	t.close()
	PY
}

test_expect_success 'setup: a second workspace, for the hostile tar' '
	new_ws REF2 &&
	REF=$REF2 &&
	sb -w "$REF" exec true &&
	in_ws "$REF" "printf x >victim && mkdir -p vdir" &&
	rewriting_sh "$REF" &&
	mkdir hout
'

# refused NAME WHY: cp :vdir hout/dest refuses with that message and
# writes nothing outside hout/dest, no temporary anywhere.
refused() {
	expect_status 1 sb -w "$REF" cp :vdir hout/dest 2>err &&
	grep_file -F "$1" err &&
	grep_file -F "$2" err &&
	test ! -e "$TRASH/escaped" && test ! -e /tmp/sandbox-t45-escaped &&
	find "$TRASH" -name ".sandbox-cp-*" >tmps && must_be_empty tmps
}

test_expect_success 'an entry with .. is refused and named' '
	mk_evil e1.tar "add(\"vdir\", tarfile.DIRTYPE); add(\"vdir/ok\", data=b\"ok\"); add(\"vdir/../../../escaped\", data=b\"pwn\")" &&
	evil_tar e1.tar &&
	rm -rf hout/dest &&
	refused "vdir/../../../escaped" "a name with a ${SQ}..${SQ} component"
'

test_expect_success 'an absolute name is refused and named' '
	mk_evil e2.tar "add(\"/tmp/sandbox-t45-escaped\", data=b\"pwn\")" &&
	evil_tar e2.tar &&
	rm -rf hout/dest &&
	refused "/tmp/sandbox-t45-escaped" "an absolute name"
'

test_expect_success 'a symlink, then a file through it: refused, nothing written outside' '
	mkdir -p outside &&
	mk_evil e3.tar "add(\"vdir\", tarfile.DIRTYPE); add(\"vdir/l\", tarfile.SYMTYPE, link=\"$TRASH/outside\"); add(\"vdir/l/pwned\", data=b\"pwn\")" &&
	evil_tar e3.tar &&
	rm -rf hout/dest &&
	refused "vdir/l/pwned" "goes through a symbolic link" &&
	ls -A outside >o && must_be_empty o &&
	! test -e hout/dest
'

test_expect_success 'a hard link to a file the copy did not write is refused' '
	mk_evil e4.tar "add(\"vdir\", tarfile.DIRTYPE); add(\"vdir/h\", tarfile.LNKTYPE, link=\"/etc/passwd\")" &&
	evil_tar e4.tar &&
	rm -rf hout/dest &&
	refused "vdir/h" "a hard link to a file outside the copy"
'

test_expect_success 'a name over the reader limit is refused; a long name of long components is refused by the disk, not written' '
	mk_evil e5.tar "add(\"vdir/\" + \"a\" * 70000, data=b\"x\")" &&
	evil_tar e5.tar &&
	rm -rf hout/dest &&
	expect_status 255 sb -w "$REF" cp :vdir hout/dest 2>err &&
	grep_file "over the limit" err &&
	mk_evil e6.tar "add(\"vdir\", tarfile.DIRTYPE); add(\"vdir/\" + \"b\" * 300, data=b\"x\")" &&
	evil_tar e6.tar &&
	rm -rf hout/dest &&
	expect_status 1 sb -w "$REF" cp :vdir hout/dest 2>err &&
	grep_file "File name too long" err
'

test_expect_success 'a stream cut inside a file: an error, and no file half-written' '
	mk_evil e7.tar "add(\"vdir\", tarfile.DIRTYPE); add(\"vdir/whole\", data=b\"w\"); add(\"vdir/cut\", data=b\"c\" * 100000)" &&
	head -c 60000 e7.tar >e7cut.tar &&
	evil_tar e7cut.tar &&
	rm -rf hout/dest &&
	expect_status 255 sb -w "$REF" cp :vdir hout/dest 2>err &&
	grep_file "truncated archive" err &&
	! test -e hout/dest &&
	find hout -name ".sandbox-cp-*" >tmps && must_be_empty tmps
'

test_expect_success 'an endless stream ends at the deadline, memory flat' '
	mk_evil e8.tar "add(\"vdir/d\", tarfile.DIRTYPE)" &&
	head -c 512 e8.tar >one.tar &&
	eng exec -i -u 0 "$REF" dd of=/tmp/one.tar 2>/dev/null <one.tar &&
	tar_says "while :; do cat /tmp/one.tar; done" &&
	rm -rf hout/dest &&
	start=$(now_s) &&
	peak_kib rss expect_status 1 sb -w "$REF" cp --timeout 5 :vdir hout/dest 2>err &&
	grep_file "timed out" err &&
	elapsed_below "$start" 30 &&
	test "$(cat rss)" -lt 32768
'

test_expect_success 'devices and FIFOs are skipped, with a note' '
	tar_says "tar -cf - \"\$@\"" &&
	in_ws "$REF" "mkdir -p /workspace/sp && mkfifo /workspace/sp/fifo && printf x >/workspace/sp/f" &&
	sb -w "$REF" cp :sp spout >out 2>err &&
	grep_file "skipped 1 device" err &&
	test -f spout/f && test ! -e spout/fifo
'

test_done
