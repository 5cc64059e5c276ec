#!/usr/bin/env bash
# The demo: build the `provision` example server and the `ask` terminal client, then walk
# you through a multi-round tool call. Needs only cargo.
#
#   scripts/demo.sh                                # the `wizard` tool: two questions, two rounds
#   scripts/demo.sh confirm_delete path=/tmp/x     # any tool of the provision server, with arguments
#   scripts/demo.sh ""                             # list the tools and choose one
set -euo pipefail
cd "$(dirname "$0")/.."

echo "demo: building the provision server and the ask client (cargo, debug profile)..."
cargo build --quiet -p roundtrip-examples --bin provision --bin ask
BIN="${CARGO_TARGET_DIR:-$PWD/target}/debug"

TOOL=("$@")
[ ${#TOOL[@]} -eq 0 ] && TOOL=(wizard)
[ "${TOOL[0]}" = "" ] && TOOL=()

cat <<'TEXT'

roundtrip demo: `ask` starts the provision server as a child over stdio and calls one of its
tools. The tool does not call back into the client: each time it needs something it *returns*
its questions (an InputRequiredResult with a sealed requestState), and `ask` shows them to you
as a form, then retries the call with your answers. `wizard` asks your name, then, in a second
round that already knows your name, your age.
Type an answer and press Enter; `:decline` or `:cancel` refuses a question, Ctrl-D cancels.

TEXT
echo "\$ ask ${TOOL[*]:-} -- target/debug/provision --stdio"
exec "$BIN/ask" "${TOOL[@]}" -- "$BIN/provision" --stdio
