#!/usr/bin/env bash
# Pay for what you use (issue 12 item 4): build time and binary size of roundtrip servers, and
# the build time of 100 #[tool] fns beside the same tools on rmcp 3.11's macros, in one run.
#
#   scripts/bench-build.sh [--rounds N] [--only servers|tools] [WORK_DIR]
#
# 1. Servers (bench/build/stdio-server, bench/build/http-server: the same two tools, one asking a
#    question, served over stdio or streamable HTTP, each depending on roundtrip with only the
#    cargo feature it needs). For each: `cargo tree -e normal` (the stdio server's graph must hold
#    no axum, hyper, reqwest or tower), then a clean `cargo build --release` of the whole
#    dependency graph in a fresh target dir (crates fetched beforehand, not timed), N rounds,
#    stdio and HTTP interleaved; the binary's size as built and after `strip`.
# 2. 100 tools, three generated crates (dev profile, dependencies built first and not timed):
#      roundtrip-mixed  the crate of scripts/build-time.sh: 40 plain, 40 one question, 20 two rounds
#      roundtrip-plain  100 plain #[tool] fns, each (name: String, count: u32)
#      rmcp             100 #[tool] methods in one #[tool_router] impl, each taking
#                       Parameters<TiArgs> with the same (name, count), rmcp =3.11.0
#    The crate alone is compiled (touch src/lib.rs, CARGO_INCREMENTAL=0), N rounds, interleaved;
#    after each build, `cargo check` of the crate the same way (front end only, no codegen).
# Wall time and CPU time (user+sys of cargo and everything it ran) are printed for every build;
# CPU time is the steadier figure on a shared machine. The load average is printed around each
# part. The tables at the end are Markdown (medians of the rounds).
#
# WORK_DIR (default $TMPDIR/roundtrip-bench-build) holds the generated crates and the target
# dirs; it must be outside the repository. The clean-build target dirs are deleted after each
# build; the tools target dirs are kept (about 1-2 GB) so a second run skips the dependencies.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"

rounds=2
only=all
work=""
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds="$2"; shift 2 ;;
    --only) only="$2"; shift 2 ;;
    -h|--help) sed -n '2,27p' "$0" | cut -c3-; exit 0 ;;
    -*) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
    *) work="$1"; shift ;;
  esac
done
work="${work:-${TMPDIR:-/tmp}/roundtrip-bench-build}"
case "$work" in "$repo"|"$repo"/*) echo "the work dir must be outside the repository" >&2; exit 1 ;; esac
mkdir -p "$work"
results="$work/results.txt"
: >"$results"

load() { cut -d' ' -f1-3 /proc/loadavg; }
# timed LABEL CMD...: runs CMD (output to $work/last.log), prints and records "LABEL wall cpu"
# (bash's `time`: real, and user+sys of CMD and all it ran).
timed() {
  local label="$1"; shift
  local status=0 wall user sys cpu
  { TIMEFORMAT='%R %U %S'; time "$@" >"$work/last.log" 2>&1; } 2>"$work/last.time" || status=$?
  if [ "$status" != 0 ]; then
    echo "FAILED: $label: $*" >&2; tail -30 "$work/last.log" >&2; exit 1
  fi
  read -r wall user sys <"$work/last.time"
  cpu="$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.1f", u + s }')"
  wall="$(awk -v w="$wall" 'BEGIN { printf "%.1f", w }')"
  echo "$label $wall $cpu" >>"$results"
  printf '  %-34s wall %7s s   cpu %7s s   (load %s)\n' "$label" "$wall" "$cpu" "$(load)"
}

echo "machine: $(nproc) cores, $(rustc --version), cargo $(cargo --version | cut -d' ' -f2), roundtrip $(git -C "$repo" rev-parse --short HEAD)"
echo "load average at start: $(load)"

# --- 1. servers ------------------------------------------------------------------------------
if [ "$only" != tools ]; then
  echo
  echo "== 1. stdio-only and HTTP servers (bench/build), release profile"
  for k in stdio http; do
    cp "$repo/Cargo.lock" "$repo/bench/build/$k-server/Cargo.lock"
    (cd "$repo/bench/build/$k-server" && cargo fetch -q)
  done
  echo "roundtrip dependency lines:"
  for k in stdio http; do
    printf '  %-5s %s\n' "$k" "$(grep -E '^roundtrip' "$repo/bench/build/$k-server/Cargo.toml")"
  done
  echo "cargo tree -e normal (crates in the graph; which of axum, hyper, hyper-util, reqwest, tower, tower-http, redis appear):"
  for k in stdio http; do
    tree="$(cd "$repo/bench/build/$k-server" && cargo tree -q -e normal --prefix none --no-dedupe | sed 's/ (\*)$//' | sort -u)"
    n="$(cut -d' ' -f1 <<<"$tree" | sort -u | wc -l)"
    heavy="$(cut -d' ' -f1-2 <<<"$tree" | grep -E '^(axum|hyper|hyper-util|reqwest|tower|tower-http|redis) ' | tr '\n' ' ' || true)"
    printf '  %-5s %3s crates; %s\n' "$k" "$n" "${heavy:-none of them}"
    echo "$k-crates $n" >>"$results"
    if [ "$k" = stdio ] && [ -n "$heavy" ]; then
      echo "FAILED: the stdio-only server's graph holds $heavy" >&2; exit 1
    fi
  done
  for r in $(seq 1 "$rounds"); do
    for k in stdio http; do
      t="$work/target-clean-$k"
      rm -rf "$t"
      (cd "$repo/bench/build/$k-server" && timed "clean-$k round $r" env CARGO_TARGET_DIR="$t" cargo build --release --locked)
      bin="$t/release/build-$k"
      strip -o "$work/build-$k.stripped" "$bin"
      echo "size-$k $(stat -c %s "$bin") $(stat -c %s "$work/build-$k.stripped")" >>"$results"
      printf '  %-34s %s bytes as built, %s stripped\n' "build-$k" "$(stat -c %s "$bin")" "$(stat -c %s "$work/build-$k.stripped")"
      rm -rf "$t"
    done
  done
  echo "load average after part 1: $(load)"
fi

# --- 2. 100 tools ----------------------------------------------------------------------------
gen_mixed() { # the generator of scripts/build-time.sh
  echo "//! 100 tools: 40 plain, 40 with one question, 20 with two rounds. Generated by scripts/bench-build.sh."
  echo "use roundtrip::prelude::*;"
  local names=()
  for i in $(seq 0 99); do
    names+=("t$i")
    if [ $((i % 5)) -lt 2 ]; then
      cat <<RS
/// Plain tool $i.
#[tool]
pub async fn t$i(
    /// A name.
    name: String,
    /// A count.
    count: u32,
) -> String {
    format!("tool $i: {name} x{count}")
}
RS
    elif [ $((i % 5)) -lt 4 ]; then
      cat <<RS
/// Tool $i: one question.
#[tool]
pub async fn t$i(
    /// A name.
    name: String,
    #[resolve(elicit = "Which region for {name}?")] region: String,
) -> String {
    format!("tool $i: {name} in {region}")
}
RS
    else
      cat <<RS
/// Tool $i: two rounds.
#[tool]
pub async fn t$i(
    #[resolve(elicit = "What is your name?")] name: String,
    #[resolve(elicit = "How old are you, {name}?")] age: u32,
) -> String {
    format!("tool $i: {name}, {age}")
}
RS
    fi
  done
  echo "/// The server."
  echo "pub fn server() -> Server {"
  echo "    Server::new(\"tools100\", \"0.0.0\").tools(tools![$(IFS=,; echo "${names[*]}")])"
  echo "}"
}
gen_plain() {
  echo "//! 100 plain tools, each (name: String, count: u32). Generated by scripts/bench-build.sh."
  echo "use roundtrip::prelude::*;"
  local names=()
  for i in $(seq 0 99); do
    names+=("t$i")
    cat <<RS
/// Plain tool $i.
#[tool]
pub async fn t$i(
    /// A name.
    name: String,
    /// A count.
    count: u32,
) -> String {
    format!("tool $i: {name} x{count}")
}
RS
  done
  echo "/// The server."
  echo "pub fn server() -> Server {"
  echo "    Server::new(\"tools100\", \"0.0.0\").tools(tools![$(IFS=,; echo "${names[*]}")])"
  echo "}"
}
gen_rmcp() {
  echo "//! 100 plain tools on rmcp 3.11's #[tool_router], each (name: String, count: u32). Generated by scripts/bench-build.sh."
  echo "use rmcp::handler::server::{router::tool::ToolRouter, wrapper::Parameters};"
  echo "use rmcp::{ServerHandler, tool, tool_handler, tool_router};"
  echo "use schemars::JsonSchema;"
  echo "use serde::Deserialize;"
  for i in $(seq 0 99); do
    cat <<RS
/// The arguments of tool $i.
#[derive(Deserialize, JsonSchema)]
pub struct T${i}Args {
    /// A name.
    pub name: String,
    /// A count.
    pub count: u32,
}
RS
  done
  cat <<'RS'
/// The server.
#[derive(Debug, Clone)]
pub struct Tools100 {
    tool_router: ToolRouter<Self>,
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Tools100 {}

#[tool_router(router = tool_router)]
impl Tools100 {
    /// The server.
    pub fn new() -> Self {
        Self { tool_router: Self::tool_router() }
    }
RS
  for i in $(seq 0 99); do
    cat <<RS

    /// Plain tool $i.
    #[tool]
    async fn t$i(&self, Parameters(T${i}Args { name, count }): Parameters<T${i}Args>) -> String {
        format!("tool $i: {name} x{count}")
    }
RS
  done
  echo "}"
}

# crate NAME LOCK DEPS GENERATOR
make_crate() {
  local name="$1" lock="$2" deps="$3" gen="$4" dir="$work/$1"
  mkdir -p "$dir/src"
  cp "$lock" "$dir/Cargo.lock"
  cat >"$dir/Cargo.toml" <<TOML
[package]
name = "$name"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
$deps
serde = { version = "1", features = ["derive"] }
schemars = "1.2"

[workspace]
TOML
  "$gen" >"$dir/src/lib.rs"
}

if [ "$only" != servers ]; then
  echo
  echo "== 2. 100 tools, the crate alone, dev profile (dependencies built first, not timed)"
  rt_dep="roundtrip = { path = \"$repo/runtime\" }"
  make_crate roundtrip-mixed "$repo/Cargo.lock" "$rt_dep" gen_mixed
  make_crate roundtrip-plain "$repo/Cargo.lock" "$rt_dep" gen_plain
  make_crate rmcp "$repo/bench/peers/Cargo.lock" 'rmcp = { version = "=3.11.0", features = ["server", "macros"] }' gen_rmcp
  declare -A target=([roundtrip-mixed]="$work/target-tools-roundtrip" [roundtrip-plain]="$work/target-tools-roundtrip" [rmcp]="$work/target-tools-rmcp")
  for c in roundtrip-mixed roundtrip-plain rmcp; do
    (cd "$work/$c" && CARGO_TARGET_DIR="${target[$c]}" cargo build -q 2>&1 | tail -20 && CARGO_TARGET_DIR="${target[$c]}" cargo check -q 2>&1 | tail -20) || { echo "building $c failed" >&2; exit 1; }
    printf '  %-16s %s lines of src/lib.rs\n' "$c" "$(wc -l <"$work/$c/src/lib.rs")"
  done
  echo "load average before the timings: $(load)"
  for r in $(seq 1 "$rounds"); do
    for c in roundtrip-mixed roundtrip-plain rmcp; do
      touch "$work/$c/src/lib.rs"
      (cd "$work/$c" && timed "tools-$c round $r" env CARGO_TARGET_DIR="${target[$c]}" CARGO_INCREMENTAL=0 cargo build)
      grep -q "Compiling $c " "$work/last.log" || { echo "cargo did not recompile $c" >&2; exit 1; }
      if grep "Compiling" "$work/last.log" | grep -qv "Compiling $c "; then
        echo "  NOTE: more than the crate was compiled:"; grep Compiling "$work/last.log"
      fi
      touch "$work/$c/src/lib.rs"
      (cd "$work/$c" && timed "check-$c round $r" env CARGO_TARGET_DIR="${target[$c]}" CARGO_INCREMENTAL=0 cargo check)
      grep -q "Checking $c " "$work/last.log" || { echo "cargo did not check $c again" >&2; exit 1; }
    done
  done
  echo "load average after part 2: $(load)"
fi

# --- tables -----------------------------------------------------------------------------------
echo
python3 - "$results" "$rounds" <<'PY'
import statistics, sys
from collections import defaultdict

path, rounds = sys.argv[1], int(sys.argv[2])
times, sizes, crates = defaultdict(list), {}, {}
for line in open(path):
    f = line.split()
    if f[0].startswith("size-"):
        sizes[f[0][5:]] = (int(f[1]), int(f[2]))
    elif f[0].endswith("-crates"):
        crates[f[0][:-7]] = f[1]
    else:
        times[f[0]].append((float(f[3]), float(f[4])))

def fmt(key):
    runs = times.get(key, [])
    if not runs:
        return "-", "-"
    walls = ", ".join(f"{w:.1f}" for w, _ in runs)
    cpus = ", ".join(f"{c:.1f}" for _, c in runs)
    return walls, cpus

def mib(n):
    return f"{n / 1048576:.2f} MiB"

if sizes:
    print("| server | crates in `cargo tree -e normal` | clean release build, wall s (each round) | CPU s, user+sys (each round) | binary as built | stripped |")
    print("| --- | --- | --- | --- | --- | --- |")
    for k, label in (("stdio", "stdio only"), ("http", "HTTP")):
        w, c = fmt(f"clean-{k}")
        s = sizes.get(k, (0, 0))
        print(f"| {label} | {crates.get(k, '-')} | {w} | {c} | {mib(s[0])} | {mib(s[1])} |")
    print()
if any(k.startswith("tools-") for k in times):
    print("| 100 tools | `cargo build` of the crate alone, dev: wall s (each round) | CPU s, user+sys | median wall | `cargo check` (no codegen): wall s | CPU s |")
    print("| --- | --- | --- | --- | --- | --- |")
    for c, label in (("roundtrip-mixed", "roundtrip `#[tool]`: 40 plain, 40 one question, 20 two rounds"),
                     ("roundtrip-plain", "roundtrip `#[tool]`: 100 plain (name, count)"),
                     ("rmcp", "rmcp 3.11 `#[tool_router]`/`#[tool]`: 100 plain (name, count)")):
        w, cpu = fmt(f"tools-{c}")
        runs = times.get(f"tools-{c}", [])
        med = f"{statistics.median(x for x, _ in runs):.1f}" if runs else "-"
        cw, ccpu = fmt(f"check-{c}")
        print(f"| {label} | {w} | {cpu} | {med} | {cw} | {ccpu} |")
PY
