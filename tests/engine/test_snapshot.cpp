// tests/engine/test_snapshot.cpp - the results so far of a running plan
// (eng_snapshot, engine/snapshot.c): growing figures consistent with the final
// ones, a bounded wait for a thread that cannot answer, the jobs of a segment
// that ended kept whole.
#include <doctest/doctest.h>

#include <chrono>
#include <thread>

#include "tests/engine/plan_builder.hpp"

using pb::job_spec;

namespace {

pb::results_ptr snapshot(eng *e, uint64_t wait_ns = 200000000ull)
{
	results *r = nullptr;
	REQUIRE(eng_snapshot(e, wait_ns, &r) == 0);
	REQUIRE(r);
	return pb::results_ptr(r);
}

eng *start(const plan &p, const eng_opts *o = nullptr)
{
	eng *e = nullptr;
	REQUIRE(eng_start(&p, o, &e) == 0);
	return e;
}

// Waits for the run's end; ok: eng_finish must return 0.
pb::results_ptr finish(eng *e, bool ok = true)
{
	results *r = nullptr;
	int ret = eng_finish(e, &r);
	if (ok)
		REQUIRE(ret == 0);
	return pb::results_ptr(r);
}

const res_ddir &read_of(const results &r, uint32_t job = 0)
{
	return r.jobs[job].clones[0].ddir[PLAN_DDIR_READ];
}

// The first snapshot that shows what the test waits for (30 s deadline): a
// busy machine may start a thread or a segment late, so no fixed sleep.
template <class F> pb::results_ptr snapshot_when(eng *e, F ready)
{
	auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
	for (;;) {
		auto s = snapshot(e);
		if (ready(*s) || std::chrono::steady_clock::now() > deadline)
			return s;
		std::this_thread::sleep_for(std::chrono::milliseconds(20));
	}
}

pb::results_ptr snapshot_after(eng *e, uint64_t min_ns)
{
	return snapshot_when(e, [&](const results &r) { return r.nr_jobs && read_of(r).runtime_ns > min_ns; });
}

} // namespace

TEST_CASE("snapshot: a running null job's bytes, runtime and latencies grow, and the final report holds more")
{
	pb::tmpdir d;
	auto p = pb::build(d.path(), { job_spec("n", PLAN_RW_READ, PLAN_IOENGINE_NULL, 1ull << 30).with([](plan_job &j) {
		j.time_based = true;
		j.runtime_ns = 800000000ull;
		j.rate_iops[PLAN_DDIR_READ] = 20000;
	}) });
	eng_opts o{};
	o.snapshots = true;
	eng *e = start(*p, &o);
	auto a = snapshot_after(e, 100000000ull);
	auto b = snapshot_after(e, read_of(*a).runtime_ns + 100000000ull);
	auto fin = finish(e);
	REQUIRE(a->nr_jobs == 1);
	REQUIRE(b->nr_jobs == 1);
	const res_ddir &ra = read_of(*a), &rb = read_of(*b), &rf = read_of(*fin);
	CHECK(ra.bytes > 0);
	CHECK(ra.bytes == ra.ios * 4096);
	CHECK(rb.bytes > ra.bytes);
	CHECK(rf.bytes >= rb.bytes);
	// The window so far, then more of it, within the final one, never above the rate asked.
	CHECK(ra.runtime_ns > 100000000ull);
	CHECK(rb.runtime_ns > ra.runtime_ns);
	CHECK(rf.runtime_ns >= rb.runtime_ns);
	CHECK(rf.runtime_ns >= 800000000ull);
	CHECK((double)rb.ios * 1e9 / (double)rb.runtime_ns <= 20000 * 1.1);
	CHECK(ra.clat.n == ra.ios);
	REQUIRE(ra.clat.hist);
	uint64_t in_hist = 0;
	for (uint32_t i = 0; i < RES_HIST_NR; i++)
		in_hist += ra.clat.hist[i];
	CHECK(in_hist == ra.ios);
	CHECK(b->end_mono_ns > a->end_mono_ns);
	CHECK(b->jobs[0].clones[0].thread_number == 1);
}

TEST_CASE("snapshot: a thread thinking for seconds does not hold the snapshot past its wait")
{
	pb::tmpdir d;
	auto p = pb::build(d.path(), { job_spec("t", PLAN_RW_READ, PLAN_IOENGINE_NULL, 1ull << 30).with([](plan_job &j) {
		j.time_based = true;
		j.runtime_ns = 30000000000ull;
		j.thinktime_ns = 20000000000ull;
	}) });
	eng *e = start(*p);
	// Thinking after its first I/O (the status counters show it; a snapshot
	// would not, as a thinking thread cannot answer one).
	eng_status st{};
	auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
	while ((eng_get_status(e, &st) || !st.ios[PLAN_DDIR_READ]) && std::chrono::steady_clock::now() < deadline)
		std::this_thread::sleep_for(std::chrono::milliseconds(10));
	// A 50 ms wait against a 20 s think: 5 s allows a loaded scheduler and
	// still tells a bounded wait from one that waits the think out.
	auto t0 = std::chrono::steady_clock::now();
	auto s = snapshot(e, 50000000ull);
	CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(5));
	CHECK(s->nr_jobs == 1);
	eng_stop(e);
	auto fin = finish(e, false);
	CHECK(read_of(*fin).ios >= 1);
}

TEST_CASE("snapshot: the jobs of an ended segment are copied whole, the next one's are so far")
{
	pb::tmpdir d;
	auto p = pb::build(d.path(), { job_spec("first", PLAN_RW_READ, PLAN_IOENGINE_NULL, 1 << 20),
				       job_spec("second", PLAN_RW_READ, PLAN_IOENGINE_NULL, 1ull << 30).stonewalled().with([](plan_job &j) {
					       j.time_based = true;
					       j.runtime_ns = 1500000000ull;
				       }) });
	eng *e = start(*p);
	auto s = snapshot_when(e, [](const results &r) { return r.nr_jobs == 2 && read_of(r, 1).bytes > 0; });
	auto fin = finish(e);
	REQUIRE(s->nr_jobs == 2);
	CHECK(read_of(*s, 0).bytes == 1u << 20);
	CHECK(read_of(*s, 0).runtime_ns == read_of(*fin, 0).runtime_ns);
	CHECK(read_of(*s, 1).bytes > 0);
	CHECK(read_of(*s, 1).bytes < read_of(*fin, 1).bytes);
	CHECK(s->jobs[1].end_ns >= s->jobs[1].start_ns);
}
