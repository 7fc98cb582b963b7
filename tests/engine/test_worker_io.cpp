// tests/engine/test_worker_io.cpp - the hot loop's bookkeeping (engine/worker/worker_io.c):
// how many clock reads an I/O costs, lat recorded once for sync engines, lat = slat +
// clat for async ones, phase ends seen inside a burst of sync I/Os, and the two
// copies of the loop trip (plain and general) doing the same I/O.
#include <doctest/doctest.h>

#include <chrono>
#include <cstring>

#include "tests/engine/plan_builder.hpp"

using pb::job_spec;

namespace {

uint64_t hist_total(const res_lat &l)
{
	uint64_t n = 0;
	for (uint32_t i = 0; i < RES_HIST_NR; i++)
		n += l.hist[i];
	return n;
}

} // namespace

TEST_CASE("worker_io: a back-to-back sync stream reads the clock once per I/O, an async one about once")
{
	pb::tmpdir d;
	eng_opts o = pb::fake_clock();	// every read advances the clock by 1 us
	for (uint32_t depth : { 1u, 8u }) {
		CAPTURE(depth);
		auto p = pb::build(d.path(), { job_spec("s", PLAN_RW_RANDREAD, PLAN_IOENGINE_NULL, 1024 * 4096)
						       .opt("iodepth", std::to_string(depth)).with([&](plan_job &j) {
							       j.iodepth_batch_complete_max = depth;
						       }) });
		int ret = -1;
		auto r = pb::run(*p, &ret, &o);
		REQUIRE(ret == 0);
		const res_clone &c = pb::first_clone(*r);
		const res_ddir &rd = c.ddir[PLAN_DDIR_READ];
		REQUIRE(rd.ios == 1024);
		uint64_t reads = (c.end_ns - c.start_ns) / 1000;
		if (depth == 1) {
			// One read per I/O: its completion, which also starts the next one.
			CHECK(reads <= 1024 + 4);
			CHECK(rd.clat.min_ns == 1000);
			CHECK(rd.clat.max_ns == 1000);
		} else {
			// A commit per I/O (batch_submit 1); per 8: a reap and the prepare after it.
			CHECK(reads <= 1024 + 2 * 1024 / 8 + 8);
			CHECK(rd.slat.max_ns == 1000);
		}
	}
}

TEST_CASE("worker_io: at the default batch sizes the queue stays full and each I/O costs about one clock read")
{
	// fio's defaults (iodepth_batch_submit 1, complete_min 1 = complete_max): each
	// completion is followed by a submission before the next one is handed back.
	// The completions the engine already holds are fetched in one call, so the
	// submission's clock read is the only one an I/O costs.
	pb::tmpdir d;
	eng_opts o = pb::fake_clock();
	auto p = pb::build(d.path(), { job_spec("q", PLAN_RW_RANDREAD, PLAN_IOENGINE_NULL, 4096 * 4096)
					       .opt("iodepth", "32") });
	int ret = -1;
	auto r = pb::run(*p, &ret, &o);
	REQUIRE(ret == 0);
	const res_clone &c = pb::first_clone(*r);
	const res_ddir &rd = c.ddir[PLAN_DDIR_READ];
	REQUIRE(rd.ios == 4096);
	CHECK(c.depth[5] >= 4096 - 31);		// issued with 32 in flight
	uint64_t reads = (c.end_ns - c.start_ns) / 1000;
	CAPTURE(reads);
	// One read per I/O: the null engine's getevents() never waits, so a fetch takes the read
	// of the commit just made (4256 when each fetch read the clock again).
	CHECK(reads <= 4096 + 40);
	CHECK(c.complete[1] >= 4096 - 32);	// handed back one at a time
}

TEST_CASE("worker_io: a plain job runs the same I/O through the loop copy without extras as through the general one")
{
	// worker_io.c compiles the loop trip twice; a plain job takes the copy whose
	// extras tests are constants.  The same job with extras that change nothing
	// here (serialize_overlap over a permutation, where no two I/Os in flight
	// overlap; a max_latency no I/O reaches) takes the general copy.  On the fake
	// clock both must count, time and map every I/O alike.
	pb::tmpdir d;
	eng_opts o = pb::fake_clock();
	for (uint32_t depth : { 1u, 8u }) {
		CAPTURE(depth);
		res_clone got[2];
		for (int extras = 0; extras < 2; extras++) {
			auto spec = job_spec("p", PLAN_RW_RANDREAD, PLAN_IOENGINE_NULL, 2048 * 4096)
					    .opt("iodepth", std::to_string(depth));
			if (extras)
				spec.opt("serialize_overlap", "1").opt("max_latency", "1h");
			auto p = pb::build(d.path(), { spec });
			int ret = -1;
			auto r = pb::run(*p, &ret, &o);
			REQUIRE(ret == 0);
			got[extras] = pb::first_clone(*r);
			got[extras].ddir[PLAN_DDIR_READ].clat.hist = nullptr;	/* freed with r */
			got[extras].ddir[PLAN_DDIR_READ].lat.hist = nullptr;
			got[extras].ddir[PLAN_DDIR_READ].slat.hist = nullptr;
		}
		const res_ddir &a = got[0].ddir[PLAN_DDIR_READ], &b = got[1].ddir[PLAN_DDIR_READ];
		CHECK(a.ios == 2048);
		CHECK(b.ios == a.ios);
		CHECK(b.bytes == a.bytes);
		for (res_lat res_ddir::*l : { &res_ddir::clat, &res_ddir::lat, &res_ddir::slat }) {
			CHECK((b.*l).n == (a.*l).n);
			CHECK((b.*l).sum_ns == (a.*l).sum_ns);
			CHECK((b.*l).min_ns == (a.*l).min_ns);
			CHECK((b.*l).max_ns == (a.*l).max_ns);
		}
		CHECK(got[1].end_ns - got[1].start_ns == got[0].end_ns - got[0].start_ns);	/* clock reads */
		CHECK(std::memcmp(got[0].depth, got[1].depth, sizeof(got[0].depth)) == 0);
		CHECK(std::memcmp(got[0].submit, got[1].submit, sizeof(got[0].submit)) == 0);
		CHECK(std::memcmp(got[0].complete, got[1].complete, sizeof(got[0].complete)) == 0);
		CHECK(std::memcmp(got[0].latbkt, got[1].latbkt, sizeof(got[0].latbkt)) == 0);
	}
}

TEST_CASE("worker_io: a sync engine records lat once and reports it equal to clat, histogram included")
{
	pb::tmpdir d;
	struct shape {
		bool clat_pct, lat_pct, disable_clat;
	};
	for (shape s : { shape{ true, true, false }, shape{ false, true, false }, shape{ true, false, false },
			 shape{ false, true, true } }) {
		CAPTURE(s.clat_pct);
		CAPTURE(s.lat_pct);
		CAPTURE(s.disable_clat);
		auto p = pb::build(d.path(), { job_spec("l", PLAN_RW_RANDREAD, PLAN_IOENGINE_PSYNC, 256 * 4096)
						       .with([&](plan_job &j) {
							       j.clat_percentiles = s.clat_pct;
							       j.lat_percentiles = s.lat_pct;
							       j.disable_clat = s.disable_clat;
						       }) });
		int ret = -1;
		auto r = pb::run(*p, &ret);
		REQUIRE(ret == 0);
		const res_ddir &rd = pb::first_clone(*r).ddir[PLAN_DDIR_READ];
		REQUIRE(rd.ios == 256);
		CHECK(rd.lat.n == 256);
		CHECK(rd.lat.min_ns > 0);
		CHECK(rd.lat.max_ns >= rd.lat.min_ns);
		CHECK(rd.lat.sum_ns >= rd.lat.n * rd.lat.min_ns);
		CHECK((rd.lat.hist != nullptr) == s.lat_pct);
		if (rd.lat.hist)
			CHECK(hist_total(rd.lat) == 256);
		if (s.disable_clat) {
			CHECK(rd.clat.n == 0);
			continue;
		}
		CHECK(rd.clat.n == rd.lat.n);
		CHECK(rd.clat.min_ns == rd.lat.min_ns);
		CHECK(rd.clat.max_ns == rd.lat.max_ns);
		CHECK(rd.clat.sum_ns == rd.lat.sum_ns);
		CHECK(rd.clat.sumsq_lo == rd.lat.sumsq_lo);
		if (rd.lat.hist && rd.clat.hist)
			CHECK(std::memcmp(rd.lat.hist, rd.clat.hist, RES_HIST_NR * sizeof(uint64_t)) == 0);
	}
}

TEST_CASE("worker_io: an async engine's lat is exactly slat + clat, I/O by I/O")
{
	pb::tmpdir d;
	for (uint32_t batch : { 1u, 4u }) {
		CAPTURE(batch);
		auto p = pb::build(d.path(), { job_spec("a", PLAN_RW_RANDREAD, PLAN_IOENGINE_NULL, 4096 * 4096)
						       .opt("iodepth", "16").with([&](plan_job &j) {
							       j.iodepth_batch_submit = batch;
						       }) });
		int ret = -1;
		auto r = pb::run(*p, &ret);
		REQUIRE(ret == 0);
		const res_ddir &rd = pb::first_clone(*r).ddir[PLAN_DDIR_READ];
		REQUIRE(rd.ios == 4096);
		CHECK(rd.slat.n == 4096);
		CHECK(rd.lat.n == 4096);
		CHECK(rd.lat.sum_ns == rd.slat.sum_ns + rd.clat.sum_ns);
		CHECK(rd.lat.max_ns >= rd.clat.max_ns);
		CHECK(rd.lat.min_ns >= rd.clat.min_ns);
	}
}

TEST_CASE("worker_io: a burst of sync I/Os stops at the end of the ramp and of the window")
{
	pb::tmpdir d;
	eng_opts o = pb::fake_clock();
	auto p = pb::build(d.path(), { job_spec("b", PLAN_RW_RANDREAD, PLAN_IOENGINE_NULL, 1024 * 4096)
					       .with([](plan_job &j) {
						       j.time_based = true;
						       j.ramp_time_ns = 100500;	// not a multiple of a step
						       j.runtime_ns = 200500;
					       }) });
	int ret = -1;
	auto r = pb::run(*p, &ret, &o);
	REQUIRE(ret == 0);
	const res_clone &c = pb::first_clone(*r);
	// The window opens at the first read past the ramp, closes at the first past its end.
	CHECK(c.start_ns - c.thread_start_ns >= 100500);
	CHECK(c.start_ns - c.thread_start_ns <= 102000);
	CHECK(c.end_ns - c.start_ns >= 200500);
	CHECK(c.end_ns - c.start_ns <= 202000);
	CHECK(c.ddir[PLAN_DDIR_READ].ios >= 199);
	CHECK(c.ddir[PLAN_DDIR_READ].ios <= 202);
}

TEST_CASE("worker_io: a null-engine job is CPU-bound, a rate-limited one is not")
{
	// Runnable time counts as busy, but on a heavily loaded machine (load 14 seen
	// here, three 250 ms windows in a row) a thread can still be kept off the run
	// queue (reclaim, a stalled page fault): a CPU-bound job is retried until a
	// 30 s deadline, a rate-limited one must never be found CPU-bound.
	pb::tmpdir d;
	for (bool rated : { false, true }) {
		CAPTURE(rated);
		bool bound = false;
		auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
		for (int attempt = 0; !bound && (attempt == 0 || (!rated && std::chrono::steady_clock::now() < deadline));
		     attempt++) {
			auto p = pb::build(d.path(), { job_spec("c", PLAN_RW_RANDREAD, PLAN_IOENGINE_NULL).with([&](plan_job &j) {
				j.time_based = true;
				j.runtime_ns = 250000000ull;
				if (rated)
					j.rate_iops[PLAN_DDIR_READ] = 200;
			}) });
			int ret = -1;
			auto r = pb::run(*p, &ret);
			REQUIRE(ret == 0);
			const res_clone &c = pb::first_clone(*r);
			CHECK(c.usr_ns + c.sys_ns > 0);
			bound = c.cpu_bound;
		}
		CHECK(bound == !rated);
	}
}
