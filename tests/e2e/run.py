#!/usr/bin/env python3
"""tests/e2e/run.py - runs the end-to-end test modules (tests/e2e/test_*.py) in parallel.

Each module is a unittest module that drives the built binary ($IOPLAN_BIN) on real
files in temporary directories.  Modules run as separate processes, -j at a time,
so a slow module (rate accuracy, fio differential runs) does not serialise the rest;
modules marked RUN_ALONE = True (measurements) run last, one at a time.
Each module runs in its own scratch working directory: files a job writes to
its current directory (fio's verify state files, exec_prerun output) never
land in the source tree.
Exit code 0 only when every module passed (skips are not failures).

  run.py [-j N] [-k SUBSTRING] [-v]
"""
import argparse
import concurrent.futures
import os
import pathlib
import re
import signal
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent


def run_module(path: pathlib.Path, keyword: str | None, verbose: bool):
    cmd = [sys.executable, "-m", "unittest"]
    if verbose:
        cmd.append("-v")
    if keyword:
        cmd += ["-k", keyword]
    cmd.append(path.stem)
    t0 = time.monotonic()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(HERE), os.environ.get("PYTHONPATH")])))
    with tempfile.TemporaryDirectory(prefix="ioplan-e2e-cwd-") as cwd:
        proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    return path.name, proc.returncode, proc.stdout + proc.stderr, time.monotonic() - t0


def tally(out: str, counts: dict) -> None:
    """Adds one unittest run's summary ("Ran 7 tests", "FAILED (failures=1,
    skipped=2)") to counts; a module that crashed before its summary counts as
    one failure, so it can never look like a pass."""
    ran = re.search(r"^Ran (\d+) tests? in", out, re.M)
    if not ran:
        counts["failed"] += 1
        return
    bad = sum(int(n) for n in re.findall(r"(?:failures|errors|unexpected successes)=(\d+)", out))
    skipped = sum(int(n) for n in re.findall(r"skipped=(\d+)", out))
    counts["failed"] += bad
    counts["skipped"] += skipped
    counts["passed"] += int(ran.group(1)) - bad - skipped


def run_batch(mods, width, args, counts, failed):
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, width)) as pool:
        futs = [pool.submit(run_module, m, args.keyword, args.v) for m in mods]
        for fut in concurrent.futures.as_completed(futs):
            name, rc, out, secs = fut.result()
            tail = out.strip().splitlines()[-1] if out.strip() else ""
            print(f"{'ok  ' if rc == 0 else 'FAIL'} {name:40s} {secs:6.1f}s  {tail}", flush=True)
            if rc != 0 or args.v:
                print(out)
            if rc != 0:
                failed.append(name)
            tally(out, counts)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("-j", type=int, default=2)
    ap.add_argument("-k", dest="keyword")
    ap.add_argument("-v", action="store_true")
    ap.add_argument("modules", nargs="*", help="module file names to run (default: all)")
    args = ap.parse_args()
    # Started from a non-interactive shell's background job, this process (and
    # every ioplan the tests start) would inherit SIGINT and SIGQUIT ignored,
    # and the tests that interrupt ioplan would wait forever: give the modules
    # the default dispositions, as a terminal would.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGQUIT, signal.SIG_DFL)
    if not os.environ.get("IOPLAN_BIN"):
        print("run.py: set IOPLAN_BIN to the ioplan binary under test", file=sys.stderr)
        return 2
    mods = sorted(HERE.glob("test_*.py"))
    if args.modules:
        mods = [m for m in mods if m.name in args.modules or m.stem in args.modules]
    failed = []
    counts = {"passed": 0, "failed": 0, "skipped": 0}
    # A module that measures the machine (queue depth by Little's law, IOPS
    # against fio's) says RUN_ALONE = True: it runs after the rest, by itself,
    # so another module's spinning clones are not part of what it measures.
    alone = [m for m in mods if re.search(r"^RUN_ALONE = True\b", m.read_text(), re.M)]
    for batch, width in (([m for m in mods if m not in alone], args.j), (alone, 1)):
        run_batch(batch, width, args, counts, failed)
    # The closing line CI reads: tests, not modules.
    print(f"e2e: {counts['passed']} passed, {counts['failed']} failed, {counts['skipped']} skipped")
    if failed:
        print(f"e2e: {len(failed)} module(s) failed: {' '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
