// tests/engine/test_worker.cpp - what a worker does around its I/O (engine/worker/worker.c,
// worker_io.c): rate schedules, thinktime, fsync=N, errors, cool-down, repeats, fake clock.
#include <doctest/doctest.h>

#include <string>

#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/engine/plan_builder.hpp"

using pb::job_spec;

// The schedule is checked on a fake clock, where it is the tool's arithmetic
// alone; on the real clock only the bound load cannot break: never above the rate.
TEST_CASE("worker: rate_iops holds the I/O rate over the window (linear and poisson)")
{
	pb::tmpdir d;
	for (bool fake : { true, false })
		for (auto proc : { PLAN_RATE_LINEAR, PLAN_RATE_POISSON }) {
			auto p = pb::build(d.path(), { job_spec("r", PLAN_RW_RANDREAD, PLAN_IOENGINE_NULL).with([&](plan_job &j) {
				j.time_based = true;
				j.runtime_ns = 500000000ull;
				j.rate_iops[PLAN_DDIR_READ] = 3200;
				j.rate_process = proc;
			}) });
			eng_opts o = fake ? pb::fake_clock() : eng_opts{};
			int ret = -1;
			auto r = pb::run(*p, &ret, &o);
			REQUIRE(ret == 0);
			const res_clone &c = pb::first_clone(*r);
			double ios = (double)c.ddir[PLAN_DDIR_READ].ios;
			double want = proc == PLAN_RATE_LINEAR ? 0.02 : 0.10;
			INFO("fake clock " << fake << ", process " << proc << ": " << ios << " I/Os");
			if (fake)
				CHECK(ios == doctest::Approx(1600).epsilon(proc == PLAN_RATE_LINEAR ? 0.005 : want));
			else
				CHECK(ios <= 1600 * (1 + want));
			CHECK(c.ddir[PLAN_DDIR_READ].sched_lat.n == c.ddir[PLAN_DDIR_READ].ios);
		}
}

// fio's poisson lambda is 10^6 / IOPS, a byte rate counted in I/Os of the smallest block:
// bsrange=4k-16k at 4 MiB/s is 1024 I/Os a second whatever each one's length (gaps by
// each I/O's bytes made about 410).
TEST_CASE("worker: a poisson byte rate over varying lengths issues I/Os of the smallest block's rate")
{
	pb::tmpdir d;
	auto p = pb::build(d.path(), { job_spec("p", PLAN_RW_RANDREAD, PLAN_IOENGINE_NULL).with([](plan_job &j) {
		j.time_based = true;
		j.runtime_ns = 500000000ull;
		j.bs[PLAN_DDIR_READ].min_bytes = 4096;
		j.bs[PLAN_DDIR_READ].max_bytes = 16384;
		j.rate_bytes_per_s[PLAN_DDIR_READ] = 4 << 20;
		j.rate_process = PLAN_RATE_POISSON;
	}) });
	eng_opts o = pb::fake_clock();
	int ret = -1;
	auto r = pb::run(*p, &ret, &o);
	REQUIRE(ret == 0);
	CHECK((double)pb::first_clone(*r).ddir[PLAN_DDIR_READ].ios == doctest::Approx(512).epsilon(0.15));
}

TEST_CASE("worker: rate in bytes per second limits each direction of a mix separately")
{
	pb::tmpdir d;
	auto p = pb::build(d.path(), { job_spec("b", PLAN_RW_RANDRW, PLAN_IOENGINE_NULL).with([](plan_job &j) {
		j.time_based = true;
		j.runtime_ns = 500000000ull;
		j.rate_bytes_per_s[PLAN_DDIR_READ] = 8 << 20;	// 2048 IOPS of 4 KiB
		j.rate_bytes_per_s[PLAN_DDIR_WRITE] = 2 << 20;	// 512 IOPS
	}) });
	eng_opts o = pb::fake_clock();
	int ret = -1;
	auto r = pb::run(*p, &ret, &o);
	REQUIRE(ret == 0);
	const res_clone &c = pb::first_clone(*r);
	CHECK((double)c.ddir[PLAN_DDIR_READ].bytes == doctest::Approx(4 << 20).epsilon(0.03));
	CHECK((double)c.ddir[PLAN_DDIR_WRITE].bytes == doctest::Approx(1 << 20).epsilon(0.03));
}

// How many thinks is counted on a fake clock, where a think moves time by just its
// length: 40 I/Os in blocks of 4 think 9 or 10 times (45-50 ms), not 40 (200 ms).
// On the real clock only what load cannot break: the thinks take their time (a
// loaded pool stretched ten 5 ms thinks to 272 ms).
TEST_CASE("worker: thinktime pauses after every thinktime_blocks I/Os")
{
	pb::tmpdir d;
	auto p = pb::build(d.path(), { job_spec("t", PLAN_RW_READ, PLAN_IOENGINE_NULL).with([](plan_job &j) {
		j.number_ios = 40;
		j.thinktime_ns = 5000000ull;
		j.thinktime_blocks = 4;
	}) });
	for (bool fake : { true, false }) {
		eng_opts o = fake ? pb::fake_clock() : eng_opts{};
		int ret = -1;
		auto r = pb::run(*p, &ret, &o);
		REQUIRE(ret == 0);
		const res_clone &c = pb::first_clone(*r);
		INFO("fake clock " << fake);
		CHECK(c.ddir[PLAN_DDIR_READ].ios == 40);
		CHECK(c.end_ns - c.start_ns >= 9 * 5000000ull);
		if (fake)
			CHECK(c.end_ns - c.start_ns < 11 * 5000000ull);
	}
}

TEST_CASE("worker: fsync=N syncs after every N writes, but not after the last, and records the sync latencies")
{
	pb::tmpdir d;
	for (auto eng : { PLAN_IOENGINE_PSYNC, PLAN_IOENGINE_LIBAIO }) {
		auto p = pb::build(d.path(), { job_spec("f", PLAN_RW_WRITE, eng).opt("iodepth", "4").with([](plan_job &j) {
			j.fsync_every = 16;
			j.end_fsync = true;
		}) });
		int ret = -1;
		auto r = pb::run(*p, &ret);
		REQUIRE(ret == 0);
		const res_clone &c = pb::first_clone(*r);
		CHECK(c.ddir[PLAN_DDIR_WRITE].ios == 256);
		// As fio: the sync is taken instead of the next I/O, so none follows the 256th write.
		CHECK(c.sync_ios == 15);
		CHECK(c.sync_lat.n == 15);
		CHECK(c.sync_lat.min_ns > 0);
	}
}

TEST_CASE("worker: an I/O error stops the clone with job, file, offset and errno; continue_on_error and ignore_error count on")
{
	pb::tmpdir d;
	// O_DIRECT with a 1000-byte block is refused by the kernel with EINVAL.
	auto tweak = [](plan_job &j) {
		j.direct = true;
		for (auto &b : j.bs)
			b.min_bytes = b.max_bytes = 1000;
	};
	auto p = pb::build(d.path(), { job_spec("e", PLAN_RW_READ, PLAN_IOENGINE_PSYNC, 1000 * 100).with(tweak) });
	int ret = 0;
	auto r = pb::run(*p, &ret);
	CHECK(ret == -EINVAL);
	CHECK(r->error == EINVAL);
	const res_clone &c = pb::first_clone(*r);
	CHECK(c.error == EINVAL);
	REQUIRE(c.nr_errors == 1);
	CHECK(c.errors[0].err == EINVAL);
	CHECK(c.errors[0].offset == 0);
	CHECK(c.errors[0].len == 1000);
	CHECK(c.errors[0].file_index == 0);
	CHECK(std::string(c.errors[0].what) == "read");
	// Counted among the I/Os as fio's total_io_u counts it, with no bytes and so no runtime.
	CHECK(c.ddir[PLAN_DDIR_READ].ios == 1);
	CHECK(c.ddir[PLAN_DDIR_READ].bytes == 0);
	CHECK(c.ddir[PLAN_DDIR_READ].runtime_ns == 0);

	// continue_on_error=read alone survives EIO and EILSEQ only, as fio's: EINVAL still stops.
	auto o = pb::build(d.path(), { job_spec("e", PLAN_RW_READ, PLAN_IOENGINE_PSYNC, 1000 * 100).with([&](plan_job &j) {
		tweak(j);
		j.continue_on_error = PLAN_COE_READ;
	}) });
	r = pb::run(*o, &ret);
	CHECK(ret == -EINVAL);
	CHECK(pb::first_clone(*r).error == EINVAL);
	CHECK(pb::first_clone(*r).nr_errors == 1);

	// ignore_error=EINVAL (the read list) makes it one to continue after.
	auto q = pb::build(d.path(), { job_spec("e", PLAN_RW_READ, PLAN_IOENGINE_PSYNC, 1000 * 100).with([&](plan_job &j) {
		tweak(j);
		j.continue_on_error = PLAN_COE_READ;
		j.ignore_errors[0][0] = EINVAL;
		j.nr_ignore_errors[0] = 1;
	}) });
	r = pb::run(*q, &ret);
	CHECK(ret == 0);
	const res_clone &k = pb::first_clone(*r);
	CHECK(k.error == 0);
	CHECK(k.total_err == 100);
	CHECK(k.ddir[PLAN_DDIR_READ].ios == 100);
	CHECK(k.nr_errors == RES_ERRORS_MAX);
	CHECK(k.errors[5].offset == 5000);
}

TEST_CASE("worker: ENOSPC is an error with the path at layout, and with the offset while writing")
{
	pb::tmpdir d;
	std::string mnt = d.file("small");
	mkdir(mnt.c_str(), 0755);
	if (mount("tmpfs", mnt.c_str(), "tmpfs", 0, "size=1m")) {
		MESSAGE("cannot mount a small tmpfs here: skipped");
		return;
	}
	auto p = pb::build(mnt, { job_spec("big", PLAN_RW_READ, PLAN_IOENGINE_PSYNC, 4 << 20) });
	int ret = 0;
	auto r = pb::run(*p, &ret);
	CHECK(ret == -ENOSPC);
	REQUIRE(r->nr_msgs >= 1);
	CHECK(std::string(r->msgs[0].code) == "no-space");
	CHECK(std::string(r->msgs[0].text).find(mnt + "/big.0.0") != std::string::npos);
	unlink((mnt + "/big.0.0").c_str());

	auto q = pb::build(mnt, { job_spec("sparse", PLAN_RW_WRITE, PLAN_IOENGINE_PSYNC, 4 << 20).with([](plan_job &j) {
		j.fallocate = PLAN_FALLOCATE_NONE;
	}) });
	r = pb::run(*q, &ret);
	CHECK(ret == -ENOSPC);
	const res_clone &c = pb::first_clone(*r);
	REQUIRE(c.nr_errors >= 1);
	CHECK(c.errors[0].err == ENOSPC);
	CHECK(c.errors[0].offset >= 512u * 1024);
	CHECK(c.errors[0].offset <= 1u << 20);
	CHECK(c.ddir[PLAN_DDIR_WRITE].bytes == c.errors[0].offset);
	umount2(mnt.c_str(), MNT_DETACH);
}

TEST_CASE("worker: cool-down runs after the window and is not measured")
{
	pb::tmpdir d;
	auto p = pb::build(d.path(), { job_spec("c", PLAN_RW_READ, PLAN_IOENGINE_NULL).with([](plan_job &j) {
		j.time_based = true;
		j.runtime_ns = 100000000ull;
		j.cooldown_ns = 150000000ull;
		j.rate_iops[PLAN_DDIR_READ] = 1000;
	}) });
	auto r = pb::run(*p);
	const res_clone &c = pb::first_clone(*r);
	CHECK(c.thread_end_ns - c.end_ns >= 150000000ull);
	// 1000 IOPS for the 100 ms window: at most 100 (+5%) I/Os counted; the 150 ms of
	// cool-down would make it ~250.  A loaded machine may fall short (89 seen), never over.
	CHECK(c.ddir[PLAN_DDIR_READ].ios >= 1);
	CHECK(c.ddir[PLAN_DDIR_READ].ios <= 105);
}

TEST_CASE("worker: repeat and repeat_discard keep every run in the results")
{
	pb::tmpdir d;
	auto p = pb::build(d.path(), { job_spec("a", PLAN_RW_RANDREAD, PLAN_IOENGINE_NULL).with([](plan_job &j) {
		j.repeat = 3;
		j.repeat_discard = 1;
		j.repeat_pause_ns = 20000000ull;
	}), job_spec("b", PLAN_RW_READ, PLAN_IOENGINE_NULL) });
	int ret = -1;
	auto r = pb::run(*p, &ret);
	REQUIRE(ret == 0);
	CHECK(r->nr_jobs == 8);	// a and b run together, 4 times
	for (uint32_t run = 0; run < 4; run++) {
		const res_job *a = pb::find_job(*r, 0, run), *b = pb::find_job(*r, 1, run);
		REQUIRE((a && b));
		CHECK(a->discarded == (run == 0));
		CHECK(a->clones[0].ddir[PLAN_DDIR_READ].bytes == 1u << 20);
		if (run) {
			const res_job *prev = pb::find_job(*r, 0, run - 1);
			CHECK(a->start_ns >= prev->end_ns + 20000000ull);
		}
	}
}

TEST_CASE("worker: a fake clock makes every timestamp and latency reproducible")
{
	pb::tmpdir d;
	auto p = pb::build(d.path(), { job_spec("f", PLAN_RW_RANDREAD, PLAN_IOENGINE_NULL, 1 << 20, 2).opt("iodepth", "4"),
				       job_spec("g", PLAN_RW_READ, PLAN_IOENGINE_NULL).stonewalled() });
	eng_opts o = pb::fake_clock();
	int ra = -1, rb = -1;
	auto a = pb::run(*p, &ra, &o), b = pb::run(*p, &rb, &o);
	CHECK(ra == 0);
	CHECK(rb == 0);
	CHECK(a->interrupted == false);
	REQUIRE((a->nr_jobs == 2 && b->nr_jobs == 2));
	CHECK(std::string(a->clock_source) == "fake");
	CHECK(std::string(a->hostname) == "fakehost");
	for (uint32_t j = 0; j < 2; j++)
		for (uint32_t c = 0; c < a->jobs[j].nr_clones; c++) {
			const res_clone &x = a->jobs[j].clones[c], &y = b->jobs[j].clones[c];
			CHECK(x.start_ns == y.start_ns);
			CHECK(x.end_ns == y.end_ns);
			CHECK(x.ddir[0].clat.sum_ns == y.ddir[0].clat.sum_ns);
			CHECK(x.ddir[0].lat.max_ns == y.ddir[0].lat.max_ns);
			CHECK(x.usr_ns == 0);
		}
	CHECK(a->jobs[1].start_ns >= a->jobs[0].end_ns);
	CHECK(a->jobs[0].clones[0].ddir[0].ios == 256);
	CHECK(a->nr_disks == 0);
}

TEST_CASE("worker: disk counters of the device under the files cover the run")
{
	pb::tmpdir d;
	auto p = pb::build(d.path(), { job_spec("w", PLAN_RW_WRITE, PLAN_IOENGINE_LIBAIO, 4 << 20).opt("iodepth", "4").with([](plan_job &j) {
		j.direct = true;
	}) });
	int ret = -1;
	auto r = pb::run(*p, &ret);
	REQUIRE(ret == 0);
	if (!r->nr_disks) {
		MESSAGE("no block device statistics under /tmp: skipped");
		return;
	}
	CHECK(r->nr_disks == 1);
	CHECK(std::string(r->disks[0].name).size() > 0);
	CHECK(r->disks[0].write_sectors >= 8192);	// at least our 4 MiB
	CHECK(r->disks[0].elapsed_ns > 0);
}

TEST_CASE("worker: create_only lays the files out and does no I/O")
{
	pb::tmpdir d;
	auto p = pb::build(d.path(), { job_spec("c", PLAN_RW_RANDREAD, PLAN_IOENGINE_PSYNC, 2 << 20).with([](plan_job &j) {
		j.create_only = true;
	}) });
	int ret = -1;
	auto r = pb::run(*p, &ret);
	REQUIRE(ret == 0);
	const res_clone &c = pb::first_clone(*r);
	CHECK(c.ddir[PLAN_DDIR_READ].ios == 0);
	CHECK(c.ddir[PLAN_DDIR_READ].bytes == 0);
	struct stat st;
	REQUIRE(stat(d.file("c.0.0").c_str(), &st) == 0);
	CHECK(st.st_size == 2 << 20);
	CHECK(st.st_blocks * 512 >= 2 << 20);	// written, not sparse
}
