#!/usr/bin/python3
"""Assertions for the Soft-RoCE scenarios (tests/vm/scenario-*.sh).

Each check compares rdmatop-cli's JSON with what the kernel says through
iproute2's `rdma -j`, or with what the scenario did to the guest.  Every
assertion prints "ok - ..." or "not ok - ..." and appends to the tally file
named by VM_TALLY; the exit status is 1 when an assertion failed.

Usage: vmcheck.py CHECK [options]   (see the sub-commands below)
"""

import argparse
import json
import os
import re
import struct
import sys
import zlib

FAILED = 0
LABEL = ""


def ok(cond, desc, detail=None):
    """Records one assertion; returns cond so callers can stop early."""
    global FAILED
    text = f"{LABEL}{desc}"
    if cond:
        print(f"ok - {text}")
    else:
        FAILED += 1
        print(f"not ok - {text}" + (f": {detail}" if detail is not None else ""))
    tally = os.environ.get("VM_TALLY")
    if tally:
        with open(tally, "a") as f:
            f.write("ok\n" if cond else "fail\n")
    return bool(cond)


def load_json(path):
    with open(path) as f:
        return json.load(f)


def load_watch(path):
    """One JSON object per line; a line that does not parse fails."""
    passes = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                passes.append(json.loads(line))
            except ValueError as e:
                ok(False, f"{os.path.basename(path)} line {n} is JSON", str(e))
    return passes


def natural_key(name):
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", name)]


def devices_by_name(snap):
    return {d["name"]: d for d in snap.get("devices", [])}


def port_of(snap, dev, port=1):
    d = devices_by_name(snap).get(dev)
    if d is None:
        return None
    for p in d.get("ports", []):
        if p.get("port") == port:
            return p
    return None


def metric(port, name):
    return (port or {}).get("metrics", {}).get(name) or {}


def guid_int(text):
    """rdma prints GUIDs as 4 groups of 4 hex digits; accept any separators."""
    digits = re.sub(r"[^0-9a-fA-F]", "", text or "")
    return int(digits, 16) if digits else None


def rdma_counters(entry):
    return {k: v for k, v in entry.items() if k not in ("ifname", "port", "ifindex")}


def check_status(snap, what):
    return ok(snap.get("status") == "ok" and "devices" in snap, f"{what}: status is ok",
              f"{snap.get('status')}: {snap.get('status_message')}")


def check_watch_stream(passes, count, what):
    """The sampler produced COUNT passes with increasing sequence numbers."""
    if count is None:
        ok(len(passes) >= 3, f"{what}: at least 3 passes", f"got {len(passes)}")
    else:
        # A baseline and a rate at least: fewer asked for checks nothing.
        ok(count >= 2, f"{what}: the scenario asked for at least 2 passes", f"asked for {count}")
        ok(len(passes) == count, f"{what}: {count} passes", f"got {len(passes)}")
    seqs = [p.get("sequence") for p in passes]
    ok(all(isinstance(s, int) for s in seqs) and seqs == sorted(set(seqs)),
       f"{what}: sequence numbers increase", seqs)
    if passes:
        first = passes[0]
        rated = [(d["name"], p["port"], k) for d in first.get("devices", [])
                 for p in d.get("ports", [])
                 for k, v in p.get("rates", {}).items() if v is not None]
        ok(not rated, f"{what}: the first pass is a baseline without rates", rated[:5])
    for p in passes:
        if p.get("status") != "ok":
            ok(False, f"{what}: pass {p.get('sequence')} status is ok",
               f"{p.get('status')}: {p.get('status_message')}")
            break


def negative_rates(snap):
    bad = []
    for d in snap.get("devices", []):
        for p in d.get("ports", []):
            for table in ("rates", "netdev_rates", "sysfs_rates", "sysfs_hw_rates", "gpu_rates"):
                for k, v in (p.get(table) or {}).items():
                    if v is not None and v < 0:
                        bad.append((d["name"], p["port"], k, v))
            for k, m in (p.get("metrics") or {}).items():
                if m.get("rate") is not None and m["rate"] < 0:
                    bad.append((d["name"], p["port"], "metric " + k, m["rate"]))
    return bad


def events(passes, kind=None, device=None):
    """(sequence, event) pairs in stream order."""
    out = []
    for p in passes:
        for e in p.get("events", []):
            if (kind is None or e.get("kind") == kind) and \
               (device is None or e.get("device") == device):
                out.append((p.get("sequence"), e))
    return out


# --- scenario 1: discovery ----------------------------------------------

def cmd_discovery(a):
    if a.filter:
        fsnap = load_json(a.snapshot)
        fnames = [d["name"] for d in fsnap.get("devices", [])]
        want = sorted(a.filter.split(","), key=natural_key)
        ok(fnames == want, f"--device {a.filter} lists exactly those devices", fnames)
        return
    snap = load_json(a.snapshot)
    rdev = load_json(a.rdma + ".dev.json")
    rlink = load_json(a.rdma + ".link.json")
    rstat = load_json(a.rdma + ".stat.json")
    rstat_after = load_json(a.rdma_after + ".stat.json") if a.rdma_after else rstat
    if not check_status(snap, "snapshot"):
        return

    names = [d["name"] for d in snap.get("devices", [])]
    want = sorted((d["ifname"] for d in rdev), key=natural_key)
    ok(len(names) == a.devices, f"{a.devices} devices listed", names)
    ok(names == want, "devices are those of `rdma dev`, in natural order", f"{names} vs {want}")
    if "rxe2" in names and "rxe10" in names:
        ok(names.index("rxe2") < names.index("rxe10"), "rxe2 comes before rxe10")

    ok(rstat == rstat_after, "rdma statistic was stable while the snapshot was taken")
    devs = devices_by_name(snap)
    mismatches = []
    for rd in rdev:
        d = devs.get(rd["ifname"])
        if d is None:
            continue
        checks = {
            "index": (d.get("index"), rd["ifindex"]),
            "node_guid": (guid_int(d.get("node_guid")), guid_int(rd.get("node_guid"))),
            "node_type": ((d.get("node_type") or "").lower(), rd.get("node_type", "").lower()),
            "provider": (d.get("provider"), "rxe"),
            "port_count": (d.get("port_count"),
                           sum(1 for l in rlink if l["ifname"] == rd["ifname"])),
        }
        mismatches += [(rd["ifname"], k, got, exp) for k, (got, exp) in checks.items()
                       if got != exp]
    ok(not mismatches, "device attributes match `rdma dev`", mismatches[:6])

    mismatches = []
    for rl in rlink:
        p = port_of(snap, rl["ifname"], rl["port"])
        if p is None:
            mismatches.append((rl["ifname"], rl["port"], "missing"))
            continue
        for k in ("state", "physical_state", "netdev", "netdev_index"):
            if p.get(k) != rl.get(k):
                mismatches.append((rl["ifname"], rl["port"], k, p.get(k), rl.get(k)))
    ok(not mismatches, "port state, physical state and netdev match `rdma link`",
       mismatches[:6])

    mismatches = []
    nonzero = 0
    for rs in rstat:
        p = port_of(snap, rs["ifname"], rs["port"])
        got = (p or {}).get("counters")
        exp = rdma_counters(rs)
        nonzero += sum(1 for v in exp.values() if v)
        if got != exp:
            diff = {k: (got.get(k) if got else None, v) for k, v in exp.items()
                    if not got or got.get(k) != v}
            extra = sorted(set(got or {}) - set(exp))
            mismatches.append((rs["ifname"], rs["port"], diff, extra))
    ok(not mismatches, "hw counters equal `rdma statistic show`, name for name",
       mismatches[:3])
    ok(nonzero > 0, "the compared counters include non-zero values (traffic ran)")



# --- scenario 2: traffic --------------------------------------------------

def pass_rates(passes, dev, name):
    return [metric(port_of(p, dev), name).get("rate") for p in passes[1:]]


def cmd_traffic(a):
    passes = load_watch(a.watch)
    check_watch_stream(passes, a.count, "watch")
    if not ok(len(passes) >= 2, "a baseline and at least one rated pass to check",
              f"got {len(passes)}"):
        return
    busy_tx, busy_rx = a.client, a.server
    for dev, name in ((busy_tx, "tx_packets"), (busy_rx, "rx_packets")):
        rates = pass_rates(passes, dev, name)
        ok(rates and all(r is not None and r > 0 for r in rates),
           f"{name} rate > 0 on busy {dev} in every pass", rates)
    for dev, name in ((busy_tx, "rx_packets"), (busy_rx, "tx_packets")):
        rates = pass_rates(passes, dev, name)
        ok(any(r is not None and r > 0 for r in rates),
           f"{name} rate > 0 on busy {dev} (acknowledgements)", rates)
    raw = [ (port_of(p, busy_tx) or {}).get("rates", {}).get("sent_pkts") for p in passes[1:]]
    ok(all(r is not None and r > 0 for r in raw), f"raw sent_pkts rate > 0 on {busy_tx}", raw)
    rates = pass_rates(passes, busy_tx, "tx_bytes")
    ok(all(r is not None and r > 0 for r in rates),
       f"tx_bytes rate > 0 on {busy_tx} (from its netdev: rxe has no byte counter)", rates)
    for dev in a.idle.split(","):
        for name in ("tx_packets", "rx_packets"):
            rates = pass_rates(passes, dev, name)
            ok(rates and all(r == 0 for r in rates), f"{name} rate is 0 on idle {dev}", rates)
    bad = [negative_rates(p) for p in passes]
    ok(not any(bad), "no negative rate", [b for b in bad if b][:3])
    check_processes(passes[-1], a)


def cmd_processes(a):
    check_processes(load_json(a.snapshot), a)


def check_processes(snap, a):
    qps = load_json(a.rdma + ".qp.json")
    mrs = load_json(a.rdma + ".mr.json")
    procs = {p["pid"]: p for p in snap.get("processes", [])}
    ok(snap.get("pids_hidden") in (False, None), "pids are not hidden",
       snap.get("pids_hidden"))
    owners = {}
    for q in qps:
        if "pid" in q:
            owners.setdefault(q["pid"], {"comm": q.get("comm"), "qps": 0, "mrs": 0,
                                        "devices": set()})
            owners[q["pid"]]["qps"] += 1
            owners[q["pid"]]["devices"].add(q["ifname"])
    for m in mrs:
        if m.get("pid") in owners:
            owners[m["pid"]]["mrs"] += 1
    expected = [int(p) for p in a.pids.split(",")] if a.pids else []
    ok(expected and all(p in owners for p in expected),
       f"`rdma res show qp` lists the test's processes {expected}", sorted(owners))
    for pid, o in sorted(owners.items()):
        p = procs.get(pid)
        if not ok(p is not None, f"process {pid} ({o['comm']}) is listed",
                  sorted(procs)):
            continue
        ok(p.get("comm") == o["comm"], f"process {pid} comm is {o['comm']}", p.get("comm"))
        ok(o["comm"] in (p.get("cmdline") or ""), f"process {pid} cmdline names {o['comm']}",
           p.get("cmdline"))
        ok(p.get("qps") == o["qps"], f"process {pid} has {o['qps']} QPs", p.get("qps"))
        ok(p.get("mrs") == o["mrs"], f"process {pid} has {o['mrs']} MRs", p.get("mrs"))
        devs = {d.get("device") for d in p.get("devices", [])}
        ok(o["devices"] <= devs, f"process {pid} uses {sorted(o['devices'])}", sorted(devs))
    if a.holder_pid:
        p = procs.get(a.holder_pid) or {}
        ok(p.get("qps") == a.holder_qps, f"qp-holder {a.holder_pid} has {a.holder_qps} QPs",
           p.get("qps"))
        ok(p.get("mrs") == 1 and p.get("mr_bytes") == 65536,
           "qp-holder has 1 MR of 65536 bytes", (p.get("mrs"), p.get("mr_bytes")))
        ok(p.get("contexts") == 1, "qp-holder has 1 verbs context", p.get("contexts"))


def addr_text(entry, key):
    """`rdma -j res show cm_id` writes "a.b.c.d:port" (IPv6 without
    brackets); older iproute2 a separate "*-port"."""
    addr = entry.get(f"{key}-addr")
    if addr is None:
        return None
    port = entry.get(f"{key}-port")
    if port is not None and not addr.endswith(f":{port}"):
        addr = f"{addr}:{port}"
    return addr


def cmd_peers(a):
    """Each QP of the test's processes that an rdma_cm ID names has that
    ID's destination as its peer address; other QPs have none.  With
    --rdma-before, only the IDs listed both before and after the snapshot
    are held to it (a connection made or closed in between is neither)."""
    snap = load_json(a.snapshot)
    pids = [int(p) for p in a.pids.split(",")]

    def peers_of(cm_ids):
        out = {}
        for c in cm_ids:
            if c.get("pid") in pids and "lqpn" in c and addr_text(c, "dst"):
                out[(c.get("ifname"), c["lqpn"])] = addr_text(c, "dst")
        return out

    cm_ids = load_json(a.rdma + ".cm_id.json")
    want = peers_of(cm_ids)
    unsure = set()
    if a.rdma_before:
        before = peers_of(load_json(a.rdma_before + ".cm_id.json"))
        unsure = (set(want) ^ set(before)) | {k for k in want
                                                if k in before and want[k] != before[k]}
        want = {k: v for k, v in want.items() if k not in unsure}
    ok(len(want) >= len(pids), f"`rdma res show cm_id` names a QP and a peer for each of {pids}",
       cm_ids)
    procs = {p["pid"]: p for p in snap.get("processes", [])}
    seen = 0
    for pid in pids:
        p = procs.get(pid)
        if not ok(p is not None, f"process {pid} is listed", sorted(procs)):
            continue
        for q in p.get("qp_list", []):
            key = (q.get("device"), q.get("qpn"))
            got = (q.get("peer_addr") or "").replace("[", "").replace("]", "")
            if key in unsure:
                continue
            if key in want:
                seen += 1
                ok(got == want[key], f"QP {key[0]}/{key[1]} of {pid} has peer address {want[key]}",
                   q.get("peer_addr"))
            else:
                ok(q.get("peer_addr") is None, f"QP {key[0]}/{key[1]} of {pid} has no peer address",
                   q.get("peer_addr"))
    ok(seen == len(want), f"every rdma_cm QP of {pids} is in the process list ({len(want)})",
       seen)


# --- scenario 3: loss ------------------------------------------------------

RXE_RETRANSMIT_COUNTERS = {"completer_retry_err", "retry_exceeded_err", "rcvd_seq_err",
                           "out_of_seq_request", "duplicate_request"}


def cmd_loss(a):
    passes = load_watch(a.watch)
    check_watch_stream(passes, a.count, "watch")
    if not ok(len(passes) >= 2, "a baseline and at least one rated pass to check",
              f"got {len(passes)}"):
        return
    dev = a.device
    values = [metric(port_of(p, dev), "retransmits").get("value") for p in passes]
    rates = [metric(port_of(p, dev), "retransmits").get("rate") for p in passes[1:]]
    ok(all(v is not None for v in values), f"{dev} reports a retransmits metric", values)
    if all(v is not None for v in values):
        ok(values[-1] > values[0], f"retransmits rose on {dev} under netem loss", values)
    ok(any(r is not None and r > 0 for r in rates), f"retransmits rate > 0 on {dev}", rates)
    src = metric(port_of(passes[-1], dev), "retransmits").get("source")
    ok(src is not None and "completer_retry_err" in src,
       "the retransmits metric comes from completer_retry_err", src)
    rising = [e for _, e in events(passes, "counter-rising", dev)]
    names = sorted({e.get("counter") for e in rising})
    ok(any(e.get("counter") in RXE_RETRANSMIT_COUNTERS for e in rising),
       f"a counter-rising health event names a retransmit counter on {dev}", names)
    ok(all(e.get("severity") in ("warning", "error") for e in rising
           if e.get("counter") in RXE_RETRANSMIT_COUNTERS),
       "retransmit health events are warnings or errors",
       [(e.get("counter"), e.get("severity")) for e in rising])
    ok(all(e.get("message") for e in rising), "health events carry a message")
    bad = [negative_rates(p) for p in passes]
    ok(not any(bad), "no negative rate", [b for b in bad if b][:3])


# --- scenario 4: link down / up -------------------------------------------

def cmd_link(a):
    passes = load_watch(a.watch)
    check_watch_stream(passes, a.count, "watch")
    down = {l["ifname"]: l for l in load_json(a.rdma_down + ".link.json")}
    up = {l["ifname"]: l for l in load_json(a.rdma_up + ".link.json")}
    dev = a.device
    if not ok(dev in down and dev in up, f"`rdma link` lists {dev} when down and when up",
              (sorted(down), sorted(up))):
        return
    # Going down and coming back is one Error episode: raised, then
    # completed with the same id; the state and physical state changes are
    # folded into it, not events of their own.
    evs = [(s, e) for s, e in events(passes, "port-down", dev) if e.get("port") == 1]
    got = [(e.get("old"), e.get("new"), e.get("ongoing")) for _, e in evs]
    exp = [(up[dev]["state"], down[dev]["state"], True), (up[dev]["state"], up[dev]["state"], False)]
    ok(got == exp, f"port-down events on {dev} port 1 are {exp}, in order", got)
    ok(len({e.get("episode") for _, e in evs}) == 1, "one episode id for both", [e.get("episode") for _, e in evs])
    ok(all(e.get("severity") == "error" for _, e in evs), "a port going down is an Error",
       [e.get("severity") for _, e in evs])
    times = [e.get("time_us") for _, e in evs]
    ok(times == sorted(times), "port-down event times increase", times)
    folded = [e.get("kind") for _, e in events(passes, device=dev)
              if e.get("kind") in ("port-state", "port-phys-state")]
    ok(not folded, f"no separate state events on {dev}", folded)
    healths = [(port_of(p, dev) or {}).get("health") for p in passes
               if (port_of(p, dev) or {}).get("state") == down[dev]["state"]]
    ok(healths and all(h == "error" for h in healths), f"{dev} port 1 is unhealthy while down",
       healths)
    # Between the two events the snapshots show the port down.
    states = [(port_of(p, dev) or {}).get("state") for p in passes]
    ok(down[dev]["state"] in states and states[0] == up[dev]["state"] and
       states[-1] == up[dev]["state"],
       f"{dev} port state goes {up[dev]['state']} -> {down[dev]['state']} -> "
       f"{up[dev]['state']}", states)
    collapsed = [s for i, s in enumerate(states) if i == 0 or states[i - 1] != s]
    ok(len(collapsed) == 3, "the port state changes exactly twice", collapsed)
    others = [(s, e.get("device"), e.get("kind")) for s, e in events(passes)
              if e.get("device") != dev and e.get("kind", "").startswith("port")]
    ok(not others, "no port event on the other devices", others)
    removed = events(passes, "device-removed")
    ok(not removed, "a link going down does not remove the device", removed)


# --- health at a glance ------------------------------------------------------

INTERNAL_WORDS = re.compile(r"\berror\.(link|transport|operation)\b|\bretransmit\b,")


def cmd_health(a):
    passes = load_watch(a.watch)
    probe = load_watch(a.probe)
    check_watch_stream(passes, None, "watch")
    ok(1 <= a.probe_at <= len(probe), f"the probe wrote {a.probe_at} passes or more", len(probe))

    # The link down: one Error episode, its consequences folded in.
    down_evs = [e for _, e in events(passes, device=a.down) if e.get("port") == 1]
    downs = [e for e in down_evs if e.get("kind") == "port-down"]
    starts = [e for e in downs if e.get("ongoing")]
    ends = [e for e in downs if not e.get("ongoing")]
    ok(len(starts) == 1, f"one port-down event when {a.down} went down", [e.get("message") for e in downs])
    ok(all(e.get("severity") == "error" for e in downs), "the port going down is an Error",
       [e.get("severity") for e in downs])
    ok(len(ends) == 1 and starts and ends[0].get("episode") == starts[0].get("episode"),
       "it is completed, with the same episode id, when the link is up again",
       [(e.get("episode"), e.get("ongoing")) for e in downs])
    folded = [e.get("kind") for e in down_evs
              if e.get("kind") in ("port-state", "port-phys-state", "link-rate", "counter-rising")]
    ok(not folded, f"no other state, rate or counter event for {a.down} (folded in)", folded)
    down_ports = [port_of(p, a.down) for p in passes[:a.watch_at]]
    after = [p for p in down_ports if p and p.get("state") == "DOWN"]
    ok(after and all(p.get("health") == "error" and p.get("link_up") is False for p in after),
       f"while down, {a.down}/1 is unhealthy and its link is not up",
       [(p.get("health"), p.get("link_up")) for p in after][:3])

    # The loss: one episode per rise, not a pair per retransmit.
    loss = [e for _, e in events(passes, device=a.sender)
            if e.get("kind") in ("counter-rising", "counter-settled")]
    ids = [e.get("episode") for e in loss]
    rising = [e for e in loss if e.get("kind") == "counter-rising"]
    rise_passes = sum(1 for p in passes[1:]
                      if (metric(port_of(p, a.sender), "retransmits").get("rate") or 0) > 0)
    ok(rising and rise_passes > 0, f"the loss on {a.sender} raised an episode", rise_passes)
    ok(all(ids.count(i) <= 2 for i in ids) and
       all(e.get("ongoing") for e in rising),
       "each episode is raised once and completed at most once", ids)
    ok(len(rising) * 2 <= max(rise_passes, 2),
       f"fewer episodes than half the passes with retransmits ({len(rising)} for {rise_passes})")
    ok(all(e.get("counter") in RXE_RETRANSMIT_COUNTERS for e in rising),
       "the episodes name a retransmit counter", [e.get("counter") for e in rising])
    recv = [(port_of(p, a.receiver) or {}).get("health") for p in passes]
    ok(all(h == "ok" for h in recv),
       f"the receiving end {a.receiver} is not flagged for the sender's loss", sorted(set(recv)))

    # The app's ranked recent list after 30 s of loss: the Error first.
    line = probe[a.probe_at - 1] if 1 <= a.probe_at <= len(probe) else {}
    recent = line.get("recent") or [{}]
    ok(recent[0].get("kind") == "port-down" and recent[0].get("location") == f"{a.down}/1" and
       recent[0].get("severity") == "error",
       "the port-down Error is first in the ranked recent list after the loss",
       [(r.get("kind"), r.get("location"), r.get("severity")) for r in recent[:4]])
    kinds = [r.get("kind") for r in recent]
    ok(len(recent) > 1, "the recent list holds the loss episodes too", kinds)
    ok(f"{a.down}/1" in (line.get("problems") or ""), "the problems summary names the port",
       line.get("problems"))
    pp = {p.get("key"): p for p in line.get("ports") or []}.get(f"{a.down}/1") or {}
    ok(pp.get("health") == "error" and pp.get("link") == "Down",
       f"the model shows {a.down}/1 unhealthy, its link Down", pp)
    n_events = line.get("n_events")
    ok(isinstance(n_events, int) and 1 <= n_events < 40,
       "the event log holds a handful of events, not a flood", n_events)

    # The QP moved to the error state.
    qp = [e for _, e in events(passes, "qp-error")]
    ok(len(qp) == 1, "one qp-error event", [e.get("message") for e in qp])
    if qp:
        e = qp[0]
        ok(e.get("pid") == a.holder_pid and e.get("process") == "qp-holder" and
           e.get("device") == a.holder_device and e.get("severity") == "error",
           "it names the process (qp-holder and its pid) and the device",
           (e.get("pid"), e.get("process"), e.get("device"), e.get("severity")))
        ok("qp-holder" in e.get("message", "") and str(a.holder_pid) in e.get("message", ""),
           "its message names the process", e.get("message"))
    holder = {p.get("pid"): p for p in passes[-1].get("processes", [])}.get(a.holder_pid) or {}
    qps = holder.get("qp_list") or []
    ok(len(qps) == 2 and all(q.get("state") == "ERR" and q.get("type") == "RC" for q in qps)
       and holder.get("qps_in_error") == 2,
       "the holder's QPs are listed, RC, in the error state", qps)

    texts = [e.get("message", "") for _, e in events(passes)]
    ok(not [t for t in texts if INTERNAL_WORDS.search(t)],
       "event messages carry no internal identifiers",
       [t for t in texts if INTERNAL_WORDS.search(t)][:3])
    bad = [negative_rates(p) for p in passes]
    ok(not any(bad), "no negative rate", [b for b in bad if b][:3])


# --- jobs and rails -----------------------------------------------------------

# The rail rule's idle floor: peers whose median is below it are not judged.
RAIL_FLOOR_BYTES_S = 100e6 / 8


def rail_rate(snap, dev):
    """Transmit plus receive bytes a second of DEV/1, or None."""
    port = port_of(snap, dev)
    tx = metric(port, "tx_bytes").get("rate")
    rx = metric(port, "rx_bytes").get("rate")
    return None if tx is None or rx is None else tx + rx


def median(values):
    v = sorted(values)
    n = len(v)
    return None if not n else v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def expected_jobs(a):
    """pid -> the job JSON the snapshot must give it, and the rails of each
    job by its name."""
    slurm = {"kind": "slurm", "id": a.slurm_job, "detail": a.slurm_step,
             "name": f"slurm {a.slurm_job}.{a.slurm_step}"}
    pod = {"kind": "kubernetes", "id": a.pod_uid, "detail": a.pod_container,
           "name": f"pod {a.pod_uid}/{a.pod_container[:12]}"}
    members = {}
    for job, pids in ((slurm, a.slurm_pids), (pod, a.pod_pids)):
        for pid in pids.split(","):
            if pid:
                members[int(pid)] = job
    rails = {slurm["name"]: a.slurm_rails.split(","), pod["name"]: a.pod_rails.split(",")}
    return members, rails


def app_job_text(job):
    """A job as the app's processes view words it."""
    if job["kind"] == "slurm":
        return f"Slurm job {job['id']}, step {job['detail']}"
    return f"Pod {job['id']}, container {job['detail'][:12]}"


def check_job_snapshot(snap, a, what):
    members, _ = expected_jobs(a)
    if not check_status(snap, what):
        return
    qps = load_json(a.rdma + ".qp.json")
    owners = {}
    for q in qps:
        if "pid" in q:
            o = owners.setdefault(q["pid"], {"qps": 0, "devices": set()})
            o["qps"] += 1
            o["devices"].add(q["ifname"])
    holders = dict((int(p), int(n)) for p, n in (h.split(":") for h in a.holder or []))
    ok(len(members) >= 4 and all(p in owners for p in members),
       f"{what}: `rdma res show qp` lists every process of the two jobs",
       (sorted(members), sorted(owners)))
    procs = {p.get("pid"): p for p in snap.get("processes", [])}
    for pid, job in sorted(members.items()):
        p = procs.get(pid)
        if not ok(p is not None, f"{what}: process {pid} is listed", sorted(procs)):
            continue
        ok(p.get("job") == job, f"{what}: process {pid} ({p.get('comm')}) is in {job['name']}",
           p.get("job"))
        o = owners.get(pid, {"qps": None, "devices": set()})
        want_qps = holders.get(pid, o["qps"])
        ok(p.get("qps") == want_qps == o["qps"],
           f"{what}: process {pid} has {want_qps} QPs", (p.get("qps"), o["qps"]))
        devs = sorted(d.get("device") for d in p.get("devices", []))
        ok(o["devices"] and devs == sorted(o["devices"]),
           f"{what}: process {pid} uses {sorted(o['devices'])}", devs)
    kinds = {"slurm", "kubernetes"}
    others = sorted(p.get("pid") for p in snap.get("processes", [])
                    if (p.get("job") or {}).get("kind") in kinds and p.get("pid") not in members)
    ok(not others, f"{what}: no other process is in a Slurm job or a pod", others)


def rail_events(passes):
    return [(seq, e) for seq, e in events(passes, "rail-imbalance")]


def cmd_jobs(a):
    members, rails = expected_jobs(a)
    both = set(a.slurm_pids.split(",")) & set(a.pod_pids.split(","))
    ok(not both, "no process is given to both jobs", sorted(both))
    check_job_snapshot(load_json(a.snapshot), a, "snapshot")
    check_job_snapshot(load_json(a.snapshot_user), a, "snapshot as rdmatest")

    passes = load_watch(a.watch)
    check_watch_stream(passes, None, "watch")
    throttled = a.throttled.split(",")
    job_of = {dev: name for name, devs in rails.items() for dev in devs}
    ok(throttled and all(d in job_of for d in throttled),
       f"the throttled rails {throttled} are rails of the two jobs", sorted(job_of))
    ok(1 <= a.traffic_at < len(passes), "the watch ran before and during the traffic",
       (a.traffic_at, len(passes)))
    early = [e.get("message") for _, e in rail_events(passes[:a.traffic_at])]
    ok(not early, "no rail-imbalance event before the traffic starts", early)
    evs = rail_events(passes)
    named = sorted({(e.get("device"), e.get("port")) for _, e in evs})
    ok(named == sorted((d, 1) for d in throttled),
       f"rail-imbalance events name exactly {', '.join(d + '/1' for d in throttled)}", named)
    first = {}
    for dev in throttled:
        mine = [(seq, e) for seq, e in evs if e.get("device") == dev]
        name = job_of.get(dev, "?")
        if not ok(len(mine) == 1, f"one rail-imbalance event for {dev}/1",
                  [e.get("message") for _, e in mine]):
            continue
        seq, e = mine[0]
        first[dev] = seq
        msg = e.get("message") or ""
        ok(e.get("severity") == "warning" and e.get("ongoing") is True,
           f"{dev}/1's is a Warning episode that starts", (e.get("severity"), e.get("ongoing")))
        ok(msg.startswith(f"Rail {dev}/1 carries ") and msg.endswith(f", in job {name}."),
           f"its message names {dev}/1 and its job ({name})", msg)
        print(f"# event: {json.dumps(e)}")

    # The shares, from the passes in which the rule judged: from 5 s before
    # the first episode to the end.
    seqs = [p.get("sequence") for p in passes]
    start = seqs.index(min(first.values())) - 5 if first else len(passes)
    window = passes[max(start, a.traffic_at):]
    ok(len(window) >= 10, "the shares held for at least 10 passes", len(window))
    for name, devs in sorted(rails.items()):
        medians = {}
        for dev in devs:
            rates = [rail_rate(p, dev) for p in window]
            medians[dev] = median([r for r in rates if r is not None])
            print(f"# rail {dev}/1 ({name}): median "
                  f"{(medians[dev] or 0) * 8 / 1e6:.0f} Mb/s tx+rx over {len(window)} passes")
        busy = [d for d in devs if d not in throttled]
        ok(busy and all((medians[d] or 0) >= RAIL_FLOOR_BYTES_S for d in busy),
           f"{name}: the unthrottled rails carry at least 100 Mb/s (the rule's idle floor)",
           {d: medians[d] for d in busy})
        peer = median([medians[d] or 0 for d in busy]) or 0
        for dev in devs:
            if dev in throttled:
                ok(medians[dev] is not None and medians[dev] < 0.5 * peer,
                   f"{name}: {dev}/1 carries under half its peers' median", (medians[dev], peer))

    probe = load_watch(a.probe)
    ok(1 <= a.probe_traffic_at < len(probe), "the probe ran before and during the traffic",
       (a.probe_traffic_at, len(probe)))
    early = [r for line in probe[:a.probe_traffic_at] for r in line.get("recent") or []
             if r.get("kind") == "rail-imbalance"]
    ok(not early, "the app's models hold no rail event before the traffic starts", early)
    last = probe[-1] if probe else {}
    recent = [r for r in last.get("recent") or [] if r.get("kind") == "rail-imbalance"]
    ok(sorted(r.get("location") for r in recent) == sorted(f"{d}/1" for d in throttled),
       "the app's recent events hold each throttled rail's episode, and no other rail",
       [r.get("location") for r in recent])
    for r in recent:
        # The probe samples on its own: its share and median may differ.
        loc = r.get("location") or ""
        name = job_of.get(loc.split("/")[0], "?")
        msg = r.get("message") or ""
        ok(msg.startswith(f"Rail {loc} carries ") and msg.endswith(f", in job {name}.") and
           r.get("severity") == "warning" and r.get("ongoing") is True,
           f"the app shows {loc}'s ongoing Warning in job {name}", (r.get("severity"), msg))
        print(f"# the app's event: {msg}")
    shown = {p.get("pid"): p.get("job") for p in last.get("processes") or []}
    for pid, job in sorted(members.items()):
        want = app_job_text(job)
        ok(shown.get(pid) == want, f"the app gives process {pid}'s job as “{want}”",
           shown.get(pid))
    snap = load_json(a.snapshot)
    for p in snap.get("processes", []):
        if p.get("pid") in members:
            print(f"# job of {p.get('comm')} (pid {p['pid']}): {json.dumps(p.get('job'))}")
            print(f"# the app's job text: {shown.get(p['pid'])}")
            break
    check_job_window(a, members, rails, throttled)


# A row's value as the window writes it: a share of the link rate ("1.3 %",
# the default) or a rate ("143 Mb/s"); (number, "%" or "b/s") or None.
RATE_UNITS = {"": 1, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}


def shown_value(text):
    m = re.match(r"^([0-9]+(?:\.[0-9]+)?)\s*(%|([kMGT]?)b/s)$", text or "")
    if not m:
        return None
    if m.group(2) == "%":
        return float(m.group(1)), "%"
    return float(m.group(1)) * RATE_UNITS[m.group(3)], "b/s"


def read_text(path):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError as e:
        ok(False, f"{os.path.basename(path)} was written", str(e))
        return ""


def check_job_window(a, members, rails, throttled):
    """The window's dumps (scenario-jobs.sh): the Rails tab narrowed to each
    job, each job's page and the Processes view."""
    keys = {f"slurm {a.slurm_job}.{a.slurm_step}": ("slurm", f"slurm/{a.slurm_job}"),
            f"pod {a.pod_uid}/{a.pod_container[:12]}": ("pod", f"kubernetes/{a.pod_uid}")}
    for name, devs in sorted(rails.items()):
        tag, key = keys[name]
        text = read_text(os.path.join(a.window, f"rails-{tag}.txt"))
        head = [l for l in text.splitlines() if l.startswith("rails: ")]
        ok(head and head[0].endswith(f"; show throughput; job {key}"),
           f"the Rails tab is narrowed to {key}", head)
        rows = {}
        for line in text.splitlines():
            m = re.match(r"^rails row: (\S+)/1 (.*?)( imbalance)?$", line)
            if m:
                rows[m.group(1)] = (shown_value(m.group(2)), bool(m.group(3)), m.group(2))
        ok(sorted(rows) == sorted(devs), f"{key}'s rails are exactly {', '.join(devs)}", sorted(rows))
        marked = sorted(d for d, r in rows.items() if r[1])
        want = sorted(d for d in devs if d in throttled)
        ok(marked == want, f"{key}: the Rails tab marks {', '.join(want)} (rail imbalance) and no other row",
           marked)
        values = [r[0] for r in rows.values()]
        units = {v[1] for v in values if v is not None}
        ok(None not in values and len(units) == 1,
           f"{key}: each row's value is a share of its link or a rate, all alike", [r[2] for r in rows.values()])
        busy = [rows[d][0][0] for d in devs if d in rows and d not in throttled and rows[d][0] is not None]
        peer = median(busy) or 0
        for d in want:
            got = rows.get(d, (None, False, "?"))
            ok(got[0] is not None and peer > 0 and got[0][0] < 0.5 * peer,
               f"{key}: the Rails tab shows {d}/1 under half its peers' median ({got[2]} against"
               f" {peer:g} {got[0][1] if got[0] else ''})", (got[0], peer))
        for line in text.splitlines():
            if line.startswith("rails"):
                print(f"# window ({key}): {line}")

        page = read_text(os.path.join(a.window, f"job-{tag}.txt"))
        procs = {}
        for line in page.splitlines():
            if line.startswith("job process: "):
                cells = line[len("job process: "):].split("\t")
                if len(cells) > 1 and cells[1].isdigit():
                    procs[int(cells[1])] = cells
        pids = sorted(p for p, j in members.items() if j["name"] == name)
        ok(sorted(procs) == pids, f"{key}'s page lists exactly its processes {pids}", sorted(procs))
        ports = {}
        for line in page.splitlines():
            m = re.match(r"^job device: .* (\S+) qps=\S+ mrs=\S+ registered=.* ports=(.*)$", line)
            if m:
                ports[m.group(1)] = sorted(p for p in m.group(2).split(",") if p)
        ok(all(ports.get(d) == [f"{d}/1"] for d in devs),
           f"{key}'s page gives each of its devices the port its QPs use", ports)
        print(f"# window: {[l for l in page.splitlines() if l.startswith('job: ')]}")

    view = read_text(os.path.join(a.window, "processes.txt"))
    shown = {}
    for line in view.splitlines():
        if line.startswith("process\t"):
            fields = dict(f.split("=", 1) for f in line.split("\t")[1:] if "=" in f)
            if fields.get("pid", "").isdigit():
                shown[int(fields["pid"])] = fields
    for pid, job in sorted(members.items()):
        want = app_job_text(job)
        got = shown.get(pid, {}).get("job")
        ok(got == want, f"the Processes view gives process {pid}'s job as “{want}”", got)


# --- scenario 5: delete / re-add -------------------------------------------

def presence(passes, dev):
    return [dev in devices_by_name(p) for p in passes]


def spikes(passes, dev, since):
    """Rates after a re-add that a counter starting from 0 cannot explain."""
    bad = []
    for p in passes[since:]:
        port = port_of(p, dev)
        if port is None:
            continue
        elapsed = port.get("elapsed_s") or p.get("interval_s") or 1.0
        counters = port.get("counters", {})
        for k, r in (port.get("rates") or {}).items():
            if r is None or k not in counters:
                continue
            if r * elapsed > counters[k] * 1.05 + 2:
                bad.append((p.get("sequence"), k, r, counters[k]))
    return bad


def cmd_delete(a):
    passes = load_watch(a.watch)
    check_watch_stream(passes, a.count, "watch")
    rc = open(a.watch + ".rc").read().strip() if os.path.exists(a.watch + ".rc") else None
    ok(rc == "0", "watch exited 0 (the sampler kept running until stopped)", rc)
    dev, other = a.device, a.other
    pres = presence(passes, dev)
    ok(all(presence(passes, other)), f"{other} is listed in every pass")
    gone = [i for i, present in enumerate(pres) if not present]
    if not ok(gone and gone[0] > 0, f"{dev} disappears after the delete", pres):
        return
    first_gone = gone[0]
    back = [i for i in range(first_gone, len(pres)) if pres[i]]
    rm = [s for s, _ in events(passes, "device-removed", dev)]
    ok(rm and rm[0] == passes[first_gone].get("sequence"),
       f"device-removed for {dev} in the pass it disappeared", rm)
    if not ok(back, f"{dev} is listed again after the re-add", pres):
        return
    added = [s for s, _ in events(passes, "device-added", dev)]
    ok(passes[back[0]].get("sequence") in added,
       f"device-added for {dev} in the pass it came back", added)
    bad = [negative_rates(p) for p in passes]
    ok(not any(bad), "no negative rate in any pass", [b for b in bad if b][:3])
    sp = spikes(passes, dev, back[0])
    ok(not sp, f"no rate spike on {dev} after the re-add", sp[:5])
    vals = [(port_of(p, dev) or {}).get("counters", {}).get("sent_pkts") for p in passes]
    before = max(v for v in vals[:first_gone] if v is not None)
    after = vals[back[0]]
    ok(after is not None and after < before,
       f"{dev} counters restarted after the re-add (sent_pkts {before} -> {after})")
    if a.second_readd_after is not None:
        # A delete and re-add inside one interval: the collector sees the
        # same name with smaller counters and a new index.
        ok(len(passes) - a.second_readd_after >= 2,
           "at least two passes follow the fast re-add",
           (len(passes), a.second_readd_after))
        sp = spikes(passes, dev, a.second_readd_after)
        ok(not sp, f"no rate spike on {dev} after a re-add within one interval", sp[:5])
        later = passes[a.second_readd_after:]
        kinds = sorted({e.get("kind") for _, e in events(later, None, dev)})
        gap = not all(presence(later, dev))
        print(f"# {LABEL}fast re-add: the sampler {'saw' if gap else 'did not see'} "
              f"the gap; events {kinds}")
        # Without the gap only the new kernel index and the smaller counters
        # tell: a counter reset, or the device reported as replaced.
        ok("counter-reset" in kinds or {"device-removed", "device-added"} <= set(kinds),
           f"the re-add of {dev} within one interval is reported "
           "(counter-reset, or device-removed and device-added)", kinds)


# --- GPU interconnects beside RDMA -------------------------------------------

def cmd_gpu(a):
    snap = load_json(a.snapshot)
    rdev = load_json(a.rdma + ".dev.json")
    if not check_status(snap, "snapshot with GPUs"):
        return
    devs = devices_by_name(snap)
    rdma_names = sorted((d["ifname"] for d in rdev), key=natural_key)
    ours = [d["name"] for d in snap["devices"] if d.get("kind") == "rdma"]
    ok(ours == rdma_names, "the RDMA devices are those of `rdma dev`", f"{ours} vs {rdma_names}")
    gpus = [d["name"] for d in snap["devices"] if d.get("kind") == "gpu"]
    ok(gpus == ["nvidia0", "nvidia1"], "both GPUs of the stand-in NVML are listed", gpus)
    ok(snap.get("gpu_status") is None, "no GPU status sentence when GPUs answer",
       snap.get("gpu_status"))
    g = devs.get("nvidia0", {})
    gpu = g.get("gpu") or {}
    ok(gpu.get("model") == "NVIDIA H100 80GB HBM3" and gpu.get("temperature_c") == 55,
       "nvidia0's gauges are the library's", gpu)
    scopes = [(p.get("port"), p.get("scope"), p.get("link")) for p in g.get("ports", [])]
    ok(scopes == [(0, "gpu", None), (1, "link", 0), (2, "link", 1)],
       "nvidia0: an all-links port 0, then links 0 and 1", scopes)
    p0 = port_of(snap, "nvidia0", 0) or {}
    ok((p0.get("gpu_counters") or {}).get("nvlink_data_tx_kib") == 1000,
       "the GPU-wide NVLink counter is on port 0, in KiB", p0.get("gpu_counters"))
    ok((port_of(snap, "nvidia0", 1) or {}).get("remote") == "PCI 00000000:2A:00.0",
       "link 0's remote end", port_of(snap, "nvidia0", 1))
    rx = port_of(snap, "rxe0", 1) or {}
    ok(bool(rx.get("counters")), "rxe0/1 still has its hw counters beside the GPUs")


def cmd_gpu_watch(a):
    passes = load_watch(a.watch)
    ok(len(passes) >= 4, "the watch produced at least 4 passes", len(passes))
    if not passes:
        return
    last = passes[-1]
    ok(last.get("status") == "ok", "the last pass is ok", last.get("status"))
    down = [e for _, e in events(passes, "port-down", "nvidia0")]
    ok(any(e.get("port") == 2 for e in down),
       "a port-down episode says nvidia0 link 1 (port 2) went down", down)
    other = [e for _, e in events(passes, None, "nvidia0")
             if e.get("kind") in ("port-state", "port-phys-state")]
    ok(not other, "no separate state events for the same link", other)
    rising = [e for _, e in events(passes, "counter-rising", "nvidia0")]
    ok(any(e.get("counter") == "nvlink_crc_errors" and e.get("port") == 1 for e in rising),
       "CRC errors rising on nvidia0 link 0 raise counter-rising", rising)
    ok(all(port_of(p, a.rdma_device, 1) is not None for p in passes),
       f"{a.rdma_device}/1 is in every pass beside the GPUs")
    ok(not any(negative_rates(p) for p in passes), "no negative rate anywhere")


def cmd_profiler_trace(a):
    """A torch or VizTracer trace with rdmatop's counter tracks in it."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
    import perfetto_rules

    if not ok(os.path.exists(a.trace), "the trace was written"):
        return
    if a.trace.endswith(".gz"):
        with open(a.trace, "rb") as f:
            ok(f.read(2) == b"\x1f\x8b", "a .gz trace is gzip")
    try:
        trace = perfetto_rules.load(a.trace)
    except ValueError as e:
        ok(False, "the trace is JSON", str(e))
        return
    pid = perfetto_rules.pid_named(trace, "rdmatop")
    if not ok(pid is not None, "the trace has a process named rdmatop"):
        return
    problems = perfetto_rules.check(trace, [pid])
    ok(not problems, "the trace follows Perfetto's JSON rules", "; ".join(problems[:5]))
    tracks = perfetto_rules.counter_tracks(trace, pid)
    key = f"{a.metric}/s"
    busy = tracks.get((f"rdmatop {a.busy}", key), [])
    idle = tracks.get((f"rdmatop {a.idle}", key), [])
    ok(busy, f"{a.busy} has a {key} track", sorted(tracks)[:20])
    ok(max((v for _, v in busy), default=0) > 0, f"{a.busy} {key} is non-zero during ib_write_bw")
    ok(idle, f"{a.idle} has a {key} track", sorted(tracks)[:20])
    ok(idle and all(v == 0 for _, v in idle), f"{a.idle} {key} is zero",
       sorted({v for _, v in idle})[:5])
    lo, hi = perfetto_rules.span(trace, exclude_pid=pid)
    ts = [t for pts in tracks.values() for t, _ in pts]
    ok(lo < hi, "the trace has its own timed events")
    ok(ts and lo <= min(ts) and max(ts) <= hi,
       "every rdmatop point lies inside the trace's own time span",
       f"points {min(ts, default=None)}..{max(ts, default=None)}, trace {lo}..{hi}")
    print(f"# {os.path.basename(a.trace)}: {len(tracks)} tracks, {len(ts)} points, "
          f"{a.busy} {key} max {max((v for _, v in busy), default=0):.0f}")


def quantile(values, q):
    v = sorted(values)
    return v[int(q * (len(v) - 1))] if v else None


# A capture's passes span at least this share of its seconds: start only
# spawns its thread (the counter files are open by then), which takes well
# under a quarter of them, even under TCG.
CAPTURE_COVERED = 0.75


def check_c_capture(c, a, what):
    """A capture of busy and idle, every port, every counter."""
    st = c["stats"]
    interval_ns = a.interval_ms * 1e6
    deadlines = a.seconds * 1e9 / interval_ns
    # Every deadline from the first pass to the last is either taken or
    # counted as missed (a burst would take them late instead); the last
    # pass may also have run past a few.
    t = next((r["monotonic_ns"] for r in c["reads"] if r["device"] == a.busy), [])
    span = (t[-1] - t[0]) / interval_ns + 1 if t else 0
    late = max((y - x for x, y in zip(t, t[1:])), default=0) / interval_ns + 1
    ok(t and span - 1 <= st["taken"] + st["missed"] <= span + late,
       f"{what}: passes taken + deadlines missed = the deadlines from the first pass to the last",
       f"taken {st['taken']} + missed {st['missed']} vs {span:.0f} (+ up to {late:.0f})")
    ok(span >= CAPTURE_COVERED * deadlines,
       f"{what}: the passes span the capture's {a.seconds:g} s",
       f"{span:.0f} deadlines of {deadlines:.0f}")
    # How many are kept depends on the guest's load (TCG on a shared host):
    # reported, not asserted.
    ok(st["taken"] >= 2, f"{what}: deadlines kept {st['taken']}, missed {st['missed']}", st)
    ok(st["dropped"] == 0 and st["read_errors"] == 0, f"{what}: nothing dropped, no read error", st)
    ok(c["read"] == st["samples"], f"{what}: every sample kept was read",
       f"read {c['read']}, kept {st['samples']}")
    per_pass = {}
    for se in c["series"]:
        per_pass.setdefault((se["device"], se["port"]), []).append(se)
    ok({d for d, _ in per_pass} == {a.busy, a.idle}, f"{what}: both devices captured", list(per_pass))
    short = [f"{se['device']}/{se['port']}/{se['counter']}: {se['n']}"
             for ses in per_pass.values() for se in ses if se["n"] != st["taken"]]
    ok(not short, f"{what}: every counter of every port is in every pass ({st['taken']})", short[:5])
    ok(sum(len(v) for v in per_pass.values()) * st["taken"] == c["read"],
       f"{what}: samples = passes x counters", c["read"])
    back = [se for ses in per_pass.values() for se in ses if se["decreases"]]
    ok(not back, f"{what}: no counter goes back", back[:3])
    series = {(se["device"], se["counter"]): se for ses in per_pass.values() for se in ses}
    busy = series.get((a.busy, "sent_pkts"))
    ok(busy and busy["last"] > busy["first"], f"{what}: sent_pkts rises on busy {a.busy}", busy)
    for name in ("sent_pkts", "rcvd_pkts"):
        idle = series.get((a.idle, name))
        ok(idle and idle["last"] == idle["first"], f"{what}: {name} flat on idle {a.idle}", idle)
    ok(sorted(r["device"] for r in c["reads"]) == sorted([a.busy, a.idle]),
       f"{what}: the read times of both devices, once each", [r["device"] for r in c["reads"]])
    for r in c["reads"]:
        t = r["monotonic_ns"]
        gaps = [y - x for x, y in zip(t, t[1:])]
        ok(len(t) == st["taken"] and gaps and min(gaps) > 0,
           f"{what}: {r['device']} read once per pass, in order (intervals: median "
           f"{quantile(gaps, 0.5) / 1e6:.3f} ms, p99 {quantile(gaps, 0.99) / 1e6:.3f} ms, "
           f"max {max(gaps or [0]) / 1e6:.3f} ms)", len(t))
        if r["device"] == a.busy and gaps:
            med = quantile(gaps, 0.5)
            ok(abs(st["interval_median_ns"] - med) <= med / 16 + 2000,
               f"{what}: the stats' median interval agrees with the reads'",
               f"{st['interval_median_ns']} vs {med}")


def cli_sentence(path):
    with open(path) as f:
        text = f.read().strip().splitlines()
    return text[0][len("rdmatop-cli: "):] if text and text[0].startswith("rdmatop-cli: ") else text


def cmd_capture(a):
    for path, what in ((a.c, "C"), (a.c_user, "C as rdmatest")):
        check_c_capture(load_json(path), a, what)
    some = load_json(a.c_some)
    names = {(se["device"], se["port"], se["counter"]) for se in some["series"]}
    ok(names == {(a.busy, 1, "sent_pkts"), (a.busy, 1, "rcvd_pkts")},
       "C: a capture of one port and two counters reads only those", sorted(names))
    ok(some["read"] == some["stats"]["samples"] == 2 * some["stats"]["taken"] > 0,
       "C: read after stop, all there", some["stats"])

    snap = load_json(a.c_snapshot)
    rdma = {(e["ifname"], e["port"]): e for e in load_json(a.rdma)}
    ports = [(d["name"], p["port"]) for d in snap["devices"] for p in d["ports"]]
    ok(sorted(d["name"] for d in snap["devices"]) == sorted([a.busy, a.idle]) and
       sorted(n for n, _ in ports) == sorted([a.busy, a.idle]),
       "C snapshot: both devices, port 1 of each", ports)
    for dev in snap["devices"]:
        for port in dev["ports"]:
            kernel = rdma.get((dev["name"], port["port"]), {})
            hw = {k: v for k, v in kernel.items() if isinstance(v, int) and k not in ("ifindex", "port")}
            if not ok(hw, f"C snapshot: rdma statistic shows {dev['name']}/{port['port']}'s counters",
                      sorted(rdma)):
                continue
            mine = {k: v for k, v in port["counters"].items() if k in hw}
            ok(set(mine) == set(hw), f"C snapshot: {dev['name']} has rdma's counters", sorted(set(hw) - set(mine)))
            if dev["name"] == a.idle:
                ok(mine == hw, f"C snapshot: idle {dev['name']} counters equal rdma's", (mine, hw))
            else:
                ok(all(mine[k] <= hw[k] for k in mine),
                   f"C snapshot: busy {dev['name']} counters are at most rdma's later ones")
            ok(port["state"] == "ACTIVE", f"C snapshot: {dev['name']} port ACTIVE", port["state"])

    err = {k: load_json(os.path.join(a.errors, f"c-error-{k}.json")) for k in ("interval", "device", "counter", "port")}
    ok(err["interval"]["status"] == 5, "C: interval out of range is INVALID_ARGUMENT", err["interval"])
    ok(err["interval"]["message"] == cli_sentence(os.path.join(a.errors, "cli-interval.err")),
       "C: the interval sentence is the CLI's", err["interval"]["message"])
    ok(err["device"]["status"] == 4, "C: an unknown device is NO_DEVICE", err["device"])
    ok(err["device"]["message"] == cli_sentence(os.path.join(a.errors, "cli-nodev.err")),
       "C: the unknown device sentence is the CLI's", err["device"]["message"])
    ok(err["counter"]["status"] == 4 and "no_such_counter" in err["counter"]["message"],
       "C: an unknown counter is NO_DEVICE, named", err["counter"])
    ok(err["port"]["status"] == 4 and "99" in err["port"]["message"],
       "C: a port no device has is NO_DEVICE", err["port"])

    py = load_json(a.py)
    st = py["stats"]
    ok(st["taken"] > 0 and st["dropped"] == 0 and st["read_errors"] == 0,
       f"Python: capture ran, nothing dropped (taken {st['taken']}, missed {st['missed']}, "
       f"median {st['interval_median_ns'] / 1e6:.3f} ms, p99 {st['interval_p99_ns'] / 1e6:.3f} ms)", st)
    deadlines = a.seconds * 1000 / a.interval_ms
    ok(st["taken"] + st["missed"] >= CAPTURE_COVERED * deadlines,
       f"Python: the capture's deadlines span its {a.seconds:g} s",
       f"taken {st['taken']} + missed {st['missed']} of {deadlines:.0f}")
    rates = py["rates"]
    busy = rates.get(f"{a.busy}/1/sent_pkts")
    ok(busy and busy["delta"] > 0, f"Python: sent_pkts rate non-zero on busy {a.busy}", busy)
    ok(busy and busy["n"] == st["taken"] - 1, "Python: one rate per interval", (busy, st["taken"]))
    for name in ("sent_pkts", "rcvd_pkts"):
        idle = rates.get(f"{a.idle}/1/{name}")
        ok(idle and idle["delta"] == 0 and idle["n"] == st["taken"] - 1,
           f"Python: {name} rate zero on idle {a.idle} in every interval", idle)
    ok({k.split("/")[2] for k in rates} == {"sent_pkts", "rcvd_pkts"},
       "Python: only the counters asked for", sorted(rates))
    ok(set(py["snapshot"]) == {a.busy, a.idle}, "Python: snapshot() of both devices", list(py["snapshot"]))
    e = py["errors"]
    ok(e["interval"] and e["interval"]["type"] == "IntervalError" and e["interval"]["value_error"]
       and e["interval"]["message"] == err["interval"]["message"],
       "Python: IntervalError (a ValueError) with the CLI's sentence", e["interval"])
    ok(e["device"] and e["device"]["type"] == "UnknownDeviceError"
       and e["device"]["message"] == err["device"]["message"],
       "Python: UnknownDeviceError with the CLI's sentence", e["device"])
    ok(e["counter"] and e["counter"]["type"] == "UnknownDeviceError", "Python: an unknown counter raises", e["counter"])


def cmd_capture_record(a):
    """rdmatop-cli record --counters-only at 1 ms: CSV and trace."""
    import csv
    with open(a.csv, newline="") as f:
        rows = list(csv.DictReader(f))
    by = {}
    for r in rows:
        by.setdefault(r["device"], []).append(r)
    ok(set(by) == {a.busy, a.idle}, "counters-only CSV: both devices", sorted(by))
    if set(by) != {a.busy, a.idle}:
        return
    ok(len(by[a.busy]) == len(by[a.idle]) >= 50,
       f"counters-only CSV: one row per port and pass ({len(by[a.busy])} passes)",
       (len(by[a.busy]), len(by[a.idle])))
    tx = [int(r["tx_packets"]) for r in by[a.busy]]
    ok(tx[-1] > tx[0] and tx == sorted(tx), f"counters-only CSV: {a.busy} tx_packets rises, never back")
    idle = [int(r["tx_packets"]) for r in by[a.idle]]
    ok(idle[-1] == idle[0], f"counters-only CSV: {a.idle} tx_packets stays")
    mono = [int(r["monotonic_us"]) for r in by[a.busy]]
    ok((mono[-1] - mono[0]) / 1e6 >= CAPTURE_COVERED * a.seconds,
       f"counters-only CSV: the rows span the recording's {a.seconds:g} s",
       f"{(mono[-1] - mono[0]) / 1e6:.3f} s")
    gaps = [y - x for x, y in zip(mono, mono[1:])]
    ok(gaps and min(gaps) > 0,
       f"counters-only CSV: rows in time order (median interval {quantile(gaps, 0.5) / 1e3:.3f} ms, "
       f"p99 {quantile(gaps, 0.99) / 1e3:.3f} ms)")

    with open(a.trace) as f:
        trace = json.load(f)
    events = trace["traceEvents"]
    names = {e["pid"]: e["args"]["name"] for e in events
             if e["ph"] == "M" and e["name"] == "process_name"}
    pid = {v: k for k, v in names.items()}
    bad = [e for e in events if e["ph"] == "C" and (len(e["args"]) != 1 or not all(
        isinstance(v, (int, float)) for v in e["args"].values()))]
    ok(not bad, "counters-only trace: counter events have one numeric arg", bad[:2])

    def series(group, name, key):
        return [e["args"][key] for e in events if e["ph"] == "C" and e["pid"] == pid.get(group)
                and e["name"] == name and key in e["args"]]
    busy = series(a.busy + "/1", "tx", "packets/s")
    ok(len(busy) >= 50 and max(busy) > 0, f"counters-only trace: {a.busy}/1 tx packets/s non-zero",
       len(busy))
    idle = series(a.idle + "/1", "tx", "packets/s")
    ok(idle and all(v == 0 for v in idle), f"counters-only trace: {a.idle}/1 tx packets/s zero")
    ts = [e["ts"] for e in events if e["ph"] == "C" and e["pid"] == pid.get(a.busy + "/1")]
    ok(ts and ts == sorted(ts), "counters-only trace: in time order")
    ok(ts and (max(ts) - min(ts)) / 1e6 >= CAPTURE_COVERED * a.seconds,
       f"counters-only trace: {a.busy}/1 spans the recording's {a.seconds:g} s",
       f"{(max(ts) - min(ts)) / 1e6 if ts else 0:.3f} s")
# --- the soak -----------------------------------------------------------

UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
                    "\u2028\u2029\ufeff\ufffd]")


def strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from strings(v)


def slope_per_hour(points):
    """Least-squares slope of (t, y) points, in y per hour."""
    n = len(points)
    if n < 2:
        return 0.0
    mt = sum(t for t, _ in points) / n
    my = sum(y for _, y in points) / n
    var = sum((t - mt) ** 2 for t, _ in points)
    if var == 0:
        return 0.0
    return sum((t - mt) * (y - my) for t, y in points) / var * 3600


def robust_slope_per_hour(points):
    """Theil-Sen slope of (t, y) points (the median of the slopes between
    every pair), in y per hour: a few samples taken while the app briefly
    held a large temporary buffer do not tilt it, as they tilt least
    squares."""
    slopes = sorted((y2 - y1) / (t2 - t1)
                    for i, (t1, y1) in enumerate(points)
                    for t2, y2 in points[i + 1:] if t2 != t1)
    if not slopes:
        return 0.0
    mid = len(slopes) // 2
    med = slopes[mid] if len(slopes) % 2 else (slopes[mid - 1] + slopes[mid]) / 2
    return med * 3600


def load_trace(path):
    import gzip
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        data = json.load(f)
    return data["traceEvents"] if isinstance(data, dict) else data


# What the soak scenario does, which bounds what a good run shows.  A churn
# cycle is 7 s of sleeps plus five commands (rdma link delete and add, two
# ip link, tc) and the wait for the re-added device to be ACTIVE: a few
# seconds more under TCG, well under 30 in all.  The RSS sampler reads
# /proc three times and sleeps 2 s: a sample every 10 s at the slowest.
# The app reports its memory every 2 s (RDMATOP_REPORT_MEMORY=2) from a
# thread of its own: at least half of those.  watch and record sample every
# second and are held to no more than one missed period in a row, so a
# pass every 3 s at least.
SOAK_CYCLE_MAX_S = 30
SOAK_RSS_EVERY_MAX_S = 10
SOAK_APP_REPORT_EVERY_MAX_S = 4
SOAK_PASS_EVERY_MAX_S = 3
SOAK_STEADY = ("rxe0", "rxe1")


def read_churn(a):
    """The churn log: one "T cycle N delete DEV" and one "T cycle N readd
    DEV" line per cycle, then "T end cycles=N".  Returns (cycles, run_s),
    each None when the log does not say."""
    lines = [line.split() for line in open(a.churn) if line.strip()]
    cycles = run_s = None
    if lines and len(lines[-1]) == 3 and lines[-1][1] == "end" and \
       lines[-1][2].startswith("cycles=") and lines[-1][0].isdigit():
        run_s = float(lines[-1][0])
        cycles = int(lines[-1][2][len("cycles="):])
    ok(cycles is not None, "the churn log ends with its summary line",
       " ".join(lines[-1]) if lines else "empty")
    steps = [(f[3], f[2]) for f in lines[:-1] if len(f) == 5 and f[1] == "cycle"
             and f[4] == a.device]
    deletes = [n for step, n in steps if step == "delete"]
    readds = [n for step, n in steps if step == "readd"]
    want = [str(n) for n in range(1, (cycles or 0) + 1)]
    ok(cycles and deletes == want and readds == want,
       f"each churn cycle deleted and re-added {a.device}, once",
       f"cycles {cycles}: deletes {deletes[:5]}, re-adds {readds[:5]}")
    min_cycles = max(1, int(a.seconds // SOAK_CYCLE_MAX_S))
    ok(cycles is not None and cycles >= min_cycles,
       f"at least {min_cycles} churn cycles in {a.seconds:.0f} s", cycles)
    ok(run_s is not None and run_s >= a.seconds, f"the churn ran its {a.seconds:.0f} s", run_s)
    return cycles, run_s


def check_soak_passes(passes, a, length):
    """The watch: its passes say when they ran, cover the run, and keep the
    devices that are never deleted."""
    missing = [p.get("sequence") for p in passes
               if not isinstance(p.get("monotonic_us"), int) or
               not isinstance(p.get("interval_s"), (int, float)) or not p["interval_s"] > 0]
    ok(not missing, "every pass says when it ran and its interval", missing[:5])
    timed = [p for p in passes if p.get("sequence") not in missing]
    span = (timed[-1]["monotonic_us"] - timed[0]["monotonic_us"]) / 1e6 if timed else 0.0
    ok(span >= 0.9 * length, "the watch ran through the whole churn",
       f"{span:.0f} s of {length:.0f} s")
    absent = [(p.get("sequence"), dev) for p in passes for dev in SOAK_STEADY
              if dev not in devices_by_name(p)]
    ok(passes and not absent, f"{' and '.join(SOAK_STEADY)} are in every pass", absent[:5])

    # The sampler never missed more than one period in a row.  A pass
    # starts at its deadline plus the time the guest took to schedule the
    # thread (under TCG with churn, up to half a period), so a gap between
    # 2 and 3 periods is one missed deadline plus that delay; only a gap of
    # more than 3 periods proves two deadlines missed in a row (both delays
    # are under a period).
    gaps = []
    for prev, cur in zip(timed, timed[1:]):
        dt = (cur["monotonic_us"] - prev["monotonic_us"]) / 1e6
        if dt > SOAK_PASS_EVERY_MAX_S * cur["interval_s"]:
            gaps.append((cur.get("sequence"), round(dt, 2)))
    ok(not gaps, "never more than one missed period in a row", gaps[:5])

    # No negative rate, no spike a counter that restarted cannot explain;
    # the devices that stay have rates in most passes to judge.
    bad = [b for b in (negative_rates(p) for p in passes) if b]
    ok(not bad, "no negative rate in any pass", bad[:3])
    sp = []
    for dev in SOAK_STEADY + (a.device,):
        sp += [(dev,) + x for x in spikes(passes, dev, 0)]
    ok(not sp, "no rate spike on any device", sp[:5])
    rated = {dev: sum(1 for p in passes if any(
        v is not None for v in ((port_of(p, dev) or {}).get("rates") or {}).values()))
        for dev in SOAK_STEADY}
    ok(all(n >= (len(passes) - 1) / 2 for n in rated.values()),
       "the devices that stay have rates in most passes", (rated, len(passes)))


def read_rss(a, length):
    """The RSS samples, "T WHO KB" lines, of each process the scenario
    watched: watch and record, and the app when it ran (then --app-log
    names its log)."""
    series, bad = {}, []
    for n, line in enumerate(open(a.rss), 1):
        f = line.split()
        if len(f) == 3 and f[0].isdigit() and f[2].isdigit():
            series.setdefault(f[1], []).append((float(f[0]), int(f[2])))
        elif f:
            bad.append((n, line.strip()[:40]))
    ok(not bad, "every RSS sample has its time, process and value", bad[:3])
    want = {"watch", "record"} | ({"app"} if a.app_log else set())
    ok(set(series) == want, f"RSS sampled for {', '.join(sorted(want))}", sorted(series))
    need = max(8, int(length // SOAK_RSS_EVERY_MAX_S))
    for who in sorted(want):
        pts = series.get(who, [])
        ok(len(pts) >= need and pts[0][0] <= SOAK_RSS_EVERY_MAX_S and
           pts[-1][0] >= length - SOAK_RSS_EVERY_MAX_S,
           f"{who}: at least {need} RSS samples across the {length:.0f} s",
           f"{len(pts)} from {pts[0][0] if pts else None} s to {pts[-1][0] if pts else None} s")
    return series


def read_app_reports(a, length):
    """The app's own memory reports (RDMATOP_REPORT_MEMORY) printed during
    the churn: (s, rss-kb, heap-used-kb, heap-free-kb)."""
    report = []
    pat = re.compile(r"^rdmatop: memory s=([0-9.]+) rss-kb=([0-9]+) "
                     r"heap-used-kb=([0-9]+) heap-free-kb=([0-9]+)$")
    for line in open(a.app_log, errors="replace"):
        m = pat.match(line.strip())
        if m:
            report.append(tuple(float(x) if i == 0 else int(x)
                                for i, x in enumerate(m.groups())))
    # Those the app printed during the churn, as the RSS samples are.
    lo, _, hi = (a.app_reports or "0:").partition(":")
    report = report[int(lo or 0):int(hi) if hi else None]
    need = max(10, int(length // SOAK_APP_REPORT_EVERY_MAX_S))
    ok(len(report) >= need, f"the app reports its memory at least {need} times during the churn",
       len(report))
    return report


def cmd_soak(a):
    passes = load_watch(a.watch)
    check_watch_stream(passes, None, "watch")
    rc = open(a.watch + ".rc").read().strip() if os.path.exists(a.watch + ".rc") else None
    ok(rc == "0", "watch exited 0 after the whole soak", rc)
    cycles, run_s = read_churn(a)
    # How long the run was: what the churn log says, and never less than
    # the scenario asked for.
    length = max(run_s or 0.0, a.seconds)
    print(f"# {LABEL}soak: {len(passes)} passes, {cycles} delete/re-add cycles, "
          f"{run_s} s of churn")
    check_soak_passes(passes, a, length)

    # Every removal and every re-add raised its event.
    rm = events(passes, "device-removed", a.device)
    add = events(passes, "device-added", a.device)
    ok(cycles and len(rm) == cycles, f"one device-removed per delete of {a.device}",
       (len(rm), cycles))
    ok(cycles and len(add) >= cycles, f"a device-added for every re-add of {a.device}",
       (len(add), cycles))
    print(f"# {LABEL}soak: events expected {cycles} removed + {cycles} added, "
          f"seen {len(rm)} + {len(add)}")

    # Hostile names: shown escaped, never as they are.
    raw = [(p.get("sequence"), x[:40]) for p in passes for x in strings(p) if UNSAFE.search(x)]
    ok(not raw, "no control, bidi or replacement character in any string", raw[:3])
    comms = {pr.get("comm") for p in passes[-5:] for pr in p.get("processes", [])}
    ok(any(c and c.startswith("\\x1b[2J\\u202e") for c in comms),
       "the hostile process is listed with its comm escaped", sorted(c for c in comms if c)[:8])
    cmds = [pr.get("cmdline") or "" for p in passes[-5:] for pr in p.get("processes", [])]
    ok(any(c.startswith("job\\u202ehs.tpg\\x1b]0;owned\\x07\\xe9 AAAA") and len(c.encode()) <= 4096
           for c in cmds), "its 64 KiB command line is escaped and cut to 4 KiB",
       [c[:60] for c in cmds][:8])

    # Memory flat after warm-up (the first third: history rings and caches
    # filling).  Near zero: what the fitted slope adds over the measured
    # window stays within allocator noise (1 MiB plus 2 %).
    def flat(who, what, pts, robust=False):
        warm = [p for p in pts if p[0] >= pts[-1][0] / 3]
        slope = (robust_slope_per_hour if robust else slope_per_hour)(warm)
        span_h = (warm[-1][0] - warm[0][0]) / 3600 if len(warm) > 1 else 0
        growth = slope * span_h
        print(f"# {LABEL}soak: {who} {what} {pts[0][1]} kB at start, {warm[0][1]} kB after "
              f"warm-up, {pts[-1][1]} kB at end, slope {slope:.0f} kB/h after warm-up"
              f"{' (median of pairwise slopes)' if robust else ''}")
        if a.sanitizer:
            # ASan's allocator keeps a quarantine of freed blocks and a record
            # of every allocation's stack: its memory is not rdmatop's.  The
            # plain build's vm-soak checks this.
            print(f"# {LABEL}soak: {who}: {what} not checked in a sanitizer build")
            return
        ok(len(warm) >= 5 and growth <= 1024 + 0.02 * warm[0][1],
           f"{who}: {what} flat after warm-up",
           f"{growth:.0f} kB over {span_h * 3600:.0f} s ({slope:.0f} kB/h, {len(warm)} samples)")

    series = read_rss(a, length)
    # The app says what malloc holds (RDMATOP_REPORT_MEMORY): its resident
    # memory also moves in steps when glibc keeps a freed frame-sized buffer
    # at the top of its heap instead of giving it back, which is no memory
    # of the app's.  So the app is judged by its heap in use and by its
    # resident memory less malloc's free bytes; its plain RSS is printed.
    report = read_app_reports(a, length) if a.app_log else []
    for who, pts in sorted(series.items()):
        if who == "app" and a.app_log:
            if len(report) < 10:
                continue
            t0 = report[0][0]
            print(f"# {LABEL}soak: app RSS {pts[0][1]} kB at start, {pts[-1][1]} kB at end "
                  f"(sampled outside; judged below by what malloc reports)")
            # What malloc hands out: a leak grows it.  (The hidden events
            # view's rows grew it by 9 MB over the first 200 events, until
            # its rows were made only while it is shown.)  Judged by the
            # median of pairwise slopes: the app now and then holds a
            # frame-sized temporary buffer for one sample.
            flat(who, "heap in use", [(t - t0, u) for t, _, u, _ in report], robust=True)
            flat(who, "resident memory less malloc's free bytes",
                 [(t - t0, r - f) for t, r, _, f in report])
            continue
        flat(who, "resident memory", pts)

    # The recording loads and covers the whole run, a pass at least every
    # few seconds (each interval ends with the "rdmatop" counter event).
    evs = load_trace(a.recording)
    ts = [e["ts"] for e in evs if isinstance(e, dict) and isinstance(e.get("ts"), (int, float))]
    span = (max(ts) - min(ts)) / 1e6 if ts else 0.0
    ok(ts and span >= 0.9 * length, "the recording loads and covers the whole run",
       f"{span:.0f} s of {length:.0f} s, {len(evs)} events")
    intervals = sum(1 for e in evs if isinstance(e, dict) and e.get("ph") == "C"
                    and e.get("name") == "rdmatop")
    need = max(3, int(length // SOAK_PASS_EVERY_MAX_S))
    ok(intervals >= need, f"the recording holds at least {need} passes", intervals)


# ---- screenshots (a PNG read with the standard library only) -----------

def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def decode(path):
    """The pixels of a PNG as (width, height, rows of (r, g, b) tuples)."""
    with open(path, 'rb') as f:
        data = f.read()
    if data[:8] != b'\x89PNG\r\n\x1a\n':
        raise ValueError('not a PNG')
    pos, idat, header = 8, [], None
    while pos < len(data):
        length, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b'IHDR':
            header = struct.unpack('>IIBBBBB', body)
        elif kind == b'IDAT':
            idat.append(body)
        elif kind == b'IEND':
            break
    width, height, depth, colour_type, _, _, interlace = header
    if depth != 8 or colour_type not in (2, 6) or interlace:
        raise ValueError(f'unsupported PNG: depth {depth}, colour type {colour_type}, interlace {interlace}')
    bpp = 3 if colour_type == 2 else 4
    raw = zlib.decompress(b''.join(idat))
    stride = width * bpp
    prev = bytearray(stride)
    rows = []
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if kind == 1:
                line[x] = (line[x] + a) & 0xff
            elif kind == 2:
                line[x] = (line[x] + b) & 0xff
            elif kind == 3:
                line[x] = (line[x] + ((a + b) >> 1)) & 0xff
            elif kind == 4:
                line[x] = (line[x] + paeth(a, b, c)) & 0xff
        rows.append([tuple(line[x:x + 3]) for x in range(0, stride, bpp)])
        prev = line
    return width, height, rows


def cmd_screenshot(a):
    """A screenshot shows a drawn page, not a blank one: many colours, and
    where asked, a graph's line in its channel's colour (pixels within 60
    of it in red, green and blue)."""
    width, height, rows = decode(a.png)
    counts = {}
    for row in rows:
        for p in row:
            counts[p] = counts.get(p, 0) + 1
    name = os.path.basename(a.png)
    ok(len(counts) >= a.colours, f"{name} is a drawn page ({len(counts)} colours in {width}x{height})",
       f"want at least {a.colours}")
    # A line runs across columns; a card's stripe or a swatch in that
    # colour fills a few.  So the line is counted in the columns it spans,
    # which does not grow with how long the stripe is.
    for spec in a.near or []:
        colour_hex, want = spec.split(":")
        colour = tuple(int(colour_hex[i:i + 2], 16) for i in (0, 2, 4))
        columns = set()
        for row in rows:
            for x, p in enumerate(row):
                if all(abs(p[i] - colour[i]) <= 60 for i in range(3)):
                    columns.add(x)
        got = len(columns)
        ok(got >= int(want), f"{name} has pixels near #{colour_hex} in {got} columns", f"want at least {want}")


def main():
    global LABEL
    ap = argparse.ArgumentParser()
    ap.add_argument("--label", default="")
    sub = ap.add_subparsers(dest="check", required=True)

    s = sub.add_parser("discovery")
    s.add_argument("--snapshot", required=True)
    s.add_argument("--rdma", required=True, help="prefix of vm_rdma_json files before")
    s.add_argument("--rdma-after", help="prefix of vm_rdma_json files after")
    s.add_argument("--devices", type=int, required=True)
    s.add_argument("--filter", help="only check that SNAPSHOT lists these devices")
    s.set_defaults(func=cmd_discovery)

    for name, func in (("traffic", cmd_traffic), ("processes", cmd_processes)):
        s = sub.add_parser(name)
        if name == "traffic":
            s.add_argument("--watch", required=True)
            s.add_argument("--count", type=int, required=True)
            s.add_argument("--client", required=True)
            s.add_argument("--server", required=True)
            s.add_argument("--idle", required=True)
        else:
            s.add_argument("--snapshot", required=True)
        s.add_argument("--rdma", required=True)
        s.add_argument("--pids", default="")
        s.add_argument("--holder-pid", type=int)
        s.add_argument("--holder-qps", type=int)
        s.set_defaults(func=func)

    s = sub.add_parser("peers")
    s.add_argument("--snapshot", required=True)
    s.add_argument("--rdma", required=True, help="prefix of vm_rdma_json files (cm_id)")
    s.add_argument("--rdma-before", help="the same, dumped before the snapshot")
    s.add_argument("--pids", required=True)
    s.set_defaults(func=cmd_peers)

    s = sub.add_parser("profiler-trace")
    s.add_argument("--trace", required=True)
    s.add_argument("--busy", required=True, help="DEV/PORT with traffic")
    s.add_argument("--idle", required=True, help="DEV/PORT without")
    s.add_argument("--metric", required=True)
    s.set_defaults(func=cmd_profiler_trace)

    s = sub.add_parser("loss")
    s.add_argument("--watch", required=True)
    s.add_argument("--count", type=int, required=True)
    s.add_argument("--device", required=True)
    s.set_defaults(func=cmd_loss)

    s = sub.add_parser("link")
    s.add_argument("--watch", required=True)
    s.add_argument("--count", type=int, help="exact number of passes (else >= 3)")
    s.add_argument("--device", required=True)
    s.add_argument("--rdma-down", required=True)
    s.add_argument("--rdma-up", required=True)
    s.set_defaults(func=cmd_link)

    s = sub.add_parser("health")
    s.add_argument("--watch", required=True)
    s.add_argument("--probe", required=True)
    s.add_argument("--probe-at", type=int, required=True)
    s.add_argument("--watch-at", type=int, required=True)
    s.add_argument("--down", required=True)
    s.add_argument("--sender", required=True)
    s.add_argument("--receiver", required=True)
    s.add_argument("--holder-pid", type=int, required=True)
    s.add_argument("--holder-device", required=True)
    s.set_defaults(func=cmd_health)

    s = sub.add_parser("jobs")
    for opt in ("--snapshot", "--snapshot-user", "--rdma", "--watch", "--probe",
                "--slurm-job", "--slurm-step", "--slurm-pids", "--slurm-rails",
                "--pod-uid", "--pod-container", "--pod-pids", "--pod-rails", "--throttled",
                "--window"):
        s.add_argument(opt, required=True)
    s.add_argument("--traffic-at", type=int, required=True,
                   help="passes the watch wrote before the first stream started")
    s.add_argument("--probe-traffic-at", type=int, required=True)
    s.add_argument("--holder", action="append", help="PID:QPS, a qp-holder and its QPs")
    s.set_defaults(func=cmd_jobs)

    s = sub.add_parser("delete")
    s.add_argument("--watch", required=True)
    s.add_argument("--count", type=int, help="exact number of passes (else >= 3)")
    s.add_argument("--device", required=True)
    s.add_argument("--other", required=True)
    s.add_argument("--second-readd-after", type=int)
    s.set_defaults(func=cmd_delete)

    s = sub.add_parser("gpu")
    s.add_argument("--snapshot", required=True)
    s.add_argument("--rdma", required=True)
    s.set_defaults(func=cmd_gpu)

    s = sub.add_parser("soak")
    s.add_argument("--watch", required=True)
    s.add_argument("--rss", required=True)
    s.add_argument("--app-log", help="the app's stderr, with its RDMATOP_REPORT_MEMORY lines")
    s.add_argument("--app-reports", help="FROM:TO, the app's memory reports within the churn")
    s.add_argument("--churn", required=True)
    s.add_argument("--recording", required=True)
    s.add_argument("--device", required=True, help="the device the churn deletes and re-adds")
    s.add_argument("--seconds", type=float, required=True, help="the churn's length asked for")
    s.add_argument("--sanitizer", action="store_true", help="the binaries are an ASan build")
    s.set_defaults(func=cmd_soak)

    s = sub.add_parser("gpu-watch")
    s.add_argument("--watch", required=True)
    s.add_argument("--rdma-device", required=True)
    s.set_defaults(func=cmd_gpu_watch)

    s = sub.add_parser("capture")
    for opt in ("--c", "--c-user", "--c-some", "--c-snapshot", "--rdma", "--errors", "--py",
                "--busy", "--idle"):
        s.add_argument(opt, required=True)
    s.add_argument("--seconds", type=float, required=True)
    s.add_argument("--interval-ms", type=float, required=True)
    s.set_defaults(func=cmd_capture)

    s = sub.add_parser("capture-record")
    for opt in ("--csv", "--trace", "--busy", "--idle"):
        s.add_argument(opt, required=True)
    s.add_argument("--seconds", type=float, required=True, help="the recording's --duration")
    s.set_defaults(func=cmd_capture_record)

    s = sub.add_parser("screenshot")
    s.add_argument("--png", required=True)
    s.add_argument("--colours", type=int, default=64)
    s.add_argument("--near", action="append", help="RRGGBB:N, pixels near that colour in at least N columns")
    s.set_defaults(func=cmd_screenshot)

    # The guest queued these arguments with its own paths: map its results
    # share onto the host's copy.
    host = os.environ.get("VM_RESULTS_DIR")
    argv = [host + x[len("/results"):] if host and x.startswith("/results/") else x
            for x in sys.argv[1:]]
    a = ap.parse_args(argv)
    LABEL = f"[{a.label}] " if a.label else ""
    try:
        a.func(a)
    except (OSError, ValueError, zlib.error, struct.error, KeyError, TypeError, IndexError, AttributeError) as e:
        ok(False, f"{a.check} check ran to completion", f"{type(e).__name__}: {e}")
    sys.exit(1 if FAILED else 0)


if __name__ == "__main__":
    main()
