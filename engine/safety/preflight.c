/*
 * engine/safety/preflight.c - the checks of preflight.h over every file of a plan.
 *
 * Files are visited once per path (preflight_seen.c keeps the set).  Free
 * space is summed per filesystem (st_dev of the directory) so that many small
 * files on one disk are compared against that disk's free space together.
 * What a job touches besides its targets is checked in preflight_aux.c.
 */
#include "engine/safety/preflight.h"
#include "engine/safety/preflight_internal.h"
#include "engine/buffers.h"
#include "engine/engine.h"
#include "engine/ioengine.h"
#include "engine/layout/layout.h"
#include "engine/target.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#include <linux/magic.h>
#include <sys/sysinfo.h>
#include <linux/fs.h>
#include <unistd.h>

#define PF_FOREIGN_REMOVE \
	"refusing to remove what ioplan did not create (whatever allow_existing_file_write says: only this " \
	"run's files and directories, or ioplan's marked ones, are removed)"

static struct pf_finding *vadd(struct pf_state *s, enum res_msg_level level, const char *code,
			       int32_t job, const char *fmtstr, va_list ap)
{
	struct pf_finding *f;

	/* Doubling: a finding per file of a big layout stays linear. */
	if (s->r->nr == s->findings_cap) {
		uint32_t cap = s->findings_cap ? s->findings_cap * 2 : 16;

		f = realloc(s->r->findings, cap * sizeof(*f));
		if (!f) {
			s->oom = 1;
			return NULL;
		}
		s->r->findings = f;
		s->findings_cap = cap;
	}
	f = &s->r->findings[s->r->nr];
	memset(f, 0, sizeof(*f));
	if (vasprintf(&f->text, fmtstr, ap) < 0) {
		s->oom = 1;
		return NULL;
	}
	s->r->nr++;
	f->level = level;
	f->job_id = job;
	snprintf(f->code, sizeof(f->code), "%s", code);
	return f;
}

void pf_add(struct pf_state *s, enum res_msg_level level, const char *code, int32_t job,
		const char *fmtstr, ...)
{
	va_list ap;

	va_start(ap, fmtstr);
	if (vadd(s, level, code, job, fmtstr, ap) && level == RES_MSG_ERROR)
		s->r->nr_errors++;
	va_end(ap);
}

/*
 * An error of one job that fio finds only when the job starts (its report
 * then carries the job's error, and the other jobs run): an error finding
 * that does not stop the run, since the engine fails that job the same way.
 */
void pf_add_job_failure(struct pf_state *s, const char *code, int32_t job, const char *fmtstr, ...)
{
	struct pf_finding *f;
	va_list ap;

	va_start(ap, fmtstr);
	f = vadd(s, RES_MSG_ERROR, code, job, fmtstr, ap);
	va_end(ap);
	if (f)
		f->job_fails = true;
}

static void dir_of(const char *path, char *dir, size_t n)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		snprintf(dir, n, ".");
	else if (slash == path)
		snprintf(dir, n, "/");
	else
		snprintf(dir, n, "%.*s", (int)(slash - path), path);
}

/* Size of an existing regular file or block device: 0 with *size set, or -errno. */
static int existing_size(const char *path, const struct stat *sb, uint64_t *size)
{
	int fd, ret = 0;

	*size = 0;
	if (S_ISREG(sb->st_mode))
		*size = (uint64_t)sb->st_size;
	if (!S_ISBLK(sb->st_mode))
		return 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (ioctl(fd, BLKGETSIZE64, size))
		ret = -errno;
	close(fd);
	return ret;
}

/* verify_only reads back what rw= once wrote: it writes nothing (as layout.c counts it). */
static int job_writes(const struct plan_job *j)
{
	/* An engine that deletes the files destroys them as surely as a write. */
	return ioe_removes_files(j->ioengine) ||
	       (!j->verify_only &&
		(plan_rw_has_ddir(j->rw, PLAN_DDIR_WRITE) || plan_rw_has_ddir(j->rw, PLAN_DDIR_TRIM)));
}

/*
 * Sizes and their sums stop at UINT64_MAX rather than wrap: 1024 clones of
 * size=16p came to 2^64 bytes, summed to 0, and passed the free-space check
 * (every layout then failed with ENOSPC); and a share of a file over 18 TB
 * (existing * ppm) wrapped to a few terabytes.
 */
static uint64_t add_sat(uint64_t a, uint64_t b)
{
	uint64_t sum;

	return __builtin_add_overflow(a, b, &sum) ? UINT64_MAX : sum;
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/*
 * Bytes the file's region needs: its size, or its share of an existing size,
 * past its offset (file_append's: the file's end); with filesize=, that size.  The sizes before the run:
 * what earlier jobs lay out is the layout's to check (layout_resolve).
 */
static uint64_t clone_needed_bytes(const struct plan_job *j, const struct plan_clone *c, const struct plan_file *f,
				   uint64_t existing)
{
	uint64_t size = f->size_bytes ? f->size_bytes : plan_share_ppm(existing, f->size_ppm);
	uint64_t off = f->offset_bytes ? f->offset_bytes : plan_share_ppm(existing, f->offset_ppm);

	/* clone k's offset_increment: its region starts k increments on (layout_set.c's region_start) */
	if (c && c->offset_bytes > j->offset_bytes)
		off = add_sat(off, c->offset_bytes - j->offset_bytes);

	if (ioe_files_as_found(j) || (ioe_files_made_on_open(j) && !f->is_device))
		return 0;	/* nothing is laid out: the file is used as it is (or made empty) */
	if (j->file_append && !f->is_device)
		off = existing;
	/* size=N% of a file ends at its end past offset=, as fio's setup_files caps it
	 * (size=100% offset=50% reads the file's second half): no need to extend it */
	if (!f->size_bytes && f->size_ppm && size > existing - (off < existing ? off : existing))
		size = off < existing ? existing - off : 0;
	/* filesize= is the file's length, offset= inside it (layout_region_found): the file
	 * needs that length, not the two summed (an existing file of filesize= was refused
	 * as too small for offset=64k filesize=128k, which fio reads from 64k to 128k) */
	if (j->filesize_min_bytes && !f->region_bytes && !f->size_ppm && off < size)
		return size;

	return add_sat(size, off);
}

static uint64_t needed_bytes(const struct plan_job *j, const struct plan_file *f, uint64_t existing)
{
	return clone_needed_bytes(j, NULL, f, existing);
}

static void account_space(struct pf_state *s, const char *dir, const struct stat *dsb, uint64_t bytes)
{
	uint32_t i;

	for (i = 0; i < s->nr_fs; i++)
		if (s->fs[i].dev == dsb->st_dev)
			break;
	if (i == s->nr_fs) {
		if (s->nr_fs == PF_MAX_FS)
			return;
		s->fs[i].dev = dsb->st_dev;
		snprintf(s->fs[i].dir, sizeof(s->fs[i].dir), "%s", dir);
		s->nr_fs++;
	}
	s->fs[i].need = add_sat(s->fs[i].need, bytes);
	s->r->bytes_to_lay_out = add_sat(s->r->bytes_to_lay_out, bytes);
}

/*
 * An existing regular file without ioplan's mark is the user's: writing into it,
 * or extending it for a read job, is refused here, before any I/O, unless the
 * plan allows it.  Layout checks again; this makes the refusal bad input (exit 2)
 * found with the other preflight findings instead of a failed run.
 */
static int foreign_file_refused(struct pf_state *s, const struct plan_job *j, const char *path, int grows)
{
	char why[256] = "";
	bool removes = ioe_removes_files(j->ioengine);

	/* allow_existing_file_write lets a job write a user's file, never remove it. */
	if ((s->p->allow_existing_file_write && !removes) || (!job_writes(j) && !grows) ||
	    mark_is_ours(mark_read_path(path, why, sizeof(why))))
		return 0;
	pf_add(s, RES_MSG_ERROR, "existing-file", (int32_t)j->job_id, "job '%s': %s: %s%s%s", j->name, path,
	    removes ? PF_FOREIGN_REMOVE : job_writes(j) ? LAYOUT_FOREIGN_WRITE : LAYOUT_FOREIGN_GROW,
	    *why ? ": " : "", why);
	return 1;
}

/*
 * dirdelete removes its directories: one that exists now is removed only when
 * it is ioplan's (dircreate marks what it makes); a user's is kept, and the
 * job refused before anything is removed.  A symbolic link there (to
 * nothing or not) is no directory ioplan made either: its rmdir failed
 * mid-run with a bare "Operation not permitted", exit 1.
 */
static void check_dir_removal(struct pf_state *s, const struct plan_job *j, const struct plan_file *f)
{
	char why[256] = "", to[PATH_MAX];
	struct stat sb;
	ssize_t len;

	if (!lstat(f->path, &sb) && S_ISLNK(sb.st_mode)) {
		len = readlink(f->path, to, sizeof(to) - 1);
		to[len < 0 ? 0 : len] = '\0';
		pf_add(s, RES_MSG_ERROR, "existing-file", (int32_t)j->job_id, "job '%s': %s is a symbolic link "
		    "to %s: dirdelete removes only directories ioplan made, never a link", j->name, f->path, to);
		return;
	}
	if (lstat(f->path, &sb) || !S_ISDIR(sb.st_mode) || mark_is_ours(mark_read_path(f->path, why, sizeof(why))))
		return;
	pf_add(s, RES_MSG_ERROR, "existing-file", (int32_t)j->job_id, "job '%s': %s: %s%s%s", j->name, f->path,
	    PF_FOREIGN_REMOVE, *why ? ": " : "", why);
}

/*
 * The swap files and loop backing files, read when the first regular file a
 * job writes is looked at: a run without one (the null engine's) never reads
 * /sys/block and /proc/swaps.
 */
static const struct safety_files *busy_files(struct pf_state *s)
{
	if (!s->busy_read) {
		s->busy_read = true;
		if (safety_files_load(s->env, &s->busy))
			s->oom = 1;
	}
	return s->busy;
}

/*
 * A test file of ioplan's (marked) that gained another name (`ln`, a `cp -al`
 * backup of its directory) and that this job would write into: it writes or
 * trims it, the layout grows it, or rewrites one whose layout never finished.
 * The write would change what the other name holds, so the layout refused it
 * (tgt_id.single), but only at run time, exit 1, after earlier jobs ran; it is
 * refused here with the other findings, before any I/O.  A file only read may
 * have any number of names (fio reads it too).  The layout keeps its own check
 * for what only it can tell (a file only sized that a read job fills).
 */
static int other_names_refused(struct pf_state *s, const struct plan_job *j, const char *path,
			       const struct stat *sb, bool grows)
{
	char why[256];
	enum mark_state m;

	if (!S_ISREG(sb->st_mode) || sb->st_nlink < 2)
		return 0;
	m = mark_read_path(path, why, sizeof(why));
	if (!mark_is_ours(m) || !(job_writes(j) || grows || m == MARK_PARTIAL))
		return 0;
	pf_add(s, RES_MSG_ERROR, "other-names", (int32_t)j->job_id, "job '%s': %s: ioplan made this file with one "
	    "name, and it now has %llu (another name reaches its data, which the job would change): refusing to "
	    "write into it (remove the other name, or copy the file)", j->name, path,
	    (unsigned long long)sb->st_nlink);
	return 1;
}

/* 0 when the job may go on with this existing file or device. */
static int check_existing(struct pf_state *s, const struct plan_job *j, const struct plan_file *f,
			  const struct stat *sb, uint64_t most)
{
	char why[SAFETY_WHY_MAX];
	uint64_t have, need;
	bool grows;
	int ret;

	if ((S_ISBLK(sb->st_mode) || S_ISCHR(sb->st_mode)) && job_writes(j) && safety_check_device_write(s->env, s->p, f->path, why, sizeof(why))) {
		pf_add(s, RES_MSG_ERROR, "device-write", (int32_t)j->job_id, "job '%s': %s", j->name, why);
		return -EPERM;
	}
	ret = existing_size(f->path, sb, &have);
	if (ret) {
		pf_add(s, RES_MSG_ERROR, "cannot-open", (int32_t)j->job_id, "job '%s': cannot open %s: %s", j->name,
		    f->path, strerror(-ret));
		return ret;
	}
	/* Whatever allow_existing_file_write says: the loop device may hold a mounted file system. */
	if (S_ISREG(sb->st_mode) && job_writes(j) && safety_files_check(busy_files(s), f->path, sb, why, sizeof(why))) {
		pf_add(s, RES_MSG_ERROR, "file-in-use", (int32_t)j->job_id, "job '%s': %s", j->name, why);
		return -EBUSY;
	}
	need = max_u64(needed_bytes(j, f, have), most);
	grows = plan_fills_device(j) || ioe_files_made_on_open(j);
	if (S_ISREG(sb->st_mode) && !layout_adopts_empty(have, need, grows) &&
	    foreign_file_refused(s, j, f->path, need > have))
		return -EPERM;
	if (other_names_refused(s, j, f->path, sb, need > have))
		return -EPERM;
	if (S_ISBLK(sb->st_mode) && need > have)
		pf_add(s, RES_MSG_ERROR, "beyond-end", (int32_t)j->job_id,
		    "job '%s': the I/O range ends at byte %llu, but %s has %llu bytes", j->name,
		    (unsigned long long)need, f->path, (unsigned long long)have);
	if (S_ISREG(sb->st_mode) && need > have)
		account_space(s, f->path, sb, need - have);
	return 0;
}

/* Is the block device dev a RAM disk (zram, brd's ramN), or a partition of one? */
static bool ram_disk(const struct safety_env *env, dev_t dev)
{
	char link[512], target[PATH_MAX];
	const char *name;

	snprintf(link, sizeof(link), "%s/dev/block/%u:%u", env->sys_root, major(dev), minor(dev));
	if (!realpath(link, target))
		return false;
	name = strstr(target, "/block/");
	name = name ? name + 7 : "";
	return !strncmp(name, "zram", 4) || (!strncmp(name, "ram", 3) && name[3] >= '0' && name[3] <= '9');
}

/* What keeps the data of a file system of this type on device dev in memory, or NULL. */
static const char *fs_in_memory(const struct safety_env *env, long type, dev_t dev)
{
	if (type == TMPFS_MAGIC)
		return "tmpfs";
	if (type == RAMFS_MAGIC)
		return "ramfs";
	if (type == HUGETLBFS_MAGIC)
		return "hugetlbfs";
	return major(dev) && ram_disk(env, dev) ? "a file system on a RAM disk" : NULL;
}

/* What keeps path's data in memory (tmpfs, ramfs, a RAM disk), or NULL. */
static const char *memory_backed(struct pf_state *s, const char *path, const struct stat *sb)
{
	struct statfs fs;
	struct stat st;

	if (sb && S_ISBLK(sb->st_mode))
		return ram_disk(s->env, sb->st_rdev) ? "a RAM disk" : NULL;
	if (sb && !S_ISREG(sb->st_mode) && !S_ISDIR(sb->st_mode))
		return NULL;	/* /dev/null lives on devtmpfs: the node's file system says nothing of its data */
	if (sb)
		st = *sb;
	else if (stat(path, &st))
		return NULL;
	if (s->mem_cached && st.st_dev == s->mem_dev)
		return s->mem_what;
	if (statfs(path, &fs))
		return NULL;
	s->mem_what = fs_in_memory(s->env, (long)fs.f_type, st.st_dev);
	s->mem_dev = st.st_dev;
	s->mem_cached = true;
	return s->mem_what;
}

/*
 * A file system without a backing device answers from memory whatever the
 * job asks - since Linux 6.6 tmpfs even takes O_DIRECT - so the results
 * measure memory: said once per job, in the findings every output carries.
 */
static void check_memory(struct pf_state *s, const struct plan_job *j, const char *path, const struct stat *sb)
{
	const char *what;

	if (s->memory_job == j->job_id + 1 || !(what = memory_backed(s, path, sb)))
		return;
	s->memory_job = j->job_id + 1;
	pf_add(s, RES_MSG_WARNING, "memory-backed", (int32_t)j->job_id,
	    "job '%s': %s is on %s, which keeps its data in memory: the results measure memory, not "
	    "storage%s", j->name, path, what, j->direct ? " (direct=1 does not change that)" : "");
}

static const char *kind_of(mode_t m)
{
	return S_ISDIR(m) ? "a directory" : S_ISSOCK(m) ? "a socket" : S_ISFIFO(m) ? "a FIFO"
	       : S_ISCHR(m) ? "a character device" : S_ISBLK(m) ? "a block device" : "a regular file";
}

/* A FIFO or a terminal: no offsets, and a read that waits for someone else. */
static bool is_stream(const char *path, mode_t m)
{
	int fd;
	bool tty;

	if (S_ISFIFO(m))
		return true;
	if (!S_ISCHR(m))
		return false;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	tty = fd >= 0 && isatty(fd);
	if (fd >= 0)
		close(fd);
	return tty;
}

/*
 * What an existing path that is not a regular file or block device allows: a
 * directory or socket is no target at all, a FIFO is read but never written,
 * a stream (FIFO, terminal) is read by io_uring only, and a FIFO or a
 * character device has no size of its own, so without size= the job would
 * never end (fio: "you need to specify size=").
 */
static int check_kind(struct pf_state *s, const struct plan_job *j, const struct plan_file *f,
		      const struct stat *sb)
{
	mode_t m = sb->st_mode;

	if (S_ISDIR(m) || S_ISSOCK(m)) {
		pf_add(s, RES_MSG_ERROR, "not-a-file", (int32_t)j->job_id,
		    "job '%s': %s is %s, not a file or device to do I/O on%s", j->name, f->path,
		    kind_of(m), S_ISDIR(m) ? " (directory= names where the files go)" : "");
		return -EINVAL;
	}
	if (S_ISFIFO(m) && job_writes(j)) {
		pf_add(s, RES_MSG_ERROR, "fifo-write", (int32_t)j->job_id,
		    "job '%s': %s is a FIFO: ioplan reads FIFOs but does not write them", j->name,
		    f->path);
		return -EINVAL;
	}
	if (is_stream(f->path, m) && j->ioengine != PLAN_IOENGINE_IO_URING) {
		pf_add(s, RES_MSG_ERROR, "stream-engine", (int32_t)j->job_id,
		    "job '%s': %s is %s: only ioengine=io_uring reads it (psync's pread cannot, and "
		    "libaio would wait inside io_submit, where no signal reaches)", j->name, f->path,
		    S_ISFIFO(m) ? "a FIFO" : "a terminal");
		return -EINVAL;
	}
	if ((S_ISFIFO(m) || S_ISCHR(m)) && !f->size_bytes && !f->region_bytes) {
		pf_add(s, RES_MSG_ERROR, "no-size", (int32_t)j->job_id,
		    "job '%s': %s is %s, which has no size: the job needs size=", j->name, f->path,
		    kind_of(m));
		return -EINVAL;
	}
	return 0;
}

/*
 * A file to create needs a directory to create it in (err: its stat's errno).
 * Missing directories of a file the job may create are made by the layout, as
 * fio's, beneath the longest part that exists: dir becomes that part, where
 * the checks look.
 */
static int check_dir(struct pf_state *s, const struct plan_job *j, const struct plan_file *f,
		     char *dir, size_t n, int err, struct stat *dsb)
{
	size_t at;

	if (err == ENOENT && j->allow_file_create) {
		err = -tgt_dir_existing(f->path, dir, n, &at);
		if (err == EPERM) {
			pf_add(s, RES_MSG_ERROR, "missing-directory", (int32_t)j->job_id,
			    "job '%s': a directory of %s does not exist, and ioplan creates missing "
			    "directories only beneath existing ones, not through \"..\"", j->name, f->path);
			return -EPERM;
		}
		err = err ? err : stat(dir, dsb) ? errno : 0;
	}
	if (err == ENOENT) {
		pf_add(s, RES_MSG_ERROR, "missing-directory", (int32_t)j->job_id,
		    "job '%s': directory %s does not exist (for %s)", j->name, dir, f->path);
		return -ENOENT;
	}
	if (err) {
		pf_add(s, RES_MSG_ERROR, "missing-directory", (int32_t)j->job_id,
		    "job '%s': cannot use directory %s (for %s): %s", j->name, dir, f->path,
		    strerror(err));
		return -err;
	}
	if (!S_ISDIR(dsb->st_mode)) {
		pf_add(s, RES_MSG_ERROR, "not-a-directory", (int32_t)j->job_id,
		    "job '%s': %s is %s, not a directory (for %s)", j->name, dir,
		    kind_of(dsb->st_mode), f->path);
		return -ENOTDIR;
	}
	return 0;
}

/*
 * Is dev a devtmpfs (the kernel's /dev)?  A file to be created there is a
 * mistyped device name (/dev/sdz for /dev/sdb): it would be laid out in RAM and
 * benchmarked as if it were the disk.
 */
static bool on_devtmpfs(struct pf_state *s, dev_t dev)
{
	FILE *mi;
	char line[4096];
	bool found = false;

	if (s->devtmpfs_known && s->devtmpfs_dev == dev)
		return s->devtmpfs;	/* one read of mountinfo per directory's device, not per file */
	mi = fopen("/proc/self/mountinfo", "re");
	if (!mi)
		return false;
	while (!found && fgets(line, sizeof(line), mi)) {
		unsigned maj, min;
		const char *sep = strstr(line, " - ");

		if (sscanf(line, "%*u %*u %u:%u", &maj, &min) == 2 && sep &&
		    makedev(maj, min) == dev && strncmp(sep + 3, "devtmpfs ", 9) == 0)
			found = true;
	}
	fclose(mi);
	s->devtmpfs_known = true;
	s->devtmpfs_dev = dev;
	s->devtmpfs = found;
	return found;
}

/*
 * A target that is a symbolic link to nothing (or one of a loop of links):
 * the layout makes no file through a link, and its O_EXCL create failed at
 * the start of the job with a bare "File exists" for a name that shows no
 * file; filecreate's create said "No such file or directory", dircreate's
 * mkdir "File exists".  Said now, with where it points, and what fio 3.33
 * does instead (lays_out: removes the link and lays out a new file under its
 * name; filecreate: creates the file the link names).  True when refused.
 */
static bool dangling_link(struct pf_state *s, const struct plan_job *j, const struct plan_file *f)
{
	bool dirs = j->ioengine == PLAN_IOENGINE_DIRCREATE || j->ioengine == PLAN_IOENGINE_DIRSTAT;
	const char *fio = ioe_lays_out(j->ioengine) ? " (fio 3.33 would replace the link with a new file)"
			  : j->ioengine == PLAN_IOENGINE_FILECREATE ? " (fio 3.33 would create the file it names)"
			  : "";
	char to[PATH_MAX];
	struct stat ls;
	ssize_t len;
	int err;

	if (lstat(f->path, &ls) || !S_ISLNK(ls.st_mode))
		return false;
	err = stat(f->path, &ls) ? errno : 0;
	if (err != ENOENT && err != ELOOP)
		return false;
	len = readlink(f->path, to, sizeof(to) - 1);
	to[len < 0 ? 0 : len] = '\0';
	pf_add(s, RES_MSG_ERROR, "dangling-link", (int32_t)j->job_id,
	    "job '%s': %s is a symbolic link to %s, which %s: ioplan makes no %s through a link%s; create "
	    "the %s it names, or name another", j->name, f->path, to,
	    err == ELOOP ? "is a loop of links" : "does not exist", dirs ? "directory" : "file", fio,
	    dirs ? "directory" : "file");
	return true;
}

/*
 * A target whose name is a link another user put in a shared sticky directory
 * (safety_planted_link): ioplan follows a link the user named, and this one
 * the user did not.  Where fs.protected_symlinks is off, filename=/tmp/t laid
 * out through such a link to an empty file of root's, or wrote a test file of
 * ioplan's elsewhere.  link: the name itself was seen to be one (else only the
 * directory's parts are walked, often none: safety_output.c's settled one).
 * True when refused.
 */
static bool planted_target(struct pf_state *s, const struct plan_job *j, const struct plan_file *f, bool link)
{
	char why[SAFETY_WHY_MAX];

	if (!(link ? safety_planted_link : safety_planted_way)(f->path, why, sizeof(why)))
		return false;
	pf_add(s, RES_MSG_ERROR, "planted-link", (int32_t)j->job_id, "job '%s': %s: %s", j->name, f->path, why);
	return true;
}

/*
 * A name a metadata engine makes, stats or removes itself (filecreate,
 * dircreate, dirstat, dirdelete): nothing is laid out, but the same links are
 * refused as for a target laid out.  A link another user put in a shared
 * sticky directory is not the user's; a link to nothing is no name to make an
 * entry through (filecreate failed mid-run: "lnk: create: No such file or
 * directory", exit 1; dircreate: "File exists").  dirdelete's links are
 * check_dir_removal's.
 */
static void check_entry(struct pf_state *s, const struct plan_job *j, const struct plan_file *f)
{
	if (planted_target(s, j, f, true) || ioe_removes_files(j->ioengine))
		return;
	(void)dangling_link(s, j, f);
}

/* most: what the farthest use of f's path needs (pf_run), at least f's own. */
static void check_file(struct pf_state *s, const struct plan_job *j, const struct plan_file *f, uint64_t most)
{
	char dir[PATH_MAX];
	struct stat sb, dsb;
	int exists, dir_err;
	bool link;

	if (j->ioengine == PLAN_IOENGINE_DIRDELETE)
		check_dir_removal(s, j, f);
	if (ioe_names_entries(j->ioengine)) {
		check_entry(s, j, f);
		return;
	}
	if (!ioe_lays_out(j->ioengine))
		return; /* no I/O reaches the files */
	dir_of(f->path, dir, sizeof(dir));
	dir_err = pf_look_dir(s, dir, &dsb);
	exists = pf_note_seen(s, f->path, dir_err ? NULL : &dsb, &sb, &link);
	if (planted_target(s, j, f, link))
		return;
	if (!exists && link && dangling_link(s, j, f))
		return;
	if (!exists && check_dir(s, j, f, dir, sizeof(dir), dir_err, &dsb))
		return;
	if (exists) {
		if (check_kind(s, j, f, &sb) || check_existing(s, j, f, &sb, most))
			return;
	} else if (ioe_files_as_found(j)) {
		/* fio's job fails at the file's stat; this one fails before it starts */
		pf_add_job_failure(s, "missing-file", (int32_t)j->job_id,
		    "job '%s': %s does not exist, and with create_on_open=1 %s works on the files as "
		    "they are", j->name, f->path, plan_ioengine_name(j->ioengine));
		return;
	} else if (!j->allow_file_create) {
		pf_add_job_failure(s, "missing-file", (int32_t)j->job_id,
		    "job '%s': %s does not exist and allow_file_create=0", j->name, f->path);
		return;
	} else if (plan_file_drawn_empty(j, f) && !plan_rw_has_ddir(j->rw, PLAN_DDIR_WRITE)) {
		/* fio's open of a job that only reads or trims has no O_CREAT: the job fails there */
		pf_add_job_failure(s, "missing-file", (int32_t)j->job_id,
		    "job '%s': %s does not exist, and its size drawn from filesize=%llu-%llu is under one "
		    "block (0 bytes): no file is made for the job to read (fio: ENOENT at its open)",
		    j->name, f->path, (unsigned long long)j->filesize_min_bytes,
		    (unsigned long long)j->filesize_max_bytes);
		return;
	} else if (!f->size_bytes && !plan_fills_device(j) && !plan_file_drawn_empty(j, f)) {
		pf_add(s, RES_MSG_ERROR, "no-size", (int32_t)j->job_id,
		    "job '%s': %s does not exist and the job has no size= to create it", j->name, f->path);
		return;
	} else if (on_devtmpfs(s, dsb.st_dev)) {
		pf_add(s, RES_MSG_ERROR, "devtmpfs-file", (int32_t)j->job_id,
		    "job '%s': %s does not exist, and a test file is never created in %s (devtmpfs: memory, "
		    "not a disk); is the device name mistyped?", j->name, f->path, dir);
		return;
	} else if (!plan_fills_device(j)) {
		account_space(s, dir, &dsb, max_u64(needed_bytes(j, f, 0), most));	/* fill_device writes until it is full */
	}
	if (!ioe_opens_files(j->ioengine))
		return; /* metadata engines: no data is read, so neither O_DIRECT nor the page cache matters */
	if (j->direct)
		pf_check_direct(s, j, f->path, dir, exists);
	check_memory(s, j, exists ? f->path : dir, exists ? &sb : &dsb);
	if (!j->direct && plan_rw_has_ddir(j->rw, PLAN_DDIR_READ) && (!exists || S_ISREG(sb.st_mode))) {
		uint64_t have = 0;

		if (exists)
			existing_size(f->path, &sb, &have);
		s->buffered_read_bytes = add_sat(s->buffered_read_bytes, needed_bytes(j, f, have));
	}
}


static uint64_t mem_available(const struct safety_env *env)
{
	char path[512], line[256];
	unsigned long long kib = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/meminfo", env->proc_root);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %llu kB", &kib) == 1)
			break;
	fclose(f);
	return (uint64_t)kib * 1024;
}

#define FD_BASE 32u		/* stdio, the output file, /proc and /sys reads, a FIFO probe */
#define FD_PER_THREAD 2u	/* an io_uring ring, a file opened for a while (pre_read) */

/* Descriptors one job keeps open at once: each thread's files (openfiles) and
 * its own.  A create_only job only lays its files out, one open at a time. */
static uint64_t job_fds(const struct plan_job *j)
{
	uint32_t nf = j->nr_clones ? j->clones[0].nr_files : 0;

	if (!ioe_opens_files(j->ioengine))
		return 0;
	if (j->create_only)
		nf = 1;
	if (j->openfiles && j->openfiles < nf && !j->interlocked)
		nf = j->openfiles;
	return (uint64_t)j->nr_clones * (nf + FD_PER_THREAD);
}

/*
 * The jobs between two stonewalls run at once, so their descriptors add up.
 * Where the plan needs more than the soft RLIMIT_NOFILE, the soft limit is
 * raised to the hard one (as many tools do); beyond the hard limit the plan is
 * refused here rather than failing with EMFILE mid-run.
 */
static void check_nofile(struct pf_state *s)
{
	uint64_t need = 0, seg = 0;
	int32_t who = -1;
	struct rlimit rl;

	for (uint32_t i = 0; i < s->p->nr_jobs; i++) {
		const struct plan_job *j = plan_job_at(s->p, i);

		if (j->stonewall)
			seg = 0;
		seg += job_fds(j);
		if (seg > need) {
			need = seg;
			who = (int32_t)i;
		}
	}
	need += FD_BASE;
	if (who < 0 || getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur == RLIM_INFINITY || need <= rl.rlim_cur)
		return;
	if (rl.rlim_max == RLIM_INFINITY || need <= rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max == RLIM_INFINITY ? need : rl.rlim_max;
		if (!setrlimit(RLIMIT_NOFILE, &rl))
			return;
	}
	pf_add(s, RES_MSG_ERROR, "open-files", (int32_t)plan_job_at(s->p, (uint32_t)who)->job_id,
	    "job '%s': the jobs running with it keep %llu files and descriptors open at once, more "
	    "than the limit of open files (ulimit -n: %llu, at most %llu); set openfiles= (files "
	    "open at once per thread) or fewer nrfiles/numjobs", plan_job_at(s->p, (uint32_t)who)->name,
	    (unsigned long long)need, (unsigned long long)rl.rlim_cur,
	    (unsigned long long)rl.rlim_max);
}

static void check_totals(struct pf_state *s)
{
	struct statvfs vfs;
	uint64_t avail;

	for (uint32_t i = 0; i < s->nr_fs; i++) {
		/* ramfs and the like report no size at all: nothing to compare with. */
		if (statvfs(s->fs[i].dir, &vfs) || vfs.f_blocks == 0)
			continue;
		avail = (uint64_t)vfs.f_bavail * vfs.f_frsize;
		if (s->fs[i].need > avail)
			pf_add(s, RES_MSG_ERROR, "no-space", -1,
			    "not enough free space to lay out the files in %s: %s%llu bytes needed, %llu available",
			    s->fs[i].dir, s->fs[i].need == UINT64_MAX ? "at least " : "",
			    (unsigned long long)s->fs[i].need, (unsigned long long)avail);
	}
	avail = mem_available(s->env);
	if (s->buffered_read_bytes && avail && s->buffered_read_bytes < avail)
		pf_add(s, RES_MSG_WARNING, "cached-reads", -1,
		    "buffered reads over %llu bytes, less than the %llu bytes of available memory: they may be "
		    "served from the page cache (use direct=1 or a larger size=)",
		    (unsigned long long)s->buffered_read_bytes, (unsigned long long)avail);
}

int pf_run(const struct plan *p, const struct safety_env *env, struct pf_report *out)
{
	struct pf_state *s = calloc(1, sizeof(*s));
	struct pf_paths paths;

	if (!s)
		return -ENOMEM;
	memset(out, 0, sizeof(*out));
	s->p = p;
	s->env = env;
	s->r = out;
	s->dir_fd = -1;
	if (pf_paths_init(&paths, p)) {
		safety_files_free(s->busy);
		free(s);
		return -ENOMEM;
	}
	/*
	 * A file several clones share is checked once, by its first use, but
	 * each clone's region is its own (offset_increment): the file must hold
	 * the farthest.  Judged by clone 0's alone, numjobs=2 size=1m
	 * offset_increment=1t passed the free-space check and failed at layout
	 * with ENOSPC after the run had started, and a device's clone 1 past its
	 * end was not named.  So the most any use of a path needs comes first.
	 */
	for (uint32_t i = 0; i < p->nr_jobs; i++) {
		const struct plan_job *j = plan_job_at(p, i);

		for (uint32_t c = 0; c < j->nr_clones; c++)
			for (uint32_t f = 0; f < j->clones[c].nr_files; f++) {
				const struct plan_file *pf = &j->clones[c].files[f];
				uint32_t at = pf_paths_add(&paths, pf->path);
				uint64_t need = clone_needed_bytes(j, &j->clones[c], pf, 0);

				if (need > paths.need[at])
					paths.need[at] = need;
			}
	}
	for (uint32_t i = 0; i < p->nr_jobs; i++) {
		const struct plan_job *j = plan_job_at(p, i);

		pf_check_machine(s, j, mem_available(env));
		pf_check_aux(s, j);
		for (uint32_t c = 0; c < j->nr_clones; c++)
			for (uint32_t f = 0; f < j->clones[c].nr_files; f++) {
				uint32_t at = pf_paths_find(&paths, j->clones[c].files[f].path);

				if (!paths.checked[at]) {
					paths.checked[at] = true;
					check_file(s, j, &j->clones[c].files[f], paths.need[at]);
				}
			}
	}
	pf_paths_free(&paths);
	check_totals(s);
	check_nofile(s);
	if (pf_sort_seen(out))
		s->oom = 1;
	int oom = s->oom;
	if (s->dir_fd >= 0)
		close(s->dir_fd);
	safety_files_free(s->busy);
	free(s);
	if (oom) {
		pf_free(out);
		return -ENOMEM;
	}
	return 0;
}

void pf_free(struct pf_report *r)
{
	path_index_free(&r->seen_index);
	free(r->seen);
	for (uint32_t i = 0; i < r->nr; i++)
		free(r->findings[i].text);
	free(r->findings);
	memset(r, 0, sizeof(*r));
}
