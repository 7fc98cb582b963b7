/*
 * engine/ioengines/mmap.c - memcpy to and from a shared mapping of the file: fio's mmap.
 *
 * As in fio 3.33 each file is mapped whole when it can be, else in windows of
 * 1 GiB / the number of files starting at the I/O's offset; an I/O outside the
 * current window remaps.  The mapping is writable when the file was opened for
 * writing.  An I/O past the end of the file fails with EINVAL instead of
 * touching an unbacked page (which would kill the process with SIGBUS); a
 * page that loses its backing after the mapping was made (the file truncated
 * by another program, a full disk under a write) fails its I/O with EIO: the
 * copy runs under a SIGBUS guard (copy_guarded), where fio 3.33's job dies of
 * the signal and ioplan died whole, its results lost.  fsync
 * and end_fsync go through the file descriptor, which also writes back the
 * pages dirtied through the mapping; trims punch holes as psync's do.  A
 * block size off the page with direct=1, fsync= or fdatasync= fails the job
 * at its start, as fio's mmap engine does.  thp= maps privately with
 * MADV_HUGEPAGE, as fio's.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/ioengine.h"

#define MMAP_TOTAL (1ull << 30)		/* fio's MMAP_TOTAL_SZ */

struct map {
	char *p;
	uint64_t off, len;
	int fd;
};

struct mmap_eng {
	struct map *maps;		/* by io_u.file */
	uint32_t nr;
	uint64_t window;
	bool thp;
};

/* thp=: fio's one mmap option. */
struct mmap_opts {
	long long thp;
};

static const struct plan_engopt mmap_opts[] = {
	{ .name = "thp", .type = PLAN_ENGOPT_INT, .def = "0", .min = 0, .max = 2147483647,
	  .help = "mmap: non-zero maps each file privately and advises transparent huge pages "
		  "(MADV_HUGEPAGE), as fio; writes then stay in memory and never reach the file.",
	  .off = offsetof(struct mmap_opts, thp) },
};

PLAN_ENGOPTS_DEFINE(mmap, struct mmap_opts, mmap_opts);

/*
 * The SIGBUS guard.  The handler is the process's, installed once; the guard is
 * per thread: set only while that thread copies through a mapping, so a
 * SIGBUS anywhere else gets the action there was before (the default: the
 * process dies as it would have).  SA_NODEFER: the jump leaves the handler
 * without the return that would unblock SIGBUS, and a thread with it blocked
 * would be killed by its next one; sigsetjmp then need not save the mask (a
 * system call an I/O).
 */
static _Thread_local sigjmp_buf *volatile bus_guard;	/* volatile: memcpy reads no global, so its set was dropped */
static struct sigaction bus_before;
static pthread_once_t bus_once = PTHREAD_ONCE_INIT;

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (bus_guard)
		siglongjmp(*bus_guard, 1);
	sigaction(sig, &bus_before, NULL);
	if (si->si_code <= 0)	/* sent, not a fault: a fault comes again as the copy resumes */
		raise(sig);
}

static void bus_install(void)
{
	struct sigaction sa = { .sa_sigaction = on_sigbus, .sa_flags = SA_SIGINFO | SA_NODEFER };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, &bus_before);
}

/* memcpy that gives -EIO where a page of the mapping has no backing any more. */
static int copy_guarded(void *dst, const void *src, size_t n)
{
	sigjmp_buf jb;

	if (sigsetjmp(jb, 0)) {
		bus_guard = NULL;
		return -EIO;
	}
	bus_guard = &jb;
	memcpy(dst, src, n);
	bus_guard = NULL;
	return 0;
}

static int mmap_init(struct ioe *e)
{
	const struct plan_job *j = e->cfg.job;
	long page = sysconf(_SC_PAGESIZE);
	struct mmap_eng *m;
	uint32_t files = e->cfg.nr_fds ? e->cfg.nr_fds : 1;

	/* As fio's: writeback of whole pages (direct, fsync=, fdatasync=) needs page-sized blocks
	 * (the preflight says why). */
	if (j && page > 0 && plan_min_bs(j) % (uint64_t)page &&
	    (j->direct || j->fsync_every || j->fdatasync_every))
		return -EINVAL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	pthread_once(&bus_once, bus_install);
	m->thp = ioe_job_opts(e) && ((const struct mmap_opts *)ioe_job_opts(e))->thp;
	e->priv = m;
	m->window = MMAP_TOTAL / files;
	return 0;
}

static void unmap(struct map *mp)
{
	if (mp->p)
		munmap(mp->p, mp->len);
	mp->p = NULL;
}

static void mmap_exit(struct ioe *e)
{
	struct mmap_eng *m = e->priv;

	if (!m)
		return;
	for (uint32_t i = 0; i < m->nr; i++)
		unmap(&m->maps[i]);
	free(m->maps);
	free(m);
}

static struct map *map_of(struct mmap_eng *m, uint32_t file)
{
	if (file >= m->nr) {
		struct map *n = realloc(m->maps, (file + 1) * sizeof(*n));

		if (!n)
			return NULL;
		memset(n + m->nr, 0, (file + 1 - m->nr) * sizeof(*n));
		m->maps = n;
		m->nr = file + 1;
	}
	return &m->maps[file];
}

/* The bytes behind fd: a block device's st_size is 0, so ask the device. */
static int size_of(int fd, uint64_t *size)
{
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	*size = (uint64_t)st.st_size;
	if (S_ISBLK(st.st_mode) && ioctl(fd, BLKGETSIZE64, size))
		return -errno;
	return 0;
}

/* Maps the whole file, or a window from u's offset (page aligned) when it is too big. */
static int remap(struct mmap_eng *m, struct map *mp, const struct io_u *u)
{
	uint64_t size;
	int fl = fcntl(u->fd, F_GETFL);
	int prot = (fl & O_ACCMODE) == O_RDWR ? PROT_READ | PROT_WRITE : PROT_READ;
	int r;

	unmap(mp);
	r = size_of(u->fd, &size);
	if (r)
		return r;
	if (u->offset + u->len > size)
		return -EINVAL;
	if (u->len > m->window)
		return -EIO;	/* fio: "bs too big for mmap engine" */
	mp->off = size <= m->window ? 0 : u->offset & ~4095ull;
	mp->len = size - mp->off;
	if (mp->len > m->window)
		mp->len = m->window;
	if (u->offset + u->len > mp->off + mp->len)
		mp->len = u->offset + u->len - mp->off;
	mp->p = mmap(NULL, mp->len, prot, m->thp ? MAP_PRIVATE : MAP_SHARED, u->fd, (off_t)mp->off);
	if (mp->p == MAP_FAILED) {
		mp->p = NULL;
		return -errno;
	}
	if (m->thp)
		(void)madvise(mp->p, mp->len, MADV_HUGEPAGE);	/* advice: ignored where not taken, as fio */
	mp->fd = u->fd;
	return 0;
}

/*
 * unlink_each_loop's new files may reuse the old descriptors' numbers: every
 * mapping goes, so the next I/O maps the new file (empty, so it fails with
 * EINVAL where fio's dies of SIGBUS) instead of the one removed.
 */
static int mmap_files_reopened(struct ioe *e)
{
	struct mmap_eng *m = e->priv;

	for (uint32_t i = 0; i < m->nr; i++)
		unmap(&m->maps[i]);
	return 0;
}

static int mmap_queue(struct ioe *e, struct io_u *u)
{
	struct mmap_eng *m = e->priv;
	struct map *mp = map_of(m, u->file);
	int r = 0;

	if (u->ddir != PLAN_DDIR_READ && u->ddir != PLAN_DDIR_WRITE) {
		ioe_do_sync(u);
		return IOE_Q_COMPLETED;
	}
	if (!mp)
		r = -ENOMEM;
	else if (!mp->p || mp->fd != u->fd || u->offset < mp->off || u->offset + u->len > mp->off + mp->len)
		r = remap(m, mp, u);
	if (r) {
		u->result = r;
		return IOE_Q_COMPLETED;
	}
	if (u->ddir == PLAN_DDIR_READ)
		r = copy_guarded(u->buf, mp->p + (u->offset - mp->off), u->len);
	else
		r = copy_guarded(mp->p + (u->offset - mp->off), u->buf, u->len);
	if (r)
		unmap(mp);	/* the next I/O maps the file as it is now */
	u->result = r ? r : (ssize_t)u->len;
	return IOE_Q_COMPLETED;
}

const struct ioe_ops ioe_mmap = {
	.id = PLAN_IOENGINE_MMAP,
	.sync = true,
	.no_extend = true,	/* a mapping ends at the file's end */
	.init = mmap_init,
	.exit = mmap_exit,
	.queue = mmap_queue,
	.files_reopened = mmap_files_reopened,
};
