// tests/parser/test_engine_options.cpp - the options an engine's file brings
// (engine/plan_engopts.h): merged into the one option table with their engines
// taken from the engine list, and written into a job's options struct for the
// job's own engine only.
#include <doctest/doctest.h>

#include <string>

#include "parser/diag.hpp"
#include "parser/ini.hpp"
#include "parser/options.hpp"
#include "parser/parser.hpp"
#include "tests/parser/plan_text.hpp"

using namespace parser;

namespace {

plan_ptr plan_of(const std::string &text)
{
    return t::plan_of_ini(text);
}

} // namespace

TEST_CASE("an engine's declared options are rows of the option table, owned by the engines that name their table")
{
    size_t rows = 0;
    for (const option &o : options()) {
        if (!o.engine_opt)
            continue;
        rows++;
        std::string name = o.name, owners;
        CAPTURE(name);
        for (int e = 0; e < PLAN_IOENGINE_NR; e++)
            if (plan_engopt_find((plan_ioengine)e, o.name) == o.engine_opt)
                owners += (owners.empty() ? "" : " ") + std::string(plan_ioengine_name((plan_ioengine)e));
        CHECK(owners == o.engines);
        CHECK(find_option(o.name) == &o);
    }
    CHECK(rows >= 10);
    CHECK(std::string(find_option("stat_type")->engines) == "filestat dirstat");
}

TEST_CASE("a job's engine options struct holds its engine's values, given or defaulted, and no other engine's")
{
    plan_ptr p = plan_of("[c]\nioengine=cpuio\ncpuload=25\ncpumode=qsort\nruntime=1\n");
    REQUIRE(p);
    const plan_job &c = (*plan_job_at(p.get(), 0));
    REQUIRE(c.engine_opts);
    CHECK(plan_engopt_int(c.engine_opts, c.ioengine, "cpuload") == 25);
    CHECK(plan_engopt_int(c.engine_opts, c.ioengine, "cpuchunks") == 50000); // the declared default
    CHECK(plan_engopt_int(c.engine_opts, c.ioengine, "cpumode") == 1);
    CHECK(plan_engopt_int(c.engine_opts, c.ioengine, "grace_time") == 0); // exec's, not cpuio's

    plan_ptr x = plan_of("[x]\nioengine=exec\nprogram=true\nruntime=1\n");
    REQUIRE(x);
    CHECK(plan_engopt_int(plan_job_at(x.get(), 0)->engine_opts, PLAN_IOENGINE_EXEC, "grace_time") == 1);
    CHECK(plan_engopt_int(plan_job_at(x.get(), 0)->engine_opts, PLAN_IOENGINE_EXEC, "std_redirect") == 1);

    plan_ptr s = plan_of("[s]\nsize=1m\nfilename=/tmp/x\n");
    REQUIRE(s);
    CHECK(plan_job_at(s.get(), 0)->engine_opts == nullptr); // psync declares none
}

TEST_CASE("an engine's required option is refused when missing or zero, naming the engine and why")
{
    CHECK_THROWS_WITH(plan_of("[c]\nioengine=cpuio\nruntime=1\n"),
                      doctest::Contains("ioengine=cpuio needs cpuload= (the percentage of CPU to burn)"));
    CHECK_THROWS_WITH(plan_of("[c]\nioengine=cpuio\ncpuload=0\nruntime=1\n"),
                      doctest::Contains("ioengine=cpuio needs cpuload="));
    CHECK_THROWS_WITH(plan_of("[e]\nioengine=e4defrag\nfilename=/tmp/x\nsize=1m\n"),
                      doctest::Contains("ioengine=e4defrag needs donorname= (the file that lends its blocks)"));
}
