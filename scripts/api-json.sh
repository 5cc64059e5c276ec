#!/usr/bin/env bash
# Build rustdoc's JSON of every published library crate, with every feature, into
# target/api-json/doc/<crate>.json: what scripts/public-api.py counts and what
# cargo-semver-checks compares with the baseline in api/ (scripts/semver-baseline.sh).
#
#     scripts/api-json.sh            # prints the crates it built, one per line
#
# rustdoc's JSON output is unstable: RUSTC_BOOTSTRAP=1 lets this stable toolchain emit it
# (the format version is the toolchain's; a baseline is only comparable with JSON of the
# same format, which cargo-semver-checks checks).
set -euo pipefail
cd "$(dirname "$0")/.."
# The published library crates: publish is not false, and not a proc-macro (a proc-macro
# crate's API is its macros, which rustdoc's JSON does not describe).
crates="$(cargo metadata --no-deps --format-version 1 | python3 -c '
import json, sys
for p in json.load(sys.stdin)["packages"]:
    kinds = {k for t in p["targets"] for k in t["kind"]}
    if p.get("publish") != [] and "lib" in kinds:
        print(p["name"])')"
for crate in $crates; do
  RUSTC_BOOTSTRAP=1 cargo rustdoc --quiet -p "$crate" --all-features --target-dir target/api-json \
    -- -Z unstable-options --output-format json
  echo "$crate"
done
