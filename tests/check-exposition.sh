#!/bin/sh
# The exporter's exposition, as the real formatter writes it for 16
# mlx5-like ports, checked by the tools that consume it:
#   - promtool check metrics (Debian's prometheus): the 0.0.4 text parses and
#     passes Prometheus's own lint (names, units, _total, HELP);
#   - prometheus_client's OpenMetrics parser (python3-prometheus-client),
#     which is strict about the OpenMetrics 1.0 grammar (UNIT, info, # EOF).
# Usage: check-exposition.sh METRICS-FIXTURE
set -eu
fixture=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

command -v promtool >/dev/null || { echo "promtool missing: run tests/deps.sh test" >&2; exit 1; }
"$fixture" dump prom 16 >"$tmp/prom.txt"
"$fixture" dump om 16 >"$tmp/om.txt"

# promtool prints lint problems and exits non-zero for them.
if ! promtool check metrics <"$tmp/prom.txt" >"$tmp/lint" 2>&1; then
  cat "$tmp/lint" >&2
  echo "FAIL: promtool check metrics" >&2
  exit 1
fi
[ -s "$tmp/lint" ] && { cat "$tmp/lint" >&2; echo "FAIL: promtool warnings" >&2; exit 1; }

# The distribution's python, which has python3-prometheus-client.
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
"$PY" - "$tmp/om.txt" "$tmp/prom.txt" <<'PY'
import sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families as om_parse
from prometheus_client.parser import text_string_to_metric_families as prom_parse

om = open(sys.argv[1], encoding="utf-8").read()
prom = open(sys.argv[2], encoding="utf-8").read()
om_samples = {(s.name, tuple(sorted(s.labels.items()))): s.value
              for f in om_parse(om) for s in f.samples}
prom_samples = {(s.name, tuple(sorted(s.labels.items()))): s.value
                for f in prom_parse(prom) for s in f.samples}
if om_samples != prom_samples:
    only = set(om_samples) ^ set(prom_samples)
    sys.exit("FAIL: the formats differ: %s" % sorted(only)[:5])
raw = [k for k in om_samples if k[0] == "rdmatop_port_raw_total"]
if len(raw) != 16 * 51:
    sys.exit("FAIL: %d raw counter samples, want %d" % (len(raw), 16 * 51))
print("ok: %d samples, OpenMetrics %d bytes, 0.0.4 text %d bytes for 16 ports"
      % (len(om_samples), len(om.encode()), len(prom.encode())))
PY
