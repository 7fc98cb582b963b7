"""tests/e2e/test_verify_async_trim.py - verify_async, verify_async_cpus and the trim_* options.

verify_async: with checker threads a flipped byte is still reported at its block
(write + read-back, verify_only, a read job) with the job, file, method and
digests, verify_fatal still stops at the first, the figures are fio's, and fio's
examples/enospc-pressure.fio (which uses it) runs, shrunk.  trim_percentage with
trim_backlog: on a file, the listed writes are trimmed (holes: zeroes) and read
back as zeroes; on a loop device the trim, write and read counts are fio 3.33's;
on an NBD export whose trims keep the data (nbdkit's eval plugin, trim a no-op)
both tools report the trimmed block that is not zero.  Bad values are positioned
errors.
"""
import json
import os
import pathlib
import shutil
import signal
import subprocess
import unittest

from common import BIN, FIO, ROOT, TmpDirCase, flip, run, run_fio, wait_for_stderr, wait_until

BS = 4096
SIZE = 64 * BS
FIO_EXAMPLES = ROOT / "build" / "fio-src" / "examples"   # make fio-examples
NBDKIT = shutil.which("nbdkit")
LOSETUP = shutil.which("losetup")


def fio_doc(text):
    """fio's JSON report, past any lines fio prints before it."""
    return json.loads(text[text.index("{"):])


def counts(doc):
    """(write, trim, read) I/O counts and the error of the first job of a JSON report."""
    j = doc["jobs"][0]
    return j["write"]["total_ios"], j["trim"]["total_ios"], j["read"]["total_ios"], j["error"]


def checker_threads(pid):
    """{tid: /proc status text} of a process's threads named ioplan-verify (verify_async's)."""
    out = {}
    for t in os.listdir(f"/proc/{pid}/task"):
        try:
            if pathlib.Path(f"/proc/{pid}/task/{t}/comm").read_text().strip() == "ioplan-verify":
                out[t] = pathlib.Path(f"/proc/{pid}/task/{t}/status").read_text()
        except FileNotFoundError:
            pass    # a thread that ended while we looked
    return out


class VerifyAsync(TmpDirCase):
    def job(self, *extra):
        return ["--name=v", f"--filename={self.tmp / 'v.dat'}", f"--size={SIZE}", f"--bs={BS}",
                "--verify=sha256", "--verify_async=2", "--output-format=json", *extra]

    def test_a_flipped_byte_is_named_at_its_block_by_every_kind_of_check(self):
        p = run(self.job("--rw=randwrite", "--ioengine=libaio", "--iodepth=8"))
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(json.loads(p.stdout)["jobs"][0]["read"]["io_bytes"], SIZE)
        flip(self.tmp / "v.dat", 5 * BS + BS // 2)
        for how in (["--rw=read", "--verify_only=1"], ["--rw=randread"], ["--rw=read", "--verify_async_cpus=0"]):
            with self.subTest(how=how):
                p = run(self.job(*how))
                self.assertEqual(p.returncode, 1, p.stderr)
                doc = json.loads(p.stdout)
                self.assertEqual(doc["jobs"][0]["error"], 84)
                self.assertEqual(doc["ioplan"]["jobs"][0]["verify_failures"], 1)
                self.assertIn(f"job 'v': {self.tmp}/v.dat: offset {5 * BS}: verify sha256: want ", p.stderr)

    @unittest.skipUnless(len(os.sched_getaffinity(0)) >= 2 and 1 in os.sched_getaffinity(0), "needs CPU 1")
    def test_n_checker_threads_per_job_run_on_verify_async_cpus(self):
        self.assertEqual(run(self.job("--rw=write", "--do_verify=0")).returncode, 0)
        proc = subprocess.Popen([BIN, *self.job("--rw=read", "--time_based", "--runtime=30",
                                                "--verify_async=3", "--verify_async_cpus=1", "--eta=always")],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            # The worker's set-up starts, names and then pins each thread; the job reading
            # ("[R(1)]") is past it.  Three threads named were not yet three pinned: the
            # third could be looked at between its name and its pin.
            wait_for_stderr(proc, b"[R(1)]")
            seen = checker_threads(proc.pid)
            self.assertEqual(len(seen), 3)
            for status in seen.values():
                self.assertRegex(status, r"(?m)^Cpus_allowed_list:\s+1$")
        finally:
            proc.send_signal(signal.SIGINT)
            _, err = proc.communicate(timeout=60)
        self.assertNotIn("verify", err)     # stopped (exit 1, as any interrupted run), nothing bad read

    def test_verify_fatal_still_stops_at_the_first_mismatch(self):
        self.assertEqual(run(self.job("--rw=write", "--do_verify=0")).returncode, 0)
        for block in (3, 20, 50):
            flip(self.tmp / "v.dat", block * BS + 100)
        for fatal, failures in (("0", 3), ("1", 1)):
            p = run(self.job("--rw=read", "--verify_only=1", f"--verify_fatal={fatal}"))
            self.assertEqual(p.returncode, 1)
            self.assertEqual(json.loads(p.stdout)["ioplan"]["jobs"][0]["verify_failures"], failures, fatal)

    @unittest.skipUnless(FIO, "fio not installed")
    def test_figures_are_fios(self):
        args = ["--name=v", f"--size={SIZE}", f"--bs={BS}", "--rw=randwrite", "--verify=crc32c",
                "--verify_async=4", "--ioengine=libaio", "--iodepth=4", "--output-format=json"]
        got = {}
        for tool in (run, run_fio):
            (self.tmp / "a.dat").unlink(missing_ok=True)
            p = tool([*args, f"--filename={self.tmp / 'a.dat'}"], cwd=self.tmp)   # fio's state files
            self.assertEqual(p.returncode, 0, p.stderr)
            j = fio_doc(p.stdout)["jobs"][0]
            got[tool.__name__] = (j["error"], j["read"]["io_bytes"], j["write"]["io_bytes"])
        self.assertEqual(got["run"], got["run_fio"])
        self.assertEqual(got["run"], (0, SIZE, SIZE))

    @unittest.skipUnless((FIO_EXAMPLES / "enospc-pressure.fio").is_file(), "no fio 3.33 examples")
    def test_fio_example_enospc_pressure_runs_shrunk(self):
        text = (FIO_EXAMPLES / "enospc-pressure.fio").read_text()
        for a, b in (("directory=/scratch", "directory=."), ("filesize=128G", "filesize=16m"),
                     ("size=999G", "size=16m"), ("runtime=100", "runtime=2")):
            self.assertIn(a, text)
            text = text.replace(a, b)
        self.write("job.fio", text)
        p = run(["--output-format=json", "job.fio"], cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        jobs = json.loads(p.stdout)["ioplan"]["jobs"]
        self.assertEqual([j["verify_failures"] for j in jobs], [0, 0, 0])

    def test_bad_values_are_positioned_errors(self):
        for opt, msg in (("verify_async=x", "bad value for verify_async"),
                         ("verify_async=65", "verify_async"),
                         ("verify_async_cpus=0-1024", "CPU range '0-1024' is not within 0..1023")):
            with self.subTest(opt=opt):
                self.write("bad.fio", f"[v]\nrw=read\nsize=64k\nverify=md5\n{opt}\n")
                p = run(["--parse-only", "bad.fio"], cwd=self.tmp)
                self.assertEqual(p.returncode, 2)
                self.assertRegex(p.stderr, r"^bad\.fio:5:\d+: error: ")
                self.assertIn(msg, p.stderr)


class TrimOnAFile(TmpDirCase):
    def job(self, *extra):
        return ["--name=t", f"--filename={self.tmp / 't.dat'}", f"--size={SIZE}", f"--bs={BS}",
                "--verify=crc32c", "--trim_backlog=8", "--output-format=json", *extra]

    def test_every_listed_write_is_trimmed_and_reads_back_as_zeroes(self):
        p = run(self.job("--rw=randwrite", "--trim_percentage=100"))
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(counts(json.loads(p.stdout)), (64, 64, 64, 0))
        self.assertEqual((self.tmp / "t.dat").read_bytes(), bytes(SIZE))
        self.assertLess(os.stat(self.tmp / "t.dat").st_blocks * 512, SIZE)   # holes, not written zeroes

    def test_every_listed_write_is_trimmed_at_depth(self):
        # The last writes are still in flight when the workload ends; each is listed as it
        # completes and trimmed then (ioplan ended first at iodepth>1: 63 trims of 64).
        for depth in ("2", "8"):
            with self.subTest(iodepth=depth):
                (self.tmp / "t.dat").unlink(missing_ok=True)
                p = run(self.job("--rw=write", "--trim_percentage=100", "--ioengine=libaio", f"--iodepth={depth}"))
                self.assertEqual(p.returncode, 0, p.stderr)
                self.assertEqual(counts(json.loads(p.stdout)), (64, 64, 64, 0))
                self.assertEqual((self.tmp / "t.dat").read_bytes(), bytes(SIZE))

    def test_a_share_is_trimmed_and_trim_verify_zero_0_skips_their_read_back(self):
        for zero in ("1", "0"):
            with self.subTest(trim_verify_zero=zero):
                (self.tmp / "t.dat").unlink(missing_ok=True)
                p = run(self.job("--rw=write", "--trim_percentage=50", f"--trim_verify_zero={zero}"))
                self.assertEqual(p.returncode, 0, p.stderr)
                w, t, r, err = counts(json.loads(p.stdout))
                self.assertEqual((w, err), (64, 0))
                self.assertTrue(10 <= t <= 54, t)
                self.assertEqual(r, 64 if zero == "1" else 64 - t)

    def test_every_listed_block_is_trimmed_after_each_trim_backlog_writes_whatever_the_batch(self):
        p = run(self.job("--rw=write", "--trim_percentage=100", "--trim_backlog_batch=2",
                         f"--write_iolog={self.tmp / 'io.log'}"))
        self.assertEqual(p.returncode, 0, p.stderr)
        order = "".join(l.split()[2][0] for l in (self.tmp / "io.log").read_text().splitlines()[1:]
                        if l.split()[2] in ("write", "trim"))
        self.assertEqual(order, ("w" * 8 + "t" * 8) * 8)

    def test_without_trim_backlog_nothing_is_trimmed_as_fio(self):
        p = run(self.job("--rw=write", "--trim_percentage=50", "--trim_backlog=0"))
        self.assertEqual(counts(json.loads(p.stdout)), (64, 0, 64, 0))

    def test_bad_values_are_positioned_errors(self):
        for opt in ("trim_percentage=101", "trim_backlog=lots", "trim_verify_zero=maybe",
                    "trim_backlog_batch=-1"):
            with self.subTest(opt=opt):
                self.write("bad.fio", f"[t]\nrw=write\nsize=64k\nverify=md5\n{opt}\n")
                p = run(["--parse-only", "bad.fio"], cwd=self.tmp)
                self.assertEqual(p.returncode, 2)
                self.assertRegex(p.stderr, r"^bad\.fio:5:\d+: error: .*" + opt.split("=")[0])


@unittest.skipUnless(FIO and LOSETUP and os.geteuid() == 0, "needs fio, losetup and root")
class TrimOnALoopDeviceAsFio(TmpDirCase):
    def setUp(self):
        super().setUp()
        img = self.tmp / "loop.img"
        with open(img, "wb") as f:
            f.truncate(4 << 20)
        p = subprocess.run([LOSETUP, "-f", "--show", str(img)], capture_output=True, text=True)
        if p.returncode:
            self.skipTest(f"losetup: {p.stderr.strip()}")
        self.dev = p.stdout.strip()

    def tearDown(self):
        subprocess.run([LOSETUP, "-d", self.dev])
        super().tearDown()

    def both(self, *extra, log=False):
        # direct=1: what is written reaches the device at once (buffered: the test below).
        args = ["--name=t", f"--filename={self.dev}", f"--size={SIZE}", f"--bs={BS}", "--direct=1",
                "--rw=trimwrite", "--verify=crc32c", "--trim_backlog=8", "--output-format=json", *extra]
        logs = [[f"--write_iolog={self.tmp / who}.log"] if log else [] for who in ("fio", "ioplan")]
        f = run_fio([*args, *logs[0]], cwd=self.tmp)   # fio leaves its verify state files in its directory
        p = run([*args, *logs[1], f"--allow_device_write={self.dev}"], cwd=self.tmp)
        self.assertEqual((f.returncode, p.returncode), (0, 0), f.stderr + p.stderr)
        return counts(fio_doc(f.stdout)), counts(json.loads(p.stdout))

    def longest_trim_run(self, who):
        ops = "".join(l.split()[2][0] for l in (self.tmp / f"{who}.log").read_text().splitlines()[1:]
                      if len(l.split()) > 3 and l.split()[2] in ("write", "trim"))
        return max(len(r) for r in ops.replace("w", " ").split())

    def test_counts_are_fios(self):
        # Every block: trimwrite's own trim, then the listed trim; all read back as zeroes, or none.
        fio, ours = self.both("--trim_percentage=100")
        self.assertEqual(ours, fio)
        self.assertEqual(ours, (64, 128, 64, 0))
        # trim_verify_zero=0: every listed block trimmed, none read back.  fio 3.33 counts its
        # trims against its backlog and leaves the last listed block untrimmed (then reads it
        # back): 127 trims and 1 read; each block is still trimmed or read back, in both.
        fio, ours = self.both("--trim_percentage=100", "--trim_verify_zero=0")
        self.assertEqual(ours, (64, 128, 0, 0))
        self.assertEqual((fio[0], fio[1] + fio[2], fio[3]), (64, 128, 0))
        # trim_backlog_batch=2 bounds nothing in fio 3.33 (it starts another batch while no write
        # came between): after each eight writes, trimwrite's own trim then the eight listed, in both.
        fio, ours = self.both("--trim_percentage=100", "--trim_backlog_batch=2", log=True)
        self.assertEqual(ours, fio)
        self.assertEqual({who: self.longest_trim_run(who) for who in ("fio", "ioplan")}, {"fio": 9, "ioplan": 9})

    def test_the_writes_listed_are_fios(self):
        # trim_percentage lists a write when one draw of fio's trim_state (seeded from its
        # rand_seeds[FIO_RAND_TRIM_OFF]) is at most rand_max / 100 * P.  ioplan drew from a
        # generator of its own: 1 MiB of trimwrite at 50% listed 138 writes of 256 where fio
        # listed 131 (387 trims; trim_verify_zero=0: 125 blocks read back, ioplan 118).
        for extra in ((), ("--trim_verify_zero=0",), ("--randseed=7", "--trim_verify_zero=0"),
                      ("--rw=randtrimwrite", "--trim_percentage=30", "--trim_backlog=4", "--trim_verify_zero=0"),
                      ("--random_generator=tausworthe64", "--trim_verify_zero=0")):
            with self.subTest(extra=extra):
                fio, ours = self.both("--size=1m", "--trim_percentage=50", *extra)
                self.assertEqual(ours, fio)

    def test_buffered_trims_of_blocks_just_written_are_made(self):
        # ioplan holds the device claimed (O_EXCL) while it writes it; the kernel's discard
        # through another descriptor may then only invalidate the cached pages, which a dirty
        # one refuses: a buffered trimwrite with trim_percentage=100 failed at its first listed
        # trim ("trim: Device or resource busy (errno 16)", exit 1) where fio trims and reads
        # back every block; so did rw=write with trim_percentage (a job fio 3.33 cannot run).
        args = ["--name=t", f"--filename={self.dev}", f"--size={SIZE}", f"--bs={BS}", "--rw=trimwrite",
                "--verify=crc32c", "--trim_backlog=8", "--trim_percentage=100", "--output-format=json"]
        f = run_fio(args, cwd=self.tmp)
        p = run([*args, f"--allow_device_write={self.dev}"], cwd=self.tmp)
        self.assertEqual((f.returncode, p.returncode), (0, 0), f.stderr + p.stderr)
        self.assertEqual(counts(json.loads(p.stdout)), counts(fio_doc(f.stdout)))
        p = run([*args[:4], "--rw=write", *args[5:], "--trim_percentage=50", f"--allow_device_write={self.dev}"],
                cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertGreater(counts(json.loads(p.stdout))[1], 0)

    def test_trimwrite_never_syncs_as_fio(self):
        # fio's set_rw_ddir puts trimwrite's trim-then-write turn over the sync its get_rw_ddir
        # chose: fsync=N and its kin make no sync at all (ioplan made one every N writes).
        for sync in ("--fsync=2", "--fdatasync=3", "--sync_file_range=write:2"):
            args = ["--name=t", f"--filename={self.dev}", "--size=64k", "--bs=4k", "--direct=1",
                    "--rw=trimwrite", sync, "--output-format=json"]
            got = {}
            for who, p in (("fio", run_fio(args, cwd=self.tmp)),
                           ("ioplan", run([*args, f"--allow_device_write={self.dev}"], cwd=self.tmp))):
                self.assertEqual(p.returncode, 0, p.stderr)
                j = json.loads(p.stdout[p.stdout.index("{"):])["jobs"][0]
                got[who] = (j["error"], j["write"]["total_ios"], j["trim"]["total_ios"], j["sync"]["lat_ns"]["N"])
            with self.subTest(sync):
                self.assertEqual(got["ioplan"], got["fio"])
                self.assertEqual(got["ioplan"], (0, 16, 16, 0))


@unittest.skipUnless(NBDKIT, "nbdkit not installed")
class TrimThatKeepsTheData(TmpDirCase):
    """An export whose trim does nothing (as a device that does not zero discarded blocks)."""

    def setUp(self):
        super().setUp()
        back = self.tmp / "back.img"
        with open(back, "wb") as f:
            f.truncate(1 << 20)
        self.sock = self.tmp / "nbd.sock"
        self.server = subprocess.Popen(
            [NBDKIT, "-U", str(self.sock), "-f", "eval", "get_size=echo 1048576",
             f"pread=dd if={back} iflag=skip_bytes,count_bytes skip=$4 count=$3 status=none",
             f"pwrite=dd of={back} oflag=seek_bytes conv=notrunc seek=$4 status=none",
             "can_write=exit 0", "can_trim=exit 0", "trim=exit 0", "can_flush=exit 0", "flush=exit 0"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_until(lambda: self.server.poll() is not None or self.sock.exists(), 30, "nbdkit's socket")

    def tearDown(self):
        self.server.terminate()
        self.server.wait(timeout=10)
        super().tearDown()

    def test_a_trimmed_block_that_is_not_zero_is_caught(self):
        args = ["--name=t", "--ioengine=nbd", f"--uri=nbd+unix:///?socket={self.sock}", "--size=64k",
                f"--bs={BS}", "--verify=crc32c", "--trim_percentage=100", "--trim_backlog=4",
                "--output-format=json"]
        p = run([*args, "--rw=write"])
        self.assertEqual(p.returncode, 1)
        self.assertEqual(counts(json.loads(p.stdout))[:2], (16, 16))
        self.assertEqual(json.loads(p.stdout)["jobs"][0]["error"], 84)
        self.assertIn("offset 0: trim_verify_zero: trimmed block reads back byte ", p.stderr)
        f = run_fio([*args, "--rw=trimwrite"], cwd=self.tmp) if FIO else None
        if f is not None and "nbd" in subprocess.run([FIO, "--enghelp"], capture_output=True,
                                                      text=True).stdout.split():
            self.assertEqual(fio_doc(f.stdout)["jobs"][0]["error"], 84)
            self.assertIn("trim: verify failed", f.stdout + f.stderr)


if __name__ == "__main__":
    unittest.main()
