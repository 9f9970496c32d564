"""The memory a long 1 ms profile's counter tracks take in librdmatop.

Feeds rdmatop_tracks what a capture of --ports x --counters at 1 ms makes
in --minutes (the synthetic capture's pattern: every third counter idle,
the others at a rate that changes every pass), in chunks as the capture's
thread would, without waiting the minutes out; then prints the points
kept and dropped, the bytes the tracks hold, and the process's peak RSS
before and after.  A benchmark, not a test.

  tracks-memory.py [--minutes 10] [--ports 8] [--counters 15] [--max-points 0]
"""

import argparse
import ctypes
import resource

import numpy as np

from rdmatop import _ctracks, _native


def peak_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--minutes", type=float, default=10)
    ap.add_argument("--ports", type=int, default=8)
    ap.add_argument("--counters", type=int, default=15)
    ap.add_argument("--max-points", type=int, default=0)
    ap.add_argument("--no-compact", action="store_true")
    a = ap.parse_args()
    if not (0 < a.minutes <= 120 and 1 <= a.ports <= 64 and 1 <= a.counters <= 64):
        ap.error("--minutes is up to 120, --ports and --counters 1 to 64")
    passes = int(a.minutes * 60_000)
    tracks = _ctracks.Tracks("mono_ns", not a.no_compact, a.max_points)
    device = ctypes.create_string_buffer(b"synth0")
    names = [ctypes.create_string_buffer(b"counter_%d" % c) for c in range(a.counters)]
    dtype = np.dtype([("real", "<i8"), ("mono", "<i8"), ("device", "<u8"), ("counter", "<u8"),
                      ("port", "<u4"), ("reserved", "<u4"), ("value", "<u8")])
    assert dtype.itemsize == ctypes.sizeof(_native.CSample)
    n_tr = a.ports * a.counters
    port = np.repeat(np.arange(1, a.ports + 1, dtype=np.uint32), a.counters)
    ctr = np.tile(np.arange(a.counters), a.ports)
    ctr_addr = np.array([ctypes.addressof(n) for n in names], dtype=np.uint64)[ctr]
    busy = (ctr % 3 != 2)
    values = np.zeros(n_tr, dtype=np.uint64)
    before = peak_mb()
    chunk = 10_000
    for k0 in range(0, passes, chunk):
        k = np.arange(k0, min(passes, k0 + chunk))
        buf = np.zeros((len(k), n_tr), dtype=dtype)
        step = ((port[None, :] * (ctr[None, :] + 1)).astype(np.uint64)
                * (1 + (k[:, None] + port[None, :] + ctr[None, :]) % 5).astype(np.uint64))
        step[:, ~busy] = 0
        cum = values[None, :] + np.cumsum(step, axis=0, dtype=np.uint64)
        values = cum[-1].copy()
        t = (5_000_000_000 + k * 1_000_000).astype(np.int64)
        buf["real"] = t[:, None]
        buf["mono"] = t[:, None]
        buf["device"] = ctypes.addressof(device)
        buf["counter"] = ctr_addr[None, :]
        buf["port"] = port[None, :]
        buf["value"] = cum
        flat = buf.reshape(-1)
        _native.lib.rdmatop_tracks_feed(tracks._handle, flat.ctypes.data_as(
            ctypes.POINTER(_native.CSample)), len(flat))
    after = peak_mb()
    raw = tracks.raw(-(1 << 63), (1 << 63) - 1)
    clipped = peak_mb()
    print(f"{a.minutes:g} min at 1 ms, {a.ports} ports x {a.counters} counters "
          f"({passes * n_tr:,} samples), compact={not a.no_compact}, "
          f"max_points={a.max_points or 'default'}")
    print(f"points kept {len(raw) // _ctracks.POINT_SIZE:,}, dropped {tracks.dropped:,}; "
          f"tracks hold {tracks.size / 2**20:.1f} MiB")
    print(f"peak RSS {before:.0f} MiB before, {after:.0f} MiB after feeding "
          f"(+{after - before:.0f} MiB, with numpy's chunk buffers), {clipped:.0f} MiB after "
          f"the clip that reads them out")


if __name__ == "__main__":
    main()
