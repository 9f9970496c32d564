#!/bin/bash
# x11-breakdown.sh: where a GTK program's X11 bytes go, by request type.
#
#   tests/bench/x11-breakdown.sh OUTDIR COMMAND...
#
# Runs COMMAND on an Xvfb without MIT-SHM (images then travel inside the
# requests, as over ssh -X) through x11-count.py, and prints the requests
# between the program's "measuring" and "done" lines on stderr (as
# tests/bench/gui-update prints them), largest first, per second.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=$1; shift
mkdir -p "$out"
n=$((90 + RANDOM % 100))
Xvfb ":$n" -screen 0 1600x1200x24 -extension MIT-SHM -nolisten tcp >"$out/xvfb.log" 2>&1 &
xvfb=$!
trap 'kill $proxy $xvfb 2>/dev/null || true' EXIT
for _ in $(seq 50); do [ -S "/tmp/.X11-unix/X$n" ] && break; sleep 0.1; done
python3 "$here/x11-count.py" "$((n + 1))" "$n" "$out/count.json" &
proxy=$!
for _ in $(seq 100); do [ -S "/tmp/.X11-unix/X$((n + 1))" ] && [ -f "$out/count.json" ] && break; sleep 0.1; done
t0=
DISPLAY=":$((n + 1))" GDK_BACKEND=x11 GSK_RENDERER=${GSK_RENDERER:-cairo} NO_AT_BRIDGE=1 \
  GSETTINGS_BACKEND=memory "$@" 2>&1 >"$out/stdout" | while IFS= read -r line; do
  echo "$line" >>"$out/stderr"
  case "$line" in
    *": measuring"*) sleep 0.6; cp "$out/count.json" "$out/count0.json"; date +%s.%N >"$out/t0" ;;
    *": done"*) sleep 0.6; cp "$out/count.json" "$out/count1.json"; date +%s.%N >"$out/t1" ;;
  esac
done
cat "$out/stdout"
python3 - "$out" <<'PY'
import json, sys
d = sys.argv[1]
a = json.load(open(f"{d}/count0.json")); b = json.load(open(f"{d}/count1.json"))
span = float(open(f"{d}/t1").read()) - float(open(f"{d}/t0").read())
rows = []
for name, (n, size) in b["requests"].items():
    n0, s0 = a["requests"].get(name, [0, 0])
    if size - s0 > 0:
        rows.append((size - s0, n - n0, name))
rows.sort(reverse=True)
total = sum(r[0] for r in rows)
down = b["to_client"] - a["to_client"]
print(f"window {span:.1f} s: client->server {total / span / 1024:.1f} KiB/s, server->client {down / span / 1024:.1f} KiB/s")
print(f"{'request':28} {'count/s':>9} {'KiB/s':>9} {'share':>7}")
for size, n, name in rows[:15]:
    print(f"{name:28} {n / span:9.1f} {size / span / 1024:9.1f} {100 * size / total:6.1f}%")
PY
