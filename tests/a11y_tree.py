# a11y_tree: walks the AT-SPI tree of one application, the way a screen
# reader sees it, for the tests that read the window over accessibility
# (gui-a11y-check.py, packaging/a11y-names.py).  Bounded in depth and in
# nodes, and an object that vanishes mid-walk is skipped, not an error.

import gi

gi.require_version("Atspi", "2.0")
from gi.repository import Atspi, GLib  # noqa: E402

MAX_DEPTH = 60
MAX_NODES = 20000


def _walk(acc, depth, visit, budget):
    if depth > MAX_DEPTH or budget[0] <= 0:
        return
    budget[0] -= 1
    try:
        descend = visit(acc, depth)
        count = acc.get_child_count() if descend else 0
    except GLib.Error:
        return
    for i in range(count):
        try:
            child = acc.get_child_at_index(i)
        except GLib.Error:
            continue
        if child is not None:
            _walk(child, depth + 1, visit, budget)


def walk_app(pid, visit):
    """Calls visit(accessible, depth) on every object of the application
    with process id pid, top down; visit returns whether to go into the
    object's children (and may raise GLib.Error for an object that went
    away).  Returns False when no application has that pid."""
    desktop = Atspi.get_desktop(0)
    for i in range(desktop.get_child_count()):
        app = desktop.get_child_at_index(i)
        try:
            if app is None or app.get_process_id() != pid:
                continue
        except GLib.Error:
            continue
        _walk(app, 0, visit, [MAX_NODES])
        return True
    return False
