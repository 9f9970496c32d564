"""The profiler's overhead on a torch step, with and without rdmatop.

Runs a CPU training-like step (matrix multiplications) in one process and,
interleaved round by round so drift hits every mode alike, times it:

  bare      no profiler
  torch     inside torch.profiler.profile (CPU activities), rdmatop off
  rdmatop   the same with rdmatop.kineto.enable(interval=1 ms)
  rdmatop10 the same at 10 ms

and prints the median step time of each mode and its ratio to "bare" and
to "torch" (what enabling rdmatop adds to a profile).  A benchmark, not a
test: it passes no judgement on times.  Needs RDMA devices (the Soft-RoCE
guest: tests/bench/guest-profiler.sh), or --modes bare,torch without.

  profiler-overhead.py --devices rxe0,rxe2 [--rounds 5] [--steps 20] [--size 256]
"""

import argparse
import json
import statistics
import sys
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--devices", default="")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--steps", type=int, default=20, help="steps per mode per round")
    ap.add_argument("--size", type=int, default=256, help="matrix size")
    ap.add_argument("--modes", default="bare,torch,rdmatop,rdmatop10")
    ap.add_argument("--json", help="also write the raw figures here")
    ap.add_argument("--trace", help="export the last rdmatop round's trace here (untimed)")
    ap.add_argument("--wait-for", help="after importing torch, wait until this file exists")
    a = ap.parse_args()

    t0 = time.monotonic()
    import torch
    import torch.profiler

    import rdmatop.kineto
    print(f"# torch {torch.__version__} imported in {time.monotonic() - t0:.1f} s", flush=True)
    if a.wait_for:
        import os

        while not os.path.exists(a.wait_for):
            time.sleep(0.2)
    torch.set_num_threads(1)
    devices = [d for d in a.devices.split(",") if d] or None
    modes = a.modes.split(",")
    x = torch.randn(a.size, a.size)
    w = torch.randn(a.size, a.size) / a.size

    def step():
        y = x
        for _ in range(4):
            y = torch.tanh(y @ w)
        return y.sum().item()

    def steps(times):
        for _ in range(a.steps):
            t = time.perf_counter()
            step()
            times.append(time.perf_counter() - t)

    for _ in range(3):  # warm up the allocator and the kernels
        step()
    # The first profile initialises Kineto (and imports more of torch): not
    # part of any mode's figures.
    t = time.monotonic()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]):
        step()
    print(f"# first profile (Kineto start-up) took {time.monotonic() - t:.1f} s", flush=True)

    times = {m: [] for m in modes}
    exits = {}
    stats = {}
    for r in range(a.rounds):
        for m in modes:
            if m == "bare":
                steps(times[m])
                continue
            if m == "torch":
                rdmatop.kineto.disable()
            else:
                rdmatop.kineto.enable(devices=devices, interval=0.01 if m == "rdmatop10" else 0.001)
            t = time.monotonic()
            with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
                steps(times[m])
            exits.setdefault(m, []).append(time.monotonic() - t)
            if a.trace and m == "rdmatop" and r == a.rounds - 1:
                prof.export_chrome_trace(a.trace)
            if m != "torch" and rdmatop.kineto.last_error() is not None:
                sys.exit(f"rdmatop capture failed: {rdmatop.kineto.last_error()}")
        print(f"# round {r + 1}/{a.rounds} done", flush=True)
    rdmatop.kineto.disable()

    med = {m: statistics.median(v) for m, v in times.items()}
    print(f"{'mode':10} {'median step ms':>15} {'p90 ms':>8} {'vs bare':>8} {'vs torch':>9}")
    for m in modes:
        p90 = sorted(times[m])[int(len(times[m]) * 0.9)]
        vs_bare = med[m] / med["bare"] if "bare" in med else float("nan")
        vs_torch = med[m] / med["torch"] if "torch" in med else float("nan")
        print(f"{m:10} {med[m] * 1e3:15.3f} {p90 * 1e3:8.3f} {vs_bare:8.3f} {vs_torch:9.3f}")
        stats[m] = {"median_s": med[m], "p90_s": p90, "steps": len(times[m]),
                    "profile_wall_s": exits.get(m)}
    for m, v in exits.items():
        print(f"# {m}: a whole profile of {a.steps} steps (with its stop) took "
              f"{statistics.median(v):.2f} s (median)")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"size": a.size, "steps": a.steps, "rounds": a.rounds, "modes": stats}, f, indent=1)


if __name__ == "__main__":
    main()
