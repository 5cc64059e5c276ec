#!/usr/bin/env bash
# Build the provision example as a Cloudflare Worker (examples/worker) with worker-build, into
# examples/worker/build (what `wrangler dev` and `wrangler deploy` serve), and print the size of
# its wasm. The toolchain is Debian's rustc-web with its std sources (rustup has no wasm32 std
# here, so std is built from Debian's sources with -Z build-std), worker-build and
# wasm-bindgen-cli from crates.io (scripts/cargo-tools.sh) and binaryen's wasm-opt and esbuild
# from npm (all installed by scripts/setup-tools.sh: worker-build would otherwise fetch them
# from GitHub). About 3 minutes cold on 2 cores.
#
#     scripts/worker.sh          # release (opt-level s, wasm-opt): what is deployed and measured
#     scripts/worker.sh --dev    # the dev profile, without wasm-opt
#     scripts/worker.sh --dev --features conformance   # what the tests serve: the conformance
#                                # example at /conformance/mcp too (cargo's arguments follow)
set -euo pipefail
PROFILE=--release
if [ "${1:-}" = --dev ]; then
  PROFILE=--dev
  shift
fi
cd "$(dirname "$0")/.."
ROOT="$PWD"
NPM_BIN="$ROOT/.tools/workers/node_modules/.bin"
for f in /usr/bin/cargo /usr/bin/rustc "$NPM_BIN/wasm-opt" "$NPM_BIN/esbuild"; do
  if [ ! -e "$f" ]; then
    echo "worker: $f is missing: run scripts/setup-tools.sh" >&2
    exit 1
  fi
done
for tool in worker-build wasm-bindgen; do
  command -v "$tool" >/dev/null || { echo "worker: $tool is missing: run scripts/cargo-tools.sh" >&2; exit 1; }
done
# Debian's cargo and rustc first. worker-build asks rustc where the wasm32 target's libraries
# are to tell whether it is installed; with -Z build-std there are none to install, so the
# wrapper answers with an empty folder and passes everything else to Debian's rustc.
BIN="$ROOT/target/worker-toolchain"
mkdir -p "$BIN" "$ROOT/target/worker-toolchain-libdir"
ln -sf /usr/bin/cargo "$BIN/cargo"
ln -sf /usr/bin/rustdoc "$BIN/rustdoc"
cat > "$BIN/rustc" <<WRAPPER
#!/bin/sh
case " \$* " in
  *" --print target-libdir"*) echo "$ROOT/target/worker-toolchain-libdir"; exit 0;;
esac
exec /usr/bin/rustc "\$@"
WRAPPER
chmod +x "$BIN/rustc"
cd examples/worker
start=$(date +%s)
env PATH="$BIN:$PATH" RUSTC_BOOTSTRAP=1 CARGO_UNSTABLE_BUILD_STD=std,panic_abort \
  CARGO_TARGET_DIR="$ROOT/target/worker" \
  WASM_BINDGEN_BIN="$(command -v wasm-bindgen)" WASM_OPT_BIN="$NPM_BIN/wasm-opt" ESBUILD_BIN="$NPM_BIN/esbuild" \
  worker-build "$PROFILE" "$@"
wasm=build/index_bg.wasm
echo "worker: built ($PROFILE) in $(($(date +%s) - start)) s; $wasm is $(stat -c %s "$wasm") bytes ($(gzip -9c "$wasm" | wc -c) gzipped)"
