"""RDMA counters from inside a Python program, over librdmatop.

Two things are offered:

* :func:`snapshot` (and :class:`Collector` for repeated snapshots with
  rates): every RDMA device of this machine, its ports, their state, raw
  counters and canonical metrics;
* :class:`Capture`: chosen ports' raw counters at a fixed period, down to
  1 ms, sampled on a thread of the library's own while the program runs,
  with :meth:`Capture.samples` and :meth:`Capture.rates` to read them.
* :func:`job`: the job a process belongs to (a Slurm job step, a pod, a
  container...), as its cgroup says.

Errors raise subclasses of :class:`Error` whose messages are the sentences
``rdmatop-cli`` prints: :class:`NoRdmaError`, :class:`PermissionDeniedError`,
:class:`UnknownDeviceError`, :class:`IntervalError` (also a
:class:`ValueError`) and :class:`NoProcessError`.

Example::

    import rdmatop
    with rdmatop.Capture(devices=["rxe0"], interval=0.001) as cap:
        run_the_step()
    for r in cap.rates():
        print(r.device, r.port, r.metric, r.rate)
"""

import collections
import ctypes
import numbers
from dataclasses import dataclass, field
from typing import Dict, Iterable, Iterator, List, Optional

from . import _native
from ._native import lib

__all__ = [
    "Error", "NoRdmaError", "PermissionDeniedError", "UnknownDeviceError",
    "InvalidArgumentError", "IntervalError",
    "Metric", "Port", "Device", "Snapshot", "Collector", "snapshot",
    "Sample", "Rate", "CaptureStats", "Capture", "rates",
    "NoProcessError", "Job", "job",
    "MIN_INTERVAL", "MAX_INTERVAL", "__version__", "library_version",
]

#: The shortest capture interval, in seconds (1 ms).
MIN_INTERVAL = _native.MIN_INTERVAL_NS / 1e9
#: The longest capture interval, in seconds.
MAX_INTERVAL = _native.MAX_INTERVAL_NS / 1e9

__version__ = "0.1.0"


def library_version() -> str:
    """The version of the librdmatop this package runs on, e.g. ``"0.1.0"``."""
    return _native.text(lib.rdmatop_version())


# ---- Errors ----


class Error(Exception):
    """Base of every rdmatop error; ``str(e)`` is a sentence for people."""


class NoRdmaError(Error):
    """The kernel has no RDMA netlink (no RDMA driver is loaded)."""


class PermissionDeniedError(Error, PermissionError):
    """The system does not let this user read RDMA netlink."""


class UnknownDeviceError(Error, LookupError):
    """A device, port or counter named does not exist."""


class InvalidArgumentError(Error, ValueError):
    """An argument the library refused."""


class IntervalError(InvalidArgumentError):
    """A capture interval outside 1 ms to 60 s."""


class NoProcessError(Error, ProcessLookupError):
    """A process named does not exist (or exited while it was read)."""


_ERRORS = {
    _native.ERROR_NO_RDMA: NoRdmaError,
    _native.ERROR_PERMISSION: PermissionDeniedError,
    _native.ERROR_NO_DEVICE: UnknownDeviceError,
    _native.ERROR_INVALID_ARGUMENT: InvalidArgumentError,
    _native.ERROR_NO_PROCESS: NoProcessError,
}


def _check(status, cls=None):
    if status != _native.OK:
        raise (cls or _ERRORS.get(status, Error))(_native.last_error())


def _names(value, what):
    """A list of str from None, one str or an iterable of str."""
    if value is None:
        return None
    if isinstance(value, str):
        value = [value]
    value = list(value)
    for v in value:
        if not isinstance(v, str) or not v or "\0" in v:
            raise TypeError("%s must be names (str), not %r" % (what, v))
    return value


# ---- Snapshots ----


@dataclass(frozen=True)
class Metric:
    """A canonical metric of a port (``tx_bytes``, ``rx_packets``, ...).

    ``value`` is cumulative in the metric's unit (bytes, packets, events);
    ``rate`` is per second since the collector's previous snapshot, or
    None when there is none yet.
    """

    value: int
    rate: Optional[float]


@dataclass(frozen=True)
class Port:
    """One port of a device, as one snapshot saw it.

    ``counters`` maps the kernel's counter names to their raw cumulative
    values; ``counter_rates`` the same names to rates per second (those
    that have one); ``metrics`` canonical metric names to :class:`Metric`.
    ``error`` says why the port could not be read, or is None.
    """

    number: int
    state: str
    phys_state: str
    netdev: Optional[str]
    link_layer: Optional[str]
    rate_gbps: float
    health: str
    error: Optional[str]
    counters: Dict[str, int] = field(default_factory=dict)
    counter_rates: Dict[str, float] = field(default_factory=dict)
    metrics: Dict[str, Metric] = field(default_factory=dict)


@dataclass(frozen=True)
class Device:
    """An RDMA device (``rxe0``, ``mlx5_0``): its provider, kind and ports."""

    name: str
    provider: Optional[str]
    kind: str
    ports: List[Port] = field(default_factory=list)

    def port(self, number: int) -> Port:
        """The port with this 1-based number; KeyError when there is none."""
        for p in self.ports:
            if p.number == number:
                return p
        raise KeyError(number)


@dataclass(frozen=True)
class Snapshot:
    """One pass over the devices: ``time_ns`` (CLOCK_REALTIME), ``mono_ns``
    (CLOCK_MONOTONIC) and the devices in natural order of their names."""

    time_ns: int
    mono_ns: int
    devices: List[Device] = field(default_factory=list)

    def device(self, name: str) -> Device:
        """The device of that name; KeyError when there is none."""
        for d in self.devices:
            if d.name == name:
                return d
        raise KeyError(name)


def _port_from(p):
    counters, counter_rates, metrics = {}, {}, {}
    name, value, rate = _native._c_str(), ctypes.c_uint64(), ctypes.c_double()
    for i in range(lib.rdmatop_port_n_counters(p)):
        has = lib.rdmatop_port_counter(p, i, ctypes.byref(name), ctypes.byref(value), ctypes.byref(rate))
        key = _native.text(name.value)
        counters[key] = value.value
        if has == 1:
            counter_rates[key] = rate.value
    for m in range(lib.rdmatop_n_metrics()):
        has = lib.rdmatop_port_metric(p, m, ctypes.byref(value), ctypes.byref(rate))
        if has >= 0:
            metrics[_native.text(lib.rdmatop_metric_name(m))] = Metric(value.value, rate.value if has else None)
    return Port(
        number=lib.rdmatop_port_number(p),
        state=_native.text(lib.rdmatop_port_state(p)),
        phys_state=_native.text(lib.rdmatop_port_phys_state(p)),
        netdev=_native.text(lib.rdmatop_port_netdev(p)),
        link_layer=_native.text(lib.rdmatop_port_link_layer(p)),
        rate_gbps=lib.rdmatop_port_rate_gbps(p),
        health=_native.text(lib.rdmatop_port_health(p)),
        error=_native.text(lib.rdmatop_port_error(p)),
        counters=counters, counter_rates=counter_rates, metrics=metrics,
    )


def _snapshot_from(s):
    devices = []
    for i in range(lib.rdmatop_snapshot_n_devices(s)):
        d = lib.rdmatop_snapshot_device(s, i)
        ports = [_port_from(lib.rdmatop_device_port(d, j)) for j in range(lib.rdmatop_device_n_ports(d))]
        devices.append(Device(_native.text(lib.rdmatop_device_name(d)),
                              _native.text(lib.rdmatop_device_provider(d)),
                              _native.text(lib.rdmatop_device_kind(d)), ports))
    return Snapshot(lib.rdmatop_snapshot_realtime_ns(s), lib.rdmatop_snapshot_monotonic_ns(s), devices)


class Collector:
    """An open RDMA netlink collector, for snapshots with rates.

    ``devices``: names to read (each must exist), or None for all.  Use it
    as a context manager, or call :meth:`close`.  Not for use from two
    threads at once.

    Raises :class:`NoRdmaError` without RDMA netlink.
    """

    def __init__(self, devices: Optional[Iterable[str]] = None):
        self._devices = _native.strv(_names(devices, "devices"))
        handle = _native._handle()
        _check(lib.rdmatop_collector_open(self._devices, ctypes.byref(handle)))
        self._handle = handle

    def snapshot(self) -> Snapshot:
        """One pass: devices, ports, counters and metrics; rates are per
        second since this collector's previous snapshot (none in its first).

        Raises :class:`UnknownDeviceError` when a device named is missing.
        """
        if not self._handle:
            raise Error("The collector is closed.")
        s = _native._handle()
        _check(lib.rdmatop_collector_snapshot(self._handle, ctypes.byref(s)))
        try:
            return _snapshot_from(s)
        finally:
            lib.rdmatop_snapshot_free(s)

    def close(self) -> None:
        """Closes the netlink socket; idempotent."""
        if getattr(self, "_handle", None):
            lib.rdmatop_collector_close(self._handle)
            self._handle = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        self.close()


def snapshot(devices: Optional[Iterable[str]] = None) -> Snapshot:
    """One snapshot of the RDMA devices named (all when None), without rates.

    Raises :class:`NoRdmaError` without RDMA netlink and
    :class:`UnknownDeviceError` for a device that does not exist.
    """
    with Collector(devices) as c:
        return c.snapshot()


# ---- Jobs ----


Job = collections.namedtuple("Job", "kind id detail name")
Job.__doc__ = """The job a process belongs to, as its cgroup says.

``kind``: ``"slurm"``, ``"kubernetes"``, ``"container"``, ``"service"``,
``"session"`` or ``"cgroup"`` (a path no layout matches); ``id``: the Slurm
job id, the pod UID, the container id, the service, the session, or the
cgroup path; ``detail``: the Slurm step, the pod's container, the container
runtime, the session's uid, or None; ``name``: short and
language-neutral, ``"slurm 1234.0"``.  Job names say who runs what: keep
them to the user's own traces and screens."""

_PID_MAX = 0x7FFFFFFF


def job(pid: int = 0) -> Optional[Job]:
    """The :class:`Job` of process ``pid`` (0: this process), or None when
    its cgroup names no job.

    Raises :class:`NoProcessError` when there is no process ``pid``,
    :class:`InvalidArgumentError` for a negative pid, TypeError for one
    that is not a whole number.
    """
    if isinstance(pid, bool) or not isinstance(pid, numbers.Integral):
        raise TypeError("pid must be a process id (int), not %r" % (pid,))
    pid = int(pid)
    if pid > _PID_MAX:
        raise NoProcessError("There is no process %d" % pid)
    handle = _native._handle()
    status = lib.rdmatop_job_of_process(pid, ctypes.byref(handle))
    if status == _native.ERROR_NO_JOB:
        return None
    _check(status)
    try:
        return Job(_native.text(lib.rdmatop_job_kind(handle)), _native.text(lib.rdmatop_job_id(handle)),
                   _native.text(lib.rdmatop_job_detail(handle)), _native.text(lib.rdmatop_job_name(handle)))
    finally:
        lib.rdmatop_job_free(handle)


# ---- Captures ----


Sample = collections.namedtuple("Sample", "time_ns mono_ns device port metric value")
Sample.__doc__ = """One raw counter of one port at one read.

``time_ns``: CLOCK_REALTIME in ns; ``mono_ns``: CLOCK_MONOTONIC in ns at the
same moment; ``device``, ``port``; ``metric``: the kernel's counter name
(``sent_pkts``, ``port_xmit_data``, ...); ``value``: raw and cumulative."""

Rate = collections.namedtuple("Rate", "time_ns mono_ns device port metric rate delta interval_s")
Rate.__doc__ = """A counter's rise over one interval of a capture.

``time_ns``/``mono_ns``: the end of the interval (the later read);
``rate``: ``delta / interval_s`` per second; ``delta``: the rise of the raw
counter; ``interval_s``: seconds between the two reads."""

CaptureStats = collections.namedtuple(
    "CaptureStats",
    "taken missed dropped dropped_samples samples read_errors intervals "
    "interval_min_ns interval_median_ns interval_p99_ns interval_max_ns interval_mean_ns cpu_ns")
CaptureStats.__doc__ = """How a capture went.

``taken``: passes run (each reads every port once); ``missed``: deadlines
skipped because the pass before ran past them (never made up by a burst);
``dropped``/``dropped_samples``: passes not kept because the buffer was
full; ``samples``: samples kept; ``read_errors``: port reads that failed;
``intervals``: intervals measured between passes, with their min, median,
99th percentile (both within 1/32), max and mean in ns; ``cpu_ns``: CPU
time of the capture's thread."""


def rates(samples: Iterable[Sample], _last=None) -> Iterator[Rate]:
    """Per-interval rates of consecutive samples of each (device, port,
    metric), in the order of the later sample.  A counter that goes back
    (a reset) yields no rate for that interval."""
    last = {} if _last is None else _last
    for s in samples:
        key = (s.device, s.port, s.metric)
        prev = last.get(key)
        last[key] = s
        if prev is None or s.value < prev.value or s.mono_ns <= prev.mono_ns:
            continue
        dt = (s.mono_ns - prev.mono_ns) / 1e9
        delta = s.value - prev.value
        yield Rate(s.time_ns, s.mono_ns, s.device, s.port, s.metric, delta / dt, delta, dt)


# The library's sentence (rdmatop-cli's), also for values it cannot be
# given (negative, not finite); the tests hold the two to the same words.
_INTERVAL_SENTENCE = "The interval must be a number of seconds from %g to %g, not \u201c%s\u201d"


def _interval_ns(interval):
    if isinstance(interval, bool) or not isinstance(interval, numbers.Real):
        raise TypeError("interval must be a number of seconds, not %r" % (interval,))
    if not (MIN_INTERVAL <= interval <= MAX_INTERVAL):
        raise IntervalError(_INTERVAL_SENTENCE % (MIN_INTERVAL, MAX_INTERVAL, "%g" % interval))
    return int(round(interval * 1e9))


class Capture:
    """Chosen ports' raw counters at a fixed period, on a thread of its own.

    ``devices``: device names (each must exist), or None for every RDMA
    device; ``ports``: port numbers, or None for all; ``interval``: seconds
    between passes, 0.001 to 60; ``metrics``: counter names to keep (each
    must exist on a captured port), or None for all; ``capacity``: samples
    kept until read (0: 1048576); a pass that does not fit is dropped and
    counted in :attr:`stats`.

    A capture reads only those ports' counters (hw counters over RDMA
    netlink, sysfs PMA counters; no netdev byte counters, no processes) at
    deadlines start + k * interval; a deadline the previous pass ran past
    is skipped and counted (``stats.missed``).

    The ports are looked up when the capture is made, so errors come at
    once: :class:`IntervalError`, :class:`NoRdmaError`,
    :class:`UnknownDeviceError`.  As a context manager it starts on entry
    and stops on exit; samples stay readable after :meth:`stop`.
    """

    _BATCH = 4096

    def __init__(self, devices: Optional[Iterable[str]] = None,
                 ports: Optional[Iterable[int]] = None,
                 interval: float = 0.001,
                 metrics: Optional[Iterable[str]] = None,
                 capacity: int = 0):
        self._handle = None
        interval_ns = _interval_ns(interval)
        names = _native.strv(_names(devices, "devices"))
        counters = _native.strv(_names(metrics, "metrics"))
        port_list = None if ports is None else [int(p) for p in ([ports] if isinstance(ports, int) else ports)]
        if port_list is not None and any(p < 0 or p > 0xFFFFFFFF for p in port_list):
            raise InvalidArgumentError("Port numbers are from 1 to 4294967295")
        c_ports = None if port_list is None else (ctypes.c_uint32 * max(len(port_list), 1))(*port_list)
        if not isinstance(capacity, int) or capacity < 0:
            raise InvalidArgumentError("capacity must be a number of samples, 0 for the default")
        handle = _native._handle()
        _check(lib.rdmatop_capture_new(names, c_ports, 0 if port_list is None else len(port_list),
                                       counters, interval_ns, capacity, ctypes.byref(handle)))
        self._adopt(handle, interval_ns)

    @classmethod
    def synthetic(cls, ports: int = 8, counters: int = 15, interval: float = 0.001,
                  capacity: int = 0) -> "Capture":
        """A capture with no RDMA: ``ports`` ports (1 to 64) of a device
        "synth0" with ``counters`` counters each (1 to 64), made up on the
        capture's thread where a real capture reads the kernel (every third
        counter idle, the others counting at a rate that changes every
        pass).  For tests and benchmarks."""
        interval_ns = _interval_ns(interval)
        for name, value in (("ports", ports), ("counters", counters), ("capacity", capacity)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise InvalidArgumentError("%s must be a whole number, not %r" % (name, value))
        self = cls.__new__(cls)
        self._handle = None
        handle = _native._handle()
        _check(lib.rdmatop_capture_new_synthetic(min(ports, 0xFFFFFFFF), min(counters, 0xFFFFFFFF),
                                                 interval_ns, capacity, ctypes.byref(handle)))
        self._adopt(handle, interval_ns)
        return self

    def _adopt(self, handle, interval_ns):
        self._handle = handle
        self._tracks = None
        self.interval = interval_ns / 1e9
        self._buf = (_native.CSample * self._BATCH)()
        self._strings = {}
        self._last = {}
        self._pending = collections.deque()
        self._read = 0

    def start(self) -> "Capture":
        """Starts sampling; the first pass runs at once.  Once per capture."""
        _check(lib.rdmatop_capture_start(self._live()))
        return self

    def set_tracks(self, tracks) -> None:
        """Before :meth:`start`: the capture turns its samples into the
        counter-track points of ``tracks`` (an ``rdmatop._ctracks.Tracks``)
        on its own thread, instead of keeping them for :meth:`samples`."""
        _check(lib.rdmatop_capture_set_tracks(self._live(), tracks._handle))
        self._tracks = tracks  # the capture's thread writes to it until close()

    def stop(self) -> None:
        """Stops sampling; no pass runs after it returns.  Idempotent."""
        if self._handle:
            lib.rdmatop_capture_stop(self._handle)

    def _live(self):
        if not self._handle:
            raise Error("The capture is closed.")
        return self._handle

    def _text(self, raw):
        s = self._strings.get(raw)
        if s is None:
            s = self._strings[raw] = _native.text(raw)
        return s

    def samples(self) -> Iterator[Sample]:
        """Yields the samples that were taken and not read yet when it was
        called, oldest first (so it ends, however fast the capture takes
        new ones); each sample is yielded once over the capture's life,
        also when an iteration is left early, and reading keeps the buffer
        from filling.  Works while running and after stop."""
        handle, buf, pending = self._live(), self._buf, self._pending
        st = _native.CStats()
        lib.rdmatop_capture_get_stats(handle, ctypes.byref(st))
        left = st.samples - self._read          # waiting in the library
        while True:
            if not pending:
                if left <= 0:
                    return
                n = lib.rdmatop_capture_read(handle, buf, min(self._BATCH, left))
                if n == 0:
                    return
                left -= n
                self._read += n
                text = self._text
                pending.extend(Sample(c.realtime_ns, c.monotonic_ns, text(c.device), c.port,
                                      text(c.counter), c.value) for c in buf[:n])
            while pending:
                yield pending.popleft()

    def rates(self) -> Iterator[Rate]:
        """Reads the samples waiting (as :meth:`samples` does) and
        yields per-interval :class:`Rate` for each (device, port, metric),
        continuing from the samples read before."""
        return rates(self.samples(), self._last)

    @property
    def stats(self) -> CaptureStats:
        """The capture's :class:`CaptureStats` so far."""
        st = _native.CStats()
        lib.rdmatop_capture_get_stats(self._live(), ctypes.byref(st))
        return CaptureStats(st.taken, st.missed, st.dropped, st.dropped_samples, st.samples,
                            st.read_errors, st.intervals, st.interval_min_ns, st.interval_median_ns,
                            st.interval_p99_ns, st.interval_max_ns, st.interval_mean_ns, st.cpu_ns)

    @property
    def read_error(self) -> Optional[str]:
        """The sentence of the newest failed port read, or None."""
        return _native.text(lib.rdmatop_capture_read_error(self._live()))

    @property
    def taken(self) -> int:
        """Passes run so far."""
        return self.stats.taken

    @property
    def missed(self) -> int:
        """Deadlines skipped so far."""
        return self.stats.missed

    def close(self) -> None:
        """Stops the capture and frees it (its samples too); idempotent."""
        if getattr(self, "_handle", None):
            lib.rdmatop_capture_free(self._handle)
            self._handle = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    def __del__(self):
        self.close()
