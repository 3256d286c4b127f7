#!/usr/bin/python3
"""bench/plot.py - one plot of benchmark series over message size.

    bench/plot.py DATA.tsv OUT.png [--title T] [--ylabel Y] [--logy]
                  [--marks MARKS.tsv] [--xlabel X] [--linx]

DATA.tsv: one line per point, tab-separated: series, size in bytes, value
(e.g. "sci<TAB>16384<TAB>61.2"); lines starting with '#' and blank lines
are skipped, and so are sizes of 0 (no place on a log axis).  Each series becomes one line, in the order it first appears.
The x axis (size) is logarithmic, base 2, labelled in B / KB / MB; with
--linx it is linear and labelled with plain numbers (e.g. node counts:
bench/mdconfig-scale.sh).

MARKS.tsv (optional): points to mark, e.g. a paper's stated figures:
label, size in bytes, value (tab-separated); a size of 0 draws a
horizontal line at value across the plot, a value of "-" a vertical line
at size.

The bench/*.sh scripts call it through bench_plot (bench/plot-common.sh),
bench/reproduce.sh directly.  Needs matplotlib (Debian: python3-matplotlib, run by
/usr/bin/python3; scripts/setup-deps.sh installs it).
"""
import argparse
import math
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after the backend choice)
from matplotlib.ticker import FuncFormatter  # noqa: E402


def size_label(x, _pos=None):
    for unit, div in (("MB", 1 << 20), ("KB", 1 << 10)):
        if x >= div:
            v = x / div
            return f"{v:g} {unit}"
    return f"{x:g} B"


def read_rows(path, ncols=3):
    rows = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            cols = line.split("\t")
            if len(cols) < ncols:
                sys.exit(f"plot.py: {path}:{n}: need {ncols} tab-separated columns")
            rows.append(cols[:ncols])
    return rows


def read_series(path, linx=False):
    series = {}
    for name, size, value in read_rows(path):
        try:
            pt = (float(size), float(value))
        except ValueError:
            sys.exit(f"plot.py: {path}: not a number in {name!r} {size!r} {value!r}")
        if pt[0] > 0 or linx:   # a log axis has no 0 B (e.g. pingpong's first size)
            series.setdefault(name, []).append(pt)
    return series


def right_half(ax, x):
    """Is x in the right half of the x axis as the series drew it?"""
    lo, hi = ax.get_xlim()
    if ax.get_xscale() == "linear":
        return x > (lo + hi) / 2
    return hi > lo > 0 and math.log(x / lo) > math.log(hi / lo) / 2


def draw_marks(ax, path):
    stars = 0
    for label, size, value in read_rows(path):
        if value == "-":
            ax.axvline(float(size), color="grey", linestyle=":", linewidth=1)
            ax.annotate(label, (float(size), 0.02), xycoords=("data", "axes fraction"),
                        rotation=90, fontsize=7, color="dimgrey", ha="right")
        elif float(size) == 0:
            ax.axhline(float(value), color="grey", linestyle="--", linewidth=0.8)
            ax.annotate(label, (0.45, float(value)), xycoords=("axes fraction", "data"),
                        fontsize=7, color="dimgrey", va="bottom")
        else:
            ax.plot([float(size)], [float(value)], marker="*", markersize=11, color="black",
                    linestyle="none")
            right = right_half(ax, float(size))   # label toward the middle
            ax.annotate(label, (float(size), float(value)), textcoords="offset points",
                        xytext=(-8 if right else 8, 8 if stars % 2 == 0 else -14), fontsize=7,
                        ha="right" if right else "left")
            stars += 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("data")
    ap.add_argument("out")
    ap.add_argument("--title", default="")
    ap.add_argument("--xlabel", default="message size")
    ap.add_argument("--ylabel", default="")
    ap.add_argument("--logy", action="store_true")
    ap.add_argument("--marks")
    ap.add_argument("--linx", action="store_true",
                    help="linear x axis of plain numbers (e.g. node counts), not sizes")
    a = ap.parse_args()

    series = read_series(a.data, a.linx)
    if not series:
        sys.exit(f"plot.py: no points in {a.data}")
    fig, ax = plt.subplots(figsize=(7, 4.5), dpi=110)
    for name, pts in series.items():
        pts.sort()
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker=".", label=name)
    if not a.linx:
        ax.set_xscale("log", base=2)
    if a.marks:
        draw_marks(ax, a.marks)
    if a.logy:
        ax.set_yscale("log")
    if not a.linx:
        ax.xaxis.set_major_formatter(FuncFormatter(size_label))
    ax.set_xlabel(a.xlabel)
    ax.set_ylabel(a.ylabel)
    ax.set_title(a.title, fontsize=10)
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left")
    if not a.linx:
        for lab in ax.get_xticklabels():
            lab.set_rotation(45)
    fig.tight_layout()
    fig.savefig(a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
