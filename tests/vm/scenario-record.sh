#!/bin/bash
# Recording (issue 5) on a real kernel RDMA stack: during ib_write_bw from
# rxe0 to rxe1, `rdmatop-cli record` writes a trace whose tx track on the
# busy device is non-zero and on the idle device zero; it ends with a
# complete file on SIGTERM (JSON), at --duration (JSON.gz) and for CSV.
. "$RDMATOP_VM_DIR/guest-lib.sh"
vm_init
O=$VM_OUT

vm_rxe_pair rxe0 v0 10.220.0.1 rxe1 v1 10.220.0.2
# The idle device's netdev must stay silent: without IPv6 it sends no
# router or neighbour solicitations of its own.
sysctl -qw net.ipv6.conf.default.disable_ipv6=1
vm_dummy_rxe rxe2 d2 10.210.2.1
vm_log "devices ready, starting ib_write_bw"
vm_perftest write rxe1 rxe0 10.220.0.2 120
vm_log "traffic running"
# What a single pass sees, next to the recordings (to explain a failure).
"$VM_CLI" snapshot --json >"$O/snapshot.json" 2>"$O/snapshot.err"
rdma -j res show qp >"$O/qp.json" 2>&1

# 1. Until SIGTERM, as Ctrl-C or a service manager would stop it.
rm -f "$O/rec.json" "$O/rec.json.partial"
"$VM_CLI" record --output "$O/rec.json" --interval 0.5 >"$O/rec.out" 2>"$O/rec.err" &
rec_pid=$!
vm_wait_for "the partial trace" 20 test -s "$O/rec.json.partial"
sleep 6
kill -TERM "$rec_pid"
rc=0
wait "$rec_pid" || rc=$?
vm_is "record exits 0 on SIGTERM" "$rc" 0
vm_check "the trace is at its name" test -s "$O/rec.json"
vm_check "no partial file is left" test ! -e "$O/rec.json.partial"
[ "$rc" = 0 ] || vm_log "record stderr: $(head -c 500 "$O/rec.err")"

# 2. Until --duration, gzip.
rc=0
"$VM_CLI" record --output "$O/rec.json.gz" --duration 3 --interval 0.5 \
  >"$O/recgz.out" 2>"$O/recgz.err" || rc=$?
vm_is "record --duration exits 0" "$rc" 0

# 3. CSV of two devices.
rc=0
"$VM_CLI" record --output "$O/rec.csv" --duration 2 --interval 0.5 --device rxe0,rxe2 \
  >"$O/reccsv.out" 2>"$O/reccsv.err" || rc=$?
vm_is "record --format csv (from the name) exits 0" "$rc" 0

# 4. Never overwrites.
rc=0
"$VM_CLI" record --output "$O/rec.json" --duration 1 >/dev/null 2>"$O/exists.err" || rc=$?
vm_is "record refuses an existing file (exit 1)" "$rc" 1

check_trace () {
  python3 - "$@" <<'EOF'
import gzip, json, sys

path, busy, idle, peer = sys.argv[1:5]
opener = gzip.open if path.endswith(".gz") else open
with opener(path, "rt") as f:
    trace = json.load(f)          # strict JSON: the file was closed
events = trace["traceEvents"]
assert trace["otherData"]["producer"] == "rdmatop", "not an rdmatop trace"
names = {e["pid"]: e["args"]["name"] for e in events
         if e["ph"] == "M" and e["name"] == "process_name"}
pid = {v: k for k, v in names.items()}

def series(group, name, key):
    return [e["args"][key] for e in events
            if e["ph"] == "C" and e["pid"] == pid[group] and e["name"] == name
            and key in e["args"]]

ok = True
def check(desc, cond):
    global ok
    print(("ok - " if cond else "not ok - ") + desc)
    ok &= bool(cond)

for c in (e for e in events if e["ph"] == "C"):
    if len(c["args"]) != 1 or not all(isinstance(v, (int, float)) for v in c["args"].values()):
        check("counter events have one numeric arg", False)
        break
check(f"{busy}/1 has a tx Gbps track", len(series(busy + "/1", "tx", "Gbps")) > 0)
check(f"{busy}/1 tx Gbps is non-zero", max(series(busy + "/1", "tx", "Gbps") or [0]) > 0)
check(f"{busy}/1 tx packets/s is non-zero", max(series(busy + "/1", "tx", "packets/s") or [0]) > 0)
if peer != "-":
    check(f"{peer}/1 rx Gbps is non-zero", max(series(peer + "/1", "rx", "Gbps") or [0]) > 0)
check(f"{idle}/1 has a tx Gbps track", len(series(idle + "/1", "tx", "Gbps")) > 0)
check(f"{idle}/1 tx Gbps is zero", all(v == 0 for v in series(idle + "/1", "tx", "Gbps")))
check(f"{idle}/1 tx packets/s is zero", all(v == 0 for v in series(idle + "/1", "tx", "packets/s")))
slices = [e for e in events if e["ph"] == "B" and e["name"] == "ib_write_bw"]
if peer != "-":
    check("ib_write_bw shows as a slice on the devices it uses", len(slices) >= 2)
ts = [e["ts"] for e in events if e["ph"] == "C" and e["name"] == "rdmatop"]
check("intervals are in time order", ts == sorted(ts) and len(ts) >= 3)
sys.exit(0 if ok else 1)
EOF
}

for f in rec.json rec.json.gz; do
  if VM_TALLY=$VM_TALLY check_trace "$O/$f" rxe0 rxe2 rxe1 >"$O/$f.check" 2>&1; then
    vm_ok "$f: busy and idle tracks as expected"
  else
    vm_not_ok "$f: $(grep -v '^ok' "$O/$f.check" | head -c 600)"
  fi
  cat "$O/$f.check"
done

check_csv () {
  python3 - "$1" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
by = {}
for r in rows:
    by.setdefault(r["device"], []).append(int(r["tx_packets"]))
assert set(by) == {"rxe0", "rxe2"}, f"devices {sorted(by)}"
assert by["rxe0"][-1] > by["rxe0"][0], "rxe0 tx_packets did not grow"
assert by["rxe2"][-1] == by["rxe2"][0], "rxe2 tx_packets moved"
mono = [int(r["monotonic_us"]) for r in rows]
assert mono == sorted(mono), "timestamps not monotonic"
print(f"{len(rows)} rows")
EOF
}
vm_check "rec.csv: rxe0 counts up, rxe2 stays, timestamps monotonic" check_csv "$O/rec.csv"
vm_finish
