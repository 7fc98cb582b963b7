"""tests/e2e/test_fio_run_parity.py - runs that must go as fio 3.33's go, job file for job file.

Job files other people wrote run through fio and ioplan side by side: what a
run does (which jobs run, the errors they report, the files and directories it
makes, the bytes it moves, its counters and its wording) is compared with what
fio 3.33 does with the same file.  Each test writes its own small job file,
runs both tools in private directories and compares the figures the tools
control (bytes, I/O counts, error numbers, exit status), never timings.
"""
import json
import unittest

from common import FIO, TmpDirCase, run, run_fio


def json_of(stdout):
    """The JSON document of a run's stdout (fio may print its notes before it)."""
    return json.loads(stdout[stdout.index("{"):])


def jobs_of(doc):
    return {j["jobname"]: j for j in doc["jobs"]}


@unittest.skipIf(FIO is None, "fio not installed")
class RunParity(TmpDirCase):
    def both(self, text, args=("--output-format=json",), name="job.fio"):
        """{tool: (CompletedProcess, its directory)} of one job file run by each tool;
        {dir} in text is the tool's own directory."""
        out = {}
        for who in ("fio", "ioplan"):
            d = self.tmp / who
            d.mkdir(exist_ok=True)
            (d / name).write_text(text.replace("{dir}", str(d)))
            p = (run_fio if who == "fio" else run)([*args, name], cwd=d)
            out[who] = (p, d)
        return out

    def test_a_job_that_cannot_start_is_reported_and_the_others_run(self):
        # fio finds a file missing under allow_file_create=0, and a 1-byte direct
        # write, only when the job starts: it reports that job (with its error)
        # and runs the others.  ioplan exited 2 with no report at all.
        text = ("[global]\ndirectory={dir}\nsize=64k\n"
                "[missing]\nrw=read\nfilename=absent.bin\nallow_file_create=0\n"
                "[good]\nrw=write\nfilename=good.bin\n"
                "[bytewise]\nrw=write\nfilename=bytewise.bin\nbs=1\ndirect=1\n")
        out = self.both(text)
        (fp, fdir), (ip, idir) = out["fio"], out["ioplan"]
        self.assertNotEqual(fp.returncode, 0)
        self.assertEqual(ip.returncode, 1, ip.stderr)
        fj, ij = jobs_of(json_of(fp.stdout)), jobs_of(json_of(ip.stdout))
        self.assertEqual(list(ij), list(fj), "every job is in the report, in order")
        self.assertEqual(ij["good"]["write"]["io_bytes"], fj["good"]["write"]["io_bytes"])
        self.assertEqual(fj["good"]["write"]["io_bytes"], 65536)
        self.assertEqual((fj["bytewise"]["error"], ij["bytewise"]["error"]), (22, 22))  # EINVAL
        # fio says why on stderr and leaves the job's error 0; ioplan gives ENOENT there.
        self.assertIn("allow_file_create=0", fp.stderr)
        self.assertEqual(ij["missing"]["error"], 2)
        self.assertIn("absent.bin does not exist and allow_file_create=0", ip.stderr)
        self.assertFalse((idir / "absent.bin").exists(), "allow_file_create=0 creates nothing")
        # The normal output names the failed job's error, as fio's err= line does.
        p = run([str(idir / "job.fio")], cwd=idir)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertRegex(p.stdout, r"bytewise: \(groupid=0, jobs=1\): err=22 ")

    def test_inputs_wrong_on_their_face_stay_errors_before_any_io(self):
        # A job with no size to create its file is bad input for both (fio exits
        # 1 at parse time); ioplan's exit status for bad input is 2.
        text = "[w]\nrw=write\nfilename={dir}/nosize.bin\n"
        out = self.both(text)
        self.assertNotEqual(out["fio"][0].returncode, 0)
        self.assertEqual(out["ioplan"][0].returncode, 2, out["ioplan"][0].stderr)
        self.assertEqual(out["ioplan"][0].stdout, "")


if __name__ == "__main__":
    unittest.main()
