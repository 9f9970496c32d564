#!/bin/sh
# rdmatop-cli record: which option combinations --counters-only allows,
# with the sentences and exit statuses a user gets (TAP).  The recording
# itself at 1 ms is the vm scenario "capture".
#
# Usage: cli-record-options.sh RDMATOP_CLI
set -u
cli=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
n=0 fail=0
dir=$(mktemp -d "${TMPDIR:-/tmp}/rdmatop-cli-opts.XXXXXX")
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1

# expect DESCRIPTION STATUS TEXT ARGS...: exit status and a line of stderr.
expect () {
  desc=$1 want=$2 text=$3
  shift 3
  LC_ALL=C.UTF-8 LANGUAGE= "$cli" record "$@" > out 2> err
  got=$?
  n=$((n + 1))
  if [ "$got" = "$want" ] && grep -qF -- "$text" err; then
    echo "ok $n - $desc"
  else
    echo "not ok $n - $desc: exit $got (wanted $want), stderr: $(head -c 300 err)"
    fail=1
  fi
}

expect "an interval under 0.1 s needs --counters-only" 2 \
  "An interval under 0.1 s (here 0.01) needs --counters-only" --interval 0.01
expect "--port needs --counters-only" 2 "--port needs --counters-only" --port 1
expect "--counters-only: under 1 ms is refused with the library's sentence" 2 \
  "The interval must be a number of seconds from 0.001 to 60, not “0.0001”" \
  --counters-only --interval 0.0001
expect "--counters-only: over 60 s is refused" 2 \
  "The interval must be a number of seconds from 0.001 to 60, not “70”" --counters-only --interval 70
expect "without --counters-only the 0.1 s floor's sentence stays" 2 \
  "The interval must be a number of seconds from 0.1 to 60, not “61”" --interval 61
expect "a port is a number from 1" 2 "A port is a number from 1, not “0”" --counters-only --port 0
# A device that is not there (or no RDMA at all): exit 1, and no file made.
expect "--counters-only with a device that is not there fails at once" 1 "rdmatop-cli: " \
  --counters-only --interval 0.001 --device nosuchdev0 --output rec.csv
n=$((n + 1))
if [ "$(ls | tr '\n' ' ')" = "err out " ]; then
  echo "ok $n - ... and leaves no file behind"
else
  echo "not ok $n - files left: $(ls | tr '\n' ' ')"; fail=1
fi
echo "1..$n"
exit $fail
