#!/usr/bin/env python3
# Checks the Flatpak manifest as far as a machine without the GNOME runtime
# can: it parses, it builds what it should from pinned sources, and its
# sandbox permissions are exactly the reviewed set (see docs/packaging.md, "Flatpak").
#
# Usage: check-manifest.py MANIFEST.json [--app-id ID] [--self-test]
# When flatpak-builder is installed, its own parser reads the manifest too
# (--show-manifest needs no runtime) and any property or source type it
# does not know fails the check.  --self-test breaks the manifest in known
# ways and checks that each break is caught, so a checker that accepts
# everything cannot pass.

import argparse
import copy
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

APP_ID = "io.github.rdmatop.Rdmatop"

# Every permission and why it is needed.  Change this set only together with
# the Flatpak section of docs/packaging.md.
EXPECTED_FINISH_ARGS = {
    # Host network namespace: RDMA netlink monitor events are multicast in
    # the device's namespace, and ssh -X gives a TCP X11 display.
    "--share=network",
    # X11 shared memory; without it X11 clients are slow or fail.
    "--share=ipc",
    "--socket=wayland",
    # X11 only where Wayland is not available (ssh -X, X sessions).
    "--socket=fallback-x11",
    # GPU rendering for the charts.
    "--device=dri",
    # The one folder recordings go to by default: the GUI's recordings-folder
    # setting is empty = ~/Documents/rdmatop, and rdmatop-cli record --output
    # can write there too.  Another folder picked in the GUI comes through
    # the file chooser portal and needs no permission.
    "--filesystem=xdg-documents/rdmatop:create",
    # Remote hosts: the runtime's own ssh reads the user's ssh configuration,
    # keys and known hosts (read only) and talks to their agent.
    "--filesystem=~/.ssh:ro",
    "--socket=ssh-auth",
}

# Broad permissions that must never appear, even if someone also edits
# EXPECTED_FINISH_ARGS by mistake.
FORBIDDEN_PATTERNS = [
    r"^--filesystem=(host|host-os|host-etc|home|/)(:.*)?$",
    r"^--device=all$",
    r"^--socket=(x11|session-bus|system-bus)$",
    r"^--talk-name=org\.freedesktop\.Flatpak$",
    r"^--own-name=",
    r"^--allow=",
]

HEX64 = re.compile(r"^[0-9a-f]{64}$")
HEX40 = re.compile(r"^[0-9a-f]{40}$")
CHECKSUMMED_TYPES = {"archive", "file"}
KNOWN_TYPES = CHECKSUMMED_TYPES | {"git", "dir", "patch", "shell"}


def check_source(module, index, src, errors):
    where = "module %s, source %d" % (module, index)
    kind = src.get("type")
    if kind not in KNOWN_TYPES:
        errors.append("%s: unknown source type %r" % (where, kind))
        return
    if kind in CHECKSUMMED_TYPES:
        if not str(src.get("url", "")).startswith("https://"):
            errors.append("%s: url must be https" % where)
        if not HEX64.match(str(src.get("sha256", ""))):
            errors.append("%s: needs a sha256 (64 lower-case hex digits)" % where)
    elif kind == "git":
        if not HEX40.match(str(src.get("commit", ""))):
            errors.append("%s: a git source must pin a commit" % where)
    elif kind == "dir":
        if module != "rdmatop":
            errors.append("%s: only rdmatop itself may come from a local dir" % where)
    elif kind == "patch" and not src.get("path"):
        errors.append("%s: a patch must be a file in the repository" % where)


def check_modules(modules, errors):
    if not isinstance(modules, list) or not modules:
        errors.append("modules: must be a non-empty list")
        return
    names = []
    for mod in modules:
        if not isinstance(mod, dict):
            errors.append("modules: a module must be an object, not a file include")
            continue
        name = mod.get("name", "?")
        names.append(name)
        sources = mod.get("sources")
        if not isinstance(sources, list) or not sources:
            errors.append("module %s: has no sources" % name)
            continue
        for i, src in enumerate(sources):
            check_source(name, i, src, errors)
    if "libmnl" not in names:
        errors.append("modules: libmnl must be built from source")
    if not names or names[-1] != "rdmatop":
        errors.append("modules: rdmatop must be the last module")
        return
    app = modules[-1]
    if app.get("buildsystem") != "meson":
        errors.append("module rdmatop: buildsystem must be meson")
    if "-Dgui=enabled" not in app.get("config-opts", []):
        errors.append("module rdmatop: config-opts must contain -Dgui=enabled")


def check_finish_args(args, errors):
    if not isinstance(args, list):
        errors.append("finish-args: must be a list")
        return
    if len(args) != len(set(args)):
        errors.append("finish-args: duplicates")
    for arg in args:
        for pattern in FORBIDDEN_PATTERNS:
            if re.match(pattern, arg):
                errors.append("finish-args: %s is too broad" % arg)
    got = set(args)
    for arg in sorted(got - EXPECTED_FINISH_ARGS):
        errors.append("finish-args: unexpected %s" % arg)
    for arg in sorted(EXPECTED_FINISH_ARGS - got):
        errors.append("finish-args: missing %s" % arg)


def check_manifest(manifest, app_id):
    errors = []
    if not isinstance(manifest, dict):
        return ["the manifest must be a JSON object"]
    # flatpak-builder spells the id "id" when it prints a manifest.
    if "id" in manifest and "app-id" not in manifest:
        manifest = dict(manifest, **{"app-id": manifest["id"]})
    expect = {
        "app-id": app_id,
        "runtime": "org.gnome.Platform",
        "sdk": "org.gnome.Sdk",
        "command": "rdmatop",
    }
    for key, value in expect.items():
        if manifest.get(key) != value:
            errors.append("%s: expected %r, found %r" % (key, value, manifest.get(key)))
    if not re.match(r"^[0-9]+$", str(manifest.get("runtime-version", ""))):
        errors.append("runtime-version: must be a stable GNOME release such as \"49\"")
    check_finish_args(manifest.get("finish-args"), errors)
    check_modules(manifest.get("modules"), errors)
    return errors


def flatpak_builder_reading(path):
    """Returns (manifest as flatpak-builder reads it, complaints), or
    (None, []) when flatpak-builder is not installed."""
    if not shutil.which("flatpak-builder"):
        return None, []
    # It leaves a .flatpak-builder state folder in its working directory.
    with tempfile.TemporaryDirectory(prefix="rdmatop-flatpak-") as scratch:
        proc = subprocess.run(["flatpak-builder", "--show-manifest", os.path.abspath(path)],
                              capture_output=True, text=True, timeout=60, cwd=scratch)
    complaints = [ln.strip() for ln in proc.stderr.splitlines()
                  if "WARNING" in ln or "CRITICAL" in ln or "error" in ln.lower()]
    if proc.returncode != 0:
        complaints.append("flatpak-builder --show-manifest exited with %d" % proc.returncode)
    try:
        return json.loads(proc.stdout), complaints
    except ValueError:
        return None, complaints + ["flatpak-builder printed no manifest"]


def mutations():
    """Each yields (description, function that breaks a manifest in place)."""
    def drop_sha(m):
        del m["modules"][0]["sources"][0]["sha256"]

    def bad_sha(m):
        m["modules"][0]["sources"][0]["sha256"] = "0" * 63

    def add(arg):
        return lambda m: m["finish-args"].append(arg)

    def remove(arg):
        return lambda m: m["finish-args"].remove(arg)

    def unpinned_git(m):
        m["modules"][0]["sources"][0] = {"type": "git", "url": "https://example.invalid/x.git"}

    def no_libmnl(m):
        del m["modules"][0]

    def wrong_runtime(m):
        m["runtime"] = "org.freedesktop.Platform"

    def wrong_id(m):
        m["app-id"] = "org.example.Rdmatop"

    yield "archive without sha256", drop_sha
    yield "malformed sha256", bad_sha
    yield "--filesystem=host", add("--filesystem=host")
    yield "--filesystem=home", add("--filesystem=home")
    yield "all of xdg-documents", add("--filesystem=xdg-documents")
    yield "--device=all", add("--device=all")
    yield "--socket=x11", add("--socket=x11")
    yield "flatpak-spawn --host by default", add("--talk-name=org.freedesktop.Flatpak")
    yield "missing --share=network", remove("--share=network")
    yield "duplicate permission", add("--device=dri")
    yield "unpinned git source", unpinned_git
    yield "libmnl not built", no_libmnl
    yield "wrong runtime", wrong_runtime
    yield "wrong app id", wrong_id


def self_test(manifest, app_id):
    failures = 0
    for what, breaker in mutations():
        broken = copy.deepcopy(manifest)
        breaker(broken)
        caught = check_manifest(broken, app_id)
        print("%s - self-test: %s is rejected%s" %
              ("ok" if caught else "not ok", what, (": " + caught[0]) if caught else ""))
        failures += 0 if caught else 1
    return failures


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("manifest")
    parser.add_argument("--app-id", default=APP_ID)
    parser.add_argument("--self-test", action="store_true")
    opts = parser.parse_args()

    try:
        with open(opts.manifest, encoding="utf-8") as f:
            manifest = json.load(f)
    except (OSError, ValueError) as e:
        print("not ok - %s does not parse: %s" % (opts.manifest, e))
        return 1

    errors = check_manifest(manifest, opts.app_id)
    parsed, complaints = flatpak_builder_reading(opts.manifest)
    if parsed is None and not complaints:
        print("ok # SKIP flatpak-builder is not installed: only this script read the manifest")
    else:
        errors += ["flatpak-builder: %s" % c for c in complaints]
        if parsed is not None:
            errors += ["as flatpak-builder reads it: %s" % e
                       for e in check_manifest(parsed, opts.app_id)]
        if not complaints:
            print("ok - flatpak-builder --show-manifest reads it without complaint")
    for err in errors:
        print("not ok - %s" % err)
    if errors:
        return 1
    print("ok - %s: app id, runtime, sources and %d finish-args as expected" %
          (opts.manifest, len(manifest["finish-args"])))
    if opts.self_test:
        return 1 if self_test(manifest, opts.app_id) else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
