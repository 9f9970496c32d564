#!/bin/bash
# GPU interconnects beside real RDMA devices: the stand-in NVML the test
# suite builds (tests/gpu/) answers for two GPUs while Soft-RoCE devices
# carry real traffic.  One snapshot holds both kinds, as root and as an
# unprivileged user; a watch sees a GPU link go down and its errors rise
# next to the RDMA ports; and tests/gpu/real-gpu-check.sh, run without a
# GPU library, agrees with `rdma -j` on this real RDMA stack.
. "$RDMATOP_VM_DIR/guest-lib.sh"
vm_init
O=$VM_OUT
NVML=$VM_BUILDDIR/tests/libnvidia-ml.so.1
[ -f "$NVML" ] || vm_die "$NVML is not built"
SCRIPT=/tmp/gpu-script
# The unprivileged user reads the script too.
cat >"$SCRIPT" <<'SCRIPT'
gpus 2
gpu.0.name NVIDIA H100 80GB HBM3
gpu.0.bus 00000000:1B:00.0
gpu.0.mem_total 85899345920
gpu.0.mem_used 1073741824
gpu.0.temp 55
gpu.0.links 2
gpu.0.tx_kib 1000
gpu.0.rx_kib 2000
gpu.0.link.0.remote 00000000:2A:00.0
gpu.0.link.0.crc 0
gpu.1.links 1
SCRIPT
chmod 644 "$SCRIPT"
export RDMATOP_FAKE_GPU_SCRIPT=$SCRIPT
export RDMATOP_NVML_LIBRARY=$NVML

vm_rxe_pair rxe0 v0 10.220.0.1 rxe1 v1 10.220.0.2
vm_perftest write rxe1 rxe0 10.220.0.2 120
vm_log "traffic running"

# 1. One snapshot: RDMA and GPU devices, as root and as a user.
vm_snapshot "$O/both.json"
vm_rdma_json "$O/rdma" dev link
"${VM_AS_USER[@]}" RDMATOP_FAKE_GPU_SCRIPT="$SCRIPT" RDMATOP_NVML_LIBRARY="$NVML" \
  "$VM_CLI" snapshot --json >"$O/both-user.json" 2>"$O/both-user.err" ||
  vm_not_ok "snapshot as $VM_USER exited $?: $(head -c 300 "$O/both-user.err")"
for f in both both-user; do
  vm_pycheck --label "$f" gpu --snapshot "$O/$f.json" --rdma "$O/rdma"
done

# 2. A watch: GPU link 1 of nvidia0 goes down, its link 0 counts CRC errors.
vm_watch_bg "$O/watch.json" --interval 0.5
vm_watch_wait_passes "$O/watch.json" 2 30
printf 'gpu.0.link.1.up 0\ngpu.0.link.0.crc 7\n' >>"$SCRIPT"
vm_watch_wait_passes "$O/watch.json" 4 30
vm_watch_stop "$O/watch.json"
vm_is "the watch exits 0 on SIGINT" "$(cat "$O/watch.json.rc")" 0
vm_pycheck gpu-watch --watch "$O/watch.json" --rdma-device rxe0

# 3. The real-hardware check, here without a GPU library: its RDMA half
# against this kernel.
rc=0
RDMATOP_NVML_LIBRARY=/nonexistent RDMATOP_AMDSMI_LIBRARY=/nonexistent \
  "$VM_DIR/../gpu/real-gpu-check.sh" "$VM_CLI" "$O/real-check" >"$O/real-check.out" 2>&1 || rc=$?
vm_is "real-gpu-check.sh agrees with rdma -j (0 mismatches)" "$rc" 0
[ "$rc" = 0 ] || vm_log "$(grep MISMATCH "$O/real-check.out" | head -5)"

vm_finish
