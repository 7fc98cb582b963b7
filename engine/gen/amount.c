/*
 * engine/gen/amount.c - how much a window does: a pass over the files (holed
 * passes and the ones that wrap), and io_size= in bytes or as a percentage.
 *
 * Apart from iogen.c, which draws the I/Os, because these are the amounts
 * fio's setup_files and keep_running weigh, asked once a window or a pass.
 */
#include "engine/gen/draw.h"
#include "engine/gen/iogen.h"

/*
 * io_size=, or io_size=N% of each file's region, summed as fio's setup_files
 * does.  A plain or holed sequential pass's gen_file.len is where its last
 * block may end in a larger file (file_reach), past the region: the share is
 * of the region itself there (io_size=70% of size=10k over a 16 KiB file:
 * 7 KiB, 2 blocks, not 3).
 */
uint64_t gen_io_size(const struct gen *g)
{
	const struct plan_job *j = g->job;
	uint64_t sum = 0;

	if (!j->io_size_ppm)
		return j->io_size_bytes;
	for (uint32_t i = 0; i < g->nr_files; i++) {
		const struct gen_file *f = &g->files[i];

		sum += plan_share_ppm(plan_seq_uses_file_size(j) ? f->io_size : f->len, j->io_size_ppm);
	}
	return sum ? sum : 1;
}

uint64_t gen_regions_bytes(const struct gen *g)
{
	uint64_t sum = 0;

	for (uint32_t i = 0; i < g->nr_files; i++)
		sum += g->files[i].io_size;
	return sum ? sum : UINT64_MAX;
}

uint64_t gen_size_capped(const struct gen *g)
{
	uint64_t held = gen_regions_bytes(g), size = g->job->size_bytes;

	return size && size < held ? size : held;
}

bool gen_fio_loop_goes_on(const struct gen *g)
{
	const struct plan_job *j = g->job;
	uint64_t amount = gen_io_size(g), loops = j->loops ? j->loops : 1;

	if (!g->limited)
		return true;
	if (!amount)
		amount = gen_size_capped(g);
	/* held is UINT64_MAX where no region is known: no bound then, not a wrapped one */
	if (amount <= UINT64_MAX / loops && g->done_bytes >= amount * loops)
		return false;
	if (g->limit_ios && g->done_ios >= g->limit_ios)
		return false;
	return !g->round_limit || g->done_bytes - g->round_base < g->round_limit;
}

/*
 * fio's do_io counts the bytes of the I/Os its engine queued (io_queue_event's
 * FIO_Q_QUEUED; a sync engine's completed ones are not counted) and ends its
 * round at fio's total_bytes: size= capped at the files (setup_files), or
 * io_size= when larger for a random job that writes without a map (norandommap,
 * or a blockalign apart from the block size, which fio turns into norandommap).  So with
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
	uint64_t size, io_size = gen_io_size(g);

	g->round_limit = 0;
	if (!queued || !g->limited || g->trimwrite || j->interlocked || j->trim_backlog ||
	    (j->verify != PLAN_VERIFY_NONE && j->verify_backlog))
		return;
	size = gen_size_capped(g);
	/* fio's fixup_options sets norandommap for a blockalign apart from the block size too. */
	if (g->random && (j->norandommap || gen_draw_aligned_apart(g)) &&
	    plan_rw_has_ddir(j->rw, PLAN_DDIR_WRITE) && io_size > size)
		size = io_size;
	g->round_limit = size;
}

/* Blocks of bs, step apart from `from`, a holed pass issues before one would pass end. */
static uint64_t skip_run(uint64_t from, uint64_t end, uint64_t bs, uint64_t step)
{
	return from + bs <= end ? (end - bs - from) / step + 1 : 0;
}

/* Whether the offset after a run of n blocks from `from` wraps (fio's get_next_seq_offset). */
static bool skip_run_wraps(const struct gen *g, const struct gen_file *f, uint64_t from, uint64_t n,
			   uint64_t bs)
{
	uint64_t last_end = from + (n - 1) * (bs + g->skip) + bs;

	return last_end < f->room && last_end + g->skip >= f->start + f->room;
}

/*
 * rw=read:<n> with a fixed block size, as in fio: the offsets step bs + n
 * while a block fits (gen_file.end).  One that ends on the file's end ends
 * the pass (size=1m bs=4k rw=read:8k reads 86 blocks); one that ends before
 * it, with the next offset on or past the file's end, wraps to offset= (fio's
 * quirk: the region's start as a position in it) and the pass goes on from
 * there (size=64k bs=4k rw=write:4k writes every other block twice), up to
 * the region's size when it wraps again; a block that would straddle the end
 * ends the pass short (fio's t0007: size=128m bs=1m rw=read:512k reads 85
 * MiB).  The file's end is its size when fio set the job up: over a 16 KiB
 * file size=10k bs=4k rw=read:4k wraps after 8k and reads 12 KiB.  *forever:
 * the pass wraps for good, so only the amount ends it.
 */
static uint64_t skip_pass_bytes(const struct gen *g, const struct gen_file *f, bool *forever)
{
	const struct plan_bs *b = gen_bs_of(g, g->only_ddir);
	uint64_t bs = b->min_bytes, step = bs + g->skip, end = f->end[g->only_ddir], n0, n1;

	*forever = false;
	if (!bs || b->max_bytes != bs || b->nr_split || g->stride)
		return f->io_size;	/* drawn lengths: found as they go (seq_offset) */
	n0 = skip_run(0, end, bs, step);
	if (!n0 || !skip_run_wraps(g, f, 0, n0, bs))
		return n0 * bs < f->io_size ? n0 * bs : f->io_size;
	n1 = skip_run(f->start, end, bs, step);
	*forever = n1 && skip_run_wraps(g, f, f->start, n1, bs);
	return (n0 + n1) * bs < f->io_size ? (n0 + n1) * bs : f->io_size;
}

/*
 * Whether a random pass ends where its blocks do (a permutation, fio's map or
 * lfsr): draws with replacement (norandommap, or a blockalign apart from the
 * block size, which fio turns into norandommap) go on to the region's bytes.
 */
static bool draws_run_out(const struct gen *g)
{
	return g->use_perm || g->use_map || g->use_lfsr;
}

/*
 * fio bounds a job by size= (each file's io_size summed), and a pass ends
 * before that where its files run out: a holed one's files may each end
 * short, but one that wraps for good goes on to size= whatever the others do.
 */
uint64_t gen_pass_bytes(const struct gen *g)
{
	uint64_t sum = 0, sizes = 0;
	bool forever, wraps = false;

	for (uint32_t i = 0; i < g->nr_files; i++) {
		const struct gen_file *f = &g->files[i];

		sizes += f->io_size;
		/* Strided zones wrap to the region's start, so skips shorten no pass there;
		 * their region steps in whole blocks, but fio's amount is the size itself. */
		if (g->skip && !g->random && !g->mixed && !g->job->zone_size_bytes) {
			sum += skip_pass_bytes(g, f, &forever);
			wraps = wraps || forever;
		} else {	/* a sequential pass's last block may reach past it (file_reach): the size is the amount */
			sum += (g->random && draws_run_out(g)) || g->job->interlocked ? f->len : f->io_size;
		}
	}
	return wraps ? sizes : sum;
}
