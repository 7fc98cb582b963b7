/*
 * engine/gen/lfsr.h - fio's random_generator=lfsr: a maximal-length XNOR shift
 * register over a file's blocks.
 *
 * A job written for fio with random_generator=lfsr expects fio's offsets, not
 * just fio's coverage: the blocks it visits (and, with bsrange, the lengths
 * that fit there) follow from the register's exact sequence.  So the register
 * is fio's: the tap table of maximal-length registers, the width chosen as the
 * smallest with 2^width above the block count, fio's one-step update, values
 * past the last block skipped, and fio's quirk that the first value after
 * setup (not after a reset) is two steps from the seed.  Every block comes out
 * once per pass, then the pass is over: no map is needed.
 */
#ifndef IOPLAN_ENGINE_LFSR_H
#define IOPLAN_ENGINE_LFSR_H

#include <stdbool.h>
#include <stdint.h>

struct lfsr {
	uint64_t last;		/* the register */
	uint64_t max;		/* the last block a value may name */
	uint64_t xormask;	/* the taps */
	uint64_t top;		/* the register's highest bit */
	uint64_t given;		/* values handed out this pass */
	bool twice;		/* the next step is fio's first, double one */
};

/* A register over nblocks blocks from seed; -EINVAL when nblocks is 0 or past 2^63,
 * or the seed is the register's all-ones state. */
int lfsr_init(struct lfsr *l, uint64_t nblocks, uint64_t seed);

/* A new pass from seed, as fio's lfsr_reset (the double first step is not repeated). */
void lfsr_reset(struct lfsr *l, uint64_t seed);

/* The next block; false once every block has been handed out this pass. */
bool lfsr_next(struct lfsr *l, uint64_t *block);

#endif
