#!/bin/sh
# Sets up and runs every rdmatop test on Debian 12 / Ubuntu 22.04+:
#   - installs the packages it needs (tests/deps.sh; uses sudo when not root),
#   - builds, and runs the unit, data, gui (under Xvfb) and vm (Soft-RoCE in
#     QEMU) suites,
#   - runs the unit and gui suites again under AddressSanitizer + UBSan
#     (tests/lsan-gui.supp: the toolkit's own leak reports, explained), and
#     the native guest scenarios with that build,
#   - runs the valgrind suite (memcheck over 1,000 sampling passes),
#   - runs the libFuzzer targets for a short bounded time,
#   - runs a small fixed sample of the mutation check (tests/mutation),
#   - builds the Debian packages, lintian-checks them, and installs, runs and
#     purges each in a fresh Debian 12 root (suite packaging).
# Ends with one line "rdmatop tests: N passed, N failed, N skipped", counting
# the checks inside each test program; each skip is named with its reason
# above it.  With CI=true a skip of anything CI could run is a failure.
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
plain="unit data gui valgrind mutation packaging vm-plain"
asan="unit gui vm-native"
if [ "${RDMATOP_SKIP_VM:-0}" = 1 ] && [ "${CI:-}" != true ]; then
  plain="unit data gui valgrind mutation packaging"
  asan="unit gui"
fi

# shellcheck disable=SC2086
run_suites build-ci -Dkineto=enabled -Dtorch_python="$torch_python" -- $plain
# shellcheck disable=SC2086
run_suites build-asan -Db_sanitize=address,undefined -Db_lundef=false -- $asan
CC=clang run_suites build-fuzz -Dfuzzing=true -Db_sanitize=address,undefined -Db_lundef=false \
  -Dvm_tests=false -Dgui=disabled -- fuzz

# One closing line over every run, counting subtests: each TAP line of a
# test program is one check ("ok", "ok ... # SKIP why", "not ok"); a test
# without TAP lines is one check.  Skips and failures are named at the end,
# skips with their reasons.  On CI a skip is a failure unless it is
# something this kind of machine cannot do (listed in CANNOT below).
python3 - $logs <<'PY' || status=1
import json, os, re, sys

# What a CI machine (2 cores, no RDMA hardware, no GPU) cannot run; the
# Soft-RoCE guest runs the RDMA netlink case (tests/vm/scenario-discovery.sh).
CANNOT = [
    (re.compile(r"NVML|GPU"), "a GPU"),
    (re.compile(r"RDMA netlink works here"), "a machine without RDMA netlink"),
    (re.compile(r"no RDMA netlink on this machine"), "RDMA netlink on the host's kernel"),
]
ci = os.environ.get("CI") == "true"
tap = re.compile(r"^(not ok|ok)\b(.*)$")
passed = failed = skipped = 0
fails, skips, cannot = [], [], []

def skip(where, reason):
    global skipped, failed
    reason = reason.strip() or "no reason given"
    needs = next((what for rx, what in CANNOT if rx.search(reason)), None)
    if ci and needs is None:
        failed += 1
        fails.append(f"{where} skipped on CI, which installs what it needs: {reason}")
    else:
        skipped += 1
        skips.append(f"{where}: {reason}")
        if needs:
            cannot.append(f"{where} (needs {needs})")

for path in sys.argv[1:]:
    build = os.path.basename(os.path.dirname(os.path.dirname(os.path.abspath(path))))
    try:
        lines = open(path).read().splitlines()
    except OSError:
        failed += 1
        fails.append(f"{path} (no test log: the build failed)")
        continue
    for line in lines:
        t = json.loads(line)
        r, name = t.get("result"), f"{build}: {t.get('name')}"
        out = (t.get("stdout") or "").splitlines()
        checks = [m for m in map(tap.match, out) if m]
        n_fail = 0
        for m in checks:
            rest = m.group(2)
            directive = re.search(r"#\s*(SKIP|TODO)\b\s*(.*)$", rest, re.I)
            if m.group(1) == "ok" and directive and directive.group(1).upper() == "SKIP":
                skip(f"{name} {rest[:directive.start()].strip()}", directive.group(2))
            elif m.group(1) == "ok" or (directive and directive.group(1).upper() == "TODO"):
                passed += 1
            else:
                failed += 1
                n_fail += 1
                fails.append(f"{name}: {m.group(0)[:300]}")
        whole_skip = [l for l in out if re.match(r"^1\.\.0\b", l)]
        if r == "SKIP" and not checks:
            reason = next((l for l in reversed(out) if l.strip()), "")
            if whole_skip:
                reason = re.sub(r"^1\.\.0\s*#?\s*(SKIP)?\s*", "", whole_skip[0], flags=re.I) or reason
            skip(name, reason)
        elif r in ("OK", "EXPECTEDFAIL", "SKIP"):
            if not checks:
                passed += 1
        elif n_fail == 0:
            # It failed outside its checks: a crash, a timeout, an exit status.
            failed += 1
            fails.append(f"{name} ({r})")
            fails += ["  " + l[:300] for l in out[-4:]]

# Skips, then failures, at the very end, where a truncated log still shows them.
for s in skips:
    print(f"rdmatop tests: SKIPPED {s}")
if cannot:
    print("rdmatop tests: what this machine cannot do: " + "; ".join(cannot))
for f in fails:
    print(f"rdmatop tests: FAILED {f}")
print(f"rdmatop tests: {passed} passed, {failed} failed, {skipped} skipped")
sys.exit(1 if failed else 0)
PY
exit $status
