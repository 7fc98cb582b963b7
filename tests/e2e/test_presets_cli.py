"""tests/e2e/test_presets_cli.py - presets by name, command-line overrides, plots.

--preset=NAME runs a shipped job file as a template: job options given on the
command line override its values (the opposite of fio's rule for job files,
on purpose: `--preset=cdm-default --size=64m` tests 64 MiB).
"""
import json
import os
import subprocess
import xml.etree.ElementTree as ET

from common import ROOT, TmpDirCase, run, showplan


class Presets(TmpDirCase):
    def test_presets_lists_every_job_file_with_a_description(self):
        p = run(["--presets"])
        self.assertEqual(p.returncode, 0, p.stderr)
        names = {line.split()[0] for line in p.stdout.splitlines()}
        self.assertEqual(names, {f.stem for f in (ROOT / "jobs").glob("*.fio")})
        self.assertTrue(all(len(line.split(None, 1)) == 2 for line in p.stdout.splitlines()))

    def test_make_install_prefix_installs_a_working_tree(self):
        # The build under test (release or a sanitizer variant), installed where the test says.
        variant = os.environ.get("IOPLAN_VARIANT", "release")
        sanitize = "" if variant == "release" else variant.replace("-", ",")
        prefix = self.tmp / "prefix"
        p = subprocess.run(["make", "--no-print-directory", "-C", str(ROOT), "install", f"PREFIX={prefix}",
                            f"SANITIZE={sanitize}"], capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        for rel in ("bin/ioplan", "share/man/man1/ioplan.1", "share/man/man5/ioplan-job.5",
                    "share/ioplan/jobs/cdm-default.fio", "share/ioplan/jobs/oltp.yaml",
                    "share/doc/ioplan/README.md"):
            self.assertTrue((prefix / rel).is_file(), rel)
        # The licence travels with the binary, byte for byte.
        self.assertEqual((prefix / "share/doc/ioplan/LICENSE").read_bytes(), (ROOT / "LICENSE").read_bytes())
        self.assertIn("Apache License", (prefix / "share/doc/ioplan/LICENSE").read_text().split("\n", 3)[1])
        # Away from the source tree, the installed binary finds the installed presets.
        p = subprocess.run([str(prefix / "bin/ioplan"), "--presets"], capture_output=True, text=True, cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        names = {line.split()[0] for line in p.stdout.splitlines()}
        self.assertEqual(names, {f.stem for f in (ROOT / "jobs").glob("*.fio")})
        p = subprocess.run([str(prefix / "bin/ioplan"), "--preset=oltp", "--showplan", f"--directory={self.tmp}"],
                           capture_output=True, text=True, cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)

    def test_make_install_destdir_runs_from_any_directory_with_links(self):
        # A package build: DESTDIR stages the tree, PREFIX is where it will live.
        variant = os.environ.get("IOPLAN_VARIANT", "release")
        sanitize = "" if variant == "release" else variant.replace("-", ",")
        stage = self.tmp / "stage"
        for target in ("install", "install-links"):
            p = subprocess.run(["make", "--no-print-directory", "-C", str(ROOT), target, f"DESTDIR={stage}",
                                "PREFIX=/opt/ioplan", f"SANITIZE={sanitize}"], capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        bindir = stage / "opt/ioplan/bin"
        for rel in ("share/man/man1/ioplan.1", "share/ioplan/jobs/olap.fio", "share/doc/ioplan/docs/architecture.md"):
            self.assertTrue((stage / "opt/ioplan" / rel).is_file(), rel)
        elsewhere = self.tmp / "elsewhere"
        elsewhere.mkdir()
        env = dict(os.environ, PATH=f"{bindir}:{os.environ['PATH']}")
        env.pop("IOPLAN_DATADIR", None)
        sh = lambda cmd, **kw: subprocess.run(cmd, shell=True, capture_output=True, text=True, cwd=elsewhere,
                                              env=dict(env, **kw), timeout=60)
        p = sh("ioplan --preset=default --directory=. --size=1m --runtime=0.1s")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("[Read]", p.stdout)
        self.assertEqual(sh("command -v fio").stdout.strip(), str(bindir / "fio"))
        self.assertEqual(sh("fio --version").stdout.strip(), "fio-3.33")
        self.assertEqual(os.readlink(bindir / "diskspd"), "ioplan")
        # IOPLAN_DATADIR relocates the presets: only its jobs/ is looked at.
        data = self.tmp / "data"
        (data / "jobs").mkdir(parents=True)
        (data / "jobs/mine.fio").write_text("; jobs/mine.fio - a relocated preset\n[m]\nrw=read\nsize=1m\n")
        p = sh("ioplan --presets", IOPLAN_DATADIR=str(data))
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual([l.split()[0] for l in p.stdout.splitlines() if l.startswith("mine")], ["mine"])
        self.assertNotIn("cdm-default", p.stdout)
        p = sh("ioplan --preset=default --directory=.", IOPLAN_DATADIR=str(self.tmp / "nowhere"))
        self.assertEqual(p.returncode, 2)
        self.assertIn("no preset named 'default'", p.stderr)

    def test_command_line_overrides_the_preset(self):
        plan = showplan(["--preset=cdm-default", f"--directory={self.tmp}", "--size=64m", "--runtime=1"])
        jobs = [j for g in plan["groups"] for j in g["jobs"]]
        self.assertEqual(len(jobs), 8)
        self.assertTrue(all(j["size_bytes"] == 64 << 20 and j["runtime_ns"] == 10**9 for j in jobs))
        self.assertEqual({f["path"] for j in jobs for c in j["clones"] for f in c["files"]},
                         {f"{self.tmp}/ioplan-cdm.tmp"})

    def test_default_preset_runs_and_prints_the_cdm_table(self):
        p = run(["--preset=default", f"--directory={self.tmp}", "--size=4m", "--runtime=0.2s"], timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("[Read]", p.stdout)
        self.assertRegex(p.stdout, r"SEQ    1MiB \(Q=  8, T= 1\): +[0-9.]+ MB/s \[ +[0-9.]+ IOPS\] < +[0-9.]+ us>")
        self.assertIn("Profile:", p.stdout)
        # The 16 MiB default is labelled Peak Performance: the table says it is a smoke test.
        self.assertIn("Note: a smoke test (4 MiB, 0.2 sec per run), not CrystalDiskMark's 1 GiB for 5 sec", p.stdout)

    def test_unknown_preset_names_the_known_ones(self):
        p = run(["--preset=nope"])
        self.assertEqual(p.returncode, 2)
        self.assertIn("no preset named 'nope'", p.stderr)
        self.assertIn("cdm-default", p.stderr)


class Plot(TmpDirCase):
    def test_plot_draws_a_run(self):
        result = self.tmp / "r.json"
        p = run(["--name=r", "--ioengine=null", "--size=64m", "--time_based", "--runtime=1",
                 "--bwavgtime=100", "--output-format=json", f"--output={result}"])
        self.assertEqual(p.returncode, 0, p.stderr)
        series = json.loads(result.read_text())["ioplan"]["series"][0]
        self.assertGreaterEqual(len(series["read"]["iops"]), 8)
        # No sliver of an interval at the end: the last one spans at least half an interval.
        t = series["t_ns"]
        self.assertGreaterEqual(t[-1] - t[-2], series["interval_ns"] // 2, t)
        p = run(["plot", str(result), "-o", str(self.tmp / "r.svg")])
        self.assertEqual(p.returncode, 0, p.stderr)
        svg = ET.parse(self.tmp / "r.svg").getroot()
        text = "".join(svg.itertext())
        self.assertIn("r read", text)
        self.assertIn("IOPS over time", text)
        self.assertIn("Bandwidth (MB/s)", text)
        p = run(["plot", str(result), "-o", str(self.tmp / "r.png")])
        self.assertEqual(p.returncode, 0, p.stderr)
        png = (self.tmp / "r.png").read_bytes()
        self.assertTrue(png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 10000, len(png))
        p = run(["plot", str(self.tmp / "missing.json"), "-o", str(self.tmp / "x.svg")])
        self.assertEqual(p.returncode, 2)
