"""tests/e2e/test_bad_input.py - hostile input through the binary: exit 2, a positioned error, no hang.

Values that overflow, job files that never end (/dev/zero, an endless FIFO),
values only a run used to find bad, and the odd corners of the readers and the
command line (issue 18's cases 8, 13, 18 and 22).  Each test runs the real
binary on real files; where fio 3.33 runs the same line, what it does is the
reference.
"""
import json
import os
import signal
import subprocess
import time
import unittest

from common import BIN, FIO, TmpDirCase, run, run_fio, showplan


class Overflow(TmpDirCase):
    """Case 8: arithmetic and numbers past 64 bits are errors, never wrapped values."""

    def check_refused(self, line, message, col):
        self.write("j.fio", f"[j]\nioengine=null\nsize=1m\n{line}\n")
        p = run(["--parse-only", "j.fio"], cwd=self.tmp)
        self.assertEqual(p.returncode, 2, p.stderr)
        first = p.stderr.splitlines()[0]
        self.assertEqual(first, f"j.fio:4:{col}: error: {message}")

    def test_pagesize_product_past_64_bits(self):
        page = os.sysconf("SC_PAGESIZE")
        big = 2 ** 64 // page + 1
        self.check_refused(f"size=$pagesize*{big}", f"bad value for size: '{page}*{big}' does not fit in a 64-bit integer", 6)
        self.check_refused(f"bs=$pagesize*{big}", f"bad value for bs: '{page}*{big}' does not fit in a 64-bit integer", 4)
        self.check_refused("size=$pagesize*99999999999999999999",
                           f"bad value for size: '{page}*99999999999999999999' does not fit in a 64-bit integer", 6)

    def test_fio_refuses_the_same_line(self):
        if not FIO:
            self.skipTest("fio is not installed")
        page = os.sysconf("SC_PAGESIZE")
        self.write("j.fio", f"[j]\nioengine=null\nsize=$pagesize*{2 ** 64 // page + 1}\n")
        p = run_fio(["--parse-only", "j.fio"], cwd=self.tmp)
        self.assertIn("failed parsing size=", p.stderr)

    def test_sizes_are_exact_to_the_byte_and_refused_past_64_bits(self):
        self.write("j.fio", "[j]\nioengine=null\nsize=9007199254740993\n")
        plan = showplan(["j.fio"], cwd=self.tmp)
        self.assertEqual(plan["groups"][0]["jobs"][0]["size_bytes"], 9007199254740993)  # 2^53 + 1
        self.check_refused("offset=18446744073709551616", "bad value for offset: '18446744073709551616' is out of range", 8)
        self.check_refused("offset=16384p", "bad value for offset: '16384p' is too large", 8)
        self.check_refused("runtime=9223372037s", "bad value for runtime: '9223372037s' is too long", 9)

    def test_zone_percentages_cannot_offset_each_other(self):
        self.check_refused("random_distribution=zoned:-50/50:150/50",
                           "bad value for random_distribution: zone I/O percentage -50 is not within 0..100", 21)
        self.check_refused("random_distribution=zoned:4294967296/50:100/50",
                           "bad value for random_distribution: zone I/O percentage 4294967296 is not within 0..100", 21)
        self.check_refused("random_distribution=zoned:100/-50",
                           "bad value for random_distribution: zone range percentage -50 is not within 0..100", 21)


if __name__ == "__main__":
    unittest.main()
