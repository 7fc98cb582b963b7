/*
 * engine/gen/randmap.h - fio's random map: which blocks of a file this pass has done.
 *
 * A random job whose I/O lengths vary (bsrange, bssplit, read and write sizes
 * that differ) cannot cover a file once per pass with a permutation of start
 * blocks: a long I/O covers blocks other draws still hold.  fio keeps a bitmap
 * (its axmap) instead: a drawn block already done moves to the next free one,
 * wrapping once, and an I/O is cut where it meets a done block.  How many bytes
 * such a job moves, and where its pass ends, follow from those rules, so ioplan
 * keeps the same map with the same rules.
 *
 * Hand-written: a flat bitmap would make "next free block" a linear scan late in
 * a pass; the levels above it (a bit per full word below) make it a few word
 * reads at any size.  No packaged library offers set-a-run-until-a-set-bit.
 */
#ifndef IOPLAN_ENGINE_RANDMAP_H
#define IOPLAN_ENGINE_RANDMAP_H

#include <stdbool.h>
#include <stdint.h>

#define RANDMAP_LEVELS_MAX 8		/* 64^8 bits: more than any device has blocks */
#define RANDMAP_NONE UINT64_MAX

struct randmap {
	uint64_t nr_bits;
	uint64_t ghost;			/* blocks nr_bits.. that a run took past the end (fio's; randmap_reset) */
	uint32_t nr_levels;
	uint64_t *level[RANDMAP_LEVELS_MAX];	/* level 0: the blocks; level i: full words of i-1 */
	uint64_t words[RANDMAP_LEVELS_MAX];
};

/* 0, -EINVAL for an empty map, or -ENOMEM. */
int randmap_init(struct randmap *m, uint64_t nr_bits);
void randmap_free(struct randmap *m);

/* Every block free again (a new pass). */
void randmap_reset(struct randmap *m);

/* Blocks past the end read as free, as fio's axmap_isset has them. */
bool randmap_isset(const struct randmap *m, uint64_t bit);

/*
 * Sets up to n blocks from bit on, stopping at the first one already set;
 * returns how many it set (0 when bit itself is set).  A run may pass the map's
 * end as far as the end of the word that holds it, as fio's axmap_set_nr does
 * (its __axmap_set clamps a count it then does not use), so an I/O of
 * bs_unaligned lengths keeps the bytes it has past the last whole block.
 */
uint64_t randmap_set_run(struct randmap *m, uint64_t bit, uint64_t n);

/*
 * The first free block after bit, wrapping to the map's start once (fio's
 * axmap_next_free); RANDMAP_NONE when every block is set.
 */
uint64_t randmap_next_free(const struct randmap *m, uint64_t bit);

#endif /* IOPLAN_ENGINE_RANDMAP_H */
