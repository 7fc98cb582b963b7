/*
 * engine/ioengines/splice.c - data through a pipe with splice(2) and vmsplice(2): fio's splice.
 *
 * A read splices the file into a pipe and vmsplices the pipe out into the
 * I/O's buffer; a write vmsplices the buffer into the pipe and splices the
 * pipe into the file.  Both go in chunks no larger than the pipe holds, so a
 * block of any size moves without blocking on a full pipe.  Trims punch holes
 * as psync's do.  The pipe is the engine instance's, one per thread.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/uio.h>
#include <unistd.h>

#include "engine/ioengine.h"

#define SPLICE_CHUNK (64u * 1024u)	/* a default pipe's capacity (fio's SPLICE_DEF_SIZE) */

struct splice_pipe {
	int rd, wr;
};

static int splice_init(struct ioe *e)
{
	struct splice_pipe *p = malloc(sizeof(*p));
	int fds[2];

	if (!p)
		return -ENOMEM;
	if (pipe2(fds, O_CLOEXEC)) {
		free(p);
		return -errno;
	}
	p->rd = fds[0];
	p->wr = fds[1];
	e->priv = p;
	return 0;
}

static void splice_exit(struct ioe *e)
{
	struct splice_pipe *p = e->priv;

	close(p->rd);
	close(p->wr);
	free(p);
}

/* Drains n bytes of the pipe into buf (vmsplice to user memory copies them out). */
static int64_t pipe_to_buf(struct splice_pipe *p, char *buf, size_t n)
{
	size_t done = 0;

	while (done < n) {
		struct iovec iov = { .iov_base = buf + done, .iov_len = n - done };
		ssize_t r = vmsplice(p->rd, &iov, 1, 0);

		if (r < 0 && errno != EINTR)
			return -errno;
		done += r > 0 ? (size_t)r : 0;
	}
	return (int64_t)done;
}

/* Splices n bytes from the pipe into the file at off. */
static int64_t pipe_to_file(struct splice_pipe *p, int fd, loff_t off, size_t n)
{
	size_t done = 0;

	while (done < n) {
		ssize_t r = splice(p->rd, NULL, fd, &off, n - done, SPLICE_F_MOVE);

		if (r < 0 && errno != EINTR)
			return -errno;
		if (r == 0)
			return -EIO;	/* the pipe holds what vmsplice put in: 0 means a broken pipe */
		done += r > 0 ? (size_t)r : 0;
	}
	return (int64_t)done;
}

/* One chunk of a read: file to pipe, pipe to buffer.  Bytes moved (0 at end of file) or -errno. */
static int64_t read_chunk(struct splice_pipe *p, struct io_u *u, uint32_t at, uint32_t n)
{
	loff_t off = (loff_t)(u->offset + at);
	ssize_t r = splice(u->fd, &off, p->wr, NULL, n, at + n < u->len ? SPLICE_F_MORE : 0);

	if (r <= 0)
		return r < 0 ? -errno : 0;
	return pipe_to_buf(p, (char *)u->buf + at, (size_t)r);
}

/* One chunk of a write: buffer to pipe, pipe to file. */
static int64_t write_chunk(struct splice_pipe *p, struct io_u *u, uint32_t at, uint32_t n)
{
	struct iovec iov = { .iov_base = (char *)u->buf + at, .iov_len = n };
	ssize_t r = vmsplice(p->wr, &iov, 1, 0);

	if (r <= 0)
		return r < 0 ? -errno : -EIO;
	return pipe_to_file(p, u->fd, (loff_t)(u->offset + at), (size_t)r);
}

static int splice_queue(struct ioe *e, struct io_u *u)
{
	uint32_t at = 0;
	int64_t r = 0;

	if (u->ddir != PLAN_DDIR_READ && u->ddir != PLAN_DDIR_WRITE) {
		ioe_do_sync(u);
		return IOE_Q_COMPLETED;
	}
	while (at < u->len) {
		uint32_t n = u->len - at < SPLICE_CHUNK ? u->len - at : SPLICE_CHUNK;

		r = u->ddir == PLAN_DDIR_READ ? read_chunk(e->priv, u, at, n) : write_chunk(e->priv, u, at, n);
		if (r == -EINTR)
			continue;
		if (r <= 0)
			break;	/* an error, or end of file: a short read */
		at += (uint32_t)r;
	}
	u->result = r < 0 && !at ? r : (int64_t)at;
	return IOE_Q_COMPLETED;
}

const struct ioe_ops ioe_splice = {
	.id = PLAN_IOENGINE_SPLICE,
	.sync = true,
	.init = splice_init,
	.exit = splice_exit,
	.queue = splice_queue,
};
