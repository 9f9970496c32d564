#!/bin/bash
# rdmatop.kineto on a real kernel RDMA stack: during ib_write_bw from rxe0
# to rxe1, a torch.profiler run of a few CPU matrix multiplications with
# rdmatop.kineto.enable() exports a plain and a gzip trace; in each, rxe0/1's
# counter tracks are non-zero, the idle rxe2/1's zero, all inside the torch
# trace's own time span, and the trace follows Perfetto's rules (checked on
# the host: vmcheck.py profiler-trace).  torch comes from the virtual
# environment tests/python-deps.sh made on the host.
#
# torch 2.15 takes 230-290 s to import in this TCG guest, and its first
# profile imports torch._inductor, minutes more: both happen first, alone
# (ib_write_bw polls its completion queue and would take the guest's
# CPUs), and the traffic starts once they have.  The vm suite gives this
# scenario a larger guest (page cache for torch's shared libraries, read
# over 9p) and a longer limit.
#
# Afterwards the same Python process runs a short
# tests/bench/profiler-overhead.py during the traffic: its table (step time
# bare, under torch.profiler, and with rdmatop at 1 ms and 10 ms) is kept in
# the results as profiler-overhead.txt and .json.  Its figures are printed,
# not checked: wall-clock times are no test's business.
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
timeout "$((RDMATOP_GUEST_TIMEOUT - 30))" "$TORCH_PYTHON" "$RDMATOP_VM_DIR/profiler-guest.py" \
  kineto "$O/go" rxe0,rxe2 "$O/torch.json" "$O/torch.json.gz" \
  -- "$O/profiler-overhead.txt" --devices rxe0,rxe2 --rounds 3 --steps 5 --size 64 \
  --json "$O/profiler-overhead.json" >"$O/torch.out" 2>"$O/torch.err" &
torch_pid=$!
VM_BG_PIDS+=("$torch_pid")

vm_rxe_pair rxe0 v0 10.220.0.1 rxe1 v1 10.220.0.2
# The idle device's netdev must stay silent.
sysctl -qw net.ipv6.conf.default.disable_ipv6=1
vm_dummy_rxe rxe2 d2 10.210.2.1
vm_log "devices ready; waiting for torch to import"
vm_wait_for "torch to import" "$((RDMATOP_GUEST_TIMEOUT - 200))" test -s "$O/torch.out"
vm_log "$(cat "$O/torch.out")"
vm_perftest write rxe1 rxe0 10.220.0.2 "$RDMATOP_GUEST_TIMEOUT"
vm_log "traffic running, profiling"
touch "$O/go"
traces_written () { [ "$(grep -c ': written' "$O/torch.out")" -ge 2 ] || ! kill -0 "$torch_pid"; }
vm_wait_for "the profiles" 150 traces_written
vm_check "ib_write_bw client ran throughout the profiles" kill -0 "$VM_CLIENT_PID"
vm_is "the torch.profiler run wrote both traces without a capture error" \
  "$(grep -c ': written$' "$O/torch.out")" 2
cat "$O/torch.out"
# The table is a measurement, not a check: it has what is left of the
# guest's time, and is abandoned (said so, no figures) past it.
vm_log "profiles written; timing steps for the overhead table"
bench_end=$((RDMATOP_GUEST_TIMEOUT - 40))
while kill -0 "$torch_pid" 2>/dev/null && [ "$SECONDS" -lt "$bench_end" ]; do sleep 1; done
if kill -0 "$torch_pid" 2>/dev/null; then
  kill "$torch_pid"
  vm_log "the overhead table did not finish within the guest's time: no figures"
else
  rc=0
  wait "$torch_pid" || rc=$?
  vm_is "the torch.profiler run and the overhead table exit 0" "$rc" 0
  [ "$rc" = 0 ] || vm_log "torch stderr: $(grep -v 'USDT\|gpuGetDeviceCount' "$O/torch.err" | tail -c 800)"
fi
[ -s "$O/profiler-overhead.txt" ] && cat "$O/profiler-overhead.txt"
for f in torch.json torch.json.gz; do
  vm_pycheck --label "$f" profiler-trace --trace "$O/$f" --busy rxe0/1 --idle rxe2/1 \
    --metric sent_pkts
done
vm_finish
