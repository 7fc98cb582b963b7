"""tests/e2e/test_first_run.py - what goes wrong in a newcomer's first runs, refused early.

A mistyped device name (/dev/sdz for /dev/sdb) with size= would create a regular
file on devtmpfs, lay it out in RAM and report memory as the disk: ioplan refuses
it before any I/O (exit 2) and creates nothing.  The gnome-disks preset on a whole
device, as its comment says to use it, takes min(100, size / 10 MiB) samples,
each at a direct-I/O-aligned offset, whatever the device's size.
"""
import os
import re
import subprocess
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


class GnomeDisksOnADevice(TmpDirCase):
    def sample_count(self, size_mib):
        img = self.tmp / f"disk{size_mib}.img"
        with open(img, "wb") as f:
            f.truncate(size_mib << 20)  # sparse: reads are fast, nothing is written
        dev = subprocess.run(["losetup", "-f", "--show", str(img)], capture_output=True, text=True,
                             check=True).stdout.strip()
        try:
            p = run(["--preset=gnome-disks", f"--filename={dev}", "--size=100%"], cwd=self.tmp, timeout=300)
            self.assertEqual(p.returncode, 0, p.stdout[-800:] + p.stderr)
            self.assertNotIn("Invalid argument", p.stdout + p.stderr)
            m = re.search(r"Read rate, (\d+) samples of 10.0 MiB", p.stdout)
            self.assertTrue(m, p.stdout[:800])
            return int(m.group(1))
        finally:
            subprocess.run(["losetup", "-d", dev])

    def test_whole_device_samples_are_aligned_and_counted_by_size(self):
        if os.geteuid() != 0:
            self.skipTest("needs root for loop devices")
        # 1% of 1234 MiB is 12939427 bytes: unaligned zone starts failed the second read.
        self.assertEqual(self.sample_count(1234), 100)
        self.assertEqual(self.sample_count(200), 20)


if __name__ == "__main__":
    unittest.main()
