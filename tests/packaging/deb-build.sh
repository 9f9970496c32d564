#!/bin/sh
# Debian packages (suite 'packaging'): builds the binary packages of debian/
# with dpkg-buildpackage from a clean copy of this tree (the files git
# tracks or would track, so build folders and caches stay out), then checks
# them with lintian: no error and no warning (overrides in debian/ carry
# their reason).  The .debs are left in OUT_DIR for deb-install-test.sh.
# ARCH other than the build machine's cross-builds (needs the cross
# toolchain and ARCH's -dev packages: deb-cross-root.sh makes a root that
# has them).
# Usage: deb-build.sh SOURCE_ROOT OUT_DIR [ARCH] [PROFILES]
set -u
# The distribution's tools and Python, not a private one earlier on PATH.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

src=$(cd "$1" && pwd) out=$2
build_arch=$(dpkg --print-architecture 2> /dev/null || echo none)
arch=${3:-$build_arch}
profiles=${4:-}

for tool in dpkg-buildpackage dh lintian; do
  if ! command -v "$tool" > /dev/null; then
    skip "$tool is not installed (tests/deps.sh packaging)"; finish
  fi
done

version=$(dpkg-parsechangelog -l "$src/debian/changelog" -S Version)
upstream=${version%-*}
# OUT_DIR is emptied first: refuse one that holds anything but a former build.
if [ -d "$out" ] && [ -n "$(ls -A "$out")" ] && [ ! -f "$out/build.log" ]; then
  notok "$out is not empty and holds no former package build: give another OUT_DIR"; finish
fi
rm -rf "$out"
mkdir -p "$out"
tree="$out/rdmatop-$upstream"
mkdir -p "$tree"
# Tracked and untracked-but-not-ignored files, so uncommitted work is built
# too; a tracked file deleted in the work tree is left out.
if git -C "$src" rev-parse --git-dir > /dev/null 2>&1; then
  (cd "$src" && git ls-files -co --exclude-standard | while IFS= read -r f; do
     { [ -e "$f" ] || [ -L "$f" ]; } && printf '%s\n' "$f"; done | tar -cf - -T -) | tar -xf - -C "$tree"
else
  (cd "$src" && tar -cf - --exclude='./build*' --exclude=./debian/tmp .) | tar -xf - -C "$tree"
fi
ok "clean copy of the tree in $tree"

args="-us -uc -b"
[ "$arch" != "$build_arch" ] && args="$args -a$arch"
[ -n "$profiles" ] && args="$args -P$profiles"
start=$(date +%s)
# shellcheck disable=SC2086
if (cd "$tree" && nice dpkg-buildpackage $args -j"$(nproc)") > "$out/build.log" 2>&1; then
  ok "dpkg-buildpackage $args ($(( $(date +%s) - start )) s)"
else
  notok "dpkg-buildpackage $args failed; the end of $out/build.log:"
  tail -40 "$out/build.log" | cut -c1-300 | sed 's/^/#   /'
  finish
fi
grep -E '^(Ok|Fail|Skipped|Timeout):' "$out/build.log" | sed 's/^/# dh_auto_test /'

for deb in "$out"/*.deb; do
  echo "# $(basename "$deb"): $(stat -c %s "$deb") bytes, installed $(dpkg-deb -f "$deb" Installed-Size) KiB"
  echo "#   Depends: $(dpkg-deb -f "$deb" Depends)"
done

changes=$(ls "$out"/*.changes)
lintian --fail-on error,warning -I --pedantic "$changes" > "$out/lintian.log" 2>&1
status=$?
grep -v '^running with root privileges' "$out/lintian.log" | sed 's/^/#   /'
if [ $status -eq 0 ]; then
  ok "lintian: no error and no warning ($(grep -c '^[EW]:' "$out/lintian.log") E/W, $(grep -c '^I:' "$out/lintian.log") I, $(grep -c '^P:' "$out/lintian.log") P)"
else
  notok "lintian found errors or warnings (above)"
fi
finish
