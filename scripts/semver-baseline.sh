#!/usr/bin/env bash
# Record the public API of every published library crate as the semver baseline: rustdoc's
# JSON (scripts/api-json.sh), compressed, in api/<crate>.json.gz, and the commit and
# toolchain it was taken with in api/BASELINE. scripts/test.sh then runs cargo-semver-checks
# against it: a change that would break a user of the baseline fails the tests.
#
#     scripts/semver-baseline.sh     # on a clean tree, after a deliberate break (or a release)
#
# Re-record only when the break is meant: say so in CHANGELOG.md with a **Migration:** line.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -n "$(git status --porcelain)" ]; then
  echo "semver-baseline: commit first (the baseline names the commit it was taken at)" >&2; exit 1
fi
rm -f api/*.json.gz
crates="$(scripts/api-json.sh)"
for crate in $crates; do
  file="${crate//-/_}"
  gzip -9n < "target/doc/$file.json" > "api/$file.json.gz"
done
echo "$(git rev-parse HEAD) $(rustc --version)" > api/BASELINE
ls -l api
