"""tests/e2e/test_docs.py - every command shown in README.md, docs/*.md and the man pages' EXAMPLES runs.

Commands are taken from the documents themselves: lines starting with "$ " in
README.md and each docs/*.md (a `$ cat FILE` block recreates FILE from the lines
shown), run in order in one private directory per document, and the literal
blocks of ioplan(1)'s EXAMPLES.  Paths under /tmp and the
example chart's output go to a private directory (the table below); job files
under examples/ are the repository's.
"""
import os
import re
import shutil
import subprocess

from common import BIN, MPI_ENV, ROOT, TmpDirCase

REPLACE = [  # (shown, run) - applied in order
    ("examples/gnome-disks-sweep.svg", "{tmp}/sweep.svg"),
    ("/tmp/ioplan-scratch", "{tmp}"),
    ("/tmp/scratch", "{tmp}"),
    ("/tmp/ncs", "{tmp}"),  # README: the directory of its sample result
    ("/tmp/pr", "{tmp}"),
    ("/tmp/ds.dat", "{tmp}/ds.dat"),
    ("--directory=/tmp ", "--directory={tmp} "),
    ("/mnt/shared", "{tmp}/shared"),
    (" examples/", " {root}/examples/"),
]


def doc_commands(path):
    """(files, commands) of one document: files made by `$ cat NAME` blocks, then every `$ ` command."""
    files, cmds = {}, []
    lines = path.read_text().splitlines()
    for i, line in enumerate(lines):
        if not line.startswith("$ "):
            continue
        cmd = line[2:]
        m = re.fullmatch(r"cat (\S+)", cmd)
        if m:
            body = []
            for nxt in lines[i + 1:]:
                if nxt.startswith("$ ") or nxt.startswith("```"):
                    break
                body.append(nxt)
            files[m.group(1)] = "\n".join(body).strip() + "\n"
        else:
            cmds.append(cmd)
    return files, cmds


def man_commands():
    text = (ROOT / "man/ioplan.1").read_text()
    examples = text.split(".Sh EXAMPLES", 1)[1].split(".Sh ", 1)[0]
    cmds = []
    for block in re.findall(r"\.Bd -literal[^\n]*\n(.*?)\n\.Ed", examples, re.S):
        cmds += [l for l in block.splitlines() if l.strip()]
    return cmds


SPLIT_TESTS = True  # run.py: the README, docs and man page commands run side by side


class Docs(TmpDirCase):
    def run_shown(self, cmd):
        for shown, real in REPLACE:
            cmd = cmd.replace(shown, real)
        cmd = cmd.replace("{tmp}", str(self.tmp)).replace("{root}", str(ROOT))
        # `ioplan` as typed: the binary under test first on PATH.
        bindir = self.tmp / ".bin"
        if not bindir.exists():
            bindir.mkdir()
            (bindir / "ioplan").symlink_to(BIN)
        env = dict(os.environ, PATH=f"{bindir}:{os.environ['PATH']}")
        if "mpirun " in cmd:  # README "Many hosts": as root Open MPI must be allowed; 2 cores need oversubscription
            if not shutil.which("mpirun"):
                self.skipTest("mpirun is not installed (Debian: openmpi-bin)")
            env.update(MPI_ENV)
        p = subprocess.run(cmd, shell=True, cwd=self.tmp, capture_output=True, text=True, timeout=180,
                           executable="/bin/bash", env=env)
        self.assertEqual(p.returncode, 0, f"{cmd}\n{p.stderr[-2000:]}")
        self.assertTrue(p.stdout or "--output" in cmd or " plot " in cmd or "mkdir" in cmd or "--parse-only" in cmd,
                        f"{cmd}: no output")
        return p

    def run_document(self, path, min_commands):
        files, cmds = doc_commands(path)
        for name, text in files.items():
            self.write(name, text.replace("/tmp/pr", str(self.tmp)).replace("/mnt/shared", f"{self.tmp}/shared"))
        self.assertGreaterEqual(len(cmds), min_commands, path)
        for cmd in cmds:
            with self.subTest(doc=path.name, cmd=cmd):
                self.run_shown("set -o pipefail; " + cmd)
        return files

    def test_readme_commands_run_as_shown(self):
        files = self.run_document(ROOT / "README.md", 6)
        self.assertIn("rw.fio", files)
        self.assertLess(len((ROOT / "README.md").read_text().splitlines()), 250)

    def test_docs_commands_run_as_shown(self):
        docs = sorted((ROOT / "docs").glob("*.md"))
        self.assertGreaterEqual(len(docs), 8)
        shown = 0
        for path in docs:
            # One private directory per document, as a reader following it would have.
            with self.subTest(doc=path.name):
                self.tearDown()
                self.setUp()
                files, cmds = doc_commands(path)
                if cmds:
                    self.run_document(path, 1)
                    shown += len(cmds)
                if path.name == "logs-and-replay.md":
                    self.assertTrue((self.tmp / "sweep.svg").stat().st_size > 10000)
        self.assertGreaterEqual(shown, 15)

    def test_docs_links_resolve(self):
        # Every relative link of README.md and docs/ names a file of the repository.
        for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
            for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", path.read_text()):
                if (path.parent / target).resolve() == ROOT / "docs/safety.md" and not (ROOT / "docs/safety.md").exists():
                    continue  # written on the safety work's branch; checked once merged
                with self.subTest(doc=path.name, link=target):
                    self.assertTrue((path.parent / target).exists(), f"{path.name}: {target}")

    def test_every_e2e_module_is_in_its_familys_row_of_the_tests_readme(self):
        # tests/README.md maps behaviours to tests: each e2e family has one prefix and a row
        # that lists its modules, so a module named outside the families, or left out of its
        # row, is found here.
        text = (ROOT / "tests/README.md").read_text()
        rows = {m.group(1): m.group(2) for m in re.finditer(r"^\| `([a-z]+)` \|(.*)$", text, re.M)}
        for module in sorted((ROOT / "tests/e2e").glob("test_*.py")):
            family = re.match(r"test_([a-z]+)", module.name).group(1)
            with self.subTest(module=module.name):
                self.assertIn(family, rows, "a family the tests README has no row for")
                self.assertIn(f"`{module.name}`", rows[family])

    def test_every_source_file_is_named_in_the_architecture(self):
        # docs/architecture.md describes the code as it is: a file added without a word
        # there is found here (by its name, so "worker_io.c" or `worker_io` both count).
        text = (ROOT / "docs/architecture.md").read_text()
        for top in ("cli", "engine", "parser", "report", "results"):
            for path in sorted((ROOT / top).rglob("*")):
                if path.suffix not in (".c", ".cpp", ".h", ".hpp"):
                    continue
                with self.subTest(file=str(path.relative_to(ROOT))):
                    self.assertRegex(text, rf"\b{re.escape(path.stem)}\b")

    def test_man_page_examples_run_as_shown(self):
        cmds = man_commands()
        self.assertGreaterEqual(len(cmds), 7)
        for cmd in cmds:
            with self.subTest(cmd=cmd):
                self.run_shown("set -o pipefail; " + cmd)
