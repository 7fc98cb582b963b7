"""tests/e2e/test_fio_run_parity.py - runs that must go as fio 3.33's go, job file for job file.

Job files other people wrote run through fio and ioplan side by side: what a
run does (which jobs run, the errors they report, the files and directories it
makes, the bytes it moves, its counters and its wording) is compared with what
fio 3.33 does with the same file.  Each test writes its own small job file,
runs both tools in private directories and compares the figures the tools
control (bytes, I/O counts, error numbers, exit status), never timings.
"""
import hashlib
import itertools
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import unittest

from common import BIN, FIO, TRACED_ENV, TmpDirCase, loop_device, mark_of, run, run_as_fio, run_fio, wait_until


def json_of(stdout):
    """The JSON document of a run's stdout (fio may print its notes before it)."""
    return json.loads(stdout[stdout.index("{"):])


def iolog_ops(path):
    """Each entry of a write_iolog file without its time, and without the opens and
    closes (fio reopens its files between rounds; ioplan keeps them open)."""
    return [l.split()[2:] for l in path.read_text().splitlines()[1:] if l.split()[2] not in ("open", "close")]


def jobs_of(doc):
    return {j["jobname"]: j for j in doc["jobs"]}


@unittest.skipIf(FIO is None, "fio not installed")
class RunParity(TmpDirCase):
    def both(self, text, args=("--output-format=json",), name="job.fio", as_fio=False, prepare=None):
        """{tool: (CompletedProcess, its directory)} of one job file run by each tool
        (ioplan through a symlink named fio when as_fio); {dir} in text is the
        tool's own directory, which prepare(dir) may fill first."""
        out = {}
        for who in ("fio", "ioplan"):
            d = self.tmp / who
            d.mkdir(exist_ok=True)
            (d / name).write_text(text.replace("{dir}", str(d)))
            if prepare:
                prepare(d)
            tool = run_fio if who == "fio" else run_as_fio if as_fio else run
            out[who] = (tool([*args, name], cwd=d), d)
        return out

    def test_each_job_line_names_its_own_thread(self):
        # fio's "pid=" is each job's process, under --thread its thread's id, and a
        # group_reporting group's first member's; ioplan printed its own pid for all.
        argv = ["--name=a", "--ioengine=null", "--size=1m", "--name=b", "--ioengine=null", "--size=1m",
                "--numjobs=2", "--name=g", "--ioengine=null", "--size=1m", "--numjobs=3",
                "--group_reporting", "--stonewall"]
        for tool in (FIO, BIN):
            with self.subTest(tool=tool):
                with subprocess.Popen([tool, "--thread", *argv], stdout=subprocess.PIPE, text=True) as proc:
                    out = proc.communicate(timeout=120)[0]
                self.assertEqual(proc.returncode, 0, out)
                heads = re.findall(r"^(\w+): \(groupid=(\d+), jobs=(\d+)\): err= 0: pid=(\d+):", out, re.M)
                self.assertEqual([(n, g, j) for n, g, j, _ in heads],
                                 [("a", "0", "1"), ("b", "0", "1"), ("b", "0", "1"), ("g", "1", "3")], out)
                pids = [int(h[3]) for h in heads]
                self.assertEqual(len(set(pids)), 4, out)
                self.assertNotIn(proc.pid, pids, "a job's line names the main process, not its thread")

    def logged(self, text, job, log, **kw):
        """{tool: (its JSON of job, its write_iolog entries in log)} of one job file
        run by each tool, which must both succeed."""
        out = {}
        for who, (p, d) in self.both(text, **kw).items():
            self.assertEqual(p.returncode, 0, f"{who}: {p.stderr}")
            out[who] = (jobs_of(json_of(p.stdout))[job], iolog_ops(d / log))
        return out

    def test_a_job_that_cannot_start_is_reported_and_the_others_run(self):
        # fio finds a file missing under allow_file_create=0, and a 1-byte direct
        # write, only when the job starts: it reports that job (with its error)
        # and runs the others.  ioplan exited 2 with no report at all.
        text = ("[global]\ndirectory={dir}\nsize=64k\n"
                "[missing]\nrw=read\nfilename=absent.bin\nallow_file_create=0\n"
                "[good]\nrw=write\nfilename=good.bin\n"
                "[bytewise]\nrw=write\nfilename=bytewise.bin\nbs=1\ndirect=1\n")
        out = self.both(text)
        (fp, _), (ip, idir) = out["fio"], out["ioplan"]
        self.assertNotEqual(fp.returncode, 0)
        self.assertEqual(ip.returncode, 1, ip.stderr)
        fj, ij = jobs_of(json_of(fp.stdout)), jobs_of(json_of(ip.stdout))
        self.assertEqual(list(ij), list(fj), "every job is in the report, in order")
        self.assertEqual(ij["good"]["write"]["io_bytes"], fj["good"]["write"]["io_bytes"])
        self.assertEqual(fj["good"]["write"]["io_bytes"], 65536)
        self.assertEqual((fj["bytewise"]["error"], ij["bytewise"]["error"]), (22, 22))  # EINVAL
        # fio says why on stderr and leaves the job's error 0; ioplan gives ENOENT there.
        self.assertIn("allow_file_create=0", fp.stderr)
        self.assertEqual(ij["missing"]["error"], 2)
        self.assertIn("absent.bin does not exist and allow_file_create=0", ip.stderr)
        self.assertFalse((idir / "absent.bin").exists(), "allow_file_create=0 creates nothing")
        # The normal output names the failed job's error, as fio's err= line does.
        p = run([str(idir / "job.fio")], cwd=idir)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertRegex(p.stdout, r"bytewise: \(groupid=0, jobs=1\): err=22 ")

    def test_inputs_wrong_on_their_face_stay_errors_before_any_io(self):
        # A job with no size to create its file is bad input for both (fio exits
        # 1 at parse time); ioplan's exit status for bad input is 2.
        text = "[w]\nrw=write\nfilename={dir}/nosize.bin\n"
        out = self.both(text)
        self.assertNotEqual(out["fio"][0].returncode, 0)
        self.assertEqual(out["ioplan"][0].returncode, 2, out["ioplan"][0].stderr)
        self.assertEqual(out["ioplan"][0].stdout, "")


    def test_an_existing_file_the_job_names_is_written_as_fio_writes_it(self):
        # A client fills its test file first (docker-diskmark's dd): fio writes into it.
        # Run as fio, ioplan does too and says so; run as ioplan, it refuses and names the option.
        text = "[w]\nrw=randwrite\nfilename=filled.bin\nsize=1m\nbs=4k\n"
        digest = lambda d: hashlib.sha256((d / "filled.bin").read_bytes()).hexdigest()
        fill = lambda d: (d / "filled.bin").write_bytes(b"\x5a" * (1 << 20))
        fill(self.tmp)
        filled = digest(self.tmp)
        out = self.both(text, as_fio=True, prepare=fill)
        for who, (p, d) in out.items():
            with self.subTest(who=who):
                self.assertEqual((p.returncode, p.stderr), (0, ""))
                self.assertEqual(jobs_of(json_of(p.stdout))["w"]["write"]["io_bytes"], 1 << 20)
                self.assertNotEqual(digest(d), filled, "the job wrote the existing file")
        self.assertIn("an existing file ioplan did not create is written", out["ioplan"][0].stdout)
        d = out["ioplan"][1]
        fill(d)
        p = run(["job.fio"], cwd=d)
        self.assertEqual(p.returncode, 2)
        self.assertIn("(allow it with allow_existing_file_write)", p.stderr)
        self.assertEqual(digest(d), filled, "refused before any write")
        # Reading someone else's file is never refused, as ioplan or as fio.
        p = run(["--name=r", "--rw=read", "--filename=filled.bin", "--size=1m"], cwd=d)
        self.assertEqual(p.returncode, 0, p.stderr)

    def test_devices_stay_refused_when_run_as_fio(self):
        dev = loop_device(self)
        p = run_as_fio(["--name=w", f"--filename={dev}", "--rw=write", "--size=1m"])
        self.assertEqual(p.returncode, 2)
        self.assertIn(f"name it in allow_device_write={dev}", p.stderr)


    def test_io_depths_add_up_to_100_with_a_ramp(self):
        # I/Os issued in the window and completed after it counted in the depths but
        # not in their base: ioplan printed 100.455% where fio prints 100.0%.
        text = ("[q]\nioengine=libaio\nrw=randread\nfilename={dir}/q.bin\nsize=4m\nbs=4k\n"
                "iodepth=8\nramp_time=100ms\nruntime=300ms\ntime_based\n")
        for who, (p, _) in self.both(text).items():
            with self.subTest(who=who):
                self.assertEqual(p.returncode, 0, p.stderr)
                levels = jobs_of(json_of(p.stdout))["q"]["iodepth_level"]
                self.assertAlmostEqual(sum(levels.values()), 100.0, places=3)


    def test_cpu_shares_are_whole_ms_over_whole_ms(self):
        # fio's usr_cpu and sys_cpu are its thread's CPU time in whole ms over its
        # run in whole ms, so share x job_runtime / 100 is a whole number, and a run
        # under 1 ms shows 0.00%.  ioplan divided ns by ns: a 64 KiB vsync write
        # (a 0.06 ms window) read usr=161.73% now and then, and these null jobs gave
        # fractions of a ms.
        text = ("[busy]\nioengine=null\nrw=write\nbs=4k\nsize=2g\n"
                "[short]\nioengine=vsync\nrw=write\nbs=4k\nsize=64k\nfilename={dir}/s.bin\n")
        for who, (p, _) in self.both(text).items():
            for name, j in jobs_of(json_of(p.stdout)).items():
                with self.subTest(who=who, job=name):
                    self.assertEqual(p.returncode, 0, p.stderr)
                    for share in ("usr_cpu", "sys_cpu"):
                        ms = j[share] * j["job_runtime"] / 100.0
                        self.assertAlmostEqual(ms, round(ms), places=3, msg=(share, j[share], j["job_runtime"]))
                        self.assertLessEqual(j[share], 100.0 if j["job_runtime"] else 0.0)

    def test_missing_directories_of_file_names_are_created(self):
        # fio makes the directories of a file name that are missing (filesetup.c);
        # ioplan refused ("directory d/a does not exist").  ioplan's carry its mark.
        text = ("[global]\nsize=64k\nrw=write\n"
                "[a]\nfilename_format=d/$jobname/$jobnum.bin\nnumjobs=2\n"
                "[b]\nfilename={dir}/sub/deeper/b.bin\n")
        out = self.both(text)
        tree = {}
        for who, (p, d) in out.items():
            with self.subTest(who=who):
                self.assertEqual(p.returncode, 0, p.stderr)
                jobs = json_of(p.stdout)["jobs"]
                self.assertEqual([(j["jobname"], j["write"]["io_bytes"], j["error"]) for j in jobs],
                                 [("a", 65536, 0), ("a", 65536, 0), ("b", 65536, 0)])
                tree[who] = sorted((str(f.relative_to(d)), f.is_dir(), f.stat().st_mode & 0o777 if f.is_dir() else 0)
                                   for f in d.rglob("*") if f.name not in ("job.fio",))
        self.assertEqual(tree["ioplan"], tree["fio"])
        idir = out["ioplan"][1]
        for made in ("d", "d/a", "sub", "sub/deeper"):
            self.assertIsNotNone(mark_of(idir / made), made)

    def test_rate_iops_with_a_block_size_range_paces_bytes_at_the_smallest_block(self):
        # fio paces rate_iops as bytes at the smallest block ("if blocksize is a range, the
        # smallest block size is used as the metric"): bsrange=4k-16k at rate_iops=200 moves
        # 200 x 4 KiB a second, about 80 I/Os.  ioplan ran 200 I/Os a second, 2.5 times fio's
        # bytes.  A paced null job: the caps are the tools', not the machine's.
        args = ["--name=r", "--ioengine=null", "--rw=randread", "--bsrange=4k-16k", "--size=1m",
                "--time_based", "--runtime=2", "--rate_iops=200", "--output-format=json"]
        got = {}
        for who, tool in (("fio", run_fio), ("ioplan", run)) if FIO else (("ioplan", run),):
            p = tool(args, cwd=self.tmp)
            self.assertEqual(p.returncode, 0, p.stderr)
            doc = json.loads(p.stdout[p.stdout.index("{"):])
            got[who] = doc["jobs"][0]["read"]
        mine = got["ioplan"]
        # Never ahead of 200 x 4096 bytes a second (one block of 16 KiB of slack at the start).
        self.assertLessEqual(mine["io_bytes"], 200 * 4096 * mine["runtime"] / 1000 + 16384, mine["io_bytes"])
        self.assertLess(mine["total_ios"], 200 * 2 * 0.6, mine["total_ios"])  # fewer than rate_iops x runtime
        if FIO:
            self.assertLessEqual(got["fio"]["io_bytes"], 200 * 4096 * got["fio"]["runtime"] / 1000 + 16384)

    def test_exit_status_counts_the_failed_jobs_as_fio(self):
        # fio's exit status is the number of jobs (threads) that failed; ioplan said 1.
        # As ioplan it still says 1.  A refused connection fails each clone.  Two and
        # four clones too: the count was or-ed with the failed run's 1 (3 and 5).
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]   # bound, never listening: connections are refused
            for n in (2, 3, 4):
                with self.subTest(numjobs=n):
                    args = ["--name=a", "--ioengine=net", "--hostname=127.0.0.1", f"--port={port}",
                            "--protocol=tcp", "--rw=write", "--size=4k", f"--numjobs={n}", "--output-format=terse"]
                    got = {who: tool(args, cwd=self.tmp).returncode
                           for who, tool in (("fio", run_fio), ("as fio", run_as_fio), ("ioplan", run))}
                    self.assertEqual(got, {"fio": n, "as fio": n, "ioplan": 1})

    def test_a_percentage_size_under_one_block_is_an_error(self):
        # size=1% of a 5 KiB file is 51 bytes, under bs=512: fio stops the job ("blocksize
        # is larger than data set range", exit 1); ioplan read the whole file.
        args = ["--name=pct", "--ioengine=psync", "--bs=512", "--filename=p", "--rw=read", "--size=1%",
                "--output-format=json"]
        for who in ("fio", "ioplan"):
            d = self.tmp / who
            d.mkdir()
            (d / "p").write_bytes(bytes(5120))
            p = run_fio(args, cwd=d) if who == "fio" else run(args, cwd=d)
            self.assertEqual(p.returncode, 1, f"{who}: {p.stderr}")
            self.assertEqual(json_of(p.stdout)["jobs"][0]["read"]["io_bytes"], 0, who)
        self.assertIn("size=N% of the file is less than one block", p.stderr)

    def test_clientuid_is_empty_outside_client_server_mode(self):
        # fio's $clientuid is the client's address, empty when fio runs alone: f.0, not
        # f0.0 (ioplan wrote "0"), also under unique_filename's directory prefix.
        text = ("[global]\nsize=8k\nrw=write\nioengine=psync\n"
                "[j]\nfilename_format=f$clientuid.$filenum\n"
                "[k]\ndirectory=u1\nunique_filename=1\nfilename_format=$clientuid.$filenum\n")
        out = self.both(text, prepare=lambda d: (d / "u1").mkdir())
        files = {}
        for who, (p, d) in out.items():
            self.assertEqual(p.returncode, 0, f"{who}: {p.stderr}")
            files[who] = sorted(str(f.relative_to(d)) for f in d.rglob("*") if f.is_file() and f.name != "job.fio")
        self.assertEqual(files["fio"], ["f.0", "u1/.0"])
        self.assertEqual(files["ioplan"], files["fio"])

    def test_a_directory_option_that_is_not_there_is_refused_as_fio_refuses_it(self):
        # fio refuses directory= naming no directory (options.c); ioplan made it and ran
        # there (exit 0): a mount point not mounted was measured on the filesystem beneath.
        text = "[a]\ndirectory={dir}/mnt/nvme0\nsize=64k\nrw=write\n"
        out = self.both(text)
        for who, (p, d) in out.items():
            with self.subTest(who=who):
                self.assertNotEqual(p.returncode, 0, p.stdout)
                self.assertFalse((d / "mnt").exists())
        self.assertEqual(out["ioplan"][0].returncode, 2)
        self.assertIn(f"job 'a': directory={out['ioplan'][1]}/mnt/nvme0 does not exist (fio refuses it too",
                      out["ioplan"][0].stderr)
        p = run(["--parse-only", "job.fio"], cwd=out["ioplan"][1])  # as fio's --parse-only: read, not run
        self.assertEqual(p.returncode, 0, p.stderr)

    def test_a_link_where_a_directory_is_to_be_made_is_not_followed(self):
        # A dangling symbolic link where ioplan would make a directory: refused, and
        # nothing is made where it points.  A ".." in the part to make is refused
        # before any I/O: directories are made only beneath what exists.
        (self.tmp / "elsewhere").mkdir()
        (self.tmp / "d").symlink_to(self.tmp / "elsewhere" / "made")
        (self.tmp / "job.fio").write_text("[a]\nrw=write\nsize=64k\nfilename_format=d/$jobname/$jobnum.bin\n")
        p = run(["job.fio"], cwd=self.tmp)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn("d is not a directory ioplan can create files in", p.stderr)
        self.assertEqual(list((self.tmp / "elsewhere").iterdir()), [])
        (self.tmp / "up.fio").write_text("[a]\nrw=write\nsize=64k\nfilename_format=x/../../esc/$jobnum.bin\n")
        p = run(["up.fio"], cwd=self.tmp)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn('not through ".."', p.stderr)
        self.assertFalse((self.tmp / "x").exists() or (self.tmp.parent / "esc").exists())

    def test_a_target_that_is_a_link_to_nothing_is_refused_before_any_io_saying_where_it_points(self):
        # fio 3.33 removes the link and lays out a new file under its name.  ioplan makes no
        # file through a link: its layout's O_EXCL create failed as the job started, "lnk: File
        # exists" (err=17, exit 1), of a name that shows no file.
        def plant(d):
            (d / "lnk").symlink_to(d / "not-yet" / "data.bin")
            (d / "not-yet").mkdir()
        out = self.both("[w]\nrw=write\nfilename=lnk\nsize=64k\n", prepare=plant)
        p, d = out["fio"]
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertFalse((d / "lnk").is_symlink(), "fio made the file through the link")
        p, d = out["ioplan"]
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn(f"job 'w': lnk is a symbolic link to {d}/not-yet/data.bin, which does not exist: ioplan "
                      "makes no file through a link", p.stderr)
        self.assertNotIn("File exists", p.stderr + p.stdout)
        self.assertTrue((d / "lnk").is_symlink())
        self.assertEqual(list((d / "not-yet").iterdir()), [])
        for rw in ("read", "randwrite"):
            p = run(["--name=w", f"--rw={rw}", "--filename=lnk", "--size=64k"], cwd=d)
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertIn("which does not exist: ioplan makes no file through a link", p.stderr)
        (d / "loop").symlink_to("loop")
        p = run(["--name=w", "--rw=write", "--filename=loop", "--size=64k"], cwd=d)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("loop is a symbolic link to loop, which is a loop of links", p.stderr)

    def test_a_metadata_engines_name_that_is_a_link_to_nothing_is_refused_before_any_io(self):
        # fio 3.33's filecreate creates the file the link names.  ioplan's preflight skipped the
        # engines that lay nothing out: filecreate failed mid-run, "lnk: create: No such file or
        # directory" (exit 1), dircreate and dirstat "File exists", dirdelete "rmdir: Operation not
        # permitted", where filestat, which lays its files out, was refused (exit 2) saying why.
        def plant(d):
            (d / "lnk").symlink_to("nothere")
        out = self.both("[j]\nrw=write\nioengine=filecreate\nfilename=lnk\nsize=4k\n", prepare=plant)
        p, d = out["fio"]
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertTrue((d / "nothere").is_file(), "fio created the file the link names")
        p, d = out["ioplan"]
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("job 'j': lnk is a symbolic link to nothere, which does not exist: ioplan makes no file "
                      "through a link (fio 3.33 would create the file it names)", p.stderr)
        for engine, what in (("dircreate", "makes no directory through a link"),
                             ("dirstat", "makes no directory through a link"),
                             ("filestat", "makes no file through a link"),
                             ("dirdelete", "dirdelete removes only directories ioplan made, never a link")):
            with self.subTest(engine=engine):
                p = run(["--name=j", "--rw=write", f"--ioengine={engine}", "--filename=lnk", "--size=4k"], cwd=d)
                self.assertEqual(p.returncode, 2, p.stderr)
                self.assertIn("ioplan: error: job 'j': lnk is a symbolic link to nothere", p.stderr)
                self.assertIn(what, p.stderr)
        self.assertTrue((d / "lnk").is_symlink())
        self.assertFalse((d / "nothere").exists() or (d / "nothere").is_symlink())

    def test_a_ramp_counts_toward_size_and_records_no_latency(self):
        # fio counts what a ramp does toward size=, and takes no latency sample in
        # it: a job whose size= runs out inside its ramp reports its bytes with
        # N=0 latencies (front ends show 0.00).  ioplan ramped for the whole
        # ramp_time, then did size= again and reported 256 latencies.
        text = "[r]\nrw=randread\nfilename={dir}/r.bin\nsize=1m\nbs=4k\nramp_time=8s\n"
        for who, (p, _) in self.both(text).items():
            with self.subTest(who=who):
                self.assertEqual(p.returncode, 0, p.stderr)
                r = jobs_of(json_of(p.stdout))["r"]["read"]
                self.assertEqual((r["io_bytes"], r["total_ios"]), (1 << 20, 256))
                self.assertEqual((r["lat_ns"]["N"], r["clat_ns"]["N"]), (0, 0))
                self.assertEqual(jobs_of(json_of(p.stdout))["r"]["iodepth_level"]["1"], 100.0)
        # A ramp that ends inside the job: the I/Os after it are reported, the
        # file is read once in all (64 reads at most 100 a second outlast a
        # 300 ms ramp however slow the machine).
        text = ("[r]\nrw=read\nfilename={dir}/s.bin\nsize=256k\nbs=4k\nrate_iops=100\n"
                "ramp_time=300ms\nwrite_iolog={dir}/s.log\n")
        for who, (p, d) in self.both(text).items():
            with self.subTest(who=who):
                self.assertEqual(p.returncode, 0, p.stderr)
                r = jobs_of(json_of(p.stdout))["r"]["read"]
                self.assertEqual(sum(" read " in l for l in (d / "s.log").read_text().splitlines()), 64)
                self.assertLess(r["total_ios"], 64)
                self.assertEqual(r["io_bytes"], r["total_ios"] * 4096)
                self.assertEqual(r["clat_ns"]["N"], r["total_ios"])

    def test_number_ios_counts_afresh_after_the_ramp(self):
        # fio's reset_all_stats zeroes the I/O counts number_ios is judged by as the
        # ramp ends (size= still counts the ramp's bytes): 40 reads are reported after
        # any ramp.  ioplan counted the ramp's reads too and reported 40 less those
        # (at 100 a second, about 30 in a 300 ms ramp).
        text = ("[r]\nrw=randread\nfilename={dir}/n.bin\nsize=1m\nbs=4k\nrate_iops=100\n"
                "ramp_time=300ms\nnumber_ios=40\n")
        for who, (p, _) in self.both(text).items():
            with self.subTest(who=who):
                self.assertEqual(p.returncode, 0, p.stderr)
                r = jobs_of(json_of(p.stdout))["r"]["read"]
                self.assertEqual((r["io_bytes"], r["total_ios"]), (40 * 4096, 40))

    def test_falloc_moves_and_counts_what_fio_does(self):
        # fio's examples/falloc.fio made size-bound: one fallocate per I/O, the
        # whole block counted, the same bssplit draws; what a time_based run moves
        # is its speed, not its counting.
        text = ("[global]\nioengine=falloc\nfilename={dir}/frag\nsize=4m\nfilesize=4m\n"
                "[falloc]\nbssplit=4k/10:64k/50:32k/40\nrw=randwrite\nwrite_iolog={dir}/falloc.log\n"
                "[punch]\nstonewall\nbs=4k\nrw=randtrim\n")
        out = self.both(text)
        ops = {}
        for who, (p, d) in out.items():
            with self.subTest(who=who):
                self.assertEqual(p.returncode, 0, p.stderr)
                jobs = jobs_of(json_of(p.stdout))
                self.assertEqual((jobs["falloc"]["write"]["io_bytes"], jobs["punch"]["trim"]["io_bytes"]),
                                 (4 << 20, 4 << 20))
                ops[who] = [l.split()[2:] for l in (d / "falloc.log").read_text().splitlines()
                            if " write " in l]
        self.assertEqual(ops["ioplan"], ops["fio"])

    def test_fallocate_leaves_the_file_as_fio_leaves_it(self):
        # With none or keep fio never sizes a written file: a job that stops early
        # leaves the bytes it wrote, and its writes append.  ioplan ftruncated every
        # write-only file to size= (64 MiB, 100 writes made).  mmap cannot write
        # past the end: both size it.
        sizes = {}
        for fa in ("none", "keep", "truncate", "posix"):
            for eng in ("psync", "mmap"):
                text = (f"[w]\nrw=write\nfilename={{dir}}/{fa}-{eng}\nsize=64m\nbs=4k\n"
                        f"fallocate={fa}\nnumber_ios=100\nioengine={eng}\n")
                for who, (p, d) in self.both(text).items():
                    self.assertEqual(p.returncode, 0, p.stderr)
                    st = (d / f"{fa}-{eng}").stat()
                    sizes.setdefault(who, {})[f"{fa}-{eng}"] = (st.st_size, st.st_blocks > 0)
        self.assertEqual(sizes["ioplan"], sizes["fio"])
        self.assertEqual(sizes["ioplan"]["none-psync"], (409600, True))
        self.assertEqual(sizes["ioplan"]["posix-psync"][0], 64 << 20)

    def test_fsync_counts(self):
        # fio takes the sync instead of the next I/O: 64 writes with fsync=1 make
        # 63 syncs (ioplan made 64), fsync=16 makes 3.  Its depths count each sync
        # too, over a base of the writes alone (198.4375% with fsync=1).
        for opt in ("fsync=1", "fsync=16", "fsync=5", "fdatasync=1"):
            text = f"[w]\nrw=write\nfilename={{dir}}/w.bin\nsize=256k\nbs=4k\n{opt}\n"
            out = self.both(text)
            (fp, _), (ip, _) = out["fio"], out["ioplan"]
            with self.subTest(opt=opt):
                self.assertEqual((fp.returncode, ip.returncode), (0, 0), ip.stderr)
                fw, iw = jobs_of(json_of(fp.stdout))["w"], jobs_of(json_of(ip.stdout))["w"]
                self.assertEqual(iw["sync"]["lat_ns"]["N"], fw["sync"]["lat_ns"]["N"])
                # Their percentiles, from a histogram made at the first sync.
                pct = iw["sync"]["lat_ns"]["percentile"]
                self.assertEqual(sorted(pct), sorted(fw["sync"]["lat_ns"]["percentile"]))
                self.assertTrue(0 < pct["50.000000"] <= iw["sync"]["lat_ns"]["max"], pct)
                self.assertEqual(iw["iodepth_level"]["1"], fw["iodepth_level"]["1"])
                self.assertEqual(iw["write"]["total_ios"], fw["write"]["total_ios"])
                # fdatasync's syncs land past fio's sync counter (0 there, 63 "short" reads):
                # ioplan counts them as syncs (COMPATIBILITY in ioplan-job(5)).
                self.assertEqual(iw["sync"]["total_ios"], fw["sync"]["lat_ns"]["N"])
                if opt.startswith("fsync"):
                    self.assertEqual(iw["sync"]["total_ios"], fw["sync"]["total_ios"])

    def test_fsync_counts_over_rounds(self):
        # fio's rounds move the count's syncs: a pass that ends where the file runs
        # out makes the sync still due before the round ends (its loop asks once more),
        # and each round it starts forgets the last sync, so it begins with one while
        # the writes are a multiple of N.  ioplan made one sync per N writes: 47
        # against fio's 49 for the first job, 3 against 4 (verify), 12 against 15
        # (io_size= past size=), 7 against 9 (a holed pass), 11 against 13.
        jobs = {
            "loops": ("rw=randwrite\nsize=64k\nloops=3\nfsync=1", 49),
            "verify": ("rw=write\nsize=32k\nloops=2\nfsync=4\nverify=crc32c", 4),
            "io_size": ("rw=write\nsize=64k\nio_size=200k\nfsync=4", 15),
            "holes": ("rw=write:8k\nbs=16k\nsize=100k\nloops=2\nfsync=1", 9),
            "end_fsync": ("rw=write\nsize=64k\nloops=3\nfdatasync=4\nend_fsync=1", 13),
            # The round after an append finds no room (test_file_append_makes_one_pass), but
            # fio starts it, and with it a sync.
            "append": ("rw=write\nsize=64k\nio_size=192k\nfsync=1\nfile_append=1", 17),
        }
        for name, (opts, syncs) in jobs.items():
            text = (f"[w]\nfilename={{dir}}/{name}.bin\nbs=4k\n{opts}\n"
                    f"write_iolog={{dir}}/{name}.log\n")
            ops = {}
            for who, (w, log) in self.logged(text, "w", f"{name}.log").items():
                with self.subTest(job=name, who=who):
                    self.assertEqual(w["sync"]["lat_ns"]["N"], syncs)
                # Where each sync goes among the writes and the read-back (fio's
                # sync lines carry a stale offset, and a random job of one block
                # size draws its own order: the kind alone is compared there).
                ops[who] = [op[0] if op[0] in ("sync", "datasync") or "rand" in opts else op
                            for op in log if op[0] != "add"]
            self.assertEqual(ops["ioplan"], ops["fio"], name)

    def test_a_percentage_offset_in_a_new_file_starts_at_its_first_byte(self):
        # fio takes offset=20% of the size the file has when the job sets up: 0 for
        # a file it creates, which it then makes size= big.  ioplan refused the job
        # ("no size is given") with 0 bytes.
        text = ("[global]\nsize=256k\nbs=16k\n"
                "[w]\nrw=write\nfilename=w.bin\noffset=20%\nwrite_iolog=w.log\n"
                "[r]\nrw=read\noffset=30%\noffset_increment=64k\n"
                "numjobs=2\nwrite_iolog=r.log\nstonewall\n")
        out = self.both(text)
        for who, (p, d) in out.items():
            with self.subTest(who=who):
                self.assertEqual(p.returncode, 0, p.stderr)
                jobs = json_of(p.stdout)["jobs"]
                self.assertEqual([(j["jobname"], j["error"]) for j in jobs], [("w", 0), ("r", 0), ("r", 0)])
                self.assertEqual([j["write"]["io_bytes"] + j["read"]["io_bytes"] for j in jobs], [256 << 10] * 3)
        ops = lambda d, log: sorted(l.split()[1:] for l in (d / log).read_text().splitlines()[1:])
        (_, fdir), (_, idir) = out["fio"], out["ioplan"]
        for log in ("w.log", "r.log"):
            self.assertEqual(ops(idir, log), ops(fdir, log), log)
        self.assertIn(["w.bin", "write", "0", "16384"], ops(fdir, "w.log"))
        self.assertIn(["r.1.0", "read", "65536", "16384"], ops(fdir, "r.log"))
        for name in ("w.bin", "r.0.0", "r.1.0"):
            self.assertEqual((idir / name).stat().st_size, (fdir / name).stat().st_size, name)

    def test_a_percentage_offset_of_the_null_engine_is_of_size(self):
        # The null engine's file has no size of its own: fio takes size= as its size,
        # offset=50% as half of that, and then extends it to the region's end, so
        # size=1m offset=50% writes 1 MiB from 512 KiB.  ioplan cut the region at
        # size= (512 KiB, 64 writes), with an existing file of that name too.  With
        # filesize= alone there is no size: fio's offset is past any end, the job fails.
        text = ("[global]\nioengine=null\nbs=8k\nrw=write\n"
                "[half]\nfilename=f\nsize=1m\noffset=50%\nwrite_iolog=half.log\n"
                "[inc]\nsize=256k\noffset=25%\noffset_increment=25%\nnumjobs=2\nwrite_iolog=inc.log\n"
                "[bad]\nfilesize=1m\noffset=33%\n")
        out = self.both(text, prepare=lambda d: (d / "f").write_bytes(bytes(4 << 20)))
        ops = lambda d, log: sorted((l.split()[1], l.split()[2], int(l.split()[3]), int(l.split()[4]))
                                    for l in (d / log).read_text().splitlines()[1:] if len(l.split()) == 5)
        for who, (p, d) in out.items():
            with self.subTest(who=who):
                self.assertEqual(p.returncode, 1, p.stderr)
                jobs = json_of(p.stdout)["jobs"]
                self.assertEqual([j["write"]["io_bytes"] for j in jobs], [1 << 20, 256 << 10, 256 << 10, 0])
                half = ops(d, "half.log")
                self.assertEqual((half[0][2], half[-1][2], len(half)), (512 << 10, (1536 - 8) << 10, 128))
        (_, fdir), (_, idir) = out["fio"], out["ioplan"]
        for log in ("half.log", "inc.log"):
            self.assertEqual(ops(idir, log), ops(fdir, log), log)

    def test_the_null_engines_file_has_no_end_without_size(self):
        # fio's null engine never sizes its file: with filesize= and no size= its
        # real_file_size stays unknown (-1), so a sequential pass's last block goes
        # past a region no block divides: filesize=100k bs=8k writes 13 blocks (the
        # last at 96 KiB), where size=100k writes 12; a random job's sequential turn
        # there goes too.  ioplan stopped at the region's end: 12, 24 and 10.
        text = ("[global]\nioengine=null\nbs=8k\nfilesize=100k\n"
                "[w]\nrw=write\nwrite_iolog=w.log\n"
                "[r]\nrw=read\nloops=2\nwrite_iolog=r.log\n"
                "[t]\nrw=randread:3\nwrite_iolog=t.log\n"
                "[s]\nrw=write\nsize=100k\nwrite_iolog=s.log\n")
        out = self.both(text)
        for who, (p, d) in out.items():
            with self.subTest(who=who):
                self.assertEqual(p.returncode, 0, p.stderr)
                self.assertEqual([j["total_ios"] for j in json_of(p.stdout)["jobs"]
                                  for j in [j["read"] if j["read"]["total_ios"] else j["write"]]], [13, 25, 11, 12])
        (_, fdir), (_, idir) = out["fio"], out["ioplan"]
        for log in ("w.log", "r.log", "t.log", "s.log"):
            self.assertEqual(iolog_ops(idir / log), iolog_ops(fdir / log), log)

    def test_each_loop_takes_a_percentage_offset_again(self):
        # fio's clear_io_state takes each file's offset again as every loop after the
        # first starts, of the size its set-up left the file: offset=10% of a file the
        # job creates is 0 in the first loop and 100 KiB of the 1000 KiB file after it,
        # so loops=3 reads 1000 KiB, then 900 KiB twice (700 reads); with the null
        # engine, whose file fio extends to the region's end, io_size=2m's second round
        # starts at 112 KiB.  ioplan started every loop where the first did: 750 reads.
        text = ("[global]\nbs=4k\nsize=1000k\noffset=10%\n"
                "[f]\nfilename=f.dat\nrw=read\nloops=3\nwrite_iolog=f.log\n"
                "[n]\nioengine=null\nio_size=2m\nrw=write\nwrite_iolog=n.log\n")
        out = self.both(text)
        for who, (p, d) in out.items():
            with self.subTest(who=who):
                self.assertEqual(p.returncode, 0, p.stderr)
                jobs = json_of(p.stdout)["jobs"]
                self.assertEqual([j["read"]["total_ios"] + j["write"]["total_ios"] for j in jobs], [700, 512])
        (_, fdir), (_, idir) = out["fio"], out["ioplan"]
        for log in ("f.log", "n.log"):
            self.assertEqual(iolog_ops(idir / log), iolog_ops(fdir / log), log)
        self.assertEqual(iolog_ops(fdir / "f.log").count(["read", "0", "4096"]), 1)
        self.assertEqual(iolog_ops(fdir / "n.log").count(["write", "102400", "4096"]), 1)

    def test_a_random_loop_takes_a_percentage_offset_again(self):
        # As a sequential job's, a random job's later loops start at its percentage
        # offset taken again of the file its set-up laid out: offset=20% of the new
        # 256 KiB file is 0 in the first loop and 52 KiB after it.  The draws still
        # run over the region's 64 blocks from there, and one at or past the file's
        # end fails fio's fill, ending the loop: with lfsr 88 reads, with the map
        # (bsrange=) 38, without it 192, each fio's offsets one for one.  ioplan drew
        # every later loop over the first one's region: 192 reads each time.  Its own
        # permutation (the plain job) keeps to the same rule with its own order.
        base = "[global]\nfilename=f.dat\nrw=randread\nbs=4k\nsize=256k\noffset=20%\nloops=3\nwrite_iolog=f.log\n"
        for extra, count in (("random_generator=lfsr\n", 88), ("bsrange=4k-16k\n", 38), ("norandommap\n", 192)):
            with self.subTest(extra=extra):
                out = self.both(base + extra + "[j]\n")
                for who, (p, d) in out.items():
                    self.assertEqual(p.returncode, 0, (who, p.stderr))
                    self.assertEqual(jobs_of(json_of(p.stdout))["j"]["read"]["total_ios"], count, who)
                self.assertEqual(iolog_ops(out["ioplan"][1] / "f.log"), iolog_ops(out["fio"][1] / "f.log"))
                for who in ("fio", "ioplan"):
                    shutil.rmtree(out[who][1])
        p, d = self.both(base + "[j]\n")["ioplan"]
        self.assertEqual(p.returncode, 0, p.stderr)
        reads = [(int(e[1]), int(e[2])) for e in iolog_ops(d / "f.log") if e[0] == "read"]
        self.assertEqual(len(reads), jobs_of(json_of(p.stdout))["j"]["read"]["total_ios"])
        self.assertLess(len(reads), 64 + 2 * 64)
        self.assertTrue(all(o + n <= 256 << 10 for o, n in reads), reads)
        self.assertTrue(all(o >= 53248 for o, _ in reads[64:]), reads[64:])

    def test_a_drawn_length_fits_from_the_offset_taken_again(self):
        # fio's io_u_fits measures a drawn length from get_start_offset taken again of
        # the size the set-up left the file, not from the region's start: with offset=10%
        # of a new file (0 at the set-up, 100 KiB of the 1000 KiB file after) a length
        # may run past the file's end, and that fill fails, ending the file's pass.
        # rw=randread bsrange=4k-16k makes 29 reads in fio; ioplan drew only lengths
        # that fit the region and made 134.  The same with loops=2 of rw=write.
        text = ("[global]\nsize=1000k\nbsrange=4k-16k\noffset=10%\n"
                "[r]\nfilename=r.dat\nrw=randread\nwrite_iolog=r.log\n"
                "[w]\nfilename=w.dat\nrw=write\nloops=2\nwrite_iolog=w.log\n"
                "[n]\nioengine=null\nrw=randwrite\nwrite_iolog=n.log\n")
        out = self.both(text)
        for who, (p, d) in out.items():
            with self.subTest(who=who):
                self.assertEqual(p.returncode, 0, p.stderr)
                jobs = json_of(p.stdout)["jobs"]
                self.assertEqual(jobs[0]["read"]["total_ios"], 29)
        (_, fdir), (_, idir) = out["fio"], out["ioplan"]
        for log in ("r.log", "w.log", "n.log"):
            self.assertEqual(iolog_ops(idir / log), iolog_ops(fdir / log), log)

    def test_sizes_are_those_the_earlier_jobs_setups_leave(self):
        # fio sets every job's files up before any job runs, one job (and clone)
        # after the other: file_append, offset=N% and offset_increment=N% are of the
        # size the earlier setups left the file.  ioplan took its size from before
        # the run: [app] wrote over [pre]'s data at 0, [pct] read 64 KiB from 0, and
        # both [oi] clones read at 0 (as did two clones sharing a new file).  An
        # existing file shorter than [pre]'s region is grown by [pre]'s setup the
        # same way; a longer one keeps its size.
        head = "[global]\nioengine=psync\nbs=4k\nfilename=f\nzero_buffers\n"
        cases = {  # job text, the log, fio's offsets in it, the bytes each job moves, f's size (new file)
            "append": ("[pre]\nrw=write\nsize=32k\n[app]\nstonewall\nrw=write\nfile_append=1\nsize=16k\n"
                       "write_iolog=app.log\n", "app.log", [32768, 36864, 40960, 45056], [32768, 16384], 49152),
            "percent": ("[pre]\nrw=write\nsize=64k\n[pct]\nstonewall\nrw=read\noffset=50%\n"
                        "write_iolog=pct.log\n", "pct.log", list(range(32768, 65536, 4096)), [65536, 32768], 65536),
            "increment": ("[pre]\nrw=write\nsize=32k\n[oi]\nstonewall\nrw=read\nnumjobs=2\n"
                          "offset_increment=50%\nsize=8k\nwrite_iolog=oi.log\n", "oi.log",
                          [0, 4096, 16384, 20480], [32768, 8192, 8192], 32768),
            # Under fallocate=none [pre]'s setup leaves the file unsized (a shorter one removed):
            # [app] finds it empty, though [pre] has written 32 KiB when [app] starts.
            "unsized": ("[pre]\nrw=write\nsize=32k\nfallocate=none\n[app]\nstonewall\nrw=write\nfile_append=1\n"
                        "size=16k\nwrite_iolog=app.log\n", "app.log", [0, 4096, 8192, 12288], [32768, 16384], 32768),
            # A clone's setup comes after the previous clone's: the second finds 8 KiB.
            "clones": ("[oi]\nrw=read\nnumjobs=2\noffset_increment=50%\nsize=8k\nwrite_iolog=oi.log\n", "oi.log",
                       [0, 4096, 4096, 8192], [8192, 8192], 12288),
        }
        ops = lambda d, log: sorted(l.split()[1:] for l in (d / log).read_text().splitlines()[1:])
        offsets = lambda d, log: sorted(int(o[2]) for o in ops(d, log) if o[1] in ("read", "write"))
        for case, (text, log, want, moved, size) in cases.items():
            for existing in (0, 20 << 10, 128 << 10):
                with self.subTest(case=case, existing=existing):
                    out = {}
                    for who in ("fio", "ioplan"):
                        d = self.tmp / f"{case}-{existing}-{who}"
                        d.mkdir()
                        (d / "job.fio").write_text(head + text)
                        if existing:
                            (d / "f").write_bytes(os.urandom(existing))
                        # Run as fio, ioplan writes a file it did not create, as fio does.
                        tool = run_fio if who == "fio" else run_as_fio if existing else run
                        p = tool(["--output-format=json", "job.fio"], cwd=d)
                        self.assertEqual(p.returncode, 0, f"{who}: {p.stderr}")
                        jobs = json_of(p.stdout)["jobs"]
                        out[who] = ([j["read"]["io_bytes"] + j["write"]["io_bytes"] for j in jobs],
                                    ops(d, log), (d / "f").stat().st_size)
                    self.assertEqual(out["ioplan"], out["fio"])
                    if not existing:
                        self.assertEqual((out["fio"][0], offsets(self.tmp / f"{case}-0-fio", log), out["fio"][2]),
                                         (moved, want, size))

    def test_one_file_named_two_ways_is_one_file(self):
        # directory=sub filename=m in one job, an absolute path, ./sub//m or a link to the
        # directory in others: fio opens the one file.  ioplan laid it out under one name,
        # then refused the other ("refusing to write into an existing file ioplan did not
        # create ...: it appeared after the preflight found no file there", exit 1, no I/O).
        text = ("[global]\nsize=64k\nbs=4k\n[a]\nrw=write\ndirectory=sub\nfilename=m\n"
                "[b]\nrw=read\nfilename={dir}/sub/m\n[c]\nrw=randread\nfilename=./sub//m\n"
                "[d]\nstonewall\nrw=write\nfilename=link/m\n")

        def prepare(d):
            (d / "sub").mkdir()
            (d / "link").symlink_to("sub")
        out = {}
        for who, (p, d) in self.both(text, prepare=prepare).items():
            self.assertEqual(p.returncode, 0, f"{who}: {p.stderr}")
            jobs = json_of(p.stdout)["jobs"]
            out[who] = ([(j["jobname"], j["error"], j["read"]["io_bytes"] + j["write"]["io_bytes"]) for j in jobs],
                        sorted(os.listdir(d / "sub")), (d / "sub" / "m").stat().st_size)
        self.assertEqual(out["ioplan"], ([("a", 0, 65536), ("b", 0, 65536), ("c", 0, 65536), ("d", 0, 65536)],
                                         ["m"], 65536))
        self.assertEqual(out["ioplan"], out["fio"])

    def test_a_filesize_range_keeps_a_size_an_earlier_jobs_setup_leaves(self):
        # A file whose size lies in a filesize= range is used at that size, with no draw;
        # fio sets every job's files up before any job runs, so a later job finds the size
        # the earlier setups left.  ioplan looked at the disk before the run (no file: a
        # draw each): [r] read 436 KiB over files of 116, 228 and 100 KiB where fio reads
        # the 300 KiB [w] made, and over [w]'s own drawn sizes (328 KiB) the same 436.
        head = "[global]\nioengine=psync\ndirectory={dir}\nbs=4k\nfilename_format=f.$filenum\nnrfiles=3\n"
        cases = {"sized": ("[w]\nrw=write\nsize=300k\n", [300 << 10] * 2, [100 << 10] * 3),
                 "drawn": ("[w]\nrw=write\nfilesize=64k-256k\n", [328 << 10] * 2, [88 << 10, 120 << 10, 120 << 10])}
        for case, (first, moved, sizes) in cases.items():
            with self.subTest(case=case):
                text = head + first + "[r]\nstonewall\nrw=randread\nfilesize=64k-256k\n"
                out = {}
                for who, (p, d) in self.both(text).items():
                    self.assertEqual(p.returncode, 0, f"{who}: {p.stderr}")
                    out[who] = ([j["read"]["io_bytes"] + j["write"]["io_bytes"] for j in json_of(p.stdout)["jobs"]],
                                [(d / f"f.{n}").stat().st_size for n in range(3)])
                    for n in range(3):
                        (d / f"f.{n}").unlink()
                self.assertEqual(out["ioplan"], out["fio"])
                self.assertEqual(out["fio"], (moved, sizes))

    def test_verify_backlog_reads_count_and_come_as_fios(self):
        # verify_backlog's read-backs are in fio's do_io: number_ios= counts them
        # (ioplan made 20 writes and 20 reads of number_ios=20, fio 12 and 12), and
        # verify_backlog_batch leaves the rest listed, so fio checks again once N are
        # listed, after batch more writes (ioplan after N more: 4 reads late).  Between
        # rounds, fio's keep_running counts their bytes toward io_size= (ioplan wrote
        # 96 blocks of io_size=384k over size=64k, fio 48 and read them back).
        jobs = {  # options, fio's reads and writes
            "number_ios": ("size=1m\nnumber_ios=20", 12),
            "batch": ("size=1m\nnumber_ios=20\nverify_backlog_batch=2", 12),
            "batch_all": ("size=128k\nverify_backlog_batch=2", 32),
            "io_size": ("size=64k\nio_size=384k", 48),
        }
        for name, (opts, ios) in jobs.items():
            text = (f"[v]\nfilename={{dir}}/{name}.bin\nrw=write\nbs=4k\nverify=crc32c\nverify_backlog=4\n"
                    f"{opts}\nwrite_iolog={{dir}}/{name}.log\n")
            got = self.logged(text, "v", f"{name}.log")
            for who, (v, _) in got.items():
                with self.subTest(job=name, who=who):
                    self.assertEqual((v["read"]["total_ios"], v["write"]["total_ios"], v["error"]), (ios, ios, 0))
            self.assertEqual(got["ioplan"][1], got["fio"][1], name)

    def test_file_append_makes_one_pass(self):
        # fio starts each later pass of file_append at the file's end, where the first
        # pass's region ends and no I/O fits: loops=, io_size= past size= and a
        # time_based wrap end the job after one pass.  Its lengths are not cut at the
        # region's end either (io_u_fits measures from the file's end): one that passes
        # it ends the file's pass, sequential or random.  ioplan wrote 48 blocks for the
        # first job, 30 for the third, ran the time_based one for its whole second, and
        # cut the sequential lengths at the end, so that more of them fitted.
        jobs = {  # options, the I/Os fio makes in a new file and in one of 64 KiB
            "loops": ("rw=randwrite\nbs=4k\nloops=3", (16, 16)),
            "io_size": ("rw=write\nbs=4k\nio_size=192k", (16, 16)),
            "lengths": ("rw=randwrite\nbsrange=4k-16k\nio_size=192k", (5, 5)),
            "verify": ("rw=write\nbs=4k\nloops=2\nverify=crc32c", (32, 32)),
            "time": ("rw=write\nbs=4k\ntime_based=1\nruntime=1", (16, 16)),
            "seq_split": ("rw=write\nbssplit=4k/30:16k/70", (5, 5)),
            "seq_range": ("rw=write\nbsrange=4k-16k\nloops=2", (7, 7)),
            "seq_read": ("rw=read\nbsrange=4k-16k", (6, 6)),
        }
        for name, (opts, counts) in jobs.items():
            for existing, ios in zip((0, 64 << 10), counts):
                text = (f"[a]\nfilename={{dir}}/{name}-{existing}.bin\nsize=64k\nfile_append=1\n{opts}\n"
                        f"write_iolog={{dir}}/{name}-{existing}.log\n")
                make = lambda d: existing and (d / f"{name}-{existing}.bin").write_bytes(os.urandom(existing))
                got = self.logged(text, "a", f"{name}-{existing}.log", as_fio=True, prepare=make)
                for who, (a, _) in got.items():
                    with self.subTest(job=name, existing=existing, who=who):
                        self.assertEqual(a["read"]["total_ios"] + a["write"]["total_ios"], ios)
                # A random job of one block size draws its own order (ioplan-job(5)).
                key = sorted if opts.startswith("rw=randwrite\nbs=") else list
                self.assertEqual(key(got["ioplan"][1]), key(got["fio"][1]), (name, existing))

    def test_file_append_over_files_draws_a_length_where_fio_does(self):
        # Under file_append fio draws a length at any offset inside a file's region,
        # even one where the least block no longer fits, and the fill fails past the
        # end: that draw is spent, and the next file's length is the one after it.
        # ioplan skipped such a file without a draw, so the next file took the failed
        # length: 37, 40 and 35 writes below where fio makes 38, 42 and 38.
        cases = (("roundrobin", 1, 38), ("roundrobin:3", 8, 42), ("sequential", 1, 38))
        for n, ((svc, seed, ios), existing) in enumerate(itertools.product(cases, (0, 4096))):
            job = f"a{n}"  # a job of its own: its files and log are new to each tool
            text = (f"[{job}]\ndirectory={{dir}}\nnrfiles=5\nsize=256k\nrw=write\nbsrange=2k-10k\n"
                    f"file_append=1\nfile_service_type={svc}\nrandseed={seed}\n"
                    f"write_iolog={{dir}}/{job}.log\n")
            make = lambda d: existing and [(d / f"{job}.0.{i}").write_bytes(os.urandom(existing))
                                           for i in range(5)]
            got = self.logged(text, job, f"{job}.log", as_fio=True, prepare=make)
            with self.subTest(svc=svc, existing=existing):
                self.assertEqual(got["fio"][0]["write"]["total_ios"], ios, "fio's own count moved")
                self.assertEqual(got["ioplan"][1], got["fio"][1])

    def test_a_round_that_finds_no_io_ends_the_job(self):
        # fio's thread_main ends a job whose round moved nothing.  Here the lfsr's first
        # draw (write-sized blocks under bs_is_seq_rand, over a 30% region) lands past the
        # region, so the first round makes no I/O and fio ends the job at once.  ioplan
        # started round after round for ever (io_size= was never reached; time_based
        # re-seeded), and a spinning generator did not see SIGTERM.
        for n, extra in enumerate(("loops=2\nio_size=3m\n", "time_based=1\nruntime=2\n", "loops=1\n")):
            text = (f"[a{n}]\ndirectory={{dir}}\nrw=randread\nbs=8k,4k\nsize=30%\nfilesize=128k-1m\n"
                    f"random_generator=lfsr\nbs_is_seq_rand=1\n{extra}")
            with self.subTest(extra=extra):
                for who, (p, _) in self.both(text, as_fio=True).items():
                    self.assertEqual(p.returncode, 0, f"{who}: {p.stderr}")
                    job = jobs_of(json_of(p.stdout))[f"a{n}"]
                    self.assertEqual((job["read"]["total_ios"], job["error"]), (0, 0), who)

    def test_draws_with_replacement_move_the_regions_bytes(self):
        # Without a map (blockalign apart from bs turns it off, as norandommap) fio's
        # random job runs to its regions' bytes: size=30% of a 1 MiB file is 300 KiB
        # once cut to whole 12 KiB blocks, 25 writes.  ioplan stopped at the blocks of
        # blockalign's 16 KiB that fit the region: 24, and 64 where fio makes 67 below.
        cases = (("filesize=1m\n", 25), ("nrfiles=5\nfilesize=128k-1m\n", 67))
        for n, (files, ios) in enumerate(cases):
            job = f"a{n}"
            text = (f"[{job}]\ndirectory={{dir}}\nrw=randwrite\nbs=12k\nblockalign=16k\nsize=30%\n{files}"
                    f"write_iolog={{dir}}/{job}.log\n")
            got = self.logged(text, job, f"{job}.log", as_fio=True)
            with self.subTest(files=files):
                self.assertEqual(got["fio"][0]["write"]["total_ios"], ios, "fio's own count moved")
                self.assertEqual(got["ioplan"][1], got["fio"][1])

    def test_banner_says_processes_and_laying_out_as_fio(self):
        # fio's clones are processes unless thread= is set ("Starting 2 threads and
        # 1 process"); each thread that creates its files says "Laying out IO file".
        text = ("[a]\nthread\nnumjobs=2\nrw=write\nsize=64k\n"
                "[b]\nrw=write\nsize=1m\n[c]\nrw=read\nsize=64k\nfilename=b.0.0\nstonewall\n")
        out = self.both(text, args=(), as_fio=True)
        banner = {}
        for who, (p, _) in out.items():
            self.assertEqual(p.returncode, 0, p.stderr)
            head = p.stdout.split("\n\n")[0].splitlines()
            banner[who] = [l for l in head if l.startswith(("fio-", "Starting", "a:", "b:", "c:"))
                           and "(g=" not in l]
        self.assertEqual(banner["ioplan"], banner["fio"])
        self.assertEqual(banner["fio"][:2], ["fio-3.33", "Starting 2 threads and 2 processes"])
        self.assertIn("b: Laying out IO file (1 file / 1MiB)", banner["fio"])

    def test_laying_out_counts_a_file_named_twice_as_fio(self):
        # OpenZFS's perf jobs name nrfiles=16 files file$jobnum: one file, named 16
        # times; fio counts every name ("16 files / total 2MiB"), as it does a name
        # repeated in a filename= list.  ioplan counted the file once ("1 file / 0MiB").
        text = ("[global]\nioengine=psync\nrw=read\nthread\n"
                "[z]\nnrfiles=4\nfilesize=512k\nfilename_format=file$jobnum\nnumjobs=2\n"
                "[l]\nsize=1m\nfilename=a:a:b\nstonewall\n")
        lines = {}
        for who, (p, _) in self.both(text, args=(), as_fio=True).items():
            self.assertEqual(p.returncode, 0, f"{who}: {p.stderr}")
            lines[who] = [l for l in p.stdout.splitlines() if "Laying out" in l]
        self.assertEqual(lines["ioplan"], lines["fio"])
        self.assertEqual(lines["fio"], ["z: Laying out IO files (4 files / total 2MiB)"] * 2
                         + ["l: Laying out IO files (3 files / total 0MiB)"])

    def test_fio_s_steadystate_example_writes_dev_null(self):
        # fio's examples/steadystate.fio writes /dev/null and reads /dev/zero (here by
        # size, not for 5 minutes).  Writing /dev/null destroys nothing: fio runs it and
        # so must ioplan, as fio and as itself.  ioplan refused it (exit 2: "refusing to
        # write to character device /dev/null: name it in allow_device_write=/dev/null").
        text = ("[global]\nthreads=1\ngroup_reporting\nsize=1m\n"
                "[ss-write]\nfilename=/dev/null\nrw=write\nbs=128k\nnumjobs=2\n"
                "[ss-read]\nnew_group\nstonewall\nfilename=/dev/zero\nrw=randread\nbs=4k\nnumjobs=2\n")
        for as_fio in (True, False):
            moved = {}
            for who, (p, _) in self.both(text, as_fio=as_fio).items():
                self.assertEqual((p.returncode, p.stderr), (0, ""), who)
                moved[who] = [(j["jobname"], j["error"], j["read"]["io_bytes"], j["write"]["io_bytes"])
                              for j in json_of(p.stdout)["jobs"]]
            self.assertEqual(moved["ioplan"], moved["fio"], f"as_fio={as_fio}")
            self.assertEqual(moved["fio"], [("ss-write", 0, 0, 2 << 20), ("ss-read", 0, 2 << 20, 0)])


@unittest.skipUnless(shutil.which("strace"), "strace is not installed")
class LayoutLine(TmpDirCase):
    def held_layout(self, size):
        """Runs a read job of size under strace, which holds the layout's first write
        for 10 minutes, until stdout says it lays the file out: its stdout then."""
        out = self.tmp / "out.txt"
        argv = ["strace", "-f", "-o", "/dev/null", "-e", "trace=pwrite64",
                "-e", "inject=pwrite64:delay_enter=600000000:when=1",
                BIN, "--name=x", "--rw=read", f"--size={size}", "--runtime=1", f"--directory={self.tmp}"]
        with open(out, "w") as f:
            proc = subprocess.Popen(argv, stdout=f, stderr=subprocess.STDOUT, env=TRACED_ENV,
                                    start_new_session=True)
        try:
            wait_until(lambda: "Laying out" in out.read_text() or proc.poll() is not None, 120,
                       "the layout line, or the end")
            self.assertIsNone(proc.poll(), out.read_text())  # still held in its first write
            return out.read_text()
        finally:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()

    def test_said_before_the_layout_writes_as_fio(self):
        # fio says "Laying out IO file" and then writes.  ioplan said it once the layout was
        # over, and piped, with the final report: a layout of minutes said nothing meanwhile.
        self.assertIn("x: Laying out IO file (1 file / 8MiB)", self.held_layout("8m"))
        # A file of ioplan's that the job needs longer is extended: said before, too.
        (self.tmp / "x.0.0").unlink(missing_ok=True)  # made, or not yet, when the line came
        self.assertEqual(run(["--name=x", "--rw=read", "--size=4m", f"--directory={self.tmp}"]).returncode, 0)
        self.assertIn("x: Laying out IO file (1 file / 16MiB)", self.held_layout("16m"))


if __name__ == "__main__":
    unittest.main()
