/*
 * engine/worker/worker_rounds.c - loops=N and io_size= as fio runs them:
 * rounds, each ended before the next one writes.
 *
 * fio's thread runs its workload in rounds (do_io): a round ends where the
 * files run out (the region's end, a full random map), at the amount, or, with
 * an engine that queues, once its queued bytes reach size= (gen_bound_rounds).
 * Each ends with end_fsync / fsync_on_close's sync of every file and then,
 * with do_verify, the read-back of what it wrote; keep_running then starts
 * another while loops= lasts, or while io_size= is not reached (the
 * read-backs count toward it).  The sync is part of the round: its time is in
 * the writes' runtime (fio: a 512 MiB buffered write with end_fsync=1 reports
 * the flush in its bandwidth).  The generator stops at a pass's end
 * (gen.round_due) for the round to be ended here; the round the amount ends
 * is ended by the window's end (worker_io.c).  time_based runs one round, as
 * fio's.  unlink_each_loop's removal comes between two rounds, after the
 * first one's read-back.
 */
#include "engine/worker/worker.h"

/*
 * A queue would carry one round's I/Os into the next (the next loop's writes over
 * blocks still being written): fio's do_io completes what is in flight before it
 * returns, so its rounds never overlap.
 */
static bool rounds_would_overlap(const struct worker *w)
{
	const struct plan_job *j = w->job;

	return !w->is_sync && w->depth > 1 &&
	       (j->loops > 1 || j->io_size_bytes > j->size_bytes || j->io_size_ppm > 1000000);
}

/* Whether a round's end has work to do; asked before any window (a ramp's loop sets io_extras). */
bool worker_rounds_wanted(const struct worker *w)
{
	const struct plan_job *j = w->job;

	return !j->time_based && !j->interlocked &&
	       (w->vf.maps || worker_sync_at_end(w) || (j->unlink_each_loop && ioe_lays_out(j->ioengine)) ||
		rounds_would_overlap(w));
}

void worker_rounds_window(struct worker *w)
{
	w->vf.loop_ns = 0;
	w->gen.round_pause = w->gen.limited && worker_rounds_wanted(w);
	gen_bound_rounds(&w->gen, !w->is_sync);
}

/* Bytes (or I/Os) read so far where a read-back counts them: the ramp's own counts inside a ramp. */
static uint64_t reads_so_far(const struct worker *w, bool ios)
{
	if (worker_in_counted_ramp(w))
		return ios ? w->ramp_ios[PLAN_DDIR_READ] : w->ramp_bytes[PLAN_DDIR_READ];
	return ios ? w->res.ddir[PLAN_DDIR_READ].ios : w->res.ddir[PLAN_DDIR_READ].bytes;
}

/* A pass ended (gen.round_due): once its I/Os complete, its round ends, and the generator goes on. */
void worker_rounds_end(struct worker *w)
{
	uint64_t t0, read0, ios0;

	worker_drain(w);	/* fio's do_io ends each loop so */
	if (w->fatal || atomic_load_explicit(w->sh->stop, memory_order_relaxed))
		return;
	t0 = clk_now(&w->clk);
	worker_sync_end(w);
	/* fio starts each round's rate schedule afresh: no I/O fell due during the sync */
	worker_rate_skip(w, clk_now(&w->clk) - t0);
	read0 = reads_so_far(w, false);
	ios0 = reads_so_far(w, true);
	if (w->vf.maps && !w->fatal)
		worker_verify_loop(w);
	if (w->fatal)
		return;	/* a mismatch ends the job: no round writes over it */
	gen_round_done(&w->gen, reads_so_far(w, false) - read0, reads_so_far(w, true) - ios0);
	/* unlink_each_loop: fio removes the files as the next loop starts, so the last one's stay. */
	if (w->job->unlink_each_loop && ioe_lays_out(w->job->ioengine) && gen_loop_follows(&w->gen) &&
	    !worker_files_renew(w))
		return;
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
	worker_drain_begin(w);	/* ended with the window (worker_end_window) */
	worker_quiesce(w);
	worker_sync_end(w);
	w->end_synced = true;
	w->now = clk_now(&w->clk);
}
