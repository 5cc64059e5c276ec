#!/usr/bin/env bash
# The one test command: installs what it needs (scripts/setup-tools.sh), then runs
#   1. rustc is at least the declared rust-version, cargo fmt --check, cargo clippy
#      -D warnings, cargo deny (licenses, duplicate majors, sources; not advisories: see
#      deny.toml), cargo package of every published crate (each package builds alone), the
#      public API (at most 130 items; cargo-semver-checks against the baseline in api/),
#      cargo test --workspace (unit, integration, trybuild, doctests, the resolver engine
#      checked exhaustively against its model at a small bound, the fleet under deterministic
#      simulation for 500 seeds (replicas, store, replay cache, client retry rule, key rotation
#      and leases under seeded faults: crashes, store errors and outages, drops, duplicates,
#      delays, skew; scripts/simulate.sh runs 20 000); the crate's tests build it with auth,
#      playground, redis and otel, so the task store tests run against a real redis-server,
#      also over TLS, and the telemetry tests run; also the Rust client against an mcp 2.3.0
#      Python server from .venv), every cargo-fuzz target for 15 s (scripts/fuzz.sh; the
#      targets build in the background during 2 and 3 and run before 4), and the
#      connection limits against a real server (scripts/half-open.sh: 1000 half-open heads,
#      10 000 connections and 100 beyond)
#   2. the Python interop tests (official MCP Python SDK client against the example server;
#      `ask` driven through a pseudo-terminal against the provision example, and `ask --url
#      https://…` through nginx terminating TLS with a CA made in the test), and the
#      playground's browser tests (Debian's chromium, headless, driven by Playwright; also the
#      playground as an MCP Apps host, and the provision example's view under the official
#      AppBridge of @modelcontextprotocol/ext-apps, which setup-tools.sh bundles), and the
#      official MCP Inspector as a client: its CLI over HTTP and stdio in both protocol eras
#      (the calls it can complete without answering a question), its web UI in chromium
#      answering the provision example's question in both eras over HTTP and stdio
#   3. the official MCP conformance suite: server mode (scripts/conformance.sh, also through
#      roundtrip-gateway: SERVE=gateway) and client
#      mode (scripts/conformance-client.sh), every scenario it has (extensions with --force; a
#      skipped scenario fails)
#   4. a short fleet run (scripts/fleet.sh --short): three replicas behind nginx with Redis,
#      one SIGKILL, a full key rotation, a Redis restart and a 10 s Redis pause under load: no
#      flow lost, no idempotent flow failed, every phase carried its floor of flows
#   5. the examples as AWS Lambda functions under cargo-lambda's emulator (function URL
#      events) and as a Cloudflare Worker under `wrangler dev` (workerd; built for
#      wasm32-unknown-unknown by scripts/worker.sh with Debian's rustc-web): the Python SDK and
#      TypeScript clients complete provision (two legs) and wizard (three) on each, a leg
#      sealed by one host is taken by another when the keys match and refused otherwise, no
#      stream is held, a task the function starts lives in Redis over TLS where a process
#      takes it up (tests/serverless); and the conformance suite's 2026-07-28 set against
#      the conformance example as a function and as a Worker (SERVE=lambda and SERVE=worker
#      scripts/conformance.sh; on the Worker the unscored tasks-* scenarios do not apply)
# and stops at the first section that fails.
set -euo pipefail
cd "$(dirname "$0")/.."

# A run on a fresh clone builds everything once: incremental compilation would only write
# gigabytes of session data (target/*/incremental) that nothing reads again. And each step
# with a target directory of its own (feature checks, rustdoc JSON, wasm32, trybuild, the
# fuzz targets) removes it when it is done (KEEP_TARGETS=1 keeps them, for quicker local
# reruns), so the run's peak disk stays low: a CI machine has run out of it. `disk` prints
# what the run holds at each section.
export CARGO_INCREMENTAL=0
done_with() {
  [ -n "${KEEP_TARGETS:-}" ] || rm -rf "$@"
}
disk() {
  echo "disk: target $(du -sh target 2>/dev/null | cut -f1), free $(df -h --output=avail . | tail -1 | tr -d ' ')"
}

# Each section's heading says how long the run has taken so far, and the one before it took:
# CI prints only the log, and its time budget is the run's.
section_started=$SECONDS
section() {
  printf '\n==================== %s ====================\n' "$1"
  echo "time: ${SECONDS} s into the run, $((SECONDS - section_started)) s in the section before"
  section_started=$SECONDS
  disk
}

# Work that is not needed at once runs in the background at the lowest priority, on what the
# sections in front leave of the cores (builds wait on single crates and links, tests on
# servers): `background NAME COMMAND...` starts it, its output in target/NAME.log; `joined NAME
# WHAT` waits for it where it is needed, prints its output, and fails the run (saying WHAT
# failed) if it failed. A run that stops early stops them.
declare -A background_pid=()
background() {
  local name="$1"; shift
  mkdir -p target
  # A session of its own is an autogroup of its own where the kernel has them, and the
  # scheduler shares the CPU between autogroups as equals whatever their processes' nice
  # values: the job's autogroup is made nice 19 too, from inside it.
  # shellcheck disable=SC2016 # expanded by the job's shell
  setsid sh -c 'echo 19 > /proc/self/autogroup 2>/dev/null; exec nice -n 19 "$@"' job "$@" \
    > "target/$name.log" 2>&1 &
  background_pid[$name]=$!
}
joined() {
  local name="$1" status=0
  wait "${background_pid[$name]}" || status=$?
  unset "background_pid[$name]"
  cat "target/$name.log"
  if [ "$status" != 0 ]; then
    echo "FAILED: $2" >&2; exit 1
  fi
}
stop_background() {
  for pid in "${background_pid[@]}"; do
    kill -- -"$pid" 2>/dev/null || true
  done
}
trap stop_background EXIT

section "setup: Node 22, conformance suite, MCP Inspector, Python venv"
# Of the cargo tools, setup installs cargo-expand (cargo test's expansion snapshots); cargo-deny
# and cargo-semver-checks (about ten minutes of a cold machine's two cores) build in the
# background through the static checks and cargo package, and cargo-fuzz and the Worker's build
# tools after cargo test (below). Exported, so that the scripts which run setup-tools.sh
# themselves (the conformance suite's) ask for the same one.
export SETUP_CARGO_TOOLS="cargo-expand"
scripts/setup-tools.sh
background cargo-tools scripts/cargo-tools.sh cargo-deny cargo-semver-checks

section "rust-version, cargo fmt --check, the layers import one way, clippy, doc"
# rust-version (Cargo.toml) claims what this run verifies: the toolchain it runs. A rustc older
# than the claim fails here (cargo would refuse the build anyway, less plainly).
rust_version="$(sed -n 's/^rust-version = "\(.*\)"/\1/p' Cargo.toml)"
rustc_version="$(rustc --version | cut -d' ' -f2)"
if [ "$(printf '%s\n%s\n' "$rust_version" "${rustc_version%%-*}" | sort -V | head -n1)" != "$rust_version" ]; then
  echo "FAILED: rustc $rustc_version is older than the declared rust-version $rust_version" >&2; exit 1
fi
echo "rustc $rustc_version, rust-version $rust_version"
cargo fmt --all -- --check
# The runtime's modules import only modules below them, and form no ring (scripts/layers.py).
layers="$(python3 scripts/layers.py)" || { echo "$layers"; echo "FAILED: the layers do not import one way" >&2; exit 1; }
cargo clippy --workspace --all-targets -- -D warnings
cargo clippy -p roundtrip --all-targets --features redis -- -D warnings
# The API docs and the user guide: every intra-doc link resolves.
RUSTDOCFLAGS="-D warnings" cargo doc --quiet --workspace --exclude roundtrip-examples --exclude roundtrip-ui-tests --exclude roundtrip-only-dependency --no-deps --all-features

section "cargo package: every published crate, each package built alone"
# Every published crate packages, and its package builds alone: cargo builds each package
# against the others' packages through a temporary local registry (no file outside the
# crate, nothing only the workspace provides). The crates marked publish = false (examples,
# UI tests) are not packages anyone downloads, and --workspace would package and build them
# too: they are excluded.
cargo package --quiet --allow-dirty --workspace \
  --exclude roundtrip-examples --exclude roundtrip-ui-tests --exclude roundtrip-only-dependency

section "the dependency policy (cargo deny) and the public API (the item count, cargo-semver-checks against api/)"
joined cargo-tools "cargo-deny or cargo-semver-checks did not install"
# The dependency policy (deny.toml): licenses, duplicate major versions, crates.io only. Not
# advisories: their database is fetched from GitHub, which this machine and CI do not reach.
cargo deny check bans licenses sources
# The public API: at most 130 items outside the wire types and the guide (issue 40), and
# nothing that breaks a program written against the baseline in api/ (cargo-semver-checks on
# rustdoc's JSON; scripts/semver-baseline.sh re-records it after a deliberate break).
# The JSON is one `cargo doc` of the workspace with the packages and features of the `cargo
# doc` above, whose dependencies it finds built: 19 s in a cold run, where a build of each
# crate's own in a target directory apart took 421 s.
# (Assigned first: a failure inside `for … in $(…)` would not stop the run.)
crates="$(scripts/api-json.sh)"
baseline="$(mktemp -d)"
for crate in $crates; do
  file="${crate//-/_}"
  if [ ! -f "api/$file.json.gz" ]; then
    echo "FAILED: $crate has no API baseline: run scripts/semver-baseline.sh" >&2; exit 1
  fi
  gunzip -c "api/$file.json.gz" > "$baseline/$file.json"
  cargo semver-checks check-release --release-type patch \
    --baseline-rustdoc "$baseline/$file.json" --current-rustdoc "target/doc/$file.json"
done
rm -rf "$baseline"
# Issue 40's bound. Issue 43 added `server::Interceptor` and `server::Call` (133); the RFC 9728
# document the resource server and the client each had became one wire type, and the bound
# of checks' errors (`IntoError`) went under the hidden plumbing with the traits it serves.
python3 scripts/public-api.py --max 130
done_with target/package

section "feature sets of the roundtrip crate build (cargo check; warnings are errors)"
# In the run's own target directory, where the checks above built most dependencies already
# (RUSTFLAGS="-D warnings" would have built every one again, apart: measured in one clone,
# 427 s then, 291 s now). A warning fails the check by cargo's summary of it ("`roundtrip-core` (lib)
# generated 1 warning"), which it repeats when the crate is not checked again.
check_features() {
  local out
  echo "cargo check -p roundtrip $*"
  out="$(cargo check -p roundtrip "$@" 2>&1)" || { echo "$out"; echo "FAILED: roundtrip does not build with $*" >&2; exit 1; }
  if grep -Eq '^warning: .* generated [0-9]+ warnings?' <<<"$out"; then
    echo "$out"; echo "FAILED: roundtrip builds with warnings with $*" >&2; exit 1
  fi
}
for features in "server,stdio" "server,http" "server" "client" "client,stdio" "client,http" "client,server" \
  "server,http,playground" "auth" "redis" "otel" "cli" "cli,otel" "client,otel" "skills" "client,skills" \
  "server,skills,include_dir" "oauth-jwt" "lambda" ""; do
  check_features --no-default-features --features "$features"
done
check_features --all-features
# Pay for what you use: a client builds none of the server's sealing, tasks or axum, and a
# stdio server none of axum, hyper or reqwest, and no TLS (rustls comes with reqwest and redis).
# tree_lacks WHAT CARGO_TREE_ARGS... -- DEP...: fails when that normal dependency tree holds a DEP.
tree_lacks() {
  local what="$1"; shift
  local args=()
  while [[ "$1" != "--" ]]; do args+=("$1"); shift; done
  shift
  local tree; tree="$(cargo tree "${args[@]}" -e normal --prefix none)"
  for dep in "$@"; do
    if grep -q "^$dep v" <<<"$tree"; then
      echo "FAILED: $what depends on $dep" >&2; exit 1
    fi
  done
}
no_deps() {
  local features="$1"; shift
  tree_lacks "roundtrip with features \"$features\"" -p roundtrip --no-default-features --features "$features" -- "$@"
}
no_deps "client,stdio" aes-gcm hkdf humantime axum
no_deps "server,stdio" axum hyper tower reqwest rustls ring tokio-rustls redis opentelemetry tracing-subscriber
# The layers' dependencies: the wire types build on serde alone, and the core needs no
# transport, network, process or particular runtime (of tokio: channels, timers, spawning).
tree_lacks roundtrip-wire -p roundtrip-wire --all-features -- tokio futures axum hyper reqwest
tree_lacks roundtrip-core -p roundtrip-core --all-features -- axum hyper hyper-util tower reqwest redis tonic rustls mio socket2
# Above the core, each crate builds only what its layer needs: the shared TLS set-up no client
# or redis unless asked; the stores and the resource server no server transport or telemetry;
# the transports without a feature only the table of requests in flight, a stdio server no HTTP
# and no TLS, an HTTP server no HTTP client; telemetry no server transport; the client over stdio
# no core or TLS, over HTTP no core or server transport; the runner none of the optional layers.
tree_lacks "roundtrip-tls with no feature" -p roundtrip-tls --no-default-features -- reqwest redis rustls-native-certs tokio
tree_lacks roundtrip-redis -p roundtrip-redis --all-features -- axum hyper reqwest roundtrip-transport opentelemetry
tree_lacks roundtrip-auth -p roundtrip-auth --all-features -- redis tonic opentelemetry roundtrip-transport
tree_lacks "roundtrip-transport with no feature" -p roundtrip-transport --no-default-features -- \
  roundtrip-core axum hyper reqwest redis rustls
tree_lacks "roundtrip-transport with server,stdio" -p roundtrip-transport --no-default-features --features server,stdio -- \
  axum hyper tower reqwest rustls redis opentelemetry
tree_lacks "roundtrip-transport with server,http,playground" -p roundtrip-transport --no-default-features \
  --features server,http,playground -- reqwest rustls redis opentelemetry jsonwebtoken
tree_lacks roundtrip-otel -p roundtrip-otel --all-features -- axum redis roundtrip-transport jsonwebtoken
tree_lacks "roundtrip-client with stdio" -p roundtrip-client --no-default-features --features stdio -- \
  roundtrip-core axum hyper reqwest rustls aes-gcm
tree_lacks "roundtrip-client with http" -p roundtrip-client --no-default-features --features http -- \
  roundtrip-core roundtrip-transport axum aes-gcm
tree_lacks "roundtrip-cli with no feature" -p roundtrip-cli --no-default-features -- \
  redis opentelemetry jsonwebtoken reqwest rustls roundtrip-client
core_tokio="$(cargo tree -p roundtrip-core --all-features -e normal,features -i tokio --prefix none \
  | sed -n 's/^tokio feature "\([^"]*\)".*/\1/p' | sort -u)"
for feature in net process rt-multi-thread fs io-std signal; do
  if grep -qx "$feature" <<<"$core_tokio"; then
    echo "FAILED: roundtrip-core builds tokio with feature $feature" >&2; exit 1
  fi
done
# TLS is rustls with ring: nothing may pull aws-lc-rs (cmake and a C build) or OpenSSL.
for features in "client,http" "auth" "redis" "otel" "lambda"; do
  no_deps "$features" aws-lc-rs aws-lc-sys openssl openssl-sys native-tls
done

section "cargo test --workspace"
cargo test --workspace
# trybuild's and macrotest's own builds (target/tests) serve nothing after this.
done_with target/tests

# cargo-fuzz and the Worker's build tools install and the fuzz targets build now, in the
# background at the lowest priority, while the sections below mostly wait on servers and
# clients (their own builds come first): together about fifteen minutes of both cores, cold.
# The targets run before the fleet and serverless sections, which measure load and build for
# wasm32. The output is printed with the fuzzing section; a run stopped early stops this too.
background fuzz-build bash -c 'scripts/cargo-tools.sh worker-build wasm-bindgen-cli && scripts/fuzz.sh --build'

section "connection limits against a real server: half-open heads, max_connections (scripts/half-open.sh)"
HALF_OPEN=1000 scripts/half-open.sh

section "interop: Python SDK client and the ask client (pytest tests/interop)"
# With the gateway, in one build: its interop test's fixture and SERVE=gateway
# scripts/conformance.sh build these packages together too, so cargo resolves the same
# features and they find everything built (a cold build in the fixture would spend the
# test's time limit).
cargo build --quiet -p roundtrip-examples --bin conformance --bin ask --bin provision -p roundtrip-gateway
.venv/bin/python -m pytest tests/interop

section "browser: the playground in headless chromium (pytest tests/browser)"
cargo build --quiet -p roundtrip-examples --bin provision --bin ops --bin conformance
.venv/bin/python -m pytest tests/browser

section "inspector: the MCP Inspector 2.12.0, CLI and web UI (pytest tests/inspector)"
cargo build --quiet -p roundtrip-examples --bin provision
.venv/bin/python -m pytest tests/inspector

section "conformance suite: server"
scripts/conformance.sh
# The same suite against roundtrip-gateway fronting the example over stdio (issue 44).
SERVE=gateway scripts/conformance.sh

section "conformance suite: client (every 2026-07-28 scenario, scored or not, extensions, 2025-03-26 back-compat)"
scripts/conformance-client.sh

section "fuzzing: every target for a bounded time (built in the background since cargo test)"
joined fuzz-build "cargo-fuzz, worker-build or wasm-bindgen-cli did not install, or the fuzz targets do not build"
scripts/fuzz.sh 15
done_with fuzz/target

section "fleet: three replicas behind nginx, SIGKILL, key rotation, Redis restart and pause under load (short run)"
scripts/fleet.sh --short

section "serverless: the examples as AWS Lambda functions (cargo-lambda's emulator) and a Cloudflare Worker (wrangler dev) (pytest tests/serverless, conformance)"
# The Worker: the core, roundtrip with `server` and roundtrip-workers built for
# wasm32-unknown-unknown with Debian's rustc-web; the conformance example beside provision.
scripts/worker.sh --dev --features conformance
.venv/bin/python -m pytest tests/serverless
SERVE=lambda scripts/conformance.sh 2026-07-28
SERVE=worker scripts/conformance.sh 2026-07-28
done_with target/worker

section "all tests passed"
