// tests/parser/test_replay_stage.cpp - the replay stage of planning
// (parser/replay_stage.hpp): a planned job with read_iolog and replay_redirect
// comes out replaying the trace on the redirect target, every clone alike,
// with the trace's directions and largest block as its pattern.
#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <unistd.h>

#include "parser/ini.hpp"
#include "parser/parser.hpp"
#include "tests/parser/plan_text.hpp"
#include "parser/replay_stage.hpp"

using namespace parser;

namespace {

struct scratch_dir {
    std::string path;
    scratch_dir()
    {
        char t[] = "/tmp/ioplan-replay-stage-XXXXXX";
        REQUIRE(mkdtemp(t));
        path = t;
    }
    ~scratch_dir() { std::system(("rm -rf '" + path + "'").c_str()); }
};

plan_ptr plan_of(const std::string &text)
{
    return t::plan_of_ini(text);
}

} // namespace

TEST_CASE("the replay stage puts a read_iolog trace on the replay_redirect target")
{
    scratch_dir d;
    std::string trace = d.path + "/trace.log", target = d.path + "/target";
    std::ofstream(trace) << "fio version 2 iolog\n/dev/traced add\n/dev/traced open\n"
                            "/dev/traced write 0 8192\n/dev/traced read 4096 4096\n/dev/traced close\n";
    plan_ptr p = plan_of("[r]\nread_iolog=" + trace + "\nreplay_redirect=" + target + "\nfilename=" + d.path +
                         "/planned\nsize=1M\nbs=4k\nnumjobs=2\n");
    plan_job &j = p->groups[0].jobs[0];
    REQUIRE(j.nr_clones == 2);
    CHECK(j.replay == nullptr);

    REQUIRE(replay_stage(j));
    REQUIRE(j.replay != nullptr);
    CHECK(j.replay->nr_ios == 2);
    CHECK(j.rw == PLAN_RW_RW);
    CHECK(j.bs[PLAN_DDIR_READ].min_bytes == 8192);
    CHECK(j.bs[PLAN_DDIR_WRITE].max_bytes == 8192);
    CHECK(j.size_bytes == 0);
    for (uint32_t c = 0; c < j.nr_clones; c++) {
        REQUIRE(j.clones[c].nr_files == 1);
        CHECK(std::string(j.clones[c].files[0].path) == target);
        CHECK(j.clones[c].files[0].size_bytes == 8192);  // a new file grows to what the trace needs
    }
    CHECK(replay_stage(j));  // a job whose trace is loaded is left as it is
    CHECK(j.replay->nr_ios == 2);
}

TEST_CASE("the replay stage refuses a trace beyond its existing target and leaves the job alone")
{
    scratch_dir d;
    std::string trace = d.path + "/trace.log", target = d.path + "/small";
    std::ofstream(target) << std::string(4096, 'x');
    std::ofstream(trace) << "fio version 2 iolog\nf add\nf open\nf write 0 8192\nf close\n";
    plan_ptr p = plan_of("[r]\nread_iolog=" + trace + "\nreplay_redirect=" + target + "\nfilename=" + d.path +
                         "/planned\nsize=1M\n");
    plan_job &j = p->groups[0].jobs[0];
    CHECK_FALSE(replay_stage(j));
    CHECK(j.replay == nullptr);
    CHECK(std::string(j.clones[0].files[0].path) == d.path + "/planned");
}
