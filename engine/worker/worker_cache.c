/*
 * engine/worker/worker_cache.c - the page cache a buffered job starts from and meets
 * at each pass: pre_read warms it before the first I/O, invalidate drops the
 * files' cached pages then, again as each file starts over and before each verify
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

void worker_cache_drop(const struct worker *w, uint32_t f)
{
	const struct gen_file *gf = &w->gen.files[f];

	/* Advice, not a promise: a file system without a page cache ignores it. */
	if (w->fds[f] >= 0)
		posix_fadvise(w->fds[f], (off_t)gf->start, (off_t)gf->len, POSIX_FADV_DONTNEED);
}

/* Drops the cached pages of every file region (invalidate=1). */
static void drop_cached(struct worker *w)
{
	for (uint32_t f = 0; f < w->gen.nr_files; f++)
		worker_cache_drop(w, f);
}

/* gen.restarted: the file starts over. */
static void drop_restarted(void *worker, uint32_t f)
{
	worker_cache_drop(worker, f);
}

/*
 * fio drops a file's cached pages again as it starts over: its next loop
 * re-opens the files, a time_based run's wrap (a full random map, the end of
 * a sequential file) calls loop_cache_invalidate.  So a small file read
 * buffered keeps measuring the device, not the page cache, and a small file
 * written buffered is written back at each pass (the advice starts writeback
 * of its dirty pages), which the device and every job beside it feel: a
 * buffered writer beside an fdatasync=1 job held its syncs to ~18 ms in fio,
 * 0.2 ms here, until writes dropped their pages too.  A random job without a
 * map never starts over inside a time_based run, and fio drops nothing there
 * either.  The generator says when (gen.restarted), from its general way only:
 * the plain loop keeps its short way and its per-I/O cost.
 */
static void track_passes(struct worker *w)
{
	const struct plan_job *j = w->job;

	if (j->invalidate && !j->direct && !j->pre_read) {
		w->gen.restarted = drop_restarted;
		w->gen.restarted_arg = w;
	}
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
