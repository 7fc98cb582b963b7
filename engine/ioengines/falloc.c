/*
 * engine/ioengines/falloc.c - one fallocate per I/O: fio's falloc engine.
 *
 * No data moves; the engine measures block allocation.  As in fio 3.33 a write
 * allocates (and may extend the file), a read allocates without changing the
 * size (FALLOC_FL_KEEP_SIZE) and a trim punches a hole.  A finished call counts
 * the whole block, so io_bytes are fio's.  fio hands it fsync=N's and
 * fdatasync=N's syncs as I/Os of 0 bytes, which it passes to fallocate: the
 * kernel refuses them (EINVAL) and the job ends at the first, here too.
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

/*
 * end_fsync's and fsync_on_close's sync comes to fio's engine in an I/O slot
 * used before, still holding its block, which fallocate allocates again: that
 * succeeds, and the file is synced here.
 */
static int falloc_sync(struct ioe *e, int fd, bool data, bool at_end)
{
	(void)e;
	if (at_end)
		return ioe_fsync(fd, data);
	return fallocate(fd, 0, 0, 0) ? -errno : 0;
}

const struct ioe_ops ioe_falloc = {
	.id = PLAN_IOENGINE_FALLOC,
	.sync = true,
	.open_rw = true,		/* fallocate needs a writable descriptor, as fio's O_RDWR open */
	.changes = "allocates blocks in its files, on reads too",
	.queue = falloc_queue,
	.sync_fd = falloc_sync,
};
