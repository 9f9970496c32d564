#!/usr/bin/env python3
"""x-bytes-proxy.py LISTEN_SOCKET X_SOCKET COUNT_FILE [REQUESTS_FILE]: a byte-counting relay
between X clients and an X server, for native-gui.sh's ssh -X column.

Clients connect to LISTEN_SOCKET (a display's socket path, such as
/tmp/.X11-unix/X201); each connection is relayed to X_SOCKET (the real
server's socket).  The bytes relayed both ways, all connections together,
are written to COUNT_FILE as one number twice a second, so a caller reads
the traffic of a window of time as the difference of two readings.  This
is what ssh -X carries for the program before ssh's own compression
(the X server runs without MIT-SHM, which a remote display lacks too).

With REQUESTS_FILE, the client's requests are parsed as they pass and the
bytes of each (major opcode, minor opcode for an extension's) are written
there with the totals, so a caller sees which requests carry the traffic
(PutImage is 72; RENDER's major opcode is in xdpyinfo -queryExtensions).
"""
import os
import selectors
import struct
import socket
import sys
import time


class RequestParser:
    """Splits one connection's client-to-server bytes into requests."""

    def __init__(self, table):
        self.buf = b""
        self.setup = True
        self.table = table

    def feed(self, data):
        self.buf += data
        while True:
            if self.setup:
                # byte order, pad, major, minor, name len, data len, pad
                if len(self.buf) < 12:
                    return
                if self.buf[0:1] != b"l":
                    self.table.clear()   # big-endian clients: not parsed
                    self.feed = lambda d: None
                    return
                n, d = struct.unpack_from("<HH", self.buf, 6)
                size = 12 + (n + 3) // 4 * 4 + (d + 3) // 4 * 4
                if len(self.buf) < size:
                    return
                self.buf = self.buf[size:]
                self.setup = False
                continue
            if len(self.buf) < 4:
                return
            major, minor, length = struct.unpack_from("<BBH", self.buf, 0)
            if length == 0:              # BIG-REQUESTS
                if len(self.buf) < 8:
                    return
                length = struct.unpack_from("<I", self.buf, 4)[0]
            size = length * 4
            if size < 4 or len(self.buf) < size:
                return
            key = (major, minor if major >= 128 else 0)
            self.table[key] = self.table.get(key, 0) + size
            self.buf = self.buf[size:]


def write_requests(path, table):
    with open(path + ".tmp", "w") as f:
        for (major, minor), n in sorted(table.items(), key=lambda kv: -kv[1]):
            f.write(f"{major}\t{minor}\t{n}\n")
    os.replace(path + ".tmp", path)


def main():
    listen_path, target_path, count_path = sys.argv[1:4]
    requests_path = sys.argv[4] if len(sys.argv) > 4 else None
    table = {}
    try:
        os.unlink(listen_path)
    except FileNotFoundError:
        pass
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(listen_path)
    server.listen(16)
    sel = selectors.DefaultSelector()
    sel.register(server, selectors.EVENT_READ, None)
    total = 0
    last_write = 0.0
    while True:
        for key, _ in sel.select(timeout=0.5):
            if key.data is None:
                client, _ = server.accept()
                upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                upstream.connect(target_path)
                parser = RequestParser(table) if requests_path else None
                sel.register(client, selectors.EVENT_READ, (upstream, parser))
                sel.register(upstream, selectors.EVENT_READ, (client, None))
                continue
            src, (dst, parser) = key.fileobj, key.data
            if src.fileno() < 0:        # closed with its peer this round
                continue
            try:
                data = src.recv(1 << 16)
            except OSError:
                data = b""
            if not data:
                for s in (src, dst):
                    try:
                        sel.unregister(s)
                    except (KeyError, ValueError):
                        pass
                    s.close()
                continue
            dst.sendall(data)
            total += len(data)
            if parser is not None:
                parser.feed(data)
        now = time.monotonic()
        if now - last_write >= 0.5:
            with open(count_path + ".tmp", "w") as f:
                f.write(f"{total}\n")
            os.replace(count_path + ".tmp", count_path)
            if requests_path:
                write_requests(requests_path, table)
            last_write = now


if __name__ == "__main__":
    main()
