#!/bin/sh
# fuzz-depth.sh [-b BUILDDIR] [-n INPUTS] [-t SECONDS] [-c DIR] [-x FLAGS] [TARGET...]
# Runs every libFuzzer target (or the ones named) to INPUTS inputs each
# (default 10 million), one process at a time (the machine is shared), from
# its seed corpus into a scratch corpus, and prints per target: inputs run,
# coverage (libFuzzer's cov: edges, ft: features), corpus size, crashes,
# seconds.  Not a CI test: CI keeps run-fuzz.sh's short runs.  -t caps each
# target's time (then "inputs" says how far it got).  Crash inputs are kept
# under BUILDDIR/tests/fuzz/depth-artifacts/TARGET/.  -c keeps each target's
# corpus and log in DIR/TARGET and DIR/TARGET.log instead of a scratch folder
# (a later run with the same DIR starts from that corpus).  -x adds libFuzzer
# flags ("-entropic=0": a slow target spends a third of its time on
# libFuzzer's feature bookkeeping otherwise).
#
# The build directory is the fuzzing one:
#   CC=clang meson setup build-fuzz -Dfuzzing=true \
#     -Db_sanitize=address,undefined -Db_lundef=false -Dgui=disabled
set -eu

builddir=build-fuzz
inputs=10000000
seconds=0
keep=
extra=
while getopts b:n:t:c:x: opt; do
  case $opt in
    b) builddir=$OPTARG ;;
    n) inputs=$OPTARG ;;
    t) seconds=$OPTARG ;;
    c) keep=$OPTARG ;;
    x) extra=$OPTARG ;;
    *) echo "usage: $0 [-b BUILDDIR] [-n INPUTS] [-t SECONDS] [-c DIR] [-x FLAGS] [TARGET...]" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))

src=$(cd "$(dirname "$0")" && pwd)
fuzzdir=$builddir/tests/fuzz
[ -d "$fuzzdir" ] || { echo "$0: no $fuzzdir (configure with -Dfuzzing=true)" >&2; exit 2; }
targets=${*:-"fuzz-netlink fuzz-reuse fuzz-procfs fuzz-cgroup fuzz-sysfs fuzz-recording fuzz-stream fuzz-exposition fuzz-gpu fuzz-askpass"}

seeds_of () {
  case $1 in
    fuzz-netlink) echo "$fuzzdir/netlink-seeds" ;;
    fuzz-reuse) echo "$fuzzdir/reuse-seeds" ;;
    fuzz-recording) echo "$fuzzdir/recording-seeds" ;;
    fuzz-stream) echo "$fuzzdir/stream-seeds" ;;
    fuzz-procfs) echo "$src/procfs-seeds" ;;
    fuzz-cgroup) echo "$src/cgroup-seeds" ;;
    fuzz-sysfs) echo "$src/sysfs-seeds" ;;
    fuzz-exposition) echo "$src/exposition-seeds" ;;
    fuzz-gpu) echo "$src/gpu-seeds" ;;
    fuzz-askpass) echo "$src/askpass-seeds" ;;
    *) echo "" ;;
  esac
}

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
export RDMATOP_TEST_FAKE_NVML=${RDMATOP_TEST_FAKE_NVML:-$builddir/tests/libnvidia-ml.so.1}
export RDMATOP_TEST_FAKE_AMDSMI=${RDMATOP_TEST_FAKE_AMDSMI:-$builddir/tests/libamd_smi.so}

if [ -n "$keep" ]; then
  mkdir -p "$keep"
  work=$keep
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT INT TERM
fi
failed=0
printf '%-16s %12s %7s %8s %8s %8s %8s\n' target inputs cov ft corpus crashes seconds
for t in $targets; do
  exe=$fuzzdir/$t
  seeds=$(seeds_of "$t")
  if [ ! -x "$exe" ] || [ -z "$seeds" ]; then
    printf '%-16s %s\n' "$t" "not built"
    failed=1
    continue
  fi
  art=$fuzzdir/depth-artifacts/$t
  mkdir -p "$art" "$work/$t"
  start=$(date +%s)
  rc=0
  # -jobs=1 would fork one worker; running the target itself is the same
  # single process, with its log on our side.
  "$exe" -runs="$inputs" ${seconds:+-max_total_time="$seconds"} -timeout=10 \
    -rss_limit_mb=2048 -max_len=8192 -print_final_stats=1 -error_exitcode=1 $extra \
    -artifact_prefix="$art/" "$work/$t" "$seeds" >"$work/$t.log" 2>&1 || rc=$?
  end=$(date +%s)
  done_line=$(grep -E '^#[0-9]+.*(DONE|pulse|NEW|REDUCE|INITED)' "$work/$t.log" | tail -n 1)
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$t.log" | tail -n 1)
  cov=$(printf '%s\n' "$done_line" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
  ft=$(printf '%s\n' "$done_line" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
  corpus=$(ls "$work/$t" | wc -l)
  crashes=$(ls "$art" | wc -l)
  printf '%-16s %12s %7s %8s %8s %8s %8s\n' "$t" "${runs:-?}" "${cov:-?}" "${ft:-?}" \
    "$corpus" "$crashes" "$((end - start))"
  if [ "$rc" -ne 0 ] || [ "$crashes" -ne 0 ]; then
    failed=1
    grep -E 'ERROR|SUMMARY|assert' "$work/$t.log" | head -n 5 | sed 's/^/    /'
  fi
done
exit $failed
