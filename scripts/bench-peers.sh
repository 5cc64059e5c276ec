#!/usr/bin/env bash
# The peer benchmark (issues 12 and 27): the same `provision` flow and the same plain
# `tools/call`, served by roundtrip, rmcp 3.11 and the Python SDK, beside two floors, each in
# its own process, all driven by one load generator (bench/peers' `peers-load`: hyper client,
# 16 keep-alive connections, every response body checked). The floors: a bare hyper server
# answering a fixed body (`hyper-floor`), and the essential-work floor (`essential-floor`: the
# same flow with only the work any sealed round trip needs: a typed parse, SHA-256 of the
# pinned question and arguments, AES-256-GCM over a state of roundtrip's size, the response).
# Prints flows/s, req/s, p50/p99 per request and the server's own CPU per request (utime+stime
# of its PID from /proc, and each alone: the user and system columns), the median of R
# interleaved rounds, and the ratios issue 27 aims at.
#
#   scripts/bench-peers.sh                        # 8 s per run, 3 rounds
#   scripts/bench-peers.sh --seconds 2 --rounds 1 # a quick check that everything works
#   scripts/bench-peers.sh --wrk                  # also cross-check the plain call with wrk
#   scripts/bench-peers.sh --mimalloc             # every Rust server built with mimalloc
#   scripts/bench-peers.sh --lto                  # every Rust server built with fat LTO
#   scripts/bench-peers.sh --otel                 # also roundtrip without telemetry, and exporting
#   scripts/bench-peers.sh --intercepted          # also roundtrip with one interceptor
#   scripts/bench-peers.sh --base /tmp/base-target/release/provision  # also a base commit's build
#
# Options: --seconds N (per measured run, default 8), --rounds R (default 3), --warmup N
# (seconds per server and scenario before round 1, default 2), --connections N (default 16),
# --wrk (needs `apt-get install -y wrk`), --no-build (use the binaries already built),
# --mimalloc (build roundtrip's, rmcp's and the floor's servers with mimalloc as the global
# allocator; the header line says which allocator each binary has), --lto (build every Rust
# server with `lto = "fat"` and `codegen-units = 1`, into target/lto and bench/peers/target/lto,
# so the default binaries stay; with --no-build, use the binaries already built there),
# --otel (two more roundtrip rows of the flow: `provision` built without the `otel` feature
# (`rt-nootel`, into target/no-otel), and the default build exporting every span and metric by
# OTLP/HTTP to a sink that answers 200 (`rt-otlp`); the report gives the CPU per leg of each
# against the no-telemetry build), --intercepted (one more roundtrip row of the flow:
# `provision-audited`, the provision example with one interceptor that counts requests
# (`rt-audited`); the report gives its CPU per leg against the plain server), --base BIN (one
# more roundtrip row of the flow: BIN, another build of the `provision` example, such as a base
# commit's built into its own target directory (`rt-base`); measured in the same interleaved
# rounds, so the report's head/base ratio is read on one machine in one run, with each against
# the essential floor).
# Environment: SERVER_CPUS / LOAD_CPUS (taskset CPU lists; default 1 and 0 on 2+ cores),
# SERVER_WORKERS (tokio worker threads of the Rust servers, default 1), PORT_BASE (default
# 18180; eleven ports from it), PYTHON (default .venv/bin/python).
#
# Exit status: 0 when every run passed all its body checks, 1 when any check failed or a
# server did not come up.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"

seconds=8
rounds=3
warmup=2
connections=16
use_wrk=0
build=1
features=()
lto=0
otel=0
intercepted=0
base_bin=""
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --warmup) warmup="$2"; shift 2 ;;
    --connections) connections="$2"; shift 2 ;;
    --wrk) use_wrk=1; shift ;;
    --no-build) build=0; shift ;;
    --mimalloc) features=(--features mimalloc); shift ;;
    --lto) lto=1; shift ;;
    --otel) otel=1; shift ;;
    --intercepted) intercepted=1; shift ;;
    --base) base_bin="$2"; shift 2 ;;
    -h|--help) sed -n '2,44p' "$0" | cut -c3-; exit 0 ;;
    *) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done

python="${PYTHON:-$root/.venv/bin/python}"
workers="${SERVER_WORKERS:-1}"
port_base="${PORT_BASE:-18180}"
if [ "$(nproc)" -ge 2 ]; then
  server_cpus="${SERVER_CPUS:-1}"
  load_cpus="${LOAD_CPUS:-0}"
else
  server_cpus="${SERVER_CPUS:-0}"
  load_cpus="${LOAD_CPUS:-0}"
fi
tick="$(getconf CLK_TCK)"
command -v taskset >/dev/null || { echo "taskset is missing (util-linux)" >&2; exit 1; }
[ -x "$python" ] || { echo "no Python at $python (set PYTHON)" >&2; exit 1; }
"$python" -c 'import mcp, uvicorn' 2>/dev/null || { echo "$python lacks the mcp SDK" >&2; exit 1; }
if [ "$use_wrk" = 1 ]; then
  command -v wrk >/dev/null || { echo "--wrk: wrk is not installed (apt-get install -y wrk)" >&2; exit 1; }
fi

# --- build ----------------------------------------------------------------------------------
rt_target="${CARGO_TARGET_DIR:-$root/target}"
peers_target="${CARGO_TARGET_DIR:-$root/bench/peers/target}"
profile="release (the default profile: thin local LTO, 16 codegen units)"
if [ "$lto" = 1 ]; then
  # The same profile for every Rust server, beside (not over) the default binaries.
  export CARGO_PROFILE_RELEASE_LTO=fat CARGO_PROFILE_RELEASE_CODEGEN_UNITS=1
  rt_target="$rt_target/lto"
  peers_target="$peers_target/lto"
  profile="release with lto = \"fat\", codegen-units = 1"
fi
rt_bin="$rt_target/release"
peers_bin="$peers_target/release"
if [ "$build" = 1 ]; then
  echo "building roundtrip's provision and conformance examples and bench/peers (release)..."
  CARGO_TARGET_DIR="$rt_target" cargo build --quiet --release -p roundtrip-examples --bin provision --bin conformance \
    --bin provision-audited "${features[@]}"
  (cd bench/peers && CARGO_TARGET_DIR="$peers_target" cargo build --quiet --release "${features[@]}")
  if [ "$otel" = 1 ]; then
    echo "building provision without the otel feature (release, into $rt_target/no-otel)..."
    CARGO_TARGET_DIR="$rt_target/no-otel" cargo build --quiet --release -p roundtrip-examples --bin provision \
      --no-default-features "${features[@]}"
  fi
fi
bins=("$rt_bin/provision" "$rt_bin/conformance" "$peers_bin/rmcp-provision" "$peers_bin/hyper-floor" "$peers_bin/essential-floor" "$peers_bin/peers-load")
[ "$otel" = 1 ] && bins+=("$rt_target/no-otel/release/provision")
[ "$intercepted" = 1 ] && bins+=("$rt_bin/provision-audited")
[ -n "$base_bin" ] && bins+=("$base_bin")
for b in "${bins[@]}"; do
  [ -x "$b" ] || { echo "missing $b (run without --no-build)" >&2; exit 1; }
done

# --- servers --------------------------------------------------------------------------------
dir="$(mktemp -d)"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

p_rt=$port_base; p_conf=$((port_base + 1)); p_rmcp=$((port_base + 2)); p_py=$((port_base + 3)); p_floor=$((port_base + 4))
p_nootel=$((port_base + 5)); p_otlp=$((port_base + 6)); p_sink=$((port_base + 7)); p_ess=$((port_base + 8))
p_audited=$((port_base + 9)); p_base=$((port_base + 10))
for p in $p_rt $p_conf $p_rmcp $p_py $p_floor $p_nootel $p_otlp $p_sink $p_ess $p_audited $p_base; do
  if (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then echo "port $p is in use (set PORT_BASE)" >&2; exit 1; fi
done

declare -A pid_of
# start NAME PORT CMD...: the server pinned to the server CPUs; its PID is the command's own
# (taskset execs it), so /proc/PID/stat is the server's CPU and nothing else's.
start() {
  local name="$1" port="$2"; shift 2
  TOKIO_WORKER_THREADS="$workers" RUST_LOG=warn taskset -c "$server_cpus" "$@" >"$dir/$name.log" 2>&1 &
  pids+=($!)
  pid_of[$name]=$!
  for _ in $(seq 1 150); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then return 0; fi
    kill -0 "${pid_of[$name]}" 2>/dev/null || break
    sleep 0.2
  done
  echo "$name did not start listening on $port:" >&2
  cat "$dir/$name.log" >&2
  exit 1
}

start roundtrip "$p_rt" "$rt_bin/provision" --http "127.0.0.1:$p_rt"
start roundtrip-conformance "$p_conf" "$rt_bin/conformance" --http "127.0.0.1:$p_conf"
start rmcp "$p_rmcp" "$peers_bin/rmcp-provision" "127.0.0.1:$p_rmcp"
start python "$p_py" "$python" bench/peers/python/provision_server.py "$p_py"
# The floor answers the very bytes roundtrip answers to the plain call (checked on the way).
load() { taskset -c "$load_cpus" "$peers_bin/peers-load" --connections "$connections" "$@"; }
load --url "http://127.0.0.1:$p_conf/mcp" --scenario call --once >"$dir/floor-body.json"
start hyper "$p_floor" "$peers_bin/hyper-floor" "127.0.0.1:$p_floor" "$dir/floor-body.json"
# The essential-work floor seals a state of the size roundtrip's leg 1 carries: its token, less
# the prefix, decoded, less the key id, nonce and tag.
load --url "http://127.0.0.1:$p_rt/mcp" --scenario flow --once >"$dir/leg1.json"
state_bytes="$(python3 -c 'import json, sys; t = json.load(open(sys.argv[1]))["result"]["requestState"]; print((len(t) - 4) * 3 // 4 - 4 - 12 - 16)' "$dir/leg1.json")"
start essential "$p_ess" "$peers_bin/essential-floor" "127.0.0.1:$p_ess" --state-bytes "$state_bytes"
if [ "$otel" = 1 ]; then
  start rt-nootel "$p_nootel" "$rt_target/no-otel/release/provision" --http "127.0.0.1:$p_nootel"
  # An OTLP/HTTP sink on the generator's CPUs: reads each export whole and answers 200.
  taskset -c "$load_cpus" python3 - "$p_sink" >"$dir/sink.log" 2>&1 <<'PYEOF' &
import http.server, sys
class Sink(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()
    def log_message(self, *args):
        pass
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Sink).serve_forever()
PYEOF
  pids+=($!)
  OTEL_EXPORTER_OTLP_ENDPOINT="http://127.0.0.1:$p_sink" OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf \
    start rt-otlp "$p_otlp" "$rt_bin/provision" --http "127.0.0.1:$p_otlp"
fi

if [ "$intercepted" = 1 ]; then
  start rt-audited "$p_audited" "$rt_bin/provision-audited" --http "127.0.0.1:$p_audited"
fi
if [ -n "$base_bin" ]; then
  start rt-base "$p_base" "$base_bin" --http "127.0.0.1:$p_base"
fi

# label server-process URL scenario [extra args]
runs=(
  "roundtrip|roundtrip|http://127.0.0.1:$p_rt/mcp|flow"
  "roundtrip|roundtrip-conformance|http://127.0.0.1:$p_conf/mcp|call"
  "rmcp|rmcp|http://127.0.0.1:$p_rmcp/mcp|flow"
  "rmcp|rmcp|http://127.0.0.1:$p_rmcp/mcp|call"
  "python|python|http://127.0.0.1:$p_py/mcp|flow"
  "python|python|http://127.0.0.1:$p_py/mcp|call"
  "hyper|hyper|http://127.0.0.1:$p_floor/|fixed"
  "essential|essential|http://127.0.0.1:$p_ess/mcp|flow"
)
if [ "$otel" = 1 ]; then
  runs+=("rt-nootel|rt-nootel|http://127.0.0.1:$p_nootel/mcp|flow" "rt-otlp|rt-otlp|http://127.0.0.1:$p_otlp/mcp|flow")
fi
if [ "$intercepted" = 1 ]; then
  runs+=("rt-audited|rt-audited|http://127.0.0.1:$p_audited/mcp|flow")
fi
if [ -n "$base_bin" ]; then
  runs+=("rt-base|rt-base|http://127.0.0.1:$p_base/mcp|flow")
fi

# cpu_ticks PID: the process's user and system CPU ticks (utime, stime); cpu_total PID: their sum.
cpu_ticks() { sed 's/^.*) //' "/proc/$1/stat" | awk '{print $12, $13}'; }
cpu_total() { cpu_ticks "$1" | awk '{print $1 + $2}'; }
# per_request TICKS REQUESTS: CPU ticks as µs per request.
per_request() { awk -v t="$1" -v hz="$tick" -v n="$2" 'BEGIN { printf "%.1f", (n > 0 ? t * 1e6 / hz / n : 0) }'; }

echo
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at start; CLK_TCK $tick"
echo "servers pinned to CPU(s) $server_cpus (Rust servers: $workers tokio worker thread(s)), load generator to CPU(s) $load_cpus (1 thread, $connections connections)"
echo "versions: $(rustc --version), rmcp 3.11.0, mcp $("$python" -c 'import importlib.metadata as m; print(m.version("mcp"))') on $("$python" -V 2>&1), roundtrip $(git rev-parse --short HEAD)"
allocator() { if grep -qa mi_malloc_aligned "$1"; then echo mimalloc; else echo system; fi; }
echo "Rust servers built with: $profile"
echo "allocators: roundtrip $(allocator "$rt_bin/provision"), rmcp $(allocator "$peers_bin/rmcp-provision"), floor $(allocator "$peers_bin/hyper-floor")"
echo "plain-call body of roundtrip (the floor's fixed answer): $(wc -c <"$dir/floor-body.json") bytes"
echo "state of roundtrip's leg 1 (the essential floor seals as much): $state_bytes bytes of plaintext"
if awk -v l="$(cut -d' ' -f1 /proc/loadavg)" 'BEGIN { exit !(l > 0.5) }'; then
  echo "WARNING: the machine is not quiet (1-minute load average $(cut -d' ' -f1 /proc/loadavg)): other processes share the"
  echo "         pinned cores, so throughput, latency and CPU per request will be noisy and inflated."
fi
echo

failed=0
results="$dir/results"
: >"$results"
# measure ROUND LABEL PROCESS URL SCENARIO SECONDS: one run of the generator; prints its line and
# appends a result row (unless ROUND is "warmup").
measure() {
  local round="$1" label="$2" proc="$3" url="$4" scenario="$5" secs="$6"
  local pid="${pid_of[$proc]}" extra=() out c0 c1 status=0
  [ "$scenario" = fixed ] && extra=(--expect "$dir/floor-body.json")
  c0="$(cpu_ticks "$pid")"
  out="$(load --url "$url" --scenario "$scenario" --seconds "$secs" "${extra[@]}")" || status=$?
  c1="$(cpu_ticks "$pid")"
  kill -0 "$pid" 2>/dev/null || { echo "$proc died; its log:" >&2; cat "$dir/$proc.log" >&2; exit 1; }
  local line; line="$(grep '^RESULT ' <<<"$out" || true)"
  if [ "$status" != 0 ] || [ -z "$line" ]; then
    failed=1
    echo "FAILED: $label $scenario (round $round):"; grep -v '^RESULT ' <<<"$out" || true
  fi
  [ -z "$line" ] && return 0
  # key=value fields of the RESULT line
  local -A f
  for kv in ${line#RESULT }; do f[${kv%%=*}]="${kv#*=}"; done
  local cpu_us user_us sys_us busy client_us fps="${f[fps]}" n="${f[requests]}" u0 s0 u1 s1 total
  read -r u0 s0 <<<"$c0"
  read -r u1 s1 <<<"$c1"
  total=$((u1 + s1 - u0 - s0))
  cpu_us="$(per_request "$total" "$n")"
  user_us="$(per_request $((u1 - u0)) "$n")"
  sys_us="$(per_request $((s1 - s0)) "$n")"
  busy="$(awk -v t="$total" -v hz="$tick" -v s="${f[seconds]}" 'BEGIN { printf "%.0f", (s > 0 ? t / hz / s * 100 : 0) }')"
  client_us="$(per_request "${f[client_ticks]}" "$n")"
  [ "$scenario" = flow ] || fps="-"
  printf '  round %-6s %-9s %-5s %9s flows/s %9s req/s  p50 %8s µs  p99 %8s µs  server CPU %6s µs/req (user %s, sys %s), busy %3s%%  (generator %5s µs/req; %s checks failed)\n' \
    "$round" "$label" "$scenario" "$fps" "${f[rps]}" "${f[p50_us]}" "${f[p99_us]}" "$cpu_us" "$user_us" "$sys_us" "$busy" "$client_us" "${f[failures]}"
  [ "$round" = warmup ] && return 0
  echo "$label $scenario ${f[fps]} ${f[rps]} ${f[p50_us]} ${f[p99_us]} $cpu_us $busy $client_us ${f[failures]} $user_us $sys_us" >>"$results"
}

echo "warm-up: ${warmup} s per server and scenario (not counted)"
for r in "${runs[@]}"; do
  IFS='|' read -r label proc url scenario <<<"$r"
  measure warmup "$label" "$proc" "$url" "$scenario" "$warmup"
done
echo
echo "measured: $rounds interleaved round(s) of $seconds s per server and scenario"
for round in $(seq 1 "$rounds"); do
  for r in "${runs[@]}"; do
    IFS='|' read -r label proc url scenario <<<"$r"
    measure "$round" "$label" "$proc" "$url" "$scenario" "$seconds"
  done
done

if [ "$use_wrk" = 1 ]; then
  echo
  echo "wrk cross-check of the plain call (wrk -t1 -c$connections -d${seconds}s, bodies checked in Lua), $rounds round(s):"
  req="$(python3 -c 'import json; print(json.dumps({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_simple_text","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}},"io.modelcontextprotocol/clientInfo":{"name":"wrk","version":"0"}}}}))')"
  cat >"$dir/call.lua" <<LUA
wrk.method = "POST"
wrk.body = [[$req]]
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
wrk.headers["MCP-Protocol-Version"] = "2026-07-28"
wrk.headers["Mcp-Method"] = "tools/call"
wrk.headers["Mcp-Name"] = "test_simple_text"
local threads = {}
function setup(thread) table.insert(threads, thread) end
function init(args) bad = 0 end
function response(status, headers, body)
  if status ~= 200 or not body:find('"id":1', 1, true)
     or not body:find('"text":"This is a simple text response for testing."', 1, true)
     or body:find('"isError":true', 1, true) then bad = bad + 1 end
end
function done(summary, latency, requests)
  local b = 0
  for _, t in ipairs(threads) do b = b + t:get("bad") end
  io.write(string.format("WRK requests=%d bad=%d p50_us=%.1f p99_us=%.1f\n",
    summary.requests, b, latency:percentile(50), latency:percentile(99)))
end
LUA
  for round in $(seq 1 "$rounds"); do
    for r in "roundtrip|roundtrip-conformance|http://127.0.0.1:$p_conf/mcp" "rmcp|rmcp|http://127.0.0.1:$p_rmcp/mcp" \
             "python|python|http://127.0.0.1:$p_py/mcp" "hyper|hyper|http://127.0.0.1:$p_floor/"; do
      IFS='|' read -r label proc url <<<"$r"
      pid="${pid_of[$proc]}"
      c0="$(cpu_total "$pid")"
      out="$(taskset -c "$load_cpus" wrk -t1 -c"$connections" -d"${seconds}s" --latency -s "$dir/call.lua" "$url")"
      c1="$(cpu_total "$pid")"
      rps="$(awk '/^Requests\/sec/ {print $2}' <<<"$out")"
      line="$(grep '^WRK ' <<<"$out")"
      n="$(sed 's/.*requests=\([0-9]*\).*/\1/' <<<"$line")"; bad="$(sed 's/.*bad=\([0-9]*\).*/\1/' <<<"$line")"
      p50="$(sed 's/.*p50_us=\([0-9.]*\).*/\1/' <<<"$line")"; p99="$(sed 's/.*p99_us=\([0-9.]*\).*/\1/' <<<"$line")"
      cpu_us="$(per_request $((c1 - c0)) "$n")"
      printf '  round %-3s %-9s call %9s req/s  p50 %8s µs  p99 %8s µs  server CPU %7s µs/req  (%s bad bodies)\n' \
        "$round" "$label" "$rps" "$p50" "$p99" "$cpu_us" "$bad"
      if [ "$bad" != 0 ] || grep -q 'Non-2xx\|Socket errors' <<<"$out"; then failed=1; grep 'Non-2xx\|Socket errors' <<<"$out" || true; fi
    done
  done
fi

echo
echo "load average $(cut -d' ' -f1-3 /proc/loadavg) at the end"
echo
"$python" - "$results" "$rounds" <<'PY'
import statistics, sys
from collections import defaultdict

path, rounds = sys.argv[1], int(sys.argv[2])
rows = defaultdict(list)
for line in open(path):
    label, scenario, *nums = line.split()
    rows[(label, scenario)].append([float(x) for x in nums])

def ratio(a, b):
    return a / b if b and b == b else float("nan")


def num(x, fmt):
    return format(x, fmt) if x == x else "-"


def med(key, i):
    vals = [r[i] for r in rows.get(key, [])]
    return statistics.median(vals) if vals else float("nan")

order = [("roundtrip", "flow"), ("roundtrip", "call"), ("rmcp", "flow"), ("rmcp", "call"),
         ("python", "flow"), ("python", "call"), ("hyper", "fixed"), ("essential", "flow"), ("rt-nootel", "flow"),
         ("rt-otlp", "flow"), ("rt-audited", "flow"), ("rt-base", "flow")]
print(f"median of {rounds} round(s), column by column. A flow is 2 requests (leg 1 asks, leg 2 completes); p50/p99 are per request.")
print("CPU µs/req: the server process's own utime+stime over the run / its requests (user, sys: each alone); busy: that CPU time / the run's")
print("wall time (near 100% per pinned core = the server was the bottleneck; well below = the generator or the machine was).")
print(f"{'server':<10} {'scenario':<9} {'flows/s':>9} {'req/s':>9} {'p50 µs':>9} {'p99 µs':>9} {'CPU µs/req':>11} {'user':>6} {'sys':>6} {'vs floor':>9} {'busy':>6}")
floor = med(("hyper", "fixed"), 4)
for key in order:
    if key not in rows:
        continue
    fps, rps, p50, p99, cpu, busy = (med(key, i) for i in range(6))
    user, sys_ = med(key, 8), med(key, 9)
    fps = fps if key[1] == "flow" else float("nan")
    print(f"{key[0]:<10} {key[1]:<9} {num(fps, '.0f'):>9} {num(rps, '.0f'):>9} {num(p50, '.1f'):>9} {num(p99, '.1f'):>9} "
          f"{num(cpu, '.1f'):>11} {num(user, '.1f'):>6} {num(sys_, '.1f'):>6} {num(ratio(cpu, floor), '.2f'):>8}x {num(busy, '.0f'):>5}%")


rt_f, rm_f, py_f = (med((s, "flow"), 0) for s in ("roundtrip", "rmcp", "python"))
essential = med(("essential", "flow"), 4)
checks = [
    ("roundtrip CPU per MRTR leg / essential-work floor", ratio(med(("roundtrip", "flow"), 4), essential), "<=", 1.3),
    ("roundtrip / rmcp 3.11, full flows/s", ratio(rt_f, rm_f), ">=", 2.0),
    ("roundtrip / Python SDK, full flows/s", ratio(rt_f, py_f), ">=", 40.0),
]
print()
print(f"essential-work floor: {num(essential, '.1f')} µs per leg; hyper floor: {num(floor, '.1f')} µs per request")
rt_flow, ess_flow = ("roundtrip", "flow"), ("essential", "flow")
print(f"roundtrip / essential floor, user CPU alone {num(ratio(med(rt_flow, 8), med(ess_flow, 8)), '.2f')}x, "
      f"system CPU alone {num(ratio(med(rt_flow, 9), med(ess_flow, 9)), '.2f')}x")
print("ratios (issue 27's goals in brackets):")
for name, value, op, target in checks:
    ok = value >= target if op == ">=" else value <= target
    print(f"  {name:<50} {num(value, '8.2f')}x  [{op} {target}x: {'met' if ok else 'NOT met'}]")
for name, key in (("rmcp 3.11", "rmcp"), ("Python SDK", "python")):
    print(f"  {name + ' CPU per MRTR leg / hyper floor':<50} {num(ratio(med((key, 'flow'), 4), floor), '8.2f')}x")
if ("rt-nootel", "flow") in rows:
    bare = med(("rt-nootel", "flow"), 4)
    print("telemetry (issue 23: compiled in with no exporter <= 3% server CPU per leg):")
    print(f"  otel compiled in, no exporter: {num(med(('roundtrip', 'flow'), 4), '.1f')} µs/leg against {num(bare, '.1f')} "
          f"without: {num((ratio(med(('roundtrip', 'flow'), 4), bare) - 1) * 100, '+.1f')}%")
    print(f"  exporting every span by OTLP:  {num(med(('rt-otlp', 'flow'), 4), '.1f')} µs/leg: "
          f"{num((ratio(med(('rt-otlp', 'flow'), 4), bare) - 1) * 100, '+.1f')}%")
if ("rt-audited", "flow") in rows:
    plain, audited = med(("roundtrip", "flow"), 4), med(("rt-audited", "flow"), 4)
    print("interceptors (issue 43: one that counts requests, against none):")
    print(f"  {num(audited, '.1f')} µs/leg against {num(plain, '.1f')}: {num((ratio(audited, plain) - 1) * 100, '+.1f')}%")
if ("rt-base", "flow") in rows:
    head, base = med(("roundtrip", "flow"), 4), med(("rt-base", "flow"), 4)
    print("the head against the base build (--base), in the same rounds:")
    print(f"  {num(head, '.1f')} µs/leg against {num(base, '.1f')}: head / base {num(ratio(head, base), '.2f')}x; "
          f"base / essential floor {num(ratio(base, essential), '.2f')}x")
bad = sum(r[7] for v in rows.values() for r in v)
print(f"\nfailed body checks: {bad:.0f}")
PY

if [ "$failed" != 0 ]; then
  echo "bench-peers: some runs FAILED their body checks (see above)" >&2
  exit 1
fi
