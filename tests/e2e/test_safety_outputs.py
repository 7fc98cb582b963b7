"""tests/e2e/test_safety_outputs.py - where ioplan writes besides a job's targets, on real mounts.

Every file ioplan writes that is not a job's target - the report, rank files,
logs, iologs, verify state, exec redirects, prerun output, merged traces -
goes through one rule (docs/safety.md): never a block device or a mounted
one, never a loop device's backing file, never a user's file under a name
ioplan made up, never an open that waits forever for a FIFO's reader.
Directories and files ioplan removes must be its own, and
a loop device's backing file is refused as a target whatever allow_* says.

Each test builds the real situation (loop devices holding mounted ext4/xfs,
the user's files with known bytes), runs the binary and compares sha256 of
the user's data before and after, the exit code and the message.  Without
root, or where the machine refuses loop devices or mounts, they skip.
"""
import hashlib
import os
import re
import shutil
import subprocess
import unittest

from common import BIN, TmpDirCase, held_at_first_open, planted_link, run, run_fio, swappable_dir, wait_until, waits_in
from test_safety import LoopMounts, sh


def sha(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def mounted_fs(case, fstype, mib=320):
    """A loop device holding a mounted, writable fstype, and its mount point.  The file system is
    frozen (fsfreeze) so that its own background writes - journal commits, xfs's idle log - cannot
    change the device's bytes under the test: whatever changes them is ioplan."""
    dev = case.loop_device(mib)
    mkfs = sh(f"mkfs.{fstype}", "-q", "-f" if fstype == "xfs" else "-F", dev)
    if mkfs.returncode != 0:
        case.skipTest(f"mkfs.{fstype} failed: {mkfs.stderr.strip()[:200]}")
    mnt = case.tmp / f"mnt-{fstype}"
    mnt.mkdir()
    p = sh("mount", dev, str(mnt))
    if p.returncode != 0:
        case.skipTest(f"mount {fstype} refused here: {p.stderr.strip()}")
    case.addCleanup(sh, "umount", "-l", str(mnt))
    p = sh("fsfreeze", "-f", str(mnt))
    if p.returncode != 0:
        case.skipTest(f"fsfreeze refused here: {p.stderr.strip()}")
    case.addCleanup(sh, "fsfreeze", "-u", str(mnt))
    return dev, mnt


JOB = ["--name=j", "--size=64k", "--bs=4k"]


@unittest.skipIf(os.geteuid() != 0, "loop devices and mounts need root")
class ReportsAndSideFilesNeverOnDevices(LoopMounts):
    def job(self, *extra, cwd=None):
        return run([*JOB, f"--filename={self.tmp / 'target'}", "--rw=write", *extra], cwd=cwd or self.tmp)

    def check_output_refused(self, fstype):
        dev, _ = mounted_fs(self, fstype)
        before = sha(dev)
        for fmt in ("json", "terse"):
            p = self.job(f"--output={dev}", f"--output-format={fmt}")
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertIn(f"ioplan: error: --output={dev}: refusing to write to {dev}: it is a block device and "
                          f"{os.path.basename(dev)} holds a filesystem mounted on", p.stderr)
            self.assertFalse((self.tmp / "target").exists(), "the job ran before the refusal")
            self.assertEqual(sha(dev), before, f"--output-format={fmt} wrote onto the mounted {fstype}")

    def test_output_onto_a_mounted_ext4_device_is_refused(self):
        self.check_output_refused("ext4")

    def test_output_onto_a_mounted_xfs_device_is_refused(self):
        self.check_output_refused("xfs")

    def test_every_side_file_is_refused_on_a_device(self):
        # Names ioplan makes up can still lead to a device: a symlink by that name.
        dev, _ = mounted_fs(self, "ext4", 64)
        before = sha(dev)
        ranks = self.tmp / "ranks"
        ranks.mkdir()
        cases = [
            (["--write_iolog=" + dev], "write_iolog", None),
            (["--write_bw_log=j"], "write_bw_log", "j_bw.1.log"),
            (["--write_lat_log=j"], "write_lat_log", "j_lat.1.log"),
            (["--write_hist_log=j"], "write_hist_log", "j_clat_hist.1.log"),
            (["--verify=crc32c", "--verify_state_save=1"], "verify_state_save", "local-j-0-verify.state"),
            (["--exec_prerun=true"], "exec_prerun", "j.prerun.txt"),
            (["--exec_postrun=true"], "exec_postrun", "j.postrun.txt"),
            (["--bandwidth-log"], "--bandwidth-log", "agg-read_bw.log"),
            ([f"--rank-output={ranks}"], "--rank-output", "ranks/rank-0.json"),
        ]
        for extra, option, name in cases:
            with self.subTest(option):
                if name:
                    link = self.tmp / name
                    link.symlink_to(dev)
                    self.addCleanup(link.unlink)
                p = self.job(*extra)
                self.assertEqual(p.returncode, 2, p.stderr)
                self.assertIn(option, p.stderr)
                self.assertIn(f"it is a block device and {os.path.basename(dev)} holds a filesystem mounted on",
                              p.stderr)
                self.assertEqual(sha(dev), before)
        link = self.tmp / "j.stdout"
        link.symlink_to(dev)
        p = run(["--name=j", "--ioengine=exec", "--program=echo", "--arguments=over", "--runtime=1"], cwd=self.tmp)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("std_redirect: refusing to write to j.stdout: it is a block device", p.stderr)
        self.assertEqual(sha(dev), before)

    def test_null_terminal_and_redirected_stdout_stay_writable(self):
        p = self.job("--output=/dev/null", "--write_iolog=/dev/null", "--output-format=terse")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout, "")
        p = self.job("--output=/dev/stdout", "--output-format=terse")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertTrue(p.stdout.startswith("3;"), p.stdout[:80])


@unittest.skipIf(os.geteuid() != 0, "loop devices and mounts need root")
class LoopBackingFiles(LoopMounts):
    def test_backing_file_of_a_mounted_loop_device_is_refused_even_when_allowed(self):
        img = self.tmp / "disk64.img"  # LoopMounts.loop_device's image
        dev, mnt = mounted_fs(self, "ext4", 64)
        before = sha(img)
        p = run([*JOB, f"--filename={img}", "--rw=write", f"--offset={32 << 20}", "--allow_existing_file_write=1"])
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn(f"job 'j': {img} is the backing file of {dev}, and {os.path.basename(dev)} holds a "
                      f"filesystem mounted on {mnt}", p.stderr)
        self.assertEqual(sha(img), before)

    def test_a_loop_device_sharing_its_backing_file_with_a_mounted_one_is_refused(self):
        img = self.tmp / "disk64.img"  # LoopMounts.loop_device's image
        upper, mnt = mounted_fs(self, "ext4", 64)  # loopB: mounted
        p = sh("losetup", "-f", "--show", str(img))  # loopA: the same file, unmounted
        if p.returncode:
            self.skipTest(f"a second loop device on one file refused: {p.stderr.strip()}")
        other = p.stdout.strip()
        self.addCleanup(sh, "losetup", "-d", other)
        before = sha(img)
        p = run([*JOB, f"--filename={other}", "--rw=write", f"--offset={32 << 20}",
                 f"--allow_device_write={other}"])
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn(f"{os.path.basename(other)} shares its backing file {img} with {upper}, and "
                      f"{os.path.basename(upper)} holds a filesystem mounted on {mnt}", p.stderr)
        self.assertEqual(sha(img), before)
        # Unmounted, the write through the named loop device is the user's decision again.
        sh("fsfreeze", "-u", str(mnt))
        self.assertEqual(sh("umount", str(mnt)).returncode, 0)
        p = run([*JOB, f"--filename={other}", "--rw=write", f"--offset={32 << 20}",
                 f"--allow_device_write={other}"])
        self.assertEqual(p.returncode, 0, p.stderr)


    def test_a_loop_device_over_a_mounted_device_is_refused(self):
        # The file system takes the first 32 MiB of the lower device; the job aims at 48 MiB
        # through the upper loop device, so the bytes there show whether anything was written.
        lower = self.loop_device(64)
        if sh("mkfs.ext4", "-q", "-F", lower, "32M").returncode:
            self.skipTest("mkfs.ext4 failed")
        intact = self.region_keeper(lower, 48 << 20)
        mnt = self.tmp / "mnt"
        mnt.mkdir()
        if sh("mount", lower, str(mnt)).returncode:
            self.skipTest("mounting a loop device is refused here")
        self.addCleanup(sh, "umount", "-l", str(mnt))
        p = sh("losetup", "-f", "--show", lower)
        if p.returncode:
            self.skipTest(f"losetup on a loop device refused: {p.stderr.strip()}")
        upper = p.stdout.strip()
        self.addCleanup(sh, "losetup", "-d", upper)
        p = run([*JOB, f"--filename={upper}", "--rw=write", f"--offset={48 << 20}", f"--allow_device_write={upper}"])
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn(f"{os.path.basename(upper)} writes through to its backing device, and "
                      f"{os.path.basename(lower)} holds a filesystem mounted on {mnt}", p.stderr)
        self.assertTrue(intact(), "the refused job wrote through to the mounted device")


class RemovalsOnlyOfWhatIoplanMade(TmpDirCase):
    def test_dirdelete_keeps_the_users_directories(self):
        for d in ("dd/j.0.0", "dd/j.0.1", "ud2"):
            (self.tmp / d).mkdir(parents=True)
        (self.tmp / "dd/j.0.0/.keep").write_text("mine")
        os.remove(self.tmp / "dd/j.0.0/.keep")  # empty again: rmdir alone would take it
        p = run(["--name=j", "--directory=dd", "--ioengine=dirdelete", "--nrfiles=2", "--size=8k"], cwd=self.tmp)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("job 'j': dd/j.0.0: refusing to remove what ioplan did not create", p.stderr)
        self.assertIn("job 'j': dd/j.0.1: refusing to remove", p.stderr)
        p = run(["--name=j", "--filename=ud2", "--ioengine=dirdelete", "--size=8k"], cwd=self.tmp)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("job 'j': ud2: refusing to remove", p.stderr)
        for d in ("dd/j.0.0", "dd/j.0.1", "ud2"):
            self.assertTrue((self.tmp / d).is_dir(), f"{d} was removed")

    def test_dirdelete_removes_what_dircreate_made_and_what_it_makes(self):
        job = ["--name=j", "--directory=dd", "--nrfiles=2", "--size=8k"]
        (self.tmp / "dd").mkdir()
        p = run([*job, "--ioengine=dircreate"], cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        if "user.ioplan" not in os.listxattr(self.tmp / "dd/j.0.0"):
            self.skipTest("this file system refuses user xattrs on directories")
        p = run([*job, "--ioengine=dirdelete"], cwd=self.tmp)  # an earlier run's, by its mark
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(list((self.tmp / "dd").iterdir()), [])
        p = run([*job, "--ioengine=dirdelete"], cwd=self.tmp)  # made at set-up by this run
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(list((self.tmp / "dd").iterdir()), [])

    def test_filedelete_keeps_a_users_file_whatever_allow_existing_file_write_says(self):
        user = self.tmp / "precious"
        user.write_bytes(os.urandom(8192))
        before = sha(user)
        p = run(["--name=j", f"--filename={user}", "--ioengine=filedelete", "--size=8k",
                 "--allow_existing_file_write=1"])
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn(f"job 'j': {user}: refusing to remove what ioplan did not create", p.stderr)
        self.assertEqual(sha(user), before)

    def test_a_trigger_file_that_holds_data_before_the_run_is_refused(self):
        # --trigger-file=FILE is removed when found, as fio's: one naming a user's file removed
        # it within the first second and stopped the run (exit 0, nothing said; fio 3.33 the
        # same).  Now exit 2 before any I/O; an empty one still fires and goes, as fio's.
        user = self.write("notes.txt", "the user's notes\n")
        job = ["--name=j", "--ioengine=null", "--size=1g", "--time_based", "--runtime=20"]
        p = run([f"--trigger-file={user}", *job])
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn(f"ioplan: error: --trigger-file={user} exists and holds data (17 bytes): the run would stop "
                      "at once and remove it (fio 3.33 does); name a file that does not exist yet; nothing was run",
                      p.stderr)
        self.assertEqual(user.read_text(), "the user's notes\n")
        empty = self.write("trig", "")
        p = run([f"--trigger-file={empty}", "--output-format=terse", *job])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertFalse(empty.exists())


class SideFilesKeepUserFiles(TmpDirCase):
    USER_FILES = ("j_bw.1.log", "j_lat.1.log", "local-j-0-verify.state", "j.prerun.txt", "j.stdout",
                  "agg-read_bw.log")
    RUNS = [
        (["--rw=write", "--write_bw_log=j"], "write_bw_log: j_bw.1.log"),
        (["--rw=write", "--write_lat_log=j"], "write_lat_log: j_lat.1.log"),
        (["--rw=write", "--verify=crc32c", "--verify_state_save=1"],
         "verify_state_save: local-j-0-verify.state"),
        (["--rw=write", "--exec_prerun=true"], "exec_prerun: j.prerun.txt"),
        (["--rw=read", "--bandwidth-log"], "--bandwidth-log: ./agg-read_bw.log"),
    ]

    def runs(self):
        for extra, _ in self.RUNS:
            yield run([*JOB, "--filename=t", *extra, "--output-format=terse"], cwd=self.tmp)
        yield run(["--name=j", "--ioengine=exec", "--program=echo", "--arguments=ours", "--runtime=1"], cwd=self.tmp)

    def test_a_users_files_by_side_file_names_are_kept(self):
        sums = {}
        for name in self.USER_FILES:
            (self.tmp / name).write_bytes(b"the user's own " + name.encode() + os.urandom(64))
            sums[name] = sha(self.tmp / name)
        results = list(self.runs())
        for p, (_, what) in zip(results, self.RUNS + [(None, "std_redirect: j.stdout")]):
            with self.subTest(what):
                self.assertEqual(p.returncode, 2, p.stderr)
                self.assertIn(f"{what} exists and ioplan did not write it (or it changed since): refusing to "
                              "replace it", p.stderr)
        for name, digest in sums.items():
            self.assertEqual(sha(self.tmp / name), digest, f"{name} was replaced")

    def test_plot_keeps_a_users_file_by_its_scripts_name(self):
        # `ioplan plot -o c.svg` writes its gnuplot script to c.svg.gp, a name the user did not
        # give: a file of the user's by it (a script of his own kept beside the chart, or one
        # edited by hand) was replaced, exit 0.  Now only an empty one or an earlier plot's is.
        result, chart, script = self.tmp / "r.json", self.tmp / "c.svg", self.tmp / "c.svg.gp"
        p = run(["--name=j", "--ioengine=null", "--size=1m", "--output-format=json", f"--output={result}"])
        self.assertEqual(p.returncode, 0, p.stderr)
        script.write_text("# the user's own\nplot sin(x)\n")
        p = run(["plot", str(result), "-o", str(chart)])
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertEqual(p.stderr, f"ioplan plot: error: -o {chart} (its gnuplot script {script}): {script} exists "
                                   "and ioplan did not write it (or it changed since): refusing to replace it (move "
                                   "it away, or run where it is not)\n")
        self.assertEqual(script.read_text(), "# the user's own\nplot sin(x)\n")
        self.assertFalse(chart.exists())
        script.write_text("")  # an empty one is replaced, then the plot's own on each plot after
        for _ in range(2):
            p = run(["plot", str(result), "-o", str(chart)])
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn(f"set output '{chart}'", script.read_text())
        if "user.ioplan" not in os.listxattr(script):
            self.skipTest("this file system refuses user xattrs: ioplan cannot tell its own files")

    def test_a_jobs_file_that_is_also_a_side_file_is_refused(self):
        # filename=j_bw.1.log with write_bw_log=j: the log and the data went to one file
        # (the data laid out, the log written over it; fio ends with a file of neither).
        cases = [(self.RUNS[0][0], "j_bw.1.log", "write_bw_log"), (self.RUNS[1][0], "j_lat.1.log", "write_lat_log"),
                 (self.RUNS[2][0], "local-j-0-verify.state", "verify_state_save"),
                 (self.RUNS[3][0], "j.prerun.txt", "exec_prerun")]
        for extra, name, option in cases:
            for there in (False, True):
                with self.subTest(option, there=there):
                    if there:
                        (self.tmp / name).write_bytes(b"data" * 16384)
                    p = run([*JOB, f"--filename={name}", *extra, "--allow_existing_file_write=1"], cwd=self.tmp)
                    self.assertEqual(p.returncode, 2, p.stderr)
                    self.assertIn(f"ioplan: error: job 'j': its file {name} is job 'j''s {option} file {name}: "
                                  "the run would write one over the other; nothing was run", p.stderr)
                    if there:
                        self.assertEqual((self.tmp / name).read_bytes(), b"data" * 16384)
                    else:
                        self.assertFalse((self.tmp / name).exists())
                    (self.tmp / name).unlink(missing_ok=True)
        # So are the files the cli writes: --bandwidth-log's, and the store --save writes to.
        for extra, name, what in ((["--bandwidth-log"], "agg-write_bw.log", "the --bandwidth-log file agg-write_bw.log"),
                                  (["--save", "--results-db=r.db"], "r.db", "the results store r.db")):
            with self.subTest(what):
                p = run([*JOB, f"--filename={name}", "--rw=write", *extra], cwd=self.tmp)
                self.assertEqual(p.returncode, 2, p.stderr)
                self.assertIn(f"ioplan: error: job 'j': its file {name} is {what}: the run would write one over the "
                              "other; nothing was run", p.stderr)
                self.assertEqual(os.listdir(self.tmp), [])

    def test_two_side_files_of_one_name_are_refused_one_options_shared_runs(self):
        # write_iolog=a_bw.1.log beside write_bw_log=a (or a verify state's, or exec's
        # JOB.stdout): two writers of one file, which kept 538 of 1024 trace lines.  One
        # option's name shared by several jobs (per_job_logs=0, a write_iolog) is one writer's.
        base = "[global]\nioengine=null\nsize=1m\n"
        cases = {"[a]\nwrite_bw_log=a\n[b]\nwrite_iolog=a_bw.1.log\n":
                 "job 'b''s write_iolog file a_bw.1.log is job 'a''s write_bw_log file a_bw.1.log",
                 "[c]\nrw=write\nioengine=psync\nfilename=f\nverify=crc32c\nwrite_iolog=local-c-0-verify.state\n":
                 "job 'c''s write_iolog file local-c-0-verify.state is job 'c''s verify_state_save file "
                 "local-c-0-verify.state",
                 "[x]\nioengine=exec\nprogram=true\nruntime=1\n[e]\nwrite_iolog=./x.stdout\n":
                 "job 'e''s write_iolog file ./x.stdout is job 'x''s std_redirect file x.stdout"}
        for body, what in cases.items():
            with self.subTest(what):
                (self.tmp / "j.fio").write_text(base + body)
                p = run(["j.fio"], cwd=self.tmp)
                self.assertEqual(p.returncode, 2, p.stderr)
                self.assertIn(f"ioplan: error: {what}: the run would write one over the other; nothing was run",
                              p.stderr)
                self.assertEqual(sorted(os.listdir(self.tmp)), ["j.fio"])
        shared = "per_job_logs=0\nwrite_bw_log=s\nwrite_iolog=t.log\n"
        (self.tmp / "j.fio").write_text(base + f"[a]\n{shared}[b]\n{shared}"
                                        "[x]\nioengine=exec\nprogram=true\nruntime=1\nnumjobs=2\n")
        p = run(["j.fio", "--output-format=terse"], cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertTrue((self.tmp / "s_bw.log").exists() and (self.tmp / "t.log").exists())

    def test_a_jobs_file_that_is_the_store_or_a_job_file_by_another_name_is_refused(self):
        # The rule above matched names only: a symbolic or hard link to the store, with
        # allow_existing_file_write=1 (on when run as fio), let the job write its data over
        # every run kept there, and then the save failed on what was left.
        store = self.tmp / "r.db"
        p = run(["--name=x", "--ioengine=null", "--size=8m", "--save", f"--results-db={store}",
                 "--output-format=terse"], cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        (self.tmp / "soft.db").symlink_to("r.db")
        os.link(store, self.tmp / "hard.db")
        kept = sha(store)
        for name in ("soft.db", "hard.db"):
            with self.subTest(name):
                p = run([*JOB, f"--filename={name}", "--rw=write", "--allow_existing_file_write=1", "--save",
                         f"--results-db={store}"], cwd=self.tmp)
                self.assertEqual(p.returncode, 2, p.stderr)
                self.assertIn(f"ioplan: error: job 'j': its file {name} is the results store {store} (another "
                              "name of the same file): the run would write one over the other; nothing was run",
                              p.stderr)
                self.assertEqual(sha(store), kept)
        # A job file is refused to a job that would write it, not to one that reads it.
        (self.tmp / "j.fio").write_text("[j]\nfilename=alias\nsize=4k\nallow_existing_file_write=1\nrw=write\n")
        (self.tmp / "alias").symlink_to("j.fio")
        p = run(["j.fio"], cwd=self.tmp)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("its file alias is the job file j.fio being read (another name", p.stderr)
        self.assertTrue((self.tmp / "j.fio").read_text().startswith("[j]\n"))
        (self.tmp / "r.fio").write_text("[j]\nfilename=ralias\nsize=32\nbs=32\nrw=read\n")
        (self.tmp / "ralias").symlink_to("r.fio")
        p = run(["r.fio", "--output-format=json"], cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)

    def test_a_side_file_that_is_the_jobs_own_file_by_another_name_is_refused(self):
        # write_iolog=sl, sl a symbolic link to the job's data file: the names differ, so the
        # check of names passed it and the trace was appended to the data (exit 0; fio 3.33
        # appends it too); so was a log whose made-up name is such a link.  A hard link was
        # refused only mid-run (exit 1).  Now by device and inode: exit 2 before any I/O.
        p = run([*JOB, "--filename=d.dat", "--rw=write"], cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        kept = sha(self.tmp / "d.dat")
        for name, what, extra, link in (("sl", "write_iolog", ["--write_iolog=sl"], os.symlink),
                                        ("j_bw.1.log", "write_bw_log", ["--write_bw_log=j"], os.symlink),
                                        ("hl", "write_iolog", ["--write_iolog=hl"], os.link)):
            with self.subTest(name):
                link(self.tmp / "d.dat" if link is os.link else "d.dat", self.tmp / name)
                p = run([*JOB, "--filename=d.dat", "--rw=read", *extra], cwd=self.tmp)
                (self.tmp / name).unlink()
                self.assertEqual(p.returncode, 2, p.stderr)
                self.assertIn(f"ioplan: error: job 'j': its file d.dat is job 'j''s {what} file {name} "
                              "(another name of the same file): the run would write one over the other; nothing "
                              "was run", p.stderr)
                self.assertEqual(sha(self.tmp / "d.dat"), kept)

    def test_ioplans_own_side_files_are_replaced_by_a_rerun(self):
        first = [p.returncode for p in self.runs()]
        self.assertEqual(first, [0] * len(first))
        if "user.ioplan" not in os.listxattr(self.tmp / "j_bw.1.log"):
            self.skipTest("this file system refuses user xattrs: ioplan cannot tell its own side files")
        again = list(self.runs())
        self.assertEqual([p.returncode for p in again], [0] * len(again), [p.stderr for p in again])
        self.assertEqual((self.tmp / "j.stdout").read_text(), "ours\n")

    def test_a_rerun_leaves_hard_linked_copies_of_its_side_files_as_they_were(self):
        # `cp -al` (or rsync --link-dest) keeps the first run's logs as hard links: a rerun
        # truncated ioplan's own files in place, and emptied and rewrote the kept copies with them.
        first = [p.returncode for p in self.runs()]
        self.assertEqual(first, [0] * len(first))
        if "user.ioplan" not in os.listxattr(self.tmp / "j_bw.1.log"):
            self.skipTest("this file system refuses user xattrs: ioplan cannot tell its own side files")
        kept = self.tmp / "kept"
        kept.mkdir()
        sides = sorted(p.name for p in self.tmp.iterdir() if p.is_file() and p.name != "t")
        self.assertTrue(set(self.USER_FILES) <= set(sides), sides)
        sums = {}
        for name in sides:
            os.link(self.tmp / name, kept / name)
            sums[name] = sha(kept / name)
        again = list(self.runs())
        self.assertEqual([p.returncode for p in again], [0] * len(again), [p.stderr for p in again])
        for name in sides:
            with self.subTest(name):
                self.assertEqual(sha(kept / name), sums[name], f"the kept copy of {name} was rewritten")
                self.assertEqual((kept / name).stat().st_nlink, 1, f"{name} is still the kept copy's file")
        self.assertEqual((self.tmp / "j.stdout").read_text(), "ours\n")
        self.assertIn("user.ioplan", os.listxattr(self.tmp / "j_bw.1.log"))

    @unittest.skipIf(os.geteuid() != 0, "a link of another user's needs root to make")
    def test_a_link_another_user_put_in_a_shared_directory_is_not_followed(self):
        # Where fs.protected_symlinks is off, root's run in /tmp wrote through another user's link
        # at a name it writes: the log went into the file it named (here an earlier run's log,
        # ioplan's own and so replaceable, in another directory), the report into an empty file.
        kept, shared = self.tmp / "kept", self.tmp / "shared"
        kept.mkdir()
        shared.mkdir()
        shared.chmod(0o1777)
        p = run([*JOB, "--filename=t", "--rw=write", "--write_bw_log=j"], cwd=kept)
        self.assertEqual(p.returncode, 0, p.stderr)
        log = sha(kept / "j_bw.1.log")
        empty = self.tmp / "empty"
        empty.touch()
        for name, to in (("j_bw.1.log", kept / "j_bw.1.log"), ("report.txt", empty)):
            planted_link(shared, name, to)
        for extra, what in ((["--write_bw_log=j"], "job 'j': write_bw_log: j_bw.1.log"),
                            (["--output=report.txt"], "--output=report.txt")):
            p = run([*JOB, "--filename=t", "--rw=write", *extra], cwd=shared)
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertIn(f"ioplan: error: {what}: it is a symbolic link of another user's (uid 65534) in ., a "
                          "directory anyone can write (sticky)", p.stderr)
            self.assertFalse((shared / "t").exists(), "the job ran before the refusal")
        self.assertEqual(sha(kept / "j_bw.1.log"), log)
        self.assertEqual(empty.stat().st_size, 0)
        # A link of this user's own there is the user's: written through, as ever.
        (shared / "mine.txt").symlink_to(empty)
        p = run([*JOB, "--filename=t", "--rw=write", "--output=mine.txt", "--output-format=terse"], cwd=shared)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("ioplan-", empty.read_text())

    @unittest.skipIf(os.geteuid() != 0, "a link of another user's needs root to make")
    def test_a_directory_link_another_user_put_in_a_shared_directory_is_not_followed(self):
        # The rule above was applied to the last part of a name only: with shared/sub a link of
        # another user's to a directory of root's, --write_bw_log=shared/sub/j, --output=shared/sub/out
        # and filename=shared/sub/t all went into root's directory, exit 0.  The kernel's
        # fs.protected_symlinks judges every link a walk follows.
        shared, victim = self.tmp / "shared", self.tmp / "victim"
        victim.mkdir()
        planted_link(shared, "sub", victim)
        (self.tmp / "mine").symlink_to("shared/sub")   # the user's own link, through the planted one
        for extra, what, via in (
                (["--filename=t", "--write_bw_log=shared/sub/j"], "job 'j': write_bw_log: shared/sub/j_bw.1.log",
                 "shared/sub"),
                (["--filename=t", "--output=shared/sub/out"], "--output=shared/sub/out", "shared/sub"),
                (["--filename=shared/sub/t"], "job 'j': shared/sub/t", "shared/sub"),
                (["--filename=t", "--write_iolog=mine/trace"], "job 'j': write_iolog: mine/trace",
                 "./shared/sub")):
            with self.subTest(extra=extra):
                p = run([*JOB, "--rw=write", *extra], cwd=self.tmp)
                self.assertEqual(p.returncode, 2, p.stderr)
                self.assertIn(f"ioplan: error: {what}: {via}, a directory on its way, is a symbolic link of "
                              "another user's (uid 65534) in", p.stderr)
                self.assertFalse((self.tmp / "t").exists(), "the job ran before the refusal")
        self.assertEqual(list(victim.iterdir()), [])
        # A link of this user's own in the shared directory is the user's: written through, as ever.
        (shared / "own").symlink_to(victim)
        p = run([*JOB, "--rw=write", "--filename=t", "--write_bw_log=shared/own/j"], cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertTrue((victim / "j_bw.1.log").is_file())

    @unittest.skipIf(os.geteuid() != 0, "a directory of another user's needs root to make")
    @unittest.skipUnless(shutil.which("gdb"), "gdb is not installed")
    def test_a_directory_swapped_for_a_planted_link_just_before_the_open_is_not_followed(self):
        # shared/sub is another user's directory in a sticky shared one, so that user may put a
        # link in its place at any moment.  The look at each part of the name came before the
        # open, which walked the name again and followed a link put there in between: gdb stops
        # ioplan at the open's system call, after every look, and the swap is made there; the
        # report (or the log) went into root's directory.  The open's own walk now refuses it.
        for extra, name in ((["--output=shared/sub/out.json"], "out.json"),
                            (["--write_bw_log=shared/sub/j"], "j_bw.1.log")):
            with self.subTest(name):
                sub, victim, swap = swappable_dir(self.tmp)
                p = held_at_first_open(self, "safety_open_output_seen",  # the open's first call, after the looks
                                       [BIN, *JOB, "--filename=t", "--rw=write", *extra, "--output-format=json"],
                                       self.tmp, swap)
                self.assertTrue(sub.is_symlink(), "the swap was not made")
                self.assertEqual(list(victim.iterdir()), [], "written through the planted link")
                self.assertIn(f"sub, on the way to shared/sub/{name}, is a symbolic link of another user's (uid "
                              "65534) in a directory anyone can write (sticky)", p.stderr)
                self.assertIn("exited with code", p.stdout)
                (self.tmp / "t").unlink(missing_ok=True)

    def test_a_users_file_that_takes_a_side_files_name_during_the_run_is_kept(self):
        # The preflight found b_bw.2.log, b.prerun.txt and c.stdout missing; while group 0 ran,
        # another program (here a's exec_prerun, so that no timing is involved) wrote a user's
        # file under each name.  The opens, as group 1 started, replaced all three (fio would
        # too); the open now applies the rule again: they are kept, each job fails saying why.
        user = {n: f"the user's own {n}\n" for n in ("b_bw.2.log", "b.prerun.txt", "c.stdout")}
        writes = " && ".join(f"printf %s \"{t.strip()}\" > {n}" for n, t in user.items())
        (self.tmp / "races.fio").write_text(
            f"[a]\nfilename=a.dat\nsize=64k\nrw=write\nexec_prerun={writes}\n"
            "[b]\nstonewall\nfilename=b.dat\nsize=64k\nrw=write\nwrite_bw_log=b\nexec_prerun=echo ours\n"
            "[c]\nioengine=exec\nprogram=echo\narguments=ours\nruntime=1\n")
        p = run(["races.fio", "--output-format=json"], cwd=self.tmp)
        self.assertEqual(p.returncode, 1, p.stderr)
        for name, text in user.items():
            self.assertEqual((self.tmp / name).read_text(), text.strip(), f"{name} was replaced")
        self.assertIn("exec_prerun: b.prerun.txt exists and ioplan did not write it (or it changed since): "
                      "refusing to replace it", p.stderr)
        self.assertIn("std_redirect: c.stdout exists and ioplan did not write it", p.stderr)
        self.assertIn("log file b_bw.2.log: it exists and ioplan did not write it", p.stderr)
        # Clones share NAME.prerun.txt and NAME.stdout: one holds it open, unmarked, while the
        # next opens it; that file is the run's own, not refused.
        for f in user:
            (self.tmp / f).unlink()
        p = run(["--name=p", "--filename=p.dat", "--size=64k", "--rw=write", "--numjobs=3",
                 "--exec_prerun=echo one; sleep 0.2; echo two"], cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("two\n", (self.tmp / "p.prerun.txt").read_text())

    def test_an_e4defrag_donor_that_holds_data_is_refused_before_any_io(self):
        # The extent moves give the donor the file's old blocks.  A user's file, the job's own
        # file or a link as donorname= failed each clone's start after the layout with a bare
        # 'e4defrag init (iodepth=1) ...: File exists' (exit 1); now exit 2 before any I/O,
        # naming the donor and why, with nothing written.
        (self.tmp / "donor.txt").write_text("the user's own donor.txt\n")
        (self.tmp / "dl").symlink_to("nowhere")
        for donor, why in (("donor.txt", "exists and holds data ioplan was not given"),
                           ("t", "is one of the job's own files"),
                           ("dl", "is a symbolic link (ioplan makes no file through one)")):
            with self.subTest(donor):
                p = run([*JOB, "--filename=t", "--rw=write", "--ioengine=e4defrag", f"--donorname={donor}"],
                        cwd=self.tmp)
                self.assertEqual(p.returncode, 2, p.stderr)
                self.assertIn(f"job 'j': donorname={donor}: {donor} {why}: the extent moves would give it "
                              "the file's old blocks", p.stderr)
                self.assertFalse((self.tmp / "t").exists(), "the job laid its file out before the refusal")
        self.assertEqual((self.tmp / "donor.txt").read_text(), "the user's own donor.txt\n")

    def test_a_users_rank_file_is_kept(self):
        ranks = self.tmp / "ranks"
        ranks.mkdir()
        mine = ranks / "rank-0.json"
        mine.write_text('{"mine": true}\n')
        p = run([*JOB, "--filename=t", "--rw=write", f"--rank-output={ranks}"], cwd=self.tmp)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn(f"--rank-output={ranks}: {mine} exists and ioplan did not write it", p.stderr)
        self.assertFalse((self.tmp / "t").exists(), "the job ran before the refusal")
        self.assertEqual(mine.read_text(), '{"mine": true}\n')
        mine.unlink()
        for _ in range(2):  # its own, then again over its own
            p = run([*JOB, "--filename=t", "--rw=write", f"--rank-output={ranks}"], cwd=self.tmp)
            self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn('"rank"', mine.read_text())

    def test_a_verify_dump_keeps_a_users_file_by_its_name(self):
        # Dump names carry the failing offset, known only at run time: the open itself keeps the file.
        job = ["--name=j", "--filename=t", "--size=64k", "--bs=4k", "--verify=crc32c"]
        p = run([*job, "--rw=write", "--do_verify=0"], cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(self.tmp / "t", "r+b") as f:
            f.seek(100)
            f.write(b"corrupt!")
        mine = self.tmp / "t.0.received"
        mine.write_bytes(b"the user's own dump\n")
        p = run([*job, "--rw=read", "--verify_only=1", "--verify_dump=1"], cwd=self.tmp)
        self.assertEqual(p.returncode, 1, p.stderr)  # the verify failure itself
        self.assertIn("verify_dump: t.0.received exists and ioplan did not write it", p.stderr)
        self.assertEqual(mine.read_bytes(), b"the user's own dump\n")
        mine.unlink()
        p = run([*job, "--rw=read", "--verify_only=1", "--verify_dump=1"], cwd=self.tmp)
        self.assertNotIn("verify_dump", p.stderr)
        self.assertEqual(mine.stat().st_size, 4096)

    def test_verify_dumps_keep_a_loop_devices_backing_file_reading_the_system_once(self):
        # Each dump was judged against the swap and loop backing files read afresh, for its
        # name and again for the open file: 4096 bad blocks made 419 467 opens and took 4.2 s
        # of CPU with 48 loop devices.  The dumps share one reading (a second at most); a
        # dump's name that backs a loop device is still refused, and the other dumps written.
        job = ["--name=j", "--filename=t", "--size=256k", "--bs=4k"]
        p = run([*job, "--rw=write", "--do_verify=0", "--verify=md5"], cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        backing = self.tmp / "t.8192.received"
        backing.write_bytes(b"loop" * 1024)
        p = sh("losetup", "-f", "--show", str(backing))
        if p.returncode:
            self.skipTest(f"losetup refused: {p.stderr.strip()}")
        self.addCleanup(sh, "losetup", "-d", p.stdout.strip())
        trace = self.tmp / "strace"
        traced = ["strace", "-f", "-c", "-e", "trace=openat", "-o", str(trace)] if shutil.which("strace") else []
        # Every block fails (written with md5); continue_on_error=verify checks them all.
        p = subprocess.run([*traced, BIN, *job, "--rw=write", "--verify_only=1", "--verify=crc32c",
                            "--verify_dump=1", "--continue_on_error=verify"],
                           cwd=self.tmp, capture_output=True, text=True, timeout=120)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn("verify_dump: t.8192.received", p.stderr)
        self.assertIn("loop device", p.stderr)
        self.assertEqual(backing.read_bytes(), b"loop" * 1024)
        self.assertEqual(len(list(self.tmp.glob("t.*.received"))), 64)
        if not traced:
            self.skipTest("strace is not installed: the opens are not counted")
        opens = int(re.search(r"^\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+).*openat$", trace.read_text(), re.M).group(1))
        self.assertLess(opens, 64 * 10, trace.read_text())

    def test_output_naming_the_job_file_being_read_is_refused(self):
        job = self.tmp / "job.fio"
        job.write_text("[j]\nfilename=t\nsize=64k\nrw=write\n")
        before = sha(job)
        p = run([str(job), f"--output={job}"], cwd=self.tmp)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn(f"--output={job} is the job file {job} being read", p.stderr)
        self.assertEqual(sha(job), before)
        self.assertFalse((self.tmp / "t").exists())

    def test_no_output_replaces_what_the_run_reads(self):
        # The store --save writes to, a job file an include read, the trace a job replays, a report's
        # result file, the job file convert reads: each is refused as --output (exit 2, before any I/O)
        # and as write_iolog=, and keeps its bytes.
        t = self.tmp
        (t / "common.inc").write_text("size=64k\nrw=read\n")
        (t / "job.fio").write_text("[j]\nfilename=t\ninclude common.inc\n")
        null = ["--name=j", "--ioengine=null", "--size=64k"]
        self.assertEqual(run([*null, "--save=a", "--results-db=s.db", "--output=/dev/null"], cwd=t).returncode, 0)
        self.assertEqual(run([*null, "--write_iolog=rec.log", "--output=/dev/null"], cwd=t).returncode, 0)
        self.assertEqual(run([*null, "--output-format=json", "--output=r.json"], cwd=t).returncode, 0)
        cases = [
            ([*null, "--save=b", "--results-db=s.db", "--output=s.db"], "s.db", "the results store s.db"),
            (["results", "report", "1", "--results-db=s.db", "--output=s.db"], "s.db", "the results store s.db"),
            (["job.fio", "--output=common.inc"], "common.inc", "the job file common.inc, included"),
            (["job.fio", "--showplan", "--output=common.inc"], "common.inc", "the job file common.inc, included"),
            (["job.fio", "--write_iolog=common.inc"], "common.inc", "write_iolog=common.inc is the job file"),
            (["job.fio", "--write_iolog=job.fio"], "job.fio", "write_iolog=job.fio is the job file job.fio"),
            (["--name=rp", "--ioengine=null", "--size=64k", "--read_iolog=rec.log", "--output=rec.log"], "rec.log",
             "the trace job 'rp' replays"),
            (["--name=rp", "--ioengine=null", "--size=64k", "--read_iolog=rec.log", "--write_iolog=rec.log"],
             "rec.log", "the trace job 'rp' replays"),
            (["report", "r.json", "-o", "r.json"], "r.json", "the result r.json being shown"),
            (["convert", "job.fio", "--to=toml", "--output=job.fio"], "job.fio", "the job file job.fio being converted"),
            (["convert", "job.fio", "--to=yaml", "--output=common.inc"], "common.inc", "common.inc, included"),
        ]
        for args, victim, says in cases:
            with self.subTest(args=args):
                before = sha(t / victim)
                p = run(args, cwd=t)
                self.assertEqual(p.returncode, 2, p.stderr)
                self.assertIn(says, p.stderr)
                self.assertEqual(sha(t / victim), before)
                self.assertFalse((t / "t").exists(), "the job ran before the refusal")
        self.assertEqual(run(["results", "list", "--results-db=s.db"], cwd=t).returncode, 0)


if __name__ == "__main__":
    unittest.main()


class NeverOverAStore(TmpDirCase):
    """A results store holds years of runs: `ioplan report r.json -o results.db` replaced it
    with the page (exit 0), as a run's --output or results' --output would have.
    Whatever store it is (the one in use or another), no output is written over it."""

    def test_no_output_goes_over_an_sqlite_database(self):
        db, other = self.tmp / "results.db", self.tmp / "old.db"
        r = self.tmp / "r.json"
        p = run(["--name=x", "--ioengine=null", "--size=1m", "--save", f"--results-db={db}",
                 "--output-format=json", f"--output={r}"])
        self.assertEqual(p.returncode, 0, p.stderr)
        shutil.copy(db, other)
        kept = {f: sha(f) for f in (db, other)}
        for store in (db, other):
            for args in (["report", str(r), "-o", str(store)],
                         ["--name=x", "--ioengine=null", "--size=1m", f"--output={store}"],
                         ["results", "list", f"--results-db={db}", f"--output={store}"]):
                with self.subTest(store=store.name, args=args[:2]):
                    p = run(args)
                    self.assertEqual(p.returncode, 2, p.stderr)
                    self.assertIn(f"is the results store {db}" if store == db and args[0] == "results" else
                                  f"{store} is an SQLite database (a results store?): refusing to write over it",
                                  p.stderr)
        self.assertEqual({f: sha(f) for f in (db, other)}, kept)
        p = run(["report", str(r), "-o", str(self.tmp / "page.html")])  # any other file is written as before
        self.assertEqual(p.returncode, 0, p.stderr)


class NeverIntoTheKernelsFiles(TmpDirCase):
    def test_an_output_in_proc_or_sys_is_refused(self):
        # /proc and /sys hold the kernel's settings and controls: --output=/proc/self/comm ran
        # and put the report into the process's name (gone, exit 0, as fio 3.33 does), and
        # /proc/sysrq-trigger would take the report's first byte as a command.  /proc/self/comm
        # is harmless to try: it names only the run's own process.
        p = run_fio(["--name=j", "--ioengine=null", "--size=64k", "--output=/proc/self/comm"])
        self.assertEqual(p.returncode, 0, p.stderr)
        for extra, what in ((["--output=/proc/self/comm"], "--output=/proc/self/comm"),
                            (["--write_iolog=/proc/self/comm"], "job 'j': write_iolog")):
            with self.subTest(what):
                p = run(["--name=j", "--ioengine=null", "--size=64k", *extra])
                self.assertEqual(p.returncode, 2, p.stderr)
                self.assertEqual(p.stdout, "")
                self.assertIn(f"ioplan: error: {what}: refusing to write to /proc/self/comm: it is a file of the "
                              "kernel's proc file system (a setting or a control, not storage)", p.stderr)
        # Through /proc's own links, the file they lead to is judged: stdout here.
        p = run(["--name=j", "--ioengine=null", "--size=64k", "--output=/proc/self/fd/1", "--output-format=terse"])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertTrue(p.stdout.startswith("3;ioplan-"), p.stdout)


class FifoSideFilesWithoutReader(TmpDirCase):
    """A FIFO in a side file's place that nothing reads: the open fails at once, named.

    Each writer opened it waiting for a reader, in a thread with the stop signals
    blocked: SIGINT, a second SIGINT and SIGTERM were said and did nothing, the run
    never ended (fio 3.33 hangs the same way on write_iolog=FIFO)."""

    CASES = [
        ("io.fifo", ["--write_iolog=io.fifo"], "write_iolog=io.fifo: cannot open for writing: it is a FIFO that "
                                               "nothing reads (start its reader first)"),
        ("j_bw.1.log", ["--write_bw_log=j"], "log file j_bw.1.log: No such device or address"),
        ("j.prerun.txt", ["--exec_prerun=true"], "exec_prerun: cannot open for writing: it is a FIFO that "
                                                 "nothing reads"),
        ("local-j-0-verify.state", ["--rw=write", "--verify=crc32c", "--verify_state_save=1"],
         "verify_state_save: writing local-j-0-verify.state: No such device or address"),
    ]

    def test_each_side_file_fails_at_once(self):
        for name, args, said in self.CASES:
            with self.subTest(name=name):
                fifo = self.tmp / name
                os.mkfifo(fifo)
                try:
                    p = run(["--name=j", "--size=64k", *args], cwd=self.tmp, timeout=60)
                finally:
                    fifo.unlink()
                self.assertEqual(p.returncode, 1, p.stderr)
                self.assertIn(said, p.stderr)

    def test_a_fifo_with_its_reader_gets_the_whole_iolog(self):
        fifo = self.tmp / "io.fifo"
        os.mkfifo(fifo)
        reader = subprocess.Popen(["cat", str(fifo)], stdout=subprocess.PIPE)
        self.addCleanup(lambda: reader.poll() is None and (reader.kill(), reader.wait()))
        # The reader waits in open() for a writer, so ioplan's open finds it there.
        wait_until(lambda: waits_in(reader.pid, "fifo_open") or waits_in(reader.pid, "wait_for_partner"), 30,
                   "cat opening the FIFO")
        p = run(["--name=j", "--size=64k", "--bs=4k", "--rw=read", "--write_iolog=io.fifo"], cwd=self.tmp, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        lines = reader.communicate(timeout=30)[0].decode().splitlines()
        self.assertEqual(lines[0], "fio version 3 iolog")
        self.assertEqual(sum(" read " in line for line in lines), 16)
