#!/bin/bash
# Guest script (tests/vm/vm-run.sh) for the remote-host benchmark: the
# bytes per second of `rdmatop-cli serve --stdio` for 16 Soft-RoCE ports at
# a 1 s interval, idle and with traffic on some ports, and its CPU time
# beside `rdmatop-cli watch` at the same interval.
#
# serve and watch run at the same time, on the same devices, for the same
# window: whatever load the guest (TCG on a shared machine) is under falls
# on both alike, which running them one after the other could not promise.
# Their CPU is utime + stime from /proc/PID/stat at the start and the end
# of the window, reported in ms of CPU per second, and serve / watch.
# The window starts after a warm-up: under TCG the dynamic loading from
# the 9p root takes seconds of CPU, more for whichever program starts
# first (it finds the libraries cold), and that is start-up, not what a
# connection costs per second; the start order alternates by round.  The
# stream goes to tmpfs, as it would go to a pipe to sshd, not to the 9p
# results share, whose every write is a round trip to the host.
#
# Arguments (key=value, all optional):
#   devices=16     Soft-RoCE devices (one port each)
#   seconds=60     length of each timed window
#   busy=4         devices with ibv_rc_pingpong traffic during the busy runs
#   rounds=2       windows per condition
#   warmup=10      seconds from the start of both to the window
#
# Results: $RDMATOP_RESULTS/stream.txt, key=value lines.
. "$RDMATOP_VM_DIR/guest-lib.sh"

devices=16
seconds=60
busy=4
rounds=2
warmup=10
for arg in "$@"; do
  case "$arg" in
    devices=*) devices=${arg#*=} ;;
    seconds=*) seconds=${arg#*=} ;;
    busy=*) busy=${arg#*=} ;;
    rounds=*) rounds=${arg#*=} ;;
    warmup=*) warmup=${arg#*=} ;;
    *) vm_die "unknown argument '$arg'" ;;
  esac
done

vm_init
OUT=${RDMATOP_RESULTS:-/tmp}/stream.txt
: >"$OUT"
record () {
  echo "$*" >>"$OUT"
  echo "# $*"
}

hz=$(getconf CLK_TCK)

# utime + stime of PID in clock ticks (fields 14 and 15; the command name
# in parentheses is skipped first, whatever it contains).
cpu_ticks () {
  sed 's/^.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'
}

ms_per_s () {
  awk -v t="$1" -v hz="$hz" -v s="$seconds" 'BEGIN { printf "%.2f", t * 1000 / hz / s }'
}

list=$(seq 0 $((devices - 1)))
# shellcheck disable=SC2086  # the device numbers are words
vm_dummy_rxes $list
vm_log "$devices devices"

# One window: serve --stdio (stdin held open, as ssh does) and watch, both
# at 1 s, started together; the stream's bytes over the same window.
measure_pair () {
  local tag=$1 r=$2 spid wpid s0 s1 w0 w1 b0 b1 stream
  stream=/dev/shm/$tag-$r.stream
  rm -f /tmp/serve-in
  mkfifo /tmp/serve-in
  exec 7<>/tmp/serve-in
  if [ $((r % 2)) = 0 ]; then
    "$VM_CLI" watch --interval 1 >/dev/null &
    wpid=$!
  fi
  "$VM_CLI" serve --stdio --interval 1 </tmp/serve-in >"$stream" &
  spid=$!
  if [ $((r % 2)) = 1 ]; then
    "$VM_CLI" watch --interval 1 >/dev/null &
    wpid=$!
  fi
  sleep "$warmup"
  s0=$(cpu_ticks "$spid"); w0=$(cpu_ticks "$wpid"); b0=$(wc -c <"$stream")
  sleep "$seconds"
  s1=$(cpu_ticks "$spid"); w1=$(cpu_ticks "$wpid"); b1=$(wc -c <"$stream")
  echo stop >&7
  kill "$wpid"
  wait "$spid" || vm_check "serve --stdio exited 0 on stop ($tag run $r)" false
  wait "$wpid" 2>/dev/null || true
  exec 7>&-
  mv "$stream" "$VM_OUT/"
  record "round=$r stream_${tag}_bytes=$((b1 - b0)) stream_${tag}_seconds=$seconds" \
    "stream_${tag}_bytes_per_s=$(awk -v b="$((b1 - b0))" -v s="$seconds" 'BEGIN { printf "%.0f", b / s }')"
  record "round=$r serve_${tag}_cpu_ms_per_s=$(ms_per_s $((s1 - s0)))" \
    "watch_${tag}_cpu_ms_per_s=$(ms_per_s $((w1 - w0)))" \
    "serve_watch_${tag}_ratio=$(awk -v a="$((s1 - s0))" -v b="$((w1 - w0))" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')"
  serve_ticks=$((serve_ticks + s1 - s0)); watch_ticks=$((watch_ticks + w1 - w0))
  vm_check "serve --stdio streamed during the $tag run $r ($((b1 - b0)) bytes)" test "$((b1 - b0))" -gt 1000
  vm_check "watch used CPU during the $tag run $r" test "$((w1 - w0))" -gt 0
}

# Every round of a condition together: what the benchmark table shows.
measure () {
  local r
  serve_ticks=0 watch_ticks=0
  for r in $(seq 1 "$rounds"); do
    measure_pair "$1" "$r"
  done
  record "serve_$1_cpu_ms_per_s=$(awk -v t="$serve_ticks" -v hz="$hz" -v s="$((seconds * rounds))" 'BEGIN { printf "%.2f", t * 1000 / hz / s }')" \
    "watch_$1_cpu_ms_per_s=$(awk -v t="$watch_ticks" -v hz="$hz" -v s="$((seconds * rounds))" 'BEGIN { printf "%.2f", t * 1000 / hz / s }')" \
    "serve_watch_$1_ratio=$(awk -v a="$serve_ticks" -v b="$watch_ticks" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')"
}

measure idle
for i in $(seq 0 $((busy - 1))); do
  vm_pingpong_bg "rxe$i" "rxe$i" "10.210.$i.1" 100000000
done
vm_log "traffic on $busy devices"
measure busy
vm_finish
