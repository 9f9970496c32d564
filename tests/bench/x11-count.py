#!/usr/bin/env python3
# x11-count.py: an X11 display that forwards to another and counts the
# bytes of every request by its type (PutImage, RENDER's FillRectangles,
# ...), to say where the bytes of a remote display go.
#
#   x11-count.py LISTEN_NUM UPSTREAM_NUM OUTFILE
#
# Listens on /tmp/.X11-unix/X<LISTEN_NUM>, forwards each client to the
# display :<UPSTREAM_NUM> and keeps OUTFILE holding a JSON object
# {"requests": {name: [count, bytes]}, "to_client": bytes,
# "put_image_rects": [[time, x, y, w, h], ...]} (rewritten at
# most every 0.5 s).  Extension opcodes are named from
# `xdpyinfo -queryExtensions` on the upstream display.  The upstream server
# should run without MIT-SHM (Xvfb -extension MIT-SHM) so images travel in
# the requests, as they do over ssh -X.  A benchmark helper: local sockets
# only.
import json
import os
import re
import socket
import struct
import subprocess
import sys
import threading
import time

CORE = {
    1: "CreateWindow", 2: "ChangeWindowAttributes", 8: "MapWindow", 12: "ConfigureWindow",
    14: "GetGeometry", 15: "QueryTree", 16: "InternAtom", 18: "ChangeProperty",
    20: "GetProperty", 38: "QueryPointer", 43: "GetInputFocus", 45: "OpenFont",
    53: "CreatePixmap", 54: "FreePixmap", 55: "CreateGC", 56: "ChangeGC",
    59: "SetClipRectangles", 60: "FreeGC", 61: "ClearArea", 62: "CopyArea",
    66: "PolySegment", 69: "FillPoly", 70: "PolyFillRectangle", 72: "PutImage",
    73: "GetImage", 98: "QueryExtension", 127: "NoOperation",
}
RENDER = {
    0: "QueryVersion", 1: "QueryPictFormats", 4: "CreatePicture", 5: "ChangePicture",
    6: "SetPictureClipRectangles", 7: "FreePicture", 8: "Composite", 10: "Trapezoids",
    11: "Triangles", 17: "CreateGlyphSet", 19: "FreeGlyphSet", 20: "AddGlyphs",
    22: "FreeGlyphs", 23: "CompositeGlyphs8", 24: "CompositeGlyphs16",
    25: "CompositeGlyphs32", 26: "FillRectangles", 28: "SetPictureTransform",
    30: "SetPictureFilter", 31: "AddTraps", 33: "CreateLinearGradient",
    34: "CreateRadialGradient", 35: "CreateConicalGradient", 36: "CreateSolidFill",
}

lock = threading.Lock()
tally = {}
to_client = [0]
rects = []      # (time, x, y, width, height) of each PutImage, bounded


def extension_names(upstream):
    names = {}
    try:
        out = subprocess.run(["xdpyinfo", "-display", f":{upstream}", "-queryExtensions"],
                             capture_output=True, text=True, timeout=20).stdout
    except (OSError, subprocess.TimeoutExpired):
        return names
    for m in re.finditer(r"^\s+(\S+)\s+\(opcode: (\d+)", out, re.M):
        names[int(m.group(2))] = m.group(1)
    return names


def request_name(exts, major, minor):
    if major < 128:
        return CORE.get(major, f"core-{major}")
    ext = exts.get(major, f"ext-{major}")
    if ext == "RENDER":
        return "RENDER:" + RENDER.get(minor, str(minor))
    return f"{ext}:{minor}"


def count(name, size):
    with lock:
        c = tally.setdefault(name, [0, 0])
        c[0] += 1
        c[1] += size


def client_to_server(src, dst, exts):
    buf = b""
    setup_done = False
    big = "<"
    while True:
        data = src.recv(262144)
        if not data:
            break
        dst.sendall(data)
        buf += data
        while True:
            if not setup_done:
                if len(buf) < 12:
                    break
                big = "<" if buf[0:1] == b"l" else ">"
                n, d = struct.unpack(big + "HH", buf[6:10])
                size = 12 + (n + 3) // 4 * 4 + (d + 3) // 4 * 4
                if len(buf) < size:
                    break
                count("setup", size)
                buf = buf[size:]
                setup_done = True
                continue
            if len(buf) < 4:
                break
            major, minor = buf[0], buf[1]
            length = struct.unpack(big + "H", buf[2:4])[0] * 4
            if length == 0:   # BIG-REQUESTS: the length follows
                if len(buf) < 8:
                    break
                length = struct.unpack(big + "I", buf[4:8])[0] * 4
            if length < 4 or len(buf) < length:
                break
            name = request_name(exts, major, minor)
            count(name, length)
            if name == "PutImage" and length >= 24:
                w, h, x, y = struct.unpack(big + "HHhh", buf[12:20])
                with lock:
                    if len(rects) < 20000:
                        rects.append((round(time.monotonic(), 3), x, y, w, h))
            buf = buf[length:]
    try:
        dst.shutdown(socket.SHUT_WR)
    except OSError:
        pass


def server_to_client(src, dst):
    while True:
        data = src.recv(262144)
        if not data:
            break
        dst.sendall(data)
        with lock:
            to_client[0] += len(data)
    try:
        dst.shutdown(socket.SHUT_WR)
    except OSError:
        pass


def writer(path):
    while True:
        with lock:
            doc = {"requests": tally, "to_client": to_client[0], "put_image_rects": rects}
            text = json.dumps(doc, sort_keys=True)
        with open(path + ".tmp", "w") as f:
            f.write(text)
        os.replace(path + ".tmp", path)
        time.sleep(0.5)


def main():
    if len(sys.argv) != 4:
        sys.stderr.write("usage: x11-count.py LISTEN_NUM UPSTREAM_NUM OUTFILE\n")
        return 2
    listen, upstream, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    exts = extension_names(upstream)
    sock_path = f"/tmp/.X11-unix/X{listen}"
    if os.path.exists(sock_path):
        os.unlink(sock_path)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(sock_path)
    server.listen(16)
    threading.Thread(target=writer, args=(path,), daemon=True).start()
    while True:
        client, _ = server.accept()
        up = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        up.connect(f"/tmp/.X11-unix/X{upstream}")
        threading.Thread(target=client_to_server, args=(client, up, exts), daemon=True).start()
        threading.Thread(target=server_to_client, args=(up, client), daemon=True).start()


if __name__ == "__main__":
    sys.exit(main())
