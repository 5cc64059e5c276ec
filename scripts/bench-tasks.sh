#!/usr/bin/env bash
# tasks/get against the in-memory and the Redis task stores, beside a plain tools/call, in one
# run of the loopback load benchmark. Starts a redis-server of its own on a free loopback port
# (installs Debian's package if missing) and stops it afterwards.
#
#   scripts/bench-tasks.sh              # 5 s per scenario, 16 connections
#   scripts/bench-tasks.sh --seconds 10
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v redis-server >/dev/null 2>&1; then
  apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null
fi
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no >/dev/null &
redis_pid=$!
trap 'kill $redis_pid 2>/dev/null || true' EXIT
for _ in $(seq 100); do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then break; fi
  sleep 0.05
done
cargo bench -p roundtrip --features redis --bench http_load -- --redis "redis://127.0.0.1:$port/" "$@"
