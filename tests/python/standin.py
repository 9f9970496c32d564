"""A capture that needs no RDMA, for the plugin tests on the build machine.

It reports the counters of two ports, one counting and one idle, on the
real clocks, with the interface of rdmatop.Capture (start(), stop(),
samples() yielding each sample once).  The real capture during real RDMA
traffic is tested in the Soft-RoCE guest (tests/vm/scenario-kineto.sh).
"""

import time
from collections import namedtuple

Sample = namedtuple("Sample", "time_ns mono_ns device port metric value")


class ClockCapture:
    """Counters for rxe0/1 (counting 3 a millisecond) and rxe2/1 (idle),
    one sample a millisecond from 50 ms before start() to 50 ms after
    stop(), on the real clocks; samples() yields each sample once, up to
    now, as rdmatop.Capture does."""

    instances = []

    def __init__(self):
        self.started = self.stopped = None
        self.next_mono = None
        ClockCapture.instances.append(self)

    def start(self):
        self.started = (time.time_ns(), time.monotonic_ns())
        self.next_mono = self.started[1] - 50_000_000

    def stop(self):
        self.stopped = (time.time_ns(), time.monotonic_ns())

    def samples(self):
        real0, mono0 = self.started
        end = self.stopped[1] + 50_000_000 if self.stopped else time.monotonic_ns()
        while self.next_mono <= end:
            t = self.next_mono
            n = (t - (mono0 - 50_000_000)) // 1_000_000
            yield Sample(real0 + (t - mono0), t, "rxe0", 1, "sent_pkts", 3 * n)
            yield Sample(real0 + (t - mono0), t, "rxe2", 1, "sent_pkts", 42)
            self.next_mono += 1_000_000
