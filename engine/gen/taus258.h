/*
 * engine/gen/taus258.h - fio's 64-bit combined Tausworthe generator (L'Ecuyer's taus258),
 * seeded as fio seeds it, and fio's frand: the 32- or 64-bit one a job asked for.
 *
 * random_generator=tausworthe64 makes fio draw block sizes, offsets, random file
 * picks and file sizes from this generator instead of taus88 (taus88.h says why
 * the draws must be fio's).  Hand-written for the same reason as taus88: five
 * shift lines and fio's LCG seeding, which no packaged generator reproduces.
 */
#ifndef IOPLAN_ENGINE_TAUS258_H
#define IOPLAN_ENGINE_TAUS258_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/gen/taus88.h"

struct taus258 {
	uint64_t s1, s2, s3, s4, s5;
};

static inline uint64_t taus258_next(struct taus258 *t)
{
	uint64_t x;

	x = ((t->s1 << 1) ^ t->s1) >> 53;
	t->s1 = ((t->s1 & 18446744073709551614ull) << 10) ^ x;
	x = ((t->s2 << 24) ^ t->s2) >> 50;
	t->s2 = ((t->s2 & 18446744073709551104ull) << 5) ^ x;
	x = ((t->s3 << 3) ^ t->s3) >> 23;
	t->s3 = ((t->s3 & 18446744073709547520ull) << 29) ^ x;
	x = ((t->s4 << 5) ^ t->s4) >> 24;
	t->s4 = ((t->s4 & 18446744073709420544ull) << 23) ^ x;
	x = ((t->s5 << 3) ^ t->s5) >> 33;
	t->s5 = ((t->s5 & 18446744073701163008ull) << 8) ^ x;
	return t->s1 ^ t->s2 ^ t->s3 ^ t->s4 ^ t->s5;
}

static inline uint64_t taus258_floor(uint64_t x, uint64_t m)
{
	return x < m ? x + m : x;
}

/* fio's __init_rand64: its LCG over the five words (53 is fio's (2^31)+(2^17)+(2^7)), six draws to warm up. */
static inline void taus258_seed(struct taus258 *t, uint64_t seed)
{
	const uint64_t a = 6906969069ull;

	t->s1 = taus258_floor(53ull * a ^ seed, 1);
	t->s2 = taus258_floor(t->s1 * a ^ seed, 7);
	t->s3 = taus258_floor(t->s2 * a ^ seed, 15);
	t->s4 = taus258_floor(t->s3 * a ^ seed, 33);
	t->s5 = taus258_floor(t->s4 * a ^ seed, 49);
	for (int i = 0; i < 6; i++)
		taus258_next(t);
}

/* fio's frand_state: one of the two generators, as init_rand_seed chose. */
struct frand {
	struct taus88 t32;
	struct taus258 t64;
	bool use64;
};

/* fio's init_rand_seed: the 32-bit generator takes the seed's low half. */
static inline void frand_seed(struct frand *f, uint64_t seed, bool use64)
{
	f->use64 = use64;
	if (use64)
		taus258_seed(&f->t64, seed);
	else
		taus88_seed(&f->t32, (uint32_t)seed);
}

/* fio's __rand. */
static inline uint64_t frand_next(struct frand *f)
{
	return f->use64 ? taus258_next(&f->t64) : taus88_next(&f->t32);
}

/* fio's rand_max. */
static inline uint64_t frand_max(const struct frand *f)
{
	return f->use64 ? UINT64_MAX : UINT32_MAX;
}

/* fio's scaled draw, n * (r / (rand_max + 1.0)): below n. */
static inline uint64_t frand_below(struct frand *f, uint64_t n)
{
	uint64_t r = frand_next(f);

	return (uint64_t)((double)n * ((double)r / ((double)frand_max(f) + 1.0)));
}

#endif /* IOPLAN_ENGINE_TAUS258_H */
