"""tests/e2e/test_parse_jobs.py - the job language, checked against real fio 3.33.

Groups, clones and file layout come from running fio itself on the same job
text (null engine or create_only, tiny sizes, a private directory) and
comparing with `ioplan --showplan`; the seed job files are checked for the
exact plan the issue describes.
"""
import json
import os
import re
import subprocess
import unittest

from common import FIO, ROOT, TmpDirCase, run, run_fio, showplan


def jobs_of(plan):
    return [j for g in plan["groups"] for j in g["jobs"]]


def clones_of(plan):
    """(name, groupid) per clone, in thread order: fio's jobs[] without group_reporting."""
    return [(j["name"], j["groupid"]) for j in jobs_of(plan) for _ in j["clones"]]


def fio_jobs(result):
    return [(j["jobname"], j["groupid"]) for j in result["jobs"]]


class SeedFiles(unittest.TestCase):
    def test_crystaldiskmark_like_file_has_eight_stonewalled_groups(self):
        plan = showplan(["--directory=/tmp", str(ROOT / "examples/fio_setting.txt")])
        self.assertEqual(plan["nr_groups"], 8)
        jobs = jobs_of(plan)
        self.assertEqual([j["groupid"] for j in jobs], list(range(8)))
        self.assertTrue(all(j["stonewall"] and j["direct"] and j["ioengine"] == "libaio" for j in jobs))
        self.assertEqual([j["iodepth"] for j in jobs], [8, 8, 1, 1, 32, 32, 1, 1])
        self.assertEqual([j["bs"]["read"]["min_bytes"] for j in jobs], [1 << 20] * 4 + [4096] * 4)
        self.assertEqual([j["rw"] for j in jobs], ["read", "write"] * 2 + ["randread", "randwrite"] * 2)
        for j in jobs:
            self.assertEqual(len(j["clones"]), 1)
            f = j["clones"][0]["files"][0]
            self.assertEqual(f["path"], f"/tmp/{j['name']}.0.0")
            self.assertEqual(f["size_bytes"], 1 << 30)

    def test_readers_and_writers_share_one_group_and_writers_are_rate_limited(self):
        plan = showplan(["--runtime=30", str(ROOT / "examples/fioreadwrite.ini")])
        self.assertEqual(plan["nr_groups"], 1)
        self.assertEqual(plan["nr_threads"], 8)
        reader, writer = jobs_of(plan)
        self.assertEqual(reader["runtime_ns"], 30 * 10**9)
        self.assertEqual(reader["rate_iops"]["read"], 0)
        self.assertEqual(writer["rate_iops"]["write"], 3200)
        self.assertEqual(len(writer["clones"]), 4)
        self.assertEqual([c["files"][0]["path"] for c in writer["clones"]],
                         [f"/mnt/nocache/writer1.{i}.0" for i in range(4)])
        self.assertEqual([c["files"][0]["path"] for c in reader["clones"]],
                         [f"/mnt/readcache/reader1.{i}.0" for i in range(4)])
        self.assertEqual({j["iodepth"] for j in (reader, writer)}, {128})

    def test_azure_single_direction_files(self):
        for name, rw, d in (("fiowrite.ini", "randwrite", "nocache"), ("fioread.ini", "randread", "readcache")):
            (job,) = jobs_of(showplan([str(ROOT / "examples" / name)]))
            self.assertEqual(job["rw"], rw)
            self.assertEqual(job["iodepth"], 256)
            self.assertEqual(len(job["clones"]), 4)
            self.assertEqual(job["clones"][3]["files"][0], {**job["clones"][3]["files"][0],
                             "path": f"/mnt/{d}/{job['name']}.3.0", "size_bytes": 30 << 30})


@unittest.skipIf(FIO is None, "fio not installed")
class GroupsAgainstFio(TmpDirCase):
    """Group ids and clone order exactly as fio assigns them."""

    CASES = {
        "global_stonewall_numjobs": "[global]\nstonewall\n[a]\n[b]\nnumjobs=2\n[c]\n",
        "stonewall_on_first_job": "[a]\nstonewall\n[b]\n[c]\nstonewall\nnumjobs=3\n",
        "new_group_and_wait_for": "[a]\n[b]\nnew_group\n[c]\nwait_for=a\n[d]\nwait_for_previous\n",
        "cumulative_globals": "[global]\nbs=8k\n[j1]\n[global]\nrw=write\n[j2]\n[globalfoo]\niodepth=4\n[j3]\nnumjobs=2\n",
        "seed_cdm": (ROOT / "examples/fio_setting.txt").read_text(),
        "seed_readwrite": (ROOT / "examples/fioreadwrite.ini").read_text(),
    }

    def fio_text(self, text):
        text = re.sub(r"(?m)^(ioengine|size|directory|direct|iodepth)=.*$", "", text)
        return "[global]\nioengine=null\nsize=2m\nbs=4k\n" + text

    def test_group_ids_match_fio(self):
        for name, text in self.CASES.items():
            with self.subTest(case=name):
                path = self.write(f"{name}.fio", self.fio_text(text))
                fio = run_fio(["--output-format=json", str(path)], cwd=self.tmp)
                self.assertEqual(fio.returncode, 0, fio.stderr)
                self.assertEqual(clones_of(showplan([str(path)])), fio_jobs(json.loads(fio.stdout)))

    def test_several_job_files_and_command_line_jobs_match_fio(self):
        a = self.write("a.fio", "[global]\nioengine=null\nsize=64k\n[a1]\n[a2]\n")
        b = self.write("b.fio", "[global]\nioengine=null\nsize=64k\n[b1]\nnumjobs=2\n[b2]\n")
        for args in ([str(a), str(b)], ["--ioengine=null", "--size=64k", "--name=c1", "--name=c2", "--stonewall", str(a)],
                     ["--section=a2", str(a)]):
            with self.subTest(args=args):
                fio = run_fio(["--output-format=json", *args], cwd=self.tmp)
                self.assertEqual(fio.returncode, 0, fio.stderr)
                self.assertEqual(clones_of(showplan(args, cwd=self.tmp)), fio_jobs(json.loads(fio.stdout)))


@unittest.skipIf(FIO is None, "fio not installed")
class FileLayoutAgainstFio(TmpDirCase):
    """File names, directories and sizes: fio lays the files out, ioplan plans them."""

    def test_directories_filenames_and_formats(self):
        for d in ("d1", "d2", "d3"):
            (self.tmp / d).mkdir()
        text = ("[global]\ndirectory=d1:d2:d3\nsize=64k\ncreate_only=1\n"
                "[gen]\nnumjobs=4\nnrfiles=2\n"
                "[fixed]\nfilename=fa:fb\nnumjobs=2\n"
                "[fmt]\nfilename_format=shared.$filenum.$jobnum.$jobname\nnumjobs=2\n")
        job = self.write("layout.fio", text)
        plan = showplan([str(job)], cwd=self.tmp)
        planned = {f["path"]: f["size_bytes"] for j in jobs_of(plan) for c in j["clones"] for f in c["files"]}
        fio = run_fio([str(job)], cwd=self.tmp)
        self.assertEqual(fio.returncode, 0, fio.stderr)
        laid_out = {str(p.relative_to(self.tmp)): p.stat().st_size
                    for d in ("d1", "d2", "d3") for p in (self.tmp / d).iterdir()}
        self.assertEqual(planned, laid_out)
        shared = {f["path"] for j in jobs_of(plan) for c in j["clones"] for f in c["files"] if f["shared"]}
        self.assertEqual(shared, {"d1/fa", "d1/fb"})


class CommandLineLayering(TmpDirCase):
    """reference/fio.md §1.4: command-line options are defaults for the first job file only."""

    def setUp(self):
        super().setUp()
        self.a = self.write("a.fio", "[global]\nbs=8k\n[j1]\nrw=read\n[j2]\nrw=write\nbs=32k\n")
        self.b = self.write("b.fio", "[k1]\n")

    def bs_and_group(self, *args):
        return [(j["name"], j["bs"]["read"]["min_bytes"], j["groupid"]) for j in jobs_of(showplan(list(args)))]

    def test_file_overrides_command_line(self):
        self.assertEqual(self.bs_and_group("--bs=16k", str(self.a)), [("j1", 8192, 0), ("j2", 32768, 0)])
        self.assertEqual(self.bs_and_group(str(self.a), "--bs", "16k"), [("j1", 8192, 0), ("j2", 32768, 0)])

    def test_command_line_default_applies_to_first_file_only(self):
        self.assertEqual(self.bs_and_group("--bs=16k", str(self.b)), [("k1", 16384, 0)])
        self.assertEqual(self.bs_and_group("--bs=16k", str(self.a), str(self.b)),
                         [("j1", 8192, 0), ("j2", 32768, 0), ("k1", 4096, 1)])
        self.assertEqual(self.bs_and_group("--bs=16k", str(self.b), str(self.a)),
                         [("k1", 16384, 0), ("j1", 8192, 1), ("j2", 32768, 1)])

    def test_shadowed_command_line_value_gets_a_note(self):
        p = run(["--showplan", "--bs=16k", str(self.a)])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn(f"{self.a}:2:1: note: --bs=16k is overridden by bs=8k in the job file", p.stderr)

    def test_command_line_jobs_do_not_inherit_from_each_other(self):
        plan = showplan(["--name=global", "--bs=2k", "--name=c1", "--ioengine=null", "--size=1m",
                         "--name=c2", "--rw=randread", "--stonewall"])
        (c1, c2) = jobs_of(plan)
        self.assertEqual((c1["ioengine"], c2["ioengine"]), ("null", "psync"))
        self.assertEqual((c1["bs"]["read"]["min_bytes"], c2["bs"]["read"]["min_bytes"]), (2048, 2048))
        self.assertEqual((c1["groupid"], c2["groupid"]), (0, 1))

    def test_section_runs_named_sections_in_file_order(self):
        plan = showplan(["--section=j2", "--section=j1", str(self.a)])
        self.assertEqual([j["name"] for j in jobs_of(plan)], ["j1", "j2"])
        p = run(["--parse-only", "--section=global", str(self.a)])
        self.assertEqual(p.returncode, 2)
        p = run(["--parse-only", "--section=nope", str(self.a)])
        self.assertEqual(p.returncode, 2)
        self.assertIn("no job section matches --section", p.stderr)


class Values(TmpDirCase):
    def plan_of(self, body, *args):
        return jobs_of(showplan([*args, str(self.write("v.fio", "[j]\n" + body))]))[0]

    def test_size_suffixes_and_kb_base(self):
        cases = {"1m": 1 << 20, "1M": 1 << 20, "1mb": 1 << 20, "1mi": 1 << 20, "1000k": 1024000,
                 "0x100000": 1 << 20, "1MiB": 1 << 20, "2g": 2 << 30}
        for text, want in cases.items():
            with self.subTest(size=text):
                self.assertEqual(self.plan_of(f"size={text}\n")["size_bytes"], want)
        self.assertEqual(self.plan_of("kb_base=1000\nsize=1m\n")["size_bytes"], 10**6)
        self.assertEqual(self.plan_of("size=1m\nkb_base=1000\n")["size_bytes"], 10**6)
        self.assertEqual(self.plan_of("size=50%\n")["size_ppm"], 500000)

    def test_times_and_ddir_lists(self):
        j = self.plan_of("runtime=1sec\nramp_time=500ms\nthinktime=10\nbs=4k,8k\nrate_iops=200,\n")
        self.assertEqual((j["runtime_ns"], j["ramp_time_ns"], j["thinktime_ns"]), (10**9, 5 * 10**8, 10**4))
        self.assertEqual([j["bs"][d]["min_bytes"] for d in ("read", "write", "trim")], [4096, 8192, 8192])
        self.assertEqual(list(j["rate_iops"].values()), [200, 0, 0])
        j = self.plan_of("bsrange=4k-16k,32k:64k\nbssplit=4k/30:64k/70\n")
        self.assertEqual(j["bs"]["read"]["split"], [{"bs_bytes": 4096, "pct": 30}, {"bs_bytes": 65536, "pct": 70}])
        self.assertEqual((j["bs"]["write"]["min_bytes"], j["bs"]["write"]["max_bytes"]), (4096, 65536))

    def test_seeds_randrepeat_and_randseed(self):
        def seeds(*args):
            doc = showplan([*args, str(self.write("s.fio", "[a]\nrw=randread\nnumjobs=2\n[b]\nrw=randread\n"))])
            return [c["seed"] for j in jobs_of(doc) for c in j["clones"]]
        # As fio: 0x89 + thread number - 1 over the whole plan, so no two threads share a stream.
        self.assertEqual(seeds(), [0x89, 0x8a, 0x8b])
        # randrepeat=0: a fresh base each run, still one stream per thread.
        first, second = seeds("--randrepeat=0"), seeds("--randrepeat=0")
        self.assertNotEqual(first, second)
        self.assertEqual([s - first[0] for s in first], [0, 1, 2])
        # An explicit randseed= numbers each job's own clones from it (DISKSPD: seed + thread).
        self.assertEqual(seeds("--randseed=5"), [5, 6, 5])

    def test_include_env_and_keywords(self):
        self.write("inc/common.inc", "bs=${BS}\nnumjobs=$ncpus\n")
        path = self.write("inc/main.fio", "[j]\ninclude common.inc\nsize=1m\n")
        plan = json.loads(run(["--showplan", str(path)], cwd="/", env={"BS": "64k"}).stdout)
        j = jobs_of(plan)[0]
        self.assertEqual(j["bs"]["read"]["min_bytes"], 65536)
        self.assertEqual(j["numjobs"], os.cpu_count())

    def test_include_with_an_equals_sign_is_an_include(self):
        # fio 3.33 takes the character after "include" as the separator, so include=FILE
        # includes FILE (and a tab works as a blank does); ioplan said "unknown option
        # 'include'", exit 2, for a job file fio runs.
        self.write("inc/common.inc", "bs=8k\n")
        for line in ("include=common.inc", "include\tcommon.inc"):
            with self.subTest(line=line):
                path = self.write("inc/main.fio", f"[j]\nioengine=null\nsize=64k\n{line}\n")
                self.assertEqual(jobs_of(showplan([str(path)], cwd="/"))[0]["bs"]["read"]["min_bytes"], 8192)
                if FIO:
                    p = run_fio(["--output-format=json", str(path)], cwd="/")
                    self.assertEqual(p.returncode, 0, p.stderr)
                    self.assertEqual(json.loads(p.stdout)["jobs"][0]["read"]["total_ios"], 8)  # 8k blocks
        path = self.write("inc/empty.fio", "[j]\nioengine=null\nsize=64k\ninclude=\n")
        p = run(["--parse-only", str(path)])
        self.assertEqual((p.returncode, p.stderr.splitlines()[0]),
                         (2, f"{path}:4:9: error: expected a file name after 'include'"))

    def test_a_variable_may_hold_a_whole_option_line(self):
        # fio expands ${VAR} in the line before splitting it at '=': ioplan took
        # "bs=8k" for the name of an unknown option (exit 2).
        path = self.write("line.fio", "[j]\nioengine=null\nsize=1m\n${OPTS}\n")
        env = {"OPTS": "bs=8k"}
        p = run(["--output-format=json", str(path)], env=env)
        self.assertEqual(p.returncode, 0, p.stderr)
        ios = json.loads(p.stdout)["jobs"][0]["read"]["total_ios"]
        self.assertEqual(ios, 128)
        if FIO:
            f = subprocess.run([FIO, "--output-format=json", str(path)], capture_output=True, text=True,
                               env={**os.environ, **env}, timeout=60)
            self.assertEqual(json.loads(f.stdout)["jobs"][0]["read"]["total_ios"], ios)
        p = run(["--parse-only", str(path)], env={"OPTS": "nosuch=1"})
        self.assertEqual(p.returncode, 2)
        self.assertIn(f"{path}:4:1: error: unknown option 'nosuch'", p.stderr)

    def test_every_choice_shows_as_a_name_the_parser_reads_back(self):
        # --showplan prints each enum through the plan's one name table: every value
        # a choice sets has a name (fallocate=truncate printed "?"), and that name
        # given back as the option yields the same plan.
        cases = {"fallocate": ("truncate", "keep", "posix", "none"), "verify": ("pattern", "crc32c-intel", "null"),
                 "sync": ("dsync",), "file_service_type": ("sequential",), "rate_process": ("poisson",),
                 "random_distribution": ("normal",), "buffer_fill": ("random_once",)}
        key = {"sync": "sync_mode", "file_service_type": "file_service"}
        extra = {"verify": "verify_pattern=0xab\n", "rate_process": "rate_iops=100\n"}
        for option, values in cases.items():
            for value in values:
                with self.subTest(option=option, value=value):
                    body = f"size=1m\n{extra.get(option, '')}{option}={value}\n"
                    shown = self.plan_of(body)[key.get(option, option)]
                    self.assertNotEqual(shown, "?")
                    again = self.plan_of(f"size=1m\n{extra.get(option, '')}{option}={shown}\n")
                    self.assertEqual(again[key.get(option, option)], shown)
        # verify_pattern alone (fio's verify type 17) is "pattern", as fio's messages name it.
        self.assertEqual(self.plan_of("size=1m\nverify_pattern=0xab\n")["verify"], "pattern")

    def test_bare_boolean_means_one(self):
        # fio rejects a bare boolean ("direct requires an argument"); ioplan reads it as 1.
        j = self.plan_of("direct\nend_fsync\nsize=1m\n")
        self.assertEqual((j["direct"], j["end_fsync"]), (True, True))

    def test_crlf_bom_tabs_and_inline_comments(self):
        j = self.plan_of("\tbs\t=8k ; a comment\r\nrw=write # another\r\n", )
        self.assertEqual((j["bs"]["read"]["min_bytes"], j["rw"]), (8192, "write"))
        path = self.tmp / "bom.fio"
        path.write_bytes(b"\xef\xbb\xbf[j]\r\nsize=1m\r\n")
        self.assertEqual(jobs_of(showplan([str(path)]))[0]["size_bytes"], 1 << 20)


@unittest.skipUnless((ROOT / "build/fio-src/examples").is_dir(), "run `make fio-examples` first")
class FioExamplesCorpus(unittest.TestCase):
    """Every fio 3.33 example parses, or names precisely what ioplan does not support."""

    PRECISE = re.compile(r"^\S+:\d+:\d+: error: (option '[a-z_0-9]+' (is not supported|is an (fio profile )?option)"
                         r"|ioengine '[^']+' is not supported|[a-z_]+=\S+ .*is not supported)")

    def test_examples(self):
        files = sorted((ROOT / "build/fio-src/examples").glob("*.fio"))
        self.assertGreater(len(files), 80)
        parsed = 0
        for f in files:
            text = f.read_text(errors="replace")
            # Set the variables the examples expect (an rw= one needs a direction).
            env = {v: "randread" if v.endswith("RW") else "1" for v in re.findall(r"\$\{(\w+)\}", text)}
            p = run(["--parse-only", str(f)], env=env)
            with self.subTest(example=f.name):
                self.assertIn(p.returncode, (0, 2), p.stderr)
                if p.returncode == 0:
                    parsed += 1
                else:
                    self.assertRegex(p.stderr.splitlines()[0], self.PRECISE)
        print(f"\nfio examples: {parsed} of {len(files)} parse", flush=True)
        self.assertGreaterEqual(parsed, 15)


if __name__ == "__main__":
    unittest.main()


class ShadowedWhenRefused(TmpDirCase):
    """fio's rule (the job file wins over the command line) stays, and is visible even
    when the file's own value makes the preflight refuse the run."""

    def test_the_note_comes_with_the_preflight_error(self):
        self.write("big.fio", "[big]\nrw=read\nsize=4000t\nruntime=1\n")
        p = run(["--size=64m", f"--directory={self.tmp}", str(self.tmp / "big.fio")])
        self.assertEqual(p.returncode, 2)
        self.assertIn("not enough free space", p.stderr)
        self.assertIn(f"{self.tmp / 'big.fio'}:3:1: --size=64m is overridden by size=4000t in the job file",
                      p.stderr)
        self.assertFalse((self.tmp / "big.0.0").exists())
