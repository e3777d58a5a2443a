#!/usr/bin/env python3
"""Merges the JUnit files of `healthpair run --shard K/N` into one (ci/merge-junit.py in a team's repository).

usage: merge-junit.py [--scenarios DIR] --output FILE SHARD.xml...

Test cases are grouped into one <testsuite> per name (the scenario's folder) and the totals are recounted. With
--scenarios DIR, every *.scenario file under DIR must be in the merged file exactly once (a testcase's `file`):
a missing shard, a scenario run twice, or one the shards never ran is an error. Exit status: 0 merged (whatever the
scenarios' own results: the shards' jobs report those), 1 a scenario missing or repeated, 2 bad input.
"""
import argparse
import os
import sys
import xml.etree.ElementTree as ET


def fail(status, message):
    print(f"merge-junit: {message}", file=sys.stderr)
    sys.exit(status)


def scenario_files(root):
    found = []
    for directory, _, names in os.walk(root):
        found += [os.path.normpath(os.path.join(directory, n)) for n in names if n.endswith(".scenario")]
    return sorted(found)


def main():
    parser = argparse.ArgumentParser(description="Merge the JUnit files of healthpair's shards.")
    parser.add_argument("--scenarios", help="every *.scenario file under this folder must appear exactly once")
    parser.add_argument("--output", required=True)
    parser.add_argument("shards", nargs="+")
    args = parser.parse_args()

    suites = {}
    seen = {}
    for path in args.shards:
        try:
            root = ET.parse(path).getroot()
        except (OSError, ET.ParseError) as error:
            fail(2, f"{path}: {error}")
        if root.tag != "testsuites":
            fail(2, f"{path}: the root element is <{root.tag}>, expected <testsuites>")
        for suite in root.iter("testsuite"):
            merged = suites.setdefault(suite.get("name", ""), [])
            for case in suite.iter("testcase"):
                merged.append(case)
                seen.setdefault(os.path.normpath(case.get("file", "")), []).append(path)

    problems = [f"{file} is in {len(paths)} shard reports: {', '.join(paths)}"
                for file, paths in sorted(seen.items()) if len(paths) > 1]
    if args.scenarios is not None:
        expected = scenario_files(args.scenarios)
        if not expected:
            fail(2, f"no *.scenario file under {args.scenarios}")
        problems += [f"{file} is in no shard report" for file in expected if file not in seen]
        problems += [f"{file} is not a scenario under {args.scenarios}"
                     for file in sorted(seen) if file not in expected]

    out = ET.Element("testsuites", name="healthpair")
    totals = {"tests": 0, "failures": 0, "errors": 0, "time": 0.0}
    for name in sorted(suites):
        cases = suites[name]
        failures = sum(1 for c in cases if c.find("failure") is not None)
        errors = sum(1 for c in cases if c.find("error") is not None)
        seconds = sum(float(c.get("time", "0")) for c in cases)
        suite = ET.SubElement(out, "testsuite", name=name, tests=str(len(cases)), failures=str(failures),
                              errors=str(errors), skipped="0", time=f"{seconds:.3f}")
        suite.extend(cases)
        totals["tests"] += len(cases)
        totals["failures"] += failures
        totals["errors"] += errors
        totals["time"] += seconds
    out.set("tests", str(totals["tests"]))
    out.set("failures", str(totals["failures"]))
    out.set("errors", str(totals["errors"]))
    out.set("time", f"{totals['time']:.3f}")
    ET.indent(out)
    ET.ElementTree(out).write(args.output, encoding="UTF-8", xml_declaration=True)
    print(f"merge-junit: {len(args.shards)} shard reports, {totals['tests']} scenarios, "
          f"{totals['failures']} failed -> {args.output}")
    if problems:
        fail(1, "the shards do not hold every scenario exactly once:\n  " + "\n  ".join(problems))


if __name__ == "__main__":
    main()
