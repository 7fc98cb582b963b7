/*
 * engine/ioengines/e4defrag.c - online defragmentation of ext4 files: fio's e4defrag.
 *
 * Each write swaps the block's extents with those of a donor file through
 * EXT4_IOC_MOVE_EXT, as e4defrag(8) does: the data stays, its layout on disk
 * changes.  The donor (donorname=, beside the job's first file) is allocated
 * over the whole file at set-up, or with inplace=1 allocated per I/O and
 * truncated away after it.  Reads are refused with EINVAL, as fio's (the
 * engine never changes data, so only writes are its operation), and so are
 * syncs (fsync=N, fdatasync=N, end_fsync), which fio hands it as I/Os.  The
 * ioctl's layout comes from the kernel's ext4 uapi; glibc has no header for it.
 *
 * Safety: the move gives the donor the file's old blocks, destroying what the
 * donor held.  So the donor is a scratch file (engine/scratch.h): created by
 * this run (shared by every worker naming it, as fio's e4defrag2.fio shares
 * one among clones, and removed when the last one ends), or an existing one
 * only when it is empty.  Any other donor is refused with EEXIST.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/ioengine.h"
#include "engine/scratch.h"

struct e4_move_extent {
	uint32_t reserved;
	uint32_t donor_fd;
	uint64_t orig_start;		/* in filesystem blocks */
	uint64_t donor_start;
	uint64_t len;
	uint64_t moved_len;		/* out */
};

#define E4_IOC_MOVE_EXT _IOWR('f', 15, struct e4_move_extent)

/* Its options (plan_engopts.h): the parser fills one per job from the table below. */
struct e4d_opts {
	char *donor;			/* beside the job's files; required */
	long long inplace;		/* 1: allocate the donor's blocks per I/O and drop them after */
};

static const struct plan_engopt e4d_opts[] = {
	{ .name = "donorname", .type = PLAN_ENGOPT_STRING, .min = 1, .max = 0,
	  .help = "e4defrag: the donor file (in the job's directory) whose blocks replace the file's, required.",
	  .off = offsetof(struct e4d_opts, donor), .required = "the file that lends its blocks" },
	{ .name = "inplace", .type = PLAN_ENGOPT_INT, .def = "0", .min = 0, .max = 1,
	  .help = "e4defrag: 1 allocates the donor's blocks for each I/O and frees them after; 0 allocates them once.",
	  .off = offsetof(struct e4d_opts, inplace) },
};

PLAN_ENGOPTS_DEFINE(e4defrag, struct e4d_opts, e4d_opts);

struct e4d {
	int donor_fd;
	struct scratch_files *scratch;	/* the run's: the donor's last user removes it */
	uint64_t bsz;
	bool inplace;
};

static void e4d_free(struct e4d *d)
{
	scratch_close(d->scratch, d->donor_fd);
	free(d);
}

static int e4d_init(struct ioe *e)
{
	const struct e4d_opts *o = ioe_job_opts(e);
	struct e4d *d;
	char path[PATH_MAX];
	struct stat st;
	uint64_t size = e->cfg.nr_files ? e->cfg.files[0].size_bytes : 0;
	int ret;

	if (!e->cfg.scratch || !o || !o->donor)
		return -EINVAL;	/* no run to share a donor with, or no donor */
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	scratch_path_beside(e->cfg.nr_files ? e->cfg.files[0].path : "", o->donor, path, sizeof(path));
	d->inplace = o->inplace;
	d->scratch = e->cfg.scratch;
	ret = scratch_open(d->scratch, path, &d->donor_fd);
	if (!ret && ((!d->inplace && size && fallocate(d->donor_fd, 0, 0, (off_t)size)) ||
		     fstat(d->donor_fd, &st)))
		ret = -errno;
	if (ret) {
		e4d_free(d);
		return ret;
	}
	d->bsz = st.st_blksize ? (uint64_t)st.st_blksize : 4096;
	e->priv = d;
	return 0;
}

static void e4d_exit(struct ioe *e)
{
	e4d_free(e->priv);
}

/* Moves the extents under u from the donor: bytes moved, or -errno. */
static int64_t e4d_move(struct e4d *d, struct io_u *u)
{
	struct e4_move_extent me = { .donor_fd = (uint32_t)d->donor_fd };
	uint64_t moved;

	me.orig_start = u->offset / d->bsz;
	me.donor_start = me.orig_start;
	me.len = (u->offset + u->len + d->bsz - 1) / d->bsz - me.orig_start;
	if (ioctl(u->fd, E4_IOC_MOVE_EXT, &me))
		return -errno;
	moved = me.moved_len * d->bsz;
	if (!moved)
		return -EINVAL;		/* beyond the file's size, as fio reads it */
	return (int64_t)(moved > u->len ? u->len : moved);
}

static int e4d_queue(struct ioe *e, struct io_u *u)
{
	struct e4d *d = e->priv;

	if (u->ddir != PLAN_DDIR_WRITE) {
		u->result = -EINVAL;
		return IOE_Q_COMPLETED;
	}
	if (d->inplace && fallocate(d->donor_fd, 0, (off_t)u->offset, (off_t)u->len)) {
		u->result = -errno;
		return IOE_Q_COMPLETED;
	}
	u->result = e4d_move(d, u);
	if (d->inplace && ftruncate(d->donor_fd, 0) && u->result >= 0)
		u->result = -errno;
	return IOE_Q_COMPLETED;
}

static int e4d_sync(struct ioe *e, int fd, bool data, bool at_end)
{
	(void)e, (void)fd, (void)data, (void)at_end;
	return -EINVAL;
}

const struct ioe_ops ioe_e4defrag = {
	.id = PLAN_IOENGINE_E4DEFRAG,
	.sync = true,
	.init = e4d_init,
	.exit = e4d_exit,
	.queue = e4d_queue,
	.sync_fd = e4d_sync,
};
