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
 * Every file written to since its last sync: its descriptor's sync through the
 * engine (which may refuse it, as fio's ftruncate does), or a remote target's
 * flush.  A local file closed since was synced as it closed.  0 or -errno.
 */
static int sync_file(struct worker *w, uint32_t f, bool data, bool at_end, const char *what)
{
	const struct ioe_ops *o = w->ioe.ops;
	int r;

	if (w->fds[f] >= 0)
		r = o && o->sync_fd ? o->sync_fd(&w->ioe, w->fds[f], data, at_end) : ioe_fsync(w->fds[f], data);
	else if (o && o->flush_sync)
		r = o->flush_sync(&w->ioe);
	else
		return 0;
	w->dirty[f] = false;
	worker_iolog_sync(w, f, data);
	if (r)
		worker_sync_failed(w, f, -r, what);
	return r;
}

/* The first error, or 0: every file is synced even after one fails, as fio's end_fsync. */
static int sync_dirty(struct worker *w, bool data, bool at_end, const char *what)
{
	int err = 0, r;

	for (uint32_t f = 0; f < w->nr_fds; f++)
		if (w->dirty[f] && (r = sync_file(w, f, data, at_end, what)) && !err)
			err = r;
	return err;
}

/*
 * fio's sync latency histogram, made at the first sync (most jobs never make
 * one) when the JSON "sync" block reports percentiles under the clat/lat ones.
 */
static bool sync_hist(struct worker *w)
{
	if (w->res.sync_lat.hist || !(w->job->clat_percentiles || w->job->lat_percentiles))
		return true;
	w->res.sync_lat.hist = calloc(RES_HIST_NR, sizeof(uint64_t));
	if (w->res.sync_lat.hist)
		return true;
	worker_error(w, .err = ENOMEM, .what = "sync latency histogram");
	worker_fail(w, ENOMEM);
	return false;
}

/*
 * fsync=N / fdatasync=N: sync every file written to; a trace's flush: the
 * file its line names, by the line's kind (sync or datasync).  As
 * fio's, the writes still in flight stay in flight (fio's libaio syncs once
 * nothing is left uncommitted; its io_uring queues the sync beside them), and
 * the sync takes a place in the queue, counted at that depth.  A failed sync
 * is counted without a latency, as fio counts the I/O its engine failed.
 */
void worker_sync_files(struct worker *w)
{
	bool data = w->rp.sync_due ? w->rp.sync_data : !w->job->fsync_every;
	const char *what = data ? "fdatasync" : "fsync";
	uint64_t t0 = clk_now(&w->clk);
	int r;

	/* A trace's flush syncs the file its line names, written to or not (fio's). */
	if (w->rp.sync_due && w->rp.sync_file < w->nr_fds)
		r = sync_file(w, w->rp.sync_file, data, false, what);
	else
		r = sync_dirty(w, data, false, what);
	w->rp.sync_due = false;
	w->now = clk_now(&w->clk);
	if (w->counting) {
		if (!r && !sync_hist(w))
			return;
		if (!r)	/* fio drops a failed I/O's latency, its count stays */
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
	sync_dirty(w, false, true, "end_fsync");
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
