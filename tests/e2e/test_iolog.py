"""tests/e2e/test_iolog.py - capture and replay: write_iolog, read_iolog, blktrace.

What a user relies on: a job recorded by ioplan replays in fio 3.33 and in
ioplan with the same offsets, sizes and directions; a log fio wrote replays in
ioplan the same way; a blktrace trace replays with its I/O count and bytes and
the lag behind the trace is reported; bad or out-of-range traces are refused
before any I/O with the line or record at fault (exit 2); Debian's
fio-btrace2fio output runs.
"""
import json
import os
import pathlib
import re
import shutil
import signal
import struct
import subprocess
import unittest

from common import BIN, FIO, TRACED_ENV, TmpDirCase, loop_device, run, run_as_fio, run_fio, tmpfs, wait_until

QUEUE, ISSUE, COMPLETE = 1 | (1 << 20), 7 | (1 << 22), 8 | (1 << 23)
TC_READ, TC_WRITE = 1 << 16, 2 << 16


def bt_record(time_ns, sector, nbytes, action, pid=4321, pdu=b""):
    """One blk_io_trace record as blktrace writes it on this (little-endian) machine."""
    return struct.pack("<IIQQIIIIIHH", 0x65617407, 0, time_ns, sector, nbytes, action, pid,
                       (7 << 20) | 0, 0, 0, len(pdu)) + pdu


def synthetic_blktrace(n=120, gap_ns=2_000_000):
    """n 4 KiB I/Os, one read in three a write, gap_ns apart, with the issue and
    completion events and a process notify blktrace also records."""
    out = bt_record(0, 0, 0, 1 | (1 << 26), pdu=b"replayme\0")
    t = 1000
    for i in range(n):
        d = TC_WRITE if i % 3 == 0 else TC_READ
        sector = (i * 37 % 256) * 8
        out += bt_record(t, sector, 4096, QUEUE | d)
        out += bt_record(t + 1000, sector, 4096, ISSUE | d)
        out += bt_record(t + 40000, sector, 4096, COMPLETE | d)
        t += gap_ns
    return out


def io_lines(path):
    """(file, ddir, offset, length) of every I/O line of a v3 iolog, in order."""
    out = []
    for line in pathlib.Path(path).read_text().splitlines()[1:]:
        f = line.split()
        if len(f) == 5:
            out.append((f[1], f[2], int(f[3]), int(f[4])))
    return out


def fio_log_ios(path):
    """(ddir, length, offset) of each entry of a per-I/O fio log written with log_offset=1."""
    names = {0: "read", 1: "write", 2: "trim"}
    out = []
    for line in pathlib.Path(path).read_text().splitlines():
        f = [x.strip() for x in line.split(",")]
        out.append((names[int(f[2])], int(f[3]), int(f[4])))
    return out


def replay_facts(stdout):
    doc = json.loads(stdout)
    return doc, doc["ioplan"]["jobs"][0]["replay"]


class WriteIolog(TmpDirCase):
    def record(self):
        p = run(["--name=rec", "--filename=data", "--size=256k", "--bs=4k", "--rw=randrw", "--rwmixread=60",
                 "--write_iolog=rec.log", "--output-format=json"], cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        return io_lines(self.tmp / "rec.log")

    def test_format_is_fio_v3_with_every_io(self):
        ios = self.record()
        text = (self.tmp / "rec.log").read_text().splitlines()
        self.assertEqual(text[0], "fio version 3 iolog")
        self.assertRegex(text[1], r"^\d+ data add$")
        self.assertRegex(text[2], r"^\d+ data open$")
        self.assertRegex(text[-1], r"^\d+ data close$")
        self.assertEqual(len(ios), 64)
        self.assertEqual(sum(n for _, _, _, n in ios), 256 * 1024)
        self.assertEqual({d for _, d, _, _ in ios}, {"read", "write"})
        times = [int(line.split()[0]) for line in text[1:]]
        self.assertEqual(times, sorted(times), "times are µs since the log began, never backwards")

    def test_clones_sharing_a_log_never_cut_each_others_lines(self):
        # numjobs=4 with one write_iolog: four clones append to the file at once.  A
        # buffer written wherever it filled cut lines in two (41 of 32776 with two
        # clones; fio's cuts some too); whole lines per write cut none.
        p = run(["--name=j", "--ioengine=null", "--rw=randread", "--bs=4k", "--size=32m", "--numjobs=4",
                 "--write_iolog=shared.log"], cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        lines = (self.tmp / "shared.log").read_text().splitlines()
        io = re.compile(r"^\d+ j\.[0-3]\.0 read \d+ 4096$")
        bad = [x for x in lines if not io.match(x) and x != "fio version 3 iolog"
               and not re.match(r"^\d+ j\.[0-3]\.0 (add|open|close)$", x)]
        self.assertEqual(bad, [])
        self.assertEqual(lines.count("fio version 3 iolog"), 4)
        self.assertEqual(sum(1 for x in lines if io.match(x)), 4 * 8192)
        self.assertGreater(len("\n".join(lines)), 8 * 64 * 1024)  # many writes of each clone's buffer

    def test_syncs_are_logged_as_fios_and_a_replay_makes_them(self):
        # fsync=N's and end_fsync's syncs had no line: a replay of ioplan's own capture made none.
        job = ["--name=w", "--filename=data", "--ioengine=psync", "--rw=write", "--bs=4k", "--size=32k",
               "--fsync=2", "--end_fsync=1"]
        p = run([*job, "--write_iolog=rec.log", "--output-format=json"], cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        ios = [(d, o, n) for _, d, o, n in io_lines(self.tmp / "rec.log")]
        self.assertEqual([x for x in ios if x[0] != "write"],
                         [("sync", 4096, 0), ("sync", 12288, 0), ("sync", 20480, 0), ("sync", 28672, 0)])
        if FIO:
            # fio adds a second --filename to the first: the job's is replaced instead.
            f = run_fio([a if a != "--filename=data" else "--filename=fdata" for a in job] + ["--write_iolog=fio.log"],
                        cwd=self.tmp)
            self.assertEqual(f.returncode, 0, f.stderr)
            self.assertEqual([(d, o, n) for _, d, o, n in io_lines(self.tmp / "fio.log")], ios)
        p = run(["--name=rp", "--read_iolog=rec.log", "--write_iolog=again.log", "--output-format=json"],
                cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual([(d, o, n) for _, d, o, n in io_lines(self.tmp / "again.log")], ios)

    @unittest.skipUnless(shutil.which("strace"), "strace is not installed")
    def test_a_traces_sync_and_datasync_lines_sync_the_file_they_name(self):
        # A replayed flush was an fsync of every file: fio makes the line's call on its file.
        (self.tmp / "t.log").write_text(
            "fio version 2 iolog\na add\nb add\na open\nb open\na write 0 4096\nb write 0 4096\n"
            "b datasync 0 0\na write 4096 4096\na sync 0 0\na close\nb close\n")

        def syncs(argv):
            p = subprocess.run(["strace", "-f", "-qq", "-y", "-e", "trace=fsync,fdatasync", *argv,
                                "--name=rp", "--read_iolog=t.log", "--output-format=terse"],
                               cwd=self.tmp, capture_output=True, text=True, timeout=120, env=TRACED_ENV)
            self.assertEqual(p.returncode, 0, p.stderr)
            for f in ("a", "b"):
                (self.tmp / f).unlink()
            calls = re.findall(r"(f(?:data)?sync)\(\d+<([^>]*)>\)", p.stderr)
            return [(c, os.path.basename(path)) for c, path in calls]

        want = [("fdatasync", "b"), ("fsync", "a")]
        self.assertEqual(syncs([BIN, "--write_iolog=again.log"]), want)
        self.assertEqual([(d, f) for f, d, _, _ in io_lines(self.tmp / "again.log") if "sync" in d],
                         [("datasync", "b"), ("sync", "a")])
        if FIO:
            self.assertEqual(syncs([FIO]), want)

    def test_openfiles_opens_and_closes_are_logged_as_they_happen(self):
        # The log said every file opened at the start and closed at the end, while
        # openfiles=2 held two at a time: a reader of the log saw four open at once.
        job = ["--name=of", "--ioengine=psync", "--rw=read", "--bs=4k", "--size=32k", "--nrfiles=4",
               "--openfiles=2", "--loops=2"]

        def file_lines(argv, log):
            p = subprocess.run([*argv, *job, f"--write_iolog={log}", "--output-format=terse"],
                               cwd=self.tmp, capture_output=True, text=True, timeout=120)
            self.assertEqual(p.returncode, 0, p.stderr)
            for f in self.tmp.glob("of.0.*"):
                f.unlink()
            return [tuple(line.split()[1:]) for line in (self.tmp / log).read_text().splitlines()[1:]
                    if len(line.split()) == 3]

        lines = file_lines([BIN], "ioplan.log")
        held, most = set(), 0
        for name, act in lines:
            if act == "open":
                held.add(name)
            elif act == "close":
                held.discard(name)
            most = max(most, len(held))
        self.assertEqual(most, 2, lines)
        self.assertEqual(held, set(), "every file opened is closed in the log")
        self.assertEqual(sum(act == "open" for _, act in lines), 8, "each file opens once a loop")
        if FIO:
            self.assertEqual(lines, file_lines([FIO], "fio.log"))

    def log_lines(self, tool, name, args):
        """The write_iolog lines, without their times, of job name run by tool in a directory of its own."""
        d = self.tmp / f"{name}-{os.path.basename(tool)}"
        d.mkdir()
        p = subprocess.run([tool, f"--name={name}", *args, "--write_iolog=log", "--output-format=terse"],
                           cwd=d, capture_output=True, text=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        return [line.split(" ", 1)[1] for line in (d / "log").read_text().splitlines()[1:]]

    @unittest.skipUnless(FIO, "fio is not installed")
    def test_files_open_with_their_first_io_and_close_as_each_loop_ends_as_fios(self):
        # fio opens a file with its first I/O and closes every file as a loop ends and
        # before its read-back (clear_io_state); ioplan's log opened them all at the
        # start and closed them at the end only.  The lines without their times match.
        jobs = {
            "rr": ["--rw=write", "--nrfiles=3"],
            "loops": ["--rw=read", "--nrfiles=2", "--loops=2"],
            "verify": ["--rw=write", "--nrfiles=2", "--loops=2", "--verify=crc32c"],
            "unlink": ["--rw=write", "--nrfiles=2", "--loops=2", "--unlink_each_loop=1"],
            "end_fsync": ["--rw=write", "--nrfiles=2", "--end_fsync=1"],
        }

        for name, extra in jobs.items():
            with self.subTest(name):
                extra = ["--ioengine=psync", "--size=32k", "--bs=4k", *extra]
                self.assertEqual(self.log_lines(BIN, name, extra), self.log_lines(FIO, name, extra))

    @unittest.skipUnless(FIO, "fio is not installed")
    def test_the_null_engine_serves_openfiles_files_as_fio(self):
        # fio's file service holds openfiles= files open with the null engine too: one
        # file at a time is written to its end, and the log opens and closes it.  ioplan
        # served the null engine's files as if all were open (rw=write nrfiles=3
        # openfiles=1: a write in each file in turn), its log opening all at the start.
        jobs = {
            "one": ["--rw=write", "--bs=16k", "--nrfiles=3", "--openfiles=1"],
            "mix": ["--rw=randrw", "--bsrange=4k-16k", "--nrfiles=4", "--openfiles=2"],
            "depth": ["--rw=rw", "--bs=4k", "--nrfiles=3", "--openfiles=1", "--iodepth=4"],
        }

        for name, extra in jobs.items():
            with self.subTest(name):
                extra = ["--ioengine=null", "--size=1m", *extra]
                ours = self.log_lines(BIN, name, extra)
                self.assertEqual(ours, self.log_lines(FIO, name, extra))
        self.assertEqual([line for line in ours if line.endswith("open")][:2], ["depth.0.0 open", "depth.0.1 open"])

    @unittest.skipUnless(FIO, "fio is not installed")
    def test_a_loop_under_openfiles_starts_with_every_file_closed_as_fios(self):
        # fio's next loop closes every file first (clear_io_state), so its first picks
        # open files afresh.  ioplan kept open the file that ended the loop: with files
        # drawn at random the new loop read it while fio opened another (a.0.3 read at 0
        # where fio opened and read a.0.1), and every later pick differed.
        jobs = {
            "drawn": ["--ioengine=psync", "--rw=read", "--nrfiles=5", "--openfiles=2",
                      "--file_service_type=random", "--loops=2"],
            "drawn_depth": ["--ioengine=libaio", "--iodepth=4", "--rw=read", "--nrfiles=5", "--openfiles=2",
                            "--file_service_type=random", "--loops=2"],
            "drawn_null": ["--ioengine=null", "--rw=read", "--nrfiles=5", "--openfiles=2",
                           "--file_service_type=random", "--loops=2"],
            "drawn_turns": ["--ioengine=null", "--rw=randread", "--bsrange=4k-8k", "--nrfiles=5", "--openfiles=2",
                            "--file_service_type=random:3", "--io_size=3m"],
        }
        for name, extra in jobs.items():
            with self.subTest(name):
                extra = ["--size=1m", "--bs=4k", *extra]
                ours, theirs = self.log_lines(BIN, name, extra), self.log_lines(FIO, name, extra)
                self.assertGreater(sum(line.endswith(" open") for line in ours), 5)
                if name == "drawn_depth":
                    # At depth a close waits for the file's last completion, which comes
                    # when it comes: the I/Os compare, the lines between them may not.
                    ours, theirs = ([line for line in lines if len(line.split()) == 4] for lines in (ours, theirs))
                self.assertEqual(ours, theirs)

    @unittest.skipUnless(FIO, "fio is not installed")
    def test_openfiles_close_a_file_at_its_turn_as_fios(self):
        # fio closes a file in turn (roundrobin, sequential) when its turn comes and its
        # fill finds no room, then serves the next; ioplan closed it as its last I/O
        # completed, a turn early.  With drawn lengths (bs_unaligned) the last I/O leaves
        # a few bytes: the file fio served next and the one ioplan did differed
        # (a.0.0 then a.0.2 in fio, a.0.2 then a.0.0 in ioplan), and the log's close
        # lines came before the other file's last I/O.
        jobs = {
            "unaligned": ["--ioengine=null", "--rw=read", "--size=2m", "--bsrange=1k-16k", "--bs_unaligned=1",
                          "--nrfiles=3", "--openfiles=2", "--allrandrepeat=1"],
            "turns": ["--ioengine=psync", "--rw=read", "--size=1m", "--bs=4k", "--nrfiles=5", "--openfiles=2",
                      "--loops=2"],
            "sequential": ["--ioengine=psync", "--rw=read", "--size=1m", "--bs=4k", "--nrfiles=3", "--openfiles=2",
                           "--file_service_type=sequential", "--loops=3"],
        }
        for name, extra in jobs.items():
            with self.subTest(name):
                self.assertEqual(self.log_lines(BIN, name, extra), self.log_lines(FIO, name, extra))

    def test_rw_skip_pass_and_log_match_fio_t0007(self):
        # fio's t0007: size=128m bs=1m rw=read:512k reads 85 MiB, one iolog line per I/O.
        p = run(["--name=foo", "--ioengine=null", "--size=128m", "--rw=read:512k", "--bs=1m",
                 "--write_iolog=log", "--output-format=json"], cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(json.loads(p.stdout)["jobs"][0]["read"]["io_kbytes"], 87040)
        ios = io_lines(self.tmp / "log")
        self.assertEqual(len(ios), 85)
        self.assertEqual([o for _, _, o, _ in ios[:3]], [0, 1572864, 3145728])

    @unittest.skipUnless(FIO, "fio is not installed")
    def test_ioplan_log_replays_the_same_in_fio_and_ioplan(self):
        recorded = [(d, n, o) for _, d, o, n in self.record()]
        p = run(["--name=rp", "--read_iolog=rec.log", "--write_iolog=again.log", "--output-format=json"], cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual([(d, n, o) for _, d, o, n in io_lines(self.tmp / "again.log")], recorded)
        f = run_fio(["--name=rp", "--read_iolog=rec.log", "--write_iops_log=fio", "--log_offset=1",
                     "--output-format=json"], cwd=self.tmp)
        self.assertEqual(f.returncode, 0, f.stderr)
        self.assertEqual(fio_log_ios(self.tmp / "fio_iops.1.log"), recorded)

    @unittest.skipUnless(FIO, "fio is not installed")
    def test_fio_log_replays_the_same_in_ioplan(self):
        f = run_fio(["--name=f", "--filename=fdata", "--size=256k", "--bs=4k", "--rw=randrw",
                     "--write_iolog=f.log", "--output-format=json"], cwd=self.tmp)
        self.assertEqual(f.returncode, 0, f.stderr)
        want = io_lines(self.tmp / "f.log")
        self.assertEqual(len(want), 64)
        # fio created fdata: replaying its writes needs the user's leave, as any write into it.
        p = run(["--name=rp", "--read_iolog=f.log", "--output-format=json"], cwd=self.tmp)
        self.assertEqual(p.returncode, 2)
        self.assertIn("allow_existing_file_write", p.stderr)
        p = run(["--name=rp", "--read_iolog=f.log", "--allow_existing_file_write=1", "--write_iolog=again.log",
                 "--output-format=json"], cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(io_lines(self.tmp / "again.log"), want)


class ReplayIntoAnEmptyFile(TmpDirCase):
    def test_writes_replayed_into_an_empty_file_grow_it_as_fios(self):
        # A 3FS USRBIO study makes its data file empty, then replays iologs of writes
        # into it (find_string id 71127837952).  fio's writes extend the file; ioplan
        # took the empty file's size as the region and failed the job ("region beyond
        # the end of the file", EINVAL), writing nothing.
        log = "fio version 2 iolog\nk.data add\nk.data open\nk.data write 0 65536\n" \
              "k.data write 1048576 65536\nk.data close\n"
        args = ["--name=prefill", "--filename=k.data", "--ioengine=psync", "--rw=write", "--bs=64k",
                "--read_iolog=w.iolog", "--verify=pattern", "--verify_pattern=0x5a", "--do_verify=0",
                "--output-format=json"]
        data = {}
        for who, runner in (("ioplan", run), ("as-fio", run_as_fio), ("fio", run_fio if FIO else None)):
            if runner is None:
                continue
            d = self.tmp / who
            d.mkdir()
            (d / "w.iolog").write_text(log)
            (d / "k.data").write_bytes(b"")
            p = runner(args, cwd=d)
            self.assertEqual(p.returncode, 0, f"{who}: {p.stderr}")
            job = json.loads(p.stdout[p.stdout.index("{"):])["jobs"][0]
            self.assertEqual((job["error"], job["write"]["io_bytes"], job["write"]["total_ios"]), (0, 128 << 10, 2), who)
            body = (d / "k.data").read_bytes()
            self.assertEqual(len(body), (1 << 20) + (64 << 10), who)
            data[who] = (body[:64 << 10], body[1 << 20:])
            self.assertEqual(data[who][0], b"\x5a" * (64 << 10), who)
        self.assertEqual(len(set(data.values())), 1)


class BadTraces(TmpDirCase):
    def refused(self, name, data, where):
        path = self.tmp / name
        path.write_bytes(data)
        (self.tmp / "data").write_bytes(b"\x5a" * 65536)
        p = run(["--name=rp", f"--read_iolog={name}", "--replay_redirect=data", "--allow_existing_file_write=1"],
                cwd=self.tmp)
        self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
        self.assertEqual(p.stdout, "", "nothing ran")
        self.assertIn(f"{name}{where}: error: read_iolog: ", p.stderr)
        self.assertEqual((self.tmp / "data").read_bytes(), b"\x5a" * 65536)
        return p.stderr

    def test_malformed_line(self):
        self.assertIn("got 4 fields", self.refused("a.log", b"fio version 3 iolog\n1 f add\n2 f write 0\n", ":3:1"))

    def test_unknown_action(self):
        self.assertIn("unknown action 'scribble'",
                      self.refused("b.log", b"fio version 2 iolog\nf add\nf write 0 4096\nf scribble 0 1\n", ":4:1"))

    def test_zero_length_write(self):
        # It reached the engine as a write that moved nothing, the job made read-only by it: EBADF, exit 1.
        self.assertIn("a write of 0 bytes at offset 4096",
                      self.refused("z.log", b"fio version 2 iolog\nf add\nf read 0 4096\nf write 4096 0\n", ":4:1"))

    def test_wrong_magic(self):
        bt = synthetic_blktrace(4)
        bt += struct.pack("<I", 0xDEADBEEF) + bt[4:48]
        self.assertIn("wrong magic 0xdeadbeef", self.refused("c.bin", bt, ": record 14"))

    def test_truncated_blktrace(self):
        self.assertIn("truncated", self.refused("d.bin", synthetic_blktrace(4)[:-20], ": record 13"))

    def test_not_a_trace(self):
        self.assertIn("not a fio iolog", self.refused("e.log", b"hello\n", ":1:1"))

    def test_offsets_beyond_the_target(self):
        log = b"fio version 3 iolog\n1 data add\n2 data open\n3 data write 0 4096\n4 data write 61440 8192\n"
        err = self.refused("f.log", log, ":5:1")
        self.assertIn("reaches byte 69632 of 'data', which holds 65536", err)

    def test_blktrace_beyond_the_target_names_the_record(self):
        # It was named as a line, 'g.bin:13:', of a file that has none.
        bt = synthetic_blktrace(4) + bt_record(20_000_000, 1000, 4096, QUEUE | TC_READ)
        err = self.refused("g.bin", bt, ": record 14")
        self.assertIn("reaches byte 516096 of 'data', which holds 65536", err)


class ReadsOfMissingFiles(TmpDirCase):
    # fio 3.33 makes a missing file no bigger than the trace's writes: a read of one
    # the trace never writes fails (ENOENT), a read past its writes too (EIO, short
    # read).  ioplan laid such a file out to the trace's furthest I/O and read it.
    TRACES = {
        "unwritten": ("new read 0 4096\n", ":4:1", "up to byte 4096, but the file does not exist "
                      "and the trace's writes before this read reach byte 0"),
        "past_writes": ("new write 0 4096\nnew read 0 4096\nnew read 8192 4096\n", ":6:1",
                        "up to byte 12288, but the file does not exist and the trace's writes before "
                        "this read reach byte 4096"),
        "within_writes": ("new write 0 8192\nnew read 4096 4096\n", None, None),
    }

    def test_a_read_past_the_traces_writes_fails_as_fios(self):
        for name, (body, where, words) in self.TRACES.items():
            with self.subTest(name):
                log = f"fio version 2 iolog\nnew add\nnew open\n{body}new close\n"
                d = self.tmp / name
                d.mkdir()
                (d / "t.log").write_text(log)
                p = run(["--name=rp", "--read_iolog=t.log", "--output-format=json"], cwd=d)
                if where is None:
                    self.assertEqual(p.returncode, 0, p.stderr)
                    self.assertEqual(json.loads(p.stdout)["jobs"][0]["read"]["io_bytes"], 4096)
                else:
                    self.assertEqual(p.returncode, 2, p.stderr)
                    self.assertEqual(p.stdout, "", "nothing ran")
                    self.assertIn(f"t.log{where}: error: read_iolog: the trace reads 'new' {words}", p.stderr)
                    self.assertFalse((d / "new").exists())
                if FIO:
                    (d / "new").unlink(missing_ok=True)
                    f = run_fio(["--name=rp", "--read_iolog=t.log", "--output-format=json"], cwd=d)
                    job = json.loads(f.stdout[f.stdout.index("{"):])["jobs"][0]
                    self.assertEqual(job["error"] == 0, where is None, f.stdout + f.stderr)


class ReplayAsDocumented(TmpDirCase):
    # Where fio 3.33 differs from its own HOWTO, ioplan replays as documented and
    # says so (ioplan-job(5) COMPATIBILITY).
    def setUp(self):
        super().setUp()
        (self.tmp / "data").write_bytes(b"\x5a" * 65536)

    def replay(self, argv, log, *extra):
        (self.tmp / "t.log").write_text(log)
        p = subprocess.run([*argv, "--name=rp", "--read_iolog=t.log", "--output-format=json", *extra],
                           cwd=self.tmp, capture_output=True, text=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        return json.loads(p.stdout[p.stdout.index("{"):])["jobs"][0]

    def test_a_v2_wait_is_microseconds_after_the_line_before(self):
        # HOWTO: "Wait for offset microseconds ... relative to the previous wait";
        # fio 3.33 sleeps until offset milliseconds after its start (200 s here).
        log = "fio version 2 iolog\ndata add\ndata open\ndata read 0 4096\ndata wait 300000 0\n" \
              "data read 4096 4096\ndata close\n"
        self.replay([BIN], log, "--write_iolog=again.log")
        times = [int(x.split()[0]) for x in (self.tmp / "again.log").read_text().splitlines()
                 if x.endswith(" 4096")]
        self.assertEqual(len(times), 2)
        # The second read is due 300 ms after the first was due: its line, timed from the
        # log's start (set-up, before the replay's time 0), is at 300000 or later.  Measured
        # from the first line it could be less: that line is written after its read went
        # (299992 once under the sanitizer on a busy machine).
        self.assertGreaterEqual(times[1], 300000)
        self.assertLess(times[1] - times[0], 60_000_000)

    def test_a_text_traces_trims_are_trims(self):
        # The HOWTO lists trim among an iolog's actions; fio 3.33's reader drops
        # each with "bad ddir: 2" (fixed in 3.34), so its report counts none.
        log = "fio version 2 iolog\ndata add\ndata open\ndata write 0 8192\ndata trim 8192 8192\n" \
              "data read 0 4096\ndata trim 0 4096\ndata close\n"
        job = self.replay([BIN, "--ioengine=null"], log)
        self.assertEqual([job[k]["total_ios"] for k in ("read", "write", "trim")], [1, 1, 2])
        self.assertEqual(job["trim"]["io_bytes"], 12288)
        if FIO:
            job = self.replay([FIO, "--ioengine=null"], log)
            self.assertEqual([job[k]["total_ios"] for k in ("read", "write", "trim")], [1, 1, 0],
                             "fio 3.33 drops a text trace's trims")

    def test_replay_skip_skips_a_text_traces_lines(self):
        log = "fio version 2 iolog\ndata add\ndata open\ndata write 0 4096\ndata read 4096 4096\n" \
              "data write 8192 4096\ndata close\n"
        job = self.replay([BIN], log, "--replay_skip=write", "--allow_existing_file_write=1")
        self.assertEqual((job["read"]["total_ios"], job["write"]["total_ios"]), (1, 0))
        if FIO:
            job = self.replay([FIO], log, "--replay_skip=write")
            self.assertEqual((job["read"]["total_ios"], job["write"]["total_ios"]), (1, 2),
                             "fio 3.33 skips a blktrace's lines only")


class NullReplay(TmpDirCase):
    """fio's null engine replays a trace whatever files bear its names: it needs no
    size= and opens none.  ioplan refused the replay without size= ("the null engine
    needs size=", exit 2), and with size= failed it where the trace names an existing
    file ("the engine needs size=", exit 1) or reaches past one's end (exit 2)."""

    LOG = ("fio version 3 iolog\n0 {f} add\n1 {f} open\n10 {f} write 0 4096\n20 {f} write 8192 8192\n"
           "30 {f} read 4096 4096\n40 {f} write 4194304 4096\n50 {f} read 12345 1000\n60 {f} close\n")

    def counts(self, runner, who, name, extra):
        d = self.tmp / who / name
        d.mkdir(parents=True)
        (d / "small").write_bytes(bytes(65536))
        (d / "t.log").write_text(self.LOG.format(f=d / name))
        p = runner(["--name=rp", "--ioengine=null", "--read_iolog=t.log", "--output-format=json", *extra], cwd=d)
        self.assertEqual(p.returncode, 0, f"{who}: {p.stderr}")
        job = json.loads(p.stdout[p.stdout.index("{"):])["jobs"][0]
        self.assertEqual((d / "small").stat().st_size, 65536)
        return [(job[k]["total_ios"], job[k]["io_bytes"]) for k in ("read", "write")]

    def test_null_replays_as_fio(self):
        for name, extra in (("small", []), ("small", ["--size=1m"]), ("missing", [])):
            with self.subTest(name=name, extra=extra):
                d = f"{name}-{len(extra)}"
                got = self.counts(run, "ioplan" + d, name, extra)
                self.assertEqual(got, [(2, 5096), (3, 16384)])
                if FIO:
                    self.assertEqual(self.counts(run_fio, "fio" + d, name, extra), got)


class BlktraceReplay(TmpDirCase):
    def test_replay_keeps_count_bytes_and_reports_lag(self):
        (self.tmp / "t.bin").write_bytes(synthetic_blktrace(120, 2_000_000))
        p = run(["--name=rp", "--read_iolog=t.bin", "--replay_redirect=target", "--output-format=json"], cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        doc, rp = replay_facts(p.stdout)
        job = doc["jobs"][0]
        self.assertEqual((job["read"]["total_ios"], job["write"]["total_ios"]), (80, 40))
        self.assertEqual((job["read"]["io_bytes"], job["write"]["io_bytes"]), (80 * 4096, 40 * 4096))
        self.assertEqual(rp["ios"], 120)
        self.assertLessEqual(rp["late_ios"], 120)
        self.assertEqual(rp["late_threshold_ns"], 1_000_000)
        # Open loop: the last I/O is due 238 ms after the first, however fast the device is.
        self.assertGreaterEqual(job["job_runtime"], 230)
        normal = run(["--name=rp", "--read_iolog=t.bin", "--replay_redirect=target", "--replay_time_scale=400"],
                     cwd=self.tmp)
        self.assertEqual(normal.returncode, 0, normal.stderr)
        self.assertRegex(normal.stdout, r"replay +: 120 I/Os, \d+\.\d\d% issued late \(over 1 ms behind the trace\), "
                                        r"worst lag \d+\.\d{3} ms")

    def test_missing_traced_device_is_not_created(self):
        (self.tmp / "t.bin").write_bytes(synthetic_blktrace(4).replace(struct.pack("<I", 7 << 20),
                                                                       struct.pack("<I", (250 << 20) | 77)))
        p = run(["--name=rp", "--read_iolog=t.bin"], cwd=self.tmp)
        self.assertEqual(p.returncode, 2, p.stdout)
        self.assertIn("t.bin: error: read_iolog: the traced device /dev/block/250:77 is not on this machine; "
                      "name the target with replay_redirect=", p.stderr)
        self.assertFalse(os.path.exists("/dev/block/250:77"))

    def test_an_io_due_past_the_clocks_end_is_never_due(self):
        # Due at the window's start + 2^64 - 1 ns: that wrapped round to 'at once' and both I/Os ran.
        (self.tmp / "t.bin").write_bytes(bt_record(0, 0, 4096, QUEUE | TC_READ) +
                                         bt_record(2**64 - 1, 8, 4096, QUEUE | TC_READ))
        p = run(["--name=rp", "--read_iolog=t.bin", "--replay_redirect=target", "--runtime=1",
                 "--output-format=json"], cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        doc, rp = replay_facts(p.stdout)
        self.assertEqual((doc["jobs"][0]["read"]["total_ios"], rp["ios"]), (1, 1))

    def test_no_stall_and_skip(self):
        (self.tmp / "t.bin").write_bytes(synthetic_blktrace(120, 50_000_000))
        p = run(["--name=rp", "--read_iolog=t.bin", "--replay_redirect=target", "--replay_no_stall=1",
                 "--replay_skip=write", "--output-format=json"], cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        doc, rp = replay_facts(p.stdout)
        self.assertEqual(rp["ios"], 80)
        self.assertEqual(doc["jobs"][0]["write"]["total_ios"], 0)
        self.assertLess(doc["jobs"][0]["job_runtime"], 3000, "a 6 s trace replayed without its gaps")

    def test_capture_on_loop_device_then_replay(self):
        why = blktrace_unavailable()
        if why:
            self.skipTest(why)
        self.capture_and_replay(loop_device(self))

    def capture_and_replay(self, dev):
        trace, errlog = self.tmp / "cap.bin", self.tmp / "blktrace.err"
        with open(trace, "wb") as out, open(errlog, "wb") as err:
            bt = subprocess.Popen(["blktrace", "-d", dev, "-o", "-"], stdout=out, stderr=err)
        try:
            # blktrace traces once the kernel has made its per-CPU relay files (debugfs
            # block/DEV/trace0...).  In a container without CAP_SYS_ADMIN it cannot open
            # them, says so, and waits.
            relay = pathlib.Path("/sys/kernel/debug/block", os.path.basename(dev))
            wait_until(lambda: bt.poll() is not None or b"failed" in errlog.read_bytes().lower()
                       or any(relay.glob("trace*")), 30, "blktrace to set up")
            refused = errlog.read_bytes().decode(errors="replace")
            if "failed" in refused.lower() or bt.poll() is not None:
                self.skipTest("blktrace cannot trace here: " +
                              (refused.strip().splitlines()[0] if refused.strip() else "it exited at once"))
            p = run(["--name=cap", f"--filename={dev}", f"--allow_device_write={dev}", "--rw=randrw",
                     "--bs=4k", "--size=1m", "--direct=1"], cwd=self.tmp)
        finally:
            bt.send_signal(signal.SIGINT)
            try:
                bt.wait(timeout=10)
            except subprocess.TimeoutExpired:
                bt.kill()
                bt.wait()
        err = errlog.read_bytes()
        self.assertEqual(p.returncode, 0, p.stderr)
        if not trace.stat().st_size:
            self.skipTest("blktrace recorded nothing: " + err.decode(errors="replace").strip())
        r = run(["--name=rp", f"--read_iolog={trace}", "--replay_redirect=target", "--output-format=json"],
                cwd=self.tmp)
        self.assertEqual(r.returncode, 0, r.stderr)
        doc, rp = replay_facts(r.stdout)
        self.assertEqual(rp["ios"], 256)
        job = doc["jobs"][0]
        self.assertEqual(job["read"]["io_bytes"] + job["write"]["io_bytes"], 1 << 20)


def queue_records(data):
    """The 48-byte headers of a blktrace file's queue events of reads, writes and discards."""
    out, pos = [], 0
    while pos < len(data):
        action, pdu = struct.unpack_from("<I", data, pos + 28)[0], struct.unpack_from("<H", data, pos + 46)[0]
        if action & 0xFFFF == 1 and action & (((1 << 0) | (1 << 1) | (1 << 13)) << 16):
            out.append(data[pos:pos + 48])
        pos += 48 + pdu
    return out


def documented_merge(traces):
    """fio's HOWTO merge of [(blktrace bytes, scalar %, iterations)]: every queue event
    of every iteration, times (t + k * last time) * scalar / 100, in time order
    (first source first on a tie), payloads dropped."""
    events = []
    for src, (data, pct, iters) in enumerate(traces):
        recs = queue_records(data)
        last = struct.unpack_from("<Q", recs[-1], 8)[0]
        for k in range(iters):
            for n, r in enumerate(recs):
                r = bytearray(r)
                t = (struct.unpack_from("<Q", r, 8)[0] + k * last) * pct // 100
                struct.pack_into("<Q", r, 8, t)
                struct.pack_into("<H", r, 46, 0)
                events.append((t, src, k, n, bytes(r)))
    return b"".join(e[4] for e in sorted(events))


class BlktraceMerge(TmpDirCase):
    MERGE = ["--read_iolog=a.bin:b.bin", "--merge_blktrace_file=m.bin", "--merge_blktrace_scalars=50:100",
             "--merge_blktrace_iters=2:1"]

    def setUp(self):
        super().setUp()
        self.a = synthetic_blktrace(10, 2_000_000)
        # Another server: its own sectors and pid, a pace that never ties with a's.
        self.b = b"".join(bt_record(1000 + j * 3_100_000, 4096 + j * 8, 8192, QUEUE | (TC_WRITE if j % 2 else TC_READ),
                                    pid=99) for j in range(6))
        (self.tmp / "a.bin").write_bytes(self.a)
        (self.tmp / "b.bin").write_bytes(self.b)

    def test_merge_only_writes_the_documented_merge_and_runs_nothing(self):
        p = run(["--merge-blktrace-only", "--name=m", *self.MERGE], cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout, "")
        merged = (self.tmp / "m.bin").read_bytes()
        self.assertEqual(len(merged), (2 * 10 + 6) * 48)
        self.assertEqual(merged, documented_merge([(self.a, 50, 2), (self.b, 100, 1)]))
        self.assertFalse(list(self.tmp.glob("m.*.0")), "no job ran")

    def test_a_merge_the_disk_cuts_short_leaves_no_shorter_trace(self):
        # 3 MiB holds exactly 65536 of the 80000 merged 48-byte records: the merge that
        # failed there left them under the name, and a replay of that file ran 65536
        # I/Os with exit 0, a shorter trace taken for the whole one.
        mnt = tmpfs(self, "size=3m")

        def trace(n, gap_ns):
            return b"".join(bt_record(1000 + i * gap_ns, (i * 37 % 256) * 8, 4096, QUEUE | TC_READ) for i in range(n))
        (self.tmp / "a.bin").write_bytes(trace(40000, 2_000_000))
        (self.tmp / "b.bin").write_bytes(trace(40000, 3_000_000))
        merged = mnt / "m.bin"
        for before, left in (("missing", "no file is left"), ("empty", "it is left empty, as it was")):
            with self.subTest(before=before):
                if before == "empty":
                    merged.write_bytes(b"")
                p = run(["--merge-blktrace-only", "--name=m", "--read_iolog=a.bin:b.bin",
                         f"--merge_blktrace_file={merged}"], cwd=self.tmp)
                self.assertEqual(p.returncode, 2, p.stderr)
                if before == "missing":
                    self.assertFalse(merged.exists())
                else:
                    self.assertEqual(merged.stat().st_size, 0)
                self.assertEqual(p.stderr, f"{merged}: error: merge_blktrace_file: cannot write it: No space left "
                                           f"on device ({left})\n")

    def test_merge_then_replay_and_fio_replays_it_alike(self):
        args = ["--name=m", *self.MERGE, "--replay_redirect=target", "--replay_no_stall=1", "--output-format=json"]
        p = run(args, cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        doc, rp = replay_facts(p.stdout)
        job = doc["jobs"][0]
        mine = (job["read"]["total_ios"], job["write"]["total_ios"], job["read"]["io_bytes"], job["write"]["io_bytes"])
        # a: 2 x (6 reads, 4 writes) of 4 KiB; b: 3 reads, 3 writes of 8 KiB.
        self.assertEqual(mine, (15, 11, 12 * 4096 + 3 * 8192, 8 * 4096 + 3 * 8192))
        again = run(args, cwd=self.tmp)
        self.assertEqual(again.returncode, 0, "a rerun finds its own merge: " + again.stderr)
        if FIO is None:
            return
        f = run_fio(["--name=m", "--read_iolog=m.bin", "--replay_redirect=target", "--replay_no_stall=1",
                     "--output-format=json"], cwd=self.tmp)
        self.assertEqual(f.returncode, 0, f.stderr)
        fj = json.loads(f.stdout[f.stdout.index("{"):])["jobs"][0]
        self.assertEqual((fj["read"]["total_ios"], fj["write"]["total_ios"], fj["read"]["io_bytes"],
                          fj["write"]["io_bytes"]), mine)

    @unittest.skipIf(FIO is None, "fio not installed")
    def test_fio_333s_own_merge(self):
        # fio 3.33 reads each record into a pointer and stops with "iolog short read",
        # leaving an empty merged file (fixed upstream after 3.33).  A fio whose merge
        # works must write what ioplan writes (one iteration each: fio's later code
        # repeats a trace's last record once per extra iteration).
        one = ["--read_iolog=a.bin:b.bin", "--merge_blktrace_scalars=50:100"]
        f = run_fio(["--merge-blktrace-only", "--name=m", *one, "--merge_blktrace_file=f.bin"], cwd=self.tmp)
        p = run(["--merge-blktrace-only", "--name=m", *one, "--merge_blktrace_file=i.bin"], cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        theirs, mine = (self.tmp / "f.bin").read_bytes(), (self.tmp / "i.bin").read_bytes()
        if theirs == b"":
            self.assertIn("iolog short read", f.stderr)
        else:
            self.assertEqual(queue_records(theirs), queue_records(mine))

    def refused(self, args, want):
        p = run(["--merge-blktrace-only", "--name=m", *args], cwd=self.tmp)
        self.assertEqual(p.returncode, 2, p.stdout)
        self.assertIn(want, p.stderr)
        return p

    def test_bad_input_is_refused_with_its_position(self):
        self.refused(["--read_iolog=a.bin:b.bin", "--merge_blktrace_file=m.bin", "--merge_blktrace_iters=2"],
                     "merge_blktrace_iters has 1 entries for 2 read_iolog files (one each)")
        self.refused(["--read_iolog=a.bin", "--merge_blktrace_scalars=50"],
                     "merge_blktrace_scalars does nothing without merge_blktrace_file=")
        self.refused(["--read_iolog=a.bin", "--merge_blktrace_file=m.bin", "--merge_blktrace_scalars=0"],
                     "merge_blktrace_scalars: '0' is not a number from 1 up")
        (self.tmp / "cut.bin").write_bytes(self.b[:-20])
        self.refused(["--read_iolog=a.bin:cut.bin", "--merge_blktrace_file=m.bin"],
                     "cut.bin: record 6: error: merge_blktrace_file: truncated: 28 of 48 bytes at byte 240")
        (self.tmp / "t.log").write_text("fio version 2 iolog\n")
        self.refused(["--read_iolog=t.log:a.bin", "--merge_blktrace_file=m.bin"],
                     "t.log: error: merge_blktrace_file: not a blktrace file")
        self.assertFalse((self.tmp / "m.bin").exists())

    def test_existing_data_is_never_replaced(self):
        (self.tmp / "keep.bin").write_bytes(b"user data")
        self.refused(["--read_iolog=a.bin:b.bin", "--merge_blktrace_file=keep.bin"],
                     "keep.bin: error: merge_blktrace_file: it exists and holds other data")
        self.assertEqual((self.tmp / "keep.bin").read_bytes(), b"user data")
        # Naming an input as the output would overwrite it: refused the same way.
        self.refused(["--read_iolog=a.bin:b.bin", "--merge_blktrace_file=b.bin"], "b.bin: error: merge_blktrace_file")
        self.assertEqual((self.tmp / "b.bin").read_bytes(), self.b)


def blktrace_unavailable():
    """Why blktrace cannot trace here, or "" when it can."""
    if not shutil.which("blktrace") or not shutil.which("losetup"):
        return "blktrace or losetup is not installed"
    if os.geteuid() != 0:
        return "blktrace needs root"
    if not os.path.isdir("/sys/kernel/debug/block"):
        return "debugfs is not mounted (mount -t debugfs none /sys/kernel/debug)"
    return ""


@unittest.skipUnless(shutil.which("fio-btrace2fio"), "fio-btrace2fio (Debian's fio package) is not installed")
class Btrace2fio(TmpDirCase):
    def test_its_job_file_runs(self):
        (self.tmp / "t.bin").write_bytes(synthetic_blktrace(300, 4_000_000))
        gen = subprocess.run(["fio-btrace2fio", "-f", "-t", "1", "-n", "1", "-d", str(self.tmp / "target"),
                              "-a", "size=1m", str(self.tmp / "t.bin")], capture_output=True, text=True)
        self.assertEqual(gen.returncode, 0, gen.stderr)
        self.assertIn("[pid4321]", gen.stdout)
        (self.tmp / "job.fio").write_text(gen.stdout)
        p = run(["job.fio", "--output-format=json"], cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        job = json.loads(p.stdout)["jobs"][0]
        self.assertGreater(job["read"]["total_ios"], 0)
        self.assertGreater(job["write"]["total_ios"], 0)
        self.assertEqual(job["job options"]["rwmixread"], "67")


if __name__ == "__main__":
    unittest.main()
