"""Counter samples to counter-track points, shared by the profiler plugins.

A capture yields raw counter values; a trace viewer wants a rate per port
and counter that holds until the next point.  The functions here turn one
into the other without touching RDMA, so they are tested on their own.
"""

import threading
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


class TrackBuilder:
    """rate_points() and, optionally, compact() over samples fed in batches.

    What it keeps is bounded by the changes of the rates, not by the
    number of samples: an idle port costs two points however long it is
    watched.
    """

    def __init__(self, clock="time_ns", compact=True):
        if clock not in ("time_ns", "mono_ns"):
            raise ValueError(f"unknown clock {clock!r}: use 'time_ns' or 'mono_ns'")
        self._clock = clock
        self._compact = compact
        self._last = {}
        self._rate = {}
        self._held = {}
        self._points = []

    def feed(self, samples):
        for s in sorted(samples, key=lambda s: s.mono_ns):
            key = (s.device, s.port, s.metric)
            prev = self._last.get(key)
            self._last[key] = s
            if prev is None:
                continue
            dt = s.mono_ns - prev.mono_ns
            if dt <= 0 or s.value < prev.value:
                continue
            p = Point(getattr(s, self._clock), s.device, s.port, s.metric,
                      (s.value - prev.value) * 1e9 / dt)
            if self._compact and self._rate.get(key) == p.rate:
                # Held: only the newest repeat matters, as the track's end.
                self._held[key] = p
                continue
            self._held.pop(key, None)
            self._rate[key] = p.rate
            self._points.append(p)

    def points(self):
        """Every point so far, sorted by time."""
        return sorted(self._points + list(self._held.values()), key=lambda p: p.time_ns)


def check_drain(drain_s):
    """Raises ValueError unless drain_s is None or 0.001 to 60 seconds."""
    if drain_s is not None and (isinstance(drain_s, bool) or not isinstance(drain_s, (int, float))
                                or not 0.001 <= drain_s <= 60):
        raise ValueError(f"drain_s must be from 0.001 to 60 seconds, not {drain_s!r}")


class Recorder:
    """Runs a capture (start(), stop(), samples()) and turns its samples
    into points when it stops or, with ``drain_s``, also as it goes, on a
    thread that wakes every ``drain_s`` seconds (a live drain, for a
    capture whose buffer would fill before the end).  An rdmatop.Capture
    needs none: it makes its points in C (rdmatop._ctracks).
    """

    def __init__(self, capture, clock="time_ns", compact=True, drain_s=None):
        check_drain(drain_s)
        self._capture = capture
        self._builder = TrackBuilder(clock, compact)
        self._drain_s = drain_s
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread = None

    def _drain(self):
        with self._lock:
            self._builder.feed(list(self._capture.samples()))

    def _run(self):
        while not self._stop.wait(self._drain_s):
            self._drain()

    def start(self):
        self._capture.start()
        if self._drain_s is not None:
            self._thread = threading.Thread(target=self._run, name="rdmatop-drain", daemon=True)
            self._thread.start()

    def stop(self):
        """Stops the capture and takes in its last samples."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        self._capture.stop()
        self._drain()
        close = getattr(self._capture, "close", None)
        if close is not None:
            close()

    def points(self):
        with self._lock:
            return self._builder.points()


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
    """The points of a window ``[start_ns, end_ns]``, sorted by time.

    A track holds its value until its next point, and compact() leaves
    long runs as two points that may both lie outside the window; so the
    value a track holds at ``start_ns`` (its last point before it) becomes
    a point at ``start_ns``, and where a track has points after the window,
    the value it holds at ``end_ns`` becomes a point at ``end_ns``.
    """
    by_track = {}
    for p in sorted(points, key=lambda p: p.time_ns):
        by_track.setdefault((p.device, p.port, p.metric), []).append(p)
    out = []
    for pts in by_track.values():
        before = [p for p in pts if p.time_ns < start_ns]
        inside = [p for p in pts if start_ns <= p.time_ns <= end_ns]
        after = any(p.time_ns > end_ns for p in pts)
        if before and not (inside and inside[0].time_ns == start_ns):
            inside.insert(0, before[-1]._replace(time_ns=start_ns))
        if after and inside and inside[-1].time_ns < end_ns:
            inside.append(inside[-1]._replace(time_ns=end_ns))
        out += inside
    return sorted(out, key=lambda p: p.time_ns)


def track_name(device, port):
    """The name of a port's counter track in a trace: ``rdmatop rxe0/1``."""
    return f"rdmatop {device}/{port}"


def counter_key(metric):
    """The key of a counter within its port's track: ``sent_pkts/s``."""
    return f"{metric}/s"
