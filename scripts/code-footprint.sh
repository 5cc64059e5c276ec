#!/usr/bin/env bash
# The code a served `provision` flow runs (issue 40's speed goal): a server under callgrind
# with `--dump-instr=yes`, 400 flow requests of `peers-load` over 4 connections as warm-up, the
# counters zeroed, 400 counted; prints the distinct 64-byte lines and 4 KiB pages of code
# executed, in all and by crate (a function's crate: the first path segment of its name, so a
# generic future's poll counts under `core`), with the instructions per request.
#
# Most first-level instruction-cache misses of a leg are of code it runs once per request, so
# this is the working set a request brings through the cache, and what a leaner request path
# has to shrink (BENCHMARKS.md, "Issue 40, stop 59").
#
#   scripts/code-footprint.sh                       # roundtrip's `provision --http`
#   scripts/code-footprint.sh bench/peers/target/release/essential-floor ADDR --state-bytes 161
#
# The arguments after the binary are the server's, with ADDR where its listen address goes
# (default: `--http ADDR`). The run is scripts/callgrind-flow.sh's, which builds nothing: run
# `scripts/bench-peers.sh --seconds 2 --rounds 1` once first. Environment: PORT (default 18298),
# REQUESTS (default 400), CRATES (rows of the by-crate table, default 15). Needs valgrind.
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${1:-target/release/provision}"
shift || true
args="${*:---http ADDR}"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
# The run itself is callgrind-flow.sh's, recording costs per instruction.
BIN="$bin" SERVER_ARGS="$args" PORT="${PORT:-18298}" REQUESTS="${REQUESTS:-400}" DUMP_INSTR=1 \
  KEEP="$out/callgrind.out.1" scripts/callgrind-flow.sh > "$out/flow.log"
tail -n 1 "$out/flow.log"

python3 - "$out/callgrind.out.1" "${CRATES:-15}" <<'EOF'
import collections, re, sys

path, rows = sys.argv[1], int(sys.argv[2])
names, lines = {}, collections.defaultdict(set)
positions, address, function, after_call = None, 0, "", False
name_re = re.compile(r"^c?fn=\((\d+)\)(?: (.*))?")
for text in open(path, errors="replace"):
    if text.startswith("positions:"):
        positions = len(text.split()) - 1
        continue
    m = name_re.match(text)
    if m:
        if m.group(2):
            names[m.group(1)] = m.group(2)
        if text.startswith("fn="):
            function = names.get(m.group(1), "")
        continue
    if text.startswith("calls="):
        after_call = True
        continue
    if positions and text[:1] in "0123456789+-*":
        fields = text.split()
        at = fields[0]
        if at.startswith("+"):
            address += int(at[1:], 0)
        elif at.startswith("-"):
            address -= int(at[1:], 0)
        elif at != "*":
            address = int(at, 0)
        if after_call:  # a call's inclusive cost, at its call site: not run here
            after_call = False
            continue
        lines[function].add(address >> 6)

def crate(name):
    m = re.match(r"^<+(?:&mut |&|dyn )?(\w+)", name) if name.startswith("<") else re.match(r"^(\w+)::", name)
    return m.group(1) if m else name.split(":")[0] or "?"

def pages(of_lines):  # 64 lines of 64 bytes to a 4 KiB page
    return len({line >> 6 for line in of_lines})

by_crate = collections.defaultdict(set)
for function, function_lines in lines.items():
    by_crate[crate(function)] |= function_lines
run = set().union(*lines.values())
print(f"code run: {len(run)} distinct 64-byte lines ({len(run) * 64 // 1024} KiB) on {pages(run)} 4 KiB pages")
print(f"{'lines':>7} {'pages':>6}  crate")
for name, crate_lines in sorted(by_crate.items(), key=lambda kv: -len(kv[1]))[:rows]:
    print(f"{len(crate_lines):>7} {pages(crate_lines):>6}  {name}")
EOF
