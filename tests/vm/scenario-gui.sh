#!/bin/bash
# Issue 4 (issue 3 item 7): the desktop app under Xvfb against live
# Soft-RoCE devices with traffic.  The app is driven from outside the way a
# user's desktop does it, through the actions GtkApplication exports on the
# session bus (org.gtk.Actions.Activate): it dumps what its overview and a
# port page show, and the checks compare that with the traffic running;
# screenshots of both come back as artifacts (gui-overview.png,
# gui-port-detail.png).
. "$RDMATOP_VM_DIR/guest-lib.sh"
vm_init
O=$VM_OUT
vm_rxe_pair rxe0 v0 10.220.0.1 rxe1 v1 10.220.0.2
vm_dummy_rxe rxe2 d2 10.210.2.1
# Long enough to outlast a slow start on a busy machine; the scenario
# stops it when it ends.
vm_perftest write rxe1 rxe0 10.220.0.2 300
vm_log "traffic running"

vm_app_display 42
vm_app_start app.log

row () { grep "^row	port=$1	" "$O/$2"; }
field () { row "$1" "$3" | tr '\t' '\n' | sed -n "s/^$2=//p"; }
# A rate shown as non-zero: "12.3 kpkt/s", not "0 pkt/s" or "—".
nonzero () { [[ "$1" =~ ^[0-9.]+\ ?[kMGT]?pkt/s$ ]] && [[ ! "$1" =~ ^0\ pkt/s$ ]]; }
# rxe0/1 shows a packet rate (two passes taken, so rates exist).
rates_shown () { vm_app_dump overview.txt && nonzero "$(field rxe0/1 pps overview.txt)"; }

vm_wait_for "the app on the session bus" 120 vm_app_on_bus
vm_wait_for "packet rates on the overview" 120 rates_shown
rated_at=$SECONDS
vm_log "overview: $(grep -c '^row' "$O/overview.txt") rows"
# The dump reads the models; the report follows the first painted frame with
# data, which a slow (sanitizer) build paints later than its models fill.
reported () { grep -Eq '^rdmatop: startup-ms=[0-9]+$' "$O/app.log"; }
for _ in $(seq 300); do reported && break; sleep 0.2; done
vm_check "the first frame with live data was reported ($(grep -o 'startup-ms=[0-9]*' "$O/app.log"))" \
  reported

vm_is "the overview shows the three ports in natural order" \
  "$(grep '^row' "$O/overview.txt" | cut -f2 | tr '\n' ' ')" \
  "port=rxe0/1 port=rxe1/1 port=rxe2/1 "
for p in rxe0/1 rxe1/1; do
  got=$(field "$p" pps overview.txt)
  vm_check "$p (ib_write_bw) shows a non-zero packet rate ($got)" nonzero "$got"
  vm_is "$p is shown Active" "$(field "$p" state overview.txt)" "● Active"
done
vm_is "idle rxe2/1 shows no packets" "$(field rxe2/1 pps overview.txt)" "0 pkt/s"
vm_check "the totals show transmit traffic" \
  bash -c "grep '^totals' '$O/overview.txt' | grep -vq 'tx=0 b/s'"
vm_check "the processes view lists the ib_write_bw client (pid $VM_CLIENT_PID)" \
  grep -Eq "^process	pid=$VM_CLIENT_PID	.*command=ib_write_bw" "$O/overview.txt"
vm_check "the processes view lists the ib_write_bw server (pid $VM_SERVER_PID)" \
  grep -Eq "^process	pid=$VM_SERVER_PID	.*devices=rxe1" "$O/overview.txt"
# The five-minute sparkline moves about 1 px a second: 40 s of rated passes
# draw a line over ~40 columns, however fast this machine got here.
while [ $((SECONDS - rated_at)) -lt 40 ]; do sleep 1; done
import -window root "$O/gui-overview.png" 2>"$O/import.log"
vm_check "a screenshot of the overview was saved" test -s "$O/gui-overview.png"
# The host checks what it shows: a drawn page whose sparklines draw their
# lines across more columns than the RX card's 3 px stripe (40 s of them, by
# the wait above).  On the default link-rate scale these ports' lines run
# along the bottom, where RX, drawn last, covers TX: so the RX colour.
vm_pycheck screenshot --png "$O/gui-overview.png" --near e66100:24

vm_app_activate show-port "<'rxe0/1'>"
sent_rate () { vm_app_dump detail.txt && grep '^counter	name=sent_pkts' "$O/detail.txt" | grep -Eq 'rate=[1-9]'; }
vm_wait_for "rxe0's counters on its page" 60 sent_rate
vm_check "the port page is rxe0's" grep -q '^detail	rxe0 port 1$' "$O/detail.txt"
vm_is "the window shows the port page" "$(sed -n 1p "$O/detail.txt")" "view=detail"
sleep 2
import -window root "$O/gui-port-detail.png" 2>>"$O/import.log"
vm_check "a screenshot of the port page was saved" test -s "$O/gui-port-detail.png"
vm_pycheck screenshot --png "$O/gui-port-detail.png" --near 3584e4:60

# Record a few seconds of the live traffic from the header bar's action.
vm_app_activate record
partial () { ls "$O"/home/rdmatop/rdmatop-*.json.gz.partial >/dev/null 2>&1; }
vm_wait_for "the recording to start" 60 partial
sleep 5
vm_app_activate record
vm_wait_for "the recording to be completed" 60 bash -c "! ls '$O'/home/rdmatop/*.partial >/dev/null 2>&1"
rec=$(ls "$O"/home/rdmatop/rdmatop-*.json.gz 2>/dev/null | head -1)
vm_check "Record/Stop left a recording ($(basename "${rec:-none}"))" test -s "${rec:-/nonexistent}"
vm_check "the recording has rxe0/1's track" bash -c "gzip -dc '$rec' | grep -q 'rxe0/1'"
saved () { vm_app_dump stop.txt && grep -qF "toast	Recording saved to $rec." "$O/stop.txt"; }
vm_wait_for "the window's message with the path" 30 saved
vm_check "after Stop the window says where the trace went" grep -qF "toast	Recording saved to $rec." "$O/stop.txt"

# A link taken down: an Error (the ✖ sign, not a Warning's ⚠) in the
# Health column with its reason, and named in the
# problems card, and its Error first in the recent events.
vm_app_activate show-view "<'overview'>"
vm_link_down d2
down () { vm_app_dump down.txt && grep -E '^row	port=rxe2/1	' "$O/down.txt" | grep -q 'health=✖'; }
vm_wait_for "rxe2/1 unhealthy in the overview" 60 down
vm_check "rxe2/1's Health says why" bash -c "grep -E '^row	port=rxe2/1	' '$O/down.txt' | grep -Eq 'health=✖ (Port not active|Link down)'"
# The card's caption names the ports on a second line.
vm_check "the problems card names rxe2/1" bash -c "sed -n '/^totals/,/^row/p' '$O/down.txt' | grep -qx 'rxe2/1'"
sleep 2
import -window root "$O/gui-overview-port-down.png" 2>>"$O/import.log"
vm_pycheck screenshot --png "$O/gui-overview-port-down.png"
vm_link_up d2

# A recording on a full file system: the write error is shown, the
# recording goes on in memory, and Save As (the window's, here through the
# same application action) moves it where there is room.
mkdir -p "$O/full"
mount -t tmpfs -o size=4k tmpfs "$O/home/rdmatop" || vm_die "mount a small tmpfs"
dd if=/dev/zero of="$O/home/rdmatop/filler" bs=4k count=1 2>/dev/null
vm_app_activate record
vm_wait_for "the recording to start on the full disk" 60 bash -c "ls '$O'/home/rdmatop/*.partial >/dev/null 2>&1"
sleep 4
vm_app_activate save-recording-as "<'$O/full/saved-elsewhere.json.gz'>"
vm_wait_for "the recording to move" 60 bash -c "ls '$O'/full/saved-elsewhere.json.gz.partial >/dev/null 2>&1"
sleep 2
vm_app_activate record
vm_wait_for "the moved recording to be completed" 60 test -s "$O/full/saved-elsewhere.json.gz"
vm_check "the recording saved elsewhere is complete JSON" bash -c \
  "gzip -dc '$O/full/saved-elsewhere.json.gz' | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d[\"traceEvents\"]'"
vm_check "nothing is left on the full disk" bash -c "! ls '$O'/home/rdmatop/*.partial >/dev/null 2>&1"
umount "$O/home/rdmatop"

# Closing the window while it records asks first (Ctrl+Q's action closes
# it as the title bar would; no window manager runs, so the keys go to the
# question, which has the focus): Escape is Cancel and the recording goes
# on; Enter is the default, Save and Close, which completes the trace.
question () { vm_app_dump "$1" && grep -q '^question	Save the Recording Before Closing?	' "$O/$1"; }
no_question () { vm_app_dump "$1" && ! grep -q '^question	' "$O/$1"; }
vm_app_activate record
vm_wait_for "a recording before closing" 60 partial
closing=$(ls "$O"/home/rdmatop/*.partial | head -1)
vm_app_activate quit
vm_wait_for "the question when closing while recording" 60 question close-asked.txt
vm_check "the question names the recording" \
  grep -qF "A recording to ${closing%.partial} is running" "$O/close-asked.txt"
sleep 1
import -window root "$O/gui-close-question.png" 2>>"$O/import.log"
xdotool key --clearmodifiers Escape
vm_wait_for "Cancel to dismiss the question" 30 no_question close-cancelled.txt
vm_check "after Cancel the app still runs" kill -0 "$VM_APP_PID"
vm_check "after Cancel the recording goes on" \
  grep -Eq '^record	Stop · [0-9:]+ · [0-9]+ samples?$' "$O/close-cancelled.txt"
vm_check "after Cancel the trace is still being written" test -s "$closing"
samples () { grep '^record' "$O/$1" | grep -Eo '[0-9]+ samples?' | grep -Eo '^[0-9]+'; }
before=$(samples close-cancelled.txt)
more_samples () { vm_app_dump close-later.txt && [ "$(samples close-later.txt)" -gt "${before:-0}" ]; }
vm_wait_for "more samples after Cancel" 30 more_samples
vm_app_activate quit
vm_wait_for "the question again" 60 question close-asked-again.txt
xdotool key --clearmodifiers Return
vm_wait_for "Save and Close to end the app" 60 bash -c "! kill -0 $VM_APP_PID 2>/dev/null"
wait "$VM_APP_PID"
vm_is "Save and Close ends the app with status 0" "$?" 0
vm_check "Save and Close left no .partial file" test ! -e "$closing"
vm_check "the trace saved on close is complete JSON with rxe0/1's track" bash -c \
  "gzip -dc '${closing%.partial}' | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d[\"traceEvents\"]; assert \"rxe0/1\" in json.dumps(d)'"
vm_check "no GTK criticals or warnings before closing" bash -c "! grep -E 'CRITICAL|WARNING' '$O/app.log'"

# The app again, opening that trace: it loads, rxe0/1 in it; then live.
vm_app_start app-2.log "${closing%.partial}"
vm_wait_for "the app on the session bus again" 120 vm_app_on_bus
replayed () { vm_app_dump replay.txt && grep -q '^mode	Replaying ' "$O/replay.txt" && row rxe0/1 replay.txt >/dev/null; }
vm_wait_for "the trace saved on close to be shown" 120 replayed
vm_check "the trace saved on close opens in the app with rxe0/1" replayed
vm_app_activate go-live
live () { vm_app_dump live.txt && ! grep -q '^mode	' "$O/live.txt"; }
vm_wait_for "the window to go live" 60 live

# SIGTERM while the window records: the trace is closed, as the CLI does.
vm_app_activate record
vm_wait_for "a recording before SIGTERM" 60 partial
sleep 3
kill -TERM "$VM_APP_PID"
vm_wait_for "the app to end on SIGTERM" 60 bash -c "! kill -0 $VM_APP_PID 2>/dev/null"
wait "$VM_APP_PID"
vm_is "SIGTERM ends the app with status 0" "$?" 0
vm_check "SIGTERM left no .partial file" bash -c "! ls '$O'/home/rdmatop/*.partial >/dev/null 2>&1"
vm_check "every trace left is complete JSON" bash -c \
  "for f in '$O'/home/rdmatop/rdmatop-*.json.gz; do gzip -dc \"\$f\" | python3 -c 'import json,sys; json.load(sys.stdin)' || exit 1; done"
vm_check "no GTK criticals or warnings" bash -c "! grep -E 'CRITICAL|WARNING' '$VM_APP_LOG'"
vm_finish
