// tests/parser/test_check_only.cpp - --parse-only's planning (request::check_only):
// every job is checked as in a run and then dropped, so a job file of many
// sections costs no plan memory per section, and the checks that look back at
// earlier jobs (wait_for=, a group's steady state) still see the dropped ones.
#include <doctest/doctest.h>

#include <string>

#include "parser/ini.hpp"
#include "parser/parser.hpp"

namespace {

parser::plan_ptr plan_of(const std::string &text, bool check_only)
{
    parser::request req;
    req.check_only = check_only;
    parser::diag_list notes;
    return parser::plan_documents({parser::read_ini_text(text, "t.fio")}, req, &notes);
}

std::string error_of(const std::string &text, bool check_only)
{
    try {
        plan_of(text, check_only);
    } catch (const parser::error &e) {
        return e.text();
    }
    return "";
}

std::string sections(int n, const std::string &each)
{
    std::string text = "[global]\nioengine=null\nsize=1m\n";
    for (int i = 0; i < n; i++)
        text += "[job" + std::to_string(i) + "]\n" + each;
    return text;
}

uint32_t kept(const plan &p)
{
    uint32_t n = 0;
    for (uint32_t g = 0; g < p.nr_groups; g++)
        n += p.groups[g].nr_jobs;
    return n;
}

} // namespace

TEST_CASE("checking a job file keeps none of its jobs, a run keeps them all")
{
    std::string text = sections(1000, "filename=/tmp/x\n");
    parser::plan_ptr run = plan_of(text, false), check = plan_of(text, true);
    CHECK(run->nr_jobs == 1000);
    CHECK(kept(*run) == 1000);
    CHECK(check->nr_jobs == 1000);
    CHECK(kept(*check) == 0);
    CHECK(plan_job_at(check.get(), 0) == nullptr);
}

TEST_CASE("checking keeps a job whose iolog is read after planning")
{
    std::string text = sections(3, "") + "[replay]\nread_iolog=/nonexistent.log\n";
    parser::plan_ptr check = plan_of(text, true);
    REQUIRE(kept(*check) == 1);
    CHECK(std::string(plan_job_at(check.get(), 0)->name) == "replay");
    CHECK(plan_job_at(check.get(), 0)->job_id == 3);
}

TEST_CASE("checking finds a dropped job by wait_for= as a run does")
{
    std::string text = sections(3, "stonewall\n") + "[late]\nwait_for=job1\n";
    parser::plan_ptr check = plan_of(text, true);
    CHECK(kept(*check) == 0);
    CHECK(error_of(text, true).empty());
    std::string bad = sections(3, "") + "[late]\nwait_for=job9\n";
    CHECK(error_of(bad, true) == error_of(bad, false));
    CHECK(error_of(bad, true).find("wait_for=job9: no earlier job has that name") != std::string::npos);
}

TEST_CASE("checking judges a group's steady state against its dropped first job")
{
    std::string text = "[a]\nioengine=null\nsize=1m\nss=iops:10%\nss_dur=5\n"
                       "[b]\nioengine=null\nsize=1m\nss=iops:20%\nss_dur=5\n";
    std::string err = error_of(text, true);
    CHECK(err == error_of(text, false));
    CHECK(err.find("its steady-state options differ from job 'a'") != std::string::npos);
}
