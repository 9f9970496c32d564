#!/bin/bash
# Guest script (tests/vm/vm-run.sh): records the RDMA netlink replies of a
# sampling pass on a real kernel, for tests/bench/replay-cost.
#
#   tests/vm/vm-run.sh --builddir BUILD --timeout 600 tests/bench/guest-record.sh devices=16 qps=1000
#   BUILD/tests/bench/replay-cost RESULTS/replies.bin
#   valgrind --tool=callgrind --toggle-collect=measured_passes \
#     BUILD/tests/bench/replay-cost RESULTS/replies.bin --passes 200
#
# Arguments (key=value): devices=N Soft-RoCE devices (16), qps=N QPs held
# on rxe0 by four qp-holder processes (0).  The file lands in vm-run's
# results folder (RDMATOP_VM_RESULTS keeps it).
. "$RDMATOP_VM_DIR/guest-lib.sh"

devices=16
qps=0
for arg in "$@"; do
  case "$arg" in
    devices=*) devices=${arg#*=} ;;
    qps=*) qps=${arg#*=} ;;
    *) vm_die "unknown argument '$arg'" ;;
  esac
done

vm_init
[ -x "$VM_BUILDDIR/tests/bench/nl-floor" ] || vm_die "nl-floor is not built"
vm_dummy_rxes $(seq 0 $((devices - 1)))
if [ "$qps" -gt 0 ]; then
  for i in 0 1 2 3; do
    n=$((qps / 4))
    [ "$i" -eq 0 ] && n=$((qps - 3 * (qps / 4)))
    vm_bg "$VM_QP_HOLDER" --device rxe0 --qps "$n" --ready-file "/tmp/holder-$i.ready"
  done
  for i in 0 1 2 3; do
    vm_wait_for "qp-holder $i" 900 test -e "/tmp/holder-$i.ready"
  done
fi
vm_check "replies recorded ($devices devices, $qps QPs)" \
  "$VM_BUILDDIR/tests/bench/nl-floor" --netdev-stats --passes 1 \
  --record "${RDMATOP_RESULTS:-/tmp}/replies.bin"
vm_finish
