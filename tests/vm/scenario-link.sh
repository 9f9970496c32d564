#!/bin/bash
# Scenario 4 (and 6): taking a netdev down and up again is reported as port
# state events on its Soft-RoCE device, in order, and nowhere else.
. "$RDMATOP_VM_DIR/guest-lib.sh"
vm_init
O=$VM_OUT
COUNT=9

vm_dummy_rxe rxe0 d0 10.210.0.1
vm_dummy_rxe rxe1 d1 10.210.1.1
vm_rdma_json "$O/up"
vm_watch_bg "$O/watch-root.json" --interval 1 --count "$COUNT"
root_watch=$VM_WATCH_PID
vm_watch_bg "$O/watch-user.json" --user --interval 1 --count "$COUNT"
vm_watch_wait_passes "$O/watch-root.json" 2 60
vm_link_down d0
vm_wait_for "rxe0 port down" 20 vm_port_state_is rxe0 DOWN
vm_rdma_json "$O/down"
n=$(wc -l <"$O/watch-root.json")
vm_watch_wait_passes "$O/watch-root.json" $((n + 3)) 60
vm_link_up d0
vm_wait_for "rxe0 port active" 20 vm_port_state_is rxe0 ACTIVE
wait "$root_watch" "$VM_WATCH_PID"
vm_is "watch as root exited 0" "$(cat "$O/watch-root.json.rc")" 0
vm_is "watch as $VM_USER exited 0" "$(cat "$O/watch-user.json.rc")" 0
for who in root user; do
  vm_pycheck --label "$who" link --watch "$O/watch-$who.json" --count "$COUNT" \
    --device rxe0 --rdma-down "$O/down" --rdma-up "$O/up"
done
vm_finish
