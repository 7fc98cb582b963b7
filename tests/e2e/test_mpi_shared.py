"""tests/e2e/test_mpi_shared.py - ranks sharing one file.

IOR's N-to-1: real `mpirun -np 4` ranks name one file, each its own region
(offset=${IOPLAN_RANK}m).  The file is laid out once, by rank 0, to the extent
every rank needs, and every run succeeds (with each rank laying it out at once,
some runs failed with "File exists" or a region beyond the end of the file).
"""
import json
import unittest

from common import TmpDirCase
from test_mpi import MPIRUN, mpirun

RANKS = 4
MIB = 1024 * 1024


@unittest.skipUnless(MPIRUN, "mpirun is not installed (Debian: openmpi-bin)")
class SharedFile(TmpDirCase):
    def test_a_shared_file_is_laid_out_once_to_every_ranks_extent(self):
        # Rank r reads 2 MiB from r MiB: the file must hold 5 MiB, rank 3's end.
        self.write("job.fio", f"[n1]\nioengine=psync\nbs=64k\nrw=read\nsize=2m\noffset=${{IOPLAN_RANK}}m\n"
                   f"filename={self.tmp}/shared\n")
        for run in range(10):
            (self.tmp / "shared").unlink(missing_ok=True)
            out = self.tmp / f"ranks{run}"
            out.mkdir()
            p = mpirun(RANKS, ["--output-format=json", f"--rank-output={out}", "job.fio"], self.tmp)
            self.assertEqual(p.returncode, 0, f"run {run}: {p.stderr}")
            self.assertEqual((self.tmp / "shared").stat().st_size, 5 * MIB, f"run {run}")
            layouts = {}
            for r in range(RANKS):
                text = (out / f"rank-{r}.json").read_text()
                layouts[r] = text.count("Laying out IO file")
                self.assertEqual(text.count("Laying out IO file (1 file / 5MiB)"), layouts[r], f"run {run} rank {r}")
            self.assertEqual(layouts, {0: 1, 1: 0, 2: 0, 3: 0}, f"run {run}: who laid the file out")
            ranks = json.loads(p.stdout)["ioplan"]["ranks"]
            self.assertEqual([r["jobs"][0]["read"]["io_bytes"] for r in ranks], [2 * MIB] * RANKS)


if __name__ == "__main__":
    unittest.main()
