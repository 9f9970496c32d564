#!/usr/bin/env python3
"""vmcheck.py's own test, without a guest.

The checkers that judge what a run produced over its length (soak,
capture, capture-record, health, jobs) are each fed a small synthetic run made
the way its scenario makes one, which must pass, and then the same run with
one of its inputs missing, empty or too short, which must fail, and fail on
the assertion about that input (not on another one, nor by crashing).  Every
other checker is fed inputs that parse but hold nothing, and must fail on
the assertion about the missing data.  A checker that passes on no data
fails this test.

Usage: test-vmcheck.py [--vmcheck PATH] [--verbose]   (TAP on stdout)
"""

import argparse
import copy
import gzip
import json
import os
import subprocess
import sys
import struct
import tempfile
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
results = []


def tap(ok, name, detail=""):
    results.append(ok)
    print("%s %d - %s" % ("ok" if ok else "not ok", len(results), name))
    for line in detail.splitlines():
        print("# " + line)
    sys.stdout.flush()


def write(path, content):
    """Writes text, JSON (a dict or a list) or, for a .gz path, gzip."""
    if isinstance(content, bytes):
        with open(path, "wb") as f:
            f.write(content)
        return
    if not isinstance(content, str):
        content = json.dumps(content)
    if path.endswith(".gz"):
        with gzip.open(path, "wt") as f:
            f.write(content)
    else:
        with open(path, "w") as f:
            f.write(content)


def json_lines(objects):
    return "".join(json.dumps(o) + "\n" for o in objects)


# --- the soak ---------------------------------------------------------------

# The scenario's shape, shortened: 60 s of churn, a cycle every 10 s
# (rxe2 deleted, re-added 3 s later), the watch and the recording from 3 s
# before to 5 s after, RSS samples and app reports every 2 s.
SOAK_SECONDS = 60
SOAK_CYCLES = 6
SOAK_END = 61
HOSTILE_COMM = "\\x1b[2J\\u202eq"
HOSTILE_CMDLINE = "job\\u202ehs.tpg\\x1b]0;owned\\x07\\xe9 " + "A" * 4000


def soak_cycles():
    """(cycle, delete time, re-add time) of each churn cycle."""
    return [(k, (k - 1) * 10 + 1, (k - 1) * 10 + 4) for k in range(1, SOAK_CYCLES + 1)]


def soak_port(i, sent, rated=True):
    return {"port": 1, "elapsed_s": 1.0 if i else None, "counters": {"sent_pkts": sent},
            "rates": {"sent_pkts": 1000.0 if i and rated else None}}


def soak_passes():
    cycles = soak_cycles()
    passes = []
    for i, t in enumerate(range(-3, SOAK_END + 6)):
        gone = any(d <= t < r for _, d, r in cycles)
        devices = [{"name": "rxe0", "ports": [soak_port(i, 1000 * (i + 1))]},
                   {"name": "rxe1", "ports": [soak_port(i, 500 * (i + 1))]}]
        if not gone:
            devices.append({"name": "rxe2", "ports": [{"port": 1, "counters": {"sent_pkts": 0},
                                                       "rates": {"sent_pkts": None}}]})
        evs = [{"kind": "device-removed", "device": "rxe2"} for _, d, _ in cycles if t == d]
        evs += [{"kind": "device-added", "device": "rxe2"} for _, _, r in cycles if t == r]
        passes.append({"sequence": i + 1, "monotonic_us": (1000 + t) * 1000000,
                       "interval_s": 1.0, "status": "ok", "devices": devices, "events": evs,
                       "processes": [{"pid": 10, "comm": HOSTILE_COMM,
                                      "cmdline": HOSTILE_CMDLINE}]})
    return passes


def soak_good():
    churn = ""
    for k, d, r in soak_cycles():
        churn += f"{d} cycle {k} delete rxe2\n{r} cycle {k} readd rxe2\n"
    churn += f"{SOAK_END} end cycles={SOAK_CYCLES}\n"
    rss = "".join(f"{t} {who} {5000 + t % 3}\n" for t in range(0, SOAK_END + 3, 2)
                  for who in ("watch", "record", "app"))
    app_log = "rdmatop: startup-ms=900\n" + "".join(
        f"rdmatop: memory s={t}.0 rss-kb=50000 heap-used-kb={20000 + t % 5} heap-free-kb=1000\n"
        for t in range(0, SOAK_END + 3, 2))
    trace = [{"ph": "M", "pid": 1, "name": "process_name", "args": {"name": "rdmatop"}}]
    for t in range(0, SOAK_END + 8):
        trace.append({"ph": "C", "pid": 2, "ts": t * 1000000, "name": "tx",
                      "args": {"packets/s": 1000}})
        trace.append({"ph": "C", "pid": 1, "ts": t * 1000000, "name": "rdmatop",
                      "args": {"ports": 3}})
    files = {"watch.json": json_lines(soak_passes()), "watch.json.rc": "0\n",
             "churn.log": churn, "rss.txt": rss, "app.log": app_log,
             "soak.json.gz": {"otherData": {"interval_s": 1}, "traceEvents": trace}}
    args = ["soak", "--watch", "watch.json", "--rss", "rss.txt", "--churn", "churn.log",
            "--app-log", "app.log", "--app-reports", "0:", "--recording", "soak.json.gz",
            "--device", "rxe2", "--seconds", str(SOAK_SECONDS)]
    return files, args


def edit_passes(files, fn):
    passes = [json.loads(line) for line in files["watch.json"].splitlines()]
    files["watch.json"] = json_lines(fn(passes) or passes)


def no_devices(files, args):
    def strip(passes):
        for p in passes:
            p["devices"], p["events"] = [], []
    edit_passes(files, strip)


def no_rates(files, args):
    def strip(passes):
        for p in passes:
            for d in p["devices"]:
                for port in d["ports"]:
                    port["rates"] = {k: None for k in port["rates"]}
    edit_passes(files, strip)


def no_times(files, args):
    def strip(passes):
        for p in passes:
            del p["monotonic_us"]
    edit_passes(files, strip)


def watch_cut_short(files, args):
    edit_passes(files, lambda passes: passes[:14])


def no_removal_events(files, args):
    def strip(passes):
        for p in passes:
            p["events"] = [e for e in p["events"] if e["kind"] != "device-removed"]
    edit_passes(files, strip)


def set_file(name, content):
    def edit(files, args):
        files[name] = content
    return edit


def keep_lines(name, n):
    def edit(files, args):
        files[name] = "".join(files[name].splitlines(True)[:n])
    return edit


def rss_without_values(files, args):
    files["rss.txt"] = "".join(" ".join(line.split()[:2]) + " \n"
                               for line in files["rss.txt"].splitlines())


def recording(ts):
    def edit(files, args):
        files["soak.json.gz"] = {"traceEvents": [
            {"ph": "C", "pid": 1, "ts": t, "name": "rdmatop", "args": {"ports": 3}} for t in ts]}
    return edit


def set_arg(option, value):
    def edit(files, args):
        args[args.index(option) + 1] = value
    return edit


def nothing_at_all(files, args):
    """No device in any pass, no churn (an empty log), no RSS sample, a
    recording of 1 us: each check that counts would compare 0 with 0."""
    no_devices(files, args)
    files["churn.log"] = ""
    files["rss.txt"] = ""
    recording([0, 1])(files, args)


SOAK_BAD = [
    ("no devices, no cycles, no RSS samples, a recording of 1 us", nothing_at_all,
     "are in every pass"),
    ("an empty watch", set_file("watch.json", ""), "at least 3 passes"),
    ("passes without devices", no_devices, "are in every pass"),
    ("passes without rates", no_rates, "rates in most passes"),
    ("passes without their times", no_times, "says when it ran"),
    ("a watch that stopped early", watch_cut_short, "ran through the whole churn"),
    ("no device-removed events", no_removal_events, "one device-removed per delete"),
    ("an empty churn log", set_file("churn.log", ""), "summary line"),
    ("no churn cycles", set_file("churn.log", f"{SOAK_END} end cycles=0\n"), "churn cycles"),
    ("a churn log with only its summary line",
     set_file("churn.log", f"{SOAK_END} end cycles={SOAK_CYCLES}\n"), "each churn cycle deleted"),
    ("a churn shorter than asked for", set_arg("--seconds", "600"), "the churn ran its 600 s"),
    ("an empty RSS file", set_file("rss.txt", ""), "RSS sampled for"),
    ("three RSS samples", keep_lines("rss.txt", 9), "RSS samples across"),
    ("RSS samples without values", rss_without_values, "has its time, process and value"),
    ("no app memory reports", set_file("app.log", "rdmatop: startup-ms=900\n"),
     "reports its memory"),
    ("a recording of 1 us", recording([0, 1]), "covers the whole run"),
    ("a recording of two passes", recording([0, (SOAK_END + 5) * 1000000]), "holds at least"),
    ("an empty recording", recording([]), "covers the whole run"),
]


# --- librdmatop captures ------------------------------------------------------

# 0.2 s at 1 ms: 200 deadlines, every one taken, rxe0 busy, rxe2 idle.
CAP_SECONDS, CAP_INTERVAL_MS, CAP_PASSES = 0.2, 1, 200
MSG_INTERVAL = "The interval must be a number of seconds from 0.001 to 60, not 0.0001"
MSG_DEVICE = "No RDMA device is named nosuchdev0"


def c_capture(passes=CAP_PASSES):
    times = [1000000000 + k * 1000000 for k in range(passes)]
    series = [{"device": dev, "port": 1, "counter": c, "n": passes, "first": 100,
               "last": 100 + (passes if dev == "rxe0" else 0), "decreases": 0}
              for dev in ("rxe0", "rxe2") for c in ("sent_pkts", "rcvd_pkts")]
    return {"read": 4 * passes, "wall_ns": int(CAP_SECONDS * 1e9),
            "stats": {"taken": passes, "missed": 0, "dropped": 0, "dropped_samples": 0,
                      "samples": 4 * passes, "read_errors": 0, "interval_median_ns": 1000000,
                      "interval_p99_ns": 1000000},
            "series": series,
            "reads": [{"device": dev, "port": 1, "monotonic_ns": times} for dev in ("rxe0", "rxe2")]}


def py_capture(passes=CAP_PASSES):
    rates = {f"{dev}/1/{c}": {"n": passes - 1, "delta": passes if dev == "rxe0" else 0}
             for dev in ("rxe0", "rxe2") for c in ("sent_pkts", "rcvd_pkts")}
    return {"stats": {"taken": passes, "missed": 0, "dropped": 0, "read_errors": 0,
                      "interval_median_ns": 1000000, "interval_p99_ns": 1100000},
            "rates": rates,
            "snapshot": {"rxe0": {"1": {"state": "ACTIVE"}}, "rxe2": {"1": {"state": "ACTIVE"}}},
            "errors": {"interval": {"type": "IntervalError", "value_error": True,
                                    "message": MSG_INTERVAL},
                       "device": {"type": "UnknownDeviceError", "value_error": False,
                                  "message": MSG_DEVICE},
                       "counter": {"type": "UnknownDeviceError", "value_error": False,
                                   "message": "No counter is named no_such_counter"}}}


def capture_good():
    snap_port = {"rxe0": {"sent_pkts": 500, "rcvd_pkts": 300},
                 "rxe2": {"sent_pkts": 7, "rcvd_pkts": 7}}
    files = {
        "c.json": c_capture(), "c-user.json": c_capture(),
        "c-some.json": {"read": 200, "stats": {"taken": 100, "samples": 200},
                        "series": [{"device": "rxe0", "port": 1, "counter": c}
                                   for c in ("sent_pkts", "rcvd_pkts")]},
        "c-snapshot.json": {"devices": [
            {"name": dev, "ports": [{"port": 1, "state": "ACTIVE", "counters": counters}]}
            for dev, counters in snap_port.items()]},
        "rdma-stat.json": [{"ifname": "rxe0", "port": 1, "ifindex": 3, "sent_pkts": 510,
                            "rcvd_pkts": 310},
                           {"ifname": "rxe2", "port": 1, "ifindex": 5, "sent_pkts": 7,
                            "rcvd_pkts": 7}],
        "c-error-interval.json": {"status": 5, "message": MSG_INTERVAL},
        "c-error-device.json": {"status": 4, "message": MSG_DEVICE},
        "c-error-counter.json": {"status": 4, "message": "No counter is named no_such_counter"},
        "c-error-port.json": {"status": 4, "message": "No device has a port 99"},
        "cli-interval.err": "rdmatop-cli: " + MSG_INTERVAL + "\n",
        "cli-nodev.err": "rdmatop-cli: " + MSG_DEVICE + "\n",
        "py.json": py_capture(),
    }
    args = ["capture", "--c", "c.json", "--c-user", "c-user.json", "--c-some", "c-some.json",
            "--c-snapshot", "c-snapshot.json", "--rdma", "rdma-stat.json", "--errors", ".",
            "--py", "py.json", "--busy", "rxe0", "--idle", "rxe2",
            "--seconds", str(CAP_SECONDS), "--interval-ms", str(CAP_INTERVAL_MS)]
    return files, args


def empty_capture(files, args):
    c = c_capture(0)
    c["series"], c["reads"] = [], []
    files["c.json"] = c


def capture_without_reads(files, args):
    files["c.json"]["reads"] = []


def snapshot_without_devices(files, args):
    files["c-snapshot.json"] = {"devices": []}


CAPTURE_BAD = [
    ("a C capture of two passes", set_file("c.json", c_capture(2)), "span the capture's"),
    ("an empty C capture", empty_capture, "both devices captured"),
    ("a C capture without its read times", capture_without_reads, "read times of both devices"),
    ("a C snapshot without devices", snapshot_without_devices, "C snapshot: both devices"),
    ("no rdma statistic to compare with", set_file("rdma-stat.json", []),
     "rdma statistic shows"),
    ("a Python capture of two passes", set_file("py.json", py_capture(2)),
     "Python: the capture's deadlines span"),
]


# rdmatop-cli record --counters-only at 1 ms for 0.2 s: CSV rows and trace
# counter events for both ports, one per pass.
def capture_record_good(spacing_us=1000):
    rows = ["monotonic_us,device,port,tx_packets"]
    trace = [{"ph": "M", "pid": 2, "name": "process_name", "args": {"name": "rxe0/1"}},
             {"ph": "M", "pid": 3, "name": "process_name", "args": {"name": "rxe2/1"}}]
    for k in range(CAP_PASSES):
        t = 5000000 + k * spacing_us
        rows.append(f"{t},rxe0,1,{1000 + 10 * k}")
        rows.append(f"{t},rxe2,1,7")
        trace.append({"ph": "C", "pid": 2, "ts": t - 5000000, "name": "tx",
                      "args": {"packets/s": 10000}})
        trace.append({"ph": "C", "pid": 3, "ts": t - 5000000, "name": "tx",
                      "args": {"packets/s": 0}})
    files = {"cap.csv": "\n".join(rows) + "\n", "cap.json": {"traceEvents": trace}}
    args = ["capture-record", "--csv", "cap.csv", "--trace", "cap.json", "--busy", "rxe0",
            "--idle", "rxe2", "--seconds", str(CAP_SECONDS)]
    return files, args


def record_in_a_moment(name):
    def edit(files, args):
        short, _ = capture_record_good(spacing_us=1)
        files[name] = short[name]
    return edit


CAPTURE_RECORD_BAD = [
    ("an empty CSV", set_file("cap.csv", "monotonic_us,device,port,tx_packets\n"), "both devices"),
    ("CSV rows within 200 us", record_in_a_moment("cap.csv"), "rows span the recording's"),
    ("a trace within 200 us", record_in_a_moment("cap.json"), "spans the recording's"),
]


# --- health at a glance -----------------------------------------------------

def health_passes():
    """12 passes: rxe2/1 down from pass 3 to 10, rxe0 retransmitting in
    passes 4 to 8 (one episode), qp-holder's QPs in error from pass 10."""
    passes = []
    for n in range(1, 13):
        down = 3 <= n <= 10
        rate = None if n == 1 else (5.0 if 4 <= n <= 8 else 0.0)
        evs = []
        if n == 3:
            evs.append({"kind": "port-down", "device": "rxe2", "port": 1, "ongoing": True,
                        "episode": 1, "severity": "error", "message": "rxe2/1 went down"})
        if n == 11:
            evs.append({"kind": "port-down", "device": "rxe2", "port": 1, "ongoing": False,
                        "episode": 1, "severity": "error", "message": "rxe2/1 is up again"})
        if n == 5:
            evs.append({"kind": "counter-rising", "device": "rxe0", "port": 1,
                        "counter": "completer_retry_err", "ongoing": True, "episode": 2,
                        "severity": "warning", "message": "rxe0/1 is resending packets"})
        if n == 9:
            evs.append({"kind": "counter-settled", "device": "rxe0", "port": 1,
                        "counter": "completer_retry_err", "ongoing": False, "episode": 2,
                        "severity": "warning", "message": "rxe0/1 stopped resending"})
        if n == 10:
            evs.append({"kind": "qp-error", "device": "rxe3", "pid": 77, "process": "qp-holder",
                        "severity": "error", "message": "qp-holder (pid 77): a QP failed"})
        passes.append({
            "sequence": n, "status": "ok", "events": evs,
            "devices": [
                {"name": "rxe0", "ports": [{"port": 1, "health": "ok", "metrics": {
                    "retransmits": {"value": n, "rate": rate}}}]},
                {"name": "rxe1", "ports": [{"port": 1, "health": "ok"}]},
                {"name": "rxe2", "ports": [{"port": 1, "state": "DOWN" if down else "ACTIVE",
                                            "health": "error" if down else "ok",
                                            "link_up": not down}]}],
            "processes": [{"pid": 77, "qps_in_error": 2 if n >= 10 else 0, "qp_list": [
                {"state": "ERR" if n >= 10 else "RTS", "type": "RC"}] * 2}]})
    return passes


def health_probe(n_events=3):
    line = {"recent": [{"kind": "port-down", "location": "rxe2/1", "severity": "error"},
                       {"kind": "counter-rising", "location": "rxe0/1", "severity": "warning"}],
            "problems": "rxe2/1 is down", "ports": [{"key": "rxe2/1", "health": "error",
                                                     "link": "Down"}]}
    if n_events is not None:
        line["n_events"] = n_events
    return [dict(line, sequence=n) for n in range(1, 8)]


def health_good():
    files = {"watch.json": json_lines(health_passes()), "probe.json": json_lines(health_probe())}
    args = ["health", "--watch", "watch.json", "--probe", "probe.json", "--probe-at", "5",
            "--watch-at", "9", "--down", "rxe2", "--sender", "rxe0", "--receiver", "rxe1",
            "--holder-pid", "77", "--holder-device", "rxe3"]
    return files, args


def no_retransmit_rates(files, args):
    def strip(passes):
        for p in passes:
            p["devices"][0]["ports"][0]["metrics"]["retransmits"]["rate"] = None
    edit_passes(files, strip)


HEALTH_BAD = [
    ("a probe line without its event count", set_file("probe.json", json_lines(health_probe(None))),
     "the event log holds a handful"),
    ("a probe line with no event", set_file("probe.json", json_lines(health_probe(0))),
     "the event log holds a handful"),
    ("the probe's pass 0", set_arg("--probe-at", "0"), "the probe wrote"),
    ("an episode without retransmits", no_retransmit_rates, "raised an episode"),
]


# --- jobs and rails -----------------------------------------------------------

# Job 1234 step 0: a qp-holder (pid 10, 2 QPs in RESET on rxe0) and the
# senders on rxe0, rxe2, rxe4, rxe6 (pids 11 to 14); the pod: a qp-holder
# (pid 20, 3 QPs on rxe1) and the receivers on rxe1, rxe3, rxe5, rxe7
# (pids 21 to 24).  20 passes: traffic from pass 4, rxe6 -> rxe7 at 30 Mb/s,
# the others at 150; both episodes open at pass 10.
POD_UID = "6d1f3c2a-8b4e-4f7a-9c1d-2e5b7a9f0c31"
CONTAINER = "3b8f5e0c9a7d41e2b6c0f4a8d2e6b1c7f9a3e5d7c1b4a6f8e0d2c4b6a8f0e1d3"
SLURM_JOB = {"kind": "slurm", "id": "1234", "detail": "0", "name": "slurm 1234.0"}
POD_JOB = {"kind": "kubernetes", "id": POD_UID, "detail": CONTAINER,
           "name": "pod %s/%s" % (POD_UID, CONTAINER[:12])}


def jobs_processes():
    """(pid, comm, job, device, QPs) of each process."""
    procs = [(10, "qp-holder", SLURM_JOB, "rxe0", 2), (20, "qp-holder", POD_JOB, "rxe1", 3)]
    for k in range(4):
        procs.append((11 + k, "ib_send_bw", SLURM_JOB, "rxe%d" % (2 * k), 1))
        procs.append((21 + k, "ib_send_bw", POD_JOB, "rxe%d" % (2 * k + 1), 1))
    return procs


def jobs_snapshot():
    return {"status": "ok", "devices": [], "pids_hidden": False, "processes": [
        {"pid": pid, "comm": comm, "job": dict(job), "qps": qps,
         "devices": [{"device": dev, "qps": qps}]}
        for pid, comm, job, dev, qps in jobs_processes()] + [
        {"pid": 0, "comm": "ib_core", "job": None, "qps": 8, "devices": []}]}


def rail_event(dev, job):
    return {"kind": "rail-imbalance", "severity": "warning", "device": dev, "port": 1,
            "episode": 1, "ongoing": True, "new": "20 %",
            "message": "Rail %s/1 carries 20 %% of the median of its 3 peers (150 Mb/s), in job %s."
                       % (dev, job["name"])}


def jobs_passes(rate=lambda n, dev: 150 if dev not in ("rxe6", "rxe7") else 30, evs=None):
    evs = {10: [rail_event("rxe6", SLURM_JOB), rail_event("rxe7", POD_JOB)]} if evs is None else evs
    passes = []
    for n in range(1, 21):
        devices = []
        for i in range(8):
            dev = "rxe%d" % i
            r = None if n == 1 else (rate(n, dev) if n >= 4 else 0) * 1e6 / 8
            devices.append({"name": dev, "ports": [{"port": 1, "metrics": {
                "tx_bytes": {"rate": None if r is None else r * 0.97},
                "rx_bytes": {"rate": None if r is None else r * 0.03}}}]})
        passes.append({"sequence": n, "status": "ok", "devices": devices,
                       "events": evs.get(n, [])})
    return passes


def jobs_probe(recent=True, jobs=True):
    texts = {"slurm": "Slurm job 1234, step 0",
             "kubernetes": "Pod %s, container %s" % (POD_UID, CONTAINER[:12])}
    lines = []
    for n in range(1, 21):
        line = {"sequence": n, "recent": [], "processes": [
            {"pid": pid, "comm": comm, "job": texts[job["kind"]] if jobs else None}
            for pid, comm, job, _, _ in jobs_processes()]}
        if recent and n >= 11:
            line["recent"] = [dict(rail_event(dev, job), location=dev + "/1")
                              for dev, job in (("rxe6", SLURM_JOB), ("rxe7", POD_JOB))]
        lines.append(line)
    return lines


JOB_TEXTS = {"slurm": "Slurm job 1234, step 0",
             "kubernetes": "Pod %s, container %s" % (POD_UID, CONTAINER[:12])}


def jobs_window(rates=None, marked=("rxe6", "rxe7")):
    """The window's dumps: the Rails tab narrowed to each job, each job's
    page, the Processes view."""
    rates = rates or {"rxe6": "0.3 %", "rxe7": "0.3 %"}
    files = {}
    view = ""
    for tag, key, job, first in (("slurm", "slurm/1234", SLURM_JOB, 0),
                                 ("pod", "kubernetes/" + POD_UID, POD_JOB, 1)):
        rails = "rails: 4 ports; show throughput; job %s\n" % key
        page = "job: %s; 1 host; 5 processes\n" % JOB_TEXTS[job["kind"]]
        for k in range(4):
            dev = "rxe%d" % (2 * k + first)
            rails += "rails row: %s/1 %s%s\n" % (dev, rates.get(dev, "1.3 %"),
                                                 " imbalance" if dev in marked else "")
            page += "job device: This computer %s qps=1 mrs=1 registered=64 KiB ports=%s/1\n" % (dev, dev)
        for pid, comm, pjob, dev, qps in jobs_processes():
            if pjob is job:
                page += "job process: This computer\t%d\t%s\troot\tx\t%s\t%d\t1\n" % (pid, comm, dev, qps)
        files["rails-%s.txt" % tag] = rails
        files["job-%s.txt" % tag] = page
    for pid, comm, job, dev, qps in jobs_processes():
        view += "process\tpid=%d\tuser=root\tjob=%s\tcommand=%s\tdevices=%s\n" % (
            pid, JOB_TEXTS[job["kind"]], comm, dev)
    files["processes.txt"] = view
    return files


def jobs_good():
    qps = [{"ifname": dev, "pid": pid, "comm": comm}
           for pid, comm, _, dev, n in jobs_processes() for _ in range(n)]
    files = {"snap.json": jobs_snapshot(), "snap-user.json": jobs_snapshot(),
             "rdma.qp.json": qps + [{"ifname": "rxe0", "comm": "ib_core"}],
             "watch.json": json_lines(jobs_passes()), "probe.json": json_lines(jobs_probe())}
    files.update(jobs_window())
    args = ["jobs", "--snapshot", "snap.json", "--snapshot-user", "snap-user.json",
            "--rdma", "rdma", "--watch", "watch.json", "--probe", "probe.json",
            "--traffic-at", "3", "--probe-traffic-at", "3",
            "--slurm-job", "1234", "--slurm-step", "0", "--slurm-pids", "10,11,12,13,14",
            "--slurm-rails", "rxe0,rxe2,rxe4,rxe6", "--pod-uid", POD_UID,
            "--pod-container", CONTAINER, "--pod-pids", "20,21,22,23,24",
            "--pod-rails", "rxe1,rxe3,rxe5,rxe7", "--holder", "10:2", "--holder", "20:3",
            "--throttled", "rxe6,rxe7", "--window", "."]
    return files, args


def edit_text(name, old, new):
    def edit(files, args):
        assert old in files[name], (name, old)
        files[name] = files[name].replace(old, new)
    return edit


def set_window(**kw):
    def edit(files, args):
        files.update(jobs_window(**kw))
    return edit


def edit_snapshot(name, fn):
    def edit(files, args):
        fn(files[name])
    return edit


def out_of_job(snap):
    snap["processes"][2]["job"] = None


def set_watch(**kw):
    def edit(files, args):
        files["watch.json"] = json_lines(jobs_passes(**kw))
    return edit


JOBS_BAD = [
    ("an empty snapshot", set_file("snap.json", {"status": "ok", "devices": []}),
     "snapshot: process 10 is listed"),
    ("a user snapshot without processes", set_file("snap-user.json", {"status": "ok", "devices": []}),
     "snapshot as rdmatest: process 10 is listed"),
    ("a process out of its job", edit_snapshot("snap.json", out_of_job),
     "is in slurm 1234.0"),
    ("a process given to both jobs", set_arg("--slurm-pids", "10,11,12,13,14,21"),
     "no process is given to both jobs"),
    ("a receiver given as the job's and a sender as the pod's",
     lambda files, args: (set_arg("--slurm-pids", "10,11,12,13,21")(files, args),
                          set_arg("--pod-pids", "20,14,22,23,24")(files, args)),
     "process 21 (ib_send_bw) is in slurm 1234.0"),
    ("no QPs from rdma", set_file("rdma.qp.json", []), "lists every process of the two jobs"),
    ("a qp-holder with other QPs than asked for", set_arg("--holder", "10:5"), "has 5 QPs"),
    ("an empty watch", set_file("watch.json", ""), "at least 3 passes"),
    ("a watch without events", set_watch(evs={}), "rail-imbalance events name exactly"),
    ("an event for an unthrottled rail",
     set_watch(evs={10: [rail_event("rxe6", SLURM_JOB), rail_event("rxe7", POD_JOB),
                         rail_event("rxe4", SLURM_JOB)]}),
     "rail-imbalance events name exactly"),
    ("an event before the traffic",
     set_watch(evs={2: [rail_event("rxe6", SLURM_JOB)], 10: [rail_event("rxe7", POD_JOB)]}),
     "no rail-imbalance event before the traffic"),
    ("an event in the other job",
     set_watch(evs={10: [rail_event("rxe6", POD_JOB), rail_event("rxe7", POD_JOB)]}),
     "its message names rxe6/1 and its job"),
    ("two events for one rail",
     set_watch(evs={10: [rail_event("rxe6", SLURM_JOB), rail_event("rxe7", POD_JOB)],
                    12: [rail_event("rxe6", SLURM_JOB)]}),
     "one rail-imbalance event for rxe6/1"),
    ("another port expected", set_arg("--throttled", "rxe4,rxe5"),
     "rail-imbalance events name exactly rxe4/1, rxe5/1"),
    ("rails under the idle floor", set_watch(rate=lambda n, dev: 90 if dev not in ("rxe6", "rxe7") else 20),
     "carry at least 100 Mb/s"),
    ("a throttled rail at its peers' rate", set_watch(rate=lambda n, dev: 150),
     "rxe6/1 carries under half"),
    ("a watch that ends with the events", keep_lines("watch.json", 11),
     "the shares held for at least 10 passes"),
    ("an empty probe", set_file("probe.json", ""), "the probe ran before and during"),
    ("a probe without the events", set_file("probe.json", json_lines(jobs_probe(recent=False))),
     "the app's recent events hold each throttled rail's episode"),
    ("a probe without job texts", set_file("probe.json", json_lines(jobs_probe(jobs=False))),
     "the app gives process 10's job"),
    ("no window dumps", lambda files, args: [files.pop(k) for k in list(files) if k.endswith(".txt")],
     "rails-slurm.txt was written"),
    ("a Rails tab not narrowed", edit_text("rails-slurm.txt", "job slurm/1234", "job all"),
     "the Rails tab is narrowed to slurm/1234"),
    ("a Rails tab with another job's rail", edit_text("rails-pod.txt", "rxe5/1", "rxe4/1"),
     "kubernetes/%s's rails are exactly" % POD_UID),
    ("no imbalance mark", set_window(marked=("rxe7",)), "slurm/1234: the Rails tab marks rxe6"),
    ("a balanced rail marked", set_window(marked=("rxe6", "rxe7", "rxe2")),
     "slurm/1234: the Rails tab marks rxe6"),
    ("the throttled rail at full rate", set_window(rates={"rxe6": "1.4 %", "rxe7": "0.3 %"}),
     "shows rxe6/1 under half its peers"),
    ("a rate read in the wrong unit", set_window(rates={"rxe6": "29.8 Mb/s", "rxe0": "151 kb/s",
                                                         "rxe2": "151 kb/s", "rxe4": "151 kb/s"}),
     "shows rxe6/1 under half its peers"),
    ("shares and rates mixed", set_window(rates={"rxe6": "0.3 %", "rxe0": "151 Mb/s"}),
     "each row's value is a share of its link or a rate"),
    ("a value that is not one", set_window(rates={"rxe6": "—", "rxe7": "0.3 %"}),
     "each row's value is a share of its link or a rate"),
    ("a job page without a process", edit_text("job-slurm.txt", "\t12\t", "\t99\t"),
     "slurm/1234's page lists exactly its processes"),
    ("a job page without its port", edit_text("job-pod.txt", "ports=rxe3/1", "ports="),
     "'s page gives each of its devices the port"),
    ("a process without its job in the view", edit_text("processes.txt", "pid=13\tuser=root\tjob=Slurm", "pid=13\tuser=root\tjob=—\t"),
     "process 13's job"),
]


# --- every other checker, fed nothing -----------------------------------------

# Each checker with inputs that parse but hold nothing: a status-ok snapshot
# without devices, empty `rdma -j` lists, a watch without passes, a trace
# without events, and a count of 0 where the scenario gives one.  Each must
# fail on the assertion about the missing data (EXPECT), not by crashing.
EMPTY_FILES = {
    "snap.json": {"status": "ok", "devices": []},
    "watch.jsonl": "",
    "trace.json": {"traceEvents": []},
}
for _kind in ("dev", "link", "stat", "res", "qp", "cm_id", "mr"):
    EMPTY_FILES["r.%s.json" % _kind] = []

NO_DATA = [
    (["discovery", "--snapshot", "snap.json", "--rdma", "r", "--devices", "0"],
     "non-zero values (traffic ran)"),
    (["traffic", "--watch", "watch.jsonl", "--count", "0", "--client", "rxe0/1",
      "--server", "rxe1/1", "--idle", "rxe2/1", "--rdma", "r"],
     "a baseline and at least one rated pass"),
    (["processes", "--snapshot", "snap.json", "--rdma", "r"], "lists the test's processes"),
    (["peers", "--snapshot", "snap.json", "--rdma", "r", "--pids", "1"], "process 1 is listed"),
    (["profiler-trace", "--trace", "trace.json", "--busy", "rxe0/1", "--idle", "rxe1/1",
      "--metric", "tx"], "a process named rdmatop"),
    (["loss", "--watch", "watch.jsonl", "--count", "0", "--device", "rxe0"],
     "asked for at least 2 passes"),
    (["link", "--watch", "watch.jsonl", "--device", "rxe0", "--rdma-down", "r",
      "--rdma-up", "r"], "at least 3 passes"),
    (["delete", "--watch", "watch.jsonl", "--device", "rxe0", "--other", "rxe1"],
     "at least 3 passes"),
    (["gpu", "--snapshot", "snap.json", "--rdma", "r"], "GPUs of the stand-in NVML are listed"),
    (["gpu-watch", "--watch", "watch.jsonl", "--rdma-device", "rxe0"], "at least 4 passes"),
]


def check_no_data(vmcheck, verbose):
    for args, expect in NO_DATA:
        rc, out, failed = run_check(vmcheck, EMPTY_FILES, args, verbose)
        hit = [line for line in failed if expect in line]
        tap(rc == 1 and hit, "%s: no data fails (%s)" % (args[0], expect),
            "\n".join(failed[:6]) if hit else "exit status %d, failed: %s\n%s"
            % (rc, failed[:6], out[-2000:]))


def png(width, height, pixel, filter_type=1):
    """A PNG (8-bit RGB) whose pixel at x, y is pixel(x, y), its rows
    filtered with filter_type (1: Sub) so that the check decodes them."""
    def chunk(kind, body):
        return (struct.pack(">I", len(body)) + kind + body +
                struct.pack(">I", zlib.crc32(kind + body) & 0xffffffff))
    raw = bytearray()
    for y in range(height):
        row = [c for x in range(width) for c in pixel(x, y)]
        raw.append(filter_type)
        raw += bytes((row[i] - (row[i - 3] if i >= 3 else 0)) & 0xff for i in range(len(row)))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)) +
            chunk(b"IDAT", zlib.compress(bytes(raw))) + chunk(b"IEND", b""))


def page_pixel(x, y):
    """A page: a light background, grey text of many shades, a blue line."""
    if y == 20 + (x % 7):
        return (0x35, 0x84, 0xe4)
    if (x // 3 + y // 5) % 4 == 0:
        return (x % 200, x % 200, y % 200)
    return (0xfa, 0xfa, 0xfa)


def screenshot_good():
    return {"shot.png": png(120, 60, page_pixel)}, ["screenshot", "--png", "shot.png", "--near", "3584e4:100"]


SCREENSHOT_BAD = [
    ("a blank picture", set_file("shot.png", png(120, 60, lambda x, y: (0xfa, 0xfa, 0xfa))), "is a drawn page"),
    ("a page without the line",
     set_file("shot.png", png(120, 60, lambda x, y: (0xfa, 0xfa, 0xfa) if y == 20 + x % 7 else page_pixel(x, y))),
     "pixels near #3584e4"),
    ("a page whose only blue is a card's stripe",
     set_file("shot.png", png(120, 60, lambda x, y: (0x35, 0x84, 0xe4) if x < 3 else
                              ((0xfa, 0xfa, 0xfa) if y == 20 + x % 7 else page_pixel(x, y)))),
     "pixels near #3584e4"),
    ("a file that is not a PNG", set_file("shot.png", "GIF89a"), "check ran to completion"),
]


# --- the runner --------------------------------------------------------------

def run_check(vmcheck, files, args, verbose):
    """Writes FILES in a directory of their own and runs vmcheck.py there.
    Returns (exit status, its output, the assertions that failed)."""
    with tempfile.TemporaryDirectory(prefix="test-vmcheck-") as d:
        for name, content in files.items():
            write(os.path.join(d, name), content)
        env = {k: v for k, v in os.environ.items() if k not in ("VM_TALLY", "VM_RESULTS_DIR")}
        p = subprocess.run([sys.executable, vmcheck] + args, cwd=d, env=env,
                           capture_output=True, text=True, timeout=120)
    out = p.stdout + p.stderr
    if verbose:
        print("".join("# | " + line + "\n" for line in out.splitlines()))
    failed = [line for line in out.splitlines() if line.startswith("not ok - ")]
    return p.returncode, out, failed


def check_one(vmcheck, good, bad, verbose):
    files, args = good()
    check = args[0]
    rc, out, failed = run_check(vmcheck, files, args, verbose)
    passed = sum(1 for line in out.splitlines() if line.startswith("ok - "))
    tap(rc == 0 and not failed and passed > 0,
        "%s: a good run passes (%d assertions)" % (check, passed),
        "" if rc == 0 else "exit status %d\n%s" % (rc, out[-3000:]))
    for name, edit, expect in bad:
        files, args = good()
        files = copy.deepcopy(files)
        edit(files, args)
        rc, out, failed = run_check(vmcheck, files, args, verbose)
        hit = [line for line in failed if expect in line]
        tap(rc == 1 and hit, "%s: %s fails (%s)" % (check, name, expect),
            "\n".join(failed[:6]) if hit else "exit status %d, failed: %s\n%s"
            % (rc, failed[:6], out[-2000:]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vmcheck", default=os.path.join(HERE, "vmcheck.py"))
    ap.add_argument("--verbose", action="store_true", help="print each check's output")
    a = ap.parse_args()
    for good, bad in ((soak_good, SOAK_BAD), (capture_good, CAPTURE_BAD),
                      (capture_record_good, CAPTURE_RECORD_BAD), (health_good, HEALTH_BAD),
                      (jobs_good, JOBS_BAD),
                      (screenshot_good, SCREENSHOT_BAD)):
        check_one(a.vmcheck, good, bad, a.verbose)
    check_no_data(a.vmcheck, a.verbose)
    print("1..%d" % len(results))
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
