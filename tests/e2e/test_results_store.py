"""tests/e2e/test_results_store.py - runs kept in a real SQLite store.

--save records a run (environment, figures, exact latency buckets, samples,
warnings); `ioplan results list|show|rm|export|import|summary` read and
change the store.  fio 3.33's own JSON output is imported.  The stores that
refuse a run or a command (locked, corrupt, read-only, full, newer) are
test_results_store_faults.py's.
"""
import hashlib
import html
import json
import os
import pathlib
import re
import signal
import sqlite3
import statistics
import subprocess
import unittest

from common import BIN, FIO, run, run_fio, wait_for_stderr
from store_case import FILLING_JOB, JOB, StoreCase, sha


def broken_openssl(case):
    """An OpenSSL configuration whose provider does not load (a FIPS set-up copied from
    another machine): its digests are then not to be had."""
    conf = case.tmp / "openssl.cnf"
    conf.write_text("openssl_conf = init\n[init]\nproviders = prov\n[prov]\nfips = fips_sect\n"
                    "[fips_sect]\nactivate = 1\nmodule = /nonexistent/fips.so\n")
    return {"OPENSSL_CONF": str(conf)}


class SaveAndRead(StoreCase):
    @unittest.skipUnless(FIO, "fio is not installed")
    def test_plan_hashes_and_import_ids_do_not_depend_on_openssls_configuration(self):
        # With OpenSSL's digests refused, a JSON report left out its plan hash (exit 0),
        # and every fio file imported got the id "": the second import said "already
        # stored as run 1" and kept nothing.  The hash is SHA-256 all the same.
        env = broken_openssl(self)
        plain = json.loads(run([*JOB, f"--filename={self.tmp / 'f'}", "--output-format=json"]).stdout)
        p = run([*JOB, f"--filename={self.tmp / 'f'}", "--output-format=json"], env=env)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(json.loads(p.stdout)["ioplan"]["plan_hash"], plain["ioplan"]["plan_hash"])
        for name, size in (("a", "1m"), ("b", "2m")):
            f = run_fio([f"--name={name}", "--ioengine=null", f"--size={size}", "--output-format=json",
                         f"--output={self.tmp / name}.json"])
            self.assertEqual(f.returncode, 0, f.stderr)
            p = run(["results", "import", str(self.tmp / f"{name}.json"), f"--results-db={self.db}"], env=env)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn("imported 1 run(s)", p.stdout + p.stderr)
        runs = self.listing()
        self.assertEqual(len(runs), 2, runs)
        self.assertEqual(len({r["uuid"] for r in runs}), 2, runs)
        for r in runs:
            self.assertRegex(r["uuid"], r"^[0-9a-f]{32}$")
            self.assertRegex(r["plan_hash"], r"^[0-9a-f]{64}$")

    def test_saved_run_keeps_the_reported_figures_and_buckets(self):
        p = self.ioplan_run(label="first")
        self.assertEqual(p.returncode, 0, p.stderr)
        doc = json.loads(p.stdout)
        runs = self.listing()
        self.assertEqual([(r["label"], r["source"]) for r in runs], [("first", "ioplan")])
        shown = json.loads(self.results("show", "first", "--output-format=json").stdout)
        fig = shown["figures"][0]
        read = doc["jobs"][0]["read"]
        self.assertEqual((fig["job"], fig["ddir"]), ("j", "read"))
        self.assertEqual(fig["io_bytes"], read["io_bytes"])
        self.assertAlmostEqual(fig["iops"], read["iops"], places=3)
        bins = {int(k): v for k, v in read["clat_ns"]["bins"].items()}
        self.assertEqual({b[0]: b[1] for b in fig["latency_buckets"]}, bins)
        self.assertEqual(sum(b[1] for b in fig["latency_buckets"]), read["total_ios"])
        self.assertEqual(shown["plan_hash"], doc["ioplan"]["plan_hash"])
        self.assertEqual(shown["environment"], doc["ioplan"]["environment"])
        self.assertEqual(shown["warnings"], doc["ioplan"]["warnings"])
        self.assertIn("--name=j --rw=randread", shown["job_text"])
        self.assertEqual(fig["plan"]["bs"], "4096")
        # the store is a plain SQLite file with a versioned schema, in WAL mode
        con = sqlite3.connect(self.db)
        self.assertEqual(con.execute("PRAGMA user_version").fetchone()[0], 5)
        self.assertEqual(con.execute("PRAGMA journal_mode").fetchone()[0], "wal")
        con.close()

    def test_repeats_are_all_kept(self):
        p = self.ioplan_run("--repeat=3", label="rep")
        self.assertEqual(p.returncode, 0, p.stderr)
        shown = json.loads(self.results("show", "rep", "--output-format=json").stdout)
        self.assertEqual(len(shown["figures"][0]["repeat_iops"]), 3)

    def test_an_empty_results_db_is_refused_not_the_default_store(self):
        # `--save --results-db=$DB` with DB unset ran and kept the run in the per-user
        # default store, while `results list --results-db=` refused an empty path.
        env = {"IOPLAN_RESULTS_DB": "", "XDG_DATA_HOME": str(self.tmp / "xdg")}
        target = self.tmp / "never"
        p = run([*JOB, f"--filename={target}", "--save", "--results-db="], env=env)
        self.assertEqual((p.returncode, p.stdout), (2, ""), p.stderr)
        self.assertIn("--results-db needs a path", p.stderr)
        self.assertFalse(target.exists())
        self.assertFalse((self.tmp / "xdg").exists())

    def test_default_path_from_environment(self):
        env = {"IOPLAN_RESULTS_DB": "", "XDG_DATA_HOME": str(self.tmp / "xdg")}
        p = run([*JOB, f"--filename={self.tmp / 'f'}", "--output-format=json", "--save"], env=env)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertTrue((self.tmp / "xdg" / "ioplan" / "results.db").exists())
        other = self.tmp / "env.db"
        p = run([*JOB, f"--filename={self.tmp / 'f'}", "--output-format=json", "--save"],
                env={"IOPLAN_RESULTS_DB": str(other)})
        self.assertEqual(p.returncode, 0, p.stderr)
        p = run(["results", "list", "--output-format=json"], env={"IOPLAN_RESULTS_DB": str(other)})
        self.assertEqual(len(json.loads(p.stdout)), 1)

    def test_a_given_store_in_a_missing_directory_is_refused_before_the_run(self):
        # Only the default store's directory is made.  A path given by --results-db or
        # IOPLAN_RESULTS_DB whose directory is missing (a typo, a mount point not mounted
        # yet) was made quietly, and the runs went where nobody would look for them.
        where = self.tmp / "typo" / "dir" / "r.db"
        for args, env in (([f"--results-db={where}"], None), ([], {"IOPLAN_RESULTS_DB": str(where)})):
            with self.subTest(args=args, env=env):
                p = run([*JOB, f"--filename={self.tmp / 'f'}", "--output-format=json", "--save", *args], env=env)
                self.assertEqual(p.returncode, 2, p.stderr)
                self.assertIn(f"{where}: cannot make the results store: {where.parent}: No such file or directory",
                              p.stderr)
                self.assertIn("nothing was run", p.stderr)
                self.assertFalse((self.tmp / "typo").exists())
                self.assertFalse((self.tmp / "f").exists())
        out = self.tmp / "run.json"
        p = run([*JOB, f"--filename={self.tmp / 'f'}", "--output-format=json", f"--output={out}"])
        self.assertEqual(p.returncode, 0, p.stderr)
        p = run(["results", "import", str(out), f"--results-db={where}"])
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("cannot make the results store", p.stderr)
        self.assertFalse((self.tmp / "typo").exists())
        (self.tmp / "typo" / "dir").mkdir(parents=True)
        p = run([*JOB, f"--filename={self.tmp / 'f'}", "--output-format=json", "--save", f"--results-db={where}"])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertTrue(where.exists())

    def test_without_home_the_default_store_is_the_users_never_the_working_directorys(self):
        # Without HOME (a service, cron's bare environment) the store was made under
        # ./.local/share of whatever directory the run started in.  Run as users whose
        # passwd home cannot hold it, so no real home is written: nobody's (/nonexistent)
        # and a uid with no passwd entry at all.
        work = self.tmp / "work"
        work.mkdir()
        os.chmod(self.tmp, 0o711)
        os.chmod(work, 0o777)
        env = {k: v for k, v in os.environ.items() if k not in ("HOME", "XDG_DATA_HOME", "IOPLAN_RESULTS_DB")}
        for uid, says in ((65534, "/nonexistent/.local/share/ioplan/results.db: cannot make the results store in /: "),
                          (54321, "no default results store: HOME is not set and user 54321 has no home "
                                  "directory; give --results-db=PATH or IOPLAN_RESULTS_DB")):
            if uid == 65534 and os.path.exists("/nonexistent"):
                continue
            with self.subTest(uid=uid):
                demote = lambda uid=uid: (os.setgid(uid), os.setuid(uid))
                p = subprocess.run([BIN, "--name=n", "--ioengine=null", "--size=1m", "--output-format=json", "--save"],
                                   cwd=work, env=env, preexec_fn=demote, capture_output=True, text=True, timeout=120)
                self.assertEqual((p.returncode, p.stdout), (2, ""), p.stderr)
                self.assertIn(says, p.stderr)
                self.assertEqual(list(work.iterdir()), [])

    def test_concurrent_saves_lose_nothing(self):
        procs = [subprocess.Popen([os.environ.get("IOPLAN_BIN", "ioplan"), *JOB,
                                   f"--filename={self.tmp / ('f%d' % i)}", "--output-format=json",
                                   f"--save=c{i}", f"--results-db={self.db}"],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for i in range(4)]
        for p in procs:
            out, err = p.communicate(timeout=120)
            self.assertEqual(p.returncode, 0, err)
        self.assertEqual(sorted(r["label"] for r in self.listing()), ["c0", "c1", "c2", "c3"])
        # Each first save made a store under a name of its own; the one linked first is used.
        self.assertEqual([n.name for n in self.tmp.iterdir() if ".making-" in n.name], [])

    def test_a_copy_of_the_store_file_holds_every_run_and_no_output_takes_its_side_files(self):
        # The runs were left in the WAL (no checkpoint at close): a copy of results.db held
        # none, and an --output on results.db-wal replaced every run saved.
        for label in ("a", "b", "c"):
            self.assertEqual(self.ioplan_run(label=label).returncode, 0)
        copy = self.tmp / "copy.db"
        copy.write_bytes(self.db.read_bytes())
        p = run(["results", "list", "--output-format=json", f"--results-db={copy}"])
        self.assertEqual([r["label"] for r in json.loads(p.stdout)], ["a", "b", "c"])
        held = sqlite3.connect(self.db)  # another process with the store open keeps its WAL
        held.execute("SELECT count(*) FROM runs").fetchone()
        self.addCleanup(held.close)
        for side in ("-wal", "-shm"):
            with self.subTest(side=side):
                self.assertTrue(pathlib.Path(f"{self.db}{side}").exists())
                p = self.results("export", f"--output={self.db}{side}", ok=False)
                self.assertEqual(p.returncode, 2, p.stderr)
                self.assertIn(f"is the results store's {side[1:]} file", p.stderr)
                r = self.ioplan_run(f"--output={self.db}{side}", label="d")
                self.assertEqual(r.returncode, 2, r.stderr)
        self.assertEqual([r["label"] for r in self.listing()], ["a", "b", "c"])
        # A save while another process has the store open: SQLite's checkpoint at close
        # is the last connection's, so the run stayed in the WAL, not in a copy of the file.
        self.assertEqual(self.ioplan_run(label="e").returncode, 0)
        copy.write_bytes(self.db.read_bytes())
        p = run(["results", "list", "--output-format=json", f"--results-db={copy}"])
        self.assertEqual([r["label"] for r in json.loads(p.stdout)], ["a", "b", "c", "e"])

    def test_a_read_leaves_nothing_beside_the_store(self):
        # A read opened the store read-only: SQLite made its -wal and -shm files and, read-only,
        # could not remove them as it closed, so every `results list` left both behind.
        for label in ("a", "b"):
            self.assertEqual(self.ioplan_run(label=label).returncode, 0)
        self.assertEqual(sorted(p.name for p in self.tmp.iterdir() if p.name.startswith("results")),
                         ["results.db"])
        before = self.db.read_bytes()
        for args in (["list"], ["show", "a"], ["export"], ["summary"], ["report", "a", "b",
                                                                      f"--output={self.tmp / 'p.html'}"]):
            with self.subTest(args=args):
                self.results(*args)
                self.assertEqual(sorted(p.name for p in self.tmp.iterdir() if p.name.startswith("results")),
                                 ["results.db"])
        self.assertEqual(self.db.read_bytes(), before)  # and writes nothing
        p = run(["compare", "a", "b", "--metrics=iops", f"--results-db={self.db}"])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(sorted(p.name for p in self.tmp.iterdir() if p.name.startswith("results")), ["results.db"])

    def test_rm_and_export(self):
        for label in ("a", "b"):
            self.assertEqual(self.ioplan_run(label=label).returncode, 0)
        csv = self.results("export").stdout.splitlines()
        self.assertTrue(csv[0].startswith("run_id,uuid,label,source"))
        self.assertEqual(len(csv), 3)
        exported = json.loads(self.results("export", "a", "--output-format=json").stdout)
        self.assertEqual([r["label"] for r in exported], ["a"])
        before = sha(self.db)
        p = self.results("rm", "a", "nosuchrun", ok=False)
        self.assertEqual(p.returncode, 2)
        self.assertIn("no run 'nosuchrun'", p.stderr)
        self.assertEqual(sha(self.db), before)
        self.results("rm", "a")
        self.assertEqual([r["label"] for r in self.listing()], ["b"])
        # CSV's figures are JSON's, digit for digit (12 significant digits rounded them).
        doc = json.loads(self.ioplan_run(label="c").stdout)
        # (a second's run of those rates: an import refuses rates its counts do not give)
        doc["jobs"][0]["read"].update(iops=1234567.891234, bw_bytes=552359444227938, runtime=1000,
                                      total_ios=1234568, io_bytes=552359444227938)
        doc["jobs"][0]["read"]["clat_ns"]["mean"] = 12345678.123456
        (self.tmp / "edited.json").write_text(json.dumps(doc))
        other = self.tmp / "other.db"
        self.assertEqual(run(["results", "import", str(self.tmp / "edited.json"), f"--results-db={other}"]).returncode, 0)
        lines = run(["results", "export", f"--results-db={other}"]).stdout.splitlines()
        head, row = lines[0].split(","), lines[1].split(",")
        self.assertEqual([row[head.index(k)] for k in ("iops", "bw_bytes", "lat_mean_ns")],
                         ["1234567.891234", "552359444227938", "12345678.123456"])

    def test_help_of_every_results_command_prints_the_usage(self):
        self.assertEqual(self.ioplan_run(label="a").returncode, 0)
        before = sha(self.db)
        for args in (["results", "--help"], ["results", "list", "-h"], ["results", "rm", "a", "--help"],
                     ["compare", "--help"], ["results", "summary", "--by=host", "--help"]):
            with self.subTest(args=args):
                p = run([*args, f"--results-db={self.db}"])
                self.assertEqual((p.returncode, p.stderr), (0, ""))
                self.assertTrue(p.stdout.startswith("usage: ioplan results list|show RUN"), p.stdout)
                self.assertIn("ioplan compare A B", p.stdout)
        self.assertEqual(sha(self.db), before)  # rm ... --help removed nothing

    def test_a_run_refused_before_it_starts_makes_no_store(self):
        # --save's store is judged before the run; one not there yet is made by the save,
        # so a run the preflight refuses (here: a file ioplan did not make) leaves none.
        mine = self.tmp / "mine.txt"
        mine.write_text("precious\n")
        p = run(["--name=w", f"--filename={mine}", "--rw=write", "--size=4k", "--save",
                 f"--results-db={self.db}", "--output-format=json"])
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("refusing to write into an existing file", p.stderr)
        self.assertFalse(self.db.exists())
        self.assertEqual(mine.read_text(), "precious\n")

    def test_rm_changes_only_a_store_that_is_there(self):
        # rm of a store that was not there made an empty store to say it had no such run.
        missing, empty = self.tmp / "missing.db", self.tmp / "empty.db"
        empty.touch()
        for db, says in ((missing, "no results store here"), (empty, "an empty file, no results store yet")):
            with self.subTest(db=db.name):
                p = run(["results", "rm", "1", f"--results-db={db}"])
                self.assertEqual(p.returncode, 2, p.stderr)
                self.assertIn(says, p.stderr)
        self.assertFalse(missing.exists())
        self.assertEqual(empty.stat().st_size, 0)

    def test_rm_and_import_judge_their_output_before_changing_the_store(self):
        # Both exited 2 for an --output they could not write after the change was made:
        # the run removed, the file imported.
        for label in ("a", "b"):
            self.assertEqual(self.ioplan_run(label=label).returncode, 0)
        result = self.tmp / "r.json"
        result.write_text(run([*JOB, f"--filename={self.tmp / 'f'}", "--output-format=json"]).stdout)
        before = sha(self.db)
        for args in (["rm", "a", f"--output={self.db}"], ["rm", "a", "--output=/nonexistent/x"],
                     ["import", str(result), "--output=/nonexistent/x"], ["import", str(result), f"--output={result}"]):
            with self.subTest(args=args):
                p = self.results(*args, ok=False)
                self.assertEqual(p.returncode, 2, p.stderr)
                self.assertEqual(sha(self.db), before)
        self.assertEqual([r["label"] for r in self.listing()], ["a", "b"])

    def test_percentiles_a_result_does_not_list_come_from_its_histogram(self):
        # percentile_list=90:95 has no p50/p99/p99.9: they were stored as 0 (show, export
        # and --fail-on-regression then saw a latency of 0).  Taken out of a result that
        # lists them, they come back from its histogram equal to what the report printed.
        doc = json.loads(run([*JOB, f"--filename={self.tmp / 'f'}", "--output-format=json+"]).stdout)
        lat = doc["jobs"][0]["read"]["clat_ns"]
        listed = [lat["percentile"].pop(k) for k in ("50.000000", "99.000000", "99.900000")]
        self.assertGreater(listed[0], 0)
        (self.tmp / "short.json").write_text(json.dumps(doc))
        self.results("import", str(self.tmp / "short.json"))
        fig = json.loads(self.results("export", "--output-format=json").stdout)[0]["figures"][0]
        self.assertEqual([fig["p50_ns"], fig["p99_ns"], fig["p999_ns"]], listed)
        p = self.ioplan_run("--percentile_list=90:95", label="short")
        self.assertEqual(p.returncode, 0, p.stderr)
        fig = json.loads(self.results("export", "short", "--output-format=json").stdout)[0]["figures"][0]
        self.assertGreater(fig["p50_ns"], 0)

    def test_summary_groups_runs(self):
        for label in ("x", "x", "x", "y"):
            self.assertEqual(self.ioplan_run(label=label).returncode, 0)
        s = json.loads(self.results("summary", "--by=label", "--output-format=json").stdout)
        counts = {g["group"]: g["count"] for g in s["groups"]}
        self.assertEqual(counts, {"x": 3, "y": 1})
        g = next(g for g in s["groups"] if g["group"] == "x")
        self.assertLessEqual(g["iops"]["p10"], g["iops"]["median"])
        self.assertLessEqual(g["iops"]["median"], g["iops"]["p90"])
        plan = self.listing()[0]["plan_hash"]
        s = json.loads(self.results("summary", f"--plan={plan}", "--output-format=json").stdout)
        self.assertEqual(sum(g["count"] for g in s["groups"]), 4)
        p = self.results("summary", "--by=colour", ok=False)
        self.assertEqual(p.returncode, 2)
        self.assertIn("no field 'colour'", p.stderr)

    RATED = ["--name=j", "--ioengine=null", "--rw=read", "--bs=4k", "--size=1g", "--time_based", "--runtime=500ms"]

    def import_as(self, rate, like, label, host=None):
        """A run at rate_iops=rate, reported and imported as a run of the plan and workload
        of the stored run like (a run of that workload that went at this rate on a host in
        trouble) with label, on host."""
        p = run([*self.RATED, f"--rate_iops={rate}", "--output-format=json"])
        self.assertEqual(p.returncode, 0, p.stderr)
        doc = json.loads(p.stdout)
        doc["ioplan"]["plan_hash"] = like["plan_hash"]
        doc["ioplan"]["workload_hash"] = like["workload_hash"]
        doc["ioplan"]["uuid"] = hashlib.sha256(f"{rate}{label}{host}".encode()).hexdigest()[:32]
        doc["ioplan"]["saved_as"] = {"label": label, "preset": ""}
        if host:
            doc["ioplan"]["host"] = host
        path = self.tmp / f"{rate}-{label}.json"
        path.write_text(json.dumps(doc))
        self.results("import", str(path))
        return max(r["id"] for r in self.listing())

    def test_summary_names_as_outliers_only_runs_far_from_the_others(self):
        """Runs of a rate-limited job agree to a few tenths of a percent, so Tukey's
        fences alone are that narrow: a run 0.6% off its peers was named an outlier,
        one of "the ones that go with trouble".  An outlier is now also more than 10%
        from the group's median; a run at half the rate still is one."""
        ids = {}
        for label, off in (("even", 970), ("odd", 500)):
            for _ in range(4):
                p = run([*self.RATED, "--rate_iops=1000", f"--save={label}", f"--results-db={self.db}"])
                self.assertEqual(p.returncode, 0, p.stderr)
            ids[label] = self.import_as(off, self.listing()[-1], label)
        s = json.loads(self.results("summary", "--by=label", "--output-format=json").stdout)
        groups = {g["group"]: g for g in s["groups"]}
        self.assertEqual({k: g["count"] for k, g in groups.items()}, {"even": 5, "odd": 5})
        self.assertEqual(groups["even"]["outliers"], [], groups["even"])
        self.assertEqual(groups["odd"]["outliers"], [ids["odd"]], groups["odd"])
        rows = {ln.split()[0]: ln.split()[-1] for ln in self.results("summary", "--by=label").stdout.splitlines()[1:]}
        self.assertEqual(rows, {"even": "-", "odd": str(ids["odd"])})

    def test_summary_puts_only_runs_of_one_plan_in_a_row(self):
        """Jobs named j at bs=4k and at bs=64k, or rate-limited and not, were one row of
        `results summary`, one median of both workloads, and the run of the other plan
        was named an outlier.  A row now holds the runs of one workload, shown apart."""
        saved = [("--bs=4k",)] * 4 + [("--bs=64k",)] * 2 + [("--bs=4k", "--rate_iops=500")]
        for opts in saved:
            p = run([*self.RATED[:3], *opts, "--size=1g", "--time_based", "--runtime=300ms",
                     "--save", f"--results-db={self.db}"])
            self.assertEqual(p.returncode, 0, p.stderr)
        runs = self.listing()
        plan_of = {r["id"]: r["workload_hash"] for r in runs}
        self.assertEqual(len(set(plan_of.values())), 3, runs)
        iops = {}
        for r in json.loads(self.results("export", "--output-format=json").stdout):
            iops.setdefault(r["workload_hash"], []).extend(f["iops"] for f in r["figures"])
        s = json.loads(self.results("summary", "--output-format=json").stdout)
        self.assertEqual(sorted((g["job"], g["workload"], g["count"]) for g in s["groups"]),
                         sorted(("j", plan, len(v)) for plan, v in iops.items()))
        for g in s["groups"]:
            self.assertEqual(g["iops"]["median"], statistics.median(iops[g["workload"]]), g)
            self.assertTrue(all(plan_of[i] == g["workload"] for i in g["outliers"]), g)
        rated = max(plan_of)   # the rate-limited run, saved last: no other plan's median names it
        self.assertEqual([g["count"] for g in s["groups"] if g["workload"] == plan_of[rated]], [1])
        self.assertNotIn(rated, [i for g in s["groups"] for i in g["outliers"]])
        text = self.results("summary").stdout.splitlines()
        self.assertEqual(text[0].split()[:4], ["group", "job", "workload", "dir"])
        self.assertEqual(sorted(ln.split()[2] for ln in text[1:]), sorted(p[:12] for p in iops))

    def test_summary_keeps_one_plan_run_on_several_hosts_together(self):
        # The same job file on two hosts is one plan: one row without --by, a row
        # per host with --by=host.
        p = run([*self.RATED, "--rate_iops=1000", "--save", f"--results-db={self.db}"])
        self.assertEqual(p.returncode, 0, p.stderr)
        here = self.listing()[0]
        other = self.import_as(1000, here, "", host="other-host")
        s = json.loads(self.results("summary", "--output-format=json").stdout)
        self.assertEqual([(g["workload"], g["plans"], g["count"]) for g in s["groups"]],
                         [(here["workload_hash"], [here["plan_hash"]], 2)])
        s = json.loads(self.results("summary", "--by=host", "--output-format=json").stdout)
        self.assertEqual(sorted((g["group"], g["workload"], g["count"]) for g in s["groups"]),
                         sorted([(here["host"], here["workload_hash"], 1), ("other-host", here["workload_hash"], 1)]))
        self.assertNotEqual(other, here["id"])

    @unittest.skipUnless(FIO, "fio is not installed")
    def test_summary_tells_fio_runs_of_other_options_apart(self):
        """fio records no plan hash: only rw, bs, iodepth, numjobs, size, direct and
        ioengine were hashed, so fio runs at rate_iops=1000 and 500 were one plan, one
        row of the summary.  Every option of every job is hashed now; the same command
        imported twice is still one plan."""
        for i, rate in enumerate((1000, 1000, 500)):
            out = self.tmp / f"fio{i}.json"
            f = run_fio(["--name=j", "--ioengine=null", "--rw=read", "--bs=4k", "--size=1g", "--time_based",
                         "--runtime=300ms", f"--rate_iops={rate}", "--output-format=json", f"--output={out}"])
            self.assertEqual(f.returncode, 0, f.stderr)
            self.results("import", str(out))
        plans = [r["plan_hash"] for r in self.listing()]
        self.assertEqual((plans[0] == plans[1], plans[0] == plans[2]), (True, False), plans)
        s = json.loads(self.results("summary", "--output-format=json").stdout)
        self.assertEqual(sorted((g["plans"], g["count"]) for g in s["groups"]),
                         sorted([([plans[0]], 2), ([plans[2]], 1)]))

    NULL_JOB = ["--name=j", "--ioengine=null", "--rw=randread", "--size=64m"]

    def import_report(self, *opts, host=None, old=False):
        """NULL_JOB with opts, reported and imported as run on host; old: as an ioplan that
        kept no workload hash wrote it (its runs saved before)."""
        p = run([*self.NULL_JOB, *opts, "--output-format=json"])
        self.assertEqual(p.returncode, 0, p.stderr)
        doc = json.loads(p.stdout)
        if host:
            doc["ioplan"]["host"] = host
        if old:
            del doc["ioplan"]["workload_hash"]
        path = self.tmp / f"{doc['ioplan']['uuid']}.json"
        path.write_text(json.dumps(doc))
        self.results("import", str(path))
        return self.listing()[-1]

    def test_summary_sums_up_one_job_on_hosts_whose_targets_are_named_apart(self):
        """The plan hash holds the job's file names: the same job run against one file here
        and another on a second host (as /dev/nvme0n1 and /dev/sdb, or --directory=/mnt/a
        and /mnt/b) was two rows of `results summary`, and a fleet never summed up.  Rows go
        by the workload hash now, the plan less its target names: one row of three runs of
        three plans; the job at another bs is still another row."""
        p = run([*self.NULL_JOB, f"--filename={self.tmp / 'a'}", "--save", f"--results-db={self.db}"])
        self.assertEqual(p.returncode, 0, p.stderr)
        here = self.listing()[0]
        (self.tmp / "d").mkdir()
        b = self.import_report(f"--filename={self.tmp / 'b'}", host="host-b")
        c = self.import_report(f"--directory={self.tmp / 'd'}", host="host-c")
        wide = self.import_report(f"--filename={self.tmp / 'b'}", "--bs=64k", host="host-b")
        self.assertEqual(len({here["plan_hash"], b["plan_hash"], c["plan_hash"], wide["plan_hash"]}), 4)
        self.assertEqual((b["workload_hash"], c["workload_hash"]), (here["workload_hash"],) * 2)
        self.assertNotEqual(wide["workload_hash"], here["workload_hash"])
        s = json.loads(self.results("summary", "--output-format=json").stdout)
        self.assertEqual(sorted((g["workload"], g["plans"], g["count"]) for g in s["groups"]),
                         sorted([(here["workload_hash"], sorted([here["plan_hash"], b["plan_hash"], c["plan_hash"]]), 3),
                                 (wide["workload_hash"], [wide["plan_hash"]], 1)]))
        text = self.results("summary").stdout.splitlines()
        self.assertEqual(text[0].split()[:4], ["group", "job", "workload", "dir"])
        self.assertEqual(sorted((ln.split()[2], ln.split()[4]) for ln in text[1:]),
                         sorted([(here["workload_hash"][:12], "3"), (wide["workload_hash"][:12], "1")]))
        s = json.loads(self.results("summary", "--by=host", "--output-format=json").stdout)
        self.assertEqual(sorted((g["group"], g["count"]) for g in s["groups"]),
                         sorted([(here["host"], 1), ("host-b", 1), ("host-b", 1), ("host-c", 1)]))
        # --workload takes the 12 digits results list shows, as --plan takes a plan's
        listed = self.results("list").stdout.splitlines()
        self.assertEqual(listed[0].split()[6:8], ["plan", "workload"])
        self.assertEqual([ln.split()[6] for ln in listed[1:]], [here["workload_hash"][:12]] * 3 + [wide["workload_hash"][:12]])
        s = json.loads(self.results("summary", f"--workload={here['workload_hash'][:12]}", "--output-format=json").stdout)
        self.assertEqual([g["count"] for g in s["groups"]], [3])
        self.assertIn(f"workload {here['workload_hash']}\n", self.results("show", str(b["id"])).stdout)

    def test_summary_goes_by_the_plan_of_runs_saved_before_workload_hashes(self):
        """A run saved before ioplan kept workload hashes has its plan alone: one of a plan
        a later run has is summed up with that run (one plan is one workload), one of a plan
        no later run has goes by its plan hash, with a '*' in the text and no workload in
        the JSON.  A store of schema 2 of such runs, migrated, reads the same."""
        old = self.import_report(f"--filename={self.tmp / 'a'}", old=True)
        lone = self.import_report(f"--filename={self.tmp / 'a'}", "--bs=64k", old=True)
        self.assertEqual((old["workload_hash"], lone["workload_hash"]), ("", ""))
        p = run([*self.NULL_JOB, f"--filename={self.tmp / 'a'}", "--save", f"--results-db={self.db}"])
        self.assertEqual(p.returncode, 0, p.stderr)
        new = self.listing()[-1]
        self.assertEqual(new["plan_hash"], old["plan_hash"])
        as_schema_2(self.db)
        s = json.loads(self.results("summary", "--output-format=json").stdout)
        self.assertEqual(sorted(((g["workload"] or ""), g["plans"], g["count"]) for g in s["groups"]),
                         sorted([(new["workload_hash"], [new["plan_hash"]], 2), ("", [lone["plan_hash"]], 1)]))
        text = self.results("summary").stdout.splitlines()
        self.assertEqual(sorted(ln.split()[2] for ln in text[1:3]), sorted([new["workload_hash"][:12], lone["plan_hash"][:12] + "*"]))
        self.assertTrue(text[3].startswith("* a plan hash, not a workload's: runs saved before"), text)
        s = json.loads(self.results("summary", f"--workload={new['workload_hash'][:12]}", "--output-format=json").stdout)
        self.assertEqual([g["count"] for g in s["groups"]], [2])
        s = json.loads(self.results("summary", f"--plan={lone['plan_hash'][:12]}", "--output-format=json").stdout)
        self.assertEqual([(g["workload"], g["count"]) for g in s["groups"]], [(None, 1)])
        self.assertIn("workload not recorded (saved before ioplan kept workload hashes)",
                      self.results("show", str(lone["id"])).stdout)

    def test_summary_sums_up_the_runs_of_a_job_of_randrepeat_0(self):
        """randrepeat=0 draws each thread's seed from the OS for each run, and the plan holds
        it: three runs of one such job were three rows of one run each.  The workload leaves
        the seed out: one row of three."""
        for _ in range(3):
            p = run([*self.NULL_JOB, "--randrepeat=0", "--save", f"--results-db={self.db}"])
            self.assertEqual(p.returncode, 0, p.stderr)
        runs = self.listing()
        self.assertEqual(len({r["plan_hash"] for r in runs}), 3, runs)
        s = json.loads(self.results("summary", "--output-format=json").stdout)
        self.assertEqual([(g["workload"], g["count"]) for g in s["groups"]], [(runs[0]["workload_hash"], 3)])

    @unittest.skipUnless(FIO, "fio is not installed")
    def test_summary_sums_up_fio_runs_of_one_job_on_targets_named_apart(self):
        """Imported fio runs are grouped by their options less the target names too: fio
        runs of one job against two files are one row, the job at another bs another."""
        for name, opts in (("a", ["--filename=" + str(self.tmp / "a")]), ("b", ["--filename=" + str(self.tmp / "b")]),
                           ("c", ["--filename=" + str(self.tmp / "a"), "--bs=64k"])):
            f = run_fio([*self.NULL_JOB, *opts, "--output-format=json", f"--output={self.tmp / name}.json"])
            self.assertEqual(f.returncode, 0, f.stderr)
            self.results("import", str(self.tmp / f"{name}.json"))
        runs = self.listing()
        self.assertEqual(len({r["plan_hash"] for r in runs}), 3, runs)
        s = json.loads(self.results("summary", "--output-format=json").stdout)
        self.assertEqual(sorted((g["workload"], g["count"]) for g in s["groups"]),
                         sorted([(runs[0]["workload_hash"], 2), (runs[2]["workload_hash"], 1)]))
        self.assertEqual(runs[0]["workload_hash"], runs[1]["workload_hash"])

    def test_summary_takes_the_plan_as_results_list_shows_it_and_refuses_a_filter_no_run_has(self):
        # --plan=<the 12 digits `results list` shows> and a misspelt --preset were an empty
        # summary, exit 0: a gate on it passed with nothing summed up.
        for label in ("x", "y"):
            self.assertEqual(self.ioplan_run(label=label).returncode, 0)
        plan = self.listing()[0]["plan_hash"]
        shown = self.results("list").stdout.splitlines()[1].split()[6]
        self.assertEqual(shown, plan[:12])
        s = json.loads(self.results("summary", f"--plan={shown}", "--output-format=json").stdout)
        self.assertEqual([g["count"] for g in s["groups"]], [2])
        for flag, says in ((f"--plan=0{plan[:11]}" if plan[0] != "0" else f"--plan=1{plan[:11]}",
                            "no stored run has plan '"), ("--preset=oltpp", "no stored run has preset 'oltpp'")):
            p = self.results("summary", flag, ok=False)
            self.assertEqual((p.returncode, p.stdout), (2, ""), p.stderr)
            self.assertIn(f"ioplan: error: {self.db}: {says}", p.stderr)

    def test_summary_text_names_runs_without_the_fact_apart_from_a_value(self):
        # A run without a label and one labelled "(none)" were two rows alike, "(none)",
        # and with no --by every row's group said "(none)" as if the runs lacked one.
        for label in (None, "(none)", "x"):
            self.assertEqual(self.ioplan_run(label=label).returncode, 0)
        first = lambda *a: [ln.split("  ")[0].strip() for ln in self.results("summary", *a).stdout.splitlines()]
        self.assertEqual(first("--by=label"), ["label", "(no label)", "(none)", "x"])
        self.assertEqual(first(), ["group", "all"])
        self.assertEqual(first("--by=instance_type")[1:], ["(no instance_type)"])
        groups = json.loads(self.results("summary", "--by=label", "--output-format=json").stdout)["groups"]
        self.assertEqual([g["group"] for g in groups], ["", "(none)", "x"])   # JSON keeps the value

    def test_summary_text_shows_the_latency_it_holds(self):
        # A run served from the page cache has a p99 of a few microseconds: it was
        # printed to the whole microsecond, and one under a microsecond as 0.
        for _ in range(2):
            self.assertEqual(self.ioplan_run(label="cached").returncode, 0)
        g = json.loads(self.results("summary", "--output-format=json").stdout)["groups"][0]
        text = self.results("summary").stdout.splitlines()[1].split()
        want = "/".join(us_text(g['p99_ns'][k], 2) for k in ("p10", "median", "p90"))
        self.assertEqual(text[7], want, text)
        self.assertNotEqual(set(want.replace("/", "")), {"0", "."})

    def test_a_latency_under_a_microsecond_is_shown_to_the_nanosecond(self):
        # A null engine's I/O takes some tens of nanoseconds: results show printed
        # its p50 and p99 as 0.0 (us), and summary to 10 ns, as if nothing was
        # measured.  Under a microsecond, both now print whole nanoseconds.
        for _ in range(2):
            p = run(["--name=n", "--ioengine=null", "--rw=randread", "--bs=4k", "--size=4m", "--save",
                     f"--results-db={self.db}"])
            self.assertEqual(p.returncode, 0, p.stderr)
        f = json.loads(self.results("show", "1", "--output-format=json").stdout)["figures"][0]
        self.assertGreater(f["p50_ns"], 0)
        self.assertLess(f["p50_ns"], 1000)
        row = self.results("show", "1").stdout.splitlines()[-1].split()
        self.assertEqual(row[-3:], [us_text(f[k], 1) for k in ("p50_ns", "p99_ns", "p999_ns")], row)
        self.assertNotEqual(float(row[-3]), 0, row)
        g = json.loads(self.results("summary", "--output-format=json").stdout)["groups"][0]
        text = self.results("summary").stdout.splitlines()[1].split()
        self.assertEqual(text[7], "/".join(us_text(g["p99_ns"][k], 2) for k in ("p10", "median", "p90")), text)
        self.assertNotEqual(float(text[7].split("/")[1]), 0, text)


def us_text(ns, prec):
    """A latency as the text tables print it in microseconds: prec decimals from
    a microsecond up, whole nanoseconds below."""
    return f"{ns / 1e3:.{prec}f}" if ns >= 999.5 else f"{ns / 1e3:.3f}"


def as_schema_2(db):
    """Turns a store back into what ioplan wrote up to schema version 2: the same
    tables, runs' ids without AUTOINCREMENT (the highest id removed was handed out again)
    and without the checksums of versions 4 and 5."""
    con = sqlite3.connect(db, isolation_level=None)
    try:  # closed whatever happens: an open store would keep its mount busy
        con.execute("PRAGMA journal_mode=DELETE")
        con.execute("PRAGMA foreign_keys=OFF")
        con.execute("BEGIN")
        sql = con.execute("SELECT sql FROM sqlite_master WHERE name = 'runs'").fetchone()[0]
        con.execute(re.sub(r'^CREATE TABLE "?runs"?', "CREATE TABLE runs_v2", sql).replace(" AUTOINCREMENT", ""))
        con.execute("INSERT INTO runs_v2 SELECT * FROM runs")
        con.execute("DROP TABLE runs")
        con.execute("ALTER TABLE runs_v2 RENAME TO runs")
        con.execute("ALTER TABLE runs DROP COLUMN summary_checksum")
        con.execute("ALTER TABLE runs DROP COLUMN checksum")
        if con.execute("SELECT 1 FROM sqlite_master WHERE name = 'sqlite_sequence'").fetchone():
            con.execute("DELETE FROM sqlite_sequence")
        con.execute("PRAGMA user_version=2")
        con.execute("COMMIT")
    finally:
        con.close()


def counts(db):
    con = sqlite3.connect(db)
    try:
        return {t: con.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
                for t in ("runs", "facts", "warnings", "figures", "buckets", "samples")}
    finally:
        con.close()


class RunIds(StoreCase):
    """runs.id was INTEGER PRIMARY KEY without AUTOINCREMENT: after `results rm` of the
    newest run the next save took its id, so a note "run 3 is the baseline" named another run."""

    def ids(self):
        return [(r["id"], r["label"]) for r in self.listing()]

    def test_an_id_is_never_handed_out_twice(self):
        for label in ("a", "b", "c"):
            self.assertEqual(self.ioplan_run(label=label).returncode, 0)
        self.results("rm", "c")
        self.assertEqual(self.ioplan_run(label="d").returncode, 0)
        self.results("rm", "d")
        self.assertEqual(self.ioplan_run(label="e").returncode, 0)
        self.assertEqual(self.ids(), [(1, "a"), (2, "b"), (5, "e")])  # was 3, "e"
        p = self.results("show", "3", ok=False)
        self.assertIn("no run '3'", p.stderr)

    def test_a_label_not_utf8_is_refused_and_one_stored_before_does_not_end_the_json(self):
        # --save=$'caf\xe9' (a Latin-1 terminal) was stored as given, and then `results list`,
        # `show` and `export --output-format=json` all ended on it: "[json.exception.type_error.316]
        # invalid UTF-8 byte at index 3: 0xE9", exit 1, for every run of the store.
        target = self.tmp / "never"
        p = subprocess.run([BIN, *JOB, f"--filename={target}", "--save=caf\udce9", f"--results-db={self.db}"],
                           capture_output=True)
        self.assertEqual((p.returncode, p.stdout), (2, b""), p.stderr)
        self.assertIn(b"--save: the label is not UTF-8 text (byte 0xe9 at 4)", p.stderr)
        self.assertFalse(target.exists())
        for label in ("a", "b"):
            self.assertEqual(self.ioplan_run(label=label).returncode, 0)
        con = sqlite3.connect(self.db)   # as an older ioplan stored it, before checksums
        con.execute("UPDATE runs SET label = CAST(x'636166e9' AS TEXT), checksum = '', summary_checksum = '' WHERE id = 1")
        con.execute("UPDATE facts SET value = CAST(x'636166e9' AS TEXT) WHERE run_id = 1 AND name = 'label'")
        con.commit()
        con.close()
        self.assertEqual([r["label"] for r in self.listing()], ["caf\ufffd", "b"])
        self.assertEqual(json.loads(self.results("show", "1", "--output-format=json").stdout)["label"], "caf\ufffd")
        self.assertEqual(len(json.loads(self.results("export", "--output-format=json").stdout)), 2)
        groups = json.loads(self.results("summary", "--by=label", "--output-format=json").stdout)["groups"]
        self.assertEqual([g["group"] for g in groups], ["b", "caf\ufffd"])

    def test_a_label_of_white_space_alone_is_refused(self):
        # --save=' ' stored the label ' ': results list showed it as the blank of a run saved
        # without a label, and summary --by=label made it a group of its own beside that one.
        for label in (" ", "  ", "\t", " \n "):
            with self.subTest(label=label):
                target = self.tmp / "never"
                p = run([*JOB, f"--filename={target}", f"--save={label}", f"--results-db={self.db}"])
                self.assertEqual((p.returncode, p.stdout), (2, ""), p.stderr)
                self.assertIn("--save: the label is white space only, which results list shows as no label", p.stderr)
                self.assertFalse(target.exists())
                self.assertFalse(self.db.exists())
        self.assertEqual(self.ioplan_run(label=" a b ").returncode, 0)   # spaces around a visible label are kept
        self.assertEqual(self.ioplan_run(label="").returncode, 0)        # --save= is --save: no label
        self.assertEqual([r["label"] for r in self.listing()], [" a b ", ""])

    def test_an_empty_run_name_is_refused_not_the_latest_run_without_a_label(self):
        # `results rm ""` (a script's unset variable) removed the latest run saved without a
        # label, exit 0, and `results show ""` showed it.
        for label in (None, "x"):
            self.assertEqual(self.ioplan_run(label=label).returncode, 0)
        before = sha(self.db)
        for args in (["results", "rm", ""], ["results", "show", ""], ["results", "export", ""],
                     ["compare", "", "x"], ["results", "report", "", f"--output={self.tmp / 'p.html'}"]):
            p = run([*args, f"--results-db={self.db}"])
            self.assertEqual((p.returncode, p.stdout), (2, ""), (args, p.stderr))
            self.assertIn(f"{self.db}: an empty RUN names no run", p.stderr)
        self.assertEqual(sha(self.db), before)
        self.assertEqual(len(self.listing()), 2)

    def test_a_name_of_more_than_one_run_is_refused(self):
        # A uuid prefix of two runs named the first the store met; a label that starts
        # another run's uuid hid that run from lookup by its prefix.
        out = self.tmp / "one.json"
        self.assertEqual(run([*JOB, f"--filename={self.tmp / 'f'}", "--output-format=json",
                              f"--output={out}"]).returncode, 0)
        doc = json.loads(out.read_text())
        for n, uuid in enumerate(("abcdef01" + "1" * 24, "abcdef02" + "2" * 24)):
            doc["ioplan"]["uuid"] = uuid
            (self.tmp / f"u{n}.json").write_text(json.dumps(doc))
            self.results("import", str(self.tmp / f"u{n}.json"))
        self.assertEqual(self.ioplan_run(label="abcdef02").returncode, 0)
        p = self.results("show", "abcdef", ok=False)
        self.assertEqual(p.returncode, 2)
        self.assertIn("'abcdef' starts the uuids of runs 1, 2: give more of the uuid, or the id", p.stderr)
        p = self.results("show", "abcdef02", ok=False)
        self.assertEqual(p.returncode, 2)
        self.assertIn("'abcdef02' is run 3's label and the start of the uuid of run 2: name the run by its id",
                      p.stderr)
        before = sha(self.db)
        self.assertEqual(self.results("rm", "abcdef", ok=False).returncode, 2)
        self.assertEqual(sha(self.db), before)
        shown = {x: json.loads(self.results("show", x, "--output-format=json").stdout)["uuid"]
                 for x in ("abcdef01", "abcdef0222", "2", "3")}
        self.assertEqual(shown["abcdef01"], "abcdef01" + "1" * 24)
        self.assertEqual(shown["abcdef0222"], shown["2"])
        self.assertEqual(shown["3"], self.listing()[2]["uuid"])

    def test_a_store_of_schema_2_migrates_and_keeps_every_run(self):
        for label in ("a", "b", "c"):
            self.assertEqual(self.ioplan_run(label=label).returncode, 0)
        as_schema_2(self.db)
        before = counts(self.db)
        shown = [json.loads(self.results("show", x, "--output-format=json").stdout) for x in "abc"]
        self.assertEqual(self.ids(), [(1, "a"), (2, "b"), (3, "c")])  # the read migrated it
        con = sqlite3.connect(self.db)
        self.assertEqual(con.execute("PRAGMA user_version").fetchone()[0], 5)
        self.assertIn("AUTOINCREMENT", con.execute("SELECT sql FROM sqlite_master WHERE name = 'runs'").fetchone()[0])
        self.assertEqual(con.execute("PRAGMA foreign_key_check").fetchall(), [])
        con.close()
        self.assertEqual(counts(self.db), before)
        self.assertEqual([json.loads(self.results("show", x, "--output-format=json").stdout) for x in "abc"], shown)
        # from the migration on, no id comes back
        self.results("rm", "c")
        self.assertEqual(self.ioplan_run(label="d").returncode, 0)
        self.assertEqual(self.ids(), [(1, "a"), (2, "b"), (4, "d")])

    def test_a_store_copied_by_an_sqlite_dump_is_still_a_store(self):
        # A dump (`sqlite3 STORE .dump`, python's iterdump) keeps every row but not the
        # user_version: its copy was refused as "an SQLite database, but not an ioplan results store".
        for label in ("a", "b"):
            self.assertEqual(self.ioplan_run(label=label).returncode, 0)
        exported = self.results("export", "--output-format=json").stdout
        for older in (False, True):
            with self.subTest(schema_2=older):
                if older:
                    as_schema_2(self.db)
                copy = self.tmp / f"copy-{older}.db"
                src, dst = sqlite3.connect(self.db), sqlite3.connect(copy)
                # (iterdump writes the emptied sqlite_sequence of as_schema_2, which has no table there)
                dst.executescript("\n".join(x for x in src.iterdump() if "sqlite_sequence" not in x))
                dst.commit()
                src.close()
                self.assertEqual(dst.execute("PRAGMA user_version").fetchone()[0], 0)
                dst.close()
                db, self.db = self.db, copy
                self.assertEqual(self.results("export", "--output-format=json").stdout, exported)
                self.assertEqual(self.ioplan_run(label="more").returncode, 0)
                self.assertEqual([r["label"] for r in self.listing()], ["a", "b", "more"])
                con = sqlite3.connect(self.db)
                self.assertEqual(con.execute("PRAGMA user_version").fetchone()[0], 5)
                con.close()
                self.db = db

    def test_a_store_of_schema_2_on_read_only_media_is_read_as_it_is(self):
        mnt = self.tmp / "ro"
        mnt.mkdir()
        if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", str(mnt)]).returncode:
            self.skipTest("cannot mount tmpfs")
        self.addCleanup(subprocess.run, ["umount", "-l", str(mnt)])
        self.db = mnt / "results.db"
        self.assertEqual(self.ioplan_run(label="a").returncode, 0)
        as_schema_2(self.db)
        subprocess.run(["mount", "-o", "remount,ro", str(mnt)], check=True)
        before = sha(self.db)
        self.assertEqual(self.ids(), [(1, "a")])
        self.assertEqual(sha(self.db), before)
        r = self.ioplan_run(label="more")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("needs migrating to 5, and the store cannot be written (read-only)", r.stderr)

    def test_a_store_of_schema_4_on_read_only_media_checks_each_runs_whole_checksum(self):
        # Read as it is, a store of schema 4 has no checksum of the rows summary reads: its
        # summary checks each run's whole checksum (and show too), as schema 4 did.
        self.store_on_tmpfs("ro", "16m")
        for label in ("a", "b"):
            self.assertEqual(self.ioplan_run(label=label).returncode, 0)
        con = sqlite3.connect(self.db, isolation_level=None)
        try:
            con.execute("PRAGMA journal_mode=DELETE")
            con.execute("ALTER TABLE runs DROP COLUMN summary_checksum")
            con.execute("UPDATE samples SET iops = iops + 1 WHERE figure_id IN (SELECT id FROM figures WHERE run_id = 2)")
            con.execute("PRAGMA user_version=4")
        finally:
            con.close()
        subprocess.run(["mount", "-o", "remount,ro", str(self.mnt)], check=True)
        before = sha(self.db)
        p = self.results("summary", ok=False)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn("run 2 no longer matches the checksum its save kept (", p.stderr)
        self.assertIn("; run 2 ('b') is left out of the summary\n", p.stderr)
        self.assertEqual(self.results("show", "b", ok=False).returncode, 2)
        self.assertEqual(self.results("show", "a").returncode, 0)
        self.assertEqual(sha(self.db), before)


class Interrupted(StoreCase):
    """A run a signal stopped was saved like a whole one: nothing in `results list`,
    `show` or `compare` said its figures cover only part of the workload."""

    # Time-based on the null engine, which spins a core for the whole runtime: the whole
    # runs last 250 ms, all a run needs to be saved whole with a rate to summarize.
    NULL = ["--name=n", "--ioengine=null", "--rw=read", "--bs=4k", "--size=1g", "--time_based"]

    def interrupted_run(self, label, sig):
        out = self.tmp / f"{label}.json"
        proc = subprocess.Popen([BIN, *self.NULL, "--runtime=60", "--output-format=json", f"--output={out}",
                                 f"--save={label}", f"--results-db={self.db}", "--eta=always",
                                 "--eta-interval=100ms"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.addCleanup(lambda: proc.poll() is None and (proc.kill(), proc.wait()))
        # it has measured I/O when the signal comes: its progress line shows a rate
        wait_for_stderr(proc, until=lambda seen: re.search(r"\[r=[0-9.]+[kM]? IOPS\]", seen))
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=60)
        self.assertEqual(proc.returncode, 1, err)
        self.assertTrue(json.loads(out.read_text())["ioplan"]["interrupted"])
        self.assertRegex(err, r"--save: saved as run \d+, marked interrupted")
        return out

    def test_a_run_cut_short_says_so_wherever_it_is_shown(self):
        self.interrupted_run("cut", signal.SIGINT)
        self.interrupted_run("term", signal.SIGTERM)
        p = run([*self.NULL, "--runtime=250ms", "--output-format=json", "--save=whole", f"--results-db={self.db}"])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual([(r["label"], r["interrupted"]) for r in self.listing()],
                         [("cut", True), ("term", True), ("whole", False)])
        lines = self.results("list").stdout.splitlines()
        self.assertTrue(lines[1].endswith("  interrupted") and lines[2].endswith("  interrupted"), lines)
        self.assertFalse(lines[3].endswith("interrupted"), lines)
        shown = self.results("show", "cut").stdout
        self.assertIn("interrupted: a signal stopped the run; its figures cover only what ran", shown)
        self.assertTrue(json.loads(self.results("show", "cut", "--output-format=json").stdout)["interrupted"])
        self.assertNotIn("interrupted", self.results("show", "whole").stdout)
        # nothing is lost: the figures are kept, only marked
        self.assertEqual(len(json.loads(self.results("show", "cut", "--output-format=json").stdout)["figures"]), 1)
        # compare refuses it as a like-for-like result unless forced, as a stored run or as its file
        for b in ("cut", str(self.tmp / "cut.json")):
            with self.subTest(b=b):
                p = run(["compare", "whole", b, f"--results-db={self.db}"])
                self.assertEqual(p.returncode, 2, p.stdout)
                self.assertIn("B (", p.stderr)
                self.assertIn("was interrupted: its figures cover only what ran before a signal stopped it", p.stderr)
                p = run(["compare", "whole", b, "--force", "--output-format=json", f"--results-db={self.db}"])
                self.assertEqual(p.returncode, 0, p.stderr)
                self.assertIn("ioplan: warning: B (", p.stderr)
                self.assertTrue(json.loads(p.stdout)["b"]["interrupted"])
        page = self.tmp / "p.html"
        self.results("report", "whole", "cut", f"--output={page}")
        self.assertIn("the run was interrupted: the figures cover what ran", page.read_text())

    def test_summary_leaves_interrupted_runs_out_and_says_how_many(self):
        # The run a signal stopped was one of the group's values as if it were whole.
        self.interrupted_run("cut", signal.SIGINT)
        whole = []
        for _ in range(2):
            p = run([*self.NULL, "--runtime=250ms", "--output-format=json", "--save=whole", f"--results-db={self.db}"])
            self.assertEqual(p.returncode, 0, p.stderr)
            whole.append(json.loads(p.stdout)["jobs"][0]["read"]["iops"])
        s = json.loads(self.results("summary", "--output-format=json").stdout)
        self.assertEqual(s["interrupted_left_out"], 1)
        [g] = s["groups"]
        self.assertEqual(g["count"], 2)
        self.assertAlmostEqual(g["iops"]["median"], sum(whole) / 2, places=3)
        self.assertEqual(self.results("summary").stdout.splitlines()[-1],
                         "1 interrupted run left out (--include-interrupted counts it)")
        s = json.loads(self.results("summary", "--include-interrupted", "--output-format=json").stdout)
        # counted, in a row of its own: its plan (runtime=60) is not the whole runs'
        self.assertEqual((s["interrupted_left_out"], sorted(g["count"] for g in s["groups"])), (0, [1, 2]))
        self.assertNotIn("left out", self.results("summary", "--include-interrupted").stdout)
        p = self.results("list", "--include-interrupted", ok=False)
        self.assertEqual(p.returncode, 2)
        self.assertIn("--include-interrupted belongs to results summary", p.stderr)


class FailedJobs(StoreCase):
    """A run whose job failed (a disk that filled) was stored like a good one: `show`,
    `compare` and the page said nothing, and `summary` counted its figures as typical."""

    JOB = FILLING_JOB

    def failed_run(self):
        # create_on_open=1 lays nothing out, so the disk fills under the job's own writes
        self.store_on_tmpfs("small", "256k")
        self.db = self.tmp / "results.db"
        p = run([*self.JOB, f"--filename={self.mnt / 'f'}", "--output-format=json", "--save=bad",
                 f"--results-db={self.db}"])
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertEqual(json.loads(p.stdout)["jobs"][0]["error"], 28)
        self.assertGreater(json.loads(p.stdout)["jobs"][0]["write"]["io_bytes"], 0)
        self.assertRegex(p.stderr, r"--save: saved as run \d+, marked failed \(job 'w' failed: error 28 "
                                   r"\(No space left on device\)\)")
        return p

    def test_a_run_with_a_failed_job_says_so_and_is_left_out_of_summaries(self):
        for i in range(2):
            p = run([*self.JOB, f"--filename={self.tmp / 'g'}", "--output-format=json", f"--save=good{i}",
                     f"--results-db={self.db}"])
            self.assertEqual(p.returncode, 0, p.stderr)
        self.failed_run()
        self.assertEqual([(r["label"], r["failed"]) for r in self.listing()],
                         [("good0", False), ("good1", False), ("bad", True)])
        lines = self.results("list").stdout.splitlines()
        self.assertTrue(lines[3].endswith("  failed") and not lines[1].endswith("failed"), lines)
        failure = "job 'w' failed: error 28 (No space left on device)"
        self.assertIn("  failed: " + failure, self.results("show", "bad").stdout)
        shown = json.loads(self.results("show", "bad", "--output-format=json").stdout)
        self.assertEqual([(f["job"], f["error"]) for f in shown["failed"]], [("w", 28)])
        self.assertEqual(len(shown["figures"]), 1)  # what it measured is kept, marked
        p = run(["compare", "good0", "bad", f"--results-db={self.db}"])
        self.assertEqual(p.returncode, 2, p.stdout)
        self.assertIn("B (run 3) is not the workload asked: " + failure, p.stderr)
        p = run(["compare", "good0", "bad", "--force", "--output-format=json", f"--results-db={self.db}"])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(json.loads(p.stdout)["b"]["failed"][0]["error"], 28)
        s = json.loads(self.results("summary", "--output-format=json").stdout)
        self.assertEqual((s["failed_left_out"], [g["count"] for g in s["groups"]]), (1, [2]))
        self.assertEqual(self.results("summary").stdout.splitlines()[-1],
                         "1 failed run left out (--include-failed counts it)")
        s = json.loads(self.results("summary", "--include-failed", "--output-format=json").stdout)
        # counted, in the good runs' row: the same workload, on another file
        self.assertEqual((s["failed_left_out"], sorted(g["count"] for g in s["groups"])), (0, [3]))
        page = self.tmp / "p.html"
        self.results("report", "bad", f"--output={page}")
        self.assertIn("job 'w' failed: error 28", html.unescape(page.read_text()))
        p = self.results("list", "--include-failed", ok=False)
        self.assertEqual(p.returncode, 2)
        self.assertIn("--include-failed belongs to results summary", p.stderr)

    def test_an_fio_result_with_a_failed_job_is_imported_as_failed(self):
        if FIO is None:
            self.skipTest("fio not installed")
        self.store_on_tmpfs("small", "256k")
        out = self.tmp / "fio.json"
        p = run_fio([*self.JOB, f"--filename={self.mnt / 'f'}", "--output-format=json", f"--output={out}"])
        self.assertEqual(json.loads(out.read_text()[out.read_text().index("{"):])["jobs"][0]["error"], 28)
        self.db = self.tmp / "results.db"
        self.results("import", str(out))
        [row] = self.listing()
        self.assertTrue(row["failed"], row)


class Arguments(StoreCase):
    def test_what_could_not_be_found_again_or_means_nothing_is_refused(self):
        # --save=1 made a label the id 1 hides for ever; `results report 1 -o x.html` took
        # -o for a run; --by= grouped by nothing; a result with no job was stored, empty.
        target = self.tmp / "never"
        p = run([*JOB, f"--filename={target}", "--save=12", f"--results-db={self.db}"])
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("--save=12: a label of digits only is read as a run id", p.stderr)
        self.assertFalse(target.exists() or self.db.exists())
        self.assertEqual(self.ioplan_run(label="first").returncode, 0)
        page = self.tmp / "p.html"
        p = self.results("report", "first", "-o", str(page))
        self.assertTrue(page.read_text().startswith("<!DOCTYPE html>"))
        for args in (["summary", "--by="], ["list", "--output="]):
            with self.subTest(args=args):
                p = self.results(*args, ok=False)
                self.assertEqual(p.returncode, 2, p.stdout)
                self.assertIn(f"option '{args[1][:-1]}' needs a value", p.stderr)
        # CSV is export's: list and summary printed their text table for it, exit 0.
        for args in (["list"], ["summary"], ["show", "first"], ["import", str(page)]):
            with self.subTest(args=args):
                p = self.results(*args, "--output-format=csv", ok=False)
                self.assertEqual((p.returncode, p.stdout), (2, ""))
                self.assertIn("--output-format: 'csv' is not one of normal, json (CSV is what results export "
                              "writes)", p.stderr)
        p = run(["compare", "first", "first", "--output-format=csv", f"--results-db={self.db}"])
        self.assertEqual((p.returncode, p.stdout), (2, ""))
        self.assertTrue(self.results("export", "--output-format=csv").stdout.startswith("run_id,uuid,"))
        empty = self.tmp / "empty.json"
        empty.write_text('{"fio version": "fio-3.33", "jobs": []}')
        p = self.results("import", str(empty), ok=False)
        self.assertEqual(p.returncode, 2, p.stdout)
        self.assertIn("jobs[] is empty (no job ran, nothing to keep)", p.stderr)
        self.assertEqual(len(self.listing()), 1)


class OwnReport(StoreCase):
    """`ioplan --save --output-format=json --output=r.json; ioplan results import r.json`
    stored the run twice: the report did not name its run."""

    def test_a_runs_own_report_is_found_stored_and_other_files_still_import(self):
        mine = self.tmp / "r.json"
        p = self.ioplan_run(f"--output={mine}", label="mine")
        self.assertEqual(p.returncode, 0, p.stderr)
        uuid = json.loads(mine.read_text())["ioplan"]["uuid"]
        self.assertEqual([(r["label"], r["uuid"]) for r in self.listing()], [("mine", uuid)])
        p = self.results("import", str(mine))
        self.assertEqual(p.stdout, f"{mine}: already stored as run 1; not stored again\n"
                                   f"imported 0 run(s), 1 already stored, into {self.db}\n")
        self.assertEqual(len(self.listing()), 1)  # was 2: the same run twice
        # another run's report, and a report without a uuid (an older ioplan's), are other runs
        other = self.tmp / "other.json"
        p = run([*JOB, f"--filename={self.tmp / 'f'}", "--output-format=json", f"--output={other}"])
        self.assertEqual(p.returncode, 0, p.stderr)
        doc = json.loads(mine.read_text())
        del doc["ioplan"]["uuid"]
        older = self.tmp / "older.json"
        older.write_text(json.dumps(doc))
        p = self.results("import", str(other), str(older))
        self.assertIn("imported 2 run(s), 0 already stored", p.stdout)
        self.assertNotIn("already stored as", p.stdout)
        self.assertEqual(len(self.listing()), 3)


@unittest.skipUnless(FIO, "fio is not installed")
class Import(StoreCase):
    def fio_json(self, name, fmt="json+"):
        out = self.tmp / name
        p = subprocess.run([FIO, "--name=j", "--rw=randread", "--bs=4k", "--size=1m", "--ioengine=psync",
                            f"--filename={self.tmp / 'ff'}", f"--output-format={fmt}", f"--output={out}"],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        return out

    def test_fio_json_plus_imports_and_once_only(self):
        path = self.fio_json("fio.json")
        fio = json.loads(path.read_text())
        p = self.results("import", str(path), "--output-format=json")
        self.assertEqual(json.loads(p.stdout), {"imported": 1, "already_stored": 0, "unreadable": 0})
        run_ = self.listing()[0]
        self.assertEqual(run_["source"], "fio")
        shown = json.loads(self.results("show", str(run_["id"]), "--output-format=json").stdout)
        fig = shown["figures"][0]
        self.assertEqual(fig["io_bytes"], fio["jobs"][0]["read"]["io_bytes"])
        self.assertAlmostEqual(fig["iops"], fio["jobs"][0]["read"]["iops"], places=3)
        self.assertEqual(sum(c for _, c in fig["latency_buckets"]), fio["jobs"][0]["read"]["total_ios"])
        self.assertEqual(fig["p99_ns"], fio["jobs"][0]["read"]["clat_ns"]["percentile"]["99.000000"])
        p = self.results("import", str(path), "--output-format=json")
        self.assertEqual(json.loads(p.stdout), {"imported": 0, "already_stored": 1, "unreadable": 0})

    @unittest.skipUnless(FIO, "fio is not installed")
    def test_a_result_piped_in_is_imported(self):
        # 'fio ... | ioplan results import /dev/stdin': the store sniff read the pipe's first
        # 16 bytes ('/dev/stdin: error: not a result: no jobs[] array', exit 2), and a second
        # read, as it stores, would find the pipe empty: a pipe's runs are read once and held.
        fio = json.loads(self.fio_json("fio.json", fmt="json").read_text())
        text = (self.tmp / "fio.json").read_text()
        p = subprocess.run([BIN, "results", "import", "/dev/stdin", f"--results-db={self.db}", "--output-format=json"],
                           input=text, capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(json.loads(p.stdout), {"imported": 1, "already_stored": 0, "unreadable": 0})
        run_ = self.listing()[0]
        shown = json.loads(self.results("show", str(run_["id"]), "--output-format=json").stdout)
        self.assertEqual(shown["figures"][0]["io_bytes"], fio["jobs"][0]["read"]["io_bytes"])

    @unittest.skipUnless(FIO, "fio is not installed")
    def test_an_import_of_many_files_holds_one_run_at_a_time(self):
        # An import held every run of every file until its one transaction: 100 000 fio files
        # took about 1.3 GB, and a thousand json+ files of a 4k randrw job (about 400 buckets
        # each) 13 MB more than 300.  Each file is now read and checked, let go, and read
        # again as it is stored, still all or nothing: past SQLite's page cache (2 MB) the
        # peak (GNU time's: a child forked from Python keeps Python's high-water mark in its
        # own rusage) no longer grows with the files.
        out = self.tmp / "base.json"
        p = subprocess.run([FIO, "--name=j", "--rw=randrw", "--bs=4k", "--size=1m", "--ioengine=psync",
                            f"--filename={self.tmp / 'ff'}", "--output-format=json+", f"--output={out}"],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        doc = json.loads(out.read_text())
        files = []
        for i in range(1300):
            doc["timestamp"] = 1700000000 + i   # another file, another run (its uuid is its content's hash)
            files.append(self.tmp / f"f{i:04d}.json")
            files[-1].write_text(json.dumps(doc))
        peak = {}
        for n in (300, 1300):
            self.db = self.tmp / f"import-{n}.db"
            p = subprocess.run(["/usr/bin/time", "-f", "maxrss_kib=%M", BIN, "results", "import",
                                f"--results-db={self.db}", "--output-format=json", *map(str, files[:n])],
                               capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual(json.loads(p.stdout), {"imported": n, "already_stored": 0, "unreadable": 0})
            peak[n] = int(re.findall(r"maxrss_kib=(\d+)", p.stderr)[-1])
        self.assertLess(peak[1300] - peak[300], 4096, peak)
        self.assertEqual(len(self.listing()), 1300)

    def test_a_size_past_2_64_is_kept_as_written(self):
        # bs=99999999999999999999999k was "ioplan: error: stoull" (exit 1); 16777216t wrapped to "0".
        doc = json.loads(run([*JOB, f"--filename={self.tmp / 'f'}", "--output-format=json"]).stdout)
        for bs in ("99999999999999999999999k", "16777216t"):
            with self.subTest(bs=bs):
                doc["jobs"][0]["job options"]["bs"] = bs
                (self.tmp / "r.json").write_text(json.dumps(doc))
                db = self.tmp / f"{bs}.db"
                self.assertEqual(run(["results", "import", str(self.tmp / "r.json"), f"--results-db={db}"]).returncode, 0)
                fig = json.loads(run(["results", "export", "--output-format=json", f"--results-db={db}"]).stdout)
                self.assertEqual(fig[0]["figures"][0]["plan"]["bs"], bs)

    def test_fio_files_with_notes_interval_documents_or_its_text_report_are_read(self):
        # Three files fio 3.33 writes that `results import`, `report` and `plot` refused:
        # a note before the JSON (a sync engine at iodepth 4), a --status-interval file
        # (a document a second; the last is the run's end) and json,normal (its text around).
        job = [FIO, "--name=j", "--rw=randread", "--bs=4k", "--ioengine=psync", f"--filename={self.tmp / 'ff'}",
               "--size=1m"]
        files = {
            "note.json": ["--iodepth=4", "--output-format=json"],
            "status.json": ["--time_based", "--runtime=3", "--status-interval=1", "--output-format=json"],
            "mixed.txt": ["--output-format=normal,json"],
        }
        for name, extra in files.items():
            with self.subTest(file=name):
                path = self.tmp / name
                p = subprocess.run([*job, *extra], capture_output=True, text=True)  # fio ... > file
                self.assertEqual(p.returncode, 0, p.stderr)
                path.write_text(p.stdout)
                text = p.stdout
                self.assertEqual(text[0] != "{", name != "status.json", text[:200])  # text before the JSON
                starts = [0] if text[0] == "{" else []
                starts += [m.start() + 1 for m in re.finditer(r"\n\{", text)]
                docs, dec, end = [], json.JSONDecoder(), 0
                for at in starts:
                    if at >= end:  # a line-start brace inside a document is not another one
                        doc, end = dec.raw_decode(text, at)
                        docs.append(doc)
                self.assertGreaterEqual(len(docs), 2 if name == "status.json" else 1)
                db = self.tmp / f"{name}.db"
                p = run(["results", "import", str(path), f"--results-db={db}", "--output-format=json"])
                self.assertEqual(p.returncode, 0, p.stderr)
                note = f"{path}: note: {len(docs)} JSON documents, as fio --status-interval writes one per interval"
                self.assertEqual(note in p.stderr, len(docs) > 1, p.stderr)
                stored = json.loads(run(["results", "export", "--output-format=json", f"--results-db={db}"]).stdout)
                self.assertEqual(stored[0]["figures"][0]["io_bytes"], docs[-1]["jobs"][0]["read"]["io_bytes"])
                p = run(["report", str(path), "-o", str(self.tmp / f"{name}.html")])
                self.assertEqual(p.returncode, 0, p.stderr)
                p = run(["plot", str(path), "-o", str(self.tmp / f"{name}.svg")])
                self.assertEqual(p.returncode, 0, p.stderr)
                self.assertEqual(note in p.stderr, len(docs) > 1, p.stderr)
                self.assertIn("<svg", (self.tmp / f"{name}.svg").read_text())

    def test_a_result_whose_rates_disagree_with_its_counts_is_refused(self):
        # fio writes iops as total_ios / runtime and bw_bytes as io_bytes / runtime: an edited
        # figure (iops 1e308) was stored as it stood, and every table showing it broke.
        made = run([*JOB, f"--filename={self.tmp / 'f'}", "--output-format=json"])
        self.assertEqual(made.returncode, 0, made.stderr)
        doc = json.loads(made.stdout)
        for key, value, says in (("iops", 1e308, "jobs[0].read: iops 1e+308 is not total_ios / runtime"),
                                 ("bw_bytes", 7, "jobs[0].read: bw_bytes 7 is not io_bytes / runtime")):
            with self.subTest(key=key):
                edited = json.loads(json.dumps(doc))
                edited["jobs"][0]["read"][key] = value
                (self.tmp / "e.json").write_text(json.dumps(edited))
                p = self.results("import", str(self.tmp / "e.json"), ok=False)
                self.assertEqual(p.returncode, 2, p.stderr)
                self.assertIn(says, p.stderr)
        (self.tmp / "e.json").write_text(made.stdout)
        self.results("import", str(self.tmp / "e.json"))

    def test_a_number_past_a_double_is_refused_by_every_reader(self):
        # 1e400 parses as no double: nlohmann threw out_of_range past the readers, which
        # printed "[json.exception.out_of_range.406] ..." and exited 1.
        made = run([*JOB, f"--filename={self.tmp / 'f'}", "--output-format=json"])
        self.assertEqual(made.returncode, 0, made.stderr)
        bad = self.tmp / "big.json"
        bad.write_text(re.sub(r'"iops" : [0-9.]+', '"iops" : 1e400', made.stdout, count=1))
        for argv in (["results", "import", str(bad), f"--results-db={self.db}"], ["compare", str(bad), str(bad)],
                     ["report", str(bad), "-o", str(self.tmp / "p.html")],
                     ["plot", str(bad), "-o", str(self.tmp / "p.svg")]):
            with self.subTest(argv=argv[0]):
                p = run(argv)
                self.assertEqual(p.returncode, 2, p.stderr)
                self.assertIn(f"{bad}: error: not a", p.stderr)
                self.assertNotIn("json.exception", p.stderr)
        self.assertFalse(self.db.exists())

    def test_plain_json_imports(self):
        p = self.results("import", str(self.fio_json("plain.json", "json")))
        self.assertIn("imported 1 run(s)", p.stdout)
        # fio names no host or kernel: show printed "host , "; and its source twice
        shown = self.results("show", "1").stdout
        self.assertIn("\n  host not recorded (fio's result names none)\n", shown)
        self.assertNotIn("source: fio", shown)
        self.assertEqual(self.ioplan_run(label="mine").returncode, 0)
        shown = self.results("show", "mine").stdout
        self.assertRegex(shown, r"\n  host [^,\n]+, Linux [^\n]+\n")
        self.assertNotIn("label: mine", shown)  # the first line names it

    def test_bad_json_is_positioned_and_nothing_is_imported(self):
        good = self.fio_json("good.json")
        bad = self.tmp / "bad.json"
        bad.write_text('{\n  "fio version" : "fio-3.33",\n  "jobs" : [ { "jobname" : "x", }\n')
        self.assertEqual(self.ioplan_run(label="ok").returncode, 0)
        before = sha(self.db)
        p = self.results("import", str(good), str(bad), ok=False)
        self.assertEqual(p.returncode, 2)
        self.assertRegex(p.stderr, rf"^{bad}:3:\d+: error: not valid JSON")
        self.assertEqual(sha(self.db), before)
        p = self.results("show", "12345", ok=False)
        self.assertEqual(p.returncode, 2)
        self.assertIn("no run '12345'", p.stderr)

    def test_other_stores_merge(self):
        self.assertEqual(self.ioplan_run(label="here").returncode, 0)
        other = self.tmp / "other.db"
        p = run([*JOB, f"--filename={self.tmp / 'g'}", "--output-format=json", "--save=there",
                 f"--results-db={other}"])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.results("import", str(other))
        self.assertEqual(sorted(r["label"] for r in self.listing()), ["here", "there"])
        p = self.results("import", str(other), "--output-format=json")
        self.assertEqual(json.loads(p.stdout)["imported"], 0)
        shown = json.loads(self.results("show", "there", "--output-format=json").stdout)
        self.assertTrue(shown["figures"][0]["latency_buckets"])


class LargeExport(StoreCase):
    def copied_store(self, name, runs):
        """A store of `runs` copies of one real run (a 4k randrw psync job, its buckets and
        samples), copied in SQL with fresh uuids; saved before checksums (''), as a store of
        version 3 migrated, so that the copies read."""
        db = self.tmp / name
        p = run(["--name=j", "--rw=randrw", "--bs=4k", "--size=1m", "--ioengine=psync", f"--filename={self.tmp / 'f'}",
                 "--output-format=json", "--save=seed", f"--results-db={db}"])
        self.assertEqual(p.returncode, 0, p.stderr)
        con = sqlite3.connect(db)
        con.executescript(f"""
            WITH RECURSIVE c(i) AS (SELECT 2 UNION ALL SELECT i + 1 FROM c WHERE i < {runs})
              INSERT INTO runs(id, uuid, format, label, source, tool_version, saved_s, started_s, host, kernel,
                               plan_hash, job_text, environment)
              SELECT c.i, lower(hex(randomblob(16))), format, label, source, tool_version, saved_s, started_s,
                     host, kernel, plan_hash, job_text, environment FROM c, runs WHERE runs.id = 1;
            INSERT INTO facts(run_id, name, value) SELECT r.id, f.name, f.value FROM runs r, facts f
              WHERE r.id > 1 AND f.run_id = 1;
            CREATE TEMP TABLE m(nid INTEGER PRIMARY KEY, run, fid);
            INSERT INTO m(nid, run, fid) SELECT (SELECT max(id) FROM figures) + row_number() OVER (), r.id, f.id
              FROM runs r, figures f WHERE r.id > 1 AND f.run_id = 1;
            INSERT INTO figures(id, run_id, job_index, job, ddir, plan, io_bytes, ios, runtime_s, bw_bytes, iops,
                                lat_mean_ns, p50_ns, p99_ns, p999_ns, interval_s)
              SELECT m.nid, m.run, job_index, job, ddir, plan, io_bytes, ios, runtime_s, bw_bytes, iops,
                     lat_mean_ns, p50_ns, p99_ns, p999_ns, interval_s FROM m JOIN figures f ON f.id = m.fid;
            INSERT INTO buckets(figure_id, lat_ns, count) SELECT m.nid, lat_ns, count FROM m JOIN buckets b
              ON b.figure_id = m.fid;
            INSERT INTO samples(figure_id, seq, iops, bw_bytes) SELECT m.nid, seq, iops, bw_bytes FROM m
              JOIN samples s ON s.figure_id = m.fid;
            UPDATE runs SET checksum = '', summary_checksum = '';
        """)
        con.commit()
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        con.close()
        return db

    def test_an_export_holds_one_run_at_a_time(self):
        # Export loaded every run (its buckets and samples too) before it wrote a line: 470 MB for
        # the CSV of 10 000 disk runs, 1.7 GB for their JSON; a fleet's store of 100 000 ran out of
        # memory.  Each run is now written into the text and let go.  The store's pages SQLite maps
        # count in the peak (GNU time's: a child forked from Python keeps Python's high-water mark),
        # and so does the text (up to twice, as a string grows): the larger store may add its file's
        # growth and twice its text's, and nothing more.
        peak, size, text = {}, {}, {}
        for n in (300, 3000):
            db = self.copied_store(f"runs-{n}.db", n)
            size[n] = db.stat().st_size // 1024
            for fmt in ("csv", "json"):
                p = subprocess.run(["/usr/bin/time", "-f", "maxrss_kib=%M", BIN, "results", "export",
                                    f"--output-format={fmt}", f"--results-db={db}"], capture_output=True, text=True)
                self.assertEqual(p.returncode, 0, p.stderr)
                peak[n, fmt] = int(re.findall(r"maxrss_kib=(\d+)", p.stderr)[-1])
                text[n, fmt] = len(p.stdout) // 1024
                if fmt == "json":
                    self.assertEqual(len(json.loads(p.stdout)), n)
                else:
                    self.assertEqual(len(p.stdout.splitlines()), 1 + 2 * n)   # read and write rows
        for fmt in ("csv", "json"):
            bound = size[3000] - size[300] + 2 * (text[3000, fmt] - text[300, fmt]) + 8192
            self.assertLess(peak[3000, fmt] - peak[300, fmt], bound, (fmt, peak, size, text))


class ExportedRuns(StoreCase):
    """`results export --output-format=json` (every field) and `results show --output-format=json`
    could not be read back: `results import` said "not a result: no jobs[] array" (exit 2), so
    runs moved between stores only as SQLite files."""

    def export(self, db, *refs):
        p = run(["results", "export", *refs, "--output-format=json", f"--results-db={db}"])
        self.assertEqual(p.returncode, 0, p.stderr)
        return p.stdout

    def filled_store(self):
        self.assertEqual(self.ioplan_run(label="a").returncode, 0)
        self.assertEqual(self.ioplan_run("--repeat=2", label="rep").returncode, 0)
        p = subprocess.run([FIO, "--name=j", "--rw=randread", "--bs=4k", "--size=1m", "--ioengine=psync",
                            f"--filename={self.tmp / 'ff'}", "--output-format=json+"], capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        (self.tmp / "fio.json").write_text(p.stdout)
        self.results("import", str(self.tmp / "fio.json"))
        out = self.tmp / "export.json"
        out.write_text(self.export(self.db))
        return out

    @unittest.skipUnless(FIO, "fio is not installed")
    def test_an_export_moves_its_runs_to_another_store_field_for_field(self):
        out = self.filled_store()
        other = self.tmp / "other.db"
        p = run(["results", "import", str(out), f"--results-db={other}", "--output-format=json"])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(json.loads(p.stdout), {"imported": 3, "already_stored": 0, "unreadable": 0})
        mine, theirs = json.loads(out.read_text()), json.loads(self.export(other))
        self.assertEqual([r["label"] for r in theirs], ["a", "rep", ""])
        for r in mine + theirs:
            r.pop("id")
        self.assertEqual(theirs, mine)  # buckets, samples, repeats, environment, facts
        self.assertEqual(len(theirs[1]["figures"][0]["repeat_iops"]), 2)
        # Once only: the runs keep their uuids.
        p = run(["results", "import", str(out), f"--results-db={other}", "--output-format=json"])
        self.assertEqual(json.loads(p.stdout), {"imported": 0, "already_stored": 3, "unreadable": 0})
        # summary reads them as it reads the first store's.
        summaries = []
        for db in (self.db, other):
            p = run(["results", "summary", "--output-format=json", f"--results-db={db}"])
            self.assertEqual(p.returncode, 0, p.stderr)
            summaries.append(json.loads(p.stdout))
        self.assertEqual(summaries[1], summaries[0])

    @unittest.skipUnless(FIO, "fio is not installed")
    def test_one_shown_run_imports_and_compares_and_a_list_of_runs_is_not_one_operand(self):
        out = self.filled_store()
        shown = self.tmp / "shown.json"
        shown.write_text(self.results("show", "rep", "--output-format=json").stdout)
        other = self.tmp / "other.db"
        p = run(["results", "import", str(shown), f"--results-db={other}"])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(json.loads(self.export(other))[0]["label"], "rep")
        p = run(["compare", "a", str(shown), f"--results-db={self.db}", "--output-format=json"])
        self.assertEqual(p.returncode, 0, p.stderr)
        p = run(["compare", "a", str(out), f"--results-db={self.db}"])
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn(f"{out}: error: holds 3 runs (results export): one run is asked for here", p.stderr)

    @unittest.skipUnless(FIO, "fio is not installed")
    def test_an_edited_export_is_refused_where_it_was_edited_and_nothing_is_imported(self):
        out = self.filled_store()
        good = json.loads(out.read_text())
        other = self.tmp / "other.db"
        edits = {
            "[1].figures[0]: iops 1e+308 is not total_ios / runtime":
                lambda d: d[1]["figures"][0].update(iops=1e308),
            "[0].figures[0]: io_bytes: -5 is not a figure ioplan reads":
                lambda d: d[0]["figures"][0].update(io_bytes=-5),
            "[2]: uuid: 'x' is not a run's id (32 hex digits)": lambda d: d[2].update(uuid="x"),
            "[0].figures[0]: ddir: 'up' is not read, write, trim or mixed": lambda d: d[0]["figures"][0].update(ddir="up"),
        }
        for says, edit in edits.items():
            with self.subTest(says=says):
                doc = json.loads(json.dumps(good))
                edit(doc)
                bad = self.tmp / "bad.json"
                bad.write_text(json.dumps(doc, indent=2))
                p = run(["results", "import", str(self.tmp / "fio.json"), str(bad), f"--results-db={other}"])
                self.assertEqual(p.returncode, 2, p.stderr)
                self.assertIn(f"{bad}: error: {says}", p.stderr)
                self.assertFalse(other.exists())
        bad.write_text(out.read_text()[:-40])
        p = run(["results", "import", str(bad), f"--results-db={other}"])
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertRegex(p.stderr, rf"^{bad}:\d+:\d+: error: not valid JSON")
        self.assertFalse(other.exists())


if __name__ == "__main__":
    unittest.main()
