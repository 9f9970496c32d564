#!/bin/bash
# Guest script (tests/vm/vm-run.sh) for the capture benchmark: one port
# (rxe0/1) captured by librdmatop (rdmatop-probe) at 1 ms and at 10 ms,
# idle and during ib_write_bw, and what one read of its counters costs
# over STAT_GET and over sysfs hw_counters (counter-read-cost).  Results
# in $RDMATOP_RESULTS/guest-capture/; capture-bench.sh prints the figures.
#
# Arguments: seconds=N per capture (default 5).
. "$RDMATOP_VM_DIR/guest-lib.sh"
vm_init
O=$VM_OUT
PROBE=$VM_BUILDDIR/tests/lib/rdmatop-probe
COST=$VM_BUILDDIR/tests/bench/counter-read-cost
seconds=5
for arg in "$@"; do
  case "$arg" in
    seconds=*) seconds=${arg#seconds=} ;;
    *) vm_die "unknown argument $arg" ;;
  esac
done
[ -x "$PROBE" ] && [ -x "$COST" ] || vm_die "rdmatop-probe or counter-read-cost is not built"

vm_rxe_pair rxe0 v0 10.220.0.1 rxe1 v1 10.220.0.2

capture () {
  local phase=$1 ms
  for ms in 1 10; do
    "$PROBE" capture --device rxe0 --port 1 --interval-ns $((ms * 1000000)) \
      --seconds "$seconds" >"$O/$phase-${ms}ms.json" 2>"$O/$phase-${ms}ms.err"
    vm_is "$phase capture at $ms ms exits 0" "$?" 0
  done
  "$COST" rxe0 1 --reads 500 --rounds 5 >"$O/$phase-read-cost.txt" 2>&1
  vm_is "$phase counter-read-cost exits 0" "$?" 0
}

capture idle
# Niced: both perftest ends poll their CQs and would otherwise take both
# guest CPUs (a real host has cores to spare).
VM_PERF_NICE=19 vm_perftest write rxe1 rxe0 10.220.0.2 120
capture busy
vm_finish
