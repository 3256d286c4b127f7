#!/usr/bin/env python3
"""The results side of mpich/run-suite.sh (and so of mpich/run-pt2pt-suite.sh).

  suite-report.py count TAP
      "passed P/T (S skipped)" of one runtests TAP file.
  suite-report.py select-failed OUT BUILD DIR LIST NEWLIST SETUP...
      writes NEWLIST into BUILD/DIR and the subdirectories its testlists
      name: the lines of LIST (a testlist) of the tests that failed on one
      of the SETUPs (OUT/<setup>/summary-DIR.tap); prints their keys in the
      order runtests will run them.
  suite-report.py report OUT NOTES BASE_RUN DIRS SETUP...
      the summary: passed/total per directory and set-up, the tests that are
      not a pass everywhere, each failure with its output and note, and the
      tests that pass on Debian's MPICH but not on a set-up of ours (exit 1
      if there is one).  BASE_RUN: full, failures (Debian's ran only ours'
      failures) or none.

A test is keyed "DIR/.../NAME NP", with " #k" for the k-th occurrence of
the same name and rank count (testlists repeat a test with other arguments
or environments).  Notes (mpich/suite-notes.txt): one line per test,
"[SETUP ]KEY: why"; without " #k" a note covers every occurrence, without a
set-up every set-up; a KEY with a * is a pattern for the test's path
("debian f90/io/*").
"""
import fnmatch
import os
import re
import sys
import textwrap

# runtests' TAP lines; a test that did not build has no rank count ("build" in its key)
TAP_LINE = re.compile(r"(not ok|ok)\s+\d*\s*- \./(\S+) ?(\d*)(.*)$")
LABELS = {
    "ours": "ours, one node (shm)",
    "emulated": "ours, 2 emulated nodes cyclic (shm+myri)",
    "forwarded": "ours, 3 emulated nodes cyclic, a-c forwarded by b",
    "debian": "Debian's mpich 4.0.2 (ch4:ucx)",
}


def fname(d):
    """A directory's name in result file names: f08/pt2pt -> f08_pt2pt."""
    return d.replace("/", "_")


def parse_tap(path, renamed=None):
    """-> (status by key, keys in order, output lines by key)."""
    res, order, out, seen = {}, [], {}, {}
    cur = None
    if not os.path.exists(path):
        return res, order, out
    for line in open(path, errors="replace"):
        m = TAP_LINE.match(line)
        if m:
            status, test, np, rest = m.groups()
            np = np or "build"
            base = "%s %s" % (test, np)
            seen[base] = seen.get(base, 0) + 1
            key = base if seen[base] == 1 else "%s #%d" % (base, seen[base])
            if renamed is not None and len(order) < len(renamed):
                key = renamed[len(order)]
            if "# SKIP" in rest:
                status = "skip"
            elif status == "ok":
                status = "pass"
            else:
                status = "FAIL"
            res[key] = status
            order.append(key)
            cur = key if status == "FAIL" else None
            out[key] = []
        elif cur and line.startswith("## ") and not line.startswith("## Test output"):
            out[cur].append(line[3:].rstrip())
    return res, order, out


def count(tap):
    res = parse_tap(tap)[0]
    run = [k for k in res if res[k] != "skip"]
    passed = [k for k in run if res[k] == "pass"]
    print("passed %d/%d (%d skipped)" % (len(passed), len(run), len(res) - len(run)))


def testlist_entries(build, rel, listname):
    """Yields (kind, raw line, name, np) for the lines of rel's testlist as
    runtests reads them (the build directory's copy if it is not empty, else
    the source's); kind is "test", "dir" or "support" (a !dir:target line)."""
    path = os.path.join(build, rel, listname)
    if not (os.path.exists(path) and os.path.getsize(path) > 0):
        # the source directory, from the build tree's top Makefile
        mk = open(os.path.join(build, "Makefile"), errors="replace").read()
        sm = re.search(r"^srcdir = (.*)$", mk, re.M)
        srcdir = sm.group(1).strip() if sm else "."
        if not os.path.isabs(srcdir):
            srcdir = os.path.normpath(os.path.join(build, srcdir))
        path = os.path.join(srcdir, rel, listname)
    if not os.path.exists(path):
        return
    for raw in open(path, errors="replace"):
        line = re.sub(r"#.*", "", raw).strip()
        if not line:
            continue
        if line.startswith("!"):
            yield ("support", raw, None, None)
            continue
        f = line.split()
        if os.path.isdir(os.path.join(build, rel, f[0])):
            yield ("dir", raw, f[0], None)
        else:
            # runtests' default rank count is 2
            yield ("test", raw, f[0], f[1] if len(f) > 1 and f[1].isdigit() else "2")


def select_failed(out, build, top, listname, newlist, setups):
    failed = set()
    for s in setups:
        res = parse_tap(os.path.join(out, s, "summary-%s.tap" % fname(top)))[0]
        failed |= {k for k, v in res.items() if v == "FAIL"}
    keys, seen = [], {}

    def walk(rel):
        lines, any_test = [], False
        for kind, raw, name, np in testlist_entries(build, rel, listname):
            if kind == "support":
                lines.append(raw)
            elif kind == "dir":
                if walk(os.path.join(rel, name)):
                    lines.append(raw)
                    any_test = True
            else:
                base = "%s/%s %s" % (rel, name, np)
                seen[base] = seen.get(base, 0) + 1
                key = base if seen[base] == 1 else "%s #%d" % (base, seen[base])
                if key in failed:
                    lines.append(raw)
                    keys.append(key)
                    any_test = True
        target = os.path.join(build, rel, newlist)
        if any_test:
            with open(target, "w") as f:
                f.writelines(l if l.endswith("\n") else l + "\n" for l in lines)
        elif os.path.exists(target):
            os.unlink(target)
        return any_test

    walk(top)
    sys.stdout.write("".join(k + "\n" for k in keys))


def read_notes(path):
    notes = {}
    if os.path.exists(path):
        for line in open(path):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            key, _, why = line.partition(": ")
            notes[key.strip()] = why.strip()
    return notes


def note_for(notes, setup, key):
    """The note on KEY (DIR/TEST NP[ #k]) for SETUP: the most specific of
    "SETUP KEY", "SETUP TEST NP", "KEY", "TEST NP", then patterns
    ("debian f90/io/*": fnmatch, the rank count not part of the match)."""
    base = re.sub(r" #\d+$", "", key)
    for k in ("%s %s" % (setup, key), "%s %s" % (setup, base), key, base):
        if k in notes:
            return notes[k]
    path = base.rsplit(" ", 1)[0]
    for k, why in notes.items():
        if "*" not in k:
            continue
        who, _, pat = k.rpartition(" ")
        if who in ("", setup) and fnmatch.fnmatch(path, pat):
            return why
    return "(no note yet)"


def info(out, setup, what, default="?"):
    try:
        return open(os.path.join(out, setup, what)).read().strip()
    except OSError:
        return default


def report(out, notes_file, base_run, dirs, setups):
    notes = read_notes(notes_file)
    if base_run != "none" and "debian" not in setups:
        setups = setups + ["debian"]
    ours = [s for s in setups if s != "debian"]
    data = {}   # (setup, dir) -> (res, order, out)
    partial = set()
    for s in setups:
        for d in dirs:
            keys_file = os.path.join(out, s, "keys-" + fname(d))
            renamed = None
            if s == "debian" and os.path.exists(keys_file):
                renamed = [k.strip() for k in open(keys_file) if k.strip()]
                partial.add(d)
            data[(s, d)] = parse_tap(os.path.join(out, s, "summary-%s.tap" % fname(d)), renamed)
            top = d.split("/")[0]
            if not data[(s, d)][0] and top != d and renamed is None:
                # a subdirectory not run on its own: its part of the whole directory's run
                res, order, outp = parse_tap(os.path.join(out, s, "summary-%s.tap" % top))
                order = [k for k in order if k.startswith(d + "/")]
                data[(s, d)] = ({k: res[k] for k in order}, order, outp)

    print("MPICH test/mpi: passed/total (and seconds) per directory; xfail tests not counted")
    print("MPITEST_TIMEOUT=%s s" % next((info(out, s, "timeout") for s in setups
                                         if info(out, s, "timeout") != "?"), "?"))
    for s in setups:
        print("  %-10s %s%s" % (s, LABELS[s], ", only on the tests that failed on ours"
                                if s == "debian" and base_run == "failures" else ""))
    print()
    print("%-10s" % "dir" + "".join(" %-16s" % s for s in setups))
    tot = {s: [0, 0] for s in setups}
    for d in dirs:
        row = "%-10s" % d
        for s in setups:
            res = data[(s, d)][0]
            if not res:
                cell = "(none failed)" if s == "debian" and d in partial else "-"
            else:
                run = [k for k in res if res[k] != "skip"]
                p = len([k for k in run if res[k] == "pass"])
                cell = "%d/%d" % (p, len(run))
                el = info(out, s, "elapsed-" + fname(d), "")
                if el:
                    cell += " %ss" % el
                # a subdirectory listed beside its directory is counted once
                if d.split("/")[0] == d or d.split("/")[0] not in dirs or \
                        not data[(s, d.split("/")[0])][0]:
                    tot[s][0] += p
                    tot[s][1] += len(run)
            row += " %-16s" % cell
        print(row)
    print("%-10s" % "total" + "".join(" %-16s" % ("%d/%d" % tuple(tot[s])) for s in setups))
    print()

    rows = []
    for d in dirs:
        order = []
        for s in setups:
            order += [k for k in data[(s, d)][1] if k not in order]
        for k in order:
            st = [data[(s, d)][0].get(k, "-") for s in setups]
            if "FAIL" in st:
                rows.append((k, st))
    if rows:
        print("%-44s" % "tests that fail somewhere" + "".join(" %-9s" % s for s in setups))
        for k, st in rows:
            print("%-44s" % k + "".join(" %-9s" % x for x in st))
        print("(-: not run)")
        print()

    for s in setups:
        fails = []
        for d in dirs:
            res, order, outp = data[(s, d)]
            fails += [(k, outp[k]) for k in order if res.get(k) == "FAIL"]
        if not fails:
            continue
        print("Failures on %s:" % LABELS[s])
        for k, lines in fails:
            base = re.sub(r" #\d+$", "", k)
            why = note_for(notes, s, k)
            print("  %s" % k)
            print(textwrap.fill(why, width=100, initial_indent="    why: ",
                                subsequent_indent="         "))
            for l in lines[:6]:
                print("    | " + l[:150])
            if len(lines) > 6:
                print("    | ... (%d more lines in the TAP file)" % (len(lines) - 6))
        print()

    bad = 0
    for s in ours:
        regress = []
        for d in dirs:
            mine, order = data[(s, d)][0], data[(s, d)][1]
            if "debian" not in setups:
                regress += [k for k in order if mine[k] == "FAIL"]
                continue
            deb, deb_order = data[("debian", d)][0], data[("debian", d)][1]
            if d in partial or base_run == "failures":
                # Debian's ran only ours' failures: one it passed, or did not run, is ours
                regress += [k for k in order if mine[k] == "FAIL" and deb.get(k) != "FAIL"]
            else:
                regress += [k for k in deb_order
                            if deb[k] == "pass" and mine.get(k) not in ("pass", None)]
        if "debian" in setups:
            print("Fail on %s but not on Debian's MPICH: %d" % (LABELS[s], len(regress)))
            for k in regress:
                print("  " + k)
        bad += len(regress)
    return 1 if bad else 0


def main(argv):
    if len(argv) >= 2 and argv[0] == "count":
        count(argv[1])
        return 0
    if len(argv) >= 7 and argv[0] == "select-failed":
        select_failed(argv[1], argv[2], argv[3], argv[4], argv[5], argv[6:])
        return 0
    if len(argv) >= 6 and argv[0] == "report":
        return report(argv[1], argv[2], argv[3], [d for d in argv[4].split(",") if d], argv[5:])
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
