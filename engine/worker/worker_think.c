/*
 * engine/worker/worker_think.c - thinktime: the pause a job takes between bursts of I/O.
 *
 * As fio: after every thinktime_blocks I/Os (completed by default, or issued),
 * or every thinktime_iotime of I/O, what is queued is submitted
 * and everything in flight completes (io_u_quiesce), then the worker spins
 * thinktime_spin and sleeps the rest of thinktime.  The sleep ends with a spin
 * too: the system wakes a sleeper late by its sleep granularity (measured once
 * by engine.c), and a plain sleep made a 20 us think cost ~120 us.  A think
 * shorter than that granularity is all spun, as fio's usec_sleep spins it:
 * sleeping it did better only while other programs held every CPU (thinktime=20
 * beside two busy loops: 8,760 I/Os in 2 s against 5,392), and worse on a CPU
 * shared with one busy loop (6,714 against 10,548) or a quieter one (14,689
 * against 19,766).  Every spin
 * and sleep here looks at the stop flag, so SIGINT ends even a 10 s
 * thinktime_spin at once.
 */
#include "engine/worker/worker.h"

#define THINK_SLICE_NS 100000000ull	/* longest blind sleep: stop requests are seen this fast */

/* Busy-waits to clock time t; the fake clock jumps there instead. */
static void spin_until(struct worker *w, uint64_t t)
{
	if (w->sh->fake) {
		w->now = clk_sleep_until(&w->clk, t, UINT64_MAX);
		return;
	}
	while (w->now < t && !worker_stopping(w))
		w->now = clk_now(&w->clk);
}

/* Sleeps towards t while more than the sleep granularity is left, then spins. */
static void sleep_until(struct worker *w, uint64_t t)
{
	uint64_t gran = w->sh->sleep_gran_ns;

	while (w->now < t && !worker_stopping(w)) {
		if (t - w->now <= gran) {
			spin_until(w, t);
			return;
		}
		w->now = clk_sleep_until(&w->clk, t - gran, THINK_SLICE_NS);
	}
}

/*
 * fio's handle_thinktime: a think is due after thinktime_blocks I/Os
 * (completed, or issued with thinktime_blocks_type=issue) since the last one,
 * or with thinktime_iotime once thinktime_iotime + thinktime has passed since
 * the last think was found due (so the think itself is counted in: a cycle of
 * thinktime_iotime of I/O and one think, as fio's last_thinktime, taken before
 * its quiesce and sleep; thinktime_blocks then counts only if it was given).
 */
static bool think_due(struct worker *w)
{
	const struct plan_job *j = w->job;
	uint64_t b = j->thinktime_on_issue ? w->think.issued : w->completed;

	if (j->thinktime_iotime_ns) {
		if (!w->think.last_ns)
			w->think.last_ns = w->now;
		if (w->now - w->think.last_ns >= j->thinktime_iotime_ns + j->thinktime_ns)
			return true;
		if (!j->thinktime_blocks_set)
			return false;
	}
	/* thinktime_blocks=0 given: due after each I/O, a new completion or not (fio's compare). */
	return b >= w->think.last_blocks +
			    (j->thinktime_blocks || j->thinktime_blocks_set ? j->thinktime_blocks : 1);
}

/*
 * rate_ignore_thinktime, as fio's handle_thinktime: the schedule moves on by the
 * think less one I/O (a linear schedule, a think of at least one I/O's gap;
 * fio's "minus one block to ensure we start issuing immediately after the
 * sleep"), and the I/O held back then goes at once if its time has passed.
 * So after each think one I/O is issued at once and the next one its gap
 * later; moving on by the whole think gave one I/O a think fewer than fio
 * (rate_iops=100 thinktime=500ms thinktime_blocks=50 time_based runtime=3:
 * 150 I/Os, fio's 154).  fio moves only the direction of the I/O that the
 * think followed, so its other direction catches up; each direction moves here.
 */
static void rate_ignore_think(struct worker *w, uint64_t ns)
{
	for (int d = 0; d < PLAN_DDIR_NR; d++) {
		struct rate *r = &w->rate[d];
		uint64_t gap = rate_gap_ns(r, w->job->bs[d].min_bytes);

		if (!rate_is_limited(r))
			continue;
		r->t0 += !r->poisson && gap <= ns ? ns - gap : ns;
		if (r->due_ns < w->now)
			r->due_ns = w->now;
	}
}

/* A loop's read-back: no I/O is due for the time it took. */
void worker_rate_skip(struct worker *w, uint64_t ns)
{
	for (int d = 0; d < PLAN_DDIR_NR; d++) {
		w->rate[d].t0 += ns;
		w->rate[d].due_ns += ns;
	}
}

void worker_think(struct worker *w)
{
	const struct plan_job *j = w->job;
	uint64_t spin_end, end, start, due_at;

	w->think.issued++;
	if (!think_due(w))
		return;
	due_at = w->now;
	/* Counted before the queue empties, as fio's last_thinktime_blocks: the I/Os
	 * that complete while it empties count towards the next think. */
	w->think.last_blocks = j->thinktime_on_issue ? w->think.issued : w->completed;
	worker_quiesce(w);
	if (w->fatal || worker_stopping(w))
		return;
	/* The think starts once the queue is empty, as fio's does. */
	w->now = start = clk_now(&w->clk);
	spin_end = w->now + j->thinktime_spin_ns;
	end = w->now + j->thinktime_ns;
	spin_until(w, spin_end);
	sleep_until(w, end);
	if (j->rate_ignore_thinktime)
		rate_ignore_think(w, w->now - start);
	w->think.last_ns = due_at;
	w->stamp_ok = false;
}
