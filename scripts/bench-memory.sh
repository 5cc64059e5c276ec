#!/usr/bin/env bash
# Memory (issue 12 item 5): the RSS of roundtrip's `provision` example while 10,000 flows are
# parked between legs (the client holds every requestState; the server should hold nothing),
# and with 10,000 tasks in the in-memory store (bytes per task).
#
#   scripts/bench-memory.sh [--flows N] [--tasks N] [--task-seconds S] [--port P] [--no-build]
#
# Builds `provision` (release) from the main workspace, starts it on 127.0.0.1:P (default
# 18190), and drives it with a Python (stdlib only) client over one keep-alive connection,
# sequentially, on the 2026-07-28 wire. VmRSS and VmHWM come from /proc/PID/status.
#
# 1. Warm-up: 200 complete `provision` flows and 100 `backup` tasks (not counted), then RSS.
# 2. N leg-1 `tools/call provision {"name": "db-<i>"}` (distinct names): each must be
#    input_required with one question, `region`, and a requestState, which the client keeps.
#    RSS. Then the N leg 2s (answer `eu-west-1`, state echoed): each body must be
#    `Provisioned 'db-<i>' in eu-west-1.`. RSS.
# 3. Tasks: N `tools/call backup {"database": "bk-<i>"}` with the tasks extension declared
#    (`extensions: {"io.modelcontextprotocol/tasks": {}}`): leg 1 asks `region`, leg 2 answers
#    it and must return a task (resultType "task"). Each body then reports progress for 0.3 s
#    and asks, mid-run, whether to overwrite: the task parks (input_required) with its body
#    future and its record in the store. After they have parked: a sample of tasks/get, RSS,
#    (RSS after - RSS before) / N as bytes per task, and the server's CPU while idle with them
#    parked (utime+stime over 5 s). Creating tasks stops after S seconds (default 600) even if
#    fewer than N were created; the figure is then per task created.
# Exit status 1 when any body check fails.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"

flows=10000
tasks=10000
task_seconds=600
port=18190
build=1
while [ $# -gt 0 ]; do
  case "$1" in
    --flows) flows="$2"; shift 2 ;;
    --tasks) tasks="$2"; shift 2 ;;
    --task-seconds) task_seconds="$2"; shift 2 ;;
    --port) port="$2"; shift 2 ;;
    --no-build) build=0; shift ;;
    -h|--help) sed -n '2,25p' "$0" | cut -c3-; exit 0 ;;
    *) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done

bin="${CARGO_TARGET_DIR:-$root/target}/release/provision"
if [ "$build" = 1 ]; then
  echo "building provision (release)..."
  cargo build --quiet --release -p roundtrip-examples --bin provision
fi
[ -x "$bin" ] || { echo "missing $bin (run without --no-build)" >&2; exit 1; }
if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then echo "port $port is in use (--port)" >&2; exit 1; fi

log="$(mktemp)"
RUST_LOG=warn "$bin" --http "127.0.0.1:$port" >"$log" 2>&1 &
pid=$!
cleanup() { kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -f "$log"; }
trap cleanup EXIT
trap 'exit 130' INT TERM
for _ in $(seq 1 100); do
  (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
  kill -0 "$pid" 2>/dev/null || { cat "$log" >&2; exit 1; }
  sleep 0.1
done

echo "machine: $(nproc) cores, $(rustc --version), roundtrip $(git rev-parse --short HEAD); load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "server: $bin --http 127.0.0.1:$port (PID $pid; glibc malloc, default tokio runtime)"
python3 - "$pid" "$port" "$flows" "$tasks" "$task_seconds" <<'PY'
import http.client, json, os, sys, time

pid, port, n_flows, n_tasks = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
task_seconds = float(sys.argv[5])
tick = os.sysconf("SC_CLK_TCK")
conn = http.client.HTTPConnection("127.0.0.1", port)
failures = 0
next_id = 0


def fail(msg):
    global failures
    failures += 1
    if failures <= 5:
        print("  CHECK FAILED:", msg)


def status():
    out = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            k, _, v = line.partition(":")
            if k in ("VmRSS", "VmHWM"):
                out[k] = int(v.split()[0]) * 1024
    return out


def cpu_ticks():
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def mib(n):
    return f"{n / 1048576:.1f} MiB"


def caps(tasks):
    c = {"elicitation": {"form": {}}}
    if tasks:
        c["extensions"] = {"io.modelcontextprotocol/tasks": {}}
    return c


def rpc(method, name, params, tasks=False):
    global next_id
    next_id += 1
    params = dict(params)
    params["_meta"] = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": caps(tasks),
        "io.modelcontextprotocol/clientInfo": {"name": "bench-memory", "version": "0"},
    }
    body = json.dumps({"jsonrpc": "2.0", "id": next_id, "method": method, "params": params})
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": method,
        "Mcp-Name": name,
    }
    conn.request("POST", "/mcp", body, headers)
    resp = conn.getresponse()
    raw = resp.read()
    if resp.status != 200:
        raise RuntimeError(f"{method} {name}: HTTP {resp.status}: {raw[:300]!r}")
    if resp.getheader("Content-Type", "").startswith("text/event-stream"):
        msgs = [json.loads(l[5:]) for l in raw.decode().splitlines() if l.startswith("data:") and l[5:].strip()]
        msg = msgs[-1]
    else:
        msg = json.loads(raw)
    if msg.get("id") != next_id or "result" not in msg:
        raise RuntimeError(f"{method} {name}: {str(msg)[:300]}")
    return msg["result"]


def leg1(tool, args, key, tasks=False):
    r = rpc("tools/call", tool, {"name": tool, "arguments": args}, tasks)
    reqs = r.get("inputRequests") or {}
    if r.get("resultType") != "input_required" or list(reqs) != [key] or not r.get("requestState"):
        fail(f"leg 1 of {tool} {args}: {str(r)[:200]}")
    return r.get("requestState", "")


def leg2(tool, args, key, answer, state, tasks=False):
    return rpc("tools/call", tool, {
        "name": tool, "arguments": args, "requestState": state,
        "inputResponses": {key: {"action": "accept", "content": {key: answer}}},
    }, tasks)


def flow(i):
    args = {"name": f"db-{i}"}
    r = leg2("provision", args, "region", "eu-west-1", leg1("provision", args, "region"))
    text = (r.get("content") or [{}])[0].get("text")
    if r.get("resultType") != "complete" or text != f"Provisioned 'db-{i}' in eu-west-1.":
        fail(f"flow {i}: {str(r)[:200]}")


def task(i):
    args = {"database": f"bk-{i}"}
    r = leg2("backup", args, "region", "eu-west-1", leg1("backup", args, "region", True), True)
    if r.get("resultType") != "task" or not r.get("taskId"):
        fail(f"task {i}: {str(r)[:200]}")
    return r.get("taskId")


def report(label, s, base=None):
    extra = ""
    if base is not None:
        extra = f"  (RSS {'+' if s['VmRSS'] >= base['VmRSS'] else ''}{mib(s['VmRSS'] - base['VmRSS'])})"
    print(f"  {label:<58} VmRSS {mib(s['VmRSS']):>10}  VmHWM {mib(s['VmHWM']):>10}{extra}", flush=True)


start = status()
report("at start", start)
t0 = time.time()
for i in range(200):
    flow(-1 - i)
warm = [task(-1 - i) for i in range(100)]
time.sleep(1.0)
s0 = status()
report("after warm-up (200 flows, 100 tasks parked)", s0)

# --- flows parked between legs -------------------------------------------------------------
t = time.time()
states = [leg1("provision", {"name": f"db-{i}"}, "region") for i in range(n_flows)]
t_leg1 = time.time() - t
s1 = status()
held = sum(len(x) for x in states)
report(f"{n_flows} flows parked after leg 1 (client holds the states)", s1, s0)
print(f"    the client holds {held} bytes of requestState ({held / max(n_flows, 1):.0f} B per flow); leg 1s took {t_leg1:.1f} s")
t = time.time()
for i, state in enumerate(states):
    args = {"name": f"db-{i}"}
    r = leg2("provision", args, "region", "eu-west-1", state)
    text = (r.get("content") or [{}])[0].get("text")
    if r.get("resultType") != "complete" or text != f"Provisioned 'db-{i}' in eu-west-1.":
        fail(f"leg 2 of flow {i}: {str(r)[:200]}")
t_leg2 = time.time() - t
s2 = status()
report(f"{n_flows} flows completed (leg 2, every body checked)", s2, s0)
print(f"    leg 2s took {t_leg2:.1f} s")
del states

# --- tasks -----------------------------------------------------------------------------------
s3 = status()
report("before the tasks", s3)
t = time.time()
ids = []
marks = []  # (tasks created, seconds) every 1000 tasks: how creation time grows with the tasks parked
for i in range(n_tasks):
    if time.time() - t > task_seconds:
        print(f"    STOPPED after {task_seconds:.0f} s with {len(ids)} of {n_tasks} tasks created (--task-seconds)")
        break
    ids.append(task(i))
    if (i + 1) % 1000 == 0:
        marks.append((i + 1, time.time() - t))
        print(f"    {i + 1} tasks created, {time.time() - t:.1f} s, VmRSS {mib(status()['VmRSS'])}", flush=True)
t_tasks = time.time() - t
n_created = len(ids)
time.sleep(2.0)  # every body reports progress for 0.3 s, then parks on its question
seen = {}
for tid in ids[:: max(1, len(ids) // 100)] + warm[:5]:
    r = rpc("tasks/get", tid, {"taskId": tid}, True)
    seen[r.get("status")] = seen.get(r.get("status"), 0) + 1
s4 = status()
report(f"{n_created} more tasks created, parked", s4, s3)
per_task = (s4["VmRSS"] - s3["VmRSS"]) / max(n_created, 1)
print(f"    creating them took {t_tasks:.1f} s ({2 * n_created} requests); statuses of a tasks/get sample: {seen}")
print(f"    bytes per task: (RSS after - RSS before) / {n_created} = {per_task:.0f} B")
c0 = cpu_ticks()
time.sleep(5.0)
c1 = cpu_ticks()
busy = (c1 - c0) / tick / 5.0 * 100
print(f"    server CPU while {n_created + len(warm)} tasks sit parked and nothing is asked: {busy:.0f}% of a core (5 s)")
s5 = status()
report("after 5 s idle", s5, s3)

print()
print("RESULT", json.dumps({
    "flows": n_flows, "tasks": n_created, "task_seconds": round(t_tasks, 1), "rss_start": start["VmRSS"], "rss_warm": s0["VmRSS"],
    "rss_flows_parked": s1["VmRSS"], "rss_flows_done": s2["VmRSS"], "hwm_flows_done": s2["VmHWM"],
    "state_bytes_per_flow": round(held / max(n_flows, 1)), "rss_tasks_before": s3["VmRSS"],
    "rss_tasks_after": s4["VmRSS"], "bytes_per_task": round(per_task), "idle_cpu_pct": round(busy),
    "failures": failures,
}))
sys.exit(1 if failures else 0)
PY
