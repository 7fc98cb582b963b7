/*
 * engine/iosched.h - ioscheduler=: the block devices under a job's files run
 * the I/O scheduler the job names, as fio's switch_ioscheduler, and get back
 * the one they had when the run ends.
 *
 * fio writes the name into the device's queue/scheduler before the job's I/O
 * and leaves it there; a benchmark should not leave the machine changed, so
 * ioplan keeps, per device, the scheduler it found before its first switch
 * and writes it back at the end of the run (iosched_end), however the run
 * ended: done, stopped (SIGINT) or failed.  Only a device whose scheduler
 * ioplan changed is recorded: one found already on the name is left to
 * whoever set it (another rank of an mpirun on the same host, which records
 * and puts it back itself), and one someone else switched during the run is
 * left as they set it.
 *
 * sysfs is one per machine, so the write and its read-back hold a lock of
 * the process, not the run's: two clones switching one device cannot read
 * each other's choice as their own.  The record is one per run (eng_shared).
 */
#ifndef IOPLAN_ENGINE_IOSCHED_H
#define IOPLAN_ENGINE_IOSCHED_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "engine/plan.h"
#include "engine/results.h"

#define IOSCHED_NAME_MAX 64	/* a scheduler's name; the kernel's are under 16 */

/* A device ioplan switched: its whole disk's sysfs directory and the scheduler it had. */
struct iosched_dev {
	char *dir;			/* /sys/devices/.../block/loop0 */
	char was[IOSCHED_NAME_MAX];
	char set[IOSCHED_NAME_MAX];	/* the last name ioplan gave it */
};

/* fio's notes (the switch skipped, not an error), one per job and disk. */
enum iosched_note_kind {
	IOSCHED_NOTE_UNSUPPORTED,	/* no queue/scheduler file: "os or kernel doesn't support" */
	IOSCHED_NOTE_NOT_TUNABLE,	/* it reads "none" alone: "io scheduler is not tunable" */
	IOSCHED_NOTE_NO_DEVICE		/* the file is on no block device (tmpfs, btrfs) */
};

struct iosched_note {
	const struct plan_job *job;
	enum iosched_note_kind kind;
	char *where;			/* the disk's name; NO_DEVICE: the job's file */
};

struct iosched {
	struct iosched_dev *devs;
	uint32_t nr_devs, cap_devs;
	struct iosched_note *notes;
	uint32_t nr_notes, cap_notes;
};

/*
 * Switches the device holding path (a file: its file system's disk, a
 * partition's parent; a block device: itself) to j->ioscheduler.  *last is
 * the device number of the file before (0: none yet): a file on the same
 * device is skipped without touching sysfs, as are character devices and
 * FIFOs (fio switches only files and block devices).  0 when switched or when
 * fio would only note why not (kept for iosched_end); else -errno with why
 * (-EINVAL: the device does not offer the name).
 */
int iosched_switch(struct iosched *s, const struct plan_job *j, const char *path, dev_t *last, char *why,
		   size_t n);

/*
 * At the end of the run: puts every device recorded back to the scheduler
 * it had (a note each, a warning for one that refuses) and adds the notes of
 * the switches skipped to r.  s is left empty.
 */
void iosched_end(struct iosched *s, struct results *r);

void iosched_release(struct iosched *s);

#endif /* IOPLAN_ENGINE_IOSCHED_H */
