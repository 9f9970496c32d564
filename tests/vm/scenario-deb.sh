#!/bin/bash
# The packaged CLI on a real RDMA kernel (issue 33): the rdmatop-cli that
# tests/packaging/deb-install-test.sh installed with apt into its Debian 12
# root, run in that root (chroot, over the guest's own /proc and /sys),
# agrees with `rdma -j dev`, `rdma -j link` and `rdma -j statistic show` on
# live Soft-RoCE devices, checked as scenario-discovery.sh checks the build's
# own CLI.  Not in the vm suite: deb-install-test.sh boots it while the
# package is installed.
# Usage: vm-run.sh --builddir BUILD tests/vm/scenario-deb.sh ROOT
. "$RDMATOP_VM_DIR/guest-lib.sh"
vm_init
O=$VM_OUT
root=${1:-}

if [ -z "$root" ] || [ ! -x "$root/usr/bin/rdmatop-cli" ]; then
  vm_not_ok "no installed rdmatop-cli in the root '$root'"
  vm_finish
fi
# The root is on the host's read-only file system (the host unmounted its
# own /proc, /sys and /dev there); it gets this kernel's.
if mount -t proc proc "$root/proc" 2>"$O/mount.err" && mount -t sysfs sysfs "$root/sys" 2>>"$O/mount.err" &&
   mount --bind /dev "$root/dev" 2>>"$O/mount.err"; then
  vm_ok "the root has the guest's /proc, /sys and /dev"
else
  vm_not_ok "could not mount /proc, /sys and /dev in $root: $(head -c 300 "$O/mount.err"; ls -ld "$root/proc" "$root/sys" 2>&1 | tr '\n' ' ')"
  vm_finish
fi
installed_cli () { chroot "$root" /usr/bin/rdmatop-cli "$@"; }
VM_CLI=installed_cli
vm_is "the installed rdmatop-cli is the packaged one" \
  "$(chroot "$root" dpkg-query -W -f '${Status}' rdmatop-cli 2>&1)" "install ok installed"

vm_dummy_rxe rxe0 d0 10.210.0.1
vm_dummy_rxe rxe1 d1 10.210.1.1
vm_pingpong rxe0 10.210.0.1 100
vm_pingpong rxe1 10.210.1.1 50
vm_rdma_json "$O/deb-before" dev link stat
vm_snapshot "$O/deb.json"
vm_rdma_json "$O/deb-after" stat
vm_pycheck --label "the packaged CLI, 2 devices" discovery --devices 2 \
  --snapshot "$O/deb.json" --rdma "$O/deb-before" --rdma-after "$O/deb-after"
vm_log "installed CLI: $(head -c 200 "$O/deb.json")"
umount "$root/dev" "$root/sys" "$root/proc"
vm_finish
