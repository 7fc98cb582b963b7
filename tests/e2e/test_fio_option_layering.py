"""tests/e2e/test_fio_option_layering.py - how fio 3.33 combines what several lines say.

A job file's lines do not always replace one another: fio adds each filename=
to the ones before, keeps bsrange=/bssplit= over a later bs=, puts directory=
before an absolute name, and so on.  Each test runs one small job file through
fio and ioplan in private directories and compares what the run touched (the
files and their sizes) and moved (bytes and I/O counts), never timings.
"""
import json
import unittest

from common import FIO, TmpDirCase, run, run_as_fio, run_fio


def jobs_of(stdout):
    """[(name, bytes moved, I/Os, error)] of a run's JSON output, in its order."""
    doc = json.loads(stdout[stdout.index("{"):])
    total = lambda j, k: sum(j[d][k] for d in ("read", "write", "trim"))
    return [(j["jobname"], total(j, "io_bytes"), total(j, "total_ios"), j["error"]) for j in doc["jobs"]]


def files_under(d):
    """{relative path: size} of the files a run left in d (its job file aside)."""
    return {str(f.relative_to(d)): f.stat().st_size for f in d.rglob("*")
            if f.is_file() and f.suffix != ".fio"}


@unittest.skipIf(FIO is None, "fio not installed")
class OptionLayering(TmpDirCase):
    def both(self, text, tag="run", dirs=(), files=None, sizes=None, as_fio=False, args=("job.fio",)):
        """{tool: (CompletedProcess, its directory)} of text run by each tool (as job.fio,
        with args); {dir} in text is the tool's own directory, where dirs and files (of
        sizes) are made first."""
        out = {}
        for who in ("fio", "ioplan"):
            d = self.tmp / f"{tag}-{who}"
            d.mkdir()
            for sub in dirs:
                (d / sub).mkdir()
            for name, body in (files or {}).items():
                (d / name).write_text(body)
            for name, size in (sizes or {}).items():
                with open(d / name, "wb") as f:
                    f.truncate(size)
            (d / "job.fio").write_text(text.replace("{dir}", str(d)))
            tool = run_fio if who == "fio" else run_as_fio if as_fio else run
            out[who] = (tool(["--output-format=json", *args], cwd=d), d)
        return out

    def same_run(self, text, tag="run", **kw):
        """Runs text with both tools, checks they agree on jobs and files; returns fio's."""
        out = self.both(text, tag, **kw)
        seen = {}
        for who, (p, d) in out.items():
            self.assertEqual(p.returncode, 0, f"{who}: {p.stderr}")
            seen[who] = (jobs_of(p.stdout), files_under(d))
        self.assertEqual(seen["ioplan"], seen["fio"], tag)
        return seen["fio"]

    def test_each_filename_adds_to_the_names_before_it(self):
        # fio's filename= adds its names to the job's (add_file): [global]'s and the
        # job's are both used, size= split over them.  ioplan kept the job's only.
        head = "[global]\nsize=1m\nbs=4k\nrw=write\nioengine=psync\n"
        cases = {
            "global_then_job": head + "filename=fa\n[job]\nfilename=fb\n",
            "same_section": head + "[job]\nfilename=fa\nfilename=fb\n",
            "two_globals": "[global]\nfilename=fa\n" + head + "filename=fb\n[job]\n",
            "two_jobs": head + "filename=fa:fc\n[job]\nfilename=fb\n[job2]\nstonewall\n",
        }
        for tag, text in cases.items():
            with self.subTest(case=tag):
                jobs, files = self.same_run(text, tag)
                if tag == "global_then_job":
                    self.assertEqual(files, {"fa": 512 << 10, "fb": 512 << 10})

    def test_bsrange_and_bssplit_outrank_a_later_bs(self):
        # fio's bs= only fills a minimum block size nothing set (fixup_options):
        # bsrange=/bssplit= keep their sizes whichever comes first.  ioplan took
        # the later bs= (512 I/Os of 8 KiB where fio makes 421 or 139).
        head = "[global]\nioengine=null\nsize=4m\nrw=read\n"
        cases = {
            "bsrange_then_bs": head + "[j]\nbsrange=4k-16k\nbs=8k\n",
            "bs_then_bsrange": head + "[j]\nbs=8k\nbsrange=4k-16k\n",
            "bssplit_then_bs": head + "[j]\nbssplit=4k/50:64k/50\nbs=8k\n",
            "global_bssplit": head + "bssplit=4k/50:64k/50\n[j]\nbs=8k\n",
            "global_bsrange": head + "bsrange=4k-16k\n[j]\nbs=8k,16k\n",
        }
        for tag, text in cases.items():
            with self.subTest(case=tag):
                jobs, _ = self.same_run(text, tag)
                self.assertNotEqual(jobs[0][2], 512, "a fixed 8k would make 512 I/Os")

    def test_directory_goes_before_an_absolute_filename(self):
        # fio writes directory=D filename=/abs/f as D//abs/f (add_file), making the
        # directories between; ioplan opened /abs/f itself.
        text = "[j]\ndirectory={dir}/d\nfilename={dir}/abs/f1\nsize=1m\nbs=4k\nrw=write\nioengine=psync\n"
        out = self.both(text, dirs=("d",))
        for who, (p, d) in out.items():
            with self.subTest(who=who):
                self.assertEqual(p.returncode, 0, p.stderr)
                self.assertEqual(jobs_of(p.stdout), [("j", 1 << 20, 256, 0)])
                inside = "d/" + str(d).lstrip("/") + "/abs/f1"
                self.assertEqual(files_under(d), {inside: 1 << 20})

    def test_a_filename_stays_under_the_directory_set_when_it_was_read(self):
        # fio joins a filename= with the directory= set so far (add_file), and reads a
        # job file section's filename= after its other options but the command line
        # in order.  ioplan joined every name with the job's last directory=: a
        # [global] filename= under a job's directory=, or --filename=f --directory=d,
        # wrote d/f where fio writes ./f.
        head = "[global]\nsize=64k\nbs=4k\nrw=write\nioengine=psync\n"
        line = ["--name=j", "--size=64k", "--bs=4k", "--rw=write", "--ioengine=psync"]
        cases = {
            "global_name_job_dir": (head + "filename=fa\n[j]\ndirectory=d\n", (), "fa"),
            "name_before_dir": (head + "[j]\nfilename=fa\ndirectory=d\n", (), "d/fa"),
            "global_dir_job_name": (head + "directory=d\n[j]\nfilename=fa\n", (), "d/fa"),
            "line_name_then_dir": ("", line + ["--filename=fa", "--directory=d"], "fa"),
            "line_dir_then_name": ("", line + ["--directory=d", "--filename=fa"], "d/fa"),
            "line_global_name": ("[j]\nsize=64k\nrw=write\n", ["--filename=fa", "--directory=d", "job.fio"], "fa"),
        }
        for tag, (text, args, where) in cases.items():
            with self.subTest(case=tag):
                _, files = self.same_run(text, tag, dirs=("d",), args=args or ("job.fio",))
                self.assertEqual(files, {where: 64 << 10})

    def test_opendir_takes_the_directory_set_before_it(self):
        # opendir= adds its files as filename= does (fio's add_file under the directory=
        # read so far), and a section reads the two in the order written.
        for tag, order, moved in (("opendir_first", "opendir=src\ndirectory=d\n", 64 << 10),
                                  ("directory_first", "directory=d\nopendir=src\n", 8 << 10)):
            with self.subTest(case=tag):
                jobs, _ = self.same_run("[j]\nrw=read\nbs=4k\n" + order, tag, dirs=("src", "d", "d/src"),
                                        sizes={"src/f": 64 << 10, "d/src/f": 8 << 10})
                self.assertEqual(jobs, [("j", moved, moved // 4096, 0)])

    def test_a_file_whose_size_is_in_the_filesize_range_keeps_it(self):
        # fio draws a size from filesize=LOW-HIGH only for a file whose own size is
        # outside the range (setup_files): an existing 200 KiB file is read whole, and
        # the null engine's size= over nrfiles counts as its file's size.  ioplan drew.
        text = "[j]\nioengine=psync\nrw=randread\nsize=1m\nfilesize=128k-256k\nnrfiles=2\n"
        out = self.both(text, sizes={"j.0.0": 200 << 10})
        for who, (p, d) in out.items():
            with self.subTest(who=who):
                self.assertEqual(p.returncode, 0, p.stderr)
                # the second file takes the first draw (144 KiB): fio's 200 + 144 KiB
                self.assertEqual(jobs_of(p.stdout), [("j", 344 << 10, 86, 0)])
                self.assertEqual(files_under(d), {"j.0.0": 200 << 10, "j.0.1": 144 << 10})
        null = self.same_run("[j]\nioengine=null\nrw=randread\nsize=256k\nfilesize=128k-256k\n", "null")
        self.assertEqual(null[0], [("j", 256 << 10, 64, 0)])

    def test_a_filesize_range_may_start_below_a_block(self):
        # fio draws each file's size in filesize=LOW-HIGH and cuts it to the smallest
        # block size (get_rand_file_size): a low end under bs= is a valid job (fsperf's
        # smallfiles, filesize=10:1m), a draw under one block a file of no length that
        # gets no I/O.  fio refuses only a job whose files together hold no block
        # ("blocksize is larger than data set range").  ioplan refused every such range
        # ("each file's region (10 bytes) is less than one write block (4096 bytes)").
        head = "[j]\nioengine=psync\nrw=write\nbs=4k\n"
        cases = {
            "fsperf": head + "filesize=10:1m\nnrfiles=4\n",
            "fsperf_unaligned": head + "filesize=10:1m\nnrfiles=20\nblocksize_unaligned=1\n",
            "dash": head + "filesize=10-1m\nnrfiles=6\nrandseed=1234\n",
            "under_two_blocks": head + "filesize=1:8k\nnrfiles=16\n",
            "under_two_blocks_unaligned": head + "filesize=1:8k\nnrfiles=9\nblocksize_unaligned=1\nrandseed=7\n",
            "random": "[j]\nioengine=psync\nrw=randwrite\nbs=4k\nfilesize=100-64k\nnrfiles=12\n",
            "random_unaligned": ("[j]\nioengine=psync\nrw=randwrite\nbs=4k\nfilesize=100-64k\nnrfiles=5\n"
                                 "bs_unaligned=1\nrandseed=99\n"),
            "bsrange": "[j]\nioengine=psync\nrw=write\nbsrange=1k-8k\nfilesize=100-64k\nnrfiles=7\n",
        }
        for tag, text in cases.items():
            with self.subTest(case=tag):
                jobs, files = self.same_run(text, tag)
                self.assertGreater(jobs[0][1], 0)
                if tag == "fsperf":
                    self.assertEqual(sorted(files.values()), [147456, 311296, 323584, 937984])
                if tag == "under_two_blocks":
                    self.assertEqual(set(files.values()), {0, 4096})
        # 1:4095 cuts every draw to nothing: no block anywhere, fio's error.
        out = self.both(head + "filesize=1:4095\nnrfiles=3\n", "no_block")
        self.assertNotEqual(out["fio"][0].returncode, 0)
        self.assertIn("blocksize is larger than data set range", out["fio"][0].stderr)
        self.assertEqual(out["ioplan"][0].returncode, 2, out["ioplan"][0].stderr)
        self.assertIn("error: job 'j': the largest region of its 3 files drawn from filesize=1-4095 (0 bytes) is "
                      "less than one write block (4096 bytes)", out["ioplan"][0].stderr)

    def test_an_include_that_starts_sections_ends_the_including_one(self):
        # fio reads no section from an included file: it stops there ("No new
        # sections in included files"), drops the include's options, and runs the
        # other jobs; an option after the include line then has no section and the
        # file is refused.  ioplan refused every such file (exit 2).
        inc = "bs=8k\n[inc1]\nrw=write\nsize=1m\n[inc2]\nrw=read\n"
        runs = "[main]\nrw=read\nsize=1m\nioengine=null\ninclude inc.fio\n\n[after]\nrw=write\nsize=1m\nioengine=null\n"
        refused = "[main]\nrw=read\nsize=1m\ninclude inc.fio\nioengine=null\n"
        for tag, text in (("runs", runs), ("refused", refused)):
            out = self.both(text, tag, files={"inc.fio": inc})
            for who, (p, _) in out.items():
                with self.subTest(case=tag, who=who):
                    if tag == "refused":
                        self.assertNotEqual(p.returncode, 0, p.stdout)
                        self.assertNotIn("{", p.stdout)
                        continue
                    self.assertEqual(p.returncode, 0, p.stderr)
                    self.assertEqual(jobs_of(p.stdout), [("main", 1 << 20, 256, 0), ("after", 1 << 20, 256, 0)])
                    self.assertIn("section", p.stderr)

    def test_an_empty_section_name_is_a_job_as_in_fio(self):
        # "[]" was refused ("expected a section name after '['"); fio runs it as a job named
        # by its name=, or with no name (fio's JSON then leaves "jobname" out).
        self.same_run("[]\nname=foo\nsize=64k\nioengine=null\nrw=read\n[b]\nsize=64k\nioengine=null\n", "named")
        for who, (p, _) in self.both("[global]\nioengine=null\n[]\nsize=64k\n", "nameless").items():
            with self.subTest(who=who):
                self.assertEqual(p.returncode, 0, p.stderr)
                [job] = json.loads(p.stdout[p.stdout.index("{"):])["jobs"]
                self.assertEqual((job.get("jobname", ""), job["read"]["io_bytes"]), ("", 64 << 10))

    def test_an_empty_log_prefix_is_the_jobs_name_as_in_fio(self):
        # write_lat_log= (a template's unset ${VAR}) is the bare option in fio's job files;
        # it was "empty value for option 'write_lat_log'", exit 2.
        out = self.both("[j]\nioengine=null\nsize=64k\nrw=read\nwrite_lat_log=\nwrite_bw_log=\nwrite_iops_log=\n",
                        "logs")
        for who, (p, d) in out.items():
            with self.subTest(who=who):
                self.assertEqual(p.returncode, 0, p.stderr)
                self.assertEqual(sorted(n for n in files_under(d) if n.endswith(".log")),
                                 ["j_bw.1.log", "j_clat.1.log", "j_iops.1.log", "j_lat.1.log", "j_slat.1.log"])


    def test_an_empty_description_is_refused_as_by_fio(self):
        # fio fails the parse of any empty string option but the log prefixes ("failed
        # parsing description=", the job dropped, exit 1); ioplan ran the job as if the
        # line were not there.
        out = self.both("[j]\nioengine=null\nsize=64k\nrw=read\ndescription=\n", "desc")
        for who, (p, _) in out.items():
            with self.subTest(who=who):
                self.assertNotEqual(p.returncode, 0, p.stdout)
                self.assertNotIn("{", p.stdout)
        self.assertIn("5:13: error: empty value for option 'description'", out["ioplan"][0].stderr)
    def test_the_global_options_shown_are_the_last_files(self):
        # fio starts each job file after the first from its defaults (the command line's
        # options too), and its JSON's "global options" are the last file's [global]
        # alone: none when that file has no [global].  ioplan showed every file's.
        files = {"one.fio": "[global]\nioengine=null\nsize=1m\nbs=$pagesize\n[a]\nrw=read\n",
                 "two.fio": "[global]\nioengine=null\nsize=2m\n[b]\nrw=write\n",
                 "bare.fio": "[c]\nioengine=null\nsize=1m\nrw=read\n"}
        for order in (("one.fio", "two.fio"), ("two.fio", "one.fio"), ("one.fio", "bare.fio")):
            out = self.both("", "-".join(order).replace(".fio", ""), files=files, args=("--direct=0", *order))
            shown = {}
            for who, (p, _) in out.items():
                self.assertEqual(p.returncode, 0, f"{who} {order}: {p.stderr}")
                doc = json.loads(p.stdout[p.stdout.index("{"):])
                shown[who] = (doc.get("global options"), jobs_of(p.stdout))
            self.assertEqual(shown["ioplan"], shown["fio"], order)
            self.assertEqual(shown["fio"][0] is None, order[1] == "bare.fio", shown["fio"])

    def test_options_are_echoed_in_the_order_fio_parses_them(self):
        # fio sorts a section's options by priority before parsing them (kb_base,
        # unit_base and cpus_allowed_policy first, filename and filename_format after
        # the rest, so after directory=) and parses an engine's own options last; its
        # "job options" and "global options" list them so.  ioplan listed them as typed.
        text = ("[global]\nfilename=g1\nioengine=io_uring\nfixedbufs=1\nkb_base=1024\nsize=64k\n"
                "[global]\ndirectory={dir}\nfilename=g2\nunit_base=8\nbs=8k\n"
                "[j]\nfilename=x3\nhipri=0\nrw=read\ncpus_allowed_policy=shared\nbs=4k\n"
                "filename_format=f.$jobnum\nunit_base=8\niodepth=2\n")
        out = self.both(text, "order")
        shown = {}
        for who, (p, d) in out.items():
            self.assertEqual(p.returncode, 0, f"{who}: {p.stderr}")
            doc = json.loads(p.stdout[p.stdout.index("{"):])
            shown[who] = (list(doc["global options"].items()), list(doc["jobs"][0]["job options"].items()))
            shown[who] = json.loads(json.dumps(shown[who]).replace(str(d), "{dir}"))
        self.assertEqual(shown["ioplan"], shown["fio"])
        self.assertEqual([k for k, _ in shown["fio"][1]],
                         ["cpus_allowed_policy", "unit_base", "rw", "bs", "iodepth", "filename", "filename_format",
                          "hipri"])

    def test_a_percentage_offset_increment_is_of_the_file_size(self):
        # fio takes offset_increment=N% as N% of the file's size per clone
        # (get_start_offset), rounded up to the smallest block size like offset=N%;
        # ioplan refused the percentage.  Clones write into an existing 16 MiB file
        # of zeros (run as fio, which writes such files): the blocks written are
        # where each clone's region is.
        head = "[global]\nfilename=ex.dat\nsize=1m\nrw=write\nioengine=psync\nbuffer_pattern=0x5a\n"
        cases = {
            "quarters": head + "[w]\noffset_increment=25%\nnumjobs=4\n",
            "with_offset": head + "[w]\noffset=10%\noffset_increment=20%\nnumjobs=3\nbs=64k\n",
        }
        for tag, text in cases.items():
            out = self.both(text, tag, sizes={"ex.dat": 16 << 20}, as_fio=True)
            written = {}
            for who, (p, d) in out.items():
                self.assertEqual(p.returncode, 0, f"{tag} {who}: {p.stderr}")
                data = (d / "ex.dat").read_bytes()
                written[who] = [i >> 12 for i in range(0, len(data), 4096) if data[i:i + 4096].count(0) < 4096]
            with self.subTest(case=tag):
                self.assertEqual(written["ioplan"], written["fio"])
                if tag == "quarters":
                    self.assertEqual(written["fio"][256:258], [1024, 1025], "the second clone's first blocks")


    def test_a_clone_whose_generated_file_the_first_clone_took_gets_none(self):
        # fio's add_file: the first clone of a job with numjobs>1 claims the names
        # it generates (filename_format, nrfiles), for the whole run; a later
        # clone generating a claimed name gets no such file.  With no file left it
        # runs, moves nothing and reports no error: a JSON entry of zeros, no
        # block in the normal output.  filename= is every clone's (all do I/O),
        # and so is a name with $jobnum.  ioplan gave every clone the file (1 MiB each).
        head = "[global]\nioengine=psync\nsize=1m\nbs=4k\n"
        mib = (1 << 20, 256, 0)
        cases = {
            "fixed_write": (head + "[job]\nrw=write\nfilename_format=shared.dat\nnumjobs=2\n",
                            [mib, (0, 0, 0)]),
            "fixed_read_3": (head + "[job]\nrw=read\nfilename_format=shared.dat\nnumjobs=3\n",
                             [mib, (0, 0, 0), (0, 0, 0)]),
            "group_reporting": (head + "group_reporting\n[job]\nrw=write\nfilename_format=shared.dat\nnumjobs=2\n",
                                [mib]),
            "nrfiles": (head + "[job]\nrw=write\nfilename_format=$jobname.$filenum\nnrfiles=2\nnumjobs=2\n",
                        [mib, (0, 0, 0)]),
            "with_jobnum": (head + "[job]\nrw=write\nfilename_format=f.$jobnum\nnumjobs=2\n", [mib, mib]),
            "filename": (head + "[job]\nrw=write\nfilename=shared.dat\nnumjobs=2\n", [mib, mib]),
            # job b's second clone generates f.1, which job a's first clone took.
            "other_job": (head + "numjobs=2\nrw=write\n[a]\nfilename_format=f.1\n[b]\nfilename_format=f.$jobnum\n",
                          [mib, (0, 0, 0), mib, (0, 0, 0)]),
        }
        for tag, (text, moved) in cases.items():
            with self.subTest(case=tag):
                jobs, _ = self.same_run(text, tag)
                self.assertEqual([j[1:] for j in jobs], moved)
        text = cases["fixed_write"][0]
        for who, tool in (("fio", run_fio), ("ioplan", run)):
            with self.subTest(output="normal", who=who):
                d = self.tmp / f"normal-{who}"
                d.mkdir()
                (d / "job.fio").write_text(text)
                p = tool(["job.fio"], cwd=d)
                self.assertEqual(p.returncode, 0, p.stderr)
                self.assertEqual(p.stdout.count("(groupid=0, jobs=1)"), 1, p.stdout)
        # Without size= (filesize= sizes files, and the later clone has none) fio fails that
        # clone with EINVAL ("you need to specify size="); ioplan ran it with no error.
        text = "[global]\nioengine=psync\nfilesize=1m\nbs=4k\n[job]\nrw=write\nfilename_format=shared.dat\nnumjobs=2\n"
        seen = {}
        for who, (p, d) in self.both(text, "filesize").items():
            self.assertEqual(p.returncode, 1, f"{who}: {p.stderr}")
            doc = json.loads(p.stdout[p.stdout.index("{"):])
            seen[who] = [(j["error"], j["write"]["io_bytes"]) for j in doc["jobs"]]
        self.assertEqual(seen["ioplan"], seen["fio"])
        self.assertEqual(seen["ioplan"], [(0, 1 << 20), (22, 0)])

def job_options_of(stdout):
    """[(name, its "job options", bytes moved, I/Os)] and the "global options" of a JSON run."""
    doc = json.loads(stdout[stdout.index("{"):])
    total = lambda j, k: sum(j[d][k] for d in ("read", "write", "trim"))
    return ([(j["jobname"], j["job options"], total(j, "io_bytes"), total(j, "total_ios")) for j in doc["jobs"]],
            doc.get("global options", {}))


@unittest.skipIf(FIO is None, "fio not installed")
class CommandLineJobs(TmpDirCase):
    """Jobs made of the command line's words, run by fio and by ioplan as fio."""

    def same_jobs(self, args, tag):
        seen = {}
        for who, tool in (("fio", run_fio), ("ioplan", run_as_fio)):
            d = self.tmp / f"{tag}-{who}"
            d.mkdir()
            p = tool([*args, "--output-format=json"], cwd=d)
            self.assertEqual(p.returncode, 0, f"{who} {args}: {p.stderr}")
            seen[who] = job_options_of(p.stdout)
        # fio's "global options" echo --name=global itself; ioplan's do not.
        seen["fio"][1].pop("name", None)
        self.assertEqual(seen["ioplan"], seen["fio"], tag)
        return seen["fio"]

    def test_a_boolean_takes_the_next_argument_as_its_value(self):
        # fio's getopt gives every option but a set-flag a required value, so
        # `--direct 0` is direct=0.  ioplan let a boolean stand bare and read
        # "0" as a job file: "0: error: cannot read job file", status 2.
        cases = {
            "long": (["--name=a", "--ioengine=null", "--size=256k", "--direct", "0"], "0"),
            "single_dash": (["-name", "a", "-ioengine", "null", "-size", "256k", "-direct", "1"], "1"),
            "hex_then_more": (["--name=a", "--direct", "0x1", "--ioengine=null", "--size=256k"], "0x1"),
        }
        for tag, (args, value) in cases.items():
            with self.subTest(case=tag):
                jobs, _ = self.same_jobs(args, tag)
                self.assertEqual(jobs[0][1]["direct"], value)

    def test_section_leaves_out_command_line_jobs_and_their_options_become_defaults(self):
        # fio checks --section= when it reads a --name: a job left out is not made,
        # and the options after it go into its defaults, for the jobs named after
        # it only (as after --name=global).  ioplan ran every command-line job and
        # gave every one the defaults wherever they stood.
        null = ["--ioengine=null"]
        cases = {
            "first_left_out": ["--section=b", "--name=a", *null, "--size=1m", "--bs=8k",
                               "--name=b", *null, "--size=2m"],
            "last_left_out": ["--section=a", "--name=a", *null, "--size=1m",
                              "--name=b", *null, "--bs=8k", "--size=2m"],
            "two_left_out": ["--section=c", "--name=a", *null, "--size=1m", "--bs=8k",
                             "--name=b", "--rw=write", "--name=c"],
            "global_after_a_job": ["--name=a", *null, "--size=1m", "--name=global", "--bs=8k",
                                   "--name=b", *null, "--size=1m"],
        }
        for tag, args in cases.items():
            with self.subTest(case=tag):
                jobs, globals_ = self.same_jobs(args, tag)
                if tag == "first_left_out":
                    self.assertEqual([j[0] for j in jobs], ["b"])
                    self.assertEqual(globals_, {"ioengine": "null", "size": "1m", "bs": "8k"})

    def test_a_boolean_without_a_value_still_stands_bare_in_ioplan(self):
        # ioplan's own leniency (fio would take the next word as the value, or refuse).
        self.write("job.fio", "[j]\nioengine=null\nsize=64k\n")
        cases = {
            "before_a_job_file": ["--direct", "job.fio"],
            "before_an_option": ["--name=a", "--direct", "--ioengine=null", "--size=64k"],
            "last": ["--name=a", "--ioengine=null", "--size=64k", "--direct"],
        }
        for tag, args in cases.items():
            with self.subTest(case=tag):
                p = run(["--showplan", *args], cwd=self.tmp)
                self.assertEqual(p.returncode, 0, p.stderr)
                job = json.loads(p.stdout)["groups"][0]["jobs"][0]
                self.assertTrue(job["direct"], job)
        # A set-flag takes no value, in fio as here: the next word is a job file.
        p = run(["--name=a", "--ioengine=null", "--size=64k", "--time_based", "0"], cwd=self.tmp)
        self.assertEqual(p.returncode, 2)
        self.assertIn("0: error: cannot read job file", p.stderr)


if __name__ == "__main__":
    unittest.main()
