#!/usr/bin/env python3
"""Prints the capture benchmark's figures from guest-capture.sh's results:
per phase and interval, the achieved interval (median, p99, max) from the
port's read times, the deadlines kept and missed, and the CPU time per
second of capture (the capture thread's, and the whole process's), then
the cost of one read over netlink and sysfs.

Usage: capture-figures.py RESULTS/guest-capture"""

import json
import os
import sys


def quantile(v, q):
    v = sorted(v)
    return v[int(q * (len(v) - 1))]


def main(d):
    print("| phase | interval | passes kept | missed | median | p99 | max | "
          "CPU thread ms/s | CPU process ms/s |")
    print("|---|---|---|---|---|---|---|---|---|")
    for phase in ("idle", "busy"):
        for ms in (1, 10):
            path = os.path.join(d, f"{phase}-{ms}ms.json")
            if not os.path.exists(path):
                continue
            c = json.load(open(path))
            st = c["stats"]
            t = c["reads"][0]["monotonic_ns"]
            gaps = [(y - x) / 1e6 for x, y in zip(t, t[1:])]
            wall_s = c["wall_ns"] / 1e9
            print(f"| {phase} | {ms} ms | {st['taken']} | {st['missed']} | {quantile(gaps, 0.5):.3f} ms | "
                  f"{quantile(gaps, 0.99):.3f} ms | {max(gaps):.3f} ms | "
                  f"{st['cpu_ns'] / 1e6 / wall_s:.1f} | {c['process_cpu_ns'] / 1e6 / wall_s:.1f} |")
    for phase in ("idle", "busy"):
        path = os.path.join(d, f"{phase}-read-cost.txt")
        if os.path.exists(path):
            print(f"{phase} read cost: " + " ".join(l.strip() for l in open(path) if "=" in l))


if __name__ == "__main__":
    main(sys.argv[1])
