#!/usr/bin/env python3
"""How the runtime's top-level modules import each other (issue 27's layering, measured).

    scripts/layers.py            # the edges, the rings (strongly connected modules), and every
                                 # import that goes up the intended order, with file:line

Reads `crate::<module>` paths in runtime/src (in `use` lines, `use crate::{…}` groups and
paths in code; comments are skipped) and maps each file to its top-level module (`server/…`
is `server`; `error.rs` is `error`). The intended order is issue 27's, low to high; modules
it does not name (error, observe, otel, tls, auth, skills, cli, fuzzing) are listed but not
judged. Exit status 1 when any judged import goes up, so it can become a test once the
layers are one-way; today it is a measurement.
"""
import collections
import pathlib
import re
import sys

ORDER = ["protocol", "seal", "resolve", "task", "server", "declare", "transport", "client", "testing", "describe"]
ROOT = pathlib.Path(__file__).resolve().parent.parent / "runtime" / "src"


def module_of(path: pathlib.Path) -> str:
    rel = path.relative_to(ROOT)
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


def main() -> int:
    edges = collections.defaultdict(list)
    modules = set()
    for path in sorted(ROOT.rglob("*.rs")):
        src = module_of(path)
        modules.add(src)
        for n, dst in references(path.read_text(encoding="utf-8")):
            if dst != src and ((ROOT / dst).is_dir() or (ROOT / f"{dst}.rs").exists()):
                edges[(src, dst)].append(f"{path.relative_to(ROOT.parent.parent)}:{n}")
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
    return 1 if upward else 0


if __name__ == "__main__":
    sys.exit(main())
