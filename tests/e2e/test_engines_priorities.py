"""tests/e2e/test_engines_priorities.py - prio, prioclass and the cmdprio options of libaio
and io_uring, through the binary and against fio 3.33 on the same jobs.

What a user relies on: the share of I/Os sent at the high priority is the share
asked for (cmdprio_percentage, per direction), cmdprio_bssplit gives each block
size its priorities, the latency per priority ("prios" in JSON, "clat prio C/L"
lines in normal output) has fio's layout and adds up to the direction's own
latency, the log's priority column says which priority each I/O had, and bad
values are refused with the position of the value.

The real-time class needs CAP_SYS_NICE (fio's cmdprio tests need root too):
without it these tests are skipped.
"""
import csv
import json
import math
import os
import shutil
import subprocess
import unittest

import jsonschema

from common import BIN, FIO, ROOT as REPO, TmpDirCase, run, run_fio

ROOT = os.geteuid() == 0
RESULT_SCHEMA = json.loads((REPO / "schema/result.schema.json").read_text())

JOB = """[global]
ioengine=libaio
filename={path}
size=16m
bs=4k
randrepeat=0
{extra}
[p]
"""


def doc(stdout):
    return json.loads(stdout[stdout.index("{"):])


def prios(ddir):
    """(prioclass, prio, key, N) of each entry of a direction's "prios"."""
    out = []
    for p in ddir.get("prios", []):
        key = [k for k in p if k.endswith("_ns")][0]
        out.append((p["prioclass"], p["prio"], key, p[key]["N"]))
    return out


@unittest.skipUnless(ROOT, "the real-time class needs CAP_SYS_NICE")
class CmdprioPercentage(TmpDirCase):
    def job(self, runner, extra, fmt="json+"):
        # Each program its own file: ioplan does not write into one fio laid out.
        self.write("p.fio", JOB.format(path=self.tmp / ("fio" if runner is run_fio else "ioplan"), extra=extra))
        p = runner([f"--output-format={fmt}", "p.fio"], cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        # "prios" is in the published schema (which has no unified_rw_reporting "mixed" layout yet).
        if runner is run and fmt.startswith("json") and "unified_rw_reporting" not in extra:
            jsonschema.validate(doc(p.stdout), RESULT_SCHEMA)
        return p.stdout

    def check_share(self, d, ddir, pct, key="clat_ns"):
        ps = prios(d["jobs"][0][ddir])
        self.assertEqual([(c, l, k) for c, l, k, _ in ps], [(0, 0, key), (1, 0, key)])
        total = d["jobs"][0][ddir][key]["N"]
        self.assertEqual(sum(n for *_, n in ps), total)
        # Each I/O draws its class (randrepeat=0: a new seed each run), so the share is
        # binomial: within 5 standard deviations (0.72 points at 4096 reads and 30%, 1.08
        # at randrw's ~2048 writes and 40%), where 4 points held, and once, under make
        # test-loaded, a -4.0 sigma run did not (727 of 2041; 200 runs: mean 0.0, sd 1.02).
        p = pct / 100
        self.assertAlmostEqual(ps[1][3] / total, p, delta=5 * math.sqrt(p * (1 - p) / total))

    def test_share_of_high_priority_ios_is_the_percentage(self):
        d = doc(self.job(run, "rw=randread\ncmdprio_percentage=30"))
        self.check_share(d, "read", 30)
        r = d["jobs"][0]["read"]
        # Merged, the priorities give the direction's own numbers (fio's harness check).
        self.assertEqual(min(p["clat_ns"]["min"] for p in r["prios"]), r["clat_ns"]["min"])
        self.assertEqual(max(p["clat_ns"]["max"] for p in r["prios"]), r["clat_ns"]["max"])
        bins = {}
        for p in r["prios"]:
            for k, v in p["clat_ns"]["bins"].items():
                bins[k] = bins.get(k, 0) + v
        self.assertEqual(bins, r["clat_ns"]["bins"])

    def test_lat_percentiles_puts_total_latency_per_priority(self):
        d = doc(self.job(run, "rw=randread\ncmdprio_percentage=50\nlat_percentiles=1"))
        self.check_share(d, "read", 50, key="lat_ns")

    def test_per_direction_values(self):
        d = doc(self.job(run, "rw=randrw\ncmdprio_percentage=0,40"))
        self.assertNotIn("prios", d["jobs"][0]["read"])
        self.check_share(d, "write", 40)

    def test_a_write_s_trim_and_its_priority_are_drawn_apart(self):
        # trim_percentage and cmdprio_percentage each draw per write; from one stream
        # (as they once did) every trimmed write was the high-priority one and no kept
        # write was.  The lat log's priority column and its trims (ddir 2) show both.
        p = run(["--name=t", "--ioengine=libaio", "--rw=write", "--size=4m", "--bs=4k", "--verify=crc32c",
                 "--trim_percentage=50", "--trim_backlog=1", "--cmdprio_percentage=50", "--write_lat_log=x",
                 "--log_offset=1", "--log_prio=1", f"--filename={self.tmp / 'f'}", "--output-format=json"],
                cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(self.tmp / "x_lat.1.log") as f:
            rows = [line.split(", ") for line in f]
        high = {int(r[4]): int(r[5], 16) != 0 for r in rows if r[2] == "1"}
        trimmed = {int(r[4]) for r in rows if r[2] == "2"}
        kept = high.keys() - trimmed
        self.assertEqual(len(high), 1024)
        self.assertGreater(len(trimmed), 400)
        # ~50% in each group: about 2.2 and 2.2 points of deviation; the old draw gave 100% and 0%.
        self.assertAlmostEqual(sum(high[o] for o in trimmed) / len(trimmed), 0.5, delta=0.15)
        self.assertAlmostEqual(sum(high[o] for o in kept) / len(kept), 0.5, delta=0.15)

    def test_io_uring_shares_too(self):
        self.check_share(doc(self.job(run, "rw=randread\nioengine=io_uring\ncmdprio_percentage=30")), "read", 30)

    def test_no_cmdprio_no_prios(self):
        d = doc(self.job(run, "rw=randread"))
        self.assertNotIn("prios", d["jobs"][0]["read"])

    def test_normal_output_has_fios_priority_lines(self):
        out = self.job(run, "rw=randread\ncmdprio_percentage=30", fmt="normal")
        self.assertRegex(out, r"\n    clat prio 0/0 \((n|u|m)sec\): min=")
        self.assertRegex(out, r"\n    clat prio 1/0 \((n|u|m)sec\): min=")
        self.assertRegex(out, r"\n    clat prio 1/0 \(\d+\.\d\d% of IOs\) percentiles \((n|u|m)sec\):\n")

    @unittest.skipUnless(FIO, "fio is not installed")
    def test_same_layout_as_fio(self):
        for extra in ("rw=randread\ncmdprio_percentage=30", "rw=randrw\ncmdprio_percentage=20,60\nlat_percentiles=1",
                      "rw=randrw\ncmdprio_percentage=50\nunified_rw_reporting=1"):
            with self.subTest(extra=extra):
                mine, theirs = doc(self.job(run, extra)), doc(self.job(run_fio, extra))
                if "randread" in extra:	# fio draws the same share
                    self.check_share(theirs, "read", 30)
                for ddir in ("read", "write", "mixed"):
                    a, b = mine["jobs"][0].get(ddir, {}), theirs["jobs"][0].get(ddir, {})
                    self.assertEqual(list(a), list(b), ddir)
                    self.assertEqual([p[:3] for p in prios(a)], [p[:3] for p in prios(b)], ddir)
                    for pa, pb in zip(a.get("prios", []), b.get("prios", [])):
                        self.assertEqual(list(pa), list(pb))
                        for k in pa:
                            if k.endswith("_ns"):
                                self.assertEqual(list(pa[k]), list(pb[k]))
                # Size-bound: the same bytes in all (the read/write split is random, randrepeat=0).
                self.assertEqual(sum(mine["jobs"][0].get(k, {}).get("io_bytes", 0) for k in ("read", "write", "mixed")),
                                 sum(theirs["jobs"][0].get(k, {}).get("io_bytes", 0) for k in ("read", "write", "mixed")))


@unittest.skipUnless(ROOT, "the real-time class needs CAP_SYS_NICE")
class CmdprioBssplit(TmpDirCase):
    def log_prios(self, runner):
        job = JOB.format(path=self.tmp / ("fio" if runner is run_fio else "ioplan"), extra="rw=randread\nbssplit=4k/50:8k/50\n"
                         "cmdprio_bssplit=4k/100/3/2:8k/0\nwrite_lat_log=pl\nlog_prio=1\niodepth=4")
        self.write("b.fio", job)
        p = runner(["--output-format=json", "b.fio"], cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        seen = {}
        with open(self.tmp / "pl_clat.1.log") as f:
            for row in csv.reader(f):
                seen.setdefault(int(row[3]), set()).add(row[4].strip())
        return doc(p.stdout), seen

    def test_each_block_size_gets_its_priority(self):
        d, seen = self.log_prios(run)
        # Every 4k read at class 3 level 2 (0x6002), every 8k one at the thread's (none).
        self.assertEqual(seen, {4096: {"0x6002"}, 8192: {"0x0000"}})
        ps = prios(d["jobs"][0]["read"])
        self.assertEqual([(c, l) for c, l, *_ in ps], [(0, 0), (3, 2)])

    @unittest.skipUnless(FIO, "fio is not installed")
    def test_fio_logs_the_same_priorities(self):
        _, seen = self.log_prios(run_fio)
        self.assertEqual(seen, {4096: {"0x6002"}, 8192: {"0x0000"}})


class Repeat(TmpDirCase):
    def test_latency_of_another_run_brings_its_priorities(self):
        # repeat_aggregate=max takes the latency of the fastest run: per priority too, so they still add up.
        p = run(["--name=r", f"--directory={self.tmp}", "--ioengine=libaio", "--rw=randread", "--size=4m",
                 "--cmdprio_class=2", "--cmdprio_percentage=40", "--repeat=5", "--repeat_aggregate=max",
                 "--output-format=json"], cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        r = doc(p.stdout)["jobs"][0]["read"]
        self.assertEqual(sum(x["clat_ns"]["N"] for x in r["prios"]), r["clat_ns"]["N"])
        self.assertEqual(min(x["clat_ns"]["min"] for x in r["prios"]), r["clat_ns"]["min"])
        self.assertEqual(max(x["clat_ns"]["max"] for x in r["prios"]), r["clat_ns"]["max"])


class ThreadPriority(TmpDirCase):
    GROUP = """[global]
ioengine=null
size=64m
bs=4k
group_reporting=1
[a]
prioclass=2
prio=1
[b]
prioclass=2
prio=5
"""

    def test_group_of_different_priorities_reports_each(self):
        # fio's init_per_prio_stats: a group whose members' priorities differ keeps them apart.
        self.write("g.fio", self.GROUP)
        p = run(["--output-format=json", "g.fio"], cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        r = doc(p.stdout)["jobs"][0]["read"]
        self.assertEqual([(c, l, n) for c, l, _, n in prios(r)], [(2, 1, 16384), (2, 5, 16384)])
        if FIO:
            q = run_fio(["--output-format=json", "g.fio"], cwd=self.tmp)
            self.assertEqual(prios(doc(q.stdout)["jobs"][0]["read"]), prios(r))


@unittest.skipUnless(ROOT and shutil.which("setpriv"), "needs root and setpriv to drop the capability")
class WithoutCapability(TmpDirCase):
    """The real-time class without CAP_SYS_NICE (nor CAP_SYS_ADMIN): the job fails with EPERM, as fio's."""

    DROP = ["setpriv", "--bounding-set=-sys_nice,-sys_admin", "--inh-caps=-sys_nice,-sys_admin"]

    def failed(self, opt, engine="libaio"):
        p = subprocess.run([*self.DROP, BIN, "--name=p", f"--filename={self.tmp / 'f'}", f"--ioengine={engine}",
                            "--rw=randread", "--size=1m", opt], capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 1, p.stdout)
        return p.stderr

    def test_cmdprio_submit_is_refused(self):
        self.assertIn("submit: Operation not permitted", self.failed("--cmdprio_percentage=50"))

    def test_io_uring_sqes_carry_the_priority(self):
        # The kernel checks each SQE's ioprio: the refused reads show the field is set.
        self.assertIn("read: Operation not permitted", self.failed("--cmdprio_percentage=50", "io_uring"))

    def test_prioclass_is_refused(self):
        self.assertIn("ioprio_set (prio/prioclass): Operation not permitted", self.failed("--prioclass=1"))


class BadValues(TmpDirCase):
    def diag(self, line):
        self.write("j.fio", f"[j]\nioengine=libaio\nsize=1m\n{line}\n")
        p = run(["--parse-only", "j.fio"], cwd=self.tmp)
        self.assertEqual(p.returncode, 2, p.stdout)
        return p.stderr.splitlines()[0]

    def test_positioned_errors(self):
        cases = {
            "prio=8": "j.fio:4:6: error: prio=8 is out of range (0..7)",
            "prioclass=4": "j.fio:4:11: error: prioclass=4 is out of range (0..3)",
            "cmdprio_percentage=101": "j.fio:4:20: error: cmdprio_percentage=101 is out of range (0..100 %)",
            "cmdprio_class=0": "j.fio:4:15: error: cmdprio_class=0 is out of range (1..3)",
            "cmdprio=8": "j.fio:4:9: error: cmdprio=8 is out of range (0..7)",
            "cmdprio_bssplit=4k/50/1/9": "j.fio:4:25: error: cmdprio_bssplit: level 9 is not within 0..7",
            "cmdprio_bssplit=4k/50/1": "j.fio:4:17: error: cmdprio_bssplit: '4k/50/1' is not bs/percent or "
                                       "bs/percent/class/level",
            "cmdprio_bssplit=4k/60:4k/60": "j.fio:4:17: error: cmdprio_bssplit: the percentages of block size 4096 "
                                           "add up to 120 (more than 100)",
            "cmdprio_bssplit=4k/10,x/5": "j.fio:4:23: error: cmdprio_bssplit: block size 'x' is not a size",
        }
        for line, want in cases.items():
            with self.subTest(line=line):
                self.assertEqual(self.diag(line), want)

    def test_modes_exclude_each_other(self):
        self.assertEqual(self.diag("cmdprio_percentage=5\ncmdprio_bssplit=4k/10"),
                         "j.fio:5:17: error: job 'j': cmdprio_percentage and cmdprio_bssplit are mutually exclusive")

    def test_engine_options_of_libaio_and_io_uring_only(self):
        self.write("j.fio", "[j]\nioengine=psync\nsize=1m\ncmdprio_percentage=5\n")
        p = run(["--parse-only", "j.fio"], cwd=self.tmp)
        self.assertEqual(p.returncode, 2)
        self.assertIn("cmdprio_percentage is an option of ioengine=libaio,io_uring, not of ioengine=psync", p.stderr)


class FioExamples(TmpDirCase):
    """Job files of the same shape as fio 3.33's examples/cmdprio-*.fio, shrunk to a scratch file."""

    PERCENTAGE = """[global]
filename={path}
size=8m
write_lat_log=prio-run.log
log_prio=1
[randread]
rw=randread
bs=128k
ioengine=libaio
iodepth=8
prioclass=3
cmdprio_percentage=20
cmdprio_class=1
"""

    @unittest.skipUnless(ROOT and FIO, "needs root (real-time class) and fio")
    def test_percentage_example_moves_fios_bytes(self):
        self.write("e.fio", self.PERCENTAGE.format(path=self.tmp / "data"))
        got = []
        for runner in (run, run_fio):
            (self.tmp / "data").unlink(missing_ok=True)
            p = runner(["--output-format=json", "e.fio"], cwd=self.tmp)
            self.assertEqual(p.returncode, 0, p.stderr)
            j = doc(p.stdout)["jobs"][0]
            got.append((j["read"]["io_bytes"], j["write"]["io_bytes"], [c for c, *_ in prios(j["read"])]))
        self.assertEqual(got[0], got[1])
        self.assertEqual(got[0][2], [3, 1])


if __name__ == "__main__":
    unittest.main()
