#!/usr/bin/env python3
# Checks, over AT-SPI as a screen reader sees it, that every control shown
# in the windows of the application with process id PID has an accessible
# name: buttons, toggles, drop-downs, entries, spin buttons, tables.
# Prints one line per control ("role: name" or "role: UNNAMED") and exits 1
# when a control has no name or the app never shows a window in time.
#
# Usage: gui-a11y-check.py PID [TIMEOUT]

import re
import sys
import time

import gi

gi.require_version("Atspi", "2.0")
from gi.repository import Atspi, GLib  # noqa: E402

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
MAX_DEPTH = 60
MAX_NODES = 20000


def walk(acc, depth, found, budget):
    if depth > MAX_DEPTH or budget[0] <= 0:
        return
    budget[0] -= 1
    try:
        role = acc.get_role()
        states = acc.get_state_set()
        count = acc.get_child_count()
    except GLib.Error:
        return
    # GTK 4.8 sets no SHOWING state on children, and keeps every stack page
    # in the tree: all views are checked, which is what we want here.
    if not states.contains(Atspi.StateType.VISIBLE) and depth > 0:
        return
    if role in CONTROLS:
        try:
            name = acc.get_name()
        except GLib.Error:
            name = ""
        # A bare type name ("GtkToggleButton") is GTK's fallback: no name.
        if re.fullmatch(r"Gtk[A-Za-z]+", name or ""):
            name = ""
        found.append((acc.get_role_name(), name))
    if role == Atspi.Role.COMBO_BOX:
        return      # its parts are GTK's own; the combo box carries the name
    for i in range(count):
        try:
            child = acc.get_child_at_index(i)
        except GLib.Error:
            continue
        if child is not None:
            walk(child, depth + 1, found, budget)


def controls_of(pid):
    desktop = Atspi.get_desktop(0)
    for i in range(desktop.get_child_count()):
        app = desktop.get_child_at_index(i)
        try:
            if app is None or app.get_process_id() != pid:
                continue
        except GLib.Error:
            continue
        found = []
        walk(app, 0, found, [MAX_NODES])
        return found
    return []


def main():
    pid = int(sys.argv[1])
    timeout = float(sys.argv[2]) if len(sys.argv) > 2 else 30
    deadline = time.monotonic() + timeout
    found = []
    while time.monotonic() < deadline:
        found = controls_of(pid)
        if len(found) >= 5:
            break
        time.sleep(0.5)
    if not found:
        print("no controls found: the app showed no window over AT-SPI")
        return 1
    unnamed = 0
    for role, name in found:
        print(f"{role}: {name if name else 'UNNAMED'}")
        unnamed += not name
    return 1 if unnamed else 0


if __name__ == "__main__":
    sys.exit(main())
