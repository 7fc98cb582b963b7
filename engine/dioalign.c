/*
 * engine/dioalign.c - O_DIRECT alignment of a file or device (dioalign.h).
 *
 * Order of trust: the file system's own answer (statx DIOALIGN, Linux 6.1+),
 * then the logical block size of the block device holding the file, read from
 * /sys/dev/block/MAJ:MIN (a partition's queue lives in its parent's directory).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "dioalign.h"

static int statx_align(const char *path, uint32_t *mem, uint32_t *off)
{
#ifdef STATX_DIOALIGN
	struct statx sx;

	if (statx(AT_FDCWD, path, 0, STATX_DIOALIGN, &sx) == 0 && (sx.stx_mask & STATX_DIOALIGN) &&
	    sx.stx_dio_offset_align) {
		*mem = sx.stx_dio_mem_align;
		*off = sx.stx_dio_offset_align;
		return 0;
	}
#endif
	return -EOPNOTSUPP;
}

static int read_uint(const char *file, uint32_t *v)
{
	FILE *f = fopen(file, "re");
	unsigned long n = 0;
	int ok;

	if (!f)
		return -errno;
	ok = fscanf(f, "%lu", &n) == 1 && n > 0 && n <= (1ul << 20);
	fclose(f);
	if (!ok)
		return -EINVAL;
	*v = (uint32_t)n;
	return 0;
}

/* Logical block size of device dev from sysfs; a partition asks its parent. */
static int sysfs_lbs(dev_t dev, uint32_t *lbs)
{
	char file[128];

	snprintf(file, sizeof(file), "/sys/dev/block/%u:%u/queue/logical_block_size", major(dev), minor(dev));
	if (read_uint(file, lbs) == 0)
		return 0;
	snprintf(file, sizeof(file), "/sys/dev/block/%u:%u/../queue/logical_block_size", major(dev), minor(dev));
	return read_uint(file, lbs);
}

int dio_align(const char *path, uint32_t *mem, uint32_t *off)
{
	struct stat sb;
	uint32_t lbs = 0;
	int fd, ret;

	if (statx_align(path, mem, off) == 0)
		return 0;
	if (stat(path, &sb))
		return -errno;
	if (S_ISBLK(sb.st_mode)) {
		int v = 0;

		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		ret = ioctl(fd, BLKSSZGET, &v) ? -errno : 0;
		close(fd);
		if (ret)
			return ret;
		lbs = (uint32_t)v;
	} else if ((ret = sysfs_lbs(sb.st_dev, &lbs))) {
		return ret;
	}
	*mem = *off = lbs;
	return 0;
}
