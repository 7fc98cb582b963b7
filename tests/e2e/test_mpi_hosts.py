"""tests/e2e/test_mpi_hosts.py - the fleet read as hosts: roll-ups, stragglers, first and last done.

Real `mpirun -np 4` ranks on two "hosts" (each rank in its own UTS namespace,
ranks 0 and 1 named node0, 2 and 3 node1).  Each rank is rate-limited through
an environment variable its wrapper sets (`rate=${RATE}`: a substitution,
which the ranks' plan check allows to differ), and rank 3 really runs at a
quarter of the others' rate.  The report rolls the ranks up per host (its
latency percentiles those of its ranks' buckets together, as `ioplan merge`
of that host's rank files gives them), flags rank 3 alone as the straggler
(in a size-bound group by its time, in a time-bound one by what it moved),
none when every rank runs at one rate, and dates the group's first and last
done on the common clock with what every rank had moved by the first.
"""
import json
import os
import subprocess
import unittest

from common import BIN, TmpDirCase, run
from test_mpi import MPI_ENV, MPIRUN, mpirun
from test_run import jobs_json

RANKS = 4
MIB = 1024 * 1024
FAST, SLOW = 2 * MIB, MIB // 2      # bytes/s: rank 3 at a quarter of the others' rate
INTERVAL_S = 0.1                    # bwavgtime: what bytes-by-first-done is exact to


def mpirun_hosts(args, cwd, slow_rank=3):
    """4 ranks on hosts node0 (ranks 0, 1) and node1 (2, 3); rank slow_rank at rate SLOW."""
    env = dict(os.environ)
    env.update(MPI_ENV)
    wrapper = ('hostname node$((OMPI_COMM_WORLD_RANK / 2)) && '
               f'if [ "$OMPI_COMM_WORLD_RANK" = {slow_rank} ]; then export RATE={SLOW}; else export RATE={FAST}; fi && '
               'exec "$0" "$@"')
    return subprocess.run([MPIRUN, "--oversubscribe", "-np", str(RANKS), "unshare", "--uts", "sh", "-c", wrapper,
                           BIN, *args], start_new_session=True, cwd=cwd, capture_output=True, text=True, timeout=120, env=env)


@unittest.skipUnless(MPIRUN, "mpirun is not installed (Debian: openmpi-bin)")
class Hosts(TmpDirCase):
    def job(self, time_group=False):
        for r in range(RANKS):
            (self.tmp / f"r{r}").mkdir(exist_ok=True)
        (self.tmp / "out").mkdir(exist_ok=True)
        body = (f"[global]\nioengine=psync\nbs=64k\nrw=write\nrate=${{RATE}}\nbwavgtime={int(INTERVAL_S * 1000)}\n"
                f"directory={self.tmp}/r${{IOPLAN_RANK}}\n[size]\nsize=2m\n")
        if time_group:
            body += "[time]\nstonewall\nsize=2m\ntime_based\nruntime=1\n"
        self.write("job.fio", body)
        return ["--rank-output=" + str(self.tmp / "out"), "job.fio"]

    def merge(self, *args, files=range(RANKS)):
        p = run(["merge", *args, *[str(self.tmp / "out" / f"rank-{r}.json") for r in files]])
        self.assertEqual(p.returncode, 0, p.stderr)
        return p

    def test_a_slow_rank_is_flagged_and_the_group_dated_by_its_first_and_last_done(self):
        p = mpirun_hosts(["--output-format=json", *self.job(time_group=True)], self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        io = jobs_json(p.stdout)["ioplan"]  # valid by schema/result.schema.json
        size, timed = io["world"]["groups"]
        # Straggler: rank 3 alone, in both groups: 4x the others' time for its 2 MiB,
        # a quarter of their bytes in the same second.
        self.assertEqual(io["world"]["straggler_threshold_pct"], 25)
        for g in (size, timed):
            self.assertEqual([s["rank"] for s in g["stragglers"]], [3], g)
            self.assertEqual(g["stragglers"][0]["host"], "node1")
            self.assertGreater(g["slower_pct"][3], 150, g)
            self.assertTrue(all(abs(x) < 25 for x in g["slower_pct"][:3]), g)
        # First done: a fast rank, after about 1 s; last done: rank 3, about 4 s.
        t1 = (size["first_done_ns"] - size["start_ns"]) / 1e9
        t2 = (size["last_done_ns"] - size["start_ns"]) / 1e9
        self.assertIn(size["first_done_rank"], (0, 1, 2))
        self.assertEqual(size["last_done_rank"], 3)
        self.assertGreater(t2 / t1, 3, size)
        # On the common clock: the rank rows' own ends.
        self.assertEqual(io["hosts"][1]["jobs"][0]["end_ns"], size["last_done_ns"])
        # By first done every fast rank had moved its 2 MiB and rank 3 its rate's worth:
        # to one interval of every rank's rate.
        want = 3 * 2 * MIB + SLOW * t1
        self.assertLess(abs(size["first_done_io_bytes"] - want), RANKS * FAST * INTERVAL_S, (size, want))
        self.assertEqual(size["first_done_bw_bytes"], int(size["first_done_io_bytes"] / t1))
        self.assertEqual(size["io_bytes"], RANKS * 2 * MIB)
        self.assertEqual(size["last_done_bw_bytes"], int(size["io_bytes"] / t2))
        # The same figures from the rank files; the threshold is --straggler-threshold.
        merged = json.loads(self.merge("--output-format=json").stdout)["ioplan"]["world"]["groups"]
        self.assertEqual([[s["rank"] for s in g["stragglers"]] for g in merged], [[3], [3]])
        for pct in ("0", "1000"):
            merged = json.loads(self.merge("--output-format=json", "--straggler-threshold=" + pct).stdout)
            self.assertEqual([g["stragglers"] for g in merged["ioplan"]["world"]["groups"]], [[], []], pct)
        text = self.merge().stdout
        lines = {ln.split(":")[0].strip(): ln for ln in text.splitlines() if ln.startswith("  rank ")}
        self.assertIn("straggler: +", lines["rank 3 (node1)"])
        self.assertEqual(sum("straggler" in ln for ln in lines.values()), 1, text)
        self.assertRegex(text, r"group 0: first done \+\d+\.\d+ms \(rank [012], node[01]\), .* by then at .*; "
                               r"last done \+\d+\.\d+ms \(rank 3, node1\)")

    def test_equal_ranks_have_no_straggler(self):
        p = mpirun_hosts(["--output-format=json", *self.job()], self.tmp, slow_rank=-1)
        self.assertEqual(p.returncode, 0, p.stderr)
        g = json.loads(p.stdout)["ioplan"]["world"]["groups"][0]
        self.assertEqual(g["stragglers"], [], g)
        self.assertEqual(g["io_bytes"], RANKS * 2 * MIB)

    def test_each_host_rolls_up_its_ranks_and_its_latency_is_of_their_buckets(self):
        p = mpirun_hosts(["--output-format=json,normal", *self.job()], self.tmp, slow_rank=-1)
        self.assertEqual(p.returncode, 0, p.stderr)
        start = p.stdout.index("{")
        doc = json.JSONDecoder().raw_decode(p.stdout[start:])[0]
        text = p.stdout[:start] + p.stdout[start:].split("\n}\n", 1)[-1]
        io = doc["ioplan"]
        self.assertEqual(io["world"]["nhosts"], 2)
        self.assertEqual([(h["host"], h["nranks"], h["ranks"]) for h in io["hosts"]],
                         [("node0", 2, [0, 1]), ("node1", 2, [2, 3])])
        for h in io["hosts"]:
            mine = [io["ranks"][r]["jobs"][0] for r in h["ranks"]]
            job = h["jobs"][0]
            self.assertEqual(job["write"]["io_bytes"], sum(m["write"]["io_bytes"] for m in mine))
            self.assertEqual(job["write"]["total_ios"], 2 * 32)
            self.assertEqual(job["end_ns"] - job["first_io_ns"], job["runtime_ns"])
            self.assertEqual(job["write"]["bw_bytes"], int(job["write"]["io_bytes"] * 1e9 / job["runtime_ns"]))
            # The host's percentiles: those of its ranks' buckets together (ioplan merge
            # of that host's rank files alone), not any mean of the ranks'.
            alone = json.loads(self.merge("--partial", "--output-format=json", files=h["ranks"]).stdout)
            clat = alone["jobs"][0]["write"]["clat_ns"]
            self.assertEqual((job["lat_ns"]["N"], job["lat_ns"]["min"], job["lat_ns"]["max"]),
                             (clat["N"], clat["min"], clat["max"]))
            self.assertEqual(job["lat_ns"]["p50"], clat["percentile"]["50.000000"])
            self.assertEqual(job["lat_ns"]["p99"], clat["percentile"]["99.000000"])
            self.assertAlmostEqual(job["lat_ns"]["mean"], clat["mean"], places=2)
        self.assertRegex(text, r"host node0: 2 ranks, io=4096KiB, bw=\S+/s, iops=\d+, window=")
        self.assertRegex(text, r"host node1: 2 ranks, io=4096KiB")

    def test_a_bad_threshold_is_refused(self):
        for bad in ("-5", "x", "25x", ""):
            p = run(["--straggler-threshold=" + bad, "--name=a", "--size=4k", "--ioengine=null"])
            self.assertEqual(p.returncode, 2, bad)
            self.assertIn("--straggler-threshold needs a percentage", p.stderr)


@unittest.skipUnless(MPIRUN, "mpirun is not installed (Debian: openmpi-bin)")
class OneMachine(TmpDirCase):
    """Each CPU's usage (DISKSPD's CPU table), --idle-prof's idleness and the machine's
    description are rank 0's host's alone: every format says so when the ranks ran on
    several hosts.  Before, nothing did: node0's CPUs read as the world's."""

    SAYS = "are rank 0's host's (node0) alone, of 2 hosts; the jobs' figures are every rank's"

    def test_the_first_ranks_machine_is_named_as_the_only_one(self):
        for r in range(RANKS):
            (self.tmp / f"r{r}").mkdir()
        (self.tmp / "out").mkdir()
        self.write("job.fio", f"[w]\nioengine=null\nbs=4k\nsize=64k\nrw=write\n"
                              f"filename={self.tmp}/r${{IOPLAN_RANK}}/f\n")
        args = ["--idle-prof=system", f"--rank-output={self.tmp / 'out'}", "job.fio"]
        p = mpirun_hosts(["--output-format=json", *args], self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        warnings = jobs_json(p.stdout)["ioplan"]["warnings"]
        self.assertIn("the machine's own figures (each CPU's usage, the CPU idleness, the machine and its storage "
                      "stack) " + self.SAYS, warnings)
        p = mpirun_hosts(["--output-format=diskspd", *args], self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("\nWarnings:\n", p.stdout)
        self.assertIn(self.SAYS, p.stdout.split("\nWarnings:\n")[1])
        p = mpirun_hosts(args, self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("CPU idleness:", p.stdout)
        self.assertIn("ioplan: warning: the machine's own figures", p.stdout)
        p = run(["merge", *sorted(str(f) for f in (self.tmp / "out").glob("rank-*.json"))])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn(self.SAYS, p.stdout)
        # ranks of one host: its machine is the world's, nothing to say
        p = mpirun(2, ["--output-format=json", *args], self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertFalse([w for w in jobs_json(p.stdout)["ioplan"]["warnings"] if "machine's own" in w])


if __name__ == "__main__":
    unittest.main()
