#!/bin/sh
# The rdmatop program end to end, on a machine without RDMA: it opens a
# recording given on the command line, a second launch only raises the
# window (one instance), the window's actions are driven over D-Bus
# (org.gtk.Actions, as GtkApplication exports them), what the overview and
# a port page show is dumped and checked, and screenshots are taken.
# Needs an X display (tests/run-all.sh runs the suite under xvfb-run) and a
# session bus (started here when there is none).  Prints TAP.
#
# Usage: test-gui-app.sh RDMATOP GUI-MAKE-RECORDING [ARTIFACT-DIR]
set -u

if [ -z "${DBUS_SESSION_BUS_ADDRESS:-}" ]; then
  exec dbus-run-session -- "$0" "$@"
fi

app=$1
make_rec=$2
out=${3:-$(mktemp -d)}
mkdir -p "$out"
n=0
failed=0
ok () { n=$((n + 1)); echo "ok $n - $1"; }
not_ok () { n=$((n + 1)); failed=1; echo "not ok $n - $1"; }
check () { desc=$1; shift; if "$@"; then ok "$desc"; else not_ok "$desc"; fi; }

id="io.github.rdmatop.Rdmatop.Test$$"
path="/io/github/rdmatop/Rdmatop/Test$$"

activate () {   # PATH ACTION [GVARIANT-PARAM]
  param="[]"
  [ $# -ge 3 ] && param="[$3]"
  gdbus call --session --dest "$id" --object-path "$1" \
    --method org.gtk.Actions.Activate "$2" "$param" '{}' >/dev/null
}

# The newest dump in the log ("--- rdmatop dump begin/end ---").
last_dump () {
  awk '/^--- rdmatop dump begin ---$/ { buf = ""; on = 1; next }
       /^--- rdmatop dump end ---$/ { last = buf; on = 0; next }
       on { buf = buf $0 "\n" }
       END { printf "%s", last }' "$out/app.log"
}

dump () {       # asks for a dump, waits until it is in the log
  before=$(grep -c '^--- rdmatop dump end ---$' "$out/app.log" 2>/dev/null || true)
  activate "$path" dump-state || return 1
  for _ in $(seq 50); do
    now=$(grep -c '^--- rdmatop dump end ---$' "$out/app.log" 2>/dev/null || true)
    [ "${now:-0}" -gt "${before:-0}" ] && { last_dump > "$out/$1"; return 0; }
    sleep 0.2
  done
  return 1
}

shot () {
  if command -v import >/dev/null 2>&1; then
    import -window root "$out/$1" 2>/dev/null
  else
    xwd -root -silent > "$out/${1%.png}.xwd"
  fi
}

echo "1..31"
# The recorder never overwrites: start from an empty artifact folder.
rm -f "$out/synthetic.json" "$out/synthetic.json.partial" "$out"/*.png "$out"/*.txt
check "a recording is written" "$make_rec" "$out/synthetic.json" 120

GSK_RENDERER=${GSK_RENDERER:-cairo} "$app" --gapplication-app-id="$id" "$out/synthetic.json" \
  > "$out/app.log" 2>&1 &
pid=$!

has_name () {
  gdbus call --session --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \
    --method org.freedesktop.DBus.NameHasOwner "$id" 2>/dev/null | grep -q true
}
for _ in $(seq 100); do has_name && break; sleep 0.2; done
check "the app owns its bus name" has_name

# A second launch hands over to the first and exits at once.
timeout 20 "$app" --gapplication-app-id="$id" >/dev/null 2>&1
check "a second launch exits 0 (raises the first)" test $? -eq 0
check "the first instance still runs" kill -0 "$pid"

# Wait until the replay has gone in: rxe0/1 has a rate.
for _ in $(seq 50); do
  dump overview.txt && grep -q '^row	port=rxe0/1' "$out/overview.txt" && break
  sleep 0.3
done
check "the overview lists the four ports in natural order" \
  sh -c "grep '^row' '$out/overview.txt' | cut -f2 | tr '\n' ' ' | grep -qx 'port=mlx5_0/1 port=mlx5_1/1 port=rxe0/1 port=rxe1/1 '"
check "rates are shown (mlx5_0/1 transmits)" \
  sh -c "grep '^row	port=mlx5_0/1' '$out/overview.txt' | grep -Eq 'tx=[1-9][0-9]*\.[0-9]+'"
check "the down port says so in words" \
  sh -c "grep '^row	port=rxe1/1' '$out/overview.txt' | grep -q 'state=● Down'"
check "the retransmitting port is marked" \
  sh -c "grep '^row	port=rxe0/1' '$out/overview.txt' | grep -q 'health=⚠ Packet loss'"
# rxe1/1 was down before the recording began: the replay's events say so,
# as an Error, though the file holds no Down event of its own.
check "the replay's events have rxe1/1's Down" \
  sh -c "grep '^event	severity=error	kind=port-down	where=rxe1/1	' '$out/overview.txt' | grep -q 'already down when the recording started'"
sleep 1
shot gui-app-overview.png

activate "$path" show-port "<'rxe0/1'>"
sleep 1
dump detail.txt
check "the port page shows rxe0/1" grep -q '^view=detail' "$out/detail.txt"
check "the port page is rxe0's" grep -q '^detail	rxe0 port 1$' "$out/detail.txt"
shot gui-app-port-detail.png

# A job's page and its rails, as a desktop or a script opens them: the
# replay holds no job, so the page says the job is out of reach.
activate "$path" show-job "<'slurm/99'>"
sleep 1
dump job.txt
check "app.show-job opens the job's page" grep -q '^view=job$' "$out/job.txt"
check "the page of a job out of reach says so" \
  grep -q '^job: slurm/99; The job has ended or is out of reach; ' "$out/job.txt"
activate "$path" show-job-rails "<''>"
sleep 1
dump rails.txt
check "app.show-job-rails opens the Rails tab, every port" \
  sh -c "grep -q '^view=rails$' '$out/rails.txt' && grep -q '^rails: .*; job all$' '$out/rails.txt'"

# About: libadwaita's window where it has one (1.2), over the main window.
activate "$path" about
sleep 1
dump about.txt
case ${RDMATOP_ADW_VERSION:-1.2} in 1.0*|1.1|1.1.*) adw12=false ;; *) adw12=true ;; esac
if $adw12; then
  check "About is libadwaita's about window, over the main window" \
    grep -q '^dialog	AdwAboutWindow	' "$out/about.txt"
else
  check "About is shown over the main window" grep -q '^dialog	GtkAboutDialog	' "$out/about.txt"
fi
shot gui-app-about.png

activate "$path" quit
for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
wait "$pid"
check "app.quit ends the app with status 0" test $? -eq 0
check "no GTK criticals or warnings in its output" \
  sh -c "! grep -E 'CRITICAL|WARNING' '$out/app.log'"

# Live (this machine may have no RDMA: the sampler then reports so) and
# recording: Record starts a .partial file in the recordings folder (the
# default, under $HOME), Stop completes it.  Record needs a source with a
# device: a host "synth" whose ssh is a stand-in (on PATH for these runs)
# that runs the synthetic serve --stdio of 16 ports.
home="$out/home"
rm -rf "$home"
mkdir -p "$home"
shim="$out/ssh-shim"
mkdir -p "$shim"
printf '#!/bin/sh\nexec "%s"\n' "${RDMATOP_SYNTH_SERVE:?the synthetic serve}" > "$shim/ssh"
chmod +x "$shim/ssh"
record_enabled () {
  gdbus call --session --dest "$id" --object-path "$path" \
    --method org.gtk.Actions.Describe record 2>/dev/null | grep -q '^((true,'
}
record_disabled () {
  gdbus call --session --dest "$id" --object-path "$path" \
    --method org.gtk.Actions.Describe record 2>/dev/null | grep -q '^((false,'
}

# Without a device anywhere, Record cannot be used (it would save an
# empty trace).
HOME=$home GTK_USE_PORTAL=1 GNOTIFICATION_BACKEND=portal GSK_RENDERER=${GSK_RENDERER:-cairo} "$app" --gapplication-app-id="$id" \
  > "$out/app-nodev.log" 2>&1 &
pid=$!
for _ in $(seq 100); do has_name && break; sleep 0.2; done
sleep 2
if [ -e /sys/class/infiniband ] && [ -n "$(ls /sys/class/infiniband 2>/dev/null)" ]; then
  ok "Record is disabled while no source has a device # SKIP this machine has RDMA devices"
else
  check "Record is disabled while no source has a device" record_disabled
fi
activate "$path" quit
for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
wait "$pid"
export PATH="$shim:$PATH"
# Without RDMA netlink here the live sampler raises an Error event, which
# the unfocused window sends as a notification; Xvfb's session has no
# notification server, and GIO's freedesktop backend warns about that
# (fatal here).  The portal backend sends without waiting for a reply.
HOME=$home GTK_USE_PORTAL=1 GNOTIFICATION_BACKEND=portal GSK_RENDERER=${GSK_RENDERER:-cairo} "$app" --gapplication-app-id="$id" \
  --host synth > "$out/app-live.log" 2>&1 &
pid=$!
for _ in $(seq 100); do has_name && break; sleep 0.2; done
check "the live app owns its bus name" has_name
for _ in $(seq 100); do record_enabled && break; sleep 0.2; done
check "Record is enabled once the host's devices came" record_enabled
activate "$path" record
for _ in $(seq 50); do ls "$home"/rdmatop/*.partial >/dev/null 2>&1 && break; sleep 0.2; done
check "Record starts a recording in the default folder" \
  sh -c "ls '$home'/rdmatop/rdmatop-*.json.gz.partial >/dev/null 2>&1"
sleep 2
activate "$path" record
for _ in $(seq 50); do ls "$home"/rdmatop/*.partial >/dev/null 2>&1 || break; sleep 0.2; done
check "Stop completes it (no .partial left, a .json.gz there)" \
  sh -c "! ls '$home'/rdmatop/*.partial >/dev/null 2>&1 && ls '$home'/rdmatop/rdmatop-*.json.gz >/dev/null 2>&1"
check "the recording is a Perfetto trace" \
  sh -c "gzip -dc '$home'/rdmatop/rdmatop-*.json.gz | grep -q traceEvents"
activate "$path" quit
for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
wait "$pid"
check "the live app quits with status 0" test $? -eq 0

# SIGTERM while the window records (logout, systemd stopping the session):
# the app closes the trace as the CLI does, so it is complete JSON.
rm -rf "$home/rdmatop"
HOME=$home GTK_USE_PORTAL=1 GNOTIFICATION_BACKEND=portal GSK_RENDERER=${GSK_RENDERER:-cairo} "$app" --gapplication-app-id="$id" \
  --host synth > "$out/app-term.log" 2>&1 &
pid=$!
for _ in $(seq 100); do has_name && break; sleep 0.2; done
for _ in $(seq 100); do record_enabled && break; sleep 0.2; done
activate "$path" record
for _ in $(seq 50); do ls "$home"/rdmatop/*.partial >/dev/null 2>&1 && break; sleep 0.2; done
check "a recording runs before SIGTERM" sh -c "ls '$home'/rdmatop/*.partial >/dev/null 2>&1"
sleep 2
kill -TERM "$pid"
for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
wait "$pid"
check "SIGTERM ends the app with status 0" test $? -eq 0
check "SIGTERM left no .partial file" sh -c "! ls '$home'/rdmatop/*.partial >/dev/null 2>&1"
check "the trace SIGTERM closed is complete JSON" \
  sh -c "gzip -dc '$home'/rdmatop/rdmatop-*.json.gz | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d[\"traceEvents\"]'"
check "no GTK criticals or warnings when terminated" sh -c "! grep -E 'CRITICAL|WARNING' '$out/app-term.log'"

# Accessibility, as a screen reader sees it over AT-SPI: every button,
# toggle, tab, drop-down, entry and table has a name.  A private X server,
# session bus and accessibility bus, so nothing stale on the shared display
# (its AT_SPI_BUS property) gets in the way.  With an argument, the app's
# action of that name is activated once it is up (app.preferences: its
# window too is checked), and the check waits for a control of the name
# the second argument gives.  The checker runs without the suite's
# G_DEBUG=fatal-warnings: it is a screen reader's side, where libatspi warns
# when it asks GTK (4.8) for a cache object GTK does not have (seen once
# under load: "Error in GetItems … /org/a11y/atspi/cache", then SIGTRAP).
a11y_check () {
  open_action=${1:-}
  expect=${2:-}
  py=""
  for p in python3 /usr/bin/python3; do
    "$p" -c 'import gi; gi.require_version("Atspi", "2.0")' 2>/dev/null && { py=$p; break; }
  done
  [ -n "$py" ] || { echo "# needs python3-gi and gir1.2-atspi-2.0 (tests/deps.sh test)"; return 1; }
  [ -x /usr/libexec/at-spi-bus-launcher ] || { echo "# needs at-spi2-core"; return 1; }
  a11y="$out/a11y"
  rm -rf "$a11y"
  mkdir -p "$a11y"
  chmod 700 "$a11y"
  Xvfb -displayfd 1 -screen 0 1400x900x24 -nolisten tcp > "$a11y/display" 2>/dev/null &
  xpid=$!
  for _ in $(seq 50); do [ -s "$a11y/display" ] && break; sleep 0.1; done
  env -u DBUS_SESSION_BUS_ADDRESS -u NO_AT_BRIDGE DISPLAY=":$(cat "$a11y/display")" \
    HOME="$a11y" XDG_RUNTIME_DIR="$a11y" GTK_A11Y=atspi GSK_RENDERER=cairo \
    dbus-run-session -- sh -c '
      /usr/libexec/at-spi-bus-launcher --launch-immediately 2>/dev/null & l=$!
      sleep 1
      "$1" --gapplication-app-id="$2.A11y" "$3" >"$4/app.log" 2>&1 & p=$!
      if [ -n "$7" ]; then
        for _ in $(seq 100); do
          gdbus call --session --dest "$2.A11y" --object-path "$8" \
            --method org.gtk.Actions.Activate "$7" "[]" "{}" >/dev/null 2>&1 && break
          sleep 0.2
        done
        env -u G_DEBUG "$5" "$6" "$p" 40 --expect "$9" >"$4/controls.txt" 2>&1; rc=$?
      else
        env -u G_DEBUG "$5" "$6" "$p" 40 >"$4/controls.txt" 2>&1; rc=$?
      fi
      kill "$p" "$l" 2>/dev/null
      exit $rc' sh "$app" "$id" "$out/synthetic.json" "$a11y" "$py" \
      "$(dirname "$0")/gui-a11y-check.py" "$open_action" "$path/A11y" "$expect" 2>/dev/null
  rc=$?
  kill "$xpid" 2>/dev/null
  sed 's/^/# /' "$a11y/controls.txt"
  # Its errors are in the file too; nothing at all says how it ended.
  [ -s "$a11y/controls.txt" ] || echo "# the check printed nothing (exit status $rc)"
  return $rc
}
# Two tries: another program may take the same free display number between
# Xvfb choosing it and the app connecting (seen with parallel test runs).
a11y_check_twice () { a11y_check "$@" || { echo "# second try"; a11y_check "$@"; }; }
check "every control has an accessible name (AT-SPI)" a11y_check_twice
check "every control of the preferences has an accessible name (AT-SPI)" \
  a11y_check_twice preferences "Sampling interval in seconds"

[ $failed = 0 ] || { echo "# app log:"; cat "$out/app.log" "$out/app-live.log" | sed 's/^/# /' | head -80; }
exit $failed
