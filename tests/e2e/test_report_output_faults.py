"""tests/e2e/test_report_output_faults.py - output that cannot be written, through the binary.

Every output path is checked before any I/O: a bad --output is exit 2 and the
job's file is never created, and an older result file survives a run that
never started.  Every write of output is checked to its end: /dev/full and a
small full tmpfs give "ioplan: error: writing ...: <strerror>" and exit 1.
A report blocked on a pipe or FIFO nobody reads, or a progress line blocked on
such a stderr, never makes ioplan deaf to SIGINT or SIGTERM.  A reader that
leaves (`ioplan --save ... | head`) never loses the run: the store keeps it,
the logs are written, the exit is 1 with the broken pipe said, and a reader of
--status-interval's reports that leaves stops the run as SIGTERM would.  A
stdout or stderr closed by the caller stays closed to what ioplan writes: no
file it opens takes the descriptor's number.
"""
import fcntl
import json
import os
import shutil
import signal
import subprocess
import time
import unittest

from common import (BIN, STOP_BOUND_S, TmpDirCase, communicate_after, fill_up, run, tmpfs, wait_for_stderr,
                    wait_until, waits_in)

ENOSPC = "No space left on device"
NULL_JOB = ["--name=n", "--ioengine=null", "--size=1m"]


def full_pipe():
    """A pipe (read end, write end) whose 4 KiB buffer is already full, as a
    reader that stopped reading leaves it: the next write into it blocks."""
    r, w = os.pipe()
    fcntl.fcntl(w, fcntl.F_SETPIPE_SZ, 4096)
    os.set_blocking(w, False)
    try:
        while True:
            os.write(w, b"x" * 4096)
    except BlockingIOError:
        pass
    os.set_blocking(w, True)
    return r, w


def wait_blocked_in(pid, wchan, timeout=20):
    """Waits until the process sleeps in a kernel function whose name contains wchan."""
    wait_until(lambda: waits_in(pid, wchan), timeout, f"process {pid} to block in {wchan}")


def ended_within(proc, seconds):
    """Seconds the process took to exit, killing it (and failing) past the limit."""
    start = time.monotonic()
    try:
        proc.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        raise AssertionError(f"still running {seconds} s after the signal")
    return time.monotonic() - start


def sh(*argv):
    return subprocess.run(argv, capture_output=True, text=True)


class SignalsWhileBlocked(TmpDirCase):
    def test_report_blocked_on_a_pipe_nobody_reads_ends_on_sigint_and_sigterm(self):
        for sig in (signal.SIGINT, signal.SIGTERM):
            with self.subTest(signal=sig.name):
                r, w = full_pipe()
                proc = subprocess.Popen([BIN, *NULL_JOB, "--output-format=json"], stdout=w,
                                        stderr=subprocess.DEVNULL)
                os.close(w)
                try:
                    wait_blocked_in(proc.pid, "pipe_write")  # the run is over, the report waits
                    proc.send_signal(sig)
                    # Ends, not hangs: the bound is the scheduler's on a busy machine with an
                    # instrumented build (1.11 s seen), not the tool's (it exits at the EINTR).
                    self.assertLess(ended_within(proc, 5.0), 5.0)
                    self.assertNotEqual(proc.returncode, 0)
                finally:
                    os.close(r)

    def test_sigusr1_while_the_report_waits_for_its_reader_loses_nothing(self):
        # SIGUSR1 asks for a report of the results so far, and a monitor sends it at any
        # time (fio handles it as long as it lives): once the run was over its default
        # action ended ioplan, with the report cut at the pipe's 4 KiB.
        r, w = full_pipe()
        with os.fdopen(r, "rb") as reader:
            reader.read(4096)  # empty again, but 4 KiB deep: the 8 KiB json+ report still waits
            proc = subprocess.Popen([BIN, *NULL_JOB, "--output-format=json+"], stdout=w, stderr=subprocess.PIPE)
            os.close(w)
            try:
                wait_blocked_in(proc.pid, "pipe_write")  # the run is over, the report waits
                proc.send_signal(signal.SIGUSR1)
                out = reader.read()
                _, err = proc.communicate(timeout=60)
            finally:
                if proc.poll() is None:
                    proc.kill()
                    proc.wait()
        self.assertEqual(proc.returncode, 0, err)
        self.assertEqual(json.loads(out)["jobs"][0]["read"]["io_bytes"], 1 << 20)

    def test_progress_line_blocked_on_stderr_does_not_stop_sigint(self):
        # --eta=always into a stderr nobody reads: the progress line must not leave the
        # supervisor stuck with the signals blocked.
        r, w = full_pipe()
        proc = subprocess.Popen([BIN, "--name=p", "--ioengine=null", "--size=64m", "--rw=randread",
                                 "--time_based", "--runtime=30", "--rate_iops=2000", "--eta=always",
                                 "--output-format=json"], stdout=subprocess.PIPE, stderr=w)
        os.close(w)
        try:
            # The worker paces its reads (it sleeps between them at rate_iops): the run is
            # under way, its signals handled and I/O counted.  From there the property: three
            # progress lines fall due while stderr is full (ioplan polls it rather than block
            # in write(), so no state shows from outside).  1.5 s counted from the start of
            # the process, as before, could pass on a loaded machine (or under a sanitizer)
            # before the first read, and then total_ios was 0.
            wait_until(lambda: proc.poll() is not None or waits_in(proc.pid, "hrtimer_nanosleep"), 30,
                       "the worker pacing its reads")
            time.sleep(1.5)
            proc.send_signal(signal.SIGINT)
            start = time.monotonic()
            out, _ = proc.communicate(timeout=10)
            self.assertLess(time.monotonic() - start, STOP_BOUND_S)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            os.close(r)
        self.assertEqual(proc.returncode, 1)
        doc = json.loads(out)
        self.assertTrue(doc["ioplan"]["interrupted"])
        self.assertGreater(doc["jobs"][0]["read"]["total_ios"], 0)

    def test_output_fifo_nobody_opens_ends_on_sigint(self):
        fifo = self.tmp / "results.fifo"
        os.mkfifo(fifo)
        proc = subprocess.Popen([BIN, *NULL_JOB, "--output-format=json", f"--output={fifo}"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_blocked_in(proc.pid, "wait_for_partner")  # the run is over; the results wait for a reader
        proc.send_signal(signal.SIGINT)
        self.assertLess(ended_within(proc, STOP_BOUND_S), STOP_BOUND_S)
        self.assertNotEqual(proc.returncode, 0)


class ReaderGone(TmpDirCase):
    """stdout is a pipe whose reader left: SIGPIPE used to end the run before --save."""

    def stored(self, db):
        return json.loads(run(["results", "list", f"--results-db={db}", "--output-format=json"]).stdout)

    def run_into_a_left_pipe(self, args, read_first=0):
        """Runs args with stdout a pipe whose reader reads read_first bytes, then leaves."""
        r, w = os.pipe()
        proc = subprocess.Popen([BIN, *args], stdout=w, stderr=subprocess.PIPE, text=True)
        os.close(w)
        with os.fdopen(r, "rb") as reader:
            if read_first:
                reader.read(read_first)
        try:
            _, err = proc.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            raise
        return proc.returncode, err

    def test_a_run_whose_reader_left_is_saved_and_says_so(self):
        db = self.tmp / "runs.db"
        rc, err = self.run_into_a_left_pipe([*NULL_JOB, "--output-format=json+", "--save", f"--results-db={db}"])
        self.assertEqual(rc, 1, err)  # not -SIGPIPE
        self.assertIn("ioplan: error: writing the results to stdout: Broken pipe", err)
        runs = self.stored(db)
        self.assertEqual(len(runs), 1, err)
        self.assertFalse(runs[0]["interrupted"])
        # Normal output's banner goes out as the run starts: a reader gone before then is said once, at the end.
        r, w = os.pipe()
        os.close(r)
        p = subprocess.run([BIN, *NULL_JOB, "--output-format=normal"], stdout=w, stderr=subprocess.PIPE, text=True,
                           timeout=120)
        os.close(w)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertEqual(p.stderr.count("Broken pipe"), 1, p.stderr)

    def test_status_reports_whose_reader_left_stop_the_run_and_keep_it(self):
        # A minute's run paced at 500 IOPS: the reader takes the first report's opening,
        # then leaves.  The run must stop there rather than die of SIGPIPE or run on.
        db = self.tmp / "runs.db"
        rc, err = self.run_into_a_left_pipe(
            ["--name=n", "--ioengine=null", "--size=64m", "--rate_iops=500", "--time_based", "--runtime=60",
             "--status-interval=1", "--output-format=json", f"--write_bw_log={self.tmp}/n",
             "--log_avg_msec=100", "--save", f"--results-db={db}"], read_first=1)
        self.assertEqual(rc, 1, err)
        self.assertIn("writing the results so far to stdout: Broken pipe: nothing reads them, "
                      "so the run stops and keeps what it measured", err)
        self.assertNotIn("writing the results to stdout", err)  # said once
        runs = self.stored(db)
        self.assertEqual(len(runs), 1, err)
        self.assertTrue(runs[0]["interrupted"])  # stopped, not run to its end
        shown = json.loads(run(["results", "show", "1", f"--results-db={db}", "--output-format=json"]).stdout)
        self.assertGreater(shown["figures"][0]["ios"], 0)
        self.assertGreater(len((self.tmp / "n_bw.1.log").read_text().splitlines()), 0)

    def test_a_reader_that_left_a_full_pipe_stops_the_run_too(self):
        # The reader stopped reading, then left: the pipe stays full, so it never polls
        # writable, and the run went on to its end.  A pipe without a reader polls POLLERR.
        db = self.tmp / "runs.db"
        r, w = full_pipe()
        proc = subprocess.Popen([BIN, "--name=n", "--ioengine=null", "--size=64m", "--rate_iops=500",
                                 "--time_based", "--runtime=60", "--status-interval=1", "--output-format=json",
                                 "--save", f"--results-db={db}"], stdout=w, stderr=subprocess.PIPE, text=True)
        os.close(w)
        os.close(r)
        try:
            _, err = proc.communicate(timeout=40)  # the run asked for 60 s
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            raise AssertionError("the run went on with nobody to read its reports")
        self.assertEqual(proc.returncode, 1, err)
        self.assertIn("nothing reads them, so the run stops and keeps what it measured", err)
        self.assertTrue(self.stored(db)[0]["interrupted"])

    def test_programs_the_run_starts_get_sigpipe_as_any_program(self):
        # SIGPIPE ignored for the run would stay ignored across exec: `yes | head` in a
        # trigger or exec_prerun would then fail with EPIPE instead of ending quietly.
        p = run(["--name=t", "--ioengine=null", "--size=64m", "--time_based", "--runtime=60",
                 "--trigger-timeout=1", f"--trigger=grep SigIgn /proc/self/status > {self.tmp}/trigger",
                 "--exec_prerun=grep SigIgn /proc/self/status", "--output-format=terse"], cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        sigpipe = 1 << (signal.SIGPIPE - 1)
        for what in ("trigger", "t.prerun.txt"):
            line = (self.tmp / what).read_text().split()
            self.assertEqual(line[0], "SigIgn:", what)
            self.assertEqual(int(line[1], 16) & sigpipe, 0, f"{what}: SIGPIPE ignored in {line[1]}")


class MountCase(TmpDirCase):
    def tearDown(self):
        self.doCleanups()  # unmount first: the temporary directory holds the mounts
        super().tearDown()


class OutputPathsCheckedFirst(MountCase):
    def job(self, output):
        return ["--name=w", f"--directory={self.tmp}", "--size=1m", "--rw=write", f"--output={output}"]

    def assert_refused_before_io(self, output, reason):
        start = time.monotonic()
        p = run(self.job(output))
        self.assertLess(time.monotonic() - start, 5)
        self.assertFalse((self.tmp / "w.0.0").exists(), "the job's file was laid out")
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertEqual(p.stderr, f"ioplan: error: --output={output}: cannot open for writing: {reason}\n")
        self.assertEqual(p.stdout, "")

    def test_missing_directory(self):
        self.assert_refused_before_io(self.tmp / "missing" / "out.json", "No such file or directory")

    def test_parent_is_a_file(self):
        self.write("plain", "x")
        self.assert_refused_before_io(self.tmp / "plain" / "out.json", "Not a directory")

    def test_output_is_a_directory(self):
        (self.tmp / "d").mkdir()
        self.assert_refused_before_io(self.tmp / "d", "Is a directory")

    def test_symbolic_link_to_nothing(self):
        # fio creates the link's target; ioplan makes no file through a link, and said
        # "No such file or directory" of a name that is there.
        link = self.tmp / "latest.json"
        link.symlink_to(self.tmp / "missing.json")
        self.assert_refused_before_io(link, f"it is a symbolic link to {self.tmp / 'missing.json'}, which does "
                                            "not exist (ioplan makes no file through a link)")
        self.assertFalse((self.tmp / "missing.json").exists())

    @unittest.skipIf(os.geteuid() != 0, "mounting a file system needs root")
    def test_read_only_file_system(self):
        mnt = self.tmp / "ro"
        mnt.mkdir()
        if sh("mount", "-t", "tmpfs", "-o", "ro,size=64k", "tmpfs", str(mnt)).returncode:
            self.skipTest("mount -t tmpfs refused here")
        self.addCleanup(sh, "umount", "-l", str(mnt))
        self.assert_refused_before_io(mnt / "out.json", "Read-only file system")

    def test_earlier_results_survive_a_run_that_is_refused(self):
        old = self.write("old.json", "the results of yesterday's run\n")
        self.write("w.0.0", "a user's file, not ioplan's")  # preflight refuses to write it
        p = run(self.job(old))
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertEqual(old.read_text(), "the results of yesterday's run\n")
        p = run([*self.job(self.tmp / "new.json")])
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertFalse((self.tmp / "new.json").exists(), "a refused run left an output file")

    def test_existing_output_is_replaced_by_the_results(self):
        old = self.write("old.json", "x" * 100000)
        p = run([*NULL_JOB, "--output-format=json", f"--output={old}"])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(json.loads(old.read_text())["jobs"][0]["read"]["io_bytes"], 1 << 20)

    def test_output_fifo_opened_late_gets_the_results(self):
        # A FIFO's reader may come after the run: checking the path must not wait for it.
        fifo = self.tmp / "results.fifo"
        os.mkfifo(fifo)
        proc = subprocess.Popen([BIN, *NULL_JOB, "--output-format=json", f"--output={fifo}"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_blocked_in(proc.pid, "wait_for_partner")
        with open(fifo) as f:
            doc = json.loads(f.read())
        self.assertEqual(proc.wait(timeout=10), 0)
        self.assertEqual(doc["jobs"][0]["read"]["io_bytes"], 1 << 20)

    def test_output_that_is_the_jobs_own_file(self):
        p = run(["--name=w", f"--directory={self.tmp}", "--size=1m", "--rw=write"])
        self.assertEqual(p.returncode, 0, p.stderr)
        data = (self.tmp / "w.0.0").read_bytes()
        # Named another way (relative, from another directory): the same file all the same.
        p = run(["--name=w", "--directory=.", "--size=1m", "--rw=read", "--output=../" + self.tmp.name + "/w.0.0"],
                cwd=self.tmp)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertEqual(p.stderr, f"ioplan: error: --output=../{self.tmp.name}/w.0.0 is a file of job 'w': "
                                   "the results would replace it\n")
        self.assertEqual((self.tmp / "w.0.0").read_bytes(), data)
        # A device is no file the results could replace: /dev/null serves both.
        p = run(["--name=w", "--filename=/dev/null", "--size=1m", "--rw=write", "--allow_device_write=/dev/null",
                 "--output=/dev/null"])
        self.assertEqual(p.returncode, 0, p.stderr)

    def test_output_that_is_a_file_the_job_writes_beside_its_own(self):
        # A log, a write_iolog or a verify state named as --output: the report and the
        # log were written to one file (the log's lines lost under the report), and an
        # earlier run's file there was replaced.
        cases = [
            (["--write_bw_log=o", "--log_avg_msec=100"], "o_bw.1.log", "write_bw_log"),
            (["--write_lat_log=o", "--per_job_logs=0"], "o_clat.log", "write_lat_log"),
            (["--write_iolog=trace"], "trace", "write_iolog"),
            (["--verify=crc32c", "--rw=write"], "local-n-0-verify.state", "verify_state_save"),
        ]
        for extra, name, option in cases:
            with self.subTest(option):
                for earlier in (False, True):
                    if earlier:
                        self.write(name, "an earlier run's file\n")
                    p = run([*NULL_JOB, *extra, f"--output={name}"], cwd=self.tmp)
                    self.assertEqual(p.returncode, 2, p.stderr)
                    self.assertIn(f"ioplan: error: --output={name} is job 'n''s {option} file {name}: "
                                  "the results and it would be one file", p.stderr)
                    if earlier:
                        self.assertEqual((self.tmp / name).read_text(), "an earlier run's file\n")
                    else:
                        self.assertFalse((self.tmp / name).exists())
        # --bandwidth-log's files are the cli's own, beside the report.
        p = run([*NULL_JOB, "--bandwidth-log", "--output=agg-write_bw.log"], cwd=self.tmp)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("ioplan: error: --output=agg-write_bw.log is the --bandwidth-log file agg-write_bw.log: "
                      "the results would replace it", p.stderr)
        self.assertFalse((self.tmp / "agg-write_bw.log").exists())

    def test_convert_and_showplan_write_to_output(self):
        job = self.write("j.fio", "[j]\nrw=read\nsize=1m\n")
        p = run(["convert", str(job), "--to=toml", f"--output={self.tmp / 'j.toml'}"])
        self.assertEqual((p.returncode, p.stdout), (0, ""), p.stderr)
        self.assertEqual((self.tmp / "j.toml").read_text(), run(["convert", str(job), "--to=toml"]).stdout)
        p = run(["--showplan", str(job), f"--output={self.tmp / 'plan.json'}"])
        self.assertEqual((p.returncode, p.stdout), (0, ""), p.stderr)
        self.assertEqual(json.loads((self.tmp / "plan.json").read_text())["nr_jobs"], 1)
        missing = self.tmp / "missing" / "j.toml"
        p = run(["convert", str(job), "--to=toml", f"--output={missing}"])
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertEqual(p.stderr, f"ioplan: error: --output={missing}: cannot open for writing: "
                                   "No such file or directory\n")

    def test_diskspd_output_checked_first(self):
        out = self.tmp / "missing" / "out.txt"
        p = run(["diskspd", "-b4K", "-c1M", "-d1", f"--output={out}", str(self.tmp / "t.dat")])
        self.assertFalse((self.tmp / "t.dat").exists())
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn(f"ioplan: error: --output={out}: cannot open for writing: No such file or directory",
                      p.stderr)

    def test_plot_output_checked_before_gnuplot(self):
        result = self.tmp / "r.json"
        p = run([*NULL_JOB, "--output-format=json", f"--output={result}"])
        self.assertEqual(p.returncode, 0, p.stderr)
        chart = self.tmp / "missing" / "chart.svg"
        p = run(["plot", str(result), "-o", str(chart)])
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertEqual(p.stderr, f"ioplan plot: error: -o {chart}: cannot open for writing: "
                                   "No such file or directory\n")


class WriteErrors(TmpDirCase):
    def to_dev_full(self, args):
        with open("/dev/full", "w") as full:
            return subprocess.run([BIN, *args], stdout=full, stderr=subprocess.PIPE, text=True, timeout=60,
                                  cwd=self.tmp)

    def test_every_printing_action_into_dev_full(self):
        self.write("j.fio", "[j]\nrw=read\nsize=1m\n")
        cases = [
            (["--help"], "stdout"), (["--version"], "stdout"), (["--presets"], "stdout"),
            (["--cmdhelp"], "stdout"), (["--cmdhelp=bs"], "stdout"), (["--dump-job-schema"], "stdout"),
            (["--dump-man-options"], "stdout"), (["results", "--help"], "the usage to stdout"),
            ([*NULL_JOB, "--output-format=json"], "the results to stdout"),
            ([*NULL_JOB], "the results to stdout"),
            ([*NULL_JOB, "--output-format=terse,json+"], "the results to stdout"),
            ([*NULL_JOB, "--showplan"], "the plan to stdout"),
            (["convert", "j.fio", "--to=toml"], "the converted job to stdout"),
            (["diskspd", "-b4K", "-c1M", "--job", "t.dat"], "the job to stdout"),
            (["diskspd", "-b4K", "-c1M", "--showplan", "t.dat"], "the plan to stdout"),
            (["diskspd", "-b4K", "-c1M", "-Rptext", "t.dat"], "the profile to stdout"),
        ]
        for args, what in cases:
            with self.subTest(args=args):
                p = self.to_dev_full(args)
                self.assertEqual(p.returncode, 1, p.stderr)
                self.assertTrue(p.stderr.endswith(f"ioplan: error: writing {what}: {ENOSPC}\n"), p.stderr)

    def test_output_file_on_dev_full(self):
        p = run([*NULL_JOB, "--output-format=json", "--output=/dev/full"])
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertEqual(p.stderr, f"ioplan: error: writing the results to /dev/full: {ENOSPC}\n"
                                   "ioplan: the results are on stdout instead\n")
        self.assertEqual(json.loads(p.stdout)["jobs"][0]["read"]["io_bytes"], 1 << 20)
        with open("/dev/full", "w") as full:  # and when stdout fails too, both are said
            p = subprocess.run([BIN, *NULL_JOB, "--output-format=json", "--output=/dev/full"], stdout=full,
                               stderr=subprocess.PIPE, text=True, timeout=60)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertTrue(p.stderr.endswith(f"ioplan: error: writing the results to stdout: {ENOSPC}\n"), p.stderr)


class ClosedStdDescriptors(TmpDirCase):
    """Started with stdout or stderr closed (`ioplan ... 2>&-`): no file ioplan opens
    takes the number, so nothing meant for the closed stream lands in it."""

    def started(self, closed, args):
        """ioplan with descriptor `closed` shut, once its threads run (its signals are
        handled then); its stdout and stderr, when open, are pipes."""
        proc = subprocess.Popen([BIN, *args], cwd=self.tmp, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE if closed != 1 else None,
                                stderr=subprocess.PIPE if closed != 2 else None, text=True,
                                preexec_fn=lambda: os.close(closed))
        self.addCleanup(lambda: proc.poll() is None and (proc.kill(), proc.wait()))
        wait_until(lambda: len(os.listdir(f"/proc/{proc.pid}/task")) >= 3, 30, "the run's threads")
        return proc

    def test_a_stop_said_with_stderr_closed_is_not_in_the_output_file(self):
        # --output's file took fd 2, so "ioplan: stopping (signal 2)" opened the JSON.
        out = self.tmp / "out.json"
        proc = self.started(2, ["--name=n", "--ioengine=null", "--size=1m", "--time_based", "--runtime=60",
                                "--rate_iops=20", "--output-format=json", f"--output={out}"])
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=30)
        self.assertEqual(proc.returncode, 1)
        doc = json.loads(out.read_text())
        self.assertTrue(doc["ioplan"]["interrupted"])

    def test_a_closed_stdout_is_held_by_nothing_ioplan_opens(self):
        # The engine's eventfd took fd 1, and the reports of the results so far went into it.
        proc = self.started(1, ["--name=n", "--ioengine=null", "--size=1m", "--time_based", "--runtime=60",
                                "--rate_iops=20", f"--directory={self.tmp}", "--write_bw_log=n"])
        self.assertEqual(os.readlink(f"/proc/{proc.pid}/fd/1"), "/")
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=30)
        self.assertEqual(proc.returncode, 1)

    def test_reports_of_the_results_so_far_into_a_closed_stdout_fail_at_once(self):
        # They were kept, every one, until the run ended (1 MB a second at 100 a second).
        proc = self.started(1, ["--name=n", "--ioengine=null", "--size=1m", "--time_based", "--runtime=60",
                                "--rate_iops=20", "--status-interval=0.1", "--output-format=json"])
        wait_for_stderr(proc, b"ioplan: error: writing the results so far to stdout: Bad file descriptor\n")
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
        self.assertEqual(proc.returncode, 1)
        self.assertIn("writing the results to stdout: Bad file descriptor", err)


class OutputRemovedDuringTheRun(TmpDirCase):
    """--output's file (or its directory) removed while the run goes on: the results
    went into the removed file with exit 0, and nobody could read them."""

    def run_removing(self, dest, remove, opened=None):
        """The run's output file (opened: the file it opens, else dest) removed by
        remove() once the run holds it open."""
        # Paced: the run only has to last while the file is removed, not spin a core.
        proc = subprocess.Popen([BIN, "--name=n", "--ioengine=null", "--size=1m", "--time_based",
                                 "--runtime=2", "--rate_iops=1000", "--output-format=json", f"--output={dest}"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        opened = opened or dest

        def holds_it():
            try:
                return any(os.readlink(f"/proc/{proc.pid}/fd/{fd}") == str(opened)
                           for fd in os.listdir(f"/proc/{proc.pid}/fd"))
            except OSError:
                return False

        out, err = communicate_after(proc, lambda: wait_until(holds_it, what="the output file opened before the run"),
                                     remove)
        return proc.returncode, out, err

    def test_an_output_removed_with_its_directory_is_on_stdout(self):
        where = self.tmp / "out"
        where.mkdir()
        dest = where / "r.json"
        rc, out, err = self.run_removing(dest, lambda: subprocess.run(["rm", "-rf", str(where)], check=True))
        self.assertEqual(rc, 1, err)
        self.assertIn(f"ioplan: error: writing the results to {dest}: the file was removed during the run "
                      "and cannot be made again", err)
        self.assertTrue(err.endswith("ioplan: the results are on stdout instead\n"), err)
        self.assertGreater(json.loads(out)["jobs"][0]["read"]["io_bytes"], 0)

    def test_an_output_removed_is_made_again_by_its_name(self):
        dest = self.tmp / "r.json"
        rc, out, err = self.run_removing(dest, dest.unlink)
        self.assertEqual(rc, 0, err)
        self.assertEqual(err, f"ioplan: warning: {dest} was removed during the run: "
                              "writing the results to a new file by that name\n")
        self.assertEqual(out, "")
        self.assertGreater(json.loads(dest.read_text())["jobs"][0]["read"]["io_bytes"], 0)

    def test_what_took_the_name_of_an_output_removed_is_not_written_over(self):
        # Removed, and a link to a user's file (or another file) put in its place: the
        # results went through the link over the user's file, exit 0, with a warning
        # that they went "to a new file by that name".
        victim = self.tmp / "precious.txt"
        for kind in ("symlink", "file", "renamed over"):
            with self.subTest(kind=kind):
                victim.write_text("the user's data\n")
                dest = self.tmp / "r.json"
                dest.unlink(missing_ok=True)
                if kind == "symlink":
                    took, said = lambda: (dest.unlink(), dest.symlink_to(victim)), f"a symbolic link to {victim}"
                elif kind == "file":
                    took, said = lambda: (dest.unlink(), dest.write_text("the user's data\n")), "another file"
                else:
                    took, said = lambda: os.rename(victim, dest), "another file"
                rc, out, err = self.run_removing(dest, took)
                self.assertEqual(rc, 1, err)
                self.assertEqual(err, f"ioplan: error: writing the results to {dest}: the file was removed during "
                                      f"the run and {said} has its name now: it is not written over\n"
                                      "ioplan: the results are on stdout instead\n")
                self.assertGreater(json.loads(out)["jobs"][0]["read"]["io_bytes"], 0)
                self.assertEqual(dest.read_text(), "the user's data\n")
                if kind == "symlink":
                    self.assertEqual(victim.read_text(), "the user's data\n")

    def test_the_file_a_users_link_points_to_removed_is_not_made_again_through_it(self):
        # --output named a link to a file; the file was removed during the run.  ioplan
        # makes no file through a link (a dangling one is refused at the start): the
        # results go to stdout, and the error says why the name is left alone.
        target = self.tmp / "target.json"
        target.write_text("older results\n")
        dest = self.tmp / "r.json"
        dest.symlink_to(target)
        rc, out, err = self.run_removing(dest, target.unlink, opened=target)
        self.assertEqual(rc, 1, err)
        self.assertEqual(err, f"ioplan: error: writing the results to {dest}: the file was removed during the "
                              f"run and cannot be made again: cannot open for writing: it is a symbolic link to "
                              f"{target}, which does not exist (ioplan makes no file through a link)\n"
                              "ioplan: the results are on stdout instead\n")
        self.assertGreater(json.loads(out)["jobs"][0]["read"]["io_bytes"], 0)
        self.assertFalse(target.exists())
        self.assertTrue(dest.is_symlink())


    def test_a_fifo_replaced_during_the_run_is_not_written_through_what_took_its_name(self):
        # --output=FIFO with no reader yet is opened when the results exist.  The FIFO
        # removed and a link to a user's file put in its place, the results went through
        # the link over the user's file, exit 0, nothing said.
        victim = self.tmp / "precious.txt"
        victim.write_text("the user's data\n")
        fifo = self.tmp / "results.fifo"
        os.mkfifo(fifo)
        # Paced, and long enough that the swap after the first progress line comes well
        # before the end (a swap after the FIFO's open would leave that open waiting).
        proc = subprocess.Popen([BIN, "--name=n", "--ioengine=null", "--size=1m", "--time_based", "--runtime=4",
                                 "--rate_iops=1000", "--output-format=json", f"--output={fifo}", "--eta=always"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        swap = lambda: (fifo.unlink(), fifo.symlink_to(victim))  # noqa: E731
        out, err = communicate_after(proc, lambda: wait_for_stderr(proc), swap)
        self.assertEqual(proc.returncode, 1, err)
        self.assertIn(f"ioplan: error: writing the results to {fifo}: the FIFO was replaced during the run and a "
                      f"symbolic link to {victim} has its name now: it is not written to\n"
                      "ioplan: the results are on stdout instead\n", err.decode())
        self.assertGreater(json.loads(out)["jobs"][0]["read"]["io_bytes"], 0)
        self.assertEqual(victim.read_text(), "the user's data\n")


@unittest.skipIf(os.geteuid() != 0, "mounting a tmpfs needs root")
class FullFileSystem(MountCase):
    def setUp(self):
        super().setUp()
        self.mnt = self.tmp / "small"
        self.mnt.mkdir()
        # 128 KiB: filled up below either way, and the whole chart of the plot test (56 KB
        # and its script) once the filler is gone took all but a page of 64 KiB (a fresh
        # clone's make test once failed that last step, its script short of a page).
        if sh("mount", "-t", "tmpfs", "-o", "size=128k", "tmpfs", str(self.mnt)).returncode:
            self.skipTest("mount -t tmpfs refused here")
        self.addCleanup(sh, "umount", "-l", str(self.mnt))
        fill_up(self.mnt)

    def test_convert_into_a_full_file_system(self):
        job = self.write("j.fio", "[global]\nioengine=null\n" + "".join(
            f"[job{i}]\nrw=randread\nsize={i + 1}m\nbs=4k\n" for i in range(50)))
        dest = self.mnt / "j.toml"
        with open(dest, "w") as out:
            p = subprocess.run([BIN, "convert", str(job), "--to=toml"], stdout=out, stderr=subprocess.PIPE,
                               text=True, timeout=60)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertEqual(p.stderr, f"ioplan: error: writing the converted job to stdout: {ENOSPC}\n")

    def test_results_into_a_full_file_system(self):
        # The disk filled during the run: the run's numbers come out on stdout instead.
        dest = self.mnt / "r.json"
        p = run([*NULL_JOB, "--output-format=json+", f"--output={dest}"])
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertEqual(p.stderr, f"ioplan: error: writing the results to {dest}: {ENOSPC} (no file is left)\n"
                                   "ioplan: the results are on stdout instead\n")
        self.assertEqual(json.loads(p.stdout)["jobs"][0]["read"]["io_bytes"], 1 << 20)
        self.assertFalse(dest.exists())

    def test_earlier_results_survive_a_full_file_system(self):
        # fio truncates its --output first and leaves what fits; ioplan writes nothing over the
        # older file until the new results' space is had.
        filler = self.mnt / "filler"
        os.truncate(filler, filler.stat().st_size - 4096)
        dest = self.mnt / "r.json"
        dest.write_text('{"older": "results"}\n')
        p = run([*NULL_JOB, "--output-format=json+", f"--output={dest}"])
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertEqual(p.stderr, f"ioplan: error: writing the results to {dest}: {ENOSPC} "
                                   "(the older file is left as it was)\n"
                                   "ioplan: the results are on stdout instead\n")
        self.assertEqual(json.loads(p.stdout)["jobs"][0]["read"]["io_bytes"], 1 << 20)
        self.assertEqual(dest.read_text(), '{"older": "results"}\n')
        small = run([*NULL_JOB, "--output-format=terse", f"--output={dest}"])  # fits in its page
        self.assertEqual(small.returncode, 0, small.stderr)
        self.assertTrue(dest.read_text().startswith("3;"), dest.read_text()[:80])
        self.assertEqual(dest.read_text().count("\n"), 1)  # cut to the new length

    def json_documents(self, text):
        """The JSON documents text holds one after another; fails on a cut one."""
        decoder, at, docs = json.JSONDecoder(), 0, []
        while text[at:].strip():
            at += len(text[at:]) - len(text[at:].lstrip())
            doc, at = decoder.raw_decode(text, at)
            docs.append(doc)
        return docs

    def test_status_reports_into_a_full_file_system_keep_the_older_file(self):
        # The first report of the results so far went over the older file before its space
        # was had: a full disk left the first 4 KiB of a report in place of the older results.
        filler = self.mnt / "filler"
        os.truncate(filler, filler.stat().st_size - 4096)
        dest = self.mnt / "r.json"
        dest.write_text('{"older": "results"}\n')  # takes the page freed: a report (7 KiB) has no room
        p = run(["--name=n", "--ioengine=null", "--size=1m", "--time_based", "--runtime=1500ms",
                 "--status-interval=300ms", "--output-format=json", f"--output={dest}"])
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn(f"ioplan: error: writing the results so far to {dest}: {ENOSPC} "
                      "(the older file is left as it was)\n", p.stderr)
        self.assertTrue(p.stderr.endswith("ioplan: the results are on stdout instead\n"), p.stderr)
        self.assertEqual(dest.read_text(), '{"older": "results"}\n')
        self.assertGreater(json.loads(p.stdout)["jobs"][0]["read"]["io_bytes"], 0)

    def test_status_reports_into_a_full_file_system_are_each_whole(self):
        # Room for one report of the results so far (7 KiB) but not two: the second was cut
        # where the disk filled, so the file was no longer one stream of whole reports.
        filler = self.mnt / "filler"
        os.truncate(filler, filler.stat().st_size - 12288)
        dest = self.mnt / "r.json"
        p = run(["--name=n", "--ioengine=null", "--size=1m", "--time_based", "--runtime=1500ms",
                 "--status-interval=300ms", "--output-format=json", f"--output={dest}"])
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertGreaterEqual(len(self.json_documents(dest.read_text())), 1)
        self.assertIn(f"{dest}: {ENOSPC} (the reports before it are kept)\n", p.stderr)
        self.assertTrue(p.stderr.endswith("ioplan: the results are on stdout instead\n"), p.stderr)
        self.assertGreater(json.loads(p.stdout)["jobs"][0]["read"]["io_bytes"], 0)

    def test_plot_into_a_full_file_system(self):
        result = self.tmp / "r.json"
        p = run([*NULL_JOB, "--output-format=json", f"--output={result}"])
        self.assertEqual(p.returncode, 0, p.stderr)
        filler = self.mnt / "filler"
        os.truncate(filler, filler.stat().st_size - 4096)  # one page: the script fits, the chart does not
        chart = self.mnt / "chart.svg"
        # gnuplot drew into the chart's file and exits 0 on a full disk: an empty chart was
        # left, and an older one replaced by its first 8 KiB (said, but the file was cut).
        for older in (None, "<svg>an older chart</svg>\n"):
            with self.subTest(older=older):
                if older:
                    os.truncate(filler, filler.stat().st_size - 4096)  # the older chart's page
                    chart.write_text(older)
                p = run(["plot", str(result), "-o", str(chart)])
                self.assertEqual(p.returncode, 1, p.stderr)
                self.assertEqual(p.stderr, f"ioplan: error: writing the chart to {chart}: {ENOSPC} "
                                           f"({'the older file is left as it was' if older else 'no file is left'})\n")
                if older:
                    self.assertEqual(chart.read_text(), older)
                else:
                    self.assertFalse(chart.exists())
        chart.unlink()
        filler.unlink()  # with room, the whole chart
        p = run(["plot", str(result), "-o", str(chart)])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertTrue(chart.read_text().rstrip().endswith("</svg>"))
        self.assertIn(f"set output '{chart}'", (self.mnt / "chart.svg.gp").read_text())  # the script redraws it

    def test_plot_keeps_an_older_script_on_a_full_file_system(self):
        # The script beside the chart redraws it.  It was written first, by a truncating
        # stream, whatever became of the chart: replaced here though the chart failed (or
        # left empty or cut where its own page did not fit).  Now it is replaced only whole,
        # after the chart; here neither fits and both stay as they were.  The older script
        # is an earlier plot's (one of the user's by its name is not replaced at all).
        result = self.tmp / "r.json"
        p = run([*NULL_JOB, "--output-format=json", f"--output={result}"])
        self.assertEqual(p.returncode, 0, p.stderr)
        (self.mnt / "filler").unlink()
        chart, script = self.mnt / "chart.svg", self.mnt / "chart.svg.gp"
        p = run(["plot", str(result), "-o", str(chart)])  # with room: the earlier plot
        self.assertEqual(p.returncode, 0, p.stderr)
        older = script.read_bytes()
        chart.write_text("<svg>an older chart</svg>\n")
        fill_up(self.mnt)
        other = self.tmp / "other.json"  # another run's chart, whose script would differ
        p = run(["--name=other", *NULL_JOB[1:], "--output-format=json", f"--output={other}"])
        self.assertEqual(p.returncode, 0, p.stderr)
        p = run(["plot", str(other), "-o", str(chart)])
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn(f"writing the chart to {chart}: {ENOSPC}", p.stderr)
        self.assertEqual(script.read_bytes(), older)
        self.assertEqual(chart.read_text(), "<svg>an older chart</svg>\n")


@unittest.skipIf(os.geteuid() != 0, "mounting a file system needs root")
class FullFileSystemWithoutFallocate(MountCase):
    """ext2 has no fallocate: the results' space was not had first, so the text went
    over the older file's blocks until the disk was full, and left neither file."""

    def setUp(self):
        super().setUp()
        if not shutil.which("mkfs.ext2"):
            self.skipTest("no mkfs.ext2")
        img = tmpfs(self, "size=2m") / "ext2.img"  # off the machine's disk
        with open(img, "wb") as f:
            f.truncate(1 << 20)
        self.mnt = self.tmp / "ext2"
        self.mnt.mkdir()
        if sh("mkfs.ext2", "-q", "-F", str(img)).returncode or sh("mount", "-o", "loop", str(img),
                                                                   str(self.mnt)).returncode:
            self.skipTest("cannot make and mount an ext2 image here")
        self.addCleanup(sh, "umount", str(self.mnt))

    def test_a_full_disk_keeps_the_older_file_and_leaves_no_new_one(self):
        older = '{"older": "' + "x" * 5000 + '"}\n'  # two pages: the first would be written over
        dest = self.mnt / "r.json"
        dest.write_text(older)
        fill_up(self.mnt)
        for name, left in (("r.json", "the older file is left as it was"), ("new.json", "no file is left")):
            with self.subTest(name):
                p = run([*NULL_JOB, "--output-format=json+", f"--output={self.mnt / name}"])
                self.assertEqual(p.returncode, 1, p.stderr)
                self.assertEqual(p.stderr, f"ioplan: error: writing the results to {self.mnt / name}: {ENOSPC} "
                                           f"({left})\nioplan: the results are on stdout instead\n")
                self.assertEqual(json.loads(p.stdout)["jobs"][0]["read"]["io_bytes"], 1 << 20)
        self.assertEqual(dest.read_text(), older)
        self.assertFalse((self.mnt / "new.json").exists())
        (self.mnt / "filler").unlink()  # and with room, the results replace it whole
        p = run([*NULL_JOB, "--output-format=json+", f"--output={dest}"])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(json.loads(dest.read_text())["jobs"][0]["read"]["io_bytes"], 1 << 20)


if __name__ == "__main__":
    unittest.main()
