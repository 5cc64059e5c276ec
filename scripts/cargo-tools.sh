#!/usr/bin/env bash
# Install the cargo tools the tests use, pinned, from crates.io: scripts/cargo-tools.sh [TOOL...]
# (default: all of them). A tool already installed at its pinned version is left alone, so a
# second run only checks.
#
#   cargo-expand         the macro expansion snapshots, macrotest (CARGO_EXPAND_VERSION)
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
# A lower opt-level buys nothing more (cargo-semver-checks at opt-level 1: 403 s).
set -euo pipefail

CARGO_EXPAND_VERSION="${CARGO_EXPAND_VERSION:-1.0.127}"
CARGO_DENY_VERSION="${CARGO_DENY_VERSION:-0.20.2}"
CARGO_SEMVER_CHECKS_VERSION="${CARGO_SEMVER_CHECKS_VERSION:-0.51.0}"
CARGO_FUZZ_VERSION="${CARGO_FUZZ_VERSION:-0.13.2}"
WORKER_BUILD_VERSION="${WORKER_BUILD_VERSION:-0.8.7}"
WASM_BINDGEN_VERSION="${WASM_BINDGEN_VERSION:-0.2.130}"

# pinned CRATE VERSION HAVE WANT TIME [--locked]: cargo install CRATE@VERSION unless HAVE (what
# the installed tool's --version prints, empty when it is missing) is WANT.
pinned() {
  local crate="$1" version="$2" have="$3" want="$4" time="$5"
  shift 5
  if [ "$have" != "$want" ]; then
    echo "cargo-tools: installing $crate $version (about $time)"
    CARGO_PROFILE_RELEASE_LTO=off CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 \
      cargo install --quiet "$@" --version "$version" "$crate"
  fi
}

install() {
  case "$1" in
    cargo-expand)
      pinned cargo-expand "$CARGO_EXPAND_VERSION" "$(cargo expand --version 2>/dev/null)" \
        "cargo-expand $CARGO_EXPAND_VERSION" "two minutes" --locked ;;
    cargo-deny)
      # Its configuration format moves between releases. 0.20.2 needs Rust 1.88.
      pinned cargo-deny "$CARGO_DENY_VERSION" "$(cargo deny --version 2>/dev/null)" \
        "cargo-deny $CARGO_DENY_VERSION" "three minutes" --locked ;;
    cargo-semver-checks)
      # Its lints and the rustdoc JSON formats it reads move between releases. 0.51 needs
      # Rust 1.93.
      pinned cargo-semver-checks "$CARGO_SEMVER_CHECKS_VERSION" "$(cargo semver-checks --version 2>/dev/null)" \
        "cargo-semver-checks $CARGO_SEMVER_CHECKS_VERSION" "seven minutes" --locked ;;
    cargo-fuzz)
      # The targets build with `-s none` (no sanitizer), which needs no nightly.
      pinned cargo-fuzz "$CARGO_FUZZ_VERSION" "$(cargo fuzz --version 2>/dev/null)" \
        "cargo-fuzz $CARGO_FUZZ_VERSION" "a minute" --locked ;;
    worker-build)
      pinned worker-build "$WORKER_BUILD_VERSION" "$(worker-build --version 2>/dev/null)" \
        "$WORKER_BUILD_VERSION" "two minutes" --locked ;;
    wasm-bindgen-cli)
      # Not --locked: a dependency its lockfile names is not on crates.io.
      pinned wasm-bindgen-cli "$WASM_BINDGEN_VERSION" "$(wasm-bindgen --version 2>/dev/null)" \
        "wasm-bindgen $WASM_BINDGEN_VERSION" "three minutes" ;;
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
