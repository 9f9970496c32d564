#!/bin/bash
# Scenario 1 (and 6): discovery and raw counters agree with `rdma -j dev`,
# `rdma -j link` and `rdma -j statistic show` on 1 and on 16 devices, as
# root and as an unprivileged user; devices come in natural order.
. "$RDMATOP_VM_DIR/guest-lib.sh"
vm_init
O=$VM_OUT

# Compares a root and a user snapshot taken while rdma's view is stable.
compare () {
  local tag=$1 n=$2
  vm_rdma_json "$O/$tag-before" dev link stat
  vm_snapshot "$O/$tag-root.json"
  vm_snapshot_as_user "$O/$tag-user.json"
  vm_rdma_json "$O/$tag-after" stat
  vm_pycheck --label "$n devices, root" discovery --devices "$n" \
    --snapshot "$O/$tag-root.json" --rdma "$O/$tag-before" --rdma-after "$O/$tag-after"
  vm_pycheck --label "$n devices, user" discovery --devices "$n" \
    --snapshot "$O/$tag-user.json" --rdma "$O/$tag-before" --rdma-after "$O/$tag-after"
}

vm_dummy_rxe rxe0 d0 10.210.0.1
vm_pingpong rxe0 10.210.0.1 100
compare one 1
vm_log "1 device compared"

# 15 more, created out of natural order so that the kernel's index order
# (creation order) differs from the order a person expects.
vm_dummy_rxes 10 1 15 2 12 3 9 4 14 5 11 6 13 7 8
vm_log "16 devices"
vm_pingpong rxe2 10.210.2.1 50
vm_pingpong rxe10 10.210.10.1 150
vm_snapshot "$O/filter.json" --device rxe10,rxe3
compare many 16
vm_pycheck discovery --devices 2 --snapshot "$O/filter.json" --rdma "$O/many-before" \
  --filter rxe10,rxe3

rc=0; "$VM_CLI" snapshot --no-such-option >/dev/null 2>&1 || rc=$?
vm_is "an unknown option exits 2" "$rc" 2
rc=0; "$VM_CLI" watch --interval -1 --count 1 >/dev/null 2>&1 || rc=$?
vm_is "a negative interval exits 2" "$rc" 2

# The netlink transport's real-kernel test, which a machine without RDMA
# netlink skips: here it must run, as an unprivileged user, and pass.
nl_test="$VM_BUILDDIR/tests/test-nl-transport"
out=$(vm_as_user "$nl_test" --tap -p /collector/netlink/transport/open-real-kernel 2>&1) || true
echo "$out" | sed 's/^/  nl: /'
if echo "$out" | grep -q '^ok [0-9]* /collector/netlink/transport/open-real-kernel$'; then
  vm_ok "the netlink transport's real-kernel test runs and passes here"
else
  vm_not_ok "the netlink transport's real-kernel test did not pass here"
fi
vm_finish
