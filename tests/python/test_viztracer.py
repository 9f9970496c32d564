"""rdmatop.viztracer inside the installed VizTracer on this machine, no RDMA.

The capture is the stand-in of standin.py; what is tested is the plugin's
message protocol with the real VizTracer, the counter tracks in the trace
it saves (VizTracer's clock, within its events' span, Perfetto's rules),
and the option parsing with the real rdmatop.Capture's checks.
"""

import json
import os
import subprocess
import sys
import tempfile
import textwrap
import time
import unittest
from unittest import mock

here = os.path.dirname(os.path.abspath(__file__))
src = os.environ.get("RDMATOP_PYTHON_SRC", os.path.join(here, "../../python"))
sys.path.insert(0, here)
sys.path.insert(0, src)

import viztracer  # noqa: E402
from viztracer.vizplugin import VizPluginError  # noqa: E402

import perfetto_rules  # noqa: E402
import rdmatop  # noqa: E402
import rdmatop.viztracer as rv  # noqa: E402
from standin import ClockCapture  # noqa: E402


def work():
    total = 0
    for i in range(20000):
        total += i * i
    time.sleep(0.05)
    for i in range(20000):
        total -= i
    return total


class Plugin(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        ClockCapture.instances.clear()

    def tearDown(self):
        self.dir.cleanup()

    def trace_with(self, plugin, name="t.json"):
        path = os.path.join(self.dir.name, name)
        tracer = viztracer.VizTracer(plugins=[plugin], verbose=0, output_file=path)
        tracer.start()
        work()
        tracer.stop()
        tracer.save()
        tracer.terminate()
        return perfetto_rules.load(path)

    def test_counter_tracks(self):
        trace = self.trace_with(rv.RdmatopPlugin(capture=ClockCapture))
        self.assertEqual(len(ClockCapture.instances), 1)
        pid = perfetto_rules.pid_named(trace, "rdmatop")
        self.assertEqual(pid, rv.PID)
        self.assertEqual(perfetto_rules.check(trace, [pid]), [])
        tracks = perfetto_rules.counter_tracks(trace, pid)
        busy = tracks.get(("rdmatop rxe0/1", "sent_pkts/s"))
        idle = tracks.get(("rdmatop rxe2/1", "sent_pkts/s"))
        self.assertTrue(busy, f"a busy track among {sorted(tracks)}")
        self.assertTrue(idle, f"an idle track among {sorted(tracks)}")
        self.assertTrue(all(abs(v - 3000) < 30 for _, v in busy), busy)
        self.assertTrue(all(v == 0 for _, v in idle))
        lo, hi = perfetto_rules.span(trace, exclude_pid=pid)
        ts = [t for pts in tracks.values() for t, _ in pts]
        self.assertGreaterEqual(min(ts), lo)
        self.assertLessEqual(max(ts), hi)
        self.assertGreater(max(ts) - min(ts), 50_000, "the points cover the sleep")

    def test_points_made_in_c_no_python_thread(self):
        import threading

        seen = []

        class Watch(rv.RdmatopPlugin):
            def _start(self):
                super()._start()
                seen.append([t.name for t in threading.enumerate()])

        trace = self.trace_with(Watch(capture=lambda: rdmatop.Capture.synthetic(ports=2, counters=3)))
        self.assertEqual(seen, [[threading.main_thread().name]], "no Python thread while tracing")
        pid = perfetto_rules.pid_named(trace, "rdmatop")
        self.assertEqual(perfetto_rules.check(trace, [pid]), [])
        tracks = perfetto_rules.counter_tracks(trace, pid)
        self.assertEqual(len(tracks), 6, sorted(tracks))
        self.assertTrue(all(v > 0 for _, v in tracks[("rdmatop synth0/1", "sent_pkts/s")]))
        self.assertTrue(all(v == 0 for _, v in tracks[("rdmatop synth0/2", "duplicate_request/s")]))
        lo, hi = perfetto_rules.span(trace, exclude_pid=pid)
        ts = [t for pts in tracks.values() for t, _ in pts]
        self.assertGreaterEqual(min(ts), lo)
        self.assertLessEqual(max(ts), hi)

    def test_clock_is_viztracers(self):
        # The stand-in's counter starts to climb at the moment marker() runs:
        # the track's first non-zero point must sit at VizTracer's own
        # timestamp of marker() (a point is placed at the end of its
        # interval: within one 1 ms interval after it).
        step = {}

        def marker():
            step["mono"] = time.monotonic_ns()

        class Step(ClockCapture):
            def samples(self):
                for s in super().samples():
                    if s.device != "rxe0":
                        yield s
                        continue
                    climbed = max(0, s.mono_ns - step.get("mono", s.mono_ns + 1))
                    yield s._replace(value=climbed // 1000)

        path = os.path.join(self.dir.name, "step.json")
        tracer = viztracer.VizTracer(plugins=[rv.RdmatopPlugin(capture=Step, compact=False)],
                                     verbose=0, output_file=path)
        tracer.start()
        work()
        marker()
        work()
        tracer.stop()
        tracer.save()
        tracer.terminate()
        trace = perfetto_rules.load(path)
        marks = [e["ts"] for e in perfetto_rules.events_of(trace)
                 if e.get("ph") == "X" and "marker" in e["name"]]
        self.assertEqual(len(marks), 1)
        busy = perfetto_rules.counter_tracks(trace, rv.PID)[("rdmatop rxe0/1", "sent_pkts/s")]
        first = next(t for t, v in busy if v > 0)
        self.assertGreaterEqual(first, marks[0] - 5)
        self.assertLessEqual(first, marks[0] + 1000 + 5)

    def labels_of(self, trace, pid):
        return [e["args"]["labels"] for e in perfetto_rules.events_of(trace)
                if e.get("ph") == "M" and e.get("name") == "process_labels" and e.get("pid") == pid]

    def test_job_labels_the_tracks(self):
        job = rdmatop.Job("slurm", "1234", "0", "slurm 1234.0")
        with mock.patch.object(rdmatop, "job", lambda pid=0: job):
            trace = self.trace_with(rv.RdmatopPlugin(capture=ClockCapture))
        self.assertEqual(self.labels_of(trace, rv.PID), ["job: slurm 1234.0"])
        # Perfetto shows names, not labels: the job is in the name too.
        self.assertEqual(perfetto_rules.pid_named(trace, "rdmatop · slurm 1234.0"), rv.PID)
        self.assertEqual(perfetto_rules.check(trace, [rv.PID]), [])
        # A cgroup that no layout names is said to be one.
        bare = rdmatop.Job("cgroup", "/a/b", None, "/a/b")
        with mock.patch.object(rdmatop, "job", lambda pid=0: bare):
            trace = self.trace_with(rv.RdmatopPlugin(capture=ClockCapture), "bare.json")
        self.assertEqual(self.labels_of(trace, rv.PID), ["cgroup: /a/b"])
        self.assertEqual(perfetto_rules.pid_named(trace, "rdmatop"), rv.PID)

    def test_no_job_no_label(self):
        def gone(pid=0):
            raise rdmatop.NoProcessError("There is no process 1")

        def failed(pid=0):
            raise rdmatop.Error("The cgroup of process 1 could not be read: I/O error")

        for lookup in (lambda pid=0: None, gone, failed):
            with self.subTest(lookup=lookup):
                with mock.patch.object(rdmatop, "job", lookup):
                    trace = self.trace_with(rv.RdmatopPlugin(capture=ClockCapture))
                self.assertEqual(self.labels_of(trace, rv.PID), [])
                self.assertTrue(perfetto_rules.counter_tracks(trace, rv.PID), "the tracks are there")

    def test_this_processs_job(self):
        trace = self.trace_with(rv.RdmatopPlugin(capture=ClockCapture))
        job = rdmatop.job()
        want = [] if job is None else [("cgroup: " if job.kind == "cgroup" else "job: ") + job.name]
        self.assertEqual(self.labels_of(trace, rv.PID), want)

    def test_options(self):
        self.assertEqual(rv.parse_options("rdmatop.viztracer"),
                         {"devices": None, "ports": None, "interval": 0.001,
                          "metrics": None, "compact": True})
        self.assertEqual(
            rv.parse_options("rdmatop.viztracer --interval 5 --devices rxe0,rxe1 --ports 1 "
                             "--metrics sent_pkts,rcvd_pkts --no-compact"),
            {"devices": ["rxe0", "rxe1"], "ports": [1], "interval": 0.005,
             "metrics": ["sent_pkts", "rcvd_pkts"], "compact": False})

    def test_bad_options(self):
        with self.assertRaises(VizPluginError):
            rv.parse_options("rdmatop.viztracer --frobnicate")
        with self.assertRaises(VizPluginError):
            rv.parse_options("rdmatop.viztracer --ports one")
        # The library's own check, with rdmatop-cli's sentence.
        with self.assertRaises(rdmatop.IntervalError) as cm:
            rv.get_vizplugin("rdmatop.viztracer --interval 0.1")
        self.assertIn("interval", str(cm.exception))

    def test_command_line_loads_the_plugin(self):
        # viztracer imports the plugin by name and calls get_vizplugin; on a
        # machine without RDMA it stops with the library's sentence.
        script = os.path.join(self.dir.name, "s.py")
        with open(script, "w") as f:
            f.write("print('ran')\n")
        env = dict(os.environ, PYTHONPATH=src)
        r = subprocess.run([sys.executable, "-m", "viztracer", "--quiet", "-o",
                            os.path.join(self.dir.name, "cli.json"), "--plugins",
                            "rdmatop.viztracer --interval 0.5", "--", script],
                           capture_output=True, text=True, env=env, timeout=120)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("The interval must be", r.stderr + r.stdout)


if __name__ == "__main__":
    unittest.main()
