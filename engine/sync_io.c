/*
 * engine/sync_io.c - the blocking read, write and discard of one io_u, which
 * the synchronous engines issue and the asynchronous ones fall back to (trims,
 * a refused submission), and the sync of a file.  Apart from the registry in
 * ioengines.c because the engine files that declare options are linked into
 * the parser's fuzz targets, which have no registry.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/ioengine.h"

static int64_t do_discard(int fd, uint64_t off, uint64_t len)
{
	struct stat st;
	uint64_t range[2] = { off, len };

	if (fstat(fd, &st))
		return -errno;
	if (S_ISBLK(st.st_mode))
		return ioctl(fd, BLKDISCARD, range) ? -errno : (int64_t)len;
	if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)off, (off_t)len))
		return -errno;
	return (int64_t)len;
}

void ioe_do_sync(struct io_u *u)
{
	ssize_t r;

	switch (u->ddir) {
	case PLAN_DDIR_READ:
		r = pread(u->fd, u->buf, u->len, (off_t)u->offset);
		break;
	case PLAN_DDIR_WRITE:
		r = pwrite(u->fd, u->buf, u->len, (off_t)u->offset);
		break;
	default:
		u->result = do_discard(u->fd, u->offset, u->len);
		return;
	}
	u->result = r < 0 ? -errno : r;
}

int ioe_fsync(int fd, bool data)
{
	return (data ? fdatasync(fd) : fsync(fd)) ? -errno : 0;
}
