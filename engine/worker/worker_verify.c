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
 * offset with what was expected and found, counted in verify_failures; with
 * verify_dump the chunk is also written to BASENAME.OFFSET.received (header
 * failures: .hdr_fail; patterns also .expected) in --aux-path or the working directory,
 * fio's names (worker_verify_report.c).  verify_backlog=N checks what was written after every N
 * writes issued (once they have completed, so no check races a write)
 * and the read-back after the write phase checks the rest.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/buffers.h"
#include "engine/stats.h"
#include "engine/verify/verify_async.h"
#include "engine/worker/worker.h"

#define VFY_RUN_BYTES (1u << 20)	/* bytes per read-back pread */

static bool job_writes(const struct plan_job *j)
{
	return plan_rw_has_ddir(j->rw, PLAN_DDIR_WRITE);
}

/*
 * The block sizes a write may take: bs_is_seq_rand gives sequential writes the
 * first size and random ones the second, and a random job's sequential turns
 * (percentage_random, rw=randwrite:<n>) write the first size too.  NULL: none.
 */
static const struct plan_bs *write_sizes(const struct plan_job *j, int k)
{
	bool random = plan_rw_is_random(j->rw);
	bool turns = random && (j->percentage_random_pct[PLAN_DDIR_WRITE] < 100 || plan_rw_seq_turns(j));

	if (!j->bs_is_seq_rand)
		return k == 0 ? &j->bs[PLAN_DDIR_WRITE] : NULL;
	if (k == 0)
		return &j->bs[random ? 1 : 0];
	return k == 1 && turns ? &j->bs[0] : NULL;
}

/* The least write (the verify interval's default). */
static uint64_t min_write_bs(const struct plan_job *j)
{
	const struct plan_bs *b;
	uint64_t m = 0;

	for (int k = 0; (b = write_sizes(j, k)) != NULL; k++) {
		if (b->min_bytes && (!m || b->min_bytes < m))
			m = b->min_bytes;
		for (uint32_t i = 0; i < b->nr_split; i++)
			if (b->split[i].bs_bytes && (!m || b->split[i].bs_bytes < m))
				m = b->split[i].bs_bytes;
	}
	return m ? m : 4096;
}

/* The largest write: a read-back run holds one whole. */
static uint64_t max_write_bs(const struct plan_job *j)
{
	const struct plan_bs *b;
	uint64_t m = 0;

	for (int k = 0; (b = write_sizes(j, k)) != NULL; k++) {
		if (b->max_bytes > m)
			m = b->max_bytes;
		for (uint32_t i = 0; i < b->nr_split; i++)
			if (b->split[i].bs_bytes > m)
				m = b->split[i].bs_bytes;
	}
	return m;
}

/* Chunks of a read-back run: VFY_RUN_BYTES, or the largest write when it is longer. */
static uint64_t vfy_run_chunks(const struct worker *w)
{
	uint64_t iv = w->vf.vfy->interval, bytes = max_write_bs(w->job);

	if (bytes < VFY_RUN_BYTES)
		bytes = VFY_RUN_BYTES;
	return bytes / iv ? (bytes + iv - 1) / iv : 1;
}

/*
 * Every write must start and end on the chunk grid of its file region: NULL
 * when they do, else what steps off it (named in the job's error).
 */
static const char *off_grid(const struct worker *w, uint64_t iv)
{
	const struct plan_job *j = w->job;
	const struct plan_bs *b;

	for (int k = 0; (b = write_sizes(j, k)) != NULL; k++) {
		if (j->bs_unaligned && b->max_bytes != b->min_bytes)
			return "bs_unaligned's sizes";
		if (b->min_bytes % iv || b->max_bytes % iv)
			return "a write block size";
		for (uint32_t i = 0; i < b->nr_split; i++)
			if (b->split[i].bs_bytes % iv)
				return "a bssplit size";
	}
	/* Random writes start on the write size's own alignment where the offset is
	 * drawn first (fio's ba[DDIR_WRITE]: randrw bs=4k,16k writes at 16 KiB
	 * steps), else on the permutation's block. */
	if (w->gen.random && (w->gen.offset_first ? w->gen.ba[PLAN_DDIR_WRITE] : w->gen.align) % iv)
		return "the random writes' alignment";
	if (j->rw_seq_skip_bytes % iv)
		return "the gap of rw=...:N";
	if (j->sequential_stride_bytes % iv)
		return "sequential_stride";
	if (j->zone_size_bytes % iv || j->zone_range_bytes % iv || j->zone_skip_bytes % iv)
		return "zonesize, zonerange or zoneskip";
	return NULL;
}

static int setup_error(struct worker *w, const char *what)
{
	worker_error(w, .err = EINVAL, .ddir = PLAN_DDIR_WRITE, .what = what);
	return -EINVAL;
}

/*
 * verify_offset swaps the header and digest with the bytes there: it must not
 * overlap them (fio then reports every block bad) nor run past the chunk.
 */
static int offset_error(struct worker *w, uint32_t at, uint64_t iv)
{
	char what[200];

	snprintf(what, sizeof(what), "verify_offset=%u must leave the %u bytes of header and digest whole: "
		 "at least %u, and at most %llu within verify_interval=%llu", at, w->vf.vfy->hdr_size,
		 w->vf.vfy->hdr_size, (unsigned long long)(iv - w->vf.vfy->hdr_size), (unsigned long long)iv);
	return setup_error(w, what);
}

/* A writing job whose writes step off the chunk grid cannot be checked here. */
static int grid_error(struct worker *w, uint64_t iv)
{
	const char *off = off_grid(w, iv);
	char why[256];

	if (!off)
		return 0;
	snprintf(why, sizeof(why), "verify checks whole chunks of %llu bytes (verify_interval, else the least write) "
		 "and %s is not a multiple of that (fio checks such writes; ioplan does not)",
		 (unsigned long long)iv, off);
	return setup_error(w, why);
}

static void free_maps(struct worker *w, struct vfy_map *maps)
{
	if (maps)
		for (uint32_t f = 0; f < w->gen.nr_files; f++)
			vfy_map_release(&maps[f]);
	free(maps);
}

/* One empty chunk map per file; NULL without memory. */
static struct vfy_map *new_maps(struct worker *w, uint64_t iv)
{
	struct vfy_map *m = calloc(w->gen.nr_files, sizeof(*m));

	for (uint32_t f = 0; m && f < w->gen.nr_files; f++)
		if (vfy_map_init(&m[f], w->gen.files[f].len, iv)) {
			free_maps(w, m);
			return NULL;
		}
	return m;
}

/* The block verify_only reads a loaded state's writes in: one fixed write size. */
static uint64_t state_bs(const struct plan_job *j)
{
	const struct plan_bs *b = &j->bs[PLAN_DDIR_WRITE];

	return b->min_bytes == b->max_bytes && !b->nr_split ? b->min_bytes : 0;
}

/*
 * verify_state_load: the chunks verify_only checks, blocks in region order up
 * to the first one fio would stop at (vstate_should_stop); UINT64_MAX = all.
 */
static uint64_t state_budget(const struct worker *w, uint64_t bs)
{
	const struct vstate *s = w->vf.load;
	uint64_t k = 0, lo = s->numberio > s->depth ? s->numberio - s->depth : 0;

	for (uint32_t f = 0; f < w->gen.nr_files && k <= s->numberio; f++) {
		uint64_t nb = w->gen.files[f].len / bs, i = k < lo ? lo - k : 0;

		if (i >= nb) {
			k += nb;	/* all of this file's blocks come before the window */
			continue;
		}
		for (k += i; i < nb && k <= s->numberio; i++, k++)
			if (vstate_should_stop(s, k, f, w->gen.files[f].start + i * bs))
				return k * (bs / w->vf.vfy->interval);
	}
	return UINT64_MAX;
}

static int state_error(struct worker *w, int err, const char *path, const char *why)
{
	char what[sizeof(((struct res_error *)0)->what)];

	snprintf(what, sizeof(what), "verify_state_load: %.110s%s%.180s", path, *path ? ": " : "", why);
	worker_error(w, .err = err, .what = what);
	return -err;
}

/* verify_state_load: the earlier run's state file, fio's or ioplan's, and how far it wrote. */
static int load_state(struct worker *w, uint64_t iv)
{
	char path[4096], why[256];
	uint64_t bs = state_bs(w->job), blocks = 0;
	int ret;

	if (!bs || bs % iv)
		return state_error(w, EINVAL, "", "needs one write block size, a multiple of verify_interval");
	if (!(w->vf.load = calloc(1, sizeof(*w->vf.load))))
		return -ENOMEM;
	vstate_name(path, sizeof(path), w->sh->aux_path, w->job->name, w->clone->thread_number - 1);
	ret = vstate_load(path, w->vf.load, w->job->name, w->gen.nr_files, why, sizeof(why));
	if (ret)
		return state_error(w, -ret, path, why);
	if (!w->gen.random && w->gen.nr_files == 1) {
		w->vf.load_budget = state_budget(w, bs);
		return 0;
	}
	/* Region order is not the write order: right only when the writes covered the region. */
	for (uint32_t f = 0; f < w->gen.nr_files; f++)
		blocks += w->gen.files[f].len / bs;
	w->vf.load_budget = UINT64_MAX;
	if (w->vf.load->numberio < blocks)
		return state_error(w, EINVAL, path, w->gen.random ? "random writes that stopped before covering "
				   "the region: which blocks they wrote is not in the state file"
				   : "writes to several files that stopped before covering them: which blocks "
				   "they wrote is not in the state file");
	return 0;
}

/* verify_async: the checker threads, with slots for a read-back run or a whole block read. */
static int start_async(struct worker *w)
{
	uint64_t bytes = vfy_run_chunks(w) * w->vf.vfy->interval;
	int ret;

	if (bytes < bufpool_len(w->job))
		bytes = bufpool_len(w->job);
	if (!(w->vf.async = malloc(sizeof(*w->vf.async))))
		return -ENOMEM;
	ret = vasync_start(w->vf.async, w->vf.vfy, w->job->verify_async, &w->job->verify_async_cpus,
			   bytes);
	if (ret) {
		free(w->vf.async);
		w->vf.async = NULL;
		worker_error(w, .err = -ret, .what = "verify_async: starting the checker threads");
	}
	return ret;
}

int worker_verify_setup(struct worker *w, const struct buffill *fill)
{
	const struct plan_job *j = w->job;
	uint64_t iv;
	int ret;

	/* create_only: no I/O follows, and the generator holds no files to map. */
	if (j->verify == PLAN_VERIFY_NONE || j->create_only ||
	    !(ioe_opens_files(j->ioengine) || ioe_is_remote(j->ioengine)))
		return 0;
	/* fio: an interval above the block size means one header per block. */
	iv = min_write_bs(j);
	if (j->verify_interval_bytes && j->verify_interval_bytes < iv)
		iv = j->verify_interval_bytes;
	w->vf.vfy = malloc(sizeof(*w->vf.vfy));
	if (!w->vf.vfy)
		return -ENOMEM;
	ret = vfy_init(w->vf.vfy, j->verify, iv, w->clone->seed, j->verify_pattern,
		       j->verify_pattern_len);
	if (ret == -ENOMEM)
		return ret;
	if (ret)
		return setup_error(w, j->verify == PLAN_VERIFY_PATTERN
					      ? "verify=pattern needs verify_pattern"
					      : "verify_interval cannot hold the block header and digest");
	if (vfy_set_offset(w->vf.vfy, j->verify_offset_bytes))
		return offset_error(w, j->verify_offset_bytes, iv);
	w->vf.vfy->thread = (uint16_t)w->clone->thread_number;
	w->vf.vfy->offset_at = j->verify_pattern_offset_at;
	w->vf.vfy->nr_offset_at = j->nr_verify_pattern_offsets;
	w->vf.vfy->check_seed = job_writes(j) && !j->verify_only;
	(void)fill;
	w->vf.reads = !job_writes(j) && plan_rw_has_ddir(j->rw, PLAN_DDIR_READ) && !j->verify_only;
	if (j->verify_async && (w->vf.reads || j->verify_only || (job_writes(j) && j->do_verify)) &&
	    (ret = start_async(w)))
		return ret;
	if (j->verify_only && j->verify_state_load)
		return load_state(w, iv);
	/* verify_only draws the writes again to check only those (worker_verify_only.c). */
	if (worker_verify_only_replays(j) && !off_grid(w, iv))
		return (w->vf.maps = new_maps(w, iv)) && (w->vf.starts = new_maps(w, iv)) ? 0 : -ENOMEM;
	if (!job_writes(j) || j->verify_only || (!j->do_verify && !j->verify_state_save))
		return 0;
	if ((ret = grid_error(w, iv)))
		return ret;
	if (j->verify_state_save && ((w->vf.state = calloc(1, sizeof(*w->vf.state))) == NULL ||
				     vstate_init(w->vf.state, j->name, j->iodepth, w->gen.nr_files,
						 w->clone->thread_number - 1)))
		return -ENOMEM;
	if (j->do_verify && (!(w->vf.maps = new_maps(w, iv)) || !(w->vf.starts = new_maps(w, iv))))
		return -ENOMEM;
	return worker_trim_setup(w);
}

/* Written at the thread's end, interrupted or not; a failure is the job's error. */
static void save_state(struct worker *w)
{
	char path[4096];
	int ret;

	vstate_name(path, sizeof(path), w->sh->aux_path, w->job->name, w->clone->thread_number - 1);
	ret = vstate_save(path, w->vf.state);
	if (ret)
		worker_error(w, .err = -ret, .what = "verify_state_save: writing the state file");
}

void worker_verify_release(struct worker *w)
{
	if (w->vf.async)
		vasync_stop(w->vf.async);
	free(w->vf.async);
	w->vf.async = NULL;
	worker_trim_release(w);
	if (w->vf.state && w->vf.state->ring)
		save_state(w);
	for (int i = 0; i < 2; i++) {
		struct vstate **s = i ? &w->vf.load : &w->vf.state;

		if (*s)
			vstate_release(*s);
		free(*s);
		*s = NULL;
	}
	free_maps(w, w->vf.maps);
	free_maps(w, w->vf.starts);
	w->vf.starts = NULL;
	free(w->vf.buf);
	w->vf.buf = NULL;
	if (w->vf.vfy)
		vfy_release(w->vf.vfy);
	free(w->vf.vfy);
	w->vf.maps = NULL;
	w->vf.vfy = NULL;
}

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
}

/*
 * fio's log_io_piece: a write replaces every earlier one it overlaps, whole;
 * it is read back as one I/O of its own length.  A trim takes its chunks off.
 */
static void log_piece(struct worker *w, uint32_t f, uint64_t first, uint64_t n, bool write)
{
	const struct vfy_map *m = &w->vf.maps[f], *st = &w->vf.starts[f];
	uint64_t p = first;

	if (!write || !w->vf.starts) {
		vfy_map_set(&w->vf.maps[f], first, n, write);
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
}

/* A write verify_only drew without making it: on the map as if it had completed. */
void worker_verify_log_write(struct worker *w, uint32_t f, uint64_t offset, uint64_t len)
{
	uint64_t iv = w->vf.vfy->interval, rel = offset - w->gen.files[f].start;

	if (offset >= w->gen.files[f].start && !(rel % iv))
		log_piece(w, f, rel / iv, len / iv, true);
}

void worker_verify_stamp(struct worker *w, struct io_u *u)
{
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
	if (!(rel % iv))
		log_piece(w, u->file, rel / iv, u->len / iv, u->ddir == PLAN_DDIR_WRITE);
	if (!w->job->verify_backlog || u->ddir != PLAN_DDIR_WRITE)
		return;
	w->vf.chunks += u->len / iv;
}

/*
 * One chunk read back as fio's verify reads count: bytes, one I/O, its latency.
 * A round read back inside a ramp counts as the ramp's I/Os do (toward size=,
 * and the results only if the job ends inside its ramp).
 */
static void account_read(struct worker *w, uint64_t bytes, uint64_t lat)
{
	struct res_ddir *d = &w->res.ddir[PLAN_DDIR_READ];

	if (worker_in_counted_ramp(w)) {
		worker_ramp_count(w, PLAN_DDIR_READ, bytes);
		return;
	}
	d->bytes += bytes;
	d->ios++;
	if (!w->job->disable_clat)
		lat_add(&d->clat, lat);
	if (!w->job->disable_lat)
		lat_add(&d->lat, lat);
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
				     .what = r < 0 ? "verify read" : "verify read: end of file");
			worker_read_back_failed(w, r < 0 ? (int)-r : EIO);
			return false;
		}
		done += (uint64_t)r;
		if (!(done % iv))
			account_read(w, iv, clk_now(&w->clk) - t0);
	}
	return true;
}

/* A checked slot's mismatches, reported here (one thread reports); the slot goes back. */
static void async_report(struct worker *w, struct vasync_slot *s)
{
	/* verify_fatal: the job ended at the first mismatch; later slots are not looked at. */
	if (s->nbad && !(w->fatal && w->job->verify_fatal))
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
 * of io_len bytes (0: one); true when verify_fatal stops.
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
	if (!w->vf.async)
		return !read_run(w, f, buf, off, len, step) || check_here(w, f, buf, off, len, step, zero);
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
	vasync_submit(w->vf.async, s);
	return w->fatal;
}

/* Checks the run of chunks from first on and takes it off the map (unless all); true to stop. */
static bool flush_run(struct worker *w, uint32_t f, uint8_t *buf, uint64_t first, uint64_t *run,
		      bool zero, bool all, uint64_t *budget)
{
	uint64_t n = *run;

	*run = 0;
	worker_verify_only_pace(w, n);
	if (check_run(w, f, buf, first * w->vf.vfy->interval, n, zero) || worker_stopping(w))
		return true;
	if (!all)
		vfy_map_set(&w->vf.maps[f], first, n, false);
	if (!all && w->vf.starts)
		vfy_map_set(&w->vf.starts[f], first, n, false);
	*budget -= n < *budget ? n : *budget;
	return false;
}

/*
 * Whether chunk i continues the written I/O before it: a budget's run ends
 * with the I/O, not inside it, since a pattern's place in a chunk is counted
 * from its I/O's start (and fio reads a written I/O back whole).
 */
static bool io_goes_on(const struct worker *w, uint32_t f, uint64_t i)
{
	return w->vf.starts && i < w->gen.files[f].len / w->vf.vfy->interval &&
	       vfy_map_test(&w->vf.maps[f], i) && !vfy_map_test(&w->vf.starts[f], i);
}

/*
 * Checks the chunks of file f (those written, or all of them), at most
 * *budget of them (the last I/O whole); a written chunk checked leaves the map, so it is checked
 * once.  A run of chunks is all trimmed (checked for zeroes) or none.  True
 * to stop.
 */
static bool verify_file(struct worker *w, uint32_t f, uint8_t *buf, uint64_t cap, bool all,
			uint64_t *budget)
{
	uint64_t nchunks = w->gen.files[f].len / w->vf.vfy->interval, run = 0, first = 0;
	uint64_t per_block = all ? worker_verify_only_block(w) / w->vf.vfy->interval : 1;
	bool zero = false;

	if (cap >= per_block)	/* verify_only's runs hold whole blocks */
		cap -= cap % per_block;

	for (uint64_t i = 0; i <= nchunks && *budget; i++) {
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
	uint64_t cap = vfy_run_chunks(w), t0 = clk_now(&w->clk), took, bad0 = w->res.verify_failures;

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
	/*
	 * As fio's, a mismatch ends the job once this check is done: no later
	 * round or write goes over what was found (loops=3 writes one round).
	 */
	if (w->res.verify_failures > bad0 && !(w->job->continue_on_error & PLAN_COE_VERIFY))
		worker_fail(w, EILSEQ);
	return took;
}

/* verify_backlog: what was written since the last pass (verify_backlog_batch's share of it). */
static void backlog_pass(struct worker *w)
{
	const struct plan_job *j = w->job;
	uint64_t budget = w->vf.chunks;

	if (j->verify_backlog_batch && j->verify_backlog_batch < j->verify_backlog)
		budget = w->vf.chunks * j->verify_backlog_batch / j->verify_backlog;
	w->vf.writes = w->vf.chunks = 0;
	check_written(w, budget, false);
}

/*
 * verify_backlog: N writes were issued (worker_io.c counts them).  As fio's,
 * the check comes before the next write: the queue drains, so no read races
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

/* Every file's chunks written (or all, verify_only), at most *budget of them; true to stop. */
static bool read_back(struct worker *w, uint8_t *buf, uint64_t cap, bool all, uint64_t *budget)
{
	for (uint32_t f = 0; f < w->gen.nr_files && *budget; f++) {
		/* openfiles: a file closed after its pass is opened again for its read-back. */
		bool reopened = w->fds[f] < 0 && ioe_opens_files(w->job->ioengine), stop;

		if ((!ioe_opens_files(w->job->ioengine) && !ioe_is_remote(w->job->ioengine)) ||
		    (reopened && !worker_file_ready(w, f)))
			return false;	/* the null engine opened nothing: nothing to read back */
		stop = verify_file(w, f, buf, cap, all, budget);
		if (reopened)
			worker_close_file(w, f);
		if (stop)
			return true;
	}
	return false;
}

/* The job has a read-back to make after its window: do_verify's writes, or verify_only's region. */
bool worker_verify_reads_back(const struct worker *w)
{
	return w->vf.vfy && (w->job->verify_only || w->vf.maps);
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
	cap = vfy_run_chunks(w);
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
		read0 = w->res.ddir[PLAN_DDIR_READ].bytes;
		ios0 = w->res.ddir[PLAN_DDIR_READ].ios;
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
	bufpool_free(&pool);
}

void worker_verify_verdict(struct worker *w)
{
	if (w->vf.async)
		async_reap(w, true);	/* a read job's last blocks */
	if (!w->res.verify_failures || (w->job->continue_on_error & PLAN_COE_VERIFY))
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
