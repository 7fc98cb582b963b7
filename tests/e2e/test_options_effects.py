"""tests/e2e/test_options_effects.py - the job options that no other test, example
or preset named, each seen doing what it says (against fio 3.33 where fio can be
the oracle): a test here fails if its option is dropped on the floor.

The options fio has and ioplan only accepts (its behaviour already being what
the option would ask for) are checked to be read, recorded and validated, and to
leave the results as they are.
"""
import json
import os
import re
import shutil
import signal
import subprocess
import unittest
import zlib

from common import (BIN, FIO, TRACED_ENV, DirWatch, TmpDirCase, TmpfsCase, run, run_fio, wait_for_stderr,
                    wait_until)

STRACE = shutil.which("strace")


def job_of(proc):
    if proc.returncode != 0:
        raise AssertionError(f"exit {proc.returncode}: {proc.stderr}")
    return json.loads(proc.stdout)["jobs"][0]


def runners():
    return (("ioplan", run),) + ((("fio", run_fio),) if FIO else ())


class Files(TmpDirCase):
    def test_io_size_takes_a_percentage_of_the_regions(self):
        # fio's io_size=N% is that share of each file's region, summed: 10% of
        # 1 MiB ends at the block that reaches 104,857 bytes.  ioplan refused it.
        for who, runner in runners():
            for n, (extra, written) in enumerate(((["--size=1m", "--io_size=10%"], 26 * 4096),
                                                  (["--nrfiles=3", "--size=3m", "--io_size=33%"], 254 * 4096))):
                with self.subTest(who=who, extra=extra):
                    d = self.tmp / f"{who}{n}"
                    d.mkdir()
                    p = runner(["--name=j", f"--directory={d}", "--rw=write", "--bs=4k", *extra,
                                "--output-format=json"])
                    self.assertEqual(job_of(p)["write"]["io_bytes"], written)

    def test_a_size_percentage_is_of_filesize_for_a_new_file(self):
        # size=N% of a file made here is of filesize=, cut to the block size, and
        # fio lays the file out to the region's end.  ioplan refused the job
        # ("file does not exist and no size is given").
        for who, runner in runners():
            for n, (extra, written) in enumerate(((["--size=50%", "--offset=25%"], 2 << 20),
                                                  (["--size=90%"], 921 * 4096))):
                with self.subTest(who=who, extra=extra):
                    path = self.tmp / f"{who}{n}"
                    p = runner(["--name=j", f"--filename={path}", "--rw=write", "--bs=4k", "--filesize=4m",
                                *extra, "--output-format=json"])
                    self.assertEqual(job_of(p)["write"]["io_bytes"], written)
                    self.assertEqual(path.stat().st_size, written)

    def test_a_size_percentage_ends_at_an_existing_files_end(self):
        # fio caps size=N% of an existing file at its end past offset=: size=100%
        # offset=50% of a 4 MiB file reads its second half, 2 MiB.  ioplan's
        # preflight counted 4 MiB from 2 MiB and refused the read (exit 2, "existing
        # file is too small and ioplan did not create it").
        for who, runner in runners():
            for n, (extra, read) in enumerate(((["--size=100%", "--offset=50%"], 2 << 20),
                                               (["--size=80%", "--offset=30%"], 716 * 4096),
                                               (["--size=100%", "--offset=25%", "--numjobs=2",
                                                 "--offset_increment=25%", "--group_reporting"], 5 << 20))):
                with self.subTest(who=who, extra=extra):
                    path = self.tmp / f"{who}{n}"
                    path.write_bytes(bytes(4 << 20))
                    p = runner(["--name=j", f"--filename={path}", "--rw=read", "--bs=4k", *extra,
                                "--output-format=json"])
                    self.assertEqual(job_of(p)["read"]["io_bytes"], read)
                    self.assertEqual(path.stat().st_size, 4 << 20)

    def test_an_offset_inside_filesize_reads_an_existing_file_of_that_size(self):
        # filesize= is the file's length and offset= a place in it: fio reads an
        # existing 128 KiB file from 64k (or 25%) to its end.  ioplan's preflight
        # counted filesize= past the offset and refused the read (exit 2, "existing
        # file is too small and ioplan did not create it").
        for who, runner in runners():
            for n, (extra, read) in enumerate(((["--offset=64k"], 64 << 10),
                                               (["--offset=25%"], 96 << 10),
                                               (["--offset=16k", "--size=256k", "--loops=2"], 224 << 10))):
                with self.subTest(who=who, extra=extra):
                    path = self.tmp / f"{who}{n}"
                    path.write_bytes(bytes(128 << 10))
                    p = runner(["--name=j", f"--filename={path}", "--rw=read", "--bs=4k", "--filesize=128k",
                                *extra, "--output-format=json"])
                    self.assertEqual(job_of(p)["read"]["io_bytes"], read)
                    self.assertEqual(path.stat().st_size, 128 << 10)

    def test_a_percentage_offset_ends_its_region_at_filesize(self):
        # offset=N% is a share of the size found (an existing file's, the null
        # engine's size= over nrfiles), and filesize= still ends the region: fio
        # reads 64k to 128k of a 256 KiB file with filesize=128k offset=25%, and as
        # much with the null engine and size=256k.  ioplan read filesize= bytes from
        # the offset, 128 KiB, past the file's length.
        for who, runner in runners():
            for n, (extra, read) in enumerate(((["--filename=f"], 64 << 10),
                                               (["--ioengine=null", "--size=256k"], 64 << 10),
                                               (["--ioengine=null", "--size=256k", "--loops=3"], 192 << 10))):
                with self.subTest(who=who, extra=extra):
                    d = self.tmp / f"{who}{n}"
                    d.mkdir()
                    (d / "f").write_bytes(bytes(256 << 10))
                    p = runner(["--name=j", "--rw=read", "--bs=4k", "--filesize=128k", "--offset=25%", *extra,
                                "--output-format=json"], cwd=d)
                    self.assertEqual(job_of(p)["read"]["io_bytes"], read)
                    self.assertEqual((d / "f").stat().st_size, 256 << 10)

    def test_a_percentage_offset_past_filesize_fails_the_job(self):
        # offset=50% of an existing 128 KiB file is 64k, past filesize=32k: fio fails the
        # job ("you need to specify valid offset=", exit 1) and reads nothing.  ioplan
        # took the empty region for the file's own and read 64k to 128k, exit 0.
        for who, runner in runners():
            with self.subTest(who=who):
                path = self.tmp / who
                path.write_bytes(bytes(128 << 10))
                p = runner(["--name=j", f"--filename={path}", "--rw=read", "--bs=4k", "--filesize=32k",
                            "--offset=50%", "--output-format=json"])
                self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
                self.assertEqual(json.loads(p.stdout[p.stdout.index("{"):])["jobs"][0]["read"]["io_bytes"], 0)
                self.assertEqual(path.stat().st_size, 128 << 10)

    def test_a_percentage_offset_past_filesize_is_said_to_be_so(self):
        # The null engine's size is size= over nrfiles: offset=75% of 256k is past
        # filesize=128k.  Both fail the job (exit 1); ioplan said "the engine needs
        # size=", which the job gives.
        p = run(["--name=j", "--ioengine=null", "--rw=read", "--bs=4k", "--size=256k", "--filesize=128k",
                 "--offset=75%"])
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn("job 'j': j.0.0: offset=N% is at or past the end of filesize=", p.stderr)
        if FIO:
            f = run_fio(["--name=j", "--ioengine=null", "--rw=read", "--bs=4k", "--size=256k", "--filesize=128k",
                         "--offset=75%"], cwd=self.tmp)
            self.assertEqual(f.returncode, 1)
            self.assertIn("you need to specify valid offset=", f.stderr + f.stdout)

    def test_a_filesize_range_draws_fios_file_sizes(self):
        # fio draws each file's size from its file_size_state (seeded as its other
        # generators), cut to the block size: the files and the job's amount are
        # fio's.  ioplan hashed its own sizes (1,340 KiB in fio's three files,
        # 2,004 in ioplan's).
        sizes = {}
        for who, runner in runners():
            d = self.tmp / who
            d.mkdir()
            p = runner(["--name=j", f"--directory={d}", "--rw=randwrite", "--bs=4k", "--nrfiles=5",
                        "--filesize=64k-1m", "--size=8m", "--numjobs=2", "--group_reporting", "--output-format=json"])
            written = job_of(p)["write"]["io_bytes"]
            sizes[who] = {f.name: f.stat().st_size for f in d.iterdir()}
            self.assertEqual(len(sizes[who]), 10, who)
            self.assertEqual(written, sum(sizes[who].values()), who)
        got = sizes["ioplan"]
        self.assertTrue(all(64 << 10 <= v <= 1 << 20 and v % 4096 == 0 for v in got.values()), got)
        self.assertGreater(len(set(got.values())), 5, got)
        if FIO:
            self.assertEqual(got, sizes["fio"])

    def test_allow_file_create_0_refuses_a_missing_file(self):
        for who, runner in runners():
            target = self.tmp / who
            p = runner(["--name=a", f"--filename={target}", "--size=64k", "--rw=read", "--allow_file_create=0"])
            self.assertNotEqual(p.returncode, 0, who)
            self.assertFalse(target.exists(), who)
        # As fio, the job fails on its own (its error in the report, exit 1); nothing is created.
        p = run(["--name=a", f"--filename={self.tmp}/x", "--size=64k", "--rw=read", "--allow_file_create=0",
                 "--output-format=json"])
        self.assertEqual(p.returncode, 1)
        self.assertIn(f"job 'a': {self.tmp}/x does not exist and allow_file_create=0", p.stderr)
        self.assertEqual(json.loads(p.stdout)["jobs"][0]["error"], 2)
        self.assertFalse((self.tmp / "x").exists())
        self.assertEqual(run(["--name=a", f"--filename={self.tmp}/x", "--size=64k", "--rw=read"]).returncode, 0)


class BlockSizes(unittest.TestCase):
    def test_bs_is_seq_rand_picks_the_size_by_pattern(self):
        # bs=4k,8k: read,write sizes; with bs_is_seq_rand, sequential,random sizes.
        # (norandommap: fio's random map splits some 8k blocks, 144 I/Os for 128.)
        for who, runner in runners():
            for rw, flag, ios in (("randread", 1, 128), ("read", 1, 256), ("randread", 0, 256)):
                job = job_of(runner(["--name=b", "--ioengine=null", "--size=1m", f"--rw={rw}", "--bs=4k,8k",
                                     f"--bs_is_seq_rand={flag}", "--norandommap", "--output-format=json"]))
                self.assertEqual((job["read"]["total_ios"], job["read"]["io_bytes"]), (ios, 1 << 20),
                                 (who, rw, flag))


class Amounts(unittest.TestCase):
    def test_number_ios_is_each_loops_and_time_based_runs_past_it(self):
        # fio's exceeds_number_ios: number_ios times loops (ioplan stopped at 100
        # of fio's 300); time_based goes on past it to the runtime (ioplan stopped).
        for who, runner in runners():
            job = ["--name=n", "--ioengine=null", "--rw=randread", "--bs=4k", "--size=1m", "--number_ios=100"]
            done = job_of(runner([*job, "--loops=3", "--output-format=json"]))["read"]["total_ios"]
            self.assertEqual(done, 300, who)
            timed = job_of(runner([*job, "--time_based", "--runtime=300ms", "--output-format=json"]))
            self.assertGreater(timed["read"]["total_ios"], 100, who)
            self.assertGreaterEqual(timed["read"]["runtime"], 300, who)

def rounded(levels):
    """An iodepth_level table to 0.01 %: fio rounds its sixth decimal differently."""
    return {k: round(v, 2) for k, v in levels.items()}


class Queue(TmpDirCase):
    def depth16(self, runner, *extra):
        job = job_of(runner(["--name=d", f"--filename={self.tmp}/d", "--size=8m", "--rw=randread",
                             "--ioengine=libaio", "--direct=1", "--iodepth=16", *extra, "--output-format=json"]))
        return job["iodepth_level"]

    def test_iodepth_low_lets_the_queue_drain_before_refilling(self):
        full, low = self.depth16(run), self.depth16(run, "--iodepth_low=1")
        self.assertGreater(full["16"], 90.0, full)
        self.assertLess(low["16"], 50.0, low)
        if FIO:
            self.assertEqual(rounded(low), rounded(self.depth16(run_fio, "--iodepth_low=1")))

    def test_batched_submissions_count_at_the_depth_they_make(self):
        # fio counts the I/Os of a commit at the depth the commit makes (td_io_commit:
        # io_u_mark_depth at cur_depth, the batch included): iodepth_batch=8 over
        # iodepth=16 puts the first 8 reads at 8 and every later batch at 16.  ioplan
        # counted each I/O as it was queued, climbing through the batch: 1=0.4%, 2=0.8%,
        # 4=1.6%, 8=85.2%, 16=12.1% where fio has 8=0.39%, 16=99.61%.
        # (A reap that waited past its slice on a loaded machine may bring fewer than 8
        # back, and the refill then goes out at 8 too: 8=0.49% seen.)
        line = ["--iodepth_batch=8", "--iodepth_batch_complete_min=8"]
        for who, runner in (("ioplan", run), ("fio", run_fio)):
            if who == "fio" and not FIO:
                continue
            levels = self.depth16(runner, *line)
            self.assertEqual({k for k, v in levels.items() if v}, {"8", "16"}, (who, levels))
            self.assertGreater(levels["16"], 99.0, (who, levels))

    def test_thinktime_blocks_type_issue_counts_submissions(self):
        line = ["--thinktime=2ms", "--thinktime_blocks=12", "--io_size=2m", "--iodepth=8"]
        issue = self.depth16(run, *line, "--thinktime_blocks_type=issue")
        self.assertNotEqual(issue, self.depth16(run, *line, "--thinktime_blocks_type=complete"))
        if FIO:
            self.assertEqual(rounded(issue), rounded(self.depth16(run_fio, *line, "--thinktime_blocks_type=issue")))

    def test_thinktime_blocks_0_thinks_after_every_io_even_with_none_completed(self):
        # fio 3.33 thinks when completions >= those at the last think + thinktime_blocks:
        # with 0 that holds after each I/O issued, before any completes, so every I/O
        # goes out alone (with 1 the queue fills while none has completed).
        line = ["--thinktime=50", "--io_size=256k", "--bs=4k"]
        zero, one = self.depth16(run, *line, "--thinktime_blocks=0"), self.depth16(run, *line, "--thinktime_blocks=1")
        self.assertEqual(zero["1"], 100.0, zero)
        self.assertLess(one["1"], 100.0, one)
        if FIO:
            self.assertEqual(rounded(zero), rounded(self.depth16(run_fio, *line, "--thinktime_blocks=0")))

    @unittest.skipIf(STRACE is None, "strace not installed")
    def test_fsync_every_n_writes_keeps_the_queue_full(self):
        # fio syncs after every N writes issued, beside the writes still in flight
        # (its libaio waits only for the uncommitted ones): the queue never empties,
        # and only the first write goes out at depth 1.  Draining the queue first
        # put 1 + 2 x 15 of the 271 at depth 1 (a ramp after every sync).  A job's
        # last write is not followed by one, and, as fio's, the sync after the 1st
        # of fsync=1's writes waits until one of them completes: the writes issued
        # while only the sync has completed do not repeat it (57 syncs for 64 writes
        # in fio; ioplan made 63).
        for every, size, writes, syncs in ((16, "1m", 256, 15), (1, "256k", 64, 57)):
            with self.subTest(fsync=every):
                st = self.tmp / f"st{every}"
                line = ["--name=d", f"--filename={self.tmp}/d{every}", f"--size={size}", "--bs=4k",
                        "--rw=randwrite", "--ioengine=libaio", "--direct=1", "--iodepth=8", f"--fsync={every}",
                        "--output-format=json"]
                p = subprocess.run([STRACE, "-f", "-qq", "-o", str(st), "-e", "trace=fsync", BIN, *line],
                                   capture_output=True, text=True, timeout=120, env=TRACED_ENV)
                job = job_of(p)
                self.assertEqual((job["write"]["total_ios"], job["sync"]["total_ios"]), (writes, syncs))
                if FIO:
                    (self.tmp / f"d{every}").unlink()
                    fjob = job_of(run_fio(line))
                    self.assertEqual((fjob["write"]["total_ios"], fjob["sync"]["total_ios"]), (writes, syncs))
                self.assertEqual(len(re.findall(r"\bfsync\(", st.read_text())), syncs)
                levels = job["iodepth_level"]
                self.assertAlmostEqual(levels["1"] * writes / 100, 1.0, delta=0.01)
                self.assertAlmostEqual(sum(levels.values()) * writes / 100, writes + syncs, delta=0.05)

    def test_thinktime_blocks_counts_the_completions_that_empty_the_queue(self):
        # Each think first lets the queue empty, and the next I/O goes out alone:
        # depth 1 holds the first I/O and one per think.  As fio's
        # last_thinktime_blocks, the count is taken before the queue empties, so
        # the 15 I/Os that complete then count towards the next think: 2,048 reads
        # think at every 64th completion, 31 times before the last read goes out.
        # Counted after the queue emptied, each think would come 79 completions
        # apart (26 of them; 13 where fio had 16 over 1,024 reads).
        line = ["--thinktime=100", "--thinktime_blocks=64", "--bs=4k"]
        ones = self.depth16(run, *line)["1"] * 2048 / 100
        self.assertAlmostEqual(ones, 32, delta=0.01)
        if FIO:
            self.assertAlmostEqual(self.depth16(run_fio, *line)["1"] * 2048 / 100, ones, delta=0.01)



@unittest.skipIf(STRACE is None or FIO is None, "strace or fio not installed")
class SyncFileRange(TmpDirCase):
    """sync_file_range=FLAGS:N against fio 3.33: the same sync_file_range() calls
    (file range and flags), and as many writes."""

    def traced(self, tool, args, cwd=None):
        """(the job's JSON, its sync_file_range calls' arguments after the descriptor)."""
        st = self.tmp / "st"
        p = subprocess.run([STRACE, "-f", "-qq", "-o", str(st), "-e", "trace=sync_file_range", tool, *args,
                            "--output-format=json"], capture_output=True, text=True, timeout=120, cwd=cwd,
                           env=TRACED_ENV)
        self.assertEqual(p.returncode, 0, p.stderr)
        doc = json.loads(p.stdout[p.stdout.index("{"):])
        return doc["jobs"][0], re.findall(r"sync_file_range\(\d+, (.*)\) = 0", st.read_text())

    def test_ranges_flags_and_counts_are_fios(self):
        # Every N writes issued, the bytes written since the file's last sync, from the
        # lowest offset to the highest end of the writes completed; a file's first range
        # starts at 0 (fio's fio_file starts zeroed), so randwrite's first is [0, end).
        # norandommap: fio's own offsets, so the ranges can be compared.
        cases = [("psync", "write", "write:4", []),
                 ("psync", "randwrite", "wait_before,write,wait_after:8", ["--norandommap=1"]),
                 ("psync", "randrw", "write:3", ["--norandommap=1", "--offset=64k"]),
                 ("sync", "randwrite", "write:1", ["--norandommap=1"]),
                 ("libaio", "rw", "wait_after,write:4", [])]
        seen = {}
        for engine, rw, sfr, extra in cases:
            with self.subTest(engine=engine, rw=rw, sync_file_range=sfr):
                args = ["--name=s", f"--filename={self.tmp}/s", "--size=256k", "--bs=4k", f"--rw={rw}",
                        f"--ioengine={engine}", f"--sync_file_range={sfr}", *extra]
                fjob, fcalls = self.traced(FIO, args)
                (self.tmp / "s").unlink()
                ijob, icalls = self.traced(BIN, args)
                self.assertEqual(icalls, fcalls)
                self.assertEqual(ijob["write"]["total_ios"], fjob["write"]["total_ios"])
                self.assertEqual(ijob["read"]["total_ios"], fjob["read"]["total_ios"])
                # Counted among the syncs.  fio counts them past its sync counter (0
                # there, as many short writes) and, in a mix, once more after each read
                # that follows the Nth write, with nothing to sync and no call: so does
                # ioplan (it counted one per N writes: 8 where fio's are 18).
                self.assertEqual(ijob["sync"]["total_ios"], fjob["write"]["short_ios"])
                self.assertEqual(ijob["sync"]["lat_ns"]["N"], fjob["sync"]["lat_ns"]["N"])
                self.assertEqual(len(icalls) < ijob["sync"]["total_ios"], "rw" in rw)
            seen[rw] = icalls
        self.assertEqual(seen["write"][:2], ["0, 16384, SYNC_FILE_RANGE_WRITE", "16384, 16384, SYNC_FILE_RANGE_WRITE"])
        self.assertTrue(seen["randrw"][0].startswith("0, "), "offset=64k, but the first range starts at 0")
        self.assertFalse(seen["randrw"][1].startswith("0, "))
        self.assertEqual(seen["rw"][0], "0, 16384, SYNC_FILE_RANGE_WRITE|SYNC_FILE_RANGE_WAIT_AFTER")

    def test_with_several_sync_options_the_first_whose_n_divides_the_writes_syncs(self):
        # fio's get_rw_ddir: fsync=, then fdatasync=, then sync_file_range=; any sync
        # starts the range over.  ioplan made only fsync='s syncs when fdatasync= was set too.
        def calls(tool, *extra):
            st = self.tmp / "st"
            p = subprocess.run([STRACE, "-f", "-qq", "-o", str(st), "-e", "trace=fsync,fdatasync,sync_file_range",
                                tool, "--name=k", f"--filename={self.tmp}/k", "--size=64k", "--rw=write", *extra,
                                "--output-format=json"], capture_output=True, text=True, timeout=120, env=TRACED_ENV)
            self.assertEqual(p.returncode, 0, p.stderr)
            (self.tmp / "k").unlink()
            return [f"{name}({rest})" for name, rest in
                    re.findall(r"^\d+ +(\w+)\(\d+,? ?(.*)\) += 0", st.read_text(), re.M)]
        for extra in (["--fsync=4", "--fdatasync=3"], ["--fsync=4", "--sync_file_range=write:2"]):
            with self.subTest(extra=extra):
                self.assertEqual(calls(BIN, *extra), calls(FIO, *extra))
        self.assertEqual(calls(BIN, "--fsync=4", "--sync_file_range=write:2")[:3],
                         ["sync_file_range(0, 8192, SYNC_FILE_RANGE_WRITE)", "fsync()",
                          "sync_file_range(16384, 8192, SYNC_FILE_RANGE_WRITE)"])

    def test_the_sync_goes_beside_the_writes_in_flight(self):
        # As fsync=N's: libaio makes it once nothing is left unsubmitted (fio's libaio
        # runs it in-line then), io_uring too (fio's queues it in the ring); the queue
        # never empties, so only the first write goes out at depth 1.  The range spans
        # the writes completed since the last sync: a sync with none is no call.
        for engine in ("libaio", "io_uring"):
            with self.subTest(engine=engine):
                job, calls = self.traced(BIN, ["--name=q", f"--filename={self.tmp}/q{engine}", "--size=1m",
                                               "--bs=4k", "--rw=write", f"--ioengine={engine}", "--direct=1",
                                               "--iodepth=8", "--sync_file_range=write:16"])
                self.assertEqual((job["write"]["total_ios"], job["sync"]["total_ios"]), (256, 15))
                self.assertAlmostEqual(job["iodepth_level"]["1"] * 256 / 100, 1.0, delta=0.01)
                spans = [tuple(map(int, c.split(", ")[:2])) for c in calls]
                self.assertTrue(0 < len(spans) <= 15, spans)
                self.assertTrue(all(n > 0 and off + n <= 1 << 20 for off, n in spans), spans)

    def test_a_jobs_flags_add_to_its_globals_and_0_is_never(self):
        # fio ORs the flags of every line into the option (a job's into its [global]'s);
        # the count is the last line's (write alone: 1).  :0 makes no sync, as fio's.
        text = ("[global]\nsize=64k\nbs=4k\nrw=write\nsync_file_range=wait_before:2\n"
                "[s]\nfilename={dir}/s\nsync_file_range=write\n")
        for tool in (FIO, BIN):
            with self.subTest(tool=tool):
                d = self.tmp / os.path.basename(tool)
                d.mkdir()
                (d / "s.fio").write_text(text.replace("{dir}", str(d)))
                job, calls = self.traced(tool, ["s.fio"], cwd=d)
                self.assertEqual(len(calls), 15)
                self.assertEqual(calls[1], "4096, 4096, SYNC_FILE_RANGE_WAIT_BEFORE|SYNC_FILE_RANGE_WRITE")
                job, calls = self.traced(tool, ["--name=z", f"--filename={d}/z", "--size=64k", "--rw=write",
                                                "--sync_file_range=write:0"])
                self.assertEqual((job["write"]["total_ios"], job["sync"]["lat_ns"]["N"], calls), (16, 0, []))


class SyncsInAMix(TmpDirCase):
    def test_the_sync_comes_again_after_each_read_until_the_next_write(self):
        # fio asks for fsync=N's sync before each I/O while the writes issued are a
        # multiple of N, unless nothing but a sync completed since the last one: in a
        # mix, after the Nth write, W S R S R S W.  ioplan made one sync per N writes
        # (8 where fio makes 18), and one more after a last read that ended the job.
        cases = [(["--ioengine=psync", "--fsync=4"], (29, 35, 18)),
                 (["--ioengine=mmap", "--fsync=2"], (29, 35, 33)),
                 (["--ioengine=psync", "--fsync=1", "--size=64k"], (10, 6, 12)),
                 (["--ioengine=psync", "--fsync=1", "--loops=3"], (87, 105, 190)),
                 (["--ioengine=libaio", "--iodepth=16", "--fsync=4", "--size=2m"], (242, 270, 130))]
        for extra, want in cases:
            with self.subTest(extra=extra):
                line = ["--name=j", "--bs=4k", "--size=256k", "--rw=randrw", *extra, "--output-format=json"]
                for who, runner in (("ioplan", run), ("fio", run_fio)) if FIO else (("ioplan", run),):
                    job = job_of(runner([*line, f"--filename={self.tmp / who}"]))
                    self.assertEqual((job["read"]["total_ios"], job["write"]["total_ios"], job["sync"]["total_ios"]),
                                     want, who)


@unittest.skipIf(STRACE is None, "strace not installed")
class EndSync(TmpDirCase):
    """end_fsync / fsync_on_close: a sync as each of loops=N rounds ends, timed in its runtime."""

    def traced(self, tool, name, *extra):
        """(the job's pwrite64/fsync calls in order as 'w'/'S', their seconds, the job's JSON)."""
        st, out = self.tmp / f"{name}.st", self.tmp / f"{name}.json"
        p = subprocess.run([STRACE, "-f", "-qq", "-T", "-o", str(st), "-e", "trace=pwrite64,fsync", tool,
                            "--name=j", f"--filename={self.tmp}/{name}", "--rw=write", "--bs=1m", "--size=16m",
                            "--loops=3", *extra, "--output-format=json", f"--output={out}"],
                           capture_output=True, text=True, timeout=120, env=TRACED_ENV, cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        calls = re.findall(r"(pwrite64|fsync)\(.*<([\d.]+)>", st.read_text())
        order = "".join("S" if c == "fsync" else "w" for c, _ in calls)
        return order, sum(float(t) for _, t in calls), json.loads(out.read_text())["jobs"][0]

    def test_each_loop_is_synced_as_it_ends_and_the_sync_is_in_the_runtime(self):
        # fio's do_io ends each round with the sync (16 writes, then fsync, three
        # times), and the round's time includes it: a buffered write job reports
        # what reached the disk.  ioplan synced once, after the last round and
        # outside the window: a 512 MiB job reported 5 GB/s against fio's 1.1.
        # strace's time in each call lies within the call as ioplan times it, so
        # the runtime holds every write's and every sync's whatever their speed.
        rounds = ("w" * 16 + "S") * 3
        for opt in ("--end_fsync=1", "--fsync_on_close=1"):
            with self.subTest(opt):
                order, secs, job = self.traced(BIN, opt[2:8], opt)
                self.assertEqual(order, rounds)
                self.assertEqual((job["write"]["io_bytes"], job["sync"]["total_ios"]), (48 << 20, 0))
                self.assertGreaterEqual(job["write"]["runtime"] + 1, secs * 1000, job["write"])
        if FIO:
            order, secs, job = self.traced(FIO, "fio", "--end_fsync=1")
            self.assertEqual(order, rounds)
            self.assertGreaterEqual(job["write"]["runtime"] + 1, secs * 1000)

class Percentages(TmpfsCase):
    def test_a_percentage_of_a_20_tib_file_does_not_overflow(self):
        # 90% of 20 TiB is 18 TiB.  size * ppm passed 2^64 from 18 TiB on, and the
        # region started elsewhere.  A sparse file on a tmpfs holds no data.
        if not self.mounted:
            self.skipTest("mounting a tmpfs needs root")
        f, log = self.tmp / "f", self.tmp / "log"
        with open(f, "wb") as fh:
            fh.truncate(20 << 40)
        p = run(["--name=r", f"--filename={f}", "--rw=read", "--bs=4k", "--offset=90%", "--size=5%",
                 "--number_ios=1", f"--write_iolog={log}"])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertRegex(log.read_text(), rf"(?m)^\d+ {f} read {(20 << 40) * 9 // 10} 4096$")


class Rounds(TmpDirCase):
    """io_size= past the region: fio's rounds of the region, each synced and read back before the next."""

    traced = EndSync.traced

    def test_io_size_past_the_region_is_rounds_of_it(self):
        # fio's do_io ends where the file does, and keep_running starts another
        # round while loops= lasts, then while io_size= is not reached.  ioplan
        # ran io_size x loops in rounds of io_size: 24 MiB and 2 syncs for the
        # first case, 12 MiB for the second.
        cases = [(("--io_size=12m", "--loops=2"), ("w" * 4 + "S") * 3, 12),
                 (("--io_size=6m", "--loops=2"), ("w" * 4 + "S") * 2, 8),
                 (("--io_size=10m", "--loops=1"), ("w" * 4 + "S") * 2 + "wwS", 10)]
        for tool in (BIN, FIO) if FIO else (BIN,):
            for n, (extra, order, mib) in enumerate(cases):
                with self.subTest(tool=tool, extra=extra):
                    got, _, job = self.traced(tool, f"r{n}", "--size=4m", "--end_fsync=1", *extra)
                    self.assertEqual(got, order)
                    self.assertEqual(job["write"]["io_bytes"], mib << 20)

    def test_each_round_of_a_plain_job_starts_from_an_empty_queue(self):
        # No sync, no read-back: the round's end is only the queue draining before the
        # next round issues, as fio's do_io returns.  That job now runs the plain loop
        # (half the instructions an I/O), which must end its rounds all the same: each
        # of the 4 rounds of 256 reads ramps 1, 2, 4, 8 deep before it is 16 deep.
        for extra in ("--loops=4", "--io_size=4m"):
            levels = {}
            for who, tool in (("ioplan", run), ("fio", run_fio)) if FIO else (("ioplan", run),):
                p = tool(["--name=q", f"--filename={self.tmp}/q", "--size=1m", "--bs=4k", "--rw=randread",
                          "--ioengine=libaio", "--direct=1", "--iodepth=16", extra, "--output-format=json"])
                self.assertEqual(p.returncode, 0, p.stderr)
                job = job_of(p)
                self.assertEqual(job["read"]["total_ios"], 1024, who)
                levels[who] = rounded(job["iodepth_level"])
            with self.subTest(extra=extra):
                self.assertEqual(levels["ioplan"]["1"], round(100 * 4 / 1024, 2), levels)
                self.assertEqual(levels["ioplan"]["8"], round(100 * 4 * 8 / 1024, 2), levels)
                if FIO:
                    self.assertEqual(levels["ioplan"], levels["fio"])

    def test_a_ramp_ends_inside_the_first_round_and_the_rounds_go_on(self):
        # ramp_time=1ms ends while the first round's 64 writes of 1 MiB go on
        # (fio counts a ramp's I/O toward size=): every round still ends with
        # its sync, the first included.
        for tool in (BIN, FIO) if FIO else (BIN,):
            with self.subTest(tool=tool):
                got, _, _ = self.traced(tool, "ramp", "--size=64m", "--ramp_time=1ms", "--end_fsync=1")
                self.assertEqual(got, ("w" * 64 + "S") * 3)

    def test_rounds_inside_a_ramp_end_as_the_windows_do(self):
        # The job's three rounds all end inside its ramp (the ramp outlasts the
        # job; fio counts a ramp's I/O toward size=).  fio still syncs and reads
        # back each round, and reports them all as the job never left its ramp.
        # ioplan's generator ran the ramp's rounds as one: one sync (16 x 3
        # writes, then S), and one read-back of 16 MiB of the 48.
        for tool in (BIN, FIO) if FIO else (BIN,):
            with self.subTest(tool=tool):
                got, _, _ = self.traced(tool, "rs", "--ramp_time=60s", "--end_fsync=1")
                self.assertEqual(got, ("w" * 16 + "S") * 3)
                _, _, job = self.traced(tool, "rv", "--ramp_time=60s", "--verify=crc32c")
                self.assertEqual((job["write"]["io_bytes"], job["read"]["io_bytes"]), (48 << 20, 48 << 20))

    def test_a_round_reads_back_the_files_openfiles_closed(self):
        # openfiles=1 closes each file once its pass is issued; fio reopens them
        # for every round's read-back.  ioplan read back only the last round
        # (1 MiB of 2): its check skipped closed files.
        for who, runner in runners():
            with self.subTest(who=who):
                d = self.tmp / who
                d.mkdir()
                job = job_of(runner(["--name=j", f"--directory={d}", "--rw=write", "--bs=4k", "--size=1m",
                                     "--nrfiles=2", "--openfiles=1", "--loops=2", "--verify=crc32c",
                                     "--output-format=json"], cwd=d))  # fio leaves its verify state there
                self.assertEqual((job["write"]["io_bytes"], job["read"]["io_bytes"]), (2 << 20, 2 << 20))

    def test_the_read_back_counts_toward_io_size_and_number_ios(self):
        # fio counts its verify reads in the bytes keep_running weighs: a round
        # of 4 MiB written and read back makes 8, so io_size=12m stops after
        # two (ioplan wrote 12 MiB and read back 4).  Its number_ios counts them
        # too: 6 x 3 loops = 18 I/Os are 4 + 4, 4 + 4, then 1 + 1 (ioplan: 12 + 12).
        cases = ((("--io_size=12m", "--loops=1"), 8), (("--number_ios=6", "--loops=3"), 10))
        for tool in (BIN, FIO) if FIO else (BIN,):
            for n, (extra, mib) in enumerate(cases):
                with self.subTest(tool=tool, extra=extra):
                    _, _, job = self.traced(tool, f"v{n}", "--size=4m", "--verify=crc32c", *extra)
                    self.assertEqual((job["write"]["io_bytes"], job["read"]["io_bytes"]), (mib << 20, mib << 20))


class UnlinkEachLoop(TmpDirCase):
    """unlink_each_loop: fio removes a job's files before each loop after the first."""

    def loops(self, runner, d, *opts):
        """(returncode, the job's JSON, the creates and deletes of d/f) of a 256 KiB job on d/f."""
        watch = DirWatch(d)
        p = runner(["--name=u", f"--filename={d}/f", "--bs=4k", "--size=256k", "--unlink_each_loop=1",
                    *opts, "--output-format=json"], cwd=d)
        events = watch.events("f")
        return p.returncode, json.loads(p.stdout[p.stdout.index("{"):])["jobs"][0], events

    def test_each_loop_writes_a_new_file_and_the_last_one_stays(self):
        # ioplan removed the file once, after the job, and wrote the same file in
        # every loop: one create and one delete where fio makes three and two.
        for who, runner in runners():
            for n, (opts, events, left) in enumerate((
                    (("--loops=3",), ["create", "delete", "create", "delete", "create"], True),
                    (("--loops=2", "--unlink=1"), ["create", "delete", "create", "delete"], False),
                    (("--loops=2", "--verify=crc32c"), ["create", "delete", "create"], True),
                    (("--loops=1",), ["create"], True))):
                with self.subTest(who=who, opts=opts):
                    d = self.tmp / f"{who}{n}"
                    d.mkdir()
                    rc, job, got = self.loops(runner, d, "--rw=write", *opts)
                    self.assertEqual((rc, job["error"]), (0, 0))
                    self.assertEqual(got, events)
                    self.assertEqual((d / "f").exists(), left)
                    if left and len(events) > 1:
                        st = (d / "f").stat()
                        self.assertEqual((st.st_size, st.st_mode & 0o777), (256 << 10, 0o600))

    def test_a_job_that_only_reads_fails_its_second_loop(self):
        # The file is gone when the second loop opens it: fio's error 2, after the
        # first loop's 256 KiB.  ioplan read it twice.
        for who, runner in runners():
            with self.subTest(who=who):
                d = self.tmp / who
                d.mkdir()
                rc, job, got = self.loops(runner, d, "--rw=read", "--loops=2")
                self.assertEqual((rc != 0, job["error"], job["read"]["io_bytes"]), (True, 2, 256 << 10))
                self.assertEqual(got, ["create", "delete"])
                self.assertFalse((d / "f").exists())

    def test_engines_holding_the_files_take_the_new_ones(self):
        # io_uring registers the files it is given, mmap maps them: both wrote the
        # second loop into the removed file, which verify then found empty (EOF,
        # error 5).  io_uring now registers the new files; mmap maps the new, empty
        # file, which a write past its end fails with EINVAL (fio 3.33 dies of SIGBUS).
        job = ["--name=u", "--nrfiles=2", "--rw=randwrite", "--bs=4k", "--size=256k", "--loops=3",
               "--unlink_each_loop=1", "--output-format=json"]
        for who, runner in runners():
            with self.subTest(who=who):
                d = self.tmp / who
                d.mkdir()
                p = runner([*job, f"--directory={d}", "--ioengine=io_uring", "--iodepth=4", "--verify=crc32c"], cwd=d)
                got = json.loads(p.stdout[p.stdout.index("{"):])["jobs"][0]
                if who == "ioplan" and got["error"] in (1, 38):
                    self.skipTest("io_uring refused by the kernel")
                self.assertEqual((got["error"], got["write"]["io_bytes"], got["read"]["io_bytes"]),
                                 (0, 768 << 10, 768 << 10), p.stderr)
        d = self.tmp / "mmap"
        d.mkdir()
        p = run([*job, f"--directory={d}", "--ioengine=mmap"])
        got = json.loads(p.stdout)["jobs"][0]
        self.assertEqual((p.returncode, got["error"], got["write"]["io_bytes"]), (1, 22, 256 << 10), p.stderr)

    def test_a_file_swapped_in_under_the_run_is_not_removed(self):
        # Another file renamed over the job's while its first loop runs (2 s at
        # rate=128k): the removal before the second loop must find it is not the
        # file the layout made, fail the job, and leave it as it is.
        data = os.urandom(64 << 10)
        p = subprocess.Popen([BIN, "--name=u", f"--filename={self.tmp}/f", "--rw=write", "--bs=4k", "--size=256k",
                              "--rate=128k", "--loops=2", "--unlink_each_loop=1"], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        self.addCleanup(lambda: p.poll() is None and p.kill())
        wait_until(lambda: (self.tmp / "f").exists(), what="the layout's file")
        (self.tmp / "r").write_bytes(data)
        os.replace(self.tmp / "r", self.tmp / "f")
        out, err = p.communicate(timeout=60)
        self.assertNotEqual(p.returncode, 0, out)
        self.assertIn("replaced", err)
        self.assertEqual((self.tmp / "f").read_bytes(), data)

    def test_a_file_ioplan_did_not_create_or_that_others_share_is_kept(self):
        # fio would remove a file the user made (all of it, for a job that
        # writes its first 256 KiB), and one another clone is still writing.
        # ioplan keeps both, and says why.
        data = os.urandom(1 << 20)
        for n, (opt, why, events) in enumerate((
                ("--allow_existing_file_write=1", "ioplan did not create it", []),
                ("--numjobs=2", "another clone, job or rank uses it too", ["create"]))):
            with self.subTest(why=why):
                d = self.tmp / str(n)
                d.mkdir()
                if events == []:
                    (d / "f").write_bytes(data)
                watch = DirWatch(d)
                p = run(["--name=u", f"--filename={d}/f", "--rw=write", "--bs=4k", "--size=256k", "--loops=2",
                         "--unlink_each_loop=1", opt])
                self.assertEqual((p.returncode, watch.events("f")), (0, events), p.stderr)
                self.assertIn(f"{d}/f: unlink_each_loop keeps it between loops ({why}); fio would remove it",
                              p.stdout)
                if events == []:
                    self.assertEqual((d / "f").read_bytes()[256 << 10:], data[256 << 10:])
        # unlink=1 keeps the user's file too, and says so (it said nothing).
        user = self.tmp / "user"
        user.write_bytes(data)
        p = run(["--name=u", f"--filename={user}", "--rw=write", "--bs=4k", "--size=256k", "--unlink=1",
                 "--allow_existing_file_write=1"])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn(f"{user}: unlink=1 keeps it (ioplan did not create it); fio would remove it", p.stdout)
        self.assertEqual(user.read_bytes()[256 << 10:], data[256 << 10:])


class Data(TmpDirCase):
    def written(self, runner, name, *extra):
        path = self.tmp / name
        p = runner(["--name=w", f"--filename={path}", "--size=1m", "--rw=write", "--bs=64k", *extra])
        self.assertEqual(p.returncode, 0, p.stderr)
        return path.read_bytes()

    def test_buffer_compress_percentage_and_chunk(self):
        for who, runner in runners():
            data = self.written(runner, who, "--buffer_compress_percentage=50", "--buffer_compress_chunk=16k")
            self.assertAlmostEqual(len(zlib.compress(data)) / len(data), 0.5, delta=0.05)
            # Half of each 16 KiB chunk is one repeated run.
            longest = max(len(m) for m in re.findall(rb"\x00+", data))
            self.assertGreaterEqual(longest, 8192, who)
            self.assertLess(longest, 16384, who)
        plain = self.written(run, "plain")
        self.assertGreater(len(zlib.compress(plain)) / len(plain), 0.95)
        small = self.written(run, "small", "--buffer_compress_percentage=50")  # chunks of 512 bytes
        self.assertLess(max(len(m) for m in re.findall(rb"\x00+", small)), 512)


    def test_each_chunk_holds_fios_zero_run_at_fios_offset(self):
        # fio's chunk is min_not_zero(smallest write, buffer_compress_chunk), each (100 - pct)%
        # random, rounded down, then zeros.  ioplan refused chunk=0 (fio: the write size),
        # ran 16k chunks past a 4k write, and rounded the zeros down (337 of 512 at 66%, fio 338).
        def zero_runs(data):
            return [(m.start(), len(m.group())) for m in re.finditer(rb"\x00{16,}", data)]
        cases = (("66", "0", "4k"), ("66", "512", "4k"), ("33", "1000", "4k"), ("50", "16k", "4k"))
        for pct, chunk, bs in cases:
            with self.subTest(pct=pct, chunk=chunk, bs=bs):
                got = {}
                for who, runner in runners():
                    data = self.written(runner, f"{who}-{pct}-{chunk}", f"--bs={bs}", "--size=64k",
                                        f"--buffer_compress_percentage={pct}", f"--buffer_compress_chunk={chunk}")
                    # the deterministic runs: where a random byte next to one is 0 it grows by one
                    got[who] = zero_runs(data)
                mine = got["ioplan"]
                chunk_b = {"0": 4096, "512": 512, "1000": 1000, "16k": 4096}[chunk]
                first_random = min(chunk_b, 4096) * (100 - int(pct)) // 100
                self.assertIn(mine[0][0], (first_random, first_random - 1), mine[:3])
                self.assertIn(mine[0][1], (chunk_b - first_random, chunk_b - first_random + 1), mine[:3])
                if "fio" in got:
                    # the same runs in the same places, give or take a random zero at an edge
                    self.assertEqual(len(mine), len(got["fio"]), (mine[:4], got["fio"][:4]))
                    for (a, n), (b, m) in zip(mine, got["fio"]):
                        self.assertLessEqual(abs(a - b) + abs((a + n) - (b + m)), 2, ((a, n), (b, m)))

    def test_a_pattern_fills_only_the_compressible_share(self):
        # fio's fill_io_buffer: with buffer_compress_percentage or dedupe_percentage each chunk is
        # random first, then the pattern where zeros would be; a pattern also wins over
        # zero_buffers.  ioplan wrote the pattern alone (compressed to 0.001 where fio's 0.71).
        dead = bytes.fromhex("deadbeef")
        cases = {"30": (["--buffer_pattern=0xdeadbeef", "--buffer_compress_percentage=30"], 0.71, 77824),
                 "30-zero": (["--buffer_compress_percentage=30", "--zero_buffers", "--buffer_pattern=0xdeadbeef"],
                             0.71, 77824),
                 "dedupe": (["--buffer_pattern=0xdeadbeef", "--dedupe_percentage=50"], 1.0, 0),
                 "pattern-then-zero": (["--buffer_pattern=0xdeadbeef", "--zero_buffers"], 0.001, 262144)}
        for name, (extra, ratio, runs) in cases.items():
            for who, runner in runners():
                with self.subTest(name, who=who):
                    data = self.written(runner, f"{who}-{name}", *extra)
                    self.assertAlmostEqual(len(zlib.compress(data)) / len(data), ratio, delta=0.02)
                    # the pattern's count as in fio's file (give or take one met by chance)
                    self.assertLessEqual(abs(data.count(dead) - runs), 2, data.count(dead))
        # A read job's layout holds the same content, each 64 KiB piece its own random part.
        for who, runner in runners():
            for extra in (["--buffer_pattern=0xdeadbeef"], ["--zero_buffers"]):
                with self.subTest("layout", who=who, extra=extra):
                    path = self.tmp / f"{who}-layout"
                    p = runner(["--name=r", f"--filename={path}", "--size=4m", "--rw=read", "--bs=64k",
                                "--buffer_compress_percentage=30", *extra])
                    self.assertEqual(p.returncode, 0, p.stderr)
                    data = path.read_bytes()
                    path.unlink()
                    self.assertAlmostEqual(len(zlib.compress(data)) / len(data), 0.71, delta=0.02)
                    self.assertEqual(len({data[i:i + 65536] for i in range(0, len(data), 65536)}), 64)

class Latency(unittest.TestCase):
    def test_disable_lat_leaves_total_latency_unmeasured(self):
        for who, runner in runners():
            read = job_of(runner(["--name=c", "--ioengine=null", "--size=1m", "--rw=read", "--disable_lat=1",
                                  "--output-format=json"]))["read"]
            self.assertEqual(read["lat_ns"]["N"], 0, who)
            self.assertGreater(read["clat_ns"]["N"], 0, who)
        read = job_of(run(["--name=c", "--ioengine=null", "--size=1m", "--rw=read", "--output-format=json"]))["read"]
        self.assertEqual(read["lat_ns"]["N"], 256)


class Threads(TmpDirCase):
    def thread_status(self, args, name_prefix):
        """/proc status text of the threads whose name starts with name_prefix, seen once the job runs."""
        proc = subprocess.Popen([BIN, *args, "--time_based", "--runtime=60", "--output=/dev/null", "--eta=always"],
                                stderr=subprocess.PIPE)
        try:
            wait_for_stderr(proc, until=lambda seen: re.search(r"\[[rR]\(1\)\]", seen))  # reading
            found = []
            for task in os.listdir(f"/proc/{proc.pid}/task"):
                try:
                    with open(f"/proc/{proc.pid}/task/{task}/status") as f:
                        text = f.read()
                    with open(f"/proc/{proc.pid}/task/{task}/stat") as f:
                        stat = f.read().rsplit(")", 1)[1].split()
                except OSError:
                    continue
                if re.search(rf"^Name:\s+{name_prefix}", text, re.M):
                    found.append((text, int(stat[16])))  # field 19 of stat: nice
            return found
        finally:
            proc.send_signal(signal.SIGINT)
            proc.communicate(timeout=30)

    def test_nice_applies_to_the_workers(self):
        found = self.thread_status(["--name=n", "--ioengine=null", "--size=1g", "--nice=7"], "ioplan")
        self.assertIn(7, [nice for _, nice in found])

    @unittest.skipUnless(len(os.sched_getaffinity(0)) >= 2 and 1 in os.sched_getaffinity(0), "needs CPU 1")
    def test_sqthread_poll_cpu_pins_the_kernel_submission_thread(self):
        found = self.thread_status(["--name=s", f"--filename={self.tmp}/s", "--size=4m", "--rw=randread",
                                    "--ioengine=io_uring", "--sqthread_poll=1", "--sqthread_poll_cpu=1"], "iou-sqp")
        if not found:
            self.skipTest("no io_uring submission thread here (sqthread_poll refused)")
        self.assertRegex(found[0][0], r"(?m)^Cpus_allowed_list:\s+1$")


@unittest.skipUnless(STRACE, "strace is not installed")
class Multicast(TmpDirCase):
    def test_ttl_and_interface_reach_the_socket(self):
        trace = self.tmp / "st.txt"
        p = subprocess.run([STRACE, "-f", "-e", "trace=setsockopt", "-o", str(trace), BIN, "--name=m",
                            "--ioengine=net", "--protocol=udp", "--hostname=239.0.0.1", "--port=8765", "--ttl=3",
                            "--interface=127.0.0.1", "--rw=write", "--size=64k", "--bs=4k", "--output=/dev/null"],
                           capture_output=True, text=True, timeout=60, env=TRACED_ENV)
        self.assertEqual(p.returncode, 0, p.stderr)
        calls = trace.read_text()
        self.assertRegex(calls, r"IP_MULTICAST_TTL, \[3\]")
        self.assertRegex(calls, r"IP_MULTICAST_IF, \[16777343\]")  # 127.0.0.1, network order


@unittest.skipUnless(STRACE, "strace is not installed")
class VerifyBacklog(TmpDirCase):
    def io_order(self, *extra):
        """The target's writes and reads in order, as W0, R0, ... (block numbers)."""
        path, trace = self.tmp / "v", self.tmp / "st.txt"
        path.unlink(missing_ok=True)
        p = subprocess.run([STRACE, "-f", "-e", "trace=pwrite64,pread64", "-o", str(trace), BIN, "--name=v",
                            f"--filename={path}", "--size=64k", "--bs=4k", "--rw=write", "--verify=crc32c",
                            "--verify_backlog=4", *extra, "--output=/dev/null"],
                           capture_output=True, text=True, timeout=60, env=TRACED_ENV)
        self.assertEqual(p.returncode, 0, p.stderr)
        # The buffer may hold any byte, a quote or a comma among them: the fd comes
        # first, the length and offset last.
        calls = re.findall(r"(pwrite64|pread64)\((\d+), .*, (\d+), (\d+)\) = ", trace.read_text())
        fd = next(f for c, f, _, _ in calls if c == "pwrite64")
        return [("W" if c == "pwrite64" else "R") + str(int(off) // 4096) for c, f, _, off in calls if f == fd]

    def test_verify_backlog_batch_reads_back_that_many(self):
        whole = self.io_order()
        self.assertEqual(whole[:9], ["W0", "W1", "W2", "W3", "R0", "R1", "R2", "R3", "W4"])
        batch = self.io_order("--verify_backlog_batch=2")
        self.assertEqual(batch[:7], ["W0", "W1", "W2", "W3", "R0", "R1", "W4"])


class LatencyLogs(TmpDirCase):
    def test_log_max_value_logs_each_intervals_largest(self):
        tops = {}
        for flag in (0, 1):
            p = run(["--name=m", "--ioengine=null", "--size=1g", "--time_based", "--runtime=1", "--rate_iops=2000",
                     f"--write_lat_log={self.tmp}/m{flag}", "--log_avg_msec=250", f"--log_max_value={flag}",
                     "--output-format=json"])
            lat_max = job_of(p)["read"]["lat_ns"]["max"]
            logged = [int(line.split(",")[1]) for line in (self.tmp / f"m{flag}_lat.1.log").read_text().splitlines()]
            tops[flag] = (max(logged), lat_max)
        self.assertEqual(tops[1][0], tops[1][1], "the largest of the intervals' largest is the run's largest")
        self.assertLess(tops[0][0], tops[0][1], "an interval's mean is below the run's largest")


class AcceptedForFio(TmpDirCase):
    """fio's options whose effect is already ioplan's only behaviour: read (a bad
    value is refused where it stands), recorded in the JSON's job options as
    written, and the run's results unchanged."""
    CASES = [("create_serialize", "0", "maybe"), ("create_on_open", "1", "maybe"),
             ("unique_filename", "0", "maybe"), ("experimental_verify", "1", "maybe"),
             ("read_iolog_chunked", "1", "maybe"), ("error_dump", "1", "maybe"),
             ("clocksource", "cpu", "sundial"), ("gtod_cpu", "1", "x"), ("write_barrier", "4", "x")]

    def test_accepted_recorded_and_validated(self):
        base = ["--name=a", f"--filename={self.tmp}/a", "--size=256k", "--rw=write", "--bs=4k",
                "--output-format=json"]
        plain = job_of(run(base))["write"]["total_ios"]
        for name, good, bad in self.CASES:
            with self.subTest(name):
                job = job_of(run(base + [f"--{name}={good}"]))
                self.assertEqual(job["job options"].get(name), good)
                self.assertEqual(job["write"]["total_ios"], plain)
                self.write("b.fio", f"[b]\nsize=1m\n{name}={bad}\n")
                p = run(["--parse-only", "b.fio"], cwd=self.tmp)
                self.assertEqual(p.returncode, 2, p.stderr)
                self.assertTrue(p.stderr.startswith(f"b.fio:3:{len(name) + 2}: error: "), p.stderr)

    def test_write_barrier_moves_what_the_job_moves_without_it_in_both_tools(self):
        # fio 3.33 flags every Nth write a barrier only for its sg engine (IO_U_F_BARRIER);
        # with psync and libaio it takes the option (fio's FIO_OPT_INT, so 4k is 4096 and
        # -1 is taken too) and writes what it writes without.  ioplan refused it.
        moved = {}
        for who, runner in runners():
            for engine in ("psync", "libaio"):
                for barrier in (None, "4", "4k", "-1"):
                    with self.subTest(who=who, engine=engine, write_barrier=barrier):
                        args = ["--name=b", f"--filename={self.tmp}/{who}-b", "--size=256k", "--rw=randwrite",
                                "--bs=4k", f"--ioengine={engine}", "--iodepth=4", "--output-format=json"]
                        p = runner(args + ([f"--write_barrier={barrier}"] if barrier else []))
                        self.assertEqual(p.returncode, 0, p.stderr)
                        # fio notes psync's depth 1 on stdout, before the JSON.
                        job = json.loads(p.stdout[p.stdout.index("{"):])["jobs"][0]
                        moved.setdefault((who, engine), set()).add((job["error"], job["write"]["io_bytes"],
                                                                    job["write"]["total_ios"]))
        self.assertEqual(len(moved), 4 if FIO else 2)
        for key, seen in moved.items():
            self.assertEqual(seen, {(0, 256 << 10, 64)}, key)


if __name__ == "__main__":
    unittest.main()
