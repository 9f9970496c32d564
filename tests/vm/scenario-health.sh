#!/bin/bash
# Health at a glance, on a real kernel, in one boot:
# - a link taken down (rxe2's netdev) makes its port unhealthy and raises
#   one Error event (state, physical state and rate folded in), which stays
#   first in the app's ranked recent list after 30 s of light netem loss on
#   another link; its completion comes when the link is up again;
# - the loss (1 % on rxe0's netdev under ib_write_bw) is one episode per
#   rise, not a rising/settled pair per retransmit, and the receiving end
#   (rxe1, which only sees the sender's resent packets) is not flagged;
# - a QP moved to the error state (qp-holder on SIGUSR1) raises an Error
#   naming the process.
# rdmatop-cli watch --json gives what the collector says; history-probe
# runs the app's models (RtopHistory) on the same kernel.
. "$RDMATOP_VM_DIR/guest-lib.sh"
vm_init
O=$VM_OUT
PROBE=$VM_BUILDDIR/tests/vm/history-probe
[ -x "$PROBE" ] || vm_die "$PROBE is not built (the GUI is needed for the models)"

vm_rxe_pair rxe0 v0 10.230.0.1 rxe1 v1 10.230.0.2
vm_netem_loss v0 0
vm_dummy_rxe rxe2 d2 10.210.2.1
vm_dummy_rxe rxe3 d3 10.210.3.1
vm_qp_holder rxe3 2
# 4 KiB messages, 8 in flight: under loss the writer keeps resending
# instead of failing its QP (see scenario-traffic.sh).
vm_perftest write rxe1 rxe0 10.230.0.2 300 -s 4096 -t 8

vm_watch_bg "$O/watch.json" --interval 1 --count 200
watch=$VM_WATCH_PID
vm_bg "$PROBE" --interval 1 --count 200 --output "$O/probe.json"
probe=$VM_LAST_PID
vm_watch_wait_passes "$O/watch.json" 3 90
vm_watch_wait_passes "$O/probe.json" 3 90

vm_log "link down"
vm_link_down d2
vm_wait_for "rxe2 port down" 20 vm_port_state_is rxe2 DOWN
seen=$(wc -l <"$O/watch.json")
vm_watch_wait_passes "$O/watch.json" $((seen + 2)) 60

vm_log "light loss for 30 passes"
vm_netem_loss v0 1
seen=$(wc -l <"$O/probe.json")
vm_watch_wait_passes "$O/probe.json" $((seen + 30)) 180
# The ranked list is checked at this pass of the probe.
wc -l <"$O/probe.json" >"$O/probe-after-loss"
wc -l <"$O/watch.json" >"$O/watch-after-loss"

vm_log "QP error"
kill -USR1 "$VM_HOLDER_PID"
seen=$(wc -l <"$O/watch.json")
vm_watch_wait_passes "$O/watch.json" $((seen + 3)) 60
vm_check "qp-holder still runs" kill -0 "$VM_HOLDER_PID"

vm_log "loss off, link up"
vm_netem_loss v0 0
vm_link_up d2
vm_wait_for "rxe2 port active" 20 vm_port_state_is rxe2 ACTIVE
seen=$(wc -l <"$O/watch.json")
vm_watch_wait_passes "$O/watch.json" $((seen + 3)) 60
vm_check "ib_write_bw client survived the loss" kill -0 "$VM_CLIENT_PID"
vm_watch_stop "$O/watch.json"
wait "$watch"
kill -INT "$probe"
wait "$probe"
vm_is "watch exited 0" "$(cat "$O/watch.json.rc")" 0

vm_pycheck health --watch "$O/watch.json" --probe "$O/probe.json" \
  --probe-at "$(cat "$O/probe-after-loss")" --watch-at "$(cat "$O/watch-after-loss")" \
  --down rxe2 --sender rxe0 --receiver rxe1 \
  --holder-pid "$VM_HOLDER_PID" --holder-device rxe3
vm_finish
