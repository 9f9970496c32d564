#!/bin/sh
# Stage 2 of the test guest, PID 1 on the overlay root.  Sets up the
# minimum a scenario needs, runs it with a time limit, reports its exit
# status to the host through the results share and the console, and
# always powers off.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8 TERM=dumb

poweroff_now () {
  sync
  echo o >/proc/sysrq-trigger
  # Power-off runs asynchronously and takes the 9p root away first: an
  # external command (sleep) would fail, PID 1 would exit and the kernel
  # would panic on the way down.  Spin on shell builtins instead.
  while :; do :; done
}

report () {
  echo "$1" >/results/rc 2>/dev/null
  echo "RDMATOP-VM-RESULT: $1"
  poweroff_now
}

# /tmp stays the overlay's (writes land in the tmpfs upper layer) so that
# a scenario or build directory under the host's /tmp is still visible.
mount -t tmpfs -o mode=0755 tmpfs /run
mkdir -p /dev/pts /dev/shm /results
mount -t devpts devpts /dev/pts
mount -t tmpfs -o mode=1777 tmpfs /dev/shm
mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 results /results ||
  { echo "guest-init: FAIL: cannot mount the results share"; poweroff_now; }
[ -f /results/env ] || report 1
# shellcheck disable=SC1091
. /results/env
export RDMATOP_SCENARIO RDMATOP_BUILDDIR RDMATOP_VM_DIR RDMATOP_BROKEN RDMATOP_GUEST_TIMEOUT
for v in ASAN_OPTIONS UBSAN_OPTIONS LSAN_OPTIONS; do
  eval "[ -z \"\${$v:-}\" ] || export $v"
done
export RDMATOP_RESULTS=/results
hostname rdmatop-vm
ip link set lo up
# Kernel messages at warning level and above still reach the console;
# they help explain a failure and do not disturb the scenario output.
echo 4 >/proc/sys/kernel/printk

echo "guest-init: kernel $(uname -r), scenario $(basename "$RDMATOP_SCENARIO")"
cd /tmp || report 1
rc=0
# The arguments file holds one argument per line.
set --
while IFS= read -r a; do set -- "$@" "$a"; done </results/args
timeout -k 5 "$RDMATOP_GUEST_TIMEOUT" /bin/bash "$RDMATOP_SCENARIO" "$@" </dev/null 2>&1 || rc=$?
if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
  echo "guest-init: FAIL: scenario exceeded ${RDMATOP_GUEST_TIMEOUT}s"
fi
report "$rc"
