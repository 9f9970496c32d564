# Shared helpers for the 'data' suite shell tests.  Source it; it defines
# TAP output helpers and a private X server on a free display.

n=0
fail=0
ok () { n=$((n + 1)); echo "ok $n - $*"; }
notok () { n=$((n + 1)); echo "not ok $n - $*"; fail=1; }
skip () { n=$((n + 1)); echo "ok $n # SKIP $*"; }
# check DESCRIPTION COMMAND...: one TAP line from a command's exit status.
check () {
  what=$1; shift
  if "$@" >&2; then ok "$what"; else notok "$what"; fi
}
finish () { echo "1..$n"; exit $fail; }

# start_xvfb: starts Xvfb on a display it picks itself (-displayfd), so
# parallel GUI tests never collide, and exports DISPLAY.  XVFB_PID is set
# for stop_xvfb.
start_xvfb () {
  command -v Xvfb > /dev/null || return 1
  _fdfile=$(mktemp)
  Xvfb -displayfd 3 -screen 0 1280x800x24 -nolisten tcp -noreset \
    3> "$_fdfile" 2> /dev/null &
  XVFB_PID=$!
  _i=0
  while [ ! -s "$_fdfile" ] && [ $_i -lt 100 ]; do
    sleep 0.1; _i=$((_i + 1))
  done
  DISPLAY=":$(head -n1 "$_fdfile")"
  rm -f "$_fdfile"
  [ "$DISPLAY" != ":" ] || return 1
  export DISPLAY
}

stop_xvfb () {
  [ -n "${XVFB_PID:-}" ] && kill "$XVFB_PID" 2> /dev/null && wait "$XVFB_PID" 2> /dev/null
  XVFB_PID=""
}

# python_with_gi: prints a python3 that can import gi (the Debian one when
# python3 on PATH is a private build without it).
python_with_gi () {
  for _py in python3 /usr/bin/python3; do
    if "$_py" -c 'import gi' 2> /dev/null; then echo "$_py"; return 0; fi
  done
  return 1
}
