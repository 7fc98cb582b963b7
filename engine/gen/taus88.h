/*
 * engine/gen/taus88.h - fio's 32-bit combined Tausworthe generator (L'Ecuyer's taus88),
 * seeded as fio seeds it.
 *
 * Where a user compares ioplan's numbers with fio's, some decisions must come out
 * as fio's do, draw for draw: the read/write mix of rw=rw/randrw decides how many
 * bytes each direction moves (fio's t0008 checks the written amount).  Only the
 * same generator with the same seeding gives the same sequence.  Hand-written:
 * the generator itself is three shift lines (GSL's taus2 is the same recurrence,
 * but not fio's LCG seeding and warm-up, and a library for it would cost more than
 * it saves).  One draw is a few shifts: cheap enough where it is used, once per
 * mix decision.
 */
#ifndef IOPLAN_ENGINE_TAUS88_H
#define IOPLAN_ENGINE_TAUS88_H

#include <stdint.h>

struct taus88 {
	uint32_t s1, s2, s3;
};

static inline uint32_t taus88_next(struct taus88 *t)
{
	t->s1 = ((t->s1 & 4294967294u) << 12) ^ (((t->s1 << 13) ^ t->s1) >> 19);
	t->s2 = ((t->s2 & 4294967288u) << 4) ^ (((t->s2 << 2) ^ t->s2) >> 25);
	t->s3 = ((t->s3 & 4294967280u) << 17) ^ (((t->s3 << 3) ^ t->s3) >> 11);
	return t->s1 ^ t->s2 ^ t->s3;
}

/* Each word must exceed its generator's minimum, or that component sticks at zero. */
static inline uint32_t taus88_floor(uint32_t x, uint32_t m)
{
	return x < m ? x + m : x;
}

/* fio's __init_rand32: an LCG spreads the seed over the words, then six draws warm up. */
static inline void taus88_seed(struct taus88 *t, uint32_t seed)
{
	/* fio writes the start value as (2^31) + (2^17) + (2^7), which C reads as XORs: 53. */
	t->s1 = taus88_floor(53u * 69069u ^ seed, 1);
	t->s2 = taus88_floor(t->s1 * 69069u ^ seed, 7);
	t->s3 = taus88_floor(t->s2 * 69069u ^ seed, 15);
	for (int i = 0; i < 6; i++)
		taus88_next(t);
}

/* fio's rand_between(start, end) on a 32-bit state: both ends included. */
static inline uint32_t taus88_between(struct taus88 *t, uint32_t start, uint32_t end)
{
	uint32_t r = taus88_next(t);

	return start + (uint32_t)((double)(end - start + 1) * (r / 4294967296.0));
}

#endif /* IOPLAN_ENGINE_TAUS88_H */
