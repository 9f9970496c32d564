#!/bin/sh
# /init of the test guest's initramfs (busybox).  Mounts the host's root
# (virtio-9p, read-only) under a tmpfs overlay, binds the extracted kernel
# modules onto /lib/modules and hands over to tests/vm/guest-init.sh.
# Any failure powers the guest off: a test run must never hang.
export PATH=/bin

fail () {
  echo "initramfs: FAIL: $*"
  echo o >/proc/sysrq-trigger
  sleep 5
  poweroff -f
}

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null

for m in $(cat /modules/order); do
  insmod "/modules/$m" || fail "insmod $m"
done

arg () {
  for w in $(cat /proc/cmdline); do
    case "$w" in "$1="*) echo "${w#*=}" ;; esac
  done
}
modules=$(arg rdmatop_modules)
stage2=$(arg rdmatop_stage2)

mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=512000,cache=loose hostroot /mnt/lower ||
  fail "mount of the host root over virtio-9p"
mount -t tmpfs -o mode=0755 tmpfs /mnt/rw || fail "tmpfs"
mkdir -p /mnt/rw/upper /mnt/rw/work
mount -t overlay overlay \
  -o lowerdir=/mnt/lower,upperdir=/mnt/rw/upper,workdir=/mnt/rw/work /newroot ||
  fail "overlay mount"
mkdir -p /newroot/lib/modules
mount --bind "/newroot$modules" /newroot/lib/modules || fail "bind of $modules"
mount -t proc proc /newroot/proc
mount -t sysfs sysfs /newroot/sys
mount -t devtmpfs devtmpfs /newroot/dev
[ -f "/newroot$stage2" ] || fail "stage 2 script $stage2 not found"
exec switch_root /newroot /bin/sh "$stage2"
