"""tests/e2e/test_engines_options.py - fio 3.33's io_uring and libaio options through the
binary: each acts (strace, the error fio gives) or is a positioned error under another
engine; fio 3.33 runs the same command lines.
"""
import json
import os
import shutil
import subprocess
import unittest

from common import BIN, FIO, TRACED_ENV, TmpDirCase, ext4_loop, remount, run, run_fio
from test_engines import strace_calls

SMALL = ["--size=1m", "--bs=4k", "--rw=randread", "--filename=data"]


class EngineOptions(TmpDirCase):
    def setUp(self):
        super().setUp()
        (self.tmp / "data").write_bytes(os.urandom(1 << 20))
        os.sync()

    @unittest.skipIf(shutil.which("strace") is None, "strace not installed")
    def test_userspace_reap_reaps_without_io_getevents(self):
        calls = {}
        for reap in (0, 1):
            st = self.tmp / f"st{reap}"
            p = subprocess.run(["strace", "-f", "-c", "-o", str(st), "-e", "trace=io_getevents", BIN, "--name=j",
                                *SMALL, "--ioengine=libaio", "--iodepth=8", "--iodepth_batch_complete_min=0",
                                f"--userspace_reap={reap}", "--allow_existing_file_write=1", "--output-format=json"],
                               cwd=self.tmp, capture_output=True, text=True, timeout=120, env=TRACED_ENV)
            self.assertEqual(p.returncode, 0, p.stderr)
            calls[reap] = strace_calls(st, "io_getevents")
        self.assertGreater(calls[0], 0)
        self.assertEqual(calls[1], 0)

    def nowait_error(self, mnt, runner, engine):
        # The file is made cold for certain by mounting its file system again: the
        # open's POSIX_FADV_DONTNEED alone left every page cached once under make test.
        d = mnt / f"{runner.__name__}-{engine}"
        d.mkdir()
        with open(d / "data", "wb") as f:
            f.write(os.urandom(1 << 20))
            os.fsync(f.fileno())
        remount(mnt)
        p = runner(["--name=j", *SMALL, f"--ioengine={engine}", "--nowait=1", "--minimal"], cwd=d)
        return p.stdout.strip().splitlines()[-1].split(";")[4] if p.stdout.strip() else p.stderr

    def test_nowait_fails_an_uncached_buffered_read_with_eagain_as_fio(self):
        mnt = ext4_loop(self)
        for engine in ("io_uring", "libaio"):
            with self.subTest(engine=engine):
                self.assertEqual(self.nowait_error(mnt, run, engine), "11")
                if FIO:
                    self.assertEqual(self.nowait_error(mnt, run_fio, engine), "11")

    def test_every_option_of_fio_enghelp_io_uring_is_accepted(self):
        opts = ["--hipri=0", "--fixedbufs=1", "--registerfiles=1", "--sqthread_poll=0", "--nonvectored=0",
                "--uncached=0", "--nowait=0", "--force_async=4", "--cmd_type=nvme"]
        p = run(["--name=j", *SMALL, "--ioengine=io_uring", "--iodepth=4", *opts, "--output-format=json"],
                cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        if FIO:
            self.assertEqual(run_fio(["--name=j", *SMALL, "--ioengine=io_uring", "--iodepth=4", *opts,
                                      "--output-format=json"], cwd=self.tmp).returncode, 0)

    def test_sqthread_poll_at_depth_runs_every_io(self):
        # Under SQPOLL io_uring_submit() counts every entry the kernel thread has not taken,
        # earlier commits' too: ioplan took that for this commit's and crashed (SIGSEGV at
        # iodepth>=2, on reads and writes); fio runs them.
        for depth in (2, 32):
            for rw in ("read", "randwrite"):
                with self.subTest(depth=depth, rw=rw):
                    args = ["--name=j", "--size=1m", "--bs=4k", f"--rw={rw}", "--filename=data", "--ioengine=io_uring",
                            "--sqthread_poll=1", f"--iodepth={depth}", "--allow_existing_file_write=1",
                            "--output-format=json"]
                    p = run(args, cwd=self.tmp)
                    if p.returncode == 1 and "Operation not permitted" in p.stderr:
                        self.skipTest("sqthread_poll refused here")
                    self.assertEqual(p.returncode, 0, p.stderr[-500:])
                    job = json.loads(p.stdout)["jobs"][0]
                    self.assertEqual(job["read" if rw == "read" else "write"]["total_ios"], 256)
                    self.assertGreater(job["iodepth_level"][str(depth)], 50)

    def test_an_io_uring_option_under_psync_is_a_positioned_error(self):
        p = run(["--parse-only", "--name=j", *SMALL, "--force_async=2"], cwd=self.tmp)
        self.assertEqual(p.returncode, 2)
        self.assertIn("error: job 'j': force_async is an option of ioengine=io_uring, not of ioengine=psync",
                      p.stderr)
        p = run(["--parse-only", "--name=j", *SMALL, "--ioengine=libaio", "--nonvectored=2"], cwd=self.tmp)
        self.assertEqual(p.returncode, 2)
        self.assertIn("nonvectored=2 is out of range (-1..1)", p.stderr)

    def test_each_io_uring_and_libaio_option_under_another_engine_is_refused_as_fio_refuses_it(self):
        # The options io_uring.c and libaio.c declare are theirs alone: fio drops a job that
        # gives one under another engine ("Bad option"), ioplan refuses it before any I/O.
        cases = [("psync", o) for o in ("fixedbufs=1", "registerfiles=1", "sqthread_poll=1",
                                        "sqthread_poll_cpu=0", "force_async=2", "nonvectored=0",
                                        "cmd_type=nvme")]
        cases += [("io_uring", "userspace_reap=1"), ("psync", "userspace_reap=1"), ("libaio", "cmd_type=nvme")]
        for engine, opt in cases:
            with self.subTest(engine=engine, option=opt):
                job = self.tmp / "j.fio"
                job.write_text(f"[j]\nioengine={engine}\n{opt}\nsize=1m\nfilename=data\n")
                p = run(["--parse-only", str(job)], cwd=self.tmp)
                self.assertEqual(p.returncode, 2, p.stderr)
                name = opt.split("=")[0]
                # at the option's value, not the section header
                self.assertIn(f"j.fio:3:{len(name) + 2}: error: job 'j': {name} is an option of ioengine=", p.stderr)
                if FIO:
                    f = run_fio([str(job)], cwd=self.tmp)
                    self.assertNotEqual(f.returncode, 0)
                    self.assertIn(f"Bad option <{opt}>", f.stderr)
        # cmd_type (io_uring_cmd's, which fio lists for io_uring too) is accepted there.
        job.write_text("[j]\nioengine=io_uring\ncmd_type=nvme\nsize=1m\nfilename=data\n")
        self.assertEqual(run(["--parse-only", str(job)], cwd=self.tmp).returncode, 0)

    def test_a_globals_engine_options_are_not_a_job_of_another_engines(self):
        # fio keeps engine options in the struct of the engine the section names: a
        # job whose engine has another table starts from that engine's defaults, and a
        # [global] that sets one under another engine is a "Bad option".  ioplan carried
        # pvsync2's hipri into an io_uring job (buffered polled I/O: every read failed,
        # EOPNOTSUPP) and refused io_uring's hipri under a psync job, both of which fio runs.
        cases = {
            "to_io_uring": ("[global]\nioengine=pvsync2\nhipri=1\n[j]\nioengine=io_uring\n", 0, 1 << 20),
            "to_psync": ("[global]\nioengine=io_uring\nhipri=1\n[j]\nioengine=psync\n", 0, 1 << 20),
            # the same engine keeps them: io_uring's hipri fails the buffered reads in both
            "kept": ("[global]\nioengine=io_uring\nhipri=1\n[j]\nioengine=io_uring\n", 95, 0),
        }
        for name, (text, err, read) in cases.items():
            job = self.tmp / f"{name}.fio"
            job.write_text(text + "size=1m\nbs=4k\nrw=randread\nfilename=data\n")
            for who, tool in (("ioplan", run), ("fio", run_fio)):
                if who == "fio" and not FIO:
                    continue
                with self.subTest(name, tool=who):
                    p = tool(["--output-format=json", str(job)], cwd=self.tmp)
                    doc = json.loads(p.stdout[p.stdout.index("{"):])
                    self.assertEqual(doc["jobs"][0]["error"], err, p.stderr)
                    self.assertEqual(doc["jobs"][0]["read"]["io_bytes"], read)
                    self.assertEqual(p.returncode, 1 if err else 0, p.stderr)
        # hipri under [global]'s own engine (psync) is refused, as fio drops the section.
        job = self.tmp / "bad.fio"
        job.write_text("[global]\nhipri=1\n[j]\nioengine=pvsync2\nsize=1m\nfilename=data\n")
        p = run(["--parse-only", str(job)], cwd=self.tmp)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("bad.fio:2:1: error: hipri is an option of ioengine=pvsync2 or io_uring, not of ioengine=psync",
                      p.stderr)
        if FIO:
            f = run_fio([str(job)], cwd=self.tmp)
            self.assertEqual(f.returncode, 1)
            self.assertIn("Bad option <hipri=1>", f.stderr)


if __name__ == "__main__":
    unittest.main()
