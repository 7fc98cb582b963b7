"""tests/e2e/test_verify_failures.py - verification and failures through the whole binary.

Real files, real mounts (skipped with the reason when not root), real signals:
a write job's data read back and checked, a flipped byte found by a later
verify_only run at its block, ENOSPC mid-run with the partial results still
reported, a stalled I/O reported by the watchdog, and a second SIGINT.
"""
import json
import os
import shutil
import signal
import subprocess
import time
import unittest

from common import (BIN, STOP_BOUND_S, TmpDirCase, fill_up, flip, run, run_fio, tmpfs, wait_for_stderr, wait_until,
                    waits_in)


class Verify(TmpDirCase):
    def job(self, *extra):
        return ["--name=v", f"--directory={self.tmp}", "--size=1m", "--rw=randwrite", "--bs=4k",
                "--verify=crc32c", *extra]

    def test_write_then_verify_passes(self):
        for kind in ("crc32c", "xxhash"):
            p = run(self.job(f"--verify={kind}", "--output-format=json"))
            self.assertEqual(p.returncode, 0, p.stderr)
            job = json.loads(p.stdout)["ioplan"]["jobs"][0]
            self.assertEqual((job["verify_failures"], job["errors"]), (0, []))

    def test_a_digest_openssl_cannot_give_is_refused_before_any_io(self):
        # An OpenSSL configuration whose provider does not load leaves it no digests: each
        # worker failed after the layout, with "Cannot allocate memory" (ENOMEM), exit 1.
        conf = self.tmp / "openssl.cnf"
        conf.write_text("openssl_conf = init\n[init]\nproviders = prov\n[prov]\nfips = fips_sect\n"
                        "[fips_sect]\nactivate = 1\nmodule = /nonexistent/fips.so\n")
        for kind in ("sha256", "md5", "sha3-512"):
            with self.subTest(kind=kind):
                p = run(self.job(f"--verify={kind}"), env={"OPENSSL_CONF": str(conf)})
                self.assertEqual(p.returncode, 2, p.stderr)
                self.assertIn(f"job 'v': verify={kind}: OpenSSL has no such digest here: its configuration "
                              "(OPENSSL_CONF, else openssl.cnf) names a provider that does not load", p.stderr)
                self.assertFalse((self.tmp / "v.0.0").exists())
        # The checksums of other libraries do not ask OpenSSL.
        p = run(self.job("--verify=crc32c", "--output-format=json"), env={"OPENSSL_CONF": str(conf)})
        self.assertEqual(p.returncode, 0, p.stderr)

    def test_without_libcrypto_only_its_digests_are_refused(self):
        # libcrypto is opened when a digest is first asked for: where it cannot be (here a
        # private mount puts an empty file at its name), every other run goes on.  Linked,
        # it stopped every run before main (the loader's exit 127).
        lib = os.path.realpath(subprocess.run(["sh", "-c", "ldconfig -p | awk '/libcrypto.so.3 .*x86-64/ {print $NF; exit}'"],
                                              capture_output=True, text=True).stdout.strip() or "/nonexistent")
        if not os.path.exists(lib):
            self.skipTest("libcrypto.so.3 is not where ldconfig says")

        def hidden(*args):
            return subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c",
                                   'mount --bind /dev/null "$0" && exec "$@"', lib, BIN, *args],
                                  capture_output=True, text=True, timeout=120)
        p = hidden(*self.job("--verify=crc32c", "--output-format=json"))
        if "mount" in p.stderr and p.returncode:
            self.skipTest(f"a private bind mount is refused here: {p.stderr.strip()}")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(json.loads(p.stdout)["ioplan"]["jobs"][0]["verify_failures"], 0)
        p = hidden(*self.job("--verify=sha256"))
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertRegex(p.stderr, r"job 'v': verify=sha256: OpenSSL's libcrypto cannot be opened: .*libcrypto\.so\.3")

    def test_flipped_byte_is_one_mismatch_at_its_block(self):
        p = run(self.job())
        self.assertEqual(p.returncode, 0, p.stderr)
        flip(self.tmp / "v.0.0", 300000)
        p = run(self.job("--verify_only", "--output-format=json"))
        self.assertEqual(p.returncode, 1)
        doc = json.loads(p.stdout)
        job = doc["ioplan"]["jobs"][0]
        self.assertEqual(job["verify_failures"], 1)
        self.assertEqual(len(job["errors"]), 1)
        err = job["errors"][0]
        self.assertEqual((err["offset"], err["file"], err["errno"]), (299008, str(self.tmp / "v.0.0"), 84))
        self.assertRegex(err["what"], r"^verify crc32c: want [0-9a-f]{8} got [0-9a-f]{8}$")
        self.assertIn(f"job 'v': {self.tmp}/v.0.0: offset 299008: verify crc32c: want", p.stderr)
        # Normal output says so too, after the figures, and so does a preflight warning.
        p = run(self.job("--verify_only"))
        self.assertEqual(p.returncode, 1)
        self.assertIn(f"\nioplan: error: job 'v': {self.tmp}/v.0.0: offset 299008: verify crc32c: want", p.stdout)
        p = run(["--name=r", f"--directory={self.tmp}", "--size=1m", "--rw=read", "--number_ios=1"])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertRegex(p.stdout, r"\nioplan: warning: buffered reads over \d+ bytes")
        # The untouched file of a second verify_only run is clean again once the byte is restored.
        flip(self.tmp / "v.0.0", 300000)
        p = run(self.job("--verify_only"))
        self.assertEqual(p.returncode, 0, p.stderr)


class MismatchEndsTheJob(TmpDirCase):
    """As fio 3.33's, a mismatch ends the job at the read that found it unless
    continue_on_error=verify: the read figures stop there.  Both tools read a copy
    of the same 64 blocks, fio's md5 writes, block 20 bad; at depth 1 the amounts
    are exact.  (ioplan checked every block and went on: 64 reads and 64 dumps
    where fio made 1.)"""
    BAD = 20

    def setUp(self):
        super().setUp()
        p = run_fio(["--name=v", f"--filename={self.tmp}/v.dat", "--size=256k", "--bs=4k", "--rw=write",
                     "--verify=md5", "--do_verify=0", "--output=/dev/null"])
        self.assertEqual(p.returncode, 0, p.stderr)
        flip(self.tmp / "v.dat", self.BAD * 4096 + 1000)

    def figures(self, runner, extra):
        """(exit code, job error, read bytes, reads, .received dumps) of one run on a fresh copy."""
        work = self.tmp / runner.__name__
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir()
        shutil.copy(self.tmp / "v.dat", work / "w.dat")
        p = runner(["--name=v", "--filename=w.dat", "--size=256k", "--bs=4k", "--verify=md5",
                    "--output-format=json", *extra], cwd=work)
        text = p.stdout[p.stdout.index("{"):]    # fio prints its error line first
        job = json.loads(text)["jobs"][0]
        return (p.returncode, job["error"], job["read"]["io_bytes"], job["read"]["total_ios"],
                len(list(work.glob("w.dat.*.received"))))

    def test_the_job_ends_at_the_bad_read_as_fios(self):
        bad_end = (self.BAD + 1) * 4096
        cases = {("--rw=read",): (1, 84, bad_end, self.BAD + 1, 0),
                 ("--rw=write", "--verify_only=1"): (1, 84, bad_end, self.BAD + 1, 0),
                 ("--rw=read", "--verify_fatal=1"): (1, 84, bad_end, self.BAD + 1, 0),
                 # Every block fails another method's check: the first read ends it.
                 ("--rw=read", "--verify=crc32c", "--verify_dump=1"): (1, 84, 4096, 1, 1),
                 # continue_on_error=verify reads on, each mismatch counted; exit 0, as fio's.
                 ("--rw=read", "--verify=crc32c", "--verify_dump=1", "--continue_on_error=verify"):
                     (0, 84, 256 << 10, 64, 64),
                 ("--rw=read", "--verify_fatal=1", "--continue_on_error=verify"): (0, 84, bad_end, self.BAD + 1, 0)}
        for extra, want in cases.items():
            with self.subTest(extra=extra):
                self.assertEqual(self.figures(run_fio, extra), want, "fio 3.33")
                self.assertEqual(self.figures(run, extra), want, "ioplan")

    def test_verify_only_with_do_verify_0_checks_a_writers_blocks_no_more_than_fios(self):
        # fio's verify_only writer does its dry run and no verify phase when
        # do_verify=0: nothing read, exit 0 (ioplan read back 21 blocks and failed at
        # the bad one).  A reader checks what it reads whatever do_verify says, in both.
        bad_end = (self.BAD + 1) * 4096
        cases = {("--rw=write", "--verify_only=1", "--do_verify=0"): (0, 0, 0, 0, 0),
                 ("--rw=rw", "--verify_only=1", "--do_verify=0"): (0, 0, None, None, 0),
                 ("--rw=read", "--verify_only=1", "--do_verify=0"): (1, 84, bad_end, self.BAD + 1, 0)}
        for extra, want in cases.items():
            with self.subTest(extra=extra):
                for runner in (run_fio, run):
                    got = self.figures(runner, extra)
                    if want[2] is None:     # fio counts its dry run's reads, ioplan none (docs)
                        got = got[:2] + (None, None) + got[4:]
                    self.assertEqual(got, want, runner.__name__)
        # ioplan's writer reads nothing at all.
        self.assertEqual(self.figures(run, ("--rw=rw", "--verify_only=1", "--do_verify=0"))[2:4], (0, 0))

    def test_verify_only_with_verify_backlog_reads_what_fio_skips(self):
        # fio 3.33's dry run takes its backlog checks as made: their blocks are never read,
        # block 20 bad passes (exit 0, 64 reads counted).  ioplan reads every drawn write
        # (docs/verification.md).
        extra = ("--rw=write", "--verify_only=1", "--verify_backlog=8")
        self.assertEqual(self.figures(run_fio, extra), (0, 0, 256 << 10, 64, 0), "fio 3.33")
        self.assertEqual(self.figures(run, extra), (1, 84, (self.BAD + 1) * 4096, self.BAD + 1, 0))

    @unittest.skipIf(os.geteuid() != 0, "mounting a tmpfs needs root")
    def test_a_dump_that_cannot_be_written_is_named_and_leaves_nothing(self):
        # A dump's failure is the job's error (fio 3.33 prints it and exits 0 under
        # continue_on_error).  On a full disk the dump was left empty, passing for the
        # block read, and the error said only "writing the bad block"; a directory in its
        # place gave "cannot open for writing: Is a directory: Is a directory".
        mnt = tmpfs(self, "size=64k")
        shutil.copy(self.tmp / "v.dat", self.tmp / "w.dat")
        job = ["--name=v", f"--filename={self.tmp}/w.dat", "--size=256k", "--bs=4k", "--verify=md5",
               "--rw=read", "--verify_dump=1", "--continue_on_error=verify", "--output=/dev/null"]
        dump = f"w.dat.{self.BAD * 4096}.received"
        fill_up(mnt)
        p = run(job, cwd=mnt)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn(f"verify_dump: writing {dump} (no dump is left): No space left on device (errno 28)",
                      p.stderr)
        self.assertEqual(sorted(f.name for f in mnt.iterdir()), ["filler"])
        (mnt / "filler").unlink()
        (mnt / dump).mkdir()
        p = run(job, cwd=mnt)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn(f"verify_dump: cannot open {dump} for writing: Is a directory (errno 21)\n", p.stderr)
        (mnt / dump).rmdir()
        p = run(job, cwd=mnt)   # with room, the block read
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(self.tmp / "w.dat", "rb") as f:
            f.seek(self.BAD * 4096)
            self.assertEqual((mnt / dump).read_bytes(), f.read(4096))

    def test_a_bad_chunk_inside_a_read_is_not_lost(self):
        # 16k reads of 4k chunks: fio 3.33 keeps only its last chunk's result, so the
        # mismatch in the second chunk of the sixth read is printed and then lost (error 0,
        # exit 0, all 16 reads).  ioplan fails the read and ends there.
        self.assertEqual(self.figures(run, ("--rw=read", "--bs=16k", "--verify_interval=4k")),
                         (1, 84, 6 * 16384, 6, 0))


class Failures(TmpDirCase):
    def test_enospc_mid_run_names_job_file_offset_and_errno_and_keeps_results(self):
        if os.geteuid() != 0:
            self.skipTest("mounting a tmpfs needs root")
        mnt = self.tmp / "small"
        mnt.mkdir()
        if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(mnt)]).returncode != 0:
            self.skipTest("mount -t tmpfs refused here")
        try:
            # Preflight sees room for the 3 MiB job; the space goes to another writer (the filler
            # below) between the layout and the first write, as on a shared disk.  The job's
            # exec_prerun holds it there until the filler is written: a startdelay=1 window
            # was a guess a loaded machine could outlast (the filler then met ENOSPC itself,
            # or came after the job's first megabyte).
            go, filled = self.tmp / "go", self.tmp / "filled"
            hold = self.write("hold.sh", 'touch "$1"; i=0; while [ ! -e "$2" ] && [ $i -lt 6000 ]; '
                                         'do sleep 0.01; i=$((i+1)); done\n')
            proc = subprocess.Popen([BIN, "--name=full", f"--directory={mnt}", "--size=3m", "--bs=64k",
                                     "--rw=write", "--fallocate=none", f"--exec_prerun=sh {hold} {go} {filled}",
                                     "--output-format=json"],
                                    cwd=self.tmp, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            self.addCleanup(lambda: proc.poll() is None and (proc.kill(), proc.wait()))
            target = mnt / "full.0.0"
            wait_until(go.exists, 30, "the job's exec_prerun, after the layout")
            self.assertTrue(target.exists(), "the layout made the job's file")
            (mnt / "filler").write_bytes(b"\0" * (3 << 20) + b"\0" * (512 << 10))
            filled.touch()
            out, err = proc.communicate(timeout=30)
            self.assertEqual(proc.returncode, 1, err)
            doc = json.loads(out)
            job = doc["jobs"][0]
            errors = doc["ioplan"]["jobs"][0]["errors"]
            self.assertEqual(errors[0]["errno"], 28)
            self.assertEqual(errors[0]["file"], str(target))
            off = errors[0]["offset"]
            self.assertEqual(off % (64 << 10), 0)
            self.assertLess(off, 1 << 20)
            self.assertEqual(job["write"]["io_bytes"], off)   # everything before the failing write
            self.assertIn(f"job 'full': {target}: offset {off}: write: No space left on device (errno 28)", err)
        finally:
            subprocess.run(["umount", "-l", str(mnt)])

    def test_stalled_io_is_reported_by_the_watchdog(self):
        # A FIFO is a file whose reads really wait: nothing completes until the test writes.
        # (thinktime would not do: a thinking thread has no I/O in flight.)
        fifo = self.tmp / "fifo"
        os.mkfifo(fifo)
        wfd = os.open(fifo, os.O_RDWR)
        try:
            proc = subprocess.Popen([BIN, "--name=s", f"--filename={fifo}", "--rw=read", "--size=4k",
                                     "--ioengine=io_uring", "--stall_timeout=300ms", "--output-format=json",
                                     "--eta=always"],
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            # Once the read is in flight (the worker waits in the kernel for its completion),
            # the stall is the property: it lasts twice the 300 ms the watchdog allows before
            # the test ends it.  "[R(1)]" said only that the job had started: a loaded machine
            # could issue the read well into the 0.6 s, leaving the watchdog less than 300 ms.
            wait_until(lambda: proc.poll() is not None or waits_in(proc.pid, "io_cqring_wait"), 30,
                       "the read in flight")
            time.sleep(0.6)
            os.write(wfd, b"x" * 4096)
            out, err = proc.communicate(timeout=30)
        finally:
            os.close(wfd)
        doc = json.loads(out)
        job = doc["ioplan"]["jobs"][0]
        if job["errors"] and job["errors"][0]["errno"] in (1, 38):
            self.skipTest("io_uring refused by the kernel")
        self.assertEqual(proc.returncode, 0, err)
        self.assertTrue(job["stalled"])
        self.assertEqual(doc["jobs"][0]["read"]["total_ios"], 1)
        self.assertTrue(any(w.startswith("s: thread 1: no I/O completed for") for w in doc["ioplan"]["warnings"]),
                        doc["ioplan"]["warnings"])

    def test_second_sigint_aborts_at_once_with_valid_results(self):
        # An io_uring read from a FIFO nobody writes never completes: the first
        # SIGINT's graceful stop cannot finish, only the second gets out.
        fifo = self.tmp / "fifo"
        os.mkfifo(fifo)
        writer = os.open(fifo, os.O_RDWR)
        self.addCleanup(os.close, writer)
        proc = subprocess.Popen([BIN, "--name=p", f"--filename={fifo}", "--size=4k", "--rw=read",
                                 "--ioengine=io_uring", "--output-format=json", "--eta=always"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        # The read in flight: the worker waits in the kernel for its completion.  ("[R(1)]"
        # said only that the job had started; a SIGINT before the read was issued rightly
        # ended the run at once.)
        wait_until(lambda: proc.poll() is not None or waits_in(proc.pid, "io_cqring_wait"), 30,
                   "the read in flight")
        proc.send_signal(signal.SIGINT)
        time.sleep(0.5)  # the property: half a second on, the first SIGINT has not ended it
        self.assertIsNone(proc.poll(), "the graceful stop waits for the I/O in flight")
        start = time.monotonic()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=10)
        self.assertLess(time.monotonic() - start, STOP_BOUND_S)
        self.assertEqual(proc.returncode, 1, err)
        self.assertIn("aborting", err)
        doc = json.loads(out)
        self.assertTrue(doc["ioplan"]["interrupted"])
        self.assertEqual(doc["jobs"][0]["read"]["total_ios"], 0)

    def test_normal_output_says_the_run_was_interrupted(self):
        proc = subprocess.Popen([BIN, "--name=n", "--ioengine=null", "--size=1m", "--time_based", "--runtime=60",
                                 "--eta=always"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        wait_for_stderr(proc, b"[R(1)]")  # running, not still setting up
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=10)
        self.assertEqual(proc.returncode, 1, err)
        self.assertIn("read: IOPS=", out)
        self.assertTrue(out.endswith("\nioplan: interrupted: the figures cover only what ran before the stop\n"),
                        out[-300:])


if __name__ == "__main__":
    unittest.main()
