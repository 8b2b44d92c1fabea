#!/bin/bash
# network = allow (man sandbox, NETWORK BY ALLOW-LIST): the workspace has
# loopback alone and reaches, through its proxy on this side, what its
# patterns name, and nothing else. Bad patterns are refused with 2 and
# nothing made; the proxy is named in every form tools read; real clients
# get through (BusyBox wget; on Debian apt's http and https methods and
# perl), bytes intact both ways, 20 at once, 200 held open at once, one
# stalled reader stopping only itself; a name not listed, a listed name
# at another port, a name that resolves to loopback, an address literal,
# a bad or endless request head, a Host that disagrees: refused, each with its reason, on record;
# a tool that ignores the proxy finds no network; a relay the workspace
# replaced with a forger ends its own proxy and nothing else; a proxy
# killed is started again by the next command or MCP call; stop,
# start and destroy take the proxy with them; net shows the record, as a
# table, --json and --follow.
#
# Network: loopback only. The upstreams are this file's own
# (tests/net-upstream on 127.0.0.1), and every name the patterns allow is
# mapped to them in the proxy's resolution (SANDBOX_RESOLVE): no name is
# resolved by any resolver and no packet goes to an address the file did
# not make.
. "$(dirname "$0")/../lib.sh"
pairwise
need_engine
command -v openssl >/dev/null 2>&1 && test_set_prereq OPENSSL
case $BASE_IMAGE in
*busybox*) test_set_prereq BUSYBOX ;;
*) test_set_prereq DEBIAN ;;
esac

UPSTREAM=$TEST_LIB_DIR/net-upstream
export SANDBOX_RESOLVE=up.test=127.0.0.1,tls.test=127.0.0.1,home.test=127.0.0.1

# up_start VAR DIR [--tls CERT KEY]: a net-upstream of ours in the
# background, its port in VAR once it listens.
up_start() {
	local var=$1 dir=$2 pf
	shift 2
	pf=$TRASH/port-$var
	"$UPSTREAM" "$dir" "$pf" "$@" &
	bg_track $!
	wait_until 30 test -s "$pf" || return 1
	printf -v "$var" '%s' "$(cat "$pf")"
}
# ws_id REF: the container's full ID.
ws_id() { eng container inspect --format '{{.Id}}' "$1"; }
# proxy_of ID: the pid of ID's proxy, if one runs.
proxy_of() { pgrep -f -- "net serve [^ ]* $1 " || true; }
no_proxy_of() { [ -z "$(proxy_of "$1")" ]; }
has_proxy_of() { [ -n "$(proxy_of "$1")" ]; }
# fetch URL FILE: a real client in the workspace, through the proxy.
fetch() {
	if test_have_prereq BUSYBOX; then
		sb -w "$REF" exec -- wget -q -O "$2" "$1"
	else
		sb -w "$REF" exec -- /usr/lib/apt/apt-helper -o Acquire::https::Verify-Peer=false \
			-o Acquire::https::Verify-Host=false download-file "$1" "$2"
	fi
}
# last_rec PY: the last record of REF's connections (net --json) holds
# for the python expression PY over it, d.
last_rec() {
	sb net "$REF" --json | tail -n 1 >rec.json && json_check rec.json "$1"
}

test_expect_success 'bad patterns, or none: refused with 2, nothing made' '
	for bad in "bad/x" "*" "a.*.b" "fd00::1" "x:0" "x:65536" "http://x" "[fd00::1"; do
		expect_status 2 sb create --image "$IMAGE" --allow "$bad" 2>err || return 1
		grep_file "^sandbox: create: allow " err || return 1
	done &&
	expect_status 2 sb create --image "$IMAGE" --network allow 2>err &&
	grep_file "network = allow lets nothing through without a pattern" err &&
	printf "[sandbox]\nallow = pypi.org bad/pattern\n" >bad.ini &&
	expect_status 2 sb --config bad.ini create --image "$IMAGE" 2>err &&
	grep_file "allow .bad/pattern." err &&
	no_workspace_left
'

test_expect_success PYTHON 'setup: our upstreams on loopback, a workspace that may reach them' '
	mkdir -p www && echo hello-upstream >www/small &&
	head -c 3000000 /dev/urandom >www/big && sha256sum <www/big | cut -d" " -f1 >big.sha &&
	head -c 2200000 /dev/urandom | base64 >www/text && sha256sum <www/text | cut -d" " -f1 >text.sha &&
	up_start UP www &&
	up_start HOMEP www &&
	up_start SLOW www --slow &&
	cat >late.py <<-\EOF &&
	import socket, sys, threading, time, os
	s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(64)
	open(sys.argv[1] + ".tmp", "w").write("%d\n" % s.getsockname()[1]); os.rename(sys.argv[1] + ".tmp", sys.argv[1])
	def one(c):
	    c.sendall(b"hello\n"); time.sleep(0.3); c.close()
	while True:
	    c, _ = s.accept(); threading.Thread(target=one, args=(c,), daemon=True).start()
	EOF
	{ python3 late.py "$TRASH/port-LATE" & } && bg_track $! &&
	wait_until 30 test -s "$TRASH/port-LATE" && LATE=$(cat "$TRASH/port-LATE") &&
	if test_have_prereq OPENSSL; then
		openssl req -x509 -newkey rsa:2048 -nodes -keyout key.pem -out cert.pem -days 2 \
			-subj /CN=tls.test 2>/dev/null &&
		up_start TLS www --tls cert.pem key.pem
	fi &&
	new_ws REF --allow "up.test:$UP 127.0.0.1:$UP" --allow "home.test:$HOMEP" \
		--allow "up.test:$SLOW 127.0.0.1:$SLOW" \
		--allow "up.test:$LATE 127.0.0.1:$LATE" \
		${TLS:+--allow "tls.test:$TLS" --allow "127.0.0.1:$TLS"} &&
	ID=$(ws_id "$REF") &&
	has_proxy_of "$ID"
'

test_expect_success PYTHON 'the proxy is named in every form tools read' '
	sb -w "$REF" exec -- env >env &&
	for v in HTTP_PROXY HTTPS_PROXY ALL_PROXY http_proxy https_proxy all_proxy; do
		grep_file "^$v=http://127.0.0.1:3128\$" env || return 1
	done &&
	grep_file "^NO_PROXY=localhost,127.0.0.1,::1\$" env &&
	grep_file "^no_proxy=localhost,127.0.0.1,::1\$" env &&
	grep_file "^NODE_USE_ENV_PROXY=1\$" env &&
	grep_file "^JAVA_TOOL_OPTIONS=.*-Dhttp.proxyHost=127.0.0.1 -Dhttp.proxyPort=3128 .*-Dhttps.proxyPort=3128" env
'

test_expect_success PYTHON 'a real client gets through: the bytes intact, the connection on record' '
	fetch "http://up.test:$UP/big" /tmp/big &&
	sb -w "$REF" exec -- sha256sum /tmp/big | cut -d" " -f1 >got &&
	cmp_file big.sha got &&
	last_rec "d[\"verdict\"] == \"allowed\" and d[\"host\"] == \"up.test\" and d[\"port\"] == $UP and d[\"method\"] == \"GET\" and d[\"address\"] == \"127.0.0.1\" and d[\"received\"] > 3000000 and d[\"sent\"] > 0 and d[\"workspace\"] == \"$REF\" and d[\"ms\"] >= 0" &&
	grep_file "^GET /big HTTP/1" "$TRASH/port-UP.log"
'

test_expect_success PYTHON 'a plain request goes on in origin form, its hops dropped' '
	fetch "http://up.test:$UP/echo-headers" /tmp/h &&
	sb -w "$REF" exec -- cat /tmp/h >h &&
	grep_file "^GET /echo-headers HTTP/1" h &&
	grep_file -i "^Connection: close" h &&
	no_grep_file -i "^Proxy-" h
'

# BusyBox's wget posts a file as a string: text, with no NUL in it.
test_expect_success PYTHON,BUSYBOX 'an upload goes through intact (BusyBox wget --post-file)' '
	sb -w "$REF" exec -c "head -c 3750000 /dev/urandom | base64 >/tmp/up &&
		echo \$(wc -c </tmp/up) \$(sha256sum </tmp/up)" | cut -d" " -f1,2 >expect &&
	sb -w "$REF" exec -- wget -q -O - --post-file /tmp/up "http://up.test:$UP/post" >posted &&
	grep_file "^5[0-9]\{6\} " expect &&
	cmp_file expect posted
'

test_expect_success PYTHON,DEBIAN 'perl through the proxy: an upload intact, a refusal read' '
	cat >post.pl <<-\EOF &&
	use IO::Socket::INET;
	my ($port, $n) = @ARGV;
	my $s = IO::Socket::INET->new(PeerAddr => "127.0.0.1:3128") or die "connect: $!";
	my $body = "x" x $n;
	print $s "POST http://up.test:$port/post HTTP/1.1\r\nHost: up.test:$port\r\nContent-Length: $n\r\n\r\n$body";
	local $/; my $r = <$s>; print $r;
	EOF
	sb -w "$REF" write /tmp/post.pl <post.pl &&
	sb -w "$REF" exec -- perl /tmp/post.pl "$UP" 2000000 >out &&
	grep_file "^2000000 $(head -c 2000000 /dev/zero | tr "\0" x | sha256sum | cut -d" " -f1)" out
'

test_expect_success PYTHON,OPENSSL,DEBIAN 'https through CONNECT: apt gets the file' '
	fetch "https://tls.test:$TLS/small" /tmp/s &&
	sb -w "$REF" exec -- cat /tmp/s >s &&
	echo hello-upstream >expect && cmp_file expect s &&
	last_rec "d[\"verdict\"] == \"allowed\" and d[\"method\"] == \"CONNECT\" and d[\"host\"] == \"tls.test\" and d[\"port\"] == $TLS"
'

test_expect_success PYTHON,DEBIAN 'apt-get update reaches our upstream through the proxy' '
	echo "deb [trusted=yes] http://up.test:$UP/debian stable main" >sources &&
	sb -w "$REF" write /tmp/sources <sources &&
	sb -w "$REF" exec -- apt-get -o Dir::Etc::sourcelist=/tmp/sources -o Dir::Etc::sourceparts=/nonexistent \
		update >apt.out 2>&1 || :
	grep_file "/debian/dists/stable/" "$TRASH/port-UP.log"
'

test_expect_success PYTHON,OPENSSL,BUSYBOX 'an https URI sent as a request (BusyBox wget): refused, 400' '
	expect_status 1 sb -w "$REF" exec -- wget -q -O /tmp/x "https://tls.test:$TLS/small" 2>err &&
	grep_file "400" err &&
	last_rec "d[\"verdict\"] == \"refused\" and \"CONNECT\" in d[\"why\"]"
'

test_expect_success PYTHON,BUSYBOX 'a tunnel: CONNECT carries the bytes as they are' '
	sb -w "$REF" exec -c "{ printf \"CONNECT up.test:$UP HTTP/1.1\\r\\n\\r\\nGET /big HTTP/1.0\\r\\n\\r\\n\"; sleep 30; } |
		timeout 60 nc 127.0.0.1 3128 >/tmp/t; sed -n 1p /tmp/t" >line &&
	grep_file "^HTTP/1.1 200 Connection established" line &&
	sb -w "$REF" exec -c "sed \"1,/^\\r\$/d\" /tmp/t | sed \"1,/^\\r\$/d\" | sha256sum" | cut -d" " -f1 >got &&
	cmp_file big.sha got
'

test_expect_success PYTHON,OPENSSL 'a tunnel whose TLS asks for another name: refused, on record' '
	sb -w "$REF" write /tmp/hello <"$TEST_LIB_DIR/unit/golden/tls-pypi.bin" >/dev/null &&
	if test_have_prereq BUSYBOX; then
		sb -w "$REF" exec -c "{ printf \"CONNECT tls.test:$TLS HTTP/1.1\\r\\n\\r\\n\"; cat /tmp/hello; sleep 30; } |
			timeout 60 nc 127.0.0.1 3128" >out
	else
		sb -w "$REF" exec -- perl -MIO::Socket::INET -e "
			my \$s = IO::Socket::INET->new(PeerAddr => q(127.0.0.1:3128)) or die;
			open(my \$h, q(<), q(/tmp/hello)); local \$/; my \$b = <\$h>;
			print \$s qq(CONNECT tls.test:$TLS HTTP/1.1\r\n\r\n) . \$b; print <\$s>;" >out
	fi &&
	last_rec "d[\"verdict\"] == \"refused\" and d[\"method\"] == \"CONNECT\" and \"asks for pypi.org, not tls.test\" in d[\"why\"] and d[\"sent\"] == 0"
'

# A TLS record's first five bytes after the tunnel is made (so that the
# proxy has looked at them, most likely, before the end comes), then the
# client's end of sending: no whole ClientHello will come, so the tunnel
# ends at once, on record, rather than holding its slot until the idle
# time. The pauses only make the order likely; the outcome is the same.
test_expect_success PYTHON 'a tunnel whose first bytes end short of a ClientHello: ended, on record' '
	if test_have_prereq BUSYBOX; then
		sb -w "$REF" exec -c "{ printf \"CONNECT up.test:$UP HTTP/1.1\\r\\n\\r\\n\"; sleep 1;
			printf \"\\026\\003\\001\\100\\000\"; sleep 1; } | timeout 20 nc 127.0.0.1 3128" >out
	else
		sb -w "$REF" exec -- perl -MIO::Socket::INET -e "
			my \$s = IO::Socket::INET->new(PeerAddr => q(127.0.0.1:3128)) or die;
			local \$SIG{ALRM} = sub { die qq(no end\n) }; alarm 20; \$| = 1;
			print \$s qq(CONNECT up.test:$UP HTTP/1.1\r\n\r\n); my \$ok = <\$s>; print \$ok;
			print \$s qq(\x16\x03\x01\x40\x00); select(undef, undef, undef, 0.5); shutdown(\$s, 1);
			print <\$s>;" >out
	fi &&
	grep_file "200 Connection established" out &&
	last_rec "d[\"verdict\"] == \"refused\" and d[\"method\"] == \"CONNECT\" and \"broken TLS ClientHello\" in d[\"why\"] and d[\"sent\"] == 0"
'

# late (setup's): a server that says hello, then closes a moment later,
# after its client has half closed or while it waits: its end must reach
# the client, and the relay's slot be let go (70 of them, past the 64).
test_expect_success PYTHON 'a server that ends after its last bytes: the client sees the end, 70 times' '
	if test_have_prereq BUSYBOX; then
		sb -w "$REF" exec --timeout 300 -c "n=0; for i in \$(seq 70); do
			printf \"CONNECT up.test:$LATE HTTP/1.1\\r\\n\\r\\n\" | timeout 20 nc 127.0.0.1 3128 >/tmp/late || exit 9
			grep -q hello /tmp/late && n=\$((n + 1)); done; echo \$n" >n
	else
		sb -w "$REF" exec --timeout 300 -- perl -MIO::Socket::INET -e "
			my \$n = 0; for (1 .. 70) {
			my \$s = IO::Socket::INET->new(PeerAddr => q(127.0.0.1:3128)) or die;
			print \$s qq(CONNECT up.test:$LATE HTTP/1.1\r\n\r\n); shutdown(\$s, 1);
			local \$SIG{ALRM} = sub { die qq(no end\n) }; alarm 20; local \$/; my \$r = <\$s>; alarm 0;
			\$n++ if \$r =~ /hello/; } print qq(\$n\n);" >n
	fi &&
	echo 70 >expect && cmp_file expect n &&
	fetch "http://up.test:$UP/small" /tmp/after-late
'

# Writes that take part of what they are given, both ways: an upload to
# an upstream that reads slowly through a small window (the proxy's side)
# and a download read a byte at a time (the relay's).
test_expect_success PYTHON 'partial writes both ways: every byte, in order' '
	if test_have_prereq BUSYBOX; then
		sb -w "$REF" exec -c "head -c 4500000 /dev/urandom | base64 >/tmp/slow &&
			echo \$(wc -c </tmp/slow) \$(sha256sum </tmp/slow)" | cut -d" " -f1,2 >expect &&
		sb -w "$REF" exec -- wget -q -O - --post-file /tmp/slow "http://up.test:$SLOW/post" >posted &&
		sb -w "$REF" exec -c "wget -q -O - http://up.test:$UP/text |
			while IFS= read -r l; do printf \"%s\\n\" \"\$l\"; done | sha256sum" | cut -d" " -f1 >got
	else
		sb -w "$REF" exec -- perl /tmp/post.pl "$SLOW" 6000000 >out &&
		echo "6000000 $(head -c 6000000 /dev/zero | tr "\0" x | sha256sum | cut -d" " -f1)" >expect &&
		sed -n "\$p" out >posted &&
		sb -w "$REF" exec -- perl -MIO::Socket::INET -e "
			my \$s = IO::Socket::INET->new(PeerAddr => q(127.0.0.1:3128)) or die;
			print \$s qq(GET http://up.test:$UP/text HTTP/1.0\r\n\r\n); my (\$b, \$all) = (q(), q());
			while (sysread(\$s, \$b, 512)) { \$all .= \$b; select(undef, undef, undef, 0.0002); }
			\$all =~ s/^.*?\r\n\r\n//s; print \$all;" | sha256sum | cut -d" " -f1 >got
	fi &&
	cmp_file expect posted &&
	cmp_file text.sha got
'

test_expect_success PYTHON '100 MB each way, intact' '
	head -c 104857600 /dev/urandom >www/huge && sha256sum <www/huge | cut -d" " -f1 >huge.sha &&
	if test_have_prereq BUSYBOX; then
		sb -w "$REF" exec -c "wget -q -O - http://up.test:$UP/huge | sha256sum" | cut -d" " -f1 >got &&
		sb -w "$REF" exec -c "head -c 78643200 /dev/urandom | base64 >/tmp/huge &&
			echo \$(wc -c </tmp/huge) \$(sha256sum </tmp/huge)" | cut -d" " -f1,2 >expect &&
		sb -w "$REF" exec -- wget -q -O - --post-file /tmp/huge "http://up.test:$UP/post" >posted &&
		sb -w "$REF" exec -- rm -f /tmp/huge
	else
		sb -w "$REF" exec -c "/usr/lib/apt/apt-helper download-file http://up.test:$UP/huge /tmp/huge >/dev/null &&
			sha256sum </tmp/huge && rm -f /tmp/huge" | cut -d" " -f1 >got &&
		sb -w "$REF" exec -- perl /tmp/post.pl "$UP" 104857600 >out &&
		echo "104857600 $(head -c 104857600 /dev/zero | tr "\0" x | sha256sum | cut -d" " -f1)" >expect &&
		sed -n "\$p" out >posted
	fi &&
	rm -f www/huge &&
	cmp_file huge.sha got &&
	cmp_file expect posted
'

test_expect_success PYTHON 'twenty at once, each intact' '
	if test_have_prereq BUSYBOX; then
		sb -w "$REF" exec -c "for i in \$(seq 20); do wget -q -O /tmp/m\$i http://up.test:$UP/big & done; wait;
			sha256sum /tmp/m* | cut -d\" \" -f1 | sort | uniq -c" >many
	else
		sb -w "$REF" exec -c "for i in \$(seq 20); do /usr/lib/apt/apt-helper download-file http://up.test:$UP/big /tmp/m\$i >/dev/null & done; wait;
			sha256sum /tmp/m* | cut -d\" \" -f1 | sort | uniq -c" >many
	fi &&
	echo "20 $(cat big.sha)" >expect &&
	sed "s/^ *//" many >got && cmp_file expect got
'

# The upstream answers none of a TOKEN's requests until 200 of them are
# held open at once: fewer slots than that, anywhere on the way, and
# none is answered. BusyBox's requests each carry a body of 1 MB as
# well (no NUL in it: BusyBox's wget reads its --post-file as a string),
# waiting on the way until the upstream reads them.
test_expect_success PYTHON 'two hundred at once, each held open until all are' '
	if test_have_prereq BUSYBOX; then
		sb -w "$REF" exec --timeout 300 -c "head -c 1000000 /dev/zero | tr \"\\0\" x >/tmp/body &&
			for i in \$(seq 200); do
				wget -q -O /tmp/g\$i --post-file /tmp/body http://up.test:$UP/gather/200/a &
			done; wait; cat /tmp/g*; rm -f /tmp/g* /tmp/body" >many &&
		echo "200 gathered 200 1000000" >expect
	else
		sb -w "$REF" exec --timeout 300 -- perl -MIO::Socket::INET -e "
			my @s = map { IO::Socket::INET->new(PeerAddr => q(127.0.0.1:3128)) or die qq(connect: \$!) } 1 .. 200;
			print \$_ qq(GET http://up.test:$UP/gather/200/a HTTP/1.0\r\n\r\n) for @s;
			for (@s) { local \$/; my \$r = <\$_>; \$r =~ s/^.*?\r\n\r\n//s; print \$r; }" >many &&
		echo "200 gathered 200 0" >expect
	fi &&
	sort many | uniq -c | sed "s/^ *//" >got && cmp_file expect got
'

test_expect_success PYTHON,BUSYBOX 'a reader that stalls stops only its own connection' '
	{ "$SANDBOX" --engine "$ENGINE" -w "$REF" exec --timeout 120 -c "mkfifo /tmp/stall;
		{ wget -q -O - http://up.test:$UP/big >/tmp/stall & } ; exec 3</tmp/stall; sleep 1000 <&3" >/dev/null 2>&1 & } &&
	bg_track $! &&
	wait_until 60 grep -q "GET /big" "$TRASH/port-UP.log" &&
	fetch "http://up.test:$UP/small" /tmp/s2 &&
	sb -w "$REF" exec -- cat /tmp/s2 >s2 && echo hello-upstream >expect && cmp_file expect s2 &&
	sb -w "$REF" exec -c "kill \$(pidof sleep) 2>/dev/null; :"
'

test_expect_success PYTHON 'refused: a name not listed, another port, an address literal' '
	! fetch "http://other.test:$UP/small" /tmp/x 2>err &&
	last_rec "d[\"verdict\"] == \"refused\" and d[\"host\"] == \"other.test\" and \"not on the allow-list\" in d[\"why\"] and d[\"address\"] == \"\"" &&
	! fetch "http://up.test:$HOMEP/small" /tmp/x 2>err &&
	last_rec "d[\"verdict\"] == \"refused\" and d[\"port\"] == $HOMEP" &&
	! fetch "http://127.0.0.2:$UP/small" /tmp/x 2>err &&
	last_rec "d[\"verdict\"] == \"refused\" and d[\"host\"] == \"127.0.0.2\"" &&
	! grep -q "other.test\|127.0.0.2" "$TRASH/port-UP.log"
'

test_expect_success PYTHON 'refused: an allowed name that resolves to loopback, not listed' '
	! fetch "http://home.test:$HOMEP/small" /tmp/x 2>err &&
	last_rec "d[\"verdict\"] == \"refused\" and \"127.0.0.1\" in d[\"why\"] and \"loopback\" in d[\"why\"]" &&
	! test -s "$TRASH/port-HOMEP.log"
'

# raw HEAD: sends the bytes of printf's format HEAD to the proxy from the
# workspace, and prints what comes back.
raw() {
	if test_have_prereq BUSYBOX; then
		sb -w "$REF" exec -c "printf \"$1\" | timeout 60 nc 127.0.0.1 3128"
	else
		sb -w "$REF" exec -- perl -MIO::Socket::INET -e '
			my $s = IO::Socket::INET->new(PeerAddr => "127.0.0.1:3128") or die;
			my $h = $ARGV[0]; $h =~ s/\\r/\r/g; $h =~ s/\\n/\n/g;
			print $s $h; shutdown($s, 1); local $/; print <$s>;' "$1"
	fi
}

test_expect_success PYTHON 'refused: garbage, a head cut short, a Host that disagrees, an endless head' '
	raw "garbage\\r\\n\\r\\n" >out &&
	grep_file "^HTTP/1.1 400 " out &&
	grep_file "^sandbox: " out &&
	raw "GET http://up.test:$UP/small HTTP/1.1\\r\\nX: y" >out &&
	grep_file "^HTTP/1.1 400 " out &&
	grep_file "ended before its head did" out &&
	raw "GET http://up.test:$UP/small HTTP/1.1\\r\\nHost: other.test\\r\\n\\r\\n" >out &&
	grep_file "^HTTP/1.1 400 " out &&
	last_rec "d[\"verdict\"] == \"refused\" and \"Host\" in d[\"why\"]" &&
	if test_have_prereq BUSYBOX; then
		sb -w "$REF" exec -c "{ printf \"GET http://up.test/ HTTP/1.1\\r\\nX: \"; head -c 20000 /dev/zero | tr \"\\0\" a; sleep 30; } | timeout 60 nc 127.0.0.1 3128" >out
	else
		raw "GET http://up.test/ HTTP/1.1\\r\\nX: $(head -c 20000 /dev/zero | tr "\0" a)" >out
	fi &&
	grep_file "^HTTP/1.1 431 " out
'

test_expect_success PYTHON 'a tool that ignores the proxy finds no network' '
	if test_have_prereq BUSYBOX; then
		! sb -w "$REF" exec -- wget -Y off -q -O /tmp/x "http://up.test:$UP/small" 2>err &&
		! sb -w "$REF" exec -- nslookup up.test >out 2>&1
	else
		! sb -w "$REF" exec -- perl -MIO::Socket::INET -e "IO::Socket::INET->new(PeerAddr => q(up.test:$UP)) or die qq(no: \$@)" 2>err
	fi &&
	! sb -w "$REF" exec -- sh -c "grep -v \" lo:\" /proc/net/dev | grep -q :"
'

test_expect_success PYTHON 'net: the table, --json, one workspace, --since' '
	sb net "$REF" >table &&
	head -n 1 table >head &&
	grep_file "^TIME *WORKSPACE *VERDICT *METHOD *HOST *SENT *RECEIVED *DURATION *WHY" head &&
	grep_file " allowed *GET *up.test:$UP " table &&
	grep_file " refused *GET *other.test:$UP .*not on the allow-list" table &&
	sb net --json --since 1h >all.json &&
	python3 -c "import json, sys
recs = [json.loads(l) for l in open(\"all.json\")]
assert recs and all(set(r) == {\"time\", \"workspace\", \"method\", \"host\", \"port\", \"verdict\", \"why\", \"address\", \"sent\", \"received\", \"ms\"} for r in recs), recs
assert any(r[\"workspace\"] == sys.argv[1] for r in recs)" "$REF" &&
	expect_status 2 sb net "bad name!" 2>err &&
	grep_file "not a workspace.s name" err
'

test_expect_success PYTHON 'net --follow shows a connection as it ends' '
	{ "$SANDBOX" --engine "$ENGINE" net "$REF" --follow --json >follow & } &&
	FOLLOW=$! && bg_track "$FOLLOW" &&
	fetch "http://up.test:$UP/small?follow" /tmp/f &&
	wait_until 30 grep -q "small?follow\|\"received\"" follow &&
	kill "$FOLLOW" && wait_exit 30 "$FOLLOW"; :
'

test_expect_success PYTHON 'a relay the workspace replaced: its proxy ends, nothing else' '
	printf "#!/bin/sh\nprintf \"L\\\\0\\\\0\\\\0\\\\0\\\\0\\\\0\"\nexec head -c 50000000 /dev/zero\n" >forger &&
	RELAY=$(sb -w "$REF" exec -c "ls /tmp/.sandbox-relay-*") &&
	sb -w "$REF" write "$RELAY" <forger &&
	sb -w "$REF" exec -- chmod 755 "$RELAY" &&
	# The listener that runs, killed: the next command starts another
	# proxy, whose listener is the forger.
	sb -w "$REF" exec -c "for p in /proc/[0-9]*; do tr \"\\0\" \" \" <\$p/cmdline 2>/dev/null | grep -q \"[l]isten 3128\" && kill -9 \${p#/proc/}; done; :" &&
	wait_until 60 no_proxy_of "$ID" &&
	# Refused as it starts, or at the first frame after its word (which
	# may come in a read of its own): gone either way.
	{ sb start "$REF" 2>err ||
		grep_file "the network proxy of $REF: its listener broke the frames. rules" err; } &&
	wait_until 60 no_proxy_of "$ID" &&
	# A listener that broke the rules is not tried again by every
	# command: that would make each pay for it.
	sb -v -w "$REF" exec -- true 2>err &&
	no_grep_file "starting the network proxy" err &&
	sb -w "$REF" exec -c "rm -f /tmp/.sandbox-relay-*" &&
	sb start "$REF" &&
	has_proxy_of "$ID" &&
	fetch "http://up.test:$UP/small" /tmp/again
'

test_expect_success PYTHON 'doctor: the network mode, and the proxies that run' '
	printf "[sandbox]\nallow = up.test:%s\n" "$UP" >allow.ini &&
	{ sb --config allow.ini doctor >out 2>/dev/null || :; } &&
	grep_file "^ok    network: allow (up.test:$UP): [0-9]* prox[a-z]* running (.*$REF.*)\$" out &&
	printf "[sandbox]\nnetwork = allow\n" >none.ini &&
	{ sb --config none.ini doctor >out 2>/dev/null || :; } &&
	grep_file "^FAIL  network: allow, with no pattern" out
'

test_expect_success PYTHON 'a fork keeps its workspace.s network allow and patterns' '
	FSRC=$(new_name fsrc) &&
	new_ws FREF --name "$FSRC" --allow "up.test:$UP 127.0.0.1:$UP" &&
	FORK=$(sb fork "$FREF" --name "$(new_name fork)" 2>/dev/null) &&
	test "$FORK" = "$(new_name fork)" &&
	has_proxy_of "$(ws_id "$FORK")" &&
	eng container inspect --format "{{.HostConfig.NetworkMode}}" "$FORK" >mode &&
	echo none >expect && cmp_file expect mode &&
	REF_SAVED=$REF && REF=$FORK &&
	fetch "http://up.test:$UP/small" /tmp/fk &&
	{ ! fetch "http://other.test:$UP/small" /tmp/fk2 2>/dev/null; } &&
	REF=$REF_SAVED &&
	sb destroy "$FORK" "$FREF" >/dev/null
'

# proxies_here: the pids of the proxies of this file's runtime dir, but
# REF's.
proxies_here() { pgrep -f -- "net serve .* $SANDBOX_RUNTIME_DIR/net-" | grep -v -x -F "$(proxy_of "$ID")" || true; }
test_expect_success PYTHON 'run, the one-shot: through the proxy, and no proxy left when it returns' '
	if test_have_prereq BUSYBOX; then
		sb run --image "$IMAGE" --allow "up.test:$UP 127.0.0.1:$UP" -- wget -q -O - "http://up.test:$UP/small" >out
	else
		sb run --image "$IMAGE" --allow "up.test:$UP 127.0.0.1:$UP" -- sh -c \
			"/usr/lib/apt/apt-helper download-file http://up.test:$UP/small /tmp/s >/dev/null && cat /tmp/s" >out
	fi &&
	echo hello-upstream >expect && cmp_file expect out &&
	test -z "$(proxies_here)" &&
	ls "$SANDBOX_RUNTIME_DIR" >left &&
	test "$(grep -c "^net-" left)" = 2
'

# The proxy's peak memory after all the above (floods, a forger, 70
# half closes, 100 MB each way): under 32 MiB. The sanitizer's build
# keeps shadow memory of its own: its figure is not the proxy's.
case $SANDBOX in *asan*) ;; *) test_set_prereq PLAIN_BUILD ;; esac
test_expect_success PYTHON,PLAIN_BUILD 'the proxy.s memory stays bounded' '
	P=$(proxy_of "$ID") && test -n "$P" &&
	kib=$(awk "/^VmHWM:/ { print \$2 }" "/proc/$P/status") &&
	echo "# the proxy peak: $kib KiB" &&
	test "$kib" -lt 32768
'

test_expect_success PYTHON 'a proxy killed: the next command starts another' '
	P=$(proxy_of "$ID") && test -n "$P" &&
	kill -9 "$P" &&
	wait_until 30 no_proxy_of "$ID" &&
	fetch "http://up.test:$UP/small" /tmp/again &&
	sb -w "$REF" exec -- cat /tmp/again >again &&
	echo hello-upstream >expect && cmp_file expect again &&
	P2=$(proxy_of "$ID") && test -n "$P2" && test "$P2" != "$P"
'

# The same through one MCP server, which knows its workspace from its
# start and asks the engine nothing more: its next call starts another.
test_expect_success PYTHON 'a proxy killed under an MCP server: its next call starts another' '
	if test_have_prereq BUSYBOX; then
		get="wget -q -O - http://up.test:$UP/small"
	else
		get="/usr/lib/apt/apt-helper download-file http://up.test:$UP/small /tmp/m >/dev/null && cat /tmp/m"
	fi &&
	python3 "$TEST_LIB_DIR/mcp-client" "$SANDBOX" --engine "$ENGINE" mcp -w "$REF" >out 2>out.err <<-EOF &&
	init
	<
	call 1 exec {"command":"$get"}
	<
	run pkill -9 -f -- "net serve [^ ]* $ID "
	until ! pgrep -f -- "net serve [^ ]* $ID " >/dev/null
	call 2 exec {"command":"$get"}
	<
	close
	EOF
	test "$(grep -c hello-upstream out)" = 2 &&
	no_grep_file "\"isError\": *true" out &&
	has_proxy_of "$ID"
'

test_expect_success PYTHON 'stop ends the proxy, start brings it back, destroy ends it' '
	sb stop "$REF" &&
	no_proxy_of "$ID" &&
	sb start "$REF" &&
	has_proxy_of "$ID" &&
	fetch "http://up.test:$UP/small" /tmp/after &&
	sb destroy "$REF" &&
	no_proxy_of "$ID" &&
	no_workspace_left &&
	! ls "$SANDBOX_RUNTIME_DIR" | grep "^net-"
'

test_done
