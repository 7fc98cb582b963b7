// tests/engine/test_safety.cpp - device-write rules against the live system:
// the root filesystem's device, and loop devices that are mounted, partitioned,
// used as swap or held by device-mapper (skipped when loop devices are missing).
#include <doctest/doctest.h>

#include <cerrno>
#include <cstdio>
#include <fcntl.h>
#include <cstdlib>
#include <fstream>
#include <string>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <vector>

extern "C" {
#include "engine/safety/safety.h"
}

namespace {

std::string sh(const std::string &cmd)
{
    std::string out;
    FILE *p = popen(("(" + cmd + ") 2>/dev/null").c_str(), "r");
    if (!p)
        return out;
    char buf[256];
    while (fgets(buf, sizeof buf, p))
        out += buf;
    pclose(p);
    while (!out.empty() && out.back() == '\n')
        out.pop_back();
    return out;
}

dev_t rdev_of(const std::string &path)
{
    struct stat sb {};
    REQUIRE(stat(path.c_str(), &sb) == 0);
    return sb.st_rdev;
}

// A loop device over a 64 MiB file with an MBR of two partitions, torn down at scope exit.
struct loop_disk {
    std::string img, dev;

    loop_disk()
    {
        char tmpl[] = "/tmp/ioplan-safety-XXXXXX";
        int fd = mkstemp(tmpl);
        REQUIRE(fd >= 0);
        img = tmpl;
        REQUIRE(ftruncate(fd, 64 << 20) == 0);
        unsigned char mbr[512] = {};
        auto entry = [&](int i, uint32_t lba, uint32_t sectors) {
            unsigned char *e = mbr + 446 + 16 * i;
            e[4] = 0x83;
            for (int b = 0; b < 4; b++) {
                e[8 + b] = (unsigned char)(lba >> (8 * b));
                e[12 + b] = (unsigned char)(sectors >> (8 * b));
            }
        };
        entry(0, 2048, 40960);
        entry(1, 43008, 40960);
        mbr[510] = 0x55;
        mbr[511] = 0xaa;
        REQUIRE(pwrite(fd, mbr, sizeof mbr, 0) == 512);
        close(fd);
        dev = sh("losetup -f --show -P " + img);
    }
    ~loop_disk()
    {
        if (!dev.empty())
            sh("losetup -d " + dev);
        unlink(img.c_str());
    }
    bool ok() const { return !dev.empty(); }
    // Kernels without MBR support show no partitions; those checks are skipped then.
    bool partitioned() const { return access((dev + "p2").c_str(), F_OK) == 0; }
};

plan plan_allowing(const char *dev)
{
    plan p{};
    p.allow_device_write = const_cast<char *>(dev);
    return p;
}

} // namespace

TEST_CASE("the root filesystem's device is always in use")
{
    struct stat sb {};
    REQUIRE(stat("/", &sb) == 0);
    char why[512] = "";
    // st_dev of / is the mounted device's major:minor, whatever its name.
    CHECK(safety_device_in_use(&safety_system, sb.st_dev, why, sizeof why) == -EBUSY);
    CHECK(std::string(why).find("mounted on /") != std::string::npos);
}

TEST_CASE("loop devices: allow option, mounted partitions, swap and device-mapper holders")
{
    if (geteuid() != 0 || access("/dev/loop-control", F_OK) != 0) {
        MESSAGE("skipped: needs root and loop devices");
        return;
    }
    loop_disk d;
    if (!d.ok()) {
        MESSAGE("skipped: could not set up a partitioned loop device");
        return;
    }
    char why[512] = "";
    plan none = plan_allowing("");
    CHECK(safety_check_device_write(&safety_system, &none, d.dev.c_str(), why, sizeof why) == -EPERM);
    CHECK(std::string(why).find("allow_device_write=" + d.dev) != std::string::npos);
    plan allowed = plan_allowing(d.dev.c_str());
    CHECK(safety_check_device_write(&safety_system, &allowed, d.dev.c_str(), why, sizeof why) == 0);

    std::string mnt = d.img + ".mnt";
    // The whole disk mounted, then (where the kernel reads the MBR) one partition.
    REQUIRE(sh("mkfs.ext4 -q -F " + d.dev + " && mkdir -p " + mnt + " && mount " + d.dev + " " + mnt + " && echo ok") == "ok");
    CHECK(safety_check_device_write(&safety_system, &allowed, d.dev.c_str(), why, sizeof why) == -EBUSY);
    CHECK(std::string(why).find("mounted on " + mnt) != std::string::npos);
    sh("umount " + mnt);
    CHECK(safety_check_device_write(&safety_system, &allowed, d.dev.c_str(), why, sizeof why) == 0);
    if (d.partitioned()) {
        std::string p1 = d.dev + "p1", p2 = d.dev + "p2";
        REQUIRE(sh("mkfs.ext4 -q " + p1 + " && mount " + p1 + " " + mnt + " && echo ok") == "ok");
        CHECK(safety_device_in_use(&safety_system, rdev_of(d.dev), why, sizeof why) == -EBUSY);
        CHECK(safety_device_in_use(&safety_system, rdev_of(p2), why, sizeof why) == 0);
        sh("umount " + mnt);
    } else {
        MESSAGE("partition checks skipped: this kernel shows no partitions on loop devices");
    }
    rmdir(mnt.c_str());
    if (sh("mkswap " + d.dev + " >/dev/null 2>&1 && swapon " + d.dev + " && echo ok") == "ok") {
        CHECK(safety_device_in_use(&safety_system, rdev_of(d.dev), why, sizeof why) == -EBUSY);
        CHECK(std::string(why).find("active swap") != std::string::npos);
        sh("swapoff " + d.dev);
    } else {
        MESSAGE("swap check skipped: swapon refused");
    }
    std::string dm = "ioplan-safety-" + std::to_string(getpid());
    if (sh("echo '0 2048 linear " + d.dev + " 0' | dmsetup create " + dm + " && echo ok") == "ok") {
        CHECK(safety_device_in_use(&safety_system, rdev_of(d.dev), why, sizeof why) == -EBUSY);
        CHECK(std::string(why).find("md, dm or LVM") != std::string::npos);
        sh("dmsetup remove " + dm);
    } else {
        MESSAGE("device-mapper check skipped: dmsetup refused");
    }
    CHECK(safety_device_in_use(&safety_system, rdev_of(d.dev), why, sizeof why) == 0);
}

// Partitions and holders, for kernels that show neither on loop devices: a
// sysfs/proc tree laid out as the kernel does, read by the same code.
TEST_CASE("partitions and holders from a sysfs tree")
{
    char tmpl[] = "/tmp/ioplan-sysfs-XXXXXX";
    REQUIRE(mkdtemp(tmpl));
    std::string root = tmpl;
    auto put = [&](const std::string &rel, const std::string &text) {
        sh("mkdir -p $(dirname " + root + "/" + rel + ")");
        std::ofstream(root + "/" + rel) << text;
    };
    put("sys/devices/virtual/block/sdz/dev", "8:0\n");
    put("sys/devices/virtual/block/sdz/holders/.keep", "");
    put("sys/devices/virtual/block/sdz/sdz1/partition", "1\n");
    put("sys/devices/virtual/block/sdz/sdz1/dev", "8:1\n");
    put("sys/devices/virtual/block/sdz/sdz2/partition", "2\n");
    put("sys/devices/virtual/block/sdz/sdz2/dev", "8:2\n");
    put("sys/devices/virtual/block/sdz/sdz2/holders/dm-3", "");
    put("proc/swaps", "Filename Type Size Used Priority\n");
    put("proc/self/mountinfo", "26 1 254:0 / / rw - ext4 /dev/vda rw\n");
    sh("mkdir -p " + root + "/sys/dev/block && ln -s ../../devices/virtual/block/sdz " + root + "/sys/dev/block/8:0 && "
       "ln -s ../../devices/virtual/block/sdz/sdz1 " + root + "/sys/dev/block/8:1");
    std::string proc = root + "/proc", sys = root + "/sys";
    safety_env env{proc.c_str(), sys.c_str()};
    char why[512] = "";
    CHECK(safety_device_in_use(&env, makedev(8, 0), why, sizeof why) == -EBUSY);
    CHECK(std::string(why) == "sdz2 is in use by dm-3 (md, dm or LVM)");
    CHECK(safety_device_in_use(&env, makedev(8, 1), why, sizeof why) == 0);
    put("proc/self/mountinfo", "41 26 8:1 / /data rw - ext4 /dev/sdz1 rw\n");
    sh("rm -r " + root + "/sys/devices/virtual/block/sdz/sdz2/holders");
    CHECK(safety_device_in_use(&env, makedev(8, 0), why, sizeof why) == -EBUSY);
    CHECK(std::string(why) == "sdz1 holds a filesystem mounted on /data");
    // mountinfo writes a space in a mount point as \040: the message gives the path itself.
    put("proc/self/mountinfo", "41 26 8:1 / /my\\040data rw - ext4 /dev/sdz1 rw\n");
    CHECK(safety_device_in_use(&env, makedev(8, 0), why, sizeof why) == -EBUSY);
    CHECK(std::string(why) == "sdz1 holds a filesystem mounted on /my data");
    sh("rm -r " + root);
}

TEST_CASE("job targets: the devices that store nothing need no allow_device_write, other character devices do")
{
    char why[1024] = "";
    plan none = plan_allowing("");
    for (const char *sink : { "/dev/null", "/dev/zero", "/dev/full" })
        CHECK_MESSAGE(safety_check_device_write(&safety_system, &none, sink, why, sizeof why) == 0, sink);
    CHECK(safety_check_device_write(&safety_system, &none, "/dev/urandom", why, sizeof why) == -EPERM);
    CHECK(std::string(why).find("allow_device_write=/dev/urandom") != std::string::npos);
    CHECK(safety_char_stores_nothing(makedev(1, 3)));
    CHECK_FALSE(safety_char_stores_nothing(makedev(1, 9)));	// /dev/urandom
    CHECK_FALSE(safety_char_stores_nothing(makedev(4, 1)));	// a terminal stores nothing, but shows it
}

TEST_CASE("outputs: null-like devices and pipes pass, other devices and a user's file under a made-up name do not")
{
    char why[1024] = "";
    const unsigned made_up = SAFETY_OUT_DERIVED | SAFETY_OUT_REPLACES;
    CHECK(safety_check_output(&safety_system, "/dev/null", made_up, why, sizeof why) == 0);
    CHECK(safety_check_output(&safety_system, "/dev/full", 0, why, sizeof why) == 0);
    CHECK(safety_check_output(&safety_system, "/dev/kmsg", 0, why, sizeof why) == -EPERM);
    CHECK(std::string(why).find("it is a character device") != std::string::npos);

    char dir[] = "/tmp/ioplan-outputs-XXXXXX";
    REQUIRE(mkdtemp(dir));
    std::string fifo = std::string(dir) + "/fifo", user = std::string(dir) + "/j_bw.1.log";
    REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
    CHECK(safety_check_output(&safety_system, fifo.c_str(), made_up, why, sizeof why) == 0);
    std::ofstream(user) << "the user's\n";
    CHECK(safety_check_output(&safety_system, user.c_str(), 0, why, sizeof why) == 0); // named: the user's call
    CHECK(safety_check_output(&safety_system, user.c_str(), SAFETY_OUT_DERIVED, why, sizeof why) == 0); // appended
    CHECK(safety_check_output(&safety_system, user.c_str(), made_up, why, sizeof why) == -EEXIST);
    CHECK(safety_open_output(&safety_system, user.c_str(), O_TRUNC, made_up, why, sizeof why) == -EEXIST);
    std::ifstream in(user);
    std::string line;
    CHECK((std::getline(in, line) && line == "the user's"));

    // ioplan's own, once marked, is replaced; written again by anyone, it is the user's.
    std::string ours = std::string(dir) + "/ours.log";
    int fd = safety_open_output(&safety_system, ours.c_str(), O_TRUNC, made_up, why, sizeof why);
    REQUIRE(fd >= 0);
    CHECK(write(fd, "x\n", 2) == 2);
    int marked = safety_mark_output(fd);
    close(fd);
    if (marked == 0) {
        CHECK(safety_check_output(&safety_system, ours.c_str(), made_up, why, sizeof why) == 0);
        std::ofstream(ours, std::ios::app) << "edited\n";
        CHECK(safety_check_output(&safety_system, ours.c_str(), made_up, why, sizeof why) == -EEXIST);
    }
    unlink(ours.c_str());
    unlink(user.c_str());
    unlink(fifo.c_str());
    rmdir(dir);
}

// A table of busy files is read before the files it judges (verify dumps use
// one for a second).  A loop device detached meanwhile, its backing file
// deleted, freed an inode number the file system gives the next file made: that
// file is not the loop's.  (It was refused as "the backing file of /dev/loopN":
// 4 of 64 verify dumps failed with EBUSY while another test let its loop go.)
TEST_CASE("busy files: a file that took the inode of a detached loop device's deleted backing file is not busy")
{
    if (geteuid() != 0 || access("/dev/loop-control", F_OK) != 0) {
        MESSAGE("skipped: needs root and loop devices");
        return;
    }
    char dir[] = "/tmp/ioplan-safety-XXXXXX";
    REQUIRE(mkdtemp(dir) != nullptr);
    std::string back = std::string(dir) + "/back";
    int fd = open(back.c_str(), O_CREAT | O_WRONLY, 0644);
    REQUIRE(fd >= 0);
    REQUIRE(ftruncate(fd, 1 << 20) == 0);
    close(fd);
    struct stat bs {};
    REQUIRE(stat(back.c_str(), &bs) == 0);
    std::string dev = sh("losetup -f --show " + back);
    if (dev.empty()) {
        MESSAGE("skipped: losetup refused");
        unlink(back.c_str());
        rmdir(dir);
        return;
    }
    safety_files *sf = nullptr;
    REQUIRE(safety_files_load(&safety_system, &sf) == 0);
    char why[512] = "";
    CHECK(safety_files_check(sf, back.c_str(), &bs, why, sizeof why) == -EBUSY);

    // Detached (a holder such as udev's probe can defer it: wait for the kernel to let go).
    sh("losetup -d " + dev);
    std::string attr = "/sys/block/" + dev.substr(dev.rfind('/') + 1) + "/loop/backing_file";
    for (int i = 0; i < 3000 && !sh("cat " + attr).empty(); i++)
        usleep(10000);
    unlink(back.c_str());
    std::vector<std::string> made;
    struct stat ns {};
    bool reused = false;
    for (int i = 0; i < 1000 && !reused; i++) {
        made.push_back(std::string(dir) + "/f" + std::to_string(i));
        fd = open(made.back().c_str(), O_CREAT | O_WRONLY, 0644);
        REQUIRE(fd >= 0);
        REQUIRE(fstat(fd, &ns) == 0);
        close(fd);
        reused = ns.st_dev == bs.st_dev && ns.st_ino == bs.st_ino;
    }
    if (reused)
        CHECK_MESSAGE(safety_files_check(sf, made.back().c_str(), &ns, why, sizeof why) == 0, why);
    else
        MESSAGE("skipped: the file system gave the old inode number to none of 1000 new files");
    safety_files_free(sf);
    for (const auto &m : made)
        unlink(m.c_str());
    rmdir(dir);
}
