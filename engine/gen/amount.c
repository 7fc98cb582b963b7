/*
 * engine/gen/amount.c - how much a window does: a pass over the files (holed
 * passes and the ones that wrap), and io_size= in bytes or as a percentage.
 *
 * Apart from iogen.c, which draws the I/Os, because these are the amounts
 * fio's setup_files and keep_running weigh, asked once a window or a pass.
 */
#include "engine/gen/draw.h"
#include "engine/gen/iogen.h"

/* io_size=, or io_size=N% of each file's region, summed as fio's setup_files does. */
uint64_t gen_io_size(const struct gen *g)
{
	uint64_t sum = 0;

	if (!g->job->io_size_ppm)
		return g->job->io_size_bytes;
	for (uint32_t i = 0; i < g->nr_files; i++)
		sum += plan_share_ppm(g->files[i].len, g->job->io_size_ppm);
	return sum ? sum : 1;
}

uint64_t gen_regions_bytes(const struct gen *g)
{
	uint64_t sum = 0;

	for (uint32_t i = 0; i < g->nr_files; i++)
		sum += g->files[i].io_size;
	return sum ? sum : UINT64_MAX;
}

/*
 * fio's do_io counts the bytes of the I/Os its engine queued (io_queue_event's
 * FIO_Q_QUEUED; a sync engine's completed ones are not counted) and ends its
 * round at fio's total_bytes: size= capped at the files (setup_files), or
 * io_size= when larger for a random job that writes without a map.  So with
 * an engine that queues, rw=rw loops=2 size=256k bs=64k is two rounds of
 * 3 reads and a write (fio's next loop re-seeds the mix), not one pass of 7
 * reads and a write that ends where the reads reach the file's end.  Left
 * unbounded where fio's count has I/Os the generator does not draw
 * (verify_backlog's reads, trim_backlog's trims, trimwrite's writes), and for
 * interlocked jobs, which the shared tickets bound.
 */
void gen_bound_rounds(struct gen *g, bool queued)
{
	const struct plan_job *j = g->job;
	uint64_t held = gen_regions_bytes(g), size, io_size = gen_io_size(g);

	g->round_limit = 0;
	if (!queued || !g->limited || g->trimwrite || j->interlocked || j->trim_backlog ||
	    (j->verify != PLAN_VERIFY_NONE && j->verify_backlog))
		return;
	size = j->size_bytes && j->size_bytes < held ? j->size_bytes : held;
	if (g->random && j->norandommap && plan_rw_has_ddir(j->rw, PLAN_DDIR_WRITE) && io_size > size)
		size = io_size;
	g->round_limit = size;
}

/*
 * rw=read:<n> with a fixed block size, as in fio: the offsets step bs + n.  A
 * block that ends on the region's end ends the pass (size=1m bs=4k
 * rw=read:8k reads 86 blocks); one that ends before it, with the next offset
 * on or past the end, wraps to the start and the pass goes on to the region's
 * size (size=64k bs=4k rw=write:4k writes every other block twice); a block
 * that would straddle the end ends the pass short (fio's t0007: size=128m
 * bs=1m rw=read:512k reads 85 MiB).
 */
static bool skip_wraps(const struct gen *g, uint8_t d, uint64_t len)
{
	const struct plan_bs *b = gen_bs_of(g, d);
	uint64_t bs = b->min_bytes, step = bs + g->skip, last_end;

	if (!bs || b->max_bytes != bs || b->nr_split || g->stride || len < bs)
		return true;
	last_end = (len - bs) / step * step + bs;
	return last_end < len && last_end + g->skip >= len;
}

static uint64_t skip_pass_bytes(const struct gen *g, uint64_t len)
{
	uint64_t bs = gen_bs_of(g, g->only_ddir)->min_bytes;

	return skip_wraps(g, g->only_ddir, len) ? len : ((len - bs) / (bs + g->skip) + 1) * bs;
}

uint64_t gen_pass_bytes(const struct gen *g)
{
	uint64_t sum = 0;

	for (uint32_t i = 0; i < g->nr_files; i++) {
		const struct gen_file *f = &g->files[i];

		/* Strided zones wrap to the region's start, so skips shorten no pass there;
		 * their region steps in whole blocks, but fio's amount is the size itself. */
		if (g->skip && !g->random && !g->mixed && !g->job->zone_size_bytes)
			sum += skip_pass_bytes(g, f->len);
		else	/* a sequential pass's last block may reach past it (file_reach): the size is the amount */
			sum += g->random || g->job->interlocked ? f->len : f->io_size;
	}
	return sum;
}
