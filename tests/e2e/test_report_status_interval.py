"""tests/e2e/test_report_status_interval.py - --status-interval and SIGUSR1: reports of the
results so far while the run goes on, in fio's layout, next to fio 3.33's own.

fio writes one whole report per interval in every format asked for (JSON
documents back to back, a terse line per job, normal blocks), then the final
report; each holds the run so far.  The tests count the reports of real runs,
compare the count with fio's on the same command line, and check that the
figures grow from report to report up to the final one.
"""
import json
import os
import signal
import subprocess
import time
import unittest

from common import BIN, FIO, TmpDirCase, ext4_loop, run, run_as_fio, run_fio, wait_for_stderr, wait_until


NULL_3_5S = ["--name=x", "--ioengine=null", "--size=100g", "--time_based", "--runtime=3500ms",
             "--status-interval=1"]
# The same held to 5000 IOPS a job: its workers sleep between I/Os, where NULL_3_5S's answer
# the reports from their busiest loop; and the tests that only count the reports cost no
# more CPU than they need (flat out, the two tools' two jobs were 14 s of it).
NULL_3_5S_RATED = [*NULL_3_5S, "--rate_iops=5000"]


def strict(text):
    raise ValueError("not strict JSON: " + text)


def documents(text):
    """The JSON documents of text, back to back; each must be strict JSON."""
    dec = json.JSONDecoder(parse_constant=strict)
    docs, i = [], 0
    while i < len(text):
        if text[i].isspace():
            i += 1
            continue
        doc, i = dec.raw_decode(text, i)
        docs.append(doc)
    return docs


def read_bytes(docs, job=0):
    return [d["jobs"][job]["read"]["io_bytes"] for d in docs]


def terse_kib(lines, name):
    return [int(l.split(";")[5]) for l in lines if l.split(";")[2] == name]


def timed(runner, args, **kw):
    """runner's process and how long it lived, in seconds (the intervals count from its start)."""
    t0 = time.monotonic()
    p = runner(args, **kw)
    return p, time.monotonic() - t0


def started(seq):
    """seq without the reports taken before the job's window began: on a loaded
    machine (the suite runs modules side by side) setting up, or a clone's start,
    can take past the first interval, which counts from the start of the run, as
    fio's does."""
    while len(seq) > 1 and seq[0] == 0:
        seq = seq[1:]
    return seq


def caught(pid, sig):
    """Whether process pid has a handler for sig (its SigCgt mask)."""
    try:
        status = open(f"/proc/{pid}/status").read()
    except OSError:
        return False
    mask = next(int(line.split()[1], 16) for line in status.splitlines() if line.startswith("SigCgt:"))
    return bool(mask & (1 << (sig - 1)))


class StatusInterval(TmpDirCase):
    def check_growing(self, seq):
        """Never backwards, and the final report above the first.  An interim report
        shows a worker as it last answered: one that a busy machine kept off the CPU
        for the whole wait (200 ms) is shown as in the report before."""
        self.assertGreater(len(seq), 1)
        self.assertGreater(seq[0], 0)
        for a, b in zip(seq, seq[1:]):
            self.assertLessEqual(a, b, seq)
        self.assertLess(seq[0], seq[-1], seq)

    def check_reports(self, seq, n, lived, late=0):
        """n reports: one per interval (1 s) and the final.  One more when setting
        up held the job's start long enough that the process lived past n
        intervals (fio 3.33 in a pool of four: 5 reports, the first at 1.9 GB);
        else the extra one was taken while the run was still setting up and shows
        nothing done yet.  late: how many reports the tool may skip when it wakes
        past the next interval (fio 3.33 does on a busy machine: 3 reports in
        3.5 s seen in a pool of four)."""
        self.assertIn(len(seq), range(n - late, n + 2), seq)
        if len(seq) == n + 1 and lived < n:
            self.assertEqual(seq[0], 0, (seq, lived))
        self.check_growing(started(seq))

    def test_json_documents_as_many_as_fio_with_growing_io_bytes(self):
        p, lived = timed(run, [*NULL_3_5S, "--output-format=json"], cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        docs = documents(p.stdout)
        self.check_reports(read_bytes(docs), 4, lived)  # at 1, 2 and 3 s, then the final
        docs = docs[len(docs) - 4:]
        # as started(): a report taken before a loaded machine began the window shows none of it
        while len(docs) > 1 and not docs[0]["jobs"][0]["read"]["runtime"]:
            docs = docs[1:]
        runtimes = [d["jobs"][0]["read"]["runtime"] for d in docs]
        self.check_growing(runtimes)
        # The window asked for, within what the process lived: a thread the machine
        # holds off the CPU ends its window late (3553 ms seen with the suite's modules
        # side by side), so no tighter bound is the tool's to keep.
        self.assertGreaterEqual(runtimes[-1], 3500)
        self.assertLessEqual(runtimes[-1], lived * 1000)
        clat = [d["jobs"][0]["read"]["clat_ns"] for d in docs]
        self.check_growing([c["N"] for c in clat])
        self.assertTrue(all(c["percentile"] for c in clat))
        if FIO:
            f, lived = timed(run_fio, [*NULL_3_5S, "--output-format=json"], cwd=self.tmp)
            self.assertEqual(f.returncode, 0, f.stderr)
            self.check_reports(read_bytes(documents(f.stdout)), 4, lived, late=1)

    def check_eta(self, docs, runtime_ms, who):
        """Each interim JSON job's eta is the window's time left, as fio's thread_eta
        (the runtime less the seconds begun): within a second of what its
        job_runtime leaves, as the estimate and the figures are taken a moment
        apart; INT_MAX before 3 s, as fio.  At least one report in the window's
        middle shows a second or more left (ioplan said 0 in every one)."""
        left = []
        for d in docs[:-1]:
            job = d["jobs"][0]
            if job["elapsed"] < 3:
                self.assertEqual(job["eta"], 2147483647, f"{who}: {job['elapsed']}")
                continue
            if not job["job_runtime"]:
                continue  # taken before a loaded machine began the window
            rest = (runtime_ms - job["job_runtime"]) / 1000
            self.assertLessEqual(abs(job["eta"] - rest), 1, f"{who}: eta {job['eta']}, {rest} s left")
            left.append(job["eta"])
        self.assertTrue(any(e >= 1 for e in left), f"{who}: {left}")

    def test_json_eta_of_the_reports_so_far_is_the_time_left(self):
        args = ["--name=x", "--ioengine=null", "--size=100g", "--time_based", "--runtime=5s",
                "--status-interval=1", "--rate_iops=1000", "--output-format=json"]
        p = run(args, cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.check_eta(documents(p.stdout), 5000, "ioplan")
        if FIO:
            f = run_fio(args, cwd=self.tmp)
            self.assertEqual(f.returncode, 0, f.stderr)
            self.check_eta(documents(f.stdout), 5000, "fio")

    def test_terse_a_line_per_job_per_interval_then_the_final(self):
        args = [*NULL_3_5S_RATED, "--numjobs=2", "--minimal"]
        p, lived = timed(run, args, cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        lines = p.stdout.splitlines()
        self.assertEqual(len(lines) % 2, 0, lines)  # a line per job per report
        self.check_reports(terse_kib(lines[0::2], "x"), 4, lived)  # 3 intervals + the final
        self.check_reports(terse_kib(lines[1::2], "x"), 4, lived)
        if FIO:
            f, lived = timed(run_fio, args, cwd=self.tmp)
            self.check_reports(terse_kib(f.stdout.splitlines()[0::2], "x"), 4, lived, late=1)

    def test_normal_blocks_after_one_banner(self):
        args = NULL_3_5S_RATED
        p = run(args, cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.count("Starting 1 process"), 1)
        self.assertTrue(p.stdout.startswith("x: (g=0): rw=read"))
        # A report taken before any I/O shows no job block, only its group line (as fio's).
        self.assertEqual(p.stdout.count("x: (groupid=0, jobs=1)"), 4)
        self.assertIn(p.stdout.count("Run status group 0 (all jobs):"), (4, 5))
        if FIO:
            f = run_fio(args, cwd=self.tmp)
            self.assertIn(f.stdout.count("x: (groupid=0, jobs=1)"), (3, 4))  # 3: fio woke late

    def opening(self, runner, extra, output=None):
        """The lines of normal output up to the first job block: banner, layout, notes."""
        (self.tmp / "lay.dat").unlink(missing_ok=True)
        args = ["--name=x", "--filename=lay.dat", "--size=4m", "--rw=write", "--bs=64k", "--time_based",
                "--runtime=1500ms", "--rate_iops=50", *extra]
        p = runner([*args, f"--output={output}"] if output else args, cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        text = (self.tmp / output).read_text() if output else p.stdout
        lines = text.replace("\r", "\n").splitlines()
        return lines[:next(i for i, ln in enumerate(lines) if ln.startswith("x: (groupid="))], text

    def test_the_layout_line_opens_the_run_once_as_fios(self):
        # With reports so far, the layout line came with none of them (the snapshots hold no
        # messages, and the final report opens without the banner): it was lost, on stdout
        # and in --output.  fio prints it as it lays out, after "Starting 1 process".
        want = ["fio-3.33", "Starting 1 process", "x: Laying out IO file (1 file / 4MiB)"]
        for output in (None, "out.txt"):
            with self.subTest(output=output):
                lines, text = self.opening(run_as_fio, ["--status-interval=1"], output)
                self.assertEqual([ln for ln in lines if ln.strip()][1:], want)
                self.assertEqual(text.count("Laying out IO file"), 1)
                if FIO:
                    lines, text = self.opening(run_fio, ["--status-interval=1"], output)
                    self.assertEqual([ln for ln in lines if ln.strip()][1:], want)
                    self.assertEqual(text.count("Laying out IO file"), 1)

    def test_the_layout_line_comes_before_the_progress_lines_as_fios(self):
        # Run as fio the progress line is on stdout: the layout line came after all of them.
        # A slow layout may show progress lines while it lays out; none shows the job writing.
        # (fio's first lines into a pipe show no states: "Jobs: 1 (f=1), 0-50 IOPS".)
        for runner in (run_as_fio, run_fio) if FIO else (run_as_fio,):
            with self.subTest(runner=runner.__name__):
                lines, text = self.opening(runner, ["--eta=always"])
                at = lines.index("x: Laying out IO file (1 file / 4MiB)")
                self.assertLess(lines.index("Starting 1 process"), at)
                writing = [i for i, ln in enumerate(lines)
                           if ln.startswith("Jobs: ") and ("[W(1)]" in ln or runner is run_fio)]
                self.assertTrue(writing, lines)
                self.assertGreater(writing[0], at, lines)
                self.assertEqual(text.count("Laying out IO file"), 1)

    def test_psync_file_job_into_an_output_file(self):
        out = self.tmp / "out.json"
        out.write_text("an older result\n")
        args = ["--name=f", f"--filename={self.tmp / 'f.dat'}", "--size=8m", "--rw=randread",
                "--ioengine=psync", "--time_based", "--runtime=2500ms", "--status-interval=1",
                "--output-format=json", f"--output={out}"]
        p, lived = timed(run, args, cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout, "")
        self.check_reports(read_bytes(documents(out.read_text())), 3, lived)

    def test_sigusr1_writes_the_results_so_far(self):
        proc = subprocess.Popen([BIN, "--name=x", "--ioengine=null", "--size=100g", "--time_based",
                                 "--runtime=2500ms", "--output-format=json", "--eta=always"],
                                cwd=self.tmp, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        wait_for_stderr(proc, b"[R(1)]")  # measuring, with its signals handled
        os.kill(proc.pid, signal.SIGUSR1)
        out, err = proc.communicate(timeout=30)
        self.assertEqual(proc.returncode, 0, err)
        read = read_bytes(documents(out))
        self.assertEqual(len(read), 2, read)
        self.assertLess(read[0], read[1])

    def test_reports_during_the_ramp_hold_the_ramps_io(self):
        # fio's reports taken during ramp_time show the I/O done so far (io_bytes, total_ios,
        # runtime, IOPS, depths, CPU; no latency: clat N=0), and so does the report of a
        # job stopped in its ramp (fio 3.33, SIGINT at 2 s into ramp_time=20: total_ios 694,
        # runtime 1389).  ioplan's held zeros in both, 'issued rwts: total=0,0,0,0'.
        out = self.tmp / "out.json"
        proc = subprocess.Popen([BIN, "--name=x", "--ioengine=null", "--size=1g", "--time_based",
                                 "--runtime=1s", "--ramp_time=600s", "--rate_iops=1000", "--eta=always",
                                 "--output-format=json", f"--output={out}"],
                                cwd=self.tmp, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            wait_for_stderr(proc, b"[/(1)]")  # ramping, with its signals handled

            def ramp_report():
                try:
                    docs = documents(out.read_text()) if out.exists() else []
                except ValueError:
                    return None  # a report being written: read it once whole
                if any(d["jobs"][0]["read"]["total_ios"] for d in docs):
                    return docs
                os.kill(proc.pid, signal.SIGUSR1)
                return None

            docs = wait_until(ramp_report, timeout=60, what="a report of the ramp's I/O", interval=0.2)
            os.kill(proc.pid, signal.SIGINT)
            _, err = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
        self.assertEqual(proc.returncode, 1, err)  # stopped (fio: 128)
        docs = documents(out.read_text())
        interim = next(d for d in docs if d["jobs"][0]["read"]["total_ios"])
        for d in (interim, docs[-1]):
            j = d["jobs"][0]
            r = j["read"]
            self.assertGreater(r["io_bytes"], 0)
            self.assertEqual(r["io_bytes"], r["total_ios"] * 4096)
            self.assertGreater(r["runtime"], 0)
            self.assertEqual(r["clat_ns"]["N"], 0)  # no latency in a ramp, as fio's
            self.assertEqual(j["iodepth_level"]["1"], 100.0)
        self.assertGreaterEqual(docs[-1]["jobs"][0]["read"]["total_ios"], interim["jobs"][0]["read"]["total_ios"])

    def test_sigusr1_while_the_job_file_is_read_is_no_death(self):
        # SIGUSR1's default action ended ioplan until the run took it (exit 138, seen as a
        # monitor asked 1.2 s into a start on a busy machine; a 100 000-job file's read
        # lasts that long).  The job file is a FIFO: the read waits there for the signal.
        fifo = self.tmp / "job.fio"
        os.mkfifo(fifo)
        proc = subprocess.Popen([BIN, str(fifo), "--output-format=json"], cwd=self.tmp,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            wait_until(lambda: caught(proc.pid, signal.SIGUSR1) or proc.poll() is not None, timeout=30,
                       what="ioplan to take SIGUSR1")
            os.kill(proc.pid, signal.SIGUSR1)
            with open(fifo, "w") as f:
                f.write("[x]\nioengine=null\nsize=1m\n")
            out, err = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        self.assertEqual(proc.returncode, 0, err)
        self.assertEqual(read_bytes(documents(out)), [1 << 20])

    def test_bad_values_are_exit_2_with_the_reason(self):
        for value, text in (("0", "--status-interval=0: at least 1 ms"), ("abc", "--status-interval=abc: "),
                            ("-1", "--status-interval=-1")):
            with self.subTest(value=value):
                p = run(["--name=x", "--ioengine=null", "--size=1m", f"--status-interval={value}"], cwd=self.tmp)
                self.assertEqual(p.returncode, 2)
                self.assertIn(text, p.stderr)
                self.assertEqual(p.stdout, "")


class InterimDiskStats(TmpDirCase):
    """fio's interim reports (__show_running_run_stats) carry the disks' counters as
    they stand: JSON disk_util, the terse disk fields, the normal "Disk stats" block.
    ioplan's had them in the final report only (121 terse fields of v3, not 130).
    On a loop device with ext4 made for the test (tmpfs has no block counters)."""

    def reports(self, fmt):
        """The output of a run with one report asked for by SIGUSR1 while it reads, then the final."""
        mnt = self.mnt
        proc = subprocess.Popen([BIN, "--name=d", f"--filename={mnt / 'f'}", "--size=2m", "--rw=read",
                                 "--direct=1", "--time_based", "--runtime=3", f"--output-format={fmt}",
                                 "--eta=always"],
                                cwd=self.tmp, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        wait_for_stderr(proc, b"[R(1)]")  # reading, with its signals handled
        os.kill(proc.pid, signal.SIGUSR1)
        out, err = proc.communicate(timeout=60)
        self.assertEqual(proc.returncode, 0, err)
        return out

    def setUp(self):
        super().setUp()
        self.mnt = ext4_loop(self)

    def test_json_terse_and_normal_reports_so_far_carry_the_disks(self):
        docs = documents(self.reports("json"))
        self.assertEqual(len(docs), 2)
        disks = [d.get("disk_util", []) for d in docs]
        self.assertEqual([len(d) for d in disks], [1, 1], disks)
        self.assertEqual(disks[0][0]["name"], disks[1][0]["name"])
        self.assertLessEqual(disks[0][0]["read_ios"], disks[1][0]["read_ios"])  # as it stood then
        out = self.reports("normal,terse")
        terse = [line.split(";") for line in out.splitlines() if line.startswith("3;")]
        self.assertEqual([len(f) for f in terse], [130, 130])  # 121 + one disk's 9
        self.assertEqual(out.count("Disk stats (read/write):"), 2)
        if FIO:  # fio's, however many reports it wrote: every line with the disk's fields
            f = run_fio(["--name=d", f"--filename={self.mnt / 'f'}", "--size=2m", "--rw=read", "--direct=1",
                         "--time_based", "--runtime=1500ms", "--status-interval=500ms", "--minimal"], cwd=self.tmp)
            self.assertEqual(f.returncode, 0, f.stderr)
            self.assertEqual({len(line.split(";")) for line in f.stdout.splitlines()}, {130})


if __name__ == "__main__":
    unittest.main()
