#!/bin/bash
# Guest script (tests/vm/vm-run.sh): the profiler's overhead on a torch
# step with and without rdmatop, during ib_write_bw from rxe0 to rxe1 with
# an idle rxe2 captured too (tests/bench/profiler-overhead.py).  Absolute
# times in the TCG guest are 10-50x native: read the ratios.
#
#   tests/vm/vm-run.sh --builddir BUILD --timeout 1500 tests/bench/guest-profiler.sh \
#       [rounds=5] [steps=20] [size=256]
#
# Needs a build configured with -Dkineto=enabled -Dtorch_python=...; the
# table is printed and kept in $RDMATOP_RESULTS/profiler-overhead.json.
. "$RDMATOP_VM_DIR/guest-lib.sh"

rounds=5
steps=20
size=256
for arg in "$@"; do
  case "$arg" in
    rounds=*) rounds=${arg#*=} ;;
    steps=*) steps=${arg#*=} ;;
    size=*) size=${arg#*=} ;;
    *) vm_die "unknown argument '$arg'" ;;
  esac
done

vm_init
O=$VM_OUT
env_file=$VM_BUILDDIR/tests/python/profiler-env.sh
[ -r "$env_file" ] || vm_die "$env_file is missing: configure with -Dkineto=enabled -Dtorch_python=\$(tests/python-deps.sh)"
. "$env_file"
export RDMATOP_KINETO_MODULE RDMATOP_LIBRARY
export PYTHONPATH=$RDMATOP_PYTHON_SRC
export HOME=/tmp

# torch imports for minutes under TCG (658 s measured with ib_write_bw
# polling beside it): it imports first, alone, and waits for $O/go.
rm -f "$O/go"
"$TORCH_PYTHON" "$RDMATOP_PYTHON_SRC/../tests/bench/profiler-overhead.py" --devices rxe0,rxe2 \
  --rounds "$rounds" --steps "$steps" --size "$size" --json "$O/profiler-overhead.json" \
  --trace "$O/bench-rdmatop.json.gz" --wait-for "$O/go" \
  >"$O/profiler-overhead.txt" 2>"$O/profiler-overhead.err" &
bench_pid=$!
VM_BG_PIDS+=("$bench_pid")

vm_rxe_pair rxe0 v0 10.220.0.1 rxe1 v1 10.220.0.2
sysctl -qw net.ipv6.conf.default.disable_ipv6=1
vm_dummy_rxe rxe2 d2 10.210.2.1
vm_log "importing torch (minutes under TCG)"
vm_wait_for "torch to import" 900 test -s "$O/profiler-overhead.txt"
vm_perftest write rxe1 rxe0 10.220.0.2 1200
vm_log "traffic running; timing steps"
touch "$O/go"
rc=0
wait "$bench_pid" || rc=$?
cat "$O/profiler-overhead.txt"
vm_is "profiler-overhead.py exits 0" "$rc" 0
[ "$rc" = 0 ] || vm_log "stderr: $(grep -v 'USDT\|gpuGetDeviceCount' "$O/profiler-overhead.err" | tail -c 800)"
# The last rdmatop round's trace, checked as the kineto scenario checks its own.
vm_pycheck --label bench-rdmatop.json.gz profiler-trace --trace "$O/bench-rdmatop.json.gz" \
  --busy rxe0/1 --idle rxe2/1 --metric sent_pkts
vm_finish
