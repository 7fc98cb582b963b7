"""tests/e2e/test_verify.py - every verify= method of fio 3.33 on real files, through the binary.

For each method: a write job with do_verify reads its blocks back clean; a byte
flipped in the middle of one block between that run and a later read run
(verify_only, and a plain read job with verify=) is reported at that block's
offset, with the job, the file, the method and the stored and computed digests,
exit code 1 and the JSON's verify_failures.  meta checks its header (not the
data); verify_dump writes the bad block under fio's name; verify_backlog checks
while writing (strace shows the reads between the writes); fallocate=truncate
leaves a sparse file.  Against fio 3.33: files written by either tool verify
clean in the other (the block layout is fio's), and the sha512 case fio misses.
"""
import json
import os
import re
import resource
import shutil
import signal
import subprocess
import unittest

from common import BIN, FIO, TRACED_ENV, TmpDirCase, flip, run, run_fio, wait_until

METHODS = ["md5", "crc64", "crc32c", "crc32c-intel", "crc32", "crc16", "crc7", "xxhash", "sha1",
           "sha256", "sha512", "sha3-224", "sha3-256", "sha3-384", "sha3-512"]
BS = 4096
BAD_BLOCK = 5                 # the block whose middle byte is flipped
SIZE = 16 * BS


class EveryMethod(TmpDirCase):
    def job(self, method, *extra):
        return ["--name=v", f"--filename={self.tmp / 'v.dat'}", f"--size={SIZE}", f"--bs={BS}",
                f"--verify={method}", "--output-format=json", *extra]

    def test_clean_then_a_flipped_middle_byte_is_named_at_its_block(self):
        # A job (and a file) a method in one job file: a run of each kind, not one a method.
        def job_file(name, rw):
            return self.write(name, f"[global]\nsize={SIZE}\nbs={BS}\n{rw}" + "".join(
                f"[{m}]\nfilename={self.tmp}/{m}.dat\nverify={m}\n" for m in METHODS))

        p = run([str(job_file("w.fio", "rw=randwrite\ndo_verify=1\n")), "--output-format=json"])
        self.assertEqual(p.returncode, 0, p.stderr)
        doc = json.loads(p.stdout)
        self.assertEqual({j["jobname"]: (j["verify_failures"], j["errors"]) for j in doc["ioplan"]["jobs"]},
                         {m: (0, []) for m in METHODS})
        self.assertEqual({j["jobname"]: j["read"]["io_bytes"] for j in doc["jobs"]}, {m: SIZE for m in METHODS})
        for m in METHODS:
            flip(self.tmp / f"{m}.dat", BAD_BLOCK * BS + BS // 2)
        for how in ("rw=read\nverify_only=1\n", "rw=read\n"):
            with self.subTest(how=how):
                p = run([str(job_file("r.fio", how)), "--output-format=json"])
                self.assertEqual(p.returncode, 1, p.stderr)
                doc = json.loads(p.stdout)
                self.assertEqual({j["jobname"]: j["error"] for j in doc["jobs"]}, {m: 84 for m in METHODS})
                for job in doc["ioplan"]["jobs"]:
                    method = job["jobname"]
                    self.assertEqual(job["verify_failures"], 1, method)
                    err = job["errors"][0]
                    self.assertEqual(err["offset"], BAD_BLOCK * BS, method)
                    m = re.fullmatch(r"verify (\S+): want ([0-9a-f]+) got ([0-9a-f]+)", err["what"])
                    self.assertIsNotNone(m, err["what"])
                    self.assertEqual(m.group(1), method)
                    self.assertNotEqual(m.group(2), m.group(3))
                    self.assertIn(f"job '{method}': {self.tmp}/{method}.dat: offset {BAD_BLOCK * BS}: "
                                  f"verify {method}: want", p.stderr)

    def test_bs_is_seq_rand_writes_of_both_sizes_read_back_clean(self):
        # Sequential writes (and a random job's sequential turns) take the first size,
        # random ones the second; the interval fits both, so overwrites of one size by
        # the other check clean (fio 3.33 reports "bad header length" on these).
        for form in (["--rw=randwrite", "--percentage_random=50"], ["--rw=randwrite:3"],
                     ["--rw=write", "--bs=8k,4k"]):
            with self.subTest(form=form):
                (self.tmp / "v.dat").unlink(missing_ok=True)
                p = run(["--name=v", f"--filename={self.tmp / 'v.dat'}", "--size=1m", "--bs=4k,8k",
                         "--bs_is_seq_rand=1", "--verify=crc32c", "--output-format=json", *form])
                self.assertEqual(p.returncode, 0, p.stderr)
                doc = json.loads(p.stdout)
                self.assertEqual((doc["ioplan"]["jobs"][0]["verify_failures"], doc["ioplan"]["jobs"][0]["errors"]),
                                 (0, []))
                self.assertGreater(doc["jobs"][0]["read"]["io_bytes"], 0)

    def test_meta_checks_the_header_not_the_data(self):
        p = run(self.job("meta", "--rw=write"))
        self.assertEqual(p.returncode, 0, p.stderr)
        flip(self.tmp / "v.dat", BAD_BLOCK * BS + BS // 2)
        p = run(self.job("meta", "--rw=read", "--verify_only=1"))
        self.assertEqual(p.returncode, 0, p.stderr)
        flip(self.tmp / "v.dat", BAD_BLOCK * BS + 16)       # the header's offset field
        p = run(self.job("meta", "--rw=read", "--verify_only=1"))
        self.assertEqual(p.returncode, 1)
        err = json.loads(p.stdout)["ioplan"]["jobs"][0]["errors"][0]
        self.assertEqual(err["offset"], BAD_BLOCK * BS)
        self.assertEqual(err["what"], "verify meta: bad header offset: want 0x5000 got 0x505a")
        flip(self.tmp / "v.dat", BAD_BLOCK * BS + 16)
        flip(self.tmp / "v.dat", BAD_BLOCK * BS + 28)       # time_nsec: only the header's crc32c covers it
        p = run(self.job("meta", "--rw=read", "--verify_only=1"))
        self.assertRegex(json.loads(p.stdout)["ioplan"]["jobs"][0]["errors"][0]["what"],
                         r"^verify meta: bad header crc32c: want 0x[0-9a-f]+ got 0x")

    def test_verify_dump_writes_the_bad_block_under_fios_name(self):
        self.assertEqual(run(self.job("md5", "--rw=write")).returncode, 0)
        flip(self.tmp / "v.dat", BAD_BLOCK * BS + 100)
        p = run(self.job("md5", "--rw=read", "--verify_only=1", "--verify_dump=1"), cwd=self.tmp)
        self.assertEqual(p.returncode, 1)
        dumped = self.tmp / f"v.dat.{BAD_BLOCK * BS}.received"
        with open(self.tmp / "v.dat", "rb") as f:
            f.seek(BAD_BLOCK * BS)
            self.assertEqual(dumped.read_bytes(), f.read(BS))

    def test_clones_that_dump_the_same_bad_blocks_replace_each_others_dumps(self):
        # numjobs=4 verify_only clones over one file find the same mismatches and dump them
        # under the same names.  A dump was ioplan's own only once marked, after its write,
        # so a sibling judging it in between refused it as a user's file ("exists and ioplan
        # did not write it"): 2 to 4 of the 4096 dumps, in 5 of 6 runs of this job (from a
        # real job file, stevechang0459/fio-job-file's rand_1024k_write_verify.fio).
        job = ["--filename=f.1", "--size=4m", "--bs=4k", "--verify_dump=1"]
        for attempt in range(3):
            for f in self.tmp.glob("f.1*"):
                f.unlink()
            p = run(["--name=w", *job, "--rw=write", "--verify=md5", "--do_verify=0"], cwd=self.tmp)
            self.assertEqual(p.returncode, 0, p.stderr)
            # Every block fails: written with md5, checked as crc32c; continue_on_error=verify
            # checks them all (exit 0, as fio's: the mismatches allowed are not the jobs' errors).
            p = run(["--name=v", *job, "--rw=write", "--verify_only=1", "--verify=crc32c", "--numjobs=4",
                     "--continue_on_error=verify", "--output-format=json"], cwd=self.tmp)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual([j["verify_failures"] for j in json.loads(p.stdout)["ioplan"]["jobs"]], [1024] * 4)
            self.assertNotIn("did not write it", p.stderr)
            self.assertNotIn("verify_dump:", p.stderr)
            dumps = sorted(self.tmp.glob("f.1.*.received"))
            self.assertEqual(len(dumps), 1024, attempt)
            with open(self.tmp / "f.1", "rb") as f:
                for d in dumps[::97]:
                    f.seek(int(d.name.split(".")[2]))
                    self.assertEqual(d.read_bytes(), f.read(4096), d.name)

    def test_verify_offset_moves_the_header_and_still_finds_a_flip(self):
        self.assertEqual(run(self.job("crc32c", "--rw=write", "--verify_offset=1024")).returncode, 0)
        with open(self.tmp / "v.dat", "rb") as f:
            f.seek(1024)
            self.assertEqual(f.read(2), b"\xca\xac")
        flip(self.tmp / "v.dat", BAD_BLOCK * BS + 3000)
        p = run(self.job("crc32c", "--rw=read", "--verify_only=1", "--verify_offset=1024"))
        self.assertEqual(p.returncode, 1)
        self.assertEqual(json.loads(p.stdout)["ioplan"]["jobs"][0]["errors"][0]["offset"], BAD_BLOCK * BS)

    def test_verify_offset_that_overlaps_the_header_is_refused(self):
        # The header and the bytes at verify_offset swap places: overlapping, every block
        # then reads back "bad" (fio 3.33 and ioplan both reported 16 false mismatches at 40
        # with md5, whose header and digest take 56 bytes).  fio refuses below 40 as it parses.
        p = run(self.job("md5", "--rw=write", "--verify_offset=8", "--parse-only"))
        self.assertEqual(p.returncode, 2)
        self.assertIn("verify_offset must be 0 or at least 40", p.stderr)
        p = run(self.job("md5", "--rw=write", "--verify_offset=40"))
        self.assertEqual(p.returncode, 1)
        self.assertIn("verify_offset=40 must leave the 56 bytes of header and digest whole: at least 56", p.stderr)
        self.assertNotIn("want", p.stderr)
        self.assertEqual(run(self.job("md5", "--rw=write", "--verify_offset=56")).returncode, 0)

    @unittest.skipIf(shutil.which("strace") is None, "strace not installed")
    def traced(self, *extra):
        """The JSON job and the (call, offset) of every 4 KiB pread64 and pwrite64, in order."""
        trace = self.tmp / "st.txt"
        p = subprocess.run(["strace", "-f", "-e", "trace=pread64,pwrite64", "-o", str(trace),
                            BIN, *self.job("crc32c", "--rw=write", *extra)],
                           capture_output=True, text=True, timeout=120,
                           env=TRACED_ENV)
        self.assertEqual(p.returncode, 0, p.stderr)
        # strace -f splits a call another thread interrupts ("... 8192 <unfinished ...>").
        # The buffer is a quoted string that may hold a comma (a header byte 0x2c:
        # 3 of 240 writes measured; it hid 2 of 16 from the old pattern once), or an
        # address (a read not yet done).
        calls = re.findall(r'(pread64|pwrite64)\(\d+, (?:"(?:[^"\\]|\\.)*"(?:\.\.\.)?|[^,"]*), 4096, (\d+)'
                           r'(?:\)| <unfinished)', trace.read_text())
        return json.loads(p.stdout)["jobs"][0], [(c, int(o)) for c, o in calls]

    def test_verify_backlog_reads_back_between_the_writes(self):
        job, seq = self.traced("--verify_backlog=2")
        self.assertEqual(len([c for c, _ in seq if c == "pwrite64"]), SIZE // BS)
        # After every second write, the two blocks just written are read back, before the next write.
        first_write = seq.index(("pwrite64", 0))
        self.assertEqual(seq[first_write:first_write + 4],
                         [("pwrite64", 0), ("pwrite64", BS), ("pread64", 0), ("pread64", BS)])
        self.assertEqual(job["read"]["io_bytes"], SIZE)

    def test_each_loop_is_read_back_before_the_next_one_writes(self):
        # fio runs loops=3 as three rounds of writes, each read back as it ends:
        # a block that a later loop writes again was still checked as the first
        # loop left it.  Read back once after the last loop, only its blocks were
        # (read io_bytes SIZE, not 3 x SIZE).
        job, seq = self.traced("--loops=3")
        seq = seq[seq.index(("pwrite64", 0)):]
        one_loop = [("pwrite64", b * BS) for b in range(SIZE // BS)] + [("pread64", b * BS) for b in range(SIZE // BS)]
        self.assertEqual(seq, one_loop * 3)
        self.assertEqual((job["write"]["io_bytes"], job["read"]["io_bytes"]), (3 * SIZE, 3 * SIZE))
        # verify_only reads the region once a loop too.
        p = run(self.job("crc32c", "--rw=write", "--verify_only=1", "--loops=2"))
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(json.loads(p.stdout)["jobs"][0]["read"]["io_bytes"], 2 * SIZE)
        if FIO:
            for extra, reads in ((("--loops=3",), 3 * SIZE), (("--verify_only=1", "--loops=2"), 2 * SIZE)):
                f = run_fio(self.job("crc32c", "--rw=write", *extra))
                self.assertEqual(f.returncode, 0, f.stderr)
                self.assertEqual(json.loads(f.stdout)["jobs"][0]["read"]["io_bytes"], reads, extra)

    def device_reads(self, tool, *extra):
        """The bytes a run of tool read from the block device under self.tmp (its ru_inblock)."""
        (self.tmp / "v.dat").unlink(missing_ok=True)
        p = subprocess.Popen([tool, *self.job("crc32c", "--rw=write", "--bs=64k", "--size=8m", *extra)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(p.pid, 0)
        self.assertEqual(os.waitstatus_to_exitcode(status), 0, p.stderr.read())
        p.stderr.close()
        return usage.ru_inblock * 512

    def has_block_device(self):
        """A read of a synced file whose cached pages were dropped comes from a device here."""
        probe = self.tmp / "probe"
        with open(probe, "wb") as f:
            f.write(os.urandom(1 << 20))
            f.flush()
            os.fsync(f.fileno())
            os.posix_fadvise(f.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)
        before = resource.getrusage(resource.RUSAGE_SELF).ru_inblock
        probe.read_bytes()
        return resource.getrusage(resource.RUSAGE_SELF).ru_inblock > before

    def test_the_read_back_reads_what_the_writes_left_on_the_device(self):
        # fio reopens a job's files for the read-back, and invalidate=1 drops their
        # cached pages: what end_fsync (or fsync=N) synced is read from the device
        # (8 MiB), not from the page cache the writes filled (0), so a write the
        # device lost or corrupted is found.  Pages still dirty stay in the cache.
        # The process's own reads count too: its binary and libraries, read on
        # the first run after their pages were dropped (40-56 MiB cold), so each
        # tool runs once unmeasured; pages reclaimed again on a machine short of
        # memory (268 KiB more for fio once in CI) are why a run may read up to
        # 1 MiB more than its file, never less.  The figures stay 8 MiB apart.
        if not self.has_block_device():
            self.skipTest(f"no block device under {self.tmp}: reads come from memory")
        for tool in (BIN, FIO) if FIO else (BIN,):
            self.device_reads(tool, "--end_fsync=1")
        for extra, device in ((("--end_fsync=1",), 8 << 20), (("--end_fsync=1", "--loops=2"), 16 << 20),
                              (("--end_fsync=1", "--invalidate=0"), 0)):
            for tool in (BIN, FIO) if FIO else (BIN,):
                with self.subTest(extra=extra, tool=tool):
                    got = self.device_reads(tool, *extra)
                    self.assertGreaterEqual(got, device - (256 << 10))
                    self.assertLessEqual(got, device + (1 << 20))

    def test_job_runtime_and_cpu_run_to_the_end_of_the_read_back(self):
        # fio's job_runtime (and the usr/sys CPU over it) runs from the window's
        # start to the end of the read-back: it holds the writes' runtime and the
        # reads'.  ioplan's ended with the writes (82 ms against fio's 5,003 for a
        # 64 MiB randwrite), and verify_only, which has no write window, had 0 ms
        # and 0% CPU.  Each runtime is whole ms, rounded up: 2 ms of slack.
        for tool, runner in (("ioplan", run),) + ((("fio", run_fio),) if FIO else ()):
            path = self.tmp / f"{tool}.dat"
            job = ["--name=v", f"--filename={path}", "--size=16m", "--bs=64k", "--verify=crc32c",
                   "--output-format=json"]
            for extra in (("--rw=randwrite",), ("--rw=write", "--loops=2"), ("--rw=write", "--verify_only=1")):
                with self.subTest(tool=tool, extra=extra):
                    p = runner([*job, *extra])
                    self.assertEqual(p.returncode, 0, p.stderr)
                    j = json.loads(p.stdout)["jobs"][0]
                    spans = j["read"]["runtime"] + j["write"]["runtime"]
                    self.assertGreater(j["read"]["runtime"], 0)
                    self.assertGreaterEqual(j["job_runtime"] + 2, spans, j["job_runtime"])
                    self.assertGreater(j["usr_cpu"] + j["sys_cpu"], 0)

    def test_a_time_based_job_reads_back_what_its_writes_left(self):
        # The window writes the 256 KiB file over and over; once it ends, each block
        # is read back once, as the last write left it.  fio warns that its read
        # phase never starts and reads nothing (man ioplan-job: verify).
        job = ["--name=t", "--size=256k", "--bs=4k", "--rw=write", "--verify=crc32c", "--time_based",
               "--runtime=300ms", "--output-format=json"]
        p = run([*job, f"--filename={self.tmp / 'ioplan.dat'}"])
        self.assertEqual(p.returncode, 0, p.stderr)
        j = json.loads(p.stdout)["jobs"][0]
        self.assertGreater(j["write"]["io_bytes"], 256 << 10)
        self.assertEqual((j["read"]["io_bytes"], j["read"]["total_ios"]), (256 << 10, 64))
        if FIO:
            f = run_fio([*job, f"--filename={self.tmp / 'fio.dat'}"])
            self.assertIn("verification read phase will never start", f.stdout + f.stderr)
            fj = json.loads(f.stdout[f.stdout.index("{"):])["jobs"][0]
            self.assertEqual(fj["read"]["io_bytes"], 0)

    def test_a_run_interrupted_by_sigint_verifies_clean_with_its_state_file(self):
        path = self.tmp / "st.dat"
        job = ["--name=s", f"--filename={path}", "--size=64m", "--bs=64k", "--rw=write", "--verify=md5", "--fallocate=truncate",
               "--output-format=json"]
        w = subprocess.Popen([BIN, *job, "--verify_state_save=1", "--rate=8m"], cwd=self.tmp,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        wait_until(lambda: path.exists() and os.stat(path).st_blocks >= 4096, 30, "2 MiB written")
        w.send_signal(signal.SIGINT)
        w.wait(timeout=60)
        state = self.tmp / "local-s-0-verify.state"
        self.assertTrue(state.exists())
        # Without the state, the blocks never written are reported; with it, none.
        p = run([*job, "--verify_only=1"], cwd=self.tmp)
        self.assertEqual(p.returncode, 1)
        p = run([*job, "--verify_only=1", "--verify_state_load=1"], cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        read = json.loads(p.stdout)["jobs"][0]["read"]["io_bytes"]
        self.assertTrue(2 << 20 <= read < 64 << 20, read)
        # A byte flipped inside what was written is still found.
        flip(path, 65536 + 100)
        p = run([*job, "--verify_only=1", "--verify_state_load=1"], cwd=self.tmp)
        self.assertEqual(p.returncode, 1)
        self.assertEqual(json.loads(p.stdout)["ioplan"]["jobs"][0]["errors"][0]["offset"], 65536)
        state.unlink()
        p = run([*job, "--verify_only=1", "--verify_state_load=1"], cwd=self.tmp)
        self.assertEqual(p.returncode, 2)  # refused before any I/O
        self.assertIn("job 's': verify_state_load: local-s-0-verify.state: No such file or directory", p.stderr)

    def test_fallocate_truncate_makes_a_sparse_file_of_the_size(self):
        for mode, sparse in (("truncate", True), ("posix", False)):
            with self.subTest(fallocate=mode):
                path = self.tmp / f"{mode}.dat"
                p = run(["--name=t", f"--filename={path}", "--size=4m", "--rw=write",
                         f"--fallocate={mode}", "--create_only=1", "--output=/dev/null"])
                self.assertEqual(p.returncode, 0, p.stderr)
                st = os.stat(path)
                self.assertEqual(st.st_size, 4 << 20)
                self.assertEqual(st.st_blocks * 512 < (1 << 20), sparse)


@unittest.skipUnless(FIO, "fio not installed")
class AgainstFio(TmpDirCase):
    ARGS = ["--name=v", f"--size={SIZE}", f"--bs={BS}", "--fallocate=truncate"]

    def test_each_tool_verifies_the_others_blocks(self):
        # sha256/sha512 excepted: fio 3.33 does not store those digests (engine/verify/checksum.c).
        # One job file a direction, a job (and a file) a method: a start of each tool, not 14.
        methods = [m for m in METHODS if m not in ("sha256", "sha512")] + ["meta"]

        def job_file(name, writer, rw):
            head = f"[global]\nsize={SIZE}\nbs={BS}\nfallocate=truncate\nrw={rw}\n"
            head += "do_verify=0\n" if rw == "write" else "verify_only=1\n"
            return self.write(name, head + "".join(f"[{m}]\nfilename={self.tmp}/{writer}-{m}.dat\nverify={m}\n"
                                                    for m in methods))

        def checked(tool, job):
            """{method: (error, bytes read)} from the tool's JSON report of the read-back."""
            p = tool([str(job), "--output-format=json"])
            self.assertEqual(p.returncode, 0, p.stdout[-3000:] + p.stderr[-3000:])
            self.assertNotIn("verify failed", p.stdout + p.stderr)
            return {j["jobname"]: (j["error"], j["read"]["io_bytes"]) for j in json.loads(p.stdout)["jobs"]}

        want = {m: (0, SIZE) for m in methods}
        w = run_fio([str(job_file("fio-w.fio", "fio", "write")), "--output=/dev/null"])
        self.assertEqual(w.returncode, 0, w.stderr)
        self.assertEqual(checked(run, job_file("ioplan-r.fio", "fio", "read")), want)
        w = run([str(job_file("ioplan-w.fio", "ioplan", "write")), "--output=/dev/null"])
        self.assertEqual(w.returncode, 0, w.stderr)
        self.assertEqual(checked(run_fio, job_file("fio-r.fio", "ioplan", "read")), want)

    def test_a_verify_only_readers_report_has_fios_keys_and_rows(self):
        # fio runs a verify_only job that reads through its I/O loop: its JSON has latency_depth
        # and its kin, its depth rows say 1=100%, its latency rows hold its reads.  ioplan's had
        # none of the four keys and 0% rows.  A verify_only writer (fio's dry run) has no keys.
        job = self.write("vo.fio", "[global]\nfilename=v.dat\nsize=256k\nbs=4k\nverify=crc32c\n"
                         "[w]\nrw=write\ndo_verify=0\n[v]\nstonewall\nrw=read\nverify_only=1\n"
                         "[vw]\nstonewall\nrw=write\nverify_only=1\n")
        seen = {}
        for who, tool in (("fio", run_fio), ("ioplan", run)) if FIO else (("ioplan", run),):
            p = tool([str(job), "--output-format=json"], cwd=self.tmp)
            self.assertEqual(p.returncode, 0, p.stderr)
            jobs = {j["jobname"]: j for j in json.loads(p.stdout[p.stdout.index("{"):])["jobs"]}
            seen[who] = {n: (j.get("latency_depth"), j.get("latency_target"), j["iodepth_level"]["1"],
                             j["iodepth_submit"]["4"],
                             sum(j["latency_us"].values()) + sum(j["latency_ns"].values()) > 90)
                         for n, j in jobs.items() if n != "vw"}
            seen[who]["vw"] = "latency_depth" in jobs["vw"]
            (self.tmp / "v.dat").unlink()
        self.assertEqual(seen["ioplan"], {"w": (1, 0, 100.0, 100.0, True), "v": (1, 0, 100.0, 100.0, True), "vw": False})
        if FIO:
            self.assertEqual(seen["ioplan"], seen["fio"])

    def test_verify_only_checks_what_a_write_with_holes_wrote_as_fios_dry_run(self):
        # norandommap=1 writes some blocks twice and leaves others as they were: verify_only
        # draws the same writes again (the same seed) and checks those, as fio's dry run
        # does; checking every block named the untouched ones as bad in an intact file.
        job = [*self.ARGS, "--rw=randwrite", "--norandommap=1", "--randseed=7", "--verify=crc32c"]
        blocks = SIZE // BS
        for writer, other in ((run, run_fio), (run_fio, run)) if FIO else ((run, None),):
            with self.subTest(writer=writer.__name__):
                f = self.tmp / f"holes-{writer.__name__}.dat"
                log = self.tmp / f"holes-{writer.__name__}.log"
                w = writer([*job, f"--filename={f}", f"--write_iolog={log}", "--output=/dev/null"])
                self.assertEqual(w.returncode, 0, w.stderr)
                written = {int(l.split()[-2]) for l in log.read_text().splitlines() if " write " in l}
                self.assertLess(len(written), blocks)
                unwritten = min(set(range(0, SIZE, BS)) - written)
                flip(f, unwritten + BS // 2)  # what was there before: no write of the job's
                for tool in (run, other) if other else (run,):
                    p = tool([*job, f"--filename={f}", "--verify_only=1", "--output-format=json"])
                    self.assertEqual(p.returncode, 0, p.stderr)
                    self.assertEqual(json.loads(p.stdout)["jobs"][0]["read"]["io_bytes"], len(written) * BS)
                bad = sorted(written)[len(written) // 2]
                flip(f, bad + BS // 2)
                p = run([*job, f"--filename={f}", "--verify_only=1", "--output-format=json"])
                self.assertEqual(p.returncode, 1, p.stderr)
                errs = json.loads(p.stdout)["ioplan"]["jobs"][0]["errors"]
                self.assertEqual([e["offset"] for e in errs], [bad])

    def test_a_pattern_under_a_smaller_verify_interval_is_fios_and_read_in_blocks(self):
        # fio runs the pattern on through each write's chunks (and %o is the write's offset) and
        # verify_only reads whole blocks: ioplan restarted it at each chunk (a false mismatch on
        # fio's file, and fio's on ioplan's) and read 1 KiB chunks (1024 reads for 128).
        for pattern in ("0x616263", "%o", "0x0102030405"):
            job = ["--name=v", "--size=1m", "--bs=8k", "--verify_interval=1k", "--verify=pattern",
                   f"--verify_pattern={pattern}"]
            for writer, reader in ((run_fio, run), (run, run_fio)):
                with self.subTest(pattern=pattern, writer=writer.__name__):
                    path = self.tmp / "p.dat"
                    path.unlink(missing_ok=True)
                    self.assertEqual(writer([*job, f"--filename={path}", "--rw=write",
                                             "--output=/dev/null"]).returncode, 0)
                    p = reader([*job, f"--filename={path}", "--rw=read", "--verify_only=1",
                                "--output-format=json"])
                    self.assertEqual(p.returncode, 0, p.stderr)
                    doc = json.loads(p.stdout[p.stdout.index("{"):])
                    self.assertEqual(doc["jobs"][0]["read"]["total_ios"], 128)
                    if reader is run:  # and a flipped byte is still found, at its place
                        flip(path, 5 * 8192 + 3000)
                        p = run([*job, f"--filename={path}", "--rw=read", "--verify_only=1", "--output-format=json"])
                        self.assertEqual(p.returncode, 1)
                        self.assertEqual(json.loads(p.stdout)["ioplan"]["jobs"][0]["errors"][0]["offset"],
                                         5 * 8192 + 3000)

    def test_a_backlog_batch_checks_whole_writes_of_a_pattern(self):
        # verify_backlog_batch's share ends with a write, not inside one: the rest of a write read
        # as a run of its own had the pattern's place counted from the wrong start (a false mismatch).
        path = self.tmp / "b.dat"
        job = [f"--filename={path}", "--name=v", "--size=2m", "--bsrange=2k-16k", "--verify_interval=1k",
               "--verify=pattern", "--verify_pattern=0x0102030405", "--verify_backlog=5",
               "--verify_backlog_batch=2", "--rw=randwrite", "--output=/dev/null"]
        for tool in (run, run_fio):
            with self.subTest(tool=tool.__name__):
                path.unlink(missing_ok=True)
                p = tool(job)
                self.assertEqual(p.returncode, 0, p.stdout + p.stderr)

    def test_verify_backlog_checks_when_and_what_fios_does(self):
        # fio checks when its list of written, unchecked I/Os holds N again (a write over
        # an unchecked one replaces it: the list does not grow), and a check takes
        # verify_backlog_batch I/Os of it (else N), those left over taken from the next
        # writes.  ioplan counted writes issued and chunks written: with norandommap
        # it read 60 blocks back where fio read 61.  The write_iolog sequences (each
        # check's reads among the writes) are fio's, one for one, at iodepth=1.
        base = ["--name=v", "--filename=f", "--size=256k", "--verify=crc32c", "--write_iolog=log",
                "--output=/dev/null"]
        cases = [("--bs=4k", "--rw=randwrite", "--norandommap=1", "--verify_backlog=8"),
                 ("--bs=4k", "--rw=randwrite", "--norandommap=1", "--verify_backlog=8", "--verify_backlog_batch=4"),
                 ("--bs=4k", "--rw=randwrite", "--norandommap=1", "--verify_backlog=4", "--verify_backlog_batch=6"),
                 ("--bs=4k", "--rw=write", "--verify_backlog=8", "--verify_backlog_batch=12"),
                 ("--bsrange=4k-16k", "--rw=randwrite", "--norandommap=1", "--verify_backlog=5")]

        def ops(tool, extra):
            work = self.tmp / tool.__name__
            shutil.rmtree(work, ignore_errors=True)
            work.mkdir()
            p = tool([*base, *extra], cwd=work)
            self.assertEqual(p.returncode, 0, p.stderr)
            lines = (work / "log").read_text().splitlines()
            return [ln.split()[2:] for ln in lines if ln.split()[2:3] in (["read"], ["write"])]

        for extra in cases:
            with self.subTest(extra=extra):
                want = ops(run_fio, extra)
                self.assertEqual(ops(run, extra), want)

    def test_the_read_back_goes_in_fios_order(self):
        # fio reads back in the order it wrote where it keeps a random map (a list), else
        # by offset (a tree): ioplan read back by offset always, so a random write's
        # read-back was sequential where fio's is random.  Where ioplan's writes are
        # fio's (a random map with lengths that vary), the write_iolog sequences are
        # fio's line for line.
        def ops(tool, extra):
            work = self.tmp / tool.__name__
            shutil.rmtree(work, ignore_errors=True)
            work.mkdir()
            p = tool(["--name=v", "--size=256k", "--verify=md5", "--output=/dev/null", "--write_iolog=log", *extra],
                     cwd=work)
            self.assertEqual(p.returncode, 0, p.stderr)
            lines = (work / "log").read_text().splitlines()
            return [ln.split()[1:] for ln in lines if ln.split()[2:3] in (["read"], ["write"])]

        for extra in [("--filename=f", "--rw=randwrite", "--bsrange=4k-16k"),
                      ("--filename=f", "--rw=randwrite", "--bs=4k"),
                      ("--filename=f", "--rw=randwrite", "--bssplit=4k/50:16k/50", "--verify_backlog=6"),
                      ("--filename=f.0:f.1", "--rw=randwrite", "--bsrange=4k-16k")]:
            with self.subTest(extra=extra):
                self.assertEqual(ops(run, extra), ops(run_fio, extra))
        # Sequential, norandommap and lfsr writes: by offset, in both.
        for extra in [("--rw=write",), ("--rw=randwrite", "--norandommap=1"),
                      ("--rw=randwrite", "--random_generator=lfsr")]:
            with self.subTest(extra=extra):
                reads = [int(o[2]) for o in ops(run, ["--filename=f", "--bs=4k", *extra]) if o[1] == "read"]
                self.assertEqual(reads, sorted(reads))

    def test_verify_only_checks_fios_random_writes_short_of_the_region(self):
        # A verifying random job of one block size takes fio's random map, so its offsets are
        # fio's: ioplan's verify_only of fio's 100 random writes of 256 blocks checks those
        # (it drew its own permutation's: 'offset 716800: bad header magic', error 84).
        job = ["--name=v", f"--filename={self.tmp / 'f'}", "--size=1m", "--bs=4k", "--rw=randwrite",
               "--io_size=400k", "--verify=crc32c", "--verify_state_save=0", "--output-format=json"]
        p = run_fio([*job, "--do_verify=0"])
        self.assertEqual(p.returncode, 0, p.stderr)
        for tool in (run_fio, run):
            p = tool([*job, "--verify_only=1"])
            self.assertEqual(p.returncode, 0, p.stderr)
            j = json.loads(p.stdout[p.stdout.index("{"):])["jobs"][0]
            self.assertEqual((j["error"], j["read"]["total_ios"]), (0, 100), tool.__name__)

    def test_of_two_bad_blocks_verify_only_names_the_one_fio_names(self):
        # fio's randwrite here writes 217088 (16 KiB) third and 0 (12 KiB) 21st; a byte is
        # flipped in the last chunk of each (fio keeps a read's last chunk's result).
        # fio's verify_only reads back in write order and stops at 229376, its third
        # read; ioplan named 8192, at its first.
        path = self.tmp / "w.dat"
        job = ["--name=v", f"--filename={path}", "--size=256k", "--bsrange=4k-16k", "--rw=randwrite",
               "--verify=md5", "--output-format=json"]
        p = run_fio([*job, "--do_verify=0"])
        self.assertEqual(p.returncode, 0, p.stderr)
        flip(path, 217088 + 12288 + 100)
        flip(path, 8192 + 100)
        figures = []
        for tool in (run_fio, run):
            p = tool([*job, "--verify_only=1"])
            doc = json.loads(p.stdout[p.stdout.index("{"):])
            figures.append((p.returncode, doc["jobs"][0]["error"], doc["jobs"][0]["read"]["total_ios"]))
            if tool is run_fio:
                self.assertIn(" offset 229376, length 4096 (requested block: offset=217088", p.stderr)
            else:
                self.assertEqual([e["offset"] for e in doc["ioplan"]["jobs"][0]["errors"]], [229376])
        self.assertEqual(figures[1], figures[0])
        self.assertEqual(figures[0], (1, 84, 3))

    def test_sha512_flip_fio_misses_is_found(self):
        path = self.tmp / "s.dat"
        for tool in (run_fio, run):
            with self.subTest(tool=tool.__name__):
                path.unlink(missing_ok=True)
                self.assertEqual(tool([*self.ARGS, f"--filename={path}", "--rw=write", "--verify=sha512",
                                       "--do_verify=0", "--output=/dev/null"]).returncode, 0)
                flip(path, BAD_BLOCK * BS + BS // 2)
                p = tool([*self.ARGS, f"--filename={path}", "--rw=read", "--verify=sha512",
                          "--verify_only=1", "--output=/dev/null"])
                # fio 3.33 compares only the data after the last full 128-byte hash block: it misses it.
                self.assertEqual(p.returncode, 0 if tool is run_fio else 1, p.stderr)


class PatternForms(TmpDirCase):
    """buffer_pattern's forms as fio 3.33 writes them: the file's bytes compared with fio's."""

    def written(self, prog, pattern):
        path = self.tmp / f"{prog}.dat"
        args = ["--name=j", f"--filename={path}", "--size=8k", "--bs=4k", "--rw=write",
                f"--buffer_pattern={pattern}", "--output=/dev/null"]
        p = run(args, cwd=self.tmp) if prog == "ioplan" else run_fio(args, cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        data = path.read_bytes()
        path.unlink()
        return data

    def test_forms(self):
        (self.tmp / "pat.bin").write_bytes(b"\x01\x02from a file\x03")
        for pattern, head in (('"abcd"-120xdeadface', b"abcd\xf4\xff\xff\xff\xde\xad\xfa\xce"),
                              ("0xff0x14", b"\xff\x14\xff\x14"),
                              ("'pat.bin'", b"\x01\x02from a file\x03"),
                              ('"ab"\'pat.bin\'', b"ab\x01\x02from")):
            with self.subTest(pattern=pattern):
                ours = self.written("ioplan", pattern)
                self.assertEqual(ours[:len(head)], head)
                if FIO:
                    self.assertEqual(ours, self.written("fio", pattern))

    def test_verify_pattern_alone_writes_a_header_then_the_pattern(self):
        # fio: verify_pattern without verify= checks the header and the pattern after it.
        path = self.tmp / "h.dat"
        args = ["--name=j", f"--filename={path}", "--size=64k", "--bs=4k", "--rw=write",
                "--verify_pattern=0xabcd", "--output-format=json"]
        self.assertEqual(run(args).returncode, 0)
        data = path.read_bytes()
        self.assertEqual((data[:2], data[40:44]), (b"\xca\xac", b"\xab\xcd\xab\xcd"))
        flip(path, 3 * 4096 + 1000)
        p = run([*args, "--verify_only=1"])
        self.assertEqual(p.returncode, 1)
        err = json.loads(p.stdout)["ioplan"]["jobs"][0]["errors"][0]
        self.assertEqual((err["offset"], err["what"]), (3 * 4096 + 1000, "verify pattern: pattern byte want ab got f1"))
        plan = json.loads(run([*args, "--verify=md5", "--showplan"]).stdout)
        self.assertIn('"verify": "md5"', json.dumps(plan))

    def test_verify_pattern_offset_format_is_each_blocks_offset_as_fio_writes_it(self):
        path = self.tmp / "o.dat"
        args = ["--name=j", f"--filename={path}", "--size=64k", "--bs=4k", "--rw=write", "--verify=pattern",
                '--verify_pattern=0xff%o"ab"', "--output-format=json"]
        self.assertEqual(run(args).returncode, 0)
        data = path.read_bytes()
        self.assertEqual(data[8192:8192 + 11], b"\xff" + (8192).to_bytes(8, "little") + b"ab")
        self.assertEqual(run([*args, "--verify_only=1"]).returncode, 0)
        if FIO:
            fio_path = self.tmp / "f.dat"
            self.assertEqual(run_fio([*args[:1], f"--filename={fio_path}", *args[2:-1], "--output=/dev/null"]).returncode, 0)
            self.assertEqual(fio_path.read_bytes(), data)
        flip(path, 8192 + 3)    # a byte of the pasted offset
        p = run([*args, "--verify_only=1"])
        self.assertEqual(p.returncode, 1)
        self.assertEqual(json.loads(p.stdout)["ioplan"]["jobs"][0]["errors"][0]["offset"], 8192 + 3)

    def test_verify_pattern_forms_check_what_they_wrote(self):
        path = self.tmp / "p.dat"
        args = ["--name=j", f"--filename={path}", "--size=64k", "--bs=4k", "--rw=write",
                "--verify=pattern", '--verify_pattern="ioplan"0x00ff', "--output-format=json"]
        p = run(args)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(path.read_bytes()[:16], b"ioplan\x00\xffioplan\x00\xff")
        flip(path, 5 * 4096 + 7)
        p = run([*args[:4], "--rw=read", "--verify_only=1", *args[5:]])
        self.assertEqual(p.returncode, 1)
        err = json.loads(p.stdout)["ioplan"]["jobs"][0]["errors"][0]
        self.assertEqual((err["offset"], err["what"]), (5 * 4096 + 7, "verify pattern: pattern byte want ff got a5"))
