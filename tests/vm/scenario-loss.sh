#!/bin/bash
# Scenario 3 (and 6): with netem dropping 1% of the writer's packets, the
# retransmits metric rises and a health event is raised, seen by root and
# by an unprivileged user.
. "$RDMATOP_VM_DIR/guest-lib.sh"
vm_init
O=$VM_OUT
COUNT=7

vm_rxe_pair rxe0 v0 10.220.0.1 rxe1 v1 10.220.0.2
vm_perftest write rxe1 rxe0 10.220.0.2 120
vm_watch_bg "$O/watch-root.json" --interval 1 --count "$COUNT"
root_watch=$VM_WATCH_PID
vm_watch_bg "$O/watch-user.json" --user --interval 1 --count "$COUNT"
# A baseline and one clean pass first, then the loss.
vm_watch_wait_passes "$O/watch-root.json" 2 60
vm_netem_loss v0 1
wait "$root_watch" "$VM_WATCH_PID"
vm_netem_clear v0
rdma -j statistic show >"$O/after.stat.json"
vm_is "watch as root exited 0" "$(cat "$O/watch-root.json.rc")" 0
vm_is "watch as $VM_USER exited 0" "$(cat "$O/watch-user.json.rc")" 0
for who in root user; do
  vm_pycheck --label "$who" loss --watch "$O/watch-$who.json" --count "$COUNT" --device rxe0
done
vm_finish
