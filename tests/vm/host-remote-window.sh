#!/bin/bash
# The host side of scenario-remote.sh (vm-run.sh --host-side): once the
# guest's sshd is ready, writes a client configuration for it (its key and
# host key, made in the guest) and runs the window test
# /gui/remote/guest under Xvfb; screenshots go to the results folder.
# Always ends with host-done, so the guest stops waiting.
set -uo pipefail
R=${VM_RESULTS_DIR:?run by vm-run.sh --host-side}
PORT=${VM_SSH_PORT:?run with vm-run.sh --ssh-forward PORT}
BUILD=${RDMATOP_BUILDDIR:?the build directory}
here=$(cd "$(dirname "$0")" && pwd)
trap 'touch "$R/host-done"' EXIT

for _ in $(seq 600); do
  [ -e "$R/guest-ready" ] && break
  [ -e "$R/guest-gone" ] && { echo "the guest stopped before its sshd was ready"; exit 1; }
  sleep 0.5
done
[ -e "$R/guest-ready" ] || { echo "the guest's sshd never got ready"; exit 1; }

C=$(mktemp -d "${TMPDIR:-/tmp}/rdmatop-guest-ssh.XXXXXX")
cp "$R/ssh/id" "$C/id"
chmod 600 "$C/id"
echo "[127.0.0.1]:$PORT $(cut -d' ' -f1,2 "$R/ssh/host_key.pub")" >"$C/known_hosts"
cat >"$C/config" <<CONF
Host guest
  HostName 127.0.0.1
  Port $PORT
  User root
  IdentityFile $C/id
  IdentitiesOnly yes
  UserKnownHostsFile $C/known_hosts
  GlobalKnownHostsFile /dev/null
  StrictHostKeyChecking yes
CONF
mkdir -p "$R/screenshots"
env GSETTINGS_BACKEND=memory GSETTINGS_SCHEMA_DIR="$BUILD/data" GDK_BACKEND=x11 \
    GTK_A11Y=none NO_AT_BRIDGE=1 G_TEST_SRCDIR="$here/.." G_TEST_BUILDDIR="$BUILD/tests" \
    RDMATOP_CLI="$BUILD/src/cli/rdmatop-cli" RDMATOP_ASKPASS="$BUILD/src/app/rdmatop-askpass" \
    RDMATOP_GUEST_SSH_CONFIG="$C/config" RDMATOP_GUEST_RESULTS="$R" \
    RDMATOP_SCREENSHOT_DIR="$R/screenshots" \
    dbus-run-session -- xvfb-run -a -s "-screen 0 1600x1000x24" \
    "$BUILD/tests/test-gui-remote" -p /gui/remote/guest
rc=$?
rm -rf "$C"
exit "$rc"
