#!/usr/bin/env bash
# Build rustdoc's JSON of every published library crate, with every feature, into
# target/doc/<crate>.json: what scripts/public-api.py counts and what cargo-semver-checks
# compares with the baseline in api/ (scripts/semver-baseline.sh).
#
#     scripts/api-json.sh            # prints the crates it built, one per line
#
# One `cargo doc` of the workspace, as scripts/test.sh's `cargo doc` (the same packages and
# features), so the dependencies that run compiled serve this one and only the workspace's
# crates are documented again. rustdoc's JSON output is unstable: scripts/rustdoc-unstable.sh
# lets this stable toolchain's rustdoc emit it (the format version is the toolchain's; a
# baseline is only comparable with JSON of the same format, which cargo-semver-checks checks).
set -euo pipefail
cd "$(dirname "$0")/.."
# The packages that are not published (examples, UI tests) are left out; of the rest, the
# library crates are printed, not a proc-macro (its API is its macros, which rustdoc's JSON
# does not describe).
# Two lines: the --exclude flags, then the printed crates (either line may be empty).
{ read -r excluded; read -r published; } < <(cargo metadata --no-deps --format-version 1 | python3 -c '
import json, sys
excluded, published = [], []
for p in json.load(sys.stdin)["packages"]:
    kinds = {k for t in p["targets"] for k in t["kind"]}
    if p.get("publish") == []:
        excluded.append("--exclude=" + p["name"])
    elif "lib" in kinds:
        published.append(p["name"])
print(",".join(excluded)); print(",".join(published))')
# shellcheck disable=SC2046
RUSTDOC="$PWD/scripts/rustdoc-unstable.sh" RUSTDOCFLAGS="-Z unstable-options --output-format json" \
  cargo doc --quiet --workspace $(tr ',' ' ' <<<"$excluded") --no-deps --all-features
tr ',' '\n' <<<"$published"
