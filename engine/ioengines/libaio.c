/*
 * engine/ioengines/libaio.c - Linux native AIO through libaio (io_submit/io_getevents).
 *
 * queue() prepares the slot's iocb and appends it to a pending array; commit()
 * hands the whole array to one io_submit(); getevents() reaps up to max in one
 * io_getevents().  Trims are done synchronously, as fio does for this engine.
 *
 * fio 3.33's libaio options: nowait puts RWF_NOWAIT in each iocb's
 * aio_rw_flags; userspace_reap makes a reap that need not wait (min 0) read
 * the completion ring the kernel maps into the process (struct aio_ring,
 * kernel fs/aio.c) instead of calling io_getevents().  libaio has no call for
 * that, so it is written here.
 */
#include <errno.h>
#include <libaio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "engine/ioengine.h"

#ifndef IOCB_FLAG_IOPRIO
#define IOCB_FLAG_IOPRIO (1 << 1)	/* linux/aio_abi.h: aio_reqprio holds an ioprio value */
#endif

/* Its options (plan_engopts.h): the parser fills one per job from the table below. */
struct aio_opts {
	bool userspace_reap;		/* reaps that need not wait read the completion ring */
};

static const struct plan_engopt aio_opts[] = {
	{ .name = "userspace_reap", .type = PLAN_ENGOPT_FLAG, .def = "0", .min = 1, .max = 0,
	  .off = offsetof(struct aio_opts, userspace_reap),
	  .help = "libaio: reaps that need not wait (iodepth_batch_complete_min=0) read the completion ring "
		  "directly instead of calling io_getevents()." },
};

PLAN_ENGOPTS_DEFINE(libaio, struct aio_opts, aio_opts);

struct aio {
	io_context_t ctx;
	bool userspace_reap;
	struct iocb *iocbs;		/* one per slot */
	struct iocb **pending;
	struct io_event *evs;
	uint32_t nr_pending;
};

static void aio_free(struct aio *a)
{
	free(a->iocbs);
	free(a->pending);
	free(a->evs);
	free(a);
}

static int aio_init(struct ioe *e)
{
	uint32_t d = e->cfg.depth;
	struct aio *a = calloc(1, sizeof(*a));
	int ret;

	if (!a)
		return -ENOMEM;
	a->iocbs = calloc(d, sizeof(*a->iocbs));
	a->pending = calloc(d, sizeof(*a->pending));
	a->evs = calloc(d, sizeof(*a->evs));
	if (!a->iocbs || !a->pending || !a->evs) {
		aio_free(a);
		return -ENOMEM;
	}
	ret = io_setup((int)d, &a->ctx);
	if (ret) {
		aio_free(a);
		return ret < 0 ? ret : -ret;
	}
	/* Without a job (the engine's own tests): the table's default, off. */
	a->userspace_reap = ioe_job_opts(e) && ((const struct aio_opts *)ioe_job_opts(e))->userspace_reap;
	e->priv = a;
	return 0;
}

static void aio_exit(struct ioe *e)
{
	struct aio *a = e->priv;

	if (!a)
		return;
	io_destroy(a->ctx);
	aio_free(a);
}

static int aio_queue(struct ioe *e, struct io_u *u)
{
	struct aio *a = e->priv;
	struct iocb *cb = &a->iocbs[u->slot];

	if (u->ddir == PLAN_DDIR_TRIM) {
		ioe_do_sync(u);
		return IOE_Q_COMPLETED;
	}
	if (a->nr_pending == e->cfg.depth)
		return IOE_Q_BUSY;
	if (u->ddir == PLAN_DDIR_READ)
		io_prep_pread(cb, u->fd, u->buf, u->len, (long long)u->offset);
	else
		io_prep_pwrite(cb, u->fd, u->buf, u->len, (long long)u->offset);
	cb->data = u;
	cb->aio_rw_flags = e->cfg.rwf_flags;
	if (u->ioprio) {	/* cmdprio (engine/prio.h): this I/O's own priority */
		cb->aio_reqprio = (short)u->ioprio;
		cb->u.c.flags |= IOCB_FLAG_IOPRIO;
	}
	a->pending[a->nr_pending++] = cb;
	return IOE_Q_QUEUED;
}

static int aio_commit(struct ioe *e)
{
	struct aio *a = e->priv;
	int done = 0, r;

	while ((uint32_t)done < a->nr_pending) {
		r = io_submit(a->ctx, (long)(a->nr_pending - (uint32_t)done), a->pending + done);
		if (r == -EINTR)
			continue;
		if (r == -EAGAIN || r == 0)
			break;		/* the kernel is full: reap, then resubmit the rest */
		if (r < 0) {
			if (!done)
				return r;
			break;
		}
		done += r;
	}
	memmove(a->pending, a->pending + done, (a->nr_pending - (uint32_t)done) * sizeof(*a->pending));
	a->nr_pending -= (uint32_t)done;
	return done;
}

/* The kernel's completion ring header (fs/aio.c), mapped at the io_context_t address. */
struct aio_ring {
	unsigned id, nr, head, tail, magic, compat_features, incompat_features, header_length;
	struct io_event events[];
};

#define AIO_RING_MAGIC 0xa10a10a1

/* userspace_reap: up to max completions straight from the ring; -1 when it cannot be read. */
static int ring_reap(struct aio *a, uint32_t max)
{
	struct aio_ring *ring = (struct aio_ring *)a->ctx;
	unsigned head, tail;
	int n = 0;

	if (!ring || ring->magic != AIO_RING_MAGIC || ring->incompat_features)
		return -1;
	head = ring->head;
	tail = __atomic_load_n(&ring->tail, __ATOMIC_ACQUIRE);
	while (head != tail && (uint32_t)n < max) {
		a->evs[n++] = ring->events[head];
		head = (head + 1) % ring->nr;
	}
	__atomic_store_n(&ring->head, head, __ATOMIC_RELEASE);
	return n;
}

static int aio_getevents(struct ioe *e, uint32_t min, uint32_t max, uint64_t timeout_ns)
{
	struct aio *a = e->priv;
	struct timespec ts = { (time_t)(timeout_ns / 1000000000ull), (long)(timeout_ns % 1000000000ull) };
	int r = -1;

	if (a->userspace_reap && !min)
		r = ring_reap(a, max);
	if (r < 0) {
		do
			r = io_getevents(a->ctx, (long)min, (long)max, a->evs, &ts);
		while (r == -EINTR);
	}
	if (r < 0)
		return r;
	for (int i = 0; i < r; i++) {
		struct io_u *u = a->evs[i].data;

		/* res is the byte count or a negated errno, carried in an unsigned long. */
		u->result = (int64_t)(long)a->evs[i].res;
		e->events[i] = u;
	}
	return r;
}

const struct ioe_ops ioe_libaio = {
	.id = PLAN_IOENGINE_LIBAIO,
	.init = aio_init,
	.exit = aio_exit,
	.queue = aio_queue,
	.commit = aio_commit,
	.getevents = aio_getevents,
};
