"""tests/e2e/test_mpi_live.py - the world while it runs: interim reports and the status line.

Real `mpirun -np 3` ranks, a 3 s time-based job, --status-interval=1: rank 0
alone prints the reports of the results so far, each the merge of every
rank's snapshot (its per-rank rows add up to its totals), so stdout (or the
--output file) is a sequence of whole JSON documents, about one per second
and then the final one; and one status line for the world (--eta=always),
counting every rank's jobs, where each rank printed its own before.  A
stopped rank holds neither the others' I/O nor rank 0's reports up: it is left
out of them (ENODATA in its row) while the others' counts go on growing.
--bandwidth-log is written once, by rank 0, with the world's bandwidth.
"""
import errno
import json
import os
import re
import signal
import unittest

from common import TmpDirCase
from test_mpi import MPIRUN, mpirun, mpirun_started, rank_pid, wait_until

RANKS = 3
RUNTIME_S = 3
JOB = ("[r]\nioengine=psync\nbs=4k\nsize=256k\nrw=randread\nfilename=f${IOPLAN_RANK}\n"
       f"time_based\nruntime={RUNTIME_S}\nrate_iops=300\n")


def documents(text):
    """Every JSON document of a stream, in order; fails on anything else."""
    out, at, dec = [], 0, json.JSONDecoder()
    while True:
        while at < len(text) and text[at].isspace():
            at += 1
        if at == len(text):
            return out
        doc, at = dec.raw_decode(text, at)
        out.append(doc)


def ios(doc):
    return doc["jobs"][0]["read"]["total_ios"]


def rank_ios(doc):
    """Each rank's I/O count in a report (0 for a rank left out of it: no jobs)."""
    return {row["rank"]: row["jobs"][0]["read"]["total_ios"] if row["jobs"] else 0
            for row in doc["ioplan"]["ranks"]}


@unittest.skipUnless(MPIRUN, "mpirun is not installed (Debian: openmpi-bin)")
class LiveWorld(TmpDirCase):
    def run_world(self, *extra):
        self.write("job.fio", JOB)
        p = mpirun(RANKS, ["--output-format=json", *extra, "job.fio"], self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        return p

    def assert_merged_stream(self, text):
        docs = documents(text)  # one parseable stream: no rank's report cut into another's
        interims, final = docs[:-1], docs[-1]
        # About runtime / interval reports (ticks at 1, 2, 3 s of a run that also lays out).
        self.assertGreaterEqual(len(interims), RUNTIME_S - 1, [ios(d) for d in docs])
        self.assertLessEqual(len(interims), RUNTIME_S + 1, [ios(d) for d in docs])
        prev = {r: 0 for r in range(RANKS)}
        for n, doc in enumerate(docs):
            per_rank = rank_ios(doc)
            self.assertEqual(sorted(per_rank), list(range(RANKS)), f"report {n}: every rank in it")
            self.assertEqual(sum(per_rank.values()), ios(doc), f"report {n}: the world is the sum of the ranks")
            for r in range(RANKS):
                self.assertTrue(all(row["error"] == 0 for row in doc["ioplan"]["ranks"]), f"report {n}")
                self.assertGreaterEqual(per_rank[r], prev[r], f"report {n}, rank {r}: counts only grow")
            prev = per_rank
        # Every rank's live count reaches rank 0's reports, not only its last: each rank
        # shows I/O in an interim report.  Not in every one: the first tick counts from
        # the start of the process, and under load it came before rank 0's first I/O.
        for r in range(RANKS):
            self.assertGreater(rank_ios(final)[r], 0, f"rank {r} has done I/O")
            self.assertTrue(any(rank_ios(d)[r] > 0 for d in interims),
                            f"rank {r} shows I/O in an interim report: {[rank_ios(d) for d in interims]}")
        totals = [ios(d) for d in interims]
        # Two reports in a row may show one count: a rank held off the CPU answers two asks
        # with one snapshot (876, 876, 2413 in a loaded run).  Over the run the count grows.
        self.assertEqual(totals, sorted(totals), "the world's count never goes back")
        if len(totals) > 1:
            self.assertLess(totals[0], totals[-1], "the world's count grows over the reports")
        self.assertGreaterEqual(ios(final), totals[-1])
        self.assertTrue(all(d["ioplan"]["world"]["nranks"] == RANKS for d in docs))
        return docs

    def test_status_interval_reports_are_rank_0s_merge_of_every_rank(self):
        p = self.run_world("--status-interval=1")
        self.assert_merged_stream(p.stdout)

    def test_output_file_holds_every_merged_report(self):
        p = self.run_world("--status-interval=1", "--output=out.json")
        self.assertEqual(p.stdout.strip(), "")
        self.assert_merged_stream((self.tmp / "out.json").read_text())

    def test_one_status_line_for_the_world(self):
        p = self.run_world("--eta=always", "--eta-interval=250ms")
        lines = [l.strip() for l in re.split(r"[\r\n]", p.stderr) if l.strip().startswith("Jobs:")]
        counts = [int(re.match(r"Jobs: (\d+) \(f=(\d+)\)", l).group(1)) for l in lines]
        # Every rank's job counts on rank 0's line; each rank drew only its own before.
        self.assertIn(RANKS, counts, lines)
        self.assertLessEqual(max(counts), RANKS, lines)
        self.assertTrue(any(f"[r({RANKS})]" in l for l in lines), lines)  # every rank's thread states
        # And their I/O: rate_iops=300 per rank, so the world's line passes 450 where a rank's stays near 300.
        iops = [int(m.group(1)) for l in lines for m in [re.search(r"\[r=(\d+) IOPS\]", l)] if m]
        self.assertGreater(max(iops), 450, lines)
        self.assertEqual(len(documents(p.stdout)), 1)

    def test_bandwidth_log_is_rank_0s_with_the_worlds_bandwidth(self):
        self.run_world("--bandwidth-log")
        rows = [[int(f) for f in line.split(",")] for line in (self.tmp / "agg-read_bw.log").read_text().splitlines()]
        self.assertGreaterEqual(len(rows), 2, rows)
        self.assertTrue(all(len(r) == 5 and r[2] == 0 for r in rows), rows)
        # rate_iops=300 of 4 KiB a rank: 1200 KiB/s each, 3600 for the world (one rank's file, written over
        # by the others, said ~1200 before).
        kib_s = sorted(r[1] for r in rows)
        self.assertGreater(kib_s[len(kib_s) // 2], 1800, rows)

    def test_json_eta_is_the_time_the_last_rank_has_left(self):
        # Rank 0's 128 writes take 0.13 s, rank 1's 6.4 s (rate_iops=20).  Each report so far's eta
        # was rank 0's alone: 0 from 3 s on while rank 1 still had seconds to go, where a
        # single process prints its time left (fio's thread_eta).  Now the longest of the
        # ranks' estimates: with 40 or more writes left at 20 a second, 2 s or more remain.
        self.write("job.fio", "[w]\nioengine=null\nbs=4k\nrw=write\nsize=512k\ninclude rate-${IOPLAN_RANK}.fio\n")
        self.write("rate-0.fio", "rate_iops=1000\n")
        self.write("rate-1.fio", "rate_iops=20\n")
        p = mpirun(2, ["--output-format=json", "--status-interval=1", "job.fio"], self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        docs = documents(p.stdout)
        seen = [(d["jobs"][0]["elapsed"], d["jobs"][0]["eta"], d["ioplan"]["ranks"][1]["jobs"][0]["write"]["total_ios"])
                for d in docs[:-1] if d["ioplan"]["ranks"][1]["jobs"]]
        going = [(elapsed, eta) for elapsed, eta, done in seen if elapsed >= 3 and 128 - done >= 40]
        self.assertTrue(going, seen)  # a slower machine only adds reports
        for elapsed, eta in going:
            self.assertGreaterEqual(eta, 1, seen)
            self.assertLess(eta, 2147483647, seen)
        self.assertEqual(docs[-1]["jobs"][0]["eta"], 0)

    def test_a_stopped_rank_is_left_out_and_holds_no_report_up(self):
        self.write("job.fio", JOB.replace(f"runtime={RUNTIME_S}", "runtime=30"))
        proc = mpirun_started(RANKS, ["--output-format=json", "--status-interval=1", "--rank-timeout=3",
                                      "--output=out.json", "job.fio"], self.tmp)
        self.addCleanup(lambda: proc.poll() is None and proc.kill())
        out = self.tmp / "out.json"

        def reports():
            try:
                return documents(out.read_text())
            except (OSError, ValueError):  # not written yet, or a report half written
                return []
        wait_until("a first merged report", lambda: len(reports()) >= 1, proc)
        pid = rank_pid(proc.pid, 2)
        self.assertIsNotNone(pid)
        self.addCleanup(lambda: os.path.exists(f"/proc/{pid}") and os.kill(pid, signal.SIGKILL))
        os.kill(pid, signal.SIGSTOP)
        stopped_at = len(reports())
        # Reports go on, about one a second plus the grace for rank 2's answer.  A rank's row
        # is its snapshot when it answered: a rank held off the CPU for a second answers two
        # asks at once, with one count, so its I/O going on is waited for over later reports.
        wait_until("a report after the stop", lambda: len(reports()) >= stopped_at + 2, proc, timeout=30)
        first = rank_ios(reports()[stopped_at + 1])

        def both_went_on():
            last = reports()[-1]
            return all(rank_ios(last)[r] > first[r] for r in (0, 1))
        wait_until("a report where ranks 0 and 1 did more I/O", both_went_on, proc, timeout=30)
        for doc in reports()[stopped_at + 1:]:
            rows = {row["rank"]: row for row in doc["ioplan"]["ranks"]}
            self.assertEqual(rows[2]["error"], errno.ENODATA, "rank 2 is left out")
            self.assertEqual(sum(rank_ios(doc).values()), ios(doc))
        os.kill(pid, signal.SIGKILL)
        proc.communicate(timeout=60)
        self.assertNotEqual(proc.returncode, 0)



if __name__ == "__main__":
    unittest.main()
