/*
 * engine/gen/draw.h - the I/O generator's random draws: seeds, block sizes,
 * start blocks, lengths and the random map's cut (draw.c).
 *
 * Internal to engine/gen/iogen.c: the generator state (struct gen) is
 * iogen.h's; these are the choices that must fall as fio 3.33's fall, draw for
 * draw.
 */
#ifndef IOPLAN_ENGINE_DRAW_H
#define IOPLAN_ENGINE_DRAW_H

#include "engine/gen/iogen.h"

/*
 * The block sizes of a direction; with bs_is_seq_rand, of the I/O's kind: a
 * random job's sequential turn (percentage_random, rw=randread:<n>) takes the
 * sequential sizes, as fio's is_random says.
 */
static inline const struct plan_bs *gen_bs_of(const struct gen *g, uint8_t d)
{
	if (g->job->bs_is_seq_rand)
		return &g->bs[g->random && !g->seq_turn ? 1 : 0];
	return &g->bs[d];
}

/* Setup: fio's generators from the clone's seeds, its bssplit order and block sizes. */
void gen_draw_seed(struct gen *g);
int gen_draw_sort_splits(struct gen *g);
void gen_draw_block_sizes(struct gen *g);
bool gen_draw_aligned_apart(const struct gen *g);

/* fio's next loop: a repeatable job's generators start over, the mix decides afresh. */
void gen_draw_next_loop(struct gen *g);

/* fio's last_block: the blocks of ba bytes a draw may start at (kept in gen_file.lastb). */
uint64_t gen_draw_last_block(const struct gen *g, const struct gen_file *f, uint8_t d);

/* A random start block in ba units (fio's draw, map, zoned zones); RANDMAP_NONE: no room. */
uint64_t gen_draw_block(struct gen *g, struct gen_file *f, uint8_t d);

/* Marks [rel, rel+len) in the map up to the first done block; the length kept. */
uint64_t gen_draw_mark(struct gen *g, struct gen_file *f, uint8_t d, uint64_t rel, uint64_t len);

/* fio's get_next_buflen within room bytes (UINT64_MAX: unbounded); 0 when not even the minimum fits. */
uint64_t gen_pick_len(struct gen *g, uint8_t d, uint64_t room);

#endif /* IOPLAN_ENGINE_DRAW_H */
