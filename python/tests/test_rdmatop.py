"""Unit tests of the rdmatop Python package on this machine (no RDMA
needed): errors and their sentences, argument checks, the rates helper.
The package on a real kernel (snapshots, 1 ms captures during traffic) is
the vm scenario "capture"."""

import ctypes
import math
import os
import subprocess
import sys
import unittest
from unittest import mock

import rdmatop
from rdmatop import _native


def c_interval_sentence(ns):
    """What librdmatop itself says about an interval of ns."""
    status = _native.lib.rdmatop_capture_new(None, None, 0, None, ns, 0,
                                            ctypes.byref(_native._handle()))
    assert status == _native.ERROR_INVALID_ARGUMENT, status
    return _native.last_error()


class TestLibrary(unittest.TestCase):
    def test_versions(self):
        self.assertEqual(rdmatop.library_version(), rdmatop.__version__)
        self.assertEqual(_native.lib.rdmatop_api_version(), _native.API_VERSION)

    def test_struct_sizes(self):
        # rdmatop.h: the sample is 2 times, 2 pointers, 2 u32 and a u64.
        self.assertEqual(ctypes.sizeof(_native.CSample), 8 * 4 + 4 * 2 + 8)
        self.assertEqual(ctypes.sizeof(_native.CStats), 8 * 13 + 8 * 8)


class TestErrors(unittest.TestCase):
    def test_interval_out_of_range(self):
        for value, shown in ((0.0001, "0.0001"), (0.000999999, "0.000999999"), (61, "61"),
                             (-1, "-1"), (float("nan"), "nan"), (math.inf, "inf"), (0, "0")):
            with self.subTest(value=value):
                with self.assertRaises(rdmatop.IntervalError) as cm:
                    rdmatop.Capture(interval=value)
                self.assertIsInstance(cm.exception, ValueError)
                self.assertIsInstance(cm.exception, rdmatop.Error)
                self.assertEqual(str(cm.exception),
                                 "The interval must be a number of seconds from 0.001 to 60, "
                                 "not \u201c%s\u201d" % shown)

    def test_interval_sentence_is_the_librarys(self):
        for value, ns in ((0.0001, 100000), (61, 61 * 10**9), (0.000999999, 999999)):
            with self.assertRaises(rdmatop.IntervalError) as cm:
                rdmatop.Capture(interval=value)
            self.assertEqual(str(cm.exception), c_interval_sentence(ns))

    def test_argument_types(self):
        for kwargs in ({"interval": "0.001"}, {"interval": True}, {"devices": [1]},
                       {"metrics": [""]}, {"devices": ["a\0b"]}):
            with self.subTest(**{k: repr(v) for k, v in kwargs.items()}):
                with self.assertRaises(TypeError):
                    rdmatop.Capture(**kwargs)
        with self.assertRaises(rdmatop.InvalidArgumentError):
            rdmatop.Capture(ports=[-1])
        with self.assertRaises(rdmatop.InvalidArgumentError):
            rdmatop.Capture(capacity=-5)

    def test_without_rdma_or_with(self):
        """NoRdmaError with a sentence where the kernel has no RDMA netlink;
        a snapshot and UnknownDeviceError where it has."""
        try:
            snap = rdmatop.snapshot()
        except (rdmatop.NoRdmaError, rdmatop.PermissionDeniedError) as e:
            self.assertIn("RDMA netlink", str(e))
            with self.assertRaises(type(e)):
                rdmatop.Capture(devices=["rxe0"])
            with self.assertRaises(type(e)):
                rdmatop.Collector()
            return
        self.assertGreater(snap.time_ns, 0)
        with self.assertRaises(rdmatop.UnknownDeviceError) as cm:
            rdmatop.snapshot(["nosuchdev0"])
        self.assertEqual(str(cm.exception), "no RDMA device named \u201cnosuchdev0\u201d (see \u201crdma dev\u201d)")


def c_job(pid):
    """librdmatop's own answer for pid: (status, (kind, id, detail, name) or None)."""
    h = _native._handle()
    status = _native.lib.rdmatop_job_of_process(pid, ctypes.byref(h))
    if status != _native.OK:
        return status, None
    lib = _native.lib
    try:
        return status, tuple(_native.text(f(h)) for f in (lib.rdmatop_job_kind, lib.rdmatop_job_id,
                                                           lib.rdmatop_job_detail, lib.rdmatop_job_name))
    finally:
        lib.rdmatop_job_free(h)


class _Lib:
    """librdmatop with some functions replaced (the rest are the real ones)."""

    def __init__(self, **replaced):
        self.__dict__.update(replaced)

    def __getattr__(self, name):
        return getattr(_native.lib, name)


class TestJob(unittest.TestCase):
    def test_this_process(self):
        job = rdmatop.job()
        status, want = c_job(os.getpid())
        # Every Linux process has a cgroup: some job, "cgroup" at least.
        self.assertEqual(status, _native.OK, _native.last_error())
        self.assertIsInstance(job, rdmatop.Job)
        self.assertEqual(tuple(job), want)
        self.assertEqual(rdmatop.job(os.getpid()), job)
        self.assertIn(job.kind, ("slurm", "kubernetes", "container", "service", "session", "cgroup"))
        self.assertTrue(job.id and job.name)

    def test_names_what_the_cgroup_file_says(self):
        # The id comes out of one of the file's paths (a pod UID as the
        # systemd driver writes it, with "_" for "-").
        job = rdmatop.job()
        with open("/proc/self/cgroup", encoding="utf-8", errors="replace") as f:
            text = f.read()
        self.assertTrue(job.id in text or job.id.replace("-", "_") in text, (job, text))
        if job.kind == "cgroup":
            # A bare cgroup: its path is the id and the name, no detail.
            paths = [line.split(":", 2)[2] for line in text.splitlines() if line.count(":") >= 2]
            self.assertIn(job.id, paths)
            self.assertEqual((job.detail, job.name), (None, job.id))
        else:
            self.assertIn(job.id, job.name.replace("_", "-"))

    def test_child_is_in_its_parents_job(self):
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        try:
            self.assertEqual(rdmatop.job(child.pid), rdmatop.job())
        finally:
            child.kill()
            child.wait()
        try:
            os.kill(child.pid, 0)
        except ProcessLookupError:
            with self.assertRaises(rdmatop.NoProcessError) as cm:
                rdmatop.job(child.pid)
            self.assertIsInstance(cm.exception, ProcessLookupError)
            self.assertIn(str(child.pid), str(cm.exception))
            self.assertEqual(c_job(child.pid)[0], _native.ERROR_NO_PROCESS)

    def test_bad_pids(self):
        with self.assertRaises(rdmatop.InvalidArgumentError) as cm:
            rdmatop.job(-1)
        self.assertIsInstance(cm.exception, ValueError)
        self.assertIn("\u201c-1\u201d is not a process id", str(cm.exception))
        self.assertEqual(c_job(-1)[0], _native.ERROR_INVALID_ARGUMENT)
        for pid in (2**31 - 1, 2**31, 2**40):
            with self.subTest(pid=pid):
                with self.assertRaises(rdmatop.NoProcessError):
                    rdmatop.job(pid)
        for pid in ("1", 1.0, True, None):
            with self.subTest(pid=pid):
                with self.assertRaises(TypeError):
                    rdmatop.job(pid)

    def test_no_job_is_none(self):
        calls = []

        def no_job(pid, out):
            calls.append(pid)
            return _native.ERROR_NO_JOB

        with mock.patch.object(rdmatop, "lib", _Lib(rdmatop_job_of_process=no_job)):
            self.assertIsNone(rdmatop.job())
        self.assertEqual(calls, [0])

    def test_job_is_freed(self):
        freed = []

        def free(h):
            freed.append(h)
            _native.lib.rdmatop_job_free(h)

        with mock.patch.object(rdmatop, "lib", _Lib(rdmatop_job_free=free)):
            rdmatop.job()
            rdmatop.job()
        self.assertEqual(len(freed), 2)
        self.assertTrue(all(freed))


class TestKinetoWithoutTorch(unittest.TestCase):
    def test_enable_says_what_to_install(self):
        import sys
        import rdmatop.kineto

        saved = sys.modules.get("torch")
        sys.modules["torch"] = None  # import torch raises ImportError
        try:
            with self.assertRaises(rdmatop.Error) as cm:
                rdmatop.kineto.enable()
        finally:
            if saved is None:
                del sys.modules["torch"]
            else:
                sys.modules["torch"] = saved
        self.assertIn("install torch", str(cm.exception))
        self.assertIn("pip install --no-build-isolation ./python", str(cm.exception))
        self.assertFalse(rdmatop.kineto.is_enabled())


def S(t, dev, port, metric, value):
    return rdmatop.Sample(t + 10**18, t, dev, port, metric, value)


class TestRates(unittest.TestCase):
    def test_per_interval_per_key(self):
        samples = [S(0, "rxe0", 1, "sent_pkts", 100), S(0, "rxe0", 1, "rcvd_pkts", 5),
                   S(10**6, "rxe0", 1, "sent_pkts", 150), S(10**6, "rxe0", 1, "rcvd_pkts", 5),
                   S(3 * 10**6, "rxe0", 1, "sent_pkts", 250), S(0, "rxe1", 1, "sent_pkts", 0)]
        got = list(rdmatop.rates(samples))
        self.assertEqual([(r.device, r.metric, r.delta) for r in got],
                         [("rxe0", "sent_pkts", 50), ("rxe0", "rcvd_pkts", 0), ("rxe0", "sent_pkts", 100)])
        self.assertAlmostEqual(got[0].rate, 50000.0)
        self.assertAlmostEqual(got[2].rate, 50000.0)
        self.assertAlmostEqual(got[2].interval_s, 0.002)
        self.assertEqual(got[0].time_ns, 10**6 + 10**18)

    def test_reset_yields_no_rate(self):
        got = list(rdmatop.rates([S(0, "d", 1, "c", 10), S(1000, "d", 1, "c", 3), S(2000, "d", 1, "c", 4)]))
        self.assertEqual([r.delta for r in got], [1])

    def test_continues_across_calls(self):
        last = {}
        self.assertEqual(list(rdmatop.rates([S(0, "d", 1, "c", 1)], last)), [])
        got = list(rdmatop.rates([S(1000, "d", 1, "c", 2)], last))
        self.assertEqual([r.delta for r in got], [1])


class TestTracksParity(unittest.TestCase):
    """The C tracks (rdmatop._ctracks) and the Python ones (rdmatop._tracks)
    give the same points for one capture's samples."""

    @classmethod
    def setUpClass(cls):
        import time

        cap = rdmatop.Capture.synthetic(ports=3, counters=6)
        cap.start()
        while cap.stats.taken < 40:
            time.sleep(0.005)
        cap.stop()
        cls.samples = list(cap.samples())
        cap.close()
        # A reset and a repeated read in the middle of one counter.
        s = cls.samples
        k = next(i for i in range(len(s) // 2, len(s)) if s[i].metric == "sent_pkts")
        s[k] = s[k]._replace(value=0)

    @staticmethod
    def key(p):
        return (p.time_ns, p.device, p.port, p.metric, p.rate)

    def test_same_points(self):
        from rdmatop import _ctracks, _tracks

        self.assertEqual(len(self.samples) % 18, 0)
        for clock in ("time_ns", "mono_ns"):
            for compact in (False, True):
                with self.subTest(clock=clock, compact=compact):
                    py = _tracks.TrackBuilder(clock, compact)
                    c = _ctracks.Tracks(clock, compact)
                    for i in range(0, len(self.samples), 50):  # batches cut across passes
                        py.feed(self.samples[i:i + 50])
                        c.feed(self.samples[i:i + 50])
                    want = sorted(py.points(), key=self.key)
                    got = sorted(c.points(), key=self.key)
                    self.assertGreater(len(want), 18)
                    self.assertEqual(got, want)
                    times = [p.time_ns for p in want]
                    lo, hi = times[len(times) // 3], times[2 * len(times) // 3] + 1
                    self.assertEqual(sorted(c.points(lo, hi), key=self.key),
                                     sorted(_tracks.clip(want, lo, hi), key=self.key))

    def test_synthetic_bounds(self):
        for kwargs in ({"ports": 0}, {"counters": 65}, {"ports": -1}, {"interval": 0.0001}):
            with self.subTest(**kwargs):
                with self.assertRaises(rdmatop.InvalidArgumentError):
                    rdmatop.Capture.synthetic(**kwargs)


if __name__ == "__main__":
    unittest.main()
