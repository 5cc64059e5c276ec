#!/usr/bin/env bash
# Cold start to first answer of the `provision` example (release build, feature `lambda`):
#   - as an AWS Lambda function: cargo-lambda's emulator serves only the Lambda runtime API
#     (`cargo lambda watch --only-lambda-apis`), a `tools/list` request waits at its function
#     URL, and the binary is started by hand with the Lambda environment; timed from the start
#     of the process to the answer (cargo is not in the figure);
#   - as a plain process: `provision --http`, timed from the start of the process to the first
#     answer of the same request (polled every millisecond).
# Beside it, the same two ways, rmcp 3.11 (the official Rust SDK) serving the same tools:
# bench/peers' `rmcp-provision` built with its feature `lambda` (lambda_http 1.3.2, as
# roundtrip-lambda, handing each event to rmcp's stateless `StreamableHttpService`).
# Each is run RUNS times (default 20); prints the median and the fastest, in milliseconds.
#
#     scripts/bench-lambda.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS="${1:-20}"
scripts/setup-tools.sh >/dev/null
cargo build --quiet --release -p roundtrip-examples --bin provision --features lambda
BIN="${CARGO_TARGET_DIR:-$PWD/target}/release/provision"
(cd bench/peers && cargo build --quiet --release --features lambda --bin rmcp-provision)
RMCP_BIN="$PWD/bench/peers/target/release/rmcp-provision"
PORT="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
LOG="$(mktemp -t bench-lambda.XXXXXX)"
setsid .venv/bin/cargo-lambda lambda watch --only-lambda-apis -A 127.0.0.1 -P "$PORT" >"$LOG" 2>&1 &
EMULATOR=$!
trap 'kill -- "-$EMULATOR" 2>/dev/null || true; rm -f "$LOG"' EXIT
.venv/bin/python - "$BIN" "$RMCP_BIN" "$PORT" "$RUNS" <<'PYEOF'
import json, os, socket, statistics, subprocess, sys, threading, time, urllib.error, urllib.request

binary, rmcp_binary, port, runs = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "0"}}}}).encode()
headers = {"content-type": "application/json", "accept": "application/json, text/event-stream",
           "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/list"}

def post(url, timeout):
    with urllib.request.urlopen(urllib.request.Request(url, body, headers, method="POST"), timeout=timeout) as r:
        assert r.status == 200 and b'"tools"' in r.read()

deadline = time.monotonic() + 30
while True:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
        break
    except OSError:
        if time.monotonic() > deadline:
            sys.exit("the emulator did not listen")
        time.sleep(0.05)

keys = os.urandom(32).hex()
# What the emulator says a function started by hand must be given (its runtime API under
# `/.rt`, the function named `_`).
lambda_env = dict(os.environ, AWS_LAMBDA_RUNTIME_API=f"http://127.0.0.1:{port}/.rt", AWS_LAMBDA_FUNCTION_NAME="_",
                  AWS_LAMBDA_FUNCTION_MEMORY_SIZE="128", AWS_LAMBDA_FUNCTION_VERSION="1",
                  ROUNDTRIP_STATE_KEYS=keys, RUST_LOG="warn")

def as_function(binary):
    answered = {}
    def ask():
        post(f"http://127.0.0.1:{port}/lambda-url/_/mcp", 30)
        answered["at"] = time.perf_counter()
    waiting = threading.Thread(target=ask)
    waiting.start()
    time.sleep(0.2)  # the request waits at the emulator for a function to take it
    start = time.perf_counter()
    proc = subprocess.Popen([binary], env=lambda_env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    waiting.join(30)
    proc.kill(); proc.wait()
    return (answered["at"] - start) * 1000

def as_process(command):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0)); free = s.getsockname()[1]
    env = dict(os.environ, ROUNDTRIP_STATE_KEYS=keys, RUST_LOG="warn")
    start = time.perf_counter()
    proc = subprocess.Popen(command(f"127.0.0.1:{free}"), env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    while True:
        try:
            post(f"http://127.0.0.1:{free}/mcp", 5)
            break
        except (urllib.error.URLError, ConnectionError):
            time.sleep(0.001)
    took = (time.perf_counter() - start) * 1000
    proc.kill(); proc.wait()
    return took

rows = (
    ("roundtrip, Lambda function", lambda: as_function(binary)),
    ("rmcp, Lambda function", lambda: as_function(rmcp_binary)),
    ("roundtrip, plain process", lambda: as_process(lambda addr: [binary, "--http", addr])),
    ("rmcp, plain process", lambda: as_process(lambda addr: [rmcp_binary, addr])),
)
for name, run in rows:
    run()  # warm the page cache
    times = [run() for _ in range(runs)]
    print(f"{name:28} start to first answer: median {statistics.median(times):6.1f} ms, fastest {min(times):6.1f} ms ({runs} runs)")
print(f"binaries: roundtrip {os.path.getsize(binary) / 1e6:.1f} MB, rmcp {os.path.getsize(rmcp_binary) / 1e6:.1f} MB")
PYEOF
