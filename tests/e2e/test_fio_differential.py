"""tests/e2e/test_fio_differential.py - the same job files through fio 3.33 and ioplan.

Size-bound jobs (null engine or small psync files in a private directory) so
that the amounts are deterministic; compared: terse line and field counts,
fields 3-6 (name, group, error, read KiB; for mixed jobs the read+write sum),
io_kbytes and total_ios, group ids, and that every key path of fio's JSON job
objects exists in ioplan's with the same JSON type.
"""
import json
import re
import unittest

from common import FIO, ROOT, TmpDirCase, run, run_fio

NULL = "[global]\nioengine=null\nsize=4m\n"
PSYNC = "[global]\nioengine=psync\nsize=2m\ndirectory={dir}\n"
CASES = {
    "groups": NULL + "[a]\nrw=read\n[b]\nrw=write\nstonewall\n[c]\nrw=randread\nnew_group\n",
    "numjobs": NULL + "[a]\nrw=randread\nnumjobs=3\n",
    "group_reporting": NULL + "[a]\nrw=read\nnumjobs=3\ngroup_reporting\n[b]\nrw=write\nstonewall\n",
    "mixed": NULL + "[m]\nrw=randrw\nrwmixread=70\nbs=8k\n",
    # not a range: 4 KiB reads and 16 KiB writes, as fio's parser splits at '-'
    "bs_dash_per_direction": NULL + "[d]\nrw=randrw\nbs=4k-16k\nsize=1m\n",
    "bssplit": NULL + "[s]\nrw=randread\nbssplit=4k/50:64k/50\nsize=16m\n",
    "seq_mixed": NULL + "[m]\nrw=rw\n",
    "files": PSYNC + "[f]\nrw=randread\nnrfiles=3\n",
    "psync_write": PSYNC + "[w]\nrw=write\nbs=64k\n[r]\nrw=read\nstonewall\n",
    "shared_file": PSYNC + "[w]\nrw=write\nfilename=shared\n[r]\nrw=randread\nfilename=shared\nstonewall\n",
    "libaio": PSYNC.replace("psync", "libaio") + "[q]\nrw=randread\niodepth=8\ndirect=1\n",
    # fio counts the verify read-back as reads: r/w 2 MiB / 2 MiB, 512 + 512 I/Os.
    "write_verify": PSYNC + "[v]\nrw=randwrite\nbs=4k\nverify=crc32c\n",
    # fio caps size= at what the files hold: drawn offsets over files smaller than
    # size= move the files' bytes (ioplan moved size=, 2 MiB, over 308 KiB of files).
    "norandommap_small_files": PSYNC + "[n]\nrw=randread\nnorandommap=1\nnrfiles=2\nfilesize=128k-256k\n",
    "norandommap_mixed_small_file": PSYNC + "[m]\nrw=randrw\nnorandommap=1\nfilesize=128k\n",
    # size=N% is of filesize= (fio's setup_files), not of the file laid out at that share
    # (ioplan read 64 KiB of 128); 100% is the file from offset= to its end.  (Past 100%
    # is refused: fio reads a size of almost 2^64 bytes, which cuts an existing file to 0.)
    "size_pct_of_filesize": PSYNC + "[p]\nrw=read\nfilesize=256k\nsize=50%\n[q]\nrw=read\nfilesize=256k\n"
                            "size=100%\noffset=64k\nstonewall\n",
    # The null engine moves no data, but fio issues and counts its verify read-back
    # (FIO_FAKEIO skips only the check): r/w 256/256 KiB (ioplan read nothing back).
    "null_verify": NULL + "[v]\nrw=randwrite\nsize=256k\nverify=md5\niodepth=4\n"
                   "[b]\nrw=write\nsize=256k\nverify=crc32c\nverify_backlog=8\nstonewall\n",
    # randseed= turns fio's rand_repeatable off (after it drew its seeds): a later loop goes
    # on with the draws instead of repeating loop 1 (ioplan repeated it: r/w 56/272 KiB
    # against fio's 32/160 in the first job, 24/24 I/Os against 27/21 in the second).
    "randseed_loops": PSYNC + "[x]\nrw=randrw\nbs=4k,8k\nsize=256k\nrwmixread=30\nrandseed=22280\nloops=2\n"
                      "[s]\nrw=rw\nsize=64k\nrandseed=5\nloops=3\nstonewall\n",
    # A verified round clears fio's "files done": the random map that ended round 1 early
    # (8 KiB writes drawn on a 4 KiB map) leaves size= short, so fio writes a second round;
    # ioplan stopped after one (r/w 232/232 KiB against fio's 464/464).
    "verify_round_short_of_size": PSYNC + "[v]\nrw=randwrite\nbs=4k,8k\nsize=512k\nverify=md5\n",
    # A mix whose round paused at its end (read-back, end_fsync) starts the next loop
    # re-seeded before its first direction draw, so the round repeats the first one
    # (ioplan drew that direction first: 80/43 I/Os against fio's 58/30, and 37/43 against 28/30).
    "randrw_round_after_pause": PSYNC + "[v]\nrw=randrw\nbs=4k,8k\nsize=512k\nverify=md5\nloops=2\n"
                                "[e]\nrw=randrw\nbs=4k,8k\nsize=512k\nend_fsync=1\nloops=2\nstonewall\n",
    # fio's blockalign apart from the block size turns norandommap on, and a random
    # writer without a map counts io_size=, not size=, per round: 21 writes of
    # 16 KiB at depth 2 (ioplan ended rounds at size= and stopped at 20).
    "blockalign_writes_to_io_size": NULL + "[w]\nrw=randwrite\nbs=16k\nblockalign=4k\nsize=64k\n"
                                    "io_size=333k\niodepth=2\n",
    # fio 3.33 names each job after its section, whatever name= [global] sets.
    "global_name": NULL + "name=g\n[file1]\nrw=read\n[file2]\nrw=write\nname=own\n",
}
# Random block sizes: the byte count is fixed, how many I/Os carry it is not
# (fio also trims a large I/O where its random map has partly used blocks).
IOS_VARY = {"bssplit"}
SEEDS = ("fio_setting.txt", "fiowrite.ini", "fioread.ini", "fioreadwrite.ini")


def key_paths(obj, prefix=""):
    """{path: json type} of every key below obj (lists: their first element)."""
    out = {}
    if isinstance(obj, dict):
        for k, v in obj.items():
            p = f"{prefix}/{k}"
            out[p] = type(v).__name__ if not isinstance(v, (int, float)) or isinstance(v, bool) else "number"
            out.update(key_paths(v, p))
    elif isinstance(obj, list) and obj:
        out.update(key_paths(obj[0], prefix + "[]"))
    return out


@unittest.skipIf(FIO is None, "fio not installed")
class FioDifferential(TmpDirCase):
    def seed_text(self, name):
        text = (ROOT / "examples" / name).read_text()
        text = re.sub(r"(?m)^(size|runtime|directory|ioengine|iodepth)=.*$", "", text)
        return "[global]\nioengine=null\nsize=4m\n" + text

    def job_run(self, who, name, job, args=(), prepare=None):
        """(CompletedProcess, its directory) of job.fio run by fio or ioplan in tmp/NAME-WHO,
        which prepare(dir) may fill first; exit status 0 is asserted."""
        d = self.tmp / f"{name}-{who}"
        d.mkdir()
        if prepare:
            prepare(d)
        (d / "job.fio").write_text(job)
        p = (run_fio if who == "fio" else run)([*args, "job.fio"], cwd=d)
        self.assertEqual(p.returncode, 0, f"{who}: {p.stderr[-500:]}")
        return p, d

    def both(self, name, text):
        outs = {}
        for who in ("fio", "ioplan"):
            d = self.tmp / f"{name}-{who}"
            d.mkdir()
            job = d / "job.fio"
            job.write_text(text.replace("{dir}", str(d)))
            args = ["--output-format=terse,json", str(job)]
            p = run_fio(args, cwd=d) if who == "fio" else run(args, cwd=d)
            self.assertEqual(p.returncode, 0, f"{who} {name}: {p.stderr}")
            lines = p.stdout.split("\n")
            terse = [l for l in lines if l.startswith("3;")]
            doc = json.loads(p.stdout[p.stdout.index("{"):])
            outs[who] = (terse, doc)
        return outs

    def compare(self, name, text):
        outs = self.both(name, text)
        (ft, fj), (it, ij) = outs["fio"], outs["ioplan"]
        self.assertEqual(len(it), len(ft), "terse lines")
        for fl, il in zip(ft, it):
            f, i = fl.split(";"), il.split(";")
            self.assertEqual(len(i), len(f), "terse fields")
            self.assertEqual(i[2:5], f[2:5], "name, group, error")
            mixed = int(f[5]) and int(f[46])
            if mixed:
                self.assertEqual(int(i[5]) + int(i[46]), int(f[5]) + int(f[46]))
            else:
                self.assertEqual(i[5], f[5], "read KiB")
        for fjob, ijob in zip(fj["jobs"], ij["jobs"]):
            self.assertEqual((ijob["jobname"], ijob["groupid"]), (fjob["jobname"], fjob["groupid"]))
            # fio has no estimate before 3 s of the run (INT_MAX), a finished job's is 0 after:
            # each tool against its own elapsed time (a loaded machine can take fio past 3 s).
            for who, job in (("fio", fjob), ("ioplan", ijob)):
                self.assertEqual(job["eta"], 0 if job["elapsed"] >= 3 else 2147483647, f"{who} eta")
            total = lambda j, k: sum(j[d][k] for d in ("read", "write", "trim"))
            self.assertEqual(total(ijob, "io_kbytes"), total(fjob, "io_kbytes"))
            if name not in IOS_VARY:
                self.assertEqual(total(ijob, "total_ios"), total(fjob, "total_ios"))
            fp, ip = key_paths(fjob), key_paths(ijob)
            missing = {p: t for p, t in fp.items() if p not in ip}
            self.assertEqual(missing, {}, "fio keys missing in ioplan's job object")
            wrong = {p: (t, ip[p]) for p, t in fp.items() if ip[p] != t}
            self.assertEqual(wrong, {}, "JSON types differ")
        self.assertEqual(len(ij["jobs"]), len(fj["jobs"]))

    def test_job_files(self):
        cases = dict(CASES)
        cases.update({s: self.seed_text(s) for s in SEEDS})
        self.assertGreaterEqual(len(cases), 12)
        for name, text in cases.items():
            with self.subTest(job=name):
                self.compare(name, text)

    def test_slow_rate_meets_ratemin_as_in_fio(self):
        # fio's examples/1mbs_clients.fio: rate=1250 B/s of 4 KiB blocks is one I/O every
        # 3.3 s, which fio judges against ratemin=1024 between completions, not per 1 s cycle.
        # Shrunk to run in seconds: small files, no start delays, runtime=4.
        src = ROOT / "build" / "fio-src" / "examples" / "1mbs_clients.fio"
        if not src.exists():
            self.skipTest("fio's examples are not unpacked (make fio-examples)")
        text = re.sub(r"(?m)^startdelay=.*$", "", src.read_text()).replace("size=32m", "size=64k\nruntime=4")
        for who in ("fio", "ioplan"):
            d = self.tmp / who
            (d / "tmp").mkdir(parents=True)
            (d / "job.fio").write_text(text)
            args = ["--output-format=terse", "job.fio"]
            p = run_fio(args, cwd=d) if who == "fio" else run(args, cwd=d)
            self.assertEqual(p.returncode, 0, f"{who}: {p.stderr[-500:]}")
            errors = [l.split(";")[4] for l in p.stdout.splitlines() if l.startswith("3;")]
            self.assertEqual(errors, ["0"] * 32, who)

    def test_percentage_offset_of_an_extended_file(self):
        # offset=25% is of the size the file had before the run (fio's real_file_size at
        # setup): 32 KiB of a 128 KiB file that filesize=256k extends, so 224 KiB are read
        # (ioplan took 25% of 256 KiB, 64 KiB, and read 192).
        job = "[oa]\nrw=read\nbs=4k\nfilename=f.dat\noffset=25%\nfilesize=256k\n"
        got = {}
        for who in ("fio", "ioplan"):
            p, _ = self.job_run(who, "extended", job,
                                ["--output-format=json"] + (["--allow_existing_file_write=1"] if who == "ioplan" else []),
                                prepare=lambda d: (d / "f.dat").write_bytes(bytes(128 << 10)))
            got[who] = json.loads(p.stdout[p.stdout.index("{"):])["jobs"][0]["read"]["io_bytes"]
        self.assertEqual(got, {"fio": 224 << 10, "ioplan": 224 << 10})

    def over_existing_files(self, prefix, cases):
        """Each case {name: (args, sizes of the files f.0, f.1, ... made first, fio's (bytes, I/Os))}
        run by fio and ioplan with bs=4k: fio's figures are the ones given, and ioplan's bytes,
        I/Os, write_iolog lines and file sizes are fio's."""
        for name, (args, sizes, want) in cases.items():
            with self.subTest(case=name):
                got = {}
                for who in ("fio", "ioplan"):
                    extra = ["--allow_existing_file_write=1"] if who == "ioplan" else []
                    prepare = lambda d: [(d / f"f.{i}").write_bytes(bytes(n)) for i, n in enumerate(sizes)]
                    p, d = self.job_run(who, f"{prefix}-{name}", "", ["--name=j", "--bs=4k", *args, *extra,
                                                                      "--write_iolog=io.log", "--output-format=json"],
                                        prepare=prepare)
                    job = json.loads(p.stdout[p.stdout.index("{"):])["jobs"][0]
                    ios = [l.split()[1:] for l in (d / "io.log").read_text().splitlines() if " read " in l or " write " in l]
                    got[who] = (job["read"]["io_bytes"] + job["write"]["io_bytes"],
                                job["read"]["total_ios"] + job["write"]["total_ios"], ios,
                                sorted((f.name, f.stat().st_size) for f in d.glob("f.*")))
                self.assertEqual(got["fio"][:2], want)
                self.assertEqual(got["ioplan"], got["fio"])

    def test_sequential_pass_reads_on_into_an_existing_file(self):
        # fio issues a sequential block while its offset is inside the file's share of size=
        # and the block ends inside the file: over 16 KiB files, size=10k bs=4k reads 12 KiB
        # (0, 4k, 8k), nrfiles=3 size=32k 32 KiB and size=8k one block of two files, 8 KiB.
        # ioplan stopped at the share's last whole block (8 KiB, 24 KiB) and refused
        # size=8k ("each file's region (2730 bytes) is less than one read block").  A file
        # the job lays out ends at its share: 8 KiB there, as before.
        one, three, k16 = ["--filename=f.0"], ["--filename_format=f.$filenum", "--nrfiles=3"], 16 << 10
        self.over_existing_files("reach", {
            "read": (one + ["--size=10k", "--rw=read"], [k16], (12288, 3)),
            "write": (one + ["--size=10k", "--rw=write"], [k16], (12288, 3)),
            "files": (three + ["--size=32k", "--rw=read"], [k16] * 3, (32768, 8)),
            "files_below_a_block": (three + ["--size=8k", "--rw=read"], [k16] * 3, (8192, 2)),
            "new_file": (one + ["--size=10k", "--rw=read"], [], (8192, 2))})

    def test_holed_pass_wraps_at_an_existing_files_end(self):
        # fio's holed pass (rw=read:4k) wraps to the start once its next offset passes the
        # file's end, not the share's, and its block may reach past the share as a plain
        # pass's does: size=10k over a 16 KiB file reads 0 and 8k (8k < 10k, its block ends
        # inside the file), then wraps (16k is the file's end) to 0: 12 KiB in 3.  ioplan read
        # one block (4 KiB), the pass of a file laid out to 10 KiB.  Over 20 KiB the offset
        # after 8k (16k) is inside the file but past the share: the pass ends, 8 KiB.  offset=2k
        # wraps to twice the offset (fio's quirk): 2k, 10k, 4k.  A file the job lays out ends
        # at its share: one block, as before.
        one, two, k16 = ["--filename=f.0"], ["--filename_format=f.$filenum", "--nrfiles=2"], 16 << 10
        self.over_existing_files("holed", {
            "read": (one + ["--size=10k", "--rw=read:4k"], [k16], (12288, 3)),
            "write": (one + ["--size=10k", "--rw=write:4k"], [k16], (12288, 3)),
            "loops": (one + ["--size=10k", "--rw=read:4k", "--loops=2"], [k16], (20480, 5)),
            "larger_file": (one + ["--size=10k", "--rw=read:4k"], [20 << 10], (8192, 2)),
            "offset": (one + ["--size=10k", "--rw=read:4k", "--offset=2k"], [k16], (12288, 3)),
            "files": (two + ["--size=20k", "--rw=read:4k"], [k16] * 2, (20480, 5)),
            "files_below_a_block": (two + ["--size=6k", "--rw=read:4k"], [k16] * 2, (8192, 2)),
            "new_file": (one + ["--size=10k", "--rw=read:4k"], [], (4096, 1))})

    def test_size_remainder_goes_to_the_first_files(self):
        # fio's setup_files: what size= over nrfiles leaves gives the first files one more
        # smallest block each, so the files add up to size=: size=1000 nrfiles=3 bs=1 lays
        # out 334, 333, 333 bytes and writes 1000 (ioplan: 333 each, 999).
        cases = {
            "write": (["--nrfiles=3", "--size=1000", "--rw=write"], 1000, [334, 333, 333]),
            "randread_libaio": (["--filename=a:b:c", "--size=2000", "--rw=randread", "--ioengine=libaio",
                                 "--iodepth=8"], 2000, [667, 667, 666]),
            "bsrange": (["--nrfiles=3", "--size=1000", "--rw=randrw", "--bsrange=1-4"], None, [334, 333, 333])}
        for name, (args, want, sizes) in cases.items():
            with self.subTest(case=name):
                got = {}
                for who in ("fio", "ioplan"):
                    p, d = self.job_run(who, f"rem-{name}", "", ["--name=j", "--bs=1", *args, "--output-format=json"])
                    job = json.loads(p.stdout[p.stdout.index("{"):])["jobs"][0]
                    files = sorted(f for f in d.iterdir() if f.name != "job.fio")
                    got[who] = (job["read"]["io_bytes"] + job["write"]["io_bytes"],
                                job["read"]["total_ios"] + job["write"]["total_ios"], [f.stat().st_size for f in files])
                self.assertEqual(got["fio"][2], sizes)
                if want:
                    self.assertEqual(got["fio"][:2], (want, want))
                self.assertEqual(got["ioplan"], got["fio"])

    def test_io_size_percent_is_of_the_share_not_of_the_reach(self):
        # io_size=N% is of each file's share of size= (fio's f->io_size), also where a
        # sequential pass's last block reaches past it into a larger file: io_size=70% of
        # size=10k over a 16 KiB file is 7 KiB, 2 blocks (ioplan took 70% of the 12 KiB the
        # pass may reach: 3), and io_size=90% of a holed pass 9 KiB, 3 blocks (ioplan: 4).
        one, k16 = ["--filename=f.0", "--size=10k"], 16 << 10
        self.over_existing_files("io_size_pct", {
            "read": (one + ["--rw=read", "--io_size=70%"], [k16], (8192, 2)),
            "write": (one + ["--rw=write", "--io_size=70%"], [k16], (8192, 2)),
            "holed": (one + ["--rw=read:4k", "--io_size=90%"], [k16], (12288, 3))})

    def test_value_lists_keep_their_last_part(self):
        # fio runs the callbacks of size, io_size, offset and rwmixread once per part of a
        # list, so the last part holds; ioplan took the first (size=1m,2m moved 1 MiB, and
        # its note said fio does the same).  A sign is read too.
        job = ("[global]\nioengine=psync\nbs=4k\n[l]\nrw=rw\nfilename=l\nsize=1m,2m\nrwmixread=10,90\n"
               "[o]\nrw=write\nfilename=o\nsize=512k\noffset=0:512k\nstonewall\n"
               "[p]\nrw=read\nfilename=p\nsize=+256k\nio_size=64k-128k\nbs=+8k\nstonewall\n")
        got = {}
        for who in ("fio", "ioplan"):
            p, d = self.job_run(who, "lists", job, ["--output-format=json"])
            jobs = json.loads(p.stdout[p.stdout.index("{"):])["jobs"]
            got[who] = ([(j["read"]["io_bytes"], j["write"]["io_bytes"], j["read"]["total_ios"]) for j in jobs],
                        [(d / f).stat().st_size for f in ("l", "o", "p")])
        self.assertEqual(got["ioplan"], got["fio"])
        self.assertEqual(got["fio"][1], [2 << 20, 1 << 20, 256 << 10])
        self.assertEqual(got["fio"][0][2], (128 << 10, 0, 16))

    def test_syncs_of_a_job_that_ends_in_its_ramp(self):
        # size= runs out inside ramp_time: fio reports the ramp's 16 writes and its 15
        # fsync=1 syncs (without latencies); ioplan reported the writes and 0 syncs.  A ramp
        # far longer than the job (which ends when size= does), so a slow disk's syncs still
        # fall inside it.
        args = ["--name=rp", "--filename=f", "--rw=write", "--bs=4k", "--size=64k", "--ramp_time=30", "--fsync=1",
                "--output-format=json"]
        for who in ("fio", "ioplan"):
            d = self.tmp / f"ramp-{who}"
            d.mkdir()
            p = run_fio(args, cwd=d) if who == "fio" else run(args, cwd=d)
            self.assertEqual(p.returncode, 0, f"{who}: {p.stderr[-500:]}")
            job = json.loads(p.stdout[p.stdout.index("{"):])["jobs"][0]
            self.assertEqual((job["write"]["total_ios"], job["sync"]["total_ios"]), (16, 15), who)

    def test_latency_depth_only_for_a_job_that_reached_its_io_loop(self):
        # fio sets latency_depth as a job enters do_io (lat_target_init) and prints
        # it, with latency_target/percentile/window, only when set (stat.c): a
        # create_only job or one stopped before it started has none.  ioplan printed
        # them for every job (depth 1 where it had none).  A clone whose file its
        # first clone took still enters do_io with no file: it has them.
        keys = ("latency_depth", "latency_target", "latency_percentile", "latency_window")
        cases = {
            "create_only": (["--name=p", "--filename=f", "--size=1m", "--create_only=1"], {}),
            "stopped_before_start": (["--name=a", "--ioengine=null", "--size=1m", "--exitall", "--name=b",
                                      "--ioengine=null", "--size=1m", "--startdelay=30"], {}),
            "clone_without_a_file": (["job.fio"], {"job.fio": "[j]\nioengine=libaio\niodepth=4\nsize=256k\n"
                                                              "rw=write\nfilename_format=shared\nnumjobs=2\n"}),
        }
        for tag, (args, files) in cases.items():
            with self.subTest(case=tag):
                seen = {}
                for who, tool in (("fio", run_fio), ("ioplan", run)):
                    d = self.tmp / f"{tag}-{who}"
                    d.mkdir()
                    for name, body in files.items():
                        (d / name).write_text(body)
                    p = tool([*args, "--output-format=json"], cwd=d)
                    self.assertEqual(p.returncode, 0, f"{who}: {p.stderr}")
                    doc = json.loads(p.stdout[p.stdout.index("{"):])
                    seen[who] = [(j["jobname"], {k: j[k] for k in keys if k in j}) for j in doc["jobs"]]
                self.assertEqual(seen["ioplan"], seen["fio"])
                if tag == "create_only":
                    self.assertEqual(seen["fio"], [("p", {})])
                if tag == "clone_without_a_file":
                    self.assertEqual([j[1]["latency_depth"] for j in seen["fio"]], [4, 4])

    def test_slat_percentiles_alone_are_printed(self):
        # slat_percentiles=1 with clat_percentiles=0: fio's normal output has the slat block;
        # ioplan's had none (its percentile list was the clat/lat one, empty here).
        for who in ("fio", "ioplan"):
            d = self.tmp / f"slat-{who}"
            d.mkdir()
            args = ["--name=j", "--filename=f", "--ioengine=libaio", "--size=256k", "--rw=read",
                    "--slat_percentiles=1", "--clat_percentiles=0", "--output-format=normal"]
            p = run_fio(args, cwd=d) if who == "fio" else run(args, cwd=d)
            self.assertEqual(p.returncode, 0, f"{who}: {p.stderr[-500:]}")
            # The unit follows the largest value seen, which a scheduling stall can push to usec.
            self.assertRegex(p.stdout, r"\n    slat percentiles \((nsec|usec|msec)\):\n     \|  1\.00th=\[", who)

    def test_long_names_are_reported_cut_as_fio(self):
        # fio reports a job under at most 127 bytes of its name and 255 of its description,
        # though its banner and its file take the whole name; ioplan reported them whole.
        name, desc = "n" * 150, "d" * 300
        got = {}
        for who in ("fio", "ioplan"):
            args = [f"--name={name}", f"--description={desc}", "--ioengine=psync", "--size=4k"]
            p, d = self.job_run(who, "long", "", [*args, "--output-format=json,normal"])
            doc = json.loads(p.stdout[p.stdout.index("{"):p.stdout.rindex("}") + 1])["jobs"][0]
            got[who] = (doc["jobname"], doc["desc"], sorted(f.name for f in d.iterdir()),
                        re.findall(r"(?m)^(n+): \(g=", p.stdout), re.findall(r"(?m)^(n+): \(groupid", p.stdout))
        self.assertEqual(got["ioplan"], got["fio"])
        self.assertEqual(got["fio"][:2], (name[:127], desc[:255]))
        self.assertIn(f"{name}.0.0", got["fio"][2])
        self.assertEqual(got["fio"][3:], ([name], [name[:127]]))

    def test_kb_base_on_the_command_line_reads_the_sizes_after_it(self):
        # fio applies command-line options in the order given, so kb_base=1000 changes only
        # the sizes after it (in a job file it changes all of them); ioplan read it first.
        cases = {"before": (["--kb_base=1000", "--size=1m"], 999424),
                 "after": (["--size=1m", "--kb_base=1000"], 1048576),
                 "between": (["--size=1m", "--kb_base=1000", "--bs=4k"], 1048000),
                 "defaults": (["--kb_base=1000", "--size=1m", "--name=j"], 999424)}
        for name, (args, want) in cases.items():
            with self.subTest(case=name):
                head = [] if "--name=j" in args else ["--name=j"]
                got = {}
                for who, tool in (("fio", run_fio), ("ioplan", run)):
                    p = tool([*head, *args, "--ioengine=null", "--output-format=json"])
                    self.assertEqual(p.returncode, 0, f"{who}: {p.stderr[-500:]}")
                    got[who] = json.loads(p.stdout[p.stdout.index("{"):])["jobs"][0]["read"]["io_bytes"]
                self.assertEqual(got, {"fio": want, "ioplan": want})

    def test_disabled_latency_has_no_percentiles(self):
        # fio's fixup_options: disable_clat=1 turns clat_percentiles off, so its terse
        # percentile fields read "0%=0" (ioplan printed the list's keys with 0 values).
        args = ["--name=j", "--ioengine=null", "--size=1m", "--rw=read", "--disable_clat=1", "--output-format=terse"]
        lines = {who: (run_fio(args) if who == "fio" else run(args)).stdout.splitlines()[-1].split(";")
                 for who in ("fio", "ioplan")}
        self.assertEqual(lines["ioplan"][17:37], lines["fio"][17:37])
        self.assertEqual(lines["ioplan"][17:37], ["0%=0"] * 20)

    def test_layout_holds_the_jobs_buffer_content(self):
        # fio fills a read job's layout with the job's write buffers (fill_io_buffer):
        # zero_buffers lays out zeroes, buffer_pattern the pattern restarted at every
        # largest write (3 KiB here, which does not divide ioplan's 1 MiB layout writes).
        # ioplan laid out random bytes whatever the job said.
        cases = {"zero": "zero_buffers=1\n", "pattern": "buffer_pattern=\"abcde\"\nbs=3k\n",
                 "direct_pattern": "buffer_pattern=0xdeadbeef\ndirect=1\nsize=4m\n"}
        for name, extra in cases.items():
            with self.subTest(job=name):
                files = {}
                for who in ("fio", "ioplan"):
                    _, d = self.job_run(who, f"content-{name}", f"[j]\nrw=read\nsize=3m\nfilename=f.dat\n{extra}")
                    files[who] = (d / "f.dat").read_bytes()
                self.assertEqual(len(files["ioplan"]), len(files["fio"]))
                self.assertTrue(files["ioplan"] == files["fio"], f"{name}: the laid-out bytes differ from fio's")

    def test_loops_at_depth_do_not_overlap(self):
        # fio's do_io completes a round's I/Os before the next loop starts: with 4 blocks a
        # round, its depth never passes 4.  ioplan carried the rounds into one another (16 in
        # flight, a round's writes over blocks the last one was still writing).
        for rw in ("read", "randwrite"):
            with self.subTest(rw=rw):
                got = {}
                for who in ("fio", "ioplan"):
                    d = self.tmp / f"loops-{rw}-{who}"
                    d.mkdir()
                    args = ["--name=a", "--ioengine=libaio", f"--rw={rw}", "--bs=64k", "--size=256k", "--iodepth=32",
                            "--loops=4", "--output-format=json"]
                    p = run_fio(args, cwd=d) if who == "fio" else run(args, cwd=d)
                    self.assertEqual(p.returncode, 0, f"{who}: {p.stderr[-500:]}")
                    job = json.loads(p.stdout[p.stdout.index("{"):])["jobs"][0]
                    got[who] = ({k: v for k, v in job["iodepth_level"].items() if v},
                                job["read"]["total_ios"] + job["write"]["total_ios"])
                self.assertEqual(got["fio"], ({"1": 25.0, "2": 50.0, "4": 25.0}, 16))
                self.assertEqual(got["ioplan"], got["fio"])

    def test_a_pattern_job_that_reads_writes_the_pattern_afresh(self):
        # fio's buffer_pattern turns refill_buffers on in a job that reads: each write
        # carries the pattern, not the data the last read left in the buffer.  ioplan's
        # rw=rw job wrote back what it had just read (the first job's pattern).
        job = ("[global]\nioengine=psync\nbs=4k\nfilename=f\nsize=64k\n"
               "[pre]\nrw=write\nbuffer_pattern=0x11223344\n"
               "[mix]\nstonewall\nrw=rw\nbuffer_pattern=0xdeadbeef\n")
        files = {}
        for who in ("fio", "ioplan"):
            _, d = self.job_run(who, "refill", job)
            files[who] = (d / "f").read_bytes()
        self.assertEqual(files["fio"][:4], bytes.fromhex("deadbeef"))
        self.assertTrue(files["ioplan"] == files["fio"], "the file differs from fio's")


if __name__ == "__main__":
    unittest.main()
