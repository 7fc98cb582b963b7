"""tests/e2e/test_bad_job_files.py - malformed job files get their exact diagnostic and exit 2.

Each tests/errors/NAME.fio has NAME.stderr next to it: the complete expected
diagnostic (path:line:col: error: ..., the source line, the caret).  Binary
garbage and an over-long line are generated here rather than committed.
"""
import os
import subprocess
import unittest

from common import BIN, ROOT, TmpDirCase

ERRORS = ROOT / "tests" / "errors"


class MalformedFiles(unittest.TestCase):
    def test_each_file_gets_its_exact_diagnostic(self):
        cases = sorted([*ERRORS.glob("*.fio"), *ERRORS.glob("*.toml"), *ERRORS.glob("*.yaml")])
        self.assertGreaterEqual(len(cases), 30)
        for case in cases:
            with self.subTest(case=case.name):
                p = subprocess.run([BIN, "--parse-only", case.name], cwd=ERRORS, capture_output=True, text=True,
                                   timeout=30)
                self.assertEqual(p.returncode, 2, p.stderr)
                self.assertEqual(p.stdout, "")
                self.assertEqual(p.stderr, case.with_suffix(".stderr").read_text())

    def test_showplan_prints_nothing_on_stdout_for_bad_input(self):
        p = subprocess.run([BIN, "--showplan", "unknown_option.fio"], cwd=ERRORS, capture_output=True, text=True)
        self.assertEqual((p.returncode, p.stdout), (2, ""))


class GeneratedGarbage(TmpDirCase):
    def run_bytes(self, data):
        path = self.tmp / "bad.fio"
        path.write_bytes(data)
        return subprocess.run([BIN, "--parse-only", "bad.fio"], cwd=self.tmp, capture_output=True, timeout=30)

    def test_binary_garbage_with_nul_bytes(self):
        p = self.run_bytes(b"\x7fELF\x02\x01\x01\x00\x00\x00junk\n")
        self.assertEqual(p.returncode, 2)
        self.assertEqual(p.stderr.decode(), "bad.fio:1:8: error: binary data (a NUL byte): this is not a job file\n")

    def test_binary_garbage_without_nul_bytes(self):
        p = self.run_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe")
        self.assertEqual(p.returncode, 2)
        self.assertTrue(p.stderr.startswith(b"bad.fio:1:1: error: expected an option (name=value), a [section]"),
                        p.stderr)

    def test_one_megabyte_line(self):
        p = self.run_bytes(b"[j]\nbs=" + b"1" * (1 << 20) + b"\n")
        self.assertEqual(p.returncode, 2)
        self.assertEqual(p.stderr.decode(), "bad.fio:2:8192: error: line is longer than 8191 bytes\n")

    def test_missing_job_file_and_directory_as_job_file(self):
        # The reason is said (it was only "cannot read job file").
        (self.tmp / "locked.fio").write_text("[j]\n")
        os.chmod(self.tmp / "locked.fio", 0)
        cases = [("does-not-exist.fio", "No such file or directory"), (".", "Is a directory")]
        if os.geteuid() != 0:  # root reads it anyway
            cases.append(("locked.fio", "Permission denied"))
        for name, why in cases:
            p = subprocess.run([BIN, "--parse-only", name], cwd=self.tmp, capture_output=True, text=True)
            self.assertEqual(p.returncode, 2)
            self.assertEqual(p.stderr, f"{name}: error: cannot read job file: {why}\n")

    def test_unknown_command_line_option(self):
        p = subprocess.run([BIN, "--showplan", "--iodepht=4", "x.fio"], capture_output=True, text=True)
        self.assertEqual(p.returncode, 2)
        self.assertIn("unknown option 'iodepht'; did you mean 'iodepth'?", p.stderr)


if __name__ == "__main__":
    unittest.main()
