"""tests/e2e/test_report_progress.py - the live status line: on a terminal, never in a pipe."""
import os
import pty
import subprocess
import time

from common import BIN, TmpDirCase, run

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
