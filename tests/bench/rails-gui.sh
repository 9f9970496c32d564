#!/bin/sh
# rails-gui.sh BUILDDIR: what the Rails view costs beside the overview, on
# this machine, natively, in one run: each case is rdmatop under an Xvfb of
# its own (1600x1000, GSK_RENDERER=cairo), its CPU and its X server's over
# RDMATOP_BENCH_WINDOW (30) s after 12 s of warm-up, as ms of CPU per
# second, and as a ratio to the first case:
#   1. the overview showing 16 busy ports of one host (the baseline);
#   2. the Rails view showing 64 busy ports, 8 hosts of 8 (issue 37's
#      bound: it must not cost more than case 1);
#   3. the overview showing those 64 ports, for scale;
#   4. and 5. the Health Events tab (empty: nothing drawn each second) with
#      16 ports of one host and with 64 of eight: what receiving and keeping
#      the hosts' passes costs whatever the view, so that each view's own
#      cost is its row less the floor of its ports.
# Hosts are stream-synth-serve behind a stand-in ssh (as native-gui.sh).
# RDMATOP_BENCH_ROUNDS=N (1) runs the five cases N times over, in turn, and
# ends with a table of each case's median: run to run, one case moves by
# 2 ms/s on this machine, so one round cannot tell 12 from 14.
# Not a test: figures depend on the machine.  Prints markdown tables.
set -eu

builddir=$(cd "$1" && pwd)
window=${RDMATOP_BENCH_WINDOW:-30}
rounds=${RDMATOP_BENCH_ROUNDS:-1}
warm=12
tick=$(getconf CLK_TCK)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT INT TERM
printf '#!/bin/sh\nexec "%s"\n' "$builddir/tests/bench/stream-synth-serve" >"$scratch/ssh"
chmod +x "$scratch/ssh"

ticks () {
  sed 's/.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'
}

base=
# measure LABEL VIEW DEVICES_PER_HOST HOST...: prints a table row.
measure () {
  label=$1 view=$2 devices=$3
  shift 3
  cfg=$(mktemp -d "$scratch/cfg.XXXXXX")
  mkdir -p "$cfg/glib-2.0/settings"
  printf "[io/github/rdmatop/Rdmatop]\nwindow-width=1600\nwindow-height=1000\nlast-view='%s'\n" "$view" \
    >"$cfg/glib-2.0/settings/keyfile"
  hosts=
  for h in "$@"; do hosts="$hosts --host $h"; done
  n=$((100 + $$ % 800))
  Xvfb ":$n" -screen 0 1600x1000x24 -nolisten tcp >/dev/null 2>&1 &
  xpid=$!
  sleep 2
  # shellcheck disable=SC2086 # one word per --host and host
  DISPLAY=:$n PATH="$scratch:$PATH" GSK_RENDERER=cairo GSETTINGS_BACKEND=keyfile \
    XDG_CONFIG_HOME=$cfg RDMATOP_SYNTH_DEVICES=$devices GSETTINGS_SCHEMA_DIR="$builddir/data" \
    dbus-run-session -- "$builddir/src/app/rdmatop" $hosts >/dev/null 2>&1 &
  ppid=$!
  sleep "$warm"
  prog=
  for c in $(pgrep -P "$ppid"); do
    [ "$(cat "/proc/$c/comm")" = dbus-daemon ] || prog=$c
  done
  p0=$(ticks "$prog"); x0=$(ticks "$xpid")
  sleep "$window"
  p1=$(ticks "$prog"); x1=$(ticks "$xpid")
  kill "$prog" 2>/dev/null || true
  wait "$ppid" 2>/dev/null || true
  kill "$xpid" 2>/dev/null || true
  wait "$xpid" 2>/dev/null || true
  sum=$((p1 - p0 + x1 - x0))
  [ -n "$base" ] || base=$sum
  printf '%s\t%s\t%s\n' "$label" $((p1 - p0)) $((x1 - x0)) >>"$scratch/rows"
  awk -v l="$label" -v p=$((p1 - p0)) -v x=$((x1 - x0)) -v t="$tick" -v w="$window" -v b="$base" \
    'BEGIN { f = 1000 / t / w; printf "| %s | %.1f | %.1f | %.1f | %.2f |\n", l, p * f, x * f, (p + x) * f, (b > 0 ? (p + x) / b : 0) }'
}

echo "Native, this machine: ms of CPU per second over ${window} s (Xvfb each, GSK_RENDERER=cairo), 1 s interval"
echo
echo "| case | rdmatop | Xvfb | sum | sum / overview of 16 |"
echo "|---|---|---|---|---|"
round=0
while [ "$round" -lt "$rounds" ]; do
  round=$((round + 1))
  base=
  measure "Overview, 16 busy ports (1 host)" overview 16 synth
  measure "Rails, 64 busy ports (8 hosts x 8)" rails 8 n1 n2 n3 n4 n5 n6 n7 n8
  measure "Overview, 64 busy ports (8 hosts x 8)" overview 8 n1 n2 n3 n4 n5 n6 n7 n8
  measure "Events tab, 16 busy ports (1 host): the floor" events 16 synth
  measure "Events tab, 64 busy ports (8 hosts x 8): the floor" events 8 n1 n2 n3 n4 n5 n6 n7 n8
done
[ "$rounds" -gt 1 ] || exit 0
echo
echo "Medians of $rounds rounds (each column's own median; the ratio is of the sums' medians):"
echo
echo "| case | rdmatop | Xvfb | sum | sum / overview of 16 |"
echo "|---|---|---|---|---|"
awk -F '\t' -v t="$tick" -v w="$window" '
  function median(list,    a, n, i, j, x) {
    n = split(list, a, " ")
    for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  !($1 in seen) { seen[$1] = 1; order[++k] = $1 }
  { p[$1] = p[$1] " " $2; x[$1] = x[$1] " " $3; s[$1] = s[$1] " " ($2 + $3) }
  END {
    f = 1000 / t / w
    b = median(s[order[1]])
    for (i = 1; i <= k; i++) {
      l = order[i]
      printf "| %s | %.1f | %.1f | %.1f | %.2f |\n", l, median(p[l]) * f, median(x[l]) * f, median(s[l]) * f, (b > 0 ? median(s[l]) / b : 0)
    }
  }' "$scratch/rows"
