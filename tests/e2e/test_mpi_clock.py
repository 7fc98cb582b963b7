"""tests/e2e/test_mpi_clock.py - the merged run is on one clock: rank 0's.

Real `mpirun -np 3` ranks that run for different times (size depends on the
rank), with 2 ms samples so the longest rank halves its resolution (a series
holds 512 samples) while the shortest does not: the merged per-interval series
holds every I/O of every rank, `ioplan merge` of the rank files gives the same
document whatever the order the files are given in, and the first-I/O spread
(each rank's first I/O on rank 0's clock) is reported.
"""
import json
import unittest

from common import TmpDirCase, run
from test_mpi import MPIRUN, mpirun

RANKS = 3


def without_merge_time(doc):
    doc["ioplan"]["world"].pop("merge_ns")
    return doc


@unittest.skipUnless(MPIRUN, "mpirun is not installed (Debian: openmpi-bin)")
class OneClock(TmpDirCase):
    # rank 0: 1 MiB (256 I/Os), rank 1: 11 MiB, rank 2: 21 MiB (5,376 I/Os,
    # at least 1.3 s at 4,000 IOPS: past 512 samples of 2 ms).
    JOB = ("[r]\nioengine=null\nbs=4k\nsize=${IOPLAN_RANK}1m\nrw=randread\nrate_iops=4000\n"
           "bwavgtime=2\niopsavgtime=2\nfilename=f${IOPLAN_RANK}\n")

    def setUp(self):
        super().setUp()
        (self.tmp / "job.fio").write_text(self.JOB)
        (self.tmp / "ro").mkdir()
        p = mpirun(RANKS, ["--output-format=json", "--rank-output=ro", "job.fio"], self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.live = json.loads(p.stdout)

    def merged(self, order):
        p = run(["merge", "--output-format=json", *[f"ro/rank-{r}.json" for r in order]], cwd=self.tmp, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        return json.loads(p.stdout)

    def test_the_series_keeps_every_io_and_any_order_merges_the_same(self):
        total = self.live["jobs"][0]["read"]["total_ios"]
        self.assertEqual(total, 256 + 2816 + 5376)
        for doc in (self.live, self.merged([0, 1, 2])):
            series = doc["ioplan"]["series"][0]
            self.assertEqual(sum(series["read"]["ios"]), total, series["interval_ns"])
        self.assertEqual(without_merge_time(self.merged([2, 0, 1])), without_merge_time(self.merged([0, 1, 2])))
        self.assertEqual(without_merge_time(self.merged([1, 2, 0])), without_merge_time(self.merged([0, 1, 2])))

    def test_the_first_io_spread_is_reported(self):
        world = self.live["ioplan"]["world"]
        self.assertIn("first_io_spread_ns", world)
        # Each rank's first I/O is after the common start it waited for: the
        # spread is at most the run's length, and rank files agree with it.
        self.assertLess(world["first_io_spread_ns"], self.live["ioplan"]["elapsed_ns"])
        self.assertEqual(self.merged([2, 1, 0])["ioplan"]["world"]["first_io_spread_ns"],
                         world["first_io_spread_ns"])


if __name__ == "__main__":
    unittest.main()
