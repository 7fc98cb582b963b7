/*
 * engine/snapshot.c - the results so far of a running plan (snapshot.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "snapshot.h"

#define AWAIT_SLICE_NS 100000L		/* between two looks at the workers' answers */

/* A copy taken mid-window holds the window so far, as the final one holds all of it. */
static void so_far(struct worker *w, struct res_clone *s, uint64_t now)
{
	s->clone_index = w->clone->clone_index;
	s->thread_number = w->clone->thread_number;
	s->thread_end_ns = now;
	if (!w->counting) {
		/* A ramp shows its own I/O, as fio's interim reports do; after the window: final already. */
		if (worker_in_ramp(w))
			worker_ramp_so_far(w, s, now);
		return;
	}
	s->end_ns = now;
	for (int d = 0; d < PLAN_DDIR_NR; d++)
		if (s->ddir[d].bytes)
			s->ddir[d].runtime_ns = now - s->start_ns;
	worker_logs_so_far(w, s);
	worker_lat_from_clat(w, s);
	worker_cpu_usage(w, s);
}

void worker_snapshot(struct worker *w)
{
	uint64_t seq = atomic_load_explicit(w->sh->snap_req, memory_order_acquire);
	uint64_t now = clk_now(&w->clk);

	pthread_mutex_lock(&w->snap.mu);
	if (w->snap.valid)
		res_clone_release(&w->snap.res);
	w->snap.valid = !res_clone_copy(&w->snap.res, &w->res);
	if (w->snap.valid)
		so_far(w, &w->snap.res, now);
	pthread_mutex_unlock(&w->snap.mu);
	w->snap.seen = seq;
	atomic_store_explicit(&w->pub.snap_ack, seq, memory_order_release);
}

static bool answered(const struct worker *w, uint64_t seq)
{
	return atomic_load_explicit(&w->pub.snap_ack, memory_order_acquire) >= seq ||
	       !atomic_load_explicit(&w->pub.in_loop, memory_order_acquire);
}

void snap_await(struct worker *const *cur, uint32_t n, uint64_t seq, uint64_t wait_ns)
{
	struct timespec slice = { 0, AWAIT_SLICE_NS };
	uint64_t until = clk_mono_raw() + wait_ns;

	for (uint32_t i = 0; i < n; i++)
		while (!answered(cur[i], seq) && clk_mono_raw() < until)
			nanosleep(&slice, NULL);
}

/* The worker's results as it last left them; an empty clone when it has none yet. */
static int copy_worker(struct worker *w, struct res_clone *dst)
{
	int ret = 0;

	pthread_mutex_lock(&w->snap.mu);
	if (w->snap.final)
		ret = res_clone_copy(dst, w->out);
	else if (w->snap.valid)
		ret = res_clone_copy(dst, &w->snap.res);
	pthread_mutex_unlock(&w->snap.mu);
	dst->clone_index = w->clone->clone_index;
	dst->thread_number = w->clone->thread_number;
	dst->stalled = dst->stalled || atomic_load(&w->pub.stalled);
	return ret;
}

static int copy_running_job(struct res_job *dst, const struct res_job *src,
			    struct worker *const *cur, uint32_t n)
{
	int ret = 0;

	for (uint32_t c = 0; c < dst->nr_clones; c++)
		res_clone_init(&dst->clones[c]);
	for (uint32_t i = 0; i < n && !ret; i++)
		if (cur[i]->jr->res == src)
			ret = copy_worker(cur[i], &dst->clones[cur[i]->out - src->clones]);
	res_job_span(dst);
	return ret;
}

static bool is_running(const struct res_job *rj, struct worker *const *cur, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (cur[i]->jr->res == rj)
			return true;
	return false;
}

/*
 * Only fields the coordinator no longer writes are read: a running job's span
 * is its clones' (job_span may be writing the live one as the segment ends).
 */
static int copy_job(struct res_job *dst, const struct res_job *src, struct worker *const *cur,
		    uint32_t n)
{
	int ret = 0;

	dst->job_id = src->job_id;
	dst->groupid = src->groupid;
	dst->run = src->run;
	dst->discarded = src->discarded;
	dst->clones = calloc(src->nr_clones ? src->nr_clones : 1, sizeof(*dst->clones));
	if (!dst->clones)
		return -ENOMEM;
	dst->nr_clones = src->nr_clones;
	if (res_job_ss_copy(dst, src))
		return -ENOMEM;
	if (is_running(src, cur, n))
		return copy_running_job(dst, src, cur, n);
	dst->start_ns = src->start_ns;
	dst->end_ns = src->end_ns;
	for (uint32_t c = 0; c < src->nr_clones && !ret; c++)
		ret = res_clone_copy(&dst->clones[c], &src->clones[c]);
	return ret;
}

static void copy_head(struct results *r, const struct results *live, uint64_t now_ns)
{
	r->abi_version = live->abi_version;
	r->plan = live->plan;
	r->start_wall_ns = live->start_wall_ns;
	r->start_mono_ns = live->start_mono_ns;
	r->end_mono_ns = live->start_mono_ns + now_ns;
	r->jobs_start_ns = live->jobs_start_ns;
	memcpy(r->hostname, live->hostname, sizeof(r->hostname));
	memcpy(r->kernel, live->kernel, sizeof(r->kernel));
	memcpy(r->clock_source, live->clock_source, sizeof(r->clock_source));
	r->clock_cost_ns = live->clock_cost_ns;
}

int snap_collect(const struct results *live, struct worker *const *cur, uint32_t n,
		 uint64_t now_ns, struct results **out)
{
	struct results *r = calloc(1, sizeof(*r));
	int ret = 0;

	*out = NULL;
	if (!r)
		return -ENOMEM;
	copy_head(r, live, now_ns);
	r->jobs = calloc(live->nr_jobs ? live->nr_jobs : 1, sizeof(*r->jobs));
	if (!r->jobs)
		ret = -ENOMEM;
	/* nr_jobs counts a job whose copy failed half-way: results_free releases what it holds. */
	for (uint32_t j = 0; j < live->nr_jobs && !ret; j++, r->nr_jobs++)
		ret = copy_job(&r->jobs[j], &live->jobs[j], cur, n);
	if (ret) {
		results_free(r);
		return ret;
	}
	*out = r;
	return 0;
}
