"""tests/e2e/test_safety.py - nothing lost: the write refusals through the binary on real mounts.

As root, on file systems this test makes itself (ext4 and xfs on loop devices,
a tmpfs): ioplan's own test file from an earlier run is written again without
permission, a user's file with known content is refused and left unchanged,
and a loop device that holds a mounted file system is refused even when the
allow option names it.  Where the machine forbids a mount, the test says so
and skips.
"""
import os
import subprocess
import unittest

from common import TmpDirCase, run


def sh(*argv):
    return subprocess.run(argv, capture_output=True, text=True)


@unittest.skipIf(os.geteuid() != 0, "mounting file systems needs root")
class Refusals(TmpDirCase):
    def tearDown(self):
        self.doCleanups()  # unmount and detach first: the temporary directory holds the mounts
        super().tearDown()

    def loop_device(self, mib):
        img = self.tmp / f"disk{mib}.img"
        with open(img, "wb") as f:
            f.truncate(mib << 20)
        p = sh("losetup", "-f", "--show", str(img))
        if p.returncode != 0:
            self.skipTest(f"losetup refused: {p.stderr.strip()}")
        dev = p.stdout.strip()
        self.addCleanup(sh, "losetup", "-d", dev)
        return dev

    def mount(self, fstype):
        """A fresh, empty file system of that type, mounted for this test."""
        mnt = self.tmp / f"mnt-{fstype}"
        mnt.mkdir()
        if fstype == "tmpfs":
            p = sh("mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", str(mnt))
        else:
            dev = self.loop_device(320)  # xfs wants at least 300 MiB; the image is sparse
            mkfs = sh(f"mkfs.{fstype}", "-q", "-f" if fstype == "xfs" else "-F", dev)
            if mkfs.returncode != 0:
                self.skipTest(f"mkfs.{fstype} failed: {mkfs.stderr.strip()[:200]}")
            p = sh("mount", dev, str(mnt))
        if p.returncode != 0:
            self.skipTest(f"mount {fstype} refused here: {p.stderr.strip()}")
        self.addCleanup(sh, "umount", "-l", str(mnt))
        return mnt

    def write_job(self, *where):
        return run(["--name=w", *where, "--rw=write", "--bs=64k", "--size=1m", "--output-format=terse"])

    def check_filesystem(self, fstype):
        mnt = self.mount(fstype)
        first = self.write_job(f"--directory={mnt}")
        self.assertEqual(first.returncode, 0, first.stderr)
        ours = mnt / "w.0.0"
        self.assertEqual(ours.stat().st_size, 1 << 20)
        if "user.ioplan" not in os.listxattr(ours):
            self.skipTest(f"{fstype} here refuses user xattrs: a later run must treat the file as foreign")
        with open(ours, "r+b") as f:  # still marked as ours; zeros show whether the next run wrote
            f.write(bytes(64 << 10))
        again = self.write_job(f"--directory={mnt}")  # an earlier run's file: no permission needed
        self.assertEqual(again.returncode, 0, again.stderr)
        with open(ours, "rb") as f:
            self.assertNotEqual(f.read(64 << 10), bytes(64 << 10), "the second run wrote the file")

        precious = mnt / "precious"
        content = os.urandom(1 << 20)
        precious.write_bytes(content)
        p = self.write_job(f"--filename={precious}")
        self.assertEqual(p.returncode, 2)
        self.assertIn(f"job 'w': {precious}: refusing to write into an existing file ioplan did not create "
                      "(allow it with allow_existing_file_write)", p.stderr)
        self.assertEqual(precious.read_bytes(), content)
        # Reads are always allowed, and leave it as it was.
        p = run(["--name=r", f"--filename={precious}", "--rw=read", "--bs=64k", "--size=1m"])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(precious.read_bytes(), content)

    def test_ext4_own_file_reused_user_file_untouched(self):
        self.check_filesystem("ext4")

    def test_xfs_own_file_reused_user_file_untouched(self):
        self.check_filesystem("xfs")

    def test_tmpfs_own_file_reused_user_file_untouched(self):
        self.check_filesystem("tmpfs")

    def test_device_of_a_mounted_filesystem_is_refused_even_when_allowed(self):
        # The file system takes the first 32 MiB; the jobs aim at 48 MiB, where nothing but
        # ioplan could write, so the bytes there show whether a refused job wrote anything.
        dev = self.loop_device(64)
        if sh("mkfs.ext4", "-q", "-F", dev, "32M").returncode != 0:
            self.skipTest("mkfs.ext4 failed")
        at = 48 << 20
        marker = os.urandom(1 << 20)
        with open(dev, "r+b") as f:
            f.seek(at)
            f.write(marker)

        def region():
            with open(dev, "rb") as f:
                f.seek(at)
                return f.read(1 << 20)

        mnt = self.tmp / "mnt"
        mnt.mkdir()
        if sh("mount", dev, str(mnt)).returncode != 0:
            self.skipTest("mounting a loop device is refused here")
        self.addCleanup(sh, "umount", "-l", str(mnt))
        p = self.write_job(f"--filename={dev}", f"--offset={at}")
        self.assertEqual(p.returncode, 2)
        self.assertIn(f"refusing to write to block device {dev}: name it in allow_device_write={dev}", p.stderr)
        p = self.write_job(f"--filename={dev}", f"--offset={at}", f"--allow_device_write={dev}")
        self.assertEqual(p.returncode, 2)
        self.assertIn(f"{os.path.basename(dev)} holds a filesystem mounted on {mnt}", p.stderr)
        p = run(["--name=r", f"--filename={dev}", f"--offset={at}", "--rw=read", "--bs=64k", "--size=1m"])
        self.assertEqual(p.returncode, 0, p.stderr)  # reads are always allowed
        self.assertEqual(region(), marker)
        # Unmounted and named exactly: the write is the user's decision, and happens.
        self.assertEqual(sh("umount", str(mnt)).returncode, 0)
        p = self.write_job(f"--filename={dev}", f"--offset={at}", f"--allow_device_write={dev}")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertNotEqual(region(), marker)


if __name__ == "__main__":
    unittest.main()
