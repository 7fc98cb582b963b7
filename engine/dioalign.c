/*
 * engine/dioalign.c - O_DIRECT alignment of a file or device (dioalign.h).
 *
 * Order of trust: the file system's own answer (statx DIOALIGN, Linux 6.1+),
 * then the logical block size of the disk holding the file (or of the device
 * itself), found by the same sysfs walk the disk counters use.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>

#include "dioalign.h"
#include "diskstats.h"

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

/* Logical block size of the whole disk under path, from sysfs. */
static int sysfs_lbs(const char *path, uint32_t *lbs)
{
	char name[256], file[320];
	unsigned long n = 0;
	FILE *f;
	int ok, ret = diskstats_dev_of(path, name, sizeof(name));

	if (ret)
		return ret;
	snprintf(file, sizeof(file), "/sys/block/%s/queue/logical_block_size", name);
	f = fopen(file, "re");
	if (!f)
		return -errno;
	ok = fscanf(f, "%lu", &n) == 1 && n > 0 && n <= (1ul << 20);
	fclose(f);
	if (!ok)
		return -EINVAL;
	*lbs = (uint32_t)n;
	return 0;
}

int dio_align(const char *path, uint32_t *mem, uint32_t *off)
{
	uint32_t lbs = 0;
	int ret;

	if (statx_align(path, mem, off) == 0)
		return 0;
	ret = sysfs_lbs(path, &lbs);
	if (ret)
		return ret;
	*mem = *off = lbs;
	return 0;
}
