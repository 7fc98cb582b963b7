/*
 * engine/worker_think.c - thinktime: the pause a job takes between bursts of I/O.
 *
 * As fio: after every thinktime_blocks I/Os issued, what is queued is submitted
 * and everything in flight completes (io_u_quiesce), then the worker spins
 * thinktime_spin and sleeps the rest of thinktime.  The sleep ends with a spin
 * too: the system wakes a sleeper late by its sleep granularity (measured once
 * by engine.c), and a plain sleep made a 20 us think cost ~120 us.  Every spin
 * and sleep here looks at the stop flag, so SIGINT ends even a 10 s
 * thinktime_spin at once.
 */
#include "worker.h"

#define THINK_SLICE_NS 100000000ull	/* longest blind sleep: stop requests are seen this fast */

static bool stopping(const struct worker *w)
{
	return atomic_load_explicit(w->sh->stop, memory_order_relaxed) != 0;
}

/* Busy-waits to clock time t; the fake clock jumps there instead. */
static void spin_until(struct worker *w, uint64_t t)
{
	if (w->sh->fake) {
		w->now = clk_sleep_until(&w->clk, t, UINT64_MAX);
		return;
	}
	while (w->now < t && !stopping(w))
		w->now = clk_now(&w->clk);
}

/* Sleeps towards t while more than the sleep granularity is left, then spins. */
static void sleep_until(struct worker *w, uint64_t t)
{
	uint64_t gran = w->sh->sleep_gran_ns;

	while (w->now < t && !stopping(w)) {
		if (t - w->now <= gran) {
			spin_until(w, t);
			return;
		}
		w->now = clk_sleep_until(&w->clk, t - gran, THINK_SLICE_NS);
	}
}

void worker_think(struct worker *w)
{
	const struct plan_job *j = w->job;
	uint64_t spin_end, end;

	if (++w->think_count < (j->thinktime_blocks ? j->thinktime_blocks : 1))
		return;
	w->think_count = 0;
	worker_quiesce(w);
	if (w->fatal || stopping(w))
		return;
	/* The think starts once the queue is empty, as fio's does. */
	w->now = clk_now(&w->clk);
	spin_end = w->now + j->thinktime_spin_ns;
	end = w->now + j->thinktime_ns;
	spin_until(w, spin_end);
	sleep_until(w, end);
	w->stamp_ok = false;
}
