/*
 * engine/worker/worker_cache.c - the page cache a buffered job starts from and meets
 * at each pass: pre_read warms it before the first I/O, invalidate drops the
 * files' cached pages then, again at each new pass and before each verify
 * read-back, so reads measure what the job asked for (the device, or the
 * cache on purpose) and a read-back checks what the writes left on it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "engine/worker/worker.h"

#define PREP_CHUNK (1u << 20)

/* Reads a file's region once so a buffered job starts from a warm cache (pre_read). */
static int pre_read(int fd, uint64_t start, uint64_t len, const _Atomic int *stop)
{
	char *buf = malloc(PREP_CHUNK);
	ssize_t r = 1;
	int ret = 0;

	if (!buf)
		return -ENOMEM;
	for (uint64_t off = start; off < start + len && r > 0; off += (uint64_t)r) {
		uint64_t n = start + len - off < PREP_CHUNK ? start + len - off : PREP_CHUNK;

		if (atomic_load_explicit(stop, memory_order_relaxed))
			break;
		r = pread(fd, buf, n, (off_t)off);
		if (r < 0)
			ret = -errno;
	}
	free(buf);
	return ret;
}

/* Drops the cached pages of every file region (invalidate=1). */
static void drop_cached(struct worker *w)
{
	for (uint32_t f = 0; f < w->gen.nr_files; f++) {
		const struct gen_file *gf = &w->gen.files[f];

		/* Advice, not a promise: a file system without a page cache ignores it. */
		if (w->fds[f] >= 0)
			posix_fadvise(w->fds[f], (off_t)gf->start, (off_t)gf->len, POSIX_FADV_DONTNEED);
	}
}

/*
 * fio re-opens a job's files, and so drops their cached pages again, at each
 * new pass over them (a loop, or a time_based run wrapping around): a small
 * file read buffered keeps measuring the device, not the page cache.  The
 * pass is counted in bytes issued, which is what a pass is for random jobs
 * without a random map too.
 */
static void track_passes(struct worker *w)
{
	const struct plan_job *j = w->job;

	w->inval_every = 0;
	if (j->invalidate && !j->direct && !j->pre_read && plan_rw_has_ddir(j->rw, PLAN_DDIR_READ))
		w->inval_every = gen_pass_bytes(&w->gen);
	w->inval_left = w->inval_every;
}

void worker_pass_bytes(struct worker *w, uint64_t bytes)
{
	if (bytes < w->inval_left) {
		w->inval_left -= bytes;
		return;
	}
	drop_cached(w);
	w->inval_left = w->inval_every;
}

/*
 * Before a verify read-back: fio closes the job's files and opens them again,
 * and with invalidate=1 the open drops their cached pages.  What was synced
 * (end_fsync, fsync=N) is read back from the device, not from the cache the
 * writes filled; pages still dirty stay, as fio's do.
 */
void worker_cache_read_back(struct worker *w)
{
	if (w->job->invalidate && ioe_opens_files(w->job->ioengine))
		drop_cached(w);
}

/*
 * Before the first I/O: pre_read warms the page cache (buffered jobs only;
 * fio ignores it for direct I/O), otherwise invalidate drops the cached pages
 * of each file region so reads come from the device, and again at each new
 * pass (track_passes).
 */
int worker_prepare_cache(struct worker *w)
{
	const struct plan_job *j = w->job;
	int ret;

	w->inval_every = w->inval_left = 0;
	if (!ioe_opens_files(j->ioengine))
		return 0;
	if (j->invalidate && !(j->pre_read && !j->direct)) {
		drop_cached(w);
		track_passes(w);
	}
	if (!j->pre_read || j->direct)
		return 0;
	atomic_store_explicit(&w->sh->states[w->clone->thread_number - 1], 'p', memory_order_relaxed);
	for (uint32_t f = 0; f < w->gen.nr_files; f++) {
		const struct gen_file *gf = &w->gen.files[f];

		if (w->fds[f] < 0)
			continue;
		ret = pre_read(w->fds[f], gf->start, gf->len, w->sh->stop);
		if (ret) {
			worker_error(w, .err = -ret, .ddir = PLAN_DDIR_READ, .file = f,
				     .offset = gf->start, .len = gf->len, .what = "pre_read");
			return ret;
		}
	}
	return 0;
}
