// tests/engine/test_mark.cpp - ioplan's file mark binds to the file it was
// written for: a copy of it, a rewrite by someone else, an older constant mark
// and an edited mark all make the file the user's; ioplan's own re-stamp does not.
#include <doctest/doctest.h>

#include <string>
#include <fcntl.h>
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
    std::string token = xattr_of(fd).substr(xattr_of(fd).find("token="), 22);
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
    // An edited state word.
    std::string edited = text;
    edited.replace(edited.find("filled"), 6, "filler");
    REQUIRE(fsetxattr(fd, MARK_XATTR, edited.data(), edited.size(), 0) == 0);
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
