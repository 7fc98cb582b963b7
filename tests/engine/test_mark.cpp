// tests/engine/test_mark.cpp - ioplan's file mark binds to the file it was
// written for: a copy of it, a rewrite by someone else, an older constant mark
// and an edited mark all make the file the user's; ioplan's own re-stamp does not.
// The mark fits in an ext4 inode (48 bytes); the text marks of version 2 are still read.
#include <doctest/doctest.h>

#include <cinttypes>
#include <cstdio>
#include <string>
#include <fcntl.h>
#include <sys/sysmacros.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "engine/mark.h"
#include "tests/engine/plan_builder.hpp"

namespace {

// Creates name in d with bytes of data, open read-write.
int make_file(const pb::tmpdir &d, const std::string &name, size_t bytes)
{
    int fd = open(d.file(name).c_str(), O_RDWR | O_CREAT | O_TRUNC, 0644);
    REQUIRE(fd >= 0);
    std::string data(bytes, 'x');
    REQUIRE(write(fd, data.data(), data.size()) == (ssize_t)data.size());
    return fd;
}

std::string xattr_of(int fd)
{
    char v[256];
    ssize_t n = fgetxattr(fd, MARK_XATTR, v, sizeof v);
    return n < 0 ? "" : std::string(v, (size_t)n);
}

} // namespace

TEST_CASE("mark: states round-trip, and a re-stamp keeps the token")
{
    pb::tmpdir s;
    char why[256] = "";
    int fd = make_file(s, "a", 4096);
    CHECK(mark_read(fd, why, sizeof why) == MARK_NONE);
    if (mark_write(fd, MARK_PARTIAL) == -EOPNOTSUPP) {
        MESSAGE("skipped: no user xattrs on /tmp");
        close(fd);
        return;
    }
    CHECK(mark_read(fd, why, sizeof why) == MARK_PARTIAL);
    // ext4 keeps a value of up to 64 bytes in a 256-byte inode; a longer one takes a block.
    CHECK(xattr_of(fd).size() == 48);
    std::string token = xattr_of(fd).substr(8, 8);
    CHECK(mark_write(fd, MARK_FILLED) == 0);
    CHECK(mark_read(fd, why, sizeof why) == MARK_FILLED);
    CHECK(xattr_of(fd).find(token) != std::string::npos);
    CHECK(mark_write(fd, MARK_SIZED) == 0);
    CHECK(mark_read_path(s.file("a").c_str(), why, sizeof why) == MARK_SIZED);
    CHECK(mark_write(fd, MARK_NONE) == -EINVAL);
    close(fd);
}

TEST_CASE("mark: a write by anyone after the stamp, a copied mark, an old or edited mark: foreign")
{
    pb::tmpdir s;
    char why[256] = "";
    int fd = make_file(s, "a", 4096);
    if (mark_write(fd, MARK_FILLED)) {
        MESSAGE("skipped: no user xattrs on /tmp");
        close(fd);
        return;
    }
    // Copied onto another file with the same size and times (cp -a, a backup restore).
    int other = make_file(s, "b", 4096);
    std::string text = xattr_of(fd);
    struct stat sb;
    REQUIRE(fstat(fd, &sb) == 0);
    struct timespec times[2] = {sb.st_atim, sb.st_mtim};
    REQUIRE(futimens(other, times) == 0);
    REQUIRE(fsetxattr(other, MARK_XATTR, text.data(), text.size(), 0) == 0);
    CHECK(mark_read(other, why, sizeof why) == MARK_FOREIGN);
    CHECK(std::string(why).find("made for another file") != std::string::npos);
    // ioplan's own constant mark of earlier versions proves nothing.
    REQUIRE(fsetxattr(other, MARK_XATTR, "1", 1, 0) == 0);
    CHECK(mark_read(other, why, sizeof why) == MARK_FOREIGN);
    CHECK(std::string(why).find("not one this ioplan wrote") != std::string::npos);
    // An edited state, an edited padding byte, a cut mark.
    for (size_t at : {size_t(5), size_t(6)}) {
        std::string edited = text;
        edited[at] = 'x';
        REQUIRE(fsetxattr(fd, MARK_XATTR, edited.data(), edited.size(), 0) == 0);
        CHECK(mark_read(fd, why, sizeof why) == MARK_FOREIGN);
        CHECK(std::string(why).find("not one this ioplan wrote") != std::string::npos);
    }
    REQUIRE(fsetxattr(fd, MARK_XATTR, text.data(), text.size() - 1, 0) == 0);
    CHECK(mark_read(fd, why, sizeof why) == MARK_FOREIGN);
    REQUIRE(fsetxattr(fd, MARK_XATTR, text.data(), text.size(), 0) == 0);
    CHECK(mark_read(fd, why, sizeof why) == MARK_FILLED);
    // Same size, new contents: the mtime moves.
    usleep(20000);
    REQUIRE(pwrite(fd, "y", 1, 0) == 1);
    CHECK(mark_read(fd, why, sizeof why) == MARK_FOREIGN);
    CHECK(std::string(why).find("modified after ioplan last wrote it") != std::string::npos);
    // A partial mark binds the inode only: the layout is still changing the rest.
    REQUIRE(mark_write(fd, MARK_PARTIAL) == 0);
    REQUIRE(pwrite(fd, "zz", 2, 4096) == 2);
    CHECK(mark_read(fd, why, sizeof why) == MARK_PARTIAL);
    close(other);
    close(fd);
}

TEST_CASE("mark: a version 2 text mark (older ioplan) is still ioplan's; a re-stamp keeps its token in version 3")
{
    pb::tmpdir s;
    char why[256] = "";
    int fd = make_file(s, "old", 8192);
    struct stat sb;
    REQUIRE(fstat(fd, &sb) == 0);
    char text[256];
    int n = snprintf(text, sizeof text,
                     "ioplan-mark 2 state=filled token=00c0ffee00c0ffee dev=%u:%u ino=%" PRIu64 " size=%" PRIu64
                     " mtime=%lld.%09ld",
                     major(sb.st_dev), minor(sb.st_dev), (uint64_t)sb.st_ino, (uint64_t)sb.st_size,
                     (long long)sb.st_mtim.tv_sec, sb.st_mtim.tv_nsec);
    if (fsetxattr(fd, MARK_XATTR, text, (size_t)n, 0)) {
        MESSAGE("skipped: no user xattrs on /tmp");
        close(fd);
        return;
    }
    CHECK(mark_read(fd, why, sizeof why) == MARK_FILLED);
    // Bound to another inode: foreign, as ever.
    int other = make_file(s, "other", 8192);
    REQUIRE(fsetxattr(other, MARK_XATTR, text, (size_t)n, 0) == 0);
    CHECK(mark_read(other, why, sizeof why) == MARK_FOREIGN);
    CHECK(std::string(why).find("made for another file") != std::string::npos);
    REQUIRE(mark_write(fd, MARK_SIZED) == 0);
    CHECK(mark_read(fd, why, sizeof why) == MARK_SIZED);
    std::string v3 = xattr_of(fd);
    REQUIRE(v3.size() == 48);
    CHECK(v3.compare(0, 4, "IOPM") == 0);
    CHECK(v3.substr(8, 8) == std::string("\xee\xff\xc0\x00\xee\xff\xc0\x00", 8));
    close(other);
    close(fd);
}

TEST_CASE("mark: a file whose mtime is before 1970 binds as any other")
{
    pb::tmpdir s;
    char why[256] = "";
    int fd = make_file(s, "old-times", 4096);
    // 1969-12-31 23:59:58.25: a negative time with a positive nanosecond part, as timespec keeps it.
    struct timespec times[2] = {{-2, 250000000}, {-2, 250000000}};
    REQUIRE(futimens(fd, times) == 0);
    if (mark_write(fd, MARK_FILLED)) {
        MESSAGE("skipped: no user xattrs on /tmp");
        close(fd);
        return;
    }
    CHECK(mark_read(fd, why, sizeof why) == MARK_FILLED);
    struct timespec later[2] = {{-2, 250000001}, {-2, 250000001}};
    REQUIRE(futimens(fd, later) == 0);
    CHECK(mark_read(fd, why, sizeof why) == MARK_FOREIGN);
    close(fd);
}
