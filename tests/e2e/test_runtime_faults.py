"""tests/e2e/test_runtime_faults.py - targets that fail or misbehave at run time.

Issue 18's runtime cases, each through the binary on real files, devices,
FIFOs and signals: reads that return no data (/dev/null, a file truncated by
the test mid-run) are EIO and exit 1 as in fio.
"""
import json
import os
import subprocess
import time
import unittest

from common import BIN, FIO, TmpDirCase, run, run_fio


class NoData(TmpDirCase):
    def test_dev_null_reads_are_eio_as_in_fio(self):
        args = ["--name=j", "--filename=/dev/null", "--rw=read", "--size=1m", "--output-format=json"]
        p = run(args)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn("job 'j': /dev/null: offset 0: short read (0 of 4096 bytes): "
                      "Input/output error (errno 5)", p.stderr)
        doc = json.loads(p.stdout)
        self.assertEqual(doc["jobs"][0]["error"], 5)
        self.assertEqual(doc["jobs"][0]["read"]["io_bytes"], 0)
        if FIO:
            out = self.tmp / "fio.json"  # fio also prints its err= line on stdout
            f = run_fio([*args, f"--output={out}"])
            self.assertEqual((f.returncode, json.loads(out.read_text())["jobs"][0]["error"]), (p.returncode, 5))

    def test_normal_output_shows_the_error(self):
        p = run(["--name=j", "--filename=/dev/null", "--rw=read", "--size=64k"])
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn("j: (groupid=0, jobs=1): err= 5 (short read (0 of 4096 bytes) /dev/null at offset 0: "
                      "Input/output error)", p.stdout)

    def test_async_engines_fail_the_same_way(self):
        for engine in ("libaio", "io_uring"):
            p = run(["--name=j", "--filename=/dev/null", "--rw=read", "--size=64k", f"--ioengine={engine}",
                     "--iodepth=4", "--output-format=json"])
            errors = json.loads(p.stdout)["ioplan"]["jobs"][0]["errors"]
            if engine == "io_uring" and errors and errors[0]["errno"] in (1, 38):
                continue  # io_uring refused by the kernel
            self.assertEqual(p.returncode, 1, p.stderr)
            self.assertEqual(json.loads(p.stdout)["jobs"][0]["error"], 5, engine)

    def test_file_truncated_mid_run_ends_the_job_with_eio(self):
        target = self.tmp / "data"
        target.write_bytes(os.urandom(8 << 20))
        proc = subprocess.Popen([BIN, "--name=t", f"--filename={target}", "--rw=read", "--bs=4k",
                                 "--rate_iops=2000", "--time_based", "--runtime=30", "--output-format=json"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(0.5)
        os.truncate(target, 0)
        start = time.monotonic()
        out, err = proc.communicate(timeout=30)
        self.assertLess(time.monotonic() - start, 2.0)
        self.assertEqual(proc.returncode, 1, err)
        doc = json.loads(out)
        self.assertEqual(doc["jobs"][0]["error"], 5)
        first = doc["ioplan"]["jobs"][0]["errors"][0]
        self.assertEqual((first["errno"], first["file"]), (5, str(target)))
        self.assertEqual(doc["jobs"][0]["read"]["io_bytes"], first["offset"])  # all before the failed read
        self.assertIn(f"job 't': {target}: offset {first['offset']}: short read (0 of 4096 bytes)", err)


if __name__ == "__main__":
    unittest.main()
