/*
 * engine/ioengines/vsync.c - readv/writev after lseek, coalescing adjacent I/Os: fio's vsync.
 *
 * queue() collects I/Os while each continues the last one (same file, same
 * direction, next offset); anything else is BUSY until commit() has issued the
 * run as one lseek and one readv/writev.  A short transfer is shared out in
 * order, so the I/Os past the end report fewer bytes; a failed call fails them
 * all.  Trims run at once, as fio's vsync does.  As fio's (a FIO_SYNCIO
 * engine there), an I/O's clat starts before its queue() and there is no slat
 * (clat_at_queue): the readv/writev is in the clat, not in a slat.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/uio.h>
#include <unistd.h>

#include "engine/ioengine.h"

struct vsync {
	struct iovec *iov;
	struct io_u **q;
	uint32_t nr;			/* collected, not yet issued */
	uint32_t done;			/* issued, waiting for getevents */
	uint64_t next_off;		/* where the collected run ends */
};

static int vsync_init(struct ioe *e)
{
	struct vsync *v = calloc(1, sizeof(*v));

	if (!v)
		return -ENOMEM;
	v->iov = calloc(e->cfg.depth, sizeof(*v->iov));
	v->q = calloc(e->cfg.depth, sizeof(*v->q));
	e->priv = v;
	return v->iov && v->q ? 0 : -ENOMEM;
}

static void vsync_exit(struct ioe *e)
{
	struct vsync *v = e->priv;

	if (v) {
		free(v->iov);
		free(v->q);
	}
	free(v);
}

static bool continues(const struct vsync *v, const struct io_u *u)
{
	const struct io_u *last = v->q[v->nr - 1];

	return u->offset == v->next_off && u->fd == last->fd && u->ddir == last->ddir;
}

static int vsync_queue(struct ioe *e, struct io_u *u)
{
	struct vsync *v = e->priv;

	if (u->ddir != PLAN_DDIR_READ && u->ddir != PLAN_DDIR_WRITE) {
		if (v->nr || v->done)
			return IOE_Q_BUSY;
		ioe_do_sync(u);
		return IOE_Q_COMPLETED;
	}
	if (v->done || (v->nr && (v->nr == e->cfg.depth || !continues(v, u))))
		return IOE_Q_BUSY;
	v->iov[v->nr] = (struct iovec){ .iov_base = u->buf, .iov_len = u->len };
	v->q[v->nr++] = u;
	v->next_off = u->offset + u->len;
	return IOE_Q_QUEUED;
}

/* Shares a transfer of got bytes (or -errno) out over the collected I/Os, in order. */
static void share_out(struct vsync *v, int64_t got)
{
	for (uint32_t i = 0; i < v->nr; i++) {
		struct io_u *u = v->q[i];

		if (got < 0) {
			u->result = got;
			continue;
		}
		u->result = got < (int64_t)u->len ? got : (int64_t)u->len;
		got -= u->result;
	}
}

static int vsync_commit(struct ioe *e)
{
	struct vsync *v = e->priv;
	struct io_u *u0;
	ssize_t r;
	int n = (int)v->nr;

	if (!v->nr)
		return 0;
	u0 = v->q[0];
	if (lseek(u0->fd, (off_t)u0->offset, SEEK_SET) < 0)
		r = -1;
	else if (u0->ddir == PLAN_DDIR_READ)
		r = readv(u0->fd, v->iov, (int)v->nr);
	else
		r = writev(u0->fd, v->iov, (int)v->nr);
	share_out(v, r < 0 ? -errno : r);
	v->done = v->nr;
	v->nr = 0;
	return n;
}

static int vsync_getevents(struct ioe *e, uint32_t min, uint32_t max, uint64_t timeout_ns)
{
	struct vsync *v = e->priv;

	(void)min;
	(void)timeout_ns;
	return (int)ioe_hand_back(e, v->q, &v->done, v->done, max);
}

const struct ioe_ops ioe_vsync = {
	.id = PLAN_IOENGINE_VSYNC,
	.clat_at_queue = true,
	.reaps_all = true,
	.init = vsync_init,
	.exit = vsync_exit,
	.queue = vsync_queue,
	.commit = vsync_commit,
	.getevents = vsync_getevents,
};
