#!/usr/bin/env python3
"""Judge one scenario run of the conformance suite by its checks.json, strictly.

    conformance-checks.py DIR [--allow-warnings] [--allow-skipped CHECK_NAME]...

DIR is the suite's `-o` directory of one scenario run (the newest `checks.json` under it is
read). Prints `<n> checks: <counts by status>` and exits 1 when the run has no checks at all
(the suite skipped the scenario: it does that silently, exit 0, for an extension scenario run
at a spec version without `--force`), or any check is FAILURE or SKIPPED, or (unless
--allow-warnings) WARNING. INFO checks are neutral. A SKIPPED check passes only when it is named
with --allow-skipped (its `name`, which is more precise than its `id`): a check the scenario
has but that cannot apply to this client, said at the call site with the reason.
"""
import collections
import glob
import json
import os
import sys


def main() -> int:
    argv = sys.argv[1:]
    allow_warnings = "--allow-warnings" in argv
    allowed_skips = {argv[i + 1] for i, a in enumerate(argv[:-1]) if a == "--allow-skipped"}
    args = [a for i, a in enumerate(argv) if not a.startswith("--") and (i == 0 or argv[i - 1] != "--allow-skipped")]
    if len(args) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    found = glob.glob(os.path.join(args[0], "**", "checks.json"), recursive=True)
    if not found:
        print("no checks.json: the scenario did not run (skipped?)")
        return 1
    path = max(found, key=os.path.getmtime)
    with open(path, encoding="utf-8") as f:
        checks = json.load(f)
    counts = collections.Counter(c.get("status", "?") for c in checks)
    summary = ", ".join(f"{n} {s}" for s, n in sorted(counts.items()))
    print(f"{len(checks)} checks: {summary}")
    bad = {"FAILURE", "SKIPPED"} | (set() if allow_warnings else {"WARNING"})
    failed = [
        c for c in checks
        if c.get("status") in bad and not (c.get("status") == "SKIPPED" and c.get("name") in allowed_skips)
    ]
    for c in failed:
        print(f"  {c.get('status')}: {c.get('id')}: {c.get('errorMessage') or c.get('description', '')}")
    if not checks:
        print("no checks ran")
        return 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
