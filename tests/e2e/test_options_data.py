"""tests/e2e/test_options_data.py - what written data holds, against fio 3.33.

dedupe_percentage makes that share of the written blocks repeat an earlier one:
the tests write a file with ioplan and with fio and count the distinct 4 KiB
blocks by hashing them, the property a deduplicating device measures.
"""
import hashlib
import unittest

from common import FIO, TmpDirCase, run, run_fio

BLOCKS = 2048


def unique_share(path, bs=4096):
    data = path.read_bytes()
    seen = {hashlib.sha1(data[i:i + bs]).digest() for i in range(0, len(data), bs)}
    return len(seen) / (len(data) // bs)


class Dedupe(TmpDirCase):
    def shares(self, opts):
        out = {}
        for who, runner in (("ioplan", run), ("fio", run_fio)):
            if who == "fio" and not FIO:
                continue
            d = self.tmp / who
            d.mkdir(exist_ok=True)
            f = d / ("w%d.dat" % len(list(d.iterdir())))
            p = runner(["--name=w", "--filename=" + str(f), "--rw=write", "--bs=4k",
                        "--size=%d" % (BLOCKS * 4096), *opts], cwd=str(d))
            self.assertEqual(p.returncode, 0, who + ": " + p.stderr)
            out[who] = unique_share(f)
        return out

    def test_percentage_is_the_share_of_repeated_blocks(self):
        for pct in (0, 40, 80):
            for who, share in self.shares(["--dedupe_percentage=%d" % pct]).items():
                self.assertAlmostEqual(share, 1 - pct / 100, delta=0.05, msg=(who, pct))

    def test_working_set_repeats_come_from_a_small_set(self):
        # 60% of the blocks repeat one of 5% of the region's blocks: at most 40% + 5% distinct.
        opts = ["--dedupe_percentage=60", "--dedupe_mode=working_set", "--dedupe_working_set_percentage=5"]
        for who, share in self.shares(opts).items():
            self.assertLess(share, 0.47, who)
            self.assertGreater(share, 0.33, who)

    def test_bad_values_are_positioned(self):
        self.write("d.fio", "[d]\nsize=1m\ndedupe_percentage=101\n")
        p = run([str(self.tmp / "d.fio"), "--parse-only"])
        self.assertEqual(p.returncode, 2)
        self.assertIn("d.fio:3:19: error:", p.stderr)
        self.write("m.fio", "[d]\nsize=1m\ndedupe_mode=sometimes\n")
        p = run([str(self.tmp / "m.fio"), "--parse-only"])
        self.assertIn("m.fio:3:13: error:", p.stderr)


if __name__ == "__main__":
    unittest.main()
