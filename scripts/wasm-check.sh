#!/usr/bin/env bash
# The core (roundtrip-core, with roundtrip-wire) builds for wasm32-unknown-unknown, the target
# of Cloudflare Workers: nothing in it needs threads, sockets, files or processes. rustup here
# has no wasm32 std, so this builds with Debian's rustc-web (Rust 1.96, installed with its std
# sources by scripts/setup-tools.sh) and `-Z build-std` (RUSTC_BOOTSTRAP=1 on that stable
# compiler), in target/wasm32. About 80 s cold on 2 cores.
#
#     scripts/wasm-check.sh
set -euo pipefail
cd "$(dirname "$0")/.."
for f in /usr/bin/cargo /usr/bin/rustc /usr/lib/rustlib/src/rust/library/std; do
  if [ ! -e "$f" ]; then
    echo "wasm-check: $f is missing: scripts/setup-tools.sh installs Debian's rustc-web, cargo-web and rust-web-src" >&2
    exit 1
  fi
done
# Debian's cargo and rustc first (rustup's would be found otherwise), for this build only.
BIN="$PWD/target/wasm32-toolchain"
mkdir -p "$BIN"
for tool in cargo rustc rustdoc; do ln -sf "/usr/bin/$tool" "$BIN/$tool"; done
echo "wasm-check: $("$BIN/rustc" --version), building roundtrip-core for wasm32-unknown-unknown"
env PATH="$BIN:$PATH" RUSTC_BOOTSTRAP=1 CARGO_TARGET_DIR="$PWD/target/wasm32" \
  cargo build --quiet -p roundtrip-core --target wasm32-unknown-unknown -Z build-std=std,panic_abort
echo "wasm-check: roundtrip-core builds for wasm32-unknown-unknown"
