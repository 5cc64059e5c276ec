#!/usr/bin/env bash
# Run every cargo-fuzz target in fuzz/ for a bounded time: scripts/fuzz.sh [SECONDS] (default 20
# per target; `--build` only builds them). Installs cargo-fuzz when it is missing
# (scripts/cargo-tools.sh), builds the targets once, runs each on a temporary copy of its seed
# corpus (fuzz/corpus/<target>: what libFuzzer adds never lands in the committed seeds), prints
# the number of runs per target, and exits non-zero when a target crashes, fails an assertion
# or hangs (the input is kept under fuzz/artifacts/<target>/; reproduce with
# `cd fuzz && cargo fuzz run -s none <target> artifacts/<target>/<file>`).
#
# On stable Rust: `-s none` (no sanitizer) needs no nightly flag and no RUSTC_BOOTSTRAP=1 with
# cargo-fuzz 0.13 on this toolchain; only the default AddressSanitizer build does
# (`RUSTC_BOOTSTRAP=1 cargo fuzz run <target>`). Builds are release with debug assertions and
# overflow checks. The first build of the targets takes a few minutes (cargo-fuzz builds the
# whole dependency tree with its own instrumentation flags, in fuzz/target).
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-20}"
if [ "$seconds" != --build ] && ! [[ "$seconds" =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: scripts/fuzz.sh [SECONDS | --build]" >&2
  exit 2
fi

scripts/cargo-tools.sh cargo-fuzz >/dev/null

cd fuzz
start=$(date +%s)
cargo fuzz build -s none
echo "built the fuzz targets in $(($(date +%s) - start)) s"
[ "$seconds" = --build ] && exit 0

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

mapfile -t targets < <(cargo fuzz list)
failed=()
report=()
for target in "${targets[@]}"; do
  corpus="$work/corpus-$target"
  mkdir -p "$corpus"
  if [ -d "corpus/$target" ]; then
    cp -R "corpus/$target/." "$corpus/"
  fi
  log="$work/$target.log"
  echo "fuzzing $target for ${seconds} s"
  if cargo fuzz run -s none "$target" "$corpus" -- \
    -max_total_time="$seconds" -timeout=20 -print_final_stats=1 >"$log" 2>&1; then
    runs="$(grep -Eo '^Done [0-9]+ runs' "$log" | tail -n 1 | awk '{print $2}')"
    report+=("$(printf '%-14s %12s runs in %s s' "$target" "${runs:-?}" "$seconds")")
  else
    failed+=("$target")
    report+=("$(printf '%-14s FAILED' "$target")")
    echo "---- $target failed:" >&2
    # The panic (or libFuzzer's verdict on a hang or an abort), then where the input is.
    grep -E -A4 "panicked at|ERROR: libFuzzer|^SUMMARY" "$log" | grep -v -E '^\s+([0-9]+: |at )' | head -n 30 >&2 || true
    grep -E -A2 "^Reproduce with" "$log" >&2 || tail -n 20 "$log" >&2
  fi
done

echo
echo "fuzzing, ${seconds} s per target:"
printf '  %s\n' "${report[@]}"
if [ "${#failed[@]}" -gt 0 ]; then
  echo "failed: ${failed[*]} (inputs under fuzz/artifacts/)" >&2
  exit 1
fi
