"""tests/e2e/test_fio_clients.py - the programs people run on top of fio, on ioplan installed as fio.

Each test replays what a client does, from its source (fetched, not vendored):
KDiskMark's helper (an empty temporary file, `fio --create_only=1` on it, then
its tests with its exact arguments, reading jobs[0].error, read/write bw, iops
and clat_ns.mean as Qt's QJsonValue would), docker-diskmark's diskmark.sh
(its fio command line and its grep/sed/awk pipeline over the JSON text; the
real script too when $IOPLAN_DISKMARK_SH names it, and its WARMUP=1 dd fill of
the test file), fio-plot's bench-fio version check, the JSON keys fio-plot
reads (also from a job file written with fio's aliases), the bw/lat/iops log
files it finds by name (the same set as fio's), and its --type file run
on an existing file, a fio-btrace2fio job on the existing file it replays to,
the Phoronix Test Suite's job file (disk_util=0) and its IOPS=/BW= lines,
kubestr's rule that anything on stderr fails the run and its "rw" key, and
Debian's fio_jsonplus_clat2csv on ioplan's json+, and the lines fio prints for the
exec_prerun/exec_postrun commands genfio -B/-A adds.
"""
import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest

from common import TmpDirCase, fio_link_dir, run, run_as_fio, run_fio as run_fio_direct

# KDiskMark's default profile: (rw, bs KiB, queue depth, threads).
KDISKMARK_TESTS = [(rw, bs, qd, 1) for rw, bs, qd in
                   (("read", 1024, 8), ("read", 1024, 1), ("randread", 4, 32), ("randread", 4, 1),
                    ("write", 1024, 8), ("write", 1024, 1), ("randwrite", 4, 32), ("randwrite", 4, 1))]


def is_whole(v):
    """QJsonValue::toInt() gives 0 for a value with a fraction: bw must be whole."""
    return isinstance(v, int) and not isinstance(v, bool)


def notes_of(doc):
    return [m["text"] for m in doc["ioplan"]["messages"] if m["level"] == "note"]


class Personality(TmpDirCase):
    def test_version_as_fio_and_as_ioplan(self):
        p = run_as_fio(["--version"])
        self.assertEqual((p.returncode, p.stdout, p.stderr), (0, "fio-3.33\n", ""))
        self.assertTrue(p.stdout.startswith("fio-"))  # KDiskMark
        self.assertIn("fio-3", p.stdout)  # fio-plot's bench-fio
        self.assertRegex(run(["--version"]).stdout, r"^ioplan-\d+\.\d+")

    def test_help_names_ioplan(self):
        first = run_as_fio(["--help"]).stdout.splitlines()[0]
        self.assertIn("ioplan", first)
        self.assertIn("run as fio", first)
        self.assertIn("a symlink named fio: presents itself as fio-3.33", run(["--help"]).stdout)

    def test_reports_follow_the_personality(self):
        args = ["--name=j", "--ioengine=null", "--size=1m", "--output-format=json,terse"]
        as_fio, as_ioplan = run_as_fio(args), run(args)
        self.assertIn('"fio version" : "fio-3.33"', as_fio.stdout)
        self.assertIn(";fio-3.33;j;", as_fio.stdout)
        self.assertRegex(as_ioplan.stdout, r'"fio version" : "ioplan-\d')
        self.assertRegex(run_as_fio(["--name=j", "--ioengine=null", "--size=1m"]).stdout, r"\nfio-3\.33\n")


class KDiskMark(TmpDirCase):
    def test_sequence(self):
        fd, path = tempfile.mkstemp(prefix="kdiskmark-", suffix=".tmp", dir=self.tmp)  # QTemporaryFile
        os.close(fd)
        p = run_as_fio(["--output-format=json", "--create_only=1", f"--filename={path}", "--size=16m",
                        "--zero_buffers=0", "--name=prepare"])
        self.assertEqual((p.returncode, p.stderr), (0, ""))
        self.assertEqual(os.path.getsize(path), 16 << 20)
        self.assertIn("was empty; laid out", p.stdout)
        for rw, bs, qd, threads in KDISKMARK_TESTS:
            with self.subTest(rw=rw, bs=bs, qd=qd):
                p = run_as_fio(["--output-format=json", "--ioengine=libaio", "--randrepeat=0",
                                "--refill_buffers=0", "--end_fsync=1", "--direct=0", "--rwmixread=70",
                                f"--filename={path}", f"--name={rw}", "--size=16m", "--zero_buffers=0",
                                f"--bs={bs}k", "--runtime=1", f"--rw={rw}", f"--iodepth={qd}",
                                f"--numjobs={threads}", "--group_reporting"])
                self.assertEqual((p.returncode, p.stderr), (0, ""))
                job = json.loads(p.stdout)["jobs"][0]
                self.assertEqual(job["error"], 0)
                d = "read" if "read" in rw else "write"
                self.assertTrue(is_whole(job[d]["bw"]), job[d]["bw"])
                self.assertGreater(job[d]["bw"], 0)
                self.assertIsInstance(job[d]["iops"], float)
                self.assertGreater(job[d]["iops"], 0)
                self.assertIsInstance(job[d]["clat_ns"]["mean"], float)
                self.assertGreater(job[d]["clat_ns"]["mean"], 0)

    def test_non_empty_file_is_extended_as_fio_and_refused_as_ioplan(self):
        f = self.tmp / "precious"
        f.write_bytes(b"x")
        args = ["--create_only=1", f"--filename={f}", "--size=1m", "--name=prepare"]
        p = run(args)
        self.assertEqual(p.returncode, 2)
        self.assertIn("existing file is too small and ioplan did not create it (allow extending it with "
                      "allow_existing_file_write)", p.stderr)
        self.assertEqual(f.read_bytes(), b"x")
        # As fio, the file the job names is laid out as fio lays it out, and the report says so.
        p = run_as_fio(args)
        self.assertEqual((p.returncode, p.stderr), (0, ""))
        self.assertEqual(os.path.getsize(f), 1 << 20)
        self.assertIn("an existing file ioplan did not create is extended", p.stdout)


def diskmark_parse(text, name, lines):
    """docker-diskmark's parseResult pipeline: grep -A over the JSON text, sed, awk."""
    script = ("grep -A\"$2\" '\"name\" : \"'\"$1\"'\"' | grep bw_bytes | sed 's/        \"bw_bytes\" : //g' "
              "| sed 's:,::g' | awk '{ SUM += $1} END { printf \"%.0f\", SUM }'")
    p = subprocess.run(["bash", "-c", script, "parse", name, str(lines)], input=text, capture_output=True,
                       text=True, check=True)
    return int(p.stdout)


class DockerDiskmark(TmpDirCase):
    # Its default profile: divider -1 makes a negative size for the sequential tests.
    def test_invocations_and_grep(self):
        size = 16 << 20
        for name, bs, qd, rw, div in (("SEQ1MQ8T1", "1M", 8, "", -1), ("RND4KQ32T1", "4K", 32, "rand", 16)):
            for kind, lines in (("read", 15), ("write", 80)):
                job = f"{name}{kind.capitalize()}"
                p = run_as_fio([f"--filename={self.tmp}/.diskmark.tmp", "--stonewall", "--ioengine=libaio",
                                "--direct=0", "--zero_buffers=0", "--time_based", "--runtime=300ms",
                                f"--size={size // div}", f"--name={job}", f"--blocksize={bs}",
                                f"--iodepth={qd}", "--numjobs=1", f"--readwrite={rw}{kind}",
                                "--output-format=json"])
                with self.subTest(job=job):
                    self.assertEqual((p.returncode, p.stderr), (0, ""))
                    self.assertGreater(diskmark_parse(p.stdout, job, lines), 0)
                    if div < 0:
                        self.assertIn("is read as 16777216", p.stdout)

    def test_warmup_fills_the_file_with_dd_first(self):
        # WARMUP=1: dd writes the whole test file, then each test runs fio on it.
        target = self.tmp / ".diskmark.tmp"
        subprocess.run(["dd", "if=/dev/urandom", f"of={target}", "bs=4194304", "count=1", "oflag=direct"],
                       check=True, capture_output=True)
        before = hashlib.sha256(target.read_bytes()).hexdigest()
        for kind, lines in (("read", 15), ("write", 80)):
            job = f"SEQ1MQ8T1{kind.capitalize()}"
            args = [f"--filename={target}", "--stonewall", "--ioengine=libaio", "--direct=1",
                    "--zero_buffers=0", "--loops=1", "--size=4194304", f"--name={job}", "--blocksize=1M",
                    "--iodepth=8", "--numjobs=1", f"--readwrite={kind}", "--output-format=json"]
            p = run_as_fio(args)
            with self.subTest(job=job):
                self.assertEqual((p.returncode, p.stderr), (0, ""))
                self.assertGreater(diskmark_parse(p.stdout, job, lines), 0)
                self.assertEqual(json.loads(p.stdout)["jobs"][0][kind]["io_bytes"], 4 << 20)
        self.assertNotEqual(hashlib.sha256(target.read_bytes()).hexdigest(), before,
                            "the write test wrote the dd-filled file")
        self.assertIn("an existing file ioplan did not create is written", p.stdout)
        # Run as ioplan, the safe default stands and names the option that allows it.
        p = run(args)
        self.assertEqual(p.returncode, 2)
        self.assertIn("refusing to write into an existing file ioplan did not create (allow it with "
                      "allow_existing_file_write)", p.stderr)

    def test_real_script(self):
        script = os.environ.get("IOPLAN_DISKMARK_SH")
        if not script or not os.path.exists(script):
            self.skipTest("set IOPLAN_DISKMARK_SH to e7d/docker-diskmark's diskmark.sh")
        env = dict(os.environ, PATH=fio_link_dir() + ":" + os.environ["PATH"], TARGET=str(self.tmp / "t"),
                   SIZE="16M", RUNTIME="300ms", IO="buffered")
        p = subprocess.run(["bash", script], env=env, capture_output=True, text=True, timeout=300)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        results = re.findall(r"(?:<= Read|=> Write): +(\d+) MB/s, (\d+) IO/s", p.stdout)
        self.assertEqual(len(results), 8, p.stdout)
        self.assertTrue(all(int(iops) > 0 for _, iops in results), results)


class FioPlot(TmpDirCase):
    # bench-fio writes one [FIOJOB] section with configparser (no spaces around '=') and
    # runs `fio --output-format=json --output=FILE JOB`; fio-plot merges "global options"
    # into "job options" and reads these keys.  It also asks for fio's bw, lat and iops logs
    # (log_avg_msec=1000), which fio-plot finds by name: <rw>-iodepth-<d>-numjobs-<n>_<type>.
    JOB = "[FIOJOB]\nioengine=null\nsize=4m\nrw=randread\niodepth=4\nnumjobs=2\nbs=4k\n"
    LOGS = "".join(f"write_{t}_log={{d}}/randread-iodepth-4-numjobs-2\n" for t in ("bw", "lat", "iops"))

    def test_log_files_fio_plot_finds(self):
        # The same files as fio's, each row five or six integer fields (dataimport reads them with csv).
        found = {}
        for who, tool, d in (("fio", run_fio_direct, self.tmp / "f"), ("ioplan", run_as_fio, self.tmp / "i")):
            d.mkdir()
            self.write(f"{who}.fio", self.JOB + "log_avg_msec=1000\n" + self.LOGS.format(d=d))
            p = tool(["--output-format=json", f"--output={d}/randread-4-2.json", str(self.tmp / f"{who}.fio")])
            self.assertEqual(p.returncode, 0, p.stderr)
            found[who] = sorted(x.name for x in d.iterdir())
            for log in d.glob("*.log"):
                rows = [r.split(", ") for r in log.read_text().splitlines()]
                # the bw and iops averages of a run shorter than log_avg_msec are empty in fio too
                self.assertEqual(bool(rows), "lat" in log.name, log.name)
                self.assertTrue(all(len(r) in (5, 6) and all(f.strip().isdigit() for f in r) for r in rows), log.name)
        self.assertEqual(found["ioplan"], found["fio"])
        self.assertIn("randread-iodepth-4-numjobs-2_clat.2.log", found["ioplan"])

    def test_keys_fio_plot_reads(self):
        self.write("job.fio", self.JOB)
        out = self.tmp / "randread-4-2.json"
        p = run_as_fio(["--output-format=json", f"--output={out}", str(self.tmp / "job.fio")])
        self.assertEqual((p.returncode, p.stderr), (0, ""))
        doc = json.loads(out.read_text())
        self.assertIn("fio-3", doc["fio version"])
        for job in doc["jobs"]:
            opts = {**job["job options"], **doc.get("global options", {})}
            self.assertEqual([opts[k] for k in ("iodepth", "numjobs", "bs", "rw")], ["4", "2", "4k", "randread"])
            self.assertTrue(is_whole(job["read"]["bw"]))
            for key in ("iops", "iops_stddev"):
                self.assertIsInstance(job["read"][key], float)
            for key in ("mean", "stddev"):
                self.assertIsInstance(job["read"]["lat_ns"][key], float)
            for key in ("latency_ms", "latency_us", "latency_ns"):
                self.assertTrue(all(isinstance(v, float) for v in job[key].values()), key)
            self.assertIsInstance(job["usr_cpu"], float)
            self.assertIsInstance(job["sys_cpu"], float)


    def test_aliases_read_under_fio_s_names(self):
        # A job file written with fio's aliases: fio records rw, bs, ... by their names.
        self.write("job.fio", "[global]\nreadwrite=randread\nblocksize=4k\n"
                   "[FIOJOB]\nioengine=null\nio_limit=4m\nsize=4m\niodepth=4\nnumjobs=2\n")
        out = self.tmp / "randread-4-2.json"
        p = run_as_fio(["--output-format=json", f"--output={out}", str(self.tmp / "job.fio")])
        self.assertEqual((p.returncode, p.stderr), (0, ""))
        doc = json.loads(out.read_text())
        for job in doc["jobs"]:
            opts = {**job["job options"], **doc.get("global options", {})}
            self.assertEqual([opts.get(k) for k in ("iodepth", "numjobs", "bs", "rw", "io_size")],
                             ["4", "2", "4k", "randread", "4m"])


    def test_existing_target_file(self):
        # bench-fio --type file checks that the target is an existing file and names it in filename=.
        target = self.write("target.bin", "")
        with open(target, "wb") as f:
            f.write(os.urandom(1 << 20) * 4)
        self.write("job.fio", "[FIOJOB]\nfilename=" + str(target) + "\nioengine=libaio\ndirect=1\n"
                   "size=4m\nrw=randwrite\niodepth=4\nnumjobs=1\nbs=4k\nruntime=60\n")
        p = run_as_fio(["--output-format=json", str(self.tmp / "job.fio")])
        self.assertEqual((p.returncode, p.stderr), (0, ""))
        self.assertEqual(json.loads(p.stdout)["jobs"][0]["write"]["io_bytes"], 4 << 20)


class Btrace2fio(TmpDirCase):
    # fio-btrace2fio's jobs name the file or device given with -d, which already exists.
    def test_jobs_on_an_existing_file(self):
        target = self.write("replay.img", "")
        with open(target, "wb") as f:
            f.write(os.urandom(1 << 20) * 2)
        self.write("job.fio", "[8450.0]\ndirect=1\nioengine=libaio\niodepth=4\nfilename=" + str(target) +
                   "\nrw=randrw\nrwmixread=50\nbssplit=4096/50:8192/50,4096/100\nsize=2m\n")
        p = run_as_fio(["--output-format=json", str(self.tmp / "job.fio")])
        self.assertEqual((p.returncode, p.stderr), (0, ""))
        job = json.loads(p.stdout)["jobs"][0]
        self.assertEqual(job["error"], 0)
        self.assertGreater(job["write"]["io_bytes"], 0)
        # Reading a file that is not ioplan's is never refused, whoever runs it.
        p = run(["--name=r", f"--filename={target}", "--rw=randread", "--size=2m", "--output-format=json"])
        self.assertEqual((p.returncode, p.stderr), (0, ""))


@unittest.skipUnless(shutil.which("fio"), "fio is not installed")
class Genfio(TmpDirCase):
    # genfio -B CMD -A CMD writes exec_prerun=CMD and exec_postrun=CMD into the [global] of
    # its stonewalled jobs.  fio says where each command's output goes, for each clone, as
    # the command runs.  thread=1: fio's job processes repeat the lines still in their
    # stdio buffer when stdout is a pipe.
    JOB = ("[global]\nioengine=null\nsize=1m\nthread=1\nexec_prerun=echo before\nexec_postrun=echo after\n"
           "[write-a]\nstonewall\nrw=write\nnumjobs=2\n[read-a]\nstonewall\nrw=read\n")

    def test_where_the_commands_output_goes(self):
        said = {}
        for who, tool in (("fio", run_fio_direct), ("ioplan", run_as_fio)):
            d = self.tmp / who
            d.mkdir()
            (d / "job.fio").write_text(self.JOB)
            p = tool(["job.fio"], cwd=d)
            self.assertEqual((p.returncode, p.stderr), (0, ""), who)
            said[who] = [line for line in p.stdout.splitlines() if "Saving output" in line]
            self.assertEqual((d / "read-a.postrun.txt").read_text(), "after\n")
        line = "{} : Saving output of {} in {}.{}.txt"
        self.assertEqual(said["ioplan"], [line.format("write-a", "prerun", "write-a", "prerun")] * 2 +
                         [line.format("write-a", "postrun", "write-a", "postrun")] * 2 +
                         [line.format("read-a", m, "read-a", m) for m in ("prerun", "postrun")])
        # fio's clones run at once: its order within a group is the threads'.
        self.assertEqual(sorted(said["ioplan"]), sorted(said["fio"]))


class Phoronix(TmpDirCase):
    # The Phoronix Test Suite's fio profiles write a job file with disk_util=0 (and
    # the latency switches off), run `fio test.fio` and read IOPS= and BW= from
    # the normal output.  Made small and short here.
    JOB = ("[global]\nrw={rw}\nioengine=psync\niodepth=64\nsize=2m\ndirect=0\nbuffered=1\n"
           "startdelay=0\nramp_time=100ms\nruntime=300ms\ntime_based\ndisk_util=0\n"
           "clat_percentiles=0\ndisable_lat=1\ndisable_clat=1\ndisable_slat=1\nfilename={dir}/fiofile\n"
           "[test]\nname=test\nbs=4k\nstonewall\n")

    def test_every_configuration_gets_its_result(self):
        for rw in ("randread", "randwrite", "read", "write"):
            with self.subTest(rw=rw):
                job = self.write(f"test-{rw}.fio", self.JOB.format(rw=rw, dir=self.tmp))
                p = run_as_fio([str(job)])
                self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
                direction = "read" if "read" in rw else "write"
                self.assertRegex(p.stdout, rf"\n  {direction}: IOPS=[\d.]+k?, BW=[\d.]+[KMG]iB/s")
                self.assertNotIn("Disk stats", p.stdout)


class Kubestr(TmpDirCase):
    # kubestr's default job file, made small and short; it runs `fio --directory D JOB --output-format=json`.
    JOB = ("[global]\nrandrepeat=0\nverify=0\nioengine=libaio\ndirect={direct}\ngtod_reduce=1\n" +
           "".join(f"[job{i}]\nname={n}\nbs={bs}\niodepth=64\nsize=8M\nreadwrite={rw}\ntime_based\n"
                   "ramp_time=100ms\nruntime=300ms\n"
                   for i, (n, bs, rw) in enumerate((("read_iops", "4K", "randread"),
                                                    ("write_iops", "4K", "randwrite"),
                                                    ("read_bw", "128K", "randread"),
                                                    ("write_bw", "128k", "randwrite")), 1)))

    def test_stderr_is_empty_and_types_are_fio_s(self):
        for direct in (1, 0):  # buffered reads add a page-cache warning: into the report
            with self.subTest(direct=direct):
                self.write("job.fio", self.JOB.format(direct=direct))
                p = run_as_fio(["--directory", str(self.tmp), str(self.tmp / "job.fio"), "--output-format=json"])
                self.assertEqual((p.returncode, p.stderr), (0, ""))
                doc = json.loads(p.stdout)
                for job in doc["jobs"]:
                    for key in ("groupid", "error", "eta", "elapsed", "job_runtime", "ctx", "majf", "minf"):
                        self.assertTrue(is_whole(job[key]), key)
                    for key in ("bw", "bw_bytes", "iops_min", "iops_max", "runtime", "total_ios"):
                        self.assertTrue(is_whole(job["read"][key]), key)
                    self.assertIsInstance(job["read"]["iops"], float)
                    # fio records readwrite= as "rw", which kubestr prints for each job.
                    self.assertIn(job["job options"]["rw"], ("randread", "randwrite"))
                if not direct:
                    warnings = doc["ioplan"]["warnings"]
                    self.assertTrue(any("page cache" in w for w in warnings), warnings)


class Quiet(TmpDirCase):
    def test_buffered_run_warns_in_the_report_not_on_stderr(self):
        args = ["--name=r", f"--directory={self.tmp}", "--size=1m", "--rw=read", "--number_ios=8"]
        p = run(args)
        self.assertEqual((p.returncode, p.stderr), (0, ""))
        self.assertRegex(p.stdout, r"\nioplan: warning: buffered reads")

    def test_shadowed_option_note_goes_into_the_report(self):
        self.write("a.fio", "[a]\nioengine=null\nsize=1m\nbs=8k\n")
        p = run(["--bs=16k", str(self.tmp / "a.fio"), "--output-format=json"])
        self.assertEqual((p.returncode, p.stderr), (0, ""))
        notes = notes_of(json.loads(p.stdout))
        self.assertIn(f"{self.tmp / 'a.fio'}:4:1: --bs=16k is overridden by bs=8k in the job file "
                      "(command-line options are defaults for the first job file)", notes)

    def test_diskspd_layouts_keep_warnings_on_stderr(self):
        # DISKSPD's text has no place for ioplan's findings: there stderr still carries them.
        # -W0: without it DISKSPD's 5 s warm-up comes first, a core spun on the page cache.
        p = run(["diskspd", "-c1M", "-d1", "-W0", "-b4K", str(self.tmp / "ds.dat")])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("ioplan: warning: buffered reads", p.stderr)

    def test_errors_still_go_to_stderr(self):
        (self.tmp / "plain").write_text("")   # a directory beneath a file cannot be made
        p = run(["--name=w", f"--directory={self.tmp}/plain/sub", "--size=1m", "--rw=write"])
        self.assertEqual(p.returncode, 2)
        self.assertIn("error", p.stderr)


class NegativeSize(TmpDirCase):
    def test_absolute_value_with_a_note(self):
        p = run(["--name=j", "--ioengine=null", "--size=-4m", "--output-format=json"])
        self.assertEqual((p.returncode, p.stderr), (0, ""))
        doc = json.loads(p.stdout)
        self.assertEqual(doc["jobs"][0]["read"]["io_bytes"], 4 << 20)
        self.assertEqual(doc["jobs"][0]["job options"]["size"], "-4m")  # as the user wrote it
        self.assertTrue(any("size=-4m is read as 4m" in n for n in notes_of(doc)), doc["ioplan"])

    def test_other_negative_values_are_still_errors(self):
        p = run(["--name=j", "--ioengine=null", "--size=1m", "--offset=-4k"])
        self.assertEqual(p.returncode, 2)
        self.assertIn("error: bad value for offset: negative value", p.stderr)


@unittest.skipUnless(shutil.which("fio_jsonplus_clat2csv"), "fio_jsonplus_clat2csv is not installed")
class JsonplusClat2csv(TmpDirCase):
    def test_csv_from_ioplan_json_plus(self):
        p = run(["--name=j", "--ioengine=null", "--size=4m", "--rw=randrw", "--output-format=json+"])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.write("in.json", p.stdout)
        subprocess.run(["fio_jsonplus_clat2csv", "in.json", "out.csv"], cwd=self.tmp, check=True,
                       capture_output=True, timeout=60)
        rows = (self.tmp / "out_job0.csv").read_text().splitlines()
        self.assertTrue(rows[0].startswith("nsec, read_slat_ns_count"), rows[0])
        total = {"read": 0, "write": 0}
        for row in rows[1:]:
            cells = [c.strip() for c in row.split(",")]
            for d, col in (("read", 4), ("write", 13)):  # *_clat_ns_count
                total[d] += int(cells[col]) if cells[col] else 0
        doc = json.loads(p.stdout)["jobs"][0]
        self.assertEqual(total, {d: doc[d]["clat_ns"]["N"] for d in total})


if __name__ == "__main__":
    unittest.main()
