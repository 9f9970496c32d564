#!/bin/bash
# librdmatop on a real kernel RDMA stack, from C (rdmatop-probe) and from
# Python (the rdmatop package), during ib_write_bw from rxe0 to rxe1 with
# rxe2 idle: a snapshot equals `rdma -j statistic show`; a capture at 1 ms
# for 2 s takes about 2000 passes less the ones it counts as missed, loses
# none (every sample taken is read), its counters never go back, rxe0's
# rise and rxe2's stay flat; errors carry the CLI's sentences.  As root and
# as the unprivileged user.
. "$RDMATOP_VM_DIR/guest-lib.sh"
vm_init
O=$VM_OUT
PROBE=$VM_BUILDDIR/tests/lib/rdmatop-probe
SRC=$(cd "$VM_DIR/../.." && pwd)
[ -x "$PROBE" ] || vm_die "$PROBE is not built"

vm_rxe_pair rxe0 v0 10.220.0.1 rxe1 v1 10.220.0.2
sysctl -qw net.ipv6.conf.default.disable_ipv6=1
vm_dummy_rxe rxe2 d2 10.210.2.1
vm_log "devices ready, starting ib_write_bw"
# Niced: the two perftest ends poll their CQs and would take both guest
# CPUs from the capture (a real host has cores to spare).
VM_PERF_NICE=19 vm_perftest write rxe1 rxe0 10.220.0.2 120
vm_log "traffic running"

# The C API.
"$PROBE" snapshot rxe0 rxe2 >"$O/c-snapshot.json" 2>"$O/c-snapshot.err"
rdma -j statistic show >"$O/rdma-stat.json" 2>&1
"$PROBE" capture --device rxe0 --device rxe2 --interval-ns 1000000 --seconds 2 \
  >"$O/c-capture.json" 2>"$O/c-capture.err"
vm_is "C capture exits 0" "$?" 0
vm_as_user "$PROBE" capture --device rxe0 --device rxe2 --interval-ns 1000000 --seconds 2 \
  >"$O/c-capture-user.json" 2>"$O/c-capture-user.err"
vm_is "C capture as $VM_USER exits 0" "$?" 0
"$PROBE" capture --device rxe0 --port 1 --counter sent_pkts --counter rcvd_pkts \
  --interval-ns 10000000 --seconds 1 --drain-ms 0 >"$O/c-capture-some.json" 2>&1
for kind in interval device counter port; do
  "$PROBE" error "$kind" >"$O/c-error-$kind.json" 2>&1
done
# The CLI's own sentences, to compare with.
"$VM_CLI" snapshot --device nosuchdev0 >/dev/null 2>"$O/cli-nodev.err"
"$VM_CLI" record --counters-only --interval 0.0001 --device rxe0 >/dev/null 2>"$O/cli-interval.err"

# The Python package (one start: Python is slow under TCG).
PYTHONPATH=$SRC/python RDMATOP_LIBRARY=$VM_BUILDDIR/src/lib/librdmatop.so.1 \
  /usr/bin/python3 "$VM_DIR/capture-probe.py" "$O/py-capture.json" rxe0 rxe2 \
  >"$O/py-capture.out" 2>&1
vm_is "Python probe exits 0" "$?" 0
[ -s "$O/py-capture.json" ] || vm_log "python: $(tail -c 800 "$O/py-capture.out")"

# The CLI's counters-only recording at 1 ms, CSV and trace.
for f in cap.csv cap.json; do
  "$VM_CLI" record --counters-only --interval 0.001 --device rxe0,rxe2 --port 1 --duration 2 \
    --output "$O/$f" >"$O/$f.out" 2>"$O/$f.err"
  vm_is "record --counters-only --interval 0.001 to $f exits 0" "$?" 0
done
vm_pycheck capture-record --csv "$O/cap.csv" --trace "$O/cap.json" --busy rxe0 --idle rxe2 \
  --seconds 2

vm_check "ib_write_bw client still runs" kill -0 "$VM_CLIENT_PID"
vm_pycheck capture --c "$O/c-capture.json" --c-user "$O/c-capture-user.json" \
  --c-some "$O/c-capture-some.json" --c-snapshot "$O/c-snapshot.json" --rdma "$O/rdma-stat.json" \
  --errors "$O" --py "$O/py-capture.json" --busy rxe0 --idle rxe2 --seconds 2 --interval-ms 1
vm_finish
