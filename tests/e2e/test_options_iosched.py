"""tests/e2e/test_options_iosched.py - ioscheduler=: the I/O scheduler of the devices
under a job's files, switched before its I/O as fio 3.33 does, and put back by
ioplan when the run ends (fio leaves it switched).

Every case runs on a loop device of its own (queue/scheduler offers none,
mq-deadline and kyber), as root, against fio 3.33 on the same setup.  What the
device selects while the job runs is read by another process: the test itself
(waiting on the state with a deadline) or the job's exec_prerun, which both
tools run after the switch.  Each test puts its device's scheduler back and
detaches it at cleanup, whatever happened.
"""
import json
import os
import pathlib
import shutil
import signal
import stat
import struct
import subprocess
import unittest

from common import BIN, FIO, TmpDirCase, TmpfsCase, ext4_loop, loop_device, run, run_fio, wait_until


def sched_path(disk):
    return pathlib.Path("/sys/block") / disk / "queue" / "scheduler"


def selected(disk):
    """The scheduler the device selects ("mq-deadline" of "none [mq-deadline] kyber")."""
    text = sched_path(disk).read_text()
    return text[text.index("[") + 1:text.index("]")] if "[" in text else text.strip()


def set_scheduler(disk, name):
    sched_path(disk).write_text(name)


def usable(case, disk):
    """Skips the test where the loop device offers no mq-deadline and kyber to switch to."""
    try:
        offered = sched_path(disk).read_text().replace("[", "").replace("]", "").split()
    except OSError as e:
        case.skipTest(f"{disk}: no queue/scheduler: {e}")
    if not {"none", "mq-deadline", "kyber"} <= set(offered):
        case.skipTest(f"{disk} offers {offered}")


def start_at_none(case, disk):
    """The device starts at none; at cleanup (before it is detached) it is put back to
    what it had, whatever the test left."""
    usable(case, disk)
    was = selected(disk)
    case.addCleanup(set_scheduler, disk, was)
    set_scheduler(disk, "none")


def ext4_disk(case):
    """A fresh ext4 on a loop device: (mount point, the loop device's name)."""
    mnt = ext4_loop(case)
    src = subprocess.run(["findmnt", "-n", "-o", "SOURCE", str(mnt)], capture_output=True, text=True,
                         check=True).stdout.strip()
    disk = os.path.basename(src)
    start_at_none(case, disk)
    return mnt, disk


def jobs_of(p):
    """The JSON report's jobs (fio prints its error line on stdout ahead of the JSON)."""
    return json.loads(p.stdout[p.stdout.index("{"):])["jobs"]


def job_error(p):
    return jobs_of(p)[0]["error"]


class Root(TmpDirCase):
    def setUp(self):
        super().setUp()
        if os.geteuid() != 0 or shutil.which("losetup") is None:
            self.skipTest("needs root and losetup")

    def check_switched(self, target, disk, sched="kyber"):
        """Both tools switch disk to sched for a job on target (the prerun sees it); fio leaves
        it switched, ioplan puts it back."""
        args = ["--name=d", f"--filename={target}", "--size=1m", "--rw=read", f"--ioscheduler={sched}",
                f"--exec_prerun=cat {sched_path(disk)}"]
        for who, runner in (("ioplan", run), ("fio", run_fio)):
            if who == "fio" and not FIO:
                continue
            d = self.tmp / who
            d.mkdir()
            p = runner(args, cwd=str(d))
            self.assertEqual(p.returncode, 0, (who, p.stderr))
            self.assertIn(f"[{sched}]", (d / "d.prerun.txt").read_text(), who)
            self.assertEqual(selected(disk), sched if who == "fio" else "none", who)
            set_scheduler(disk, "none")


class OnAFileSystem(Root):
    def test_switched_while_the_job_runs_and_put_back_after_a_stop(self):
        mnt, disk = ext4_disk(self)
        p = subprocess.Popen([BIN, "--name=s", f"--filename={mnt}/f", "--size=4m", "--rw=randread",
                              "--time_based", "--runtime=60", "--ioscheduler=mq-deadline"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            wait_until(lambda: p.poll() is not None or selected(disk) == "mq-deadline", 30,
                       f"{disk} on mq-deadline")
            self.assertIsNone(p.poll(), "the job ended before its device was seen switched")
            p.send_signal(signal.SIGINT)
            out, err = p.communicate(timeout=30)
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
        self.assertEqual(p.returncode, 1, err)  # an interrupted run, as any
        self.assertEqual(selected(disk), "none", "put back after the stop")
        self.assertIn(f"ioplan: note: ioscheduler: {disk}'s I/O scheduler put back to none after the run "
                      "(ioplan had set mq-deadline)", out)

    def test_ends_as_fio_with_the_device_put_back(self):
        mnt, disk = ext4_disk(self)
        self.check_switched(f"{mnt}/f", disk, "mq-deadline")

    def test_an_unknown_name_is_einval_as_fio(self):
        mnt, disk = ext4_disk(self)
        args = ["--name=s", f"--filename={mnt}/f", "--size=1m", "--rw=read", "--ioscheduler=nosuch",
                "--output-format=json"]
        p = run(args)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertEqual(job_error(p), 22)
        self.assertIn(f"ioscheduler: unable to set io scheduler to nosuch (not found: {disk} offers [none] "
                      "mq-deadline kyber): Invalid argument (errno 22)", p.stderr)
        self.assertEqual(selected(disk), "none")
        if FIO:
            f = run_fio(args)
            self.assertEqual(f.returncode, 1, f.stderr)
            self.assertEqual(job_error(f), 22)
            self.assertIn("unable to set io scheduler to nosuch", f.stderr)
            self.assertEqual(selected(disk), "none")

    def test_clones_and_groups_switch_in_turn_and_the_first_scheduler_comes_back(self):
        # Four clones and a second job of the same group on one device, then a later group
        # that asks another name: no clone reads another's switch as a failure, the later
        # group runs on its own, and the device ends as it began.
        mnt, disk = ext4_disk(self)
        self.write("j.fio", f"[global]\ndirectory={mnt}\nsize=256k\nrw=read\n"
                            "[a]\nnumjobs=4\nioscheduler=mq-deadline\n[b]\nioscheduler=mq-deadline\n"
                            f"[c]\nstonewall\nioscheduler=kyber\nexec_prerun=cat {sched_path(disk)}\n")
        for who, runner in (("ioplan", run), ("fio", run_fio)):
            if who == "fio" and not FIO:
                continue
            p = runner([str(self.tmp / "j.fio"), "--output-format=json"], cwd=str(self.tmp))
            self.assertEqual(p.returncode, 0, (who, p.stderr))
            self.assertEqual([j["error"] for j in jobs_of(p)], [0] * 6, who)
            self.assertIn("[kyber]", (self.tmp / "c.prerun.txt").read_text(), who)
            self.assertEqual(selected(disk), "kyber" if who == "fio" else "none", who)
            set_scheduler(disk, "none")

    def test_not_root_is_eacces_as_fio(self):
        if shutil.which("setpriv") is None:
            self.skipTest("needs setpriv")
        mnt, disk = ext4_disk(self)
        for d in (mnt.parent, mnt):  # the way down to a directory nobody may write
            os.chmod(d, 0o755)
        (mnt / "u").mkdir()
        os.chmod(mnt / "u", 0o777)
        nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
        for who, prog in (("ioplan", BIN), ("fio", FIO)):
            if not prog:
                continue
            p = subprocess.run([*nobody, prog, "--name=s", f"--filename={mnt}/u/{who}", "--size=64k",
                                "--rw=write", "--ioscheduler=mq-deadline", "--output-format=json"],
                               capture_output=True, text=True, cwd="/", timeout=120)
            self.assertEqual(p.returncode, 1, (who, p.stderr))
            self.assertEqual(job_error(p), 13, who)
            self.assertEqual(selected(disk), "none", who)
            if who == "ioplan":
                self.assertIn(f"ioscheduler: opening {os.path.realpath('/sys/block/' + disk)}/queue/scheduler: "
                              "Permission denied (errno 13)", p.stderr)

    def test_the_null_engine_touches_no_device(self):
        mnt, disk = ext4_disk(self)
        args = ["--name=s", f"--filename={mnt}/f", "--size=1m", "--ioengine=null", "--ioscheduler=kyber"]
        if shutil.which("strace"):
            p = subprocess.run(["strace", "-f", "-e", "trace=open,openat", BIN, *args],
                               capture_output=True, text=True, timeout=120)
            self.assertNotIn("queue/scheduler", p.stderr)
        else:
            p = run(args)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertNotIn("ioscheduler", p.stdout)
        self.assertEqual(selected(disk), "none")
        if FIO:
            self.assertEqual(run_fio(args).returncode, 0)
            self.assertEqual(selected(disk), "none")


def partitioned_loop(case):
    """A loop device over an image with one MBR partition: (the partition's path, the disk's name)."""
    img = case.tmp / "part.img"
    with open(img, "wb") as f:
        f.truncate(16 << 20)
        f.write(bytes(446) + struct.pack("<B3sB3sII", 0, bytes(3), 0x83, bytes(3), 2048, (16 << 11) - 2048)
                + bytes(48) + b"\x55\xaa")
    p = subprocess.run(["losetup", "-P", "-f", "--show", str(img)], capture_output=True, text=True)
    if p.returncode:
        case.skipTest("losetup: " + p.stderr.strip())
    dev = p.stdout.strip()
    case.addCleanup(subprocess.run, ["losetup", "-d", dev])
    disk = os.path.basename(dev)
    # partx adds the table's partition itself (BLKPG), for a kernel without the MBR parser;
    # its /dev node is udev's, which a container may not run: the test makes its own from
    # the numbers in sysfs.
    if shutil.which("partx") is None:
        case.skipTest("needs partx")
    subprocess.run(["partx", "-a", dev], capture_output=True)
    numbers = pathlib.Path(f"/sys/block/{disk}/{disk}p1/dev")
    wait_until(numbers.exists, 10, str(numbers))
    major, minor = map(int, numbers.read_text().split(":"))
    part = case.tmp / "part1"
    os.mknod(part, 0o600 | stat.S_IFBLK, os.makedev(major, minor))
    return str(part), disk


class OnADevice(Root):
    def test_a_device_given_as_filename_is_switched(self):
        dev = loop_device(self, 16 << 20)
        disk = os.path.basename(dev)
        start_at_none(self, disk)
        self.check_switched(dev, disk)

    def test_a_partition_switches_its_disk(self):
        part, disk = partitioned_loop(self)
        start_at_none(self, disk)
        self.check_switched(part, disk)


class OnNoDevice(TmpfsCase):
    def test_tmpfs_is_a_note_and_the_job_runs(self):
        if not self.mounted:
            self.skipTest("no tmpfs")
        p = run(["--name=t", f"--filename={self.tmp}/f", "--size=64k", "--rw=write", "--ioscheduler=kyber"])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn(f"ioplan: note: job 't': ioscheduler=kyber: {self.tmp}/f is on no block device", p.stdout)
        if FIO:
            self.assertEqual(run_fio(["--name=t", f"--filename={self.tmp}/g", "--size=64k", "--rw=write",
                                      "--ioscheduler=kyber"]).returncode, 0)

    def test_an_empty_name_is_refused_where_it_is_written(self):
        self.write("e.fio", "[e]\nsize=1m\nioscheduler=\n")
        p = run([str(self.tmp / "e.fio"), "--parse-only"])
        self.assertEqual(p.returncode, 2)
        self.assertIn("e.fio:3:13: error: empty value for option 'ioscheduler'", p.stderr)


if __name__ == "__main__":
    unittest.main()
