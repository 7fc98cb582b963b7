"""tests/e2e/test_report_plot_logs.py - `ioplan plot` of fio's log files, and fio's log tools on ioplan's logs.

A user with fio logs (from fio 3.33 or from ioplan) gets a chart with one
series per job and direction; checked on the data gnuplot was given (the .gp
script beside the chart: its data blocks and titles), not on pixels.  Logs
written on a clock (log_unix_epoch) line up on one time axis.  A malformed
line is `path:line: error:` and exit 2.

Then the tools people run on fio's logs, on ioplan's and on fio's logs of the
same rate-limited job: Debian's fio2gnuplot -b -g and fio_generate_plots make
the same files with numbers of the same size; fio 3.33's tools/fiologparser.py
fails on fio's own 3.33 logs (it unpacks 4 columns; fio 3.33 writes 5), and
fails the same way on ioplan's; with fio 3.34's one-line fix (commit 5f2a90b8:
read only the first two columns) it reads both.  The script is taken from
fio's source ($IOPLAN_FIO_SRC, default build/fio-src: `make fio-examples`).
"""
import os
import pathlib
import re
import resource
import shutil
import struct
import subprocess
import sys
import unittest
import zlib

from common import BIN, FIO, ROOT, VARIANT, TmpDirCase, run, run_fio, run_fio_session

JOB = ["--name=t", "--ioengine=null", "--rw=randrw", "--bs=4k", "--size=64m", "--rate_iops=400",
       "--time_based", "--runtime=2", "--numjobs=2", "--log_avg_msec=250", "--output=/dev/null"]
LOGS = ["--write_bw_log=t", "--write_iops_log=t", "--write_lat_log=t"]
FIO_SRC = pathlib.Path(os.environ.get("IOPLAN_FIO_SRC", ROOT / "build" / "fio-src"))
PARSER = FIO_SRC / "tools" / "fiologparser.py"


def script_panels(gp):
    """{panel title: {series title: [(x, y), ...]}} of a gnuplot script ioplan wrote."""
    text = pathlib.Path(gp).read_text()
    blocks = {m.group(1): [tuple(map(float, l.split())) for l in m.group(2).splitlines()]
              for m in re.finditer(r"^(\$d\d+) << EOD\n(.*?)^EOD\n", text, re.M | re.S)}
    panels = {}
    for m in re.finditer(r"^set title '([^']*)'\n(.*?)(?=^set title|\Z)", text, re.M | re.S):
        panels[m.group(1)] = {t: blocks[b] for b, t in re.findall(r"(\$d\d+) using 1:2 [^\n]* title '([^']*)'",
                                                                 m.group(2))}
    return panels


def script_series(gp):
    """{series title: points} over every panel (titles differ between the panels used)."""
    return {t: pts for panel in script_panels(gp).values() for t, pts in panel.items()}


def within(a, b, factor=2.0):
    return b / factor <= a <= b * factor


class PlotLogs(TmpDirCase):
    def make_logs(self, who):
        d = self.tmp / who
        d.mkdir()
        p = (run if who == "ioplan" else run_fio)(JOB + LOGS, cwd=d)
        self.assertEqual(p.returncode, 0, p.stderr)
        return d

    def check_chart(self, d):
        logs = sorted(str(p) for p in d.glob("t_*.log"))
        p = run(["plot", *logs, "-o", str(self.tmp / "c.svg")])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stderr, "")
        self.assertTrue((self.tmp / "c.svg").read_text().rstrip().endswith("</svg>"))
        panels = script_panels(self.tmp / "c.svg.gp")
        jobs = {f"t.{n} {d}" for n in (1, 2) for d in ("read", "write")}
        self.assertEqual(set(panels["Bandwidth over time"]), jobs)
        self.assertEqual(set(panels["IOPS over time"]), jobs)
        self.assertEqual(set(panels["Latency over time"]),  # a sync engine has no slat
                         {f"t.{n} {k} {d}" for n in (1, 2) for k in ("lat", "clat") for d in ("read", "write")})
        for panel in panels.values():
            for title, pts in panel.items():
                self.assertGreaterEqual(len(pts), 5, title)
                self.assertTrue(all(0 <= x <= 3 for x, _ in pts), pts)
        # rate_iops=400 holds each direction of a job to 400 IOPS of 4 KiB: 1.6384 MB/s
        for title, pts in panels["Bandwidth over time"].items():
            self.assertTrue(within(sorted(y for _, y in pts)[len(pts) // 2], 1.6384, 1.2), (title, pts))
        for title, pts in panels["IOPS over time"].items():
            self.assertTrue(within(sorted(y for _, y in pts)[len(pts) // 2], 400, 1.2), (title, pts))
        text = (self.tmp / "c.svg.gp").read_text()
        return text

    def test_logs_written_by_ioplan(self):
        self.check_chart(self.make_logs("ioplan"))

    @unittest.skipUnless(FIO, "fio not installed")
    def test_logs_written_by_fio(self):
        self.check_chart(self.make_logs("fio"))

    def test_a_directory_stands_for_its_logs(self):
        d = self.make_logs("ioplan")
        (d / "notes.txt").write_text("not a log\n")
        self.assertEqual(run(["plot", *sorted(map(str, d.glob("t_*.log"))), "-o", str(self.tmp / "a.svg")]).returncode, 0)
        p = run(["plot", str(d), "-o", str(self.tmp / "b.svg")])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(script_series(self.tmp / "a.svg.gp"), script_series(self.tmp / "b.svg.gp"))

    @unittest.skipUnless(FIO, "fio not installed")
    def test_compressed_logs_plot_as_their_text(self):
        # log_store_compressed's NAME_bw.1.log.fz was "not a JSON result document".
        d = self.tmp / "z"
        d.mkdir()
        # fio 3.33 itself once never ended this run (a fresh clone's make test: 120 s, then
        # killed); it takes 2.3 s.  A fio that hangs says nothing about ioplan: three tries.
        for _ in range(3):
            try:
                p = run_fio_session([*JOB, *LOGS, "--log_compression=64k", "--log_store_compressed=1"], d, timeout=30)
                break
            except subprocess.TimeoutExpired:
                for f in d.iterdir():
                    f.unlink()
        else:
            self.skipTest("fio 3.33 did not end its compressed-log run within 30 s, three times")
        self.assertEqual(p.returncode, 0, p.stderr)
        packed = sorted(d.glob("t_*.log.fz"))
        self.assertEqual(len(packed), 10)  # bw, iops, lat, clat and slat (empty: a sync engine) of two jobs
        for f in packed:
            (self.tmp / f.name[:-3]).write_text(run_fio([f"--inflate-log={f}"]).stdout)
        p = run(["plot", *map(str, packed), "-o", str(self.tmp / "z.svg")])
        self.assertEqual(p.returncode, 0, p.stderr)
        p = run(["plot", *sorted(str(f) for f in self.tmp.glob("t_*.log")), "-o", str(self.tmp / "t.svg")])
        self.assertEqual(p.returncode, 0, p.stderr)
        strip = lambda series: {re.sub(r"^.*/", "", t): pts for t, pts in series.items()}  # noqa: E731
        self.assertEqual(strip(script_series(self.tmp / "z.svg.gp")), strip(script_series(self.tmp / "t.svg.gp")))
        self.assertGreaterEqual(len(script_series(self.tmp / "z.svg.gp")), 8)
        self.assertEqual(set(script_panels(self.tmp / "z.svg.gp")),
                         {"Bandwidth over time", "IOPS over time", "Latency over time"})
        p = run(["plot", str(d), "-o", str(self.tmp / "dir.svg")])  # a directory's .fz logs are its logs
        self.assertEqual(p.returncode, 0, p.stderr)
        bad = self.write("x_bw.1.log.fz", "not deflated\n")
        p = run(["plot", str(bad), "-o", str(self.tmp / "b.svg")])
        self.assertEqual(p.returncode, 2)
        self.assertIn(f"{bad}: not a compressed log", p.stderr)

    @unittest.skipIf(VARIANT != "release", "a sanitizer reserves terabytes of address space: no RLIMIT_AS lets it start")
    def test_a_stream_that_inflates_to_gigabytes_costs_a_buffer(self):
        # zlib packs zeros a thousand to one: a 0.6 MiB .fz holds 640 MiB of samples.
        # Each stream was inflated whole before its text was made: 423 MB to print
        # the 256 MiB one, and a plot of a 2 GiB one took 4 GB for 43 s.
        def packed(name, mib):
            # A zlib stream of mib MiB of zeros, built rather than deflated whole (2 s of
            # CPU for the 768 MiB): after a full flush the deflater starts afresh, so each
            # further MiB is the same bytes; the trailer is the Adler-32 of n zeros,
            # (n mod 65521) << 16 | 1.
            z = zlib.compressobj(9)
            first = z.compress(bytes(1 << 20)) + z.flush(zlib.Z_FULL_FLUSH)
            again = z.compress(bytes(1 << 20)) + z.flush(zlib.Z_FULL_FLUSH)
            end = z.flush()[:-4] + struct.pack(">I", ((mib << 20) % 65521) << 16 | 1)
            path = self.tmp / name
            path.write_bytes(first + again * (mib - 1) + end)
            return path

        def limited(mib):
            return lambda: resource.setrlimit(resource.RLIMIT_AS, (mib << 20, mib << 20))

        small = packed("s_bw.1.log.fz", 128)
        p = subprocess.run([BIN, f"--inflate-log={small}"], capture_output=True, timeout=120,
                           preexec_fn=limited(96))
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(len(p.stdout), (128 << 20) // 32 * len(b"0, 0, 0, 0, 0\n"))
        # Every line "0, 0, 0, 0, 0": compared whole, not split into 4 Mi lines.
        self.assertTrue(p.stdout == b"0, 0, 0, 0, 0\n" * ((128 << 20) // 32), p.stdout[:200])
        big = packed("b_bw.1.log.fz", 640)   # 280 MiB of text, over plot's 256 MiB
        p = subprocess.run([BIN, "plot", str(big), "-o", str(self.tmp / "b.svg")], capture_output=True, text=True,
                           timeout=120, preexec_fn=limited(1024))
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn(f"{big}: inflated, its text is larger than 256 MiB", p.stderr)

    def test_clock_logs_line_up(self):
        # two hosts' logs of one job, written with log_unix_epoch: host b started 5 s later
        for host, start in (("a", 1795530883000), ("b", 1795530888000)):
            self.write(f"{host}/j_bw.1.log", "".join(f"{start + 1000 * k}, {1000 * (k + 1)}, 0, 4096, 0\n"
                                                      for k in range(3)))
        p = run(["plot", str(self.tmp / "a"), str(self.tmp / "b"), "-o", str(self.tmp / "c.svg")])
        self.assertEqual(p.returncode, 0, p.stderr)
        s = script_series(self.tmp / "c.svg.gp")
        a, b = s[f"{self.tmp}/a/j.1 read"], s[f"{self.tmp}/b/j.1 read"]
        self.assertEqual([x for x, _ in a], [0, 1, 2])
        self.assertEqual([x for x, _ in b], [5, 6, 7])
        self.assertEqual([y for _, y in a], [1.024, 2.048, 3.072])  # KiB/s -> MB/s

    def test_real_unix_epoch_logs_start_near_zero(self):
        p = run(["--name=e", "--ioengine=null", "--size=1m", "--rate_iops=50", "--time_based", "--runtime=1",
                 "--write_iops_log=e", "--log_unix_epoch=1", "--log_avg_msec=200", "--output=/dev/null"], cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertGreater(int((self.tmp / "e_iops.1.log").read_text().split(",")[0]), 1e12)
        self.assertEqual(run(["plot", str(self.tmp / "e_iops.1.log"), "-o", str(self.tmp / "c.svg")]).returncode, 0)
        xs = [x for x, _ in script_series(self.tmp / "c.svg.gp")["e.1 read"]]
        self.assertEqual(xs[0], 0)
        self.assertLess(xs[-1], 3)

    def test_per_io_logs_are_thinned_to_2000_points(self):
        self.write("p_clat.1.log", "".join(f"{k // 10}, {1000 + k % 7}, 0, 4096, 0\n" for k in range(50000)))
        self.assertEqual(run(["plot", str(self.tmp / "p_clat.1.log"), "-o", str(self.tmp / "c.svg")]).returncode, 0)
        pts = script_series(self.tmp / "c.svg.gp")["p.1 clat read"]
        self.assertLessEqual(len(pts), 2000)
        self.assertGreater(len(pts), 1000)
        self.assertTrue(all(1.0 <= y <= 1.006 for _, y in pts))  # ns -> us, means of 1000..1006

    def test_bad_logs(self):
        bad = self.write("x_bw.1.log", "10, 20, 0, 4096, 0\n20, x, 0, 4096, 0\n")
        cases = [
            ([str(bad)], f"{bad}:2: error: field 2 (value) is not a whole number: 'x'"),
            ([str(self.write("y_bw.1.log", "10, 20, 0\n"))], "y_bw.1.log:1: error: 3 fields where fio's log lines have 4 to 6"),
            ([str(self.write("z_iops.log", "10, 20, 5, 4096, 0\n"))], "z_iops.log:1: error: ddir 5 is not 0 (read), 1 (write) or 2 (trim)"),
            ([str(self.write("ok_bw.1.log", "10, 20, 0, 4096, 0\n")), str(self.write("results.txt", "10, 20, 0, 4096\n"))], "results.txt: error: not a fio log file name"),
            ([str(self.tmp / "results.txt")], "results.txt:1:3: error: not a JSON result document"),
            ([str(self.write("r.json", "{}")), str(bad)], "one JSON result at a time, or fio log files"),
            ([str(self.write("empty/readme", ""))[:-len("/readme")]], "no fio log files"),
        ]
        for args, msg in cases:
            with self.subTest(args=args):
                p = run(["plot", *args, "-o", str(self.tmp / "c.svg")])
                self.assertEqual(p.returncode, 2, p.stderr)
                self.assertIn(msg, p.stderr)
                self.assertFalse((self.tmp / "c.svg").exists())

    def test_a_job_option_is_refused_not_ignored(self):
        """`ioplan plot r.json --bs=4k -o c.svg` drew the chart, exit 0, the option taken
        and ignored: plot runs no job, so a job option is a mistake to say."""
        d = self.make_logs("ioplan")
        logs = sorted(str(p) for p in d.glob("t_*.log"))
        for extra, says in ((["--bs=4k"], "--bs"), (["--name=x"], "--name=x")):
            p = run(["plot", *logs, *extra, "-o", str(self.tmp / "c.svg")])
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertIn(f"ioplan plot: error: {says}: a job option, and ioplan plot runs no job", p.stderr)
            self.assertFalse((self.tmp / "c.svg").exists())


def numbers(path):
    """The numbers an SVG chart prints (axis tick labels)."""
    return [float(v) for v in re.findall(r">\s*(-?[0-9.]+)\s*</tspan>", pathlib.Path(path).read_text())]


def steady(d, kind):
    """Whether every window of d's kind logs stays within 1.5 times of their median."""
    values = sorted(float(ln.split(",")[1]) for f in d.glob(f"t_{kind}.*.log")
                    for ln in f.read_text().splitlines() if ln.strip())
    if not values:
        return False
    mid = values[len(values) // 2]
    return mid > 0 and values[0] >= mid / 1.5 and values[-1] <= mid * 1.5


@unittest.skipUnless(FIO, "fio not installed")
class FioLogTools(TmpDirCase):
    """Each tool runs on ioplan's logs and on fio's of the same job."""

    def logs(self):
        for who, runner in (("ioplan", run), ("fio", run_fio)):
            d = self.tmp / who
            d.mkdir()
            p = runner(JOB + LOGS, cwd=d)
            self.assertEqual(p.returncode, 0, p.stderr)
        return self.tmp / "ioplan", self.tmp / "fio"

    @unittest.skipUnless(shutil.which("fio2gnuplot"), "fio2gnuplot (Debian's fio) not installed")
    def test_fio2gnuplot(self):
        glob = {}
        for d in self.logs():
            p = subprocess.run(["fio2gnuplot", "-b", "-g", "-k"], cwd=d, capture_output=True, text=True, timeout=300)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            for f in ("t_bw.1-2Draw.png", "t_bw.2-2Draw.png", "compare-result-2Draw.png", "result.average.png"):
                self.assertTrue((d / f).stat().st_size > 1000, f)
            glob[d.name] = dict(l.split("=") for l in (d / "result.global").read_text().split())
        io, fio = glob["ioplan"], glob["fio"]
        self.assertEqual(io["disks_count"], "2")
        self.assertTrue(within(float(io["avg"]), float(fio["avg"])), (io, fio))
        self.assertTrue(within(int(io["values_count"]), int(fio["values_count"])), (io, fio))

    @unittest.skipUnless(shutil.which("fio_generate_plots") and shutil.which("gnuplot"), "fio_generate_plots not installed")
    def test_fio_generate_plots(self):
        charts = {}
        for d in self.logs():
            p = subprocess.run(["fio_generate_plots", "T"], cwd=d, capture_output=True, text=True, timeout=300)
            self.assertEqual(p.returncode, 0, p.stderr)
            charts[d.name] = {k: d / f"T-{k}.svg" for k in ("bw", "iops", "lat", "clat", "slat")}
        titles = lambda svg: re.findall(r"<title>Queue depth ([^<]*)</title>", svg.read_text())
        for k, svg in charts["ioplan"].items():
            with self.subTest(kind=k):
                self.assertEqual(titles(svg), titles(charts["fio"][k]))
                if k != "slat":  # a sync engine has no submission latency: both logs are empty
                    self.assertEqual(titles(svg), ["t.1", "t.2"])
                    # The charts' scales agree when both tools kept the rate: a window of a
                    # process held off the CPU, then catching up, reads twice the rate and
                    # moves the axis (seen at load 7).
                    if k in ("bw", "iops") and not all(steady(d, k) for d in (self.tmp / "ioplan", self.tmp / "fio")):
                        continue
                    self.assertTrue(within(max(numbers(svg)), max(numbers(charts["fio"][k]))))

    @unittest.skipUnless(PARSER.is_file(), f"no {PARSER} (make fio-examples)")
    def test_fiologparser(self):
        io, fio = self.logs()
        files = lambda d: [str(d / "t_bw.1.log"), str(d / "t_bw.2.log")]
        as_333 = [subprocess.run([sys.executable, str(PARSER), "-s", *files(d)], capture_output=True, text=True)
                  for d in (io, fio)]
        for p in as_333:  # fio 3.33's script and fio 3.33's 5-column lines: the same failure for both
            self.assertNotEqual(p.returncode, 0)
            self.assertIn("ValueError: too many values to unpack (expected 4)", p.stderr)
        fixed = self.tmp / "fiologparser.py"
        fixed.write_text(PARSER.read_text().replace(
            "(time, value, foo, bar) = line.rstrip('\\r\\n').rsplit(', ')",
            "(time, value) = line.rstrip('\\r\\n').rsplit(', ')[:2]"))
        sums = {}
        for d in (io, fio):
            p = subprocess.run([sys.executable, str(fixed), "-s", "-i", "500", *files(d)], capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, p.stderr)
            rows = [l.split(", ") for l in p.stdout.splitlines()]
            self.assertGreaterEqual(len(rows), 3, p.stdout)
            sums[d.name] = sorted(float(v) for _, v in rows)[len(rows) // 2]
        self.assertTrue(within(sums["ioplan"], sums["fio"]), sums)
        # two files, each 1600 KiB/s (400 IOPS of 4 KiB) in each direction
        self.assertTrue(within(sums["ioplan"], 2 * 1600, 1.2), sums)
