#!/bin/sh
# The capture benchmark: boots the Soft-RoCE guest (through a guest slot
# where the machine has one: VMSLOT=/path/to/vmslot), runs guest-capture.sh
# and prints the figures.
#
# Usage: tests/bench/capture-bench.sh BUILDDIR [seconds=N]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=$1
shift
res=${RDMATOP_VM_RESULTS:-$(mktemp -d "${TMPDIR:-/tmp}/rdmatop-capture-bench.XXXXXX")}
RDMATOP_VM_RESULTS=$res ${VMSLOT:-} "$here/../vm/vm-run.sh" --builddir "$build" --timeout 400 \
  "$here/guest-capture.sh" "$@"
python3 "$here/capture-figures.py" "$res/guest-capture"
