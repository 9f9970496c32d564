"""Counter samples to counter-track points (rdmatop._tracks), no RDMA."""

import os
import sys
import unittest
from collections import namedtuple

import importlib.util  # noqa: E402

# The module on its own, without the package (which loads librdmatop: that
# is not needed here, and an ASan build of it cannot load into python3).
_src = os.environ.get("RDMATOP_PYTHON_SRC", os.path.join(os.path.dirname(__file__), "../../python"))
_spec = importlib.util.spec_from_file_location("rdmatop_tracks", os.path.join(_src, "rdmatop", "_tracks.py"))
_tracks = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_tracks)

Sample = namedtuple("Sample", "time_ns mono_ns device port metric value")

REAL0 = 1_796_000_000_000_000_000
MONO0 = 5_000_000_000


def samples(device, port, metric, values, step_ns=1_000_000):
    return [Sample(REAL0 + i * step_ns, MONO0 + i * step_ns, device, port, metric, v)
            for i, v in enumerate(values)]


class RatePoints(unittest.TestCase):
    def test_rate_per_second_over_monotonic_time(self):
        pts = _tracks.rate_points(samples("rxe0", 1, "sent_pkts", [10, 20, 40]))
        self.assertEqual([p.rate for p in pts], [10_000.0, 20_000.0])
        # Placed at the later sample's time, on the clock asked for.
        self.assertEqual([p.time_ns for p in pts], [REAL0 + 1_000_000, REAL0 + 2_000_000])
        mono = _tracks.rate_points(samples("rxe0", 1, "sent_pkts", [10, 20]), clock="mono_ns")
        self.assertEqual(mono[0].time_ns, MONO0 + 1_000_000)

    def test_uneven_intervals(self):
        s = samples("rxe0", 1, "x", [0, 100])
        s[1] = s[1]._replace(mono_ns=MONO0 + 4_000_000)
        self.assertEqual(_tracks.rate_points(s)[0].rate, 25_000.0)

    def test_reset_gives_no_point(self):
        pts = _tracks.rate_points(samples("rxe0", 1, "x", [100, 200, 5, 15]))
        self.assertEqual([p.rate for p in pts], [100_000.0, 10_000.0])

    def test_tracks_are_separate_and_order_does_not_matter(self):
        a = samples("rxe0", 1, "x", [0, 1, 2])
        b = samples("rxe1", 1, "x", [0, 0, 0])
        c = samples("rxe0", 2, "x", [0, 5, 10])
        mixed = [a[2], b[1], c[0], a[0], b[0], c[2], a[1], b[2], c[1]]
        pts = _tracks.rate_points(mixed)
        by = {}
        for p in pts:
            by.setdefault((p.device, p.port), []).append(p.rate)
        self.assertEqual(by, {("rxe0", 1): [1000.0, 1000.0], ("rxe1", 1): [0.0, 0.0],
                              ("rxe0", 2): [5000.0, 5000.0]})
        self.assertEqual([p.time_ns for p in pts], sorted(p.time_ns for p in pts))

    def test_same_time_twice_is_skipped(self):
        s = samples("rxe0", 1, "x", [0, 10, 20])
        s[2] = s[2]._replace(mono_ns=s[1].mono_ns)
        self.assertEqual(len(_tracks.rate_points(s)), 1)

    def test_single_sample_and_empty(self):
        self.assertEqual(_tracks.rate_points(samples("rxe0", 1, "x", [7])), [])
        self.assertEqual(_tracks.rate_points([]), [])

    def test_unknown_clock(self):
        with self.assertRaises(ValueError):
            _tracks.rate_points([], clock="tsc")


class Compact(unittest.TestCase):
    def test_idle_track_keeps_first_and_last(self):
        pts = _tracks.rate_points(samples("rxe2", 1, "x", [5] * 10))
        out = _tracks.compact(pts)
        self.assertEqual(len(out), 2)
        self.assertEqual(out[0], pts[0])
        self.assertEqual(out[-1], pts[-1])
        self.assertTrue(all(p.rate == 0 for p in out))

    def test_changes_are_kept(self):
        pts = _tracks.rate_points(samples("rxe0", 1, "x", [0, 1, 2, 2, 2, 3]))
        out = _tracks.compact(pts)
        self.assertEqual([p.rate for p in out], [1000.0, 0.0, 1000.0])

    def test_per_track(self):
        a = _tracks.rate_points(samples("rxe0", 1, "x", [0, 0, 0, 0]))
        b = _tracks.rate_points(samples("rxe1", 1, "x", [0, 1, 2, 3]))
        out = _tracks.compact(sorted(a + b, key=lambda p: p.time_ns))
        self.assertEqual(sum(1 for p in out if p.device == "rxe0"), 2)
        self.assertEqual(sum(1 for p in out if p.device == "rxe1"), 2)


class Builder(unittest.TestCase):
    def test_batches_give_what_one_pass_gives(self):
        s = (samples("rxe0", 1, "x", [0, 1, 2, 2, 2, 2, 9, 9, 10, 20])
             + samples("rxe2", 1, "x", [4] * 10))
        s.sort(key=lambda x: x.mono_ns)
        for compact in (False, True):
            b = _tracks.TrackBuilder(compact=compact)
            for i in range(0, len(s), 3):
                b.feed(s[i:i + 3])
            want = _tracks.rate_points(s)
            if compact:
                want = _tracks.compact(want)
            self.assertEqual(b.points(), want)

    def test_idle_port_stays_two_points(self):
        b = _tracks.TrackBuilder()
        for i in range(100):
            b.feed(samples("rxe2", 1, "x", [4, 4])[:1] if i == 0 else
                   [Sample(REAL0 + i, MONO0 + i, "rxe2", 1, "x", 4)])
        self.assertEqual(len(b.points()), 2)


class Recorder(unittest.TestCase):
    def test_drains_while_running_and_after_stop(self):
        class Cap:
            def __init__(self):
                self.calls, self.n, self.running = 0, 0, False

            def start(self):
                self.running = True

            def stop(self):
                self.running = False

            def samples(self):
                self.calls += 1
                for _ in range(5):
                    yield Sample(REAL0 + self.n * 1000, MONO0 + self.n * 1000, "rxe0", 1, "x", self.n)
                    self.n += 1

        cap = Cap()
        rec = _tracks.Recorder(cap, compact=False, drain_s=0.01)
        rec.start()
        import time
        time.sleep(0.1)
        rec.stop()
        self.assertFalse(cap.running)
        self.assertGreater(cap.calls, 2, "drained while running")
        self.assertEqual(len(rec.points()), cap.n - 1)


    def test_no_thread_unless_asked(self):
        import threading

        class Cap:
            def start(self):
                pass

            def stop(self):
                pass

            def samples(self):
                return iter(samples("rxe0", 1, "x", [0, 1, 2]))

        rec = _tracks.Recorder(Cap(), compact=False)
        before = threading.active_count()
        rec.start()
        self.assertEqual(threading.active_count(), before, "no drain thread by default")
        rec.stop()
        self.assertEqual(len(rec.points()), 2, "drained once, at stop")
        for bad in (0, 0.0001, 61, True, "1"):
            with self.assertRaises(ValueError):
                _tracks.Recorder(Cap(), drain_s=bad)


class Clip(unittest.TestCase):
    def test_inclusive_bounds(self):
        pts = _tracks.rate_points(samples("rxe0", 1, "x", [0, 1, 3, 6, 10]))
        out = _tracks.clip(pts, pts[1].time_ns, pts[2].time_ns)
        self.assertEqual(out, pts[1:3])

    def test_held_values_carry_into_the_window(self):
        # A constant rate from long before to long after the window: compact()
        # leaves two points outside it; the window still shows the rate.
        pts = _tracks.compact(_tracks.rate_points(samples("rxe0", 1, "x", range(0, 300, 3))))
        self.assertEqual(len(pts), 2)
        lo, hi = REAL0 + 10_000_000, REAL0 + 20_000_000
        out = _tracks.clip(pts, lo, hi)
        self.assertEqual([(p.time_ns, p.rate) for p in out], [(lo, 3000.0), (hi, 3000.0)])

    def test_no_point_is_made_up_past_the_data(self):
        pts = _tracks.rate_points(samples("rxe0", 1, "x", [0, 1, 2]))
        out = _tracks.clip(pts, REAL0, REAL0 + 100_000_000)
        self.assertEqual(out, pts)
        self.assertEqual(_tracks.clip(pts, REAL0 + 50_000_000, REAL0 + 60_000_000),
                         [pts[-1]._replace(time_ns=REAL0 + 50_000_000)])


class Names(unittest.TestCase):
    def test_names(self):
        self.assertEqual(_tracks.track_name("mlx5_0", 1), "rdmatop mlx5_0/1")
        self.assertEqual(_tracks.counter_key("rnr_nak_retry_err"), "rnr_nak_retry_err/s")


if __name__ == "__main__":
    unittest.main()
