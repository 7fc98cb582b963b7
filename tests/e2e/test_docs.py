"""tests/e2e/test_docs.py - every command shown in README.md and the man pages' EXAMPLES runs.

Commands are taken from the documents themselves: README lines starting with
"$ " in code blocks (a `$ cat FILE` block recreates FILE from the lines shown),
and the literal blocks of ioplan(1)'s EXAMPLES.  Paths under /tmp and the
example chart's output go to a private directory (the table below); job files
under examples/ are the repository's.
"""
import os
import re
import shutil
import subprocess

from common import BIN, ROOT, TmpDirCase

REPLACE = [  # (shown, run) - applied in order
    ("examples/gnome-disks-sweep.svg", "{tmp}/sweep.svg"),
    ("/tmp/ioplan-scratch", "{tmp}"),
    ("/tmp/scratch", "{tmp}"),
    ("/tmp/pr", "{tmp}"),
    ("/tmp/ds.dat", "{tmp}/ds.dat"),
    ("--directory=/tmp ", "--directory={tmp} "),
    ("/mnt/shared", "{tmp}/shared"),
    (" examples/", " {root}/examples/"),
]


def readme_commands():
    """(files, commands): files made by `$ cat NAME` blocks, then every `$ ` command."""
    files, cmds = {}, []
    lines = (ROOT / "README.md").read_text().splitlines()
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
            env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
                       OMPI_MCA_rmaps_base_oversubscribe="1")
        p = subprocess.run(cmd, shell=True, cwd=self.tmp, capture_output=True, text=True, timeout=180,
                           executable="/bin/bash", env=env)
        self.assertEqual(p.returncode, 0, f"{cmd}\n{p.stderr[-2000:]}")
        self.assertTrue(p.stdout or "--output" in cmd or " plot " in cmd or "mkdir" in cmd or "--parse-only" in cmd,
                        f"{cmd}: no output")
        return p

    def test_readme_commands_run_as_shown(self):
        files, cmds = readme_commands()
        self.assertIn("rw.fio", files)
        for name, text in files.items():
            self.write(name, text.replace("/tmp/pr", str(self.tmp)).replace("/mnt/shared", f"{self.tmp}/shared"))
        self.assertGreaterEqual(len(cmds), 6)
        for cmd in cmds:
            with self.subTest(cmd=cmd):
                self.run_shown("set -o pipefail; " + cmd)
        self.assertTrue((self.tmp / "sweep.svg").stat().st_size > 10000)

    def test_man_page_examples_run_as_shown(self):
        cmds = man_commands()
        self.assertGreaterEqual(len(cmds), 7)
        for cmd in cmds:
            with self.subTest(cmd=cmd):
                self.run_shown("set -o pipefail; " + cmd)
