#!/usr/bin/env python3
# Mutation check of the core's unit tests: do they fail when the product is
# wrong?  Each mutant of mutants.txt is a small bug (a comparison flipped, a
# bound off by one, a guard dropped) in the rates, health, text, stream
# decoder or OpenMetrics code.  In a scratch copy of the tree, never in the
# tree itself, this builds once (no GUI, no VM tests), then for each mutant
# applies it, rebuilds (ninja compiles only the changed file), runs the unit
# suite and puts the file back.  A mutant is
#   killed    when a unit test fails (or times out),
#   survived  when every unit test passes,
#   invalid   when it does not compile (a mistake in the list, not a kill).
# Before any mutant the unmutated copy must build and pass, or nothing can
# be judged.  The unit tests that exercise the mutated file run first; the
# rest of the suite runs only when they pass, so most mutants cost seconds.
#
# Prints a table and ends with the line
#   mutants: N killed, N survived, N invalid (K% killed)
# where K is the share of the valid mutants that were killed.  A mutant
# whose record says why it is equivalent (it cannot change behaviour) is
# expected to survive.  Exit status: 0 when every survivor is such an
# expected one and none is invalid, 1 otherwise, 2 when the list is broken
# or the unmutated tree fails its tests.
#
# Usage: run-mutants.py [--only ID,...] [--sample N] [--jobs N] [--keep]
#                       [--scratch DIR] [--source-root DIR] [--mutants FILE]
#        run-mutants.py --list      (the mutants, where they apply)
#        run-mutants.py --self-test (every snippet found exactly once, TAP)

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
FIELDS = ("id", "file", "what", "equivalent")
ID_RE = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")

# The unit tests written for each mutated file: they run first.
FIRST_TESTS = {
    "src/sample/rtop-rates.c": ["test-rates"],
    "src/sample/rtop-health.c": ["test-health"],
    "src/sample/rtop-health-rules.c": ["test-health"],
    "src/model/rtop-text.c": ["test-text"],
    "src/sources/rtop-stream-decoder.c": ["test-stream"],
    "src/sources/rtop-stream-wire.h": ["test-stream"],
    "src/export/rtop-openmetrics.c": ["test-openmetrics"],
    "src/export/rtop-openmetrics-totals.c": ["test-openmetrics"],
}

# Far more than the whole unit suite takes, so that only a hang ends here
# (each test has its own, shorter, meson timeout).
SUITE_TIMEOUT_S = 1800


class Mutant:
    def __init__(self, where):
        self.where = where           # "mutants.txt:LINE" of its first line
        self.id = self.file = self.what = self.equivalent = None
        self.old_lines = []
        self.new_lines = []

    @property
    def old(self):
        return "\n".join(self.old_lines)

    @property
    def new(self):
        return "\n".join(self.new_lines)


def parse_list(path):
    """The mutants of the list at path, and the problems in its form."""
    mutants, problems = [], []
    name = os.path.basename(path)
    current = None
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    for number, line in enumerate(lines, 1):
        if line.startswith("#"):
            continue
        if line.strip() == "":
            current = None
            continue
        if current is None:
            current = Mutant(f"{name}:{number}")
            mutants.append(current)
        if line == "-" or line.startswith("- "):
            current.old_lines.append(line[2:])
        elif line == "+" or line.startswith("+ "):
            current.new_lines.append(line[2:])
        else:
            key, sep, value = line.partition(": ")
            if not sep or key not in FIELDS:
                problems.append(f"{name}:{number}: not a field, a '- ' or a '+ ' line: {line!r}")
            elif getattr(current, key) is not None:
                problems.append(f"{name}:{number}: {key} given twice")
            else:
                setattr(current, key, value.strip())
    return mutants, problems


def check_mutant(m, root, seen):
    """What is wrong with one mutant against the tree at root, if anything."""
    if not m.id or not ID_RE.match(m.id):
        return f"{m.where}: the id {m.id!r} is missing or not of letters, digits and dashes"
    if m.id in seen:
        return f"{m.where}: the id {m.id} is used twice"
    seen.add(m.id)
    if not m.file or not m.what:
        return f"{m.where}: {m.id} needs a file and a what"
    if not m.old_lines:
        return f"{m.where}: {m.id} has no '- ' line to replace"
    if m.old == m.new:
        return f"{m.where}: {m.id} replaces its text with the same text"
    path = os.path.join(root, m.file)
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        return f"{m.where}: {m.id}: cannot read {m.file}: {e.strerror}"
    count = text.count(m.old)
    if count != 1:
        return f"{m.where}: {m.id}: its text occurs {count} times in {m.file}, not once"
    return None


def check_list(mutants, root):
    seen = set()
    return [(m, check_mutant(m, root, seen)) for m in mutants]


def self_test(mutants, form_problems, root):
    """TAP: the list's form, then each mutant against the tree."""
    results = check_list(mutants, root)
    print(f"1..{len(results) + 1}")
    for p in form_problems:
        print(f"# {p}")
    print(("not ok" if form_problems else "ok") + " 1 - the list's form")
    failed = bool(form_problems)
    for n, (m, problem) in enumerate(results, 2):
        if problem:
            failed = True
            print(f"not ok {n} - {m.id or m.where}")
            print(f"# {problem}")
        else:
            print(f"ok {n} - {m.id}")
    files = {m.file for m in mutants}
    print(f"# {len(mutants)} mutants over {len(files)} files")
    return 1 if failed else 0


def line_of(root, m):
    try:
        with open(os.path.join(root, m.file), encoding="utf-8") as f:
            text = f.read()
    except OSError:
        return "?"
    at = text.find(m.old)
    return str(text.count("\n", 0, at) + 1) if at >= 0 else "?"


def print_list(mutants, root):
    for m in mutants:
        print(f"{m.id}  {m.file}:{line_of(root, m)}")
        print(f"    {m.what}")
        if m.equivalent:
            print(f"    equivalent: {m.equivalent}")
        for line in m.old_lines:
            print(f"    - {line.strip()}")
        for line in m.new_lines:
            print(f"    + {line.strip()}")


def sample(mutants, n):
    """A fixed sample of n mutants, spread over the files: the files in
    turn, each file's mutants in the order of a hash of their ids.  Those
    known to be equivalent are left out: their surviving says nothing."""
    def digest(s):
        return hashlib.sha256(s.encode()).hexdigest()

    by_file = {}
    for m in mutants:
        if not m.equivalent:
            by_file.setdefault(m.file, []).append(m)
    queues = [sorted(by_file[f], key=lambda m: digest(m.id)) for f in sorted(by_file, key=digest)]
    chosen = []
    while len(chosen) < n and any(queues):
        for q in queues:
            if q and len(chosen) < n:
                chosen.append(q.pop(0))
    return chosen


# ---- The scratch copy ----

def overlaps(a, b):
    """Whether one of the folders a and b is, or is inside, the other."""
    a, b = os.path.realpath(a), os.path.realpath(b)
    return a == b or a.startswith(b + os.sep) or b.startswith(a + os.sep)


def git_files(root, *which):
    out = subprocess.run(["git", "-C", root, "ls-files", "-z"] + list(which),
                         check=True, capture_output=True).stdout
    return [p for p in out.decode("utf-8", "surrogateescape").split("\0") if p]


def in_build_dir(root, rel, seen):
    """Whether rel is inside a meson build directory of the tree (one that
    .gitignore does not name)."""
    d = os.path.dirname(rel)
    while d:
        if d not in seen:
            seen[d] = os.path.exists(os.path.join(root, d, "meson-private"))
        if seen[d]:
            return True
        d = os.path.dirname(d)
    return False


def tree_files(root):
    """The tree's files, relative to root: what git tracks and what it does
    not ignore (a new test not yet committed), or, outside a git checkout,
    everything but .git; never a build directory's files."""
    seen = {}
    try:
        tracked = git_files(root, "--cached")
        untracked = git_files(root, "--others", "--exclude-standard")
        return tracked + [p for p in untracked if not in_build_dir(root, p, seen)]
    except (OSError, subprocess.CalledProcessError):
        files = []
        for d, dirs, names in os.walk(root):
            dirs[:] = [x for x in dirs if x != ".git"
                       and not os.path.exists(os.path.join(d, x, "meson-private"))]
            files += [os.path.relpath(os.path.join(d, x), root) for x in names]
        return files


def sync_tree(root, scratch):
    """Copies the tree into scratch, leaving alone the files that are the
    same already (so a kept build there is reused).  A copied file gets a
    new time, so ninja rebuilds from it."""
    copied = 0
    for rel in tree_files(root):
        src, dst = os.path.join(root, rel), os.path.join(scratch, rel)
        if os.path.islink(src):
            if os.path.lexists(dst) and os.path.islink(dst) and os.readlink(dst) == os.readlink(src):
                continue
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            if os.path.lexists(dst):
                os.remove(dst)
            os.symlink(os.readlink(src), dst)
            copied += 1
            continue
        if not os.path.isfile(src):
            continue                  # deleted but still tracked, or a submodule
        with open(src, "rb") as f:
            data = f.read()
        if os.path.isfile(dst) and not os.path.islink(dst):
            with open(dst, "rb") as f:
                if f.read() == data:
                    continue
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        if os.path.lexists(dst):
            os.remove(dst)
        with open(dst, "wb") as f:
            f.write(data)
        shutil.copymode(src, dst)
        copied += 1
    return copied


def run(cmd, log, timeout=None):
    """Runs cmd with its output appended to the file log; its exit status,
    or None when it ran out of time."""
    with open(log, "a") as out:
        out.write("$ " + " ".join(cmd) + "\n")
        out.flush()
        try:
            return subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                  timeout=timeout).returncode
        except subprocess.TimeoutExpired:
            out.write(f"(stopped after {timeout} s)\n")
            return None


def build_source(build):
    """The source folder a meson build folder was set up from."""
    try:
        with open(os.path.join(build, "meson-info", "meson-info.json")) as f:
            return json.load(f)["directories"]["source"]
    except (OSError, ValueError, KeyError):
        return None


def setup_build(scratch, build, log):
    """Sets up the build of the scratch copy; whether it is one."""
    options = ["-Dgui=disabled", "-Dvm_tests=false"]
    if os.path.exists(os.path.join(build, "build.ninja")):
        ok = run(["meson", "setup", "--reconfigure", build, scratch] + options, log) == 0
    else:
        ok = run(["meson", "setup", build, scratch] + options, log) == 0
    # The mutants are applied to the scratch copy: a build of any other
    # tree would test that tree, unmutated, and every mutant would survive.
    source = build_source(build)
    if ok and (source is None or os.path.realpath(source) != os.path.realpath(scratch)):
        with open(log, "a") as out:
            out.write(f"the build is of {source}, not of the scratch copy {scratch}\n")
        return False
    return ok


def unit_tests(build):
    """The names of the unit suite's tests, in their order."""
    out = subprocess.run(["meson", "introspect", "--tests", build],
                         check=True, capture_output=True, text=True).stdout
    names = []
    for t in json.loads(out):
        if any(s == "unit" or s.endswith(":unit") for s in t["suite"]) and t["name"] not in names:
            names.append(t["name"])
    return names


def failed_tests(build, names, jobs, log):
    """Runs the unit tests named; the names of those that did not pass."""
    testlog = os.path.join(build, "meson-logs", "testlog.json")
    if os.path.exists(testlog):
        os.remove(testlog)
    status = run(["meson", "test", "-C", build, "--no-rebuild", "--suite", "unit",
                  "--num-processes", str(jobs)] + names, log, timeout=SUITE_TIMEOUT_S)
    failed = []
    try:
        with open(testlog) as f:
            for line in f:
                t = json.loads(line)
                if t.get("result") not in ("OK", "SKIP", "EXPECTEDFAIL"):
                    # "project:suite / name" in the log: the name alone.
                    failed.append(t.get("name", "?").split(" / ")[-1])
    except (OSError, ValueError):
        pass
    if status != 0 and not failed:
        failed.append("meson test" if status is not None else "meson test (hung)")
    return failed


def first_error(log):
    """The compiler's first error in log, for the table."""
    with open(log, errors="replace") as f:
        for line in f:
            if "error:" in line:
                return line.strip()[-120:]
    return "the build failed"


class Result:
    def __init__(self, mutant, outcome, note, seconds):
        self.mutant, self.outcome, self.note, self.seconds = mutant, outcome, note, seconds


def run_mutant(m, scratch, build, tests, jobs, logs):
    start = time.monotonic()
    path = os.path.join(scratch, m.file)
    log = os.path.join(logs, m.id + ".log")
    if os.path.exists(log):
        os.remove(log)
    with open(path, "rb") as f:
        original = f.read()
    text = original.decode("utf-8")
    if text.count(m.old) != 1:
        return Result(m, "invalid", f"its text occurs {text.count(m.old)} times", 0)
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text.replace(m.old, m.new))
        if run(["ninja", "-C", build, f"-j{jobs}"], log) != 0:
            return Result(m, "invalid", first_error(log), time.monotonic() - start)
        first = [t for t in FIRST_TESTS.get(m.file, []) if t in tests]
        failed = failed_tests(build, first, jobs, log) if first else []
        if not failed:
            failed = failed_tests(build, [t for t in tests if t not in first], jobs, log)
        if failed:
            return Result(m, "killed", "by " + ", ".join(failed), time.monotonic() - start)
        note = "equivalent: " + m.equivalent if m.equivalent else "every unit test passed"
        return Result(m, "survived", note, time.monotonic() - start)
    finally:
        # A new time on the file, so the next build compiles it again.
        with open(path, "wb") as f:
            f.write(original)


def print_table(results):
    width = max([len(r.mutant.id) for r in results] + [6])
    print()
    print(f"{'mutant':<{width}}  {'file':<32}  {'result':<8}  note")
    for r in results:
        print(f"{r.mutant.id:<{width}}  {os.path.basename(r.mutant.file):<32}  {r.outcome:<8}  {r.note}")
    survivors = [r for r in results if r.outcome == "survived"]
    if survivors:
        print()
        print("survivors:")
        for r in survivors:
            tag = "equivalent" if r.mutant.equivalent else "NOT KILLED"
            print(f"  {r.mutant.id} ({tag}): {r.mutant.what}")
            if r.mutant.equivalent:
                print(f"      {r.mutant.equivalent}")
    invalid = [r for r in results if r.outcome == "invalid"]
    if invalid:
        print()
        print("invalid (they do not compile; fix the list):")
        for r in invalid:
            print(f"  {r.mutant.id}: {r.note}")


def summary(results):
    killed = sum(r.outcome == "killed" for r in results)
    survived = sum(r.outcome == "survived" for r in results)
    invalid = sum(r.outcome == "invalid" for r in results)
    share = 100.0 * killed / (killed + survived) if killed + survived else 100.0
    return f"mutants: {killed} killed, {survived} survived, {invalid} invalid ({share:.0f}% killed)"


def main():
    parser = argparse.ArgumentParser(description="Mutation check of the core's unit tests.")
    parser.add_argument("--source-root", default=os.path.dirname(os.path.dirname(HERE)),
                        help="the tree to copy (default: the one this script is in)")
    parser.add_argument("--mutants", default=os.path.join(HERE, "mutants.txt"),
                        help="the list of mutants (default: mutants.txt beside this script)")
    parser.add_argument("--list", action="store_true", help="print the mutants and stop")
    parser.add_argument("--self-test", action="store_true",
                        help="check that every mutant's text occurs exactly once (TAP, no build)")
    parser.add_argument("--only", help="run only these mutants (ids, separated by commas)")
    parser.add_argument("--sample", type=int, metavar="N",
                        help="run a fixed sample of N mutants, spread over the files")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                        help="parallel compile and test jobs (default: the CPUs)")
    parser.add_argument("--keep", action="store_true", help="keep the scratch copy and its logs")
    parser.add_argument("--scratch", metavar="DIR",
                        help="the scratch copy to use and keep (a build there is reused)")
    args = parser.parse_args()

    root = os.path.abspath(args.source_root)
    mutants, form_problems = parse_list(args.mutants)
    if args.self_test:
        return self_test(mutants, form_problems, root)
    problems = form_problems + [p for _, p in check_list(mutants, root) if p]
    if problems:
        for p in problems:
            print(p, file=sys.stderr)
        print("run-mutants.py: the list does not fit the tree; fix it first", file=sys.stderr)
        return 2
    if args.only:
        wanted = [w for w in args.only.split(",") if w]
        known = {m.id for m in mutants}
        unknown = [w for w in wanted if w not in known]
        if unknown:
            print("run-mutants.py: no such mutant: " + ", ".join(unknown), file=sys.stderr)
            return 2
        mutants = [m for m in mutants if m.id in wanted]
    if args.sample is not None:
        mutants = sample(mutants, args.sample)
    if args.list:
        print_list(mutants, root)
        return 0

    jobs = max(1, args.jobs)
    if args.scratch:
        scratch = os.path.abspath(args.scratch)
        os.makedirs(scratch, exist_ok=True)
    else:
        scratch = tempfile.mkdtemp(prefix="rdmatop-mutants-")
    if overlaps(scratch, root):
        print(f"run-mutants.py: the scratch copy {scratch} must be outside the tree {root}",
              file=sys.stderr)
        return 2
    build = os.path.join(scratch, "build")
    logs = os.path.join(scratch, "logs")
    os.makedirs(logs, exist_ok=True)
    keep = args.keep or args.scratch
    status = 2
    try:
        print(f"scratch copy: {scratch}", flush=True)
        sync_tree(root, scratch)
        log = os.path.join(logs, "baseline.log")
        if os.path.exists(log):
            os.remove(log)
        if not setup_build(scratch, build, log) or run(["ninja", "-C", build, f"-j{jobs}"], log) != 0:
            print(f"run-mutants.py: the unmutated copy does not build (see {log})", file=sys.stderr)
            keep = True
            return 2
        tests = unit_tests(build)
        failed = failed_tests(build, tests, jobs, log)
        if failed:
            print("run-mutants.py: the unmutated copy fails " + ", ".join(failed) +
                  f"; no mutant can be judged (see {log})", file=sys.stderr)
            keep = True
            return 2
        print(f"baseline: {len(tests)} unit tests pass; {len(mutants)} mutants", flush=True)

        results = []
        for n, m in enumerate(mutants, 1):
            r = run_mutant(m, scratch, build, tests, jobs, logs)
            results.append(r)
            print(f"[{n:3}/{len(mutants)}] {m.id:<36} {r.outcome:<8} {r.seconds:6.1f} s  {r.note}",
                  flush=True)
        print_table(results)
        print(summary(results))
        unexpected = [r for r in results if r.outcome == "invalid" or
                      (r.outcome == "survived" and not r.mutant.equivalent)]
        status = 1 if unexpected else 0
        return status
    finally:
        if keep:
            print(f"scratch copy kept: {scratch}", file=sys.stderr)
        else:
            shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
