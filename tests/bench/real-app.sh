#!/bin/sh
# real-app.sh [-b BUILDDIR] [-r RUNS] [-w WINDOW] [--startup] [--valgrind OUT]
#
# The real rdmatop app, busy, on a machine without RDMA: it watches a host
# "synth" whose `ssh` is a stand-in (on PATH for this run only) that runs
# tests/bench/stream-synth-serve, 16 busy synthetic ports sent as the
# stream `rdmatop-cli serve --stdio` sends.  Under Xvfb, GSK_RENDERER=cairo,
# a session bus of its own.  For profiling the window natively (perf,
# callgrind, an LD_PRELOAD counter) and for before/after figures between
# builds; tests/bench/run-benchmarks.sh --parts gui measures the same app
# in the Soft-RoCE guest against its real kernel.
#
#   (default)       RUNS times: the CPU of the whole process per second over
#                   WINDOW (30) seconds after 12 s of warm-up (gui-probe.py)
#   --startup       RUNS times: launch to the first frame with data, and the
#                   app's start-up phases (RDMATOP_REPORT_STARTUP=1), each
#                   run after the baselines' first frames: an empty GTK 4
#                   window and an empty libadwaita one (gtk-first-frame)
#   --valgrind OUT  once, under callgrind: OUT.1 is start-up to the first
#                   frame with data, OUT.2 the next 20 s
#
# Prints one line per run.  Not a test: figures depend on the machine.
set -eu

builddir=build
runs=3
window=30
mode=cpu
cgout=
while [ $# -gt 0 ]; do
  case $1 in
    -b) builddir=$2; shift 2 ;;
    -r) runs=$2; shift 2 ;;
    -w) window=$2; shift 2 ;;
    --startup) mode=startup; shift ;;
    --valgrind) mode=valgrind; cgout=$2; shift 2 ;;
    *) echo "usage: $0 [-b BUILDDIR] [-r RUNS] [-w WINDOW] [--startup] [--valgrind OUT]" >&2; exit 2 ;;
  esac
done

bench=$(cd "$(dirname "$0")" && pwd)
builddir=$(cd "$builddir" && pwd)
app=$builddir/src/app/rdmatop
serve=$builddir/tests/bench/stream-synth-serve
for f in "$app" "$serve"; do
  [ -x "$f" ] || { echo "$0: $f is not built" >&2; exit 2; }
done
command -v xvfb-run >/dev/null || { echo "$0: xvfb-run is missing (tests/deps.sh bench)" >&2; exit 2; }

shim=$(mktemp -d)
config=$(mktemp -d)
trap 'rm -rf "$shim" "$config"' EXIT INT TERM
# Whatever the app asks of ssh, the synthetic host answers.
printf '#!/bin/sh\nexec "%s"\n' "$serve" >"$shim/ssh"
chmod +x "$shim/ssh"

export PATH="$shim:$PATH" GSK_RENDERER=cairo GSETTINGS_BACKEND=memory \
  GSETTINGS_SCHEMA_DIR=$builddir/data XDG_CONFIG_HOME=$config
export RDMATOP_BENCH_APP=$app RDMATOP_BENCH_FIRST_FRAME=$builddir/tests/bench/gtk-first-frame RDMATOP_BENCH_DIR=$bench RDMATOP_BENCH_RUNS=$runs \
  RDMATOP_BENCH_WINDOW=$window RDMATOP_BENCH_MODE=$mode RDMATOP_BENCH_CG=$cgout

# shellcheck disable=SC2016 # expanded by the inner shell
xvfb-run -a -s "-screen 0 1600x1200x24" dbus-run-session -- sh -c '
  app=$RDMATOP_BENCH_APP
  case $RDMATOP_BENCH_MODE in
    cpu)
      for r in $(seq "$RDMATOP_BENCH_RUNS"); do
        echo "run=$r $(python3 "$RDMATOP_BENCH_DIR/gui-probe.py" --warm 12 \
          --window "$RDMATOP_BENCH_WINDOW" -- "$app" --host synth 2>/dev/null | tail -n 1)"
      done ;;
    startup)
      for r in $(seq "$RDMATOP_BENCH_RUNS"); do
        # The baselines in the same run: an empty GTK 4 window, and the
        # same window in a libadwaita application.
        for adw in "" --adwaita; do
          echo "run=$r baseline=gtk-first-frame${adw:+ $adw} $(python3 "$RDMATOP_BENCH_DIR/gui-probe.py" \
            --line "gtk-first-frame: startup-ms=([0-9]+)" --line-timeout 60 --no-window \
            -- "$RDMATOP_BENCH_FIRST_FRAME" $adw 2>/dev/null | tail -n 1)"
        done
        err=$(mktemp)
        line=$(RDMATOP_REPORT_STARTUP=1 python3 "$RDMATOP_BENCH_DIR/gui-probe.py" \
          --line "rdmatop: startup-ms=([0-9]+)" --line-timeout 60 --no-window \
          --keep-stderr "$err" -- "$app" --host synth 2>/dev/null | tail -n 1)
        phases=$(sed -n "s/^rdmatop: startup-phase \([a-z-]*\) ms=\([-0-9]*\)$/\1=\2/p" "$err" | tr "\n" " ")
        echo "run=$r $line $phases"
        rm -f "$err"
      done ;;
    valgrind)
      RDMATOP_REPORT_STARTUP=1 valgrind --tool=callgrind \
        --callgrind-out-file="$RDMATOP_BENCH_CG" "$app" --host synth 2>&1 |
      while read -r l; do
        case $l in
          *startup-ms=*)
            echo "$l"
            callgrind_control -d >/dev/null 2>&1
            sleep 20
            callgrind_control -d >/dev/null 2>&1
            pkill -INT -f "callgrind.*rdmatop" || true ;;
        esac
      done
      echo "callgrind: $RDMATOP_BENCH_CG.1 (start-up), $RDMATOP_BENCH_CG.2 (20 s after)" ;;
  esac
' 2>&1 | grep -v -e '^dbus-daemon' -e 'SpiRegistry'
