/*
 * engine/gen/gen_setup.c - a worker's generator made ready (iogen.h: gen_init):
 * each file's region, block counts, where a sequential pass ends and the file's
 * end a holed one wraps at, the directions and block sizes, and whether
 * offsets come from a permutation or fio's random map.  Apart from iogen.c,
 * which draws the I/Os and keeps the passes: this runs once per job, not per I/O.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "engine/gen/iogen.h"
#include "engine/gen/diskspd_zones.h"
#include "engine/gen/draw.h"
#include "engine/gen/file_service.h"
#include "engine/gen/rng.h"
#include "engine/gen/zones.h"

static bool job_is_mixed(enum plan_rw rw)
{
	return rw == PLAN_RW_RW || rw == PLAN_RW_RANDRW || rw == PLAN_RW_TRIMWRITE ||
	       rw == PLAN_RW_RANDTRIMWRITE;
}

static uint8_t first_ddir(enum plan_rw rw)
{
	for (int d = 0; d < PLAN_DDIR_NR; d++)
		if (plan_rw_has_ddir(rw, (enum plan_ddir)d))
			return (uint8_t)d;
	return PLAN_DDIR_READ;
}

/* The smallest block and alignment over the directions the job issues. */
static void job_min_bs(const struct gen *g, uint64_t *min_bs, uint64_t *align)
{
	uint64_t m = UINT64_MAX, a = UINT64_MAX, x;

	for (uint8_t d = 0; d < PLAN_DDIR_NR; d++) {
		const struct plan_bs *b;

		if (!plan_rw_has_ddir(g->job->rw, (enum plan_ddir)d))
			continue;
		b = gen_bs_of(g, d);
		x = b->min_bytes;
		for (uint32_t i = 0; i < b->nr_split; i++)
			if (b->split[i].bs_bytes && b->split[i].bs_bytes < x)
				x = b->split[i].bs_bytes;
		if (x < m)
			m = x;
		x = b->align_bytes ? b->align_bytes : x;
		if (x < a)
			a = x;
	}
	*min_bs = m == UINT64_MAX || !m ? 4096 : m;
	*align = a == UINT64_MAX || !a ? *min_bs : a;
}

uint64_t gen_interlock_limit(const struct plan_job *j, uint64_t region_len)
{
	uint64_t step = j->sequential_stride_bytes ? j->sequential_stride_bytes
						    : j->bs[first_ddir(j->rw)].min_bytes;

	return step ? (region_len / step) * (j->loops ? j->loops : 1) : 0;
}

/* A pass of bs-byte blocks from 0: those starting below io whose block ends within room. */
static uint64_t seq_end(uint64_t io, uint64_t room, uint64_t bs)
{
	uint64_t up = (io + bs - 1) / bs * bs, down = room / bs * bs;

	return up < down ? up : down;
}

/*
 * Where each direction's sequential pass ends (gen_file.end), found once so
 * that the pass's test per I/O costs what it did.  fio issues a block while its offset
 * is inside the region and the block ends inside the file (its
 * real_file_size), so a plain pass of one block size reaches past the
 * region's unrounded end into an existing file: size=10k bs=4k over 16 KiB
 * reads 12 KiB, nrfiles=3 size=8k one block of each file.  A holed pass's
 * offsets are no whole blocks from the start (it wraps to offset=, past the
 * region's start), so its end is where a block begun inside the region may
 * end: size=10k bs=4k rw=read:4k reads 8k-12k too.  In a file laid out to
 * the region (room == len) either is the region's end, as before.
 * Drawn lengths must fit the region (fio's io_u_fits): theirs ends there.
 */
static void file_reach(struct gen *g, struct gen_file *f, uint64_t room)
{
	uint64_t len = f->len, bs;
	bool reaches = plan_seq_reaches(g->job), holed = plan_seq_holed(g->job);

	f->room = room > len ? room : len;
	for (uint8_t d = 0; d < PLAN_DDIR_NR; d++) {
		bs = (reaches || holed) && plan_rw_has_ddir(g->job->rw, (enum plan_ddir)d)
			     ? plan_seq_fixed_bs(g->job, (enum plan_ddir)d) : 0;
		if (!bs)
			f->end[d] = len;
		else if (reaches)
			f->end[d] = seq_end(len, f->room, bs);
		else
			f->end[d] = len + bs - 1 < f->room ? len + bs - 1 : f->room;
		if (f->end[d] > f->len)
			f->len = f->end[d];
	}
}

/*
 * fio's get_start_offset for file idx of the clone, of a file size: offset=N%
 * and offset_increment=N% are shares of it, rounded up to offset_align (else
 * the least block size), as engine/layout's region_start does at the set-up.
 */
static uint64_t start_of(const struct gen *g, uint32_t idx, uint64_t size)
{
	const struct plan_job *j = g->job;
	const struct plan_clone *c = g->clone;
	const struct plan_file *pf = &c->files[idx];
	uint64_t s = c->offset_bytes ? c->offset_bytes : pf->offset_bytes, a;

	if (pf->offset_ppm)
		s = plan_share_ppm(size, pf->offset_ppm) + (c->offset_bytes - j->offset_bytes);
	if (j->offset_increment_ppm)
		s += c->clone_index * plan_share_ppm(size, j->offset_increment_ppm);
	a = j->offset_align_bytes ? j->offset_align_bytes : plan_min_bs(j);
	return a ? (s / a + (s % a != 0)) * a : s;
}

/* gen_file.fit_shift of file idx: 0 but for a percentage offset of a file the set-up grew. */
static void fit_shift_of(struct gen *g, uint32_t idx)
{
	struct gen_file *f = &g->files[idx];
	uint64_t again;

	f->fit_shift = 0;
	if ((!g->job->offset_ppm && !g->job->offset_increment_ppm) || g->job->file_append ||
	    g->clone->files[idx].is_device)
		return;
	again = start_of(g, idx, f->start + f->room);
	f->fit_shift = again > f->start ? again - f->start : 0;
}

/*
 * fio's clear_io_state, as each loop after the first starts: every file's
 * offset is taken again (get_start_offset) of the size fio's set-up left it
 * (real_file_size: start + room), so a percentage offset of a file the job
 * created (its size 0 at the set-up, the region's end after) moves there:
 * rw=read size=1000k offset=10% loops=3 reads 1000 KiB from 0, then 900 KiB
 * from 100 KiB twice, and a holed or backward pass (rw=read:<n>, :-<n>) alike.
 * The pass keeps io_size= bytes from there, within that size.  Plain, holed and
 * backward sequential passes, and random ones (plan_random_loop_moves): those
 * draw over the region's blocks as before, from the new start, and a draw at or
 * past the file's end fails the fill, ending the file's pass, as fio's
 * get_next_offset (offset=20% size=256k loops=3 of a new file: 64 reads, then
 * two a loop in fio, whose third draw lands past the file's end).  Not zoned or
 * verified.
 */
void gen_loop_offsets(struct gen *g)
{
	const struct plan_job *j = g->job;

	if (!(plan_seq_uses_file_size(j) || plan_seq_back(j) || plan_random_loop_moves(j)) || j->file_append ||
	    j->verify != PLAN_VERIFY_NONE || g->dz || (!j->offset_increment_ppm && !j->offset_ppm))
		return;
	for (uint32_t i = 0; i < g->nr_files; i++) {
		struct gen_file *f = &g->files[i];
		uint64_t real = f->start + f->room, start, old = f->start;

		if (g->clone->files[i].is_device)
			continue;
		start = start_of(g, i, real);
		if (start == f->start || start >= real)
			continue;
		f->start = start;
		if (g->random) {
			f->room = real - start;
			f->moved = true;
			fit_shift_of(g, i);
			continue;
		}
		f->len = f->io_size < real - start ? f->io_size : real - start;
		file_reach(g, f, real - start);
		fit_shift_of(g, i);
		/* fio's io_u_fits still measures io_size= from there, past the file's end */
		f->fit_shift += f->io_size - f->len;
		if (j->rw_seq_back_bytes)
			gen_back_moved(g, f, old);
	}
}

/*
 * fio's __init_rand_distribution: a file's law runs over its ranges of the
 * smaller of the read and write minimum sizes, up to the smaller of the file
 * and the region; a repeatable job seeds it from the file's name (as fio
 * spells it) times the thread's number, another from the offsets' seed.
 */
static void law_init(struct gen *g, struct gen_file *f, uint32_t idx)
{
	const struct plan_job *j = g->job;
	const struct plan_file *pf = &g->clone->files[idx];
	uint64_t range = g->min_bs[PLAN_DDIR_READ] < g->min_bs[PLAN_DDIR_WRITE] ? g->min_bs[PLAN_DDIR_READ]
										 : g->min_bs[PLAN_DDIR_WRITE];
	uint64_t size = f->start + f->room < f->io_size ? f->start + f->room : f->io_size;
	uint64_t nranges = (size + range - 1) / range;
	uint32_t seed = j->randrepeat ? fio_dist_name_hash(pf->fio_name ? pf->fio_name : pf->path) *
					       g->clone->thread_number
				      : (uint32_t)g->clone->block_seed;
	enum fio_dist_kind kind = j->random_distribution == PLAN_RAND_ZIPF ? FIO_DIST_ZIPF :
				  j->random_distribution == PLAN_RAND_PARETO ? FIO_DIST_PARETO : FIO_DIST_GAUSS;

	/* zipf's sum over up to 10 million ranks: the last file's when it has as many ranks. */
	double zetan = idx && g->laws[idx - 1].nranges == nranges ? g->laws[idx - 1].zetan : -1.0;

	fio_dist_init(&g->laws[idx], kind, nranges, j->random_dist_param,
		      j->random_dist_centered ? j->random_dist_center : -1, seed, true, zetan);
}

static int file_init(struct gen *g, struct gen_file *f, uint64_t start, uint64_t len, uint64_t room,
		     uint64_t min_bs, uint32_t idx)
{
	const struct plan_job *j = g->job;
	uint64_t step = g->stride ? g->stride : min_bs;

	memset(f, 0, sizeof(*f));
	f->start = start;
	f->io_size = len;
	f->nblocks = len / g->align;
	/* A sequential pass ends where not even the minimum fits (pass_is_done), as fio's, so
	 * its region is the size itself; interlocked tickets and zones step in whole blocks. */
	f->len = g->random ? f->nblocks * g->align
			   : j->interlocked || j->zone_size_bytes ? len - len % min_bs : len;
	for (uint8_t d = 0; d < PLAN_DDIR_NR; d++)
		f->lastb[d] = g->zoned_draws ? gen_zone_last_block(g, f, d) : gen_draw_last_block(g, f, d);
	file_reach(g, f, room);
	if (j->rw_seq_back_bytes)	/* fio's first offset of a backward pass */
		for (uint8_t d = 0; d < PLAN_DDIR_NR; d++)
			f->pos[d] = gen_back_first(f, j->rw_seq_back_bytes);
	f->nsteps = (f->len > len ? f->len : len) / step;
	/* A file of no length drawn from a filesize= range, or taken as found with nothing past
	 * its offset (the worker let only those through): its first fill fails and it is done
	 * for the pass (gen_pass_is_done), as fio's; it has no blocks to order or map. */
	if (!len && (plan_file_drawn_empty(j, &g->clone->files[idx]) ||
		     plan_file_sized_as_found(j, &g->clone->files[idx])))
		return 0;
	if (!f->len || (g->random ? !f->nblocks : !f->nsteps))
		return -EINVAL;
	if (g->use_perm && !g->use_map)
		perm_init(&f->perm, f->nblocks, &g->rng_off);
	if (g->fio_law)
		law_init(g, f, idx);
	if (g->dz)	/* DISKSPD's ranges over this file's region, not fio's zones */
		return dz_effective(j, len, min_bs, g->align, &g->dz[idx]);
	/* zoned with random_generator=lfsr (offsets.h): one table per clone, over file 0's
	 * blocks; other files fold it. */
	if (g->use_dist && !g->fio_law && idx == 0)
		return dist_init_zones(&g->dist, f->nblocks, g->align, j->rand_zones, j->nr_rand_zones);
	return 0;
}

/* Whether sizes b draws may be longer than a map block, or other than the map's unit. */
static bool sizes_pass_block(const struct plan_bs *b, uint64_t block, uint64_t unit)
{
	if (b->max_bytes > block || b->min_bytes != unit)
		return true;
	for (uint32_t i = 0; i < b->nr_split; i++)
		if (b->split[i].bs_bytes > block)
			return true;
	return false;
}

/*
 * True when some I/O of the job is longer than a block of the random map: fio's
 * map is in blocks of rw_min_bs, the least block size of every direction, used
 * or not (rw=randwrite bs=4k,16k: 4 KiB blocks, each write marks four).  With
 * bs_is_seq_rand, fio marks the map in the direction's own size whichever size
 * an I/O took, sequential turns included.
 */
static bool lengths_vary(const struct gen *g)
{
	uint64_t block = g->rw_min_bs < g->align ? g->rw_min_bs : g->align;

	for (uint8_t d = 0; d < PLAN_DDIR_NR; d++) {
		if (!plan_rw_has_ddir(g->job->rw, (enum plan_ddir)d))
			continue;
		if (g->job->bs_is_seq_rand && g->random && sizes_pass_block(&g->bs[0], block, g->min_bs[d]))
			return true;
		if (sizes_pass_block(gen_bs_of(g, d), block, g->min_bs[d]))
			return true;
	}
	return false;
}

/* A random job some of whose I/Os go on from the last one (percentage_random, rw=randread:<n>). */
static bool random_turns_seq(const struct gen *g)
{
	return g->random && plan_random_turns_seq(g->job);
}

/*
 * With lengths of several blocks, a permutation of start blocks alone leaves
 * blocks untouched when the pass's bytes are done: fio's random map, in blocks
 * of rw_min_bs, records what this pass did (up to 2^30 blocks; past that the
 * permutation serves, without).  Strided zones keep their permutation per zone.
 * A job with sequential turns takes fio's map and draws too: where its pass
 * ends depends on where they fall (a turn that reaches the region's last whole
 * block ends it, percentage_random=50 bs=16k size=1000k: 58 I/Os in fio), and
 * a permutation's order is not fio's.  So does a mix over several files: fio
 * finds a file's map full by a failed fill and decides the direction again for
 * the next file, where a permutation's done file was skipped undecided.
 * Random I/O in strided zones takes fio's draws and map over each zone: where a
 * zone passes the file's end, which draws fail decides where fio's pass ends.
 * A verifying job takes fio's map too: its offsets are then fio's, so either
 * tool's verify_only (or verify_state_load) replays the other's writes, which
 * a permutation's offsets would not be where the writes did not cover the region.
 */
static bool wants_map(const struct gen *g, uint64_t region_len)
{
	const struct plan_job *j = g->job;

	return g->use_perm && !j->random_lfsr &&
	       (g->zoned_draws || lengths_vary(g) || random_turns_seq(g) || (g->mixed && g->nr_files > 1) ||
		j->verify != PLAN_VERIFY_NONE) &&
	       region_len / g->rw_min_bs <= (1ull << 30);
}

/* fio's map and register run over a strided zone's blocks (its init_random_map), else the region's. */
static uint64_t map_blocks(const struct gen *g, const struct gen_file *f, uint64_t region_len)
{
	return (g->zoned_draws ? gen_zone_range(g, f) : region_len) / g->rw_min_bs;
}

/*
 * norandommap (or a blockalign apart from the block size): each offset one fio
 * draw, no map, and the drawn block leaves room for the direction's length
 * (bs_is_seq_rand's lengths are another direction's, which may not fit).
 */
static bool draws_without_map(const struct gen *g)
{
	return g->random && g->offset_first && !g->use_map && !g->use_lfsr && !g->use_dist &&
	       !g->job->bs_is_seq_rand;
}

/*
 * Whether every I/O is one fixed length in one file, each one a permutation
 * draw or fio's draw without a map (random) or the next block (sequential):
 * no zones, skew, sequential runs, gaps, strides, backward steps, parallel
 * streams, file service, interlock or trimwrite.  The common jobs, and the ones whose cost per I/O the
 * null engine shows.
 */
static bool is_plain(const struct gen *g)
{
	const struct plan_job *j = g->job;
	bool drawn = draws_without_map(g);
	/* use_perm, like drawn, already excludes the skewed laws and fio's register. */
	bool order_ok = g->random ? (g->use_perm || drawn) && !plan_rw_seq_turns(j)
				  : !g->skip && !g->stride && !j->rw_seq_back_bytes &&
					    !(j->sequential_parallel && j->iodepth > 1);

	/* The short way draws with taus88 alone: a tausworthe64 job's draws take the general way. */
	if (drawn && j->random_tausworthe64)
		return false;
	if (g->nr_files != 1 || g->files[0].il || !order_ok || (g->offset_first && !drawn) || g->use_map ||
	    g->trimwrite || j->zone_size_bytes || j->file_service_extra || plan_random_loop_moves(j))
		return false;	/* a loop that moves the region may find the file's end (gen_loop_offsets) */
	for (uint8_t d = 0; d < PLAN_DDIR_NR; d++)
		if (j->percentage_random_pct[d] < 100 || g->bs[d].max_bytes > g->bs[d].min_bytes)
			return false;
	return true;
}

/* gen_init's view of the files: each one's region, and the interlock tickets (or NULL). */
struct gen_regions {
	const uint64_t *start, *len, *room;
	struct interlock *il;
};

/* Each file's region, permutation or random map, fio's lfsr and interlock ticket. */
static int files_init(struct gen *g, const struct gen_regions *r, uint64_t min_bs)
{
	const struct plan_job *j = g->job;
	int ret;

	for (uint32_t i = 0; i < g->nr_files; i++) {
		ret = file_init(g, &g->files[i], r->start[i], r->len[i], r->room ? r->room[i] : r->len[i],
				min_bs, i);
		fit_shift_of(g, i);
		if (!ret && !g->files[i].nblocks)
			continue;	/* a file of no length (file_init): nothing to map or order */
		if (!ret && g->use_map && (ret = randmap_init(&g->files[i].map, map_blocks(g, &g->files[i], r->len[i])))) {
			g->map_failed = true;
			g->map_file = i;
		}
		/* fio's register runs over the region's blocks of rw_min_bs, from the offsets' seed. */
		if (!ret && g->use_lfsr)
			ret = lfsr_init(&g->files[i].lfsr, map_blocks(g, &g->files[i], r->len[i]), g->clone->block_seed);
		if (ret)
			return ret;
		if (r->il && j->interlocked) {
			g->files[i].il = &r->il[i];
			g->files[i].il_limit = gen_interlock_limit(j, r->len[i]);
		}
	}
	return 0;
}

/*
 * softrandommap=1: fio runs a file whose random map it cannot allocate without
 * one, its offsets drawn as with norandommap (file_randommap() is false for
 * it).  ioplan takes every file's map away and draws the job's offsets so:
 * what fio does when the files are alike, as a job's usually are.  fio keeps
 * norandommap's other effects off (io_size= past size= still ends a round),
 * and so does this, which leaves j->norandommap as it is.
 */
static int drop_maps(struct gen *g, const struct gen_regions *r, uint64_t min_bs)
{
	for (uint32_t i = 0; i < g->nr_files; i++)
		randmap_free(&g->files[i].map);
	g->use_map = g->use_perm = false;
	g->map_dropped = true;
	return files_init(g, r, min_bs);
}

int gen_init(struct gen *g, const struct plan_job *j, const struct plan_clone *c,
	     const uint64_t *region_start, const uint64_t *region_len, const uint64_t *region_room,
	     uint32_t nr, struct interlock *il)
{
	const struct gen_regions regions = { region_start, region_len, region_room, il };
	bool diskspd_zones;
	uint64_t min_bs;
	int ret;

	memset(g, 0, sizeof(*g));
	if (c->zones_off && j->zone_size_bytes) {
		g->unzoned = malloc(sizeof(*g->unzoned));
		if (!g->unzoned)
			return -ENOMEM;
		*g->unzoned = *j;
		g->unzoned->zone_size_bytes = g->unzoned->zone_range_bytes = g->unzoned->zone_skip_bytes = 0;
		g->unzoned->zone_range_ppm = 0;
		j = g->unzoned;
	}
	g->job = j;
	g->random = plan_rw_is_random(j->rw);
	g->trimwrite = j->rw == PLAN_RW_TRIMWRITE || j->rw == PLAN_RW_RANDTRIMWRITE;
	g->tw_seq = j->rw == PLAN_RW_TRIMWRITE;
	g->mixed = job_is_mixed(j->rw) && !g->trimwrite;
	g->only_ddir = first_ddir(j->rw);
	g->use_dist = g->random && j->random_distribution != PLAN_RAND_UNIFORM;
	g->fio_law = g->use_dist && j->random_distribution != PLAN_RAND_ZONED;
	diskspd_zones = g->use_dist && !g->fio_law && j->rand_zone_rule != PLAN_ZONES_FIO;
	/*
	 * fio's lfsr is a full-period sequence: it needs no map to cover every block
	 * once.  Its own register gives fio's offsets, in strided zones over each zone.
	 */
	g->use_lfsr = g->random && j->random_lfsr && !g->use_dist;
	g->zoned_draws = g->random && j->zone_size_bytes && !g->fio_law;
	g->use_perm = g->random && (!j->norandommap || j->random_lfsr) && !g->use_dist && !g->use_lfsr;
	g->skip = j->rw_seq_skip_bytes;
	g->stride = j->sequential_stride_bytes;
	g->rng_off = rng_seed(c->seed, RNG_OFFSETS);
	g->mix_ddir = PLAN_DDIR_READ;
	g->clone = c;
	g->drawn_service = nr > 1 && j->file_service >= PLAN_FILE_SERVICE_RANDOM;
	g->skewed_service = g->drawn_service && j->file_service > PLAN_FILE_SERVICE_RANDOM;
	g->seq_left = 1;	/* the first I/O of a random job draws, as fio's */
	for (uint32_t i = 0; j->file_append && i < c->nr_files; i++)
		g->append_once = g->append_once || !c->files[i].is_device;
	ret = gen_draw_sort_splits(g);
	if (ret)
		return ret;
	job_min_bs(g, &min_bs, &g->align);
	gen_draw_block_sizes(g);
	/* fio: blockalign other than the block size turns the random map off. */
	if (gen_draw_aligned_apart(g))
		g->use_perm = false;
	g->offset_first = g->use_lfsr || g->fio_law || g->zoned_draws || (g->random && !g->use_perm && !j->random_lfsr &&
					  (!g->use_dist || j->random_distribution == PLAN_RAND_ZONED));
	/* One shared sequential stream cannot also be random or strided per clone (DISKSPD -si vs -T). */
	if (!nr || (j->interlocked && (g->random || j->offset_increment_bytes)))
		return -EINVAL;
	g->files = calloc(nr, sizeof(*g->files));
	g->laws = g->fio_law ? calloc(nr, sizeof(*g->laws)) : NULL;
	g->rng64 = j->random_tausworthe64 ? calloc(1 + PLAN_DDIR_NR, sizeof(*g->rng64)) : NULL;
	g->dz = diskspd_zones ? calloc(nr, sizeof(*g->dz)) : NULL;
	if (!g->files || (g->fio_law && !g->laws) || (j->random_tausworthe64 && !g->rng64) || (diskspd_zones && !g->dz))
		return -ENOMEM;
	g->nr_files = nr;
	gen_draw_seed(g);	/* the file service draws over nr_files */
	g->use_map = nr > 0;
	for (uint32_t i = 0; i < nr; i++)
		g->use_map = g->use_map && wants_map(g, region_len[i]);
	g->offset_first = g->offset_first || g->use_map;
	ret = files_init(g, &regions, min_bs);
	if (ret == -ENOMEM && g->map_failed && j->softrandommap)
		ret = drop_maps(g, &regions, min_bs);
	if (ret)
		return ret;
	/* fio finds a file done by a failed fill, for every direction at once: in a
	 * sequential mix over several files (holed or not) that is not one direction's end. */
	g->whole_files = g->mixed && nr > 1 && !g->random && !g->stride && !j->rw_seq_back_bytes &&
			 !j->zone_size_bytes && !j->interlocked;
	g->fast = is_plain(g);
	g->fast_draw = g->fast && g->random && !g->use_perm;
	for (uint8_t d = 0; d < PLAN_DDIR_NR; d++)
		g->plain_len[d] = gen_bs_of(g, d)->min_bytes;
	return 0;
}

bool gen_keeps_random_map(const struct gen *g)
{
	const struct plan_job *j = g->job;

	return g->random && !j->norandommap && !j->random_lfsr && !g->fio_law && !g->map_dropped &&
	       !gen_draw_aligned_apart(g);
}

bool gen_draws_fio_offsets(const struct gen *g)
{
	return g->random && (g->use_map || g->use_lfsr || draws_without_map(g));
}

void gen_release(struct gen *g)
{
	for (uint32_t i = 0; g->files && i < g->nr_files; i++)
		randmap_free(&g->files[i].map);
	free(g->files);
	free(g->splits);
	free(g->laws);
	free(g->rng64);
	free(g->dz);
	free(g->unzoned);
	memset(g, 0, sizeof(*g));
}
