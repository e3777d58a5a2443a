#!/bin/sh
# Runs every `run:` step of Examples/CI/healthkit.yml, job by job and shard by shard, in a fresh copy of
# Examples/Downstream/StepsKit (a package that depends on this checkout by path, with its own Scenarios/), with
# Examples/CI/merge-junit.py placed at ci/merge-junit.py as the workflow expects; then checks, apart from the
# merge script's own check, that the merged JUnit holds each of the package's scenario files exactly once.
#
# HEALTHPAIR_DOWNSTREAM_BUILD=<dir> works there and keeps the build (the stand-in for actions/cache) in <dir>/build,
# the folder `make downstream` builds StepsKit in, so the two share one build (default: a temporary directory).
set -eu
repo=$(cd "$(dirname "$0")/../.." && pwd)
if [ -n "${HEALTHPAIR_DOWNSTREAM_BUILD:-}" ]; then
  work=$HEALTHPAIR_DOWNSTREAM_BUILD
  mkdir -p "$work"
else
  work=$(mktemp -d "${TMPDIR:-/tmp}/healthpair-ci-kit-XXXXXX")
  trap 'rm -rf "$work"' EXIT INT TERM
fi
rm -f "$work/healthpair"
ln -s "$repo" "$work/healthpair"
package=$repo/Examples/Downstream/StepsKit
python3 "$repo/Examples/CI/run-workflow.py" --workflow "$repo/Examples/CI/healthkit.yml" --package "$package" \
  --work "$work" --cache "$work/build" --cache-drop debug/healthpair --cache-drop debug/healthpaird \
  --place "$repo/Examples/CI/healthkit.yml=.github/workflows/healthkit.yml" \
  --place "$repo/Examples/CI/merge-junit.py=ci/merge-junit.py"
python3 - "$work/artifacts/scenarios-junit/junit.xml" "$package" <<'PY'
import os, sys, xml.etree.ElementTree as ET
merged, package = sys.argv[1], sys.argv[2]
expected = sorted(os.path.relpath(os.path.join(d, n), package)
                  for d, _, names in os.walk(os.path.join(package, "Scenarios")) for n in names
                  if n.endswith(".scenario"))
found = sorted(os.path.normpath(c.get("file", "")) for c in ET.parse(merged).getroot().iter("testcase"))
if found != expected or len(expected) < 2:
    sys.exit(f"check-workflow: the merged JUnit {merged} holds {found}, expected each of {expected} once")
print(f"check-workflow: the merged JUnit holds each of the {len(expected)} scenario files exactly once")
PY
