#!/usr/bin/env python3
# cmd-cpu.py: the CPU time (user + system) of running a set of commands, as
# one "pass", RUNS times; prints the median and spread in microseconds.
#
#   cmd-cpu.py --runs 5 -- rdma -j statistic show -- rdma -j res show qp
#
# Each command's own CPU time comes from wait4()'s rusage of that child
# (exec, dynamic linking, the netlink dumps built in its context, its JSON
# printing), not from this script.  Output goes to /dev/null.  The last
# line is key=value for tests/bench/run-benchmarks.sh.  A command that fails
# ends the script with its status (a baseline that did not run is not a
# number).
import os
import statistics
import sys


def split_commands(argv):
    cmds, cur = [], None
    for a in argv:
        if a == "--":
            cur = []
            cmds.append(cur)
        elif cur is None:
            raise SystemExit("cmd-cpu.py: commands start with --")
        else:
            cur.append(a)
    cmds = [c for c in cmds if c]
    if not cmds:
        raise SystemExit("cmd-cpu.py: no command given")
    return cmds


def run_once(cmd):
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        pid = os.posix_spawnp(cmd[0], cmd, os.environ,
                              file_actions=[(os.POSIX_SPAWN_DUP2, devnull, 1)])
    finally:
        os.close(devnull)
    _, status, ru = os.wait4(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        sys.stderr.write(f"cmd-cpu.py: {' '.join(cmd)} exited {code}\n")
        sys.exit(1)
    return (ru.ru_utime + ru.ru_stime) * 1e6


def percentile(sorted_values, p):
    rank = int(p / 100.0 * len(sorted_values) + 0.5)
    return sorted_values[min(max(rank, 1), len(sorted_values)) - 1]


def main():
    args = sys.argv[1:]
    runs = 5
    if len(args) >= 2 and args[0] == "--runs":
        runs = int(args[1])
        args = args[2:]
    if runs < 1:
        raise SystemExit("cmd-cpu.py: --runs needs at least 1")
    cmds = split_commands(args)
    run_once(cmds[0])  # warm-up: page cache, first dumps
    totals, per_cmd = [], [[] for _ in cmds]
    for _ in range(runs):
        total = 0.0
        for i, cmd in enumerate(cmds):
            t = run_once(cmd)
            per_cmd[i].append(t)
            total += t
        totals.append(total)
    totals.sort()
    print(f"cmd-cpu: {runs} runs of: " + " + ".join(" ".join(c) for c in cmds))
    parts = [f"cpu_us_median={statistics.median(totals):.1f}",
             f"cpu_us_p10={percentile(totals, 10):.1f}",
             f"cpu_us_p90={percentile(totals, 90):.1f}",
             f"cpu_us_per_pass={statistics.fmean(totals):.1f}"]
    parts += [f"cmd{i}_us_median={statistics.median(v):.1f}" for i, v in enumerate(per_cmd)]
    print(" ".join(parts))


if __name__ == "__main__":
    main()
