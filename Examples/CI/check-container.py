#!/usr/bin/env python3
"""Builds Examples/CI/Dockerfile without Docker: its steps, in order, on a clean Debian 12 root, then runs the image.

usage: check-container.py [--state DIR] [--scenarios DIR]

No Docker engine runs here, so the image is stood in for: its base `swift:V-bookworm` is a debootstrap root of
Debian 12 with the Swift image's packages (kept in DIR/root, made once; the .deb files stay in apt's cache) under
this machine's toolchain (/opt/swift/usr over the root's /usr, where the image unpacks it; V must be its version),
joined by overlayfs; the build writes to a fresh upper layer, as `docker build` would. WORKDIR, COPY (the checkout,
less the Dockerfile's .dockerignore), RUN (in chroot, `--mount=type=cache` as a folder kept in DIR/cache), ENTRYPOINT
and CMD run as written; then `docker run -v <scenarios' folder>:/work <image> run Scenarios --junit junit.xml` runs
in a fresh layer over the image, and its JUnit must hold every scenario file. Needs root: without it the check says
so and exits 0 having done nothing. Exit status: 0 passed (or skipped), 1 a step failed, 2 bad recipe.
"""
import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

def _toolchain():
    """The folder holding the toolchain's usr/ (where `swift` on PATH lives: /opt/swift on CI)."""
    swift = shutil.which("swift")
    if swift is None:
        return None
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(swift))))
    return None if root == "/" else root


TOOLCHAIN = _toolchain()
# The packages the official swift:6.x-bookworm image installs (swiftlang/swift-docker, 6.2/debian/12/Dockerfile).
IMAGE_PACKAGES = ["binutils", "libicu-dev", "libcurl4-openssl-dev", "libedit-dev", "libsqlite3-dev", "libncurses-dev",
                  "libpython3-dev", "libxml2-dev", "pkg-config", "uuid-dev", "tzdata", "git", "gcc",
                  "libstdc++-12-dev"]
IMAGE_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


class RecipeError(Exception):
    """A Dockerfile line this check does not understand: `path:line: message`."""


def say(message):
    print(f"check-container: {message}", flush=True)


def run(command, **options):
    subprocess.run(command, check=True, **options)


def instructions(path):
    """The Dockerfile's instructions as (line, keyword, arguments), continuation lines joined."""
    result, pending, start = [], "", 0
    with open(path, encoding="utf-8") as handle:
        for number, raw in enumerate(handle, start=1):
            line = raw.rstrip("\n")
            if not pending and (not line.strip() or line.lstrip().startswith("#")):
                continue
            if not pending:
                start = number
            if line.endswith("\\"):
                pending += line[:-1] + " "
                continue
            text = (pending + line).strip()
            pending = ""
            keyword, _, arguments = text.partition(" ")
            result.append((start, keyword.upper(), arguments.strip()))
    return result


def toolchain_version():
    output = subprocess.run([f"{TOOLCHAIN}/usr/bin/swift", "--version"], capture_output=True, text=True,
                            check=True).stdout
    return re.search(r"Swift version (\d+\.\d+(?:\.\d+)?)", output).group(1)


def debian_mirror():
    """The Debian archive this machine's apt uses (HEALTHPAIR_DEBIAN_MIRROR overrides it)."""
    if os.environ.get("HEALTHPAIR_DEBIAN_MIRROR"):
        return os.environ["HEALTHPAIR_DEBIAN_MIRROR"]
    sources = "/etc/apt/sources.list.d"
    for name in sorted(os.listdir(sources)) if os.path.isdir(sources) else []:
        if name.endswith(".sources"):
            with open(os.path.join(sources, name), encoding="utf-8") as handle:
                for stanza in handle.read().split("\n\n"):
                    fields = dict(re.findall(r"^([A-Za-z-]+):\s*(.*)$", stanza, re.M))
                    suites, uris = fields.get("Suites", ""), fields.get("URIs", "")
                    if re.search(r"\bbookworm\b", suites) and "security" not in uris:
                        return uris.split()[0]
    if os.path.exists("/etc/apt/sources.list"):
        with open("/etc/apt/sources.list", encoding="utf-8") as handle:
            for line in handle:
                match = re.match(r"deb\s+(?:\[[^]]*\]\s+)?(\S+)\s+bookworm\s", line)
                if match:
                    return match.group(1)
    raise RecipeError("no Debian bookworm archive in this machine's apt sources; set HEALTHPAIR_DEBIAN_MIRROR")


def base_root(state):
    """The stand-in for the Swift image's Debian part, made once with debootstrap and reused while its recipe holds."""
    root, stamp = os.path.join(state, "root"), os.path.join(state, "root.json")
    recipe = {"suite": "bookworm", "variant": "minbase", "include": IMAGE_PACKAGES}
    if os.path.isdir(root) and os.path.exists(stamp):
        with open(stamp, encoding="utf-8") as handle:
            if json.load(handle) == recipe:
                say(f"Debian 12 root reused from {root}")
                return root
    if shutil.which("debootstrap") is None:
        say("installing debootstrap (Debian's package) with apt-get to make a clean Debian 12 root")
        lock = ["-o", "DPkg::Lock::Timeout=600"]
        run(["apt-get", *lock, "update", "-qq"])
        run(["apt-get", *lock, "install", "-y", "-qq", "debootstrap"],
            env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"}, stdout=subprocess.DEVNULL)
    partial = root + ".partial"
    shutil.rmtree(partial, ignore_errors=True)
    shutil.rmtree(root, ignore_errors=True)
    mirror = debian_mirror()
    say(f"making a Debian 12 root with the Swift image's packages in {root} (once; a few minutes)")
    cache = "/var/cache/apt/archives"
    log = os.path.join(state, "debootstrap.log")
    with open(log, "w", encoding="utf-8") as output:
        status = subprocess.run(["debootstrap", "--variant=minbase", f"--include={','.join(IMAGE_PACKAGES)}",
                                 *([f"--cache-dir={cache}"] if os.path.isdir(cache) else []),
                                 "bookworm", partial, mirror], stdout=output, stderr=subprocess.STDOUT).returncode
    if status != 0:
        subprocess.run(["tail", "-20", log])
        raise SystemExit(f"check-container: debootstrap failed ({log})")
    os.rename(partial, root)
    with open(stamp, "w", encoding="utf-8") as handle:
        json.dump(recipe, handle)
    return root


def mount_overlay(lowers, upper, target):
    """A fresh writable layer `upper` over `lowers` (first is topmost), mounted at `target` with /proc and /dev."""
    work = upper + ".work"
    for path in (upper, work, target):
        shutil.rmtree(path, ignore_errors=True)
        os.makedirs(path)
    run(["mount", "-t", "overlay", "overlay", "-o",
         f"lowerdir={':'.join(lowers)},upperdir={upper},workdir={work}", target])
    run(["mount", "-t", "proc", "proc", os.path.join(target, "proc")])
    run(["mount", "--rbind", "/dev", os.path.join(target, "dev")])


def in_root(target, workdir, command, env):
    """Runs `command` (a list) in the chroot at `target` from `workdir`; returns its exit status."""
    script = f"cd {shlex.quote(workdir)} && exec {shlex.join(command)}"
    return subprocess.run(["chroot", target, "/usr/bin/env", "-i", *[f"{k}={v}" for k, v in env.items()],
                           "/bin/sh", "-c", script]).returncode


def copy_context(target_dir, ignore_file):
    patterns = []
    if os.path.exists(ignore_file):
        with open(ignore_file, encoding="utf-8") as handle:
            patterns = [line.strip() for line in handle if line.strip() and not line.startswith("#")]
    excludes = [f"--exclude=./{p.strip('/')}" for p in patterns]
    os.makedirs(target_dir, exist_ok=True)
    pack = subprocess.Popen(["tar", "-C", REPO, *excludes, "-cf", "-", "."], stdout=subprocess.PIPE)
    run(["tar", "-C", target_dir, "-xf", "-"], stdin=pack.stdout)
    if pack.wait() != 0:
        raise SystemExit("check-container: cannot read the build context")


def exec_form(text, where):
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        value = None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise RecipeError(f"{where}: only the exec form [\"…\"] is supported")
    return value


def build(dockerfile, root, state, version):
    """Runs the recipe's steps; returns the image layer and its entrypoint, cmd and workdir."""
    image = os.path.join(state, "image")
    target = os.path.join(state, "mnt-build")
    env = {"PATH": IMAGE_PATH, "HOME": "/root", "LANG": "C.UTF-8"}
    workdir, entrypoint, cmd, based = "/", [], [], False
    for number, keyword, arguments in instructions(dockerfile):
        where = f"{os.path.relpath(dockerfile, REPO)}:{number}"
        say(f"{where}: {keyword} {arguments}")
        if keyword == "FROM":
            match = re.fullmatch(r"swift:(\d+\.\d+(?:\.\d+)?)-bookworm", arguments)
            if match is None:
                raise RecipeError(f"{where}: expected FROM swift:<version>-bookworm")
            if match.group(1) != version:
                raise RecipeError(f"{where}: the recipe names Swift {match.group(1)}, but the toolchain here "
                                  f"({TOOLCHAIN}) is Swift {version}")
            mount_overlay([TOOLCHAIN, root], image, target)
            based = True
        elif not based:
            raise RecipeError(f"{where}: {keyword} before FROM")
        elif keyword == "WORKDIR":
            workdir = os.path.join(workdir, arguments)
            os.makedirs(target + workdir, exist_ok=True)
        elif keyword == "COPY":
            if arguments != ". .":
                raise RecipeError(f"{where}: only `COPY . .` is supported")
            copy_context(target + workdir, dockerfile + ".dockerignore")
        elif keyword == "RUN":
            mounts = []
            while arguments.startswith("--mount="):
                option, _, arguments = arguments.partition(" ")
                fields = dict(f.split("=", 1) for f in option.removeprefix("--mount=").split(","))
                if fields.get("type") != "cache" or "target" not in fields:
                    raise RecipeError(f"{where}: only --mount=type=cache,target=… is supported")
                mounts.append(fields["target"])
                arguments = arguments.lstrip()
            for mount in mounts:
                cache = os.path.join(state, "cache", mount.strip("/").replace("/", "_"))
                os.makedirs(cache, exist_ok=True)
                os.makedirs(target + mount, exist_ok=True)
                run(["mount", "--bind", cache, target + mount])
            status = in_root(target, workdir, ["/bin/sh", "-c", arguments], env)
            for mount in mounts:
                run(["umount", target + mount])
            if status != 0:
                say(f"{where}: RUN failed with exit status {status}")
                return None
        elif keyword == "ENTRYPOINT":
            entrypoint = exec_form(arguments, where)
        elif keyword == "CMD":
            cmd = exec_form(arguments, where)
        else:
            raise RecipeError(f"{where}: {keyword} is not supported by this check")
    run(["umount", "-R", target])
    if not entrypoint:
        raise RecipeError("the recipe has no ENTRYPOINT")
    return image, entrypoint, cmd, workdir, env


def docker_run(root, state, built, scenarios):
    """`docker run --rm -v <scenarios' parent>:/work <image> run Scenarios --junit junit.xml`, checked."""
    image, entrypoint, cmd, workdir, env = built
    target = os.path.join(state, "mnt-run")
    mount_overlay([image, TOOLCHAIN, root], os.path.join(state, "container"), target)
    volume = os.path.join(state, "volume")
    shutil.rmtree(volume, ignore_errors=True)
    shutil.copytree(scenarios, os.path.join(volume, "Scenarios"))
    os.makedirs(target + "/work", exist_ok=True)
    run(["mount", "--bind", volume, target + "/work"])
    arguments = [*entrypoint, cmd[0], *cmd[1:], "--junit", "junit.xml"]
    say(f"docker run -v {volume}:/work: {shlex.join(arguments)}")
    status = in_root(target, workdir, arguments, env)
    run(["umount", "-R", target])
    if status != 0:
        say(f"the image's `{shlex.join(arguments)}` exited with status {status}")
        return False
    expected = sorted(os.path.relpath(os.path.join(d, n), scenarios) for d, _, names in os.walk(scenarios)
                      for n in names if n.endswith(".scenario"))
    found = sorted(os.path.relpath(c.get("file", ""), "Scenarios")
                   for c in ET.parse(os.path.join(volume, "junit.xml")).getroot().iter("testcase"))
    if found != expected:
        say(f"the image's JUnit holds {found}, expected {expected}")
        return False
    say(f"the image ran the {len(expected)} scenarios of the mounted folder; its JUnit holds each once")
    return True


def main():
    parser = argparse.ArgumentParser(description="Check Examples/CI/Dockerfile on a clean Debian 12 root.")
    parser.add_argument("--state", default=os.path.join(REPO, ".build", "ci-container"))
    parser.add_argument("--scenarios", default=os.path.join(REPO, "Examples", "Downstream", "StepsKit", "Scenarios"))
    parser.add_argument("--in-namespace", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if os.geteuid() != 0:
        say("SKIPPED: not root. Building Examples/CI/Dockerfile on a Debian root needs root (debootstrap, chroot, "
            "mounts); run `make ci-kit` as root (CI does) to check the container recipe")
        sys.exit(0)
    if not args.in_namespace:
        # Every mount lives in a private mount namespace, so none outlives the check, whatever happens to it.
        os.execvp("unshare", ["unshare", "--mount", "--propagation", "private", sys.executable,
                              os.path.abspath(__file__), "--in-namespace", "--state", args.state,
                              "--scenarios", args.scenarios])
    if TOOLCHAIN is None:
        print("check-container: error: no Swift toolchain in a folder of its own (its usr/ under, e.g., /opt/swift) "
              "on PATH to lay over the Debian root", file=sys.stderr)
        sys.exit(2)
    state = os.path.abspath(args.state)
    os.makedirs(state, exist_ok=True)
    try:
        version = toolchain_version()
        root = base_root(state)
        built = build(os.path.join(HERE, "Dockerfile"), root, state, version)
    except RecipeError as error:
        print(f"check-container: error: {error}", file=sys.stderr)
        sys.exit(2)
    if built is None or not docker_run(root, state, built, os.path.abspath(args.scenarios)):
        sys.exit(1)
    say("passed")


if __name__ == "__main__":
    main()
