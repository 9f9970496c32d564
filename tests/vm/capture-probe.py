"""The rdmatop Python package in the guest: one short run (Python starts
slowly under TCG), writing JSON for vmcheck.py's capture check.

Usage: capture-probe.py OUT.json BUSY IDLE

A snapshot of both devices; a 2 s capture at 1 ms of two counters of
both, read while it runs; the rates per (device, port, counter); and the errors the package
raises, with their messages."""

import json
import sys
import time

import rdmatop

out, busy, idle = sys.argv[1:4]
result = {"version": rdmatop.library_version()}

snap = rdmatop.snapshot([busy, idle])
result["snapshot"] = {d.name: {str(p.number): {"state": p.state, "counters": p.counters}
                               for p in d.ports} for d in snap.devices}

series = {}
rate_sum = {}
# Two counters: Python under TCG reads fewer samples a second than a
# capture of all fifteen would take.
with rdmatop.Capture(devices=[busy, idle], interval=0.001, metrics=["sent_pkts", "rcvd_pkts"]) as cap:
    end = time.monotonic() + 2
    while time.monotonic() < end:
        time.sleep(0.2)
        for r in cap.rates():
            key = "%s/%d/%s" % (r.device, r.port, r.metric)
            rate_sum[key] = rate_sum.get(key, 0) + r.delta
            series[key] = series.get(key, 0) + 1
for r in cap.rates():
    key = "%s/%d/%s" % (r.device, r.port, r.metric)
    rate_sum[key] = rate_sum.get(key, 0) + r.delta
    series[key] = series.get(key, 0) + 1
result["stats"] = cap.stats._asdict()
result["rates"] = {k: {"n": series[k], "delta": rate_sum[k]} for k in series}

errors = {}
for kind, kwargs in (("interval", {"interval": 0.0001}),
                     ("device", {"devices": ["nosuchdev0"]}),
                     ("counter", {"metrics": ["no_such_counter"]})):
    try:
        rdmatop.Capture(**kwargs)
        errors[kind] = None
    except rdmatop.Error as e:
        errors[kind] = {"type": type(e).__name__, "value_error": isinstance(e, ValueError),
                        "message": str(e)}
result["errors"] = errors
cap.close()
with open(out, "w") as f:
    json.dump(result, f)
