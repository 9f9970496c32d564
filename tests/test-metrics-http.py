#!/usr/bin/env python3
"""The exporter's HTTP server, attacked on loopback.

Runs the real RtopMetricsServer (tests/metrics-fixture serve: 16 synthetic
ports, a new pass every 0.5 s) with small limits, then: scrapes in both
formats; malformed requests, oversized headers, a large body and floods
of idle and half-sent connections; after each, a scrape must still be
answered, and the server's resident memory must not keep growing.

Then `rdmatop-cli serve` itself: its argument errors, and a scrape of the
real collector, which on a machine without RDMA answers at once with
rdmatop_up 0 and the reason.

Usage: test-metrics-http.py METRICS-FIXTURE RDMATOP-CLI   (TAP on stdout)
"""
import gzip
import os
import socket
import subprocess
import sys
import time

MAX_CONN, IDLE_S, LIFETIME_S = 8, 2, 4
RSS_GROWTH_LIMIT_KIB = 16 * 1024
results = []


def tap(ok, name, detail=""):
    results.append(ok)
    print("%s %d - %s" % ("ok" if ok else "not ok", len(results), name))
    if detail:
        for line in detail.splitlines():
            print("# " + line)
    sys.stdout.flush()


def request(port, raw, timeout=10.0):
    """Sends raw bytes, returns everything the server sends until it closes."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(raw)
        chunks = []
        while True:
            try:
                data = s.recv(65536)
            except (ConnectionResetError, socket.timeout):
                break
            if not data:
                break
            chunks.append(data)
        return b"".join(chunks)


def status_of(reply):
    try:
        return int(reply.split(b" ", 2)[1])
    except (IndexError, ValueError):
        return None


def scrape(port, accept=None, method="GET", path="/metrics", extra=""):
    headers = "Host: 127.0.0.1\r\nConnection: close\r\n" + extra
    if accept is not None:
        headers += "Accept: %s\r\n" % accept
    reply = request(port, ("%s %s HTTP/1.1\r\n%s\r\n" % (method, path, headers)).encode())
    head, _, body = reply.partition(b"\r\n\r\n")
    return status_of(reply), head.decode("latin-1"), body


def scrape_ok(port):
    status, head, body = scrape(port)
    return status == 200 and body.endswith(b"# EOF\n") and b"rdmatop_up 1" in body


def rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def attack_round(port):
    socks = []
    # Idle connections: more than the cap, sending nothing.
    for _ in range(3 * MAX_CONN):
        socks.append(socket.create_connection(("127.0.0.1", port)))
    # Half-sent requests that never finish their headers.
    for _ in range(MAX_CONN):
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        socks.append(s)
    ok = scrape_ok(port)
    for s in socks:
        s.close()
    # Oversized headers, a body nobody asked for, and junk.
    request(port, b"GET /metrics HTTP/1.1\r\nX-Big: " + b"a" * (200 * 1024) + b"\r\n\r\n")
    big_body = b"x" * (2 * 1024 * 1024)
    try:
        request(port, b"POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n"
                % len(big_body) + big_body)
    except (BrokenPipeError, ConnectionResetError):
        pass
    request(port, bytes(range(256)) * 64 + b"\r\n\r\n")
    return ok and scrape_ok(port)


def main():
    fixture = sys.argv[1]
    # Under AddressSanitizer freed memory is held back (the quarantine),
    # which would read as growth: let it be reused.
    env = dict(os.environ)
    env["ASAN_OPTIONS"] = ":".join(filter(None, [env.get("ASAN_OPTIONS"), "quarantine_size_mb=0"]))
    proc = subprocess.Popen([fixture, "serve", "16", str(MAX_CONN), str(IDLE_S), str(LIFETIME_S)],
                            stdout=subprocess.PIPE, env=env)
    try:
        port = int(proc.stdout.readline())
        run(proc, port)
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    check_cli(sys.argv[2])
    print("1..%d" % len(results))
    return 0 if all(results) else 1


def check_cli(cli):
    for args in (["--listen", "localhost:9315"], ["--listen", "127.0.0.1"],
                 ["--listen", "[127.0.0.1]:1"], ["--listen", "::1:9315"],
                 ["--listen", "127.0.0.1:65536"], ["--max-processes", "5"],
                 ["--interval", "0"], ["extra"]):
        rc = subprocess.run([cli, "serve"] + args, capture_output=True, timeout=30).returncode
        tap(rc == 2, "serve %s: exit status 2 (got %d)" % (" ".join(args), rc))
    proc = subprocess.Popen([cli, "serve", "--listen", "127.0.0.1:0", "--interval", "1"],
                            stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stderr.readline()
        port = int(line.split("port ")[1].split()[0])
        body = b""
        for _ in range(50):
            status, head, body = scrape(port)
            if b"rdmatop_up 1" in body or b"\nrdmatop_collection_error_info{reason=\"no-netlink\"" in body:
                break
            time.sleep(0.1)
        tap(status == 200 and (b"rdmatop_up 1" in body or
                               (b"rdmatop_up 0" in body and b"message=\"" in body)),
            "the real collector's scrape: data, or rdmatop_up 0 with the reason",
            body[:300].decode("utf-8", "replace"))
        proc.terminate()
        tap(proc.wait(timeout=20) == 0, "serve exits 0 on SIGTERM")
    finally:
        if proc.poll() is None:
            proc.kill()


def run(proc, port):
    status, head, body = scrape(port)
    tap(status == 200 and "application/openmetrics-text; version=1.0.0" in head
        and body.endswith(b"# EOF\n"), "OpenMetrics by default", head)
    status, head, body = scrape(port, "text/plain;version=0.0.4;q=0.9,*/*;q=0.1")
    tap(status == 200 and "text/plain; version=0.0.4" in head and b"# EOF" not in body
        and b"rdmatop_port_transmit_bytes_total" in body, "Prometheus text when preferred", head)
    tap(scrape(port, "application/json")[0] == 406, "406 for a format we do not write")
    # gzip, as Prometheus asks for it: the same text, compressed (a new pass
    # may have come between the two scrapes: compare its shape, not values).
    status, head, packed = scrape(port, extra="Accept-Encoding: gzip\r\n")
    try:
        text = gzip.decompress(packed)
    except (OSError, EOFError):
        text = b""
    plain = scrape(port)[2]
    tap(status == 200 and "Content-Encoding: gzip" in head and text.endswith(b"# EOF\n")
        and len(packed) * 4 < len(text) and text.count(b"\n") == plain.count(b"\n"),
        "gzip when asked for (%d bytes for %d)" % (len(packed), len(text)), head)
    status, head, body = scrape(port, method="HEAD")
    tap(status == 200 and body == b"", "HEAD")
    tap(scrape(port, method="DELETE")[0] == 405, "405 for other methods")
    tap(scrape(port, path="/healthz")[0] == 200, "/healthz")
    tap(scrape(port, path="/readyz")[0] == 200, "/readyz")
    tap(scrape(port, path="/nope")[0] == 404, "404 elsewhere")

    malformed = [
        b"GARBAGE\r\n\r\n",
        b"GET /metrics HTTP/9.9\r\n\r\n",
        b"GET /metrics HTTP/1.1\r\nNoColonHere\r\n\r\n",
        b"GET /../../etc/passwd HTTP/1.1\r\nHost: x\r\n\r\n",
        b"GET /metrics HTTP/1.1\r\nTransfer-Encoding: gzip, chunked, bogus\r\n\r\n",
        b"GET /metrics HTTP/1.1\r\nContent-Length: -5\r\n\r\n",
        b"GET /metrics HTTP/1.1\r\nAccept: " + b"\xff\xfe" * 1000 + b"\r\n\r\n",
        b"\x00" * 1000,
        b"GET " + b"/a" * 40000 + b" HTTP/1.1\r\n\r\n",
    ]
    answers = [status_of(request(port, m)) for m in malformed]
    tap(all(a is None or a >= 400 for a in answers) and scrape_ok(port),
        "malformed requests are refused and scrapes go on", repr(answers))

    reply = request(port, b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: " + b"b" * (100 * 1024)
                    + b"\r\n\r\n")
    tap(status_of(reply) in (None, 400, 413, 431) and scrape_ok(port),
        "oversized headers are refused", repr(reply[:80]))

    idle = [socket.create_connection(("127.0.0.1", port)) for _ in range(4 * MAX_CONN)]
    tap(scrape_ok(port), "a scrape is answered with %d idle connections open" % len(idle))
    # The server lets idle connections go by itself.
    closed = 0
    for s in idle:
        s.settimeout(IDLE_S + LIFETIME_S + 10)
        try:
            closed += s.recv(1) == b""
        except (ConnectionResetError, socket.timeout):
            closed += 1
        s.close()
    tap(closed == len(idle), "idle connections are closed by the server (%d of %d)"
        % (closed, len(idle)))

    # Memory: after a warm-up round, more rounds of the same must not grow it.
    attack_round(port)
    before = rss_kib(proc.pid)
    rounds_ok = all(attack_round(port) for _ in range(5))
    after = rss_kib(proc.pid)
    tap(rounds_ok, "scrapes answered through 5 rounds of floods")
    tap(after - before < RSS_GROWTH_LIMIT_KIB, "resident memory bounded (%d KiB before, %d after)"
        % (before, after))
    tap(proc.poll() is None, "the server is still running")


if __name__ == "__main__":
    sys.exit(main())
