#!/bin/sh
# Cross-built Debian packages (suite 'packaging'): builds debian/ for ARCH
# (default arm64) with `dpkg-buildpackage -a ARCH` in a Debian 12 root that
# has the cross toolchain and ARCH's build dependencies (multiarch, from
# Debian's archive), checks the packages with lintian, then runs ARCH's unit
# tests and the installed ARCH rdmatop-cli under qemu-user.
#
# The root is made once with mmdebstrap (deb-cross-prepare.sh: apt-get
# build-dep -a ARCH over debian/control) and cached under ~/.cache/rdmatop/deb-root, keyed by
# debian/control's hash, so a rerun downloads nothing.  Needs root (chroot).
# The window package is left out (profile pkg.rdmatop.nogui): in Debian 12,
# libgtk-4-dev needs libgraphene-1.0-dev, which needs libgirepository1.0-dev
# and so gobject-introspection for ARCH, which depends on ARCH's python3 and
# build-essential and cannot be installed beside the build machine's.  The
# CLI, the library and the Python module build without GTK.
# Usage: deb-cross-test.sh SOURCE_ROOT OUT_DIR [ARCH] [PROFILES]
set -u
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

src=$(cd "$1" && pwd) out=$2
arch=${3:-arm64}
profiles=${4:-cross,nocheck,pkg.rdmatop.nogui}
build_arch=$(dpkg --print-architecture)
cache=${RDMATOP_CACHE:-$HOME/.cache/rdmatop}/deb-root
mirror=${RDMATOP_DEBIAN_MIRROR:-http://deb.debian.org/debian}
gnu=$(dpkg-architecture -a"$arch" -qDEB_HOST_GNU_CPU 2> /dev/null)
qemu=qemu-$gnu-static

[ "$(id -u)" -eq 0 ] || { skip "needs root to chroot"; finish; }
command -v mmdebstrap > /dev/null || { skip "mmdebstrap is not installed (tests/deps.sh packaging)"; finish; }
command -v lintian > /dev/null || { skip "lintian is not installed (tests/deps.sh packaging)"; finish; }

key=$(cat "$src/debian/control" "$here/deb-cross-prepare.sh" | sha256sum | cut -c1-12)
base=$cache/bookworm-$build_arch-cross-$arch-$key.tar
work=$(mktemp -d "${TMPDIR:-/tmp}/rdmatop-cross.XXXXXX")
root=$work/root
cleanup () {
  for m in dev/pts dev proc; do
    mountpoint -q "$root/$m" 2> /dev/null && umount -l "$root/$m"
  done
  rm -rf "$work"
}
trap cleanup EXIT INT TERM
mkdir -p "$cache"

if [ ! -s "$base" ]; then
  start=$(date +%s)
  rm -f "$cache"/bookworm-"$build_arch"-cross-"$arch"-*.tar
  mkdir -p "$work/debian"
  cp "$src/debian/control" "$src/debian/changelog" "$work/debian/"
  if mmdebstrap --variant=apt --format=tar --architectures="$build_arch,$arch" \
       --include="build-essential,crossbuild-essential-$arch,qemu-user-static,meson,ninja-build" \
       --customize-hook="mkdir -p \"\$1/tmp/control/debian\"" \
       --customize-hook="copy-in $work/debian/control $work/debian/changelog /tmp/control/debian" \
       --customize-hook="copy-in $here/deb-cross-prepare.sh /tmp" \
       --customize-hook="chroot \"\$1\" sh /tmp/deb-cross-prepare.sh $arch $profiles" \
       --customize-hook="rm -rf \"\$1/tmp/control\" \"\$1/tmp/deb-cross-prepare.sh\"" \
       bookworm "$base.part" \
       "deb $mirror bookworm main" "deb $mirror bookworm-updates main" \
       "deb http://deb.debian.org/debian-security bookworm-security main" \
       < /dev/null > "$work/mmdebstrap.log" 2>&1; then
    mv "$base.part" "$base"
    ok "mmdebstrap made a Debian 12 root with $arch's build dependencies in $(( $(date +%s) - start )) s ($(du -k "$base" | cut -f1) KiB, cached)"
  else
    rm -f "$base.part"
    notok "mmdebstrap failed:"; tail -30 "$work/mmdebstrap.log" | sed 's/^/#   /'; finish
  fi
fi

in_root () { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
               LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive /bin/sh -c "$*"; }

mkdir -p "$root"
tar -xf "$base" -C "$root"
mount -t proc proc "$root/proc"
mount --bind /dev "$root/dev"
mount --bind /dev/pts "$root/dev/pts"

version=$(dpkg-parsechangelog -l "$src/debian/changelog" -S Version)
tree=$root/build/rdmatop-${version%-*}
mkdir -p "$tree"
if git -C "$src" rev-parse --git-dir > /dev/null 2>&1; then
  (cd "$src" && git ls-files -co --exclude-standard | while IFS= read -r f; do
     { [ -e "$f" ] || [ -L "$f" ]; } && printf '%s\n' "$f"; done | tar -cf - -T -) | tar -xf - -C "$tree"
else
  (cd "$src" && tar -cf - --exclude='./build*' --exclude=./debian/tmp .) | tar -xf - -C "$tree"
fi

start=$(date +%s)
if in_root "cd /build/rdmatop-${version%-*} && DEB_BUILD_OPTIONS=nocheck dpkg-buildpackage -us -uc -b -a$arch -P$profiles -j$(nproc)" \
     > "$work/build.log" 2>&1; then
  ok "dpkg-buildpackage -a$arch -P$profiles ($(( $(date +%s) - start )) s)"
else
  notok "dpkg-buildpackage -a$arch -P$profiles failed:"; tail -40 "$work/build.log" | cut -c1-300 | sed 's/^/#   /'
  finish
fi
rm -rf "$out"; mkdir -p "$out"
cp "$work/build.log" "$root"/build/*.deb "$root"/build/*.changes "$root"/build/*.buildinfo "$out/"
for deb in "$out"/*.deb; do
  echo "# $(basename "$deb"): $(stat -c %s "$deb") bytes, installed $(dpkg-deb -f "$deb" Installed-Size) KiB"
done

lintian --fail-on error,warning -I --pedantic "$out"/*.changes > "$out/lintian.log" 2>&1
status=$?
grep -v '^running with root privileges' "$out/lintian.log" | sed 's/^/#   /'
if [ $status -eq 0 ]; then
  ok "lintian on the $arch packages: no error and no warning"
else
  notok "lintian found errors or warnings in the $arch packages (above)"
fi

# The unit tests that are programs of ARCH, run through qemu-user with the
# commands and environments meson recorded (meson itself skips cross tests
# without an exe_wrapper in its cross file).  The Python tests and those
# that start rdmatop-cli as a child need the build machine's interpreter or
# binfmt_misc, which a container may not have: they are left out.
tests="test-rates test-health test-sampler test-sources test-snapshot test-collector test-capture
  test-nl-parse test-nl-transport test-sysfs test-providers test-procfs test-text test-trace-writer
  test-recording test-recorder test-gpu test-record-format test-openmetrics test-stream"
objdir=obj-$(dpkg-architecture -a"$arch" -qDEB_HOST_GNU_TYPE 2> /dev/null)
cat > "$root/tmp/run-tests.py" <<'PY'
import json, os, subprocess, sys
qemu, names = sys.argv[1], set(sys.argv[2:])
# Under qemu-user a test's own /proc/self entry is the emulator's (its comm
# is "qemu-aarch64-st"), and a child the test starts from its own binary
# runs without the emulator: those cases are skipped.
SKIP = {
    "test-collector": ["-s", "/collector/pass/processes"],
    "test-procfs": ["-s", "/collector/procfs/cache/real-proc"],
    "test-recorder": ["-s", "/recording/recorder/killed/json",
                      "-s", "/recording/recorder/killed/json-gz"],
}
failed = 0
for t in json.load(open("meson-info/intro-tests.json")):
    if t["name"] not in names:
        continue
    env = dict(os.environ, **t["env"])
    try:
        r = subprocess.run([qemu] + t["cmd"] + SKIP.get(t["name"], []), env=env,
                           cwd=t.get("workdir") or ".", stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, encoding="utf-8", errors="replace",
                           timeout=300)
    except subprocess.TimeoutExpired as e:
        failed += 1
        print("FAIL", t["name"], "timed out after 300 s")
        print("\n".join((e.stdout or b"").decode(errors="replace").splitlines()[-10:]))
        continue
    lines = r.stdout.splitlines()
    n_ok = sum(1 for l in lines if l.startswith("ok "))
    n_bad = sum(1 for l in lines if l.startswith("not ok "))
    good = r.returncode == 0 and n_bad == 0
    failed += not good
    print(("PASS" if good else "FAIL"), t["name"], n_ok, "ok", n_bad, "not ok", "status", r.returncode)
    if not good:
        print("\n".join(lines[-15:]))
sys.exit(1 if failed else 0)
PY
# shellcheck disable=SC2086
if in_root "cd /build/rdmatop-${version%-*}/$objdir && python3 /tmp/run-tests.py $qemu $(echo $tests)" \
     > "$work/test.log" 2>&1; then
  ok "$arch unit tests under $qemu: $(grep -c '^PASS' "$work/test.log") programs, $(awk '/^PASS/ {n += $3} END {print n}' "$work/test.log") checks passed"
else
  notok "$arch unit tests under $qemu:"; grep -v '^PASS' "$work/test.log" | head -40 | sed 's/^/#   /'
fi

mkdir -p "$root/srv"
cp "$out"/rdmatop-cli_*_"$arch".deb "$root/srv/"
if in_root "apt-get install -y -q --no-install-recommends -o APT::Sandbox::User=root /srv/rdmatop-cli_*_$arch.deb" > "$work/install.log" 2>&1; then
  ok "apt-get install rdmatop-cli:$arch"
  in_root "$qemu /usr/bin/rdmatop-cli --version" > "$work/out" 2>&1 &&
    ok "$arch rdmatop-cli --version under $qemu: $(cat "$work/out")" ||
    { notok "$arch rdmatop-cli --version under $qemu"; sed 's/^/#   /' "$work/out"; }
  in_root "$qemu /usr/bin/rdmatop-cli snapshot" > "$work/out" 2>&1; rc=$?
  if [ $rc -eq 0 ] || grep -q RDMA "$work/out"; then
    ok "$arch rdmatop-cli snapshot under $qemu: a snapshot or a sentence about RDMA (status $rc)"
  else
    notok "$arch rdmatop-cli snapshot (status $rc)"
  fi
  sed 's/^/#   /' "$work/out" | head -3
else
  notok "apt-get install rdmatop-cli:$arch"; tail -15 "$work/install.log" | sed 's/^/#   /'
fi
finish
