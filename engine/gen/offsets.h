/*
 * engine/gen/offsets.h - block-index generators: full-period permutations and skewed draws.
 *
 * Random I/O picks block indices in [0, n).  By default every block is visited
 * exactly once per pass without a bitmap: the pass walks a counter through a keyed
 * bijection of [0, 2^k) (xor-shift and odd-multiply rounds, each invertible modulo
 * 2^k) and keeps the values below n, so the first n kept values are a permutation
 * of [0, n) and a new key gives a new order for the next pass.  Cost: a few
 * multiplies and, on average, fewer than two rounds per block.
 *
 * random_distribution=zoned with random_generator=lfsr draws its zone here (struct
 * dist); the skewed laws are fio's own generators (fio_dist.h), and every other
 * zoned job, in strided zones too, takes fio's draw (draw.c).
 */
#ifndef IOPLAN_ENGINE_OFFSETS_H
#define IOPLAN_ENGINE_OFFSETS_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/plan.h"

struct perm {
	uint64_t n;			/* domain size */
	uint64_t mask;			/* 2^k - 1, 2^k >= n */
	uint32_t shift;			/* xor-shift distance, >= 1 */
	uint64_t k0, k1;		/* keys of the current pass */
	uint64_t i;			/* counter in [0, 2^k) */
	uint64_t left;			/* values still to come in this pass */
};

/* A keyed bijection of [0, mask]. */
static inline uint64_t perm_mix(const struct perm *p, uint64_t x)
{
	x = (x + p->k0) & p->mask;
	x ^= x >> p->shift;
	x = (x * 0x9e3779b97f4a7c15ull) & p->mask;
	x ^= (x >> p->shift) ^ (p->k1 & p->mask);
	x = (x * 0xd6e8feb86659fd93ull) & p->mask;
	x ^= x >> p->shift;
	return x;
}

/*
 * Next value of the pass; the caller starts a new pass when left reaches 0.
 * When n is not a power of two, up to half the counter's values fall outside it,
 * and a loop that walks on over each of them mispredicts its exit about as often
 * (a fifth of the draws at n = 0.78 * 2^k, size=100g of 4k blocks): each miss
 * throws away the next I/O's work already under way, and a null I/O took 15%
 * longer there than at a power of two (10% after this change).  So two
 * candidates are mixed at once and the first one inside is taken without a
 * branch; the loop runs again only when both fall outside (1 draw in 20 there).
 * The values and their order are the walk's: a candidate past the first kept
 * one is mixed again next time.  The second candidate stays inside the counter's
 * range: when the first falls outside, a kept value is still to come (left > 0).
 */
static inline uint64_t perm_next(struct perm *p)
{
	uint64_t a, b, in;

	p->left--;
	if (p->n > p->mask)	/* n == 2^k: every value is inside */
		return perm_mix(p, p->i++);
	for (;;) {
		a = perm_mix(p, p->i);
		b = perm_mix(p, p->i + 1);
		in = a < p->n;
		p->i += 2 - in;
		a = b ^ ((a ^ b) & (0 - in));
		if (__builtin_expect(a < p->n, 1))
			return a;
	}
}

/* Prepares a permutation of [0, n) and its first pass, keyed from *rng. */
void perm_init(struct perm *p, uint64_t n, uint64_t *rng);

/* Starts a new pass with fresh keys. */
void perm_new_pass(struct perm *p, uint64_t *rng);

/* The bijection of [0, n) itself, for random access (cycle-walking). */
uint64_t perm_map(const struct perm *p, uint64_t x);

/* random_distribution=zoned over [0, n): zone i holds blocks [zone_lo[i], zone_hi[i]) and
 * gets the I/Os whose percentile draw falls below zone_cum[i]. */
struct dist {
	uint64_t n;
	uint32_t nr_zones;
	uint32_t zone_cum[PLAN_RAND_ZONES_MAX];
	uint64_t zone_lo[PLAN_RAND_ZONES_MAX];
	uint64_t zone_hi[PLAN_RAND_ZONES_MAX];
};

/*
 * random_distribution=zoned / zoned_abs over n blocks of block_bytes: zones from
 * the start, sized in percent of n or in bytes.  Returns 0 or -EINVAL (a zone
 * past the end, or no blocks in a zone that gets I/O).
 */
int dist_init_zones(struct dist *d, uint64_t n, uint64_t block_bytes, const struct plan_rand_zone *z,
		    uint32_t nz);

/* A block index in [0, n): a zone by its share, then a block of it. */
uint64_t dist_next(struct dist *d, uint64_t *rng);

#endif /* IOPLAN_ENGINE_OFFSETS_H */
