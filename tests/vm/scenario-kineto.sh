#!/bin/bash
# rdmatop.kineto on a real kernel RDMA stack: during ib_write_bw from rxe0
# to rxe1, a torch.profiler run of a few CPU matrix multiplications with
# rdmatop.kineto.enable() exports a plain and a gzip trace; in each, rxe0/1's
# counter tracks are non-zero, the idle rxe2/1's zero, all inside the torch
# trace's own time span, and the trace follows Perfetto's rules (checked on
# the host: vmcheck.py profiler-trace).  torch comes from the virtual
# environment tests/python-deps.sh made on the host.
#
# torch 2.15 takes 230-290 s to import in this TCG guest: it imports
# first, alone (ib_write_bw polls its completion queue and would take the
# guest's CPUs), and the traffic starts once it has.  Its first profile
# then imports torch._inductor (torch.profiler's prepare_trace), minutes
# more under TCG: too long for the vm suite's 8 minutes, so this scenario
# is run by hand:
#   tests/vm/vm-run.sh --builddir build --timeout 900 tests/vm/scenario-kineto.sh
. "$RDMATOP_VM_DIR/guest-lib.sh"
vm_init
O=$VM_OUT

env_file=$VM_BUILDDIR/tests/python/profiler-env.sh
[ -r "$env_file" ] || vm_die "$env_file is missing: configure with -Dkineto=enabled -Dtorch_python=\$(tests/python-deps.sh)"
. "$env_file"
export RDMATOP_KINETO_MODULE RDMATOP_LIBRARY
export PYTHONPATH=$RDMATOP_PYTHON_SRC
# torch and Kineto write their caches under HOME.
export HOME=/tmp

rm -f "$O/go"
timeout 840 "$TORCH_PYTHON" "$RDMATOP_VM_DIR/profiler-guest.py" kineto "$O/go" rxe0,rxe2 \
  "$O/torch.json" "$O/torch.json.gz" >"$O/torch.out" 2>"$O/torch.err" &
torch_pid=$!
VM_BG_PIDS+=("$torch_pid")

vm_rxe_pair rxe0 v0 10.220.0.1 rxe1 v1 10.220.0.2
# The idle device's netdev must stay silent.
sysctl -qw net.ipv6.conf.default.disable_ipv6=1
vm_dummy_rxe rxe2 d2 10.210.2.1
vm_log "devices ready; waiting for torch to import"
vm_wait_for "torch to import" 400 test -s "$O/torch.out"
vm_log "$(cat "$O/torch.out")"
vm_perftest write rxe1 rxe0 10.220.0.2 200
vm_log "traffic running, profiling"
touch "$O/go"
rc=0
wait "$torch_pid" || rc=$?
vm_is "the torch.profiler run exits 0" "$rc" 0
[ "$rc" = 0 ] || vm_log "torch stderr: $(grep -v 'USDT\|gpuGetDeviceCount' "$O/torch.err" | tail -c 800)"
cat "$O/torch.out"
vm_check "ib_write_bw client ran throughout" kill -0 "$VM_CLIENT_PID"
for f in torch.json torch.json.gz; do
  vm_pycheck --label "$f" profiler-trace --trace "$O/$f" --busy rxe0/1 --idle rxe2/1 \
    --metric sent_pkts
done
vm_finish
