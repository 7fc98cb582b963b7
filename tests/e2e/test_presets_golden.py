"""tests/e2e/test_presets_golden.py - each compact preset summary, and fio's formats, byte for byte.

The presets run on the null engine with the fake clock (--fake-clock: every
timestamp advances a fixed step, host and kernel are fixed), so their summary
layout is deterministic.  So is a job file's normal, terse, json and json+ output:
several groups, numjobs, group_reporting and a mixed randrw job run the same way.  `make golden-update` rewrites tests/golden/presets/.
"""
import os

from common import ROOT, TmpDirCase, run

GOLDEN = ROOT / "tests" / "golden" / "presets"
COMMON = ["--ioengine=null", "--directory=.", "--fake-clock=1000", "--ramp_time=0", "--repeat_pause=0",
          "--group_pause=0"]
CASES = {
    "default": ["--size=8m", "--runtime=0.01s"],
    "winsat-disk": ["--size=8m", "--runtime=0.01s"],
    "hdparm-t": ["--size=8m", "--runtime=0.01s", "--repeat=3"],
    "dd": ["--size=8m", "--io_size=8m", "--repeat=3"],
    # The preset's own zones (zonesize=10m): a --zonesize would reach the access-time job,
    # which has no zonemode=strided, and fio 3.33 refuses that.
    "gnome-disks": ["--number_ios=100"],
}

JOB = """[global]
ioengine=null
size=4m
bs=4k
[seq]
rw=read
[mixed]
rw=randrw
rwmixread=70
numjobs=2
bs=8k
stonewall
[merged]
rw=randwrite
numjobs=2
group_reporting
stonewall
"""
FORMATS = ("normal", "terse", "json", "json+")


class PresetGoldens(TmpDirCase):
    def test_summaries(self):
        update = os.environ.get("IOPLAN_GOLDEN_UPDATE") == "1"
        for name, extra in CASES.items():
            with self.subTest(preset=name):
                p = run([f"--preset={name}", *COMMON, *extra], cwd=self.tmp, timeout=120)
                self.assertEqual(p.returncode, 0, p.stderr)
                again = run([f"--preset={name}", *COMMON, *extra], cwd=self.tmp, timeout=120)
                self.assertEqual(again.stdout, p.stdout, "not deterministic")
                path = GOLDEN / f"{name}.txt"
                if update:
                    path.write_text(p.stdout)
                self.assertEqual(p.stdout, path.read_text())


class FormatGoldens(TmpDirCase):
    def test_job_file_in_every_fio_format(self):
        update = os.environ.get("IOPLAN_GOLDEN_UPDATE") == "1"
        job = self.write("golden.fio", JOB)
        for fmt in FORMATS:
            with self.subTest(format=fmt):
                argv = ["--fake-clock=1000", f"--output-format={fmt}", str(job.name)]
                p = run(argv, cwd=self.tmp)
                self.assertEqual(p.returncode, 0, p.stderr)
                self.assertEqual(run(argv, cwd=self.tmp).stdout, p.stdout, "not deterministic")
                path = GOLDEN / f"job-{fmt.replace('+', 'plus')}.txt"
                if update:
                    path.write_text(p.stdout)
                self.assertEqual(p.stdout, path.read_text())
