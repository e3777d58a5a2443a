#!/usr/bin/env python3
"""Runs a GitHub Actions workflow's `run:` steps on this machine, job by job, every matrix leg, in order.

usage: run-workflow.py --workflow FILE --package DIR --work DIR [--cache DIR] [--cache-drop PATH]...
                       [--place SRC=DEST]...

Each job leg starts from a fresh copy of the package at DIR/<package name> (the same path every time, as a runner's
workspace is), with each --place file copied to DEST inside it. Jobs run in `needs` order; a failed step skips the
leg's later steps except those with `if: always()`, and a job whose needs failed is skipped unless `if: always()`.

What cannot run here is stood in for, and says so as it runs:
  actions/checkout          the fresh copy of the package
  actions/cache             the copy's .build linked to --cache (default DIR/cache), kept between legs and runs,
                            less each --cache-drop path, removed at every restore (so the steps that must
                            build those files do build them, as on a runner with no cache)
  actions/upload-artifact   the named paths copied into DIR/artifacts/<name>/
  actions/download-artifact the artifacts matching `pattern` copied into `path` (merge-multiple)
  container: swift:V-...    the toolchain on PATH, which must be Swift V
Any other action, expression or `if:` is an error. Exit status: 0 every leg passed, 1 a leg failed, 2 bad input.
"""
import argparse
import fnmatch
import itertools
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from workflow import WorkflowError, parse  # noqa: E402


def say(message):
    print(f"run-workflow: {message}", flush=True)


def toolchain_version():
    output = subprocess.run(["swift", "--version"], capture_output=True, text=True, check=True).stdout
    match = re.search(r"Swift version (\d+\.\d+(?:\.\d+)?)", output)
    if match is None:
        raise WorkflowError(f"cannot read the version in `swift --version`: {output.strip()}")
    return match.group(1)


def legs(job):
    matrix = (job.get("strategy") or {}).get("matrix") or {}
    for key in ("include", "exclude"):
        if key in matrix:
            raise WorkflowError(f"matrix `{key}` is not supported")
    keys = sorted(matrix)
    for values in itertools.product(*(matrix[k] for k in keys)):
        yield dict(zip(keys, values))


def expand(text, matrix, where):
    def value(match):
        expression = match.group(1).strip()
        name = expression.removeprefix("matrix.")
        if name == expression or name not in matrix:
            raise WorkflowError(f"{where}: `${{{{ {expression} }}}}` cannot be evaluated here")
        return str(matrix[name])
    return re.sub(r"\$\{\{(.*?)\}\}", value, text)


def order(jobs):
    done, ordered = set(), []
    while len(ordered) < len(jobs):
        ready = [name for name, job in jobs.items() if name not in done and
                 all(need in done for need in needs(job))]
        if not ready:
            raise WorkflowError("the jobs' `needs` form a cycle or name a job that does not exist")
        ordered.append(ready[0])
        done.add(ready[0])
    return ordered


def needs(job):
    value = job.get("needs") or []
    return [value] if isinstance(value, str) else value


def copy_into(source, destination):
    if os.path.isdir(source):
        shutil.copytree(source, destination, symlinks=True, dirs_exist_ok=True)
    else:
        os.makedirs(os.path.dirname(destination) or ".", exist_ok=True)
        shutil.copy2(source, destination)


class Runner:
    def __init__(self, args):
        self.package = os.path.abspath(args.package)
        self.work = os.path.abspath(args.work)
        self.workspace = os.path.join(self.work, os.path.basename(self.package))
        self.artifacts = os.path.join(self.work, "artifacts")
        self.places = [p.split("=", 1) for p in args.place]
        self.cache = os.path.abspath(args.cache or os.path.join(self.work, "cache"))
        self.cache_drops = args.cache_drop
        self.version = toolchain_version()

    def run(self, workflow):
        jobs = workflow.get("jobs") or {}
        if not jobs:
            raise WorkflowError("the workflow has no jobs")
        shutil.rmtree(self.artifacts, ignore_errors=True)
        results = {}
        for name in order(jobs):
            job = jobs[name]
            condition = job.get("if")
            if condition not in (None, "always()"):
                raise WorkflowError(f"job {name}: `if: {condition}` is not supported")
            if condition is None and not all(results[n] for n in needs(job)):
                say(f"job {name}: skipped, a job it needs failed")
                results[name] = False
                continue
            self.check_container(name, job)
            results[name] = all([self.leg(name, job, matrix) for matrix in legs(job)])
        return all(results.values())

    def check_container(self, name, job):
        image = job.get("container")
        if image is None:
            return
        match = re.fullmatch(r"swift:(\d+\.\d+(?:\.\d+)?)(-[a-z0-9.-]+)?", image)
        if match is None:
            raise WorkflowError(f"job {name}: container `{image}` is not an official swift:<version> image")
        if match.group(1) != self.version:
            raise WorkflowError(f"job {name}: container `{image}` names Swift {match.group(1)}, "
                                f"but the toolchain here is Swift {self.version}")
        say(f"job {name}: container {image} stood in for by this machine's Swift {self.version}")

    def leg(self, name, job, matrix):
        label = name + "".join(f" {k}={v}" for k, v in matrix.items())
        shutil.rmtree(self.workspace, ignore_errors=True)
        shutil.copytree(self.package, self.workspace, symlinks=True,
                        ignore=shutil.ignore_patterns(".build", ".swiftpm"))
        for source, destination in self.places:
            copy_into(source, os.path.join(self.workspace, destination))
        say(f"[{label}] fresh copy of {self.package} at {self.workspace}")
        passed = True
        for number, step in enumerate(job.get("steps") or [], start=1):
            where = f"job {name} step {number}"
            condition = step.get("if")
            if condition not in (None, "always()"):
                raise WorkflowError(f"{where}: `if: {condition}` is not supported")
            if not passed and condition is None:
                say(f"[{label}] step {number} skipped after a failure")
                continue
            if "run" in step:
                command = expand(step["run"], matrix, where).strip()
                say(f"[{label}] $ {command}")
                status = subprocess.run(["bash", "-e", "-c", command], cwd=self.workspace).returncode
                if status != 0:
                    say(f"[{label}] step {number} failed with exit status {status}")
                    passed = False
            elif "uses" in step:
                self.action(label, where, step, matrix)
            else:
                raise WorkflowError(f"{where}: a step needs `run` or `uses`")
        say(f"[{label}] {'passed' if passed else 'FAILED'}")
        return passed

    def action(self, label, where, step, matrix):
        action = step["uses"].split("@")[0]
        options = {k: expand(str(v), matrix, where) for k, v in (step.get("with") or {}).items()
                   if k != "key"}
        if action == "actions/checkout":
            say(f"[{label}] {action}: stood in for by the fresh copy")
        elif action == "actions/cache":
            if options.get("path") != ".build":
                raise WorkflowError(f"{where}: only `path: .build` is stood in for")
            os.makedirs(self.cache, exist_ok=True)
            for path in self.cache_drops:
                if os.path.lexists(os.path.join(self.cache, path)):
                    os.remove(os.path.join(self.cache, path))
            os.symlink(self.cache, os.path.join(self.workspace, ".build"))
            say(f"[{label}] {action}: .build linked to {self.cache}")
        elif action == "actions/upload-artifact":
            target = os.path.join(self.artifacts, options["name"])
            for path in options["path"].split():
                source = os.path.join(self.workspace, path)
                if os.path.exists(source):
                    copy_into(source, os.path.join(target, path))
                else:
                    say(f"[{label}] {action}: warning: no file at {path}")
            say(f"[{label}] {action}: copied to {target}")
        elif action == "actions/download-artifact":
            if options.get("merge-multiple") != "true":
                raise WorkflowError(f"{where}: only `merge-multiple: true` is stood in for")
            target = os.path.join(self.workspace, options.get("path", "."))
            os.makedirs(target, exist_ok=True)
            names = sorted(os.listdir(self.artifacts)) if os.path.isdir(self.artifacts) else []
            matched = [n for n in names if fnmatch.fnmatch(n, options.get("pattern", "*"))]
            for artifact in matched:
                copy_into(os.path.join(self.artifacts, artifact), target)
            say(f"[{label}] {action}: {len(matched)} artifacts copied into {target}")
        else:
            raise WorkflowError(f"{where}: `{step['uses']}` has no stand-in here")


def main():
    parser = argparse.ArgumentParser(description="Run a GitHub Actions workflow's run: steps here.")
    parser.add_argument("--workflow", required=True)
    parser.add_argument("--package", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--cache", help="the folder that stands in for actions/cache's .build")
    parser.add_argument("--cache-drop", action="append", default=[], metavar="PATH",
                        help="a file of the cache removed at every restore")
    parser.add_argument("--place", action="append", default=[], metavar="SRC=DEST")
    args = parser.parse_args()
    try:
        passed = Runner(args).run(parse(args.workflow))
    except WorkflowError as error:
        print(f"run-workflow: error: {error}", file=sys.stderr)
        sys.exit(2)
    sys.exit(0 if passed else 1)


if __name__ == "__main__":
    main()
