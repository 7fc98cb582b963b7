"""tests/e2e/test_report_caveats.py - a figure never travels without its caveat.

Runs real jobs whose figures are doubtful - on tmpfs (memory, not storage),
buffered reads of a file the page cache holds, a job that cannot open its file
- and checks that every human format says so in its own idiom (cdm: a mark on
the row and a footnote; DISKSPD: a Warnings: block; winsat, hdparm, dd and
GNOME Disks: a closing line; DISKSPD XML and JSON: their own fields), that a
failed job prints no row of zeros, and that repeats show their spread.
"""
import json
import os
import pathlib
import re
import shutil
import subprocess
import tempfile
import unittest
import xml.etree.ElementTree as ET

from common import BIN, TmpDirCase, run, run_as_fio

TWO_JOBS = """[global]
filename=f.dat
size=4m
bs=64k
direct={direct}
[r]
rw=read
[w]
rw=write
stonewall
"""

QUICK_FORMATS = ("winsat", "hdparm", "dd", "gnome-disks")


def is_tmpfs(path):
    try:
        out = subprocess.run(["stat", "-f", "-c", "%T", str(path)], capture_output=True, text=True).stdout
    except OSError:
        return False
    return out.strip() == "tmpfs"


class MemoryBacked(unittest.TestCase):
    """The tmpfs run of the issue: 3,600 MB/s with no mark in the cdm table."""

    def setUp(self):
        if not is_tmpfs("/dev/shm"):
            self.skipTest("/dev/shm is not tmpfs here")
        self.dir = pathlib.Path(tempfile.mkdtemp(prefix="ioplan-caveat-", dir="/dev/shm"))
        (self.dir / "job.fio").write_text(TWO_JOBS.format(direct=1))

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def report(self, fmt, as_fio=False):
        args = [f"--output-format={fmt}", str(self.dir / "job.fio")]
        p = (run_as_fio if as_fio else run)(args, cwd=self.dir)
        self.assertEqual(p.returncode, 0, p.stderr)
        return p

    def test_cdm_marks_every_row_on_the_file_and_footnotes_it(self):
        out = self.report("cdm").stdout
        rows = [l for l in out.splitlines() if l.startswith("  SEQ ")]
        self.assertEqual(len(rows), 2, out)
        for row in rows:
            self.assertRegex(row, r" \*[0-9,]*\b1\b", out)
        note = re.search(r"^\*1 (.*)$", out, re.M)
        self.assertIsNotNone(note, out)
        self.assertIn("tmpfs", note.group(1))
        self.assertIn("memory, not storage", note.group(1))
        self.assertLess(out.index("*1 "), out.index("Profile: "), "footnote under the table")

    def test_quick_formats_close_with_a_line(self):
        for fmt in QUICK_FORMATS:
            with self.subTest(fmt=fmt):
                out = self.report(fmt).stdout
                closing = [l for l in out.splitlines() if l.startswith("warning: ")]
                self.assertTrue(any("memory, not storage" in l for l in closing), out)
                self.assertTrue(out.rstrip("\n").splitlines()[-1].startswith("warning: "), out)

    def test_diskspd_text_has_a_warnings_block_and_xml_an_element(self):
        out = self.report("diskspd").stdout
        self.assertIn("\nWarnings:\n", out)
        block = out[out.index("\nWarnings:\n"):]
        self.assertIn("memory, not storage", block)
        doc = ET.fromstring(self.report("diskspd-xml").stdout)
        codes = [w.get("Code") for w in doc.findall("./Warnings/Warning")]
        self.assertIn("memory-backed", codes)

    def test_json_keeps_it_in_its_field(self):
        doc = json.loads(self.report("json").stdout)
        self.assertTrue(any("memory, not storage" in w for w in doc["ioplan"]["warnings"]))

    def test_terse_says_it_on_stderr_its_lines_unchanged(self):
        # fio's terse fields are counted by position and have no place for it; fio says
        # its own warnings on stderr.  ioplan said nothing at all under terse or csv.
        for fmt, as_fio in (("terse", False), ("terse", True), ("csv", False)):
            with self.subTest(fmt=fmt, as_fio=as_fio):
                p = self.report(fmt, as_fio)
                lines = p.stdout.splitlines()
                self.assertEqual(len(lines), 3 if fmt == "csv" else 2, p.stdout)
                self.assertTrue(all(l.count(";") == lines[0].count(";") for l in lines), p.stdout)
                said = [l for l in p.stderr.splitlines() if "memory, not storage" in l]
                self.assertEqual(len(said), 1, p.stderr)
                self.assertTrue(said[0].startswith("ioplan: warning: "), p.stderr)
        both = self.report("terse,json")
        self.assertEqual(both.stderr, "", "json carries it")

    def test_as_fio_stderr_stays_empty(self):
        for fmt in ("cdm", "normal", "json"):
            with self.subTest(fmt=fmt):
                p = self.report(fmt, as_fio=True)
                self.assertEqual(p.stderr, "")
                self.assertIn("memory, not storage", p.stdout)


class PageCache(TmpDirCase):
    def test_buffered_reads_of_a_small_file_are_marked(self):
        self.write("job.fio", TWO_JOBS.format(direct=0))
        p = run(["--output-format=cdm", str(self.tmp / "job.fio")], cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        out = p.stdout
        read_row = out[out.index("[Read]"):].splitlines()[1]
        marks = re.search(r" \*([0-9,]+)$", read_row)
        self.assertIsNotNone(marks, out)
        notes = dict(re.findall(r"^\*([0-9]+) (.*)$", out, re.M))
        self.assertTrue(any("page cache" in notes[n] for n in marks.group(1).split(",")), out)


class FewSamples(TmpDirCase):
    """Fewer than 100 latencies: the warning is about percentiles, so only where they print."""
    JOB = "[j]\nioengine=null\nsize=64k\n{extra}"
    WARNING = "latency samples, fewer than the 100 that p99 needs"

    def warned(self, extra):
        self.write("job.fio", self.JOB.format(extra=extra))
        p = run([str(self.tmp / "job.fio")], cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        return self.WARNING in p.stdout + p.stderr

    def test_said_where_percentiles_print(self):
        self.assertTrue(self.warned(""))
        self.assertTrue(self.warned("clat_percentiles=0\nlat_percentiles=1\n"))

    def test_not_said_of_a_job_without_percentiles_or_report(self):
        # stats=0 leaves the job out of the report (fio prints no block for it) and
        # clat_percentiles=0 prints no percentile; the warning about p99 named them all the same.
        self.assertFalse(self.warned("clat_percentiles=0\n"))
        self.assertFalse(self.warned("stats=0\n"))


class FailedJob(TmpDirCase):
    """A job that cannot open its file: a row that says so, never 0.000 MB/s."""

    def setUp(self):
        super().setUp()
        if os.geteuid() != 0:
            self.skipTest("needs root to run the job as another user")
        os.chmod(self.tmp, 0o755)
        self.write("job.fio", TWO_JOBS.format(direct=1))
        os.chmod(self.tmp / "job.fio", 0o644)

    def as_nobody(self, fmt):
        def drop():
            os.setgid(65534)
            os.setuid(65534)
        return subprocess.run([BIN, f"--output-format={fmt}", str(self.tmp / "job.fio")], cwd=self.tmp,
                              capture_output=True, text=True, timeout=60, preexec_fn=drop)

    def test_every_compact_format_says_failed(self):
        for fmt in ("cdm", "winsat", "dd", "hdparm", "gnome-disks"):
            with self.subTest(fmt=fmt):
                p = self.as_nobody(fmt)
                self.assertNotEqual(p.returncode, 0, p.stdout)
                self.assertIn("failed: Permission denied", p.stdout)
                self.assertNotRegex(p.stdout, r"\b0\.0+ MB/s")

    def test_json_and_normal_give_each_job_the_error(self):
        doc = json.loads(self.as_nobody("json").stdout)
        self.assertEqual([j["error"] for j in doc["jobs"]], [13, 13])
        normal = self.as_nobody("normal").stdout
        self.assertEqual(normal.count("err=13 (Permission denied)"), 2, normal)


class RepeatSpread(TmpDirCase):
    JOB = """[global]
filename=f.dat
size=4m
bs=4k
direct=1
time_based=1
runtime=100ms
repeat=3
[r]
rw=randread
"""

    def test_normal_and_cdm_show_the_runs_behind_the_figure(self):
        self.write("job.fio", self.JOB)
        p = run([str(self.tmp / "job.fio")], cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        lines = p.stdout.splitlines()
        at = next(i for i, l in enumerate(lines) if l.startswith("  read: IOPS="))
        self.assertRegex(lines[at + 1], r"^    repeats: 3 runs, IOPS min=[\d.]+[kM]?, median=[\d.]+[kM]?, max=[\d.]+[kM]?; BW min=")
        self.assertIn("the line above is the best run", lines[at + 1])
        cdm = run(["--output-format=cdm", str(self.tmp / "job.fio")], cwd=self.tmp).stdout
        self.assertIn("* Each figure is the best of 3 runs", cdm)
        self.assertRegex(cdm, r"us>  \([0-9.]+ - [0-9.]+ MB/s\)")


class TestedDrive(TmpDirCase):
    """CrystalDiskMark's footer names the drive tested: the file's, and none for an
    engine that opens no file (the null engine's run named the current directory's)."""

    def footer_test_line(self, *job):
        p = run(["--name=t", "--size=1m", "--output-format=cdm", *job], cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        return next(l for l in p.stdout.splitlines() if l.startswith("   Test: "))

    def test_the_file_s_drive_and_none_without_a_file(self):
        self.assertEqual(self.footer_test_line("--ioengine=null"), "   Test: 1 MiB (x1)")
        line = self.footer_test_line("--ioengine=psync", f"--filename={self.tmp / 'f'}")
        self.assertRegex(line, rf"^   Test: 1 MiB \(x1\) \[{re.escape(str(self.tmp))}: \d+% \(\d+/\d+GiB\)\]$")


if __name__ == "__main__":
    unittest.main()
