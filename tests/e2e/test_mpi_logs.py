"""tests/e2e/test_mpi_logs.py - ranks sharing one working directory keep one log and one verify state each.

Real `mpirun -np 4` ranks in one directory with write_bw_log=bw: each rank's
log ends in .HOST.RANK (fio's client appends .HOST to a server's logs), so
there are four logs, each with its own rank's entries, not one file the ranks
wrote over each other; the same suffix keeps a verify state file per rank, which
a verify_state_load run under mpirun reads back, each rank its own.
"""
import json
import os
import unittest

from common import TmpDirCase
from test_mpi import MPIRUN, mpirun

RANKS = 4


@unittest.skipUnless(MPIRUN, "mpirun is not installed (Debian: openmpi-bin)")
class LogsPerRank(TmpDirCase):
    def test_each_rank_writes_its_own_logs(self):
        host = os.uname().nodename
        self.write("job.fio", "[w]\nioengine=null\nbs=4k\nsize=1m\nrw=write\nfilename=f${IOPLAN_RANK}\n"
                   "write_bw_log=bw\nwrite_lat_log=lat\n")
        p = mpirun(RANKS, ["--output-format=json", "job.fio"], self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        logs = sorted(n for n in os.listdir(self.tmp) if n.startswith(("bw_", "lat_")))
        want = sorted(f"{kind}.1.log.{host}.{r}" for r in range(RANKS)
                      for kind in ("bw_bw", "lat_lat", "lat_clat", "lat_slat"))
        self.assertEqual(logs, want)
        for r in range(RANKS):  # every rank's 256 writes, in its own file
            lines = (self.tmp / f"lat_clat.1.log.{host}.{r}").read_text().splitlines()
            self.assertEqual(len(lines), 256, f"rank {r}")

    def test_each_rank_keeps_its_own_verify_state(self):
        # verify_state_save is on by default: every rank wrote local-w-0-verify.state over the
        # others' in the shared directory, so a verify_state_load run checked one rank's writes.
        host = os.uname().nodename
        # do_verify=0 for the write only: a verify_only writer with do_verify=0 checks nothing, as fio's.
        self.write("job.fio", "[w]\nbs=4k\nsize=256k\nrw=write\nverify=crc32c\n"
                   "filename=f${IOPLAN_RANK}\n")
        p = mpirun(RANKS, ["--output-format=json", "--do_verify=0", "job.fio"], self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        states = sorted(n for n in os.listdir(self.tmp) if "verify.state" in n)
        self.assertEqual(states, sorted(f"local-w-0-verify.state.{host}.{r}" for r in range(RANKS)))
        p = mpirun(RANKS, ["--output-format=json", "--verify_only=1", "--verify_state_load=1",
                           "--verify_state_save=0", "job.fio"], self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(json.loads(p.stdout)["jobs"][0]["read"]["io_bytes"], RANKS * 256 * 1024)


if __name__ == "__main__":
    unittest.main()
