#!/usr/bin/env python3
# count-relay.py: an ssh ProxyCommand that counts the bytes of the session.
#
#   ssh -o ProxyCommand="python3 count-relay.py 127.0.0.1 %p COUNTFILE" ...
#
# Copies stdin to a TCP connection to HOST:PORT and the connection back to
# stdout, and keeps COUNTFILE holding "<bytes to server> <bytes to client>"
# (rewritten atomically at most every 0.2 s and at the end).  What it counts
# is every byte of the SSH connection, X11 forwarding included: the traffic
# a remote display costs on the wire.  Only loopback addresses are accepted:
# this is a benchmark helper, not a proxy.
import ipaddress
import os
import selectors
import socket
import sys
import time


def write_counts(path, up, down):
    # Its own temporary name: a session that has not ended yet (a slow
    # remote program) may still be writing beside the next one.
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "w") as f:
        f.write(f"{up} {down}\n")
    os.replace(tmp, path)


def main():
    if len(sys.argv) != 4:
        sys.stderr.write("usage: count-relay.py HOST PORT COUNTFILE\n")
        return 2
    host, port, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    if not ipaddress.ip_address(socket.gethostbyname(host)).is_loopback:
        sys.stderr.write("count-relay.py: only loopback addresses\n")
        return 2
    conn = socket.create_connection((host, port))
    stdin, stdout = sys.stdin.fileno(), sys.stdout.fileno()
    sel = selectors.DefaultSelector()
    sel.register(stdin, selectors.EVENT_READ, "up")
    sel.register(conn, selectors.EVENT_READ, "down")
    counts = {"up": 0, "down": 0}
    last = 0.0
    open_ends = 2
    write_counts(path, 0, 0)
    while open_ends > 0:
        for key, _ in sel.select(timeout=0.5):
            if key.data == "up":
                data = os.read(stdin, 65536)
                if not data:
                    conn.shutdown(socket.SHUT_WR)
                else:
                    conn.sendall(data)
            else:
                data = conn.recv(65536)
                if data:
                    view = memoryview(data)
                    while view:
                        view = view[os.write(stdout, view):]
            if not data:
                sel.unregister(key.fileobj)
                open_ends -= 1
                if key.data == "down":
                    os.close(stdout)   # the server is gone: so is the session
            counts[key.data] += len(data)
        now = time.monotonic()
        if now - last >= 0.2:
            write_counts(path, counts["up"], counts["down"])
            last = now
    write_counts(path, counts["up"], counts["down"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
