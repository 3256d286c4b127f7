#!/usr/bin/env python3
"""The tables of bench/wire-hosts.sh (issue 19).

usage: wire_hosts_report.py speed DIR STAT LABELS MTU
       wire_hosts_report.py loss DIR NETS MTU PERCENT ITERS TIMEOUT

speed: DIR holds <label>.pingpong.<round>.txt (bench/pingpong's output:
"size latency_us" lines) and <same>.wire (bytes h2 received on wire0 during
the run).  Also writes the table's values to DIR/pingpong.tsv (label, size,
us) and the bandwidth they give (size / half round trip, MB/s) to
DIR/bandwidth.tsv, for bench/plot.py.  LABELS: the emulated networks, then mpich (then openmpi).  Prints
the half round trip per size and label (STAT over the rounds: median, or
best = lowest), the ratios ours / mpich, and the goals: 8 B latency <= 1.2x
Debian's MPICH, 4 MiB bandwidth (size / half round trip) >= 0.8x.

loss: DIR holds <net>.clean.txt and <net>.loss.txt (checked pingpong
without and with loss), their .rc (exit status; 124/137: timed out) and
<net>.drops.  The time of a run is that of its timed loops:
sum over sizes of 2 x n(size) x latency, n as bench_scale_iters counts.
Goal: with loss <= 2x without, every byte verified.

Exit status: 0 goals met, 1 a goal missed, 3 data missing or a run failed.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_report import read_runs, pick  # noqa: E402

LAT_GOAL = 1.2     # 8 B latency, ours / Debian's MPICH, at most
BW_GOAL = 0.8      # 4 MiB bandwidth, ours / Debian's MPICH, at least
LOSS_GOAL = 2.0    # checked ping-pong time, with loss / without, at most
LARGE = 8192       # BENCH_LARGE_SIZE (bench/bench_util.h)
MIB = 1 << 20


def size_name(s):
    if s >= MIB and s % MIB == 0:
        return "%d MiB" % (s // MIB)
    if s >= 1024 and s % 1024 == 0:
        return "%d KiB" % (s // 1024)
    return "%d B" % s


def fmt(v):
    if v is None:
        return "-"
    return "%.1f" % v if v >= 100 else "%.2f" % v


def speed(d, stat, labels, mtu):
    labels = labels.split(",")
    ours = [l for l in labels if l not in ("mpich", "openmpi")]
    data = {l: read_runs(d, l, "pingpong") for l in labels}
    val = {l: {s: pick(v, stat, False) for s, v in data[l].items()} for l in labels}
    sizes = sorted(set().union(*[set(v) for v in val.values()]))
    rounds = max([len(v) for l in labels for v in data[l].values()] or [0])
    print()
    print("== MTU %s: half round trip in us, %s of %d round(s); ratio = ours / Debian's MPICH"
          " (ch4:ucx, tcp on wire0), lower is better" % (mtu, stat, rounds))
    head = ["size"] + labels + ["%s/mpich" % l for l in ours]
    if "openmpi" in labels:
        head += ["%s/ompi" % l for l in ours]
    rows = [head]
    for s in sizes:
        row = [size_name(s)] + [fmt(val[l].get(s)) for l in labels]
        for base in ["mpich"] + (["openmpi"] if "openmpi" in labels else []):
            for l in ours:
                a, b = val[l].get(s), val[base].get(s)
                row.append("%.2f" % (a / b) if a and b else "-")
        rows.append(row)
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    for r in rows:
        print("  " + "  ".join(c.rjust(w) for c, w in zip(r, widths)))
    # the table's values as bench/plot.py's series, beside the raw outputs:
    # the half round trip, and the bandwidth it gives (size / half round trip)
    with open(os.path.join(d, "pingpong.tsv"), "w") as f, \
         open(os.path.join(d, "bandwidth.tsv"), "w") as fb:
        for l in labels:
            for s_, v in sorted(val[l].items()):
                f.write("%s\t%d\t%g\n" % (l, s_, v))
                if s_ > 0 and v:
                    fb.write("%s\t%d\t%g\n" % (l, s_, s_ / v))

    # what crossed the link: a run whose bytes did not go over wire0 is no measurement
    for l in labels:
        for name in sorted(os.listdir(d)):
            if name.startswith(l + ".pingpong.") and name.endswith(".wire"):
                with open(os.path.join(d, name)) as f:
                    rx = int(f.read().strip() or 0)
                if rx < 4 * MIB:
                    print("  WARNING: %s: h2 received only %d bytes on wire0 during the run"
                          % (name[:-5], rx))

    status = 0
    small, large = 8, 4 * MIB
    print("  goals (issue 19), MTU %s:" % mtu)
    for l in ours:
        a, b = val[l].get(small), val["mpich"].get(small)
        if a is None or b is None:
            print("    %-5s 8 B latency: no data" % l)
            status = max(status, 3)
        else:
            ok = a / b <= LAT_GOAL
            status = max(status, 0 if ok else 1)
            print("    %-5s 8 B latency    %8.2f us vs %8.2f us: %.2fx (goal <= %.1fx) %s"
                  % (l, a, b, a / b, LAT_GOAL, "met" if ok else "NOT met"))
        a, b = val[l].get(large), val["mpich"].get(large)
        if a is None or b is None:
            print("    %-5s 4 MiB bandwidth: no data" % l)
            status = max(status, 3)
        else:
            bw_ours, bw_mpich = large / a, large / b   # bytes/us = MB/s
            ok = bw_ours / bw_mpich >= BW_GOAL
            status = max(status, 0 if ok else 1)
            print("    %-5s 4 MiB bandwidth %7.1f MB/s vs %7.1f MB/s: %.2fx (goal >= %.1fx) %s"
                  % (l, bw_ours, bw_mpich, bw_ours / bw_mpich, BW_GOAL, "met" if ok else "NOT met"))
    for s in (small, large):
        print("    every round at %s: %s" % (size_name(s), "; ".join(
            "%s %s" % (l, " ".join(fmt(x) for x in data[l].get(s, [])) or "-") for l in labels)))
    return status


def n_iters(iters, size):
    """Timed iterations of one size: bench_pair_sweep / bench_scale_iters."""
    floor_n = iters // 100 if iters // 100 > 10 else 10
    if size <= LARGE:
        return iters
    n = int(iters * LARGE / size)
    return max(1, min(iters, max(n, floor_n)))


def read_run(path):
    """{size: latency_us} and whether the check line said all verified."""
    lat, verified, errors = {}, False, None
    if not os.path.exists(path):
        return lat, verified, errors
    with open(path) as f:
        for line in f:
            if line.startswith("# check:"):
                verified = "all bytes verified (0 error(s))" in line
                errors = line[len("# check:"):].strip()
                continue
            p = line.split()
            if len(p) >= 2 and not p[0].startswith("#"):
                try:
                    lat[int(p[0])] = float(p[1])
                except ValueError:
                    pass
    return lat, verified, errors


def first_complaint(path):
    """The first warning or error of a failed run's stderr (the cause, usually)."""
    try:
        with open(path, errors="replace") as f:
            for line in f:
                if (" warn:" in line or " error:" in line or "Fatal" in line) \
                        and not line.startswith("+ "):
                    return line.strip()
    except OSError:
        pass
    return "no message"


def read_rc(path):
    try:
        with open(path) as f:
            return int(f.read().strip())
    except (OSError, ValueError):
        return None


def loss(d, nets, mtu, percent, iters, timeout):
    iters, timeout = int(iters), int(timeout)
    status = 0
    print()
    print("== MTU %s, loss: checked ping-pong 0 B..4 MiB (every byte verified), %s%% of the UDP"
          " packets dropped each way (nftables); time of the timed loops" % (mtu, percent))
    for n in nets.split(","):
        runs = {}
        for kind in ("clean", "loss"):
            lat, ok, errors = read_run(os.path.join(d, "%s.%s.txt" % (n, kind)))
            rc = read_rc(os.path.join(d, "%s.%s.rc" % (n, kind)))
            total = sum(2 * n_iters(iters, s) * v for s, v in lat.items()) / 1e6
            try:
                with open(os.path.join(d, "%s.%s.txt.wall" % (n, kind))) as f:
                    wall = float(f.read())
            except (OSError, ValueError):
                wall = None
            runs[kind] = (lat, ok, errors, rc, total, wall)
        drops = ""
        dp = os.path.join(d, "%s.drops" % n)
        if os.path.exists(dp):
            with open(dp) as f:
                drops = "; ".join(l.strip() for l in f if l.strip())

        def describe(kind):
            lat, ok, errors, rc, total, wall = runs[kind]
            if rc in (124, 137):
                last = max(lat) if lat else None
                return ("did not finish in %d s (last size done: %s, its loops %.2f s so far)"
                        % (timeout, size_name(last) if last is not None else "none", total)), False
            if rc != 0:
                last = max(lat) if lat else None
                return ("FAILED (exit status %s) after %s: %s"
                        % (rc, size_name(last) if last is not None else "no size",
                           first_complaint(os.path.join(d, "%s.%s.txt.err" % (n, kind))))), False
            if not ok:
                return "check FAILED: %s" % (errors or "no check line"), False
            return ("%.3f s, all bytes verified (the whole job %s s)"
                    % (total, "%.1f" % wall if wall is not None else "?")), True

        c_text, c_ok = describe("clean")
        l_text, l_ok = describe("loss")
        print("  %-5s without loss: %s" % (n, c_text))
        print("  %-5s with %s%%:     %s%s" % (n, percent, l_text, ("  [" + drops + "]") if drops else ""))
        if c_ok and l_ok and runs["clean"][4] > 0:
            r = runs["loss"][4] / runs["clean"][4]
            met = r <= LOSS_GOAL
            status = max(status, 0 if met else 1)
            cl, ll = runs["clean"][0], runs["loss"][0]
            per = ", ".join("%s %.1fx" % (size_name(s), ll[s] / cl[s])
                            for s in (0, 65536, 4 * MIB) if s in cl and s in ll and cl[s] > 0)
            print("  %-5s ratio %.2fx (goal <= %.1fx) %s; per size: %s"
                  % (n, r, LOSS_GOAL, "met" if met else "NOT met", per))
        else:
            why = "no ratio"
            c_total, c_wall = runs["clean"][4], runs["clean"][5] or 0.0
            if c_ok and not l_ok and runs["loss"][3] in (124, 137) and \
                    LOSS_GOAL * c_total + c_wall < timeout:
                # 2x the loops plus all the rest of a loss-free job would have fit
                why = ("over %.1fx: not done in %d s, where %.1fx the loops (%.1f s) plus the"
                       " rest of the loss-free job (%.1f s) fit" %
                       (LOSS_GOAL, timeout, LOSS_GOAL, LOSS_GOAL * c_total, c_wall - c_total))
                if c_total > 0 and runs["loss"][4] > 0:
                    # the sizes done alone, against all sizes without loss: a lower bound
                    why += "; at least %.0fx (the sizes it did, against all of them)" % (
                        runs["loss"][4] / c_total)
                status = max(status, 1)
            else:
                status = max(status, 3)
            print("  %-5s ratio: %s (goal <= %.1fx) NOT met" % (n, why, LOSS_GOAL))
    return status


def main(argv):
    if len(argv) == 6 and argv[1] == "speed":
        return speed(argv[2], argv[3], argv[4], argv[5])
    if len(argv) == 8 and argv[1] == "loss":
        return loss(*argv[2:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
