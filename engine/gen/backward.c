/*
 * engine/gen/backward.c - backward sequential passes, rw=read:-<n>, as fio's.
 *
 * Each I/O starts n bytes before the end of the last; a step before the
 * region's start wraps to n bytes below fio's top, which mixes the region's
 * offset with io_size and the file's size (back_top), and a pass ends where
 * fio's fill of the next I/O would fail.  Apart from iogen.c, whose
 * sequential way calls here only for such a job, so the common passes stay
 * in one file.
 */
#include "engine/gen/iogen.h"
#include "engine/gen/draw.h"

/*
 * Where fio's backward pass wraps to, less the step: its get_next_seq_offset
 * takes the smaller of io_size and the file's size (real_file_size: start +
 * room), both counted from the file's start, as a position in the region.
 * With offset= that is not the region's end (fio mixes the two): offset=64k
 * size=1m wraps to 1m - n past the offset, so the region's last 64 KiB are read.
 */
static uint64_t back_top(const struct gen_file *f)
{
	uint64_t real = f->start + f->room;

	return f->io_size < real ? f->io_size : real;
}

/* fio's next offset after a backward I/O that ended at end (in the region): n bytes
 * before it, else (before the region's start: past every size, unsigned) the wrap. */
static uint64_t back_step(const struct gen_file *f, uint64_t end, uint64_t back)
{
	uint64_t pos = end - back;	/* wraps below 0 as fio's unsigned sum does */

	return pos < f->start + f->room ? pos : back_top(f) - back;
}

/*
 * A backward pass's first offset, as fio's get_next_seq_offset after the file
 * opens (fio_file_reset puts its last position at the region's start): at the
 * region's start when that is the file's, else fio "rewinds" first, to the
 * wrap's top less the step (offset=64k size=1m rw=read:-8k: 1016 KiB into
 * the region, where ioplan began at its start).
 */
uint64_t gen_back_first(const struct gen_file *f, uint64_t back)
{
	uint64_t top;

	if (!f->start)
		return 0;
	top = back_top(f) - f->start;	/* unsigned: below the offset it wraps, as fio's */
	return top ? back_step(f, top, back) : 0;
}

/*
 * Whether fio's fill of a backward pass fails at pos (relative): past the region or
 * the file (get_next_offset), or where no length fits, a fixed one before the file's
 * end (real_file_size), a drawn one in the region (io_u_fits).  The pass is over then.
 */
bool gen_back_fill_fails(const struct gen *g, const struct gen_file *f, uint8_t d, uint64_t pos)
{
	uint64_t fixed = plan_seq_fixed_bs(g->job, (enum plan_ddir)d), end = f->end[d] + f->fit_shift;

	if (pos >= f->io_size || pos >= f->room)
		return true;
	return fixed ? f->room - pos < fixed : pos >= end || end - pos < gen_bs_of(g, d)->min_bytes;
}

/*
 * rw=read:-<n> as fio's get_next_seq_offset: the next I/O starts n bytes before
 * the end of the last one; stepping before the region's start wraps to n
 * bytes before the top (back_top).  The first I/O of a pass is gen_back_first's,
 * so with n = 2 * bs a pass goes 0, end - 2bs, end - 3bs, ..., bs.  fio goes on
 * while the last I/O ended before the file's end (real_file_size, past the
 * region in a larger file) and its next offset is inside the region and the
 * file (get_next_offset); else its fill fails and the pass is over.
 */
uint64_t gen_back_offset(struct gen *g, struct gen_file *f, uint8_t d, uint64_t len)
{
	uint64_t back = g->job->rw_seq_back_bytes, rel = f->pos[d], end = rel + len;

	f->back_end[d] = end;
	f->pos[d] = end < f->room ? back_step(f, end, back) : f->room;
	if (gen_back_fill_fails(g, f, d, f->pos[d])) {
		/* the next pass starts as the reopened file does (the next loop's) */
		f->back_ended[d] = true;
		f->back_end[d] = 0;
		f->pos[d] = gen_back_first(f, back);
	}
	return rel;
}

/*
 * A later loop took f's percentage offset again (gen_loop_offsets): fio's next
 * backward offset is found from its last position (last_pos, absolute) less the
 * new offset, so a pass still open goes on from where its last I/O ended, wrapping
 * if that is now before the region; a file whose pass was over opens again at the
 * new offset and starts as gen_back_first says (offset=25% loops=3: loop 2 at
 * 248k, 168k into a region now at 80k).
 */
void gen_back_moved(const struct gen *g, struct gen_file *f, uint64_t old_start)
{
	uint64_t back = g->job->rw_seq_back_bytes, end;

	for (uint8_t d = 0; d < PLAN_DDIR_NR; d++) {
		end = f->back_ended[d] ? 0 : old_start + f->back_end[d] - f->start;	/* unsigned, as fio's */
		f->back_end[d] = end;
		f->pos[d] = end ? back_step(f, end, back) : gen_back_first(f, back);
	}
}
