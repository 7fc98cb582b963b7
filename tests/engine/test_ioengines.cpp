// tests/engine/test_ioengines.cpp - the async engines (engine/ioengines/libaio.c, io_uring.c)
// through the real run loop: depth kept, batches honoured, O_DIRECT, registered files/buffers.
#include <doctest/doctest.h>

#include <fstream>
#include <set>
#include <string>

#include <fcntl.h>
#include <liburing.h>
#include <unistd.h>

#include "tests/engine/plan_builder.hpp"

extern "C" {
#include "engine/buffers.h"
#include "engine/ioengine.h"
#include "engine/ioengines/io_uring.h"
}

using pb::job_spec;

namespace {

bool uring_works()
{
	struct io_uring ring;
	if (io_uring_queue_init(4, &ring, 0))
		return false;
	io_uring_queue_exit(&ring);
	return true;
}

uint64_t sum(const uint64_t *v, int n)
{
	uint64_t s = 0;
	for (int i = 0; i < n; i++)
		s += v[i];
	return s;
}

void check_async_randread(enum plan_ioengine eng, bool fixed)
{
	pb::tmpdir d;
	job_spec s("a", PLAN_RW_RANDREAD, eng, 4 << 20);
	if (eng == PLAN_IOENGINE_IO_URING)
		s.opt("fixedbufs", fixed ? "1" : "0").opt("registerfiles", fixed ? "1" : "0");
	auto p = pb::build(d.path(), { s.opt("iodepth", "16").with([&](plan_job &j) {
		j.direct = true;
		j.io_trace_max = 2000;
		j.slat_percentiles = true;
	}) });
	int ret = -1;
	auto r = pb::run(*p, &ret);
	REQUIRE(ret == 0);
	const res_clone &c = r->jobs[0].clones[0];
	const res_ddir &rd = c.ddir[PLAN_DDIR_READ];
	CHECK(rd.ios == 1024);
	CHECK(rd.bytes == 4u << 20);
	std::set<uint64_t> offs;
	for (uint64_t i = 0; i < c.trace_nr; i++)
		offs.insert(c.trace[i].offset);
	CHECK(offs.size() == 1024);
	// Depth 16 kept: after the first 15 submissions, every I/O sees 16 in flight.
	CHECK(c.depth[4] >= 1000);
	CHECK(sum(c.depth, RES_DEPTH_NR) == 1024);
	CHECK(rd.slat.n == 1024);
	CHECK(rd.slat.hist != nullptr);
	CHECK(rd.clat.n == 1024);
	CHECK(rd.lat.min_ns >= rd.clat.min_ns);
	CHECK(sum(c.submit, RES_BATCH_NR) > 0);
	CHECK(sum(c.complete, RES_BATCH_NR) > 0);
	CHECK(c.error == 0);
}

} // namespace

TEST_CASE("ioengines: libaio keeps iodepth in flight with O_DIRECT and reads every block once")
{
	check_async_randread(PLAN_IOENGINE_LIBAIO, false);
}

TEST_CASE("ioengines: io_uring keeps iodepth in flight, plain and with registered files and buffers")
{
	if (!uring_works()) {
		MESSAGE("io_uring refused by this kernel: skipped");
		return;
	}
	check_async_randread(PLAN_IOENGINE_IO_URING, false);
	check_async_randread(PLAN_IOENGINE_IO_URING, true);
}

TEST_CASE("ioengines: iodepth_batch_submit and iodepth_batch_complete_min shape the calls")
{
	pb::tmpdir d;
	for (auto eng : { PLAN_IOENGINE_LIBAIO, PLAN_IOENGINE_IO_URING, PLAN_IOENGINE_NULL }) {
		if (eng == PLAN_IOENGINE_IO_URING && !uring_works())
			continue;
		auto p = pb::build(d.path(), { job_spec("b", PLAN_RW_READ, eng, 2 << 20).opt("iodepth", "32").with([](plan_job &j) {
			j.iodepth_batch_submit = 8;
			j.iodepth_batch_complete_min = 8;
			j.iodepth_batch_complete_max = 8;
		}) });
		int ret = -1;
		auto r = pb::run(*p, &ret);
		REQUIRE(ret == 0);
		const res_clone &c = r->jobs[0].clones[0];
		CHECK(c.ddir[PLAN_DDIR_READ].ios == 512);
		// Every submit call carries 5..8 I/Os (bucket "8"), every reap 5..8 too but
		// the last: the 24 still in flight once all are issued come back as one
		// (bucket "32"), as fio's final io_u_queued_complete(cur_depth) (fio 3.33 on
		// libaio and io_uring: 'complete: 8=98.4%, 32=1.6%').
		uint64_t subs = sum(c.submit, RES_BATCH_NR), reaps = sum(c.complete, RES_BATCH_NR);
		CHECK(subs == 64);
		CHECK(c.submit[2] == 64);
		CHECK(c.complete[2] == reaps - 1);
		CHECK(c.complete[4] == 1);
		CHECK(reaps == 62);
	}
}

TEST_CASE("ioengines: async writes leave exactly the file the plan asks, with O_DIRECT")
{
	pb::tmpdir d;
	for (auto eng : { PLAN_IOENGINE_LIBAIO, PLAN_IOENGINE_IO_URING }) {
		if (eng == PLAN_IOENGINE_IO_URING && !uring_works())
			continue;
		auto p = pb::build(d.path(), { job_spec(std::string("w") + plan_ioengine_name(eng),
							PLAN_RW_WRITE, eng, 8 << 20)
						       .opt("iodepth", "8").with([](plan_job &j) {
							       j.direct = true;
							       j.bs[PLAN_DDIR_WRITE].min_bytes = 65536;
							       j.bs[PLAN_DDIR_WRITE].max_bytes = 65536;
						       }) });
		int ret = -1;
		auto r = pb::run(*p, &ret);
		REQUIRE(ret == 0);
		CHECK(pb::job_bytes(*r, 0, PLAN_DDIR_WRITE) == 8u << 20);
		CHECK(pb::job_ios(*r, 0, PLAN_DDIR_WRITE) == 128);
		std::ifstream in(d.file(std::string("w") + plan_ioengine_name(eng) + ".0.0"), std::ios::binary);
		std::set<std::string> blocks;
		std::string b(4096, '\0');
		uint64_t n = 0;
		while (in.read(&b[0], 4096)) {
			blocks.insert(b);
			n++;
		}
		CHECK(n == 2048);
		CHECK(blocks.size() == 2048);
	}
}

TEST_CASE("ioengines: io_uring registers files and small buffer sets unasked, large ones only when asked")
{
	if (!uring_works()) {
		MESSAGE("io_uring refused by this kernel: skipped");
		return;
	}
	pb::tmpdir d;
	int fd = open(d.file("f").c_str(), O_RDWR | O_CREAT, 0644);
	REQUIRE(fd >= 0);
	struct shape {
		uint32_t depth;
		uint64_t len;
		bool ask;
		bool want_bufs;
	};
	// 32 x 4 KiB and 16 x 1 MiB fit the 16 MiB budget; 64 x 1 MiB does not unless asked.
	for (shape s : { shape{ 32, 4096, false, true }, shape{ 16, 1 << 20, false, true },
			 shape{ 64, 1 << 20, false, false }, shape{ 64, 1 << 20, true, true } }) {
		CAPTURE(s.depth);
		CAPTURE(s.ask);
		bufpool pool;
		REQUIRE(bufpool_alloc(&pool, s.depth, s.len, 4096) == 0);
		ioe_cfg cfg{};
		cfg.depth = s.depth;
		cfg.fds = &fd;
		cfg.nr_fds = 1;
		cfg.bufs = &pool;
		plan_job job{};
		job.ioengine = PLAN_IOENGINE_IO_URING;
		job.engine_opts = pb::engine_opts(job.ioengine, {{"fixedbufs", s.ask}, {"registerfiles", s.ask}});
		cfg.job = &job;
		ioe e;
		int ret = ioe_open(&e, PLAN_IOENGINE_IO_URING, &cfg);
		plan_engopts_free(job.engine_opts, job.ioengine);	// read by the ring's set-up only
		if (ret == -ENOMEM && s.ask) {
			MESSAGE("cannot lock 64 MiB here (RLIMIT_MEMLOCK): asked case skipped");
			bufpool_free(&pool);
			continue;
		}
		REQUIRE(ret == 0);
		bool files = false, bufs = false;
		CHECK(ioe_uring_registered(&e, &files, &bufs));
		CHECK(files);
		CHECK(bufs == s.want_bufs);
		ioe_close(&e);
		bufpool_free(&pool);
	}
	close(fd);
}
