/*
 * engine/gen/rng.h - the per-thread pseudo-random generator (wyrand) and seed mixing.
 *
 * One 64-bit state word and one 128-bit multiply per draw: cheap enough to call per
 * I/O for offsets, read/write mix and buffer keys.  Each worker owns its state, so
 * runs are reproducible from the plan's seeds and threads never share a cache line.
 */
#ifndef IOPLAN_ENGINE_RNG_H
#define IOPLAN_ENGINE_RNG_H

#include <stdint.h>

static inline uint64_t rng_next(uint64_t *s)
{
	unsigned __int128 t;

	*s += 0xa0761d6478bd642full;
	t = (unsigned __int128)*s * (*s ^ 0xe7037ed1a0b428dbull);
	return (uint64_t)(t >> 64) ^ (uint64_t)t;
}

/* Uniform in [0, n) by multiply-high; the bias is at most n / 2^64. */
static inline uint64_t rng_below(uint64_t *s, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)rng_next(s) * n) >> 64);
}

/* Uniform in [0, 1). */
static inline double rng_unit(uint64_t *s)
{
	return (double)(rng_next(s) >> 11) * (1.0 / 9007199254740992.0);
}

/* splitmix64's finaliser: turns related seeds (seed, seed+1) into unrelated ones. */
static inline uint64_t rng_mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/*
 * The streams a clone's seed is split into, one salt each: two decisions about
 * one I/O drawn from the same numbers would be one decision (trim and
 * priority once were: every trimmed write was the high-priority one).  The
 * numbers stay as they are so that a seed gives the same run as before.
 */
enum rng_stream {
	RNG_OFFSETS = 1,	/* random offsets */
	RNG_MISC = 4,		/* the worker's own: buffer contents, rate jitter */
	RNG_DEDUPE = 7,		/* dedupe_percentage's repeats */
	RNG_DEDUPE_KEY = 8,	/* dedupe's unique buffers */
	RNG_TRIM = 9,		/* trim_percentage */
	RNG_PRIO = 10,		/* cmdprio_percentage */
};

/* A derived stream: the same seed and salt always give the same state. */
static inline uint64_t rng_seed(uint64_t seed, uint64_t salt)
{
	return rng_mix(seed ^ rng_mix(salt));
}

#endif /* IOPLAN_ENGINE_RNG_H */
