#!/bin/bash
# Guest script (tests/vm/vm-run.sh): what one scrape costs, with 16
# Soft-RoCE ports, for rdmatop's exporter and for Debian's node_exporter in
# the same guest, and how many bytes a scrape is.
#
#   RDMATOP_VM_RESULTS=/tmp/exp tests/vm/vm-run.sh --builddir build --timeout 600 \
#     tests/bench/guest-exporter.sh [devices=16] [scrapes=200] [window=20] [rounds=3]
#
# CPU is the process's own utime + stime from /proc/PID/stat (10 ms ticks),
# read before and after a burst of sequential scrapes (curl, whose own CPU
# is not counted):
#   - node_exporter does all its work in the scrape: CPU of the burst / scrapes,
#     with the infiniband collector alone and with Debian's default collectors;
#   - the formatting of a new pass, timed inside metrics-fixture bench;
#   - rdmatop samples on its own clock and a scrape formats the latest pass
#     (cached until the next one): a burst within one pass measures a cached
#     scrape; scraping once a second at --interval 0.5 makes every scrape
#     format a new pass, and a window without scrapes, alternating with it,
#     is subtracted (the passes' own cost).
# Results: $RDMATOP_RESULTS/exporter.txt, key=value lines.
. "$RDMATOP_VM_DIR/guest-lib.sh"

devices=16
scrapes=200
window=20
rounds=3
for arg in "$@"; do
  case "$arg" in
    devices=*) devices=${arg#*=} ;;
    scrapes=*) scrapes=${arg#*=} ;;
    window=*) window=${arg#*=} ;;
    rounds=*) rounds=${arg#*=} ;;
    *) vm_die "unknown argument $arg" ;;
  esac
done
OUT=${RDMATOP_RESULTS:-/tmp}/exporter.txt
: >"$OUT"
vm_init
vm_dummy_rxes $(seq 0 $((devices - 1)))
vm_log "$devices devices ready"

cpu_ticks () {
  # utime + stime: fields 14 and 15, after the ')' that ends comm.
  local s
  s=$(cat "/proc/$1/stat") || vm_die "process $1 is gone"
  s=${s##*) }
  set -- $s
  echo $(( ${12} + ${13} ))
}

burst () {
  local url=$1 n=$2 accept=$3 i
  for i in $(seq "$n"); do
    curl -sf -H "Accept: $accept" -o /dev/null "$url" || vm_die "scrape $url failed"
  done
}

# CPU ms per scrape over a burst of n scrapes.
per_scrape_ms () {
  local pid=$1 url=$2 n=$3 accept=$4 t0 t1
  t0=$(cpu_ticks "$pid")
  burst "$url" "$n" "$accept"
  t1=$(cpu_ticks "$pid")
  echo "scale=3; ($t1 - $t0) * 1000 / $(getconf CLK_TCK) / $n" | bc
}

record () {
  vm_log "$1=$2"
  echo "$1=$2" >>"$OUT"
}

OM='application/openmetrics-text;version=1.0.0'
TEXT='text/plain;version=0.0.4'

# rdmatop, cached scrapes: one pass a minute, a burst well inside it.
vm_bg "${VM_AS_USER[@]}" "$VM_CLI" serve --listen 127.0.0.1:9315 --interval 60 >/tmp/serve1.log 2>&1
exp_pid=$VM_LAST_PID
vm_wait_for "the exporter" 30 curl -sf -o /dev/null http://127.0.0.1:9315/readyz
burst http://127.0.0.1:9315/metrics 2 "$OM"
burst http://127.0.0.1:9315/metrics 2 "$TEXT"
record rdmatop_cached_cpu_ms_per_scrape "$(per_scrape_ms "$exp_pid" http://127.0.0.1:9315/metrics "$scrapes" "$OM")"
record rdmatop_scrape_bytes_openmetrics "$(curl -sf -H "Accept: $OM" http://127.0.0.1:9315/metrics | wc -c)"
record rdmatop_scrape_bytes_text "$(curl -sf -H "Accept: $TEXT" http://127.0.0.1:9315/metrics | wc -c)"
record rdmatop_ports "$(curl -sf http://127.0.0.1:9315/metrics | grep -c '^rdmatop_port_state{')"
kill "$exp_pid"

# The formatting itself, in this guest: the fixture's 16 mlx5-like ports
# (51 counters each, heavier than Soft-RoCE's 18) through the same code.
fixture=$VM_BUILDDIR/tests/metrics-fixture
if [ -x "$fixture" ]; then
  for kv in $("$fixture" bench "$devices" 200); do
    case "$kv" in update_us=*|format_us=*|bytes=*) record "fixture_${kv%%=*}" "${kv#*=}" ;; esac
  done
fi

# rdmatop, a new pass before every scrape: windows with a scrape a second
# alternate with windows without; the difference is the scrapes' cost.
vm_bg "${VM_AS_USER[@]}" "$VM_CLI" serve --listen 127.0.0.1:9316 --interval 0.5 >/tmp/serve2.log 2>&1
exp_pid=$VM_LAST_PID
vm_wait_for "the exporter" 30 curl -sf -o /dev/null http://127.0.0.1:9316/readyz
sleep 3
with=0; without=0; n_with=0; with_s=0; without_s=0
now () { date +%s.%N; }
for r in $(seq "$rounds"); do
  w0=$(now); t0=$(cpu_ticks "$exp_pid"); sleep "$window"; t1=$(cpu_ticks "$exp_pid"); w1=$(now)
  without=$((without + t1 - t0)); without_s=$(echo "$without_s + $w1 - $w0" | bc)
  w0=$(now); t0=$(cpu_ticks "$exp_pid")
  end=$((SECONDS + window))
  while [ "$SECONDS" -lt "$end" ]; do
    curl -sf -H "Accept: $OM" -o /dev/null http://127.0.0.1:9316/metrics || vm_die "scrape failed"
    n_with=$((n_with + 1))
    sleep 1
  done
  t1=$(cpu_ticks "$exp_pid"); w1=$(now)
  with=$((with + t1 - t0)); with_s=$(echo "$with_s + $w1 - $w0" | bc)
  vm_log "round $r: $((t1 - t0)) ticks with scrapes; without so far $without ticks in $without_s s"
done
tck=$(getconf CLK_TCK)
record rdmatop_passes_cpu_ms_per_s "$(echo "scale=3; $without * 1000 / $tck / $without_s" | bc)"
record rdmatop_fresh_scrapes "$n_with"
# The passes' cost per second, times the scrape windows' length, taken off.
record rdmatop_fresh_cpu_ms_per_scrape \
  "$(echo "scale=3; ($with - $without * $with_s / $without_s) * 1000 / $tck / $n_with" | bc)"
kill "$exp_pid"
# node_exporter: infiniband alone, then Debian's defaults.
vm_bg "${VM_AS_USER[@]}" prometheus-node-exporter --web.listen-address=127.0.0.1:9100 \
  --collector.disable-defaults --collector.infiniband >/tmp/node1.log 2>&1
node_pid=$VM_LAST_PID
vm_wait_for "node_exporter" 60 curl -sf -o /dev/null http://127.0.0.1:9100/metrics
burst http://127.0.0.1:9100/metrics 5 "$TEXT"
record node_ib_cpu_ms_per_scrape "$(per_scrape_ms "$node_pid" http://127.0.0.1:9100/metrics "$scrapes" "$TEXT")"
record node_ib_scrape_bytes "$(curl -sf http://127.0.0.1:9100/metrics | wc -c)"
kill "$node_pid"
vm_bg "${VM_AS_USER[@]}" prometheus-node-exporter --web.listen-address=127.0.0.1:9101 \
  >/tmp/node2.log 2>&1
node_pid=$VM_LAST_PID
vm_wait_for "node_exporter (defaults)" 60 curl -sf -o /dev/null http://127.0.0.1:9101/metrics
burst http://127.0.0.1:9101/metrics 5 "$TEXT"
record node_default_cpu_ms_per_scrape "$(per_scrape_ms "$node_pid" http://127.0.0.1:9101/metrics $((scrapes / 4 + 1)) "$TEXT")"
record node_default_scrape_bytes "$(curl -sf http://127.0.0.1:9101/metrics | wc -c)"
kill "$node_pid"

vm_ok "measured (see exporter.txt)"
vm_finish
