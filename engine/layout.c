/*
 * engine/layout.c - checking, creating and filling the plan's files (layout.h).
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
 * written in full with random data (layout_fill.c: 1 MiB writes, O_DIRECT and
 * several in flight when the job is direct and the range is aligned), then
 * fsynced unless create_fsync=0; write-only jobs get the
 * size by ftruncate plus fallocate, since they write the data themselves.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "buffers.h"
#include "ioengine.h"
#include "layout.h"
#include "layout_fill.h"
#include "mark.h"
#include "rng.h"
#include "safety.h"

#define PPM 1000000ull

int res_msg_add(struct results *r, enum res_msg_level level, const char *code, int32_t job_id,
		const char *fmt, ...)
{
	struct res_msg *m;
	char *text = NULL;
	va_list ap;
	int n;

	m = realloc(r->msgs, (r->nr_msgs + 1) * sizeof(*m));
	if (!m)
		return -ENOMEM;
	r->msgs = m;
	va_start(ap, fmt);
	n = vasprintf(&text, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	m = &r->msgs[r->nr_msgs];
	m->level = level;
	m->code = strdup(code);
	m->text = text;
	m->job_id = job_id;
	if (!m->code) {
		free(text);
		return -ENOMEM;
	}
	r->nr_msgs++;
	return 0;
}

/* fio rounds a percentage offset up to offset_align, or else to the smallest block size. */
static uint64_t offset_align(const struct plan_job *j)
{
	uint64_t a = UINT64_MAX;

	if (j->offset_align_bytes)
		return j->offset_align_bytes;
	for (int d = 0; d < PLAN_DDIR_NR; d++)
		if (j->bs[d].min_bytes && j->bs[d].min_bytes < a)
			a = j->bs[d].min_bytes;
	return a == UINT64_MAX ? 1 : a;
}

static uint64_t align_up(uint64_t x, uint64_t a)
{
	return (x / a + (x % a != 0)) * a;
}

void layout_region(const struct plan_job *j, const struct plan_clone *c,
		   const struct plan_file *f, uint64_t actual, uint64_t *start, uint64_t *len)
{
	uint64_t s = c->offset_bytes ? c->offset_bytes : f->offset_bytes, n;

	if (f->offset_ppm && actual)
		s = align_up(actual * f->offset_ppm / PPM + (c->offset_bytes - j->offset_bytes),
			     offset_align(j));
	n = f->region_bytes ? f->region_bytes : f->size_bytes;
	/* fio: filesize= is the file's length, so the region runs from offset= to its end. */
	if (!f->region_bytes && j->filesize_min_bytes && !f->offset_ppm && !f->size_ppm)
		n = n > s ? n - s : 0;
	if (!n && f->size_ppm && actual)
		n = actual * f->size_ppm / PPM;
	if (!n && actual > s)
		n = actual - s;
	if (actual && s + n > actual && (f->size_ppm || f->offset_ppm))
		n = actual > s ? actual - s : 0;
	*start = s;
	*len = n;
}

static int cmp_path(const void *a, const void *b)
{
	return strcmp(((const struct layout_file *)a)->path, ((const struct layout_file *)b)->path);
}

static struct layout_file *find(struct layout *l, const char *path)
{
	struct layout_file key = { .path = path };

	return bsearch(&key, l->files, l->nr, sizeof(key), cmp_path);
}

static void note_use(struct layout_file *lf, const struct plan_job *j, const struct plan_clone *c,
		     const struct plan_file *f, uint32_t job_index)
{
	uint64_t start, len;

	layout_region(j, c, f, 0, &start, &len);
	if (len && !f->size_ppm && !f->offset_ppm && start + len > lf->need)
		lf->need = start + len;
	/* verify_only reads what an earlier run wrote: it neither writes nor lays out data. */
	if (((plan_rw_has_ddir(j->rw, PLAN_DDIR_WRITE) || plan_rw_has_ddir(j->rw, PLAN_DDIR_TRIM)) &&
	     !j->verify_only) || ioe_removes_files(j->ioengine))
		lf->writes = true;
	if (plan_rw_has_ddir(j->rw, PLAN_DDIR_TRIM) && !j->verify_only)
		lf->trims = true;
	/*
	 * A read job with verify= checks what an earlier run wrote, as verify_only
	 * does: laying its file out again would replace that data with new.
	 */
	if ((plan_rw_has_ddir(j->rw, PLAN_DDIR_READ) || j->overwrite) && !j->verify_only &&
	    !(j->verify != PLAN_VERIFY_NONE && !plan_rw_has_ddir(j->rw, PLAN_DDIR_WRITE)))
		lf->fill = true;
	lf->direct = lf->direct || j->direct;
	lf->is_device = lf->is_device || f->is_device;
	lf->allow_create = lf->allow_create && j->allow_file_create;
	lf->last_job = job_index;
}

static uint32_t count_uses(const struct plan *p)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < p->nr_jobs; i++) {
		const struct plan_job *j = plan_job_at(p, i);

		for (uint32_t c = 0; c < j->nr_clones; c++)
			n += j->clones[c].nr_files;
	}
	return n;
}

/* Sorts and merges entries of the same path, keeping the strictest needs. */
static void dedupe(struct layout *l)
{
	uint32_t out = 0;

	qsort(l->files, l->nr, sizeof(*l->files), cmp_path);
	for (uint32_t i = 0; i < l->nr; i++) {
		struct layout_file *a = &l->files[out], *b = &l->files[i];

		if (i && !strcmp(a->path, b->path)) {
			if (b->need > a->need)
				a->need = b->need;
			a->writes |= b->writes;
			a->trims |= b->trims;
			a->fill |= b->fill;
			a->direct |= b->direct;
			a->is_device |= b->is_device;
			a->allow_create &= b->allow_create;
			a->create_fsync |= b->create_fsync;
			a->disk_util |= b->disk_util;
			if (b->last_job > a->last_job)
				a->last_job = b->last_job;
			if (b->first_job < a->first_job)
				a->first_job = b->first_job;
			continue;
		}
		if (i)
			l->files[++out] = *b;
	}
	l->nr = l->nr ? out + 1 : 0;
}

int layout_init(struct layout *l, const struct plan *p)
{
	uint32_t n = count_uses(p), k = 0;

	memset(l, 0, sizeof(*l));
	l->files = calloc(n ? n : 1, sizeof(*l->files));
	if (!l->files)
		return -ENOMEM;
	for (uint32_t i = 0; i < p->nr_jobs; i++) {
		const struct plan_job *j = plan_job_at(p, i);

		if (!ioe_lays_out(j->ioengine))
			continue; /* the null engine touches no file, filecreate makes its own (as fio's) */
		for (uint32_t c = 0; c < j->nr_clones; c++)
			for (uint32_t f = 0; f < j->clones[c].nr_files; f++) {
				struct layout_file *lf = &l->files[k++];

				lf->path = j->clones[c].files[f].path;
				lf->claim_fd = -1;
				lf->allow_create = true;
				lf->first_job = (int32_t)i;
				lf->fallocate = j->fallocate;
				lf->create_fsync = j->create_fsync;
				lf->disk_util = !j->no_disk_util;
				note_use(lf, j, &j->clones[c], &j->clones[c].files[f], i);
			}
	}
	l->nr = k;
	dedupe(l);
	return 0;
}

void layout_release(struct layout *l)
{
	for (uint32_t i = 0; i < l->nr; i++)
		if (l->files[i].claim_fd >= 0)
			close(l->files[i].claim_fd);
	free(l->files);
	l->files = NULL;
	l->nr = 0;
}

static int fail(struct results *r, const struct layout_file *lf, int err, const char *code,
		const char *why)
{
	res_msg_add(r, RES_MSG_ERROR, code, lf->first_job, "%s: %s", lf->path, why);
	return -err;
}

static bool is_direct(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	return fl >= 0 && (fl & O_DIRECT);
}

/* Writes random data over [from, to): the layout proper (layout_fill.c). */
static int fill_range(struct layout *l, int fd, uint64_t from, uint64_t to, const _Atomic int *stop)
{
	return layout_fill(fd, from, to, is_direct(fd), &l->done, stop);
}

static int open_for_layout(const struct layout_file *lf, uint64_t from, bool create)
{
	int flags = O_WRONLY | (create ? O_CREAT | O_EXCL : 0), fd;

	if (lf->direct && lf->fill && !(from % 4096) && !(lf->need % 4096)) {
		fd = open(lf->path, flags | O_DIRECT, 0644);
		if (fd >= 0 || errno != EINVAL)
			return fd;
	}
	return open(lf->path, flags, 0644);
}

/* fallocate=: native and keep ignore file systems without support; none and truncate skip it. */
static int reserve(const struct layout_file *lf, int fd, uint64_t cur)
{
	off_t off = (off_t)cur, len = (off_t)(lf->need - cur);
	int r;

	switch (lf->fallocate) {
	case PLAN_FALLOCATE_NONE:
	case PLAN_FALLOCATE_TRUNCATE:	/* the size comes from the ftruncate every write-only layout does */
		return 0;
	case PLAN_FALLOCATE_POSIX:
		r = posix_fallocate(fd, off, len);
		return r == ENOSPC ? -ENOSPC : 0;
	case PLAN_FALLOCATE_KEEP:
		r = fallocate(fd, FALLOC_FL_KEEP_SIZE, off, len);
		break;
	default:
		r = fallocate(fd, 0, off, len);
	}
	return r && errno == ENOSPC ? -ENOSPC : 0;
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

/* Marks a file of ours; a file system without user xattrs gets a note, once per file. */
static void stamp(struct layout_file *lf, int fd, enum mark_state st, struct results *r)
{
	int ret;

	if (!lf->ours)
		return;
	ret = mark_write(fd, st);
	if (!ret) {
		lf->mark = st;
	} else if (st == MARK_PARTIAL || !lf->noted) {
		lf->noted = true;
		res_msg_add(r, RES_MSG_NOTE, "no-xattr", lf->first_job,
			    "%s: cannot mark the file as ioplan's (%s); a later run will "
			    "treat it as an existing file", lf->path, strerror(-ret));
	}
}

/* Writes [cur, need) of the file (creating it when create), then marks it complete. */
static int grow(struct layout *l, struct layout_file *lf, struct results *r, uint64_t cur,
		bool create, const _Atomic int *stop)
{
	int fd = open_for_layout(lf, cur, create), ret = 0;

	if (fd < 0)
		return fail(r, lf, errno, "create", strerror(errno));
	if (create)
		lf->ours = true;
	stamp(lf, fd, MARK_PARTIAL, r);
	ret = lf->fill && is_direct(fd) ? reserve_for_fill(fd, lf->need) : reserve(lf, fd, cur);
	if (!ret && lf->fill)
		ret = fill_range(l, fd, cur, lf->need, stop);
	if (!ret && !lf->fill && ftruncate(fd, (off_t)lf->need))
		ret = -errno;
	if (!ret && lf->create_fsync && fsync(fd))
		ret = -errno;
	if (!ret)
		stamp(lf, fd, lf->fill ? MARK_FILLED : MARK_SIZED, r);
	close(fd);
	if (ret && ret != -EINTR && create) {
		/* A file this run created and could not finish gives its space back. */
		unlink(lf->path);
		lf->ours = false;
	}
	if (ret && ret != -EINTR)
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

/* An existing regular file: ours, or foreign and left alone unless allowed. */
static int check_existing(struct layout *l, struct layout_file *lf, const struct plan *p,
			  struct results *r, uint64_t size, const _Atomic int *stop)
{
	char why[256] = "";
	uint64_t from;

	lf->mark = mark_read_path(lf->path, why, sizeof(why));
	lf->ours = mark_is_ours(lf->mark);
	if (!lf->ours && layout_adopts_empty(size, lf->need)) {
		lf->ours = true;
		res_msg_add(r, RES_MSG_NOTE, "adopted-empty-file", lf->first_job,
			    "%s: the existing file was empty; laid out and marked as ioplan's", lf->path);
	}
	if (!lf->ours && !p->allow_existing_file_write && (lf->writes || size < lf->need)) {
		res_msg_add(r, RES_MSG_ERROR, "existing-file", lf->first_job, "%s: %s%s%s", lf->path,
			    lf->writes ? LAYOUT_FOREIGN_WRITE : LAYOUT_FOREIGN_GROW, *why ? ": " : "", why);
		return -EPERM;
	}
	from = lf->ours ? layout_from(lf, size) : size;
	if (from < size && lf->need < size)
		lf->need = size;	/* the whole file, so that "filled" holds for all of it */
	if (from >= lf->need)
		return 0;
	if (lf->fill && from < size)
		atomic_fetch_add(&l->total, size - from);	/* the rewrite, on top of any growth */
	return grow(l, lf, r, from, false, stop);
}

static int prepare_one(struct layout *l, struct layout_file *lf, const struct plan *p,
		       struct results *r, const _Atomic int *stop)
{
	struct stat st;

	if (stat(lf->path, &st)) {
		if (errno != ENOENT)
			return fail(r, lf, errno, "stat", strerror(errno));
		if (lf->is_device || !lf->allow_create)
			return fail(r, lf, ENOENT, "missing-file", "no such file");
		if (!lf->need)
			return fail(r, lf, EINVAL, "no-size", "file does not exist and no size is given");
		return grow(l, lf, r, 0, true, stop);
	}
	if (S_ISBLK(st.st_mode) || S_ISCHR(st.st_mode))
		return check_device(lf, &st, p, r);
	/* A FIFO can be read (a stream that waits for its writer); nothing is laid out. */
	if (S_ISFIFO(st.st_mode) && !lf->writes)
		return 0;
	if (!S_ISREG(st.st_mode))
		return fail(r, lf, EINVAL, "not-a-file", "not a regular file or device");
	return check_existing(l, lf, p, r, (uint64_t)st.st_size, stop);
}

static uint64_t bytes_to_write(const struct layout *l)
{
	uint64_t total = 0;
	struct stat st;

	for (uint32_t i = 0; i < l->nr; i++) {
		const struct layout_file *lf = &l->files[i];
		uint64_t have = 0;

		if (!lf->fill || lf->is_device)
			continue;
		if (!stat(lf->path, &st))
			have = (uint64_t)st.st_size;
		total += lf->need > have ? lf->need - have : 0;
	}
	return total;
}

int layout_prepare(struct layout *l, const struct plan *p, struct results *r,
		   const _Atomic int *stop)
{
	int ret, first = 0;

	atomic_store(&l->total, bytes_to_write(l));
	for (uint32_t i = 0; i < l->nr; i++) {
		ret = prepare_one(l, &l->files[i], p, r, stop);
		if (ret == -EINTR)
			return ret;
		if (ret && !first)
			first = ret;
	}
	return first;
}

void layout_finish(struct layout *l, struct results *r)
{
	for (uint32_t i = 0; i < l->nr; i++) {
		struct layout_file *lf = &l->files[i];
		int fd;

		if (!lf->ours || !lf->writes || lf->is_device || !mark_is_ours(lf->mark))
			continue;
		fd = open(lf->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0)
			continue;
		/* Trims leave holes that "filled" must not claim. */
		stamp(lf, fd, lf->trims ? MARK_SIZED : lf->mark, r);
		close(fd);
	}
}

void layout_unlink_job(struct layout *l, const struct plan_job *j, uint32_t job_index)
{
	/* unlink_each_loop: the files go after the job too (loops are not re-created one by one). */
	if (!j->unlink && !j->unlink_each_loop)
		return;
	for (uint32_t c = 0; c < j->nr_clones; c++)
		for (uint32_t f = 0; f < j->clones[c].nr_files; f++) {
			struct layout_file *lf = find(l, j->clones[c].files[f].path);

			if (lf && lf->ours && !lf->is_device && lf->last_job == job_index) {
				unlink(lf->path);
				lf->ours = false;
			}
		}
}
