#!/usr/bin/env python3
"""bench/bench.py - ioplan against fio 3.33, side by side, in one invocation.

The machines are shared and noisy, so nothing here is an absolute time: each
workload runs ioplan and fio alternately for several rounds and prints, per
metric, the median of the per-round ratios and their spread (min..max).  A
round's ratio compares two runs made seconds apart on the same machine, which
cancels most of the noise a neighbour makes.

Each process's CPU and peak RSS come from its own rusage (wait4), not from what
the tool says about itself.

Usage: bench.py [--rounds N] [--quick] [--only NAME[,NAME]] [--dir DIR]
Environment: IOPLAN_BIN (default ./ioplan), FIO_BIN (default fio).
"""
import argparse
import json
import os
import pathlib
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
IOPLAN = os.environ.get("IOPLAN_BIN", str(ROOT / "ioplan"))
FIO = os.environ.get("FIO_BIN", shutil.which("fio") or "fio")

# Options only ioplan knows; fio is given the same job file without them.
IOPLAN_ONLY = ("repeat", "repeat_discard", "repeat_aggregate", "repeat_pause", "group_pause",
               "interlocked", "sequential_stride", "cooldown", "io_trace", "stall_timeout",
               "allow_device_write", "allow_existing_file_write", "output_format")


class Proc:
    """One finished child: stdout, exit status, wall seconds and its own rusage."""

    def __init__(self, argv, cwd):
        t0 = time.monotonic()
        out = tempfile.TemporaryFile()
        err = tempfile.TemporaryFile()
        child = subprocess.Popen(argv, cwd=cwd, stdout=out, stderr=err)
        _, status, ru = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
        self.wall = time.monotonic() - t0
        self.rc = child.returncode
        self.utime, self.stime, self.maxrss_kib = ru.ru_utime, ru.ru_stime, ru.ru_maxrss
        out.seek(0)
        err.seek(0)
        self.stdout = out.read().decode(errors="replace")
        self.stderr = err.read().decode(errors="replace")
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


def clat_pct(p, pct):
    return fio_read(p.json())["clat_ns"]["percentile"][f"{pct:.6f}"]


def user_cpu_per_io(p):
    ios = fio_read(p.json())["total_ios"]
    return p.utime / ios if ios else float("inf")


def job_args(name, quick, **opts):
    """A one-job command line both tools accept."""
    args = [f"--name={name}"]
    args += [f"--{k}={v}" for k, v in opts.items()]
    return args + ["--output-format=json"]


def workloads(d, quick):
    """(name, fio argv, ioplan argv, metrics); metrics: (label, fn(ioplan, fio) -> (a, b), target)."""
    secs = 1 if quick else 3
    big = "256m" if quick else "1g"
    null = dict(ioengine="null", rw="randread", bs="4k", size="100g", time_based=1,
                runtime=secs)
    wl = []

    def both(name, opts, metrics, extra_fio=(), extra_ioplan=()):
        a = job_args(name, quick, **opts)
        wl.append((name, [FIO, *a, *extra_fio], [IOPLAN, *a, *extra_ioplan], metrics))

    ratio = lambda f: (lambda i, o: (f(i), f(o)))  # noqa: E731
    both("null-qd1", dict(null, iodepth=1),
         [("IOPS ratio", ratio(iops), (">=", 4.0))])
    both("null-qd32", dict(null, iodepth=32),
         [("IOPS ratio", ratio(iops), (">=", 6.0))])
    for eng in ("io_uring", "libaio"):
        both(f"{eng}-qd32", dict(ioengine=eng, rw="randread", bs="4k", size=big, direct=1,
                                 iodepth=32, time_based=1, runtime=secs,
                                 filename=f"{d}/bench.{eng}"),
             [("IOPS ratio", ratio(iops), (">=", 1.0)),
              ("user CPU/IO ratio", ratio(user_cpu_per_io), ("<=", 0.3))])
    both("psync-qd1-lat", dict(ioengine="psync", rw="randread", bs="4k", size=big, direct=1,
                               time_based=1, runtime=secs, filename=f"{d}/bench.psync"),
         [("p50 latency ratio", ratio(lambda p: clat_pct(p, 50)), ("<=", 1.0)),
          ("p99 latency ratio", ratio(lambda p: clat_pct(p, 99)), ("<=", 1.0))])
    rate_secs = 2 if quick else 5
    rate_err = lambda p: abs(iops(p) - 3200) / 3200 * 100  # noqa: E731
    both("rate-3200", dict(ioengine="null", rw="randread", bs="4k", size="100g",
                           time_based=1, runtime=rate_secs, rate_iops=3200),
         [("ioplan rate error %", lambda i, o: (rate_err(i), None), ("<=", 0.5)),
          ("fio rate error %", lambda i, o: (rate_err(o), None), None)])
    return wl


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
        out.append((name, dd, ioplan, [(label, lambda i, o: (i.wall, o.wall), ("<=", 1.1))],
                    [f"{d}/layout.ioplan", f"{d}/layout.dd"]))
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
    lines = [ln for ln in src.read_text().splitlines()
             if ln.split("=", 1)[0].strip() not in IOPLAN_ONLY]
    plain.write_text("\n".join(lines) + "\n")
    dropped = fio_accepts(plain)
    if dropped:
        print(f"parse-only-cdm: fio is given the file without {', '.join(dropped)}")
    return ("parse-only-cdm", [FIO, "--parse-only", str(plain)],
            [IOPLAN, "--parse-only", str(src)],
            [("process time ratio", lambda i, o: (i.wall, o.wall), ("<=", 1.0))])


def memory_workloads(quick):
    """Peak RSS at 64 threads, and growth of ioplan's peak RSS from a short to a long run."""
    opts = dict(ioengine="null", rw="randread", bs="4k", size="1g", time_based=1,
                numjobs=64, thread=1, group_reporting=1)
    short, long_ = (1, 3) if quick else (5, 30)
    a = job_args("mem64", quick, **opts, runtime=short)
    b = job_args("mem64", quick, **opts, runtime=long_)
    return [("rss-64-threads", [FIO, *a], [IOPLAN, *a],
             [("peak RSS ratio", lambda i, o: (i.maxrss_kib, o.maxrss_kib), None)]),
            (f"rss-growth-{short}s-{long_}s", [IOPLAN, *a], [IOPLAN, *b],
             [("ioplan RSS long/short", lambda i, o: (i.maxrss_kib, o.maxrss_kib), ("<=", 1.02))])]


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


def check(value, target):
    if target is None:
        return ""
    op, bound = target
    ok = value >= bound if op == ">=" else value <= bound
    return f"{op} {bound:<5} {'ok' if ok else 'MISSED'}"


def run_workload(wl, rounds, cleanup=()):
    name, other_argv, ioplan_argv, metrics = wl[:4]
    per_metric = {label: [] for label, _, _ in metrics}
    for r in range(rounds):
        # Alternate who goes first so a warming cache or a neighbour favours neither.
        order = [("ioplan", ioplan_argv), ("other", other_argv)]
        if r % 2:
            order.reverse()
        done = {}
        for who, argv in order:
            for path in cleanup:
                pathlib.Path(path).unlink(missing_ok=True)
            done[who] = Proc(argv, cwd=ROOT)
        for label, fn, _ in metrics:
            a, b = fn(done["ioplan"], done["other"])
            per_metric[label].append(a if b is None else a / b if b else float("inf"))
    return [(name, label, per_metric[label], target) for label, _, target in metrics]


def print_row(name, label, values, target):
    med = statistics.median(values)
    print(f"{name:<22} {label:<22} {med:>9.3f}  [{min(values):.3f} .. {max(values):.3f}]  "
          f"{check(med, target)}", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="short runs and small files")
    ap.add_argument("--only", default="", help="comma list of workload names")
    ap.add_argument("--dir", default=None, help="scratch directory (default: a temp dir in /tmp)")
    args = ap.parse_args()
    only = set(filter(None, args.only.split(",")))
    with tempfile.TemporaryDirectory(prefix="ioplan-bench-", dir=args.dir) as d:
        wls = workloads(d, args.quick)
        wls += layout_workloads(d, args.quick)
        try:
            wls.append(parse_only_workload(d))
        except (OSError, RuntimeError) as e:
            print(f"parse-only-cdm: error: {e}")
            missed_setup = 1
        else:
            missed_setup = 0
        wls += memory_workloads(args.quick)
        fio_version = subprocess.run([FIO, '--version'], capture_output=True, text=True).stdout.strip()
        print(f"ioplan vs fio ({fio_version}) on {machine()}")
        print(f"{'quick mode, ' if args.quick else ''}{args.rounds} rounds, median ratio [min .. max]")
        print(f"{'workload':<22} {'metric':<22} {'median':>9}  spread")
        missed = missed_setup
        for wl in wls:
            if only and wl[0] not in only:
                continue
            try:
                rows = run_workload(wl, args.rounds, wl[4] if len(wl) > 4 else ())
            except (RuntimeError, KeyError, ValueError) as e:
                why = refusal(e)
                if why:
                    print(f"{wl[0]:<22} skipped: the kernel refused ({why}): {str(e)[:200]}",
                          flush=True)
                    continue
                print(f"{wl[0]:<22} error: {e}", flush=True)
                missed += 1
                continue
            for row in rows:
                print_row(*row)
                missed += "MISSED" in check(statistics.median(row[2]), row[3])
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
