/*
 * engine/ioengines/posixaio.c - POSIX aio_read/aio_write: fio's posixaio.
 *
 * queue() only records the I/O; commit() starts each recorded one with
 * aio_read/aio_write (glibc runs them on its helper threads); getevents()
 * polls aio_error over the in-flight set and sleeps in aio_suspend until at
 * least min are done; every finished one is handed back and completed before
 * the next queue, as fio's (reaps_all), so the depth falls as fio's does.
 * Trims run at once, as in fio.
 */
#include <aio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/ioengine.h"

struct paio {
	struct aiocb *cbs;		/* one per slot, by io_u.slot */
	struct io_u **pend;		/* queued, not yet started */
	struct io_u **fly;		/* started, not yet reaped */
	const struct aiocb **wait;	/* aio_suspend's list */
	uint32_t nr_pend, nr_fly;
};

static int paio_init(struct ioe *e)
{
	struct paio *p = calloc(1, sizeof(*p));
	uint32_t d = e->cfg.depth;

	if (!p)
		return -ENOMEM;
	e->priv = p;
	p->cbs = calloc(d, sizeof(*p->cbs));
	p->pend = calloc(d, sizeof(*p->pend));
	p->fly = calloc(d, sizeof(*p->fly));
	p->wait = calloc(d, sizeof(*p->wait));
	return p->cbs && p->pend && p->fly && p->wait ? 0 : -ENOMEM;
}

static void paio_exit(struct ioe *e)
{
	struct paio *p = e->priv;

	if (!p)
		return;
	/* glibc's helper threads still hold a control block until its I/O ends: wait it out. */
	for (uint32_t i = 0; i < p->nr_fly; i++) {
		const struct aiocb *cb = p->fly[i]->eng_data;

		if (cb && aio_cancel(cb->aio_fildes, (struct aiocb *)cb) == AIO_NOTCANCELED)
			while (aio_error(cb) == EINPROGRESS)
				aio_suspend(&cb, 1, NULL);
	}
	free(p->cbs);
	free(p->pend);
	free(p->fly);
	free(p->wait);
	free(p);
}

static int paio_queue(struct ioe *e, struct io_u *u)
{
	struct paio *p = e->priv;

	if (u->ddir != PLAN_DDIR_READ && u->ddir != PLAN_DDIR_WRITE) {
		ioe_do_sync(u);
		return IOE_Q_COMPLETED;
	}
	if (p->nr_pend + p->nr_fly >= e->cfg.depth || u->slot >= e->cfg.depth)
		return IOE_Q_BUSY;
	p->pend[p->nr_pend++] = u;
	return IOE_Q_QUEUED;
}

/* Starts one I/O; a refusal completes it at once with the error. */
static void paio_start(struct paio *p, struct io_u *u)
{
	struct aiocb *cb = &p->cbs[u->slot];
	int r;

	memset(cb, 0, sizeof(*cb));
	cb->aio_fildes = u->fd;
	cb->aio_buf = u->buf;
	cb->aio_nbytes = u->len;
	cb->aio_offset = (off_t)u->offset;
	cb->aio_sigevent.sigev_notify = SIGEV_NONE;
	u->eng_data = cb;
	r = u->ddir == PLAN_DDIR_READ ? aio_read(cb) : aio_write(cb);
	u->result = r ? -errno : 0;
	if (r)
		u->eng_data = NULL;	/* done: getevents hands it back without asking aio */
	p->fly[p->nr_fly++] = u;
}

static int paio_commit(struct ioe *e)
{
	struct paio *p = e->priv;
	int n = (int)p->nr_pend;

	for (uint32_t i = 0; i < p->nr_pend; i++)
		paio_start(p, p->pend[i]);
	p->nr_pend = 0;
	return n;
}

/* Moves finished I/Os from the in-flight set to e->events[*got..max). */
static void paio_harvest(struct ioe *e, uint32_t max, uint32_t *got)
{
	struct paio *p = e->priv;
	uint32_t keep = 0;

	for (uint32_t i = 0; i < p->nr_fly; i++) {
		struct io_u *u = p->fly[i];
		struct aiocb *cb = u->eng_data;
		int err = cb ? aio_error(cb) : 0;

		if (*got >= max || err == EINPROGRESS) {
			p->fly[keep++] = u;
			continue;
		}
		if (cb) {
			ssize_t r = aio_return(cb);

			u->result = err ? -err : r;
		}
		e->events[(*got)++] = u;
	}
	p->nr_fly = keep;
}

static int paio_getevents(struct ioe *e, uint32_t min, uint32_t max, uint64_t timeout_ns)
{
	struct paio *p = e->priv;
	uint32_t got = 0;
	struct timespec ts = { (time_t)(timeout_ns / 1000000000u), (long)(timeout_ns % 1000000000u) };

	for (;;) {
		paio_harvest(e, max, &got);
		if (got >= min || got >= max || !p->nr_fly)
			return (int)got;
		for (uint32_t i = 0; i < p->nr_fly; i++)
			p->wait[i] = p->fly[i]->eng_data;
		if (aio_suspend(p->wait, (int)p->nr_fly, &ts) && errno == EAGAIN)
			return (int)got;
	}
}

const struct ioe_ops ioe_posixaio = {
	.id = PLAN_IOENGINE_POSIXAIO,
	.init = paio_init,
	.exit = paio_exit,
	.queue = paio_queue,
	.commit = paio_commit,
	.getevents = paio_getevents,
	/* fio's posixaio getevents hands back every finished I/O its scan finds, whatever max says */
	.reaps_all = true,
};
