#!/bin/bash
# What rdmatop costs, beside what people run today, measured in one run
# (issue 7).  Prints one table and keeps it, with every raw figure, under
# BUILDDIR/benchmarks/.  Benchmarks, not tests: nothing here passes or fails
# on a time; the exit status is non-zero only when the harness itself broke.
#
#   tests/bench/run-benchmarks.sh [--builddir DIR] [--no-build] [--parts LIST]
#                                 [--before DIR]
#
#   --builddir DIR  build to use (default: build-benchmarks in the source
#                   tree, set up and built when missing)
#   --no-build      neither install packages nor build (meson benchmark())
#   --parts LIST    comma-separated subset of: sampling,gui,draw,recording,remote
#                   (default: all)
#   --before DIR    another build directory (e.g. of main, in a git worktree):
#                   the gui part measures its app too, in the same guest, and
#                   prints the before/after table (cost-table.py), with ssh -X
#                   -C, and the terminal rdmatop (cargo install rdmatop, tried
#                   once per build directory) and `rdmatop-cli watch` in tmux
#
# Where it runs: the sampling (1, 2), GUI CPU, start-up and ssh -X (3, 5, 6)
# figures come from the Soft-RoCE guest of tests/vm/ (Debian's 6.12 kernel
# in QEMU, software emulation): absolute times there are 10-50x native and
# meaningless alone, so each is printed beside a baseline measured in the
# same guest in the same run.  The graph draw time (3) and the recording
# memory (4) need no RDMA and run natively on this machine, and so does
# the gui part's second table (native-gui.sh): the window and its X server
# beside GNOME System Monitor, the guest's table marked as emulated.
#
# Scales and durations (environment; defaults fit ~20 min on 2 cores):
#   RDMATOP_BENCH_DEVICES=1,16,64     RDMATOP_BENCH_QPS=0,1000,10000
#   RDMATOP_BENCH_HOLDERS=4           qp-holder processes per QP step
#   RDMATOP_BENCH_PASSES=40           passes per round at 0 QPs
#   RDMATOP_BENCH_ROUNDS=6            floor/rdmatop rounds per scale
#   RDMATOP_BENCH_RDMA_RUNS=3         runs of the rdma commands per scale
#   RDMATOP_BENCH_GUI_DEVICES=16      RDMATOP_BENCH_WINDOW=30 (s of CPU/bytes)
#   RDMATOP_BENCH_STARTUP_RUNS=3      RDMATOP_BENCH_SSH_GL=0 (1: also GL over ssh)
#   RDMATOP_BENCH_REC_SNAPSHOTS=36000 (one hour at 10 samples/s)
set -uo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
bench="$top/tests/bench"
builddir="$top/build-benchmarks"
build=1
before=
parts=sampling,gui,draw,recording,remote

while [ $# -gt 0 ]; do
  case "$1" in
    --builddir) builddir=$2; shift 2 ;;
    --no-build) build=0; shift ;;
    --parts) parts=$2; shift 2 ;;
    --before) before=$(cd "$2" && pwd) || exit 2; shift 2 ;;
    -h|--help) sed -n '2,39p' "$0"; exit 0 ;;
    *) echo "run-benchmarks: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done

case ",$parts," in *,sampling,*|*,gui,*|*,draw,*|*,recording,*|*,remote,*) ;;
  *) echo "run-benchmarks: --parts takes sampling,gui,draw,recording,remote" >&2; exit 2 ;;
esac
want () { case ",$parts," in *",$1,"*) return 0 ;; esac; return 1; }

if [ "$build" = 1 ]; then
  "$top/tests/deps.sh" bench || exit 1
  if [ ! -f "$builddir/build.ninja" ]; then
    meson setup "$builddir" "$top" >/dev/null || exit 1
  fi
  ninja -C "$builddir" -j2 >/dev/null || { ninja -C "$builddir" -j2; exit 1; }
fi
builddir=$(cd "$builddir" && pwd) || exit 1

results="$builddir/benchmarks"
rm -rf "$results"
mkdir -p "$results"
start=$SECONDS

note () {
  echo "run-benchmarks: [$((SECONDS - start))s] $*" >&2
}

# not_measured PART REASON: the table says so instead of a number.
not_measured () {
  mkdir -p "$results/$1"
  echo "$2" >"$results/$1/not-measured"
  note "$1: not measured: $2"
}

# in_guest PART TIMEOUT SCRIPT ARGS...: one guest boot for SCRIPT.
in_guest () {
  local part=$1 timeout=$2 script=$3 rc=0
  shift 3
  note "$part: booting the Soft-RoCE guest ($script $*)"
  RDMATOP_VM_RESULTS="$results/$part" \
    "$top/tests/vm/vm-run.sh" --builddir "$builddir" --timeout "$timeout" \
      "$bench/$script" "$@" >"$results/$part.log" 2>&1 || rc=$?
  # The guest's own verdict counts: the harness can fail after the guest
  # reported (e.g. its script was edited while it ran).
  if [ "$rc" -ne 0 ] && [ "$(cat "$results/$part/rc" 2>/dev/null)" = 0 ]; then
    note "$part: vm-run.sh exited $rc after the guest reported success; using its results"
    rc=0
  fi
  if [ "$rc" -ne 0 ]; then
    not_measured "$part" "the guest run failed (exit $rc): see $results/$part.log"
    tail -n 15 "$results/$part.log" >&2
  fi
}

for part in sampling gui draw recording remote; do
  want "$part" || not_measured "$part" "left out (--parts $parts)"
done

# The terminal rdmatop the seed describes, from the crates registry: installed
# once per build directory with cargo (the outcome is kept, so a registry that
# does not serve it is asked once); prints the binary, or a reason.
terminal_rdmatop () {
  local root="$builddir/seed-rdmatop"
  if [ ! -x "$root/bin/rdmatop" ] && [ ! -f "$root/not-installed" ]; then
    mkdir -p "$root"
    local cargo
    cargo=$(command -v cargo || echo "$HOME/.cargo/bin/cargo")
    if [ ! -x "$cargo" ]; then
      echo "cargo is not installed" >"$root/not-installed"
    elif ! timeout 1800 "$cargo" install --locked --root "$root" rdmatop >"$root/install.log" 2>&1; then
      echo "cargo install rdmatop failed: $(tail -n 1 "$root/install.log")" >"$root/not-installed"
    fi
  fi
  if [ -x "$root/bin/rdmatop" ]; then
    echo "$root/bin/rdmatop"
  else
    note "terminal rdmatop: not measured: $(cat "$root/not-installed")"
    echo "$root/not-installed"
  fi
}

# --- 1, 2: sampling cost (guest) -------------------------------------------
if want sampling; then
  in_guest sampling 1500 guest-sampling.sh \
    "devices=${RDMATOP_BENCH_DEVICES:-1,16,64}" \
    "qps=${RDMATOP_BENCH_QPS:-0,1000,10000}" \
    "holders=${RDMATOP_BENCH_HOLDERS:-4}" \
    "passes=${RDMATOP_BENCH_PASSES:-40}" \
    "rounds=${RDMATOP_BENCH_ROUNDS:-6}" \
    "rdma-runs=${RDMATOP_BENCH_RDMA_RUNS:-3}"
fi

# --- 3, 5, 6: the app, start-up, ssh -X (guest) -----------------------------
if want gui; then
  if [ ! -x "$builddir/src/app/rdmatop" ] || [ ! -x "$builddir/tests/bench/gtk-first-frame" ]; then
    not_measured gui "the GTK app is not built (libgtk-4-dev missing?)"
  else
    extra=()
    if [ -n "$before" ]; then
      extra=("before=$before" gsm100=0 compress=1 "term=$(terminal_rdmatop)")
    fi
    in_guest gui 2400 guest-gui.sh \
      "devices=${RDMATOP_BENCH_GUI_DEVICES:-16}" \
      "window=${RDMATOP_BENCH_WINDOW:-30}" \
      "startup-runs=${RDMATOP_BENCH_STARTUP_RUNS:-3}" \
      "ssh-gl=${RDMATOP_BENCH_SSH_GL:-0}" "${extra[@]}"
    # The same window natively, with its X server, beside System Monitor:
    # the guest's figures are emulated, these are what users run.
    note "gui: natively on this machine, beside System Monitor (native-gui.sh)"
    mkdir -p "$results/gui"
    if ! timeout 900 "$bench/native-gui.sh" "$builddir" ${before:+"$before"} \
         >"$results/gui/native.txt" 2>"$results/gui/native.err"; then
      note "gui: the native table failed: $(tail -n 2 "$results/gui/native.err" | tr '\n' ' ')"
    fi
  fi
fi

# --- 3: graph draw time (native, Xvfb) --------------------------------------
if want draw; then
  mkdir -p "$results/draw"
  if [ ! -x "$builddir/tests/bench/gui-draw" ]; then
    not_measured draw "tests/bench/gui-draw is not built (the GTK app is needed)"
  else
    note "draw: gui-draw under Xvfb (GSK_RENDERER=cairo)"
    if ! GSK_RENDERER=cairo GSETTINGS_BACKEND=memory NO_AT_BRIDGE=1 \
         timeout 600 xvfb-run -a -s "-screen 0 1600x1200x24" \
         "$builddir/tests/bench/gui-draw" >"$results/draw/gui-draw.txt" 2>"$results/draw/gui-draw.err"; then
      not_measured draw "gui-draw failed: $(tail -n 2 "$results/draw/gui-draw.err" | tr '\n' ' ')"
    fi
  fi
fi

# --- 4: recording memory and size (native) ----------------------------------
if want recording; then
  mkdir -p "$results/recording"
  if [ ! -x "$builddir/tests/bench/rec-memory" ]; then
    not_measured recording "tests/bench/rec-memory is not built"
  else
    note "recording: rec-memory, one simulated hour"
    if ! timeout 900 "$builddir/tests/bench/rec-memory" "${RDMATOP_BENCH_REC_SNAPSHOTS:-36000}" \
         >"$results/recording/rec-memory.txt" 2>"$results/recording/rec-memory.err"; then
      not_measured recording "rec-memory failed: $(tail -n 2 "$results/recording/rec-memory.err" | tr '\n' ' ')"
    fi
  fi
fi

# --- 7: a remote host over SSH (native: sshd on 127.0.0.1) -------------------
if want remote; then
  mkdir -p "$results/remote"
  if [ ! -x "$builddir/tests/bench/remote-bytes" ] || [ ! -x /usr/sbin/sshd ]; then
    not_measured remote "tests/bench/remote-bytes or /usr/sbin/sshd is missing"
  else
    note "remote: the stream of 16 busy ports over a real ssh connection, 1 s interval"
    if ! timeout 600 "$bench/ssh-stream-bytes.sh" "$builddir" "${RDMATOP_BENCH_REMOTE_S:-60}" \
         >"$results/remote/remote.txt" 2>"$results/remote/remote.err"; then
      not_measured remote "ssh-stream-bytes.sh failed: $(tail -n 2 "$results/remote/remote.err" | tr '\n' ' ')"
    fi
  fi
  # The remote's CPU: serve --stdio (what ssh runs there) beside watch, at
  # the same time on the same 16 Soft-RoCE ports in one guest.
  in_guest remote-cpu 900 guest-stream.sh devices=16 seconds="${RDMATOP_BENCH_REMOTE_CPU_S:-45}" rounds=2
  if [ -s "$results/remote-cpu/stream.txt" ]; then
    grep -E '^serve_(idle|busy)_cpu' "$results/remote-cpu/stream.txt" | while read -r line; do
      note "remote-cpu: $line"
    done
  fi
fi

note "done; the table:"
python3 "$bench/bench-table.py" "$results" --elapsed "$((SECONDS - start))" \
  | tee "$results/benchmarks.txt"
status=${PIPESTATUS[0]}
if [ -n "$before" ] && want gui; then
  python3 "$bench/cost-table.py" "$results/gui/gui.txt" --before "$before" --after "$builddir" \
    --not-installed "$builddir/seed-rdmatop/not-installed" | tee "$results/cost.txt"
fi
if [ -s "$results/gui/native.txt" ]; then
  echo
  cat "$results/gui/native.txt"
fi
echo "(kept in $results/benchmarks.txt, raw figures beside it)" >&2
exit "$status"
