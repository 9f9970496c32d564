"""Counter samples to counter-track points, shared by the profiler plugins.

A capture yields raw counter values; a trace viewer wants a rate per port
and counter that holds until the next point.  The functions here turn one
into the other without touching RDMA, so they are tested on their own.
"""

from collections import namedtuple

#: One point of a counter track: ``time_ns`` on the clock the caller chose,
#: the port it belongs to and the counter's rate per second.
Point = namedtuple("Point", "time_ns device port metric rate")


def rate_points(samples, clock="time_ns"):
    """Per-interval rates of raw counter samples.

    ``samples`` are objects with ``time_ns``, ``mono_ns``, ``device``,
    ``port``, ``metric`` and ``value`` (rdmatop.Sample).  Rates are taken
    over ``mono_ns`` (it never jumps) and placed at the later sample's time
    on ``clock`` (``"time_ns"``: CLOCK_REALTIME, ``"mono_ns"``:
    CLOCK_MONOTONIC).  A counter that goes backwards was reset (a device
    re-added, a driver reloaded): that interval gives no point rather than
    a spike.  Returns the points sorted by time.
    """
    if clock not in ("time_ns", "mono_ns"):
        raise ValueError(f"unknown clock {clock!r}: use 'time_ns' or 'mono_ns'")
    last = {}
    points = []
    for s in sorted(samples, key=lambda s: s.mono_ns):
        key = (s.device, s.port, s.metric)
        prev = last.get(key)
        last[key] = s
        if prev is None:
            continue
        dt = s.mono_ns - prev.mono_ns
        if dt <= 0 or s.value < prev.value:
            continue
        rate = (s.value - prev.value) * 1e9 / dt
        points.append(Point(getattr(s, clock), s.device, s.port, s.metric, rate))
    return points


def compact(points):
    """Drops the points that repeat their track's previous value.

    A counter track holds its value until the next point, so only changes
    need writing; each track keeps its first and its last point, so an idle
    port still shows a track of zeros over the whole capture.  Order is
    kept.
    """
    by_track = {}
    for i, p in enumerate(points):
        by_track.setdefault((p.device, p.port, p.metric), []).append(i)
    keep = set()
    for idx in by_track.values():
        keep.add(idx[0])
        keep.add(idx[-1])
        for a, b in zip(idx, idx[1:]):
            if points[b].rate != points[a].rate:
                keep.add(b)
    return [p for i, p in enumerate(points) if i in keep]


def clip(points, start_ns, end_ns):
    """The points with ``start_ns <= time_ns <= end_ns``."""
    return [p for p in points if start_ns <= p.time_ns <= end_ns]


def track_name(device, port):
    """The name of a port's counter track in a trace: ``rdmatop rxe0/1``."""
    return f"rdmatop {device}/{port}"


def counter_key(metric):
    """The key of a counter within its port's track: ``sent_pkts/s``."""
    return f"{metric}/s"
