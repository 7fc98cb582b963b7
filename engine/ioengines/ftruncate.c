/*
 * engine/ioengines/ftruncate.c - each write truncates the file: fio's ftruncate engine.
 *
 * As in fio 3.33 a write sets the file's size to the I/O's offset (not offset +
 * length) and counts the whole block; any other direction fails with EINVAL, so
 * a read job with this engine errors as fio's does.  So does a sync (fsync=N,
 * fdatasync=N, end_fsync, fsync_on_close), which fio hands the engine as an
 * I/O of its own: the job ends at the first.  No data moves.
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

static int ftruncate_sync(struct ioe *e, int fd, bool data, bool at_end)
{
	(void)e, (void)fd, (void)data, (void)at_end;
	return -EINVAL;
}

const struct ioe_ops ioe_ftruncate = {
	.id = PLAN_IOENGINE_FTRUNCATE,
	.sync = true,
	.queue = ftruncate_queue,
	.sync_fd = ftruncate_sync,
};
