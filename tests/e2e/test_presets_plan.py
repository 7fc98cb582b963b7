"""tests/e2e/test_presets_plan.py - each preset resolves to the plan reviewed here.

`ioplan --showplan` of every jobs/*.fio is reduced to one tuple per job -
(name, group, rw, block size, iodepth, numjobs, engine, direct, file size,
runtime ms, time_based, repeat, repeat_discard, aggregate, repeat_pause ms,
group_pause ms) - and compared with the summary below, written from the sources
each preset cites (CrystalDiskMark's slots, Azure's job files, the seeds'
command lines).  Details a tuple cannot show are checked one by one.
"""
import unittest

from common import ROOT, showplan

E = (ROOT / "jobs")

CDM = ("libaio", True, "1g", 5000, True, 5, 1, "max", 0)
AZ = ("libaio", True, "30g", 30000, True, 1, 0, "max", 0, 0)
WS = ("libaio", True, "1g", 5000, True, 1, 0, "max", 0, 0)
GD = ("psync", True, "1000m", 0, False, 1, 0, "max", 0, 0)


def cdm(name, g, rw, bs, q, t):
    return (name, g, rw, bs, q, t) + CDM + (0 if g == 0 else 5000,)


EXPECTED = {
    "cdm-default": [
        cdm("SEQ1M_Q8T1_READ", 0, "read", "1m", 8, 1), cdm("SEQ1M_Q1T1_READ", 1, "read", "1m", 1, 1),
        cdm("RND4K_Q32T1_READ", 2, "randread", "4k", 32, 1), cdm("RND4K_Q1T1_READ", 3, "randread", "4k", 1, 1),
        cdm("SEQ1M_Q8T1_WRITE", 4, "write", "1m", 8, 1), cdm("SEQ1M_Q1T1_WRITE", 5, "write", "1m", 1, 1),
        cdm("RND4K_Q32T1_WRITE", 6, "randwrite", "4k", 32, 1), cdm("RND4K_Q1T1_WRITE", 7, "randwrite", "4k", 1, 1),
    ],
    "cdm-nvme": [
        cdm("SEQ1M_Q8T1_READ", 0, "read", "1m", 8, 1), cdm("SEQ128K_Q32T1_READ", 1, "read", "128k", 32, 1),
        cdm("RND4K_Q32T16_READ", 2, "randread", "4k", 32, 16), cdm("RND4K_Q1T1_READ", 3, "randread", "4k", 1, 1),
        cdm("SEQ1M_Q8T1_WRITE", 4, "write", "1m", 8, 1), cdm("SEQ128K_Q32T1_WRITE", 5, "write", "128k", 32, 1),
        cdm("RND4K_Q32T16_WRITE", 6, "randwrite", "4k", 32, 16), cdm("RND4K_Q1T1_WRITE", 7, "randwrite", "4k", 1, 1),
    ],
    "cdm-peak": [
        cdm("SEQ1M_Q8T1_READ", 0, "read", "1m", 8, 1), cdm("RND4K_Q32T1_READ", 1, "randread", "4k", 32, 1),
        cdm("SEQ1M_Q8T1_WRITE", 2, "write", "1m", 8, 1), cdm("RND4K_Q32T1_WRITE", 3, "randwrite", "4k", 32, 1),
    ],
    "cdm-realworld": [
        cdm("SEQ1M_Q1T1_READ", 0, "read", "1m", 1, 1), cdm("RND4K_Q1T1_READ", 1, "randread", "4k", 1, 1),
        cdm("SEQ1M_Q1T1_WRITE", 2, "write", "1m", 1, 1), cdm("RND4K_Q1T1_WRITE", 3, "randwrite", "4k", 1, 1),
    ],
    "default": [
        (n, g, rw, bs, q, 1, "libaio", True, "16m", 500, True, 2, 1, "max", 0, 0)
        for n, g, rw, bs, q in (("SEQ1M_Q8T1_READ", 0, "read", "1m", 8), ("RND4K_Q32T1_READ", 1, "randread", "4k", 32),
                                ("SEQ1M_Q8T1_WRITE", 2, "write", "1m", 8), ("RND4K_Q32T1_WRITE", 3, "randwrite", "4k", 32))
    ],
    "azure-max-iops": [
        ("write-iops", 0, "randwrite", "4k", 256, 4) + AZ, ("read-iops", 1, "randread", "4k", 256, 4) + AZ,
        ("readwrite-read", 2, "randread", "4k", 128, 4) + AZ, ("readwrite-write", 2, "randwrite", "4k", 128, 4) + AZ,
    ],
    "azure-max-throughput": [
        ("throughput-read", 0, "randread", "64k", 128, 4) + AZ, ("throughput-write", 0, "randwrite", "64k", 128, 4) + AZ,
    ],
    "azure-cache-warmup": [
        ("warmup", 0, "read", "512k", 32, 4, "libaio", True, "30g", 0, False, 1, 0, "max", 0, 0),
    ],
    "oltp": [("oltp", 0, "randrw", "8k", 8, 4, "libaio", True, "4g", 60000, True, 1, 0, "max", 0, 0)],
    "olap": [
        ("olap-interlocked", 0, "read", "512k", 8, 4, "libaio", True, "4g", 60000, True, 1, 0, "max", 0, 0),
        ("olap-strided", 1, "read", "512k", 8, 4, "libaio", True, "4g", 60000, True, 1, 0, "max", 0, 0),
    ],
    "winsat-disk": [
        ("seq-64k-read", 0, "read", "64k", 1, 1) + WS, ("ran-16k-read", 1, "randread", "16k", 1, 1) + WS,
        ("seq-64k-write", 2, "write", "64k", 1, 1) + WS, ("ran-16k-write", 3, "randwrite", "16k", 1, 1) + WS,
        ("ran-4k-read", 4, "randread", "4k", 1, 1) + WS, ("ran-4k-write", 5, "randwrite", "4k", 1, 1) + WS,
    ],
    "hdparm-t": [("buffered-disk-reads", 0, "read", "2m", 1, 1, "psync", False, "1g", 3000, False, 10, 0, "mean", 5000, 0)],
    "dd": [
        ("dd-write", 0, "write", "1m", 1, 1, "psync", True, "1000m", 0, False, 10, 0, "mean", 5000, 0),
        ("dd-read", 1, "read", "1m", 1, 1, "psync", True, "1000m", 0, False, 10, 0, "mean", 5000, 5000),
    ],
    "gnome-disks": [
        ("transfer-rate-read", 0, "read", "10m", 1, 1) + GD, ("access-time", 1, "randread", "4k", 1, 1) + GD,
    ],
    "gnome-disks-write": [
        ("transfer-rate-read", 0, "read", "10m", 1, 1) + GD, ("transfer-rate-write", 1, "write", "10m", 1, 1) + GD,
        ("access-time", 2, "randread", "4k", 1, 1) + GD,
    ],
}


def size(b):
    for unit, s in ((1 << 30, "g"), (1 << 20, "m"), (1 << 10, "k")):
        if b and b % unit == 0:
            return f"{b // unit}{s}"
    return str(b)


def jobs(name):
    plan = showplan(["--directory=/d", str(E / f"{name}.fio")])
    return [j for g in plan["groups"] for j in g["jobs"]]


def summary(j):
    d = "read" if j["rw"] in ("read", "randread", "rw", "randrw") else "write"
    return (j["name"], j["groupid"], j["rw"], size(j["bs"][d]["min_bytes"]), j["iodepth"], j["numjobs"],
            j["ioengine"], j["direct"], size(j["clones"][0]["files"][0]["size_bytes"]), j["runtime_ns"] // 10**6,
            j["time_based"], j["repeat"], j["repeat_discard"], j["repeat_aggregate"],
            j["repeat_pause_ns"] // 10**6, j["group_pause_ns"] // 10**6)


def paths(j):
    return [f["path"] for c in j["clones"] for f in c["files"]]


class PresetPlans(unittest.TestCase):
    def test_every_preset_has_a_reviewed_summary(self):
        self.assertEqual(sorted(EXPECTED), sorted(p.stem for p in E.glob("*.fio")))

    def test_each_preset_resolves_to_its_summary(self):
        for name, want in EXPECTED.items():
            with self.subTest(preset=name):
                self.assertEqual([summary(j) for j in jobs(name)], want)

    def test_crystaldiskmark_tests_share_one_file_and_write_from_one_random_block(self):
        for name in ("cdm-default", "cdm-nvme", "cdm-peak", "cdm-realworld", "default"):
            with self.subTest(preset=name):
                js = jobs(name)
                self.assertEqual({p for j in js for p in paths(j)}, {f"/d/ioplan-{'default' if name == 'default' else 'cdm'}.tmp"})
                for j in js:
                    if j["rw"] in ("write", "randwrite"):
                        self.assertEqual(j["write_source_bytes"], j["bs"]["write"]["min_bytes"])
                        self.assertEqual(j["buffer_fill"], "random_once")
                    self.assertTrue(j["group_reporting"])

    def test_azure_writers_in_the_mixed_test_are_held_to_3200_iops_each(self):
        js = {j["name"]: j for j in jobs("azure-max-iops")}
        self.assertEqual(js["readwrite-write"]["rate_iops"]["write"], 3200)
        self.assertEqual(js["readwrite-read"]["rate_iops"]["read"], 0)
        self.assertEqual(paths(js["read-iops"]), paths(js["readwrite-read"]))
        self.assertEqual(paths(js["readwrite-read"]), [f"/d/reader1.{i}.0" for i in range(4)])
        warm = jobs("azure-cache-warmup")[0]
        self.assertEqual(paths(warm), paths(js["read-iops"]))

    def test_oltp_is_70_30_with_latency_percentiles(self):
        j = jobs("oltp")[0]
        self.assertEqual(j["rwmixread_pct"], 70)
        self.assertTrue(j["lat_percentiles"])
        self.assertIn(99.99, j["percentiles"])

    def test_olap_threads_share_an_offset_or_read_their_own_quarter(self):
        inter, strided = jobs("olap")
        self.assertTrue(inter["interlocked"])
        self.assertEqual({c["offset_bytes"] for c in inter["clones"]}, {0})
        self.assertFalse(strided["interlocked"])
        self.assertEqual([c["offset_bytes"] for c in strided["clones"]], [i << 30 for i in range(4)])
        self.assertEqual(strided["size_bytes"], 1 << 30)

    def test_gnome_disks_samples_are_strided_zones_and_every_io_is_recorded(self):
        sweep, access = jobs("gnome-disks")
        self.assertEqual((sweep["zone_size_bytes"], sweep["zone_range_bytes"], sweep["zone_range_ppm"]),
                         (10 << 20, 0, 10000))
        self.assertEqual(sweep["io_size_bytes"], 100 * (10 << 20))
        self.assertEqual(sweep["io_trace_max"], 100)
        self.assertEqual(access["zone_size_bytes"], 0)
        self.assertEqual((access["number_ios"], access["io_trace_max"]), (1000, 1000))
        self.assertTrue(access["norandommap"])


if __name__ == "__main__":
    unittest.main()
