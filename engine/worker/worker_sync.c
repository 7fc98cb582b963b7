/*
 * engine/worker/worker_sync.c - the syncs a job asks for: fsync=N, fdatasync=N
 * and a trace's flush, which the loop (worker_io.c) makes in the place of an
 * I/O, and end_fsync / fsync_on_close's at the end of each round.
 *
 * Its own file because the loop's file is the hot path and already long; a
 * sync runs once per N writes or per round, not per I/O.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "engine/stats.h"
#include "engine/worker/worker.h"

/*
 * Every file written to since its last sync: its descriptor's fsync (or
 * fdatasync), or a remote target's flush.  A local file closed since was
 * synced as it closed.
 */
static void sync_file(struct worker *w, uint32_t f, bool data, const char *what)
{
	int r;

	if (w->fds[f] >= 0)
		r = (data ? fdatasync(w->fds[f]) : fsync(w->fds[f])) ? -errno : 0;
	else if (w->ioe.ops && w->ioe.ops->flush_sync)
		r = w->ioe.ops->flush_sync(&w->ioe);
	else
		return;
	w->dirty[f] = false;
	worker_iolog_sync(w, f, data);
	if (r)
		worker_sync_failed(w, f, -r, what);
}

static void sync_dirty(struct worker *w, bool data, const char *what)
{
	for (uint32_t f = 0; f < w->nr_fds; f++)
		if (w->dirty[f])
			sync_file(w, f, data, what);
}

/*
 * fsync=N / fdatasync=N: sync every file written to; a trace's flush: the
 * file its line names, by the line's kind (sync or datasync).  As
 * fio's, the writes still in flight stay in flight (fio's libaio syncs once
 * nothing is left uncommitted; its io_uring queues the sync beside them), and
 * the sync takes a place in the queue, counted at that depth.
 */
void worker_sync_files(struct worker *w)
{
	bool data = w->rp.sync_due ? w->rp.sync_data : !w->job->fsync_every;
	uint64_t t0 = clk_now(&w->clk);

	/* A trace's flush syncs the file its line names, written to or not (fio's). */
	if (w->rp.sync_due && w->rp.sync_file < w->nr_fds)
		sync_file(w, w->rp.sync_file, data, data ? "fdatasync" : "fsync");
	else
		sync_dirty(w, data, data ? "fdatasync" : "fsync");
	w->rp.sync_due = false;
	w->now = clk_now(&w->clk);
	if (w->counting) {
		/* fio's JSON "sync" block reports fsync latency percentiles under the clat/lat
		 * ones; the histogram is made at the first sync, as most jobs never make one. */
		if (!w->res.sync_lat.hist && (w->job->clat_percentiles || w->job->lat_percentiles) &&
		    !(w->res.sync_lat.hist = calloc(RES_HIST_NR, sizeof(uint64_t)))) {
			worker_error(w, .err = ENOMEM, .what = "sync latency histogram");
			worker_fail(w, ENOMEM);
			return;
		}
		lat_add(&w->res.sync_lat, w->now - t0);
		w->res.sync_ios++;
		w->res.depth[depth_bucket(w->inflight + 1)]++;
	} else if (worker_in_counted_ramp(w)) {
		w->ramp_syncs++;	/* a job that ends in its ramp reports them, without a latency (fio's) */
	}
	w->writes_since_sync = 0;
	w->need_sync = false;
}

bool worker_sync_at_end(const struct worker *w)
{
	return w->job->end_fsync || w->job->fsync_on_close;
}

/*
 * end_fsync / fsync_on_close: as fio's do_io ends each round, every file
 * written to is fsynced once its I/Os have completed.  The caller times it in
 * the window, so the writes' runtime and bandwidth include the flush, as
 * fio's do; fio does not count it among the syncs.  fio also fsyncs again as
 * fsync_on_close closes the files between rounds; ioplan keeps them open,
 * and that second sync would find nothing written since the first.
 */
void worker_sync_end(struct worker *w)
{
	_Atomic char *state = &w->sh->states[w->clone->thread_number - 1];
	char was;

	if (!worker_sync_at_end(w))
		return;
	was = atomic_exchange_explicit(state, 'F', memory_order_relaxed);
	sync_dirty(w, false, "end_fsync");
	atomic_store_explicit(state, was, memory_order_relaxed);
}

/* A failed fsync loses written data as surely as a failed write: an error, fatal unless allowed. */
void worker_sync_failed(struct worker *w, uint32_t file, int err, const char *what)
{
	worker_error(w, .err = err, .ddir = PLAN_DDIR_WRITE, .file = file, .what = what);
	if (worker_may_continue(w, PLAN_DDIR_WRITE, err))
		return;
	worker_fail(w, err);
}
