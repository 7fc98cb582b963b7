"""tests/e2e/store_case.py - what the results store's e2e modules share: a test case with
a store of its own (test_results_store.py keeps and reads runs, test_results_store_faults.py
the stores that refuse them), the jobs they save and a file's digest to show a store untouched.
"""
import hashlib
import json
import subprocess

from common import TmpDirCase, run

JOB = ["--name=j", "--rw=randread", "--bs=4k", "--size=1m", "--ioengine=psync"]
# A write job that lays nothing out (create_on_open=1): on a small file system it fills
# the disk under its own writes, so the job fails.
FILLING_JOB = ["--name=w", "--rw=write", "--bs=4k", "--size=512k", "--create_on_open=1", "--ioengine=psync"]


def sha(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


class StoreCase(TmpDirCase):
    def setUp(self):
        super().setUp()
        self.db = self.tmp / "results.db"

    def tearDown(self):
        # A test's cleanups (a run it started, a mount over its directory) go
        # before the directory does.
        self.doCleanups()
        super().tearDown()

    def ioplan_run(self, *extra, label=None, env=None):
        save = "--save" if label is None else f"--save={label}"
        p = run([*JOB, f"--filename={self.tmp / 'f'}", "--output-format=json+", save,
                 f"--results-db={self.db}", *extra], env=env)
        return p

    def results(self, *args, ok=True):
        p = run(["results", *args, f"--results-db={self.db}"])
        if ok:
            self.assertEqual(p.returncode, 0, p.stderr)
        return p

    def listing(self):
        return json.loads(self.results("list", "--output-format=json").stdout)

    def store_on_tmpfs(self, name, size):
        """The store in a tmpfs of its own (self.mnt), unmounted when the test ends."""
        self.mnt = self.tmp / name
        self.mnt.mkdir()
        if subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(self.mnt)]).returncode:
            self.skipTest("cannot mount tmpfs")
        self.addCleanup(subprocess.run, ["umount", "-l", str(self.mnt)])
        self.db = self.mnt / "results.db"
