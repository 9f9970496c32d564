#!/bin/bash
# The window on the host watches this guest over real SSH: an OpenSSH
# server here (keys made here), reached from the host through QEMU's port
# forwarding on 127.0.0.1 (vm-run.sh --ssh-forward), while ib_write_bw runs
# between rxe1 and rxe0.  The host side (host-remote-window.sh, run by
# vm-run.sh --host-side) shows this guest beside the host itself over SSH
# and checks live rates; when it asks (cut-request), the sshd sessions here
# are killed, and it checks lost, then live again.  Here: the server took
# two logins (the first and the one after the cut).
. "$RDMATOP_VM_DIR/guest-lib.sh"
vm_init
O=$VM_OUT
R=${RDMATOP_RESULTS:?}
S=/tmp/sshd

modprobe virtio_net || vm_die "modprobe virtio_net"
ip link set lo up
ip link set eth0 up || vm_die "no eth0: run with vm-run.sh --ssh-forward PORT"
ip addr add 10.0.2.15/24 dev eth0 || vm_die "address on eth0"

vm_rxe_pair rxe0 v0 10.220.0.1 rxe1 v1 10.220.0.2
# Long enough to outlast the host side; the scenario stops it at the end.
vm_perftest write rxe1 rxe0 10.220.0.2 400
vm_log "traffic running"

# sshd runs the remote command through root's bash, which reads
# ~/.bashrc: the machine's own (a pyenv setup, say) would cost a minute
# under emulation.  The guest's root is a tmpfs overlay: this stays here.
: >/root/.bashrc
mkdir -p "$S" /run/sshd "$R/ssh"
chmod 700 "$S"
ssh-keygen -q -t ed25519 -N "" -C guest-host -f "$S/host_key" || vm_die "host key"
ssh-keygen -q -t ed25519 -N "" -C host-window -f "$R/ssh/id" || vm_die "user key"
cp "$R/ssh/id.pub" "$S/authorized_keys"
cp "$S/host_key.pub" "$R/ssh/host_key.pub"
cat >"$S/sshd_config" <<CONF
ListenAddress 0.0.0.0
Port 22
HostKey $S/host_key
AuthorizedKeysFile $S/authorized_keys
PidFile $S/sshd.pid
UsePAM no
StrictModes no
PasswordAuthentication no
KbdInteractiveAuthentication no
PubkeyAuthentication yes
PermitRootLogin prohibit-password
UseDNS no
LogLevel VERBOSE
CONF
vm_bg /usr/sbin/sshd -D -f "$S/sshd_config" -E "$O/sshd.log"
sshd_pid=$VM_LAST_PID
vm_wait_for "sshd listening" 60 vm_tcp_listening 22
touch "$R/guest-ready"
vm_log "sshd ready; waiting for the host side"

logins () { grep -c "Accepted publickey" "$O/sshd.log" 2>/dev/null || echo 0; }
asked () { [ -e "$R/cut-request" ] || [ -e "$R/host-done" ]; }
vm_wait_for "the host side to ask for the cut" 300 asked
if [ -e "$R/cut-request" ]; then
  # The server's side of every session: the children of the listener.
  for p in $(pgrep -P "$sshd_pid"); do
    kill -KILL "$p"
  done
  touch "$R/cut-done"
  vm_log "sshd sessions killed"
  # What serves the host after the cut (for the artifacts).
  for t in 10 30 60; do
    sleep 10
    [ -e "$R/host-done" ] && break
    { echo "--- after about ${t}s"; ps -eo pid,ppid,etime,stat,args | grep -E "rdmatop-cli|sshd" | grep -v grep; } \
      >>"$O/after-cut.txt" 2>&1
  done
fi
vm_wait_for "the host side to finish" 300 test -e "$R/host-done"
n=$(logins)
vm_check "the guest's sshd took a login before and after the cut ($n)" test "$n" -ge 2
kill "$sshd_pid" 2>/dev/null
vm_finish
