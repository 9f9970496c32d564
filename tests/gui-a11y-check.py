#!/usr/bin/env python3
# Checks, over AT-SPI as a screen reader sees it, that every control shown
# in the windows of the application with process id PID has an accessible
# name: buttons, toggles, drop-downs, entries, spin buttons, tables.
# Prints one line per control ("role: name" or "role: UNNAMED") and exits 1
# when a control has no name, a name a screen reader would read wrongly (a
# mnemonic underscore, "_Try Again", or the same words twice, "Try Again
# Try Again": what GTK 4.8 makes of mnemonic labels unless the app mends
# it), or the app never shows a window in time.  With --expect NAME the
# check waits until a control of that name shows (a window opened after
# the first, such as the preferences) and fails if none ever does.
#
# Usage: gui-a11y-check.py PID [TIMEOUT] [--expect NAME]...

import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from a11y_tree import Atspi, GLib, walk_app  # noqa: E402

CONTROLS = {
    Atspi.Role.PAGE_TAB,
    Atspi.Role.PUSH_BUTTON,
    Atspi.Role.TOGGLE_BUTTON,
    Atspi.Role.COMBO_BOX,
    Atspi.Role.ENTRY,
    Atspi.Role.SPIN_BUTTON,
    Atspi.Role.CHECK_BOX,
    Atspi.Role.RADIO_BUTTON,
    Atspi.Role.TABLE,
    Atspi.Role.TREE_TABLE,
}


def controls_of(pid):
    found = []

    def visit(acc, depth):
        role = acc.get_role()
        # GTK 4.8 sets no SHOWING state on children, and keeps every stack
        # page in the tree: all views are checked, which is what we want.
        if depth > 0 and not acc.get_state_set().contains(Atspi.StateType.VISIBLE):
            return False
        if role in CONTROLS:
            try:
                name = acc.get_name()
            except GLib.Error:
                name = ""
            # A bare type name ("GtkToggleButton") is GTK's fallback: no name.
            if re.fullmatch(r"Gtk[A-Za-z]+", name or ""):
                name = ""
            found.append((acc.get_role_name(), name))
        # A combo box's parts are GTK's own; the combo box carries the name.
        return role != Atspi.Role.COMBO_BOX

    walk_app(pid, visit)
    return found


def misread(name):
    """Why a screen reader would read this name wrongly, or None."""
    if not name:
        return "no name"
    if re.search(r"(^|[\s(])_[^\s_]", name):
        return "mnemonic underscore"
    words = name.split()
    half = len(words) // 2
    if len(words) % 2 == 0 and half > 0 and words[:half] == words[half:]:
        return "said twice"
    return None


def main():
    args = sys.argv[1:]
    expect = []
    while "--expect" in args:
        i = args.index("--expect")
        expect.append(args[i + 1])
        del args[i:i + 2]
    pid = int(args[0])
    timeout = float(args[1]) if len(args) > 1 else 30
    deadline = time.monotonic() + timeout
    found = []
    while time.monotonic() < deadline:
        found = controls_of(pid)
        names = {name for _, name in found}
        if len(found) >= 5 and all(e in names for e in expect):
            break
        time.sleep(0.5)
    if not found:
        print("no controls found: the app showed no window over AT-SPI")
        return 1
    bad = 0
    names = {name for _, name in found}
    for e in expect:
        if e not in names:
            print(f"no control named {e!r} showed")
            bad += 1
    for role, name in found:
        problem = misread(name)
        print(f"{role}: {name if name else 'UNNAMED'}{'  <- ' + problem if problem else ''}")
        bad += bool(problem)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
