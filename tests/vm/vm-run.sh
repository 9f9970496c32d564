#!/bin/bash
# Boots Debian's 6.12 kernel in QEMU (TCG) with this machine's root file
# system shared read-only, runs one scenario script in the guest, and exits
# with the script's status.  See tests/vm/README.md.
#
# Usage: vm-run.sh [--builddir DIR] [--timeout SECONDS] [--ssh-forward PORT]
#                  [--host-side PROGRAM] SCENARIO [ARGS...]
#        vm-run.sh --prepare     (fetch kernel, build initramfs, print paths)
#
# --ssh-forward PORT  QEMU user networking: the guest's eth0 (virtio), its
#                     port 22 reachable from here on 127.0.0.1:PORT ("auto":
#                     a free one)
# --host-side PROGRAM runs PROGRAM here while the guest runs, with
#                     VM_RESULTS_DIR (the results folder the guest writes,
#                     shared both ways) and VM_SSH_PORT; its exit status
#                     counts as one more check, its output is host-side.log
#
# Environment:
#   RDMATOP_VM_CACHE    cache directory (default: tests/vm/cache)
#   RDMATOP_VM_KERNEL   kernel version to use, e.g. 6.12.117+deb12-amd64
#                       (default: the newest linux-image-6.12.*+deb12-amd64-
#                       unsigned that apt can download)
#   RDMATOP_VM_TIMEOUT  hard limit for the whole guest run (default 280 s)
#   RDMATOP_VM_RESULTS  keep the guest's results directory here (artifacts)
#   RDMATOP_VM_CPUS, RDMATOP_VM_MEM   guest size (default 2, 2048)
#   RDMATOP_BROKEN      passed into the guest unchanged (fault injection)
#
# Exit status: the scenario's status; 1 when the harness itself fails (a
# missing package, a kernel that cannot be fetched, a guest that never
# reported a result).  The harness never skips.
set -euo pipefail

vm_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cache=${RDMATOP_VM_CACHE:-$vm_dir/cache}
timeout_s=${RDMATOP_VM_TIMEOUT:-280}
builddir=""
ssh_forward=""
host_side=""

die () {
  echo "vm-run: error: $*" >&2
  exit 1
}

note () {
  echo "vm-run: $*" >&2
}

need_cmd () {
  # $1 = command, $2 = Debian package that ships it
  command -v "$1" >/dev/null 2>&1 ||
    die "'$1' not found: install the Debian package '$2' (tests/deps.sh test does)"
}

# The newest linux-image-6.12.*+deb12-amd64-unsigned that apt has a
# candidate for.  apt-cache search also lists names whose packages have
# gone from the archive, so each name is checked for a candidate.
newest_kernel_version () {
  local names
  names=$(apt-cache search --names-only \
            '^linux-image-6\.12\.[0-9]+\+deb12-amd64-unsigned$' 2>/dev/null |
          awk '{print $1}')
  [ -n "$names" ] || return 1
  # One apt-cache policy call for all names: "NAME:" then "  Candidate: V".
  # shellcheck disable=SC2086
  apt-cache policy $names 2>/dev/null | awk '
    /^[^ ].*:$/ { name = substr($0, 1, length($0) - 1) }
    /^  Candidate: [0-9]/ { print name }' |
    sed -e 's/^linux-image-//' -e 's/-unsigned$//' | sort -V | tail -n 1 | grep .
}

find_kernel_version () {
  local v
  if [ -n "${RDMATOP_VM_KERNEL:-}" ]; then
    echo "$RDMATOP_VM_KERNEL"
    return
  fi
  # apt-cache takes seconds: remember its answer until the apt lists change.
  local memo="$cache/.newest-kernel"
  if [ -s "$memo" ] && [ -d /var/lib/apt/lists ] &&
     [ -z "$(find /var/lib/apt/lists -maxdepth 1 -newer "$memo" -name '*Packages*' -print -quit)" ]; then
    cat "$memo"
    return
  fi
  if v=$(newest_kernel_version); then
    echo "$v" >"$memo"
    echo "$v"
    return
  fi
  # A fresh machine may have empty apt lists.
  if [ "$(id -u)" -eq 0 ]; then
    note "no linux-image-6.12 package known to apt; running apt-get update"
    DEBIAN_FRONTEND=noninteractive apt-get update -q >&2 || true
    if v=$(newest_kernel_version); then
      echo "$v"
      return
    fi
  fi
  # Offline: fall back to the newest kernel already in the cache.
  v=$(cd "$cache" 2>/dev/null && printf '%s\n' 6.12.*+deb12-amd64 | sort -V | tail -n 1 || true)
  if [ -n "$v" ] && [ -f "$cache/$v/ready" ]; then
    note "apt knows no linux-image-6.12 package; using cached $v"
    echo "$v"
    return
  fi
  die "no linux-image-6.12.*+deb12-amd64-unsigned package found by apt-cache" \
      "(Debian 12 security archive 'bookworm-security' must be in the apt sources;" \
      "run apt-get update)"
}

# Prints the module and all its dependencies (dependencies first), as
# paths relative to lib/modules/KVER, using modules.dep.
module_closure () {
  local moddir=$1 name=$2 line path dep
  line=$(grep -E "(^|/)${name}\.ko(\.xz|\.zst|\.gz)?:" "$moddir/modules.dep" || true)
  [ -n "$line" ] || {
    grep -qE "/${name}\.ko" "$moddir/modules.builtin" 2>/dev/null && return 0
    die "kernel module '$name' not found in $moddir/modules.dep"
  }
  path=${line%%:*}
  for dep in ${line#*:}; do
    dep=$(basename "$dep")
    module_closure "$moddir" "${dep%%.ko*}"
  done
  echo "$path"
}

build_initramfs () {
  local kdir=$1 kver=$2 out=$3
  local moddir="$kdir/lib/modules/$kver" tmp m applet
  tmp=$(mktemp -d)
  mkdir -p "$tmp"/{bin,dev,proc,sys,mnt/lower,mnt/rw,newroot,modules}
  cp /bin/busybox "$tmp/bin/busybox"
  for applet in $(/bin/busybox --list); do
    [ "$applet" = busybox ] || ln -sf busybox "$tmp/bin/$applet"
  done
  # Load order matters: dependencies first, each module once.
  : >"$tmp/modules/order"
  for m in netfs 9pnet 9pnet_virtio 9p overlay; do
    module_closure "$moddir" "$m"
  done | awk '!seen[$0]++' | while read -r m; do
    local base
    base=$(basename "$m")
    case "$base" in
      *.xz) xz -dc "$moddir/$m" >"$tmp/modules/${base%.xz}"; base=${base%.xz} ;;
      *.zst) zstd -qdc "$moddir/$m" >"$tmp/modules/${base%.zst}"; base=${base%.zst} ;;
      *) cp "$moddir/$m" "$tmp/modules/$base" ;;
    esac
    echo "$base" >>"$tmp/modules/order"
  done
  cp "$vm_dir/initramfs-init.sh" "$tmp/init"
  chmod 755 "$tmp/init"
  (cd "$tmp" && find . -print0 | cpio --null -o -H newc --quiet) | gzip -1 >"$out.tmp"
  mv "$out.tmp" "$out"
  rm -rf "$tmp"
}

# Downloads, extracts and prepares kernel KVER into $cache/KVER once.
prepare_kernel () {
  local kver=$1 kdir="$cache/$1" pkg tmp
  if [ -f "$kdir/ready" ] && [ "$kdir/initrd.img" -nt "$vm_dir/initramfs-init.sh" ]; then
    return
  fi
  pkg="linux-image-$kver-unsigned"
  if [ ! -f "$kdir/ready" ]; then
    rm -rf "$kdir"
    mkdir -p "$kdir"
    tmp=$(mktemp -d)
    # apt drops privileges to _apt for the download when it can.
    chmod 755 "$tmp"
    note "downloading $pkg"
    (cd "$tmp" && apt-get download -q "$pkg" >&2) ||
      die "apt-get download $pkg failed (network, or package gone: run apt-get update)"
    note "extracting $pkg"
    dpkg -x "$tmp"/*.deb "$kdir"
    rm -rf "$tmp"
    # The kernel image and modules only; firmware and docs are not needed.
    rm -rf "${kdir:?}/usr"
    depmod -b "$kdir" "$kver" || die "depmod -b $kdir $kver failed"
    [ -f "$kdir/boot/vmlinuz-$kver" ] || die "$pkg has no boot/vmlinuz-$kver"
  fi
  note "building initramfs for $kver"
  build_initramfs "$kdir" "$kver" "$kdir/initrd.img"
  touch "$kdir/ready"
}

# Modules the scenarios load, stored decompressed: the guest's kmod
# decompresses .ko.xz in emulated code, which cost about 8 s per boot.
GUEST_MODULES="rdma_rxe ib_uverbs rdma_ucm dummy veth sch_netem virtio_net"

decompress_guest_modules () {
  local kver=$1 moddir="$cache/$1/lib/modules/$1" m changed=0
  for m in $(for n in $GUEST_MODULES; do module_closure "$moddir" "$n"; done | sort -u); do
    case "$m" in
      *.ko.xz) xz -d "$moddir/$m" && changed=1 ;;
      *.ko.zst) zstd -q --rm -d "$moddir/$m" && changed=1 ;;
    esac
  done
  if [ "$changed" -eq 1 ]; then
    depmod -b "$cache/$kver" "$kver" || die "depmod -b $cache/$kver $kver failed"
  fi
}

check_tools () {
  need_cmd qemu-system-x86_64 qemu-system-x86
  need_cmd apt-cache apt
  need_cmd dpkg dpkg
  need_cmd depmod kmod
  need_cmd cpio cpio
  need_cmd xz xz-utils
  need_cmd zstd zstd
  need_cmd gzip gzip
  need_cmd flock util-linux
  need_cmd timeout coreutils
  need_cmd python3 python3
  if ! [ -x /bin/busybox ] || ! /bin/busybox --list | grep -x switch_root >/dev/null; then
    die "/bin/busybox (static, with switch_root) not found: install 'busybox-static'"
  fi
  # The initramfs has no libc: Debian's dynamically linked busybox fails there.
  dpkg-query -W -f='${Status}' busybox-static 2>/dev/null | grep 'ok installed' >/dev/null ||
    die "busybox-static is not installed (the 'busybox' package's binary is not static)"
  return 0
}

prepare () {
  check_tools
  mkdir -p "$cache"
  kver=$(find_kernel_version)
  # Serialise preparation between concurrent runs sharing the cache.
  exec 9>"$cache/.lock"
  flock 9
  prepare_kernel "$kver"
  decompress_guest_modules "$kver"
  flock -u 9
  kdir="$cache/$kver"
}

run_guest () {
  local script=$1; shift
  local results log rc qemu_rc tail_pid qemu_pid side_pid="" side_rc=0
  local -a nic=()
  [ -z "$ssh_forward" ] ||
    nic=(-nic "user,model=virtio-net-pci,hostfwd=tcp:127.0.0.1:$ssh_forward-:22")
  results=$(mktemp -d "${TMPDIR:-/tmp}/rdmatop-vm.XXXXXX")
  chmod 777 "$results"
  log="$results/console.log"
  # The scenario's arguments travel through a file: the kernel command
  # line is short and splits on spaces.
  : >"$results/args"
  [ $# -eq 0 ] || printf '%s\n' "$@" >"$results/args"
  {
    echo "RDMATOP_SCENARIO=$script"
    echo "RDMATOP_BUILDDIR=$builddir"
    echo "RDMATOP_VM_DIR=$vm_dir"
    echo "RDMATOP_BROKEN=${RDMATOP_BROKEN:-}"
    echo "RDMATOP_GUEST_TIMEOUT=$((timeout_s - 25))"
    echo "RDMATOP_NET=${ssh_forward:+user}"
    # A sanitizer build's options (meson test sets them) hold in the guest too.
    for v in ASAN_OPTIONS UBSAN_OPTIONS LSAN_OPTIONS; do
      eval "val=\${$v:-}"
      [ -z "$val" ] || printf '%s=%q\n' "$v" "$val"
    done
  } >"$results/env"
  # Under software emulation the guest kernel now and then panics while it
  # boots (an int3 oops during text patching, an IO-APIC timer check),
  # before the scenario has started.  That is the emulator, not rdmatop:
  # boot again, at most three times.  Once the scenario has started, a
  # failure is a failure.
  local attempt start
  for attempt in 1 2 3; do
  : >"$log"
  rm -f "$results/rc" "$results/guest-ready" "$results/host-done"

  note "booting $kver (timeout ${timeout_s}s): $(basename "$script") $*"
  start=$SECONDS
  timeout -k 10 "$timeout_s" qemu-system-x86_64 \
    -accel tcg,thread=multi -cpu max \
    -m "${RDMATOP_VM_MEM:-2048}" -smp "${RDMATOP_VM_CPUS:-2}" \
    -nodefaults -no-user-config -display none -no-reboot \
    -chardev file,id=con,path="$log" -serial chardev:con \
    -kernel "$kdir/boot/vmlinuz-$kver" -initrd "$kdir/initrd.img" \
    -append "console=ttyS0 quiet loglevel=4 panic=-1 no_timer_check rdmatop_modules=$kdir/lib/modules rdmatop_stage2=$vm_dir/guest-init.sh" \
    -fsdev local,id=hostroot,path=/,security_model=none,readonly=on,multidevs=remap \
    -device virtio-9p-pci,fsdev=hostroot,mount_tag=hostroot \
    -fsdev local,id=results,path="$results",security_model=none \
    -device virtio-9p-pci,fsdev=results,mount_tag=results \
    "${nic[@]}" \
    </dev/null >/dev/null 2>"$results/qemu.stderr" &
  qemu_pid=$!
  if [ -n "$host_side" ]; then
    VM_RESULTS_DIR=$results VM_SSH_PORT=$ssh_forward RDMATOP_BUILDDIR=$builddir \
      timeout -k 10 "$timeout_s" "$host_side" >"$results/host-side.log" 2>&1 &
    side_pid=$!
  fi
  tail -n +1 -f --pid="$qemu_pid" "$log" &
  tail_pid=$!
  qemu_rc=0
  wait "$qemu_pid" || qemu_rc=$?
  wait "$tail_pid" 2>/dev/null || true
  note "guest ran $((SECONDS - start))s"
  if [ -n "$side_pid" ]; then
    # The guest is gone: whatever the host side still waits for will not come.
    touch "$results/guest-gone"
    wait "$side_pid" || side_rc=$?
    side_pid=""
  fi
  if [ ! -f "$results/rc" ] && [ "$attempt" -lt 3 ]; then
    if ! grep -q '^guest-init:' "$log" && grep -q 'Kernel panic' "$log"; then
      note "the emulated kernel panicked while booting (attempt $attempt), before the scenario started: booting again"
      fresh_results "$results"
      continue
    fi
    # QEMU itself crashing (a TCG fault: seen once as a SIGSEGV three
    # seconds into a boot, in CI) says nothing of the guest: run the
    # scenario again from the start, with the artifacts of the lost run
    # removed so that none of its checks counts.
    case "$qemu_rc" in
      132|134|135|136|139)
        note "qemu itself died (status $qemu_rc, signal $((qemu_rc - 128))) on attempt $attempt, before the guest reported a result: running the scenario again"
        if [ -s "$results/qemu.stderr" ]; then sed 's/^/  qemu: /' "$results/qemu.stderr" >&2; fi
        fresh_results "$results"
        continue ;;
    esac
  fi
  break
  done

  if [ -s "$results/qemu.stderr" ]; then
    note "qemu stderr:"
    sed 's/^/  /' "$results/qemu.stderr" >&2
  fi
  if [ "$qemu_rc" -eq 124 ] || [ "$qemu_rc" -eq 137 ]; then
    note "FAIL: guest did not power off within ${timeout_s}s (killed)"
    rc=1
  elif [ -f "$results/rc" ]; then
    rc=$(cat "$results/rc")
    [[ "$rc" =~ ^[0-9]+$ ]] || { note "FAIL: bad result '$rc'"; rc=1; }
  else
    note "FAIL: guest powered off without reporting a result (qemu status $qemu_rc)"
    rc=1
  fi
  if [ -n "$host_side" ]; then
    note "host side ($(basename "$host_side")), exit status $side_rc:"
    sed 's/^/  /' "$results/host-side.log" >&2
    if [ "$side_rc" -eq 0 ]; then echo ok >>"$results/tally"; else echo fail >>"$results/tally"; fi
  fi
  run_host_checks "$results" || rc=1
  if [ -n "${RDMATOP_VM_RESULTS:-}" ]; then
    mkdir -p "$RDMATOP_VM_RESULTS"
    cp -r "$results"/. "$RDMATOP_VM_RESULTS"/
    note "artifacts in $RDMATOP_VM_RESULTS"
  fi
  rm -rf "$results"
  note "scenario $(basename "$script") exit status $rc"
  return "$rc"
}

# Empties a results folder for another attempt, keeping what the host
# wrote into it before the boot (the scenario's arguments and environment).
fresh_results () {
  find "$1" -mindepth 1 -maxdepth 1 ! -name args ! -name env -exec rm -rf {} +
}

# Runs the vmcheck.py checks the guest queued (one argument per line in
# results/checks/NNN.args) against the artifacts, and prints the total.
run_host_checks () {
  local results=$1 f passed failed status=0
  local -a args
  touch "$results/tally"
  for f in "$results"/checks/*.args; do
    [ -e "$f" ] || continue
    mapfile -t args <"$f"
    VM_TALLY="$results/tally" VM_RESULTS_DIR="$results" \
      python3 "$vm_dir/vmcheck.py" "${args[@]}" || status=1
  done
  passed=$(grep -c '^ok$' "$results/tally" || true)
  failed=$(grep -c '^fail$' "$results/tally" || true)
  echo "1..$((passed + failed))"
  echo "$passed passed, $failed failed"
  if [ "$((passed + failed))" -eq 0 ]; then
    note "FAIL: the scenario ran no check"
    return 1
  fi
  [ "$failed" -eq 0 ] && [ "$status" -eq 0 ]
}

main () {
  local script
  while [ $# -gt 0 ]; do
    case "$1" in
      --builddir) builddir=$(cd "$2" && pwd); shift 2 ;;
      --timeout) timeout_s=$2; shift 2 ;;
      --ssh-forward) ssh_forward=$2; shift 2
        # "auto": a port free on 127.0.0.1 now.
        [ "$ssh_forward" != auto ] || ssh_forward=$(python3 -c \
          'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])') ;;
      --host-side) host_side=$(cd "$(dirname "$2")" && pwd)/$(basename "$2"); shift 2 ;;
      --prepare) prepare; echo "kernel=$kdir/boot/vmlinuz-$kver"; echo "initrd=$kdir/initrd.img"; exit 0 ;;
      -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
      --) shift; break ;;
      -*) echo "vm-run: unknown option $1" >&2; exit 2 ;;
      *) break ;;
    esac
  done
  [ $# -ge 1 ] || { echo "usage: vm-run.sh [--builddir DIR] SCENARIO [ARGS]" >&2; exit 2; }
  script=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
  shift
  [ -f "$script" ] || die "scenario $script not found"
  case "$script$builddir$vm_dir$cache" in
    *[[:space:]]*) die "paths with spaces cannot be passed to the guest" ;;
  esac
  prepare
  run_guest "$script" "$@"
}

main "$@"; exit "$?"  # one line: an edit of this file during a run cannot be read
