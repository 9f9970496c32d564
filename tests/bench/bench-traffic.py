#!/usr/bin/env python3
"""The GUI benchmark's traffic (guest scripts): UDP datagrams out of every
dummy netdev of the guest's Soft-RoCE devices, to an address nobody has (a
dummy device drops what it sends, after counting it), each device at its
own rate that changes over time, so every graph moves.

    bench-traffic.py DEVICES      (runs until killed)
"""
import math
import socket
import sys
import time

n = int(sys.argv[1])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
payload = b"x" * 1200
t0 = time.monotonic()
while True:
    t = time.monotonic() - t0
    for i in range(n):
        burst = 1 + int(4 * (1 + math.sin(t / 7 + i)))
        for _ in range(burst):
            s.sendto(payload, (f"10.210.{i}.99", 9))
    time.sleep(0.25)
