#!/bin/bash
# Jobs and rails on a real kernel, in one boot:
# - a Slurm-shaped cgroup v2 hierarchy (job 1234, step 0) and a Kubernetes
#   one (a burstable pod with a containerd container), each holding real
#   RDMA processes: every process is listed under its job (kind, id,
#   detail, name) with its devices and QPs, as root and as rdmatest, and
#   the app's models (history-probe) give its job in words;
# - four streams (ib_send_bw) over four veth pairs: the senders are job
#   1234's four rails (rxe0, rxe2, rxe4, rxe6), the receivers the pod's
#   (rxe1, rxe3, rxe5, rxe7).  netem paces every sender: three at 150
#   Mbit/s, rxe6 at 30 Mbit/s.  The throttled path's two ends, and they
#   alone, are each one rail-imbalance Warning in their own job: rxe6/1 in
#   job slurm 1234.0, rxe7/1 in the pod's; none before the traffic starts;
# - the window (under Xvfb, driven over the session bus): the Rails tab
#   narrowed to each job lists exactly its four rails and marks the
#   throttled one, whose value is under half its peers'; each job's page
#   lists its processes and the port each device's QPs use; the Processes
#   view gives each process its job.  Screenshots: gui-rails-slurm.png,
#   gui-job-slurm.png, gui-processes-jobs.png.
# Pacing with netem rather than perftest's rate limiter: the limiter
# calibrates the CPU's frequency, which fails under TCG, and sends bursts
# of its whole window.  perftest waits on completion events (-e, which
# ib_write_bw and a duration, -D, do not allow: a count, -n, instead): four
# ends polling their CQs took both vCPUs from rxe, and the paced rails fell
# from 150 to 50-100 Mb/s, under the rule's idle floor.  Jumbo frames
# (rxe's MTU 4096) cut the guest's work per byte.  16 messages in flight
# and a QP timeout of 4 s (-u 20): netem's queue delays packets by up to
# 0.3 s, beyond rxe's default 67 ms.
. "$RDMATOP_VM_DIR/guest-lib.sh"

# rail_events FILE N [--last]: FILE (or its last line) names the kind
# rail-imbalance at least N times.
rail_events () {
  local n
  if [ "${3:-}" = --last ]; then
    n=$(tail -n 1 "$1" | grep -o '"kind":"rail-imbalance"' | wc -l)
  else
    n=$(grep -o '"kind":"rail-imbalance"' "$1" | wc -l)
  fi
  [ "$n" -ge "$2" ]
}

# mtus_are_4096 N: N ports have rxe's largest MTU (sysfs does not show it).
mtus_are_4096 () {
  [ "$(ibv_devinfo 2>/dev/null | grep -c 'active_mtu:.*4096')" -eq "$1" ]
}

vm_init
O=$VM_OUT
PROBE=$VM_BUILDDIR/tests/vm/history-probe
[ -x "$PROBE" ] || vm_die "$PROBE is not built (the GUI is needed for the models)"

JOB=1234
STEP=0
POD_UID=6d1f3c2a-8b4e-4f7a-9c1d-2e5b7a9f0c31
CONTAINER=3b8f5e0c9a7d41e2b6c0f4a8d2e6b1c7f9a3e5d7c1b4a6f8e0d2c4b6a8f0e1d3
vm_cgroup_v2
STEPDIR=/sys/fs/cgroup/system.slice/slurmstepd.scope/job_$JOB/step_$STEP/user
PODDIR=/sys/fs/cgroup/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod${POD_UID//-/_}.slice
CTRDIR=$PODDIR/cri-containerd-$CONTAINER.scope
# Leaves only: task_0 and task_1 for the step's two kinds of task, the
# container's scope for everything of the pod.
vm_cgroup_mkdir "$STEPDIR/task_0" "$STEPDIR/task_1" "$CTRDIR"

for i in 0 1 2 3; do
  vm_rxe_pair "rxe$((2 * i))" "v$((2 * i))" "10.240.$i.1" "rxe$((2 * i + 1))" "v$((2 * i + 1))" "10.240.$i.2"
done
: >/tmp/jobs-ip.batch
for i in 0 1 2 3 4 5 6 7; do
  echo "link set v$i mtu 9000" >>/tmp/jobs-ip.batch
done
ip -batch /tmp/jobs-ip.batch || vm_die "ip -batch: MTU 9000 on the veths"
# Before any traffic: grafting a qdisc under traffic can fail a send.
: >/tmp/jobs-tc.batch
for i in 0 2 4; do
  echo "qdisc add dev v$i root netem limit 100000 rate 150mbit" >>/tmp/jobs-tc.batch
done
echo "qdisc add dev v6 root netem limit 100000 rate 30mbit" >>/tmp/jobs-tc.batch
tc -batch /tmp/jobs-tc.batch || vm_die "tc -batch: netem pacing on the writers' veths"
vm_wait_for "an active MTU of 4096 on the eight devices" 20 mtus_are_4096 8

# A task of the step and a process of the pod that only hold QPs (in
# RESET: they use no port, so they add no rail).
VM_BG_CGROUP=$STEPDIR/task_1 vm_qp_holder rxe0 2
slurm_holder=$VM_HOLDER_PID
VM_BG_CGROUP=$CTRDIR vm_qp_holder rxe1 3
pod_holder=$VM_HOLDER_PID
vm_log "job of qp-holder $slurm_holder: $(cat "/proc/$slurm_holder/cgroup")"

vm_watch_bg "$O/watch.json" --interval 1 --count 200
watch=$VM_WATCH_PID
vm_bg "$PROBE" --interval 1 --count 200 --output "$O/probe.json"
probe=$VM_LAST_PID
vm_watch_wait_passes "$O/watch.json" 3 90
vm_watch_wait_passes "$O/probe.json" 3 90
# Passes written before the first stream starts: no rail event in them.
wc -l <"$O/watch.json" >"$O/watch-before-traffic"
wc -l <"$O/probe.json" >"$O/probe-before-traffic"

vm_log "four streams, the last one throttled"
slurm_pids=$slurm_holder
pod_pids=$pod_holder
clients=()
for i in 0 1 2 3; do
  VM_PERF_CLIENT_CGROUP=$STEPDIR/task_0 VM_PERF_SERVER_CGROUP=$CTRDIR \
    vm_perftest send "rxe$((2 * i + 1))" "rxe$((2 * i))" "10.240.$i.2" 0 -e -n 1000000 -t 16 -u 20
  slurm_pids+=,$VM_CLIENT_PID
  pod_pids+=,$VM_SERVER_PID
  clients+=("$VM_CLIENT_PID")
done
vm_log "streams up; job of ib_send_bw $VM_CLIENT_PID: $(cat "/proc/$VM_CLIENT_PID/cgroup")"
vm_snapshot "$O/snap.json"
vm_snapshot_as_user "$O/snap-user.json"
vm_rdma_json "$O/rdma" qp mr

# Both episodes open 5 s after rxe6 starts; ten more passes show that no
# other rail follows.  When the machine running the emulator is busy, the
# guest's paced rails sag below the rule's idle floor for a few seconds
# at a time, and each sag restarts the 5 s: a longer bound than 5 s needs.
vm_wait_for "two rail-imbalance events" 150 rail_events "$O/watch.json" 2
seen=$(wc -l <"$O/watch.json")
vm_watch_wait_passes "$O/watch.json" $((seen + 10)) 60
vm_wait_for "the events in the app's models" 60 rail_events "$O/probe.json" 2 --last
for pid in "${clients[@]}"; do
  vm_check "ib_write_bw $pid still runs" kill -0 "$pid"
done
vm_watch_stop "$O/watch.json"
wait "$watch"
kill -INT "$probe"
wait "$probe"
vm_is "watch exited 0" "$(cat "$O/watch.json.rc")" 0

# The window, once the CLI's and the probe's passes are in (the emulated
# CPUs cannot draw it and carry four paced streams at once without the
# streams sagging under the rule's floor).  It judges the rails itself, so
# its Rails tab, narrowed to each job, marks the throttled rail when its own
# episode opens; its job pages list the processes and the ports they use.
vm_log "the window"
vm_app_display 42
vm_app_start app.log
vm_wait_for "the app on the session bus" 120 vm_app_on_bus
# rails_marked KEY FILE DEV: the Rails tab narrowed to job KEY marks DEV/1.
rails_marked () {
  vm_app_activate show-job-rails "<'$1'>" && vm_app_dump "$2" &&
    grep -q "^rails row: $3/1 .* imbalance\$" "$O/$2"
}
POD_KEY=kubernetes/$POD_UID
vm_wait_for "the Rails tab to mark rxe6/1 in job 1234" 240 rails_marked "slurm/$JOB" rails-slurm.txt rxe6
# 20 s more of the episode: its underline, from when rxe6 fell behind to
# now, spans some 70 px of the strip's five minutes in the screenshot.
sleep 20
vm_app_dump rails-slurm.txt || vm_not_ok "a dump of the Rails tab"
import -window root "$O/gui-rails-slurm.png" 2>"$O/import.log"
vm_wait_for "the Rails tab to mark rxe7/1 in the pod" 60 rails_marked "$POD_KEY" rails-pod.txt rxe7
# job_listed KEY FILE PIDS: job KEY's page lists every pid of PIDS.
job_listed () {
  local pid
  vm_app_activate show-job "<'$1'>" && vm_app_dump "$2" || return 1
  for pid in ${3//,/ }; do
    grep -q "^job process: .*	$pid	" "$O/$2" || return 1
  done
}
vm_wait_for "job 1234's page to list its processes" 60 job_listed "slurm/$JOB" job-slurm.txt "$slurm_pids"
sleep 1
import -window root "$O/gui-job-slurm.png" 2>>"$O/import.log"
vm_wait_for "the pod's page to list its processes" 60 job_listed "$POD_KEY" job-pod.txt "$pod_pids"
vm_app_activate show-view "<'processes'>"
vm_app_dump processes.txt || vm_not_ok "a dump of the Processes view"
sleep 1
import -window root "$O/gui-processes-jobs.png" 2>>"$O/import.log"
vm_check "no GTK criticals or warnings" bash -c "! grep -E 'CRITICAL|WARNING' '$VM_APP_LOG'"
vm_pycheck screenshot --png "$O/gui-rails-slurm.png" --near c64600:30

vm_pycheck jobs --snapshot "$O/snap.json" --snapshot-user "$O/snap-user.json" \
  --rdma "$O/rdma" --watch "$O/watch.json" --probe "$O/probe.json" \
  --traffic-at "$(cat "$O/watch-before-traffic")" \
  --probe-traffic-at "$(cat "$O/probe-before-traffic")" \
  --slurm-job "$JOB" --slurm-step "$STEP" --slurm-pids "$slurm_pids" \
  --slurm-rails rxe0,rxe2,rxe4,rxe6 \
  --pod-uid "$POD_UID" --pod-container "$CONTAINER" --pod-pids "$pod_pids" \
  --pod-rails rxe1,rxe3,rxe5,rxe7 \
  --holder "$slurm_holder:2" --holder "$pod_holder:3" \
  --throttled rxe6,rxe7 --window "$O"
vm_finish
