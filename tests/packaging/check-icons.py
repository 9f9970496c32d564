#!/usr/bin/env python3
# App icons (suite 'data'): both SVGs parse; the full-colour icon is drawn
# on the 128x128 grid and the symbolic one on 16x16; the symbolic icon uses
# only fills in the one foreground grey, no strokes, gradients or images,
# because GTK recolours symbolic icons by replacing fill colours (a stroke
# or a second colour would stay dark on a dark theme).
# Usage: check-icons.py DATA_DIR APP_ID

import os
import sys
import xml.etree.ElementTree as ET

SVG = "{http://www.w3.org/2000/svg}"
SYMBOLIC_FILL = "#2e3436"

results = []


def report(ok, what):
    results.append(ok)
    print("%s %d - %s" % ("ok" if ok else "not ok", len(results), what))


def load(path):
    try:
        return ET.parse(path).getroot()
    except (OSError, ET.ParseError) as err:
        report(False, "%s parses: %s" % (path, err))
        return None


def check_grid(root, name, size):
    box = root.get("viewBox", "").split()
    report(root.tag == SVG + "svg" and box == ["0", "0", str(size), str(size)],
           "%s is an SVG with viewBox 0 0 %d %d (found %s)" % (name, size, size, " ".join(box) or "none"))


def symbolic_problems(root):
    problems = []
    for el in root.iter():
        tag = el.tag.replace(SVG, "")
        if tag in ("linearGradient", "radialGradient", "image", "text", "filter"):
            problems.append("<%s>" % tag)
        stroke = el.get("stroke")
        if stroke not in (None, "none"):
            problems.append("stroke on <%s>" % tag)
        fill = el.get("fill")
        if fill not in (None, "none", SYMBOLIC_FILL):
            problems.append("fill %s on <%s>" % (fill, tag))
        if "style" in el.attrib:
            problems.append("style attribute on <%s>" % tag)
    return problems


def main():
    data, app_id = sys.argv[1], sys.argv[2]
    full = os.path.join(data, "icons/hicolor/scalable/apps", app_id + ".svg")
    sym = os.path.join(data, "icons/hicolor/symbolic/apps", app_id + "-symbolic.svg")
    root = load(full)
    if root is not None:
        check_grid(root, os.path.basename(full), 128)
    root = load(sym)
    if root is not None:
        check_grid(root, os.path.basename(sym), 16)
        problems = symbolic_problems(root)
        report(not problems, "symbolic icon uses only %s fills%s" %
               (SYMBOLIC_FILL, (": " + ", ".join(problems)) if problems else ""))
    print("1..%d" % len(results))
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
