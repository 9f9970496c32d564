"""RDMA counters in VizTracer traces: a VizTracer plugin.

::

    viztracer --plugins "rdmatop.viztracer --interval 1 --devices rxe0" script.py

or, from Python, ``VizTracer(plugins=[RdmatopPlugin(devices=["rxe0"])])``.
While VizTracer traces, an rdmatop capture runs; when it saves, the trace
gets one counter track per port and counter (rates per second, named
``rdmatop DEV/PORT`` with the key ``COUNTER/s``) in a process named
"rdmatop", on VizTracer's own clock (CLOCK_MONOTONIC in µs), within the
span of the traced events.  When the traced process is in a job
(:func:`rdmatop.job`), that process is named with it (``rdmatop · slurm
1234.0``: Perfetto shows names, not labels) and labelled (``job: slurm
1234.0``; only ``cgroup: PATH`` for a cgroup no layout names): the trace is
the user's own local file, and the job goes nowhere else.

Plugin options: ``--interval MS`` (milliseconds between reads, default 1),
``--devices A,B``, ``--ports 1,2``, ``--metrics C1,C2`` (default: all),
``--no-compact`` (keep every point).
"""

import argparse
import math
import os
import shlex

from viztracer.vizplugin import VizPluginBase, VizPluginError

from . import _ctracks, _tracks

__all__ = ["RdmatopPlugin", "get_vizplugin", "parse_options"]

#: The Chrome trace pid of the counter tracks: a process of their own.
PID = 0x52444D41  # "RDMA"

#: Points one trace holds at most (past it the newest are dropped).
MAX_POINTS = 2_000_000

# The newest VizTracer whose plugin messages this was written against.
_SUPPORT_VERSION = "1.1.1"


def _list(text):
    return [s for s in text.split(",") if s] if text else None


def _job_label(lookup=None):
    """The process label naming this process's job (``"job: slurm 1234.0"``,
    ``"cgroup: /some/path"``) and the job's name when a layout names it
    (``"slurm 1234.0"``, else None); (None, None) when none is known or it
    cannot be read: a trace is never kept from saving by it."""
    import rdmatop

    try:
        job = (lookup or rdmatop.job)()
    except (rdmatop.Error, OSError):
        return None, None
    if job is None:
        return None, None
    if job.kind == "cgroup":
        return "cgroup: " + job.name, None
    return "job: " + job.name, job.name


def _parser():
    ap = argparse.ArgumentParser(prog="rdmatop.viztracer", add_help=False,
                                 exit_on_error=False)
    ap.add_argument("--interval", type=float, default=1.0,
                    help="milliseconds between reads (1 to 60000)")
    ap.add_argument("--devices", default="")
    ap.add_argument("--ports", default="")
    ap.add_argument("--metrics", default="")
    ap.add_argument("--no-compact", action="store_true")
    return ap


class RdmatopPlugin(VizPluginBase):
    """Runs an rdmatop capture while VizTracer traces and adds its counter
    tracks to the saved trace.  Arguments as :class:`rdmatop.Capture`
    (``interval`` in seconds here); ``capture`` replaces rdmatop.Capture
    with another callable returning start()/stop()/samples()."""

    def __init__(self, devices=None, ports=None, interval=0.001, metrics=None,
                 compact=True, capture=None, drain_s=None):
        super().__init__()
        _tracks.check_drain(drain_s)
        self._drain_s = drain_s
        if capture is None:
            import rdmatop

            def capture():
                return rdmatop.Capture(devices=devices, ports=ports, interval=interval,
                                       metrics=metrics)

            # The capture looks its ports up when made: wrong names fail here,
            # before the script runs, with rdmatop-cli's sentence.
            capture().close()
        self._make_capture = capture
        self._compact = compact
        self._recorder = None
        self._capture = None
        self._ctracks = []     # Tracks of captures run, read at save
        self._points = []
        self._label = None
        self._job_name = None

    def support_version(self):
        return _SUPPORT_VERSION

    def message(self, m_type, payload):
        if m_type == "event":
            when = payload.get("when")
            if when == "pre-start":
                self._start()
            elif when == "post-stop":
                self._stop()
            elif when == "pre-save":
                return {"action": "handle_data", "handler": self._add_tracks}
        elif m_type == "command" and payload.get("cmd_type") == "terminate":
            self._stop()
            return {"success": True}
        return {}

    def _start(self):
        import rdmatop

        if self._recorder is not None or self._capture is not None:
            return
        self._label, self._job_name = _job_label()
        cap = self._make_capture()
        if isinstance(cap, rdmatop.Capture):
            # Points made in C on the capture's thread: no Python runs
            # while VizTracer traces.
            tracks = _ctracks.Tracks("mono_ns", self._compact, MAX_POINTS)
            cap.set_tracks(tracks)
            cap.start()
            self._capture = cap
            self._ctracks.append(tracks)
            return
        rec = _tracks.Recorder(cap, "mono_ns", self._compact, self._drain_s)
        rec.start()
        self._recorder = rec

    def _stop(self):
        cap, self._capture = self._capture, None
        if cap is not None:
            cap.close()  # the tracks keep the points
        rec, self._recorder = self._recorder, None
        if rec is not None:
            rec.stop()
            self._points += rec.points()

    def _counter_events(self, lo, hi):
        """The window's counter events (VizTracer's µs lo..hi), the C
        tracks' read in one call each, then the Python points."""
        lo_ns, hi_ns = int(lo * 1000), int(hi * 1000)
        tid = os.getpid()
        out = []
        for tracks in self._ctracks:
            names = [(_tracks.track_name(d, p), _tracks.counter_key(c)) for d, p, c in tracks.names()]
            times, idx, rates = tracks.arrays(lo_ns, hi_ns)
            tracks.close()
            out += [{"ph": "C", "name": names[k][0], "pid": PID, "tid": tid,
                     "ts": min(max(t / 1000, lo), hi), "args": {names[k][1]: r}}
                    for t, k, r in zip(times, idx, rates)]
        self._ctracks = []
        pts, self._points = _tracks.clip(self._points, lo_ns, hi_ns), []
        out += [{"ph": "C", "name": _tracks.track_name(p.device, p.port), "pid": PID, "tid": tid,
                 "ts": min(max(p.time_ns / 1000, lo), hi),
                 "args": {_tracks.counter_key(p.metric): p.rate}} for p in pts]
        return out

    def _add_tracks(self, data):
        events = data.setdefault("traceEvents", [])
        if not (self._points or self._ctracks):
            return
        # VizTracer's ts is CLOCK_MONOTONIC in µs; keep to its events' span
        # (one pass: a Python-heavy trace has millions of events).
        lo, hi = math.inf, -math.inf
        for e in events:
            ts = e.get("ts")
            if ts is None or e.get("ph") == "M":
                continue
            if ts < lo:
                lo = ts
            end = ts + e.get("dur", 0)
            if end > hi:
                hi = end
        if lo > hi:
            return
        counters = self._counter_events(lo, hi)
        if not counters:
            return
        # Perfetto shows a process's name, not its labels: the job goes in
        # the name too ("rdmatop · slurm 1234.0").
        name = "rdmatop · " + self._job_name if self._job_name else "rdmatop"
        events.append({"ph": "M", "name": "process_name", "pid": PID, "tid": 0,
                       "args": {"name": name}})
        if self._label:
            events.append({"ph": "M", "name": "process_labels", "pid": PID, "tid": 0,
                           "args": {"labels": self._label}})
        events += counters


def parse_options(arg):
    """The keyword arguments of RdmatopPlugin from a --plugins string."""
    words = shlex.split(arg)[1:]
    try:
        opts, extra = _parser().parse_known_args(words)
        if extra:
            raise ValueError(f"unknown option {extra[0]!r}")
        ports = [int(p) for p in _list(opts.ports)] if opts.ports else None
    except (argparse.ArgumentError, ValueError) as e:
        raise VizPluginError(f"rdmatop.viztracer: {e}") from None
    return {"devices": _list(opts.devices), "ports": ports, "interval": opts.interval / 1000,
            "metrics": _list(opts.metrics), "compact": not opts.no_compact}


def get_vizplugin(arg):
    """VizTracer's entry point: ``arg`` is the whole --plugins string."""
    return RdmatopPlugin(**parse_options(arg))
