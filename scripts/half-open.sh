#!/usr/bin/env bash
# Half-open connections and connection limits against a real server, with its defaults.
#
#   scripts/half-open.sh
#   HALF_OPEN=3000 OVERFLOW=100 scripts/half-open.sh
#
# Starts the provision example over HTTP (default HttpOptions: header-read timeout 10 s,
# max_connections 10 000) on a free loopback port, then, from one Python process:
#   1. opens HALF_OPEN connections (default 3000) that each send
#      "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n" and nothing more, and waits until the server
#      has closed them all, while another connection keeps sending ordinary 2026-07-28
#      tools/list requests;
#   2. fills the server up to MAX_CONNECTIONS (default 10 000) with idle connections, opens
#      OVERFLOW more (default 100) that each send a whole request, and records what they get
#      (503 with Retry-After, a close, or nothing); then closes a few and checks that a new
#      connection is served again.
# It prints the figures of each phase and stops by itself: every wait is bounded and the whole
# run is cut at 5 minutes. Both processes raise their open-file limit to the hard limit.
# Exit status: 0 when every half-open connection was closed by the server within the
# header-read timeout (not before it, at most 2 s after), no ordinary request failed, every
# connection beyond the limit got the limit's 503 with Retry-After, and service resumed.
set -euo pipefail
cd "$(dirname "$0")/.."

HALF_OPEN="${HALF_OPEN:-3000}"
MAX_CONNECTIONS="${MAX_CONNECTIONS:-10000}"
HEADER_TIMEOUT="${HEADER_TIMEOUT:-10}"
OVERFLOW="${OVERFLOW:-100}"

ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
echo "half-open: open-file limit $(ulimit -n); building the provision example"
cargo build --quiet -p roundtrip-examples --bin provision
BIN="${CARGO_TARGET_DIR:-$PWD/target}/debug/provision"

PORT="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
LOG="$(mktemp -t roundtrip-half-open.XXXXXX.log)"
RUST_LOG="${RUST_LOG:-warn}" "$BIN" --http "127.0.0.1:$PORT" >"$LOG" 2>&1 &
SERVER_PID=$!
stop_server() {
  if kill -0 "$SERVER_PID" 2>/dev/null; then
    kill "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
  fi
}
trap stop_server EXIT

for _ in $(seq 1 100); do
  if ! kill -0 "$SERVER_PID" 2>/dev/null; then
    echo "half-open: the server exited; its log:" >&2
    cat "$LOG" >&2
    exit 1
  fi
  if python3 -c 'import socket, sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=1).close()' "$PORT" 2>/dev/null; then
    break
  fi
  sleep 0.1
done
echo "half-open: provision serves http://127.0.0.1:$PORT/mcp (pid $SERVER_PID, log $LOG)"

timeout 300 python3 - "$PORT" "$HALF_OPEN" "$MAX_CONNECTIONS" "$HEADER_TIMEOUT" "$OVERFLOW" <<'PYEOF'
import json, resource, selectors, socket, statistics, sys, threading, time
import http.client

port, half_open, max_conns, header_timeout, overflow = (int(a) for a in sys.argv[1:6])
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
try:
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
except (ValueError, OSError):
    pass
limit = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
needed = max(half_open, max_conns + overflow) + 64
if limit < needed:
    print(f"half-open: this client needs {needed} open files, the limit is {limit}", file=sys.stderr)
    sys.exit(2)

ADDR = ("127.0.0.1", port)
PARTIAL = b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n"
BODY = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {}}}})
HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
           "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"}
WHOLE = (f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
         f"MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/list\r\n"
         f"Content-Length: {len(BODY)}\r\n\r\n{BODY}").encode()


class Normal(threading.Thread):
    """Ordinary requests on a keep-alive connection, one after another, until stopped."""

    def __init__(self):
        super().__init__(daemon=True)
        self.stop = threading.Event()
        self.ok = self.failed = 0
        self.latencies = []
        self.errors = []

    def run(self):
        conn = None
        while not self.stop.is_set():
            begun = time.monotonic()
            try:
                if conn is None:
                    conn = http.client.HTTPConnection(*ADDR, timeout=10)
                conn.request("POST", "/mcp", body=BODY, headers=HEADERS)
                r = conn.getresponse()
                data = r.read()
                if r.status == 200 and "tools" in json.loads(data)["result"]:
                    self.ok += 1
                    self.latencies.append(time.monotonic() - begun)
                else:
                    self.failed += 1
                    self.errors.append(f"HTTP {r.status}")
            except Exception as e:  # noqa: BLE001 - every failure counts
                self.failed += 1
                self.errors.append(repr(e))
                conn = None
            time.sleep(0.01)

    def snapshot(self):
        return self.ok, self.failed


def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, (len(values) - 1) * p // 100)] if values else float("nan")


normal = Normal()
normal.start()
failures = []

# ------------------------------------------------------------------ phase 1: half-open heads
print(f"\n== phase 1: {half_open} half-open connections (expected header-read timeout {header_timeout} s)")
t0 = time.monotonic()
socks = []
for _ in range(half_open):
    s = socket.create_connection(ADDR, timeout=10)
    socks.append(s)
connected = time.monotonic() - t0
ok0, failed0 = normal.snapshot()
sel = selectors.DefaultSelector()
sent = {}
t_first = time.monotonic()
for s in socks:
    sent[s.fileno()] = time.monotonic()
    s.sendall(PARTIAL)
    s.setblocking(False)
    sel.register(s, selectors.EVENT_READ)
t_written = time.monotonic()
lifetimes = []
deadline = t_first + header_timeout + 15
while len(lifetimes) < half_open and time.monotonic() < deadline:
    for key, _ in sel.select(timeout=0.5):
        s = key.fileobj
        try:
            data = s.recv(4096)
        except (ConnectionResetError, OSError):
            data = b""
        if data:
            continue  # an answer before the close is allowed; wait for the close
        lifetimes.append(time.monotonic() - sent[s.fileno()])
        sel.unregister(s)
        s.close()
t_closed = time.monotonic()
still_open = half_open - len(lifetimes)
for key in list(sel.get_map().values()):
    key.fileobj.close()
ok1, failed1 = normal.snapshot()
print(f"opened {half_open} connections in {connected:.2f} s; partial heads sent within {t_written - t_first:.3f} s")
print(f"closed by the server: {len(lifetimes)} of {half_open}, still open: {still_open}")
if lifetimes:
    print(f"time from partial head to close: min {min(lifetimes):.3f} s, median {statistics.median(lifetimes):.3f} s, "
          f"p99 {pct(lifetimes, 99):.3f} s, max {max(lifetimes):.3f} s; all closed {t_closed - t_first:.3f} s after the first")
print(f"ordinary tools/list during phase 1: {ok1 - ok0} completed, {failed1 - failed0} failed"
      + (f", latency median {statistics.median(normal.latencies) * 1000:.1f} ms, max {max(normal.latencies) * 1000:.1f} ms"
         if normal.latencies else ""))
if still_open or not lifetimes or max(lifetimes) > header_timeout + 2:
    failures.append("half-open connections were not all closed within the header-read timeout")
if lifetimes and min(lifetimes) < header_timeout - 0.05:
    failures.append(f"a half-open connection was closed before the header-read timeout ({min(lifetimes):.3f} s)")

# ------------------------------------------------------------------ phase 2: beyond the limit
print(f"\n== phase 2: {max_conns} idle connections (max_connections), then {overflow} more with a whole request")
t0 = time.monotonic()
fill = []
for _ in range(max_conns):
    s = socket.create_connection(ADDR, timeout=10)
    fill.append(s)
print(f"opened {len(fill)} idle connections in {time.monotonic() - t0:.2f} s")
# The ordinary client holds one slot, so the last of these were over the limit themselves:
# they are answered (after 1 s without a request head) and closed.
time.sleep(2.0)
sel = selectors.DefaultSelector()
for s in fill:
    s.setblocking(False)
    sel.register(s, selectors.EVENT_READ)
refused_fill = 0
for key, _ in sel.select(timeout=0.2):
    try:
        data = key.fileobj.recv(4096)
    except OSError:
        data = b""
    refused_fill += 1
    sel.unregister(key.fileobj)
    fill.remove(key.fileobj)
    key.fileobj.close()
print(f"{len(fill)} held; {refused_fill} were themselves over the limit (the ordinary client holds a slot) and were closed by the server")
ok2, failed2 = normal.snapshot()
answers = {"503": 0, "other status": 0, "closed without answer": 0, "no answer (hang)": 0}
times = []
retry_after = set()
for _ in range(overflow):
    begun = time.monotonic()
    s = socket.create_connection(ADDR, timeout=10)
    s.settimeout(3.0)
    try:
        s.sendall(WHOLE)
    except OSError:
        pass
    data = b""
    try:
        while b"\r\n\r\n" not in data:
            chunk = s.recv(4096)
            if not chunk:
                break
            data += chunk
    except socket.timeout:
        answers["no answer (hang)"] += 1
        s.close()
        continue
    except OSError:
        pass
    times.append(time.monotonic() - begun)
    if data.startswith(b"HTTP/1.1 503"):
        answers["503"] += 1
        for line in data.split(b"\r\n"):
            if line.lower().startswith(b"retry-after:"):
                retry_after.add(line.split(b":", 1)[1].strip().decode())
    elif data.startswith(b"HTTP/"):
        answers["other status"] += 1
    else:
        answers["closed without answer"] += 1
    s.close()
ok3, failed3 = normal.snapshot()
print(f"connections beyond the limit: {answers}; Retry-After: {sorted(retry_after)}")
if times:
    print(f"time to the answer or close: median {statistics.median(times) * 1000:.1f} ms, max {max(times) * 1000:.1f} ms")
print(f"ordinary tools/list on the existing connection while full: {ok3 - ok2} completed, {failed3 - failed2} failed")
if answers["no answer (hang)"]:
    failures.append("a connection beyond the limit was left hanging")
# The limit's answer is a 503 with Retry-After, to every one of them: a 200 means the limit was
# not applied, and a bare close gives the client nothing to act on.
if answers["503"] != overflow:
    failures.append(f"{overflow - answers['503']} of {overflow} connections beyond the limit did not get 503")
if not retry_after:
    failures.append("the 503 beyond the limit carried no Retry-After")

# Close ten held connections: a new connection is served again.
for s in fill[:10]:
    s.close()
fill = fill[10:]
begun = time.monotonic()
resumed = None
while time.monotonic() - begun < 10:
    try:
        c = http.client.HTTPConnection(*ADDR, timeout=5)
        c.request("POST", "/mcp", body=BODY, headers=HEADERS)
        r = c.getresponse()
        r.read()
        c.close()
        if r.status == 200:
            resumed = time.monotonic() - begun
            break
    except OSError:
        pass
    time.sleep(0.02)
print("a new connection was served again " + (f"{resumed * 1000:.1f} ms after ten closed" if resumed is not None
                                              else "NOT within 10 s"))
if resumed is None:
    failures.append("service did not resume after connections closed")
for s in fill:
    s.close()

normal.stop.set()
normal.join(timeout=15)
print(f"\n== ordinary tools/list over the whole run: {normal.ok} completed, {normal.failed} failed"
      + (f" ({normal.errors[:3]})" if normal.errors else ""))
if normal.failed:
    failures.append("ordinary requests failed")
if failures:
    print("half-open: FAILED: " + "; ".join(failures))
    sys.exit(1)
print("half-open: all good")
PYEOF
