"""tests/e2e/test_engines.py - the local data engines against fio 3.33.

Every case is a small size-bound job run for real by fio and by ioplan on a
private file with the same command line; per job, error and the read, write
and trim io_bytes must be equal.  Write cases with verify=crc32c also prove the
data went through the engine intact (the read-back fails otherwise).  Cases
where fio 3.33 fails (pvsync2 flags the kernel refuses, ftruncate reads) must
fail the same way: same errno, same bytes.
"""
import json
import os
import shutil
import subprocess
import unittest

from common import BIN, FIO, TRACED_ENV, TmpDirCase, ext4_loop, remount, run, run_fio

SMALL = ["--size=1m", "--bs=4k"]
CASES = {
    "sync_write_verify": ["--ioengine=sync", "--rw=randwrite", "--verify=crc32c"],
    "sync_read": ["--ioengine=sync", "--rw=read"],
    "pvsync_write_verify": ["--ioengine=pvsync", "--rw=randwrite", "--verify=crc32c"],
    "pvsync_read": ["--ioengine=pvsync", "--rw=randread"],
    "pvsync2_write_verify": ["--ioengine=pvsync2", "--rw=write", "--verify=crc32c"],
    "pvsync2_hipri": ["--ioengine=pvsync2", "--rw=randread", "--hipri"],
    "pvsync2_hipri_half": ["--ioengine=pvsync2", "--rw=read", "--hipri", "--hipri_percentage=50"],
    # fio 3.33 passes RWF_UNCACHED as 0x40 and this kernel refuses it: EOPNOTSUPP.
    "pvsync2_uncached": ["--ioengine=pvsync2", "--rw=read", "--uncached=1"],
    "pvsync2_nowait_write": ["--ioengine=pvsync2", "--rw=write", "--nowait=1"],
    "vsync_write_verify": ["--ioengine=vsync", "--rw=write", "--verify=crc32c"],
    "vsync_randread": ["--ioengine=vsync", "--rw=randread"],
    # Batched submission lets adjacent writes share one writev (fio: 32 calls here).
    "vsync_batched": ["--ioengine=vsync", "--rw=write", "--iodepth=8", "--iodepth_batch=8"],
    "posixaio_randread": ["--ioengine=posixaio", "--rw=randread", "--iodepth=8"],
    "posixaio_write_verify": ["--ioengine=posixaio", "--rw=randwrite", "--iodepth=4", "--verify=crc32c"],
    "mmap_write_verify": ["--ioengine=mmap", "--rw=randwrite", "--verify=crc32c"],
    "mmap_read": ["--ioengine=mmap", "--rw=read", "--bs=64k"],
    "falloc_write": ["--ioengine=falloc", "--rw=randwrite"],
    "falloc_read": ["--ioengine=falloc", "--rw=read"],
    "falloc_trim": ["--ioengine=falloc", "--rw=randtrim"],
    "ftruncate_write": ["--ioengine=ftruncate", "--rw=write"],
    "ftruncate_read": ["--ioengine=ftruncate", "--rw=read"],
}



def strace_calls(path, name):
    """Calls of one syscall in an `strace -c` table (its 4th column), 0 when absent."""
    for line in path.read_text().splitlines():
        f = line.split()
        if f and f[-1] == name:
            return int(f[3])
    return 0


def figures(stdout):
    """[(error, read, write, trim io_bytes)] per job of a JSON report (after any notes)."""
    doc = json.loads(stdout[stdout.index("{"):])
    return [(j["error"], j["read"]["io_bytes"], j["write"]["io_bytes"], j["trim"]["io_bytes"])
            for j in doc["jobs"]]


class Engines(TmpDirCase):
    def one(self, who, name, args):
        d = self.tmp / who / name
        d.mkdir(parents=True)
        cmd = ["--name=j", "--filename=data", *SMALL, *args, "--output-format=json"]
        p = run_fio(cmd, cwd=d) if who == "fio" else run(cmd, cwd=d)
        self.assertIn("{", p.stdout, f"{who} {name}: {p.stderr}")
        return p.returncode, figures(p.stdout), p.stderr

    def test_io_bytes_and_error_are_fios(self):
        if FIO is None:
            self.skipTest("fio not installed")
        for name, args in CASES.items():
            with self.subTest(name):
                frc, ff, _ = self.one("fio", name, args)
                irc, fi, err = self.one("ioplan", name, args)
                if os.environ.get("ENGINES_SHOW"):
                    print(f"{name}: fio {ff} rc={frc}  ioplan {fi} rc={irc}")
                self.assertEqual(fi, ff, f"{name}: ioplan {fi} fio {ff}; {err}")
                self.assertEqual(bool(irc), bool(frc), f"{name}: exit status; {err}")

    def test_a_sync_the_engine_cannot_make_ends_the_job_as_fios(self):
        # fio hands fsync=N's sync to the engine as an I/O: ftruncate refuses it (EINVAL),
        # falloc passes its 0 bytes to fallocate, which refuses them; the job ends there,
        # with the sync counted and no latency for it.  end_fsync's comes in a used slot:
        # ftruncate refuses it, falloc allocates that block again.  ioplan synced every
        # time and ended with error 0 (4 writes, 3 syncs where fio made 1 and 1).
        if FIO is None:
            self.skipTest("fio not installed")
        cases = {
            "ftruncate_fsync": ["--ioengine=ftruncate", "--rw=write", "--fsync=1"],
            "ftruncate_fsync_2": ["--ioengine=ftruncate", "--rw=write", "--fsync=2"],
            "ftruncate_fdatasync": ["--ioengine=ftruncate", "--rw=write", "--fdatasync=1"],
            "ftruncate_end_fsync": ["--ioengine=ftruncate", "--rw=write", "--end_fsync=1"],
            "ftruncate_fsync_on_close": ["--ioengine=ftruncate", "--rw=write", "--fsync_on_close=1"],
            "falloc_fsync": ["--ioengine=falloc", "--rw=write", "--fsync=1"],
            "falloc_fdatasync_3": ["--ioengine=falloc", "--rw=randwrite", "--fdatasync=3"],
            "falloc_randrw_fsync": ["--ioengine=falloc", "--rw=randrw", "--fsync=2"],
            "falloc_end_fsync": ["--ioengine=falloc", "--rw=write", "--end_fsync=1"],
            "psync_fsync": ["--ioengine=psync", "--rw=write", "--fsync=4"],
            "ftruncate_sync_file_range": ["--ioengine=ftruncate", "--rw=write", "--sync_file_range=write:1"],
            "falloc_sync_file_range": ["--ioengine=falloc", "--rw=write", "--sync_file_range=write:2"],
        }
        for name, args in cases.items():
            got = {}
            for who in ("fio", "ioplan"):
                d = self.tmp / who / name
                d.mkdir(parents=True)
                cmd = ["--name=j", "--filename=data", "--size=64k", "--bs=4k", *args, "--output-format=json"]
                p = run_fio(cmd, cwd=d) if who == "fio" else run(cmd, cwd=d)
                self.assertIn("{", p.stdout, f"{who} {name}: {p.stderr}")
                j = json.loads(p.stdout[p.stdout.index("{"):])["jobs"][0]
                # fio counts fdatasync's syncs past its sync counter (ioplan-job(5), COMPATIBILITY).
                syncs = None if "fdatasync" in name or "range" in name else j["sync"]["total_ios"]
                got[who] = (bool(p.returncode), j["error"], j["read"]["total_ios"], j["write"]["total_ios"],
                            syncs, j["sync"]["lat_ns"]["N"], j["iodepth_level"]["1"])
            with self.subTest(name):
                self.assertEqual(got["ioplan"], got["fio"], got)
                if name != "psync_fsync" and name != "falloc_end_fsync":
                    self.assertEqual(got["ioplan"][:2], (True, 22))

    def test_nowait_read_of_a_cold_file_fails_with_eagain_as_fios(self):
        # RWF_NOWAIT on a buffered read of a page not in the cache: EAGAIN (fio's error 11),
        # at the first I/O.  The file is made cold for certain by mounting its file system
        # again before each tool runs; the open's POSIX_FADV_DONTNEED alone could leave
        # pages the kernel held at that moment (under load: 4 pages read, or all of them).
        if FIO is None:
            self.skipTest("fio not installed")
        mnt = ext4_loop(self)
        got = {}
        for who in ("fio", "ioplan"):
            d = mnt / who
            d.mkdir()
            with open(d / "data", "wb") as f:
                f.write(os.urandom(1 << 20))
                os.fsync(f.fileno())
            remount(mnt)
            cmd = ["--name=j", "--filename=data", *SMALL, "--ioengine=pvsync2", "--rw=read", "--nowait=1",
                   "--output-format=json"]
            p = run_fio(cmd, cwd=d) if who == "fio" else run(cmd, cwd=d)
            self.assertIn("{", p.stdout, f"{who}: {p.stderr}")
            got[who] = (bool(p.returncode), figures(p.stdout))
        # The first read finds no page and starts the readahead of the first 16 KiB.  A
        # loop device over a cached image can finish that before the read looks again,
        # and the read then takes its pages (seen once under load: 16 KiB, then EAGAIN at
        # the fifth page).  Either tool may see that, so each is held to failing with
        # EAGAIN within the first readahead window (4 pages at most on a cold file).
        for who, (failed, [(err, read, written, trimmed)]) in got.items():
            self.assertEqual((failed, err, written, trimmed), (True, 11, 0, 0), (who, got))
            self.assertIn(read, (0, 4096, 8192, 12288, 16384), (who, got))

    def test_every_engine_runs_alone(self):
        # Without fio: each data engine writes and verifies a small file.
        for eng in ("pvsync", "pvsync2", "vsync", "posixaio", "mmap"):
            with self.subTest(eng):
                rc, f, err = self.one("ioplan", eng, [f"--ioengine={eng}", "--rw=randwrite",
                                                      "--iodepth=4", "--verify=crc32c"])
                self.assertEqual((rc, f), (0, [(0, 1 << 20, 1 << 20, 0)]), err)

    def test_vsync_deep_counts_every_byte(self):
        # fio 3.33 at iodepth=8 without iodepth_batch makes all 256 writev calls (strace)
        # but reports 7 blocks fewer io_bytes (1019904); ioplan counts what it wrote.
        args = ["--ioengine=vsync", "--rw=write", "--iodepth=8"]
        rc, f, err = self.one("ioplan", "deep", args)
        self.assertEqual((rc, f), (0, [(0, 0, 1 << 20, 0)]), err)
        if FIO is not None:
            _, ff, _ = self.one("fio", "deep", args)
            self.assertEqual(ff[0][0], 0)
            self.assertLessEqual(ff[0][2], 1 << 20)

    def test_vsync_is_timed_as_fios_sync_engines(self):
        # fio flags vsync FIO_SYNCIO: an I/O's clat starts before its queue(), so the
        # readv/writev is in its clat and it has no slat, and iodepth=8 gets the note
        # "queue depth will be capped at 1".  ioplan timed vsync as an async engine:
        # a slat holding the writev (avg 2133 ns) and a clat of the reap alone (39 ns),
        # and no note.
        args = ["--ioengine=vsync", "--rw=write", "--iodepth=8"]
        note = "note: both iodepth >= 1 and synchronous I/O engine are selected, queue depth will be capped at 1"
        for who in ("ioplan", "fio"):
            if who == "fio" and FIO is None:
                continue
            d = self.tmp / who / "timed"
            d.mkdir(parents=True)
            cmd = ["--name=j", "--filename=data", *SMALL, *args, "--output-format=json"]
            p = run_fio(cmd, cwd=d) if who == "fio" else run(cmd, cwd=d)
            self.assertEqual(p.returncode, 0, (who, p.stderr))
            w = json.loads(p.stdout[p.stdout.index("{"):])["jobs"][0]["write"]
            self.assertEqual(w["slat_ns"]["N"], 0, who)
            self.assertGreater(w["clat_ns"]["N"], 0, who)
            # fio's note comes on stdout ahead of its JSON, ioplan's on stderr.
            self.assertIn(note, p.stdout + p.stderr, who)
            if who == "ioplan":
                self.assertEqual(w["clat_ns"]["N"], 256)

    @unittest.skipIf(shutil.which("strace") is None, "strace not installed")
    def test_vsync_coalesces_adjacent_writes(self):
        # fio's vsync hands back every completion at once and fio completes them all
        # before it queues again, so at iodepth_batch=8 each batch of 8 is merged whole:
        # 32 writev calls of 8 blocks.  ioplan took one completion a reap and queued
        # in between: 57 calls (28 of 8, 28 of 1, 1 of 4).
        cmd = ["--name=j", "--filename=data", *SMALL, "--ioengine=vsync", "--rw=write", "--iodepth=8",
               "--iodepth_batch=8", "--output-format=json"]
        for who, tool in (("ioplan", BIN), ("fio", FIO)):
            if tool is None:
                continue
            d = self.tmp / who
            d.mkdir()
            st = d / "st"
            p = subprocess.run(["strace", "-f", "-c", "-o", str(st), "-e", "trace=writev", tool, *cmd],
                               cwd=d, capture_output=True, text=True, timeout=120, env=TRACED_ENV)
            self.assertEqual(p.returncode, 0, (who, p.stderr))
            self.assertEqual(strace_calls(st, "writev"), 256 // 8, who)
            self.assertEqual(figures(p.stdout), [(0, 0, 1 << 20, 0)], who)
            doc = json.loads(p.stdout[p.stdout.index("{"):])["jobs"][0]
            self.assertEqual(doc["iodepth_submit"]["8"], 100.0, who)
            self.assertEqual(doc["iodepth_complete"]["8"], 100.0, who)

    def test_the_drain_at_the_end_is_one_reap_as_fios(self):
        # fio's do_io ends (each loop's, a runtime's) by reaping all still in flight in
        # one io_u_queued_complete(cur_depth): one entry of that many in the complete
        # row.  ioplan counted that drain one completion a reap: 15 writes at depth 16
        # were 'complete: 4=100.0%' where fio 3.33 prints '16=100.0%'.
        cases = ((["--size=64k", "--iodepth=8"], {"4": 90.0, "8": 10.0}),
                 (["--size=60k", "--iodepth=16", "--loops=2"], {"16": 100.0}),
                 (["--size=1m", "--iodepth=16", "--time_based", "--runtime=300ms"], None))
        for engine in ("io_uring", "libaio"):
            for i, (args, want) in enumerate(cases):
                for who in ("ioplan", "fio"):
                    if who == "fio" and FIO is None:
                        continue
                    with self.subTest(engine=engine, args=args, who=who):
                        d = self.tmp / who / f"{engine}{i}"
                        d.mkdir(parents=True)
                        cmd = ["--name=j", "--filename=data", "--bs=4k", "--rw=randwrite", f"--ioengine={engine}",
                               *args, "--output-format=json"]
                        p = run_fio(cmd, cwd=d) if who == "fio" else run(cmd, cwd=d)
                        self.assertEqual(p.returncode, 0, p.stderr)
                        got = {k: v for k, v in json.loads(p.stdout)["jobs"][0]["iodepth_complete"].items() if v}
                        if want is None:
                            self.assertGreater(got.get("16", 0), 0, got)  # the drain at runtime's end
                        else:
                            self.assertEqual(got, want)

    def test_engine_options_of_another_engine_are_refused(self):
        # fio 3.33: "unrecognized option"; ioplan names the engine the option belongs to.
        # hipri=0 and nowait=0 too: fio 3.33 calls them bad options under psync.
        for opt, eng in (("--uncached=1", "psync"), ("--nowait=1", "mmap"), ("--hipri_percentage=50", "libaio"),
                         ("--hipri", "posixaio"), ("--hipri=0", "psync"), ("--nowait=0", "sync")):
            with self.subTest(opt):
                p = run(["--name=j", f"--ioengine={eng}", opt, "--size=1m", "--filename=data"], cwd=self.tmp)
                self.assertEqual(p.returncode, 2, p.stderr)
                name = opt[2:].split("=")[0]
                self.assertIn(f"error: job 'j': {name} is an option of ioengine=pvsync2", p.stderr)
                self.assertIn(f"not of ioengine={eng}", p.stderr)
                self.assertFalse((self.tmp / "data").exists(), "refused before any file is made")

    @unittest.skipIf(shutil.which("strace") is None or FIO is None, "strace or fio not installed")
    def test_sync_seeks_as_fio(self):
        # fio's sync engine skips the lseek where the last I/O ended: a sequential read
        # of 256 blocks seeks once (fio: 1; ioplan also seeks before the first I/O, as it
        # does not assume where a descriptor stands), a random one nearly every time
        # (fio 252: its random order differs from ioplan's).
        for rw in ("read", "randread"):
            counts = {}
            for who, exe in (("fio", FIO), ("ioplan", BIN)):
                d = self.tmp / f"seek-{who}-{rw}"
                d.mkdir()
                st = d / "st"
                p = subprocess.run(["strace", "-f", "-c", "-o", str(st), "-e", "trace=lseek", exe, "--name=j",
                                    "--filename=data", *SMALL, "--ioengine=sync", f"--rw={rw}",
                                    "--output-format=json"], cwd=d, capture_output=True, text=True, timeout=120,
                                   env=TRACED_ENV)
                self.assertEqual(p.returncode, 0, p.stderr)
                counts[who] = strace_calls(st, "lseek")
            with self.subTest(rw):
                if rw == "read":
                    self.assertLessEqual(counts["ioplan"], counts["fio"] + 1, counts)
                else:
                    self.assertGreater(counts["ioplan"], 200, counts)
                    self.assertGreater(counts["fio"], 200, counts)

    def test_sync_seeks_in_a_file_opened_again_under_an_old_number(self):
        # The sync engine skips the lseek where the last I/O on the descriptor ended.
        # Under openfiles=1 (and unlink_each_loop) the next file's open takes the number
        # back at position 0: a random write meant for 4096 went to 0 (9 of 16 files bad
        # in each run's read-back); with offset= it wrote below the job's region.
        for who, tool in (("fio", run_fio), ("ioplan", run)) if FIO else (("ioplan", run),):
            for i, case in enumerate((["--nrfiles=16", "--openfiles=1", "--size=128k"],
                                      ["--size=8k", "--unlink_each_loop=1", "--loops=8"])):
                with self.subTest(who=who, case=case):
                    d = self.tmp / f"reopen-{who}-{i}"
                    d.mkdir()
                    p = tool(["--name=a", f"--directory={d}", "--ioengine=sync", "--rw=randwrite", "--bs=4k",
                              *case, "--verify=crc32c", "--output-format=json"])
                    self.assertEqual(p.returncode, 0, p.stderr)
                    job = json.loads(p.stdout[p.stdout.index("{"):])["jobs"][0]
                    self.assertEqual(job["error"], 0)
        # The region: offset=64k of eight files of the user's, below it untouched.
        d = self.tmp / "region"
        d.mkdir()
        names = [str(d / f"f{i}") for i in range(8)]
        for n in names:
            with open(n, "wb") as f:
                f.write(b"U" * 131072)
        p = run(["--name=a", "--filename=" + ":".join(names), "--allow_existing_file_write=1", "--ioengine=sync",
                 "--rw=randwrite", "--bs=4k", "--offset=64k", "--size=64k", "--openfiles=1"])
        self.assertEqual(p.returncode, 0, p.stderr)
        for n in names:
            with open(n, "rb") as f:
                self.assertEqual(f.read(65536).count(b"U"), 65536, f"{n}: the job wrote below offset=")

    def test_a_sync_ios_latency_is_the_engines_alone(self):
        # fio times a sync I/O from just before queue(): the latency is the system call's.
        # ioplan's clock read for it comes there too, so its own work between two I/Os
        # (accounting the last, drawing the next) is in neither: each I/O starts after
        # the one before it ended.  The null engine has nothing to time and keeps the
        # read it already has (its I/Os follow one another without a gap).
        def trace(engine, *extra):
            p = run(["--name=j", "--filename=data", "--size=256k", "--bs=4k", "--rw=randread",
                     f"--ioengine={engine}", "--io_trace=64", *extra, "--output-format=json"], cwd=self.tmp)
            self.assertEqual(p.returncode, 0, p.stderr)
            ios = json.loads(p.stdout)["ioplan"]["traces"][0]["ios"]
            ends = ios["t_ns"]
            starts = [t - lat for t, lat in zip(ends, ios["lat_ns"])]
            return [starts[i] - ends[i - 1] for i in range(1, len(ends))]

        for engine in ("psync", "sync", "pvsync2"):
            with self.subTest(engine):
                gaps = trace(engine)
                self.assertEqual(len(gaps), 63)
                self.assertGreater(min(gaps), 0, gaps)
        gaps = trace("null")
        self.assertGreaterEqual(gaps.count(0), 60, gaps)
        # And no more reads than those two: on the fake clock (each read advances it 1 ns)
        # two completions are two reads apart, a write's buffer variation included; the
        # null engine's one.
        for engine, rw, reads in (("psync", "randread", 2), ("psync", "randwrite", 2), ("null", "randread", 1)):
            with self.subTest(engine=engine, rw=rw):
                p = run(["--fake-clock=1", "--name=j", "--filename=data", "--size=256k", "--bs=4k", f"--rw={rw}",
                         f"--ioengine={engine}", "--io_trace=64", "--output-format=json"], cwd=self.tmp)
                self.assertEqual(p.returncode, 0, p.stderr)
                ends = json.loads(p.stdout)["ioplan"]["traces"][0]["ios"]["t_ns"]
                self.assertEqual({b - a for a, b in zip(ends, ends[1:])}, {reads}, ends)

    def test_unknown_engine_lists_the_new_ones(self):
        p = run(["--name=j", "--ioengine=windowsaio", "--size=1m"], cwd=self.tmp)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("is not supported", p.stderr)
        for eng in ("pvsync2", "posixaio", "mmap", "falloc", "ftruncate"):
            self.assertIn(eng, p.stderr)


if __name__ == "__main__":
    unittest.main()
