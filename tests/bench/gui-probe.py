#!/usr/bin/env python3
# gui-probe.py: launches a GUI program and measures, from the outside,
#   - the wall time from launch to a line on its stderr (a first-frame
#     report such as "rdmatop: startup-ms=N"),
#   - the CPU it uses per second over a window after it settled (utime +
#     stime of a process from /proc/<pid>/stat, all threads),
#   - the bytes per second a count-relay.py file grew by over that window,
# then stops it.  Prints one key=value line (the last) for run-benchmarks.sh.
#
#   gui-probe.py [--line REGEX] [--line-timeout S] [--warm S] [--window S]
#                [--cpu-pid-file FILE] [--count-file FILE] [--keep-stderr FILE]
#                -- COMMAND...
#
# Without --line the window starts --warm seconds after launch.  The CPU is
# that of the launched process, or of the pid written in --cpu-pid-file (a
# program started remotely over ssh).  A line that never comes is reported
# as line_ms=none, never as a number.
import argparse
import os
import re
import signal
import subprocess
import sys
import threading
import time

TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    """utime + stime of pid (all threads) in seconds, or None when gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            stat = f.read()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2:].split()
    return (int(fields[11]) + int(fields[12])) / TICK  # fields 14 and 15


def thread_cpu(pid):
    """{thread name: utime + stime seconds} of pid's threads (names summed)."""
    out = {}
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        name = stat[stat.index("(") + 1:stat.rindex(")")].replace(" ", "_")
        fields = stat[stat.rindex(")") + 2:].split()
        out[name] = out.get(name, 0) + (int(fields[11]) + int(fields[12])) / TICK
    return out


def read_counts(path):
    try:
        with open(path) as f:
            up, down = f.read().split()
        return int(up), int(down)
    except (OSError, ValueError):
        return None


def read_pid(path, deadline):
    while time.monotonic() < deadline:
        try:
            with open(path) as f:
                return int(f.read().strip())
        except (OSError, ValueError):
            time.sleep(0.2)
    return None


def watch_stderr(proc, pattern, found, log):
    for raw in proc.stderr:
        line = raw.decode(errors="replace")
        if log:
            log.write(line)
            log.flush()
        if pattern and "t" not in found:
            m = pattern.search(line)
            if m:
                found["t"] = time.monotonic()
                found["value"] = m.group(1) if m.groups() else ""
                found["event"].set()


def stop(proc, pid_file_pid):
    for pid in (pid_file_pid, proc.pid):
        if pid:
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--line")
    ap.add_argument("--line-timeout", type=float, default=120)
    ap.add_argument("--warm", type=float, default=5)
    ap.add_argument("--window", type=float, default=30)
    ap.add_argument("--cpu-pid-file")
    ap.add_argument("--count-file")
    ap.add_argument("--keep-stderr")
    ap.add_argument("--x-pid", type=int,
                    help="the X server's pid: its CPU over the same window, beside the program's")
    ap.add_argument("--no-window", action="store_true", help="only the line, then stop")
    ap.add_argument("command", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.command[1:] if a.command[:1] == ["--"] else a.command
    if not cmd:
        ap.error("no command")

    pattern = re.compile(a.line) if a.line else None
    found = {"event": threading.Event()}
    log = open(a.keep_stderr, "w") if a.keep_stderr else None
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    threading.Thread(target=watch_stderr, args=(proc, pattern, found, log), daemon=True).start()

    out = {}
    if pattern:
        if found["event"].wait(a.line_timeout):
            out["line_ms"] = f"{(found['t'] - t0) * 1000:.0f}"
            out["reported_ms"] = found["value"] or "none"
        else:
            out["line_ms"] = "none"
            out["reported_ms"] = "none"
    cpu_pid = proc.pid
    remote_pid = None
    if a.cpu_pid_file:
        remote_pid = read_pid(a.cpu_pid_file, time.monotonic() + a.line_timeout)
        cpu_pid = remote_pid
    if not a.no_window:
        time.sleep(a.warm)
        c0 = cpu_seconds(cpu_pid) if cpu_pid else None
        x0 = cpu_seconds(a.x_pid) if a.x_pid else None
        t0_threads = thread_cpu(cpu_pid) if cpu_pid else {}
        b0 = read_counts(a.count_file) if a.count_file else None
        w0 = time.monotonic()
        time.sleep(a.window)
        c1 = cpu_seconds(cpu_pid) if cpu_pid else None
        x1 = cpu_seconds(a.x_pid) if a.x_pid else None
        t1_threads = thread_cpu(cpu_pid) if cpu_pid else {}
        b1 = read_counts(a.count_file) if a.count_file else None
        span = time.monotonic() - w0
        out["window_s"] = f"{span:.1f}"
        if c0 is not None and c1 is not None:
            out["cpu_ms_per_s"] = f"{(c1 - c0) * 1000 / span:.1f}"
        else:
            out["cpu_ms_per_s"] = "none"
        if a.x_pid:
            # What the X server spent drawing for the program (a GTK 3 program
            # draws through XRender, so the server rasterises; GTK 4's cairo
            # renderer rasterises in the client and sends images).
            out["x_cpu_ms_per_s"] = (f"{(x1 - x0) * 1000 / span:.1f}"
                                     if x0 is not None and x1 is not None else "none")
        busy = sorted(((t1_threads[n] - t0_threads.get(n, 0), n) for n in t1_threads),
                      reverse=True)[:4]
        out["threads_ms_per_s"] = ",".join(f"{n}:{d * 1000 / span:.0f}" for d, n in busy) or "none"
        if b0 is not None and b1 is not None:
            out["up_bytes_per_s"] = f"{(b1[0] - b0[0]) / span:.0f}"
            out["down_bytes_per_s"] = f"{(b1[1] - b0[1]) / span:.0f}"
            out["bytes_per_s"] = f"{(b1[0] - b0[0] + b1[1] - b0[1]) / span:.0f}"
        elif a.count_file:
            out["bytes_per_s"] = "none"
    out["alive"] = "yes" if proc.poll() is None else f"no(exit {proc.returncode})"
    stop(proc, remote_pid)
    print(" ".join(f"{k}={v}" for k, v in out.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
