"""tests/e2e/test_logs_faults.py - a log file that cannot be written:
--bandwidth-log's agg-*_bw.log and the per-job logs.

The property a user relies on: a path that cannot be created is refused
before any I/O (exit 2); a log that fails during the run leaves the run's
results reported in full, the error naming the file, and the exit status
saying the run did not go well (1), so a script that keeps the logs notices
they are missing; so does a log removed while the run writes it (its
directory too), whose lines went with it.  A directory that cannot be written
(a read-only file system, one the user may not write) is known before any I/O
too: refused then, not found after the whole run.  We run as root,
so "unwritable" is a path under a regular file (ENOTDIR), a directory where the
file should be (EISDIR) or a symlink to /dev/full (ENOSPC on every write).
"""
import json
import os
import shutil
import signal
import subprocess

from common import BIN, TmpDirCase, communicate_after, fill_up, run, tmpfs, wait_until

JOB = ["--name=j", "--ioengine=null", "--size=8m", "--bs=4k"]


class LogFaults(TmpDirCase):
    def go(self, *extra, fmt="json"):
        p = run([*JOB, *extra, "--output-format=" + fmt], cwd=self.tmp)
        return p

    def assert_reported(self, p, path, why):
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn(path, p.stderr)
        self.assertIn(why, p.stderr)
        d = json.loads(p.stdout[p.stdout.index("{"):])
        self.assertEqual(d["jobs"][0]["read"]["io_bytes"], 8 << 20)  # nothing else lost

    def test_bandwidth_log_where_a_directory_is(self):
        os.mkdir(self.tmp / "agg-read_bw.log")
        p = self.go("--bandwidth-log")
        self.assert_reported(p, "agg-read_bw.log", "Is a directory")

    def test_bandwidth_log_on_a_full_device(self):
        os.symlink("/dev/full", self.tmp / "agg-read_bw.log")
        p = self.go("--bandwidth-log", "--rate=8m")  # 1 s: at least one 500 ms bwavgtime line
        self.assert_reported(p, "agg-read_bw.log", "No space left on device")

    def test_bandwidth_log_that_works_exits_0(self):
        p = self.go("--bandwidth-log", "--rate=8m")  # 1 s, as above
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertGreater(os.path.getsize(self.tmp / "agg-read_bw.log"), 0)

    def test_bandwidth_log_failure_is_in_the_normal_output_too(self):
        os.mkdir(self.tmp / "agg-write_bw.log")
        p = self.go("--bandwidth-log", fmt="normal")
        self.assertEqual(p.returncode, 1)
        self.assertIn("READ: bw=", p.stdout)
        self.assertIn("agg-write_bw.log: Is a directory", p.stdout)

    def test_per_job_log_and_iolog_under_a_regular_file(self):
        # A path that cannot be created is known before any I/O: refused then (exit 2), naming each file.
        self.write("notadir", "")
        p = self.go("--write_bw_log=notadir/x", "--write_lat_log=notadir/y", "--write_iolog=notadir/z.log")
        self.assertEqual((p.returncode, p.stdout), (2, ""))
        for what in ("write_bw_log: notadir/x_bw.1.log", "write_lat_log: notadir/y_clat.1.log",
                     "write_iolog: notadir/z.log"):
            self.assertIn(f"ioplan: error: job 'j': {what}: cannot open for writing: Not a directory\n", p.stderr)

    def test_an_iolog_that_is_a_directory_fails_the_job_saying_why_once(self):
        # The job's error line said the errno's words twice ("cannot open for writing: Is a
        # directory: Is a directory (errno 21)") once the safety check's reason joined it.
        (self.tmp / "d").mkdir()
        p = self.go("--write_iolog=d")
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn("write_iolog=d: cannot open for writing: Is a directory (errno 21)\n", p.stderr)

    def test_logs_and_iolog_through_links_to_nothing_are_refused_before_any_io(self):
        # The run went whole, then each failed to open: "No such file or directory" (exit 1).
        (self.tmp / "x_bw.1.log").symlink_to(self.tmp / "gone" / "x")
        (self.tmp / "t.log").symlink_to("t2.log")
        (self.tmp / "t2.log").symlink_to("t.log")  # a loop of links
        p = self.go("--rw=write", "--ioengine=psync", "--filename=data", "--write_bw_log=x", "--write_iolog=t.log")
        self.assertEqual((p.returncode, p.stdout), (2, ""), p.stderr)
        self.assertIn(f"ioplan: error: job 'j': write_bw_log: x_bw.1.log: cannot open for writing: it is a symbolic "
                      f"link to {self.tmp}/gone/x, which does not exist (ioplan makes no file through a link)\n",
                      p.stderr)
        self.assertIn("ioplan: error: job 'j': write_iolog: t.log: cannot open for writing: Too many levels of "
                      "symbolic links\n", p.stderr)
        self.assertFalse((self.tmp / "data").exists(), "the job ran before the refusal")

    def test_per_job_log_on_a_full_device(self):
        os.symlink("/dev/full", self.tmp / "x_iops.1.log")
        p = self.go("--write_iops_log=x")
        self.assert_reported(p, "x_iops.1.log", "No space left on device")

    def test_logs_and_iolog_removed_during_the_run(self):
        # The logs are written as the run goes: removed with their directory, what was
        # written went with them, and the run said nothing and exited 0.
        where = self.tmp / "logs"
        where.mkdir()
        proc = subprocess.Popen([BIN, *JOB, "--rw=read", "--time_based", "--runtime=2",
                                 f"--write_bw_log={where}/x", "--log_avg_msec=100", f"--write_iolog={where}/t.log",
                                 "--output-format=json"], cwd=self.tmp, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        out, err = communicate_after(proc, lambda: wait_until(lambda: (where / "t.log").exists() and
                                                              (where / "x_bw.1.log").exists(),
                                                              what="the iolog and the log opened"),
                                     lambda: shutil.rmtree(where))
        self.assertEqual(proc.returncode, 1, err)
        self.assertIn(f"ioplan: error: log file {where}/x_bw.1.log: removed during the run, "
                      "and what was written went with it\n", err)
        self.assertIn(f"write_iolog={where}/t.log was removed during the run, and the trace with it", err)
        self.assertGreater(json.loads(out)["jobs"][0]["read"]["io_bytes"], 0)  # the results are all there

    def test_bandwidth_log_removed_during_the_run(self):
        proc = subprocess.Popen([BIN, *JOB, "--rate=4m", "--bandwidth-log", "--output-format=json"], cwd=self.tmp,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        log = self.tmp / "agg-read_bw.log"
        out, err = communicate_after(proc, lambda: wait_until(log.exists, what="the bandwidth log opened"), log.unlink)
        self.assertEqual(proc.returncode, 1, err)
        self.assertIn("--bandwidth-log: ./agg-read_bw.log: removed during the run, and what was written went with it",
                      err)
        self.assertEqual(json.loads(out)["jobs"][0]["read"]["io_bytes"], 8 << 20)

    def test_side_files_on_a_read_only_file_system_are_refused_before_any_io(self):
        # A read-only directory was found only as each file opened: the whole workload ran,
        # then the logs, the trace and an asked-for verify state were lost (exit 1).
        ro = tmpfs(self, "ro,size=64k")
        data = self.tmp / "data"
        job = ["--name=j", f"--filename={data}", "--size=64k", "--bs=4k", "--rw=write", "--output-format=json"]
        p = run([*job, f"--write_bw_log={ro}/x", f"--write_iolog={ro}/t.log", "--verify=crc32c",
                 "--verify_state_save=1", f"--aux-path={ro}"], cwd=self.tmp)
        self.assertEqual((p.returncode, p.stdout), (2, ""), p.stderr)
        for what in (f"write_bw_log: {ro}/x_bw.1.log", f"write_iolog: {ro}/t.log",
                     f"verify_state_save: {ro}/local-j-0-verify.state"):
            self.assertIn(f"ioplan: error: job 'j': {what}: cannot open for writing: Read-only file system\n",
                          p.stderr)
        p = run([*job, "--exec_prerun=true"], cwd=ro)  # the prerun's output goes to the working directory
        self.assertEqual((p.returncode, p.stdout), (2, ""), p.stderr)
        self.assertIn("exec_prerun: j.prerun.txt: cannot open for writing: Read-only file system", p.stderr)
        # and the files the command line asks for: --bandwidth-log's (in the working directory), a rank file
        p = run([*job, "--bandwidth-log"], cwd=ro)
        self.assertEqual((p.returncode, p.stdout), (2, ""), p.stderr)
        self.assertIn("--bandwidth-log: ./agg-read_bw.log: cannot open for writing: Read-only file system", p.stderr)
        p = run([*job, f"--rank-output={ro}"], cwd=self.tmp)
        self.assertEqual((p.returncode, p.stdout), (2, ""), p.stderr)
        self.assertIn(f"--rank-output={ro}: cannot open for writing: Read-only file system", p.stderr)
        self.assertFalse(data.exists())
        # verify_state_save by fio's default is no reason to refuse: the run goes, a warning says so.
        p = run([*job, "--verify=crc32c", f"--aux-path={ro}"], cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(json.loads(p.stdout)["jobs"][0]["write"]["io_bytes"], 64 << 10)


class LogsFillTheDisk(TmpDirCase):
    """The disk fills while the logs are written: each ended with a piece of a line
    where the space ran out ("0, 4"), which a reader took for a line, and a compressed
    log with a cut stream that --inflate-log refused whole."""

    def fill(self, *extra, room=200 << 10):
        """Runs the job with extra into a tmpfs with room bytes free; the tmpfs and stderr."""
        mnt = tmpfs(self, "size=1m")
        fill_up(mnt)
        os.truncate(mnt / "filler", (mnt / "filler").stat().st_size - room)  # a few writes' worth
        p = run([*JOB, "--rw=read", *[a.format(mnt=mnt) for a in extra], "--output-format=json"], cwd=self.tmp)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertGreater(json.loads(p.stdout)["jobs"][0]["read"]["io_bytes"], 0)
        return mnt, p.stderr

    def test_a_log_and_the_iolog_end_at_a_whole_line(self):
        mnt, err = self.fill("--size=64m", "--write_bw_log={mnt}/x", "--write_iolog={mnt}/t.log")
        self.assertIn(f"log file {mnt}/x_bw.1.log: No space left on device (errno 28); "
                      "it ends at the last whole entry written before it", err)
        self.assertIn(f"writing write_iolog={mnt}/t.log (the trace ends at the last whole line before the error): "
                      "No space left on device", err)
        kept = 0
        for name, columns in (("x_bw.1.log", 5), ("t.log", 5)):
            text = (mnt / name).read_text()
            kept += len(text)
            self.assertTrue(text == "" or text.endswith("\n"), f"{name} ends in {text[-20:]!r}")
            lines = text.splitlines()[4:] if name == "t.log" else text.splitlines()  # past the header
            self.assertEqual([line for line in lines if len(line.split()) != columns], [], name)
        self.assertGreater(kept, 0, "nothing was written before the disk filled")

    def test_a_compressed_log_ends_at_a_whole_stream(self):
        mnt, err = self.fill("--size=256m", "--write_lat_log={mnt}/z", "--log_store_compressed=1",
                             "--log_compression=16k", room=64 << 10)
        self.assertIn(f"log file {mnt}/z_clat.1.log.fz: No space left on device", err)
        self.assertGreater((mnt / "z_clat.1.log.fz").stat().st_size, 0)
        inflated = run([f"--inflate-log={mnt / 'z_clat.1.log.fz'}"])
        self.assertEqual(inflated.returncode, 0, inflated.stderr)
        self.assertGreater(len(inflated.stdout.splitlines()), 0)

    def test_a_log_the_disk_cut_is_replaced_by_the_next_run(self):
        # Its mark was not stamped, so the run after the disk was freed refused it as a user's file.
        mnt, _ = self.fill("--size=64m", "--write_bw_log={mnt}/x")
        log = mnt / "x_bw.1.log"
        try:
            os.setxattr(mnt / "filler", "user.probe", b"1")
        except OSError as e:
            self.skipTest(f"no user xattrs on tmpfs here: {e}")
        cut = log.stat().st_size
        self.assertGreater(cut, 0)
        (mnt / "filler").unlink()
        p = run([*JOB, "--size=64m", "--rw=read", f"--write_bw_log={mnt}/x", "--output-format=json"], cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertGreater(log.stat().st_size, cut)

    def test_bandwidth_log_the_disk_fills_ends_at_a_whole_line(self):
        # Written through a stdio buffer, the file was cut where the buffer's 4 KiB ended,
        # and left unmarked: the run after the disk was freed refused it as a user's.
        mnt = tmpfs(self, "size=1m")
        fill_up(mnt)
        os.truncate(mnt / "filler", (mnt / "filler").stat().st_size - 4096)  # one page: agg-read_bw.log's
        log = mnt / "agg-read_bw.log"
        proc = subprocess.Popen([BIN, *JOB, "--time_based", "--runtime=120", "--bwavgtime=1", "--bandwidth-log",
                                 "--output-format=json"], cwd=mnt, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True)
        out, err = communicate_after(proc, lambda: wait_until(lambda: log.exists() and log.stat().st_size > 4000,
                                                              what="the bandwidth log filling its page"),
                                     lambda: proc.send_signal(signal.SIGINT))
        self.assertEqual(proc.returncode, 1, err)
        self.assertIn("No space left on device; it ends at the last whole line written before it", err)
        self.assertGreater(json.loads(out)["jobs"][0]["read"]["io_bytes"], 0)
        text = log.read_text()
        self.assertTrue(text.endswith("\n"), text[-40:])
        self.assertEqual([line for line in text.splitlines() if len(line.split(", ")) != 5], [])
        try:
            os.setxattr(mnt / "filler", "user.probe", b"1")
        except OSError as e:
            self.skipTest(f"no user xattrs on tmpfs here: {e}")
        (mnt / "filler").unlink()
        p = run([*JOB, "--bandwidth-log", "--output-format=json"], cwd=mnt)
        self.assertEqual(p.returncode, 0, p.stderr)
