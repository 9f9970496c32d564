"""What rdmatop adds to a torch.profiler or VizTracer profile, natively.

A training-like loop (small matrix multiplications, or a Python-heavy step)
profiled for --seconds in each mode:

  bare        no profiler
  torch       torch.profiler (CPU activities)
  torch+r10   torch.profiler and rdmatop.kineto at 10 ms
  torch+r1    torch.profiler and rdmatop.kineto at 1 ms
  viz         VizTracer
  viz+r10     VizTracer with the rdmatop plugin at 10 ms
  viz+r1      VizTracer with the rdmatop plugin at 1 ms
  torch+p1, viz+p1  at 1 ms the way it was before the points were made in
              C: every sample a Python object, drained by a Python thread
              every 0.25 s (rdmatop._tracks), for comparison

rdmatop runs a synthetic capture (rdmatop.Capture.synthetic: 8 ports x 15
counters made up on the capture's C thread, where a real capture reads
the kernel), so no RDMA is needed.  Each run is a process of its own (so
its peak memory is its own), and the modes are interleaved round by
round, so drift hits every mode alike.  Per mode: the median step, the
profile's stop and export times, the trace's size, the process's peak RSS
and the Python threads seen during the profile; then the ratios against
the baseline of the same run (torch for torch+r*, viz for viz+r*).  A
benchmark, not a test: it passes no judgement.

  profiler-cost.py [--rounds 3] [--seconds 2] [--workloads matmul,python]
      [--modes ...] [--compact/--no-compact] [--json FILE]

Needs torch and VizTracer (tests/python-deps.sh) and the rdmatop package
over librdmatop (PYTHONPATH=python RDMATOP_LIBRARY=BUILD/src/lib/librdmatop.so.1
RDMATOP_KINETO_MODULE=BUILD/python/kineto/_kineto*.so, or a pip install).
"""

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time

MODES = ["bare", "torch", "torch+r10", "torch+r1", "viz", "viz+r10", "viz+r1", "torch+p1", "viz+p1"]
DEFAULT_MODES = MODES[:7]


def step_matmul(torch, a):
    for _ in range(4):
        a = torch.tanh(a @ a)
    return a


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def step_python(torch, a):
    fib(14)
    return torch.tanh(a @ a)


def run_one(mode, workload, seconds, compact, n_steps):
    """One profile in this process; returns its figures."""
    import torch

    torch.set_num_threads(1)
    step = step_matmul if workload == "matmul" else step_python
    a = torch.randn(64, 64) * 0.01
    for _ in range(20):  # warm up outside any profile
        step(torch, a)
    kind = mode.partition("+")[2]
    interval = {"r10": 0.01, "r1": 0.001, "p1": 0.001}.get(kind)
    make = None
    drain = 0.25 if kind == "p1" else None
    if interval is not None:
        import rdmatop

        class InPython:
            """Not an rdmatop.Capture: the plugins take its samples in Python."""

            def __init__(self, cap):
                self.start, self.stop, self.samples, self.close = (
                    cap.start, cap.stop, cap.samples, cap.close)

        def make():
            cap = rdmatop.Capture.synthetic(ports=8, counters=15, interval=interval)
            return InPython(cap) if kind == "p1" else cap

    out = tempfile.mkdtemp(prefix="rdmatop-cost-")
    path = os.path.join(out, "trace.json")
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    threads = set()
    steps = []

    def loop():
        # A fixed number of steps, so every mode's profile holds the same
        # torch events; without one (calibration), --seconds of them.
        end = time.perf_counter() + seconds
        while len(steps) < n_steps if n_steps else time.perf_counter() < end:
            t = time.perf_counter()
            step(torch, a)
            steps.append(time.perf_counter() - t)
            if len(steps) % 50 == 1:
                threads.update(t.name for t in threading.enumerate())

    stop_s = export_s = rdmatop_s = 0.0
    if mode == "bare":
        loop()
    elif mode.startswith("torch"):
        import torch.profiler
        import rdmatop.kineto

        if make is not None:
            rdmatop.kineto.enable(capture=make, compact=compact, drain_s=drain)
        prof = torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU])
        prof.__enter__()
        loop()
        t = time.perf_counter()
        prof.__exit__(None, None, None)
        stop_s = time.perf_counter() - t
        t = time.perf_counter()
        prof.export_chrome_trace(path)
        export_s = time.perf_counter() - t
        if make is not None:
            # The shim's own part of the stop: reading the points librdmatop
            # made and making Kineto activities of them.
            rdmatop_s = rdmatop.kineto._extension().last_trace_stats()[1] / 1e9
            if kind == "p1":
                rdmatop_s = float("nan")  # spread over the drain thread and the stop
    else:
        import viztracer

        plugins = []
        if make is not None:
            import rdmatop.viztracer as rv

            plugin = rv.RdmatopPlugin(capture=make, compact=compact, drain_s=drain)
            add_tracks = plugin._add_tracks

            def timed(data):
                nonlocal rdmatop_s
                t = time.perf_counter()
                add_tracks(data)
                rdmatop_s += time.perf_counter() - t

            plugin._add_tracks = timed
            plugins.append(plugin)
        tracer = viztracer.VizTracer(plugins=plugins, verbose=0, output_file=path,
                                     tracer_entries=2_000_000)
        tracer.start()
        loop()
        t = time.perf_counter()
        tracer.stop()
        stop_s = time.perf_counter() - t
        t = time.perf_counter()
        tracer.save()
        export_s = time.perf_counter() - t
        tracer.terminate()
    size = os.path.getsize(path) if os.path.exists(path) else 0
    points = 0
    if size:
        with open(path) as f:
            points = sum(1 for e in json.load(f).get("traceEvents", [])
                         if e.get("ph") == "C" and str(e.get("name", "")).startswith("rdmatop "))
        os.unlink(path)
    os.rmdir(out)
    return {
        "mode": mode, "workload": workload, "steps": len(steps),
        "step_ms": statistics.median(steps) * 1e3 if steps else 0.0,
        "profiled_s": sum(steps), "stop_ms": stop_s * 1e3, "export_ms": export_s * 1e3,
        "trace_bytes": size, "points": points, "rdmatop_ms": rdmatop_s * 1e3,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "rss_added_mb": (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss0) / 1024,
        "threads": sorted(threads),
    }


def median_of(runs, key):
    return statistics.median(r[key] for r in runs)


def report(results, workloads, modes, seconds):
    print(f"# {seconds:g} s profiles; medians over rounds; ratios against the same run's "
          "baseline (bare for torch and viz, torch for torch+r*, viz for viz+r*)")
    print("# s+e add: stop+export over the baseline's; % of prof: that over the profiled "
          "time; rdmatop ms: the part of it in rdmatop's own code (the Kineto shim's "
          "reading and activity making, or the VizTracer plugin's save handler)")
    for w in workloads:
        print(f"\n## workload {w}")
        print(f"{'mode':<10} {'step ms':>8} {'step%':>7} {'stop ms':>8} {'export ms':>9} "
              f"{'s+e add ms':>10} {'% of prof':>9} {'trace MB':>8} {'points':>8} "
              f"{'peak MB':>8} {'py threads':>10} {'rdmatop ms':>10}")
        rows = {m: [r for r in results if r["workload"] == w and r["mode"] == m] for m in modes}
        for m in modes:
            runs = rows[m]
            if not runs:
                continue
            base_mode = "bare" if "+" not in m else m.partition("+")[0]
            base = rows.get(base_mode) or runs
            step = median_of(runs, "step_ms")
            se = median_of(runs, "stop_ms") + median_of(runs, "export_ms")
            base_se = median_of(base, "stop_ms") + median_of(base, "export_ms")
            prof = median_of(runs, "profiled_s") * 1e3
            added = se - base_se if base_mode != "bare" else se
            threads = max(len(r["threads"]) for r in runs)
            print(f"{m:<10} {step:8.3f} {100 * (step / median_of(base, 'step_ms') - 1):+6.1f}% "
                  f"{median_of(runs, 'stop_ms'):8.1f} {median_of(runs, 'export_ms'):9.1f} "
                  f"{added:10.1f} {100 * added / prof:8.2f}% "
                  f"{median_of(runs, 'trace_bytes') / 1e6:8.2f} {median_of(runs, 'points'):8.0f} "
                  f"{median_of(runs, 'peak_rss_mb'):8.1f} {threads:10d} "
                  f"{median_of(runs, 'rdmatop_ms'):10.1f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--workloads", default="matmul,python")
    ap.add_argument("--modes", default=",".join(DEFAULT_MODES))
    ap.add_argument("--no-compact", action="store_true")
    ap.add_argument("--json", help="also write every run's figures here")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--steps", type=int, default=0, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if not (1 <= a.rounds <= 50 and 0.1 <= a.seconds <= 600):
        ap.error("--rounds is 1 to 50 and --seconds 0.1 to 600")
    if a.child:
        mode, workload = a.child.split(":")
        print(json.dumps(run_one(mode, workload, a.seconds, not a.no_compact, a.steps)))
        return
    modes = [m for m in a.modes.split(",") if m]
    workloads = [w for w in a.workloads.split(",") if w]
    bad = [m for m in modes if m not in MODES] + [w for w in workloads if w not in ("matmul", "python")]
    if bad:
        ap.error(f"unknown modes or workloads: {bad}")

    def child(m, w, steps):
        cmd = [sys.executable, __file__, "--child", f"{m}:{w}", "--seconds", str(a.seconds),
               "--steps", str(steps)]
        if a.no_compact:
            cmd.append("--no-compact")
        res = subprocess.run(cmd, capture_output=True, text=True)
        if res.returncode != 0:
            sys.exit(f"{m}:{w} failed:\n{res.stderr[-3000:]}")
        return json.loads(res.stdout.strip().splitlines()[-1])

    # The steps that fill --seconds bare, the same for every mode.
    steps = {w: max(10, child("bare", w, 0)["steps"]) for w in workloads}
    print(f"# steps per profile: {steps}", file=sys.stderr, flush=True)
    results = []
    for r in range(a.rounds):
        order = modes if r % 2 == 0 else list(reversed(modes))
        for w in workloads:
            for m in order:
                results.append(child(m, w, steps[w]))
                print(f"# round {r + 1} {w} {m}: step {results[-1]['step_ms']:.3f} ms, "
                      f"stop {results[-1]['stop_ms']:.1f} ms, export {results[-1]['export_ms']:.1f} ms",
                      file=sys.stderr, flush=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=1)
    report(results, workloads, modes, a.seconds)


if __name__ == "__main__":
    main()
