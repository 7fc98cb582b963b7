/*
 * engine/worker/worker_short.c - short transfers: a read or write that moved fewer
 * bytes than asked is completed, as fio does, before it is counted.
 */
#include <errno.h>
#include <unistd.h>

#include "engine/worker/worker.h"

/*
 * A short read or write is re-issued for the rest, as fio does, until it is
 * complete or the file gives no more (end of file: an error then).  Runs on the
 * completing thread with plain pread/pwrite whatever the engine.
 */
bool worker_finish_short(struct worker *w, struct io_u *u)
{
	uint8_t *buf = u->buf;
	ssize_t r;

	if (u->ddir == PLAN_DDIR_TRIM || u->fd < 0)
		return false;
	while (u->result > 0 && u->result < (int64_t)u->len) {
		uint64_t done = (uint64_t)u->result, rest = u->len - done;
		off_t at = (off_t)(u->offset + done);

		r = u->ddir == PLAN_DDIR_READ ? pread(u->fd, buf + done, rest, at)
					      : pwrite(u->fd, buf + done, rest, at);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			u->result = -errno;	/* ENOSPC, EIO...: reported as the I/O's error */
		if (r <= 0)
			return false;
		u->result += r;
	}
	return u->result == (int64_t)u->len;
}
