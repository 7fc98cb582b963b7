#!/usr/bin/env python3
"""bench/layout_growth.py - how laying out many small files grows with their number, ioplan against fio.

For each N (default 100, 1 000, 10 000, 100 000) and each form of the job
`--nrfiles=N --filesize=4k` (read-co and write-co: the layout alone,
create_only=1, of a read job, whose files get data, and of a write job, whose
files are only sized; read and write: the layout, then one 4 KiB read or
write of each file, at most 1 000 open at once), ioplan and fio lay out N files in empty
directories of --dir, taking turns at going first, --pairs times.  It prints
per form and N the median wall, CPU (user+sys) and peak RSS of each tool and
the median of the per-pair ratios (ioplan/fio): the machines are shared, so
only the ratios of runs made side by side mean anything.

--data keeps every run (JSON), and --plot draws an SVG from such files: N
against wall time and peak RSS, both tools, log-log (docs/layout-growth.svg
is drawn so, from the data of one run on tmpfs and one on ext4).  The rows of
`make bench` (layout-N-files in bench.py) hold the same ratios to their
targets; this script shows the curve between them.

Usage: layout_growth.py [--dir DIR] [--label FS] [--sizes 100,1000,...] [--forms read-co,write-co,read,write]
                        [--pairs N] [--data FILE]
       layout_growth.py --plot SVG DATA [DATA ...]
Environment: IOPLAN_BIN (default ./ioplan), FIO_BIN (default fio).
"""
import argparse
import datetime
import json
import math
import os
import shutil
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import FIO, IOPLAN, Proc, machine  # noqa: E402

# A run holds its files open (both tools refuse, or fail, above `ulimit -n`): at most 1 000 at once.
FORMS = {
    "read-co": ["--rw=read", "--create_only=1"],
    "write-co": ["--rw=write", "--create_only=1"],
    "read": ["--rw=read", "--openfiles=1000"],
    "write": ["--rw=write", "--openfiles=1000"],
}


def job(tool, directory, n, form):
    return [tool, "--name=many", f"--directory={directory}", f"--nrfiles={n}", "--filesize=4k", "--bs=4k",
            "--ioengine=psync", *FORMS[form], "--output-format=json"]


def one_run(tool, base, n, form):
    """One run in an empty directory (made and removed outside the timing): a record, or None."""
    d = tempfile.mkdtemp(prefix="many-", dir=base)
    try:
        os.sync()   # the previous run's writes out of the way before this one is timed
        p = Proc(job(tool, d, n, form), cwd=base)
    except RuntimeError as e:
        print(f"  {form} {n}: {str(e)[-300:]}", flush=True)
        return None
    finally:
        shutil.rmtree(d)
    return {"wall": p.wall, "cpu": p.utime + p.stime, "rss_kib": p.maxrss_kib}


def summary(label, form, n, runs, ratios):
    """The table's line for one form and N: medians of each tool, and of the per-pair ratios."""
    med = {who: {k: statistics.median(r[k] for r in runs if r["tool"] == who) for k in ratios}
           for who in ("ioplan", "fio")}
    return f"{label:<6} {form:<9} {n:>7}  " + "  ".join(
        f"{k} {med['ioplan'][k]:.3g}/{med['fio'][k]:.3g} = {statistics.median(v):.2f}x [{min(v):.2f}..{max(v):.2f}]"
        for k, v in ratios.items())


def measure(args, save):
    runs = []
    tools = {"ioplan": IOPLAN, "fio": FIO}
    for form in args.forms:
        for n in args.sizes:
            ratios = {"wall": [], "cpu": [], "rss_kib": []}
            for pair in range(args.pairs):
                got = {}
                for who in ["ioplan", "fio"][::1 if pair % 2 == 0 else -1]:
                    got[who] = one_run(tools[who], args.dir, n, form)
                if None in got.values():
                    break   # refused or failed: said above, and the same again next time
                runs += [{"tool": who, "form": form, "n": n, "pair": pair, **got[who]} for who in got]
                for k in ratios:
                    ratios[k].append(got["ioplan"][k] / got["fio"][k] if got["fio"][k] else float("inf"))
            if ratios["wall"]:
                print(summary(args.label, form, n, [r for r in runs if (r["form"], r["n"]) == (form, n)],
                              ratios), flush=True)
            save(runs)
    return runs


# The plot: two panels (wall seconds, peak RSS MiB) against N, log-log, hand-made SVG
# (no plotting library on the build machines).
W, H, PAD = 420, 300, 56
COLOURS = {"ioplan": "#1f6fb4", "fio": "#d9531e"}
DASHES = ["", "6 3", "2 3", "8 3 2 3"]


def dashed(dash):
    return f' stroke-dasharray="{dash}"' if dash else ""


def ticks(lo, hi):
    return [10 ** e for e in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1)]


def panel(x0, title, series, key, scale):
    """One log-log panel at x offset x0: series {(tool, label, form): {n: [values]}}."""
    pts = {s: sorted((n, statistics.median(v[key] for v in vals) * scale) for n, vals in by_n.items())
           for s, by_n in series.items()}
    xs = [n for p in pts.values() for n, _ in p]
    ys = [y for p in pts.values() for _, y in p if y > 0]
    xt, yt = ticks(min(xs), max(xs)), ticks(min(ys), max(ys))
    lx = lambda v: x0 + PAD + (math.log10(v) - math.log10(xt[0])) / (math.log10(xt[-1]) - math.log10(xt[0])) * (W - PAD - 34)  # noqa: E731,E501
    ly = lambda v: H - PAD + 10 - (math.log10(v) - math.log10(yt[0])) / (math.log10(yt[-1]) - math.log10(yt[0])) * (H - PAD - 20)  # noqa: E731,E501
    out = [f'<text x="{x0 + W / 2}" y="16" text-anchor="middle" font-weight="bold">{title}</text>']
    for t in xt:
        out.append(f'<line x1="{lx(t):.1f}" y1="{ly(yt[0]):.1f}" x2="{lx(t):.1f}" y2="{ly(yt[-1]):.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{lx(t):.1f}" y="{ly(yt[0]) + 16:.1f}" text-anchor="middle">{t:g}</text>')
    for t in yt:
        out.append(f'<line x1="{lx(xt[0]):.1f}" y1="{ly(t):.1f}" x2="{lx(xt[-1]):.1f}" y2="{ly(t):.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{lx(xt[0]) - 4:.1f}" y="{ly(t) + 4:.1f}" text-anchor="end">{t:g}</text>')
    out.append(f'<text x="{x0 + W / 2}" y="{H - 12}" text-anchor="middle">files (4 KiB each)</text>')
    labels = sorted({(s[1], s[2]) for s in pts})
    for (tool, label, form), p in sorted(pts.items()):
        path = " ".join(f"{lx(n):.1f},{ly(max(y, yt[0])):.1f}" for n, y in p)
        dash = DASHES[labels.index((label, form)) % len(DASHES)]
        out.append(f'<polyline points="{path}" fill="none" stroke="{COLOURS[tool]}" stroke-width="1.6"{dashed(dash)}/>')
    return out, labels


def plot(svg, files):
    series = {}
    for f in files:
        doc = json.loads(open(f).read())
        for r in doc["runs"]:
            series.setdefault((r["tool"], doc["label"], r["form"]), {}).setdefault(r["n"], []).append(r)
    left, labels = panel(0, "wall time (s)", series, "wall", 1)
    right, _ = panel(W, "peak RSS (MiB)", series, "rss_kib", 1 / 1024)
    legend = []
    for i, (tool, (label, form)) in enumerate((t, lf) for t in COLOURS for lf in labels):
        y = H + 14 + 16 * (i % len(labels))
        x = 20 + (i // len(labels)) * 260
        dash = DASHES[labels.index((label, form)) % len(DASHES)]
        legend.append(f'<line x1="{x}" y1="{y - 4}" x2="{x + 30}" y2="{y - 4}" stroke="{COLOURS[tool]}" '
                      f'stroke-width="1.6"{dashed(dash)}/>')
        legend.append(f'<text x="{x + 36}" y="{y}">{tool}, {label}, {form}</text>')
    height = H + 20 + 16 * len(labels)
    body = "\n".join(left + right + legend)
    open(svg, "w").write(f'<svg xmlns="http://www.w3.org/2000/svg" width="{2 * W}" height="{height}" '
                         f'font-family="sans-serif" font-size="11">\n<rect width="100%" height="100%" '
                         f'fill="white"/>\n{body}\n</svg>\n')


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dir", default=tempfile.gettempdir(), help="where the files go (default: $TMPDIR)")
    ap.add_argument("--label", default=None, help="what --dir is, for the table and the plot (default: its fs)")
    ap.add_argument("--sizes", default="100,1000,10000,100000")
    ap.add_argument("--forms", default="read-co,write-co,read")
    ap.add_argument("--pairs", type=int, default=5)
    ap.add_argument("--data", default=None, help="write every run here (JSON)")
    ap.add_argument("--plot", nargs="+", metavar=("SVG", "DATA"), help="draw SVG from DATA files, and stop")
    args = ap.parse_args()
    if args.plot:
        if len(args.plot) < 2:
            ap.error("--plot needs an SVG and at least one data file")
        plot(args.plot[0], args.plot[1:])
        return 0
    args.sizes = [int(s) for s in args.sizes.split(",")]
    args.forms = args.forms.split(",")
    unknown = [f for f in args.forms if f not in FORMS]
    if unknown or args.pairs < 1:
        ap.error(f"forms are {', '.join(FORMS)}; pairs at least 1")
    args.label = args.label or os.popen(f"stat -f -c %T {args.dir}").read().strip()
    when = datetime.datetime.now().isoformat(timespec="minutes")

    def save(runs):
        if args.data:
            with open(args.data, "w") as f:
                json.dump({"machine": machine(), "when": when, "label": args.label, "ioplan": IOPLAN,
                           "runs": runs}, f, indent=1)
    measure(args, save)
    return 0


if __name__ == "__main__":
    sys.exit(main())
