#!/bin/bash
# vm-run.sh's own rules, with a stand-in for qemu-system-x86_64 on PATH and
# a kernel cache of empty files: no guest boots (TAP, suite 'unit').
#  1. qemu dying of a signal before the guest reported runs the scenario
#     again, and only the second run's checks count;
#  2. qemu dying every time is a failure, after three attempts;
#  3. a guest that reports failure is not run again;
#  4. a guest that powers off without a result (qemu exits 0) is a failure,
#     not run again.
set -u

vm_run=$(cd "$(dirname "$0")" && pwd)/vm-run.sh
work=$(mktemp -d "${TMPDIR:-/tmp}/test-vm-run.XXXXXX")
trap 'rm -rf "$work"' EXIT
n=0
failed=0

ok () { n=$((n + 1)); echo "ok $n - $1"; }
not_ok () { n=$((n + 1)); failed=1; echo "not ok $n - $1"; sed 's/^/# /' "$work/out"; }

# The cache vm-run.sh finds ready: a kernel, an initrd newer than the
# initramfs script, and the guest's modules named as built in.
kver=6.12.0+deb12-amd64
kdir="$work/cache/$kver"
mkdir -p "$kdir/boot" "$kdir/lib/modules/$kver"
: >"$kdir/boot/vmlinuz-$kver"
: >"$kdir/initrd.img"
touch -d '+1 hour' "$kdir/initrd.img"
: >"$kdir/lib/modules/$kver/modules.dep"
for m in rdma_rxe ib_uverbs rdma_ucm dummy veth sch_netem virtio_net; do
  echo "kernel/$m.ko"
done >"$kdir/lib/modules/$kver/modules.builtin"
touch "$kdir/ready"

# The stand-in qemu: reads the results folder from its -fsdev argument and
# acts out the next line of $work/script (one line per boot):
#   segv        dies of SIGSEGV, leaving a check behind as a lost run would
#   pass / fail the guest reports 0 / 1 with one passed / failed check
#   silent      powers off without a result
mkdir -p "$work/bin"
cat >"$work/bin/qemu-system-x86_64" <<'EOF'
#!/bin/bash
results=""
for a in "$@"; do
  case "$a" in
    local,id=results,path=*) results=${a#local,id=results,path=}; results=${results%%,*} ;;
  esac
done
boots=$(($(cat "$STUB_DIR/boots" 2>/dev/null || echo 0) + 1))
echo "$boots" >"$STUB_DIR/boots"
act=$(sed -n "${boots}p" "$STUB_DIR/script")
echo "guest-init: boot $boots ($act)" >>"$results/console.log"
case "$act" in
  segv) echo fail >>"$results/tally"; kill -SEGV $$ ;;
  pass) echo ok >>"$results/tally"; echo 0 >"$results/rc" ;;
  fail) echo fail >>"$results/tally"; echo 1 >"$results/rc" ;;
  silent) ;;
esac
exit 0
EOF
chmod 755 "$work/bin/qemu-system-x86_64"
: >"$work/scenario.sh"

run () {
  # $1 = the boots' acts, one per line
  printf '%s\n' "$@" >"$work/script"
  rm -f "$work/boots"
  STUB_DIR=$work PATH="$work/bin:$PATH" RDMATOP_VM_CACHE="$work/cache" \
    RDMATOP_VM_KERNEL=$kver RDMATOP_VM_TIMEOUT=60 \
    "$vm_run" "$work/scenario.sh" >"$work/out" 2>&1
  status=$?
  boots=$(cat "$work/boots" 2>/dev/null || echo 0)
}

run segv pass
if [ "$status" -eq 0 ] && [ "$boots" -eq 2 ] && grep -q '^1 passed, 0 failed$' "$work/out" &&
   grep -q 'qemu itself died (status 139' "$work/out"; then
  ok "qemu's SIGSEGV runs the scenario again; the lost run's check does not count"
else
  not_ok "qemu's SIGSEGV runs the scenario again (status $status, $boots boots)"
fi

run segv segv segv pass
if [ "$status" -ne 0 ] && [ "$boots" -eq 3 ]; then
  ok "qemu dying three times is a failure, after three boots"
else
  not_ok "qemu dying three times is a failure (status $status, $boots boots)"
fi

run fail pass
if [ "$status" -ne 0 ] && [ "$boots" -eq 1 ] && grep -q '^0 passed, 1 failed$' "$work/out"; then
  ok "a guest reporting failure is not run again"
else
  not_ok "a guest reporting failure is not run again (status $status, $boots boots)"
fi

run silent pass
if [ "$status" -ne 0 ] && [ "$boots" -eq 1 ] &&
   grep -q 'without reporting a result (qemu status 0)' "$work/out"; then
  ok "a guest powering off without a result is a failure, not run again"
else
  not_ok "a guest powering off without a result is a failure (status $status, $boots boots)"
fi

echo "1..$n"
exit "$failed"
