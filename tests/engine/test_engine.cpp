// tests/engine/test_engine.cpp - the run loop (engine/engine.c, segment.c, worker*.c) on
// real files: exact amounts, random-map coverage, reproducibility, ordering, time, stop, safety.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "engine/mark.h"
#include "tests/engine/plan_builder.hpp"

using pb::job_spec;

namespace {

std::vector<uint64_t> trace_offsets(const res_clone &c)
{
	std::vector<uint64_t> v;
	for (uint64_t i = 0; i < c.trace_nr; i++)
		v.push_back(c.trace[i].offset);
	return v;
}

uint64_t file_size(const std::string &path)
{
	struct stat st;
	return stat(path.c_str(), &st) ? 0 : (uint64_t)st.st_size;
}

std::vector<uint64_t> offsets_of(const std::string &dir, enum plan_rw rw, uint64_t seed,
				 bool norandommap = false)
{
	// A repeatable job's offsets come from its thread number alone (fio's rule):
	// randseed= steers them when randrepeat is off.
	auto p = pb::build(dir, { job_spec("r", rw, PLAN_IOENGINE_NULL, 256 * 4096)
					  .opt("randrepeat", "0")
					  .opt("randseed", std::to_string(seed))
					  .with([&](plan_job &j) {
						  j.io_trace_max = 10000;
						  j.norandommap = norandommap;
					  }) });
	auto r = pb::run(*p);
	REQUIRE(r);
	REQUIRE(r->nr_jobs == 1);
	return trace_offsets(r->jobs[0].clones[0]);
}

} // namespace

TEST_CASE("engine: a size-bound sequential psync write does exactly size bytes and leaves non-repeating data")
{
	pb::tmpdir d;
	auto p = pb::build(d.path(), { job_spec("w", PLAN_RW_WRITE, PLAN_IOENGINE_PSYNC, 4 << 20) });
	int ret = -1;
	auto r = pb::run(*p, &ret);
	REQUIRE(ret == 0);
	REQUIRE(r->nr_jobs == 1);
	const res_clone &c = r->jobs[0].clones[0];
	CHECK(c.ddir[PLAN_DDIR_WRITE].bytes == 4u << 20);
	CHECK(c.ddir[PLAN_DDIR_WRITE].ios == 1024);
	CHECK(c.ddir[PLAN_DDIR_READ].ios == 0);
	CHECK(c.ddir[PLAN_DDIR_WRITE].clat.n == 1024);
	CHECK(c.ddir[PLAN_DDIR_WRITE].lat.n == 1024);
	CHECK(c.ddir[PLAN_DDIR_WRITE].clat.hist != nullptr);
	CHECK(c.ddir[PLAN_DDIR_WRITE].runtime_ns > 0);
	CHECK(c.depth[0] == 1024);
	CHECK(c.error == 0);
	std::string path = d.file("w.0.0");
	CHECK(file_size(path) == 4u << 20);
	char why[256];
	CHECK(mark_read_path(path.c_str(), why, sizeof why) == MARK_SIZED); // re-stamped after the writes
	// Every 4 KiB block differs from every other.
	std::ifstream in(path, std::ios::binary);
	std::set<std::string> blocks;
	std::string b(4096, '\0');
	while (in.read(&b[0], 4096))
		blocks.insert(b);
	CHECK(blocks.size() == 1024);
}

TEST_CASE("engine: the run's wall start is the wall time of its clock's base, not of a later read")
{
	pb::tmpdir d;
	auto p = pb::build(d.path(), { job_spec("w", PLAN_RW_WRITE, PLAN_IOENGINE_NULL, 64 << 10) });
	int ret = -1;
	auto r = pb::run(*p, &ret);
	REQUIRE(ret == 0);
	struct timespec rt, mo;
	clock_gettime(CLOCK_MONOTONIC, &mo);
	clock_gettime(CLOCK_REALTIME, &rt);
	uint64_t wall_now = (uint64_t)rt.tv_sec * 1000000000ull + (uint64_t)rt.tv_nsec;
	uint64_t mono_now = (uint64_t)mo.tv_sec * 1000000000ull + (uint64_t)mo.tv_nsec;
	// Both clocks advance together over a run this short: their starts differ as their nows do.
	int64_t err = (int64_t)(wall_now - r->start_wall_ns) - (int64_t)(mono_now - r->start_mono_ns);
	CHECK(std::llabs(err) < 1000000);
}

TEST_CASE("engine: a random read pass touches every block exactly once (psync and null at depth 8)")
{
	pb::tmpdir d;
	for (auto eng : { PLAN_IOENGINE_PSYNC, PLAN_IOENGINE_NULL }) {
		auto p = pb::build(d.path(), { job_spec("rr", PLAN_RW_RANDREAD, eng).opt("iodepth", "8").with([](plan_job &j) {
								 j.io_trace_max = 1000;
							 }) });
		int ret = -1;
		auto r = pb::run(*p, &ret);
		REQUIRE(ret == 0);
		const res_clone &c = r->jobs[0].clones[0];
		CHECK(c.ddir[PLAN_DDIR_READ].ios == 256);
		CHECK(c.ddir[PLAN_DDIR_READ].bytes == 1u << 20);
		auto offs = trace_offsets(c);
		REQUIRE(offs.size() == 256);
		std::set<uint64_t> uniq(offs.begin(), offs.end());
		CHECK(uniq.size() == 256);
		CHECK(*uniq.rbegin() == 255u * 4096);
		CHECK(!std::is_sorted(offs.begin(), offs.end()));
		for (uint64_t o : offs)
			CHECK(o % 4096 == 0);
	}
}

TEST_CASE("engine: loops repeat the pass, each pass a permutation of its own")
{
	pb::tmpdir d;
	auto p = pb::build(d.path(), { job_spec("rr", PLAN_RW_RANDREAD, PLAN_IOENGINE_NULL, 64 * 4096)
						 .with([](plan_job &j) {
							 j.io_trace_max = 1000;
							 j.loops = 3;
						 }) });
	auto r = pb::run(*p);
	auto offs = trace_offsets(r->jobs[0].clones[0]);
	REQUIRE(offs.size() == 192);
	for (int pass = 0; pass < 3; pass++) {
		std::set<uint64_t> u(offs.begin() + pass * 64, offs.begin() + (pass + 1) * 64);
		CHECK(u.size() == 64);
	}
	CHECK(!std::equal(offs.begin(), offs.begin() + 64, offs.begin() + 64));
}

TEST_CASE("engine: norandommap repeats blocks; randrepeat/randseed reproduce the offset sequence")
{
	pb::tmpdir d;
	auto a = offsets_of(d.path(), PLAN_RW_RANDREAD, 0x89);
	auto b = offsets_of(d.path(), PLAN_RW_RANDREAD, 0x89);
	auto c = offsets_of(d.path(), PLAN_RW_RANDREAD, 1234);
	CHECK(a == b);
	CHECK(a != c);
	auto n1 = offsets_of(d.path(), PLAN_RW_RANDREAD, 0x89, true);
	auto n2 = offsets_of(d.path(), PLAN_RW_RANDREAD, 0x89, true);
	REQUIRE(n1.size() == 256);
	CHECK(n1 == n2);
	std::set<uint64_t> u(n1.begin(), n1.end());
	CHECK(u.size() < 256);
	CHECK(u.size() > 100);	// uniform: about 1 - 1/e of the blocks
}

TEST_CASE("engine: io_size, number_ios and nrfiles bound the amount exactly")
{
	pb::tmpdir d;
	auto p = pb::build(d.path(),
			   { job_spec("io", PLAN_RW_READ).with([](plan_job &j) { j.io_size_bytes = 3 << 20; }),
			     job_spec("n", PLAN_RW_RANDREAD, PLAN_IOENGINE_NULL).with([](plan_job &j) {
				     j.number_ios = 37;
			     }),
			     job_spec("files", PLAN_RW_RANDWRITE, PLAN_IOENGINE_PSYNC, 1 << 20, 2, 4)
				     .with([](plan_job &j) { j.io_trace_max = 1000; }) });
	int ret = -1;
	auto r = pb::run(*p, &ret);
	REQUIRE(ret == 0);
	CHECK(pb::job_bytes(*r, 0, PLAN_DDIR_READ) == 3u << 20);
	CHECK(pb::job_ios(*r, 1, PLAN_DDIR_READ) == 37);
	CHECK(pb::job_bytes(*r, 2, PLAN_DDIR_WRITE) == 2u << 20);
	const res_job *fj = pb::find_job(*r, 2);
	REQUIRE(fj);
	for (uint32_t c = 0; c < 2; c++) {
		const res_clone &cl = fj->clones[c];
		std::map<uint32_t, std::set<uint64_t>> per_file;
		for (uint64_t i = 0; i < cl.trace_nr; i++)
			per_file[cl.trace[i].file_index].insert(cl.trace[i].offset);
		REQUIRE(per_file.size() == 4);
		for (auto &kv : per_file)
			CHECK(kv.second.size() == 64);	// 256 KiB per file, every block once
		// roundrobin: consecutive I/Os go to consecutive files
		CHECK(cl.trace[0].file_index == 0);
		CHECK(cl.trace[1].file_index == 1);
		CHECK(cl.trace[2].file_index == 2);
	}
	for (uint32_t f = 0; f < 4; f++)
		CHECK(file_size(d.file("files.1." + std::to_string(f))) == 256u * 1024);
}

TEST_CASE("engine: a stonewalled job starts after every earlier job ended; a group's clones overlap")
{
	pb::tmpdir d;
	auto slow = [](plan_job &j) {
		j.time_based = true;
		j.runtime_ns = 150000000ull;
	};
	auto p = pb::build(d.path(), { job_spec("a", PLAN_RW_READ, PLAN_IOENGINE_NULL, 1 << 20, 2).with(slow),
				       job_spec("b", PLAN_RW_READ, PLAN_IOENGINE_NULL).grouped().with(slow),
				       job_spec("c", PLAN_RW_READ, PLAN_IOENGINE_NULL).stonewalled().with(slow) });
	CHECK(plan_job_at(p.get(), 1)->groupid == 1);
	int ret = -1;
	auto r = pb::run(*p, &ret);
	REQUIRE(ret == 0);
	REQUIRE(r->nr_jobs == 3);
	const res_job *a = pb::find_job(*r, 0), *b = pb::find_job(*r, 1), *c = pb::find_job(*r, 2);
	REQUIRE((a && b && c));
	// new_group is no barrier: a and b run at the same time.
	CHECK(b->start_ns < a->end_ns);
	CHECK(a->clones[1].thread_start_ns < a->clones[0].thread_end_ns);
	// stonewall: c starts after both ended.
	CHECK(c->start_ns >= a->end_ns);
	CHECK(c->start_ns >= b->end_ns);
	CHECK(c->groupid == 2);
}

// On a fake clock the window is exact whatever else the machine runs: how
// many I/Os fit is the tool's arithmetic, not the scheduler's mood.
TEST_CASE("engine: time_based runs for runtime; ramp_time runs first and is not measured")
{
	pb::tmpdir d;
	auto p = pb::build(d.path(), { job_spec("t", PLAN_RW_RANDREAD).with([](plan_job &j) {
							 j.time_based = true;
							 j.runtime_ns = 300000000ull;
							 j.ramp_time_ns = 200000000ull;
						 }) });
	eng_opts o = pb::fake_clock(50000);	// a few thousand I/Os: enough to wrap, quick to run
	int ret = -1;
	auto r = pb::run(*p, &ret, &o);
	REQUIRE(ret == 0);
	const res_clone &c = r->jobs[0].clones[0];
	uint64_t win = c.end_ns - c.start_ns;
	CHECK(win >= 300000000ull);
	CHECK(win < 301000000ull);	// stops within an I/O or two of the end
	CHECK(c.ddir[PLAN_DDIR_READ].runtime_ns == win);
	CHECK(c.start_ns - c.thread_start_ns >= 200000000ull);
	CHECK(c.ddir[PLAN_DDIR_READ].ios > 256);	// wrapped around the 256 blocks
	CHECK(c.ddir[PLAN_DDIR_READ].clat.n == c.ddir[PLAN_DDIR_READ].ios);
	// bw samples every 500 ms do not fit in 300 ms; the series has its partial interval.
	CHECK(c.bw_series.nr >= 1);
	uint64_t series_ios = 0;
	for (uint32_t i = 0; i < c.bw_series.nr; i++)
		series_ios += c.bw_series.samples[i].ios[PLAN_DDIR_READ];
	CHECK(series_ios == c.ddir[PLAN_DDIR_READ].ios);
}

// The same job on the real clock: only what load cannot break is asserted
// (it never ends early, ramp comes first); a 5 s bound catches a run that
// ignores its runtime without measuring the scheduler.
TEST_CASE("engine: on the real clock, time_based never ends before runtime nor measures ramp_time")
{
	pb::tmpdir d;
	auto p = pb::build(d.path(), { job_spec("t", PLAN_RW_RANDREAD).with([](plan_job &j) {
							 j.time_based = true;
							 j.runtime_ns = 300000000ull;
							 j.ramp_time_ns = 200000000ull;
						 }) });
	auto t0 = std::chrono::steady_clock::now();
	int ret = -1;
	auto r = pb::run(*p, &ret);
	double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
	REQUIRE(ret == 0);
	const res_clone &c = r->jobs[0].clones[0];
	uint64_t win = c.end_ns - c.start_ns;
	CHECK(win >= 300000000ull);
	CHECK(win < 5300000000ull);
	CHECK(c.ddir[PLAN_DDIR_READ].runtime_ns == win);
	CHECK(c.start_ns - c.thread_start_ns >= 200000000ull);
	CHECK(c.ddir[PLAN_DDIR_READ].clat.n == c.ddir[PLAN_DDIR_READ].ios);
	CHECK(wall >= 0.5);
}

// A fake clock: the rate schedule and the sample windows are the tool's own
// arithmetic, so the counts are exact on any machine.
TEST_CASE("engine: per-interval bandwidth and IOPS samples follow bwavgtime/iopsavgtime")
{
	pb::tmpdir d;
	auto p = pb::build(d.path(), { job_spec("s", PLAN_RW_READ, PLAN_IOENGINE_NULL).with([](plan_job &j) {
							 j.time_based = true;
							 j.runtime_ns = 450000000ull;
							 j.bw_avg_time_ns = 100000000ull;
							 j.iops_avg_time_ns = 50000000ull;
							 j.rate_iops[PLAN_DDIR_READ] = 2000;
						 }) });
	eng_opts o = pb::fake_clock();
	int ret = -1;
	auto r = pb::run(*p, &ret, &o);
	REQUIRE(ret == 0);
	const res_clone &c = r->jobs[0].clones[0];
	CHECK(c.ddir[PLAN_DDIR_READ].bw_kib_s.n >= 3);
	CHECK(c.ddir[PLAN_DDIR_READ].bw_kib_s.n <= 5);
	CHECK(c.ddir[PLAN_DDIR_READ].iops.n >= 7);
	CHECK(c.ddir[PLAN_DDIR_READ].iops.mean == doctest::Approx(2000).epsilon(0.1));
	CHECK(c.ddir[PLAN_DDIR_READ].bw_kib_s.mean == doctest::Approx(8000).epsilon(0.1));
	CHECK(c.iops_series.interval_ns == 50000000ull);
	CHECK(c.bw_series.interval_ns == 100000000ull);
	CHECK(c.ddir[PLAN_DDIR_READ].ios == doctest::Approx(900).epsilon(0.005));
	CHECK(c.ddir[PLAN_DDIR_READ].sched_lat.n == c.ddir[PLAN_DDIR_READ].ios);
	CHECK(c.ddir[PLAN_DDIR_READ].target_iops == 2000);
}

TEST_CASE("engine: eng_stop ends a 60 s run at once and marks it interrupted")
{
	pb::tmpdir d;
	auto p = pb::build(d.path(), { job_spec("long", PLAN_RW_RANDREAD, PLAN_IOENGINE_PSYNC, 1 << 20, 2)
						 .with([](plan_job &j) {
							 j.time_based = true;
							 j.runtime_ns = 60000000000ull;
						 }),
				       job_spec("after", PLAN_RW_READ).stonewalled() });
	eng *e = nullptr;
	REQUIRE(eng_start(p.get(), nullptr, &e) == 0);
	std::vector<char> states(p->nr_threads);
	eng_status st{};
	st.states = states.data();
	// Wait on the state itself: on a busy machine the first I/O can take seconds.
	auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
	while (std::chrono::steady_clock::now() < deadline) {
		REQUIRE(eng_get_status(e, &st) == 0);
		if (st.phase == ENG_PHASE_RUN && st.ios[PLAN_DDIR_READ] > 0 && states[0] == 'r' &&
		    states[1] == 'r')
			break;
		std::this_thread::sleep_for(std::chrono::milliseconds(10));
	}
	CHECK(st.nr_running == 2);
	CHECK(states[0] == 'r');
	CHECK(states[2] == 'P');
	CHECK(eng_wait(e, 1000000) == -ETIMEDOUT);
	// Stop is seen at the next I/O (well under a second idle); 5 s allows a
	// loaded scheduler and is still far from the 60 s a missed stop would take.
	auto t0 = std::chrono::steady_clock::now();
	eng_stop(e);
	CHECK(eng_wait(e, 5000000000ull) == 0);
	CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(5));
	results *r = nullptr;
	CHECK(eng_finish(e, &r) == 0);
	pb::results_ptr rp(r);
	CHECK(r->interrupted);
	REQUIRE(r->nr_jobs == 1);	// the stonewalled job never started
	CHECK(r->jobs[0].clones[0].ddir[PLAN_DDIR_READ].ios > 0);
	CHECK(r->jobs[0].clones[0].end_ns > r->jobs[0].clones[0].start_ns);
}

// A plain async job publishes its counts once per loop trip, not per I/O
// (worker_io.c): the status line must still see them grow while it runs.
TEST_CASE("engine: a plain async job's counts reach the status while it runs")
{
	pb::tmpdir d;
	auto p = pb::build(d.path(), { job_spec("deep", PLAN_RW_RANDREAD, PLAN_IOENGINE_NULL, 1 << 30)
						 .opt("iodepth", "32")
						 .with([](plan_job &j) {
							 j.time_based = true;
							 j.runtime_ns = 60000000000ull;
						 }) });
	eng *e = nullptr;
	REQUIRE(eng_start(p.get(), nullptr, &e) == 0);
	eng_status st{};
	uint64_t seen[2] = { 0, 0 };
	auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
	for (int i = 0; i < 2 && std::chrono::steady_clock::now() < deadline;) {
		REQUIRE(eng_get_status(e, &st) == 0);
		if (st.ios[PLAN_DDIR_READ] > (i ? seen[0] : 0))
			seen[i++] = st.ios[PLAN_DDIR_READ];
		std::this_thread::sleep_for(std::chrono::milliseconds(10));
	}
	CHECK(seen[0] > 0);
	CHECK(seen[1] > seen[0]);
	CHECK(st.bytes[PLAN_DDIR_READ] == st.ios[PLAN_DDIR_READ] * 4096);
	eng_stop(e);
	results *r = nullptr;
	CHECK(eng_finish(e, &r) == 0);
	pb::results_ptr rp(r);
	CHECK(r->jobs[0].clones[0].ddir[PLAN_DDIR_READ].ios >= seen[1]);
}

TEST_CASE("engine: an existing file ioplan did not create is never written without permission")
{
	pb::tmpdir d;
	std::string path = d.file("precious");
	{
		std::ofstream f(path);
		f << std::string(1 << 20, 'x');
	}
	auto p = pb::build(d.path(), { job_spec("w", PLAN_RW_WRITE).file("precious") });
	int ret = 0;
	auto r = pb::run(*p, &ret);
	CHECK(ret == -EPERM);
	REQUIRE(r);
	CHECK(r->error == EPERM);
	REQUIRE(r->nr_msgs >= 1);
	CHECK(std::string(r->msgs[0].text).find(path) != std::string::npos);
	CHECK(r->msgs[0].level == RES_MSG_ERROR);
	CHECK(pb::job_bytes(*r, 0, PLAN_DDIR_WRITE) == 0);
	std::ifstream in(path);
	std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
	CHECK(s == std::string(1 << 20, 'x'));
	// Reading it is fine; writing it is fine once allowed.
	auto rd = pb::build(d.path(), { job_spec("r", PLAN_RW_READ).file("precious") });
	CHECK(pb::run(*rd, &ret)->error == 0);
	CHECK(ret == 0);
	p->allow_existing_file_write = true;
	r = pb::run(*p, &ret);
	CHECK(ret == 0);
	CHECK(pb::job_bytes(*r, 0, PLAN_DDIR_WRITE) == 1u << 20);
}

TEST_CASE("engine: ioplan's own files are reused, and unlink=1 removes them after the job")
{
	pb::tmpdir d;
	auto p = pb::build(d.path(), { job_spec("f", PLAN_RW_RANDWRITE) });
	int ret = -1;
	pb::run(*p, &ret);
	CHECK(ret == 0);
	CHECK(file_size(d.file("f.0.0")) == 1u << 20);
	pb::run(*p, &ret);	// marked as ours: rewriting it needs no permission
	CHECK(ret == 0);
	const_cast<plan_job *>(plan_job_at(p.get(), 0))->unlink = true;
	pb::run(*p, &ret);
	CHECK(ret == 0);
	CHECK(access(d.file("f.0.0").c_str(), F_OK) != 0);
}

TEST_CASE("engine: a directory that cannot be made is an error with the path, not a crash")
{
	pb::tmpdir d;
	int fd = open(d.file("plain").c_str(), O_WRONLY | O_CREAT, 0644);
	REQUIRE(fd >= 0);
	close(fd);
	// Missing directories are made; one beneath a regular file cannot be.
	auto p = pb::build(d.file("plain/sub"), { job_spec("x", PLAN_RW_READ) });
	int ret = 0;
	auto r = pb::run(*p, &ret);
	CHECK(ret == -ENOTDIR);
	REQUIRE(r);
	REQUIRE(r->nr_msgs == 1);
	CHECK(std::string(r->msgs[0].text).find(d.file("plain/sub/x.0.0")) != std::string::npos);
}

TEST_CASE("engine: wait_for delays one job until the named job ended; startdelay delays the start")
{
	pb::tmpdir d;
	// a runs 600 ms and c starts 100 ms in: half a second of margin for a busy machine.
	auto slow = [](plan_job &j) {
		j.time_based = true;
		j.runtime_ns = 600000000ull;
	};
	auto p = pb::build(d.path(), { job_spec("a", PLAN_RW_READ, PLAN_IOENGINE_NULL).with(slow),
				       job_spec("b", PLAN_RW_READ, PLAN_IOENGINE_NULL).with([](plan_job &j) {
					       j.wait_for_job_id = 0;
					       j.number_ios = 10;
				       }),
				       job_spec("c", PLAN_RW_READ, PLAN_IOENGINE_NULL).with([](plan_job &j) {
					       j.startdelay_min_ns = j.startdelay_max_ns = 100000000ull;
					       j.number_ios = 10;
				       }) });
	int ret = -1;
	auto r = pb::run(*p, &ret);
	REQUIRE(ret == 0);
	const res_job *a = pb::find_job(*r, 0), *b = pb::find_job(*r, 1), *c = pb::find_job(*r, 2);
	REQUIRE((a && b && c));
	CHECK(b->clones[0].start_ns >= a->end_ns);
	// Timestamps count from the run's start; a's own start may lag it under load.
	CHECK(c->clones[0].start_ns >= 100000000ull);
	CHECK(c->clones[0].start_ns < a->end_ns);
	CHECK(b->groupid == 0);
}

TEST_CASE("engine: a stop reaches a job still waiting for another")
{
	pb::tmpdir d;
	auto p = pb::build(d.path(), { job_spec("a", PLAN_RW_READ, PLAN_IOENGINE_NULL).with([](plan_job &j) {
					       j.time_based = true;
					       j.runtime_ns = 30000000000ull;
				       }),
				       job_spec("b", PLAN_RW_READ, PLAN_IOENGINE_NULL).with([](plan_job &j) {
					       j.wait_for_job_id = 0;
				       }) });
	eng *e = nullptr;
	REQUIRE(eng_start(p.get(), nullptr, &e) == 0);
	std::this_thread::sleep_for(std::chrono::milliseconds(100));
	eng_stop(e);
	CHECK(eng_wait(e, 5000000000ull) == 0);	// 30 s unstopped; 5 allows a loaded machine
	results *r = nullptr;
	eng_finish(e, &r);
	pb::results_ptr rp(r);
	CHECK(r->interrupted);
	CHECK(pb::job_ios(*r, 1, PLAN_DDIR_READ) == 0);
}

// Until the run's phase is RUN with a thread running (30 s deadline).
static void wait_running(eng *e)
{
	eng_status st{};
	auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
	while ((eng_get_status(e, &st) || st.phase != ENG_PHASE_RUN || !st.nr_running) &&
	       std::chrono::steady_clock::now() < deadline)
		std::this_thread::sleep_for(std::chrono::milliseconds(5));
}

// A real I/O that waits: an io_uring read from a FIFO whose writer (this test)
// stays silent for longer than stall_timeout, then writes.  Thinktime would not
// do: a thread thinking has no I/O in flight, and the watchdog only reports I/O
// that does not complete.
TEST_CASE("engine: the stall watchdog reports an I/O that waits longer than stall_timeout")
{
	pb::tmpdir d;
	std::string fifo = d.file("fifo");
	REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
	int wfd = open(fifo.c_str(), O_RDWR);	// a writer, so the job's open does not block
	REQUIRE(wfd >= 0);
	auto p = pb::build(d.path(), { job_spec("s", PLAN_RW_READ, PLAN_IOENGINE_IO_URING, 4096).file("fifo").with([](plan_job &j) {
		j.stall_timeout_ns = 300000000ull;
	}) });
	eng *e = nullptr;
	REQUIRE(eng_start(p.get(), nullptr, &e) == 0);
	wait_running(e);
	// The silence is the stimulus: five timeouts long, so a watchdog that a
	// busy machine runs late still sees it.
	std::this_thread::sleep_for(std::chrono::milliseconds(1500));
	char block[4096] = { 0 };
	CHECK(write(wfd, block, sizeof(block)) == (ssize_t)sizeof(block));
	results *raw = nullptr;
	int ret = eng_finish(e, &raw);
	pb::results_ptr r(raw);
	close(wfd);
	const res_job *j = pb::find_job(*r, 0);
	REQUIRE(j);
	if (ret == -ENOSYS || ret == -EPERM || j->clones[0].error == ENOSYS) {
		MESSAGE("io_uring refused by the kernel: skipped");
		return;
	}
	CHECK(ret == 0);
	CHECK(j->clones[0].stalled);
	CHECK(j->clones[0].ddir[PLAN_DDIR_READ].ios == 1);
	bool found = false;
	for (uint32_t i = 0; i < r->nr_msgs; i++)
		found = found || (std::string(r->msgs[i].code) == "stall" &&
				  std::string(r->msgs[i].text).find("s: thread 1: no I/O completed for") == 0);
	CHECK(found);

	// A wait far shorter than the timeout is no stall.
	auto q = pb::build(d.path(), { job_spec("s", PLAN_RW_READ, PLAN_IOENGINE_IO_URING, 4096).file("fifo").with([](plan_job &pj) {
		pj.stall_timeout_ns = 10000000000ull;
	}) });
	wfd = open(fifo.c_str(), O_RDWR);
	REQUIRE(wfd >= 0);
	REQUIRE(eng_start(q.get(), nullptr, &e) == 0);
	wait_running(e);
	std::this_thread::sleep_for(std::chrono::milliseconds(100));
	CHECK(write(wfd, block, sizeof(block)) == (ssize_t)sizeof(block));
	raw = nullptr;
	CHECK(eng_finish(e, &raw) == 0);
	r.reset(raw);
	close(wfd);
	CHECK_FALSE(pb::find_job(*r, 0)->clones[0].stalled);
}

TEST_CASE("engine: while workers sleep the run costs next to no CPU (the coordinator waits, never spins)")
{
	pb::tmpdir d;
	auto p = pb::build(d.path(), { job_spec("idle", PLAN_RW_READ, PLAN_IOENGINE_NULL).with([](plan_job &j) {
							 j.time_based = true;
							 j.runtime_ns = 400000000ull;
							 j.rate_iops[PLAN_DDIR_READ] = 50;
						 }) });
	struct rusage r0, r1;
	getrusage(RUSAGE_SELF, &r0);
	auto t0 = std::chrono::steady_clock::now();
	int ret = -1;
	auto r = pb::run(*p, &ret);
	double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
	getrusage(RUSAGE_SELF, &r1);
	REQUIRE(ret == 0);
	auto sec = [](const timeval &a, const timeval &b) {
		return (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_usec - a.tv_usec) / 1e6;
	};
	double cpu = sec(r0.ru_utime, r1.ru_utime) + sec(r0.ru_stime, r1.ru_stime);
	// The clock calibration (~20 ms) and set-up are the only busy parts.
	CHECK(cpu < 0.25 * wall);
	CHECK(r->jobs[0].clones[0].cpu_bound == false);
}
