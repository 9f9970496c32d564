#!/usr/bin/env python3
# Prints, one per line, the accessible names of every object in the
# windows of the application with process id PID, read over AT-SPI the way
# a screen reader sees them.  Waits up to TIMEOUT seconds for the app to
# show a window with content.  Exit status 1 if it never does.
#
# Usage: a11y-names.py PID [TIMEOUT]

import sys
import time

import gi

gi.require_version("Atspi", "2.0")
from gi.repository import Atspi  # noqa: E402

MAX_DEPTH = 60
MAX_NODES = 20000


def walk(acc, depth, names, budget):
    if depth > MAX_DEPTH or budget[0] <= 0:
        return
    budget[0] -= 1
    try:
        name = acc.get_name()
        count = acc.get_child_count()
    except gi.repository.GLib.Error:
        return
    if name:
        names.append(name)
    for i in range(count):
        try:
            child = acc.get_child_at_index(i)
        except gi.repository.GLib.Error:
            continue
        if child is not None:
            walk(child, depth + 1, names, budget)


def app_names(pid):
    desktop = Atspi.get_desktop(0)
    for i in range(desktop.get_child_count()):
        app = desktop.get_child_at_index(i)
        try:
            if app is None or app.get_process_id() != pid:
                continue
        except gi.repository.GLib.Error:
            continue
        names = []
        walk(app, 0, names, [MAX_NODES])
        return names
    return None


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
