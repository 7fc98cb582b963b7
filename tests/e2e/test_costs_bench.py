"""tests/e2e/test_costs_bench.py - the make bench harness (bench/bench.py) itself.

The harness decides what the Performance table says, so its arithmetic is
tested like the tool's: the pooled percentile and per-I/O figures on known
samples, the reproducibility verdict against a saved earlier run, and short
real runs of ioplan against fio (quick mode, one round) that must produce the
rows, the pooled json+ latency rows included, and keep other saved rows.
"""
import importlib.util
import json
import math
import os
import pathlib
import shutil
import signal
import statistics
import subprocess
import sys
import unittest

from common import BIN, FIO, ROOT, VARIANT, TmpDirCase, pending_signals, wait_until

SCRIPT = ROOT / "bench" / "bench.py"
spec = importlib.util.spec_from_file_location("bench", SCRIPT)
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)


class Arithmetic(unittest.TestCase):
    def test_pooled_percentile_merges_histograms_before_ranking(self):
        fast = {100: 99, 10_000: 1}       # one run: p99 = 100 ns
        slow = {100: 90, 5_000: 10}       # another: p99 = 5000 ns
        self.assertEqual(bench.pool_pct(99)([fast]), 100)
        self.assertEqual(bench.pool_pct(99)([slow]), 5000)
        # 200 samples: rank 198 falls among slow's ten 5000 ns ones, not on a mean of p99s.
        self.assertEqual(bench.pool_pct(99)([fast, slow]), 5000)
        self.assertEqual(bench.pool_pct(50)([fast, slow]), 100)
        self.assertEqual(bench.pool_pct(99.9)([fast, slow]), 10_000)

    def test_t_io_urings_rates_in_thousands_and_millions_are_read_as_ios(self):
        # fio 3.33's t/io_uring prints a second's IOPS plain up to 100 000, above it
        # as "202.51K" or "1.23M": the limit row read none of those lines and failed.
        class Out:
            stdout = ("polled=0, fixedbufs=1/0, register_files=1, buffered=0, QD=32\n"
                      "Engine=io_uring, sq_ring=32, cq_ring=32\n"
                      "IOPS=202.51K, BW=791MiB/s, IOS/call=8/7\n"
                      "IOPS=1.23M, BW=4804MiB/s, IOS/call=8/8\n"
                      "IOPS=99870, BW=390MiB/s, IOS/call=8/8\n"
                      "Exiting on timeout\nMaximum IOPS=1.23M\n")
        self.assertEqual(bench.t_io_uring_ios(Out()), (202_510 + 1_230_000 + 99_870, 3))

    def test_pooled_per_io_is_a_ratio_of_sums(self):
        # 1 s over 1000 I/Os and 3 s over 1000: 2 ms per I/O, not the mean of ratios.
        self.assertAlmostEqual(bench.pool_per_io([(1.0, 1000), (3.0, 1000)]), 0.002)
        self.assertAlmostEqual(bench.pool_per_io([(1.0, 100), (3.0, 900)]), 0.004)

    def test_null_rows_compare_each_tools_best_round_not_a_mix_of_host_modes(self):
        # Rounds seen on this host: each tool met a fast or a slowed CPU on its own.
        # The median of per-round ratios follows that draw; the best rounds do not.
        m = bench.Metric("IOPS ratio", lambda i, o: (i, o), (">=", 8.0), max)
        rounds = [(29.0, 2.4), (19.0, 4.6), (29.2, 2.5), (28.9, 4.65), (19.1, 2.4)]
        s = bench.Series(m)
        for ioplan, fio in rounds:
            s.add(ioplan, fio)
        self.assertEqual(s.values, [i / f for i, f in rounds])      # the spread: per-round ratios
        self.assertGreater(statistics.median(s.values), 7.9)        # what the median said
        self.assertAlmostEqual(s.figure(), 29.2 / 4.65)             # what the CPU to itself gives
        self.assertEqual(s.row("null-qd32-1g").label, "IOPS ratio*")
        self.assertIn("MISSED", bench.verdict(s.row("null-qd32-1g")))

    def test_a_pinned_rows_tools_share_one_cpu_a_round_and_go_round_the_cpus(self):
        show = [sys.executable, "-c", "import os; print(sorted(os.sched_getaffinity(0)))"]
        cpus = sorted(os.sched_getaffinity(0))
        wl = bench.Workload("affinity", show, show, [], pin=True)
        for r in range(2 * len(cpus) + 1):
            done = bench.run_round(wl, r)
            want = [cpus[(r // 2) % len(cpus)]]
            self.assertEqual([json.loads(done[w].stdout) for w in ("ioplan", "other")], [want, want], r)
        done = bench.run_round(wl._replace(pin=False), 0)
        self.assertEqual(json.loads(done["ioplan"].stdout), cpus)

    def test_a_device_rows_miss_within_its_interval_is_not_a_miss(self):
        # A device-bound row past its parity target but whose 95% interval reaches it
        # says so ("within ci") and does not fail the run; the whole interval past it does.
        row = bench.Row("qd1", "p50 latency ratio*", [1.0], ("<=", 1.0), 1.02, 0.03, True)
        self.assertIn("within ci", bench.verdict(row))
        self.assertIn("MISSED", bench.verdict(row._replace(ci=0.01)))
        self.assertIn("ok", bench.verdict(row._replace(figure=0.99)))
        iops = bench.Row("qd32", "IOPS ratio", [1.0], (">=", 1.0), 0.98, 0.03, True)
        self.assertIn("within ci", bench.verdict(iops))
        # A row the tool alone decides stays strict, whatever its interval.
        self.assertIn("MISSED", bench.verdict(row._replace(device=False)))
        self.assertIn("MISSED", bench.verdict(iops._replace(device=False, figure=7.8, ci=0.8, target=(">=", 8.0))))

    def test_change_is_relative_for_ratios_and_in_points_for_percentages(self):
        self.assertEqual(bench.change("IOPS ratio", 1.09, 1.0), ("+9.0%", True))
        self.assertEqual(bench.change("IOPS ratio", 0.88, 1.0), ("-12.0%", False))
        self.assertEqual(bench.change("ioplan rate error %", 0.15, 0.02), ("+0.130 pt", False))
        self.assertEqual(bench.change("ioplan rate error %", 0.05, 0.02), ("+0.030 pt", True))

    def test_rounds_go_on_only_while_a_figure_is_unsettled(self):
        import itertools
        saved = bench.MIN_BUDGET
        bench.MIN_BUDGET = 1.0
        self.addCleanup(setattr, bench, "MIN_BUDGET", saved)
        steady = bench.Workload("steady", ["true"], ["true"], [("ratio", lambda i, o: (2.0, 1.0), None)])
        rows = bench.run_workload(steady, 3)
        self.assertEqual((len(rows[0].values), rows[0].figure, rows[0].ci), (3, 2.0, 0.0))
        swing = itertools.cycle((1.0, 3.0))
        noisy = bench.Workload("noisy", ["true"], ["true"],
                               [("ratio", lambda i, o: (next(swing), 1.0), None)])
        row = bench.run_workload(noisy, 3)[0]
        self.assertGreater(len(row.values), 3)          # went on past the minimum...
        self.assertGreater(row.ci, bench.SETTLE * row.figure)  # ...until the time ran out

    def test_few_rounds_settle_only_when_they_agree(self):
        # Two rounds 5% apart bootstrap to a narrow interval that two rounds cannot back.
        self.assertFalse(bench.settled("IOPS ratio", 1.0, 0.01, [0.98, 1.03]))
        self.assertTrue(bench.settled("IOPS ratio", 1.0, 0.0, [1.0, 1.0]))
        self.assertTrue(bench.settled("IOPS ratio", 1.0, 0.04, [0.98, 1.03, 1.0, 0.99, 1.01]))
        self.assertFalse(bench.settled("IOPS ratio", 1.0, 0.06, [0.9, 1.1, 1.0, 0.95, 1.05]))
        self.assertTrue(bench.settled("fio rate error %", 0.02, 0.04, [0.0, 0.1, 0.0, 0.02, 0.02]))


@unittest.skipUnless(shutil.which("valgrind"), "valgrind is not installed")
@unittest.skipIf(VARIANT != "release", "valgrind cannot run a sanitizer build")
class InstructionsPerIO(unittest.TestCase):
    """bench/instr_per_io.py, the figure the disk rows judge a tool's own work by."""

    REPORT = ("--leave-out", "report::write(*")

    def count(self, small, big, *argv, leave_out=REPORT):
        p = subprocess.run([sys.executable, str(ROOT / "bench" / "instr_per_io.py"), *leave_out, small, big,
                            "--", *argv], capture_output=True, text=True, timeout=600)
        self.assertEqual(p.returncode, 0, p.stderr[-2000:])
        return json.loads(p.stdout)

    @staticmethod
    def machine_state():
        """What ioplan's start-up reads and other tests change while it is counted: each
        bound loop device costs its safety checks about 27 000 instructions, a mount
        about 10 000 (measured with 20 of each; 1.5 million and 190 000 when each check
        read them all again), so a pair of runs on either side of such a change differs
        by more than the I/Os it counts."""
        loops = sorted(p.name for p in pathlib.Path("/sys/block").glob("loop*")
                       if (p / "loop" / "backing_file").exists())
        return loops, pathlib.Path("/proc/self/mountinfo").read_text()

    NULL = [BIN, "--name=n", "--ioengine=null", "--rw=randread", "--bs=4k", "--size=1g",
            "--io_size={io_size}", "--output-format=json"]

    def test_start_up_is_taken_out_of_the_figure(self):
        for _ in range(3):  # counted again when another test attached a loop device or mounted
            # Looked at between the pairs too: in one make test both 64m runs (a.big and
            # b.small) counted 180 000 instructions more than the 32m and 128m runs around
            # them allow (320 and 288 an I/O, not 299), the mark of a neighbour's loop
            # devices or mounts that came and went while the state was not looked at.
            before = self.machine_state()
            a = self.count("32m", "64m", *self.NULL)
            between = self.machine_state()
            b = self.count("64m", "128m", *self.NULL)
            if before == between == self.machine_state():
                break
        self.assertEqual((a["ios"], b["ios"]), ([8192, 16384], [16384, 32768]))
        # Per I/O about the same from either pair of sizes: start-up is taken out (without
        # that they differ by half).  Nothing counted grows with the time a run takes: when
        # the main thread woke every 10 ms, a loaded make test read 266 and 349 here, and
        # with the report counted (its time series has a bin per interval) 326 and 294.
        self.assertLess(abs(a["per_io"] - b["per_io"]) / b["per_io"], 0.1, (a, b))
        # The smaller run's start-up alone counts more than all its I/Os: left in, it would
        # more than double the figure (about 4.6 times it since start-up was cut by half).
        self.assertGreater(a["instr"][0] / a["ios"][0], 2 * a["per_io"], a)

    def test_a_left_out_function_is_not_counted(self):
        left, whole = self.count("8m", "16m", *self.NULL), self.count("8m", "16m", *self.NULL, leave_out=())
        # The JSON report costs millions of instructions; left out, both runs count less
        # by that (callgrind drops --collect-atstart when a --toggle-collect follows it).
        for i in (0, 1):
            self.assertGreater(whole["instr"][i] - left["instr"][i], 1_000_000, (left, whole))

    def test_a_command_line_without_the_amount_is_refused(self):
        p = subprocess.run([sys.executable, str(ROOT / "bench" / "instr_per_io.py"), "8m", "16m", "--", BIN,
                            "--name=n", "--ioengine=null", "--size=8m"], capture_output=True, text=True, timeout=60)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("{io_size}", p.stderr)


@unittest.skipUnless(FIO, "fio is not installed")
class Runs(TmpDirCase):
    def bench(self, *args):
        env = dict(os.environ, IOPLAN_BIN=BIN)
        return subprocess.run([sys.executable, str(SCRIPT), "--quick", "--rounds", "1",
                               "--device-rounds", "1", "--dir", str(self.tmp),
                               "--save", str(self.tmp / "last.json"), *args],
                              capture_output=True, text=True, env=env, timeout=300)

    def test_a_run_is_compared_with_the_saved_one_and_merged_into_it(self):
        saved = self.tmp / "last.json"
        # An earlier run that a real null-engine ratio cannot be within 10% of,
        # and a row of a workload this run leaves alone.
        saved.write_text(json.dumps({"quick": {"rows": {
            "null-qd1/IOPS ratio*": {"figure": 1000.0, "min": 1000.0, "max": 1000.0, "n": 1,
                                    "when": "2026-01-01 00:00"},
            "layout/time ratio vs dd": {"figure": 0.9, "min": 0.9, "max": 0.9, "n": 1,
                                        "when": "2026-01-01 00:00"}}}}))
        # --budget 1: the rounds stop soon after the minimum, settled or not (the default
        # 20 s of a null row unsettled on a busy machine were 22 s of this module's CPU).
        p = self.bench("--only", "null-qd1", "--budget", "1")
        self.assertIn(p.returncode, (0, 1), p.stdout + p.stderr)  # 1 only if a target was missed
        row = next(ln for ln in p.stdout.splitlines() if ln.startswith("null-qd1 "))
        # A pinned row runs at least twice the minimum (more while its figure is unsettled).
        self.assertRegex(row, r"IOPS ratio\*\s+\d+\.\d{3}\s+\+-\d+\.\d%\s+\[[\d.]+ \.\. [\d.]+\]\s+([2-9]|\d\d)\s+"
                              r">= 6\.0\s+"
                              r"(ok|MISSED)\s+-\d\d\.\d%")
        self.assertIn("vs last run (2026-01-01 00:00): 0 of 1 rows within 10%", p.stdout)
        self.assertRegex(p.stdout, r"moved: null-qd1 IOPS ratio\* -\d\d\.\d%")
        rows = json.loads(saved.read_text())["quick"]["rows"]
        self.assertGreater(rows["null-qd1/IOPS ratio*"]["figure"], 0.0)   # this run's, measured
        self.assertLess(rows["null-qd1/IOPS ratio*"]["figure"], 1000.0)
        self.assertEqual(rows["layout/time ratio vs dd"]["figure"], 0.9)

    def test_latency_rows_pool_both_tools_json_plus_histograms(self):
        p = self.bench("--only", "psync-qd1-lat")
        self.assertIn(p.returncode, (0, 1), p.stdout + p.stderr)
        if "skipped: the kernel refused" in p.stdout:
            self.skipTest(p.stdout.strip().splitlines()[-1])
        for pct in ("p50", "p99"):
            m = next(ln for ln in p.stdout.splitlines() if f"{pct} latency ratio*" in ln)
            value = float(m.split("*")[1].split()[0])
            # Both tools' histograms were read (a missing one makes 0 or no finite
            # ratio); its size is the machine's, one round on a loaded one saw 35.
            self.assertTrue(0 < value and math.isfinite(value), m)
        self.assertIn("* pooled", p.stdout)
        self.assertIn("vs last run: no earlier run of this mode", p.stdout)
        rows = json.loads((self.tmp / "last.json").read_text())["quick"]["rows"]
        self.assertEqual(set(rows), {"psync-qd1-lat/p50 latency ratio*", "psync-qd1-lat/p99 latency ratio*"})

    @unittest.skipUnless(shutil.which("valgrind"), "valgrind is not installed")
    @unittest.skipIf(VARIANT != "release", "valgrind cannot run a sanitizer build")
    def test_the_instruction_row_counts_both_tools_on_the_disk(self):
        p = self.bench("--only", "io_uring-qd32-instr")
        self.assertIn(p.returncode, (0, 1), p.stdout + p.stderr)
        if "skipped: the kernel refused" in p.stdout:
            self.skipTest(p.stdout.strip().splitlines()[-1])
        m = next(ln for ln in p.stdout.splitlines() if ln.startswith("io_uring-qd32-instr "))
        value = float(m.split("ratio")[1].split()[0])
        # ioplan's own work per I/O is a fraction of fio's: about a quarter here
        # (676 against 2733 instructions), the whole start-up of either would be more.
        self.assertTrue(0.05 < value < 0.6, m)

    def bench_stopped(self, only, ready, what):
        """Runs one round of the row `only` until ready(its process) is true, then sends
        it SIGTERM, which must end it as an interrupt does; ready()'s last value."""
        env = dict(os.environ, IOPLAN_BIN=BIN)
        p = subprocess.Popen([sys.executable, str(SCRIPT), "--rounds", "1", "--device-rounds", "1",
                              "--dir", str(self.tmp), "--save", "", "--only", only],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        out = ("", "")
        try:
            got = wait_until(lambda: ready(p), timeout=120, what=what)
            p.send_signal(signal.SIGTERM)
            out = p.communicate(timeout=60)
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
        self.assertEqual(p.returncode, 128 + signal.SIGTERM, out)
        return got

    def test_sigterm_leaves_no_tool_running_and_no_scratch_files(self):
        # A CI timeout's SIGTERM in the middle of a disk row: every tool process is killed
        # and the scratch directories (the disk rows' 1 GiB files) are removed.  Stopped
        # while fio's job runs: it calls setsid(), so killing fio's process group left it
        # running (its 3 s) on a file whose directory the harness was removing.
        shm_before = set(pathlib.Path("/dev/shm").glob("ioplan-bench-*"))
        pids = []

        def running(p):
            """Every process below the harness, once fio's job (a session of its own) runs on the file."""
            pids[:] = bench.descendants(p.pid)
            own_session = [k for k in pids if self.session(k) not in (None, self.session(p.pid))]
            return own_session and list(self.tmp.glob("ioplan-bench-*/bench.psync"))

        self.bench_stopped("psync-qd1-lat", running, "fio's job on the psync row's file")
        self.assertEqual(list(self.tmp.glob("ioplan-bench-*")), [])
        self.assertEqual(set(pathlib.Path("/dev/shm").glob("ioplan-bench-*")), shm_before)  # the tmpfs one too
        # SIGKILL is sent, not waited for, and a loaded machine can take seconds to end a
        # process: each tool must be gone, dead, exiting or have SIGKILL pending when the
        # harness has exited.  Checked at once: a tool not killed ends too, with its row's run.
        self.assertEqual([k for k in pids if not self.killed(k)], [], pids)

    @staticmethod
    def killed(pid):
        """Whether pid has ended, is ending, or has SIGKILL pending."""
        try:
            stat = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return True
        if stat[0] in "ZX" or int(stat[6]) & 0x4:  # dead, or PF_EXITING in its flags
            return True
        return signal.SIGKILL in pending_signals(pid)

    @unittest.skipIf(os.geteuid() != 0, "a loop device and a mount need root")
    def test_layout_rows_run_on_a_fresh_ext4_that_sigterm_takes_down(self):
        if subprocess.run(["losetup", "-f"], capture_output=True).returncode:
            self.skipTest("no free loop device here: the rows run in the scratch directory")
        # The many-small-files rows lay out on an ext4 with a journal made for the run
        # (file_system_for_layouts); a SIGTERM during a row unmounts it and frees its loop.
        def mounted():
            """(mount point, type, device) of the run's file system, or None."""
            for line in pathlib.Path("/proc/mounts").read_text().splitlines():
                dev, where, fstype = line.split()[:3]
                if where.startswith(str(self.tmp) + "/"):
                    return where, fstype, dev
            return None

        def laying_out(_p):
            """The mount's type and its superblock, once files are laid out on it."""
            m = mounted()
            if not m or not list(pathlib.Path(m[0]).glob("many-*/many.*")):
                return None
            return m[1], subprocess.run(["dumpe2fs", "-h", m[2]], capture_output=True, text=True).stdout

        # 10 000 files: the 100-file row could end, under load, before the signal came.
        fstype, superblock = self.bench_stopped("layout-10000-files", laying_out, "files laid out on the run's mount")
        self.assertEqual(fstype, "ext4")
        self.assertIn("has_journal", superblock)
        self.assertIsNone(mounted())
        # The kernel detaches an autoclear loop device after the unmount's last close, from a
        # work queue: once seen attached with its image already deleted, under load.  Waited for.
        def loops_left():
            backing = [f.read_text() for f in pathlib.Path("/sys/block").glob("loop*/loop/backing_file")]
            return [b for b in backing if b.startswith(str(self.tmp))]
        try:
            wait_until(lambda: not loops_left(), timeout=10, what="the run's loop device to be detached")
        except AssertionError:
            pass    # the assertion below names it
        self.assertEqual(loops_left(), [], "a loop device is left")
        self.assertEqual(list(self.tmp.glob("ioplan-bench-*")), [])

    @staticmethod
    def session(pid):
        try:
            return pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[3]
        except OSError:
            return None

    def test_bad_round_counts_are_refused(self):
        p = self.bench("--rounds", "0")
        self.assertEqual(p.returncode, 2)
        self.assertIn("rounds must be at least 1", p.stderr)
        p = self.bench("--budget", "-1")
        self.assertEqual(p.returncode, 2)
        self.assertIn("--budget must be 0 or more seconds", p.stderr)


if __name__ == "__main__":
    unittest.main()
