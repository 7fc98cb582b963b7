/*
 * engine/worker/worker_verify_setup.c - a worker's verification set up and torn down.
 *
 * What a verifying job needs before its first I/O (worker_verify.c runs the
 * checks): the chunk size (verify_interval, else the least write), the digest
 * or pattern, the write maps the read-back walks, verify_async's checker
 * threads, verify_state_save's record and verify_state_load's budget; and at
 * the thread's end, the state file written and everything freed.  A job whose
 * writes step off the chunk grid, or whose header would not fit its chunk, is
 * refused here, before any I/O, with the reason as its error.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* The least of m (0: none yet) and the sizes of b, its bssplit's included. */
static uint64_t least_bs(uint64_t m, const struct plan_bs *b)
{
	if (b->min_bytes && (!m || b->min_bytes < m))
		m = b->min_bytes;
	for (uint32_t i = 0; i < b->nr_split; i++)
		if (b->split[i].bs_bytes && (!m || b->split[i].bs_bytes < m))
			m = b->split[i].bs_bytes;
	return m;
}

/* The least write (the verify interval's default). */
static uint64_t min_write_bs(const struct plan_job *j)
{
	const struct plan_bs *b;
	uint64_t m = 0;

	for (int k = 0; (b = write_sizes(j, k)) != NULL; k++)
		m = least_bs(m, b);
	return m ? m : 4096;
}

/* The largest write: a read-back run holds one whole. */
static uint64_t max_write_bs(const struct plan_job *j)
{
	const struct plan_bs *b;
	uint64_t m = 0;

	for (int k = 0; (b = write_sizes(j, k)) != NULL; k++)
		if (plan_bs_max(b) > m)
			m = plan_bs_max(b);
	return m;
}

static uint64_t gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/*
 * The chunk each header covers, as fio's fixup_options makes verify_interval:
 * the least write when unset (the write size when there is one), never above
 * the least write (nor the least read in a job that reads), and where it does
 * not divide both the least and the largest write, their gcd.  ioplan took an
 * interval that did not divide the writes and refused the job at its start
 * (bs=6k verify_interval=4k: exit 1), where fio checks 6 KiB chunks.
 */
static uint64_t chunk_bytes(const struct plan_job *j)
{
	uint64_t lo = min_write_bs(j), hi = max_write_bs(j), iv = j->verify_interval_bytes, rd;

	if (!iv && hi != lo)
		iv = lo;
	rd = plan_rw_has_ddir(j->rw, PLAN_DDIR_READ) ? least_bs(0, &j->bs[PLAN_DDIR_READ]) : 0;
	if (iv > lo)
		iv = lo;
	else if (rd && iv > rd)
		iv = rd;
	if (!iv || lo % iv || (hi && hi % iv))
		iv = hi ? gcd(lo, hi) : lo;
	return iv;
}

/* Chunks of a read-back run: VFY_RUN_BYTES, or the largest write when it is longer. */
uint64_t worker_verify_run_chunks(const struct worker *w)
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
		if (vfy_map_init(&m[f], gen_file_span(&w->gen, f), iv)) {
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

/* The name of this thread's verify_state_save file, in path. */
static const char *state_path(const struct worker *w, char *path, size_t n)
{
	vstate_name(path, n, w->sh->aux_path, w->job->name, w->clone->thread_number - 1, w->job->log_suffix);
	return path;
}

static bool state_taken_now(const struct worker *w)
{
	char path[4096];

	return vstate_name_taken(state_path(w, path, sizeof(path)));
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

	if (!(w->vf.load = calloc(1, sizeof(*w->vf.load))))
		return -ENOMEM;
	ret = vstate_load(state_path(w, path, sizeof(path)), w->vf.load, w->job->name, w->gen.nr_files, why, sizeof(why));
	if (ret)
		return state_error(w, -ret, path, why);
	/*
	 * Writes whose offsets this run draws again: sequential ones, random ones
	 * of fio's (its random map, its LFSR, its draws without a map:
	 * gen_draws_fio_offsets), or ioplan's own (a state without fio's random
	 * state, whose writes may have come from the permutation): drawn again and
	 * checked in fio's read-back order (as made with a random map, else by file
	 * and offset) up to the first one in flight, as fio's verify_only replays
	 * its own (worker_verify_order_stop), whatever their sizes.  Read in region
	 * order instead, a norandommap job's state read blocks it never wrote
	 * (fio 3.33 checks the 157 it wrote of 256), and one of several block
	 * sizes, or of several files not covered, was refused.
	 */
	if ((!w->gen.random || w->vf.load->no_random || gen_draws_fio_offsets(&w->gen)) &&
	    worker_verify_only_replays(w->job) && !off_grid(w, iv)) {
		if (!(w->vf.maps = new_maps(w, iv)) || !(w->vf.starts = new_maps(w, iv)))
			return -ENOMEM;
		worker_verify_order_setup(w);
		w->vf.load_budget = UINT64_MAX;
		return 0;
	}
	if (!bs || bs % iv)
		return state_error(w, EINVAL, "", "needs one write block size, a multiple of verify_interval");
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
	uint64_t bytes = worker_verify_run_chunks(w) * w->vf.vfy->interval;
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
	    !(ioe_opens_files(j->ioengine) || ioe_is_remote(j->ioengine) || ioe_fakes_io(j->ioengine)))
		return 0;
	iv = chunk_bytes(j);
	w->vf.vfy = malloc(sizeof(*w->vf.vfy));
	if (!w->vf.vfy)
		return -ENOMEM;
	ret = vfy_init(w->vf.vfy, j->verify, iv, w->clone->seed, j->verify_pattern,
		       j->verify_pattern_len);
	if (ret == -ENOMEM || ret == -ENOPKG)
		return ret;	/* -ENOPKG: the preflight names it first (pf_check_aux) */
	if (ret)
		return setup_error(w, j->verify == PLAN_VERIFY_PATTERN
					      ? "verify=pattern needs verify_pattern"
					      : "verify_interval cannot hold the block header and digest");
	if (vfy_set_offset(w->vf.vfy, j->verify_offset_bytes))
		return offset_error(w, j->verify_offset_bytes, iv);
	w->vf.vfy->thread = (uint16_t)w->clone->thread_number;
	w->vf.vfy->offset_at = j->verify_pattern_offset_at;
	w->vf.vfy->nr_offset_at = j->nr_verify_pattern_offsets;
	frand_seed(&w->vf.seeds, w->clone->verify_seed, j->random_tausworthe64);
	w->vf.seeds_round = w->gen.rounds;
	(void)fill;
	/* null: the writes are stamped and their read-back counted, as fio's; nothing is checked. */
	w->vf.fake = ioe_fakes_io(j->ioengine);
	w->vf.reads = !job_writes(j) && plan_rw_has_ddir(j->rw, PLAN_DDIR_READ) && !j->verify_only &&
		      !w->vf.fake;
	if (j->verify_async && !w->vf.fake && (w->vf.reads || j->verify_only || (job_writes(j) && j->do_verify)) &&
	    (ret = start_async(w)))
		return ret;
	if (j->verify_only && j->verify_state_load)
		return load_state(w, iv);
	/* verify_only draws the writes again to check only those (worker_verify_only.c). */
	if (worker_verify_only_replays(j) && !off_grid(w, iv)) {
		if (!(w->vf.maps = new_maps(w, iv)) || !(w->vf.starts = new_maps(w, iv)))
			return -ENOMEM;
		worker_verify_order_setup(w);
		return 0;
	}
	if (!job_writes(j) || j->verify_only || (!j->do_verify && !j->verify_state_save))
		return 0;
	if ((ret = grid_error(w, iv)))
		return ret;
	if (j->verify_state_save && ((w->vf.state = calloc(1, sizeof(*w->vf.state))) == NULL ||
				     vstate_init(w->vf.state, j->name, j->iodepth, w->gen.nr_files,
						 w->clone->thread_number - 1)))
		return -ENOMEM;
	if (j->verify_state_save && !j->verify_state_save_asked)
		w->vf.state_taken = state_taken_now(w);
	if (j->do_verify && (!(w->vf.maps = new_maps(w, iv)) || !(w->vf.starts = new_maps(w, iv))))
		return -ENOMEM;
	worker_verify_order_setup(w);
	worker_verify_numberio_setup(w);
	return worker_trim_setup(w);
}

/*
 * Written at the thread's end, interrupted or not; a failure of a save asked
 * for is the job's error (fio says it and exits 0: the state is lost unseen).
 * Saved by fio's default rather than asked for, a user's file at the name stays
 * and the state is not saved (the preflight's warning said so), and a save that
 * fails (a full disk, a read-only working directory) is a warning at the end.
 */
static void save_state(struct worker *w)
{
	bool asked = w->job->verify_state_save_asked;
	char path[4096], what[320];
	int ret;

	ret = vstate_save(state_path(w, path, sizeof(path)), w->vf.state, asked);
	if (!asked && ret == -EEXIST)
		w->res.state_kept = !w->vf.state_taken;	/* one that came since: said at the end */
	if (!ret || (!asked && ret == -EEXIST))
		return;
	if (!asked) {
		w->res.state_lost = -ret;	/* said at the end */
		return;
	}
	/* The message names the state file, not the job's data file (.file: none of them). */
	snprintf(what, sizeof(what), "verify_state_save: writing %.280s", path);
	worker_error(w, .err = -ret, .file = UINT32_MAX, .what = what);
	worker_set_error(w, -ret);
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
	worker_verify_numberio_release(w);
	free_maps(w, w->vf.maps);
	free_maps(w, w->vf.starts);
	w->vf.starts = NULL;
	worker_verify_order_release(w);
	free(w->vf.buf);
	w->vf.buf = NULL;
	if (w->vf.vfy)
		vfy_release(w->vf.vfy);
	free(w->vf.vfy);
	w->vf.maps = NULL;
	w->vf.vfy = NULL;
}
