/*
 * engine/worker/worker_sync.c - fsync=N, fdatasync=N and a trace's flush: the
 * sync the loop (worker_io.c) makes in the place of an I/O.
 *
 * Its own file because the loop's file is the hot path and already long; the
 * sync runs once per N writes, not per I/O.
 */
#include <errno.h>
#include <unistd.h>

#include "engine/stats.h"
#include "engine/worker/worker.h"

/*
 * fsync=N / fdatasync=N, a trace's flush: sync every file written to.  As
 * fio's, the writes still in flight stay in flight (fio's libaio syncs once
 * nothing is left uncommitted; its io_uring queues the sync beside them), and
 * the sync takes a place in the queue, counted at that depth.
 */
void worker_sync_files(struct worker *w)
{
	bool data = !w->job->fsync_every;
	uint64_t t0 = clk_now(&w->clk);

	for (uint32_t f = 0; f < w->nr_fds; f++) {
		if (!w->dirty[f] || w->fds[f] < 0)	/* a closed file was synced as it closed */
			continue;
		w->dirty[f] = false;
		if (data ? fdatasync(w->fds[f]) : fsync(w->fds[f]))
			worker_sync_failed(w, f, errno, data ? "fdatasync" : "fsync");
	}
	w->now = clk_now(&w->clk);
	if (w->counting) {
		lat_add(&w->res.sync_lat, w->now - t0);
		w->res.sync_ios++;
		w->res.depth[depth_bucket(w->inflight + 1)]++;
	}
	w->writes_since_sync = 0;
	w->need_sync = false;
}
