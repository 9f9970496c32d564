#!/bin/sh
# Installs everything rdmatop needs to build, run and test on Debian 12 /
# Ubuntu 22.04+.  Idempotent; runs apt-get only when something is missing.
# Usage: tests/deps.sh [build|run|test|bench|packaging]   (default: test; bench =
# test plus what tests/bench/run-benchmarks.sh compares against: sshd, System
# Monitor, tmux; packaging = build plus the Debian packaging tools, which test
# includes for the 'packaging' suite).
# test and bench also install torch and VizTracer into a cached virtual
# environment (tests/python-deps.sh).
set -eu

BUILD_PKGS="meson ninja-build pkg-config gcc libc6-dev libglib2.0-dev libgtk-4-dev libadwaita-1-dev
  libmnl-dev libjson-glib-dev zlib1g-dev libsoup-3.0-dev gettext"
RUN_PKGS="iproute2"
TEST_PKGS="python3 clang libclang-rt-14-dev llvm xvfb xauth dbus dbus-daemon dbus-x11 at-spi2-core
  desktop-file-utils appstream libglib2.0-bin gettext-base groff-base x11-utils
  python3 python3-gi gir1.2-atspi-2.0 imagemagick xdotool flatpak-builder
  qemu-system-x86 busybox-static kmod cpio xz-utils zstd
  rdma-core ibverbs-utils ibverbs-providers libibverbs-dev perftest
  prometheus prometheus-node-exporter python3-prometheus-client nodejs
  openssh-server openssh-client g++ python3-venv python3-setuptools python3-wheel valgrind locales"
BENCH_PKGS="openssh-server openssh-client gnome-system-monitor tmux"
# Debian packages (debian/, suite 'packaging'): build, lintian, and the
# install test's Debian 12 root (mmdebstrap), unit check and scrape.
PACKAGING_PKGS="debhelper dh-python dpkg-dev fakeroot devscripts lintian mmdebstrap
  systemd curl python3"

what=${1:-test}
case "$what" in
  build) pkgs="$BUILD_PKGS" ;;
  run) pkgs="$BUILD_PKGS $RUN_PKGS" ;;
  test) pkgs="$BUILD_PKGS $RUN_PKGS $TEST_PKGS $PACKAGING_PKGS" ;;
  bench) pkgs="$BUILD_PKGS $RUN_PKGS $TEST_PKGS $PACKAGING_PKGS $BENCH_PKGS" ;;
  packaging) pkgs="$BUILD_PKGS $PACKAGING_PKGS" ;;
  *) echo "usage: $0 [build|run|test|bench|packaging]" >&2; exit 2 ;;
esac

missing=""
for p in $pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
# npm: Debian's own package, unless a nodejs that bundles it is installed.
case "$what" in
  test|bench) command -v npm >/dev/null 2>&1 || missing="$missing npm" ;;
esac
if [ -n "$missing" ]; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  echo "Installing:$missing" >&2
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -q
  # shellcheck disable=SC2086
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing
fi

# A locale whose decimal point is a comma, for test-openmetrics's
# locale-independence case.
case "$what" in
  test|bench)
    if ! locale -a 2>/dev/null | grep -qix 'de_DE\.utf-\?8'; then
      SUDO=""
      [ "$(id -u)" -ne 0 ] && SUDO="sudo"
      echo "Generating the de_DE.UTF-8 locale" >&2
      $SUDO localedef -i de_DE -f UTF-8 de_DE.UTF-8
    fi ;;
esac

case "$what" in
  test|bench) "$(dirname "$0")/python-deps.sh" >/dev/null ;;
esac
