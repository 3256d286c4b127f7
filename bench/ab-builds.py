#!/usr/bin/env python3
"""bench/ab-builds.py - two builds of the project side by side, in one run.

    bench/ab-builds.py OLD_BUILD NEW_BUILD [--repeats N] [--only shm,myri,via,sci]

Runs, for each build, the loopback benchmarks that need no MPICH: shm's
ping-pong (test/shm/shm_bench: 8 B latency, 1 MiB bandwidth) and subdev-myri,
-via and -sci against raw UDP (bench/<x>-vs-udp.sh: half round trip and
streaming bandwidth).  The two builds alternate run by run, N rounds, and the
medians are printed with the ratio new/old: "the same figures within noise"
after a change that should not change speed (a refactoring) reads as ratios
near 1.00, and the spread of the rounds says how near is near.

A build directory is one configured and built with `make` (and `make check`
for test/shm/shm_bench); the benchmarks run from it as they are.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
NIC_SUBDEVS = ("myri", "via", "sci")


def run(cmd, env=None, timeout=300, ok=(0,)):
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    if p.returncode not in ok:
        sys.exit("ab-builds: %s failed (exit %d):\n%s%s" % (" ".join(cmd), p.returncode,
                                                            p.stdout[-2000:], p.stderr[-2000:]))
    return p.stdout


def shm_figures(build):
    """8 B latency (us) and 1 MiB bandwidth (MB/s) of shm_bench."""
    prog = os.path.join(build, "test", "shm", "shm_bench")
    if not os.access(prog, os.X_OK):
        sys.exit("ab-builds: %s not built (make check in %s)" % (prog, build))
    rows = {}
    for line in run([prog]).splitlines():
        f = line.split()
        if len(f) == 4 and f[0].isdigit():
            rows[int(f[0])] = (float(f[1]), float(f[2]))
    if 8 not in rows or (1 << 20) not in rows:
        sys.exit("ab-builds: shm_bench printed no 8 B or 1 MiB row")
    return {"shm 8 B latency us": rows[8][0], "shm 1 MiB MB/s": rows[1 << 20][1]}


def nic_figures(build, name):
    """subdev-<name>'s half round trip (us) and streaming bandwidth (MB/s)."""
    env = dict(os.environ, BUILD=build, MULTIDEV_NICD=os.path.join(build, "nic", "nicd"))
    # a non-zero exit says a goal of its own (ratios to raw UDP) was missed;
    # its figures stand, and a run that printed none is caught below
    out = run([os.path.join(HERE, "%s-vs-udp.sh" % name)], env=env, ok=range(256))
    for line in out.splitlines():
        m = re.match(r"^(subdev-%s\b.*?)\s+([0-9.]+)\s+([0-9.]+)\s*$" % name, line)
        if m:
            return {"%s latency us" % name: float(m.group(2)),
                    "%s MB/s" % name: float(m.group(3))}
    sys.exit("ab-builds: %s-vs-udp printed no subdev-%s row:\n%s" % (name, name, out))


def measure(build, only):
    figs = {}
    if "shm" in only:
        figs.update(shm_figures(build))
    for name in NIC_SUBDEVS:
        if name in only:
            figs.update(nic_figures(build, name))
    return figs


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--only", default="shm,myri,via,sci")
    a = ap.parse_args()
    only = set(a.only.split(","))
    runs = {a.old: [], a.new: []}
    for r in range(a.repeats):
        order = (a.old, a.new) if r % 2 == 0 else (a.new, a.old)
        for build in order:
            runs[build].append(measure(os.path.abspath(build), only))
        print("round %d of %d done" % (r + 1, a.repeats), file=sys.stderr)
    keys = list(runs[a.old][0].keys())
    print("# ab-builds: old %s, new %s; medians of %d alternating rounds"
          % (a.old, a.new, a.repeats))
    print("%-22s %12s %12s %8s   %s" % ("figure", "old", "new", "new/old", "rounds old | new"))
    for k in keys:
        o = [x[k] for x in runs[a.old]]
        n = [x[k] for x in runs[a.new]]
        mo, mn = statistics.median(o), statistics.median(n)
        print("%-22s %12.3f %12.3f %8.2f   %s | %s" % (
            k, mo, mn, mn / mo if mo else float("nan"),
            " ".join("%.3g" % v for v in o), " ".join("%.3g" % v for v in n)))


if __name__ == "__main__":
    main()
