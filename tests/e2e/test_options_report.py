"""tests/e2e/test_options_report.py - fio 3.33's reporting and miscellaneous job
options (significant_figures, unit_base, stats, disable_bw_measurement,
block_error_percentiles, file_append, opendir and the line fio prints of it) and
zonesize's refusal, each
checked against fio 3.33's behaviour on the same job.
"""
import json
import os
import re
import unittest

from common import FIO, TmpDirCase, fio_openings, run, run_as_fio, run_fio


class ZoneMode(TmpDirCase):
    """fio 3.33 refuses zonesize= unless zonemode=strided, and strided without zonesize=."""
    CASES = [
        ("zonesize=64k\n", 2),
        ("zonemode=none\nzonesize=64k\n", 2),
        ("zonesize=64k\nzonerange=128k\n", 2),
        ("zonemode=strided\n", 2),
        ("zonemode=strided\nzonesize=64k\n", 0),
    ]

    def go(self, runner, extra):
        self.write("z.fio", "[z]\nioengine=null\nsize=1m\n" + extra)
        return runner(["--output-format=json", "z.fio"], cwd=self.tmp)

    def test_refused_as_fio(self):
        for extra, rc in self.CASES:
            p = self.go(run, extra)
            self.assertEqual(p.returncode, rc, extra + p.stderr)
        self.assertEqual(self.go(run, "zonesize=64k\n").stderr.splitlines()[0],
                         "z.fio:4:10: error: job 'z': zonesize= needs zonemode=strided "
                         "(fio: \"--zonemode=none and --zonesize are not compatible\")")
        self.assertEqual(self.go(run, "zonemode=strided\n").stderr.splitlines()[0],
                         "z.fio:4:10: error: job 'z': zonemode=strided needs a zonesize=")

    @unittest.skipUnless(FIO, "fio is not installed")
    def test_fio_refuses_the_same(self):
        for extra, rc in self.CASES:
            p = self.go(run_fio, extra)
            self.assertEqual(p.returncode != 0, rc != 0, extra + p.stderr)


NULL_JOB = "[x]\nioengine=null\nsize=10m\nbs=4k\n{extra}"


def io_fields(normal):
    """The banner's block sizes and every io=... field: what significant_figures and kb_base decide."""
    bs = re.findall(r"bs=\(R\) (\S+), \(W\) (\S+), \(T\) (\S+),", normal)
    io = re.findall(r"\)\(([^()/]+)/\d+msec\)", normal)
    for pair in re.findall(r"io=(\S+) \((\S+)\)", normal):
        io.extend(pair)
    return bs, io


def bw_units(normal):
    return re.findall(r"BW=[\d.]+(\w+/s) \([\d.]+(\w+/s)\)", normal) + \
        re.findall(r"bw=[\d.]+(\w+/s) \([\d.]+(\w+/s)\)", normal)


class Reporting(TmpDirCase):
    def normal(self, runner, extra, name="r.fio"):
        self.write(name, NULL_JOB.format(extra=extra))
        p = runner([name], cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        return p.stdout

    def test_significant_figures_shape_sizes(self):
        self.assertEqual(io_fields(self.normal(run, "")),
                         ([("4096B-4096B", "4096B-4096B", "4096B-4096B")],
                          ["10.0MiB", "10.0MiB", "10.5MB"]))
        self.assertEqual(io_fields(self.normal(run, "significant_figures=2\n")),
                         ([("4KiB-4KiB", "4KiB-4KiB", "4KiB-4KiB")], ["10MiB", "10MiB", "10MB"]))
        self.assertEqual(io_fields(self.normal(run, "significant_figures=6\n"))[1],
                         ["10240KiB", "10240KiB", "10486kB"])

    @unittest.skipUnless(FIO, "fio is not installed")
    def test_significant_figures_as_fio(self):
        for sf in ("1", "2", "3", "6", "10"):
            extra = "significant_figures=%s\n" % sf
            self.assertEqual(io_fields(self.normal(run, extra)), io_fields(self.normal(run_fio, extra)), sf)

    def test_unit_base(self):
        # rate=64m fixes the scale (64 MiB/s, 512 Mibit/s) on any machine that can
        # move 1 MiB/s; left to the null engine's speed it was GiB/s on an idle
        # machine and MiB/s on a loaded one.
        self.assertEqual({u for pair in bw_units(self.normal(run, "unit_base=1\nrate=64m\n")) for u in pair},
                         {"Mibit/s", "Mbit/s"})
        for extra in ("", "unit_base=8\n", "unit_base=0\n"):
            self.assertEqual({u for pair in bw_units(self.normal(run, extra + "rate=64m\n")) for u in pair},
                             {"MiB/s", "MB/s"})

    @unittest.skipUnless(FIO, "fio is not installed")
    def test_unit_base_as_fio(self):
        for extra in ("unit_base=1\nrate=64m\n", "unit_base=8\nrate=64m\n"):
            mine = {u[0][-5:] for u in bw_units(self.normal(run, extra))}
            theirs = {u[0][-5:] for u in bw_units(self.normal(run_fio, extra))}
            self.assertEqual(mine, theirs, extra)

    # Two groups, each of a job with the default units and one with its own: fio 3.33
    # prints a job's BW= in the group's kb_base (its last job's) but the job's own
    # unit_base; ioplan took the group's unit_base too, so job a said Mbit/s and job c MB/s.
    MIXED_UNITS = ("[global]\nioengine=null\nsize=10m\nrate=64m\n"
                   "[a]\nrw=read\n[b]\nrw=write\nkb_base=1000\nunit_base=1\n"
                   "[c]\nstonewall\nrw=read\nunit_base=1\n[d]\nrw=read\nkb_base=1000\n")

    def headline_units(self, runner):
        self.write("u.fio", self.MIXED_UNITS)
        p = runner(["u.fio"], cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        return re.findall(r"^(\w+): \(groupid=\d+.*\n(?:  .*\n)*?  (?:read|write): IOPS=\S+, "
                          r"BW=[\d.]+(\w+/s) \([\d.]+(\w+/s)\)", p.stdout, re.M)

    def test_a_jobs_headline_takes_its_own_unit_base(self):
        self.assertEqual(self.headline_units(run), [("a", "MB/s", "MiB/s"), ("b", "Mbit/s", "Mibit/s"),
                                                    ("c", "Mbit/s", "Mibit/s"), ("d", "MB/s", "MiB/s")])

    @unittest.skipUnless(FIO, "fio is not installed")
    def test_a_jobs_headline_units_as_fio(self):
        self.assertEqual(self.headline_units(run_as_fio), self.headline_units(run_fio))

    # group_reporting merging jobs of other bases: fio 3.33 says so (log_info) ahead of
    # each format's report, kb_base's first, unit_base's once (its resolved value, 4 bytes,
    # 5 bits); ioplan run as fio said nothing.
    BASES = ("[global]\nioengine=null\nsize=1m\nnumber_ios=10\ngroup_reporting\n"
             "[a]\nrw=read\n[b]\nrw=write\nkb_base=1000\n[c]\nrw=write\nunit_base=1\n")
    BASE_NOTES = ["fio: kb_base differs for jobs in group, using 1024 as the base",
                  "fio: unit_base differs for jobs in group, using 4 as the base"]

    def base_notes(self, runner, fmt):
        self.write("g.fio", self.BASES)
        p = runner(["g.fio", "--output-format=" + fmt], cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        lines = p.stdout.splitlines()
        return [(i, s) for i, s in enumerate(lines) if "differs" in s]

    def test_jobs_of_other_bases_merged_are_said_as_fio(self):
        normal = self.base_notes(run_as_fio, "normal")
        self.assertEqual([s for _, s in normal], self.BASE_NOTES)
        # After the opening (3 banners, the version, Starting), before the report.
        self.assertEqual([i for i, _ in normal], [5, 6])
        self.assertEqual(self.base_notes(run_as_fio, "json"), list(enumerate(self.BASE_NOTES)))
        self.assertEqual(self.base_notes(run, "normal"), [])

    @unittest.skipUnless(FIO, "fio is not installed")
    def test_jobs_of_other_bases_merged_fio_says_the_same(self):
        for fmt in ("normal", "json", "terse", "normal,json"):
            self.assertEqual(self.base_notes(run_as_fio, fmt), self.base_notes(run_fio, fmt), fmt)

    @unittest.skipUnless(FIO, "fio is not installed")
    def test_bw_sample_line_units_as_fio(self):
        # The "bw (  KiB/s)" line of the per-second samples: fio 3.33 labels them kB/s under
        # kb_base=1000, but MiB/s once their mean passes kb_base squared, whatever kb_base
        # (and never bits: its unit_base test there never holds); ioplan said MB/s.  rate=
        # fixes the mean (2 GB/s, 2 MiB/s) on any machine: bs=1m null I/Os, 2000 a second.
        for extra in ("kb_base=1000\nrate=2000m\n", "rate=2000m\n", "kb_base=1000\nrate=2m\n",
                      "kb_base=1000\nunit_base=1\nrate=2000m\n"):
            job = "bs=1m\nsize=100g\ntime_based\nruntime=1200ms\n" + extra
            mine = re.findall(r"   bw \( *(\S+)\)", self.normal(run_as_fio, job))
            theirs = re.findall(r"   bw \( *(\S+)\)", self.normal(run_fio, job))
            self.assertTrue(theirs, extra)
            self.assertEqual(mine, theirs, extra)

    @unittest.skipUnless(FIO, "fio is not installed")
    def test_a_percentile_list_past_20_runs_with_its_first_20_as_fios(self):
        # fio 3.33 runs a longer list with its first 20 (saying "the list exceeding max
        # length 20" once per extra entry); ioplan refused the job file (exit 2).
        pct = ":".join(str(n) for n in range(1, 26))
        args = ["--name=p", "--ioengine=null", "--size=1m", f"--percentile_list={pct}", "--output-format=json"]
        keys = []
        for runner in (run, run_fio):
            p = runner(args, cwd=self.tmp)
            self.assertEqual(p.returncode, 0, p.stderr)
            keys.append(list(json.loads(p.stdout[p.stdout.index("{"):])["jobs"][0]["read"]["clat_ns"]["percentile"]))
        self.assertEqual(keys[0], keys[1])
        self.assertEqual(len(keys[0]), 20)
        self.assertIn(f"percentile_list={pct}: it has 25 entries; the first 20 are reported",
                      run(args[:-1], cwd=self.tmp).stdout)
        # A bad value past the 20th is still an error.
        p = run(["--name=p", "--ioengine=null", "--size=1m", f"--percentile_list={pct}:101", "--parse-only"])
        self.assertEqual(p.returncode, 2)
        self.assertIn("percentile 101 is not within (0, 100]", p.stderr)

    def test_bad_values_are_positioned_errors(self):
        for line, want in [("significant_figures=0", "r.fio:5:21: error: significant_figures=0 is out of range (1..10)"),
                           ("significant_figures=11", None), ("unit_base=3", None), ("stats=maybe", None)]:
            self.write("r.fio", NULL_JOB.format(extra=line + "\n"))
            p = run(["--parse-only", "r.fio"], cwd=self.tmp)
            self.assertEqual(p.returncode, 2, line)
            first = p.stderr.splitlines()[0]
            self.assertTrue(first.startswith("r.fio:5:"), first)
            if want:
                self.assertEqual(first, want)


STATS_JOB = "[a]\nioengine=null\nsize=1m\nstats=0\n[b]\nioengine=null\nsize=2m\n"


class Stats(TmpDirCase):
    def go(self, runner, fmt):
        self.write("s.fio", STATS_JOB)
        p = runner(["--output-format=" + fmt, "s.fio"], cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        return p.stdout

    def test_stats_0_leaves_the_job_out_of_every_report(self):
        d = json.loads(self.go(run, "json"))
        self.assertEqual([(j["jobname"], j["read"]["io_bytes"]) for j in d["jobs"]], [("b", 2 << 20)])
        normal = self.go(run, "normal")
        self.assertNotIn("a: (groupid", normal)
        self.assertIn("io=2048KiB (2097kB)", normal)  # the group's total is b's alone
        self.assertEqual([line.split(";")[2] for line in self.go(run, "terse").splitlines()], ["b"])

    @unittest.skipUnless(FIO, "fio is not installed")
    def test_as_fio(self):
        # fio also prints an empty, nameless entry for the job (its stat slot, never filled).
        mine, theirs = json.loads(self.go(run, "json")), json.loads(self.go(run_fio, "json"))
        named = [(j["jobname"], j["read"]["io_bytes"]) for j in theirs["jobs"] if "jobname" in j]
        self.assertEqual([(j["jobname"], j["read"]["io_bytes"]) for j in mine["jobs"]], named)
        self.assertEqual(re.findall(r"io=\S+ \(\S+\)", self.go(run, "normal")),
                         re.findall(r"io=\S+ \(\S+\)", self.go(run_fio, "normal")))


class GtodReduce(TmpDirCase):
    """fio's gtod_reduce=1 turns the percentiles off with the latencies; an option after it
    that measures one latency again (disable_clat=0) brings back the latency alone."""
    CASES = [("gtod_reduce=1\ndisable_clat=0\n", (16, False)),
             ("gtod_reduce=1\ndisable_clat=0\nclat_percentiles=1\n", (16, True)),
             ("disable_clat=0\ngtod_reduce=1\n", (0, False))]

    def clat(self, runner, extra):
        self.write("g.fio", "[g]\nioengine=null\nsize=64k\n" + extra)
        p = runner(["--output-format=json", "g.fio"], cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        c = json.loads(p.stdout[p.stdout.index("{"):])["jobs"][0]["read"]["clat_ns"]
        return c["N"], "percentile" in c

    def test_percentiles_stay_off(self):
        # ioplan printed the clat percentiles of the first case.
        for extra, want in self.CASES:
            self.assertEqual(self.clat(run, extra), want, extra)

    @unittest.skipUnless(FIO, "fio is not installed")
    def test_as_fio(self):
        for extra, want in self.CASES:
            self.assertEqual(self.clat(run_fio, extra), want, extra)


class BwMeasurement(TmpDirCase):
    def lines(self, runner, extra):
        log = self.tmp / "d_bw.1.log"
        if log.exists():
            log.unlink()
        p = runner(["--name=x", "--ioengine=null", "--size=1m", "--write_bw_log=d", "--disable_bw_measurement=1",
                    *extra], cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        return len(log.read_text().splitlines())

    def test_no_per_io_bw_entries_but_averaged_ones(self):
        self.assertEqual(self.lines(run, []), 0)
        # 1 s at the rate: ten 100 ms averages, of which a busy machine may lose a few.
        self.assertGreater(self.lines(run, ["--log_avg_msec=100", "--rate=1m"]), 2)
        p = run(["--name=x", "--ioengine=null", "--size=1m", "--write_bw_log=d"], cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(len((self.tmp / "d_bw.1.log").read_text().splitlines()), 256)  # not by accident

    @unittest.skipUnless(FIO, "fio is not installed")
    def test_as_fio(self):
        self.assertEqual(self.lines(run_fio, []), 0)
        self.assertGreater(self.lines(run_fio, ["--log_avg_msec=100", "--rate=1m"]), 2)


class BlockErrors(TmpDirCase):
    SECTION = ("  block lifetime percentiles :\n   |        states               : unwritten=0, trimmed=0, "
               "written=0, trim failure=0, write failure=0\n")

    def go(self, runner, extra=""):
        self.write("b.fio", "[b]\nioengine=null\nsize=1m\nblock_error_percentiles=1\n" + extra)
        return runner(["b.fio"], cwd=self.tmp)

    def test_section_as_fio_prints_it_without_trims(self):
        p = self.go(run)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("depth=1\n" + self.SECTION, p.stdout)
        if FIO:
            self.assertIn(self.SECTION, self.go(run_fio).stdout)

    def test_more_than_one_file_is_refused_as_fio(self):
        p = self.go(run, "nrfiles=2\nfilesize=512k\n")
        self.assertEqual(p.returncode, 2)
        self.assertIn("block_error_percentiles needs a single file per job, not 2", p.stderr)
        if FIO:
            self.assertNotEqual(self.go(run_fio, "nrfiles=2\nfilesize=512k\n").returncode, 0)


class OpenDir(TmpDirCase):
    def tree(self):
        (self.tmp / "od" / "sub").mkdir(parents=True)
        for name, size in (("a", 65536), ("sub/b", 131072), ("c", 4096)):
            (self.tmp / "od" / name).write_bytes(os.urandom(size))

    def read_all(self, runner):
        p = runner(["--name=x", "--opendir=od", "--rw=read", "--bs=4k", "--output-format=json"], cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        # fio prints "fio: opendir added 3 files" before its JSON.
        return json.loads(p.stdout[p.stdout.index("{"):])["jobs"][0]["read"]["io_bytes"]

    def test_every_file_below_is_read_as_fio(self):
        self.tree()
        self.assertEqual(self.read_all(run), 65536 + 131072 + 4096)
        if FIO:
            self.assertEqual(self.read_all(run_fio), 65536 + 131072 + 4096)

    def test_links_are_not_followed_and_empty_files_run_past_as_fio(self):
        # ioplan read b again through the link (and a directory link's files), and failed
        # the whole job on the empty file ("region beyond the end of the file").
        self.tree()
        (self.tmp / "od" / "link").symlink_to("sub/b")
        (self.tmp / "od" / "dirlink").symlink_to("sub")
        (self.tmp / "od" / "empty").touch()
        self.assertEqual(self.read_all(run), 65536 + 131072 + 4096)
        if FIO:
            self.assertEqual(self.read_all(run_fio), 65536 + 131072 + 4096)

    def test_writes_keep_the_safety_rules(self):
        self.tree()
        before = (self.tmp / "od" / "a").read_bytes()
        p = run(["--name=x", "--opendir=od", "--rw=write", "--bs=4k"], cwd=self.tmp)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("od/a: refusing to write into an existing file ioplan did not create", p.stderr)
        self.assertEqual((self.tmp / "od" / "a").read_bytes(), before)

    def test_a_missing_directory_is_a_positioned_error(self):
        self.write("o.fio", "[o]\nopendir=nowhere\nrw=read\n")
        p = run(["--parse-only", "o.fio"], cwd=self.tmp)
        self.assertEqual(p.returncode, 2)
        self.assertTrue(p.stderr.startswith("o.fio:2:9: error: opendir=nowhere"), p.stderr)
        self.assertIn("No such file or directory", p.stderr.splitlines()[0])

    def test_an_empty_directory_or_nrfiles_0_gives_the_job_no_file_as_fio(self):
        # fio's opendir= starts the job's count of files at none, so an empty directory
        # leaves it none, as nrfiles=0 does: with size= the job runs and moves nothing
        # (exit 0, no report block of its own), without it fails, "you need to specify
        # size=" (err=22, exit 1).  ioplan refused both ("holds no regular file", "nrfiles=0
        # is out of range", exit 2).  filename= still adds its file.
        (self.tmp / "empty").mkdir()
        cases = [(["--opendir=empty", "--size=1m"], 0, 0, 0), (["--nrfiles=0", "--size=1m", "--numjobs=2"], 0, 0, 0),
                 (["--opendir=empty"], 1, 22, 0), (["--nrfiles=0", "--filename=f", "--size=64k"], 0, 0, 16)]
        for extra, rc, err, ios in cases:
            for who, runner in (("ioplan", run), ("fio", run_fio)) if FIO else (("ioplan", run),):
                with self.subTest(extra=extra, who=who):
                    out = self.tmp / "o.json"
                    p = runner(["--name=o", "--rw=read", *extra, "--output-format=json", f"--output={out}"],
                               cwd=self.tmp)
                    text = out.read_text()
                    doc, _ = json.JSONDecoder().raw_decode(text[text.index("{"):])
                    got = [(j["error"], j["read"]["total_ios"]) for j in doc["jobs"]]
                    self.assertEqual((p.returncode, got[0]), (rc, (err, ios)), p.stderr)
                    if who == "ioplan":
                        normal = run(["--name=o", "--rw=read", *extra], cwd=self.tmp).stdout
                        self.assertEqual("o: (groupid=0" in normal, bool(ios or err), normal)
                    (self.tmp / "f").unlink(missing_ok=True)


class OpenDirLine(TmpDirCase):
    """fio prints "fio: opendir added N files" as it reads each section whose opendir= it
    applies (filesetup.c add_dir_files, through log_info onto its output: stdout, or the
    --output file once fio has opened it).  Run as fio, ioplan prints it in the same
    place; as ioplan it is a note of the report, so a JSON stdout stays one document.
    The old build printed it nowhere."""

    JOB = ("[global]\nopendir=od\nrw=read\nbs=4k\n"
           "[a]\nnumjobs=2\n[b]\nopendir=od2\n[c]\nfilename=od2/d\nopendir=od\n")
    # The job's files so far, then the found ones, empty files counted (fio lists them).
    SAID = ["fio: opendir added 4 files", "fio: opendir added 5 files", "fio: opendir added 8 files"]
    NORMAL = [SAID[0], "a: (g=0)", "...", SAID[1], "b: (g=0)", SAID[2], "c: (g=0)"]
    CASES = [
        # (arguments, what stdout opens with, what the --output file o.txt opens with)
        (["g.fio"], NORMAL, None),
        (["g.fio", "--output-format=json"], SAID + ["{"], None),
        (["g.fio", "--output-format=terse"], SAID + ["3;fio-3.33;a"], None),
        (["g.fio", "--section=b", "--output-format=json"], SAID[:2] + ["{"], None),
        (["g.fio", "--output=o.txt", "--output-format=json"], [], SAID + ["{"]),
        (["g.fio", "--output=o.txt"], [], NORMAL),
        (["g.fio", "--parse-only"], [], None),
        # fio opens --output where it reads it: a command-line job before it is said on stdout.
        # (--output-format first: fio prints the banner line of a command-line job it has read
        # before it reads a later --output-format=json.)
        (["--output-format=json", "--name=x", "--opendir=od", "--output=o.txt", "--name=y", "--opendir=od2"],
         [SAID[0]], ["fio: opendir added 1 files", "{"]),
        (["--output=o.txt", "--name=x", "--opendir=od", "--name=y", "--opendir=od2"],
         [], [SAID[0], "x: (g=0)", "fio: opendir added 1 files", "y: (g=0)"]),
        (["--opendir=od2", "--name=x", "--output-format=normal,terse"],
         ["fio: opendir added 1 files", "x: (g=0)", "3;fio-3.33;x"], None),
    ]

    def setUp(self):
        super().setUp()
        (self.tmp / "od" / "sub").mkdir(parents=True)
        for name, size in (("a", 65536), ("sub/b", 8192), ("c", 4096), ("empty", 0)):
            (self.tmp / "od" / name).write_bytes(os.urandom(size))
        (self.tmp / "od" / "link").symlink_to("a")
        (self.tmp / "od2").mkdir()
        (self.tmp / "od2" / "d").write_bytes(os.urandom(4096))
        self.write("g.fio", self.JOB)

    def said(self, runner, args):
        return fio_openings(self, runner, args, r"fio: opendir")

    def test_said_where_fio_says_it(self):
        for args, stdout, file in self.CASES:
            with self.subTest(args=args):
                self.assertEqual(self.said(run_as_fio, args), (stdout, file))
                if FIO:
                    self.assertEqual(self.said(run_fio, args), (stdout, file))

    def test_a_note_of_the_report_as_ioplan(self):
        p = run(["g.fio", "--output-format=json"], cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        texts = [m["text"] for m in json.loads(p.stdout)["ioplan"]["messages"]]
        self.assertEqual([t for t in texts if "opendir" in t],
                         ["g.fio:2:1: opendir added 4 files", "g.fio:8:1: opendir added 5 files",
                          "g.fio:11:1: opendir added 8 files"])
        self.assertNotIn("opendir", p.stderr)


class FileAppend(TmpDirCase):
    def go(self, runner, *extra):
        return runner(["--name=x", "--filename=fa.dat", "--rw=write", "--size=32k", "--bs=4k", "--file_append=1",
                       "--output-format=json", *extra], cwd=self.tmp)

    def test_writes_go_after_the_end_and_keep_what_was_there(self):
        old = os.urandom(65536)
        for runner, extra in ((run, ["--allow_existing_file_write=1"]), (run_fio, [])):
            if runner is run_fio and not FIO:
                continue
            (self.tmp / "fa.dat").write_bytes(old)
            p = self.go(runner, *extra)
            self.assertEqual(p.returncode, 0, p.stderr)
            data = (self.tmp / "fa.dat").read_bytes()
            self.assertEqual(len(data), 65536 + 32768, runner)
            self.assertEqual(data[:65536], old, runner)

    def test_a_writing_job_grows_a_file_the_layout_does_not_size(self):
        # fallocate=none and keep leave the file as it is: the job's writes extend it,
        # as fio's.  ioplan refused the region past its end ("region beyond the end
        # of the file", EINVAL) and wrote nothing.
        old = os.urandom(65536)
        for fallocate in ("none", "keep"):
            for runner, extra in ((run, ["--allow_existing_file_write=1"]), (run_fio, [])):
                if runner is run_fio and not FIO:
                    continue
                with self.subTest(fallocate=fallocate, runner=runner.__name__):
                    (self.tmp / "fa.dat").write_bytes(old)
                    p = self.go(runner, f"--fallocate={fallocate}", *extra)
                    self.assertEqual(p.returncode, 0, p.stderr)
                    data = (self.tmp / "fa.dat").read_bytes()
                    self.assertEqual((len(data), data[:65536] == old), (65536 + 32768, True))
        # So does a writing job's offset= past the end of the empty file the layout makes.
        for runner in (run, run_fio) if FIO else (run,):
            (self.tmp / "fa.dat").unlink()
            p = runner(["--name=x", "--filename=fa.dat", "--rw=write", "--bs=4k", "--offset=1m", "--size=64k",
                        "--fallocate=none", "--output-format=json"], cwd=self.tmp)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual((self.tmp / "fa.dat").stat().st_size, (1 << 20) + 65536, runner.__name__)

    def test_a_new_file_starts_at_0(self):
        p = self.go(run)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual((self.tmp / "fa.dat").stat().st_size, 32768)

    def test_a_file_ioplan_did_not_create_is_still_refused(self):
        old = os.urandom(65536)
        (self.tmp / "fa.dat").write_bytes(old)
        p = self.go(run)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("refusing to write into an existing file", p.stderr)
        self.assertEqual((self.tmp / "fa.dat").read_bytes(), old)


if __name__ == "__main__":
    unittest.main()


class CsvHeader(TmpDirCase):
    """--output-format=csv is terse under a header row naming every field (as ioplan);
    run as fio it stays fio 3.33's bare terse line."""

    def test_header_names_each_field_of_the_lines(self):
        self.write("j.fio", "[a]\nfilename=a.dat\nsize=1m\nrw=randrw\ncontinue_on_error=1\n"
                            "[b]\nioengine=null\nsize=1m\nrw=read\ndescription=second job\n")
        for ver in ("3", "5"):
            p = run(["--output-format=csv", f"--terse-version={ver}", "j.fio"], cwd=self.tmp)
            self.assertEqual(p.returncode, 0, p.stderr)
            lines = p.stdout.splitlines()
            self.assertEqual(len(lines), 3, p.stdout)
            head, first = lines[0].split(";"), lines[1].split(";")
            self.assertEqual(len(head), len(first), ver)
            named = dict(zip(head, first))
            self.assertEqual((named["terse_version"], named["jobname"]), (ver, "a"))
            self.assertEqual(named["read_kib"], first[5])
            self.assertEqual(int(named["read_kib"]) + int(named["write_kib"]), 1024)
            self.assertIn("first_error", head)
        # terse stays header-less, and fio's personality keeps fio's csv.
        p = run(["--output-format=terse", "j.fio"], cwd=self.tmp)
        self.assertTrue(p.stdout.startswith("3;"), p.stdout[:40])
        if FIO:
            ref = run_fio(["--output-format=csv", "--name=x", "--ioengine=null", "--size=1m"], cwd=self.tmp)
            self.assertTrue(ref.stdout.startswith("3;fio-3.33;x;"), ref.stdout[:40])
        p = run_as_fio(["--output-format=csv", "--name=x", "--ioengine=null", "--size=1m"], cwd=self.tmp)
        self.assertTrue(p.stdout.startswith("3;fio-3.33;x;"), p.stdout[:40])


class EmptyFileIgnored(TmpDirCase):
    """A job with no size= or filesize= takes each file's length from what it holds; fio
    3.33's setup_files runs past a file holding nothing past its offset, printing "fio: file
    F may be ignored" (log_info, onto its output: stdout, or the --output file) once per
    clone as it sets the job up, after "Starting" and before that job's layout line, and
    moves the others.  The old build failed such a job ("region beyond the end of the
    file", err=22, exit 1), left opendir='s empty files out (so size= split over fewer
    files) and printed no line."""

    def setUp(self):
        super().setUp()
        (self.tmp / "a").write_bytes(os.urandom(16384))
        (self.tmp / "b").touch()
        (self.tmp / "c").write_bytes(os.urandom(8192))
        (self.tmp / "od" / "sub").mkdir(parents=True)
        (self.tmp / "od" / "a").write_bytes(os.urandom(65536))
        (self.tmp / "od" / "sub" / "b").write_bytes(os.urandom(32768))
        (self.tmp / "od" / "empty").touch()

    READ = ["--rw=read", "--bs=4k"]
    # (arguments, each job's bytes read)
    MOVED = [
        (["--name=x", "--filename=a:b", *READ], [16384]),
        (["--name=x", "--filename=a:c", "--offset=8k", *READ], [8192]),
        (["--name=x", "--filename=b:a", "--rw=randread", "--bs=4k", "--numjobs=2"], [16384, 16384]),
        (["--name=x", "--filename=a:b", *READ, "--loops=3", "--create_serialize=0"], [3 * 16384]),
        (["--name=x", "--opendir=od", *READ], [65536 + 32768]),
        # size= splits over the three files, the empty one too: fio lays it out to 32 KiB.
        (["--name=x", "--opendir=od", *READ, "--size=96k"], [98304]),
    ]

    def moved(self, runner, args):
        p = runner([*args, "--output-format=json"], cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        return [j["read"]["io_bytes"] for j in json.loads(p.stdout[p.stdout.index("{"):])["jobs"]]

    def test_the_other_files_move_as_fio(self):
        for args, moved in self.MOVED:
            for runner in (run, run_as_fio) + ((run_fio,) if FIO else ()):
                with self.subTest(args=args, runner=runner.__name__):
                    (self.tmp / "od" / "empty").write_bytes(b"")
                    self.assertEqual(self.moved(runner, args), moved)

    def opening(self, runner, args):
        """stdout's and o.txt's lines up to the report: banners' job names, Starting, fio's
        setup lines, the report's first line."""
        (self.tmp / "o.txt").unlink(missing_ok=True)
        p = runner(args, cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)

        def cut(text):
            keep = []
            for line in text.splitlines():
                if re.match(r"\S+: \(groupid=", line):
                    break
                if re.match(r"\S+: \(g=\d+\)|Starting|fio: file|\S+: Laying out|\{$|3;fio", line):
                    keep.append(re.sub(r"(\(g=\d+\)|^3;fio-3\.33;[^;]*).*", r"\1", line))
                if keep and (keep[-1] == "{" or keep[-1].startswith("3;")):
                    break
            return keep
        out = self.tmp / "o.txt"
        return cut(p.stdout), cut(out.read_text()) if out.exists() else None

    IGNORED = "fio: file b may be ignored"
    SAID = [
        (["--name=x", "--filename=a:b", *READ], ["x: (g=0)", "Starting 1 process", IGNORED], None),
        (["--name=x", "--filename=a:b", *READ, "--output-format=json"], [IGNORED, "{"], None),
        (["--name=x", "--filename=a:b", *READ, "--numjobs=2", "--output-format=terse"],
         [IGNORED, IGNORED, "3;fio-3.33;x"], None),
        (["--name=x", "--filename=a:b", *READ, "--output-format=json", "--output=o.txt"], [], [IGNORED, "{"]),
        # Each job set up in turn: its ignored files, then its layout.
        (["--name=y", "--filename=new1", "--size=64k", *READ, "--name=x", "--filename=a:b", *READ,
          "--name=w", "--filename=new2", "--size=64k", *READ],
         ["y: (g=0)", "x: (g=0)", "w: (g=0)", "Starting 3 processes", "y: Laying out IO file (1 file / 0MiB)", IGNORED,
          "w: Laying out IO file (1 file / 0MiB)"], None),
        (["--name=x", "--opendir=od", *READ, "--output-format=json"], ["fio: file od/empty may be ignored", "{"],
         None),
    ]

    def test_said_where_fio_says_it(self):
        for args, stdout, file in self.SAID:
            for runner in (run_as_fio,) + ((run_fio,) if FIO else ()):
                with self.subTest(args=args, runner=runner.__name__):
                    for new in ("new1", "new2"):
                        (self.tmp / new).unlink(missing_ok=True)
                    self.assertEqual(self.opening(runner, args), (stdout, file))

    def test_a_note_of_the_report_as_ioplan(self):
        p = run(["--name=x", "--filename=a:b", *self.READ, "--output-format=json"], cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        texts = [m["text"] for m in json.loads(p.stdout)["ioplan"]["messages"]]
        self.assertEqual([t for t in texts if "ignored" in t],
                         ["job 'x': file b may be ignored: it holds no data past offset=0 and the job has no "
                          "size= or filesize= to give it any, so it gets no I/O and the job runs its other "
                          "files, as fio's"])
        self.assertNotIn("ignored", p.stderr)

    def test_a_job_with_no_data_at_all_fails_as_fio(self):
        # All empty: fio's "you need to specify size=" (err=22); nothing past offset=: "blocksize
        # is larger than data set range".  Both exit 1.
        for args, why in ((["--filename=b"], "every file is empty"),
                          (["--filename=c", "--offset=8k"], "no file holds data past offset=")):
            for runner in (run, run_as_fio) + ((run_fio,) if FIO else ()):
                with self.subTest(args=args, runner=runner.__name__):
                    p = runner(["--name=x", *args, *self.READ], cwd=self.tmp)
                    self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
                    if runner is run:
                        self.assertIn(why, p.stderr)
