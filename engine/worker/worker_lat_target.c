/*
 * engine/worker/worker_lat_target.c - latency_target: fio's search for the deepest
 * queue that still meets a latency target (its io_u.c lat_target_*), so a job
 * reports the depth a device sustains within a latency budget.
 *
 * The job starts at depth 1.  Each latency_window, the share of I/Os whose
 * total latency was within latency_target is compared with latency_percentile:
 * a window that meets it doubles the depth (or, once a failure bounded it,
 * bisects up to that bound); one that misses it bisects down.  With the default
 * percentile of 100 a single slow I/O ramps down at once, and one at depth 1
 * ends the job with ETIMEDOUT, as in fio.  Without latency_run, once a window
 * leaves the depth unchanged the statistics restart (fio's reset_io_stats) and
 * one more window at that depth is measured and reported; then the job ends.
 * The window is judged after each submission (the loop's burst is one I/O
 * here), as fio's do_io does, and one in which nothing completed is a miss: so
 * with the default latency_window of 0 the depth stays 1, as in fio.
 * The depth reached is res_clone.lat_depth (fio's latency_depth).
 */
#include <errno.h>
#include <stdio.h>

#include "engine/worker/worker.h"

static uint64_t total_ios(const struct worker *w)
{
	uint64_t n = 0;

	for (int d = 0; d < PLAN_DDIR_NR; d++)
		n += w->res.ddir[d].ios;
	return n;
}

static void set_depth(struct worker *w, uint32_t qd)
{
	w->lt.qd = qd;
	w->lt.qd_cap = qd < w->depth ? qd : w->depth;
	w->res.lat_depth = qd;
}

static void new_cycle(struct worker *w)
{
	w->lt.cycle_ns = w->now;
	w->lt.cycle_ios = total_ios(w);
	w->lt.failed = 0;
	w->lt.over = false;
}

void worker_lat_target_start(struct worker *w)
{
	const struct plan_job *j = w->job;

	w->lt.qd_cap = w->depth;
	w->res.lat_depth = j->iodepth;
	if (!j->lat_target_ns)
		return;
	w->lt = (struct worker_lat_target){ .low = 1, .high = j->iodepth };
	set_depth(w, 1);
	new_cycle(w);
}

void worker_lat_target_over(struct worker *w, const struct io_u *u, uint64_t lat)
{
	char what[96];

	if (w->job->lat_percentile < 100.0) {
		w->lt.failed++;
		return;
	}
	if (w->lt.qd > 1) {
		w->lt.over = true;	/* ramped down by the loop's next check */
		return;
	}
	snprintf(what, sizeof(what), "latency %llu ns over latency_target %llu ns at depth 1",
		 (unsigned long long)lat, (unsigned long long)w->job->lat_target_ns);
	worker_error(w, .err = ETIMEDOUT, .ddir = u->ddir, .file = u->file, .offset = u->offset,
		     .len = u->len, .what = what);
	worker_fail(w, ETIMEDOUT);
}

/* fio's __lat_target_failed: bisect down towards the last depth that met the target. */
static void ramp_down(struct worker *w)
{
	struct worker_lat_target *lt = &w->lt;

	if (lt->qd == 1)
		return;	/* nothing lower to try: the window goes on */
	lt->high = lt->qd;
	if (lt->qd == lt->low)
		lt->low--;
	set_depth(w, (lt->qd + lt->low) / 2);
	lt->stable = 0;
	/* What is in flight was issued at the deeper queue: let it finish first. */
	worker_quiesce(w);
	w->now = clk_now(&w->clk);
	new_cycle(w);
}

/* The depth settled: the counts so far are dropped and one more window is measured. */
static void final_window(struct worker *w)
{
	worker_quiesce(w);
	w->lt.end_run = true;
	res_clone_clear_counts(&w->res);
	worker_logs_restart(w);
	w->now = clk_now(&w->clk);
	worker_begin_window(w);
	w->deadline = w->win_end ? w->win_end : UINT64_MAX;
}

/* fio's lat_target_success: double up until a failure bounds the depth, then bisect. */
static void ramp_up(struct worker *w)
{
	struct worker_lat_target *lt = &w->lt;
	const struct plan_job *j = w->job;
	uint32_t was = lt->qd, qd = lt->qd;

	lt->low = qd;
	/* Stuck one below the bound: after 3 such windows the bound may have been too low. */
	if (qd + 1 == lt->high && ++lt->stable >= 3) {
		lt->high++;
		lt->stable = 0;
	}
	qd = lt->high != j->iodepth ? (qd + lt->high) / 2 : qd * 2;
	set_depth(w, qd > j->iodepth ? j->iodepth : qd);
	if (!j->lat_run && lt->qd == was) {
		if (lt->end_run)
			lt->done = true;
		else
			final_window(w);
	}
	new_cycle(w);
}

void worker_lat_target_check(struct worker *w)
{
	struct worker_lat_target *lt = &w->lt;
	uint64_t ios;
	double ok_pct;

	if (w->phase != WP_RUN || w->fatal || lt->done)
		return;
	if (lt->over) {
		ramp_down(w);
		return;
	}
	if (w->now - lt->cycle_ns < w->job->lat_window_ns)
		return;
	ios = total_ios(w) - lt->cycle_ios;
	/* fio's share is 0/0 then, which no percentile meets. */
	ok_pct = ios ? (double)(ios - lt->failed) * 100.0 / (double)ios : 0.0;
	if (ios && ok_pct >= w->job->lat_percentile)
		ramp_up(w);
	else
		ramp_down(w);
}
