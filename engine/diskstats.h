/*
 * engine/diskstats.h - block device counters over a run, from /sys/block/<dev>/stat.
 *
 * The devices are the ones under the plan's files (the partition's whole disk,
 * as fio reports it), in fio's order.  Counters are read before the first job
 * and after the last (and for each interim report); results get the deltas.
 * Files on devices without block statistics (tmpfs, network file systems)
 * contribute nothing.
 */
#ifndef IOPLAN_ENGINE_DISKSTATS_H
#define IOPLAN_ENGINE_DISKSTATS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "engine/layout/layout.h"
#include "engine/results.h"

#define DISKSTATS_FIELDS 11

struct diskstats {
	char (*names)[32];
	uint64_t (*before)[DISKSTATS_FIELDS];
	uint32_t nr;
	uint64_t t0;
	/* The disks each thread adds, by thread_number - 1: thr_disks[thr_off[t] ..
	 * thr_end[t]), in its files' order. */
	uint32_t nr_threads;
	uint32_t *thr_off, *thr_end;
	uint32_t *thr_disks;
	uint32_t nr_thr_disks;
};

/*
 * Finds the devices under the files of p's jobs that keep disk_util=1, as the
 * layout l knows them, the ones each thread adds, and reads their counters.
 */
void diskstats_begin(struct diskstats *ds, const struct plan *p, const struct layout *l, bool fake);

/*
 * Reads the counters again and sets r->disks (which must have none) to the
 * deltas since diskstats_begin: at the end of the run, or for a snapshot of
 * the run so far.  Only reads ds.  The disks are the ones fio has added by
 * now (init_disk_util as run_threads creates each thread), in that order: by
 * started[t], when thread t + 1 passed its startdelay= and wait_for=
 * (UINT64_MAX: not yet; equal ones in thread order), a thread that starts
 * after now adding none; started NULL: every disk, in thread order.
 */
void diskstats_end(struct diskstats *ds, const _Atomic uint64_t *started, uint64_t now, struct results *r);

void diskstats_release(struct diskstats *ds);

/*
 * The sysfs directory of the whole disk of block device number dev, a
 * partition's parent's (/sys/devices/.../loop0): 0, or -errno (-ENOENT: no
 * block device has that number, as a tmpfs's or btrfs's anonymous one).
 */
int diskstats_disk_dir(dev_t dev, char *dir, size_t len);

/* Whole-disk name ("vda") of the block device holding path, or -errno. */
int diskstats_dev_of(const char *path, char *name, uint32_t len);

#endif /* IOPLAN_ENGINE_DISKSTATS_H */
