"""tests/e2e/test_cli_flags.py - ioplan's own flags come from one table (cli/flags.cpp).

Every flag of the table is in --help and in ioplan(1); every --output-format
name the binary accepts is listed in both, and is accepted.
"""
import re

from common import ROOT, TmpDirCase, run

NULL_JOB = ["--name=j", "--ioengine=null", "--size=64k", "--bs=4k"]


def table_flags():
    """The flag names of the table, as --dump-man-flags (made from it) lists them."""
    p = run(["--dump-man-flags"])
    assert p.returncode == 0, p.stderr
    return [n.replace("\\-", "-") for n in re.findall(r"(?m)^\.It Fl \\-(\S+)", p.stdout)]


def accepted_formats():
    """The --output-format names, from the error that lists the valid ones."""
    p = run(["--output-format=nosuch", *NULL_JOB])
    assert p.returncode == 2, p.stderr
    return re.search(r"valid: ([^)]*)\)", p.stderr).group(1).split(", ")


class FlagTable(TmpDirCase):
    def test_every_flag_is_in_help_and_man_page(self):
        names = table_flags()
        self.assertGreater(len(names), 15)
        self.assertIn("output-format", names)
        help_text = run(["--help"]).stdout
        page = (ROOT / "man/ioplan.1").read_text()
        for n in names:
            self.assertRegex(help_text, r"(?m)^  --" + re.escape(n) + r"\b", n)
            self.assertIn(".It Fl \\-" + n.replace("-", "\\-"), page, n)

    def test_every_output_format_is_listed_and_accepted(self):
        formats = accepted_formats()
        self.assertIn("csv", formats)  # the one --help and ioplan(1) once missed: generated lists keep it
        help_text = " ".join(run(["--help"]).stdout.split())
        page = (ROOT / "man/ioplan.1").read_text()
        item = page.split(".It Fl \\-output\\-format", 1)[1].split(".It ", 1)[0]
        for f in formats:
            self.assertIn(f, help_text, f)
            self.assertIn(f.replace("-", "\\-"), item, f)
            p = run([f"--output-format={f}", *NULL_JOB])
            self.assertEqual(p.returncode, 0, f + ": " + p.stderr)

    def test_an_unknown_output_format_is_named_once(self):
        # parse_formats began its reason with "--output-format: " and its callers
        # too: "--output-format: --output-format: unknown format 'badname'".
        for args in (["--output-format=badname", *NULL_JOB], ["merge", "--output-format=badname", "rank.json"]):
            with self.subTest(args=args[0]):
                p = run(args)
                self.assertEqual(p.returncode, 2)
                self.assertIn("ioplan: error: --output-format: unknown format 'badname' (valid: terse,", p.stderr)
                self.assertEqual(p.stderr.count("--output-format"), 1, p.stderr)

    def test_a_flag_without_its_value_is_an_error(self):
        p = run(["--output"])
        self.assertEqual(p.returncode, 2)
        self.assertIn("--output needs a value", p.stderr)

    def test_a_flag_that_takes_no_value_refuses_one(self):
        p = run(["--parse-only=yes", *NULL_JOB])
        self.assertEqual(p.returncode, 2)
        self.assertIn("--parse-only takes no value", p.stderr)
