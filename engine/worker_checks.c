/*
 * engine/worker_checks.c - what a worker does around its I/O besides the I/O:
 * the minimum-rate check every rate_cycle, the page-cache preparation before
 * the job (invalidate, pre_read), and the completion of short transfers.
 *
 * rate_min / rate_iops_min follow fio (its check_min_rate): after a 2 s
 * settle period, at each completion, once rate_cycle has passed since the
 * last sample, what completed since that sample is divided by the time since
 * it and compared with the minimum of each direction the job issues; below
 * it, the job ends with an error (EIO, the errno fio gives it) that says which
 * minimum was missed and by how much.  Looking only at completions matters for
 * slow rates: rate=1250 with 4 KiB blocks completes one I/O every 3.3 s, which
 * meets ratemin=1024 over its 3.3 s though most 1 s cycles hold no I/O at all.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "buffers.h"
#include "worker.h"

#define PREP_CHUNK (1u << 20)

static bool has_min_rate(const struct plan_job *j)
{
	for (int d = 0; d < PLAN_DDIR_NR; d++)
		if (plan_rw_has_ddir(j->rw, (enum plan_ddir)d) &&
		    (j->rate_min_bytes_per_s[d] || j->rate_iops_min[d]))
			return true;
	return false;
}

static uint64_t cycle_ns(const struct plan_job *j)
{
	return j->rate_cycle_ns ? j->rate_cycle_ns : 1000000000ull;
}

#define RATE_SETTLE_NS 2000000000ull	/* fio's settle period before the first sample */

static uint64_t total_ios(const struct worker *w)
{
	uint64_t n = 0;

	for (int d = 0; d < PLAN_DDIR_NR; d++)
		n += w->res.ddir[d].ios;
	return n;
}

void worker_checks_start(struct worker *w)
{
	w->check_at = UINT64_MAX;
	if (!has_min_rate(w->job) || w->sh->fake)
		return;
	w->check_at = w->now + RATE_SETTLE_NS;
	w->cycle_from = 0;
	w->rate_seen_ios = total_ios(w);
}

static void rate_fail(struct worker *w, int d, const char *unit, uint64_t got, uint64_t min)
{
	char what[64];

	snprintf(what, sizeof(what), "rate_min: %s %llu %s below %llu", plan_ddir_name(d),
		 (unsigned long long)got, unit, (unsigned long long)min);
	worker_error(w, .err = EIO, .ddir = (uint8_t)d, .what = what);
	if (!w->res.error)
		w->res.error = EIO;
	w->fatal = true;
}

/* Compares what completed since the last sample with each direction's minimum. */
static void compare_rates(struct worker *w, uint64_t span)
{
	const struct plan_job *j = w->job;

	for (int d = 0; d < PLAN_DDIR_NR && !w->fatal; d++) {
		uint64_t bytes = w->res.ddir[d].bytes - w->cycle_bytes[d];
		uint64_t ios = w->res.ddir[d].ios - w->cycle_ios[d];
		uint64_t bps = (uint64_t)((unsigned __int128)bytes * 1000000000u / span);
		uint64_t iops = (uint64_t)((unsigned __int128)ios * 1000000000u / span);

		if (!plan_rw_has_ddir(j->rw, (enum plan_ddir)d))
			continue;
		if (j->rate_min_bytes_per_s[d] && bps < j->rate_min_bytes_per_s[d])
			rate_fail(w, d, "bytes/s", bps, j->rate_min_bytes_per_s[d]);
		else if (j->rate_iops_min[d] && iops < j->rate_iops_min[d])
			rate_fail(w, d, "IOPS", iops, j->rate_iops_min[d]);
	}
}

void worker_check_rates(struct worker *w)
{
	uint64_t ios = total_ios(w);

	if (ios == w->rate_seen_ios)
		return;	/* fio samples at completions: nothing new, nothing to judge */
	w->rate_seen_ios = ios;
	if (w->cycle_from) {
		if (w->now - w->cycle_from < cycle_ns(w->job))
			return;
		compare_rates(w, w->now - w->cycle_from);
	}
	for (int d = 0; d < PLAN_DDIR_NR; d++) {
		w->cycle_bytes[d] = w->res.ddir[d].bytes;
		w->cycle_ios[d] = w->res.ddir[d].ios;
	}
	w->cycle_from = w->now;
}

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
	if (j->ioengine == PLAN_IOENGINE_NULL)
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

/*
 * A short read or write is re-issued for the rest, as fio does, until it is
 * complete or the file gives no more (end of file: an error then).  Runs on the
 * completing thread with plain pread/pwrite whatever the engine.
 */
bool worker_finish_short(struct worker *w, struct io_u *u)
{
	uint8_t *buf = u->buf;
	ssize_t r;

	if (u->ddir == PLAN_DDIR_TRIM || u->fd < 0)
		return false;
	while (u->result > 0 && u->result < (int64_t)u->len) {
		uint64_t done = (uint64_t)u->result, rest = u->len - done;
		off_t at = (off_t)(u->offset + done);

		r = u->ddir == PLAN_DDIR_READ ? pread(u->fd, buf + done, rest, at)
					      : pwrite(u->fd, buf + done, rest, at);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			u->result = -errno;	/* ENOSPC, EIO...: reported as the I/O's error */
		if (r <= 0)
			return false;
		u->result += r;
	}
	return u->result == (int64_t)u->len;
}
