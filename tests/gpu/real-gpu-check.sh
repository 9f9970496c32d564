#!/bin/sh
# real-gpu-check.sh: rdmatop's GPU (and RDMA) view against the vendor tools,
# on a machine with a real NVIDIA GPU.  Not part of any test suite: run it
# by hand where such a machine is at hand, and keep what it prints.
#
# Usage: tests/gpu/real-gpu-check.sh [RDMATOP_CLI] [OUT_DIR]
#   RDMATOP_CLI  the rdmatop-cli to check (default: build/src/cli/rdmatop-cli)
#   OUT_DIR      where the raw outputs go (default: a new temporary folder)
#
# It saves, side by side, `rdmatop-cli snapshot --json`, `nvidia-smi -q`,
# `nvidia-smi nvlink -s`, `nvidia-smi nvlink -gt d`, `rdma -j dev` and
# `rdma -j statistic show` (the counter views just before and just after
# the snapshot), then compares:
#   - GPU count, names, PCI bus ids, memory total with nvidia-smi -q;
#   - per GPU, the links rdmatop lists and their state and speed with
#     nvidia-smi nvlink -s;
#   - the GPU-wide NVLink data counters (KiB) with nvidia-smi nvlink -gt d
#     (the sum over its links; NVML counts throughput per GPU);
#   - the RDMA devices and their ports with rdma -j dev, and each port's hw
#     counters with rdma -j statistic show.
# Each check prints "ok" or "MISMATCH"; the exit status is the number of
# mismatches (0: all agree).  Counters keep moving, so rdmatop's value of
# a counter must lie between the tool's reads before and after it.
set -u

cli=${1:-build/src/cli/rdmatop-cli}
out=${2:-$(mktemp -d "${TMPDIR:-/tmp}/rdmatop-gpu-check.XXXXXX")}
mkdir -p "$out"
echo "# outputs in $out"

run() {
  name=$1; shift
  if "$@" > "$out/$name" 2> "$out/$name.err"; then
    echo "# $name: saved"
  else
    echo "# $name: '$*' failed (exit $?): $(head -c 300 "$out/$name.err")"
  fi
}

# Counters move while the tools run: read the vendor tools' counters just
# before and just after rdmatop's snapshot, and expect rdmatop's between.
run nvlink-gt.txt nvidia-smi nvlink -gt d
run rdma-stat.json rdma -j statistic show
run rdmatop.json "$cli" snapshot --json
run rdma-stat-2.json rdma -j statistic show
run nvlink-gt-2.txt nvidia-smi nvlink -gt d
run nvidia-smi-q.txt nvidia-smi -q
run nvlink-s.txt nvidia-smi nvlink -s
run rdma-dev.json rdma -j dev
run nvidia-smi-csv.txt nvidia-smi --query-gpu=index,name,pci.bus_id,memory.total,memory.used,temperature.gpu,power.draw,utilization.gpu --format=csv,noheader,nounits

exec python3 - "$out" <<'PYEOF'
import json, re, sys, os

out = sys.argv[1]
bad = 0

def say(ok, what):
    global bad
    if not ok:
        bad += 1
    print(("ok        " if ok else "MISMATCH  ") + what)

def load_json(name):
    try:
        with open(os.path.join(out, name)) as f:
            text = f.read().strip()
        return json.loads(text.splitlines()[-1] if text.startswith("{") and "\n{" in text else text)
    except Exception as e:
        print("# cannot read %s: %s" % (name, e))
        return None

def text(name):
    try:
        with open(os.path.join(out, name)) as f:
            return f.read()
    except OSError:
        return ""

def close(a, b, rel=0.01, absolute=64):
    return abs(a - b) <= max(absolute, rel * max(abs(a), abs(b)))

snap = load_json("rdmatop.json")
if snap is None:
    print("rdmatop gave no snapshot: nothing to compare")
    sys.exit(1)
print("# rdmatop status: %s; gpu_status: %s" % (snap.get("status"), snap.get("gpu_status")))
gpus = [d for d in snap["devices"] if d.get("kind") == "gpu" and d.get("provider") == "nvml"]
rdma = [d for d in snap["devices"] if d.get("kind") != "gpu"]

# --- GPUs against nvidia-smi --query-gpu (one line per GPU, by index) ---
rows = [l.split(", ") for l in text("nvidia-smi-csv.txt").splitlines() if l.strip()]
say(len(rows) == len(gpus), "GPU count: nvidia-smi %d, rdmatop %d" % (len(rows), len(gpus)))
by_name = {d["name"]: d for d in gpus}
for r in rows:
    if len(r) < 8:
        continue
    idx, name, bus, mem_total = r[0], r[1], r[2], r[3]
    d = by_name.get("nvidia" + idx)
    if d is None:
        say(False, "GPU %s (%s): not in rdmatop" % (idx, name))
        continue
    g = d["gpu"]
    say(g.get("model") == name, "GPU %s name: nvidia-smi %r, rdmatop %r" % (idx, name, g.get("model")))
    say((g.get("pci_bus_id") or "").lower() == bus.lower(),
        "GPU %s PCI bus id: nvidia-smi %s, rdmatop %s" % (idx, bus, g.get("pci_bus_id")))
    try:
        mib = float(mem_total)
        say(g.get("memory_total_bytes") is not None and close(g["memory_total_bytes"] / 1048576, mib, 0.01, 2),
            "GPU %s memory total: nvidia-smi %s MiB, rdmatop %s B" % (idx, mem_total, g.get("memory_total_bytes")))
    except ValueError:
        pass
    print("# GPU %s gauges: nvidia-smi temp %s C, power %s W, util %s %%; rdmatop %s C, %s W, %s %%"
          % (idx, r[5], r[6], r[7], g.get("temperature_c"), g.get("power_w"), g.get("utilisation_pct")))

# --- links against nvidia-smi nvlink -s ---
# "GPU 0: NVIDIA H100 ... (UUID: ...)" then "\t Link 0: 26.562 GB/s" or "Link 3: <inactive>"
links_smi = {}
gpu = None
for line in text("nvlink-s.txt").splitlines():
    m = re.match(r"GPU (\d+):", line)
    if m:
        gpu = int(m.group(1)); links_smi[gpu] = {}
        continue
    m = re.match(r"\s*Link (\d+): (.*)", line)
    if m and gpu is not None:
        links_smi[gpu][int(m.group(1))] = m.group(2).strip()
for gi, links in sorted(links_smi.items()):
    d = by_name.get("nvidia%d" % gi)
    if d is None:
        continue
    ours = {p["link"]: p for p in d["ports"] if p.get("scope") == "link"}
    say(set(ours) == set(links), "GPU %d links: nvidia-smi %s, rdmatop %s" % (gi, sorted(links), sorted(ours)))
    for li, what in sorted(links.items()):
        p = ours.get(li)
        if p is None:
            continue
        inactive = "inactive" in what.lower()
        say((p["state"] == "DOWN") == inactive, "GPU %d link %d state: nvidia-smi %r, rdmatop %s" % (gi, li, what, p["state"]))
        m = re.match(r"([\d.]+) GB/s", what)
        if m and p.get("rate_gbps"):
            say(close(p["rate_gbps"] / 8, float(m.group(1)), 0.02, 0.05),
                "GPU %d link %d speed: nvidia-smi %s GB/s, rdmatop %.3f GB/s" % (gi, li, m.group(1), p["rate_gbps"] / 8))

# --- NVLink data counters against nvidia-smi nvlink -gt d (KiB) ---
# "GPU 0: ..." then "\t Link 0: Data Tx: 123 KiB" / "Data Rx: 456 KiB"
def gt_totals(name):
    tot = {}
    gpu = None
    for line in text(name).splitlines():
        m = re.match(r"GPU (\d+):", line)
        if m:
            gpu = int(m.group(1)); tot[gpu] = {"tx": 0, "rx": 0}
            continue
        m = re.search(r"Data (Tx|Rx): (\d+) KiB", line)
        if m and gpu is not None:
            tot[gpu][m.group(1).lower()] += int(m.group(2))
    return tot
before, after = gt_totals("nvlink-gt.txt"), gt_totals("nvlink-gt-2.txt")
for gi, t in sorted(before.items()):
    d = by_name.get("nvidia%d" % gi)
    if d is None:
        continue
    all_links = [p for p in d["ports"] if p.get("scope") == "gpu"]
    counters = all_links[0].get("gpu_counters", {}) if all_links else {}
    for k in ("tx", "rx"):
        ours = counters.get("nvlink_data_%s_kib" % k)
        if ours is None:
            say(False, "GPU %d NVLink data %s: rdmatop has no counter" % (gi, k))
            continue
        lo, hi = t[k], after.get(gi, t)[k]
        say(lo <= ours <= hi,
            "GPU %d NVLink data %s: nvidia-smi %d..%d KiB (sum of links), rdmatop %d KiB (GPU-wide)" % (gi, k, lo, hi, ours))

# --- RDMA devices against rdma -j dev / statistic show ---
rd = load_json("rdma-dev.json") or []
names = sorted(d.get("ifname") for d in rd)
say(names == sorted(d["name"] for d in rdma), "RDMA devices: rdma %s, rdmatop %s" % (names, sorted(d["name"] for d in rdma)))
stats = load_json("rdma-stat.json") or []
stats_after = {(e.get("ifname"), e.get("port")): e for e in (load_json("rdma-stat-2.json") or [])}
by_dev = {d["name"]: d for d in rdma}

def hw_counters(entry):
    # rdma -j statistic show: the counters are keys beside ifname and port.
    return {k: v for k, v in entry.items() if isinstance(v, int) and k not in ("port", "ifindex")}

for st in stats:
    d = by_dev.get(st.get("ifname"))
    if d is None:
        continue
    port = next((p for p in d["ports"] if p["port"] == st.get("port")), None)
    if port is None:
        say(False, "%s/%s: not in rdmatop" % (st.get("ifname"), st.get("port")))
        continue
    ours = port.get("counters", {})
    before = hw_counters(st)
    after = hw_counters(stats_after.get((st.get("ifname"), st.get("port")), st))
    missing = sorted(set(before) - set(ours))
    say(not missing, "%s/%s hw counters: %d in rdma, %d in rdmatop, missing %s"
        % (st["ifname"], st["port"], len(before), len(ours), missing[:8]))
    off = [(k, before[k], ours[k], after.get(k)) for k in before
           if k in ours and not (before[k] <= ours[k] <= after.get(k, before[k]))]
    say(not off, "%s/%s counters between rdma's reads before and after: %s"
        % (st["ifname"], st["port"], off[:6] or "all"))

print("# %d mismatch(es)" % bad)
sys.exit(min(bad, 100))
PYEOF
