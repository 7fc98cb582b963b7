"""tests/e2e/test_worker_time_based.py - time_based without a runtime, as fio 3.33 runs it.

What a user relies on: a job file written for fio (its examples/e4defrag2.fio
has time_based and no runtime) ends as in fio - when its I/O amount is done -
instead of running until it is killed, and the job file gets a warning that
says so (a warning: --warnings-fatal refuses it).
"""
import json

from common import FIO, TmpDirCase, run, run_fio

JOB = "[j]\nioengine=null\nsize=8m\nrw=read\ntime_based\n"


class TimeBasedWithoutRuntime(TmpDirCase):
    def test_the_job_ends_with_its_amount_and_is_warned(self):
        (self.tmp / "j.fio").write_text(JOB)
        p = run(["--output-format=json", "j.fio"], cwd=self.tmp, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        doc = json.loads(p.stdout[p.stdout.index("{"):])
        self.assertEqual(doc["jobs"][0]["read"]["io_bytes"], 8 << 20)
        if FIO is not None:
            f = run_fio(["--output-format=json", "j.fio"], cwd=self.tmp, timeout=60)
            fj = json.loads(f.stdout[f.stdout.index("{"):])
            self.assertEqual(fj["jobs"][0]["read"]["io_bytes"], 8 << 20)
        p = run(["--parse-only", "j.fio"], cwd=self.tmp)
        self.assertIn("j.fio:5:1: warning: job 'j': time_based needs runtime=; without it the job ends when its "
                      "I/O amount is done, as in fio", p.stderr)
        p = run(["--warnings-fatal", "--parse-only", "j.fio"], cwd=self.tmp)
        self.assertEqual(p.returncode, 2)
