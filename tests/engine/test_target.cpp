// tests/engine/test_target.cpp - a target opened relative to its directory's
// descriptor is the file first looked at: a symbolic link swapped in is not
// followed, a file swapped in (a hard link to another's data) or a second name
// on ioplan's own file is refused, a link the user named is followed, and a
// directory renamed away keeps its files reachable through the descriptor.
#include <doctest/doctest.h>

#include <cerrno>
#include <cstdio>
#include <string>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/target.h"
#include "tests/engine/plan_builder.hpp"

namespace {

void touch(const std::string &path)
{
    int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    REQUIRE(fd >= 0);
    close(fd);
}

// Opens base in dirfd as id allows and checks it: 0, or the open's or the check's -errno.
int open_and_check(int dirfd, const char *base, tgt_id *id, char *why, size_t n)
{
    int fd = tgt_openat(dirfd, base, id, O_RDONLY, 0);
    if (fd < 0)
        return fd;
    int ret = tgt_check(fd, id, why, n);
    close(fd);
    return ret;
}

} // namespace

TEST_CASE("target: a swapped-in symbolic link or file is refused; the file first seen is not")
{
    pb::tmpdir d;
    char why[512] = "";
    struct stat st;
    touch(d.file("t"));
    touch(d.file("user"));
    int dfd = tgt_dir_open(d.file("t").c_str());
    REQUIRE(dfd >= 0);
    tgt_id id{};
    REQUIRE(tgt_look(dfd, tgt_base(d.file("t").c_str()), &id, &st) == 0);
    CHECK(!id.follow);
    CHECK(open_and_check(dfd, "t", &id, why, sizeof why) == 0);

    REQUIRE(rename(d.file("t").c_str(), d.file("t.real").c_str()) == 0);
    REQUIRE(symlink(d.file("user").c_str(), d.file("t").c_str()) == 0);
    CHECK(open_and_check(dfd, "t", &id, why, sizeof why) == -ELOOP);
    CHECK(std::string(tgt_open_error(-ELOOP, &id)).find("symbolic link") != std::string::npos);

    REQUIRE(unlink(d.file("t").c_str()) == 0);
    REQUIRE(link(d.file("user").c_str(), d.file("t").c_str()) == 0);
    CHECK(open_and_check(dfd, "t", &id, why, sizeof why) == -ESTALE);
    CHECK(std::string(why).find("replaced") != std::string::npos);

    REQUIRE(rename(d.file("t.real").c_str(), d.file("t").c_str()) == 0);
    CHECK(open_and_check(dfd, "t", &id, why, sizeof why) == 0);
    close(dfd);
}

TEST_CASE("target: ioplan's own file with a second name is refused; a user's is not")
{
    pb::tmpdir d;
    char why[512] = "";
    struct stat st;
    touch(d.file("t"));
    int dfd = tgt_dir_open(d.file("t").c_str());
    REQUIRE(dfd >= 0);
    tgt_id id{};
    REQUIRE(tgt_look(dfd, "t", &id, &st) == 0);
    REQUIRE(link(d.file("t").c_str(), d.file("other").c_str()) == 0);
    CHECK(open_and_check(dfd, "t", &id, why, sizeof why) == 0);
    id.single = true;
    CHECK(open_and_check(dfd, "t", &id, why, sizeof why) == -ESTALE);
    CHECK(std::string(why).find("now has 2") != std::string::npos);
    close(dfd);
}

TEST_CASE("target: a link the user named is followed, and must keep pointing at the same file")
{
    pb::tmpdir d;
    char why[512] = "";
    struct stat st;
    touch(d.file("a"));
    touch(d.file("b"));
    REQUIRE(symlink("a", d.file("l").c_str()) == 0);
    int dfd = tgt_dir_open(d.file("l").c_str());
    REQUIRE(dfd >= 0);
    tgt_id id{};
    REQUIRE(tgt_look(dfd, "l", &id, &st) == 0);
    CHECK(id.follow);
    CHECK(S_ISREG(st.st_mode));
    CHECK(open_and_check(dfd, "l", &id, why, sizeof why) == 0);
    REQUIRE(unlink(d.file("l").c_str()) == 0);
    REQUIRE(symlink("b", d.file("l").c_str()) == 0);
    CHECK(open_and_check(dfd, "l", &id, why, sizeof why) == -ESTALE);
    close(dfd);
}

TEST_CASE("target: the directory opened once is the one used, whatever its name points at later")
{
    pb::tmpdir d;
    char why[512] = "";
    struct stat st;
    REQUIRE(mkdir(d.file("dir").c_str(), 0755) == 0);
    REQUIRE(mkdir(d.file("user").c_str(), 0755) == 0);
    touch(d.file("dir/t"));
    touch(d.file("user/t"));
    int dfd = tgt_dir_open(d.file("dir/t").c_str());
    REQUIRE(dfd >= 0);
    tgt_id id{};
    REQUIRE(tgt_look(dfd, "t", &id, &st) == 0);
    REQUIRE(rename(d.file("dir").c_str(), d.file("dir.moved").c_str()) == 0);
    REQUIRE(symlink(d.file("user").c_str(), d.file("dir").c_str()) == 0);
    CHECK(open_and_check(dfd, "t", &id, why, sizeof why) == 0);
    close(dfd);
    CHECK(std::string(tgt_base("x/y/z")) == "z");
    CHECK(std::string(tgt_base("z")) == "z");
}
