"""The profiler plugins' workloads in the Soft-RoCE guest.

  profiler-guest.py kineto GO DEVICES OUT...   imports torch, waits for
      the file GO to exist (torch imports for minutes under TCG: the
      scenario sets up the devices meanwhile), then runs torch.profiler with
      rdmatop.kineto.enable(devices=DEVICES) around a few CPU matrix
      multiplications, one profile per OUT (.json or .json.gz)
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
    print(f"torch {torch.__version__} imported in {time.monotonic() - t0:.1f} s", flush=True)
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


def main():
    if sys.argv[1] == "kineto":
        kineto(sys.argv[2], sys.argv[3], sys.argv[4:])
    elif sys.argv[1] == "work":
        print(work())
    else:
        sys.exit(f"unknown workload {sys.argv[1]!r}")


if __name__ == "__main__":
    main()
