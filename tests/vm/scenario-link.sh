#!/bin/bash
# Scenarios 4, 5 (and 6) in one boot, as root and as an unprivileged user
# (the user's delete-phase watcher also without hotplug events):
# 4. taking a netdev down and up again is reported as port state events on
#    its Soft-RoCE device, in order, and nowhere else;
# 5. `rdma link delete` while sampling removes the device with an event and
#    the sampler keeps going; re-adding it under the same name restarts its
#    counters without a spike or a negative rate, both with the device gone
#    for a few passes and with delete and re-add inside one interval.
. "$RDMATOP_VM_DIR/guest-lib.sh"
vm_init
O=$VM_OUT

vm_dummy_rxe rxe0 d0 10.210.0.1
vm_dummy_rxe rxe1 d1 10.210.1.1
vm_rdma_json "$O/up" link
vm_watch_bg "$O/watch-root.json" --interval 1 --count 100
root_watch=$VM_WATCH_PID
vm_watch_bg "$O/watch-user.json" --user --interval 1 --count 100
vm_watch_wait_passes "$O/watch-root.json" 2 60
vm_watch_wait_passes "$O/watch-user.json" 2 60
vm_link_down d0
vm_wait_for "rxe0 port down" 20 vm_port_state_is rxe0 DOWN
vm_rdma_json "$O/down" link
seen=$(wc -l <"$O/watch-root.json")
vm_watch_wait_passes "$O/watch-root.json" $((seen + 3)) 60
vm_watch_wait_passes "$O/watch-user.json" $((seen + 3)) 60
vm_link_up d0
vm_wait_for "rxe0 port active" 20 vm_port_state_is rxe0 ACTIVE
for who in root user; do
  seen=$(wc -l <"$O/watch-$who.json")
  vm_watch_wait_passes "$O/watch-$who.json" $((seen + 2)) 60
  vm_watch_stop "$O/watch-$who.json"
done
wait "$root_watch" "$VM_WATCH_PID"
vm_is "watch as root exited 0" "$(cat "$O/watch-root.json.rc")" 0
vm_is "watch as $VM_USER exited 0" "$(cat "$O/watch-user.json.rc")" 0
for who in root user; do
  vm_pycheck --label "$who" link --watch "$O/watch-$who.json" \
    --device rxe0 --rdma-down "$O/down" --rdma-up "$O/up"
done

vm_log "delete phase"
# ib_read_bw on one device: rxe's loopback path, counters move fast.
vm_perftest read rxe0 rxe0 10.210.0.1 120

# Root's watcher gets hotplug events (and resamples on them); the user's
# runs in its own network namespace, without them, and polls every 2 s:
# that leaves room for a delete and re-add between two of its passes.
vm_watch_bg "$O/delete-root.json" --interval 2 --count 100
root_watch=$VM_WATCH_PID
vm_watch_bg "$O/delete-user.json" --netns --user --interval 2 --count 100
vm_watch_wait_passes "$O/delete-root.json" 3 60
vm_watch_wait_passes "$O/delete-user.json" 3 60
# rxe cannot revoke open verbs contexts: its users must exit before delete.
kill "$VM_CLIENT_PID" "$VM_SERVER_PID"
wait "$VM_CLIENT_PID" "$VM_SERVER_PID" 2>/dev/null
vm_rxe_delete rxe0
seen=$(wc -l <"$O/delete-root.json")
vm_watch_wait_passes "$O/delete-root.json" $((seen + 3)) 60
vm_rxe_add rxe0 d0
vm_pingpong rxe0 10.210.0.1 20
seen=$(wc -l <"$O/delete-root.json")
vm_watch_wait_passes "$O/delete-root.json" $((seen + 3)) 60
vm_pingpong rxe0 10.210.0.1 100
# Delete and re-add inside one interval: right after a pass, in one rdma
# process (each command costs about a second under TCG).  The sampler then
# sees the same name with a new index and smaller counters.
seen=$(wc -l <"$O/delete-user.json")
vm_watch_wait_passes "$O/delete-user.json" $((seen + 1)) 60
declare -A fast
for who in root user; do fast[$who]=$(wc -l <"$O/delete-$who.json"); done
printf 'link delete rxe0\nlink add rxe0 type rxe netdev d0\n' >/tmp/readd.batch
t0=$(date +%s%N)
rdma -b /tmp/readd.batch || vm_die "rdma -b: delete and re-add rxe0"
vm_log "fast re-add took $(( ($(date +%s%N) - t0) / 1000000 )) ms"
vm_wait_for "rxe0 ACTIVE" 20 vm_port_state_is rxe0 ACTIVE
vm_watch_wait_passes "$O/delete-root.json" $((fast[root] + 3)) 60
vm_watch_wait_passes "$O/delete-user.json" $((fast[user] + 3)) 60
vm_watch_stop "$O/delete-root.json"
vm_watch_stop "$O/delete-user.json"
wait "$root_watch" "$VM_WATCH_PID"
for who in root user; do
  vm_pycheck --label "$who" delete --watch "$O/delete-$who.json" \
    --device rxe0 --other rxe1 --second-readd-after "${fast[$who]}"
done
vm_finish
