#!/bin/sh
# Validates deploy/kubernetes offline (check-manifests.mjs --self-test) with
# the npm packages pinned in this folder's package-lock.json, installed by
# `npm ci` into WORKDIR (never into the source tree).
# Usage: run-check.sh MANIFEST_DIR WORKDIR
set -eu
here=$(cd "$(dirname "$0")" && pwd)
manifests=$1
work=$2
command -v node >/dev/null || { echo "node is missing: run tests/deps.sh test" >&2; exit 1; }
command -v npm >/dev/null || { echo "npm is missing: run tests/deps.sh test" >&2; exit 1; }
mkdir -p "$work"
cp "$here/check-manifests.mjs" "$work/"
if ! cmp -s "$here/package-lock.json" "$work/package-lock.json" || [ ! -d "$work/node_modules" ]; then
  cp "$here/package.json" "$here/package-lock.json" "$work/"
  (cd "$work" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error) || {
    echo "npm ci failed: the npm registry must be reachable for the first run" >&2
    exit 1
  }
fi
exec node "$work/check-manifests.mjs" "$manifests" --self-test
