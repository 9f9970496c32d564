#!/bin/sh
# Debian package install test (suite 'packaging'): installs each package
# built by deb-build.sh into a fresh Debian 12 root with apt (dependencies
# resolved by apt from Debian's archive, the packages from a local
# repository), runs what it ships, then purges it with its dependencies and
# checks that the root is as it was.
#
# The root is made once with mmdebstrap and kept as a tarball under
# ~/.cache/rdmatop/deb-root (RDMATOP_CACHE overrides ~/.cache/rdmatop), with
# the .debs apt downloads, so a rerun downloads nothing.  Needs root (chroot).
# Usage: deb-install-test.sh DEB_DIR [BUILDDIR]
# With BUILDDIR, the installed rdmatop-cli also meets live Soft-RoCE devices in
# the test guest (tests/vm/scenario-deb.sh), compared with `rdma -j statistic`.
set -u
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

debs=$(cd "$1" && pwd)
builddir=${2:-}
arch=$(dpkg --print-architecture)
cache=${RDMATOP_CACHE:-$HOME/.cache/rdmatop}/deb-root
base=$cache/bookworm-$arch.tar
archives=$cache/archives-$arch
mirror=${RDMATOP_DEBIAN_MIRROR:-http://deb.debian.org/debian}

[ "$(id -u)" -eq 0 ] || { skip "needs root to chroot"; finish; }
command -v mmdebstrap > /dev/null || { skip "mmdebstrap is not installed (tests/deps.sh packaging)"; finish; }
ls "$debs"/rdmatop-cli_*_"$arch".deb > /dev/null 2>&1 ||
  { notok "no rdmatop-cli .deb in $debs (deb-build.sh makes them)"; finish; }

work=$(mktemp -d "${TMPDIR:-/tmp}/rdmatop-deb.XXXXXX")
root=$work/root
# Whatever still runs in the root is stopped before it is removed: a
# server left behind outlived the test once (its sh stood between it and
# the signal), serving from a deleted root long after.
stop_in_root () {
  for p in /proc/[0-9]*; do
    [ "$(readlink "$p/root" 2> /dev/null)" = "$root" ] && kill -KILL "${p#/proc/}" 2> /dev/null
  done
  return 0
}
cleanup () {
  stop_in_root
  for m in var/cache/apt/archives dev/pts dev proc sys; do
    mountpoint -q "$root/$m" 2> /dev/null && umount -l "$root/$m"
  done
  rm -rf "$work"
}
trap cleanup EXIT INT TERM

mkdir -p "$cache" "$archives/partial"
if [ ! -s "$base" ]; then
  start=$(date +%s)
  if mmdebstrap --variant=apt --format=tar --architectures="$arch" bookworm "$base.part" \
       "deb $mirror bookworm main" "deb $mirror bookworm-updates main" \
       "deb http://deb.debian.org/debian-security bookworm-security main" \
       < /dev/null > "$work/mmdebstrap.log" 2>&1; then
    mv "$base.part" "$base"
    ok "mmdebstrap made a Debian 12 root in $(( $(date +%s) - start )) s ($(du -k "$base" | cut -f1) KiB, cached)"
  else
    notok "mmdebstrap failed:"; tail -20 "$work/mmdebstrap.log" | sed 's/^/#   /'; finish
  fi
fi

# in_root COMMAND...: runs a shell command in the root.
in_root () { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
               LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive /bin/sh -c "$*"; }
apt_opts="-y -q -o APT::Sandbox::User=root -o Dpkg::Options::=--force-unsafe-io"

mkdir -p "$root"
tar -xf "$base" -C "$root"
mount -t proc proc "$root/proc"
mount --bind /dev "$root/dev"
mount --bind /dev/pts "$root/dev/pts"
mount -o bind,ro /sys "$root/sys"
mount --bind "$archives" "$root/var/cache/apt/archives"
cp /etc/resolv.conf "$root/etc/resolv.conf"
mkdir -p "$root/srv/rdmatop"
cp "$debs"/*_"$arch".deb "$debs"/*_all.deb "$root/srv/rdmatop/" 2> /dev/null
rm -f "$root"/srv/rdmatop/*-dbgsym_*.deb
(cd "$root/srv/rdmatop" && dpkg-scanpackages --multiversion . > Packages 2> /dev/null)
echo "deb [trusted=yes] file:/srv/rdmatop ./" > "$root/etc/apt/sources.list.d/local-packages.list"
# shellcheck disable=SC2086
if in_root apt-get $apt_opts update > "$work/update.log" 2>&1; then
  ok "apt-get update in the root (Debian 12 and the local repository)"
else
  notok "apt-get update failed:"; tail -20 "$work/update.log" | sed 's/^/#   /'; finish
fi

# What the root holds, less what apt and dpkg keep for themselves.
list_root () {
  (cd "$root" && find . -xdev \( -path ./proc -o -path ./sys -o -path ./dev -o -path ./tmp \
     -o -path ./var/cache -o -path ./var/lib/apt -o -path ./var/lib/dpkg -o -path ./var/log \
     -o -path ./srv \) -prune -o -print | grep -v -e '^\./etc/ld\.so\.cache$' -e '__pycache__' | sort)
}
list_root > "$work/before"

# check_in_root DESCRIPTION COMMAND: one TAP line, the output as comments.
check_in_root () {
  what=$1; shift
  if in_root "$@" > "$work/out" 2>&1; then ok "$what"; else notok "$what"; fi
  head -c 1500 "$work/out" | sed 's/^/#   /'
}

# owned_by LIST_FILES...: the paths those dpkg .list files name, as ./path,
# also under /usr for /bin, /sbin and /lib (merged-/usr root).
owned_by () {
  cat "$@" /dev/null | sed -e 's|^|.|' -e 'p' -e 's#^\./\(bin\|sbin\|lib\)/#./usr/\1/#' | sort -u
}

# install_purge PACKAGE CHECK_FUNCTION: install alone, check, purge.
install_purge () {
  pkg=$1 checks=$2
  start=$(date +%s)
  # shellcheck disable=SC2086
  if in_root apt-get $apt_opts install --no-install-recommends "$pkg" > "$work/install.log" 2>&1; then
    ok "apt-get install $pkg ($(grep -c '^Setting up' "$work/install.log") packages set up, $(( $(date +%s) - start )) s)"
  else
    notok "apt-get install $pkg failed:"; tail -20 "$work/install.log" | sed 's/^/#   /'; return
  fi
  $checks
  # Before the purge: what the rdmatop packages and what the rest own.
  owned_by "$root"/var/lib/dpkg/info/*rdmatop*.list > "$work/ours"
  owned_by $(ls "$root"/var/lib/dpkg/info/*.list | grep -v rdmatop) > "$work/theirs"
  # shellcheck disable=SC2086
  if in_root apt-get $apt_opts purge --autoremove "$pkg" > "$work/purge.log" 2>&1; then
    ok "apt-get purge --autoremove $pkg"
  else
    notok "apt-get purge $pkg failed:"; tail -20 "$work/purge.log" | sed 's/^/#   /'
  fi
  list_root > "$work/after"
  # Left: any path of the rdmatop packages that was not there before, and
  # new paths no package owns now, other than those a dependency owned (its
  # business, not ours) and the state systemd, dbus and util-linux make at
  # run time.
  owned_by "$root"/var/lib/dpkg/info/*.list > "$work/owned"
  comm -13 "$work/before" "$work/after" > "$work/new"
  comm -12 "$work/new" "$work/ours" | comm -23 - "$work/owned" > "$work/left"
  comm -23 "$work/new" "$work/owned" | comm -23 - "$work/theirs" |
    grep -v -E '^\./(run(/.*)?|etc/machine-id|etc/mtab|etc/g?shadow-|etc/(passwd|group)-|root/\.ssh|var/lib/private|var/lib/systemd/(coredump|pstore))$' \
    >> "$work/left"
  comm -23 "$work/before" "$work/after" >> "$work/left"
  (cd "$root" && find . -xdev \( -path ./proc -o -path ./sys -o -path ./dev -o -path ./srv \
     -o -path ./var/lib/apt -o -path ./var/cache \) -prune -o -name '*rdmatop*' -print) >> "$work/left"
  if [ ! -s "$work/left" ]; then
    ok "nothing of $pkg is left after the purge"
  else
    notok "the purge of $pkg left these behind (or took them away):"
    sort -u "$work/left" | head -30 | sed 's/^/#   /'
  fi
}

# The installed CLI in the Soft-RoCE guest, run in this root: its snapshot
# agrees with rdma's view of live devices.
guest_check () {
  if [ -z "$builddir" ]; then
    skip "no build directory given: the installed CLI is not run in the guest"
    return
  fi
  # The guest sees this machine's files over 9p, mounts included: the
  # root's /proc, /sys and /dev are this machine's while mounted, so they
  # are taken away for the guest, which mounts its own there.
  for m in dev/pts dev sys proc; do umount "$root/$m"; done
  if "$here/../vm/vm-run.sh" --builddir "$builddir" --timeout 280 \
      "$here/../vm/scenario-deb.sh" "$root" > "$work/vm.log" 2>&1; then
    ok "the installed rdmatop-cli agrees with rdma -j statistic in the Soft-RoCE guest"
  else
    notok "the installed rdmatop-cli in the Soft-RoCE guest:"
  fi
  mount -t proc proc "$root/proc"
  mount --bind /dev "$root/dev"
  mount --bind /dev/pts "$root/dev/pts"
  mount -o bind,ro /sys "$root/sys"
  grep -e '^ok' -e '^not ok' -e 'vm-run: error' "$work/vm.log" | sed 's/^/#   /' | head -30
}

cli_checks () {
  check_in_root "rdmatop-cli --version" rdmatop-cli --version
  # No RDMA in a chroot on this kernel (or no device): a sentence, status 1.
  in_root rdmatop-cli snapshot > "$work/out" 2>&1; rc=$?
  if [ $rc -eq 0 ] || grep -q 'RDMA' "$work/out"; then
    ok "rdmatop-cli snapshot: a snapshot or a sentence about RDMA (status $rc)"
  else
    notok "rdmatop-cli snapshot (status $rc) says nothing about RDMA"
  fi
  sed 's/^/#   /' "$work/out" | head -5
  if in_root dpkg-query -W libgtk-4-1 > /dev/null 2>&1; then
    notok "rdmatop-cli pulled in GTK"
  else
    ok "rdmatop-cli pulls in no GTK"
  fi
  unit=/lib/systemd/system/rdmatop-exporter.service
  check_in_root "the exporter unit and its settings are installed" \
    test -f "$unit" -a -f /etc/default/rdmatop-exporter
  if ls "$root"/etc/systemd/system/*.wants/rdmatop-exporter.service > /dev/null 2>&1; then
    notok "rdmatop-exporter.service is enabled on install"
  else
    ok "rdmatop-exporter.service is not enabled on install"
  fi
  if command -v systemd-analyze > /dev/null; then
    if systemd-analyze verify --man=no --root="$root" "$unit" > "$work/out" 2>&1; then
      ok "systemd-analyze verify rdmatop-exporter.service"
    else
      notok "systemd-analyze verify rdmatop-exporter.service"
    fi
    sed 's/^/#   /' "$work/out" | head -10
  else
    skip "systemd-analyze is not installed"
  fi
  serve_check
  guest_check
}

# The unit's command line, with its default settings, answers a scrape on
# loopback (on a free port: the default one may be taken on this machine).
serve_check () {
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  in_root "exec rdmatop-cli serve --listen 127.0.0.1:$port" > "$work/serve.log" 2>&1 &
  spid=$!
  i=0
  until curl -sf "http://127.0.0.1:$port/metrics" > "$work/metrics" 2> /dev/null || [ $i -ge 50 ]; do
    sleep 0.2; i=$((i + 1))
  done
  if grep -q '^rdmatop_up ' "$work/metrics"; then
    ok "the installed exporter answers on 127.0.0.1 ($(grep -c . "$work/metrics") lines, $(grep '^rdmatop_up ' "$work/metrics"))"
  else
    notok "the installed exporter did not answer on 127.0.0.1:$port:"; sed 's/^/#   /' "$work/serve.log" | head
  fi
  # A scrape without an Accept header (curl, agents) gets the 0.0.4 text
  # that promtool reads; one that asks for OpenMetrics gets what the strict
  # OpenMetrics parser reads.
  if promtool check metrics < "$work/metrics" > "$work/lint" 2>&1 && ! [ -s "$work/lint" ]; then
    ok "promtool check metrics passes the scrape without an Accept header"
  else
    notok "promtool check metrics on the scrape without an Accept header:"; sed 's/^/#   /' "$work/lint" | head
  fi
  curl -sf -H 'Accept: application/openmetrics-text;version=1.0.0' "http://127.0.0.1:$port/metrics" > "$work/metrics.om" 2> /dev/null
  if /usr/bin/python3 -c 'import sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families as p
n = sum(len(f.samples) for f in p(open(sys.argv[1], encoding="utf-8").read()))
sys.exit(0 if n > 0 else 1)' "$work/metrics.om" > "$work/lint" 2>&1; then
    ok "the strict OpenMetrics parser reads the scrape that asks for OpenMetrics"
  else
    notok "the OpenMetrics scrape does not parse:"; sed 's/^/#   /' "$work/lint" | tail -3
  fi
  pkill -TERM -P "$spid" 2> /dev/null; kill "$spid" 2> /dev/null; wait "$spid" 2> /dev/null
  i=0
  while in_root "pgrep -x rdmatop-cli" > /dev/null 2>&1 && [ $i -lt 20 ]; do sleep 0.2; i=$((i + 1)); done
  if in_root "pgrep -x rdmatop-cli" > /dev/null 2>&1; then
    notok "the installed exporter did not stop on SIGTERM"
    stop_in_root
  fi
}

lib_checks () {
  check_in_root "librdmatop.so.1 is in the loader's cache" "ldconfig -p | grep -q librdmatop.so.1"
}

dev_checks () {
  # Compiled on this machine against the root's header and pkg-config file
  # (the root has no compiler), run in the root.
  cat > "$work/probe.c" <<'C'
#include <rdmatop.h>
#include <stdio.h>
int main (void) { printf ("librdmatop API %d\n", (int) rdmatop_api_version ()); return 0; }
C
  pc="$root/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)/pkgconfig"
  flags=$(PKG_CONFIG_SYSROOT_DIR="$root" PKG_CONFIG_LIBDIR="$pc" pkg-config --cflags --libs rdmatop)
  # shellcheck disable=SC2086
  if cc -o "$root/tmp/probe" "$work/probe.c" $flags > "$work/out" 2>&1; then
    ok "a program compiles with pkg-config rdmatop ($flags)"
    check_in_root "the program runs against the installed librdmatop" /tmp/probe
  else
    notok "compiling against librdmatop-dev:"; sed 's/^/#   /' "$work/out"
  fi
  rm -f "$root/tmp/probe"
}

python_checks () {
  in_root python3 -c '"import rdmatop; print(rdmatop.snapshot())"' > "$work/out" 2>&1; rc=$?
  if grep -q 'RDMA' "$work/out" && ! grep -q -e ImportError -e ModuleNotFoundError -e OSError "$work/out"; then
    ok "python3 -c 'import rdmatop; print(rdmatop.snapshot())': a snapshot or the no-RDMA error (status $rc)"
  else
    notok "import rdmatop (status $rc):"
  fi
  tail -3 "$work/out" | sed 's/^/#   /'
}

gui_checks () {
  check_in_root "rdmatop --help" rdmatop --help
  check_in_root "the desktop file, metainfo, icon and schema are installed" \
    test -f /usr/share/applications/io.github.rdmatop.Rdmatop.desktop \
      -a -f /usr/share/metainfo/io.github.rdmatop.Rdmatop.metainfo.xml \
      -a -f /usr/share/icons/hicolor/scalable/apps/io.github.rdmatop.Rdmatop.svg \
      -a -f /usr/share/glib-2.0/schemas/gschemas.compiled
  check_in_root "the schema is compiled into gschemas.compiled" \
    "grep -q io.github.rdmatop.Rdmatop /usr/share/glib-2.0/schemas/gschemas.compiled"
}

install_purge rdmatop-cli cli_checks
install_purge librdmatop1 lib_checks
install_purge librdmatop-dev dev_checks
if ls "$root"/srv/rdmatop/python3-rdmatop_*.deb > /dev/null 2>&1; then
  install_purge python3-rdmatop python_checks
fi
if ls "$root"/srv/rdmatop/rdmatop_*.deb > /dev/null 2>&1; then
  install_purge rdmatop gui_checks
else
  skip "no rdmatop (GUI) package was built (profile pkg.rdmatop.nogui)"
fi
finish
