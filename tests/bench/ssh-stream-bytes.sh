#!/bin/bash
# ssh-stream-bytes.sh BUILDDIR [SECONDS]: what a remote host costs on the
# ssh connection.  Starts its own sshd on 127.0.0.1 (keys made here, as
# tests/test-remote.c does), and runs RtopRemoteSource (remote-bytes)
# through ssh with count-relay.py as its ProxyCommand, which counts every
# byte of the TCP connection: the stream, ssh's framing, MACs, keepalives
# and the key exchange.  Two producers at a 1 s interval:
#   synth16  stream-synth-serve: 16 busy synthetic ports (the encoder of
#            serve --stdio, fed by the collector's rate code)
#   serve    this machine's rdmatop-cli serve --stdio (whatever it has)
# Prints key=value lines; bytes per second exclude nothing.
set -eu
builddir=$(cd "${1:?usage: $0 BUILDDIR [SECONDS]}" && pwd)
seconds=${2:-60}
bench=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d /tmp/rdmatop-sshbench-XXXXXX)
sshd_pid=""
cleanup () {
  [ -n "$sshd_pid" ] && kill "$sshd_pid" 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT INT TERM

[ "$(id -u)" = 0 ] && mkdir -p /run/sshd
for k in host user; do ssh-keygen -q -t ed25519 -N '' -C "$k" -f "$dir/$k"; done
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cp "$dir/user.pub" "$dir/authorized_keys"
cat >"$dir/sshd_config" <<CONF
ListenAddress 127.0.0.1
Port $port
HostKey $dir/host
AuthorizedKeysFile $dir/authorized_keys
PidFile $dir/sshd.pid
UsePAM no
StrictModes no
PasswordAuthentication no
KbdInteractiveAuthentication no
CONF
echo "[127.0.0.1]:$port $(cat "$dir/host.pub")" >"$dir/known_hosts"
cat >"$dir/ssh_config" <<CONF
Host bench
  HostName 127.0.0.1
  Port $port
  User $(id -un)
  IdentityFile $dir/user
  IdentitiesOnly yes
  UserKnownHostsFile $dir/known_hosts
  GlobalKnownHostsFile /dev/null
  StrictHostKeyChecking yes
CONF
/usr/sbin/sshd -D -f "$dir/sshd_config" -E "$dir/sshd.log" &
sshd_pid=$!
for _ in $(seq 100); do
  python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), 1)" 2>/dev/null && break
  sleep 0.1
done

run () {
  local tag=$1 command=$2 out up down
  out=$("$builddir/tests/bench/remote-bytes" "$dir/ssh_config" bench "$command" "$seconds" \
        "ProxyCommand=python3 $bench/count-relay.py 127.0.0.1 %p $dir/$tag.count")
  sleep 0.5
  read -r up down <"$dir/$tag.count"
  echo "# $tag: $out"
  stream=$(echo "$out" | sed -n 's/.*remote_stream_bytes=\([0-9]*\).*/\1/p')
  echo "${tag}_seconds=$seconds ${tag}_stream_bytes_per_s=$((stream / seconds))" \
       "${tag}_wire_down_bytes_per_s=$((down / seconds)) ${tag}_wire_up_bytes_per_s=$((up / seconds))"
}

run synth16 "$builddir/tests/bench/stream-synth-serve"
run serve "$builddir/src/cli/rdmatop-cli"
