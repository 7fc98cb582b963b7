#!/usr/bin/env python3
"""bench/parse_growth.py - the cost of a job file's size: --parse-only of N sections.

A generated job file of N job sections under one [global] (1 to 100 000) is
checked by ioplan and by fio 3.33.  bench.py's parse-only-N-sections rows come
from workloads() here (target: at most half of fio's wall, CPU and peak RSS at
every N); run alone, this script measures the growth curve itself: at each N,
pairs of runs alternating which tool goes first, each run timed by GNU time
(wall, user+system CPU, peak RSS), and per tool the median of the pairs.  It
writes the curve as a table (--data) and plots it with gnuplot (--plot): the
machine is shared, so the ratios are the figures to read, the absolute times
show the shape (linear: a line of slope 1 on the log-log plot).

Usage: parse_growth.py [--sizes 1,100,...] [--pairs 5] [--data FILE] [--plot FILE.svg]
Environment: IOPLAN_BIN (default ./ioplan), FIO_BIN (default fio).
"""
import argparse
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
IOPLAN = os.environ.get("IOPLAN_BIN", str(ROOT / "ioplan"))
FIO = os.environ.get("FIO_BIN", shutil.which("fio") or "fio")
GNU_TIME = shutil.which("time") or "/usr/bin/time"
SIZES = (1, 100, 1000, 10000, 100000)
QUICK_SIZES = (1, 1000, 10000)
TARGET = 0.5  # ioplan's wall, CPU and peak RSS against fio's, at every N


def write_job(d, n):
    """The job file of n sections (each its own filename), in directory d."""
    job = pathlib.Path(d) / f"sections-{n}.fio"
    job.write_text("[global]\nioengine=null\nsize=1m\nbs=4k\nrw=randread\n\n" +
                   "".join(f"[job{i}]\nfilename={d}/s{i}\n\n" for i in range(n)))
    return job


def workloads(d, quick, workload, cpu_s):
    """bench.py's rows: workload is its Workload type, cpu_s its CPU-seconds reader."""
    ratio = lambda f: (lambda i, o: (f(i), f(o)))  # noqa: E731
    out = []
    for n in QUICK_SIZES if quick else SIZES:
        job = write_job(d, n)
        out.append(workload(f"parse-only-{n}-sections", [FIO, "--parse-only", str(job)],
                            [IOPLAN, "--parse-only", str(job)],
                            [("process time ratio", ratio(lambda p: p.wall), ("<=", TARGET)),
                             ("CPU time ratio", ratio(cpu_s), ("<=", TARGET)),
                             ("peak RSS ratio", ratio(lambda p: p.maxrss_kib), ("<=", TARGET))],
                            rounds=3 if n >= 100000 else None))
    return out


def timed(argv):
    """(wall s, CPU s, peak RSS KiB) of one run, from GNU time."""
    with tempfile.NamedTemporaryFile(mode="r") as t:
        p = subprocess.run([GNU_TIME, "-o", t.name, "-f", "%e %U %S %M"] + argv,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if p.returncode:
            raise RuntimeError(f"{' '.join(argv)} exited {p.returncode}: {p.stderr.strip()[:300]}")
        wall, user, sys_, rss = t.read().split()[-4:]
    return float(wall), float(user) + float(sys_), int(rss)


def measure(job, pairs):
    """Per tool the medians of wall, CPU and RSS, and the medians of the pairs' ratios."""
    runs = {"ioplan": [], "fio": []}
    ratios = []
    for r in range(pairs):
        order = [("ioplan", IOPLAN), ("fio", FIO)]
        if r % 2:
            order.reverse()
        got = {who: timed([exe, "--parse-only", str(job)]) for who, exe in order}
        for who in runs:
            runs[who].append(got[who])
        ratios.append([a / b if b else float("nan") for a, b in zip(got["ioplan"], got["fio"])])
    med = lambda rows, k: statistics.median(row[k] for row in rows)  # noqa: E731
    return ([med(runs["ioplan"], k) for k in range(3)], [med(runs["fio"], k) for k in range(3)],
            [med(ratios, k) for k in range(3)])


COLUMNS = ("sections", "ioplan_wall_s", "ioplan_cpu_s", "ioplan_rss_kib",
           "fio_wall_s", "fio_cpu_s", "fio_rss_kib", "wall_ratio", "cpu_ratio", "rss_ratio")


def plot(data, svg):
    """Time and peak RSS against N, both tools, log-log, from the table in data."""
    script = f"""
set terminal svg size 900,380 dynamic font 'Liberation Sans,11'
set output '{svg}'
set multiplot layout 1,2 title '--parse-only of a job file of N sections (ioplan against fio 3.33)'
set logscale xy
set key top left
set grid
set xlabel 'job sections'
set ylabel 'CPU seconds (median of pairs)'
plot '{data}' using 1:3 with linespoints title 'ioplan', '' using 1:6 with linespoints title 'fio 3.33'
set ylabel 'peak RSS, MiB'
plot '{data}' using 1:($4/1024) with linespoints title 'ioplan', '' using 1:($7/1024) with linespoints title 'fio 3.33'
unset multiplot
"""
    subprocess.run(["gnuplot"], input=script, text=True, check=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default=",".join(map(str, SIZES)))
    ap.add_argument("--pairs", type=int, default=5)
    ap.add_argument("--data", default=str(ROOT / "build" / "parse-growth.tsv"))
    ap.add_argument("--plot", default="", help="an SVG drawn from --data with gnuplot")
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="parse-growth-") as d:
        for n in map(int, args.sizes.split(",")):
            mine, theirs, ratio = measure(write_job(d, n), args.pairs)
            rows.append([n, *mine, *theirs, *ratio])
            print(f"{n:>7} sections: wall {ratio[0]:.2f}x  CPU {ratio[1]:.2f}x  RSS {ratio[2]:.2f}x  "
                  f"(ioplan {mine[1]:.3f} s {mine[2]} KiB, fio {theirs[1]:.3f} s {theirs[2]} KiB)"
                  f"{'' if max(ratio) <= TARGET else '  MISSED <= ' + str(TARGET)}", flush=True)
    with open(args.data, "w") as f:
        f.write("# " + "\t".join(COLUMNS) + "\n")
        for r in rows:
            f.write("\t".join(f"{v:.4g}" if isinstance(v, float) else str(v) for v in r) + "\n")
    if args.plot:
        plot(args.data, args.plot)
    return 0 if all(max(r[7:]) <= TARGET for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
