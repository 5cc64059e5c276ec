#!/usr/bin/env bash
# Install the cargo tools the tests use, pinned, from crates.io: scripts/cargo-tools.sh [TOOL...]
# (default: all of them). A tool already installed at its pinned version is left alone, so a
# second run only checks.
#
#   cargo-expand         the macro expansion snapshots (macrotest)
#   cargo-deny           the dependency policy of deny.toml (CARGO_DENY_VERSION)
#   cargo-semver-checks  the public API against the baseline in api/ (CARGO_SEMVER_CHECKS_VERSION)
#   cargo-fuzz           builds and runs the fuzz targets, scripts/fuzz.sh (CARGO_FUZZ_VERSION)
#   worker-build         builds examples/worker, scripts/worker.sh (WORKER_BUILD_VERSION)
#   wasm-bindgen-cli     the CLI of the wasm-bindgen examples/worker's lockfile pins
#                        (WASM_BINDGEN_VERSION)
#
# Each builds with its release profile overridden to no link-time optimisation and 16 codegen
# units: cargo-deny's and cargo-semver-checks' ask for fat LTO in one codegen unit, which makes
# a cold install slower (measured here: cargo-deny 195 s against about 420 s,
# cargo-semver-checks 409 s against about 480 s) for tools that run for seconds in a test run.
set -euo pipefail

CARGO_DENY_VERSION="${CARGO_DENY_VERSION:-0.20.2}"
CARGO_SEMVER_CHECKS_VERSION="${CARGO_SEMVER_CHECKS_VERSION:-0.51.0}"
CARGO_FUZZ_VERSION="${CARGO_FUZZ_VERSION:-0.13.2}"
WORKER_BUILD_VERSION="${WORKER_BUILD_VERSION:-0.8.7}"
WASM_BINDGEN_VERSION="${WASM_BINDGEN_VERSION:-0.2.130}"

cargo_install() {
  CARGO_PROFILE_RELEASE_LTO=off CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 cargo install --quiet "$@"
}

install() {
  case "$1" in
    cargo-expand)
      # It runs on stable; any recent version writes the snapshots the same way.
      if ! cargo expand --version >/dev/null 2>&1; then
        echo "cargo-tools: installing cargo-expand (about two minutes)"
        cargo_install --locked cargo-expand
      fi ;;
    cargo-deny)
      # Pinned: its configuration format moves between releases. 0.20.2 needs Rust 1.88.
      if [ "$(cargo deny --version 2>/dev/null)" != "cargo-deny $CARGO_DENY_VERSION" ]; then
        echo "cargo-tools: installing cargo-deny $CARGO_DENY_VERSION (about three minutes)"
        cargo_install --locked --version "$CARGO_DENY_VERSION" cargo-deny
      fi ;;
    cargo-semver-checks)
      # Pinned: its lints and the rustdoc JSON formats it reads move between releases. 0.51
      # needs Rust 1.93.
      if [ "$(cargo semver-checks --version 2>/dev/null)" != "cargo-semver-checks $CARGO_SEMVER_CHECKS_VERSION" ]; then
        echo "cargo-tools: installing cargo-semver-checks $CARGO_SEMVER_CHECKS_VERSION (about seven minutes)"
        cargo_install --locked --version "$CARGO_SEMVER_CHECKS_VERSION" cargo-semver-checks
      fi ;;
    cargo-fuzz)
      # The targets build with `-s none` (no sanitizer), which needs no nightly.
      if [ "$(cargo fuzz --version 2>/dev/null)" != "cargo-fuzz $CARGO_FUZZ_VERSION" ]; then
        echo "cargo-tools: installing cargo-fuzz $CARGO_FUZZ_VERSION (about a minute)"
        cargo_install --locked --version "$CARGO_FUZZ_VERSION" cargo-fuzz
      fi ;;
    worker-build)
      if [ "$(worker-build --version 2>/dev/null)" != "$WORKER_BUILD_VERSION" ]; then
        echo "cargo-tools: installing worker-build $WORKER_BUILD_VERSION (about two minutes)"
        cargo_install --locked --version "$WORKER_BUILD_VERSION" worker-build
      fi ;;
    wasm-bindgen-cli)
      # Not --locked: a dependency its lockfile names is not on crates.io.
      if [ "$(wasm-bindgen --version 2>/dev/null)" != "wasm-bindgen $WASM_BINDGEN_VERSION" ]; then
        echo "cargo-tools: installing wasm-bindgen-cli $WASM_BINDGEN_VERSION (about three minutes)"
        cargo_install --version "$WASM_BINDGEN_VERSION" wasm-bindgen-cli
      fi ;;
    *)
      echo "cargo-tools: no tool named $1" >&2
      exit 2 ;;
  esac
}

if [ "$#" -eq 0 ]; then
  set -- cargo-expand cargo-deny cargo-semver-checks cargo-fuzz worker-build wasm-bindgen-cli
fi
for tool in "$@"; do
  install "$tool"
done
echo "cargo-tools: $* ready"
