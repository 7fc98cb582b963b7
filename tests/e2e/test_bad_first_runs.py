"""tests/e2e/test_bad_first_runs.py - what goes wrong in a newcomer's first runs, refused early.

A mistyped device name (/dev/sdz for /dev/sdb) with size= would create a regular
file on devtmpfs, lay it out in RAM and report memory as the disk: ioplan refuses
it before any I/O (exit 2) and creates nothing.  The gnome-disks preset on a whole
device, as its comment says to use it, takes min(100, size / 10 MiB) samples,
each at a direct-I/O-aligned offset, whatever the device's size.  A run that
creates test files says so at its end, with their size and the command that
removes them; files fio laid out are read as they are (reading is safe).
"""
import json
import os
import re
import subprocess
import unittest

from common import BIN, FIO, TmpDirCase, fifo_writer, run, run_fio


class MistypedDevice(TmpDirCase):
    def test_no_test_file_is_created_under_dev(self):
        path = f"/dev/ioplan-e2e-sdz-{os.getpid()}"
        if not os.path.ismount("/dev") or os.path.exists(path):
            self.skipTest("/dev is not a mount here, or the name is taken")
        try:
            p = run(["--name=t", f"--filename={path}", "--size=16m", "--rw=write"], cwd=self.tmp)
            self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
            self.assertIn(f"{path} does not exist, and a test file is never created in /dev (devtmpfs",
                          p.stderr)
            self.assertFalse(os.path.exists(path))
            # A read job is refused the same way (it would lay the file out first).
            p = run(["--name=t", f"--filename={path}", "--size=16m", "--rw=read"], cwd=self.tmp)
            self.assertEqual(p.returncode, 2)
            self.assertFalse(os.path.exists(path))
        finally:
            if os.path.exists(path):
                os.unlink(path)


class GnomeDisksOnADevice(TmpDirCase):
    def sample_count(self, size_mib):
        img = self.tmp / f"disk{size_mib}.img"
        with open(img, "wb") as f:
            f.truncate(size_mib << 20)  # sparse: reads are fast, nothing is written
        dev = subprocess.run(["losetup", "-f", "--show", str(img)], capture_output=True, text=True,
                             check=True).stdout.strip()
        try:
            p = run(["--preset=gnome-disks", f"--filename={dev}", "--size=100%"], cwd=self.tmp, timeout=300)
            self.assertEqual(p.returncode, 0, p.stdout[-800:] + p.stderr)
            self.assertNotIn("Invalid argument", p.stdout + p.stderr)
            m = re.search(r"Read rate, (\d+) samples of 10.0 MiB", p.stdout)
            self.assertTrue(m, p.stdout[:800])
            return int(m.group(1))
        finally:
            subprocess.run(["losetup", "-d", dev])

    def test_whole_device_samples_are_aligned_and_counted_by_size(self):
        if os.geteuid() != 0:
            self.skipTest("needs root for loop devices")
        # 1% of 1234 MiB is 12939427 bytes: unaligned zone starts failed the second read.
        self.assertEqual(self.sample_count(1234), 100)
        self.assertEqual(self.sample_count(200), 20)


class LongPath(TmpDirCase):
    def test_a_path_past_path_max_fails_for_its_length_not_for_a_file_where_its_directory_is_cut(self):
        # The preflight looks a file up by name in its directory, which it keeps open;
        # that directory's name, cut at PATH_MAX, was another directory, and a file "f"
        # there was taken for the job's (a refusal naming someone else's file).  fio
        # 3.33 and ioplan both fail the open: File name too long, exit code 1.
        cut = self.tmp
        while len(str(cut)) < 4095 - 210:
            cut = cut / ("d" * 200)
        cut = cut / ("e" * (4095 - len(str(cut)) - 1))
        here = os.getcwd()
        try:
            os.chdir(self.tmp)
            for part in cut.relative_to(self.tmp).parts:
                os.mkdir(part)
                os.chdir(part)
            with open("f", "w") as f:
                f.write("someone else's")
        finally:
            os.chdir(here)
        path = f"{cut}zz/f"
        p = run(["--name=x", f"--filename={path}", "--size=4k", "--rw=write"], cwd=self.tmp)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertEqual(p.stderr, f"ioplan: error: {path}: File name too long\n")
        top = os.open(self.tmp, os.O_PATH)
        fd = os.open(str(cut.relative_to(self.tmp)), os.O_PATH, dir_fd=top)
        try:
            with open(os.open("f", os.O_RDONLY, dir_fd=fd)) as f:
                self.assertEqual(f.read(), "someone else's")
        finally:
            os.close(fd)
            os.close(top)
        if FIO:
            self.assertEqual(run_fio(["--name=x", f"--filename={path}", "--size=4k", "--rw=write"],
                                     cwd=self.tmp).returncode, 1)

    def test_a_refusal_naming_a_long_path_keeps_its_reason(self):
        # A finding was cut at 640 bytes and a safety reason at 512: with a path of a
        # few KiB the message ended inside the path, before what was wrong.
        deep = self.tmp
        for _ in range(12):
            deep = deep / ("d" * 200)
        deep.mkdir(parents=True)
        missing = f"{deep}/missing/f"
        p = run(["--name=x", f"--filename={missing}", "--size=4k", "--rw=write", "--allow_file_create=0"],
                cwd=self.tmp)
        self.assertNotEqual(p.returncode, 0, p.stderr)
        self.assertIn(f"ioplan: error: job 'x': directory {deep}/missing does not exist (for {missing})\n",
                      p.stderr)
        (deep / "lat_lat.1.log").write_text("someone else's")
        p = run(["--name=x", "--ioengine=null", "--size=4k", f"--write_lat_log={deep}/lat"], cwd=self.tmp)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn(f"write_lat_log: {deep}/lat_lat.1.log exists and ioplan did not write it", p.stderr)
        self.assertRegex(p.stderr, r"refusing to replace it \(move it away, or run where it is not\)\n")
        self.assertEqual((deep / "lat_lat.1.log").read_text(), "someone else's")


class LeftBehind(TmpDirCase):
    def test_the_end_of_a_run_names_the_files_it_created(self):
        args = ["--name=x", f"--directory={self.tmp}", "--size=2m", "--rw=write", "--numjobs=2"]
        p = run(args, cwd=self.tmp)
        self.assertEqual((p.returncode, p.stderr), (0, ""))
        self.assertIn(f"this run created 2 test files (4.0 MiB), left for the next run to reuse; "
                      f"remove with: rm -- '{self.tmp}/x.0.0' '{self.tmp}/x.1.0'", p.stdout)
        # A run that reuses its files says nothing; the cdm table carries the note too.
        p = run(args, cwd=self.tmp)
        self.assertNotIn("this run created", p.stdout)
        (self.tmp / "cdm").mkdir()
        p = run(["--preset=default", f"--directory={self.tmp}/cdm", "--size=1m", "--runtime=0.1s"], cwd=self.tmp)
        self.assertIn(f"Note: this run created 1 test file (1.0 MiB), left for the next run to reuse; "
                      f"remove with: rm -- '{self.tmp}/cdm/ioplan-default.tmp'", p.stdout)

    def test_the_files_left_are_found_by_relative_paths_and_in_several_directories(self):
        # Each directory is opened once and its files looked at by name: a bare name
        # is in the working directory, and a file the job removed (unlink=1) is not left.
        (self.tmp / "sub").mkdir()
        p = run(["--name=y", "--filename=one.bin:sub/two.bin:" + str(self.tmp / "three.bin"), "--size=3m",
                 "--rw=write"], cwd=self.tmp)
        self.assertEqual((p.returncode, p.stderr), (0, ""))
        self.assertIn(f"this run created 3 test files (3.0 MiB), left for the next run to reuse; "
                      f"remove with: rm -- 'one.bin' 'sub/two.bin' '{self.tmp}/three.bin'", p.stdout)
        p = run(["--name=z", "--filename=gone.bin:sub/gone.bin", "--size=2m", "--rw=write", "--unlink=1"],
                cwd=self.tmp)
        self.assertEqual((p.returncode, p.stderr), (0, ""))
        self.assertNotIn("this run created", p.stdout)

    def test_the_files_left_are_counted_as_the_run_leaves_them(self):
        # The layout's own count: a file the job's open makes (create_on_open) is left
        # only once made, and a file a job grows (fallocate=none) counts at its end size.
        p = run(["--name=a", f"--directory={self.tmp}", "--rw=write", "--bs=1m", "--nrfiles=10",
                 "--filesize=4m", "--create_on_open=1", "--number_ios=3"], cwd=self.tmp)
        self.assertEqual((p.returncode, p.stderr), (0, ""))
        self.assertIn(f"this run created 3 test files (3.0 MiB), left for the next run to reuse; "
                      f"remove with: rm -- '{self.tmp}/a.0.0' '{self.tmp}/a.0.1' '{self.tmp}/a.0.2'\n", p.stdout)
        self.assertEqual(sorted(f.name for f in self.tmp.glob("a.*")), ["a.0.0", "a.0.1", "a.0.2"])
        p = run(["--name=b", f"--directory={self.tmp}", "--rw=write", "--bs=1m", "--size=64m",
                 "--fallocate=none", "--number_ios=5"], cwd=self.tmp)
        self.assertEqual((p.returncode, p.stderr), (0, ""))
        self.assertIn(f"this run created 1 test file (5.0 MiB), left for the next run to reuse; "
                      f"remove with: rm -- '{self.tmp}/b.0.0'\n", p.stdout)
        self.assertEqual((self.tmp / "b.0.0").stat().st_size, 5 << 20)
        # filecreate makes its own files: counted beside the layout's, each once.
        p = run(["--name=c", f"--directory={self.tmp}", "--rw=write", "--size=2m", "--name=d",
                 f"--directory={self.tmp}", "--ioengine=filecreate", "--nrfiles=2", "--filesize=4k"],
                cwd=self.tmp)
        self.assertEqual((p.returncode, p.stderr), (0, ""))
        self.assertIn(f"this run created 3 test files (2.0 MiB), left for the next run to reuse; "
                      f"remove with: rm -- '{self.tmp}/c.0.0' '{self.tmp}/d.0.0' '{self.tmp}/d.0.1'\n",
                      p.stdout)

    def test_a_file_replaced_under_the_run_is_not_named_for_removal(self):
        # The job's file is swapped for another while a later job reads a FIFO: the run warns
        # that it changed, and the note must not tell the user to remove the one now there.
        fifo = self.tmp / "feed"
        os.mkfifo(fifo)
        (self.tmp / "j.fio").write_text("[w]\nioengine=psync\nrw=write\nbs=4k\nsize=64k\nfilename=f\n"
                                        "[wait]\nstonewall\nioengine=io_uring\nrw=read\nbs=4k\nsize=4k\n"
                                        "filename=feed\n")
        proc = subprocess.Popen([BIN, "j.fio"], cwd=self.tmp, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True)
        self.addCleanup(proc.kill)
        # the FIFO opens for writing once the second job holds it: the first is done
        feed = fifo_writer(fifo, proc, "the second job")
        os.rename(self.tmp / "f", self.tmp / "moved")
        (self.tmp / "f").write_bytes(b"the user's")
        os.write(feed, b"x" * 4096)
        os.close(feed)
        out, err = proc.communicate(timeout=60)
        self.assertEqual(proc.returncode, 0, err)
        self.assertIn("f: changed during the run", out)
        self.assertNotIn("this run created", out)
        self.assertEqual((self.tmp / "f").read_bytes(), b"the user's")


class ReadingFioFiles(TmpDirCase):
    def test_a_read_job_over_files_fio_laid_out_runs_and_changes_nothing(self):
        if not FIO:
            self.skipTest("fio is not installed")
        common = ["--name=reader1", f"--directory={self.tmp}", "--size=4m", "--numjobs=2", "--bs=4k"]
        self.assertEqual(run_fio([*common, "--rw=write", "--output=/dev/null"]).returncode, 0)
        files = sorted(self.tmp.glob("reader1.*"))
        self.assertEqual(len(files), 2)
        before = [(f.read_bytes(), f.stat().st_mtime_ns) for f in files]
        p = run([*common, "--rw=randread", "--direct=1", "--ioengine=libaio", "--iodepth=8",
                 "--runtime=1", "--time_based", "--output-format=json"])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertTrue(all(j["read"]["io_bytes"] > 0 for j in json.loads(p.stdout)["jobs"]))
        self.assertEqual([(f.read_bytes(), f.stat().st_mtime_ns) for f in files], before)
        # Writing them stays refused: they are the user's (fio's), not ioplan's.
        p = run([*common, "--rw=randwrite"])
        self.assertEqual(p.returncode, 2)


if __name__ == "__main__":
    unittest.main()
