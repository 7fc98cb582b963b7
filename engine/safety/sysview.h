/*
 * engine/safety/sysview.h - what the system is using, read once for a whole safety check.
 *
 * The rules of safety.c ask the same questions of many devices: is this one
 * mounted, swap, the backing store of a loop device?  Asked of the live files
 * each time, a check of every bound loop device (safety_files_load) read
 * mountinfo, /proc/swaps and every loop device again per loop device, so its
 * cost grew with the square of their number (30 loop devices: 26 000 system
 * calls at start-up).  A view reads each source once; the rules look it up.
 * It is a snapshot: the kernel's O_EXCL open stays the last word.
 */
#ifndef IOPLAN_ENGINE_SAFETY_SYSVIEW_H
#define IOPLAN_ENGINE_SAFETY_SYSVIEW_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "engine/safety/safety.h"

/* One mountinfo line: the device field 3 names, and the block device its source names (0: none). */
struct sv_mount {
	dev_t dev;
	dev_t src;
	char *where;
};

/* One bound loop device under sys_root/block (its loop/backing_file exists). */
struct sv_loop {
	char name[64];
	dev_t dev;			/* 0 when its dev file did not read */
	char *backing;			/* backing_file's text, "" when it was empty */
	bool bound;			/* backing_file had a line (empty: detached since) */
	bool named;			/* by_name: stat of that text succeeded */
	bool known;			/* by_kernel: LOOP_GET_STATUS64's dev, ino and rdev */
	struct stat by_name, by_kernel;
};

struct sysview {
	const struct safety_env *env;
	struct sv_mount *mounts;
	struct stat *swaps;
	struct sv_loop *loops;
	uint32_t nr_mounts, nr_swaps, nr_loops;
};

/* What a check asks: of block devices, or of regular files (is it swap or a loop device's backing file?). */
enum sv_need { SV_DEVICES, SV_FILES };

/*
 * Reads the loop devices, swaps and mountinfo (for SV_FILES only when a loop
 * device is bound): 0 or -ENOMEM (a missing source is empty).
 */
int sv_load(const struct safety_env *env, struct sysview *v, enum sv_need need);
void sv_free(struct sysview *v);

/* Reads "maj:min" from a sysfs dev file: 0 or -errno. */
int sv_read_dev(const char *path, dev_t *dev);

/* 0 with the mount point of dev in where, or -ENOENT. */
int sv_mounted_at(const struct sysview *v, dev_t dev, char *where, size_t n);

/* 0 when an active swap area is the device or file target, or -ENOENT. */
int sv_is_swap(const struct sysview *v, const struct stat *target);

/* The bound loop device numbered dev, or NULL. */
const struct sv_loop *sv_loop_of(const struct sysview *v, dev_t dev);

/*
 * 0 when the device or file target is the backing store of a bound loop
 * device other than the one numbered skip (its name in loop, its number in
 * *ldev), or -ENOENT.
 */
int sv_backs_a_loop(const struct sysview *v, const struct stat *target, dev_t skip, char *loop, size_t n,
		    dev_t *ldev);

/* Is a path that stat gave a the file sb describes (a block device by its number)? */
bool sv_same_file(const struct stat *a, const struct stat *sb);

#endif
