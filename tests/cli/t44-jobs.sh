#!/bin/bash
# Background jobs: exec --background, jobs, logs, kill, wait. A job
# outlives its starter, is followed to its end, serves a later exec on
# loopback, is killed with all it started, is lost when its workspace
# restarts; its output is capped, head and tail; and job files that the
# workspace forged are refused without harm.
. "$(dirname "$0")/../lib.sh"
pairwise
also_on_gvisor
need_engine

# A job that waits for /tmp/go-NAME before it says anything: what the
# tests look at happens while it surely runs.
gate() { printf 'while [ ! -e /tmp/go-%s ]; do sleep 0.1; done; ' "$1"; }
go() { sb -w "$REF" exec -- touch "/tmp/go-$1"; }
# logs_has JOB TEXT: the job's output so far holds TEXT.
logs_has() { sb -w "$REF" logs "$1" | grep -q "$2"; }

# The server, and a client (busybox: httpd and wget; Debian: perl, whose
# IO::Socket comes with perl-base); the client is started once the server
# listens (listening).
SERVER='if command -v perl >/dev/null; then
	exec perl -MIO::Socket::INET -e '"'"'$s = IO::Socket::INET->new(LocalAddr => "127.0.0.1:8765", Listen => 5, ReuseAddr => 1) or die "listen: $!"; while ($c = $s->accept) { print $c "hello from job\n"; close $c }'"'"'
else
	mkdir -p /tmp/www && echo "hello from job" >/tmp/www/index.html && exec httpd -f -p 127.0.0.1:8765 -h /tmp/www
fi'
CLIENT='if command -v perl >/dev/null; then
	perl -MIO::Socket::INET -e '"'"'$c = IO::Socket::INET->new("127.0.0.1:8765") or exit 1; print <$c>'"'"' && exit 0
else
	wget -qO- http://127.0.0.1:8765/ 2>/dev/null && exit 0
fi
exit 1'
# listening: a socket of the workspace listens on 127.0.0.1:8765 (0A:
# LISTEN in /proc/net/tcp).
listening() { eng exec "$REF" grep -q "^ *[0-9]*: 0100007F:223D 00000000:0000 0A " /proc/net/tcp; }

# mcp_start TEXT: starts TEXT as a job through `sandbox mcp`, which then
# ends (end of input); prints the job's number.
mcp_start() {
	printf '%s\n' \
		'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t44","version":"1"}}}' \
		"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"exec\",\"arguments\":{\"command\":\"$1\",\"background\":true}}}" |
		sb -w "$REF" mcp >mcp.out 2>mcp.err || return 1
	python3 -c 'import json, sys
for l in open("mcp.out"):
    d = json.loads(l)
    if d.get("id") == 2:
        print(d["result"]["structuredContent"]["job"])'
}

test_expect_success 'setup: a workspace' '
	new_ws REF
'

test_expect_success 'exec --background prints the job number at once; the job goes on after it' '
	sb -w "$REF" exec --background -c "$(gate a)echo out; echo err >&2; exit 3" >id &&
	grep_file -x "[1-9][0-9]*" id &&
	J=$(cat id) &&
	sb -w "$REF" jobs >list &&
	grep_file -E "^$J +running +[0-9]+s +while" list &&
	go a &&
	expect_status 3 sb -w "$REF" wait --timeout 60 "$J" >out &&
	cmp_text "job $J: exited 3" out &&
	sb -w "$REF" logs "$J" >out &&
	cmp_text out out &&
	sb -w "$REF" logs --stderr "$J" >out &&
	cmp_text err out &&
	sb -w "$REF" jobs >list &&
	grep_file -E "^$J +exited 3 " list
'

test_expect_success '--json: the job, then jobs as an array with states' '
	sb -w "$REF" --json exec --background -- sh -c "exit 0" >out &&
	json_check out "set(d) == {\"workspace\", \"job\"} and d[\"workspace\"] == \"$REF\"" &&
	J=$(python3 -c "import json,sys; print(json.load(open(\"out\"))[\"job\"])") &&
	sb -w "$REF" wait --timeout 60 "$J" &&
	sb -w "$REF" --json jobs >out &&
	json_check out "[j for j in d[\"jobs\"] if j[\"job\"] == \"$J\" and j[\"state\"] == \"exited\" and j[\"exit_code\"] == 0 and j[\"command\"] == \"sh -c exit 0\"]"
'

test_expect_success 'logs --follow prints the output as it comes, to the end, and exits with the status' '
	sb -w "$REF" exec --background -c "echo first; $(gate b)echo second; exit 7" >id &&
	J=$(cat id) &&
	{ sb -w "$REF" logs --follow "$J" >follow 2>follow.err & } &&
	pid=$! &&
	wait_until 30 grep -q first follow &&
	no_grep_file second follow &&
	go b &&
	expect_status 7 wait_exit 60 $pid &&
	cmp_text "first
second" follow &&
	must_be_empty follow.err
'

test_expect_success 'logs --offset goes on from a byte; --json says where to go on from' '
	sb -w "$REF" exec --background -c "printf abcdef; printf XYZ >&2" >id &&
	J=$(cat id) &&
	sb -w "$REF" wait --timeout 60 "$J" &&
	sb -w "$REF" logs --offset 2 "$J" >out &&
	printf cdef >expect && cmp_file expect out &&
	sb -w "$REF" --json logs --offset 1 --stderr "$J" >out &&
	json_check out "d[\"output\"] == \"YZ\" and d[\"start\"] == 1 and d[\"next_offset\"] == 3 and d[\"stream\"] == \"stderr\" and d[\"state\"] == \"exited\"" &&
	sb -w "$REF" logs --offset 100 "$J" >out &&
	must_be_empty out
'

test_expect_success 'a job gets the environment exec would: the scripts own variables do not leak' '
	sb -w "$REF" exec --env P=mine --env r=rr --env s=ss --env n=nn --background \
		-c "echo \"\$P \$r \$s \$n\"" >id &&
	J=$(cat id) && sb -w "$REF" wait --timeout 60 "$J" &&
	sb -w "$REF" logs "$J" >out &&
	cmp_text "mine rr ss nn" out
'

test_expect_success 'a large environment, and values with quotes and newlines, reach the job' '
	A=$(head -c 70000 /dev/zero | tr "\0" a) &&
	sb -w "$REF" exec --env A="$A" --env B="$A" --env C="it${SQ}s \"q\"
two" --background -c "echo \${#A} \${#B}; printf \"%s|\" \"\$C\"" >id &&
	J=$(cat id) && sb -w "$REF" wait --timeout 60 "$J" &&
	sb -w "$REF" logs "$J" >out &&
	printf "70000 70000\nit${SQ}s \"q\"\ntwo|" >expect &&
	cmp_file expect out &&
	sb -w "$REF" exec -- sh -c "ps 2>/dev/null; cat /proc/[0-9]*/cmdline 2>/dev/null" >procs &&
	no_grep_file aaaaaaaaaa procs &&
	expect_status 1 sb -w "$REF" logs "$J" >/dev/full 2>err &&
	grep_file "cannot write the output" err
'

test_expect_success 'logs of a job that writes on ends, with what there was; logs | head ends quietly' '
	sb -w "$REF" exec --background -- yes >id &&
	J=$(cat id) &&
	wait_until 30 logs_has "$J" y &&
	timeout 120 "$SANDBOX" --engine "$ENGINE" -w "$REF" logs "$J" >out &&
	check "output came: $(wc -c <out)" test "$(wc -c <out)" -ge 2 &&
	{ sb -w "$REF" logs "$J" 2>err | head -c 10 >/dev/null; } &&
	must_be_empty err &&
	sb -w "$REF" kill "$J" >/dev/null
'

test_expect_success 'a job starts where exec would: --cwd, -e, the session' '
	sb -w "$REF" exec --session s -c "mkdir -p /tmp/sd && cd /tmp/sd && export SV=sess" &&
	sb -w "$REF" exec --session s --background -c "pwd; echo \$SV" >id &&
	J=$(cat id) && sb -w "$REF" wait --timeout 60 "$J" &&
	sb -w "$REF" logs "$J" >out &&
	cmp_text "/tmp/sd
sess" out &&
	sb -w "$REF" exec --background --cwd /tmp -e V=1 -- sh -c "pwd; echo \$V" >id &&
	J=$(cat id) && sb -w "$REF" wait --timeout 60 "$J" &&
	sb -w "$REF" logs "$J" >out &&
	cmp_text "/tmp
1" out
'

test_expect_success 'a server started in the background answers a later exec on loopback; kill stops it' '
	sb -w "$REF" exec --background -c "$SERVER" >id &&
	J=$(cat id) &&
	wait_until 60 listening &&
	sb -w "$REF" exec -c "$CLIENT" >out &&
	cmp_text "hello from job" out &&
	sb -w "$REF" kill "$J" >out &&
	cmp_text "job $J: killed TERM" out &&
	expect_status 1 sb -w "$REF" exec -c "$CLIENT" &&
	check "nothing listens" eval "! listening"
'

test_expect_success 'kill stops a tree that ignores TERM: KILL, and nothing of it is left' '
	sb -w "$REF" exec --background -c "trap \"\" TERM; sh -c \"trap \\\"\\\" TERM; sleep 1001\" & sleep 1002; wait" >id &&
	J=$(cat id) &&
	wait_until 30 has_proc "$REF" "sleep 1001" &&
	sb -w "$REF" kill "$J" >out &&
	cmp_text "job $J: killed KILL" out &&
	! has_proc "$REF" "sleep 100[12]" &&
	expect_status 137 sb -w "$REF" wait --timeout 60 "$J"
'

test_expect_success 'kill --signal sends only that signal, once' '
	sb -w "$REF" exec --background -c "trap \"echo got INT; exit 5\" INT; echo ready; while :; do sleep 0.1; done" >id &&
	J=$(cat id) &&
	wait_until 30 logs_has "$J" ready &&
	sb -w "$REF" kill --signal INT "$J" >out &&
	expect_status 5 sb -w "$REF" wait --timeout 60 "$J" &&
	sb -w "$REF" logs "$J" >out &&
	cmp_text "ready
got INT" out &&
	sb -w "$REF" kill -s SIGTERM "$J" >out &&
	cmp_text "job $J: had already ended: exited 5" out
'

test_expect_success 'wait --timeout: 124, and the job goes on' '
	sb -w "$REF" exec --background -c "$(gate c)exit 4" >id &&
	J=$(cat id) &&
	expect_status 124 sb -w "$REF" wait --timeout 1 "$J" 2>err &&
	grep_file "still running" err &&
	sb -w "$REF" jobs >list &&
	grep_file -E "^$J +running " list &&
	go c &&
	expect_status 4 sb -w "$REF" wait --timeout 60 "$J"
'

test_expect_success 'bad job numbers and signals: one line, exit 2, nothing done' '
	for j in ../1 0 01 1x "" -1 1234567890 "$(printf "1\n2")"; do
		expect_status 2 sb -w "$REF" logs -- "$j" 2>err &&
		line_count 1 err &&
		grep_file "not a job" err || return 1
	done &&
	expect_status 2 sb -w "$REF" kill --signal NOPE 1 2>err &&
	grep_file "not a signal" err &&
	expect_status 2 sb -w "$REF" kill --signal 65 1 2>err &&
	expect_status 2 sb -w "$REF" wait --timeout soon 1 2>err &&
	grep_file "expected seconds" err &&
	expect_status 1 sb -w "$REF" logs 99999 2>err &&
	grep_file "job 99999: no such job in workspace $REF" err &&
	expect_status 2 sb jobs 2>err &&
	grep_file "which workspace" err &&
	expect_status 2 sb -w "$REF" exec --background -i -- true 2>err
'

test_expect_success 'output over the cap: the first MiB and the last are kept, on disk too' '
	sb -w "$REF" exec --background -c "i=0; while [ \$i -lt 12000 ]; do printf \"%0999d\\n\" \$i; i=\$((i+1)); done" >id &&
	J=$(cat id) &&
	sb -w "$REF" wait --timeout 60 "$J" &&
	sb -w "$REF" logs "$J" >out 2>err &&
	grep_file "bytes of job $J.s output were not kept" err &&
	head -c 1000 out | grep -q "^0*0$" &&
	tail -c 1000 out | grep -q "^0*11999$" &&
	size=$(wc -c <out) &&
	check "between 2 MiB and 6 MiB kept: $size" test "$size" -ge 2097152 -a "$size" -le 6291456 &&
	kib=$(sb -w "$REF" exec -- du -sk "/tmp/.sandbox-jobs/$J" | cut -f1) &&
	check "the job keeps 6 MiB on disk at most: $kib KiB" test "$kib" -le 6300 &&
	sb -w "$REF" --json logs "$J" >out &&
	json_check out "d[\"next_offset\"] == 12000000 and d[\"start\"] == 0 and d[\"truncated\"] == True and len(d[\"output\"]) == 1048576"
'

test_expect_success 'a job started through sandbox mcp outlives the server' '
	J=$(mcp_start "echo from-mcp; sleep 1000") &&
	check "a job number: $J" test -n "$J" &&
	grep_file "kept; remove it with" mcp.err &&
	sb -w "$REF" jobs >list &&
	grep_file -E "^$J +running " list &&
	wait_until 30 logs_has "$J" from-mcp &&
	sb -w "$REF" kill "$J" >out &&
	cmp_text "job $J: killed TERM" out
'

test_expect_success TMP_KEPT 'a restarted workspace: its running jobs are lost; their output stays' '
	sb -w "$REF" exec --background -c "echo before; sleep 1000" >id &&
	J=$(cat id) &&
	wait_until 30 logs_has "$J" before &&
	sb stop "$REF" >/dev/null &&
	sb start "$REF" >/dev/null &&
	sb -w "$REF" jobs >list &&
	grep_file -E "^$J +lost " list &&
	expect_status 255 sb -w "$REF" wait --timeout 60 "$J" 2>err &&
	grep_file "was lost" err &&
	sb -w "$REF" logs "$J" >out &&
	cmp_text before out &&
	sb -w "$REF" kill "$J" >out &&
	cmp_text "job $J: lost" out
'

test_expect_success 'forged job files: refused or shown as they are, bounded, never trusted further' '
	cat >forge.sh <<-\EOF &&
	d=/tmp/.sandbox-jobs
	mkdir -p $d/77 $d/78 $d/79 $d/abc $d/0
	echo 99999 >$d/77/exit
	echo x y >$d/77/runner
	head -c 100000 /dev/zero | tr "\0" a >$d/77/cmd
	printf "1 \001\033[31m\n" >$d/78/cmd
	echo 300 >$d/78/exit
	: >$d/78/done
	printf abc >$d/79/o.0
	mkfifo $d/79/o.5
	echo 0 >$d/79/exit
	: >$d/79/done
	EOF
	sb -w "$REF" write /tmp/forge.sh <forge.sh &&
	sb -w "$REF" exec -- sh /tmp/forge.sh &&
	sb -w "$REF" jobs >list &&
	grep_file -E "^77 +lost +- +a{190}" list &&
	no_grep_file -E "a{201}" list &&
	grep_file -E "^78 +lost +- +1 \\\\001\\\\033\[31m$" list &&
	no_grep_file -E "^(abc|0) " list &&
	sb -w "$REF" logs 79 >out &&
	printf abc >expect && cmp_file expect out &&
	sb -w "$REF" logs --offset 3 79 >out &&
	must_be_empty out
'

# A stat that makes the chunk it looks at grow after each call: what a
# poll meets when the job writes between its stats, every time. (BusyBox
# sh runs its own applet, whatever PATH says: STATWRAP then is not set.)
test_expect_success 'setup: a job whose chunk grows at each stat' '
	cat >grow.sh <<-\EOF &&
	d=/tmp/.sandbox-jobs
	mkdir -p $d/80
	echo 0 >$d/80/exit
	: >$d/80/done
	real=$(command -v stat)
	printf "#!/bin/sh\n%s \"\$@\"; r=\$?\nprintf x >>$d/80/o.0\nexit \$r\n" "$real" >/usr/sbin/stat
	chmod 755 /usr/sbin/stat
	printf abc >$d/80/o.0
	sh -c "PATH=/usr/sbin:/usr/bin:/sbin:/bin; stat -c %s $d/80/o.0 >/dev/null"
	cat $d/80/o.0
	printf abc >$d/80/o.0
	EOF
	sb -w "$REF" write /tmp/grow.sh <grow.sh &&
	sb -w "$REF" exec -- sh /tmp/grow.sh >probe &&
	if test "$(cat probe)" = abcx; then test_set_prereq STATWRAP; fi
'

test_expect_success STATWRAP 'a chunk that grows between one stat and the next: an answer that adds up' '
	sb -w "$REF" logs 80 >out 2>err;
	rc=$? &&
	sb -w "$REF" exec -- rm -f /usr/sbin/stat &&
	test $rc = 0 &&
	must_be_empty err &&
	grep_file -xE "abcx*" out
'

test_expect_success 'the stand-in stat is gone' '
	sb -w "$REF" exec -- rm -f /usr/sbin/stat
'

test_expect_success 'kill never signals a group that is not the job'"'"'s: a lost job, pid 1' '
	cat >forge2.sh <<-\EOF &&
	setsid sh -c "sleep 1005 & echo \$\$ >/tmp/pg"
	d=/tmp/.sandbox-jobs
	mkdir -p $d/90 $d/91
	echo "$(cat /tmp/pg) 123" >$d/90/pid
	echo "1 456" >$d/90/runner
	echo "1 789" >$d/91/pid
	echo "1 456" >$d/91/runner
	EOF
	sb -w "$REF" write /tmp/forge2.sh <forge2.sh &&
	sb -w "$REF" exec -- sh /tmp/forge2.sh &&
	wait_until 30 has_proc "$REF" "^sleep 1005" &&
	sb -w "$REF" kill 90 >out &&
	cmp_text "job 90: lost" out &&
	sb -w "$REF" kill --signal KILL 91 >out &&
	cmp_text "job 91: lost" out &&
	has_proc "$REF" "^sleep 1005" &&
	sb -w "$REF" exec -- true
'

test_expect_success 'destroy takes a workspace with running jobs' '
	sb -w "$REF" exec --background -- sleep 1000 >id &&
	sb destroy "$REF" >/dev/null &&
	ctr_gone "$REF"
'

test_done
