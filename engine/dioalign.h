/*
 * engine/dioalign.h - what O_DIRECT needs of buffers and offsets, asked of the
 * system instead of assumed: a 4Kn disk refuses 512-byte transfers, and a
 * 512e one accepts them only at a cost the benchmark would then measure.
 */
#ifndef IOPLAN_ENGINE_DIOALIGN_H
#define IOPLAN_ENGINE_DIOALIGN_H

#include <stdint.h>

/*
 * The alignment direct I/O on path needs: *mem for buffer addresses, *off for
 * file offsets and lengths.  statx(STATX_DIOALIGN) where the kernel reports it
 * for path, else the logical block size of the disk under it (sysfs).  path
 * may be a directory (a file not created yet).  0, or -errno when nothing could
 * be learnt.
 */
int dio_align(const char *path, uint32_t *mem, uint32_t *off);

#endif
