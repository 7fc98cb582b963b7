"""tests/e2e/test_report_progress.py - the live status line: on a terminal, never in a pipe."""
import os
import pty
import select
import subprocess
import time

import re
import signal

from common import BIN, FIO, TmpDirCase, fifo_writer, run, run_as_fio, run_fio, wait_for_stderr

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

    def test_a_time_based_ramp_has_an_estimate(self):
        # fio's line during ramp_time estimates the ramp's rest and the runtime
        # ("[/(1)][-.-%][eta 00m:03s]" for ramp_time=2 runtime=3); ioplan's said
        # "[/(1)][0.0%][eta --]" until the measured window began.
        proc = subprocess.Popen([BIN, "--name=p", "--ioengine=null", "--size=64m", "--rw=randread",
                                 "--time_based", "--runtime=30", "--ramp_time=600", "--rate_iops=1000",
                                 "--eta=always", "--eta-newline=1", "--output-format=terse"],
                                cwd=self.tmp, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            seen = wait_for_stderr(proc, until=lambda t: re.search(r"\[/\(1\)\]\[[^]]*\]\[eta [^]]*\]", t))
            proc.send_signal(signal.SIGINT)
            proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
        eta = re.search(r"\[/\(1\)\]\[[^]]*\]\[eta ([^]]*)\]", seen).group(1)
        # 10 minutes of ramp and 30 s of runtime, less the little the ramp has run
        self.assertRegex(eta, r"^10m:([0-2]\d|30)s$")

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

    def test_run_as_fio_a_line_a_second_as_fios(self):
        # fio's progress line comes once a second (its eta_interval); run as fio, ioplan
        # drew one every 500 ms: a piped --eta=always log had twice fio's lines.  Lines are at
        # least the interval apart, so a 3.5 s run has at most 5 however loaded the machine.
        args = ["--name=x", "--ioengine=null", "--size=100g", "--time_based", "--runtime=3500ms", "--rate=10m",
                "--eta=always", "--eta-newline=1"]
        runs = {"ioplan": run_as_fio(args)}
        if FIO:
            runs["fio"] = run_fio(args)
        for who, p in runs.items():
            with self.subTest(who=who):
                self.assertEqual(p.returncode, 0, p.stderr)
                lines = p.stdout.replace("\r", "\n").count("Jobs: ")
                self.assertIn(lines, range(1, 6), p.stdout)

    def test_the_banner_is_on_stdout_while_the_run_goes_on(self):
        # fio prints normal output's banner as the run starts; ioplan held it with the report
        # until the end, so `ioplan job | tee log` showed nothing of a long run.  The job reads
        # a FIFO nobody writes yet: the banner must be out while it waits.
        fifo = self.tmp / "feed"
        os.mkfifo(fifo)
        proc = subprocess.Popen([BIN, "--name=w", "--ioengine=io_uring", "--rw=read", "--bs=4k", "--size=4k",
                                 f"--filename={fifo}"], cwd=self.tmp, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE)
        self.addCleanup(proc.kill)
        seen, deadline = b"", time.monotonic() + 30
        while seen.count(b"\n") < 3 and time.monotonic() < deadline:  # a deadline, not a read that waits for ever
            if select.select([proc.stdout], [], [], 0.1)[0]:
                seen += os.read(proc.stdout.fileno(), 4096)
        banner = [ln + "\n" for ln in seen.decode().split("\n")[:3]]
        self.assertTrue(banner[0].startswith("w: (g=0): rw=read"), seen)
        self.assertEqual(banner[2], "Starting 1 process\n")
        self.assertIsNone(proc.poll())  # still waiting on the FIFO: no report could have been written
        feed = fifo_writer(fifo, proc, "the job")
        os.write(feed, b"x" * 4096)
        os.close(feed)
        rest, err = proc.communicate(timeout=60)
        rest = seen.decode().split("\n", 3)[3] + rest.decode()
        self.assertEqual(proc.returncode, 0, err)
        self.assertTrue(rest.startswith("\nw: (groupid=0, jobs=1): err= 0"), rest)
        self.assertNotIn("Starting", rest)  # said once
