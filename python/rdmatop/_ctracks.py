"""Counter-track points made in librdmatop (rdmatop_tracks_*).

A capture given a :class:`Tracks` turns its samples into points on its own
thread, so nothing in Python runs while the profiled code does; the
points come out in one call at the end, clipped to the trace's window.
The semantics are those of :mod:`rdmatop._tracks` (rates over
CLOCK_MONOTONIC, no point for a reset, compaction, clipping); the tests
hold the two to the same points.
"""

import ctypes
import struct

from . import _native, _tracks
from ._native import lib

_CLOCKS = {"time_ns": _native.CLOCK_REALTIME, "mono_ns": _native.CLOCK_MONOTONIC}
POINT_SIZE = ctypes.sizeof(_native.CTrackPoint)
_POINT_FORMAT = "=qIId"  # rdmatop_track_point: time_ns, track, reserved, rate
assert struct.calcsize(_POINT_FORMAT) == POINT_SIZE


class Tracks:
    """Counter tracks built in C.  ``clock``: ``"time_ns"`` (CLOCK_REALTIME)
    or ``"mono_ns"`` (CLOCK_MONOTONIC), the clock points are placed on;
    ``compact``: drop points that repeat their track's rate;
    ``max_points``: the bound on points kept (0: the library's, 4194304)."""

    def __init__(self, clock="time_ns", compact=True, max_points=0):
        from . import _check

        if clock not in _CLOCKS:
            raise ValueError(f"unknown clock {clock!r}: use 'time_ns' or 'mono_ns'")
        self._handle = None
        handle = _native._handle()
        _check(lib.rdmatop_tracks_new(_CLOCKS[clock], 1 if compact else 0, int(max_points),
                                      ctypes.byref(handle)))
        self._handle = handle

    def feed(self, samples):
        """Takes in rdmatop.Sample-like objects, in one call to the library."""
        samples = list(samples)
        keep = {}
        arr = (_native.CSample * max(len(samples), 1))()
        for c, s in zip(arr, samples):
            c.realtime_ns, c.monotonic_ns, c.port, c.value = s.time_ns, s.mono_ns, s.port, s.value
            c.device = keep.setdefault(s.device, s.device.encode("utf-8"))
            c.counter = keep.setdefault(s.metric, s.metric.encode("utf-8"))
        lib.rdmatop_tracks_feed(self._handle, arr, len(samples))

    def names(self):
        """(device, port, counter) of each track, by index."""
        dev, ctr, port = _native._c_str(), _native._c_str(), ctypes.c_uint32()
        out = []
        for i in range(lib.rdmatop_tracks_n_tracks(self._handle)):
            lib.rdmatop_tracks_track(self._handle, i, ctypes.byref(dev), ctypes.byref(port),
                                     ctypes.byref(ctr))
            out.append((_native.text(dev.value), port.value, _native.text(ctr.value)))
        return out

    def raw(self, start_ns, end_ns):
        """The points of the window as bytes of rdmatop_track_point, one copy."""
        pts, n = ctypes.POINTER(_native.CTrackPoint)(), ctypes.c_size_t()
        lib.rdmatop_tracks_clip(self._handle, int(start_ns), int(end_ns), ctypes.byref(pts),
                                ctypes.byref(n))
        try:
            return ctypes.string_at(pts, n.value * POINT_SIZE) if n.value else b""
        finally:
            lib.rdmatop_tracks_points_free(pts)

    def arrays(self, start_ns, end_ns):
        """The points of the window as three lists: times, track indexes, rates."""
        rows = struct.iter_unpack(_POINT_FORMAT, self.raw(start_ns, end_ns))
        times, tracks, rates = [], [], []
        for t, k, _, r in rows:
            times.append(t)
            tracks.append(k)
            rates.append(r)
        return times, tracks, rates

    def points(self, start_ns=-(1 << 63), end_ns=(1 << 63) - 1):
        """The window's points as rdmatop._tracks.Point, sorted by time."""
        names = self.names()
        times, tracks, rates = self.arrays(start_ns, end_ns)
        return [_tracks.Point(t, *names[k][:2], names[k][2], r)
                for t, k, r in zip(times, tracks, rates)]

    @property
    def dropped(self):
        """Points and samples not kept because a bound was reached."""
        return lib.rdmatop_tracks_dropped(self._handle)

    @property
    def size(self):
        """Bytes the tracks hold."""
        return lib.rdmatop_tracks_size(self._handle)

    def close(self):
        if getattr(self, "_handle", None):
            lib.rdmatop_tracks_free(self._handle)
            self._handle = None

    def __del__(self):
        self.close()
