#!/usr/bin/env python3
# The Debian symbols file names exactly the functions librdmatop exports,
# each at an upstream version (suite 'data').  A function added to rdmatop.h
# without its line would make dpkg-gensymbols add it with the Debian
# revision, which lintian refuses (symbols-file-contains-current-version-
# with-debian-revision), long after the change that caused it.
# Usage: check-symbols.py LIBRARY SYMBOLS_FILE   (TAP)
import re
import subprocess
import sys

lib, symfile = sys.argv[1], sys.argv[2]
out = subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True, text=True, check=True).stdout
exported = {m.group(1) for m in re.finditer(r"\s(rdmatop_\w+)@@RDMATOP_1$", out, re.M)}
listed, bad = set(), []
with open(symfile, encoding="utf-8") as f:
    for n, line in enumerate(f, 1):
        if n == 1 or line.startswith(("*", "#")):
            continue
        m = re.fullmatch(r" (\w+)@RDMATOP_1 (\S+)\n?", line)
        if not m:
            bad.append("line %d is no symbol line: %r" % (n, line[:60]))
            continue
        if "-" in m.group(2):
            bad.append("line %d has a Debian revision: %s" % (n, m.group(2)))
        if m.group(1) != "RDMATOP_1":
            listed.add(m.group(1))
checks = [
    (not bad, "every line of %s is a symbol at an upstream version" % symfile, bad),
    (not exported - listed, "every exported function is listed", sorted(exported - listed)),
    (not listed - exported, "every listed function is exported", sorted(listed - exported)),
    (len(exported) > 0, "the library exports functions (%d)" % len(exported), []),
]
failed = 0
for i, (ok, what, detail) in enumerate(checks, 1):
    print("%s %d - %s" % ("ok" if ok else "not ok", i, what))
    for d in detail[:10]:
        print("#   %s" % d)
    failed += not ok
print("1..%d" % len(checks))
sys.exit(1 if failed else 0)
