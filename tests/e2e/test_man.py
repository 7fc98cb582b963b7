"""tests/e2e/test_man.py - the man pages are lint-clean and list every option of the table."""
import re
import subprocess
import unittest

from common import ROOT, run

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


if __name__ == "__main__":
    unittest.main()
