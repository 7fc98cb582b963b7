/*
 * engine/safety.h - may ioplan write here?  The rules that keep a benchmark from
 * destroying data it was not given (docs/safety.md).
 *
 * Block devices: writing needs the exact device named in allow_device_write,
 * and even then a device that holds a mounted filesystem, has a mounted
 * partition, is active swap, is held by md/dm/LVM, or backs a loop device is refused.  The checks
 * read the live system (/proc/self/mountinfo, /proc/swaps, /sys/dev/block) for
 * a message that names the mount, and ask the kernel (an O_EXCL open) for the
 * holders no file of ours shows; safety_env lets tests point the reads at
 * other roots.
 */
#ifndef IOPLAN_ENGINE_SAFETY_H
#define IOPLAN_ENGINE_SAFETY_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "engine/plan.h"

#ifdef __cplusplus
extern "C" {
#endif

struct safety_env {
	const char *proc_root;		/* "/proc" */
	const char *sys_root;		/* "/sys" */
};

/* The live system. */
extern const struct safety_env safety_system;

/*
 * 0 when the block device dev (major:minor) holds nothing in use; otherwise
 * -EBUSY with the reason in why ("/dev/vda1 is mounted on /", ...).
 */
int safety_device_in_use(const struct safety_env *env, dev_t dev, char *why, size_t n);

/*
 * 0 when plan p may write to the block device at path; -EPERM (not allowed by
 * allow_device_write) or -EBUSY (in use, see above) with the reason in why.
 */
int safety_check_device_write(const struct safety_env *env, const struct plan *p, const char *path,
			      char *why, size_t n);

/*
 * Claims the block device at path exclusively (O_EXCL): the fd, kept open so
 * nothing can mount or assemble it while ioplan writes, or -EBUSY / -errno
 * with the reason in why.
 */
int safety_claim_device(const char *path, char *why, size_t n);

#ifdef __cplusplus
}
#endif

#endif /* IOPLAN_ENGINE_SAFETY_H */
