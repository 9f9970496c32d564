#!/bin/bash
# Scenario 2 (and 6): during ib_write_bw between two devices, packet rates
# are non-zero on those two and zero on the idle ones; the process list
# shows the perftest processes (and a qp-holder on an idle device) with
# the QPs and MRs that `rdma -j res show` counts, as root and as a user.
. "$RDMATOP_VM_DIR/guest-lib.sh"
vm_init
O=$VM_OUT
COUNT=5

vm_rxe_pair rxe0 v0 10.220.0.1 rxe1 v1 10.220.0.2
vm_dummy_rxe rxe2 d2 10.210.2.1
vm_dummy_rxe rxe3 d3 10.210.3.1
vm_qp_holder rxe3 50
# rxe1 serves, rxe0 writes; long enough to outlast both watchers.
vm_perftest write rxe1 rxe0 10.220.0.2 120

vm_watch_bg "$O/watch-root.json" --interval 1 --count "$COUNT"
root_watch=$VM_WATCH_PID
vm_watch_bg "$O/watch-user.json" --user --interval 1 --count "$COUNT"
wait "$root_watch" "$VM_WATCH_PID"
# The QPs and MRs the last passes saw are still there: record rdma's view.
vm_rdma_json "$O/during"
vm_check "ib_write_bw server still runs" kill -0 "$VM_SERVER_PID"
vm_check "ib_write_bw client still runs" kill -0 "$VM_CLIENT_PID"
vm_is "watch as root exited 0" "$(cat "$O/watch-root.json.rc")" 0
vm_is "watch as $VM_USER exited 0" "$(cat "$O/watch-user.json.rc")" 0

for who in root user; do
  vm_pycheck --label "$who" traffic --watch "$O/watch-$who.json" --count "$COUNT" \
    --client rxe0 --server rxe1 --idle rxe2,rxe3 --rdma "$O/during" \
    --pids "$VM_SERVER_PID,$VM_CLIENT_PID,$VM_HOLDER_PID" \
    --holder-pid "$VM_HOLDER_PID" --holder-qps 50
done
vm_finish
