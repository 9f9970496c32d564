#!/bin/bash
# rdmatop's netlink layer against a real kernel RDMA stack, and its cost.
# Runs inside the Soft-RoCE test guest:
#
#   tests/vm/vm-run.sh --builddir BUILD tests/bench/nl-vm-check.sh [PASSES]
#
# 1. Two rxe devices, a user QP/MR/context (ibv_rc_pingpong waiting for a
#    peer) and a device added and removed while a monitor socket listens;
#    nl-probe's parsed output is compared with `rdma -j ...` and the events
#    with what was done (nl-vm-compare.py), as root and as a user without
#    capabilities.
# 2. 16 rxe devices: nl-probe (RtopNl + parsers) and nl-floor (bare libmnl)
#    run the same requests, interleaved in 5 rounds; their CPU time per pass
#    and the ratio are printed, and so is the CPU time of `rdma -j statistic
#    show` + `rdma -j res show qp`.  Numbers from a TCG guest are only good
#    as ratios.
set -u
B=${RDMATOP_BUILDDIR:?run me through tests/vm/vm-run.sh --builddir}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PROBE=$B/tests/bench/nl-probe
FLOOR=$B/tests/bench/nl-floor
OUT=${RDMATOP_RESULTS:-/tmp}/nl-vm-check
PASSES=${1:-100}
mkdir -p "$OUT"

die () { echo "FAIL: $*"; exit 1; }
mkrxe () {
  ip link add "d$1" type dummy && ip addr add "10.210.$1.1/24" dev "d$1" &&
    ip link set "d$1" up && rdma link add "rxe$1" type rxe netdev "d$1" ||
    die "cannot create rxe$1"
}
as_user () {
  setpriv --reuid=4242 --regid=4242 --clear-groups --inh-caps=-all \
    --bounding-set=-all --no-new-privs "$@"
}

[ -x "$PROBE" ] && [ -x "$FLOOR" ] || die "nl-probe / nl-floor are not built in $B"
modprobe rdma_rxe && modprobe dummy || die "modprobe"
getent passwd rdmatest >/dev/null || echo "rdmatest:x:4242:4242::/tmp:/bin/sh" >>/etc/passwd

# --- 1: correctness -------------------------------------------------------
mkrxe 0
mkrxe 1
sleep 2
"$PROBE" --monitor 10 >"$OUT/events.jsonl" 2>"$OUT/events.err" &
mon=$!
for _ in $(seq 100); do grep -q ready "$OUT/events.jsonl" 2>/dev/null && break; sleep 0.1; done
ip link add dmon type dummy && ip link set dmon up || die "dmon"
rdma link add rxemon type rxe netdev dmon || die "rdma link add rxemon"
sleep 1
rdma link delete rxemon || die "rdma link delete rxemon"
ibv_rc_pingpong -d rxe0 -g 1 -p 18515 >/dev/null 2>&1 &
pp=$!
sleep 3
"$PROBE" >"$OUT/probe-root.jsonl" 2>"$OUT/probe-root.err" || die "nl-probe: $(cat "$OUT/probe-root.err")"
"$PROBE" --res-without-index >"$OUT/res-without-index.jsonl" 2>&1
as_user "$PROBE" >"$OUT/probe-user.jsonl" 2>"$OUT/probe-user.err" ||
  die "nl-probe as a user: $(cat "$OUT/probe-user.err")"
for what in "dev show" "link show" "statistic show" "res show qp" "res show mr" "res show ctx"; do
  rdma -j $what >"$OUT/rdma-${what// /-}.json" || die "rdma -j $what"
done
kill "$pp" 2>/dev/null
wait "$mon"
python3 "$HERE/nl-vm-compare.py" "$OUT"
rc=$?

# --- 2: cost --------------------------------------------------------------
for i in $(seq 2 15); do mkrxe "$i"; done
sleep 3
[ "$(rdma dev | wc -l)" -eq 16 ] || die "expected 16 rxe devices"
: >"$OUT/timing.txt"
for round in 1 2 3 4 5; do
  "$FLOOR" --passes "$PASSES" | sed "s/^/floor $round: /" >>"$OUT/timing.txt" || die "nl-floor"
  "$PROBE" --passes "$PASSES" | sed "s/^/probe $round: /" >>"$OUT/timing.txt" || die "nl-probe --passes"
done
TIMEFORMAT='%U %S'
{ time (for _ in $(seq 10); do
          rdma -j statistic show >/dev/null; rdma -j res show qp >/dev/null
        done); } 2>"$OUT/rdma-time.txt"
cat "$OUT/timing.txt"
python3 - "$OUT/timing.txt" "$OUT/rdma-time.txt" <<'PY'
import re, statistics, sys
runs = {"floor": [], "probe": []}
for line in open(sys.argv[1]):
    m = re.match(r"(floor|probe) \d+: cpu_us_per_pass=([0-9.]+) user_us_per_pass=([0-9.]+)", line)
    if m:
        runs[m.group(1)].append((float(m.group(2)), float(m.group(3))))
med = {k: (statistics.median(c for c, _ in v), statistics.median(u for _, u in v))
       for k, v in runs.items()}
user, sys_ = map(float, open(sys.argv[2]).read().split())
rdma_us = (user + sys_) * 1e6 / 10
print(f"# cpu per pass, 16 devices (medians of 5 rounds): floor {med['floor'][0]:.0f} us "
      f"(user {med['floor'][1]:.0f}), rtop-nl {med['probe'][0]:.0f} us (user {med['probe'][1]:.0f}); "
      f"ratio {med['probe'][0] / med['floor'][0]:.3f}, user-space ratio "
      f"{med['probe'][1] / med['floor'][1]:.2f}")
print(f"# rdma -j statistic show + rdma -j res show qp: {rdma_us:.0f} us cpu "
      f"({rdma_us / med['floor'][0]:.1f}x the floor)")
PY
exit $rc
