"""tests/e2e/test_gen_rwmix.py - a mixed job splits its bytes between reads and writes as fio 3.33's does.

What a user relies on: rw=randrw / rw=rw with rwmixread=N moves exactly the read
and write bytes fio moves for the same job file (fio's default repeatable seeds,
or randseed=), clone by clone, so figures compared with fio's (and fio's own
t0008 check) agree to the I/O.  fio draws a direction, then keeps it for a run
of I/Os, so the split is not simply N%: only fio's decision sequence gives it.
"""
import json
import unittest

from common import FIO, TmpDirCase, run, run_fio

MIXES = {
    "randrw_50": "rw=randrw\nrwmixread=50\n",
    "randrw_70_bs8k": "rw=randrw\nrwmixread=70\nbs=8k\n",
    "randrw_25_seed": "rw=randrw\nrwmixread=25\nrandseed=12345\n",
    "rw_90": "rw=rw\nrwmixread=90\n",
    "rwmixwrite_35": "rw=randrw\nrwmixwrite=35\nrandseed=7\n",
}


def split(stdout):
    """[(job, read bytes, write bytes, read ios, write ios)] of a JSON report."""
    doc = json.loads(stdout[stdout.index("{"):])
    return [(j["jobname"], j["read"]["io_bytes"], j["write"]["io_bytes"], j["read"]["total_ios"],
             j["write"]["total_ios"]) for j in doc["jobs"]]


def job(body):
    # Two clones and a second job: fio seeds each thread from its thread number.
    return ("[global]\nioengine=null\nsize=16m\n"
            f"[a]\nnumjobs=2\n{body}[b]\n{body}")


@unittest.skipIf(FIO is None, "fio not installed")
class RwmixLikeFio(TmpDirCase):
    def both(self, name, text):
        out = {}
        for who in ("fio", "ioplan"):
            path = self.tmp / f"{name}-{who}.fio"
            path.write_text(text)
            args = ["--output-format=json", str(path)]
            p = run_fio(args, cwd=self.tmp) if who == "fio" else run(args, cwd=self.tmp)
            self.assertEqual(p.returncode, 0, f"{who} {name}: {p.stderr}")
            out[who] = split(p.stdout)
        return out

    def test_read_write_split_is_fios_exactly(self):
        for name, body in MIXES.items():
            with self.subTest(name):
                out = self.both(name, job(body))
                self.assertEqual(out["ioplan"], out["fio"])
                # Not a trivially fixed split: the clones differ from each other.
                self.assertNotEqual(out["fio"][0][1:], out["fio"][1][1:])


class RwmixSequence(TmpDirCase):
    def test_fio_t0008_split(self):
        # fio's t0008 (rw=readwrite, 32 MiB, verify_backlog=1): fio 3.33 writes 4142
        # blocks of 4 KiB and reads 4050 (plus 4142 verify reads).  Null engine, same
        # decisions: the test holds without fio installed.
        text = "[foo]\nioengine=null\nbs=4k\nrw=readwrite\nsize=32m\n"
        p = run(["--output-format=json", "-"], cwd=self.tmp, input=text)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(split(p.stdout), [("foo", 4050 * 4096, 4142 * 4096, 4050, 4142)])


if __name__ == "__main__":
    unittest.main()
