/*
 * engine/layout/layout_extents.c - whether a file's bytes are all data on its disk.
 *
 * A file ioplan only sized for write-only jobs (its mark says "sized") is laid
 * out again, whole, before a job reads it: its holes and unwritten extents
 * would be read at memory speed.  But a write job that went over every byte
 * of it (`rw=write` then `rw=read` in two runs, the commonest pair there is)
 * has made it as good as a filled one, and fio reads it as it is.  The file
 * system knows: FIEMAP, after writing back what is still in the page cache
 * (FIEMAP_FLAG_SYNC, so that blocks written but not yet converted from
 * "unwritten" count, and "filled" stays a claim about durable data), lists
 * the extents, and a file whose extents cover it without a gap, none of them
 * unwritten, delayed or of unknown place, holds data in every byte.  A file
 * system without FIEMAP (tmpfs) proves nothing, and the layout goes on as
 * before.  Hand-written: no Debian library wraps FIEMAP.
 */
#include <errno.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "engine/layout/layout.h"

#define EXTENTS_AT_ONCE 256u

/* Extent flags that leave a byte without data of its own on the disk. */
#define NOT_DATA (FIEMAP_EXTENT_UNWRITTEN | FIEMAP_EXTENT_DELALLOC | FIEMAP_EXTENT_UNKNOWN)

/*
 * One batch of extents from *at to size into m (room for EXTENTS_AT_ONCE): 0,
 * or -errno (-EOPNOTSUPP where the file system keeps no extent map).
 */
static int extents_from(int fd, uint64_t at, uint64_t size, uint32_t flags, struct fiemap *m)
{
	memset(m, 0, sizeof(*m));
	m->fm_start = at;
	m->fm_length = size - at;
	m->fm_flags = flags;
	m->fm_extent_count = EXTENTS_AT_ONCE;
	return ioctl(fd, FS_IOC_FIEMAP, m) ? -errno : 0;
}

/*
 * Walks one batch: advances *at over extents that hold data and begin where
 * the last one ended.  False at a gap or at an extent without data.
 */
static bool extents_cover(const struct fiemap *m, uint64_t *at, bool *last)
{
	for (uint32_t i = 0; i < m->fm_mapped_extents; i++) {
		const struct fiemap_extent *x = &m->fm_extents[i];

		if (x->fe_logical > *at || (x->fe_flags & NOT_DATA))
			return false;
		if (x->fe_logical + x->fe_length > *at)
			*at = x->fe_logical + x->fe_length;
		*last = x->fe_flags & FIEMAP_EXTENT_LAST;
	}
	return m->fm_mapped_extents > 0;
}

/* False also when the batch's memory cannot be had: the layout then goes on as before. */
bool layout_data_whole(int fd, uint64_t size)
{
	struct fiemap *m = malloc(sizeof(*m) + EXTENTS_AT_ONCE * sizeof(m->fm_extents[0]));
	uint64_t at = 0;
	bool last = false, whole = m != NULL;
	uint32_t flags = FIEMAP_FLAG_SYNC;

	while (whole && at < size && !last) {
		whole = !extents_from(fd, at, size, flags, m) && extents_cover(m, &at, &last);
		flags = 0;	/* written back once: the file has not changed since */
	}
	whole = whole && at >= size;
	free(m);
	return whole;
}
