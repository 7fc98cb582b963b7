"""tests/e2e/test_engines_local.py - splice, cpuio, exec, e4defrag and the metadata engines, against fio 3.33.

Size-bound jobs run through fio 3.33 and ioplan with the same command line in
private directories: per job, error and the read, write and trim io_bytes must
be equal.  Write cases verify with crc32c, so the data must also have gone
through the engine intact.  Time-bound jobs (cpuio, exec) must end with error 0
within their runtime.
"""
import errno
import json
import os
import re
import shutil
import subprocess
import time
import unittest

from common import BIN, FIO, ROOT, TRACED_ENV, TmpDirCase, ext4_loop, fifo_writer, run, run_as_fio, run_fio

SPLICE_CASES = {
    "splice_write_verify": ["--ioengine=splice", "--rw=randwrite", "--bs=4k", "--verify=crc32c"],
    "splice_read": ["--ioengine=splice", "--rw=read", "--bs=4k"],
    # 256k blocks move in several pipe-sized chunks each.
    "splice_big_write_verify": ["--ioengine=splice", "--rw=write", "--bs=256k", "--verify=crc32c"],
    "splice_big_randread": ["--ioengine=splice", "--rw=randread", "--bs=256k"],
}

# The metadata engines: io_bytes follow size= as fio's fake I/Os do; one timed
# operation per file (fio's clat samples, no lat).
META_CASES = {
    "filecreate": ["--ioengine=filecreate", "--nrfiles=3", "--filesize=8k", "--bs=4k"],
    "filecreate_write": ["--ioengine=filecreate", "--nrfiles=4", "--filesize=4k", "--rw=write"],
    # No size at all: fio's filecreate sizes each file as one smallest block.
    "filecreate_unsized": ["--ioengine=filecreate", "--nrfiles=5"],
    "filecreate_unsized_8k": ["--ioengine=filecreate", "--nrfiles=3", "--bs=8k", "--rw=randwrite"],
    "filestat": ["--ioengine=filestat", "--nrfiles=3", "--size=64k", "--bs=4k"],
    "filestat_lstat": ["--ioengine=filestat", "--nrfiles=2", "--filesize=4k", "--stat_type=lstat"],
    "filestat_statx": ["--ioengine=filestat", "--nrfiles=2", "--filesize=4k", "--stat_type=statx"],
    "filedelete": ["--ioengine=filedelete", "--nrfiles=5", "--filesize=4k"],
}

# fio 3.33's own examples for these engines, read from fio's source tree at test time
# (never copied into this repository), shrunk by these substitutions to run in seconds.
FIO_EXAMPLES = ROOT / "build" / "fio-src" / "examples"
EXAMPLES = ("cpuio.fio", "exec.fio", "falloc.fio", "ftruncate.fio", "filecreate-ioengine.fio",
            "filestat-ioengine.fio", "filedelete-ioengine.fio")
SHRINK = [
    (r"^runtime=\S+", "runtime=1"),
    (r"^(file)?size=\S+", r"\1size=4m"),
    (r"^nrfiles=\d+", "nrfiles=20"),
    (r"^numjobs=\d+", "numjobs=2"),
    (r"^program=/usr/sbin/turbostat", "program=sleep"),  # turbostat needs MSR access
    (r"^arguments=-c package.*", "arguments=%r"),
]


def shrunk(text, directory, size="4m"):
    for pat, rep in SHRINK:
        text = re.sub(pat, rep, text, flags=re.M)
    text = re.sub(r"^(file)?size=4m", rf"\1size={size}", text, flags=re.M)
    return re.sub(r"^directory=\S+", f"directory={directory}", text, flags=re.M)


def figures(stdout):
    """[(error, read, write, trim io_bytes)] per job of a JSON report (after any notes)."""
    doc = json.loads(stdout[stdout.index("{"):])
    return [(j["error"], j["read"]["io_bytes"], j["write"]["io_bytes"], j["trim"]["io_bytes"])
            for j in doc["jobs"]]


def tools():
    """(name, runner) of fio, when installed, and of ioplan: the two sides of a comparison."""
    return ([("fio", run_fio)] if FIO else []) + [("ioplan", run)]


def report(stdout):
    return json.loads(stdout[stdout.index("{"):])


class LocalEngines(TmpDirCase):
    def one(self, who, name, args, files=("--filename=data", "--size=1m")):
        d = self.tmp / who / name
        d.mkdir(parents=True)
        cmd = ["--name=j", *files, *args, "--output-format=json"]
        p = run_fio(cmd, cwd=d) if who == "fio" else run(cmd, cwd=d)
        self.assertIn("{", p.stdout, f"{who} {name}: {p.stderr}")
        return p.returncode, figures(p.stdout), p.stderr

    def differential(self, cases, files=("--filename=data", "--size=1m")):
        if FIO is None:
            self.skipTest("fio not installed")
        for name, args in cases.items():
            with self.subTest(name):
                frc, ff, _ = self.one("fio", name, args, files)
                irc, fi, err = self.one("ioplan", name, args, files)
                self.assertEqual(fi, ff, f"{name}: ioplan {fi} fio {ff}; {err}")
                self.assertEqual(bool(irc), bool(frc), f"{name}: exit status; {err}")

    def test_posixaio_completes_every_finished_io_before_queueing_again(self):
        # fio's posixaio getevents hands back every finished I/O its scan finds, and
        # fio completes them all before it queues again, so the depth falls below
        # iodepth whenever two or more were done (fio: 1=2%, 2=4%, 4=94% here).
        # ioplan took one a trip and queued again at once: 4=99.9%, only the first
        # three I/Os below it.
        for who in ("fio", "ioplan") if FIO else ("ioplan",):
            with self.subTest(who=who):
                d = self.tmp / who / "paio"
                d.mkdir(parents=True)
                cmd = ["--name=j", "--filename=data", "--size=8m", "--ioengine=posixaio", "--rw=write",
                       "--bs=4k", "--iodepth=4", "--output-format=json"]
                p = run_fio(cmd, cwd=d) if who == "fio" else run(cmd, cwd=d)
                self.assertEqual(p.returncode, 0, p.stderr)
                j = json.loads(p.stdout[p.stdout.index("{"):])["jobs"][0]
                below = sum(j["write"]["total_ios"] * j["iodepth_level"][k] / 100 for k in ("1", "2"))
                self.assertGreater(below, 20, j["iodepth_level"])  # the first three make 2

    def test_splice_io_bytes_and_error_are_fios(self):
        self.differential(SPLICE_CASES)

    def test_splice_alone_moves_and_verifies_every_byte(self):
        rc, f, err = self.one("ioplan", "alone", ["--ioengine=splice", "--rw=randwrite", "--bs=192k",
                                                  "--verify=crc32c", "--size=3m"])
        self.assertEqual((rc, f), (0, [(0, 3 << 20, 3 << 20, 0)]), err)

    @unittest.skipIf(shutil.which("strace") is None, "strace not installed")
    def test_splice_goes_through_a_pipe(self):
        # 16 reads of 64k: one splice from the file and one vmsplice out per block.
        st = self.tmp / "st"
        (self.tmp / "data").write_bytes(b"\1" * (1 << 20))
        p = subprocess.run(["strace", "-f", "-c", "-o", str(st), "-e", "trace=splice,vmsplice",
                            BIN, "--name=j", "--filename=data", "--size=1m", "--bs=64k", "--ioengine=splice",
                            "--rw=read", "--output-format=json"], cwd=self.tmp, capture_output=True, text=True,
                           timeout=120, env=TRACED_ENV)
        self.assertEqual(p.returncode, 0, p.stderr)
        calls = {f.split()[-1]: int(f.split()[3]) for f in st.read_text().splitlines()
                 if f.split() and f.split()[-1] in ("splice", "vmsplice")}
        self.assertEqual(calls.get("splice"), 16, calls)
        self.assertEqual(calls.get("vmsplice"), 16, calls)

    def meta(self, who, name, args):
        d = self.tmp / who / name
        d.mkdir(parents=True)
        cmd = ["--name=j", f"--directory={d}", *args, "--output-format=json"]
        p = run_fio(cmd, cwd=d) if who == "fio" else run(cmd, cwd=d)
        self.assertIn("{", p.stdout, f"{who} {name}: {p.stderr}")
        doc = report(p.stdout)
        ops = [(j[dd]["clat_ns"]["N"], j[dd]["lat_ns"]["N"]) for j in doc["jobs"] for dd in ("read", "write")
               if j[dd]["total_ios"]]
        return p.returncode, figures(p.stdout), ops, sorted(x.name for x in d.iterdir()), p.stderr

    def test_metadata_engines_are_fios(self):
        # io_bytes, error, the timed operations (clat N, lat N) and the files left: as fio 3.33.
        if FIO is None:
            self.skipTest("fio not installed")
        for name, args in META_CASES.items():
            with self.subTest(name):
                fio = self.meta("fio", name, args)
                mine = self.meta("ioplan", name, args)
                self.assertEqual(mine[:4], fio[:4], f"{name}: ioplan {mine[:4]} fio {fio[:4]}; {mine[4]}")

    def dir_engines(self, engines, size_args, n, bs):
        """Each engine in turn on the same n directories: one timed operation and bs bytes a directory."""
        d = self.tmp / "dirs"
        d.mkdir()
        for eng in engines:
            with self.subTest(eng=eng, size=size_args):
                p = run(["--name=j", f"--directory={d}", f"--ioengine={eng}", f"--nrfiles={n}", *size_args,
                         "--output-format=json"], cwd=self.tmp)
                self.assertEqual(p.returncode, 0, p.stderr)
                job = report(p.stdout)["jobs"][0]
                self.assertEqual((job["error"], job["read"]["io_bytes"], job["read"]["clat_ns"]["N"]),
                                 (0, n * bs, n))
                left = sorted(x.name for x in d.iterdir() if x.is_dir())
                self.assertEqual(left, [] if eng == "dirdelete" else [f"j.0.{i}" for i in range(n)])

    def test_directory_engines_make_stat_and_remove_directories(self):
        # fio 3.33 has no dircreate/dirstat/dirdelete (fio 3.37 added them): ioplan alone.
        self.dir_engines(("dircreate", "dirstat", "dirdelete"), ["--filesize=4k"], 4, 4096)

    def test_directory_engines_without_a_size_take_each_directory_once(self):
        # As fio 3.37's dircreate and dirdelete (fio's filecreate the same, above): one
        # smallest block a directory, so each is made or removed once.
        self.dir_engines(("dircreate", "dirdelete"), ["--bs=8k"], 3, 8192)

    def test_dircreate_on_an_existing_directory_fails_as_mkdir(self):
        (self.tmp / "j.0.0").mkdir()
        p = run(["--name=j", f"--directory={self.tmp}", "--ioengine=dircreate", "--filesize=4k",
                 "--output-format=json"], cwd=self.tmp)
        self.assertNotEqual(p.returncode, 0)
        self.assertEqual(report(p.stdout)["jobs"][0]["error"], 17)  # EEXIST
        self.assertIn("File exists", p.stderr)

    def test_metadata_rates_in_the_normal_output(self):
        for eng, line in (("filecreate", "creates: 6 files created, "), ("filestat", "stats: 6 files stat'ed, "),
                          ("filedelete", "deletes: 6 files deleted, ")):
            with self.subTest(eng):
                p = run(["--name=j", f"--directory={self.tmp}", f"--ioengine={eng}", "--nrfiles=6",
                         "--filesize=4k"], cwd=self.tmp)
                self.assertEqual(p.returncode, 0, p.stderr)
                self.assertIn("  read: IOPS=", p.stdout)
                self.assertIn("    " + line, p.stdout)
                self.assertRegex(p.stdout, r"files? \w+'?\w*, [0-9.]+k?/s\n")
                self.assertNotRegex(p.stdout, r" lat \([num]sec\): min=", "fio records the operation as clat only")
                self.assertNotIn("page cache", p.stdout + p.stderr, "no data is read")

    def test_filedelete_ends_without_errors(self):
        # The marks of the files it deleted were re-stamped after the run: one
        # "No such file or directory" error a file on stderr, with exit 0.
        p = run(["--name=j", f"--directory={self.tmp}", "--ioengine=filedelete", "--nrfiles=5",
                 "--filesize=4k", "--output-format=json"], cwd=self.tmp)
        self.assertEqual((p.returncode, p.stderr), (0, ""))
        self.assertEqual([x for x in self.tmp.iterdir() if x.name.startswith("j.")], [])
        self.assertFalse([m for m in report(p.stdout)["ioplan"]["messages"] if m["level"] == "error"])

    def test_filedelete_of_files_already_gone_fails_as_fio(self):
        # loops=2: the second pass finds the files gone.  fio fails the file's open, so the
        # failed delete is no I/O (total 4 for 4 files) and has no offset; ioplan counted a
        # fifth I/O and reported "d/j.0.0: offset 0: read: No such file or directory".
        make = ["--name=j", "--directory=d", "--nrfiles=4", "--filesize=4k", "--bs=4k"]
        for who, tool in tools():
            with self.subTest(who=who):
                w = self.tmp / who
                (w / "d").mkdir(parents=True)
                p = tool([*make, "--ioengine=filecreate", "--rw=write"], cwd=w)
                self.assertEqual(p.returncode, 0, p.stderr)
                p = tool([*make, "--ioengine=filedelete", "--loops=2", "--output-format=json"], cwd=w)
                self.assertEqual(p.returncode, 1, p.stderr)
                job = report(p.stdout)["jobs"][0]
                self.assertEqual((job["error"], job["read"]["total_ios"]), (2, 4))
                self.assertEqual(list((w / "d").iterdir()), [])
                if who == "ioplan":
                    self.assertIn("error: job 'j': d/j.0.0: unlink: No such file or directory (errno 2)", p.stderr)
                    p = tool([*make, "--ioengine=filedelete", "--loops=2"], cwd=w)  # lays out, deletes, fails
                    self.assertIn("err= 2 (unlink d/j.0.0: No such file or directory)", p.stdout)

    def test_create_on_open_stats_and_deletes_files_as_they_are_as_fio(self):
        # fio's filecreate example sets create_on_open=1: fio then lays nothing out, so
        # filestat stats the files filecreate made (empty) without writing 4 KiB into each
        # first, and a missing one fails the job.  ioplan wrote every file's data before
        # its stat (20 000 files: 13.7 s against fio's 6.6), and before its delete.
        make = ["--name=j", "--directory=d", "--nrfiles=6", "--filesize=4k", "--create_on_open=1",
                "--openfiles=1", "--fallocate=none", "--output-format=json"]
        for who, tool in tools():
            with self.subTest(who=who):
                d = self.tmp / who / "d"
                d.mkdir(parents=True)
                for engine in ("filecreate", "filestat", "filedelete"):
                    p = tool([*make, f"--ioengine={engine}"], cwd=d.parent)
                    self.assertEqual(p.returncode, 0, f"{engine}: {p.stderr}")
                    job = report(p.stdout)["jobs"][0]
                    self.assertEqual((job["error"], job["read"]["total_ios"] + job["write"]["total_ios"]), (0, 6))
                    if engine == "filedelete":
                        self.assertEqual(list(d.iterdir()), [])
                    else:  # made empty, stat'ed as they are: no byte written to any
                        self.assertEqual(sorted((f.name, f.stat().st_size, f.stat().st_blocks) for f in d.iterdir()),
                                         [(f"j.0.{i}", 0, 0) for i in range(6)], engine)
                # A file missing fails the stat job, and none is made.
                p = tool([*make, "--ioengine=filestat"], cwd=d.parent)
                self.assertNotEqual(p.returncode, 0, p.stdout)
                self.assertEqual(list(d.iterdir()), [])
                if who == "ioplan":
                    self.assertIn("with create_on_open=1 filestat works on the files as they are", p.stderr)

    def test_create_on_open_in_one_job_file_as_fio(self):
        # The cycle in one run (the files named alike across jobs), and a writer before a
        # filestat of its files: the writer's files are laid out as ever, the stat's not.
        cycle = ("[global]\ndirectory=d\nnrfiles=8\nfilesize=4k\ncreate_on_open=1\nopenfiles=1\n"
                 "fallocate=none\nfilename_format=f.$filenum\n[create]\nioengine=filecreate\n"
                 "[stat]\nstonewall\nioengine=filestat\n[delete]\nstonewall\nioengine=filedelete\n")
        mixed = ("[global]\ndirectory=d\nnrfiles=2\nfilesize=8k\nfilename_format=f.$filenum\n"
                 "[w]\nioengine=psync\nrw=write\n[stat]\nstonewall\ncreate_on_open=1\nioengine=filestat\n")
        # Created, then stat'ed as they are, and kept: no later job sizes them, so the layout
        # found nothing to make and failed the run ("file does not exist and no size is
        # given", every job err=22) before filecreate had made them.
        made = cycle[:cycle.index("[delete]")]
        for name, text, left in (("cycle", cycle, []), ("mixed", mixed, [("f.0", 8192), ("f.1", 8192)]),
                                 ("made", made, [(f"f.{i}", 0) for i in range(8)])):
            seen = {}
            for who, tool in tools():
                with self.subTest(name=name, who=who):
                    w = self.tmp / name / who
                    (w / "d").mkdir(parents=True)
                    (w / "j.fio").write_text(text)
                    p = tool(["j.fio", "--output-format=json"], cwd=w)
                    self.assertEqual(p.returncode, 0, p.stderr)
                    seen[who] = [(j["jobname"], j["error"], j["read"]["total_ios"] + j["write"]["total_ios"])
                                 for j in report(p.stdout)["jobs"]]
                    self.assertEqual(sorted((f.name, f.stat().st_size) for f in (w / "d").iterdir()), left)
            if "fio" in seen:
                self.assertEqual(seen["ioplan"], seen["fio"], name)

    def test_filecreate_makes_the_files_a_later_job_uses_as_fio(self):
        # md_create, md_stat and md_delete in one job file, all with create_on_open=1: fio
        # lays nothing out, so filecreate times the creation of each file.  ioplan laid the
        # files out for filedelete before the run ("md_delete: Laying out IO files"), and
        # filecreate timed opens of files that were there (its prerun counted 5 files, fio's 0).
        text = ("[global]\ndirectory=d\nfilesize=4k\nnrfiles=5\nopenfiles=1\ncreate_on_open=1\n"
                "filename_format=md.$filenum\n[md_create]\nioengine=filecreate\nexec_prerun=ls d | wc -l\n"
                "[md_stat]\nstonewall\nioengine=filestat\n[md_delete]\nstonewall\nioengine=filedelete\n")
        seen = {}
        for who, tool in tools():
            with self.subTest(who=who):
                w = self.tmp / who
                (w / "d").mkdir(parents=True)
                (w / "j.fio").write_text(text)
                p = tool(["j.fio"], cwd=w)
                self.assertEqual(p.returncode, 0, p.stderr)
                seen[who] = ((w / "md_create.prerun.txt").read_text().strip(),
                             [l.split(" pid=")[0] for l in p.stdout.splitlines() if "Laying out" in l or "err=" in l],
                             sorted(f.name for f in (w / "d").iterdir()))
        if "fio" in seen:
            self.assertEqual(seen["ioplan"], seen["fio"])
        self.assertEqual(seen["ioplan"][0], "0")
        self.assertEqual(seen["ioplan"][2], [])

    def test_create_on_open_leaves_a_writers_files_to_its_writes_as_fio(self):
        # With create_on_open=1 fio lays nothing out for an engine that opens its files: the
        # job's open makes a missing one (mode 0600), empty, and the writes grow it, so they
        # are the allocating writes of a new file.  ioplan fallocated 1 MiB first, so a job
        # that wrote a quarter of it left 1 MiB, and scattered writes filled no holes.
        base = ["--name=j", "--size=1m", "--bs=4k", "--create_on_open=1", "--output-format=json"]
        cases = (("part", ["--filename=f", "--rw=write", "--io_size=256k", "--ioengine=psync"]),
                 ("scattered", ["--filename=f", "--rw=randwrite", "--number_ios=2", "--ioengine=libaio",
                                "--iodepth=2"]),
                 ("many", ["--directory=.", "--nrfiles=20", "--filesize=4k", "--openfiles=1", "--rw=write",
                           "--ioengine=psync"]),
                 # The open of a file's first I/O makes it, in the job's time: a job of 3 I/Os
                 # over 10 files makes 3 (ioplan made all 10 before the job, 7 of them left empty).
                 ("reached", ["--directory=.", "--nrfiles=10", "--filesize=8k", "--number_ios=3", "--rw=write",
                              "--ioengine=psync"]))
        seen = {}
        for who, tool in tools():
            for name, args in cases:
                with self.subTest(who=who, case=name):
                    w = self.tmp / who / name
                    w.mkdir(parents=True)
                    p = tool([*base, *args], cwd=w)
                    self.assertEqual(p.returncode, 0, p.stderr)
                    job = report(p.stdout)["jobs"][0]
                    files = sorted(w.iterdir())
                    # disk_util names the disk the files go to, made or not yet (it was left out)
                    seen[who, name] = (job["error"], job["write"]["io_bytes"], len(files),
                                       [(f.stat().st_mode & 0o777, f.stat().st_blocks) for f in files],
                                       [d["name"] for d in report(p.stdout).get("disk_util", [])])
                    if name == "part":
                        self.assertEqual(files[0].stat().st_size, 256 << 10)
                    if name == "scattered":  # two blocks written, the rest a hole
                        self.assertEqual(files[0].stat().st_blocks, 16)
                    if name == "reached":
                        self.assertEqual([(f.name, f.stat().st_size) for f in files],
                                         [(f"j.0.{i}", 4096) for i in range(3)])
                    if name == "reached" and who == "ioplan":  # the files not made yet are on their directory's
                        [target] = report(p.stdout)["ioplan"]["environment"]["targets"]
                        self.assertEqual(target["files"], 10)
                        self.assertEqual(target["stack"][0]["kind"], "filesystem")
        # A job that reads has its file laid out, as without the option: fio's sync reads of
        # the empty file fail (EIO), its async ones read nothing (fio's enospc-pressure example).
        w = self.tmp / "ioplan" / "read"
        w.mkdir()
        p = run([*base, "--filename=f", "--rw=randrw", "--ioengine=libaio", "--iodepth=4"], cwd=w)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual((w / "f").stat().st_size, 1 << 20)
        if FIO is not None:
            self.assertEqual({k[1]: v for k, v in seen.items() if k[0] == "ioplan"},
                             {k[1]: v for k, v in seen.items() if k[0] == "fio"})
        # The file ioplan made is its own: a later job without the option lays it out in full.
        w = self.tmp / "ioplan" / "part"
        p = run(["--name=j", "--filename=f", "--size=1m", "--bs=4k", "--rw=read", "--ioengine=psync"], cwd=w)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual((w / "f").stat().st_size, 1 << 20)

    def test_create_on_open_never_writes_a_file_that_took_the_name_after_the_layout(self):
        # The files a create_on_open writer's open makes are left to it by the layout, which
        # found nothing there.  A file put at the name since (here while an earlier job reads
        # a FIFO) is the user's: the job's O_EXCL create fails, and the file is not written.
        # (fio's open, O_CREAT alone, writes into it.)  The job's own files are marked once
        # the run is over, so a later run reuses them as its own.
        (self.tmp / "d").mkdir()
        fifo = self.tmp / "feed"
        os.mkfifo(fifo)
        job = ("[first]\nioengine=io_uring\nrw=read\nbs=4k\nsize=4k\nfilename=feed\n"
               "[w]\nstonewall\nioengine=psync\nrw=write\nbs=4k\ncreate_on_open=1\ndirectory=d\n"
               "nrfiles=2\nfilesize=8k\n")
        (self.tmp / "j.fio").write_text(job)
        proc = subprocess.Popen([BIN, "j.fio", "--output-format=json"], cwd=self.tmp, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        self.addCleanup(proc.kill)
        # the FIFO opens for writing once the first job holds it: the layout is over
        feed = fifo_writer(fifo, proc, "the first job")
        self.assertEqual(sorted(p.name for p in (self.tmp / "d").iterdir()), [])
        (self.tmp / "d" / "w.0.1").write_bytes(b"the user's")
        os.write(feed, b"x" * 4096)
        os.close(feed)
        out, err = proc.communicate(timeout=60)
        self.assertEqual(proc.returncode, 1, err)
        self.assertIn("w.0.1: create (create_on_open): something took the name since the layout found nothing "
                      "there; it is not written", err)
        self.assertEqual((self.tmp / "d" / "w.0.1").read_bytes(), b"the user's")
        self.assertEqual(report(out)["jobs"][1]["error"], errno.EEXIST)
        p = run(["--name=again", "--directory=d", "--filename=w.0.0", "--size=8k", "--rw=write", "--bs=4k",
                 "--ioengine=psync"], cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)   # w.0.0 was made and marked by the first run
        # unlink=1 removes the files the job made, and says nothing of those it left to its open
        # (it said each was kept, "ioplan did not create it").
        (self.tmp / "u").mkdir()
        p = run(["--name=u", "--directory=u", "--nrfiles=3", "--filesize=8k", "--bs=4k", "--create_on_open=1",
                 "--unlink=1", "--ioengine=psync", "--rw=write", "--output-format=json"], cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual([m["code"] for m in report(p.stdout)["ioplan"]["messages"] if m["code"] == "unlink-kept"], [])
        self.assertEqual(list((self.tmp / "u").iterdir()), [])

    def test_create_on_open_leaves_the_descriptors_of_other_jobs_open(self):
        # A create_on_open job grows the descriptor table before its first open.  It did so
        # with dup2() onto a number past the lowest free one, which closed whatever another
        # job held there: b's file, closed, leaves a hole below a's 64 open files, and c's
        # reserve from that hole landed on one of a's (a: "write: Bad file descriptor").
        # A descriptor c opened under that number would have taken a's writes instead.
        (self.tmp / "d").mkdir()
        job = ("[global]\ndirectory=d\nioengine=psync\nbs=4k\nrw=write\n"
               "[b]\nfilename_format=b.$filenum\nfilesize=64k\ntime_based=1\nruntime=300ms\n"
               "[a]\nfilename_format=a.$filenum\nstartdelay=100ms\nnrfiles=64\nfilesize=16k\n"
               "rate_iops=100\nverify=crc32c\n"
               "[c]\nfilename_format=c.$filenum\nstartdelay=1s\ncreate_on_open=1\nnrfiles=32\n"
               "filesize=16k\nverify=crc32c\n")
        (self.tmp / "j.fio").write_text(job)
        p = run(["j.fio", "--output-format=json"], cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        jobs = {j["jobname"]: (j["error"], j["write"]["io_bytes"], j["read"]["io_bytes"])
                for j in report(p.stdout)["jobs"]}
        # every block written where it was meant to go, and read back verified there
        self.assertEqual((jobs["a"], jobs["c"]), ((0, 64 * 16384, 64 * 16384), (0, 32 * 16384, 32 * 16384)))

    def test_files_made_on_open_carry_tokens_of_their_own(self):
        # A mark's token is random per file (engine/mark.c).  Drawn from the layout's seed,
        # which a layout that made no file had not drawn, file 1 of every such run got the
        # same token.
        tokens = []
        for run_dir in ("a", "b"):
            d = self.tmp / run_dir
            d.mkdir()
            p = run(["--name=t", "--directory=.", "--nrfiles=2", "--filesize=4k", "--create_on_open=1",
                     "--ioengine=psync", "--rw=write", "--output-format=json"], cwd=d)
            self.assertEqual(p.returncode, 0, p.stderr)
            tokens += [os.getxattr(d / f"t.0.{i}", "user.ioplan")[8:16] for i in range(2)]
        self.assertEqual(len(set(tokens)), 4, [t.hex() for t in tokens])

    def test_create_on_open_out_of_inodes_fails_the_job_where_fio_does(self):
        # The job's own open meets the full file system: the job fails with ENOSPC after the
        # files it made, as fio's; the message names the create once (it said the error twice).
        seen = {}
        for who, tool in tools():
            d = self.tmp / who
            d.mkdir()
            if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m,nr_inodes=6", "tmpfs", str(d)]).returncode:
                self.skipTest("cannot mount tmpfs")
            try:
                p = tool(["--name=c", f"--directory={d}", "--nrfiles=10", "--filesize=4k", "--create_on_open=1",
                          "--ioengine=psync", "--rw=write", "--output-format=json"])
            finally:   # unmounted before the test's directory is removed
                subprocess.run(["umount", "-l", str(d)])
            self.assertEqual(p.returncode, 1, p.stderr)
            job = report(p.stdout)["jobs"][0]
            seen[who] = (job["error"], job["write"]["io_bytes"])
            if who == "ioplan":
                self.assertIn("c.0.5: create (create_on_open): No space left on device (errno 28)", p.stderr)
                self.assertEqual(seen[who], (errno.ENOSPC, 5 * 4096))
        self.assertEqual(len(set(seen.values())), 1, seen)

    def test_filestat_without_create_on_open_lays_its_files_out_as_fio(self):
        for who, tool in tools():
            with self.subTest(who=who):
                d = self.tmp / who
                d.mkdir()
                (d / "j.0.0").write_bytes(b"")
                p = tool(["--name=j", "--directory=.", "--nrfiles=2", "--filesize=4k", "--ioengine=filestat",
                          "--output-format=json"], cwd=d)
                self.assertEqual(p.returncode, 0, p.stderr)
                self.assertEqual(sorted((f.name, f.stat().st_size) for f in d.iterdir()),
                                 [("j.0.0", 4096), ("j.0.1", 4096)])

    def test_filedelete_never_deletes_a_file_ioplan_did_not_create(self):
        keep = self.tmp / "keep"
        keep.write_text("precious")
        p = run(["--name=j", "--ioengine=filedelete", "--filename=keep", "--size=4k"], cwd=self.tmp)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("allow_existing_file_write", p.stderr)
        self.assertEqual(keep.read_text(), "precious")

    def test_mmap_refuses_blocks_off_the_page_where_fio_does(self):
        # fio's mmap engine fails at its start with direct=1, fsync= or fdatasync= and a block
        # size off the page; ioplan ran every I/O (and with bs=1000 direct=1 printed an
        # O_DIRECT alignment error for transfers mmap never makes, then exited 0).
        for extra in (["--bs=2k", "--direct=1"], ["--bs=1000", "--direct=1"], ["--bs=2k", "--fsync=4"]):
            with self.subTest(extra=extra):
                args = ["--name=j", "--ioengine=mmap", "--rw=read", "--size=1m", *extra, "--output-format=json"]
                for who, tool in tools():
                    d = self.tmp / f"{who}{extra[0]}{extra[1]}"
                    d.mkdir()
                    p = tool(args, cwd=d)
                    self.assertEqual(p.returncode, 1, f"{who}: {p.stderr}")
                    job = json.loads(p.stdout[p.stdout.index("{"):])["jobs"][0]
                    self.assertEqual(job["read"]["io_bytes"], 0, who)
                self.assertIn("ioengine=mmap with", p.stderr)
                self.assertNotIn("multiples of 512", p.stderr)
        p = run(["--name=j", "--ioengine=mmap", "--rw=read", "--size=1m", "--bs=2k", "--output-format=json"],
                cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)

    def test_mmap_thp_keeps_writes_in_private_memory_as_fio(self):
        # fio's mmap thp=1 maps the file MAP_PRIVATE with MADV_HUGEPAGE, so a write job leaves
        # the file as it was; ioplan refused thp as an unknown option.
        for thp in ("1", "0"):
            for who, tool in tools():
                with self.subTest(thp=thp, who=who):
                    d = self.tmp / f"thp{thp}-{who}"
                    d.mkdir()
                    (d / "f").write_bytes(bytes(1 << 20))
                    p = tool(["--name=j", "--ioengine=mmap", "--filename=f", "--rw=write", "--size=1m",
                              f"--thp={thp}", "--output-format=json"]
                             + (["--allow_existing_file_write=1"] if who == "ioplan" else []), cwd=d)
                    self.assertEqual(p.returncode, 0, f"{who}: {p.stderr}")
                    job = json.loads(p.stdout[p.stdout.index("{"):])["jobs"][0]
                    self.assertEqual(job["write"]["io_bytes"], 1 << 20, who)
                    unchanged = (d / "f").read_bytes() == bytes(1 << 20)
                    self.assertEqual(unchanged, thp == "1", who)

    def test_mmap_with_fill_device_lays_its_file_out_as_fio(self):
        # mmap cannot grow a file: fio lays it out with data to size= first, fill_device=1 or
        # not, and writes it (1 MiB, exit 0); ioplan left it empty for the writes to grow and
        # its first write was past the mapping ("write: Invalid argument", exit 1).
        for rw in ("write", "randrw"):
            for who, tool in tools():
                with self.subTest(rw=rw, who=who):
                    d = self.tmp / f"fill-{rw}-{who}"
                    d.mkdir()
                    p = tool(["--name=j", "--ioengine=mmap", "--filename=f", f"--rw={rw}", "--size=1m",
                              "--fill_device=1", "--output-format=json"], cwd=d)
                    self.assertEqual(p.returncode, 0, f"{who}: {p.stderr}")
                    job = json.loads(p.stdout[p.stdout.index("{"):])["jobs"][0]
                    self.assertEqual(job["error"], 0, who)
                    self.assertEqual(job["read"]["io_bytes"] + job["write"]["io_bytes"], 1 << 20, who)
                    self.assertEqual((d / "f").stat().st_size, 1 << 20, who)

    def test_filecreate_unlink_removes_what_it_made_and_nothing_else(self):
        # fio's unlink=1 removes filecreate's files at the job's end; ioplan left them.  A
        # file of the user's by one of the names stays, with its data.
        args = ["--name=j", "--ioengine=filecreate", "--nrfiles=3", "--filesize=4k", "--unlink=1",
                "--output-format=json"]
        for who, tool in tools():
            d = self.tmp / who
            d.mkdir()
            p = tool(args, cwd=d)
            self.assertEqual(p.returncode, 0, f"{who}: {p.stderr}")
            self.assertEqual(sorted(x.name for x in d.iterdir()), [], who)
        d = self.tmp / "users"
        d.mkdir()
        (d / "j.0.1").write_text("precious")
        p = run(args, cwd=d)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(sorted(x.name for x in d.iterdir()), ["j.0.1"])
        self.assertEqual((d / "j.0.1").read_text(), "precious")

    def test_engine_options_in_global_do_not_bind_other_engines(self):
        # fio's e4defrag2.fio: donorname in an e4defrag [global], a libaio job below it.
        self.write("g.fio", "[global]\nioengine=e4defrag\ndonorname=x.def\nsize=64k\n"
                   "[a]\nioengine=psync\nrw=write\nfilename=data\n")
        p = run(["--output-format=json", "g.fio"], cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(figures(p.stdout), [(0, 0, 65536, 0)])
        # Under the [global]'s own engine (psync) it is fio's "Bad option": refused.
        self.write("h.fio", "[global]\ndonorname=x.def\nsize=64k\n[a]\nioengine=psync\nrw=write\nfilename=data\n")
        p = run(["--parse-only", "h.fio"], cwd=self.tmp)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("h.fio:2:1: error: donorname is an option of ioengine=e4defrag, not of ioengine=psync", p.stderr)

    def test_stat_type_under_another_engine_is_refused(self):
        p = run(["--name=j", "--ioengine=psync", "--stat_type=lstat", "--size=4k", "--filename=data"], cwd=self.tmp)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("error: job 'j': stat_type is an option of ioengine=filestat,dirstat, not of ioengine=psync",
                      p.stderr)
        self.assertFalse((self.tmp / "data").exists())

    def test_cpuio_burns_its_share_for_the_runtime(self):
        # fio 3.33: cpuload=50 with the default 50 ms chunks makes 10 "I/Os" a second
        # (each a burn, then a think as long), moves no bytes and ends with error 0.
        for mode in ("noop", "qsort"):
            with self.subTest(mode):
                p = run(["--name=c", "--ioengine=cpuio", "--cpuload=50", f"--cpumode={mode}", "--runtime=1",
                         "--output-format=json"], cwd=self.tmp, timeout=60)
                self.assertEqual(p.returncode, 0, p.stderr)
                job = report(p.stdout)["jobs"][0]
                self.assertEqual((job["error"], job["read"]["io_bytes"]), (0, 0))
                # No byte moved, so no runtime and no IOPS for the direction, as fio's.
                self.assertEqual((job["read"]["runtime"], job["read"]["iops"]), (0, 0.0))
                # About 10 cycles in 1 s on an idle machine; a busy one (or an instrumented
                # build) stretches the burns, so only what the tool controls is asserted:
                # never more cycles than burn + think allow, each burn at least the chunk,
                # and the think really slept between the burns.
                ios = job["read"]["total_ios"]
                self.assertGreaterEqual(ios, 1)
                self.assertLessEqual(ios, 11)
                self.assertGreaterEqual(job["read"]["clat_ns"]["min"], 50_000_000)
                burnt_ms = ios * job["read"]["clat_ns"]["mean"] / 1e6
                self.assertGreaterEqual(job["job_runtime"], 0.95 * (burnt_ms + (ios - 1) * 50),
                                        "a 50 ms think after every burn")
                self.assertEqual(list(self.tmp.iterdir()), [], "cpuio touches no file")

    def test_cpuio_exit_on_io_done_ends_with_the_io_jobs_as_fio(self):
        # fio's cpuio exit_on_io_done=1 ends the burner once every job that does I/O has
        # ended; a job of a later group counts as still to come, and with no such job in the
        # run it changes nothing.  ioplan refused the option as unknown.
        burn = "[burn]\nioengine=cpuio\ncpuload=10\ncpuchunks=1000\nexit_on_io_done=1\ntime_based\n"
        io = "[io]\nioengine=psync\nfilename=f\nrw=write\nsize=1m\nrate=4m\n"
        cases = {"beside": (burn + "runtime=60\n" + io, lambda ms: ms < 30_000),
                 "later_group": (burn + "runtime=1\n" + io + "stonewall\n", lambda ms: ms >= 990),
                 "alone": (burn + "runtime=1\n", lambda ms: ms >= 990)}
        for name, (text, judge) in cases.items():
            for who, tool in tools():
                with self.subTest(case=name, who=who):
                    d = self.tmp / f"{name}-{who}"
                    d.mkdir()
                    (d / "j.fio").write_text(text)
                    p = tool(["j.fio", "--output-format=json"], cwd=d, timeout=120)
                    self.assertEqual(p.returncode, 0, f"{who}: {p.stderr}")
                    jobs = {j["jobname"]: j for j in report(p.stdout)["jobs"]}
                    self.assertTrue(judge(jobs["burn"]["job_runtime"]), jobs["burn"]["job_runtime"])
                    self.assertEqual(jobs["burn"]["error"], 0)
                    if "io" in jobs:
                        self.assertEqual(jobs["io"]["write"]["io_bytes"], 1 << 20)

    def test_cpuio_load_above_100_and_chunks_of_0_run_as_fio(self):
        # fio 3.33 clamps cpuload to 100 and burns chunks of 0 us (one clock read each, no
        # think); ioplan refused both as out of range, so such a job file did not run at all.
        # runtime=500ms, which both tools take: a full load spins a core for all of it, and
        # half a second still holds 25 chunks of 20 ms and thousands of clock reads.
        for args, least_ios, fills in ((["--cpuload=150", "--cpuchunks=20000"], 2, True),
                                       (["--cpuload=100", "--cpuchunks=0"], 1000, False)):
            for who, tool in tools():
                with self.subTest(args=args, who=who):
                    p = tool(["--name=c", "--ioengine=cpuio", *args, "--runtime=500ms", "--output-format=json"],
                             cwd=self.tmp, timeout=60)
                    self.assertEqual(p.returncode, 0, f"{who}: {p.stderr}")
                    job = report(p.stdout)["jobs"][0]
                    self.assertEqual(job["error"], 0)
                    ios = job["read"]["total_ios"]
                    self.assertGreaterEqual(ios, least_ios)
                    # a full load thinks not at all: the burns fill the runtime (at 50 % they fill half)
                    burnt_ms = ios * job["read"]["clat_ns"]["mean"] / 1e6
                    if fills:  # chunks of 0 us are all bookkeeping: no share to measure
                        self.assertGreaterEqual(burnt_ms, 0.8 * job["job_runtime"], f"{who}: {job['job_runtime']}")

    def test_cpuio_without_cpuload_is_refused(self):
        p = run(["--name=c", "--ioengine=cpuio", "--runtime=1"], cwd=self.tmp)
        self.assertEqual(p.returncode, 2)
        self.assertIn("error: job 'c': ioengine=cpuio needs cpuload=", p.stderr)
        p = run(["--name=c", "--ioengine=psync", "--cpuload=10", "--size=4k", "--filename=d"], cwd=self.tmp)
        self.assertEqual(p.returncode, 2)
        self.assertIn("cpuload is an option of ioengine=cpuio, not of ioengine=psync", p.stderr)

    def test_enghelp_lists_every_engine_with_its_options(self):
        p = run(["--enghelp"])
        self.assertEqual(p.returncode, 0, p.stderr)
        lines = p.stdout.splitlines()
        self.assertEqual(lines[0], "Available IO engines:")
        listed = {ln.split("\t")[1]: ln for ln in lines[1:]}
        table = next(o for o in json.loads(run(["--dump-options=json"]).stdout) if o["name"] == "ioengine")
        self.assertEqual(sorted(listed), sorted(c["name"] for c in table["choices"]))
        for eng, opts in (("filestat", "stat_type"), ("dirstat", "stat_type"), ("cpuio", "cpuload cpuchunks cpumode"),
                          ("pvsync2", "hipri")):
            with self.subTest(eng):
                self.assertIn(opts, listed[eng])
                self.assertIn("(options: ", listed[eng])
        self.assertEqual(listed["splice"], "\tsplice", "no options, as fio's 'has no options'")
        self.assertNotIn("unavailable", p.stdout, "every engine's library was there at build time")
        p = run(["--enghelp=filestat"])
        self.assertEqual(p.stdout, "stat_type               : the stat call each file or directory gets.\n")
        # Each line reads as fio's: the option's help without the "engine: " the table gives
        # it, unless the help speaks of several engines in turn ("io_uring: ...; pvsync2: ...").
        for eng in listed:
            for line in run([f"--enghelp={eng}"]).stdout.splitlines():
                kept = re.match(r"^\S+\s+: [a-z_0-9]+: (.*)", line)
                with self.subTest(eng=eng, line=line):
                    self.assertTrue(not kept or re.search(r"; [a-z][a-z_0-9]*: ", kept.group(1)),
                                    "an engine prefix left in the help")

    def test_exec_runs_the_program_with_fios_substitutions(self):
        # %n is the job's name, %r its runtime in seconds; std_redirect (the default)
        # puts the program's stdout in <job>.stdout.  The job is time-bound: error 0.
        p = run(["--name=ex", "--ioengine=exec", "--program=echo", "--arguments=name=%n runtime=%r",
                 "--runtime=1", "--output-format=json"], cwd=self.tmp, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        job = report(p.stdout)["jobs"][0]
        self.assertEqual((job["error"], job["read"]["io_bytes"]), (0, 0))
        self.assertEqual((self.tmp / "ex.stdout").read_text(), "name=ex runtime=1\n")
        self.assertEqual((self.tmp / "ex.stderr").read_text(), "")

    def test_exec_stops_a_program_that_outlives_the_job(self):
        # sleep 60 under runtime=1 and grace_time=0: SIGTERM at the job's end, and the run
        # is over in seconds, the program reaped (no sleep left behind).
        marker = "3600.5"
        p = run(["--name=ex", "--ioengine=exec", "--program=sleep", f"--arguments={marker}", "--runtime=1",
                 "--grace_time=0", "--std_redirect=0", "--output-format=json"], cwd=self.tmp, timeout=30)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(report(p.stdout)["jobs"][0]["error"], 0)
        left = subprocess.run(["pgrep", "-f", f"sleep {marker}"], capture_output=True, text=True)
        self.assertEqual(left.stdout, "", "the program outlived the run")
        self.assertFalse((self.tmp / "ex.stdout").exists(), "std_redirect=0 writes no file")

    def test_engines_without_io_count_reads_and_exec_looks_as_fio(self):
        # fio's FIO_NOIO engines draw no direction: rw=write's ops are reads in its report
        # (ioplan counted them under write).  exec's I/O after the first sleeps 50 ms in the
        # engine, and the job thinks 50 ms between them: at most 11 in 1 s, each timed at
        # 50 ms or more (ioplan made 20, timed at microseconds).
        for who, tool in tools():
            for eng in (["--ioengine=cpuio", "--cpuload=50"], ["--ioengine=exec", "--program=sleep",
                                                               "--arguments=30", "--grace_time=0"]):
                with self.subTest(who=who, engine=eng[0]):
                    p = tool(["--name=x", *eng, "--rw=write", "--runtime=1", "--output-format=json"],
                             cwd=self.tmp, timeout=60)
                    self.assertEqual(p.returncode, 0, p.stderr)
                    job = report(p.stdout)["jobs"][0]
                    ios = job["read"]["total_ios"]
                    self.assertEqual((job["error"], job["write"]["total_ios"]), (0, 0))
                    self.assertLessEqual(ios, 11)
                    # A busy machine stretches cpuio's 50 ms burns (CPU time) past the runtime; exec's
                    # looks are sleeps, so a second one comes within 100 ms whatever the load.
                    self.assertGreaterEqual(ios, 2 if eng[0] == "--ioengine=exec" else 1)
                    if eng[0] == "--ioengine=exec":
                        self.assertGreaterEqual(job["read"]["clat_ns"]["percentile"]["50.000000"], 50_000_000)

    @unittest.skipUnless(FIO, "fio 3.33 is not installed")
    def test_engines_without_io_open_with_fios_lines(self):
        # fio prints no banner line for cpuio and exec (its FIO_NOIO engines, only the "..." of
        # their clones): each thread's engine says what it does after the Starting line
        # ("c (noop): ioengine=cpuio, cpuload=30, cpucycle=20000", exec's program and where its
        # output goes), on stdout ahead of a JSON report too.  ioplan printed the banner line
        # of an I/O job ("c: (g=0): rw=read, bs=(R) 4096B-4096B, ...") and neither line.
        cases = {
            "cpuio_noop": ["--name=c", "--ioengine=cpuio", "--cpuload=30", "--cpuchunks=20000"],
            "cpuio_qsort_over_100": ["--name=c", "--ioengine=cpuio", "--cpuload=150", "--cpumode=qsort"],
            "cpuio_clones_depth": ["--name=c", "--ioengine=cpuio", "--cpuload=30", "--numjobs=2", "--iodepth=2"],
            "exec_redirected": ["--name=x", "--ioengine=exec", "--program=true", "--arguments=%n a"],
            "exec_plain_no_args": ["--name=x", "--ioengine=exec", "--program=true", "--std_redirect=0"],
        }
        for name, args in cases.items():
            for fmt in ("normal", "json"):
                with self.subTest(name, fmt=fmt):
                    said = {}
                    for who, tool in (("fio", run_fio), ("ioplan", run_as_fio)):
                        d = self.tmp / who / name / fmt
                        d.mkdir(parents=True)
                        p = tool([*args, "--runtime=300ms", "--time_based", f"--output-format={fmt}"],
                                 cwd=d, timeout=60)
                        self.assertEqual(p.returncode, 0, f"{who}: {p.stderr}")
                        opening = p.stdout.split("\n\n" if fmt == "normal" else "{", 1)[0]
                        # fio's threads print their lines as each starts: the clones' may interleave.
                        said[who] = sorted(opening.splitlines())
                    self.assertEqual(said["ioplan"], said["fio"])

    def test_exec_refusals(self):
        p = run(["--name=ex", "--ioengine=exec", "--runtime=1"], cwd=self.tmp)
        self.assertEqual(p.returncode, 2)
        self.assertIn("error: job 'ex': ioengine=exec needs program=", p.stderr)
        p = run(["--name=ex", "--ioengine=exec", "--program=/nonexistent/prog", "--runtime=1",
                 "--output-format=json"], cwd=self.tmp)
        self.assertEqual(p.returncode, 1)
        self.assertEqual(report(p.stdout)["jobs"][0]["error"], 2)  # ENOENT from posix_spawnp
        # Named as what failed, not as a read of a made-up file "ex.0.0" at offset 0.
        self.assertIn("error: job 'ex': exec /nonexistent/prog: No such file or directory (errno 2)", p.stderr)
        self.assertNotIn("ex.0.0", p.stderr)
        p = run(["--name=ex", "--ioengine=exec", "--program=/nonexistent/prog", "--runtime=1"], cwd=self.tmp)
        self.assertIn("err= 2 (exec /nonexistent/prog: No such file or directory)", p.stdout)
        p = run(["--name=j", "--ioengine=psync", "--program=ls", "--size=4k", "--filename=d"], cwd=self.tmp)
        self.assertEqual(p.returncode, 2)
        self.assertIn("program is an option of ioengine=exec, not of ioengine=psync", p.stderr)

    @unittest.skipUnless(FIO_EXAMPLES.is_dir(), "fio's source tree (examples/) is not there")
    def test_fios_examples_parse_and_shrunk_run(self):
        for name in EXAMPLES:
            with self.subTest(name):
                text = (FIO_EXAMPLES / name).read_text()
                d = self.tmp / name
                d.mkdir()
                (d / name).write_text(text)
                p = run(["--parse-only", name], cwd=d)
                self.assertEqual(p.returncode, 0, f"{name} as fio ships it: {p.stderr}")
                # 256k: the metadata examples lay out 240 files first (4m each was 1 GB of writes).
                (d / name).write_text(shrunk(text, d, size="256k"))
                p = run(["--output-format=json", name], cwd=d, timeout=300)
                self.assertEqual(p.returncode, 0, f"{name} shrunk: {p.stderr}")
                errors = [(j["jobname"], j["error"]) for j in report(p.stdout)["jobs"] if j["error"]]
                self.assertEqual(errors, [], name)


class E4defrag(TmpDirCase):
    CASES = {
        "write": ["--rw=write"],
        "randwrite_inplace": ["--rw=randwrite", "--inplace=1"],
        "read_refused": ["--rw=read"],  # fio: EINVAL, reads are not the engine's operation
        # fio hands the engine its syncs as I/Os, which it refuses as it does reads:
        # the job ends at the first (ioplan synced and ended with error 0).
        "fsync_refused": ["--rw=write", "--fsync=1"],
        "end_fsync_refused": ["--rw=write", "--end_fsync=1"],
    }

    def one(self, exe, mnt, args):
        for name in ("f1", "f1.def"):
            (mnt / name).unlink(missing_ok=True)
        p = subprocess.run([exe, "--name=d", "--ioengine=e4defrag", f"--directory={mnt}", "--filename=f1",
                            "--donorname=f1.def", "--size=4m", "--filesize=4m", "--bs=32k", *args,
                            "--output-format=json"], capture_output=True, text=True, timeout=120)
        return figures(p.stdout), bool(p.returncode), p.stderr

    def test_io_bytes_and_error_are_fios_on_ext4(self):
        mnt = ext4_loop(self)
        for name, args in self.CASES.items():
            with self.subTest(name):
                mine = self.one(BIN, mnt, args)
                self.assertFalse((mnt / "f1.def").exists(), "the donor ioplan made is removed")
                if FIO is not None:
                    fio = self.one(FIO, mnt, args)
                    self.assertEqual(mine[:2], fio[:2], f"ioplan {mine} fio {fio}")
                want = {"read_refused": (22, 0, 0, 0), "fsync_refused": (22, 0, 32 << 10, 0),
                        "end_fsync_refused": (22, 0, 4 << 20, 0)}.get(name, (0, 0, 4 << 20, 0))
                self.assertEqual(mine[0], [want], mine[2])

    @unittest.skipUnless(FIO_EXAMPLES.is_dir(), "fio's source tree (examples/) is not there")
    def test_fios_e4defrag2_runs_as_fio(self):
        # Clones share one donor and two jobs lend each other theirs: donors this run
        # created are shared (and removed after their last user).  The last group
        # (defrag under concurrent verified aio on one file) races in fio itself:
        # only the deterministic groups are compared; the last must end, as fio's.
        mnt = ext4_loop(self)
        text = (FIO_EXAMPLES / "e4defrag2.fio").read_text()
        out = {}
        for who, exe in (("fio", FIO), ("ioplan", BIN)):
            if exe is None:
                continue
            d = mnt / who
            d.mkdir()
            # One file per clone, as the example has it (SHRINK's nrfiles is for the metadata examples).
            (d / "job.fio").write_text(re.sub(r"(?m)^nrfiles=\d+", "nrfiles=1", shrunk(text, d)))
            p = subprocess.run([exe, "--output-format=json", "job.fio"], cwd=d, capture_output=True, text=True,
                               timeout=300)
            out[who] = figures(p.stdout)
            self.assertEqual(len(out[who]), 4, f"{who}: one entry per group: {p.stderr}")
            if who == "ioplan":
                self.assertEqual([n for n in os.listdir(d) if n.endswith(".def")], [], "donors made are removed")
            shutil.rmtree(d)
        # parallel-e4defrag (2 clones, one donor), e4defrag-1 + e4defrag-2, e4defrag-fuzzer-4k.
        self.assertEqual(out["ioplan"][:3], [(0, 0, 8 << 20, 0), (0, 0, 8 << 20, 0), (0, 0, 4 << 20, 0)])
        if "fio" in out:
            self.assertEqual(out["ioplan"][:3], out["fio"][:3])

    def test_a_donor_of_this_run_is_shared_but_a_users_is_not(self):
        mnt = ext4_loop(self)
        p = run(["--name=d", "--ioengine=e4defrag", f"--directory={mnt}", "--donorname=shared.def", "--size=1m",
                 "--bs=32k", "--rw=write", "--numjobs=3", "--group_reporting", "--output-format=json"])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(figures(p.stdout), [(0, 0, 3 << 20, 0)])
        self.assertFalse((mnt / "shared.def").exists(), "the last clone removes the donor the run made")

    def test_a_donor_holding_data_is_refused(self):
        mnt = ext4_loop(self)
        (mnt / "don").write_text("keep")
        p = run(["--name=d", "--ioengine=e4defrag", f"--directory={mnt}", "--filename=f1", "--donorname=don",
                 "--size=1m", "--rw=write", "--output-format=json"])
        self.assertEqual(p.returncode, 2, p.stderr)  # before any I/O (it was exit 1, 'File exists', after the layout)
        self.assertIn(f"donorname=don: {mnt}/don exists and holds data ioplan was not given", p.stderr)
        self.assertFalse((mnt / "f1").exists())
        self.assertEqual((mnt / "don").read_text(), "keep")

    def test_donorname_is_required(self):
        p = run(["--name=d", "--ioengine=e4defrag", "--filename=f", "--size=1m", "--rw=write"], cwd=self.tmp)
        self.assertEqual(p.returncode, 2)
        self.assertIn("ioengine=e4defrag needs donorname=", p.stderr)


if __name__ == "__main__":
    unittest.main()
