"""tests/e2e/test_mpi_shared.py - ranks sharing one file, and ranks reading another node's files.

IOR's N-to-1: real `mpirun -np 4` ranks name one file, each its own region
(offset=${IOPLAN_RANK}m).  The file is laid out once, by rank 0, to the extent
every rank needs, and every run succeeds (with each rank laying it out at once,
some runs failed with "File exists" or a region beyond the end of the file).
A rank that cannot lay it out is named and every rank stops.
rank_offset_increment gives each rank its segment of the file, IOR-style.
--rank-shift moves reads by whole nodes, IOR's -C: two "hosts" are two UTS
namespaces (each rank sets its host name before ioplan starts), and each rank
reads the file a rank on the other host wrote.
"""
import json
import os
import subprocess
import unittest

from common import BIN, DirWatch, TmpDirCase
from test_mpi import MPI_ENV, MPIRUN, mpirun

RANKS = 4
MIB = 1024 * 1024


def mpirun_on_two_hosts(n, args, cwd):
    """mpirun with each rank in its own UTS namespace: ranks 0 and 1 on host node0, 2 and 3 on node1."""
    env = dict(os.environ)
    env.update(MPI_ENV)
    return subprocess.run([MPIRUN, "--oversubscribe", "-np", str(n), "unshare", "--uts", "sh", "-c",
                           'hostname node$((OMPI_COMM_WORLD_RANK / 2)) && exec "$0" "$@"', BIN, *args], start_new_session=True,
                          cwd=cwd, capture_output=True, text=True, timeout=90, env=env)


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

    def test_the_rank_that_cannot_lay_the_shared_file_out_is_named(self):
        # Rank 0 lays out the 5 MiB every rank needs, but may write files of 3 MiB at most
        # (ulimit -f, SIGXFSZ ignored: EFBIG); its own 2 MiB would fit.
        self.write("job.fio", f"[n1]\nioengine=psync\nbs=64k\nrw=read\nsize=2m\noffset=${{IOPLAN_RANK}}m\n"
                   f"filename={self.tmp}/shared\n")
        env = dict(os.environ)
        env.update(MPI_ENV)
        p = subprocess.run([MPIRUN, "--oversubscribe", "-np", "1", "sh", "-c",
                            f"trap '' XFSZ; ulimit -f 3072; exec {BIN} job.fio", ":", "-np", str(RANKS - 1),
                            BIN, "job.fio"], start_new_session=True, cwd=self.tmp, capture_output=True, text=True, timeout=90, env=env)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn(f"ioplan: error: rank 0 ({os.uname().nodename}): layout: File too large", p.stderr)
        self.assertEqual(p.stderr.count("): layout:"), 1, p.stderr)
        # The others waited for rank 0 and stopped: none went on to lay the file out itself
        # (rank 0 removed the file it could not finish).
        shared = self.tmp / "shared"
        self.assertLessEqual(shared.stat().st_size if shared.exists() else 0, 3 * MIB)

    def test_rank_offset_increment_gives_each_rank_its_segment(self):
        # IOR's segments: rank r's two clones write [r MiB, r MiB + 1 MiB) of one file, each
        # half with offset_increment, every byte the rank's own pattern; no ${IOPLAN_RANK} arithmetic.
        self.write("job.fio", "[seg]\nioengine=psync\nbs=64k\nrw=write\nsize=512k\nnumjobs=2\n"
                   "offset_increment=512k\nrank_offset_increment=1m\nbuffer_pattern=0x0${IOPLAN_RANK}\n"
                   f"filename={self.tmp}/shared\n")
        p = mpirun(RANKS, ["--output-format=json", "job.fio"], self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        data = (self.tmp / "shared").read_bytes()
        self.assertEqual(len(data), RANKS * MIB)
        for r in range(RANKS):
            self.assertEqual(data[r * MIB:(r + 1) * MIB], bytes([r]) * MIB, f"rank {r}'s segment")

    def test_every_rank_takes_a_percentage_offset_of_the_same_size(self):
        # [b]'s offset=50% is of the size [a]'s setup leaves the new file (64 KiB), on
        # every rank: rank 0, which lays the file out, took it of 0 (the file was its
        # own), the others of the 64 KiB they found laid out, and read from 32 KiB.
        self.write("job.fio", f"[global]\nioengine=psync\nbs=4k\nfilename={self.tmp}/shared\n"
                   "[a]\nrw=read\nsize=64k\n[b]\nstonewall\nrw=read\noffset=50%\nwrite_iolog=b.log\n")
        p = mpirun(2, ["--output-format=json", "job.fio"], self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        for r in range(2):
            log = next(self.tmp.glob(f"b.log.*.{r}")).read_text().splitlines()[1:]
            offsets = sorted(int(l.split()[3]) for l in log if l.split()[2] == "read")
            self.assertEqual(offsets, list(range(32768, 65536, 4096)), f"rank {r}")

    def test_unlink_each_loop_keeps_a_file_other_ranks_write(self):
        # Each rank's own file is made anew for its second loop, as fio's; the
        # shared one is not, which the ranks still write (a rank removing it
        # would leave the others writing a file no name holds, and their next
        # loop refused as a file that was replaced).
        self.write("job.fio", "[global]\nioengine=psync\nbs=4k\nrw=write\nsize=256k\nloops=2\n"
                   f"unlink_each_loop=1\n[own]\nfilename={self.tmp}/own${{IOPLAN_RANK}}\n"
                   f"[sh]\nfilename={self.tmp}/shared\noffset=${{IOPLAN_RANK}}m\n")
        watches = {name: DirWatch(self.tmp) for name in ("own0", "own1", "shared")}
        p = mpirun(2, ["job.fio"], self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        got = {name: w.events(name) for name, w in watches.items()}
        self.assertEqual(got, {"own0": ["create", "delete", "create"], "own1": ["create", "delete", "create"],
                               "shared": ["create"]})
        self.assertIn(f"{self.tmp}/shared: unlink_each_loop keeps it between loops "
                      "(another clone, job or rank uses it too)", p.stdout + p.stderr)


@unittest.skipUnless(MPIRUN, "mpirun is not installed (Debian: openmpi-bin)")
class RankShiftByNode(TmpDirCase):
    def test_rank_shift_reads_the_files_of_a_rank_on_another_host(self):
        # Rank r's file holds (r + 1) x 64 KiB: the size a rank reads says whose file it read.
        for r in range(RANKS):
            (self.tmp / f"d{r}").write_bytes(os.urandom((r + 1) * 64 * 1024))
        self.write("job.fio", f"[r]\nioengine=psync\nbs=4k\nrw=read\nfilename={self.tmp}/d${{IOPLAN_READ_RANK}}\n")
        p = mpirun_on_two_hosts(RANKS, ["--output-format=json", "--rank-shift=1", "job.fio"], self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        ranks = json.loads(p.stdout)["ioplan"]["ranks"]
        hosts = [r["host"] for r in ranks]
        self.assertEqual(hosts, ["node0", "node0", "node1", "node1"])
        for r in range(RANKS):
            read_rank = (r + 2) % RANKS
            self.assertNotEqual(hosts[read_rank], hosts[r])
            self.assertEqual(ranks[r]["jobs"][0]["read"]["io_bytes"], (read_rank + 1) * 64 * 1024, f"rank {r}")


if __name__ == "__main__":
    unittest.main()
