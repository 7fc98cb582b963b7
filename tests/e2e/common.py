"""tests/e2e/common.py - helpers shared by the end-to-end test modules.

Every e2e test drives the real binary ($IOPLAN_BIN) on real files in a private
temporary directory; nothing here mocks the program under test.
"""
import atexit
import ctypes
import errno
import json
import os
import pathlib
import re
import shutil
import signal
import struct
import subprocess
import tempfile
import time
import unittest

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
BIN = os.environ.get("IOPLAN_BIN", str(ROOT / "ioplan"))
# How soon a signal must end a wait that would otherwise last 10 s or more:
# idle it takes well under 0.2 s; 2.5 allows a busy 2-core machine (and a
# sanitizer build) and still tells a stop from a wait that runs on.
STOP_BOUND_S = 2.5
FIO = shutil.which("fio")
# LeakSanitizer cannot run under ptrace: a sanitizer build traced by strace
# would fail at exit, so the traced runs leave leak checking to the others.
TRACED_ENV = {**os.environ, "ASAN_OPTIONS": os.environ.get("ASAN_OPTIONS", "") + ":detect_leaks=0"}
# The build under test: "release", or one built with sanitizers (make SANITIZE=...
# sets "address-undefined" or "thread"; "engine-sanitized" is make test's engine).
VARIANT = os.environ.get("IOPLAN_VARIANT", "release")

# What every mpirun of the suite needs: as root Open MPI refuses unless allowed, and
# two cores need oversubscription for 4 ranks.
MPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
           "OMPI_MCA_rmaps_base_oversubscribe": "1"}
# Under mpirun without --rank-output each rank keeps its result in
# $XDG_STATE_HOME/ioplan/ranks/RUN until rank 0 has reported the world
# (docs/scale-out.md): what a test that kills a world leaves there goes to a
# directory of this process's, removed at its exit, never the user's home.
MPI_STATE_HOME = tempfile.mkdtemp(prefix="ioplan-e2e-state-")
atexit.register(shutil.rmtree, MPI_STATE_HOME, True)
MPI_ENV["XDG_STATE_HOME"] = MPI_STATE_HOME
if VARIANT != "release":
    # LeakSanitizer finds what Open MPI allocates in MPI_Init and frees only at exit in
    # every rank; tests/sanitize/lsan.supp names Open MPI's libraries.  A suppression
    # matches the frames of the allocation's stack, and the default unwinder follows
    # frame pointers, which Debian's Open MPI is built without: its stacks ended at the
    # first frame, most in a component MPI_Finalize had already unloaded ("<unknown
    # module>"), so nothing could match.  The slow unwinder reads the unwind tables and
    # reaches MPI_Init_thread; it doubles the time of a parser-heavy module, so only
    # the ranks get it.
    MPI_ENV["LSAN_OPTIONS"] = ":".join(filter(None, [os.environ.get("LSAN_OPTIONS"),
                                                     f"suppressions={ROOT}/tests/sanitize/lsan.supp",
                                                     "fast_unwind_on_malloc=0"]))
if "thread" in VARIANT:
    # Every process a test starts inherits it, mpirun's ranks and the shell commands of
    # test_docs included: the file says what it suppresses and why.
    os.environ["TSAN_OPTIONS"] = ":".join(filter(None, [os.environ.get("TSAN_OPTIONS"),
                                                        f"suppressions={ROOT}/tests/sanitize/tsan.supp"]))


def run(args, cwd=None, input=None, timeout=120, env=None):
    """Runs ioplan with args; returns the CompletedProcess (text mode)."""
    e = dict(os.environ)
    if env:
        e.update(env)
    return subprocess.run([BIN, *args], cwd=cwd, input=input, capture_output=True,
                          text=True, timeout=timeout, env=e)


_FIO_LINK_DIR = None


def fio_link_dir():
    """A private directory holding `fio`, a symlink to ioplan: put it first on PATH
    to run fio's clients on ioplan (it presents itself as fio when run as fio)."""
    global _FIO_LINK_DIR
    if _FIO_LINK_DIR is None:
        _FIO_LINK_DIR = tempfile.mkdtemp(prefix="ioplan-as-fio-")
        atexit.register(shutil.rmtree, _FIO_LINK_DIR, True)
        os.symlink(os.path.abspath(BIN), os.path.join(_FIO_LINK_DIR, "fio"))
    return _FIO_LINK_DIR


def run_as_fio(args, cwd=None, input=None, timeout=120):
    """Runs ioplan through a symlink named fio; returns the CompletedProcess."""
    return subprocess.run([os.path.join(fio_link_dir(), "fio"), *args], cwd=cwd, input=input,
                          capture_output=True, text=True, timeout=timeout)


def ioplan_only_options():
    """Names and aliases of the options fio lacks, from the option table itself."""
    table = json.loads(run(["--dump-options=json"]).stdout)
    return tuple(n for o in table if o["ioplan_only"] for n in [o["name"]] + o["aliases"])


def run_fio(args, cwd=None, timeout=120):
    return subprocess.run([FIO, *args], cwd=cwd, capture_output=True, text=True, timeout=timeout)


def run_fio_session(args, cwd=None, env=None, timeout=120):
    """fio in its own session: a fio that hangs is ended with its job processes (a plain
    run's timeout kills only the parent), then subprocess.TimeoutExpired is raised."""
    e = {**os.environ, **(env or {})}
    with subprocess.Popen([FIO, *args], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, env=e, start_new_session=True) as proc:
        try:
            stdout, stderr = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            raise
    return subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr)


def showplan(args, cwd=None):
    """The --showplan JSON of a command line, or raises with the diagnostics."""
    p = run(["--showplan", *args], cwd=cwd)
    if p.returncode != 0:
        raise AssertionError(f"ioplan --showplan {' '.join(args)} exited {p.returncode}: {p.stderr}")
    return json.loads(p.stdout)


def fio_opening(text, also):
    """What fio prints ahead of its reports, as the tests compare it: the lines matching
    `also` (a regex), banner lines cut after the group, "...", and the first line of the
    first JSON or terse report (cut after the job name), or "Starting" when it is kept,
    in order, up to that one."""
    keep = []
    for line in text.splitlines():
        if re.match(r"\S+: \(g=\d+\)|\.\.\.$|\{$|3;fio|" + also, line):
            keep.append(re.sub(r"^(3;fio-3\.33;[^;]*);.*", r"\1",
                               re.sub(r"(\(g=\d+\)).*|^(Starting).*", r"\1\2", line)))
    first = next((i for i, k in enumerate(keep) if k in ("{", "Starting") or k.startswith("3;")), len(keep))
    return keep[:first + 1]


def fio_openings(case, runner, args, also):
    """fio_opening of stdout and of the --output file o.txt in case.tmp (None: not
    written) of one successful run of runner (run_as_fio or run_fio) there."""
    out = case.tmp / "o.txt"
    if out.exists():
        out.unlink()
    p = runner(args, cwd=case.tmp)
    case.assertEqual(p.returncode, 0, p.stderr)
    return fio_opening(p.stdout, also), fio_opening(out.read_text(), also) if out.exists() else None


class TmpDirCase(unittest.TestCase):
    """A test case with a fresh temporary directory in self.tmp (a pathlib.Path)."""

    def setUp(self):
        self._td = tempfile.TemporaryDirectory(prefix="ioplan-e2e-")
        self.tmp = pathlib.Path(self._td.name)

    def tearDown(self):
        self._td.cleanup()

    def write(self, name, text):
        path = self.tmp / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return path


class TmpfsCase(TmpDirCase):
    """A TmpDirCase whose self.tmp is a tmpfs where one can be mounted (self.mounted):
    for tests whose matter is not the disk, which a busy machine makes slow (fsynced
    creations, I/O latency) and another program's I/O makes slower still."""

    def setUp(self):
        super().setUp()
        self.mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64m", "tmpfs", str(self.tmp)],
                                      capture_output=True).returncode == 0

    def tearDown(self):
        if self.mounted:
            subprocess.run(["umount", "-l", str(self.tmp)])
        super().tearDown()


def planted_link(shared, name, to, uid=65534):
    """A link at shared/name to `to`, owned by another user (uid, nobody by default), as one
    planted in a sticky world-writable directory (/tmp) for a root run to write through.
    Needs root; shared is made such a directory if it is not one yet."""
    shared.mkdir(exist_ok=True)
    shared.chmod(0o1777)
    (shared / name).symlink_to(to)
    os.lchown(shared / name, uid, uid)
    return shared / name


def held_at_first_open(after, function, argv, cwd, swap):
    """Runs argv under gdb, stopped at the first open (openat or openat2) made once function is
    entered, where the shell command swap runs (another user replacing a directory by a link
    between ioplan's looks and its open), then goes on.  gdb's CompletedProcess."""
    gdb = ["gdb", "-q", "-batch", "-ex", "set breakpoint pending on", "-ex", f"break {function}", "-ex", "run",
           "-ex", "catch syscall openat openat2", "-ex", "continue", "-ex", f"shell {swap}", "-ex", "delete",
           "-ex", "continue", "--args", *argv]
    p = subprocess.run(gdb, cwd=cwd, capture_output=True, text=True, timeout=120)
    after.assertIn("Catchpoint 2 (call to syscall openat", p.stdout, p.stderr)
    return p


def swappable_dir(tmp, uid=65534):
    """tmp/shared/sub, a directory of another user's (uid) in a sticky world-writable one, which
    that user may replace by a link at any moment; tmp/victim, a directory of this user's; and
    the shell command that makes the swap (sub moved aside, uid's link to victim in its place).
    Needs root; sub is made anew when there from an earlier call."""
    shared, victim = tmp / "shared", tmp / "victim"
    victim.mkdir(exist_ok=True)
    shared.mkdir(exist_ok=True)
    shared.chmod(0o1777)
    sub = shared / "sub"
    if sub.is_symlink():
        sub.unlink()
    shutil.rmtree(shared / "sub.real", ignore_errors=True)
    sub.mkdir()
    os.chown(sub, uid, uid)
    return sub, victim, f"mv {sub} {shared / 'sub.real'} && ln -s {victim} {sub} && chown -h {uid}:{uid} {sub}"


def fill_up(directory):
    """Fills the file system of directory to its last page (a file named filler), as a
    disk another writer just filled."""
    fd = os.open(pathlib.Path(directory) / "filler", os.O_WRONLY | os.O_CREAT)
    try:
        while os.write(fd, b"\0" * 4096):
            pass
    except OSError:
        pass
    os.close(fd)


def tmpfs(case, options):
    """A tmpfs mounted with options ("ro,size=64k") in a directory of its own, not
    under case.tmp (tearDown removes that before the cleanups unmount), unmounted
    and removed when the test ends; the test is skipped where none can be mounted."""
    mnt = pathlib.Path(tempfile.mkdtemp(prefix="ioplan-tmpfs-"))
    case.addCleanup(os.rmdir, mnt)
    m = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(mnt)], capture_output=True, text=True)
    if m.returncode:
        case.skipTest(f"cannot mount a tmpfs: {m.stderr.strip()}")
    case.addCleanup(subprocess.run, ["umount", str(mnt)])
    return mnt


def loop_device(case, size=32 << 20):
    """A loop device over a sparse image in case.tmp, detached when the test ends;
    the test is skipped (with losetup's reason) where none can be made."""
    img = case.tmp / "disk.img"
    with open(img, "wb") as f:
        f.truncate(size)
    loop = subprocess.run(["losetup", "-f", "--show", str(img)], capture_output=True, text=True)
    if loop.returncode:
        case.skipTest("losetup: " + loop.stderr.strip())
    dev = loop.stdout.strip()
    case.addCleanup(subprocess.run, ["losetup", "-d", dev])
    return dev


def ext4_loop(case):
    """Mounts a fresh 64 MiB ext4 filesystem on a loop device for the test; the mount,
    the loop device and the image go away at cleanup even when the test fails."""
    if os.geteuid() != 0 or shutil.which("mkfs.ext4") is None or shutil.which("losetup") is None:
        case.skipTest("needs root, mkfs.ext4 and losetup")
    # Not under case.tmp: tearDown removes that before the cleanups unmount.
    top = pathlib.Path(tempfile.mkdtemp(prefix="ioplan-ext4-"))
    case.addCleanup(shutil.rmtree, top, True)
    img, mnt = top / "ext4.img", top / "mnt"
    with open(img, "wb") as f:
        f.truncate(64 << 20)
    subprocess.run(["mkfs.ext4", "-q", "-F", str(img)], check=True, capture_output=True)
    p = subprocess.run(["losetup", "-f", "--show", str(img)], capture_output=True, text=True)
    if p.returncode != 0:
        case.skipTest(f"no loop device: {p.stderr.strip()}")
    loop = p.stdout.strip()
    case.addCleanup(subprocess.run, ["losetup", "-d", loop], capture_output=True)
    mnt.mkdir()
    subprocess.run(["mount", loop, str(mnt)], check=True, capture_output=True)
    case.addCleanup(subprocess.run, ["umount", str(mnt)], capture_output=True)
    return mnt


def remount(mnt):
    """Unmounts the file system at mnt and mounts it again: none of its files' pages
    is left in the page cache."""
    src = subprocess.run(["findmnt", "-n", "-o", "SOURCE", str(mnt)], capture_output=True, text=True,
                         check=True).stdout.strip()
    # An io_uring instance lets go of its files in kernel work after its process exits,
    # so the mount can be busy for a moment after a run: wait for it, with a deadline.
    deadline = time.monotonic() + 30
    while True:
        p = subprocess.run(["umount", str(mnt)], capture_output=True, text=True)
        if p.returncode == 0:
            break
        if time.monotonic() > deadline:
            raise AssertionError(f"umount {mnt}: {p.stderr.strip()}")
        time.sleep(0.05)
    subprocess.run(["mount", src, str(mnt)], check=True, capture_output=True)


def flip(path, at):
    """Flips the bits of one byte of a file in place: the corruption verify must catch."""
    with open(path, "r+b") as f:
        f.seek(at)
        b = f.read(1)
        f.seek(at)
        f.write(bytes([b[0] ^ 0x5A]))


def mark_of(path):
    """ioplan's mark on path (engine/mark.c: 48 bytes, version 3) as a dict with state, token,
    dev, ino, size and mtime_ns; None when the file has none or it is not one ioplan writes."""
    import struct
    try:
        value = os.getxattr(path, "user.ioplan", follow_symlinks=False)
    except OSError:
        return None
    if len(value) != 48 or value[:5] != b"IOPM\x03":
        return None
    states = {b"p": "partial", b"s": "sized", b"f": "filled"}
    token, dev, ino, size, mtime_ns = struct.unpack("<QQQQq", value[8:])
    return dict(state=states.get(value[5:6]), token=token, dev=dev, ino=ino, size=size, mtime_ns=mtime_ns)


def mark_state(path):
    m = mark_of(path)
    return m and m["state"]


def child_pids(pid):
    """The processes whose parent is pid, read from /proc."""
    kids = []
    for d in pathlib.Path("/proc").glob("[0-9]*"):
        try:
            if int((d / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                kids.append(int(d.name))
        except (OSError, ValueError):
            continue
    return kids


def runs_ioplan(pid):
    """Whether process pid is running (has exec'd) the ioplan under test."""
    try:
        return os.readlink(f"/proc/{pid}/exe") == os.path.realpath(BIN)
    except OSError:
        return False


def wait_until(predicate, timeout=30.0, what=None, interval=0.01):
    """Polls predicate() until it returns something true, and returns that; fails
    (naming `what`) once timeout seconds have passed.  A test waits this way for
    the state it needs instead of sleeping a guessed time, which a loaded machine
    outlasts and an idle one wastes."""
    deadline = time.monotonic() + timeout
    while True:
        got = predicate()
        if got:
            return got
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {timeout} s for {what or predicate.__name__}")
        time.sleep(interval)


def pending_signals(pid):
    """The signals pending for pid, to the thread or to the process (SigPnd, ShdPnd in
    /proc/PID/status): a signal it holds blocked shows here until it takes it.  Empty
    once pid is gone."""
    try:
        status = pathlib.Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return set()
    bits = 0
    for m in re.findall(r"^(?:SigPnd|ShdPnd):\s+([0-9a-f]+)$", status, re.M):
        bits |= int(m, 16)
    return {signal.Signals(n + 1) for n in range(64) if bits >> n & 1 and n + 1 in signal.valid_signals()}


def communicate_after(proc, *steps, timeout=120):
    """Takes each step (a wait for a state, then what the test does to the running
    process or its files), then the process's output and its end; a process a
    failed step or the timeout leaves running is killed, so no test leaves one."""
    try:
        for step in steps:
            step()
        return proc.communicate(timeout=timeout)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def fifo_writer(fifo, proc, what, timeout=60.0):
    """The FIFO opened for writing (a descriptor), once proc's job holds it open for
    reading: a state to wait on, not a guessed sleep.  Fails naming `what` when proc
    ends first or timeout seconds pass."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            return os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        except OSError as e:
            if e.errno != errno.ENXIO or proc.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"{what} never opened the FIFO: {e}; {proc.communicate()[1]}")
            time.sleep(0.01)


def waits_in(pid, kernel_function):
    """Whether a thread of process pid sleeps in a kernel function whose name holds
    kernel_function (its wchan): wait_for_partner is where open() of a FIFO waits
    for the other end, pipe_write (anon_pipe_write on 6.x) a write to a full pipe."""
    import glob
    for path in glob.glob(f"/proc/{pid}/task/*/wchan"):
        try:
            with open(path) as f:
                if kernel_function in f.read():
                    return True
        except OSError:
            continue
    return False


def children_cpu():
    """CPU seconds (user + system) of the child processes waited for so far: the
    difference around a run is that run's work, which a loaded machine stretches
    far less than its wall time (bound work, not time, where work is the property)."""
    import resource
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def port_listening(port, proto="tcp"):
    """Whether a local socket listens on port (tcp) or is bound to it (udp), from the
    kernel's /proc/net tables: a server is ready for a client once this holds."""
    for table in (proto, proto + "6"):
        try:
            with open(f"/proc/net/{table}") as f:
                rows = f.read().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            local, state = row.split()[1], row.split()[3]
            if local.endswith(f":{port:04X}") and (proto != "tcp" or state == "0A"):
                return True
    return False


def wait_for_stderr(proc, marker=b"Jobs:", timeout=60, until=None):
    """Reads proc's stderr until marker shows (e.g. the --eta=always progress line,
    which means the run is under way and its signals are handled), or until
    until(text read so far) holds; returns what was read.  A later communicate()
    gets the rest."""
    import select
    fd, seen = proc.stderr.fileno(), b""
    deadline = time.monotonic() + timeout
    while not (until(seen.decode(errors="replace")) if until else marker in seen):
        if time.monotonic() > deadline or proc.poll() is not None:
            raise AssertionError(f"no {until or marker!r} on stderr: {seen[-500:]!r}")
        ready, _, _ = select.select([fd], [], [], 0.1)
        if ready:
            chunk = os.read(fd, 4096)
            if not chunk:  # stderr closed without it: the wait failed, it did not succeed
                raise AssertionError(f"stderr ended without {until or marker!r}: {seen[-500:]!r}")
            seen += chunk
    return seen.decode(errors="replace")

class DirWatch:
    """inotify on one directory: each name created or deleted in it, in the kernel's order.
    A name moved away counts as deleted and one moved in as created: ioplan removes a file
    by first moving it aside (engine/target.h, tgt_remove_if)."""

    IN_MOVED_FROM, IN_MOVED_TO, IN_CREATE, IN_DELETE = 0x40, 0x80, 0x100, 0x200

    def __init__(self, path):
        libc = ctypes.CDLL(None, use_errno=True)
        self.fd = libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        if self.fd < 0 or libc.inotify_add_watch(self.fd, os.fsencode(path), self.IN_CREATE | self.IN_DELETE |
                                                    self.IN_MOVED_FROM | self.IN_MOVED_TO) < 0:
            raise OSError(ctypes.get_errno(), "inotify")

    def events(self, name):
        """("create" | "delete", ...) for name, since the watch began; closes the watch."""
        out, buf = [], b""
        while True:
            try:
                buf += os.read(self.fd, 65536)
            except BlockingIOError:
                break
        os.close(self.fd)
        i = 0
        while i < len(buf):
            _, mask, _, n = struct.unpack_from("iIII", buf, i)
            if buf[i + 16:i + 16 + n].rstrip(b"\0").decode() == name:
                out.append("create" if mask & (self.IN_CREATE | self.IN_MOVED_TO) else "delete")
            i += 16 + n
        return out

