#!/usr/bin/env python3
# flood.py SANDBOX ENGINE IMAGE: starts `sandbox mcp`, has it run a long
# call, and meanwhile writes input without a newline until the server has
# not read any for 2 s, or 100 MiB went. Prints "MiB KiB": the MiB the
# server took, and its peak RSS in KiB then. The call is then cut short.
import fcntl, json, os, subprocess, sys, time

sandbox, engine, image = sys.argv[1:4]
p = subprocess.Popen([sandbox, "--engine", engine, "mcp", "--image", image, "--rm"],
                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
def send(o):
    p.stdin.write((json.dumps(o) + "\n").encode())
    p.stdin.flush()
send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
      "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                 "clientInfo": {"name": "flood", "version": "1"}}})
p.stdout.readline()
send({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
      "params": {"name": "exec", "arguments": {"command": "echo started; sleep 300"}}})
fd = p.stdin.fileno()
fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_NONBLOCK)
sent, chunk, last = 0, b"x" * 65536, time.time()
while sent < 100 << 20 and time.time() - last < 2:
    try:
        sent += os.write(fd, chunk)
        last = time.time()
    except BlockingIOError:
        time.sleep(0.01)
hwm = [l.split()[1] for l in open("/proc/%d/status" % p.pid) if l.startswith("VmHWM")][0]
print(sent >> 20, hwm)
p.terminate()
p.wait()
