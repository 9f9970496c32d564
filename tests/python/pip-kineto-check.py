"""Run by pip-kineto-test.sh inside the fresh venv: the pip-installed
rdmatop (not the checkout's) has a _kineto built against this torch, and a
real torch.profiler trace gets rdmatop's counter tracks through it.  Prints
one TAP line per check; exits non-zero if one fails."""

import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402
import torch.profiler  # noqa: E402

import perfetto_rules  # noqa: E402
import rdmatop  # noqa: E402
import rdmatop.kineto  # noqa: E402
from standin import ClockCapture  # noqa: E402

n = 0
failed = False


def tap(cond, what):
    global n, failed
    n += 1
    print(("ok %d - %s" if cond else "not ok %d - %s") % (n, what), flush=True)
    failed |= not cond


site = os.path.dirname(rdmatop.__file__)
# An argument: the editable install's package folder, where rdmatop must be.
want = sys.argv[1] if len(sys.argv) > 1 else None
tap(site == want if want else site.startswith(sys.prefix), "rdmatop is the installed copy: " + site)
ext = rdmatop.kineto._extension()
tap(os.path.dirname(ext.__file__) == site, "rdmatop._kineto sits in the package: " + ext.__file__)
tap(ext.torch_version == torch.__version__, "built against torch " + ext.torch_version)

rdmatop.kineto.enable(capture=ClockCapture)
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "t.json.gz")
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
        a = torch.randn(64, 64)
        for _ in range(20):
            a = torch.tanh(a @ a)
    prof.export_chrome_trace(path)
    trace = perfetto_rules.load(path)
pid = perfetto_rules.pid_named(trace, "rdmatop")
tap(pid is not None, "the trace has a process named rdmatop")
tracks = perfetto_rules.counter_tracks(trace, pid) if pid is not None else {}
tap(bool(tracks.get(("rdmatop rxe0/1", "sent_pkts/s"))),
    "the trace has the counter track rdmatop rxe0/1 sent_pkts/s among %s" % sorted(tracks))
tap(perfetto_rules.check(trace, [pid] if pid is not None else []) == [],
    "the trace follows Perfetto's rules")
# The installed librdmatop's tracks, made on the capture's thread.
made = []


def synthetic():
    made.append(rdmatop.Capture.synthetic(ports=1, counters=2))
    return made[-1]


rdmatop.kineto.enable(capture=synthetic)
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "s.json")
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
        a = torch.randn(64, 64)
        # Until the capture's thread has taken a few passes (a rate needs
        # two), however busy the machine; bounded.
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not (made and made[-1].taken >= 5):
            for _ in range(20):
                a = torch.tanh(a @ a)
    prof.export_chrome_trace(path)
    trace = perfetto_rules.load(path)
pid = perfetto_rules.pid_named(trace, "rdmatop")
tracks = perfetto_rules.counter_tracks(trace, pid) if pid is not None else {}
tap(("rdmatop synth0/1", "sent_pkts/s") in tracks,
    "a synthetic capture's tracks, made in librdmatop: %s" % sorted(tracks))
print("1..%d" % n)
sys.exit(1 if failed else 0)
