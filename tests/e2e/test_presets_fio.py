"""tests/e2e/test_presets_fio.py - every shipped preset is a real fio job file.

The presets in jobs/ are fio job files plus a few ioplan-only options.  With the
lines of those options removed, each must pass real fio 3.33's --parse-only, so a
user can run the same file through fio.  The list of ioplan-only option names
lives here, once, and is itself checked against fio: every name in it must be
one fio rejects (a fio option wrongly listed would hide a line from the check).
Each preset must also open with the comment the issue asks for and parse in
ioplan.
"""
import os
import re
import unittest

from common import BIN, FIO, ROOT, TmpDirCase, ioplan_only_options, run, run_fio

# Options ioplan has and fio 3.33 lacks: the option table marks them ioplan-only.
IOPLAN_ONLY = ioplan_only_options()

JOBS = ROOT / "jobs"
OPTION_LINE = re.compile(r"^\s*([A-Za-z0-9_]+)\s*(=|$)")


def presets():
    return sorted(JOBS.glob("*.fio"))


def without_ioplan_only(text):
    """The job text with every line that sets an ioplan-only option removed."""
    keep = []
    for line in text.splitlines():
        m = OPTION_LINE.match(line)
        if m and m.group(1).lower() in IOPLAN_ONLY:
            continue
        keep.append(line)
    return "\n".join(keep) + "\n"


def uses_ioplan_only(text):
    return any((m := OPTION_LINE.match(line)) and m.group(1).lower() in IOPLAN_ONLY
               for line in text.splitlines())


def fio_parse_only(path):
    p = run_fio(["--parse-only", str(path)])
    return p.returncode, p.stdout + p.stderr


@unittest.skipUnless(FIO, "fio is not installed")
class PresetsParseInFio(TmpDirCase):
    def test_the_presets_the_issues_name_are_all_there(self):
        names = {p.stem for p in presets()}
        for want in ("default", "cdm-default", "cdm-nvme", "cdm-peak", "cdm-realworld",
                     "azure-max-iops", "azure-max-throughput", "oltp", "olap",
                     "winsat-disk", "hdparm-t", "dd", "gnome-disks"):
            self.assertIn(want, names)

    def test_each_preset_without_ioplan_only_lines_passes_fio_parse_only(self):
        for path in presets():
            with self.subTest(preset=path.name):
                stripped = self.write(path.name, without_ioplan_only(path.read_text()))
                rc, out = fio_parse_only(stripped)
                self.assertEqual(rc, 0, f"fio --parse-only {path.name}:\n{out}")
                self.assertNotIn("Bad option", out)
                self.assertNotIn("dropped", out)

    def test_every_name_in_the_ioplan_only_list_is_one_fio_rejects(self):
        for name in IOPLAN_ONLY:
            with self.subTest(option=name):
                job = self.write(f"{name}.fio", f"[j]\nrw=read\nsize=1m\n{name}=1\n")
                rc, out = fio_parse_only(job)
                self.assertNotEqual(rc, 0, f"fio accepts {name}=; it is not ioplan-only")

    def test_presets_that_use_ioplan_only_options_fail_in_fio_unstripped(self):
        # The stripping is what makes them pass: the check above is not vacuous.
        used = [p for p in presets() if uses_ioplan_only(p.read_text())]
        self.assertGreater(len(used), 5)
        for path in used:
            with self.subTest(preset=path.name):
                rc, out = fio_parse_only(path)
                self.assertNotEqual(rc, 0)


class PresetHeaders(unittest.TestCase):
    def test_each_preset_opens_with_what_where_and_what_to_set(self):
        for path in presets():
            with self.subTest(preset=path.name):
                text = path.read_text()
                self.assertTrue(text.startswith(f"; jobs/{path.name} - "), "first line names the file")
                head = re.split(r"^\[", text, maxsplit=1, flags=re.M)[0]
                for label in ("Measures:", "Numbers from:", "Set:"):
                    self.assertIn(f"; {label}", head)

    def test_output_format_lines_name_known_compact_writers(self):
        known = {"cdm", "winsat", "hdparm", "dd", "gnome-disks"}
        seen = set()
        for path in presets():
            for line in path.read_text().splitlines():
                m = re.match(r"^; output-format: (\S+)$", line)
                if m:
                    self.assertIn(m.group(1), known, path.name)
                    seen.add(m.group(1))
        self.assertEqual(seen, known)


@unittest.skipUnless(os.path.exists(BIN), "ioplan binary not built")
class PresetsParseInIoplan(TmpDirCase):
    def test_each_preset_passes_ioplan_parse_only(self):
        for path in presets():
            with self.subTest(preset=path.name):
                p = run(["--parse-only", f"--directory={self.tmp}", str(path)])
                self.assertEqual(p.returncode, 0, p.stderr)
                self.assertEqual(p.stderr, "")


if __name__ == "__main__":
    unittest.main()
