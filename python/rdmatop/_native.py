"""ctypes bindings of librdmatop (rdmatop.h); private to the package.

The library is looked for, in this order: the file named by the
environment variable RDMATOP_LIBRARY; librdmatop.so.1 next to this file
(what ``pip install`` puts there); the library directory meson installed
it to (``_build_config.LIBDIR``); and last the soname on the loader's
usual path.
"""

import ctypes
import os

SONAME = "librdmatop.so.1"
API_VERSION = 2

OK = 0
ERROR_FAILED = 1
ERROR_NO_RDMA = 2
ERROR_PERMISSION = 3
ERROR_NO_DEVICE = 4
ERROR_INVALID_ARGUMENT = 5
ERROR_NO_PROCESS = 6
ERROR_NO_JOB = 7

MIN_INTERVAL_NS = 1_000_000
MAX_INTERVAL_NS = 60_000_000_000

_c_str = ctypes.c_char_p
_handle = ctypes.c_void_p


class CSample(ctypes.Structure):
    """rdmatop_sample."""

    _fields_ = [
        ("realtime_ns", ctypes.c_int64),
        ("monotonic_ns", ctypes.c_int64),
        ("device", ctypes.c_char_p),
        ("counter", ctypes.c_char_p),
        ("port", ctypes.c_uint32),
        ("reserved", ctypes.c_uint32),
        ("value", ctypes.c_uint64),
    ]


class CStats(ctypes.Structure):
    """rdmatop_capture_stats."""

    _fields_ = [
        ("taken", ctypes.c_uint64),
        ("missed", ctypes.c_uint64),
        ("dropped", ctypes.c_uint64),
        ("dropped_samples", ctypes.c_uint64),
        ("samples", ctypes.c_uint64),
        ("read_errors", ctypes.c_uint64),
        ("intervals", ctypes.c_uint64),
        ("interval_min_ns", ctypes.c_int64),
        ("interval_max_ns", ctypes.c_int64),
        ("interval_median_ns", ctypes.c_int64),
        ("interval_p99_ns", ctypes.c_int64),
        ("interval_mean_ns", ctypes.c_double),
        ("cpu_ns", ctypes.c_int64),
        ("reserved", ctypes.c_uint64 * 8),
    ]


class CTrackPoint(ctypes.Structure):
    """rdmatop_track_point."""

    _fields_ = [
        ("time_ns", ctypes.c_int64),
        ("track", ctypes.c_uint32),
        ("reserved", ctypes.c_uint32),
        ("rate", ctypes.c_double),
    ]


CLOCK_REALTIME = 0
CLOCK_MONOTONIC = 1


def _candidates():
    env = os.environ.get("RDMATOP_LIBRARY")
    if env:
        yield env
    yield os.path.join(os.path.dirname(os.path.abspath(__file__)), SONAME)
    try:
        from . import _build_config
    except ImportError:
        pass
    else:
        yield os.path.join(_build_config.LIBDIR, SONAME)
    yield SONAME


def _load():
    errors = []
    for path in _candidates():
        if os.sep in path and not os.path.exists(path):
            continue
        try:
            return ctypes.CDLL(path)
        except OSError as e:
            errors.append(str(e))
    raise ImportError(
        "librdmatop is not installed where Python can find it (%s); build it with "
        "meson, or point RDMATOP_LIBRARY at librdmatop.so.1" % "; ".join(errors or [SONAME])
    )


def _declare(lib):
    sigs = {
        "rdmatop_version": (_c_str, []),
        "rdmatop_api_version": (ctypes.c_int, []),
        "rdmatop_last_error": (_c_str, []),
        "rdmatop_collector_open": (ctypes.c_int, [ctypes.POINTER(_c_str), ctypes.POINTER(_handle)]),
        "rdmatop_collector_close": (None, [_handle]),
        "rdmatop_collector_snapshot": (ctypes.c_int, [_handle, ctypes.POINTER(_handle)]),
        "rdmatop_snapshot_free": (None, [_handle]),
        "rdmatop_snapshot_realtime_ns": (ctypes.c_int64, [_handle]),
        "rdmatop_snapshot_monotonic_ns": (ctypes.c_int64, [_handle]),
        "rdmatop_snapshot_n_devices": (ctypes.c_size_t, [_handle]),
        "rdmatop_snapshot_device": (_handle, [_handle, ctypes.c_size_t]),
        "rdmatop_device_name": (_c_str, [_handle]),
        "rdmatop_device_provider": (_c_str, [_handle]),
        "rdmatop_device_kind": (_c_str, [_handle]),
        "rdmatop_device_n_ports": (ctypes.c_size_t, [_handle]),
        "rdmatop_device_port": (_handle, [_handle, ctypes.c_size_t]),
        "rdmatop_port_number": (ctypes.c_uint32, [_handle]),
        "rdmatop_port_state": (_c_str, [_handle]),
        "rdmatop_port_phys_state": (_c_str, [_handle]),
        "rdmatop_port_netdev": (_c_str, [_handle]),
        "rdmatop_port_link_layer": (_c_str, [_handle]),
        "rdmatop_port_rate_gbps": (ctypes.c_double, [_handle]),
        "rdmatop_port_health": (_c_str, [_handle]),
        "rdmatop_port_error": (_c_str, [_handle]),
        "rdmatop_port_n_counters": (ctypes.c_size_t, [_handle]),
        "rdmatop_port_counter": (ctypes.c_int, [_handle, ctypes.c_size_t, ctypes.POINTER(_c_str),
                                                ctypes.POINTER(ctypes.c_uint64),
                                                ctypes.POINTER(ctypes.c_double)]),
        "rdmatop_n_metrics": (ctypes.c_size_t, []),
        "rdmatop_metric_name": (_c_str, [ctypes.c_size_t]),
        "rdmatop_port_metric": (ctypes.c_int, [_handle, ctypes.c_size_t,
                                               ctypes.POINTER(ctypes.c_uint64),
                                               ctypes.POINTER(ctypes.c_double)]),
        "rdmatop_capture_new": (ctypes.c_int, [ctypes.POINTER(_c_str), ctypes.POINTER(ctypes.c_uint32),
                                               ctypes.c_size_t, ctypes.POINTER(_c_str),
                                               ctypes.c_uint64, ctypes.c_size_t,
                                               ctypes.POINTER(_handle)]),
        "rdmatop_capture_start": (ctypes.c_int, [_handle]),
        "rdmatop_capture_stop": (None, [_handle]),
        "rdmatop_capture_read": (ctypes.c_size_t, [_handle, ctypes.POINTER(CSample), ctypes.c_size_t]),
        "rdmatop_capture_get_stats": (None, [_handle, ctypes.POINTER(CStats)]),
        "rdmatop_capture_read_error": (_c_str, [_handle]),
        "rdmatop_capture_free": (None, [_handle]),
        "rdmatop_capture_new_synthetic": (ctypes.c_int, [ctypes.c_uint32, ctypes.c_uint32,
                                                         ctypes.c_uint64, ctypes.c_size_t,
                                                         ctypes.POINTER(_handle)]),
        "rdmatop_capture_set_tracks": (ctypes.c_int, [_handle, _handle]),
        "rdmatop_tracks_new": (ctypes.c_int, [ctypes.c_int, ctypes.c_int, ctypes.c_size_t,
                                              ctypes.POINTER(_handle)]),
        "rdmatop_tracks_feed": (None, [_handle, ctypes.POINTER(CSample), ctypes.c_size_t]),
        "rdmatop_tracks_n_tracks": (ctypes.c_size_t, [_handle]),
        "rdmatop_tracks_track": (ctypes.c_int, [_handle, ctypes.c_size_t, ctypes.POINTER(_c_str),
                                                ctypes.POINTER(ctypes.c_uint32),
                                                ctypes.POINTER(_c_str)]),
        "rdmatop_tracks_clip": (ctypes.c_int, [_handle, ctypes.c_int64, ctypes.c_int64,
                                               ctypes.POINTER(ctypes.POINTER(CTrackPoint)),
                                               ctypes.POINTER(ctypes.c_size_t)]),
        "rdmatop_tracks_points_free": (None, [ctypes.POINTER(CTrackPoint)]),
        "rdmatop_tracks_dropped": (ctypes.c_uint64, [_handle]),
        "rdmatop_tracks_size": (ctypes.c_size_t, [_handle]),
        "rdmatop_tracks_free": (None, [_handle]),
        "rdmatop_job_of_process": (ctypes.c_int, [ctypes.c_int32, ctypes.POINTER(_handle)]),
        "rdmatop_job_kind": (_c_str, [_handle]),
        "rdmatop_job_id": (_c_str, [_handle]),
        "rdmatop_job_detail": (_c_str, [_handle]),
        "rdmatop_job_name": (_c_str, [_handle]),
        "rdmatop_job_free": (None, [_handle]),
    }
    for name, (restype, argtypes) in sigs.items():
        fn = getattr(lib, name)
        fn.restype = restype
        fn.argtypes = argtypes
    return lib


lib = _declare(_load())


def text(value):
    """A C string from the library as str (None stays None)."""
    return None if value is None else value.decode("utf-8", "replace")


def strv(names):
    """A NULL-terminated char* array from a list of str, or None."""
    if names is None:
        return None
    arr = (_c_str * (len(names) + 1))()
    for i, name in enumerate(names):
        arr[i] = name.encode("utf-8")
    arr[len(names)] = None
    return arr


def last_error():
    """The calling thread's last failure sentence."""
    return text(lib.rdmatop_last_error())
