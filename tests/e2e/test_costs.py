"""tests/e2e/test_costs.py - costs that must stay flat as the work grows.

Machine speed is never measured here (the machine is shared): each test counts
what the program does - pages it touches, system calls it makes - at two sizes
and checks the cost of one more unit of work, or that a size fio handles is not
refused.
"""
import os
import pathlib
import re
import resource
import shutil
import subprocess
import unittest

from common import BIN, FIO, TRACED_ENV, VARIANT, TmpDirCase, TmpfsCase

# A sanitizer build's runtime pays for ioplan's memory in pages, mappings and
# instructions of its own: the costs measured here are the release build's.
SANITIZED = VARIANT != "release"


def usage_of(args, cwd=None, tool=BIN):
    """Runs tool (ioplan) with args; returns its rusage, failing unless it exited 0."""
    with open(os.devnull, "wb") as null:
        proc = subprocess.Popen([tool, *args], cwd=cwd, stdout=null, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        err = proc.stderr.read().decode()
        proc.stderr.close()
    if proc.returncode:
        raise AssertionError(f"{os.path.basename(tool)} {' '.join(args)} exited {proc.returncode}: {err[-500:]}")
    return usage


class BigJobFiles(TmpDirCase):
    def job_file(self, sections):
        text = ["[global]\nioengine=null\nsize=1m\nbs=4k\nrw=randread\n"]
        text += [f"[job{i}]\nfilename={self.tmp}/f{i}\n" for i in range(sections)]
        return str(self.write(f"big{sections}.fio", "\n".join(text)))

    @unittest.skipIf(SANITIZED, "ASan's redzones and its quarantine, which keeps each dropped job's memory "
                                "mapped, are pages the release build never touches (3.4 a section, not 0.97)")
    def test_parse_only_touches_a_bounded_number_of_pages_per_section(self):
        # A section costs its plan job and its text, 0.97 pages now that each
        # job's spec is dropped as soon as it is planned (1.9 when every spec
        # was held until the last section was read; 4 when each job held room
        # for 64 entries in five tables; 7.8 when the specs sat in a growing
        # vector copied on every reallocation).
        small, big = 2000, 20000
        faults = [usage_of(["--parse-only", self.job_file(n)]).ru_minflt for n in (small, big)]
        per_section = (faults[1] - faults[0]) / (big - small)
        self.assertLess(per_section, 1.4, f"minor faults {faults} at {small} and {big} sections")



def many_files(directory, n, *extra):
    return ["--name=many", f"--directory={directory}", f"--nrfiles={n}", "--filesize=4k",
            "--ioengine=psync", "--rw=read", *extra]


# Calls that depend on time (the progress thread's ticks), not on the work.
TIMED = {"futex", "rt_sigtimedwait", "clock_nanosleep", "nanosleep", "restart_syscall"}


def traced_calls(case, out, argv):
    """System calls of argv run under strace -c -f (all threads), by name, less the TIMED ones."""
    p = subprocess.run(["strace", "-c", "-f", "-o", str(out), *argv], capture_output=True, text=True,
                       timeout=600, env=TRACED_ENV)
    case.assertEqual(p.returncode, 0, p.stderr)
    calls = {}
    for line in out.read_text().splitlines():
        m = re.match(r"\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?(\w+)$", line)
        if m and m.group(2) != "total" and m.group(2) not in TIMED:
            calls[m.group(2)] = int(m.group(1))
    return calls


@unittest.skipUnless(shutil.which("strace"), "strace is not installed")
class ManySmallFiles(TmpDirCase):
    def syscalls(self, n, *extra, tool=BIN):
        """System calls of a create_only layout of n 4 KiB files, all threads."""
        d = self.tmp / f"d{n}-{os.path.basename(tool)}{''.join(extra)}"
        d.mkdir()
        return traced_calls(self, self.tmp / f"strace{n}", [tool, *many_files(d, n, "--create_only=1", *extra)])

    def test_layout_makes_a_bounded_number_of_system_calls_per_file(self):
        # fio 3.33 makes 11-13 a file; ioplan made 53 (a 1 MiB buffer mapped
        # per file, statfs and a walk of /sys per file in the preflight and
        # again for the disk statistics), then 42 with the identity checks at
        # each open.  The marks and identity checks stay: 13 is one look and
        # one identity fstat in the preflight and layout, two marks, the data,
        # and the stats the plan and the left-behind note make; the run's
        # other steps reuse what the layout saw, and create_only opens nothing.
        small, big = 50, 500
        a, b = self.syscalls(small), self.syscalls(big)
        per_file = (sum(b.values()) - sum(a.values())) / (big - small)
        grown = {k: b.get(k, 0) - a.get(k, 0) for k in b if b.get(k, 0) - a.get(k, 0) >= big - small}
        self.assertLess(per_file, 14, f"per file: {grown}")
        # ASan's allocator maps its own regions as the heap grows (82 more mmaps at 500
        # files than at 50): under a sanitizer the mappings counted are the runtime's.
        for name in ("readlink", "statfs") if SANITIZED else ("mmap", "munmap", "readlink", "statfs"):
            self.assertLess(b.get(name, 0) - a.get(name, 0), (big - small) / 10, f"{name} per file: {grown}")

    def per_file(self, tool, *extra):
        small, big = 50, 500
        a, b = self.syscalls(small, *extra, tool=tool), self.syscalls(big, *extra, tool=tool)
        return {k: (b.get(k, 0) - a.get(k, 0)) / (big - small) for k in b}

    @unittest.skipUnless(FIO, "fio is not installed")
    def test_a_write_jobs_layout_makes_no_more_system_calls_than_fios(self):
        # A write job's files are only sized.  ioplan made 17.8 calls a file
        # against fio 3.33's 10.4: a look before the create, an fstat and a
        # partial mark before the size, ftruncate after fallocate had set it, an
        # fsync of no data, and the create_only run's re-stamp of every mark
        # (open, fstat, fsetxattr, close).  Now 8.7: one mark a file.
        mine, fios = self.per_file(BIN, "--rw=write"), self.per_file(FIO, "--rw=write")
        # The calls made for each file, a whole number of each: fio's timer and status calls
        # (wait4, pselect6) grow with the time taken, so at 500 files against 50 a loaded run
        # saw fio's stat at 2.95 and its wait4 at -0.05 a file.
        each = lambda calls: sum(round(v) for v in calls.values())  # noqa: E731
        self.assertLessEqual(each(mine), each(fios), f"ioplan {mine}, fio {fios}")
        self.assertLess(mine.get("fsetxattr", 0), 1.1, f"one mark a file: {mine}")
        self.assertLess(mine.get("fsync", 0), 0.1, f"fio syncs no file it only sized: {mine}")

    @unittest.skipUnless(FIO, "fio is not installed")
    def test_a_read_jobs_layout_marks_a_small_file_once(self):
        # A read job's 4 KiB files get data, made durable as fio's.  ioplan marked
        # each twice (partial, then filled) and reserved its one write's space first:
        # 12 calls a file at 500 files against fio 3.33's 11.  A file written whole
        # by one write needs neither: open, write, fsync, fstat, mark, close; on a
        # file system whose syncfs is durable, one syncfs for up to 256 files
        # replaces their fsyncs (test_safety: none is marked before it is durable).
        mine, fios = self.per_file(BIN), self.per_file(FIO)
        each = lambda calls: sum(round(v) for v in calls.values())  # noqa: E731
        self.assertLessEqual(each(mine), each(fios), f"ioplan {mine}, fio {fios}")
        self.assertLess(mine.get("fsetxattr", 0), 1.1, f"one mark a file: {mine}")
        self.assertLess(mine.get("fallocate", 0), 0.1, f"the one write allocates the file: {mine}")
        self.assertLessEqual(mine.get("fsync", 0) + mine.get("syncfs", 0), 1, f"at most one sync a file: {mine}")


@unittest.skipUnless(FIO, "fio is not installed")
class LayoutMemory(TmpfsCase):
    def peak_kib(self, tool, n):
        """Peak RSS (KiB, the kernel's own count) of a create_only layout of n 4 KiB files."""
        d = self.tmp / f"m{n}-{os.path.basename(tool)}"
        d.mkdir()
        usage = usage_of(many_files(d, n, "--create_only=1", "--rw=write"), tool=tool)
        shutil.rmtree(d)
        return usage.ru_maxrss

    @unittest.skipIf(SANITIZED, "a sanitizer's own bookkeeping would be counted as ioplan's")
    def test_a_layout_of_many_files_takes_no_more_memory_a_file_than_fios(self):
        # A create_only worker held the generator's state for every file (424 bytes
        # each, and a random map for a random job) although no I/O follows: at
        # 100 000 files ioplan's peak RSS was 1.19-1.26 of fio's.
        if not self.mounted:
            self.skipTest("no tmpfs: the layout would measure the disk")
        small, big = 1000, 10000
        mine, fios = [[self.peak_kib(t, n) for n in (small, big)] for t in (BIN, FIO)]
        per_file = [(b - a) * 1024 / (big - small) for a, b in (mine, fios)]
        self.assertLessEqual(per_file[0], per_file[1], f"bytes a file: ioplan {per_file[0]:.0f}, "
                             f"fio {per_file[1]:.0f} (KiB at {small} and {big}: {mine}, {fios})")


@unittest.skipUnless(shutil.which("valgrind"), "valgrind is not installed")
@unittest.skipIf(SANITIZED, "valgrind cannot run a sanitizer build (ASan's runtime exits at once under it, and "
                            "valgrind 3.19 cannot read clang's debug information); the count is the release build's")
class PreflightGrowth(TmpDirCase):
    def instructions(self, n):
        """Instructions of the preflight alone over n missing files (each job's error, as fio's)."""
        out = self.tmp / f"cg{n}"
        p = subprocess.run(["valgrind", "--tool=callgrind", "--toggle-collect=pf_run",
                            f"--callgrind-out-file={out}", BIN,
                            *many_files(self.tmp, n, "--allow_file_create=0")],
                           capture_output=True, text=True, timeout=600)
        self.assertEqual(p.returncode, 1, p.stderr[-2000:])
        self.assertIn("allow_file_create=0", p.stderr)
        return int(re.search(r"^totals: (\d+)", out.read_text(), re.M).group(1))

    def test_preflight_work_grows_linearly_with_the_files(self):
        # The duplicate-path check compared each path with every earlier one:
        # 10x the files cost 56x the instructions.
        small, big = self.instructions(200), self.instructions(2000)
        self.assertLess(big / small, 15, f"{small} instructions at 200 files, {big} at 2000")



def bound_loops():
    return {p.name for p in pathlib.Path("/sys/block").glob("loop*") if (p / "loop" / "backing_file").exists()}


@unittest.skipUnless(shutil.which("strace"), "strace is not installed")
@unittest.skipIf(os.geteuid() != 0, "attaching loop devices needs root")
class ManyLoopDevices(TmpDirCase):
    STEP = 24

    def attach(self, n):
        """n more loop devices over sparse files, detached after the test."""
        for _ in range(n):
            img = self.tmp / f"loop{len(self.mine)}.img"
            with open(img, "wb") as f:
                f.truncate(1 << 20)
            p = subprocess.run(["losetup", "-f", "--show", str(img)], capture_output=True, text=True)
            if p.returncode:
                self.skipTest(f"losetup refused: {p.stderr.strip()}")
            self.mine.append(p.stdout.strip())
            self.addCleanup(subprocess.run, ["losetup", "-d", self.mine[-1]], capture_output=True)

    def write_run_calls(self):
        """System calls of a small write job: its preflight and layout check every bound loop device."""
        target = self.tmp / "target"
        argv = [BIN, "--name=w", f"--filename={target}", "--rw=write", "--size=64k", "--output-format=terse"]
        calls = sum(traced_calls(self, self.tmp / "strace", argv).values())
        target.unlink()
        return calls

    def test_start_up_grows_linearly_with_the_loop_devices(self):
        # A write job's safety checks ask of every bound loop device whether it is in use.
        # Each answer read mountinfo and every loop device again: 30 loop devices cost a run
        # 26 700 system calls against 400 with none, 10 of them 6 600 (a machine with many
        # snaps has tens).  Read once a check, each one costs the same.
        self.mine = []
        for _ in range(3):  # again when another test attached or detached a loop device meanwhile
            others = bound_loops() - {os.path.basename(d) for d in self.mine}
            counts = [self.write_run_calls()]
            for _ in range(2):
                self.attach(self.STEP)
                counts.append(self.write_run_calls())
            if bound_loops() - {os.path.basename(d) for d in self.mine} == others:
                break
        first, second = counts[1] - counts[0], counts[2] - counts[1]
        self.assertGreater(first, self.STEP, f"the checks read no loop device: {counts}")
        self.assertLess(second, 1.25 * first, f"system calls with {len(others)}, +{self.STEP} and "
                        f"+{2 * self.STEP} loop devices: {counts}")


class LayoutsAboveTheOpenFileLimit(TmpDirCase):
    def run_limited(self, *extra, limit=1024, tool=BIN, directory=None):
        def lower():
            resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit))
        return subprocess.run([tool, *many_files(directory or self.tmp, 2000, *extra)], capture_output=True,
                              text=True, timeout=600, preexec_fn=lower)

    def laid_out(self, directory):
        return sorted(f.stat().st_size for f in directory.iterdir() if f.name.startswith("many."))

    def test_create_only_lays_out_more_files_than_the_limit(self):
        # A layout opens one file at a time.
        p = self.run_limited("--create_only=1")
        self.assertEqual(p.returncode, 0, p.stderr[-2000:])
        self.assertEqual(self.laid_out(self.tmp), [4096] * 2000)

    @unittest.skipUnless(FIO, "fio is not installed")
    def test_fio_lays_out_the_same_files_under_the_same_limit(self):
        # The differential half: fio 3.33 under the same ulimit -n 1024 lays out the same 2000.
        d = self.tmp / "fio"
        d.mkdir()
        p = self.run_limited("--create_only=1", tool=FIO, directory=d)
        self.assertEqual(p.returncode, 0, p.stdout[-1000:] + p.stderr[-1000:])
        self.assertEqual(self.laid_out(d), [4096] * 2000)

    def test_a_run_holding_them_open_is_still_refused_before_any_io(self):
        p = self.run_limited()
        self.assertEqual(p.returncode, 2, p.stderr[-2000:])
        self.assertIn("limit of open files", p.stderr)
        self.assertEqual([f for f in self.tmp.iterdir() if f.name.startswith("many.")], [])


if __name__ == "__main__":
    unittest.main()
