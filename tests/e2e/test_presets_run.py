"""tests/e2e/test_presets_run.py - every preset runs end to end.

Each preset runs twice with small sizes and short times given on the command
line (a preset is a template: these override it): once with --ioengine=null,
once for real in a temporary directory.  OLTP's read share and OLAP's shared
offset are checked from the results of real runs.
"""
import json

from common import FIO, ROOT, TmpDirCase, run, run_fio

# 50 ms a group: a preset's groups run one after the other, each job spinning a core (the
# null engine, the page cache) for all of it, and even a loaded machine does I/O in 50 ms.
SHORT = ["--runtime=50ms", "--ramp_time=0", "--repeat=1", "--repeat_discard=0", "--group_pause=0",
         "--repeat_pause=0", "--output-format=json"]
# Presets whose shape needs more than a smaller size to stay small.
EXTRA = {
    # No --zonesize: it would reach the access-time job too, which has no zonemode=strided
    # (fio 3.33 refuses that); the transfer-rate jobs' 10m zones are sampled over a 1m range.
    "gnome-disks": ["--size=100m", "--bs=1m", "--zonerange=1m", "--io_size=100m", "--number_ios=100"],
    "gnome-disks-write": ["--size=100m", "--bs=1m", "--zonerange=1m", "--io_size=100m", "--number_ios=100"],
    "olap": ["--section=olap-interlocked"],
    "dd": ["--io_size=8m"],
}


def presets():
    return sorted(p.stem for p in (ROOT / "jobs").glob("*.fio"))


class PresetsRun(TmpDirCase):
    def run_preset(self, name, *extra, shape=True):
        args = [f"--preset={name}", f"--directory={self.tmp}", "--size=8m", *SHORT,
                *(EXTRA.get(name, []) if shape else []), *extra]
        p = run(args, timeout=120)
        self.assertEqual(p.returncode, 0, f"{name}: {p.stderr}")
        doc = json.loads(p.stdout)
        self.assertTrue(doc["jobs"], name)
        return doc

    def test_every_preset_runs_on_the_null_engine(self):
        for name in presets():
            with self.subTest(preset=name):
                doc = self.run_preset(name, "--ioengine=null")
                ios = sum(j[d]["total_ios"] for j in doc["jobs"] for d in ("read", "write", "trim"))
                self.assertGreater(ios, 0)

    def test_every_preset_runs_in_a_real_directory(self):
        for name in presets():
            with self.subTest(preset=name):
                doc = self.run_preset(name)
                self.assertEqual(doc["ioplan"]["error"], 0)
                for f in self.tmp.iterdir():
                    f.unlink()

    def test_oltp_mixes_70_30_like_fio(self):
        # fio's mix draws a direction and keeps it for a run that grows with the I/Os issued,
        # so the share over a short run is off by more than a point (fio: 68.75% at 1,000 I/Os
        # per job).  A time-bound run would make the count, and so the share, the machine's
        # speed: the count is fixed, and the split must be fio's own, I/O for I/O.
        shape = ["--size=64m", "--runtime=0", "--time_based=0", "--number_ios=8192"]
        doc = self.run_preset("oltp", *shape)
        split = [(j["read"]["total_ios"], j["write"]["total_ios"]) for j in doc["jobs"]]
        reads, writes = map(sum, zip(*split))
        self.assertEqual(reads + writes, 4 * 8192)
        self.assertAlmostEqual(reads / (reads + writes), 0.70, delta=0.01)
        if not FIO:
            return
        # The preset's own text, its one job section given the same shape.
        (self.tmp / "ioplan-oltp.dat").unlink()
        job = self.tmp / "oltp.fio"
        job.write_text((ROOT / "jobs" / "oltp.fio").read_text() + f"directory={self.tmp}\n" +
                       "".join(o[2:] + "\n" for o in shape))
        p = run_fio(["--output-format=json", str(job)])
        self.assertEqual(p.returncode, 0, p.stderr)
        fio = [(j["read"]["total_ios"], j["write"]["total_ios"]) for j in json.loads(p.stdout)["jobs"]]
        self.assertEqual(split, fio)

    def test_gnome_disks_samples_spread_evenly_over_the_whole_target(self):
        # zonerange=1%: 100 samples of zonesize, whatever the target's size.
        doc = self.run_preset("gnome-disks", "--ioengine=null", "--size=2000m", "--bs=1m", "--zonesize=1m",
                              "--io_size=100m", "--section=transfer-rate-read", shape=False)
        (trace,) = doc["ioplan"]["traces"]
        self.assertEqual(trace["ios"]["offset"], [k * 20 << 20 for k in range(100)])

    def test_olap_strided_variant_runs(self):
        doc = self.run_preset("olap", "--section=olap-strided", "--filesize=32m", "--offset_increment=8m",
                              shape=False)
        self.assertEqual(doc["jobs"][0]["jobname"], "olap-strided")

    def test_olap_threads_share_one_offset_each_block_once(self):
        doc = self.run_preset("olap", "--section=olap-interlocked", "--time_based=0", "--runtime=0",
                              "--size=64m", "--io_trace=1000", shape=False)
        (trace,) = doc["ioplan"]["traces"]
        offsets = trace["ios"]["offset"]
        self.assertEqual(len(offsets), 128)  # 64 MiB of 512 KiB reads, four threads
        self.assertEqual(sorted(offsets), [i * 512 * 1024 for i in range(128)])
