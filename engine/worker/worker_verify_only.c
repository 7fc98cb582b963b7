/*
 * engine/worker/worker_verify_only.c - verify_only: checking what an earlier
 * run of the same job wrote, without writing.
 *
 * A job that writes every block of its region (sequential, or random with a
 * random map) leaves every chunk stamped, and verify_only checks them all.
 * One that does not -- norandommap=1, a holed sequential write (rw=write:8k),
 * io_size= or number_ios= below the region -- leaves chunks it never wrote,
 * which hold whatever was there before: checking them reports mismatches in
 * a file that is intact.  So, as fio's do_dry_run, the job's generator runs
 * again without I/O: it draws the same offsets as the run that wrote (the same
 * seeds), and each write drawn goes on the written map as a completed write
 * would (a later one that overlaps replaces it), round by round with loops=N.
 * The read-back then checks those writes, each whole.  Unlike fio, the drawn
 * writes are not counted as the job's writes: none was made.
 * A time-based job has no end to draw to, a replayed or trimming one other
 * work than its generator's: they check every chunk, as before.
 *
 * Also verify_only's own read sizes and pace (only_block, pace).
 */
#include "engine/worker/worker.h"

/* Whether the job's writes come from its generator alone, to an end a dry run can reach. */
bool worker_verify_only_replays(const struct plan_job *j)
{
	return j->verify_only && plan_rw_has_ddir(j->rw, PLAN_DDIR_WRITE) && !j->time_based &&
	       !j->replay && !plan_rw_has_ddir(j->rw, PLAN_DDIR_TRIM) && !j->trim_percentage &&
	       !j->interlocked && !j->openfiles;
}

/*
 * Draws one round of the job's I/O without making it, logging each write on
 * the written map.  True when the round ended at a pass with more to come
 * (the generator waits for gen_round_done).
 */
bool worker_verify_only_draw(struct worker *w)
{
	struct gen_io io;

	while (!worker_stopping(w)) {
		if (!gen_next_ddir(&w->gen, gen_pick_ddir(&w->gen), &io))
			return w->gen.round_due;
		if (io.ddir == PLAN_DDIR_WRITE)
			worker_verify_log_write(w, io.file, io.offset, io.len);
	}
	return false;
}

/*
 * verify_only reads the job's blocks whole, as fio's (bs=8k verify_interval=1k:
 * 8 KiB reads, not 1 KiB ones), where the block is one fixed size on the chunk
 * grid; else chunk by chunk.  A pattern starts again at each block, as it was
 * written.
 */
uint64_t worker_verify_only_block(const struct worker *w)
{
	const struct plan_job *j = w->job;
	const struct plan_bs *b = &j->bs[plan_rw_has_ddir(j->rw, PLAN_DDIR_WRITE) ? PLAN_DDIR_WRITE : PLAN_DDIR_READ];
	uint64_t iv = w->vf.vfy->interval;

	return b->min_bytes == b->max_bytes && !b->nr_split && b->min_bytes % iv == 0 ? b->min_bytes : iv;
}

/*
 * verify_only honours rate= and rate_iops= for its reads, as fio's (rate=8m:
 * 8418071 B/s): a run of n chunks waits until it is due at that pace.
 */
void worker_verify_only_pace(struct worker *w, uint64_t n)
{
	const struct plan_job *j = w->job;
	struct worker_verify *v = &w->vf;
	uint64_t bps = j->rate_bytes_per_s[PLAN_DDIR_READ], iops = j->rate_iops[PLAN_DDIR_READ];
	uint64_t now = clk_now(&w->clk), due = 0;

	if (!j->verify_only || (!bps && !iops))
		return;
	if (!v->pace_t0)
		v->pace_t0 = now;
	/* A run is due once its own time at that pace has passed: runs are large, the rate holds whole. */
	v->pace_chunks += n;
	if (bps)
		due = (uint64_t)((double)v->pace_chunks * (double)v->vfy->interval * 1e9 / (double)bps);
	if (iops && (uint64_t)((double)v->pace_chunks * 1e9 / (double)iops) > due)
		due = (uint64_t)((double)v->pace_chunks * 1e9 / (double)iops);
	due += v->pace_t0;
	while (now < due && !worker_stopping(w))
		now = clk_sleep_until(&w->clk, due, 100000000ull);
}
