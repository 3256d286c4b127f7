#!/usr/bin/env python3
"""Summarises the raw outputs of bench/compare-mpi.sh.

usage: compare_report.py RESULTS_DIR STAT MPI[,MPI...]

RESULTS_DIR holds <mpi>.<prog>.<rep>.txt files, each the stdout of one run of
pingpong or bandwidth ("size value" lines, '#' comments).  STAT is 'median' or
'best' (lowest latency, highest bandwidth).  Prints one table per program with
the ratios of ours to each baseline, then the verdict on the issue-2 goals.
Exit status: 0 goals met (or not applicable), 1 a goal missed, 3 data missing.
"""
import os
import re
import statistics
import sys

LAT_SIZE = 8                # goal 1: latency at 8 B ...
LAT_LIMIT = 1.0             # ... ours / Debian MPICH at most this
BW_SIZE = 1 << 20           # goal 2: bandwidth at 1 MiB ...
BW_LIMIT = 0.9              # ... ours / Open MPI at least this

LABEL = {"ours": "ours", "mpich": "mpich", "openmpi": "openmpi"}


def read_runs(results, mpi, prog):
    """Returns {size: [value per run]} for one MPI and program."""
    data = {}
    pat = re.compile(r"^%s\.%s\.(\d+)\.txt$" % (re.escape(mpi), re.escape(prog)))
    for name in sorted(os.listdir(results)):
        if not pat.match(name):
            continue
        with open(os.path.join(results, name)) as f:
            for line in f:
                line = line.strip()
                if not line or line.startswith("#"):
                    continue
                parts = line.split()
                if len(parts) < 2:
                    continue
                try:
                    data.setdefault(int(parts[0]), []).append(float(parts[1]))
                except ValueError:
                    pass
    return data


def pick(values, stat, higher_is_better):
    if not values:
        return None
    if stat == "best":
        return max(values) if higher_is_better else min(values)
    return statistics.median(values)


def size_str(n):
    if n >= 1 << 20 and n % (1 << 20) == 0:
        return "%dM" % (n >> 20)
    if n >= 1 << 10 and n % (1 << 10) == 0:
        return "%dK" % (n >> 10)
    return str(n)


def fmt(v, width, prec):
    return ("%*.*f" % (width, prec, v)) if v is not None else "%*s" % (width, "-")


def table(title, unit, prog, mpis, stat, higher, prec, runs_of):
    per = {m: read_runs(runs_of, m, prog) for m in mpis}
    sizes = sorted(set().union(*[set(d) for d in per.values()]))
    nrep = max([len(v) for d in per.values() for v in d.values()] or [0])
    better = "higher" if higher else "lower"
    print("\n== %s (%s, %s of %d run(s), %s is better) ==" % (title, unit, stat, nrep, better))
    hdr = "%8s" % "size" + "".join("%11s" % LABEL[m] for m in mpis)
    base = [m for m in mpis if m != mpis[0]]
    hdr += "".join("%14s" % ("%s/%s" % (mpis[0], b)) for b in base)
    print(hdr)
    summary = {}
    for s in sizes:
        vals = {m: pick(per[m].get(s, []), stat, higher) for m in mpis}
        summary[s] = vals
        line = "%8s" % size_str(s) + "".join(fmt(vals[m], 11, prec) for m in mpis)
        for b in base:
            a, v = vals[mpis[0]], vals[b]
            line += fmt(a / v if a is not None and v else None, 14, 3)
        print(line)
    return per, summary


def spread(values, prec):
    if not values:
        return "no data"
    return "runs: " + " ".join("%.*f" % (prec, v) for v in values)


def main():
    results, stat, mpis = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
    lat_per, lat = table("Ping-pong latency", "us, half round trip", "pingpong", mpis, stat,
                         False, 3, results)
    bw_per, bw = table("Streaming bandwidth", "MB/s = 10^6 B/s, window 64", "bandwidth", mpis,
                       stat, True, 1, results)

    print("\n== Verdict ==")
    status = 0
    if "ours" not in mpis:
        print("our MPICH was not measured (--baselines-only): goals not evaluated")
        for m in mpis:
            print("  %-8s  8 B latency %s us (%s)   1 MiB bandwidth %s MB/s (%s)" % (
                m, fmt(lat.get(LAT_SIZE, {}).get(m), 0, 3),
                spread(lat_per[m].get(LAT_SIZE), 3),
                fmt(bw.get(BW_SIZE, {}).get(m), 0, 1), spread(bw_per[m].get(BW_SIZE), 1)))
        return 0

    def goal(name, prog_per, summary, size, other, limit, higher, prec, unit):
        ours = summary.get(size, {}).get("ours")
        base = summary.get(size, {}).get(other)
        if ours is None or base is None or base == 0:
            print("%s: MISSING DATA (ours=%s, %s=%s)" % (name, ours, other, base))
            return 3
        ratio = ours / base
        ok = ratio >= limit if higher else ratio <= limit
        print("%s: ours %.*f %s vs %s %.*f %s -> ratio %.3f (goal %s %.2f): %s" % (
            name, prec, ours, unit, other, prec, base, unit, ratio,
            ">=" if higher else "<=", limit, "MET" if ok else "MISSED"))
        print("    ours %s | %s %s" % (spread(prog_per["ours"].get(size), prec), other,
                                       spread(prog_per[other].get(size), prec)))
        return 0 if ok else 1

    if "mpich" in mpis:
        status = max(status, goal("8 B latency, ours vs Debian MPICH", lat_per, lat, LAT_SIZE,
                                  "mpich", LAT_LIMIT, False, 3, "us"))
    if "openmpi" in mpis:
        status = max(status, goal("1 MiB bandwidth, ours vs Debian Open MPI", bw_per, bw,
                                  BW_SIZE, "openmpi", BW_LIMIT, True, 1, "MB/s"))
    return status


if __name__ == "__main__":
    sys.exit(main())
