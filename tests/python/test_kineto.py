"""rdmatop.kineto in a real torch.profiler run on this machine, no RDMA.

The capture here is a stand-in that reports counters for two ports (one
counting, one idle) on the real clocks, so what is tested is rdmatop's
Kineto child profiler inside the installed torch: that it starts and stops
with the trace, that the trace Kineto exports (plain and gzip) has the
counter tracks as native counter events inside the torch events' own time
span, and that it follows Perfetto's rules.  The real capture during real
RDMA traffic is tested in the Soft-RoCE guest (tests/vm/scenario-kineto.sh).
"""

import os
import sys
import tempfile
import time
import unittest

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
sys.path.insert(0, os.environ.get("RDMATOP_PYTHON_SRC", os.path.join(here, "../../python")))

import torch  # noqa: E402
import torch.profiler  # noqa: E402

import perfetto_rules  # noqa: E402
import rdmatop.kineto  # noqa: E402

from standin import ClockCapture  # noqa: E402


def matmuls():
    a = torch.randn(128, 128)
    for _ in range(20):
        a = torch.tanh(a @ a)
    return a


def profile_to(path):
    # Kineto saves a trace once: one profile per file.
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
        matmuls()
        time.sleep(0.05)
        matmuls()
    prof.export_chrome_trace(path)


class Kineto(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        ClockCapture.instances.clear()

    def tearDown(self):
        rdmatop.kineto.disable()
        self.dir.cleanup()

    def path(self, name):
        return os.path.join(self.dir.name, name)

    def test_counter_tracks_plain_and_gzip(self):
        rdmatop.kineto.enable(capture=ClockCapture)
        self.assertTrue(rdmatop.kineto.is_enabled())
        profile_to(self.path("t.json"))
        profile_to(self.path("t.json.gz"))
        self.assertEqual(len(ClockCapture.instances), 2, "one capture per trace")
        for cap in ClockCapture.instances:
            self.assertIsNotNone(cap.started)
            self.assertIsNotNone(cap.stopped)
        with open(self.path("t.json.gz"), "rb") as f:
            self.assertEqual(f.read(2), b"\x1f\x8b", "the .gz export is gzip")

        for name in ("t.json", "t.json.gz"):
            with self.subTest(name):
                trace = perfetto_rules.load(self.path(name))
                pid = perfetto_rules.pid_named(trace, "rdmatop")
                self.assertIsNotNone(pid, "a process named rdmatop")
                self.assertEqual(perfetto_rules.check(trace, [pid]), [])
                tracks = perfetto_rules.counter_tracks(trace, pid)
                busy = tracks.get(("rdmatop rxe0/1", "sent_pkts/s"))
                idle = tracks.get(("rdmatop rxe2/1", "sent_pkts/s"))
                self.assertTrue(busy, f"a busy track among {sorted(tracks)}")
                self.assertTrue(idle, f"an idle track among {sorted(tracks)}")
                self.assertGreater(max(v for _, v in busy), 0)
                # 3 per millisecond: the rate is per second.
                self.assertAlmostEqual(sorted(v for _, v in busy)[len(busy) // 2], 3000, delta=30)
                self.assertTrue(all(v == 0 for _, v in idle))
                lo, hi = perfetto_rules.span(trace, exclude_pid=pid)
                ts = [t for pts in tracks.values() for t, _ in pts]
                self.assertGreaterEqual(min(ts), lo, "no point before the torch events")
                self.assertLessEqual(max(ts), hi, "no point after the torch events")
                # The stand-in counted 50 ms beyond both ends: those are clipped,
                # and the points cover the 50 ms sleep inside the trace.
                self.assertGreater(max(ts) - min(ts), 50_000)

    def test_disable(self):
        rdmatop.kineto.enable(capture=ClockCapture)
        rdmatop.kineto.disable()
        self.assertFalse(rdmatop.kineto.is_enabled())
        profile_to(self.path("off.json"))
        trace = perfetto_rules.load(self.path("off.json"))
        self.assertIsNone(perfetto_rules.pid_named(trace, "rdmatop"))
        self.assertEqual(ClockCapture.instances, [])

    def test_failing_capture_leaves_a_torch_trace(self):
        class Refused(Exception):
            pass

        class Broken(ClockCapture):
            def start(self):
                raise Refused("rxe9: no such RDMA device")

        rdmatop.kineto.enable(capture=Broken)
        profile_to(self.path("broken.json"))
        trace = perfetto_rules.load(self.path("broken.json"))
        self.assertEqual(perfetto_rules.check(trace), [])
        pid = perfetto_rules.pid_named(trace, "rdmatop")
        self.assertEqual(perfetto_rules.counter_tracks(trace, pid) if pid else {}, {})
        self.assertIsInstance(rdmatop.kineto.last_error(), Refused)

    def test_points_made_in_c_no_python_thread(self):
        import threading

        rdmatop.kineto.enable(capture=lambda: rdmatop.Capture.synthetic(ports=2, counters=3))
        threads = []
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
            matmuls()
            time.sleep(0.05)
            threads = [t.name for t in threading.enumerate()]
            matmuls()
        prof.export_chrome_trace(self.path("c.json"))
        self.assertEqual(threads, [threading.main_thread().name], "no Python thread while profiling")
        trace = perfetto_rules.load(self.path("c.json"))
        pid = perfetto_rules.pid_named(trace, "rdmatop")
        self.assertIsNotNone(pid)
        self.assertEqual(perfetto_rules.check(trace, [pid]), [])
        tracks = perfetto_rules.counter_tracks(trace, pid)
        self.assertEqual(len(tracks), 6, sorted(tracks))
        busy = tracks[("rdmatop synth0/1", "sent_pkts/s")]
        idle = tracks[("rdmatop synth0/2", "duplicate_request/s")]
        self.assertGreaterEqual(len(busy), 2)
        self.assertTrue(all(v > 0 for _, v in busy))
        self.assertTrue(all(v == 0 for _, v in idle))
        lo, hi = perfetto_rules.span(trace, exclude_pid=pid)
        ts = [t for pts in tracks.values() for t, _ in pts]
        self.assertGreaterEqual(min(ts), lo)
        self.assertLessEqual(max(ts), hi)

    def test_points_past_the_bound_are_said(self):
        saved = rdmatop.kineto.MAX_POINTS
        rdmatop.kineto.MAX_POINTS = 10
        try:
            rdmatop.kineto.enable(capture=lambda: rdmatop.Capture.synthetic(ports=2, counters=3))
            profile_to(self.path("bound.json"))
        finally:
            rdmatop.kineto.MAX_POINTS = saved
        err = rdmatop.kineto.last_error()
        self.assertIsInstance(err, rdmatop.Error)
        self.assertIn("more were dropped", str(err))
        trace = perfetto_rules.load(self.path("bound.json"))
        pid = perfetto_rules.pid_named(trace, "rdmatop")
        points = sum(len(v) for v in perfetto_rules.counter_tracks(trace, pid).values())
        self.assertLessEqual(points, 10 + 6 * 2, "the bound, held points and window ends")

    def test_unusable_module_says_what_to_rebuild(self):
        saved_ext, saved_env = rdmatop.kineto._ext, os.environ.get("RDMATOP_KINETO_MODULE")
        try:
            rdmatop.kineto._ext = None
            os.environ["RDMATOP_KINETO_MODULE"] = self.path("missing.so")
            with self.assertRaises(rdmatop.Error) as cm:
                rdmatop.kineto.enable(capture=ClockCapture)
            self.assertIn("pip install --no-build-isolation ./python", str(cm.exception))
            rdmatop.kineto._ext = None
            if saved_env is None:
                del os.environ["RDMATOP_KINETO_MODULE"]
            else:
                os.environ["RDMATOP_KINETO_MODULE"] = saved_env
            real = torch.__version__
            torch.__version__ = "0.0.1"
            try:
                with self.assertRaises(rdmatop.Error) as cm:
                    rdmatop.kineto.enable(capture=ClockCapture)
            finally:
                torch.__version__ = real
            self.assertIn("built against torch %s" % real, str(cm.exception))
            self.assertFalse(rdmatop.kineto.is_enabled())
        finally:
            rdmatop.kineto._ext = saved_ext
            if saved_env is None:
                os.environ.pop("RDMATOP_KINETO_MODULE", None)
            else:
                os.environ["RDMATOP_KINETO_MODULE"] = saved_env

    def test_each_trace_its_own_capture(self):
        rdmatop.kineto.enable(capture=ClockCapture)
        profile_to(self.path("a.json"))
        profile_to(self.path("b.json"))
        self.assertEqual(len(ClockCapture.instances), 2)
        for name in ("a.json", "b.json"):
            trace = perfetto_rules.load(self.path(name))
            pid = perfetto_rules.pid_named(trace, "rdmatop")
            self.assertTrue(perfetto_rules.counter_tracks(trace, pid))


if __name__ == "__main__":
    unittest.main()
