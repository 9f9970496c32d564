#!/bin/sh
# Sets up and runs every rdmatop test on Debian 12 / Ubuntu 22.04+:
#   - installs the packages it needs (tests/deps.sh; uses sudo when not root),
#   - builds, and runs the unit, data, gui (under Xvfb) and vm (Soft-RoCE in
#     QEMU) suites,
#   - runs the unit and gui suites again under AddressSanitizer + UBSan
#     (tests/lsan-gui.supp: the toolkit's own leak reports, explained), and
#     the native guest scenarios with that build,
#   - runs the valgrind suite (memcheck over 1,000 sampling passes),
#   - runs the libFuzzer targets for a short bounded time.
# Ends with one line "rdmatop tests: N passed, N failed, N skipped".
#
# Environment: RDMATOP_SKIP_VM=1 leaves out the vm suite (never in CI),
# MESON_TEST_ARGS passes extra arguments to every `meson test`.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

"$top/tests/deps.sh" test
# torch and VizTracer, cached between runs (installed by deps.sh).
torch_python=$("$top/tests/python-deps.sh")

status=0
logs=""

# run_suites BUILD_DIR SETUP_ARGS... -- SUITES...
run_suites () {
  dir=$1; shift
  setup=""
  while [ "$1" != "--" ]; do setup="$setup $1"; shift; done
  shift
  suites=""
  for s in "$@"; do suites="$suites --suite $s"; done

  echo "=== $dir:$setup ($*)"
  # shellcheck disable=SC2086
  if [ -f "$dir/build.ninja" ]; then
    meson setup --reconfigure "$dir" $setup >/dev/null
  else
    meson setup "$dir" $setup >/dev/null
  fi
  ninja -C "$dir"
  # A session bus for GtkApplication, and an X server for the gui suite.
  # shellcheck disable=SC2086
  dbus-run-session -- xvfb-run -a -s "-screen 0 1600x1000x24" \
    meson test -C "$dir" --print-errorlogs $suites ${MESON_TEST_ARGS:-} || status=1
  logs="$logs $dir/meson-logs/testlog.json"
}

# The guest scenarios (tests/vm/meson.build): those that load librdmatop
# into Python, and the soak's memory check, with the plain build
# (vm-plain); the rest, and the soak again, with the ASan+UBSan build
# (vm-native), so the CLI and the app meet the real kernel under the
# sanitizers.
plain="unit data gui valgrind vm-plain"
asan="unit gui vm-native"
if [ "${RDMATOP_SKIP_VM:-0}" = 1 ] && [ "${CI:-}" != true ]; then
  plain="unit data gui valgrind"
  asan="unit gui"
fi

# shellcheck disable=SC2086
run_suites build-ci -Dkineto=enabled -Dtorch_python="$torch_python" -- $plain
# shellcheck disable=SC2086
run_suites build-asan -Db_sanitize=address,undefined -Db_lundef=false -- $asan
CC=clang run_suites build-fuzz -Dfuzzing=true -Db_sanitize=address,undefined -Db_lundef=false \
  -Dvm_tests=false -Dgui=disabled -- fuzz

# One closing line over every run.
python3 - $logs <<'PY'
import json, sys
passed = failed = skipped = 0
names = []
for path in sys.argv[1:]:
    try:
        lines = open(path).read().splitlines()
    except OSError:
        failed += 1
        names.append(f"{path} (no test log: the build failed)")
        continue
    for line in lines:
        t = json.loads(line)
        r = t.get("result")
        if r in ("OK", "EXPECTEDFAIL"):
            passed += 1
        elif r == "SKIP":
            skipped += 1
        else:
            failed += 1
            names.append(f"{path.split('/')[0]}: {t.get('name')} ({r})")
            # and the checks that failed in it (TAP lines), a few
            out = (t.get("stdout") or "").splitlines()
            names += ["  " + l[:300] for l in out if l.startswith("not ok")][:8]
# The failures again at the very end, where a truncated log still shows them.
for n in names:
    print(f"rdmatop tests: FAILED {n}")
print(f"rdmatop tests: {passed} passed, {failed} failed, {skipped} skipped")
PY
exit $status
