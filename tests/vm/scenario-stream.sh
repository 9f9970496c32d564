#!/bin/bash
# serve --stdio in the guest while devices are added and removed: the
# stream is decoded on the other end of a pipe (stream-dump writes each
# snapshot as rdmatop-cli's JSON), and at each step the decoded snapshot
# equals `rdma -j dev/link/statistic show` device for device, counter for
# counter.  Commands go in through a fifo; stop ends it with exit 0.
. "$RDMATOP_VM_DIR/guest-lib.sh"
vm_init
O=$VM_OUT
DUMP=$VM_BUILDDIR/tests/stream-dump
[ -x "$DUMP" ] || vm_die "$DUMP is not built"

lines () { [ -f "$O/stream.jsonl" ] && wc -l <"$O/stream.jsonl" || echo 0; }
more_lines () { [ "$(lines)" -ge "$1" ]; }

# Waits for a pass taken after rdma's view, and checks that rdma's view
# did not move meanwhile (the devices are idle then).
compare () {
  local tag=$1 n=$2 have
  vm_rdma_json "$O/$tag-before" dev link stat
  have=$(lines)
  echo refresh >&3
  vm_wait_for "a pass after the refresh" 30 more_lines $((have + 2))
  vm_rdma_json "$O/$tag-after" stat
  # The last line that is complete: stream-dump may be writing the next.
  have=$(lines)
  sed -n "${have}p" "$O/stream.jsonl" >"$O/$tag.json"
  vm_pycheck --label "stream, $n devices" discovery --devices "$n" \
    --snapshot "$O/$tag.json" --rdma "$O/$tag-before" --rdma-after "$O/$tag-after"
}

vm_dummy_rxe rxe0 d0 10.210.0.1
vm_pingpong rxe0 10.210.0.1 100

mkfifo /tmp/serve-in
( "$VM_CLI" serve --stdio --interval 0.5 </tmp/serve-in 2>"$O/serve.err";
  echo $? >"$O/serve.rc" ) | { "$DUMP" "$O/stream.jsonl" 2>"$O/dump.err"; echo $? >"$O/dump.rc"; } &
PIPE_PID=$!
exec 3>/tmp/serve-in
# The hello a reader of this build sends (the stream's version is the
# build's, not this script's).
"$DUMP" --hello >&3
vm_wait_for "the first decoded snapshots" 60 more_lines 2
compare one 1

vm_dummy_rxes 1 2
vm_pingpong rxe2 10.210.2.1 50
compare three 3

vm_rxe_delete rxe1
compare deleted 2

vm_dummy_rxe rxe1 d1b 10.210.11.1
compare readded 3

echo stop >&3
exec 3>&-
wait "$PIPE_PID"
vm_is "serve --stdio exited 0 on stop" "$(cat "$O/serve.rc")" 0
vm_is "the stream decoded to its end without an error ($(head -c 200 "$O/dump.err"))" \
  "$(cat "$O/dump.rc")" 0
n=$(lines)
vm_check "the stream carried many passes ($n)" test "$n" -ge 8
vm_finish
