"""tests/e2e/test_costs_parse_growth.py - a big job file under --parse-only.

fio 3.33's --parse-only checks each job and puts it back, holding nothing per
section; ioplan's must hold neither a planned job nor the section's text.  Memory is
read from GNU time's peak RSS of the real binary (a count, not a speed), and
the errors a checked-and-dropped job can still cause are compared with the
ones --showplan, which keeps every job, reports.
"""
import shutil
import subprocess
import tempfile
import unittest

from common import BIN, VARIANT, TmpDirCase, run

GNU_TIME = shutil.which("time") or "/usr/bin/time"


def sections(n, each=""):
    return "[global]\nioengine=null\nsize=1m\nbs=4k\nrw=randread\n\n" + "".join(
        f"[job{i}]\nfilename=/tmp/ioplan-parse-growth-{i}\n{each}\n" for i in range(n))


class ParseOnlyGrowth(TmpDirCase):
    def peak_rss_kib(self, path):
        with tempfile.NamedTemporaryFile(mode="r") as t:
            p = subprocess.run([GNU_TIME, "-o", t.name, "-f", "%M", BIN, "--parse-only", str(path)],
                               capture_output=True, text=True, timeout=300)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual(p.stdout + p.stderr, "")
            return int(t.read().split()[-1])

    @unittest.skipIf(VARIANT != "release", "ASan holds freed memory in quarantine, so every dropped job stays "
                                           "resident: 8-10 KB a section, and 27 MiB of runtime at one section")
    def test_a_section_costs_under_400_bytes(self):
        # 140 B now (a dropped job's name).  Before: 3,563 B a section (a 2,296 B
        # planned job each, and their copies), then 720 B (the whole document).
        small = self.peak_rss_kib(self.write("one.fio", sections(1)))
        big = self.peak_rss_kib(self.write("many.fio", sections(20000)))
        per_section = (big - small) * 1024 / 19999
        self.assertLess(per_section, 400, f"{small} KiB at 1 section, {big} KiB at 20 000")

    def test_a_dropped_jobs_errors_are_the_runs(self):
        ss = "ioengine=null\nsize=1m\nss=iops:10%\nss_dur=5\n"
        cases = {"ss": "".join(f"[job{i}]\n{ss}" for i in range(2000)) +
                       "[late]\n" + ss.replace("10%", "20%"),
                 "wait": sections(5000) + "[late]\nwait_for=job4999x\n"}
        for name, text in cases.items():
            with self.subTest(name):
                path = self.write(f"{name}.fio", text)
                checked, planned = run(["--parse-only", str(path)]), run(["--showplan", str(path)])
                self.assertEqual(checked.returncode, 2, checked.stderr)
                self.assertEqual(checked.stderr, planned.stderr)
                self.assertIn("'late'" if name == "ss" else "wait_for=job4999x", checked.stderr)

    def test_wait_for_finds_a_dropped_job(self):
        path = self.write("wait.fio", sections(5000) + "[late]\nwait_for=job17\n")
        p = run(["--parse-only", str(path)])
        self.assertEqual((p.returncode, p.stdout + p.stderr), (0, ""))

if __name__ == "__main__":
    unittest.main()
