#!/bin/sh
# Builds and tests Examples/Downstream/StepsKit — a package outside HealthPair whose published-style HealthKit code
# imports `HealthKit` unchanged — against this checkout, linked as `healthpair` beside a fresh copy of the package,
# exactly as docs/testing-your-app.md tells a team to depend on it. Exits with swift's status.
#
# HEALTHPAIR_DOWNSTREAM_BUILD=<dir> keeps the copy and its build there between runs, so a rerun compiles only what
# changed (default: a temporary directory, removed afterwards).
set -eu
repo=$(cd "$(dirname "$0")/../.." && pwd)
if [ -n "${HEALTHPAIR_DOWNSTREAM_BUILD:-}" ]; then
  work=$HEALTHPAIR_DOWNSTREAM_BUILD
  mkdir -p "$work"
else
  work=$(mktemp -d "${TMPDIR:-/tmp}/healthpair-downstream-XXXXXX")
  trap 'rm -rf "$work"' EXIT INT TERM
fi
rm -rf "$work/StepsKit" "$work/healthpair"
ln -s "$repo" "$work/healthpair"
cp -R "$repo/Examples/Downstream/StepsKit" "$work/StepsKit"
cd "$work/StepsKit"
# The build folder is the package's own .build, linked to one kept outside the copy: the same path the workflow check
# of make ci-kit builds in (Examples/CI/check-workflow.sh), so the two share one build. Built from another path, the
# compiler's module caches would clash.
mkdir -p "$work/build"
ln -s "$work/build" .build
swift build
swift test
