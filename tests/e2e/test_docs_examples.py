"""tests/e2e/test_docs_examples.py - every example job file runs, and shows its feature.

Examples run as shipped, with --directory pointing at a private directory
(the seeds' big ones with sizes, runtimes and /mnt directories shrunk by
substitution into a temporary copy); each must exit 0 with valid JSON, and
the examples made for one feature are checked for it.
"""
import json
import re

from common import ROOT, TmpDirCase, run

SEEDS = {"fio_setting.txt", "fioread.ini", "fiowrite.ini", "fioreadwrite.ini"}


class Examples(TmpDirCase):
    def job(self, path):
        text = path.read_text()
        if path.name in SEEDS:
            text = re.sub(r"(?m)^size=.*$", "size=8m", text)
            text = re.sub(r"(?m)^runtime=.*$", "runtime=0.3s\ntime_based", text)
            text = re.sub(r"(?m)^iodepth=\d+$", "iodepth=8", text)
        text = re.sub(r"(?m)^directory=(/mnt|/tmp)/([\w-]+)$",
                      lambda m: f"directory={self.tmp / m.group(2)}", text)
        for d in re.findall(r"(?m)^directory=(.*)$", text):
            (self.tmp / d).mkdir(parents=True, exist_ok=True)
        return self.write(path.name, text)

    def run_example(self, name, *extra):
        p = run([f"--directory={self.tmp}", "--output-format=json", *extra, str(self.job(ROOT / "examples" / name))],
                timeout=120)
        self.assertEqual(p.returncode, 0, f"{name}: {p.stderr}")
        return json.loads(p.stdout)

    def test_every_example_runs(self):
        names = sorted(p.name for p in (ROOT / "examples").iterdir() if p.suffix in (".fio", ".ini", ".txt"))
        self.assertGreaterEqual(len(names), 14)
        for name in names:
            with self.subTest(example=name):
                self.assertTrue((ROOT / "examples" / name).read_text().startswith("; examples/"))
                self.assertTrue(self.run_example(name)["jobs"])

    def test_groups(self):
        doc = self.run_example("groups.fio")
        self.assertEqual([(j["jobname"], j["groupid"]) for j in doc["jobs"]],
                         [("a", 0), ("b", 0), ("c", 1), ("d", 2), ("e", 2)])

    def test_rate_limits(self):
        jobs = {j["jobname"]: j for j in self.run_example("rate-limits.fio")["jobs"]}
        self.assertAlmostEqual(jobs["even"]["read"]["iops"], 300, delta=15)
        self.assertAlmostEqual(jobs["even"]["write"]["iops"], 100, delta=5)
        self.assertAlmostEqual(jobs["poisson"]["read"]["iops"], 200, delta=40)

    def test_interlocked_reads_each_block_once(self):
        doc = self.run_example("interlocked.fio")
        self.assertEqual(doc["jobs"][0]["read"]["total_ios"], 128)

    def test_verify_and_repeat_and_sweep(self):
        self.assertEqual(self.run_example("verify.fio")["jobs"][0]["error"], 0)
        doc = self.run_example("repeat.fio")
        runs = doc["ioplan"]["jobs"][0]["repeat"][0]["runs"]
        self.assertEqual([r["discarded"] for r in runs], [True, False, False, False])
        (trace,) = self.run_example("sweep.fio")["ioplan"]["traces"]
        self.assertEqual(trace["ios"]["offset"], [k * 20 << 20 for k in range(20)])

    def test_priorities_per_io(self):
        read = self.run_example("priorities.fio")["jobs"][0]["read"]
        prios = [(p["prioclass"], p["prio"], p["clat_ns"]["N"]) for p in read["prios"]]
        self.assertEqual([p[:2] for p in prios], [(2, 7), (2, 0)])
        self.assertEqual(prios[0][2] + prios[1][2], 2048)
        self.assertAlmostEqual(prios[1][2] / 2048, 0.30, delta=0.06)
