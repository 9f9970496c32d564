#!/usr/bin/env python3
# The metainfo's screenshots point into this repository
# (.../main/data/screenshots/NAME.png): each must exist here, be a PNG, and
# have the width and height the metainfo states, so app stores show what
# the file says.
# Usage: check-screenshots.py SOURCE_ROOT METAINFO

import os
import re
import struct
import sys
import xml.etree.ElementTree as ET

REPO_PATH = re.compile(r"^https://raw\.githubusercontent\.com/rdmatop/rdmatop/main/(.+)$")


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    if len(head) < 24 or head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
        return None
    return struct.unpack(">II", head[16:24])


def main():
    root, metainfo = sys.argv[1], sys.argv[2]
    images = ET.parse(metainfo).getroot().findall("./screenshots/screenshot/image")
    n = 0
    failed = False
    for image in images:
        n += 1
        url = (image.text or "").strip()
        m = REPO_PATH.match(url)
        if not m:
            print("not ok %d - %s does not point into this repository" % (n, url))
            failed = True
            continue
        path = os.path.join(root, m.group(1))
        size = png_size(path) if os.path.isfile(path) else None
        stated = (int(image.get("width", 0)), int(image.get("height", 0)))
        if size is None:
            print("not ok %d - %s is missing or not a PNG" % (n, m.group(1)))
            failed = True
        elif size != stated:
            print("not ok %d - %s is %dx%d, the metainfo says %dx%d" % ((n, m.group(1)) + size + stated))
            failed = True
        else:
            print("ok %d - %s (%dx%d)" % ((n, m.group(1)) + size))
    if not images:
        n += 1
        print("not ok %d - the metainfo has no screenshots" % n)
        failed = True
    print("1..%d" % n)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
