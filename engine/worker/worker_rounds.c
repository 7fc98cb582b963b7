/*
 * engine/worker/worker_rounds.c - loops=N as fio runs it: N rounds, each
 * ended before the next one writes.
 *
 * fio's thread runs its workload loops times (do_io), and each round ends
 * with end_fsync / fsync_on_close's sync of every file and then, with
 * do_verify, the read-back of what it wrote.  The sync is part of the round:
 * its time is in the writes' runtime (fio: a 512 MiB buffered write with
 * end_fsync=1 reports the flush in its bandwidth).  ioplan's window issues all
 * the rounds' I/O in one stream, so a round's end is counted in the bytes of
 * the workload's I/Os as they are issued; once that round's I/Os complete it
 * is ended here.  The last round is ended by the window's end (worker_io.c).
 * time_based runs one round, as fio's.
 */
#include "engine/worker/worker.h"

void worker_rounds_window(struct worker *w)
{
	const struct plan_job *j = w->job;
	struct worker_rounds *r = &w->rounds;

	*r = (struct worker_rounds){ 0 };
	w->vf.loop_ns = 0;
	if (j->loops < 2 || j->time_based || !w->gen.limit_bytes)
		return;
	if (!w->vf.maps && !worker_sync_at_end(w))
		return;
	r->bytes = r->left = w->gen.limit_bytes / j->loops;
	r->rounds_left = j->loops - 1;
}

void worker_rounds_bytes(struct worker *w, uint64_t bytes)
{
	struct worker_rounds *r = &w->rounds;

	if (bytes < r->left) {
		r->left -= bytes;
		return;
	}
	r->left = r->bytes;
	r->due = true;
	if (!--r->rounds_left)
		r->bytes = 0;	/* the last round ends with the window */
}

/* A round's last I/O went out: once it and the others in flight complete, the round ends. */
void worker_rounds_end(struct worker *w)
{
	uint64_t t0;

	w->rounds.due = false;
	worker_quiesce(w);
	if (w->fatal || atomic_load_explicit(w->sh->stop, memory_order_relaxed))
		return;
	t0 = clk_now(&w->clk);
	worker_sync_end(w);
	/* fio starts each round's rate schedule afresh: no I/O fell due during the sync */
	worker_rate_skip(w, clk_now(&w->clk) - t0);
	if (w->vf.maps && !w->fatal)
		worker_verify_loop(w);
	w->now = clk_now(&w->clk);
	w->stamp_ok = false;
}

/*
 * The window's end ends the last round: its sync is timed in the window as
 * the others' are (fio syncs after a stop too, but not after an abort or an
 * error).  A time_based window's I/Os still in flight complete first, in it.
 */
void worker_rounds_last(struct worker *w)
{
	if (!worker_sync_at_end(w) || w->fatal ||
	    atomic_load_explicit(w->sh->stop, memory_order_relaxed) > 1)
		return;
	worker_quiesce(w);
	worker_sync_end(w);
	w->end_synced = true;
	w->now = clk_now(&w->clk);
}
