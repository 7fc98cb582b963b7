/*
 * engine/ioengines/ftruncate.c - each write truncates the file: fio's ftruncate engine.
 *
 * As in fio 3.33 a write sets the file's size to the I/O's offset (not offset +
 * length) and counts the whole block; any other direction fails with EINVAL, so
 * a read job with this engine errors as fio's does.  No data moves.
 */
#include <errno.h>
#include <unistd.h>

#include "engine/ioengine.h"

static int ftruncate_queue(struct ioe *e, struct io_u *u)
{
	(void)e;
	if (u->ddir != PLAN_DDIR_WRITE)
		u->result = -EINVAL;
	else
		u->result = ftruncate(u->fd, (off_t)u->offset) ? -errno : (int64_t)u->len;
	return IOE_Q_COMPLETED;
}

const struct ioe_ops ioe_ftruncate = {
	.id = PLAN_IOENGINE_FTRUNCATE,
	.sync = true,
	.queue = ftruncate_queue,
};
