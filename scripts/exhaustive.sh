#!/usr/bin/env bash
# The exhaustive check of the resolver engine at its full bound (issue 26, item 1), in release:
# every resolver graph of up to 3 questions with every kind, of 4 questions with one kind per
# way the engine treats a parameter, every answer word of up to 3 symbols, in both eras, each
# leg compared with the reference model (runtime/tests/exhaustive.rs says what is checked and
# how the bound is cut). `cargo test` runs the same check at a small bound.
#
#   scripts/exhaustive.sh                     # the full bound
#   EXHAUSTIVE_LENGTH=4 scripts/exhaustive.sh # any bound variable may be overridden
#
# Prints the graphs, sequences (flows run to their end), steps (legs run), legacy calls and
# the time; exits non-zero on the first leg that differs from the model (graph and word named).
set -euo pipefail
cd "$(dirname "$0")/.."

export EXHAUSTIVE_QUESTIONS="${EXHAUSTIVE_QUESTIONS:-4}"
export EXHAUSTIVE_KINDS="${EXHAUSTIVE_KINDS:-3}"
export EXHAUSTIVE_REFUSABLE="${EXHAUSTIVE_REFUSABLE:-2}"
export EXHAUSTIVE_CHECKS="${EXHAUSTIVE_CHECKS:-2}"
export EXHAUSTIVE_LENGTH="${EXHAUSTIVE_LENGTH:-3}"
export EXHAUSTIVE_LEGACY="${EXHAUSTIVE_LEGACY:-1}"

start=$(date +%s)
cargo test --release -p roundtrip --test exhaustive -- --nocapture 2>&1 | grep --line-buffered -E '^exhaustive|panicked|^graph |test result' || {
  echo "exhaustive: FAILED" >&2
  exit 1
}
echo "exhaustive: $(($(date +%s) - start)) s including the build"
