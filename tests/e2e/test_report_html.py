"""tests/e2e/test_report_html.py - the HTML results page, opened in a real browser.

Real runs make the results; `ioplan report` and --output-format=html draw the
page; Debian's Chromium opens it headless inside a network namespace with no
interface up (so nothing could be fetched).  The tests read the DOM the
browser built and check every figure the page shows against the JSON it came
from, measure each chart's marks as laid out (a probe script added to a copy
of the page, never to the page itself), check that the screenshot is not
blank, and keep the page's structure against a golden skeleton.  Without a
browser or unshare(1) they skip, saying why.
"""
import html.parser
import json
import os
import pathlib
import re
import shutil
import subprocess
import unittest

from common import FIO, ROOT, TmpDirCase, run
from test_mpi import MPIRUN, mpirun

CHROMIUM = shutil.which("chromium")
UNSHARE = shutil.which("unshare")
GOLDEN = ROOT / "tests" / "golden" / "presets" / "html-structure.txt"
SCREENSHOT_DIR = os.environ.get("IOPLAN_SCREENSHOT_DIR")  # set to keep the screenshots (README's picture)

PROBE = """<script>
(function () {
  var out = [];
  document.querySelectorAll("figure.chart").forEach(function (f) {
    var marks = f.querySelectorAll("rect.bar, circle.mark, polyline.line"), drawn = 0;
    marks.forEach(function (m) { var b = m.getBBox(); if (b.width > 0 || b.height > 0) drawn++; });
    out.push({id: f.id, marks: marks.length, drawn: drawn});
  });
  var pre = document.createElement("pre"); pre.id = "probe"; pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>"""


def browser(args, profile, timeout=90):
    """Headless chromium without a network; profile: its user data directory, inside
    the test's own so that nothing of it outlives the test."""
    cmd = [UNSHARE, "-n", CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
           "--no-first-run", f"--user-data-dir={profile}", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)


class Dom(html.parser.HTMLParser):
    """Figures (data-key, data-value), the skeleton, and the probe's text."""

    SKELETON_TAGS = {"h1", "h2", "h3", "section", "table", "caption", "figure", "svg", "title", "desc"}

    def __init__(self):
        super().__init__()
        self.figures, self.skeleton, self.probe, self._in_probe = [], [], "", False
        self.tags = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append(tag)
        if "data-key" in a:
            self.figures.append((a["data-key"], float(a["data-value"])))
        if tag in self.SKELETON_TAGS:
            self.skeleton.append(" ".join(x for x in (tag, a.get("id", ""), a.get("class", "")) if x))
        self._in_probe = a.get("id") == "probe"

    def handle_data(self, data):
        if self._in_probe:
            self.probe += data


def json_at(doc, key):
    """The value at a dotted data-key; a dotted key of its own ("99.000000") wins."""
    parts, node = key.split("."), doc
    while parts:
        whole = ".".join(parts)
        if isinstance(node, dict) and whole in node:
            return node[whole]
        p = parts.pop(0)
        node = node[int(p)] if isinstance(node, list) else node[p]
    return node


@unittest.skipUnless(CHROMIUM and UNSHARE, "needs Debian's chromium and unshare(1) (make deps installs chromium)")
class Page(TmpDirCase):
    RUN = ["--preset=default", "--runtime=0.3s"]

    def result(self, name):
        p = run([*self.RUN, f"--directory={self.tmp}", "--output-format=json", f"--output={self.tmp / name}"])
        self.assertEqual(p.returncode, 0, p.stderr)
        return json.loads((self.tmp / name).read_text())

    def page(self, *results, out="page.html"):
        p = run(["report", *[str(self.tmp / r) for r in results], "-o", str(self.tmp / out)])
        self.assertEqual(p.returncode, 0, p.stderr)
        return self.tmp / out

    def dom(self, page, probe=False):
        if probe:
            probed = page.with_name("probed-" + page.name)
            probed.write_text(page.read_text().replace("</body>", PROBE + "</body>"))
            page = probed
        p = browser(["--dump-dom", page.as_uri()], self.tmp / "profile")
        self.assertEqual(p.returncode, 0, p.stderr[-2000:])
        d = Dom()
        d.feed(p.stdout)
        return d

    def screenshot(self, page, name):
        png = self.tmp / name
        p = browser(["--window-size=1200,2400", f"--screenshot={png}", page.as_uri()], self.tmp / "profile")
        self.assertTrue(png.exists(), p.stderr[-2000:])
        if SCREENSHOT_DIR:
            shutil.copy(png, pathlib.Path(SCREENSHOT_DIR) / name)
        return png

    def assert_not_blank(self, png):
        from PIL import Image  # python3-pil, installed by make deps
        img = Image.open(png).convert("RGB")
        colours = img.getcolors(maxcolors=1 << 20) or []
        ink = sum(n for n, c in colours if sum(c) < 600)
        self.assertGreater(len(colours), 50, "the screenshot has almost no colours")
        self.assertGreater(ink / (img.width * img.height), 0.01, "the screenshot is nearly all white")

    def test_figures_in_the_page_equal_the_json(self):
        doc = self.result("a.json")
        d = self.dom(self.page("a.json"))
        self.assertGreater(len(d.figures), 20)
        for key, value in d.figures:
            with self.subTest(key=key):
                self.assertAlmostEqual(value, float(json_at(doc, key)), delta=abs(value) * 1e-12)
        keys = {k for k, _ in d.figures}
        for i, job in enumerate(doc["jobs"]):
            d_name = "read" if job["jobname"].endswith("READ") else "write"
            self.assertIn(f"jobs.{i}.{d_name}.iops", keys)

    def test_each_chart_draws_its_marks_and_the_screenshot_is_not_blank(self):
        self.result("a.json")
        page = self.page("a.json")
        probe = json.loads(self.dom(page, probe=True).probe)
        ids = {c["id"].rsplit("-", 1)[0] for c in probe}
        self.assertTrue({"bw", "iops", "lat"} <= ids, probe)
        for chart in probe:
            with self.subTest(chart=chart["id"]):
                self.assertGreater(chart["marks"], 0)
                self.assertEqual(chart["drawn"], chart["marks"], "a mark with no size")
        self.assert_not_blank(self.screenshot(page, "report-page.png"))

    def test_self_contained_small_and_accessible(self):
        self.result("a.json")
        text = self.page("a.json").read_text()
        self.assertLess(len(text.encode()), 1 << 20)
        self.assertNotIn("<script", text)
        for attr in (" src=", " href=", "url(", "@import"):
            self.assertNotIn(attr, text)
        self.assertEqual(text.count("<svg"), text.count("<title id="))
        self.assertEqual(text.count("<svg"), text.count("<desc id="))
        self.assertIn('<th scope="col">', text)

    def test_a_runs_own_page_and_the_structure_golden(self):
        p = run([*self.RUN, "--ioengine=null", "--fake-clock=1000", f"--directory={self.tmp}",
                 "--output-format=html", f"--output={self.tmp / 'run.html'}"])
        self.assertEqual(p.returncode, 0, p.stderr)
        d = self.dom(self.tmp / "run.html")
        skeleton = "\n".join(d.skeleton) + "\n"
        if os.environ.get("IOPLAN_GOLDEN_UPDATE") == "1":
            GOLDEN.write_text(skeleton)
        self.assertEqual(skeleton, GOLDEN.read_text())
        self.assertIn("table cdm-0 cdm", d.skeleton)

    def test_two_runs_side_by_side(self):
        a, b = self.result("a.json"), self.result("b.json")
        page = self.page("a.json", "b.json", out="compare.html")
        d = self.dom(page)
        self.assertIn("table comparison", d.skeleton)
        self.assertIn("section", d.tags)
        text = page.read_text()
        for doc in (a, b):
            for job in doc["jobs"]:
                self.assertIn(job["jobname"], text)
        self.assertRegex(text, r'<td class="(better|worse|)" data-verdict="[^"]+">[+-][0-9.]+%, [^<]+</td>')
        self.assert_not_blank(self.screenshot(page, "report-compare.png"))

    def test_stored_runs_draw_the_same_page(self):
        env = {"IOPLAN_RESULTS_DB": str(self.tmp / "results.db")}
        for label in ("before", "after"):
            # Rate-limited: the page's figures and series are what is checked, and an
            # unlimited time-based null job spins a core for its whole runtime.
            p = run(["--name=s", "--ioengine=null", "--rw=randread", "--size=64m", "--time_based", "--runtime=2",
                     "--rate_iops=2000", f"--save={label}", "--output-format=terse"], cwd=self.tmp, env=env)
            self.assertEqual(p.returncode, 0, p.stderr)
        page = self.tmp / "stored.html"
        p = run(["results", "report", "before", "after", f"--output={page}"], env=env)
        self.assertEqual(p.returncode, 0, p.stderr)
        d = self.dom(page)
        self.assertIn("table comparison", d.skeleton)
        stored = json.loads(run(["results", "show", "before", "--output-format=json"], env=env).stdout)
        figures = {}
        for key, value in d.figures:  # the first result's section comes first
            figures.setdefault(key, value)
        self.assertAlmostEqual(figures["jobs.0.read.iops"], stored["figures"][0]["iops"], delta=1e-6)
        self.assertAlmostEqual(figures["jobs.0.read.bw_bytes"], stored["figures"][0]["bw_bytes"], delta=1e-3)
        self.assertIn("figure time-0 chart", d.skeleton)  # the per-interval series came back from the store
        p = run(["results", "report", "nosuch"], env=env)
        self.assertEqual(p.returncode, 2)
        self.assertIn("no run 'nosuch'", p.stderr)

    @unittest.skipUnless(FIO, "fio is not installed")
    def test_a_stored_fio_json_run_shows_the_latency_it_recorded(self):
        """An fio json file (no bins) keeps its mean, p50, p99 and p99.9 in the store,
        which `results show` prints: the page of the stored run showed "-" for each."""
        out = self.tmp / "fio.json"
        p = subprocess.run([FIO, "--name=f", "--ioengine=null", "--rw=read", "--size=16m", "--output-format=json",
                            f"--output={out}"], capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        doc = json.loads(out.read_text())
        db = self.tmp / "results.db"
        self.assertEqual(run(["results", "import", str(out), f"--results-db={db}"]).returncode, 0)
        page = self.tmp / "stored.html"
        p = run(["results", "report", "1", "1", f"--results-db={db}", f"--output={page}"])
        self.assertEqual(p.returncode, 0, p.stderr)
        figures = dict(self.dom(page).figures)
        for key in ("jobs.0.read.clat_ns.mean", "jobs.0.read.clat_ns.percentile.50.000000",
                    "jobs.0.read.clat_ns.percentile.99.000000", "jobs.0.read.clat_ns.percentile.99.900000"):
            with self.subTest(key=key):
                self.assertIn(key, figures)
                self.assertAlmostEqual(figures[key], float(json_at(doc, key)), delta=1e-6)
        p99 = json_at(doc, "jobs.0.read.clat_ns.percentile.99.000000") / 1e3
        us = "%.3f" % p99 if p99 < 1 else "%.2f" % p99  # under 1 us to the nanosecond, as results show
        self.assertIn(f'<td class="l">p99 (us)</td><td>{us}</td><td>{us}</td>', page.read_text())

    def test_a_broken_result_is_refused_with_its_position(self):
        self.write("bad.json", '{"jobs": [\n  {"jobname": }\n]}')
        p = run(["report", str(self.tmp / "bad.json"), "-o", str(self.tmp / "x.html")])
        self.assertEqual(p.returncode, 2)
        self.assertRegex(p.stderr, r"bad\.json:2:\d+: error: not a JSON result document")
        self.assertFalse((self.tmp / "x.html").exists())
        self.write("nojobs.json", '{"fio version": "fio-3.33"}')
        p = run(["report", str(self.tmp / "nojobs.json")])
        self.assertEqual(p.returncode, 2)
        self.assertIn("no \"jobs\" array", p.stderr)
        # No job at all drew a page of empty tables saying "Caveats: None found.", exit 0.
        good = self.tmp / "good.json"
        self.assertEqual(run(["--name=g", "--ioengine=null", "--size=1m", "--output-format=json",
                              f"--output={good}"]).returncode, 0)
        self.write("empty.json", '{"fio version": "fio-3.33", "jobs": []}')
        for args in ([str(self.tmp / "empty.json")], [str(good), str(self.tmp / "empty.json")]):
            p = run(["report", *args, "-o", str(self.tmp / "e.html")])
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertIn("empty.json: the result holds no jobs: nothing to report", p.stderr)
            self.assertFalse((self.tmp / "e.html").exists())


    def test_what_report_would_not_use_is_refused(self):
        """`ioplan report r.json --output-format=normal` wrote the HTML page all the same,
        exit 0, and a job option (--bs=4k, --name=x) was taken and ignored."""
        good = self.tmp / "good.json"
        self.assertEqual(run(["--name=g", "--ioengine=null", "--size=1m", "--output-format=json",
                              f"--output={good}"]).returncode, 0)
        page = self.tmp / "p.html"
        for extra, says in ((["--output-format=normal"], "--output-format=normal: ioplan report draws the HTML page only"),
                            (["--output-format=json"], "--output-format=json: ioplan report draws the HTML page only"),
                            (["--bs=4k"], "--bs: a job option, and ioplan report runs no job"),
                            (["--name=x"], "--name=x: a job option, and ioplan report runs no job")):
            p = run(["report", str(good), *extra, "-o", str(page)])
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertIn("ioplan report: error: " + says, p.stderr)
            self.assertFalse(page.exists())
        p = run(["report", str(good), "--output-format=html", "-o", str(page)])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertTrue(page.read_text().startswith("<!DOCTYPE html>"))


class SameNamedJobs(TmpDirCase):
    """Clones of numjobs=N share their job's name: the page numbers them and compares
    each with its own counterpart (the i-th job of that name in the other run)."""

    JOB = "[global]\nioengine=null\nsize=1m\nrw=randread\n[a]\nnumjobs=3\n[b]\nbs=8k\n"

    def result(self, name, iops):
        """A real run's result, each job's read IOPS then set to iops[k]: clones of one
        job run alike, and a row matched with the wrong clone must show another number."""
        job = self.write(f"{name}.fio", self.JOB)
        p = run([str(job), "--output-format=json"])
        self.assertEqual(p.returncode, 0, p.stderr)
        doc = json.loads(p.stdout)
        for k, j in enumerate(doc["jobs"]):
            j["read"]["iops"] = iops[k]
        (self.tmp / f"{name}.json").write_text(json.dumps(doc))
        return doc["jobs"]

    def test_each_clone_is_compared_with_its_counterpart(self):
        self.result("x", [101.0, 102.0, 103.0, 104.0])
        self.result("y", [201.0, 202.0, 203.0, 204.0])
        page = self.tmp / "page.html"
        p = run(["report", str(self.tmp / "x.json"), str(self.tmp / "y.json"), "-o", str(page)])
        self.assertEqual(p.returncode, 0, p.stderr)
        text = page.read_text()
        rows = re.findall(r'<tr><th scope="row">([^<]+)</th><td class="l">read</td><td class="l">IOPS</td>'
                          r'<td>([0-9.]+)</td><td>([0-9.]+)</td>', text)
        self.assertEqual(rows, [("a #1", "101.00", "201.00"), ("a #2", "102.00", "202.00"),
                                ("a #3", "103.00", "203.00"), ("b", "104.00", "204.00")])
        # Each run's own table numbers its clones the same way.
        own = re.findall(r'<tr><th scope="row">([^<]+)</th><td class="l">read</td><td data-key="jobs\.(\d)\.read'
                         r'\.iops" data-value="([0-9.]+)"', text)
        self.assertEqual(own, [("a #1", "0", "101"), ("a #2", "1", "102"), ("a #3", "2", "103"), ("b", "3", "104"),
                               ("a #1", "0", "201"), ("a #2", "1", "202"), ("a #3", "2", "203"), ("b", "3", "204")])


class SubMicrosecondLatency(TmpDirCase):
    """A null engine's I/O takes tens of nanoseconds: the page printed every latency
    with "%.2f" us, so 20 ns was 0.02 and one under 5 ns 0.00, which reads as nothing
    measured, where `results show` prints 0.020 (c9650ece).  The page now follows
    show's rule in its tables, the comparison, the chart's ticks and tooltips."""

    def test_the_page_prints_latencies_as_results_show_does(self):
        db, res = self.tmp / "r.db", self.tmp / "n.json"
        p = run(["--name=n", "--ioengine=null", "--rw=randread", "--size=4m", "--save=x", f"--results-db={db}",
                 "--output-format=json", f"--output={res}"])
        self.assertEqual(p.returncode, 0, p.stderr)
        show = run(["results", "show", "1", f"--results-db={db}"])
        self.assertEqual(show.returncode, 0, show.stderr)
        line = re.search(r"^n\s+read\s+\S+\s+\S+\s+(\S+)\s+(\S+)\s+(\S+)$", show.stdout, re.M)
        self.assertTrue(line, show.stdout)
        self.assertRegex(line[1], r"^0\.0\d\d$")  # tens of nanoseconds, the case in point
        pages = {"stored": ["results", "report", "1", "1", f"--results-db={db}"], "file": ["report", str(res), str(res)]}
        for name, args in pages.items():
            with self.subTest(page=name):
                page = self.tmp / f"{name}.html"
                p = run([*args, f"--output={page}"])
                self.assertEqual(p.returncode, 0, p.stderr)
                text = page.read_text()
                t = Tables()
                t.feed(text)
                row = t.tables["summary-0"][1]
                if name == "stored":  # the same run, the same figures, the same text
                    self.assertEqual(row[6:9], list(line.groups()))
                doc = json.loads(res.read_text()) if name == "file" else None
                for cell in row[5:9]:
                    self.assertRegex(cell, r"^0\.\d{3}$")  # under 1 us: whole nanoseconds
                if doc:
                    p99 = doc["jobs"][0]["read"]["clat_ns"]["percentile"]["99.000000"]
                    self.assertEqual(row[7], "%.3f" % (p99 / 1e3))
                cmp_p99 = [r for r in t.tables["comparison"] if r[2:3] == ["p99 (us)"]][0]
                self.assertEqual(cmp_p99[3:5], [row[7], row[7]])
                chart = text[text.index('id="lat-0"'):]
                chart = chart[:chart.index("</figure>")]
                ticks = re.findall(r'<text class="tick"[^>]*text-anchor="end">([0-9.e+]+)</text>', chart)
                self.assertTrue(ticks, chart[:2000])
                for tick in ticks:
                    if float(tick) < 1:
                        self.assertRegex(tick, r"^0\.\d{3}$")
                self.assertIn(f"<title>n read p99: {row[7]} us</title>", chart)


class StoredPage(TmpDirCase):
    """The page of a stored run recomputed its percentiles from the buckets at the
    nearest rank (99.9% of 1536 I/Os: the 1534th) where the run's own report, fio
    and `results show` take the first bucket whose count reaches 99.9% (the
    1535th): 'results report 1' said p99.9 2.22 us where the page of the run's
    JSON said 2.96.  Both pages now show the same figures (but above p99.9, which
    the run's report clamps to a largest latency the store does not keep)."""

    def test_the_stored_runs_page_shows_the_figures_of_its_own_json(self):
        db, own = self.tmp / "r.db", self.tmp / "own.json"
        p = run(["--name=s", "--ioengine=null", "--rw=randread", "--size=6m", "--save=s", f"--results-db={db}",
                 "--output-format=json", f"--output={own}"])  # 1536 I/Os
        self.assertEqual(p.returncode, 0, p.stderr)
        pages = []
        for args in (["report", str(own)], ["results", "report", "1", f"--results-db={db}"]):
            page = self.tmp / "page.html"
            p = run([*args, f"--output={page}"])
            self.assertEqual(p.returncode, 0, p.stderr)
            text = page.read_text()
            t = Tables()
            t.feed(text)
            tips = re.findall(r"<title>s read p([0-9.]+): ([0-9.]+) us</title>", text)
            self.assertEqual(len(tips), 17)  # fio's percentile list, a tooltip each
            # Above p99.9 the run's report clamps to its largest latency, which the store does not keep.
            pages.append((t.tables["summary-0"], [tip for tip in tips if float(tip[0]) <= 99.9]))
        self.assertEqual(pages[1], pages[0])


class PercentileTicks(TmpDirCase):
    """The latency chart's x axis spans the percentiles a job reports; its ticks
    p50 .. p99.99 past them (percentile_list=50:90, fio's json of p50, p99 and
    p99.9 stored) were clamped onto the axis's end, "p90", "p99", "p99.9" and
    "p99.99" drawn over one another there."""

    def test_only_the_reported_percentiles_are_ticked(self):
        for plist, ticks in (("50:90", ["p50", "p90"]), ("50:99:99.9", ["p50", "p90", "p99", "p99.9"])):
            with self.subTest(percentile_list=plist):
                page = self.tmp / "page.html"
                p = run(["--name=p", "--ioengine=null", "--rw=randread", "--size=1m", f"--percentile_list={plist}",
                         "--output-format=html", f"--output={page}"])
                self.assertEqual(p.returncode, 0, p.stderr)
                text = page.read_text()
                chart = text[text.index('id="lat-0"'):]
                chart = chart[:chart.index("</figure>")]
                drawn = re.findall(r'<text class="tick" x="([0-9.]+)" y="\d+" text-anchor="middle">(p[0-9.]+)</text>',
                                   chart)
                self.assertEqual([t for _, t in drawn], ticks)
                self.assertEqual(len({x for x, _ in drawn}), len(drawn), drawn)  # none drawn over another


class ComparisonVerdicts(TmpDirCase):
    """The comparison coloured each change by its sign alone: fio's file holds no
    per-interval samples, and +0.9% against it was green as surely as a change
    beyond any noise, where `ioplan compare` says "not judged: noise unknown"
    (84923219).  Each change now carries compare's own verdict on the same two
    runs, and only faster (green) and slower (red) are coloured."""

    JOB = ["--name=j", "--ioengine=null", "--rw=randread", "--size=64m", "--time_based", "--runtime=2"]
    ROW = re.compile(r'<tr><th scope="row">([^<]+)</th><td class="l">(\w+)</td><td class="l">([^<]+)</td>'
                     r'<td>[^<]*</td><td>[^<]*</td><td class="(\w*)" data-verdict="([^"]*)">([^<]*)</td></tr>')
    METRIC = {"IOPS": "iops", "MB/s": "bw_bytes", "p99 (us)": "p99_ns"}

    def make(self, name, rate, db=None):
        out = self.tmp / name
        save = [f"--save={name}", f"--results-db={db}"] if db else []
        p = run([*self.JOB, f"--rate_iops={rate}", *save, "--output-format=json", f"--output={out}"])
        self.assertEqual(p.returncode, 0, p.stderr)
        return str(out)

    def assert_same_verdicts(self, page_args, compare_args):
        page = self.tmp / "page.html"
        p = run([*page_args, f"--output={page}"])
        self.assertEqual(p.returncode, 0, p.stderr)
        c = run(["compare", *compare_args, "--output-format=json"])
        self.assertEqual(c.returncode, 0, c.stderr)
        said = {(m["job"], m["ddir"], m["metric"]): m["verdict"] for m in json.loads(c.stdout)["metrics"]}
        rows = self.ROW.findall(page.read_text())
        self.assertEqual(len(rows), 3, page.read_text()[-3000:])
        for job, ddir, figure, cls, verdict, text in rows:
            with self.subTest(args=compare_args, figure=figure):
                self.assertEqual(verdict, said[(job, ddir, self.METRIC[figure])])
                self.assertTrue(text.endswith(", " + verdict), text)
                self.assertEqual(cls, {"faster": "better", "slower": "worse"}.get(verdict, ""))
        return [r[4] for r in rows]

    def test_the_page_gives_the_verdict_of_compare(self):
        db = self.tmp / "r.db"
        a, b = self.make("a.json", 10000, db), self.make("b.json", 20000, db)
        verdicts = self.assert_same_verdicts(["report", a, b], [a, b])
        self.assertEqual(verdicts[:2], ["faster", "faster"])  # twice the rate, beyond the samples' noise
        # The stored runs keep their latency histograms (a json file has none): p99 may be judged there.
        stored = self.assert_same_verdicts(["results", "report", "1", "2", f"--results-db={db}"],
                                           ["1", "2", f"--results-db={db}"])
        self.assertEqual(stored[:2], verdicts[:2])

    def test_a_different_workload_is_a_caveat(self):
        """compare refuses runs of another block size (the IOPS of 1 MiB blocks against
        4 KiB ones); the page set them side by side, -99.6% IOPS, without a word."""
        runs = []
        for bs in ("4k", "1m"):
            runs.append(str(self.tmp / f"{bs}.json"))
            p = run(["--name=j", "--ioengine=null", "--rw=read", "--size=16m", f"--bs={bs}", "--output-format=json",
                     f"--output={runs[-1]}"])
            self.assertEqual(p.returncode, 0, p.stderr)
        c = run(["compare", *runs])
        self.assertEqual(c.returncode, 2, c.stderr)
        said = re.search(r"^  (job j: bs=4096 vs bs=1048576)$", c.stderr, re.M)
        self.assertTrue(said, c.stderr)
        page = self.tmp / "page.html"
        p = run(["report", *runs, f"--output={page}"])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("<li>1m.json: not the workload of 4k.json (ioplan compare refuses the two): "
                      f"{said[1]}</li>", page.read_text())
        p = run(["report", runs[0], runs[0], f"--output={page}"])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertNotIn("not the workload", page.read_text())

    @unittest.skipUnless(FIO, "fio is not installed")
    def test_a_change_against_fios_file_is_not_judged(self):
        f = self.tmp / "f.json"
        p = subprocess.run([FIO, *self.JOB, "--rate_iops=20000", "--output-format=json", f"--output={f}"],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        i = self.make("i.json", 20000)
        verdicts = self.assert_same_verdicts(["report", str(f), i], [str(f), i])
        self.assertEqual(verdicts[:2], ["not judged: noise unknown"] * 2)


class UnifiedReporting(TmpDirCase):
    """unified_rw_reporting=mixed reports a job's reads and writes as one direction,
    "mixed", in fio's JSON and ioplan's: the page said "no I/O" for the job, in red,
    drew no bar, and the comparison had no row for it."""

    def results(self):
        args = ["--name=u", "--ioengine=null", "--size=4m", "--rw=randrw", "--unified_rw_reporting=mixed",
                "--output-format=json"]
        p = run(args)
        self.assertEqual(p.returncode, 0, p.stderr)
        yield "ioplan.json", self.write("ioplan.json", p.stdout)
        if FIO:
            p = subprocess.run([FIO, *args], capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, p.stderr)
            yield "fio.json", self.write("fio.json", p.stdout)

    def test_the_mixed_direction_is_drawn_and_compared(self):
        for name, path in self.results():
            with self.subTest(result=name):
                doc = json.loads(path.read_text())
                page = self.tmp / "page.html"
                p = run(["report", str(path), str(path), "-o", str(page)])
                self.assertEqual(p.returncode, 0, p.stderr)
                text = page.read_text()
                self.assertNotIn("no I/O", text)
                figures = dict(re.findall(r'data-key="([^"]+)" data-value="([^"]+)"', text))
                for key in ("jobs.0.mixed.iops", "jobs.0.mixed.bw_bytes"):
                    self.assertEqual(float(figures[key]), float(json_at(doc, key)))
                self.assertIn('<rect class="bar" data-key="jobs.0.mixed.iops"', text)
                self.assertRegex(text, r'<tr><th scope="row">u</th><td class="l">mixed</td><td class="l">IOPS</td>')


class StatusInterval(TmpDirCase):
    """--status-interval (and SIGUSR1) reports the results so far in every format asked:
    for html that put a whole page per interval in the file, and a browser showed the
    first, the figures of the first second, as the run's."""

    RUN = ["--name=s", "--ioengine=null", "--size=64m", "--rw=read", "--time_based", "--runtime=2.5",
           "--rate_iops=1000", "--status-interval=1"]

    def test_one_page_of_the_run_with_interim_json_beside_it(self):
        page = self.tmp / "page.html"
        p = run([*self.RUN, "--output-format=html", f"--output={page}"])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(page.read_text().count("<!DOCTYPE html>"), 1)
        p = run([*self.RUN, "--output-format=html,json"])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.count("<!DOCTYPE html>"), 1)
        self.assertGreaterEqual(p.stdout.count('"fio version"'), 2)  # the interim JSON is still there
        end = json.loads(p.stdout[p.stdout.rindex('{\n  "fio version"'):p.stdout.index("<!DOCTYPE html>")])
        iops = re.search(r'data-key="jobs.0.read.iops" data-value="([^"]+)"', p.stdout).group(1)
        self.assertEqual(float(iops), end["jobs"][0]["read"]["iops"])  # the page is the run's end


@unittest.skipUnless(FIO, "fio is not installed")
class FailedJob(TmpDirCase):
    """A job that failed is named with its error as `results show` names it: the page
    said "failed: error 2" where show says "error 2 (No such file or directory)"."""

    @unittest.skipUnless(CHROMIUM and UNSHARE, "needs chromium and unshare")
    def test_the_error_is_said_in_words(self):
        out = self.tmp / "fio.json"
        p = subprocess.run([FIO, "--name=f", "--rw=read", f"--filename={self.tmp / 'missing'}", "--size=1m",
                            "--readonly", "--output-format=json", f"--output={out}"], capture_output=True, text=True)
        text = out.read_text()  # fio's note of the error comes first in the file
        self.assertEqual(json.loads(text[text.index("{"):])["jobs"][0]["error"], 2, p.stderr)
        page = self.tmp / "page.html"
        p = run(["report", str(out), "-o", str(page)])
        self.assertEqual(p.returncode, 0, p.stderr)
        d = browser(["--dump-dom", page.as_uri()], self.tmp / "profile")
        self.assertEqual(d.returncode, 0, d.stderr[-2000:])
        self.assertIn("<li class=\"failed\">job 'f' failed: error 2 (No such file or directory)</li>", d.stdout)
        self.assertIn(">failed: error 2 (No such file or directory)</td>", d.stdout)


class EditedResults(TmpDirCase):
    """A result file someone edited (or another tool wrote) with a field the page reads
    in a shape it cannot draw: a page of what can be drawn, or exit 2 naming the file
    and the field; never an abort, nor nlohmann's type_error and exit 1."""

    def real(self):
        p = run(["--name=SEQ1M_Q8T1_READ", "--ioengine=null", "--rw=read", "--size=1m", "--output-format=json"])
        self.assertEqual(p.returncode, 0, p.stderr)
        return json.loads(p.stdout)

    def report(self, doc):
        self.write("in.json", json.dumps(doc))
        return run(["report", str(self.tmp / "in.json"), "-o", str(self.tmp / "out.html")])

    def test_a_crystaldiskmark_job_without_its_direction_has_no_figure(self):
        doc = self.real()
        del doc["jobs"][0]["read"]
        p = self.report(doc)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertRegex((self.tmp / "out.html").read_text(),
                         r'(?s)<table id="cdm-0" class="cdm">.*<th scope="row">SEQ1M_Q8T1</th><td>-</td><td>-</td>')

    def test_a_field_of_the_wrong_type_is_refused_naming_it(self):
        for edit, field in ((lambda d: d.update(ioplan=1), "ioplan is not an object"),
                            (lambda d: d["ioplan"].update(interrupted=1), "ioplan.interrupted is not true or false"),
                            (lambda d: d["ioplan"].update(series=[1]), r"ioplan.series\[0\] is not an object"),
                            (lambda d: d["ioplan"].update(series=[{"t_ns": [1e9, "2"],
                                                                   "read": {"bw_bytes_per_s": [1, 2]}}]),
                             r"ioplan.series\[0\].t_ns\[1\] is not a number")):
            with self.subTest(field=field):
                doc = self.real()
                edit(doc)
                p = self.report(doc)
                self.assertEqual(p.returncode, 2, p.stderr)
                self.assertRegex(p.stderr, r"^ioplan report: error: in\.json: not a result document: " + field + "\n$")
                self.assertFalse((self.tmp / "out.html").exists())

    def test_latencies_at_the_ends_of_a_double_draw_a_chart_of_few_ticks(self):
        """A denormal percentile (5e-321 ns) rounded the log axis down to 0: its ticks
        never got past it and the page never ended; a 1e-310 .. 1.7e308 spread ticked
        every decade, 600 labels on 240 pixels."""
        for low, high in ((5e-321, 5e-321), (1e-310, 1.7e308), (0, 5e-321)):
            with self.subTest(low=low, high=high):
                doc = self.real()
                doc["jobs"][0]["read"]["clat_ns"]["percentile"] = {"50.000000": low, "99.000000": high}
                p = run(["report", str(self.write("in.json", json.dumps(doc))), "-o", str(self.tmp / "out.html")],
                        timeout=60)
                self.assertEqual(p.returncode, 0, p.stderr)
                chart = re.search(r'(?s)<figure class="chart" id="lat-0">.*?</figure>',
                                  (self.tmp / "out.html").read_text()).group(0)
                self.assertLessEqual(chart.count('<line class="grid"'), 11)
                self.assertNotIn("nan", chart)
                self.assertNotIn("inf", chart)


@unittest.skipUnless(CHROMIUM and UNSHARE, "needs Debian's chromium and unshare(1) (make deps installs chromium)")
class HostileNames(TmpDirCase):
    """What a job file, a label or a result carries is text on the page: markup in a job's
    name or a run's label runs no script (an img's onerror or a script would mark the
    body), and a right-to-left override in a name does not turn the page's own words
    after it around ("job 'a<RLO>' failed: error 5" read "job 'a5 rorre :deliaf'")."""

    MARK = "document.body.setAttribute('data-'+'pwned',1)"  # the page's text never says data-pwned
    NAME = f'<img src=x onerror="{MARK}">\u202eq -->]]>&\u2067</title><script>{MARK}</script>'
    LABEL = f"</title><script>{MARK}</script><svg onload=\"{MARK}\">\u202e"

    def pages(self):
        env = {"IOPLAN_RESULTS_DB": str(self.tmp / "results.db")}
        p = run([f"--name={self.NAME}", "--ioengine=null", "--size=64k", "--rw=randread", f"--save={self.LABEL}",
                 "--output-format=json", f"--output={self.tmp / 'r.json'}"], env=env)
        self.assertEqual(p.returncode, 0, p.stderr)
        doc = json.loads((self.tmp / "r.json").read_text())
        doc["jobs"][0]["error"] = 5  # a failed job's caveat names it
        self.write("failed.json", json.dumps(doc))
        for args in (["report", str(self.tmp / "r.json"), str(self.tmp / "failed.json")],
                     ["results", "report", "1", "1"]):
            out = self.tmp / f"page-{args[0]}.html"
            p = run([*args, f"--output={out}"], env=env)
            self.assertEqual(p.returncode, 0, p.stderr)
            yield out

    def test_names_and_labels_are_text(self):
        for page in self.pages():
            with self.subTest(page=page.name):
                text = page.read_text()
                self.assertNotIn("<script", text)
                for control in ("\u202e", "\u2067"):
                    self.assertNotIn(control, text)
                p = browser(["--dump-dom", page.as_uri()], self.tmp / "profile")
                self.assertEqual(p.returncode, 0, p.stderr[-2000:])
                self.assertFalse("data-pwned" in p.stdout, "a script ran")
                self.assertFalse("<img" in p.stdout, "an img element was made")
                self.assertIn("&lt;img src=x onerror=", p.stdout)
                if page.name == "page-report.html":
                    self.assertIn("failed.json: job '&lt;img src=x onerror=", p.stdout)
                    self.assertRegex(p.stdout, r"\?q --&gt;\]\]&gt;&amp;\?&lt;/title&gt;&lt;script&gt;.*' failed: error 5")

    WIDTH_PROBE = """<script>
    var out = {page: document.documentElement.scrollWidth, view: document.documentElement.clientWidth, text: []};
    document.querySelectorAll("svg text").forEach(function (t) {
      var b = t.getBBox(), w = t.ownerSVGElement.viewBox.baseVal.width;
      if (b.x < 0 || b.x + b.width > w) out.text.push(t.textContent.slice(0, 40));
    });
    var pre = document.createElement("pre"); pre.id = "probe"; pre.textContent = JSON.stringify(out);
    document.body.appendChild(pre);
    </script>"""

    def test_a_long_name_wraps_inside_the_page(self):
        """A name of thousands of letters without a space (3000 here: a result file
        carries any) stretched the tables to 20 000 pixels, every figure off the page,
        and ran off the charts' edges; now it wraps in its cell and is cut short, its
        end kept, in a chart."""
        p = run(["--name=a", "--ioengine=null", "--size=64k", "--rw=randrw", "--output-format=json"])
        self.assertEqual(p.returncode, 0, p.stderr)
        doc = json.loads(p.stdout)
        doc["jobs"][0]["jobname"] = "A" * 3000
        doc["ioplan"]["host"] = "h" * 3000
        self.write("long.json", json.dumps(doc))
        self.write("short.json", p.stdout)
        page = self.tmp / "page.html"
        p = run(["report", str(self.tmp / "long.json"), str(self.tmp / "short.json"), f"--output={page}"])
        self.assertEqual(p.returncode, 0, p.stderr)
        probed = self.write("probed.html", page.read_text().replace("</body>", self.WIDTH_PROBE + "</body>"))
        p = browser(["--window-size=1200,2000", "--dump-dom", probed.as_uri()], self.tmp / "profile")
        self.assertEqual(p.returncode, 0, p.stderr[-2000:])
        d = Dom()
        d.feed(p.stdout)
        probe = json.loads(d.probe)
        self.assertLessEqual(probe["page"], probe["view"], "the page is wider than the window")
        self.assertEqual(probe["text"], [], f"chart text outside its chart: {probe}")
        self.assertIn("A" * 3000, page.read_text())  # whole in the tables


class Tables(html.parser.HTMLParser):
    """The text of each cell of each table with an id: {id: [[cell, ...], ...]}."""

    def __init__(self):
        super().__init__()
        self.tables, self._table, self._row, self._cell = {}, None, None, None

    def handle_starttag(self, tag, attrs):
        if tag == "table" and dict(attrs).get("id"):
            self._table = self.tables.setdefault(dict(attrs)["id"], [])
        elif tag == "tr" and self._table is not None:
            self._row = []
            self._table.append(self._row)
        elif tag in ("td", "th") and self._row is not None:
            self._cell = ""

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self._row.append(self._cell)
            self._cell = None
        elif tag == "table":
            self._table, self._row = None, None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell += data


@unittest.skipUnless(CHROMIUM and UNSHARE and MPIRUN, "needs chromium, unshare and mpirun")
class WorldPage(TmpDirCase):
    """A run under mpirun: the page shows each rank's and host's figures, the groups'
    first and last done and the straggler, as the normal output's Ranks block says
    them.  The page had none of it: the merged figures only, as if one process ran."""

    def dom_tables(self, page):
        p = browser(["--dump-dom", page.as_uri()], self.tmp / "profile")
        self.assertEqual(p.returncode, 0, p.stderr[-2000:])
        t = Tables()
        t.feed(p.stdout)
        return t.tables

    def test_ranks_hosts_and_the_straggler_are_on_the_page(self):
        for r in range(2):
            (self.tmp / f"r{r}").mkdir()
        (self.tmp / "out").mkdir()
        # rank 1 thinks 1 ms between its 16 writes, rank 0 not at all: rank 1 straggles
        self.write("job.fio", f"[w]\nioengine=psync\nbs=4k\nsize=64k\nrw=write\nthinktime=${{IOPLAN_RANK}}000\n"
                              f"directory={self.tmp}/r${{IOPLAN_RANK}}\n")
        p = mpirun(2, ["--output-format=html", f"--rank-output={self.tmp / 'out'}", "job.fio"], self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        run_page = self.write("run.html", p.stdout)
        files = sorted(str(f) for f in (self.tmp / "out").glob("rank-*.json"))
        text = run(["merge", *files])
        self.assertEqual(text.returncode, 0, text.stderr)
        merged = run(["merge", "--output-format=json", f"--output={self.tmp / 'merged.json'}", *files])
        self.assertEqual(merged.returncode, 0, merged.stderr)
        report = run(["report", str(self.tmp / "merged.json"), "-o", str(self.tmp / "report.html")])
        self.assertEqual(report.returncode, 0, report.stderr)
        lines = re.findall(r"^  rank (\d+) \((\w+)\): io=(\S+), ios=(\d+), runtime=([\d.]+)ms, "
                           r"lat p99=(\d+)us max=(\d+)us, start \+([\d.]+)ms(.*)$", text.stdout, re.M)
        self.assertEqual(len(lines), 2, text.stdout)
        self.assertIn("straggler: +", lines[1][8])
        hosts = re.findall(r"^  host (\w+): (\d+) ranks, io=(\S+), bw=(\S+), iops=(\S+), window=([\d.]+)ms, "
                           r"lat mean=([\d.]+)us p99=(\d+)us max=(\d+)us$", text.stdout, re.M)
        self.assertEqual(len(hosts), 1, text.stdout)
        group = re.search(r"^  group 0: first done \+([\d.]+)ms \(rank (\d), (\w+)\), (\S+) by then at (\S+); "
                          r"last done \+([\d.]+)ms \(rank (\d), (\w+)\), (\S+) at (\S+); (\d+) straggler",
                          text.stdout, re.M)
        self.assertTrue(group, text.stdout)
        for page in (self.tmp / "report.html", run_page):
            with self.subTest(page=page.name):
                t = self.dom_tables(page)
                rows = t["ranks-0"][1:]
                self.assertEqual(len(rows), 2)
                for row, line in zip(rows, lines):
                    self.assertEqual(row[:7] + [row[7].lstrip("+")], list(line[:8]))
                    self.assertEqual(row[8], line[8].removeprefix(", ") or "-")
                (h,) = t["hosts-0"][1:]
                self.assertEqual(h[:3], list(hosts[0][:3]))
                (g,) = t["groups-0"][1:]
                self.assertEqual([g[2], g[6], g[9]],
                                 [f"rank {group[2]} ({group[3]})", f"rank {group[7]} ({group[8]})", group[11]])
                self.assertEqual(h[3:], [hosts[0][3], hosts[0][4], hosts[0][5], hosts[0][6], hosts[0][7],
                                         hosts[0][8]])
                self.assertEqual([g[1].lstrip("+"), g[3], g[4], g[5].lstrip("+"), g[7], g[8]],
                                 [group[1], group[4], group[5], group[6], group[9], group[10]])


if __name__ == "__main__":
    unittest.main()
