#!/usr/bin/env python3
"""Count roundtrip's public API from rustdoc's JSON, as a user sees it.

    scripts/api-json.sh                  # rustdoc's JSON of every published crate
    scripts/public-api.py [--list] [--max N]

Walks the `roundtrip` crate from its root: every public item a path reaches, re-exports
followed into the crates they come from (roundtrip-core, roundtrip-wire, roundtrip-macros, and
the crates above the core that the facade re-exports: roundtrip-redis, -auth, -transport,
-otel, -client, -cli; a crate whose JSON is missing counts as its re-export alone),
each item counted once (at the first path that reaches it: the prelude adds none), items
marked `doc(hidden)` left out (rustdoc's JSON does not hold them). Prints the items by
kind, apart: the wire types (what roundtrip-wire defines, under `roundtrip::protocol` or
reached through the prelude) and the guide's chapters (modules with no items, documentation
only). With --list, every item's path. With --max N, exit status 1 when more than N items are
outside the wire types and the guide (scripts/test.sh keeps the count at most 130).
"""
import collections
import json
import pathlib
import sys

DOC = pathlib.Path(__file__).resolve().parent.parent / "target" / "doc"
KINDS = {"module", "struct", "enum", "trait", "function", "macro", "proc_macro", "constant", "static",
         "type_alias", "union", "trait_alias"}


def load(name):
    path = DOC / f"{name}.json"
    return json.loads(path.read_text()) if path.exists() else None


CRATES = {}


def crate(name):
    if name not in CRATES:
        CRATES[name] = load(name)
    return CRATES[name]


def kind_of(item):
    return next(iter(item["inner"])) if isinstance(item["inner"], dict) else item["inner"]


def resolve(doc, target_id):
    """The item `target_id` of `doc` names, and the crate document it lives in; for an item
    whose crate's JSON does not hold it (one in a `doc(hidden)` module, re-exported), the
    summary rustdoc keeps of it (its crate, path and kind)."""
    key = str(target_id)
    if key in doc["index"] and doc["index"][key]["crate_id"] == 0:
        return doc, doc["index"][key]
    summary = doc["paths"].get(key)
    if not summary:
        return None, None
    ext = doc["external_crates"].get(str(summary["crate_id"]), {}).get("name")
    other = crate(ext) if ext else None
    if not other:
        return None, {"summary": summary, "crate": ext}
    for oid, s in other["paths"].items():
        if s["crate_id"] == 0 and s["path"] == summary["path"] and oid in other["index"]:
            return other, other["index"][oid]
    return None, {"summary": summary, "crate": ext}


MACRO_KINDS = {"macro", "proc_macro", "proc_attribute", "proc_derive"}


def namespace(kind):
    """Rust's namespaces: a glob import brings nothing a module names itself in that namespace."""
    return "macro" if kind in MACRO_KINDS else "value" if kind in {"function", "constant", "static"} else "type"


def explicit_names(doc, module):
    """(name, namespace) of what `module` declares or imports by name (not through a glob)."""
    names = set()
    for cid in module["inner"]["module"]["items"]:
        item = doc["index"].get(str(cid))
        if item is None:
            continue
        if kind_of(item) == "use":
            use = item["inner"]["use"]
            if use["is_glob"]:
                continue
            summary = doc["paths"].get(str(use["id"]))
            names.add((use["name"], namespace(summary["kind"] if summary else "use")))
        else:
            names.add((item["name"], namespace(kind_of(item))))
    return names


def crate_name(doc):
    return doc["index"][str(doc["root"])]["name"]


def is_prelude(doc, cid):
    item = doc["index"].get(str(cid))
    return item is not None and item.get("name") == "prelude"


def walk(doc, module, prefix, out, seen, shadowed=frozenset()):
    # The prelude last: an item counts at its own path, the prelude's copy adds none.
    for cid in sorted(module["inner"]["module"]["items"], key=lambda c: is_prelude(doc, c)):
        item = doc["index"].get(str(cid))
        if item is None or item.get("visibility") != "public":
            continue
        k = kind_of(item)
        if k == "use":
            use = item["inner"]["use"]
            if use["id"] is None:
                continue
            tdoc, target = resolve(doc, use["id"])
            if target is None:
                continue
            if "summary" in target:
                key = (target["crate"], tuple(target["summary"]["path"]))
                if (use["name"], namespace(target["summary"]["kind"])) in shadowed:
                    continue
                if key not in seen:
                    seen.add(key)
                    out.append((f"{prefix}::{use['name']}", target["summary"]["kind"], target["crate"]))
                continue
            if use["is_glob"]:
                walk(tdoc, target, prefix, out, seen, explicit_names(doc, module))
                continue
            name, item, doc_here = use["name"], target, tdoc
        else:
            name, doc_here = item["name"], doc
        k = kind_of(item)
        if k not in KINDS or (name, namespace(k)) in shadowed:
            continue
        path = f"{prefix}::{name}"
        key = (id(doc_here), item["id"])
        if key in seen:  # an item counts once, at the first path that reaches it
            continue
        seen.add(key)
        out.append((path, k, crate_name(doc_here)))
        if k == "module":
            walk(doc_here, item, path, out, seen)


def main():
    root_doc = crate("roundtrip")
    if root_doc is None:
        sys.exit(f"no {DOC}/roundtrip.json: build it first (see the docstring)")
    out = []
    walk(root_doc, root_doc["index"][str(root_doc["root"])], "roundtrip", out, set())
    # A wire type is one roundtrip-wire defines, at whatever path it is reached.
    wire = [p for p in out if p[2] == "roundtrip_wire"]
    guide = [p for p in out if p[0].startswith("roundtrip::guide")]
    rest = [p for p in out if p not in wire and p not in guide]
    for title, items in (("outside the wire types and the guide", rest), ("wire types (roundtrip::protocol)", wire),
                         ("the guide's chapters", guide)):
        by_kind = collections.Counter(k for _, k, _ in items)
        print(f"{len(items):4} {title}: " + ", ".join(f"{n} {k}" for k, n in by_kind.most_common()))
    print(f"{len(out):4} in all")
    if "--list" in sys.argv:
        for path, k, _ in sorted(rest):
            print(f"  {k:10} {path}")
    if "--max" in sys.argv:
        limit = int(sys.argv[sys.argv.index("--max") + 1])
        if len(rest) > limit:
            sys.exit(f"FAILED: {len(rest)} public items outside the wire types and the guide, more than {limit}: "
                     "hide plumbing (doc(hidden)), make it crate-private, or fold it into an item that stays")


if __name__ == "__main__":
    main()
