#!/usr/bin/env bash
# Instructions per served request of the `provision` flow (issues 27 and 40's goal: at most
# 70 k): the example's server under callgrind, 400 flow requests of `peers-load` over 4
# connections as warm-up, the counters zeroed, 4 000 requests counted, the counters dumped.
#
#   scripts/bench-peers.sh --seconds 2 --rounds 1   # once: builds provision and peers-load
#   scripts/callgrind-flow.sh                       # this build's figure
#   BIN=/elsewhere/target/release/provision scripts/callgrind-flow.sh   # another build's
#
# Environment: BIN (default target/release/provision), SERVER_ARGS (the server's arguments,
# ADDR where its listen address goes; default `--http ADDR`), PORT (default 18299), REQUESTS
# (default 4000), KEEP (a path the callgrind output is copied to, for callgrind_annotate),
# DUMP_INSTR=1 (record costs per instruction: what scripts/code-footprint.sh reads). Needs
# valgrind (apt-get install -y valgrind).
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${BIN:-target/release/provision}"
port="${PORT:-18299}"
requests="${REQUESTS:-4000}"
load=bench/peers/target/release/peers-load
out="$(mktemp -d)"
trap '[[ -n "${KEEP:-}" ]] && cp "$out"/callgrind.out.1 "$KEEP"; rm -rf "$out"' EXIT
for needed in "$bin" "$load"; do
  [[ -x "$needed" ]] || { echo "callgrind-flow: $needed is not built (see the usage above)" >&2; exit 2; }
done

read -ra server_args <<< "${SERVER_ARGS:---http ADDR}"
flags=(--tool=callgrind --callgrind-out-file="$out/callgrind.out")
[[ "${DUMP_INSTR:-0}" = 1 ]] && flags+=(--dump-instr=yes)
valgrind "${flags[@]}" "$bin" "${server_args[@]//ADDR/127.0.0.1:$port}" > "$out/server.log" 2>&1 &
server=$!
for _ in $(seq 1 120); do
  curl -s -o /dev/null "http://127.0.0.1:$port/mcp" && break
  sleep 1
done
run() { "$load" --url "http://127.0.0.1:$port/mcp" --scenario flow --connections 4 --seconds 600 --max-requests "$1"; }
run 400 > /dev/null
callgrind_control -z "$server" > /dev/null 2>&1
run "$requests" | tee "$out/load.log" | grep '^RESULT'
callgrind_control -d "$server" > /dev/null 2>&1
kill "$server"
wait "$server" 2> /dev/null || true

counted="$(awk '/^RESULT/ { for (i = 1; i <= NF; i++) if ($i ~ /^requests=/) { sub("requests=", "", $i); print $i } }' "$out/load.log")"
instructions="$(awk '/^(summary|totals):/ { print $2; exit }' "$out/callgrind.out.1")"
python3 -c "print(f'{$instructions} instructions for {$counted} requests: {$instructions / $counted / 1000:.1f} k per request')"
