/*
 * engine/gen/zones.c - zonemode=strided: which zone a file's I/O stays in, and
 * when the next one starts (zones.h).
 */
#include "engine/gen/zones.h"

#include "engine/gen/draw.h"
#include "engine/gen/lfsr.h"
#include "engine/gen/randmap.h"

/*
 * zonemode=strided: the distance between zone starts, which is also the span I/O
 * stays in.  A share of the file (zonerange=1%) is cut to a multiple of 4 KiB, so
 * every zone starts where direct I/O may (1% of 1234 MiB is 12939427 bytes, and
 * the second sample's read failed with EINVAL).
 */
uint64_t gen_zone_range(const struct gen *g, const struct gen_file *f)
{
	const struct plan_job *j = g->job;
	uint64_t r;

	if (j->zone_range_bytes)
		return j->zone_range_bytes;
	if (!j->zone_range_ppm)
		return j->zone_size_bytes;
	r = plan_share_ppm(f->len, j->zone_range_ppm);
	return r >= 4096 ? r & ~(uint64_t)4095 : r;
}

/*
 * fio's last_block in a strided zone: the blocks of ba bytes a draw may start
 * at are zonerange's, whatever is left of the file, so a draw may land past
 * its end (and fail the fill there, as fio's does).
 */
uint64_t gen_zone_last_block(const struct gen *g, const struct gen_file *f, uint8_t d)
{
	uint64_t range = gen_zone_range(g, f), over = g->min_bs[d] > g->ba[d] ? g->min_bs[d] - g->ba[d] : 0;

	return range > over ? (range - over) / g->ba[d] : 0;
}

/*
 * As fio's file reset: I/O starts over at the zone's start with an empty random
 * map and no last I/O in any direction (so trimwrite's next direction is decided
 * afresh, as fio's last_start of -1).  fio restarts its lfsr from the same seed,
 * so with random_generator=lfsr every zone is visited in the same order; the
 * random map's order is new each time.
 */
void gen_zone_reset(struct gen *g, struct gen_file *f)
{
	for (uint8_t d = 0; d < PLAN_DDIR_NR; d++) {
		f->pos[d] = f->zone_start;
		f->last_start[d] = 0;
	}
	if (f->map.nr_bits)
		randmap_reset(&f->map);
	if (g->use_lfsr)
		lfsr_reset(&f->lfsr, g->clone->block_seed);
}

/*
 * zonemode=strided as fio's setup_strided_zone_mode: after zonesize bytes the
 * next zone starts zonerange + zoneskip further on (back at the region's start
 * past its end).  I/O stays within zonerange bytes of the zone's start:
 * sequential I/O wraps there, random I/O draws from the zone's blocks only, and
 * every zonerange bytes the zone starts over with a fresh random map, so with
 * zonesize > zonerange every block is done once per zonerange bytes.
 */
static void strided_zone(struct gen *g, struct gen_file *f, uint8_t d)
{
	const struct plan_job *j = g->job;
	uint64_t range = gen_zone_range(g, f);

	if (!range)
		return;
	if (g->zone_bytes >= j->zone_size_bytes) {
		g->zone_bytes = 0;
		f->zone_start += range + j->zone_skip_bytes;
		/* fio wraps to get_start_offset: file_append's is the file's end, where nothing fits */
		if (f->zone_start >= gen_zone_end(g, f))
			f->zone_start = g->append_once ? f->len : 0;
		f->pos[d] = f->zone_start;
	}
	/* fio wraps once the last I/O ended past the zone, before a hole is added (a
	 * holed pass's position here has it): the I/O after the last may start past it. */
	if (f->pos[d] >= f->zone_start + range + (g->random ? 0 : g->skip))
		f->pos[d] = f->zone_start;
	if (g->zone_bytes % range == 0)
		gen_zone_reset(g, f);
}

/*
 * fio's get_next_seq_offset wraps a holed pass whose next offset, counted from
 * the zone's start, passes the file's size (a zonerange larger than the file),
 * though its last I/O ended inside the file; it takes the zone's start as that
 * offset, so the pass goes on at twice the zone's start in the file.
 */
static void holed_wrap(struct gen_file *f, uint8_t d, uint64_t skip)
{
	uint64_t size = f->start + f->room;

	if (f->pos[d] != f->zone_start && f->pos[d] - skip < f->room && f->pos[d] - f->zone_start >= size)
		f->pos[d] = f->start + 2 * f->zone_start;
}

/*
 * Sequential I/O that reaches the zones' end inside the last zone (zonerange
 * not dividing it) ends the job, as fio finds no next offset there; a
 * time-based job goes on at the zone's start.  Past the region of one file,
 * a time-based job's does at once (fio's get_next_seq_offset compares with the
 * region's end there), so each such zone repeats its first block.
 */
bool gen_zone_next(struct gen *g, struct gen_file *f, uint8_t d)
{
	uint64_t end = gen_zone_end(g, f);

	strided_zone(g, f, d);
	if (f->zone_start >= end)
		return false;	/* file_append's zones wrapped to the file's end: no room */
	if (g->random)
		return true;
	if (gen_zones_walk(g, f) && !g->limited && g->nr_files == 1 && f->pos[d] >= f->io_size)
		f->pos[d] = f->zone_start;
	if (g->skip)
		holed_wrap(f, d, g->skip);
	if (f->pos[d] < end && f->pos[d] - f->zone_start < f->io_size)
		return true;
	if (g->limited)
		return false;
	f->pos[d] = f->zone_start;
	return true;
}

bool gen_zone_fill_fails(const struct gen *g, const struct gen_file *f, uint8_t d, uint64_t len)
{
	const struct plan_bs *b = gen_bs_of(g, d);
	uint64_t pos = f->pos[d];

	if (b->max_bytes > b->min_bytes && pos + b->min_bytes > f->io_size)
		return true;
	return pos + len > gen_fill_end(g, f);
}

uint64_t gen_file_span(const struct gen *g, uint32_t i)
{
	return gen_zone_end(g, &g->files[i]);	/* len; in strided zones the file's end */
}
