#!/bin/bash
# Guest script (tests/vm/vm-run.sh) for benchmarks 3, 5 and 6 of issue 7,
# with 16 Soft-RoCE devices carrying a little traffic, under Xvfb:
#   - CPU per second of the rdmatop app at a 1 s interval (GSK_RENDERER=cairo),
#     beside GNOME System Monitor's resource graphs on the same display;
#   - start-up: launch to the first frame with live data (the app's
#     RDMATOP_REPORT_STARTUP=1 line), beside an empty GTK 4 window's first
#     frame (gtk-first-frame) and `rdmatop --version`;
#   - bytes per second over a real `ssh -X` session to localhost (sshd on
#     127.0.0.1, counted by count-relay.py as the ProxyCommand), rdmatop with
#     the renderer it picks there, beside gnome-system-monitor -r.
#
# Arguments (key=value, optional): devices=16 window=30 warm=8 settle=25
#   startup-runs=3 line-timeout=90 ssh-gl=0 (1: also rdmatop over ssh with
#   GSK_RENDERER=gl forced, to show what the renderer choice saves)
#   before=BUILDDIR (another build's app, measured beside this one as
#   prog=rdmatop-before, for a before/after in one run) gsm100=1 (0: leave
#   out System Monitor at its 100 ms default and the no-animation run)
#   compress=0 (1: also ssh -X -C) term=PATH (a terminal monitor, e.g. the
#   terminal rdmatop, measured under tmux as prog=term, with
#   `rdmatop-cli watch` as prog=watch) only=startup (the start-up runs alone,
#   each with the app's phases: a quick look at where start-up goes)
#   only=cpu (one launch, then the CPU runs alone: rdmatop, the before
#   build's, System Monitor at 1 s; with gsm100=0, in ~5 min)
# The CPU/bytes window starts `warm` seconds after the first-frame line, or
# `settle` seconds after launch for a program that prints none (System
# Monitor).
# Results: $RDMATOP_RESULTS/gui.txt, one key=value line per measurement.
. "$RDMATOP_VM_DIR/guest-lib.sh"

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
APP=$VM_BUILDDIR/src/app/rdmatop
FIRST_FRAME=$VM_BUILDDIR/tests/bench/gtk-first-frame
PROBE="python3 $BENCH_DIR/gui-probe.py"
OUT=${RDMATOP_RESULTS:-/tmp}/gui.txt
LOGS=${RDMATOP_RESULTS:-/tmp}/gui-logs
STARTUP_RE='rdmatop: startup-ms=([0-9]+)'

devices=16
window=30
warm=8
settle=25
startup_runs=3
line_timeout=90
ssh_gl=0
before=
gsm100=1
compress=0
term=
only=
for arg in "$@"; do
  case "$arg" in
    devices=*) devices=${arg#*=} ;;
    window=*) window=${arg#*=} ;;
    warm=*) warm=${arg#*=} ;;
    settle=*) settle=${arg#*=} ;;
    ssh-gl=*) ssh_gl=${arg#*=} ;;
    before=*) before=${arg#*=} ;;
    gsm100=*) gsm100=${arg#*=} ;;
    compress=*) compress=${arg#*=} ;;
    term=*) term=${arg#*=} ;;
    only=*) only=${arg#*=} ;;
    startup-runs=*) startup_runs=${arg#*=} ;;
    line-timeout=*) line_timeout=${arg#*=} ;;
    *) vm_die "unknown argument '$arg'" ;;
  esac
done

vm_init
mkdir -p "$LOGS"
: >"$OUT"
record () {
  echo "$*" >>"$OUT"
  echo "# $*"
}

# --- devices with traffic ------------------------------------------------

vm_dummy_rxes $(seq 0 $((devices - 1)))
# Traffic on every device, each at its own changing rate (bench-traffic.py).
vm_bg python3 "$BENCH_DIR/bench-traffic.py" "$devices"
sleep 3
kill -0 "$VM_LAST_PID" 2>/dev/null || vm_die "the traffic generator (bench-traffic.py) is not running"

# --- X server, session bus, settings -------------------------------------

export XDG_RUNTIME_DIR=/tmp/bench-runtime XDG_CONFIG_HOME=/tmp/bench-config
mkdir -p "$XDG_RUNTIME_DIR" "$XDG_CONFIG_HOME/glib-2.0/settings"
chmod 700 "$XDG_RUNTIME_DIR"
Xvfb :9 -screen 0 1600x1200x24 -nolisten tcp >"$LOGS/xvfb.log" 2>&1 &
XVFB_PID=$!
VM_BG_PIDS+=($XVFB_PID)
vm_wait_for "Xvfb" 30 test -S /tmp/.X11-unix/X9
export DISPLAY=:9
dbus-daemon --session --fork --address="unix:path=$XDG_RUNTIME_DIR/bus" \
  --print-pid=1 >"$LOGS/dbus.pid" || vm_die "dbus-daemon"
VM_BG_PIDS+=("$(cat "$LOGS/dbus.pid")")
export DBUS_SESSION_BUS_ADDRESS="unix:path=$XDG_RUNTIME_DIR/bus"
export GSETTINGS_BACKEND=keyfile GSETTINGS_SCHEMA_DIR=$VM_BUILDDIR/data
export RDMATOP_LOCALEDIR=$VM_BUILDDIR/po
# rdmatop at its default 1 s interval; System Monitor at its own default
# (graphs every 100 ms), and once more at 1 s for a like-for-like figure.
set_gsm_graph_interval () {
  cat >"$XDG_CONFIG_HOME/glib-2.0/settings/keyfile" <<EOF
[io/github/rdmatop/Rdmatop]
interval=1.0

[org/gnome/gnome-system-monitor]
graph-update-interval=$1
show-whose-processes='all'
current-tab='resources'
EOF
}
set_gsm_graph_interval 100

[ -x "$APP" ] || vm_die "$APP is not built (the GTK app needs libgtk-4-dev)"
BEFORE_APP=${before:+$before/src/app/rdmatop}
[ -z "$BEFORE_APP" ] || [ -x "$BEFORE_APP" ] || vm_die "$BEFORE_APP is not built"

# --- 5. Start-up --------------------------------------------------------
# The first launch also tells whether the app prints its first-frame line;
# if it does not, later launches do not wait for one (and say so).

startup_run () {
  local r=$1
  record "what=startup prog=rdmatop run=$r" \
    "$(GSK_RENDERER=cairo RDMATOP_REPORT_STARTUP=1 $PROBE --line "$STARTUP_RE" \
         --line-timeout "$line_timeout" --no-window \
         --keep-stderr "$LOGS/rdmatop-startup-$r.err" -- "$APP")"
  # Where it went (the app's RDMATOP_REPORT_STARTUP phases, ms from its start).
  record "what=startup-phases prog=rdmatop run=$r $(sed -n 's/^rdmatop: startup-phase \([a-z-]*\) ms=\([-0-9]*\)$/\1=\2/p' \
    "$LOGS/rdmatop-startup-$r.err" | tr '\n' ' ')"
  if [ -n "$BEFORE_APP" ]; then
    record "what=startup prog=rdmatop-before run=$r" \
      "$(GSK_RENDERER=cairo RDMATOP_REPORT_STARTUP=1 $PROBE --line "$STARTUP_RE" \
           --line-timeout "$line_timeout" --no-window \
           --keep-stderr "$LOGS/rdmatop-before-startup-$r.err" -- "$BEFORE_APP")"
  fi
  record "what=startup prog=gtk-first-frame run=$r" \
    "$(GSK_RENDERER=cairo $PROBE --line 'gtk-first-frame: startup-ms=([0-9]+)' \
         --line-timeout "$line_timeout" --no-window -- "$FIRST_FRAME")"
  t0=$(date +%s%N)
  "$APP" --version >/dev/null 2>&1
  record "what=startup prog=rdmatop-version run=$r line_ms=$((($(date +%s%N) - t0) / 1000000))"
}

startup_run 1
has_line=1
grep -q 'what=startup prog=rdmatop run=1 line_ms=none' "$OUT" && has_line=0
if [ "$only" = startup ]; then
  for ((r = 2; r <= startup_runs; r++)); do
    startup_run "$r"
  done
  vm_ok "start-up runs done"
  vm_finish
  exit $?
fi
# How the probe decides when the app has settled.
if [ "$has_line" = 1 ]; then
  SETTLE_ARGS=(--line "$STARTUP_RE" --warm "$warm")
else
  SETTLE_ARGS=(--warm "$settle")
fi

# --- 3. GUI CPU on the local display ------------------------------------

record "what=gui-cpu prog=rdmatop renderer=cairo" \
  "$(GSK_RENDERER=cairo RDMATOP_REPORT_STARTUP=1 $PROBE "${SETTLE_ARGS[@]}" --x-pid "$XVFB_PID" \
       --line-timeout "$line_timeout" --window "$window" \
       --keep-stderr "$LOGS/rdmatop-cpu.err" -- "$APP")"
if [ -n "$BEFORE_APP" ]; then
  record "what=gui-cpu prog=rdmatop-before renderer=cairo" \
    "$(GSK_RENDERER=cairo RDMATOP_REPORT_STARTUP=1 $PROBE "${SETTLE_ARGS[@]}" --x-pid "$XVFB_PID" \
         --line-timeout "$line_timeout" --window "$window" \
         --keep-stderr "$LOGS/rdmatop-before-cpu.err" -- "$BEFORE_APP")"
fi
# The same with GTK animations off (what rdmatop itself sets over ssh): the
# difference is what animating widgets cost.
if [ "$gsm100" = 1 ]; then
mkdir -p "$XDG_CONFIG_HOME/gtk-4.0"
printf '[Settings]\ngtk-enable-animations=false\n' >"$XDG_CONFIG_HOME/gtk-4.0/settings.ini"
record "what=gui-cpu prog=rdmatop-noanim renderer=cairo" \
  "$(GSK_RENDERER=cairo RDMATOP_REPORT_STARTUP=1 $PROBE "${SETTLE_ARGS[@]}" --x-pid "$XVFB_PID" \
       --line-timeout "$line_timeout" --window "$window" \
       --keep-stderr "$LOGS/rdmatop-noanim-cpu.err" -- "$APP")"
rm -f "$XDG_CONFIG_HOME/gtk-4.0/settings.ini"
record "what=gui-cpu prog=gsm-100ms" \
  "$($PROBE --warm "$settle" --x-pid "$XVFB_PID" --window "$window" --keep-stderr "$LOGS/gsm-cpu.err" \
       -- gnome-system-monitor -r)"
fi
set_gsm_graph_interval 1000
record "what=gui-cpu prog=gsm-1s" \
  "$($PROBE --warm "$settle" --x-pid "$XVFB_PID" --window "$window" --keep-stderr "$LOGS/gsm1-cpu.err" \
       -- gnome-system-monitor -r)"
set_gsm_graph_interval 100
if [ "$only" = cpu ]; then
  vm_ok "CPU runs done"
  vm_finish
  exit $?
fi

# The other start-up runs, after the CPU figures (a cold first launch is
# one of the runs; the median is printed).
if [ "$has_line" = 1 ]; then
  for ((r = 2; r <= startup_runs; r++)); do
    startup_run "$r"
  done
fi

# --- 6. Over ssh -X -----------------------------------------------------

SSHD_DIR=/tmp/bench-sshd
mkdir -p "$SSHD_DIR" /run/sshd /root/.ssh
chmod 700 "$SSHD_DIR" /root/.ssh
ssh-keygen -q -t ed25519 -N '' -f "$SSHD_DIR/host_key" || vm_die "ssh-keygen (host)"
ssh-keygen -q -t ed25519 -N '' -f "$SSHD_DIR/client_key" || vm_die "ssh-keygen (client)"
cp "$SSHD_DIR/client_key.pub" "$SSHD_DIR/authorized_keys"
cat >"$SSHD_DIR/sshd_config" <<EOF
ListenAddress 127.0.0.1
Port 2222
HostKey $SSHD_DIR/host_key
AuthorizedKeysFile $SSHD_DIR/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
X11Forwarding yes
X11UseLocalhost yes
PidFile $SSHD_DIR/sshd.pid
EOF
/usr/sbin/sshd -f "$SSHD_DIR/sshd_config" -E "$LOGS/sshd.log" || vm_die "sshd did not start"
vm_wait_for "sshd" 30 vm_tcp_listening 2222
VM_BG_PIDS+=("$(cat "$SSHD_DIR/sshd.pid")")

# ssh_x LABEL REMOTE-COMMAND...: a measured ssh -X session (Debian's default
# ssh_config trusts forwarded X11 clients, so -X behaves as -Y there).
ssh_cmd () {
  # shellcheck disable=SC2086
  ssh -F /dev/null -X $SSH_EXTRA -o ForwardX11Trusted=yes -o BatchMode=yes \
    -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR \
    -i "$SSHD_DIR/client_key" -p 2222 \
    -o ProxyCommand="python3 $BENCH_DIR/count-relay.py 127.0.0.1 %p $SSHD_DIR/count" \
    root@127.0.0.1 "$@"
}
# The remote side writes the GUI's pid (for its CPU) and runs it with the
# environment a remote user would have set up, nothing about the renderer.
remote_env="XDG_CONFIG_HOME=$XDG_CONFIG_HOME GSETTINGS_BACKEND=keyfile GSETTINGS_SCHEMA_DIR=$GSETTINGS_SCHEMA_DIR RDMATOP_LOCALEDIR=$RDMATOP_LOCALEDIR"

ssh_x () {
  local label=$1 line=$2; shift 2
  rm -f "$SSHD_DIR/count" "$SSHD_DIR/remote.pid"
  local probe_args=(--window "$window" --line-timeout "$line_timeout"
                    --cpu-pid-file "$SSHD_DIR/remote.pid" --count-file "$SSHD_DIR/count"
                    --keep-stderr "$LOGS/ssh-$label.err")
  if [ -n "$line" ] && [ "$has_line" = 1 ]; then
    probe_args+=(--line "$line" --warm "$warm")
  else
    probe_args+=(--warm "$settle")
  fi
  record "what=ssh prog=$label" \
    "$($PROBE "${probe_args[@]}" -- ssh_cmd_wrapper \
        "dbus-run-session -- sh -c 'echo \$\$ >$SSHD_DIR/remote.pid; echo renderer-env=\${GSK_RENDERER:-unset} SSH_CONNECTION=\${SSH_CONNECTION:+set} DISPLAY=\$DISPLAY >&2; exec env $remote_env $*'")"
}
# gui-probe.py runs a program, not a shell function: export a wrapper.
cat >/tmp/ssh_cmd_wrapper <<EOF
#!/bin/bash
$(declare -f ssh_cmd)
SSHD_DIR=$SSHD_DIR BENCH_DIR=$BENCH_DIR
SSH_EXTRA="\${SSH_EXTRA:-}" ssh_cmd "\$@"
EOF
chmod +x /tmp/ssh_cmd_wrapper
export PATH=/tmp:$PATH

export SSH_EXTRA=
ssh_x rdmatop "$STARTUP_RE" "RDMATOP_REPORT_STARTUP=1 $APP"
[ -z "$BEFORE_APP" ] || ssh_x rdmatop-before "$STARTUP_RE" "RDMATOP_REPORT_STARTUP=1 $BEFORE_APP"
[ "$gsm100" = 1 ] && ssh_x gsm-100ms "" "gnome-system-monitor -r"
set_gsm_graph_interval 1000
ssh_x gsm-1s "" "gnome-system-monitor -r"
# The same sessions with ssh's own compression (ssh -X -C).
if [ "$compress" = 1 ]; then
  export SSH_EXTRA=-C
  ssh_x rdmatop-C "$STARTUP_RE" "RDMATOP_REPORT_STARTUP=1 $APP"
  [ -z "$BEFORE_APP" ] || ssh_x rdmatop-before-C "$STARTUP_RE" "RDMATOP_REPORT_STARTUP=1 $BEFORE_APP"
  ssh_x gsm-1s-C "" "gnome-system-monitor -r"
  export SSH_EXTRA=
fi

# --- Terminal monitors, under tmux (a terminal of 200x50) -----------------
# term_run LABEL COMMAND...: the program's CPU per second in a tmux pane on
# this machine, then over ssh -tt (bytes of the session), both at 1 s.
term_run () {
  local label=$1; shift
  printf '#!/bin/sh\necho $$ >%s\nexec env TERM=tmux-256color %s\n' \
    "$SSHD_DIR/term.pid" "$*" >/tmp/term-local.sh
  printf '#!/bin/sh\necho $$ >%s\nexec env TERM=tmux-256color %s\n' \
    "$SSHD_DIR/remote.pid" "$*" >/tmp/term-remote.sh
  printf '#!/bin/sh\nexec /tmp/ssh_cmd_wrapper -tt /tmp/term-remote.sh\n' >/tmp/term-ssh.sh
  chmod +x /tmp/term-local.sh /tmp/term-remote.sh /tmp/term-ssh.sh
  rm -f "$SSHD_DIR/term.pid"
  record "what=term-cpu prog=$label" \
    "$($PROBE --warm "$warm" --window "$window" --cpu-pid-file "$SSHD_DIR/term.pid" \
         --line-timeout "$line_timeout" -- \
         tmux new-session -d -s "term-$label" -x 200 -y 50 /tmp/term-local.sh)"
  tmux kill-session -t "term-$label" 2>/dev/null
  rm -f "$SSHD_DIR/count" "$SSHD_DIR/remote.pid"
  record "what=term-ssh prog=$label" \
    "$($PROBE --warm "$warm" --window "$window" --cpu-pid-file "$SSHD_DIR/remote.pid" \
         --count-file "$SSHD_DIR/count" --line-timeout "$line_timeout" -- \
         tmux new-session -d -s "ssh-$label" -x 200 -y 50 /tmp/term-ssh.sh)"
  tmux kill-session -t "ssh-$label" 2>/dev/null
}
if [ -n "$term" ]; then
  if [ -x "$term" ]; then
    term_run term "$term"
  else
    record "what=term-cpu prog=term missing=$term"
  fi
  term_run watch "$VM_CLI watch --interval 1"
fi
# What the remote side saw: SSH_CONNECTION set, GSK_RENDERER not, so the
# renderer is rdmatop's own choice (rtop-remote.c).
record "what=ssh-env $(grep -h -m 1 '^renderer-env=' "$LOGS/ssh-rdmatop.err" || echo 'renderer-env=missing')"
# For comparison, the same session with GTK's GL renderer forced.
if [ "$ssh_gl" = 1 ]; then
  set_gsm_graph_interval 100
  ssh_x rdmatop-gl "$STARTUP_RE" "GSK_RENDERER=gl RDMATOP_REPORT_STARTUP=1 $APP"
fi

vm_ok "GUI benchmarks ran"
vm_finish
