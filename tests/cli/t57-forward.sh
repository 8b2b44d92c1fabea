#!/bin/bash
# forward (man sandbox, PORTS IN): the workspace's 127.0.0.1:PORT at this
# side's 127.0.0.1:HOSTPORT, each connection an engine exec of the relay
# of ours, so on network none. Bad arguments are refused before anything
# starts; bytes go through intact both ways (sha256), 20 clients at once;
# a port nobody listens on in the workspace is said and the forward goes
# on; SIGTERM and SIGINT end it with nothing left behind; --address
# moves it; a relay the workspace replaced (a forger that floods) gets
# nowhere and keeps the memory bounded. The servers are BusyBox's httpd
# and nc, on the workspace's own loopback: no packet leaves this machine.
. "$(dirname "$0")/../lib.sh"
image_independent
need_engine
need_peak_rss

CLIENT=$TEST_LIB_DIR/fwd-client

# fwd_bg PEAK ARGS...: sandbox ARGS in the background, itself (its pid in
# FPID: a signal sent there reaches it), its output in fwd.out and
# fwd.err; with PEAK a file, its peak RSS goes there (peak_kib's way).
fwd_bg() {
	local peak=$1
	shift
	: >fwd.out
	[ "$peak" = - ] || echo 0 >"$peak"
	if [ "$peak" != - ] && test_have_prereq PEAK_RSS; then
		PEAK_RSS_FILE=$peak PEAK_RSS_EXE=$(readlink -f "$SANDBOX") LD_PRELOAD=$TRASH/.peak-rss.so \
			"$SANDBOX" --engine "$ENGINE" "$@" >fwd.out 2>fwd.err &
	else
		"$SANDBOX" --engine "$ENGINE" "$@" >fwd.out 2>fwd.err &
	fi
	FPID=$!
	bg_track "$FPID"
}
# forward_start ARGS...: sb forward ARGS in the background (fwd_bg), once
# it says where it listens: one line a port given.
forward_start() {
	local want=0 a
	for a in "$@"; do case $a in [0-9]*) want=$((want + 1)) ;; esac; done
	fwd_bg - forward "$@"
	wait_until 60 forward_says "$want"
}
forward_says() {
	[ "$(wc -l <fwd.out)" -ge "$1" ] || ! kill -0 "$FPID" 2>/dev/null
}
# host_port N: the port of fwd.out's line N.
host_port() { sed -n "${1}p" fwd.out | sed 's/^forwarding 127\.0\.0\.[0-9]*:\([0-9]*\) to .*/\1/'; }
# relay_clients: the engine clients of relays on this machine.
relay_clients() { pgrep -f -- "exec -i .*sandbox-relay-[0-9a-f]* connect" || true; }
no_relay_clients() { [ -z "$(relay_clients)" ]; }
port_closed() { ! python3 -c 'import socket, sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)' "$1" 2>/dev/null; }

test_expect_success 'bad ports, a bad address, no port: refused with 2, nothing started' '
	for bad in 0 65536 x80 1:2:3 :80 "80:" 123456 8080x; do
		expect_status 2 sb forward -w nosuch "$bad" 2>err || return 1
		grep_file "no port: give \[HOSTPORT:\]PORT" err || return 1
	done &&
	expect_status 2 sb forward -w nosuch 2>err &&
	grep_file "which port? give \[HOSTPORT:\]PORT" err &&
	expect_status 2 sb forward 8080 2>err &&
	grep_file "which workspace?" err &&
	expect_status 2 sb forward -w nosuch --address nowhere 8080 2>err &&
	grep_file "^sandbox: forward: --address .nowhere.: not an address" err &&
	no_relay_clients
'

test_expect_success 'setup: a workspace with a web server and an echo server on its loopback' '
	new_ws REF &&
	sb -w "$REF" exec -c "mkdir -p /www && head -c 10485760 /dev/urandom >/www/big &&
		echo hello >/www/small && httpd -p 127.0.0.1:8080 -h /www &&
		{ nc -ll -p 9000 -e cat </dev/null >/dev/null 2>&1 & }" &&
	sb -w "$REF" exec -c "sha256sum /www/big" | cut -d" " -f1 >big.sha &&
	head -c 20000000 /dev/urandom >up &&
	sha256sum up | cut -d" " -f1 >up.sha &&
	wait_until 30 sb -w "$REF" exec -c "netstat -ltn | grep -q :9000"
'

test_expect_success 'a port in use here: refused with 1 and what to do, nothing started' '
	python3 -c "import socket, time
s = socket.socket(); s.bind((\"127.0.0.1\", 0)); s.listen(1)
print(s.getsockname()[1], flush=True); time.sleep(600)" >busy &
	B=$! &&
	wait_until 10 test -s busy &&
	expect_status 1 sb forward "$REF" "$(cat busy):8080" 2>err &&
	kill $B &&
	grep_file "^sandbox: forward: 127.0.0.1 port $(cat busy) is in use: pick another HOSTPORT, or 0 for any free one$" err &&
	no_relay_clients
'

test_expect_success 'one download and one echo of 20 MB, intact; a small file; SIGTERM ends it: 143' '
	forward_start "$REF" 0:8080 0:9000 &&
	grep_file "^forwarding 127\.0\.0\.1:[0-9]* to $REF.s 127\.0\.0\.1:8080$" fwd.out &&
	grep_file "^forwarding 127\.0\.0\.1:[0-9]* to $REF.s 127\.0\.0\.1:9000$" fwd.out &&
	P=$(host_port 1) Q=$(host_port 2) &&
	"$CLIENT" get 127.0.0.1 "$P" /big 1 >out &&
	cmp_text "200 $(cat big.sha)" out &&
	"$CLIENT" get 127.0.0.1 "$P" /small 1 >out &&
	cmp_text "200 $(printf "hello\n" | sha256sum | cut -d" " -f1)" out &&
	"$CLIENT" echo 127.0.0.1 "$Q" up 1 >out &&
	cmp_text "20000000 $(cat up.sha)" out &&
	kill -TERM "$FPID" &&
	{ wait_exit 60 "$FPID"; test $? = 143; } &&
	port_closed "$P" &&
	wait_until 30 no_relay_clients
'

test_expect_success '20 clients at once, 10 downloads and 10 echoes: each intact; peak RSS under 32 MiB' '
	head -c 2000000 /dev/urandom >up2 &&
	S2=$(sha256sum up2 | cut -d" " -f1) &&
	fwd_bg peak forward "$REF" 0:8080 0:9000 &&
	wait_until 60 forward_says 2 &&
	P=$(host_port 1) Q=$(host_port 2) &&
	{ "$CLIENT" get 127.0.0.1 "$P" /big 10 >gets & G=$!; } &&
	"$CLIENT" echo 127.0.0.1 "$Q" up2 10 >echoes &&
	wait "$G" &&
	test "$(sort -u gets)" = "200 $(cat big.sha)" && line_count 10 gets &&
	test "$(sort -u echoes)" = "2000000 $S2" && line_count 10 echoes &&
	kill -INT "$FPID" &&
	{ wait_exit 60 "$FPID"; test $? = 130; } &&
	below_kib peak 32768 &&
	wait_until 30 no_relay_clients
'

test_expect_success 'no server on the port in the workspace: the connection closes, it is said, the forward goes on' '
	forward_start "$REF" 0:8999 0:8080 &&
	P=$(host_port 1) Q=$(host_port 2) &&
	"$CLIENT" nothing 127.0.0.1 "$P" >out &&
	cmp_text "closed 0" out &&
	wait_until 30 grep -q "^sandbox: forward: $REF.s 127\.0\.0\.1:8999: cannot connect: 127\.0\.0\.1:8999: Connection refused$" fwd.err &&
	"$CLIENT" get 127.0.0.1 "$Q" /small 1 >out &&
	grep_file "^200 " out &&
	kill -TERM "$FPID" && { wait_exit 60 "$FPID"; test $? = 143; }
'

test_expect_success '--address: it listens there and nowhere else; --json says where' '
	fwd_bg - --json forward "$REF" 0:8080 --address 127.0.0.2 &&
	wait_until 60 forward_says 1 &&
	json_check fwd.out "d[\"workspace\"] == \"$REF\" and len(d[\"forwards\"]) == 1 and d[\"forwards\"][0][\"address\"] == \"127.0.0.2\" and d[\"forwards\"][0][\"port\"] == 8080" &&
	P=$(python3 -c "import json; print(json.load(open(\"fwd.out\"))[\"forwards\"][0][\"host_port\"])") &&
	"$CLIENT" get 127.0.0.2 "$P" /small 1 >out &&
	grep_file "^200 " out &&
	port_closed "$P" &&
	kill -TERM "$FPID" && { wait_exit 60 "$FPID"; test $? = 143; } &&
	must_be_empty fwd.err
'

test_expect_success 'a relay the workspace replaced: a forger gets nowhere, a flood stays bounded' '
	R=$(sb -w "$REF" exec -c "ls /tmp/.sandbox-relay-*" | head -n 1) &&
	test -n "$R" &&
	sb -w "$REF" exec -- sh -c "printf \"#!/bin/sh\\necho forged\\nexec cat /dev/zero\\n\" >$R.new && chmod 755 $R.new && mv -f $R.new $R" &&
	forward_start "$REF" 0:8080 &&
	P=$(host_port 1) &&
	"$CLIENT" nothing 127.0.0.1 "$P" >out &&
	cmp_text "closed 0" out &&
	wait_until 30 grep -q "answered with no relay.s word" fwd.err &&
	kill -TERM "$FPID" && { wait_exit 60 "$FPID"; test $? = 143; } &&
	sb -w "$REF" exec -- killall cat &&
	sb -w "$REF" exec -- sh -c "printf \"#!/bin/sh\\nprintf R\\nexec cat /dev/zero\\n\" >$R.new && chmod 755 $R.new && mv -f $R.new $R" &&
	fwd_bg peak forward "$REF" 0:8080 &&
	wait_until 60 forward_says 1 &&
	P=$(host_port 1) &&
	"$CLIENT" stall 127.0.0.1 "$P" 50000000 >out &&
	cmp_text "read 50000000" out &&
	kill -TERM "$FPID" && { wait_exit 60 "$FPID"; test $? = 143; } &&
	below_kib peak 32768 &&
	wait_until 30 no_relay_clients &&
	sb -w "$REF" exec -- killall cat &&
	sb -w "$REF" exec -- rm -f "$R"
'

# poll(2) refuses more descriptors than the open files allowed: forward
# raises its soft limit as far as the hard one lets it (and else holds
# fewer connections at once).
test_expect_success 'few open files allowed (ulimit -S -n 40): 12 clients at once, every one served' '
	: >fwd.out &&
	{ ( ulimit -S -n 40 && exec "$SANDBOX" --engine "$ENGINE" forward "$REF" 0:8080 >fwd.out 2>fwd.err ) & } &&
	FPID=$! && bg_track "$FPID" &&
	wait_until 60 forward_says 1 &&
	"$CLIENT" get 127.0.0.1 "$(host_port 1)" /small 12 >out &&
	test "$(sort -u out)" = "200 $(printf "hello\n" | sha256sum | cut -d" " -f1)" && line_count 12 out &&
	kill -TERM "$FPID" && { wait_exit 60 "$FPID"; test $? = 143; } &&
	must_be_empty fwd.err
'

test_expect_success 'the relay is put back when it is gone, and destroy takes the workspace' '
	forward_start "$REF" 0:8080 &&
	"$CLIENT" get 127.0.0.1 "$(host_port 1)" /small 1 >out &&
	grep_file "^200 " out &&
	kill -TERM "$FPID" && { wait_exit 60 "$FPID"; test $? = 143; } &&
	sb destroy "$REF" >/dev/null
'

test_done
