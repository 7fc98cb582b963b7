/*
 * engine/gen/draw.c - the generator's random draws, made as fio 3.33 makes them.
 *
 * Where ioplan's numbers stand next to fio's, a random job with varying
 * lengths must move fio's bytes, and those follow from fio's exact draws: its
 * taus88 generators seeded as fio seeds them, its block draw scaled from one
 * 32-bit value, its random map (randmap.h) indexed in each direction's own
 * block size, its bssplit walked in share order with a fit check, its zoned
 * distribution's percentile table, its lfsr register (lfsr.h), and a repeatable job's generators starting
 * over every loop.  Each function names the fio routine it follows.
 */
#include <errno.h>
#include <stdlib.h>

#include "engine/gen/draw.h"

/* fio's generators from the clone's fio seeds (td_fill_rand_seeds). */
void gen_draw_seed(struct gen *g)
{
	const struct plan_clone *c = g->clone;

	taus88_seed(&g->off_rng, (uint32_t)c->block_seed);
	if (g->rng64)
		frand_seed(&g->rng64[0], c->block_seed, true);
	taus88_seed(&g->zone_rng, c->zone_seed);
	taus88_seed(&g->mix_rng, c->mix_seed);
	for (uint8_t d = 0; d < PLAN_DDIR_NR; d++) {
		taus88_seed(&g->bs_rng[d], (uint32_t)c->bs_seed[d]);
		if (g->rng64)
			frand_seed(&g->rng64[1 + d], c->bs_seed[d], true);
		taus88_seed(&g->seq_rand_rng[d], c->seq_rand_seed);
	}
	if (g->drawn_service)
		file_pick_init(&g->pick, g->job, g->nr_files, c->file_seed);
}

/*
 * fio's next loop (clear_io_state): a repeatable job's generators start over
 * (the file service's too), so each loop repeats the first one's draws, and
 * the mix decides afresh.
 */
void gen_draw_next_loop(struct gen *g)
{
	if (g->job->randrepeat)
		gen_draw_seed(g);
	g->mix_until = 0;
}

/*
 * fio sorts a bssplit by share, smallest first (stable for equal shares, as
 * glibc's merge sort leaves them), and its draw walks that order.  The sort
 * goes into the generator's own copy: the plan's table is read by every clone
 * of the job at once, and sorting it in place let one clone read another's
 * half-sorted table (an entry doubled, one lost) and draw other sizes.
 */
int gen_draw_sort_splits(struct gen *g)
{
	uint32_t n = 0;

	for (uint8_t d = 0; d < PLAN_DDIR_NR; d++)
		n += g->job->bs[d].nr_split;
	g->splits = n ? malloc(n * sizeof(*g->splits)) : NULL;
	if (n && !g->splits)
		return -ENOMEM;
	n = 0;
	for (uint8_t d = 0; d < PLAN_DDIR_NR; d++) {
		struct plan_bs *b = &g->bs[d];
		struct plan_bssplit *s = g->splits ? g->splits + n : NULL;	/* NULL + 0 is undefined in C */

		*b = g->job->bs[d];
		for (uint32_t i = 0; i < b->nr_split; i++) {
			struct plan_bssplit x = b->split[i];
			uint32_t k = i;

			for (; k && s[k - 1].pct > x.pct; k--)
				s[k] = s[k - 1];
			s[k] = x;
		}
		if (b->nr_split)
			b->split = s;
		n += b->nr_split;
	}
	return 0;
}

/* True when some direction's blockalign is not its block size. */
bool gen_draw_aligned_apart(const struct gen *g)
{
	for (uint8_t d = 0; d < PLAN_DDIR_NR; d++)
		if (g->job->bs[d].align_bytes && g->job->bs[d].align_bytes != g->job->bs[d].min_bytes)
			return true;
	return false;
}

/* fio's min_bs, blockalign and rw_min_bs (the least min_bs of all three directions). */
void gen_draw_block_sizes(struct gen *g)
{
	g->rw_min_bs = UINT64_MAX;
	for (uint8_t d = 0; d < PLAN_DDIR_NR; d++) {
		/* Per direction as given, bs_is_seq_rand or not: only the lengths drawn swap (gen_pick_len). */
		const struct plan_bs *b = &g->job->bs[d];

		g->min_bs[d] = b->min_bytes ? b->min_bytes : 4096;
		g->ba[d] = b->align_bytes ? b->align_bytes : g->min_bs[d];
		if (g->job->bs[d].min_bytes && g->job->bs[d].min_bytes < g->rw_min_bs)
			g->rw_min_bs = g->job->bs[d].min_bytes;
	}
	if (g->rw_min_bs == UINT64_MAX)
		g->rw_min_bs = g->min_bs[g->only_ddir];
}

/* fio's last_block: the blocks of ba bytes a draw may start at. */
uint64_t gen_draw_last_block(const struct gen *g, const struct gen_file *f, uint8_t d)
{
	uint64_t size = f->io_size, over = g->min_bs[d] > g->ba[d] ? g->min_bs[d] - g->ba[d] : 0;

	return size > over ? (size - over) / g->ba[d] : 0;
}

/* fio's scaled draw from its random_state: n * (r / (rand_max + 1.0)), 64 bits wide under tausworthe64. */
static uint64_t off_below(struct gen *g, uint64_t n)
{
	return g->rng64 ? frand_below(&g->rng64[0], n) : gen_draw_below(g, n);
}

/*
 * random_distribution=zoned/zoned_abs as fio draws it: a percentile picks the
 * zone (fio's zone_state), then a uniform block within it.  A zoned_abs zone
 * past the region's end finds no room, as fio fails the I/O there.
 */
static uint64_t zoned_block(struct gen *g, uint8_t d, uint64_t lastb)
{
	const struct plan_job *j = g->job;
	uint32_t v = taus88_between(&g->zone_rng, 1, 100) - 1, acc = 0, pct = 0, i;
	uint64_t bytes = 0, lo, hi;

	for (i = 0; i < j->nr_rand_zones && v >= acc + j->rand_zones[i].io_pct; i++) {
		acc += j->rand_zones[i].io_pct;
		pct += j->rand_zones[i].range_pct;
		bytes += j->rand_zones[i].range_bytes;
	}
	if (i == j->nr_rand_zones)
		return off_below(g, lastb);
	if (j->rand_zones[i].range_bytes) {
		lo = bytes / g->ba[d];
		hi = (bytes + j->rand_zones[i].range_bytes) / g->ba[d];
		if (hi > lastb)
			return RANDMAP_NONE;
		return lo + off_below(g, hi - lo);
	}
	lo = pct * lastb / 100;
	return lo + off_below(g, lastb * j->rand_zones[i].range_pct / 100);
}

/*
 * fio's uniform draw: a block of ba bytes, scaled from one taus88 draw; with the
 * map, a block already done moves on to the next free one.  The map is indexed
 * in the direction's own block units, as fio's is.  RANDMAP_NONE: no room left.
 */
uint64_t gen_draw_block(struct gen *g, struct gen_file *f, uint8_t d)
{
	uint64_t lastb = f->lastb[d], b;

	if (!lastb)
		return RANDMAP_NONE;
	if (g->use_lfsr)
		return lfsr_next(&f->lfsr, &b) ? b : RANDMAP_NONE;
	if (g->use_dist)
		return zoned_block(g, d, lastb);
	b = off_below(g, lastb);
	if (f->map.nr_bits && randmap_isset(&f->map, b))
		b = randmap_next_free(&f->map, b);
	return b;
}

/* fio's mark_random_map: the I/O's blocks are marked up to the first one done, and it is cut there. */
uint64_t gen_draw_mark(struct gen *g, struct gen_file *f, uint8_t d, uint64_t rel, uint64_t len)
{
	uint64_t bs = g->min_bs[d], n = randmap_set_run(&f->map, rel / bs, (len + bs - 1) / bs);

	return n && n * bs < len ? n * bs : len;
}

/* fio's bssplit pick from one draw: the first entry whose cumulative share covers r and that fits. */
static uint64_t split_len(const struct plan_bs *b, uint64_t r, bool use64, uint64_t room)
{
	uint64_t perc = 0, len = 0;

	for (uint32_t i = 0; i < b->nr_split; i++) {
		if (!b->split[i].pct)
			continue;
		len = b->split[i].bs_bytes;
		perc += b->split[i].pct;
		/* fio's r / perc <= max / 100; 32 bits wide without a division per entry. */
		if ((use64 ? r / perc <= UINT64_MAX / 100 : r < (UINT32_MAX / 100 + 1) * perc) && len <= room)
			break;
	}
	return len;
}

/*
 * fio's get_next_buflen: bsrange draws min + max * u, bssplit walks its shares,
 * both rounded down to the minimum; a length that does not fit in room (the
 * bytes to the region's end, when known) is drawn again.  0: not even the
 * minimum fits.  The draws are fio's (bsrange_state), so with fio's seeds a job
 * picks the lengths fio's does.
 */
uint64_t gen_pick_len(struct gen *g, uint8_t d, uint64_t room)
{
	const struct plan_bs *b = gen_bs_of(g, d);
	ptrdiff_t k = b - g->bs;	/* the state of the sizes drawn (bs_is_seq_rand: not d's) */
	bool use64 = g->rng64;
	uint64_t min = b->min_bytes, max = b->max_bytes, len;

	if (max <= min)
		return min;
	if (min > room)
		return 0;
	/* Bounded: a split whose fitting entries all have 0% would loop in fio forever. */
	for (uint32_t tries = 0; tries < 1u << 16; tries++) {
		uint64_t r = use64 ? frand_next(&g->rng64[1 + k]) : taus88_next(&g->bs_rng[k]);
		double span = use64 ? (double)UINT64_MAX + 1.0 : 4294967296.0;	/* fio's rand_max + 1.0 */

		len = b->nr_split ? split_len(b, r, use64, room) : min + (uint64_t)((double)max * ((double)r / span));
		if (!g->job->bs_unaligned)
			len -= len % min;
		if (len > max)
			len = max;
		if (len <= room)
			return len;
	}
	return 0;
}

