"""tests/e2e/test_safety_races.py - a target swapped under a run never gets a user's file written.

A helper process swaps each job target with a symbolic link or a hard link to a
user's file (renameat2 RENAME_EXCHANGE, atomic, in a tight loop), or swaps the
job's directory= with a symbolic link to a user's directory, while ioplan runs.
Every way ioplan opens a target is raced: the first open of a clone's files,
openfiles= re-opening them during the run, the layout of a file ioplan made
earlier, and the verify pass that reads back what an earlier job wrote (and
after which ioplan re-stamps its mark).  The user's files must come out byte
for byte as they went in (sha256) and without ioplan's mark; a run that met a
swapped target must fail and name the file.

The swapping starts at a point of the run the job file itself signals
(exec_prerun of a job that runs after the layout), and that job waits until
the swapper has done a whole round, so the race is live when the targets are
opened; nothing here waits on time.  After that round the swapper flips
pairs picked at random, so fifty targets per run make a run that meets no
swapped target a 2^-50 event.  A swapped directory= is another matter: ioplan
opened the directory once, before the swap, and keeps writing into it, so
that run succeeds.

Removal is raced too (class Removal): ioplan is held by gdb at the very
unlinkat of a file it made (unlink=1, unlink_each_loop=1) while a user's file
is renamed over that name; the user's file must stay.  A removal sets the name
aside first, which needs a directory entry: on a full disk it must still give
the space back (class RemovalOnAFullDisk).
"""
import hashlib
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import time
import unittest

from common import BIN, TmpDirCase, ext4_loop, run

K = 50  # targets raced per run

SWAPPER = r'''
import ctypes, os, random, signal, sys, time
libc = ctypes.CDLL(None, use_errno=True)
xchg = libc.renameat2
xchg.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
AT_FDCWD, RENAME_EXCHANGE = -100, 2
trigger, ready = sys.argv[1], sys.argv[2]
pairs = [(a.encode(), b.encode()) for a, b in zip(sys.argv[3::2], sys.argv[4::2])]
odd = [False] * len(pairs)
stop = False
def term(*_):
    global stop
    stop = True
signal.signal(signal.SIGTERM, term)
end = time.monotonic() + 300
while trigger and not os.path.exists(trigger) and not stop and time.monotonic() < end:
    time.sleep(0.001)
swaps = 0
def swap(i):
    global swaps
    if xchg(AT_FDCWD, pairs[i][0], AT_FDCWD, pairs[i][1], RENAME_EXCHANGE) == 0:
        odd[i] = not odd[i]
        swaps += 1
for i in range(len(pairs)):
    swap(i)
open(ready, "w").close()
while not stop:
    swap(random.randrange(len(pairs)))
for i, (a, b) in enumerate(pairs):
    if odd[i]:
        xchg(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE)
print(swaps)
'''

# exec_prerun of the job that starts the race: tells the swapper to start, then
# waits (at most a minute) until it has swapped every pair once.
HANDSHAKE = 'touch "$1"; i=0; while [ ! -e "$2" ] && [ $i -lt 6000 ]; do sleep 0.01; i=$((i+1)); done\n'


def digest(path):
    return hashlib.sha256(pathlib.Path(path).read_bytes()).hexdigest()


def marked(path):
    try:
        os.getxattr(path, "user.ioplan")
        return True
    except OSError:
        return False


class Swapper:
    """The swapping process: starts at once, or when the run creates `trigger`."""

    def __init__(self, case, pairs, trigger=None):
        self.ready = case.tmp / f"swapping.{case.round}"
        argv = [sys.executable, "-c", SWAPPER, str(trigger or ""), str(self.ready)]
        for a, b in pairs:
            argv += [str(a), str(b)]
        self.proc = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True)
        case.addCleanup(self.stop)

    def wait_ready(self, timeout=60):
        deadline = time.monotonic() + timeout
        while not self.ready.exists():
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise AssertionError("the swapper never started")
            time.sleep(0.005)

    def stop(self):
        """Stops it with every pair back in place; the number of swaps it made."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        out, _ = self.proc.communicate(timeout=60)
        return int(out.strip() or 0)


class SwapRaces(TmpDirCase):
    """One race per call: a fresh directory of targets, K user files, one run."""

    def setUp(self):
        super().setUp()
        if os.geteuid() != 0:
            self.skipTest("needs root: the race swaps files in a directory of its own as root would")
        self.round = 0
        self.handshake = self.write("handshake.sh", HANDSHAKE)

    def user_files(self, names, where):
        """User files (64 KiB of random bytes each) under where; their digests."""
        where.mkdir(parents=True, exist_ok=True)
        files = {}
        for n in names:
            p = where / n
            p.write_bytes(os.urandom(64 << 10))
            files[p] = digest(p)
        return files

    def hits(self, files):
        """The user files that changed or carry ioplan's mark."""
        return sorted(str(p) for p, d in files.items() if digest(p) != d or marked(p))

    def evil_pairs(self, d, names, files, kind):
        """Each target d/name paired with a symbolic link or a hard link (kind) to one user file."""
        pairs = []
        for n, (name, user) in enumerate(zip(names, files)):
            evil = d / f"evil.{n}"
            evil.symlink_to(user) if kind == "symlink" else os.link(user, evil)
            pairs.append((d / name, evil))
        return pairs

    def prerun(self, trigger, ready):
        return f"exec_prerun=sh {self.handshake} {trigger} {ready}\n"

    def jobfile(self, text):
        return str(self.write(f"race{self.round}.fio", text))

    # One opening path each: job text for round d, the targets, and the trigger.
    def first_open_job(self, d, go, ready):
        return (f"[global]\ndirectory={d}\nsize=16k\nbs=4k\n"
                f"[go]\nioengine=null\n{self.prerun(go, ready)}"
                f"[j]\nstonewall\nrw=write\nnumjobs={K}\n"), [f"j.{n}.0" for n in range(K)]

    def reopen_job(self, d, go, ready):
        return (f"[global]\ndirectory={d}\nbs=4k\n"
                f"[j]\nrw=write\nsize=32k\nnrfiles=2\nopenfiles=1\nloops=2\nnumjobs={K // 2}\n"
                f"{self.prerun(go, ready)}"), [f"j.{n}.{f}" for n in range(K // 2) for f in range(2)]

    def verify_job(self, d, go, ready):
        return (f"[global]\ndirectory={d}\nsize=16k\nbs=4k\nverify=crc32c\nfilename_format=f.$jobnum\n"
                f"[w]\nrw=write\ndo_verify=0\nnumjobs={K}\n"
                f"[go]\nstonewall\nioengine=null\n{self.prerun(go, ready)}"
                f"[v]\nstonewall\nrw=write\nverify_only=1\nnumjobs={K}\n"), [f"f.{n}" for n in range(K)]

    def race(self, path, kind):
        """Runs one race; (exit code, stderr, user files hit, tries, swaps)."""
        self.round += 1
        d, u = self.tmp / f"d{self.round}", self.tmp / f"u{self.round}"
        d.mkdir()
        go, ready = self.tmp / f"go.{self.round}", self.tmp / f"swapping.{self.round}"
        if path == "layout":
            return self.race_layout(d, u, kind)
        text, names = getattr(self, f"{path}_job")(d, go, ready)
        if kind == "directory":
            files = self.user_files(names, u)
            link = self.tmp / f"dl{self.round}"
            link.symlink_to(u)
            pairs = [(d, link)]
        else:
            files = self.user_files([f"u.{n}" for n in range(len(names))], u)
            pairs = self.evil_pairs(d, names, files, kind)
        sw = Swapper(self, pairs, trigger=go)
        p = run([self.jobfile(text)], cwd=self.tmp, timeout=300)
        swaps = sw.stop()
        return p.returncode, p.stderr, self.hits(files), len(names), swaps

    def race_layout(self, d, u, kind):
        """Files ioplan sized earlier are laid out again for a reader while swapped."""
        names = [f"j.{n}.0" for n in range(K)]
        made = run([f"--directory={d}", "--name=j", "--rw=write", "--size=16k", f"--numjobs={K}"])
        self.assertEqual(made.returncode, 0, made.stderr)
        files = self.user_files([f"u.{n}" for n in range(K)], u)
        sw = Swapper(self, self.evil_pairs(d, names, files, kind))
        sw.wait_ready()
        p = run([f"--directory={d}", "--name=j", "--rw=read", "--size=16k", f"--numjobs={K}"],
                cwd=self.tmp, timeout=300)
        swaps = sw.stop()
        return p.returncode, p.stderr, self.hits(files), K, swaps

    def check(self, path, kind):
        rc, err, hit, tries, swaps = self.race(path, kind)
        self.assertGreater(swaps, 0, "the race never ran")
        self.assertEqual(hit, [], f"{path}/{kind}: user files written or marked ({len(hit)} of {tries}); "
                                  f"exit {rc}: {err[-600:]}")
        if kind == "directory":
            self.assertEqual(rc, 0, f"{path}/{kind}: the directory opened before the swap is the "
                                    f"one written: {err[-600:]}")
            return tries
        self.assertNotEqual(rc, 0, f"{path}/{kind}: a run that met swapped targets exited 0: {err[-600:]}")
        self.assertRegex(err, r"/(j\.\d+\.\d|f\.\d+): .*(replaced|symbolic link|did not create)", err[-600:])
        return tries


class LinkSwaps:
    """The target swapped for a symbolic link or a hard link to a user's file, on the opening path PATH."""
    PATH = None

    def test_symlink(self):
        self.check(self.PATH, "symlink")

    def test_hard_link(self):
        self.check(self.PATH, "hardlink")


class DirectorySwap:
    """directory= itself swapped for a symbolic link to a user's directory."""

    def test_directory_swapped_for_a_symlink(self):
        self.check(self.PATH, "directory")


class FirstOpen(LinkSwaps, DirectorySwap, SwapRaces):
    PATH = "first_open"


class OpenfilesReopen(LinkSwaps, DirectorySwap, SwapRaces):
    PATH = "reopen"


class Layout(LinkSwaps, SwapRaces):
    PATH = "layout"


class VerifyPass(LinkSwaps, SwapRaces):
    PATH = "verify"


class Stress(SwapRaces):
    """At least 200 raced opens on every opening path; no user file is ever touched."""

    def test_every_path_200_times(self):
        for path in ("first_open", "reopen", "layout", "verify"):
            tries, kinds = 0, ["symlink", "hardlink"]
            while tries < 200:
                tries += self.check(path, kinds[tries // K % 2])


@unittest.skipUnless(shutil.which("gdb"), "gdb is not installed")
class Removal(TmpDirCase):
    """A user's file renamed over the name of a file ioplan removes, at the worst moment, is kept."""

    def held_at_unlinkat(self, *opts):
        # gdb stops ioplan at its unlinkat, the last step of a removal, and renames the
        # user's file over the name there: a look-then-unlink removed the user's file.
        t, user = self.tmp / "t", self.tmp / "user"
        data = os.urandom(64 << 10)
        user.write_bytes(data)
        gdb = ["gdb", "-q", "-batch", "-ex", "set breakpoint pending on", "-ex", "break unlinkat", "-ex", "run",
               "-ex", f"shell mv {user} {t}", "-ex", "delete", "-ex", "continue", "--args", BIN,
               "--name=u", f"--filename={t}", "--rw=write", "--bs=4k", "--size=256k", *opts]
        p = subprocess.run(gdb, cwd=self.tmp, capture_output=True, text=True, timeout=120)
        self.assertIn("Breakpoint 1, ", p.stdout)
        self.assertEqual(t.read_bytes(), data, p.stderr)
        self.assertEqual(sorted(x.name for x in self.tmp.iterdir()), ["t"])
        return p

    def test_unlink_after_the_job(self):
        p = self.held_at_unlinkat("--unlink=1")
        self.assertIn("exited normally", p.stdout)

    def test_unlink_each_loop(self):
        # The second loop's create then finds the user's file there: the job fails.
        p = self.held_at_unlinkat("--unlink_each_loop=1", "--loops=2")
        self.assertIn("exited with code", p.stdout)
        self.assertIn(f"{self.tmp}/t: create again (unlink_each_loop): another file took the name after ioplan "
                      "removed its own; it is kept", p.stderr)


@unittest.skipUnless(shutil.which("gdb") and shutil.which("gnuplot"), "gdb or gnuplot is not installed")
class PlotScratch(TmpDirCase):
    """`ioplan plot` draws into a file of its own in $TMPDIR, whose name anyone there can list."""

    def test_a_link_planted_beside_the_scratch_chart_is_never_written_through(self):
        # gdb stops ioplan as mkstemps returns the scratch chart's name and, as another user
        # watching /tmp could, puts a link to a user's file at that name + ".gp": the script
        # gnuplot runs was opened there by name (O_TRUNC, links followed) and replaced the file.
        tmpdir, user = self.tmp / "tmp", self.tmp / "passwd"
        tmpdir.mkdir()
        user.write_text("root:x:0:0:root:/root:/bin/sh\n")
        result = self.tmp / "r.json"
        p = run(["--name=j", f"--filename={self.tmp / 't'}", "--rw=write", "--size=256k", "--bs=4k",
                 "--output-format=json", f"--output={result}"])
        self.assertEqual(p.returncode, 0, p.stderr)
        gdb = ["gdb", "-q", "-batch", "-ex", "set breakpoint pending on", "-ex", "break mkstemps", "-ex", "run",
               "-ex", "set $p = (char *)$rdi", "-ex", "finish",
               "-ex", f'eval "shell ln -s {user} %s.gp", $p', "-ex", "delete", "-ex", "continue",
               "--args", "env", f"TMPDIR={tmpdir}", BIN, "plot", str(result), "-o", str(self.tmp / "c.svg")]
        p = subprocess.run(gdb, cwd=self.tmp, capture_output=True, text=True, timeout=120)
        self.assertIn("Breakpoint 1, ", p.stdout)
        planted = list(tmpdir.glob("ioplan-plot-*.svg.gp"))
        self.assertEqual(len(planted), 1, p.stdout + p.stderr)
        self.assertEqual(user.read_text(), "root:x:0:0:root:/root:/bin/sh\n", "the script went through the link")
        self.assertIn("exited normally", p.stdout, p.stderr)
        self.assertIn("</svg>", (self.tmp / "c.svg").read_text())
        self.assertEqual(sorted(x.name for x in tmpdir.iterdir()), [planted[0].name], "a scratch file was left")


class RemovalOnAFullDisk(TmpDirCase):
    def test_a_file_in_a_full_directory_on_a_full_disk_is_still_removed(self):
        # The directory's blocks hold as many names as fit and the disk has no block to
        # grow it: renaming the file aside fails with ENOSPC, and the removal falls back
        # to its look and unlink rather than leave the file (and its space) behind.
        d = ext4_loop(self) / "d"
        d.mkdir()
        fd = os.open(d.parent / "filler", os.O_WRONLY | os.O_CREAT, 0o600)
        for chunk in (1 << 20, 4096, 1):  # to the last block
            try:
                while os.write(fd, b"\0" * chunk):
                    pass
            except OSError:
                pass
        os.close(fd)
        names = 0
        try:
            while True:
                (d / f"{'n' * 40}{names:05d}").touch()
                names += 1
        except OSError:
            pass
        self.assertGreater(names, 10)
        (d / f"{'n' * 40}{0:05d}").unlink()  # room for the job's one short name, and no more
        p = run(["--name=c", "--ioengine=filecreate", f"--directory={d}", "--nrfiles=1", "--filesize=4k",
                 "--unlink=1"])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual([x.name for x in d.iterdir() if not x.name.startswith("n")], [])
        self.assertEqual(len(list(d.iterdir())), names - 1)


class ChangedDuringTheRun(TmpDirCase):
    def test_a_target_removed_or_replaced_mid_run_is_a_warning_not_an_error(self):
        # After the run ioplan stamps its mark again on the files the run wrote.  One
        # removed, renamed or replaced meanwhile printed "ioplan: error: g: No such file or
        # directory" and exited 0: an error that failed nothing.  The run measured the file
        # it had opened, as fio's (which says nothing).
        import json
        from common import wait_for_stderr
        for change in ("remove", "rename", "replace"):
            with self.subTest(change):
                g = self.tmp / f"g-{change}"
                out = self.tmp / f"{change}.json"
                proc = subprocess.Popen([BIN, "--name=j", f"--filename={g}", "--size=1m", "--rw=randwrite",
                                         "--time_based", "--runtime=30", "--output-format=json",
                                         f"--output={out}", "--eta=always", "--eta-interval=100ms"],
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                self.addCleanup(lambda p=proc: p.poll() is None and (p.kill(), p.wait()))
                wait_for_stderr(proc, marker=b"IOPS]")  # laid out, opened and written to
                if change == "remove":
                    g.unlink()
                else:
                    g.rename(self.tmp / f"aside-{change}")
                    if change == "replace":
                        g.write_text("the user's new file\n")
                proc.send_signal(signal.SIGTERM)
                _, err = proc.communicate(timeout=60)
                self.assertNotIn("error", err)
                doc = json.loads(out.read_text())
                self.assertEqual(doc["jobs"][0]["error"], 0)
                self.assertGreater(doc["jobs"][0]["write"]["io_bytes"], 0)
                [m] = [m for m in doc["ioplan"]["messages"] if m["code"] == "mark-after-run"]
                self.assertEqual(m["level"], "warning")
                self.assertIn("changed during the run", m["text"])
                if change == "replace":
                    self.assertEqual(g.read_text(), "the user's new file\n")
