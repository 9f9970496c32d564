#!/usr/bin/env python3
# bench-table.py RESULTS_DIR [--elapsed S]: the benchmark table of
# tests/bench/run-benchmarks.sh, from the raw figures its parts left in
# RESULTS_DIR (sampling/, gui/, draw/, recording/).  A part that did not run
# says "not measured: <reason>"; a figure that is missing is never made up.
import datetime
import os
import platform
import re
import statistics
import sys

TARGET_FLOOR = 1.25
TARGET_DRAW = 1.5
TARGET_REC_MIB = 2.0


def kv(line):
    return dict(m.groups() for m in re.finditer(r"(\S+?)=(\S*)", line))


def num(d, key):
    try:
        return float(d[key])
    except (KeyError, ValueError, TypeError):
        return None


def med(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def fmt_us(v):
    if v is None:
        return "-"
    return f"{v / 1000:.2f} ms" if v >= 10000 else f"{v:.0f} µs"


def fmt_ratio(v):
    return "-" if v is None else f"{v:.2f}x"


def table(rows, header):
    widths = [max(len(str(r[i])) for r in [header] + rows) for i in range(len(header))]
    line = lambda r: "  " + "  ".join(str(c).rjust(w) for c, w in zip(r, widths))
    out = [line(header), "  " + "  ".join("-" * w for w in widths)]
    out += [line(r) for r in rows]
    return "\n".join(out)


def not_measured(results, part):
    path = os.path.join(results, part, "not-measured")
    if os.path.exists(path):
        return open(path).read().strip()
    return None


def read_lines(path):
    try:
        with open(path) as f:
            return [l.rstrip("\n") for l in f]
    except OSError:
        return None


# ---- 1, 2: sampling ----------------------------------------------------

def sampling_cells(lines):
    cells = {}
    for line in lines:
        # "<scale keys> tool=NAME <the tool's own keys>": the tool's keys
        # (its devices=, qps= as it saw them) must not replace the scale's.
        if " tool=" not in line:
            continue
        scale_part, tool_part = line.split(" tool=", 1)
        scale, d = kv(scale_part), kv("tool=" + tool_part)
        key = (int(scale["devices"]), int(scale["qps"]))
        c = cells.setdefault(key, {"floor": [], "floor_med": [], "rtop": [], "rtop_mean": [],
                                   "p10": [], "p90": [], "errors": [], "passes": 0})
        tool = d["tool"]
        if "error" in d:
            c["errors"].append(f"{tool}: {d['error'].replace('_', ' ')}")
            continue
        if tool == "nl-floor":
            c["floor"].append(num(d, "cpu_us_per_pass"))
            if num(d, "pass_cpu_us_median") is not None:
                c["floor_med"].append(num(d, "pass_cpu_us_median"))
        elif tool == "sample-cost":
            c["rtop"].append(num(d, "cpu_us_median"))
            c["rtop_mean"].append(num(d, "cpu_us_per_pass"))
            c["p10"].append(num(d, "cpu_us_p10"))
            c["p90"].append(num(d, "cpu_us_p90"))
            c["passes"] += int(d.get("passes", 0))
            c["seen_qps"] = d.get("qps")
            c["seen_procs"] = d.get("processes")
            c["counters"] = d.get("counters")
            c["fds"] = d.get("fds")
        elif tool == "rdma":
            c["rdma"] = num(d, "cpu_us_median")
            c["rdma_runs"] = d.get("runs")
        elif tool == "rdma-qp-count":
            c["rdma_qps"] = d.get("count")
        elif tool == "sample-cost-info":
            m = re.search(r"\((\d+)_to_(\d+)_per_port\)", d.get("info", ""))
            if m:
                c["per_port"] = f"{m.group(1)}-{m.group(2)}"
    return cells


def section_sampling(results, out):
    out.append("1. Sampling cost: CPU time of one pass (user+system; Soft-RoCE guest)")
    reason = not_measured(results, "sampling")
    lines = read_lines(os.path.join(results, "sampling", "sampling.txt"))
    if reason or not lines:
        out.append(f"   not measured: {reason or 'no sampling.txt'}")
        return
    head = kv(lines[0]) if lines[0].startswith("guest") else {}
    cells = sampling_cells(lines)
    rows = []
    mismatch = []
    for (dev, qps) in sorted(cells):
        c = cells[(dev, qps)]
        # Two ratios, both of the median round (a round can come out too
        # low as well as too high: a floor round right after 10,000 QPs
        # were created once took 9.6 ms where the others took 90-98 ms):
        # - of medians: each round's median single pass, for both tools.
        #   A host that stalls the emulated guest now and then (time the
        #   guest counts as CPU) lands in a few passes, not in the median;
        #   this one is held against the target.
        # - of means: CPU over all P passes of a round (getrusage), stalls
        #   included.
        floor, rtop, rtop_mean = med(c["floor"]), med(c["rtop"]), med(c["rtop_mean"])
        floor_med = med(c["floor_med"])
        c["floor_m"], c["rtop_m"], c["rtop_mean_m"] = floor, rtop, rtop_mean
        ratio_mean = rtop_mean / floor if rtop_mean and floor else None
        ratio = rtop / floor_med if rtop and floor_med else None
        c["ratio"] = ratio
        met = "-" if ratio is None else ("yes" if ratio <= TARGET_FLOOR else "NO")
        if c.get("seen_qps") is not None and c.get("rdma_qps") is not None \
                and c["seen_qps"] != c["rdma_qps"]:
            met += " (!)"
            mismatch.append((dev, qps))
        rdma = c.get("rdma")
        rows.append([
            dev, qps,
            f"{c.get('seen_qps', '-')}/{c.get('rdma_qps', '-')}",
            f"{fmt_us(rtop)} [{fmt_us(med(c['p10']))}-{fmt_us(med(c['p90']))}]",
            fmt_us(floor_med), fmt_ratio(ratio), met,
            fmt_us(rtop_mean), fmt_us(floor), fmt_ratio(ratio_mean),
            fmt_us(rdma), fmt_ratio(rdma / rtop if rdma and rtop else None),
            c.get("counters", "-"), c.get("fds", "-"),
        ])
        for e in c["errors"]:
            rows.append(["", "", "", "error: " + e[:90], "", "", "", "", "", "", "", "", "", ""])
    out.append(f"   guest kernel {head.get('kernel', '?')}, {head.get('cpus', '?')} vCPUs (TCG); "
               f"{head.get('rounds', '?')} alternating rounds per scale, QPs held by qp-holder on rxe0")
    out.append(table(rows, ["devices", "QPs", "QPs seen (rdmatop/rdma)",
                            "rdmatop median [p10-p90]", "nl-floor median", "rdmatop/floor",
                            f"<= {TARGET_FLOOR}x", "rdmatop mean", "nl-floor mean", "ratio of means",
                            "rdma stat+res qp", "rdma/rdmatop", "counters", "fds"]))
    out.append("   rdmatop: sample-cost, rtop_collector_sample() incl. sysfs, /proc and freeing the snapshot.")
    out.append("   nl-floor: bare libmnl, the same netlink requests (and the routing netlink dump rdmatop")
    out.append("   makes for Soft-RoCE's netdev bytes), replies discarded.  Each round: P back-to-back passes")
    out.append("   in one process; the tables show the median round of the alternating rounds (after one")
    out.append("   warm-up round that is not counted).  median: the round's median single pass (CPU clock")
    out.append("   of the process around each pass), p10-p90 its spread; rdmatop/floor is the ratio of")
    out.append("   these, held against the target.  mean: CPU over all P passes (getrusage), which also")
    out.append("   takes in the stalls an emulated guest gets from a busy host.  rdma: `rdma -j statistic")
    out.append("   show` + `rdma -j res show qp`, each a new process as users run them (median CPU of the")
    out.append("   pair, from wait4). QPs seen: QPs in rdmatop's process list / lines of `rdma -j res show qp`")
    out.append("   (which also lists the kernel's own QP1 per device).")
    if mismatch:
        out.append("   (!) rdmatop's snapshot counted a different number of QPs than `rdma res show qp`")
        out.append("   lists: that pass did not do the same work as the floor, so its ratio is not a result.")
    out.append("")
    section_growth(cells, out)


def section_growth(cells, out):
    out.append("2. How the pass grows (from the table above; linear means cost ratio ~ scale ratio)")
    devs = sorted({d for d, _ in cells})
    qpss = sorted({q for _, q in cells})
    rows = []
    for q in qpss:
        pts = [(d, cells[(d, q)].get("rtop_mean_m"), cells[(d, q)].get("floor_m"))
               for d in devs if (d, q) in cells]
        for (d0, r0, f0), (d1, r1, f1) in zip(pts, pts[1:]):
            if None in (r0, r1, f0, f1):
                continue
            rows.append([f"devices {d0}->{d1}", f"at {q} QPs", fmt_ratio(d1 / d0),
                         fmt_ratio(r1 / r0), fmt_ratio(f1 / f0),
                         fmt_us((r1 - r0) / (d1 - d0)), fmt_us((f1 - f0) / (d1 - d0))])
    for d in devs:
        pts = [(q, cells[(d, q)].get("rtop_mean_m"), cells[(d, q)].get("floor_m"))
               for q in qpss if (d, q) in cells]
        for (q0, r0, f0), (q1, r1, f1) in zip(pts, pts[1:]):
            if None in (r0, r1, f0, f1):
                continue
            rows.append([f"QPs {q0}->{q1}", f"at {d} devices", "-" if q0 == 0 else fmt_ratio(q1 / q0),
                         fmt_ratio(r1 / r0), fmt_ratio(f1 / f0),
                         f"{(r1 - r0) / (q1 - q0):.1f} µs", f"{(f1 - f0) / (q1 - q0):.1f} µs"])
    if not rows:
        out.append("   not measured: fewer than two scales")
        return
    out.append(table(rows, ["step", "", "scale x", "rdmatop cost x", "floor cost x",
                            "rdmatop per unit", "floor per unit"]))
    out.append("   per unit = added CPU per added device (or QP), means of the rows above.")


# ---- 3, 5, 6: GUI, start-up, ssh -X --------------------------------------

def gui_records(lines):
    recs = []
    for line in lines:
        d = kv(line)
        if "what" in d:
            recs.append(d)
    return recs


def pick(recs, what, prog):
    return [r for r in recs if r.get("what") == what and r.get("prog") == prog]


def ms_per_s(r):
    return num(r, "cpu_ms_per_s")


def section_gui(results, out):
    out.append("3. GUI cost (in the emulated guest; the native table follows the summary)")
    reason = not_measured(results, "gui")
    lines = read_lines(os.path.join(results, "gui", "gui.txt"))
    recs = gui_records(lines) if lines and not reason else []
    rows = []
    if recs:
        r = (pick(recs, "gui-cpu", "rdmatop") or [{}])[0]
        na = (pick(recs, "gui-cpu", "rdmatop-noanim") or [{}])[0]
        g100 = (pick(recs, "gui-cpu", "gsm-100ms") or [{}])[0]
        g1 = (pick(recs, "gui-cpu", "gsm-1s") or [{}])[0]
        a, b, c = ms_per_s(r), ms_per_s(g100), ms_per_s(g1)
        rows.append(["rdmatop, 16 ports, 1 s interval, cairo", f"{a:.1f}" if a is not None else "-",
                     r.get("threads_ms_per_s", "-")])
        if na:
            n = ms_per_s(na)
            rows.append(["rdmatop, the same with GTK animations off", f"{n:.1f}" if n is not None else "-",
                         na.get("threads_ms_per_s", "-")])
        rows.append(["GNOME System Monitor -r (graphs every 100 ms, its default)",
                     f"{b:.1f}" if b is not None else "-", g100.get("threads_ms_per_s", "-")])
        rows.append(["GNOME System Monitor -r (graphs every 1 s)",
                     f"{c:.1f}" if c is not None else "-", g1.get("threads_ms_per_s", "-")])
        out.append("   CPU per second on Xvfb in the guest (16 rxe devices with traffic; utime+stime of the")
        out.append(f"   process over {r.get('window_s', '?')} s after it settled):")
        out.append(table(rows, ["program", "CPU ms/s", "busiest threads (ms/s)"]))
        if a is not None and c:
            out.append(f"   rdmatop / System Monitor at 1 s: {fmt_ratio(a / c)};"
                       f" / at its default: {fmt_ratio(a / b) if b else '-'}")
    else:
        out.append(f"   app CPU: not measured: {reason or 'no gui.txt'}")
    section_draw(results, out)


def section_draw(results, out):
    reason = not_measured(results, "draw")
    lines = read_lines(os.path.join(results, "draw", "gui-draw.txt"))
    if reason or not lines:
        out.append(f"   graph draw time: not measured: {reason or 'no output'}")
        return
    text = "\n".join(lines)
    m60 = re.search(r"draw 60 min window: ([0-9.]+) ms", text)
    m1 = re.search(r"draw\s+1 min window: ([0-9.]+) ms", text)
    mw = re.search(r"window, 16 ports.*?: ([0-9.]+) ms CPU per update.*?= ([0-9.]+) %", text)
    mr = re.search(r"renderer (\S+)", text)
    if m60 and m1:
        a, b = float(m60.group(1)), float(m1.group(1))
        met = "yes" if a / b <= TARGET_DRAW else "NO"
        out.append(f"   Graph draw (gui-draw, native on this machine, Xvfb, {mr.group(1) if mr else '?'}),"
                   f" 800x220, 10 samples/s:")
        out.append(f"     60 min of history {a:.2f} ms/frame vs 1 min {b:.2f} ms/frame:"
                   f" ratio {a / b:.2f} (target <= {TARGET_DRAW}: {met})")
    else:
        out.append("   graph draw time: gui-draw printed no draw times:")
        out += ["     " + l for l in lines[:6]]
    if mw:
        out.append(f"     whole window, 16 ports: {mw.group(1)} ms CPU per update at 1 s"
                   f" = {mw.group(2)} % of a core (native, models + frame, no collector)")


def section_recording(results, out):
    out.append("4. Recording (rec-memory, native): 16 ports at 10 samples/s, one simulated hour")
    reason = not_measured(results, "recording")
    lines = read_lines(os.path.join(results, "recording", "rec-memory.txt"))
    if reason or not lines:
        out.append(f"   not measured: {reason or 'no output'}")
        return
    rows = []
    fmt = None
    for line in lines:
        m = re.match(r"(\S+)\s+snapshots (\d+) \((.*?)([0-9.]+) simulated hours\)", line)
        if m:
            # "(16 ports, all busy, 1.0 simulated hours)": what was recorded
            what = ", ".join(p.strip() for p in m.group(3).split(",") if p.strip())
            fmt = [m.group(1), what or "-", m.group(2), m.group(4)]
            continue
        m = re.search(r"VmRSS start (\d+) kB, after recording (\d+) kB \(growth ([+-][0-9.]+) MiB\)", line)
        if m and fmt:
            fmt += [f"{int(m.group(1)) / 1024:.1f}", f"{int(m.group(2)) / 1024:.1f}", m.group(3)]
            continue
        m = re.search(r"file ([0-9.]+) MB = ([0-9.]+) MB per port-hour", line)
        if m and fmt and len(fmt) == 7:
            growth = float(fmt[6])
            fmt += [m.group(1), m.group(2), "yes" if growth < TARGET_REC_MIB else "NO"]
            rows.append(fmt)
            fmt = None
    if rows:
        out.append(table(rows, ["format", "ports", "snapshots", "hours", "RSS start MiB", "RSS end MiB",
                                "growth MiB", "file MB", "MB per port-hour",
                                f"growth < {TARGET_REC_MIB:.0f} MiB"]))
    else:
        out += ["   " + l for l in lines[:10]]
    peak = [l for l in lines if l.startswith("peak") or l.startswith("load")]
    out += ["   " + " ".join(l.split()) for l in peak]


def section_startup(results, out):
    out.append("5. Start-up: launch to the first frame (wall ms, guest, Xvfb, cairo; median of runs)")
    reason = not_measured(results, "gui")
    lines = read_lines(os.path.join(results, "gui", "gui.txt"))
    if reason or not lines:
        out.append(f"   not measured: {reason or 'no gui.txt'}")
        return
    recs = gui_records(lines)

    def summary(prog, key):
        vals = [num(r, key) for r in pick(recs, "startup", prog)]
        got = [v for v in vals if v is not None]
        return (statistics.median(got) if got else None), len(got), len(vals)

    rows = []
    r_ext, n_ok, n = summary("rdmatop", "line_ms")
    r_self, _, _ = summary("rdmatop", "reported_ms")
    g_ext, _, _ = summary("gtk-first-frame", "line_ms")
    g_self, _, _ = summary("gtk-first-frame", "reported_ms")
    v_ext, _, _ = summary("rdmatop-version", "line_ms")
    missing = n and not n_ok
    if missing:
        rows.append(["rdmatop, first frame with live data", "not measured", "-", "-"])
    else:
        rows.append(["rdmatop, first frame with live data", f"{r_ext:.0f}" if r_ext else "-",
                     f"{r_self:.0f}" if r_self else "-", fmt_ratio(r_ext / g_ext if r_ext and g_ext else None)])
    rows.append(["empty GTK 4 window, first frame (gtk-first-frame)", f"{g_ext:.0f}" if g_ext else "-",
                 f"{g_self:.0f}" if g_self else "-", "1.00x" if g_ext else "-"])
    rows.append(["rdmatop --version (process start and exit)", f"{v_ext:.0f}" if v_ext else "-", "-",
                 fmt_ratio(v_ext / g_ext if v_ext and g_ext else None)])
    out.append(table(rows, ["program", "launch to line", "self-reported", "vs empty window"]))
    if missing:
        out.append("   rdmatop: not measured: it printed no 'rdmatop: startup-ms=N' line on stderr with")
        out.append("   RDMATOP_REPORT_STARTUP=1 (the app does not implement the report yet)")


def section_ssh(results, out):
    out.append("6. Over ssh -X (sshd on 127.0.0.1 in the guest, Xvfb display, bytes counted by a relay")
    out.append("   as the ProxyCommand: every byte of the SSH connection, both directions)")
    reason = not_measured(results, "gui")
    lines = read_lines(os.path.join(results, "gui", "gui.txt"))
    if reason or not lines:
        out.append(f"   not measured: {reason or 'no gui.txt'}")
        return
    recs = gui_records(lines)
    rows = []
    labels = [("rdmatop", "rdmatop, 16 ports, 1 s (renderer it picks)"),
              ("rdmatop-gl", "rdmatop with GSK_RENDERER=gl forced"),
              ("gsm-100ms", "GNOME System Monitor -r (its default)"),
              ("gsm-1s", "GNOME System Monitor -r (graphs every 1 s)")]
    base = {}
    for prog, label in labels:
        r = pick(recs, "ssh", prog)
        if not r:
            continue
        r = r[0]
        bps = num(r, "bytes_per_s")
        base[prog] = bps
        rows.append([label, f"{bps / 1024:.1f}" if bps is not None else "-",
                     f"{num(r, 'down_bytes_per_s') / 1024:.1f}" if num(r, "down_bytes_per_s") is not None else "-",
                     r.get("cpu_ms_per_s", "-"), r.get("line_ms", "-")])
    if not rows:
        out.append("   not measured: no ssh figures")
        return
    out.append(table(rows, ["program", "KiB/s total", "KiB/s to client", "remote CPU ms/s",
                            "launch to first frame ms (incl. ssh login)"]))
    env = [r for r in recs if r.get("what") == "ssh-env"]
    if env:
        out.append(f"   remote environment: GSK_RENDERER={env[0].get('renderer-env', '?')},"
                   f" SSH_CONNECTION={env[0].get('SSH_CONNECTION', '?')}: the renderer is rdmatop's"
                   " own choice (cairo when SSH_CONNECTION is set)")
    if base.get("rdmatop") and base.get("gsm-1s"):
        out.append(f"   rdmatop / System Monitor at 1 s: {fmt_ratio(base['rdmatop'] / base['gsm-1s'])};"
                   f" / at its default: {fmt_ratio(base['rdmatop'] / base['gsm-100ms']) if base.get('gsm-100ms') else '-'}")


def section_remote(results, out):
    out.append("7. A remote host in the window (rdmatop --host): the snapshot stream over a real")
    out.append("   ssh connection (sshd on 127.0.0.1), every byte counted by the same relay as 6")
    reason = not_measured(results, "remote")
    lines = read_lines(os.path.join(results, "remote", "remote.txt")) or []
    fields = {}
    for line in lines:
        if not line.startswith("#"):
            fields.update(kv(line))
    if reason or not fields:
        out.append(f"   not measured: {reason or 'no remote.txt'}")
        return
    rows = []
    for tag, label in [("synth16", "rdmatop --host, 16 busy ports, 1 s (stream-synth-serve)"),
                       ("serve", "rdmatop --host, this machine's rdmatop-cli serve --stdio")]:
        down = num(fields, f"{tag}_wire_down_bytes_per_s")
        up = num(fields, f"{tag}_wire_up_bytes_per_s")
        stream = num(fields, f"{tag}_stream_bytes_per_s")
        if down is None:
            continue
        rows.append([label, f"{(down + (up or 0)) / 1024:.2f}", f"{down / 1024:.2f}",
                     f"{stream / 1024:.2f}" if stream is not None else "-"])
    if not rows:
        out.append("   not measured: no figures")
        return
    out.append(table(rows, ["program", "KiB/s total", "KiB/s to client", "stream KiB/s"]))
    gui = gui_records(read_lines(os.path.join(results, "gui", "gui.txt")) or [])
    x = pick(gui, "ssh", "rdmatop")
    gsm = pick(gui, "ssh", "gsm-1s")
    if x and gsm:
        out.append(f"   beside 6: ssh -X of the window {num(x[0], 'bytes_per_s') / 1024:.1f} KiB/s,"
                   f" System Monitor {num(gsm[0], 'bytes_per_s') / 1024:.1f} KiB/s")


def section_remote_cpu(results, out):
    """The remote's CPU: serve --stdio beside watch, run together in the guest."""
    reason = not_measured(results, "remote-cpu")
    fields = {}
    for line in read_lines(os.path.join(results, "remote-cpu", "stream.txt")) or []:
        if not line.startswith("round="):
            fields.update(kv(line))
    if reason or not fields:
        out.append(f"   remote CPU: not measured: {reason or 'no remote-cpu/stream.txt'}")
        return
    rows = []
    for tag, label in [("idle", "16 Soft-RoCE ports, idle"), ("busy", "16 ports, traffic on 4")]:
        serve = num(fields, f"serve_{tag}_cpu_ms_per_s")
        watch = num(fields, f"watch_{tag}_cpu_ms_per_s")
        if serve is None or watch is None:
            continue
        rows.append([label, f"{serve:.1f}", f"{watch:.1f}", fields.get(f"serve_watch_{tag}_ratio", "-")])
    if rows:
        out.append("   the remote's CPU at 1 s, serve --stdio and watch at the same time in the guest:")
        out.append(table(rows, ["condition", "serve ms/s", "watch ms/s", "serve / watch"]))


def main():
    results = sys.argv[1]
    elapsed = None
    if "--elapsed" in sys.argv:
        elapsed = sys.argv[sys.argv.index("--elapsed") + 1]
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    out = [f"rdmatop benchmarks, {now}, host {platform.node()} ({os.cpu_count()} CPUs)"
           + (f", run took {elapsed} s" if elapsed else ""),
           "Guest figures come from QEMU software emulation (10-50x slower than native):",
           "read them as ratios to the baselines measured beside them in the same run.", ""]
    section_sampling(results, out)
    out.append("")
    section_gui(results, out)
    out.append("")
    section_recording(results, out)
    out.append("")
    section_startup(results, out)
    out.append("")
    section_ssh(results, out)
    out.append("")
    section_remote(results, out)
    section_remote_cpu(results, out)
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
