#!/usr/bin/env bash
# Three replicas of the provision example behind nginx, with shared requestState keys and a
# Redis task store (append-only file on), under mixed load, every leg through nginx:
# provision (one question), wizard (two rounds), backup (a question, then a task that asks
# mid-run), all idempotent, and confirm_delete (one question, not idempotent). The phases:
#
#   steady         nothing happens
#   kill-9         one replica is killed with SIGKILL and restarted
#   rotate-1..3    the keys rotate in three rolling restarts (SIGTERM, a graceful stop):
#                  [K1] -> [K1,K2] -> [K2,K1] -> [K2]
#   register       an operator's process (examples/src/bin/fleet-admin.rs) adds and removes
#                  the held tool `maintenance_notice` 21 times through the fleet's Redis bus,
#                  ending with it added: every replica must list it within a second after
#   redis-restart  redis-server is stopped and started again in place (its append-only file
#                  keeps the tasks)
#   redis-down     redis-server is paused for 10 s (SIGSTOP, then SIGCONT): its connections
#                  stay open and nothing answers, as in a network partition, which is harsher
#                  than a refused connection (every Redis operation must time out rather than
#                  fail at once); a replica's /readyz must read 503 meanwhile and 200 after
#   after          nothing happens
#
# The load driver (examples/src/bin/fleet-load.rs) counts flows per kind and per phase:
# started, completed, failed visibly, lost. This script exits non-zero if an idempotent flow
# was lost or failed, a flow that is not idempotent was lost, a phase carried fewer flows than
# its floor (10 a second of its length), a graceful stop took longer than 15 s, a replica did
# not list the tool registered at run time, readiness did not follow Redis, or a replica's log
# shows a panic.
#
#   scripts/fleet.sh            # about two minutes
#   scripts/fleet.sh --short    # about 50 s (the test command runs this)
#
# Installs nginx and redis-server (Debian packages) when missing. Everything listens on
# loopback ports chosen here; everything started is stopped on exit.
set -euo pipefail
cd "$(dirname "$0")/.."

# The length of the quiet phases (steady, after the kill, after the redis restart, after),
# in seconds; each rotation takes what its rolling restart takes (about 8 s).
STEP=15
if [ "${1:-}" = "--short" ]; then STEP=3; fi
# How long Redis is paused, how long a graceful stop may take (it gives task bodies 10 s), and
# the floor of each phase in flows per second of its length: a fiftieth of what a quiet phase
# carries on a 2-core machine with a debug build (about 500 a second), so that a phase that
# stalled fails while a slow machine passes. FLEET_MIN_RATE overrides it.
DOWN=10
GRACE=15
MIN_RATE=${FLEET_MIN_RATE:-10}

need=()
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || need+=(nginx)
command -v redis-server >/dev/null 2>&1 || need+=(redis-server)
if [ ${#need[@]} -gt 0 ]; then
  echo "fleet: installing ${need[*]} (apt-get)"
  SUDO=""; if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
  $SUDO apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
NGINX=$(command -v nginx || echo /usr/sbin/nginx)

cargo build --quiet -p roundtrip-examples --bin provision --bin fleet-load --bin fleet-admin
TARGET="${CARGO_TARGET_DIR:-$PWD/target}/debug"

WORK=$(mktemp -d -t roundtrip-fleet.XXXXXX)
pids=()
redis_pid=""
problems=()
cleanup() {
  # A paused Redis would not act on SIGTERM.
  if [ -n "$redis_pid" ]; then kill -CONT "$redis_pid" 2>/dev/null || true; fi
  # nginx runs in the foreground (daemon off), so it is one of these. What does not stop
  # within 5 s (a replica whose graceful stop hangs) is killed.
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for _ in $(seq 100); do
    local left=0
    for pid in "${pids[@]}"; do if kill -0 "$pid" 2>/dev/null; then left=1; fi; done
    if [ "$left" = 0 ]; then break; fi
    sleep 0.05
  done
  for pid in "${pids[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_port() {
  for _ in $(seq 200); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then return 0; fi
    sleep 0.05
  done
  echo "fleet: nothing listens on port $1" >&2
  return 1
}
key() { python3 -c 'import secrets; print(secrets.token_hex(32))'; }
# The HTTP status of a GET (000 when nothing answered within 5 s).
status_of() { curl -s -o /dev/null -m 5 -w '%{http_code}' "$1" || true; }
# The names of the tools replica $1 lists (a 2026-07-28 tools/list, straight to its port).
tools_of() {
  curl -s -m 5 "http://127.0.0.1:$1/mcp" -H 'content-type: application/json' \
    -H 'accept: application/json, text/event-stream' -H 'MCP-Protocol-Version: 2026-07-28' \
    -H 'Mcp-Method: tools/list' -d '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{
      "io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}' \
    | grep -o '"name":"[a-z_]*"' || true
}

LB=$(free_port); REDIS=$(free_port)
PORTS=("$(free_port)" "$(free_port)" "$(free_port)")
K1=$(key); K2=$(key)

start_redis() {
  redis-server --port "$REDIS" --bind 127.0.0.1 --dir "$WORK" --save "" --appendonly yes \
    >>"$WORK/redis.log" 2>&1 &
  redis_pid=$!
  pids+=($!)
  wait_port "$REDIS"
}
start_redis

declare -A replica_pid
start_replica() { # index keys
  local i=$1 keys=$2
  ROUNDTRIP_STATE_KEYS="$keys" ROUNDTRIP_TASK_STORE="redis://127.0.0.1:$REDIS/" RUST_LOG=warn \
    "$TARGET/provision" --http "127.0.0.1:${PORTS[$i]}" --trusted-proxy 127.0.0.1 >>"$WORK/replica-$i.log" 2>&1 &
  replica_pid[$i]=$!
  pids+=($!)
  wait_port "${PORTS[$i]}"
}
stop_replica() { # index signal
  local i=$1 signal=$2 pid=${replica_pid[$1]}
  local began=$SECONDS
  kill "-$signal" "$pid" 2>/dev/null || true
  # A graceful stop lets the requests in flight finish and gives task bodies 10 s: it must be
  # over within GRACE seconds. One that hangs fails the run (after a SIGKILL to go on).
  for _ in $(seq $((GRACE * 20))); do
    if ! kill -0 "$pid" 2>/dev/null; then
      wait "$pid" 2>/dev/null || true
      if [ "$signal" = TERM ]; then echo "fleet:   replica $i stopped gracefully in $((SECONDS - began)) s"; fi
      return 0
    fi
    sleep 0.05
  done
  echo "fleet: replica $i did not stop within ${GRACE} s of SIG$signal; killing it" >&2
  problems+=("replica $i did not stop within ${GRACE} s of SIG$signal")
  kill -9 "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}
# Each replica is back in nginx's pool before the next one leaves it: nginx takes a replica out
# for fail_timeout (2 s, deploy/nginx.conf) after one failed request, and a graceful stop fails
# a few (requests that cross the closing of idle keep-alive connections), so replicas stopped
# closer together would leave nginx with none and it would refuse every request meanwhile.
rolling_restart() { # keys
  for i in 0 1 2; do
    stop_replica "$i" TERM
    start_replica "$i" "$1"
    sleep 2.5
  done
}

for i in 0 1 2; do start_replica "$i" "$K1"; done

sed -e "s/127.0.0.1:8080/127.0.0.1:$LB/" -e "s/127.0.0.1:8081/127.0.0.1:${PORTS[0]}/g" \
    -e "s/127.0.0.1:8082/127.0.0.1:${PORTS[1]}/g" -e "s/127.0.0.1:8083/127.0.0.1:${PORTS[2]}/g" \
    deploy/nginx.conf >"$WORK/nginx.conf"
mkdir -p "$WORK/logs"
"$NGINX" -p "$WORK" -c "$WORK/nginx.conf" -g "daemon off; pid $WORK/nginx.pid; error_log $WORK/nginx-error.log warn; user root;" &
pids+=($!)
wait_port "$LB"

PHASE="$WORK/phase"
phase() { echo "$1" >"$PHASE"; }
phase steady
echo "fleet: nginx 127.0.0.1:$LB -> replicas ${PORTS[*]}, redis 127.0.0.1:$REDIS (append-only file in $WORK)"
# The driver runs until the phase file says `end`; --seconds is only its safety limit.
RUST_LOG="${FLEET_LOG:-warn}" "$TARGET/fleet-load" --url "http://127.0.0.1:$LB/mcp" --flows 100000000 \
  --seconds 600 --concurrency 16 --min-rate "$MIN_RATE" --phase-file "$PHASE" \
  >"$WORK/report.txt" 2>"$WORK/fleet-load.log" &
driver=$!

sleep "$STEP"
phase kill-9
echo "fleet: SIGKILL replica 1 (port ${PORTS[1]}), restart it"
stop_replica 1 KILL
sleep 1
start_replica 1 "$K1"
sleep "$STEP"
phase rotate-1; echo "fleet: rolling restart with [K1,K2]"; rolling_restart "$K1,$K2"
phase rotate-2; echo "fleet: rolling restart with [K2,K1]"; rolling_restart "$K2,$K1"
phase rotate-3; echo "fleet: rolling restart with [K2]"; rolling_restart "$K2"

phase register
echo "fleet: fleet-admin adds and removes maintenance_notice 21 times through Redis, ending added"
if ! "$TARGET/fleet-admin" --redis "redis://127.0.0.1:$REDIS/" --toggles 21 --every-ms 100; then
  problems+=("fleet-admin could not send its registrations")
fi
for i in 0 1 2; do
  listed=""
  for _ in $(seq 10); do
    if tools_of "${PORTS[$i]}" | grep -q '"maintenance_notice"'; then listed=yes; break; fi
    sleep 0.1
  done
  echo "fleet:   replica $i lists maintenance_notice: ${listed:-no}"
  if [ -z "$listed" ]; then problems+=("replica $i did not list maintenance_notice a second after it was registered"); fi
done
sleep "$STEP"

phase redis-restart
echo "fleet: restart redis-server in place (append-only file on)"
kill -TERM "$redis_pid"
wait "$redis_pid" 2>/dev/null || true
start_redis
sleep "$STEP"

phase redis-down
echo "fleet: pause redis-server for ${DOWN} s (SIGSTOP ... SIGCONT)"
kill -STOP "$redis_pid"
sleep 2
ready=$(status_of "http://127.0.0.1:${PORTS[0]}/readyz"); alive=$(status_of "http://127.0.0.1:${PORTS[0]}/healthz")
echo "fleet:   during the pause, replica 0: /readyz $ready, /healthz $alive"
if [ "$ready" != 503 ]; then problems+=("replica 0's /readyz read $ready while Redis was paused, not 503"); fi
if [ "$alive" != 200 ]; then problems+=("replica 0's /healthz read $alive while Redis was paused, not 200"); fi
sleep $((DOWN - 2 - 1))
kill -CONT "$redis_pid"
back=""
for _ in $(seq 50); do
  back=$(status_of "http://127.0.0.1:${PORTS[0]}/readyz")
  if [ "$back" = 200 ]; then break; fi
  sleep 0.1
done
echo "fleet:   after the pause, replica 0: /readyz $back"
if [ "$back" != 200 ]; then problems+=("replica 0's /readyz read $back 5 s after Redis resumed, not 200"); fi

phase after
sleep "$STEP"
phase end

status=0
wait "$driver" || status=$?
cat "$WORK/report.txt"
if [ "$status" != 0 ]; then problems+=("the load driver found flows lost, failed or too few (above)"); fi
panics=$(grep -l 'panicked' "$WORK"/replica-*.log 2>/dev/null || true)
if [ -n "$panics" ]; then
  problems+=("a replica panicked: $(echo "$panics" | xargs -n1 basename | tr '\n' ' ')")
  grep -h -A3 'panicked' "$WORK"/replica-*.log | head -n 20 >&2 || true
fi
if [ ${#problems[@]} -gt 0 ]; then
  for p in "${problems[@]}"; do echo "fleet: FAILED: $p" >&2; done
  echo "fleet: logs in $WORK" >&2
  tail -n 20 "$WORK/fleet-load.log" >&2 || true
  trap - EXIT
  cleanup
  exit 1
fi
echo "fleet: no flow lost, no idempotent flow failed, every phase over its floor, readiness followed Redis, graceful stops in time, no panic"
