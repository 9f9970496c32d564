#!/bin/sh
# Installs the Python packages the profiler tests run against (torch, VizTracer;
# pinned in tests/python/requirements.txt) into a virtual environment in a
# cache directory the machine keeps between runs, with pip's download cache
# beside it.  Idempotent: when the environment already matches the pins it
# returns at once.  Prints the environment's python on stdout.
#
# Environment: RDMATOP_PY_CACHE (default ~/.cache/rdmatop) is the cache
# directory; RDMATOP_PYTHON (default python3) the interpreter the environment
# is made from.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
req="$top/tests/python/requirements.txt"
cache=${RDMATOP_PY_CACHE:-${HOME:-/root}/.cache/rdmatop}
venv="$cache/venv"
base=${RDMATOP_PYTHON:-python3}

# The stamp names the pins and the interpreter: a change to either rebuilds.
want="$(cat "$req") $("$base" -c 'import sys; print(sys.version)')"
want=$(printf '%s' "$want" | sha256sum | cut -d' ' -f1)
if [ -x "$venv/bin/python" ] && [ "$(cat "$venv/.rdmatop-stamp" 2>/dev/null)" = "$want" ]; then
  echo "$venv/bin/python"
  exit 0
fi

mkdir -p "$cache"
echo "Installing torch and VizTracer into $venv (cached after the first run)" >&2
start=$(date +%s)
[ -x "$venv/bin/python" ] || "$base" -m venv "$venv" >&2
rm -f "$venv/.rdmatop-stamp"
# --no-deps: every package is pinned in the requirements file.
PIP_CACHE_DIR="$cache/pip" "$venv/bin/python" -m pip install -q --no-deps \
  --disable-pip-version-check -r "$req" >&2
"$venv/bin/python" -c 'import torch, torch.profiler, viztracer' >&2
echo "$want" > "$venv/.rdmatop-stamp"
echo "Python packages ready in $(( $(date +%s) - start )) s" >&2
echo "$venv/bin/python"
