// tests/engine/test_preflight.cpp - preflight findings on real filesystems and
// devices: missing directory, no size, no space, O_DIRECT refused (ramfs),
// block-device writes refused, a range past a device's end, cached reads.
#include <doctest/doctest.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "parser/ini.hpp"
#include "parser/parser.hpp"

extern "C" {
#include "engine/dioalign.h"
#include "engine/safety/preflight.h"
}

namespace {

struct tmpdir {
    std::string path;
    tmpdir()
    {
        char t[] = "/tmp/ioplan-pf-XXXXXX";
        REQUIRE(mkdtemp(t));
        path = t;
    }
    ~tmpdir() { (void)system(("rm -rf " + path).c_str()); }
};

parser::plan_ptr plan_of(const std::string &ini)
{
    parser::request req;
    return parser::plan_documents({parser::read_ini_text(ini, "t.fio")}, req, nullptr);
}

// The findings' codes, joined, so one CHECK shows everything that was found.
std::string codes(const std::string &ini)
{
    parser::plan_ptr p = plan_of(ini);
    pf_report r{};
    REQUIRE(pf_run(p.get(), &safety_system, &r) == 0);
    std::string out;
    for (uint32_t i = 0; i < r.nr; i++)
        out += std::string(out.empty() ? "" : ",") + r.findings[i].code;
    pf_free(&r);
    return out;
}

// A loop device over a sparse image of size bytes in dir (losetup options in
// opts), detached when it goes.  path is "" and why says why when there is none.
struct loop_device {
    std::string path, why;

    loop_device(const std::string &dir, const std::string &size, const std::string &opts)
    {
        std::string img = dir + "/disk.img";
        if (geteuid() != 0 || system(("truncate -s " + size + " " + img).c_str()) != 0) {
            why = "needs root";
            return;
        }
        FILE *p = popen(("losetup -f --show " + opts + " " + img + " 2>/dev/null").c_str(), "r");
        char dev[64] = "";
        if (p && !fgets(dev, sizeof dev, p))
            dev[0] = '\0';
        if (p)
            pclose(p);
        path.assign(dev, strcspn(dev, "\n"));
        if (path.empty())
            why = "no loop devices" + (opts.empty() ? "" : " with " + opts);
    }
    int detach()
    {
        int ret = path.empty() ? 0 : system(("losetup -d " + path).c_str());
        path.clear();
        return ret;
    }
    ~loop_device() { detach(); }
};

} // namespace

TEST_CASE("a clean plan has no findings; a small buffered read warns about the page cache")
{
    tmpdir d;
    CHECK(codes("[w]\nrw=write\nsize=1m\ndirectory=" + d.path + "\n") == "");
    CHECK(codes("[r]\nrw=read\nsize=1m\ndirectory=" + d.path + "\n") == "cached-reads");
    CHECK(codes("[r]\nrw=read\ndirect=1\nsize=1m\ndirectory=" + d.path + "\n") == "");
}

TEST_CASE("missing directory, missing size, not enough space")
{
    tmpdir d;
    // A missing directory is made (as fio's), beneath what exists and never through "..".
    CHECK(codes("[w]\nrw=write\nsize=1m\ndirectory=" + d.path + "/nope\n") == "");
    CHECK(codes("[w]\nrw=write\nsize=1m\nfilename=" + d.path + "/nope/../../up/f\n") == "missing-directory");
    CHECK(codes("[w]\nrw=write\nsize=1m\nallow_file_create=0\ndirectory=" + d.path + "/nope\n") ==
          "missing-directory");
    CHECK(codes("[w]\nrw=write\nfilename=" + d.path + "/f\n") == "no-size");
    CHECK(codes("[w]\nrw=write\nsize=1p\ndirectory=" + d.path + "\n") == "no-space");
    // Two files that fit alone but not together on the same filesystem.
    pf_report r{};
    parser::plan_ptr p = plan_of("[w]\nrw=write\nsize=1m\nnrfiles=4\ndirectory=" + d.path + "\n");
    REQUIRE(pf_run(p.get(), &safety_system, &r) == 0);
    CHECK(r.bytes_to_lay_out == 1u << 20);
    pf_free(&r);
}

TEST_CASE("what the preflight saw at each path is found by path, once for a path many clones share")
{
    tmpdir d;
    // Two clones of 300 files each, and a second job naming one of them again: 600 paths.
    parser::plan_ptr p = plan_of("[w]\nrw=write\nsize=1200k\nnrfiles=300\nnumjobs=2\nfilesize=4k\ndirectory=" +
                                 d.path + "\n[again]\nrw=read\nsize=4k\nfilename=" + d.path + "/w.1.7\n");
    REQUIRE(system(("touch " + d.path + "/w.0.3").c_str()) == 0);
    pf_report r{};
    REQUIRE(pf_run(p.get(), &safety_system, &r) == 0);
    CHECK(r.nr_seen == 600);
    for (uint32_t c = 0; c < 2; c++)
        for (uint32_t f = 0; f < 300; f++) {
            std::string path = d.path + "/w." + std::to_string(c) + "." + std::to_string(f);
            const tgt_seen *s = pf_seen_of(&r, path.c_str());
            REQUIRE(s);
            CHECK(std::string(s->path) == path);
            CHECK((s->ino != 0) == (c == 0 && f == 3));  // only w.0.3 is there
        }
    CHECK(pf_seen_of(&r, (d.path + "/w.0.300").c_str()) == nullptr);
    CHECK(pf_seen_of(&r, (d.path + "/w.0").c_str()) == nullptr);
    pf_free(&r);
    CHECK(pf_seen_of(&r, (d.path + "/w.0.3").c_str()) == nullptr);
}

TEST_CASE("block devices: writes refused without allow_device_write, and always on a mounted one")
{
    struct stat sb {};
    if (stat("/dev/vda", &sb) != 0 || !S_ISBLK(sb.st_mode)) {
        MESSAGE("skipped: no /dev/vda");
        return;
    }
    CHECK(codes("[w]\nrw=randwrite\nfilename=/dev/vda\nsize=1m\n") == "device-write");
    CHECK(codes("[w]\nrw=randwrite\nfilename=/dev/vda\nsize=1m\nallow_device_write=/dev/vda\n") == "device-write");
}

TEST_CASE("reading a device: the range must fit")
{
    tmpdir d;
    loop_device dev(d.path, "1M", "");
    if (dev.path.empty()) {
        MESSAGE("skipped: " << dev.why);
        return;
    }
    const std::string &loopdev = dev.path;
    CHECK(codes("[r]\nrw=randread\ndirect=1\nfilename=" + loopdev + "\nsize=1m\n") == "");
    CHECK(codes("[r]\nrw=randread\ndirect=1\nfilename=" + loopdev + "\nsize=2m\n") == "beyond-end");
    CHECK(codes("[r]\nrw=randread\ndirect=1\nfilename=" + loopdev + "\nsize=512k\noffset=768k\n") == "beyond-end");
    CHECK(dev.detach() == 0);
}

TEST_CASE("direct=1 where O_DIRECT is refused (ramfs) is an error naming direct=0")
{
    tmpdir d;
    if (geteuid() != 0 || mount("ramfs", d.path.c_str(), "ramfs", 0, nullptr) != 0) {
        MESSAGE("skipped: cannot mount ramfs");
        return;
    }
    struct unmount {
        std::string path;
        ~unmount() { umount(path.c_str()); }
    } guard{d.path};
    parser::plan_ptr p = plan_of("[w]\nrw=write\ndirect=1\nsize=64k\ndirectory=" + d.path + "\n");
    pf_report r{};
    REQUIRE(pf_run(p.get(), &safety_system, &r) == 0);
    REQUIRE(r.nr == 2);
    CHECK(std::string(r.findings[0].code) == "direct-unsupported");
    CHECK(std::string(r.findings[0].text).find("use direct=0") != std::string::npos);
    // fio fails the job when it starts and runs the others: so does ioplan.
    CHECK(r.findings[0].job_fails);
    CHECK(r.nr_errors == 0);
    // ramfs keeps its data in memory: said too, as a warning, buffered or not.
    CHECK(std::string(r.findings[1].code) == "memory-backed");
    CHECK(std::string(r.findings[1].text).find("is on ramfs") != std::string::npos);
    pf_free(&r);
    CHECK(codes("[w]\nrw=write\nsize=64k\ndirectory=" + d.path + "\n") == "memory-backed");
}

TEST_CASE("direct=1 on a 4Kn device: 512-byte blocks and offsets are refused, the device's size is learnt")
{
    tmpdir d;
    loop_device dev(d.path, "8M", "--sector-size 4096");
    if (dev.path.empty()) {
        MESSAGE("skipped: " << dev.why);
        return;
    }
    const std::string &loopdev = dev.path;
    uint32_t mem = 0, off = 0;
    CHECK(dio_align(loopdev.c_str(), &mem, &off) == 0);
    CHECK(off == 4096);
    std::string job = "[r]\nrw=randread\ndirect=1\nfilename=" + loopdev + "\nsize=1m\n";
    CHECK(codes(job + "bs=4k\n") == "");
    CHECK(codes(job + "bs=512\n") == "direct-alignment");
    CHECK(codes(job + "bsrange=4k-6k\n") == "direct-alignment");
    CHECK(codes(job + "bsrange=4k-8k\n") == "");
    CHECK(codes(job + "bsrange=4k-8k\nbs_unaligned=1\n") == "direct-alignment"); // any byte count in range
    CHECK(codes(job + "bssplit=4k/50:8k/50\nbs_unaligned=1\n") == "");          // a split draws only its sizes
    CHECK(codes(job + "bs=4k\noffset=512\n") == "direct-alignment");
    CHECK(codes("[r]\nrw=randread\nfilename=" + loopdev + "\nsize=1m\nbs=512\n") == ""); // buffered: any size
    CHECK(dev.detach() == 0);
}

TEST_CASE("dio_align of a file on the root filesystem is a power of two no larger than a page")
{
    tmpdir d;
    uint32_t mem = 0, off = 0;
    if (dio_align(d.path.c_str(), &mem, &off) != 0) {
        MESSAGE("skipped: no block device under /tmp");
        return;
    }
    CHECK(off >= 512);
    CHECK((off & (off - 1)) == 0);
    CHECK(mem >= 1);
}
