/*
 * engine/progress.c - estimates for the progress line (progress.h).
 */
#include "progress.h"

/*
 * A time_based job in its ramp has the ramp's rest and its runtime left, as
 * fio's estimate says during ramp_time; false when not ramping or not time-bound.
 */
static bool ramp_left(const struct worker *w, uint64_t now, uint64_t *left)
{
	uint64_t re = atomic_load_explicit(&w->pub.ramp_end_ns, memory_order_relaxed);
	const struct plan_job *j = w->job;

	if (!re || !j->time_based || !j->runtime_ns)
		return false;
	*left = (re > now ? re - now : 0) + j->runtime_ns;
	return true;
}

void prog_worker(const struct worker *w, uint64_t now, double *frac, uint64_t *left)
{
	uint64_t ws = atomic_load_explicit(&w->pub.win_start_ns, memory_order_relaxed);
	uint64_t we = atomic_load_explicit(&w->pub.win_end_ns, memory_order_relaxed);
	uint64_t wb = atomic_load_explicit(&w->pub.win_bytes, memory_order_relaxed);
	uint64_t bytes = 0, ran;
	double fb = -1.0, ft = -1.0;

	*frac = -1.0;
	*left = UINT64_MAX;
	if (!ws && ramp_left(w, now, left))
		*frac = 0.0;		/* ramping: what is left of it, then the runtime */
	if (!ws || now < ws)
		return;			/* setting up or ramping: not known yet */
	ran = now - ws;
	for (int d = 0; d < PLAN_DDIR_NR; d++)
		bytes += atomic_load_explicit(&w->pub.bytes[d], memory_order_relaxed);
	if (wb) {
		fb = (double)bytes / (double)wb;
		if (fb > 1.0)
			fb = 1.0;
		if (fb > 0)
			*left = (uint64_t)((double)ran * (1.0 - fb) / fb);
	}
	if (we > ws) {
		ft = (double)ran / (double)(we - ws);
		if (ft > 1.0)
			ft = 1.0;
		if (we - (we > now ? now : we) < *left)
			*left = we > now ? we - now : 0;
	}
	*frac = fb > ft ? fb : ft;
}

uint64_t prog_segment_ns(const struct plan *p, uint32_t a, uint32_t b)
{
	uint64_t longest = 0, t;

	for (uint32_t i = a; i < b; i++) {
		const struct plan_job *j = plan_job_at(p, i);

		if (!j->runtime_ns)
			return UINT64_MAX;
		t = j->startdelay_max_ns + j->ramp_time_ns + j->runtime_ns + j->cooldown_ns;
		if (t > longest)
			longest = t;
	}
	return longest;
}
