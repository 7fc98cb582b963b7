// tests/parser/test_cmdprio.cpp - prio, prioclass and the cmdprio options as
// parser/options.cpp and parser/cmdprio.cpp read them: fio 3.33's forms, per
// direction, and the values fio would clamp or find only at run time refused here.
#include <doctest/doctest.h>

#include "parser/convert.hpp"
#include "parser/options.hpp"
#include "parser/values.hpp"
#include "tests/parser/applied.hpp"

using namespace parser;

namespace {

size_t error_at(const char *name, const char *value)
{
    try {
        with(name, value);
    } catch (const value_error &e) {
        return e.offset;
    }
    FAIL("no error for " << name << "=" << value);
    return 0;
}

} // namespace

TEST_CASE("prio and prioclass set the thread's priority; unset, none is asked for")
{
    CHECK_FALSE(default_spec().pj.ioprio_set);
    job_spec j = with("prio", "5");
    CHECK(j.pj.ioprio_set);
    CHECK(j.pj.ioprio_level == 5);
    CHECK(with("prioclass", "3").pj.ioprio_class == 3);
    CHECK_THROWS_AS(with("prio", "8"), value_error);
    CHECK_THROWS_AS(with("prioclass", "4"), value_error);
}

TEST_CASE("cmdprio_percentage, cmdprio_class and cmdprio take read,write values")
{
    job_spec j = with("cmdprio_percentage", "30");
    CHECK(j.pj.cmdprio[0].pct == 30);
    CHECK(j.pj.cmdprio[1].pct == 30);
    j = with("cmdprio_percentage", "10,40");
    CHECK(j.pj.cmdprio[0].pct == 10);
    CHECK(j.pj.cmdprio[1].pct == 40);
    CHECK(with("cmdprio_class", "3").pj.cmdprio[1].prio_class == 3);
    CHECK(with("cmdprio", "2,6").pj.cmdprio[1].level == 6);
    CHECK_THROWS_AS(with("cmdprio_percentage", "101"), value_error);
    CHECK_THROWS_AS(with("cmdprio_class", "0"), value_error);
    CHECK_THROWS_AS(with("cmdprio", "8"), value_error);
}

TEST_CASE("cmdprio_bssplit: fio's entry forms, zero entries dropped, sorted by block size")
{
    job_spec j = with("cmdprio_bssplit", "1024k/0:64k/25/1/1:64k/75/3/2:8k/10");
    CHECK(j.pj.cmdprio_bssplit);
    const std::vector<plan_cmdprio_split> &r = j.cmdprio_split[0];
    REQUIRE(j.pj.cmdprio[0].nr_split == 3);
    REQUIRE(r.size() == 3);
    CHECK(r[0].bs_bytes == 8192);
    CHECK(r[0].ioprio == -1);	// cmdprio_class/cmdprio's
    CHECK(r[1].bs_bytes == 65536);
    CHECK(r[1].pct == 25);
    CHECK(r[1].ioprio == ((1 << 13) | 1));
    CHECK(r[2].ioprio == ((3 << 13) | 2));
    CHECK(j.pj.cmdprio[1].nr_split == 3);	// one list: both directions
    // Class 0 is best effort, as fio's ioprio_value().
    CHECK(with("cmdprio_bssplit", "4k/50/0/4").cmdprio_split[0][0].ioprio == ((2 << 13) | 4));
    CHECK(with("cmdprio_bssplit", "4k/").pj.cmdprio[0].nr_split == 0);
}

TEST_CASE("cmdprio_bssplit with a comma: the first list is read's, the second write's")
{
    job_spec j = with("cmdprio_bssplit", "64k/100:1m/0,1m/50");
    REQUIRE(j.pj.cmdprio[0].nr_split == 1);
    CHECK(j.cmdprio_split[0][0].bs_bytes == 65536);
    REQUIRE(j.pj.cmdprio[1].nr_split == 1);
    CHECK(j.cmdprio_split[1][0].bs_bytes == 1048576);
    CHECK(j.cmdprio_split[1][0].pct == 50);
}

TEST_CASE("cmdprio_bssplit errors point into the value")
{
    CHECK(error_at("cmdprio_bssplit", "4k/50/1") == 0);	// three fields: fio's "invalid format"
    CHECK(error_at("cmdprio_bssplit", "4k/50/1/9") == 8);	// the level
    CHECK(error_at("cmdprio_bssplit", "4k/50/5/1") == 6);	// the class
    CHECK(error_at("cmdprio_bssplit", "4k/10:8k/150") == 9);	// fio would clamp it to 100
    CHECK(error_at("cmdprio_bssplit", "4k/10,x/5") == 6);	// write's list
    CHECK_THROWS_AS(with("cmdprio_bssplit", "4k/60:4k/60"), value_error);	// one size over 100
    CHECK_THROWS_AS(with("cmdprio_bssplit", "a,b,c,d"), value_error);
}
