"""tests/e2e/test_options_environment.py - what surrounds a job: exec_prerun,
exec_postrun, lockmem, write_hint, allow_mounted_write.

The commands' output files are compared with fio 3.33's (same names, same
content); lockmem is read from outside while the job runs (VmLck in
/proc/PID/status); write_hint is set on the files as fio sets it (the job
succeeds where fio's does).
"""
import os
import re
import signal
import subprocess
import unittest

from common import BIN, FIO, VARIANT, TmpDirCase, fill_up, run, run_fio, tmpfs, wait_until


class Exec(TmpDirCase):
    ARGS = ["--name=pr", "--ioengine=null", "--size=1m", "--exec_prerun=echo before",
            "--exec_postrun=pwd"]

    def test_commands_write_fios_files(self):
        for who, runner in (("ioplan", run), ("fio", run_fio)):
            if who == "fio" and not FIO:
                continue
            d = self.tmp / who
            d.mkdir()
            p = runner(self.ARGS + ["--output=" + str(d / "out")], cwd=str(d))
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual((d / "pr.prerun.txt").read_text(), "before\n", who)
            self.assertEqual((d / "pr.postrun.txt").read_text(), "%s\n" % d, who)

    def test_a_job_name_with_a_blank_writes_only_its_own_file(self):
        # fio appends "> NAME.prerun.txt 2>&1" to the command: the shell splits "my job" and
        # truncates the user's file "my" (both tools did).  The output now goes to the file
        # opened and checked, stdout and stderr, and "my" keeps what it held.
        (self.tmp / "my").write_text("precious\n")
        (self.tmp / "j.fio").write_text("[my job]\nioengine=null\nsize=64k\n"
                                        "exec_prerun=echo out && echo err >&2\nexec_postrun=echo post\n")
        p = run(["j.fio", "--output-format=terse"], cwd=str(self.tmp))
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual((self.tmp / "my").read_text(), "precious\n")
        self.assertEqual((self.tmp / "my job.prerun.txt").read_text(), "out\nerr\n")
        self.assertEqual((self.tmp / "my job.postrun.txt").read_text(), "post\n")

    def test_failed_prerun_fails_the_clone_before_any_io(self):
        p = run(["--name=pr", "--ioengine=null", "--size=1m", "--exec_prerun=exit 3",
                 "--output-format=json"], cwd=str(self.tmp))
        self.assertEqual(p.returncode, 1)
        self.assertIn("exec_prerun exited with status 3", p.stderr)
        self.assertIn('"io_bytes" : 0', p.stdout)

    def test_a_command_whose_output_file_is_on_a_full_disk_is_said_to_have_lost_its_output(self):
        # An echo into pre.prerun.txt on a full file system fails with ENOSPC, so the
        # prerun exits 1 and leaves its file empty: the error said only "status 1".
        # (fio 3.33 skips the job's I/O without a word and exits 0.)
        mnt = tmpfs(self, "size=64k")
        fill_up(mnt)
        p = run(["--name=pre", "--ioengine=null", "--size=1m", "--exec_prerun=echo hello",
                 "--output-format=json"], cwd=str(mnt))
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn("exec_prerun exited with status 1; its output file pre.prerun.txt is on a full "
                      "file system, so what it wrote there is cut", p.stderr)
        self.assertEqual((mnt / "pre.prerun.txt").read_text(), "")
        self.assertIn('"io_bytes" : 0', p.stdout)
        # With room, a failing command is its exit status alone.
        (mnt / "filler").unlink()
        p = run(["--name=pre", "--ioengine=null", "--size=1m", "--exec_prerun=echo hello; exit 3",
                 "--output-format=json"], cwd=str(mnt))
        self.assertIn("exec_prerun exited with status 3: ", p.stderr)
        self.assertNotIn("full file system", p.stderr)


def _vmlck_kb(pid):
    with open("/proc/%d/status" % pid) as f:
        m = re.search(r"VmLck:\s+(\d+) kB", f.read())
    return int(m.group(1)) if m else None


def _kernel_reports_mlock():
    """Whether an mlock by this process shows in its own VmLck (some sandboxed
    kernels neither lock nor report); without it the test has nothing to read."""
    import ctypes
    import mmap
    libc = ctypes.CDLL(None, use_errno=True)
    buf = mmap.mmap(-1, 1 << 20)
    addr = ctypes.addressof(ctypes.c_char.from_buffer(buf))
    try:
        if libc.mlock(ctypes.c_void_p(addr), ctypes.c_size_t(1 << 20)):
            return False
        return (_vmlck_kb(os.getpid()) or 0) >= 1024
    finally:
        libc.munlock(ctypes.c_void_p(addr), ctypes.c_size_t(1 << 20))
        del addr
        buf.close()


class LockMem(TmpDirCase):
    @unittest.skipIf(VARIANT != "release", "a sanitizer runtime makes mlock a no-op that succeeds "
                                           "(\"AddressSanitizer ignores mlock/mlockall/munlock/munlockall\"): "
                                           "no memory is ever locked to see in VmLck")
    def test_lockmem_pins_while_the_job_runs(self):
        if not _kernel_reports_mlock():
            self.skipTest("this kernel does not show an mlock in /proc/PID/status VmLck")
        p = subprocess.Popen([BIN, "--name=l", "--ioengine=null", "--size=1g", "--time_based",
                              "--runtime=60", "--lockmem=64m", "--output=/dev/null"])
        try:
            # However late a loaded machine starts the job, the lock shows while it runs;
            # then SIGINT ends the run, which still exits as an interrupted one.
            def locked_or_gone():
                try:
                    return p.poll() is not None or (_vmlck_kb(p.pid) or 0) >= 65536
                except OSError:  # it exited between the two looks
                    return True
            wait_until(locked_or_gone, 30, "64 MiB locked")
            self.assertIsNone(p.poll(), "the job ended before its memory was seen locked")
            p.send_signal(signal.SIGINT)
        finally:
            self.assertEqual(p.wait(timeout=30), 1)


class WriteHint(TmpDirCase):
    def test_hint_is_set_as_fio_sets_it(self):
        for who, runner in (("ioplan", run), ("fio", run_fio)):
            if who == "fio" and not FIO:
                continue
            p = runner(["--name=w", "--filename=" + str(self.tmp / (who + ".dat")), "--size=64k",
                        "--rw=write", "--write_hint=short", "--output=/dev/null"])
            self.assertEqual(p.returncode, 0, (who, p.stderr))

    def test_bad_hint_is_positioned(self):
        self.write("h.fio", "[h]\nsize=1m\nwrite_hint=forever\n")
        p = run([str(self.tmp / "h.fio"), "--parse-only"])
        self.assertEqual(p.returncode, 2)
        self.assertIn("h.fio:3:12: error:", p.stderr)


class MountedWrite(TmpDirCase):
    def test_accepted_and_files_still_written(self):
        p = run(["--name=m", "--filename=" + str(self.tmp / "m.dat"), "--size=64k", "--rw=write",
                 "--allow_mounted_write=1", "--output=/dev/null"])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(os.path.getsize(self.tmp / "m.dat"), 65536)


class Refused(TmpDirCase):
    def test_per_job_identity_and_cgroups_are_refused_with_the_reason(self):
        for opt in ("uid=1000", "gid=1000", "cgroup=x", "cgroup_weight=100", "lockfile=exclusive"):
            self.write("r.fio", "[r]\nsize=1m\n%s\n" % opt)
            p = run([str(self.tmp / "r.fio"), "--parse-only"])
            self.assertEqual(p.returncode, 2, opt)
            self.assertIn("r.fio:3:1: error: option '%s' is not supported (ioplan's clones are threads"
                          % opt.split("=")[0], p.stderr)


if __name__ == "__main__":
    unittest.main()
