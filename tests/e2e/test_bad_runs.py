"""tests/e2e/test_bad_runs.py - errors that must exit non-zero and say what is wrong.

Each test builds the real situation (a full filesystem, a real /dev/full, an
unresolvable host, a real nbdkit export, broken state files) and checks the
exit code and the message: a lost result is exit 1 naming the file, bad input
is exit 2 before any I/O naming what is wrong with it.
"""
import json
import os
import pathlib
import resource
import shutil
import struct
import subprocess
import tempfile
import time
import unittest

from common import BIN, FIO, VARIANT, TmpDirCase, run, run_fio
from test_mpi_merge import crc32c


def fill(path):
    """Writes zeros to path until its filesystem has no room left."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        while os.write(fd, b"\0" * 4096) > 0:
            pass
    except OSError:
        pass
    finally:
        os.close(fd)


def small_tmpfs(case, size="64k"):
    """A tmpfs of size mounted for the test; skipped where mounting is refused."""
    if os.geteuid() != 0:
        case.skipTest("mounting a tmpfs needs root")
    # Not under case.tmp: tearDown removes that before the cleanups unmount.
    mnt = pathlib.Path(tempfile.mkdtemp(prefix="ioplan-small-"))
    case.addCleanup(os.rmdir, mnt)
    m = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(mnt)],
                       capture_output=True, text=True)
    if m.returncode:
        case.skipTest("mount -t tmpfs: " + m.stderr.strip())
    case.addCleanup(subprocess.run, ["umount", "-l", str(mnt)])
    return mnt


class WriteIologLost(TmpDirCase):
    JOB = ["--name=j", "--ioengine=null", "--size=4m", "--bs=4k", "--rw=write"]

    def test_dev_full_fails_the_run_naming_the_log(self):
        p = run(self.JOB + ["--write_iolog=/dev/full"], cwd=self.tmp)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn("write_iolog=/dev/full (the trace ends at the last whole line before the error): No space left on device", p.stderr)

    def test_a_full_filesystem_fails_the_run_naming_the_log(self):
        mnt = small_tmpfs(self)
        fill(mnt / "filler")  # the log's first page finds no room
        log = mnt / "j.iolog"
        p = run(self.JOB + [f"--write_iolog={log}", "--output-format=json"], cwd=self.tmp)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn(f"write_iolog={log} (the trace ends at the last whole line before the error): No space left on device (errno 28)", p.stderr)
        self.assertEqual(json.loads(p.stdout)["jobs"][0]["write"]["io_bytes"], 4 << 20)


class AuxPath(TmpDirCase):
    JOB = ["--name=v", "--size=64k", "--bs=4k", "--verify=crc32c", "--output-format=json"]

    def test_state_files_go_there_and_are_read_from_there(self):
        aux = self.tmp / "aux"
        aux.mkdir()
        p = run(self.JOB + ["--rw=write", "--verify_state_save=1", f"--aux-path={aux}"], cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(sorted(os.listdir(aux)), ["local-v-0-verify.state"])
        self.assertEqual(sorted(self.tmp.glob("local-*")), [])
        p = run(self.JOB + ["--rw=read", "--verify_only=1", "--verify_state_load=1", f"--aux-path={aux}"],
                cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(json.loads(p.stdout)["jobs"][0]["read"]["io_bytes"], 64 << 10)

    def test_verify_dump_files_go_there(self):
        aux = self.tmp / "aux"
        aux.mkdir()
        self.assertEqual(run(self.JOB + ["--rw=write", "--do_verify=0"], cwd=self.tmp).returncode, 0)
        with open(self.tmp / "v.0.0", "r+b") as f:
            f.seek(8192 + 100)
            f.write(b"\xff")
        p = run(self.JOB + ["--rw=read", "--verify_only=1", "--verify_dump=1", f"--aux-path={aux}"],
                cwd=self.tmp)
        self.assertEqual(p.returncode, 1, p.stderr)
        # fio 3.33 dumps both, the block read and the block as its header says it was written (9e15c7ff)
        self.assertEqual(sorted(os.listdir(aux)), ["v.0.0.8192.expected", "v.0.0.8192.received"])

    def test_a_missing_directory_is_refused_before_any_io(self):
        p = run(self.JOB + ["--rw=write", "--verify_state_save=1", "--aux-path=nowhere"], cwd=self.tmp)
        self.assertEqual(p.returncode, 2)
        self.assertIn("--aux-path=nowhere: No such file or directory", p.stderr)
        self.assertFalse((self.tmp / "v.0.0").exists())

    def test_help_says_what_goes_there(self):
        text = run(["--help"]).stdout
        self.assertNotIn("writes none", text)
        self.assertRegex(text, r"--aux-path=DIR, -K +directory for verify state files")


class BrokenStateFiles(TmpDirCase):
    """verify_state_load of a state file fio 3.33 would not load, or not as this job's: exit 2 before
    any I/O, naming it and the fault; fio refuses the same files (version, size, CRC) in its words."""
    JOB = ["--name=v", "--size=64k", "--bs=4k", "--verify=crc32c", "--output-format=json"]
    STATE = "local-v-0-verify.state"

    def setUp(self):
        super().setUp()
        p = run(self.JOB + ["--rw=write", "--verify_state_save=1"], cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.good = (self.tmp / self.STATE).read_bytes()
        self.assertEqual(len(self.good), 24 + 152 + 16)
        (self.tmp / self.STATE).unlink()
        self.data = (self.tmp / "v.0.0").read_bytes()

    def check(self, why, fio_says=None):
        state = self.tmp / self.STATE
        before = state.read_bytes() if state.is_file() else None
        p = run(self.JOB + ["--rw=read", "--verify_only=1", "--verify_state_load=1"], cwd=self.tmp, timeout=30)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn(f"job 'v': verify_state_load: {self.STATE}: {why}", p.stderr)
        self.assertEqual(p.stdout, "")
        # Nothing lost: the state and the data are as they were.
        self.assertEqual(state.read_bytes() if state.is_file() else None, before)
        self.assertEqual((self.tmp / "v.0.0").read_bytes(), self.data)
        if fio_says and FIO:
            f = run_fio(self.JOB[:-1] + ["--rw=read", "--verify_only=1", "--verify_state_load=1",
                                         "--verify_state_save=0"], cwd=self.tmp, timeout=30)
            self.assertNotEqual(f.returncode, 0, f.stdout)
            self.assertIn(fio_says, f.stderr + f.stdout)

    def forged(self, version=3, payload=None, tail=b""):
        payload = self.good[24:] if payload is None else payload
        (self.tmp / self.STATE).write_bytes(struct.pack("<QQQ", version, len(payload), crc32c(payload))
                                            + payload + tail)

    def test_empty(self):
        (self.tmp / self.STATE).write_bytes(b"")
        self.check("truncated: 0 bytes, the header alone is 24", "failed reading verify state header")

    def test_garbage(self):
        (self.tmp / self.STATE).write_bytes(b"garbage\n" * 100)
        version = struct.unpack("<Q", b"garbage\n")[0]
        self.check(f"version {version} in its header; fio 3.33's state files are version 3",
                   "version in verify state header")

    def test_wrong_version(self):
        self.forged(version=2)
        self.check("version 2 in its header; fio 3.33's state files are version 3",
                   "unsupported (2) version in verify state header")

    def test_bad_crc(self):
        bad = bytearray(self.good)
        bad[24 + 16] ^= 1  # the count of writes
        (self.tmp / self.STATE).write_bytes(bytes(bad))
        self.check("corrupt: CRC-32C 0x", "verify state is corrupt")

    def test_truncated(self):
        (self.tmp / self.STATE).write_bytes(self.good[:-4])
        self.check("truncated: the header says 168 bytes follow it, the file has 164", "failed reading verity state")

    def test_bytes_appended(self):
        # fio loads it (it reads what the header counts); its fio-verify-state says "Size mismatch".
        self.forged(tail=b"\0" * 8)
        self.check("bytes past the state: the header says 168 bytes follow it, the file has 176")

    def test_another_jobs_state(self):
        # fio does not compare the name it loads; the file is not this job's, so ioplan refuses it.
        payload = bytearray(self.good[24:])
        payload[88:90] = b"w\0"
        self.forged(payload=bytes(payload))
        self.check("written for job 'w', not 'v'")

    def test_a_directory(self):
        (self.tmp / self.STATE).mkdir()
        self.check("a directory, not a state file")

    def test_dev_zero_is_not_read(self):
        (self.tmp / self.STATE).symlink_to("/dev/zero")
        self.check("not a regular file")


class NetHostNames(TmpDirCase):
    def check(self, host):
        p = run(["--name=n", "--ioengine=net", f"--hostname={host}", "--port=9", "--rw=write", "--size=1m"],
                cwd=self.tmp, timeout=60)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn(f"job 'n': hostname={host[:200]}: ", p.stderr)
        self.assertNotIn("Invalid argument", p.stderr)
        return p.stderr

    def test_an_unresolvable_name_gives_the_resolvers_message_up_front(self):
        # .invalid never resolves (RFC 6761); the resolver's own words, not EINVAL at run time.
        self.assertRegex(self.check("no-such-host.invalid"), r"hostname=no-such-host\.invalid: \S")

    def test_an_over_long_name(self):
        self.check("a" * 300)


@unittest.skipUnless(shutil.which("nbdkit"), "nbdkit not installed")
class NbdPastTheExport(TmpDirCase):
    def test_size_past_the_exports_end_is_refused_before_any_io(self):
        sock = self.tmp / "nbd.sock"
        server = subprocess.Popen(["nbdkit", "-U", str(sock), "-f", "memory", "1M"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.addCleanup(lambda: (server.kill(), server.wait()))
        deadline = time.monotonic() + 30
        while not sock.exists():
            self.assertLess(time.monotonic(), deadline, "nbdkit's socket never appeared")
            time.sleep(0.01)
        uri = f"nbd+unix:///?socket={sock}"
        p = run(["--name=r", "--ioengine=nbd", f"--uri={uri}", "--rw=write", "--bs=4k", "--size=2m",
                 "--output-format=json"], cwd=self.tmp, timeout=60)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn(f"job 'r': {uri}: the region (bytes 0 to 2097152) runs past the end of the export "
                      "(1048576 bytes)", p.stderr)
        self.assertEqual(p.stdout, "")


class MergeTooLarge(TmpDirCase):
    def test_iters_past_available_memory_are_refused_up_front(self):
        from test_iolog import synthetic_blktrace
        (self.tmp / "a.bin").write_bytes(synthetic_blktrace(10))
        (self.tmp / "b.bin").write_bytes(synthetic_blktrace(10))
        # A ceiling on the address space: code that merges first cannot take the machine down.
        limit, env = (lambda: resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))), None
        if VARIANT != "release":
            # A sanitizer runtime reserves terabytes of address space for its shadow and
            # dies at start under that ceiling ("AddressSanitizer failed to allocate");
            # ASan's own limit on resident memory is the ceiling there (TSan has none).
            limit = None
            env = dict(os.environ, ASAN_OPTIONS=os.environ.get("ASAN_OPTIONS", "") + ":hard_rss_limit_mb=4096")
        p = subprocess.run([BIN, "--merge-blktrace-only", "--name=m", "--read_iolog=a.bin:b.bin",
                            "--merge_blktrace_file=m.bin", "--merge_blktrace_iters=2000000000:1"],
                           cwd=self.tmp, capture_output=True, text=True, timeout=120, preexec_fn=limit, env=env)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertRegex(p.stderr, r"m\.bin: error: merge_blktrace_iters: the merged trace would take up to "
                                   r"\d+ bytes .* more than the \d+ bytes of memory available")
        self.assertFalse((self.tmp / "m.bin").exists())


class NoSize(TmpDirCase):
    def test_a_job_without_size_on_a_missing_file_is_refused_before_any_io(self):
        # Job files meant for --filename=/dev/X (JH989876525/fio4k's fio.cfg, fiosmr's
        # write.fio) run without one: fio runs the jobs it can and fails this one with
        # EINVAL ("you need to specify size="); ioplan refuses the run up front, naming it.
        (self.tmp / "j.fio").write_text("[good]\nrw=write\nbs=4k\nsize=1m\n[nosize]\nrw=write\nbs=4k\n")
        p = run(["j.fio", "--output-format=json"], cwd=self.tmp)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("job 'nosize': nosize.0.0 does not exist and the job has no size= to create it", p.stderr)
        self.assertEqual(p.stdout, "")
        self.assertEqual(sorted(f.name for f in self.tmp.iterdir()), ["j.fio"])  # nothing laid out
        if FIO:
            p = run_fio(["j.fio", "--output-format=json"], cwd=self.tmp)
            self.assertIn("nosize: you need to specify size=", p.stdout + p.stderr)


class DirectAlignment(TmpDirCase):
    def test_a_misaligned_direct_job_names_its_file_even_one_still_to_be_made(self):
        # The reason a direct=1 job at offset=1 fails (fio: EINVAL at its first write)
        # named the directory of a file the job was still to make, "direct=1 on . needs
        # sizes and offsets in multiples of 512 bytes", and the file only once it existed.
        for made in (False, True):
            with self.subTest(made=made):
                p = run(["--name=j", "--filename=f", "--size=64k", "--bs=4k", "--rw=write", "--direct=1",
                         "--offset=1"], cwd=self.tmp)
                self.assertEqual(p.returncode, 1, p.stderr)
                self.assertIn("job 'j': direct=1 on f needs sizes and offsets in multiples of", p.stderr)
                self.assertIn("but offset is 1", p.stderr)
                self.assertTrue((self.tmp / "f").exists())


class DiskspdLines(TmpDirCase):
    def test_a_base_offset_past_the_file_says_so(self):
        p = run(["diskspd", "-B8M", "-c1M", "-d1", "t.dat"], cwd=self.tmp)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("diskspd: error: -B: the base offset (8388608 bytes) leaves no whole block "
                      "(-b: 65536 bytes) in the file (-c: 1048576 bytes)", p.stderr)
        self.assertNotIn("no size is given", p.stderr)
        self.assertFalse((self.tmp / "t.dat").exists())

    def test_2000_targets_have_no_line_limit(self):
        targets = [str(self.tmp / f"t{i}.dat") for i in range(2000)]
        p = run(["diskspd", "--showplan", "-c64k", "-d1", *targets], cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        plan = json.loads(p.stdout)
        self.assertEqual(sum(len(c["files"]) for g in plan["groups"] for j in g["jobs"] for c in j["clones"]), 2000)


class VerifyOnlyRate(TmpDirCase):
    def test_verify_only_reads_at_rate(self):
        job = ["--name=v", "--size=8m", "--bs=64k", "--verify=crc32c", "--output-format=json"]
        self.assertEqual(run(job + ["--rw=write", "--do_verify=0"], cwd=self.tmp).returncode, 0)
        p = run(job + ["--rw=read", "--verify_only=1", "--rate=4m"], cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        read = json.loads(p.stdout)["jobs"][0]["read"]
        self.assertEqual(read["io_bytes"], 8 << 20)
        # Pacing can only make it slower: at most the limit (fio: 8418071 B/s for rate=8m).
        self.assertLessEqual(read["bw_bytes"], (4 << 20) * 1.02)
        self.assertGreaterEqual(read["runtime"], 1700)


class LogUnixEpoch(TmpDirCase):
    def test_no_entry_is_dated_outside_the_run(self):
        before = int(time.time() * 1000)
        p = run(["--name=e", "--ioengine=null", "--size=1m", "--numjobs=256", "--time_based", "--runtime=1",
                 "--log_unix_epoch=1", "--write_bw_log=e", "--log_avg_msec=100", "--group_reporting",
                 "--output=/dev/null"], cwd=self.tmp, timeout=120)
        after = int(time.time() * 1000)
        self.assertEqual(p.returncode, 0, p.stderr)
        stamps = [int(line.split(",")[0]) for f in self.tmp.glob("e_bw.*.log") for line in f.read_text().splitlines()]
        # 256 threads on 2 CPUs each get the CPU about once a second, so most write one averaged
        # line and, beside other tests, few write any (5 in all once): the dates are what is judged.
        self.assertGreater(len(stamps), 0)
        # The old clock base dated entries up to 0.95 s after ioplan had exited.
        self.assertLessEqual(max(stamps), after)
        self.assertGreaterEqual(min(stamps), before)


if __name__ == "__main__":
    unittest.main()
