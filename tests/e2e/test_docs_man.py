"""tests/e2e/test_docs_man.py - the man pages are lint-clean, list every option of the table, and
ioplan-job(5)'s TOML and YAML examples are the same job."""
import json
import re
import subprocess
import unittest

from common import ROOT, TmpDirCase, run

PAGES = [ROOT / "man/ioplan.1", ROOT / "man/ioplan-job.5"]


class ManPages(unittest.TestCase):
    def test_mandoc_lint_is_clean(self):
        for page in PAGES:
            p = subprocess.run(["mandoc", "-Tlint", "-Wstyle", str(page)], capture_output=True, text=True)
            # Cross references to pages not installed on this machine are not defects of the page.
            problems = [l for l in (p.stdout + p.stderr).splitlines()
                        if "referenced manual not found" not in l and "mandoc.db" not in l]
            self.assertEqual(problems, [], page.name)

    def test_every_option_is_in_ioplan_job_5(self):
        cmdhelp = run(["--cmdhelp"]).stdout
        names = re.findall(r"(?m)^  (\S+)", cmdhelp)
        self.assertGreater(len(names), 100)
        page = (ROOT / "man/ioplan-job.5").read_text()
        documented = set(re.findall(r"(?m)^\.B (\S+)$", page))
        missing = [n for n in names if n.replace("-", "\\-") not in documented]
        self.assertEqual(missing, [])

    def test_pages_render(self):
        for page in PAGES:
            p = subprocess.run(["man", "-l", str(page)], capture_output=True, text=True,
                               env={"MANPAGER": "cat", "PAGER": "cat", "MANWIDTH": "80", "PATH": "/usr/bin:/bin"})
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn("COMPATIBILITY" if page.suffix == ".5" else "EXIT STATUS", p.stdout)


class OptionTableViews(unittest.TestCase):
    def test_cmdhelp_lists_each_category_once(self):
        headers = re.findall(r"(?m)^(\S+):$", run(["--cmdhelp"]).stdout)
        self.assertEqual(len(headers), len(set(headers)), headers)
        self.assertEqual(len(headers), 11)
        self.assertIn("stats", headers)

    def test_dump_options_json_is_the_table_cmdhelp_shows(self):
        p = run(["--dump-options=json"])
        self.assertEqual(p.returncode, 0, p.stderr)
        table = json.loads(p.stdout)
        cmdhelp = re.findall(r"(?m)^  (\S+)", run(["--cmdhelp"]).stdout)
        self.assertEqual(sorted(o["name"] for o in table), sorted(cmdhelp))
        bs = next(o for o in table if o["name"] == "bs")
        self.assertEqual((bs["aliases"], bs["type"], bs["unit"], bs["default"], bs["category"], bs["ioplan_only"]),
                         (["blocksize"], "size list", "bytes", "4k", "pattern", False))
        rw = next(o for o in table if o["name"] == "rw")
        self.assertIn("randread", [c["name"] for c in rw["choices"]])
        self.assertIn("repeat", [o["name"] for o in table if o["ioplan_only"]])

    def test_dump_options_takes_only_json(self):
        p = run(["--dump-options=xml"])
        self.assertEqual(p.returncode, 2)
        self.assertIn("--dump-options takes json", p.stderr)

    def test_dump_options_is_documented(self):
        self.assertRegex(run(["--help"]).stdout, r"--dump-options=json\s")
        self.assertIn(r"Fl \-dump\-options Ns = Ns Ar json", (ROOT / "man/ioplan.1").read_text())


class JobPageSyntaxes(TmpDirCase):
    def example(self, page, label):
        """The .nf/.fi block after the paragraph `label`, as the reader sees it."""
        block = page.split(label, 1)[1].split(".nf\n", 1)[1].split(".fi\n", 1)[0]
        return block.replace("\\-", "-").replace("\\(dq", '"')

    def test_toml_and_yaml_examples_give_one_plan(self):
        page = (ROOT / "man/ioplan-job.5").read_text()
        self.assertIn(".SS TOML and YAML", page)
        self.assertIn(".B DISKSPD command lines", page.split(".SH COMPATIBILITY", 1)[1])
        plans = []
        for label, ext in (("As TOML:", "toml"), ("As YAML:", "yaml")):
            path = self.write(f"job.{ext}", self.example(page, label))
            p = run(["--showplan", str(path)])
            self.assertEqual(p.returncode, 0, p.stderr)
            plans.append(p.stdout)
        self.assertEqual(plans[0], plans[1])
        self.assertIn('"stonewall": true', plans[0])


if __name__ == "__main__":
    unittest.main()
