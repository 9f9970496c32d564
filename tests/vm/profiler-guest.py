"""The profiler plugins' workloads in the Soft-RoCE guest.

  profiler-guest.py kineto GO DEVICES OUT... [-- BENCH_OUT BENCH_ARGS...]
      imports torch and runs one untraced profile, waits for the file GO to
      exist (torch imports for minutes under TCG: the scenario sets up the
      devices meanwhile), then runs torch.profiler with
      rdmatop.kineto.enable(devices=DEVICES) around a few CPU matrix
      multiplications, one profile per OUT (.json or .json.gz).  After
      "--", it then runs tests/bench/profiler-overhead.py BENCH_ARGS in the
      same process (torch is already imported) with its output in BENCH_OUT.
  profiler-guest.py work                    a small plain-Python workload
      for viztracer to trace

Prints what it did; the checks run on the host (vmcheck.py profiler-trace).
"""

import sys
import time


def work(seconds=1.0):
    total, end = 0, time.monotonic() + seconds
    while time.monotonic() < end:
        for i in range(2000):
            total += i * i
        time.sleep(0.01)
    return total


def kineto(go, devices, outs):
    import os

    t0 = time.monotonic()
    import torch
    import torch.profiler

    import rdmatop.kineto
    t1 = time.monotonic()
    # A profile's first start imports torch._inductor (prepare_trace asks
    # hasattr(torch, "_inductor"), which torch answers by importing it) and
    # initialises Kineto: minutes more under TCG.  One untraced profile here,
    # before the traffic starts, keeps that out of the profiles checked.
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]):
        torch.ones(2).sum()
    print(f"torch {torch.__version__} imported in {t1 - t0:.1f} s, "
          f"first profile {time.monotonic() - t1:.1f} s", flush=True)
    while not os.path.exists(go):
        time.sleep(0.2)

    # Two counters: at 1 ms the guest's Python turns every sample into a
    # point, and under TCG it is 10-50x slower than native.
    rdmatop.kineto.enable(devices=devices.split(","), interval=0.001,
                          metrics=["sent_pkts", "rcvd_pkts"])
    a = torch.randn(64, 64)
    for out in outs:
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
            for _ in range(10):
                a = torch.tanh(a @ a)
                time.sleep(0.1)
        prof.export_chrome_trace(out)
        err = rdmatop.kineto.last_error()
        print(f"{out}: written{'' if err is None else f', capture error: {err}'}", flush=True)
    rdmatop.kineto.disable()


def bench(out, args):
    """profiler-overhead.py with ARGS, in this process, printing into OUT."""
    import os
    import runpy

    script = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                          "..", "bench", "profiler-overhead.py")
    saved = sys.argv, sys.stdout
    with open(out, "w") as f:
        sys.argv, sys.stdout = [script] + args, f
        try:
            runpy.run_path(script, run_name="__main__")
        finally:
            sys.argv, sys.stdout = saved
    print(f"bench: {out} written", flush=True)


def main():
    if sys.argv[1] == "kineto":
        args = sys.argv[4:]
        cut = args.index("--") if "--" in args else len(args)
        kineto(sys.argv[2], sys.argv[3], args[:cut])
        if cut < len(args):
            bench(args[cut + 1], args[cut + 2:])
    elif sys.argv[1] == "work":
        print(work())
    else:
        sys.exit(f"unknown workload {sys.argv[1]!r}")


if __name__ == "__main__":
    main()
