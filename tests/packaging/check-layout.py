#!/usr/bin/env python3
# Checks that the tree keeps the shape DESIGN.md draws (suite 'data', TAP):
#  1. every folder under src/ includes only from folders below it in the
#     layer order (LAYERS), or from itself;
#  2. no two modules (a .c with its .h and -private.h; rtop-foo-*.c split
#     from rtop-foo.c count as one) include each other, directly or round a
#     longer loop;
#  3. a -private.h is included only by its own module's files (rtop-foo.c,
#     rtop-foo-*.c for rtop-foo-private.h) and by tests;
#  4. no .c file under src/ is over MAX_C_LINES lines, and no folder holds
#     more than MAX_FOLDER_FILES files.
# Usage: check-layout.py SOURCE_ROOT | check-layout.py --self-test
import os
import re
import sys
import tempfile

MAX_C_LINES = 1000
MAX_FOLDER_FILES = 30

# Layers, bottom up: a folder may include from a folder of a lower rank.
# Folders of one rank are independent of each other.
LAYERS = {
    "src/model": 0,
    "src/kernel": 1, "src/gpu": 1, "src/formats": 1,
    "src/sample": 2, "src/record": 2,
    "src/sources": 3, "src/export": 3,
    "src/lib": 4, "src/cli": 4,
    "src/app/remote": 5,
    "src/app/models": 6,
    "src/app/widgets": 7,
    "src/app/sections": 8,
    "src/app/jobs": 9,
    "src/app": 10,
}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def folder_of(rel):
    d = os.path.dirname(rel)
    while d and d not in LAYERS:
        d = os.path.dirname(d)
    return d or None


def module_of(name):
    stem = re.sub(r"\.(c|h)$", "", name)
    return re.sub(r"-private$", "", stem)


def same_family(a, b):
    """rtop-foo and rtop-foo-bar: one class split along its seams
    (rtop-window.c, rtop-window-actions.c), sharing private headers."""
    return a == b or a.startswith(b + "-") or b.startswith(a + "-")


def scan(root):
    """(rel path -> [included basenames]), (header basename -> rel path)."""
    files, headers = {}, {}
    for d, _, names in os.walk(os.path.join(root, "src")):
        for n in names:
            if not n.endswith((".c", ".h")):
                continue
            rel = os.path.relpath(os.path.join(d, n), root)
            with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
                text = f.read()
            files[rel] = text
            if n.endswith(".h") and "/uapi/" not in rel:
                headers[n] = rel
    return files, headers


def check(root):
    files, headers = scan(root)
    problems = {"layers": [], "loops": [], "private": [], "sizes": []}

    edges = {}
    for rel, text in sorted(files.items()):
        src_folder = folder_of(rel)
        for inc in INCLUDE.findall(text):
            target = headers.get(os.path.basename(inc))
            if target is None:
                continue
            dst_folder = folder_of(target)
            if src_folder in LAYERS and dst_folder in LAYERS and src_folder != dst_folder \
                    and LAYERS[dst_folder] >= LAYERS[src_folder]:
                problems["layers"].append(f"{rel} includes {target}: {dst_folder} is not "
                                          f"below {src_folder}")
            base = os.path.basename(inc)
            if base.endswith("-private.h"):
                own = module_of(base)
                if not same_family(own, module_of(os.path.basename(rel))):
                    problems["private"].append(f"{rel} includes {base}, private to {own}.c")
            a, b = module_of(os.path.basename(rel)), module_of(os.path.basename(target))
            if not same_family(a, b):
                edges.setdefault(a, set()).add(b)

    # Loops: strongly connected components of more than one module (Tarjan).
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    problems["loops"] = ["modules that include each other: " + ", ".join(c) for c in out]

    counts = {}
    for rel, text in files.items():
        if rel.endswith(".c") and text.count("\n") > MAX_C_LINES:
            problems["sizes"].append(f"{rel} has {text.count(chr(10))} lines (at most {MAX_C_LINES})")
    for d, dirs, names in os.walk(os.path.join(root, "src")):
        n = len(names) + len(dirs)
        if n > MAX_FOLDER_FILES:
            counts[os.path.relpath(d, root)] = n
    problems["sizes"] += [f"{d} holds {n} entries (at most {MAX_FOLDER_FILES})"
                          for d, n in sorted(counts.items())]
    return problems, len(files)


def report(problems, n_files):
    n = 0
    ok = True
    titles = {
        "layers": "every folder includes only from the layers below it",
        "loops": "no modules include each other in a loop",
        "private": "private headers are included only by their own module (and tests)",
        "sizes": f"no .c over {MAX_C_LINES} lines, no folder over {MAX_FOLDER_FILES} entries",
    }
    for key, title in titles.items():
        n += 1
        if problems[key]:
            ok = False
            print(f"not ok {n} - {title}")
            for p in problems[key]:
                print(f"# {p}")
        else:
            print(f"ok {n} - {title} ({n_files} files)")
    print(f"1..{n}")
    return ok


def self_test():
    tree = {
        "src/model/rtop-a.h": "",
        "src/model/rtop-a.c": '#include "rtop-a.h"\n#include "rtop-b.h"\n',
        "src/kernel/rtop-b.h": '#include "rtop-a.h"\n',
        "src/kernel/rtop-b.c": '#include "rtop-b.h"\n#include "rtop-c-private.h"\n',
        "src/kernel/rtop-c-private.h": "",
        "src/kernel/rtop-c.c": '#include "rtop-c-private.h"\n' + "x\n" * (MAX_C_LINES + 1),
    }
    with tempfile.TemporaryDirectory() as root:
        for rel, text in tree.items():
            os.makedirs(os.path.dirname(os.path.join(root, rel)), exist_ok=True)
            with open(os.path.join(root, rel), "w") as f:
                f.write(text)
        problems, _ = check(root)
    want = {
        "layers": ["src/model/rtop-a.c includes src/kernel/rtop-b.h: src/kernel is not below "
                   "src/model"],
        "loops": ["modules that include each other: rtop-a, rtop-b"],
        "private": ["src/kernel/rtop-b.c includes rtop-c-private.h, private to rtop-c.c"],
        "sizes": [f"src/kernel/rtop-c.c has {MAX_C_LINES + 2} lines (at most {MAX_C_LINES})"],
    }
    good = problems == want
    print(("ok" if good else "not ok") + " 1 - the checks find a planted layer break, loop, "
          "private include and oversized file")
    if not good:
        print(f"# got {problems}")
    print("1..1")
    return good


def main():
    if sys.argv[1:] == ["--self-test"]:
        return 0 if self_test() else 1
    if len(sys.argv) != 2:
        print("usage: check-layout.py SOURCE_ROOT | --self-test", file=sys.stderr)
        return 2
    problems, n = check(sys.argv[1])
    return 0 if report(problems, n) else 1


if __name__ == "__main__":
    sys.exit(main())
