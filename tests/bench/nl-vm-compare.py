#!/usr/bin/env python3
"""Compares nl-probe's parsed netlink replies with `rdma -j` output.

Usage: nl-vm-compare.py DIR   (files written by nl-vm-check.sh)
Prints "ok - ..." / "not ok - ..." lines and "N passed, M failed", adds
each result to $RDMATOP_RESULTS/tally for the vm harness; exits 1 when a
check failed.
"""
import json
import os
import sys

RDMA_STATE = {"DOWN": 1, "INIT": 2, "ARMED": 3, "ACTIVE": 4, "ACTIVE_DEFER": 5}
RDMA_PHYS = {"SLEEP": 1, "POLLING": 2, "DISABLED": 3, "PORT_CONFIGURATION_TRAINING": 4,
             "LINK_UP": 5, "LINK_ERROR_RECOVERY": 6, "PHY_TEST": 7}
RESULTS = []


# The vm harness totals "ok"/"fail" lines from this file (tests/vm/vm-run.sh).
TALLY = os.path.join(os.environ["RDMATOP_RESULTS"], "tally") if "RDMATOP_RESULTS" in os.environ else None


def check(desc, cond, detail=""):
    RESULTS.append(bool(cond))
    print(("ok - " if cond else "not ok - ") + desc + ("" if cond else f": {detail}"))
    if TALLY:
        with open(TALLY, "a") as f:
            f.write("ok\n" if cond else "fail\n")


def load_jsonl(path):
    out = {}
    with open(path) as f:
        for line in f:
            obj = json.loads(line)
            (key, val), = obj.items()
            out.setdefault(key, []).append(val)
    return out


def main(d):
    probe = load_jsonl(os.path.join(d, "probe-root.jsonl"))
    rdma = {name: json.load(open(os.path.join(d, f"rdma-{name}.json")))
            for name in ("dev-show", "link-show", "statistic-show",
                         "res-show-qp", "res-show-mr", "res-show-ctx")}

    sys_ = probe.get("sys", [{}])[0]
    check("SYS_GET reports monitor mode 1", sys_.get("has_monitor_mode") and sys_.get("monitor_mode") == 1, sys_)

    devs = {x["name"]: x for x in probe.get("device", [])}
    want = {x["ifname"]: x for x in rdma["dev-show"]}
    check("devices match rdma dev", set(devs) == set(want), f"{sorted(devs)} vs {sorted(want)}")
    for name, r in want.items():
        p = devs.get(name, {})
        check(f"{name}: index and node GUID", p.get("index") == r["ifindex"] and
              p.get("node_guid") == r["node_guid"].replace(":", ""), f"{p} vs {r}")

    ports = {(x["dev"], x["port"]): x for x in probe.get("port", [])}
    want = {(x["ifname"], x["port"]): x for x in rdma["link-show"]}
    check("ports match rdma link", set(ports) == set(want), f"{sorted(ports)} vs {sorted(want)}")
    for key, r in want.items():
        p = ports.get(key, {})
        check(f"{key}: state, physical state, netdev",
              p.get("state") == RDMA_STATE.get(r["state"]) and
              p.get("phys_state") == RDMA_PHYS.get(r["physical_state"]) and
              p.get("ndev") == r.get("netdev", "") and p.get("ndev_index") == r.get("netdev_index", 0),
              f"{p} vs {r}")

    stats = {(x["dev"], x["port"]): x["counters"] for x in probe.get("stat", [])}
    for r in rdma["statistic-show"]:
        key = (r["ifname"], r["port"])
        want_c = {k: v for k, v in r.items() if k not in ("ifname", "port")}
        check(f"{key}: hw counters equal rdma statistic (idle)", stats.get(key) == want_c,
              f"{stats.get(key)} vs {want_c}")

    res = probe.get("res", [])
    for kind, name, idkey in (("qp", "res-show-qp", "lqpn"), ("mr", "res-show-mr", "mrn"),
                              ("ctx", "res-show-ctx", "ctxn")):
        got = {(x["dev"], x["id"]): x for x in res if x["kind"] == kind}
        exp = {(x["ifname"], x[idkey]): x for x in rdma[name]}
        check(f"{kind}: same objects as rdma res show {kind}", set(got) == set(exp),
              f"{sorted(got)} vs {sorted(exp)}")
        for key, r in exp.items():
            p = got.get(key, {})
            pid_ok = p.get("pid") == r["pid"] if "pid" in r else p.get("pid") == -1
            check(f"{kind} {key}: owner pid", pid_ok, f"{p} vs {r}")
            if kind == "mr":
                check(f"mr {key}: length", p.get("mr_len") == r["mrlen"], f"{p} vs {r}")
    check("a user QP with a pid is seen", any(x["kind"] == "qp" and x["pid"] > 0 for x in res), res)

    with open(os.path.join(d, "probe-root.jsonl")) as a, open(os.path.join(d, "probe-user.jsonl")) as b:
        check("an unprivileged user reads the same", a.read() == b.read())

    ev = load_jsonl(os.path.join(d, "events.jsonl")).get("event", [])
    seq = [(e["type"], e["dev"]) for e in ev if e["dev"] == "rxemon"]
    check("monitor: register, netdev attach, unregister of rxemon",
          seq[:1] == [(0, "rxemon")] and (2, "rxemon") in seq and seq[-1:] == [(1, "rxemon")], ev)
    attach = [e for e in ev if e["type"] == 2 and e["dev"] == "rxemon"]
    check("monitor: attach event names the netdev", attach and attach[0]["ndev"] == "dmon", attach)

    # The kernel contract rdmatop relies on: resource dumps are per device.
    rwi = load_jsonl(os.path.join(d, "res-without-index.jsonl"))
    raw = rwi.get("res_without_index", [{}])[0]
    check("the kernel refuses a RES_QP_GET dump without DEV_INDEX (dumps are per device)",
          raw.get("ok") is False and "Invalid argument" in raw.get("message", ""), raw)
    fan = rwi.get("res_fan_out", [{}])[0]
    check("asked device by device, as rdmatop asks: all QPs",
          fan.get("qps") == len(rdma["res-show-qp"]), f"{fan} vs {len(rdma['res-show-qp'])}")

    passed, failed = RESULTS.count(True), RESULTS.count(False)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
