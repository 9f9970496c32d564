#!/usr/bin/env python3
# Checks that every function a public header under src/ declares is used
# (suite 'data').  A header is public unless its name ends in "-private.h";
# a private header is for a file's own internals and the tests.  For each
# function declared in a public header of the checked folders:
#  - no use anywhere but its own .c file and header: "unused" (remove it);
#  - used only by tests/ besides its own file: "test-only" (move it to a
#    "-private.h" header the .c file and the tests include).
# A use is the name as a word in code (comments and strings do not count),
# a use of a macro of its header that expands to it (RTOP_ERROR), or
# g_autoptr() of a type whose cleanup function the header names.
#
# Usage: check-exports.py SOURCE_ROOT [--scope DIR]...   (TAP)
#   --scope: folders under SOURCE_ROOT whose headers are checked (default
#   src); uses are looked for in all of src/ and tests/ either way.
#        check-exports.py --self-test   (the checker on a small made-up tree)

import argparse
import os
import re
import sys

DECL = re.compile(r"^(?!static\b|typedef\b|extern\b)[A-Za-z_][\w \t\*]*?\b(rtop_\w+)\s*\(", re.M)
AUTOPTR = re.compile(r"G_DEFINE_AUTOPTR_CLEANUP_FUNC\s*\(\s*(\w+)\s*,\s*(\w+)\s*\)")
MACRO = re.compile(r"^#\s*define\s+(\w+)(.*)$", re.M)


def strip_code(text):
    """Text with comments, string and character literals blanked."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append("\n" * text.count("\n", i, end))
            i = end
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def source_files(root, folder):
    for base, _dirs, files in os.walk(os.path.join(root, folder)):
        for name in sorted(files):
            if name.endswith((".c", ".h")):
                yield os.path.relpath(os.path.join(base, name), root)


def declarations(code):
    """Names declared as functions at the top level of a header."""
    names, depth = [], 0
    for line in code.splitlines():
        if depth == 0 and not line.startswith(("#", " ", "\t")):
            m = DECL.match(line)
            if m:
                names.append(m.group(1))
        depth += line.count("{") - line.count("}")
    return names


def check(root, scopes):
    """The problems found, as sentences."""
    code = {}
    for folder in ("src", "tests"):
        for path in source_files(root, folder):
            with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
                code[path] = strip_code(f.read())

    problems, checked = [], 0
    for header in sorted(code):
        if not header.endswith(".h") or header.endswith("-private.h"):
            continue
        if not any(header == s or header.startswith(s + "/") for s in scopes):
            continue
        cleanup_types = {func: typ for typ, func in AUTOPTR.findall(code[header])}
        macros = MACRO.findall(code[header])
        stem = header[:-2]
        for name in declarations(code[header]):
            checked += 1
            spellings = [name] + [m for m, body in macros if re.search(r"\b%s\b" % name, body)]
            word = re.compile(r"\b(%s)\b" % "|".join(map(re.escape, spellings)))
            autoptr = None
            if name in cleanup_types:
                autoptr = re.compile(r"\bg_autoptr\s*\(\s*%s\s*\)" % cleanup_types[name])
            users = []
            for path, text in code.items():
                if path in (header, stem + ".c"):
                    continue
                if word.search(text) or (autoptr and autoptr.search(text)):
                    users.append(path)
            if not users:
                problems.append("%s: %s is unused: remove it" % (header, name))
            elif all(u.startswith("tests/") for u in users):
                problems.append("%s: %s is used only by tests (%s): move it to a -private.h header"
                                % (header, name, ", ".join(sorted(users)[:3])))
    return problems, checked


SELF_TEST_TREE = {
    "src/lib/rtop-thing.h": """/* rtop_thing_unused (): a comment is no use */
#define RTOP_THING_QUARK (rtop_thing_quark ())
typedef struct _RtopThing RtopThing;
RtopThing *rtop_thing_new (void);
void rtop_thing_free (RtopThing *self);
int rtop_thing_unused (RtopThing *self,
                       int flags);
int rtop_thing_probe (RtopThing *self);
unsigned rtop_thing_quark (void);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtopThing, rtop_thing_free)
""",
    "src/lib/rtop-thing.c": "int\nrtop_thing_unused (RtopThing *self, int flags)\n{ return rtop_thing_probe (self); }\n",
    "src/lib/rtop-thing-private.h": "int rtop_thing_hidden (void);\n",
    "src/app/main.c": """int main (void) {
  g_autoptr(RtopThing) t = rtop_thing_new ();
  const char *s = "rtop_thing_probe (t)";
  return RTOP_THING_QUARK;
}
""",
    "tests/test-thing.c": "int t (void) { return rtop_thing_probe (NULL); }\n",
}


def self_test():
    import tempfile
    with tempfile.TemporaryDirectory() as root:
        for path, text in SELF_TEST_TREE.items():
            os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
            with open(os.path.join(root, path), "w") as f:
                f.write(text)
        problems, checked = check(root, ["src/lib"])
        none, _ = check(root, ["src/app"])
    want = ["src/lib/rtop-thing.h: rtop_thing_unused is unused: remove it",
            "src/lib/rtop-thing.h: rtop_thing_probe is used only by tests (tests/test-thing.c): "
            "move it to a -private.h header"]
    ok = problems == want and checked == 5 and none == []
    print("%s 1 - the made-up tree gives %r" % ("ok" if ok else "not ok", problems))
    print("1..1")
    return 0 if ok else 1


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    parser = argparse.ArgumentParser()
    parser.add_argument("root")
    parser.add_argument("--scope", action="append", default=None)
    args = parser.parse_args()
    scopes = [s.rstrip("/") for s in (args.scope or ["src"])]
    problems, checked = check(args.root, scopes)

    for i, p in enumerate(problems, 1):
        print("not ok %d - %s" % (i, p))
    print("ok %d - %d functions of the public headers in %s checked"
          % (len(problems) + 1, checked, ", ".join(scopes)))
    print("1..%d" % (len(problems) + 1))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
