/*
 * engine/snapshot.h - the results so far of a running plan (eng_snapshot), for
 * fio's --status-interval and SIGUSR1 reports.
 *
 * A worker's results are private while it runs, so the requester cannot read
 * them: it raises a request number (struct eng's snap_req), and each worker,
 * at its next trip round the I/O loop, copies its results into its snapshot
 * slot (worker.snap.res, under snap.mu) as they stand, with the window's runtime,
 * CPU and latency taken up to now, and acknowledges the number.  The loop
 * pays one relaxed load per trip for this.  The requester waits a bounded
 * time for the workers in their loops: one held in a long sync I/O or a
 * think is reported as of its previous copy.  A worker out of its loop has
 * either not counted anything yet (an empty clone), or left its final copy
 * (taken as its window ended), or ended (its results in place).
 */
#ifndef IOPLAN_ENGINE_SNAPSHOT_H
#define IOPLAN_ENGINE_SNAPSHOT_H

#include <stdint.h>

#include "engine/results.h"
#include "engine/worker/worker.h"

/* Copies the worker's results so far into w->snap and answers the latest request. */
void worker_snapshot(struct worker *w);

/* Per loop trip: the copy only when a request is new. */
static inline void worker_snapshot_poll(struct worker *w)
{
	if (atomic_load_explicit(w->sh->snap_req, memory_order_relaxed) != w->snap.seen)
		worker_snapshot(w);
}

/* Waits until each of the n workers in cur answered request seq or left its loop, at most wait_ns. */
void snap_await(struct worker *const *cur, uint32_t n, uint64_t seq, uint64_t wait_ns);

/*
 * A new results (*out, for results_free) holding live's jobs as they stand:
 * those of the n running workers from their snapshots, the rest copied.
 * now_ns: the run's clock (relative to start_mono_ns).  Messages, disk and
 * per-CPU figures are the final report's only.  0 or -ENOMEM.
 */
int snap_collect(const struct results *live, struct worker *const *cur, uint32_t n,
		 uint64_t now_ns, struct results **out);

#endif /* IOPLAN_ENGINE_SNAPSHOT_H */
