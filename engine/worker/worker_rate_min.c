/*
 * engine/worker/worker_rate_min.c - rate_min / rate_iops_min: a job that falls below
 * its minimum rate in a rate_cycle ends with an error.
 *
 * They follow fio (its check_min_rate): after a 2 s settle period, at each
 * completion, once rate_cycle has passed since the last sample, what completed
 * since that sample is divided by the time since it and compared with the
 * minimum of each direction the job issues; below it, the job ends with an
 * error (EIO, the errno fio gives it) that says which minimum was missed and by
 * how much.  Looking only at completions matters for
 * slow rates: rate=1250 with 4 KiB blocks completes one I/O every 3.3 s, which
 * meets ratemin=1024 over its 3.3 s though most 1 s cycles hold no I/O at all.
 */
#include <errno.h>
#include <stdio.h>

#include "engine/worker/worker.h"

static bool has_min_rate(const struct plan_job *j)
{
	for (int d = 0; d < PLAN_DDIR_NR; d++)
		if (plan_rw_has_ddir(j->rw, (enum plan_ddir)d) &&
		    (j->rate_min_bytes_per_s[d] || j->rate_iops_min[d]))
			return true;
	return false;
}

static uint64_t cycle_ns(const struct plan_job *j)
{
	return j->rate_cycle_ns ? j->rate_cycle_ns : 1000000000ull;
}

#define RATE_SETTLE_NS 2000000000ull	/* fio's settle period before the first sample */

static uint64_t total_ios(const struct worker *w)
{
	uint64_t n = 0;

	for (int d = 0; d < PLAN_DDIR_NR; d++)
		n += w->res.ddir[d].ios;
	return n;
}

bool worker_rate_min_wanted(const struct worker *w)
{
	return has_min_rate(w->job) && !w->sh->fake;
}

void worker_rate_min_start(struct worker *w)
{
	w->rm.check_at = UINT64_MAX;
	if (!worker_rate_min_wanted(w))
		return;
	w->rm.check_at = w->now + RATE_SETTLE_NS;
	w->rm.cycle_from = 0;
	w->rm.seen_ios = total_ios(w);
}

static void rate_fail(struct worker *w, int d, const char *unit, uint64_t got, uint64_t min)
{
	char what[64];

	snprintf(what, sizeof(what), "rate_min: %s %llu %s below %llu", plan_ddir_name(d),
		 (unsigned long long)got, unit, (unsigned long long)min);
	worker_error(w, .err = EIO, .ddir = (uint8_t)d, .what = what);
	worker_fail(w, EIO);
}

/* Compares what completed since the last sample with each direction's minimum. */
static void compare_rates(struct worker *w, uint64_t span)
{
	const struct plan_job *j = w->job;

	for (int d = 0; d < PLAN_DDIR_NR && !w->fatal; d++) {
		uint64_t bytes = w->res.ddir[d].bytes - w->rm.cycle_bytes[d];
		uint64_t ios = w->res.ddir[d].ios - w->rm.cycle_ios[d];
		uint64_t bps = (uint64_t)((unsigned __int128)bytes * 1000000000u / span);
		uint64_t iops = (uint64_t)((unsigned __int128)ios * 1000000000u / span);

		if (!plan_rw_has_ddir(j->rw, (enum plan_ddir)d))
			continue;
		if (j->rate_min_bytes_per_s[d] && bps < j->rate_min_bytes_per_s[d])
			rate_fail(w, d, "bytes/s", bps, j->rate_min_bytes_per_s[d]);
		else if (j->rate_iops_min[d] && iops < j->rate_iops_min[d])
			rate_fail(w, d, "IOPS", iops, j->rate_iops_min[d]);
	}
}

void worker_rate_min_check(struct worker *w)
{
	uint64_t ios = total_ios(w);

	if (ios == w->rm.seen_ios)
		return;	/* fio samples at completions: nothing new, nothing to judge */
	w->rm.seen_ios = ios;
	if (w->rm.cycle_from) {
		if (w->now - w->rm.cycle_from < cycle_ns(w->job))
			return;
		compare_rates(w, w->now - w->rm.cycle_from);
	}
	for (int d = 0; d < PLAN_DDIR_NR; d++) {
		w->rm.cycle_bytes[d] = w->res.ddir[d].bytes;
		w->rm.cycle_ios[d] = w->res.ddir[d].ios;
	}
	w->rm.cycle_from = w->now;
}
