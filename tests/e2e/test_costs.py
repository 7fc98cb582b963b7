"""tests/e2e/test_costs.py - costs that must stay flat as the work grows.

Machine speed is never measured here (the machine is shared): each test counts
what the program does - pages it touches, system calls it makes - at two sizes
and checks the cost of one more unit of work, or that a size fio handles is not
refused.
"""
import os
import subprocess
import unittest

from common import BIN, TmpDirCase


def usage_of(args, cwd=None):
    """Runs ioplan with args; returns (exit status, its rusage)."""
    with open(os.devnull, "wb") as null:
        proc = subprocess.Popen([BIN, *args], cwd=cwd, stdout=null, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        err = proc.stderr.read().decode()
        proc.stderr.close()
    if proc.returncode:
        raise AssertionError(f"ioplan {' '.join(args)} exited {proc.returncode}: {err[-500:]}")
    return usage


class BigJobFiles(TmpDirCase):
    def job_file(self, sections):
        text = ["[global]\nioengine=null\nsize=1m\nbs=4k\nrw=randread\n"]
        text += [f"[job{i}]\nfilename={self.tmp}/f{i}\n" for i in range(sections)]
        return str(self.write(f"big{sections}.fio", "\n".join(text)))

    def test_parse_only_touches_a_bounded_number_of_pages_per_section(self):
        # A section costs its job spec and its plan job (about 16 KiB, 4 pages);
        # holding the specs in a growing vector copied each one on every
        # reallocation, 7.8 pages a section.
        small, big = 2000, 20000
        faults = [usage_of(["--parse-only", self.job_file(n)]).ru_minflt for n in (small, big)]
        per_section = (faults[1] - faults[0]) / (big - small)
        self.assertLess(per_section, 6, f"minor faults {faults} at {small} and {big} sections")


if __name__ == "__main__":
    unittest.main()
