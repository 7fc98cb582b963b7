"""tests/e2e/test_report_unified_rw.py - unified_rw_reporting against fio 3.33.

A size-bound null-engine randrw job (fixed amounts) through fio and ioplan with
each value: the JSON job object's direction keys, the merged direction's
io_bytes/total_ios (= read + write), its percentiles taken from the merged
histogram, the normal output's "mixed:" / "MIXED:" lines and the terse field
counts.
"""
import json
import unittest

from common import FIO, TmpDirCase, run, run_fio

JOB = ("[global]\nioengine=null\nsize=4m\nbs=4k\nlat_percentiles=1\n"
       "[m]\nrw=randrw\nrwmixread=70\nunified_rw_reporting={v}\n")
DIRS = ("read", "write", "trim", "sync", "mixed")


@unittest.skipIf(FIO is None, "fio not installed")
class UnifiedRw(TmpDirCase):
    def both(self, value, fmt):
        out = {}
        for who in ("fio", "ioplan"):
            job = self.write(f"{who}-{value}-{fmt}.fio", JOB.format(v=value))
            args = [f"--output-format={fmt}", str(job)]
            p = run_fio(args, cwd=self.tmp) if who == "fio" else run(args, cwd=self.tmp)
            self.assertEqual(p.returncode, 0, f"{who}: {p.stderr}")
            out[who] = p.stdout
        return out

    def jobs(self, value):
        return {w: json.loads(t[t.index("{"):])["jobs"][0] for w, t in self.both(value, "json").items()}

    def test_direction_keys_match_fio(self):
        for value in ("none", "0", "mixed", "1", "both", "2"):
            with self.subTest(value=value):
                j = self.jobs(value)
                keys = {w: [k for k in j[w] if k in DIRS] for w in j}
                self.assertEqual(keys["ioplan"], keys["fio"])

    def test_mixed_is_read_plus_write(self):
        for value in ("mixed", "both"):
            with self.subTest(value=value):
                for who, job in self.jobs(value).items():
                    m = job["mixed"]
                    self.assertEqual(m["io_bytes"], 4 << 20, who)
                    self.assertEqual(m["total_ios"], 1024, who)
                    self.assertEqual(m["lat_ns"]["N"], 1024, who)
                    if value == "both":
                        self.assertEqual(m["total_ios"],
                                         job["read"]["total_ios"] + job["write"]["total_ios"], who)
                        self.assertEqual(m["lat_ns"]["min"],
                                         min(job["read"]["lat_ns"]["min"], job["write"]["lat_ns"]["min"]))
                        self.assertEqual(m["lat_ns"]["max"],
                                         max(job["read"]["lat_ns"]["max"], job["write"]["lat_ns"]["max"]))

    def test_percentiles_come_from_the_merged_histogram(self):
        job = json.loads((lambda t: t[t.index("{"):])(
            run(["--output-format=json+", str(self.write("j.fio", JOB.format(v="both")))],
                cwd=self.tmp).stdout))["jobs"][0]
        bins = {}
        for d in ("read", "write"):
            for k, v in job[d]["lat_ns"]["bins"].items():
                bins[int(k)] = bins.get(int(k), 0) + v
        mixed = job["mixed"]["lat_ns"]
        self.assertEqual({int(k): v for k, v in mixed["bins"].items()}, bins)
        # The 50th percentile is the bin value where the merged count reaches half.
        need, seen = mixed["N"] * 0.5, 0
        for value in sorted(bins):
            seen += bins[value]
            if seen >= need:
                break
        self.assertEqual(mixed["percentile"]["50.000000"], value)

    def test_normal_output_names_the_mixed_direction(self):
        for value, lines in (("mixed", ("  mixed: IOPS=", "  MIXED: bw=")),
                             ("both", ("  read: IOPS=", "  write: IOPS=", "  mixed: IOPS=",
                                       "   READ: bw=", "  WRITE: bw=", "  MIXED: bw="))):
            with self.subTest(value=value):
                for who, text in self.both(value, "normal").items():
                    heads = [l[:l.index("=") + 1] for l in text.splitlines()
                             if l.startswith(("  mixed:", "  read:", "  write:", "   READ:",
                                              "  WRITE:", "  MIXED:"))]
                    self.assertEqual(heads, list(lines), who)

    def test_terse_field_counts_match_fio(self):
        for value in ("none", "mixed", "both"):
            with self.subTest(value=value):
                out = self.both(value, "terse")
                counts = {w: [len(l.split(";")) for l in t.splitlines() if l.startswith("3;")]
                          for w, t in out.items()}
                self.assertEqual(counts["ioplan"], counts["fio"])
                if value == "mixed":
                    # The read slot holds every direction: all 4 MiB (rwmixread
                    # makes the per-direction split random).
                    for who, text in out.items():
                        f = [l for l in text.splitlines() if l.startswith("3;")][0].split(";")
                        self.assertEqual(f[5], "4096", who)

    def test_group_reporting_merges_clones_then_directions(self):
        text = JOB.format(v="mixed") + "numjobs=3\ngroup_reporting=1\n"
        for who in ("fio", "ioplan"):
            job = self.write(f"gr-{who}.fio", text)
            args = ["--output-format=json+", str(job)]
            p = run_fio(args, cwd=self.tmp) if who == "fio" else run(args, cwd=self.tmp)
            self.assertEqual(p.returncode, 0, f"{who}: {p.stderr}")
            jobs = json.loads(p.stdout[p.stdout.index("{"):])["jobs"]
            self.assertEqual(len(jobs), 1, who)
            m = jobs[0]["mixed"]
            self.assertEqual((m["io_bytes"], m["total_ios"]), (12 << 20, 3072), who)
            self.assertEqual(sum(m["lat_ns"]["bins"].values()), 3072, who)

    def test_bad_value_is_refused(self):
        p = run(["--name=x", "--ioengine=null", "--size=1m", "--unified_rw_reporting=sometimes"])
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("unified_rw_reporting", p.stderr)


if __name__ == "__main__":
    unittest.main()
