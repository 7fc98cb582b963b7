"""tests/e2e/test_report_disks.py - which disks the reports sample, and in which order.

The normal output's "Disk stats (read/write):" and the JSON "disk_util" array name
the disks under the jobs' files.  fio 3.33 adds them as it starts each thread
(backend.c run_threads calls init_disk_util per thread, diskutil.c appends each
new disk), so they come in job order, whatever the paths, unless startdelay= or
wait_for= holds a job back (then its disks come when it starts); ioplan listed them
by path, then in thread order whatever the delays.  Checked on ext4 file systems on loop devices, against fio in the same test.
"""
import json
import os
import select
import shutil
import signal
import subprocess
import time
import unittest

from common import FIO, TmpDirCase, ext4_loop, fio_link_dir, run_as_fio, run_fio

SUB = "filename_format=sub/$jobname.$jobnum.$filenum\n"


def disk_of(path):
    """The name /sys gives the block device under path ("loop3")."""
    st = os.stat(path)
    return os.path.basename(os.path.realpath(f"/sys/dev/block/{os.major(st.st_dev)}:{os.minor(st.st_dev)}"))


def disks(p):
    """The disk_util names of a JSON run."""
    return [d["name"] for d in json.loads(p.stdout[p.stdout.index("{"):]).get("disk_util", [])]


class DiskStats(TmpDirCase):
    def setUp(self):
        super().setUp()
        # The later path first in the job file: a listing by path is the other order.
        self.first, self.second = sorted((ext4_loop(self), ext4_loop(self)), reverse=True)

    def go(self, runner, job, *args):
        """The job run by runner on file systems holding nothing from an earlier run."""
        for mnt in (self.first, self.second):
            for f in mnt.iterdir():
                if f.name != "lost+found":
                    shutil.rmtree(f) if f.is_dir() else f.unlink()
        self.write("d.fio", "[global]\nrw=write\nbs=64k\nsize=256k\n" + job)
        return runner(["d.fio", *args], cwd=self.tmp)

    def test_disks_in_the_order_fio_starts_their_jobs(self):
        job = (f"[b]\ndirectory={self.first}\n[a]\ndirectory={self.second}\nnumjobs=2\n{SUB}"
               f"[c]\ndirectory={self.first}\n")
        want = [disk_of(self.first), disk_of(self.second)]
        for runner in (run_as_fio, run_fio) if FIO else (run_as_fio,):
            with self.subTest(runner=runner.__name__):
                p = self.go(runner, job, "--output-format=json")
                self.assertEqual((p.returncode, p.stderr), (0, ""))
                self.assertEqual(disks(p), want)
                p = self.go(runner, job)
                lines = p.stdout[p.stdout.index("Disk stats (read/write):"):].splitlines()[1:3]
                self.assertEqual([line.split(":")[0].strip() for line in lines], want)

    def test_a_job_that_starts_later_adds_its_disk_later(self):
        # fio adds a job's disks when run_threads creates its threads: after the jobs
        # without a delay when startdelay= holds it back, after the waited-for job's end
        # under wait_for=.  The job file's first job is on the first disk, so the
        # thread-order listing the old build kept names that disk first.
        # (wait_for names an earlier job: a null-engine one, which samples no disk.)
        held = {"startdelay": "[b]\nstartdelay=1\n", "wait_for": "[a]\nioengine=null\n[b]\nwait_for=a\n"}
        want = [disk_of(self.second), disk_of(self.first)]
        for how, head in held.items():
            job = f"{head}directory={self.first}\n[c]\ndirectory={self.second}\n[d]\ndirectory={self.first}\n"
            for runner in (run_as_fio, run_fio) if FIO else (run_as_fio,):
                with self.subTest(how=how, runner=runner.__name__):
                    p = self.go(runner, job, "--output-format=json")
                    self.assertEqual((p.returncode, p.stderr), (0, ""))
                    self.assertEqual(disks(p), want)

    def stopped_after_a_report(self, binary, job, fmt):
        """stdout of the job run by binary with --status-interval=1, stopped by SIGINT once
        the first interim report is out (a wait on the output, with a deadline)."""
        self.go(lambda args, cwd: None, job)
        proc = subprocess.Popen([binary, "--status-interval=1", f"--output-format={fmt}", "d.fio"], cwd=self.tmp,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        fd, seen, deadline = proc.stdout.fileno(), b"", time.monotonic() + 60
        marker = b"\n}\n" if fmt == "json" else b"Disk stats (read/write):\n"
        while marker not in seen and time.monotonic() < deadline and proc.poll() is None:
            if select.select([fd], [], [], 0.1)[0]:
                seen += os.read(fd, 65536)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
        self.assertEqual(proc.returncode, 128, err)
        return (seen + out).decode()

    def test_reports_leave_out_the_disks_of_jobs_not_started(self):
        # fio adds a thread's disks when it creates the thread, so neither an interim
        # report (--status-interval) taken while [b] is held back by startdelay= nor the
        # last one of a run stopped before [b] started lists [b]'s disk; ioplan listed it
        # in both, with zero counters.
        job = f"[a]\ndirectory={self.first}\ntime_based\nruntime=60\n[b]\ndirectory={self.second}\nstartdelay=60\n"
        want = disk_of(self.first)
        for binary in (os.path.join(fio_link_dir(), "fio"), FIO) if FIO else (os.path.join(fio_link_dir(), "fio"),):
            with self.subTest(binary=binary):
                out = self.stopped_after_a_report(binary, job, "json")
                docs, at, dec = [], out.find("{"), json.JSONDecoder()
                while at >= 0:
                    doc, end = dec.raw_decode(out, at)
                    docs.append([d["name"] for d in doc.get("disk_util", [])])
                    at = out.find("{", end)
                self.assertGreaterEqual(len(docs), 2)  # an interim report, then the last
                self.assertEqual(docs, [[want]] * len(docs))
                if binary == FIO:
                    continue  # fio's normal blocks list what its JSON does (one disk here): spared
                out = self.stopped_after_a_report(binary, job, "normal")
                blocks = [[line for line in b.split("\n\n")[0].splitlines() if line.startswith("  ")]
                          for b in out.split("Disk stats (read/write):\n")[1:]]
                self.assertGreaterEqual(len(blocks), 2)
                self.assertEqual([[line.split(":")[0].strip() for line in b] for b in blocks], [[want]] * len(blocks))

    def test_a_file_in_a_directory_its_job_makes_with_create_serialize_0(self):
        # fio looks for the disk before the job's setup has made the file (init_disk_util
        # before setup_files), by the file's directory (get_device_numbers' stat of
        # dirname), which is not there yet: no disk, and perror's line on stderr.  ioplan
        # lays every file out before any job starts, and names the disk (documented).
        job = f"[a]\ndirectory={self.first}\ncreate_serialize=0\n{SUB}"
        p = self.go(run_as_fio, job, "--output-format=json")
        self.assertEqual((p.returncode, p.stderr), (0, ""))
        self.assertEqual(disks(p), [disk_of(self.first)])
        self.assertTrue((self.first / "sub" / "a.0.0").is_file())
        if FIO:
            p = self.go(run_fio, job, "--output-format=json")
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual(disks(p), [])
            self.assertIn("disk util stat: No such file or directory", p.stderr)
            # Made serially (fio's default), the file is there when fio looks: both name it.
            p = self.go(run_fio, job.replace("create_serialize=0", "create_serialize=1"), "--output-format=json")
            self.assertEqual((p.returncode, disks(p)), (0, [disk_of(self.first)]))


if __name__ == "__main__":
    unittest.main()
