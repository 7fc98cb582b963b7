#!/usr/bin/env python3
"""tests/e2e/run.py - runs the end-to-end test modules (tests/e2e/test_*.py) in parallel.

Each module is a unittest module that drives the built binary ($IOPLAN_BIN) on real
files in temporary directories.  Modules run as separate processes, -j at a time:
most of a module's time is spent waiting (on a timed run, a server, a device), not
on a CPU, so a 2-core machine runs four at once and the suite's wall time is about
a quarter of its sum.  A test that fails because other modules share the machine
is a wrong test (it measures the machine): make test-loaded runs the whole suite
with every core busy to find such tests.
Each module runs in its own scratch working directory: files a job writes to
its current directory (fio's verify state files, exec_prerun output) never
land in the source tree.  And in a session of its own: processes it leaves
running when it ends are killed, and the module fails for them; so are those
that left its session with setsid() (fio's job processes do), found by a mark
in the environment everything the module starts inherits.

--instrumented BIN runs the modules named by --instrumented-modules against BIN
(the engine built with ASan and UBSan) instead of $IOPLAN_BIN; --unit BIN adds a
doctest binary to the same pool, so the unit tests do not wait for the modules or
the other way round ("--unit 'BIN --source-file-exclude=...'": doctest's own
options after the binary choose its tests).  Modules start longest first, by
the times the last run recorded in --durations (build/e2e-durations.json; on a
fresh clone, the record committed as tests/e2e/durations.json), so no long
module starts last.
Exit code 0 only when every module and unit binary passed (skips are not failures).

  run.py [-j N] [-k SUBSTRING] [-v] [--unit BIN]... [--instrumented BIN
         --instrumented-modules a.py,b.py] [--durations FILE] [module...]
"""
import argparse
import concurrent.futures
import json
import os
import pathlib
import re
import shlex
import signal
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent


class Unit:
    """One entry of the pool: an e2e module (against one binary) or a doctest binary."""

    def __init__(self, name, cmd, env=None, tag="", cwd=None):
        self.name, self.cmd, self.env, self.tag, self.cwd = name, cmd, env or {}, tag, cwd

    def key(self):
        return f"{self.name}{self.tag}"


# Process groups of the modules running now, and their marks (marked), killed if
# the run is interrupted.
RUNNING = {}
MARK = "IOPLAN_E2E_UNIT"


def live_in_group(pgid: int) -> list:
    """The processes of group pgid still running (zombies do not count: where
    PID 1 does not reap orphans, as in this machine's VM, a headless chromium's
    exited helpers stay behind as zombies that nothing can kill)."""
    live = []
    for stat in pathlib.Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue  # gone meanwhile
        if int(fields[2]) == pgid and fields[0] != "Z":
            live.append(stat.parent.name)
    return live


def marked(token: str) -> list:
    """The live processes whose environment carries the module's mark: what it
    started, in its session or not (a zombie's environment reads empty)."""
    needle = f"\0{MARK}={token}\0".encode()
    found = []
    for env in pathlib.Path("/proc").glob("[0-9]*/environ"):
        try:
            if needle in b"\0" + env.read_bytes():
                found.append(int(env.parent.name))
        except (OSError, ValueError):
            continue  # gone meanwhile, or not ours to read
    return found


def wait_gone(still_there, deadline_s: float = 5.0) -> None:
    """Waits until still_there() finds nothing, up to deadline_s: a SIGKILL is sent when
    kill() returns, not done (on the loaded pool a killed sleep was still found at once)."""
    end = time.monotonic() + deadline_s
    while still_there() and time.monotonic() < end:
        time.sleep(0.01)


def reap_marked(token: str) -> bool:
    """Kills what is left running with the module's mark; True when something was."""
    left = marked(token)
    for pid in left:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    if left:
        wait_gone(lambda: marked(token))
    return bool(left)


def reap_group(pgid: int) -> bool:
    """Kills what is left running of a module's process group; True when something was."""
    if not live_in_group(pgid):
        return False
    try:
        os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:
        return False
    wait_gone(lambda: live_in_group(pgid))
    return True


def run_unit(unit: Unit):
    """Runs one module (or doctest binary) in a session of its own.

    A test that fails before its cleanup can leave a server it started running
    (a fio receiver waiting for a sender that never came).  Its session is
    killed when the module ends, so nothing outlives the module, holds its
    output open or uses the machine the next modules measure; the module is
    failed for it, since a test must stop what it starts.
    """
    t0 = time.monotonic()
    token = f"{os.getpid()}-{unit.key()}-{time.monotonic_ns()}"
    env = dict(os.environ, **unit.env, **{MARK: token})
    with tempfile.TemporaryDirectory(prefix="ioplan-e2e-cwd-") as scratch, \
            tempfile.TemporaryFile("w+") as out:
        proc = subprocess.Popen(unit.cmd, cwd=unit.cwd or scratch, env=env, stdout=out,
                                stderr=subprocess.STDOUT, text=True, start_new_session=True)
        RUNNING[proc.pid] = token
        # wait4, not wait: the module's CPU time (its own and that of every process it
        # waited for), which on a shared machine says what a module costs where its
        # wall time says how busy the machine was.
        _, status, usage = os.wait4(proc.pid, 0)
        rc = proc.returncode = os.waitstatus_to_exitcode(status)
        left = reap_group(proc.pid)
        left = reap_marked(token) or left
        RUNNING.pop(proc.pid, None)
        out.seek(0)
        text = out.read()
    if left:
        text += "\nrun.py: the module left processes running; they were killed\n"
        rc = rc or 1
    return unit, rc, text, time.monotonic() - t0, usage.ru_utime + usage.ru_stime


def tally(out: str, counts: dict) -> None:
    """Adds one unittest run's summary ("Ran 7 tests", "FAILED (failures=1,
    skipped=2)") to counts; a module that crashed before its summary counts as
    one failure, so it can never look like a pass."""
    ran = re.search(r"^Ran (\d+) tests? in", out, re.M)
    if not ran:
        counts["failed"] += 1
        return
    # The summary counts each failed subTest; a test is one failure however many of its
    # subtests fail ("FAIL: test_x (mod.Case.test_x) (extra=...)" names it each time).
    listed = {m.group(1) for m in re.finditer(r"^(?:FAIL|ERROR): (\S+ \(\S+\))", out, re.M)}
    summed = sum(int(n) for n in re.findall(r"(?:failures|errors)=(\d+)", out))
    bad = (len(listed) or min(summed, 1)) + sum(int(n) for n in re.findall(r"unexpected successes=(\d+)", out))
    skipped = sum(int(n) for n in re.findall(r"skipped=(\d+)", out))
    counts["failed"] += bad
    counts["skipped"] += skipped
    counts["passed"] += int(ran.group(1)) - bad - skipped


def tally_doctest(out: str, counts: dict) -> None:
    """The same for a doctest binary ("test cases: 335 | 335 passed | 0 failed | 0 skipped")."""
    m = re.search(r"test cases:\s*(\d+) \|\s*(\d+) passed \|\s*(\d+) failed \|\s*(\d+) skipped", out)
    if not m:
        counts["failed"] += 1
        return
    counts["passed"] += int(m.group(2))
    counts["failed"] += int(m.group(3))
    counts["skipped"] += int(m.group(4))


def last_line(out: str) -> str:
    lines = [l for l in out.strip().splitlines() if l.strip()]
    for l in reversed(lines):  # doctest ends with "[doctest] Status: SUCCESS!"
        if "test cases:" in l:
            return l.replace("[doctest] ", "").strip()
    return lines[-1] if lines else ""


def run_pool(units, width, verbose, counts, failed, durations):
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, width)) as pool:
        futs = [pool.submit(run_unit, u) for u in units]
        try:
            run_done(futs, verbose, counts, failed, durations)
        except KeyboardInterrupt:
            # The modules run in sessions of their own, out of the terminal's reach.
            for fut in futs:
                fut.cancel()
            for pgid, token in list(RUNNING.items()):
                reap_group(pgid)
                reap_marked(token)
            raise


def run_done(futs, verbose, counts, failed, durations):
    """Prints and tallies each unit as it ends."""
    for fut in concurrent.futures.as_completed(futs):
        unit, rc, out, secs, cpu = fut.result()
        durations[unit.key()] = round(secs, 1)
        print(f"{'ok  ' if rc == 0 else 'FAIL'} {unit.key():40s} {secs:6.1f}s cpu {cpu:6.1f}s  {last_line(out)}",
              flush=True)
        if rc != 0 or verbose:
            print(out)
        if rc != 0:
            failed.append(unit.key())
        is_doctest = unit.tag == " [unit]"
        (tally_doctest if is_doctest else tally)(out, counts["unit" if is_doctest else "e2e"])


def module_units(args):
    mods = sorted(HERE.glob("test_*.py"))
    if args.modules:
        mods = [m for m in mods if m.name in args.modules or m.stem in args.modules]
    instrumented = {m.strip() for m in (args.instrumented_modules or "").replace(",", " ").split()}
    pythonpath = os.pathsep.join(filter(None, [str(HERE), os.environ.get("PYTHONPATH")]))
    units = []
    for m in mods:
        env = {"PYTHONPATH": pythonpath}
        tag = ""
        if args.instrumented and m.name in instrumented:
            env.update(IOPLAN_BIN=str(pathlib.Path(args.instrumented).resolve()),
                       IOPLAN_VARIANT="engine-sanitized")
            tag = " [asan]"
        for name, target in split_tests(m, env) or [(m.name, m.stem)]:
            cmd = [sys.executable, "-m", "unittest"] + (["-v"] if args.v else []) + \
                  (["-k", args.keyword] if args.keyword else []) + [target]
            units.append(Unit(name, cmd, env, tag))
    return units


def split_tests(module: pathlib.Path, env: dict):
    """[(unit name, unittest target)] for each test of a module that says
    SPLIT_TESTS = True (a few long tests, each worth a process of its own so they
    run side by side); None for the others."""
    if not re.search(r"^SPLIT_TESTS = True\b", module.read_text(), re.M):
        return None
    lister = ("import sys, unittest\n"
              "def walk(s):\n"
              "    for t in s:\n"
              "        yield from (walk(t) if isinstance(t, unittest.TestSuite) else [t.id()])\n"
              "print('\\n'.join(walk(unittest.defaultTestLoader.loadTestsFromName(sys.argv[1]))))\n")
    p = subprocess.run([sys.executable, "-c", lister, module.stem], cwd=HERE, capture_output=True, text=True,
                       env=dict(os.environ, **env))
    ids = p.stdout.split()
    if p.returncode != 0 or not ids:
        return None  # the whole module then runs and reports why it cannot load
    return [(f"{module.name}:{i.rsplit('.', 1)[1]}", i) for i in ids]


def longest_first(units, durations):
    # Unknown units go first: a new module may be a long one.
    return sorted(units, key=lambda u: -durations.get(u.key(), 1e9))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("-j", type=int, default=4)
    ap.add_argument("-k", dest="keyword")
    ap.add_argument("-v", action="store_true")
    ap.add_argument("--unit", action="append", default=[],
                    help="a doctest binary to run in the pool, optionally followed by doctest options")
    ap.add_argument("--instrumented", help="binary for the --instrumented-modules")
    ap.add_argument("--instrumented-modules", help="modules (comma or space separated) run against --instrumented")
    ap.add_argument("--durations", help="JSON file of the last run's times per module, read and rewritten")
    ap.add_argument("modules", nargs="*", help="module file names to run (default: all)")
    args = ap.parse_args()
    # Started from a non-interactive shell's background job, this process (and
    # every ioplan the tests start) would inherit SIGINT and SIGQUIT ignored,
    # and the tests that interrupt ioplan would wait forever: give the modules
    # the default dispositions, as a terminal would.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGQUIT, signal.SIG_DFL)
    # A CI timeout's SIGTERM stops the modules too, as an interrupt does.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    if not os.environ.get("IOPLAN_BIN"):
        print("run.py: set IOPLAN_BIN to the ioplan binary under test", file=sys.stderr)
        return 2
    durations = {}
    # A fresh clone has no record of its own yet: the committed one orders its first run.
    record = args.durations if args.durations and os.path.exists(args.durations) else HERE / "durations.json"
    try:
        durations = json.loads(pathlib.Path(record).read_text())
    except (OSError, ValueError):
        durations = {}  # a damaged record only costs the ordering
    units = module_units(args)
    # The unit tests read their goldens relative to the repository's root.
    for binary, *options in map(shlex.split, args.unit):
        units.append(Unit(str(pathlib.Path(binary).parent.name),
                          [str(pathlib.Path(binary).resolve()), "--no-intro=true", *options],
                          tag=" [unit]", cwd=HERE.parent.parent))
    failed = []
    counts = {"unit": {"passed": 0, "failed": 0, "skipped": 0}, "e2e": {"passed": 0, "failed": 0, "skipped": 0}}
    run_pool(longest_first(units, durations), args.j, args.v, counts, failed, durations)
    if args.durations:
        pathlib.Path(args.durations).parent.mkdir(parents=True, exist_ok=True)
        pathlib.Path(args.durations).write_text(json.dumps(durations, indent=0, sort_keys=True) + "\n")
    # The closing lines CI reads: tests, not modules.
    if args.unit:
        c = counts["unit"]
        print(f"unit: {c['passed']} passed, {c['failed']} failed, {c['skipped']} skipped")
    c = counts["e2e"]
    print(f"e2e: {c['passed']} passed, {c['failed']} failed, {c['skipped']} skipped")
    if failed:
        print(f"e2e: {len(failed)} module(s) failed: {' '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
