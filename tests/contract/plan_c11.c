/*
 * tests/contract/plan_c11.c - the C side of the plan/results contract test.
 *
 * Compiled with -std=c11 -pedantic -Werror (see Makefile) to prove plan.h,
 * results.h and engine.h are plain C11, then linked into the C++17 unit tests
 * (tests/contract/test_plan.cpp), which inspect and free what is built here.
 */
#include <string.h>

#include "engine/engine.h"
#include "engine/plan.h"
#include "engine/results.h"

/* The only non-ISO construct, and it is marked as such. */
__extension__ typedef unsigned __int128 u128;

/* Builds a one-group, one-job, two-clone plan with one file per clone. */
struct plan *t_c11_build_plan(void)
{
	struct plan *p = plan_alloc();
	struct plan_job *j;

	if (!p)
		return NULL;
	p->nr_groups = 1;
	p->groups = plan_calloc(1, sizeof(*p->groups));
	p->groups[0].nr_jobs = 1;
	p->groups[0].jobs = j = plan_calloc(1, sizeof(*j));
	p->nr_jobs = 1;
	j->name = plan_strdup("c11job");
	j->section = plan_strdup("c11job");
	j->description = plan_strdup("");
	j->rw = PLAN_RW_RANDREAD;
	j->bs[PLAN_DDIR_READ].min_bytes = 4096;
	j->bs[PLAN_DDIR_READ].max_bytes = 4096;
	j->size_bytes = (uint64_t)1 << 20;
	j->wait_for_job_id = -1;
	j->nr_clones = 2;
	j->clones = plan_calloc(2, sizeof(*j->clones));
	for (uint32_t c = 0; c < 2; c++) {
		j->clones[c].clone_index = c;
		j->clones[c].thread_number = c + 1;
		j->clones[c].nr_files = 1;
		j->clones[c].files = plan_calloc(1, sizeof(struct plan_file));
		j->clones[c].files[0].path = plan_strdup(c ? "c11job.1.0" : "c11job.0.0");
		j->clones[c].files[0].size_bytes = j->size_bytes;
	}
	p->nr_threads = 2;
	return p;
}

/* Records a latency in a clone the way the engine does, from C. */
void t_c11_record(struct res_lat *l, uint64_t v)
{
	if (v < l->min_ns)
		l->min_ns = v;
	if (v > l->max_ns)
		l->max_ns = v;
	l->n++;
	l->sum_ns += v;
	{
		u128 sq = (u128)v * v;

		l->sumsq_lo += (uint64_t)sq;
		l->sumsq_hi += (uint64_t)(sq >> 64) + (l->sumsq_lo < (uint64_t)sq);
	}
	if (l->hist)
		l->hist[res_hist_index(v)]++;
}

size_t t_c11_sizeof_plan_job(void)
{
	return sizeof(struct plan_job);
}

size_t t_c11_sizeof_res_clone(void)
{
	return sizeof(struct res_clone);
}
