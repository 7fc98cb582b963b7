"""tests/e2e/test_first_run.py - what goes wrong in a newcomer's first runs, refused early.

A mistyped device name (/dev/sdz for /dev/sdb) with size= would create a regular
file on devtmpfs, lay it out in RAM and report memory as the disk: ioplan refuses
it before any I/O (exit 2) and creates nothing.
"""
import os
import unittest

from common import TmpDirCase, run


class MistypedDevice(TmpDirCase):
    def test_no_test_file_is_created_under_dev(self):
        path = f"/dev/ioplan-e2e-sdz-{os.getpid()}"
        if not os.path.ismount("/dev") or os.path.exists(path):
            self.skipTest("/dev is not a mount here, or the name is taken")
        try:
            p = run(["--name=t", f"--filename={path}", "--size=16m", "--rw=write"], cwd=self.tmp)
            self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
            self.assertIn(f"{path} does not exist, and a test file is never created in /dev (devtmpfs",
                          p.stderr)
            self.assertFalse(os.path.exists(path))
            # A read job is refused the same way (it would lay the file out first).
            p = run(["--name=t", f"--filename={path}", "--size=16m", "--rw=read"], cwd=self.tmp)
            self.assertEqual(p.returncode, 2)
            self.assertFalse(os.path.exists(path))
        finally:
            if os.path.exists(path):
                os.unlink(path)


if __name__ == "__main__":
    unittest.main()
