"""tests/e2e/test_results_store_faults.py - results stores that cannot take or give a run.

A store that is locked, corrupt, read-only, on a full disk or written by a
newer ioplan is a clear error: the results commands exit 2 and leave the file
byte for byte as it was; a run with --save still prints its whole report and
exits non-zero, and one the store cannot take when it ends is kept in a file
beside it for a later import.
"""
import json
import os
import pathlib
import re
import signal
import sqlite3
import subprocess
import time
import unittest

import common
from common import BIN, FIO, run
from store_case import FILLING_JOB, JOB, StoreCase, sha


class BadStores(StoreCase):
    def saved(self):
        self.assertEqual(self.ioplan_run(label="ok").returncode, 0)
        return sha(self.db)

    def check_refused(self, reason):
        before = sha(self.db)
        p = self.results("list", ok=False)
        self.assertEqual(p.returncode, 2, p.stdout)
        self.assertIn(reason, p.stderr)
        self.assertRefusedBeforeTheRun(reason)
        self.assertEqual(sha(self.db), before)

    def assertRefusedBeforeTheRun(self, reason):
        # Found after the run, the report was printed but the run could not be kept:
        # a long benchmark had to be run again.  The store is judged first.
        target = self.tmp / "never"
        r = run([*JOB, f"--filename={target}", "--output-format=json", "--save=more", f"--results-db={self.db}"])
        self.assertEqual((r.returncode, r.stdout), (2, ""), r.stderr)
        self.assertIn("ioplan: error: --save: ", r.stderr)
        self.assertIn(reason, r.stderr)
        self.assertTrue(r.stderr.rstrip().endswith("; nothing was run"), r.stderr)
        self.assertFalse(target.exists())

    def test_a_directory_or_link_in_the_place_of_a_side_file_is_named(self):
        # SQLite says only "unable to open database file" for a -wal it cannot use, and
        # ioplan said "the store cannot be written (read-only)" of a store it could write.
        # A -shm directory still lets a read through, and a save failed after its run.
        self.saved()
        for side, make in (("-wal", os.mkdir), ("-wal", lambda p: os.symlink("/dev/full", p)),
                           ("-shm", os.mkdir)):
            with self.subTest(side=side, make=make):
                path = f"{self.db}{side}"
                make(path)
                kind = "a symbolic link" if os.path.islink(path) else "a directory"
                reason = f"{path} is {kind}, where SQLite keeps a file of the store's own; left untouched (move it away)"
                try:
                    if side == "-wal":
                        self.check_refused(reason)
                    else:
                        self.assertRefusedBeforeTheRun(reason)
                finally:
                    (os.unlink if os.path.islink(path) else os.rmdir)(path)
        self.assertEqual([x["label"] for x in self.listing()], ["ok"])

    def test_newer_schema(self):
        self.saved()
        con = sqlite3.connect(self.db)
        con.execute("PRAGMA journal_mode=DELETE")
        con.execute("PRAGMA user_version=99")
        con.close()
        self.check_refused("written by a newer ioplan (schema version 99")

    def test_run_saved_by_newer_ioplan(self):
        self.saved()
        con = sqlite3.connect(self.db)
        con.execute("UPDATE runs SET format = 7")
        con.commit()
        con.close()
        before = sha(self.db)
        p = self.results("show", "ok", ok=False)
        self.assertEqual(p.returncode, 2)
        self.assertIn("saved by a newer ioplan", p.stderr)
        self.assertEqual(sha(self.db), before)

    def test_another_programs_database_an_empty_file_and_a_fifo_are_left_untouched(self):
        # A read (or an import from it) wrote ioplan's 14 tables into another program's
        # database; a FIFO held `results list` for ever; a device got a journal beside it.
        con = sqlite3.connect(self.db)
        con.execute("CREATE TABLE notes(t)")
        con.execute("INSERT INTO notes VALUES('x')")
        con.commit()
        con.close()
        self.check_refused("an SQLite database, but not an ioplan results store; left untouched")
        before = sha(self.db)
        p = run(["results", "import", str(self.db), f"--results-db={self.tmp / 'other.db'}"])
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertEqual(sha(self.db), before)
        empty = self.tmp / "empty.db"
        empty.touch()
        p = run(["results", "show", "1", f"--results-db={empty}"])
        self.assertEqual((p.returncode, empty.stat().st_size), (2, 0), p.stderr)
        self.assertIn("an empty file, no results store yet", p.stderr)
        fifo = self.tmp / "fifo.db"
        os.mkfifo(fifo)
        for args in (["list"], ["show", "1"], ["export"]):
            with self.subTest(args=args):
                p = run(["results", *args, f"--results-db={fifo}"], timeout=20)
                self.assertEqual(p.returncode, 2, p.stderr)
                self.assertIn("not a regular file, so no results store; left untouched", p.stderr)

    def test_another_programs_database_at_a_store_version_is_left_untouched(self):
        # Told apart by user_version alone, a database of another program at version 3
        # with a runs(id) table lost rows to `results rm`, and --save ran its workload,
        # switched the file to WAL for good and failed on a missing table.
        con = sqlite3.connect(self.db)
        con.executescript("CREATE TABLE runs(id INTEGER PRIMARY KEY, name TEXT);"
                          "INSERT INTO runs VALUES(1, 'keep me'), (2, 'me too');"
                          "CREATE TABLE figures(x); PRAGMA user_version=3;")
        con.commit()
        con.close()
        before = sha(self.db)
        self.check_refused("an SQLite database, but not an ioplan results store; left untouched")
        made = run([*JOB, "--output-format=json"])
        self.assertEqual(made.returncode, 0, made.stderr)
        (self.tmp / "run.json").write_text(made.stdout)
        for args in (["rm", "1"], ["list"], ["show", "1"], ["summary"], ["import", str(self.tmp / "run.json")]):
            with self.subTest(args=args):
                p = run(["results", *args, f"--results-db={self.db}"])
                self.assertEqual(p.returncode, 2, p.stderr)
                self.assertIn(f"{self.db}: an SQLite database, but not an ioplan results store; left untouched",
                              p.stderr)
        self.assertEqual(sha(self.db), before)
        self.assertEqual([p.name for p in self.tmp.iterdir() if p.name.startswith(self.db.name)], [self.db.name])

    def test_corrupt(self):
        self.db.write_bytes(b"this is not a database at all\n" * 200)
        self.check_refused("not an ioplan results store, or a corrupt one")

    def test_hand_edited_values_are_refused_not_read_as_zero(self):
        # A number column holding text read as 0.0; a plan that is not an object was a raw C++ exception.
        for sql, says in (("UPDATE figures SET iops = 'abc'", "iops holds 'abc' where a number belongs"),
                          ("UPDATE figures SET iops = 1e308", "run 1's figure of job 'j' read: iops 1e+308 is not "
                                                              "total_ios / runtime ("),
                          ("UPDATE figures SET plan = '[1,2]'", "a figure's plan of run 1 is not a JSON object")):
            with self.subTest(sql=sql):
                self.db.unlink(missing_ok=True)
                self.saved()
                con = sqlite3.connect(self.db)
                con.execute(sql)
                con.commit()
                con.close()
                for args in (["show", "ok"], ["export"], ["report", "ok", f"--output={self.tmp / 'p.html'}"]):
                    p = self.results(*args, ok=False)
                    self.assertEqual(p.returncode, 2, p.stdout)
                    self.assertTrue(p.stderr.startswith(f"ioplan: error: {self.db}: the results store is damaged: "),
                                    p.stderr)
                    self.assertIn(says, p.stderr)
                    self.assertNotIn("exception", p.stderr)
                self.assertFalse((self.tmp / "p.html").exists())

    def test_values_no_save_writes_are_refused_by_every_reader(self):
        # A p99 of -5, a bucket's count of -7 (read as 2^64 - 7), an iops of 1e300 over a
        # runtime of 0 were read as measured: compare gave them a verdict ("faster", exit 0)
        # and summary put them in its percentiles, exit 0.  Each is named now: show and compare
        # refuse the run (exit 2), export and summary leave it out and say so (exit 1);
        # summary reads only iops, bandwidth and p99 (the buckets where clones merge): a
        # p99.9 it does not use is found by the checksum of the rows it reads instead, and a
        # sample it does not read at all does not keep the run's figures out of it.
        checksum = "no longer matches the checksum its save kept of the rows summary reads"
        for sql, says, summary_reads in (
                ("UPDATE figures SET p99_ns = -5 WHERE run_id = 2", "p99_ns holds -5.0, which no save", True),
                ("UPDATE figures SET p999_ns = 1e999 WHERE run_id = 2", "p999_ns holds Inf, which no save", False),
                ("UPDATE buckets SET count = -7 WHERE figure_id IN (SELECT id FROM figures WHERE run_id = 2)",
                 "count holds -7, which no save", True),
                ("UPDATE samples SET iops = -1 WHERE figure_id IN (SELECT id FROM figures WHERE run_id = 2)",
                 "iops holds -1.0, which no save", None),
                ("UPDATE figures SET runtime_s = 0, iops = 1e300 WHERE run_id = 2",
                 "iops 1e+300 over a runtime of 0 (fio writes 0 there)", True),
                ("UPDATE figures SET ddir = 'sideways' WHERE run_id = 2", "'sideways' is not read, write, trim or mixed",
                 True)):
            with self.subTest(sql=sql):
                self.db.unlink(missing_ok=True)
                for label in ("a", "b", "c"):
                    # two clones: summary merges their buckets for the p99
                    self.assertEqual(self.ioplan_run("--numjobs=2", label=label).returncode, 0)
                con = sqlite3.connect(self.db)
                con.execute(sql)
                con.commit()
                con.close()
                before = sha(self.db)
                error = f"ioplan: error: {self.db}: "
                for args in (["results", "show", "b"], ["compare", "a", "b"], ["compare", "b", "c"]):
                    p = run([*args, f"--results-db={self.db}"])
                    self.assertEqual((p.returncode, p.stdout), (2, ""), p.stderr)
                    self.assertTrue(p.stderr.startswith(error), p.stderr)
                    self.assertIn(says, p.stderr)
                for args, into in ((["export"], "export"), (["summary"], "summary")):
                    if into == "summary" and summary_reads is None:
                        continue
                    p = self.results(*args, ok=False)
                    self.assertEqual(p.returncode, 1, p.stderr)
                    self.assertTrue(p.stderr.startswith(error), p.stderr)
                    self.assertIn(says if summary_reads or into == "export" else checksum, p.stderr)
                    self.assertIn(f"; run 2 ('b') is left out of the {into}\n", p.stderr)
                p = self.results("summary", "--output-format=json", ok=summary_reads is None)
                self.assertEqual(p.returncode, 0 if summary_reads is None else 1, p.stderr)
                summary = json.loads(p.stdout)
                self.assertEqual(summary["damaged_left_out"], 0 if summary_reads is None else 1)
                self.assertEqual([g["count"] for g in summary["groups"]], [3 if summary_reads is None else 2])
                self.assertEqual(sha(self.db), before)

    def test_a_figure_too_large_for_its_column_keeps_the_tables_in_shape(self):
        # An edited store's iops of 1e308 printed 309 digits: the rest of the row moved out of
        # its columns and the row, cut at the line's buffer, lost its newline.  Such a store is
        # refused now (above); figures that agree with their counts can still outgrow a column.
        # (Imported: a store edited so would no longer match its run's checksum.)
        self.saved()
        runs = json.loads(self.results("export", "--output-format=json").stdout)
        runs[0]["figures"][0].update(ios=4000000000000000000, io_bytes=9000000000000000000, runtime_s=0.001,
                                     iops=4e21, bw_bytes=9e21)
        (self.tmp / "large.json").write_text(json.dumps(runs))
        self.db.unlink()
        self.results("import", str(self.tmp / "large.json"))
        for args in (["show", "ok"], ["summary"], ["compare", "ok", "ok"]):
            with self.subTest(args=args):
                p = run([*args, f"--results-db={self.db}"] if args[0] == "compare" else
                        ["results", *args, f"--results-db={self.db}"])
                self.assertEqual(p.returncode, 0, p.stderr)
                lines = p.stdout.splitlines()
                rows = [ln for ln in lines if "4e+21" in ln]
                self.assertEqual(len(rows), 1, p.stdout)
                row, head = rows[0], next(ln for ln in lines if ln.startswith(("job ", "group ")))
                if args[0] != "summary":  # fixed columns: the row is as long as its header
                    self.assertLessEqual(len(row.rstrip()), len(head) + 40, row)
                    self.assertNotIn("0000000000", row)

    def test_a_write_lock_another_process_holds_is_waited_for_then_named(self):
        # What a second process holding the write lock gets is SQLITE_BUSY: a --save,
        # an rm and an import each wait the 10 s busy timeout (run side by side, so the
        # test waits once) and then say so.  SQLITE_LOCKED, a conflict inside ioplan's
        # own connection, got the same words, a wait that never happened.
        null = ["--name=n", "--ioengine=null", "--rw=read", "--bs=4k", "--size=16m"]
        result = self.tmp / "r.json"
        p = run([*null, "--output-format=json", f"--output={result}", "--save=ok", f"--results-db={self.db}"])
        self.assertEqual(p.returncode, 0, p.stderr)
        doc = json.loads(result.read_text())
        doc["ioplan"]["uuid"] = "0" * 32  # another run's report, so the import has a run to store
        (self.tmp / "other.json").write_text(json.dumps(doc))
        before = [x["id"] for x in self.listing()]
        con = sqlite3.connect(self.db, isolation_level=None)
        con.execute("BEGIN EXCLUSIVE")
        try:
            started = time.monotonic()
            commands = {"save": ([*null, "--output-format=json", "--save=blocked"], 1),
                        "rm": (["results", "rm", "ok"], 2),
                        "import": (["results", "import", str(self.tmp / "other.json")], 2)}
            procs = {k: subprocess.Popen([BIN, *args, f"--results-db={self.db}"], stdout=subprocess.PIPE,
                                         stderr=subprocess.PIPE, text=True) for k, (args, _) in commands.items()}
            for k, proc in procs.items():
                self.addCleanup(lambda proc=proc: proc.poll() is None and (proc.kill(), proc.wait()))
            for k, proc in procs.items():
                out, err = proc.communicate(timeout=60)
                with self.subTest(command=k):
                    self.assertEqual(proc.returncode, commands[k][1], err)
                    if k == "save":
                        json.loads(out)  # the run's report is not lost with the save
                    self.assertIn("the store is locked by another process (waited 10 s)", err)
                    self.assertNotIn("internal error", err)
            waited = time.monotonic() - started
            self.assertGreaterEqual(waited, 9.5)  # the 10 s it names were waited
            self.assertLess(waited, 60)  # a ceiling that a loaded machine stays under; a hang ends here
        finally:
            con.execute("ROLLBACK")
            con.close()
        self.assertEqual([x["id"] for x in self.listing()], before)

    def test_a_signal_while_the_save_waits_for_the_lock_keeps_the_run(self):
        # The save waits up to 10 s for another process's lock, with the run measured and not
        # yet reported: SIGTERM (SIGINT, SIGHUP) there ended ioplan, and the run was lost,
        # neither stored nor reported, nor kept as an unsaved file.  Then the signal was held
        # for the rest of the wait (10 s: a container's stop sends SIGKILL after that).  Now
        # it ends the wait at once: the run is kept as an unsaved file and reported, exit 1,
        # while the lock is still held.
        null = ["--name=n", "--ioengine=null", "--rw=read", "--bs=4k", "--size=16m"]
        self.assertEqual(run([*null, "--save=first", f"--results-db={self.db}"]).returncode, 0)
        proc = subprocess.Popen([BIN, *null, "--time_based", "--runtime=2", "--output-format=json", "--save=held",
                                 f"--results-db={self.db}"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.addCleanup(lambda: proc.poll() is None and (proc.kill(), proc.wait()))
        tasks = lambda: len(os.listdir(f"/proc/{proc.pid}/task"))
        common.wait_until(lambda: tasks() > 1, what="the run under way")  # the store judged before it, unlocked
        con = sqlite3.connect(self.db, isolation_level=None)
        con.execute("BEGIN EXCLUSIVE")
        try:
            # The engine's threads gone and the one left asleep in the store's busy wait: the save.
            common.wait_until(lambda: tasks() == 1 and common.waits_in(proc.pid, "nanosleep"),
                              what="the save waiting for the lock")
            proc.send_signal(signal.SIGTERM)
            out, err = proc.communicate(timeout=60)  # the lock still held: a wait that went on ends at 10 s
        finally:
            con.execute("ROLLBACK")
            con.close()
        self.assertEqual(proc.returncode, 1, err)
        self.assertIn("the store is locked by another process (a signal stopped the wait)", err)
        self.assertIn("ioplan: signal 15 while --save stored the run: its report follows, then ioplan stops", err)
        read = json.loads(out)["jobs"][0]["read"]
        self.assertGreater(read["io_bytes"], 0)
        kept = list(self.tmp.glob("results.db.unsaved-*.json"))  # beside the store (keep_unsaved)
        self.assertEqual(len(kept), 1, err)
        self.assertIn(kept[0].name, err)
        self.assertEqual(json.loads(kept[0].read_text())["jobs"][0]["read"]["io_bytes"], read["io_bytes"])
        self.assertEqual([x["label"] for x in self.listing()], ["first"])
        # The file imports as the run it holds.
        self.results("import", str(kept[0]))
        self.assertEqual([x["label"] for x in self.listing()], ["first", "held"])

    def test_read_only(self):
        self.store_on_tmpfs("ro", "16m")
        mnt = self.mnt
        self.saved()
        con = sqlite3.connect(self.db)
        con.execute("PRAGMA journal_mode=DELETE")  # a rollback-journal store (ReadOnlyMedia has WAL ones)
        con.close()
        subprocess.run(["mount", "-o", "remount,ro", str(mnt)], check=True)
        before = sha(self.db)
        self.assertRefusedBeforeTheRun("read-only")
        self.assertEqual(sha(self.db), before)
        self.db = mnt / "new.db"  # SQLite says only "unable to open database file"
        self.assertRefusedBeforeTheRun(f"cannot make the results store in {mnt}: Read-only file system")


class DamagedRuns(StoreCase):
    """One run on a corrupt page made `results export` and `results import STORE` fail
    whole (exit 2, nothing out): the runs that still read could not be got out of the store."""

    def pages(self, sql):
        """The store's page size and the rows of sql, a query of SQLite's dbstat table on it
        (every run in the file, none left in its WAL); skips without dbstat."""
        self.assertFalse(pathlib.Path(f"{self.db}-wal").exists())  # every run is in the file
        con = sqlite3.connect(self.db)
        try:
            [(size,)] = con.execute("PRAGMA page_size").fetchall()
            return size, con.execute(sql).fetchall()
        except sqlite3.OperationalError as e:
            self.skipTest(f"python's sqlite3 has no dbstat table: {e}")
        finally:
            con.close()

    def damaged_store(self):
        """Runs a, b and c; b's job file is long enough (100 KB of notes) that its text
        lies on overflow pages of its own, and the first of them is made to point past
        the end of the file.  Returns the damaged store's digest."""
        job = self.tmp / "long.fio"
        job.write_text("".join(f"; note {i:05d} kept with this job file\n" for i in range(3000)) +
                       "[j]\nioengine=null\nsize=1m\n")
        for label, args in (("a", ["--name=j", "--ioengine=null", "--size=1m"]), ("b", [str(job)]),
                            ("c", ["--name=j", "--ioengine=null", "--size=2m"])):
            p = run([*args, "--output-format=json", f"--save={label}", f"--results-db={self.db}"])
            self.assertEqual(p.returncode, 0, p.stderr)
        size, pages = self.pages("SELECT pageno FROM dbstat WHERE name = 'runs' AND pagetype = 'overflow' "
                                 "ORDER BY path")
        self.assertTrue(pages)
        with open(self.db, "r+b") as f:
            f.seek((pages[0][0] - 1) * size)
            f.write(b"\xff\xff\xff\xff")   # the number of the next overflow page
        return sha(self.db)

    def test_export_carries_every_run_that_still_reads_and_names_the_one_left_out(self):
        before = self.damaged_store()
        p = self.results("show", "b", ok=False)
        self.assertEqual((p.returncode, p.stdout), (2, ""))
        self.assertIn("the store is damaged (SQLite found a corrupt page)", p.stderr)
        left_out = "; run 2 ('b') is left out of the export\n"
        p = self.results("export", ok=False)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertEqual([line.split(",")[0] for line in p.stdout.splitlines()[1:]], ["1", "3"])
        self.assertIn(left_out, p.stderr)
        self.assertTrue(p.stderr.endswith("1 run could not be read and is left out; the 2 other(s) are exported\n"),
                        p.stderr)
        p = self.results("export", "--output-format=json", ok=False)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertEqual([r["label"] for r in json.loads(p.stdout)], ["a", "c"])
        p = self.results("export", "b", ok=False)
        self.assertEqual((p.returncode, p.stdout), (2, ""))
        self.assertIn(left_out, p.stderr)
        self.assertTrue(p.stderr.endswith("1 run could not be read; nothing is exported\n"), p.stderr)
        # summary reads no job text, but the run's checksum does: it cannot vouch for run 2
        p = self.results("summary", "--output-format=json", ok=False)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn("; run 2 ('b') is left out of the summary\n", p.stderr)
        self.assertEqual(json.loads(p.stdout)["damaged_left_out"], 1)
        self.assertEqual(sha(self.db), before)

    def test_a_corrupt_page_of_figures_leaves_its_runs_out_of_the_summary_not_the_others(self):
        # Summary read the figures of every run in one query: a page of them SQLite found
        # corrupt stopped it whole ("cannot read the results store: the store is damaged
        # (SQLite found a corrupt page)", exit 2, nothing summed up), where export carried the
        # runs around it.  After such a page it now reads the runs one by one, as export
        # does: the runs whose figures were on it are named and left out, the others summed up.
        self.assertEqual(self.ioplan_run(label="r").returncode, 0)
        [one] = json.loads(self.results("export", "--output-format=json").stdout)
        runs = [dict(one, uuid=f"{i:08x}{one['uuid'][8:]}", label=f"r{i}") for i in range(40)]
        (self.tmp / "runs.json").write_text(json.dumps(runs))
        self.db = self.tmp / "many.db"
        self.results("import", str(self.tmp / "runs.json"))
        size, leaves = self.pages("SELECT pageno, ncell FROM dbstat WHERE name = 'figures' AND pagetype = 'leaf' "
                                  "ORDER BY path")
        self.assertGreater(len(leaves), 1)  # a page of them, not the table's only one
        page, on_it = leaves[-1]
        with open(self.db, "r+b") as f:
            f.seek((page - 1) * size + 8)
            f.write(b"\xff" * 200)   # its cells' pointers and first cells
        before = sha(self.db)
        left = re.compile(r"; run (\d+) \('r\d+'\) is left out of the (?:export|summary)\n")
        p = self.results("export", "--output-format=json", ok=False)
        self.assertEqual(p.returncode, 1, p.stderr)
        out_of_export = left.findall(p.stderr)
        self.assertEqual(len(out_of_export), on_it, p.stderr)
        p = self.results("summary", "--output-format=json", ok=False)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertEqual(left.findall(p.stderr), out_of_export)
        summary = json.loads(p.stdout)
        self.assertEqual((summary["damaged_left_out"], sum(g["count"] for g in summary["groups"])),
                         (on_it, 40 - on_it))
        self.assertTrue(p.stderr.endswith(f"ioplan: error: {on_it} runs could not be read and are left out; the "
                                          f"{40 - on_it} other(s) are summed up\n"), p.stderr)
        self.assertEqual(sha(self.db), before)

    def test_import_of_a_damaged_store_carries_the_rest_into_another(self):
        before = self.damaged_store()
        damaged, shown = self.db, {}
        for label in ("a", "c"):
            shown[label] = json.loads(self.results("show", label, "--output-format=json").stdout)
        self.db = self.tmp / "mended.db"
        p = self.results("import", str(damaged), "--output-format=json", ok=False)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertEqual(json.loads(p.stdout), {"imported": 2, "already_stored": 0, "unreadable": 1})
        self.assertIn("; run 2 ('b') is left out of the import\n", p.stderr)
        self.assertEqual([r["label"] for r in self.listing()], ["a", "c"])
        for label in ("a", "c"):
            got = json.loads(self.results("show", label, "--output-format=json").stdout)
            self.assertEqual((got["uuid"], got["figures"]), (shown[label]["uuid"], shown[label]["figures"]))
        self.assertEqual(sha(damaged), before)


    def test_a_damaged_runs_label_not_utf8_is_named_printably(self):
        # A label stored as Latin-1 ("caf\xe9", written into the store by hand) went to
        # stderr raw in the message naming the damaged run, a byte the terminal showed as it
        # liked (and a reader in UTF-8 could not decode); the text tables print such a byte
        # as '?', and so do these messages and results show now.
        for label in ("x", "b"):
            self.assertEqual(self.ioplan_run(label=label).returncode, 0)
        con = sqlite3.connect(self.db)
        con.execute("UPDATE runs SET label = CAST(x'636166e9' AS TEXT), checksum = '', summary_checksum = '' "
                    "WHERE id = 1")
        con.execute("UPDATE facts SET value = CAST(x'636166e9' AS TEXT) WHERE run_id = 1 AND name = 'label'")
        con.commit()
        shown = subprocess.run([BIN, "results", "show", "1", f"--results-db={self.db}"], capture_output=True)
        self.assertEqual(shown.returncode, 0, shown.stderr)
        self.assertIn(b"run 1 (", shown.stdout)
        self.assertIn(b" label caf?\n", shown.stdout)
        con.execute("UPDATE figures SET iops = -5 WHERE run_id = 1")
        con.commit()
        con.close()
        for args, into in ((["export"], "export"), (["summary"], "summary")):
            p = subprocess.run([BIN, "results", *args, f"--results-db={self.db}"], capture_output=True)
            self.assertEqual(p.returncode, 1, p.stderr)
            self.assertIn(f"; run 1 ('caf?') is left out of the {into}\n".encode(), p.stderr)
            self.assertNotIn(b"\xe9", p.stderr)
            p.stderr.decode("utf-8")  # every byte of it a character


class Checksums(StoreCase):
    """A value changed after its save into another plausible one (a bit flipped on disk, a
    row edited by hand) was read, compared and summed up as measured: nothing but the
    values' own sense (not negative, rates their counts over the runtime) was checked.
    Each run now keeps a checksum of its rows, and every reader of its figures checks it."""

    CHANGED = "no longer matches the checksum its save kept"

    def three_runs(self, job=None, every=False):
        for label in ("a", "b", "c"):
            args = [str(job)] if job and (every or label == "b") else [*JOB, f"--filename={self.tmp / 'f'}"]
            p = run([*args, "--output-format=json", f"--save={label}", f"--results-db={self.db}"])
            self.assertEqual(p.returncode, 0, p.stderr)
        self.assertFalse(pathlib.Path(f"{self.db}-wal").exists())  # every run is in the file

    def edit(self, sql):
        con = sqlite3.connect(self.db)
        con.execute(sql)
        con.commit()
        con.close()

    def assertRunTwoDamaged(self, says, summary_reads=True, groups=1):
        """show, compare, report, export and import find run 2 damaged; summary too when the
        change is in a row it reads (summary_reads), else it sums run 2 up with the others."""
        before = sha(self.db)
        error = f"ioplan: error: {self.db}: the results store is damaged: "
        for args in (["results", "show", "b"], ["compare", "a", "b"], ["results", "report", "b",
                                                                       f"--output={self.tmp / 'p.html'}"]):
            p = run([*args, f"--results-db={self.db}"])
            self.assertEqual((p.returncode, p.stdout), (2, ""), p.stderr)
            self.assertTrue(p.stderr.startswith(error), p.stderr)
            self.assertIn(says, p.stderr)
        self.assertFalse((self.tmp / "p.html").exists())
        for args, into in [(["export"], "export")] + [(["summary"], "summary")] * summary_reads:
            p = self.results(*args, ok=False)
            self.assertEqual(p.returncode, 1, p.stderr)
            self.assertIn(says, p.stderr)
            self.assertIn(f"; run 2 ('b') is left out of the {into}\n", p.stderr)
        p = self.results("summary", "--output-format=json", ok=not summary_reads)
        summary = json.loads(p.stdout)
        # runs counted, whatever rows their plans make (run 2 may be of a job file of its own)
        self.assertEqual((p.returncode, summary["damaged_left_out"], sum(g["count"] for g in summary["groups"])),
                         (1, 1, 2 * groups) if summary_reads else (0, 0, 3 * groups), p.stderr)
        p = run(["compare", "a", "c", f"--results-db={self.db}"])
        self.assertEqual(p.returncode, 0, p.stderr)
        damaged, self.db = self.db, self.tmp / "other.db"
        p = self.results("import", str(damaged), "--output-format=json", ok=False)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertEqual(json.loads(p.stdout), {"imported": 2, "already_stored": 0, "unreadable": 1})
        self.db = damaged
        self.assertEqual(sha(self.db), before)

    def test_a_figure_edited_into_another_plausible_one_is_damaged(self):
        self.three_runs()
        self.edit("UPDATE figures SET p99_ns = p99_ns + 1024 WHERE run_id = 2")
        self.assertRunTwoDamaged(f"run 2 {self.CHANGED}")

    def test_a_bit_flipped_on_disk_in_a_runs_job_text_is_damaged(self):
        job = self.tmp / "marked.fio"
        job.write_text(f"; marker-XXXX\n[j]\nrw=randread\nbs=4k\nsize=1m\nfilename={self.tmp / 'f'}\n")
        self.three_runs(job)
        data = bytearray(self.db.read_bytes())
        at = data.find(b"marker-XXXX")
        self.assertGreater(at, 0)
        self.assertEqual(data.find(b"marker-XXXX", at + 1), -1)
        data[at + 7] ^= 1   # 'X' to 'Y'
        self.db.write_bytes(bytes(data))
        # summary reads no job text: the checksum of the rows it reads still holds
        self.assertRunTwoDamaged(f"run 2 {self.CHANGED}", summary_reads=False)

    def test_a_run_saved_before_checksums_reads_and_a_checksum_no_save_writes_is_named(self):
        self.three_runs()
        # as a store of version 3 migrated
        self.edit("UPDATE runs SET checksum = '', summary_checksum = '' WHERE id = 2")
        self.assertEqual(self.results("show", "b").returncode, 0)
        self.assertEqual(self.results("summary").returncode, 0)
        self.edit("UPDATE runs SET checksum = 'abc' WHERE id = 2")
        self.assertRunTwoDamaged("run 2's checksum holds 'abc', which no save writes")
        # (summary reads neither of the runs row's; it checks the one of the rows it reads)
        self.edit("UPDATE runs SET summary_checksum = 'abd' WHERE id = 2")
        p = self.results("summary", ok=False)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn("run 2's summary checksum holds 'abd', which no save writes; run 2 ('b') is left out", p.stderr)

    def test_a_run_whose_figures_were_lost_is_named_by_summary(self):
        # Only the runs with figure rows were checked: with run 2's figures deleted (or on a
        # page lost), summary summed up runs 1 and 3, "runs 2", exit 0, without a word.
        self.three_runs()
        self.edit("DELETE FROM figures WHERE run_id = 2")
        self.assertRunTwoDamaged(f"run 2 {self.CHANGED}")

    def test_a_summary_of_damaged_runs_alone_exits_as_an_export_of_them(self):
        # Every run damaged: export printed nothing, "nothing is exported", exit 2, where
        # summary printed an empty table, exit 1, as when some runs were still summed up.
        self.three_runs()
        self.edit("UPDATE figures SET p99_ns = p99_ns + 1024")
        for args, done in ((["export"], "exported"), (["summary"], "summed up"),
                           (["summary", "--output-format=json"], "summed up")):
            with self.subTest(args=args):
                p = self.results(*args, ok=False)
                self.assertEqual((p.returncode, p.stdout), (2, ""), p.stderr)
                self.assertEqual(p.stderr.count(self.CHANGED), 3, p.stderr)
                self.assertTrue(p.stderr.endswith(f"ioplan: error: 3 runs could not be read; nothing is {done}\n"),
                                p.stderr)
        self.edit("UPDATE figures SET p99_ns = p99_ns - 1024 WHERE run_id = 3")   # run c reads again
        for args, done in ((["export"], "exported"), (["summary"], "summed up")):
            p = self.results(*args, ok=False)
            self.assertEqual(p.returncode, 1, p.stderr)
            self.assertNotEqual(p.stdout, "")
            self.assertTrue(p.stderr.endswith(f"ioplan: error: 2 runs could not be read and are left out; the 1 "
                                              f"other(s) are {done}\n"), p.stderr)

    def test_summary_checks_the_rows_it_reads_and_show_every_row(self):
        # Summary hashed every bucket and sample row of every run it summed up, to vouch for
        # the few rows it reads: 1.0 s of CPU for 10 000 runs of a disk's real buckets.  Each
        # run keeps a second checksum, of its facts, its figures and its clones' buckets
        # (summary merges those for the p99): summary checks that one, every other reader
        # the whole run's.  A change in a row summary reads is caught by both; one in a row
        # only the others read (a single job's bucket, a sample) by the others alone.
        job = self.tmp / "clones.fio"   # two clones of c (summary merges their buckets), and j
        job.write_text(f"[global]\nrw=randread\nbs=4k\nsize=256k\nioengine=psync\nfilename={self.tmp / 'f'}\n"
                       "[c]\nnumjobs=2\n[j]\n")
        run_b = "(SELECT id FROM figures WHERE run_id = 2 AND job = '{}')"
        for sql, summary_reads in (
                ("UPDATE facts SET value = value || 'x' WHERE run_id = 2 AND name = 'host'", True),
                # the workload a summary row goes by
                ("UPDATE facts SET value = value || 'x' WHERE run_id = 2 AND name = 'workload'", True),
                ("UPDATE figures SET p50_ns = p50_ns + 1 WHERE run_id = 2 AND job = 'j'", True),
                ("UPDATE buckets SET count = count + 1 WHERE rowid = (SELECT min(rowid) FROM buckets "
                 f"WHERE figure_id IN {run_b.format('c')})", True),
                ("UPDATE buckets SET count = count + 1 WHERE rowid = (SELECT min(rowid) FROM buckets "
                 f"WHERE figure_id IN {run_b.format('j')})", False),
                (f"UPDATE samples SET iops = iops + 1 WHERE figure_id IN {run_b.format('j')}", False)):
            with self.subTest(sql=sql):
                self.db.unlink(missing_ok=True)
                self.three_runs(job, every=True)
                con = sqlite3.connect(self.db)
                self.assertGreater(con.execute(sql).rowcount, 0)
                con.commit()
                con.close()
                self.assertRunTwoDamaged(f"run 2 {self.CHANGED}", summary_reads, 2)
                if summary_reads:
                    self.assertIn(f"run 2 {self.CHANGED} of the rows summary reads (",
                                  self.results("summary", ok=False).stderr)

    def test_a_run_of_schema_4_is_checked_whole_by_summary(self):
        # A store of schema 4 has the whole run's checksum only: migrated to 5, its runs keep
        # '' as the checksum of the rows summary reads, and summary checks the whole one.
        self.three_runs()
        con = sqlite3.connect(self.db)
        con.execute("ALTER TABLE runs DROP COLUMN summary_checksum")
        con.execute("PRAGMA user_version=4")
        con.execute("UPDATE samples SET iops = iops + 1 WHERE figure_id IN (SELECT id FROM figures WHERE run_id = 2)")
        con.commit()
        con.close()
        p = self.results("summary", ok=False)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn(f"run 2 {self.CHANGED} (", p.stderr)
        self.assertIn("; run 2 ('b') is left out of the summary\n", p.stderr)
        con = sqlite3.connect(self.db)
        self.assertEqual(con.execute("PRAGMA user_version").fetchone()[0], 5)
        self.assertEqual(con.execute("SELECT count(*) FROM runs WHERE summary_checksum = ''").fetchone()[0], 3)
        con.close()
        self.assertRunTwoDamaged(f"run 2 {self.CHANGED} (")


class CutShort(StoreCase):
    """A store file cut short (a copy or a transfer that stopped) was "the store is damaged (SQLite
    found a corrupt page)" for every command, and `results export` got no run out of it: SQLite
    refuses a file shorter than the page count its header keeps at the first read."""

    def test_a_store_cut_short_is_named_so_and_the_runs_left_in_it_come_out(self):
        job = self.tmp / "long.fio"   # run c's job text on overflow pages at the end of the file
        job.write_text("".join(f"; note {i:05d} kept with this job file\n" for i in range(3000)) +
                       "[j]\nioengine=null\nsize=1m\n")
        for label, args in (("a", ["--name=j", "--ioengine=null", "--size=1m"]),
                            ("b", ["--name=j", "--ioengine=null", "--size=2m"]), ("c", [str(job)])):
            p = run([*args, "--output-format=json", f"--save={label}", f"--results-db={self.db}"])
            self.assertEqual(p.returncode, 0, p.stderr)
        self.assertFalse(pathlib.Path(f"{self.db}-wal").exists())
        full = self.db.read_bytes()
        page = int.from_bytes(full[16:18], "big")
        for cut in (page, len(full) // 2):
            with self.subTest(cut=cut):
                self.db.write_bytes(full[:len(full) - cut])
                before = sha(self.db)
                says = (f"{self.db}: cannot read the results store: the store is cut short: the file holds "
                        f"{len(full) - cut} bytes, where its header counts {len(full) // page} pages of {page} "
                        f"({len(full)} bytes): a copy or a transfer of it stopped before its end")
                p = self.results("export", "--output-format=json", ok=False)
                self.assertEqual(p.returncode, 1, p.stderr)
                self.assertEqual([r["label"] for r in json.loads(p.stdout)], ["a", "b"])
                self.assertIn(f"ioplan: error: {says}; run 3 ('c') is left out of the export\n", p.stderr)
                p = self.results("show", "c", ok=False)
                self.assertEqual((p.returncode, p.stdout), (2, ""))
                self.assertIn(says, p.stderr)
                target = self.tmp / "never"
                r = run([*JOB, f"--filename={target}", "--save=more", f"--results-db={self.db}"])
                self.assertEqual((r.returncode, r.stdout), (2, ""), r.stderr)
                self.assertEqual(r.stderr, "ioplan: error: --save: " + says.replace("cannot read", "cannot use") +
                                 "; nothing was run\n")
                self.assertFalse(target.exists())
                damaged, self.db = self.db, self.tmp / f"rescued-{cut}.db"
                p = self.results("import", str(damaged), "--output-format=json", ok=False)
                self.assertEqual(json.loads(p.stdout), {"imported": 2, "already_stored": 0, "unreadable": 1})
                self.db = damaged
                self.assertEqual(sha(self.db), before)
                self.assertEqual(sorted(x.name for x in self.tmp.glob("results.db*")), ["results.db"])


class MisorderedRuns(StoreCase):
    def test_a_run_listed_but_not_found_again_is_left_out_not_the_export(self):
        # A page of the runs table whose rows are out of order (here run 1's row says 5) lists a
        # run that a lookup by id cannot find: `results export` ended "no run '5'", exit 2, and
        # runs 2 and 3, which still read, could not be got out of the store.
        for label in ("a", "b", "c"):
            self.assertEqual(self.ioplan_run(label=label).returncode, 0)
        con = sqlite3.connect(self.db)
        try:
            [(size,)] = con.execute("PRAGMA page_size").fetchall()
            pages = con.execute("SELECT pageno FROM dbstat WHERE name = 'runs' AND pagetype = 'leaf'").fetchall()
        except sqlite3.OperationalError as e:
            self.skipTest(f"python's sqlite3 has no dbstat table: {e}")
        finally:
            con.close()
        self.assertEqual(len(pages), 1)  # the three rows on one leaf page
        with open(self.db, "r+b") as f:
            base = (pages[0][0] - 1) * size
            f.seek(base)
            page = bytearray(f.read(size))
            self.assertEqual(page[0], 0x0D)  # a table's leaf
            cell = int.from_bytes(page[8:10], "big")  # the first cell: run 1
            while page[cell] & 0x80:  # past the payload's size (a varint)
                cell += 1
            self.assertEqual(page[cell + 1], 1)  # its rowid, a one-byte varint
            f.seek(base + cell + 1)
            f.write(b"\x05")
        before = sha(self.db)
        p = self.results("export", ok=False)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertEqual(sorted(line.split(",")[2] for line in p.stdout.splitlines()[1:]), ["b", "c"])
        self.assertIn(f"ioplan: error: {self.db}: run 5 was listed but cannot be found again (the store is "
                      "damaged, or another process removed the run); run 5 ('a') is left out of the export\n", p.stderr)
        self.db, damaged = self.tmp / "mended.db", self.db
        p = self.results("import", str(damaged), ok=False)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertEqual(sorted(r["label"] for r in self.listing()), ["b", "c"])
        self.assertEqual(sha(damaged), before)


class NewerRuns(StoreCase):
    def test_a_run_a_newer_ioplan_saved_is_left_out_not_the_export(self):
        # A store shared by two versions: one run in a newer run format ended the whole
        # `results export` (exit 2), and the runs this ioplan reads could not be got out.
        for label in ("a", "b", "c"):
            self.assertEqual(self.ioplan_run(label=label).returncode, 0)
        con = sqlite3.connect(self.db)
        con.execute("UPDATE runs SET format = 99 WHERE label = 'b'")
        con.commit()
        con.close()
        before = sha(self.db)
        p = self.results("export", ok=False)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertEqual(sorted(line.split(",")[2] for line in p.stdout.splitlines()[1:]), ["a", "c"])
        self.assertIn("run 2 was saved by a newer ioplan (run format 99, this ioplan reads up to", p.stderr)
        self.assertIn("; run 2 ('b') is left out of the export\n", p.stderr)
        p = self.results("show", "b", ok=False)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertEqual(sha(self.db), before)


class UnsavedRuns(StoreCase):
    """A run the store could not take (a corrupt page, a disk its own job filled) ended as
    one error line after the whole workload had run: nothing of it could be stored later."""

    def kept_file(self, stderr, where, cwd=None):
        m = re.search(r"its results are kept in (\S+): `ioplan results import \1 --results-db=(\S+)` "
                      r"stores them once the store can take them", stderr)
        self.assertIsNotNone(m, stderr)
        self.assertEqual(m.group(2), str(self.db))
        kept = pathlib.Path(cwd or ".") / m.group(1)   # named as from the run's directory
        self.assertEqual(kept.parent.resolve(), where.resolve())
        self.assertRegex(kept.name, r"^results\.db\.unsaved-[0-9a-f]{32}\.json$")
        return kept

    def filling_run(self, label):
        """A run whose job fills the store's file system, saved with label from a
        directory of its own (returned): it fails (exit 1) with its report printed."""
        cwd = self.tmp / "here"
        cwd.mkdir()
        p = run([*FILLING_JOB, f"--filename={self.mnt / 'f'}", "--output-format=json", f"--save={label}",
                 f"--results-db={self.db}"], cwd=cwd)
        self.assertEqual(p.returncode, 1, p.stderr)
        return p, cwd

    def import_into_another(self, kept):
        self.db = self.tmp / "mended.db"
        self.results("import", str(kept))
        [row] = self.listing()
        return row, json.loads(self.results("show", row["label"], "--output-format=json").stdout)

    def test_a_run_a_corrupt_store_refuses_is_kept_for_import(self):
        self.assertEqual(self.ioplan_run(label="before").returncode, 0)
        con = sqlite3.connect(self.db)
        [(page,)] = con.execute("SELECT rootpage FROM sqlite_master WHERE name = 'figures'").fetchall()
        con.close()
        with open(self.db, "r+b") as f:   # the figures table's root page, not the header
            f.seek((page - 1) * 4096)
            f.write(b"\xff" * 64)
        p = self.ioplan_run(label="nightly")
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn("--save: the run was not saved:", p.stderr)
        kept = self.kept_file(p.stderr, self.tmp)
        printed = json.loads(p.stdout)
        row, shown = self.import_into_another(kept)
        self.assertEqual((row["label"], row["uuid"]), ("nightly", printed["ioplan"]["uuid"]))
        self.assertEqual(shown["figures"][0]["ios"], printed["jobs"][0]["read"]["total_ios"])
        p = self.results("import", str(kept))
        self.assertIn("already stored as run 1; not stored again", p.stdout)

    def test_a_store_on_the_disk_its_job_filled_keeps_the_run_in_the_current_directory(self):
        self.store_on_tmpfs("small", "256k")
        self.assertEqual(self.ioplan_run(label="first").returncode, 0)
        p, cwd = self.filling_run("full")
        self.assertIn("No space left on device", p.stderr)
        kept = self.kept_file(p.stderr, cwd, cwd=cwd)
        self.assertEqual(sorted(n.name for n in self.mnt.iterdir() if "unsaved" in n.name), [])
        row, shown = self.import_into_another(kept)
        self.assertEqual((row["label"], row["failed"]), ("full", True))
        self.assertEqual(shown["failed"][0]["error"], 28)

    def test_a_first_save_onto_the_disk_its_job_filled_leaves_no_empty_store(self):
        # The store does not exist yet: it is made after the run, on the disk the job
        # filled.  Made in place, SQLite's first open left an empty results.db, which
        # every later `results` command refused as "no results store yet".
        self.store_on_tmpfs("small", "256k")
        p, cwd = self.filling_run("first")
        self.assertIn("the disk is full (no store was left)", p.stderr)
        self.assertEqual(sorted(n.name for n in self.mnt.iterdir()), ["f"])
        kept = self.kept_file(p.stderr, cwd, cwd=cwd)
        (self.mnt / "f").unlink()
        self.assertEqual(self.listing(), [])
        self.results("import", str(kept))
        self.assertEqual([r["label"] for r in self.listing()], ["first"])


class UnwritableDirectory(StoreCase):
    def test_a_user_who_may_write_the_store_but_not_its_directory_is_told_which(self):
        # SQLite makes the store's -wal and -shm beside it: a user who may write the file
        # but not the directory was told "the store cannot be written (read-only)".
        if os.geteuid() != 0:
            self.skipTest("needs root to run as another user")
        self.assertEqual(self.ioplan_run(label="first").returncode, 0)
        os.chmod(self.tmp, 0o755)
        os.chmod(self.db, 0o666)
        before = sha(self.db)

        def drop():
            os.setgid(65534)
            os.setuid(65534)
        p = subprocess.run([BIN, "--name=x", "--ioengine=null", "--size=1m", "--save", f"--results-db={self.db}"],
                           capture_output=True, text=True, timeout=60, preexec_fn=drop, cwd="/")
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn(f"its directory {self.tmp} is not writable (Permission denied), and SQLite makes the "
                      "store's -wal and -shm files there", p.stderr)
        # a save is not a read: it said "cannot read the results store: the store cannot be written"
        self.assertIn(f"--save: {self.db}: cannot use the results store: the store cannot be written", p.stderr)
        self.assertIn("nothing was run", p.stderr)
        self.assertEqual(sha(self.db), before)


    def test_a_wal_another_users_read_left_is_named_before_the_owners_run(self):
        # A store shared read-only in a directory all may write: SQLite makes the -wal and
        # -shm there for a reader too, owned by the reader; its owner's next --save ran the
        # job and then failed to save it, "the store cannot be written (read-only)".
        if os.geteuid() != 0:
            self.skipTest("needs root to run as other users")
        self.assertEqual(self.ioplan_run(label="first").returncode, 0)
        export = self.tmp / "first.json"
        export.write_text(self.results("export", "--output-format=json").stdout)
        os.chmod(self.tmp, 0o1777)
        os.chown(self.db, 1001, 1001)
        os.chmod(self.db, 0o644)
        before = sha(self.db)

        def as_user(uid):
            def drop():
                os.setgroups([])
                os.setgid(uid)
                os.setuid(uid)
            return drop
        p = subprocess.run([BIN, "results", "list", f"--results-db={self.db}"], capture_output=True, text=True,
                           timeout=60, preexec_fn=as_user(65534), cwd="/")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(os.stat(str(self.db) + "-wal").st_uid, 65534)  # SQLite's, left by a reader
        said = (f"{self.db}-wal belongs to nobody and cannot be written by this user (another user's read of "
                "the store leaves its -wal and -shm files there)")
        for args in (["--name=x", "--ioengine=null", "--size=1m", "--save"], ["results", "import", str(export)]):
            with self.subTest(args=args[0]):
                p = subprocess.run([BIN, *args, f"--results-db={self.db}"], capture_output=True, text=True,
                                   timeout=60, preexec_fn=as_user(1001), cwd="/")
                self.assertEqual((p.returncode, p.stdout), (2, ""), p.stderr)
                self.assertIn(said, p.stderr)
                if args[0] != "results":
                    self.assertIn("; nothing was run", p.stderr)  # before the run, not after it
        self.assertEqual(sha(self.db), before)


class OwnReadOnlyStore(StoreCase):
    def test_a_store_its_owner_made_read_only_and_read_takes_a_save_once_writable_again(self):
        # The owner's read of their own store while it was r--r--r-- (chmod a-w, to keep it)
        # leaves a -wal and -shm of that mode (SQLite's, which a read cannot remove).  The
        # owner's --save was then told "STORE-wal belongs to nobody ... (another user's
        # read ...)", and still so once the store was writable again: no save ever went in.
        if os.geteuid() != 0:
            self.skipTest("needs root to run as another user")
        self.assertEqual(self.ioplan_run(label="first").returncode, 0)
        os.chmod(self.tmp, 0o755)
        own = self.tmp / "own"
        own.mkdir()
        self.db = self.db.rename(own / "results.db")
        for path in (own, self.db):
            os.chown(path, 65534, 65534)
        os.chmod(self.db, 0o444)

        def as_nobody(*args):
            def drop():
                os.setgroups([])
                os.setgid(65534)
                os.setuid(65534)
            return subprocess.run([BIN, *args, f"--results-db={self.db}"], capture_output=True, text=True,
                                  timeout=60, preexec_fn=drop, cwd="/")
        save = ["--name=x", "--ioengine=null", "--size=1m", "--save=second"]
        self.assertEqual(as_nobody("results", "list").returncode, 0)
        self.assertTrue(pathlib.Path(f"{self.db}-wal").exists())   # left by that read
        p = as_nobody(*save)
        self.assertEqual((p.returncode, p.stdout), (2, ""), p.stderr)
        self.assertIn(f"{self.db}: the store cannot be written (Permission denied)", p.stderr)
        self.assertNotIn("belongs to", p.stderr)
        os.chmod(self.db, 0o644)
        p = as_nobody(*save)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual([r["label"] for r in self.listing()], ["first", "second"])
        self.assertEqual(sorted(x.name for x in own.iterdir()), ["results.db"])


class ReadOnlyMedia(StoreCase):
    """A WAL store on a read-only file system, without its -shm file (every ioplan that
    wrote it has closed it): every read failed as "the store cannot be written"."""

    def setUp(self):
        super().setUp()
        self.store_on_tmpfs("ro", "16m")

    def test_every_read_works_and_writes_nothing(self):
        for label in ("a", "b"):
            self.assertEqual(self.ioplan_run(label=label).returncode, 0)
        self.assertEqual(sorted(p.name for p in self.mnt.iterdir()), ["results.db"])  # WAL, no -shm
        con = sqlite3.connect(self.db)
        self.assertEqual(con.execute("PRAGMA journal_mode").fetchone()[0], "wal")
        con.close()
        subprocess.run(["mount", "-o", "remount,ro", str(self.mnt)], check=True)
        before = sha(self.db)
        self.assertEqual([r["label"] for r in self.listing()], ["a", "b"])
        for args in (["show", "a"], ["export"], ["export", "--output-format=json"], ["summary"],
                     ["report", "a", "b", f"--output={self.tmp / 'p.html'}"]):
            with self.subTest(args=args):
                self.results(*args)
        p = run(["compare", "a", "b", "--metrics=iops", f"--results-db={self.db}"])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(sorted(p.name for p in self.mnt.iterdir()), ["results.db"])
        self.assertEqual(sha(self.db), before)
        r = self.ioplan_run(label="more")  # a save is what cannot be done there
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("the store cannot be written (read-only file system)", r.stderr)

    def test_runs_left_in_the_wal_are_an_accurate_error(self):
        self.assertEqual(self.ioplan_run(label="a").returncode, 0)
        con = sqlite3.connect(self.db)
        try:  # a copy of the store while its -wal holds a change: what a crash leaves
            con.execute("PRAGMA wal_autocheckpoint=0")
            con.execute("UPDATE runs SET label = 'b'")
            con.commit()
            for side in ("", "-wal"):
                (self.mnt / f"copy.db{side}").write_bytes(pathlib.Path(f"{self.db}{side}").read_bytes())
        finally:
            con.close()
        subprocess.run(["mount", "-o", "remount,ro", str(self.mnt)], check=True)
        self.db = self.mnt / "copy.db"
        before = sha(self.db)
        p = self.results("list", ok=False)
        self.assertEqual(p.returncode, 2, p.stdout)
        self.assertIn("-wal holds runs not yet in the file, and SQLite reads them only through", p.stderr)
        self.assertNotIn("cannot be written", p.stderr)
        self.assertEqual(sha(self.db), before)


@unittest.skipUnless(FIO, "fio is not installed")
class FullDisk(StoreCase):
    """A store on a file system with no room left: an import or a --save fails whole,
    says so, and every run stored before is still there and readable; once room
    comes back the same import goes in."""

    def setUp(self):
        super().setUp()
        self.store_on_tmpfs("small", "2m")

    def fio_files(self, n):
        """n fio json+ result files, each a run of its own (its timestamp)."""
        doc = json.loads(subprocess.run([FIO, "--name=j", "--rw=randread", "--bs=4k", "--size=1m",
                                         "--ioengine=psync", f"--filename={self.tmp / 'ff'}",
                                         "--output-format=json+"], capture_output=True, text=True,
                                        check=True).stdout)
        paths = []
        for i in range(n):
            doc["timestamp"] = 1700000000 + i
            paths.append(self.tmp / f"fio-{i}.json")
            paths[-1].write_text(json.dumps(doc))
        return paths

    def intact(self, labels):
        con = sqlite3.connect(self.db)
        try:
            self.assertEqual(con.execute("PRAGMA integrity_check").fetchone()[0], "ok")
        finally:
            con.close()
        self.assertEqual([r["label"] for r in self.listing()], labels)

    def test_a_save_on_a_full_disk_is_refused_before_the_run_while_another_process_has_the_store_open(self):
        # Another process's connection keeps the store's -shm and -wal there, so the open
        # needs no room: the run went ahead and its save failed after it ("the disk is
        # full", the run kept as an unsaved file, exit 1).
        self.assertEqual(self.ioplan_run(label="before").returncode, 0)
        con = sqlite3.connect(self.db)
        try:
            con.execute("SELECT count(*) FROM runs").fetchone()
            self.assertTrue(pathlib.Path(str(self.db) + "-shm").exists())
            common.fill_up(self.mnt)
            r = run([*JOB, f"--filename={self.tmp / 'f'}", "--save=after", f"--results-db={self.db}"],
                    cwd=self.tmp)  # an unsaved run would be kept here
            self.assertEqual((r.returncode, r.stdout), (2, ""), r.stderr)
            self.assertRegex(r.stderr, r"--save: .*the disk is full \(No space left on device\); nothing was run")
            p = self.results("import", str(self.fio_files(1)[0]), ok=False)
            self.assertEqual(p.returncode, 2, p.stdout)
            self.assertIn("the disk is full", p.stderr)
        finally:
            con.close()
        self.assertEqual([f.name for f in self.tmp.rglob("*.unsaved-*")], [])
        (self.mnt / "filler").unlink()
        self.intact(["before"])

    def test_an_import_and_a_save_on_a_full_disk_fail_whole_and_keep_what_was_stored(self):
        self.assertEqual(self.ioplan_run(label="before").returncode, 0)
        files = self.fio_files(40)
        common.fill_up(self.mnt)
        p = self.results("import", *map(str, files), ok=False)
        self.assertEqual(p.returncode, 2, p.stdout)
        self.assertRegex(p.stderr, rf"^ioplan: error: {re.escape(str(self.db))}: .*disk is full")
        self.assertNotIn("imported", p.stdout)
        r = self.ioplan_run(label="after")  # refused before it runs: the store could not take it
        self.assertEqual((r.returncode, r.stdout), (2, ""), r.stderr)
        self.assertRegex(r.stderr, r"--save: .*disk is full.*; nothing was run")
        # A WAL store is read through its -shm, which a full disk cannot give room to.
        p = self.results("list", ok=False)
        self.assertEqual(p.returncode, 2)
        self.assertIn("the disk is full (No space left on device)", p.stderr)
        (self.mnt / "filler").unlink()
        self.intact(["before"])
        p = self.results("import", *map(str, files), "--output-format=json")
        self.assertEqual(json.loads(p.stdout), {"imported": 40, "already_stored": 0, "unreadable": 0})
        self.intact(["before"] + [""] * 40)


class SmallBlocks(StoreCase):
    """A store on a file system of 1 KiB blocks (ext4 makes small ones so) that fills:
    SQLite grows its -shm by writing one byte per 4 KiB page and writes the rest
    through mmap, so the page's other blocks were holes, and with 8 to 10 KiB left a
    store into one was a SIGBUS: `results list` and `results import` died "Bus
    error" (exit 135), never a word."""

    def test_a_full_disk_of_small_blocks_is_an_error_not_a_crash(self):
        self.mnt = common.ext4_loop(self)
        self.db = self.mnt / "results.db"
        self.assertEqual(os.statvfs(self.mnt).f_bsize, 1024)
        self.assertEqual(self.ioplan_run(label="before").returncode, 0)
        export = self.tmp / "before.json"
        export.write_text(self.results("export", "--output-format=json").stdout)
        common.fill_up(self.mnt)
        filler = self.mnt / "filler"
        os.truncate(filler, filler.stat().st_size - (9 << 10))  # room for SQLite's one byte a page
        for args in (["list"], ["import", str(export)], ["summary"]):
            with self.subTest(args=args[0]):
                p = self.results(*args, ok=False)
                self.assertEqual(p.returncode, 2, p.stderr)  # -7 (SIGBUS) before
                self.assertIn("the disk is full", p.stderr)
        filler.unlink()
        self.assertEqual([r["label"] for r in self.listing()], ["before"])
