/*
 * engine/worker/worker_files.c - opening a worker's files without ever blocking in open().
 *
 * open() of a FIFO waits for a writer, and nothing reaches a thread inside it:
 * not runtime, not stall_timeout, not a stop request.  So every file is opened
 * O_NONBLOCK (which never waits) and made blocking again afterwards; a FIFO
 * that no writer holds yet is watched in short slices until one comes, the
 * job's runtime is over, or a stop is asked.  poll(2) sees data and a writer
 * that came and went; tee(2) with SPLICE_F_NONBLOCK sees, without taking any
 * data, a writer that holds the FIFO but has written nothing (EAGAIN, where a
 * FIFO no writer holds gives 0).
 *
 * openfiles: at most that many of a clone's files are open at once.  The
 * generator decides which (iogen.h); here a file is opened when it is first
 * served (its cached pages dropped then, as fio does, when invalidate=1) and
 * closed once the last I/O of its pass has completed, synced first when the
 * job syncs.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "engine/layout/layout.h"
#include "engine/worker/worker.h"

#define FIFO_SLICE_NS 10000000l	/* how often a writerless FIFO is looked at again */

/* Whether the job's I/O changes its files (a verify_only job only reads them back). */
static bool job_writes(const struct plan_job *j)
{
	return !j->verify_only &&
	       (plan_rw_has_ddir(j->rw, PLAN_DDIR_WRITE) || plan_rw_has_ddir(j->rw, PLAN_DDIR_TRIM));
}

static int open_flags(const struct plan_job *j)
{
	const struct ioe_ops *o = ioe_find(j->ioengine);
	int fl = job_writes(j) || (o && o->open_rw) ? O_RDWR : O_RDONLY;

	if (j->direct)
		fl |= O_DIRECT;
	if (j->sync_mode == PLAN_SYNC_SYNC)
		fl |= O_SYNC;
	else if (j->sync_mode == PLAN_SYNC_DSYNC)
		fl |= O_DSYNC;
	return fl;
}

/*
 * 1 when a writer holds the FIFO, has written to it, or has come and gone
 * (POLLHUP: the reads then see its end); 0 while none has come; or -errno.
 */
static int fifo_has_writer(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int p[2], err = 0;
	ssize_t n;

	if (poll(&pfd, 1, 0) > 0 && (pfd.revents & (POLLIN | POLLHUP)))
		return 1;
	if (pipe2(p, O_CLOEXEC | O_NONBLOCK))
		return -errno;
	n = tee(fd, p[1], 1, SPLICE_F_NONBLOCK);
	if (n < 0)
		err = errno;
	close(p[0]);
	close(p[1]);
	if (n > 0 || err == EAGAIN)
		return 1;
	return n == 0 ? 0 : -err;
}

/*
 * Waits for the FIFO's writer.  Meanwhile the watchdog sees the wait as an I/O
 * in flight (stall_timeout reports it); runtime bounds it as it bounds the job.
 */
static int wait_writer(struct worker *w, int fd, uint32_t f)
{
	const struct plan_job *j = w->job;
	uint64_t t0 = clk_now(&w->clk), end = j->runtime_ns ? t0 + j->ramp_time_ns + j->runtime_ns : 0;
	struct timespec slice = { 0, FIFO_SLICE_NS };
	int ret;

	atomic_store_explicit(&w->pub.last_done_ns, t0, memory_order_relaxed);
	atomic_store_explicit(&w->pub.inflight, 1, memory_order_relaxed);
	while ((ret = fifo_has_writer(fd)) == 0) {
		if (atomic_load_explicit(w->sh->stop, memory_order_relaxed)) {
			ret = -EINTR;
			break;
		}
		if (end && clk_now(&w->clk) >= end) {
			worker_error(w, .err = ETIMEDOUT, .file = f,
				     .what = "no writer opened the FIFO within runtime");
			ret = -ETIMEDOUT;
			break;
		}
		nanosleep(&slice, NULL);
	}
	atomic_store_explicit(&w->pub.inflight, 0, memory_order_relaxed);
	return ret < 0 ? ret : 0;
}

/*
 * Opens file f as the layout checked it (layout_open: no symbolic link the
 * user did not name, the same file the layout found); why says what failed;
 * *st gets its fstat.  Even a file the layout found regular is opened
 * O_NONBLOCK: a FIFO put in its place would otherwise hold open() before the
 * identity check could refuse it.
 */
static int open_nonblocking(struct worker *w, uint32_t f, int *out, char *why, size_t n, struct stat *st)
{
	int flags = open_flags(w->job) | O_NONBLOCK;
	int fd = layout_open(w->sh->lay, w->clone->files[f].path, flags, why, n, st);
	int ret = 0;

	if (fd < 0)
		return fd;
	if (S_ISFIFO(st->st_mode))
		ret = wait_writer(w, fd, f);
	/* F_SETFL sets only the status flags: the open's own (so no F_GETFL), less O_NONBLOCK. */
	if (!ret && fcntl(fd, F_SETFL, flags & ~O_NONBLOCK))
		ret = -errno;
	if (ret) {
		close(fd);
		return ret;
	}
	*out = fd;
	return 0;
}

/*
 * fadvise_hint, as fio gives it at each open: with buffered I/O, random advice
 * turns readahead off, so each random read is one read of the device rather
 * than a window whose neighbours later reads find cached.  Advice, not a
 * promise: a file system that ignores it is no error.
 */
static void advise(struct worker *w, uint32_t f)
{
	enum plan_fadvise h = w->job->fadvise_hint;

	/* The whole file: Linux keeps these two per open file, whatever the range. */
	if (w->fds[f] >= 0 && (h == PLAN_FADVISE_SEQUENTIAL || h == PLAN_FADVISE_RANDOM))
		posix_fadvise(w->fds[f], 0, 0, h == PLAN_FADVISE_RANDOM ? POSIX_FADV_RANDOM : POSIX_FADV_SEQUENTIAL);
}

int worker_open_file(struct worker *w, uint32_t f, struct stat *st)
{
	char why[320];
	struct stat own;
	int ret = open_nonblocking(w, f, &w->fds[f], why, sizeof(why), st ? st : &own);

	if (!ret)
		w->ioe.opens++;	/* the number may be one the engine saw for a file closed since */

	/* write_hint: fio fails the job when the kernel refuses the hint. */
	if (!ret && w->job->write_hint && w->fds[f] >= 0) {
		uint64_t hint = w->job->write_hint;

		if (fcntl(w->fds[f], F_SET_RW_HINT, &hint)) {
			ret = -errno;
			close(w->fds[f]);
			worker_error(w, .err = -ret, .file = f, .what = "write_hint (F_SET_RW_HINT)");
			w->fds[f] = -1;
			return ret;
		}
	}
	if (!ret) {
		advise(w, f);
		if (w->fds[f] >= 0)
			worker_iolog_file(w, f, "open");
	}
	if (ret) {
		w->fds[f] = -1;
		/* A stop is no failure, and the FIFO timeout has its own words. */
		if (ret != -EINTR && ret != -ETIMEDOUT)
			worker_error(w, .err = -ret, .file = f, .what = why);
	}
	return ret;
}

/* A file the generator chose is open before its I/O.  False (fatal) when it cannot be. */
bool worker_file_ready(struct worker *w, uint32_t f)
{
	int ret;

	if (w->fds[f] >= 0)
		return true;
	if (!ioe_opens_files(w->job->ioengine)) {
		worker_iolog_held(w, f, true);	/* the null engine under openfiles: picked, so open */
		return true;
	}
	ret = worker_open_file(w, f, NULL);
	if (ret) {
		worker_fail(w, ret == -EINTR ? 0 : -ret);	/* a stop is not the job's error */
		return false;
	}
	if (w->job->invalidate && !w->job->pre_read)
		worker_cache_drop(w, f);
	return true;
}

void worker_close_file(struct worker *w, uint32_t f)
{
	const struct plan_job *j = w->job;
	bool syncs = j->fsync_every || j->fdatasync_every || j->end_fsync || j->fsync_on_close;

	if (w->fds[f] < 0) {
		/* the null engine under openfiles: retired as fio's, its turn passes on */
		if (w->max_open && !ioe_opens_files(j->ioengine)) {
			worker_iolog_held(w, f, false);
			gen_file_closed(&w->gen, f);
		}
		return;
	}
	if (w->dirty[f] && syncs && fsync(w->fds[f]))
		worker_sync_failed(w, f, errno, "fsync on close");
	w->dirty[f] = false;
	close(w->fds[f]);
	w->fds[f] = -1;
	worker_iolog_file(w, f, "close");
	gen_file_closed(&w->gen, f);
}

/*
 * openfiles: the files whose pass ran out with none of their I/O in flight
 * close now (a random map's failed draw finds that out without issuing one,
 * so no completion would close them), and a file waiting to open may.  True
 * when one closed.
 */
bool worker_close_idle(struct worker *w)
{
	bool closed = false;

	for (uint32_t f = 0; f < w->gen.nr_files; f++) {
		if (!gen_file_closing(&w->gen, f) || w->file_inflight[f] || (w->have_held && w->held.file == f))
			continue;
		if (w->fds[f] >= 0 || !ioe_opens_files(w->job->ioengine))
			worker_close_file(w, f);
		else
			gen_file_closed(&w->gen, f);	/* chosen, never opened: its draw failed first */
		closed = true;
	}
	return closed;
}

/*
 * As fio's: every file is removed first (unlink_all_files), then opened, with
 * O_CREAT when the job writes, so a writer gets an empty file and a reader
 * fails with ENOENT.  A file the safety rules keep (the layout noted which) is
 * opened again as it is; under openfiles a file opens with its first I/O.
 */
bool worker_files_renew(struct worker *w)
{
	bool writes = job_writes(w->job);
	char why[320];
	int ret = 0;

	for (uint32_t f = 0; f < w->clone->nr_files && ret >= 0; f++) {
		worker_close_file(w, f);
		ret = layout_renew(w->sh->lay, w->clone->files[f].path, writes, why, sizeof(why));
		if (ret < 0)
			worker_error(w, .err = -ret, .file = f, .what = why);
	}
	for (uint32_t f = 0; f < w->clone->nr_files && ret >= 0 && !w->max_open; f++)
		ret = worker_open_file(w, f, NULL);
	if (ret >= 0 && w->ioe.ops->files_reopened && (ret = w->ioe.ops->files_reopened(&w->ioe)) < 0)
		worker_error(w, .err = -ret, .what = "register the files again (unlink_each_loop)");
	if (ret < 0)
		worker_fail(w, ret == -EINTR ? 0 : -ret);	/* a stop is not the job's error */
	return ret >= 0;
}

/*
 * Grows the process's descriptor table once to hold n more: a table that
 * grows while threads share it waits for an RCU grace period each time it
 * doubles (milliseconds each), and files opened one by one in the job's time
 * (create_on_open) would pay that in their I/O; fio's job is a process of its own.
 * F_DUPFD takes the lowest free number at or above top, never one in use: a
 * dup2() there closed whatever another job or the log writer held at that
 * number, and their next write went to a closed descriptor, or to the file
 * this job opened next under the same number.
 */
static void reserve_fds(uint32_t n)
{
	struct rlimit rl;
	int low = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 0), top, fd;

	if (low < 0)
		return;
	if (!getrlimit(RLIMIT_NOFILE, &rl)) {
		top = rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur <= (rlim_t)low + n ? (int)rl.rlim_cur - 1
										 : low + (int)n;
		fd = top > low ? fcntl(low, F_DUPFD_CLOEXEC, top) : -1;
		if (fd >= 0)
			close(fd);
	}
	close(low);
}

/*
 * openfiles in force for this worker: below the clone's files, and not for
 * interlocked jobs (their shared tickets do not wait for a file to open) nor
 * engines that open no file, but the null engine: it opens nothing, and fio's
 * file service still serves its files openfiles at a time.  Set-up opens each file once to size
 * it and closes it again (worker_size_done): one open at a time, never
 * openfiles + 1; the first openfiles reopen with their first I/O.
 */
void worker_limit_open(struct worker *w)
{
	const struct plan_job *j = w->job;

	w->max_open = 0;
	if (j->openfiles && j->openfiles < w->clone->nr_files && !j->interlocked &&
	    (ioe_opens_files(j->ioengine) || ioe_fakes_io(j->ioengine)))
		w->max_open = j->openfiles;
	/* create_only: no I/O follows, so each file is closed once sized (as
	 * the preflight's descriptor count assumes). */
	if (j->create_only && w->clone->nr_files > 1 && ioe_opens_files(j->ioengine))
		w->max_open = 1;
	/* create_on_open: a file left to the job is made by the open of its first I/O, in the
	 * job's time as fio's; every file then opens so (none is registered with the engine). */
	for (uint32_t f = 0; !w->max_open && f < w->clone->nr_files; f++)
		if (layout_waits_for_open(w->sh->lay, w->clone->files[f].path)) {
			w->max_open = w->clone->nr_files;
			reserve_fds(w->clone->nr_files);
		}
}

void worker_size_done(struct worker *w, uint32_t f)
{
	if (w->max_open && w->fds[f] >= 0) {
		close(w->fds[f]);
		w->fds[f] = -1;
	}
}
