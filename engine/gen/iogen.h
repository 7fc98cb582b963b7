/*
 * engine/gen/iogen.h - what a worker does next: direction, file, offset and length.
 *
 * One generator per worker, private to its thread.  It turns the job's pattern
 * (rw, rwmixread, bs/bsrange/bssplit, blockalign, stride, random distribution,
 * file_service) into a stream of I/Os over the clone's file regions, and counts
 * the measured window's amount, checked before each I/O as fio checks it (a
 * size-bound job with varying lengths issues its last I/O whole).  Interlocked jobs draw sequential positions from counters that
 * all clones of the job share (the only shared write on the hot path).
 */
#ifndef IOPLAN_ENGINE_IOGEN_H
#define IOPLAN_ENGINE_IOGEN_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "engine/gen/file_pick.h"
#include "engine/gen/fio_dist.h"
#include "engine/gen/lfsr.h"
#include "engine/gen/offsets.h"
#include "engine/plan.h"
#include "engine/results.h"
#include "engine/gen/randmap.h"
#include "engine/gen/taus258.h"

/* One shared sequential position per file of an interlocked job, on its own line. */
struct interlock {
	_Alignas(64) _Atomic uint64_t window;	/* tickets of the measured window */
	_Atomic uint64_t free_run;		/* tickets outside it (ramp, cool-down) */
	char pad[64 - 2 * sizeof(uint64_t)];
};

struct gen_file {
	uint64_t start;			/* first byte of the region */
	uint64_t len;			/* usable bytes: a whole number of steps/blocks */
	uint64_t nblocks;		/* random: blocks of `align` bytes */
	uint64_t nsteps;		/* sequential: positions `step` apart */
	uint64_t pos[PLAN_DDIR_NR];	/* sequential: next relative offset per direction */
	/* sequential: where d's pass ends, past len's unrounded end when a fixed block may
	 * reach into what the file holds (file_init); len is then the farthest of them */
	uint64_t end[PLAN_DDIR_NR];
	uint64_t zone_start;		/* zonemode=strided: start of the current zone */
	bool back_ended[PLAN_DDIR_NR];	/* rw=read:-<n>: an I/O ended on the region's end: the pass is over */
	uint64_t back_end[PLAN_DDIR_NR];	/* rw=read:-<n>: where the last I/O ended (fio's last_pos), 0 = none since the file opened */
	uint64_t last_start[PLAN_DDIR_NR];	/* rw_sequencer=identical: the last I/O's offset + 1, 0 = none */
	uint32_t par_issued;		/* sequential_parallel: I/Os at the current position */
	struct perm perm;		/* random map replacement: one pass = one permutation */
	struct randmap map;		/* use_map: fio's random map (nr_bits 0 = none) */
	struct lfsr lfsr;		/* use_lfsr: fio's register over the region's blocks */
	uint64_t io_size;		/* the region's bytes, unrounded (fio's io_size) */
	/* the bytes from start to the file's end as fio's setup found it (its
	 * real_file_size), at least the region: where a holed pass wraps (seq_offset),
	 * and strided zones (gen_zone_end) */
	uint64_t room;
	/* fio's io_u_fits measures a drawn length from get_start_offset taken again of
	 * the file's size after the set-up (start + room), not from the region's start:
	 * how much further that is, for a percentage offset of a file the set-up grew */
	uint64_t fit_shift;
	uint64_t lastb[PLAN_DDIR_NR];	/* offset_first: blocks a draw may start at, per direction */
	struct interlock *il;		/* interlocked jobs only */
	uint64_t il_limit;		/* window tickets this file takes in all */
	bool exhausted;			/* this pass is done for this file */
	bool open;			/* openfiles: counted in gen.nr_open */
	bool closing;			/* openfiles: its pass is issued; close once idle */
	bool retired;			/* found done by a pick or a fill this pass (gen.retired called) */
	/* a later loop took a random job's percentage offset again (gen_loop_offsets):
	 * room is then the file's end from start, where fio's draws fail the fill */
	bool moved;
};

struct gen_io {
	uint64_t offset;
	uint32_t len;
	uint32_t file;
	uint8_t ddir;
};

struct gen {
	const struct plan_job *job;
	/* A clone with zones_off: its own copy of the job, without zonemode=strided. */
	struct plan_job *unzoned;
	struct gen_file *files;
	uint32_t nr_files;
	uint32_t cur;			/* file service position */
	uint32_t svc_file, svc_left;	/* file_service_type=TYPE:N: the file, and I/Os it still gets */
	bool drawn_service;		/* files are drawn (pick), not taken in turn */
	bool skewed_service;		/* zipf, pareto, normal: a done file starts over, size= ends the job */
	bool whole_files;		/* a sequential mix over files: a failed fill ends a file's pass */
	uint32_t nr_exhausted;		/* files whose exhausted is set */
	uint32_t max_open;		/* openfiles: most files open at once, 0 = all */
	uint32_t nr_open;
	bool busy;			/* the last draw waits for a file to close */
	/* busy because a fill ran out and closed its file: fio tries the next file at
	 * once (set_io_u_file's loop), before any completion; the caller draws again */
	bool retry;
	bool random;
	bool use_perm;			/* random map semantics (no norandommap, uniform) */
	/* Random map with lengths that vary: fio's draw, map and cut rules (randmap.h). */
	bool use_map;
	/*
	 * The random map of file map_file could not be allocated (-ENOMEM); with
	 * softrandommap the job went on without maps (map_dropped), its offsets
	 * drawn as with norandommap.
	 */
	bool map_failed, map_dropped;
	uint32_t map_file;
	/* The offset drawn first, then a length that fits (draw.c), not the permutation. */
	bool offset_first;
	bool use_lfsr;			/* random_generator=lfsr: offsets from fio's register, no map */
	/* One file, one block size, every I/O a permutation draw or the next block:
	 * gen_next_ddir's short way, which gives the I/Os the general way would
	 * (null-engine cost per I/O). */
	bool fast;
	/* fast and random without a map (norandommap): fio's taus88 draw, not the permutation */
	bool fast_draw;
	uint64_t fast_left;		/* draws the short way may make unchecked (gen_fast_refill) */
	uint64_t plain_len[PLAN_DDIR_NR];	/* fast: each direction's one length */
	uint32_t passes_left;		/* use_map: passes the window may still start (fio's loops) */
	uint64_t min_bs[PLAN_DDIR_NR], ba[PLAN_DDIR_NR];	/* fio's min_bs and blockalign */
	uint64_t rw_min_bs;		/* fio's rw_min_bs: the random map's block */
	struct taus88 off_rng;		/* fio's random_state (rng64's under tausworthe64) */
	struct taus88 bs_rng[PLAN_DDIR_NR];	/* fio's bsrange_state (rng64's under tausworthe64) */
	const struct plan_clone *clone;	/* its fio seeds */
	struct plan_bs bs[PLAN_DDIR_NR];	/* the job's block sizes, bssplit sorted as fio sorts it */
	struct plan_bssplit *splits;	/* bs[]'s bssplits: this clone's sorted copy of the plan's */
	struct taus88 zone_rng;		/* fio's zone_state: random_distribution=zoned's draws */
	bool mixed;
	bool in_window;			/* interlocked: draw from the window's tickets */
	bool limited;			/* the window's amount applies (not time_based) */
	uint8_t only_ddir;		/* single-direction jobs */
	uint64_t align;			/* random block size */
	uint64_t skip;			/* rw=read:<n> gap */
	uint64_t stride;		/* sequential_stride_bytes, 0 = length of the I/O */
	uint64_t rng_off;
	/* The read/write mix, decided as fio's get_rw_ddir decides it: a direction is
	 * drawn, then kept for a run of I/Os proportional to what the other did. */
	struct taus88 mix_rng;		/* fio's rwmix_state */
	uint64_t mix_issues[2];		/* fio's io_issues of reads and writes */
	uint64_t mix_until;		/* fio's rwmix_issues: draw again at this count */
	uint8_t mix_ddir;		/* fio's rwmix_ddir */
	/*
	 * openfiles: the mix as it stood before its last decision.  fio picks the
	 * file first and decides in the fill, so a pick that must wait for an open
	 * file to close (its -EBUSY) decides nothing: such a draw puts the mix
	 * back (gen_mix_undo), and the decision comes again, the same, once a
	 * file may open.  A draw whose fill failed (its file done) spent it.
	 */
	struct taus88 mix_rng_was;
	uint64_t mix_until_was;
	uint8_t mix_ddir_was;
	bool mix_undoable;
	struct taus88 seq_rand_rng[PLAN_DDIR_NR];	/* fio's seq_rand_state: percentage_random */
	bool seq_turn;			/* the offset is a sequential turn's: fio marks no map for it */
	/*
	 * A sequential turn's fill failed (the file done): fio's io_u keeps the flag
	 * that spares the map (IO_U_F_BUSY_OK, cleared only by a completion) into
	 * the next file's fill, so that I/O marks nothing either, random or not.
	 */
	bool unmarked_next;
	uint32_t seq_left;		/* rw=randread:<n>: I/Os until the next random draw (fio's td->ddir_seq_nr) */
	/*
	 * trimwrite and randtrimwrite, as fio's set_rw_ddir: a file trims when its
	 * last write started where its last trim did, else it writes (so over several
	 * files in turn: a trim in each, then a write in each).  randtrimwrite's write
	 * takes the file's last trim's offset and length; trimwrite's goes on from its
	 * own position in its own size, so with a smaller write size it takes several
	 * writes to catch up (bs=4k,8k,16k: a 16 KiB trim, two 8 KiB writes).
	 */
	bool trimwrite;
	bool tw_seq;			/* trimwrite, not randtrimwrite */
	uint64_t trim_bytes;		/* trimwrite's trims: fio's keep_running counts them toward io_size */
	bool use_dist;
	uint64_t zone_bytes;		/* zonemode=strided: bytes done in the current zone (fio's td->zone_bytes) */
	/* Uniform or zoned (random_distribution=zoned) random I/O in strided zones: fio's
	 * draws over the zone's blocks, its map (or register) over the zone and reset
	 * with it (zones.c); a draw past the file's end fails the fill. */
	bool zoned_draws;
	/* Amount of the measured window. */
	uint64_t limit_bytes;		/* 0 = none */
	uint64_t limit_ios;		/* 0 = none */
	uint64_t done_bytes;
	uint64_t done_ios;
	/*
	 * fio ends a round (do_io) where its files run out, and its sync and
	 * read-back come before the next: with round_pause the generator stops at
	 * a pass's end (round_due) until gen_round_done.
	 */
	bool round_pause;
	bool round_due;
	bool round_resumed;
	uint64_t read_back_bytes;	/* the rounds' read-backs: fio counts them toward io_size */
	/*
	 * fio's do_io also ends a round once the bytes its engine queued reach
	 * size= (gen_bound_rounds): with libaio, io_uring, posixaio, vsync or
	 * null at iodepth>1, a mix or a random job without a map would otherwise
	 * run past size= before its files run out.  0 = no such bound.
	 */
	uint64_t round_limit;
	uint64_t round_base;		/* done_bytes when the round began */
	/*
	 * Called as a file starts over after its first pass (fio's next loop, a
	 * time_based wrap, a full map's reset): where fio's loop_cache_invalidate
	 * and re-open drop the file's cached pages (invalidate=1).  NULL = nothing.
	 * Only the general way starts a pass, so the short way pays nothing for it.
	 */
	void (*restarted)(void *arg, uint32_t file);
	void *restarted_arg;
	/*
	 * Called as a pick or a fill finds a file done in a bounded window, once a
	 * pass: where fio's set_io_u_file closes it (write_iolog's "close" line)
	 * and a skewed service starts it over.  NULL = nothing.
	 */
	void (*retired)(void *arg, uint32_t file);
	void *retired_arg;
	/*
	 * Last, out of the lines the short way reads: the general way's state for
	 * file picks, skewed laws and 64-bit draws (a null I/O at depth ran 2-6%
	 * slower with it in the middle, for the same instructions).
	 */
	struct file_pick pick;		/* file_service_type=random and the skewed laws: fio's draws */
	struct dist dist;		/* zoned over strided zones: the zones' draw */
	/* zoned_ranges=diskspd: each file's DISKSPD effective distribution (diskspd_zones.h),
	 * which its offsets are drawn from; NULL for every other job */
	struct res_zones *dz;
	/*
	 * random_distribution=zipf, pareto or normal: each file's offsets from its
	 * own fio generator (laws[file]), the offset first, as fio's.
	 */
	bool fio_law;
	struct fio_dist *laws;
	uint64_t pass_base;		/* done_bytes when the pass began: a round that moved nothing ends the job */
	/* random_generator=tausworthe64: fio's 64-bit random_state, then each direction's
	 * bsrange_state (the general way's draws); NULL: the taus88 ones above */
	struct frand *rng64;
	/* fsync=N's syncs at a round's ends (worker_sync.c): the rounds fio's loop has
	 * started, and whether the last pass ended where the files ran out (a pass's
	 * end, not the amount, which fio's do_io sees only after one more draw). */
	uint32_t rounds;
	bool ran_out;
	/* file_append on a regular file: each later pass of fio's starts at the end
	 * the first one filled up to, where no I/O fits; so the job makes one pass. */
	bool append_once;
};

/*
 * Sets up a generator over nr files; region_start/region_len give each file's
 * I/O region (already validated against the file size), region_room the bytes
 * each file held from the region's start when fio would have set it up (NULL:
 * the region's own), which a sequential pass may reach into and a holed one
 * wraps at (plan_seq_uses_file_size).  il is NULL unless the job is interlocked (then an array
 * of nr).  Returns 0, -EINVAL when a region holds no whole block, or -ENOMEM.
 */
int gen_init(struct gen *g, const struct plan_job *j, const struct plan_clone *c,
	     const uint64_t *region_start, const uint64_t *region_len, const uint64_t *region_room,
	     uint32_t nr, struct interlock *il);
void gen_release(struct gen *g);

/*
 * Whether fio keeps a random map for the job (its file_randommap): random I/O
 * of a uniform or zoned law, without norandommap or lfsr, blockalign= the
 * block size, the map not dropped.  fio reads such a job's writes back in the
 * order it made them, any other job's by offset.
 */
bool gen_keeps_random_map(const struct gen *g);
/* Whether a random job's offsets are fio's own draws: its random map, its LFSR, or its draws without a map. */
bool gen_draws_fio_offsets(const struct gen *g);

/*
 * gen_window starts the measured window (it ends at the job's amount unless
 * time_based), gen_uncounted an uncounted phase (ramp, cool-down: endless);
 * either way every file starts a fresh pass.
 */
void gen_window(struct gen *g, bool time_based);
/* iogen.c: each loop after the first takes the files' percentage offsets again (gen_setup.c). */
void gen_loop_offsets(struct gen *g);
void gen_uncounted(struct gen *g);

/*
 * The window goes on from where a ramp begun with gen_window left off: fio
 * counts the ramp's I/O toward size=, so the passes are not started again;
 * number_ios counts afresh, from the I/Os drawn and not yet completed (pending).
 */
void gen_window_go_on(struct gen *g, uint32_t pending);

/*
 * The round that ended with a pass (round_due) is over: its read-back read
 * read_back bytes in read_back_ios I/Os, which fio counts toward io_size= and
 * number_ios.  The next pass starts if fio's keep_running would.
 */
void gen_round_done(struct gen *g, uint64_t read_back, uint64_t read_back_ios);

/*
 * verify_backlog's read-backs between writes: fio's exceeds_number_ios counts
 * them, and its keep_running counts their bytes toward io_size= (a round's own
 * end, fio's io_issue_bytes, leaves them out).
 */
void gen_read_back(struct gen *g, uint64_t bytes, uint64_t ios);

/* After gen_round_done: whether fio's keep_running would start another round (unlink_each_loop's cue). */
bool gen_loop_follows(const struct gen *g);

/*
 * openfiles (fio's semantics): at most max files open at once, each opened
 * when first picked.  File service opens a closed file only while fewer than
 * max are open; a file whose pass has been issued, or, drawn, that a pick
 * finds done, is marked closing, and the caller closes it once its I/O has
 * completed (gen_file_closed).  A pick that comes to a closed file none may
 * open, or a file that must close first, fails the draw with busy set, as
 * fio's get_next_file fails (-EBUSY) before its fill decides a direction:
 * close the idle ones, or wait for a completion, then draw again (at once
 * when retry is set); the turn, or the file draw, has moved on.
 */
void gen_limit_open(struct gen *g, uint32_t max);
void gen_file_closed(struct gen *g, uint32_t file);

static inline void gen_file_retired(struct gen *g, struct gen_file *f)
{
	if (f->retired)
		return;
	f->retired = true;
	if (g->retired && g->limited)
		g->retired(g->retired_arg, (uint32_t)(f - g->files));
}

static inline bool gen_file_closing(const struct gen *g, uint32_t file)
{
	return g->files[file].closing && g->files[file].open;
}

/* Fills *io with the next I/O.  False when the window's amount is done (or busy). */
bool gen_next(struct gen *g, struct gen_io *io);

/*
 * An I/O drawn, both ways: counted toward the window's amount (before the
 * I/O, as fio checks it: the last one goes whole) and the mix, and filled in.
 */
static inline void gen_counted(struct gen *g, const struct gen_file *f, uint8_t d, uint64_t rel,
			       uint64_t len, struct gen_io *io)
{
	g->done_bytes += len;
	g->zone_bytes += len;
	g->done_ios++;
	if (g->mixed) {
		/* A rate-steered direction becomes the mix's, as fio's rate_ddir makes it. */
		g->mix_ddir = d;
		g->mix_issues[d]++;
	}
	io->offset = f->start + rel;
	io->len = (uint32_t)len;
	io->ddir = d;
}

/*
 * fio's __get_next_rand_offset without a map: one taus88 draw scaled to n
 * blocks (below n: the draw is under 2^32).  The short way's; a tausworthe64
 * job takes the general way (draw.c).
 */
static inline uint64_t gen_draw_below(struct gen *g, uint64_t n)
{
	return (uint64_t)((double)n * (taus88_next(&g->off_rng) / 4294967296.0));
}

/* rw=read:-<n>: where a pass over f starts, fio's (n = rw_seq_back_bytes; backward.c). */
uint64_t gen_back_first(const struct gen_file *f, uint64_t back);
/* rw=read:-<n>: the next I/O's offset in f (relative), moving f's position on. */
uint64_t gen_back_offset(struct gen *g, struct gen_file *f, uint8_t d, uint64_t len);
/* rw=read:-<n>: whether fio's fill fails at pos (relative), which ends the pass. */
bool gen_back_fill_fails(const struct gen *g, const struct gen_file *f, uint8_t d, uint64_t pos);
/* rw=read:-<n>: f's region moved from old_start at a later loop (gen_loop_offsets): where the pass goes on. */
void gen_back_moved(const struct gen *g, struct gen_file *f, uint64_t old_start);

/* gen_next_ddir's every case; the short way below gives the I/Os this would. */
bool gen_next_general(struct gen *g, uint8_t ddir, struct gen_io *io);

/*
 * Whether the short way may draw now: it may while the job is fast and its
 * pass and amount go on.  Sets fast_left to the draws that surely stay inside
 * the pass, number_ios and the bytes bound, so that those draws test nothing.
 */
bool gen_fast_refill(struct gen *g);

/*
 * The same in a direction chosen by the caller (rate limits steer mixed jobs).
 * Inline for a plain job (gen.fast) while its pass and amount last: one
 * countdown and one permutation draw or one step, what the general way's file,
 * offset and length rules come to for it (tests/engine/test_iogen.cpp drives both).
 */
static inline bool gen_next_ddir(struct gen *g, uint8_t d, struct gen_io *io)
{
	struct gen_file *f = g->files;
	uint64_t rel, len;

	if (__builtin_expect(!g->fast_left, 0) && (!g->fast || !gen_fast_refill(g)))
		return gen_next_general(g, d, io);
	g->fast_left--;
	len = g->plain_len[d];
	if (g->random) {
		if (g->fast_draw) {
			/* the last block drawable leaves room for a whole I/O (gen_draw_last_block) */
			rel = gen_draw_below(g, f->lastb[d]) * g->ba[d];
		} else {
			rel = f->zone_start + perm_next(&f->perm) * g->align;
			if (rel + len > f->len)
				len = f->len - rel;
		}
		g->seq_left = 1;
		f->last_start[d] = rel + 1;
	} else {
		rel = f->pos[d];	/* the countdown left a whole block to the end */
	}
	g->busy = false;
	f->pos[d] = rel + len;
	io->file = 0;
	gen_counted(g, f, d, rel, len, io);
	return true;
}

/* The direction of a mix's (or trimwrite's) next I/O by rwmixread. */
uint8_t gen_pick_mixed_ddir(struct gen *g);

/* The direction of the next I/O; inline, as a job of one direction asks nothing. */
static inline uint8_t gen_pick_ddir(struct gen *g)
{
	return g->mixed || g->trimwrite ? gen_pick_mixed_ddir(g) : g->only_ddir;
}

/* Every I/O a read, whatever rw= says: the engines that do no I/O (fio's FIO_NOIO). */
static inline void gen_count_as_reads(struct gen *g)
{
	g->mixed = g->trimwrite = g->tw_seq = false;
	g->only_ddir = PLAN_DDIR_READ;
}

/* The other direction of a mix. */
uint8_t gen_other_ddir(const struct gen *g, uint8_t ddir);

/* A mix's share of direction d in percent (fio's rwmix[d]); 0: the mix never picks d. */
uint32_t gen_mix_share(const struct gen *g, uint8_t ddir);

/* Bytes one pass over all files covers (the default amount per loop). */
uint64_t gen_pass_bytes(const struct gen *g);

/* io_size=, or io_size=N% of each file's region summed (amount.c); 0 = unset. */
uint64_t gen_io_size(const struct gen *g);

/* fio's total_size: every file's region in bytes, unrounded (UINT64_MAX when none). */
uint64_t gen_regions_bytes(const struct gen *g);

/*
 * The bytes from file i's region start that its I/O may touch, what the verify
 * and trim maps cover: its len, or in strided zones (which wrap at the file's
 * end, as fio's, past the region in a larger file) up to the file's end.
 */
uint64_t gen_file_span(const struct gen *g, uint32_t i);

/* fio's size= once setup_files has capped it at the regions (theirs when size= is unset). */
uint64_t gen_size_capped(const struct gen *g);

/*
 * After gen_window (or gen_window_go_on): whether the engine queues its I/Os
 * (fio's FIO_Q_QUEUED, not completed inside queue()), which bounds each round
 * of the window by the bytes it issues, as fio's do_io does (round_limit).
 */
void gen_bound_rounds(struct gen *g, bool queued);

/*
 * Whether fio's do_io would ask for another I/O after the generator's last
 * one: its bytes and I/Os below the job's ((io_size=, else size= capped at the
 * regions) and number_ios=, loops times) and the round not ended by the bytes
 * queued (round_limit).  The generator's own amount may be a pass's bytes.
 */
bool gen_fio_loop_goes_on(const struct gen *g);

/* Window tickets of an interlocked job's file: loops passes over its region. */
uint64_t gen_interlock_limit(const struct plan_job *j, uint64_t region_len);

#endif /* IOPLAN_ENGINE_IOGEN_H */
