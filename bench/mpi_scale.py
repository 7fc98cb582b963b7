#!/usr/bin/env python3
"""bench/mpi_scale.py - how ioplan's MPI scale-out costs grow with the ranks (`make bench-mpi`).

Runs the same null-engine job (three stonewall groups, size-bound, each rank
in its own directory) under `mpirun --oversubscribe -np N` for each N asked
(default 4, 16, 64) and prints, from the merged JSON that rank 0 writes:
the measured start skew (worst spread of a group's start over the ranks,
after clock-offset correction), the first-I/O spread (worst spread over the
ranks of a job's first I/O on rank 0's clock), rank 0's time to receive and
merge every rank's result, the largest rank file, the largest clock offset
measured, and the wall time of the whole mpirun.  Then `ioplan merge` of
--merge-ranks (default 1,024) rank files made from one real rank's (its rank
number changed, its checksum made anew): by default of a 24-clone job with
300 samples a clone, the shape of the issue's 24-clone, 10-minute job, or
--merge-from's (a version 2 file is re-encoded as version 3): the merge's wall time and peak RSS, against the target of under
5 s with memory flat (peak RSS within a quarter of a 16-file merge's).  Oversubscribed ranks on a couple of cores measure the
scheduler as much as MPI: these are upper bounds for one machine, not a
cluster's figures.  Not part of `make test` (64 ranks take a while).

Usage: mpi_scale.py [--ranks 4,16,64] [--rounds N] [--merge-ranks N] [--merge-from RANKFILE]
Environment: IOPLAN_BIN (default ./ioplan).
"""
import argparse
import base64
import ctypes
import ctypes.util
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

# The rank-file checksum the e2e tests forge files with: one CRC-32C in Python, not two.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "e2e"))
from test_mpi_merge import crc32c  # noqa: E402

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
    os.makedirs(os.path.join(tmp, "rk"), exist_ok=True)
    p = subprocess.run(["mpirun", "--oversubscribe", "-np", str(n), BIN, "--output-format=json",
                        "--rank-timeout=120", "--rank-output=rk", "job.fio"], cwd=tmp, capture_output=True,
                       text=True, env=ENV, timeout=600)
    wall = time.monotonic() - t0
    if p.returncode != 0:
        sys.exit(f"mpirun -np {n} failed ({p.returncode}): {p.stderr[-2000:]}")
    doc = json.loads(p.stdout)
    world = doc["ioplan"]["world"]
    offsets = [abs(k["clock_offset_ns"]) for k in doc["ioplan"]["ranks"]]
    ios = sum(j["write"]["total_ios"] + j["read"]["total_ios"] for j in doc["jobs"])
    if ios != n * 3 * 4096:
        sys.exit(f"mpirun -np {n}: merged {ios} I/Os, expected {n * 3 * 4096}")
    size = max(os.path.getsize(os.path.join(tmp, "rk", f)) for f in os.listdir(os.path.join(tmp, "rk")))
    return (world["start_skew_ns"] / 1e6, world.get("first_io_spread_ns", 0) / 1e6, world["merge_ns"] / 1e6,
            size / 1024, max(offsets) / 1e6, wall)


# The target is the rank file of a 24-clone, 10-minute job (each clone's series widened
# to 300 samples of 2 s).  This job gives the same shape in 3 s: 24 clones of 300 samples of 10 ms.
LONG_JOB = """[global]
ioengine=null
bs=4k
size=1g
time_based=1
runtime=3
numjobs=24
rate_iops=2000
bwavgtime=10
iopsavgtime=10
[w]
rw=randwrite
"""


def one_rank_file(tmp):
    """A real 1-rank run's rank file (a 24-clone job of 300 samples a clone)."""
    with open(os.path.join(tmp, "job.fio"), "w") as f:
        f.write(LONG_JOB)
    os.makedirs(os.path.join(tmp, "one"))
    p = subprocess.run([BIN, "--output-format=json", "--rank-output=one", "job.fio"], cwd=tmp,
                       capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        sys.exit(f"the 1-rank run failed: {p.stderr[-2000:]}")
    return os.path.join(tmp, "one", "rank-0.json")


def crc32c_fast():
    """ISA-L's CRC-32C (the library ioplan checks rank files with) through ctypes: the pure
    Python one takes a minute over a thousand rank files."""
    try:
        lib = ctypes.CDLL(ctypes.util.find_library("isal") or "libisal.so.2")
        lib.crc32_iscsi.restype = ctypes.c_uint32
        lib.crc32_iscsi.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_uint32]
        return lambda data: lib.crc32_iscsi(data, len(data), 0xFFFFFFFF)
    except OSError:
        return crc32c


def packed(words):
    """A list of 64-bit words as rank files pack them: LEB128 varints in base64."""
    out = bytearray()
    for z in words:
        while z >= 0x80:
            out.append(0x80 | (z & 0x7F))
            z >>= 7
        out.append(z)
    return base64.b64encode(bytes(out)).decode()


def upgraded(text):
    """A version 2 rank file (histograms and series as JSON lists, the format before
    version 3) as version 3 writes the same figures, so --merge-from takes either."""
    doc = json.loads(text)
    if doc.get("ioplan_rank_file") != 2:
        return text
    m = (1 << 64) - 1

    def walk(x):
        if isinstance(x, list):
            for v in x:
                walk(v)
        elif isinstance(x, dict):
            for k, v in list(x.items()):
                if k == "hist":
                    words, last = [], 0
                    for b, c in v:
                        words += [b - last, c]
                        last = b
                    x[k] = packed(words)
                elif k in ("bw_series", "iops_series"):
                    words, prev = [], [0] * 14
                    for smp in v["samples"]:
                        cur = [smp["t_start_ns"], smp["t_end_ns"], *smp["bytes"], *smp["ios"],
                               *smp["lat_sum_ns"], *smp["lat_max_ns"]]
                        for a, b in zip(cur, prev):
                            d = (a - b) & m
                            words.append(((d << 1) & m) ^ (m if d >> 63 else 0))
                        prev = cur
                    v["samples"] = packed(words)
                else:
                    walk(v)

    doc.pop("checksum")
    doc["ioplan_rank_file"] = 3
    walk(doc["results"])
    body = json.dumps(doc, separators=(",", ":"), sort_keys=True, ensure_ascii=False)
    return '{"checksum":"crc32c:%08x",' % crc32c(body.encode()) + body[1:] + "\n"


def merge_many(n, source=None):
    """`ioplan merge` of n rank files made from a real rank's: wall time and peak RSS.

    source: a rank file of the caller's run (say a real 24-clone, 10-minute job's) instead of
    LONG_JOB's."""
    crc = crc32c_fast()
    with tempfile.TemporaryDirectory(prefix="ioplan-mpi-bench-") as tmp:
        text = upgraded(open(source or one_rank_file(tmp)).read()).rstrip("\n")
        head = re.match(r'\{"checksum":"crc32c:[0-9a-f]{8}",', text).group(0)
        body = "{" + text[len(head):]
        who = re.search(r'"rank":(\{[^{}]*\})', body)
        files = []
        for r in range(n):
            rank = dict(json.loads(who.group(1)), rank=r, nranks=n, host=f"n{r // 16:03d}")
            mine = body[:who.start(1)] + json.dumps(rank, separators=(",", ":"), sort_keys=True) + body[who.end(1):]
            path = os.path.join(tmp, f"rank-{r}.json")
            with open(path, "w") as f:
                f.write('{"checksum":"crc32c:%08x",' % crc(mine.encode()) + mine[1:] + "\n")
            files.append(path)
        size = os.path.getsize(files[0]) / 1024
        # 16 ranks' merge (files of a world of n: the same shape) is the memory baseline of "flat".
        few = min(n, 16)
        rows = []
        for some in (files[:few], files):
            t0 = time.monotonic()
            args = ["--partial"] if len(some) < n else []
            p = subprocess.run(["/usr/bin/time", "-f", "%M %U %S", BIN, "merge", *args, "--output-format=json",
                                *some], cwd=tmp, capture_output=True, text=True, timeout=600)
            wall = time.monotonic() - t0
            if p.returncode != 0:
                sys.exit(f"ioplan merge of {len(some)} rank files failed: {p.stderr[-2000:]}")
            kib, usr, sys_s = p.stderr.strip().splitlines()[-1].split()
            rows.append((wall, int(kib) / 1024, float(usr) + float(sys_s)))
        (_, rss_few, _), (wall, rss, cpu) = rows
        ok = wall < 5 and rss < rss_few * 1.25 + 4
        # CPU time beside wall time: on a machine others load, wall time is theirs as much as ioplan's
        print(f"ioplan merge of {n} generated rank files ({size:.1f} KiB each): {wall:.2f} s wall, {cpu:.2f} s CPU "
              f"({wall * 1000 / n:.2f} ms a file), peak RSS {rss:.1f} MiB ({rss_few:.1f} MiB for {few}); "
              f"target under 5 s and flat memory: {'met' if ok else 'NOT MET'} (load average "
              f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs)", flush=True)

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ranks", default="4,16,64")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--merge-ranks", type=int, default=1024)
    ap.add_argument("--merge-from", metavar="RANKFILE",
                    help="make the merged rank files from this one (a --rank-output file)")
    a = ap.parse_args()
    if not shutil.which("mpirun"):
        sys.exit("mpirun is not installed (Debian: openmpi-bin)")
    print(f"{'ranks':>5} {'start skew ms':>22} {'first-I/O spread ms':>22} {'merge ms':>22} "
          f"{'rank file KiB':>13} {'max |offset| ms':>16} {'wall s':>8}")
    for n in (int(x) for x in a.ranks.split(",") if x):
        rows = []
        for _ in range(a.rounds):
            with tempfile.TemporaryDirectory(prefix="ioplan-mpi-bench-") as tmp:
                rows.append(one_run(n, tmp))
        col = list(zip(*rows))
        fmt = lambda xs: f"{statistics.median(xs):8.3f} ({min(xs):.3f}-{max(xs):.3f})"
        print(f"{n:>5} {fmt(col[0]):>22} {fmt(col[1]):>22} {fmt(col[2]):>22} {max(col[3]):13.1f} "
              f"{statistics.median(col[4]):16.3f} {statistics.median(col[5]):8.2f}", flush=True)
    if a.merge_ranks:
        merge_many(a.merge_ranks, a.merge_from)


if __name__ == "__main__":
    main()
