// tests/parser/test_options_lattarget.cpp - the option-table entries of latency_target
// and its companions, and of the reporting options (significant_figures, unit_base,
// stats, ...): the plan fields they fill, fio's default units, and the values refused.
#include <doctest/doctest.h>

#include <string>

#include "parser/convert.hpp"
#include "parser/options.hpp"
#include "tests/parser/applied.hpp"

using namespace parser;

namespace {

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
    CHECK(deprecated_option("flow_watermark")); // fio 3.33: soft-deprecated, noted and ignored
}

TEST_CASE("reporting options: fio's defaults, values and refusals")
{
    job_spec d = default_spec();
    CHECK(d.pj.sig_figs == 4);
    CHECK(d.pj.unit_base == 0);
    CHECK_FALSE(d.pj.no_stats);
    CHECK_FALSE(d.pj.disable_bw);
    CHECK_FALSE(d.pj.block_error_hist);
    CHECK(with("significant_figures", "10").pj.sig_figs == 10);
    CHECK(refused("significant_figures", "0"));
    CHECK(refused("significant_figures", "11"));
    CHECK(with("unit_base", "1").pj.unit_base == 1);
    CHECK(with("unit_base", "8").pj.unit_base == 8);
    CHECK(refused("unit_base", "3"));
    CHECK(with("stats", "0").pj.no_stats);
    CHECK(with("disable_bw", "1").pj.disable_bw);	// fio's alias
    CHECK(with("block_error_percentiles", "1").pj.block_error_hist);
    CHECK(with("file_append", "1").pj.file_append);
    for (const char *n : {"file_append", "significant_figures", "unit_base", "stats", "disable_bw_measurement", "block_error_percentiles"})
        CHECK(unsupported_reason(n).empty());
}
