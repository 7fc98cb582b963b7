/*
 * engine/ioengines/null.c - completes every I/O at once without moving data.
 *
 * The reference engine: it measures the engine's own overhead and is the test
 * double for the whole pipeline.  At iodepth 1 it completes inside queue(); deeper
 * it behaves like an async engine (queue, commit, getevents) holding up to iodepth
 * I/Os, so the batched paths are exercised and timed.  fio 3.33's null engine
 * takes the same calls but refuses an I/O while a committed one is unreaped, so
 * it runs at depth 1 whatever iodepth says (its output: "IO depths: 1=100.0%").
 */
#include <errno.h>
#include <stdlib.h>

#include "engine/ioengine.h"

struct null_ring {
	struct io_u **q;		/* queued or in flight, in order */
	uint32_t nr_queued;		/* not yet committed, at the tail */
	uint32_t nr;			/* total held */
};

static int null_init(struct ioe *e)
{
	struct null_ring *r;

	e->is_sync = e->cfg.depth <= 1;
	if (e->is_sync)
		return 0;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->q = calloc(e->cfg.depth, sizeof(*r->q));
	if (!r->q) {
		free(r);
		return -ENOMEM;
	}
	e->priv = r;
	return 0;
}

static void null_exit(struct ioe *e)
{
	struct null_ring *r = e->priv;

	if (r)
		free(r->q);
	free(r);
}

static int null_queue(struct ioe *e, struct io_u *u)
{
	struct null_ring *r = e->priv;

	u->result = u->len;
	if (e->is_sync)
		return IOE_Q_COMPLETED;
	if (r->nr == e->cfg.depth)
		return IOE_Q_BUSY;
	r->q[r->nr++] = u;
	r->nr_queued++;
	return IOE_Q_QUEUED;
}

static int null_commit(struct ioe *e)
{
	struct null_ring *r = e->priv;
	int n = (int)r->nr_queued;

	r->nr_queued = 0;
	return n;
}

static int null_getevents(struct ioe *e, uint32_t min, uint32_t max, uint64_t timeout_ns)
{
	struct null_ring *r = e->priv;

	(void)min;
	(void)timeout_ns;
	return (int)ioe_hand_back(e, r->q, &r->nr, r->nr - r->nr_queued, max);
}

const struct ioe_ops ioe_null = {
	.id = PLAN_IOENGINE_NULL,
	.no_open = true,
	.no_layout = true,		/* as fio's FIO_DISKLESSIO: it touches no file */
	.instant = true,
	.fake_io = true,
	.init = null_init,
	.exit = null_exit,
	.queue = null_queue,
	.commit = null_commit,
	.getevents = null_getevents,
};
