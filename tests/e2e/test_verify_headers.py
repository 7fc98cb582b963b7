"""tests/e2e/test_verify_headers.py - a verified write's block as fio 3.33 makes and checks it.

fio's verify_io_u compares a block header's magic, length, offset, crc (and its
write number) with what the reader expects, and its seed only in a job that reads
and writes without verify_backlog: clones of a job writing one file leave each
block with its last writer's header and digest, and every clone's read-back is
clean in fio.  The seed is fio's: each write's two draws of its verify state, so
fio's verify_only of ioplan's rw=rw file is clean and each header's seed is fio's.  The chunk a header covers is verify_interval as fio's fixup_options
makes it: where it does not divide the writes, the gcd of the least and largest
write.  What a verified write holds is fio's verify fill: random data, with
buffer_compress_percentage's share of zeros (or buffer_pattern) at the end of the
whole write; zero_buffers, buffer_pattern alone and dedupe_percentage do not reach
it (verify=null writes the job's plain buffers).  That data is fio's own for the
write's header seed, and the header's write number fio's, so the file a job writes
is fio's byte for byte but for each header's time and crc.  Each case runs ioplan and, where installed, fio 3.33 on the same job.
"""
import json
import struct
import unittest

from common import FIO, TmpDirCase, fio_openings, flip, run, run_as_fio, run_fio


def jobs_of(p):
    """The report's jobs: fio may print its notes before the JSON document."""
    return json.loads(p.stdout[p.stdout.index("{"):])["jobs"]


class SharedFile(TmpDirCase):
    def test_clones_writing_one_file_verify_clean(self):
        # numjobs=4 writers of one 4 MiB file, sequentially, in parallel: a block's last
        # writer is any of them.  ioplan compared each header's seed with the reader's
        # own and failed the clones that did not write last ("verify crc32c: bad header
        # seed: want 0x8a got 0x89", exit 1); fio 3.33 takes the seed from the header.
        args = ["--name=c", f"--filename={self.tmp / 'c.dat'}", "--size=4m", "--bs=4k",
                "--rw=write", "--numjobs=4", "--verify=crc32c", "--output-format=json"]
        for tool in (run, run_fio) if FIO else (run,):
            with self.subTest(tool=tool.__name__):
                (self.tmp / "c.dat").unlink(missing_ok=True)
                p = tool(args, cwd=self.tmp)
                self.assertEqual(p.returncode, 0, p.stderr)
                self.assertEqual([(j["error"], j["read"]["io_bytes"]) for j in jobs_of(p)],
                                 [(0, 4 << 20)] * 4)

    def test_fio_says_multiple_writers_may_overwrite_each_others_blocks(self):
        # fio's fixup_options prints it before the banner of each verifying job whose clones
        # write the same files (filename=); ioplan said nothing.  Run as ioplan, it is a note.
        line = ("fio: multiple writers may overwrite blocks that belong to other jobs. "
                "This can cause verification failures.")
        args = ["--name=c", "--filename=c.dat", "--size=64k", "--numjobs=2", "--rw=write", "--verify=crc32c",
                "--name=d", "--numjobs=2", "--size=64k", "--rw=write", "--verify=md5",
                "--name=e", "--filename=e.dat", "--numjobs=2", "--size=64k", "--rw=read", "--verify=null"]
        want = ([line, "c: (g=0)", "...", "d: (g=0)", "...", "e: (g=0)", "...", "Starting"], None)
        for tool in (run_as_fio, run_fio) if FIO else (run_as_fio,):
            with self.subTest(tool=tool.__name__):
                self.assertEqual(fio_openings(self, tool, args, r"fio: multiple|Starting"), want)
                for f in self.tmp.iterdir():
                    f.unlink()
        p = run(args, cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.count("note: <command line>:1:4: multiple writers may overwrite"), 1, p.stdout)


def header_seeds(path, bs=4096):
    """{offset: rand_seed} of every block that starts with fio's header magic."""
    data = path.read_bytes()
    out = {}
    for at in range(0, len(data), bs):
        magic, _, _, seed = struct.unpack_from("<HHIQ", data, at)
        if magic == 0xacca:
            out[at] = seed
    return out


class WriteNumber(TmpDirCase):
    def test_a_block_holding_another_writes_data_fails_at_its_write_number(self):
        # One file under two names (b links to a): the job writes block 0 as a (write 0), then
        # as b (write 1), so a's read-back finds write 1's header and data, whole and
        # consistent.  fio 3.33 compares a header's write number with the last write it made
        # there as a, in a job that writes with one block size: "bad header numberio 1,
        # wanted 0 at file a offset 0", exit 1.  ioplan did not: it read all 32 back clean,
        # exit 0 (and would so pass a lost write, the old data still in place).
        args = ["--name=h", "--filename=a:b", "--size=128k", "--bs=4k", "--rw=write", "--verify=crc32c",
                "--verify_state_save=0", "--output-format=json"]
        for tool in (run, run_fio) if FIO else (run,):
            with self.subTest(tool=tool.__name__):
                d = self.tmp / tool.__name__
                d.mkdir()
                p = run(["--name=h", "--filename=a", "--size=64k", "--rw=write", "--output=/dev/null"], cwd=d)
                self.assertEqual(p.returncode, 0, p.stderr)
                (d / "b").symlink_to("a")
                p = tool(args, cwd=d)
                self.assertEqual(p.returncode, 1, p.stderr)
                job = jobs_of(p)[0]
                self.assertEqual((job["read"]["total_ios"], job["write"]["total_ios"], job["error"]), (1, 32, 84))
                if tool is run:
                    self.assertEqual(json.loads(p.stdout)["ioplan"]["jobs"][0]["errors"][0]["offset"], 0)
                    self.assertIn("job 'h': a: offset 0: verify crc32c: bad header numberio: want 0x0 got 0x1",
                                  p.stderr)
                else:
                    self.assertIn("bad header numberio 1, wanted 0 at file a offset 0,", p.stderr)


class Seeds(TmpDirCase):
    FORMS = [["--rw=rw"], ["--rw=rw", "--loops=2"], ["--rw=rw", "--randseed=1234"],
             ["--rw=rw", "--random_generator=tausworthe64"],
             ["--rw=rw", "--verify=meta", "--verify_pattern=0xabcd"]]

    @unittest.skipUnless(FIO, "fio 3.33 is not installed")
    def test_fio_verifies_ioplans_mixed_job_and_its_seeds_are_fios(self):
        # ioplan wrote one seed per clone into every header; fio's read-back of a job that
        # reads and writes draws each write's seed again: its verify_only of ioplan's
        # rw=rw file said "verify: bad header rand_seed 137, wanted 46386204153304124", exit 1.
        for form in self.FORMS:
            with self.subTest(form=form):
                files = {}
                for tool in (run, run_fio):
                    f = files[tool] = self.tmp / f"{tool.__name__}.dat"
                    p = tool(["--name=s", f"--filename={f}", "--size=256k", "--bs=4k", "--verify=crc32c",
                              *form, "--output=/dev/null"], cwd=self.tmp)
                    self.assertEqual(p.returncode, 0, p.stderr)
                self.assertEqual(header_seeds(files[run]), header_seeds(files[run_fio]))
                p = run_fio(["--name=s", f"--filename={files[run]}", "--size=256k", "--bs=4k", "--verify=crc32c",
                             *form, "--verify_only=1", "--output-format=json"], cwd=self.tmp)
                self.assertEqual(p.returncode, 0, p.stderr)
                self.assertEqual(jobs_of(p)[0]["error"], 0)
                for f in files.values():
                    f.unlink()


class Interval(TmpDirCase):
    # (job options, the chunk fio's header says it covers)
    CASES = [(["--rw=write", "--bs=6k", "--verify_interval=4k", "--size=240k"], 6144),
             (["--rw=write", "--bs=16k", "--verify_interval=6k", "--size=256k"], 16384),
             (["--rw=randwrite", "--bssplit=4k/50:6k/50", "--size=256k"], 2048),
             (["--rw=randwrite", "--bsrange=4k-12k", "--verify_interval=8k", "--size=256k"], 4096)]

    def test_an_interval_that_does_not_divide_the_writes_is_fios_gcd(self):
        # ioplan refused these at the job's start ("verify checks whole chunks of 4096 bytes
        # ... and a write block size is not a multiple of that", exit 1); fio 3.33 checks
        # chunks of the gcd and each tool verifies the other's file.
        for opts, chunk in self.CASES:
            for writer, reader in ((run, run_fio), (run_fio, run)) if FIO else ((run, run),):
                with self.subTest(opts=opts, writer=writer.__name__):
                    f = self.tmp / "i.dat"
                    f.unlink(missing_ok=True)
                    args = ["--name=i", f"--filename={f}", "--verify=md5", *opts]
                    w = writer([*args, "--output-format=json"], cwd=self.tmp)
                    self.assertEqual(w.returncode, 0, w.stderr)
                    written = jobs_of(w)[0]["write"]["io_bytes"]
                    self.assertEqual(jobs_of(w)[0]["read"]["io_bytes"], written)
                    with open(f, "rb") as fh:
                        magic, _, length = struct.unpack("<HHI", fh.read(8))
                    self.assertEqual((magic, length), (0xacca, chunk))
                    r = reader([*args, "--verify_only=1", "--output-format=json"], cwd=self.tmp)
                    self.assertEqual(r.returncode, 0, r.stderr)
                    self.assertEqual(jobs_of(r)[0]["error"], 0)


    def test_an_interval_below_twice_the_header_is_refused_as_fio(self):
        # fio 3.33's least verify_interval is 80 bytes, twice its block header
        # ("verify_interval: min value out of range: 64 (80 min)", exit 1, nothing
        # written); ioplan ran verify_interval=64 (and 0) with 64-byte chunks, exit 0.
        f = self.tmp / "i.dat"
        for value in ("64", "79", "0"):
            args = ["--name=i", f"--filename={f}", "--rw=write", "--size=64k", "--verify=crc32c",
                    f"--verify_interval={value}", "--output=/dev/null"]
            with self.subTest(value):
                p = run(args, cwd=self.tmp)
                self.assertEqual(p.returncode, 2, p.stderr)
                self.assertIn("verify_interval must be at least 80 bytes", p.stderr)
                self.assertFalse(f.exists())
                if FIO:
                    p = run_fio(args, cwd=self.tmp)
                    self.assertEqual(p.returncode, 1, p.stderr)
                    self.assertIn(f"verify_interval: min value out of range: {value} (80 min)", p.stderr)
                    self.assertFalse(f.exists())
        args = ["--name=i", f"--filename={f}", "--rw=write", "--size=64k", "--bs=4000", "--verify=crc32c",
                "--verify_interval=80", "--output-format=json"]
        p = run(args, cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(f, "rb") as fh:
            self.assertEqual(struct.unpack("<HHI", fh.read(8)), (0xacca, 5, 80))


class WrittenData(TmpDirCase):
    # (options, (zeros in the first and the last 2000 data bytes of a block, 0xab bytes, distinct blocks))
    CASES = [(["--zero_buffers=1"], (0.0, 0.0, 0.0, 64)),
             (["--buffer_pattern=0xab"], (0.0, 0.0, 0.0, 64)),
             (["--dedupe_percentage=50"], (0.0, 0.0, 0.0, 64)),
             (["--buffer_compress_percentage=100"], (0.0, 0.0, 0.0, 64)),
             (["--buffer_compress_percentage=50", "--buffer_compress_chunk=512"], (0.0, 1.0, 0.0, 64)),
             (["--buffer_pattern=0xab", "--buffer_compress_percentage=30"], (0.0, 0.0, 0.3, 64)),
             (["--verify=null", "--zero_buffers=1"], (1.0, 1.0, 0.0, 1))]

    @staticmethod
    def shape(path):
        data = path.read_bytes()
        blocks = [data[i + 40:i + 4096] for i in range(0, len(data), 4096)]
        first = sum(b[:2000].count(0) for b in blocks) / len(blocks) / 2000
        last = sum(b[-2000:].count(0) for b in blocks) / len(blocks) / 2000
        return (round(first, 1), round(last, 1), round(data.count(b"\xab") / len(data), 1), len(set(blocks)))

    def test_a_verified_write_holds_fios_verify_fill(self):
        # ioplan wrote the job's plain buffers under its headers: zeros with zero_buffers=1,
        # the pattern, deduplicated blocks, and compress_chunk's 512-byte pieces half zeros,
        # where fio 3.33's verify writes random data with the compressible share at the end.
        for opts, want in self.CASES:
            for tool in (run, run_fio) if FIO else (run,):
                with self.subTest(opts=opts, tool=tool.__name__):
                    f = self.tmp / "d.dat"
                    f.unlink(missing_ok=True)
                    p = tool(["--name=d", f"--filename={f}", "--size=256k", "--bs=4k", "--rw=write",
                              "--verify=crc32c", *opts, "--output-format=json"], cwd=self.tmp)
                    self.assertEqual(p.returncode, 0, p.stderr)
                    self.assertEqual(jobs_of(p)[0]["read"]["io_bytes"], 256 << 10)
                    self.assertEqual(self.shape(f), want)


class SameBytes(TmpDirCase):
    # (options, the chunk each header starts): jobs that write every block, in fio's order
    FORMS = [(["--rw=write", "--bs=4k", "--verify=md5"], 4096),
             (["--rw=write", "--bs=4100", "--verify=crc32c"], 4100),
             (["--rw=write", "--bs=16k", "--verify=sha1", "--verify_interval=4k"], 4096),
             (["--rw=write", "--bs=4k", "--verify=crc32c", "--buffer_compress_percentage=40"], 4096),
             (["--rw=write", "--bs=4k", "--verify=meta", "--buffer_pattern=0x1234",
               "--buffer_compress_percentage=30"], 4096),
             (["--rw=write", "--bs=4k", "--verify=xxhash", "--loops=2"], 4096),
             (["--rw=randwrite", "--bs=4k", "--verify=crc64", "--norandommap=1"], 4096)]

    @staticmethod
    def masked(path, chunk):
        # Each header's time (bytes 24-31) and its crc32c over it (36-39) are the run's own.
        data = bytearray(path.read_bytes())
        for at in range(0, len(data), chunk):
            data[at + 24:at + 32] = bytes(8)
            data[at + 36:at + 40] = bytes(4)
        return bytes(data)

    @unittest.skipUnless(FIO, "fio 3.33 is not installed")
    def test_a_verified_file_is_fios_byte_for_byte_but_its_times(self):
        # ioplan's data was its own random bytes and its headers' write numbers were one
        # above fio's (1, 2, ... where fio writes 0, 1, ...): every block differed from fio's.
        for opts, chunk in self.FORMS:
            with self.subTest(opts=opts):
                files = {}
                for tool in (run, run_fio):
                    f = files[tool] = self.tmp / f"{tool.__name__}.dat"
                    f.unlink(missing_ok=True)
                    p = tool(["--name=b", f"--filename={f}", "--size=256k", *opts, "--output=/dev/null"],
                             cwd=self.tmp)
                    self.assertEqual(p.returncode, 0, p.stderr)
                self.assertEqual(self.masked(files[run], chunk), self.masked(files[run_fio], chunk))


class ExpectedDump(TmpDirCase):
    def test_a_bad_digest_dumps_the_block_as_written_as_fio(self):
        # verify_dump: fio writes FILE.OFFSET.expected, the block made again from its
        # header's seed; ioplan wrote .received alone (an .expected only for verify=pattern).
        f = self.tmp / "e.dat"
        args = ["--name=e", f"--filename={f}", "--size=64k", "--bs=4k", "--verify=md5"]
        p = run([*args, "--rw=write", "--output=/dev/null"], cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        block = f.read_bytes()[5 * 4096:6 * 4096]
        flip(f, 5 * 4096 + 3000)

        def header_free(data):  # time (24-31), thread and write number (32-35), crc (36-39)
            return data[:24] + data[40:]

        for tool in (run, run_fio) if FIO else (run,):
            with self.subTest(tool=tool.__name__):
                aux = self.tmp / tool.__name__
                aux.mkdir()
                p = tool([*args, "--rw=read", "--verify_dump=1", f"--aux-path={aux}", "--output=/dev/null"],
                         cwd=self.tmp)
                self.assertEqual(p.returncode, 1, p.stderr)
                self.assertEqual(sorted(x.name for x in aux.iterdir()), ["e.dat.20480.expected", "e.dat.20480.received"])
                self.assertEqual(header_free((aux / "e.dat.20480.expected").read_bytes()), header_free(block))
                self.assertNotEqual((aux / "e.dat.20480.received").read_bytes(), block)

    def test_a_pattern_block_dumps_what_fio_expected(self):
        # With verify_pattern, fio's .expected is the pattern through the I/O from its start
        # (%o and all), then the header.  ioplan wrote none with a digest or meta
        # (verify=xxhash verify_pattern=0xabcd: .received alone), and for verify=pattern
        # repeated the pattern's bytes without the block's offset (%o).
        cases = [["--verify=xxhash", "--verify_pattern=0xabcd"],
                 ["--verify=meta", "--verify_pattern=0x12345678"],
                 ["--verify=pattern", "--verify_pattern=0xdeadbeef%o"],
                 ["--verify=md5", "--bs=8k", "--verify_interval=2k", '--verify_pattern="abc"%o']]
        for opts in cases:
            f = self.tmp / "p.dat"
            f.unlink(missing_ok=True)
            args = ["--name=p", f"--filename={f}", "--size=64k", "--bs=4k", *opts]
            p = run([*args, "--rw=write", "--output=/dev/null"], cwd=self.tmp)
            self.assertEqual(p.returncode, 0, p.stderr)
            flip(f, 5 * 4096 + 3000)
            dumps = {}
            for tool in (run, run_fio) if FIO else (run,):
                with self.subTest(opts=opts, tool=tool.__name__):
                    aux = self.tmp / f"{tool.__name__}{cases.index(opts)}"
                    aux.mkdir()
                    p = tool([*args, "--rw=read", "--verify_dump=1", f"--aux-path={aux}", "--output=/dev/null"],
                             cwd=self.tmp)
                    self.assertEqual(p.returncode, 1, p.stderr)
                    names = sorted(x.name for x in aux.iterdir())
                    self.assertEqual(len(names), 2, names)
                    self.assertTrue(names[0].endswith(".expected"), names)
                    dumps[tool] = (aux / names[0]).read_bytes()
            if FIO:
                # The header's time (24-31) and crc (36-39) are the dump's own in either tool.
                ours, theirs = dumps[run], dumps[run_fio]
                self.assertEqual(len(ours), len(theirs))
                self.assertEqual([i for i in range(len(ours)) if ours[i] != theirs[i] and not 24 <= i < 32
                                  and not 36 <= i < 40], [], opts)


if __name__ == "__main__":
    unittest.main()
