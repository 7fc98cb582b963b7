// tests/engine/test_target.cpp - a target opened relative to its directory's
// descriptor is the file first looked at: a symbolic link swapped in is not
// followed, a file swapped in (a hard link to another's data, or one renamed
// over a file held open) or a second name on ioplan's own file is refused, a
// link the user named is followed, and a directory renamed away keeps its
// files reachable through the descriptor.
// Through the engine: what the preflight checked is what the layout must find.
#include <doctest/doctest.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>
#include <dirent.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/safety/preflight.h"
#include "engine/target.h"
#include "tests/engine/plan_builder.hpp"

using pb::job_spec;

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
    int ret = tgt_check(fd, id, why, n, nullptr);
    close(fd);
    return ret;
}

// A target as the layout holds it: its directory opened once, the file looked at
// (identity in id); reopen() opens a name in that directory and checks it.
struct looked {
    pb::tmpdir d;
    char why[512] = "";
    struct stat st{};
    tgt_id id{};
    int dfd = -1;

    void look(const std::string &rel)
    {
        dfd = tgt_dir_open(d.file(rel).c_str());
        REQUIRE(dfd >= 0);
        REQUIRE(tgt_look(dfd, tgt_base(rel.c_str()), &id, &st) == 0);
    }
    int reopen(const char *base) { return open_and_check(dfd, base, &id, why, sizeof why); }
    ~looked()
    {
        if (dfd >= 0)
            close(dfd);
    }
};

} // namespace

TEST_CASE("target: a swapped-in symbolic link or file is refused; the file first seen is not")
{
    looked t;
    pb::tmpdir &d = t.d;
    touch(d.file("t"));
    touch(d.file("user"));
    t.look("t");
    CHECK(!t.id.follow);
    CHECK(t.reopen("t") == 0);

    REQUIRE(rename(d.file("t").c_str(), d.file("t.real").c_str()) == 0);
    REQUIRE(symlink(d.file("user").c_str(), d.file("t").c_str()) == 0);
    CHECK(t.reopen("t") == -ELOOP);
    CHECK(std::string(tgt_open_error(-ELOOP, &t.id)).find("symbolic link") != std::string::npos);

    REQUIRE(unlink(d.file("t").c_str()) == 0);
    REQUIRE(link(d.file("user").c_str(), d.file("t").c_str()) == 0);
    CHECK(t.reopen("t") == -ESTALE);
    CHECK(std::string(t.why).find("replaced") != std::string::npos);

    REQUIRE(rename(d.file("t.real").c_str(), d.file("t").c_str()) == 0);
    CHECK(t.reopen("t") == 0);
}

TEST_CASE("target: ioplan's own file with a second name is refused; a user's is not")
{
    looked t;
    touch(t.d.file("t"));
    t.look("t");
    REQUIRE(link(t.d.file("t").c_str(), t.d.file("other").c_str()) == 0);
    CHECK(t.reopen("t") == 0);
    t.id.single = true;
    CHECK(t.reopen("t") == -ESTALE);
    CHECK(std::string(t.why).find("now has 2") != std::string::npos);
}

TEST_CASE("target: ioplan's own file held open while another is renamed over its name is called replaced")
{
    looked t;
    touch(t.d.file("t"));
    touch(t.d.file("user"));
    t.look("t");
    t.id.single = true;
    int fd = tgt_openat(t.dfd, "t", &t.id, O_RDONLY, 0);
    REQUIRE(fd >= 0);
    REQUIRE(rename(t.d.file("user").c_str(), t.d.file("t").c_str()) == 0);
    CHECK(tgt_check(fd, &t.id, t.why, sizeof t.why, nullptr) == -ESTALE);
    close(fd);
    CHECK(std::string(t.why).find("replaced or removed") != std::string::npos);
    CHECK(std::string(t.why).find("another name") == std::string::npos);
}

namespace {

void put(const std::string &path, const std::string &text)
{
    FILE *f = fopen(path.c_str(), "w");
    REQUIRE(f);
    fputs(text.c_str(), f);
    fclose(f);
}

std::string got(const std::string &path)
{
    FILE *f = fopen(path.c_str(), "r");
    if (!f)
        return "(none)";
    char buf[256] = "";
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    return std::string(buf, n);
}

ino_t ino_of(const std::string &path)
{
    struct stat st;
    REQUIRE(lstat(path.c_str(), &st) == 0);
    return st.st_ino;
}

// Every name in d, sorted: nothing set aside may be left behind.
std::string names_in(const pb::tmpdir &d)
{
    std::vector<std::string> v;
    DIR *dir = opendir(d.path().c_str());
    REQUIRE(dir);
    while (struct dirent *e = readdir(dir))
        if (std::string(e->d_name) != "." && std::string(e->d_name) != "..")
            v.push_back(e->d_name);
    closedir(dir);
    std::sort(v.begin(), v.end());
    std::string all;
    for (const std::string &n : v)
        all += (all.empty() ? "" : " ") + n;
    return all;
}

// A removable() that, while the name is set aside, lets "another process" act
// at the worst moment, then judges by identity.
struct racer {
    std::function<void()> act;
    dev_t dev;
    ino_t ino;
    static bool judge(int, const char *, const struct stat *st, void *arg)
    {
        racer *r = static_cast<racer *>(arg);
        if (r->act)
            r->act();
        return st->st_dev == r->dev && st->st_ino == r->ino;
    }
};

} // namespace

TEST_CASE("target: a removal takes the file ioplan made and keeps one swapped in before it")
{
    pb::tmpdir d;
    put(d.file("t"), "ours");
    struct stat st;
    REQUIRE(lstat(d.file("t").c_str(), &st) == 0);
    CHECK(tgt_remove_same(AT_FDCWD, d.file("t").c_str(), st.st_dev, st.st_ino, nullptr, 0) == 0);
    CHECK(names_in(d) == "");
    CHECK(tgt_remove_same(AT_FDCWD, d.file("t").c_str(), st.st_dev, st.st_ino, nullptr, 0) == -ENOENT);

    put(d.file("t"), "ours");
    REQUIRE(lstat(d.file("t").c_str(), &st) == 0);
    put(d.file("user"), "the user's");
    REQUIRE(rename(d.file("user").c_str(), d.file("t").c_str()) == 0);
    CHECK(tgt_remove_same(AT_FDCWD, d.file("t").c_str(), st.st_dev, st.st_ino, nullptr, 0) == -ESTALE);
    CHECK(got(d.file("t")) == "the user's");
    int dfd = tgt_dir_open(d.file("t").c_str());
    REQUIRE(dfd >= 0);
    CHECK(tgt_remove_same(dfd, "t", st.st_dev, st.st_ino, nullptr, 0) == -ESTALE);
    close(dfd);
    CHECK(got(d.file("t")) == "the user's");
    CHECK(names_in(d) == "t");
}

TEST_CASE("target: a file renamed over the name during the removal is kept, whenever it comes")
{
    // The racer renames the user's file over the name after ioplan's look: a
    // look-then-unlink would remove it here.  Set aside first, ours goes and
    // the user's stays.
    pb::tmpdir d;
    const std::string t = d.file("t");
    put(t, "ours");
    put(d.file("user"), "the user's");
    struct stat st;
    REQUIRE(lstat(t.c_str(), &st) == 0);
    racer r{ [&] { REQUIRE(rename(d.file("user").c_str(), t.c_str()) == 0); }, st.st_dev, st.st_ino };
    CHECK(tgt_remove_if(AT_FDCWD, t.c_str(), racer::judge, &r, nullptr, 0) == 0);
    CHECK(got(t) == "the user's");
    CHECK(names_in(d) == "t");

    // Not ours, and a new file takes the name before it is put back: both kept,
    // the one found under the name reported.
    ino_t user = ino_of(t);
    char kept[PATH_MAX] = "";
    racer late{ [&] { put(d.file("new"), "new"); REQUIRE(rename(d.file("new").c_str(), t.c_str()) == 0); },
                st.st_dev, st.st_ino };
    CHECK(tgt_remove_if(AT_FDCWD, t.c_str(), racer::judge, &late, kept, sizeof kept) == -EEXIST);
    CHECK(got(t) == "new");
    CHECK(got(kept) == "the user's");
    CHECK(ino_of(kept) == user);
    CHECK(std::string(kept).rfind(d.path() + "/", 0) == 0);
}

namespace {

// Sets or clears the immutable flag of a directory: a rename into or out of it
// then fails with EPERM.  False where the file system or the caller cannot.
bool set_immutable(const std::string &dir, bool on)
{
    int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY), flags = 0;
    bool ok = fd >= 0 && ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0;
    flags = on ? flags | FS_IMMUTABLE_FL : flags & ~FS_IMMUTABLE_FL;
    ok = ok && ioctl(fd, FS_IOC_SETFLAGS, &flags) == 0;
    if (fd >= 0)
        close(fd);
    return ok;
}

} // namespace

TEST_CASE("target: a file that cannot be put back says why and where it waits")
{
    // Judged not removable, then the directory turns immutable before the
    // put-back: the error is the put-back's own, not "another took its name",
    // and the caller learns the name the file waits under.
    pb::tmpdir d;
    const std::string t = d.file("t");
    put(t, "the user's");
    if (!set_immutable(d.path(), true) || !set_immutable(d.path(), false)) {
        MESSAGE("skipped: no immutable flag here (needs root and ext4/xfs/tmpfs)");
        return;
    }
    ino_t user = ino_of(t);
    char kept[PATH_MAX] = "";
    bool locked = false;
    racer lock{ [&] { locked = set_immutable(d.path(), true); }, 0, 0 };
    int ret = tgt_remove_if(AT_FDCWD, t.c_str(), racer::judge, &lock, kept, sizeof kept);
    REQUIRE(set_immutable(d.path(), false));
    REQUIRE(locked);
    CHECK(ret == -EPERM);
    CHECK(std::string(kept).rfind(d.path() + "/", 0) == 0);
    CHECK(got(kept) == "the user's");
    CHECK(ino_of(kept) == user);
    CHECK(access(t.c_str(), F_OK) != 0);
}

TEST_CASE("target: a link the user named is followed, and must keep pointing at the same file")
{
    looked t;
    touch(t.d.file("a"));
    touch(t.d.file("b"));
    REQUIRE(symlink("a", t.d.file("l").c_str()) == 0);
    t.look("l");
    CHECK(t.id.follow);
    CHECK(S_ISREG(t.st.st_mode));
    CHECK(t.reopen("l") == 0);
    REQUIRE(unlink(t.d.file("l").c_str()) == 0);
    REQUIRE(symlink("b", t.d.file("l").c_str()) == 0);
    CHECK(t.reopen("l") == -ESTALE);
}

TEST_CASE("target: the directory opened once is the one used, whatever its name points at later")
{
    looked t;
    pb::tmpdir &d = t.d;
    REQUIRE(mkdir(d.file("dir").c_str(), 0755) == 0);
    REQUIRE(mkdir(d.file("user").c_str(), 0755) == 0);
    touch(d.file("dir/t"));
    touch(d.file("user/t"));
    t.look("dir/t");
    REQUIRE(rename(d.file("dir").c_str(), d.file("dir.moved").c_str()) == 0);
    REQUIRE(symlink(d.file("user").c_str(), d.file("dir").c_str()) == 0);
    CHECK(t.reopen("t") == 0);
    CHECK(std::string(tgt_base("x/y/z")) == "z");
    CHECK(std::string(tgt_base("z")) == "z");
}

namespace {

// made() of tgt_dir_make: counts the directories made and, after the first,
// plants a symbolic link where the next one is to be made (another user racing).
struct planter {
    std::string link, to;
    int made = 0;
};

int plant(int fd, void *ctx)
{
    auto *p = static_cast<planter *>(ctx);
    struct stat st;
    REQUIRE(fstat(fd, &st) == 0);
    CHECK(S_ISDIR(st.st_mode));
    CHECK((st.st_mode & 0777) == 0700);
    if (p->made++ == 0 && !p->link.empty())
        REQUIRE(symlink(p->to.c_str(), p->link.c_str()) == 0);
    return 0;
}

} // namespace

TEST_CASE("target: missing directories are made beneath the existing ones, never through a link or ..")
{
    pb::tmpdir d;
    char why[512] = "", top[4096];
    size_t at = 0;
    REQUIRE(mkdir(d.file("have").c_str(), 0755) == 0);
    CHECK(tgt_dir_existing(d.file("have/x/y/f").c_str(), top, sizeof top, &at) == 0);
    CHECK(std::string(top) == d.file("have"));
    CHECK(at == d.file("have").size());
    CHECK(tgt_dir_existing("no-such-dir/x/f", top, sizeof top, &at) == 0);
    CHECK((std::string(top) == "." && at == 0));
    CHECK(tgt_dir_existing(d.file("have/x/../../../esc/f").c_str(), top, sizeof top, &at) == -EPERM);

    planter ok;
    int fd = tgt_dir_make(d.file("have/x/y/f").c_str(), plant, &ok, why, sizeof why);
    REQUIRE(fd >= 0);
    close(fd);
    CHECK(ok.made == 2);
    ok.made = 0;
    fd = tgt_dir_make(d.file("have/x/y/g").c_str(), plant, &ok, why, sizeof why);
    REQUIRE(fd >= 0);		// both there now: found, not made again
    close(fd);
    CHECK(ok.made == 0);

    REQUIRE(mkdir(d.file("user").c_str(), 0755) == 0);
    planter race{ d.file("have/r/s"), d.file("user") };
    int ret = tgt_dir_make(d.file("have/r/s/t/f").c_str(), plant, &race, why, sizeof why);
    CHECK((ret == -ELOOP || ret == -ENOTDIR));	// O_NOFOLLOW | O_DIRECTORY on a link: ENOTDIR
    CHECK(std::string(why).find("it is not followed") != std::string::npos);
    struct stat st;
    CHECK(stat(d.file("user/t").c_str(), &st) != 0);	// nothing made through the link
}

namespace {

// A file of n copies of c.
void fill(const std::string &path, size_t n, char c)
{
    int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    REQUIRE(fd >= 0);
    std::string data(n, c);
    REQUIRE(write(fd, data.data(), n) == (ssize_t)n);
    close(fd);
}

std::string contents(const std::string &path)
{
    std::string s;
    char buf[4096];
    int fd = open(path.c_str(), O_RDONLY);
    REQUIRE(fd >= 0);
    for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;)
        s.append(buf, (size_t)n);
    close(fd);
    return s;
}

// Runs p as checked by a preflight taken before swap() changes the file system.
pb::results_ptr run_after_swap(const plan &p, const std::function<void()> &swap, int *ret)
{
    pf_report pf{};
    REQUIRE(pf_run(&p, &safety_system, &pf) == 0);
    REQUIRE(pf.nr_errors == 0);
    swap();
    eng_opts o{};
    o.preflight = &pf;
    auto r = pb::run(p, ret, &o);
    pf_free(&pf);
    return r;
}

bool said(const results &r, const std::string &words)
{
    for (uint32_t i = 0; i < r.nr_msgs; i++)
        if (r.msgs[i].level == RES_MSG_ERROR && std::string(r.msgs[i].text).find(words) != std::string::npos)
            return true;
    return false;
}

} // namespace

TEST_CASE("target: a file swapped between the preflight and the layout is refused, even where writing existing files is allowed")
{
    pb::tmpdir d;
    const std::string t = d.file("t"), user = d.file("user");
    auto p = pb::build(d.path(), { job_spec("w", PLAN_RW_WRITE, PLAN_IOENGINE_PSYNC, 64 << 10).file("t") });
    p->allow_existing_file_write = true;
    int ret = 0;

    fill(t, 64 << 10, 't');
    fill(user, 64 << 10, 'u');
    // The name t given to the user's file, by a hard link or a symbolic link, after the preflight.
    for (bool hard : { true, false }) {
        auto r = run_after_swap(*p, [&] {
            REQUIRE(rename(t.c_str(), d.file("t.real").c_str()) == 0);
            REQUIRE((hard ? link(user.c_str(), t.c_str()) : symlink(user.c_str(), t.c_str())) == 0);
        }, &ret);
        CHECK(ret != 0);
        CHECK(said(*r, hard ? "replaced since the preflight" : "symbolic link"));
        CHECK(contents(user) == std::string(64 << 10, 'u'));
        REQUIRE(unlink(t.c_str()) == 0);
        REQUIRE(rename(d.file("t.real").c_str(), t.c_str()) == 0);
    }
    // Nothing swapped: the same file is written.
    run_after_swap(*p, [] {}, &ret);
    CHECK(ret == 0);
    CHECK(contents(t) != std::string(64 << 10, 't'));
}

TEST_CASE("target: a directory swapped between the preflight and the layout is refused")
{
    pb::tmpdir d;
    REQUIRE(mkdir(d.file("dir").c_str(), 0755) == 0);
    REQUIRE(mkdir(d.file("userdir").c_str(), 0755) == 0);
    fill(d.file("userdir/w.0.0"), 64 << 10, 'u');
    auto p = pb::build(d.file("dir"), { job_spec("w", PLAN_RW_WRITE, PLAN_IOENGINE_PSYNC, 64 << 10) });
    p->allow_existing_file_write = true;
    int ret = 0;
    auto r = run_after_swap(*p, [&] {
        REQUIRE(rename(d.file("dir").c_str(), d.file("dir.real").c_str()) == 0);
        REQUIRE(symlink(d.file("userdir").c_str(), d.file("dir").c_str()) == 0);
    }, &ret);
    CHECK(ret != 0);
    CHECK(said(*r, "directory was replaced"));
    CHECK(contents(d.file("userdir/w.0.0")) == std::string(64 << 10, 'u'));
}

TEST_CASE("target: a file that appears where the preflight found none is never written, created or followed")
{
    pb::tmpdir d;
    const std::string t = d.file("t"), user = d.file("user"), victim = d.file("victim");
    int ret = 0;

    fill(user, 64 << 10, 'u');
    // A write job's file is only sized, a read job's gets data: both are created without a look first.
    for (plan_rw rw : { PLAN_RW_WRITE, PLAN_RW_READ }) {
        auto p = pb::build(d.path(), { job_spec("j", rw, PLAN_IOENGINE_PSYNC, 64 << 10).file("t") });
        p->allow_existing_file_write = true;
        const std::function<void()> swaps[] = {
            [&] { REQUIRE(link(user.c_str(), t.c_str()) == 0); },
            [&] { REQUIRE(symlink(user.c_str(), t.c_str()) == 0); },
            [&] { REQUIRE(symlink(victim.c_str(), t.c_str()) == 0); },	// dangling: O_CREAT would make victim
        };
        for (size_t i = 0; i < 3; i++) {
            INFO("rw ", (int)rw, " swap ", i);
            auto r = run_after_swap(*p, swaps[i], &ret);
            // A read job may read a file that appeared, as any existing one: it writes nothing to it.
            if (rw == PLAN_RW_WRITE || i > 0) {
                CHECK(ret != 0);
                CHECK(r->nr_msgs > 0);
            }
            CHECK(contents(user) == std::string(64 << 10, 'u'));
            struct stat st;
            CHECK(stat(victim.c_str(), &st) != 0);
            CHECK(lstat(t.c_str(), &st) == 0);	// a name ioplan did not make is not removed either
            unlink(t.c_str());
        }
        // Nothing there: the file is made, laid out and marked.
        run_after_swap(*p, [] {}, &ret);
        CHECK(ret == 0);
        CHECK(contents(t).size() == (64u << 10));
        REQUIRE(unlink(t.c_str()) == 0);
    }
}
