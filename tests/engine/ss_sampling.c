/*
 * tests/engine/ss_sampling.c - steady state's once-a-second sampling
 * (engine/steadystate.c) over clones whose counters a script sets, on a clock
 * the script sets: what a sample sums is then the tool's arithmetic alone, not
 * how a loaded machine ran the threads.  C because engine/worker/worker.h is
 * C11 (stdatomic.h) that C++ cannot include; tests/engine/test_steadystate.cpp
 * calls in.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "engine/steadystate.h"
#include "engine/worker/worker.h"

#define T_SS_TICK_NS 100000000ull	/* the coordinator's tick (segment.c's TICK_NS) */
#define T_SS_BS 4096ull

/* One clone: counting iops I/Os a second from start_ns until end_ns (0: runs on). */
struct t_ss_clone {
	uint64_t start_ns;
	uint64_t end_ns;
	uint64_t iops;
};

static void t_ss_advance(struct worker *w, const struct t_ss_clone *c, uint64_t now)
{
	uint64_t until = c->end_ns && c->end_ns < now ? c->end_ns : now;
	uint64_t ios = until > c->start_ns ? c->iops * (until - c->start_ns) / 1000000000ull : 0;

	if (now < c->start_ns)
		return;
	w->started = true;
	atomic_store(&w->pub.epoch_ns, c->start_ns);
	atomic_store(&w->pub.ios[PLAN_DDIR_READ], ios);
	atomic_store(&w->pub.bytes[PLAN_DDIR_READ], ios * T_SS_BS);
	atomic_store(&w->pub.running, !c->end_ns || now < c->end_ns);
}

static struct worker **t_ss_workers(const struct plan_job *j, struct job_run *jr, uint32_t n)
{
	struct worker **cur = calloc(n, sizeof(*cur));

	for (uint32_t i = 0; cur && i < n; i++) {
		cur[i] = aligned_alloc(64, (sizeof(*cur[i]) + 63) & ~(size_t)63);
		if (!cur[i])
			return NULL;	/* a test process: what was allocated goes with it */
		memset(cur[i], 0, sizeof(*cur[i]));
		cur[i]->job = j;
		cur[i]->jr = jr;
		cur[i]->out = &jr->res->clones[i];
	}
	return cur;
}

/*
 * Runs the sampling over j's n clones from 0 to until_ns, ticking as
 * the coordinator does; each clone's record (res_job.ss: its own, or its
 * group's in the last clone) lands in rj, which must have n clones.  0 or
 * -errno.  The caller frees rj->ss with t_ss_free.
 */
int t_ss_run(const struct plan_job *j, const struct t_ss_clone *clones, uint32_t n, uint64_t until_ns,
	     struct res_job *rj)
{
	struct job_run jr;
	struct ss_run r;
	struct worker **cur;
	int ret;

	memset(&jr, 0, sizeof(jr));
	jr.job = j;
	jr.res = rj;
	cur = t_ss_workers(j, &jr, n);
	if (!cur)
		return -ENOMEM;
	ret = ss_run_init(&r, cur, n);
	for (uint64_t now = 0; !ret && now <= until_ns; now += T_SS_TICK_NS) {
		for (uint32_t i = 0; i < n; i++)
			t_ss_advance(cur[i], &clones[i], now);
		ss_run_tick(&r, cur, now);
	}
	if (!ret)
		ret = ss_run_finish(&r, cur);
	for (uint32_t i = 0; i < n; i++)
		free(cur[i]);
	free(cur);
	return ret;
}

void t_ss_free(struct res_job *rj)
{
	for (uint32_t i = 0; rj->ss && i < rj->nr_clones; i++) {
		free(rj->ss[i].iops);
		free(rj->ss[i].bw);
	}
	free(rj->ss);
	rj->ss = NULL;
}
