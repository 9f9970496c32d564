#!/bin/bash
# Scenario 5 (and 6): `rdma link delete` while sampling removes the device
# with an event and the sampler keeps going; re-adding it under the same
# name restarts its counters without a spike or a negative rate, both with
# the device gone for a few passes and with delete and re-add inside one
# interval.
. "$RDMATOP_VM_DIR/guest-lib.sh"
vm_init
O=$VM_OUT
COUNT=15

vm_dummy_rxe rxe0 d0 10.210.0.1
vm_dummy_rxe rxe1 d1 10.210.1.1
# ib_read_bw on one device: rxe's loopback path, counters move fast.
vm_perftest read rxe0 rxe0 10.210.0.1 120

vm_watch_bg "$O/watch-root.json" --interval 1 --count "$COUNT"
root_watch=$VM_WATCH_PID
vm_watch_bg "$O/watch-user.json" --user --interval 1 --count "$COUNT"
vm_watch_wait_passes "$O/watch-root.json" 3 60
# rxe cannot revoke open verbs contexts: its users must exit before delete.
kill "$VM_CLIENT_PID" "$VM_SERVER_PID"
wait "$VM_CLIENT_PID" "$VM_SERVER_PID" 2>/dev/null
vm_rxe_delete rxe0
n=$(wc -l <"$O/watch-root.json")
vm_watch_wait_passes "$O/watch-root.json" $((n + 3)) 60
vm_rxe_add rxe0 d0
vm_pingpong rxe0 10.210.0.1 20
n=$(wc -l <"$O/watch-root.json")
vm_watch_wait_passes "$O/watch-root.json" $((n + 3)) 60
vm_pingpong rxe0 10.210.0.1 100
declare -A n
for who in root user; do n[$who]=$(wc -l <"$O/watch-$who.json"); done
vm_rxe_delete rxe0
vm_rxe_add rxe0 d0
wait "$root_watch" "$VM_WATCH_PID"
for who in root user; do
  vm_pycheck --label "$who" delete --watch "$O/watch-$who.json" --count "$COUNT" \
    --device rxe0 --other rxe1 --second-readd-after "${n[$who]}"
done
vm_finish
