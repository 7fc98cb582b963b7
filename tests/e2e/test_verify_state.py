"""tests/e2e/test_verify_state.py - verify state files are fio 3.33's, against fio itself.

A verifying write job leaves local-JOB-N-verify.state (verify_state_save is on by
default, as fio's; a user's file by that name is left alone unless the option is
given), also when a --trigger stops it; fio and
ioplan each load the other's with verify_state_load=1 and verify the same
bytes (the blocks the run wrote, not the region), fio-verify-state reads
ioplan's, and the fixed fields ioplan writes are fio's for the same job.  A
state whose last writes were in flight stops both tools' verify at the same
block.  With two jobs (the second numjobs=2) the files bear fio's names: N is
the thread's index across all jobs.  A state that cannot be written (a read-only
working directory) is named in a warning and costs the run nothing, unless
verify_state_save=1 asked for it: then the job fails (exit 1).  Broken
state files: test_bad_runs.py.
"""
import json
import os
import re
import shutil
import signal
import struct
import subprocess
import unittest

from common import (BIN, FIO, TmpDirCase, fill_up, flip, held_at_first_open, run, run_fio, swappable_dir, tmpfs,
                    wait_for_stderr)
from test_mpi_merge import crc32c

HDR, FIXED, SLOT = 24, 152, 16
VERIFY_STATE = shutil.which("fio-verify-state")


def parse(data):
    """The header and payload of a state file as a dict (fio 3.33's verify-state.h layout)."""
    version, size, crc = struct.unpack_from("<QQQ", data)
    p = data[HDR:]
    no_comps, depth, nofiles, numberio, index, use64 = struct.unpack_from("<QIIQQQ", p)
    comps = [struct.unpack_from("<QQ", p, FIXED + i * SLOT) for i in range(no_comps)]
    return dict(version=version, size=size, crc=crc, no_comps=no_comps, depth=depth, nofiles=nofiles,
                numberio=numberio, index=index, use64=use64, random=p[40:88],
                name=p[88:152].split(b"\0")[0].decode(), comps=comps)


def reseal(payload):
    """A state file of this payload with a valid header: what another writer would produce."""
    return struct.pack("<QQQ", 3, len(payload), crc32c(payload)) + payload


@unittest.skipUnless(FIO, "fio 3.33 is not installed")
class FioStateFiles(TmpDirCase):
    # 400 KiB written of a 1 MiB file: a verify of the region would fail on what was never written.
    JOB = ["--name=a/b", "--filename=data", "--size=1m", "--bs=4k", "--verify=crc32c", "--iodepth=4",
           "--ioengine=libaio"]
    STATE = "local-a.b-0-verify.state"
    WRITE = ["--rw=write", "--io_size=400k", "--do_verify=0", "--verify_state_save=1", "--output=/dev/null"]
    # fio saves a state after its verify_only run too (verify_state_save defaults to 1 there): not here.
    # One read at a time: fio's stop rule counts completed reads, which lag behind the issued ones
    # by up to the verify run's iodepth; ioplan counts the blocks before the read (fio at iodepth=1).
    VERIFY = ["--rw=write", "--verify_only=1", "--verify_state_load=1", "--verify_state_save=0",
              "--ioengine=psync", "--iodepth=1", "--output-format=json"]

    def setUp(self):
        super().setUp()
        self.fio_dir, self.io_dir = self.tmp / "fio", self.tmp / "ioplan"
        self.fio_dir.mkdir()
        self.io_dir.mkdir()

    def write_both(self, extra=()):
        p = run_fio(self.JOB + self.WRITE + list(extra), cwd=self.fio_dir)
        self.assertEqual(p.returncode, 0, p.stderr)
        p = run(self.JOB + self.WRITE + list(extra), cwd=self.io_dir)
        self.assertEqual(p.returncode, 0, p.stderr)
        return (self.fio_dir / self.STATE).read_bytes(), (self.io_dir / self.STATE).read_bytes()

    def verified(self, tool, cwd, code=0, extra=(), job=None):
        p = tool((job or self.JOB) + self.VERIFY + list(extra), cwd=cwd)
        self.assertEqual(p.returncode, code, p.stderr)
        return json.loads(p.stdout[p.stdout.index("{"):])["jobs"][0]["read"]["io_bytes"]

    def test_a_sequential_job_writes_fios_bytes(self):
        theirs, ours = self.write_both()
        self.assertEqual(len(theirs), HDR + FIXED + 4 * SLOT)
        self.assertEqual(ours, theirs)
        f = parse(ours)
        self.assertEqual((f["version"], f["size"], f["depth"], f["nofiles"], f["numberio"], f["name"]),
                         (3, FIXED + 4 * SLOT, 4, 1, 100, "a/b"))
        self.assertEqual(f["comps"], [(0, o << 12) for o in (99, 98, 97, 96)])

    def test_a_random_job_has_fios_fields_but_its_own_offsets_and_no_random_state(self):
        theirs, ours = map(parse, self.write_both(["--rw=randwrite"]))
        for k in ("version", "size", "no_comps", "depth", "nofiles", "numberio", "index", "name"):
            self.assertEqual(ours[k], theirs[k], k)
        # fio puts its tausworthe offset generator's state there and never reads it back;
        # ioplan's generator is not fio's, so it writes zeroes, as fio does for a sequential job.
        self.assertNotEqual(theirs["random"], bytes(48))
        self.assertEqual((ours["use64"], ours["random"]), (0, bytes(48)))

    @unittest.skipUnless(VERIFY_STATE, "fio-verify-state is not installed")
    def test_fio_verify_state_reads_ioplans_file(self):
        self.assertEqual(run(self.JOB + self.WRITE, cwd=self.io_dir).returncode, 0)
        p = subprocess.run([VERIFY_STATE, self.STATE], cwd=self.io_dir, capture_output=True, text=True)
        self.assertEqual((p.returncode, p.stderr), (0, ""))
        self.assertIn("Name:\t\ta/b\nCompletions:\t4\nDepth:\t\t4\nNumber IOs:\t100\n", p.stdout)

    def test_ioplan_verifies_what_fio_wrote_and_fio_what_ioplan_wrote(self):
        self.write_both()
        # Without the state, ioplan checks the whole region and trips on what was never written.
        self.assertEqual(run(self.JOB + ["--rw=write", "--verify_only=1"], cwd=self.fio_dir).returncode, 1)
        for tool, cwd, who in ((run, self.fio_dir, "ioplan on fio's"), (run_fio, self.io_dir, "fio on ioplan's")):
            with self.subTest(who):
                self.assertEqual(self.verified(tool, cwd), 400 << 10)
                # Really checked: a byte flipped inside the written 400 KiB fails the verify.
                flip(cwd / "data", 8192 + 100)
                p = tool(self.JOB + self.VERIFY, cwd=cwd)
                self.assertNotEqual(p.returncode, 0, p.stdout)

    def test_random_writes_verify_whether_or_not_they_covered_the_region(self):
        # fio's verify_only replays its own random offsets; a verifying random job's offsets
        # are fio's in ioplan too (fio's random map), so ioplan replays fio's writes: a fio
        # state of random writes short of the region was refused ("random writes that
        # stopped before covering the region").  lfsr's too (FioStatesWithoutRandomMap).
        job = ["--rw=randwrite", "--do_verify=0", "--verify_state_save=1", "--output=/dev/null"]
        p = run_fio(self.JOB + job, cwd=self.fio_dir)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(parse((self.fio_dir / self.STATE).read_bytes())["numberio"], 256)
        self.assertEqual(self.verified(run, self.fio_dir, extra=["--rw=randwrite"]), 1 << 20)
        p = run_fio(self.JOB + job + ["--io_size=400k"], cwd=self.fio_dir)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(self.verified(run, self.fio_dir, extra=["--rw=randwrite"]), 400 << 10)

    def test_writes_without_a_random_map_are_checked_by_offset_as_fios(self):
        # norandommap and lfsr: fio keeps the writes in a tree by offset (a write over an
        # earlier one replaces it), its verify_only draws them again and reads them back in
        # that order, stopping by its rule at the first one not completed.  ioplan read the
        # region (norandommap, 256 writes: "offset 0: bad header magic", a block never
        # written, exit 1; fio: 157 blocks, exit 0) or refused the state (lfsr, 100 writes:
        # "random writes that stopped before covering the region"; fio: 99 blocks, the
        # in-order 100th not among the last completions).
        job = ["--do_verify=0", "--verify_state_save=1", "--output=/dev/null"]
        cases = {"norandommap": ["--rw=randwrite", "--norandommap"],
                 "lfsr": ["--rw=randwrite", "--random_generator=lfsr", "--io_size=400k"]}
        for name, extra in cases.items():
            for writer, base in ((run_fio, self.fio_dir), (run, self.io_dir)):
                with self.subTest(name, writer=writer.__name__):
                    d = base / name
                    d.mkdir()
                    p = writer(self.JOB + job + extra, cwd=d)
                    self.assertEqual(p.returncode, 0, p.stderr)
                    theirs = self.verified(run_fio, d, extra=extra)
                    self.assertGreater(theirs, 0)
                    self.assertEqual(self.verified(run, d, extra=extra), theirs)
                    # Really checked: a byte flipped in the last block written fails both at it.
                    last = parse((d / self.STATE).read_bytes())["comps"][0][1]
                    flip(d / "data", last + 100)
                    p = run_fio(self.JOB + self.VERIFY + extra, cwd=d)
                    self.assertIn(f"verify failed at file data offset {last},", p.stderr)
                    p = run(self.JOB + self.VERIFY + extra, cwd=d)
                    self.assertEqual(p.returncode, 1, p.stderr)
                    self.assertEqual(json.loads(p.stdout)["ioplan"]["jobs"][0]["errors"][0]["offset"], last)

    def test_ioplans_random_writes_short_of_the_region_verify_as_fios_do_their_own(self):
        # The power-cut test with random writes: 100 of 256 blocks written.  fio's verify_only
        # replays its writes in the order made and checks those (100 reads, exit 0, the
        # others never read); ioplan refused its own state ("random writes that stopped before
        # covering the region").  Its state (no random state in it: ioplan's offsets) now
        # replays ioplan's writes as fio's does its own, with fio's stop rule.
        job = ["--rw=randwrite", "--do_verify=0", "--verify_state_save=1", "--output=/dev/null",
               "--io_size=400k"]
        p = run_fio(self.JOB + job, cwd=self.fio_dir)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(self.verified(run_fio, self.fio_dir, extra=["--rw=randwrite"]), 400 << 10)
        p = run(self.JOB + job, cwd=self.io_dir)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(self.verified(run, self.io_dir, extra=["--rw=randwrite"]), 400 << 10)
        # The last write left out of the completions: it was in flight, and each check stops before it.
        for tool, d in ((run_fio, self.fio_dir), (run, self.io_dir)):
            state = (d / self.STATE).read_bytes()
            info = parse(state)
            last = info["comps"][0]
            p = bytearray(state[HDR:])
            struct.pack_into("<Q", p, 0, info["no_comps"] - 1)
            slots = [c for c in info["comps"] if c != last] + [(0, 0)]
            for i, c in enumerate(slots):
                struct.pack_into("<QQ", p, FIXED + i * SLOT, *c)
            (d / self.STATE).write_bytes(reseal(bytes(p)))
            self.assertEqual(self.verified(tool, d, extra=["--rw=randwrite"]), 99 * 4096, tool.__name__)
            (d / self.STATE).write_bytes(state)
        # Really checked: a byte flipped in a block written fails it.
        flip(self.io_dir / "data", last[1] + 100)
        p = run(self.JOB + self.VERIFY + ["--rw=randwrite"], cwd=self.io_dir)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertEqual(json.loads(p.stdout)["ioplan"]["jobs"][0]["errors"][0]["offset"], last[1])

    def test_writes_of_several_sizes_or_files_short_of_the_region_verify_as_fios(self):
        # fio's verify_only draws the writes again whatever their sizes and files, and checks
        # those up to the first not completed.  ioplan refused a state of several block sizes
        # ("verify_state_load: needs one write block size, a multiple of verify_interval") and
        # one of several files its writes did not cover ("writes to several files that stopped
        # before covering them"), exit 1; fio checked 50 and 100 writes, exit 0.
        # (the job, its last write read back: the newest with fio's random map, else the
        # last by file and offset)
        cases = {"bsrange": (["--filename=data", "--rw=randwrite", "--bsrange=4k-16k", "--number_ios=50"],
                             lambda comps: comps[0]),
                 "files": (["--filename=f0:f1:f2", "--rw=write", "--number_ios=100"], max)}
        unnamed = [a for a in self.JOB if not a.startswith("--filename=")]	# fio adds each filename= given
        job = ["--do_verify=0", "--verify_state_save=1", "--output=/dev/null"]
        for name, (extra, read_last) in cases.items():
            files = extra[0].split("=")[1].split(":")
            for writer, base in ((run_fio, self.fio_dir), (run, self.io_dir)):
                with self.subTest(name, writer=writer.__name__):
                    d = base / name
                    d.mkdir()
                    p = writer(unnamed + job + extra, cwd=d)
                    self.assertEqual(p.returncode, 0, p.stderr)
                    theirs = self.verified(run_fio, d, extra=extra, job=unnamed)
                    self.assertGreater(theirs, 0)
                    self.assertEqual(self.verified(run, d, extra=extra, job=unnamed), theirs)
                    # The last write read back left out of the completions: it was in flight,
                    # both stop before it.
                    state = (d / self.STATE).read_bytes()
                    info = parse(state)
                    last = read_last(info["comps"])
                    p = bytearray(state[HDR:])
                    struct.pack_into("<Q", p, 0, info["no_comps"] - 1)
                    for i, c in enumerate([c for c in info["comps"] if c != last] + [(0, 0)]):
                        struct.pack_into("<QQ", p, FIXED + i * SLOT, *c)
                    (d / self.STATE).write_bytes(reseal(bytes(p)))
                    cut = self.verified(run_fio, d, extra=extra, job=unnamed)
                    self.assertLess(cut, theirs)
                    self.assertEqual(self.verified(run, d, extra=extra, job=unnamed), cut)
                    # Really checked: a byte flipped in that block fails both at it.
                    (d / self.STATE).write_bytes(state)
                    flip(d / files[last[0]], last[1] + 100)
                    p = run_fio(unnamed + self.VERIFY + extra, cwd=d)
                    self.assertIn(f"verify failed at file {files[last[0]]} offset {last[1]},", p.stderr)
                    p = run(unnamed + self.VERIFY + extra, cwd=d)
                    self.assertEqual(p.returncode, 1, p.stderr)
                    self.assertEqual(json.loads(p.stdout)["ioplan"]["jobs"][0]["errors"][0]["offset"], last[1])

    def test_a_write_in_flight_stops_both_verifies_at_the_same_block(self):
        theirs, _ = self.write_both()
        # Completion of block 97 missing from the last 4: it was in flight when the run ended.
        p = bytearray(theirs[HDR:])
        struct.pack_into("<Q", p, 0, 3)
        slots = [s for s in parse(theirs)["comps"] if s[1] != 97 << 12] + [(0, 0)]
        for i, s in enumerate(slots):
            struct.pack_into("<QQ", p, FIXED + i * SLOT, *s)
        for d in (self.fio_dir, self.io_dir):
            (d / self.STATE).write_bytes(reseal(bytes(p)))
        self.assertEqual(self.verified(run_fio, self.fio_dir), 97 << 12)
        self.assertEqual(self.verified(run, self.io_dir), 97 << 12)


@unittest.skipUnless(FIO, "fio 3.33 is not installed")
class StateFileNames(TmpDirCase):
    JOBFILE = ("[global]\nsize=64k\nbs=4k\nverify=crc32c\nverify_state_save=1\nrw=write\n"
               "[one]\nfilename=one.dat\n[two]\nnumjobs=2\nfilename_format=two.$jobnum\n")

    def test_the_index_is_the_threads_across_all_jobs(self):
        listings = []
        for tool, sub in ((run_fio, "fio"), (run, "ioplan")):
            d = self.tmp / sub
            d.mkdir()
            (d / "j.fio").write_text(self.JOBFILE)
            p = tool(["j.fio", "--output=/dev/null"], cwd=d)
            self.assertEqual(p.returncode, 0, p.stderr)
            listings.append(sorted(n for n in os.listdir(d) if n.endswith("-verify.state")))
        self.assertEqual(listings[0], ["local-one-0-verify.state", "local-two-1-verify.state",
                                       "local-two-2-verify.state"])
        self.assertEqual(listings[1], listings[0])
        for sub in ("fio", "ioplan"):
            self.assertEqual([parse((self.tmp / sub / n).read_bytes())["index"] for n in listings[0]], [0, 1, 2])

@unittest.skipUnless(FIO, "fio 3.33 is not installed")
class WhenSaved(TmpDirCase):
    def dirs(self):
        made = (self.tmp / "fio", self.tmp / "ioplan")
        for d in made:
            d.mkdir()
        return made

    def test_saved_by_default_as_fio_and_a_users_file_is_left_with_a_warning(self):
        # fio's verify_state_save defaults to 1: every verifying write job leaves its state, which
        # a power-cut test's later verify_state_load=1 run needs.  ioplan saved only when asked.
        fio_dir, io_dir = self.dirs()
        job = ["--name=w", "--filename=data", "--size=64k", "--bs=4k", "--rw=randwrite", "--verify=crc32c",
               "--do_verify=0", "--output=/dev/null"]
        for tool, d in ((run_fio, fio_dir), (run, io_dir)):
            p = tool(job, cwd=d)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual(parse((d / "local-w-0-verify.state").read_bytes())["name"], "w")
        # the next run (unasked) replaces ioplan's own state; a user's file by the name stays,
        # with a warning, where verify_state_save=1 given refuses the run
        state = io_dir / "local-w-0-verify.state"
        p = run(job + ["--io_size=8k"], cwd=io_dir)
        self.assertEqual((p.returncode, parse(state.read_bytes())["numberio"]), (0, 2), p.stderr)
        state.write_text("precious")
        p = run(job[:-1], cwd=io_dir)  # the warning is the report's
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("warning: job 'w': verify_state_save (on by default, as fio's): local-w-0-verify.state "
                      "exists and ioplan did not write it", p.stdout + p.stderr)
        self.assertEqual(state.read_text(), "precious")
        p = run(job + ["--verify_state_save=1"], cwd=io_dir)
        self.assertEqual(p.returncode, 2)
        self.assertIn("refusing to replace it", p.stderr)
        self.assertEqual(state.read_text(), "precious")

    def test_a_users_file_that_appears_during_the_run_is_kept_and_said(self):
        # The preflight's warning covers a file there at the start; one that came while the job
        # ran was kept without a word, and the state the user expected silently not saved.  The
        # job runs until the test stops it (time_based, 30 s): the file comes once the progress
        # line shows writes done (well after set-up), then SIGINT ends the job, whose thread
        # saves its state at the end, interrupted or not.
        state = self.tmp / "local-w-0-verify.state"
        p = subprocess.Popen([BIN, "--name=w", "--filename=data", "--size=256k", "--bs=4k", "--rw=write",
                              "--rate=64k", "--time_based", "--runtime=30", "--verify=crc32c", "--do_verify=0",
                              "--eta=always"], cwd=self.tmp, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.addCleanup(lambda: p.poll() is None and (p.kill(), p.wait()))
        wait_for_stderr(p, until=lambda seen: re.search(r"\[w=[0-9.]+[kKMG]?i?B/s", seen))
        state.write_text("precious")
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=60)
        self.assertEqual(p.returncode, 1, err)  # an interrupted run's status (fio's 128 only as fio)
        self.assertIn("warning: job 'w': verify_state_save (on by default, as fio's): local-w-0-verify.state "
                      "appeared during the run and ioplan did not write it", (out + err).decode())
        self.assertEqual(state.read_text(), "precious")

    def test_a_state_that_cannot_be_written_is_named_and_the_run_keeps_its_results(self):
        # A read-only working directory: fio says "open state file: Read-only file system",
        # names local-w-0-verify.state and ends with error 0; ioplan named the job's data file.
        ro = tmpfs(self, "ro,size=1m")
        for tool, data in ((run_fio, self.tmp / "fio.data"), (run, self.tmp / "ioplan.data")):
            p = tool(["--name=w", f"--filename={data}", "--size=64k", "--bs=4k", "--rw=write",
                      "--verify=crc32c", "--output-format=json"], cwd=ro)
            self.assertEqual(p.returncode, 0, p.stderr)
            job = json.loads(p.stdout[p.stdout.index("{"):])["jobs"][0]
            self.assertEqual((job["error"], job["write"]["io_bytes"], job["read"]["io_bytes"]),
                             (0, 65536, 65536))
            self.assertIn("local-w-0-verify.state", p.stdout + p.stderr)
            self.assertNotIn(f"{data}: verify_state_save", p.stdout + p.stderr)
        # Saved by default, not asked for: a warning (the report's), not an error with exit 0.
        self.assertEqual(p.stderr, "")
        self.assertIn("job 'w': verify_state_save (on by default, as fio's): writing local-w-0-verify.state: "
                      "Read-only file system: this run's state is not saved",
                      "\n".join(json.loads(p.stdout)["ioplan"]["warnings"]))

    def test_a_state_asked_for_that_cannot_be_written_fails_the_job(self):
        # verify_state_save=1 given on a disk with no room for the state: fio says "failed to
        # write state file" and exits 0, and so did ioplan (an "error:" line, exit 0), so a
        # power-cut script went on to a verify_state_load run with no state to load.
        full = tmpfs(self, "size=64k")
        fill_up(full)
        p = run(["--name=w", f"--filename={self.tmp / 'data'}", "--size=64k", "--bs=4k", "--rw=write",
                 "--verify=crc32c", "--verify_state_save=1", f"--aux-path={full}", "--output-format=json"],
                cwd=self.tmp)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertEqual(p.stderr, f"ioplan: error: job 'w': verify_state_save: writing {full}/local-w-0-verify.state: "
                                   "No space left on device (errno 28)\n")
        job = json.loads(p.stdout)["jobs"][0]
        self.assertEqual((job["error"], job["write"]["io_bytes"], job["read"]["io_bytes"]), (28, 65536, 65536))

    def test_a_full_disk_leaves_the_previous_state_whole_not_a_cut_one(self):
        # The state was written in place after a truncate: a disk that filled meanwhile cut it
        # (4096 of its 8368 bytes here), unmarked, so every later run took it for a user's file
        # ("exists and ioplan did not write it"), saved nothing and said so until it was removed.
        full = tmpfs(self, "size=64k")
        state = full / "local-w-0-verify.state"
        job = ["--name=w", f"--filename={self.tmp / 'data'}", "--size=64k", "--bs=4k", "--rw=write",
               "--verify=crc32c", f"--aux-path={full}", "--output-format=json"]
        p = run(job, cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        before = state.read_bytes()
        self.assertEqual(len(before), 192)
        fill_up(full)
        deep = job + ["--ioengine=libaio", "--iodepth=512"]  # a state of 8368 bytes, more than the disk has
        p = run(deep, cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn(f"writing {state}: No space left on device: this run's state is not saved",
                      "\n".join(json.loads(p.stdout)["ioplan"]["warnings"]))
        self.assertEqual(state.read_bytes(), before, "the previous state was cut")
        self.assertEqual(sorted(f.name for f in full.iterdir()), ["filler", state.name])
        # Room again: the next run replaces the state, which it knows for its own.
        (full / "filler").unlink()
        p = run(deep, cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertNotIn("verify_state_save", "\n".join(json.loads(p.stdout)["ioplan"]["warnings"]))
        self.assertEqual((len(state.read_bytes()), parse(state.read_bytes())["numberio"]), (8368, 16))
        self.assertEqual([f.name for f in full.iterdir()], [state.name])

    def held_at_rename(self, job, during=None):
        """Runs job under gdb, stopped at the rename that puts the saved state in place; there
        runs the shell command during (as another process would, while this one is alive and
        holds its new state under the temporary name) and goes on, or is killed when during
        is None (SIGKILL: a crash at that point).  gdb's output."""
        after = ["-ex", f"shell {during}", "-ex", "delete", "-ex", "continue"] if during else ["-ex", "kill"]
        gdb = ["gdb", "-q", "-batch", "-ex", "set breakpoint pending on", "-ex", "break renameat2", "-ex", "run",
               *after, "--args", BIN, *job]
        p = subprocess.run(gdb, cwd=self.tmp, capture_output=True, text=True, timeout=120)
        self.assertIn("Breakpoint 1, ", p.stdout, p.stderr)
        self.assertIn(".local-w-0-verify.state.ioplan-new.", p.stdout)  # the state's rename, not another
        return p.stdout

    def temps(self):
        return sorted(f.name for f in self.tmp.iterdir() if ".ioplan-new." in f.name)

    @unittest.skipUnless(shutil.which("gdb"), "gdb is not installed")
    def test_a_temporary_a_killed_run_left_is_removed_by_the_next_save(self):
        # A run killed between naming its new state and renaming it over the old one left
        # .local-w-0-verify.state.ioplan-new.<random> for good: no later run removed it.
        job = ["--name=w", "--filename=data", "--size=64k", "--bs=4k", "--rw=write", "--verify=crc32c",
               "--output-format=terse"]
        self.held_at_rename(job)
        left = self.temps()
        self.assertEqual(len(left), 1, left)
        self.assertEqual(len((self.tmp / left[0]).read_bytes()), 192)  # the whole state, marked
        # What such a sweep must never take: a user's file by such a name (no mark: also what a
        # run killed while exchanging a user's file back would leave), a link by it.
        user = self.tmp / ".local-w-0-verify.state.ioplan-new.0123456789abcdef"
        user.write_bytes(b"the user's own")
        (self.tmp / ".x.ioplan-new.fedcba9876543210").symlink_to(left[0])
        (self.tmp / "data").unlink()  # the killed run's writes left it unmarked: the user's now
        p = run(job, cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(parse((self.tmp / "local-w-0-verify.state").read_bytes())["numberio"], 16)
        self.assertEqual(self.temps(), [".local-w-0-verify.state.ioplan-new.0123456789abcdef",
                                        ".x.ioplan-new.fedcba9876543210"])
        self.assertEqual(user.read_bytes(), b"the user's own")

    @unittest.skipUnless(shutil.which("gdb"), "gdb is not installed")
    def test_a_live_runs_temporary_is_not_taken_for_a_stale_one(self):
        # Run A is stopped with its new state under the temporary name, alive; run B saves its
        # own state in the same directory meanwhile, and leaves A's alone (A holds its lock).
        a = ["--name=w", "--filename=data", "--size=64k", "--bs=4k", "--rw=write", "--verify=crc32c",
             "--output-format=terse"]
        b = f"{BIN} --name=v --filename=data2 --size=64k --bs=4k --rw=write --verify=crc32c --output=/dev/null"
        out = self.held_at_rename(a, during=f"{b} && ls -a > during.txt")
        self.assertIn("exited normally", out)
        during = (self.tmp / "during.txt").read_text().split()
        self.assertIn("local-v-0-verify.state", during)
        self.assertEqual(len([n for n in during if n.startswith(".local-w-0-verify.state.ioplan-new.")]), 1, during)
        self.assertEqual(parse((self.tmp / "local-w-0-verify.state").read_bytes())["numberio"], 16)
        self.assertEqual(self.temps(), [])

    @unittest.skipIf(os.geteuid() != 0, "a directory of another user's needs root to make")
    @unittest.skipUnless(shutil.which("gdb"), "gdb is not installed")
    def test_a_directory_swapped_for_a_planted_link_before_the_save_is_not_followed(self):
        # --aux-path=shared/sub, another user's directory in a sticky shared one: that user can
        # put a link in its place at any moment.  The state's new file was made (O_TMPFILE),
        # named and renamed by path after the looks: gdb stops ioplan at the save's first open
        # and the swap is made there; the state went into root's directory the link named.
        sub, victim, swap = swappable_dir(self.tmp)
        job = ["--name=w", "--filename=data", "--size=64k", "--bs=4k", "--rw=write", "--verify=crc32c",
               "--aux-path=shared/sub", "--output-format=terse"]
        p = held_at_first_open(self, "safety_save_whole", [BIN, *job], self.tmp, swap)
        self.assertTrue(sub.is_symlink(), "the swap was not made")
        self.assertEqual(list(victim.iterdir()), [], "saved through the planted link")
        # Said as the other states not saved are (the warning carries the errno only).
        self.assertIn("verify_state_save (on by default, as fio's): writing shared/sub/local-w-0-verify.state: "
                      "Permission denied: this run's state is not saved", p.stderr)

    def test_a_triggered_stop_leaves_the_state_a_verify_run_checks_clean(self):
        # The power-cut test: --trigger-timeout stops the writes (fio saves every job's state
        # then), and a verify_state_load run checks exactly what was written, in both tools.
        fio_dir, io_dir = self.dirs()
        job = ["--name=w", "--filename=data", "--size=64m", "--bs=4k", "--rw=write", "--verify=crc32c",
               "--do_verify=0", "--rate_iops=2000", "--time_based", "--runtime=60"]
        for tool, d in ((run_fio, fio_dir), (run, io_dir)):
            p = tool(job + ["--trigger-timeout=1", "--trigger=touch fired", "--output=/dev/null"], cwd=d)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertTrue((d / "fired").exists())
            written = parse((d / "local-w-0-verify.state").read_bytes())["numberio"]
            self.assertGreater(written, 100)
            p = tool(["--name=w", "--filename=data", "--size=64m", "--bs=4k", "--rw=write",
                      "--verify=crc32c", "--verify_only=1", "--verify_state_load=1", "--verify_state_save=0",
                      "--output-format=json"], cwd=d)
            self.assertEqual(p.returncode, 0, p.stderr)
            job_out = json.loads(p.stdout[p.stdout.index("{"):])["jobs"][0]
            self.assertEqual(job_out["error"], 0)
            self.assertGreater(job_out["read"]["io_bytes"], 0)


if __name__ == "__main__":
    unittest.main()
