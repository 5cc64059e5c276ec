#!/usr/bin/env bash
# The deterministic simulation of the fleet (issue 26, item 2) at its full count, in release:
# 20 000 seeds, each a run of three replicas sharing a task store and replay cache, a load
# balancer and a client with the retry rule, under faults chosen by the seed (crashes, at a
# time and inside a store operation; key rotation restarts; the store and replay cache failing,
# slow or unreachable; messages dropped, duplicated and delayed; clock skew). Every run checks
# the invariants (runtime/tests/simulate.rs says which and how); `cargo test` runs 500 seeds.
#
#   scripts/simulate.sh                       # 20 000 seeds from 0
#   SIM_SEEDS=100000 SIM_FROM=20000 scripts/simulate.sh
#   SIM_THREADS=1 scripts/simulate.sh         # threads running seeds (default: 2)
#
# Prints the seeds, flows, tasks and simulated time, the faults hit by kind, and the time it
# took; exits non-zero if a seed breaks an invariant (each failing seed is printed with its
# faults, violations, the tail of its trace and the command that replays it) or if a kind of
# fault was never injected.
set -euo pipefail
cd "$(dirname "$0")/.."

start=$(date +%s)
SIM_SEEDS="${SIM_SEEDS:-20000}" SIM_FROM="${SIM_FROM:-0}" \
  cargo test --release -p roundtrip --test simulate -- --exact seeds --nocapture 2>&1 |
  grep --line-buffered -vE '^\s*(Compiling|Running|Finished|running [0-9]+ test)|^$' || {
  echo "simulate: FAILED" >&2
  exit 1
}
echo "simulate: $(($(date +%s) - start)) s including the build"
