#!/usr/bin/env bash
# Cross-check the http_load bench's tools/call and hyper-peer figures with wrk (not needed by
# the bench itself): start both servers from the bench binary in serve mode, then run
#   wrk -t2 -c16 -d10s -s post.lua
# against each, twice, alternating. Needs `wrk` (Debian: apt-get install -y wrk).
# Usage: scripts/wrk-crosscheck.sh [SECONDS_PER_RUN]
set -euo pipefail
cd "$(dirname "$0")/.."
secs="${1:-10}"
command -v wrk >/dev/null || { echo "wrk is not installed (apt-get install -y wrk)" >&2; exit 1; }
dir="$(mktemp -d)"
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$dir"' EXIT
cargo bench -p roundtrip --bench http_load --no-run
# Serve long enough for four runs plus slack; the server exits by itself afterwards.
cargo bench -q -p roundtrip --bench http_load -- --serve $((secs * 4 + 30)) --lua-dir "$dir" >"$dir/serve.log" 2>&1 &
pid=$!
for _ in $(seq 1 100); do grep -q '^serving' "$dir/serve.log" 2>/dev/null && break; sleep 0.2; done
rt_url="$(awk '/^roundtrip /{print $2}' "$dir/serve.log")"
peer_url="$(awk '/^peer /{print $2}' "$dir/serve.log")"
[ -n "$rt_url" ] && [ -n "$peer_url" ] || { cat "$dir/serve.log"; exit 1; }
echo "load: $(cut -d' ' -f1-3 /proc/loadavg); wrk and the servers share $(nproc) cores"
for round in 1 2; do
  for which in peer roundtrip; do
    url="$peer_url"; [ "$which" = roundtrip ] && url="$rt_url"
    echo "== run $round: $which ($url)"
    wrk -t2 -c16 -d"${secs}s" --latency -s "$dir/post.lua" "$url" | grep -E 'Requests/sec|Non-2xx|Socket errors|^ +(50|99)%|Latency '
  done
done
