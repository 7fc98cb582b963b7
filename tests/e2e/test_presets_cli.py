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
        names = {line.split()[0] for line in p.stdout.splitlines() if not line.startswith(" ")}
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
        names = {line.split()[0] for line in p.stdout.splitlines() if not line.startswith(" ")}
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

    def test_presets_say_their_time_and_space_from_the_plan(self):
        def listing(*extra):
            p = run(["--presets", *extra], cwd=self.tmp)
            self.assertEqual(p.returncode, 0, p.stderr)
            lines = p.stdout.splitlines()
            return {lines[i].split()[0]: lines[i + 1].strip() for i in range(0, len(lines), 2)}
        at_defaults = listing()
        self.assertEqual(set(at_defaults), {f.stem for f in (ROOT / "jobs").glob("*.fio")})
        # 8 tests x 6 runs x 5 s + 7 pauses x 5 s; a 1 GiB file; what shrinks it.
        self.assertEqual(at_defaults["cdm-default"],
                         "4 min 35 s, 1 GiB in 1 file; smaller: --size=64m --runtime=1 --repeat=1 --group_pause=0")
        self.assertTrue(at_defaults["azure-max-iops"].startswith("1 min 30 s, 240 GiB in 8 files"))
        self.assertTrue(at_defaults["olap"].startswith("2 min 0 s, 4 GiB in 1 file"))
        # Computed from the plan: the command line's options change the figures.
        shrunk = listing("--size=64m", "--runtime=1", "--repeat=1", "--group_pause=0")
        self.assertEqual(shrunk["cdm-default"], "16 s, 64 MiB in 1 file")
        self.assertTrue(shrunk["olap"].startswith("2 s, 64 MiB in 1 file"), shrunk["olap"])

    def test_a_presets_size_shrinks_every_job_in_it(self):
        # olap's strided job reads quarters of a filesize=4g file: --size=64m is its file too.
        plan = showplan(["--preset=olap", f"--directory={self.tmp}", "--size=64m"])
        jobs = [j for g in plan["groups"] for j in g["jobs"]]
        self.assertEqual([j["name"] for j in jobs], ["olap-interlocked", "olap-strided"])
        ends = [c["offset_bytes"] + j["size_bytes"] for j in jobs for c in j["clones"]]
        self.assertEqual(max(ends), 64 << 20)
        self.assertEqual(sorted(c["offset_bytes"] for c in jobs[1]["clones"]), [i << 24 for i in range(4)])
        self.assertEqual({f["size_bytes"] for j in jobs for c in j["clones"] for f in c["files"]}, {64 << 20})

    def test_bare_ioplan_and_help_show_the_common_starts(self):
        p = run([])
        self.assertEqual(p.returncode, 2)
        self.assertIn("no job file given", p.stderr)
        for start in ("ioplan --presets", "ioplan --preset=default --directory=DIR", "ioplan --directory=DIR job.fio"):
            self.assertIn(start, p.stderr)
            self.assertIn(start, run(["--help"]).stdout)

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
        # Rate-limited: the intervals are the runtime's, and unlimited the null job spins a core.
        p = run(["--name=r", "--ioengine=null", "--size=64m", "--time_based", "--runtime=1", "--rate_iops=1000",
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
