"""tests/e2e/test_harness_tally.py - the e2e runner's counts (run.py's tally) of a real
unittest run: a test whose subtests fail is one failed test, never a negative
number of passes, and a module that dies before its summary is a failure.
"""
import importlib.util
import os
import pathlib
import subprocess
import sys

from common import TmpDirCase

_spec = importlib.util.spec_from_file_location("e2e_run", pathlib.Path(__file__).with_name("run.py"))
e2e_run = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(e2e_run)

MODULE = '''import os, unittest
class Case(unittest.TestCase):
    def test_three_subtests_fail(self):
        for n in range(3):
            with self.subTest(n=n):
                self.assertEqual(n, -1)
    def test_errors(self):
        raise RuntimeError("boom")
    def test_passes(self):
        pass
    @unittest.skip("not here")
    def test_skipped(self):
        pass
    def test_dies(self):
        if os.environ.get("DIE"):
            os._exit(3)
'''


class Tally(TmpDirCase):
    def counts(self, **env):
        (self.tmp / "fake_module.py").write_text(MODULE)
        p = subprocess.run([sys.executable, "-m", "unittest", "fake_module"], cwd=self.tmp, capture_output=True,
                           text=True, timeout=60, env={"PATH": "/usr/bin:/bin", **env})
        counts = {"passed": 0, "failed": 0, "skipped": 0}
        e2e_run.tally(p.stdout + p.stderr, counts)
        return counts

    def test_a_test_with_failing_subtests_is_one_failure(self):
        # unittest's summary says failures=3 for the three subtests: 5 tests ran,
        # so counting those gave 5 - 4 - 1 = 0 passes where two passed.
        self.assertEqual(self.counts(), {"passed": 2, "failed": 2, "skipped": 1})

    def test_a_module_that_dies_is_a_failure(self):
        self.assertEqual(self.counts(DIE="1"), {"passed": 0, "failed": 1, "skipped": 0})


# Durations no other test's sleep has (test_mpi's gdb runs "sleep 300" while this
# module may run beside it), so the look for a leftover finds only this module's.
SECS = f"300.{os.getpid():07d}"
LEAKER = '''import subprocess, sys, time
subprocess.Popen(["sleep", "SECS"], stdout=subprocess.DEVNULL)
print("Ran 1 test in 0.001s\\n\\nOK")
'''.replace("SECS", SECS)


class Leftovers(TmpDirCase):
    def test_a_module_that_leaves_a_process_running_fails_and_the_process_is_killed(self):
        # A test that failed before its cleanup left a fio receiver running for
        # half an hour; a leftover holding the module's output would hang the suite.
        (self.tmp / "leaker.py").write_text(LEAKER)
        unit = e2e_run.Unit("leaker", [sys.executable, str(self.tmp / "leaker.py")])
        _, rc, out, _, _ = e2e_run.run_unit(unit)
        self.assertNotEqual(rc, 0, out)
        self.assertIn("left processes running; they were killed", out)
        left = subprocess.run(["pgrep", "-fx", f"sleep {SECS}"], capture_output=True, text=True)
        self.assertEqual(left.stdout, "", "the module's sleep outlived it")

    def test_a_process_that_left_the_modules_session_is_found_and_killed(self):
        # fio's job processes call setsid(): one that fio 3.33 left hung was still
        # running half an hour after its module ended, outside the module's session.
        (self.tmp / "escaper.py").write_text(LEAKER.replace(f'["sleep", "{SECS}"]', f'["setsid", "sleep", "{SECS}1"]'))
        _, rc, out, _, _ = e2e_run.run_unit(e2e_run.Unit("escaper", [sys.executable, str(self.tmp / "escaper.py")]))
        self.assertNotEqual(rc, 0, out)
        self.assertIn("left processes running; they were killed", out)
        left = subprocess.run(["pgrep", "-fx", f"sleep {SECS}1"], capture_output=True, text=True)
        self.assertEqual(left.stdout, "", "the sleep that left the module's session outlived it")

    def test_a_module_that_stops_what_it_starts_passes(self):
        (self.tmp / "tidy.py").write_text(LEAKER.replace(f'subprocess.Popen(["sleep", "{SECS}"], '
                                                         'stdout=subprocess.DEVNULL)',
                                                         'subprocess.run(["true"])'))
        _, rc, out, _, _ = e2e_run.run_unit(e2e_run.Unit("tidy", [sys.executable, str(self.tmp / "tidy.py")]))
        self.assertEqual(rc, 0, out)
        self.assertNotIn("left processes running", out)

    def test_a_modules_cpu_time_counts_the_processes_it_ran(self):
        # The CPU a module's children burn is what it costs the suite on a 2-core machine:
        # a child that spins for 0.4 s of CPU while the module itself only waits.
        (self.tmp / "spinner.py").write_text(
            "import subprocess, sys\n"
            "subprocess.run([sys.executable, '-c', 'import time\\nt = time.process_time()\\n"
            "while time.process_time() - t < 0.4: pass'])\n"
            "print('Ran 1 test in 0.001s\\n\\nOK')\n")
        _, rc, out, _, cpu = e2e_run.run_unit(e2e_run.Unit("spinner", [sys.executable, str(self.tmp / "spinner.py")]))
        self.assertEqual(rc, 0, out)
        self.assertGreaterEqual(cpu, 0.4)
