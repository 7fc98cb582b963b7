"""tests/e2e/test_verify_headers.py - which header fields a read-back checks, as fio 3.33's.

fio's verify_io_u compares a block header's magic, length, offset, crc (and its
write number) with what the reader expects, and its seed only in a job that reads
and writes without verify_backlog: clones of a job writing one file leave each
block with its last writer's header and digest, and every clone's read-back is
clean in fio.  Each case runs ioplan and, where installed, fio 3.33 on the same job.
"""
import json
import unittest

from common import FIO, TmpDirCase, run, run_fio


def jobs_of(p):
    """The report's jobs: fio may print its notes before the JSON document."""
    return json.loads(p.stdout[p.stdout.index("{"):])["jobs"]


class SharedFile(TmpDirCase):
    def test_clones_writing_one_file_verify_clean(self):
        # numjobs=4 writers of one 4 MiB file, sequentially, in parallel: a block's last
        # writer is any of them.  ioplan compared each header's seed with the reader's
        # own and failed the clones that did not write last ("verify crc32c: bad header
        # seed: want 0x8a got 0x89", exit 1); fio 3.33 takes the seed from the header.
        args = ["--name=c", f"--filename={self.tmp / 'c.dat'}", "--size=4m", "--bs=4k",
                "--rw=write", "--numjobs=4", "--verify=crc32c", "--output-format=json"]
        for tool in (run, run_fio) if FIO else (run,):
            with self.subTest(tool=tool.__name__):
                (self.tmp / "c.dat").unlink(missing_ok=True)
                p = tool(args, cwd=self.tmp)
                self.assertEqual(p.returncode, 0, p.stderr)
                self.assertEqual([(j["error"], j["read"]["io_bytes"]) for j in jobs_of(p)],
                                 [(0, 4 << 20)] * 4)


if __name__ == "__main__":
    unittest.main()
