"""tests/e2e/test_run_environment.py - ioplan.environment against what the machine really has.

Every fact the JSON report records about the machine is compared with /proc,
/sys and the tools that read them the same way (systemd-detect-virt), and the
stack under a target is checked on a real loop device holding a mounted ext4
image: the file's ext4, the loop device, the backing file's own file system,
down to the disk under it.
"""
import json
import mmap
import os
import pathlib
import shutil
import subprocess
import threading
import unittest

from common import TmpDirCase, loop_device, run


def ioplan_of(case, *args):
    p = run(["--name=env", "--size=1m", "--bs=4k", "--output-format=json", *args])
    case.assertEqual(p.returncode, 0, p.stderr)
    io = json.loads(p.stdout)["ioplan"]
    case.assertRegex(io["plan_hash"], r"^[0-9a-f]{64}$")
    return io


def env_of(case, *args):
    return ioplan_of(case, *args)["environment"]


def sysfs(path):
    try:
        return pathlib.Path(path).read_text().strip()
    except OSError:
        return None


def whole_disk_of(path):
    """The disk under a path as sysfs has it (major:minor of the file system, one partition up)."""
    st = os.stat(path)
    real = os.path.realpath(f"/sys/dev/block/{os.major(st.st_dev)}:{os.minor(st.st_dev)}")
    if os.path.exists(real + "/partition"):
        real = os.path.dirname(real)
    return os.path.basename(real)


class HostFacts(TmpDirCase):
    def test_host_matches_proc_and_sys(self):
        env = env_of(self, f"--filename={self.tmp / 'f'}", "--rw=read")
        cpus = [d for d in os.listdir("/sys/devices/system/cpu")
                if d[3:].isdigit() and os.path.exists(f"/sys/devices/system/cpu/{d}/topology/core_id")]
        self.assertEqual(env["cpu"]["threads"], len(cpus))
        pkgs = {sysfs(f"/sys/devices/system/cpu/{c}/topology/physical_package_id") for c in cpus}
        self.assertEqual(env["cpu"]["sockets"], len(pkgs))
        with open("/proc/cpuinfo") as f:
            models = [l.split(":", 1)[1].strip() for l in f if l.startswith("model name")]
        if models:
            self.assertEqual(env["cpu"]["model"], models[0])
        with open("/proc/meminfo") as f:
            kib = next(int(l.split()[1]) for l in f if l.startswith("MemTotal:"))
        self.assertEqual(env["memory_bytes"], kib * 1024)
        self.assertEqual(env["kernel"], f"Linux {os.uname().release}")
        osr = dict(l.rstrip("\n").split("=", 1) for l in open("/etc/os-release") if "=" in l)
        self.assertEqual(env["distribution"]["id"], osr["ID"].strip('"'))
        self.assertEqual(env["distribution"]["pretty_name"], osr["PRETTY_NAME"].strip('"'))

    def test_virtualization_as_systemd_detect_virt_says(self):
        if not shutil.which("systemd-detect-virt"):
            self.skipTest("systemd-detect-virt is not installed")
        env = env_of(self, f"--filename={self.tmp / 'f'}", "--rw=read")

        def sdv(*a):
            return subprocess.run(["systemd-detect-virt", *a], capture_output=True, text=True).stdout.strip()
        self.assertEqual(env["virtualization"]["type"], sdv())
        self.assertEqual(env["virtualization"]["vm"], sdv("--vm"))
        self.assertEqual(env["virtualization"]["container"], sdv("--container"))

    def test_unreadable_dmi_is_absent_not_guessed(self):
        env = env_of(self, f"--filename={self.tmp / 'f'}", "--rw=read")
        for key, name in (("vendor", "sys_vendor"), ("product", "product_name")):
            value = sysfs(f"/sys/class/dmi/id/{name}")
            if value:
                self.assertEqual(env["system"][key], value)
            else:
                self.assertNotIn(key, env["system"])
        if sysfs("/sys/class/dmi/id/sys_vendor") != "Amazon EC2":
            self.assertNotIn("instance_type", env["system"])


class Stacks(TmpDirCase):
    def setUp(self):
        super().setUp()
        self.mnt = self.tmp / "mnt"
        self.mnt.mkdir()

    def tearDown(self):
        self.doCleanups()  # unmount and detach first: the temporary directory holds the mount
        super().tearDown()

    def mount_ext4_on_loop(self):
        dev = loop_device(self, 64 << 20)
        mk = subprocess.run(["mkfs.ext4", "-q", "-F", dev], capture_output=True, text=True)
        if mk.returncode:
            self.skipTest("mkfs.ext4: " + mk.stderr.strip())
        m = subprocess.run(["mount", "-o", "noatime", dev, str(self.mnt)], capture_output=True, text=True)
        if m.returncode:
            self.skipTest("mount: " + m.stderr.strip())
        self.addCleanup(subprocess.run, ["umount", str(self.mnt)])
        return os.path.basename(dev)

    def test_file_on_ext4_on_loop_on_a_file(self):
        loop = self.mount_ext4_on_loop()
        env = env_of(self, f"--filename={self.mnt / 'data'}", "--rw=write")
        self.assertEqual(len(env["targets"]), 1)
        stack = env["targets"][0]["stack"]
        top = stack[0]
        self.assertEqual((top["kind"], top["type"], top["mount_point"]), ("filesystem", "ext4", str(self.mnt)))
        self.assertIn("noatime", top["options"].split(","))
        self.assertEqual((stack[1]["kind"], stack[1]["name"], stack[1]["depth"]), ("loop", loop, 1))
        self.assertEqual(stack[1]["backing_file"], str(self.tmp / "disk.img"))
        # The backing file's own file system, as /proc/self/mountinfo has it, then its disk.
        below = stack[2]
        self.assertEqual(below["kind"], "filesystem")
        self.assertEqual(below["depth"], 2)
        fs = subprocess.run(["findmnt", "-n", "-o", "FSTYPE,TARGET", "-T", str(self.tmp)],
                            capture_output=True, text=True).stdout.split()
        self.assertEqual([below["type"], below["mount_point"]], fs)
        disk = whole_disk_of(self.tmp)
        self.assertEqual(stack[-1]["kind"], "disk")
        self.assertEqual(stack[-1]["name"], disk)
        self.check_disk(env, disk)

    def check_disk(self, env, name):
        d = next(d for d in env["disks"] if d["name"] == name)
        q = f"/sys/block/{name}/queue"
        self.assertEqual(d["logical_block_size"], int(sysfs(q + "/logical_block_size")))
        self.assertEqual(d["physical_block_size"], int(sysfs(q + "/physical_block_size")))
        self.assertEqual(d["rotational"], sysfs(q + "/rotational") == "1")
        self.assertEqual(d["nr_requests"], int(sysfs(q + "/nr_requests")))
        self.assertEqual(d["write_cache"], sysfs(q + "/write_cache"))
        sched = sysfs(q + "/scheduler")
        self.assertEqual(d["scheduler"], sched[sched.find("[") + 1:sched.find("]")] if "[" in sched else sched)
        self.assertEqual(d["size_bytes"], int(sysfs(f"/sys/block/{name}/size")) * 512)
        for key, f in (("model", "device/model"), ("firmware", "device/firmware_rev")):
            if sysfs(f"/sys/block/{name}/{f}") is None and key == "firmware":
                f = "device/rev"
            value = sysfs(f"/sys/block/{name}/{f}")
            if value:
                self.assertEqual(d[key], value)
            else:
                self.assertNotIn(key, d)

    def test_block_device_target_starts_at_the_device(self):
        dev = loop_device(self, 16 << 20)
        env = env_of(self, f"--filename={dev}", "--rw=read", "--direct=1")
        stack = env["targets"][0]["stack"]
        self.assertEqual((stack[0]["kind"], stack[0]["name"]), ("loop", os.path.basename(dev)))
        self.assertEqual(stack[1]["kind"], "filesystem")

    def test_tmpfs_has_no_device_below(self):
        m = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", str(self.mnt)],
                           capture_output=True, text=True)
        if m.returncode:
            self.skipTest("mount: " + m.stderr.strip())
        self.addCleanup(subprocess.run, ["umount", str(self.mnt)])
        env = env_of(self, f"--filename={self.mnt / 'f'}", "--rw=read")
        self.assertEqual([(l["kind"], l["type"]) for l in env["targets"][0]["stack"]], [("filesystem", "tmpfs")])
        self.assertEqual(env["disks"], [])

    def test_other_io_on_the_disk_is_seen(self):
        """A rate-limited run while this test writes with O_DIRECT beside it on the same disk."""
        disk = whole_disk_of(self.tmp)
        done, writing = threading.Event(), threading.Event()

        def writer():
            fd = os.open(self.tmp / "other", os.O_CREAT | os.O_WRONLY | os.O_DIRECT)
            m = mmap.mmap(-1, 1 << 20)  # page-aligned, as O_DIRECT needs
            try:
                while not done.is_set():
                    os.pwrite(fd, m, 0)
                    writing.set()
            finally:
                os.close(fd)
        env_first = env_of(self, f"--filename={self.tmp / 'f'}", "--rw=read", "--runtime=0")
        self.assertTrue(any(d["name"] == disk for d in env_first["disks"]))
        t = threading.Thread(target=writer)
        t.start()
        try:
            # The run starts once the writer is writing (a state, with a
            # deadline) and lasts 0.8 s of rate-limited reads: however busy
            # the machine, the writer's 1 MiB writes overlap it.
            self.assertTrue(writing.wait(30))
            io = ioplan_of(self, f"--filename={self.tmp / 'f'}", "--rw=read", "--rate_iops=20",
                           "--io_size=64k", "--direct=1")
        finally:
            done.set()
            t.join()
        d = next(d for d in io["environment"]["disks"] if d["name"] == disk)
        run = d["during_run"]
        self.assertTrue(run["other_io"], run)
        self.assertGreaterEqual(run["other_bytes"], 1 << 20)
        self.assertEqual(run["run_bytes"], 64 << 10)
        # The report's caveat is this same fact, said of this disk.
        caveats = [m["text"] for m in io["messages"] if m.get("code") == "other-io"]
        self.assertTrue(any(c.startswith(f"disk {disk} moved") for c in caveats), io["messages"])


if __name__ == "__main__":
    unittest.main()
