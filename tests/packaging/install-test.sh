#!/bin/sh
# Install test (suite 'data'): `meson install --destdir` into a temporary
# folder, check every file is where the desktop looks for it, then start
# the installed rdmatop under Xvfb with the installed schema and check it
# stays up without critical warnings.
#
# Usage: install-test.sh MESON BUILD_DIR PREFIX BINDIR DATADIR MANDIR
#                        LOCALEDIR APP_ID GUI(true|false)
set -u

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

meson=$1 build=$2 prefix=$3 bindir=$4 datadir=$5 mandir=$6 localedir=$7
app_id=$8 gui=$9

dest=$(mktemp -d "${TMPDIR:-/tmp}/rdmatop-install.XXXXXX")
app_pid=""
bus_pid=""
cleanup () {
  [ -n "$app_pid" ] && kill "$app_pid" 2> /dev/null
  [ -n "$bus_pid" ] && kill "$bus_pid" 2> /dev/null
  stop_xvfb
  rm -rf "$dest"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# Absolute install paths inside the destdir (options may be relative to
# the prefix or absolute).
under () { case "$1" in /*) echo "$dest$1" ;; *) echo "$dest$prefix/$1" ;; esac; }
bin=$(under "$bindir")
share=$(under "$datadir")
man=$(under "$mandir")
locale=$(under "$localedir")

if "$meson" install -C "$build" --destdir "$dest" --no-rebuild > "$dest.log" 2>&1; then
  ok "meson install --destdir $dest"
  rm -f "$dest.log"
else
  notok "meson install --destdir failed:"
  sed 's/^/#   /' "$dest.log"; rm -f "$dest.log"
  finish
fi

file_ok () { if [ -f "$2" ]; then ok "$1: ${2#$dest}"; else notok "$1 missing: ${2#$dest}"; fi; }
exe_ok () { if [ -x "$2" ]; then ok "$1: ${2#$dest}"; else notok "$1 missing or not executable: ${2#$dest}"; fi; }

exe_ok "command-line binary" "$bin/rdmatop-cli"
file_ok "rdmatop-cli man page" "$man/man1/rdmatop-cli.1"
for mo in $(sed -n 's/^\([a-zA-Z_@]\+\)$/\1/p' "$here/../../po/LINGUAS"); do
  file_ok "$mo message catalog" "$locale/$mo/LC_MESSAGES/rdmatop.mo"
done
# The installed catalog, read by the installed binary (RDMATOP_LOCALEDIR
# stands in for the prefix the binary was built for).
usage=$(env -u LC_ALL -u LC_MESSAGES LANG=C.UTF-8 LANGUAGE=de RDMATOP_LOCALEDIR="$locale" \
        "$bin/rdmatop-cli" --help 2>&1 | head -n1)
english=$(env -u LANGUAGE LC_ALL=C.UTF-8 "$bin/rdmatop-cli" --help 2>&1 | head -n1)
want=$(LANG=C.UTF-8 LANGUAGE=de TEXTDOMAINDIR="$locale" gettext -d rdmatop "$english")
if [ -n "$usage" ] && [ "$usage" = "$want" ] && [ "$usage" != "$english" ]; then
  ok "installed rdmatop-cli speaks German from the installed catalog: $usage"
else
  notok "installed rdmatop-cli --help under LANGUAGE=de printed \"$usage\", expected \"$want\""
fi
ver=$("$bin/rdmatop-cli" --version 2> /dev/null | head -n1)
case "$ver" in
  *[0-9].[0-9]*) ok "installed rdmatop-cli runs: $ver" ;;
  *) notok "installed rdmatop-cli --version printed: $ver" ;;
esac

if [ "$gui" != true ]; then
  # Nothing may advertise a program that is not there.
  for f in "$share/applications/$app_id.desktop" "$share/metainfo/$app_id.metainfo.xml" \
           "$share/glib-2.0/schemas/$app_id.gschema.xml" "$bin/rdmatop"; do
    if [ -e "$f" ]; then notok "without the GUI, ${f#$dest} is installed"; fi
  done
  skip "the GUI was not built: no desktop file, metainfo, icons, schema or window to check"
  finish
fi

desktop="$share/applications/$app_id.desktop"
metainfo="$share/metainfo/$app_id.metainfo.xml"
schemas="$share/glib-2.0/schemas"
exe_ok "GUI binary" "$bin/rdmatop"
file_ok "rdmatop man page" "$man/man1/rdmatop.1"
file_ok "rdmatop-askpass man page" "$man/man1/rdmatop-askpass.1"
file_ok "desktop file" "$desktop"
file_ok "AppStream metainfo" "$metainfo"
file_ok "scalable app icon" "$share/icons/hicolor/scalable/apps/$app_id.svg"
file_ok "symbolic app icon" "$share/icons/hicolor/symbolic/apps/$app_id-symbolic.svg"
file_ok "GSettings schema" "$schemas/$app_id.gschema.xml"

# What the desktop follows from one file to the next.
if [ -f "$desktop" ]; then
  check "installed desktop file validates" desktop-file-validate "$desktop"
  exec_name=$(sed -n 's/^Exec=\([^ ]*\).*/\1/p' "$desktop")
  check "Exec=$exec_name is an installed binary" test -x "$bin/$exec_name"
  icon=$(sed -n 's/^Icon=//p' "$desktop")
  check "Icon=$icon is an installed hicolor icon" test -f "$share/icons/hicolor/scalable/apps/$icon.svg"
fi
if [ -f "$metainfo" ]; then
  check "installed metainfo validates" appstreamcli validate --no-net "$metainfo"
  check "metainfo launchable is the installed desktop file" \
    grep -q "<launchable type=\"desktop-id\">$app_id.desktop</launchable>" "$metainfo"
fi

# Distributions compile the schemas in a trigger; meson skips that under
# DESTDIR, so do what the trigger does.
if glib-compile-schemas --strict "$schemas" 2> "$dest/schemas.err"; then
  file_ok "compiled schemas" "$schemas/gschemas.compiled"
else
  notok "glib-compile-schemas --strict on the installed schemas: $(cat "$dest/schemas.err")"
fi

# The installed binary, installed schema and installed data, nothing from
# the build tree.
if ! start_xvfb; then
  notok "Xvfb could not start (tests/deps.sh installs xvfb)"
  finish
fi
export GSETTINGS_SCHEMA_DIR="$schemas"
export XDG_DATA_DIRS="$share:/usr/share"
export GSETTINGS_BACKEND=memory
export HOME="$dest/home" XDG_RUNTIME_DIR="$dest/run"
mkdir -p "$HOME" "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"
unset WAYLAND_DISPLAY
export GDK_BACKEND=x11
if command -v dbus-daemon > /dev/null; then
  addr=$(mktemp)
  dbus-daemon --session --nofork --print-address=1 > "$addr" 2> /dev/null &
  bus_pid=$!
  i=0; while [ ! -s "$addr" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
  DBUS_SESSION_BUS_ADDRESS=$(head -n1 "$addr"); export DBUS_SESSION_BUS_ADDRESS
  rm -f "$addr"
fi
# A critical aborts the app, so it cannot hide in the log.
G_DEBUG=fatal-criticals "$bin/rdmatop" > "$dest/app.log" 2>&1 &
app_pid=$!
# Up to 10 s for a window whose WM_CLASS is the desktop file's
# StartupWMClass (how X11 shells match the window to the launcher) to map;
# then the app must still be running 3 s on.
wm_class=$(sed -n 's/^StartupWMClass=//p' "$desktop")
[ -n "$wm_class" ] || wm_class=$app_id
mapped=""
i=0
while [ $i -lt 100 ] && kill -0 "$app_pid" 2> /dev/null; do
  if xwininfo -root -tree 2> /dev/null | grep -q "\"$wm_class\")"; then
    mapped=yes; break
  fi
  sleep 0.1; i=$((i + 1))
done
sleep 3
if kill -0 "$app_pid" 2> /dev/null; then
  ok "installed rdmatop runs under Xvfb with the installed schema"
else
  wait "$app_pid"; rc=$?
  app_pid=""
  notok "installed rdmatop exited with status $rc:"
  sed 's/^/#   /' "$dest/app.log"
fi
if [ -n "$mapped" ]; then
  ok "rdmatop mapped a window of class $wm_class, as the desktop file expects"
else
  notok "rdmatop mapped no window of class $wm_class within 10 s"
  xwininfo -root -tree 2> /dev/null | sed 's/^/#   /' | head -n 40
fi
if grep -q 'CRITICAL\|-WARNING\|GLib-GIO-ERROR' "$dest/app.log"; then
  notok "rdmatop logged warnings:"
  sed 's/^/#   /' "$dest/app.log"
else
  ok "rdmatop logged no warnings or criticals"
fi
finish
