/*
 * engine/worker_verify.c - a worker's verification: stamping, checking, read-back.
 *
 * Write jobs with verify= stamp every chunk they write (worker_io.c calls
 * vfy_stamp when it prepares a write) and remember which chunks of each file
 * region they completed, so the read-back after the write phase (do_verify=1)
 * checks exactly what this run wrote, however random or time-based the
 * pattern was.  verify_only skips the workload and checks every chunk of the
 * region, as an earlier run of the same job wrote it.  Read-only jobs with
 * verify= check each block they read.
 *
 * The read-back is one plain pread per chunk, after the measured window,
 * counted as fio counts its verify reads: in the job's read bytes, I/Os and
 * latencies, its time in the read runtime (fio: r/w 4194304/4194304 for a
 * 4 MiB randwrite with verify=crc32c).  The write figures are untouched.
 * A mismatch is a res_error (EILSEQ, as fio reports it) naming the file and
 * offset with what was expected and found, counted in verify_failures.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buffers.h"
#include "stats.h"
#include "worker.h"

#define VFY_RUN_BYTES (1u << 20)	/* bytes per read-back pread */
#define VFY_BAD_MAX 8			/* mismatches described per block */

static bool job_writes(const struct plan_job *j)
{
	return plan_rw_has_ddir(j->rw, PLAN_DDIR_WRITE);
}

static uint64_t min_write_bs(const struct plan_job *j)
{
	const struct plan_bs *b = &j->bs[j->bs_is_seq_rand ? (plan_rw_is_random(j->rw) ? 1 : 0)
							  : PLAN_DDIR_WRITE];
	uint64_t m = b->min_bytes;

	for (uint32_t i = 0; i < b->nr_split; i++)
		if (b->split[i].bs_bytes && (!m || b->split[i].bs_bytes < m))
			m = b->split[i].bs_bytes;
	return m ? m : 4096;
}

/* Every write must start and end on the chunk grid of its file region. */
static bool fits_grid(const struct worker *w, uint64_t iv)
{
	const struct plan_job *j = w->job;
	const struct plan_bs *b = &j->bs[PLAN_DDIR_WRITE];

	if (j->bs_unaligned && b->max_bytes != b->min_bytes)
		return false;
	if (b->min_bytes % iv || b->max_bytes % iv)
		return false;
	for (uint32_t i = 0; i < b->nr_split; i++)
		if (b->split[i].bs_bytes % iv)
			return false;
	if (w->gen.random && w->gen.align % iv)
		return false;
	return !(j->rw_seq_skip_bytes % iv) && !(j->sequential_stride_bytes % iv) &&
	       !(j->zone_size_bytes % iv) && !(j->zone_range_bytes % iv) &&
	       !(j->zone_skip_bytes % iv);
}

static int setup_error(struct worker *w, const char *what)
{
	worker_error(w, .err = EINVAL, .ddir = PLAN_DDIR_WRITE, .what = what);
	return -EINVAL;
}

int worker_verify_setup(struct worker *w, const struct buffill *fill)
{
	const struct plan_job *j = w->job;
	uint64_t iv;
	int ret;

	if (j->verify == PLAN_VERIFY_NONE || !ioe_opens_files(j->ioengine))
		return 0;
	iv = j->verify_interval_bytes ? j->verify_interval_bytes : min_write_bs(j);
	w->vfy = malloc(sizeof(*w->vfy));
	if (!w->vfy)
		return -ENOMEM;
	ret = vfy_init(w->vfy, j->verify, iv, w->clone->seed, fill->pattern, fill->pattern_len);
	if (ret)
		return setup_error(w, j->verify == PLAN_VERIFY_PATTERN
					      ? "verify=pattern needs verify_pattern"
					      : "verify_interval is smaller than a 48-byte header");
	w->vfy_reads = !job_writes(j) && plan_rw_has_ddir(j->rw, PLAN_DDIR_READ) && !j->verify_only;
	if (!job_writes(j) || j->verify_only || !j->do_verify)
		return 0;
	if (!fits_grid(w, iv))
		return setup_error(w, "verify_interval must divide every block size and alignment");
	w->vmaps = calloc(w->gen.nr_files, sizeof(*w->vmaps));
	if (!w->vmaps)
		return -ENOMEM;
	for (uint32_t f = 0; f < w->gen.nr_files; f++)
		if (vfy_map_init(&w->vmaps[f], w->gen.files[f].len, iv))
			return -ENOMEM;
	return 0;
}

void worker_verify_release(struct worker *w)
{
	if (w->vmaps)
		for (uint32_t f = 0; f < w->gen.nr_files; f++)
			vfy_map_release(&w->vmaps[f]);
	free(w->vmaps);
	free(w->vfy);
	w->vmaps = NULL;
	w->vfy = NULL;
}

/* Records up to VFY_BAD_MAX mismatches of one block; true when verify_fatal stops the job. */
static bool report_bad(struct worker *w, uint32_t file, uint32_t n, const struct vfy_bad *bad)
{
	char what[64];

	if (w->job->verify_fatal)
		n = 1;	/* the first mismatch ends the job: later ones are not looked at */
	for (uint32_t i = 0; i < n && i < VFY_BAD_MAX; i++) {
		vfy_describe(w->vfy, &bad[i], what, sizeof(what));
		worker_error(w, .err = EILSEQ, .ddir = PLAN_DDIR_READ, .file = file,
			     .offset = bad[i].offset, .len = w->vfy->interval, .what = what);
	}
	if (n > VFY_BAD_MAX)
		w->res.total_err += n - VFY_BAD_MAX;
	w->res.verify_failures += n;
	if (!w->job->verify_fatal)
		return false;
	if (!w->res.error)
		w->res.error = EILSEQ;
	w->fatal = true;
	return true;
}

void worker_verify_done(struct worker *w, const struct io_u *u)
{
	struct vfy_bad bad[VFY_BAD_MAX];
	uint64_t rel, iv = w->vfy->interval;
	uint32_t n;

	if (u->ddir == PLAN_DDIR_READ) {
		if (!w->vfy_reads)
			return;
		n = vfy_check(w->vfy, u->buf, u->len, u->offset, bad, VFY_BAD_MAX);
		if (n)
			report_bad(w, u->file, n, bad);
		return;
	}
	if (!w->vmaps || u->offset < w->gen.files[u->file].start)
		return;
	rel = u->offset - w->gen.files[u->file].start;
	if (!(rel % iv))
		vfy_map_set(&w->vmaps[u->file], rel / iv, u->len / iv, u->ddir == PLAN_DDIR_WRITE);
}

static bool stopping(const struct worker *w)
{
	return atomic_load_explicit(w->sh->stop, memory_order_relaxed) != 0;
}

/* One chunk read back as fio's verify reads count: bytes, one I/O, its latency. */
static void account_read(struct worker *w, uint64_t bytes, uint64_t lat)
{
	struct res_ddir *d = &w->res.ddir[PLAN_DDIR_READ];

	d->bytes += bytes;
	d->ios++;
	if (!w->job->disable_clat)
		lat_add(&d->clat, lat);
	if (!w->job->disable_lat)
		lat_add(&d->lat, lat);
}

/* Reads chunk by chunk n chunks from rel on, all of each (a short read continues); then checks them. */
static bool check_run(struct worker *w, uint32_t f, uint8_t *buf, uint64_t rel, uint64_t n)
{
	struct vfy_bad bad[VFY_BAD_MAX];
	uint64_t iv = w->vfy->interval, off = w->gen.files[f].start + rel, len = n * iv, done = 0, t0;
	ssize_t r;
	uint32_t nb;

	while (done < len) {
		t0 = clk_now(&w->clk);
		r = pread(w->fds[f], buf + done, iv - done % iv, (off_t)(off + done));
		if (r <= 0) {
			worker_error(w, .err = r < 0 ? errno : EIO, .ddir = PLAN_DDIR_READ,
				     .file = f, .offset = off + done, .len = len - done,
				     .what = r < 0 ? "verify read" : "verify read: end of file");
			if (!w->res.error)
				w->res.error = r < 0 ? errno : EIO;
			return true;
		}
		done += (uint64_t)r;
		if (!(done % iv))
			account_read(w, iv, clk_now(&w->clk) - t0);
	}
	nb = vfy_check(w->vfy, buf, len, off, bad, VFY_BAD_MAX);
	return nb && report_bad(w, f, nb, bad);
}

/* Checks the chunks of file f (those written, or all of them); true to stop. */
static bool verify_file(struct worker *w, uint32_t f, uint8_t *buf, uint64_t cap, bool all)
{
	uint64_t iv = w->vfy->interval, nchunks = w->gen.files[f].len / iv, run = 0, first = 0;

	for (uint64_t i = 0; i <= nchunks; i++) {
		bool want = i < nchunks && (all || vfy_map_test(&w->vmaps[f], i));

		if (want && !run)
			first = i;
		if (want)
			run++;
		if (run && (!want || run == cap || i + 1 == nchunks)) {
			if (check_run(w, f, buf, first * iv, run) || stopping(w))
				return true;
			run = 0;
		}
	}
	return false;
}

/* A write job has no read histograms: the read-back's latencies need them as a read job's. */
static int read_hists(struct worker *w)
{
	struct res_ddir *d = &w->res.ddir[PLAN_DDIR_READ];
	const struct plan_job *j = w->job;

	if (j->clat_percentiles && !j->disable_clat && !d->clat.hist &&
	    !(d->clat.hist = calloc(RES_HIST_NR, sizeof(uint64_t))))
		return -ENOMEM;
	if (j->lat_percentiles && !j->disable_lat && !d->lat.hist &&
	    !(d->lat.hist = calloc(RES_HIST_NR, sizeof(uint64_t))))
		return -ENOMEM;
	return 0;
}

void worker_verify_phase(struct worker *w)
{
	const struct plan_job *j = w->job;
	struct bufpool pool;
	uint64_t cap, t0;
	bool all = j->verify_only;

	if (!w->vfy || (!all && !w->vmaps) || stopping(w))
		return;
	if (read_hists(w)) {
		w->fatal = true;
		if (!w->res.error)
			w->res.error = ENOMEM;
		return;
	}
	cap = VFY_RUN_BYTES / w->vfy->interval;
	if (!cap)
		cap = 1;
	if (bufpool_alloc(&pool, 1, cap * w->vfy->interval, 4096)) {
		w->fatal = true;
		if (!w->res.error)
			w->res.error = ENOMEM;
		return;
	}
	atomic_store_explicit(&w->sh->states[w->clone->thread_number - 1], 'V',
			      memory_order_relaxed);
	t0 = clk_now(&w->clk);
	for (uint32_t f = 0; f < w->gen.nr_files; f++) {
		/* openfiles: a file closed after its pass is opened again for its read-back. */
		bool reopened = w->fds[f] < 0, stop;

		if (reopened && (!ioe_opens_files(w->job->ioengine) || !worker_file_ready(w, f)))
			break;	/* the null engine opened nothing: nothing to read back */
		stop = verify_file(w, f, pool.mem, cap, all);
		if (reopened)
			worker_close_file(w, f);
		if (stop)
			break;
	}
	w->res.ddir[PLAN_DDIR_READ].runtime_ns += clk_now(&w->clk) - t0;
	bufpool_free(&pool);
}

void worker_verify_verdict(struct worker *w)
{
	if (!w->res.verify_failures || (w->job->continue_on_error & PLAN_COE_VERIFY))
		return;
	if (!w->res.error)
		w->res.error = EILSEQ;
}
