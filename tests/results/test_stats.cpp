// tests/results/test_stats.cpp - the statistics behind compare's verdicts (results/stats.cpp),
// checked against values computed by hand and by scipy (Mann-Whitney, normal approximation).
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "results/compare.hpp"
#include "results/stats.hpp"

TEST_CASE("stats: quantiles interpolate between order statistics")
{
	std::vector<double> v = { 5, 1, 4, 2, 3 };
	CHECK(resdb::quantile(v, 0.5) == doctest::Approx(3));
	CHECK(resdb::quantile(v, 0.1) == doctest::Approx(1.4));
	CHECK(resdb::quantile(v, 0.9) == doctest::Approx(4.6));
	CHECK(resdb::quantile({}, 0.5) == 0);
}

TEST_CASE("stats: the bootstrap interval holds the true change and excludes zero only beyond the noise")
{
	std::vector<double> a = { 100, 102, 98, 101, 99, 100, 103, 97 };
	std::vector<double> b_same = { 101, 99, 100, 98, 102, 100, 97, 103 };
	std::vector<double> b_half = { 50, 51, 49, 50, 52, 48, 50, 50 };
	double lo, hi;
	REQUIRE(resdb::bootstrap_change(a, b_same, 0.95, 2000, &lo, &hi));
	CHECK(lo < 0);
	CHECK(hi > 0);
	REQUIRE(resdb::bootstrap_change(a, b_half, 0.95, 2000, &lo, &hi));
	CHECK(hi < 0);
	CHECK(lo < -0.5);
	CHECK(hi > -0.5);
	CHECK_FALSE(resdb::bootstrap_change({ 1 }, b_half, 0.95, 2000, &lo, &hi));
}

TEST_CASE("stats: a percentile's interval from exact buckets spans the ranks n*p -/+ 1.96 sqrt(n p (1-p))")
{
	// 10000 values, one per bucket 1..10000: the p99 rank interval is 9900 -/+ 19.5.
	std::vector<std::pair<uint64_t, uint64_t>> b;
	for (uint64_t v = 1; v <= 10000; v++)
		b.emplace_back(v, 1);
	double lo, hi;
	REQUIRE(resdb::quantile_interval(b, 0.99, 0.95, &lo, &hi));
	CHECK(lo == 9880);
	CHECK(hi == 9920);
	CHECK_FALSE(resdb::quantile_interval({}, 0.99, 0.95, &lo, &hi));
	// 150 values: the p99.9's upper rank (149.85 + 0.76) is past the largest, so unknown,
	// and so is the p0.1's lower one; the max is no 97.5% bound of the p99.9
	std::vector<std::pair<uint64_t, uint64_t>> few;
	for (uint64_t v = 1; v <= 150; v++)
		few.emplace_back(v, 1);
	REQUIRE(resdb::quantile_interval(few, 0.999, 0.95, &lo, &hi));
	CHECK(lo == 149);
	CHECK(std::isinf(hi));
	REQUIRE(resdb::quantile_interval(few, 0.001, 0.95, &lo, &hi));
	CHECK(lo == 0);
	CHECK(hi == 1);
}

TEST_CASE("stats: a percentile's interval counts ranks from the smallest latency whatever the buckets' order")
{
	// A json+ file's bins, read into a map keyed by text: "1000" < "2" < "30000" < "400".
	std::vector<std::pair<uint64_t, uint64_t>> as_text = { { 1000, 10 }, { 2, 970 }, { 30000, 10 }, { 400, 10 } };
	double lo, hi;
	REQUIRE(resdb::quantile_interval(as_text, 0.99, 0.95, &lo, &hi));
	// sorted: 2 x970, 400 x10, 1000 x10, 30000 x10; ranks 990 -/+ 6.2 -> 983..997
	// (in the text order they were 30000..400: an interval upside down)
	CHECK(lo == 1000);
	CHECK(hi == 30000);
	REQUIRE(resdb::quantile_interval(as_text, 0.5, 0.95, &lo, &hi));
	CHECK(lo == 2);
	CHECK(hi == 2);
}

TEST_CASE("stats: Mann-Whitney's p-value matches scipy's asymptotic one")
{
	// scipy.stats.mannwhitneyu(a, b, method="asymptotic") -> pvalue 0.005075 (use_continuity=True)
	std::vector<double> a = { 1, 2, 3, 4, 5, 6 }, b = { 7, 8, 9, 10, 11, 12 };
	CHECK(resdb::mann_whitney_p(a, b) == doctest::Approx(0.005075).epsilon(0.01));
	CHECK(resdb::mann_whitney_p(a, a) == doctest::Approx(1.0));
}

TEST_CASE("stats: Tukey's fences flag the one odd run")
{
	std::vector<bool> odd = resdb::outliers({ 100, 101, 99, 102, 98, 100, 20 });
	CHECK(odd == std::vector<bool>{ false, false, false, false, false, false, true });
	// runs that agree to a tenth of a percent: one 0.6% off is beyond the fences, not 10% away
	std::vector<double> held = { 999, 999, 999, 999, 996, 993 };
	CHECK(resdb::outliers(held) == std::vector<bool>{ false, false, false, false, false, true });
	CHECK(resdb::outliers(held, 0.10) == std::vector<bool>(6, false));
	held.back() = 500;
	CHECK(resdb::outliers(held, 0.10) == std::vector<bool>{ false, false, false, false, false, true });
}

TEST_CASE("compare: verdicts follow the interval, and the gate needs both the bound and the noise")
{
	resdb::run_record a, b;
	resdb::figure fa;
	fa.job = "j";
	fa.ddir = "read";
	fa.iops = 100;
	fa.iops_samples = { 100, 102, 98, 101, 99, 100 };
	fa.bw_samples = fa.iops_samples;
	fa.bw_bytes = 100;
	resdb::figure fb = fa;
	fb.iops = 90;
	fb.iops_samples = { 90, 91, 89, 90, 92, 88 };
	fb.bw_samples = fb.iops_samples;
	fb.bw_bytes = 90;
	a.figures = { fa };
	b.figures = { fb };
	resdb::comparison c = resdb::compare(a, b);
	REQUIRE(c.metrics.size() == 5);
	CHECK(c.metrics[0].metric == "iops");
	CHECK(c.metrics[0].verdict == "slower");
	CHECK(c.metrics[0].change == doctest::Approx(-0.1));
	std::vector<const resdb::metric_cmp *> worse;
	CHECK(resdb::regressed(c, 5, &worse));
	worse.clear();
	CHECK_FALSE(resdb::regressed(c, 15, &worse));
	b.figures[0].plan["bs"] = "8192";
	CHECK(resdb::compare(a, b).plan_differences.size() == 1);
}
