/*
 * engine/ioengines/falloc.c - one fallocate per I/O: fio's falloc engine.
 *
 * No data moves; the engine measures block allocation.  As in fio 3.33 a write
 * allocates (and may extend the file), a read allocates without changing the
 * size (FALLOC_FL_KEEP_SIZE) and a trim punches a hole.  A finished call counts
 * the whole block, so io_bytes are fio's.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>

#include "engine/ioengine.h"

static int falloc_queue(struct ioe *e, struct io_u *u)
{
	int mode;

	(void)e;
	if (u->ddir == PLAN_DDIR_READ)
		mode = FALLOC_FL_KEEP_SIZE;
	else if (u->ddir == PLAN_DDIR_WRITE)
		mode = 0;
	else
		mode = FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE;
	u->result = fallocate(u->fd, mode, (off_t)u->offset, (off_t)u->len) ? -errno : (int64_t)u->len;
	return IOE_Q_COMPLETED;
}

const struct ioe_ops ioe_falloc = {
	.id = PLAN_IOENGINE_FALLOC,
	.sync = true,
	.open_rw = true,		/* fallocate needs a writable descriptor, as fio's O_RDWR open */
	.changes = "allocates blocks in its files, on reads too",
	.queue = falloc_queue,
};
