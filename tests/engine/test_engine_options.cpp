// tests/engine/test_engine_options.cpp - fio 3.33's io_uring and libaio options
// (engine/ioengines/io_uring.c, libaio.c): what lands in each SQE (nowait,
// uncached, force_async, nonvectored), and libaio's userspace_reap and nowait
// through a whole run.
#include <doctest/doctest.h>

#include <string>

#include <fcntl.h>
#include <linux/fs.h>
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

bool uring_ok()
{
	struct io_uring ring;
	if (io_uring_queue_init(4, &ring, 0))
		return false;
	io_uring_queue_exit(&ring);
	return true;
}

struct sqe_seen {
	uint8_t flags;
	uint32_t rw_flags;
	uint8_t opcode;
};

// Queues n reads through an io_uring instance made with cfg and the engine's own
// options named in uring; the SQE of each.
std::vector<sqe_seen> queue_reads(ioe_cfg cfg, const std::vector<std::pair<std::string, long long>> &uring, int n)
{
	plan_job job{};
	job.ioengine = PLAN_IOENGINE_IO_URING;
	job.engine_opts = pb::engine_opts(PLAN_IOENGINE_IO_URING, uring);
	cfg.job = &job;
	pb::tmpdir d;
	int fd = open(d.file("f").c_str(), O_RDWR | O_CREAT, 0644);
	REQUIRE(fd >= 0);
	REQUIRE(ftruncate(fd, 1 << 20) == 0);
	bufpool pool;
	REQUIRE(bufpool_alloc(&pool, cfg.depth, 4096, 4096) == 0);
	cfg.fds = &fd;
	cfg.nr_fds = 0;		// no registered files: the plain path
	cfg.bufs = &pool;
	ioe e;
	REQUIRE(ioe_open(&e, PLAN_IOENGINE_IO_URING, &cfg) == 0);
	std::vector<sqe_seen> out;
	std::vector<io_u> us((size_t)n);
	for (int i = 0; i < n; i++) {
		io_u &u = us[(size_t)i];
		u = io_u{};
		u.buf = bufpool_at(&pool, (uint32_t)i);
		u.offset = (uint64_t)i * 4096;
		u.len = 4096;
		u.fd = fd;
		u.ddir = PLAN_DDIR_READ;
		u.slot = (uint32_t)i;
		REQUIRE(e.ops->queue(&e, &u) == IOE_Q_QUEUED);
		sqe_seen s{};
		REQUIRE(ioe_uring_last_sqe(&e, &s.flags, &s.rw_flags, &s.opcode));
		out.push_back(s);
	}
	REQUIRE(e.ops->commit(&e) == n);
	int got = 0;
	while (got < n) {
		int r = e.ops->getevents(&e, 1, (uint32_t)n, 1000000000ull);
		REQUIRE(r > 0);
		got += r;
	}
	ioe_close(&e);
	bufpool_free(&pool);
	close(fd);
	plan_engopts_free(job.engine_opts, job.ioengine);
	return out;
}

} // namespace

TEST_CASE("engine options: io_uring's nowait, uncached, force_async and nonvectored shape each SQE as fio's do")
{
	if (!uring_ok()) {
		MESSAGE("io_uring refused by this kernel: skipped");
		return;
	}
	ioe_cfg plain{};
	plain.depth = 8;
	for (const sqe_seen &s : queue_reads(plain, {}, 8)) {
		CHECK(s.flags == 0);
		CHECK(s.rw_flags == 0);
		CHECK((s.opcode == IORING_OP_READ || s.opcode == IORING_OP_READ_FIXED));	// small buffer sets register unasked
	}
	ioe_cfg c = plain;
	c.rwf_flags = RWF_NOWAIT;
	auto seen = queue_reads(c, {{"force_async", 3}, {"nonvectored", 0}}, 8);
	for (size_t i = 0; i < seen.size(); i++) {
		CAPTURE(i);
		CHECK(seen[i].rw_flags == (uint32_t)RWF_NOWAIT);
		CHECK(seen[i].opcode == IORING_OP_READV);
		CHECK(((seen[i].flags & IOSQE_ASYNC) != 0) == ((i + 1) % 3 == 0));	// every 3rd
	}
}

TEST_CASE("engine options: libaio's userspace_reap reaps every I/O of a run from the ring")
{
	pb::tmpdir d;
	auto p = pb::build(d.path(), { job_spec("r", PLAN_RW_RANDREAD, PLAN_IOENGINE_LIBAIO, 1 << 20)
					       .opt("userspace_reap")
					       .opt("iodepth", "8").with([](plan_job &j) {
						       j.iodepth_batch_complete_min = 0;
					       }) });
	int ret = -1;
	auto r = pb::run(*p, &ret);
	REQUIRE(ret == 0);
	CHECK(pb::job_ios(*r, 0, PLAN_DDIR_READ) == 256);
}
