#!/bin/sh
# Builds test-librdmatop.c the way a user's program is built, with the
# compiler and the flags pkg-config gives for "rdmatop" (the build tree's
# uninstalled .pc), and runs it.  TAP.
#
# Usage: test-librdmatop.sh CC SOURCE BUILD_ROOT
set -eu
cc=$1 src=$2 build=$3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rdmatop-lib.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export PKG_CONFIG_PATH="$build/meson-uninstalled${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
version=$(pkg-config --modversion rdmatop)
# shellcheck disable=SC2046  # pkg-config's words are meant to split
"$cc" -std=c99 -Wall -Wextra -Werror -pedantic $(pkg-config --cflags rdmatop) -o "$tmp/test" "$src" \
  $(pkg-config --libs rdmatop) -lpthread
# The soname, not the development link, is what the program needs.
readelf -d "$tmp/test" | grep -q 'NEEDED.*\[librdmatop\.so\.1\]' ||
  { echo "not ok - the program does not need librdmatop.so.1"; exit 1; }
LD_LIBRARY_PATH="$build/src/lib" "$tmp/test" "$version"
