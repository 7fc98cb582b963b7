// tests/parser/test_options_lattarget.cpp - the option-table entries of latency_target
// and its companions, and of the reporting options (significant_figures, unit_base,
// stats, ...): the plan fields they fill, fio's default units, and the values refused.
#include <doctest/doctest.h>

#include <string>

#include "parser/convert.hpp"
#include "parser/options.hpp"

using namespace parser;

namespace {

job_spec with(const char *name, const char *value)
{
    job_spec j = default_spec();
    const option &o = *find_option(name);
    o.apply(j, o, value);
    return j;
}

bool refused(const char *name, const char *value)
{
    try {
        with(name, value);
    } catch (const value_error &) {
        return true;
    }
    return false;
}

} // namespace

TEST_CASE("latency_target and latency_window: microseconds without a unit, as fio; percentile 100 by default")
{
    CHECK(default_spec().pj.lat_target_ns == 0);
    CHECK(default_spec().pj.lat_percentile == 100.0);
    CHECK_FALSE(default_spec().pj.lat_run);
    CHECK(with("latency_target", "500000").pj.lat_target_ns == 500000000ull);
    CHECK(with("latency_target", "10ms").pj.lat_target_ns == 10000000ull);
    CHECK(with("latency_window", "5000000").pj.lat_window_ns == 5000000000ull);
    CHECK(with("latency_percentile", "99.9").pj.lat_percentile == doctest::Approx(99.9));
    CHECK(with("latency_run", "1").pj.lat_run);
    for (const char *bad : {"101", "-1", "abc", "50:60"})
        CHECK(refused("latency_percentile", bad));
    CHECK(refused("latency_target", "abc"));
    CHECK(unsupported_reason("latency_target").empty());
    CHECK_FALSE(unsupported_reason("flow_watermark").empty());
}
