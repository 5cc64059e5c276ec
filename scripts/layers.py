#!/usr/bin/env python3
"""Within each runtime crate, modules import one way: a test (scripts/test.sh runs it).

    scripts/layers.py            # per crate: the edges, the rings (strongly connected
                                 # modules), and every import that goes up the order, with file:line

The crates themselves are layered by the compiler: a crate cannot name one that depends on it.
roundtrip-wire < roundtrip-core < roundtrip-tls < roundtrip-redis, roundtrip-auth <
roundtrip-transport, roundtrip-otel < roundtrip-client, roundtrip-cli < roundtrip (the facade),
roundtrip-gateway (beside the facade, on client and cli),
each naming only crates to its left (scripts/test.sh checks some of it by dependency trees).
What the crate graph cannot say is the order of the modules inside one crate; that is what
this checks, for every runtime crate of more than one module (roundtrip-tls, -redis, -auth and
-otel have no module that names another through `crate::`). Reads `crate::<module>` paths in a crate's
src (in `use` lines, `use crate::{…}` groups and paths in code; comments are skipped) and maps
each file to its top-level module (`server/…` is `server`; `clock.rs` is `clock`). Every module
has a place in its crate's order, low to high; a module may import only modules below it (and the
few typed back-references listed in BACK_REFERENCES, each with its reason). Exit
status 1 when an import goes up, when modules form a ring, when a module is not in the order
(place a new one), or when a file outside lib.rs names an item through the crate root
(`crate::Server`): a root re-export would hide the edge.
"""
import collections
import pathlib
import re
import sys

RUNTIME = pathlib.Path(__file__).resolve().parent.parent / "runtime"

# Low to high, per crate.
CRATES = {
    # clock: where the time is read; observe: what every layer notes for telemetry (knows no
    # layer); seal: sealing states; request: what a handler sees of its request; error: a
    # handler's error; resolve: the resolver engine; task: the tasks extension; skills: SKILL.md
    # trees; server: the registry and dispatch; declare: what the macros' expansions call;
    # describe: the schema documentation.
    "core": ["clock", "observe", "seal", "error", "request", "resolve", "task", "skills", "server", "declare", "describe"],
    # pending: requests in flight on a connection; connection: the newline-delimited loop
    # (stdio, in memory); http: streamable HTTP.
    "transport": ["pending", "headers", "host", "reply", "connection", "exchange", "http"],
    # error: the client's error; callbacks: the handlers of server requests; wire: what a
    # transport is; params: header parameters; oauth: authorization; http, line: the
    # transports; connection: the session; flow, tasks, skills: the calls; builder: connecting.
    # (Modules that name the crate root's items, `super::Client`, are not seen.)
    "client": ["error", "callbacks", "wire", "params", "oauth", "http", "line", "connection", "flow", "tasks",
               "skills", "builder"],
    # limits: the limits by name; args: the command line; configure: the server as they say.
    "cli": ["limits", "args", "configure"],
    # error: the gateway's error; route: what arrives on a connection, to its leg; upstream:
    # reaching an upstream; pool: the connections legs
    # run on; hold: calls held open for a
    # 2025-era upstream; follow: an upstream's task followed by
    # the gateway's; relay: one leg relayed; skills: an upstream's skills copied; proxy: an upstream mounted; config: the file.
    "gateway": ["error", "route", "upstream", "pool", "hold", "follow", "relay", "skills", "proxy", "config", "main"],
    # The facade: testing: the test kit; fuzzing: what the fuzz targets call; guide: the user
    # guide, which may name anything.
    "roundtrip": ["testing", "fuzzing", "guide"],
}
SOURCES = {
    "core": RUNTIME / "core" / "src",
    "transport": RUNTIME / "transport" / "src",
    "client": RUNTIME / "client" / "src",
    "cli": RUNTIME / "cli" / "src",
    "gateway": RUNTIME / "gateway" / "src",
    "roundtrip": RUNTIME / "src",
}
# The typed references that go up, each by design, with its reason; every other edge up fails.
# A handler's context holds the server answering it and the task it runs as, typed (they are
# one crate: a reference up costs no layering the compiler could keep, and a typed field beats
# an `Arc<dyn Any>` read back by downcasting).
BACK_REFERENCES = {
    ("core", "request", "server"): "RequestContext::server: the server answering the request",
    ("core", "request", "task"): "TaskContext reads the task link its RequestContext carries",
}


def module_of(path: pathlib.Path, root: pathlib.Path) -> str:
    rel = path.relative_to(root)
    return rel.parts[0] if len(rel.parts) > 1 else rel.stem


def references(text: str):
    """(line number, module) for every `crate::module` the file names."""
    for n, line in enumerate(text.splitlines(), 1):
        code = line.split("//", 1)[0]
        for m in re.finditer(r"crate::\{([^}]*)", code):
            for name in re.findall(r"(?:^|,)\s*([a-z_]+)", m.group(1)):
                yield n, name
        for m in re.finditer(r"crate::([a-z_]+)", code):
            yield n, m.group(1)


def root_paths(text: str):
    """(line number, name) for every `crate::Name` (an item through the crate root)."""
    for n, line in enumerate(text.splitlines(), 1):
        code = line.split("//", 1)[0]
        for m in re.finditer(r"crate::([A-Z][A-Za-z0-9_]*)", code):
            yield n, m.group(1)


def check(crate: str) -> int:
    ROOT = SOURCES[crate]
    ORDER = CRATES[crate]
    print(f"== {crate} ({ROOT.relative_to(RUNTIME.parent)})")
    edges = collections.defaultdict(list)
    modules = set()
    through_root = []
    for path in sorted(ROOT.rglob("*.rs")):
        src = module_of(path, ROOT)
        if src != "lib":
            modules.add(src)
        text = path.read_text(encoding="utf-8")
        if src != "lib":
            through_root += [f"{path.relative_to(RUNTIME.parent)}:{n} crate::{name}" for n, name in root_paths(text)]
        for n, dst in references(text):
            if src == "lib":
                continue
            if (crate, src, dst) in BACK_REFERENCES:
                continue
            if dst != src and ((ROOT / dst).is_dir() or (ROOT / f"{dst}.rs").exists()):
                edges[(src, dst)].append(f"{path.relative_to(RUNTIME.parent)}:{n}")
    graph = collections.defaultdict(set)
    for (a, b) in edges:
        graph[a].add(b)

    # Tarjan's strongly connected components: a component of more than one module is a ring.
    index, low, stack, on, rings, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                rings.append(sorted(comp))

    for v in sorted(modules):
        if v not in index:
            visit(v)

    print(f"{len(modules)} top-level modules, {len(edges)} edges between them")
    for (c, a, b), why in BACK_REFERENCES.items():
        if c == crate:
            print(f"  {a:>10} -> {b:<10} declared back-reference: {why}")
    for (a, b), places in sorted(edges.items()):
        print(f"  {a:>10} -> {b:<10} {len(places):3} place(s)")
    print(f"\nrings (modules that reach each other): {len(rings)}")
    for ring in rings:
        print("  " + ", ".join(ring))
    rank = {m: i for i, m in enumerate(ORDER)}
    upward = [(a, b, p) for (a, b), p in sorted(edges.items()) if a in rank and b in rank and rank[b] > rank[a]]
    print(f"\nimports up the order {' < '.join(ORDER)}: {len(upward)} edge(s)")
    for a, b, places in upward:
        print(f"  {a} -> {b}: " + ", ".join(places[:6]) + (f" (+{len(places) - 6})" if len(places) > 6 else ""))
    unplaced = sorted(modules - set(ORDER))
    if unplaced:
        print(f"\nmodules with no place in ORDER (give each one): {', '.join(unplaced)}")
    if through_root:
        print("\nitems named through the crate root (name their module instead):")
        for place in through_root:
            print(f"  {place}")
    return 1 if upward or rings or unplaced or through_root else 0


def main() -> int:
    failed = 0
    for crate in CRATES:
        failed |= check(crate)
        print()
    return failed


if __name__ == "__main__":
    sys.exit(main())
