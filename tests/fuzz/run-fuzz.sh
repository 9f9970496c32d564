#!/bin/sh
# run-fuzz.sh FUZZER SEED_DIR ARTIFACT_DIR [SECONDS]
# A bounded libFuzzer run: new inputs go to a scratch directory (the seeds
# stay as generated), a crash is saved under ARTIFACT_DIR and fails the test
# (exit 1: libFuzzer's own 77 would read as "skipped" to meson).
set -eu
fuzzer=$1
seeds=$2
artifacts=$3
seconds=${4:-30}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM
mkdir -p "$artifacts"
exec "$fuzzer" -max_total_time="$seconds" -runs=20000000 -timeout=10 -error_exitcode=1 \
  -rss_limit_mb=2048 -max_len=8192 -print_final_stats=1 \
  -artifact_prefix="$artifacts/" "$work" "$seeds"
