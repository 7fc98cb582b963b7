"""tests/e2e/test_report_options.py - fio 3.33's reporting and miscellaneous job
options (significant_figures, unit_base, stats, disable_bw_measurement,
block_error_percentiles, file_append, opendir) and zonesize's refusal, each
checked against fio 3.33's behaviour on the same job.
"""
import json
import re
import unittest

from common import FIO, TmpDirCase, run, run_fio


class ZoneMode(TmpDirCase):
    """fio 3.33 refuses zonesize= unless zonemode=strided, and strided without zonesize=."""
    CASES = [
        ("zonesize=64k\n", 2),
        ("zonemode=none\nzonesize=64k\n", 2),
        ("zonesize=64k\nzonerange=128k\n", 2),
        ("zonemode=strided\n", 2),
        ("zonemode=strided\nzonesize=64k\n", 0),
    ]

    def go(self, runner, extra):
        self.write("z.fio", "[z]\nioengine=null\nsize=1m\n" + extra)
        return runner(["--output-format=json", "z.fio"], cwd=self.tmp)

    def test_refused_as_fio(self):
        for extra, rc in self.CASES:
            p = self.go(run, extra)
            self.assertEqual(p.returncode, rc, extra + p.stderr)
        self.assertEqual(self.go(run, "zonesize=64k\n").stderr.splitlines()[0],
                         "z.fio:1:2: error: job 'z': zonesize= needs zonemode=strided "
                         "(fio: \"--zonemode=none and --zonesize are not compatible\")")
        self.assertEqual(self.go(run, "zonemode=strided\n").stderr.splitlines()[0],
                         "z.fio:1:2: error: job 'z': zonemode=strided needs a zonesize=")

    @unittest.skipUnless(FIO, "fio is not installed")
    def test_fio_refuses_the_same(self):
        for extra, rc in self.CASES:
            p = self.go(run_fio, extra)
            self.assertEqual(p.returncode != 0, rc != 0, extra + p.stderr)


if __name__ == "__main__":
    unittest.main()
