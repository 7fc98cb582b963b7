"""tests/e2e/test_mpi_merge.py - `ioplan merge` trusts nothing in a rank file.

Real rank files from a real `mpirun -np 4` run, then changed for real as a bad
copy, a buggy writer or a mix-up would: an edited number (the checksum no
longer matches), a negative or wrapping byte count and a histogram whose
buckets do not add up to its count (with the checksum made to match, so the
check behind it is what answers), a file of another run, a wrong world size,
ranks disagreeing about --save's label,
2 files of 4, a symlink to /dev/zero, a file too big to be one, a DISKSPD
effective distribution no run makes.  Each is exit 2 naming the file and the
fault, before any report.  A DISKSPD line's effective distributions come
through the merge as the single-process run and the live world print them, and
DISKSPD's rows and <Thread>s are each rank's threads with its rank file's
figures, live and merged.  And a rank file that a
full disk stops half-way is not left behind.
"""
import base64
import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest
import xml.etree.ElementTree as ET
from pathlib import Path

from common import TmpDirCase, fill_up, run
from test_mpi import MPIRUN, mpirun

RANKS = 4


def _crc32c_table():
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


CRC32C = _crc32c_table()


def crc32c(data):
    """CRC-32C as ioplan writes it (initial ~0, no final inversion)."""
    c = 0xFFFFFFFF
    for b in data:
        c = CRC32C[(c ^ b) & 0xFF] ^ (c >> 8)
    return c


def unpack_words(text):
    """The 64-bit words of a rank file's packed list (base64 of LEB128 varints)."""
    words, z, shift = [], 0, 0
    for b in base64.b64decode(text):
        z |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            words.append(z)
            z, shift = 0, 0
    return words


def pack_words(words):
    out = bytearray()
    for z in words:
        while z >= 0x80:
            out.append(0x80 | (z & 0x7F))
            z >>= 7
        out.append(z)
    return base64.b64encode(bytes(out)).decode()


def forge(path, old, new, count=1):
    """Replaces old by new in a rank file's text and writes the checksum the new text has:
    what a writer with a bug (or another program) would produce."""
    text = path.read_text().rstrip("\n")
    head = re.match(r'\{"checksum":"crc32c:[0-9a-f]{8}",', text).group(0)
    body = "{" + text[len(head):]
    assert old in body, old
    body = body.replace(old, new, count)
    path.write_text('{"checksum":"crc32c:%08x",' % crc32c(body.encode()) + body[1:] + "\n")


@unittest.skipUnless(MPIRUN, "mpirun is not installed (Debian: openmpi-bin)")
class MergeChecks(TmpDirCase):
    JOB = "[r]\nioengine=null\nbs=4k\nsize=1m\nrw=randread\nfilename=f${IOPLAN_RANK}\n"

    @classmethod
    def setUpClass(cls):
        # Two real runs of the same job: the files of the first, and one of the second.
        cls._runs = tempfile.TemporaryDirectory(prefix="ioplan-e2e-")
        cls.runs = Path(cls._runs.name)
        (cls.runs / "job.fio").write_text(cls.JOB)
        cls.live = {}
        # the first kept with --save (its rank files record the label), the second not
        for name, save in (("a", ["--save=nightly", "--results-db=a.db"]), ("b", [])):
            (cls.runs / name).mkdir()
            p = mpirun(RANKS, ["--output-format=json", f"--rank-output={name}", *save, "job.fio"], cls.runs)
            assert p.returncode == 0, p.stderr
            cls.live[name] = json.loads(p.stdout)

    @classmethod
    def tearDownClass(cls):
        cls._runs.cleanup()

    def files(self):
        for r in range(RANKS):
            shutil.copy(self.runs / "a" / f"rank-{r}.json", self.tmp / f"rank-{r}.json")
        return [self.tmp / f"rank-{r}.json" for r in range(RANKS)]

    def merge(self, files):
        return run(["merge", "--output-format=json", *map(str, files)], cwd=self.tmp, timeout=60)

    def refused(self, files, fault):
        p = self.merge(files)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertEqual(p.stdout, "")
        self.assertIn(fault, p.stderr)
        return p.stderr

    def test_the_files_of_one_run_merge_to_the_live_result(self):
        p = self.merge(self.files())
        self.assertEqual(p.returncode, 0, p.stderr)
        doc = json.loads(p.stdout)
        self.assertEqual(doc["jobs"][0]["read"]["io_bytes"], RANKS << 20)
        self.assertEqual(doc["jobs"][0]["read"]["clat_ns"]["percentile"],
                         self.live["a"]["jobs"][0]["read"]["clat_ns"]["percentile"])

    def test_a_job_option_is_refused_not_ignored(self):
        """`ioplan merge rank-*.json --bs=4k` merged, exit 0, the option taken and ignored:
        a merge runs no job, its plan is the rank files'."""
        files = self.files()
        for extra, says in ((["--bs=4k"], "--bs"), (["--name=x"], "--name=x")):
            p = run(["merge", "--output-format=json", *extra, *map(str, files)], cwd=self.tmp, timeout=60)
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertEqual(p.stdout, "")
            self.assertIn(f"ioplan merge: error: {says}: a job option, and ioplan merge runs no job", p.stderr)

    def test_an_edited_number_or_job_text_fails_the_checksum(self):
        files = self.files()
        text = files[2].read_text()
        self.assertIn('"bytes":1048576', text)
        files[2].write_text(text.replace('"bytes":1048576', '"bytes":1048577', 1))
        self.refused(files, "rank-2.json: checksum crc32c:")
        self.files()
        text = files[0].read_text()
        self.assertIn("bs=4k", text)
        files[0].write_text(text.replace("bs=4k", "bs=8k"))
        err = self.refused(files, "rank-0.json: checksum crc32c:")
        self.assertIn("changed or damaged after its run", err)

    def test_a_job_text_that_does_not_read_names_its_rank_file(self):
        # Edited checksum and all: "ioplan: error: merge: bad value for bs: ..." named no file.
        files = self.files()
        forge(files[0], "bs=4k", "bs=4q")
        err = self.refused(files, f"{files[0]}: the run it records does not read again: ")
        self.assertIn("'4q'", err)

    def test_a_rank_file_cut_short_is_named_at_its_line_and_column(self):
        # "ioplan: error: merge: rank-2.json: not a JSON document (at byte 1000: ...)": the
        # one reader of a user's file that gave no line and column.
        files = self.files()
        text = files[2].read_bytes()
        files[2].write_bytes(text[:1000])
        # Where the reader stops: past the last byte (1001), or at the start of a string or
        # number the cut left unfinished, whichever the run's figures put there.
        err = self.refused(files, f"{files[2]}:1:")
        col = re.match(re.escape(f"{files[2]}:1:") + r"(\d+): error: not a JSON document: ", err)
        self.assertTrue(col and int(col.group(1)) <= 1001, err)
        self.assertEqual(len(err.splitlines()), 1, err)
        self.assertTrue(err.startswith(str(files[2])), err)
        files[2].write_bytes(text + b'{"another": 1}\n')
        err = self.refused(files, "")
        self.assertEqual(err, f"{files[2]}:2:1: error: not a JSON document: text after the document\n")

    def test_a_negative_or_wrapping_byte_count_is_refused(self):
        files = self.files()
        forge(files[1], '"bytes":1048576', '"bytes":-1048576')
        self.refused(files, "rank-1.json: results.jobs[0].clones[0].ddir[0].bytes: -1048576 is negative")
        self.files()
        forge(files[1], '"bytes":1048576', '"bytes":18446744073709551615')
        self.refused(files, "rank-1.json: results.jobs[0].clones[0].ddir[0]: 18446744073709551615 bytes")
        # each file in range, their sum not: it would wrap into a small, plausible number
        self.files()
        for f in files[2:]:
            forge(f, '"bytes":1048576', '"bytes":%d' % (2 ** 62 + 1))
        self.refused(files, "rank-3.json: rank 3: job 0: its counters added to the other ranks' go beyond")

    def test_a_histogram_that_does_not_add_up_to_its_count_is_refused(self):
        files = self.files()
        doc = json.loads(files[2].read_text())
        clat = doc["results"]["jobs"][0]["clones"][0]["ddir"][0]["clat"]
        words = unpack_words(clat["hist"])  # (buckets since the last, count) pairs
        top = max(range(1, len(words), 2), key=lambda i: words[i])
        count = words[top]
        words[top] *= 40
        forge(files[2], '"hist":"%s"' % clat["hist"], '"hist":"%s"' % pack_words(words))
        self.refused(files, f"rank-2.json: results.jobs[0].clones[0].ddir[0].clat: histogram buckets add up to "
                            f"{clat['n'] + count * 39}, its count is {clat['n']}")

    def test_a_mean_or_count_edited_with_its_checksum_is_refused(self):
        # The checksum catches damage, not a rewrite: a latency sum no set of samples between
        # the min and max can make (a mean of the file's making), or an I/O count below the
        # I/Os timed, merged as written.
        files = self.files()
        ddir = json.loads(files[1].read_text())["results"]["jobs"][0]["clones"][0]["ddir"][0]
        clat = ddir["clat"]
        forge(files[1], '"sum_ns":%d' % clat["sum_ns"], '"sum_ns":%d' % (clat["max_ns"] * clat["n"] + 1))
        self.refused(files, "rank-1.json: results.jobs[0].clones[0].ddir[0].clat: %d samples from %d to %d ns "
                            "cannot add up to %d ns" % (clat["n"], clat["min_ns"], clat["max_ns"],
                                                        clat["max_ns"] * clat["n"] + 1))
        self.files()
        forge(files[2], '"ios":%d' % ddir["ios"], '"ios":%d' % (ddir["ios"] // 2))
        self.refused(files, "rank-2.json: results.jobs[0].clones[0].ddir[0]: %d I/Os timed, %d counted"
                     % (ddir["clat"]["n"], ddir["ios"] // 2))

    def test_a_world_larger_than_mpi_numbers_is_refused_not_a_crash(self):
        # nranks 4000000000 (checksum and all): the merge could not allocate the rows of
        # so many ranks, and freeing the rows it did not have crashed it (SIGSEGV).
        files = self.files()
        forge(files[0], '"nranks":%d' % RANKS, '"nranks":4000000000')
        p = run(["merge", "--partial", "--output-format=json", str(files[0])], cwd=self.tmp, timeout=60)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("rank-0.json: a world of 4000000000 ranks, more than MPI numbers (2147483647)", p.stderr)

    def test_a_clock_offset_that_puts_a_rank_outside_the_run_is_refused(self):
        # The offset moves a rank's times onto rank 0's clock: 2^63-1, with its checksum,
        # wrapped the sum and merged (exit 0) with rank 1's I/O out of the window: the
        # runtimes and rates were another run's, rank 1 missing from the groups.
        files = self.files()
        offset = json.loads(files[1].read_text())["rank"]["clock_offset_ns"]
        for forged in (2 ** 63 - 1, -(2 ** 63), offset - 3600 * 10 ** 9):
            self.files()
            forge(files[1], '"clock_offset_ns":%d' % offset, '"clock_offset_ns":%d' % forged)
            self.refused(files, "rank-1.json: rank 1: its clock offset (%d ns) puts its run, started at wall "
                                "time " % forged)
        # a plausible offset (a host's clock some milliseconds off) still merges
        self.files()
        forge(files[1], '"clock_offset_ns":%d' % offset, '"clock_offset_ns":%d' % (offset + 2000000))
        p = self.merge(files)
        self.assertEqual(p.returncode, 0, p.stderr)

    def test_a_file_of_another_run_a_wrong_world_size_or_missing_ranks_are_named(self):
        files = self.files()
        shutil.copy(self.runs / "b" / "rank-3.json", files[3])
        self.refused(files, "rank-3.json: rank 3: from another run (run id ")
        self.files()
        forge(files[1], '"nranks":4', '"nranks":3')
        self.refused(files, "rank-1.json: rank 1: from a world of 3 ranks, the first file's has 4")
        self.files()
        err = self.refused(files[:2], "no rank file for ranks 2, 3 of the 4 ranks of run ")
        self.assertIn("part of a world", err)
        # asked for: one rank's own figures, or what is left of a world, with the missing ranks named
        p = run(["merge", "--partial", "--output-format=json", *map(str, files[:2])], cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        doc = json.loads(p.stdout)
        self.assertEqual(doc["jobs"][0]["read"]["io_bytes"], 2 << 20)
        self.assertIn("--partial: no rank file for ranks 2, 3 of the 4 ranks", json.dumps(doc["ioplan"]))
        # the text's rank rows say why a rank has no figures (its host was shown as "()")
        p = run(["merge", "--partial", *map(str, files[:2])], cwd=self.tmp)
        self.assertIn("  rank 2 (no rank file): io=0B, ios=0", p.stdout)
        self.refused([files[0], files[1], files[1], files[3]], "rank-1.json: rank 1: rank 1 given twice")

    def test_the_save_label_is_merged_and_checked_like_the_rest(self):
        # the merge's JSON says what --save was given, as a run kept unsaved does
        self.assertEqual(json.loads(self.merge(self.files()).stdout)["ioplan"]["saved_as"],
                         {"label": "nightly", "preset": ""})
        # a run without --save: its files and their merge say nothing of it
        b = [self.runs / "b" / f"rank-{r}.json" for r in range(RANKS)]
        self.assertNotIn("saved_as", json.loads(b[0].read_text()))
        self.assertNotIn("saved_as", json.loads(self.merge(b).stdout)["ioplan"])
        saved = ',"saved_as":{"label":"nightly","preset":""}'
        files = self.files()
        files[2].write_text(files[2].read_text().replace('"label":"nightly"', '"label":"nightly2"'))
        self.refused(files, "rank-2.json: checksum crc32c:")
        # ranks that disagree: the merge would be stored under one of them
        self.files()
        forge(files[1], '"label":"nightly"', '"label":"weekly"')
        self.refused(files, "rank-1.json: rank 1: was run with --save=weekly, the first file's with --save=nightly")
        self.files()
        forge(files[3], saved, "")
        self.refused(files, "rank-3.json: rank 3: was run with no --save, the first file's with --save=nightly")
        # a label --save refuses (digits only would name another run by its id)
        self.files()
        forge(files[0], '"label":"nightly"', '"label":"42"')
        self.refused(files, 'rank-0.json: saved_as.label: "42" is digits only, a label --save refuses')

    def test_a_rank_file_of_another_format_version_is_refused_by_name(self):
        # version 2 wrote histograms and series as JSON lists: its files are not read as today's
        files = self.files()
        forge(files[1], '"ioplan_rank_file":4', '"ioplan_rank_file":2')
        self.refused(files, "rank-1.json: rank file version 2, this ioplan reads 4 (merge rank files with the "
                            "ioplan version that wrote them)")
        self.files()
        forge(files[3], '"ioplan_rank_file":4', '"ioplan_rank_file":"4"')
        self.refused(files, 'rank-3.json: rank file version "4", this ioplan reads 4')

    def test_what_is_not_a_regular_file_of_bounded_size_is_not_read(self):
        files = self.files()
        files[1].unlink()
        files[1].symlink_to("/dev/zero")
        self.refused(files, "rank-1.json: a device, not a rank file")
        files[1].unlink()
        with open(files[1], "wb") as f:  # sparse: 2 GiB on no disk
            f.truncate(2 << 30)
        self.refused(files, "rank-1.json: 2147483648 bytes, more than a rank file holds (1024 MiB)")
        files[1].unlink()
        os.mkfifo(files[1])  # nobody writes it: opening it must not wait
        self.refused(files, "rank-1.json: not a regular file")


def distributions(text):
    """DISKSPD's "Effective IO Distributions" section of a text result, or ""."""
    m = re.search(r"\nEffective IO Distributions\n-+\n(.*?)(?:\n\n|\Z)", text, re.S)
    return m.group(1) if m else ""


@unittest.skipUnless(MPIRUN, "mpirun is not installed (Debian: openmpi-bin)")
class DiskspdDistributions(TmpDirCase):
    """A DISKSPD line's -rd effective distributions through the rank files: its job
    (`ioplan diskspd ... --job`) run under mpirun with --output-format=diskspd, then merged."""
    RD = ["-b4K", "-r", "-t2", "-rdpct10/50:90/50", "-W0", "-d1"]
    WANT = ("target: ds.dat [thread: 0 - 3]\n"
            "    10% of IO => [     0    -    512KiB)\n"
            "    90% of IO => [   512KiB -      1MiB)")

    def world(self, target, *extra):
        p = run(["diskspd", *self.RD, *extra, "--job", "ds.dat"], cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.write("job.fio", p.stdout.replace("filename=ds.dat", f"filename={target}"))
        (self.tmp / "out").mkdir()
        live = mpirun(2, ["--output-format=diskspd", "--rank-output=out", "job.fio"], self.tmp)
        self.assertEqual(live.returncode, 0, live.stderr)
        return live.stdout, [str(self.tmp / "out" / f"rank-{r}.json") for r in range(2)]

    def merge(self, fmt, files):
        p = run(["merge", f"--output-format={fmt}", *files], cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        return p.stdout

    def test_a_merge_prints_the_effective_distributions_as_one_process_and_the_live_world_do(self):
        live, files = self.world("ds.dat", "-c1M")
        single = run(["--output-format=diskspd", "job.fio"], cwd=self.tmp)
        # one process's 2 threads; the world's 4, 2 a rank, all on ds.dat
        self.assertEqual(distributions(single.stdout), self.WANT.replace("0 - 3", "0 1"), single.stderr)
        self.assertEqual(distributions(live), self.WANT)
        self.assertEqual(distributions(self.merge("diskspd", files)), self.WANT)  # it was left out
        targets = list(ET.fromstring(self.merge("diskspd-xml", files)).find("TimeSpan").iter("Target"))
        self.assertEqual(len(targets), 4)  # a thread each (2 a rank), the profile's aside
        for t in targets:
            self.assertEqual([(r.get("IO"), r.text) for r in t.iter("Range")], [("10", "524288"), ("90", "524288")])

    def test_ranks_whose_targets_differ_show_each_ranks_own(self):
        # each rank's threads are rows of their own, on their rank's targets, so each
        # target's ranges are its own (before, rank 0's alone, with a warning that rank
        # 1's differ); JSON, which shows none, still says they differ
        (self.tmp / "ds0.dat").write_bytes(b"\0" * (1 << 20))
        (self.tmp / "ds1.dat").write_bytes(b"\0" * (2 << 20))
        live, files = self.world("ds${IOPLAN_RANK}.dat")
        want = (self.WANT.replace("ds.dat [thread: 0 - 3]", "ds0.dat [thread: 0 1]") +
                "\ntarget: ds1.dat [thread: 2 3]\n"
                "    10% of IO => [     0    -      1MiB)\n"
                "    90% of IO => [     1MiB -      2MiB)")
        self.assertEqual(distributions(live), want)
        self.assertEqual(distributions(self.merge("diskspd", files)), want)
        self.assertNotIn("distributions differ", live)
        warnings = json.loads(self.merge("json", files))["ioplan"]["warnings"]
        self.assertIn("rank 1's effective -rd distributions differ from rank 0's (targets of another size)",
                      "\n".join(warnings))

    def test_a_target_without_c_shows_its_size_through_the_rank_files(self):
        # the size each clone found is in its rank file, so a merged row names it as a live run's
        (self.tmp / "ds.dat").write_bytes(b"\0" * (2 << 20))
        live, files = self.world("ds.dat")
        for out in (live, self.merge("diskspd", files)):
            self.assertEqual(re.findall(r"(?m)^\s+\d+ \|.*\| (\S+ \(.*\))$", out.split("Total IO", 1)[1].split("Read IO")[0]),
                             ["ds.dat (2MiB)"] * 4)

    def test_an_effective_distribution_no_run_makes_is_refused(self):
        _, files = self.world("ds.dat", "-c1M")
        rank1 = Path(files[1])
        kept = rank1.read_text()
        for old, new, fault in (('"nr":2', '"nr":17', "zones[0].nr: 17 ranges, at most 16"),
                                ('"io_span":100', '"io_span":90', "2 ranges whose shares add up to 100% of the I/O, "
                                                                 "not the 90% it says"),
                                ('"io_pct":90', '"io_pct":95', "zone[1]: 95% of the I/O (from its 10%) to the 524288 "
                                                               "bytes at 524288 is no range of a distribution"),
                                ('"io_pct":10', '"io_pct":0', "zone[0]: 0% of the I/O")):
            rank1.write_text(kept)
            forge(rank1, old, new)
            p = run(["merge", *files], cwd=self.tmp)
            self.assertEqual((p.returncode, p.stdout), (2, ""), p.stderr)
            self.assertIn("rank-1.json: results.jobs[0].clones[0]", p.stderr)
            self.assertIn(fault, p.stderr)


@unittest.skipUnless(MPIRUN, "mpirun is not installed (Debian: openmpi-bin)")
class DiskspdLineUnderMpirun(TmpDirCase):
    def test_a_diskspd_line_under_mpirun_is_refused_naming_its_job(self):
        # each rank ran the line alone: 2 DISKSPD reports on stdout, neither the world's
        p = mpirun(2, ["diskspd", "-b4K", "-t1", "-d1", "-W0", "-c1M", "ds.dat"], self.tmp)
        self.assertNotEqual(p.returncode, 0)
        self.assertNotIn("thread count", p.stdout)
        self.assertIn("diskspd: error: under mpirun a DISKSPD line is not run as one world", p.stderr)
        self.assertIn("ioplan diskspd ARGS --job > job.fio, then mpirun -np N ioplan --output-format=diskspd job.fio",
                      p.stderr)
        self.assertFalse((self.tmp / "ds.dat").exists())  # nothing laid out, nothing run

    def test_a_lines_job_keeps_its_d_column_on_the_ranks_and_in_a_merge(self):
        # The route the refusal names lost the line's -D: no IopsStdDev column live or merged.
        p = run(["diskspd", "-b4K", "-t2", "-r", "-L", "-D", "-d1", "-W0", "-c1M", "--job", "ds.dat"], cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.write("job.fio", p.stdout)
        (self.tmp / "out").mkdir()
        live = mpirun(2, ["--output-format=diskspd", "--rank-output=out", "job.fio"], self.tmp)
        self.assertEqual(live.returncode, 0, live.stderr)
        files = [str(self.tmp / "out" / f"rank-{r}.json") for r in range(2)]
        merged = run(["merge", "--output-format=diskspd", *files], cwd=self.tmp)
        self.assertEqual(merged.returncode, 0, merged.stderr)
        for text in (live.stdout, merged.stdout):
            self.assertIn("\tgathering IOPS at intervals of 1000ms\n", text)
            self.assertIn("| IopsStdDev |", text)
            rows = re.findall(r"(?m)^\s+(\d) \|\s+\d+ \|\s+\d+ \|\s+[0-9.]+ \|\s+[0-9.]+ \|\s+[0-9.]+ \|\s+[0-9.]+ \|"
                              r"\s+[0-9.]+ \| ds\.dat", text.split("\nTotal IO\n", 1)[1].split("\ntotal:", 1)[0])
            self.assertEqual(rows, ["0", "1", "2", "3"], text)


def thread_rows(text, table="Total IO"):
    """DISKSPD's rows of one IO table: (thread, bytes, I/Os, AvgLat, LatStdDev, file)."""
    body = text.split(f"\n{table}\n", 1)[1].split("\ntotal:", 1)[0]
    return [(int(t), int(b), int(n), float(a), float(d), f) for t, b, n, a, d, f in
            re.findall(r"(?m)^\s+(\d+) \|\s+(\d+) \|\s+(\d+) \|[^|]+\|[^|]+\|\s+([0-9.]+) \|\s+([0-9.]+) \| (.*)$", body)]


def lat_ms(lat):
    """Mean and population deviation (ms) of a rank file's latency sums, as DISKSPD computes them."""
    n = lat["n"]
    mean = lat["sum_ns"] / n
    sumsq = (lat["sumsq_hi"] << 64) + lat["sumsq_lo"]
    return mean / 1e6, max(sumsq / n - mean * mean, 0) ** 0.5 / 1e6


@unittest.skipUnless(MPIRUN, "mpirun is not installed (Debian: openmpi-bin)")
class DiskspdThreads(TmpDirCase):
    """DISKSPD's report of a world lists the world's threads: each rank's, numbered on
    from the rank before, with that rank's own figures (its rank file's) and files.
    Before, `thread count: 2` for 2 ranks of 2 threads, each row rank 0's clone and
    rank 1's of the same number added up, named by rank 0's file."""
    JOB = ("[global]\nioengine=psync\nbs=4k\nrw=randwrite\nnumjobs=2\ndirectory=r${IOPLAN_RANK}\n"
           "[w]\nsize=256k\n[v]\nsize=128k\nstonewall\n")

    def setUp(self):
        super().setUp()
        self.write("job.fio", self.JOB)
        for d in ("r0", "r1", "out"):
            (self.tmp / d).mkdir()
        p = mpirun(2, ["--output-format=diskspd,diskspd-xml", "--rank-output=out", "job.fio"], self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.text, self.xml = p.stdout.split("<Results>", 1)
        self.xml = "<Results>" + self.xml
        self.files = [str(self.tmp / "out" / f"rank-{r}.json") for r in range(2)]
        self.ranks = [json.loads(Path(f).read_text())["results"] for f in self.files]

    def expected(self):
        """Each rank's threads as its rank file holds them, in DISKSPD's numbering."""
        want = []
        for r, res in enumerate(self.ranks):
            for job in res["jobs"]:
                name = "wv"[job["job_id"]]
                for c in job["clones"]:
                    w = c["ddir"][1]
                    want.append((len(want), w["bytes"], w["ios"], *lat_ms(w["lat"]),
                                 f"r{r}/{name}.{c['clone_index']}.0 ({w['bytes'] // 1024}KiB)"))
        return want

    def check_rows(self, rows):
        want = self.expected()
        self.assertEqual(len(rows), 8, rows)
        for got, exp in zip(rows, want):
            self.assertEqual((got[0], got[1], got[2], got[5]), (exp[0], exp[1], exp[2], exp[5]))
            self.assertAlmostEqual(got[3], exp[3], delta=0.0006)  # printed to 3 decimals
            self.assertAlmostEqual(got[4], exp[4], delta=0.0006)

    def test_each_ranks_threads_are_rows_of_their_own_live_and_merged(self):
        merged = run(["merge", "--output-format=diskspd", *self.files], cwd=self.tmp)
        self.assertEqual(merged.returncode, 0, merged.stderr)
        for text in (self.text, merged.stdout):
            self.assertIn("thread count:\t\t8\n", text)
            self.check_rows(thread_rows(text))
            self.check_rows(thread_rows(text, "Write IO"))
            total = re.search(r"(?m)^total:\s+(\d+) \|\s+(\d+) \|", text.split("\nTotal IO\n", 1)[1])
            self.assertEqual((int(total.group(1)), int(total.group(2))), (2 * 2 * (256 + 128) * 1024, 2 * 2 * 96))
            # the ranks' files differ: a per-target chart would hold both under rank 0's name
            self.assertNotIn("\nLatency distribution: ", text)
            self.assertIn("\nTotal latency distribution:", text)

    def test_rank_files_of_an_earlier_ioplan_name_each_ranks_files(self):
        # Rank files written before clone_paths name no thread's files: rank 1's rows
        # were ' (256KiB)', no file (XML <Path></Path>), an awk's $NF its size.  Its
        # files now come from its own plan, rebuilt with its IOPLAN_RANK, as the live run's.
        old = []
        for f in self.files:
            text = Path(f).read_text().rstrip("\n")
            head = re.match(r'\{"checksum":"crc32c:[0-9a-f]{8}",', text).group(0)
            body, n = re.subn(r'"clone_paths":\[.*?\]\]\],', "", "{" + text[len(head):])
            self.assertEqual(n, 1)
            path = self.tmp / ("old-" + Path(f).name)
            path.write_text('{"checksum":"crc32c:%08x",' % crc32c(body.encode()) + body[1:] + "\n")
            old.append(str(path))
        merged = run(["merge", "--output-format=diskspd", *old], cwd=self.tmp)
        self.assertEqual(merged.returncode, 0, merged.stderr)
        self.check_rows(thread_rows(merged.stdout))
        self.assertNotIn("\nLatency distribution: ", merged.stdout)
        merged = run(["merge", "--output-format=diskspd-xml", *reversed(old)], cwd=self.tmp)
        self.assertEqual(merged.returncode, 0, merged.stderr)
        paths = [t.find("Target/Path").text for t in ET.fromstring(merged.stdout).find("TimeSpan").findall("Thread")]
        self.assertEqual(paths, [r[5].split(" (")[0] for r in self.expected()])

    def test_the_xml_has_a_thread_element_for_each_ranks_thread(self):
        merged = run(["merge", "--output-format=diskspd-xml", *self.files], cwd=self.tmp)
        self.assertEqual(merged.returncode, 0, merged.stderr)
        for doc in (self.xml, merged.stdout):
            span = ET.fromstring(doc).find("TimeSpan")
            self.assertEqual(span.find("ThreadCount").text, "8")
            rows = [(int(t.find("Id").text), int(t.find("Target/BytesCount").text), int(t.find("Target/IOCount").text),
                     float(t.find("Target/AverageLatencyMilliseconds").text), float(t.find("Target/LatencyStdev").text),
                     f"{t.find('Target/Path').text} ({int(t.find('Target/FileSize').text) // 1024}KiB)")
                    for t in span.findall("Thread")]
            self.check_rows(rows)


@unittest.skipUnless(MPIRUN, "mpirun is not installed (Debian: openmpi-bin)")
class FullDisk(TmpDirCase):
    def setUp(self):
        super().setUp()
        self.mnt = self.tmp / "small"
        self.mnt.mkdir()
        m = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(self.mnt)],
                           capture_output=True, text=True)
        if m.returncode:
            super().tearDown()
            self.skipTest("cannot mount a tmpfs: " + m.stderr)
        fill_up(self.mnt)

    def tearDown(self):
        subprocess.run(["umount", str(self.mnt)])
        super().tearDown()

    def test_a_rank_file_the_disk_had_no_room_for_is_not_left_behind(self):
        # Three groups: the file is tried again after each, and each rank says so once (it
        # said it after every group).
        group = "ioengine=null\nbs=4k\nsize=1m\nrw=randread\nfilename=f${IOPLAN_RANK}\n"
        self.write("job.fio", f"[r]\n{group}[s]\nstonewall\n{group}[t]\nstonewall\n{group}")
        p = mpirun(2, ["--output-format=json", f"--rank-output={self.mnt}", "job.fio"], self.tmp)
        self.assertEqual(p.returncode, 1, p.stderr)
        for r in range(2):
            self.assertEqual(p.stderr.count(f"rank-{r}.json: No space left on device"), 1, p.stderr)
        self.assertEqual(sorted(os.listdir(self.mnt)), ["filler"])
        # the world's result is still reported
        self.assertEqual(json.loads(p.stdout)["jobs"][0]["read"]["io_bytes"], 2 << 20)


if __name__ == "__main__":
    unittest.main()
