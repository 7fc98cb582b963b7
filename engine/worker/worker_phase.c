/*
 * engine/worker/worker_phase.c - a worker's phases: ramp, measured window,
 * cooldown, drain.
 *
 * The loop (worker_io.c) asks once per trip whether the phase changed; the
 * changes and what each boundary does live here: the window's start (counters
 * zeroed, rates, logs and rate_min armed, the CPU readings taken) and its end
 * (runtimes, CPU use, whether the tool set the pace), a job that ends inside
 * its ramp, cooldown, the time each phase ends at, the sleep while a rate
 * holds the next I/O back, and the end of waiting for a remote target that
 * stopped answering.  None of it runs per I/O.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "engine/worker/worker.h"

#define STALL_CANCEL_NS 500000000ull		/* worker_cancel_stalled */
static char run_state(const struct plan_job *j)
{
	bool r = plan_rw_has_ddir(j->rw, PLAN_DDIR_READ);
	bool wr = plan_rw_has_ddir(j->rw, PLAN_DDIR_WRITE) || plan_rw_has_ddir(j->rw, PLAN_DDIR_TRIM);
	char c = r && wr ? 'm' : r ? 'r' : 'w';

	return plan_rw_is_random(j->rw) ? c : (char)(c - 'a' + 'A');
}

static void rates_start(struct worker *w, uint64_t t0)
{
	const struct plan_job *j = w->job;

	w->rated = false;
	for (int d = 0; d < PLAN_DDIR_NR; d++) {
		const struct plan_bs *b = &j->bs[d];
		uint64_t iops = j->rate_iops[d], bps = j->rate_bytes_per_s[d];

		/*
		 * fio paces rate_iops as bytes at the smallest block (its manual: "if
		 * blocksize is a range, the smallest block size is used as the
		 * metric"): bsrange=4k-16k at rate_iops=1000 is about 400 IOPS there,
		 * and a job file ported from fio must move what it moved.
		 */
		if (iops && !bps && (b->min_bytes != b->max_bytes || b->nr_split)) {
			bps = iops * b->min_bytes;
			iops = 0;
		}
		rate_init(&w->rate[d], iops, bps, j->rate_process == PLAN_RATE_POISSON, b->min_bytes, t0);
		w->rated = w->rated || rate_is_limited(&w->rate[d]);
		w->res.ddir[d].target_iops = j->rate_iops[d];
		w->res.ddir[d].target_bytes_per_s = j->rate_bytes_per_s[d];
	}
}

static uint64_t tv_ns(const struct timeval *tv)
{
	return (uint64_t)tv->tv_sec * 1000000000ull + (uint64_t)tv->tv_usec * 1000ull;
}

static void publish_window(struct worker *w, uint64_t now)
{
	const struct plan_job *j = w->job;

	atomic_store_explicit(&w->pub.win_end_ns, w->win_end, memory_order_relaxed);
	atomic_store_explicit(&w->pub.win_bytes, j->time_based ? 0 : w->gen.limit_bytes,
			      memory_order_relaxed);
	atomic_store_explicit(&w->pub.win_start_ns, now ? now : 1, memory_order_relaxed);
}

uint64_t worker_busy_ns(void)
{
	unsigned long long run = 0, wait = 0;
	FILE *f = fopen("/proc/thread-self/schedstat", "re");
	int n;

	if (!f)
		return 0;
	n = fscanf(f, "%llu %llu", &run, &wait);
	fclose(f);
	return n == 2 ? run + wait : 0;
}

bool worker_was_cpu_bound(const struct worker *w, uint64_t cpu_ns)
{
	uint64_t window = w->res.end_ns - w->res.start_ns, busy = 0;

	if (w->busy0_ns)
		busy = worker_busy_ns();
	if (busy > w->busy0_ns)
		cpu_ns = busy - w->busy0_ns;
	return window >= CPU_BOUND_MIN_NS && cpu_ns * 100 >= window * CPU_BOUND_PCT;
}

/* ramp_time: I/O before the window, not counted unless size= ends inside it (then fio counts it). */
void worker_begin_ramp(struct worker *w)
{
	const struct plan_job *j = w->job;

	w->phase = WP_RAMP;
	w->ramp_end = w->now + j->ramp_time_ns;
	w->ramp_start = w->now;
	w->ramp_tally = true;
	atomic_store_explicit(&w->pub.ramp_end_ns, w->ramp_end, memory_order_relaxed);
	/* fio counts what a ramp does toward size= (its files' passes go on). */
	w->ramp_counts = !j->time_based && !j->interlocked && !j->replay;
	if (w->ramp_counts) {
		gen_window(&w->gen, false);
		worker_rounds_window(w);	/* its rounds end as the window's do */
	} else
		gen_uncounted(&w->gen);
	rates_start(w, w->now);
	worker_set_state(w, '/');
}

void worker_begin_window(struct worker *w)
{
	const struct plan_job *j = w->job;
	uint64_t now = w->now;

	w->phase = WP_RUN;
	w->counting = true;
	w->gen_done = false;
	w->drain_on = false;	/* a ramp's drain: the window counts afresh */
	w->res.start_ns = now;
	w->win_end = j->runtime_ns ? now + j->runtime_ns : 0;
	/* After a ramp that counts toward size=, the I/O drawn and not issued yet is still due. */
	if (w->ramp_tally) {
		/* The depths were kept for reports during the ramp (and a job that ends in it). */
		memset(w->res.depth, 0, sizeof(w->res.depth));
		memset(w->res.submit, 0, sizeof(w->res.submit));
		memset(w->res.complete, 0, sizeof(w->res.complete));
		w->ramp_tally = false;
	}
	if (w->ramp_counts) {
		gen_window_go_on(&w->gen, w->inflight + (w->have_held ? 1 : 0));
	} else {
		w->have_held = false;
		gen_window(&w->gen, j->time_based);
	}
	w->ramp_counts = false;
	worker_rounds_window(w);
	if (j->replay)
		worker_replay_start(w, now);
	rates_start(w, now);
	if (worker_logs_begin(w, now))
		worker_fail(w, 0);	/* no memory for the series: stop the job */
	worker_rate_min_start(w);
	publish_window(w, now);
	if (!w->sh->fake) {
		getrusage(RUSAGE_THREAD, &w->ru0);
		w->busy0_ns = worker_busy_ns();
	}
	worker_set_state(w, run_state(j));
}

/* Adds the thread's CPU between two readings to c's. */
void worker_add_cpu(struct res_clone *c, const struct rusage *a, const struct rusage *b)
{
	c->usr_ns += tv_ns(&b->ru_utime) - tv_ns(&a->ru_utime);
	c->sys_ns += tv_ns(&b->ru_stime) - tv_ns(&a->ru_stime);
	c->ctx += (uint64_t)(b->ru_nvcsw + b->ru_nivcsw - a->ru_nvcsw - a->ru_nivcsw);
	c->minf += (uint64_t)(b->ru_minflt - a->ru_minflt);
	c->majf += (uint64_t)(b->ru_majflt - a->ru_majflt);
}

bool worker_cpu_usage(const struct worker *w, struct res_clone *c)
{
	struct rusage ru;

	if (w->sh->fake || getrusage(RUSAGE_THREAD, &ru))
		return false;
	c->usr_ns = c->sys_ns = c->ctx = c->minf = c->majf = 0;
	worker_add_cpu(c, &w->ru0, &ru);
	return true;
}

static void take_cpu(struct worker *w)
{
	if (worker_cpu_usage(w, &w->res))
		w->res.cpu_bound = worker_was_cpu_bound(w, w->res.usr_ns + w->res.sys_ns);
}

void worker_ramp_so_far(const struct worker *w, struct res_clone *c, uint64_t now)
{
	c->start_ns = w->ramp_start;
	c->end_ns = now;
	for (int d = 0; d < PLAN_DDIR_NR; d++) {
		c->ddir[d].bytes = w->ramp_bytes[d];
		c->ddir[d].ios = w->ramp_ios[d];
		if (w->ramp_bytes[d])
			c->ddir[d].runtime_ns = now - w->ramp_start;
	}
	c->sync_ios = w->ramp_syncs;
	worker_cpu_usage(w, c);	/* from the thread's start: no window took a first reading */
}

/* The job ends inside its ramp (size= ran out, or a stop): it reports the ramp's I/O, as fio's. */
static void end_with_ramp(struct worker *w)
{
	worker_drain_end(w);
	worker_ramp_so_far(w, &w->res, w->now);
	take_cpu(w);
	w->ramp_counts = false;
	w->ramp_tally = false;
	w->phase = WP_DRAIN;
}

void worker_end_in_ramp(struct worker *w)
{
	end_with_ramp(w);
	worker_set_state(w, 'f');
}

void worker_end_window(struct worker *w)
{
	if (!w->counting)
		return;
	/* fio's last reap: the drain under way, or what runtime= or a stop left in flight. */
	if (w->drain_on)
		worker_drain_end(w);
	else if (w->inflight && !w->fatal)
		w->res.complete[batch_bucket(w->inflight)]++;
	w->counting = false;
	w->res.end_ns = w->now;
	/* fio's update_runtime: a direction that moved no byte (only failed I/Os, cpuio) has none. */
	for (int d = 0; d < PLAN_DDIR_NR; d++)
		if (w->res.ddir[d].bytes)
			w->res.ddir[d].runtime_ns = w->res.end_ns - w->res.start_ns;
	worker_verify_end_window(w);
	worker_logs_end(w);
	take_cpu(w);
	worker_set_state(w, 'f');
}

static void after_window(struct worker *w)
{
	worker_rounds_last(w);
	worker_lat_from_clat(w, &w->res);
	worker_end_window(w);
	w->have_held = false;
	if (w->job->cooldown_ns && !w->fatal &&
	    !atomic_load_explicit(w->sh->stop, memory_order_relaxed)) {
		w->phase = WP_COOL;
		w->cool_end = w->now + w->job->cooldown_ns;
		w->gen_done = false;
		gen_uncounted(&w->gen);
		return;
	}
	w->phase = WP_DRAIN;
}

/* When the current phase ends by time: issue() stops there so worker_phase_update() sees it. */
uint64_t worker_phase_deadline(const struct worker *w)
{
	switch (w->phase) {
	case WP_RAMP:
		return w->ramp_end;
	case WP_RUN:
		return w->win_end ? w->win_end : UINT64_MAX;
	case WP_COOL:
		return w->cool_end;
	default:
		return 0;
	}
}

void worker_phase_update(struct worker *w)
{
	int stop = atomic_load_explicit(w->sh->stop, memory_order_relaxed);
	enum wphase was = w->phase;

	switch (w->phase) {
	case WP_RAMP:
		if (stop && !w->fatal)
			end_with_ramp(w);	/* fio's report of a job stopped in its ramp holds the ramp */
		else if (w->fatal)
			w->phase = WP_DRAIN;
		else if (w->ramp_counts && w->gen_done && !w->inflight)
			worker_end_in_ramp(w);
		else if (w->now >= w->ramp_end)
			worker_begin_window(w);
		break;
	case WP_RUN:
		if (w->now >= w->rm.check_at)
			worker_rate_min_check(w);
		if (w->fatal ? !worker_failed_in_flight(w) :
			       stop || (w->win_end && w->now >= w->win_end) || (w->gen_done && !w->inflight) ||
				       w->lt.done)
			after_window(w);
		break;
	case WP_COOL:
		if (stop || w->fatal || w->now >= w->cool_end)
			w->phase = WP_DRAIN;
		break;
	case WP_DRAIN:
		break;
	}
	if (w->phase != was) {
		w->stamp_ok = false;	/* window set-up and end take real time */
		w->deadline = worker_phase_deadline(w);
	}
}

/* Sleeps towards the held I/O's due time when nothing is in flight to reap. */
void worker_idle(struct worker *w)
{
	uint64_t until = w->wait_until;

	if (w->phase == WP_RAMP && w->ramp_end < until)
		until = w->ramp_end;
	if (w->phase == WP_RUN && w->win_end && w->win_end < until)
		until = w->win_end;
	if (w->phase == WP_COOL && w->cool_end < until)
		until = w->cool_end;
	w->now = clk_sleep_until(&w->clk, until, WORKER_WAIT_SLICE_NS);
}

/*
 * A stop must not wait for ever on I/O that may never complete (a FIFO read
 * its writer sends nothing to): once a stop was asked for and the I/Os in
 * flight have been silent for STALL_CANCEL_NS, an engine that can cancel
 * (io_uring) is asked to, once; they come back -ECANCELED, neither counted
 * nor an error (worker_io_failed).  An I/O still answering keeps its time.
 */
void worker_cancel_stalled(struct worker *w)
{
	uint64_t heard;

	if (w->cancelled || !w->ioe.ops->cancel || w->nr_pending || w->inflight == 0 ||
	    !atomic_load_explicit(w->sh->stop, memory_order_relaxed))
		return;
	if (!w->drain_start)
		w->drain_start = clk_now(&w->clk);
	heard = w->reaped_ns > w->drain_start ? w->reaped_ns : w->drain_start;
	if (w->now < heard + STALL_CANCEL_NS)
		return;
	w->cancelled = w->ioe.ops->cancel(&w->ioe) == 0;
}

/*
 * A server that does not answer must not hold the run past its end: once the
 * window is over, a remote engine's I/Os in flight are abandoned after
 * IOE_REMOTE_SILENCE_NS without a completion (IOE_REMOTE_SILENCE_STOP_NS once a stop
 * was asked for), and the job's error says how many.
 * A server that still answers, only slowly (a loaded one took over 500 ms),
 * keeps its time: the silence counts from its last answer.
 */
bool worker_remote_gave_up(struct worker *w)
{
	char what[96];
	uint64_t heard, silence;

	if (!w->ioe.ops->remote)
		return false;
	silence = atomic_load_explicit(w->sh->stop, memory_order_relaxed) ? IOE_REMOTE_SILENCE_STOP_NS
									   : IOE_REMOTE_SILENCE_NS;
	if (!w->drain_start)
		w->drain_start = clk_now(&w->clk);
	heard = w->reaped_ns > w->drain_start ? w->reaped_ns : w->drain_start;
	if (w->now < heard + silence)
		return false;
	snprintf(what, sizeof(what), "%u I/Os in flight abandoned: the target did not answer in %llu ms",
		 w->inflight - w->nr_pending, (unsigned long long)(silence / 1000000ull));
	worker_error(w, .err = ETIMEDOUT, .what = what);
	worker_set_error(w, ETIMEDOUT);
	return true;
}
