#!/bin/bash
# Guest script (tests/vm/vm-run.sh): where the time of a sampling pass (and
# of the GUI) goes, for finding hotspots; not part of the benchmark table.
#
#   tests/vm/vm-run.sh --builddir BUILD --timeout 600 tests/bench/guest-profile.sh \
#       [devices=64] [qps=0] [passes=300] [gui=0] [before=BUILDDIR]
#
# perf samples (cpu-clock, user and kernel) of `sample-cost --passes N` at
# the given scale, and with gui=1 of the rdmatop app on Xvfb (cairo) for
# 20 s.  Reports (perf report --stdio, by symbol) land in
# $RDMATOP_RESULTS/profile/.  With gui=1 the devices carry the GUI
# benchmark's traffic (guest-gui.sh), so every graph moves; before=BUILDDIR
# profiles that build's app too, the same way (gui-before.report).
. "$RDMATOP_VM_DIR/guest-lib.sh"

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SAMPLE_COST=$VM_BUILDDIR/tests/bench/sample-cost
APP=$VM_BUILDDIR/src/app/rdmatop
PROFILE=${RDMATOP_RESULTS:-/tmp}/profile

devices=64
qps=0
passes=300
gui=0
before=
for arg in "$@"; do
  case "$arg" in
    devices=*) devices=${arg#*=} ;;
    qps=*) qps=${arg#*=} ;;
    passes=*) passes=${arg#*=} ;;
    gui=*) gui=${arg#*=} ;;
    before=*) before=${arg#*=} ;;
    *) vm_die "unknown argument '$arg'" ;;
  esac
done

vm_init
command -v perf >/dev/null || vm_die "perf is not installed (Debian package linux-perf)"
mkdir -p "$PROFILE"
echo -1 >/proc/sys/kernel/perf_event_paranoid
echo 0 >/proc/sys/kernel/kptr_restrict
vm_dummy_rxes $(seq 0 $((devices - 1)))
[ "$qps" -gt 0 ] && vm_qp_holder rxe0 "$qps"

# report DATA OUT: flat by symbol, then who calls the top kernel symbols.
report () {
  perf report -i "$1" --stdio --no-children --sort dso,symbol --percent-limit 0.5 -g none \
    2>/dev/null | grep '%' | head -n 40 >"$2"
  cat "$2"
  perf report -i "$1" --stdio --no-children --sort symbol --percent-limit 3 \
    -g caller,0.5,callee,function,percent --max-stack 14 2>/dev/null |
    grep -v '^$' | grep -v '^#' | head -n 150 >"$2.callers"
  cat "$2.callers"
}

perf record -q -g -e cpu-clock -F 2000 -o "$PROFILE/sample.data" \
  "$SAMPLE_COST" --passes "$passes" >"$PROFILE/sample-cost.txt" 2>&1 ||
  vm_die "perf record of sample-cost failed: $(tail -n 3 "$PROFILE/sample-cost.txt")"
cat "$PROFILE/sample-cost.txt"
report "$PROFILE/sample.data" "$PROFILE/sample-cost.report"

if [ "$gui" = 1 ]; then
  # The GUI benchmark's traffic (bench-traffic.py), so every graph moves.
  vm_bg python3 "$BENCH_DIR/bench-traffic.py" "$devices"
  sleep 3
  kill -0 "$VM_LAST_PID" 2>/dev/null || vm_die "the traffic generator (bench-traffic.py) is not running"
  export XDG_RUNTIME_DIR=/tmp/prof-runtime GSETTINGS_BACKEND=memory GSETTINGS_SCHEMA_DIR=$VM_BUILDDIR/data
  mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"
  Xvfb :9 -screen 0 1600x1200x24 -nolisten tcp >/dev/null 2>&1 &
  VM_BG_PIDS+=($!)
  vm_wait_for "Xvfb" 30 test -S /tmp/.X11-unix/X9
  profile_app () {
    local app=$1 name=$2 app_pid
    DISPLAY=:9 GSK_RENDERER=cairo NO_AT_BRIDGE=1 dbus-run-session -- "$app" >/dev/null 2>&1 &
    local session=$!
    sleep 40
    app_pid=$(pgrep -n -x rdmatop) || vm_die "the app ($app) did not start"
    perf record -q -g -e cpu-clock -F 1000 -o "$PROFILE/$name.data" -p "$app_pid" -- sleep 20 ||
      vm_die "perf record of the app failed"
    kill "$app_pid" 2>/dev/null
    wait "$session" 2>/dev/null
    report "$PROFILE/$name.data" "$PROFILE/$name.report"
  }
  profile_app "$APP" gui
  [ -z "$before" ] || profile_app "$before/src/app/rdmatop" gui-before
fi
echo "# kernel log since boot (last lines):"
dmesg | tail -n 15
vm_ok "profiles written"
vm_finish
