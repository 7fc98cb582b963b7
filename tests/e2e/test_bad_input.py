"""tests/e2e/test_bad_input.py - hostile input through the binary: exit 2, a positioned error, no hang.

Values that overflow, job files that never end (/dev/zero, an endless FIFO),
values only a run used to find bad, and the odd corners of the readers and the
command line: overflowing numbers, endless input, unreadable files.  Each test runs the real
binary on real files; where fio 3.33 runs the same line, what it does is the
reference.
"""
import json
import os
import signal
import subprocess
import threading
import time
import unittest

from common import BIN, FIO, STOP_BOUND_S, TmpDirCase, children_cpu, run, run_fio, showplan, wait_until, waits_in


class Overflow(TmpDirCase):
    """Case 8: arithmetic and numbers past 64 bits are errors, never wrapped values."""

    def check_refused(self, line, message, col):
        self.write("j.fio", f"[j]\nioengine=null\nsize=1m\n{line}\n")
        p = run(["--parse-only", "j.fio"], cwd=self.tmp)
        self.assertEqual(p.returncode, 2, p.stderr)
        first = p.stderr.splitlines()[0]
        self.assertEqual(first, f"j.fio:4:{col}: error: {message}")

    def test_pagesize_product_past_64_bits(self):
        page = os.sysconf("SC_PAGESIZE")
        big = 2 ** 64 // page + 1
        self.check_refused(f"size=$pagesize*{big}", f"bad value for size: '{page}*{big}' does not fit in a 64-bit integer", 6)
        self.check_refused(f"bs=$pagesize*{big}", f"bad value for bs: '{page}*{big}' does not fit in a 64-bit integer", 4)
        self.check_refused("size=$pagesize*99999999999999999999",
                           f"bad value for size: '{page}*99999999999999999999' does not fit in a 64-bit integer", 6)

    def test_fio_refuses_the_same_line(self):
        if not FIO:
            self.skipTest("fio is not installed")
        page = os.sysconf("SC_PAGESIZE")
        self.write("j.fio", f"[j]\nioengine=null\nsize=$pagesize*{2 ** 64 // page + 1}\n")
        p = run_fio(["--parse-only", "j.fio"], cwd=self.tmp)
        self.assertIn("failed parsing size=", p.stderr)

    def test_sizes_are_exact_to_the_byte_and_refused_past_64_bits(self):
        self.write("j.fio", "[j]\nioengine=null\nsize=9007199254740993\n")
        plan = showplan(["j.fio"], cwd=self.tmp)
        self.assertEqual(plan["groups"][0]["jobs"][0]["size_bytes"], 9007199254740993)  # 2^53 + 1
        self.check_refused("offset=18446744073709551616", "bad value for offset: '18446744073709551616' is out of range", 8)
        self.check_refused("offset=16384p", "bad value for offset: '16384p' is too large", 8)
        self.check_refused("runtime=9223372037s", "bad value for runtime: '9223372037s' is too long", 9)

    def test_percentage_too_small_to_hold(self):
        # 0.00001% rounded to 0 ppm, which means "no percentage": the whole file; fio reads 0 bytes.
        self.check_refused("offset=0.00001%", "bad value for offset: '0.00001%' is 0 bytes to fio 3.33, which reads a "
                           "percentage only as a whole number of digits just before the '%'; write one (1% to 100%), "
                           "which both read alike", 9)

    def test_zone_percentages_cannot_offset_each_other(self):
        self.check_refused("random_distribution=zoned:-50/50:150/50",
                           "bad value for random_distribution: zone I/O percentage -50 is not within 0..100", 21)
        self.check_refused("random_distribution=zoned:4294967296/50:100/50",
                           "bad value for random_distribution: zone I/O percentage 4294967296 is not within 0..100", 21)
        self.check_refused("random_distribution=zoned:100/-50",
                           "bad value for random_distribution: zone range percentage -50 is not within 0..100", 21)


def feed_forever(proc, chunk):
    """Writes chunk to proc's stdin until the reader stops reading (EPIPE)."""
    try:
        while True:
            proc.stdin.write(chunk)
    except (BrokenPipeError, ValueError, OSError):
        pass


class EndlessInput(TmpDirCase):
    """Case 13: a job file that never ends is read only as far as it shows it is not one."""

    def parse_only(self, args, **kw):
        start = children_cpu()
        p = subprocess.run([BIN, "--parse-only", *args], capture_output=True, text=True, timeout=20, **kw)
        return p, children_cpu() - start

    def test_dev_zero_as_job_file_and_as_include(self):
        p, took = self.parse_only(["/dev/zero"])
        self.assertEqual((p.returncode, p.stderr), (2, "/dev/zero:1:1: error: binary data (a NUL byte): this is not a job file\n"))
        self.assertLess(took, 1.0)
        self.write("inc.fio", "[j]\ninclude /dev/zero\n")
        p, took = self.parse_only(["inc.fio"], cwd=self.tmp)
        self.assertEqual(p.returncode, 2)
        self.assertEqual(p.stderr, "/dev/zero:1:1: error: binary data (a NUL byte): this is not a job file\n"
                                   "inc.fio:2:9: note: included from here\n")
        self.assertLess(took, 1.0)

    def test_dev_zero_as_trace_result_and_log(self):
        # Readers of binary inputs and results refuse a device at once: /dev/zero never ends.
        self.write("r.json", run(["--name=j", "--ioengine=null", "--size=64k", "--output-format=json"]).stdout)
        cases = [
            (["--name=j", "--ioengine=null", "--size=1m", "--read_iolog=/dev/zero"], 2,
             "/dev/zero: error: read_iolog: cannot read it: a device, not a trace\n"),
            (["--name=j", "--ioengine=null", "--size=1m", "--read_iolog=/dev/zero:r.json",
              "--merge_blktrace_file=m.bin"], 2,
             "/dev/zero: error: merge_blktrace_file: cannot read it: a device, not a trace\n"),
            (["compare", "/dev/zero", "r.json"], 2, "/dev/zero: error: a device, not a result file\n"),
            (["results", "import", "/dev/zero", "--results-db=s.db"], 2,
             "/dev/zero: error: a device, not a result file\n"),
            (["--inflate-log=/dev/zero"], 1, "ioplan: error: --inflate-log: /dev/zero: a device, not a log\n"),
        ]
        for args, rc, err in cases:
            with self.subTest(args=args):
                start = children_cpu()
                p = run(args, cwd=self.tmp, timeout=20)
                self.assertEqual((p.returncode, p.stderr), (rc, err))
                self.assertLess(children_cpu() - start, 1.0)

    def endless_stdin(self, chunk, args):
        proc = subprocess.Popen([BIN, "--parse-only", *args, "-"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE)
        writer = threading.Thread(target=feed_forever, args=(proc, chunk), daemon=True)
        start = children_cpu()
        writer.start()
        rc = proc.wait(timeout=20)
        took = children_cpu() - start  # the work done, not the wall time a busy machine adds
        err = proc.stderr.read().decode()
        writer.join(timeout=5)
        try:
            proc.stdin.close()
        except BrokenPipeError:
            pass
        proc.stdout.close()
        proc.stderr.close()
        return rc, err, took

    def test_endless_line_stops_at_the_line_limit(self):
        rc, err, took = self.endless_stdin(b"y" * 4096, [])
        self.assertEqual((rc, err), (2, "<stdin>:1:8192: error: line is longer than 8191 bytes\n"))
        self.assertLess(took, 2.0)

    def test_endless_short_lines_stop_at_16_mib(self):
        for fmt in ([], ["--format=yaml"], ["--format=toml"]):
            with self.subTest(fmt=fmt):
                rc, err, took = self.endless_stdin(b"# comment\n" * 400, fmt)
                self.assertEqual((rc, err), (2, "<stdin>: error: job file is larger than 16 MiB: this is not a job file\n"))
                self.assertLess(took, 5.0)

    def test_fifo_job_file_without_writer_ends_on_sigint(self):
        fifo = self.tmp / "job.fifo"
        os.mkfifo(fifo)
        proc = subprocess.Popen([BIN, "--parse-only", str(fifo)], stderr=subprocess.PIPE)
        # Waiting for a writer, as cat would.
        wait_until(lambda: waits_in(proc.pid, "wait_for_partner"), 30, "open() to wait for a writer")
        start = time.monotonic()
        proc.send_signal(signal.SIGINT)
        rc = proc.wait(timeout=5)
        proc.stderr.close()
        self.assertLess(time.monotonic() - start, STOP_BOUND_S)
        self.assertEqual(rc, -signal.SIGINT)

    def test_fifo_job_file_with_a_writer_is_read(self):
        fifo = self.tmp / "job.fifo"
        os.mkfifo(fifo)
        proc = subprocess.Popen([BIN, "--output-format=json", str(fifo)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True)
        with open(fifo, "w") as w:
            w.write("[j]\nioengine=null\nsize=1m\n")
        out, err = proc.communicate(timeout=30)
        self.assertEqual(proc.returncode, 0, err)
        self.assertEqual(json.loads(out)["jobs"][0]["read"]["io_bytes"], 1 << 20)


class JobFileOnStdin(TmpDirCase):
    """Case 22: `ioplan -` reads the job file from standard input, as fio does."""

    JOB = "[j]\nioengine=null\nsize=1m\nbs=4k\n"

    def test_runs_like_fio(self):
        p = run(["--output-format=json", "-"], input=self.JOB)
        self.assertEqual(p.returncode, 0, p.stderr)
        ours = json.loads(p.stdout)["jobs"][0]["read"]
        self.assertEqual((ours["io_bytes"], ours["total_ios"]), (1 << 20, 256))
        if FIO:
            f = subprocess.run([FIO, "--output-format=json", "-"], input=self.JOB, capture_output=True, text=True,
                               timeout=60, cwd=self.tmp)
            theirs = json.loads(f.stdout)["jobs"][0]["read"]
            self.assertEqual((ours["io_bytes"], ours["total_ios"]), (theirs["io_bytes"], theirs["total_ios"]))

    def test_errors_name_stdin(self):
        p = run(["--parse-only", "-"], input="[j]\nbs=3q\n")
        self.assertEqual(p.returncode, 2)
        self.assertTrue(p.stderr.startswith("<stdin>:2:5: error: bad value for bs: bad size suffix 'q'"), p.stderr)

    def test_only_once(self):
        p = run(["--parse-only", "-", "-"], input=self.JOB)
        self.assertEqual((p.returncode, p.stderr),
                         (2, "<command line>: error: '-' (the job file on standard input) can be given only once\n"))


class PlotInput(TmpDirCase):
    """Case 22: `ioplan plot` on something that is not a JSON result is bad input (exit 2), not a failed run."""

    def test_not_json_and_nothing_to_draw(self):
        self.write("notes.txt", "this is not JSON\n")
        self.write("empty.json", '{"jobs": []}')
        self.write("cut.json", '{"jobs": [1,\n  2,,]}\n')
        self.write("list.json", "[1, 2]\n")
        cases = [
            # Where the JSON parser stopped, as `ioplan report` says it (plot said no more than this).
            (["notes.txt", "-o", "c.svg"], "notes.txt:1:2: error: not a JSON result document\n"),
            (["cut.json", "-o", "c.svg"], "cut.json:2:5: error: not a JSON result document\n"),
            (["/dev/zero", "-o", "c.svg"], "/dev/zero:1:1: error: not a JSON result document\n"),
            (["list.json", "-o", "c.svg"], "ioplan plot: error: the input is not a JSON result document\n"),
            (["empty.json", "-o", "c.svg"], "ioplan plot: error: nothing to plot: the JSON has no time series, "
                                            "latency percentiles or I/O traces\n"),
        ]
        for args, err in cases:
            with self.subTest(args=args):
                p = run(["plot", *args], cwd=self.tmp, timeout=10)
                self.assertEqual((p.returncode, p.stderr), (2, err))
                self.assertFalse((self.tmp / "c.svg").exists())


class PlanTimeValues(TmpDirCase):
    """Case 18: values a run used to refuse with exit 1 and no position are refused before it, or run as fio runs them."""

    def plan(self, *lines, engine="null", size="1m"):
        self.write("j.fio", "[j]\nioengine=%s\nsize=%s\nrw=randread\n%s\n" % (engine, size, "\n".join(lines)))
        return run(["--output-format=json", "j.fio"], cwd=self.tmp, timeout=60)

    def check_refused(self, line, first, **kw):
        p = self.plan(line, **kw)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertEqual(p.stderr.splitlines()[0], first)
        self.assertEqual(p.stdout, "")

    def test_distribution_parameters(self):
        bad = "j.fio:5:21: error: bad value for random_distribution: "
        self.check_refused("random_distribution=zipf:-1", bad + "zipf theta must be 0 or more (0: every block alike)")
        for v in ("normal:-5", "normal:100"):
            self.check_refused("random_distribution=" + v, bad + "normal deviation must be at least 0 and below 100")
        # fio 3.33 has gauss as file_service_type's alias of normal, not random_distribution's.
        self.check_refused("random_distribution=gauss:5", bad + "'gauss' is not a valid random_distribution (one of: "
                           "random, zipf, pareto, normal, zoned, zoned_abs)")
        self.check_refused("random_distribution=zoned:100/0", bad + "zone 1 gets 100% of the I/O but covers none of the region")
        self.check_refused("random_distribution=zoned_abs:100/0", bad + "zone 1 gets 100% of the I/O but covers none of the region")

    def test_zones_that_do_not_fit_the_region(self):
        self.check_refused("random_distribution=zoned_abs:100/2m",
                           "j.fio:5:21: error: job 'j': the zones of random_distribution=zoned_abs cover 2097152 bytes, "
                           "more than the 1048576 of the region")
        self.check_refused("random_distribution=zoned:1/1:99/99", "j.fio:5:21: error: job 'j': zone 1 of random_distribution "
                           "gets 1% of the I/O but holds no whole block of 4096 bytes", size="64k")

    def test_zones_by_diskspd_s_rule(self):
        # zoned_ranges=diskspd: DISKSPD's -rdabs rest (a blank last range) and its refusals; what
        # it cuts at the region's end (fio's rule refuses it) runs.
        self.check_refused("random_distribution=zoned_abs:50/512k:50/",
                           "j.fio:5:21: error: job 'j': a blank last zoned_abs range (the rest of the region) "
                           "needs zoned_ranges=diskspd")
        self.check_refused("random_distribution=zoned_abs:50/512k:50/2k\nzoned_ranges=diskspd",
                           "j.fio:5:21: error: job 'j': zone 2 of random_distribution=zoned_abs (2048 bytes) is "
                           "smaller than the block size (4096 bytes), which zoned_ranges=diskspd refuses as DISKSPD does")
        self.check_refused("random_distribution=zoned:50/50:50/50\nzoned_ranges=diskspd\nbsrange=4k-8k",
                           "j.fio:6:14: error: job 'j': zoned_ranges=diskspd needs one block size and blockalign "
                           "for every direction (DISKSPD has one -b and -r)")
        self.check_refused("zonemode=strided\nzonesize=16k\nrandom_distribution=zoned:50/50:50/50\nzoned_ranges=diskspd",
                           "j.fio:8:14: error: job 'j': zoned_ranges=diskspd and zonemode=strided exclude each other")
        for zones in ("zoned_abs:100/2m", "zoned_abs:50/512k:50/", "zoned:1/1:99/99"):
            with self.subTest(zones=zones):
                p = self.plan(f"random_distribution={zones}", "zoned_ranges=diskspd", size="64k")
                self.assertEqual(p.returncode, 0, p.stderr)

    def test_block_larger_than_the_region(self):
        self.check_refused("bs=2m", "j.fio:3:6: error: job 'j': the size (1048576 bytes) is less than one read block (2097152 bytes)")
        self.check_refused("nrfiles=4\nbs=512k", "j.fio:3:6: error: job 'j': each file's region (262144 bytes) is less "
                           "than one read block (524288 bytes)")
        self.check_refused("rw=write\nbs=4k,2m", "j.fio:3:6: error: job 'j': the size (1048576 bytes) is less than one write "
                           "block (2097152 bytes)")
        # A sequential share under a block reads on into files that hold one (fio's
        # real_file_size: test_fio_differential); files that do not are still refused, none made.
        self.check_refused("rw=read\nnrfiles=3\nbs=4k", "j.fio:3:6: error: job 'j': each file's region (2730 bytes) is "
                           "less than one read block (4096 bytes)", engine="psync", size="8k")
        self.assertEqual(list(self.tmp.glob("j.0.*")), [])
        p = run(["--name=j", "--ioengine=null", "--bs=2m", "--size=1m"])
        self.assertEqual((p.returncode, p.stderr.splitlines()[0]),
                         (2, "<command line>:1:4: error: job 'j': the size (1048576 bytes) is less than one read block "
                             "(2097152 bytes)"))
        if FIO:  # fio refuses it too ("size too small")
            f = run_fio(["--name=j", "--ioengine=null", "--bs=2m", "--size=1m"])
            self.assertIn("size too small", f.stderr)

    def test_an_offset_at_the_end_of_its_files(self):
        # With filesize= a file's region runs from offset= to its end.  None left, the
        # run failed every job of the file with exit 1 and a wrong reason ("file does
        # not exist and no size is given"); fio lays the files out and stops.
        self.check_refused("offset=64k\nfilesize=64k", "j.fio:5:8: error: job 'j': offset=65536 is at or past the "
                           "end of its files (filesize=65536 bytes): no I/O is left to make", engine="psync")
        self.assertEqual(list(self.tmp.glob("j.0.0")), [])
        # The same under size=N% of filesize= (ioplan ran it, in a file it made 1 MiB long).
        self.check_refused("offset=1m\nfilesize=256k\nsize=10%", "j.fio:5:8: error: job 'j': offset=1048576 is at or "
                           "past the end of its files (filesize=262144 bytes): no I/O is left to make", engine="psync")
        self.assertEqual(list(self.tmp.glob("j.0.0")), [])
        # A clone that starts there: fio says "you need to specify valid offset=" (or,
        # right at the end, runs no clone at all and exits 0).
        self.check_refused("numjobs=3\noffset_increment=32k\nfilesize=64k", "j.fio:6:18: error: job 'j': clone 3 of 3 "
                           "would start at byte 65536 (offset=0 + 2 x offset_increment=32768), at or past the end of its "
                           "files (filesize=65536 bytes)", engine="psync")
        p = self.plan("offset=32k\nfilesize=64k", engine="psync")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(json.loads(p.stdout)["jobs"][0]["read"]["io_bytes"], 32768)

    def test_blockalign_larger_than_the_region(self):
        self.check_refused("blockalign=2m", "j.fio:3:6: error: job 'j': the size (1048576 bytes) is less than one read "
                           "blockalign step (2097152 bytes)")
        p = run(["diskspd", "-r4294967297", "-c1M", "-d1", "t.dat"], cwd=self.tmp)
        self.assertEqual((p.returncode, p.stderr),
                         (2, "diskspd: error: -c: the file (1048576 bytes) is smaller than one step of random alignment "
                             "(-r: 4294967297 bytes)\n"))
        self.assertFalse((self.tmp / "t.dat").exists())

    def test_plan_with_billions_of_files(self):
        start = children_cpu()
        p = run(["--parse-only", "--name=j", "--ioengine=null", "--size=1p", "--numjobs=65536", "--nrfiles=1000000"],
                timeout=30)
        self.assertLess(children_cpu() - start, 5.0)  # CPU seconds; it used to plan 6.5e10 files: terabytes
        self.assertEqual((p.returncode, p.stderr.splitlines()[0]),
                         (2, "<command line>:1:2: error: job 'j': numjobs=65536 makes 65536000000 files; the plan would "
                             "hold 65536000000, more than 4194304"))
        p = run(["--parse-only", "--name=j", "--ioengine=null", "--size=1t", "--numjobs=4096", "--nrfiles=1025"])
        self.assertEqual((p.returncode, p.stderr.splitlines()[0]),
                         (2, "<command line>:1:2: error: job 'j': numjobs=4096 makes 4198400 files; the plan would "
                             "hold 4198400, more than 4194304"))
        p = run(["--parse-only", "--name=j", "--ioengine=null", "--size=1t", "--numjobs=64", "--nrfiles=1024"])
        self.assertEqual(p.returncode, 0, p.stderr)

    def test_null_engine_without_a_size(self):
        # At the size=0 the job wrote, where it wrote one (it pointed at the job's header).
        for args, at in ((["--size=0"], "1:3"), ([], "1:1")):
            p = run(["--name=j", "--ioengine=null", *args])
            self.assertEqual((p.returncode, p.stderr.splitlines()[0]),
                             (2, f"<command line>:{at}: error: job 'j': the null engine needs size= (it has no file to "
                                 "take a size from)"))
        p = run(["--parse-only", "--name=n", "--ioengine=net", "--protocol=tcp", "--port=9999", "--hostname=localhost",
                 "--size=0", "--rw=write"])
        self.assertEqual(p.stderr.splitlines()[0], "<command line>:1:7: error: job 'n': the net engine needs size= (a "
                                                   "socket has no size to take)")
        job = self.tmp / "j.fio"
        job.write_text("[j]\nioengine=null\nrw=read\nsize=0\n")
        p = run([str(job)])
        self.assertEqual((p.returncode, p.stderr.splitlines()[0]),
                         (2, f"{job}:4:6: error: job 'j': the null engine needs size= (it has no file to take a size "
                             "from)"))

    def test_diskspd_file_smaller_than_a_block(self):
        p = run(["diskspd", "-b8K", "-c4K", "-d1", "t.dat"], cwd=self.tmp)
        self.assertEqual((p.returncode, p.stderr),
                         (2, "diskspd: error: -c: the file (4096 bytes) is smaller than one block (-b: 8192 bytes)\n"))
        self.assertFalse((self.tmp / "t.dat").exists())
        p = run(["diskspd", "-b8K", "-c64K", "-B4K", "-f8K", "-d1", "t.dat"], cwd=self.tmp)
        self.assertEqual((p.returncode, p.stderr),
                         (2, "diskspd: error: -f: the target range (4096 bytes) is smaller than one block (-b: 8192 bytes)\n"))

    def test_values_fio_runs_run_with_its_shape(self):
        """zipf:0, normal:0 and bare normal run (fio runs them); the share of I/O on the hottest sixth
        and twelfth of the blocks is fio's within 3 points (normal:0 puts about 70% on the hottest sixth)."""
        if not FIO:
            self.skipTest("fio is not installed")
        for dist in ("zipf:0", "normal", "normal:0", "normal:30"):
            with self.subTest(dist=dist):
                ours, fios = self.hot_shares(dist, ours=True), self.hot_shares(dist, ours=False)
                for a, b in zip(ours, fios):
                    self.assertLess(abs(a - b), 3.0, (ours, fios))

    def hot_shares(self, dist, ours):
        job = ["--name=j", "--ioengine=null", "--size=64m", "--bs=4k", "--rw=randread", "--loops=3",
               "--random_distribution=" + dist]
        if ours:
            p = run([*job, "--io_trace=100000", "--output-format=json"], cwd=self.tmp)
            self.assertEqual(p.returncode, 0, p.stderr)
            offsets = json.loads(p.stdout)["ioplan"]["traces"][0]["ios"]["offset"]
        else:
            log = self.tmp / "fio.iolog"
            log.unlink(missing_ok=True)  # fio appends to an existing log
            p = run_fio([*job, f"--write_iolog={log}", "--output-format=terse"], cwd=self.tmp)
            self.assertEqual(p.returncode, 0, p.stderr)
            offsets = [int(f[3]) for f in (line.split() for line in log.read_text().splitlines())
                       if len(f) == 5 and f[2] == "read"]
        counts = {}
        for o in offsets:
            counts[o // 4096] = counts.get(o // 4096, 0) + 1
        hot = sorted(counts.values(), reverse=True)
        self.assertEqual(sum(hot), 3 * 16384)
        return [sum(hot[:16384 // k]) / sum(hot) * 100 for k in (6, 12)]


class CommandLine(TmpDirCase):
    """Case 22: --fake-clock takes a whole number of ns above 0 (it took -5 as 2^64 - 5)."""

    def test_fake_clock_values(self):
        for v in ("-5", "0", "5x", "", "99999999999999999999999"):
            with self.subTest(v=v):
                p = run([f"--fake-clock={v}", "--name=j", "--ioengine=null", "--size=1m"])
                self.assertEqual(p.returncode, 2)
                self.assertEqual(p.stderr.splitlines()[0],
                                 "<command line>:1:1: error: --fake-clock needs a whole number of ns above 0")
        p = run(["--fake-clock=1000", "--name=j", "--ioengine=null", "--size=1m", "--output-format=json"])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(json.loads(p.stdout)["jobs"][0]["read"]["io_bytes"], 1 << 20)

    def test_a_percentage_written_with_its_sign_is_refused_saying_so(self):
        # fio 3.33 takes rwmixread=70% and runs 100% reads; ioplan said "bad size suffix '%'".
        job = self.tmp / "mix.fio"
        job.write_text("[j]\nioengine=null\nsize=1m\nrw=randrw\nrwmixwrite=30%\n")
        p = run([str(job)])
        self.assertEqual(p.returncode, 2)
        self.assertEqual(p.stderr.splitlines(), [
            f"{job}:5:14: error: bad value for rwmixwrite: '30%': rwmixwrite is a percentage, written without "
            "'%' (rwmixwrite=30)", " rwmixwrite=30%", " " * 14 + "^"])

    def test_an_error_names_its_argument_and_marks_the_character(self):
        # "<command line>:1:N" is argv[N].  A bad suffix's place in the value was added to N,
        # naming another argument (--rwmixread=70% as argv[4] read "1:6"), and the caret
        # stood under the N-th character of the argument shown.
        for args, says, caret in (
                (["--name=j", "--ioengine=null", "--rw=randrw", "--rwmixread=70%"],
                 "<command line>:1:4: error: bad value for rwmixread: '70%': rwmixread is a percentage", 15),
                (["--name=j", "--size=1q"], "<command line>:1:2: error: bad value for size: bad size suffix", 9),
                (["--name=j", "--bogus=1"], "<command line>:1:2: error: unknown option 'bogus'", 3),
                (["--name=a", "--name=b", "--idle-prof=bogus"], "<command line>:1:3: error: --idle-prof: ", 1)):
            with self.subTest(args=args):
                p = run(args)
                self.assertEqual(p.returncode, 2)
                lines = p.stderr.splitlines()
                self.assertTrue(lines[0].startswith(says), lines[0])
                self.assertEqual(lines[1:3], [" " + args[-1], " " * caret + "^"])


class StructuredReaders(TmpDirCase):
    """Case 22: what TOML and YAML readers let through - bytes that are not UTF-8, a second YAML
    document, a \\u0000 that cut a name short, nesting that ended in "bad file"."""

    def parse(self, name, data):
        (self.tmp / name).write_bytes(data)
        return subprocess.run([BIN, "--parse-only", name], cwd=self.tmp, capture_output=True, timeout=30)

    def check(self, name, data, first):
        p = self.parse(name, data)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertEqual(p.stderr.decode(errors="replace").splitlines()[0], first)

    def test_yaml_that_is_not_utf8(self):
        self.check("u.yaml", b'jobs:\n  - name: "a\xff"\n    ioengine: "null"\n',
                   "u.yaml:2:13: error: invalid UTF-8 (byte 0xff): a job file is UTF-8 text")
        self.check("s.yaml", b'jobs:\n  - name: "\xed\xa0\x80"\n',  # a UTF-16 surrogate
                   "s.yaml:2:12: error: invalid UTF-8 (byte 0xed): a job file is UTF-8 text")
        p = self.parse("ok.yaml", 'jobs:\n  - name: "d\u00e9j\u00e0 \u4e2d"\n    ioengine: "null"\n    size: 1m\n'.encode())
        self.assertEqual(p.returncode, 0, p.stderr)

    def test_toml_refuses_it_too(self):
        self.check("u.toml", b'[[jobs]]\nname = "a\xff"\n', "u.toml:2:9: error: Encountered invalid utf-8 sequence")

    def test_second_yaml_document(self):
        self.check("m.yaml", b'jobs:\n  - name: a\n    ioengine: "null"\n    size: 1m\n---\njobs:\n  - name: b\n',
                   "m.yaml:6:1: error: a second YAML document: a job file holds one (its jobs go in one 'jobs' list)")
        # An explicit start marker and a bare trailing one hold no second job: accepted.
        p = self.parse("one.yaml", b'---\njobs:\n  - name: a\n    ioengine: "null"\n    size: 1m\n---\n')
        self.assertEqual(p.returncode, 0, p.stderr)
        # yaml-cpp 0.7's LoadAll loops forever, growing, on a stray ',' (jbeder/yaml-cpp#1319): it ends.
        p = self.parse("comma.yaml", b'jobs:\n  - name: a\n    ioengine: "null"\n    size: 1m\n---\n,\n')
        self.assertEqual(p.returncode, 0, p.stderr)
        self.check("c.yaml", b",\n", "c.yaml: error: empty job file")

    def test_nul_in_names_keys_and_values(self):
        self.check("z.yaml", b'jobs:\n  - name: "a\\u0000b"\n',
                   "z.yaml:2:11: error: a NUL character (\\u0000) in the job name 'a...': names and values are text")
        self.check("z.toml", b'[[jobs]]\nname = "a\\u0000b"\n',
                   "z.toml:2:8: error: a NUL character (\\u0000) in the job name 'a...': names and values are text")
        self.check("v.toml", b'[[jobs]]\nname = "a"\ndescription = "x\\u0000y"\n',
                   "v.toml:3:15: error: a NUL character (\\u0000) in the value 'x...': names and values are text")
        self.check("k.yaml", b'global:\n  "bs\\0x": 4k\njobs:\n  - name: a\n',
                   "k.yaml:2:3: error: a NUL character (\\u0000) in the key 'bs...': names and values are text")

    def test_deep_nesting(self):
        for depth in (500, 5000):
            with self.subTest(depth=depth):
                deep = b"[" * depth + b"]" * depth
                p = self.parse("d.yaml", b"jobs:\n  - name: a\n    x: " + deep + b"\n")
                self.assertEqual(p.returncode, 2)
                self.assertRegex(p.stderr.decode(), r"^d\.yaml:3:\d+: error: lists and maps nested too deeply "
                                                    r"\(job options are values or flat lists\)\n")
        p = self.parse("d.toml", b"[[jobs]]\nname = 'a'\nx = " + b"[" * 5000 + b"]" * 5000 + b"\n")
        self.assertEqual(p.returncode, 2)
        self.assertIn(b"exceeded maximum nested value depth", p.stderr)


class DecimalPatterns(TmpDirCase):
    """A decimal buffer_pattern is fio's: the bytes its value needs (258 wrote 02 01 00 00, fio 02 01),
    and a value past int's range is an error (it was cut to 32 bits)."""

    def written(self, prog, pattern):
        path = self.tmp / f"{prog}.dat"
        args = ["--name=j", f"--filename={path}", "--size=8k", "--bs=4k", "--rw=write", f"--buffer_pattern={pattern}",
                "--output-format=terse"]
        p = run(args, cwd=self.tmp) if prog == "ioplan" else run_fio(args, cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        return path.read_bytes()

    def test_file_bytes_match_fio(self):
        for pattern, head in (("258", b"\x02\x01\x02\x01"), ("-1", b"\xff" * 4), ("0", b"\0" * 4)):
            with self.subTest(pattern=pattern):
                ours = self.written("ioplan", pattern)
                self.assertEqual((len(ours), ours[:4]), (8192, head))
                if FIO:
                    self.assertEqual(ours, self.written("fio", pattern))

    def test_out_of_range(self):
        p = run(["--name=j", "--ioengine=null", "--size=1m", "--buffer_pattern=99999999999"])
        self.assertEqual(p.returncode, 2)
        self.assertEqual(p.stderr.splitlines()[0], "<command line>:1:4: error: bad value for buffer_pattern: decimal "
                         "pattern 99999999999 is outside -2147483648..2147483647 (use 0x... for more bytes)")


if __name__ == "__main__":
    unittest.main()
