"""tests/e2e/test_run_numa_cpus.py - where a job's threads run: cpus_allowed, cpumask, numa_cpu_nodes.

The property is the worker thread's CPU affinity, read from outside while it
runs (/proc/PID/task/TID/status, Cpus_allowed_list): the main thread keeps
every CPU, a worker has the job's.  numa_cpu_nodes narrows to the nodes'
CPUs (libnuma) within cpus_allowed; a node the machine lacks is refused
before any I/O, naming the option, as fio refuses it, and so is a CPU it lacks.
"""
import glob
import os
import signal
import subprocess
import unittest

from common import BIN, TmpDirCase, run, wait_for_stderr

NODES = sorted(int(p.rsplit("node", 1)[1]) for p in glob.glob("/sys/devices/system/node/node[0-9]*"))


def worker_cpus(opts):
    """The Cpus_allowed_list of every thread but the main one, seen once the job
    runs (its worker pins itself before its first I/O); SIGINT then ends it."""
    p = subprocess.Popen([BIN, "--name=n", "--ioengine=null", "--size=1g", "--time_based",
                          "--runtime=60", "--output=/dev/null", "--eta=always", *opts],
                         stderr=subprocess.PIPE)
    try:
        wait_for_stderr(p, b"[R(1)]")
        return thread_cpus(p.pid)
    finally:
        p.send_signal(signal.SIGINT)
        p.communicate(timeout=30)


def thread_cpus(pid):
    """{(thread name, Cpus_allowed_list)} of pid's threads but its main one."""
    seen = set()
    for st in glob.glob("/proc/%d/task/*/status" % pid):
        if int(st.split("/")[4]) == pid:
            continue
        try:
            with open(st) as f:
                text = f.read()
        except OSError:
            continue
        fields = dict(line.split(":", 1) for line in text.splitlines() if ":" in line)
        seen.add((fields["Name"].strip(), fields["Cpus_allowed_list"].strip()))
    return seen


@unittest.skipUnless(len(os.sched_getaffinity(0)) >= 2, "needs two CPUs")
class Affinity(TmpDirCase):
    def test_cpumask_is_a_bit_mask(self):
        self.assertIn("1", {c for _, c in worker_cpus(["--cpumask=0x2"])})

    def test_split_counts_the_threads_of_every_job(self):
        # fio's split takes the k-th allowed CPU for its k-th thread across the whole run
        # (td->thread_number - 1), so two one-thread jobs splitting CPUs 0-1 run one on
        # each; counted per job, both ran on CPU 0.
        self.write("s.fio", "[global]\nioengine=null\nsize=1g\ntime_based\nruntime=60\n"
                            "cpus_allowed=0-1\ncpus_allowed_policy=split\n[a]\n[b]\n")
        p = subprocess.Popen([BIN, str(self.tmp / "s.fio"), "--output=/dev/null", "--eta=always"],
                             stderr=subprocess.PIPE)
        try:
            wait_for_stderr(p, b"[R(2)]")
            seen = sorted(c for _, c in thread_cpus(p.pid) if c in ("0", "1"))
        finally:
            p.send_signal(signal.SIGINT)
            p.communicate(timeout=30)
        self.assertEqual(seen, ["0", "1"])

    @unittest.skipUnless(NODES, "no NUMA node in sysfs")
    def test_numa_cpu_nodes_within_cpus_allowed(self):
        seen = {c for _, c in worker_cpus(["--numa_cpu_nodes=%d" % NODES[0], "--cpus_allowed=1",
                                           "--numa_mem_policy=bind:%d" % NODES[0]])}
        # (the other threads, the main one's helpers, keep every CPU.)
        self.assertIn("1", seen)

    def test_missing_node_is_refused_before_any_io(self):
        # fio refuses the node while parsing; ioplan in its preflight: an earlier
        # job with a node that exists does not run either (fio's examples/numa.fio).
        missing = (max(NODES) + 1) if NODES else 1
        for opt in ("numa_cpu_nodes=%d" % missing, "numa_mem_policy=bind:%d" % missing):
            name = opt.split("=")[0]
            self.write("n.fio", "[ok]\nioengine=null\nsize=1m\n[n]\nstonewall\nioengine=null\nsize=1m\n%s\n" % opt)
            p = run([str(self.tmp / "n.fio"), "--output-format=json"])
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertIn("job 'n': %s names node %d" % (name, missing), p.stderr)
            self.assertNotIn('"io_bytes"', p.stdout)

    def test_a_cpu_the_machine_lacks_is_refused_before_any_io(self):
        # fio refuses it while parsing ("CPU 70 too large"); pinned to it, a thread would
        # run on every CPU instead, as ioplan's did.
        past = os.cpu_count()
        for opt in ("cpus_allowed=0,%d" % past, "verify_async_cpus=%d" % past):
            name = opt.split("=")[0]
            self.write("c.fio", "[ok]\nioengine=null\nsize=1m\n[c]\nstonewall\nioengine=null\n"
                                "size=1m\nrw=write\nverify=md5\nverify_async=1\n%s\n" % opt)
            p = run([str(self.tmp / "c.fio"), "--output-format=json"])
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertIn("job 'c': %s names CPU %d, but this machine's CPUs are 0-%d"
                          % (name, past, past - 1), p.stderr)
            self.assertNotIn('"io_bytes"', p.stdout)

    def test_cpus_past_63_are_read_and_shown(self):
        # A machine of 128 CPUs names them all (cpus_allowed=0-127); the plan keeps each,
        # to glibc's 1024.  --showplan keeps its mask of CPUs 0-63 and lists the rest.
        p = run(["--name=n", "--ioengine=null", "--size=1m", "--cpus_allowed=0,62-65,100-131,1023",
                 "--showplan"])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn('"cpus_allowed_mask": %d,' % (1 | 3 << 62), p.stdout)
        self.assertIn('"cpus_allowed_above_63": "64-65,100-131,1023"', p.stdout)
        p = run(["--name=n", "--ioengine=null", "--size=1m", "--cpus_allowed=1024", "--parse-only"])
        self.assertEqual(p.returncode, 2)
        self.assertIn("CPU range '1024' is not within 0..1023", p.stderr)

    def test_a_cpu_list_spelled_as_a_mask_points_to_cpumask(self):
        # fio reads cpus_allowed=0x2 with atoi (CPU 0); ioplan read it as hex and ran on CPU 2
        # (or refused it on a 2-CPU machine as a CPU it lacks) and cpus_allowed=0x1 on CPU 1.
        for opt, col in (("cpus_allowed=0x1", 14), ("verify_async_cpus=1,0x2", 19),
                         ("cpus_allowed=0-0x1", 14)):
            with self.subTest(opt=opt):
                self.write("c.fio", "[c]\nioengine=null\nsize=1m\n%s\n" % opt)
                p = run([str(self.tmp / "c.fio"), "--parse-only"])
                self.assertEqual(p.returncode, 2, p.stderr)
                self.assertIn("c.fio:4:%d: error:" % col, p.stderr)
                self.assertIn("a mask's spelling", p.stderr)
                self.assertIn("write cpumask=0x", p.stderr)
        self.assertIn("1", {c for _, c in worker_cpus(["--cpus_allowed=1"])})

    def test_bad_policy_is_positioned(self):
        for text, col in (("numa_mem_policy=bind", 21), ("numa_mem_policy=often:0", 17),
                          ("numa_mem_policy=prefer:0-1", 24)):
            self.write("n.fio", "[n]\nsize=1m\n%s\n" % text)
            p = run([str(self.tmp / "n.fio"), "--parse-only"])
            self.assertEqual(p.returncode, 2, text)
            self.assertIn("n.fio:3:%d: error:" % col, p.stderr, text)


if __name__ == "__main__":
    unittest.main()
