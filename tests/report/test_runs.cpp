// tests/report/test_runs.cpp - per-run figures and scores (report/runs.cpp):
// every run is kept, discarded runs never count, and each aggregate picks what
// its rule says from known per-run results.
#include <doctest/doctest.h>

#include "report/runs.hpp"
#include "tests/report/fixture.hpp"

namespace {

// n I/Os of bs bytes over window_ns, each with completion latency clat_ns
// (the fixture records total latency as clat + 100 ns).
void give(res_clone &c, int d, uint64_t n, uint64_t bs, uint64_t window_ns, uint64_t clat_ns)
{
	t::add_ios(c, d, n, bs, window_ns, [=](uint64_t) { return clat_ns; });
}

constexpr uint64_t S5 = 5000000000ull;

t::job_spec spec(const char *name, enum plan_rw rw, uint32_t numjobs = 1)
{
	return t::job_spec{ name, rw, 0, numjobs, true, {}, nullptr };
}

} // namespace

TEST_CASE("runs: every run is kept in order, discarded ones flagged")
{
	t::plan_holder ph({ spec("seq", PLAN_RW_READ) });
	t::results_holder rh(ph.get(), 3);
	rh.job_run(0, 0).discarded = true;
	for (uint32_t run = 0; run < 3; run++)
		give(rh.clone(0, 0, run), PLAN_DDIR_READ, 100 * (run + 1), 4096, S5, 1000);

	auto runs = report::runs_by_job(rh.get(), ph.get());
	REQUIRE(runs.size() == 1);
	REQUIRE(runs[0].size() == 3);
	CHECK(runs[0][0].discarded);
	CHECK(runs[0][0].ios == 100);
	CHECK(runs[0][2].ios == 300);
	auto m = report::measured(runs[0]);
	REQUIRE(m.size() == 2);
	CHECK(m[0].run == 1);
	CHECK(m[0].bytes_per_s() == doctest::Approx(200 * 4096 / 5.0));
	CHECK(m[0].lat_mean_ns() == doctest::Approx(1100));
}

TEST_CASE("runs: clones of one run add up; latency is the mean over every I/O")
{
	t::plan_holder ph({ spec("t16", PLAN_RW_RANDREAD, 16) });
	t::results_holder rh(ph.get(), 1);
	for (uint32_t c = 0; c < 16; c++)
		give(rh.clone(0, c), PLAN_DDIR_READ, 1000, 4096, S5 - c, c < 8 ? 1000000 : 3000000);

	report::run_figures f = report::figures_of(rh.job_run(0));
	CHECK(f.ios == 16000);
	CHECK(f.window_ns == S5);	// the longest clone window
	CHECK(f.iops() == doctest::Approx(3200.0));
	CHECK(f.lat_mean_ns() == doctest::Approx(2000100.0));
}

TEST_CASE("runs: the four aggregates over known per-run figures")
{
	// MB/s of the measured runs: 10, 40, 20, 30 (x 10^6); latencies chosen so
	// that the lowest does not belong to the fastest run.
	const uint64_t ios[] = { 999, 10, 40, 20, 30 };
	const uint64_t lat[] = { 1, 4000, 3000, 1000, 2000 };
	t::plan_holder ph({ spec("j", PLAN_RW_READ) });
	t::results_holder rh(ph.get(), 5);
	rh.job_run(0, 0).discarded = true;
	for (uint32_t run = 0; run < 5; run++)
		give(rh.clone(0, 0, run), PLAN_DDIR_READ, ios[run], 1000000, 1000000000ull, lat[run]);
	auto m = report::measured(report::runs_by_job(rh.get(), ph.get())[0]);
	REQUIRE(m.size() == 4);

	report::score mx = report::score_of(m, PLAN_AGG_MAX);
	CHECK(mx.bytes_per_s == doctest::Approx(40e6));
	CHECK(mx.iops == doctest::Approx(40));
	CHECK(mx.lat_mean_ns == doctest::Approx(1100));	// run 3, not the discarded run's 101
	CHECK(mx.lo_bytes_per_s == doctest::Approx(10e6));
	CHECK(mx.hi_bytes_per_s == doctest::Approx(40e6));
	CHECK(mx.n == 4);

	report::score mn = report::score_of(m, PLAN_AGG_MIN);
	CHECK(mn.bytes_per_s == doctest::Approx(10e6));
	CHECK(mn.lat_mean_ns == doctest::Approx(4100));

	report::score avg = report::score_of(m, PLAN_AGG_MEAN);
	CHECK(avg.bytes_per_s == doctest::Approx(25e6));
	CHECK(avg.iops == doctest::Approx(25));
	CHECK(avg.lat_mean_ns == doctest::Approx(2600));

	// Lower median of 10, 20, 30, 40 is 20 (run 3), and all three figures from it.
	report::score med = report::score_of(m, PLAN_AGG_MEDIAN);
	CHECK(med.bytes_per_s == doctest::Approx(20e6));
	CHECK(med.lat_mean_ns == doctest::Approx(1100));
}

TEST_CASE("runs: no runs score zero; a run that moved no data gives no latency")
{
	CHECK(report::score_of({}, PLAN_AGG_MAX).n == 0);
	t::plan_holder ph({ spec("j", PLAN_RW_READ) });
	t::results_holder rh(ph.get(), 2);
	give(rh.clone(0, 0, 1), PLAN_DDIR_READ, 10, 4096, S5, 5000);
	auto m = report::measured(report::runs_by_job(rh.get(), ph.get())[0]);
	report::score s = report::score_of(m, PLAN_AGG_MAX);
	CHECK(s.lat_mean_ns == doctest::Approx(5100));	// run 0 moved no data
	CHECK(s.lo_bytes_per_s == 0);
}
