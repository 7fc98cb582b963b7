// tests/engine/test_interlocked.cpp - interlocked sequential jobs (DISKSPD -si) and
// sequential strides (engine/gen/iogen.c): one shared stream, no block twice per pass.
#include <doctest/doctest.h>

#include <map>
#include <set>
#include <string>

#include "tests/engine/plan_builder.hpp"

using pb::job_spec;

TEST_CASE("interlocked: 4 clones x QD 8 read each block of the shared file exactly once, contiguously")
{
	pb::tmpdir d;
	for (auto eng : { PLAN_IOENGINE_NULL, PLAN_IOENGINE_LIBAIO }) {
		auto p = pb::build(d.path(), { job_spec("si", PLAN_RW_READ, eng, 4 << 20, 4)
						       .file("target")
						       .opt("iodepth", "8").with([&](plan_job &j) {
							       j.interlocked = true;
							       j.direct = eng == PLAN_IOENGINE_LIBAIO;
							       j.io_trace_max = 5000;
							       j.loops = 2;
						       }) });
		int ret = -1;
		auto r = pb::run(*p, &ret);
		REQUIRE(ret == 0);
		CHECK(pb::job_ios(*r, 0, PLAN_DDIR_READ) == 2048);
		CHECK(pb::job_bytes(*r, 0, PLAN_DDIR_READ) == 8u << 20);
		std::map<uint64_t, int> hits;
		int busy_clones = 0;
		const res_job *j = pb::find_job(*r, 0);
		for (uint32_t c = 0; c < j->nr_clones; c++) {
			busy_clones += j->clones[c].trace_nr > 0;
			for (uint64_t i = 0; i < j->clones[c].trace_nr; i++)
				hits[j->clones[c].trace[i].offset]++;
		}
		// The null engine may finish the stream before the other threads start.
		if (eng == PLAN_IOENGINE_LIBAIO)
			CHECK(busy_clones == 4);
		REQUIRE(hits.size() == 1024);	// the union is every block...
		CHECK(hits.begin()->first == 0);
		CHECK(hits.rbegin()->first == 1023u * 4096);	// ...contiguous from 0
		for (auto &kv : hits)
			CHECK(kv.second == 2);	// once per pass, two loops
	}
}

TEST_CASE("interlocked: refused with a random pattern or offset_increment")
{
	pb::tmpdir d;
	auto p = pb::build(d.path(), { job_spec("bad", PLAN_RW_RANDREAD, PLAN_IOENGINE_NULL, 1 << 20, 2)
					       .file("t")
					       .with([](plan_job &j) { j.interlocked = true; }) });
	int ret = 0;
	auto r = pb::run(*p, &ret);
	CHECK(ret == -EINVAL);
	const res_clone &c = r->jobs[0].clones[0];
	REQUIRE(c.nr_errors >= 1);
	CHECK(std::string(c.errors[0].what).find("interlocked") != std::string::npos);
}

TEST_CASE("sequential_stride_bytes steps between sequential I/Os")
{
	pb::tmpdir d;
	auto p = pb::build(d.path(), { job_spec("st", PLAN_RW_READ, PLAN_IOENGINE_NULL, 1 << 20).with([](plan_job &j) {
		j.sequential_stride_bytes = 65536;
		j.io_trace_max = 1000;
		j.number_ios = 40;
	}) });
	int ret = -1;
	auto r = pb::run(*p, &ret);
	REQUIRE(ret == 0);
	const res_clone &c = r->jobs[0].clones[0];
	REQUIRE(c.trace_nr == 40);
	for (uint64_t i = 0; i < c.trace_nr; i++)
		CHECK(c.trace[i].offset == (i % 16) * 65536);
}
