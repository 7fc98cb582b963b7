"""tests/e2e/test_diskspd.py - DISKSPD command lines through the real binary.

The seeds' command lines run with sizes and durations scaled down; the awk
pipeline of seed 001 reads thread 0's MiB/s; the latency table never holds a
value longer than the test (the Linux port's bug); -si gives one shared stream
and each thread its own random sequence.
"""
import os
import re
import resource
import subprocess
import time

from common import BIN, ROOT, TmpDirCase, run

SEEDS = [
    "-b4K -c1G -r -o1 -t1 -Sh -n -D -L -W0 -d10 -w0 testfile.dat",
    "-b4K -c1G -r -o32 -t1 -Sh -n -D -L -W0 -d10 -w0 testfile.dat",
    "-b4K -c1G -r -o1 -t1 -Sh -n -D -L -W0 -d10 -w100 testfile.dat",
    "-t2 -o32 -b4k -r4k -w40 -d120 -Sh -D -L -c5G IO.dat",
    "-c200G -w100 -b8K -F4 -r -o128 -W30 -d30 -Sh testfile.dat",
    "-c200G -b4K -F4 -r -o128 -W7200 -d30 -Sh testfile.dat",
    "-b1024K -o8 -t1 -W0 -S -w0 -d5 -L testfile.dat",
]


def scaled(cmd):
    """The same command line with a 16 MiB file, 1 s runs and no warm-up: -W0 for a
    -W given, and added where the line leaves DISKSPD's default of 5 s (each second
    of it keeps the line's threads busy)."""
    cmd = re.sub(r"-c\d+[GgMm]", "-c16M", cmd)
    cmd = re.sub(r"-d\d+", "-d1", cmd)
    cmd = re.sub(r"-W\d+", "-W0", cmd).split()
    return cmd if "-W0" in cmd else [*cmd[:-1], "-W0", cmd[-1]]


class DiskspdFrontEnd(TmpDirCase):
    def diskspd(self, args, **kw):
        return run(["diskspd", *args], cwd=self.tmp, timeout=60, **kw)

    def test_seed_command_lines_run(self):
        for cmd in SEEDS:
            with self.subTest(cmd=cmd):
                # Each line on its own: a line without -c (CrystalDiskMark's) reads a file
                # that exists, made here rather than left behind by the line before it.
                for f in self.tmp.glob("*.dat"):
                    f.unlink()
                if "-c" not in cmd:
                    self.assertEqual(self.diskspd(["-c16M", "-d1", "-W0", "-w100", "-g100i", "testfile.dat"]).returncode, 0)
                p = self.diskspd(scaled(cmd))
                self.assertEqual(p.returncode, 0, p.stderr)
                self.assertIn("Command Line: diskspd " + " ".join(scaled(cmd)), p.stdout)
                self.assertRegex(p.stdout, r"actual test time:\s+[0-9.]+s")
                self.assertRegex(p.stdout, r"(?m)^total:\s+\d+ \|")

    def test_awk_pipeline_prints_the_first_threads_mib_per_s(self):
        p = self.diskspd(scaled("-t2 -o4 -b4k -r4k -w40 -d1 -Sh -D -L -c16M IO.dat"))
        self.assertEqual(p.returncode, 0, p.stderr)
        awk = subprocess.run(["awk", "/^Total IO$/ {getline;getline;getline; print $7}"], input=p.stdout,
                             capture_output=True, text=True)
        rows = [l for l in p.stdout.split("Total IO\n", 1)[1].splitlines() if re.match(r"\s+0 \|", l)]
        self.assertEqual(awk.stdout.strip(), rows[0].split("|")[3].strip())
        # The thread's bytes over the test time, in MiB/s: not a count the machine
        # decides (under ASan on a loaded disk, thread 0 once printed 0.00).
        secs = float(re.search(r"actual test time:\s+([0-9.]+)s", p.stdout).group(1))
        mib_s = int(rows[0].split("|")[1]) / 2**20 / secs
        self.assertAlmostEqual(float(awk.stdout), mib_s, delta=0.01 + mib_s / 100)

    def test_latency_table_stays_below_the_run_s_own_time(self):
        # In milliseconds, as DISKSPD's: no I/O took longer than the process lived (a table
        # in microseconds would be 1000 times over).  Not the 1 s of -d1: under load with
        # ASan one write took 1.47 s, as an I/O may.
        t0 = time.monotonic()
        p = self.diskspd("-b4K -c16M -r -o4 -t2 -W0 -L -d1 -w30 f.dat".split())
        lived_ms = (time.monotonic() - t0) * 1000
        self.assertEqual(p.returncode, 0, p.stderr)
        table = p.stdout.split("Total latency distribution:", 1)[1]
        maxrow = re.search(r"(?m)^\s+max \|\s+([0-9.]+) \|\s+([0-9.]+) \|\s+([0-9.]+)", table)
        self.assertTrue(maxrow, table)
        self.assertTrue(all(0 < float(v) < lived_ms for v in maxrow.groups()), (maxrow.group(0), lived_ms))
        self.assertEqual(len(re.findall(r"(?m)^\s*(min|\d+th|\d-nines|max) \|", table)), 15)

    def test_the_top_nines_of_a_short_run_are_its_max(self):
        # DISKSPD keeps every latency, so of fewer than 10^9 I/Os its 9-nines is the
        # last one's rank, the max, in each column and each target's chart; a
        # histogram bucket's value printed below it (4.178 beside a max of 4.194).
        p = self.diskspd("-b4K -c1M -r -o4 -t2 -W0 -L -d1 -w30 -g300i a.dat b.dat".split())
        self.assertEqual(p.returncode, 0, p.stderr)
        charts = p.stdout.split("Latency distribution: ")[1:] + [p.stdout.split("Total latency distribution:", 1)[1]]
        self.assertEqual(len(charts), 3)
        for chart in charts:
            rows = dict(re.findall(r"(?m)^\s*(\S+) \|\s+(.+)$", chart))
            self.assertEqual(rows["9-nines"], rows["max"], chart)

    def test_a_job_file_without_lat_percentiles_charts_its_latencies(self):
        # A fio job keeps a histogram of completion latency only (no lat_percentiles=1):
        # --output-format=diskspd printed 0.000 for every percentile row, between a min
        # and a max of microseconds, in the text and in XML's <Bucket>s.  The chart is
        # then completion latency, the same as psync's total latency.
        self.write("j.fio", "[w]\nioengine=psync\nrw=write\nbs=4k\nsize=256k\nfilename=w.dat\n")
        for fmt in ("diskspd", "diskspd-xml"):
            p = run([f"--output-format={fmt}", "j.fio"], cwd=self.tmp)
            self.assertEqual(p.returncode, 0, p.stderr)
            if fmt == "diskspd":
                chart = p.stdout.split("Total latency distribution:", 1)[1]
                rows = re.findall(r"(?m)^\s*(\S+) \|\s+N/A \|\s+([0-9.]+) \|\s+([0-9.]+)$", chart)
                values = [float(w) for _, w, t in rows]
                self.assertEqual(len(rows), 15, chart)
            else:
                import xml.etree.ElementTree as ET
                lat = ET.fromstring(p.stdout).find("TimeSpan/Latency")
                values = [float(b.find("WriteMilliseconds").text) for b in lat.iter("Bucket")]
                self.assertEqual(len(values), 108, p.stdout)
            self.assertGreater(values[0], 0, p.stdout)
            self.assertEqual(values, sorted(values), p.stdout)  # none below the min

    def test_showplan_and_job_turn_a_runbook_into_a_plan(self):
        p = self.diskspd("--showplan -b64K -c16M -si -t4 -o2 -d1 f.dat".split())
        self.assertEqual(p.returncode, 0, p.stderr)
        import json
        (job,) = [j for g in json.loads(p.stdout)["groups"] for j in g["jobs"]]
        self.assertTrue(job["interlocked"])
        self.assertEqual(job["numjobs"], 4)
        p = self.diskspd("--showplan -b4K -c16M -r -z7 -t3 -d1 f.dat".split())
        (job,) = [j for g in json.loads(p.stdout)["groups"] for j in g["jobs"]]
        self.assertEqual([c["seed"] for c in job["clones"]], [7, 8, 9])
        p = self.diskspd("--job -b4K -c16M -T1M -t2 -d1 f.dat".split())
        self.assertIn("offset_increment=1048576", p.stdout)

    def test_parallel_streams_from_one_offset(self):
        # -p: the -o outstanding I/Os of a thread each read sequentially from the same start.
        p = run(["--name=p", "--ioengine=null", "--rw=read", "--bs=4k", "--size=64k", "--iodepth=4",
                 "--sequential_parallel=1", "--number_ios=8", "--io_trace=8", "--output-format=json"],
                cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        import json
        offsets = json.loads(p.stdout)["ioplan"]["traces"][0]["ios"]["offset"]
        self.assertEqual(offsets, [0, 0, 0, 0, 4096, 4096, 4096, 4096])
        p = self.diskspd("--job -b4K -c1M -o4 -p -t1 -d1 f.dat".split())
        self.assertIn("sequential_parallel=1", p.stdout)

    def test_a_thread_stride_keeps_the_threads_in_the_target_c_makes(self):
        # -c4M -t2 -T1M: thread 1 starts at 1 MiB, and its region (offset_increment= then
        # size=4M) ran to 5 MiB: the file -c makes 4 MiB grew to 5 MiB, and -T5M made 9 MiB.
        # DISKSPD's threads stay in the target (the second's start past it is an error).
        p = self.diskspd("-b64K -c4M -t2 -T1M -s -w100 -W0 -d1 f.dat".split())
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual((self.tmp / "f.dat").stat().st_size, 4 << 20)
        self.assertRegex(p.stdout, r"\n +1 \| +[1-9]\d* \|")  # the second thread did I/O
        p = self.diskspd("-b64K -c4M -t2 -T5M -s -w100 -W0 -d1 g.dat".split())
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("would start at byte 5242880", p.stderr)
        self.assertFalse((self.tmp / "g.dat").exists())

    def test_bad_flags_exit_2_naming_the_flag(self):
        p = self.diskspd("-b4K -c16M -s -r -d1 f.dat".split())
        self.assertEqual(p.returncode, 2)
        self.assertIn("diskspd: error:", p.stderr)
        p = self.diskspd("-b4K -c16M -d1 E:".split())
        self.assertEqual(p.returncode, 2)

    def test_a_value_past_the_job_options_range_names_the_flag(self):
        # DISKSPD takes counts and times up to 2^32 - 1; past the range of the job option each
        # becomes, the translated job was refused in its own terms, naming no flag given:
        # "<diskspd>:18:9: error: iodepth=99999999 is out of range (1..65536)".
        for flag, says in (("-o99999999", "-o: expected a whole number from 1 to 65536, got '99999999'"),
                           ("-t65537", "-t: expected a whole number from 1 to 65536, got '65537'"),
                           ("-d1000000001", "-d: expected a whole number from 1 to 1000000000, got '1000000001'"),
                           ("-dx", "-d: expected a whole number from 1 to 1000000000, got 'x'"),
                           ("-d0", "-d0: the measured duration must be at least 1 second"),
                           ("-W4294967295", "-W: expected a whole number from 0 to 1000000000, got '4294967295'"),
                           ("-C4294967295", "-C: expected a whole number from 0 to 1000000000, got '4294967295'"),
                           ("-D4294967295", "-D: expected a whole number from 0 to 1000000000, got '4294967295'")):
            with self.subTest(flag=flag):
                p = self.diskspd(["-b4K", "-c1M", flag, "--showplan", "f.dat"])
                self.assertEqual((p.returncode, p.stdout), (2, ""), p.stderr)
                self.assertIn(f"diskspd: error: {says}\n", p.stderr)
                self.assertNotIn("<diskspd>", p.stderr)
        # -D0 is -D in DISKSPD (an interval is set only above 0): 1 s buckets; it was refused.
        p = self.diskspd(["-b4K", "-c1M", "-D0", "--job", "f.dat"])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("iopsavgtime=1000\n", p.stdout)
        p = self.diskspd(["-b4K", "-c1M", "-o65536", "-d1000000000", "--showplan", "f.dat"])
        self.assertEqual(p.returncode, 0, p.stderr)  # the tops of the ranges are taken
        self.assertFalse((self.tmp / "f.dat").exists())

    def test_a_target_name_the_job_file_cannot_carry_is_refused(self):
        # The line runs as a job file whose filename= ends at ';', '#' or the line's end, drops
        # outer blanks and expands ${VAR}: 'x;y.dat' ran on x, '${HOME}.dat' on $HOME.dat, and a
        # name with a newline became options of its own (exec_prerun= ran its command).
        marker = self.tmp / "ran"
        for name, says in ((f"a.dat\nexec_prerun=touch {marker}", "a line break in it"),
                           ("x;y.dat", "';' or '#' in it (a job file's comment starts there)"),
                           ("x#y.dat", "';' or '#' in it (a job file's comment starts there)"),
                           ("${HOME}.dat", "'${' in it (a job file expands ${VAR} there)"),
                           (" a.dat", "a blank at its start or end (a job file's values lose them)"),
                           ("a.dat\t", "a blank at its start or end (a job file's values lose them)"),
                           ("a.dat\r", "a blank at its start or end (a job file's values lose them)")):
            with self.subTest(name=name):
                p = self.diskspd(["-b4K", "-c1M", "-d1", "-W0", name])
                self.assertEqual((p.returncode, p.stdout), (2, ""), p.stderr)
                shown = name.replace("\n", "\\n").replace("\r", "\\r")
                self.assertEqual(p.stderr, f"diskspd: error: target '{shown}': a file name with {says} cannot be "
                                           "carried into the job ioplan runs; rename it, or name it through a "
                                           "symlink\n")
                self.assertEqual(sorted(f.name for f in self.tmp.iterdir()), [])
        p = self.diskspd(["-b4K", "-c1M", "-d1", "-W0", ""])
        self.assertEqual((p.returncode, p.stderr), (2, "diskspd: error: target '': an empty file name\n"))
        p = self.diskspd(["-b4K", "-c1M", "-d1", "--job", "a:b $x.dat"])  # these it carries
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("\nfilename=a\\:b $x.dat\n", p.stdout)

    def test_a_file_not_there_without_c_names_c(self):
        # The engine's finding names fio's size=; a DISKSPD line creates its file with -c.
        p = self.diskspd("-b4K -d1 missing.dat".split())
        self.assertEqual(p.returncode, 2)
        self.assertIn("missing.dat does not exist", p.stderr)
        self.assertIn("(DISKSPD's -c<size>, e.g. -c1G)", p.stderr)
        self.assertFalse((self.tmp / "missing.dat").exists())

    def test_a_target_without_c_shows_the_size_it_has(self):
        # DISKSPD's row names the target with its size as the run found it; without -c
        # the line gives none, and ioplan printed "t.dat (0)" and <FileSize>0</FileSize>.
        (self.tmp / "t.dat").write_bytes(b"\1" * (3 << 19))
        p = self.diskspd("-b4K -d1 -W0 -g100i -t2 t.dat".split())
        self.assertEqual(p.returncode, 0, p.stderr)
        rows = re.findall(r"(?m)^\s+\d+ \|.*\| (\S+ \(.*\))$", p.stdout)
        self.assertEqual(rows, ["t.dat (1.50MiB)"] * 6)  # two threads in Total, Read and Write IO
        import xml.etree.ElementTree as ET
        x = self.diskspd("-b4K -d1 -W0 -g100i -Rxml t.dat".split())
        self.assertEqual(x.returncode, 0, x.stderr)
        root = ET.fromstring(x.stdout)
        self.assertEqual(root.find("Profile").find(".//Target").findtext("FileSize"), "0")  # the line's -c: none
        self.assertEqual(root.find("TimeSpan").find("Thread/Target").findtext("FileSize"), str(3 << 19))
        # With -c, the -c size, as DISKSPD makes the file at it.
        p = self.diskspd("-b4K -c1M -d1 -W0 -g100i c.dat".split())
        self.assertIn("c.dat (1MiB)", p.stdout)

    def test_a_thread_ended_by_an_error_is_said_in_the_text_and_the_xml(self):
        # Every write past `ulimit -f 0` fails (EFBIG): each thread stops at its first,
        # and its row covers a moment.  The error was on stderr alone: the text and an
        # XML file kept by a script looked like a whole run of a slow disk.
        self.diskspd("-b4K -c1M -d1 -W0 -g100i f.dat".split())
        def limited(*extra):
            return subprocess.run([BIN, "diskspd", "-b4K", "-d1", "-W0", "-w100", "-t2", "-o1", *extra, "f.dat"],
                                  cwd=self.tmp, capture_output=True, text=True, timeout=60,
                                  preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0)))
        said = ("stopped at an error, so its figures cover only the time before it: "
                "write f.dat at offset 0: File too large (errno 27)")
        p = limited()
        self.assertEqual(p.returncode, 1, p.stderr)
        warnings = p.stdout.split("\nWarnings:\n", 1)[1].splitlines()
        self.assertEqual(warnings[:2], [f"  thread {t} {said}" for t in (0, 1)])
        import xml.etree.ElementTree as ET
        x = limited("-Rxml")
        self.assertEqual(x.returncode, 1, x.stderr)
        errors = [w.text for w in ET.fromstring(x.stdout).iter("Warning") if w.get("Code") == "error"]
        self.assertEqual(errors, [f"thread {t} {said}" for t in (0, 1)])

    def test_access_hints_are_given_and_shown_only_with_fr_or_fs(self):
        # DISKSPD gives no access hint without -fr/-fs; the translated job left fio's default
        # (fadvise_hint=1: POSIX_FADV_RANDOM for -r), and -fr's profile said RandomAccess false.
        import xml.etree.ElementTree as ET
        for flag, hint, text, xml in (("", "0", None, ("false", "false")),
                                      ("-fr", "random", "using FILE_FLAG_RANDOM_ACCESS hint", ("false", "true")),
                                      ("-fs", "sequential", "using FILE_FLAG_SEQUENTIAL_SCAN hint", ("true", "false"))):
            with self.subTest(flag=flag):
                args = ["-b4K", "-c1M", "-d1", "-r", *([flag] if flag else [])]
                job = self.diskspd([*args, "--job", "f.dat"])
                self.assertIn(f"\nfadvise_hint={hint}\n", job.stdout)
                profile = self.diskspd([*args, "-Rptext", "f.dat"]).stdout
                self.assertEqual(re.findall(r"using FILE_\S+ hint", profile), [text] if text else [])
                target = ET.fromstring(self.diskspd([*args, "-Rpxml", "f.dat"]).stdout).find(".//Target")
                self.assertEqual((target.findtext("SequentialScan"), target.findtext("RandomAccess")), xml)

    def test_a_users_file_is_written_with_ioplans_allow_existing_file_write(self):
        # A file ioplan did not make is written only with consent; the refusal named the job
        # option allow_existing_file_write, which a DISKSPD line could not take (an unknown
        # DISKSPD option), so a write test on the user's own test file had no way to run.
        (self.tmp / "mine.dat").write_bytes(b"\0" * (1 << 20))
        p = self.diskspd("-b4K -d1 -W0 -w100 -g100i mine.dat".split())
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("mine.dat: refusing to write into an existing file ioplan did not create (allow it with "
                      "allow_existing_file_write) (on a DISKSPD line: ioplan diskspd --allow_existing_file_write ..., "
                      "ioplan's flag)", p.stderr)
        self.assertEqual((self.tmp / "mine.dat").read_bytes(), b"\0" * (1 << 20))
        for flag in ("--allow_existing_file_write", "--allow-existing-file-write"):
            with self.subTest(flag=flag):
                p = self.diskspd(["-b4K", "-d1", "-W0", "-w100", "-g100i", flag, "mine.dat"])
                self.assertEqual(p.returncode, 0, p.stderr)
                self.assertRegex(p.stdout, r"(?m)^\s+0 \|\s+\d+ \|\s+[1-9]\d* \|.*mine.dat \(1MiB\)$")
        self.assertNotEqual((self.tmp / "mine.dat").read_bytes(), b"\0" * (1 << 20))

    def test_iops_buckets_are_ceil_of_the_duration(self):
        # -o32 leaves I/Os in flight at the end of -d2: their completions are no third bucket.
        p = self.diskspd("-Rxml -b4K -c16M -r -o32 -t2 -Sh -D -W0 -d2 f.dat".split())
        self.assertEqual(p.returncode, 0, p.stderr)
        import xml.etree.ElementTree as ET
        blocks = ET.fromstring(p.stdout).findall(".//Iops")
        self.assertEqual(len(blocks), 3)  # each thread and the target
        for b in blocks:
            self.assertEqual([x.get("SampleMillisecond") for x in b.findall("Bucket")], ["1000", "2000"])

    def test_a_lines_job_keeps_its_d_iops_statistics(self):
        # The job of a line with -D (what mpirun runs, `ioplan diskspd ... --job`) lost
        # -D: its report had no IopsStdDev column, no "gathering IOPS" line and XML
        # <CalculateIopsStdDev>false</...> with no <Iops> buckets, where the line run
        # directly has them.  The job now carries diskspd_iops_stddev=1 beside iopsavgtime=.
        import xml.etree.ElementTree as ET
        line = "-b4K -c1M -r -t2 -o2 -L -D500 -W0 -d1".split()
        p = self.diskspd([*line, "--job", "f.dat"])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("diskspd_iops_stddev=1\n", p.stdout)
        self.write("job.fio", p.stdout)
        header = "thread |       bytes     |     I/Os     |    MiB/s   |  I/O per s |  AvgLat  | IopsStdDev | LatStdDev |  file"
        for how, text in (("line", self.diskspd([*line, "f.dat"])), ("job", run(["--output-format=diskspd", "job.fio"], cwd=self.tmp))):
            with self.subTest(how=how):
                self.assertEqual(text.returncode, 0, text.stderr)
                self.assertIn("\tgathering IOPS at intervals of 500ms\n", text.stdout)
                self.assertIn(header, text.stdout)
                self.assertRegex(text.stdout, r"(?m)^\s+0 \|\s+\d+ \|\s+\d+ \|\s+[0-9.]+ \|\s+[0-9.]+ \|\s+[0-9.]+ \|\s+[0-9.]+ \|\s+[0-9.]+ \| f\.dat")
        for how, doc in (("line", self.diskspd(["-Rxml", *line, "f.dat"])), ("job", run(["--output-format=diskspd-xml", "job.fio"], cwd=self.tmp))):
            with self.subTest(how=how):
                self.assertEqual(doc.returncode, 0, doc.stderr)
                root = ET.fromstring(doc.stdout)
                self.assertEqual(root.find(".//CalculateIopsStdDev").text, "true")
                self.assertEqual(root.find(".//IoBucketDuration").text, "500")
                blocks = root.findall(".//Iops")
                self.assertEqual(len(blocks), 3)  # each thread and the target
                for b in blocks:
                    self.assertEqual([x.get("SampleMillisecond") for x in b.findall("Bucket")], ["500", "1000"])
        # a line without -D, and any job file not asking for it, keeps no such column
        p = self.diskspd("-b4K -c1M -r -t1 -L -W0 -d1 --job f.dat".split())
        self.assertNotIn("diskspd_iops_stddev", p.stdout)
        self.write("job.fio", p.stdout)
        text = run(["--output-format=diskspd", "job.fio"], cwd=self.tmp)
        self.assertEqual(text.returncode, 0, text.stderr)
        self.assertNotIn("IopsStdDev", text.stdout)
        self.assertNotIn("gathering IOPS", text.stdout)

    def test_a_lines_job_without_l_shows_no_latency(self):
        # The job of a line without -L printed AvgLat and LatStdDev columns, "measuring
        # latency" and the percentile table, which the line run directly leaves out (an
        # awk reading the file column by position read another).  Its job now says
        # diskspd_latency=0; a job file without it shows latency as before.
        import xml.etree.ElementTree as ET
        line = "-b4K -c1M -t1 -W0 -d1".split()
        p = self.diskspd([*line, "--job", "f.dat"])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("diskspd_latency=0\n", p.stdout)
        self.write("job.fio", p.stdout)
        header = "thread |       bytes     |     I/Os     |    MiB/s   |  I/O per s |  file\n"
        for how, text in (("line", self.diskspd([*line, "f.dat"])), ("job", run(["--output-format=diskspd", "job.fio"], cwd=self.tmp))):
            with self.subTest(how=how):
                self.assertEqual(text.returncode, 0, text.stderr)
                self.assertIn(header, text.stdout)
                self.assertNotIn("measuring latency", text.stdout)
                self.assertNotIn("latency distribution", text.stdout)
        for how, doc in (("line", self.diskspd(["-Rxml", *line, "f.dat"])), ("job", run(["--output-format=diskspd-xml", "job.fio"], cwd=self.tmp))):
            with self.subTest(how=how):
                self.assertEqual(doc.returncode, 0, doc.stderr)
                root = ET.fromstring(doc.stdout)
                self.assertEqual(root.find(".//MeasureLatency").text, "false")
                self.assertIsNone(root.find("TimeSpan/Latency"))
        p = self.diskspd(["-L", *line, "--job", "f.dat"])
        self.assertNotIn("diskspd_latency", p.stdout)
        self.write("job.fio", p.stdout)
        text = run(["--output-format=diskspd", "job.fio"], cwd=self.tmp)
        self.assertEqual(text.returncode, 0, text.stderr)
        self.assertIn("|  AvgLat  | LatStdDev |  file\n", text.stdout)
        self.assertIn("Total latency distribution:", text.stdout)

    def test_xml_of_a_hostile_file_name_parses(self):
        # XML 1.0 cannot carry C0 controls or invalid UTF-8 even as references: each such byte
        # of the path becomes U+FFFD, the rest is escaped, and a real parser reads the document.
        import xml.etree.ElementTree as ET
        name = b"a\x01\x1b[31m<&>\"'\xff\r.dat"
        p = subprocess.run([BIN.encode(), b"diskspd", b"-Rxml", b"-b4K", b"-c1M", b"-d1", b"-W0", name],
                           cwd=self.tmp, capture_output=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertTrue((self.tmp / os.fsdecode(name)).is_file())
        paths = [e.text for e in ET.fromstring(p.stdout).iter("Path")]
        self.assertEqual(paths, ["a\ufffd\ufffd[31m<&>\"'\ufffd\r.dat"] * 2)
        # The committed golden of the unit test (tests/report/test_diskspd.cpp) parses too.
        golden = ET.parse(ROOT / "tests/golden/diskspd/diskspd-hostile.xml").getroot()
        self.assertEqual(len(list(golden.iter("Path"))), 3)
        self.assertIn("\ufffd", next(golden.iter("Path")).text)

    def test_xml_output_and_symlink_invocation(self):
        link = self.tmp / "diskspd"
        os.symlink(BIN, link)
        p = subprocess.run([str(link), "-Rxml", "-b4K", "-c16M", "-d1", "-W0", "-L", "f.dat"], cwd=self.tmp,
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        import xml.etree.ElementTree as ET
        root = ET.fromstring(p.stdout)
        self.assertEqual(root.tag, "Results")
        self.assertIsNotNone(root.find(".//TimeSpan"))

    def test_random_write_data_is_announced_for_zr_only(self):
        # A mix writes DISKSPD's counting pattern, refilled per write: that was announced as
        # "generating random data for each write IO", which only -Zr does.
        announced = "\tgenerating random data for each write IO\n\t  WARNING: this increases the CPU cost"
        for z, random_data in (("", False), ("-Z", False), ("-Z1M", False), ("-Zr", True)):
            with self.subTest(z=z):
                args = ["-b4K", "-c1M", "-d1", "-r", "-w30", *([z] if z else []), "-Rptext", "f.dat"]
                p = self.diskspd(args)
                self.assertEqual(p.returncode, 0, p.stderr)
                self.assertEqual("generating random data" in p.stdout, random_data, p.stdout)
                self.assertEqual(announced in p.stdout, random_data, p.stdout)  # DISKSPD's warning with it
                job = self.diskspd([*args[:-2], "--job", "f.dat"]).stdout.splitlines()
                self.assertEqual("refill_buffers=1" in job, random_data, job)


    def test_profile_only_prints_the_profile_in_the_format_asked_and_runs_nothing(self):
        # -Rpxml printed the text profile: DISKSPD prints its <Profile> element alone.
        import xml.etree.ElementTree as ET
        args = ["-b8K", "-c1M", "-d1", "-W0", "-r", "-w30", "-o4"]
        p = self.diskspd([*args, "-Rptext", "f.dat"])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("Input parameters:", p.stdout)
        self.assertNotIn("<Profile>", p.stdout)
        p = self.diskspd([*args, "-Rpxml", "f.dat"])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertTrue(p.stdout.startswith("<Profile>\n  <Progress>"), p.stdout[:80])
        root = ET.fromstring(p.stdout)
        self.assertEqual(root.tag, "Profile")
        t = root.find("./TimeSpans/TimeSpan/Targets/Target")
        self.assertEqual((t.find("Path").text, t.find("BlockSize").text, t.find("WriteRatio").text,
                          t.find("RequestCount").text), ("f.dat", "8192", "30", "4"))
        # nothing ran: no file was made for the run
        self.assertFalse((self.tmp / "f.dat").exists())
        # the same element as in the whole document of a run
        shape = lambda e: (e.tag, (e.text or "").strip(), [shape(c) for c in e])  # noqa: E731
        run_ = ET.fromstring(self.diskspd([*args, "-Rxml", "f.dat"]).stdout)
        self.assertEqual(shape(run_.find("Profile")), shape(root))


    def test_a_throughput_limit_is_shown_as_given_and_holds(self):
        # -g is the limit of a thread's reads and writes together.  A read-only or
        # write-only job (rate=N in fio's terms, which limits both directions) was shown
        # as twice its limit: "throughput rate-limited to 200 IOPS" for -g100i.
        import xml.etree.ElementTree as ET
        for g, text, xml in (("-g400", "400 B/ms", ("", "400")), ("-g100i", "100 IOPS", ("IOPS", "100"))):
            for w in ("-w0", "-w30", "-w100"):
                with self.subTest(g=g, w=w):
                    args = ["-b4K", "-c1M", "-d1", "-r", w, g, "f.dat"]
                    p = self.diskspd([*args[:-1], "-Rptext", "f.dat"])
                    self.assertEqual(p.returncode, 0, p.stderr)
                    self.assertIn(f"\t\tthroughput rate-limited to {text}\n", p.stdout)
                    p = self.diskspd([*args[:-1], "-Rpxml", "f.dat"])
                    self.assertEqual(p.returncode, 0, p.stderr)
                    t = ET.fromstring(p.stdout).find("./TimeSpans/TimeSpan/Targets/Target/Throughput")
                    self.assertEqual((t.get("unit", ""), t.text), xml)
        # and the limit is what the run holds to: 100 IOPS for 1 s is at most about 100 I/Os
        p = self.diskspd(["-b4K", "-c1M", "-d1", "-W0", "-r", "-g100i", "f.dat"])
        self.assertEqual(p.returncode, 0, p.stderr)
        ios = int(re.search(r"(?m)^total:\s+\d+ \|\s+(\d+) \|", p.stdout).group(1))
        self.assertLessEqual(ios, 110, p.stdout)
        self.assertGreater(ios, 0, p.stdout)


    def test_the_target_range_is_shown_as_given(self):
        # -f (or -B's :length) ends the range: DISKSPD shows "max file size" and
        # <MaxFileSize>; ioplan showed neither line and <MaxFileSize>0.
        import xml.etree.ElementTree as ET
        for rng, base, end in ((["-B1M", "-f8M"], "1MiB", "8MiB"), (["-B1M:2M"], "1MiB", "3MiB"),
                               (["-f4M"], None, "4MiB"), ([], None, None)):
            with self.subTest(rng=rng):
                args = ["-b16K", "-c16M", "-d1", "-r4K", *rng]
                p = self.diskspd([*args, "-Rptext", "f.dat"])
                self.assertEqual(p.returncode, 0, p.stderr)
                for line, value in (("base file offset", base), ("max file size", end)):
                    self.assertEqual(f"\t\t{line}: {value}\n" in p.stdout, value is not None, p.stdout)
                    self.assertEqual(f"\t\t{line}:" in p.stdout, value is not None, p.stdout)
                t = ET.fromstring(self.diskspd([*args, "-Rpxml", "f.dat"]).stdout).find(
                    "./TimeSpans/TimeSpan/Targets/Target")
                mib = {None: 0, "1MiB": 1 << 20, "3MiB": 3 << 20, "4MiB": 4 << 20, "8MiB": 8 << 20}
                self.assertEqual((int(t.find("BaseFileOffset").text), int(t.find("MaxFileSize").text)),
                                 (mib[base], mib[end]))
        # a run reports it too, and keeps its I/O inside the range: the job file says where
        p = self.diskspd(["-b16K", "-c16M", "-d1", "-W0", "-g100i", "-r4K", "-B1M", "-f8M", "f.dat"])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("\t\tmax file size: 8MiB\n", p.stdout)
        job = self.diskspd(["-b16K", "-c16M", "-d1", "-r4K", "-B1M", "-f8M", "--job", "f.dat"]).stdout.splitlines()
        self.assertIn("offset=1048576", job)
        self.assertIn("size=7340032", job)


    def test_a_random_distribution_is_shown_as_stated(self):
        # -rd was translated to random_distribution= but neither profile showed it:
        # DISKSPD prints "IO Distribution:" under the target and <Distribution> in XML,
        # with the range it adds for the I/O left over.
        import xml.etree.ElementTree as ET
        cases = {
            "-rdpct90/10:5/5": ("Percent", [("90", "10"), ("5", "5"), ("5", "85")], [
                "\t\t    90% of IO => [ 0% -  10%) of target",
                "\t\t     5% of IO => [10% -  15%) of target",
                "\t\t     5% of IO => [15% - 100%) of target"]),
            "-rdabs90/1M:5/1536K": ("Absolute", [("90", "1048576"), ("5", "1572864"), ("5", "0")], [
                "\t\t    90% of IO => [     0    -      1MiB)",
                "\t\t     5% of IO => [     1MiB -   2.50MiB)",
                "\t\t     5% of IO => [  2.50MiB -       end)"]),
        }
        for rd, (kind, ranges, lines) in cases.items():
            with self.subTest(rd=rd):
                args = ["-b4K", "-c16M", "-d1", "-r", rd]
                p = self.diskspd([*args, "-Rptext", "f.dat"])
                self.assertEqual(p.returncode, 0, p.stderr)
                shown = p.stdout.split("\t\tIO Distribution:\n")[1].splitlines()[:len(lines)]
                self.assertEqual(shown, lines)
                t = ET.fromstring(self.diskspd([*args, "-Rpxml", "f.dat"]).stdout).find(
                    "./TimeSpans/TimeSpan/Targets/Target")
                got = [(r.get("IO"), r.text) for r in t.findall(f"./Distribution/{kind}/Range")]
                self.assertEqual(got, ranges)
        p = self.diskspd(["-b4K", "-c16M", "-d1", "-r", "-Rptext", "f.dat"])
        self.assertNotIn("IO Distribution", p.stdout)


    def traced_offsets(self, args, name):
        """The read offsets of a DISKSPD line's run: its job (--job) run with write_iolog=name."""
        job = self.diskspd(["--job", *args])
        self.assertEqual(job.returncode, 0, job.stderr)
        self.write(name + ".fio", job.stdout)
        p = run([name + ".fio", f"--write_iolog={name}.log", "--output-format=terse"], cwd=self.tmp, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        lines = (self.tmp / (name + ".log")).read_text().splitlines()
        return [int(f[3]) for f in (l.split() for l in lines) if len(f) == 5 and f[2] == "read"]

    def test_random_distribution_offsets_follow_diskspd_s_effective_ranges(self):
        # DISKSPD lays -rd ranges over the target's aligned size: on 1 MiB -rdpct10/1:90/99 is
        # [0, 8K) and [8K, 1024K), where fio's zones (the translation's rule before) ended at
        # 1020K; -rdabs ranges past the end are cut there and the I/O shares of those dropped
        # count out of what is left (10:20 of 30); the rest of an existing file is found in the
        # run.  Each case: (line, (first range's end, its share of the I/O)).
        mib = 1 << 20
        self.assertEqual(self.diskspd(["-c1M", "-d1", "-W0", "-w100", "-g100i", "old.dat"]).returncode, 0)
        cases = [
            (["-c1M", "-rdpct10/1:90/99", "new.dat"], (8 << 10, 0.10)),
            (["-c1M", "-rdabs10/100K:20/1M", "new.dat"], (100 << 10, 1 / 3)),
            (["-rdabs50/256K", "old.dat"], (256 << 10, 0.50)),
        ]
        for i, (args, (first_end, share)) in enumerate(cases):
            with self.subTest(args=args):
                offs = self.traced_offsets(["-b4K", "-r", "-o4", "-d1", "-W0", *args], f"case{i}")
                self.assertGreater(len(offs), 2000)
                self.assertTrue(all(o % 4096 == 0 and o + 4096 <= mib for o in offs), max(offs))
                first = sum(o < first_end for o in offs) / len(offs)
                self.assertAlmostEqual(first, share, delta=0.05)
                # the last range runs to the target's end: its last block is read
                self.assertTrue(mib - 4096 in offs, f"the last block is never read: the highest is {max(offs)}")
                self.assertEqual(len(set(offs)), 256)


    def test_effective_io_distributions_are_shown_as_diskspd_shows_them(self):
        # DISKSPD prints, after the CPU table, the -rd ranges as the run laid them over each
        # target ("Effective IO Distributions"), and each <Target> of its XML result carries
        # them (a gap as an IO="0" range); ioplan showed neither.
        import xml.etree.ElementTree as ET
        self.assertEqual(self.diskspd(["-c1M", "-d1", "-W0", "-w100", "-g100i", "old.dat"]).returncode, 0)
        cases = [
            (["-c1M", "-t2", "-rdpct10/1:90/99", "new.dat"], "new.dat [thread: 0 1]",
             ["    10% of IO => [     0    -      8KiB)", "    90% of IO => [     8KiB -      1MiB)"],
             [("10", "8192"), ("90", "1040384")]),
            (["-c1M", "-rdpct10/10:10/10:0/10", "new.dat"], "new.dat [thread: 0]",
             ["    10% of IO => [     0    -    100KiB)", "    10% of IO => [   100KiB -    204KiB)",
              "    80% of IO => [   304KiB -      1MiB)"],
             [("10", "102400"), ("10", "106496"), ("0", "102400"), ("80", "737280")]),
            (["-c1M", "-rdabs10/100K:20/1M", "new.dat"], "new.dat [thread: 0]",
             ["    33.3% of IO => [     0    -    100KiB)", "    66.7% of IO => [   100KiB -      1MiB)"],
             [("10", "102400"), ("20", "946176")]),
            (["-rdabs50/256K", "old.dat"], "old.dat [thread: 0]",
             ["    50% of IO => [     0    -    256KiB)", "    50% of IO => [   256KiB -      1MiB)"],
             [("50", "262144"), ("50", "786432")]),
        ]
        head = "\nEffective IO Distributions\n--------------------------\n"
        for args, target, lines, ranges in cases:
            with self.subTest(args=args):
                # -g100i: the section is the ranges, not what the run did; uncapped, each
                # thread of these 1 s runs spins a core on the page cache.
                line = ["-b4K", "-r", "-d1", "-W0", "-g100i", *args]
                p = self.diskspd(line)
                self.assertEqual(p.returncode, 0, p.stderr)
                self.assertRegex(p.stdout, r"\navg\.\|[^\n]*\n" + re.escape(head))
                shown = p.stdout.split(head)[1].split("\nTotal IO\n")[0]
                self.assertEqual(shown, "".join(l + "\n" for l in [f"target: {target}", *lines]))
                x = self.diskspd(["-Rxml", *line])
                self.assertEqual(x.returncode, 0, x.stderr)
                for t in ET.fromstring(x.stdout).findall("./TimeSpan/Thread/Target"):
                    got = [(r.get("IO"), r.text) for r in t.findall("./Distribution/Absolute/Range")]
                    self.assertEqual(got, ranges)
        p = self.diskspd(["-b4K", "-r", "-d1", "-W0", "-g100i", "-c1M", "new.dat"])
        self.assertNotIn("Effective IO Distributions", p.stdout)


    def test_a_thread_pool_and_an_affinity_list_are_shown_as_diskspd_shows_them(self):
        # -F3 was shown as "threads per file: 3" (and <ThreadCount>0), -a0,1 not at all.
        import xml.etree.ElementTree as ET
        args = ["-b4K", "-c1M", "-d1", "-F3", "-a0,1", "-o4"]
        p = self.diskspd([*args, "-Rptext", "f.dat"])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("\trandom seed: 0\n\tthread pool with 3 threads\n"
                      "\tnumber of outstanding I/O operations per thread: 0\n"
                      "\tadvanced affinity round robin (group/core): 0/0, 0/1\n\tpath: 'f.dat'\n", p.stdout)
        self.assertIn("\t\tnumber of outstanding I/O operations per thread: 4\n", p.stdout)
        self.assertNotIn("threads per file", p.stdout)
        ts = ET.fromstring(self.diskspd([*args, "-Rpxml", "f.dat"]).stdout).find("./TimeSpans/TimeSpan")
        self.assertEqual(ts.find("ThreadCount").text, "3")
        self.assertEqual([(a.get("Group"), a.get("Processor")) for a in ts.findall("./Affinity/AffinityGroupAssignment")],
                         [("0", "0"), ("0", "1")])
        self.assertEqual(ts.find("./Targets/Target/ThreadsPerFile").text, "1")
        # -t keeps DISKSPD's per-file form
        p = self.diskspd(["-b4K", "-c1M", "-d1", "-t3", "-o4", "-Rptext", "f.dat"])
        self.assertIn("\t\tthreads per file: 3\n", p.stdout)
        self.assertNotIn("thread pool", p.stdout)
        self.assertNotIn("affinity round robin", p.stdout)


    def test_a_pool_thread_on_several_targets_is_one_row_naming_them(self):
        # docs/diskspd.md: ioplan counts a thread's I/O, not each target's, so with -F a
        # thread's row names all its targets where DISKSPD prints a row per target.
        p = self.diskspd(["-c1M", "-d1", "-W0", "-g100i", "-F2", "-b4K", "a.dat", "b.dat"])  # capped: rows, not rates
        self.assertEqual(p.returncode, 0, p.stderr)
        table = p.stdout.split("Total IO\n")[1].split("\ntotal:")[0]
        rows = [r for r in table.splitlines() if re.match(r"^\s+\d+ \|", r)]
        self.assertEqual([r.split("|")[0].strip() for r in rows], ["0", "1"])
        self.assertTrue(all(r.endswith("| a.dat,b.dat (1MiB)") for r in rows), rows)


class CachingFlags(TmpDirCase):
    """Every -S variant of DISKSPD (b u w h r) and of diskspd for Linux (d s), each
    translated to what it means; and a device written only when the user says so."""

    MEANING = {  # flag: (direct=1, sync=dsync) in the translated job
        "-S": (True, False), "-Sb": (False, False), "-Su": (True, False), "-Sw": (False, True),
        "-Sh": (True, True), "-Sd": (True, False), "-Ss": (False, True), "-Sds": (True, True),
        "-Suw": (True, True), "-Sbw": (False, True), "-Sr": (False, False), "-Sdr": (True, False),
    }

    def test_each_caching_flag_means_what_its_tool_says(self):
        for flag, (direct, sync) in self.MEANING.items():
            with self.subTest(flag=flag):
                p = run(["diskspd", "-b4K", "-c1M", "-d1", flag, "--job", "f.dat"], cwd=self.tmp)
                self.assertEqual(p.returncode, 0, p.stderr)
                self.assertEqual("direct=1" in p.stdout.splitlines(), direct, p.stdout)
                self.assertEqual("sync=dsync" in p.stdout.splitlines(), sync, p.stdout)
                self.assertEqual("SMB" in p.stderr, "r" in flag, p.stderr)
        p = run(["diskspd", "-b4K", "-c1M", "-d1", "-Sd", "-Su", "--job", "f.dat"], cwd=self.tmp)
        self.assertEqual(p.returncode, 2)
        self.assertIn("conflicts with an earlier caching flag", p.stderr)

    def test_allow_device_write_lets_a_diskspd_line_write_a_device(self):
        if os.geteuid() != 0:
            self.skipTest("needs root for a loop device")
        img = self.tmp / "dev.img"
        with open(img, "wb") as f:
            f.truncate(16 << 20)
        dev = subprocess.run(["losetup", "-f", "--show", str(img)], capture_output=True, text=True,
                             check=True).stdout.strip()
        try:
            line = ["diskspd", "-b4K", "-d1", "-W0", "-w100", "-o1", "-t1", "-Sd"]
            p = run([*line, dev], cwd=self.tmp)
            self.assertEqual(p.returncode, 2)
            self.assertIn(f"allow_device_write={dev}", p.stderr)
            p = run([*line, f"--allow_device_write={dev}", dev], cwd=self.tmp)
            self.assertEqual(p.returncode, 0, p.stderr)
            total = re.search(r"^total:\s+(\d+)", p.stdout, re.M)
            self.assertTrue(total and int(total.group(1)) > 0, p.stdout)
        finally:
            subprocess.run(["losetup", "-d", dev])
