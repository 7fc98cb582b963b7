"""tests/e2e/test_gen_random_like_fio.py - jobs of varying lengths issue fio 3.33's I/Os, one for one.

What a user relies on: a random job whose lengths vary (bssplit, bsrange, read
and write sizes that differ) moves the bytes fio moves for the same job file,
so the two tools' figures stand side by side.  With fio's repeatable seeds (the
default randrepeat=1, or randseed=) that takes fio's draws, its random map
(a drawn block already done moves to the next free one, an I/O is cut at a done
block, a file with no room is done for the pass), its zoned distribution and
its size= check before each I/O, its lfsr register; a sequential job's lengths come from fio's
draws too, the last ones drawn again until they fit.  The test compares each
job's bytes and the whole I/O sequence fio and ioplan record with write_iolog.  With randrepeat=0
the draws differ run to run, in fio too: then both overshoot size= by less than
one largest I/O per job, as fio's rule allows.
"""
import json
import os
import resource
import shutil
import subprocess
import unittest

from common import BIN, FIO, VARIANT, TmpDirCase, run, run_fio

JOBS = {
    # fio's examples/cmdprio-bssplit.fio shape: 64k/1m reads, 1m writes on 4 MiB.
    "split_rw": "rw=randrw\nbssplit=64k/40:1m/60,1m/100\n",
    "range_read": "rw=randread\nbsrange=4k-64k\n",
    "range_seeded": "rw=randwrite\nbsrange=512-16k\nrandseed=4321\n",
    "split_nomap": "rw=randwrite\nbssplit=4k/50:16k/30:64k/20\nnorandommap\n",
    "files_loops": "rw=randrw\nnrfiles=3\nloops=2\nbsrange=4k-32k,16k-16k\n",
    # io_size= past one pass: fio starts another loop while a largest block is left.
    "io_size_passes": "rw=randwrite\nbssplit=4k/60:32k/40\nio_size=9m\n",
    # Each loop re-seeds a repeatable job: its read/write split repeats fio's loop by loop.
    "mix_loops": "rw=randrw\nloops=3\n",
    # Sequential lengths are drawn at their position: the last ones fit the end, as fio's.
    "seq_range": "rw=write\nbsrange=4k-64k\n",
    "seq_split_rw": "rw=rw\nbssplit=4k/30:16k/70,64k/50:8k/50\n",
    # random_generator=lfsr: fio's register picks the blocks, with no map (I/Os overlap).
    "lfsr_range": "rw=randwrite\nbsrange=4k-512k\nrandom_generator=lfsr\n",
    "lfsr_rw": "rw=randrw\nrandom_generator=lfsr\nnrfiles=2\nloops=2\n",
    # bs_unaligned on a size no block divides: fio's pass ends where not even the
    # minimum fits (no rounding down to it), and its random map lets a run take the
    # bytes past the last whole block.
    "unaligned_seq": "rw=read\nsize=1000003\nbsrange=512-64k\nbs_unaligned=1\n",
    "unaligned_rand": "rw=randwrite\nsize=1000003\nbsrange=512-64k\nbs_unaligned=1\nloops=2\n",
    # A sequential mix: fio's next loop starts both directions over when one runs out,
    # and size= itself (not its whole blocks) bounds a mix that no end stops.
    "mix_seq_loops": "rw=rw\nbsrange=512-64k\nloops=2\n",
    "mix_seq_odd_size": "rw=rw\nsize=1000003\nbs=4k\n",
    # A random job's sequential turns (percentage_random's draws are fio's seq_rand_state,
    # rw=randread:<n>) go on from the last I/O and mark no map, as fio's.
    "pct_random_range": "rw=randrw\nbsrange=512-64k\npercentage_random=30,70\n",
    "seq_turns_split": "rw=randread:4\nbssplit=4k/50:16k/50\n",
    # Sequential passes that no end stops, on a size no block divides: fio wraps holes
    # whose last block ends short of the end, steps back from the end itself, and counts
    # size= itself, not its whole blocks.
    "holes_odd_size": "rw=read:8k\nsize=1000003\nbs=4k\n",
    "back_odd_size": "rw=read:-8k\nsize=1000003\nbs=4k\n",
    "zones_odd_size": "rw=read\nsize=1000003\nbs=4k\nzonemode=strided\nzonesize=64k\nzonerange=256k\n",
    # A backward pass goes on until an I/O ends on the file's end (fio's next offset is
    # then past it): drawn lengths may land there at once, and a step back shorter
    # than the block walks forward to it; the next loop starts at 0 again.  The job's
    # amount bounds it otherwise (ioplan ended each pass after size= bytes).
    "back_range_loops": "rw=read:-8k\nbsrange=1k-16k\nloops=2\n",
    # allrandrepeat seeds every generator from fio's constant: other sizes and mix
    # decisions than randrepeat's, and repeatable even with randrepeat=0 (ioplan took
    # it as randrepeat, so allrandrepeat=0 made a job unrepeatable).
    "allrand": "rw=randrw\nbsrange=4k-64k\nallrandrepeat=1\n",
    "allrand_norepeat": "rw=randrw\nbsrange=4k-64k\nrandrepeat=0\nallrandrepeat=1\nloops=2\n",
    "allrand_off": "rw=randrw\nbssplit=4k/50:16k/50\nallrandrepeat=0\n",
    "back_forward_loops": "rw=write:-4k\nbs=16k\nloops=2\n",
    # A block size that divides neither the size nor the step: an I/O that fits the size
    # goes whole (it was cut where the whole blocks ended).
    "holes_odd_block": "rw=read:8k\nsize=1000003\nbs=3000\n",
    # A holed mix: each direction wraps (going on with the mix's decision) or ends the
    # loop by fio's rule, a write's bigger block where it no longer fits.
    "mix_holes_wrap": "rw=rw:4k\nbs=4k\nloops=2\n",
    "mix_holes_sizes": "rw=rw:4k\nbs=4k,16k\nloops=2\n",
    # file_service_type draws fio's files: random from its own seed, and the skewed laws
    # over 1024 ranks a file, a zipf or pareto one starting at a drawn file unless a
    # centre is given; a skewed service starts a done file over (size= ends the job).
    "files_random": "rw=read\nnrfiles=5\nsize=1000003\nfile_service_type=random\n",
    "files_zipf": "rw=read\nnrfiles=4\nfile_service_type=zipf:1.2\n",
    "files_pareto_range": "rw=randread\nnrfiles=4\nbsrange=1k-16k\nfile_service_type=pareto:0.3\n",
    "files_normal_holes": "rw=read:8k\nnrfiles=3\nsize=1000003\nfile_service_type=normal:20\n",
    "files_gauss_centre": "rw=write\nnrfiles=7\nfile_service_type=gauss:10:0.2\n",
    "files_zipf_centre": "rw=randwrite\nnrfiles=5\nbsrange=4k-32k\nfile_service_type=zipf:0.8:0.3\n",
    # file_service_type=sequential: fio's next loop goes on from the file after the
    # last one served (ioplan started it with that file again).
    "files_seq_loops": "rw=read\nnrfiles=3\nsize=1000003\nfile_service_type=sequential\nloops=2\n",
    # A sequential mix over several files: fio finds a file done when the direction
    # drawn for it has no room there, for both directions at once, and decides the
    # direction again for the next file.
    "files_mix_seq": "rw=rw\nnrfiles=3\nsize=1000003\nbs=4k,16k\nfile_service_type=sequential\nloops=2\n",
    "files_mix_range": "rw=rw\nnrfiles=3\nbsrange=1k-16k\n",
    # A write size above the read size: fio's random map is in blocks of the least
    # size of any direction, used or not, so each 16 KiB write marks four and the
    # pass ends with less than half the file written (ioplan wrote it all).
    "write_above_read": "rw=randwrite\nbs=4k,16k\n",
    # bs_is_seq_rand: a random I/O takes the write size, a sequential turn the read
    # size, and fio's map counts in each direction's own size whichever was taken.
    "seqrand_read": "rw=randread\nbs=4k,8k\nbs_is_seq_rand=1\n",
    "seqrand_turns": "rw=randrw\nbs=8k,4k\nbs_is_seq_rand=1\npercentage_random=30,70\n",
    "seqrand_seq_nr": "rw=randwrite:3\nbs=8k,4k\nbs_is_seq_rand=1\n",
    # fio's examples/jesd219.fio with its seeds repeatable.
    "jesd219": ("rw=randrw\nrwmixread=40\nnorandommap\nblockalign=4k\n"
                "bssplit=512/4:1024/1:1536/1:2048/1:2560/1:3072/1:3584/1:4k/67:8k/10:16k/7:32k/3:64k/3\n"
                "random_distribution=zoned:50/5:30/15:20/80\n"),
    # (Last, so the jobs above keep their thread numbers and so fio's seeds.)
    # fio reads the count with atoi into an unsigned: no number is 0 (no I/O draws, the
    # first one included; a random block only at the region's end), "-8k" is 2^32 - 8.
    "seq_only_mix": "rw=randrw:\nbsrange=4k-16k\nloops=2\n",
    "seq_only_text": "rw=randwrite:none\nbsrange=1k-8k\nsize=1000003\n",
    "seq_after_one": "rw=randread:-8k\nbsrange=4k-8k\nloops=2\n",
    # Holed passes whose lengths vary: fio wraps when the skip after the last I/O
    # passes the end, and the pass is over when that I/O ended on it (ioplan wrapped).
    "holes_range_loops": "rw=read:8k\nbsrange=4k-8k\nsize=2m\nloops=3\n",
    "holes_split_io_size": "rw=write:8k\nbssplit=4k/50:8k/50\nsize=2m\nio_size=5m\n",
    # Each file wraps or is done on its own, and each direction of a mix too.
    "holes_range_files": "rw=read:8k\nbsrange=1k-16k\nsize=1000003\nnrfiles=2\nfile_service_type=sequential\n",
    "holes_range_mix": "rw=rw:4k\nbssplit=4k/50:16k/50\nsize=512k\nloops=3\nrwmixread=70\n",
    "holes_mix_files": "rw=rw:4k\nbs=3000\nsize=1m\nnrfiles=2\nrwmixread=30\n",
    # With offset= fio compares the position in the region with the file's size and
    # wraps to the offset as a position in the region (twice it in the file).
    "holes_offset_wrap": "rw=write:8k\nbs=4k\nsize=1000003\noffset=4k\n",
    "holes_offset_files": "rw=read:8k\nbsrange=4k-8k\nsize=1m\noffset=64k\nnrfiles=2\nloops=2\n",
    # One block size with sequential turns: fio's map and draws, as with lengths that vary
    # (ioplan drew its permutation).  The job ends at size= itself, its last I/O past the
    # map's whole blocks (fio 19 I/Os of 8 KiB on 150 KiB, ioplan 18; 63 of 16 KiB on
    # 1000 KiB, ioplan 62), or where a turn finds no whole block left before the end
    # (fio 13, ioplan 18 going on with random blocks).
    "pct_random_odd_size": "rw=randread\npercentage_random=80\nbs=8k\nsize=150k\n",
    "seq_turns_tail": "rw=randread:4\nbs=8k\nsize=150k\n",
    "pct_random_big": "rw=randwrite\npercentage_random=50\nbs=16k\nsize=1000k\n",
    "pct_random_mix_loops": "rw=randrw\npercentage_random=30,60\nbs=8k\nsize=150k\nloops=2\n",
    # A mix over several files, one block size: a file whose map is full is done by a
    # failed fill, and fio decides the direction again for the next file (ioplan's
    # permutation skipped the file without a decision: 34/31 reads/writes for fio's
    # 35/30, and 48/47 for 46/49 files in turn).
    "mix_files_one_size": "rw=randrw\nbs=4k\nnrfiles=3\nfilesize=32k-160k\n",
    "mix_files_seq_service": "rw=randrw\nbs=4k\nnrfiles=4\nfilesize=32k-160k\nfile_service_type=sequential\n",
    # One length a direction without a map: the generator's short way draws fio's offsets.
    "nomap_fixed": "rw=randrw\nbs=4k,16k\nnorandommap\n",
    "nomap_blockalign": "rw=randread\nbs=8k\nblockalign=4k\n",
    # random_distribution=zipf, pareto, normal: fio's generator per file, seeded from the
    # file's name and the thread's number, its rank hashed and in ranges of the least
    # block size, the offset drawn first and the length to fit it.  An offset past the
    # region ends the pass: 8 KiB writes on 4 KiB ranges end it early.
    "law_zipf": "rw=randread\nrandom_distribution=zipf:1.2\n",
    "law_zipf_flat": "rw=randread\nrandom_distribution=zipf:0\n",
    "law_normal_mix": "rw=randrw\nbs=4k,8k\nrwmixread=95\nrandom_distribution=normal:20\n",
    "law_normal_range": "rw=randwrite\nbsrange=4k-64k\nrandom_distribution=normal:10\nloops=2\n",
    "law_zipf_centre_turns": ("rw=randread\nbssplit=4k/50:16k/50\nrandom_distribution=zipf:0.8:0.3\n"
                              "percentage_random=70\n"),
    "law_gauss_seeded_files": "rw=randread\nrandom_distribution=normal\nrandseed=77\nnrfiles=2\n",
    "law_pareto_io_size": "rw=randwrite\nbs=8k\nrandom_distribution=pareto:0.9:0\nio_size=6m\n",
    # random_generator=tausworthe64: fio's 64-bit generator (taus258, seeded from fio's
    # 64-bit seeds) draws the sizes, the offsets without a map, the random file picks and
    # the file sizes; the mix, zones and sequential turns keep their 32-bit ones.
    "taus64_split": "rw=randrw\nbssplit=4k/50:16k/30:64k/20\nrandom_generator=tausworthe64\n",
    "taus64_nomap_files": ("rw=randread\nbsrange=1k-16k\nnorandommap\nnrfiles=3\nfile_service_type=random\n"
                           "random_generator=tausworthe64\n"),
    "taus64_file_sizes": "rw=write\nnrfiles=3\nfilesize=128k-1m\nbs=4k\nrandom_generator=tausworthe64\n",
    "taus64_seeded_loops": "rw=randrw\nbsrange=4k-64k\nrandseed=99\nrandom_generator=tausworthe64\nloops=2\n",
    # Without a map a sequential turn that meets a file's end is that file's last of the
    # pass (fio's fill fails), not the job's: the other files go on (last here: a job's
    # thread number seeds its draws, so a job put before the others would change theirs).
    "seq_turns_nomap_files": "rw=randrw:8\nbsrange=4k-16k\nnorandommap\nnrfiles=5\nio_size=6m\n",
    # A sequential turn whose fill fails (its file done) leaves fio's io_u flagged not to
    # mark the map (IO_U_F_BUSY_OK, cleared by a completion), so the next file's I/O marks
    # nothing either, and a later draw may land on its blocks.
    "seq_turns_failed_fill": "rw=randrw:4\nbsrange=1k-8k\nnrfiles=5\nloops=2\n",
}


# One block size keeps ioplan's permutation (each block once per pass, in its own
# order): fio's bytes and read/write split, not fio's offsets.
BYTES_ONLY = {"mix_loops"}


def job_file(jobs, extra=""):
    return "[global]\nioengine=null\nsize=4m\n" + extra + "".join(
        f"[{name}]\n{body}write_iolog={name}.iolog\n" for name, body in jobs.items())


def bytes_of(stdout):
    doc = json.loads(stdout[stdout.index("{"):])
    return {j["jobname"]: (j["read"]["io_bytes"], j["write"]["io_bytes"]) for j in doc["jobs"]}


def ios_of(path):
    """(file, direction, offset, length) of each I/O in a write_iolog file."""
    out = []
    for line in path.read_text().splitlines()[1:]:
        f = line.split()
        if len(f) == 5 and f[2] in ("read", "write", "trim"):
            out.append((f[1], f[2], int(f[3]), int(f[4])))
    return out


@unittest.skipIf(FIO is None, "fio not installed")
class RandomLikeFio(TmpDirCase):
    def both(self, text):
        """{tool: ({job: (read, write bytes)}, {job: I/Os}, {job: log lines without their times})}
        of one job file run by each."""
        out = {}
        for who in ("fio", "ioplan"):
            d = self.tmp / who
            d.mkdir()
            (d / "job.fio").write_text(text)
            p = (run_fio if who == "fio" else run)(["--output-format=json", "job.fio"], cwd=d)
            self.assertEqual(p.returncode, 0, f"{who}: {p.stderr}")
            out[who] = (bytes_of(p.stdout), {n: ios_of(d / f"{n}.iolog") for n in JOBS},
                        {n: [line.split(" ", 1)[1] for line in (d / f"{n}.iolog").read_text().splitlines()[1:]]
                         for n in JOBS})
        return out

    def ran_in_dirs(self, text, *args, under="", before=None):
        """(tool, directory) of the job file run by fio, then by ioplan, each in its own
        directory (under a subdirectory of the test's, if named, and made ready by
        before(directory) if given); their output in its out.json."""
        for who in ("fio", "ioplan"):
            d = self.tmp / under / who
            d.mkdir(parents=True)
            if before:
                before(d)
            (d / "job.fio").write_text(text)
            p = (run_fio if who == "fio" else run)([*args, "--output=out.json", "job.fio"], cwd=d)
            self.assertEqual(p.returncode, 0, f"{who}: {p.stderr}")
            yield who, d

    def test_bytes_and_ios_are_fios(self):
        out = self.both(job_file(JOBS))
        fio_bytes, fio_ios, fio_lines = out["fio"]
        our_bytes, our_ios, our_lines = out["ioplan"]
        for name in JOBS:
            with self.subTest(name):
                self.assertEqual(our_bytes[name], fio_bytes[name])
                self.assertGreaterEqual(len(fio_ios[name]), 7)
                self.assertEqual(len(our_ios[name]), len(fio_ios[name]))
                if name not in BYTES_ONLY:
                    self.assertEqual(our_ios[name], fio_ios[name])
                    # Each file closes where fio's set_io_u_file closes it: as a pick or a
                    # fill finds it done (a skewed service opens it again with its next
                    # I/O), not every file at the loop's end.
                    self.assertEqual(our_lines[name], fio_lines[name])
        # A skewed service is skewed: zipf:1.2 sends most of the I/O to one file,
        # which is read over and over (4 MiB over four 1 MiB files).
        per_file = {}
        for io in our_ios["files_zipf"]:
            per_file[io[0]] = per_file.get(io[0], 0) + 1
        self.assertGreater(max(per_file.values()), len(our_ios["files_zipf"]) // 2, per_file)
        self.assertGreater(max(per_file.values()), 256, per_file)
        # The rules show: fio's map ends the 1m writes early, norandommap overshoots size=.
        self.assertEqual(sum(fio_bytes["split_rw"]), 4390912)
        self.assertGreater(sum(fio_bytes["split_nomap"]), 4 << 20)
        self.assertLess(sum(fio_bytes["split_nomap"]), (4 << 20) + 65536)
        # A write drawn past the region ends the pass; zipf:1.2 comes back to its hot blocks.
        self.assertLess(sum(fio_bytes["law_normal_mix"]), 1 << 20)
        hits = {}
        for io in our_ios["law_zipf"]:
            hits[io[2]] = hits.get(io[2], 0) + 1
        self.assertGreater(max(hits.values()), 50, "zipf:1.2 over 1024 blocks")

    def test_a_skewed_laws_seed_is_fios_file_name(self):
        # fio seeds a file's zipf from a hash of its name as fio spells it: directory=d/
        # joins as d//name.  Real files; the offsets compare, the names differ by the slash.
        text = ("[z]\ndirectory={dir}/\nsize=1m\nrw=randread\nrandom_distribution=zipf:1.1\n"
                "write_iolog=z.iolog\n")
        offsets = {}
        d = self.tmp / "run"
        for who, runner in (("fio", run_fio), ("ioplan", run)):
            # One directory for both, in turn: the seed hashes its path.
            shutil.rmtree(d, ignore_errors=True)
            d.mkdir()
            (d / "job.fio").write_text(text.replace("{dir}", str(d)))
            p = runner(["--output-format=json", "job.fio"], cwd=d)
            self.assertEqual(p.returncode, 0, f"{who}: {p.stderr}")
            offsets[who] = [(io[2], io[3]) for io in ios_of(d / "z.iolog")]
        self.assertEqual(len(offsets["fio"]), 256)
        self.assertEqual(offsets["ioplan"], offsets["fio"])

    def test_a_seeded_clones_offsets_are_fios(self):
        # fio seeds a job's clones after its fixup_options has turned randrepeat off
        # for randseed=: a clone's offsets come from randseed's seed, the first
        # thread's from 0xb1899bed.  ioplan seeded the clones as the first: clone 2
        # of this job wrote 108 blocks at other offsets than fio's 112.
        text = ("[global]\nioengine=null\nsize=640k\n[c]\nrw=randwrite\nbsrange=2k-10k\nnorandommap\n"
                "randseed=99999\nnumjobs=2\nwrite_iolog=c.iolog\n")
        ios = {who: sorted(ios_of(d / "c.iolog")) for who, d in self.ran_in_dirs(text)}
        self.assertEqual({f for f, *_ in ios["fio"]}, {"c.0.0", "c.1.0"})
        self.assertEqual(ios["ioplan"], ios["fio"])

    def test_each_subjobs_files_and_draws_are_fios(self):
        # fio's threads run subjobs 0, n-1, ..., 1 (add_job numbers each later thread
        # by the clones still to make): a subjob's files take their sizes and I/O from
        # that thread's draws, its logs and report entry are that thread's.  ioplan ran
        # subjob k as thread k+1: c.1 was 589824 bytes where fio's is 1032192, and the
        # per-thread logs and JSON entries were another subjob's.  The logs are per
        # thread (write_iops_log), as fio's shared write_iolog cuts lines.
        text = ("[c]\nfilename_format=c.$jobnum\nrw=randwrite\nbsrange=2k-10k\nfilesize=400k-1m\n"
                "numjobs=4\nwrite_iops_log=c\nlog_offset=1\n")
        got = {}
        for who, d in self.ran_in_dirs(text, "--output-format=json"):
            sizes = {k: (d / f"c.{k}").stat().st_size for k in range(4)}
            logs = {t: sorted(int(x.split(",")[4]) for x in (d / f"c_iops.{t}.log").read_text().splitlines())
                    for t in range(1, 5)}
            doc = json.loads((d / "out.json").read_text())
            got[who] = sizes, logs, [j["write"]["io_bytes"] for j in doc["jobs"]]
        self.assertEqual(got["ioplan"], got["fio"])
        self.assertEqual(len(set(got["fio"][0].values())), 4)
        self.assertEqual(len(set(got["fio"][2])), 4)

    def test_time_based_draws_are_fios(self):
        # A time_based job's full map starts that file over and is drawn again (fio's
        # get_next_rand_block), and a pass whose files all failed a fill (a zone drawn
        # past the file's end) is fio's next loop, re-seeded.  ioplan skipped the full
        # file for the others (two files: apart from fio's at the 33rd I/O), and went on
        # unseeded past the zone (apart at the 18th).  Only the order is compared: how
        # many I/Os a second gives depends on the machine.  rate_iops=1000 in both: the
        # draws are the same at any pace, a second still holds several passes over each
        # map, and uncapped each run spun a core on the page cache for its second.
        jobs = {"files": "rw=randread\nbsrange=4k-16k\nsize=256k\nnrfiles=2\n",
                "zone_past_end": "rw=randwrite\nbs=4k\nsize=256k\nzonemode=strided\nzonesize=64k\n"
                                 "zonerange=128k\nzoneskip=64k\n",
                # A sequential turn at the region's end goes on at its start (fio's
                # get_next_seq_offset); ioplan drew a random block (apart at the 12th).
                "turn_wraps": "rw=randread:4\nbs=16k\nsize=256k\n"}
        for name, body in jobs.items():
            with self.subTest(name):
                text = f"[t]\nioengine=psync\ntime_based\nruntime=1\nrate_iops=1000\n{body}write_iolog=t.iolog\n"
                ios = {who: ios_of(d / "t.iolog") for who, d in self.ran_in_dirs(text, under=name)}
                # Not the shorter log's last I/O, the one runtime's end came round: fio's
                # differed from run to run there (t.0.1 at 16k in one make test, t.0.0 at 12k
                # in the next, as ioplan's), the draws before it did not.
                n = min(len(ios["fio"]), len(ios["ioplan"])) - 1
                ios = {who: got[:n] for who, got in ios.items()}
                self.assertGreater(n, 200)
                # The first I/O that differs, and a few after it: a diff of the whole lists takes minutes.
                at = next((i for i in range(n) if ios["ioplan"][i] != ios["fio"][i]), n)
                self.assertEqual(ios["ioplan"][at:at + 3], ios["fio"][at:at + 3], f"I/O {at} of {n}")

    def test_a_turn_past_the_region_in_a_larger_file_fails_as_fios(self):
        # A random job's sequential turn goes on where the last I/O ended while that is
        # inside the file (fio's get_next_seq_offset checks real_file_size), so in a file
        # larger than the region the turn at the region's end fails its fill and the
        # file is done for the pass; in a file laid out for the job it draws a random
        # block instead.  ioplan drew one in both: 16 reads where fio makes 11, and
        # (percentage_random=50 at libaio QD8) 128 I/Os where it makes 60.
        cases = {"holes": ("rw=randread:4\nbs=16k\nsize=256k\n", 1 << 20, 11),
                 "percentage": ("rw=randrw\nbs=4k\nsize=512k\npercentage_random=50\nioengine=libaio\n"
                                "iodepth=8\n", 1 << 20, 60),
                 "norandommap": ("rw=randread:4\nbsrange=4k-16k\nsize=1m\nloops=3\nnorandommap\n", 4 << 20, 309)}
        for name, (body, size, want) in cases.items():
            with self.subTest(name):
                ios = {}
                for who in ("fio", "ioplan"):
                    d = self.tmp / name / who
                    d.mkdir(parents=True)
                    (d / "f.dat").write_bytes(bytes(size))
                    own = "allow_existing_file_write=1\n" if who == "ioplan" else ""
                    (d / "job.fio").write_text(f"[t]\nioengine=psync\nfilename=f.dat\n{body}{own}"
                                               "write_iolog=t.iolog\n")
                    p = (run_fio if who == "fio" else run)(["--output-format=json", "job.fio"], cwd=d)
                    self.assertEqual(p.returncode, 0, f"{who}: {p.stderr}")
                    ios[who] = ios_of(d / "t.iolog")
                self.assertEqual(len(ios["fio"]), want, "fio's own count moved")
                self.assertEqual(ios["ioplan"], ios["fio"])

    def test_backward_passes_with_an_offset_or_a_larger_file_are_fios(self):
        # fio's backward pass (rw=read:-<n>) starts, when offset= is not 0, by "rewinding"
        # to n bytes before the smaller of io_size and the file's size taken as a position
        # in the region, and wraps there again; it ends only once an I/O ends on the
        # file's end or its next offset leaves the region, and gives a fixed block as it
        # is.  ioplan began at the offset, wrapped at the region's end and ended the pass
        # there: offset=16k size=256k bsrange=1k-16k loops=3 over a 1 MiB file read 81 KiB
        # in 12 I/Os where fio reads 779 KiB in 99, and without offset= 4 I/Os (27 KiB of
        # size=256k) where fio makes 34.
        cases = {"offset": ("rw=read:-8k\nbsrange=1k-16k\nsize=256k\noffset=16k\nloops=3\n", 99),
                 "offset_fixed": ("rw=read:-8k\nbs=4k\nsize=256k\noffset=128k\n", 64),
                 "larger_file": ("rw=read:-8k\nbsrange=1k-16k\nsize=256k\n", 34),
                 "forward_step": ("rw=read:-4k\nbs=8k\nsize=128k\nloops=2\n", 32)}
        for name, (body, want) in cases.items():
            with self.subTest(name):
                ios = {}
                for who, d in self.ran_in_dirs(f"[t]\nioengine=psync\nfilename=f.dat\n{body}write_iolog=t.iolog\n",
                                               under=name, before=lambda d: (d / "f.dat").write_bytes(bytes(1 << 20))):
                    ios[who] = ios_of(d / "t.iolog")
                self.assertEqual(len(ios["fio"]), want, "fio's own count moved")
                self.assertEqual(ios["ioplan"], ios["fio"])

    def test_a_holed_passs_percentage_offset_is_taken_again_each_loop(self):
        # fio's clear_io_state takes offset=N% again of the size its set-up left the
        # file before each later loop, holed passes (rw=read:<n>) too: with the null
        # engine offset=25% of size=256k starts at 64k, then at 80k (25% of 320k).
        # ioplan's holed passes kept 64k: 66 reads (264 KiB) where fio makes 62.
        fio_h = self.loops_alike({"h": "rw=read:8k\nbs=4k\n", "m": "rw=rw:4k\nbs=4k\n"}, "h", 62)
        self.assertEqual(fio_h[0][2], 65536)
        self.assertIn(("h.0.0", "read", 81920, 4096), fio_h)

    def loops_alike(self, jobs, counted, want):
        """Runs jobs (name: body) with offset=25% of size=256k over 3 loops in both tools and
        checks their I/O is fio's, job counted making want I/Os in fio; fio's I/O of it."""
        text = "[global]\nioengine=null\nsize=256k\noffset=25%\nloops=3\n" + "".join(
            f"[{n}]\n{body}write_iolog={n}.iolog\n" for n, body in jobs.items())
        ios = {who: {n: ios_of(d / f"{n}.iolog") for n in jobs} for who, d in self.ran_in_dirs(text)}
        self.assertEqual(len(ios["fio"][counted]), want, "fio's own count moved")
        self.assertEqual(ios["ioplan"], ios["fio"])
        return ios["fio"][counted]

    def test_a_backward_passs_percentage_offset_is_taken_again_each_loop(self):
        # The same for a backward pass (rw=read:-<n>): a file whose pass ended opens
        # again at the new offset (80k here) and fio's first step back is from there;
        # one still open goes on from its last I/O counted from the new offset.
        # ioplan kept 64k: 168 reads (771 KiB) where fio makes 156 (713 KiB).
        self.loops_alike({"b": "rw=read:-8k\nbsrange=1k-8k\n",
                          "c": "rw=read:-12k\nbsrange=2k-8k\nsize=300k\noffset=20%\nloops=4\n"}, "b", 156)

    def test_a_fixed_turn_into_the_regions_last_partial_block_goes_as_fios(self):
        # fio gives a fixed length as it is (get_next_buflen checks only a drawn one
        # against the region), so a sequential turn that starts inside the region goes
        # while it ends inside the file: size=100k bs=8k rw=randread:3 over 1 MiB reads
        # 96k-104k and then draws on, 13 reads.  ioplan held it to the region, found no
        # room and ended the pass: 8 reads.
        ios = {}
        for who in ("fio", "ioplan"):
            d = self.tmp / who
            d.mkdir()
            (d / "f.dat").write_bytes(bytes(1 << 20))
            p = (run_fio if who == "fio" else run)(
                ["--name=t", "--filename=f.dat", "--size=100k", "--bs=8k", "--rw=randread:3",
                 "--write_iolog=t.iolog", "--output=out.txt"], cwd=d)
            self.assertEqual(p.returncode, 0, f"{who}: {p.stderr}")
            ios[who] = ios_of(d / "t.iolog")
        self.assertEqual(len(ios["fio"]), 13, "fio's own count moved")
        self.assertIn(("f.dat", "read", 98304, 8192), ios["ioplan"])
        self.assertEqual(ios["ioplan"], ios["fio"])

    def test_without_size_the_amount_is_the_regions_bytes_as_fios(self):
        # With filesize= and no size=, fio's size= is the regions' bytes (setup_files'
        # total), not their whole blocks: a sequential turn, which marks no block of the
        # map, takes the job past them.  filesize=100k bs=8k rw=randread:3 reads 13
        # blocks in fio; ioplan stopped at 12 (96 KiB).
        for name, args in (("file", ["--filename=f.dat"]),):
            with self.subTest(name):
                ios = {}
                for who in ("fio", "ioplan"):
                    d = self.tmp / name / who
                    d.mkdir(parents=True)
                    (d / "f.dat").write_bytes(bytes(1 << 20))
                    p = (run_fio if who == "fio" else run)(
                        ["--name=t", *args, "--filesize=100k", "--bs=8k", "--rw=randread:3",
                         "--write_iolog=t.iolog", "--output=out.txt"], cwd=d)
                    self.assertEqual(p.returncode, 0, f"{who}: {p.stderr}")
                    ios[who] = [io[1:] for io in ios_of(d / "t.iolog")]
                self.assertEqual(len(ios["fio"]), 13, "fio's own count moved")
                self.assertEqual(ios["ioplan"], ios["fio"])

    def test_the_next_loop_starts_where_fios_turn_stopped(self):
        # As a loop's files run out, fio's round-robin turn moves past each file it
        # tries, up to the last one it finds done, and the next loop starts after that
        # one: rw=write bsrange=4k-16k nrfiles=4 file_service_type=roundrobin:2 starts
        # its second loop on the third file.  ioplan started it after the file it had
        # last served (the fourth).
        ios = {}
        for who in ("fio", "ioplan"):
            d = self.tmp / who
            d.mkdir()
            p = (run_fio if who == "fio" else run)(
                ["--name=t", "--ioengine=null", "--size=1000k", "--rw=write", "--bsrange=4k-16k", "--nrfiles=4",
                 "--file_service_type=roundrobin:2", "--loops=2", "--write_iolog=t.iolog", "--output=out.txt"],
                cwd=d)
            self.assertEqual(p.returncode, 0, f"{who}: {p.stderr}")
            ios[who] = ios_of(d / "t.iolog")
        self.assertEqual(len(ios["fio"]), 196, "fio's own count moved")
        self.assertEqual(ios["fio"][98][:3], ("t.0.2", "write", 0), "fio's second loop moved")
        self.assertEqual(ios["ioplan"], ios["fio"])

    def test_a_percentage_io_size_ends_where_the_files_run_out(self):
        # fio's keep_running starts another loop after its files all ran out only while
        # loops= lasts or io_size= is a number of bytes: io_size=N% leaves its io_size 0
        # (size= takes the share), so rw=read:8k bs=4k size=100k io_size=40% reads the
        # holed pass's 9 blocks (36 KiB) and ends.  ioplan read a 10th, at 0 again.
        got = {}
        for who in ("fio", "ioplan"):
            d = self.tmp / who
            d.mkdir()
            p = (run_fio if who == "fio" else run)(
                ["--name=t", "--filename=f.dat", "--size=100k", "--bs=4k", "--rw=read:8k", "--io_size=40%",
                 "--write_iolog=t.iolog", "--output=out.txt"], cwd=d)
            self.assertEqual(p.returncode, 0, f"{who}: {p.stderr}")
            got[who] = ios_of(d / "t.iolog")
        self.assertEqual(len(got["fio"]), 9, "fio's own count moved")
        self.assertEqual(got["ioplan"], got["fio"])

    def test_a_normal_law_over_a_few_blocks_ends(self):
        # fio's gauss halves its deviation while the mean of its draws stays out of
        # range; a mean of the range's size itself never comes back in, and fio 3.33
        # spins on size=8k bs=4k normal:10 for good.  ioplan gives the draw and ends.
        for size in ("8k", "12k"):
            with self.subTest(size=size):
                p = run(["--name=g", "--ioengine=null", "--rw=randread", f"--size={size}", "--bs=4k",
                         "--random_distribution=normal:10", "--output-format=json"], cwd=self.tmp,
                        timeout=30)
                self.assertEqual(p.returncode, 0, p.stderr)
                self.assertEqual(bytes_of(p.stdout)["g"], (int(size[:-1]) * 1024, 0))

    def test_verify_reads_back_each_write_whole(self):
        # fio's verify reads each write still on its list once, with its own length; with
        # lfsr (no map) a write over earlier ones replaces them (fio: 5 writes, 2 reads back).
        text = ("[lf]\nfilename=lf.dat\nsize=8m\nrw=randwrite\nbsrange=4k-4m\n"
                "random_generator=lfsr\nverify=crc32c\n"
                "[range]\nstonewall\nfilename=range.dat\nsize=8m\nrw=randwrite\n"
                "bsrange=4k-64k\nverify=crc32c\n"
                # Writes bigger than the reads start on their own 16 KiB steps, so
                # fio's 16 KiB verify interval fits them (ioplan refused the job).
                "[mixed]\nstonewall\nfilename=mixed.dat\nsize=8m\nrw=randrw\nbs=4k,16k\n"
                "verify=crc32c\n")
        got = {}
        for who, runner in (("fio", run_fio), ("ioplan", run)):
            d = self.tmp / who
            d.mkdir()
            (d / "job.fio").write_text(text)
            p = runner(["--output-format=json", "job.fio"], cwd=d)
            self.assertEqual(p.returncode, 0, f"{who}: {p.stderr}")
            doc = json.loads(p.stdout[p.stdout.index("{"):])
            got[who] = {j["jobname"]: [(j[k]["io_bytes"], j[k]["total_ios"]) for k in ("read", "write")]
                        for j in doc["jobs"]}
        self.assertEqual(got["ioplan"], got["fio"])
        reads, writes = got["fio"]["lf"]
        self.assertLess(reads[1], writes[1])
        self.assertEqual(got["fio"]["range"][0], got["fio"]["range"][1])

    def test_openfiles_open_and_close_files_as_fios(self):
        # Under openfiles fio opens a file when it is first picked and closes it when
        # a pick finds it done (a random map's failed draw, with no I/O of its own in
        # flight); a closed file picked while the limit is reached is drawn again.
        # ioplan used to wait for that file's completion, which never came: the random
        # bsrange jobs hung, and so did a mix whose writes had left the file its reads
        # still used; a random mix's next loop starts (re-seeded) before it decides its
        # direction, as without openfiles.  Real files, psync.
        for service in ("roundrobin", "sequential", "random", "zipf:1.2"):
            for body in ("rw=randread\nbsrange=1k-16k\n", "rw=read\n", "rw=rw\nbs=4k,16k\n",
                         "rw=randrw\nbsrange=1k-16k\nloops=2\n"):
                ios = {}
                for who, runner in (("fio", run_fio), ("ioplan", run)):
                    d = self.tmp / f"{who}-{service}-{len(body)}"
                    d.mkdir()
                    (d / "job.fio").write_text(f"[o]\n{body}nrfiles=5\nsize=1000003\nopenfiles=2\n"
                                               f"file_service_type={service}\nwrite_iolog=o.iolog\n")
                    p = runner(["--output-format=json", "job.fio"], cwd=d, timeout=60)
                    self.assertEqual(p.returncode, 0, f"{who}: {p.stderr}")
                    ios[who] = ios_of(d / "o.iolog")
                with self.subTest(service=service, body=body):
                    self.assertGreater(len(ios["fio"]), 90)
                    self.assertEqual(ios["ioplan"], ios["fio"])

    def test_openfiles_at_depth_waits_for_a_file_as_fio(self):
        # At depth a file that ran out closes once its I/Os in flight complete.  Till
        # then fio's pick of the next file fails (-EBUSY) before its fill decides a
        # direction, and tries again after each completion, its round robin turn (or
        # its file draw) moving on at each try.  ioplan decided the mix's direction
        # again at each try and kept its turn: rw=rw nrfiles=3 openfiles=1 libaio
        # iodepth=4 made 14 reads and 16 writes (fio 13 and 17), and at iodepth=2 a
        # sequential service went on to file 1 where fio opens file 2.  libaio's
        # buffered I/O completes at submission, so fio's sequence is the same each run.
        cases = {
            "rw_rr_4": "rw=rw\niodepth=4\nnrfiles=3\nopenfiles=1\nfile_service_type=roundrobin\n",
            "rw_seq_2": "rw=rw\nrwmixread=30\niodepth=2\nnrfiles=3\nopenfiles=1\nfile_service_type=sequential\n",
            "rw_random_8": "rw=rw\nrwmixread=70\niodepth=8\nnrfiles=4\nopenfiles=1\nfile_service_type=random\n",
            "randrw_seq_4": "rw=randrw\niodepth=4\nnrfiles=4\nopenfiles=1\nfile_service_type=sequential\n",
            "randrw_rr_2_of_4": "rw=randrw\nrwmixread=30\niodepth=4\nnrfiles=4\nopenfiles=2\n"
                                "file_service_type=roundrobin\n",
        }
        for name, body in cases.items():
            ios = {}
            for who, runner in (("fio", run_fio), ("ioplan", run)):
                d = self.tmp / f"{who}-{name}"
                d.mkdir()
                (d / "job.fio").write_text(f"[o]\nioengine=libaio\nbs=4k\nfilesize=40k\n{body}"
                                           "write_iolog=o.iolog\n")
                p = runner(["--output-format=json", "job.fio"], cwd=d, timeout=60)
                self.assertEqual(p.returncode, 0, f"{who}: {p.stderr}")
                ios[who] = ios_of(d / "o.iolog")
            with self.subTest(name):
                self.assertGreaterEqual(len(ios["fio"]), 30)
                self.assertEqual(ios["ioplan"], ios["fio"])

    def test_unrepeatable_seeds_overshoot_by_less_than_an_io(self):
        jobs = {"split_nomap": JOBS["split_nomap"], "jesd219": JOBS["jesd219"]}
        for who, runner in (("fio", run_fio), ("ioplan", run)):
            d = self.tmp / who
            d.mkdir()
            (d / "job.fio").write_text(job_file(jobs, "randrepeat=0\nnumjobs=4\n").replace("write_iolog=", "#"))
            p = runner(["--output-format=json", "job.fio"], cwd=d)
            self.assertEqual(p.returncode, 0, f"{who}: {p.stderr}")
            doc = json.loads(p.stdout[p.stdout.index("{"):])
            moved = [j["read"]["io_bytes"] + j["write"]["io_bytes"] for j in doc["jobs"]]
            self.assertEqual(len(moved), 8)
            for m in moved:
                self.assertGreaterEqual(m, 4 << 20, who)
                self.assertLess(m, (4 << 20) + 65536, who)
            # The last I/O goes whole: of 8 clones, some end past size= (an exact
            # landing for all 8 is far less likely than a run of this test failing).
            self.assertTrue(any(m > 4 << 20 for m in moved), f"{who}: {moved}")


@unittest.skipIf(FIO is None, "fio not installed")
@unittest.skipIf(VARIANT != "release", "a sanitizer reserves more address space than the limit leaves")
class SoftRandomMap(TmpDirCase):
    """softrandommap=1: a random map that cannot be allocated is done without, as fio
    does.  The map's allocation fails for real: each tool runs under an address-space
    limit (RLIMIT_AS) that leaves room for the job without a map, not for the 128 MiB
    one of 2^30 one-byte blocks (bsrange=1-2 over a sparse 1 GiB file: lengths that
    vary, so ioplan keeps fio's map too)."""
    JOB = ["--name=m", "--filename=big", "--rw=randread", "--bsrange=1-2", "--number_ios=64",
           "--output-format=json"]

    def limited(self, tool, limit_mib, *extra):
        """(CompletedProcess, its job's JSON or None) of the job under an address-space limit."""
        lim = limit_mib << 20
        p = subprocess.run([tool, *self.JOB, *extra], cwd=self.tmp, capture_output=True, text=True, timeout=120,
                           preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (lim, lim)))
        try:
            return p, json.loads(p.stdout[p.stdout.index("{"):])["jobs"][0]
        except ValueError:
            return p, None

    def room_without_map(self, tool):
        """The least limit (MiB, to 16) under which the job runs with norandommap=1."""
        lo, hi = 16, 4096
        while hi - lo > 16:
            mid = (lo + hi) // 2
            _, job = self.limited(tool, mid, "--norandommap=1")
            if job and job["read"]["total_ios"] == 64:
                hi = mid
            else:
                lo = mid
        return hi

    def test_a_map_that_cannot_be_had_is_done_without(self):
        with open(self.tmp / "big", "wb") as f:
            f.truncate(1 << 30)
        seqs = {}
        for who, tool in (("fio", FIO), ("ioplan", BIN)):
            with self.subTest(who=who):
                # 96 MiB above: never room for the 128 MiB map, always for a thread's stack
                # (8 MiB) beside the 64 MiB heap glibc reserves for a thread's arena when
                # its mmap happens to come back aligned (+48 left 7 runs in 300 without a
                # stack: "cannot start clone 1 of 1").
                limit = self.room_without_map(tool) + 96
                p, job = self.limited(tool, limit)
                self.assertIn("random map", p.stderr)
                if who == "ioplan":
                    # fio's job runs nothing, with error 0 and exit 0; ioplan's fails.
                    self.assertEqual((p.returncode, job["error"]), (1, 12), p.stderr)
                    self.assertIn("softrandommap=1", p.stderr)
                self.assertEqual(job["read"]["total_ios"], 0)
                p, job = self.limited(tool, limit, "--softrandommap=1", f"--write_iolog={who}.log")
                self.assertEqual((p.returncode, job["error"], job["read"]["total_ios"]), (0, 0, 64), p.stderr)
                # fio's note goes to stdout ahead of its JSON; ioplan's into the JSON's messages.
                self.assertIn("random map", p.stdout)
                seqs[who] = ios_of(self.tmp / f"{who}.log")
        # Without its map fio draws as with norandommap, from its own seeds: so does ioplan.
        self.assertEqual(seqs["ioplan"], seqs["fio"])
        self.assertEqual(len(seqs["ioplan"]), 64)
        # With room for the map the option changes nothing: fio's map and draws, in both.
        for who, tool in (("fio", FIO), ("ioplan", BIN)):
            p, job = self.limited(tool, 1 << 16, "--softrandommap=1", f"--write_iolog={who}-room.log")
            self.assertEqual((p.returncode, job["read"]["total_ios"]), (0, 64), p.stderr)
            self.assertNotIn("random map", p.stdout)
        self.assertEqual(ios_of(self.tmp / "ioplan-room.log"), ios_of(self.tmp / "fio-room.log"))


# trimwrite and randtrimwrite, as fio's set_rw_ddir: a file trims when its last write
# started where its last trim did, else it writes; randtrimwrite's write is the file's
# last trim again, trimwrite's goes on in its own size.  ioplan wrote each trim at once,
# in the trim's size, and counted the pair once.
TRIM_JOBS = {
    # A 16 KiB trim, then 8 KiB writes until they catch up (ioplan: 16 KiB writes,
    # 256 of them, where fio's last trim ends the pass after 511).
    "tw_smaller_writes": "rw=trimwrite\nbs=4k,8k,16k\n",
    # A 4 KiB trim, then 16 KiB writes: size= counts the writes (fio 16 writes, 2 trims).
    "tw_larger_writes": "rw=trimwrite\nbs=4k,16k,4k\nsize=256k\nloops=2\n",
    # Over files in turn: a trim in each, then a write in each.
    "tw_files": "rw=trimwrite\nbs=64k\nnrfiles=2\nsize=1m\n",
    "rtw_files": "rw=randtrimwrite\nbsrange=4k-32k\nnrfiles=2\nsize=1m\n",
    # io_size= past one pass: fio's keep_running counts the trims with the writes (two
    # rounds of 1 MiB written, not three).
    "tw_io_size": "rw=trimwrite\nbs=64k\nsize=1m\nio_size=3m\n",
    "rtw_io_size": "rw=randtrimwrite\nbsrange=4k-64k\nsize=1m\nio_size=3m\n",
    # number_ios counts trims and writes, and fio's do_io doubles it for trimwrite each
    # loop: 42, then 84 I/Os, then the whole last pass (137 in all).
    "tw_number_ios": "rw=trimwrite\nbs=4k,4k,64k\nsize=256k\nnumber_ios=7\nloops=3\n",
}


def all_bytes_of(stdout):
    doc = json.loads(stdout[stdout.index("{"):])
    return {j["jobname"]: tuple((j[d]["io_bytes"], j[d]["total_ios"]) for d in ("read", "write", "trim"))
            for j in doc["jobs"]}


@unittest.skipIf(FIO is None, "fio not installed")
class TrimwriteLikeFio(TmpDirCase):
    def test_trims_and_writes_are_fios(self):
        out = {}
        for who in ("fio", "ioplan"):
            d = self.tmp / who
            d.mkdir()
            text = "[global]\nioengine=null\nsize=4m\n" + "".join(
                f"[{name}]\n{body}write_iolog={name}.iolog\n" for name, body in TRIM_JOBS.items())
            (d / "job.fio").write_text(text)
            p = (run_fio if who == "fio" else run)(["--output-format=json", "job.fio"], cwd=d)
            self.assertEqual(p.returncode, 0, f"{who}: {p.stderr}")
            out[who] = (all_bytes_of(p.stdout), {n: ios_of(d / f"{n}.iolog") for n in TRIM_JOBS})
        for name in TRIM_JOBS:
            with self.subTest(name):
                self.assertEqual(out["ioplan"][0][name], out["fio"][0][name])
                self.assertEqual(out["ioplan"][1][name], out["fio"][1][name])
        self.assertEqual(out["ioplan"][0]["tw_smaller_writes"], ((0, 0), (4186112, 511), (4194304, 256)))
        self.assertEqual(out["ioplan"][0]["tw_io_size"][1], (2 << 20, 32))
        self.assertEqual(sum(n for _, n in out["ioplan"][0]["tw_number_ios"]), 137)


if __name__ == "__main__":
    unittest.main()
