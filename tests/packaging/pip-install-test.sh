#!/bin/sh
# pip install test (suite 'data'): `pip install ./python` from this checkout
# into a fresh venv, offline (the build backend from the system's
# python3-setuptools and python3-wheel, librdmatop from BUILD_DIR through
# RDMATOP_MESON_BUILDDIR), then the package's unit tests run on the
# installed copy, which must carry librdmatop.so.1 and find it there.
#
# Usage: pip-install-test.sh SOURCE_ROOT BUILD_DIR
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
src=$1 build=$2
venv=$(mktemp -d "${TMPDIR:-/tmp}/rdmatop-venv.XXXXXX")
work=$(mktemp -d "${TMPDIR:-/tmp}/rdmatop-pip.XXXXXX")
trap 'rm -rf "$venv" "$work"' EXIT

if /usr/bin/python3 -m venv --system-site-packages "$venv" > "$work/log" 2>&1; then
  ok "python3 -m venv"
else
  notok "python3 -m venv failed (tests/deps.sh installs python3-venv):"
  sed 's/^/#   /' "$work/log"; finish
fi
# A copy of the package folder: the build leaves nothing in the checkout.
cp -R "$src/python" "$work/python"
rm -rf "$work/python/build" "$work/python"/*.egg-info
ln -s "$src/src" "$work/src"
if (cd "$work" && RDMATOP_MESON_BUILDDIR="$build" "$venv/bin/pip" install --no-build-isolation \
      --no-index ./python) > "$work/log" 2>&1; then
  ok "pip install ./python"
else
  notok "pip install ./python failed:"
  tail -n 30 "$work/log" | sed 's/^/#   /'; finish
fi
site=$("$venv/bin/python" -c 'import rdmatop, os; print(os.path.dirname(rdmatop.__file__))' 2>&1)
case "$site" in
  "$venv"/*) ok "the venv's rdmatop is the installed one: $site" ;;
  *) notok "import rdmatop found $site"; finish ;;
esac
if [ -f "$site/librdmatop.so.1" ]; then ok "librdmatop.so.1 is in the package"; else notok "no librdmatop.so.1 in $site"; fi
if (cd "$src/python/tests" && env -u RDMATOP_LIBRARY "$venv/bin/python" -m unittest -q test_rdmatop) \
     > "$work/log" 2>&1; then
  ok "the package's unit tests pass on the installed copy"
else
  notok "the package's unit tests failed on the installed copy:"
  sed 's/^/#   /' "$work/log"
fi

# A wheel and an sdist of the same copy; the wheel installed into a venv
# that sees nothing of the system's Python packages.
if (cd "$work" && RDMATOP_MESON_BUILDDIR="$build" "$venv/bin/pip" wheel --no-build-isolation \
      --no-index --no-deps -w "$work/dist" ./python && cd python &&
      "$venv/bin/python" setup.py -q sdist -d "$work/dist") > "$work/log" 2>&1; then
  ok "a wheel and an sdist: $(cd "$work/dist" && ls | tr '\n' ' ')"
else
  notok "building the wheel and sdist failed:"; tail -n 20 "$work/log" | sed 's/^/#   /'; finish
fi
/usr/bin/python3 -m venv "$work/clean" > "$work/log" 2>&1 &&
  "$work/clean/bin/pip" install -q --no-index "$work"/dist/*.whl >> "$work/log" 2>&1
(cd / && "$work/clean/bin/python" -c 'import rdmatop; print(rdmatop.snapshot())') >> "$work/log" 2>&1
rc=$?
if grep -q RDMA "$work/log" && ! grep -q -e ImportError -e ModuleNotFoundError -e OSError "$work/log"; then
  ok "the wheel in a clean venv: import rdmatop; rdmatop.snapshot() gives a snapshot or the no-RDMA error (status $rc)"
else
  notok "the wheel in a clean venv (status $rc):"; tail -n 10 "$work/log" | sed 's/^/#   /'
fi
finish
