/*
 * engine/ioengines/sync.c - read/write after lseek, one I/O at a time: fio's sync engine.
 *
 * As fio's, the lseek is skipped when the descriptor already stands at the I/O's
 * offset (the last I/O on it ended there), so a sequential job costs one call per
 * I/O and a random one two.  A descriptor number is not a file: once the worker
 * opens a file (openfiles= closing and reopening, unlink_each_loop), the number
 * may stand for a new open at 0, so the next I/O seeks.  Trims punch holes as
 * psync's do.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "engine/ioengine.h"

struct sync_pos {
	int fd;				/* descriptor of the last I/O; -1: none */
	uint64_t pos;			/* where that I/O left it */
	uint64_t opens;			/* ioe.opens then */
};

static int sync_init(struct ioe *e)
{
	struct sync_pos *s = malloc(sizeof(*s));

	if (!s)
		return -ENOMEM;
	s->fd = -1;
	e->priv = s;
	return 0;
}

static void sync_exit(struct ioe *e)
{
	free(e->priv);
}

static int sync_queue(struct ioe *e, struct io_u *u)
{
	struct sync_pos *s = e->priv;
	ssize_t r;

	if (u->ddir != PLAN_DDIR_READ && u->ddir != PLAN_DDIR_WRITE) {
		ioe_do_sync(u);
		return IOE_Q_COMPLETED;
	}
	if ((s->fd != u->fd || s->pos != u->offset || s->opens != e->opens) &&
	    lseek(u->fd, (off_t)u->offset, SEEK_SET) < 0)
		r = -1;
	else if (u->ddir == PLAN_DDIR_READ)
		r = read(u->fd, u->buf, u->len);
	else
		r = write(u->fd, u->buf, u->len);
	u->result = r < 0 ? -errno : r;
	s->fd = r < 0 ? -1 : u->fd;	/* after a failure the position is unknown */
	s->pos = u->offset + (r < 0 ? 0 : (uint64_t)r);
	s->opens = e->opens;
	return IOE_Q_COMPLETED;
}

const struct ioe_ops ioe_sync = {
	.id = PLAN_IOENGINE_SYNC,
	.sync = true,
	.init = sync_init,
	.exit = sync_exit,
	.queue = sync_queue,
};
