/*
 * engine/safety/preflight_direct.c - the preflight's checks of direct=1: whether a
 * target's file system honours O_DIRECT at all (an aligned 4 KiB probe), and
 * whether the job's sizes and offsets fall on the grain it asks for.
 *
 * Apart from preflight.c, which visits the files and calls pf_check_direct for
 * each that a direct=1 job uses, because these rules are O_DIRECT's alone.
 */
#include "engine/safety/preflight.h"
#include "engine/safety/preflight_internal.h"
#include "engine/dioalign.h"
#include "engine/target.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int pf_direct_probe(const char *dir)
{
	char path[PATH_MAX];
	void *buf = NULL;
	struct stat st;
	bool known;
	int fd, ret = 0;

	if (snprintf(path, sizeof(path), "%s/.ioplan-direct-probe.%d", dir, (int)getpid()) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_DIRECT | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	known = !fstat(fd, &st);
	if (!known) {
		ret = -errno;	/* not known, so not removed */
	} else if (posix_memalign(&buf, 4096, 4096)) {
		ret = -ENOMEM;
	} else {
		memset(buf, 0, 4096);
		if (pwrite(fd, buf, 4096, 0) != 4096)
			ret = errno ? -errno : -EIO;
	}
	free(buf);
	close(fd);
	if (known)
		(void)tgt_remove_same(AT_FDCWD, path, st.st_dev, st.st_ino, NULL, 0);
	return ret;
}

/* The first block size, block alignment or offset of j that is not a multiple of align, or 0. */
static uint64_t misaligned(const struct plan_job *j, uint64_t align, const char **what)
{
	for (int d = 0; d < PLAN_DDIR_NR; d++) {
		const struct plan_bs *b = &j->bs[d];

		if (!plan_rw_has_ddir(j->rw, (enum plan_ddir)d))
			continue;
		*what = "bs";
		if (b->min_bytes % align)
			return b->min_bytes;
		if (b->max_bytes % align)
			return b->max_bytes;
		for (uint32_t i = 0; i < b->nr_split; i++)
			if (b->split[i].bs_bytes % align)
				return b->split[i].bs_bytes;
		*what = "blockalign";
		if (b->align_bytes % align)
			return b->align_bytes;
	}
	*what = "offset";
	if (j->offset_bytes % align)
		return j->offset_bytes;
	*what = "offset_increment";
	return j->offset_increment_bytes % align ? j->offset_increment_bytes : 0;
}

/* bs_unaligned=1 with a range (not bssplit) draws sizes of every byte count in it. */
static bool unaligned_range(const struct plan_job *j)
{
	for (int d = 0; d < PLAN_DDIR_NR; d++)
		if (plan_rw_has_ddir(j->rw, (enum plan_ddir)d) && !j->bs[d].nr_split &&
		    j->bs[d].max_bytes > j->bs[d].min_bytes)
			return j->bs_unaligned;
	return false;
}

/*
 * direct=1 transfers must be multiples of what the device (or file system)
 * says, not of an assumed 512.  A block size or offset off that grain fails
 * the job at its first I/O, as fio's does (the reason is said here); a range
 * of any byte count (bs_unaligned) is refused before any I/O, since some of
 * its transfers would land before one fails.  The grain is asked of probe (the
 * file, or the directory a file still to be made goes into); the messages name
 * the file, path.
 */
static void check_dio_alignment(struct pf_state *s, const struct plan_job *j, const char *probe,
				const char *path)
{
	uint32_t mem, off;
	const char *what = "";
	uint64_t bad;

	if (dio_align(probe, &mem, &off) || off <= 1)
		return;
	if (unaligned_range(j)) {
		pf_add(s, RES_MSG_ERROR, "direct-alignment", (int32_t)j->job_id,
		    "job '%s': direct=1 on %s needs sizes in multiples of %u bytes, but bs_unaligned=1 "
		    "draws any size of its block size range", j->name, path, off);
		return;
	}
	bad = misaligned(j, off, &what);
	if (bad)
		pf_add_job_failure(s, "direct-alignment", (int32_t)j->job_id,
		    "job '%s': direct=1 on %s needs sizes and offsets in multiples of %u bytes, "
		    "but %s is %llu", j->name, path, off, what, (unsigned long long)bad);
}

void pf_check_direct(struct pf_state *s, const struct plan_job *j, const char *path, const char *dir,
		     int exists)
{
	int ret = 0, fd;

	if (exists) {
		/* O_NONBLOCK: a FIFO without a writer must not hold the preflight up. */
		fd = open(path, O_RDONLY | O_DIRECT | O_NONBLOCK | O_CLOEXEC);
		ret = fd < 0 ? -errno : 0;
		if (fd >= 0)
			close(fd);
	} else {
		ret = pf_direct_probe(dir);
	}
	if (ret == -EINVAL)
		pf_add_job_failure(s, "direct-unsupported", (int32_t)j->job_id,
		    "job '%s': direct=1, but the filesystem of %s does not honour O_DIRECT (an aligned 4 KiB "
		    "probe got EINVAL); use direct=0 there", j->name, exists ? path : dir);
	else if (ret && ret != -EACCES && ret != -EROFS)
		pf_add(s, RES_MSG_WARNING, "direct-probe", (int32_t)j->job_id,
		    "job '%s': could not probe O_DIRECT in %s: %s", j->name, dir, strerror(-ret));
	else if (!ret && j->ioengine != PLAN_IOENGINE_MMAP)	/* mmap copies: its rule is the page's */
		check_dio_alignment(s, j, exists ? path : dir, path);
}
