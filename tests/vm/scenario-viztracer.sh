#!/bin/bash
# rdmatop.viztracer on a real kernel RDMA stack: during ib_write_bw from
# rxe0 to rxe1, `viztracer --plugins "rdmatop.viztracer ..."` traces a small
# script; in its trace rxe0/1's counter tracks are non-zero, the idle
# rxe2/1's zero, all inside the trace's own time span, and the trace
# follows Perfetto's rules (checked on the host: vmcheck.py profiler-trace).
# VizTracer comes from the virtual environment tests/python-deps.sh made on
# the host (the guest sees its /).
. "$RDMATOP_VM_DIR/guest-lib.sh"
vm_init
O=$VM_OUT

env_file=$VM_BUILDDIR/tests/python/profiler-env.sh
[ -r "$env_file" ] || vm_die "$env_file is missing: configure with -Dkineto=enabled -Dtorch_python=\$(tests/python-deps.sh)"
. "$env_file"
export RDMATOP_LIBRARY
export PYTHONPATH=$RDMATOP_PYTHON_SRC
export HOME=/tmp

vm_rxe_pair rxe0 v0 10.220.0.1 rxe1 v1 10.220.0.2
# The idle device's netdev must stay silent.
sysctl -qw net.ipv6.conf.default.disable_ipv6=1
vm_dummy_rxe rxe2 d2 10.210.2.1
vm_log "devices ready, starting ib_write_bw"
vm_perftest write rxe1 rxe0 10.220.0.2 200
vm_log "traffic running"

rc=0
timeout 200 "$(dirname "$TORCH_PYTHON")/viztracer" --quiet -o "$O/viz.json" \
  --plugins "rdmatop.viztracer --interval 1 --devices rxe0,rxe2" \
  -- "$RDMATOP_VM_DIR/profiler-guest.py" work >"$O/viz.out" 2>"$O/viz.err" || rc=$?
vm_is "viztracer --plugins rdmatop.viztracer exits 0" "$rc" 0
[ "$rc" = 0 ] || vm_log "viztracer stderr: $(tail -c 800 "$O/viz.err")"
vm_check "ib_write_bw client ran throughout" kill -0 "$VM_CLIENT_PID"
vm_pycheck --label viz.json profiler-trace --trace "$O/viz.json" --busy rxe0/1 --idle rxe2/1 \
  --metric sent_pkts
vm_finish
