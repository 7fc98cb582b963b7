"""tests/e2e/test_parse_real_files.py - job files as other people write them, read
by fio 3.33 and by ioplan: the same job files through both, the same amounts.

Each class is one way fio reads a job file that ioplan used to refuse or read
otherwise: text after a number, deprecated options, booleans above 1, values
and options fio takes (file_service_type=TYPE:N, disk_util, atomic, 100%%),
an unset ${VAR}, clone names, aliases in the JSON echo, bssplit's corners,
repeated section names and a wait_for= naming two jobs;
and where ioplan reads otherwise on purpose (IEC units), the note giving fio's figure.
The job files are small null-engine or psync jobs in a private directory, so
the amounts compared are the ones each tool decides, not the machine's speed.
"""
import json
import os
import shutil
import subprocess
import unittest

from common import FIO, TmpDirCase, run, run_as_fio


def job_json(p):
    """The JSON document of a run's stdout (fio prints notes before it)."""
    return json.loads(p.stdout[p.stdout.index("{"):])


@unittest.skipIf(FIO is None, "fio not installed")
class BothCase(TmpDirCase):
    def both(self, text, args=(), env=None, files=None):
        """Runs text through fio and ioplan, each in its own directory ({dir} in
        text names it); returns {who: (CompletedProcess, JSON or None, dir)}."""
        out = {}
        for who in ("fio", "ioplan"):
            d = self.tmp / who
            d.mkdir()
            for name, size in (files or {}).items():
                (d / name).write_bytes(b"\xa5" * size)
            job = d / "job.fio"
            job.write_text(text.replace("{dir}", str(d)))
            argv = ["--output-format=json", *args, str(job)]
            if who == "fio":
                p = subprocess.run([FIO, *argv], cwd=d, capture_output=True, text=True, timeout=120,
                                   env=dict(os.environ, **(env or {})))
            else:
                p = run(argv, cwd=d, env=env)
            out[who] = (p, job_json(p) if p.returncode == 0 else None, d)
        return out

    def amounts(self, doc):
        return [(j["jobname"], j["read"]["io_bytes"], j["read"]["total_ios"], j["write"]["io_bytes"],
                 j["write"]["total_ios"]) for j in doc["jobs"]]

    def same_amounts(self, text, **kw):
        out = self.both(text, **kw)
        for who, (p, _, _) in out.items():
            self.assertEqual(p.returncode, 0, f"{who}: {p.stderr}")
        self.assertEqual(self.amounts(out["ioplan"][1]), self.amounts(out["fio"][1]))
        return out


class TextAfterNumbers(BothCase):
    # fio reads a number option up to the first character that cannot continue it.
    def test_integer_options_keep_the_leading_number(self):
        out = self.same_amounts("[j]\nioengine=null\nsize=64k\nrw=randrw\nrwmixread=70.0\n"
                                "number_ios=8*2\niodepth=128*1\n")
        self.assertEqual(sum(self.amounts(out["fio"][1])[0][2::2]), 8)
        normal = run([str(out["ioplan"][2] / "job.fio")])
        self.assertEqual(normal.returncode, 0, normal.stderr)
        self.assertIn("number_ios=8*2: '*2' after the number is ignored", normal.stdout)
        self.assertIn("rwmixread=70.0: '.0' after the number is ignored", normal.stdout)

    def test_keywords_and_arithmetic_in_any_option(self):
        # bc's arithmetic after $pagesize and $ncpus, in a boolean and a time too;
        # bs=4k*2 is 4k (the rest ignored).
        out = self.same_amounts("[global]\nioengine=null\nthinktime=$pagesize/4096\n"
                                "[j]\nrw=read\nsize=$pagesize*16\nbs=4k*2\n"
                                "number_ios=$ncpus*0+3\ntime_based=$ncpus*0\nruntime=$ncpus*0+60\n")
        self.assertEqual(self.amounts(out["fio"][1])[0][1:3], (3 * 4096, 3))
        # JSON shows each option as fio parsed it: the keywords replaced, the arithmetic done.
        shown = {who: (doc["global options"], doc["jobs"][0]["job options"]) for who, (_, doc, _) in out.items()}
        self.assertEqual(shown["ioplan"], shown["fio"])
        self.assertEqual(shown["fio"][1]["size"], str(os.sysconf("SC_PAGESIZE") * 16))

    def test_time_with_trailing_text(self):
        out = self.both("[j]\nioengine=null\nsize=4k\ntime_based\nruntime=1*1000\n")
        for who, (p, doc, _) in out.items():
            self.assertEqual(p.returncode, 0, f"{who}: {p.stderr}")
            self.assertGreater(doc["jobs"][0]["read"]["total_ios"], 1, who)
            self.assertLess(doc["jobs"][0]["job_runtime"], 30000, who)  # 1 s, not 1000 s


    def test_a_list_part_without_a_number_keeps_the_part_before(self):
        # neutronsharc/tools' fio/README.md annotates its job file with //
        # comments: "size=2g    // => totoal bytes of this job. fio runs until ...,
        # or".  fio cuts the value at its ',' and reads each part in turn; " or"
        # holds no number, fails silently and leaves 2g.  ioplan took the last
        # part only and refused the file ("'or' is not a number").
        out = self.same_amounts("[j]\nioengine=null\nrw=read\nbs=4k\n"
                                "size=256k    // => total bytes of this job, or\n"
                                "[k]\nioengine=null\nrw=read\nbs=4k\nsize=x,128k,y:w\n")
        self.assertEqual([a[1] for a in self.amounts(out["fio"][1])], [256 << 10, 128 << 10])
        normal = run([str(out["ioplan"][2] / "job.fio")])
        self.assertEqual(normal.returncode, 0, normal.stderr)
        self.assertIn("' or' has no number and is ignored, as fio ignores it: '256k    // => total bytes of "
                      "this job' is used", normal.stdout)
        # No part with a number is an error in both.
        args = ["--name=j", "--ioengine=null", "--rw=read", "--size=a,b"]
        self.assertIn("failed parsing size=a,b", subprocess.run([FIO, *args], cwd=self.tmp, capture_output=True,
                                                      text=True, timeout=60).stderr)
        p = run(args, cwd=self.tmp)
        self.assertEqual(p.returncode, 2)
        self.assertIn("bad value for size: 'b' is not a number", p.stderr)


class LooseHeaders(BothCase):
    # tkagn-2/fio's read-iops.fio has "[bs=64K" with no ']' among its [bs=4K], [bs=256K]
    # sections: fio runs it, naming the job by the text after '[' less its last
    # character ("bs=64"); ioplan refused the whole file.
    def test_a_header_fio_runs_is_read_as_fio_names_it_with_a_warning(self):
        text = ("[global]\nioengine=null\nrw=read\nsize=64k\n[bs=4K]\nbs=4k\n[bs=64K\nbs=64k\n"
                "[c]] ; a comment\nbs=16k\n[d] x\nbs=8k\n")
        out = self.same_amounts(text)
        self.assertEqual([a[0] for a in self.amounts(out["fio"][1])], ["bs=4K", "bs=64", "c]", "d] "])
        p = out["ioplan"][0]
        self.assertIn("job.fio:7:8: warning: expected ']' to close the section header: fio 3.33 reads the line "
                      "as the job 'bs=64' (the text after '[' less its last character), and so does ioplan; "
                      "[bs=64K] names it 'bs=64K' in both", p.stderr)
        self.assertIn("job.fio:9:4: warning: unexpected text after the section header: fio 3.33 reads the line "
                      "as the job 'c]'", p.stderr)
        self.assertIn("job.fio:11:5: warning: unexpected text after the section header", p.stderr)

    def test_a_lone_bracket_is_refused_as_fio_refuses_it(self):
        out = self.both("[j]\nioengine=null\nsize=4k\n[ ; no name\nbs=4k\n")
        self.assertNotEqual(out["fio"][0].returncode, 0)
        self.assertIn("outside of [] job section", out["fio"][0].stderr)
        p = out["ioplan"][0]
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("job.fio:4:3: error: expected ']' to close the section header", p.stderr)


class SameNames(BothCase):
    # Job files repeat a section name ([a] twice, or a name= another section has):
    # both run them as jobs of their own; but a wait_for= naming two earlier jobs is
    # refused by fio ("multiple waitees", nothing runs), where ioplan waited for the first.
    def test_repeated_names_run_as_jobs_of_their_own(self):
        out = self.same_amounts("[global]\nioengine=null\nsize=64k\nrw=write\n[a]\n[a]\nbs=8k\n[b]\n")
        self.assertEqual([a[:1] + a[3:] for a in self.amounts(out["fio"][1])],
                         [("a", 65536, 16), ("a", 65536, 8), ("b", 65536, 16)])

    def test_wait_for_a_name_two_jobs_have_is_refused_as_fio_refuses_it(self):
        head = "[global]\nioengine=null\nsize=64k\nrw=write\n"
        for body in ("[a]\n[a]\nbs=8k\n[b]\nwait_for=a\n", "[a]\nnumjobs=3\n[x]\nname=a\nstonewall\n[b]\nwait_for=a\n"):
            with self.subTest(body=body):
                out = self.both(head + body)
                self.assertEqual(out["fio"][0].returncode, 1)
                self.assertIn("b: multiple waitees a found", out["fio"][0].stderr)
                p = out["ioplan"][0]
                self.assertEqual((p.returncode, p.stdout), (2, ""), p.stderr)
                self.assertIn("error: wait_for=a: 2 earlier jobs have that name (fio 3.33 refuses it too: "
                              "\"multiple waitees\")", p.stderr)
                for who in ("fio", "ioplan"):
                    self.assertEqual(sorted(f.name for f in out[who][2].iterdir()), ["job.fio"], who)
                    shutil.rmtree(out[who][2])
        # numjobs clones are one job: waiting for it is no duplicate, in either.
        self.same_amounts(head + "[a]\nnumjobs=3\n[b]\nwait_for=a\n")


class Deprecated(BothCase):
    def test_soft_deprecated_options_run_with_a_note(self):
        text = "[j]\nioengine=null\nsize=64k\nverifysort=1\nverifysort_nr=4\nflow_watermark=1\n"
        out = self.same_amounts(text)
        self.assertIn("Option verifysort is deprecated", out["fio"][0].stdout)
        normal = run([str(out["ioplan"][2] / "job.fio")])
        self.assertIn("option verifysort is deprecated and ignored", normal.stdout)
        self.assertEqual(normal.stderr, "")

    def test_hard_deprecated_options_fail_in_both(self):
        out = self.both("[j]\nioengine=null\nsize=64k\nrwmixcycle=5\n")
        self.assertNotEqual(out["fio"][0].returncode, 0)
        self.assertEqual(out["ioplan"][0].returncode, 2)
        self.assertIn("rwmixcycle", out["ioplan"][0].stderr)


class EmptyDirectionLists(BothCase):
    # A template's rate_iops=${R},${W} with both unset is "rate_iops=,": fio 3.33 fails a
    # list whose every part is empty and drops the job; ioplan ran it without a limit.
    def test_every_part_empty_fails_in_both(self):
        for value in ("rate_iops=,", "bs=,,", "bsrange=,"):
            with self.subTest(value=value):
                out = self.both("[j]\nioengine=null\nsize=64k\nrw=randrw\n" + value + "\n")
                self.assertNotEqual(out["fio"][0].returncode, 0)
                self.assertEqual(out["ioplan"][0].returncode, 2, out["ioplan"][0].stderr)
                self.assertIn("gives no value for any direction (fio 3.33 refuses it too)", out["ioplan"][0].stderr)
                for who in out:
                    shutil.rmtree(self.tmp / who)

    def test_a_part_with_a_value_runs_in_both(self):
        self.same_amounts("[j]\nioengine=null\nsize=64k\nrw=randrw\nbs=,8k\nbssplit=,\n")


class Booleans(BothCase):
    def test_set_flags_take_any_number(self):
        # time_based=10 is on (fio's FIO_OPT_STR_SET): the 4k job runs for its runtime.
        out = self.both("[j]\nioengine=null\nsize=4k\ntime_based=10\nruntime=300ms\nexitall_on_error=5\n")
        for who, (p, doc, _) in out.items():
            self.assertEqual(p.returncode, 0, f"{who}: {p.stderr}")
            self.assertGreater(doc["jobs"][0]["read"]["total_ios"], 1, who)

    def test_booleans_stay_zero_or_one(self):
        out = self.both("[j]\nioengine=null\nsize=4k\ndirect=2\n")
        self.assertNotEqual(out["fio"][0].returncode, 0)
        self.assertEqual(out["ioplan"][0].returncode, 2)


class OptionsAndValues(BothCase):
    def iolog_files(self, d):
        """The file of each write in a write_iolog (fio's v3: time, file, action), in order."""
        rows = [l.split() for l in (d / "io.log").read_text().splitlines()[1:]]
        return [r[1].rsplit("/", 1)[-1] for r in rows if r[2:3] == ["write"]]

    def test_file_service_type_with_a_count(self):
        for fst in ("roundrobin:4", "sequential:3", "random:16"):
            with self.subTest(fst=fst):
                text = (f"[j]\nioengine=psync\ndirectory={{dir}}\nnrfiles=4\nsize=256k\nrw=write\n"
                        f"file_service_type={fst}\nwrite_iolog={{dir}}/io.log\n")
                out = self.same_amounts(text)
                seqs = {who: self.iolog_files(d) for who, (_, _, d) in out.items()}
                self.assertEqual(len(seqs["fio"]), 64)
                if fst.startswith("random"):
                    # A new file only every 16 writes, in both.
                    for who, seq in seqs.items():
                        for i in range(1, len(seq)):
                            if seq[i] != seq[i - 1]:
                                self.assertEqual(i % 16, 0, (who, i, seq))
                else:
                    self.assertEqual(seqs["ioplan"], seqs["fio"])
                self.tearDown()
                self.setUp()

    def test_disk_util(self):
        for value, present in (("0", False), ("1", True)):
            with self.subTest(disk_util=value):
                out = self.same_amounts(f"[j]\nioengine=psync\nfilename={{dir}}/f\nsize=64k\nrw=write\n"
                                        f"disk_util={value}\n")
                self.assertEqual("disk_util" in out["ioplan"][1], "disk_util" in out["fio"][1])
                self.assertEqual("disk_util" in out["fio"][1], present)
                self.tearDown()
                self.setUp()

    def test_atomic_is_direct(self):
        out = self.same_amounts("[j]\nioengine=psync\nfilename={dir}/f\nsize=64k\nrw=write\natomic=1\n")
        plan = run(["--showplan", str(out["ioplan"][2] / "job.fio")])
        self.assertEqual(plan.returncode, 0, plan.stderr)
        self.assertTrue(json.loads(plan.stdout)["groups"][0]["jobs"][0]["direct"])

    def test_aio_names_and_page_multiple_iomem_align(self):
        # scylladb/diskplorer's generated jobs say ioengine=aio; xfstests ext4/304 sets iomem_align=4k.
        text = ("[j]\nioengine=aio\nfilename={dir}/f\nsize=64k\nrw=randread\niodepth=4\niomem_align=4k\n"
                "[k]\nioengine=linuxaio\nfilename={dir}/f\nsize=64k\nrw=read\nblocksize_unaligned=1\n"
                "ratecycle=500\nmem_align=8k\n")
        out = self.same_amounts(text, files={"f": 64 << 10})
        depths = {who: doc["jobs"][0]["iodepth_level"]["4"] for who, (_, doc, _) in out.items()}
        self.assertGreater(depths["ioplan"], 0)  # ran async at depth 4: libaio, not a sync engine
        off = run(["--parse-only", "--name=j", "--ioengine=null", "--size=1m", "--iomem_align=512"])
        self.assertEqual(off.returncode, 2)
        self.assertIn("iomem_align=512 would start buffers off a page boundary", off.stderr)

    def test_mem_types_with_a_backing_file(self):
        # fio's HOWTO writes mem=mmaphuge:/hugetlbfs/file, and mmapshared is one of its types:
        # both were refused.  fio creates and unlinks the file; ioplan must not touch it.
        text = ("[j]\nioengine=psync\nfilename={dir}/f\nsize=64k\nrw=write\nmem=mmap:{dir}/backing\n"
                "[k]\nioengine=psync\nfilename={dir}/g\nsize=64k\nrw=write\niomem=mmapshared\n")
        out = self.same_amounts(text)
        self.assertFalse((out["ioplan"][2] / "backing").exists())
        said = [m["text"] for m in out["ioplan"][1]["ioplan"]["messages"]]
        self.assertTrue(any("is not used: ioplan's buffers are its own private memory" in t for t in said), said)
        # A file already at that name is the user's: fio resizes it to its buffers' size (8 bytes to
        # 4 KiB when tried), ioplan leaves it as it was.
        d = out["ioplan"][2]
        (d / "backing").write_bytes(b"keep me")
        again = run(["--output-format=json", str(d / "job.fio")], cwd=d)
        self.assertEqual(again.returncode, 0, again.stderr)
        self.assertEqual((d / "backing").read_bytes(), b"keep me")
        off = run(["--parse-only", "--name=j", "--ioengine=null", "--size=1m", "--mem=mmapx:/x"])
        self.assertEqual(off.returncode, 2)
        self.assertIn("'mmapx' is not a valid mem", off.stderr)

    def test_doubled_percent(self):
        # configparser writes size=100%% for 100%; fio reads the first %.
        self.same_amounts("[j]\nioengine=psync\nfilename={dir}/f\nrw=read\nsize=100%%\n",
                          files={"f": 96 << 10})


class IecUnits(BothCase):
    def test_iec_units_run_as_written_and_say_fio_s_figure(self):
        # jsangeles61/ceph-canary's fio_job.file says bs=1024KiB, edward-scroop/fio-testing
        # size=1GiB.  Under kb_base=1024, its default, fio 3.33 reads KiB, MiB, ... as powers
        # of 1000 (4KiB is 4000 bytes); ioplan reads them as written (ioplan-job(5), Suffixes).
        # The figures differ, so the report gives fio's, once per value, and how to write it.
        text = "[j]\nioengine=null\nrw=read\nsize=1MiB\nbs=4KiB\n"
        out = self.both(text)
        for who, (p, _, _) in out.items():
            self.assertEqual(p.returncode, 0, f"{who}: {p.stderr}")
        self.assertEqual(self.amounts(out["fio"][1]), [("j", 1000000, 250, 0, 0)])
        self.assertEqual(self.amounts(out["ioplan"][1]), [("j", 1 << 20, 256, 0, 0)])
        normal = run([str(out["ioplan"][2] / "job.fio")])
        self.assertEqual((normal.returncode, normal.stderr), (0, ""))
        self.assertIn("job.fio:4:6: size=1MiB: fio 3.33 reads '1MiB' as 1000000 bytes", normal.stdout)
        self.assertEqual(normal.stdout.count("fio 3.33 reads '4KiB' as 4000 bytes"), 1, normal.stdout)
        self.assertIn("write '4K', or set kb_base=1000, for a value both read alike", normal.stdout)

    def test_kb_base_1000_reads_them_alike(self):
        # With kb_base=1000 both read KiB as 1024 and k as 1000: the same amounts, no note.
        out = self.same_amounts("[j]\nioengine=null\nrw=read\nkb_base=1000\nsize=1MiB\nbs=4KiB\n"
                                "[k]\nioengine=null\nrw=read\nkb_base=1000\nsize=1m\nbs=4k\n")
        self.assertEqual(self.amounts(out["fio"][1]), [("j", 1 << 20, 256, 0, 0), ("k", 1000000, 250, 0, 0)])
        normal = run([str(out["ioplan"][2] / "job.fio")])
        self.assertNotIn("fio 3.33 reads", normal.stdout)


class FractionSizes(BothCase):
    def test_a_size_with_a_fraction_fio_reads_otherwise_is_refused_with_fio_s_figure(self):
        # fio 3.33 reads a size's digits up to the '.' and no unit after it: size=1.5k is one
        # byte there, 2.0k two.  ioplan ran what is written (1536 and 2048 bytes) with a
        # note, a job other than fio's; now the value is refused at its point, with fio's
        # figure and the value both read alike.  A fraction of zero with no unit is alike.
        text = "[j]\nioengine=null\nrw=read\nbs=1\nsize=1.5k\n[k]\nioengine=null\nrw=read\nbs=1\nsize=2.0k\n"
        out = self.both(text)
        self.assertEqual(out["fio"][0].returncode, 0, out["fio"][0].stderr)
        self.assertEqual(self.amounts(out["fio"][1]), [("j", 1, 1, 0, 0), ("k", 2, 2, 0, 0)])
        p, job = out["ioplan"][0], out["ioplan"][2] / "job.fio"
        self.assertEqual((p.returncode, p.stdout), (2, ""))
        self.assertEqual(p.stderr.splitlines()[0], f"{job}:5:7: error: bad value for size: '1.5k' is 1 byte to fio "
                         "3.33 (it stops at the '.' and takes no unit after it), 1536 as written: write '1536', "
                         "which both read alike")
        self.assertIn(f"{job}:10:7: error: bad value for size: '2.0k' is 2 bytes to fio 3.33", p.stderr)
        alike = run(["--name=w", "--ioengine=null", "--bs=1", "--size=2.0", "--output-format=json"])
        self.assertEqual(alike.returncode, 0, alike.stderr)
        self.assertEqual(self.amounts(job_json(alike)), [("w", 2, 2, 0, 0)])

    def test_a_size_after_a_share_runs_as_written_and_says_fio_s_figure(self):
        # fio 3.33's str_size_cb leaves a share given before an absolute size in place, and
        # its setup takes the share of that size: [global] size=50% then size=256k in the
        # job reads 128 KiB of the 1 MiB file.  ioplan reads the 256 KiB written last, and
        # said nothing of fio's reading.
        text = "[global]\nsize=50%\n[j]\nioengine=psync\nfilename={dir}/f\nsize=256k\n"
        out = self.both(text, files={"f": 1 << 20})
        for who, (p, _, _) in out.items():
            self.assertEqual(p.returncode, 0, f"{who}: {p.stderr}")
        self.assertEqual(self.amounts(out["fio"][1]), [("j", 128 << 10, 32, 0, 0)])
        self.assertEqual(self.amounts(out["ioplan"][1]), [("j", 256 << 10, 64, 0, 0)])
        normal = run([str(out["ioplan"][2] / "job.fio")], cwd=out["ioplan"][2])
        self.assertEqual((normal.returncode, normal.stderr), (0, ""))
        self.assertIn("job.fio:6:6: size=256k: fio 3.33 keeps the size=50% given before it and runs 50% of 256k; "
                      "ioplan runs 256k", normal.stdout)
        alone = run(["--name=w", "--ioengine=null", "--size=50%", "--size=100%", "--size=256k", "--filename=/dev/null"])
        self.assertNotIn("fio 3.33 keeps", alone.stdout + alone.stderr)  # 100% last: fio takes all 256k

class TimeSuffixes(BothCase):
    def test_sec_min_and_ns_read_as_they_say_and_say_fio_s_figure(self):
        # Real job files write runtime=60sec.  fio 3.33's time suffixes are us, ms, s, m, h and
        # d, and any other word is microseconds: runtime=30sec stops fio's job after 30 us,
        # within its first thinktime (200ns: 200 us to fio).  ioplan reads the words as they
        # say (30 s, 200 ns: the whole 64 KiB) and the report gives fio's figure.
        text = "[j]\nioengine=null\nrw=read\nsize=64k\nthinktime=200ns\nruntime=30sec\nthinktime_blocks=1\n"
        out = self.both(text)
        for who, (p, _, _) in out.items():
            self.assertEqual(p.returncode, 0, f"{who}: {p.stderr}")
        self.assertLess(self.amounts(out["fio"][1])[0][1], 64 << 10)
        self.assertEqual(self.amounts(out["ioplan"][1]), [("j", 64 << 10, 16, 0, 0)])
        normal = run([str(out["ioplan"][2] / "job.fio"), "--runtime=2mins", "--thinktime_spin=5usecs"])
        self.assertEqual((normal.returncode, normal.stderr), (0, ""))
        self.assertIn("job.fio:6:9: runtime=30sec: fio 3.33 reads '30sec' as 30 microseconds", normal.stdout)
        self.assertIn("ioplan reads seconds: write '30s' for a value both read alike", normal.stdout)
        self.assertIn("reads '200ns' as 200 microseconds (its time suffixes are us, ms, s, m, h and d, and it "
                      "takes any other word for microseconds); ioplan reads nanoseconds, which fio has no suffix "
                      "for", normal.stdout)
        self.assertIn("ioplan reads minutes: write '2m'", normal.stdout)
        self.assertNotIn("'5usecs'", normal.stdout)    # fio's us and ms are prefixes: usecs is us to both

    def test_a_unit_with_more_after_it_is_microseconds_to_fio(self):
        # fio 3.33 compares the whole text after the number with s, m, h and d, so
        # runtime=1m30s is 1 us to it (its job stops within its first I/Os).  ioplan
        # read 1 minute and said "'30s' after the number is ignored, as fio ignores
        # it"; it now reads the 90 s meant, and the note gives fio's figure.
        text = "[j]\nioengine=null\nrw=read\nsize=64k\nthinktime=1ms\nruntime=1m30s\n"
        out = self.both(text)
        for who, (p, _, _) in out.items():
            self.assertEqual(p.returncode, 0, f"{who}: {p.stderr}")
        self.assertLess(self.amounts(out["fio"][1])[0][1], 64 << 10)
        self.assertEqual(self.amounts(out["ioplan"][1]), [("j", 64 << 10, 16, 0, 0)])
        plan = run(["--showplan", str(out["ioplan"][2] / "job.fio")])
        self.assertEqual(json.loads(plan.stdout)["groups"][0]["jobs"][0]["runtime_ns"], 90 * 10**9)
        normal = run([str(out["ioplan"][2] / "job.fio"), "--ramp_time=10s5"])
        self.assertEqual((normal.returncode, normal.stderr), (0, ""))
        self.assertIn("runtime=1m30s: fio 3.33 reads '1m30s' as 1 microsecond (a time suffix with more text after "
                      "it is none to fio, which then reads microseconds); ioplan reads 90s: write '90s' for a value "
                      "both read alike", normal.stdout)
        self.assertIn("fio 3.33 reads '10s5' as 10 microseconds", normal.stdout)
        self.assertIn("ioplan reads '10s' and ignores '5'", normal.stdout)
        self.assertNotIn("after the number is ignored, as fio ignores it", normal.stdout)


class ZoneCounts(BothCase):
    def test_sizes_and_offsets_in_zones(self):
        # stonet-research's ZNS scripts give size=1z and offset_increment=8z; fio
        # 3.33 reads "Nz" in size, io_size, offset, offset_increment and zoneskip
        # as N zones of zonesize= (none without one).  ioplan refused the suffix.
        out = self.same_amounts("[global]\nioengine=psync\nzonemode=strided\nzonesize=256k\nbs=64k\n"
                                "[w]\nrw=write\nfilename={dir}/f\nsize=2z\noffset_increment=4z\nnumjobs=2\nloops=2\n"
                                "[r]\nstonewall\nrw=read\nfilename={dir}/f\nsize=6z\noffset=1z\nio_size=3z\n")
        self.assertEqual([a[1] + a[3] for a in self.amounts(out["fio"][1])], [1 << 20, 1 << 20, 768 << 10])
        for who, (_, doc, d) in out.items():
            self.assertEqual((d / "f").stat().st_size, 1792 << 10, who)  # [r] lays out to offset + size
            self.assertEqual(doc["jobs"][0]["job options"]["size"], "2z", who)

    def test_zones_without_a_zonesize_are_no_size(self):
        # As in fio: the count stays unapplied, and a new file without a size fails.
        out = self.both("[j]\nioengine=psync\nrw=write\nbs=64k\nfilename={dir}/g\nsize=1z\n")
        for who, (p, _, _) in out.items():
            self.assertNotEqual(p.returncode, 0, who)


class UnsetVariables(BothCase):
    JOB = "[j]\nioengine=null\nsize=${IOPLAN_TEST_UNSET}64k\nrw=read\n"

    def test_empty_string_with_a_warning(self):
        os.environ.pop("IOPLAN_TEST_UNSET", None)
        out = self.same_amounts(self.JOB)
        self.assertEqual(out["fio"][0].stderr, "")
        self.assertRegex(out["ioplan"][0].stderr,
                         r"job.fio:3:6: warning: environment variable 'IOPLAN_TEST_UNSET' is not set")
        # As fio: nothing on stderr (fio says nothing); the report has it.
        p = run_as_fio([str(out["ioplan"][2] / "job.fio")])
        self.assertEqual((p.returncode, p.stderr), (0, ""))
        self.assertIn("IOPLAN_TEST_UNSET", p.stdout)


class CloneNames(BothCase):
    def test_clones_and_files_are_named_after_the_section(self):
        out = self.same_amounts("[sec]\nname=myname\nnumjobs=3\nsize=64k\nrw=write\nioengine=psync\n"
                                "directory={dir}\n")
        names = {who: [j["jobname"] for j in doc["jobs"]] for who, (_, doc, _) in out.items()}
        self.assertEqual(names["fio"], ["myname", "sec", "sec"])
        self.assertEqual(names["ioplan"], names["fio"])
        files = {who: sorted(f.name for f in d.iterdir() if f.name != "job.fio")
                 for who, (_, _, d) in out.items()}
        self.assertEqual(files["fio"], ["sec.0.0", "sec.1.0", "sec.2.0"])
        self.assertEqual(files["ioplan"], files["fio"])


class ZeroPercentOffsets(BothCase):
    def test_offset_and_offset_increment_of_0_percent_are_no_offset(self):
        # fio reads offset=0% as no offset (SPDK's test/ftl/config/fio/randw-verify-j2.fio has it);
        # ioplan refused it ("must be above 0%").
        self.same_amounts("[j]\nfilename={dir}/z.dat\nsize=256k\noffset=0%\noffset_increment=0%\nnumjobs=2\n",
                          files={"z.dat": 1 << 20})


class AliasesInTheEcho(BothCase):
    def test_job_options_use_fio_s_names(self):
        out = self.same_amounts("[global]\nreadwrite=read\n[j]\nioengine=null\nio_limit=64k\nsize=1m\n"
                                "blocksize=8k\ntimeout=10\nnr_files=1\nblockalign=8k\niodepth_batch_submit=1\n")
        (_, fdoc, _), (_, idoc, _) = out["fio"], out["ioplan"]
        self.assertEqual(idoc["global options"], fdoc["global options"])
        self.assertEqual(idoc["jobs"][0]["job options"], fdoc["jobs"][0]["job options"])
        self.assertEqual(fdoc["global options"], {"rw": "read"})


    def test_a_bare_flag_after_a_value_leaves_the_value_echoed(self):
        # time_based=10 then a bare time_based: fio echoes "10" (a bare flag has no value
        # to list); ioplan dropped the key.  A later value still replaces the earlier one.
        out = self.both("[j]\nioengine=null\nsize=64k\nruntime=100ms\ntime_based=10\ntime_based\n"
                        "stonewall\nstonewall=1\nstonewall\nbs=4k\nbs=8k\n")
        for who, (p, _, _) in out.items():
            self.assertEqual(p.returncode, 0, f"{who}: {p.stderr}")
        (_, fdoc, _), (_, idoc, _) = out["fio"], out["ioplan"]
        self.assertEqual(idoc["jobs"][0]["job options"], fdoc["jobs"][0]["job options"])
        self.assertEqual(idoc["jobs"][0]["job options"]["time_based"], "10")
        self.assertEqual(idoc["jobs"][0]["job options"]["bs"], "8k")


class Bssplit(BothCase):
    def test_zero_sizes_and_shares_past_100(self):
        for split in ("4096/50:0/,8192/,4096/", "4096/2147483648:0/", "4k/0:8k/", "4k/60:8k/60", "4k:8k:16k"):
            with self.subTest(bssplit=split):
                self.same_amounts(f"[j]\nioengine=psync\nfilename={{dir}}/f\nsize=1m\nrw=randrw\n"
                                  f"bssplit={split}\n")
                self.tearDown()
                self.setUp()


if __name__ == "__main__":
    unittest.main()
