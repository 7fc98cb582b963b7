"""tests/e2e/test_results_mpi.py - an mpirun run saved whole, and stores of the previous schema.

`mpirun -np N ioplan --save` (real Open MPI, oversubscribed, each rank in its
own directory): rank 0 alone writes the store, one run, the merged figures
with each rank's share of every job and direction and the rank's host; the
shares add up exactly to the merged bytes and I/Os, in `results show`, in
`results export --output-format=json` and in the run's own JSON report.

A world that goes wrong keeps what it measured and leaves the store whole: mpirun
stopped by SIGTERM or SIGINT (it forwards SIGTERM to each rank and SIGKILLs them a
second later) saves the merged run marked interrupted, or, with the store locked by
another process, keeps it as an unsaved file at once; a rank killed leaves the store
as it was and its --rank-output files store the groups the world finished; a store
the job's own writes filled keeps the merged run, every rank's share and error, in
an unsaved file that imports whole.

A store written by schema 1 (the current one without the rank tables version
2 added, at its user_version) is migrated step by step when opened, keeps its
runs, and takes new ones; one that cannot be written is a clear error and is
left as it was.
"""
import hashlib
import json
import os
import re
import signal
import socket
import sqlite3
import subprocess
import unittest

from common import TmpDirCase, TmpfsCase, run, tmpfs, wait_for_stderr
from test_mpi import MPIRUN, mpirun, mpirun_started, rank_pid, wait_until

SCHEMA = 5
SIZE = 128 * 1024


def sha(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


class MpiSave(TmpDirCase):
    def results(self, *args):
        p = run(["results", *args, f"--results-db={self.tmp / 'results.db'}"])
        self.assertEqual(p.returncode, 0, p.stderr)
        return p.stdout

    def saved_world(self, n):
        for r in range(n):
            (self.tmp / f"r{r}").mkdir()
        # each rank its own size, so a share counted twice or lost cannot add up by chance
        self.write("job.fio", f"[global]\nioengine=psync\nbs=4k\ndirectory={self.tmp}/r${{IOPLAN_RANK}}\n"
                              f"[w]\nrw=write\nsize={SIZE}\n[rw]\nstonewall\nrw=randrw\nsize={2 * SIZE}\n")
        p = mpirun(n, ["--output-format=json", f"--results-db={self.tmp / 'results.db'}",
                       f"--save=world{n}", "job.fio"], self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        return json.loads(p.stdout)

    def check_world(self, n):
        doc = self.saved_world(n)
        runs = json.loads(self.results("list", "--output-format=json"))
        self.assertEqual([r["label"] for r in runs], [f"world{n}"])  # rank 0 saved, no other rank did
        shown = json.loads(self.results("show", f"world{n}", "--output-format=json"))
        exported = json.loads(self.results("export", "--output-format=json"))
        self.assertEqual(exported[0]["ranks"], shown["ranks"])
        ranks = shown["ranks"]
        self.assertEqual([k["rank"] for k in ranks], list(range(n)))
        self.assertEqual({k["host"] for k in ranks}, {socket.gethostname()})
        self.assertEqual([k["error"] for k in ranks], [0] * n)
        self.assertEqual([(k["rank"], k["host"]) for k in ranks],
                         [(k["rank"], k["host"]) for k in doc["ioplan"]["ranks"]])
        # the merged figures: what the run reported, and the sums of the ranks' shares
        pairs = [(f["job"], f["ddir"]) for f in shown["figures"]]
        self.assertEqual(pairs, [("w", "write"), ("rw", "read"), ("rw", "write")])
        for f in shown["figures"]:
            mine = [x for k in ranks for x in k["figures"] if (x["job"], x["ddir"]) == (f["job"], f["ddir"])]
            self.assertEqual(len(mine), n, (f["job"], f["ddir"]))
            self.assertEqual(sum(x["io_bytes"] for x in mine), f["io_bytes"])
            self.assertEqual(sum(x["ios"] for x in mine), f["ios"])
            reported = doc["jobs"][f["job_index"]][f["ddir"]]
            self.assertEqual((f["io_bytes"], f["ios"]), (reported["io_bytes"], reported["total_ios"]))
        self.assertEqual(sum(x["io_bytes"] for k in ranks for x in k["figures"] if x["job"] == "w"), n * SIZE)
        for k in ranks:
            self.assertEqual(sum(x["io_bytes"] for x in k["figures"] if x["job"] == "rw"), 2 * SIZE)
        # the text shows a line per rank, job and direction
        text = self.results("show", f"world{n}")
        lines = [ln.split() for ln in text.splitlines() if ln[:1].isdigit()]
        self.assertEqual(len(lines), 3 * n, text)
        for k in ranks:
            for x in k["figures"]:
                want = [str(k["rank"]), k["host"], x["job"], x["ddir"]]
                self.assertTrue(any(ln[:4] == want and str(x["io_bytes"]) in ln for ln in lines), (want, text))

    @unittest.skipUnless(MPIRUN, "mpirun is not installed (Debian: openmpi-bin)")
    def test_two_ranks(self):
        self.check_world(2)

    @unittest.skipUnless(MPIRUN, "mpirun is not installed (Debian: openmpi-bin)")
    def test_three_ranks(self):
        self.check_world(3)

    @unittest.skipUnless(MPIRUN, "mpirun is not installed (Debian: openmpi-bin)")
    def test_the_rank_files_of_a_saved_preset_run_import_under_its_label_and_preset(self):
        # The rank files record what --save was given: a merge of them imports as the run
        # rank 0 saved, labelled and with its preset (before, unlabelled and without one).
        (self.tmp / "out").mkdir()
        p = mpirun(2, ["--preset=oltp", "--ioengine=null", "--size=1m", "--runtime=1", "--output-format=terse",
                       f"--results-db={self.tmp / 'live.db'}", "--save=tuned", "--rank-output=out"], self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        files = [str(self.tmp / "out" / f"rank-{r}.json") for r in range(2)]
        for f in files:
            self.assertEqual(json.loads(open(f).read())["saved_as"], {"label": "tuned", "preset": "oltp"})
        p = run(["merge", "--output-format=json", f"--output={self.tmp / 'merged.json'}", *files])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.results("import", str(self.tmp / "merged.json"))
        live = json.loads(run(["results", "show", "tuned", "--output-format=json",
                               f"--results-db={self.tmp / 'live.db'}"]).stdout)
        merged = json.loads(self.results("show", "tuned", "--output-format=json"))
        self.assertEqual((merged["label"], merged["facts"]["preset"]), ("tuned", "oltp"))
        self.assertEqual((merged["label"], merged["facts"]["preset"]), (live["label"], live["facts"]["preset"]))
        self.assertEqual([f["io_bytes"] for f in merged["figures"]], [f["io_bytes"] for f in live["figures"]])

    def test_a_merge_of_a_worlds_rank_files_is_that_run_in_the_store(self):
        # A merge's JSON carried no uuid: imported after the world's own save, or twice, it
        # was stored again as another run.  It carries the world's id now; a partial merge,
        # another run's figures, another id.  Nor did it carry the job text: a world known
        # only from its rank files was stored without the job it ran.
        (self.tmp / "out").mkdir()
        live_db = f"--results-db={self.tmp / 'live.db'}"
        p = mpirun(2, ["--name=j", "--ioengine=null", "--size=1m", "--output-format=json", live_db, "--save=w",
                       "--rank-output=out"], self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        live = json.loads(p.stdout)["ioplan"]
        uuid = live["uuid"]
        self.assertIn("--name=j --ioengine=null", live["job_text"])
        files = [str(self.tmp / "out" / f"rank-{r}.json") for r in range(2)]
        merged = self.tmp / "merged.json"
        p = run(["merge", "--output-format=json", f"--output={merged}", *files])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(json.loads(merged.read_text())["ioplan"]["uuid"], uuid)
        self.assertEqual(json.loads(merged.read_text())["ioplan"]["job_text"], live["job_text"])
        p = run(["results", "import", str(merged), live_db])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn(f"{merged}: already stored as run 1; not stored again", p.stdout)
        self.results("import", str(merged))
        self.assertIn("already stored as run 1", self.results("import", str(merged)))
        con = sqlite3.connect(self.tmp / "results.db")
        try:
            self.assertEqual(con.execute("SELECT job_text FROM runs").fetchall(), [(live["job_text"],)])
        finally:
            con.close()
        p = run(["merge", "--partial", "--output-format=json", files[0]])
        self.assertEqual(p.returncode, 0, p.stderr)
        partial = json.loads(p.stdout)["ioplan"]["uuid"]
        self.assertNotIn(partial, (uuid, ""))


def integrity(db):
    con = sqlite3.connect(db)
    try:
        return con.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        con.close()


@unittest.skipUnless(MPIRUN, "mpirun is not installed (Debian: openmpi-bin)")
class WorldGoneWrong(TmpfsCase):
    """What --save keeps of a world stopped, locked out, cut short or out of room.  On a
    tmpfs, and with mpirun's SIGKILL 5 s after its SIGTERM (Open MPI's default is 1 s):
    rank 0 merges, saves and reports in that time, which a busy machine or disk must not
    take from it; the old wait for the lock (10 s) still overran it."""

    # odls_base_sigkill_timeout: a busy 2-CPU machine can take more than the default second.
    KILL_AFTER = {"OMPI_MCA_odls_base_sigkill_timeout": "5"}

    def setUp(self):
        super().setUp()
        self.db = self.tmp / "results.db"

    def results(self, *args):
        p = run(["results", *args, f"--results-db={self.db}"])
        self.assertEqual(p.returncode, 0, p.stderr)
        return p.stdout

    def labels(self):
        return [r["label"] for r in json.loads(self.results("list", "--output-format=json"))]

    def first_run(self):
        p = run(["--name=n", "--ioengine=null", "--rw=read", "--bs=4k", "--size=1m", "--save=first",
                 f"--results-db={self.db}"])
        self.assertEqual(p.returncode, 0, p.stderr)

    def start(self, n, job, *extra):
        """mpirun of n ranks of a rate-limited time-based job, once every rank does I/O."""
        self.write("job.fio", f"[global]\nioengine=null\nbs=4k\nrw=write\nfilename={self.tmp}/t${{IOPLAN_RANK}}\n"
                              f"{job}[b]\nstonewall\nsize=1g\ntime_based\nruntime=60\nrate_iops=200\n")
        proc = mpirun_started(n, ["--eta=always", "--output-format=json", f"--output={self.tmp / 'report.json'}",
                                  f"--results-db={self.db}", "--save=world", *extra, "job.fio"], self.tmp,
                              self.KILL_AFTER)
        self.addCleanup(lambda: proc.poll() is None and (proc.kill(), proc.wait()))
        # The world under way: the first status line, which a busy machine may print before any
        # I/O, is not enough (a stop then rightly keeps nothing)
        wait_for_stderr(proc, timeout=60, until=lambda t: re.search(r"\[w=[1-9][0-9]* IOPS\]", t))
        return proc

    def stopped(self, proc, sig):
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=60)
        err = err.decode(errors="replace")
        self.assertEqual(proc.returncode, 1, err)
        report = json.loads((self.tmp / "report.json").read_text())  # mpirun drops stdout as it stops
        self.assertTrue(report["ioplan"]["interrupted"])
        self.assertEqual([k["rank"] for k in report["ioplan"]["ranks"]], [0, 1])
        self.assertGreater(report["jobs"][0]["write"]["io_bytes"], 0)
        return report, err

    def test_sigterm_to_mpirun_saves_the_merged_run_marked_interrupted(self):
        proc = self.start(2, "")
        report, err = self.stopped(proc, signal.SIGTERM)
        self.assertIn("marked interrupted", err)
        shown = json.loads(self.results("show", "world", "--output-format=json"))
        self.assertEqual(shown["figures"][0]["io_bytes"], report["jobs"][0]["write"]["io_bytes"])
        self.assertEqual(sum(x["io_bytes"] for k in shown["ranks"] for x in k["figures"]),
                         shown["figures"][0]["io_bytes"])
        # nothing the user did not ask for: no rank files, no unsaved copy
        self.assertEqual(sorted(p.name for p in self.tmp.iterdir()), ["job.fio", "report.json", "results.db"])
        self.assertEqual(integrity(self.db), "ok")

    def test_sigint_to_mpirun_while_the_store_is_locked_keeps_the_run_at_once(self):
        # mpirun forwards one SIGTERM to each rank and SIGKILLs them a second later: rank 0,
        # stopped, then waited up to 10 s for the lock and was killed in the wait; the run was
        # neither stored, nor kept, nor reported (the --output file was left empty).  A run
        # a stop signal ended now does not wait for the lock: it is kept as an unsaved file.
        self.first_run()
        proc = self.start(2, "")
        con = sqlite3.connect(self.db, isolation_level=None)
        con.execute("BEGIN EXCLUSIVE")
        try:
            report, err = self.stopped(proc, signal.SIGINT)
        finally:
            con.execute("ROLLBACK")
            con.close()
        self.assertIn("the store is locked by another process", err)
        kept = list(self.tmp.glob("results.db.unsaved-*.json"))
        self.assertEqual(len(kept), 1, err)
        self.assertIn(kept[0].name, err)
        doc = json.loads(kept[0].read_text())
        self.assertEqual(doc["jobs"][0]["write"]["io_bytes"], report["jobs"][0]["write"]["io_bytes"])
        self.assertEqual(doc["ioplan"]["saved_as"]["label"], "world")
        self.assertEqual(self.labels(), ["first"])
        self.assertEqual(integrity(self.db), "ok")
        self.results("import", str(kept[0]))
        self.assertEqual(self.labels(), ["first", "world"])
        shown = json.loads(self.results("show", "world", "--output-format=json"))
        self.assertEqual([k["rank"] for k in shown["ranks"]], [0, 1])

    def test_a_killed_rank_leaves_the_store_as_it_was_and_its_rank_files_store_the_finished_groups(self):
        # Open MPI ends the others a second after a rank dies: rank 0 never comes to the
        # save.  The store must hold no part of the run; --rank-output keeps what was finished,
        # and the --save label the run was given (the import stored it unlabelled before).
        self.first_run()
        (self.tmp / "out").mkdir()
        proc = self.start(3, "[a]\nsize=64k\n", "--rank-output=out")
        files = [self.tmp / "out" / f"rank-{r}.json" for r in range(3)]
        wait_until("group 1 in every rank's file", lambda: all(
            f.exists() and json.loads(f.read_text())["rank"]["groups_done"] >= 1 for f in files), proc)
        os.kill(rank_pid(proc.pid, 2), signal.SIGKILL)
        _, err = proc.communicate(timeout=60)
        self.assertNotEqual(proc.returncode, 0, err)
        self.assertEqual(self.labels(), ["first"])
        self.assertEqual(integrity(self.db), "ok")
        self.assertEqual(list(self.tmp.glob("results.db.unsaved-*")), [])
        p = run(["merge", "--partial", "--output-format=json", f"--output={self.tmp / 'merged.json'}",
                 *map(str, files)])
        self.assertEqual(p.returncode, 1, p.stderr)  # an interrupted run's figures
        self.assertEqual(json.loads((self.tmp / "merged.json").read_text())["ioplan"]["saved_as"],
                         {"label": "world", "preset": ""})
        self.results("import", str(self.tmp / "merged.json"))
        self.assertEqual(self.labels(), ["first", "world"])
        [run_] = [r for r in json.loads(self.results("list", "--output-format=json")) if r["label"] != "first"]
        self.assertTrue(run_["interrupted"])
        shown = json.loads(self.results("show", str(run_["id"]), "--output-format=json"))
        a = [x for k in shown["ranks"] for x in k["figures"] if x["job"] == "a"]
        self.assertEqual([x["io_bytes"] for x in a], [64 * 1024] * 3)

    def test_a_store_the_job_filled_keeps_the_merged_run_and_every_rank_in_an_unsaved_file(self):
        mnt = tmpfs(self, "size=4m")
        self.db = mnt / "results.db"
        self.first_run()
        # two ranks of 3 MiB each, not laid out, into the store's 4 MiB: the I/O fills it
        self.write("job.fio", f"[w]\nioengine=psync\nbs=64k\nrw=write\nsize=3m\nfallocate=none\n"
                              f"filename={mnt}/f${{IOPLAN_RANK}}\n")
        p = mpirun(2, ["--output-format=json", f"--results-db={self.db}", "--save=full", "job.fio"], self.tmp)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn("the disk is full (No space left on device)", p.stderr)
        kept = list(self.tmp.glob("results.db.unsaved-*.json"))  # not beside the store: that is full too
        self.assertEqual(len(kept), 1, p.stderr)
        self.assertIn(f"its results are kept in {kept[0].name}", p.stderr)
        doc = json.loads(kept[0].read_text())
        self.assertEqual(doc["jobs"][0]["write"]["io_bytes"], json.loads(p.stdout)["jobs"][0]["write"]["io_bytes"])
        errors = sorted(k["error"] for k in doc["ioplan"]["ranks"])
        self.assertEqual(errors[-1], 28, doc["ioplan"]["ranks"])  # ENOSPC on a rank
        for f in mnt.glob("f*"):
            f.unlink()
        self.assertEqual(integrity(self.db), "ok")
        self.assertEqual(self.labels(), ["first"])
        self.results("import", str(kept[0]))
        self.assertEqual(self.labels(), ["first", "full"])
        shown = json.loads(self.results("show", "full", "--output-format=json"))
        self.assertEqual(sorted(k["error"] for k in shown["ranks"]), errors)

    def tearDown(self):
        self.doCleanups()
        super().tearDown()


class PreviousSchema(TmpDirCase):
    def setUp(self):
        super().setUp()
        self.db = self.tmp / "results.db"

    def old_store(self):
        """A store as schema 1 left it: without the rank tables of version 2 (nor the checksums of 4 and 5)."""
        p = run(["--name=j", "--rw=write", "--bs=4k", "--size=64k", f"--filename={self.tmp / 'f'}",
                 "--output-format=json", "--save=old", f"--results-db={self.db}"])
        self.assertEqual(p.returncode, 0, p.stderr)
        con = sqlite3.connect(self.db)
        try:  # closed even when an assertion fails: an open file would keep the test's mount busy
            self.assertEqual(con.execute("PRAGMA user_version").fetchone()[0], SCHEMA)
            con.execute("DROP TABLE rank_figures")
            con.execute("DROP TABLE ranks")
            con.execute("ALTER TABLE runs DROP COLUMN summary_checksum")
            con.execute("ALTER TABLE runs DROP COLUMN checksum")
            con.execute("PRAGMA user_version=1")
            con.commit()
            con.execute("PRAGMA journal_mode=DELETE")  # a WAL store cannot be read on a read-only mount
        finally:
            con.close()

    def results(self, *args):
        return run(["results", *args, f"--results-db={self.db}"])

    def test_read_migrates_and_keeps_the_runs(self):
        self.old_store()
        p = self.results("show", "old", "--output-format=json")
        self.assertEqual(p.returncode, 0, p.stderr)
        shown = json.loads(p.stdout)
        self.assertEqual((shown["figures"][0]["io_bytes"], shown["ranks"]), (65536, []))
        con = sqlite3.connect(self.db)
        self.assertEqual(con.execute("PRAGMA user_version").fetchone()[0], SCHEMA)
        self.assertEqual(con.execute("SELECT count(*) FROM ranks").fetchone()[0], 0)
        con.close()

    def test_save_migrates_and_adds(self):
        self.old_store()
        p = run(["--name=j", "--rw=read", "--bs=4k", "--size=64k", f"--filename={self.tmp / 'f'}",
                 "--output-format=json", "--save=new", f"--results-db={self.db}"])
        self.assertEqual(p.returncode, 0, p.stderr)
        p = self.results("list", "--output-format=json")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual([r["label"] for r in json.loads(p.stdout)], ["old", "new"])

    def test_unwritable_old_store_is_refused_untouched(self):
        mnt = self.tmp / "ro"
        mnt.mkdir()
        if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", str(mnt)]).returncode:
            self.skipTest("cannot mount tmpfs")
        self.addCleanup(subprocess.run, ["umount", str(mnt)])
        self.db = mnt / "results.db"
        self.old_store()
        subprocess.run(["mount", "-o", "remount,ro", str(mnt)], check=True)
        before = sha(self.db)
        p = self.results("list")
        self.assertEqual(p.returncode, 2, p.stdout)
        self.assertIn(f"schema version 1 needs migrating to {SCHEMA}", p.stderr)
        self.assertIn("cannot be written (read-only)", p.stderr)
        self.assertEqual(sha(self.db), before)

    def tearDown(self):
        self.doCleanups()
        super().tearDown()

if __name__ == "__main__":
    unittest.main()
