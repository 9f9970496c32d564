# shellcheck shell=bash disable=SC2034  # VM_* results are read by the scenarios
# Helpers for scenario scripts that run inside the test guest
# (tests/vm/vm-run.sh).  Source it from bash:
#
#   . "$RDMATOP_VM_DIR/guest-lib.sh"
#   vm_init
#   vm_dummy_rxe rxe0 d0 10.210.0.1
#   ...
#   vm_check "rxe0 is listed" vm_json_has "$snap" ...
#   vm_finish
#
# Checks print "ok - ..." or "not ok - ..." lines (TAP-like) and are
# tallied; vm_pycheck queues a vmcheck.py check that the host runs on the
# artifacts afterwards; vm-run.sh prints "N passed, M failed" over both and
# exits non-zero when a check failed.  A helper that cannot do its job (a device that cannot be
# created, traffic that does not start) fails the scenario at once with a
# "FAIL:" line: a scenario never passes by skipping its work.

set -uo pipefail

VM_DIR=${RDMATOP_VM_DIR:?guest-lib.sh runs inside the test guest (vm-run.sh)}
VM_BUILDDIR=${RDMATOP_BUILDDIR:-}
VM_CLI=${VM_BUILDDIR:+$VM_BUILDDIR/src/cli/rdmatop-cli}
VM_QP_HOLDER=${VM_BUILDDIR:+$VM_BUILDDIR/tests/vm/qp-holder}
# Whether the build is instrumented (ASan): its binaries name libasan among
# their needed libraries.  Read from the file, not by running ldd, which
# once answered nothing in a loaded guest and let the soak judge ASan's
# allocator as rdmatop's memory.
VM_SANITIZER=0
if [ -n "$VM_CLI" ] && grep -qa 'libasan\.so' "$VM_CLI"; then
  VM_SANITIZER=1
fi
# An ASan build runs two to three times slower under the emulator: every
# bound on waiting (never a timing check) is three times as long with it.
VM_WAIT_SCALE=1
[ "$VM_SANITIZER" = 1 ] && VM_WAIT_SCALE=3
# Artifacts written here come back to the host (RDMATOP_VM_RESULTS).
VM_OUT=${RDMATOP_RESULTS:-/tmp}/$(basename "${RDMATOP_SCENARIO:-scenario}" .sh)
VM_USER=rdmatest
VM_UID=4242
# The tally and the queued host checks travel back with the results.
VM_TALLY=${RDMATOP_RESULTS:-/tmp}/tally
VM_CHECKS=${RDMATOP_RESULTS:-/tmp}/checks
VM_BG_PIDS=()

vm_log () {
  echo "# [${SECONDS}s] $*"
}

# Stops the scenario now: the harness reports the status to the host.
vm_die () {
  echo "FAIL: $*"
  vm_cleanup
  exit 1
}

vm_cleanup () {
  local p
  for p in "${VM_BG_PIDS[@]}"; do
    kill "$p" 2>/dev/null
  done
  VM_BG_PIDS=()
}

# Loads the kernel modules, checks the binaries under test and creates the
# unprivileged user.  Call first.
vm_init () {
  : >"$VM_TALLY"
  mkdir -p "$VM_OUT"
  [ -n "$VM_BUILDDIR" ] || vm_die "no build directory given (vm-run.sh --builddir DIR)"
  [ -x "$VM_CLI" ] || vm_die "$VM_CLI is not built"
  # One modprobe: each process start costs under TCG.  (vm-run.sh keeps
  # these modules decompressed: GUEST_MODULES.)
  modprobe -a rdma_rxe ib_uverbs rdma_ucm dummy veth sch_netem ||
    vm_die "modprobe rdma_rxe ib_uverbs rdma_ucm dummy veth sch_netem"
  vm_add_user
  trap vm_cleanup EXIT
  vm_log "kernel $(uname -r), cli $VM_CLI, artifacts $VM_OUT"
}

# --- checks ------------------------------------------------------------

vm_ok () {
  echo "ok - $1"
  echo ok >>"$VM_TALLY"
}

vm_not_ok () {
  echo "not ok - $1"
  echo fail >>"$VM_TALLY"
}

# vm_check DESCRIPTION COMMAND [ARGS...]: passes when COMMAND exits 0.
vm_check () {
  local desc=$1; shift
  if "$@"; then vm_ok "$desc"; else vm_not_ok "$desc (command: $*)"; fi
}

# vm_is DESCRIPTION GOT EXPECTED
vm_is () {
  if [ "$2" = "$3" ]; then vm_ok "$1"; else vm_not_ok "$1: got '$2', expected '$3'"; fi
}

# vm_pycheck CHECK ARGS...: queues a check of vmcheck.py.  The host runs
# the queued checks on the artifacts after the guest powers off: Python
# starts in about 0.1 s there and in 1 to 5 s under TCG.  Paths under
# $VM_OUT are mapped to the host's copy.
vm_pycheck () {
  local f
  mkdir -p "$VM_CHECKS"
  f=$VM_CHECKS/$(printf '%03d' "$(find "$VM_CHECKS" -name '*.args' | wc -l)").args
  printf '%s\n' "$@" >"$f"
}

# Prints the guest's own tally and exits non-zero when one of its checks
# failed; vm-run.sh adds the host-side checks and prints the total.
vm_finish () {
  vm_cleanup
  local passed failed queued
  passed=$(grep -c '^ok$' "$VM_TALLY")
  failed=$(grep -c '^fail$' "$VM_TALLY")
  queued=$(find "$VM_CHECKS" -name '*.args' 2>/dev/null | wc -l)
  echo "# guest checks: $passed passed, $failed failed; $queued check groups queued for the host"
  [ "$((passed + failed + queued))" -gt 0 ] || { echo "FAIL: the scenario ran no check"; exit 1; }
  [ "$failed" -eq 0 ]
}

# --- devices -----------------------------------------------------------

# vm_dummy_rxe RXE NETDEV ADDRESS: a Soft-RoCE device on a new dummy netdev.
# Traffic between two queue pairs on one such device stays inside rxe (its
# loopback path): it counts packets but never reaches the netdev or a qdisc.
vm_dummy_rxe () {
  local rxe=$1 nd=$2 addr=$3
  ip link add "$nd" type dummy || vm_die "ip link add $nd type dummy"
  ip addr add "$addr/24" dev "$nd" || vm_die "address $addr on $nd"
  ip link set "$nd" up || vm_die "ip link set $nd up"
  vm_rxe_add "$rxe" "$nd"
}

# vm_dummy_rxes I...: rxeI on dummy dI with 10.210.I.1, created in the
# order given, with one `ip -batch` and one `rdma -b` (each command
# costs about a second under TCG).
vm_dummy_rxes () {
  local i ipb=/tmp/vm-ip.batch rdb=/tmp/vm-rdma.batch
  : >"$ipb"
  : >"$rdb"
  for i in "$@"; do
    printf 'link add d%s type dummy\naddr add 10.210.%s.1/24 dev d%s\nlink set d%s up\n' \
      "$i" "$i" "$i" "$i" >>"$ipb"
    echo "link add rxe$i type rxe netdev d$i" >>"$rdb"
  done
  ip -batch "$ipb" || vm_die "ip -batch: creating dummy netdevs $*"
  rdma -b "$rdb" || vm_die "rdma -b: creating rxe devices $*"
  for i in "$@"; do
    vm_wait_for "rxe$i ACTIVE" 20 vm_port_state_is "rxe$i" ACTIVE
    vm_wait_for "rxe$i GID 1" 20 vm_has_gid1 "rxe$i"
  done
}

# vm_rxe_add RXE NETDEV / vm_rxe_delete RXE
vm_rxe_add () {
  rdma link add "$1" type rxe netdev "$2" || vm_die "rdma link add $1 type rxe netdev $2"
  vm_wait_for "$1 ACTIVE" 20 vm_port_state_is "$1" ACTIVE
  # GID 1, the IPv4-mapped RoCE v2 GID the traffic helpers use, is filled
  # in from the netdev's address shortly after the device registers.
  vm_wait_for "$1 GID 1" 20 vm_has_gid1 "$1"
}

vm_has_gid1 () {
  local g
  g=$(cat "/sys/class/infiniband/$1/ports/1/gids/1" 2>/dev/null) || return 1
  [ -n "$g" ] && [ "$g" != "0000:0000:0000:0000:0000:0000:0000:0000" ]
}

vm_rxe_delete () {
  rdma link delete "$1" || vm_die "rdma link delete $1"
}

# vm_rxe_pair RXE_A NETDEV_A ADDR_A RXE_B NETDEV_B ADDR_B: two Soft-RoCE
# devices on the two ends of a veth pair.  Both addresses are local, so the
# kernel would route between them over lo, where rxe finds no device and
# drops the packets; policy rules send locally generated traffic for each
# address out of the other end instead.  The traffic then crosses real
# netdevs: their byte counters move and a netem qdisc on them applies.
vm_rxe_pair () {
  local ra=$1 na=$2 aa=$3 rb=$4 nb=$5 ab=$6 nd
  ip link add "$na" type veth peer name "$nb" || vm_die "veth pair $na/$nb"
  ip addr add "$aa/24" dev "$na" || vm_die "address $aa"
  ip addr add "$ab/24" dev "$nb" || vm_die "address $ab"
  # Packets arriving from our own addresses must not be dropped as martians.
  sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.all.accept_local=1
  for nd in "$na" "$nb"; do
    sysctl -qw "net.ipv4.conf.$nd.rp_filter=0" "net.ipv4.conf.$nd.accept_local=1"
    ip link set "$nd" up || vm_die "ip link set $nd up"
  done
  # Under TCG a starved softirq or a slow ARP probe can drop a packet at
  # send time; rxe counts send_err and may fail the QP.  Permanent
  # neighbours and a deep backlog keep the only losses the ones a test
  # injects.
  sysctl -qw net.core.netdev_max_backlog=100000
  ip neigh replace "$ab" lladdr "$(cat "/sys/class/net/$nb/address")" dev "$na" nud permanent ||
    vm_die "neighbour $ab"
  ip neigh replace "$aa" lladdr "$(cat "/sys/class/net/$na/address")" dev "$nb" nud permanent ||
    vm_die "neighbour $aa"
  VM_PAIR_TABLE=$(( ${VM_PAIR_TABLE:-100} + 2 ))
  ip rule add pref 10 to "$ab" iif lo lookup "$VM_PAIR_TABLE" || vm_die "ip rule"
  ip route add "$ab" dev "$na" src "$aa" table "$VM_PAIR_TABLE" || vm_die "ip route"
  ip rule add pref 10 to "$aa" iif lo lookup "$((VM_PAIR_TABLE + 1))" || vm_die "ip rule"
  ip route add "$aa" dev "$nb" src "$ab" table "$((VM_PAIR_TABLE + 1))" || vm_die "ip route"
  vm_rxe_add "$ra" "$na"
  vm_rxe_add "$rb" "$nb"
}

# vm_port_state_is RXE STATE: port 1 is in STATE ("4: ACTIVE" in sysfs;
# the same names as `rdma link`).  Cheap enough to poll under TCG.
vm_port_state_is () {
  local s
  s=$(cat "/sys/class/infiniband/$1/ports/1/state" 2>/dev/null) || return 1
  [ "${s#*: }" = "$2" ]
}

# vm_wait_for WHAT SECONDS COMMAND...: polls COMMAND every 0.2 s.
vm_wait_for () {
  local what=$1 limit=$(($2 * VM_WAIT_SCALE)) t0=$SECONDS
  shift 2
  until "$@"; do
    [ $((SECONDS - t0)) -lt "$limit" ] || vm_die "timed out after ${limit}s waiting for $what"
    sleep 0.2
  done
}

# --- link events -------------------------------------------------------

vm_link_down () { ip link set "$1" down || vm_die "ip link set $1 down"; }
vm_link_up () { ip link set "$1" up || vm_die "ip link set $1 up"; }

# vm_netem_loss NETDEV PERCENT / vm_netem_clear NETDEV
# Install the qdisc (vm_netem_loss NETDEV 0) before traffic starts and only
# change its loss afterwards: grafting a qdisc while rxe sends can fail a
# send (send_err) and with it the QP.  The default limit of 1000 packets
# is less than one ib_write_bw window.
vm_netem_loss () {
  tc qdisc change dev "$1" root netem limit 100000 loss "$2%" 2>/dev/null ||
    tc qdisc add dev "$1" root netem limit 100000 loss "$2%" ||
    vm_die "netem loss on $1"
}

vm_netem_clear () {
  tc qdisc del dev "$1" root 2>/dev/null || true
}

# --- traffic -----------------------------------------------------------

# vm_bg COMMAND...: runs COMMAND in the background, stopped by vm_cleanup.
# Sets VM_LAST_PID.  With VM_BG_CGROUP=DIR the command starts in that
# cgroup (vm_cgroup_exec).
vm_bg () {
  if [ -n "${VM_BG_CGROUP:-}" ]; then
    vm_cgroup_exec "$VM_BG_CGROUP" "$@" &
  else
    "$@" &
  fi
  VM_LAST_PID=$!
  VM_BG_PIDS+=("$VM_LAST_PID")
}

# vm_has_user_qp RXE [PID]: a user RC QP (of PID) exists on RXE.  Text
# output and grep: this is polled, and Python is slow to start under TCG.
vm_has_user_qp () {
  rdma res show qp link "$1" 2>/dev/null |
    grep -E "type RC .*pid ${2:-[0-9]+} " >/dev/null
}

# vm_perftest KIND SERVER_RXE CLIENT_RXE SERVER_ADDR SECONDS [EXTRA...]:
# runs perftest's ib_KIND_bw (write, read, send) for SECONDS between two
# devices (or one device twice) in the background, and waits until both
# ends hold connected QPs.  Sets VM_SERVER_PID and VM_CLIENT_PID.
# SECONDS 0: no duration (perftest's events, -e, need a count, -n, instead).
# rxe needs a RoCE v2 GID: "-x 1" picks GID index 1, the IPv4-mapped one.
# (-R, rdma_cm, resolves the route itself and puts both ends on the server's
# device, so it cannot drive two devices.)
vm_perftest () {
  local kind=$1 srv=$2 cli=$3 addr=$4 secs=$5 port=$((18515 + ${VM_PERF_N:-0}))
  local run=() duration=(-D "$5")
  shift 5
  [ "$secs" = 0 ] && duration=()
  VM_PERF_N=$(( ${VM_PERF_N:-0} + 1 ))
  # VM_PERF_NICE=N runs both ends at that niceness (they poll their CQs and
  # would otherwise take both guest CPUs from what is being measured).
  [ -n "${VM_PERF_NICE:-}" ] && run=(nice -n "$VM_PERF_NICE")
  # VM_PERF_SERVER_CGROUP, VM_PERF_CLIENT_CGROUP=DIR start that end in a
  # cgroup (a job's).
  VM_BG_CGROUP=${VM_PERF_SERVER_CGROUP:-} \
    vm_bg "${run[@]}" ib_"$kind"_bw -d "$srv" -x 1 -p "$port" "${duration[@]}" "$@" \
    >"$VM_OUT/perftest-$kind-server-$port.log" 2>&1
  VM_SERVER_PID=$VM_LAST_PID
  vm_wait_for "ib_${kind}_bw server on port $port" 20 vm_tcp_listening "$port"
  VM_BG_CGROUP=${VM_PERF_CLIENT_CGROUP:-} \
    vm_bg "${run[@]}" ib_"$kind"_bw -d "$cli" -x 1 -p "$port" "${duration[@]}" "$@" "$addr" \
    >"$VM_OUT/perftest-$kind-client-$port.log" 2>&1
  VM_CLIENT_PID=$VM_LAST_PID
  vm_wait_for "ib_${kind}_bw client QP" 30 vm_has_user_qp "$cli" "$VM_CLIENT_PID"
  vm_wait_for "ib_${kind}_bw server QP" 30 vm_has_user_qp "$srv" "$VM_SERVER_PID"
}

# vm_perftest_cm KIND RXE ADDR SECONDS [EXTRA...]: ib_KIND_bw over rdma_cm
# (-R) to ADDR, an address of RXE's netdev: rdma_cm puts both ends on RXE
# and the kernel lists an rdma_cm ID for each end's QP, with addresses.
# Sets VM_SERVER_PID and VM_CLIENT_PID once both ends hold QPs.
vm_perftest_cm () {
  local kind=$1 dev=$2 addr=$3 secs=$4 port=$((18515 + ${VM_PERF_N:-0}))
  shift 4
  VM_PERF_N=$(( ${VM_PERF_N:-0} + 1 ))
  vm_bg ib_"$kind"_bw -d "$dev" -R -p "$port" -D "$secs" "$@" \
    >"$VM_OUT/perftest-cm-$kind-server-$port.log" 2>&1
  VM_SERVER_PID=$VM_LAST_PID
  vm_wait_for "ib_${kind}_bw rdma_cm listener on port $port" 20 vm_cm_listening "$port"
  vm_bg ib_"$kind"_bw -d "$dev" -R -p "$port" -D "$secs" "$@" "$addr" \
    >"$VM_OUT/perftest-cm-$kind-client-$port.log" 2>&1
  VM_CLIENT_PID=$VM_LAST_PID
  vm_wait_for "ib_${kind}_bw -R client QP" 30 vm_has_user_qp "$dev" "$VM_CLIENT_PID"
  vm_wait_for "ib_${kind}_bw -R server QP" 30 vm_has_user_qp "$dev" "$VM_SERVER_PID"
  # perftest connects twice over rdma_cm: once to exchange its parameters,
  # then the connection the test runs on.  Wait for the second, so that
  # what a check reads next is the set the run keeps.
  vm_wait_for "ib_${kind}_bw -R test connection (client)" 30 vm_cm_qps_at_least "$VM_CLIENT_PID" 2
  vm_wait_for "ib_${kind}_bw -R test connection (server)" 30 vm_cm_qps_at_least "$VM_SERVER_PID" 2
}

# vm_cm_qps_at_least PID N: PID holds at least N connected rdma_cm IDs
# with a QP.
vm_cm_qps_at_least () {
  [ "$(rdma res show cm_id 2>/dev/null | grep -E "lqpn [0-9]+ .*state CONNECT .*pid $1 " -c)" -ge "$2" ]
}

# An rdma_cm ID listens on PORT (no TCP socket: rdma_cm has its own ports).
vm_cm_listening () {
  rdma res show cm_id 2>/dev/null | grep -E "LISTEN .*:$1( |$)" >/dev/null
}

vm_tcp_listening () {
  ss -Hltn "sport = :$1" 2>/dev/null | grep -q LISTEN
}

# vm_pingpong RXE ADDR ITERATIONS: a complete ibv_rc_pingpong exchange on
# one device (server and client), in the foreground.
vm_pingpong () {
  local rxe=$1 addr=$2 iters=$3 port=$((18600 + ${VM_PING_N:-0})) spid
  VM_PING_N=$(( ${VM_PING_N:-0} + 1 ))
  ibv_rc_pingpong -d "$rxe" -g 1 -p "$port" -n "$iters" >/dev/null 2>&1 &
  spid=$!
  vm_wait_for "ibv_rc_pingpong server" 20 vm_tcp_listening "$port"
  timeout 60 ibv_rc_pingpong -d "$rxe" -g 1 -p "$port" -n "$iters" "$addr" >/dev/null 2>&1 ||
    vm_die "ibv_rc_pingpong on $rxe failed"
  wait "$spid" || vm_die "ibv_rc_pingpong server on $rxe failed"
}

# vm_pingpong_bg SERVER_RXE CLIENT_RXE SERVER_ADDR ITERATIONS [EXTRA...]:
# ibv_rc_pingpong between two devices in the background; returns when both
# ends hold QPs.  Sets VM_SERVER_PID and VM_CLIENT_PID.  One message in
# flight: under loss each resend is a few packets, so the QP keeps going
# where a bandwidth test's go-back-N window would fail.
vm_pingpong_bg () {
  local srv=$1 cli=$2 addr=$3 iters=$4 port=$((18600 + ${VM_PING_N:-0}))
  shift 4
  VM_PING_N=$(( ${VM_PING_N:-0} + 1 ))
  vm_bg ibv_rc_pingpong -d "$srv" -g 1 -p "$port" -n "$iters" "$@" \
    >"$VM_OUT/pingpong-server-$port.log" 2>&1
  VM_SERVER_PID=$VM_LAST_PID
  vm_wait_for "ibv_rc_pingpong server on port $port" 20 vm_tcp_listening "$port"
  vm_bg ibv_rc_pingpong -d "$cli" -g 1 -p "$port" -n "$iters" "$@" "$addr" \
    >"$VM_OUT/pingpong-client-$port.log" 2>&1
  VM_CLIENT_PID=$VM_LAST_PID
  vm_wait_for "ibv_rc_pingpong client QP" 30 vm_has_user_qp "$cli" "$VM_CLIENT_PID"
  vm_wait_for "ibv_rc_pingpong server QP" 30 vm_has_user_qp "$srv" "$VM_SERVER_PID"
}

# vm_qp_holder RXE NQPS: holds NQPS QPs (plus a CQ, PD and MR) on RXE in
# the background until vm_cleanup.  Sets VM_HOLDER_PID.
vm_qp_holder () {
  local ready="/tmp/qp-holder.$$.$RANDOM"
  [ -x "$VM_QP_HOLDER" ] || vm_die "$VM_QP_HOLDER is not built"
  vm_bg "$VM_QP_HOLDER" --device "$1" --qps "$2" --ready-file "$ready"
  VM_HOLDER_PID=$VM_LAST_PID
  vm_wait_for "qp-holder ready" 120 test -e "$ready"
}

# --- cgroups (jobs) ----------------------------------------------------

# vm_cgroup_v2: mounts the cgroup v2 hierarchy on /sys/fs/cgroup (guest-init
# does not).  No controller is enabled in any subtree, so cgroup v2's "no
# internal processes" rule never applies; the scenarios still put
# processes only in leaves, as Slurm and the kubelet do.
vm_cgroup_v2 () {
  [ -e /sys/fs/cgroup/cgroup.procs ] && return
  mount -t cgroup2 cgroup2 /sys/fs/cgroup || vm_die "mount -t cgroup2 on /sys/fs/cgroup"
}

# vm_cgroup_mkdir DIR...: creates cgroups (and their parents) under
# /sys/fs/cgroup.
vm_cgroup_mkdir () {
  local dir
  for dir in "$@"; do
    case "$dir" in
      /sys/fs/cgroup/*) mkdir -p "$dir" || vm_die "mkdir $dir" ;;
      *) vm_die "vm_cgroup_mkdir: $dir is not under /sys/fs/cgroup" ;;
    esac
  done
}

# vm_cgroup_exec DIR COMMAND...: moves this shell into the cgroup DIR and
# execs COMMAND there.  Only for a background job (vm_bg), whose subshell
# it replaces: its pid ($!) is then the command's.
vm_cgroup_exec () {
  local dir=$1
  shift
  echo "$BASHPID" >"$dir/cgroup.procs" || { echo "FAIL: cannot move $BASHPID into $dir"; exit 1; }
  exec "$@"
}

# --- the unprivileged user ---------------------------------------------

# Adds VM_USER to the guest's passwd and group (the overlay is writable;
# the host's files are untouched).
vm_add_user () {
  getent passwd "$VM_USER" >/dev/null && return
  echo "$VM_USER:x:$VM_UID:$VM_UID:rdmatop test user:/tmp:/bin/sh" >>/etc/passwd
  echo "$VM_USER:x:$VM_UID:" >>/etc/group
}

# vm_as_user COMMAND...: runs COMMAND as VM_USER with no capabilities.
# (An array, not only a function, so that a background job's $! is the
# command's own pid: setpriv and env exec it.)
VM_AS_USER=(setpriv --reuid="$VM_UID" --regid="$VM_UID" --clear-groups
  --inh-caps=-all --bounding-set=-all --no-new-privs
  env HOME=/tmp USER="$VM_USER" LOGNAME="$VM_USER")

vm_as_user () {
  "${VM_AS_USER[@]}" "$@"
}

# --- rdmatop-cli -------------------------------------------------------

# vm_snapshot FILE [ARGS...]: rdmatop-cli snapshot --json into FILE (as root).
vm_snapshot () {
  local f=$1; shift
  "$VM_CLI" snapshot --json "$@" >"$f" 2>"$f.err" ||
    { vm_not_ok "rdmatop-cli snapshot $* exited $?: $(head -c 300 "$f.err")"; return 1; }
}

vm_snapshot_as_user () {
  local f=$1; shift
  vm_as_user "$VM_CLI" snapshot --json "$@" >"$f" 2>"$f.err" ||
    { vm_not_ok "rdmatop-cli snapshot $* as $VM_USER exited $?: $(head -c 300 "$f.err")"; return 1; }
}

# vm_watch_bg FILE [--netns] [--user] ARGS...: rdmatop-cli watch --json
# ARGS in the background, output in FILE, exit status in FILE.rc.  Sets
# VM_WATCH_PID.  --netns runs it in a new network namespace: RDMA devices
# are still visible (shared mode) but hotplug monitor events are not, so
# the collector falls back to polling, as on a kernel without them.
vm_watch_bg () {
  local f=$1 as=()
  shift
  if [ "${1:-}" = --netns ]; then as=(unshare --net); shift; fi
  if [ "${1:-}" = --user ]; then as+=("${VM_AS_USER[@]}"); shift; fi
  rm -f "$f.pid" "$f.rc"
  (
    rc=0
    "${as[@]}" "$VM_CLI" watch --json "$@" >"$f" 2>"$f.err" &
    echo $! >"$f.pid"
    wait $! || rc=$?
    echo "$rc" >"$f.rc"
  ) &
  VM_WATCH_PID=$!
}

# vm_watch_stop FILE: ends a watch started by vm_watch_bg with SIGINT (as
# Ctrl-C would) and waits for its exit status in FILE.rc.
vm_watch_stop () {
  vm_wait_for "$(basename "$1").pid" 10 test -s "$1.pid"
  kill -INT "$(cat "$1.pid")" 2>/dev/null
  vm_wait_for "$(basename "$1") to exit" 20 test -s "$1.rc"
}

# vm_watch_wait_passes FILE N SECONDS: waits until FILE holds N lines.
vm_watch_wait_passes () {
  vm_wait_for "$2 passes in $(basename "$1")" "$3" vm_file_has_lines "$1" "$2"
}

vm_file_has_lines () {
  [ -f "$1" ] && [ "$(wc -l <"$1")" -ge "$2" ]
}

# vm_rdma_json PREFIX VIEW...: records `rdma -j` views into PREFIX.VIEW.json.
# Views: dev link stat res qp mr ctx cm_id.
vm_rdma_json () {
  local prefix=$1 v
  shift
  for v in "$@"; do
    case "$v" in
      dev|link) rdma -j "$v" >"$prefix.$v.json" ;;
      stat) rdma -j statistic show >"$prefix.$v.json" ;;
      res) rdma -j res show >"$prefix.$v.json" ;;
      qp|mr|ctx|cm_id) rdma -j res show "$v" >"$prefix.$v.json" ;;
      *) vm_die "vm_rdma_json: unknown view $v" ;;
    esac || vm_die "rdma -j $v failed"
  done
}

# --- the desktop app ---------------------------------------------------
# The app is driven from outside the way a user's desktop does it, through
# the actions GtkApplication exports on the session bus
# (org.gtk.Actions.Activate); app.dump-state prints what the window shows.

VM_APP=${VM_BUILDDIR:+$VM_BUILDDIR/src/app/rdmatop}
VM_APP_ID=io.github.rdmatop.Rdmatop.VmTest
VM_APP_OBJ=/io/github/rdmatop/Rdmatop/VmTest

# vm_app_display N: an X server :N (1600x1000) and a session bus of our
# own, exported as DISPLAY and DBUS_SESSION_BUS_ADDRESS.
vm_app_display () {
  local bus
  [ -x "$VM_APP" ] || vm_die "$VM_APP is not built (the gui feature needs libgtk-4-dev)"
  vm_bg Xvfb ":$1" -screen 0 1600x1000x24 -nolisten tcp >"$VM_OUT/xvfb.log" 2>&1
  vm_wait_for "Xvfb" 60 test -S "/tmp/.X11-unix/X$1"
  export DISPLAY=:$1
  bus=$(dbus-daemon --session --fork --print-address=1 --print-pid=1) || vm_die "dbus-daemon"
  DBUS_SESSION_BUS_ADDRESS=$(echo "$bus" | sed -n 1p)
  VM_BG_PIDS+=("$(echo "$bus" | sed -n 2p)")
  export DBUS_SESSION_BUS_ADDRESS
  mkdir -p "$VM_OUT/home"
}

# vm_app_start LOG [ARGS...]: the app on the session bus, its output in
# $VM_OUT/LOG (VM_APP_LOG: the dumps are read from it); sets VM_APP_PID.
vm_app_start () {
  VM_APP_LOG=$VM_OUT/$1
  shift
  HOME=$VM_OUT/home GSETTINGS_SCHEMA_DIR=$VM_BUILDDIR/data GSETTINGS_BACKEND=memory GSK_RENDERER=cairo \
    RDMATOP_REPORT_STARTUP=1 vm_bg "$VM_APP" --gapplication-app-id="$VM_APP_ID" "$@" >"$VM_APP_LOG" 2>&1
  VM_APP_PID=$VM_LAST_PID
}

# vm_app_on_bus: the app owns its name on the session bus.
vm_app_on_bus () {
  gdbus call --session --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \
    --method org.freedesktop.DBus.NameHasOwner "$VM_APP_ID" 2>/dev/null | grep -q true
}

# vm_app_activate ACTION [GVARIANT]: activates app.ACTION.  The window's
# object appears a little after the bus name (slow under TCG): failures are
# retried by the callers, so their noise goes to gdbus.log.
vm_app_activate () {
  gdbus call --session --dest "$VM_APP_ID" --object-path "$VM_APP_OBJ" \
    --method org.gtk.Actions.Activate "$1" "[${2:-}]" '{}' >/dev/null 2>>"$VM_OUT/gdbus.log"
}

vm_app_dumps () { grep -c '^--- rdmatop dump end ---$' "$VM_APP_LOG" 2>/dev/null || true; }

# vm_app_dump NAME: asks the window for a dump and keeps the newest one as
# $VM_OUT/NAME; fails when none comes within 30 s.
vm_app_dump () {
  local before now
  before=$(vm_app_dumps)
  vm_app_activate dump-state || return 1
  for _ in $(seq 100); do
    now=$(vm_app_dumps)
    if [ "${now:-0}" -gt "${before:-0}" ]; then
      awk '/^--- rdmatop dump begin ---$/ { b = ""; on = 1; next }
           /^--- rdmatop dump end ---$/ { last = b; on = 0; next }
           on { b = b $0 "\n" } END { printf "%s", last }' "$VM_APP_LOG" >"$VM_OUT/$1"
      return 0
    fi
    sleep 0.3
  done
  return 1
}
