#!/bin/sh
# native-gui.sh BUILDDIR [BEFORE_BUILDDIR]: what the window costs on this
# machine, natively, beside GNOME System Monitor: each program under an
# Xvfb of its own (1600x1000, GSK_RENDERER=cairo), the CPU of the program
# and of its X server over RDMATOP_BENCH_WINDOW (30) s after 12 s of
# warm-up, as ms of CPU per second.  rdmatop watches 16 busy synthetic
# ports (--host synth, as tests/bench/real-app.sh does); System Monitor
# shows its Resources tab at its default graph interval (100 ms) and at
# 1 s.  With BEFORE_BUILDDIR, that build's rdmatop too, in the same run.
# The last column is the X protocol each program exchanges with its server
# (x-bytes-proxy.py; the server without MIT-SHM, as over ssh -X).
#
# Prints a markdown table (run-benchmarks.sh --parts gui keeps it as
# gui/native.txt).  Not a test: the figures depend on the machine, and the
# guest's table (emulated floating point) is the other half of the story.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
builddir=$(cd "$1" && pwd)
before=${2:+$(cd "$2" && pwd)}
window=${RDMATOP_BENCH_WINDOW:-30}
warm=12
tick=$(getconf CLK_TCK)
gsm=$(command -v gnome-system-monitor || true)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT INT TERM
printf '#!/bin/sh\nexec "%s"\n' "$builddir/tests/bench/stream-synth-serve" >"$scratch/ssh"
chmod +x "$scratch/ssh"

# utime + stime of a process, in clock ticks (the fields after its name).
ticks () {
  sed 's/.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'
}

# measure LABEL SETTINGS_KEYFILE COMMAND...: one program under its own
# Xvfb; prints "| LABEL | program | Xvfb | sum |".
measure () {
  label=$1 keyfile=$2
  shift 2
  cfg=$(mktemp -d "$scratch/cfg.XXXXXX")
  mkdir -p "$cfg/glib-2.0/settings"
  printf '%b' "$keyfile" >"$cfg/glib-2.0/settings/keyfile"
  n=$((100 + $$ % 800))
  # No MIT-SHM: a display over ssh -X has none, so images go through the
  # connection, where the relay (display n + 1) counts them.
  Xvfb ":$n" -screen 0 1600x1000x24 -nolisten tcp -extension MIT-SHM >/dev/null 2>&1 &
  xpid=$!
  python3 "$here/x-bytes-proxy.py" "/tmp/.X11-unix/X$((n + 1))" "/tmp/.X11-unix/X$n" \
    "$scratch/xbytes" &
  relay=$!
  sleep 2
  DISPLAY=:$((n + 1)) PATH="$scratch:$PATH" GSK_RENDERER=cairo GSETTINGS_BACKEND=keyfile \
    XDG_CONFIG_HOME=$cfg dbus-run-session -- "$@" >/dev/null 2>&1 &
  ppid=$!
  sleep "$warm"
  # dbus-run-session's children: its bus and the program.
  prog=
  for c in $(pgrep -P "$ppid"); do
    [ "$(cat "/proc/$c/comm")" = dbus-daemon ] || prog=$c
  done
  p0=$(ticks "$prog"); x0=$(ticks "$xpid"); b0=$(cat "$scratch/xbytes")
  sleep "$window"
  p1=$(ticks "$prog"); x1=$(ticks "$xpid"); b1=$(cat "$scratch/xbytes")
  kill "$prog" 2>/dev/null || true
  wait "$ppid" 2>/dev/null || true
  kill "$xpid" "$relay" 2>/dev/null || true
  wait "$xpid" "$relay" 2>/dev/null || true
  rm -f "/tmp/.X11-unix/X$((n + 1))"
  awk -v l="$label" -v p=$((p1 - p0)) -v x=$((x1 - x0)) -v t="$tick" -v w="$window" -v b=$((b1 - b0)) \
    'BEGIN { f = 1000 / t / w; printf "| %s | %.1f | %.1f | %.1f | %.1f |\n", l, p * f, x * f, (p + x) * f, b / w / 1024 }'
}

app_keys='[io/github/rdmatop/Rdmatop]\nwindow-width=1600\nwindow-height=1000\n'
gsm_keys='[org/gnome/gnome-system-monitor]\ncurrent-tab='"'"'resources'"'"'\ngraph-update-interval=%s\n'

echo "Native, this machine: ms of CPU per second over ${window} s (Xvfb each, GSK_RENDERER=cairo)"
echo
echo "| program | program | Xvfb | sum | X protocol KiB/s (what ssh -X carries) |"
echo "|---|---|---|---|---|"
measure "rdmatop, 16 busy ports, 1 s" "$app_keys" \
  env GSETTINGS_SCHEMA_DIR="$builddir/data" "$builddir/src/app/rdmatop" --host synth
# As ssh -X starts it: SSH_CONNECTION set, so the app takes its remote
# display mode (values every 5 s, a few cells per frame).
measure "rdmatop as over ssh -X, 16 busy ports" "$app_keys" \
  env SSH_CONNECTION="192.0.2.1 50000 192.0.2.2 22" GSETTINGS_SCHEMA_DIR="$builddir/data" \
  "$builddir/src/app/rdmatop" --host synth
if [ -n "$before" ]; then
  printf '#!/bin/sh\nexec "%s"\n' "$before/tests/bench/stream-synth-serve" >"$scratch/ssh"
  measure "rdmatop before, 16 busy ports, 1 s" "$app_keys" \
    env GSETTINGS_SCHEMA_DIR="$before/data" "$before/src/app/rdmatop" --host synth
fi
if [ -n "$gsm" ]; then
  # shellcheck disable=SC2059 # the format is ours
  measure "System Monitor, graphs every 100 ms (default)" "$(printf "$gsm_keys" 100)" "$gsm"
  # shellcheck disable=SC2059
  measure "System Monitor, graphs every 1 s" "$(printf "$gsm_keys" 1000)" "$gsm"
else
  echo "| System Monitor | not installed | | | |"
fi
