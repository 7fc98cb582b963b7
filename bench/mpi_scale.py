#!/usr/bin/env python3
"""bench/mpi_scale.py - how ioplan's MPI scale-out costs grow with the ranks (`make bench-mpi`).

Runs the same null-engine job (three stonewall groups, size-bound, each rank
in its own directory) under `mpirun --oversubscribe -np N` for each N asked
(default 4, 16, 64) and prints, from the merged JSON that rank 0 writes:
the measured start skew (worst spread of a group's start over the ranks,
after clock-offset correction), rank 0's time to receive and merge every
rank's result, the largest clock offset measured, and the wall time of the
whole mpirun.  Oversubscribed ranks on a couple of cores measure the
scheduler as much as MPI: these are upper bounds for one machine, not a
cluster's figures.  Not part of `make test` (64 ranks take a while).

Usage: mpi_scale.py [--ranks 4,16,64] [--rounds N]
Environment: IOPLAN_BIN (default ./ioplan).
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

BIN = os.environ.get("IOPLAN_BIN", os.path.abspath("ioplan"))
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_rmaps_base_oversubscribe="1")
JOB = """[global]
ioengine=null
bs=4k
size=16m
directory={dir}/r${{IOPLAN_RANK}}
[a]
rw=write
[b]
stonewall
rw=randread
[c]
stonewall
rw=randwrite
"""


def one_run(n, tmp):
    for r in range(n):
        os.makedirs(os.path.join(tmp, f"r{r}"), exist_ok=True)
    with open(os.path.join(tmp, "job.fio"), "w") as f:
        f.write(JOB.format(dir=tmp))
    t0 = time.monotonic()
    p = subprocess.run(["mpirun", "--oversubscribe", "-np", str(n), BIN, "--output-format=json",
                        "--rank-timeout=120", "job.fio"], cwd=tmp, capture_output=True, text=True,
                       env=ENV, timeout=600)
    wall = time.monotonic() - t0
    if p.returncode != 0:
        sys.exit(f"mpirun -np {n} failed ({p.returncode}): {p.stderr[-2000:]}")
    doc = json.loads(p.stdout)
    world = doc["ioplan"]["world"]
    offsets = [abs(k["clock_offset_ns"]) for k in doc["ioplan"]["ranks"]]
    ios = sum(j["write"]["total_ios"] + j["read"]["total_ios"] for j in doc["jobs"])
    if ios != n * 3 * 4096:
        sys.exit(f"mpirun -np {n}: merged {ios} I/Os, expected {n * 3 * 4096}")
    return world["start_skew_ns"] / 1e6, world["merge_ns"] / 1e6, max(offsets) / 1e6, wall


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ranks", default="4,16,64")
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    if not shutil.which("mpirun"):
        sys.exit("mpirun is not installed (Debian: openmpi-bin)")
    print(f"{'ranks':>5} {'start skew ms':>22} {'merge ms':>22} {'max |offset| ms':>16} {'wall s':>8}")
    for n in (int(x) for x in a.ranks.split(",")):
        rows = []
        for _ in range(a.rounds):
            with tempfile.TemporaryDirectory(prefix="ioplan-mpi-bench-") as tmp:
                rows.append(one_run(n, tmp))
        col = list(zip(*rows))
        fmt = lambda xs: f"{statistics.median(xs):8.3f} ({min(xs):.3f}-{max(xs):.3f})"
        print(f"{n:>5} {fmt(col[0]):>22} {fmt(col[1]):>22} {statistics.median(col[2]):16.3f} "
              f"{statistics.median(col[3]):8.2f}", flush=True)


if __name__ == "__main__":
    main()
