#!/usr/bin/env python3
"""The exporter's HTTP server, attacked on loopback.

Runs the real RtopMetricsServer (tests/metrics-fixture serve: 16 synthetic
ports, a new pass every 0.5 s) with small limits, then: scrapes in both
formats; malformed requests, oversized headers, a large body and floods
of idle and half-sent connections; after each, a scrape must still be
answered, and the server's resident memory must not keep growing.  The
server must end what it refuses and what idles itself: a client that
gives up waiting proves nothing, so a connection still open at the
client's deadline is a failure, except where silence is expected, and
there the same connection must still get its answer.

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

# The server's limits here.  The lifetime is well past the idle limit plus
# the margin, so that an idle client closed only at the end of its lifetime
# fails the idle check.
MAX_CONN, IDLE_S, LIFETIME_S = 8, 2, 8
# How late, at most, the server may act on a limit on a loaded machine.
MARGIN_S = 3
RSS_GROWTH_LIMIT_KIB = 16 * 1024
results = []


def tap(ok, name, detail=""):
    results.append(ok)
    print("%s %d - %s" % ("ok" if ok else "not ok", len(results), name))
    if detail:
        for line in detail.splitlines():
            print("# " + line)
    sys.stdout.flush()


def read_until_closed(s, deadline):
    """Reads until the peer ends the connection or DEADLINE (monotonic)
    passes.  Returns (data, end, seconds): end is "eof" or "reset" when the
    peer closed the connection, "timeout" when it was still open, silent, at
    the deadline; seconds is when it ended, from the call."""
    t0 = time.monotonic()
    chunks = []
    while True:
        s.settimeout(max(0.001, deadline - time.monotonic()))
        try:
            data = s.recv(65536)
        except ConnectionResetError:
            end = "reset"
            break
        except socket.timeout:
            end = "timeout"
            break
        if not data:
            end = "eof"
            break
        chunks.append(data)
    return b"".join(chunks), end, time.monotonic() - t0


def request(port, raw, timeout=10.0):
    """Sends raw bytes and returns (reply, end, seconds): everything the
    server sent, how the connection ended (see read_until_closed) and when.
    A server may close the connection while the request is still being
    sent (oversized requests): that ends it too."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        t0 = time.monotonic()
        try:
            s.sendall(raw)
        except (BrokenPipeError, ConnectionResetError):
            pass
        reply, end, _ = read_until_closed(s, t0 + timeout)
        return reply, end, time.monotonic() - t0


def status_of(reply):
    try:
        return int(reply.split(b" ", 2)[1])
    except (IndexError, ValueError):
        return None


def scrape(port, accept=None, method="GET", path="/metrics", extra=""):
    """A request with Connection: close.  Its status is None unless the
    server also closed the connection after its reply: a reply on a
    connection that stays open is no answer to that request."""
    headers = "Host: 127.0.0.1\r\nConnection: close\r\n" + extra
    if accept is not None:
        headers += "Accept: %s\r\n" % accept
    reply, end, _ = request(port, ("%s %s HTTP/1.1\r\n%s\r\n" % (method, path, headers)).encode())
    head, _, body = reply.partition(b"\r\n\r\n")
    return status_of(reply) if end == "eof" else None, head.decode("latin-1"), body


def refused(reply, end, seconds):
    """A request the server must turn down: an error status, or the
    connection closed by the server at once (before its idle limit, so the
    close is the refusal and not the idle timer).  A connection still open
    when the client gives up is no refusal, with or without a reply."""
    status = status_of(reply)
    if end == "timeout":
        return False
    if status is not None:
        return status >= 400
    return reply == b"" and seconds < IDLE_S


# What Prometheus sends.
PROMETHEUS_ACCEPT = ("application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,"
                     "text/plain;version=0.0.4;q=0.5,*/*;q=0.1")


def scrape_ok(port):
    status, head, body = scrape(port, PROMETHEUS_ACCEPT)
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
    # Oversized headers, a body nobody asked for, and junk: each refused.
    big_body = b"x" * (2 * 1024 * 1024)
    for raw in (b"GET /metrics HTTP/1.1\r\nX-Big: " + b"a" * (200 * 1024) + b"\r\n\r\n",
                b"POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n"
                % len(big_body) + big_body,
                bytes(range(256)) * 64 + b"\r\n\r\n"):
        ok = refused(*request(port, raw)) and ok
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
    tap(status == 200 and "text/plain; version=0.0.4" in head and b"# EOF" not in body
        and b"# TYPE rdmatop_up gauge" in body, "the 0.0.4 text without an Accept header", head)
    status, head, body = scrape(port, "*/*")
    tap(status == 200 and "text/plain; version=0.0.4" in head and b"# EOF" not in body,
        "the 0.0.4 text for curl's */*", head)
    status, head, body = scrape(port, PROMETHEUS_ACCEPT)
    tap(status == 200 and "application/openmetrics-text; version=1.0.0" in head
        and body.endswith(b"# EOF\n"), "OpenMetrics when Prometheus asks for it", head)
    status, head, body = scrape(port, "text/plain;version=0.0.4;q=0.9,*/*;q=0.1")
    tap(status == 200 and "text/plain; version=0.0.4" in head and b"# EOF" not in body
        and b"rdmatop_port_transmit_bytes_total" in body, "Prometheus text when preferred", head)
    tap(scrape(port, "application/json")[0] == 406, "406 for a format we do not write")
    # gzip, as Prometheus asks for it: the same text, compressed (a new pass
    # may have come between the two scrapes: compare its shape, not values).
    status, head, packed = scrape(port, PROMETHEUS_ACCEPT, extra="Accept-Encoding: gzip\r\n")
    try:
        text = gzip.decompress(packed)
    except (OSError, EOFError):
        text = b""
    plain = scrape(port, PROMETHEUS_ACCEPT)[2]
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
    ]
    # Each is a whole request (its headers end): it gets an error status.
    answers = [request(port, m) for m in malformed]
    tap(all(end != "timeout" and (status_of(reply) or 0) >= 400 for reply, end, _ in answers)
        and scrape_ok(port), "malformed requests are refused and scrapes go on",
        repr([(status_of(reply), end) for reply, end, _ in answers]))
    # Bytes that never end a request: the server waits for the rest, then
    # lets the client go at its idle limit.
    reply, end, seconds = request(port, b"\x00" * 1000, timeout=IDLE_S + MARGIN_S)
    tap(end != "timeout", "a request that never ends is closed within the idle limit",
        "%r after %.1f s, %d bytes of reply" % (end, seconds, len(reply)))

    # Too long to read: an error status, or the connection closed at once.
    oversized = [
        b"GET " + b"/a" * 40000 + b" HTTP/1.1\r\n\r\n",
        b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: " + b"b" * (100 * 1024) + b"\r\n\r\n",
    ]
    answers = [request(port, m) for m in oversized]
    tap(all(refused(*a) and status_of(a[0]) in (None, 400, 413, 414, 431) for a in answers)
        and scrape_ok(port), "an oversized request line and oversized headers are refused",
        repr([(reply[:40], end, round(seconds, 1)) for reply, end, seconds in answers]))

    # A request in two parts: while the client has not finished it the
    # server stays silent, and the connection is still there (the rest of
    # the request gets the answer).
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
        early, end, _ = read_until_closed(s, time.monotonic() + IDLE_S / 4)
        quiet = end == "timeout" and early == b""
        try:
            s.sendall(b"Connection: close\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            pass
        reply, end, _ = read_until_closed(s, time.monotonic() + 10)
    tap(quiet and status_of(reply) == 200 and end == "eof",
        "a request sent in two parts waits, silent, for its end and is answered",
        "before its end: %r; after: %r, %r" % (early[:40], reply[:40], end))

    idle = []
    for _ in range(4 * MAX_CONN):
        idle.append((socket.create_connection(("127.0.0.1", port)), time.monotonic()))
    tap(scrape_ok(port), "a scrape is answered with %d idle connections open" % len(idle))
    # The server lets idle connections go by itself: the cap closes the
    # oldest at once, the idle limit the others.  One still open past the
    # idle limit and the margin is a failure (its lifetime, longer, is not
    # what this checks).
    ends = []
    for s, opened in idle:
        _, end, _ = read_until_closed(s, opened + IDLE_S + MARGIN_S)
        ends.append(end)
        s.close()
    late = ends.count("timeout")
    tap(late == 0, "idle connections are closed by the server within %d s (%d of %d still open)"
        % (IDLE_S + MARGIN_S, late, len(idle)))

    # A client that is never idle (a header byte every half second) is
    # closed at the end of its lifetime.
    with socket.create_connection(("127.0.0.1", port)) as s:
        opened = time.monotonic()
        s.sendall(b"GET /metrics HTTP/1.1\r\nX-Slow: ")
        end = "timeout"
        while end == "timeout" and time.monotonic() < opened + LIFETIME_S + MARGIN_S:
            _, end, _ = read_until_closed(s, time.monotonic() + 0.5)
            try:
                s.sendall(b"a")
            except (BrokenPipeError, ConnectionResetError):
                pass
        lived = time.monotonic() - opened
    tap(end != "timeout" and lived >= LIFETIME_S - 1,
        "a client that is never idle is closed at the end of its lifetime (%s after %.1f s)"
        % (end, lived))

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
