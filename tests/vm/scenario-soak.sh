#!/bin/bash
# Soak: rdmatop-cli watch and record, and the desktop app under Xvfb, run
# while a churn loop deletes and re-adds a device, flaps its link, switches
# netem loss on and off under traffic, a process replaces hundreds of QPs a
# second, and a process with a hostile comm and command line holds a QP.
# Checked (host side, vmcheck.py soak): the churn ran its seconds and its
# cycles, every pass ok and in order, no negative rate and no spike, every
# removal and re-add raised its events, the hostile names only ever
# escaped, the sampler never missed more than one period in a row, enough
# RSS samples and resident memory flat after warm-up, the recording loads
# and covers the whole run; in the guest: nothing crashed or warned.
#
# Arguments (key=value): seconds=N of churn (default 90: the vm suite's
# short run); the long run for the figures:
#   tests/vm/vm-run.sh --builddir build --timeout 4000 tests/vm/scenario-soak.sh seconds=3600
. "$RDMATOP_VM_DIR/guest-lib.sh"

seconds=90
for arg in "$@"; do
  case "$arg" in
    seconds=*) seconds=${arg#*=} ;;
    *) vm_die "unknown argument '$arg'" ;;
  esac
done

vm_init
O=$VM_OUT
APP=$VM_BUILDDIR/src/app/rdmatop
[ -x "$VM_QP_HOLDER" ] || vm_die "$VM_QP_HOLDER is not built"

vm_rxe_pair rxe0 v0 10.220.0.1 rxe1 v1 10.220.0.2
vm_dummy_rxe rxe2 d2 10.210.2.1
vm_netem_loss v0 0
vm_perftest write rxe1 rxe0 10.220.0.2 $((seconds + 120))

# Hundreds of QPs a second opened and closed, and a process whose comm (its
# executable's name) and arguments are hostile: an escape sequence, a
# right-to-left override, invalid UTF-8, 64 KiB of arguments.
ready=/tmp/soak-churn.ready
vm_bg "$VM_QP_HOLDER" --device rxe1 --qps 50 --churn 300 --ready-file "$ready"
churn_pid=$VM_LAST_PID
vm_wait_for "the churning qp-holder" 60 test -e "$ready"
hostile_dir=/tmp/soak-hostile
mkdir -p "$hostile_dir"
hostile_bin="$hostile_dir/$(printf '\033[2J\342\200\256q')"
cp "$VM_QP_HOLDER" "$hostile_bin"
big=$(head -c 65536 /dev/zero | tr '\0' 'A')
# argv[0] carries the hostile text and the 64 KiB (qp-holder takes no
# positional arguments).
vm_bg bash -c 'exec -a "$0" "$1" --device rxe1 --qps 1 --ready-file /tmp/soak-hostile.ready' \
  "$(printf 'job\342\200\256hs.tpg\033]0;owned\007\351 %s' "$big")" "$hostile_bin"

vm_wait_for "the hostile qp-holder" 60 test -e /tmp/soak-hostile.ready

# What is watched: the app, the CLI's sampler, a recording.
app_pid=
if [ -x "$APP" ]; then
  vm_bg Xvfb :43 -screen 0 1600x1000x24 -nolisten tcp >"$O/xvfb.log" 2>&1
  vm_wait_for "Xvfb" 60 test -S /tmp/.X11-unix/X43
  bus=$(dbus-daemon --session --fork --print-address=1 --print-pid=1) || vm_die "dbus-daemon"
  VM_BG_PIDS+=("$(echo "$bus" | sed -n 2p)")
  mkdir -p "$O/home"
  DISPLAY=:43 DBUS_SESSION_BUS_ADDRESS=$(echo "$bus" | sed -n 1p) HOME=$O/home \
    GSETTINGS_SCHEMA_DIR=$VM_BUILDDIR/data GSETTINGS_BACKEND=memory GSK_RENDERER=cairo \
    RDMATOP_REPORT_STARTUP=1 RDMATOP_REPORT_MEMORY=2 \
    vm_bg "$APP" --gapplication-app-id=io.github.rdmatop.Rdmatop.Soak >"$O/app.log" 2>&1
  app_pid=$VM_LAST_PID
  # Its start-up (fonts, the first frames) is not what the soak measures.
  vm_wait_for "the app's first frame with live data" 240 \
    grep -Eq '^rdmatop: startup-ms=[0-9]+$' "$O/app.log"
fi
vm_watch_bg "$O/watch.json" --interval 1
vm_watch_wait_passes "$O/watch.json" 2 60
watch_pid=$(cat "$O/watch.json.pid")
"$VM_CLI" record --output "$O/soak.json.gz" --interval 1 >"$O/rec.out" 2>"$O/rec.err" &
rec_pid=$!
VM_BG_PIDS+=("$rec_pid")
vm_log "watching: watch $watch_pid, record $rec_pid, app ${app_pid:-none}"

rss () {   # PID: VmRSS in kB, or nothing
  sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$1/status" 2>/dev/null
}
sample_rss () {
  local t=$((SECONDS - start)) who pid
  for who in watch record app; do
    case $who in watch) pid=$watch_pid ;; record) pid=$rec_pid ;; app) pid=$app_pid ;; esac
    [ -n "$pid" ] || continue
    echo "$t $who $(rss "$pid")" >>"$O/rss.txt"
  done
}
# Every 2 s for the whole churn, beside it.
rss_sampler () {
  while [ -e /tmp/soak-running ]; do
    sample_rss
    sleep 2
  done
}

# The churn: one cycle every few seconds, each step logged.
: >"$O/churn.log"
: >"$O/rss.txt"
start=$SECONDS
cycle=0
# The app's memory reports that fall within the churn: from here...
report_count () { grep -c '^rdmatop: memory ' "$O/app.log" 2>/dev/null || true; }
reports_from=$(report_count)
touch /tmp/soak-running
rss_sampler &
rss_pid=$!
while [ $((SECONDS - start)) -lt "$seconds" ]; do
  cycle=$((cycle + 1))
  echo "$((SECONDS - start)) cycle $cycle delete rxe2" >>"$O/churn.log"
  vm_rxe_delete rxe2
  sleep 2
  vm_rxe_add rxe2 d2
  echo "$((SECONDS - start)) cycle $cycle readd rxe2" >>"$O/churn.log"
  sleep 2
  vm_link_down d2
  sleep 1.5
  vm_link_up d2
  if [ $((cycle % 2)) = 1 ]; then vm_netem_loss v0 2; else vm_netem_loss v0 0; fi
  sleep 1.5
done
vm_netem_loss v0 0
echo "$((SECONDS - start)) end cycles=$cycle" >>"$O/churn.log"
sleep 2
rm -f /tmp/soak-running
wait "$rss_pid"
reports_to=$(report_count)   # ...to here
vm_log "churn done: $cycle cycles in $((SECONDS - start)) s"

# Still running, then stopped the way a user stops them.
vm_check "rdmatop-cli watch is still running" kill -0 "$watch_pid"
vm_check "rdmatop-cli record is still running" kill -0 "$rec_pid"
[ -n "$app_pid" ] && vm_check "the app is still running" kill -0 "$app_pid"
vm_check "the churning qp-holder is still running" kill -0 "$churn_pid"
kill -TERM "$rec_pid"
rc=0
wait "$rec_pid" || rc=$?
vm_is "record exits 0 on SIGTERM" "$rc" 0
vm_watch_stop "$O/watch.json"
[ -n "$app_pid" ] && kill -TERM "$app_pid"
kill -TERM "$churn_pid"
vm_check "no warning or critical from the CLI" \
  bash -c "! grep -E 'WARNING|CRITICAL|runtime error|Sanitizer' '$O/watch.json.err' '$O/rec.err'"
if [ -n "$app_pid" ]; then
  vm_check "no warning or critical from the app" \
    bash -c "! grep -E -- '-WARNING|-CRITICAL|runtime error|Sanitizer' '$O/app.log'"
fi
sanitizer=()
[ "$VM_SANITIZER" = 1 ] && sanitizer=(--sanitizer)
app_log=()
[ -n "$app_pid" ] && app_log=(--app-log "$O/app.log" --app-reports "$reports_from:$reports_to")
vm_pycheck soak --watch "$O/watch.json" --rss "$O/rss.txt" --churn "$O/churn.log" "${app_log[@]}" \
  --recording "$O/soak.json.gz" --device rxe2 --seconds "$seconds" "${sanitizer[@]}"
vm_finish
