"""tests/e2e/test_results_compare.py - `ioplan compare`: a verdict that knows its noise, and a CI gate.

Two runs of the null engine held to different rate_iops= limits differ by a
known factor, far beyond the noise of their per-interval samples: B at half
A's rate is "slower", and --fail-on-regression turns that into exit 1.  Runs
of different workloads (bs=, iodepth=...) are refused with the differences
named, unless --force.  fio 3.33's own result files compare too.
"""
import json
import math
import pathlib
import subprocess
import unicodedata
import unittest

from common import BIN, FIO, TmpDirCase, run

NULL = ["--name=n", "--ioengine=null", "--rw=read", "--bs=4k", "--size=1g", "--time_based",
        "--runtime=2"]


class Compare(TmpDirCase):
    def setUp(self):
        super().setUp()
        self.db = self.tmp / "results.db"

    def save(self, label, *extra, base=NULL):
        p = run([*base, *extra, "--output-format=json", f"--save={label}", f"--results-db={self.db}"])
        self.assertEqual(p.returncode, 0, p.stderr)

    def compare(self, *args):
        return run(["compare", *args, f"--results-db={self.db}"])

    def test_half_the_rate_is_slower_beyond_noise(self):
        self.save("fast", "--rate_iops=2000")
        self.save("slow", "--rate_iops=1000")
        p = self.compare("fast", "slow", "--output-format=json")
        self.assertEqual(p.returncode, 0, p.stderr)
        c = json.loads(p.stdout)
        self.assertEqual(c["confidence"], 0.95)
        iops = next(m for m in c["metrics"] if m["metric"] == "iops")
        self.assertEqual(iops["noise"], "samples")
        self.assertEqual(iops["verdict"], "slower")
        self.assertAlmostEqual(iops["change"], -0.5, delta=0.05)
        lo, hi = iops["interval"]
        self.assertLessEqual(lo, hi)  # a held rate gives equal samples: a zero-width interval
        self.assertLess(hi, 0)
        # the gate: worse by more than 10% and beyond the noise
        gate = self.compare("fast", "slow", "--fail-on-regression=10", "--metrics=iops,bw_bytes")
        self.assertEqual(gate.returncode, 1, gate.stdout)
        self.assertIn("regression: job n read iops", gate.stderr)
        self.assertIn("slower", gate.stdout)
        # the other way round it got faster: no regression
        # (the null engine's latency is scheduling noise between runs: throughput is what is gated here)
        self.assertEqual(self.compare("slow", "fast", "--fail-on-regression=10", "--metrics=iops").returncode, 0)
        # and a bound wider than the change passes too
        self.assertEqual(self.compare("fast", "slow", "--fail-on-regression=80", "--metrics=iops").returncode, 0)

    def test_same_workload_twice_is_no_measurable_difference(self):
        self.save("a", "--rate_iops=1000")
        self.save("b", "--rate_iops=1000")
        c = json.loads(self.compare("a", "b", "--output-format=json").stdout)
        iops = next(m for m in c["metrics"] if m["metric"] == "iops")
        self.assertEqual(iops["verdict"], "no measurable difference", iops)
        self.assertEqual(self.compare("a", "b", "--fail-on-regression=1", "--metrics=iops,bw_bytes").returncode, 0)
        shown = json.loads(self.compare("a", "b", "--metrics=iops", "--output-format=json").stdout)
        self.assertEqual([m["metric"] for m in shown["metrics"]], ["iops"])

    def test_repeats_are_the_noise_when_there_are_several(self):
        short = [a for a in NULL if not a.startswith("--runtime")] + ["--runtime=1"]
        self.save("a", "--rate_iops=2000", "--repeat=3", base=short)
        self.save("b", "--rate_iops=1000", "--repeat=3", base=short)
        c = json.loads(self.compare("a", "b", "--output-format=json").stdout)
        iops = next(m for m in c["metrics"] if m["metric"] == "iops")
        self.assertEqual((iops["noise"], iops["verdict"]), ("repeats", "slower"))

    def test_a_repeated_run_keeps_each_interval_once(self):
        """The series of repeat=N's runs were summed interval by interval, as a job's clones
        are: each stored sample of a repeat=3 run at 2000 IOPS read 6000, and compare
        found it +200% "faster" than the same job run once, whose figure was the same."""
        short = [a for a in NULL if not a.startswith("--runtime")] + ["--runtime=1"]
        self.save("once", "--rate_iops=2000", base=short)
        self.save("thrice", "--rate_iops=2000", "--repeat=3", base=short)
        p = run(["results", "export", "--output-format=json", f"--results-db={self.db}"])
        self.assertEqual(p.returncode, 0, p.stderr)
        once, thrice = ([f for f in r["figures"] if f["ddir"] == "read"][0] for r in json.loads(p.stdout))
        self.assertEqual(len(thrice["repeat_iops"]), 3)
        self.assertEqual(len(thrice["iops_samples"]), 3 * len(once["iops_samples"]))
        for f in (once, thrice):  # 2000 an interval (a late one may catch up), never 6000
            mean = sum(f["iops_samples"]) / len(f["iops_samples"])
            self.assertAlmostEqual(mean, 2000, delta=500, msg=f["iops_samples"])
        c = json.loads(self.compare("once", "thrice", "--output-format=json").stdout)
        iops = next(m for m in c["metrics"] if m["metric"] == "iops")
        self.assertEqual(iops["noise"], "samples")
        self.assertLess(abs(iops["change"]), 0.1, iops)
        self.assertLess(iops["interval"][0], 0.5, iops)  # was [+200%, +200%]

    def test_a_repeated_run_is_compared_by_the_mean_its_interval_is_of(self):
        """A run's figure under repeat=N is repeat_aggregate's (the best run), the interval
        that of the repeats' mean: when the best runs were alike and the others halved,
        compare said "+0.0%" and "slower", and --fail-on-regression=10 passed it."""
        short = [a for a in NULL if not a.startswith("--runtime")] + ["--runtime=1"]
        p = run([*short, "--rate_iops=2000", "--repeat=4", "--output-format=json"])
        self.assertEqual(p.returncode, 0, p.stderr)
        a = self.tmp / "a.json"
        a.write_text(p.stdout)
        doc = json.loads(p.stdout)
        runs = doc["ioplan"]["jobs"][0]["repeat"][0]["runs"]
        best = max(range(4), key=lambda i: runs[i]["read"]["iops"])
        for i, r in enumerate(runs):  # the three runs that were not the best, at half their rate
            if i != best:
                r["read"]["iops"] /= 2
                r["read"]["bw_bytes"] //= 2
        b = self.tmp / "b.json"
        b.write_text(json.dumps(doc))
        c = json.loads(self.compare(str(a), str(b), "--output-format=json").stdout)
        iops = next(m for m in c["metrics"] if m["metric"] == "iops")
        self.assertEqual((iops["noise"], iops["verdict"]), ("repeats", "slower"), iops)
        self.assertAlmostEqual(iops["change"], -0.375, delta=0.05)  # the means: 2000 -> 1250
        lo, hi = iops["interval"]
        self.assertTrue(lo <= iops["change"] <= hi, iops)
        gate = self.compare(str(a), str(b), "--fail-on-regression=10", "--metrics=iops")
        self.assertEqual(gate.returncode, 1, gate.stdout)
        self.assertIn("mean of its repeats", gate.stdout)

    def test_plans_that_differ_beyond_the_refused_options_are_said(self):
        """Only rw, bs, iodepth, numjobs, size, direct and ioengine refuse a compare: a run
        held to --rate_iops=2000 against one at 1000 printed "slower -50.0%" and nothing
        said that the two ran different plans.  The text names the plans and the words
        only one job holds; the JSON has same_plan and job_text_differences."""
        short = [a for a in NULL if not a.startswith("--runtime")] + ["--runtime=500ms"]
        self.save("fast", "--rate_iops=2000", base=short)
        self.save("slow", "--rate_iops=1000", base=short)
        self.save("again", "--rate_iops=1000", base=short)
        text = self.compare("fast", "slow").stdout
        self.assertIn("The plans differ (plan ", text)
        self.assertIn("  only in A's job: --rate_iops=2000\n  only in B's job: --rate_iops=1000\n", text)
        c = json.loads(self.compare("fast", "slow", "--output-format=json").stdout)
        self.assertFalse(c["same_plan"])
        self.assertEqual(c["job_text_differences"], {"only_in_a": ["--rate_iops=2000"],
                                                     "only_in_b": ["--rate_iops=1000"]})
        # the same plan saved under another label: nothing to say
        self.assertNotIn("plans differ", self.compare("slow", "again").stdout)
        c = json.loads(self.compare("slow", "again", "--output-format=json").stdout)
        self.assertTrue(c["same_plan"])
        self.assertEqual(c["job_text_differences"], {"only_in_a": [], "only_in_b": []})

    def test_plans_of_one_workload_are_said_to_be_one(self):
        """Two runs of one job of randrepeat=0 (whose seeds are drawn for each run) have two
        plan hashes: compare said "The plans differ ... in an option other than rw, bs, ...",
        with no option apart in their job texts.  It says now that they are one workload; as
        are runs against targets named apart, whose names are listed."""
        short = [a for a in NULL if not a.startswith("--runtime")] + ["--runtime=300ms"]
        self.save("one", "--randrepeat=0", base=short)
        self.save("two", "--randrepeat=0", base=short)
        text = self.compare("one", "two").stdout
        self.assertRegex(text, r"The plans differ \(plan \w{12} vs \w{12}\) only in what their workload leaves out "
                               r"\(their targets' names, random seeds drawn for each run\): the same workload \(\w{12}\)\.\n")
        self.assertNotIn("in an option other than", text)
        c = json.loads(self.compare("one", "two", "--output-format=json").stdout)
        self.assertEqual((c["same_plan"], c["same_workload"]), (False, True))
        self.assertEqual(c["a"]["workload_hash"], c["b"]["workload_hash"])
        self.save("here", f"--filename={self.tmp / 'a'}", base=short)
        self.save("there", f"--filename={self.tmp / 'b'}", base=short)
        text = self.compare("here", "there").stdout
        self.assertIn("the same workload", text)
        self.assertIn(f"  only in A's job: --filename={self.tmp / 'a'}\n", text)
        # a rate limit is another workload
        self.save("rated", "--randrepeat=0", "--rate_iops=100000", base=short)
        c = json.loads(self.compare("one", "rated", "--output-format=json").stdout)
        self.assertEqual((c["same_plan"], c["same_workload"]), (False, False))
        self.assertIn("in an option other than", self.compare("one", "rated").stdout)

    def test_a_percentile_too_few_ios_bound_is_unknown_not_their_largest(self):
        """The interval of a p99.9 took the largest latency of a run of 150 I/Os as its
        upper bound, though the true p99.9 is above it more often than not: such a run
        compared with a long one of the same job was "slower" or "faster" at "95%".
        A bound whose rank is past the sample is unknown now: the change's interval
        reaches -100% or has no upper end (null in JSON, +inf% in the text)."""
        short = [a for a in NULL if not a.startswith("--runtime")]
        files = {}
        for name, runtime in (("short", "150ms"), ("long", "2s")):
            p = run([*short, f"--runtime={runtime}", "--rate_iops=1000", "--output-format=json+"])
            self.assertEqual(p.returncode, 0, p.stderr)
            files[name] = self.tmp / f"{name}.json"
            files[name].write_text(p.stdout)
        n = json.loads(files["short"].read_text())["jobs"][0]["read"]["total_ios"]
        self.assertLess(n, 1000)  # 0.999 n + 1.96 sqrt(0.999 n 0.001) > n below some 3800 I/Os
        p = self.compare(str(files["short"]), str(files["long"]), "--output-format=json", "--metrics=p999_ns")
        m = json.loads(p.stdout)["metrics"][0]
        self.assertEqual(m["interval"][0], -1.0, m)  # A's p99.9 unknown above: B may be any lower
        self.assertNotEqual(m["verdict"], "slower", m)
        p = self.compare(str(files["long"]), str(files["short"]), "--output-format=json", "--metrics=p999_ns")
        m = json.loads(p.stdout)["metrics"][0]
        self.assertIsNone(m["interval"][1], m)  # B's unknown above: no upper end
        self.assertNotEqual(m["verdict"], "faster", m)
        text = self.compare(str(files["long"]), str(files["short"]), "--metrics=p999_ns").stdout
        self.assertRegex(text, r"p999_ns .* \[[-+]\d+\.\d%, \+inf%\] ")

    def test_a_gate_that_can_never_fail_is_refused(self):
        """A NaN or an infinite PCT is never exceeded: --fail-on-regression=nan passed
        a rate halved, exit 0; strtod also took inf, 1e400 and hex."""
        short = [a for a in NULL if not a.startswith("--runtime")] + ["--runtime=1"]
        self.save("fast", "--rate_iops=2000", base=short)
        self.save("slow", "--rate_iops=1000", base=short)
        for pct in ("nan", "NaN", "inf", "-inf", "infinity", "1e400", "0x10", "-1", "5%", ""):
            with self.subTest(pct=pct):
                p = self.compare("fast", "slow", f"--fail-on-regression={pct}", "--metrics=iops")
                self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
                self.assertIn("--fail-on-regression", p.stderr)
        for pct, code in (("0", 1), ("-0", 1), ("2.5", 1), ("1e1", 1), ("80", 0)):
            with self.subTest(pct=pct):
                p = self.compare("fast", "slow", f"--fail-on-regression={pct}", "--metrics=iops")
                self.assertEqual(p.returncode, code, p.stdout + p.stderr)
        self.assertRegex(self.compare("fast", "slow", "--fail-on-regression=-0", "--metrics=iops").stderr,
                         r"beyond its noise and 0%\)")

    def test_different_workloads_are_refused_unless_forced(self):
        self.save("four", "--rate_iops=1000")
        self.save("eight", "--rate_iops=1000", "--bs=8k", "--iodepth=2")
        before = open(self.db, "rb").read()
        p = self.compare("four", "eight")
        self.assertEqual(p.returncode, 2)
        self.assertIn("different workloads", p.stderr)
        self.assertIn("bs=4096 vs bs=8192", p.stderr)
        self.assertIn("iodepth=1 vs iodepth=2", p.stderr)
        p = self.compare("four", "eight", "--force")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(open(self.db, "rb").read(), before)

    def test_forced_differences_are_said_and_nothing_in_common_is_refused(self):
        """--force compared runs of different workloads without a word on what differed,
        and runs with no job and direction in common (every job renamed, read against
        write, no I/O) gave an empty table and exit 0: --fail-on-regression passed them."""
        base = [a for a in NULL if not a.startswith(("--name", "--runtime", "--rw"))] + ["--runtime=0.3"]
        self.save("a-read", "--name=a", "--rw=read", base=base)
        self.save("a-randrw", "--name=a", "--rw=randrw", base=base)
        self.save("b-read", "--name=b", "--rw=read", base=base)
        self.save("a-write", "--name=a", "--rw=write", base=base)
        p = self.compare("a-read", "a-randrw", "--force", "--metrics=iops")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stderr, "ioplan: warning: compared anyway (--force): job a: rw=read vs rw=randrw\n"
                                   "ioplan: warning: compared anyway (--force): job a write: only in B\n")
        for other in ("b-read", "a-write"):
            for force in ([], ["--force"]):
                with self.subTest(other=other, force=force):
                    p = self.compare("a-read", other, *force, "--fail-on-regression=5")
                    self.assertEqual(p.returncode, 2, p.stdout)
                    self.assertIn("ioplan: error: nothing to compare: the two runs have no job and direction in "
                                  "common:\n  job a read: only in A\n", p.stderr)
                    self.assertEqual(p.stdout, "")
        doc = json.loads(run([*base, "--name=z", "--rw=read", "--output-format=json"]).stdout)
        for k in ("io_bytes", "io_kbytes", "bw_bytes", "bw", "iops", "total_ios", "runtime"):
            doc["jobs"][0]["read"][k] = 0
        doc["ioplan"].pop("series", None)
        zero = self.write("zero.json", json.dumps(doc))
        p = self.compare(str(zero), str(zero), "--fail-on-regression=5")
        self.assertEqual((p.returncode, p.stderr), (2, "ioplan: error: nothing to compare: neither run did any I/O\n"))

    def test_a_refusal_prints_its_reason_not_the_usage(self):
        # Different workloads and an interrupted run are refusals of what was asked, not of
        # how it was asked: the whole usage text followed the reason and buried it.
        # Unlimited null runs spin a core for their runtime: 250 ms gives the results refused.
        short = [a for a in NULL if not a.startswith("--runtime")] + ["--runtime=250ms"]
        self.save("four", base=short)
        self.save("eight", "--bs=8k", base=short)
        p = self.compare("four", "eight")
        self.assertEqual(p.returncode, 2)
        self.assertEqual(p.stderr, "ioplan: error: the two runs measured different workloads "
                                   "(--force compares them anyway):\n  job n: bs=4096 vs bs=8192\n")
        p = run([*short, "--output-format=json"])
        self.assertEqual(p.returncode, 0, p.stderr)
        doc = json.loads(p.stdout)
        doc["ioplan"]["interrupted"] = True
        (self.tmp / "cut.json").write_text(json.dumps(doc))
        p = self.compare("four", str(self.tmp / "cut.json"))
        self.assertEqual(p.returncode, 2)
        self.assertEqual(p.stderr, "ioplan: error: B (the file) was interrupted: its figures cover only what ran "
                                   "before a signal stopped it (--force compares it anyway)\n")
        # a usage error still shows the usage
        for args in (["compare", "four"], ["compare", "four", "eight", "nine"], ["results", "frob"],
                     ["compare", "four", "eight", "--frob"]):
            with self.subTest(args=args):
                p = run([*args, f"--results-db={self.db}"])
                self.assertEqual(p.returncode, 2)
                self.assertIn("\nusage: ioplan results list", p.stderr)

    def test_a_zero_baseline_is_not_comparable_and_nonsense_is_refused(self):
        p = run([*NULL[:3], "--size=64m", "--output-format=json"])
        self.assertEqual(p.returncode, 0, p.stderr)
        good = json.loads(p.stdout)
        (self.tmp / "b.json").write_text(p.stdout)

        def variant(name, edit):
            doc = json.loads(json.dumps(good))
            edit(doc)
            (self.tmp / name).write_text(json.dumps(doc).replace('"@deep@"', "[" * 20000 + "]" * 20000))
            return str(self.tmp / name)

        # fio's figures of a run shorter than its millisecond: rates of 0 (an import refuses rates
        # its counts and runtime do not give)
        zero = variant("zero.json", lambda d: d["jobs"][0]["read"].update(iops=0, bw_bytes=0, runtime=0))
        p = run(["compare", zero, str(self.tmp / "b.json"), "--output-format=json"])
        self.assertEqual(p.returncode, 0, p.stderr)
        iops = [m for m in json.loads(p.stdout)["metrics"] if m["metric"] == "iops"][0]
        self.assertEqual((iops["change"], iops["verdict"]), (None, "not comparable: A is 0"))  # was +0.0%, no difference
        text = run(["compare", zero, str(self.tmp / "b.json")]).stdout
        self.assertRegex(text, r"iops +0\.0 +\d+\.\d +n/a +\(noise unknown\) +not comparable: A is 0")
        bad = [
            (lambda d: d["jobs"][0]["read"].update(iops=-5), "iops: -5 is not a figure ioplan reads"),
            (lambda d: d["jobs"][0]["read"]["clat_ns"].update(bins={"abc": 3}),
             "latency bins: 'abc': 3 is not a latency in ns and a count"),
            (lambda d: d["jobs"][0].update(read="x"), 'jobs[0].read: "x" is not a direction\'s figures'),
            (lambda d: d.update(jobs=[{"jobname": 5}]), "jobs[0]: not a job of a result (no jobname)"),
            # Stored as 0, 2^64 - 5 and a date gmtime cannot print; a deep value crashed the message.
            (lambda d: d["jobs"][0]["read"].update(io_bytes=1e30), "io_bytes: 1e+30 is not a figure ioplan reads"),
            (lambda d: d.update(timestamp=1e300), "timestamp: 1e+300 is not a figure ioplan reads"),
            (lambda d: d["ioplan"].update(ranks=[{"rank": 0, "host": "h", "error": 0, "start_late_max_ns": 0, "jobs": [
                {"job": 0, "read": {"io_bytes": -5, "total_ios": 1}, "runtime_ns": 1,
                 "lat_ns": {"N": 1, "mean": 1, "p50": 1, "p99": 1, "max": 1}}]}]),
             "io_bytes: -5 is not a figure ioplan reads"),
            (lambda d: d["ioplan"]["series"][0]["read"]["iops"].__setitem__(0, "x"),
             'series iops: "x" is not a figure ioplan reads'),  # was nlohmann's type_error, exit 1
            (lambda d: d["jobs"][0]["read"].update(io_bytes="@deep@"),
             "values nested more than 64 deep: not a result ioplan reads"),
        ]
        for edit, says in bad:
            with self.subTest(says=says):
                f = variant("bad.json", edit)
                for args in (["compare", f, str(self.tmp / "b.json")], ["results", "import", f]):
                    p = run([*args, f"--results-db={self.db}"])
                    self.assertEqual((p.returncode, p.stderr), (2, f"{f}: error: {says}\n"))
        self.assertFalse(self.db.exists() and "bad" in run(["results", "list", f"--results-db={self.db}"]).stdout)

    def test_output_goes_to_the_file_and_never_over_the_store(self):
        base = [*NULL[:5], "--size=16m"]
        self.save("a", base=base)
        self.save("b", base=base)
        for args, head in ((["compare", "a", "b"], "A: run 1 (a) ioplan"), (["results", "export"], "run_id,uuid,label"),
                           (["results", "list"], "    id  started")):
            with self.subTest(args=args):
                out = self.tmp / "out.txt"
                p = run([*args, f"--results-db={self.db}", f"--output={out}"])
                self.assertEqual((p.returncode, p.stdout), (0, ""), p.stderr)  # --output was ignored: stdout
                self.assertTrue(out.read_text().startswith(head), out.read_text()[:80])
                out.unlink()
                before = self.db.read_bytes()
                p = run([*args, f"--results-db={self.db}", f"--output={self.db}"])
                self.assertEqual(p.returncode, 2)
                self.assertIn(f"is the results store {self.db}: the output would replace it", p.stderr)
                self.assertEqual(self.db.read_bytes(), before)

    def test_unknown_run(self):
        p = self.compare("nosuch", "other")
        self.assertEqual(p.returncode, 2)
        self.assertIn("no results store here", p.stderr)
        self.save("a", "--rate_iops=1000")
        p = self.compare("a", "nosuch")
        self.assertEqual(p.returncode, 2)
        self.assertIn("no run 'nosuch'", p.stderr)

    @unittest.skipUnless(FIO, "fio is not installed")
    def test_fio_result_files(self):
        outs = []
        for i in range(2):
            out = self.tmp / f"fio{i}.json"
            # 250 ms: a histogram of some hundred thousand I/Os, without a core spun for a second
            p = subprocess.run([FIO, "--name=j", "--ioengine=null", "--rw=read", "--bs=4k", "--size=1g",
                                "--time_based", "--runtime=250ms", "--output-format=json+", f"--output={out}"],
                               capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, p.stderr)
            outs.append(str(out))
        p = run(["compare", *outs, "--output-format=json"])
        self.assertEqual(p.returncode, 0, p.stderr)
        c = json.loads(p.stdout)
        self.assertEqual(c["a"]["source"], "fio")
        p99 = next(m for m in c["metrics"] if m["metric"] == "p99_ns")
        self.assertEqual(p99["noise"], "histogram")
        self.assertIn(p99["verdict"], ("faster", "slower", "no measurable difference"))

    @unittest.skipUnless(FIO, "fio is not installed")
    def test_a_change_without_a_noise_estimate_is_not_judged(self):
        """fio's json holds no per-interval samples and no repeats: the noise of its
        throughput is unknown, and the sign of the change made the verdict, so the
        same job at the same rate was "faster" or "slower" by whatever it drifted.
        Such a change is "not judged: noise unknown" now; the gate still weighs it by
        its percentage alone, and says so."""
        outs = []
        for rate in (2000, 2000, 1000):
            out = self.tmp / f"fio{len(outs)}.json"
            p = subprocess.run([FIO, "--name=j", "--ioengine=null", "--rw=read", "--bs=4k", "--size=1g",
                                "--time_based", "--runtime=1", f"--rate_iops={rate}", "--output-format=json",
                                f"--output={out}"], capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, p.stderr)
            outs.append(str(out))
        for b, change in ((outs[1], 0), (outs[2], -0.5)):
            p = run(["compare", outs[0], b, "--output-format=json", "--metrics=iops,bw_bytes"])
            self.assertEqual(p.returncode, 0, p.stderr)
            for m in json.loads(p.stdout)["metrics"]:
                self.assertEqual((m["noise"], m["interval"]), ("unknown", None), m)
                self.assertAlmostEqual(m["change"], change, delta=0.2)
                self.assertIn(m["verdict"], ("not judged: noise unknown", "no measurable difference"), m)
                if m["change"] != 0:
                    self.assertEqual(m["verdict"], "not judged: noise unknown", m)
        gate = run(["compare", outs[0], outs[2], "--fail-on-regression=10", "--metrics=iops"])
        self.assertEqual(gate.returncode, 1, gate.stdout)
        self.assertRegex(gate.stderr, r"regression: job j read iops -\d+\.\d% \(noise unknown: worse by more than 10%\)")
        self.assertEqual(run(["compare", outs[0], outs[2], "--fail-on-regression=60", "--metrics=iops"]).returncode, 0)

    @unittest.skipUnless(FIO, "fio is not installed")
    def test_a_fio_file_compared_with_itself_has_intervals_around_no_change(self):
        """The order-statistic interval counts ranks from the smallest latency: fio's
        json+ bins were walked in the order of their keys as text ("148480" before
        "2608"), so a file compared with itself had p99.9 in [+693.6%, -87.4%],
        "slower", and gated a regression that was not there."""
        out = self.tmp / "fio.json"
        p = subprocess.run([FIO, "--name=j", f"--directory={self.tmp}", "--rw=randread", "--bs=4k", "--size=4m",
                            "--rate_iops=4000", "--time_based", "--runtime=1", "--output-format=json+",
                            f"--output={out}"], capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        bins = json.loads(out.read_text())["jobs"][0]["read"]["clat_ns"]["bins"]
        self.assertNotEqual(sorted(bins), sorted(bins, key=int))  # the keys' text order is not their order
        ordered = sorted((int(k), v) for k, v in bins.items())
        n = sum(v for _, v in ordered)

        def at_rank(rank):
            seen = 0
            for lat, count in ordered:
                seen += count
                if seen >= rank:
                    return lat
            return ordered[-1][0]

        p = run(["compare", str(out), str(out), "--output-format=json"])
        self.assertEqual(p.returncode, 0, p.stderr)
        for m in json.loads(p.stdout)["metrics"]:
            self.assertEqual(m["verdict"], "no measurable difference", m)
            if m["metric"].endswith("_ns"):
                q = {"p50_ns": 0.5, "p99_ns": 0.99, "p999_ns": 0.999}[m["metric"]]
                half = 1.959964 * math.sqrt(n * q * (1 - q))
                # A bound whose rank falls outside the sample is unknown (a162fe12): the
                # change's interval then reaches -100% and has no upper end.  A run on a
                # busy machine may fall a few I/Os short of the 4000 that keep p99.9's.
                rank_lo, rank_hi = math.floor(n * q - half), math.ceil(n * q + half)
                self.assertEqual(m["noise"], "histogram")
                if rank_lo < 1 or rank_hi > n:
                    self.assertEqual(m["interval"][0], -1.0, msg=m)
                    self.assertIsNone(m["interval"][1], msg=m)
                    continue
                lo, hi = at_rank(rank_lo), at_rank(rank_hi)
                self.assertAlmostEqual(m["interval"][0], lo / hi - 1, places=9, msg=m)
                self.assertAlmostEqual(m["interval"][1], hi / lo - 1, places=9, msg=m)
        self.assertEqual(run(["compare", str(out), str(out), "--fail-on-regression=0"]).returncode, 0)

    @unittest.skipUnless(FIO, "fio is not installed")
    def test_a_percentile_a_result_does_not_record_is_no_latency_of_zero(self):
        """fio's json of clat_percentiles=0 (or a percentile_list without 50, 99, 99.9)
        holds no percentile and no bins: read as 0 ns, compare called B "-100.0%, faster"
        than A, show printed 0.0 us and summary took 0 as a p99."""
        outs = []
        for extra in ([], ["--clat_percentiles=0"], ["--percentile_list=90:95"]):
            out = self.tmp / f"fio{len(outs)}.json"
            p = subprocess.run([FIO, "--name=j", "--ioengine=null", "--rw=read", "--bs=4k", "--size=64m", *extra,
                                "--output-format=json", f"--output={out}"], capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, p.stderr)
            outs.append(str(out))
        measured, none, listed = outs
        p = run(["compare", measured, none, "--fail-on-regression=0", "--metrics=p50_ns,p99_ns,p999_ns",
                 "--output-format=json"])
        self.assertEqual(p.returncode, 0, p.stderr)  # no latency is worse: none to judge
        lat = {m["metric"]: m for m in json.loads(p.stdout)["metrics"]}
        self.assertEqual(len(lat), 3)
        for m in lat.values():
            self.assertGreater(m["a"], 0)
            self.assertEqual((m["b"], m["change"], m["interval"], m["verdict"]),
                             (None, None, None, "not comparable: B does not record it"))  # was -100.0%, faster
        p = run(["compare", listed, measured])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertRegex(p.stdout, r"p99_ns +- +[\d.]+ +n/a +\(noise unknown\) +not comparable: A does not record it")
        p = run(["compare", none, listed, "--metrics=p99_ns"])
        self.assertRegex(p.stdout, r"p99_ns +- +- +n/a .*not comparable: neither records it")
        self.assertEqual(run(["results", "import", *outs, f"--results-db={self.db}"]).returncode, 0)
        shown = run(["results", "show", "2", f"--results-db={self.db}"]).stdout
        self.assertRegex(shown, r"\nj +read +[\d.]+ +[\d.]+ +- +- +-\n")
        summary = json.loads(run(["results", "summary", f"--results-db={self.db}", "--output-format=json"]).stdout)
        # three workloads (their percentile options differ), a row each
        runs = json.loads(run(["results", "list", "--output-format=json", f"--results-db={self.db}"]).stdout)
        groups = {g["workload"]: g for g in summary["groups"]}
        self.assertEqual([groups[r["workload_hash"]]["count"] for r in runs], [1, 1, 1])
        p99 = json.loads(pathlib.Path(measured).read_text())["jobs"][0]["read"]["clat_ns"]["percentile"]["99.000000"]
        self.assertEqual([groups[r["workload_hash"]]["p99_ns"]["median"] for r in runs], [p99, None, None])

    @unittest.skipUnless(FIO, "fio is not installed")
    def test_fio_files_with_its_empty_group_reporting_entry(self):
        """fio 3.33 adds an empty jobs[] entry (no jobname, groupid 2^32 - 1) after a
        group whose later job asks for group_reporting: import and compare refused such
        a file whole ("jobs[1]: not a job of a result (no jobname)"), exit 2."""
        job = self.write("g.fio", "[global]\nioengine=null\nsize=1m\n[a]\nrw=read\n[b]\nrw=write\ngroup_reporting\n")
        outs = []
        for i in range(2):
            out = self.tmp / f"fio{i}.json"
            p = subprocess.run([FIO, str(job), "--output-format=json", f"--output={out}"], capture_output=True,
                               text=True)
            self.assertEqual(p.returncode, 0, p.stderr)
            doc = json.loads(out.read_text())
            self.assertEqual([(j.get("jobname"), j["groupid"]) for j in doc["jobs"]], [("a", 0), (None, 4294967295)])
            outs.append(str(out))
        p = run(["compare", *outs, "--metrics=iops", "--output-format=json"])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(sorted((m["job"], m["ddir"]) for m in json.loads(p.stdout)["metrics"]),
                         [("a", "read"), ("a", "write")])
        p = run(["results", "import", *outs, f"--results-db={self.db}"])
        self.assertEqual(p.returncode, 0, p.stderr)
        shown = json.loads(run(["results", "show", "1", "--output-format=json", f"--results-db={self.db}"]).stdout)
        self.assertEqual([(f["job"], f["ddir"]) for f in shown["figures"]], [("a", "read"), ("a", "write")])


class UnifiedReporting(TmpDirCase):
    """unified_rw_reporting=mixed reports reads and writes as one direction, "mixed":
    --save and import kept such a run with no figure (results list: 0), and compare
    found nothing in it."""

    ARGS = ["--name=u", "--ioengine=null", "--size=16m", "--rw=randrw", "--unified_rw_reporting=mixed"]

    def test_a_mixed_run_is_stored_shown_and_compared(self):
        db = self.tmp / "results.db"
        for label in ("m1", "m2"):
            p = run([*self.ARGS, f"--save={label}", f"--results-db={db}", "--output-format=json"])
            self.assertEqual(p.returncode, 0, p.stderr)
        doc = json.loads(p.stdout)
        shown = json.loads(run(["results", "show", "m2", "--output-format=json", f"--results-db={db}"]).stdout)
        self.assertEqual([(f["job"], f["ddir"], f["io_bytes"], f["iops"]) for f in shown["figures"]],
                         [("u", "mixed", doc["jobs"][0]["mixed"]["io_bytes"], doc["jobs"][0]["mixed"]["iops"])])
        p = run(["compare", "m1", "m2", "--metrics=iops", "--output-format=json", f"--results-db={db}"])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual([(m["job"], m["ddir"]) for m in json.loads(p.stdout)["metrics"]], [("u", "mixed")])
        summary = json.loads(run(["results", "summary", "--output-format=json", f"--results-db={db}"]).stdout)
        self.assertEqual([(g["job"], g["ddir"], g["count"]) for g in summary["groups"]], [("u", "mixed", 2)])
        exported = self.write("export.json", run(["results", "export", "--output-format=json",
                                                  f"--results-db={db}"]).stdout)
        p = run(["results", "import", str(exported), f"--results-db={self.tmp / 'copy.db'}"])
        self.assertEqual(p.returncode, 0, p.stderr)
        if FIO:
            out = self.tmp / "fio.json"
            p = subprocess.run([FIO, *self.ARGS, "--output-format=json", f"--output={out}"], capture_output=True,
                               text=True)
            self.assertEqual(p.returncode, 0, p.stderr)
            p = run(["results", "import", str(out), f"--results-db={db}"])
            self.assertEqual(p.returncode, 0, p.stderr)
            listed = json.loads(run(["results", "list", "--output-format=json", f"--results-db={db}"]).stdout)
            self.assertEqual([r["figures"] for r in listed], [1, 1, 1])


class TerminalText(TmpDirCase):
    """A label, a job's name or a host comes from whoever wrote the job file or the result
    imported: the text of list, show, summary and compare printed its control characters
    to the terminal as they were (an ESC sequence run by the terminal, a newline breaking
    the row); now each is '?', and JSON keeps the value exact."""

    LABEL = "lab\x1b]0;TITLE\x07\nnext\u009b2J"
    JOB = "j\x1b[31mRED\tx"

    def test_control_characters_are_not_sent_to_the_terminal(self):
        db = self.tmp / "results.db"
        p = run([f"--name={self.JOB}", "--ioengine=null", "--size=64k", "--rw=read", f"--save={self.LABEL}",
                 f"--results-db={db}", "--output-format=terse"])
        self.assertEqual(p.returncode, 0, p.stderr)
        texts = {}
        for args in (["results", "list"], ["results", "show", "1"], ["results", "summary", "--by=label"],
                     ["compare", "1", "1"]):
            p = run([*args, f"--results-db={db}"])
            self.assertEqual(p.returncode, 0, p.stderr)
            texts[args[1]] = p.stdout
            with self.subTest(command=args[:2]):
                self.assertFalse(any(c < " " and c != "\n" or "\x7f" <= c <= "\x9f" for c in p.stdout),
                                 repr(p.stdout))
        self.assertRegex(texts["list"], r"\n     1  \S+ \S+  lab\?\]0;TITLE\?\?next\?2  ioplan ")  # cut at 20
        self.assertIn("j?[31mRED?x      read", texts["show"])
        self.assertIn("A: run 1 (lab?]0;TITLE??next?2J) ioplan", texts["1"])
        shown = json.loads(run(["results", "show", "1", "--output-format=json", f"--results-db={db}"]).stdout)
        self.assertEqual((shown["label"], shown["figures"][0]["job"]), (self.LABEL, self.JOB))

    def test_names_are_cut_at_a_character_and_keep_the_columns_in_line(self):
        # Columns were cut and padded by bytes ("%-20.20s"): 'aéé…' lost half of its tenth
        # letter (not UTF-8 any more), and a name of CJK letters moved every column after it.
        def width(s):
            return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)

        def text(args):
            p = subprocess.run([BIN, *args, f"--results-db={db}"], capture_output=True)
            self.assertEqual(p.returncode, 0, p.stderr)
            return p.stdout.decode("utf-8")  # strict: a cut character fails here

        db = self.tmp / "results.db"
        label, wide = "a" + "é" * 25, "日本語のジョブ名前テスト"
        p = run([f"--name={wide}", "--ioengine=null", "--size=64k", "--rw=read", "--name=plain", "--ioengine=null",
                 "--size=64k", "--rw=read", f"--save={label}", f"--results-db={db}", "--output-format=terse"])
        self.assertEqual(p.returncode, 0, p.stderr)
        listed = text(["results", "list"]).splitlines()
        self.assertIn("a" + "é" * 19 + "  ioplan ", listed[1])
        self.assertEqual(width(listed[1].split("  ioplan ")[0]), width(listed[0].split("source")[0]) - 2)
        rows = [ln for ln in text(["results", "show", "1"]).splitlines() if " read " in ln]
        self.assertEqual([width(ln.split(" read ")[0]) for ln in rows], [16, 16], rows)
        self.assertTrue(rows[0].startswith("日本語のジョブ名 read"), rows)
        for args in (["results", "summary", "--by=label"], ["compare", "1", "1"]):
            with self.subTest(command=args[:2]):
                rows = [ln for ln in text(args).splitlines() if " read " in ln]
                self.assertEqual(len({width(ln.split(" read ")[0]) for ln in rows}), 1, rows)


# numjobs=2 without group_reporting: fio's layout has one jobs[] entry per clone, both named a.
CLONES = "[a]\nioengine=null\nsize=64m\nrw=randread\nnumjobs=2\n"


def p99_of_merged(buckets, lo, hi):
    """fio's percentile rule on a histogram: the first bucket whose count so far reaches 99%."""
    merged = {}
    for lat, n in buckets:
        merged[lat] = merged.get(lat, 0) + n
    total, seen = sum(merged.values()), 0
    for lat in sorted(merged):
        seen += merged[lat]
        if seen * 100 >= 99 * total:
            return min(max(lat, lo), hi)


class Clones(TmpDirCase):
    """Jobs sharing a name (numjobs clones, or two sections both named [a]) were matched by
    name alone: a run compared with itself was "different workloads: job a read: only in A",
    and the summary counted each clone as a run."""

    def setUp(self):
        super().setUp()
        self.db = self.tmp / "results.db"
        self.job = self.write("j.fio", CLONES)

    def save(self, job=None):
        p = run(["--output-format=json", "--save", f"--results-db={self.db}", str(job or self.job)])
        self.assertEqual(p.returncode, 0, p.stderr)
        return json.loads(p.stdout)

    def test_a_run_with_clones_compares_with_itself_clone_by_clone(self):
        out = self.tmp / "r.json"
        p = run(["--output-format=json", f"--output={out}", str(self.job)])
        self.assertEqual(p.returncode, 0, p.stderr)
        p = run(["compare", str(out), str(out), "--output-format=json"])
        self.assertEqual(p.returncode, 0, p.stderr)
        iops = [m for m in json.loads(p.stdout)["metrics"] if m["metric"] == "iops"]
        self.assertEqual([(m["job"], m["job_ordinal"], m["change"]) for m in iops], [("a", 1, 0), ("a", 2, 0)])
        text = run(["compare", str(out), str(out)]).stdout
        self.assertRegex(text, r"\na #1 +read +iops")
        self.assertRegex(text, r"\na #2 +read +iops")
        # two stored runs: the k-th clone against the k-th, each with its own figures
        docs = [self.save(), self.save()]
        c = json.loads(run(["compare", "1", "2", "--output-format=json", f"--results-db={self.db}"]).stdout)
        iops = [m for m in c["metrics"] if m["metric"] == "iops"]
        self.assertEqual([(m["a"], m["b"]) for m in iops],
                         [(docs[0]["jobs"][k]["read"]["iops"], docs[1]["jobs"][k]["read"]["iops"]) for k in (0, 1)])
        # two sections both named [a] are the same case; a run with one a is another workload
        twice = self.write("twice.fio", "[a]\nioengine=null\nsize=64m\nrw=randread\n" * 2)
        p = run(["--output-format=json", f"--output={self.tmp / 't.json'}", str(twice)])
        self.assertEqual(p.returncode, 0, p.stderr)
        p = run(["compare", str(self.tmp / "t.json"), str(self.tmp / "t.json")])
        self.assertEqual(p.returncode, 0, p.stderr)
        p = run(["compare", str(self.tmp / "t.json"), str(out)])
        self.assertEqual(p.returncode, 2)
        self.assertIn("job a #2: numjobs=1 vs numjobs=2", p.stderr)

    def test_summary_counts_runs_and_merges_their_clones(self):
        for _ in range(2):
            self.save()
        s = json.loads(run(["results", "summary", "--output-format=json", f"--results-db={self.db}"]).stdout)
        self.assertEqual([(g["job"], g["ddir"], g["count"]) for g in s["groups"]], [("a", "read", 2)])  # was 4
        per_run = {"iops": [], "bw": [], "p99": []}
        for rid in (1, 2):
            shown = json.loads(run(["results", "show", str(rid), "--output-format=json",
                                    f"--results-db={self.db}"]).stdout)
            figs = shown["figures"]
            self.assertEqual(len(figs), 2)
            per_run["iops"].append(sum(f["iops"] for f in figs))
            per_run["bw"].append(sum(f["bw_bytes"] for f in figs))
            p99s = [f["p99_ns"] for f in figs]
            per_run["p99"].append(p99_of_merged([b for f in figs for b in f["latency_buckets"]],
                                                min(p99s), max(p99s)))
        g = s["groups"][0]
        # with two runs, the 10th and 90th percentiles are interpolations between the two values
        self.assertAlmostEqual(g["iops"]["median"], sum(per_run["iops"]) / 2, places=3)
        self.assertAlmostEqual(g["bw_bytes"]["median"], sum(per_run["bw"]) / 2, places=0)
        self.assertAlmostEqual(g["p99_ns"]["median"], sum(per_run["p99"]) / 2, places=6)
        self.assertAlmostEqual(g["iops"]["p10"], min(per_run["iops"]) + 0.1 * abs(per_run["iops"][0] - per_run["iops"][1]),
                               places=3)

    def test_summary_of_clones_without_buckets_has_no_p99_not_zero(self):
        # An fio json file (no bins) of numjobs=3: the clones' p99s cannot be merged, and the
        # group, having no p99 at all, printed 0.00/0.00/0.00 (JSON 0.0) as if measured.
        out = self.tmp / "fio.json"
        p = run(["--output-format=json", f"--output={out}", str(self.job)])
        self.assertEqual(p.returncode, 0, p.stderr)
        doc = json.loads(out.read_text())
        for job in doc["jobs"]:
            job["read"]["clat_ns"].pop("bins", None)
            job["read"]["lat_ns"].pop("bins", None)
        doc.pop("ioplan")  # as fio writes it
        out.write_text(json.dumps(doc))
        p = run(["results", "import", str(out), f"--results-db={self.db}"])
        self.assertEqual(p.returncode, 0, p.stderr)
        s = json.loads(run(["results", "summary", "--output-format=json", f"--results-db={self.db}"]).stdout)
        self.assertEqual(s["groups"][0]["p99_ns"], {"p10": None, "median": None, "p90": None})
        self.assertGreater(s["groups"][0]["iops"]["median"], 0)
        line = run(["results", "summary", f"--results-db={self.db}"]).stdout.splitlines()[1]
        self.assertNotIn("0.00/0.00/0.00", line)
        self.assertRegex(line, r" - +-$")  # no p99, no outliers

    def test_csv_export_tells_the_clones_apart_in_a_last_column(self):
        # Both clones' rows were run_id,...,a,read,... and nothing else told them apart.
        doc = self.save()
        p = run(["results", "export", f"--results-db={self.db}"])
        self.assertEqual(p.returncode, 0, p.stderr)
        lines = p.stdout.splitlines()
        head = lines[0].split(",")
        # the columns a script reads by position stay where they were; the new ones come last
        self.assertEqual(head[:9], ["run_id", "uuid", "label", "source", "started_s", "host", "plan_hash", "job",
                                    "ddir"])
        self.assertEqual(head[-11:], ["io_bytes", "ios", "runtime_s", "iops", "bw_bytes", "lat_mean_ns", "p50_ns",
                                      "p99_ns", "p999_ns", "job_ordinal", "workload_hash"])
        rows = [dict(zip(head, line.split(","))) for line in lines[1:]]
        self.assertEqual([(r["job"], r["ddir"], r["job_ordinal"]) for r in rows], [("a", "read", "1"), ("a", "read", "2")])
        self.assertEqual({r["workload_hash"] for r in rows}, {doc["ioplan"]["workload_hash"]})
        self.assertEqual([int(r["ios"]) for r in rows], [doc["jobs"][k]["read"]["total_ios"] for k in (0, 1)])
        # the ordinal is compare's: the k-th clone of A is set against the k-th of B by it
        c = json.loads(run(["compare", "1", "1", "--output-format=json", f"--results-db={self.db}"]).stdout)
        self.assertEqual(sorted({(m["job"], m["job_ordinal"]) for m in c["metrics"]}), [("a", 1), ("a", 2)])

    def test_show_and_the_report_page_tell_the_clones_apart(self):
        docs = [self.save(), self.save()]
        shown = run(["results", "show", "2", f"--results-db={self.db}"]).stdout
        self.assertRegex(shown, r"\na #1 +read")
        self.assertRegex(shown, r"\na #2 +read")
        page = self.tmp / "p.html"
        p = run(["results", "report", "1", "2", f"--output={page}", f"--results-db={self.db}"])
        self.assertEqual(p.returncode, 0, p.stderr)
        html = page.read_text()
        for k in (0, 1):
            a, b = (d["jobs"][k]["read"]["iops"] for d in docs)
            # the B column of clone k is clone k's figure (both rows showed B's last clone)
            self.assertIn(f'<tr><th scope="row">a #{k + 1}</th><td class="l">read</td><td class="l">IOPS</td>'
                          f"<td>{a:.2f}</td><td>{b:.2f}</td>", html)


if __name__ == "__main__":
    unittest.main()
