"""tests/e2e/test_worker_flow.py - flow=, flow_id=, flow_sleep=, io_submit_mode=offload and
serialize_overlap through the binary, against fio 3.33 on the same job files.

fio's own harness checks the same properties (t0010-t0014): jobs of one flow_id
complete I/Os in the ratio of their weights, a rate-limited member keeps its
rate, offload and serialize_overlap jobs run and finish.  (fio 3.33 itself did not
finish the shrunk t0013 job below, loops=2000 or runtime=2, in 120 s here, so
that one has no fio twin.)
"""
import json
import unittest

from common import FIO, TmpDirCase, run, run_fio


FLOW_JOB = """[global]
ioengine=null
bs=4k
size=100g
runtime=2
time_based
flow_id=1
{extra}
[flow1]
flow=1
{first}
[flow2]
flow=8
"""


def read_iops(stdout):
    d = json.loads(stdout[stdout.index("{"):])
    return [j["read"]["iops"] for j in d["jobs"]]


class Flow(TmpDirCase):
    def ratio(self, runner, **kw):
        self.write("f.fio", FLOW_JOB.format(extra=kw.get("extra", ""), first=kw.get("first", "")))
        p = runner(["--output-format=json", "f.fio"], cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        a, b = read_iops(p.stdout)
        return a, b

    def test_weights_share_the_flow(self):
        a, b = self.ratio(run)
        self.assertAlmostEqual(b / a, 8.0, delta=0.8)

    def test_a_rate_limited_member_keeps_its_rate_and_the_other_follows(self):
        # fio's t0011: flow=1 at rate_iops=1000 and flow=8 unlimited: ~1000 and ~8000.
        a, b = self.ratio(run, first="rate_iops=1000")
        self.assertAlmostEqual(a, 1000, delta=50)
        self.assertAlmostEqual(b / a, 8.0, delta=1.0)

    def test_flow_sleep_keeps_the_ratio(self):
        a, b = self.ratio(run, extra="flow_sleep=100")
        self.assertAlmostEqual(b / a, 8.0, delta=0.8)

    @unittest.skipUnless(FIO, "fio is not installed")
    def test_fio_runs_the_same_flow_jobs(self):
        # The oracle's own flow holds the weights only as the machine lets it: a member
        # ahead of its share sleeps flow_sleep and checks again, so fio's ratio follows
        # the machine's moment (9.77 for 8 in an idle make test, 17.1 at load 9, 0.90 in a
        # make test on 2026-12-04).  A ratio asked of fio tested the machine, not ioplan.
        # What fio answers for sure is the file's meaning: the same jobs, each doing I/O;
        # ioplan's own tests above hold its ratio to 10%.
        ours, theirs = (self.ratio(tool) for tool in (run, run_fio))
        self.assertEqual(len(ours), len(theirs))
        self.assertTrue(all(x > 0 for x in ours + theirs), (ours, theirs))

    def test_bad_weight_is_a_positioned_error(self):
        self.write("b.fio", "[j]\nioengine=null\nsize=1m\nflow=1001\n")
        p = run(["--parse-only", "b.fio"], cwd=self.tmp)
        self.assertEqual(p.returncode, 2)
        self.assertEqual(p.stderr.splitlines()[0], "b.fio:4:6: error: flow=1001 is out of range (0..1000)")


class Submission(TmpDirCase):
    JOB = "[t]\nioengine=null\nthread=1\nsize=4k\nbs=4k\niodepth={depth}\nio_submit_mode=offload\n" \
          "serialize_overlap=1\nnumjobs=4\nloops=2000\n"

    def test_offload_and_serialize_overlap_run_every_io(self):
        # fio's t0013, shrunk: each clone reads its 4 KiB block 2000 times.
        for depth in (1, 8):
            self.write("s.fio", self.JOB.format(depth=depth))
            p = run(["--output-format=json", "s.fio"], cwd=self.tmp)
            self.assertEqual(p.returncode, 0, p.stderr)
            d = json.loads(p.stdout)
            self.assertEqual([j["read"]["total_ios"] for j in d["jobs"]], [2000] * 4)

    def test_unknown_submit_mode_is_a_positioned_error(self):
        self.write("b.fio", "[j]\nioengine=null\nsize=1m\nio_submit_mode=later\n")
        p = run(["--parse-only", "b.fio"], cwd=self.tmp)
        self.assertEqual(p.returncode, 2)
        self.assertTrue(p.stderr.startswith("b.fio:4:16: error:"), p.stderr)


class MaxLatency(TmpDirCase):
    """max_latency: an I/O slower than it fails the job with ETIMEDOUT (110), as fio 3.33."""

    def error_of(self, runner, limit):
        self.write("data", "x" * (1 << 20))
        p = runner(["--name=j", "--filename=data", "--size=1m", "--rw=read", f"--max_latency={limit}",
                    "--output-format=json"], cwd=self.tmp)
        return json.loads(p.stdout[p.stdout.index("{"):])["jobs"][0]["error"]

    def test_exceeded_fails_the_job_and_met_does_not(self):
        self.assertEqual(self.error_of(run, "1ns"), 110)
        self.assertEqual(self.error_of(run, "10s"), 0)

    @unittest.skipUnless(FIO, "fio is not installed")
    def test_fio_fails_the_same_job_the_same_way(self):
        self.assertEqual(self.error_of(run_fio, "1"), 110)
        self.assertEqual(self.error_of(run_fio, "10s"), 0)

    def test_bad_value_is_a_positioned_error(self):
        self.write("b.fio", "[j]\nioengine=null\nsize=1m\nmax_latency=fast\n")
        p = run(["--parse-only", "b.fio"], cwd=self.tmp)
        self.assertEqual(p.returncode, 2)
        self.assertTrue(p.stderr.startswith("b.fio:4:13: error:"), p.stderr)


if __name__ == "__main__":
    unittest.main()
