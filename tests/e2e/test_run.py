"""tests/e2e/test_run.py - running job files end to end: real files, real fio.

The same job runs under ioplan and fio 3.33; what is deterministic (I/O
counts, bytes, groups, files laid out) must agree exactly.  Interrupts,
preflight refusals and output files are checked on the real binary.
"""
import json
import pathlib
import re
import os
import resource
import signal
import subprocess
import time
import unittest

import jsonschema

from common import BIN, FIO, ROOT, STOP_BOUND_S, VARIANT, TmpDirCase, mark_of, run, run_fio, tmpfs, wait_for_stderr, wait_until

RESULT_SCHEMA = json.loads((ROOT / "schema/result.schema.json").read_text())


def jobs_json(text):
    doc = json.loads(text)
    jsonschema.validate(doc, RESULT_SCHEMA)
    return doc


class Runs(TmpDirCase):
    def test_null_engine_counts_every_block_once(self):
        p = run(["--name=n", "--ioengine=null", "--size=4m", "--rw=randread", "--output-format=json"], cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        job = jobs_json(p.stdout)["jobs"][0]
        self.assertEqual((job["read"]["total_ios"], job["read"]["io_bytes"]), (1024, 4 << 20))

    def test_null_engine_touches_no_file(self):
        # As fio's null engine: no file is created, whatever size= says.
        p = run(["--name=n", "--ioengine=null", "--size=100g", "--rw=randread", "--runtime=0.2s", "--time_based",
                 "--output-format=terse"], cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(list(self.tmp.iterdir()), [])

    def test_psync_files_are_laid_out_and_marked(self):
        p = run(["--name=w", f"--directory={self.tmp}", "--size=2m", "--rw=randread", "--direct=1",
                 "--output-format=terse"])
        self.assertEqual(p.returncode, 0, p.stderr)
        fields = p.stdout.strip().split(";")
        self.assertEqual((fields[2], int(fields[5])), ("w", 2048))  # jobname, read KiB
        f = self.tmp / "w.0.0"
        self.assertEqual(f.stat().st_size, 2 << 20)
        mark = mark_of(f)
        st = f.stat()
        self.assertEqual(len(os.getxattr(f, "user.ioplan")), 48)  # fits in an ext4 inode (64 bytes there)
        self.assertEqual((mark["state"], mark["dev"], mark["ino"], mark["size"], mark["mtime_ns"]),
                         ("filled", st.st_dev, st.st_ino, 2 << 20, st.st_mtime_ns))
        self.assertNotEqual(mark["token"], 0)

    def test_output_file_and_several_formats(self):
        out = self.tmp / "r.json"
        p = run(["--name=n", "--ioengine=null", "--size=1m", "--output-format=json", f"--output={out}"])
        self.assertEqual((p.returncode, p.stdout), (0, ""), p.stderr)
        self.assertEqual(jobs_json(out.read_text())["jobs"][0]["read"]["total_ios"], 256)
        p = run(["--name=n", "--ioengine=null", "--size=1m", "--output-format=terse,json"])
        lines = p.stdout.split("\n", 1)
        self.assertTrue(lines[0].startswith("3;ioplan-"))
        jobs_json(lines[1])

    def test_interrupt_keeps_the_results(self):
        # A real 30 s direct read on a file: SIGINT must end it at once (STOP_BOUND_S), with
        # what was measured so far reported and marked interrupted.
        proc = subprocess.Popen([BIN, "--name=n", f"--directory={self.tmp}", "--size=16m", "--rw=randread",
                                 "--direct=1", "--time_based", "--runtime=30", "--output-format=json",
                                 "--eta=always"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        # Reads measured when SIGINT comes: the progress line shows their rate.  ("[r(1)]",
        # then half a second, was a guess: a loaded machine, or a disk another program keeps
        # busy, could leave the first direct read unfinished by then, and total_ios 0.)
        wait_for_stderr(proc, until=lambda seen: re.search(r"\[r=[0-9.]+[kM]? IOPS\]", seen))
        start = time.monotonic()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=10)
        self.assertLess(time.monotonic() - start, STOP_BOUND_S)
        self.assertEqual(proc.returncode, 1, err)
        doc = jobs_json(out)
        self.assertTrue(doc["ioplan"]["interrupted"])
        read = doc["jobs"][0]["read"]
        self.assertGreater(read["total_ios"], 0)
        self.assertLess(read["runtime"], 30000)
        self.assertEqual(read["io_bytes"], read["total_ios"] * 4096)

    def idle_run(self, nofile=None):
        """A 60 s null run that does an I/O every 50 ms and shows nothing while it goes;
        nofile: its open-file limit.  Returns the process once its threads run."""
        limit = (lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))) if nofile else None
        proc = subprocess.Popen([BIN, "--name=n", "--ioengine=null", "--size=1m", "--time_based",
                                 "--runtime=60", "--rate_iops=20", "--output-format=json"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=limit)
        self.addCleanup(lambda: proc.poll() is None and (proc.kill(), proc.wait()))
        wait_until(lambda: len(list(pathlib.Path(f"/proc/{proc.pid}/task").iterdir())) >= 3,
                   what="the run's threads")
        return proc

    def assert_sigint_stops(self, proc):
        start = time.monotonic()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=10)
        self.assertLess(time.monotonic() - start, STOP_BOUND_S)
        self.assertEqual(proc.returncode, 1, err)
        self.assertTrue(jobs_json(out)["ioplan"]["interrupted"])

    def test_an_idle_supervisor_sleeps_until_a_signal(self):
        # Nothing drawn, reported or watched over time: the main thread sleeps until
        # the run ends or a signal comes.  It used to wake every 10 ms, which a run
        # counted by callgrind (bench/instr_per_io.py) counted as work per I/O, more
        # the slower a loaded machine ran it.  A signal still ends the run at once.
        proc = self.idle_run()
        main = pathlib.Path(f"/proc/{proc.pid}/task/{proc.pid}/status")

        def wakes():
            return int(re.search(r"voluntary_ctxt_switches:\s+(\d+)", main.read_text()).group(1))
        before = wakes()
        time.sleep(1)  # the window counted, not a wait for a state: ~100 wake-ups at 10 ms
        self.assertLessEqual(wakes() - before, 2)
        self.assert_sigint_stops(proc)

    @unittest.skipIf("undefined" in VARIANT, "UBSan's vptr check probes memory through a pipe, "
                     "which four descriptors leave no room for (a false report: make test-sanitize)")
    def test_a_supervisor_without_its_descriptors_still_takes_a_signal(self):
        # Four open files: stdin, stdout, stderr and the engine's eventfd; the signalfd
        # cannot be had, and the supervisor polls the engine every 10 ms instead.
        self.assert_sigint_stops(self.idle_run(nofile=4))

    def test_preflight_findings_are_in_the_json(self):
        p = run(["--name=r", f"--directory={self.tmp}", "--size=1m", "--rw=read", "--number_ios=8",
                 "--output-format=json"])
        self.assertEqual(p.returncode, 0, p.stderr)
        doc = jobs_json(p.stdout)
        codes = [f["code"] for f in doc["ioplan"]["preflight"]["findings"]]
        self.assertEqual(codes, ["cached-reads"])
        self.assertEqual(p.stderr, "")  # stderr is for errors; the warning is in the report
        self.assertTrue(any("page cache" in w for w in doc["ioplan"]["warnings"]), doc["ioplan"]["warnings"])
        self.assertEqual(len(doc["ioplan"]["series"]), 1)

    def test_preflight_refusal_does_no_io(self):
        # A missing directory is made (as fio's); one beneath a regular file cannot be.
        (self.tmp / "plain").write_text("")
        p = run(["--name=w", f"--directory={self.tmp}/plain/sub", "--size=1m", "--rw=write"])
        self.assertEqual(p.returncode, 2)
        self.assertIn("directory", p.stderr)
        p = run(["--name=w", f"--directory={self.tmp}", "--size=1p", "--rw=write"])
        self.assertEqual(p.returncode, 2)
        self.assertIn("not enough free space", p.stderr)
        self.assertEqual([f.name for f in self.tmp.iterdir()], ["plain"])

    def test_sizes_that_add_past_2_64_bytes_are_refused_not_wrapped(self):
        # 1024 clones of 16 PiB are 2^64 bytes: the sum wrapped to 0, the free-space
        # check passed, and every clone's layout ran until the disk was full (exit 1):
        # a small tmpfs of its own, so that a wrapped sum cannot fill the machine's.
        mnt = tmpfs(self, "size=1m")
        for clones, size in ((1024, "16p"), (1024, "16383p"), (2, "8192p")):
            with self.subTest(clones=clones, size=size):
                p = run(["--name=w", f"--directory={mnt}", f"--size={size}", f"--numjobs={clones}",
                         "--rw=write"])
                self.assertEqual(p.returncode, 2, p.stderr[-2000:])
                self.assertIn(f"ioplan: error: not enough free space to lay out the files in {mnt}: at least "
                              f"18446744073709551615 bytes needed, 1048576 available\n", p.stderr)
                self.assertEqual(list(mnt.iterdir()), [])

    def test_each_clones_offset_increment_counts_in_the_free_space_check(self):
        # Judged by clone 0's region alone, a file clones share (or each clone's own) with
        # offset_increment past the free space passed the preflight, and the run started
        # ("Starting 2 processes") to fail at layout: "No space left on device", exit 1.
        # As offset= is, each clone's region end is counted before any I/O: exit 2.
        mnt = tmpfs(self, "size=256k")
        for where in (f"--filename={mnt}/shared", f"--directory={mnt}"):
            with self.subTest(where=where):
                p = run(["--name=r", where, "--size=8k", "--offset_increment=1m", "--numjobs=2",
                         "--rw=read", "--ioengine=psync"])
                self.assertEqual((p.returncode, p.stdout), (2, ""), p.stderr[-2000:])
                self.assertRegex(p.stderr, rf"ioplan: error: not enough free space to lay out the files in "
                                           rf"{mnt}: 10[0-9]+ bytes needed, 262144 available\n")
                self.assertEqual(list(mnt.iterdir()), [])
        p = run(["--name=r", f"--filename={mnt}/shared", "--size=8k", "--offset_increment=64k", "--numjobs=2",
                 "--rw=read", "--ioengine=psync", "--output-format=json"])
        self.assertEqual(p.returncode, 0, p.stderr)  # a region that fits still runs
        self.assertEqual(json.loads(p.stdout)["jobs"][0]["read"]["io_bytes"], 8192)

    def test_existing_file_not_created_by_ioplan_is_not_written(self):
        f = self.tmp / "precious"
        f.write_bytes(b"x" * (1 << 20))
        p = run(["--name=w", f"--filename={f}", "--size=1m", "--rw=write"])
        self.assertEqual(p.returncode, 2)  # refused by the preflight, before any I/O
        self.assertIn(f"job 'w': {f}: refusing to write into an existing file ioplan did not create "
                      "(allow it with allow_existing_file_write)", p.stderr)
        # A read job that would have to extend it is refused too; one within its size reads it.
        p = run(["--name=r", f"--filename={f}", "--size=2m", "--rw=read"])
        self.assertEqual(p.returncode, 2)
        self.assertIn("existing file is too small and ioplan did not create it", p.stderr)
        p = run(["--name=r", f"--filename={f}", "--size=1m", "--rw=read"])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(f.read_bytes(), b"x" * (1 << 20))


@unittest.skipIf(FIO is None, "fio not installed")
class AgainstFio(TmpDirCase):
    """Deterministic quantities of the same job file under fio and ioplan."""

    JOB = """[global]
directory={dir}
size=2m
bs=4k
direct=1
[seqread]
rw=read
[randread]
rw=randread
stonewall
[mixed]
rw=randrw
rwmixread=70
numjobs=2
bs=8k
"""

    def per_job(self, doc):
        return [(j["jobname"], j["groupid"], j["read"]["io_bytes"] + j["write"]["io_bytes"]) for j in doc["jobs"]]

    def test_io_amounts_and_groups_match_fio(self):
        for who in ("fio", "ioplan"):
            (self.tmp / who).mkdir()
            (self.tmp / who / "job.fio").write_text(self.JOB.format(dir=self.tmp / who))
        fio = run_fio(["--output-format=json", str(self.tmp / "fio/job.fio")])
        self.assertEqual(fio.returncode, 0, fio.stderr)
        ours = run(["--output-format=json", str(self.tmp / "ioplan/job.fio")])
        self.assertEqual(ours.returncode, 0, ours.stderr)
        self.assertEqual(self.per_job(jobs_json(ours.stdout)), self.per_job(json.loads(fio.stdout)))
        laid = lambda d: sorted((p.name, p.stat().st_size) for p in d.iterdir() if p.name != "job.fio")
        self.assertEqual(laid(self.tmp / "ioplan"), laid(self.tmp / "fio"))

    def test_awk_pipeline_over_terse_gives_the_same_numbers(self):
        job = "[global]\nioengine=null\nsize=8m\nbs=64k\n[r]\nrw=read\n[w]\nrw=write\nstonewall\n"
        path = self.write("t.fio", job)
        awk = "awk -F ';' '{print $3, ($7+$48)/1000}'"
        outs = []
        for cmd in ([FIO, "--output-format=terse", str(path)], [BIN, "--output-format=terse", str(path)]):
            p = subprocess.run(" ".join(cmd) + " | " + awk, shell=True, capture_output=True, text=True)
            names = [line.split()[0] for line in p.stdout.splitlines()]
            outs.append(names)
            self.assertEqual(len(names), 2, p.stdout + p.stderr)
        self.assertEqual(outs[0], outs[1])


if __name__ == "__main__":
    unittest.main()


class SeedsAndRates(TmpDirCase):
    """The seeds' job files end to end (shrunk), and the open-loop rate limiter."""

    def shrunk(self, name):
        text = (ROOT / "examples" / name).read_text()
        text = re.sub(r"(?m)^size=.*$", "size=8m", text)
        # Size-bound: the job file's runtime= is what counts (a command line's --runtime
        # only gives the default), and a 0.3 s window could close, on a busy machine,
        # before a job's thread first ran; 8 MiB a job always moves data.
        text = re.sub(r"(?m)^runtime=.*$", "runtime=60", text)
        text = re.sub(r"(?m)^directory=/mnt/(\w+)$", lambda m: f"directory={self.tmp / m.group(1)}", text)
        text = re.sub(r"(?m)^iodepth=\d+$", "iodepth=8", text)
        for d in ("readcache", "nocache"):
            (self.tmp / d).mkdir(exist_ok=True)
        return self.write(name, text)

    def test_seed_job_files_run(self):
        for name in ("fio_setting.txt", "fiowrite.ini", "fioread.ini", "fioreadwrite.ini"):
            with self.subTest(job=name):
                p = run([f"--directory={self.tmp}", "--output-format=json",
                         str(self.shrunk(name))], timeout=120)
                self.assertEqual(p.returncode, 0, p.stderr)
                doc = jobs_json(p.stdout)
                groups = sorted({j["groupid"] for j in doc["jobs"]})
                self.assertEqual(groups, list(range(8)) if name == "fio_setting.txt" else [0])
                self.assertTrue(all(j["read"]["total_ios"] + j["write"]["total_ios"] > 0 for j in doc["jobs"]))

    def test_rate_iops_3200_for_3_seconds(self):
        p = run(["--name=r", "--ioengine=null", "--size=64m", "--rw=randread", "--time_based", "--runtime=3",
                 "--rate_iops=3200", "--output-format=json"], cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        ios = jobs_json(p.stdout)["jobs"][0]["read"]["total_ios"]
        self.assertAlmostEqual(ios, 9600, delta=9600 * 0.02)


class SeedPipelines(TmpDirCase):
    """Seed 001's awk pipeline and jq over the CrystalDiskMark-like file."""

    shrunk = SeedsAndRates.shrunk

    def test_awk_prints_eight_jobs_and_jq_reads_iops(self):
        # shrunk() makes each job size-bound: a job with no I/O rightly prints 0 IOPS.
        job = self.shrunk("fio_setting.txt")
        common = [BIN, f"--directory={self.tmp}", str(job)]
        awk = subprocess.run(" ".join(common + ["--output-format=terse"]) +
                             " | awk -F ';' '{print $3, ($7+$48) / 1000 }'",
                             shell=True, capture_output=True, text=True, timeout=120)
        lines = awk.stdout.split("\n")[:-1]
        self.assertEqual(len(lines), 8, awk.stdout + awk.stderr)
        for line in lines:
            name, number = line.split()
            self.assertRegex(name, r"^(SEQ1M|RND4K)_Q\d+T1_(READ|WRITE)$")
            self.assertGreater(float(number), 0)
        jq = subprocess.run(" ".join(common + ["--output-format=json"]) + " | jq '.jobs[].read.iops'",
                            shell=True, capture_output=True, text=True, timeout=120)
        self.assertEqual(jq.returncode, 0, jq.stderr)
        values = [float(v) for v in jq.stdout.split()]
        self.assertEqual(len(values), 8)
        self.assertEqual([v > 0 for v in values], [True, False] * 4)
