"""tests/e2e/test_fio_flags.py - every flag of fio 3.33's `fio --help` is accepted and does what fio does.

A table of (arguments, exit status, stream, text it must hold) runs each flag;
the flags whose effect is a run (--readonly, --debug, terse) are
checked on real null-engine or scratch-file runs; --showcmd against fio itself.
"""
import json
import os
import re
import signal
import subprocess
import time
import unittest

from common import (BIN, FIO, TmpDirCase, communicate_after, fio_link_dir, fio_openings, run, run_as_fio, run_fio,
                    wait_until)

NULL = ["--name=j", "--ioengine=null", "--size=64k", "--bs=4k"]
REMOTE = "no client/server mode; to run on many hosts at once use MPI: mpirun -np N ioplan JOBFILE"

# (args, exit status, "out" or "err", text the stream holds)
ROWS = [
    (["--parse-only", *NULL], 0, "out", ""),
    (["--minimal", *NULL], 0, "out", "3;ioplan-"),
    (["--append-terse", *NULL], 0, "out", "3;ioplan-"),
    (["--append-terse", *NULL], 0, "out", "Run status group 0"),
    (["--output-format=json", "--append-terse", *NULL], 0, "out", '"jobs" : ['),
    (["--terse-version=3", "--minimal", *NULL], 0, "out", "3;ioplan-"),
    (["--terse-version=6", *NULL], 2, "err", "bad terse version '6' (valid: 2, 3, 4, 5)"),
    (["--bandwidth-log", *NULL], 0, "out", "Run status group 0"),
    (["--status-interval=1", *NULL], 0, "out", "Run status group 0"),
    (["--status-interval=10ms", *NULL], 0, "out", "Run status group 0"),  # fio's least is 1 ms
    (["--status-interval=0", *NULL], 2, "err", "--status-interval=0: at least 1 ms"),
    (["--status-interval=abc", *NULL], 2, "err", "--status-interval=abc: "),
    (["--eta-newline=1", "--eta=never", *NULL], 0, "out", "Run status group 0"),
    (["--eta-newline=0", *NULL], 2, "err", "at least 1 ms"),
    (["--eta-interval=50ms", *NULL], 2, "err", "at least 100 ms"),
    # fio 3.33 takes any --eta value, and one that is not always or never changes nothing:
    # ioplan refused it ("--eta: unknown value 'sometimes'", exit 2) where fio ran.
    (["--eta=sometimes", *NULL], 0, "out", "Run status group 0"),
    (["--alloc-size=16384", *NULL], 0, "out", "Run status group 0"),
    (["--alloc-size=lots", *NULL], 2, "err", "a whole number above 0"),
    (["--aux-path=/tmp", *NULL], 0, "out", "Run status group 0"),
    (["--idle-prof=system", *NULL], 0, "out", "\nCPU idleness:\n  system: "),
    (["--idle-prof=percpu", *NULL], 0, "out", "  percpu: "),
    (["--idle-prof=calibrate"], 0, "out", "unit work: mean="),
    (["--idle-prof=bogus"], 2, "err", "valid: system, percpu, calibrate"),
    (["--trigger-file=/nonexistent", "--trigger=true", "--trigger-timeout=5", *NULL], 0, "out", "Run status group 0"),
    (["--trigger-timeout=soon", *NULL], 2, "err", "--trigger-timeout=soon"),
    (["--warnings-fatal", *NULL], 0, "out", "Run status group 0"),
    (["--max-jobs=1", *NULL], 0, "out", "Run status group 0"),
    (["--max-jobs=2", *NULL, "--numjobs=3"], 0, "out", "Run status group 0"),  # ignored, as fio 3.33 does
    (["--max-jobs=0", *NULL], 0, "out", "Run status group 0"),
    (["--section=j", *NULL], 0, "out", ""),
    # fio: "No job(s) defined"; ioplan said "no job file given", though --name=j was.
    (["--section=k", *NULL], 2, "err", "ioplan: error: no job of the command line matches --section\n"),
    (["--output-format=terse", *NULL], 0, "out", "3;ioplan-"),
    (["--version"], 0, "out", "ioplan-"),
    (["--help"], 0, "out", "--showcmd"),
    (["--cmdhelp=bs"], 0, "out", "blocksize"),
    (["--enghelp"], 0, "out", "Available IO engines:\n\tpsync\n"),
    (["--enghelp=io_uring"], 0, "out", "fixedbufs"),
    (["--enghelp=io_uring,hipri"], 0, "out", "hipri\n"),
    (["--enghelp=psync"], 1, "out", "IO engine psync has no options"),
    (["--enghelp=nosuch"], 1, "err", "IO engine nosuch not found"),
    (["--cpuclock-test"], 0, "out", "cs: Pass!"),
    (["--crctest"], 0, "out", "sha3-512:\t"),
    (["--crctest=xxhash"], 0, "out", "xxhash:\t\t"),
    (["--crctest=md5,crc7"], 0, "out", "md5:\t\t"),
    (["--crctest=md4"], 1, "err", "unknown checksum 'md4'. Available: md5, crc64, crc32, crc32c, crc16, crc7, sha1,"),
    (["--debug=help"], 0, "out", "process,file,io,mem"),
    (["--debug=nosuch", *NULL], 2, "err", "--debug: unknown class 'nosuch'"),
    (["--debug=mem", *NULL], 0, "err", "--debug=mem: ioplan prints nothing for this class"),
    (["--debug=io", *NULL], 0, "err", "load ioengine null"),
    (["--merge-blktrace-only"], 2, "err", "no job file given"),
    (["--merge-blktrace-only", *NULL], 0, "err", ""),  # no merge_blktrace_file: nothing to merge, no run
    (["--inflate-log=x.log.fz"], 1, "err", "--inflate-log: x.log.fz: No such file or directory"),
    (["--latency-log=x"], 2, "err", "--latency-log is deprecated"),
    (["--server"], 2, "err", REMOTE),
    (["--server=ip:1.2.3.4"], 2, "err", REMOTE),
    (["--client=host1", "job.fio"], 2, "err", "mpirun -np N ioplan JOBFILE"),
    (["--daemonize=/tmp/pid"], 2, "err", REMOTE),
    (["--remote-config=job.fio"], 2, "err", REMOTE),
    (["--trigger-remote=true"], 2, "err", REMOTE),
    (["--readonly", "--parse-only", *NULL], 0, "out", ""),
    (["--readonly", *NULL, "--rw=randwrite"], 2, "err", "--readonly: job 'j' writes or trims (rw=randwrite)"),
    (["--readonly", *NULL, "--rw=trim"], 2, "err", "--readonly: job 'j' writes or trims"),
    # fio's getopt_long_only: its one-letter forms and unambiguous abbreviations.
    (["-v"], 0, "out", "ioplan-"),
    (["--vers"], 0, "out", "ioplan-"),
    (["-F", "terse", *NULL], 0, "out", "3;ioplan-"),
    (["-m", *NULL], 0, "out", "3;ioplan-"),
    (["--minim", "--name=j", "--ioeng=null", "--siz=64k"], 0, "out", "3;ioplan-"),
    (["--output-fo=terse", *NULL], 0, "out", "3;ioplan-"),
    (["--ou=x", *NULL], 2, "err", "option '--ou' is ambiguous; possibilities: --output --output-format"),
    (["--sizx=1", *NULL], 2, "err", "unknown option 'sizx'; did you mean 'size'?"),
]


class EveryFlag(TmpDirCase):
    def test_table(self):
        for args, rc, stream, text in ROWS:
            with self.subTest(args=args):
                p = run(args, cwd=self.tmp, timeout=60)
                self.assertEqual(p.returncode, rc, p.stderr)
                self.assertIn(text, p.stdout if stream == "out" else p.stderr)

    @unittest.skipUnless(FIO, "fio not installed")
    def test_every_flag_of_fio_help_is_in_the_table(self):
        names = set(re.findall(r"(?m)^  --([a-z-]+)", run_fio(["--help"]).stdout))
        self.assertGreater(len(names), 30)
        table = run(["--help"]).stdout
        missing = [n for n in sorted(names) if not re.search(r"(?m)^  --" + re.escape(n) + r"\b", table)]
        self.assertEqual(missing, [])


class EtaValues(TmpDirCase):
    def test_a_value_fio_does_not_know_leaves_the_mode_as_it_was(self):
        # fio 3.33 sets its progress line only for always and never: --eta=always --eta=x
        # still draws it, --eta=never --eta= still draws none.
        line = ["--name=j", "--ioengine=null", "--size=1g", "--rate_iops=50", "--runtime=1", "--time_based",
                "--eta-interval=250ms"]
        for first, then, drawn in (("always", "sometimes", True), ("never", "", False)):
            with self.subTest(first=first, then=then):
                p = run([f"--eta={first}", f"--eta={then}", *line], cwd=self.tmp)
                self.assertEqual(p.returncode, 0, p.stderr)
                self.assertEqual("Jobs: 1" in p.stderr, drawn, p.stderr)
                if FIO:
                    f = run_fio([f"--eta={first}", f"--eta={then}", *line], cwd=self.tmp)
                    self.assertEqual((f.returncode, "Jobs: 1" in f.stdout), (0, drawn), f.stderr)


class RunFlags(TmpDirCase):
    def job(self, rw, name="d.dat"):
        return ["--name=j", f"--filename={self.tmp / name}", "--size=256k", "--bs=4k", f"--rw={rw}"]

    def test_readonly_refuses_a_layout_and_writes_nothing(self):
        p = run(["--readonly", *self.job("read")])
        self.assertEqual(p.returncode, 2)
        self.assertIn("does not exist and would be created", p.stderr)
        self.assertFalse((self.tmp / "d.dat").exists())

    def test_readonly_reads_a_laid_out_file(self):
        self.assertEqual(run(self.job("read")).returncode, 0)  # lays it out
        before = (self.tmp / "d.dat").stat().st_mtime_ns
        p = run(["--readonly", "--minimal", *self.job("randread")])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.split(";")[5], "256")  # read KiB
        self.assertEqual((self.tmp / "d.dat").stat().st_mtime_ns, before)

    def test_readonly_refuses_to_extend(self):
        self.assertEqual(run(self.job("read")).returncode, 0)
        p = run(["--readonly", *self.job("read"), "--size=512k"])
        self.assertEqual(p.returncode, 2)
        self.assertIn("smaller than the jobs need and would be extended", p.stderr)

    def test_readonly_refuses_engines_that_change_files_whatever_rw_says(self):
        # fio 3.33 runs filecreate under --readonly and makes its files; ioplan's --readonly writes nothing.
        d = self.tmp / "d"
        d.mkdir()
        made = ["--name=j", f"--directory={d}", "--nrfiles=2", "--filesize=4k"]
        self.assertEqual(run([*made, "--ioengine=dircreate"]).returncode, 0)
        self.assertEqual(run(["--name=f", *made[1:], "--ioengine=filecreate"]).returncode, 0)
        before = sorted(os.listdir(d))
        self.assertEqual(len(before), 4)
        for engine, says in (("filecreate", "creates files"), ("filedelete", "deletes files"),
                             ("dircreate", "creates directories"), ("dirdelete", "removes directories"),
                             ("dirstat", "creates the directories"), ("falloc", "allocates blocks")):
            with self.subTest(engine=engine):
                p = run(["--readonly", *made, f"--ioengine={engine}"])
                self.assertEqual(p.returncode, 2, p.stderr)
                self.assertIn(f"--readonly: job 'j': ioengine={engine} {says}", p.stderr)
                self.assertEqual(sorted(os.listdir(d)), before)
        for f in ("f.0.0", "f.0.1"):  # filecreate's are empty: a stat of files of the size asked
            (d / f).write_bytes(b"x" * 4096)
        p = run(["--readonly", "--name=f", *made[1:], "--ioengine=filestat"])
        self.assertEqual(p.returncode, 0, p.stderr)  # a stat changes nothing

    def test_end_of_options_and_short_output(self):
        # `fio "$@" -- "$jobfile"`: what follows -- is job files; -o FILE is --output.
        job = self.tmp / "-j.fio"  # a name only -- keeps from being read as an option
        job.write_text("[j]\nioengine=null\nsize=64k\n")
        p = run(["--output-format=terse", "-o", "out.txt", "--", job.name], cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertTrue((self.tmp / "out.txt").read_text().startswith("3;ioplan-"))
        if FIO:
            self.assertEqual(run_fio(["--output-format=terse", "--", job.name], cwd=self.tmp).returncode, 0)

    def test_a_signal_is_fios_exit_status_128_run_as_fio(self):
        # Scripts tell an interrupted fio by 128 (fio 3.33's sig_int; by hand: kill -INT during a
        # time_based run exits 128; not run here: a job process fio has forked may still miss it on
        # a loaded machine, and then runs its 30 s).  ioplan's own status for it is 1.
        job = ["--name=j", "--ioengine=null", "--size=1g", "--time_based", "--runtime=30", "--minimal"]
        for who, exe, want in (("ioplan as fio", os.path.join(fio_link_dir(), "fio"), 128), ("ioplan", BIN, 1)):
            with self.subTest(who=who):
                p = subprocess.Popen([exe, *job], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                # Its workers are running (their signals are blocked before they start).
                wait_until(lambda: len(os.listdir(f"/proc/{p.pid}/task")) > 1, what=f"{who}'s workers")
                p.send_signal(signal.SIGINT)
                out, err = p.communicate(timeout=30)
                self.assertEqual(p.returncode, want, err)
                self.assertTrue(out.strip().splitlines()[-1].startswith("3;"), out)  # what ran is reported

    def test_run_as_fio_enghelp_and_showcmd_are_fios_lines(self):
        # Scripts match fio's engine lines whole (grep -x $'\\tlibaio') and its showcmd's first word.
        p = run_as_fio(["--enghelp"])
        self.assertEqual(p.returncode, 0, p.stderr)
        lines = p.stdout.splitlines()
        self.assertEqual(lines[0], "Available IO engines:")
        self.assertIn("\tlibaio", lines)
        self.assertTrue(all(re.fullmatch(r"\t[a-z0-9_]+", l) for l in lines[1:]), lines)
        self.assertIn("(options: ", run(["--enghelp"]).stdout)  # ioplan's own list says more
        path = self.write("x.fio", "[x]\nioengine=null\nsize=1m\n")
        p = run_as_fio(["--showcmd", str(path)])
        self.assertTrue(p.stdout.startswith("fio --name=x "), p.stdout)
        if FIO:
            fio_lines = run_fio(["--enghelp"]).stdout.splitlines()
            self.assertEqual(fio_lines[0], lines[0])
            self.assertIn("\tlibaio", fio_lines)

    def test_run_as_fio_cmdhelp_is_fios_layout(self):
        # Scripts ask fio whether it knows an option with `fio --cmdhelp=NAME | grep -q 'NAME:'`
        # and read its labelled lines; ioplan's own layout ("NAME" alone on its line) made such a
        # script drop every option.  The labels are fio's, in fio's order; the words are ioplan's.
        def labels(out):
            return [l.split(":")[0].strip() for l in out.splitlines() if l.split(":")[0].strip()]

        for name, want in (("serialize_overlap", ["serialize_overlap", "type", "default", "range"]),
                           ("blocksize", ["bs", "alias", "type", "default", "range"]),
                           ("time_based", ["time_based", "type", "default"]),
                           ("rw", ["rw", "alias", "type", "default", "valid values"])):
            p = run_as_fio([f"--cmdhelp={name}"])
            self.assertEqual((p.returncode, p.stderr), (0, ""), name)
            self.assertEqual(labels(p.stdout), want, p.stdout)
            self.assertTrue(p.stdout.endswith("\n\n"), p.stdout)
            if FIO:
                self.assertEqual(labels(run_fio([f"--cmdhelp={name}"]).stdout), want, name)
        self.assertIn("\n        valid values: read       ", run_as_fio(["--cmdhelp=rw"]).stdout)
        # An unknown name: fio's line on stderr and exit 0; a typo within two edits explained.
        for name in ("nosuch", "directt"):
            p = run_as_fio([f"--cmdhelp={name}"])
            self.assertEqual((p.returncode, p.stderr), (0, f"No such command: {name}"))
            if FIO:
                f = run_fio([f"--cmdhelp={name}"])
                self.assertEqual((f.returncode, f.stderr), (0, p.stderr))
                self.assertEqual(labels(f.stdout), labels(p.stdout), name)
        self.assertEqual(run_as_fio(["--cmdhelp=nosuch"]).stdout, "\n")
        self.assertTrue(run_as_fio(["--cmdhelp=directt"]).stdout.startswith(" - showing closest match\n"
                                                                              "              direct: "))
        lines = run_as_fio(["--cmdhelp=all"]).stdout.splitlines()
        self.assertTrue(all(re.fullmatch(r"[a-z0-9_]{1,23} *: .*", l) or re.fullmatch(r"[a-z0-9_]{24,}: .*", l)
                            for l in lines), lines)
        # An engine's option as fio's --enghelp=ENGINE,OPTION explains it; unknown there: exit 1.
        p = run_as_fio(["--enghelp=libaio,userspace_reap"])
        self.assertEqual((p.returncode, labels(p.stdout)), (0, ["userspace_reap", "type", "default"]), p.stdout)
        p = run_as_fio(["--enghelp=libaio,nosuch"])
        self.assertEqual((p.returncode, p.stderr, p.stdout), (1, "No such command: nosuch", "\n"))
        if FIO:
            self.assertEqual(labels(run_fio(["--enghelp=libaio,userspace_reap"]).stdout), labels(
                run_as_fio(["--enghelp=libaio,userspace_reap"]).stdout))
            self.assertEqual(run_fio(["--enghelp=libaio,nosuch"]).returncode, 1)
        # ioplan's own layout stays ioplan's.
        self.assertTrue(run(["--cmdhelp=bs"]).stdout.startswith("bs\n  aliases:  blocksize\n"))
        self.assertEqual(run(["--cmdhelp=nosuch"]).returncode, 2)

    def test_run_as_fio_enghelp_of_an_engine_it_lacks_is_fios_lines(self):
        # `fio --enghelp=E | grep -q 'not found'` reads fio's verdict on stdout; ioplan wrote it
        # on stderr, so such a script took the engine for one it has.
        p = run_as_fio(["--enghelp=nosuch"])
        self.assertEqual((p.returncode, p.stdout, p.stderr),
                         (1, "IO engine nosuch not found\n", "fio: engine nosuch not loadable\n"))
        if FIO:
            f = run_fio(["--enghelp=nosuch"])
            self.assertEqual((f.returncode, f.stdout, f.stderr), (p.returncode, p.stdout, p.stderr))

    def test_append_terse_before_output_format_is_undone_as_in_fio(self):
        # fio's --output-format starts from no format: --append-terse before it is dropped, after it kept.
        p = run(["--append-terse", "--output-format=json", *NULL])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(json.loads(p.stdout)["jobs"][0]["jobname"], "j")
        p = run(["--output-format=json", "--append-terse", *NULL])
        self.assertEqual(p.returncode, 0, p.stderr)
        first, rest = p.stdout.split("\n", 1)
        self.assertTrue(first.startswith("3;ioplan-"), first)
        self.assertEqual(json.loads(rest)["jobs"][0]["jobname"], "j")
        if FIO:
            p = run_fio(["--append-terse", "--output-format=json", *NULL])
            self.assertEqual(json.loads(p.stdout)["jobs"][0]["jobname"], "j")

    def test_normal_with_terse_and_json_opens_with_the_banner_as_fio(self):
        # fio prints normal output's opening (job banners, "Starting ...") before the run,
        # then terse, JSON and the job's block: ioplan printed the terse line first.
        def kinds(out):
            marks = [("banner", r"j: \(g=0\)"), ("starting", r"Starting "), ("terse", r"3;(fio|ioplan)-"),
                     ("json", r"\{$"), ("job", r"j: \(groupid=0")]
            return [k for l in out.splitlines() for k, rx in marks if re.match(rx, l)]

        want = ["banner", "starting", "terse", "json", "job"]
        p = run(["--output-format=normal,terse,json", *NULL])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(kinds(p.stdout), want)
        if FIO:
            self.assertEqual(kinds(run_fio(["--output-format=normal,terse,json", *NULL]).stdout), want)

    def test_warnings_fatal_refuses_a_run_with_warnings(self):
        self.assertEqual(run(self.job("read")).returncode, 0)
        plain = run(self.job("read"))  # a buffered read of 256 KiB: the page cache warning
        self.assertEqual(plain.returncode, 0, plain.stderr)
        self.assertEqual(plain.stderr, "")  # a successful run keeps its warnings in the report
        self.assertIn("warning: buffered reads", plain.stdout)
        p = run(["--warnings-fatal", *self.job("read")])
        self.assertEqual(p.returncode, 2)
        self.assertIn("ioplan: warning: buffered reads over 262144 bytes", p.stderr)  # named, then refused
        self.assertIn("--warnings-fatal: preflight gave warnings; nothing was run", p.stderr)
        self.assertEqual(p.stdout, "")
        # Run as fio it is fio's flag: job-file warnings only, so a plain buffered job runs, as in fio.
        p = run_as_fio(["--warnings-fatal", "--minimal", *self.job("read")])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.split(";")[5], "256")
        if FIO:
            self.assertEqual(run_fio(["--warnings-fatal", "--minimal", *self.job("read")]).returncode, 0)

    def test_debug_file_and_io_lines(self):
        p = run(["--debug=file,io", "--ioengine=psync", *self.job("read")])
        self.assertEqual(p.returncode, 0, p.stderr)
        path = str(self.tmp / "d.dat")
        for line in ("io       {} load ioengine psync", "file     {} add file " + path, "file     {} setup files",
                     "file     {} close file " + path, "io       {} close ioengine psync"):
            self.assertRegex(p.stderr, re.escape(line).replace(r"\{\}", r"\d+"))
        self.assertNotIn("load ioengine", p.stdout)  # stdout carries only the results

    def test_trigger_timeout_stops_the_run_then_runs_the_command(self):
        marker = self.tmp / "fired"
        long_run = ["--name=j", "--ioengine=null", "--size=1g", "--time_based", "--runtime=20"]
        t0 = time.monotonic()
        p = run(["--trigger-timeout=1", f"--trigger=echo fired > {marker}", "--minimal", *long_run])
        self.assertEqual(p.returncode, 0, p.stderr)  # as fio: a triggered stop is a finished run
        self.assertLess(time.monotonic() - t0, 10)
        self.assertTrue(marker.exists())
        runtime_ms = int(p.stdout.split(";")[8])
        self.assertGreaterEqual(runtime_ms, 900)
        self.assertLess(runtime_ms, 5000)

    def test_sigterm_while_the_trigger_command_runs_keeps_the_report(self):
        # The command runs after the run stopped, before its report: SIGTERM to ioplan then
        # ended it with the run unreported (exit 143, nothing on stdout); fio, whose handler
        # stays, reports.  Now it is said, the report written, and the exit status is 1.
        started = self.tmp / "started"
        proc = subprocess.Popen([BIN, "--trigger-timeout=1", f"--trigger=touch {started}; sleep 2",
                                 "--output-format=json", "--name=j", "--ioengine=null", "--size=1g",
                                 "--time_based", "--runtime=20"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True)
        out, err = communicate_after(proc, lambda: wait_until(started.exists, what="the trigger command"),
                                     lambda: proc.send_signal(signal.SIGTERM), timeout=60)
        self.assertEqual(proc.returncode, 1, err)
        self.assertIn("ioplan: signal 15 while --trigger's command ran: the run's report follows", err)
        self.assertGreater(json.loads(out)["jobs"][0]["read"]["io_bytes"], 0)

    def test_trigger_file_stops_the_run_and_is_removed(self):
        trig = self.write("trig", "")
        long_run = ["--name=j", "--ioengine=null", "--size=1g", "--time_based", "--runtime=20"]
        p = run([f"--trigger-file={trig}", "--trigger=echo TRIGGERED", "--output-format=json", *long_run])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertFalse(trig.exists())
        self.assertTrue(p.stdout.startswith("TRIGGERED\n"))  # the command runs before the report, as fio's
        self.assertFalse(json.loads(p.stdout.split("\n", 1)[1])["ioplan"]["interrupted"])

    def test_terse_versions_have_fios_fields(self):
        want = {2: 161, 3: 121, 4: 162, 5: 180}  # fio 3.33, one null-engine job, no disk
        for v, n in want.items():
            p = run([f"--terse-version={v}", "--minimal", *NULL])
            self.assertEqual(p.returncode, 0, p.stderr)
            f = p.stdout.rstrip("\n").split(";")
            self.assertEqual(len(f), n, v)
            self.assertEqual(f[0], str(v))
            self.assertEqual(f[1 if v == 2 else 2], "j")
            if FIO:
                fio = run_fio([f"--terse-version={v}", "--minimal", *NULL]).stdout.rstrip("\n").split(";")
                self.assertEqual(len(fio), n, v)
        v5 = run(["--terse-version=5", "--minimal", *NULL]).stdout.split(";")
        self.assertEqual(v5[5], "64")  # read KiB, where v3 has it
        # after read's bw fields: bw samples, iops min, max, mean, dev, samples (none in a 1 ms run)
        self.assertEqual(v5[46:52], ["0", "0", "0", "0.000000", "0.000000", "0"])
        self.assertEqual(v5[52], "0")  # write KiB opens the write block

    def test_run_as_fio_showcmd_is_fios_bytes(self):
        # fio ends each word with a space and prints an empty line for a file with no section;
        # ioplan ended the line at the last word and printed a bare "fio" for the empty file.
        path = self.write("a.fio", "[global]\nioengine=null\nsize=1m\n[j1]\nrw=read\ntime_based\n[j2]\nbs=32k\n")
        empty = self.write("e.fio", "; nothing to run\n")
        p = run_as_fio(["--showcmd", str(empty), str(path)])
        self.assertEqual((p.returncode, p.stderr), (0, ""))
        self.assertEqual(p.stdout, "\nfio --ioengine=null --size=1m --name=j1 --rw=read --time_based --name=j2 --bs=32k \n")
        if FIO:
            self.assertEqual(run_fio(["--showcmd", str(empty), str(path)]).stdout, p.stdout)
        self.assertEqual(run(["--showcmd", str(path)]).stdout,
                         "ioplan --ioengine=null --size=1m --name=j1 --rw=read --time_based --name=j2 --bs=32k\n")

    def test_showcmd_writes_what_fio_writes(self):
        path = self.write("a.fio", "[global]\nioengine=null\nsize=1m\n[j1]\nrw=read\n[j2]\nrw=write\nbs=32k\n")
        p = run(["--showcmd", str(path)])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout, "ioplan --ioengine=null --size=1m --name=j1 --rw=read --name=j2 --rw=write --bs=32k\n")
        if FIO:
            self.assertEqual(run_fio(["--showcmd", str(path)]).stdout.strip(), "fio" + p.stdout.strip()[6:])
        self.assert_same_plan(p.stdout.split()[1:], path)

    def assert_same_plan(self, args, path):
        """The command line --showcmd wrote plans what the job file does."""
        again = run(["--showplan", *args])
        self.assertEqual(again.returncode, 0, again.stderr)
        # The same plan; only the options echo differs: --name=X is an option as
        # fio's "job options" shows it, a section header is not.
        ours = json.loads(again.stdout)
        for g in ours["groups"]:
            for j in g["jobs"]:
                self.assertEqual(j["options"].pop("name"), j["name"])
        self.assertEqual(ours, json.loads(run(["--showplan", str(path)]).stdout))

    def test_showcmd_shows_values_and_names_as_fio_ran_them(self):
        # fio's line holds the values it parsed ($pagesize replaced, its arithmetic done)
        # under the options' own names: fio's command line refuses '--bs=$pagesize'.
        path = self.write("k.fio", "[global]\nbs=$pagesize\nreadwrite=randread\nioengine=null\n"
                                   "[j]\nsize=$pagesize*64\nnumjobs=$ncpus\n")
        p = run(["--showcmd", str(path)])
        self.assertEqual(p.returncode, 0, p.stderr)
        words = p.stdout.split()
        self.assertEqual(words[:5], ["ioplan", f"--bs={os.sysconf('SC_PAGESIZE')}", "--rw=randread",
                                     "--ioengine=null", "--name=j"])
        self.assertEqual(words[5], f"--size={os.sysconf('SC_PAGESIZE') * 64}")
        self.assertEqual(words[6], f"--numjobs={os.sysconf('SC_NPROCESSORS_ONLN')}")
        if FIO:
            fio = run_fio(["--showcmd", str(path)])
            self.assertEqual(fio.stdout.strip(), "fio" + p.stdout.strip()[6:], fio.stderr)
            self.assertEqual(run_fio(["--parse-only", *words[1:]]).returncode, 0)
        self.assert_same_plan(words[1:], path)

    def test_showcmd_puts_a_filename_after_the_directory_it_goes_under(self):
        # fio parses a section's filename= after its directory= wherever it is written, and
        # its command line puts a --filename= under the --directory= before it: a line in
        # the order typed made another job (the file in the current directory).
        d = self.tmp / "under"
        d.mkdir()
        path = self.write("o.fio", f"[j]\nfilename=f1\nunit_base=8\nioengine=null\nsize=64k\ndirectory={d}\n")
        p = run(["--showcmd", str(path)])
        self.assertEqual(p.stdout, f"ioplan --name=j --unit_base=8 --ioengine=null --size=64k --directory={d} "
                                   "--filename=f1\n")
        if FIO:
            self.assertEqual(run_fio(["--showcmd", str(path)]).stdout.strip(), "fio" + p.stdout.strip()[6:])
        self.assert_same_plan(p.stdout.split()[1:], path)

    def test_showcmd_quotes_and_returns_to_global(self):
        path = self.write("b.fio", "[a]\nioengine=null\nsize=1m\ndescription=two words\n[global]\nbs=8k\n[b]\nioengine=null\nsize=1m\n")
        p = run(["--showcmd", str(path)])
        self.assertEqual(p.stdout, "ioplan --name=a --ioengine=null --size=1m '--description=two words' "
                                   "--name=global --bs=8k --name=b --ioengine=null --size=1m\n")

    def test_showcmd_prints_a_line_a_file_and_no_command_line_jobs(self):
        # fio prints a line per job file, each file from fresh defaults (init.c
        # __parse_jobs_ini), and nothing for jobs given with --name.  ioplan joined
        # the files into one line, where the first file's [global] reached the
        # second's jobs, and printed the command-line jobs.
        self.write("a.fio", "[global]\nioengine=null\nsize=1m\n[j1]\nrw=read\n[j2]\nrw=write\nbs=32k\n")
        self.write("d.fio", "[global]\nrw=write\n[k]\nioengine=null\nsize=1m\n")
        cases = {
            "two_files": (["--bs=16k", "a.fio", "d.fio"],
                          ["fio --bs=16k --ioengine=null --size=1m --name=j1 --rw=read --name=j2 --rw=write --bs=32k",
                           "fio --rw=write --name=k --ioengine=null --size=1m"]),
            "command_line_jobs_only": (["--name=x", "--ioengine=null", "--size=1m"], []),
            "a_file_and_a_job": (["--name=x", "--size=1m", "d.fio"],
                                 ["fio --rw=write --name=k --ioengine=null --size=1m"]),
            "section": (["--section=j2", "a.fio"], ["fio --ioengine=null --size=1m --name=j2 --rw=write --bs=32k"]),
        }
        for tag, (args, lines) in cases.items():
            with self.subTest(case=tag):
                p = run_as_fio(["--showcmd", *args], cwd=self.tmp)
                self.assertEqual(p.returncode, 0, p.stderr)
                self.assertEqual(p.stdout.splitlines(), [line + " " for line in lines])  # as fio's, a blank ends each
                if FIO:
                    fio = run_fio(["--showcmd", *args], cwd=self.tmp)
                    self.assertEqual(fio.stdout, p.stdout)
        # Each line run back is its file's jobs.
        p = run(["--showcmd", "a.fio", "d.fio"], cwd=self.tmp)
        for line, path in zip(p.stdout.splitlines(), ("a.fio", "d.fio")):
            again = json.loads(run(["--showplan", *line.split()[1:]], cwd=self.tmp).stdout)
            alone = json.loads(run(["--showplan", path], cwd=self.tmp).stdout)
            names = lambda plan: [(j["name"], j["rw"], j["bs"]) for g in plan["groups"] for j in g["jobs"]]
            self.assertEqual(names(again), names(alone), line)


class CommandLineJobBanner(TmpDirCase):
    """fio reads argv in order and adds a command-line job when it reaches the next --name
    (init.c parse_cmd_line, add_job), printing its banner line then if the output format
    of that moment includes normal, onto its output of that moment: stdout until it
    reaches --output.  So a later --output-format=json leaves the banners of the jobs
    before the last one ahead of the JSON, and --output after a job leaves that job's
    banner on stdout.  The old build printed every banner with the final format, into
    the final output."""

    J = ["--ioengine=null", "--size=64k"]
    A, B, C = ["--name=a", *J], ["--name=b", *J, "--numjobs=2"], ["--name=c", *J]
    # (arguments, what stdout opens with, what the --output file o.txt opens with), as fio 3.33
    CASES = [
        ([*A, *B, *C, "--output-format=json"], ["a: (g=0)", "b: (g=0)", "...", "{"], None),
        ([*A, *B, "--output-format=json", *C], ["a: (g=0)", "{"], None),
        ([*A, "--output-format=json"], ["{"], None),
        ([*A, "--name=global", *C, "--minimal"], ["a: (g=0)", "3;fio-3.33;a"], None),
        (["--output-format=json", *A, *B, "--output-format=normal", *C],
         ["b: (g=0)", "...", "c: (g=0)", "fio-3.33", "Starting"], None),
        ([*A, *B, "--output=o.txt"], ["a: (g=0)"], ["b: (g=0)", "...", "fio-3.33", "Starting"]),
        # a is added at --name=b, after --output: into the file
        ([*A, "--output=o.txt", *B, *C, "--output-format=terse"], [], ["a: (g=0)", "b: (g=0)", "...", "3;fio-3.33;a"]),
        (["--output=o.txt", *A, *C, "--output-format=json"], [], ["a: (g=0)", "{"]),
    ]

    def outputs(self, runner, args):
        return fio_openings(self, runner, args, r"fio-3|Starting")

    def test_banners_where_fio_prints_them(self):
        for args, stdout, file in self.CASES:
            with self.subTest(args=" ".join(args)):
                self.assertEqual(self.outputs(run_as_fio, args), (stdout, file))

    @unittest.skipUnless(FIO, "fio not installed")
    def test_the_table_is_fio_3_33s(self):
        for args, stdout, file in self.CASES:
            with self.subTest(args=" ".join(args)):
                self.assertEqual(self.outputs(run_fio, args), (stdout, file))


if __name__ == "__main__":
    unittest.main()
