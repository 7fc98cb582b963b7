"""tests/e2e/test_iolog_blktrace.py - a block trace captured from the kernel replays as it ran.

A trace is captured here on a loop device while a job runs, so the replay is
checked against what the kernel saw, not against a synthetic trace.
blktrace itself cannot run on this kind of machine: its per-CPU relay files in
debugfs answer EPERM.  The kernel's block tracepoints are readable through
tracefs, though, and they are the events blktrace records: each
block_bio_queue event is blktrace's Q action with the same device, sector,
size and direction.  So the test captures them in a private tracefs instance
(no global tracing state is touched), writes them as blktrace's binary records
(struct blk_io_trace, the layout `blkparse` reads), checks blkparse reads it,
and replays it in ioplan and in fio 3.33: the same I/O count, bytes and
directions as the job that was traced, and ioplan reports its lag.
"""
import collections
import json
import os
import re
import shutil
import struct
import subprocess
import unittest

from common import FIO, TmpDirCase, loop_device, run, run_fio

TRACEFS = "/sys/kernel/tracing"
BLK_TA_QUEUE = 1 | ((1 << 4) << 16)   # __BLK_TA_QUEUE with its category BLK_TC_QUEUE
# rwbs letters -> categories (BLK_TC_READ, _WRITE, _FLUSH, _SYNC, _DISCARD), shifted as blktrace stores them
TC = {"R": 1 << 16, "W": 2 << 16, "F": 4 << 16, "S": 8 << 16, "D": (1 << 13) << 16}
EVENT = re.compile(r"\s(\d+)\.(\d+): block_bio_queue: (\d+),(\d+) ([A-Z]+) (\d+) \+ (\d+) \[([^\]]*)\]")


def tracefs_unavailable():
    """Why block events cannot be captured here, or "" when they can."""
    if os.geteuid() != 0:
        return "capturing block events needs root"
    if not shutil.which("losetup"):
        return "losetup is not installed"
    if not os.path.isdir(TRACEFS + "/instances"):
        subprocess.run(["mount", "-t", "tracefs", "none", TRACEFS], capture_output=True)
    if not os.path.isdir(TRACEFS + "/events/block/block_bio_queue"):
        return "tracefs with the block tracepoints is not available"
    return ""


class TraceInstance:
    """A private tracefs instance recording block_bio_queue for one device."""

    def __init__(self, major, minor):
        self.dir = "%s/instances/ioplan-test-%d" % (TRACEFS, os.getpid())
        os.mkdir(self.dir)
        self.write("buffer_size_kb", "8192")
        ev = self.dir + "/events/block/block_bio_queue/"
        self.write(ev + "filter", "dev == %d" % ((major << 20) | minor), absolute=True)
        self.write(ev + "enable", "1", absolute=True)

    def write(self, name, text, absolute=False):
        with open(name if absolute else self.dir + "/" + name, "w") as f:
            f.write(text)

    def events(self):
        self.write("tracing_on", "0")
        with open(self.dir + "/trace") as f:
            return [m.groups() for m in map(EVENT.search, f) if m]

    def close(self):
        self.write("tracing_on", "0")
        self.write("events/block/block_bio_queue/enable", "0")
        os.rmdir(self.dir)


def blk_io_trace(seq, time_ns, sector, nbytes, action, pid, dev):
    """One record of blktrace's binary format (little-endian here), version 7."""
    return struct.pack("<IIQQIIIIIHH", 0x65617407, seq, time_ns, sector, nbytes, action, pid,
                       dev, 0, 0, 0)


def to_blktrace(events):
    """blktrace records for tracepoint events, time relative to the first."""
    t0 = None
    out = b""
    for seq, (sec, usec, major, minor, rwbs, sector, nsect, _comm) in enumerate(events):
        t = int(sec) * 10**9 + int(usec.ljust(9, "0")[:9])
        t0 = t if t0 is None else t0
        action = BLK_TA_QUEUE
        for c in rwbs:
            action |= TC.get(c, 0)
        out += blk_io_trace(seq, t - t0, int(sector), int(nsect) * 512, action, 1000,
                            (int(major) << 20) | int(minor))
    return out


class CapturedTrace(TmpDirCase):
    def setUp(self):
        super().setUp()
        why = tracefs_unavailable()
        if why:
            self.skipTest(why)
        self.dev = loop_device(self)
        with open("/sys/block/%s/dev" % os.path.basename(self.dev)) as f:
            self.major, self.minor = map(int, f.read().split(":"))

    def capture(self):
        """Runs a 1 MiB 4 KiB randrw job on the loop device under the trace."""
        inst = TraceInstance(self.major, self.minor)
        try:
            inst.write("tracing_on", "1")
            p = run(["--name=cap", "--filename=" + self.dev, "--allow_device_write=" + self.dev,
                     "--rw=randrw", "--bs=4k", "--size=1m", "--direct=1", "--output-format=json"])
            events = inst.events()
        finally:
            inst.close()
        self.assertEqual(p.returncode, 0, p.stderr)
        job = json.loads(p.stdout)["jobs"][0]
        return [e for e in events if e[7].startswith("ioplan")], job

    def test_capture_on_loop_device_replays_in_ioplan_and_fio(self):
        events, traced = self.capture()
        self.assertEqual(len(events), 256, "one queue event per 4 KiB I/O of the traced job")
        dirs = collections.Counter("W" if "W" in e[4] else "R" for e in events)
        self.assertEqual((dirs["R"], dirs["W"]), (traced["read"]["total_ios"], traced["write"]["total_ios"]))
        trace = self.tmp / "cap.bin"
        trace.write_bytes(to_blktrace(events))

        if shutil.which("blkparse"):
            with open(trace, "rb") as f:
                bp = subprocess.run(["blkparse", "-i", "-"], stdin=f, capture_output=True, text=True)
            self.assertEqual(bp.returncode, 0, bp.stderr)
            self.assertEqual(len(re.findall(r"^\s*\d+,\d+\s+\d+\s+\d+\s+[\d.]+\s+\d+\s+Q\s", bp.stdout, re.M)), 256)

        target = self.tmp / "target"    # laid out by ioplan, so the replay may write it
        mk = run(["--name=mk", "--filename=" + str(target), "--size=32m", "--create_only=1", "--output=/dev/null"])
        self.assertEqual(mk.returncode, 0, mk.stderr)
        r = run(["--name=rp", "--read_iolog=" + str(trace), "--replay_redirect=" + str(target),
                 "--output-format=json"], cwd=self.tmp)
        self.assertEqual(r.returncode, 0, r.stderr)
        doc = json.loads(r.stdout)
        job, rp = doc["jobs"][0], doc["ioplan"]["jobs"][0]["replay"]
        self.assertEqual(rp["ios"], 256)
        self.assertEqual((job["read"]["total_ios"], job["write"]["total_ios"]), (dirs["R"], dirs["W"]))
        self.assertEqual(job["read"]["io_bytes"] + job["write"]["io_bytes"], 1 << 20)
        self.assertIn("late_pct", json.dumps(rp))
        if FIO:
            f = run_fio(["--name=rp", "--read_iolog=" + str(trace), "--replay_redirect=" + str(target),
                         "--output-format=json"], cwd=self.tmp)
            self.assertEqual(f.returncode, 0, f.stderr)
            fj = json.loads(f.stdout)["jobs"][0]
            self.assertEqual((fj["read"]["total_ios"], fj["write"]["total_ios"]), (dirs["R"], dirs["W"]))
            self.assertEqual(fj["read"]["io_bytes"] + fj["write"]["io_bytes"], 1 << 20)


if __name__ == "__main__":
    unittest.main()
