"""tests/e2e/test_gen_patterns.py - fio's offset-pattern options, against fio 3.33.

rw=read:-8k (backward), rw=randread:N with rw_sequencer, offset_align, the
think-time and rate options change which offsets a job visits and when: the tests run
ioplan and fio on the same job and compare the per-I/O offsets both write to
write_bw_log with log_offset=1 (or, where fio's random stream differs from
ioplan's, the structure of the offsets: runs of N, identical or contiguous).
"""
import json
import os
import shutil
import unittest

from common import FIO, TmpDirCase, run, run_fio


def offsets(path):
    """The offset column of a per-I/O log, in order."""
    return [int(line.split(",")[4]) for line in path.read_text().splitlines() if line.strip()]


def clat_times(case, job):
    """(tool, [time of each I/O]) from the t_clat.1.log of job (write_lat_log=t), run
    by ioplan and by fio (when present), each in its own directory of case's."""
    for who, runner in (("ioplan", run), ("fio", run_fio)):
        if who == "fio" and not FIO:
            continue
        d = case.tmp / who
        d.mkdir()
        (d / "t.fio").write_text(job)
        p = runner(["t.fio", "--output=out.txt"], cwd=str(d))
        case.assertEqual(p.returncode, 0, who + ": " + p.stderr)
        yield who, [int(line.split(",")[0]) for line in (d / "t_clat.1.log").read_text().splitlines()]


class PatternCase(TmpDirCase):
    def both(self, job, *extra, files=None):
        """Runs job (text with {dir} and {log}) through ioplan and, when present,
        fio, each in its own directory holding files (name: bytes); returns
        {"ioplan": offsets, "fio": offsets or None}."""
        out = {}
        for who, runner in (("ioplan", run), ("fio", run_fio)):
            if who == "fio" and not FIO:
                out[who] = None
                continue
            d = self.tmp / who
            d.mkdir()
            for name, data in (files or {}).items():
                (d / name).write_bytes(data)
            (d / "job.fio").write_text(job.format(dir=d, log=d / "o"))
            p = runner([str(d / "job.fio"), "--output=" + str(d / "out.txt"), *extra], cwd=str(d))
            self.assertEqual(p.returncode, 0, who + ": " + p.stderr)
            out[who] = offsets(d / "o_bw.1.log")
        return out


class Backward(PatternCase):
    JOB = """[back]
filename={dir}/f.dat
size=32k
bs=4k
rw=read:-8k
write_bw_log={log}
log_offset=1
"""

    def test_offsets_as_fio(self):
        got = self.both(self.JOB)
        # fio 3.33: the first I/O at the start, then 8k back from the end of the
        # last one, wrapping to 8k before the region's end.
        self.assertEqual(got["ioplan"], [0, 24576, 20480, 16384, 12288, 8192, 4096, 0])
        if got["fio"] is not None:
            self.assertEqual(got["ioplan"], got["fio"])

    def test_forward_holes_as_fio(self):
        got = self.both(self.JOB.replace("read:-8k", "write:4k").replace("size=32k", "size=64k"))
        self.assertEqual(got["ioplan"][:4], [0, 8192, 16384, 24576])
        if got["fio"] is not None:
            self.assertEqual(got["ioplan"], got["fio"])

    def test_a_block_ending_on_the_region_end_ends_the_pass(self):
        # size=40k bs=4k rw=read:8k: the fourth block (36k) ends on the end, and
        # fio's pass ends there: 4 reads.  ioplan wrapped and read on to size=,
        # 10 blocks (256 against fio's 86 at size=1m).  write:4k above, whose last
        # block ends 4k short of the end, wraps and goes on as fio's.
        got = self.both(self.JOB.replace("read:-8k", "read:8k").replace("size=32k", "size=40k"))
        self.assertEqual(got["ioplan"], [0, 12288, 24576, 36864])
        if got["fio"] is not None:
            self.assertEqual(got["ioplan"], got["fio"])


class Sequencer(PatternCase):
    JOB = """[rs]
filename={dir}/f.dat
size=256k
bs=4k
rw=randread:4
rw_sequencer=%s
write_bw_log={log}
log_offset=1
"""

    def runs(self, seq):
        got = self.both(self.JOB % seq)
        return {k: [v[i:i + 4] for i in range(0, len(v), 4)] for k, v in got.items() if v is not None}

    def test_sequential_runs_of_four(self):
        for who, groups in self.runs("sequential").items():
            self.assertEqual(len(groups), 16, who)
            contiguous = sum(1 for g in groups if g == [g[0] + 4096 * i for i in range(4)])
            # A run that reaches the region's end draws again, so a few are cut.
            self.assertGreaterEqual(contiguous, 12, (who, groups))
            starts = {g[0] for g in groups}
            self.assertGreater(len(starts), 8, (who, "the draws are random"))

    def test_identical_repeats_each_draw(self):
        for who, groups in self.runs("identical").items():
            self.assertEqual(len(groups), 16, who)
            for g in groups:
                self.assertEqual(g, [g[0]] * 4, (who, groups))
            self.assertGreater(len({g[0] for g in groups}), 8, who)

    def test_a_count_fio_reads_otherwise_is_noted_at_its_value(self):
        # fio reads the count with atoi: "0", "x" or nothing is 0 (no I/O draws), "-8k" is
        # 2^32 - 8.  The job runs as fio runs it, and says so.
        self.write("zero.fio", "[j]\nrw=randread:x\nsize=1m\n")
        p = run([str(self.tmp / "zero.fio"), "--parse-only"])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("zero.fio:2:4: note: rw=randread:x: 'x' after the number is ignored", p.stderr)
        self.assertIn("zero.fio:2:4: note: rw=randread:x: no number of I/Os per random offset (fio reads 0): "
                      "none is random", p.stderr)
        self.write("neg.fio", "[j]\nrw=randread:-8k\nsize=1m\n")
        p = run([str(self.tmp / "neg.fio"), "--parse-only"])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("neg.fio:2:4: note: rw=randread:-8k: fio reads -8 as 4294967288 I/Os per random offset",
                      p.stderr)

    def test_bad_sequencer_is_positioned(self):
        self.write("bad.fio", "[j]\nrw=randread:2\nrw_sequencer=same\nsize=1m\n")
        p = run([str(self.tmp / "bad.fio"), "--parse-only"])
        self.assertEqual(p.returncode, 2)
        self.assertIn("bad.fio:3:14: error:", p.stderr)


class OffsetAlign(PatternCase):
    def test_percentage_offset_rounds_up(self):
        # 33% of an existing 100 KiB file is 33792: fio rounds it up to the block
        # size (36864), or to offset_align.
        for align, want in (("", 36864), ("offset_align=16k\n", 49152)):
            job = "[a]\nfilename={dir}/f.dat\nbs=4k\noffset=33%\n" + align + \
                  "rw=read\nwrite_bw_log={log}\nlog_offset=1\n"
            got = self.both(job, files={"f.dat": os.urandom(100 << 10)})
            self.assertEqual(got["ioplan"][0], want, align)
            if got["fio"] is not None:
                self.assertEqual(got["ioplan"], got["fio"], align)
            shutil.rmtree(self.tmp / "ioplan")
            shutil.rmtree(self.tmp / "fio", ignore_errors=True)


class ThinkTime(TmpDirCase):
    # Seconds the job ran by its own clock (JSON job_runtime): the schedule the
    # tool controls, without the process start a busy machine stretches.
    def job_seconds(self, name, text):
        self.write(name, text)
        p = run([str(self.tmp / name), "--output-format=json"])
        self.assertEqual(p.returncode, 0, p.stderr)
        return json.loads(p.stdout)["jobs"][0]["job_runtime"] / 1000.0

    def elapsed(self, opts):
        return self.job_seconds("t.fio", "[t]\nioengine=null\nsize=4k\nbs=1\nrw=read\nthinktime=1ms\n" + opts)

    def test_iotime_thinks_by_time_not_blocks(self):
        # 4096 I/Os with a 1 ms think after each take over 4 s; thinktime_iotime=1s
        # thinks once a second, which this null job never reaches.
        self.assertLess(self.elapsed("thinktime_iotime=1s\n"), 2.0)
        self.assertGreater(self.elapsed("thinktime_blocks=512\n"), 0.007)

    def test_iotime_cycle_is_io_and_think_as_fios(self):
        # thinktime_iotime=500ms with thinktime=500ms: fio thinks once the I/O and the
        # think since the last think was due add up to 1 s, at 1 s and 2 s of a 3 s run,
        # so its log has two gaps of a think.  ioplan counted from the think's end: a
        # cycle of 1.5 s, thinks at 1 s and 2.5 s, the second at the end of the run.
        job = ("[t]\nioengine=null\nrw=read\nbs=4k\nsize=1m\nrate_iops=100\ntime_based\nruntime=3\n"
               "thinktime=500ms\nthinktime_iotime=500ms\nwrite_lat_log=t\n")
        for who, times in clat_times(self, job):
            gaps = [(a, b) for a, b in zip(times, times[1:]) if b - a >= 400]
            self.assertEqual(len(gaps), 2, f"{who}: {gaps}")

    def test_rate_ignore_thinktime_issues_at_once_after_a_think_as_fio(self):
        # fio moves the schedule on by the think less one I/O, so the I/O after a 1 s
        # think goes at once: I/Os at 0, 1, 2 and 3 s of a 3.5 s run at rate_iops=2.
        # Moved on by the whole think, ioplan issued each one 0.5 s after the think
        # (0, 1.5 and 3 s).
        job = ("[t]\nioengine=null\nrw=read\nbs=4k\nsize=1m\nrate_iops=2\ntime_based\nruntime=3500ms\n"
               "thinktime=1s\nrate_ignore_thinktime=1\nwrite_lat_log=t\n")
        for who, times in clat_times(self, job):
            self.assertEqual(len(times), 4, f"{who}: {times}")

    def test_iotime_with_blocks_thinks_by_blocks_too(self):
        self.assertGreater(self.elapsed("thinktime_iotime=10s\nthinktime_blocks=512\n"), 0.007)

    def rate_runtime(self, ignore):
        return self.job_seconds("r.fio", "[r]\nioengine=null\nsize=160k\nbs=4k\nrw=read\nrate_iops=20\n"
                                "thinktime=250ms\nthinktime_blocks=10\nrate_ignore_thinktime=%d\n" % ignore)

    def test_rate_ignore_thinktime_adds_the_thinks(self):
        # 40 I/Os at 20 IOPS: 2 s; four 250 ms thinks are absorbed by the
        # schedule (the I/Os after a think catch up), or added with ignore (3 s).
        self.assertGreater(self.rate_runtime(1), 2.7)
        self.assertLess(self.rate_runtime(0), 2.7)


class RateProcess(TmpDirCase):
    def test_a_poisson_rate_over_varying_lengths_counts_ios_of_the_smallest_block(self):
        # fio's poisson lambda is 10^6 / IOPS, rate= counted in I/Os of the smallest
        # block: bsrange=4k-16k rate=1m is 256 I/Os a second, 512 in 2 s (both tools,
        # give or take the draws), where ioplan's gaps by each I/O's bytes made about 230.
        job = ("[t]\nioengine=null\nrw=read\nbsrange=4k-16k\nsize=1g\nrate=1m\nrate_process=poisson\n"
               "time_based\nruntime=2\nwrite_lat_log=t\n")
        for who, times in clat_times(self, job):
            self.assertTrue(400 <= len(times) <= 650, f"{who}: {len(times)} I/Os")


if __name__ == "__main__":
    unittest.main()
