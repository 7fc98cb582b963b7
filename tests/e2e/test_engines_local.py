"""tests/e2e/test_engines_local.py - splice, cpuio, exec, e4defrag and the metadata engines (issue 27).

Size-bound jobs run through fio 3.33 and ioplan with the same command line in
private directories: per job, error and the read, write and trim io_bytes must
be equal.  Write cases verify with crc32c, so the data must also have gone
through the engine intact.  Time-bound jobs (cpuio, exec) must end with error 0
within their runtime.
"""
import json
import os
import shutil
import subprocess
import unittest

from common import BIN, FIO, TmpDirCase, run, run_fio

SPLICE_CASES = {
    "splice_write_verify": ["--ioengine=splice", "--rw=randwrite", "--bs=4k", "--verify=crc32c"],
    "splice_read": ["--ioengine=splice", "--rw=read", "--bs=4k"],
    # 256k blocks move in several pipe-sized chunks each.
    "splice_big_write_verify": ["--ioengine=splice", "--rw=write", "--bs=256k", "--verify=crc32c"],
    "splice_big_randread": ["--ioengine=splice", "--rw=randread", "--bs=256k"],
}


def figures(stdout):
    """[(error, read, write, trim io_bytes)] per job of a JSON report (after any notes)."""
    doc = json.loads(stdout[stdout.index("{"):])
    return [(j["error"], j["read"]["io_bytes"], j["write"]["io_bytes"], j["trim"]["io_bytes"])
            for j in doc["jobs"]]


def report(stdout):
    return json.loads(stdout[stdout.index("{"):])


class LocalEngines(TmpDirCase):
    def one(self, who, name, args, files=("--filename=data", "--size=1m")):
        d = self.tmp / who / name
        d.mkdir(parents=True)
        cmd = ["--name=j", *files, *args, "--output-format=json"]
        p = run_fio(cmd, cwd=d) if who == "fio" else run(cmd, cwd=d)
        self.assertIn("{", p.stdout, f"{who} {name}: {p.stderr}")
        return p.returncode, figures(p.stdout), p.stderr

    def differential(self, cases, files=("--filename=data", "--size=1m")):
        if FIO is None:
            self.skipTest("fio not installed")
        for name, args in cases.items():
            with self.subTest(name):
                frc, ff, _ = self.one("fio", name, args, files)
                irc, fi, err = self.one("ioplan", name, args, files)
                self.assertEqual(fi, ff, f"{name}: ioplan {fi} fio {ff}; {err}")
                self.assertEqual(bool(irc), bool(frc), f"{name}: exit status; {err}")

    def test_splice_io_bytes_and_error_are_fios(self):
        self.differential(SPLICE_CASES)

    def test_splice_alone_moves_and_verifies_every_byte(self):
        rc, f, err = self.one("ioplan", "alone", ["--ioengine=splice", "--rw=randwrite", "--bs=192k",
                                                  "--verify=crc32c", "--size=3m"])
        self.assertEqual((rc, f), (0, [(0, 3 << 20, 3 << 20, 0)]), err)

    @unittest.skipIf(shutil.which("strace") is None, "strace not installed")
    def test_splice_goes_through_a_pipe(self):
        # 16 reads of 64k: one splice from the file and one vmsplice out per block.
        st = self.tmp / "st"
        (self.tmp / "data").write_bytes(b"\1" * (1 << 20))
        p = subprocess.run(["strace", "-f", "-c", "-o", str(st), "-e", "trace=splice,vmsplice",
                            BIN, "--name=j", "--filename=data", "--size=1m", "--bs=64k", "--ioengine=splice",
                            "--rw=read", "--output-format=json"], cwd=self.tmp, capture_output=True, text=True,
                           timeout=120, env={**os.environ, "ASAN_OPTIONS": "detect_leaks=0"})
        self.assertEqual(p.returncode, 0, p.stderr)
        calls = {f.split()[-1]: int(f.split()[3]) for f in st.read_text().splitlines()
                 if f.split() and f.split()[-1] in ("splice", "vmsplice")}
        self.assertEqual(calls.get("splice"), 16, calls)
        self.assertEqual(calls.get("vmsplice"), 16, calls)


if __name__ == "__main__":
    unittest.main()
