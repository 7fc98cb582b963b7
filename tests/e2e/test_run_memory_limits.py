"""tests/e2e/test_run_memory_limits.py - runs under a limit on memory.

Under an address-space limit (ulimit -v, RLIMIT_AS) a run either runs or fails
with an error that says what it could not allocate, exit 1 or 2: never a
signal, a hang or a silent exit.  Release build only: a sanitizer runtime
reserves terabytes of address space, so no RLIMIT_AS lets it start (this module
is not in the Makefile's sanitized list for that reason).
"""
import json
import os
import resource
import shutil
import subprocess
import unittest

from common import BIN, VARIANT, TmpDirCase

RELEASE_ONLY = unittest.skipIf(VARIANT != "release",
                               "a sanitizer reserves terabytes of address space: no RLIMIT_AS lets it start")
PRLIMIT = shutil.which("prlimit")


def run_limited(args, cwd, kib):
    """ioplan with args under an address-space limit of kib KiB (soft and hard).  Set by
    prlimit(1) (util-linux) where there is one: a preexec_fn makes Python fork itself
    whole instead of vfork, about 7 ms of CPU more a run, and the sweeps make hundreds."""
    lim = kib << 10
    if PRLIMIT:
        return subprocess.run([PRLIMIT, f"--as={lim}", BIN, *args], cwd=cwd, capture_output=True, text=True,
                              timeout=60)
    return subprocess.run([BIN, *args], cwd=cwd, capture_output=True, text=True, timeout=60,
                          preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (lim, lim)))


@RELEASE_ONLY
class AddressSpaceLimits(TmpDirCase):
    """Under every address-space limit (ulimit -v) from one the loader cannot start in to
    one the run fits in, a run either runs or fails with an error on stderr and exit 1
    or 2: never a signal, a hang or a silent exit.  Each limit fails a different
    allocation: before, a calloc that failed as a segment started was a SIGSEGV, a
    bad_alloc in a static initializer or a json destructor an abort, and a log writer
    that could not start an exit 1 with no word."""
    SHAPES = {   # name: (arguments, the highest limit swept in MiB: it runs there)
        "psync": (["--name=m", "--filename=big", "--rw=randread", "--bsrange=1-2", "--number_ios=64",
                   "--norandommap=1", "--output-format=json"], 52),
        "io_uring, logs": (["--name=u", "--filename=f", "--size=4m", "--rw=randrw", "--ioengine=io_uring",
                            "--iodepth=8", "--numjobs=4", "--write_bw_log=u", "--write_lat_log=u",
                            "--log_avg_msec=10", "--group_reporting", "--number_ios=64"], 84),
        "verify, two groups": (["--output-format=json+,terse", "--name=a", "--filename=f", "--size=1m",
                                "--rw=write", "--verify=crc32c", "--name=b", "--stonewall", "--filename=f",
                                "--size=1m", "--rw=read", "--ioengine=libaio", "--iodepth=4"], 52),
    }

    def sweep(self, args, lo_mib, hi_mib, step_kib):
        seen, fits = {}, 0
        for kib in range(lo_mib << 10, hi_mib << 10, step_kib):
            # Past the limit the run first fits in, each higher one only ran it again: a
            # quarter of the runs (psync fits from about 36 MiB, the sweep's end is 52).
            if fits == 4:
                break
            p = run_limited(args, self.tmp, kib)
            what = f"under {kib} KiB: exit {p.returncode}, stderr {p.stderr[-600:]!r}"
            if p.returncode == 127:    # the dynamic loader's own refusal, before any of ioplan runs
                self.assertRegex(p.stderr, "error while loading shared libraries|cannot allocate TLS data", what)
            elif p.returncode:
                self.assertIn(p.returncode, (1, 2), what)
                # libnuma's constructor, before main, exits with its own words.
                self.assertRegex(p.stderr, r"(?m)^ioplan: error: |^Out of memory allocating bitmask", what)
            seen.setdefault(p.returncode, kib)
            fits = fits + 1 if p.returncode == 0 else 0
        return seen

    def test_every_limit_gives_the_run_or_an_error(self):
        (self.tmp / "big").write_bytes(b"")
        os.truncate(self.tmp / "big", 1 << 30)
        # Steps of a few hundred KiB: 3 168 runs at 16-64 KiB found nothing these miss.
        for name, (args, hi) in self.SHAPES.items():
            with self.subTest(name):
                seen = self.sweep(args, 12, hi, {"psync": 256, "io_uring, logs": 768}.get(name, 512))
                # The sweep spans the limits that matter: from failing to running.
                self.assertIn(0, seen, seen)
                self.assertTrue({1, 2} & set(seen), seen)

    def test_the_limits_just_above_what_the_loader_needs_give_an_error(self):
        # Just above the limit the dynamic loader needs, the static initializers find almost
        # nothing left: the option table's rows (built on the stack) took the last of it, its
        # bad_alloc unwound into a stack that could not grow, and the run died of SIGSEGV
        # (10 runs in 80 at one limit; the 768 KiB steps above met it now and then).  Where
        # that edge lies moves with every build, so it is found first, then swept finely.
        args = self.SHAPES["io_uring, logs"][0]

        def rc(kib):
            return run_limited(args, self.tmp, kib)
        lo, hi = 4 << 10, 84 << 10  # KiB: the loader fails at lo, the run gets past it at hi
        while hi - lo > 16:
            mid = (lo + hi) // 2
            lo, hi = (mid, hi) if rc(mid).returncode == 127 else (lo, mid)
        for kib in range(hi - 256, hi + 1536, 4):
            p = rc(kib)
            what = f"under {kib} KiB: exit {p.returncode}, stderr {p.stderr[-300:]!r}"
            self.assertIn(p.returncode, (0, 1, 2, 127), what)
            if p.returncode in (1, 2):
                self.assertRegex(p.stderr, r"(?m)^ioplan: error: |^Out of memory allocating bitmask", what)

    def test_a_failed_allocation_names_what_it_allocated(self):
        def limit():
            resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
        proc = subprocess.run([BIN, "--name=j", "--filename=/dev/zero", "--rw=read", "--iodepth=2048", "--bs=1m",
                               "--size=64m", "--ioengine=libaio", "--output-format=json"],
                              capture_output=True, text=True, timeout=60, preexec_fn=limit)
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertIn("error: job 'j': /dev/zero: allocating 2048 I/O buffers of 1048576 bytes: "
                      "Cannot allocate memory (errno 12)", proc.stderr)
        self.assertEqual(json.loads(proc.stdout)["jobs"][0]["error"], 12)


if __name__ == "__main__":
    unittest.main()


SETPRIV = shutil.which("setpriv")


@unittest.skipUnless(SETPRIV and PRLIMIT, "setpriv and prlimit (util-linux) are not installed")
class LockedMemoryLimit(TmpDirCase):
    """io_uring's fixedbufs=1 registers the buffers against the locked-memory limit (ulimit
    -l): past it the registration fails with ENOMEM, which was all the run said ("io_uring
    init (iodepth=32): Cannot allocate memory", exit 1, as fio 3.33's).  Run without
    CAP_IPC_LOCK (setpriv drops it from the bounding set, so even root is held to the limit)."""

    def run_held(self, *args):
        cmd = [SETPRIV, "--bounding-set=-ipc_lock", PRLIMIT, "--memlock=65536", BIN, "--name=u",
               "--ioengine=io_uring", "--fixedbufs=1", "--size=1m", "--output-format=json", *args]
        return subprocess.run(cmd, cwd=self.tmp, capture_output=True, text=True, timeout=60)

    def test_buffers_past_the_limit_are_refused_before_the_run_saying_so(self):
        p = self.run_held("--iodepth=32", "--bs=1m", "--numjobs=2")
        if "ioengine=io_uring is unavailable" in p.stderr:
            self.skipTest(p.stderr.strip())
        self.assertEqual((p.returncode, p.stdout), (2, ""), p.stderr)
        self.assertIn("job 'u': fixedbufs=1 registers 64 MiB of buffers with io_uring (iodepth=32 x bs=1 MiB for "
                      "2 threads), more than the locked-memory limit of 64 KiB (ulimit -l)", p.stderr)
        self.assertEqual(list(self.tmp.iterdir()), [], "nothing is laid out for a refused run")

    def test_buffers_within_the_limit_run(self):
        p = self.run_held("--iodepth=2", "--bs=16k")
        if "ioengine=io_uring is unavailable" in p.stderr:
            self.skipTest(p.stderr.strip())
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(json.loads(p.stdout)["jobs"][0]["read"]["io_bytes"], 1 << 20)
