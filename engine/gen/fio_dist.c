/*
 * engine/gen/fio_dist.c - fio 3.33's zipf, pareto and gauss generators (fio_dist.h).
 *
 * Hand-written: the point is fio's exact sequence (lib/zipf.c, lib/gauss.c and
 * hash.h at the fio-3.33 tag), its integer conversions included, which no
 * packaged library reproduces.  A draw is one or two pow() calls, or twelve
 * generator steps for gauss; set-up sums zipf's zeta over up to 10 million
 * ranks, as fio does at a job's start.
 */
#include <math.h>
#include <string.h>

#include "engine/gen/fio_dist.h"

#define ZIPF_MAX_GEN	10000000ull	/* fio sums zeta(n) over at most this many terms */
#define GAUSS_ITERS	12
#define FRAND32_MAX	4294967295.0
#define GOLDEN_RATIO_64	0x61C8864680B583EBull
#define JHASH_INITVAL	0x61C88647u

double fio_dist_zetan(uint64_t nranges, double theta)
{
	uint64_t to_gen = nranges < ZIPF_MAX_GEN ? nranges : ZIPF_MAX_GEN;
	double zetan = 0.0;

	for (uint64_t i = 0; i < to_gen; i++)
		zetan += pow(1.0 / (double)(i + 1), theta);
	return zetan;
}

/*
 * fio's gauss_init.  Its offset is an unsigned int set from a double that is
 * negative for a centre below the middle; x86-64 converts through a 64-bit
 * signed integer and keeps the low half, so the offset wraps, and this does so
 * the same way.
 */
static void gauss_init(struct fio_dist *d, double dev, double center)
{
	if (dev != 0.0) {
		d->stddev = (uint32_t)ceil((double)d->nranges * dev / 100.0);
		if (d->stddev > d->nranges / 2)
			d->stddev = (uint32_t)(d->nranges / 2);
	}
	d->rand_off = center == -1 ? 0 : (uint32_t)(int64_t)((double)d->nranges * (center - 0.5));
}

void fio_dist_init(struct fio_dist *d, enum fio_dist_kind kind, uint64_t nranges, double param,
		   double center, uint32_t seed, bool hash, double zetan)
{
	memset(d, 0, sizeof(*d));
	d->kind = kind;
	d->nranges = nranges;
	d->hash = hash;
	taus88_seed(&d->rng, seed);
	if (kind == FIO_DIST_GAUSS) {
		gauss_init(d, param, center);
		return;
	}
	/* fio's shared_rand_init: the start is drawn even when a centre replaces it. */
	d->rand_off = taus88_next(&d->rng);
	if (center != -1)
		d->rand_off = (uint64_t)((double)nranges * center);
	if (kind == FIO_DIST_PARETO) {
		d->pareto_pow = log(param) / log(1.0 - param);
		return;
	}
	d->theta = param;
	d->zeta2 = pow(1.0, param) + pow(0.5, param);
	d->zetan = zetan >= 0.0 ? zetan : fio_dist_zetan(nranges, param);
	/* fio's zipf_next works these out on every draw from the same values: the same doubles. */
	d->alpha = 1.0 / (1.0 - param);
	d->eta = (1.0 - pow(2.0 / (double)nranges, 1.0 - param)) / (1.0 - d->zeta2 / d->zetan);
	d->half_theta = pow(0.5, param);
}

static uint64_t zipf_rank(struct fio_dist *d)
{
	double u = (double)taus88_next(&d->rng) / FRAND32_MAX, z = u * d->zetan;

	if (z < 1.0)
		return 0;
	if (z < 1.0 + d->half_theta)
		return 1;
	return (uint64_t)((double)d->nranges * pow(d->eta * u - d->eta + 1.0, d->alpha));
}

/* fio's gauss_dev: an int from unsigned arithmetic, as fio's return converts it. */
static int gauss_dev(struct fio_dist *d)
{
	uint32_t r = taus88_next(&d->rng);
	int vr = (int)(d->stddev * (r / (FRAND32_MAX + 1.0)));

	return (int)((uint32_t)vr - d->stddev / 2);
}

/*
 * fio's gauss_next before its hash: the mean of twelve draws, moved by a
 * deviation that keeps it in range.  The draws reach nranges itself, and fio
 * halves the deviation while the sum stays out of range: once it is 0 a mean
 * of nranges never comes back in, and fio spins there for good (a region of
 * two blocks with normal:10 hangs fio 3.33).  This stops halving at 0 and
 * keeps the mean, which the final modulo wraps, as fio's does without a
 * deviation; every draw fio returns from is fio's.
 */
static uint64_t gauss_rank(struct fio_dist *d)
{
	uint64_t sum = 0;

	for (int i = 0; i < GAUSS_ITERS; i++)
		sum += taus88_next(&d->rng) % (d->nranges + 1);
	sum = (sum + GAUSS_ITERS - 1) / GAUSS_ITERS;
	if (d->stddev) {
		int dev = gauss_dev(d);

		while (dev && (uint64_t)(int64_t)dev + sum >= d->nranges)
			dev /= 2;
		sum += (uint64_t)(int64_t)dev;
	}
	return sum;
}

uint64_t fio_dist_next(struct fio_dist *d)
{
	uint64_t r;

	if (d->kind == FIO_DIST_ZIPF) {
		r = zipf_rank(d);
	} else if (d->kind == FIO_DIST_PARETO) {
		double u = (double)taus88_next(&d->rng) / FRAND32_MAX;

		r = (uint64_t)((double)(d->nranges - 1) * pow(u, d->pareto_pow));
	} else {
		r = gauss_rank(d);
	}
	if (d->hash)
		r *= GOLDEN_RATIO_64;
	return (r + d->rand_off) % d->nranges;
}

static inline uint32_t rol32(uint32_t w, uint32_t s)
{
	return (w << s) | (w >> (32 - s));
}

/* fio's jhash of a string with initval 0: its loop adds one byte of each word, as fio's does. */
uint32_t fio_dist_name_hash(const char *name)
{
	const uint8_t *k = (const uint8_t *)name;
	uint32_t len = (uint32_t)strlen(name), a, b, c;

	a = b = c = JHASH_INITVAL + len;
	for (; len > 12; len -= 12, k += 12) {
		a += k[0];
		b += k[4];
		c += k[8];
		a -= c; a ^= rol32(c, 4);  c += b;
		b -= a; b ^= rol32(a, 6);  a += c;
		c -= b; c ^= rol32(b, 8);  b += a;
		a -= c; a ^= rol32(c, 16); c += b;
		b -= a; b ^= rol32(a, 19); a += c;
		c -= b; c ^= rol32(b, 4);  b += a;
	}
	if (!len)
		return c;
	/* The last block: each byte into its word, highest first (fio's fall-through switch). */
	for (uint32_t i = len; i-- > 0;) {
		uint32_t *w = i < 4 ? &a : i < 8 ? &b : &c;

		*w += (uint32_t)k[i] << (8 * (i % 4));
	}
	c ^= b; c -= rol32(b, 14);
	a ^= c; a -= rol32(c, 11);
	b ^= a; b -= rol32(a, 25);
	c ^= b; c -= rol32(b, 16);
	a ^= c; a -= rol32(c, 4);
	b ^= a; b -= rol32(a, 14);
	c ^= b; c -= rol32(b, 24);
	return c;
}
