/*
 * engine/layout/layout.c - checking, creating and filling the plan's files (layout.h).
 *
 * Marking (mark.h): a file ioplan creates gets the xattr user.ioplan, bound
 * to that file and saying how far its layout got; it is marked "partial" the
 * moment it is created and "filled" (or "sized") only once the layout is
 * complete, and re-stamped after each run that wrote it (layout_finish).  A
 * file whose mark is partial, or sized when a job now reads it, is laid out
 * again from its first byte: an interrupted layout must never be read back as
 * if it held data.  Where the file system refuses user xattrs (tmpfs before Linux 6.6, some FUSE and network
 * file systems) nothing else is written - no sidecar file, no header inside the
 * data that the workload would overwrite.  The file still counts as ioplan's own
 * for the rest of this run (we know we just created it), and a note says that a
 * later run will treat it as foreign, so rewriting it then needs
 * allow_existing_file_write.  Erring that way can only refuse, never destroy.
 *
 * Layout follows fio: files read by a job (or written with overwrite=1) are
 * written in full with the first job's write content, random by default
 * (layout_fill.c: 1 MiB writes, O_DIRECT and several in flight when the job
 * is direct and the range is aligned), then
 * synced unless create_fsync=0 (new files of one write in batches, by one
 * syncfs a batch where that is durable: batch_settle); write-only jobs get
 * what fallocate= asks (lay_out_range), since they write the data themselves,
 * and no fsync, as fio's.  A file the preflight found absent is created
 * (O_EXCL, O_NOFOLLOW) without a look first, and one only sized is marked
 * once: 5 system calls a file, as fio's.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "engine/buffers.h"
#include "engine/ioengine.h"
#include "engine/layout/layout.h"
#include "engine/layout/layout_fill.h"
#include "engine/mark.h"
#include "engine/gen/rng.h"
#include "engine/safety/safety.h"

static int fail(struct results *r, const struct layout_file *lf, int err, const char *code,
		const char *why)
{
	res_msg_add(r, RES_MSG_ERROR, code, lf->first_job, "%s: %s", lf->path, why);
	return -err;
}

/* Writes the first job's content over [from, to): the layout proper (layout_fill.c). */
static int fill_range(struct layout *l, const struct layout_file *lf, int fd, bool direct, uint64_t from,
		      uint64_t to, const _Atomic int *stop)
{
	return layout_fill(fd, from, to, direct, lf->job, &l->done, stop);
}

void layout_remember(struct layout_file *lf, const struct stat *st)
{
	lf->seen = true;
	lf->mode = st->st_mode;
	lf->dev = st->st_dev;
	lf->rdev = st->st_rdev;
	lf->size = (uint64_t)st->st_size;
}

/*
 * Opens lf as the layout first found it: relative to its directory's
 * descriptor and not through a symbolic link the user did not name (target.h);
 * a device by its name.  The fd or -errno; the identity is not checked yet.
 */
static int open_target(const struct layout *l, const struct layout_file *lf, int flags)
{
	mode_t mode = lf->made_on_open ? 0600 : 0644;	/* fio's open for I/O, or its layout's */
	int fd;

	if (lf->dir < 0) {
		fd = open(lf->path, flags | O_CLOEXEC, mode);
		return fd < 0 ? -errno : fd;
	}
	return tgt_openat(l->dirs[lf->dir].fd, tgt_base(lf->path), &lf->id, flags, mode);
}

/*
 * 0 when fd is the file the layout found at lf (recorded now for a file it
 * creates); *st gets fd's fstat.
 */
static int check_identity(struct layout_file *lf, int fd, struct results *r, struct stat *st)
{
	char why[512];
	int ret = lf->dir < 0 ? (fstat(fd, st) ? -errno : 0) : tgt_check(fd, &lf->id, why, sizeof(why), st);

	if (lf->dir < 0 && ret)
		snprintf(why, sizeof(why), "%s", strerror(-ret));

	return ret ? fail(r, lf, -ret, "replaced", why) : 0;
}

/*
 * open_target (with O_DIRECT first when *direct, and without it where the
 * file system refuses it: *direct then false); else a message naming the
 * file, except for -EEXIST when quiet (the caller looks at what is there).
 * The fd or -errno; the identity is not checked yet.
 */
static int open_flagged(const struct layout *l, struct layout_file *lf, int flags, bool *direct,
			const char *code, bool quiet, struct results *r)
{
	int fd = *direct ? open_target(l, lf, flags | O_DIRECT) : -EINVAL;

	if (fd == -EINVAL) {
		*direct = false;
		fd = open_target(l, lf, flags);
	}
	if (fd == -EEXIST && quiet)
		return fd;
	if (fd < 0)
		return fail(r, lf, -fd, fd == -ELOOP && !lf->id.follow ? "replaced" : code,
			    tgt_open_error(fd, &lf->id));
	return fd;
}

/* fd when it is the file the layout found (its fstat in *st), else closed and -ESTALE; -errno passes. */
static int checked(struct layout_file *lf, int fd, struct results *r, struct stat *st)
{
	if (fd >= 0 && check_identity(lf, fd, r, st)) {
		close(fd);
		return -ESTALE;
	}
	return fd;
}

/* open_flagged, then the identity checked, with its fstat in *st.  The fd or -errno. */
static int open_checked(const struct layout *l, struct layout_file *lf, int flags, bool *direct,
			const char *code, struct results *r, struct stat *st)
{
	return checked(lf, open_flagged(l, lf, flags, direct, code, false, r), r, st);
}

/*
 * Removes the file this run created on fd, which the layout could not finish:
 * its space goes back, and no file without a mark is left where the user has
 * none.  Its identity is learnt first where the create was not checked yet.
 */
static void give_back(const struct layout *l, struct layout_file *lf, int fd)
{
	char why[8];

	if (!lf->id.known)
		(void)tgt_check(fd, &lf->id, why, sizeof(why), NULL);
	layout_remove(l, lf);
	lf->ours = false;
}

/*
 * The fd or -errno; *direct says whether it is open O_DIRECT.  An existing
 * file, or one that gets data, has its identity checked now (*st its fstat);
 * a file created only to be sized is checked once sized (grow).
 */
static int open_for_layout(const struct layout *l, struct layout_file *lf, uint64_t from, bool create,
			   bool early, bool quiet, struct results *r, bool *direct, struct stat *st)
{
	int flags = O_WRONLY | (create ? O_CREAT | O_EXCL : 0);

	int fd;

	*direct = lf->direct && lf->fill && !(from % 4096) && !(lf->need % 4096);
	fd = open_flagged(l, lf, flags, direct, create ? "create" : "open", quiet, r);
	return early ? checked(lf, fd, r, st) : fd;
}

/*
 * fallocate=: native and keep ignore file systems without support; none and
 * truncate skip it.  1 when the file has its size now, 0 when not, or -ENOSPC.
 */
static int reserve(const struct layout_file *lf, int fd, uint64_t cur)
{
	off_t off = (off_t)cur, len = (off_t)(lf->need - cur);
	int r;

	if (lf->need <= cur)
		return 0;	/* a file that grows as its job writes it */
	switch (lf->fallocate) {
	case PLAN_FALLOCATE_NONE:
	case PLAN_FALLOCATE_TRUNCATE:	/* the size comes from lay_out_range's ftruncate */
		return 0;
	case PLAN_FALLOCATE_POSIX:
		r = posix_fallocate(fd, off, len);
		return r == ENOSPC ? -ENOSPC : !r;
	case PLAN_FALLOCATE_KEEP:
		r = fallocate(fd, FALLOC_FL_KEEP_SIZE, off, len);
		return r && errno == ENOSPC ? -ENOSPC : 0;
	default:
		r = fallocate(fd, 0, off, len);
	}
	return r && errno == ENOSPC ? -ENOSPC : !r;
}

/*
 * An O_DIRECT fill allocates as it writes: fallocate() first would only leave
 * unwritten extents for every write to convert (a quarter slower here), so
 * the free space is checked instead, to fail before writing, as fallocate would.
 */
static int reserve_for_fill(int fd, uint64_t need)
{
	struct statvfs sv;
	struct stat st;

	/* Only growth takes space: a layout done again rewrites blocks the file has. */
	if (fstatvfs(fd, &sv) || fstat(fd, &st) || (uint64_t)st.st_size >= need)
		return 0;
	return (uint64_t)sv.f_bavail * sv.f_frsize < need - (uint64_t)st.st_size ? -ENOSPC : 0;
}

/*
 * Marks a file of ours, whose fstat since its last change is sb (NULL: made
 * here); a file system without user xattrs gets a note, once per file.
 */
static void stamp(struct layout_file *lf, int fd, enum mark_state st, const struct stat *sb,
		  struct results *r)
{
	int ret;

	if (!lf->ours)
		return;
	ret = mark_write_as(fd, st, lf->token, sb);
	if (!ret) {
		lf->mark = st;
	} else if (st == MARK_PARTIAL || !lf->noted) {
		lf->noted = true;
		res_msg_add(r, RES_MSG_NOTE, "no-xattr", lf->first_job,
			    "%s: cannot mark the file as ioplan's (%s); a later run will "
			    "treat it as an existing file", lf->path, strerror(-ret));
	}
}

/*
 * Lays out [cur, need) of the open file: its data (fsynced when sync), or for
 * write-only jobs what fallocate= asks.  As fio's, only fallocate=truncate (or
 * an engine that cannot write past the end, mmap) ftruncates: with none, keep
 * or a file system without fallocate the file grows as the job writes it, so
 * its writes are the appending writes the user asked to measure, and a job
 * stopped early leaves the bytes it wrote.  A file only sized is not synced:
 * no data was written to sync.  A new file written by one write reserves
 * nothing: that write allocates it, and its size never runs ahead of its
 * data.  0 or -errno.
 */
static int lay_out_range(struct layout *l, struct layout_file *lf, int fd, bool direct, uint64_t cur,
			 bool one_write, bool sync, const _Atomic int *stop)
{
	int ret = one_write ? 0 : lf->fill && direct ? reserve_for_fill(fd, lf->need) : reserve(lf, fd, cur);

	if (ret < 0)
		return ret;
	if (lf->fill) {
		ret = fill_range(l, lf, fd, direct, cur, lf->need, stop);
		return !ret && sync && fsync(fd) ? -errno : ret;
	}
	if (ret || (lf->fallocate != PLAN_FALLOCATE_TRUNCATE && !lf->sized))
		return 0;
	return ftruncate(fd, (off_t)lf->need) ? -errno : 0;
}

/* A file whose layout is complete: what it is now, and its mark to say so. */
static void finished(struct layout_file *lf, int fd, const struct stat *st, struct results *r)
{
	layout_remember(lf, st);
	stamp(lf, fd, lf->fill ? MARK_FILLED : MARK_SIZED, st, r);
	lf->laid_out = true;
}

/*
 * File systems whose syncfs makes every file's data durable as its fsync
 * would: ext4, XFS, btrfs, f2fs.  Elsewhere (NFS, CIFS, FUSE servers that
 * lack FUSE_SYNCFS) syncfs may only write back the page cache, so each file
 * keeps its own fsync.
 */
static bool syncfs_is_durable(int dir_fd)
{
	struct statfs sf;

	if (fstatfs(dir_fd, &sf))
		return false;
	switch ((unsigned long)sf.f_type) {
	case 0xEF53UL:		/* ext2/3/4 */
	case 0x58465342UL:	/* XFS */
	case 0x9123683EUL:	/* btrfs */
	case 0xF2F52010UL:	/* f2fs */
		return true;
	default:
		return false;
	}
}

/*
 * A batch's data made durable by one syncfs (its files share a file system),
 * then each file marked filled and closed: ten thousand small files cost one
 * journal commit and cache flush a batch, not one each.  Where syncfs fails
 * (it reports any writeback error on the file system, the user's included),
 * each file is fsynced on its own, so that an error is pinned on its file,
 * which is given back.  0 or the first -errno.
 */
static int batch_settle(struct layout *l, struct results *r)
{
	int all = l->nr_batch && syncfs(l->batch[0].fd) ? -errno : 0, first = 0;

	for (uint32_t i = 0; i < l->nr_batch; i++) {
		struct layout_pending *b = &l->batch[i];
		int ret = all && fsync(b->fd) ? -errno : 0;

		if (ret) {
			give_back(l, b->lf, b->fd);
			ret = fail(r, b->lf, -ret, "layout", strerror(-ret));
			first = first ? first : ret;
		} else {
			finished(b->lf, b->fd, &b->st, r);
		}
		close(b->fd);
	}
	l->nr_batch = 0;
	return first;
}

/* A stop: the batch's files, written but not synced, are removed, as is a file stopped in its one write. */
static void batch_drop(struct layout *l)
{
	for (uint32_t i = 0; i < l->nr_batch; i++) {
		give_back(l, l->batch[i].lf, l->batch[i].fd);
		close(l->batch[i].fd);
	}
	l->nr_batch = 0;
}

/*
 * Keeps the written file open in the batch (st its fstat since written),
 * settling the batch first when the file is on another file system, and after
 * when it is full.  0 or the batch's first -errno (its files' messages given).
 */
static int batch_add(struct layout *l, struct layout_file *lf, int fd, const struct stat *st,
		     struct results *r)
{
	int ret = l->nr_batch && l->batch[0].st.st_dev != st->st_dev ? batch_settle(l, r) : 0;

	l->batch[l->nr_batch++] = (struct layout_pending){ .lf = lf, .fd = fd, .st = *st };
	if (l->nr_batch == l->max_batch) {
		int full = batch_settle(l, r);

		ret = ret ? ret : full;
	}
	return ret;
}

/*
 * How many written files may wait, open, for one syncfs: a quarter of the
 * open-file limit, at most LAYOUT_BATCH; below 16, none (a syncfs saves little
 * then, and the jobs need the descriptors).
 */
static void batch_size(struct layout *l)
{
	struct rlimit rl;
	rlim_t n = getrlimit(RLIMIT_NOFILE, &rl) ? 0 : rl.rlim_cur / 4;

	l->max_batch = 0;
	if (n < 16 || (!l->batch && !(l->batch = malloc(LAYOUT_BATCH * sizeof(*l->batch)))))
		return;
	l->max_batch = n > LAYOUT_BATCH ? LAYOUT_BATCH : (uint32_t)n;
}

/*
 * Writes [cur, need) of the file (creating it when create), then marks it
 * complete.  A file ioplan had already, or one its data is written into by
 * more than one write, is marked partial before anything changes it.  A file
 * created only to be sized is marked once, when it has its size: nothing
 * reads it back as data (its jobs write it), and a run killed in between
 * leaves a file without a mark, which a later run refuses to write (or adopts
 * while it is empty).  A new file that gets all its data in one write is
 * marked once too, when whole, and reserves nothing first: a run killed in
 * that write leaves it empty or holding only what was written, never sized
 * ahead of its data.  Small files, laid out by the ten thousand, so cost two
 * system calls fewer each; on a file system whose syncfs is durable they are
 * synced by the batch (batch_settle) and marked then.  A quiet create gives
 * -EEXIST without a message (look at what is there instead).
 */
static int grow(struct layout *l, struct layout_file *lf, struct results *r, uint64_t cur,
		bool create, bool quiet, const _Atomic int *stop)
{
	bool one_write = create && lf->fill && lf->need <= LAYOUT_FILL_CHUNK;
	bool early = (lf->fill && !one_write) || !create, direct;
	bool batched = one_write && lf->create_fsync && l->max_batch && lf->dir >= 0 && l->dirs[lf->dir].batches;
	struct stat st;
	int fd, ret, said = 0;

	if (create) {
		lf->id = (struct tgt_id){ .single = true };	/* what the create makes is the file from now on */
		lf->token = mark_token(&l->tokens);
	}
	fd = open_for_layout(l, lf, cur, create, early, quiet, r, &direct, &st);
	if (fd < 0)
		return fd;
	if (create)
		lf->ours = lf->made = true;
	if (early)
		stamp(lf, fd, MARK_PARTIAL, &st, r);	/* nothing has changed the file since st */
	ret = lay_out_range(l, lf, fd, direct, cur, one_write, lf->create_fsync && !batched, stop);
	if (!ret && !early)
		said = ret = check_identity(lf, fd, r, &st);	/* the file made has no other name */
	else if (!ret && fstat(fd, &st))
		ret = -errno;
	if (!ret && batched)
		return batch_add(l, lf, fd, &st, r);
	if (!ret)
		finished(lf, fd, &st, r);
	/* A stop keeps a file marked partial for the next run to finish; any
	 * other file this run created and could not finish is removed. */
	if (ret && create && (ret != -EINTR || !early))
		give_back(l, lf, fd);
	close(fd);
	if (ret && ret != -EINTR && !said)
		return fail(r, lf, -ret, ret == -ENOSPC ? "no-space" : "layout", strerror(-ret));
	return ret;
}

/*
 * The same rules as preflight's (the named device by its number, never one in
 * use); the device stays claimed (O_EXCL) until layout_release, so nothing can
 * mount it between this check and the last write.
 */
static int check_device(struct layout_file *lf, const struct stat *st, const struct plan *p,
			struct results *r)
{
	char why[512];
	int fd;

	if (!lf->writes)
		return 0;
	if (safety_check_device_write(&safety_system, p, lf->path, why, sizeof(why)))
		return fail(r, lf, EPERM, "device-write", why);
	if (!S_ISBLK(st->st_mode))
		return 0;	/* a character device has nothing to claim */
	fd = safety_claim_device(lf->path, why, sizeof(why));
	if (fd < 0)
		return fail(r, lf, EPERM, "device-write", why);
	lf->claim_fd = fd;
	return 0;
}

/*
 * Where an existing file of ours must be written from: its first byte when its
 * layout never finished, or when a job reads it and only its size was set;
 * else its end (nothing to do when it is long enough).
 */
static uint64_t layout_from(const struct layout_file *lf, uint64_t size)
{
	if (lf->mark == MARK_PARTIAL || (lf->mark == MARK_SIZED && lf->fill))
		return 0;
	return size;
}

/*
 * A file of ours only sized, that a job reads: one whose every byte a write
 * job has since made data on the disk (layout_extents.c) is as good as a
 * filled one, so it is marked so and read as it is, as fio reads it, instead
 * of being written again whole.
 */
static void adopt_written(struct layout_file *lf, int fd, const struct stat *st, struct results *r)
{
	if (lf->mark == MARK_SIZED && lf->fill && layout_data_whole(fd, (uint64_t)st->st_size))
		stamp(lf, fd, MARK_FILLED, st, r);
}

/*
 * Whether the run writes into lf, a file of ioplan's of this size: its jobs
 * write or trim it, or the layout grows it, rewrites it (a layout never
 * finished, a file only sized that a job reads) or fills an empty one
 * adopted.  Only then is a second name on it someone else's whose data the
 * run would change (tgt_id.single); a file only read may have any number of
 * names (a `cp -al` backup of the directory gives each file two), as in fio.
 */
static bool layout_writes_into(const struct layout_file *lf, uint64_t size, bool adopted)
{
	uint64_t from = layout_from(lf, size);

	return lf->writes || adopted || from < size || from < lf->need;
}

/* An existing regular file: ours, or foreign and left alone unless allowed. */
static int check_existing(struct layout *l, struct layout_file *lf, const struct plan *p,
			  struct results *r, uint64_t size, const _Atomic int *stop)
{
	char why[256] = "";
	uint64_t from;
	struct stat st;
	bool direct = false, adopted = false;
	int fd = open_checked(l, lf, O_RDONLY | O_NONBLOCK | O_NOCTTY, &direct, "open", r, &st), ret;

	if (fd < 0)
		return fd;
	lf->mark = mark_read(fd, why, sizeof(why));
	lf->ours = mark_is_ours(lf->mark);
	if (!lf->ours && lf->appeared)
		snprintf(why, sizeof(why), "it appeared after the preflight found no file there, so "
			 "allow_existing_file_write does not cover it; nothing was written to it");
	if (!lf->ours && layout_adopts_empty(size, lf->need, lf->grows)) {
		lf->ours = adopted = true;
		res_msg_add(r, RES_MSG_NOTE, "adopted-empty-file", lf->first_job,
			    "%s: the existing file was empty; laid out and marked as ioplan's", lf->path);
	}
	ret = check_identity(lf, fd, r, &st);
	if (!ret && lf->ours && !adopted)
		adopt_written(lf, fd, &st, r);
	/* Known only now: a file only sized that writers went over whole is read as it is. */
	lf->id.single = lf->ours && layout_writes_into(lf, size, adopted);
	if (!ret && lf->id.single)
		ret = check_identity(lf, fd, r, &st);
	close(fd);
	if (ret)
		return ret;
	if (!lf->ours && (lf->writes || size < lf->need)) {
		if (!p->allow_existing_file_write || lf->appeared) {
			res_msg_add(r, RES_MSG_ERROR, "existing-file", lf->first_job, "%s: %s%s%s", lf->path,
				    lf->writes ? LAYOUT_FOREIGN_WRITE : LAYOUT_FOREIGN_GROW, *why ? ": " : "", why);
			return -EPERM;
		}
		res_msg_add(r, RES_MSG_NOTE, "existing-file-written", lf->first_job, "%s: %s", lf->path,
			    lf->writes ? LAYOUT_FOREIGN_WRITTEN : LAYOUT_FOREIGN_GROWN);
	}
	from = lf->ours ? layout_from(lf, size) : size;
	if (from < size && lf->need < size)
		lf->need = size;	/* the whole file, so that "filled" holds for all of it */
	if (from >= lf->need && !adopted)
		return 0;	/* an adopted file gets its mark even when nothing is laid out */
	if (lf->fill && from < size)
		atomic_fetch_add(&l->total, size - from);	/* the rewrite, on top of any growth */
	return grow(l, lf, r, from, false, false, stop);
}

/*
 * A directory the layout creates is ioplan's, as its files are: marked, so that
 * dirdelete (and the user) can tell it from theirs.  Where the file system keeps
 * no user xattrs it stays unmarked, as a file would.
 */
static int mark_dir(int fd, void *ctx)
{
	int ret = mark_write(fd, MARK_FILLED);

	(void)ctx;
	return ret == -EOPNOTSUPP || ret == -ENOTSUP ? 0 : ret;
}

/*
 * lf's directory, opened once for all its files when the layout first looks
 * into it; missing directories of a file the job may create are made first,
 * as fio's (filename_format=d/$jobname/$jobnum.bin).
 */
static int open_dir(struct layout *l, const struct layout_file *lf, struct results *r)
{
	struct layout_dir *d = lf->dir < 0 ? NULL : &l->dirs[lf->dir];
	char why[512];
	int fd;

	if (!d || d->fd >= 0)
		return 0;
	fd = tgt_dir_open(lf->path);
	snprintf(why, sizeof(why), "%s", strerror(-fd));
	if (fd == -ENOENT && lf->allow_create && !lf->is_device)
		fd = tgt_dir_make(lf->path, mark_dir, NULL, why, sizeof(why));
	if (fd >= 0 && fstat(fd, &d->st)) {
		int err = -errno;

		close(fd);
		fd = err;
		snprintf(why, sizeof(why), "%s", strerror(-fd));
	}
	if (fd < 0) {
		res_msg_add(r, RES_MSG_ERROR, "missing-directory", lf->first_job,
			    "%s: cannot open directory %s: %s", lf->path, d->path, why);
		return fd;
	}
	d->fd = fd;
	d->batches = syncfs_is_durable(fd);
	return 0;
}

/*
 * Both lists are sorted by path: one walk pairs each file with its entry,
 * where a search for each compared its long shared prefix again and again.
 */
void layout_expect(struct layout *l, const struct tgt_seen *seen, uint32_t n)
{
	uint32_t j = 0;

	l->seen = seen;
	l->nr_seen = n;
	for (uint32_t i = 0; i < l->nr; i++) {
		int c = 1;

		while (j < n && (c = strcmp(seen[j].path, l->files[i].path)) < 0)
			j++;
		l->files[i].preflight_seen = j < n && !c ? j + 1 : 0;
	}
}

const struct tgt_seen *layout_seen_at(const struct layout *l, const struct layout_file *lf)
{
	return l->seen && lf->dir >= 0 && lf->preflight_seen ? &l->seen[lf->preflight_seen - 1] : NULL;
}

/*
 * The layout's first look at lf, whose identity every later open must match,
 * and which must be what the preflight saw.  A device keeps its name (a
 * /dev/disk/by-id link is the usual way to name one).
 */
static int look(const struct layout *l, struct layout_file *lf, struct stat *st, struct results *r)
{
	const struct tgt_seen *s;
	char why[512];
	int ret;

	if (lf->dir < 0)
		ret = stat(lf->path, st) ? -errno : 0;
	else
		ret = tgt_look(l->dirs[lf->dir].fd, tgt_base(lf->path), &lf->id, st);
	if (ret && ret != -ENOENT)
		return fail(r, lf, -ret, "stat", strerror(-ret));
	s = layout_seen_at(l, lf);
	if (!s)
		return ret;
	switch (tgt_seen_same(s, &l->dirs[lf->dir].st, ret, st, &lf->id, why, sizeof(why))) {
	case 0:
		return ret;
	case -EEXIST:
		lf->appeared = true;	/* another ioplan's (mpirun ranks share files), or refused */
		return ret;
	default:
		return fail(r, lf, ESTALE, "replaced", why);
	}
}

/*
 * Did the preflight find nothing at lf's path (not even a dangling link), in
 * the directory lf's descriptor holds?  Then lf is created without a look
 * first: O_CREAT|O_EXCL|O_NOFOLLOW fails on whatever is there now, so only
 * the inode this run makes is written.
 */
static bool unseen(const struct layout *l, const struct layout_file *lf)
{
	const struct tgt_seen *s = layout_seen_at(l, lf);
	char why[512];

	return s && !s->ino && !s->link && !lf->is_device && lf->allow_create && (lf->need || lf->grows) &&
	       !tgt_seen_same(s, &l->dirs[lf->dir].st, -ENOENT, NULL, &lf->id, why, sizeof(why));
}

/*
 * Creates and lays out lf, which is not there.  quiet: the preflight saw
 * nothing there, and a file that appeared since gives -EEXIST without a
 * message, for the caller to look at it as at any existing file.
 */
static int create_missing(struct layout *l, struct layout_file *lf, struct results *r, bool quiet,
			  const _Atomic int *stop)
{
	int ret;

	if (lf->is_device)
		return fail(r, lf, ENOENT, "missing-file", "no such file");
	if (!lf->allow_create || lf->made_by_job)
		return 0;	/* allow_file_create=0: its jobs fail when they open it, as fio's; or filecreate makes it */
	if (!lf->need && !lf->grows)
		return lf->as_found ? 0 : fail(r, lf, EINVAL, "no-size", "file does not exist and no size is given");
	if (layout_defers(lf)) {
		lf->deferred = true;	/* its job's first open makes it (layout_on_open.c) */
		if (!l->tokens)
			(void)mark_token(&l->tokens);	/* the random seed its token comes from */
		return 0;
	}
	ret = grow(l, lf, r, 0, true, quiet, stop);
	if (ret == -EEXIST && quiet) {
		lf->id = (struct tgt_id){ 0 };
		lf->token = 0;
	}
	return ret;
}

static int prepare_one(struct layout *l, struct layout_file *lf, const struct plan *p,
		       struct results *r, const struct safety_files *busy, const _Atomic int *stop)
{
	char why[SAFETY_WHY_MAX];
	struct stat st;
	int ret = open_dir(l, lf, r);

	if (ret)
		return ret;
	if (unseen(l, lf) && (ret = create_missing(l, lf, r, true, stop)) != -EEXIST)
		return ret;
	ret = look(l, lf, &st, r);
	if (ret && ret != -ENOENT)
		return ret;
	if (ret)
		return create_missing(l, lf, r, false, stop);
	layout_remember(lf, &st);
	if (S_ISBLK(st.st_mode) || S_ISCHR(st.st_mode))
		return check_device(lf, &st, p, r);
	/* A FIFO can be read (a stream that waits for its writer); nothing is laid out. */
	if (S_ISFIFO(st.st_mode) && !lf->writes)
		return 0;
	if (!S_ISREG(st.st_mode))
		return fail(r, lf, EINVAL, "not-a-file", "not a regular file or device");
	/* A loop device's backing file or a swap file: no allow_* opens it. */
	if (lf->writes && safety_files_check(busy, lf->path, &st, why, sizeof(why)))
		return fail(r, lf, EBUSY, "file-in-use", why);
	return check_existing(l, lf, p, r, (uint64_t)st.st_size, stop);
}

static uint64_t bytes_to_write(const struct layout *l, uint32_t round)
{
	uint64_t total = 0;
	struct stat st;

	for (uint32_t i = 0; i < l->nr; i++) {
		const struct layout_file *lf = &l->files[i];
		const struct tgt_seen *s;
		uint64_t have = 0;

		if (!lf->fill || lf->is_device || !layout_in_round(lf, round))
			continue;
		/* The preflight's look answers for most: this is the progress line's estimate. */
		s = layout_seen_at(l, lf);
		if (s)
			have = s->ino ? s->size : 0;
		else if (!stat(lf->path, &st))
			have = (uint64_t)st.st_size;
		total += lf->need > have ? lf->need - have : 0;
	}
	return total;
}

int layout_prepare(struct layout *l, const struct plan *p, struct results *r,
		   const _Atomic int *stop, uint32_t round)
{
	struct safety_files *busy = NULL;	/* swap and loop backing files, read once, at the first file */
	int ret = 0, first = 0;

	atomic_store(&l->total, bytes_to_write(l, round));
	batch_size(l);
	for (uint32_t i = 0; i < l->nr; i++) {
		if (!layout_in_round(&l->files[i], round))
			continue;
		/* Between files too: 100 000 small files are minutes of layout on a disk, and no fill. */
		if (stop && atomic_load_explicit(stop, memory_order_relaxed)) {
			ret = -EINTR;
			break;
		}
		if (!busy && (ret = safety_files_load(&safety_system, &busy)))
			return ret;	/* before the round's first file: nothing of it began */
		ret = prepare_one(l, &l->files[i], p, r, busy, stop);
		if (ret == -EINTR)
			break;
		if (ret && !first)
			first = ret;
		if (layout_stop_when_full(l, r, ret, i, round))
			break;
	}
	if (ret == -EINTR)
		batch_drop(l);
	else if ((ret = batch_settle(l, r)) && !first)
		first = ret;
	safety_files_free(busy);
	layout_note_laid_out(l, r, round);
	return ret == -EINTR ? ret : first;
}

/*
 * lf as the run left it, to re-stamp its mark: the fd, or -errno with a
 * warning.  The run's I/O went to the file it opened; one removed, renamed
 * or replaced since is no failure of the run (fio says nothing), but it
 * keeps the mark it had, and the next run judges it by that.
 */
static int open_after_run(const struct layout *l, struct layout_file *lf, struct stat *st, struct results *r)
{
	char why[512];
	int fd = open_target(l, lf, O_RDONLY | O_NONBLOCK | O_NOCTTY);

	if (fd < 0)
		snprintf(why, sizeof(why), "%s", tgt_open_error(fd, &lf->id));
	else if (tgt_check(fd, &lf->id, why, sizeof(why), st)) {
		close(fd);
		fd = -ESTALE;
	}
	if (fd < 0)
		res_msg_add(r, RES_MSG_WARNING, "mark-after-run", lf->first_job,
			    "%s: changed during the run (%s), so its mark was not updated; the run's I/O went to "
			    "the file it had opened", lf->path, why);
	return fd;
}

void layout_finish(struct layout *l, struct results *r)
{
	for (uint32_t i = 0; i < l->nr; i++) {
		struct layout_file *lf = &l->files[i];
		struct stat st;
		int fd;

		if (!lf->ours || !lf->run_writes || lf->is_device || !mark_is_ours(lf->mark))
			continue;
		/* A file replaced under the run keeps its old mark: the next run then refuses it. */
		fd = open_after_run(l, lf, &st, r);
		if (fd < 0)
			continue;
		layout_remember(lf, &st);
		lf->seen_after_run = true;
		/* Trims leave holes that "filled" must not claim. */
		stamp(lf, fd, lf->trims ? MARK_SIZED : lf->mark, &st, r);
		close(fd);
	}
}

int layout_open(const struct layout *l, const char *path, int flags, char *why, size_t n,
		struct stat *st)
{
	/* A file made by this open has its record written here: only its one clone opens it. */
	struct layout_file *lf = l ? layout_find(l, path) : NULL;
	struct tgt_id id;
	int fd, ret;

	snprintf(why, n, "open");
	if (lf && lf->deferred && !lf->id.known && l->dirs[lf->dir].fd >= 0)
		return layout_make_on_open(l, lf, flags, why, n, st);
	if (!lf || lf->dir < 0 || !lf->id.known || l->dirs[lf->dir].fd < 0) {
		fd = open(path, flags | O_CLOEXEC);
		if (fd >= 0 && fstat(fd, st)) {
			ret = -errno;
			close(fd);
			return ret;
		}
		return fd < 0 ? -errno : fd;
	}
	id = lf->id;
	fd = tgt_openat(l->dirs[lf->dir].fd, tgt_base(path), &id, flags, 0);
	if (fd == -ELOOP && !id.follow)
		snprintf(why, n, "%s", tgt_open_error(fd, &id));
	if (fd < 0)
		return fd;
	ret = tgt_check(fd, &id, why, n, st);
	if (ret) {
		close(fd);
		return ret;
	}
	return fd;
}

bool layout_seen(const struct layout *l, const char *path, struct stat *st)
{
	const struct layout_file *lf = l ? layout_find(l, path) : NULL;

	return lf && layout_file_seen(lf, st);
}

bool layout_file_seen(const struct layout_file *lf, struct stat *st)
{
	if (!lf->seen)
		return false;
	memset(st, 0, sizeof(*st));
	st->st_mode = lf->mode;
	st->st_dev = lf->dev;
	st->st_rdev = lf->rdev;
	st->st_size = (off_t)lf->size;
	return true;
}
