/*
 * engine/ioengines/psync.c - pread/pwrite, one I/O at a time: fio's Linux default.
 *
 * The I/O happens inside queue(); iodepth does not apply (as in fio).
 */
#include "engine/ioengine.h"

static int psync_queue(struct ioe *e, struct io_u *u)
{
	(void)e;
	ioe_do_sync(u);
	return IOE_Q_COMPLETED;
}

const struct ioe_ops ioe_psync = {
	.id = PLAN_IOENGINE_PSYNC,
	.sync = true,
	.queue = psync_queue,
};
