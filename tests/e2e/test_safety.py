"""tests/e2e/test_safety.py - nothing lost: the write refusals through the binary on real mounts.

As root, on file systems this test makes itself (ext4 and xfs on loop devices,
a tmpfs): ioplan's own test file from an earlier run is written again without
permission, a user's file with known content is refused and left unchanged,
and a loop device that holds a mounted file system is refused even when the
allow option names it.  Where the machine forbids a mount, the test says so
and skips.
"""
import json
import os
import re
import resource
import shutil
import signal
import subprocess
import unittest

from common import BIN, TRACED_ENV, TmpDirCase, child_pids, mark_state, planted_link, run, run_fio, runs_ioplan, wait_for_stderr, wait_until


def sh(*argv):
    return subprocess.run(argv, capture_output=True, text=True)


def small_files_job(mnt, n):
    return ["--name=s", f"--directory={mnt}", "--rw=read", "--bs=4k", f"--nrfiles={n}", "--filesize=4k",
            "--create_only=1", "--output-format=terse"]


def durable_before_marked(lines):
    """From an strace -f of a layout (openat, pwrite64, fsync, fdatasync, syncfs,
    fsetxattr): the syncfs calls, the fsyncs of data files, and the data files
    marked before a sync that followed their write had returned."""
    name, written, durable, early, syncfs, fsyncs, held = {}, set(), set(), [], 0, 0, {}
    for line in lines:
        m = re.match(r"(\d+)\s+(.*)", line)
        if not m:
            continue
        pid, text = m.groups()
        if text.endswith("<unfinished ...>"):
            held[pid] = text[:-len("<unfinished ...>")]
            continue
        r = re.match(r"<\.\.\. \w+ resumed>(.*)", text)
        if r:
            text = held.pop(pid, "") + r.group(1)
        c = re.match(r"(\w+)\((.*)\)\s+= (-?\d+)", text)
        if not c or int(c.group(3)) < 0:
            continue
        call, args, ret = c.group(1), c.group(2), int(c.group(3))
        fd = args.split(",")[0]
        f = re.search(r'"(?:[^"]*/)?(s\.0\.\d+)"', args)
        if call == "openat" and f:
            name[str(ret)] = f.group(1)
        elif call == "pwrite64" and fd in name:
            written.add(name[fd])
        elif call in ("fsync", "fdatasync") and fd in name:
            durable.add(name[fd])
            fsyncs += 1
        elif call == "syncfs":
            durable |= written
            syncfs += 1
        elif call == "fsetxattr" and fd in name and name[fd] not in durable:
            early.append(name[fd])
    return syncfs, fsyncs, early


class LoopMounts(TmpDirCase):
    """File systems and loop devices made for one test, undone after it."""

    def tearDown(self):
        self.doCleanups()  # unmount and detach first: the temporary directory holds the mounts
        super().tearDown()

    def loop_device(self, mib, name=""):
        img = self.tmp / f"disk{mib}{name}.img"
        with open(img, "wb") as f:
            f.truncate(mib << 20)
        p = sh("losetup", "-f", "--show", str(img))
        if p.returncode != 0:
            self.skipTest(f"losetup refused: {p.stderr.strip()}")
        dev = p.stdout.strip()
        self.addCleanup(sh, "losetup", "-d", dev)
        return dev

    def mount(self, fstype, mib=320, name=None):
        """A fresh, empty file system of that type, mounted for this test (at mnt-name)."""
        mnt = self.tmp / f"mnt-{name or fstype}"
        mnt.mkdir()
        if fstype == "tmpfs":
            p = sh("mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", str(mnt))
        else:
            dev = self.loop_device(mib, name or "")  # xfs wants at least 300 MiB; the image is sparse
            mkfs = sh(f"mkfs.{fstype}", "-q", "-f" if fstype == "xfs" else "-F", dev)
            if mkfs.returncode != 0:
                self.skipTest(f"mkfs.{fstype} failed: {mkfs.stderr.strip()[:200]}")
            p = sh("mount", dev, str(mnt))
        if p.returncode != 0:
            self.skipTest(f"mount {fstype} refused here: {p.stderr.strip()}")
        self.addCleanup(sh, "umount", "-l", str(mnt))
        return mnt


    def region_keeper(self, dev, at):
        """Writes random bytes at offset at of dev; returns a function that tells whether they are intact."""
        marker = os.urandom(1 << 20)
        with open(dev, "r+b") as f:
            f.seek(at)
            f.write(marker)
            os.fsync(f.fileno())

        def intact():
            with open(dev, "rb") as f:
                f.seek(at)
                return f.read(1 << 20) == marker
        return intact


@unittest.skipIf(os.geteuid() != 0, "mounting file systems needs root")
class Refusals(LoopMounts):
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
        before = ours.stat().st_mtime_ns
        again = self.write_job(f"--directory={mnt}")  # an earlier run's file: no permission needed
        self.assertEqual(again.returncode, 0, again.stderr)
        self.assertNotEqual(ours.stat().st_mtime_ns, before, "the second run wrote the file")
        # The user rewrites ioplan's file: from then on it is the user's.
        content = os.urandom(1 << 20)
        ours.write_bytes(content)
        p = self.write_job(f"--directory={mnt}")
        self.assertEqual(p.returncode, 2)
        self.assertIn("it was modified after ioplan last wrote it", p.stderr)
        self.assertEqual(ours.read_bytes(), content)

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
        intact = self.region_keeper(dev, at)
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
        self.assertTrue(intact())
        # Unmounted and named exactly: the write is the user's decision, and happens.
        self.assertEqual(sh("umount", str(mnt)).returncode, 0)
        p = self.write_job(f"--filename={dev}", f"--offset={at}", f"--allow_device_write={dev}")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertFalse(intact())

    def test_device_of_a_mounted_btrfs_is_refused_even_when_allowed(self):
        # btrfs shows an anonymous 0:NN in mountinfo's major:minor field: the
        # mount source (and the kernel's exclusive claim) must give it away.
        dev = self.loop_device(320)
        if sh("mkfs.btrfs", "-q", "-f", dev).returncode != 0:
            self.skipTest("mkfs.btrfs failed")
        mnt = self.tmp / "mnt"
        mnt.mkdir()
        if sh("mount", dev, str(mnt)).returncode != 0:
            self.skipTest("mounting btrfs is refused here")
        self.addCleanup(sh, "umount", "-l", str(mnt))
        (mnt / "keep").write_bytes(b"precious")
        sh("sync")
        with open(dev, "rb") as f:
            head = f.read(8 << 20)
        p = self.write_job(f"--filename={dev}", f"--allow_device_write={dev}")
        self.assertEqual(p.returncode, 2, p.stdout)
        self.assertIn(f"holds a filesystem mounted on {mnt}", p.stderr)
        with open(dev, "rb") as f:
            self.assertEqual(f.read(8 << 20), head)
        self.assertEqual(sh("umount", str(mnt)).returncode, 0)
        self.assertEqual(sh("mount", dev, str(mnt)).returncode, 0, "the file system still mounts")
        self.assertEqual((mnt / "keep").read_bytes(), b"precious")

    def test_device_mounted_in_another_mount_namespace_is_refused(self):
        dev = self.loop_device(64)
        if sh("mkfs.ext4", "-q", "-F", dev, "32M").returncode != 0:
            self.skipTest("mkfs.ext4 failed")
        intact = self.region_keeper(dev, 48 << 20)
        mnt = self.tmp / "mnt"
        mnt.mkdir()
        holder = subprocess.Popen(["unshare", "-m", "--propagation", "private", "sh", "-c",
                                   f"mount {dev} {mnt} && echo mounted && exec sleep 120"],
                                  stdout=subprocess.PIPE, text=True)
        self.addCleanup(holder.stdout.close)
        self.addCleanup(holder.wait)
        self.addCleanup(holder.kill)
        if holder.stdout.readline().strip() != "mounted":
            self.skipTest("unshare -m with a mount is refused here")
        with open("/proc/self/mountinfo") as f:
            self.assertNotIn(str(mnt), f.read(), "the mount is private to the other namespace")
        p = self.write_job(f"--filename={dev}", f"--offset={48 << 20}", f"--allow_device_write={dev}")
        self.assertEqual(p.returncode, 2, p.stdout)
        self.assertIn(f"{dev} is in use: the kernel refuses an exclusive open", p.stderr)
        self.assertTrue(intact(), "a refused job wrote to the device")
        holder.kill()
        holder.wait()
        p = self.write_job(f"--filename={dev}", f"--offset={48 << 20}", f"--allow_device_write={dev}")
        self.assertEqual(p.returncode, 0, p.stderr)  # released: the user's decision holds
        self.assertFalse(intact())

    def test_device_backing_a_mounted_loop_device_is_refused(self):
        # loop claims nothing on its backing device: only sysfs's backing_file tells.
        dev = self.loop_device(64)
        p = sh("losetup", "-f", "--show", dev)
        if p.returncode != 0:
            self.skipTest(f"losetup on a loop device refused: {p.stderr.strip()}")
        upper = p.stdout.strip()
        self.addCleanup(sh, "losetup", "-d", upper)
        intact = self.region_keeper(dev, 48 << 20)
        p = self.write_job(f"--filename={dev}", f"--offset={48 << 20}", f"--allow_device_write={dev}")
        self.assertEqual(p.returncode, 2, p.stdout)
        self.assertIn(f"{os.path.basename(dev)} is the backing store of {upper} (detach it with losetup -d first)",
                      p.stderr)
        self.assertTrue(intact())

    def test_allow_device_write_names_the_device_through_a_symlink_either_way(self):
        dev = self.loop_device(16)
        link = self.tmp / "disk"
        link.symlink_to(dev)
        for target, allowed in ((link, dev), (dev, link)):
            intact = self.region_keeper(dev, 8 << 20)
            p = self.write_job(f"--filename={target}", f"--offset={8 << 20}", f"--allow_device_write={allowed}")
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertFalse(intact(), f"filename={target} allow_device_write={allowed} wrote nothing")
        other = self.loop_device(16)
        intact = self.region_keeper(dev, 8 << 20)
        p = self.write_job(f"--filename={link}", f"--offset={8 << 20}", f"--allow_device_write={other}")
        self.assertEqual(p.returncode, 2)
        self.assertIn(f"name it in allow_device_write={link}", p.stderr)
        self.assertTrue(intact())

    def test_character_devices_are_written_only_when_named(self):
        # /dev/urandom keeps nothing either, but it is not one of the three sinks.
        p = self.write_job("--filename=/dev/urandom")
        self.assertEqual(p.returncode, 2, p.stdout)
        self.assertIn("job 'w': refusing to write to character device /dev/urandom: name it in "
                      "allow_device_write=/dev/urandom", p.stderr)
        link = self.tmp / "sink"
        link.symlink_to("/dev/urandom")
        p = self.write_job(f"--filename={link}", "--allow_device_write=/dev/urandom")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.split(";")[46], "1024", "the write job wrote its 1 MiB")  # write KiB

    def test_devices_that_store_nothing_need_no_naming(self):
        # fio's examples/steadystate.fio writes /dev/null: nothing there to destroy.
        for sink in ("/dev/null", "/dev/zero"):
            p = self.write_job(f"--filename={sink}")
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual(p.stdout.split(";")[46], "1024", sink)
        p = self.write_job("--filename=/dev/full")
        self.assertEqual(p.returncode, 1, p.stdout)  # run, and failed as fio's: ENOSPC
        self.assertIn("No space left on device", p.stderr)

    def test_bs_unaligned_range_on_a_4kn_device_is_refused_before_any_io(self):
        img = self.tmp / "4kn.img"
        with open(img, "wb") as f:
            f.truncate(16 << 20)
        p = sh("losetup", "-f", "--show", "--sector-size", "4096", str(img))
        if p.returncode != 0:
            self.skipTest(f"losetup --sector-size refused: {p.stderr.strip()}")
        dev = p.stdout.strip()
        self.addCleanup(sh, "losetup", "-d", dev)
        intact = self.region_keeper(dev, 4 << 20)
        p = run(["--name=u", f"--filename={dev}", f"--allow_device_write={dev}", "--rw=randwrite", "--direct=1",
                 "--bsrange=4k-16k", "--bs_unaligned=1", "--size=8m", "--number_ios=64"])
        self.assertEqual(p.returncode, 2, p.stdout)
        self.assertIn(f"job 'u': direct=1 on {dev} needs sizes in multiples of 4096 bytes, but bs_unaligned=1",
                      p.stderr)
        self.assertTrue(intact())
        p = run(["--name=u", f"--filename={dev}", "--rw=randread", "--direct=1", "--bsrange=4k-16k",
                 "--size=8m", "--number_ios=64"])
        self.assertEqual(p.returncode, 0, p.stderr)  # without bs_unaligned every size is a multiple of 4k


@unittest.skipIf(os.geteuid() != 0, "mounting file systems needs root")
class Marks(LoopMounts):
    """The mark proves a file is the one ioplan made, and that its layout finished."""

    def write_run(self, path):
        return run(["--name=w", f"--filename={path}", "--rw=write", "--bs=64k", "--size=1m",
                    "--output-format=terse"])

    def test_a_copied_mark_does_not_make_a_user_file_ioplans(self):
        mnt = self.mount("ext4")
        ours = mnt / "ours"
        self.assertEqual(self.write_run(ours).returncode, 0)
        for how in (["cp", "--attributes-only", "--preserve=xattr"], ["cp", "-a"]):
            user = mnt / "user"
            user.unlink(missing_ok=True)
            self.assertEqual(sh(*how, str(ours), str(user)).returncode, 0)
            content = os.urandom(1 << 20)
            with open(user, "r+b" if user.stat().st_size else "wb") as f:
                f.write(content)
            os.utime(user, ns=(ours.stat().st_atime_ns, ours.stat().st_mtime_ns))  # as a backup restores it
            self.assertIn("user.ioplan", os.listxattr(user))
            p = self.write_run(user)
            self.assertEqual(p.returncode, 2, f"{how}: {p.stdout}")
            self.assertIn("its user.ioplan mark was made for another file", p.stderr)
            self.assertEqual(user.read_bytes(), content)

    def test_a_small_files_mark_stays_inside_its_ext4_inode(self):
        # ext4 keeps an xattr value of up to 64 bytes in a 256-byte inode; the text mark of
        # ioplan 0.1 (about 100 bytes) took a 4 KiB xattr block for every file it laid out,
        # metadata fio does not write.
        mnt = self.mount("ext4")
        p = run(["--name=s", f"--directory={mnt}", "--rw=write", "--bs=4k", "--nrfiles=20",
                 "--filesize=4k", "--size=80k", "--output-format=terse"])
        self.assertEqual(p.returncode, 0, p.stderr)
        files = sorted(mnt.glob("s.0.*"))
        self.assertEqual(len(files), 20)
        self.assertEqual({mark_state(f) for f in files}, {"sized"})  # a write job sizes its files
        inodes = [f.stat().st_ino for f in files]
        dev = sh("findmnt", "-n", "-o", "SOURCE", str(mnt)).stdout.strip()
        self.assertEqual(sh("umount", str(mnt)).returncode, 0)  # debugfs reads the inodes from the device
        for ino in inodes:
            out = sh("debugfs", "-R", f"stat <{ino}>", dev).stdout
            self.assertIn("File ACL: 0", out, f"inode {ino} keeps its attributes in a block of their own")

    def test_a_file_laid_out_by_one_write_is_marked_once_whole_and_removed_if_not(self):
        # A new file written whole by one write is marked once, when whole.  One that
        # could not be written whole (here past RLIMIT_FSIZE, as a full disk would stop
        # it) is removed: no short file without a mark is left where nothing was.
        mnt = self.mount("tmpfs")
        job = ["--name=s", f"--directory={mnt}", "--rw=read", "--bs=4k", "--nrfiles=4",
               "--filesize=512k", "--create_only=1", "--output-format=terse"]
        def capped():
            resource.setrlimit(resource.RLIMIT_FSIZE, (256 << 10, 256 << 10))
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # the write fails (EFBIG), as fio's would
        p = subprocess.run([BIN, *job], capture_output=True, text=True, timeout=120, preexec_fn=capped)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("File too large", p.stderr)
        self.assertEqual(sorted(mnt.iterdir()), [], "a file the layout could not finish was left")
        p = run(job)
        self.assertEqual(p.returncode, 0, p.stderr)
        files = sorted(mnt.glob("s.0.*"))
        self.assertEqual([f.stat().st_size for f in files], [512 << 10] * 4)
        self.assertEqual({mark_state(f) for f in files}, {"filled"})

    def traced_layout(self, mnt, n, *strace_opts, preexec_fn=None):
        """A read job's create_only layout of n 4 KiB files in mnt under strace: the run, and
        what the trace says of each data file's durability (durable_before_marked)."""
        trace = self.tmp / "layout.trace"
        p = subprocess.run(["strace", "-f", "-qq", "-o", str(trace), "-e",
                            "trace=openat,pwrite64,fsync,fdatasync,syncfs,fsetxattr", *strace_opts,
                            BIN, *small_files_job(mnt, n)], capture_output=True, text=True, timeout=300,
                           preexec_fn=preexec_fn, env=TRACED_ENV)
        return p, durable_before_marked(trace.read_text().splitlines())

    def assert_all_filled(self, mnt, n):
        files = sorted(mnt.glob("s.0.*"))
        self.assertEqual(len(files), n)
        self.assertEqual({mark_state(f) for f in files}, {"filled"})

    @unittest.skipUnless(shutil.which("strace"), "strace is not installed")
    def test_small_files_are_marked_only_once_their_data_is_durable(self):
        # fio fsyncs each file it lays out: 10 000 files of 4 KiB took fio 8-10 s, all of
        # it journal commits and cache flushes, and ioplan as long.  On a file system whose
        # syncfs is durable, one syncfs now makes a batch of up to 256 files durable
        # (0.6 s for ioplan's whole layout); elsewhere each file keeps its fsync.  Either
        # way no file is marked filled before its data is durable.
        n = 600
        for fstype, nofile, batched in (("ext4", None, True), ("xfs", None, True), ("tmpfs", None, False),
                                        ("ext4", 60, False)):
            with self.subTest(fstype=fstype, nofile=nofile):
                mnt = self.mount(fstype, name=f"{fstype}-{nofile}")
                limit = (lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))) if nofile else None
                p, (syncfs, fsyncs, early) = self.traced_layout(mnt, n, preexec_fn=limit)
                self.assertEqual(p.returncode, 0, p.stderr)
                self.assertEqual(early, [], "marked filled before its data was durable")
                if batched:
                    self.assertEqual(fsyncs, 0)
                    self.assertIn(syncfs, range(1, -(-n // 256) + 2), "one syncfs a batch of up to 256")
                else:
                    self.assertEqual((fsyncs, syncfs), (n, 0), "an fsync each")
                self.assert_all_filled(mnt, n)

    @unittest.skipUnless(shutil.which("strace"), "strace is not installed")
    def test_a_failed_syncfs_falls_back_to_each_files_fsync_and_pins_an_error_on_its_file(self):
        # syncfs fails for any writeback error on the file system, another program's
        # included: each file of the batch is then fsynced on its own, and only a file
        # whose own fsync fails is given back, with its name.
        n = 300
        mnt = self.mount("ext4")
        p, (_, fsyncs, early) = self.traced_layout(mnt, n, "-e", "inject=syncfs:error=EIO")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual((fsyncs, early), (n, []))
        self.assert_all_filled(mnt, n)
        for f in mnt.glob("s.0.*"):
            f.unlink()
        p, (_, _, early) = self.traced_layout(mnt, n, "-e", "inject=syncfs:error=EIO",
                                              "-e", "inject=fsync:error=EIO:when=5")
        self.assertNotEqual(p.returncode, 0)
        self.assertEqual(early, [])
        self.assert_all_filled(mnt, n - 1)
        lost = {f"s.0.{i}" for i in range(n)} - {f.name for f in mnt.glob("s.0.*")}
        self.assertEqual(len(lost), 1)
        self.assertRegex(p.stderr, rf"{lost.pop()}: Input/output error")

    @unittest.skipUnless(shutil.which("strace"), "strace is not installed")
    def held_layout(self, mnt):
        """A read job's create_only layout of 600 small files in mnt, its 300th write held
        by strace (for 60 s, or until strace ends): (strace's Popen, ioplan's pid), once
        the 300th file is there."""
        proc = subprocess.Popen(["strace", "-f", "-qq", "-o", "/dev/null", "-e", "trace=pwrite64",
                                 "-e", "inject=pwrite64:delay_enter=60s:when=300", BIN, *small_files_job(mnt, 600)],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        self.addCleanup(lambda: proc.poll() is None and proc.kill())
        pid = wait_until(lambda: next((k for k in child_pids(proc.pid) if runs_ioplan(k)), None), 60, "ioplan")
        wait_until(lambda: len(list(mnt.glob("s.0.*"))) >= 300, 60, "the 300th file")
        return proc, pid

    @unittest.skipUnless(shutil.which("strace"), "strace is not installed")
    def test_a_stop_removes_the_files_its_batch_had_not_synced(self):
        # A stop between files ends the layout at once: the files written since the
        # batch's last syncfs are removed, as one stopped in its write is; none is left
        # without a mark.  The 300th file's write is held until ioplan has its SIGTERM.
        mnt = self.mount("ext4")
        proc, pid = self.held_layout(mnt)
        os.kill(pid, signal.SIGTERM)
        wait_for_stderr(proc, b"ioplan: stopping", 30)
        proc.kill()  # strace's end lets the held write go on
        proc.communicate(timeout=30)
        wait_until(lambda: not os.path.exists(f"/proc/{pid}"), 60, "ioplan to end")
        files = sorted(mnt.glob("s.0.*"))
        self.assertGreaterEqual(len(files), 256, "the first batch is kept")
        self.assertLess(len(files), 300)
        self.assertEqual({mark_state(f) for f in files}, {"filled"}, "a file without a mark was left")

    @unittest.skipUnless(shutil.which("strace"), "strace is not installed")
    def test_a_batch_killed_before_its_sync_leaves_unmarked_files_that_nothing_overwrites(self):
        # SIGKILL leaves the batch's written files without a mark (at most 256 of them):
        # the user's from then on.  A read job reads them as they are; a write job is
        # refused, naming each, and their bytes stay as they were.
        mnt = self.mount("ext4")
        proc, pid = self.held_layout(mnt)
        os.kill(pid, signal.SIGKILL)
        proc.kill()
        proc.communicate(timeout=30)
        wait_until(lambda: not os.path.exists(f"/proc/{pid}"), 60, "ioplan to end")
        files = sorted(mnt.glob("s.0.*"))
        unmarked = [f for f in files if mark_state(f) is None and f.stat().st_size]
        self.assertGreaterEqual(len(files) - len(unmarked), 256, "the first batch was marked")
        self.assertTrue(0 < len(unmarked) <= 256, len(unmarked))
        before = {f: f.read_bytes() for f in unmarked}
        p = run(small_files_job(mnt, 600)[:-2] + ["--output-format=terse"])  # the same read job, run
        self.assertEqual(p.returncode, 0, p.stderr)
        p = run(["--name=s", f"--directory={mnt}", "--rw=write", "--bs=4k", "--nrfiles=600", "--filesize=4k",
                 "--output-format=terse"])
        self.assertEqual(p.returncode, 2, p.stderr)
        for f in unmarked:
            self.assertIn(f"{f}: refusing to write into an existing file ioplan did not create", p.stderr)
        self.assertEqual({f: f.read_bytes() for f in unmarked}, before)

    def layout_then_signal(self, path, sig):
        """Starts a buffered read job whose layout writes 1 GiB, signals it while the
        layout is under way, and returns the run's exit code."""
        proc = subprocess.Popen([BIN, "--name=r", f"--filename={path}", "--rw=read", "--bs=1m", "--size=1g",
                                 "--direct=0", "--runtime=1", "--output-format=terse"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        def filling():
            # The fill writes from the first byte to the last: once its first block holds
            # data the fill is under way (a fixed 50 ms after the partial mark was a guess,
            # which a loaded machine could spend before the file was even sized).
            try:
                if mark_state(path) != "partial":
                    return False
                with open(path, "rb") as f:
                    return any(f.read(4096))
            except OSError:
                return False
        try:
            wait_until(filling, 30, "the layout's fill to start")
        except AssertionError:
            proc.kill()
            raise
        proc.send_signal(sig)
        proc.communicate(timeout=30)
        return proc.returncode

    def tail_is_zeros(self, path):
        with open(path, "rb") as f:
            f.seek(-(1 << 20), os.SEEK_END)
            return f.read() == bytes(1 << 20)

    def check_interrupted_layout(self, sig):
        mnt = self.mount("ext4", 1536)
        path = mnt / "big"
        self.layout_then_signal(path, sig)
        self.assertEqual(path.stat().st_size, 1 << 30, "the layout reserves the whole size first")
        if not self.tail_is_zeros(path):
            self.skipTest("the layout finished before the signal: nothing to reproduce")
        self.assertEqual(mark_state(path), "partial")
        p = run(["--name=r", f"--filename={path}", "--rw=read", "--bs=1m", "--size=1g", "--direct=1",
                 "--runtime=1", "--time_based", "--output-format=json"], timeout=300)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertFalse(self.tail_is_zeros(path), "the unfinished layout was read back as if it held data")
        self.assertEqual(mark_state(path), "filled")

    def test_layout_interrupted_by_sigint_is_laid_out_again(self):
        self.check_interrupted_layout(signal.SIGINT)

    def test_layout_killed_is_laid_out_again(self):
        self.check_interrupted_layout(signal.SIGKILL)

    def test_a_file_sized_for_writers_is_filled_before_it_is_read(self):
        mnt = self.mount("ext4")
        path = mnt / "w"
        p = run(["--name=w", f"--filename={path}", "--rw=write", "--bs=64k", "--size=8m", "--number_ios=1"])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertTrue(self.tail_is_zeros(path), "a write-only job sizes the file without laying it out")
        self.assertEqual(mark_state(path), "sized")
        p = run(["--name=r", f"--filename={path}", "--rw=read", "--bs=64k", "--size=8m"])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertFalse(self.tail_is_zeros(path))
        self.assertEqual(mark_state(path), "filled")
        # Trims punch holes: the file is "sized" again, and the next reader fills it first.
        p = run(["--name=t", f"--filename={path}", "--rw=trim", "--bs=64k", "--size=8m"])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(mark_state(path), "sized")

    def test_a_file_a_writer_went_over_whole_is_read_as_it_is(self):
        # `rw=write` and then `rw=read` in two runs: fio reads what the writer left;
        # ioplan wrote the 8 MiB again first ("Laying out IO file") because the
        # writer's run had only sized the file.  Its extents now show data throughout.
        jobs = {"write": ["--rw=write"], "randwrite": ["--rw=randwrite", "--bs=4k", "--direct=1"]}
        for fs, (name, argv) in ((fs, job) for fs in ("ext4", "xfs") for job in jobs.items()):
            with self.subTest(fs=fs, writer=name):
                path = (self.tmp / f"mnt-{fs}" if (self.tmp / f"mnt-{fs}").is_dir() else self.mount(fs)) / name
                p = run(["--name=w", f"--filename={path}", "--bs=64k", "--size=8m", *argv])
                self.assertEqual(p.returncode, 0, p.stderr)
                self.assertEqual(mark_state(path), "sized")
                before = path.read_bytes()
                p = run(["--readonly", "--name=r", f"--filename={path}", "--rw=read", "--bs=64k", "--size=8m"])
                self.assertEqual(p.returncode, 0, p.stderr)
                p = run(["--name=r", f"--filename={path}", "--rw=read", "--bs=64k", "--size=8m"])
                self.assertEqual(p.returncode, 0, p.stderr)
                self.assertNotIn("Laying out IO file", p.stdout)
                self.assertEqual(path.read_bytes(), before, "the written file was laid out again")
                self.assertEqual(mark_state(path), "filled")
        # A writer that left part of the file unwritten: still filled before a read.
        path = self.tmp / "mnt-ext4" / "half"
        p = run(["--name=w", f"--filename={path}", "--rw=write", "--bs=64k", "--size=8m", "--io_size=4m"])
        self.assertEqual(p.returncode, 0, p.stderr)
        p = run(["--readonly", "--name=r", f"--filename={path}", "--rw=read", "--bs=64k", "--size=8m"])
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("its layout is unfinished and would be written again", p.stderr)
        self.assertTrue(self.tail_is_zeros(path))
        p = run(["--name=r", f"--filename={path}", "--rw=read", "--bs=64k", "--size=8m"])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("r: Laying out IO file (1 file / 8MiB)", p.stdout)
        self.assertFalse(self.tail_is_zeros(path))
        self.assertEqual(mark_state(path), "filled")


class HardLinkedTestFiles(TmpDirCase):
    """A test file of ioplan's that gained a second name (`ln`, a `cp -al` backup of its directory)."""

    def test_a_second_name_stops_writes_but_not_reads(self):
        f, kept = self.tmp / "f", self.tmp / "kept"
        job = ["--name=j", f"--filename={f}", "--bs=4k", "--size=64k", "--output-format=json"]
        p = run([*job, "--rw=write"])
        self.assertEqual(p.returncode, 0, p.stderr)
        if "user.ioplan" not in os.listxattr(f):
            self.skipTest("this file system refuses user xattrs: ioplan cannot tell its own files")
        os.link(f, kept)
        data = kept.read_bytes()
        # Reading changes nothing behind the other name: fio reads it, and so does ioplan.  It
        # refused: "f: ioplan made this file with one name, and it now has 2 ...", err=116, exit 1.
        for tool in (run_fio, run):
            p = tool([*job, "--rw=read"])
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual(json.loads(p.stdout[p.stdout.index("{"):])["jobs"][0]["read"]["io_bytes"], 64 << 10)
        # Writing it, or growing it for a larger read, would change what the other name holds:
        # refused in the preflight, exit 2 before any I/O, as the other refusals (it was the
        # layout's, exit 1, after a job before it had run: 'first' was laid out and written).
        first = self.tmp / "first"
        for extra in (["--rw=write"], ["--rw=read", "--size=128k"]):
            p = run(["--name=first", f"--filename={first}", "--rw=write", "--bs=4k", "--size=64k",
                     "--stonewall", *job, *extra])
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertIn(f"job 'j': {f}: ioplan made this file with one name, and it now has 2 (another name "
                          "reaches its data, which the job would change): refusing to write into it", p.stderr)
            self.assertFalse(first.exists())
        self.assertEqual(kept.read_bytes(), data)


@unittest.skipIf(os.geteuid() != 0, "a link of another user's needs root to make")
class SharedDirectoryTargets(TmpDirCase):
    def test_a_target_link_another_user_put_in_a_sticky_directory_is_not_followed(self):
        # ioplan follows a link the user named as a target; where fs.protected_symlinks is off, one
        # another user put in /tmp was followed too: an empty file of root's it named was "adopted"
        # and laid out with test data, a read job's layout too.
        shared, empty = self.tmp / "shared", self.tmp / "empty"
        empty.touch()
        planted_link(shared, "t", empty)
        for rw in ("write", "read"):
            p = run(["--name=j", f"--rw={rw}", "--size=64k", "--filename=t"], cwd=shared)
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertIn("ioplan: error: job 'j': t: it is a symbolic link of another user's (uid 65534) in ., a "
                          "directory anyone can write (sticky)", p.stderr)
            self.assertEqual(empty.stat().st_size, 0)
        # Nor by the metadata engines, which lay nothing out (filecreate opened root's file through it).
        for engine in ("filecreate", "dircreate"):
            p = run(["--name=j", "--rw=write", f"--ioengine={engine}", "--size=4k", "--filename=t"], cwd=shared)
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertIn("ioplan: error: job 'j': t: it is a symbolic link of another user's", p.stderr)
        # The user's own link there is the user's to name.
        (shared / "mine").symlink_to(empty)
        p = run(["--name=j", "--rw=write", "--size=64k", "--filename=mine"], cwd=shared)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(empty.stat().st_size, 64 << 10)


if __name__ == "__main__":
    unittest.main()
