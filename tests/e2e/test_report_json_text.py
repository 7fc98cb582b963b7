"""tests/e2e/test_report_json_text.py - ioplan's JSON text against fio 3.33's, line by line.

Clients grep fio's JSON (docker-diskmark: `grep -A15 '"name" : "JOB"'`), so the
text is compared, not the parsed document: the same null-engine job through
/usr/bin/fio and ioplan, with only what differs by nature masked - every number
becomes I (an integer) or F (a float with six decimals), the date string T, and
json+'s bins (their keys are the latencies seen) one line.  Key order,
indentation, `"key" : value` spacing, which options `job options` echoes and
the integer/float type of every value must then be identical.  ioplan's own
"ioplan" object is removed first (it is the one addition fio does not have).
ioplan runs as `fio` (a symlink), so "fio version" is fio's too.
"""
import json
import os
import re
import signal
import subprocess
import time
import unittest

from common import BIN, FIO, TmpDirCase, run, run_as_fio, run_fio, wait_until

GLOBAL_JOB = "[global]\nioengine=null\nsize=64m\nbs=4k\n[a]\nrw=randread\n[b]\nrw=randwrite\nstonewall\n"
# A job given only a flag: fio echoes an empty "job options" (with its empty line).
FLAGS_ONLY = "[global]\nioengine=null\nsize=1m\n[a]\n[b]\nstonewall\n"
CASES = {
    "one job": ["--name=j", "--ioengine=null", "--size=64m", "--bs=4k", "--rw=randread"],
    "global before name": ["--ioengine=null", "--name=j", "--size=64m", "--bs=4k", "--rw=randread"],
    "clones grouped": ["--name=j", "--ioengine=null", "--size=16m", "--rw=randrw", "--numjobs=2",
                       "--group_reporting"],
    "flags not echoed": ["--name=j", "--ioengine=null", "--size=1m", "--time_based", "--runtime=100ms",
                         "--stonewall"],
}


def mask(text):
    """fio's JSON text with the numbers that differ by nature masked (see the module doc)."""
    out, skip = [], None
    for line in text.splitlines():
        ind = len(line) - len(line.lstrip(" "))
        if skip is not None:
            if ind > skip or not line.strip():
                continue
            skip = None
            continue  # the closing bracket of the skipped object
        if line == '  "ioplan" : {':
            skip = 2
            out[-1] = out[-1].rstrip(",")
            continue
        if line.endswith('"bins" : {'):
            skip = ind
            out.append(line + "...}")
            continue
        line = re.sub(r' : -?\d+\.\d{6}(,?)$', r' : F\1', line)
        line = re.sub(r' : -?\d+(,?)$', r' : I\1', line)
        line = re.sub(r'^(  "time" : )"[^"]*"', r'\1"T"', line)
        out.append(line)
    return "\n".join(out) + "\n"


@unittest.skipUnless(FIO, "fio is not installed")
class JsonTextMatchesFio(TmpDirCase):
    def both(self, args):
        f = run_fio(args, cwd=self.tmp)
        i = run_as_fio(args, cwd=self.tmp)
        self.assertEqual(f.returncode, 0, f.stderr)
        self.assertEqual(i.returncode, 0, i.stderr)
        json.loads(i.stdout)  # strictly valid, whatever the layout
        return mask(f.stdout), mask(i.stdout)

    def check(self, args):
        fio_text, ioplan_text = self.both(args)
        self.assertEqual(ioplan_text, fio_text)
        return ioplan_text

    def test_command_line_jobs(self):
        for name, args in CASES.items():
            for fmt in ("json", "json+"):
                with self.subTest(name, fmt=fmt):
                    self.check(args + [f"--output-format={fmt}"])

    def test_global_section_and_two_jobs(self):
        self.write("g.fio", GLOBAL_JOB)
        for fmt in ("json", "json+"):
            with self.subTest(fmt=fmt):
                text = self.check(["g.fio", f"--output-format={fmt}"])
                self.assertIn('  "global options" : {\n    "ioengine" : "null",\n', text)
                self.assertIn('      "job options" : {\n        "rw" : "randwrite"\n      },\n', text)

    def test_file_job_with_disk_util(self):
        # A real file: fio and ioplan both add the disk_util array of the device under it.
        for tool in ("fio", "ioplan"):
            (self.tmp / tool).mkdir()
        args = ["--name=p", "--ioengine=psync", "--size=4m", "--bs=64k", "--rw=write", "--output-format=json"]
        f = run_fio(args + [f"--directory={self.tmp / 'fio'}"], cwd=self.tmp)
        i = run_as_fio(args + [f"--directory={self.tmp / 'ioplan'}"], cwd=self.tmp)
        self.assertEqual((f.returncode, i.returncode, i.stderr), (0, 0, ""))
        self.assertEqual(mask(i.stdout), mask(f.stdout).replace("/fio", "/ioplan"))

    def test_job_given_only_flags(self):
        self.write("s.fio", FLAGS_ONLY)
        text = self.check(["s.fio", "--output-format=json"])
        self.assertIn('      "job options" : {\n\n      },\n', text)

    def test_number_formats(self):
        _, text = self.both(CASES["one job"] + ["--output-format=json"])
        self.assertIn('        "iops" : F,\n', text)
        self.assertIn('        "bw" : I,\n', text)
        self.assertIn('          "mean" : F,\n', text)
        self.assertIn('            "99.990000" : I\n', text)
        self.assertIn('        "name" : "j",\n', text)


class SubmitCompleteRows(TmpDirCase):
    """fio counts a submit and a complete of one per I/O only for an engine without a
    commit hook (td_io_queue): psync's rows are 4=100%, but the null engine at iodepth=1,
    whose I/Os complete in queue() yet which has one, leaves both rows at 0% (ioplan
    counted 4=100% for it too).  Values, not layout: the text comparison masks them."""

    def rows(self, runner, engine):
        p = runner(["--name=j", f"--ioengine={engine}", "--size=1m", "--rw=read", f"--directory={self.tmp}",
                    "--output-format=json"], cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        job = json.loads(p.stdout[p.stdout.index("{"):])["jobs"][0]
        return job["iodepth_submit"], job["iodepth_complete"], job["iodepth_level"]["1"]

    def test_null_at_depth_1_counts_no_submit_or_complete(self):
        submit, complete, depth1 = self.rows(run, "null")
        self.assertEqual(set(submit.values()) | set(complete.values()), {0.0})
        self.assertEqual(depth1, 100.0)
        submit, complete, _ = self.rows(run, "psync")
        self.assertEqual((submit["4"], complete["4"]), (100.0, 100.0))

    @unittest.skipUnless(FIO, "fio is not installed")
    def test_the_rows_are_fios(self):
        for engine in ("null", "psync"):
            self.assertEqual(self.rows(run_as_fio, engine), self.rows(run_fio, engine), engine)


class ElapsedFromTheJobsStart(TmpDirCase):
    """A job's "elapsed" counts from fio's genesis, set once the files are laid out
    and before the jobs start: a run whose layout took most of its time reports the
    seconds of its jobs (fio 3.33, a 768 MiB file to lay out then read: elapsed 2 in a
    15 s run; ioplan said 5 of its 4.7 s)."""

    def test_the_layout_is_not_counted(self):
        f = self.tmp / "big"
        # One 4 KiB read of a 256 MiB file ioplan lays out first.
        args = ["--name=x", f"--filename={f}", "--size=256m", "--rw=read", "--number_ios=1",
                "--output-format=json"]
        proc = subprocess.Popen([BIN, *args], cwd=self.tmp, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True)
        try:
            wait_until(lambda: f.exists() and f.stat().st_size > 0, timeout=60, what="the layout to begin")
            # Held off the CPU in the layout for 3 s: a layout that long whatever the machine's speed.
            os.kill(proc.pid, signal.SIGSTOP)
            laid = next(int(l.split()[1]) for l in open(f"/proc/{proc.pid}/io") if l.startswith("wchar:"))
            time.sleep(3)
            os.kill(proc.pid, signal.SIGCONT)
            out, err = proc.communicate(timeout=300)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        self.assertEqual(proc.returncode, 0, err)
        if laid >= 256 << 20:
            self.skipTest("the layout was over before it could be held")
        doc = json.loads(out)
        job = doc["jobs"][0]
        self.assertGreaterEqual(doc["ioplan"]["elapsed_ns"], 3_000_000_000)
        # The job's own second (its thread's start and end): not the 3 s and more of layout.
        self.assertLessEqual(job["elapsed"], (job["job_runtime"] + 999) // 1000 + 1, job["elapsed"])


if __name__ == "__main__":
    unittest.main()
