/*
 * engine/worker/worker_flow.c - whether a worker may issue its next I/O now, beyond
 * rate limits: fio's flow control (flow=, flow_id=, flow_sleep=; flow.h) and
 * serialize_overlap (an I/O waits while it overlaps one of the same worker in
 * flight, so the order of overlapping writes is the order they were drawn),
 * and max_latency (an I/O slower than it ends the job with ETIMEDOUT, as fio).
 */
#include <errno.h>
#include <stdlib.h>

#include "engine/worker/worker.h"

/* A held job retries this often when flow_sleep is 0 (fio spins; this sleeps a little). */
#define FLOW_RETRY_NS 10000ull

int worker_flow_setup(struct worker *w)
{
	const struct plan_job *j = w->job;

	if (j->serialize_overlap) {
		w->slot_busy = calloc(w->depth ? w->depth : 1, sizeof(*w->slot_busy));
		if (!w->slot_busy)
			return -ENOMEM;
	}
	if (!j->flow_weight || !w->sh->flows)
		return 0;
	w->flow = flow_join(w->sh->flows, j->flow_id, j->flow_weight);
	w->flow_count = 0;
	return w->flow ? 0 : -ENOSPC;
}

void worker_flow_release(struct worker *w)
{
	if (w->flow)
		flow_leave(w->sh->flows, w->flow, w->flow_count, w->job->flow_weight);
	w->flow = NULL;
	free(w->slot_busy);
	w->slot_busy = NULL;
}

bool worker_flow_turn(struct worker *w)
{
	if (flow_may_issue(w->flow, &w->flow_count, w->job->flow_weight))
		return true;
	w->blocked = true;
	if (w->job->flow_sleep_ns) {
		/* fio quiesces, then sleeps flow_sleep microseconds. */
		worker_quiesce(w);
		w->now = clk_now(&w->clk);
		w->wait_until = w->now + w->job->flow_sleep_ns;
	} else {
		w->now = clk_now(&w->clk);
		w->wait_until = w->now + FLOW_RETRY_NS;
	}
	return false;
}

static bool overlaps(const struct io_u *u, const struct gen_io *io)
{
	return u->file == io->file && u->offset < io->offset + io->len &&
	       io->offset < u->offset + u->len;
}

bool worker_overlaps_inflight(const struct worker *w, const struct gen_io *io)
{
	for (uint32_t i = 0; i < w->depth; i++)
		if (w->slot_busy[i] && overlaps(&w->ios[i], io))
			return true;
	return false;
}

bool worker_latency_ok(struct worker *w, const struct io_u *u, uint64_t lat)
{
	uint64_t max = w->job->max_latency_ns[u->ddir];

	if (!max || lat <= max || w->job->disable_lat)
		return true;
	worker_error(w, .err = ETIMEDOUT, .ddir = u->ddir, .file = u->file, .offset = u->offset,
		     .len = u->len, .what = "max latency exceeded");
	worker_fail(w, ETIMEDOUT);
	return false;
}
