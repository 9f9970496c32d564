#!/bin/sh
# Installs what rdmatop needs (with sudo when not root), builds it, and
# launches the desktop app from the build tree.  Arguments go to rdmatop
# (for example a recording to open).
set -eu

top=$(cd "$(dirname "$0")" && pwd)
"$top/tests/deps.sh" run

build="$top/build"
if [ ! -f "$build/build.ninja" ]; then
  meson setup "$build" "$top" >/dev/null
fi
ninja -C "$build"

if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
  echo "launch.sh: no display. Run it in a desktop session, or over 'ssh -X' (see README)." >&2
  echo "The headless tool works anywhere: $build/src/cli/rdmatop-cli watch" >&2
  exit 1
fi

# Run uninstalled: the settings schema and translations come from the build.
export GSETTINGS_SCHEMA_DIR="$build/data"
export RDMATOP_LOCALEDIR="$build/po"
exec "$build/src/app/rdmatop" "$@"
