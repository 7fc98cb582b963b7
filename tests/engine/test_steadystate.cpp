// tests/engine/test_steadystate.cpp - steady-state detection (engine/steadystate.c):
// the window's slope and deviation against values worked out by hand from fio
// 3.33's formulas (steadystate.c), and a rate-limited null job that stops once
// steady while one that never steadies runs to its runtime.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "engine/steadystate.h"
#include "tests/engine/plan_builder.hpp"

using pb::job_spec;

namespace {

// Feeds samples (as IOPS, bandwidth = 4096 x IOPS); returns what the last one judged.
bool feed(ss_window &w, const std::vector<uint64_t> &iops)
{
	bool attained = false;
	for (uint64_t v : iops)
		attained = ss_window_add(&w, v, v * 4096);
	return attained;
}

std::vector<uint64_t> ordered_iops(const ss_window &w)
{
	std::vector<uint64_t> iops(w.dur), bw(w.dur);
	ss_window_ordered(&w, iops.data(), bw.data());
	return iops;
}

} // namespace

TEST_CASE("steadystate: the slope is the least-squares slope over the window, in percent of its mean")
{
	// x = 0..4, y = 100..108: sum_xy 1060, sum_x 10, sum_y 520, sum_x^2 30;
	// slope (1060 - 10*520/5) / (30 - 10*10/5) = 2; 2 is 1.923077% of the mean 104.
	ss_window w;
	REQUIRE(ss_window_init(&w, PLAN_SS_IOPS | PLAN_SS_SLOPE | PLAN_SS_PCT, 2.0, 5) == 0);
	CHECK(feed(w, { 100, 102, 104, 106, 108 }));
	CHECK(w.slope == doctest::Approx(2.0));
	CHECK(w.criterion == doctest::Approx(1.923077).epsilon(1e-6));
	CHECK((w.flags & RES_SS_ATTAINED) != 0);
	ss_window_free(&w);

	REQUIRE(ss_window_init(&w, PLAN_SS_IOPS | PLAN_SS_SLOPE | PLAN_SS_PCT, 1.9, 5) == 0);
	CHECK_FALSE(feed(w, { 100, 102, 104, 106, 108 }));
	CHECK((w.flags & RES_SS_ATTAINED) == 0);
	ss_window_free(&w);
}

TEST_CASE("steadystate: a falling slope counts by its size, and the percent is over fio's integer mean")
{
	// y = 2, 2, 1: sum_y 5, integer mean 5/3 = 1 (fio divides integers), sum_xy 4;
	// slope (4 - 3*5/3) / (5 - 3*3/3) = -0.5, criterion -50% (not the -30% a real mean gives).
	ss_window w;
	REQUIRE(ss_window_init(&w, PLAN_SS_IOPS | PLAN_SS_SLOPE | PLAN_SS_PCT, 51.0, 3) == 0);
	CHECK(feed(w, { 2, 2, 1 }));
	CHECK(w.slope == doctest::Approx(-0.5));
	CHECK(w.criterion == doctest::Approx(-50.0));
	ss_window_free(&w);
}

TEST_CASE("steadystate: bw criteria judge the bandwidth samples, absolute limits in their unit")
{
	// bw = 4096 x (10, 12, 8, 10): mean 40960, largest distance 8192 bytes/s.
	ss_window w;
	REQUIRE(ss_window_init(&w, PLAN_SS_BW, 8192.0, 4) == 0);
	CHECK_FALSE(feed(w, { 10, 12, 8, 10 }));	// 8192 is not below 8192
	CHECK(w.deviation == doctest::Approx(8192.0));
	CHECK(w.criterion == doctest::Approx(8192.0));
	ss_window_free(&w);
	REQUIRE(ss_window_init(&w, PLAN_SS_BW | PLAN_SS_PCT, 20.5, 4) == 0);
	CHECK(feed(w, { 10, 12, 8, 10 }));	// 20% of the mean
	CHECK(w.criterion == doctest::Approx(20.0));
	ss_window_free(&w);
}

TEST_CASE("steadystate: the window rolls: only the last dur samples are judged, oldest first")
{
	ss_window w;
	REQUIRE(ss_window_init(&w, PLAN_SS_IOPS, 1.0, 3) == 0);
	CHECK_FALSE(ss_window_add(&w, 7, 0));
	CHECK_FALSE(ss_window_add(&w, 9, 0));
	CHECK((w.flags & RES_SS_FULL) == 0);
	CHECK(ordered_iops(w) == std::vector<uint64_t>{ 7, 9, 0 });	// fio prints the unfilled slots as 0
	CHECK_FALSE(ss_window_add(&w, 20, 0));
	CHECK((w.flags & RES_SS_FULL) != 0);
	CHECK_FALSE(feed(w, { 20 }));		// 9, 20, 20: mean 16.33, off by 7.33
	CHECK(w.deviation == doctest::Approx(22.0 / 3.0));
	CHECK(feed(w, { 20 }));			// 20, 20, 20
	CHECK(w.deviation == 0.0);
	CHECK(ordered_iops(w) == std::vector<uint64_t>{ 20, 20, 20 });
	ss_window_free(&w);
}

TEST_CASE("steadystate: a window of zeros never attains a percent limit (no mean to take a percent of)")
{
	ss_window w;
	REQUIRE(ss_window_init(&w, PLAN_SS_IOPS | PLAN_SS_PCT, 5.0, 2) == 0);
	CHECK_FALSE(feed(w, { 0, 0, 0 }));
	CHECK(std::isnan(w.criterion));
	ss_window_free(&w);
}

// One null job at 2000 IOPS for runtime_s with a steady-state criterion, run to its end.
static pb::results_ptr run_rated(double runtime_s, uint32_t flags, double limit, uint32_t dur)
{
	pb::tmpdir d;
	auto p = pb::build(d.path(), { job_spec("ss", PLAN_RW_READ, PLAN_IOENGINE_NULL, 1ull << 30).with([&](plan_job &j) {
		j.time_based = true;
		j.runtime_ns = (uint64_t)(runtime_s * 1e9);
		j.rate_iops[PLAN_DDIR_READ] = 2000;
		j.ss_flags = flags;
		j.ss_limit = limit;
		j.ss_dur_s = dur;
	}) });
	return pb::run(*p);
}

TEST_CASE("steadystate: a rate-limited job stops once steady, its record in the results")
{
	auto r = run_rated(30, PLAN_SS_IOPS | PLAN_SS_PCT, 10.0, 2);
	const res_job *rj = pb::find_job(*r, 0);
	REQUIRE(rj);
	REQUIRE(rj->ss);
	const res_ss &s = rj->ss[0];
	REQUIRE(s.on);
	CHECK((s.flags & RES_SS_ATTAINED) != 0);
	CHECK(s.dur_s == 2);
	CHECK(s.attained_ns > 0);
	// Two samples of a steady 2000 IOPS, taken a second apart: a few seconds, not the 30 s runtime.
	const res_ddir &rd = rj->clones[0].ddir[PLAN_DDIR_READ];
	CHECK(rd.runtime_ns < 15000000000ull);
	// The record is the window that was judged: its deviation, worked out again from the
	// samples, is the criterion, and under the limit.  How close each sample comes to 2000
	// is the machine's (a loaded one stalls the job, and the schedule catches up later).
	uint64_t sum = 0;
	for (uint32_t i = 0; i < s.dur_s; i++)
		sum += s.iops[i];
	double mean = (double)sum / s.dur_s, dev = 0.0;
	for (uint32_t i = 0; i < s.dur_s; i++)
		dev = std::fmax(dev, std::fabs((double)s.iops[i] - mean));
	CHECK(s.criterion == doctest::Approx(100.0 * dev / mean));
	CHECK(std::fabs(s.criterion) < 10.0);
	// The samples count this job's I/Os a second: no more than it did, and per second, not
	// per some other interval (which would be tens of times off 2000).  A sample is fio's
	// rate, 1000 x I/Os over the whole milliseconds since the last: a tick after a late one
	// comes a fraction of a millisecond short of the second and rounds its interval down
	// (2000 I/Os over 999.6 ms are 2002; seen as 4002 of 4001 I/Os on a busy machine).
	CHECK(sum <= rd.ios + rd.ios / 100 + s.dur_s);
	CHECK(mean > 1000.0);
	CHECK(mean < 4000.0);
	// The rate is the tool's own: due times run from the start, never ahead of them.
	CHECK(rd.ios <= 2000 * rd.runtime_ns / 1000000000ull + 2);
}

TEST_CASE("steadystate: a job that never steadies runs to its runtime and says so")
{
	auto r = run_rated(2.5, PLAN_SS_IOPS | PLAN_SS_SLOPE, 0.0, 2);	// |slope| < 0 is never true
	const res_job *rj = pb::find_job(*r, 0);
	REQUIRE(rj);
	REQUIRE(rj->ss);
	CHECK((rj->ss[0].flags & RES_SS_ATTAINED) == 0);
	CHECK(rj->ss[0].attained_ns == 0);
	CHECK(rj->clones[0].ddir[PLAN_DDIR_READ].runtime_ns >= 2400000000ull);
}

// Sampling over scripted clones and a scripted clock (tests/engine/ss_sampling.c):
// a sample sums every clone of the unit, whatever the machine's load.
struct t_ss_clone {
	uint64_t start_ns;
	uint64_t end_ns;
	uint64_t iops;
};
extern "C" int t_ss_run(const plan_job *j, const t_ss_clone *clones, uint32_t n, uint64_t until_ns, res_job *rj);
extern "C" void t_ss_free(res_job *rj);

namespace {

const uint64_t S = 1000000000ull;

// The window's samples (oldest first) of the record clone `at` holds, after a scripted run.
std::vector<uint64_t> sampled(bool grouped, const std::vector<t_ss_clone> &clones, uint64_t until_ns,
			      uint32_t at)
{
	pb::tmpdir d;
	auto p = pb::build(d.path(), { job_spec("ss", PLAN_RW_READ, PLAN_IOENGINE_NULL, 1 << 20,
						(uint32_t)clones.size()).with([&](plan_job &j) {
		j.group_reporting = grouped;
		j.ss_flags = PLAN_SS_IOPS | PLAN_SS_SLOPE;
		j.ss_limit = 0.0;	// |slope| < 0 never holds: the window rolls to the end
		j.ss_dur_s = 2;
		j.ss_ramp_ns = S;
	}) });
	std::vector<res_clone> out(clones.size());
	res_job rj{};
	rj.clones = out.data();
	rj.nr_clones = (uint32_t)clones.size();
	REQUIRE(t_ss_run(plan_job_at(p.get(), 0), clones.data(), (uint32_t)clones.size(), until_ns, &rj) == 0);
	std::vector<uint64_t> iops;
	if (rj.ss && rj.ss[at].on)
		iops.assign(rj.ss[at].iops, rj.ss[at].iops + rj.ss[at].dur_s);
	t_ss_free(&rj);
	return iops;
}

} // namespace

TEST_CASE("steadystate: a group's sample is every clone's rate summed, its first and its last")
{
	// Four clones of 2000 IOPS starting microseconds apart (a stream's: no start gate).
	std::vector<t_ss_clone> four;
	for (uint64_t i = 0; i < 4; i++)
		four.push_back({ S + i * 3000, 0, 2000 });
	// The run ends once the window first fills (4.2 s): its first sample is whole too.
	CHECK(sampled(true, four, 4 * S + 200000000, 3) == std::vector<uint64_t>{ 8000, 8000 });

	// The unit's seconds count from the last start (S + 9 us): the coordinator's
	// 100 ms ticks take the samples at 2.1 s (the ramp's end), 3.1 s and 4.1 s.
	// The clones end 1 ms before the last: ended, they still count for the I/O
	// they did (summing those still running gave 0).
	for (auto &c : four)
		c.end_ns = 4 * S + 99000000;
	std::vector<uint64_t> ended = sampled(true, four, 4 * S + 200000000, 3);
	REQUIRE(ended.size() == 2);
	CHECK(ended[0] == 8000);
	CHECK(ended[1] >= 7990);	// 999 ms of I/O over the second it was taken in
	CHECK(ended[1] <= 8000);

	// Started within half a second of each other, their ramps end at one sample:
	// the first sample holds all three, not only the first's.  Seconds from 1.4 s:
	// samples at 2.4 s (the ramp's end), 3.4 s and 4.4 s.
	std::vector<t_ss_clone> spread{ { S, 0, 2000 }, { S + 200000000, 0, 2000 }, { S + 400000000, 0, 2000 } };
	CHECK(sampled(true, spread, 4 * S + 500000000, 2) == std::vector<uint64_t>{ 6000, 6000 });
}

TEST_CASE("steadystate: without group_reporting each clone's sample is its own rate")
{
	std::vector<t_ss_clone> two{ { S, 0, 2000 }, { S, 0, 500 } };
	CHECK(sampled(false, two, 5 * S, 0) == std::vector<uint64_t>{ 2000, 2000 });
	CHECK(sampled(false, two, 5 * S, 1) == std::vector<uint64_t>{ 500, 500 });
}
