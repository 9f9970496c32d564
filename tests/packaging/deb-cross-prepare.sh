#!/bin/sh
# Run inside the cross-build root by deb-cross-test.sh when the root is
# made: installs the build dependencies of debian/control (copied to
# /tmp/control/debian) for ARCH.
#
# One stand-in first: in Debian 12, libsoup-3.0-dev needs the virtual
# libsysprof-capture-4-dev, which only libsysprof-4-dev provides, and that
# needs libgtk-4-dev and, through libgraphene-1.0-dev, gobject-introspection
# for ARCH, which cannot be installed beside the build machine's python3.
# The capture part libsoup needs is a header folder, a static library and a
# .pc file: they are taken from ARCH's libsysprof-4-dev into a small package
# that provides libsysprof-capture-4-dev.
# Usage: deb-cross-prepare.sh ARCH PROFILES
set -eu
arch=$1 profiles=$2
ma=$(dpkg-architecture -a"$arch" -qDEB_HOST_MULTIARCH 2> /dev/null)
apt_opts="-y -q --no-install-recommends -o APT::Sandbox::User=root"
export DEBIAN_FRONTEND=noninteractive

mkdir -p /tmp/capture && cd /tmp/capture
apt-get download -o APT::Sandbox::User=root "libsysprof-4-dev:$arch"
dpkg-deb -x libsysprof-4-dev_*_"$arch".deb x
version=$(dpkg-deb -f libsysprof-4-dev_*_"$arch".deb Version)
mkdir -p pkg/DEBIAN "pkg/usr/lib/$ma/pkgconfig" pkg/usr/include
cp -a x/usr/include/sysprof-4 pkg/usr/include/
cp -a "x/usr/lib/$ma/libsysprof-capture-4.a" "pkg/usr/lib/$ma/"
cp -a "x/usr/lib/$ma/pkgconfig/sysprof-capture-4.pc" "pkg/usr/lib/$ma/pkgconfig/"
cat > pkg/DEBIAN/control <<CONTROL
Package: rdmatop-cross-sysprof-capture
Version: $version
Architecture: $arch
Provides: libsysprof-capture-4-dev (= $version)
Maintainer: rdmatop tests <nobody@localhost>
Description: sysprof-capture-4 from libsysprof-4-dev, for a cross build only
CONTROL
dpkg-deb -b pkg capture.deb > /dev/null
# shellcheck disable=SC2086
apt-get $apt_opts install ./capture.deb
# shellcheck disable=SC2086
apt-get $apt_opts build-dep -a"$arch" -P"$profiles" /tmp/control
cd / && rm -rf /tmp/capture
