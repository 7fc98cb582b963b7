/*
 * engine/gen/iogen.c - the I/O stream of one worker (iogen.h).
 *
 * Passes: a file's pass is done when its sequential position reaches the end of
 * its region, or when its permutation has handed out every block.  A file whose
 * pass is done is skipped until every file is done; then all start a new pass.
 * So with the default random map every block is read exactly once per pass, in
 * every file, whatever file_service does (but a skewed one, which starts a
 * done file over: file_service.c).  When lengths vary, the random map is
 * fio's (randmap.h) and so are its rules: draw, move to the next free block,
 * cut at a done one; a file whose draw finds no room is done for the pass.
 * Lengths are drawn as fio's get_next_buflen draws them, and the window's
 * amount is checked before each I/O, so the last one is issued whole (fio's
 * size= overshoot by less than one I/O with bsrange or bssplit).
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

/* Direction d starts over in f.  Backward passes go on from where the last one ended, as fio's loops do. */
static void file_rewind(struct gen *g, struct gen_file *f, uint8_t d)
{
	if (!g->job->rw_seq_back_bytes)
		f->pos[d] = 0;
	f->back_ended[d] = false;
	f->last_start[d] = 0;
}

/*
 * trimwrite's direction in file f, as fio's set_rw_ddir: a trim when the file's
 * last write started where its last trim did (none of either, too), else a write.
 */
static uint8_t tw_ddir(const struct gen_file *f)
{
	return f->last_start[PLAN_DDIR_WRITE] == f->last_start[PLAN_DDIR_TRIM] ? PLAN_DDIR_TRIM : PLAN_DDIR_WRITE;
}

/* f's pass is over, found by a failed fill; nr_exhausted counts them, so "all" is one compare. */
static void file_exhaust(struct gen *g, struct gen_file *f)
{
	if (!f->exhausted)
		g->nr_exhausted++;
	f->exhausted = true;
}

static void file_new_pass(struct gen *g, struct gen_file *f, uint8_t d)
{
	if (f->exhausted)
		g->nr_exhausted--;
	f->exhausted = false;
	f->closing = false;	/* still open: it serves the new pass */
	f->retired = false;
	file_rewind(g, f, d);
	f->zone_start = 0;
	g->fast_left = 0;
	if (g->use_perm && !g->use_map)
		perm_new_pass(&f->perm, &g->rng_off);
	if (f->map.nr_bits)
		randmap_reset(&f->map);
	if (g->use_lfsr)
		lfsr_reset(&f->lfsr, g->clone->block_seed);
}

/* f starts over after a pass: the caller's hook (invalidate=1 drops its cache there, as fio). */
static void file_restarted(struct gen *g, const struct gen_file *f)
{
	if (g->restarted)
		g->restarted(g->restarted_arg, (uint32_t)(f - g->files));
}

/* Every direction of f starts over (fio's fio_file_reset), one new pass. */
void gen_file_restart(struct gen *g, struct gen_file *f, uint8_t d)
{
	file_restarted(g, f);
	file_new_pass(g, f, d);
	for (uint8_t k = 0; k < PLAN_DDIR_NR; k++)
		if (k != d)
			file_rewind(g, f, k);
}

/*
 * fio's files run out of room by a failed draw (its map, or its register), not
 * by a count; a skewed law's draw fails where it lands past the region, and
 * any draw in a strided zone that passes the file's end.
 */
static bool runs_out(const struct gen *g)
{
	return g->use_map || g->use_lfsr || g->fio_law || g->zoned_draws;
}

/* What every phase starts with: nothing done, a fresh pass over every file, no bytes bound. */
static void start_phase(struct gen *g, bool window)
{
	g->in_window = window;
	g->limited = false;
	g->done_bytes = 0;
	g->done_ios = 0;
	g->pass_base = 0;
	g->zone_bytes = 0;
	g->cur = 0;
	g->trim_bytes = 0;
	for (uint32_t i = 0; i < g->nr_files; i++)
		for (uint8_t d = 0; d < PLAN_DDIR_NR; d++)
			file_new_pass(g, &g->files[i], d);
	/* fio's exceeds_number_ios: number_ios is each loop's, the job's is loops times it. */
	g->limit_ios = window ? g->job->number_ios * (g->job->loops ? g->job->loops : 1) : 0;
	/* fio's do_io doubles number_ios for trimwrite as each round starts: its I/Os count, trims and writes */
	if (g->trimwrite)
		g->limit_ios *= 2;
	g->limit_bytes = 0;
	g->fast_left = 0;	/* the short way asks again under the new bounds */
	g->round_pause = g->round_due = g->round_resumed = false;
	g->read_back_bytes = 0;
	g->round_limit = g->round_base = 0;	/* gen_bound_rounds sets the window's */
}

void gen_window(struct gen *g, bool time_based)
{
	uint64_t io_size;

	start_phase(g, true);
	/* fio's reset_all_stats zeroes io_issues when the ramp ends; the mix goes on. */
	g->mix_issues[PLAN_DDIR_READ] = g->mix_issues[PLAN_DDIR_WRITE] = 0;
	if (time_based) {
		g->limit_ios = 0;	/* fio's do_io goes on past number_ios until the runtime */
		return;
	}
	g->limited = true;
	io_size = gen_io_size(g);
	g->limit_bytes = io_size ? io_size : gen_pass_bytes(g);
	/*
	 * fio: with filesize= the regions run to the files' ends and size= is the
	 * job's amount; drawn random I/O, and a mix that no direction's end stops, is
	 * bounded by size= itself, not by the regions' whole blocks (nrfiles=3
	 * size=4m: 4 MiB, not 3 x 1364 KiB); so is a skewed file service, whose
	 * files start over instead of ending the pass.  fio's setup_files caps size=
	 * at the regions' bytes: norandommap over files smaller than size= moves
	 * what they hold (filesize=128k size=1m: 128 KiB), not size=.  Without
	 * size=, fio's size is the regions' bytes, not their whole blocks: a random
	 * job's sequential turn, which marks no block, may take it past them
	 * (filesize=100k bs=8k rw=randread:3: 13 reads, 104 KiB).
	 */
	if (!io_size && (g->job->size_bytes || (g->job->filesize_min_bytes && g->offset_first)) &&
	    (g->offset_first || g->mixed || g->skewed_service ||
	     (g->job->filesize_min_bytes && g->job->size_bytes < g->limit_bytes)))
		g->limit_bytes = gen_size_capped(g);
	g->limit_bytes *= g->job->loops ? g->job->loops : 1;
	g->passes_left = g->job->loops ? g->job->loops : 1;
	if (g->job->interlocked)
		g->limit_bytes = 0;	/* the shared tickets bound the job instead */
	g->fast_left = 0;
}

void gen_window_go_on(struct gen *g, uint32_t pending)
{
	g->in_window = true;
	g->mix_issues[PLAN_DDIR_READ] = g->mix_issues[PLAN_DDIR_WRITE] = 0;
	/* fio's reset_all_stats zeroes io_blocks, which number_ios counts with the I/Os queued */
	g->done_ios = pending;
	g->fast_left = 0;	/* the short way's countdown was cut from the I/Os left */
}

void gen_round_done(struct gen *g, uint64_t read_back, uint64_t read_back_ios)
{
	g->round_due = false;
	g->round_resumed = true;
	g->read_back_bytes += read_back;
	g->done_ios += read_back_ios;	/* fio's exceeds_number_ios counts them (io_blocks) */
	g->fast_left = 0;
}

void gen_read_back(struct gen *g, uint64_t bytes, uint64_t ios)
{
	g->read_back_bytes += bytes;	/* fio's keep_running weighs io_bytes, reads and all */
	g->done_ios += ios;
	g->fast_left = 0;	/* the short way's countdown was cut from the I/Os left */
}

void gen_uncounted(struct gen *g)
{
	start_phase(g, false);
}

/* Holed sequential I/O (rw=read:<n>): each file, and each direction of a mix, wraps on its own (seq_offset). */
static bool holes_wrap_each(const struct gen *g)
{
	return g->skip && !g->stride && !g->random && !g->job->zone_size_bytes;
}

/*
 * A pass whose end wraps to the regions' start instead of ending fio's round:
 * sequential_stride's (DISKSPD -s), and random holed I/O whose next offset
 * falls past the end.  Sequential holes wrap as they go (fio's
 * get_next_seq_offset, seq_offset), so a pass of theirs that ends is over, in
 * strided zones too (fio's fill fails past the file's end: gen_zone_next).
 */
static bool pass_wraps(const struct gen *g)
{
	if (g->stride)
		return true;
	return g->skip && g->random;
}

static bool all_exhausted(const struct gen *g)
{
	return g->nr_exhausted == g->nr_files;
}

/* The round has issued its bytes (gen_bound_rounds): fio's do_io returns. */
static inline bool round_is_over(const struct gen *g)
{
	return g->round_limit && g->done_bytes - g->round_base >= g->round_limit;
}

static bool next_round(struct gen *g, uint8_t d);

/* fio's get_rw_ddir for a mix: a direction is drawn, then kept for a run of I/Os. */
static uint8_t mix_decide(struct gen *g)
{
	if (g->mix_issues[g->mix_ddir] >= g->mix_until) {
		uint32_t read_pct = g->job->rwmixread_pct;
		uint8_t d = taus88_between(&g->mix_rng, 1, 100) <= read_pct ? PLAN_DDIR_READ
									     : PLAN_DDIR_WRITE;

		/* fio's set_rwmix_bytes: the new run lasts the other direction's share of
		 * the I/Os the old one has issued so far (a quirk, but it is fio's split). */
		if (d != g->mix_ddir)
			g->mix_until = g->mix_issues[g->mix_ddir] *
				       (g->mix_ddir == PLAN_DDIR_READ ? 100 - read_pct : read_pct) / 100;
		g->mix_ddir = d;
	}
	return g->mix_ddir;
}

/*
 * True when no file has room left in direction d: fio's loop is over there.
 * Asked per I/O of a mix: the scan starts at the file served next, which
 * mostly has room, so it stops at once.
 */
bool gen_loop_is_over(const struct gen *g, uint8_t d)
{
	if (g->skewed_service)
		return false;	/* its files start over one by one (drawn_file) */
	for (uint32_t i = 0, k = g->cur; i < g->nr_files; i++, k = k + 1 < g->nr_files ? k + 1 : 0)
		if (g->files[k].il || !gen_pass_is_done(g, &g->files[k], d))
			return false;
	return true;
}

/* openfiles: the mix before a decision that a pick may find premature (gen_mix_undo). */
static void mix_save(struct gen *g)
{
	g->mix_rng_was = g->mix_rng;
	g->mix_until_was = g->mix_until;
	g->mix_ddir_was = g->mix_ddir;
	g->mix_undoable = true;
}

void gen_mix_undo(struct gen *g)
{
	if (!g->mix_undoable)
		return;
	g->mix_rng = g->mix_rng_was;
	g->mix_until = g->mix_until_was;
	g->mix_ddir = g->mix_ddir_was;
	g->mix_undoable = false;
}

uint8_t gen_pick_mixed_ddir(struct gen *g)
{
	uint8_t d;

	if (g->trimwrite)
		return tw_ddir(&g->files[g->cur]);	/* decided again for the file served (next_rel) */
	/* A round that cannot go on yet (its end first, round_due) or at all decides
	 * nothing: gen_next_general fails the same way, and fio's do_io returned
	 * before drawing.  The next round's first I/O decides afresh. */
	if (round_is_over(g) && !next_round(g, g->mix_ddir))
		return g->mix_ddir;
	/* Under openfiles the fill that found the last map full closed its file
	 * first (fill_failed), so fio's next loop starts, re-seeded, before it decides.
	 * So does a round that paused at its end (a read-back, end_fsync) and now
	 * goes on: fio's clear_io_state re-seeded before the next loop's first draw. */
	if (g->limited && runs_out(g) && !g->skewed_service && all_exhausted(g) &&
	    (g->max_open || (g->round_resumed && gen_loop_follows(g))))
		gen_new_pass(g, g->mix_ddir);
	/* Likewise where the direction decided before the pause found no room: its loop
	 * was over, though the other direction may still have had some.  With no loop to
	 * follow, that decision stands and its fill fails: the job ends, as fio's. */
	if (g->round_resumed && g->limited && !runs_out(g) && !g->max_open && gen_loop_is_over(g, g->mix_ddir) &&
	    !gen_new_pass(g, g->mix_ddir))
		return g->mix_ddir;
	if (g->max_open)
		mix_save(g);
	d = mix_decide(g);
	/* fio decides, finds no room (its loop is over), starts the next loop (which
	 * re-seeds) and decides again; a pass that wraps goes on with the decision.
	 * fio's map finds out by a failed draw (offset_first_next). */
	if (g->limited && !runs_out(g) && !g->max_open && gen_loop_is_over(g, d) && gen_new_pass(g, d) &&
	    !pass_wraps(g))
		d = mix_decide(g);
	return d;
}

/* fio's pass ends where not even d's minimum fits (its fill fails; a mix's bigger
 * blocks may not fit where the smaller ones set the region's end). */
static bool seq_has_room(const struct gen *g, const struct gen_file *f, uint8_t d)
{
	return f->pos[d] < f->end[d] && f->end[d] - f->pos[d] >= gen_bs_of(g, d)->min_bytes;
}


bool gen_pass_is_done(const struct gen *g, const struct gen_file *f, uint8_t d)
{
	if (f->il)
		return f->exhausted;
	/* fio's fill fails when the file's own next direction has no room; randtrimwrite's
	 * write of the file's last trim always has it */
	if (g->trimwrite && (d = tw_ddir(f)) == PLAN_DDIR_WRITE && g->random && !f->exhausted)
		return false;
	/* Strided zones wrap back to the region's start: the amount ends the job, or
	 * a sequential pass past the file's end (gen_zone_next), or a fill of fio's
	 * draws that failed (offset_first_next; every random job in zones takes them). */
	if (g->job->zone_size_bytes)
		return f->exhausted;
	if (runs_out(g))
		return f->exhausted;
	if (g->random)
		return (g->use_perm && !f->perm.left) || f->exhausted;
	if (g->job->rw_seq_back_bytes)	/* a first offset may fail too (gen_back_first) */
		return f->back_ended[d] || gen_back_fill_fails(g, f, d, f->pos[d]);
	if (g->whole_files)
		return f->exhausted;	/* found by a failed fill (next_rel) */
	/* file_append: fio measures a length's fit from the file's end, so while the offset
	 * is inside the region it draws one, and the fill fails past the end (next_rel). */
	if (g->append_once)
		return f->pos[d] >= f->end[d] || f->exhausted;
	return !seq_has_room(g, f, d) || f->exhausted;
}

/*
 * fio's keep_running after a loop whose files all ran out of room: another
 * loop while loops= lasts, then only with io_size= and at least one largest
 * block still to go.  fio counts the bytes its rounds read back toward
 * io_size (size=256k io_size=768k verify: two rounds of 256 KiB written and
 * read, not three).  A round that was read back is judged against size= even
 * without io_size=: fio's clear_io_state, before the read-back, forgets that
 * the files ran out, so a random write whose map ended the round early (a
 * block drawn twice, bs=4k,8k) goes on to another round while size= is not
 * reached by its writes and reads (512 KiB: two rounds of 232 KiB each way).
 */
bool gen_loop_follows(const struct gen *g)
{
	/* fio's io_bytes: trimwrite's trims count with its writes (the amount in a round is the writes') */
	uint64_t io_size = gen_io_size(g), max_bs = 0, done = g->done_bytes + g->read_back_bytes + g->trim_bytes;

	if (g->passes_left > 1)
		return true;
	if (!io_size && g->read_back_bytes)
		io_size = gen_size_capped(g);
	for (uint8_t d = 0; d < PLAN_DDIR_NR; d++)
		if (g->bs[d].max_bytes > max_bs)
			max_bs = g->bs[d].max_bytes;
	return io_size > done && io_size - done >= max_bs;
}

static bool loop_left(struct gen *g)
{
	if (!gen_loop_follows(g))
		return false;
	if (g->passes_left > 1)
		g->passes_left--;
	return true;
}

/*
 * Every file starts a new pass.  In the measured window a pass is fio's loop:
 * a repeatable job's generators start over and the mix decides afresh; a pass
 * ends where no file has room (its end, fio's map or register), and the loops
 * left bound them (false: the window is done).  io_size= past the region
 * makes more rounds of it, not longer ones: size=1m io_size=3m loops=2 is
 * three rounds of 1 MiB, as fio's, not 6 MiB.
 */
static bool start_pass(struct gen *g, uint8_t d, bool loop)
{
	/* fio's thread_main ends a job whose round moved nothing: a skewed law's round
	 * whose first draws all land past the region is the job's last, time_based or not,
	 * and so is any loop, or unbounded pass whose files all failed a fill, that found
	 * no I/O to make (lfsr with bs_is_seq_rand over size=30%), where the next would
	 * find none either and the job would never end. */
	if ((g->fio_law || loop || all_exhausted(g)) && g->done_bytes == g->pass_base)
		return false;
	if (loop) {
		if (g->round_pause && !g->round_resumed) {
			g->round_due = true;
			return false;
		}
		g->round_resumed = false;
		if (!loop_left(g))
			return false;
		g->rounds++;
		if (g->trimwrite)
			g->limit_ios *= 2;	/* fio's do_io, again (start_phase) */
	}
	/* fio's get_start_offset puts a later pass of file_append at the file's end, which
	 * its fill may not pass (real_file_size): the round loops= or io_size= starts (and
	 * its sync, worker_sync_rounds) and time_based's wrap find no room; the job ends. */
	if (g->append_once)
		return false;
	/* A wrap starts d over (fio's get_next_seq_offset: no new loop, nothing re-seeded);
	 * fio's next loop re-seeds and starts every direction over (fio_file_reset),
	 * though in a mix the other one may still have had room. */
	if (loop) {
		gen_draw_next_loop(g);
		gen_loop_offsets(g);
	}
	/* fio's next loop closes every file, so file_service_type=sequential goes on
	 * in turn from the file after the last one served, not with it again. */
	if (loop && g->job->file_service == PLAN_FILE_SERVICE_SEQUENTIAL)
		g->cur = g->cur + 1 < g->nr_files ? g->cur + 1 : 0;
	for (uint32_t i = 0; i < g->nr_files; i++) {
		if (loop) {
			gen_file_restart(g, &g->files[i], d);
		} else {
			file_restarted(g, &g->files[i]);
			file_new_pass(g, &g->files[i], d);
		}
	}
	/* fio's do_io counts each round's bytes afresh; its clear_io_state zeroes zone_bytes. */
	if (loop) {
		g->round_base = g->done_bytes;
		g->zone_bytes = 0;
	}
	g->pass_base = g->done_bytes;
	return true;
}

bool gen_new_pass(struct gen *g, uint8_t d)
{
	bool loop = g->limited && !pass_wraps(g);
	/* Unbounded (time_based, a ramp), a pass whose files all failed a fill ends fio's
	 * do_io too, and keep_running's next loop re-seeds (a zone drawn past the file's
	 * end); a pass that wraps, or whose full map starts over, goes on unseeded. */
	bool reseed = !loop && all_exhausted(g);

	g->ran_out = g->ran_out || loop;
	/* fio's keep_running: once a loop's files all ran out, only loops= left or an
	 * io_size= of bytes starts another; io_size=N% leaves fio's io_size 0 (size=
	 * takes the share), so the job ends there (rw=read:8k bs=4k size=100k
	 * io_size=40%: 9 reads, 36 KiB).  A read-back forgot that they ran out. */
	if (loop && g->job->io_size_ppm && g->passes_left <= 1 && !g->read_back_bytes)
		return false;
	if (!start_pass(g, d, loop))
		return false;
	if (reseed) {
		gen_draw_next_loop(g);
		g->zone_bytes = 0;
	}
	return true;
}

/*
 * fio's next loop after a round its bytes ended, before the next direction is
 * drawn (its clear_io_state re-seeds first), even where the pass would have
 * wrapped.  False when none follows, the window's amount is done, or the
 * round's end must come first (round_due).
 */
static bool next_round(struct gen *g, uint8_t d)
{
	/* While loops= lasts fio's keep_running starts the next loop whatever number_ios
	 * says, and trimwrite's do_io doubles number_ios before it checks it (start_pass). */
	uint64_t limit_ios = g->limit_ios * (g->trimwrite && g->passes_left > 1 ? 2 : 1);

	if ((g->limit_bytes && g->done_bytes >= g->limit_bytes) || (limit_ios && g->done_ios >= limit_ios))
		return false;
	return start_pass(g, d, true);
}

static uint64_t random_block(struct gen *g, struct gen_file *f)
{
	if (g->use_perm)
		return perm_next(&f->perm);
	if (g->use_dist)
		return dist_next(&g->dist, &g->rng_off) % f->nblocks;
	return rng_below(&g->rng_off, f->nblocks);
}

/* A random offset: a block of the region, or of the current strided zone; RANDMAP_NONE: no room. */
static uint64_t random_at(struct gen *g, struct gen_file *f, uint8_t d)
{
	uint64_t b;

	if (!f->io_size)
		return RANDMAP_NONE;	/* a file of no length (file_init): fio's fill fails before a draw */
	if (g->dz)
		return dz_draw(&g->dz[f - g->files], &g->rng_off, g->align, g->min_bs[d], f->io_size);
	if (g->zoned_draws || g->fio_law || (g->offset_first && !g->job->zone_size_bytes)) {
		/* fio's rank is in ranges of the least block size, its offset in d's blockalign:
		 * one that lands past the region fails the fill, as fio's get_next_offset.  In
		 * strided zones the rank is still the whole region's, counted from the zone's
		 * start (fio's file_offset), so later zones' draws run past the end sooner. */
		if (g->fio_law)
			return f->zone_start + fio_dist_next(&g->laws[f - g->files]) * g->ba[d];
		b = gen_draw_block(g, f, d);
		/* fio's get_next_rand_block: a time_based job's (or a skewed service's) full map
		 * starts the file (in strided zones, the zone) over, drawn again. */
		if (b == RANDMAP_NONE && f->lastb[d] && (g->job->time_based || g->skewed_service)) {
			if (g->zoned_draws) {
				file_restarted(g, f);
				gen_zone_reset(g, f);
			} else {
				gen_file_restart(g, f, d);
			}
			b = gen_draw_block(g, f, d);
		}
		return b == RANDMAP_NONE ? b : f->zone_start + b * g->ba[d];
	}
	b = random_block(g, f);	/* never in strided zones: those take fio's draws above */
	return b * g->align;
}

/* Sequential position with rw=read:<n> skips and stride (zones: strided_zone). */
static uint64_t seq_offset(struct gen *g, struct gen_file *f, uint8_t d, uint64_t len)
{
	const struct plan_job *j = g->job;
	uint64_t rel = f->pos[d];

	/* sequential_parallel: iodepth streams in lockstep, all from the same start. */
	if (j->sequential_parallel && j->iodepth > 1 && ++f->par_issued < j->iodepth)
		return rel;
	f->par_issued = 0;
	if (j->rw_seq_back_bytes)
		return gen_back_offset(g, f, d, len);
	f->pos[d] += (g->stride ? g->stride : len) + g->skip;
	/* fio's get_next_seq_offset wraps a file whose skip, not its last I/O, passed the
	 * file's end; one whose I/O ended on the end (or that has too little left) is done.
	 * It compares the position in the region with the file's size (start + room: the
	 * region's end in a file laid out for the job, else the file's) and wraps it to the
	 * region's start as a position in the region: with offset= a pass rarely wraps,
	 * and then to twice the offset.  A time_based job of one file first goes back to
	 * the region's start once an I/O ended past the region (a new pass, here). */
	if (holes_wrap_each(g) && f->pos[d] >= f->start + f->room && f->pos[d] - g->skip < f->room &&
	    !(g->job->time_based && g->nr_files == 1 && f->pos[d] - g->skip >= f->io_size))
		f->pos[d] = f->start;
	return rel;
}

/* Interlocked: the next shared ticket; false when this file's window tickets are gone. */
static bool interlock_offset(struct gen *g, struct gen_file *f, uint64_t *rel)
{
	uint64_t step = f->len / f->nsteps, t;

	if (g->in_window) {
		t = atomic_fetch_add_explicit(&f->il->window, 1, memory_order_relaxed);
		if (g->limited && t >= f->il_limit) {
			file_exhaust(g, f);
			return false;
		}
	} else {
		t = atomic_fetch_add_explicit(&f->il->free_run, 1, memory_order_relaxed);
	}
	*rel = (t % f->nsteps) * step;
	return true;
}

/* percentage_random as fio's should_do_random: a draw of 1..100 from the direction's own state. */
static bool is_random_turn(struct gen *g, uint8_t d)
{
	uint32_t pct = g->job->percentage_random_pct[d];

	return pct >= 100 || 1 + (uint32_t)(100.0 * (taus88_next(&g->seq_rand_rng[d]) / 4294967296.0)) <= pct;
}

/*
 * A sequential turn of a random job continues where the last I/O ended, as
 * fio's get_next_seq_offset: anywhere before the file's end (its
 * real_file_size), the length then drawn to fit the region (none fits: the
 * pass is over, also past the region in a larger file), else a random block;
 * a time_based job of one file wraps to the region's start first.  Lengths
 * drawn first (no map) must fit from there.  fio marks no map for either.
 */
static uint64_t after_last(struct gen *g, struct gen_file *f, uint8_t d, uint64_t len)
{
	g->seq_turn = true;
	/* fio's time_based job of one file goes on at the region's start instead */
	if (g->job->time_based && g->nr_files == 1 && !g->job->zone_size_bytes && f->pos[d] >= f->io_size)
		f->pos[d] = 0;
	if (g->offset_first ? f->pos[d] < f->room : f->pos[d] + len <= f->len)
		return f->pos[d];
	return random_at(g, f, d);
}

/*
 * A random job's offset.  With rw=randread:<n> only every n-th I/O draws (the
 * first one included, as fio's); the others continue where the last I/O ended
 * (a draw again past the region's end) or, with rw_sequencer=identical, repeat
 * its offset.  With n = 0 (rw_seq_only) none draws, the first one included.
 */
static uint64_t random_rel(struct gen *g, struct gen_file *f, uint8_t d, uint64_t len)
{
	const struct plan_job *j = g->job;

	g->seq_turn = false;
	if (j->rw_seq_only || (j->rw_seq_nr > 1 && --g->seq_left)) {
		g->seq_turn = true;
		if (j->rw_seq_identical)	/* none yet (or since a zone's reset): the zone's start, as fio's */
			return f->last_start[d] ? f->last_start[d] - 1 : f->zone_start;
		return after_last(g, f, d, len);
	}
	g->seq_left = j->rw_seq_nr > 1 ? j->rw_seq_nr : 1;
	if (is_random_turn(g, d))
		return random_at(g, f, d);
	return after_last(g, f, d, len);
}

/*
 * A sequential I/O's length, drawn once its position is known, as fio's: one
 * that would pass the region's end is drawn again (fio's io_u_fits), so the
 * pass ends on whole drawn lengths.  The pass leaves room for the minimum
 * (pass_is_done); a split whose fitting sizes all have 0% draws none, and then
 * the minimum goes, cut at the end later.  file_append: fio's io_u_fits
 * measures from the file's end (its get_start_offset there), so any length
 * fits, and one past the region ends the pass (next_rel).
 */
static uint64_t seq_len(struct gen *g, const struct gen_file *f, uint8_t d)
{
	uint64_t end = f->end[d] + f->fit_shift;	/* fit_shift: fio's io_u_fits (next_rel checks the file's end) */
	uint64_t room = f->pos[d] < end ? end - f->pos[d] : 0;
	uint64_t len = gen_pick_len(g, d, room + (g->append_once ? f->io_size : 0));

	return len ? len : gen_bs_of(g, d)->min_bytes;
}

/*
 * fio's set_io_u_file when a fill fails (a random map with no room, or a
 * sequential mix's direction with none): the file is done for every direction
 * (a skewed service starts it over instead), and the next fill decides the
 * direction again; under openfiles the file closes first (busy: the worker
 * closes it, then draws again).  False then.
 */
static bool fill_failed(struct gen *g, struct gen_file *f, uint8_t d)
{
	g->mix_undoable = false;	/* fio's fill decided the direction */
	gen_file_retired(g, f);
	if (g->skewed_service)
		gen_file_restart(g, f, d);
	else
		file_exhaust(g, f);
	if (g->max_open) {
		f->closing = true;
		g->busy = true;
		g->retry = true;
		return false;
	}
	return true;
}

/*
 * A mix's fill that failed: fio decides the direction again for the next file
 * (set_rw_ddir per fill), after its next loop has started when no file had
 * room.  False when none follows.
 */
static bool redecide(struct gen *g, uint8_t *d)
{
	if (!g->skewed_service && all_exhausted(g) && !gen_new_pass(g, *d))
		return false;
	*d = gen_pick_ddir(g);
	return true;
}

/*
 * randtrimwrite's write: the file's last trim again, its offset and length (fio's
 * get_next_offset and get_next_buflen), no draw made and no map marked.
 */
static void tw_rewrite(struct gen_file *f, uint64_t *rel, uint64_t *len)
{
	*rel = f->last_start[PLAN_DDIR_TRIM] - 1;
	*len = f->pos[PLAN_DDIR_TRIM] - *rel;
	f->last_start[PLAN_DDIR_WRITE] = *rel + 1;
	f->pos[PLAN_DDIR_WRITE] = *rel + *len;
}

/* The next file and offset; a sequential job's length is drawn here when *len is 0. */
static bool next_rel(struct gen *g, uint8_t *d, uint64_t *len, uint32_t *file, uint64_t *rel)
{
	struct gen_file *f;
	int32_t idx;

	for (;;) {
		idx = gen_pick_file(g, *d);
		if (idx < 0)
			return false;
		f = &g->files[idx];
		*file = (uint32_t)idx;
		if (f->il) {
			if (interlock_offset(g, f, rel))
				return true;
			continue;
		}
		if (g->trimwrite && (*d = tw_ddir(f)) == PLAN_DDIR_WRITE && g->random) {
			tw_rewrite(f, rel, len);
			return true;
		}
		/* Past the file's end fio's fill fails: the file is done for the pass. */
		if (g->job->zone_size_bytes && !gen_zone_next(g, f, *d)) {
			if (!fill_failed(g, f, *d) || (g->mixed && !redecide(g, d)))
				return false;
			continue;
		}
		if (g->random) {
			*rel = random_rel(g, f, *d, *len);
			/* fio's get_next_offset: a trim where the last one started still gets its write */
			if (g->trimwrite && *rel + 1 == f->last_start[PLAN_DDIR_TRIM])
				f->last_start[PLAN_DDIR_WRITE]--;
			f->pos[*d] = *rel + *len;
			f->last_start[*d] = *rel + 1;
			return true;
		}
		if (g->whole_files && !seq_has_room(g, f, *d)) {
			if (!fill_failed(g, f, *d))
				return false;
			*d = gen_pick_ddir(g);
			continue;
		}
		if (!*len)
			*len = seq_len(g, f, *d);
		/* file_append: past the file's end fio's fill fails, and the file is done;
		 * so does a strided zone's that does not fit (the file's end there). */
		if (g->job->zone_size_bytes ? gen_zone_fill_fails(g, f, *d, *len)
					    : (g->append_once && f->pos[*d] + *len > f->end[*d]) ||
					      (f->fit_shift && f->pos[*d] + *len > f->room)) {
			if (!fill_failed(g, f, *d))
				return false;
			*len = 0;
			if (g->mixed && !redecide(g, d))
				return false;
			continue;
		}
		*rel = seq_offset(g, f, *d, *len);
		if (g->tw_seq)
			f->last_start[*d] = *rel + 1;
		return true;
	}
}

/*
 * Where an I/O of d at a drawn offset must end.  fio's get_next_buflen checks
 * that a drawn length fits the region (io_u_fits), but gives a fixed one as it
 * is, and only the file's end (real_file_size) bounds it: a sequential turn at
 * the region's last partial block of a larger file goes (rw=randread:3 bs=8k
 * size=100k over 1 MiB: 13 reads, where ioplan ended the pass after 8).
 */
static uint64_t fixed_len_end(const struct gen *g, const struct gen_file *f, uint8_t d)
{
	const struct plan_bs *b = gen_bs_of(g, d);

	return (b->max_bytes <= b->min_bytes || f->fit_shift) && !g->append_once ? f->room : gen_fill_end(g, f);
}

/*
 * A random I/O in fio's order: the offset, then a length that fits from there,
 * then the map's cut.  A file with no room for it is done for the pass, as fio
 * marks a file done when it cannot fill an I/O; without a map that ends the job,
 * unless a sequential turn found the file's end.
 */
static bool offset_first_next(struct gen *g, uint8_t *d, uint32_t *file, uint64_t *rel, uint64_t *len)
{
	struct gen_file *f;

	for (;;) {
		*len = g->min_bs[*d];
		if (!next_rel(g, d, len, file, rel))
			return false;
		f = &g->files[*file];
		if (g->trimwrite && *d == PLAN_DDIR_WRITE)
			return true;	/* randtrimwrite's write of the trim (tw_rewrite) */
		/* Past the region (in zones: a zonerange larger than the region's bytes,
		 * from the zone's start), fio's get_next_offset fails before any length is
		 * drawn, and past the file in zones that walk it, where a drawn length fits only
		 * in the region (io_u_fits) and a fixed one anywhere before the file's end.
		 * file_append: fio's io_u_fits measures from the file's end, so the length is
		 * not cut at the region's, and one past it fails the fill. */
		if (*rel < gen_fill_end(g, f) && *rel - f->zone_start < f->io_size && !(f->moved && *rel >= f->room)) {
			/* the room a drawn length may take (fit_shift: fio's io_u_fits) */
			uint64_t fits = *rel < f->io_size + f->fit_shift ? f->io_size + f->fit_shift - *rel : 0;

			*len = gen_pick_len(g, *d, fits + (g->append_once ? f->io_size : 0));
			if (*len && *rel + *len <= fixed_len_end(g, f, *d))
				break;
		}
		/* Without a map (or a skewed service) no draw runs out: the job ends; but a
		 * sequential turn (rw=randread:N) at the file's end fails fio's fill there,
		 * and the file is done for the pass, as is a file of no length. */
		if (!g->skewed_service && !runs_out(g) && !g->seq_turn && f->io_size)
			return false;	/* a file of no length fails fio's fill before any draw: done, as with a map */
		g->unmarked_next = g->unmarked_next || g->seq_turn;
		if (g->trimwrite)	/* no trim was made: none is to be written */
			f->last_start[PLAN_DDIR_TRIM] = f->last_start[PLAN_DDIR_WRITE];
		if (!fill_failed(g, f, *d))
			return false;
		if (g->mixed && !redecide(g, d))
			return false;
	}
	/* fio marks its map from the zone's start (file_offset) */
	if (g->use_map && !g->seq_turn && !g->unmarked_next)
		*len = gen_draw_mark(g, f, *d, *rel - f->zone_start, *len);
	g->unmarked_next = false;
	f->pos[*d] = *rel + *len;
	return true;
}

/*
 * Any other I/O, cut at the region's end: sequential ones draw their length at
 * their position (seq_len); the permutation, skewed draws, strided zones and
 * interlocked tickets take a length first, then the offset.
 */
static bool len_first_next(struct gen *g, uint8_t *d, uint32_t *file, uint64_t *rel, uint64_t *len)
{
	struct gen_file *f;
	uint64_t end;

	for (;;) {
		*len = g->random || g->job->interlocked ? gen_pick_len(g, *d, UINT64_MAX) : 0;
		if (!next_rel(g, d, len, file, rel))
			return false;
		f = &g->files[*file];
		/* a later loop moved the region past the file's end (gen_loop_offsets): a
		 * block drawn there fails fio's fill, and the file is done for the pass */
		if (!f->moved || *rel < f->room)
			break;
		if (!fill_failed(g, f, *d) || (g->mixed && !redecide(g, d)))
			return false;
	}
	/* a backward pass's block fits the file (gen_back_fill_fails): fio does not cut it at the region's end */
	end = g->job->zone_size_bytes ? gen_zone_end(g, f) : g->job->rw_seq_back_bytes ? f->room : f->len;
	if (*rel + *len > end) {
		*len = end - *rel;
		f->pos[*d] = end;	/* randtrimwrite writes what was trimmed (tw_rewrite) */
	}
	return true;
}

/*
 * trimwrite at number_ios: fio's do_io returns, and while loops= lasts its
 * keep_running starts the next loop, whose do_io doubles number_ios again.
 */
static bool tw_next_loop(struct gen *g, uint8_t d)
{
	return g->trimwrite && g->passes_left > 1 && start_pass(g, d, true);
}

uint8_t gen_other_ddir(const struct gen *g, uint8_t d)
{
	return d == PLAN_DDIR_WRITE ? g->only_ddir : PLAN_DDIR_WRITE;
}

uint32_t gen_mix_share(const struct gen *g, uint8_t d)
{
	uint32_t read_pct = g->job->rwmixread_pct;

	return d == PLAN_DDIR_READ ? read_pct : 100 - read_pct;
}

bool gen_next(struct gen *g, struct gen_io *io)
{
	return gen_next_ddir(g, gen_pick_ddir(g), io);
}

bool gen_next_general(struct gen *g, uint8_t d, struct gen_io *io)
{
	uint64_t len, rel;
	struct gen_file *f;

	g->fast_left = 0;	/* what it draws counts toward the bounds the countdown was cut from */

	g->busy = false;
	g->retry = false;
	if (round_is_over(g) && !next_round(g, d))
		return false;
	if ((g->limit_ios && g->done_ios >= g->limit_ios && !tw_next_loop(g, d)) ||
	    (g->limit_bytes && g->done_bytes >= g->limit_bytes))
		return false;
	if (!(g->offset_first ? offset_first_next : len_first_next)(g, &d, &io->file, &rel, &len))
		return false;
	f = &g->files[io->file];
	gen_counted(g, f, d, rel, len, io);
	if (g->trimwrite && d == PLAN_DDIR_TRIM) {
		/* fio's amount is the writes' (io_bytes_exceeded), number_ios every I/O */
		g->done_bytes -= len;
		g->trim_bytes += len;
	}
	return true;
}
