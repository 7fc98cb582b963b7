"""tests/e2e/test_fio_clone_names.py - clones' log files and fio's notes, as fio 3.33 writes them.

Programs that run fio collect its log files by name and read its stdout: with
name= in a section and numjobs>1, fio names the first clone after name= and
the others after the section, and so are their bw/iops/lat log files
(custom_bw.1.log, sec_bw.2.log, sec_bw.3.log).  fio prints a note per clone
when a synchronous engine is given iodepth>1; in the normal output it follows
the Starting line.  fio prints it ahead of its JSON on stdout, which breaks a
strict JSON reader: ioplan keeps stdout one JSON document and puts the note on
stderr there (COMPATIBILITY in ioplan-job(5)); run as fio, it prints it where fio does.
"""
import json
import unittest

from common import FIO, TmpDirCase, run, run_as_fio, run_fio

NOTE = ("note: both iodepth >= 1 and synchronous I/O engine are selected, "
        "queue depth will be capped at 1")


@unittest.skipIf(FIO is None, "fio not installed")
class CloneNames(TmpDirCase):
    def both(self, text, args=("--output-format=json",), tag=""):
        """{tool: (CompletedProcess, its directory)} of one job file run by each tool."""
        out = {}
        for who, tool in (("fio", run_fio), ("ioplan", run)):
            d = self.tmp / (who + tag)
            d.mkdir()
            (d / "job.fio").write_text(text.replace("{dir}", str(d)))
            out[who] = (tool([*args, "job.fio"], cwd=d), d)
        return out

    def logs_of(self, d):
        """{log file name: lines} of a run's directory."""
        return {p.name: len(p.read_text().splitlines()) for p in sorted(d.glob("*.log"))}

    def test_clone_logs_carry_each_clones_name(self):
        for per_job in ("1", "0"):
            with self.subTest(per_job_logs=per_job):
                text = ("[sec]\nname=custom\nfilename={dir}/data\nsize=64k\nbs=4k\nrw=write\n"
                        "numjobs=3\nwrite_bw_log\nwrite_lat_log\nwrite_iops_log=iops\n"
                        f"log_avg_msec=0\nper_job_logs={per_job}\n")
                out = self.both(text, tag=per_job)
                for who, (p, _) in out.items():
                    self.assertEqual(p.returncode, 0, f"{who}: {p.stderr}")
                fio_logs, our_logs = self.logs_of(out["fio"][1]), self.logs_of(out["ioplan"][1])
                self.assertEqual(our_logs, fio_logs)
                # name= names the first clone's default logs, the section the others';
                # a prefix given (write_iops_log=iops) names every clone's.
                self.assertIn("custom_bw.1.log" if per_job == "1" else "custom_bw.log", fio_logs)
                self.assertIn("sec_bw.3.log" if per_job == "1" else "sec_bw.log", fio_logs)
                self.assertFalse(any(n.startswith("custom_iops") for n in fio_logs))

    def test_sync_engine_depth_note_per_clone(self):
        text = "[n]\nioengine=psync\niodepth=4\nrw=read\nsize=64k\nfilename={dir}/n.dat\nnumjobs=2\n"
        out = self.both(text, args=())
        after = {}
        for who, (p, _) in out.items():
            self.assertEqual(p.returncode, 0, f"{who}: {p.stderr}")
            lines = p.stdout.splitlines()
            start = next(i for i, l in enumerate(lines) if l.startswith("Starting "))
            after[who] = lines[start + 1:lines.index("", start)]
            self.assertEqual(p.stdout.count(NOTE), 2, who)
        # Two clones, two notes, after the Starting and Laying out lines, before the reports.
        self.assertEqual(after["ioplan"], after["fio"])
        self.assertEqual(after["fio"][-2:], [NOTE, NOTE])

    def test_the_note_leaves_json_on_stdout_whole(self):
        text = "[n]\nioengine=psync\niodepth=4\nrw=read\nsize=64k\nfilename={dir}/n.dat\nnumjobs=2\n"
        out = self.both(text)
        fp, ip = out["fio"][0], out["ioplan"][0]
        # fio prints its notes ahead of the document; ioplan's stdout is the document alone.
        self.assertTrue(fp.stdout.startswith(NOTE + "\n" + NOTE + "\n{"))
        doc = json.loads(ip.stdout)
        self.assertEqual(len(doc["jobs"]), 2)
        self.assertEqual(ip.stderr.count(NOTE), 2, ip.stderr)
        # Run as fio, where fio's are: ahead of the document on stdout, nothing on stderr
        # (kubestr fails a run that writes there); none in an --output file, as fio's.
        d = out["ioplan"][1]
        (d / "n.dat").unlink()
        ap = run_as_fio(["--output-format=json", "job.fio"], cwd=d)
        self.assertEqual((ap.returncode, ap.stderr), (0, ""))
        self.assertTrue(ap.stdout.startswith(NOTE + "\n" + NOTE + "\n{"), ap.stdout[:300])
        for who, tool in (("fio", run_fio), ("ioplan", run_as_fio)):
            d = out[who][1]
            (d / "n.dat").unlink()
            p = tool(["--output-format=json", "--output=o.json", "job.fio"], cwd=d)
            self.assertEqual((p.returncode, p.stdout, p.stderr), (0, "", ""), who)
            self.assertTrue((d / "o.json").read_text().startswith("{"), who)
        # With a queueing engine neither tool has anything to note.
        for who in ("fio", "ioplan"):
            d = out[who][1]
            (d / "q.fio").write_text(text.replace("psync", "libaio").replace("{dir}", str(d)))
        qf = run_fio(["--output-format=json", "q.fio"], cwd=out["fio"][1])
        qi = run(["--output-format=json", "q.fio"], cwd=out["ioplan"][1])
        self.assertNotIn(NOTE, qf.stdout + qf.stderr)
        self.assertNotIn(NOTE, qi.stdout + qi.stderr)

    def test_an_output_file_gets_the_notes_of_thread_jobs_only(self):
        # fio's jobs print their notes from their own process into a copy of the --output
        # file's stdio buffer, lost as a job process exits: the file gets those of thread=1
        # jobs alone, in the normal output and ahead of a JSON document alike.  ioplan put
        # every job's notes in a normal output's file and none ahead of the JSON.
        text = ("[p]\nioengine=psync\niodepth=4\nrw=read\nsize=64k\nfilename={dir}/p.dat\n"
                "[t]\nthread\nioengine=psync\niodepth=2\nrw=read\nsize=64k\nfilename={dir}/t.dat\n"
                "[c]\nthread\nioengine=cpuio\ncpuload=10\nruntime=100ms\n")
        for fmt in ("normal", "json"):
            with self.subTest(fmt):
                said = {}
                for who, tool in (("fio", run_fio), ("ioplan", run_as_fio)):
                    d = self.tmp / f"{who}-{fmt}"
                    d.mkdir()
                    (d / "job.fio").write_text(text.replace("{dir}", str(d)))
                    p = tool([f"--output-format={fmt}", "--output=o.txt", "job.fio"], cwd=d)
                    self.assertEqual((p.returncode, p.stdout, p.stderr), (0, "", ""), who)
                    head = (d / "o.txt").read_text().split("\n\n" if fmt == "normal" else "{", 1)[0]
                    said[who] = sorted(ln for ln in head.splitlines() if "note:" in ln or "ioengine=cpuio," in ln)
                self.assertEqual(said["fio"], sorted([NOTE, "c (noop): ioengine=cpuio, cpuload=10, cpucycle=50000"]))
                self.assertEqual(said["ioplan"], said["fio"])


if __name__ == "__main__":
    unittest.main()
