#!/usr/bin/env bash
# The exhaustive check of the resolver engine at its full bound (issue 26, item 1), in release,
# in two passes: every resolver graph of up to 3 questions with every kind and every answer
# word of up to 3 symbols; then graphs of 4 questions with one kind per way the engine treats a
# parameter and words of up to 2 symbols. Both eras, each leg compared with the reference
# model (runtime/tests/exhaustive.rs says what is checked and how the bound is cut); `cargo
# test` runs the same check at a small bound.
#
#   scripts/exhaustive.sh                     # the full bound (about 7 minutes on 2 cores, the build included)
#   EXHAUSTIVE_LENGTH=4 scripts/exhaustive.sh # a variable set here applies to both passes
#
# Prints, per pass, the graphs, sequences (flows run to their end), steps (legs run), legacy
# calls and the time; exits non-zero on the first leg that differs from the model (graph and
# word named).
set -euo pipefail
cd "$(dirname "$0")/.."

pass() {
  EXHAUSTIVE_QUESTIONS="${EXHAUSTIVE_QUESTIONS:-$1}" \
    EXHAUSTIVE_LENGTH="${EXHAUSTIVE_LENGTH:-$2}" \
    EXHAUSTIVE_KINDS="${EXHAUSTIVE_KINDS:-3}" \
    EXHAUSTIVE_REFUSABLE="${EXHAUSTIVE_REFUSABLE:-2}" \
    EXHAUSTIVE_CHECKS="${EXHAUSTIVE_CHECKS:-2}" \
    EXHAUSTIVE_LEGACY="${EXHAUSTIVE_LEGACY:-1}" \
    EXHAUSTIVE_FROM="$3" \
    cargo test --release -p roundtrip --test exhaustive every_graph -- --nocapture 2>&1 |
    grep --line-buffered -E '^exhaustive|panicked|^graph |test result' || {
    echo "exhaustive: FAILED" >&2
    exit 1
  }
}

start=$(date +%s)
pass 3 3 0
pass 4 2 4
echo "exhaustive: $(($(date +%s) - start)) s including the build"
