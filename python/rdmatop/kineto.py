"""RDMA counters in torch.profiler traces.

``enable()`` registers rdmatop as a Kineto child activity profiler: every
``torch.profiler.profile`` that starts tracing afterwards starts an
rdmatop capture, and the trace it exports (``export_chrome_trace``, plain
or ``.gz``) carries one counter track per port and counter, as native
Kineto counter events, on the same clock as the torch events::

    import torch, rdmatop.kineto
    rdmatop.kineto.enable(devices=["mlx5_0"], interval=0.001)
    with torch.profiler.profile() as prof:
        train_step()
    prof.export_chrome_trace("trace.json.gz")

The tracks sit in a process named "rdmatop", named ``rdmatop DEV/PORT``
with one key per counter (``sent_pkts/s``): Perfetto shows each as
``rdmatop DEV/PORT sent_pkts/s``.  Values are rates per second.
"""

import importlib.machinery
import importlib.util
import os
import threading

from . import _ctracks, _tracks

__all__ = ["enable", "disable", "is_enabled", "last_error"]

#: Points one trace holds at most, as the Kineto shim does: past it the
#: newest are dropped, and last_error() says how many.
MAX_POINTS = 2_000_000

_lock = threading.Lock()
_source = None
_ext = None


_REINSTALL = ("reinstall rdmatop into this environment with "
              "“pip install --no-build-isolation ./python” from an rdmatop checkout, "
              "so that its Kineto module is built against this torch")


def _import_torch():
    from . import Error

    try:
        import torch  # loads libtorch_cpu, which carries Kineto
    except ImportError as e:
        raise Error("rdmatop.kineto needs PyTorch, which this Python cannot import (%s): "
                    "install torch, then %s" % (e, _REINSTALL)) from None
    return torch


def _missing_module_sentence(torch, error):
    """Why an installed rdmatop has no usable _kineto, as a sentence to act on."""
    root = os.path.dirname(torch.__file__)
    header = os.path.join(root, "include", "kineto", "libkineto.h")
    try:
        with open(header, encoding="utf-8", errors="replace") as f:
            has_api = "registerProfilerFactory" in f.read(1 << 20)
    except OSError:
        has_api = False
    if not has_api:
        return ("torch %s has no Kineto child-profiler API (no %s): install a torch built "
                "with Kineto (such as torch 2.15 from pytorch.org), then %s"
                % (torch.__version__, header, _REINSTALL))
    return "rdmatop's Kineto module is missing or unusable (%s): %s" % (error, _REINSTALL)


def _load(path):
    loader = importlib.machinery.ExtensionFileLoader("rdmatop._kineto", path)
    spec = importlib.util.spec_from_file_location("rdmatop._kineto", path, loader=loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def _extension():
    # RDMATOP_KINETO_MODULE names the built module directly (tests run it
    # from the build tree); an installed package has it beside this file.
    global _ext
    if _ext is None:
        from . import Error

        torch = _import_torch()
        path = os.environ.get("RDMATOP_KINETO_MODULE")
        try:
            mod = _load(path) if path else importlib.import_module("rdmatop._kineto")
        except ImportError as e:
            raise Error(_missing_module_sentence(torch, e)) from None
        built = getattr(mod, "torch_version", None)
        if built != torch.__version__:
            raise Error("rdmatop's Kineto module was built against torch %s, but this Python "
                        "runs torch %s: %s" % (built, torch.__version__, _REINSTALL))
        _ext = mod
    return _ext


class _CaptureSource:
    """What the Kineto child profiler drives: one capture per trace.

    An rdmatop.Capture makes its points in C on its own thread
    (native_points(): one bytes object of rdmatop_track_point for the
    shim); another capture object goes through rdmatop._tracks in Python
    (points()), drained when it stops unless drain_s asks for more."""

    def __init__(self, make_capture, compact, drain_s=None):
        self._make_capture = make_capture
        self._compact = compact
        self._drain_s = drain_s
        self._recorder = None
        self._capture = None
        self._ctracks = None
        self._points = []
        self.error = None

    def start(self):
        import rdmatop

        self._points = []
        self.error = None
        self._close_native()
        try:
            cap = self._make_capture()
            if isinstance(cap, rdmatop.Capture):
                tracks = _ctracks.Tracks("time_ns", self._compact, MAX_POINTS)
                cap.set_tracks(tracks)
                cap.start()
                self._capture, self._ctracks = cap, tracks
            else:
                rec = _tracks.Recorder(cap, "time_ns", self._compact, self._drain_s)
                rec.start()
                self._recorder = rec
        except Exception as e:
            # Kineto only logs a child profiler's errors; keep the exception
            # so last_error() can say why a trace has no RDMA tracks.
            self.error = e
            raise

    def stop(self):
        if self._capture is not None:
            self._capture.stop()
        rec, self._recorder = self._recorder, None
        if rec is not None:
            rec.stop()
            self._points = rec.points()

    def _note_dropped(self, tracks):
        import rdmatop

        if tracks.dropped:
            self.error = rdmatop.Error(
                "The trace holds at most %d rdmatop points: %d more were dropped (profile "
                "for less time, at a longer interval, or with fewer metrics)"
                % (MAX_POINTS, tracks.dropped))

    def _close_native(self):
        cap, self._capture, self._ctracks = self._capture, None, None
        if cap is not None:
            cap.close()

    def native_points(self, start_ns, end_ns):
        """(bytes of rdmatop_track_point, [(track name, counter key)] by track
        index) for the window, or None when the capture was not rdmatop's."""
        tracks = self._ctracks
        if tracks is None:
            return None
        self._note_dropped(tracks)
        try:
            names = [(_tracks.track_name(d, p), _tracks.counter_key(c)) for d, p, c in tracks.names()]
            return tracks.raw(start_ns, end_ns), names
        finally:
            self._close_native()

    def points(self, start_ns, end_ns):
        if self._ctracks is not None:
            self._note_dropped(self._ctracks)
            pts = self._ctracks.points(start_ns, end_ns)
            self._close_native()
        else:
            pts, self._points = _tracks.clip(self._points, start_ns, end_ns), []
        return [
            (p.time_ns, _tracks.track_name(p.device, p.port), _tracks.counter_key(p.metric), p.rate)
            for p in pts
        ]


def enable(devices=None, ports=None, interval=0.001, metrics=None, compact=True, capture=None,
           drain_s=None):
    """Adds rdmatop's counter tracks to every torch.profiler trace from now on.

    ``devices``, ``ports``, ``interval`` (seconds) and ``metrics`` are those
    of :class:`rdmatop.Capture`.  The arguments are checked here, by
    opening one capture, so a wrong device name raises at once (an
    :class:`rdmatop.Error`) instead of silently leaving the trace without
    tracks.  Without torch, or with an rdmatop whose Kineto module was not
    built against this torch, it raises :class:`rdmatop.Error` saying what
    to install or rebuild.  ``compact`` drops points that repeat a track's value.
    ``capture``, if given, is a callable returning an object with
    ``start()``, ``stop()`` and ``samples()`` to use instead of
    :class:`rdmatop.Capture`.  An rdmatop.Capture turns its samples into
    points in C on its own thread, so no Python runs during the profile;
    another capture is read when the trace stops, or every ``drain_s``
    seconds on a thread if given (for one whose buffer would fill).
    Calling it again replaces the settings.
    """
    global _source
    _tracks.check_drain(drain_s)
    ext = _extension()  # raises rdmatop.Error saying what to install or rebuild
    if capture is None:
        import rdmatop

        def capture():
            return rdmatop.Capture(devices=devices, ports=ports, interval=interval, metrics=metrics)

        # Validate now: Kineto would only log an error from inside the trace.
        capture().close()
    src = _CaptureSource(capture, compact, drain_s)
    with _lock:
        ext.set_source(src)
        _source = src


def disable():
    """Traces started from now on have no rdmatop tracks."""
    global _source
    with _lock:
        if _ext is not None:
            _ext.set_source(None)
        _source = None


def is_enabled():
    """Whether traces get rdmatop tracks."""
    return _source is not None


def last_error():
    """The exception that kept the last trace's capture from starting, or
    the :class:`rdmatop.Error` saying that its points were past the bound
    (:data:`MAX_POINTS`) and some dropped; None when all went well."""
    src = _source
    return src.error if src is not None else None
