// tests/engine/test_flow.cpp - fio's flow control (engine/flow.c) and serialize_overlap
// (engine/worker/worker_flow.c): the shares jobs of one flow_id get, recalibration when a
// member leaves, and that no two overlapping I/Os of a thread are in flight at once.
#include <doctest/doctest.h>

#include <algorithm>
#include <vector>

#include "engine/flow.h"
#include "tests/engine/plan_builder.hpp"

using pb::job_spec;

TEST_CASE("flow: members issue in proportion to their weights, and the rest recalibrate when one leaves")
{
	struct flows f;
	REQUIRE(flows_init(&f, 4) == 0);
	struct flow *a = flow_join(&f, 7, 1), *b = flow_join(&f, 7, 3), *other = flow_join(&f, 8, 5);
	REQUIRE(a);
	REQUIRE(b == a);	// one flow id, one flow
	REQUIRE(other != a);
	uint64_t ca = 0, cb = 0, co = 0;
	for (int i = 0; i < 40000; i++) {	// every member asks as often as the others
		flow_may_issue(a, &ca, 1);
		flow_may_issue(b, &cb, 3);
		flow_may_issue(other, &co, 5);
	}
	CHECK(cb == doctest::Approx(3.0 * ca).epsilon(0.01));
	CHECK(co == 40000);	// alone in its flow: never held
	flow_leave(&f, b, cb, 3);
	uint64_t before = ca;
	for (int i = 0; i < 1000; i++)
		CHECK(flow_may_issue(a, &ca, 1));	// the only member left has the whole flow
	CHECK(ca == before + 1000);
	flow_leave(&f, a, ca, 1);
	flow_leave(&f, other, co, 5);
	flows_release(&f);
}

TEST_CASE("flow: a full table refuses a new flow id instead of sharing a wrong one")
{
	struct flows f;
	REQUIRE(flows_init(&f, 1) == 0);
	struct flow *a = flow_join(&f, 1, 1);
	REQUIRE(a);
	CHECK(flow_join(&f, 2, 1) == nullptr);
	flow_leave(&f, a, 0, 1);
	CHECK(flow_join(&f, 2, 1) != nullptr);	// a flow nobody is in any more is reused
	flows_release(&f);
}

TEST_CASE("flow: two time-based null jobs with flow=1 and flow=4 complete I/Os 1:4 (fio's t0011/t0012)")
{
	pb::tmpdir d;
	auto member = [](uint32_t weight) {
		return [weight](plan_job &j) {
			j.flow_id = 3;
			j.flow_weight = weight;
			j.time_based = true;
			j.runtime_ns = 300000000ull;
		};
	};
	auto p = pb::build(d.path(), { job_spec("a", PLAN_RW_READ, PLAN_IOENGINE_NULL, 1 << 20).with(member(1)),
				       job_spec("b", PLAN_RW_READ, PLAN_IOENGINE_NULL, 1 << 20).with(member(4)) });
	int ret = -1;
	auto r = pb::run(*p, &ret);
	REQUIRE(ret == 0);
	double a = (double)pb::job_ios(*r, 0, PLAN_DDIR_READ), b = (double)pb::job_ios(*r, 1, PLAN_DDIR_READ);
	REQUIRE(a > 100);
	CHECK(b / a == doctest::Approx(4.0).epsilon(0.1));
}

namespace {

// Largest number of I/Os to one block in flight at the same time, from the trace.
size_t most_overlapping(const res_clone &c)
{
	size_t most = 0;
	for (uint64_t i = 0; i < c.trace_nr; i++) {
		const res_io_rec &x = c.trace[i];
		size_t n = 0;
		for (uint64_t k = 0; k < c.trace_nr; k++) {
			const res_io_rec &y = c.trace[k];
			if (y.offset == x.offset && y.t_ns - y.lat_ns < x.t_ns && x.t_ns - x.lat_ns < y.t_ns)
				n++;
		}
		most = std::max(most, n);
	}
	return most;
}

} // namespace

TEST_CASE("serialize_overlap: no two I/Os of a thread to the same block are in flight together")
{
	pb::tmpdir d;
	for (bool serialize : { false, true }) {
		CAPTURE(serialize);
		auto p = pb::build(d.path(), { job_spec("s", PLAN_RW_RANDWRITE, PLAN_IOENGINE_NULL, 16384).opt("iodepth", "8").with([&](plan_job &j) {
			j.iodepth_batch_submit = 8;
			j.norandommap = true;
			j.number_ios = 2000;
			/* io_size=, not loops=: fio's rounds of a queued engine end at size=, each
			 * finished before the next, while a random write without a map takes
			 * io_size= as one round. */
			j.io_size_bytes = 16384 * 1000;
			j.io_trace_max = 2000;
			j.serialize_overlap = serialize;
		}) });
		int ret = -1;
		auto r = pb::run(*p, &ret);
		REQUIRE(ret == 0);
		const res_clone &c = pb::first_clone(*r);
		REQUIRE(c.trace_nr > 500);
		if (serialize)
			CHECK(most_overlapping(c) == 1);
		else
			CHECK(most_overlapping(c) > 1);	// the property is not there by accident
	}
}

TEST_CASE("max_latency: the first I/O slower than the limit ends the job with ETIMEDOUT; a loose limit never does")
{
	pb::tmpdir d;
	for (uint64_t limit : { 1ull, 60000000000ull }) {
		CAPTURE(limit);
		auto p = pb::build(d.path(), { job_spec("m", PLAN_RW_READ, PLAN_IOENGINE_NULL, 1 << 20).with([&](plan_job &j) {
			j.max_latency_ns[PLAN_DDIR_READ] = limit;
		}) });
		int ret = 0;
		auto r = pb::run(*p, &ret);
		const res_clone &c = pb::first_clone(*r);
		if (limit == 1) {
			CHECK(c.error == ETIMEDOUT);
			CHECK(c.ddir[PLAN_DDIR_READ].ios < 256);	// it stopped early
		} else {
			CHECK(c.error == 0);
			CHECK(c.ddir[PLAN_DDIR_READ].ios == 256);
		}
	}
}
