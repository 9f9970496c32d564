"""Unit tests of the rdmatop Python package on this machine (no RDMA
needed): errors and their sentences, argument checks, the rates helper.
The package on a real kernel (snapshots, 1 ms captures during traffic) is
the vm scenario "capture"."""

import ctypes
import math
import unittest

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


if __name__ == "__main__":
    unittest.main()
