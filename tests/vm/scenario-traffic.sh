#!/bin/bash
# Scenarios 2, 3 (and 6) in one boot, as root and as an unprivileged user:
# 2. during ib_write_bw between two devices, packet rates are non-zero on
#    those two and zero on the idle ones; the process list shows the
#    perftest processes (and a qp-holder on an idle device) with the QPs
#    and MRs that `rdma -j res show` counts;
# 3. then, with netem dropping 1% of the writer's packets, the retransmits
#    metric rises and a health event is raised;
# then ib_write_bw over rdma_cm (-R): each end's QP in the process list has
# the peer address `rdma res show cm_id` gives its rdma_cm ID.
# The netem qdisc is in place (0% loss) before any traffic starts.
. "$RDMATOP_VM_DIR/guest-lib.sh"
vm_init
O=$VM_OUT

vm_rxe_pair rxe0 v0 10.220.0.1 rxe1 v1 10.220.0.2
vm_netem_loss v0 0
vm_dummy_rxe rxe2 d2 10.210.2.1
vm_dummy_rxe rxe3 d3 10.210.3.1
vm_qp_holder rxe3 1000
# rxe1 serves, rxe0 writes; long enough to outlast both watchers.
vm_log "devices ready, starting ib_write_bw"
vm_perftest write rxe1 rxe0 10.220.0.2 120
vm_log "traffic running"

vm_watch_bg "$O/watch-root.json" --interval 1 --count 5
root_watch=$VM_WATCH_PID
vm_watch_bg "$O/watch-user.json" --user --interval 1 --count 5
wait "$root_watch" "$VM_WATCH_PID"
# The QPs and MRs the last passes saw are still there: record rdma's view.
vm_rdma_json "$O/during" qp mr
vm_check "ib_write_bw server still runs" kill -0 "$VM_SERVER_PID"
vm_check "ib_write_bw client still runs" kill -0 "$VM_CLIENT_PID"
vm_is "watch as root exited 0" "$(cat "$O/watch-root.json.rc")" 0
vm_is "watch as $VM_USER exited 0" "$(cat "$O/watch-user.json.rc")" 0

for who in root user; do
  vm_pycheck --label "$who" traffic --watch "$O/watch-$who.json" --count 5 \
    --client rxe0 --server rxe1 --idle rxe2,rxe3 --rdma "$O/during" \
    --pids "$VM_SERVER_PID,$VM_CLIENT_PID,$VM_HOLDER_PID" \
    --holder-pid "$VM_HOLDER_PID" --holder-qps 1000
done

vm_log "loss phase"
# Go-back-N: a loss makes the sender resend everything in flight after a
# timeout.  With 64 KiB messages and 128 in flight nearly every resend
# loses a packet again and the QP fails (retry exceeded); 4 KiB messages,
# 8 in flight, keep it resending.
kill "$VM_CLIENT_PID" "$VM_SERVER_PID"
wait "$VM_CLIENT_PID" "$VM_SERVER_PID" 2>/dev/null
vm_perftest write rxe1 rxe0 10.220.0.2 120 -s 4096 -t 8
vm_watch_bg "$O/loss-root.json" --interval 1 --count 7
root_watch=$VM_WATCH_PID
vm_watch_bg "$O/loss-user.json" --user --interval 1 --count 7
# A baseline and one clean pass first (for both), then the loss.
vm_watch_wait_passes "$O/loss-root.json" 2 60
vm_watch_wait_passes "$O/loss-user.json" 2 60
vm_netem_loss v0 1
wait "$root_watch" "$VM_WATCH_PID"
vm_netem_loss v0 0
vm_check "ib_write_bw client survived the loss" kill -0 "$VM_CLIENT_PID"
vm_is "watch as root exited 0" "$(cat "$O/loss-root.json.rc")" 0
vm_is "watch as $VM_USER exited 0" "$(cat "$O/loss-user.json.rc")" 0
for who in root user; do
  vm_pycheck --label "$who" loss --watch "$O/loss-$who.json" --count 7 --device rxe0
done

vm_log "rdma_cm phase"
# Peer addresses: RES_QP has none, the rdma_cm IDs of a connection made
# with rdma_cm (-R) have them; both ends on rxe1 (see vm_perftest_cm).
kill "$VM_CLIENT_PID" "$VM_SERVER_PID"
wait "$VM_CLIENT_PID" "$VM_SERVER_PID" 2>/dev/null
vm_perftest_cm write rxe1 10.220.0.2 60
# The kernel's rdma_cm IDs before and after the snapshots: the check holds
# the snapshots to the IDs both dumps list.
vm_rdma_json "$O/cm-before" cm_id
vm_snapshot "$O/cm-root.json"
vm_snapshot_as_user "$O/cm-user.json"
vm_rdma_json "$O/cm" cm_id qp
vm_check "ib_write_bw -R client still runs" kill -0 "$VM_CLIENT_PID"
for who in root user; do
  vm_pycheck --label "$who" peers --snapshot "$O/cm-$who.json" --rdma "$O/cm" \
    --rdma-before "$O/cm-before" --pids "$VM_SERVER_PID,$VM_CLIENT_PID"
done
vm_finish
