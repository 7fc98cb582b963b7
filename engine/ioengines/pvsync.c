/*
 * engine/ioengines/pvsync.c - preadv/pwritev, one I/O at a time: fio's pvsync.
 *
 * The same positioned I/O as psync through the vectored calls, so a job can
 * measure what the iovec path costs.  Trims punch holes as psync's do.
 */
#include <errno.h>
#include <sys/uio.h>

#include "engine/ioengine.h"

static int pvsync_queue(struct ioe *e, struct io_u *u)
{
	struct iovec iov = { .iov_base = u->buf, .iov_len = u->len };
	ssize_t r;

	(void)e;
	if (u->ddir == PLAN_DDIR_READ)
		r = preadv(u->fd, &iov, 1, (off_t)u->offset);
	else if (u->ddir == PLAN_DDIR_WRITE)
		r = pwritev(u->fd, &iov, 1, (off_t)u->offset);
	else {
		ioe_do_sync(u);
		return IOE_Q_COMPLETED;
	}
	u->result = r < 0 ? -errno : r;
	return IOE_Q_COMPLETED;
}

const struct ioe_ops ioe_pvsync = {
	.id = PLAN_IOENGINE_PVSYNC,
	.sync = true,
	.queue = pvsync_queue,
};
