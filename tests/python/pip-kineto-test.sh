#!/bin/sh
# pip install test with torch (suite 'data'): the way the seed's users
# install rdmatop into their training environment,
# `pip install --no-build-isolation ./python`, into a fresh venv that sees
# the pinned torch (a .pth naming TORCH_PYTHON's site folder, so torch is
# not downloaded again), offline.  The install must build rdmatop._kineto
# against that torch, and a real torch.profiler trace must then carry
# rdmatop's counter tracks (pip-kineto-check.py).
#
# Usage: pip-kineto-test.sh SOURCE_ROOT BUILD_DIR TORCH_PYTHON
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../packaging/lib.sh"
src=$1 build=$2 torch_python=$3
venv=$(mktemp -d "${TMPDIR:-/tmp}/rdmatop-kvenv.XXXXXX")
work=$(mktemp -d "${TMPDIR:-/tmp}/rdmatop-kpip.XXXXXX")
trap 'rm -rf "$venv" "$work"' EXIT

torch_site=$("$torch_python" -c 'import os, torch; print(os.path.dirname(os.path.dirname(torch.__file__)))' 2>&1) || {
  notok "$torch_python cannot import torch: $torch_site"; finish; }
# The base interpreter of the same minor version with setuptools and wheel
# (the Debian one: tests/deps.sh installs python3-setuptools and -wheel).
want=$("$torch_python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
base=
for py in /usr/bin/python3 python3; do
  if [ "$("$py" -c 'import sys, setuptools, wheel; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)" = "$want" ]; then
    base=$py; break
  fi
done
if [ -z "$base" ]; then
  notok "no python$want with setuptools and wheel to make the venv from (tests/deps.sh)"; finish
fi
if "$base" -m venv --system-site-packages "$venv" > "$work/log" 2>&1; then
  ok "$base -m venv"
else
  notok "$base -m venv failed:"; sed 's/^/#   /' "$work/log"; finish
fi
vsite=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
echo "$torch_site" > "$vsite/rdmatop-test-torch.pth"
check "the venv imports torch from $torch_site" "$venv/bin/python" -c 'import torch'

cp -R "$src/python" "$work/python"
rm -rf "$work/python/build" "$work/python"/*.egg-info "$work/python/rdmatop"/*.so*
ln -s "$src/src" "$work/src"
if (cd "$work" && RDMATOP_MESON_BUILDDIR="$build" "$venv/bin/pip" install -v --no-build-isolation \
      --no-index ./python) > "$work/log" 2>&1; then
  ok "pip install --no-build-isolation ./python"
else
  notok "pip install --no-build-isolation ./python failed:"
  tail -n 40 "$work/log" | sed 's/^/#   /'; finish
fi
grep -q "rdmatop: building rdmatop._kineto" "$work/log" && ok "setup.py built rdmatop._kineto" \
  || { notok "setup.py did not build rdmatop._kineto:"; grep "rdmatop:" "$work/log" | sed 's/^/#   /'; }

# The check's TAP lines continue this test's numbering.
run_check () {
  (cd "$work" && env -u RDMATOP_LIBRARY -u RDMATOP_KINETO_MODULE -u PYTHONPATH \
     "$venv/bin/python" "$here/pip-kineto-check.py" "$@") > "$work/out" 2>&1
  rc=$?
  while IFS= read -r line; do
    case "$line" in
      "ok "*) ok "${line#ok [0-9]* - }" ;;
      "not ok "*) notok "${line#not ok [0-9]* - }" ;;
      1..*) ;;
      *) echo "# $line" ;;
    esac
  done < "$work/out"
  [ $rc -eq 0 ] || notok "pip-kineto-check.py exited with $rc"
}
run_check

# The same as an editable install (pip install -e), where build_py does
# not run: build_ext puts both modules into the package folder.
"$venv/bin/pip" uninstall -y rdmatop > "$work/log" 2>&1
if (cd "$work" && RDMATOP_MESON_BUILDDIR="$build" "$venv/bin/pip" install -v --no-build-isolation \
      --no-index -e ./python) > "$work/log" 2>&1; then
  ok "pip install --no-build-isolation -e ./python"
  run_check "$work/python/rdmatop"
else
  notok "pip install --no-build-isolation -e ./python failed:"
  tail -n 40 "$work/log" | sed 's/^/#   /'
fi
finish
