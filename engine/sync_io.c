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

/*
 * A block device's discard drops its cached pages over the range; a device
 * claimed exclusively by another open (the safety layer's O_EXCL one, held
 * while ioplan writes the device) can only have them invalidated, which a
 * dirty page refuses: EBUSY for a trim of blocks the job has just written
 * buffered (trim_percentage).  Those pages are written back then, and the
 * discard asked again.
 */
static int64_t discard_device(int fd, uint64_t off, uint64_t len)
{
	uint64_t range[2] = { off, len };

	if (!ioctl(fd, BLKDISCARD, range))
		return (int64_t)len;
	if (errno != EBUSY)
		return -errno;
	if (sync_file_range(fd, (off_t)off, (off_t)len,
			    SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER))
		return -errno;
	return ioctl(fd, BLKDISCARD, range) ? -errno : (int64_t)len;
}

static int64_t do_discard(int fd, uint64_t off, uint64_t len)
{
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	if (S_ISBLK(st.st_mode))
		return discard_device(fd, off, len);
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
