// tests/report/test_model.cpp - group_reporting merge, group run statistics and
// repeat aggregation (report/model.cpp), on hand-built results.
#include <doctest/doctest.h>

#include <sstream>

#include "report/formats.hpp"
#include "report/model.hpp"
#include "report/report.hpp"
#include "tests/report/fixture.hpp"

namespace {

// fio.md §3's example: [a] numjobs=3 rw=read, [b] rw=write, [c] new_group,
// [d] stonewall numjobs=2; null engine, size=1m (256 x 4 KiB per clone).
std::vector<t::job_spec> gr_jobs(bool group_reporting)
{
	return {
		{ "a", PLAN_RW_READ, 0, 3, group_reporting, { { "rw", "read" } }, nullptr },
		{ "b", PLAN_RW_WRITE, 0, 1, group_reporting, { { "rw", "write" } }, nullptr },
		{ "c", PLAN_RW_READ, 1, 1, group_reporting, { { "new_group", "" } }, nullptr },
		{ "d", PLAN_RW_READ, 2, 2, group_reporting, { { "stonewall", "" } }, nullptr },
	};
}

void fill_gr(t::results_holder &r, const plan &p)
{
	uint64_t lat = 10;
	for (uint32_t j = 0; j < p.nr_jobs; j++) {
		const plan_job *pj = plan_job_at(&p, j);
		int d = pj->rw == PLAN_RW_WRITE ? PLAN_DDIR_WRITE : PLAN_DDIR_READ;
		for (uint32_t c = 0; c < pj->nr_clones; c++, lat += 10) {
			res_clone &cl = r.clone(j, c);
			t::add_ios(cl, d, 256, 4096, 800000, [lat](uint64_t i) { return lat + i; });
			cl.usr_ns = 1000000;	// whole ms, as fio counts them
			cl.sys_ns = 3000000;
			cl.minf = 5;
			cl.end_ns = 10000000;
			res_sample_stat_add(&cl.ddir[d].bw_kib_s, 1000 + lat);
			res_sample_stat_add(&cl.ddir[d].bw_kib_s, 1200 + lat);
		}
	}
}

} // namespace

TEST_CASE("group: group_reporting merges clones as fio does (fio.md §3 example)")
{
	t::plan_holder p(gr_jobs(true));
	t::results_holder r(p.get());
	fill_gr(r, p.get());
	report::model m = report::build_model(r.get(), p.get());

	REQUIRE(m.entries.size() == 3);
	const report::entry &a = m.entries[0];
	CHECK(a.name == "a");
	CHECK(a.members == 4);
	CHECK(a.groupid == 0);
	CHECK(a.last == plan_job_at(&p.get(), 1));	// job options come from b
	CHECK(a.job_ids == std::vector<uint32_t>{ 0, 1 });
	CHECK(m.entries[1].name == "c");
	CHECK(m.entries[2].name == "d");
	CHECK(m.entries[2].members == 2);

	// Bytes and ios summed, runtime the max, latency merged exactly.
	const res_clone &s = a.st.get();
	CHECK(s.ddir[PLAN_DDIR_READ].bytes == 3u * 256 * 4096);
	CHECK(s.ddir[PLAN_DDIR_WRITE].ios == 256);
	CHECK(s.ddir[PLAN_DDIR_READ].clat.n == 768);
	CHECK(s.ddir[PLAN_DDIR_READ].clat.min_ns == 10);
	CHECK(s.ddir[PLAN_DDIR_READ].clat.max_ns == 30 + 255);
	CHECK(res_lat_mean(&s.ddir[PLAN_DDIR_READ].clat) == doctest::Approx(20 + 127.5));
	// bw samples: min, max and mean added (not averaged) - fio's rule.
	CHECK(s.ddir[PLAN_DDIR_READ].bw_kib_s.min == 1010 + 1020 + 1030);
	CHECK(res_sample_stat_mean(&s.ddir[PLAN_DDIR_READ].bw_kib_s) ==
	      doctest::Approx(1110 + 1120 + 1130));
	// CPU summed over summed run time: the members' average.
	CHECK(report::usr_cpu_pct(a) == doctest::Approx(10.0));
	CHECK(report::sys_cpu_pct(a) == doctest::Approx(30.0));
	CHECK(s.minf == 20);

	// The terse lines: a, c, d with the summed values of fio's real run.
	std::ostringstream out;
	report::write_terse(out, m, r.get(), report::version_string());
	std::vector<std::string> lines = t::split(out.str(), '\n');
	REQUIRE(lines.size() == 4);	// three lines and the empty rest
	std::vector<std::string> fa = t::split(lines[0], ';'), fc = t::split(lines[1], ';'),
				 fd = t::split(lines[2], ';');
	CHECK(std::vector<std::string>(fa.begin() + 2, fa.begin() + 9) ==
	      std::vector<std::string>{ "a", "0", "0", "3072", "3072000", "768000", "1" });
	CHECK(std::vector<std::string>(fa.begin() + 46, fa.begin() + 50) ==
	      std::vector<std::string>{ "1024", "1024000", "256000", "1" });
	CHECK(std::vector<std::string>(fc.begin() + 2, fc.begin() + 9) ==
	      std::vector<std::string>{ "c", "1", "0", "1024", "1024000", "256000", "1" });
	CHECK(std::vector<std::string>(fd.begin() + 2, fd.begin() + 9) ==
	      std::vector<std::string>{ "d", "2", "0", "2048", "2048000", "512000", "1" });
}

TEST_CASE("cpu: usr and sys are whole ms over the run's whole ms, as fio's")
{
	t::plan_holder p({ { "r", PLAN_RW_READ, 0, 1, false, {}, nullptr } });
	t::results_holder r(p.get());
	res_clone &c = r.clone(0, 0);
	t::add_ios(c, PLAN_DDIR_READ, 16, 4096, 60000, [](uint64_t) { return 3000; });
	c.end_ns = 60000;	// a 64 KiB vsync write: a 0.06 ms window
	c.usr_ns = 97000;	// the thread's CPU time, as the kernel last brought it up to date
	c.sys_ns = 0;
	report::model m = report::build_model(r.get(), p.get());
	CHECK(report::usr_cpu_pct(m.entries[0]) == doctest::Approx(0.0));	// fio: run 0 ms, 0.00%

	c.end_ns = 10500000;	// 10 ms as fio counts the run
	c.usr_ns = 3700000;	// 3 ms
	c.sys_ns = 1999999;	// 1 ms
	m = report::build_model(r.get(), p.get());
	CHECK(report::usr_cpu_pct(m.entries[0]) == doctest::Approx(30.0));
	CHECK(report::sys_cpu_pct(m.entries[0]) == doctest::Approx(10.0));
}

TEST_CASE("group: without group_reporting every clone is its own line")
{
	t::plan_holder p(gr_jobs(false));
	t::results_holder r(p.get());
	fill_gr(r, p.get());
	report::model m = report::build_model(r.get(), p.get());
	std::vector<std::string> names;
	for (const report::entry &e : m.entries)
		names.push_back(e.name + ":" + std::to_string(e.groupid));
	CHECK(names == std::vector<std::string>{ "a:0", "a:0", "a:0", "b:0", "c:1", "d:2", "d:2" });
	for (const report::entry &e : m.entries)
		CHECK(e.members == 1);
}

TEST_CASE("group: run status statistics per group and direction")
{
	t::plan_holder p({ { "r1", PLAN_RW_READ, 0, 2, false, {}, nullptr } });
	t::results_holder r(p.get());
	t::add_ios(r.clone(0, 0), PLAN_DDIR_READ, 750, 4096, 1501000000, [](uint64_t) { return 50000; });
	t::add_ios(r.clone(0, 1), PLAN_DDIR_READ, 1500, 4096, 1000000000, [](uint64_t) { return 50000; });
	report::model m = report::build_model(r.get(), p.get());
	const report::group_stat &g = m.group(0);
	CHECK(g.iobytes[PLAN_DDIR_READ] == 2250u * 4096);
	CHECK(g.min_run[PLAN_DDIR_READ] == 1000);
	CHECK(g.max_run[PLAN_DDIR_READ] == 1501);
	CHECK(g.min_bw[PLAN_DDIR_READ] == 2046635);
	CHECK(g.max_bw[PLAN_DDIR_READ] == 6144000);
	CHECK(g.agg[PLAN_DDIR_READ] == 2250ull * 4096 * 1000 / 1501);
	CHECK(g.max_run[PLAN_DDIR_WRITE] == 0);
	CHECK(g.min_bw[PLAN_DDIR_WRITE] == 0);
	// per=: the (integer) sample mean as a share of the aggregate, capped at 100.
	CHECK(report::bw_share_pct(g, PLAN_DDIR_READ, 3000.9) ==
	      doctest::Approx(3000.0 * 100.0 / ((double)g.agg[0] / 1024.0)));
	CHECK(report::bw_share_pct(g, PLAN_DDIR_READ, 1e9) == 100.0);
}

TEST_CASE("group: a job with no results still has its line")
{
	t::plan_holder p({ { "ran", PLAN_RW_READ, 0, 1, false, {}, nullptr },
			   { "never", PLAN_RW_WRITE, 1, 1, false, {}, nullptr } });
	t::results_holder r(p.get());
	r.get().nr_jobs = 1;	// interrupted before "never" started
	t::add_ios(r.clone(0, 0), PLAN_DDIR_READ, 10, 4096, 1000000, [](uint64_t) { return 100; });
	report::model m = report::build_model(r.get(), p.get());
	REQUIRE(m.entries.size() == 2);
	CHECK(m.entries[1].name == "never");
	CHECK(m.entries[1].st.get().ddir[PLAN_DDIR_WRITE].ios == 0);
	r.get().nr_jobs = 2;	// so results_free releases everything
}

namespace {

// Three measured runs of one job plus a discarded warm-up run: throughput
// 100/300/200 I/Os, latency 900/500/700 ns.
struct repeat_fixture {
	t::plan_holder p;
	t::results_holder r;
	explicit repeat_fixture(enum plan_repeat_aggregate agg)
	    : p({ { "rep", PLAN_RW_READ, 0, 1, false, {}, [agg](plan_job &j) {
			   j.repeat = 3;
			   j.repeat_discard = 1;
			   j.repeat_aggregate = agg;
		   } } }),
	      r(p.get(), 4)
	{
		r.job_run(0, 0).discarded = true;
		const uint64_t ios[] = { 5000, 100, 300, 200 }, lat[] = { 1, 900, 500, 700 };
		for (uint32_t run = 0; run < 4; run++) {
			uint64_t l = lat[run];
			t::add_ios(r.clone(0, 0, run), PLAN_DDIR_READ, ios[run], 4096, 1000000000,
				   [l](uint64_t) { return l; });
		}
	}
	const res_ddir &read()
	{
		m = report::build_model(r.get(), p.get());
		return m.entries.at(0).st.get().ddir[PLAN_DDIR_READ];
	}
	report::model m;
};

} // namespace

TEST_CASE("group: repeat runs reduce to one aggregate per plan job")
{
	SUBCASE("max: highest throughput, lowest mean latency")
	{
		repeat_fixture f(PLAN_AGG_MAX);
		const res_ddir &d = f.read();
		CHECK(d.ios == 300);
		CHECK(d.clat.min_ns == 500);
		CHECK(f.m.runs[0].runs.size() == 4);
	}
	SUBCASE("min: lowest throughput, highest latency")
	{
		repeat_fixture f(PLAN_AGG_MIN);
		const res_ddir &d = f.read();
		CHECK(d.ios == 100);
		CHECK(d.clat.min_ns == 900);
	}
	SUBCASE("median: the middle run, whole")
	{
		repeat_fixture f(PLAN_AGG_MEDIAN);
		const res_ddir &d = f.read();
		CHECK(d.ios == 200);
		CHECK(d.clat.min_ns == 700);
	}
	SUBCASE("mean: amounts averaged, latency over every I/O")
	{
		repeat_fixture f(PLAN_AGG_MEAN);
		const res_ddir &d = f.read();
		CHECK(d.ios == 200);
		CHECK(d.bytes == 200u * 4096);
		CHECK(d.runtime_ns == 1000000000);
		CHECK(d.clat.n == 600);
		CHECK(res_lat_mean(&d.clat) == doctest::Approx((100 * 900 + 300 * 500 + 200 * 700) / 600.0));
	}
}

TEST_CASE("unified_rw_reporting: mixed folds the directions, both keeps them and adds the fold")
{
	for (enum plan_unified u : { PLAN_UNIFIED_MIXED, PLAN_UNIFIED_BOTH }) {
		t::plan_holder p({ { "m", PLAN_RW_RANDRW, 0, 1, false, {}, [u](plan_job &j) {
					   j.unified_rw_reporting = u;
				   } } });
		t::results_holder r(p.get());
		res_clone &cl = r.clone(0, 0);
		t::add_ios(cl, PLAN_DDIR_READ, 300, 4096, 800000, [](uint64_t i) { return 1000 + i; });
		t::add_ios(cl, PLAN_DDIR_WRITE, 100, 4096, 900000, [](uint64_t i) { return 50000 + i; });
		report::model m = report::build_model(r.get(), p.get());
		REQUIRE(m.entries.size() == 1);
		const report::entry &e = m.entries[0];
		const report::entry &folded = u == PLAN_UNIFIED_MIXED ? e : *e.mixed;
		const res_ddir &mx = folded.st.get().ddir[PLAN_DDIR_READ];

		CHECK(mx.ios == 400);
		CHECK(mx.bytes == 400u * 4096);
		CHECK(mx.runtime_ns == 900000);
		CHECK(mx.clat.n == 400);
		CHECK(mx.clat.min_ns == 1000);
		CHECK(mx.clat.max_ns == 50099);
		// Percentiles from the summed histogram: 75% of the I/Os are the fast reads.
		CHECK(res_lat_percentile(&mx.clat, 70.0) < 2000);
		CHECK(res_lat_percentile(&mx.clat, 80.0) > 40000);
		CHECK(folded.st.get().ddir[PLAN_DDIR_WRITE].ios == 0);
		if (u == PLAN_UNIFIED_MIXED) {
			CHECK(!e.mixed);
			CHECK(m.group(0).unified == PLAN_UNIFIED_MIXED);
			CHECK(m.group(0).iobytes[PLAN_DDIR_READ] == 400u * 4096);
		} else {
			CHECK(e.st.get().ddir[PLAN_DDIR_READ].ios == 300);
			CHECK(e.st.get().ddir[PLAN_DDIR_WRITE].ios == 100);
			CHECK(m.group(0).iobytes[PLAN_DDIR_WRITE] == 100u * 4096);
		}
	}
}
