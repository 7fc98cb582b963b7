"""tests/e2e/test_bad_job_files.py - malformed job files get their exact diagnostic and exit 2.

Each tests/errors/NAME.fio has NAME.stderr next to it: the complete expected
diagnostic (path:line:col: error: ..., the source line, the caret).  Binary
garbage and an over-long line are generated here rather than committed.
"""
import json
import os
import resource
import subprocess
import unittest

from common import BIN, FIO, ROOT, VARIANT, TmpDirCase, loop_device, run_fio

ERRORS = ROOT / "tests" / "errors"


class MalformedFiles(unittest.TestCase):
    def test_each_file_gets_its_exact_diagnostic(self):
        cases = sorted([*ERRORS.glob("*.fio"), *ERRORS.glob("*.toml"), *ERRORS.glob("*.yaml")])
        self.assertGreaterEqual(len(cases), 30)
        for case in cases:
            with self.subTest(case=case.name):
                p = subprocess.run([BIN, "--parse-only", case.name], cwd=ERRORS, capture_output=True, text=True,
                                   timeout=30)
                self.assertEqual(p.returncode, 2, p.stderr)
                self.assertEqual(p.stdout, "")
                self.assertEqual(p.stderr, case.with_suffix(".stderr").read_text())

    def test_showplan_prints_nothing_on_stdout_for_bad_input(self):
        p = subprocess.run([BIN, "--showplan", "unknown_option.fio"], cwd=ERRORS, capture_output=True, text=True)
        self.assertEqual((p.returncode, p.stdout), (2, ""))


class GeneratedGarbage(TmpDirCase):
    def run_bytes(self, data):
        path = self.tmp / "bad.fio"
        path.write_bytes(data)
        return subprocess.run([BIN, "--parse-only", "bad.fio"], cwd=self.tmp, capture_output=True, timeout=30)

    def test_binary_garbage_with_nul_bytes(self):
        p = self.run_bytes(b"\x7fELF\x02\x01\x01\x00\x00\x00junk\n")
        self.assertEqual(p.returncode, 2)
        self.assertEqual(p.stderr.decode(), "bad.fio:1:8: error: binary data (a NUL byte): this is not a job file\n")

    def test_binary_garbage_without_nul_bytes(self):
        p = self.run_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe")
        self.assertEqual(p.returncode, 2)
        self.assertTrue(p.stderr.startswith(b"bad.fio:1:1: error: expected an option (name=value), a [section]"),
                        p.stderr)

    def test_one_megabyte_line(self):
        p = self.run_bytes(b"[j]\nbs=" + b"1" * (1 << 20) + b"\n")
        self.assertEqual(p.returncode, 2)
        self.assertEqual(p.stderr.decode(), "bad.fio:2:8192: error: line is longer than 8191 bytes\n")

    def run_bounded(self, name):
        # A ceiling on the address space: a reader that grows without bound fails here
        # (out of memory, exit 1) instead of taking the machine down.  A sanitizer
        # reserves terabytes of address space, so its own RSS limit stands in.
        limit, env = (lambda: resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))), None
        if VARIANT != "release":
            limit = None
            env = dict(os.environ, ASAN_OPTIONS=os.environ.get("ASAN_OPTIONS", "") + ":hard_rss_limit_mb=2048")
        return subprocess.run([BIN, "--parse-only", name], cwd=self.tmp, capture_output=True, text=True,
                              timeout=120, preexec_fn=limit, env=env)

    def test_includes_that_multiply_stop_at_a_bound(self):
        # Nine files, each including the next ten times: 10^8 includes of one line.
        # Each file is small and none is in a loop, so neither the 16 MiB nor the
        # loop check stopped it: ioplan read on, growing (10^5 took 1.8 s and 89 MB).
        forms = {"ini": ("[j]\nsize=1m\ninclude f1.inc\n", "include {}\n", "description=x\n"),
                 "toml": ("[[jobs]]\nname = 'j'\nsize = '1m'\ninclude = 'f1.inc'\n", "include = [{}]\n",
                          "description = 'x'\n"),
                 "yaml": ("jobs:\n  - name: j\n    size: 1m\n    include: f1.inc\n", "include: [{}]\n",
                          "description: x\n")}
        for fmt, (top, inc, leaf) in forms.items():
            with self.subTest(fmt=fmt):
                for i in range(1, 9):
                    nxt = f"f{i + 1}.inc"
                    if fmt == "ini":
                        text = inc.format(nxt) * 10
                    else:
                        text = inc.format(", ".join([repr(nxt)] * 10))
                    (self.tmp / f"f{i}.inc").write_text(text)
                (self.tmp / "f9.inc").write_text(leaf)
                (self.tmp / f"top.{fmt}").write_text(top)
                p = self.run_bounded(f"top.{fmt}")
                self.assertEqual(p.returncode, 2, p.stderr[-2000:])
                self.assertRegex(p.stderr.splitlines()[0],
                                 r"^f\d\.inc:\d+:\d+: error: more than 65536 includes read for one job file "
                                 r"\(files that include each other again and again\?\): this is not a job file$")
                self.assertEqual(p.stderr.count("error:"), 1, p.stderr[-2000:])

    def test_includes_that_come_to_more_than_16_mib_are_refused(self):
        (self.tmp / "big.inc").write_text(("description=" + "x" * 4000 + "\n") * 1200)  # 4.6 MiB
        (self.tmp / "top.fio").write_text("[j]\nsize=1m\n" + "include big.inc\n" * 4)
        p = self.run_bounded("top.fio")
        self.assertEqual(p.returncode, 2, p.stderr[-2000:])
        self.assertEqual(p.stderr.splitlines()[0],
                         "top.fio:6:9: error: the files included come to more than 16 MiB: this is not a job file")
        self.assertEqual(p.stderr.count("error:"), 1, p.stderr[-2000:])

    def test_a_yaml_alias_repeated_stops_at_a_bound(self):
        # One 1 MiB anchor named 100 000 times in a list: a file of 1.4 MiB whose value
        # is 100 GB.  ioplan made it, and ran out of memory (exit 1) or took the machine's.
        names = ", ".join(["*s"] * 100000)
        (self.tmp / "bomb.yaml").write_text(f"global:\n  description: &s \"{'x' * (1 << 20)}\"\n"
                                            f"jobs:\n  - name: j\n    ioengine: \"null\"\n    size: 1m\n"
                                            f"    bs: [{names}]\n")
        p = self.run_bounded("bomb.yaml")
        self.assertEqual(p.returncode, 2, p.stderr[-2000:])
        self.assertEqual(p.stderr.splitlines()[0],
                         "bomb.yaml:7:9: error: the option values come to more than 64 MiB (aliases or ${VAR}s "
                         "repeated?): this is not a job file")

    def test_missing_job_file_and_directory_as_job_file(self):
        # The reason is said (it was only "cannot read job file").
        (self.tmp / "locked.fio").write_text("[j]\n")
        os.chmod(self.tmp / "locked.fio", 0)
        cases = [("does-not-exist.fio", "No such file or directory"), (".", "Is a directory")]
        if os.geteuid() != 0:  # root reads it anyway
            cases.append(("locked.fio", "Permission denied"))
        for name, why in cases:
            p = subprocess.run([BIN, "--parse-only", name], cwd=self.tmp, capture_output=True, text=True)
            self.assertEqual(p.returncode, 2)
            self.assertEqual(p.stderr, f"{name}: error: cannot read job file: {why}\n")

    def test_unknown_command_line_option(self):
        p = subprocess.run([BIN, "--showplan", "--iodepht=4", "x.fio"], capture_output=True, text=True)
        self.assertEqual(p.returncode, 2)
        self.assertIn("unknown option 'iodepht'; did you mean 'iodepth'?", p.stderr)


class BlankAfterEquals(TmpDirCase):
    """fio 3.33 keeps a blank after '=' in the value: 'bs = 16k' is 16 bytes there (the
    unit is looked for at the blank) and 'rw = randread' an error, where ioplan read both
    as if the blank were not there, a silently different job.  Refused where fio reads
    another value; run where it reads the same one (a plain number, seconds)."""
    JOB = "[j]\nioengine=null\nsize=64k\n{}\n"

    def parse(self, line, *args):
        (self.tmp / "j.fio").write_text(self.JOB.format(line))
        return subprocess.run([BIN, *args, "j.fio"], cwd=self.tmp, capture_output=True, text=True, timeout=30)

    def fio_ios(self, line):
        (self.tmp / "f.fio").write_text(self.JOB.format(line))
        p = run_fio(["--output-format=json", "f.fio"], cwd=self.tmp)
        return p.returncode, json.loads(p.stdout)["jobs"][0]["read"]["total_ios"] if p.returncode == 0 else None

    def test_refused_where_fio_reads_another_value(self):
        cases = {"bs = 16k": ("4:5", "a blank before the number hides its unit: ' 16k' is read as 16; write "
                                     "'bs=16k'", 4096),
                 "runtime = 10m": ("4:10", "' 10m' is read as 10; write 'runtime=10m'", None),
                 "rw = randread": ("4:5", "' randread' is no value it knows, or another name than 'randread'", 1),
                 "direct = true": ("4:9", "' true' is no number", 1),
                 "bsrange = 4k-16k": ("4:10", "' 4k-16k' is read as 4", None)}
        for line, (at, why, fio) in cases.items():
            with self.subTest(line=line):
                p = self.parse(line, "--parse-only")
                self.assertEqual((p.returncode, p.stdout), (2, ""), p.stderr)
                self.assertTrue(p.stderr.startswith(f"j.fio:{at}: error: a blank after '=': fio 3.33 keeps it in "
                                                    "the value, and there "), p.stderr)
                self.assertIn(why, p.stderr.splitlines()[0])
                if FIO and fio == 1:
                    self.assertNotEqual(self.fio_ios(line)[0], 0, line)  # fio refuses it
                elif FIO and fio:
                    self.assertEqual(self.fio_ios(line), (0, fio), line)  # 16-byte blocks

    def test_run_where_fio_reads_the_same_value(self):
        for line, plain in {"bs = 4096": "bs=4096", "bs =16k": "bs=16k", "runtime = 10s": "runtime=10s",
                            "iodepth = 4": "iodepth=4", "filename = f": "filename=f", "rate = ,1m": "rate=,1m",
                            "bs = 4096,8k": "bs=4096,8k"}.items():
            with self.subTest(line=line):
                blank, written = self.parse(line, "--showplan"), self.parse(plain, "--showplan")
                self.assertEqual(blank.returncode, 0, blank.stderr)
                self.assertEqual(blank.stdout, written.stdout)  # the same plan, byte for byte
                if FIO and line == "bs = 4096":
                    self.assertEqual(self.fio_ios(line), (0, 16))

    def test_the_command_line_is_read_as_a_job_file(self):
        """'--bs= 16k' is 16-byte blocks in fio 3.33 as bs= 16k is (4096 I/Os for size=64k),
        where ioplan ran 16 KiB blocks (4 I/Os)."""
        base = ["--name=j", "--ioengine=null", "--size=64k", "--output-format=json"]
        for arg, at, why in (("--bs= 16k", 6, "a blank before the number hides its unit: ' 16k' is read as 16; "
                                             "write '--bs=16k'"),
                             ("--bs=\t16k", 6, "' is read as 16; write '--bs=16k'"),
                             ("--rw= write", 6, "' write' is no value it knows, or another name than 'write'; "
                                                "write '--rw=write'")):
            with self.subTest(arg=arg):
                p = subprocess.run([BIN, *base, arg], cwd=self.tmp, capture_output=True, text=True, timeout=30)
                self.assertEqual((p.returncode, p.stdout), (2, ""), p.stderr)
                first, shown, caret = p.stderr.splitlines()[:3]
                self.assertTrue(first.startswith("<command line>:1:5: error: a blank after '=': fio 3.33 keeps "
                                                 "it in the value, and there "), first)
                self.assertIn(why, first)
                self.assertEqual((shown, caret), (" " + arg, " " * at + "^"))
                if FIO and arg.startswith("--bs"):
                    f = run_fio([*base, arg], cwd=self.tmp)
                    self.assertEqual(json.loads(f.stdout, strict=False)["jobs"][0]["read"]["total_ios"], 4096)
        p = subprocess.run([BIN, *base[:3], "--bs", " 16k", "--parse-only"], capture_output=True, text=True,
                           timeout=30)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("write '--bs=16k'", p.stderr)
        for arg in ("--bs= 4096", "--filename= f", "--rate= ,1m", "--direct= 1"):  # fio reads these alike
            with self.subTest(arg=arg):
                p = subprocess.run([BIN, *base, arg], cwd=self.tmp, capture_output=True, text=True, timeout=30)
                self.assertEqual(p.returncode, 0, p.stderr)
                if FIO and arg == "--bs= 4096":
                    self.assertEqual(json.loads(p.stdout)["jobs"][0]["read"]["total_ios"], 16)
                    f = run_fio([*base, arg], cwd=self.tmp)
                    self.assertEqual(json.loads(f.stdout)["jobs"][0]["read"]["total_ios"], 16)


class WordsFioRefuses(TmpDirCase):
    """verify=none and write_hint=ignore were words of ioplan's own: fio 3.33 drops a job
    with either (exit 1), so a job file ioplan ran failed under fio."""

    def test_refused_as_fio_refuses_them(self):
        cases = {"verify=none": "4:8: error: verify=none is refused by fio 3.33, which drops the job; write "
                                "verify=0 for no verification",
                 "write_hint=ignore": "4:12: error: bad value for write_hint: 'ignore' is not a valid write_hint "
                                      "(one of: none, short, medium, long, extreme)"}
        for line, err in cases.items():
            with self.subTest(line=line):
                (self.tmp / "j.fio").write_text(f"[j]\nioengine=null\nsize=64k\n{line}\n")
                p = subprocess.run([BIN, "--parse-only", "j.fio"], cwd=self.tmp, capture_output=True, text=True)
                self.assertEqual((p.returncode, p.stdout), (2, ""), p.stderr)
                self.assertEqual(p.stderr.splitlines()[0], "j.fio:" + err)
                if FIO:
                    self.assertEqual(run_fio(["--output-format=json", "j.fio"], cwd=self.tmp).returncode, 1)
                ok = line.replace("=none", "=0").replace("=ignore", "=none")
                (self.tmp / "j.fio").write_text(f"[j]\nioengine=null\nsize=64k\n{ok}\n")
                p = subprocess.run([BIN, "--parse-only", "j.fio"], cwd=self.tmp, capture_output=True, text=True)
                self.assertEqual(p.returncode, 0, p.stderr)


class PercentagesFioReadsAsBytes(TmpDirCase):
    """fio 3.33 reads a percentage only as whole digits just before the '%': 'offset=12.5%'
    is an offset of 12 bytes there ('.' stops the digits), 'io_size=50.5%' 50 bytes, where
    ioplan read 12.5% and 50.5% of the file, another job.  Refused, saying fio's reading."""
    JOB = "[j]\nfilename=f\nrw=read\n{}\n"

    def test_refused_with_fios_reading(self):
        (self.tmp / "f").write_bytes(bytes(1 << 20))
        cases = {"offset=12.5%": ("4:10", "'12.5%' is 12 bytes to fio 3.33", 255),
                 "io_size=50.5%": ("4:11", "'50.5%' is 50 bytes to fio 3.33", 1),
                 "size=50.5%": ("4:8", "'50.5%' is 50 bytes to fio 3.33", None),
                 "offset_increment=2.5%": ("4:19", "'2.5%' is 2 bytes to fio 3.33", None),
                 "size=50 %": ("4:8", "'50 %' is 50 bytes to fio 3.33", None),
                 "offset=0x10%": ("4:12", "'0x10%' is 16 bytes to fio 3.33", None),
                 "size=1e2%": ("4:7", "'1e2%' is no percentage to fio 3.33", None)}
        for line, (at, why, fio_ios) in cases.items():
            with self.subTest(line=line):
                self.write("j.fio", self.JOB.format(line))
                p = subprocess.run([BIN, "--parse-only", "j.fio"], cwd=self.tmp, capture_output=True, text=True,
                                   timeout=30)
                self.assertEqual((p.returncode, p.stdout), (2, ""), p.stderr)
                key = line.split("=")[0]
                self.assertEqual(p.stderr.splitlines()[0],
                                 f"j.fio:{at}: error: bad value for {key}: {why}, which reads a percentage only "
                                 "as a whole number of digits just before the '%'; write one (1% to 100%), which "
                                 "both read alike")
                arg = "--" + line
                c = subprocess.run([BIN, "--name=j", "--filename=f", "--parse-only", arg], cwd=self.tmp,
                                   capture_output=True, text=True, timeout=30)
                self.assertEqual(c.returncode, 2, c.stderr)
                self.assertIn(why, c.stderr)
                if FIO and fio_ios:
                    f = run_fio(["--output-format=json", "j.fio"], cwd=self.tmp)
                    self.assertEqual(json.loads(f.stdout)["jobs"][0]["read"]["total_ios"], fio_ios, line)
        self.write("j.fio", self.JOB.format("offset=12%\nio_size=50%"))  # whole numbers: read alike
        p = subprocess.run([BIN, "--output-format=json", "j.fio"], cwd=self.tmp, capture_output=True, text=True,
                           timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        ios = json.loads(p.stdout)["jobs"][0]["read"]["total_ios"]
        if FIO:
            f = run_fio(["--output-format=json", "j.fio"], cwd=self.tmp)
            self.assertEqual(json.loads(f.stdout)["jobs"][0]["read"]["total_ios"], ios)


class PercentagesPastAHundred(TmpDirCase):
    """size=150% (or $mb_memory%7, 24105%) is a size of 2^64-151 bytes to fio 3.33, which
    lays out an existing file by cutting it to 0 bytes and then fails (err=22); ioplan
    read it as 100%, a job fio never runs.  Refused before anything is touched, in every
    syntax, on the command line and over a block device; the other percentages already were."""
    WHY = ("error: bad value for size: percentage '150%' is past 100%, which fio 3.33 reads as a size of "
           "18446744073709551465 bytes (2^64-1-150): laying out an existing file, it cuts the file to 0 bytes "
           "and fails; give 1% to 100%")

    def refused(self, args):
        p = subprocess.run([BIN, *args], cwd=self.tmp, capture_output=True, text=True, timeout=30)
        self.assertEqual((p.returncode, p.stdout), (2, ""), p.stderr)
        return p.stderr.splitlines()[0]

    def test_refused_before_the_file_is_touched(self):
        data = os.urandom(1 << 20)
        (self.tmp / "f").write_bytes(data)
        files = {"j.fio": ("[j]\nfilename=f\nrw=read\nsize=150%\n", "j.fio:4:6: "),
                 "j.toml": ("[[jobs]]\nname = 'j'\nfilename = 'f'\nrw = 'read'\nsize = '150%'\n", "j.toml:5:8: "),
                 "j.yaml": ("jobs:\n  - name: j\n    filename: f\n    rw: read\n    size: 150%\n", "j.yaml:5:11: ")}
        for name, (text, at) in files.items():
            with self.subTest(file=name):
                self.write(name, text)
                self.assertEqual(self.refused([name]), at + self.WHY)
                self.assertEqual((self.tmp / "f").read_bytes(), data)
        self.assertEqual(self.refused(["--name=j", "--filename=f", "--rw=read", "--size=150%"]),
                         "<command line>:1:4: " + self.WHY)
        first = self.refused(["--name=j", "--filename=f", "--size=$mb_memory%7"])
        self.assertRegex(first, r"^<command line>:1:3: error: bad value for size: percentage '\d+%' is past 100%, "
                                r"which fio 3.33 reads as a size of \d+ bytes \(2\^64-1-\d+\)")
        self.assertEqual((self.tmp / "f").read_bytes(), data)
        for opt in ("io_size", "offset", "offset_increment", "zonerange"):
            with self.subTest(opt=opt):
                self.assertEqual(self.refused(["--name=j", "--filename=f", f"--{opt}=150%"]),
                                 f"<command line>:1:3: error: bad value for {opt}: percentage '150%' must be above "
                                 "0% and at most 100%")
        self.assertEqual((self.tmp / "f").read_bytes(), data)
        if FIO:  # what the refusal spares: fio cuts the copy to nothing and fails
            (self.tmp / "copy").write_bytes(data)
            run_fio(["--name=j", "--filename=copy", "--rw=read", "--size=150%"], cwd=self.tmp)
            self.assertEqual((self.tmp / "copy").stat().st_size, 0)

    def test_refused_over_a_block_device(self):
        dev = loop_device(self)
        self.assertEqual(self.refused(["--name=j", f"--filename={dev}", "--rw=read", "--size=150%"]),
                         "<command line>:1:4: " + self.WHY)
        self.assertEqual(self.refused(["--name=j", f"--filename={dev}", "--rw=read", "--size=100%", "--offset=150%",
                                       "--parse-only"]),
                         "<command line>:1:5: error: bad value for offset: percentage '150%' must be above 0% and "
                         "at most 100%")


class BlankAtTheEndOfAnArgument(TmpDirCase):
    """fio 3.33 strips a job file line's end but keeps a blank at an argument's end:
    '--rw=write ' is an error there, '--runtime=1s ' one microsecond ('s ' is no unit), where
    ioplan ran a write job and a second.  Refused where fio reads another value; run where
    it reads the same (a unit it finds by prefix, a percentage, a file name it strips)."""
    BASE = ["--name=j", "--ioengine=null", "--size=64k"]

    def ioplan(self, *args):
        return subprocess.run([BIN, *self.BASE, *args], cwd=self.tmp, capture_output=True, text=True, timeout=60)

    def plan(self, arg):
        p = self.ioplan("--showplan", arg)
        self.assertEqual(p.returncode, 0, p.stderr)
        d = json.loads(p.stdout)
        for g in d["groups"]:
            for j in g["jobs"]:
                j.pop("options")  # the text as written
        return d

    def test_refused_where_fio_reads_another_value(self):
        d = str(self.tmp)
        cases = {"--rw=write ": "'write ' is no value it knows; write '--rw=write'",
                 "--rw=write\t": "'write\t' is no value it knows; write '--rw=write'",
                 "--ioengine=null ": "'null ' is no value it knows",
                 "--buffer_pattern=0xab ": "'0xab ' is no value it knows",
                 f"--directory={d} ": f"'{d} ' stays as written, another name than '{d}'",
                 "--runtime=1s ": "'1s ' is 1 microsecond (it knows no unit 's ')",
                 "--thinktime=2m ": "'2m ' is 2 microseconds (it knows no unit 'm ')",
                 "--offset=1z ": "'1z ' is 1 byte, not zones; write '--offset=1z'"}
        for arg, why in cases.items():
            with self.subTest(arg=arg):
                p = self.ioplan("--time_based", arg)
                self.assertEqual((p.returncode, p.stdout), (2, ""), p.stderr)
                first, shown, caret = p.stderr.splitlines()[:3]
                self.assertEqual(first, "<command line>:1:5: error: a blank at the end of the value: fio 3.33 keeps "
                                        f"it in an argument, and there {why}" + first[first.index(why) + len(why):])
                self.assertTrue(first.endswith("', which both read alike"), first)
                self.assertEqual((shown, caret), (" " + arg, " " * (len(arg.rstrip()) + 1) + "^"))
                if FIO and not arg.startswith(("--offset", "--thinktime", "--runtime")):
                    f = run_fio([*self.BASE, "--output-format=json", arg], cwd=self.tmp)
                    self.assertNotEqual(f.returncode, 0, f.stdout)  # fio refuses it
        if FIO:  # fio's run of 1 microsecond, where ioplan ran a second
            f = run_fio([*self.BASE, "--time_based", "--runtime=1s ", "--output-format=json"], cwd=self.tmp)
            self.assertEqual(json.loads(f.stdout)["jobs"][0]["job_runtime"], 0)

    def test_run_where_fio_reads_the_same_value(self):
        (self.tmp / "f").write_bytes(bytes(65536))
        for arg in ("--bs=4k ", "--bs=4096 ", "--bs=4k,8k ", "--size=50% ", "--runtime=10ms ", "--runtime=2 ",
                    "--filename=f ", "--rw=randread:8 ", "--cpus_allowed=0 ", "--percentile_list=50:99 ",
                    "--direct=0 ", "--bs= 4096 "):
            with self.subTest(arg=arg):
                self.assertEqual(self.plan(arg), self.plan(arg.replace("= ", "=").rstrip()))
        p = self.ioplan("--bs=4k ", "--output-format=json")
        self.assertEqual(json.loads(p.stdout)["jobs"][0]["read"]["total_ios"], 16)
        if FIO:
            f = run_fio([*self.BASE, "--bs=4k ", "--output-format=json"], cwd=self.tmp)
            self.assertEqual(json.loads(f.stdout)["jobs"][0]["read"]["total_ios"], 16)
        self.write("j.fio", "[j]\nioengine=null\nsize=64k\nrw=write \t\nruntime=1s \n")  # a line's end: dropped
        p = subprocess.run([BIN, "--output-format=json", "j.fio"], cwd=self.tmp, capture_output=True, text=True,
                           timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(json.loads(p.stdout)["jobs"][0]["write"]["total_ios"], 16)
        if FIO:
            f = run_fio(["--output-format=json", "j.fio"], cwd=self.tmp)
            self.assertEqual(json.loads(f.stdout)["jobs"][0]["write"]["total_ios"], 16)


class BlanksAVariableBrings(TmpDirCase):
    """fio 3.33 strips a job file line's end before it expands ${VAR}, so blanks the variable
    brings stay in the value: RW='write ' is an error there, BS=' 16k' 16-byte blocks,
    RT='1s ' a runtime of 1 microsecond, where ioplan trimmed them and ran a write job,
    16 KiB blocks and a second.  Refused where fio reads another value, as the same blanks
    written in the file or in an argument are."""
    JOB = "[j]\nioengine=null\nsize=64k\nrw=${RW}\nbs=${BS}\nruntime=${RT}\ntime_based\n"

    def run_with(self, runner, rw="write", bs="4k", rt="1"):
        env = {**os.environ, "RW": rw, "BS": bs, "RT": rt}
        return subprocess.run([runner, "--output-format=json", "j.fio"], cwd=self.tmp, capture_output=True,
                              text=True, timeout=60, env=env)

    def test_refused_where_fio_reads_another_value(self):
        self.write("j.fio", self.JOB)
        cases = [({"rw": "write "}, "j.fio:4:4: error: a blank at the end of the value, from a ${VAR}: fio 3.33 "
                                    "keeps it (it strips the line's end before it expands the variable), and there "
                                    "'write ' is no value it knows; write 'rw=write', which both read alike"),
                 ({"rt": "1s "}, "j.fio:6:9: error: a blank at the end of the value, from a ${VAR}: fio 3.33 keeps "
                                 "it (it strips the line's end before it expands the variable), and there '1s ' is "
                                 "1 microsecond (it knows no unit 's '); write 'runtime=1s', which both read alike"),
                 ({"bs": " 16k"}, "j.fio:5:3: error: a blank after '=' (a ${VAR} may bring it): fio 3.33 keeps it "
                                  "in the value, and there a blank before the number hides its unit: ' 16k' is read "
                                  "as 16; write 'bs=16k', which both read alike")]
        for env, first in cases:
            with self.subTest(env=env):
                p = self.run_with(BIN, **env)
                self.assertEqual((p.returncode, p.stdout), (2, ""), p.stderr)
                self.assertEqual(p.stderr.splitlines()[0], first)
                if not FIO:
                    continue
                if "rw" in env:
                    self.assertNotEqual(self.run_with(FIO, **env).returncode, 0)  # "failed parsing rw=${RW}"
                elif "rt" in env:
                    job = json.loads(self.run_with(FIO, **env).stdout)["jobs"][0]
                    self.assertEqual(job["job_runtime"], 0)  # 1 microsecond
                else:
                    self.write("j.fio", self.JOB.replace("time_based\n", ""))  # ends at size=: 16-byte blocks
                    job = json.loads(self.run_with(FIO, **env).stdout)["jobs"][0]
                    self.assertEqual(job["write"]["total_ios"], 4096)

    def test_run_where_fio_reads_the_same_value(self):
        self.write("j.fio", self.JOB.replace("time_based\n", ""))
        for env in ({"bs": "16k "}, {"bs": " 4096 "}, {"rt": "10ms "}, {"rt": "2 "}):
            with self.subTest(env=env):
                p = self.run_with(BIN, **env)
                self.assertEqual(p.returncode, 0, p.stderr)
                ios = json.loads(p.stdout)["jobs"][0]["write"]["total_ios"]
                if FIO:
                    f = self.run_with(FIO, **env)
                    self.assertEqual(json.loads(f.stdout)["jobs"][0]["write"]["total_ios"], ios)


if __name__ == "__main__":
    unittest.main()
