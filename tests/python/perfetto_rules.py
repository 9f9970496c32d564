"""Perfetto's import rules for Chrome JSON traces (every event has a known
ph, every timed one a numeric ts >= 0, a counter event numeric values), as
the recording tests apply them (tests/test-trace-writer.c), for traces that
torch and VizTracer write with rdmatop's counter tracks in them.

check(trace, pids) returns a list of problems (empty: the trace loads).
The whole file must be a trace Perfetto reads; the events of the given
pids (rdmatop's) must also follow the stricter form rdmatop's own
recordings keep: one numeric key per counter event, a named process,
time order within each track.
"""

import gzip
import json
import math

KNOWN_PH = set("BEXiIbeCMsftnPOND(){}R") | {"n"}
USED_METADATA = {"process_name", "thread_name", "process_sort_index", "thread_sort_index"}


def load(path):
    """Parses a trace file, gzip or not (Perfetto tells them by magic bytes)."""
    with open(path, "rb") as f:
        head = f.read(2)
    opener = gzip.open if head == b"\x1f\x8b" else open
    with opener(path, "rt", encoding="utf-8") as f:
        return json.load(f)


def events_of(trace):
    if isinstance(trace, list):
        return trace
    if isinstance(trace, dict) and isinstance(trace.get("traceEvents"), list):
        return trace["traceEvents"]
    return None


def _number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def check(trace, pids=()):
    problems = []
    events = events_of(trace)
    if events is None:
        return ["the top level is neither an array nor an object with traceEvents"]
    if not events:
        return ["the trace has no events"]
    pids = set(pids)
    named = set()
    last_ts = {}
    for n, ev in enumerate(events):
        where = f"event {n}"
        if not isinstance(ev, dict) or not isinstance(ev.get("ph"), str):
            problems.append(f"{where}: not an object with a ph")
            continue
        ph = ev["ph"]
        if ph not in KNOWN_PH:
            problems.append(f"{where}: unknown ph {ph!r}")
            continue
        args = ev.get("args")
        if ph == "M":
            if ev.get("name") in USED_METADATA:
                if not isinstance(args, dict):
                    problems.append(f"{where}: metadata without args")
                elif ev["name"].endswith("_name"):
                    if not isinstance(args.get("name"), str) or not args["name"]:
                        problems.append(f"{where}: {ev['name']} without a name")
                    elif ev["name"] == "process_name":
                        named.add(ev.get("pid"))
                elif not _number(args.get("sort_index")):
                    problems.append(f"{where}: {ev['name']} without a numeric sort_index")
            continue
        if not _number(ev.get("ts")) or ev["ts"] < 0:
            problems.append(f"{where}: ts {ev.get('ts')!r} is not a number >= 0")
            continue
        if ph == "X" and not (_number(ev.get("dur")) and ev["dur"] >= 0):
            problems.append(f"{where}: a complete event without a dur >= 0")
        if ph == "C":
            if not isinstance(args, dict) or not args:
                problems.append(f"{where}: a counter event without args")
                continue
            if not all(_number(v) for v in args.values()):
                problems.append(f"{where}: a counter value is not a number")
        if ev.get("pid") not in pids:
            continue
        # rdmatop's own events: the recordings' stricter form.
        if ph != "C":
            problems.append(f"{where}: rdmatop writes only counter events, not {ph!r}")
            continue
        if len(args) != 1:
            problems.append(f"{where}: a counter event with {len(args)} keys, not one")
            continue
        track = (ev["pid"], ev.get("name"), next(iter(args)))
        if ev["ts"] < last_ts.get(track, -1):
            problems.append(f"{where}: track {track} goes back in time")
        last_ts[track] = ev["ts"]
    for pid in pids:
        if any(ev.get("pid") == pid and ev.get("ph") == "C" for ev in events) and pid not in named:
            problems.append(f"pid {pid} has counter tracks but no process_name")
    return problems


def counter_tracks(trace, pid):
    """{(name, key): [(ts, value), ...]} of the counter events of pid."""
    tracks = {}
    for ev in events_of(trace):
        if ev.get("ph") == "C" and ev.get("pid") == pid:
            for k, v in ev["args"].items():
                tracks.setdefault((ev["name"], k), []).append((ev["ts"], v))
    return tracks


def pid_named(trace, name):
    for ev in events_of(trace):
        if ev.get("ph") == "M" and ev.get("name") == "process_name" and ev["args"].get("name") == name:
            return ev["pid"]
    return None


def span(trace, exclude_pid=None):
    """(first, last) ts in µs over the trace's timed events, not exclude_pid's."""
    lo, hi = math.inf, -math.inf
    for ev in events_of(trace):
        if ev.get("ph") in ("M", "C") or ev.get("pid") == exclude_pid or not _number(ev.get("ts")):
            continue
        lo = min(lo, ev["ts"])
        hi = max(hi, ev["ts"] + (ev.get("dur") or 0))
    return lo, hi
