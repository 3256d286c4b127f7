#!/usr/bin/env python3
"""Summarises the raw outputs of the bench/*.sh comparison scripts.

usage: compare_report.py [--goal G] [--programs P,...] RESULTS_DIR STAT LABEL,LABEL...

RESULTS_DIR holds <label>.<prog>.<rep>.txt files, each the stdout of one run
of pingpong or bandwidth ("size value" lines, '#' comments).  A label names
one measured configuration: an MPI (ours, mpich, openmpi), a receive mode
(specific, anysource) or a rank pair (AB, BC, AC).  STAT is 'median' or
'best' (lowest latency, highest bandwidth).  Prints one table per program
with the ratios of the first label to each other one, then the verdict:

  --goal mpi        (compare-mpi.sh) 8 B latency ours <= Debian MPICH;
                    1 MiB bandwidth ours >= 0.9 x Open MPI
  --goal anysource  (anysource.sh)   ANY_SOURCE latency <= 1.1 x specific
  --goal shm        (netpipe-mpi.sh, compare-mpi.sh --goal shm) 8 B latency ours
                    <= Open MPI's (and Debian MPICH's); from 64 KiB on, bandwidth
                    ours >= the better of the two at every size
  --goal route      (route.sh)       forwarded A-C latency vs A-B + B-C
                    (with --forward-us: the median excess over all sizes
                    <= the forwarding cost); 4 MiB A->C bandwidth >= 0.8 x
                    the slower hop
  --goal none

Exit status: 0 goals met (or not evaluated), 1 a goal missed, 3 data missing.
"""
import argparse
import os
import re
import statistics
import sys

PROGS = {
    "pingpong": ("Ping-pong latency", "us, half round trip", False, 3),
    "bandwidth": ("Streaming bandwidth", "MB/s = 10^6 B/s", True, 1),
    # NetPIPE (netpipe-mpi.sh): its ping-pong, as latency and as size / half round trip
    "netpipe-lat": ("NetPIPE latency", "us, half round trip", False, 3),
    "netpipe-bw": ("NetPIPE bandwidth", "Gb/s = size / half round trip", True, 2),
}


def read_runs(results, label, prog):
    """Returns {size: [value per run]} for one label and program."""
    data = {}
    pat = re.compile(r"^%s\.%s\.(\d+)\.txt$" % (re.escape(label), re.escape(prog)))
    for name in sorted(os.listdir(results)):
        if not pat.match(name):
            continue
        with open(os.path.join(results, name)) as f:
            for line in f:
                parts = line.split()
                if len(parts) < 2 or parts[0].startswith("#"):
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


def runs_str(values, prec):
    if not values:
        return "no data"
    return "runs: " + " ".join("%.*f" % (prec, v) for v in values)


class Results:
    def __init__(self, results, stat, labels):
        self.results, self.stat, self.labels = results, stat, labels
        self.raw = {}     # (prog, label) -> {size: [runs]}
        self.value = {}   # (prog, label) -> {size: statistic}

    def load(self, prog):
        higher = PROGS[prog][2]
        for lab in self.labels:
            runs = read_runs(self.results, lab, prog)
            self.raw[(prog, lab)] = runs
            self.value[(prog, lab)] = {s: pick(v, self.stat, higher) for s, v in runs.items()}

    def get(self, prog, label, size):
        return self.value.get((prog, label), {}).get(size)

    def runs(self, prog, label, size):
        return self.raw.get((prog, label), {}).get(size)

    def write_series(self, prog, path):
        """The table's values as bench/plot.py's series: label, size, value."""
        with open(path, "w") as f:
            for lab in self.labels:
                for s, v in sorted(self.value.get((prog, lab), {}).items()):
                    if v is not None:
                        f.write("%s\t%d\t%g\n" % (lab, s, v))

    def table(self, prog):
        title, unit, higher, prec = PROGS[prog]
        sizes = sorted(set().union(*[set(self.raw[(prog, l)]) for l in self.labels]))
        if not sizes:
            print("\n== %s: no data ==" % title)
            return
        nrep = max(len(v) for l in self.labels for v in self.raw[(prog, l)].values())
        print("\n== %s (%s, %s of %d run(s), %s is better) ==" % (
            title, unit, self.stat, nrep, "higher" if higher else "lower"))
        first, others = self.labels[0], self.labels[1:]
        width = max([11] + [len(l) + 2 for l in self.labels])
        hdr = "%8s" % "size" + "".join("%*s" % (width, l) for l in self.labels)
        rwidth = max([14] + [len(first) + len(b) + 3 for b in others])
        hdr += "".join("%*s" % (rwidth, "%s/%s" % (first, b)) for b in others)
        print(hdr)
        for s in sizes:
            vals = [self.get(prog, l, s) for l in self.labels]
            line = "%8s" % size_str(s) + "".join(fmt(v, width, prec) for v in vals)
            for v in vals[1:]:
                line += fmt(vals[0] / v if vals[0] is not None and v else None, rwidth, 3)
            print(line)


def verdict_line(name, ratio, limit, higher, detail):
    ok = ratio >= limit if higher else ratio <= limit
    print("%s: %s -> ratio %.3f (goal %s %.2f): %s" % (
        name, detail, ratio, ">=" if higher else "<=", limit, "MET" if ok else "MISSED"))
    return 0 if ok else 1


def goal_ratio(r, name, prog, size, num, den, limit, higher, unit):
    prec = PROGS[prog][3]
    a, b = r.get(prog, num, size), r.get(prog, den, size)
    if a is None or not b:
        print("%s: MISSING DATA (%s=%s, %s=%s)" % (name, num, a, den, b))
        return 3
    st = verdict_line(name, a / b, limit, higher, "%s %.*f %s vs %s %.*f %s" % (
        num, prec, a, unit, den, prec, b, unit))
    print("    %s %s | %s %s" % (num, runs_str(r.runs(prog, num, size), prec), den,
                                runs_str(r.runs(prog, den, size), prec)))
    return st


def goal_mpi(r):
    if "ours" not in r.labels:
        print("our MPICH was not measured (--baselines-only): goals not evaluated")
        for m in r.labels:
            print("  %-8s  8 B latency %s us (%s)   1 MiB bandwidth %s MB/s (%s)" % (
                m, fmt(r.get("pingpong", m, 8), 0, 3), runs_str(r.runs("pingpong", m, 8), 3),
                fmt(r.get("bandwidth", m, 1 << 20), 0, 1),
                runs_str(r.runs("bandwidth", m, 1 << 20), 1)))
        return 0
    status = 0
    if "mpich" in r.labels:
        status = max(status, goal_ratio(r, "8 B latency, ours vs Debian MPICH", "pingpong", 8,
                                        "ours", "mpich", 1.0, False, "us"))
    if "openmpi" in r.labels:
        status = max(status, goal_ratio(r, "1 MiB bandwidth, ours vs Debian Open MPI",
                                        "bandwidth", 1 << 20, "ours", "openmpi", 0.9, True,
                                        "MB/s"))
    return status


def goal_anysource(r):
    status = goal_ratio(r, "8 B latency, ANY_SOURCE vs specific source", "pingpong", 8,
                        "anysource", "specific", 1.1, False, "us")
    worst = None
    for s, v in r.value.get(("pingpong", "specific"), {}).items():
        a = r.get("pingpong", "anysource", s)
        if a is not None and v:
            if worst is None or a / v > worst[1]:
                worst = (s, a / v)
    if worst:
        print("    worst ratio over all sizes: %.3f at %s" % (worst[1], size_str(worst[0])))
    return status


def goal_route(r):
    status = 0
    cost = r.forward_us
    sizes = sorted(r.value.get(("pingpong", "AC"), {}))
    print("forwarded latency A-C against the sum of its hops A-B + B-C (the excess is the")
    print("forwarding cost; goal: A-C <= A-B + B-C + forwarding cost):")
    print("%8s %12s %12s %12s %10s" % ("size", "A-B+B-C", "A-C", "excess_us", "ratio"))
    excess = []
    for s in sizes:
        ab, bc, ac = (r.get("pingpong", l, s) for l in ("AB", "BC", "AC"))
        if None in (ab, bc, ac):
            continue
        excess.append(ac - ab - bc)
        over = "  over" if cost is not None and excess[-1] > cost else ""
        print("%8s %12.3f %12.3f %12.3f %10.3f%s" % (size_str(s), ab + bc, ac, excess[-1],
                                                    ac / (ab + bc), over))
    if cost is not None:
        if not excess:
            print("forwarded latency: MISSING DATA")
            return 3
        med = statistics.median(excess)
        print("excess within the forwarding cost (%.1f us) at %d of %d sizes" % (
            cost, sum(e <= cost for e in excess), len(excess)))
        status = verdict_line("median excess over all sizes vs forwarding cost", med / cost,
                              1.0, False, "%.1f us vs %.1f us" % (med, cost))
    size = 4 << 20
    ab, bc, ac = (r.get("bandwidth", l, size) for l in ("AB", "BC", "AC"))
    if None in (ab, bc, ac) or not min(ab, bc):
        print("4 MiB bandwidth: MISSING DATA (A-B=%s, B-C=%s, A-C=%s)" % (ab, bc, ac))
        return 3
    slower = "AB" if ab <= bc else "BC"
    status = max(status, goal_ratio(r, "4 MiB bandwidth, A->C vs slower hop", "bandwidth",
                                    size, "AC", slower, 0.8, True, "MB/s"))
    return status


def goal_shm(r):
    """Ahead of both peers on one node (issue 22 §1)."""
    lat, bw = ("netpipe-lat", "netpipe-bw") if ("netpipe-lat", "ours") in r.raw \
        else ("pingpong", "bandwidth")
    peers = [m for m in ("openmpi", "mpich") if m in r.labels]
    if "ours" not in r.labels or not peers:
        print("goal shm needs ours and a peer (openmpi, mpich)")
        return 3
    status = 0
    for m in peers:
        status = max(status, goal_ratio(r, "8 B latency, ours vs %s" % m, lat, 8, "ours", m,
                                        1.0, False, "us"))
    sizes = sorted(s for s in r.value.get((bw, "ours"), {}) if s >= 64 << 10)
    behind = []
    for s in sizes:
        ours = r.get(bw, "ours", s)
        best = max((r.get(bw, m, s) or 0.0) for m in peers)
        if ours is None or not best:
            continue
        if ours < best:
            behind.append((s, ours / best))
    if not sizes:
        print("bandwidth from 64 KiB: MISSING DATA")
        return max(status, 3)
    worst = min(behind, key=lambda t: t[1]) if behind else None
    print("bandwidth from 64 KiB, ours vs the better of %s: ahead or equal at %d of %d sizes%s: %s"
          % ("/".join(peers), len(sizes) - len(behind), len(sizes),
             ", behind at " + " ".join("%s (%.3f)" % (size_str(s), q) for s, q in behind)
             if behind else "", "MISSED" if behind else "MET"))
    if worst:
        print("    worst ratio %.3f at %s" % (worst[1], size_str(worst[0])))
    return max(status, 1 if behind else 0)


GOALS = {"mpi": goal_mpi, "shm": goal_shm, "anysource": goal_anysource, "route": goal_route,
         "none": lambda r: 0}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--goal", choices=sorted(GOALS), default="mpi")
    ap.add_argument("--programs", default="pingpong,bandwidth")
    ap.add_argument("--forward-us", type=float, default=None,
                    help="route: the forwarding cost of the description, in us")
    ap.add_argument("--series", metavar="DIR",
                    help="also write each program's values to DIR/PROGRAM.tsv (bench/plot.py)")
    ap.add_argument("results")
    ap.add_argument("stat", choices=["median", "best"])
    ap.add_argument("labels")
    a = ap.parse_args()
    if a.forward_us is not None and a.forward_us <= 0:
        ap.error("--forward-us wants a positive number of microseconds")
    r = Results(a.results, a.stat, a.labels.split(","))
    r.forward_us = a.forward_us
    for prog in a.programs.split(","):
        if prog not in PROGS:
            ap.error("unknown program %s" % prog)
        r.load(prog)
        r.table(prog)
        if a.series:
            r.write_series(prog, os.path.join(a.series, prog + ".tsv"))
    print("\n== Verdict ==")
    return GOALS[a.goal](r)


if __name__ == "__main__":
    sys.exit(main())
