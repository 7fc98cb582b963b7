"""tests/e2e/test_gen_strided.py - zonemode=strided against fio 3.33.

The same job files run through ioplan and fio, each writing its per-I/O
offsets (write_iops_log with log_offset=1).  Sequential and random jobs must
visit the same offsets in the same order (fio's draws over each zone, its map
or lfsr reset with the zone); uniform random ones must also stay inside each
zone and, with the random map or lfsr, touch each block of a zone once per
zonerange bytes, as fio's t/strided.py checks.  A skewed law (zipf, pareto,
normal) ranks the whole region from each zone's start, as fio's does.
"""
import json
import unittest

from common import FIO, TmpDirCase, loop_device, run, run_fio, showplan

KIB = 1024


def offsets(path):
    """The offset column of a per-I/O log, in order."""
    return [int(line.split(",")[4]) for line in path.read_text().splitlines() if line.strip()]


class StridedCase(TmpDirCase):
    def job(self, who, runner, opts):
        d = self.tmp / who
        d.mkdir(exist_ok=True)
        body = "".join(f"{k}={v}\n" for k, v in opts.items())
        (d / "job.fio").write_text(f"[z]\nzonemode=strided\nbs=4k\nlog_offset=1\nwrite_iops_log={d}/o\n{body}")
        p = runner([str(d / "job.fio"), "--output=" + str(d / "out.txt")], cwd=str(d))
        self.assertEqual(p.returncode, 0, who + ": " + p.stderr)
        got = offsets(d / "o_iops.1.log")
        (d / "o_iops.1.log").unlink()
        return got

    def both(self, opts):
        """{"ioplan": offsets, "fio": offsets or None} of one job."""
        out = {"ioplan": self.job("ioplan", run, opts), "fio": None}
        if FIO:
            out["fio"] = self.job("fio", run_fio, opts)
        return out

    @staticmethod
    def zones(offs, zrange, first=0):
        """The start of the zone (zonerange apart from first) of each offset."""
        return [first + (o - first) // zrange * zrange for o in offs]


class Sequential(StridedCase):
    CASES = [
        # zonesize < zonerange: jump; > zonerange: round the zone again.
        {"rw": "read", "size": "64k", "zonesize": "8k", "zonerange": "16k"},
        {"rw": "read", "size": "64k", "zonesize": "16k", "zonerange": "8k"},
        {"rw": "read", "size": "64k", "zonesize": "8k", "zonerange": "16k", "zoneskip": "8k"},
        {"rw": "read", "size": "64k", "zonesize": "8k", "zonerange": "16k", "io_size": "128k"},
        {"rw": "read:4k", "size": "64k", "zonesize": "8k", "zonerange": "16k"},
        # fio leaves a zone once its last I/O ended past it, the hole not counted: the
        # I/O after 56 KiB starts at 64 KiB, past the zone, then 0 again (ioplan wrapped first).
        {"rw": "read:4k", "size": "256k", "zonesize": "64k"},
        # A zonerange larger than the file: the next offset passes the file's end and
        # fio wraps it to the start (25 reads; ioplan's pass ended after 10).
        {"rw": "read:12k", "bs": "8k", "size": "200k", "zonesize": "128k", "zonerange": "256k"},
        # A mix whose drawn direction found the region's end: fio's next loop draws again
        # (ioplan went on with the failed direction: 4 reads, then a write, where fio reads 3).
        {"rw": "readwrite", "bs": "8k", "size": "1m", "zonesize": "100k", "loops": "2"},
        # A size no block divides: fio's zones wrap at the file's end (200k), not at the
        # last whole block's (192k), so the zone at 192k fails its fill and ends the job
        # (4 writes; ioplan wrapped and made 17).
        {"rw": "write", "bs": "12k", "size": "200k", "zonesize": "16k", "zonerange": "32k", "zoneskip": "64k"},
        {"rw": "rw", "bs": "16k", "size": "200k", "zonesize": "100k", "zonerange": "128k", "zoneskip": "64k"},
        # offset= with filesize=: the zones wrap at the file's end, back to offset.
        {"rw": "read", "size": "64k", "filesize": "64k", "offset": "16k", "zonesize": "12k", "zonerange": "8k"},
        # zonerange not dividing the region: fio stops at its end.
        {"rw": "write", "size": "64k", "zonesize": "8k", "zonerange": "12k"},
        # A pass that runs past the file's end is over, not the job: loops=2 does it twice
        # (ioplan stopped after the first, with holes or over two files).
        {"rw": "write:8k", "bs": "16k", "size": "200k", "zonesize": "64k", "zonerange": "128k", "loops": "2"},
        {"rw": "write", "bs": "8k", "size": "200k", "nrfiles": "2", "zonesize": "40k", "zonerange": "64k",
         "loops": "2"},
        # An I/O that would pass the file's end fails fio's fill, and the pass is over;
        # ioplan cut it at the end (4 KiB at 1020 KiB) and went on: 258 reads, not 256.
        {"rw": "read:12k", "bs": "8k", "size": "1m", "zonesize": "128k", "zonerange": "64k", "loops": "2"},
        # file_append's zones wrap to the file's end, where nothing fits: two zones, not four
        # (a file's: the null engine starts an append at 0, where fio starts it past size=).
        {"rw": "write", "size": "256k", "zonesize": "64k", "zonerange": "128k", "file_append": "1",
         "engines": ("psync",)},
    ]

    def test_offsets_as_fio(self):
        for c in self.CASES:
            for engine in c.get("engines", ("null", "psync")):
                opts = {k: v for k, v in c.items() if k != "engines"}
                opts["ioengine"] = engine
                if engine == "psync":
                    opts["filename"] = "f.dat"
                with self.subTest(**opts):
                    got = self.both(opts)
                    if got["fio"] is not None:
                        self.assertEqual(got["ioplan"], got["fio"])
        # fio 3.33's offsets for zonesize=16k zonerange=8k, in 4 KiB blocks.
        got = self.both(dict(self.CASES[1], ioengine="null"))
        self.assertEqual([o // (4 * KIB) for o in got["ioplan"]], [0, 1, 0, 1, 2, 3, 2, 3, 4, 5, 4, 5, 6, 7, 6, 7])

    def test_appends_fill_the_last_zone_to_the_files_end(self):
        # file_append in zones: a write may end anywhere up to the file's end, as fio's
        # (200k new, or the 1 MiB file plus 200k): 17 writes, the last at 184k past the
        # start.  ioplan stopped at the last whole block's end (192k) and made 16.
        opts = {"rw": "write", "bs": "12k", "size": "200k", "zonesize": "100k", "loops": "2",
                "file_append": "1", "ioengine": "psync"}
        for i, existing in enumerate((0, 1 << 20)):
            name = f"a{i}.dat"
            for who in ("ioplan", "fio"):
                (self.tmp / who).mkdir(exist_ok=True)
                if existing:
                    (self.tmp / who / name).write_bytes(bytes(existing))
            own = {"allow_existing_file_write": 1} if existing else {}
            with self.subTest(existing=existing):
                offs = self.job("ioplan", run, {**opts, **own, "filename": name})
                self.assertEqual([o - existing for o in offs], [k * 12 * KIB for k in range(9)] +
                                 [100 * KIB + k * 12 * KIB for k in range(8)])
                if FIO:
                    self.assertEqual(offs, self.job("fio", run_fio, {**opts, "filename": name}))


class Random(StridedCase):
    def check(self, offs, zsize, zrange, size, first=0, each_once=True):
        """Zone by zone as fio's t/strided.py: zonesize/bs I/Os per zone, inside it."""
        per_zone, per_range = zsize // (4 * KIB), zrange // (4 * KIB)
        zone = first
        for i in range(0, len(offs), per_zone):
            group = offs[i:i + per_zone]
            for o in group:
                self.assertTrue(zone <= o < zone + zrange, f"{o} outside the zone at {zone}")
            for k in range(0, len(group), per_range) if each_once else ():
                self.assertEqual(len(set(group[k:k + per_range])), len(group[k:k + per_range]))
            zone += zrange
            if zone >= size:
                zone = first

    def test_zones_as_fio(self):
        cases = [
            ({"zonesize": "16k", "zonerange": "16k"}, {}),
            ({"zonesize": "64k", "zonerange": "16k"}, {}),
            ({"zonesize": "8k", "zonerange": "32k"}, {}),
            ({"zonesize": "32k", "zonerange": "16k"}, {"random_generator": "lfsr"}),
            ({"zonesize": "32k", "zonerange": "16k"}, {"norandommap": 1}),
            ({"zonesize": "16k", "zonerange": "16k", "offset": "32k", "filesize": "128k"}, {}),
        ]
        for zone, extra in cases:
            opts = {"rw": "randread", "ioengine": "null", "size": "128k", "io_size": "512k", **zone, **extra}
            zsize, zrange = int(zone["zonesize"][:-1]) * KIB, int(zone["zonerange"][:-1]) * KIB
            first = int(zone.get("offset", "0k")[:-1]) * KIB
            with self.subTest(**opts):
                got = self.both(opts)
                self.assertEqual(len(got["ioplan"]), 128)
                self.check(got["ioplan"], zsize, zrange, 128 * KIB, first, "norandommap" not in extra)
                if got["fio"] is not None:
                    self.check(got["fio"], zsize, zrange, 128 * KIB, first, "norandommap" not in extra)
                    self.assertEqual(self.zones(got["ioplan"], zrange, first), self.zones(got["fio"], zrange, first))

    # fio draws a block of the zone's zonerange, whatever is left of the file: a draw
    # past the file's end fails the fill, which ends the file's pass (ioplan cut the
    # zone at the end and went on: 64 writes where fio makes 17 in the second case).
    CASES = [
        {"rw": "randwrite", "size": "256k", "zonesize": "64k", "zonerange": "128k"},
        {"rw": "randwrite", "size": "256k", "zonesize": "64k", "zonerange": "128k", "zoneskip": "64k"},
        {"rw": "randwrite", "size": "256k", "zonesize": "64k", "zonerange": "128k", "loops": "2"},
        {"rw": "randwrite", "size": "256k", "zonesize": "128k", "zonerange": "64k"},
        {"rw": "randwrite", "size": "256k", "zonesize": "64k", "zonerange": "128k", "norandommap": "1"},
        {"rw": "randwrite", "bsrange": "4k-16k", "size": "256k", "zonesize": "64k", "zonerange": "128k"},
        {"rw": "randwrite", "size": "256k", "zonesize": "64k", "zonerange": "128k", "random_generator": "lfsr"},
        {"rw": "randrw", "size": "256k", "zonesize": "64k", "zonerange": "128k", "rwmixread": "30"},
        {"rw": "randread", "bs": "8k", "size": "1m", "zonesize": "100k", "zonerange": "256k", "zoneskip": "32k"},
        {"rw": "randread", "bssplit": "4k/50:16k/50", "size": "512k", "zonesize": "96k", "zonerange": "128k",
         "loops": "3"},
        {"rw": "randwrite", "size": "1m", "zonesize": "64k", "zonerange": "128k", "zoneskip": "32k",
         "file_append": "1"},
        {"rw": "randwrite", "bs": "8k", "size": "1m", "offset": "64k", "zonesize": "64k", "zonerange": "128k"},
        # A run across a zone's end: fio's map of the zone's blocks ends on a word's end
        # (64 blocks) and the run goes on into the heap word after it, which no reset
        # clears, so only the first such run passes the zone's end; with three words
        # that word is malloc's next chunk header and none does.  ioplan let every run
        # pass: 144 writes where fio makes 153, 435 where it makes 454.
        {"rw": "randwrite", "bsrange": "2k-16k", "size": "1m", "zonesize": "128k", "zonerange": "128k"},
        {"rw": "randwrite", "bsrange": "2k-16k", "size": "3m", "zonesize": "384k", "zonerange": "384k"},
    ]

    def test_offsets_as_fio(self):
        if not FIO:
            self.skipTest("fio not installed")
        for i, c in enumerate(self.CASES):
            opts = dict(c, ioengine="psync", filename=f"r{i}.dat")  # each laid out by the job
            with self.subTest(**opts):
                got = self.both(opts)
                self.assertEqual(got["ioplan"], got["fio"])
                if i == 1:
                    self.assertEqual(len(got["ioplan"]), 17)

    # A skewed law's rank covers the whole region, counted from the zone's start
    # (fio's file_offset): in the zones after the first, the draws that land past
    # the file's end fail the fill and end the file's pass.  ioplan folded each
    # rank into the zone and went on: 256 writes where fio makes 33.
    LAWS = [
        ({"rw": "randwrite", "size": "1m", "zonesize": "64k", "zonerange": "128k"}, "pareto:0.5", 33),
        ({"rw": "randread", "size": "1m", "zonesize": "64k", "zonerange": "256k", "zoneskip": "64k"},
         "zipf:1.2", None),
        ({"rw": "randwrite", "bsrange": "4k-16k", "size": "1m", "zonesize": "128k", "zonerange": "128k"},
         "normal:20", None),
        ({"rw": "randrw", "size": "1m", "nrfiles": "2", "zonesize": "64k", "zonerange": "128k"},
         "zipf:1.2:0.3", None),
        ({"rw": "randwrite", "size": "512k", "zonesize": "256k", "zonerange": "128k", "loops": "2"},
         "pareto:0.3", None),
        # random_distribution=zoned is fio's uniform draw over a share of the zone's
        # blocks: past the file's end it fails the fill too (ioplan made 256 here).
        ({"rw": "randwrite", "size": "1m", "zonesize": "64k", "zonerange": "256k", "zoneskip": "64k"},
         "zoned:30/20:70/80", None),
        ({"rw": "randrw", "bsrange": "4k-16k", "size": "1m", "nrfiles": "2", "zonesize": "64k",
          "zonerange": "128k"}, "zoned:60/20:40/80", None),
    ]

    def test_random_distributions_as_fio(self):
        if not FIO:
            self.skipTest("fio not installed")
        for i, (c, law, ios) in enumerate(self.LAWS):
            opts = dict(c, random_distribution=law, ioengine="psync", filename_format=f"l{i}.$filenum")
            with self.subTest(**opts):
                got = self.both(opts)
                self.assertEqual(got["ioplan"], got["fio"])
                if ios:
                    self.assertEqual(len(got["ioplan"]), ios)

    def test_lfsr_repeats_its_order_in_every_zone(self):
        # fio restarts its lfsr from the same seed for each zone.
        opts = {"rw": "randread", "ioengine": "null", "size": "64k", "zonesize": "16k", "zonerange": "16k",
                "random_generator": "lfsr"}
        got = self.both(opts)
        for who, offs in got.items():
            if offs is None:
                continue
            with self.subTest(who=who):
                rel = [[o - z for o, z in zip(offs[i:i + 4], self.zones(offs[i:i + 4], 16 * KIB))]
                       for i in range(0, len(offs), 4)]
                self.assertEqual(len(rel), 4)
                self.assertTrue(all(r == rel[0] for r in rel), rel)


def iolog_ios(path):
    """(direction, offset, length) of each I/O in a write_iolog, in order."""
    out = []
    for line in path.read_text().splitlines():
        f = line.split()
        if len(f) == 5 and f[2] in ("read", "write", "trim"):
            out.append((f[2], int(f[3]), int(f[4])))
    return out


class ZoneStartsAfresh(TmpDirCase):
    """fio's fio_file_reset, at each zone (and every zonerange bytes), forgets the
    last I/O of every direction (last_start = -1): trimwrite's next direction is
    decided afresh, and rw_sequencer=identical's repeat starts at the zone's start.
    ioplan kept the last starts across zones: rw=trimwrite zonesize=50k
    zonerange=128k bs=8k trimmed at 0 again once the zones wrapped (137 I/Os,
    fio 132), and rw=randread:3 rw_sequencer=identical zonesize=100k ended the job
    at the second zone (13 reads, fio 128)."""

    CASES = [
        ({"rw": "trimwrite", "bs": "8k", "zonesize": "50k", "zonerange": "128k"}, 132),
        ({"rw": "trimwrite", "bs": "4k,8k,16k", "zonesize": "64k", "zonerange": "100k", "zoneskip": "30k"},
         131),
        ({"rw": "trimwrite", "bs": "8k", "zonesize": "100k", "zoneskip": "28k"}, 135),
        ({"rw": "randread:3", "rw_sequencer": "identical", "bs": "8k", "zonesize": "100k"}, 128),
        ({"rw": "randrw:3", "rw_sequencer": "identical", "bs": "8k", "zonesize": "50k",
          "zonerange": "128k"}, 128),
    ]

    def ios(self, runner, who, opts):
        d = self.tmp / who
        d.mkdir()
        args = ["--name=z", "--filename=f", "--size=1m", "--ioengine=null", "--zonemode=strided",
                "--write_iolog=log", "--output=out.txt", *(f"--{k}={v}" for k, v in opts.items())]
        p = runner(args, cwd=str(d))
        self.assertEqual(p.returncode, 0, who + ": " + p.stderr)
        return iolog_ios(d / "log")

    def test_ios_as_fio(self):
        for i, (opts, n) in enumerate(self.CASES):
            with self.subTest(**opts):
                got = self.ios(run, f"ioplan{i}", opts)
                self.assertEqual(len(got), n)
                if FIO:
                    self.assertEqual(got, self.ios(run_fio, f"fio{i}", opts))


class ZonesPastTheRegion(StridedCase):
    """In a file larger than size= (one that exists, a device) fio's zones walk on
    to the file's end, not the region's: size= bounds the bytes moved, not where
    the zones go.  ioplan wrapped at the region's end and read its first zones
    again: 256 reads in 0-832 KiB of a 4 MiB file where fio's go up to 3.8 MiB."""

    FILE = 1 << 20
    CASES = [
        ({"rw": "read", "size": "256k", "zonesize": "16k", "zonerange": "64k"}, 64),
        ({"rw": "randread", "size": "256k", "zonesize": "16k", "zoneskip": "48k", "loops": "2"}, 128),
        ({"rw": "randread", "size": "256k", "offset": "128k", "zonesize": "16k", "zonerange": "64k",
          "random_distribution": "zipf:1.1"}, None),
        # Each write read back: ioplan in offset order, fio in the order written.
        ({"rw": "randwrite", "size": "256k", "zonesize": "16k", "zoneskip": "48k", "verify": "crc32c"}, 64),
        # A drawn length must fit the region (fio's io_u_fits): the first zone past it ends the job.
        ({"rw": "read", "bsrange": "4k-16k", "size": "256k", "zonesize": "16k", "zonerange": "64k"}, None),
        # There a mix's fill fails: fio starts the next loop and draws the direction again.
        ({"rw": "rw", "bsrange": "4k-16k", "size": "256k", "zonesize": "16k", "zoneskip": "48k", "loops": "2"},
         None),
    ]

    def run_both(self, opts, prepare):
        """Offsets of opts run by ioplan and fio, each in its own directory set up by prepare(dir)."""
        got = {}
        for who, runner in (("ioplan", run), ("fio", run_fio)) if FIO else (("ioplan", run),):
            (self.tmp / who).mkdir(exist_ok=True)
            prepare(self.tmp / who)
            writes = "write" in opts["rw"] or opts["rw"] in ("rw", "readwrite", "randrw")
            own = {"allow_existing_file_write": 1} if who == "ioplan" and writes else {}
            got[who] = self.job(who, runner, {**opts, **own})
        return got

    def test_zones_walk_to_the_files_end_as_fio(self):
        for opts, ios in self.CASES:
            opts = dict(opts, ioengine="psync", filename="f.dat")
            with self.subTest(**opts):
                got = self.run_both(opts, lambda d: (d / "f.dat").write_bytes(bytes(self.FILE)))
                offs = got["ioplan"]
                if ios:
                    self.assertEqual(len(offs), 2 * ios if "verify" in opts else ios)
                    self.assertGreaterEqual(max(offs), self.FILE * 3 // 4, "the zones never left the region")
                else:
                    self.assertTrue(offs)
                if "bsrange" in opts:
                    self.assertLess(max(offs), 256 * KIB)
                self.assertLess(max(offs), self.FILE)
                if "verify" in opts:
                    self.assertEqual(sorted(offs[ios:]), sorted(offs[:ios]))
                if FIO:
                    self.assertEqual(offs[:ios] if "verify" in opts else offs, got["fio"][:ios or None])
                    self.assertEqual(sorted(offs), sorted(got["fio"]))

    def test_zones_walk_a_device(self):
        dev = loop_device(self, 8 << 20)
        opts = {"rw": "randread", "size": "1m", "zonesize": "64k", "zoneskip": "448k", "direct": 1,
                "ioengine": "psync", "filename": dev}
        got = self.run_both(opts, lambda d: None)
        # Sixteen zones 512 KiB apart over the 8 MiB device, sixteen blocks read in each.
        self.assertEqual(sorted({o // (512 * KIB) for o in got["ioplan"]}), list(range(16)))
        self.assertEqual(len(got["ioplan"]), 256)
        if FIO:
            self.assertEqual(got["ioplan"], got["fio"])


class ZonesTurnedOff(TmpDirCase):
    """fio's fixup_options turns strided zones off where open_files > 1: openfiles=
    as given for a job's first thread, and the job's file count for each later
    clone, fixed up again after its copy (nrfiles=5 numjobs=3: the first clone
    makes 163 writes in zones, the others 255 without)."""

    JOB = ["--rw=write", "--bs=8k", "--size=2m", "--nrfiles=5", "--zonemode=strided", "--zonesize=128k",
           "--zonerange=128k", "--zoneskip=64k", "--ioengine=psync", "--output-format=json"]

    def writes(self, runner, who, extra):
        d = self.tmp / who
        d.mkdir()
        p = runner(["--name=j", f"--directory={d}", *self.JOB, *extra])
        self.assertEqual(p.returncode, 0, p.stderr)
        return [j["write"]["total_ios"] for j in json.loads(p.stdout[p.stdout.index("{"):])["jobs"]]

    def test_counts_and_plan_as_fio(self):
        cases = [(["--numjobs=3"], [163, 255, 255], [None, True, True]),
                 (["--openfiles=2"], [255], [True]),
                 (["--numjobs=2", "--openfiles=1"], [163, 163], [None, None])]
        for i, (extra, want, off) in enumerate(cases):
            with self.subTest(extra=extra):
                self.assertEqual(self.writes(run, f"ioplan{i}", extra), want)
                if FIO:
                    self.assertEqual(self.writes(run_fio, f"fio{i}", extra), want)
                plan = showplan(["--name=j", f"--directory={self.tmp}", *self.JOB, *extra])
                clones = plan["groups"][0]["jobs"][0]["clones"]
                self.assertEqual([c.get("zones_off") for c in clones], off)


class FilesizeRegion(TmpDirCase):
    """filesize= sets the file's length: the region runs from offset= to its end
    and size= is the job's amount (t/strided.py's offset cases rely on it)."""

    def offsets_of(self, runner, who, args):
        d = self.tmp / who
        d.mkdir()
        p = runner(["--name=q", "--filename=qf", "--rw=read", "--bs=4k", "--write_iops_log=q", "--log_offset=1",
                    "--output=out.txt", *args], cwd=str(d))
        self.assertEqual(p.returncode, 0, who + ": " + p.stderr)
        logs = sorted(d.glob("q_iops.*.log"))
        return [offsets(x) for x in logs], (d / "qf").stat().st_size

    def test_regions_as_fio(self):
        cases = [
            # fio 3.33: 8 blocks from 32k, the file stays 64k.
            (["--filesize=64k", "--size=64k", "--offset=32k"], [[k * 4 * KIB for k in range(8, 16)]]),
            # size= bounds each clone's amount: two quarters that never overlap.
            (["--filesize=64k", "--size=16k", "--offset_increment=16k", "--numjobs=2"],
             [[k * 4 * KIB for k in range(0, 4)], [k * 4 * KIB for k in range(4, 8)]]),
        ]
        for i, (args, want) in enumerate(cases):
            with self.subTest(args=args):
                got, size = self.offsets_of(run, f"ioplan{i}", args)
                self.assertEqual(got, want)
                self.assertEqual(size, 64 * KIB)
                if FIO:
                    self.assertEqual(self.offsets_of(run_fio, f"fio{i}", args), (got, size))


if __name__ == "__main__":
    unittest.main()
