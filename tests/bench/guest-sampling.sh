#!/bin/bash
# Guest script (tests/vm/vm-run.sh) for benchmark 1 and 2 of issue 7: the
# CPU time of one rdmatop sampling pass at each scale, beside the netlink
# floor (nl-floor) and `rdma -j statistic show` + `rdma -j res show qp`,
# all measured here, in the same guest, one after the other.
#
# Arguments (key=value, all optional):
#   devices=1,16,64     Soft-RoCE device counts
#   qps=0,1000,10000    QPs held in total, spread over `holders` processes
#   holders=4           qp-holder processes added per QP step (on rxe0)
#   passes=40           timed passes per round at 0 QPs (fewer with QPs:
#                       passes * 1000 / (1000 + qps / 10), at least 5)
#   rounds=4            floor/rdmatop rounds per cell, alternated
#   rdma-runs=3         runs of the two `rdma` commands per cell
#
# Every device is Soft-RoCE, whose byte counters rdmatop takes from the
# netdev with one routing netlink dump per pass: the floor makes that
# dump too (nl-floor --netdev-stats), so both ask the kernel the same.
#
# Devices only ever grow (creating a Soft-RoCE device takes about a second
# in the guest, deleting one as long); at each device count the QP levels
# are visited in ascending order and the holders are stopped after the
# last (creating 10,000 QPs takes seconds).
# Results: $RDMATOP_RESULTS/sampling.txt, one key=value line per
# measurement; run-benchmarks.sh turns them into the table.
. "$RDMATOP_VM_DIR/guest-lib.sh"

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SAMPLE_COST=$VM_BUILDDIR/tests/bench/sample-cost
NL_FLOOR=$VM_BUILDDIR/tests/bench/nl-floor
OUT=${RDMATOP_RESULTS:-/tmp}/sampling.txt

devices_list=1,16,64
qps_list=0,1000,10000
holders=4
passes=40
rounds=4
rdma_runs=3
for arg in "$@"; do
  case "$arg" in
    devices=*) devices_list=${arg#*=} ;;
    qps=*) qps_list=${arg#*=} ;;
    holders=*) holders=${arg#*=} ;;
    passes=*) passes=${arg#*=} ;;
    rounds=*) rounds=${arg#*=} ;;
    rdma-runs=*) rdma_runs=${arg#*=} ;;
    *) vm_die "unknown argument '$arg'" ;;
  esac
done

vm_init
for exe in "$SAMPLE_COST" "$NL_FLOOR" "$VM_QP_HOLDER"; do
  [ -x "$exe" ] || vm_die "$exe is not built"
done
: >"$OUT"

record () {
  echo "$*" >>"$OUT"
  echo "# $*"
}

n_devices=0
n_qps=0
n_holders=0

# set_devices N: rxe0..rxe(N-1) exist, each on its own dummy netdev.
set_devices () {
  local want=$1 t0=$SECONDS
  if [ "$n_devices" -lt "$want" ]; then
    # rxeI on dummy dI, 10.210.I.1; one `ip -batch` and one `rdma -b`.
    vm_dummy_rxes $(seq "$n_devices" $((want - 1)))
    n_devices=$want
  fi
  while [ "$n_devices" -gt "$want" ]; do
    n_devices=$((n_devices - 1))
    vm_rxe_delete "rxe$n_devices"
    ip link del "d$n_devices" || vm_die "ip link del d$n_devices"
  done
  vm_log "$n_devices devices ($((SECONDS - t0)) s)"
}

# add_qps N: N more QPs on rxe0, in `holders` new processes created in
# parallel.
add_qps () {
  local more=$1 each i n ready=() t0=$SECONDS f
  [ "$more" -gt 0 ] || return 0
  each=$((more / holders))
  for ((i = 0; i < holders; i++)); do
    n=$each
    [ "$i" -eq 0 ] && n=$((more - each * (holders - 1)))
    [ "$n" -gt 0 ] || continue
    f=/tmp/holder-$n_holders.ready
    vm_bg "$VM_QP_HOLDER" --device rxe0 --qps "$n" --ready-file "$f"
    n_holders=$((n_holders + 1))
    ready+=("$f")
  done
  for f in "${ready[@]}"; do
    vm_wait_for "qp-holder $f" 900 test -e "$f"
  done
  n_qps=$((n_qps + more))
  vm_log "$n_qps QPs in $n_holders processes ($((SECONDS - t0)) s for $more)"
}

# drop_qps: stops every holder (their QPs go with them) and waits until the
# kernel lists none of their QPs.
drop_qps () {
  local p
  for p in "${VM_BG_PIDS[@]}"; do
    kill "$p" 2>/dev/null
  done
  for p in "${VM_BG_PIDS[@]}"; do
    wait "$p" 2>/dev/null
  done
  VM_BG_PIDS=()
  n_qps=0
  n_holders=0
  vm_wait_for "the holders' QPs to go" 120 no_user_qps
}

no_user_qps () {
  [ "$(rdma -j res show qp | python3 -c 'import json,sys; print(sum(1 for q in json.load(sys.stdin) if "pid" in q))')" = 0 ]
}

# The key=value line a tool printed last, or error=... when it failed.
run_tool () {
  local out
  if out=$("$@" 2>&1); then
    printf '%s\n' "$out" | tail -n 1
  else
    printf 'error=%s\n' "$(printf '%s' "$out" | tr -s ' \n' '__' | head -c 200)"
  fi
}

measure_cell () {
  local p r t0=$SECONDS line
  p=$((passes * 1000 / (1000 + n_qps / 10)))
  [ "$p" -ge 5 ] || p=5
  # A round that is not counted: right after QPs were created the first
  # round has come out far too low (a tenth of the others) for the floor.
  run_tool "$NL_FLOOR" --netdev-stats --passes "$p" >/dev/null
  run_tool "$SAMPLE_COST" --passes "$p" --warmup 2 >/dev/null
  for ((r = 1; r <= rounds; r++)); do
    record "devices=$n_devices qps=$n_qps holders=$n_holders round=$r tool=nl-floor passes=$p" \
      "$(run_tool "$NL_FLOOR" --netdev-stats --passes "$p")"
    record "devices=$n_devices qps=$n_qps holders=$n_holders round=$r tool=sample-cost passes=$p" \
      "$(run_tool "$SAMPLE_COST" --passes "$p" --warmup 2)"
  done
  # What the floor and rdmatop saw, to be sure both looked at the same thing.
  line=$("$NL_FLOOR" --netdev-stats --passes 1 2>&1 | head -n 1)
  record "devices=$n_devices qps=$n_qps tool=nl-floor-info info=$(echo "$line" | tr ' ' '_')"
  line=$("$SAMPLE_COST" --passes 1 --warmup 0 2>&1 | head -n 1)
  record "devices=$n_devices qps=$n_qps tool=sample-cost-info info=$(echo "$line" | tr ' ' '_')"
  record "devices=$n_devices qps=$n_qps holders=$n_holders tool=rdma runs=$rdma_runs" \
    "$(run_tool python3 "$BENCH_DIR/cmd-cpu.py" --runs "$rdma_runs" \
         -- rdma -j statistic show -- rdma -j res show qp)"
  record "devices=$n_devices qps=$n_qps tool=rdma-qp-count count=$(rdma -j res show qp | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')"
  vm_log "cell $n_devices devices x $n_qps QPs: $((SECONDS - t0)) s"
}

IFS=, read -r -a dev_levels <<<"$devices_list"
IFS=, read -r -a qp_levels <<<"$qps_list"
record "guest kernel=$(uname -r) cpus=$(nproc) devices=$devices_list qps=$qps_list passes=$passes rounds=$rounds"
for d in "${dev_levels[@]}"; do
  [ "$d" -ge "$n_devices" ] || vm_die "device counts must ascend"
  set_devices "$d"
  for q in "${qp_levels[@]}"; do
    [ "$q" -ge "$n_qps" ] || vm_die "QP counts must ascend"
    add_qps $((q - n_qps))
    measure_cell
  done
  drop_qps
done
vm_ok "sampling benchmark ran at every scale"
vm_finish
