// tests/engine/test_prio.cpp - engine/prio.c's per-I/O draw (fio's cmdprio) and
// the per-priority latency merge of engine/results.c.
#include <doctest/doctest.h>

#include <cstdlib>
#include <cstring>
#include <initializer_list>

#include "engine/prio.h"
#include "engine/results.h"

namespace {

plan_job aio_job()
{
	plan_job j;
	std::memset(&j, 0, sizeof(j));
	j.ioengine = PLAN_IOENGINE_LIBAIO;
	j.rw = PLAN_RW_RANDRW;
	return j;
}

struct clone_res {
	res_clone c;
	clone_res() { res_clone_init(&c); }
	~clone_res() { res_clone_release(&c); }
};

// Draws n I/Os of len bytes in direction d; counts them by ioprio.
void draw(prio_pick *p, uint8_t d, uint32_t len, int n, int *by_prio /* [1 << 16] */)
{
	io_u u;
	std::memset(&u, 0, sizeof(u));
	u.ddir = d;
	u.len = len;
	for (int i = 0; i < n; i++) {
		prio_pick_io(p, &u);
		by_prio[u.ioprio]++;
	}
}

} // namespace

TEST_CASE("prio: a job without cmdprio gets no per-I/O state (nothing on the hot path)")
{
	plan_job j = aio_job();
	clone_res r;
	prio_pick *p = (prio_pick *)1;
	CHECK(prio_pick_new(&j, 1, &r.c, &p) == 0);
	CHECK(p == nullptr);
	CHECK(r.c.ddir[0].nr_prios == 0);
	j.ioengine = PLAN_IOENGINE_PSYNC;	// cmdprio belongs to libaio and io_uring
	j.cmdprio[0].pct = 50;
	CHECK(prio_pick_new(&j, 1, &r.c, &p) == 0);
	CHECK(p == nullptr);
}

TEST_CASE("prio: cmdprio_percentage sends that share at real-time (fio's default class)")
{
	plan_job j = aio_job();
	j.ioprio_set = true;
	j.ioprio_class = 3;	// the thread's own: idle
	j.cmdprio[0].pct = 20;
	clone_res r;
	prio_pick *p = nullptr;
	REQUIRE(prio_pick_new(&j, 7, &r.c, &p) == 0);
	REQUIRE(p);
	static int by[1 << 16];
	std::memset(by, 0, sizeof(by));
	draw(p, PLAN_DDIR_READ, 4096, 100000, by);
	CHECK(by[1 << 13] == doctest::Approx(20000).epsilon(0.03));
	CHECK(by[3 << 13] == 100000 - by[1 << 13]);
	std::memset(by, 0, sizeof(by));
	draw(p, PLAN_DDIR_WRITE, 4096, 1000, by);	// writes: no percentage, the thread's priority
	CHECK(by[3 << 13] == 1000);
	// Entry 0 is the thread's priority, then the high one; writes keep none.
	REQUIRE(r.c.ddir[0].nr_prios == 2);
	CHECK(r.c.ddir[0].prios[0].ioprio == 3u << 13);
	CHECK(r.c.ddir[0].prios[1].ioprio == 1u << 13);
	CHECK(r.c.ddir[1].nr_prios == 0);
	std::free(p);
}

TEST_CASE("prio: cmdprio_bssplit decides per block size")
{
	plan_job j = aio_job();
	plan_cmdprio &c = j.cmdprio[0];
	j.cmdprio_bssplit = true;
	plan_cmdprio_split split[3];
	c.nr_split = 3;
	c.split = split;
	c.split[0] = { 4096, 100, (int32_t)((3 << 13) | 2) };
	c.split[1] = { 65536, 25, (int32_t)((1 << 13) | 1) };
	c.split[2] = { 65536, 75, -1 };	// cmdprio_class/cmdprio: real-time level 0
	clone_res r;
	prio_pick *p = nullptr;
	REQUIRE(prio_pick_new(&j, 3, &r.c, &p) == 0);
	REQUIRE(p);
	static int by[1 << 16];
	std::memset(by, 0, sizeof(by));
	draw(p, PLAN_DDIR_READ, 4096, 1000, by);
	CHECK(by[(3 << 13) | 2] == 1000);
	std::memset(by, 0, sizeof(by));
	draw(p, PLAN_DDIR_READ, 65536, 100000, by);
	CHECK(by[(1 << 13) | 1] == doctest::Approx(25000).epsilon(0.04));
	CHECK(by[1 << 13] == 100000 - by[(1 << 13) | 1]);
	std::memset(by, 0, sizeof(by));
	draw(p, PLAN_DDIR_READ, 8192, 1000, by);	// a size without entries: the thread's (none)
	CHECK(by[0] == 1000);
	CHECK(r.c.ddir[0].nr_prios == 4);
	std::free(p);
}

TEST_CASE("results: priorities merge by value, in first-seen order; a single-priority clone adds its clat")
{
	clone_res a, b;
	a.c.ddir[0].nr_prios = 2;
	a.c.ddir[0].prios[0].ioprio = 0;
	a.c.ddir[0].prios[1].ioprio = 1 << 13;
	b.c.ddir[0].nr_prios = 2;
	b.c.ddir[0].prios[0].ioprio = 0;
	b.c.ddir[0].prios[1].ioprio = 3 << 13;
	for (res_clone *c : { &a.c, &b.c })
		for (uint32_t i = 0; i < 2; i++) {
			res_lat &l = c->ddir[0].prios[i].lat;
			l = res_lat{ 10, 100, 200, 1500, 0, 0, nullptr };
		}
	REQUIRE(res_clone_merge(&a.c, &b.c) == 0);
	REQUIRE(a.c.ddir[0].nr_prios == 3);
	CHECK(a.c.ddir[0].prios[0].lat.n == 20);
	CHECK(a.c.ddir[0].prios[2].ioprio == 3u << 13);
	// A direction with one priority: its whole clat under the clone's priority.
	res_ddir &w = b.c.ddir[1];
	w.clat.n = 5;
	w.clat.min_ns = 7;
	w.clat.max_ns = 9;
	REQUIRE(res_ddir_prio_single(&w, (2 << 13) | 4, false) == 0);
	REQUIRE(w.nr_prios == 1);
	CHECK(w.prios[0].ioprio == ((2u << 13) | 4));
	CHECK(w.prios[0].lat.n == 5);
	CHECK(w.prios[0].lat.min_ns == 7);
}
