#!/usr/bin/env python3
"""Checks that docs/ci.md shows the CI kit's files exactly as they are in Examples/CI (no drift).

Each `<!-- file: Examples/CI/NAME -->` line in the page must be followed by a fenced block whose text equals that
file; the workflow and the Dockerfile must be shown so; every link into ../Examples/CI/ must name a file that exists.
Exit status: 0 the page matches, 1 it does not (a unified diff says where).
"""
import difflib
import os
import re
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PAGE = "docs/ci.md"
SHOWN = ["Examples/CI/healthkit.yml", "Examples/CI/Dockerfile"]


def blocks(lines):
    """(file, first line number, text) for each marked fenced block."""
    found = []
    for index, line in enumerate(lines):
        match = re.fullmatch(r"<!-- file: (\S+) -->", line.strip())
        if not match:
            continue
        if index + 1 >= len(lines) or not lines[index + 1].startswith("```"):
            found.append((match.group(1), index + 1, None))
            continue
        end = next((j for j in range(index + 2, len(lines)) if lines[j].startswith("```")), None)
        text = None if end is None else "".join(lines[index + 2:end])
        found.append((match.group(1), index + 3, text))
    return found


def main():
    with open(os.path.join(REPO, PAGE), encoding="utf-8") as handle:
        page = handle.read()
    lines = page.splitlines(keepends=True)
    problems = []
    shown = blocks(lines)
    for name in SHOWN:
        if name not in [file for file, _, _ in shown]:
            problems.append(f"{PAGE}: {name} is not shown (a `<!-- file: {name} -->` line before its block)")
    for name, line, text in shown:
        path = os.path.join(REPO, name)
        if text is None:
            problems.append(f"{PAGE}:{line}: no fenced block follows the marker of {name}")
            continue
        if not os.path.exists(path):
            problems.append(f"{PAGE}:{line}: {name} does not exist")
            continue
        with open(path, encoding="utf-8") as handle:
            actual = handle.read()
        if text != actual:
            diff = difflib.unified_diff(actual.splitlines(keepends=True), text.splitlines(keepends=True),
                                        name, f"{PAGE} (from line {line})")
            problems.append(f"{PAGE}:{line}: the page's copy of {name} differs from the file:\n" + "".join(diff))
    for link in re.findall(r"\]\((\.\./Examples/CI/[^)#\s]*)", page):
        if not os.path.exists(os.path.normpath(os.path.join(REPO, "docs", link))):
            problems.append(f"{PAGE}: the link {link} names no file")
    if problems:
        print("check-docs: " + "\ncheck-docs: ".join(problems), file=sys.stderr)
        sys.exit(1)
    print(f"check-docs: {PAGE} shows {', '.join(file for file, _, _ in shown)} exactly as they are")


if __name__ == "__main__":
    main()
