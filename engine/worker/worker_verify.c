/*
 * engine/worker/worker_verify.c - a worker's verification: stamping, checking, read-back.
 *
 * Write jobs with verify= stamp every chunk they write (worker_io.c calls
 * worker_verify_stamp when it prepares a write) and remember which chunks of each file
 * region they completed, so the read-back after the write phase (do_verify=1)
 * checks exactly what this run wrote, however random or time-based the
 * pattern was.  verify_only skips the workload and checks what an earlier run
 * of the same job wrote: the writes drawn again (worker_verify_only.c), else
 * every chunk of the region.  Read-only jobs with verify= check each block
 * they read.
 *
 * The read-back reads each write that is still on fio's list whole, one read
 * of its own length, after the measured window, counted as fio counts its
 * verify reads: in the job's read bytes, I/Os and latencies, its time in the
 * read runtime (fio: r/w 4194304/4194304 for a 4 MiB randwrite with
 * verify=crc32c).  invalidate=1 drops the files' cached pages before it
 * (worker_cache.c), so it reads what reached the device, as fio's does.
 * The write figures are untouched.  As fio's log_io_piece, a
 * write that overlaps earlier ones (lfsr, norandommap) replaces them:
 * their bytes it did not cover are not read back (fio: bsrange=4k-4m with
 * lfsr writes 5 I/Os and reads back 2).  With loops=N, as fio runs each loop
 * as a round of writes and its read-back, each loop but the last is read back
 * as it ends (worker_rounds.c), before the next one writes over it.
 * verify_only reads its region in the job's blocks (a fixed size on the chunk
 * grid; else chunk by chunk), once a loop; the writes it drew, each whole.
 * A mismatch is a res_error (EILSEQ, as fio reports it) naming the file and
 * offset with what was expected and found, counted in verify_failures; as
 * fio's, it ends the job at that I/O unless continue_on_error=verify; with
 * verify_dump the chunk is also written to BASENAME.OFFSET.received (header
 * failures: .hdr_fail; a bad digest or pattern also .expected) in --aux-path or the working directory,
 * fio's names (worker_verify_report.c).  verify_backlog=N checks, as fio's, when the
 * written I/Os not yet read back are a multiple of N again (a write over
 * unchecked ones replaces them), verify_backlog_batch of them (else N; once
 * the writes in flight have completed, so no check races a write), and the
 * read-back after the write phase checks the rest.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/buffers.h"
#include "engine/stats.h"
#include "engine/verify/verify_async.h"
#include "engine/worker/worker.h"

static int read_hists(struct worker *w);
static bool read_back(struct worker *w, uint8_t *buf, uint64_t cap, bool all, uint64_t *budget);
static bool check_here(struct worker *w, uint32_t f, uint8_t *buf, uint64_t off, uint64_t len,
		       uint64_t io_len, bool zero);
static struct vasync_slot *async_slot(struct worker *w);

/*
 * A read job's block: checked here, or copied into a slot for the checker
 * threads (verify_async), so the I/O goes back to the engine at once.
 */
static void check_read(struct worker *w, const struct io_u *u)
{
	struct vasync_slot *s;

	w->vf.vfy->want_numberio = -1;	/* a reader cannot know the last write to a block */
	if (!w->vf.async) {
		check_here(w, u->file, u->buf, u->offset, u->len, 0, false);
		return;
	}
	s = async_slot(w);
	memcpy(s->buf, u->buf, u->len);
	s->len = u->len;
	s->offset = u->offset;
	s->io_len = 0;
	s->file = u->file;
	s->zero = false;
	s->numberio = -1;
	vasync_submit(w->vf.async, s);
}

/* The chunk after the written I/O that starts at chunk p: the next start or the first one not written. */
static uint64_t piece_end(const struct worker *w, uint32_t f, uint64_t p)
{
	const struct vfy_map *m = &w->vf.maps[f], *st = &w->vf.starts[f];
	uint64_t e = p + 1;

	while (e < m->nbits && vfy_map_test(m, e) && !vfy_map_test(st, e))
		e++;
	return e;
}

static void drop_piece(struct worker *w, uint32_t f, uint64_t p)
{
	vfy_map_set(&w->vf.maps[f], p, piece_end(w, f, p) - p, false);
	vfy_map_set(&w->vf.starts[f], p, 1, false);
	if (w->job->verify_backlog)
		worker_verify_hist(w, -1);	/* fio's list lost it: it does not grow */
}

/* The written I/Os that start among n chunks from first. */
static uint64_t starts_in(const struct worker *w, uint32_t f, uint64_t first, uint64_t n)
{
	uint64_t k = 0;

	for (uint64_t i = first; i < first + n; i++)
		k += vfy_map_test(&w->vf.starts[f], i);
	return k;
}

/*
 * fio's check_get_verify, asked before each I/O: a check is due when fio's
 * list of written I/Os not yet read back (io_hist_len) holds a multiple of N
 * after a write, or while the check begun has I/Os left to take (then from
 * the next writes, as fio's does when its list ran out).  hist counts a write
 * from its issue, as fio logs it; one that replaces unchecked ones (an overlap,
 * with norandommap or lfsr) takes them off, so the list does not grow.
 */
void worker_verify_hist(struct worker *w, int64_t delta)
{
	uint64_t n = w->job->verify_backlog;

	w->vf.hist = delta < 0 && w->vf.hist < (uint64_t)-delta ? 0 : w->vf.hist + (uint64_t)delta;
	w->vf.backlog_due = w->vf.hist && (w->vf.batch_left || !(w->vf.hist % n));
}

/*
 * fio's log_io_piece: a write replaces every earlier one it overlaps, whole;
 * it is read back as one I/O of its own length.  A trim takes its chunks off.
 */
static void log_piece(struct worker *w, uint32_t f, uint64_t first, uint64_t n, bool write)
{
	const struct vfy_map *m = &w->vf.maps[f], *st = &w->vf.starts[f];
	uint64_t p = first, k;

	if (!write || !w->vf.starts) {
		vfy_map_set(&w->vf.maps[f], first, n, write);
		if (w->vf.starts && w->job->verify_backlog && (k = starts_in(w, f, first, n)))
			worker_verify_hist(w, -(int64_t)k);	/* trimmed off the list */
		if (w->vf.starts)
			vfy_map_set(&w->vf.starts[f], first, n, false);
		return;
	}
	/* The earlier write this one starts inside of. */
	while (p && vfy_map_test(m, p) && !vfy_map_test(st, p) && vfy_map_test(m, p - 1))
		p--;
	if (vfy_map_test(st, p) && p < first && piece_end(w, f, p) > first)
		drop_piece(w, f, p);
	for (uint64_t i = first; i < first + n && i < m->nbits; i++)
		if (vfy_map_test(st, i))
			drop_piece(w, f, i);
	vfy_map_set(&w->vf.maps[f], first, n, true);
	vfy_map_set(&w->vf.starts[f], first, 1, true);
	worker_verify_order_add(w, f, first);
}

/* A write verify_only drew without making it: on the map as if it had completed. */
void worker_verify_log_write(struct worker *w, uint32_t f, uint64_t offset, uint64_t len)
{
	uint64_t iv = w->vf.vfy->interval, rel = offset - w->gen.files[f].start;

	if (offset >= w->gen.files[f].start && !(rel % iv))
		log_piece(w, f, rel / iv, len / iv, true);
}

/*
 * fio's header seed for a write: two draws of its verify_state multiplied
 * (fill_verify_pattern on a 64-bit build), the state seeded from
 * rand_seeds[FIO_RAND_VER_OFF] and again at each loop (clear_io_state); 0 with
 * verify_pattern, which draws none.  fio's read-back in a job that reads and
 * writes draws the same sequence and compares: ioplan's one seed per clone made
 * fio's verify_only of ioplan's rw=rw file fail ("bad header rand_seed 137").
 */
static uint64_t next_seed(struct worker *w)
{
	uint64_t s;

	if (w->job->verify_pattern_len)
		return 0;
	if (w->gen.rounds != w->vf.seeds_round) {
		frand_seed(&w->vf.seeds, w->clone->verify_seed, w->job->random_tausworthe64);
		w->vf.seeds_round = w->gen.rounds;
	}
	s = frand_next(&w->vf.seeds);
	return s * frand_next(&w->vf.seeds);
}

void worker_verify_stamp(struct worker *w, struct io_u *u)
{
	w->vf.vfy->seed = next_seed(w);
	/* fio's data for the seed; a pattern (verify_pattern) vfy_stamp writes itself. */
	if (w->vf.vfy->kind != PLAN_VERIFY_NULL && !w->job->verify_pattern_len)
		buf_fill_verified(u->buf, u->len, &w->fill, w->vf.vfy->seed);
	vfy_stamp(w->vf.vfy, u->buf, u->len, u->offset);
	if (w->vf.state)
		w->vf.state->numberio++;	/* fio's numberio: writes issued */
}

void worker_verify_done(struct worker *w, const struct io_u *u)
{
	uint64_t rel, iv = w->vf.vfy->interval;

	if (u->ddir == PLAN_DDIR_READ) {
		if (w->vf.reads)
			check_read(w, u);
		return;
	}
	if (u->offset < w->gen.files[u->file].start)
		return;
	rel = u->offset - w->gen.files[u->file].start;
	if (w->vf.state && u->ddir == PLAN_DDIR_WRITE)
		vstate_note_write(w->vf.state, u->file, u->offset);
	if (!w->vf.maps)
		return;
	/* trim_verify_zero: a trimmed written chunk stays on the map, to be read back as zeroes. */
	if (w->vf.trim && worker_trim_done(w, u, rel))
		return;
	if (rel % iv)
		return;
	if (w->vf.nio && u->ddir == PLAN_DDIR_WRITE)
		worker_verify_numberio_note(w, u->file, rel / iv, u->len / iv, vfy_numberio(w->vf.vfy, u->buf));
	log_piece(w, u->file, rel / iv, u->len / iv, u->ddir == PLAN_DDIR_WRITE);
}

/*
 * One chunk read back as fio's verify reads count: bytes, one I/O, its latency.
 * A round read back inside a ramp counts as the ramp's I/Os do (toward size=,
 * and the results only if the job ends inside its ramp).
 */
static void account_read(struct worker *w, uint32_t f, uint64_t off, uint64_t bytes, uint64_t t0)
{
	struct res_ddir *d = &w->res.ddir[PLAN_DDIR_READ];
	uint64_t now = clk_now(&w->clk), lat = now - t0;

	worker_iolog_read(w, f, off, bytes);
	if (worker_in_counted_ramp(w)) {
		worker_ramp_count(w, PLAN_DDIR_READ, bytes);
		return;
	}
	d->bytes += bytes;
	d->ios++;
	if (!w->job->disable_clat) {
		lat_add(&d->clat, lat);
		latbkt_add(w->res.latbkt, w->sh->lbt, lat);
	}
	if (!w->job->disable_lat)
		lat_add(&d->lat, lat);
	/* The depth rows describe the workload: a verify_only job's is this pass, one read at a time. */
	if (w->job->verify_only) {
		w->res.depth[depth_bucket(1)]++;
		w->res.submit[batch_bucket(1)]++;
		w->res.complete[batch_bucket(1)]++;
	}
	worker_logs_read_back(w, now, off, (uint32_t)bytes, lat);
}

/*
 * Reads len bytes at off into buf, one read per step bytes (a short read
 * continues), each counted as one verify read; false on failure.
 */
static bool read_run(struct worker *w, uint32_t f, uint8_t *buf, uint64_t off, uint64_t len,
		     uint64_t iv)
{
	uint64_t done = 0, t0 = 0;
	int64_t r;

	while (done < len) {
		if (!(done % iv))
			t0 = clk_now(&w->clk);
		/* Through the engine where the target is remote (nbd), else a plain pread. */
		r = ioe_pread(&w->ioe, w->fds[f], buf + done, (uint32_t)(iv - done % iv), off + done);
		if (r <= 0) {
			worker_error(w, .err = r < 0 ? (int)-r : EIO, .ddir = PLAN_DDIR_READ,
				     .file = f, .offset = off + done, .len = len - done,
				     .what = r == -ETIMEDOUT && w->ioe.ops->remote
						     ? "verify read: the target did not answer" /* ioengine.h */
						     : r < 0 ? "verify read" : "verify read: end of file");
			worker_read_back_failed(w, r < 0 ? (int)-r : EIO);
			return false;
		}
		done += (uint64_t)r;
		if (!(done % iv))
			account_read(w, f, off + done - iv, iv, t0);
	}
	return true;
}

/*
 * The null engine's read-back: each read counted as a read that took the
 * time of its bookkeeping, as fio counts the reads of a FIO_FAKEIO engine
 * (which skips only their check); nothing is read or checked.
 */
static void fake_reads(struct worker *w, uint32_t f, uint64_t off, uint64_t len, uint64_t step)
{
	for (uint64_t done = 0; done < len; done += step)
		account_read(w, f, off + done, step, clk_now(&w->clk));
}

/* A checked slot's mismatches, reported here (one thread reports); the slot goes back. */
static void async_report(struct worker *w, struct vasync_slot *s)
{
	/* A mismatch ended the job: as fio's, later blocks are not looked at. */
	if (s->nbad && !(w->fatal && w->res.verify_failures))
		worker_verify_report_bad(w, s->file, s->nbad, s->bad, s->buf, s->offset);
	vasync_put(w->vf.async, s);
}

/* Reports what the checkers have finished; with all, waits for everything submitted. */
static void async_reap(struct worker *w, bool all)
{
	struct vasync_slot *s;

	while ((s = vasync_reap(w->vf.async, all)))
		async_report(w, s);
}

/* A free slot, reaping checked ones (and waiting for one when all are busy). */
static struct vasync_slot *async_slot(struct worker *w)
{
	struct vasync_slot *s;

	async_reap(w, false);
	while (!(s = vasync_get(w->vf.async)))
		if ((s = vasync_reap(w->vf.async, true)))
			async_report(w, s);
	return s;
}

/*
 * Checks buf's chunks here (or their zeroes, for trimmed ones), written as I/Os
 * of io_len bytes (0: one); true when a mismatch ends the job.
 */
static bool check_here(struct worker *w, uint32_t f, uint8_t *buf, uint64_t off, uint64_t len,
		       uint64_t io_len, bool zero)
{
	struct vfy_bad bad[VFY_BAD_MAX];
	uint32_t nb = zero ? vfy_check_zero(w->vf.vfy, buf, len, off, bad, VFY_BAD_MAX)
			   : vfy_check(w->vf.vfy, buf, len, off, io_len, bad, VFY_BAD_MAX);

	return nb && worker_verify_report_bad(w, f, nb, bad, buf, off);
}

/*
 * Reads n chunks from rel on and checks them: here, or with verify_async in
 * a slot handed to the checker threads.  True to stop.
 */
static bool check_run(struct worker *w, uint32_t f, uint8_t *buf, uint64_t rel, uint64_t n,
		      bool zero)
{
	uint64_t off = w->gen.files[f].start + rel, len = n * w->vf.vfy->interval;
	/* A written I/O is one read; verify_only reads block by block (a run's odd end chunk by chunk). */
	uint64_t step = w->vf.starts ? len : worker_verify_only_block(w);
	struct vasync_slot *s;

	if (len % step)
		step = w->vf.vfy->interval;
	w->vf.vfy->want_numberio = worker_verify_numberio_want(w, f, rel / w->vf.vfy->interval, zero);
	if (w->vf.fake) {
		fake_reads(w, f, off, len, step);
		return false;
	}
	if (!w->vf.async) {
		/* One read at a time, checked before the next: a bad one ends the job where fio's does. */
		for (uint64_t at = 0; at < len; at += step)
			if (!read_run(w, f, buf + at, off + at, step, step) ||
			    check_here(w, f, buf + at, off + at, step, step, zero))
				return true;
		return false;
	}
	s = async_slot(w);
	if (!read_run(w, f, s->buf, off, len, step)) {
		vasync_put(w->vf.async, s);
		return true;
	}
	s->len = len;
	s->offset = off;
	s->io_len = step;
	s->file = f;
	s->zero = zero;
	s->numberio = w->vf.vfy->want_numberio;
	vasync_submit(w->vf.async, s);
	return w->fatal;
}

/*
 * Checks the run of chunks from first on and takes it off the map (unless
 * all); true to stop.  The budget counts written I/Os where the map knows
 * them (fio's checks take I/Os off its list), else chunks.
 */
static bool flush_run(struct worker *w, uint32_t f, uint8_t *buf, uint64_t first, uint64_t *run,
		      bool zero, bool all, uint64_t *budget)
{
	uint64_t n = *run, spent = n;

	*run = 0;
	worker_verify_only_pace(w, n);
	if (check_run(w, f, buf, first * w->vf.vfy->interval, n, zero) || worker_stopping(w))
		return true;
	if (!all)
		vfy_map_set(&w->vf.maps[f], first, n, false);
	if (!all && w->vf.starts) {
		spent = starts_in(w, f, first, n);
		vfy_map_set(&w->vf.starts[f], first, n, false);
		if (w->job->verify_backlog)
			w->vf.hist -= spent < w->vf.hist ? spent : w->vf.hist;
	}
	*budget -= spent < *budget ? spent : *budget;
	return false;
}

/*
 * Whether chunk i continues the written I/O before it: a budget's run ends
 * with the I/O, not inside it, since a pattern's place in a chunk is counted
 * from its I/O's start (and fio reads a written I/O back whole).
 */
static bool io_goes_on(const struct worker *w, uint32_t f, uint64_t i)
{
	return w->vf.starts && i < gen_file_span(&w->gen, f) / w->vf.vfy->interval &&
	       vfy_map_test(&w->vf.maps[f], i) && !vfy_map_test(&w->vf.starts[f], i);
}

/*
 * Checks the chunks of file f from lo up to nchunks (those written, or all of
 * them), at most *budget of them (the last I/O whole); a written chunk checked
 * leaves the map, so it is checked once.  A run of chunks is all trimmed
 * (checked for zeroes) or none.  True to stop.
 */
static bool verify_range(struct worker *w, uint32_t f, uint8_t *buf, uint64_t cap, bool all,
			 uint64_t *budget, uint64_t lo, uint64_t nchunks)
{
	uint64_t run = 0, first = 0;
	uint64_t per_block = all ? worker_verify_only_block(w) / w->vf.vfy->interval : 1;
	bool zero = false;

	if (cap >= per_block)	/* verify_only's runs hold whole blocks */
		cap -= cap % per_block;

	for (uint64_t i = lo; i <= nchunks && *budget; i++) {
		bool want = i < nchunks && (all || vfy_map_test(&w->vf.maps[f], i));
		bool z = want && !all && worker_trim_zeroed(w, f, i);

		/* A trimmed chunk next to a written one, or the next written I/O: two runs. */
		if (run && want && (z != zero || (w->vf.starts && vfy_map_test(&w->vf.starts[f], i))) &&
		    flush_run(w, f, buf, first, &run, zero, all, budget))
			return true;
		if (want && !run) {
			first = i;
			zero = z;
		}
		if (want)
			run++;
		if (run && (!want || run == cap || (run >= *budget && !io_goes_on(w, f, i + 1)) || i + 1 == nchunks) &&
		    flush_run(w, f, buf, first, &run, zero, all, budget))
			return true;
	}
	return false;
}

/*
 * Checks at most budget chunks of what was written and is not checked yet;
 * wait: until the checker threads are done with them too.  The time taken, which
 * goes to the reads' runtime.
 */
static uint64_t check_written(struct worker *w, uint64_t budget, bool wait)
{
	uint64_t cap = worker_verify_run_chunks(w), t0 = clk_now(&w->clk), took;

	if (!cap)
		cap = 1;
	if (!w->vf.buf && (read_hists(w) ||
			    posix_memalign((void **)&w->vf.buf, 4096, cap * w->vf.vfy->interval))) {
		w->vf.buf = NULL;
		return 0;	/* no memory now: the read-back after the write phase checks it all */
	}
	/* As the read-back after the window: a remote export through the engine, a file openfiles closed reopened. */
	read_back(w, w->vf.buf, cap, false, &budget);
	if (w->vf.async)
		async_reap(w, wait);
	took = clk_now(&w->clk) - t0;
	w->res.ddir[PLAN_DDIR_READ].runtime_ns += took;
	return took;
}

/*
 * verify_backlog: as fio's check, verify_backlog_batch written I/Os (else N)
 * read back, first in the map's order (fio's sorted list: by file, then
 * offset); what the list did not hold is taken from the writes that follow,
 * each read back before the next I/O.
 */
static void backlog_pass(struct worker *w)
{
	const struct plan_job *j = w->job;
	uint64_t reads = w->res.ddir[PLAN_DDIR_READ].ios, read0 = w->res.ddir[PLAN_DDIR_READ].bytes;
	uint64_t hist0 = w->vf.hist, taken;

	if (!w->vf.batch_left)
		w->vf.batch_left = j->verify_backlog_batch ? j->verify_backlog_batch : j->verify_backlog;
	check_written(w, w->vf.batch_left, false);
	taken = hist0 - w->vf.hist;
	w->vf.batch_left -= taken < w->vf.batch_left ? taken : w->vf.batch_left;
	/* A check does not start another: fio's last I/O was a read (td->last_ddir). */
	w->vf.backlog_due = w->vf.hist && w->vf.batch_left;
	/* Its reads are in fio's do_io: toward number_ios= (io_blocks), and toward io_size=
	 * between rounds (keep_running), not within one (io_issue_bytes: writes only). */
	gen_read_back(&w->gen, w->res.ddir[PLAN_DDIR_READ].bytes - read0, w->res.ddir[PLAN_DDIR_READ].ios - reads);
}

/*
 * verify_backlog: a check is due (worker_verify_hist).  As fio's, it comes
 * before the next I/O: the queue drains, so no read races
 * a write to its block, then what was written is read back.  Waiting for the
 * queue to be idle by itself instead, a job at iodepth=8 never checked before
 * its end.
 */
void worker_verify_backlog(struct worker *w)
{
	w->vf.backlog_due = false;
	worker_quiesce(w);
	if (!w->fatal && !atomic_load_explicit(w->sh->stop, memory_order_relaxed))
		backlog_pass(w);
}

/* loops=N: a round ended before the last (worker_rounds.c): what it wrote is read back now. */
void worker_verify_loop(struct worker *w)
{
	_Atomic char *state = &w->sh->states[w->clone->thread_number - 1];
	char was;
	uint64_t took;

	was = atomic_exchange_explicit(state, 'V', memory_order_relaxed);
	worker_iolog_read_back(w);
	worker_cache_read_back(w);
	took = check_written(w, UINT64_MAX, true);
	atomic_store_explicit(state, was, memory_order_relaxed);
	w->vf.loop_ns += took;
	worker_rate_skip(w, took);	/* no I/O fell due while the round was read back */
}

/*
 * The window held the loops' read-backs as well as the workload.  As fio's,
 * their time is the reads' runtime in a job that does not read, and is taken
 * out of the writes' and trims' (a mixed job's reads keep the window's: fio
 * adds its read-backs to its reads' time).
 */
void worker_verify_end_window(struct worker *w)
{
	uint64_t took = w->vf.loop_ns;

	if (!took)
		return;
	for (uint8_t d = 0; d < PLAN_DDIR_NR; d++) {
		struct res_ddir *r = &w->res.ddir[d];

		if (d == PLAN_DDIR_READ && !plan_rw_has_ddir(w->job->rw, PLAN_DDIR_READ))
			r->runtime_ns = took;
		else if (d != PLAN_DDIR_READ && r->runtime_ns > took)
			r->runtime_ns -= took;
	}
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

/*
 * fio's list order (worker_verify_order.c): each write still on the map, as
 * made, up to *budget of them; true to stop.
 */
static bool read_back_in_order(struct worker *w, uint8_t *buf, uint64_t cap, uint64_t *budget)
{
	struct vfy_order *o = &w->vf.order;

	for (; o->head < o->n && *budget; o->head++) {
		uint32_t f = (uint32_t)(o->v[o->head] >> VFY_ORDER_FILE_SHIFT);
		uint64_t p = o->v[o->head] & ((1ull << VFY_ORDER_FILE_SHIFT) - 1);

		if (vfy_map_test(&w->vf.starts[f], p) && verify_range(w, f, buf, cap, false, budget, p, piece_end(w, f, p)))
			return true;
	}
	worker_verify_order_taken(w);
	return false;
}

/*
 * Every file's chunks written (or all, verify_only), at most *budget of them;
 * true to stop.  With fio's list, in its order first; by offset, what the
 * list does not hold.
 */
static bool read_back(struct worker *w, uint8_t *buf, uint64_t cap, bool all, uint64_t *budget)
{
	if (!all && w->vf.order.on && read_back_in_order(w, buf, cap, budget))
		return true;
	for (uint32_t f = 0; f < w->gen.nr_files && *budget; f++) {
		/* openfiles: a file closed after its pass is opened again for its read-back. */
		bool reopened = w->fds[f] < 0 && ioe_opens_files(w->job->ioengine), stop;

		if (reopened && !worker_file_ready(w, f))
			return false;
		stop = verify_range(w, f, buf, cap, all, budget, 0, gen_file_span(&w->gen, f) / w->vf.vfy->interval);
		if (reopened)
			worker_close_file(w, f);
		if (stop)
			return true;
	}
	return false;
}

/*
 * The job has a read-back to make after its window: do_verify's writes, or
 * verify_only's region.  A verify_only job that writes reads back only with
 * do_verify, as fio's, whose dry run is all such a job does with do_verify=0;
 * one that only reads checks its region whatever do_verify says (fio checks
 * the blocks its reads bring).
 */
bool worker_verify_reads_back(const struct worker *w)
{
	const struct plan_job *j = w->job;

	if (!w->vf.vfy)
		return false;
	if (j->verify_only)
		return j->do_verify || !plan_rw_has_ddir(j->rw, PLAN_DDIR_WRITE);
	return w->vf.maps != NULL;
}

void worker_verify_phase(struct worker *w)
{
	const struct plan_job *j = w->job;
	struct bufpool pool;
	uint64_t cap, t0, budget = w->vf.load ? w->vf.load_budget : UINT64_MAX, read0, ios0;
	bool dry = j->verify_only && w->vf.maps, all = j->verify_only && !dry, more;
	uint32_t passes;

	if (!worker_verify_reads_back(w) || worker_stopping(w))
		return;
	if (read_hists(w)) {
		worker_fail(w, ENOMEM);
		return;
	}
	cap = worker_verify_run_chunks(w);
	if (bufpool_alloc(&pool, 1, cap * w->vf.vfy->interval, 4096)) {
		worker_fail(w, ENOMEM);
		return;
	}
	atomic_store_explicit(&w->sh->states[w->clone->thread_number - 1], 'V',
			      memory_order_relaxed);
	t0 = clk_now(&w->clk);
	/* verify_only reads the region once a loop, as fio's (loops=3: three times);
	 * drawing the writes again, it reads each round's writes after the round. */
	passes = all && !w->vf.load && !j->time_based && j->loops > 1 ? j->loops : 1;
	if (dry) {
		gen_window(&w->gen, false);
		w->gen.round_pause = w->gen.limited;
	}
	while (passes--) {
		more = dry && worker_verify_only_draw(w);
		if (dry && w->vf.load && budget)
			budget = worker_verify_order_stop(w);	/* ioplan's random writes: its state's stop */
		read0 = w->res.ddir[PLAN_DDIR_READ].bytes;
		ios0 = w->res.ddir[PLAN_DDIR_READ].ios;
		worker_iolog_read_back(w);
		worker_cache_read_back(w);
		if (read_back(w, pool.mem, cap, all, &budget))
			break;
		budget = UINT64_MAX;	/* a state file's budget (vf.load) has one pass */
		if (more) {
			gen_round_done(&w->gen, w->res.ddir[PLAN_DDIR_READ].bytes - read0,
				       w->res.ddir[PLAN_DDIR_READ].ios - ios0);
			passes++;
		}
	}
	if (w->vf.async)
		async_reap(w, true);	/* the phase ends when its blocks are checked */
	w->res.ddir[PLAN_DDIR_READ].runtime_ns += clk_now(&w->clk) - t0;
	worker_logs_flush(w, clk_now(&w->clk));
	bufpool_free(&pool);
}

void worker_verify_verdict(struct worker *w)
{
	if (w->vf.async)
		async_reap(w, true);	/* a read job's last blocks */
	if (!w->res.verify_failures || worker_may_continue(w, PLAN_DDIR_READ, EILSEQ))
		return;
	worker_set_error(w, EILSEQ);
}

/*
 * A verify read that failed (recorded by the caller): as fio's, the job ends
 * there, before another round or write, unless continue_on_error allows a
 * read error; the error is the job's either way.
 */
void worker_read_back_failed(struct worker *w, int err)
{
	if (worker_may_continue(w, PLAN_DDIR_READ, err))
		worker_set_error(w, err);
	else
		worker_fail(w, err);
}
