#!/bin/bash
# Guest script (tests/vm/vm-run.sh) for the remote-host benchmark: the
# bytes per second of `rdmatop-cli serve --stdio` for 16 Soft-RoCE ports at
# a 1 s interval, idle and with traffic on some ports, and the CPU time of
# serve --stdio beside `rdmatop-cli watch` at the same interval, measured
# one after the other in this guest.
#
# Arguments (key=value, all optional):
#   devices=16     Soft-RoCE devices (one port each)
#   seconds=60     length of each timed run
#   busy=4         devices with ibv_rc_pingpong traffic during the busy runs
#   rounds=2       serve/watch pairs per condition, the order swapped each round
#
# Results: $RDMATOP_RESULTS/stream.txt, key=value lines.
. "$RDMATOP_VM_DIR/guest-lib.sh"

devices=16
seconds=60
busy=4
rounds=2
for arg in "$@"; do
  case "$arg" in
    devices=*) devices=${arg#*=} ;;
    seconds=*) seconds=${arg#*=} ;;
    busy=*) busy=${arg#*=} ;;
    rounds=*) rounds=${arg#*=} ;;
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

# CPU seconds (user + system) of the children of a subshell, from `times`.
cpu_of () {
  local line
  line=$( ( "$@"; times ) 2>/dev/null | tail -n 1)
  # "0m1.234s 0m0.567s"
  echo "$line" | awk '{ split($1, u, /[ms]/); split($2, s, /[ms]/);
                        printf "%.3f", u[1] * 60 + u[2] + s[1] * 60 + s[2] }'
}

serve_run () {
  # stdin says stop after the run (serve exits 0 then); its writer is
  # started by the caller, outside the subshell whose CPU time is counted.
  "$VM_CLI" serve --stdio --interval 1 </tmp/serve-in >"$1"
}

watch_run () {
  "$VM_CLI" watch --interval 1 --count "$seconds" >/dev/null
}

list=$(seq 0 $((devices - 1)))
# shellcheck disable=SC2086  # the device numbers are words
vm_dummy_rxes $list
vm_log "$devices devices"

serve_measure () {
  local tag=$1 r=$2 cpu bytes
  rm -f /tmp/serve-in
  mkfifo /tmp/serve-in
  # watch --count N takes N - 1 intervals: so does this run.
  (sleep $((seconds - 1)); echo stop) >/tmp/serve-in &
  cpu=$(cpu_of serve_run "$VM_OUT/$tag-$r.stream")
  wait $!
  bytes=$(wc -c <"$VM_OUT/$tag-$r.stream")
  record "round=$r stream_${tag}_bytes=$bytes stream_${tag}_seconds=$seconds" \
    "stream_${tag}_bytes_per_s=$(awk -v b="$bytes" -v s="$((seconds - 1))" 'BEGIN { printf "%.0f", b / s }')"
  record "round=$r serve_${tag}_cpu_s=$cpu"
  vm_check "serve --stdio streamed during the $tag run $r ($bytes bytes)" test "$bytes" -gt 1000
}

watch_measure () {
  local tag=$1 r=$2 cpu
  cpu=$(cpu_of watch_run)
  record "round=$r watch_${tag}_cpu_s=$cpu"
  vm_check "watch ran during the $tag run $r ($cpu s)" test -n "$cpu"
}

# serve and watch one after the other, the order swapped each round, so
# neither always runs first after the devices settle.
measure () {
  local tag=$1 r
  for r in $(seq 1 "$rounds"); do
    if [ $((r % 2)) = 1 ]; then
      serve_measure "$tag" "$r"; watch_measure "$tag" "$r"
    else
      watch_measure "$tag" "$r"; serve_measure "$tag" "$r"
    fi
  done
}

measure idle
for i in $(seq 0 $((busy - 1))); do
  vm_pingpong_bg "rxe$i" "rxe$i" "10.210.$i.1" 100000000
done
vm_log "traffic on $busy devices"
measure busy
vm_finish
