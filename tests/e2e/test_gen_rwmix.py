"""tests/e2e/test_gen_rwmix.py - a mixed job splits its bytes between reads and writes as fio 3.33's does.

What a user relies on: rw=randrw / rw=rw with rwmixread=N moves exactly the read
and write bytes fio moves for the same job file (fio's default repeatable seeds,
or randseed=), clone by clone, so figures compared with fio's (and fio's own
t0008 check) agree to the I/O.  fio draws a direction, then keeps it for a run
of I/Os, so the split is not simply N%: only fio's decision sequence gives it.
"""
import json
import shutil
import unittest

from common import FIO, TmpDirCase, run, run_fio

MIXES = {
    "randrw_50": "rw=randrw\nrwmixread=50\n",
    "randrw_70_bs8k": "rw=randrw\nrwmixread=70\nbs=8k\n",
    "randrw_25_seed": "rw=randrw\nrwmixread=25\nrandseed=12345\n",
    "rw_90": "rw=rw\nrwmixread=90\n",
    "rwmixwrite_35": "rw=randrw\nrwmixwrite=35\nrandseed=7\n",
}


def split(stdout):
    """[(job, read bytes, write bytes, read ios, write ios)] of a JSON report."""
    doc = json.loads(stdout[stdout.index("{"):])
    return [(j["jobname"], j["read"]["io_bytes"], j["write"]["io_bytes"], j["read"]["total_ios"],
             j["write"]["total_ios"]) for j in doc["jobs"]]


def job(body):
    # Two clones and a second job: fio seeds each thread from its thread number.
    return ("[global]\nioengine=null\nsize=16m\n"
            f"[a]\nnumjobs=2\n{body}[b]\n{body}")


@unittest.skipIf(FIO is None, "fio not installed")
class RwmixLikeFio(TmpDirCase):
    def both(self, name, text, own_dirs=False):
        """{tool: split(report)} of one job file, run in the test's directory or, with
        own_dirs, each tool in one of its own (the files it lays out are its own)."""
        out = {}
        for who in ("fio", "ioplan"):
            d = self.tmp / f"{name}-{who}" if own_dirs else self.tmp
            d.mkdir(exist_ok=True)
            path = d / f"{name}-{who}.fio"
            path.write_text(text)
            args = ["--output-format=json", str(path)]
            p = run_fio(args, cwd=d) if who == "fio" else run(args, cwd=d)
            self.assertEqual(p.returncode, 0, f"{who} {name}: {p.stderr}")
            out[who] = split(p.stdout)
        return out

    def test_read_write_split_is_fios_exactly(self):
        for name, body in MIXES.items():
            with self.subTest(name):
                out = self.both(name, job(body))
                self.assertEqual(out["ioplan"], out["fio"])
                # Not a trivially fixed split: the clones differ from each other.
                self.assertNotEqual(out["fio"][0][1:], out["fio"][1][1:])


    def test_a_holed_mix_over_files_ends_a_file_as_fio(self):
        # fio's fill finds a file done, for both directions, once the direction drawn
        # for it has no room there, holes (rw=rw:<n>) or not; ioplan applied that to
        # plain mixes only (readwrite:16k over three files, loops=2: 134 reads and 124
        # writes where fio makes 124 and 135).
        cases = {"holes_loops": "rw=readwrite:16k\nbsrange=4k-12k\nnrfiles=3\nloops=2\n",
                 "holes_io_size": "rw=rw:2\nbs=12k\nnrfiles=2\nio_size=3m\n"}
        for name, body in cases.items():
            with self.subTest(name):
                out = self.both(name, f"[m]\nioengine=psync\nsize=1m\n{body}", own_dirs=True)
                self.assertEqual(out["ioplan"], out["fio"])

    def test_a_mix_under_openfiles_decides_the_next_loops_first_direction_afresh(self):
        # fio decides a direction, finds every file done (its loop over), starts the next
        # loop re-seeded and decides again for its first I/O; under openfiles ioplan kept
        # the decision made before the loop was over (rw=rw bs=4k nrfiles=2 openfiles=1
        # loops=2 size=64k: the second loop began with a write at 0, fio's with reads).
        cases = {"two_files": "rw=rw\nbs=4k\nnrfiles=2\nopenfiles=1\nloops=2\nsize=64k\n",
                 "sizes": "rw=rw\nbs=4k,8k\nnrfiles=4\nopenfiles=3\nloops=2\n",
                 "drawn": "rw=rw\nnrfiles=5\nopenfiles=2\nfile_service_type=random\nloops=3\n"}
        for name, body in cases.items():
            with self.subTest(name):
                logs = {}
                for who in ("fio", "ioplan"):
                    d = self.tmp / f"{name}-{who}"
                    d.mkdir()
                    (d / "m.fio").write_text(f"[m]\nioengine=null\nsize=1m\n{body}write_iolog=m.log\n")
                    p = (run_fio if who == "fio" else run)(["--output-format=json", "m.fio"], cwd=d)
                    self.assertEqual(p.returncode, 0, f"{who} {name}: {p.stderr}")
                    logs[who] = iolog(d / "m.log")
                self.assertEqual(logs["ioplan"], logs["fio"])
                self.assertGreater(len(logs["fio"]), 20)

    def test_a_round_ended_by_its_sync_goes_on_as_fio(self):
        # A round whose drawn direction found no room ends there; its end_fsync (or
        # fsync_on_close, or a read-back) comes, and then fio's next loop starts, or the
        # job ends, although the other direction still had room.  ioplan went on in the
        # old round after the sync: 28 reads where fio makes 27, and 53 where the last
        # loop's io_size= ended the job (fio 50).
        cases = {"end_fsync": ("end_fsync=1\nloops=2\n", (27, 28)),
                 "fsync_on_close": ("fsync_on_close=1\nloops=2\n", (27, 28)),
                 "verify": ("verify=md5\nloops=2\n", (55, 28)),
                 "io_size": ("end_fsync=1\nloops=2\nio_size=700k\n", (50, 56))}
        for name, (body, ios) in cases.items():
            with self.subTest(name):
                text = f"[m]\nioengine=psync\nrw=rw\nbssplit=4k/50:16k/50\nsize=256k\n{body}"
                out = self.both(name, text, own_dirs=True)
                self.assertEqual(out["ioplan"], out["fio"])
                self.assertEqual(out["fio"][0][3:], ios, "fio's own counts moved")

    def test_a_rate_limited_mix_steers_as_fio(self):
        # fio's rate_ddir: the mix's pick if due, else the other direction if due, else
        # the one of the two due first, and never a direction of rwmix 0.  ioplan waited
        # for the pick: the user's job (jimsalterjrs/btrfs-testing's
        # fio-test-ratelimited.fio, 8m) read 33 blocks, fio 32; rwmixread=0 read half
        # its blocks, fio none.  Rates of 64 KiB every 21 ms or more keep fio's own
        # figures those of its schedules on a loaded machine.
        cases = {"ratelimited_25": ("rwmixread=25\nrate=1m,3m\nsize=8m\n", (32, 96)),
                 "ratelimited_70": ("rwmixread=70\nrate=3m,1m\nsize=4m\n", (48, 16)),
                 "ratelimited_0": ("rwmixread=0\nrate=4m\nsize=2m\n", (0, 32))}
        for name, (body, ios) in cases.items():
            with self.subTest(name):
                text = f"[j]\nfilename=r.dat\nrw=randrw\nbs=64k\nioengine=psync\n{body}"
                # Either tool held off the CPU past a due time draws by the mix instead, so a
                # loaded machine may move a run's counts: up to 3 runs for one on schedule (the
                # old choice missed the schedules' counts on every run).
                for attempt in range(3):
                    for d in self.tmp.glob(f"{name}-*"):
                        shutil.rmtree(d)
                    out = self.both(name, text, own_dirs=True)
                    if out["ioplan"][0][3:] == ios:
                        break
                self.assertEqual(out["ioplan"][0][3:], ios)
                if out["fio"][0][3:] == ios:
                    self.assertEqual(out["ioplan"], out["fio"])


class RwmixSequence(TmpDirCase):
    def test_fio_t0008_split(self):
        # fio's t0008 (rw=readwrite, 32 MiB, verify_backlog=1): fio 3.33 writes 4142
        # blocks of 4 KiB and reads 4050 (plus 4142 verify reads).  Null engine, same
        # decisions: the test holds without fio installed.
        text = "[foo]\nioengine=null\nbs=4k\nrw=readwrite\nsize=32m\n"
        p = run(["--output-format=json", "-"], cwd=self.tmp, input=text)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(split(p.stdout), [("foo", 4050 * 4096, 4142 * 4096, 4050, 4142)])


def iolog(path):
    """The (direction, offset, length) of each read and write an iolog (v3) lists, in order."""
    out = []
    for line in path.read_text().splitlines():
        w = line.split()
        if len(w) == 5 and w[2] in ("read", "write"):
            out.append((w[2], int(w[3]), int(w[4])))
    return out


@unittest.skipIf(FIO is None, "fio not installed")
class RoundsOfQueuedEnginesLikeFio(TmpDirCase):
    """fio's do_io ends a round once the I/Os its engine queued reach size=; a sync
    engine's I/Os, completed inside queue(), are not counted, so its rounds end only
    where the files run out.  A mix of sequential directions runs past size= before
    that, and each new round starts over re-seeded: the directions differ by engine."""

    def both(self, name, args):
        out = {}
        for who in ("fio", "ioplan"):
            d = self.tmp / f"{name}-{who}"
            d.mkdir()
            full = ["--name=j", f"--filename={d}/f", f"--write_iolog={d}/io.log", "--output-format=json", *args]
            p = run_fio(full, cwd=d) if who == "fio" else run(full, cwd=d)
            self.assertEqual(p.returncode, 0, f"{who} {name}: {p.stderr[-500:]}")
            job = json.loads(p.stdout[p.stdout.index("{"):])["jobs"][0]
            out[who] = ((job["read"]["total_ios"], job["write"]["total_ios"]), iolog(d / "io.log"))
        return out

    def test_sequential_mix_over_loops_by_engine(self):
        # rw=rw loops=2 bs=64k size=256k: fio 6 reads / 2 writes with libaio at any depth
        # (two rounds of R R R W), 7/1 with psync (one pass until the reads reach the end,
        # then three reads); ioplan did 7/1 with libaio at depth 1 and 4/4 at depth 8.
        base = ["--rw=rw", "--loops=2", "--bs=64k", "--size=256k"]
        for engine, depth, want in (("libaio", 1, (6, 2)), ("libaio", 8, (6, 2)), ("psync", 1, (7, 1))):
            with self.subTest(engine=engine, iodepth=depth):
                out = self.both(f"rw-{engine}-{depth}", [*base, f"--ioengine={engine}", f"--iodepth={depth}"])
                self.assertEqual(out["fio"][0], want)
                self.assertEqual(out["ioplan"], out["fio"])

    def test_queued_rounds_end_at_size(self):
        # Other mixes and a random job without a map, whose passes never end: each
        # round is size= (io_size= makes more of them), and a re-seeded round repeats
        # the first one's offsets.  ioplan, one long pass: 32/32 I/Os for fio's 40/24
        # (io_size=512k), 23/9 for 24/8 (rwmixread=70 loops=2), and 64 reads drawn on
        # where fio's second round repeats its first 32 (norandommap).
        cases = {
            "io_size": ["--rw=rw", "--bs=8k", "--size=128k", "--io_size=512k", "--iodepth=8"],
            "mix70": ["--rw=rw", "--bs=8k", "--size=128k", "--rwmixread=70", "--loops=2", "--iodepth=4"],
            "norandommap": ["--rw=randread", "--norandommap", "--bs=4k", "--size=128k", "--loops=2"],
            # randseed= without a re-seed per loop: the round that had to end first drew
            # a direction nothing used, and the next round started one draw late (w r w r
            # w w where fio goes r w r w r w w).
            "seeded": ["--rw=rw", "--bs=4k", "--size=256k", "--rwmixread=80", "--randseed=7", "--loops=2",
                       "--iodepth=4"],
        }
        for name, args in cases.items():
            with self.subTest(name):
                out = self.both(name, ["--ioengine=libaio", *args])
                self.assertEqual(out["ioplan"], out["fio"])
            if name == "norandommap":
                seq = out["fio"][1]
                self.assertEqual(seq[:32], seq[32:])

    def test_null_engine_queues_past_depth_one(self):
        # fio's null engine completes inside queue() at iodepth=1 only.
        for depth, want in ((1, (7, 1)), (4, (6, 2))):
            with self.subTest(iodepth=depth):
                out = self.both(f"null-{depth}", ["--ioengine=null", f"--iodepth={depth}", "--rw=rw", "--loops=2",
                                                  "--bs=64k", "--size=256k"])
                self.assertEqual(out["fio"][0], want)
                self.assertEqual(out["ioplan"][0], out["fio"][0])  # fio's null iolog lists requeued I/Os again


if __name__ == "__main__":
    unittest.main()
