#!/usr/bin/env python3
"""bench/instr_per_io.py - a tool's user-space instructions per I/O, counted by callgrind.

Why not rusage's user time: with tick accounting the kernel charges each tick to
what the process was doing when it came, and on a guest whose system calls pass
through the hypervisor (this project's 2-CPU machine) about half of every call's
time lands in user: a loop of getppid() calls reads 0.50 us user and 0.57 us
system per call, for a few nanoseconds of user work.  A tool that makes one
io_uring_enter per I/O is then charged that half-call as its own work, whatever
its code costs.  Callgrind counts the instructions a process executes in user
space, every thread, exactly; the kernel's part is not in it at all.

The count of a run also holds start-up (the dynamic linker, parsing, the report),
so the tool runs twice, at io_size SMALL and BIG, and the figure is the difference
in instructions over the difference in I/Os.  A first run without callgrind lays
out the file, so neither counted run includes a layout.

The difference takes out only what costs the same in both runs.  A report that
holds a time series (ioplan's "ioplan" object: one bin per interval) costs more
the longer a run took, and a run under callgrind on a busy machine takes longer
for no reason of its own, so its I/Os would be charged for the wait.  Each
--leave-out FUNC (a callgrind function pattern, '*' matching anything) is not
counted while it runs: the report, in both tools.

Usage: instr_per_io.py [--leave-out FUNC]... SMALL BIG -- ARGV...
ARGV is the tool's command line with "{io_size}" where the amount goes; the tool
must print fio's JSON.  Prints {"per_io": N, "ios": [a, b], "instr": [a, b]}.
"""
import json
import os
import re
import subprocess
import sys
import tempfile


def total_ios(stdout):
    """I/Os of every direction of every job in a fio-layout JSON document."""
    doc = json.loads(stdout[stdout.find("{"):])
    return sum(j[d]["total_ios"] for j in doc["jobs"] for d in ("read", "write", "trim") if d in j)


def run(argv, size, counted, leave_out=()):
    """(instructions or None, I/Os) of one run of argv at io_size size."""
    argv = [a.replace("{io_size}", size) for a in argv]
    with tempfile.TemporaryDirectory(prefix="ioplan-instr-") as d:
        out = os.path.join(d, "callgrind.out")
        # Collection starts on and each left-out function toggles it off and on again
        # (a --toggle-collect turns --collect-atstart off, so that option comes after).
        wrap = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                *(f"--toggle-collect={f}" for f in leave_out), "--collect-atstart=yes"] if counted else []
        p = subprocess.run(wrap + argv, capture_output=True, text=True)
        if p.returncode != 0:
            raise SystemExit(f"instr_per_io: {' '.join(wrap + argv)} exited {p.returncode}: "
                             f"{p.stderr.strip()[-400:]}")
        if not counted:
            return None, total_ios(p.stdout)
        with open(out) as f:
            m = re.search(r"^(?:totals|summary): (\d+)", f.read(), re.M)
        if not m:
            raise SystemExit(f"instr_per_io: callgrind wrote no totals to {out}")
        return int(m.group(1)), total_ios(p.stdout)


def main(args):
    leave_out = []
    while len(args) >= 2 and args[0] == "--leave-out":
        leave_out.append(args[1])
        args = args[2:]
    if len(args) < 4 or args[2] != "--" or not any("{io_size}" in a for a in args[3:]):
        raise SystemExit("usage: instr_per_io.py [--leave-out FUNC]... SMALL BIG -- ARGV... "
                         "(ARGV with {io_size})")
    small, big, argv = args[0], args[1], args[3:]
    run(argv, small, counted=False)
    (i1, n1), (i2, n2) = (run(argv, s, True, leave_out) for s in (small, big))
    if n2 <= n1:
        raise SystemExit(f"instr_per_io: {n2} I/Os at {big} is not more than {n1} at {small}")
    print(json.dumps({"per_io": (i2 - i1) / (n2 - n1), "ios": [n1, n2], "instr": [i1, i2]}))


if __name__ == "__main__":
    main(sys.argv[1:])
