#!/usr/bin/env python3
"""bench/bench.py - ioplan against fio 3.33, side by side, in one invocation.

The machines are shared and noisy, so nothing here is an absolute time: each
workload runs ioplan and fio alternately for several rounds and prints, per
metric, the median of the per-round ratios and their spread (min..max).  A
round's ratio compares two runs made seconds apart on the same machine, which
cancels most of the noise a neighbour makes.  Device-bound workloads (a real
file on a virtual disk) move by 10-20% from one run to the next for both tools
alike, so they get three times the rounds.  Past its minimum, a workload runs
more rounds while any of its figures is known to worse than +-5% (95% bootstrap
interval over the rounds), until it has taken twice as long.

Each process's CPU and peak RSS come from its own rusage (wait4), not from what
the tool says about itself.

Every run is saved (--save, default build/bench-last.json, per mode) and each
row is compared with the same row of the run before it: the last column is the
change, and rows that moved by more than 10% are named at the end -- the
reproducibility check, read straight off two consecutive `make bench` runs.

Usage: bench.py [--rounds N] [--device-rounds N] [--quick] [--only NAME[,NAME]]
                [--dir DIR] [--save FILE]
Environment: IOPLAN_BIN (default ./ioplan), FIO_BIN (default fio).
"""
import argparse
import collections
import contextlib
import ctypes
import datetime
import json
import os
import pathlib
import platform
import random
import re
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # found when loaded by path, as tests do
import parse_growth  # noqa: E402  bench/: the job-file growth rows and curve

ROOT = pathlib.Path(__file__).resolve().parent.parent
IOPLAN = os.environ.get("IOPLAN_BIN", str(ROOT / "ioplan"))
FIO = os.environ.get("FIO_BIN", shutil.which("fio") or "fio")


def ioplan_only_options():
    """Options only ioplan knows, from its option table; fio gets job files without them."""
    p = subprocess.run([IOPLAN, "--dump-options=json"], capture_output=True, text=True, check=True)
    return {n for o in json.loads(p.stdout) if o["ioplan_only"] for n in [o["name"]] + o["aliases"]}

# Two runs agree when a ratio moved by at most this fraction; a "%" metric (already
# a relative error) when it moved by at most REPRO_POINTS percentage points.
REPRO_TOLERANCE = 0.10
REPRO_POINTS = 0.1

# A workload runs more than its minimum rounds while any figure's 95% bootstrap
# interval is wider than +-SETTLE of it (+-SETTLE_POINTS for a "%" metric), for
# at most as long again as the minimum took (MIN_BUDGET seconds at least).  Below
# SETTLE_ROUNDS rounds only a figure whose rounds all agree counts as settled.
# Two figures each known to +-5% land within 10% of each other.
SETTLE = 0.05
SETTLE_ROUNDS = 5
SETTLE_POINTS = 0.05
MIN_BUDGET = 20.0
BOOTSTRAP = 200

# other: the argv compared against (fio, dd, or ioplan itself); cleanup: files
# removed before each run; device: bound by the disk rather than the CPU.
# label; fn(ioplan Proc, other Proc) -> (a, b), the round's value being a / b (a alone
# when b is None); target (op, bound) or None.  pool: when set, a and b are raw
# samples, pool(list of samples) -> number gives a round's value from [a] and the
# row's figure from every round's samples at once, instead of a median.
Metric = collections.namedtuple("Metric", "label fn target pool", defaults=(None,))

# Why some rows pool their rounds.  User CPU: with tick accounting
# (CONFIG_TICK_CPU_ACCOUNTING, HZ=250 here) the kernel splits a process's CPU
# time into user and system by what it was doing at each tick, and a 3 s disk run
# of ioplan holds ~20 user ticks, +-25% by counting alone.  Tail latency: one 3 s
# run's p99 rests on ~400 I/Os and moves by +-30% with the host's moment; the p99
# of all rounds' I/Os together (the json+ histograms merged) repeats.
#
# Best round: a single-threaded CPU-bound row (the null engine) is only ever slowed by
# the host, never sped up, and this guest's host slows a vCPU in two modes: on
# 2026-12-01, pinned to one CPU at QD32 size=1g, fio made 4.6 million IOPS and
# ioplan 29 million in one (6.3x), 2.4 and 19 million in the other (7.9x), switching
# every few minutes and from one CPU to the other.  A median of per-round ratios
# then follows how many rounds of each pair met which mode (4.2x to 11x a round);
# each tool's fastest round is what it does with the CPU to itself.  Both tools of
# a round run on one CPU and the rounds go round the CPUs (Workload.pin), so each
# tool meets the CPU the host leaves alone: unpinned, five rounds of fio once all
# met a slowed CPU and the QD1 row read 8.3.
POOLED_NOTE = ("* pooled: from all rounds' samples at once (summed CPU ticks, merged histograms, "
               "each tool's fastest round)")

# One line of the table: values are the per-round ratios, figure what the row
# says (median, or pooled), ci half its 95% interval.
Row = collections.namedtuple("Row", "name label values target figure ci device", defaults=(False,))

# A device-bound row compares two tools each waiting on the same disk: at parity its
# figure lands either side of 1.0 by the device's noise alone (QD1 reads of about
# 100 us here move by +-3-7% at 95%), so a target of parity is judged on the row's
# interval: past the target but reaching it is "within ci", past it with the whole
# interval is MISSED.  The page-cache latency row is judged so too (the copy's time
# moves by +-4% from round to round); rows the tool alone decides stay strict.

# rounds: the workload's own minimum, for one whose round takes long (None = the run's).
# pin: both tools of a round run on one CPU, the next two rounds on the next CPU (a
# single-threaded row whose best rounds are compared: each tool meets each CPU), and
# the row runs twice the run's minimum rounds (min_rounds).
Workload = collections.namedtuple("Workload", "name other ioplan metrics cleanup device rounds pin",
                                  defaults=((), False, None, False))


# A child forked from this Python keeps Python's high-water mark in its own
# ru_maxrss (the kernel keeps the larger of the old and the new image's across
# exec), which read 1.000 for every small run: GNU time, a small process, forks
# the tool and reads its peak RSS alone.  CPU and wall still come from wait4.
GNU_TIME = shutil.which("time") or "/usr/bin/time"


def become_subreaper():
    """Makes this harness the parent of any process its tools orphan (Linux's
    PR_SET_CHILD_SUBREAPER), so kill_tools() still finds them once their parent died."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        pass


def descendants(root):
    """Every live process below root, by parent links read from /proc."""
    kids = collections.defaultdict(list)
    for d in pathlib.Path("/proc").glob("[0-9]*"):
        try:
            fields = (d / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] not in "ZX":
            kids[int(fields[1])].append(int(d.name))
    out, todo = [], [root]
    while todo:
        for k in kids.get(todo.pop(), ()):
            out.append(k)
            todo.append(k)
    return out


def kill_tools():
    """SIGKILL to every process below this harness.  Its process group is not
    enough: each of fio's job processes calls setsid(), so fio's own was killed
    and its jobs ran on into the scratch directory being removed."""
    for _ in range(10):
        pids = descendants(os.getpid())
        if not pids:
            return
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.01)  # an orphan reaches this harness (the subreaper) as its parent exits


class Proc:
    """One finished child: stdout, exit status, wall seconds and its own rusage."""

    def __init__(self, argv, cwd, cpu=None):
        t0 = time.monotonic()
        out = tempfile.TemporaryFile()
        err = tempfile.TemporaryFile()
        peak = tempfile.NamedTemporaryFile(mode="r")
        timed = os.access(GNU_TIME, os.X_OK)
        wrap = [GNU_TIME, "-o", peak.name, "-f", "%M"] if timed else []
        # Its own process group (the session, and so the scheduling group, stays the
        # harness's): an interrupt or SIGTERM kills the tool under GNU time and every
        # process below it (kill_tools), so nothing writes into the scratch directory
        # while it is removed.
        pin = None if cpu is None else (lambda: os.sched_setaffinity(0, {cpu}))
        child = subprocess.Popen(wrap + list(argv), cwd=cwd, stdout=out, stderr=err, process_group=0,
                                 preexec_fn=pin)
        try:
            _, status, ru = os.wait4(child.pid, 0)
        except BaseException:
            kill_tools()
            child.wait()
            raise
        child.returncode = os.waitstatus_to_exitcode(status)
        self.wall = time.monotonic() - t0
        self.rc = child.returncode
        self.utime, self.stime, self.maxrss_kib = ru.ru_utime, ru.ru_stime, ru.ru_maxrss
        if timed:  # the last line: GNU time says a non-zero exit on a line before it
            self.maxrss_kib = int(peak.read().split()[-1])
        peak.close()
        out.seek(0)
        err.seek(0)
        self.stdout = out.read().decode(errors="replace")
        self.stderr = err.read().decode(errors="replace")
        out.close()
        err.close()
        if self.rc != 0:
            raise RuntimeError(f"{' '.join(argv)} exited {self.rc}: {self.stderr.strip()[:400]}")

    def json(self):
        start = self.stdout.find("{")  # fio may print notes before its JSON
        return json.loads(self.stdout[start:])


def fio_read(doc):
    """The read direction of the first job of a fio-layout JSON document."""
    return doc["jobs"][0]["read"]


def iops(p):
    return fio_read(p.json())["iops"]


def user_cpu_and_ios(p):
    """(user CPU seconds, I/Os): a sample for pool_per_io."""
    return p.utime, fio_read(p.json())["total_ios"]


def pool_per_io(samples):
    return div(sum(s[0] for s in samples), sum(s[1] for s in samples))


def clat_bins(p):
    """The completion latency histogram of a json+ document, {ns: count}."""
    return {int(k): v for k, v in fio_read(p.json())["clat_ns"]["bins"].items()}


def pool_pct(pct):
    """pool(list of histograms): the pct percentile of their merged counts."""
    def pooled(hists):
        merged = collections.Counter()
        for h in hists:
            merged.update(h)
        rank, seen = pct / 100 * sum(merged.values()), 0
        for ns in sorted(merged):
            seen += merged[ns]
            if seen >= rank:
                return ns
        return float("nan")
    return pooled


# User-space instructions per I/O by callgrind, between a run at io_size 128m and
# one at 256m (32m and 64m in quick mode; the figure is the same within 1%), fio as
# threads, so one process holds all its work.  Each tool's report is left out:
# ioplan's holds a time series, longer the longer a run took, and under callgrind
# on a busy machine that is the machine's doing, not the I/Os'.
def instr_per_io(quick, tool, report_function):
    return [sys.executable, str(ROOT / "bench" / "instr_per_io.py"), "--leave-out", report_function,
            *(("32m", "64m") if quick else ("128m", "256m")), "--", tool]


def job_args(name, fmt="json", **opts):
    """A one-job command line both tools accept."""
    args = [f"--name={name}"]
    args += [f"--{k}={v}" for k, v in opts.items()]
    return args + [f"--output-format={fmt}"]


def workloads(d, mem, quick):
    """The fio-against-ioplan Workloads, each with its Metrics (mem: a tmpfs directory or None)."""
    secs = 1 if quick else 3
    big = "256m" if quick else "1g"
    null = dict(ioengine="null", rw="randread", bs="4k", size="100g", time_based=1,
                runtime=secs)
    wl = []

    def both(name, opts, metrics, device=False, fmt="json", pin=False):
        a = job_args(name, fmt, **opts)
        wl.append(Workload(name, [FIO, *a], [IOPLAN, *a], metrics, device=device, pin=pin))

    ratio = lambda f: (lambda i, o: (f(i), f(o)))  # noqa: E731
    # The targets, at a size whose random map fits in cache too (fio is cheaper there);
    # each tool's best round (why: the comment at POOLED_NOTE).
    for size in ("100g", "1g"):
        tail = "" if size == "100g" else "-1g"
        both(f"null-qd1{tail}", dict(null, iodepth=1, size=size),
             [("IOPS ratio", ratio(iops), (">=", 6.0), max)], pin=True)
        both(f"null-qd32{tail}", dict(null, iodepth=32, size=size),
             [("IOPS ratio", ratio(iops), (">=", 8.0), max)], pin=True)
    # fio's default and the most common job: sequential reads, shown (no target in the issue).
    both("null-seq-qd1", dict(null, rw="read", iodepth=1), [("IOPS ratio", ratio(iops), None, max)], pin=True)
    # norandommap, common in real job files: fio's offset draw without its map.
    both("null-nomap-qd1", dict(null, iodepth=1, norandommap=1), [("IOPS ratio", ratio(iops), None, max)],
         pin=True)
    for eng in ("io_uring", "libaio"):
        disk = dict(ioengine=eng, rw="randread", bs="4k", size=big, direct=1, iodepth=32,
                    filename=f"{d}/bench.{eng}")
        # The user CPU by ticks is shown, not judged: this guest charges about half of
        # each system call to user (bench/instr_per_io.py), and both tools make one call
        # an I/O.  The tool's own work is judged by the instructions it runs.
        both(f"{eng}-qd32", dict(disk, time_based=1, runtime=secs),
             [("IOPS ratio", ratio(iops), (">=", 1.0)),
              ("user CPU/IO ratio", ratio(user_cpu_and_ios), None, pool_per_io)],
             device=True)
        if not shutil.which("valgrind"):
            print(f"{eng}-qd32-instr: skipped: no valgrind (make deps installs it)")
            continue
        counted = job_args(f"{eng}-qd32", **dict(disk, io_size="{io_size}"))
        wl.append(Workload(f"{eng}-qd32-instr", [*instr_per_io(quick, FIO, "__show_run_stats"), "--thread", *counted],
                           [*instr_per_io(quick, IOPLAN, "report::write(*"), *counted],
                           [("user instr/IO ratio", ratio(lambda p: p.json()["per_io"]), ("<=", 0.3))],
                           rounds=None if quick else 3))
    both("psync-qd1-lat", dict(ioengine="psync", rw="randread", bs="4k", size=big, direct=1,
                               time_based=1, runtime=secs, filename=f"{d}/bench.psync"),
         [("p50 latency ratio", ratio(clat_bins), ("<=", 1.0), pool_pct(50)),
          ("p99 latency ratio", ratio(clat_bins), ("<=", 1.0), pool_pct(99))],
         device=True, fmt="json+")
    # QD1 on the disk through each synchronous-latency path fio users compare: the device
    # is the limit, so any of the latency that is ioplan's shows as a ratio above 1.
    qd1 = lambda eng, **extra: dict(ioengine=eng, rw="randread", bs="4k", size=big, direct=1,  # noqa: E731
                                    iodepth=1, time_based=1, runtime=secs, filename=f"{d}/bench.qd1", **extra)
    for eng, extra in (("libaio", {}), ("io_uring", {}), ("pvsync2", dict(hipri=1))):
        both(f"{eng}-qd1-lat", qd1(eng, **extra),
             [("p50 latency ratio", ratio(clat_bins), ("<=", 1.0), pool_pct(50)),
              ("p99 latency ratio", ratio(clat_bins), ("<=", 1.0), pool_pct(99))],
             device=True, fmt="json+")
    # The floor of the rows above: ioplan against itself on the same disk and job.  Two runs of
    # one tool differ by the disk's own spread, so a latency row that misses by less than this
    # row strays from 1.0 shows no cost of ioplan's (shown, not judged).
    a = job_args("libaio-qd1-lat-aa", "json+", **qd1("libaio"))
    wl.append(Workload("libaio-qd1-lat-aa", [IOPLAN, *a], [IOPLAN, *a],
                       [("p50 ioplan/ioplan", ratio(clat_bins), None, pool_pct(50)),
                        ("p99 ioplan/ioplan", ratio(clat_bins), None, pool_pct(99))], device=True))
    # QD1 reads the page cache serves (a file on tmpfs, which no invalidate drops): a
    # latency of about a microsecond, with no device to blur it, so the share of it
    # that is the tool's own -- the time between its two clock reads around the read --
    # shows here first.  The page cache's own time still moves by a few % from one round
    # to the next for both tools alike, so it is judged as a device row is.
    if mem:
        both("psync-qd1-cache-lat", dict(ioengine="psync", rw="randread", bs="4k", size="256m",
                                         time_based=1, runtime=secs, filename=f"{mem}/bench.cache"),
             [("p50 latency ratio", ratio(clat_bins), ("<=", 1.0), pool_pct(50)),
              ("p99 latency ratio", ratio(clat_bins), ("<=", 1.0), pool_pct(99))],
             device=True, fmt="json+")
    # Eight jobs as threads of one process for both tools (fio --thread): under autogroup
    # scheduling fio's default, a process per job each in its own session, would get eight
    # shares of a busy CPU against ioplan's one (docs/performance.md, "Fair share").
    both("null-8jobs", dict(null, iodepth=1, numjobs=8, thread=1, group_reporting=1),
         [("IOPS ratio", ratio(iops), None)])
    rate_secs = 2 if quick else 5
    rate_err = lambda p: abs(iops(p) - 3200) / 3200 * 100  # noqa: E731
    both("rate-3200", dict(ioengine="null", rw="randread", bs="4k", size="100g",
                           time_based=1, runtime=rate_secs, rate_iops=3200),
         [("ioplan rate error %", lambda i, o: (rate_err(i), None), ("<=", 0.5)),
          ("fio rate error %", lambda i, o: (rate_err(o), None), None)])
    return wl


# The verify= checksums both tools time with --crctest (fio's list without its
# murmur3/jhash/fnv, which no verify= method uses).
CHECKSUMS = ("md5", "crc64", "crc32", "crc32c", "crc16", "crc7", "sha1", "sha256", "sha512",
             "xxhash", "sha3-224", "sha3-256", "sha3-384", "sha3-512")


def crc_mib_s(p):
    """The MiB/sec of a one-checksum --crctest line ("md5:\t\t  165.88 MiB/sec")."""
    return float(re.search(r":\s+([0-9.]+) MiB/sec", p.stdout).group(1))


def checksum_workloads():
    """Each verify checksum's throughput, `ioplan --crctest=X` against `fio --crctest=X`:
    both digest one 128 KiB buffer 2048 times; the rows give both figures and their ratio."""
    return [Workload(f"crc-{name}", [FIO, f"--crctest={name}"], [IOPLAN, f"--crctest={name}"],
                     [("MiB/s ratio", lambda i, o: (crc_mib_s(i), crc_mib_s(o)), None),
                      ("ioplan MiB/s", lambda i, o: (crc_mib_s(i), None), None),
                      ("fio MiB/s", lambda i, o: (crc_mib_s(o), None), None)])
            for name in CHECKSUMS]


def layout_workloads(d, quick):
    """Laying out a file (a read job's create_only layout) against dd with O_DIRECT.

    Like for like: dd bs=1M oflag=direct syncs nothing, so ioplan runs with
    create_fsync=0; ioplan's default (fsync once laid out, as fio) is compared
    with dd conv=fsync.  Whole-process wall time, start-up included.
    """
    mib = 256 if quick else 1024
    out = []
    for name, sync in (("layout", False), ("layout-fsync", True)):
        ioplan = [IOPLAN, "--name=layout", "--rw=read", "--bs=1m", f"--size={mib}m", "--direct=1",
                  "--create_only=1", f"--create_fsync={int(sync)}",
                  f"--filename={d}/layout.ioplan", "--output-format=json"]
        dd = ["dd", "if=/dev/zero", f"of={d}/layout.dd", "bs=1M", f"count={mib}", "oflag=direct",
              "status=none"] + (["conv=fsync"] if sync else [])
        label = "time ratio vs dd" + (" fsync" if sync else "")
        out.append(Workload(name, dd, ioplan, [(label, lambda i, o: (i.wall, o.wall), ("<=", 1.1))],
                            [f"{d}/layout.ioplan", f"{d}/layout.dd"], device=True))
    return out


def fio_accepts(path):
    """Strips, one at a time, every option fio refuses ("Bad option <name=...>")."""
    dropped = []
    for _ in range(50):
        p = subprocess.run([FIO, "--parse-only", str(path)], capture_output=True, text=True)
        if p.returncode == 0:
            return dropped
        m = re.search(r"Bad option <([^=>]+)", p.stdout + p.stderr)
        if not m:
            raise RuntimeError(f"fio --parse-only {path}: {(p.stdout + p.stderr).strip()[:300]}")
        name = m.group(1).strip()
        lines = path.read_text().splitlines()
        path.write_text("\n".join(ln for ln in lines if ln.split("=", 1)[0].strip() != name) + "\n")
        dropped.append(name)
    raise RuntimeError(f"fio --parse-only {path}: too many refused options")


def parse_only_workload(d):
    """--parse-only of the CrystalDiskMark job file; fio gets it without ioplan's options."""
    src = ROOT / "jobs" / "cdm-default.fio"
    plain = pathlib.Path(d) / "cdm-fio.fio"
    skip = ioplan_only_options()
    lines = [ln for ln in src.read_text().splitlines() if ln.split("=", 1)[0].strip() not in skip]
    plain.write_text("\n".join(lines) + "\n")
    dropped = fio_accepts(plain)
    if dropped:
        print(f"parse-only-cdm: fio is given the file without {', '.join(dropped)}")
    return Workload("parse-only-cdm", [FIO, "--parse-only", str(plain)],
                    [IOPLAN, "--parse-only", str(src)],
                    [("process time ratio", lambda i, o: (i.wall, o.wall), ("<=", 1.0))])


def cpu_s(p):
    return p.utime + p.stime


def layout_growth_workloads(d, quick):
    """A create_only layout of N 4 KiB files, N from 100 to 100 000 (same names for both
    tools, each in its own directory of d, removed before every run), of a read job (the files
    get data) and of a write job (-w: only sized): target at most fio's wall and CPU time
    and peak RSS at every N.  bench/layout_growth.py draws the curve between the rows."""
    ratio = lambda f: (lambda i, o: (f(i), f(o)))  # noqa: E731
    dirs = {who: pathlib.Path(d) / f"many-{who}" for who in ("fio", "ioplan")}
    for path in dirs.values():
        path.mkdir(exist_ok=True)
    out = []
    for rw, tag in (("read", ""), ("write", "-w")):
        for n in (100, 1000) if quick else (100, 10000, 100000):
            args = lambda who, n=n, rw=rw: ["--name=many", f"--directory={dirs[who]}", f"--nrfiles={n}",  # noqa: E731
                                            "--filesize=4k", "--create_only=1", "--ioengine=psync", f"--rw={rw}",
                                            "--output-format=json"]
            out.append(Workload(f"layout{tag}-{n}-files", [FIO, *args("fio")], [IOPLAN, *args("ioplan")],
                                [("process time ratio", ratio(lambda p: p.wall), ("<=", 1.0)),
                                 ("CPU time ratio", ratio(cpu_s), ("<=", 1.0)),
                                 ("peak RSS ratio", ratio(lambda p: p.maxrss_kib), ("<=", 1.0))],
                                [str(path / f"many.0.{i}") for path in dirs.values() for i in range(n)],
                                device=True, rounds=3 if n >= 100000 else None))
    return out


def metadata_workloads(d, quick):
    """fio's answer to mdtest: filecreate, filestat and filedelete of the same N empty files,
    stonewalled in one job file with create_on_open=1 (as fio's filecreate example), each
    tool in its own directory of d: target at least fio's rate per file at each step, and
    at most fio's wall and CPU time for the whole cycle.  No data moves and fio's side is
    its own CPU time (about 0.25 ms a file), so the row runs the 5 rounds of a CPU-bound one."""
    n = 1000 if quick else 10000
    jobs = {}
    for who in ("fio", "ioplan"):
        where = pathlib.Path(d) / f"meta-{who}"
        where.mkdir(exist_ok=True)
        jobs[who] = where / "cycle.fio"
        jobs[who].write_text(f"[global]\ndirectory={where}\nnrfiles={n}\nfilesize=4k\ncreate_on_open=1\n"
                             "openfiles=1\nfallocate=none\nfilename_format=f.$filenum\n"
                             "[create]\nioengine=filecreate\n[stat]\nstonewall\nioengine=filestat\n"
                             "[delete]\nstonewall\nioengine=filedelete\n")

    def rate(step):
        def of(p):
            j = p.json()["jobs"][step]
            return j["read"]["iops"] + j["write"]["iops"]
        return lambda i, o: (of(i), of(o))

    ratio = lambda f: (lambda i, o: (f(i), f(o)))  # noqa: E731
    metrics = [(f"{name} rate ratio", rate(k), (">=", 1.0)) for k, name in enumerate(("create", "stat", "delete"))]
    metrics += [("process time ratio", ratio(lambda p: p.wall), ("<=", 1.0)),
                ("CPU time ratio", ratio(cpu_s), ("<=", 1.0))]
    cleanup = [str(jobs[who].parent / f"f.{i}") for who in jobs for i in range(n)]
    return [Workload(f"meta-cycle-{n}-files", [FIO, "--output-format=json", str(jobs["fio"])],
                     [IOPLAN, "--output-format=json", str(jobs["ioplan"])], metrics, cleanup, rounds=5)]


def growth_workloads(d, lay, quick):
    """Costs that grow with the work: --parse-only of job files of many sections,
    create_only layouts of many small files and the metadata engines' cycle over them
    (in lay: file_system_for_layouts)."""
    return (parse_growth.workloads(d, quick, Workload, cpu_s) + layout_growth_workloads(lay, quick) +
            metadata_workloads(lay, quick))


@contextlib.contextmanager
def file_system_for_layouts(d, wanted):
    """Where the many-small-files rows lay out: a fresh ext4 with its journal, on a loop
    device over an image in d, where this user may make one; else d itself, said.

    Creating many files right after removing as many costs the file system, not the
    tool, on an ext4 without a journal (this machine's root): to reuse no inode
    freed in the last 30 s, each creation walks past every one (ext4's
    recently_deleted), and the same layout of 2 000 files took 0.7 to 3.3 s of CPU
    from one run to the next, whichever tool ran it.  With a journal that walk is
    not made.  The inode tables are written by mkfs, not by a kernel thread during
    the rows."""
    if not wanted:
        yield d
        return
    img, mnt, dev = pathlib.Path(d) / "layout-fs.img", pathlib.Path(d) / "layout-fs", None
    try:
        with open(img, "wb") as f:
            f.truncate(3 << 30)  # sparse: 100 000 files of 4 KiB take 400 MiB, and an inode each
        dev = subprocess.run(["losetup", "-f", "--show", str(img)], capture_output=True, text=True,
                             check=True).stdout.strip()
        subprocess.run(["mkfs.ext4", "-q", "-F", "-i", "4096", "-E", "lazy_itable_init=0,lazy_journal_init=0", dev],
                       capture_output=True, check=True)
        mnt.mkdir()
        subprocess.run(["mount", dev, str(mnt)], capture_output=True, check=True)
    except (OSError, subprocess.CalledProcessError) as e:
        why = getattr(e, "stderr", None) or str(e)
        print(f"layout rows: in {d}, not on a fresh ext4 ({str(why).strip()[:120]})")
        if dev:
            subprocess.run(["losetup", "-d", dev], capture_output=True)
        yield d
        return
    try:
        yield str(mnt)
    finally:
        if subprocess.run(["umount", str(mnt)], capture_output=True).returncode:
            subprocess.run(["umount", "-l", str(mnt)], capture_output=True)
        subprocess.run(["losetup", "-d", dev], capture_output=True)


def memory_workloads(quick):
    """Peak RSS at 64 threads, and growth of ioplan's peak RSS from a short to a long run.

    A thread's bandwidth/IOPS series (the report's graphs) holds a sample per interval
    (500 ms by default) and grows by doubling up to 512 samples of 112 bytes, then merges
    neighbours and stays: bounded, 56 KiB a thread, but a 30 s run holds 6x the samples of
    a 5 s one (64 threads: ~0.8 MiB more, shown by rss-growth).  So the row that judges
    growth runs with 1 ms intervals, where every series is full within 0.6 s, before the
    short run ends (1 s in quick mode): what is left between the two runs is memory that
    grows with the run's length (a leak)."""
    opts = dict(ioengine="null", rw="randread", bs="4k", size="1g", time_based=1,
                numjobs=64, thread=1, group_reporting=1)
    short, long_ = (1, 3) if quick else (5, 30)
    a = job_args("mem64", **opts, runtime=short)
    b = job_args("mem64", **opts, runtime=long_)
    full = dict(opts, bwavgtime=1, iopsavgtime=1)
    fa, fb = job_args("mem64", **full, runtime=short), job_args("mem64", **full, runtime=long_)
    rss = lambda i, o: (i.maxrss_kib, o.maxrss_kib)  # noqa: E731
    return [Workload("rss-64-threads", [FIO, *a], [IOPLAN, *a], [("peak RSS ratio", rss, None)]),
            Workload(f"rss-growth-{short}s-{long_}s", [IOPLAN, *a], [IOPLAN, *b],
                     [("ioplan RSS long/short", rss, None)]),
            Workload(f"rss-leak-{short}s-{long_}s", [IOPLAN, *fa], [IOPLAN, *fb],
                     [("ioplan RSS long/short", rss, ("<=", 1.02))])]


# What a kernel or file system says when it does not offer something (io_uring
# disabled, O_DIRECT unsupported): such a workload is skipped with the reason.
REFUSALS = ("Operation not permitted", "Function not implemented", "not supported",
            "Invalid argument", "io_uring_queue_init", "ENOSYS", "EPERM")


FEATURES = ("io_uring", "libaio", "direct", "O_DIRECT", "ioengine")


def refusal(err):
    """The refusal, when err is the kernel refusing a feature; None for anything else."""
    text = str(err)
    if not any(f in text for f in FEATURES):
        return None
    return next((r for r in REFUSALS if r in text), None)


def machine():
    """One line naming the machine the table came from."""
    model = "unknown CPU"
    try:
        for ln in open("/proc/cpuinfo"):
            if ln.startswith("model name"):
                model = ln.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{model}, {os.cpu_count()} CPUs, Linux {platform.release()}"


def check(value, target, noise=None):
    """The verdict on a figure.  noise (half its 95% interval) is given for a
    device-bound row: there a figure past its target whose interval still reaches
    it is "within ci", not a miss (why: the comment at Row)."""
    if target is None:
        return ""
    op, bound = target
    ok = value >= bound if op == ">=" else value <= bound
    if not ok and noise is not None and (value + noise >= bound if op == ">=" else value - noise <= bound):
        return f"{op} {bound:<5} within ci"
    return f"{op} {bound:<5} {'ok' if ok else 'MISSED'}"


def verdict(row):
    return check(row.figure, row.target, row.ci if row.device else None)


def min_rounds(wl, args):
    """A workload's minimum rounds: a pinned one takes twice the run's, so that each
    tool's best round has met each CPU more than once."""
    if wl.device:
        return args.device_rounds
    return 2 * args.rounds if wl.pin else args.rounds


def run_round(wl, r):
    """One round: ioplan and the other, in the order r gives; {"ioplan": Proc, "other": Proc}."""
    # Alternate who goes first so a warming cache or a neighbour favours neither.
    order = [("ioplan", wl.ioplan), ("other", wl.other)]
    if r % 2:
        order.reverse()
    cpus = sorted(os.sched_getaffinity(0))
    cpu = cpus[(r // 2) % len(cpus)] if wl.pin else None
    done = {}
    for who, argv in order:
        for path in wl.cleanup:
            pathlib.Path(path).unlink(missing_ok=True)
        if wl.device:
            os.sync()   # the previous run's writes flushed (on a VM, the host's too) before timing
        done[who] = Proc(argv, cwd=ROOT, cpu=cpu)
    return done


class Series:
    """One metric's rounds: per-round values and, for a pooled metric, the raw samples."""

    def __init__(self, metric):
        self.m, self.values, self.mine, self.theirs = metric, [], [], []

    def add(self, ioplan, other):
        a, b = self.m.fn(ioplan, other)
        if self.m.pool:
            self.mine.append(a)
            self.theirs.append(b)
            a, b = self.m.pool([a]), self.m.pool([b])
        self.values.append(a if b is None else div(a, b))

    def figure(self, idx=None):
        """The row's figure over the rounds idx (default all): pooled, or a median."""
        idx = range(len(self.values)) if idx is None else idx
        if self.m.pool:
            return div(self.m.pool([self.mine[i] for i in idx]), self.m.pool([self.theirs[i] for i in idx]))
        return statistics.median(self.values[i] for i in idx)

    def ci(self):
        """Half the width of the figure's 95% bootstrap interval (resampling whole rounds)."""
        rng, n = random.Random(len(self.values)), len(self.values)
        est = sorted(self.figure([rng.randrange(n) for _ in range(n)]) for _ in range(BOOTSTRAP))
        return (est[int(BOOTSTRAP * 0.975) - 1] - est[int(BOOTSTRAP * 0.025)]) / 2

    def row(self, name):
        label = self.m.label + ("*" if self.m.pool else "")
        return Row(name, label, list(self.values), self.m.target, self.figure(), self.ci())


def in_points(label):
    """A "%" metric is already a relative error: it is compared in percentage points."""
    return label.endswith("%")


def row_settled(row):
    return settled(row.label, row.figure, row.ci, row.values)


def settled(label, figure, ci, values):
    """Whether a figure is known well enough to repeat (see SETTLE)."""
    if min(values) == max(values):
        return True
    if len(values) < SETTLE_ROUNDS:
        return False    # a bootstrap of two or three rounds claims more than it knows
    if in_points(label):
        return ci <= SETTLE_POINTS
    return ci <= SETTLE * abs(figure)


def set_budget(seconds):
    global MIN_BUDGET
    MIN_BUDGET = seconds


def run_workload(wl, rounds):
    """[Row] for each of wl's metrics.  After the minimum rounds, rounds go on while a
    figure's 95% interval is wider than SETTLE, until the time taken has doubled."""
    series = [Series(Metric(*m)) for m in wl.metrics]
    t0, deadline, r = time.monotonic(), None, 0
    while True:
        done = run_round(wl, r)
        for s in series:
            s.add(done["ioplan"], done["other"])
        r += 1
        if r < rounds:
            continue
        if deadline is None:
            deadline = t0 + max(2 * (time.monotonic() - t0), MIN_BUDGET)
        rows = [s.row(wl.name)._replace(device=wl.device) for s in series]
        if time.monotonic() >= deadline or all(map(row_settled, rows)):
            return rows


def div(a, b):
    return a / b if b else float("inf")


def change(label, now, before):
    """(text, agrees) for one row against the same row of the previous run."""
    if in_points(label):
        delta = now - before
        return f"{delta:+.3f} pt", abs(delta) <= REPRO_POINTS
    rel = (now - before) / before if before else float("inf")
    return f"{rel * 100:+.1f}%", abs(rel) <= REPRO_TOLERANCE


def print_row(row, before):
    said = verdict(row)
    moved = ""
    if before is not None:
        moved, _ = change(row.label, row.figure, before)
    if in_points(row.label):
        ci = f"+-{row.ci:.3f}"
    else:
        ci = f"+-{div(row.ci, abs(row.figure)) * 100:.1f}%"
    spread = f"[{min(row.values):.3f} .. {max(row.values):.3f}]"
    print(f"{row.name:<22} {row.label:<22} {row.figure:>9.3f} {ci:>8}  {spread:<18} {len(row.values):>3}  "
          f"{said:<15} {moved}".rstrip(), flush=True)


def load_saved(path, mode):
    """The saved rows of the given mode, {"workload/metric": {...}}; {} when none."""
    try:
        rows = json.loads(pathlib.Path(path).read_text()).get(mode, {}).get("rows", {})
    except (OSError, ValueError, AttributeError):
        return {}
    return {k: v for k, v in rows.items() if isinstance(v, dict) and "figure" in v}


def save_rows(path, mode, rows, when):
    """Merges this run's rows into the file, so an --only run keeps the others."""
    p = pathlib.Path(path)
    try:
        doc = json.loads(p.read_text())
    except (OSError, ValueError):
        doc = {}
    if not isinstance(doc, dict):
        doc = {}
    entry = doc.setdefault(mode, {"rows": {}})
    entry["machine"] = machine()
    for row in rows:
        entry["rows"][f"{row.name}/{row.label}"] = {
            "figure": row.figure, "ci": row.ci, "min": min(row.values), "max": max(row.values),
            "n": len(row.values), "when": when}
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")


def report_repro(rows, before):
    """The closing lines: how many rows repeat the previous run within tolerance."""
    compared, moved = 0, []
    for row in rows:
        prev = before.get(f"{row.name}/{row.label}")
        if prev is None:
            continue
        compared += 1
        text, agrees = change(row.label, row.figure, prev["figure"])
        if not agrees:
            moved.append(f"{row.name} {row.label} {text}")
    if not compared:
        print("vs last run: no earlier run of this mode to compare with")
        return
    whens = sorted({before[k]["when"] for k in (f"{r.name}/{r.label}" for r in rows) if k in before})
    print(f"vs last run ({', '.join(whens)}): {compared - len(moved)} of {compared} rows within "
          f"{REPRO_TOLERANCE:.0%} ({REPRO_POINTS} pt for % rows)")
    for m in moved:
        print(f"  moved: {m}")


def log_workloads(d, quick):
    """One log entry per I/O (write_lat_log + write_bw_log, no log_avg_msec) against none, each tool
    against itself: what the logging costs the I/O loop.  The log files are symlinks to /dev/null so
    the row measures the tool (entries, formatting, write calls), not the file system's page cache."""
    secs = 1 if quick else 3
    null = dict(ioengine="null", rw="randread", bs="4k", size="100g", time_based=1, runtime=secs,
                iodepth=32)
    for tool in ("ioplan", "fio"):
        for kind in ("lat", "clat", "slat", "bw"):
            link = pathlib.Path(d) / f"perio-{tool}_{kind}.1.log"
            if not link.is_symlink():
                link.symlink_to(os.devnull)
    rows = []
    for tool, exe in (("ioplan", IOPLAN), ("fio", FIO)):
        logged = job_args("perio", **null, write_lat_log=f"{d}/perio-{tool}", write_bw_log=f"{d}/perio-{tool}")
        plain = job_args("perio", **null)
        target = (">=", 0.5) if tool == "ioplan" else None
        rows.append(Workload(f"log-per-io-{tool}", [exe, *plain], [exe, *logged],
                             [(f"{tool} IOPS logs/none", lambda i, o: (iops(i), iops(o)), target)]))
    return rows


# Generated inputs of the store rows, kept between runs (they take longer than the rows).
# v2: each figure's rates agree with its counts (the store and import refuse one whose iops or
# bw is not its I/Os over its runtime as damaged, so v1's inputs measured 100 000 refusals).
# v3: every run carries its checksum, which summary checks (v2's copies had none to check).
# v4: the runs are copies of real disk runs with their latency buckets and samples (v3's were
# null-engine runs copied without them, which hid what hashing those rows cost summary), and
# carry the checksum of the rows summary reads (schema 5).
STORE_CACHE = ROOT / "build" / "bench-store" / "v4"


def seed_runs(db, count):
    """count real runs saved into db: 4k random reads of a file beside it, libaio at QD8 with
    O_DIRECT for 2 s each, so each keeps a disk's latency buckets (about 500 rows) and samples."""
    target = db.parent / "seed.dat"
    try:
        for i in range(count):
            Proc([IOPLAN, "--name=seed", "--ioengine=libaio", "--direct=1", "--rw=randread", "--bs=4k",
                  "--iodepth=8", "--size=64m", "--runtime=2", "--time_based", f"--filename={target}",
                  "--output-format=json", f"--save=seed{i % 3}", f"--results-db={db}"], cwd=ROOT)
    finally:
        target.unlink(missing_ok=True)


def sql_store(path, runs, seeds):
    """A store of `runs` runs: `seeds` real runs saved by ioplan, then their rows copied in SQL
    (buckets, samples and warnings too) with fresh uuids and each figure's rates and p99 scaled
    by a random factor k (0.5-1.5), so groups spread; its runtime is divided by the same k, so
    its rates stay its counts over its runtime.  The copies are then imported by ioplan into the
    store measured, which gives each run the checksums a save keeps (summary checks every run's),
    as 100 000 real saves would."""
    if path.exists():
        return
    tmp = path.with_suffix(".tmp")
    for p in (tmp, path, pathlib.Path(f"{path}.part")):
        for suffix in ("", "-wal", "-shm"):
            pathlib.Path(str(p) + suffix).unlink(missing_ok=True)
    seed_runs(tmp, seeds)
    con = sqlite3.connect(tmp)
    con.executescript(f"""
        CREATE TEMP TABLE n(i INTEGER PRIMARY KEY);
        WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < {runs - seeds})
          INSERT INTO n SELECT i FROM c;
        INSERT INTO runs(id, uuid, format, label, source, tool_version, saved_s, started_s, host, kernel,
                         plan_hash, job_text, environment)
          SELECT {seeds} + n.i, lower(hex(randomblob(16))), r.format, r.label, r.source, r.tool_version,
                 r.saved_s, r.started_s, 'host' || (n.i % 500), r.kernel, r.plan_hash, r.job_text, r.environment
          FROM n JOIN runs r ON r.id = 1 + n.i % {seeds};
        INSERT INTO facts(run_id, name, value)
          SELECT {seeds} + n.i, f.name, CASE f.name WHEN 'host' THEN 'host' || (n.i % 500) ELSE f.value END
          FROM n JOIN facts f ON f.run_id = 1 + n.i % {seeds};
        INSERT INTO warnings(run_id, seq, text)
          SELECT {seeds} + n.i, w.seq, w.text FROM n JOIN warnings w ON w.run_id = 1 + n.i % {seeds};
        CREATE TEMP TABLE scaled(nid INTEGER PRIMARY KEY, i, fid, k, kp);
        INSERT INTO scaled(nid, i, fid, k, kp)
          SELECT (SELECT max(id) FROM figures) + row_number() OVER (), n.i, f.id,
                 0.5 + (abs(random()) % 1000) / 1000.0, 0.5 + (abs(random()) % 1000) / 1000.0
          FROM n JOIN figures f ON f.run_id = 1 + n.i % {seeds};
        INSERT INTO figures(id, run_id, job_index, job, ddir, plan, io_bytes, ios, runtime_s, bw_bytes, iops,
                            lat_mean_ns, p50_ns, p99_ns, p999_ns, interval_s)
          SELECT s.nid, {seeds} + s.i, f.job_index, f.job, f.ddir, f.plan, f.io_bytes, f.ios, f.runtime_s / s.k,
                 f.bw_bytes * s.k, f.iops * s.k, f.lat_mean_ns, f.p50_ns, f.p99_ns * s.kp, f.p999_ns, f.interval_s
          FROM scaled s JOIN figures f ON f.id = s.fid;
        INSERT INTO buckets(figure_id, lat_ns, count)
          SELECT s.nid, b.lat_ns, b.count FROM scaled s JOIN buckets b ON b.figure_id = s.fid;
        INSERT INTO samples(figure_id, seq, iops, bw_bytes)
          SELECT s.nid, b.seq, b.iops, b.bw_bytes FROM scaled s JOIN samples b ON b.figure_id = s.fid;
        UPDATE runs SET checksum = '', summary_checksum = '';
    """)
    con.commit()
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    Proc([IOPLAN, "results", "import", str(tmp), f"--results-db={path}.part"], cwd=ROOT)
    for suffix in ("", "-wal", "-shm"):
        pathlib.Path(str(tmp) + suffix).unlink(missing_ok=True)
    pathlib.Path(f"{path}.part").rename(path)


def fio_results(d, count):
    """count fio 3.33 json+ result files: one real run of fio, its figures varied per file."""
    if (d / "done").exists():
        return
    d.mkdir(parents=True, exist_ok=True)
    p = Proc([FIO, "--name=imp", "--ioengine=null", "--rw=randrw", "--bs=4k", "--size=64m",
              "--output-format=json+"], cwd=ROOT)
    doc = p.json()
    rng = random.Random(1)
    base = {(j, ddir): job[ddir]["runtime"] for j, job in enumerate(doc["jobs"]) for ddir in ("read", "write")}
    for i in range(count):
        k = 0.5 + rng.random()
        doc["timestamp"] = 1700000000 + i
        for j, job in enumerate(doc["jobs"]):
            for ddir in ("read", "write"):
                # The rates as fio derives them from the counts over the (whole ms) runtime.
                dd = job[ddir]
                dd["runtime"] = rt = max(1, round(base[(j, ddir)] / k))
                dd["iops"] = 1000.0 * dd["total_ios"] / rt
                dd["bw_bytes"] = 1000 * dd["io_bytes"] // rt
                dd["bw"] = dd["bw_bytes"] // 1024
                dd["clat_ns"]["mean"] = dd["clat_ns"]["mean"] / k
        (d / f"fio-{i:05d}.json").write_text(json.dumps(doc))
    (d / "done").write_text(f"{count}\n")


def store_workloads(d, quick, only):
    """The results store's costs: what --save adds to a run (interleaved with the same run
    without it), `results summary` over 100 000 runs, `results import` of 10 000 fio files.
    The generated store and files are kept under build/bench-store, and made only when their
    row runs: on a fresh clone the store takes minutes on a loaded machine, which an --only
    run of another row (test_costs_bench's) must not wait for."""
    wanted = lambda name: not only or name in only  # noqa: E731
    runs, files = (10000, 1000) if quick else (100000, 10000)
    STORE_CACHE.mkdir(parents=True, exist_ok=True)
    run = [IOPLAN, "--name=save", "--ioengine=null", "--rw=randread", "--bs=4k", "--size=64m",
           "--output-format=json"]
    added = lambda f, scale: (lambda i, o: ((f(i) - f(o)) * scale, None))  # noqa: E731
    # Peak RSS as GNU time reads it: a child forked from this Python keeps Python's
    # larger high-water mark in its own rusage, which hid the save's megabyte.
    timed = [shutil.which("time") or "/usr/bin/time", "-f", "maxrss_kib=%M"]
    peak = lambda p: int(re.findall(r"maxrss_kib=(\d+)", p.stderr)[-1])  # noqa: E731
    save = Workload("store-save-cost", [*timed, *run], [*timed, *run, "--save", f"--results-db={d}/save.db"],
                    [("added wall ms", added(lambda p: p.wall, 1000), ("<=", 50)),
                     ("added peak RSS MiB", added(peak, 1 / 1024), ("<=", 5))])
    db = STORE_CACHE / f"runs-{runs}.db"
    if wanted(f"store-summary-{runs // 1000}k"):
        sql_store(db, runs, 6)
    true = [shutil.which("true") or "/bin/true"]
    seconds = lambda i, o: (i.wall, None)  # noqa: E731
    cpu = ("CPU seconds", lambda i, o: (cpu_s(i), None), None)  # what a loaded machine does not inflate
    summary = Workload(f"store-summary-{runs // 1000}k", true,
                       [IOPLAN, "results", "summary", "--by=host", f"--results-db={db}"],
                       [("seconds", seconds, ("<=", 1.0)), cpu])
    src = STORE_CACHE / f"fio-{files}"
    if wanted(f"store-import-{files // 1000}k-fio"):
        fio_results(src, files)
    into = f"{d}/import.db"
    imp = Workload(f"store-import-{files // 1000}k-fio", true,
                   [IOPLAN, "results", "import", f"--results-db={into}", *map(str, sorted(src.glob("fio-*.json")))],
                   [("seconds", seconds, ("<=", 30.0)), cpu], [into, into + "-wal", into + "-shm"],
                   rounds=1 if quick else 3)
    return [save, summary, imp]


# fio's t/io_uring, built from Debian's fio 3.33 source (make bench builds it): the
# device's limit as the kernel's own benchmark reaches it.
T_IO_URING = os.environ.get("T_IO_URING_BIN", str(ROOT / "build" / "fio-build" / "t" / "io_uring"))


def t_io_uring_ios(p):
    """(I/Os, seconds) of a t/io_uring run: its per-second "IOPS=" lines summed.  Above
    100 000 a second it prints them in thousands or millions, to two decimals ("IOPS=202.51K")."""
    scale = {"": 1, "K": 1000, "M": 1000000}
    rates = [round(float(v) * scale[unit]) for v, unit in re.findall(r"^IOPS=([0-9.]+)([KM]?),", p.stdout, re.M)]
    if not rates:
        raise ValueError(f"t/io_uring printed no IOPS line: {p.stdout[-300:]}")
    return sum(rates), len(rates)


def limit_workloads(d, quick):
    """ioplan's io_uring at depth 32, batches of 8, registered files and buffers, against
    t/io_uring with the same settings on the same file: IOPS and CPU per I/O."""
    if not os.access(T_IO_URING, os.X_OK):
        print(f"io_uring-limit: skipped: no t/io_uring at {T_IO_URING} (make bench builds it)")
        return []
    secs = 2 if quick else 4
    path = f"{d}/bench.limit"
    ioplan = [IOPLAN, "--name=limit", "--ioengine=io_uring", "--rw=randread", "--bs=4k", f"--size={'256m' if quick else '1g'}",
              "--direct=1", "--iodepth=32", "--iodepth_batch_submit=8", "--iodepth_batch_complete_min=8",
              "--fixedbufs=1", "--registerfiles=1", "--time_based=1", f"--runtime={secs}", f"--filename={path}",
              "--output-format=json"]
    tiou = [T_IO_URING, "-d32", "-s8", "-c8", "-p0", "-B1", "-F1", "-n1", "-O1", f"-r{secs}", path]

    def per_sec(p):
        r = fio_read(p.json())
        return r["total_ios"] / (r["runtime"] / 1000.0)

    def cpu_per_io(i, o):
        ios, _ = t_io_uring_ios(o)
        return (i.utime + i.stime) / fio_read(i.json())["total_ios"], (o.utime + o.stime) / ios

    return [Workload("io_uring-limit", tiou, ioplan,
                     [("IOPS vs t/io_uring", lambda i, o: (per_sec(i), div(*t_io_uring_ios(o))), (">=", 0.97)),
                      ("CPU/IO vs t/io_uring", cpu_per_io, ("<=", 1.1))], device=True)]


def build_workloads(d, mem, lay, quick, only):
    """Every workload in table order; (workloads, number of set-up errors)."""
    wls = workloads(d, mem, quick) + limit_workloads(d, quick) + layout_workloads(d, quick)
    errors = 0
    try:
        wls.append(parse_only_workload(d))
    except (OSError, RuntimeError) as e:
        print(f"parse-only-cdm: error: {e}")
        errors = 1
    return (wls + growth_workloads(d, lay, quick) + log_workloads(d, quick) + memory_workloads(quick) +
            checksum_workloads() + store_workloads(d, quick, only)), errors


def run_all(wls, args, only):
    """Runs and prints each selected workload; (rows, number of errors and misses)."""
    rows, missed = [], 0
    for wl in wls:
        if only and wl.name not in only:
            continue
        try:
            got = run_workload(wl, wl.rounds or min_rounds(wl, args))
        except (RuntimeError, KeyError, ValueError) as e:
            why = refusal(e)
            if why:
                print(f"{wl.name:<22} skipped: the kernel refused ({why}): {str(e)[:200]}", flush=True)
                continue
            print(f"{wl.name:<22} error: {e}", flush=True)
            missed += 1
            continue
        for row in got:
            prev = args.before.get(f"{row[0]}/{row[1]}")
            print_row(row, prev["figure"] if prev else None)
            missed += "MISSED" in verdict(row)
        rows += got
    return rows, missed


def stop(signum, _frame):
    """SIGTERM or SIGHUP (a CI timeout, a closed terminal) ends the run as an interrupt
    does: the running tool is killed and the scratch directories (gigabytes of test
    files) are removed on the way out."""
    raise SystemExit(128 + signum)


def main():
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, stop)
    become_subreaper()
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--device-rounds", type=int, default=None,
                    help="rounds of the device-bound workloads (default: 3 x --rounds)")
    ap.add_argument("--quick", action="store_true", help="short runs and small files")
    ap.add_argument("--only", default="", help="comma list of workload names")
    ap.add_argument("--dir", default=None, help="scratch directory (default: a temp dir in /tmp)")
    ap.add_argument("--save", default=str(ROOT / "build" / "bench-last.json"),
                    help="results file to compare with and update ('' for neither)")
    ap.add_argument("--budget", type=float, default=MIN_BUDGET,
                    help=f"seconds a workload may take at least before its rounds stop while a figure is "
                         f"still unsettled (default: {MIN_BUDGET:g})")
    args = ap.parse_args()
    if args.rounds < 1 or (args.device_rounds is not None and args.device_rounds < 1):
        ap.error("rounds must be at least 1")
    if not args.budget >= 0:
        ap.error("--budget must be 0 or more seconds")
    set_budget(args.budget)
    args.device_rounds = args.device_rounds or 3 * args.rounds
    mode = "quick" if args.quick else "full"
    args.before = load_saved(args.save, mode) if args.save else {}
    only = set(filter(None, args.only.split(",")))
    when = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
    shm = "/dev/shm" if os.path.isdir("/dev/shm") else None
    layouts = not only or any(re.fullmatch(r"layout(-w)?-\d+-files", n) for n in only)
    with tempfile.TemporaryDirectory(prefix="ioplan-bench-", dir=args.dir) as d, \
            tempfile.TemporaryDirectory(prefix="ioplan-bench-", dir=shm) as mem, \
            file_system_for_layouts(d, layouts) as lay:
        wls, missed = build_workloads(d, mem if shm else None, lay, args.quick, only)
        fio_version = subprocess.run([FIO, '--version'], capture_output=True, text=True).stdout.strip()
        print(f"ioplan vs fio ({fio_version}) on {machine()}, {when}")
        print(f"{'quick mode, ' if args.quick else ''}at least {args.rounds} rounds ({args.device_rounds} for "
              f"device-bound rows, {2 * args.rounds} pinned for the null rows), more until the 95% ci is within +-{SETTLE:.0%} or the time doubles;\n"
              "value: median of the per-round ratios, or * pooled; [min .. max] of the rounds")
        print(f"{'workload':<22} {'metric':<22} {'value':>9} {'95% ci':>8}  {'spread':<18} {'n':>3}  {'target':<15} "
              f"vs last")
        rows, bad = run_all(wls, args, only)
    if any(r.label.endswith("*") for r in rows):
        print(POOLED_NOTE)
    loose = [f"{r.name} {r.label}" for r in rows if not row_settled(r)]
    if loose:
        print(f"wider than +-{SETTLE:.0%} at 95% when the time ran out: {', '.join(loose)}")
    if args.save:
        report_repro(rows, args.before)
        save_rows(args.save, mode, rows, when)
    return 1 if missed + bad else 0


if __name__ == "__main__":
    sys.exit(main())
