#!/usr/bin/env python3
# Prints, one per line, the accessible names of every object in the
# windows of the application with process id PID, read over AT-SPI the way
# a screen reader sees them.  Waits up to TIMEOUT seconds for the app to
# show a window with content.  Exit status 1 if it never does.
#
# Usage: a11y-names.py PID [TIMEOUT]

import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from a11y_tree import walk_app  # noqa: E402


def app_names(pid):
    names = []

    def visit(acc, depth):
        name = acc.get_name()
        if name:
            names.append(name)
        return True

    return names if walk_app(pid, visit) else None


def main():
    pid = int(sys.argv[1])
    timeout = float(sys.argv[2]) if len(sys.argv) > 2 else 20.0
    deadline = time.monotonic() + timeout
    names = None
    # The tree fills in as the window maps; keep the richest reading.
    while time.monotonic() < deadline:
        found = app_names(pid)
        if found and (names is None or len(found) > len(names)):
            names = found
        elif names and len(names) > 3:
            break
        time.sleep(0.5)
    if not names:
        print("no accessible window for pid %d within %.0f s" % (pid, timeout),
              file=sys.stderr)
        return 1
    for name in names:
        print(name.replace("\n", " "))
    return 0


if __name__ == "__main__":
    sys.exit(main())
