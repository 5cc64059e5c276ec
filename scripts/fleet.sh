#!/usr/bin/env bash
# Three replicas of the provision example behind nginx, with shared requestState keys and a
# Redis task store, under mixed load (provision: one question; wizard: two rounds; backup: a
# question, then a task that asks mid-run), every leg through nginx. During the run one replica
# is killed with SIGKILL and restarted, and the keys rotate in three rolling restarts:
# [K1] -> [K1,K2] -> [K2,K1] -> [K2]. The load driver (examples/src/bin/fleet-load.rs) prints
# flows started, completed and lost, the client's retries, and counts per phase; this script
# exits non-zero if any flow was lost.
#
#   scripts/fleet.sh            # about two minutes
#   scripts/fleet.sh --short    # about 30 s (the test command runs this)
#
# Installs nginx and redis-server (Debian packages) when missing. Everything listens on
# loopback ports chosen here; everything started is stopped on exit.
set -euo pipefail
cd "$(dirname "$0")/.."

SECONDS_TOTAL=120
if [ "${1:-}" = "--short" ]; then SECONDS_TOTAL=32; fi
# Phase lengths, in seconds: steady, after the kill, and each rotation step (the rest runs at
# the end, after the last step).
STEP=$(( SECONDS_TOTAL / 8 ))

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

cargo build --quiet -p roundtrip-examples --bin provision --bin fleet-load
TARGET="${CARGO_TARGET_DIR:-$PWD/target}/debug"

WORK=$(mktemp -d -t roundtrip-fleet.XXXXXX)
pids=()
cleanup() {
  # nginx runs in the foreground (daemon off), so it is one of these.
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
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

LB=$(free_port); REDIS=$(free_port)
PORTS=("$(free_port)" "$(free_port)" "$(free_port)")
K1=$(key); K2=$(key)

redis-server --port "$REDIS" --bind 127.0.0.1 --save "" --appendonly no >"$WORK/redis.log" 2>&1 &
pids+=($!)
wait_port "$REDIS"

declare -A replica_pid
start_replica() { # index keys
  local i=$1 keys=$2
  ROUNDTRIP_STATE_KEYS="$keys" ROUNDTRIP_TASK_STORE="redis://127.0.0.1:$REDIS/" RUST_LOG=warn \
    "$TARGET/provision" --http "127.0.0.1:${PORTS[$i]}" >>"$WORK/replica-$i.log" 2>&1 &
  replica_pid[$i]=$!
  pids+=($!)
  wait_port "${PORTS[$i]}"
}
stop_replica() { # index signal
  local i=$1 signal=$2 pid=${replica_pid[$1]}
  kill "-$signal" "$pid" 2>/dev/null || true
  # A graceful stop waits for the requests and task bodies in flight (at most ~15 s).
  for _ in $(seq 400); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.05; done
  kill -9 "$pid" 2>/dev/null || true
}
rolling_restart() { # keys
  for i in 0 1 2; do
    stop_replica "$i" TERM
    start_replica "$i" "$1"
    sleep 0.5
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
echo steady >"$PHASE"
echo "fleet: nginx 127.0.0.1:$LB -> replicas ${PORTS[*]}, redis 127.0.0.1:$REDIS, ${SECONDS_TOTAL} s of load"
RUST_LOG="${FLEET_LOG:-warn}" "$TARGET/fleet-load" --url "http://127.0.0.1:$LB/mcp" --flows 100000000 --seconds "$SECONDS_TOTAL" \
  --concurrency 16 --phase-file "$PHASE" >"$WORK/report.txt" 2>"$WORK/fleet-load.log" &
driver=$!

sleep "$STEP"
echo kill-9 >"$PHASE"
echo "fleet: SIGKILL replica 1 (port ${PORTS[1]}), restart it"
stop_replica 1 KILL
sleep 1
start_replica 1 "$K1"
sleep "$STEP"
echo "rotate-1" >"$PHASE"; echo "fleet: rolling restart with [K1,K2]"; rolling_restart "$K1,$K2"; sleep 2
echo "rotate-2" >"$PHASE"; echo "fleet: rolling restart with [K2,K1]"; rolling_restart "$K2,$K1"; sleep 2
echo "rotate-3" >"$PHASE"; echo "fleet: rolling restart with [K2]"; rolling_restart "$K2"
echo after >"$PHASE"

status=0
wait "$driver" || status=$?
cat "$WORK/report.txt"
if [ "$status" != 0 ]; then
  echo "fleet: flows were lost (logs in $WORK)" >&2
  tail -n 20 "$WORK/fleet-load.log" >&2 || true
  trap - EXIT
  cleanup
  exit 1
fi
echo "fleet: 0 flows lost"
