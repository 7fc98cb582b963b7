"""tests/e2e/test_report_progress.py - the live status line: on a terminal, never in a pipe."""
import os
import pty
import subprocess
import time

from common import BIN, FIO, TmpDirCase, run, run_as_fio, run_fio

JOB = ["--name=p", "--ioengine=null", "--size=64m", "--rw=randread", "--time_based", "--runtime=1.5",
       "--rate_iops=2000", "--output-format=terse"]


class Progress(TmpDirCase):
    def test_shown_on_a_pseudo_terminal(self):
        master, slave = pty.openpty()
        proc = subprocess.Popen([BIN, *JOB], stdout=subprocess.PIPE, stderr=slave)
        os.close(slave)
        seen = b""
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                chunk = os.read(master, 4096)
            except OSError:
                break  # the child closed the terminal
            if not chunk:
                break
            seen += chunk
        proc.wait(timeout=10)
        os.close(master)
        self.assertEqual(proc.returncode, 0)
        self.assertRegex(seen.decode(errors="replace"), r"Jobs: 1 \(f=\d+\)[^\r]*\[r\(1\)\]\[[0-9.]+%\]")
        self.assertIn(b"\r", seen)
        self.assertTrue(proc.stdout.read().startswith(b"3;"))

    def test_absent_when_piped_unless_asked(self):
        p = run(JOB)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertNotIn("Jobs:", p.stderr)
        p = run([*JOB, "--eta=always"])
        self.assertIn("Jobs: 1", p.stderr)

    def test_run_as_fio_the_line_is_fios_on_stdout(self):
        # fio writes its ETA line to stdout, and none while stdout carries only JSON or terse.
        normal = [a for a in JOB if not a.startswith("--output-format")] + ["--eta=always", "--eta-newline=200ms"]
        runs = {"ioplan": run_as_fio(normal)}
        if FIO:
            runs["fio"] = run_fio(normal)
        for who, p in runs.items():
            with self.subTest(who=who):
                self.assertEqual(p.returncode, 0, p.stderr)
                self.assertIn("Jobs: 1 (f=", p.stdout)
                self.assertNotIn("Jobs:", p.stderr)
        for fmt in ("json", "terse"):
            with self.subTest(fmt=fmt):
                p = run_as_fio([*JOB[:-1], f"--output-format={fmt}", "--eta=always"])
                self.assertEqual(p.returncode, 0, p.stderr)
                self.assertNotIn("Jobs:", p.stdout + p.stderr)
